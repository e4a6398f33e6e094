"""A simulated topic keeps its catalog rate when the robot's ticks come late."""

from __future__ import annotations

import itertools
import random

from app.sim.robot import Topic


def published_in(topic: Topic, ticks: list[float]) -> list[float]:
    return [now for now in ticks if topic.due(now)]


def test_late_ticks_keep_the_rate_of_the_catalog() -> None:
    lateness = random.Random(7)
    # a loaded machine: 100 Hz ticks each up to 15 ms late, for 20 s
    ticks = list(itertools.accumulate(
        (i / 100 + lateness.uniform(0.0, 0.015) for i in range(1, 2001)), max))
    sent = published_in(Topic("fleet/rover-1/uplink/motion", "fleet.Uplink", 10.0,
                              lambda now: None), ticks)
    assert abs(len(sent) / 20.0 - 10.0) <= 0.1


def test_a_stalled_robot_does_not_catch_up_in_a_rush() -> None:
    topic = Topic("fleet/rover-1/uplink/motion", "fleet.Uplink", 10.0, lambda now: None)
    ticks = [i / 100 for i in range(1, 101)] + [3.0 + i / 100 for i in range(100)]  # 2 s stall
    sent = published_in(topic, ticks)
    after = [t for t in sent if t >= 3.0]
    assert min(b - a for a, b in itertools.pairwise(after)) >= 0.1 - 1e-9
