"""Named converters: a family's decoded message -> a display model.

A converter is registered under ``<family>.<model>`` in its family's module
(``app/convert/<family>.py``), which is imported the first time one of its names is asked
for. Bad data is refused with :class:`ConversionError`, never another exception.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    from app.convert.camera.model import CameraFrame, ImageOverlay
    from app.convert.camera.projection import CameraModel
    from app.convert.models import (
        Boxes,
        Grid,
        PointCloud,
        Poses,
        Scene,
        SceneChange,
        Skeletons,
        Transforms,
    )

# What a converter makes: a model of the 3D scene or of a camera image (its overlay, or the
# camera's calibration).
DisplayModel: TypeAlias = (
    "PointCloud | Poses | Transforms | Boxes | Skeletons | Grid | Scene | SceneChange"
    " | CameraFrame | ImageOverlay | CameraModel")
Converter = Callable[..., DisplayModel]  # (DecodedMessage, **options) -> a display model
FAMILIES = ("isaac", "bow", "fleet", "foxglove", "autoware")
_CONVERTERS: dict[str, Converter] = {}
_FOR_TYPE: dict[str, str] = {}  # wire type -> the converter the 3D scene uses for it
_DRAWS: dict[str, Callable[[str], bool]] = {}  # converter -> which keys it draws something of


class ConversionError(Exception):
    """The message decoded, but its content cannot make the display model."""


class UnknownConverter(LookupError):
    pass


def converter(name: str, *type_names: str,
              draws: Callable[[str], bool] | None = None) -> Callable[[Converter], Converter]:
    """Registers the decorated function as converter ``name``, the scene's converter for
    samples of ``type_names`` (``family.Struct``, as in encodings); ``draws``: whether a
    key of those types can hold anything to draw (a robot's battery key cannot)."""

    def register(function: Converter) -> Converter:
        _CONVERTERS[name] = function
        for type_name in type_names:
            _FOR_TYPE[type_name] = name
        if draws is not None:
            _DRAWS[name] = draws
        return function

    return register


def scene_converter_for(type_name: str, key: str = "") -> str | None:
    """The converter that makes a 3D display model of ``type_name``, if there is one (and,
    given the ``key``, if that key can hold anything to draw)."""
    _import_families()
    name = _FOR_TYPE.get(type_name)
    draws = _DRAWS.get(name or "")
    if name is None or not key or draws is None:
        return name
    return name if draws(key) else None


def _import_families() -> None:
    for family in FAMILIES:
        _import_family(family)


def _import_family(family: str) -> None:
    """Imports ``app.convert.<family>`` if there is such a module (its errors propagate),
    and of a package the modules its ``CONVERTERS`` names."""
    module = f"app.convert.{family}"
    try:
        imported = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name != module:
            raise
        return
    for name in getattr(imported, "CONVERTERS", ()):
        importlib.import_module(f"{module}.{name}")


def get_converter(name: str) -> Converter:
    found = _CONVERTERS.get(name)
    if found is None:
        family = name.split(".", 1)[0]
        if family.isidentifier():
            _import_family(family)
        found = _CONVERTERS.get(name)
    if found is None:
        raise UnknownConverter(f"no converter named {name!r}")
    return found


def unregister(name: str) -> None:
    _CONVERTERS.pop(name, None)
    _DRAWS.pop(name, None)
    for type_name in [t for t, n in _FOR_TYPE.items() if n == name]:
        del _FOR_TYPE[type_name]
