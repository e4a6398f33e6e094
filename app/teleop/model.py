"""The plain values teleop passes between its parts (frozen: they cross threads).

Axis names are SDL's game-controller layout: sticks ``leftx``, ``lefty``, ``rightx``,
``righty`` in -1..1 with SDL's signs (y down is +, so stick up is -1); triggers
``lefttrigger``, ``righttrigger`` normalised to 0..1 (0 at rest). Buttons: ``a``, ``b``,
``x``, ``y``, ``back``, ``guide``, ``start``, ``leftstick``, ``rightstick``,
``leftshoulder``, ``rightshoulder``, ``dpup``, ``dpdown``, ``dpleft``, ``dpright``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


@dataclass(frozen=True)
class InputState:
    """One reading of an input device (gamepad, keyboard, on-screen stick)."""

    axes: dict[str, float] = field(default_factory=dict)
    buttons: frozenset[str] = frozenset()
    read_at: float = 0.0  # time.monotonic() of the reading (a stick held still is fresh)
    connected: bool = True
    device: str = ""  # what it is, for the panel ("Xbox Controller", "keyboard")
    # Which device, stable while it stays plugged ("sdl:<instance id>", "keyboard",
    # "on-screen stick"): another id is another device, which must be armed anew.
    device_id: str = ""
    # How long this reading counts as fresh, s (GUI inputs: one period of the GUI's
    # timer); None: the arming machine's own bound. The machine uses the smaller.
    stale_after: float | None = None


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
