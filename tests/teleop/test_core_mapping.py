"""Readings to motion: directions of the default profile, dead zones, expo, hand, gears."""

from __future__ import annotations

import math

import pytest

from app.inputs.model import InputState
from app.teleop.mapping import (
    deadzone,
    limit_acceleration,
    motion_of,
    next_hand,
    radial,
    trigger01,
)
from app.teleop.model import Gear
from app.teleop.profiles import DEFAULT, POSES, profile_from_dict

NORMAL = DEFAULT.limits.normal
TURBO = DEFAULT.limits.turbo


def reading(buttons: tuple[str, ...] = (), **axes: float) -> InputState:
    return InputState(axes=axes, buttons=frozenset(buttons))


def test_left_stick_up_drives_forward_and_back_drives_backward():
    assert motion_of(DEFAULT, reading(lefty=-1.0)).linear == pytest.approx(NORMAL.linear)
    assert motion_of(DEFAULT, reading(lefty=1.0)).linear == pytest.approx(-NORMAL.linear)


def test_right_stick_left_turns_counter_clockwise():
    motion = motion_of(DEFAULT, reading(rightx=-1.0))
    assert motion.angular == pytest.approx(NORMAL.angular)
    assert motion.steering == pytest.approx(NORMAL.steering)  # Ackermann: left
    assert motion.angular > 0 and motion.steering > 0
    assert motion_of(DEFAULT, reading(rightx=1.0)).angular == pytest.approx(-NORMAL.angular)


def test_left_stick_left_steps_left():
    assert motion_of(DEFAULT, reading(leftx=-1.0)).lateral == pytest.approx(NORMAL.lateral)


def test_car_speed_runs_along_the_gear_never_negative():
    assert motion_of(DEFAULT, reading(lefty=-1.0)).speed == pytest.approx(NORMAL.speed)
    assert motion_of(DEFAULT, reading(lefty=1.0)).speed == 0.0
    assert motion_of(DEFAULT, reading(lefty=-1.0), gear=Gear.PARK).speed == 0.0
    assert motion_of(DEFAULT, reading(lefty=-1.0), gear=Gear.REVERSE).speed > 0


def test_turbo_uses_the_turbo_limits():
    motion = motion_of(DEFAULT, reading(lefty=-1.0, rightx=-1.0), turbo=True)
    assert motion.linear == pytest.approx(TURBO.linear)
    assert motion.angular == pytest.approx(TURBO.angular)


def test_per_robot_limits_apply():
    profile = profile_from_dict({"format": "fieldstation.teleop-profile", "version": 1,
                                 "robots": {"rover-1": {"normal": {"linear": 0.2}}}})
    assert motion_of(profile, reading(lefty=-1.0), robot="rover-1").linear == \
        pytest.approx(0.2)
    assert motion_of(profile, reading(lefty=-1.0), robot="rover-2").linear == \
        pytest.approx(NORMAL.linear)


def test_radial_dead_zone_is_round_and_continuous():
    assert radial(0.07, 0.07, 0.1) == (0.0, 0.0)  # |v| = 0.099 inside
    x, y = radial(0.08, 0.08, 0.1)  # each axis below the zone, the radius beyond it
    assert x > 0 and y > 0 and x == pytest.approx(y)
    x, _ = radial(0.1001, 0.0, 0.1)
    assert 0 < x < 1e-3  # grows from 0 at the edge: no jump
    x, _ = radial(1.0, 0.0, 0.1)
    assert x == pytest.approx(1.0)
    x, y = radial(1.0, 1.0, 0.1)  # a square gate's corner stays within the circle
    assert math.hypot(x, y) == pytest.approx(1.0)


def test_stick_inside_dead_zone_is_still():
    motion = motion_of(DEFAULT, reading(lefty=-0.05, leftx=0.05, rightx=0.09))
    assert (motion.linear, motion.lateral, motion.angular, motion.speed) == (0, 0, 0, 0)
    assert not motion.moving


def test_dead_zone_for_triggers_is_plain():
    assert deadzone(0.05, 0.1) == 0.0
    assert deadzone(0.55, 0.1) == pytest.approx(0.5)
    assert deadzone(-1.0, 0.1) == -1.0


def test_expo_is_finer_near_the_centre_and_full_at_the_end():
    profile = profile_from_dict({"format": "fieldstation.teleop-profile", "version": 1,
                                 "axes": {"linear": {"axis": "lefty", "invert": True,
                                                     "deadzone": 0.0, "expo": 1.0}}})
    assert motion_of(profile, reading(lefty=-0.5)).linear == pytest.approx(
        0.125 * NORMAL.linear)
    assert motion_of(profile, reading(lefty=-1.0)).linear == pytest.approx(NORMAL.linear)


def test_invert_and_scale():
    profile = profile_from_dict({"format": "fieldstation.teleop-profile", "version": 1,
                                 "axes": {"linear": {"axis": "lefty", "deadzone": 0.0,
                                                     "scale": 2.0}}})
    # Not inverted: SDL's stick up (-1) now drives backwards; scale 2 reaches the limit
    # at half travel and never goes beyond it.
    assert motion_of(profile, reading(lefty=-0.25)).linear == pytest.approx(
        -0.5 * NORMAL.linear)
    assert motion_of(profile, reading(lefty=-1.0)).linear == pytest.approx(-NORMAL.linear)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, "x", None])
def test_non_finite_readings_count_as_rest(bad):
    motion = motion_of(DEFAULT, InputState(axes={"lefty": bad, "leftx": bad, "rightx": bad,
                                                 "righttrigger": bad}))
    assert (motion.linear, motion.lateral, motion.angular, motion.steering) == (0, 0, 0, 0)
    assert motion.hand is None
    assert all(v == 0.0 for v in motion.axes.values())


def test_nan_partner_does_not_poison_the_stick():
    motion = motion_of(DEFAULT, reading(lefty=-1.0, leftx=math.nan))
    assert motion.linear == pytest.approx(NORMAL.linear)


def test_trigger01():
    assert trigger01(-1.0) == 0.0
    assert trigger01(1.0) == 1.0
    assert trigger01(0.0) == 0.5
    assert trigger01(math.nan) == 0.0
    assert trigger01(7.0) == 1.0


def test_triggers_close_and_open_the_hand_at_the_rate():
    rate = DEFAULT.hand.rate
    closed = next_hand(DEFAULT.hand, reading(righttrigger=1.0), (0.0,) * 5, 0.25)
    assert closed == pytest.approx((rate * 0.25,) * 5)
    opened = next_hand(DEFAULT.hand, reading(lefttrigger=1.0), closed, 0.1)
    assert opened == pytest.approx((rate * 0.15,) * 5)
    assert next_hand(DEFAULT.hand, reading(righttrigger=1.0), closed, 10.0) == (100.0,) * 5
    assert next_hand(DEFAULT.hand, reading(lefttrigger=1.0), closed, 10.0) == (0.0,) * 5


def test_released_triggers_hold_the_hand():
    hand = (10.0, 20.0, 30.0, 40.0, 50.0)
    assert next_hand(DEFAULT.hand, reading(righttrigger=0.02), hand, 0.05) == hand
    assert next_hand(DEFAULT.hand, reading(), None, 0.05) is None


def test_without_a_target_the_triggers_start_from_the_reported_hand_or_move_nothing():
    rate = DEFAULT.hand.rate
    holding = (60.0, 70.0, 70.0, 70.0, 70.0, 50.0, 40.0)  # as reported, with the two extras
    closed = next_hand(DEFAULT.hand, reading(righttrigger=1.0), None, 0.1, holding)
    assert closed == pytest.approx(tuple(f + rate * 0.1 for f in holding[:5]))
    for trigger in ("righttrigger", "lefttrigger"):  # nothing known: nothing moves
        assert next_hand(DEFAULT.hand, reading(**{trigger: 1.0}), None, 0.1) is None
    target = (20.0,) * 5  # a target wins over the report
    assert next_hand(DEFAULT.hand, reading(righttrigger=1.0), target, 0.1, holding) == \
        pytest.approx((20.0 + rate * 0.1,) * 5)


def test_presets_set_every_finger():
    assert next_hand(DEFAULT.hand, reading(("dpdown",)), None, 0.05) == POSES["power"]
    assert next_hand(DEFAULT.hand, reading(("dpleft",), righttrigger=1.0), (0.0,) * 5,
                     0.05) == POSES["pinch"]
    motion = motion_of(DEFAULT, reading(("dpup",)), hand=(90.0,) * 5)
    assert motion.hand == POSES["open"]


def test_gear_buttons():
    assert motion_of(DEFAULT, reading(("y",))).gear is Gear.DRIVE
    assert motion_of(DEFAULT, reading(("a",))).gear is Gear.REVERSE
    assert motion_of(DEFAULT, reading(), gear=Gear.REVERSE).gear is Gear.REVERSE
    assert motion_of(DEFAULT, reading()).gear is None


def test_a_joystick_gets_shaped_limited_axes_never_the_raw_ones():
    """Sticks in SDL's signs, through the dead zone, expo, scale and limit of the output
    they drive, as a fraction of the profile's most (turbo)."""
    motion = motion_of(DEFAULT, reading(("a", "leftshoulder"), lefty=-0.5))
    assert motion.buttons == {"a", "leftshoulder"}
    lefty = -(0.7 * (0.4 / 0.9) + 0.3 * (0.4 / 0.9) ** 3) * NORMAL.linear / TURBO.linear
    assert motion.axes == pytest.approx({"leftx": 0.0, "lefty": lefty, "rightx": 0.0,
                                         "righty": 0.0, "lefttrigger": 0.0,
                                         "righttrigger": 0.0})
    assert motion_of(DEFAULT, reading(lefty=-0.08, rightx=0.09)).axes["lefty"] == 0.0
    full = motion_of(DEFAULT, reading(lefty=-1.0, rightx=1.0, righttrigger=0.03,
                                      lefttrigger=0.5))
    assert full.axes["lefty"] == pytest.approx(-NORMAL.linear / TURBO.linear)
    assert full.axes["rightx"] == pytest.approx(NORMAL.angular / TURBO.angular)
    unmapped = motion_of(DEFAULT, reading(righty=1.0))
    assert unmapped.axes["righty"] == 0.0  # no output maps it: at rest
    assert full.axes["righttrigger"] == 0.0  # within the hand's dead zone
    assert full.axes["lefttrigger"] == pytest.approx(0.45 / 0.95)
    turbo = motion_of(DEFAULT, reading(lefty=-1.0), turbo=True)
    assert turbo.axes["lefty"] == pytest.approx(-1.0)
    bad = motion_of(DEFAULT, reading(lefty=math.nan, rightx=math.inf))
    assert bad.axes["lefty"] == 0.0 and bad.axes["rightx"] == 0.0


def test_acceleration_limit_holds_rises_only():
    assert limit_acceleration(0.0, 5.0, 2.0, 0.05) == pytest.approx(0.1)
    assert limit_acceleration(1.0, 0.0, 2.0, 0.05) == 0.0
    assert limit_acceleration(1.0, 1.05, 2.0, 0.05) == pytest.approx(1.05)
