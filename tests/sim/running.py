"""Runs one simulated robot in its own fleet for a test."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

from app.sim.fleet import SimFleet
from app.sim.robot import SimRobot


@contextlib.contextmanager
def one_robot(
    kind: str, endpoint: str, prepare: Callable[[Any], None] | None = None, **fleet_options: Any
) -> Iterator[Any]:
    """A one-robot fleet listening on ``endpoint``; ``prepare`` may adjust the robot
    (test timings, schedules) before it starts."""
    fleet = SimFleet([kind], listen=[endpoint], **fleet_options)
    robot: SimRobot = fleet.robots[0]
    if prepare is not None:
        prepare(robot)
    fleet.start()
    try:
        yield robot
    finally:
        fleet.stop()
