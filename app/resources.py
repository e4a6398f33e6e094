"""Paths of the files in ``resources/`` (next to the packages from source, and in the
PyInstaller bundle's data folder when frozen)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "resources"
ICONS = ROOT / "icons"
LAYOUTS = ROOT / "layouts"
DEFAULT_LAYOUT = "Field laptop"


def icon_path(name: str) -> Path:
    return ICONS / f"{name}.svg"


def default_layout_names() -> list[str]:
    return sorted(p.stem for p in LAYOUTS.glob("*.json"))
