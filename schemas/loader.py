"""Loads each of the project's .capnp files exactly once, from this package's own folder.

The folder is found through ``__file__`` so the same code works from source, from an
installed wheel and from a PyInstaller bundle (which ships the .capnp files as data).
Only the project's own, tested files are ever loaded: pycapnp aborts the process on a
schema it cannot parse.
"""

from __future__ import annotations

import functools
from pathlib import Path
from types import ModuleType

import capnp

SCHEMA_DIR = Path(__file__).resolve().parent
FAMILIES: tuple[str, ...] = ("transport", "isaac", "bow", "fleet", "foxglove", "autoware")
# Families split into one file per seed package: their type names keep the package.
PACKAGED_FAMILIES = frozenset({"autoware"})

capnp.remove_import_hook()


def family_files(family: str) -> list[Path]:
    """The .capnp files of one family: ``<family>.capnp`` or ``<family>/*.capnp``."""
    if family not in FAMILIES:
        raise KeyError(f"unknown schema family {family!r}")
    single = SCHEMA_DIR / f"{family}.capnp"
    if single.is_file():
        return [single]
    return sorted((SCHEMA_DIR / family).glob("*.capnp"))


@functools.cache
def load_file(path: Path) -> ModuleType:
    return capnp.load(str(path), imports=[str(SCHEMA_DIR)])


def load_family(family: str) -> dict[str, ModuleType]:
    """``{file stem: loaded module}`` for one family."""
    return {path.stem: load_file(path) for path in family_files(family)}
