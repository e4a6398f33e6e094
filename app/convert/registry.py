"""Named converters: a family's decoded message -> a display model.

A converter is registered under ``<family>.<model>`` in its family's module
(``app/convert/<family>.py``), which is imported the first time one of its names is asked
for. Bad data is refused with :class:`ConversionError`, never another exception.
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Callable
from typing import Any

from app.codec.decode import DecodedMessage

Converter = Callable[[DecodedMessage], Any]
_CONVERTERS: dict[str, Converter] = {}


class ConversionError(Exception):
    """The message decoded, but its content cannot make the display model."""


class UnknownConverter(LookupError):
    pass


def converter(name: str) -> Callable[[Converter], Converter]:
    """Registers the decorated function as converter ``name``."""

    def register(function: Converter) -> Converter:
        _CONVERTERS[name] = function
        return function

    return register


def get_converter(name: str) -> Converter:
    found = _CONVERTERS.get(name)
    if found is None:
        family = name.split(".", 1)[0]
        if family.isidentifier():
            with contextlib.suppress(ModuleNotFoundError):
                importlib.import_module(f"app.convert.{family}")
        found = _CONVERTERS.get(name)
    if found is None:
        raise UnknownConverter(f"no converter named {name!r}")
    return found


def unregister(name: str) -> None:
    _CONVERTERS.pop(name, None)
