"""Two simulated rovers over real zenoh, for panels whose keys follow the active robot: each
publishes the same keys under its own id."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from app.sim.fleet import SimFleet
from app.sim.rover import SimRover

ROVERS = ("rover-1", "rover-2")


@pytest.fixture
def two_rovers(free_endpoint: str) -> Iterator[SimFleet]:
    robots = [SimRover(robot_id, points=2_000, lidar_hz=1.0) for robot_id in ROVERS]
    with SimFleet([], listen=[free_endpoint], robots=list(robots)) as fleet:
        yield fleet
