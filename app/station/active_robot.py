"""Which robot the station shows and drives when nobody has chosen one yet.

As QGroundControl does with the first vehicle that connects: with no robot active, the one
last chosen on this machine once it is online, else the first robot online (by id, so two
that come online at the same instant always give the same choice). An active robot is never
replaced by this rule, not when it goes offline (it stays chosen, shown offline, until the
operator picks another) and so never while it is being driven. The last choice is kept in
the config dir, so it survives reconnects, playback and restarts.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from pathlib import Path

from app.station.robots import RobotInfo

log = logging.getLogger(__name__)

CHOICE_FILE = "active-robot.json"


def first_choice(active: str | None, remembered: str | None,
                 robots: Iterable[RobotInfo]) -> str | None:
    """The robot to make active now, or None to leave things as they are."""
    if active is not None:
        return None
    online = sorted(r.robot_id for r in robots if r.online)
    if not online:
        return None
    return remembered if remembered in online else online[0]


def remembered_robot(config_dir: Path) -> str | None:
    try:
        robot = json.loads((config_dir / CHOICE_FILE).read_text()).get("robot")
    except (OSError, ValueError, AttributeError):
        return None
    return robot if isinstance(robot, str) and robot else None


def remember_robot(config_dir: Path, robot_id: str) -> None:
    try:
        config_dir.mkdir(parents=True, exist_ok=True)
        (config_dir / CHOICE_FILE).write_text(json.dumps({"robot": robot_id}))
    except OSError as exc:
        log.warning("the active robot was not remembered: %s", exc)
