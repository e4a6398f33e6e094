"""The robots panel's filters and groupings, built on each robot's state in one word
(app.station.robot_state)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.station.robot_state import ESTOP, FAULT, OFFLINE, OK, STATE_LABELS, STATES, WARNING
from app.station.robots import RobotInfo
from app.station.vitals import SEVERITIES, Fault

# The state filter: its label -> the states it lets through.
STATE_FILTERS: dict[str, frozenset[str]] = {
    "All robots": frozenset(STATES),
    "Online": frozenset(STATES) - {OFFLINE},
    "Offline": frozenset({OFFLINE}),
    "Needs attention": frozenset({ESTOP, FAULT, WARNING}),
    "E-stop": frozenset({ESTOP}),
    "Fault": frozenset({FAULT}),
    "Warning": frozenset({WARNING}),
    "OK": frozenset({OK}),
}
# Group by: its label -> its name in a saved layout.
GROUPINGS = {"None": "none", "Family": "family", "State": "state", "Fault": "fault"}


def worst_fault(faults: Sequence[Fault]) -> Fault | None:
    """The most severe active fault (newest first among equals)."""
    active = [f for f in faults if f.active]
    return min(active, key=lambda f: (f.rank, -f.raised_ms, f.code)) if active else None


@dataclass(frozen=True)
class Heading:
    """Which group a robot falls in, for one way of grouping."""

    key: str
    name: str  # the group row's text, before its count
    order: tuple[int, str]  # groups sort by it: most urgent or alphabetical first


def heading(grouping: str, robot: RobotInfo, state: str, faults: Sequence[Fault]) -> Heading:
    """``grouping``: "family" (the robot's families as listed; all of them, so a rover
    speaking three families is one group), "state", or "fault" (its most severe active
    fault, severity and code)."""
    if grouping == "family":
        families = ", ".join(robot.families)
        return (Heading(families, families, (0, families)) if families
                else Heading("", "Families not known yet", (1, "")))
    if grouping == "state":
        return Heading(state, STATE_LABELS[state], (STATES.index(state), ""))
    worst = worst_fault(faults)
    if worst is None:
        return Heading("", "No active fault", (len(SEVERITIES), ""))
    severity = str(worst.severity)
    return Heading(f"{severity}:{worst.code}", f"{worst.code} ({severity})",
                   (worst.rank, worst.code))
