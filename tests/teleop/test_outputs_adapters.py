"""What each output adapter puts on the wire, read back with the app's own decoder."""

from __future__ import annotations

import itertools
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.bus.catalog import Catalog, TopicInfo
from app.bus.outbox import Outgoing
from app.bus.publisher import Traffic
from app.codec.decode import decode, encoding_for
from app.codec.fields import plain
from app.teleop.adapters import (
    HAND_DIGITS,
    JOYSTICK_BUTTONS,
    BowAdapter,
    CarAdapter,
    JoystickAdapter,
    TwistAdapter,
    adapter_for,
)
from app.teleop.model import Gear, Motion

FORWARD_LEFT = Motion(linear=0.8, angular=0.5)
DT = 0.05  # 20 Hz


def read(outgoing: list[Outgoing]) -> dict[str, Any]:
    assert len(outgoing) == 1
    out = outgoing[0]
    assert out.traffic is Traffic.TELEOP
    message = decode(encoding_for(out.type_name), out.payload)
    assert message.type_name == out.type_name
    return plain(message.root)


def floats(value: Any) -> list[float]:
    if isinstance(value, float):
        return [value]
    if isinstance(value, dict):
        return [f for v in value.values() for f in floats(v)]
    if isinstance(value, list):
        return [f for v in value for f in floats(v)]
    return []


# -- choosing the adapter ------------------------------------------------------------------
def catalog(*commands: tuple[str, str], discovered: bool = False) -> Catalog:
    return Catalog("bot-1", commands=[TopicInfo(f"fleet/bot-1/{suffix}", type_name)
                                      for suffix, type_name in commands], discovered=discovered)


def test_without_a_catalog_the_fleet_teleop_key_is_used() -> None:
    for listed in (None, catalog(discovered=True)):
        adapter = adapter_for("bot-1", listed)
        assert isinstance(adapter, TwistAdapter) and adapter.key == "fleet/bot-1/command/teleop"


@pytest.mark.parametrize(("commands", "kind", "key"), [
    ([("command/go_to", "fleet.Command"), ("command/teleop", "fleet.Command")],
     TwistAdapter, "command/teleop"),
    ([("motor", "bow.MotorSample")], BowAdapter, "motor"),
    ([("vehicle_command", "autoware.traffic_simulator_msgs.VehicleCommand")],
     CarAdapter, "vehicle_command"),
    ([("goal", "isaac.Goal2Proto"), ("joystick", "isaac.JoystickStateProto")],
     JoystickAdapter, "joystick"),
    # the robot lists its preference first
    ([("joy", "isaac.JoystickStateProto"), ("command/teleop", "fleet.Command")],
     JoystickAdapter, "joy"),
])
def test_the_catalog_picks_the_adapter_and_its_key(commands: list[tuple[str, str]],
                                                   kind: type, key: str) -> None:
    adapter = adapter_for("bot-1", catalog(*commands))
    assert isinstance(adapter, kind)
    assert adapter.key == f"fleet/bot-1/{key}" and adapter.robot_id == "bot-1"


def test_a_catalog_without_teleop_commands_gets_no_adapter() -> None:
    assert adapter_for("bot-1", catalog(("command/go_to", "fleet.Command"),
                                        ("goal", "isaac.Goal2Proto"))) is None


def test_car_options_reach_the_car_adapter_only() -> None:
    car = adapter_for("bot-1", catalog(("vc", "autoware.traffic_simulator_msgs.VehicleCommand")),
                      accel_mps2=1.0, gear=Gear.PARK)
    assert isinstance(car, CarAdapter) and car.accel_mps2 == 1.0 and car.gear is Gear.PARK
    assert isinstance(adapter_for("bot-1", None, accel_mps2=1.0), TwistAdapter)


# -- fleet VelTwist ------------------------------------------------------------------------
def test_twist_forward_and_left_is_positive_linear_and_angular() -> None:
    adapter = TwistAdapter("rover-1", "fleet/rover-1/command/teleop")
    command = read(adapter.messages(FORWARD_LEFT, 41, 0.0))
    assert command["robotId"] == "rover-1" and command["seq"] == 41
    assert command["unixTimeMs"] > 1_600_000_000_000
    assert command["teleop"] == {"linearMps": pytest.approx(0.8), "angularRps": 0.5}
    assert read(adapter.messages(Motion(linear=-0.3, angular=-1.0), 42, DT))["teleop"] == \
        {"linearMps": pytest.approx(-0.3), "angularRps": -1.0}


def test_twist_stop_and_bad_numbers_are_explicit_zeros() -> None:
    adapter = TwistAdapter("rover-1", "fleet/rover-1/command/teleop")
    adapter.messages(FORWARD_LEFT, 1, 0.0)
    stop = read(adapter.stop(2, DT))
    assert stop["seq"] == 2 and stop["teleop"] == {"linearMps": 0.0, "angularRps": 0.0}
    bad = read(adapter.messages(Motion(linear=math.nan, angular=math.inf), 3, 2 * DT))
    assert bad["teleop"] == {"linearMps": 0.0, "angularRps": 0.0}


# -- bow MotorSample -------------------------------------------------------------------------
def test_bow_axes_forward_is_z_left_is_minus_x_counter_clockwise_is_minus_y() -> None:
    adapter = BowAdapter("humanoid-1", "fleet/humanoid-1/motor")
    sample = read(adapter.messages(Motion(linear=0.4, lateral=0.2, angular=0.5), 1, 0.0))
    assert sample["controlMode"] == "useObjective"
    loc = sample["locomotion"]
    assert loc["translationalVelocity"] == {"x": pytest.approx(-0.2), "y": 0.0,
                                            "z": pytest.approx(0.4)}
    assert loc["rotationalVelocity"] == {"x": 0.0, "y": -0.5, "z": 0.0}
    assert sample["gripperObjective"] is None  # no hand asked for: the hand is left alone


def test_bow_hand_percentages_are_digits_by_name_and_held_through_stops() -> None:
    adapter = BowAdapter("humanoid-1", "fleet/humanoid-1/motor")
    hand = (80.0, 90.0, 100.0, 50.0, 0.0, 100.0, 25.0)
    sample = read(adapter.messages(Motion(linear=0.3, hand=hand), 1, 0.0))
    grip = sample["gripperObjective"]
    assert grip["gripperControlMode"] == "percentageMode"
    assert grip["handMapPercentage"] == {
        name: pytest.approx(p / 100) for name, p in zip(HAND_DIGITS, hand, strict=True)}

    stop = read(adapter.stop(2, DT))
    assert floats(stop["locomotion"]) == [0.0] * 6
    assert stop["gripperObjective"] == grip  # a stop never opens the hand
    assert adapter.sent.hand == hand and not adapter.sent.moving
    # a motion that asks for no hand keeps the last target too
    assert read(adapter.messages(Motion(linear=0.1), 3, 2 * DT))["gripperObjective"] == grip


def test_bow_hand_clamps_and_keeps_digits_not_given_or_not_finite() -> None:
    adapter = BowAdapter("humanoid-1", "fleet/humanoid-1/motor")
    adapter.messages(Motion(hand=(10.0,) * 7), 1, 0.0)
    digits = read(adapter.messages(Motion(hand=(150.0, -5.0, math.nan)), 2, DT))[
        "gripperObjective"]["handMapPercentage"]
    assert digits == {"thumb": 1.0, "index": 0.0, "middle": pytest.approx(0.1),
                      "ring": pytest.approx(0.1), "pinky": pytest.approx(0.1),
                      "fingerAdduction": pytest.approx(0.1),
                      "thumbOpposition": pytest.approx(0.1)}


def test_bow_leaves_the_digits_it_does_not_control_alone_and_stops_hold_them() -> None:
    adapter = BowAdapter("humanoid-1", "fleet/humanoid-1/motor")
    fingers = (60.0, 70.0, 80.0, 90.0, 100.0)  # the five the profile maps
    digits = read(adapter.messages(Motion(linear=0.2, hand=fingers), 1, 0.0))[
        "gripperObjective"]["handMapPercentage"]
    assert [digits[name] for name in HAND_DIGITS[:5]] == pytest.approx(
        [f / 100 for f in fingers])
    assert math.isnan(digits["fingerAdduction"]) and math.isnan(digits["thumbOpposition"])
    stop = read(adapter.stop(2, DT))
    assert floats(stop["locomotion"]) == [0.0] * 6
    held = stop["gripperObjective"]["handMapPercentage"]
    assert [held[name] for name in HAND_DIGITS[:5]] == pytest.approx(
        [f / 100 for f in fingers])  # explicit: the fingers hold what was sent
    assert math.isnan(held["fingerAdduction"]) and math.isnan(held["thumbOpposition"])


# -- autoware VehicleCommand ---------------------------------------------------------------
def car_fields(outgoing: list[Outgoing]) -> tuple[str, float, float, float]:
    command = read(outgoing)
    ack = command["ackermannControlCommand"]
    return (command["gearCommand"]["command"], ack["longitudinal"]["speed"],
            ack["lateral"]["steeringTireAngle"], ack["longitudinal"]["acceleration"])


def drive(adapter: CarAdapter, motion: Motion, seconds: float, start: float
          ) -> list[tuple[str, float, float, float]]:
    steps = round(seconds / DT)
    return [car_fields(adapter.messages(motion, i, start + i * DT)) for i in range(1, steps + 1)]


def test_car_speeds_up_at_the_profile_acceleration_and_steers_left_positive() -> None:
    adapter = CarAdapter("car-1", "fleet/car-1/vehicle_command", accel_mps2=2.0)
    gear, speed, steer, accel = car_fields(
        adapter.messages(Motion(speed=5.0, steering=0.3, gear=Gear.DRIVE), 0, 0.0))
    # the gear changes at speed 0, braking: no push asked for in that message
    assert (gear, speed, accel) == ("drive", 0.0, -4.0) and steer == pytest.approx(0.3)
    sent = drive(adapter, Motion(speed=5.0, steering=0.3, gear=Gear.DRIVE), 3.0, 0.0)
    assert {a for *_, a in sent} == {2.0}
    speeds = [s for _, s, _, _ in sent]
    assert speeds[:3] == pytest.approx([0.1, 0.2, 0.3])  # 2 m/s² × 50 ms
    assert speeds[-1] == pytest.approx(5.0) and max(speeds) == pytest.approx(5.0)
    command = read(adapter.messages(Motion(speed=5.0, gear=Gear.DRIVE), 99, 3.05))
    stamp = command["ackermannControlCommand"]["stamp"]
    assert stamp["sec"] > 1_600_000_000 and 0 <= stamp["nanosec"] < 10**9


def test_car_never_changes_gear_while_moving() -> None:
    adapter = CarAdapter("car-1", "fleet/car-1/vehicle_command", accel_mps2=2.0,
                         brake_mps2=4.0, settle_s=0.0)
    forward = drive(adapter, Motion(speed=2.0, gear=Gear.DRIVE), 1.5, 0.0)
    assert forward[-1][:2] == ("drive", pytest.approx(2.0))
    backward = drive(adapter, Motion(speed=1.0, gear=Gear.REVERSE), 2.0, 1.5)
    gears = [g for g, *_ in backward]
    first_reverse = gears.index("reverse")
    # braking in drive first (4 m/s² × 50 ms per message) down to 0 before the change
    braking = [s for _, s, _, _ in backward[:first_reverse]]
    assert braking[:3] == pytest.approx([1.8, 1.6, 1.4])
    assert all(0 <= a - b < 0.2 + 1e-6 for a, b in itertools.pairwise(braking))
    assert braking[-1] == 0.0 and 10 <= len(braking) <= 11
    assert set(gears[:first_reverse]) == {"drive"}
    assert backward[first_reverse][1] == 0.0  # the change itself at speed 0
    assert set(gears[first_reverse:]) == {"reverse"}
    assert backward[-1][1] == pytest.approx(1.0)


def test_car_stop_is_speed_zero_with_gear_and_steering_held() -> None:
    adapter = CarAdapter("car-1", "fleet/car-1/vehicle_command", settle_s=0.3)
    drive(adapter, Motion(speed=3.0, steering=-0.2, gear=Gear.REVERSE), 1.0, 0.0)
    gear, speed, steer, _ = car_fields(adapter.stop(50, 1.05))
    assert (gear, speed) == ("reverse", 0.0) and steer == pytest.approx(-0.2)
    # a stop from 2 m/s: half a second of braking and the settling time before a change
    assert car_fields(adapter.messages(Motion(gear=Gear.DRIVE), 51, 1.8))[0] == "reverse"
    assert car_fields(adapter.messages(Motion(gear=Gear.DRIVE), 52, 1.9))[0] == "drive"


def test_a_fresh_car_adapter_claims_no_gear_and_commands_no_speed_until_one_is_chosen(
        ) -> None:
    adapter = CarAdapter("car-1", "fleet/car-1/vehicle_command")
    sent = drive(adapter, Motion(speed=3.0, steering=0.2), 0.5, 0.0)  # no gear asked
    assert {(g, s) for g, s, _, _ in sent} == {("none", 0.0)}
    assert car_fields(adapter.stop(20, 0.55))[:2] == ("none", 0.0)
    sent = drive(adapter, Motion(speed=3.0, gear=Gear.DRIVE), 0.5, 0.6)
    assert sent[0][:2] == ("drive", 0.0) and sent[-1][1] > 0.0
    told = CarAdapter("car-1", "fleet/car-1/vehicle_command", gear=Gear.REVERSE)
    assert car_fields(told.messages(Motion(speed=1.0), 1, 0.0))[0] == "reverse"


def test_a_car_stop_asks_for_no_positive_acceleration() -> None:
    adapter = CarAdapter("car-1", "fleet/car-1/vehicle_command", accel_mps2=2.0)
    drive(adapter, Motion(speed=3.0, gear=Gear.DRIVE), 1.0, 0.0)
    for seq in range(3):
        gear, speed, _, accel = car_fields(adapter.stop(seq, 1.05 + seq * DT))
        assert (gear, speed) == ("drive", 0.0) and accel <= 0.0
    _, speed, _, accel = car_fields(adapter.messages(Motion(gear=Gear.DRIVE), 9, 1.3))
    assert speed == 0.0 and accel <= 0.0  # slowing to 0: braking, not a push


def test_car_in_park_or_neutral_commands_no_speed() -> None:
    adapter = CarAdapter("car-1", "fleet/car-1/vehicle_command")
    for gear in (Gear.PARK, Gear.NEUTRAL):
        sent = drive(adapter, Motion(speed=3.0, gear=gear), 0.5, 0.0)
        assert {(g, s) for g, s, _, _ in sent} == {(gear.value, 0.0)}


def test_car_after_a_silence_starts_again_from_standstill() -> None:
    """The car stopped by itself half a second after the last command: the ramp restarts
    from 0 instead of jumping back to the old speed."""
    adapter = CarAdapter("car-1", "fleet/car-1/vehicle_command", accel_mps2=2.0)
    drive(adapter, Motion(speed=3.0, gear=Gear.DRIVE), 2.0, 0.0)
    assert adapter.speed == pytest.approx(3.0)
    assert car_fields(adapter.messages(Motion(speed=3.0, gear=Gear.DRIVE), 99, 10.0))[1] == 0.0


# -- the same limits for a joystick robot, through the controller -----------------------------
def test_a_joystick_robot_gets_dead_zone_expo_limits_and_the_speed_scale() -> None:
    from app.inputs.model import InputState
    from app.teleop.arming import LinkStatus
    from app.teleop.clock import Tick
    from app.teleop.controller import TeleopController
    from app.teleop.profiles import DEFAULT

    adapter = JoystickAdapter("carter-1", "fleet/carter-1/joy")
    wire: list[dict[str, Any]] = []

    def send(motion: Motion, armed: bool) -> None:
        wire.append(read(adapter.messages(motion, 0, 0.0) if armed else adapter.stop(0, 0.0)))

    now = [100.0]
    battery: list[float | None] = [None]
    controller = TeleopController(send, clock=lambda: now[0], link=lambda: LinkStatus(
        "carter-1", True, now[0], battery=battery[-1]))

    def sticks(*buttons: str, **axes: float) -> list[dict[str, float]]:
        now[0] += DT
        controller.set_input(InputState(axes=axes, buttons=frozenset(buttons),
                                        read_at=now[0], device_id="sdl:1"))
        controller.tick(Tick(now[0], 0.0, False, DT))
        return wire[-1]["axes"] if wire else []

    assert sticks() == []  # the deadman up: nothing sent
    assert sticks("leftshoulder", lefty=-0.08, rightx=0.05)[:2] == [
        {"x": 0.0, "y": 0.0}, {"x": 0.0, "y": 0.0}]  # the dead zone
    full = DEFAULT.limits.normal.linear / DEFAULT.limits.turbo.linear
    assert sticks("leftshoulder", lefty=-1.0)[0]["y"] == pytest.approx(-full, rel=1e-6)
    battery.append(12.0)  # low: half speed
    assert sticks("leftshoulder", lefty=-1.0)[0]["y"] == pytest.approx(-full / 2, rel=1e-6)
    assert sticks(lefty=-1.0) == [{"x": 0.0, "y": 0.0}] * 3  # released: at rest


motions = st.builds(
    Motion,
    linear=st.floats(), lateral=st.floats(), angular=st.floats(), steering=st.floats(),
    speed=st.floats(), gear=st.none() | st.sampled_from(Gear),
    hand=st.none() | st.lists(st.floats(), max_size=8).map(tuple),
    axes=st.dictionaries(st.sampled_from(["leftx", "lefty", "righttrigger", "other"]),
                         st.floats()),
    buttons=st.frozensets(st.sampled_from([*JOYSTICK_BUTTONS, "paddle1"])),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(motions, st.floats(0.0, 0.7), st.booleans()), min_size=1,
                max_size=30))
def test_no_adapter_ever_writes_nan_and_the_car_never_shifts_while_moving(
        steps: list[tuple[Motion, float, bool]]) -> None:
    adapters = [TwistAdapter("r", "fleet/r/command/teleop"), BowAdapter("h", "fleet/h/motor"),
                CarAdapter("c", "fleet/c/vc"), JoystickAdapter("j", "fleet/j/joy")]
    car = adapters[2]
    assert isinstance(car, CarAdapter)
    now, previous = 0.0, ("drive", 0.0)
    given = [False] * len(HAND_DIGITS)  # digits the bow adapter was given a target for
    for seq, (motion, dt, stop) in enumerate(steps):
        now += dt
        outs = [adapter.stop(seq, now) if stop else adapter.messages(motion, seq, now)
                for adapter in adapters]
        if not stop and motion.hand is not None:
            given = [g or (i < len(motion.hand) and math.isfinite(motion.hand[i]))
                     for i, g in enumerate(given)]
        for out in outs:
            message = read(out)
            grip = message.pop("gripperObjective", None)
            if grip is not None:  # NaN only in a digit never given a target: left alone
                digits = [grip["handMapPercentage"][name] for name in HAND_DIGITS]
                assert [math.isfinite(d) for d in digits] == given
            assert all(math.isfinite(f) for f in floats(message))
        gear, speed, _, _ = car_fields(outs[2])
        assert speed >= 0.0
        if gear != previous[0]:
            assert speed == 0.0 and previous[1] == 0.0
        if not stop:
            assert speed <= (previous[1] + car.accel_mps2 * dt) * (1 + 1e-6) + 1e-4
        previous = (gear, speed)
