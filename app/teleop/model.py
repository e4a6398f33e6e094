"""The plain values teleop passes between its parts (frozen: they cross threads). The
input devices' readings are :class:`app.inputs.model.InputState`."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


class Gear(Enum):
    DRIVE = "drive"
    REVERSE = "reverse"
    PARK = "park"
    NEUTRAL = "neutral"


@dataclass(frozen=True)
class Motion:
    """What the operator asks the robot to do, in physical units after the profile's limits.
    Every robot adapter takes the parts it can carry out. Positive: forward, left,
    counter-clockwise (REP-103)."""

    linear: float = 0.0  # m/s forward
    lateral: float = 0.0  # m/s left (holonomic bases, humanoid stepping)
    angular: float = 0.0  # rad/s counter-clockwise
    steering: float = 0.0  # rad, left positive (Ackermann)
    speed: float = 0.0  # m/s along the gear's direction (Ackermann; >= 0)
    gear: Gear | None = None  # None: keep the robot's gear
    hand: tuple[float, ...] | None = None  # finger targets 0..100 %; None: none commanded
    axes: dict[str, float] = field(default_factory=dict)  # raw, for robots that want them
    buttons: frozenset[str] = frozenset()

    def stopped(self) -> Motion:
        """The stop of this command: no motion, position targets (gear, hand) held."""
        return Motion(gear=self.gear, hand=self.hand)

    @property
    def moving(self) -> bool:
        return any(v != 0.0 for v in (self.linear, self.lateral, self.angular, self.speed))
