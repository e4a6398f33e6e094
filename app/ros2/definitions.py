"""A live ROS 2 robot's own message types, from their ``.msg`` files.

rmw_zenoh carries no message definitions (a bag does), so the station reads them where a
ROS 2 user keeps them: ``<prefix>/share/<package>/msg/<Name>.msg`` of each prefix of
``AMENT_PREFIX_PATH`` (the workspace sourced in the shell the station starts from), and
``<folder>/<package>/msg/<Name>.msg`` of each folder of ``FIELDSTATION_ROS2_MSGS``. The
standard types (and vision_msgs') are the store's own and are never read again. A file that
does not parse, or refers to a type known nowhere, is refused and said.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FOLDERS_VARIABLE = "FIELDSTATION_ROS2_MSGS"
AMENT_VARIABLE = "AMENT_PREFIX_PATH"


@dataclass
class Definitions:
    types: dict[str, Any] = field(default_factory=dict)  # rosbags' parsed definitions
    problems: list[str] = field(default_factory=list)  # "<file>: why it was refused"


def definition_folders(environ: Mapping[str, str] = os.environ) -> list[Path]:
    """The folders whose ``<package>/msg/*.msg`` are read, in order (the first wins)."""
    prefixes = [Path(p) / "share" for p in environ.get(AMENT_VARIABLE, "").split(os.pathsep) if p]
    return [Path(p) for p in environ.get(FOLDERS_VARIABLE, "").split(os.pathsep) if p] + prefixes


def read_definitions(folders: list[Path], known: Callable[[str], bool]) -> Definitions:
    """Every type of the folders not ``known`` yet, each whose references resolve."""
    from rosbags.typesys import TypesysError, get_types_from_msg

    read = Definitions()
    parsed: dict[str, tuple[Path, Any]] = {}
    for folder in folders:
        for path in sorted(folder.glob("*/msg/*.msg")):
            name = f"{path.parent.parent.name}/msg/{path.stem}"
            if known(name) or name in parsed:
                continue
            try:
                for type_name, definition in get_types_from_msg(path.read_text(),
                                                                name).items():
                    parsed.setdefault(type_name, (path, definition))
            except (OSError, UnicodeDecodeError, TypesysError) as exc:
                read.problems.append(f"{path}: {str(exc).splitlines()[0]}")
    accepted: set[str] = set()
    pending = dict(parsed)
    while pending:  # a type is taken once everything it names is known or taken
        ready = [name for name, (_, definition) in pending.items()
                 if all(known(ref) or ref in accepted for ref in _references(definition))]
        if not ready:
            break
        accepted.update(ready)
        for name in ready:
            read.types[name] = pending.pop(name)[1]
    for name, (path, definition) in sorted(pending.items()):
        missing = sorted(ref for ref in _references(definition)
                         if not known(ref) and ref not in accepted)
        read.problems.append(f"{path}: {name} refers to {', '.join(missing)}, known nowhere")
    return read


def _references(definition: Any) -> Iterator[str]:
    """The type names a parsed definition's fields name (in arrays and sequences too)."""
    from rosbags.interfaces import Nodetype

    def walk(node: Any) -> Iterator[str]:
        if isinstance(node, tuple):
            if len(node) == 2 and node[0] == Nodetype.NAME and isinstance(node[1], str):
                yield node[1]
            else:
                for item in node:
                    yield from walk(item)
        elif isinstance(node, list):
            for item in node:
                yield from walk(item)

    _consts, fields = definition
    for _name, field_type in fields:
        yield from walk(field_type)
