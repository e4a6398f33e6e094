"""Layouts as versioned JSON: parse and validate completely before anything is applied, so a
bad file leaves the current layout intact and says exactly what is wrong."""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FORMAT = "fieldstation.layout"
VERSION = 1
AREAS = ("left", "right", "top", "bottom")


class LayoutError(Exception):
    """A layout that cannot be applied; the message is shown to the user as is."""


@dataclass
class DockRecord:
    object_name: str  # unique per window: "<panel_id>#<n>"
    panel_id: str
    state: dict[str, Any] = field(default_factory=dict)
    area: str = "left"  # used when the layout carries no Qt window state
    tab_with: str = ""  # object_name of a dock to tab this one with
    floating: bool = False
    # [width, height] as fractions of the window, for layouts without a Qt window state
    # (the shipped defaults, which must suit any screen); empty: Qt decides.
    size: list[float] = field(default_factory=list)


@dataclass
class Layout:
    name: str
    docks: list[DockRecord]
    window_state: bytes = b""  # QMainWindow.saveState(), when saved from a window
    geometry: bytes = b""

    def to_json(self) -> str:
        return json.dumps(
            {
                "format": FORMAT,
                "version": VERSION,
                "name": self.name,
                "window": {"state": _b64(self.window_state), "geometry": _b64(self.geometry)},
                "docks": [vars(d) for d in self.docks],
            },
            indent=1,
        )


def parse_layout(text: str | bytes, known_panels: Iterable[str], source: str = "layout") -> Layout:
    """A validated Layout, or LayoutError naming the first problem."""
    try:
        data = json.loads(text)
    except (ValueError, UnicodeDecodeError) as exc:
        raise LayoutError(f"{source} is not valid JSON: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise LayoutError(f"{source} is not a Fieldstation layout")
    version = data.get("version")
    if not isinstance(version, int):
        raise LayoutError(f"{source} has no layout version")
    if version > VERSION:
        raise LayoutError(f"{source} is from a newer Fieldstation (layout version {version}, "
                          f"this one reads up to {VERSION})")
    docks_data = data.get("docks")
    if not isinstance(docks_data, list):
        raise LayoutError(f"{source} lists no panels")
    known = set(known_panels)
    docks: list[DockRecord] = []
    names: set[str] = set()
    for index, item in enumerate(docks_data):
        docks.append(_dock(item, index, known, names, source))
    for dock in docks:
        if dock.tab_with and dock.tab_with not in names:
            raise LayoutError(f"{source}: panel {dock.object_name} tabs with unknown "
                              f"{dock.tab_with!r}")
    window = data.get("window") or {}
    if not isinstance(window, dict):
        raise LayoutError(f"{source}: 'window' must be an object")
    name = data.get("name") if isinstance(data.get("name"), str) else ""
    return Layout(name or source, docks, _unb64(window.get("state"), source),
                  _unb64(window.get("geometry"), source))


def _dock(item: Any, index: int, known: set[str], names: set[str], source: str) -> DockRecord:
    where = f"{source}: panel #{index + 1}"
    if not isinstance(item, dict):
        raise LayoutError(f"{where} is not an object")
    panel_id, object_name = item.get("panel_id"), item.get("object_name")
    if not isinstance(panel_id, str) or not isinstance(object_name, str) or not object_name:
        raise LayoutError(f"{where} needs a panel_id and an object_name")
    if panel_id not in known:
        raise LayoutError(f"{where} is an unknown panel {panel_id!r} "
                          f"(known: {', '.join(sorted(known))})")
    if object_name in names:
        raise LayoutError(f"{where}: object_name {object_name!r} is used twice")
    names.add(object_name)
    state = item.get("state", {})
    area = item.get("area", "left")
    if not isinstance(state, dict) or area not in AREAS:
        raise LayoutError(f"{where}: state must be an object and area one of {AREAS}")
    size = item.get("size", [])
    if not isinstance(size, list) or (size and (
            len(size) != 2 or not all(_is_fraction(x) for x in size))):
        raise LayoutError(f"{where}: size must be [width, height], fractions of the window")
    return DockRecord(object_name, panel_id, state, area, str(item.get("tab_with") or ""),
                      bool(item.get("floating", False)), [float(x) for x in size])


def _is_fraction(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and 0 < value <= 1


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _unb64(text: Any, source: str) -> bytes:
    if not text:
        return b""
    try:
        return base64.b64decode(str(text), validate=True)
    except (binascii.Error, ValueError):
        raise LayoutError(f"{source}: the saved window arrangement is corrupt") from None


def read_layout(path: Path, known_panels: Iterable[str]) -> Layout:
    try:
        text = path.read_bytes()
    except OSError as exc:
        raise LayoutError(f"cannot read {path}: {exc.strerror or exc}") from None
    return parse_layout(text, known_panels, path.name)
