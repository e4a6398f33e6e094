"""Input readings to motion through a profile: pure functions, no state of their own.

Sticks get a radial dead zone over their pair (round, so the response is the same in
every direction, with no cross-shaped dead bands along the axes), rescaled to start from 0
at its edge; then the expo curve, invert, scale and the limit. A NaN or infinite reading
counts as 0 (at rest).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import fields

from app.inputs.model import InputState
from app.teleop.model import Gear, Motion
from app.teleop.profiles import (
    FINGERS,
    OUTPUTS,
    PARTNER,
    STICKS,
    TRIGGERS,
    AxisMap,
    HandMap,
    Limits,
    Profile,
)

MOVING_GEARS = (Gear.DRIVE, Gear.REVERSE, None)  # None: the robot's gear, unknown here
HAND_DEADZONE = 0.05  # a trigger resting a little open must not creep the hand


def finite(value: object, rest: float = 0.0) -> float:
    """The reading as a float; NaN, infinities and non-numbers are ``rest``."""
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return rest
    return number if math.isfinite(number) else rest


def clamp(value: float, low: float, high: float) -> float:
    return min(high, max(low, value))


def trigger01(raw: object) -> float:
    """A raw trigger axis (-1 at rest .. 1 pressed) as 0..1; a bad reading is at rest."""
    return clamp((finite(raw, rest=-1.0) + 1.0) / 2.0, 0.0, 1.0)


def deadzone(value: float, zone: float) -> float:
    """1-D dead zone, rescaled so the output grows from 0 at the zone's edge to ±1."""
    magnitude = abs(value)
    if magnitude <= zone:
        return 0.0
    return math.copysign(min(1.0, (magnitude - zone) / (1.0 - zone)), value)


def radial(x: float, y: float, zone: float) -> tuple[float, float]:
    """Radial dead zone on a stick's pair, rescaled: the direction is kept, the length
    grows from 0 at the zone's edge to 1 (a square gate's corner is clipped to 1)."""
    length = math.hypot(x, y)
    if length <= zone:
        return 0.0, 0.0
    gain = min(1.0, (length - zone) / (1.0 - zone)) / length
    return x * gain, y * gain


def expo(value: float, amount: float) -> float:
    """The usual RC expo: finer near the centre, still ±1 at full deflection."""
    return (1.0 - amount) * value + amount * value ** 3


def shaped(mapping: AxisMap, axes: Mapping[str, float]) -> float:
    """-1..1 from one axis through its dead zone, expo and invert (scale not applied)."""
    value = finite(axes.get(mapping.axis, 0.0))
    if mapping.axis in TRIGGERS:
        value = deadzone(clamp(value, 0.0, 1.0), mapping.deadzone)
    else:
        partner = clamp(finite(axes.get(PARTNER[mapping.axis], 0.0)), -1.0, 1.0)
        value, _ = radial(clamp(value, -1.0, 1.0), partner, mapping.deadzone)
    value = expo(value, mapping.expo)
    return (-value if mapping.invert else value) + 0.0  # no -0.0 on the wire


def next_hand(hand_map: HandMap, state: InputState, hand: tuple[float, ...] | None,
              dt: float, reported: tuple[float, ...] | None = None
              ) -> tuple[float, ...] | None:
    """The hand's target after ``dt`` s of this reading: a pose button sets every finger;
    otherwise the close / open triggers move every finger from its last target (the first
    time, from ``reported``, the hand as the robot reports it) at ``rate`` %/s times the
    trigger's travel. None while nothing was commanded: with neither a target nor a report
    the triggers move nothing, since integrating from an assumed state could open a hand
    that holds an object when "close" is pressed."""
    for button, pose in hand_map.buttons.items():
        if button in state.buttons and pose in hand_map.poses:
            return tuple(hand_map.poses[pose])
    pressed = 0.0
    for trigger, sign in ((hand_map.close, 1.0), (hand_map.open, -1.0)):
        if trigger is not None:
            travel = clamp(finite(state.axes.get(trigger, 0.0)), 0.0, 1.0)
            pressed += sign * deadzone(travel, HAND_DEADZONE)
    step = hand_map.rate * pressed * clamp(finite(dt), 0.0, 1.0)
    start = hand if hand is not None else reported
    if step == 0.0 or start is None:
        return hand
    return tuple(clamp(finger + step, 0.0, 100.0) for finger in start[:len(FINGERS)])


def blended(normal: Limits, turbo: Limits, share: float) -> Limits:
    """The limits ``share`` (0..1) of the way from ``normal`` to ``turbo``: turbo ramps in."""
    share = clamp(finite(share), 0.0, 1.0)
    return Limits(**{f.name: getattr(normal, f.name) + share * (
        getattr(turbo, f.name) - getattr(normal, f.name)) for f in fields(Limits)})


def full_scale(profile: Profile, robot: str | None) -> Limits:
    """The most the profile ever asks of the robot, per output (the larger of normal and
    turbo): what a joystick axis at ±1 stands for."""
    normal, turbo = profile.limits_for(robot, False), profile.limits_for(robot, True)
    return Limits(**{f.name: max(getattr(normal, f.name), getattr(turbo, f.name))
                     for f in fields(Limits)})


def joystick_axes(profile: Profile, state: InputState, limits: Limits, full: Limits
                  ) -> dict[str, float]:
    """The device's axes as a joystick robot gets them, in SDL's signs (sticks -1..1,
    triggers 0..1) but shaped like every other output: an axis an output maps goes
    through that output's dead zone, expo and scale, as the fraction ``limits`` is of
    ``full``; a stick no output maps is at rest; a trigger no output maps gets the hand's
    dead zone. The speed scale (slow link, low battery) is the arming machine's."""
    axes: dict[str, float] = {}
    for output in OUTPUTS:  # the first output an axis drives shapes it
        mapping = profile.axes.get(output)
        if mapping is None or mapping.axis in axes:
            continue
        top = getattr(full, output)
        share = getattr(limits, output) / top if top > 0 else 0.0
        value = shaped(mapping, state.axes) * mapping.scale * share
        low = 0.0 if mapping.axis in TRIGGERS else -1.0
        axes[mapping.axis] = clamp(-value if mapping.invert else value, low, 1.0) + 0.0
    for stick in STICKS:
        axes.setdefault(stick, 0.0)
    for trigger in TRIGGERS:
        if trigger not in axes:
            travel = clamp(finite(state.axes.get(trigger, 0.0)), 0.0, 1.0)
            axes[trigger] = deadzone(travel, HAND_DEADZONE)
    return axes


def gear_of(profile: Profile, state: InputState, gear: Gear | None) -> Gear | None:
    """The gear a pressed gear button asks for, else ``gear`` (whether it may change now
    is the controller's business: never while moving)."""
    for button, wanted in profile.gears.items():
        if button in state.buttons:
            return wanted
    return gear


def motion_of(profile: Profile, state: InputState, turbo: bool = False,
              hand: tuple[float, ...] | None = None, *, dt: float = 0.0,
              robot: str | None = None, gear: Gear | None = None,
              reported_hand: tuple[float, ...] | None = None,
              limits: Limits | None = None) -> Motion:
    """What this reading asks for, in physical units within the robot's limits (turbo's
    when ``turbo``, or ``limits`` when given: turbo ramping in). ``hand`` and ``gear`` are
    the last targets, ``reported_hand`` the hand as the robot reports it; ``dt`` the
    seconds since the last command (how far the triggers move the hand). ``axes`` are the
    shaped axes a joystick robot gets (:func:`joystick_axes`), never the raw ones."""
    limits = limits or profile.limits_for(robot, turbo)
    values = {}
    for output in ("linear", "lateral", "angular", "steering", "speed"):
        mapping = profile.axes.get(output)
        limit = getattr(limits, output)
        values[output] = 0.0 if mapping is None else clamp(
            limit * mapping.scale * shaped(mapping, state.axes), -limit, limit)
    new_gear = gear_of(profile, state, gear)
    # Speed runs along the gear's direction: never negative, none in park or neutral.
    values["speed"] = max(0.0, values["speed"]) if new_gear in MOVING_GEARS else 0.0
    new_hand = next_hand(profile.hand, state, hand, dt, reported_hand)
    return Motion(**values, gear=new_gear, hand=new_hand,
                  axes=joystick_axes(profile, state, limits, full_scale(profile, robot)),
                  buttons=frozenset(state.buttons))


def limit_acceleration(previous: float, wanted: float, acceleration: float,
                       dt: float) -> float:
    """``wanted`` speed, rising from ``previous`` at most ``acceleration`` m/s² over
    ``dt``; slowing down is never held back."""
    if wanted <= previous:
        return wanted
    return min(wanted, previous + acceleration * clamp(finite(dt), 0.0, 1.0))
