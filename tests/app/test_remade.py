"""Snapshots made again by copying their dict are what dataclasses.replace makes."""

from __future__ import annotations

import dataclasses

import pytest

from app.remade import remade
from app.station.robots import RobotInfo
from app.station.vitals import RobotVitals


def test_a_remade_snapshot_equals_replace_and_leaves_the_old_one_as_it_was() -> None:
    old = RobotInfo("rover-1", online=True, battery_pct=50.0, mode="auto")
    new = remade(old, {"last_data": 12.5}, {"mode": "teleop", "last_data": 13.0})
    assert new == dataclasses.replace(old, mode="teleop", last_data=13.0)
    assert type(new) is RobotInfo and hash(new) == hash(new)
    assert (old.mode, old.last_data) == ("auto", None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        new.mode = "manual"  # type: ignore[misc]
    vitals = remade(RobotVitals("rover-1"), {"version": 3})
    assert vitals == RobotVitals("rover-1", version=3)
