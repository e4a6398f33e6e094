"""The robot ids a station gives ROS 2 robots instead of the ones the rule makes (the first
namespace segment, ``ros2-domain-<id>`` for a domain's root namespace: app.ros2.graph),
kept in the config dir as a JSON object, rule's id -> robot id::

    {"ros2-domain-0": "atlas-2", "rover_1": "rover-1"}

Read by the window and the command line alike. An entry that cannot be used is refused
with a line saying why (the ROS 2 graph panel shows them); the others still apply."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from app.bus.keys import ROBOT_ID

FILE_NAME = "ros2-robots.json"
# the ids the rule makes: a ROS 2 name segment, or a domain's root-namespace robot
RULED_ID = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*|ros2-domain-[0-9]+)$")


@dataclass(frozen=True)
class RobotNames:
    names: dict[str, str] = field(default_factory=dict)  # rule's id -> robot id
    refused: tuple[str, ...] = ()  # each entry not used, and why


def read_robot_names(config_dir: Path) -> RobotNames:
    path = config_dir / FILE_NAME
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return RobotNames()
    except (OSError, UnicodeDecodeError) as exc:
        return RobotNames(refused=(f"{FILE_NAME}: not read: {exc}",))
    try:
        saved = json.loads(text)
    except ValueError as exc:
        return RobotNames(refused=(f"{FILE_NAME}: not JSON: {exc}",))
    if not isinstance(saved, dict):
        return RobotNames(refused=(f"{FILE_NAME}: not a JSON object of rule's id -> robot "
                                   "id",))
    return robot_names(saved)


def robot_names(saved: dict[object, object]) -> RobotNames:
    names: dict[str, str] = {}
    refused: list[str] = []
    for ruled, given in sorted(saved.items(), key=lambda item: str(item[0])):
        entry = f"{FILE_NAME}: {ruled!r}: {given!r}"
        if not isinstance(ruled, str) or not RULED_ID.match(ruled):
            refused.append(f"{entry}: {ruled!r} is no robot id the ROS 2 rule makes (a "
                           "namespace's first segment, or ros2-domain-<id>)")
        elif not isinstance(given, str) or not ROBOT_ID.match(given):
            refused.append(f"{entry}: {given!r} is no robot id (letters, digits, - and _)")
        elif given in names.values():
            first = next(r for r, g in names.items() if g == given)
            refused.append(f"{entry}: {given!r} is already {first!r}'s name")
        else:
            names[ruled] = given
    return RobotNames(names, tuple(refused))
