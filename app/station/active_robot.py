"""Which robot the station shows and drives when nobody has chosen one yet.

As QGroundControl does with the first vehicle that connects: with no robot active, the one
last chosen on this machine once it is online, else the robot that came online first (by id
among those that came at the same instant, so they always give the same choice). The one
last chosen is waited for REMEMBERED_WAIT_S after the first robot came: a fleet's robots
announce themselves one by one, and the robot chosen last need not be the first. An active
robot is never replaced by this rule, not when it goes offline (it stays chosen, shown
offline, until the operator picks another) and so never while it is being driven. The last
choice is kept in the config dir, so it survives reconnects, playback and restarts.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from app.choices import read_choice, write_choice
from app.station.robots import RobotInfo

CHOICE_FILE = "active-robot.json"
SAME_INSTANT_S = 0.5  # robots online this close together came at once (the window looks
# at the robots twice a second: it saw them arrive together)
REMEMBERED_WAIT_S = 2.0


def first_choice(active: str | None, remembered: str | None,
                 robots: Iterable[RobotInfo], now: float) -> str | None:
    """The robot to make active at ``now`` (time.monotonic()), or None to leave things as
    they are."""
    if active is not None:
        return None
    online = [r for r in robots if r.online]
    if not online:
        return None
    if remembered in {r.robot_id for r in online}:
        return remembered
    # Presence times are taken per token as it arrives, so robots that came together (in
    # one burst, or both there when the station connects) differ by microseconds in the
    # order zenoh happened to deliver them: the same instant, within SAME_INSTANT_S.
    first = min(r.changed for r in online)
    if remembered is not None and now - first < REMEMBERED_WAIT_S:
        return None  # the robot chosen last may be announcing itself still
    return min(r.robot_id for r in online if r.changed - first <= SAME_INSTANT_S)


def remembered_robot(config_dir: Path) -> str | None:
    return read_choice(config_dir, CHOICE_FILE, "robot")


def remember_robot(config_dir: Path, robot_id: str) -> None:
    write_choice(config_dir, CHOICE_FILE, "robot", robot_id)
