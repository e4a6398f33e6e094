"""The arming state machine: when commands may move the robot, the stops after a loss of
control, and the reasons the operator reads."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.inputs.model import InputState
from app.teleop.arming import (
    Arming,
    ArmingConfig,
    ArmingMachine,
    LinkStatus,
    Observation,
    Step,
)
from app.teleop.model import Gear, Motion

CONFIG = ArmingConfig()
NOW = 1000.0
HAND = (40.0, 50.0, 60.0, 70.0, 80.0)
DRIVE = Motion(linear=0.4, angular=-0.3, steering=0.2, speed=1.0, gear=Gear.DRIVE,
               hand=HAND, axes={"lefty": -0.8}, buttons=frozenset({"leftshoulder"}))


def live(now: float = NOW, **changes: object) -> Observation:
    """Everything fine at ``now``: a fresh reading with the deadman, a live link."""
    observation = Observation(
        now=now, input=InputState(read_at=now - 0.01, device="pad"), deadman=True,
        link=LinkStatus(robot="rover-1", online=True, data_at=now - 0.02))
    return replace(observation, **changes)


def armed_machine(config: ArmingConfig = CONFIG) -> ArmingMachine:
    machine = ArmingMachine(config)
    machine.step(live(deadman=False), lambda: DRIVE)
    assert machine.step(live(), lambda: DRIVE).armed
    return machine


def test_arms_with_everything_fine_and_sends_the_motion():
    machine = ArmingMachine()
    first = machine.step(live(deadman=False), lambda: DRIVE)
    assert (first.state, first.reason, first.send) == (Arming.DISARMED, "deadman released",
                                                       None)
    step = machine.step(live(), lambda: DRIVE)
    assert step == Step(Arming.ARMED, "", DRIVE, 1.0, "")


def test_deadman_held_from_the_start_must_be_pressed_again():
    machine = ArmingMachine()
    step = machine.step(live(), lambda: DRIVE)
    assert step.state is Arming.DISARMED
    assert step.reason == "release the deadman and press it again to drive"
    assert machine.step(live(deadman=False), lambda: DRIVE).send is None
    assert machine.step(live(), lambda: DRIVE).armed


def test_release_sends_stops_that_hold_hand_and_gear_then_nothing():
    machine = armed_machine()
    sent = [machine.step(live(NOW + 0.05 * i, deadman=False), lambda: DRIVE).send
            for i in range(1, 6)]
    stop = Motion(gear=Gear.DRIVE, hand=HAND)
    assert sent == [stop, stop, stop, None, None]
    assert not stop.moving and stop.steering == 0.0


def test_stop_count_is_configurable():
    machine = armed_machine(ArmingConfig(stop_count=1))
    assert machine.step(live(deadman=False), lambda: DRIVE).send == DRIVE.stopped()
    assert machine.step(live(deadman=False), lambda: DRIVE).send is None


def test_command_is_made_only_when_armed():
    calls = []
    machine = ArmingMachine()
    machine.step(live(deadman=False), lambda: calls.append(1) or DRIVE)
    machine.step(live(estop=True), lambda: calls.append(2) or DRIVE)
    assert calls == []


@pytest.mark.parametrize(("changes", "state", "reason"), [
    ({"estop": True}, Arming.ESTOP, "e-stop"),
    ({"link": LinkStatus(robot="rover-1", online=True, data_at=NOW, estop=True)}, Arming.ESTOP,
     "e-stop reported by the robot"),
    ({"link": LinkStatus()}, Arming.DISARMED, "no robot selected"),
    ({"link": LinkStatus(robot="rover-1", online=False, data_at=NOW)}, Arming.STALE,
     "link lost: robot offline"),
    ({"link": LinkStatus(robot="rover-1", online=True)}, Arming.STALE, "link lost: no data yet"),
    ({"link": LinkStatus(robot="rover-1", online=True, data_at=NOW - 0.8)}, Arming.STALE,
     "link lost: no data for 0.8 s"),
    ({"link": LinkStatus(robot="rover-1", online=True, data_at=math.nan)}, Arming.STALE,
     "link lost: no data for nan s"),
    ({"link": LinkStatus(robot="rover-1", online=True, data_at=NOW, fault="motor overheated")},
     Arming.DISARMED, "critical fault: motor overheated"),
    ({"link": LinkStatus(robot="rover-1", online=True, data_at=NOW, battery=3.0)},
     Arming.DISARMED, "battery too low to drive: 3 %"),
    ({"input": None}, Arming.DISARMED, "no input device"),
    ({"input": InputState(read_at=NOW, connected=False)}, Arming.STALE,
     "controller unplugged"),
    ({"input": InputState(read_at=NOW - 0.3)}, Arming.STALE,
     "input stale: no reading for 0.3 s"),
    ({"lateness": 0.18}, Arming.STALE, "app stalled 180 ms"),
    ({"lateness": math.nan}, Arming.STALE, "app stalled nan ms"),
    ({"focused": False}, Arming.DISARMED, "window lost focus"),
    ({"deadman": False}, Arming.DISARMED, "deadman released"),
])
def test_each_loss_of_control_stops_with_its_reason(changes, state, reason):
    machine = armed_machine()
    step = machine.step(live(**changes), lambda: DRIVE)
    assert (step.state, step.reason) == (state, reason)
    # no robot is another robot: the stops hold none of the old one's targets
    held = Motion() if reason == "no robot selected" else Motion(gear=Gear.DRIVE, hand=HAND)
    assert step.send == held


def test_focus_loss_may_be_allowed():
    machine = armed_machine(ArmingConfig(focus_disarms=False))
    assert machine.step(live(focused=False), lambda: DRIVE).armed


def test_link_back_does_not_rearm_until_the_deadman_is_pressed_again():
    machine = armed_machine()
    machine.step(live(link=LinkStatus(robot="rover-1", online=False)), lambda: DRIVE)
    step = machine.step(live(), lambda: DRIVE)
    assert step.state is Arming.DISARMED and step.send == DRIVE.stopped()
    assert step.reason == "release the deadman and press it again to drive"
    machine.step(live(deadman=False), lambda: DRIVE)
    assert machine.step(live(), lambda: DRIVE).armed


def test_estop_released_with_deadman_held_does_not_drive():
    machine = ArmingMachine()
    machine.step(live(deadman=False), lambda: DRIVE)
    machine.step(live(estop=True), lambda: DRIVE)
    assert not machine.step(live(), lambda: DRIVE).armed


def test_slow_link_scales_speeds_down():
    machine = armed_machine()
    link = LinkStatus(robot="rover-1", online=True, data_at=NOW - 0.325)  # halfway to the limit
    step = machine.step(live(link=link), lambda: DRIVE)
    assert step.armed
    floor = CONFIG.slow_link_floor
    assert step.scale == pytest.approx(1 - (1 - floor) / 2)
    assert step.scale_reason == "link slow: data 325 ms old"
    assert step.send is not None
    assert step.send.linear == pytest.approx(DRIVE.linear * step.scale)
    assert step.send.speed == pytest.approx(DRIVE.speed * step.scale)
    assert step.send.steering == DRIVE.steering  # an angle, not a speed
    assert step.send.hand == HAND


def test_high_latency_scales_too():
    link = LinkStatus(robot="rover-1", online=True, data_at=NOW, latency=0.6)
    step = armed_machine().step(live(link=link), lambda: DRIVE)
    assert step.armed and step.scale == pytest.approx(CONFIG.slow_link_floor)
    assert step.scale_reason == "link slow: latency 600 ms"


def test_low_battery_limits_with_its_reason():
    link = LinkStatus(robot="rover-1", online=True, data_at=NOW, battery=12.0)
    step = armed_machine().step(live(link=link), lambda: DRIVE)
    assert step.armed and step.scale == CONFIG.battery_low_scale
    assert step.scale_reason == "battery low: 12 %"


def test_non_finite_motion_never_leaves():
    machine = armed_machine()
    step = machine.step(live(), lambda: Motion(linear=math.nan, angular=math.inf,
                                               steering=math.nan))
    assert step.send == Motion()


@pytest.mark.parametrize("changes", [{"stop_count": 0}, {"input_stale_s": math.nan},
                                     {"link_age_s": -1.0}, {"slow_link_s": 0.6},
                                     {"battery_low_scale": 2.0}])
def test_config_is_validated(changes):
    with pytest.raises(ValueError):
        ArmingConfig(**changes)


# -- the acceptance property -----------------------------------------------------------
observations = st.fixed_dictionaries({
    "dt": st.floats(0.0, 0.6),  # clock jitter: ticks come early, late, or very late
    "lateness": st.one_of(st.just(0.0), st.floats(0.0, 0.3), st.just(math.nan)),
    "deadman": st.booleans(),
    "reading": st.sampled_from(["fresh", "fresh", "fresh", "stale", "unplugged", "none"]),
    "robot": st.sampled_from(["rover-1", "rover-1", "rover-1", ""]),
    "online": st.booleans(),
    "data_age": st.one_of(st.floats(0.0, 1.0), st.none(), st.just(math.nan)),
    "estop": st.booleans(),
    "robot_estop": st.booleans(),
    "fault": st.sampled_from(["", "", "", "brake failure"]),
    "undrivable": st.sampled_from(["", "", "", "rover-1 lists no command teleop can drive"]),
    "battery": st.one_of(st.none(), st.floats(0.0, 100.0)),
    "focused": st.booleans(),
    "linear": st.floats(-2.0, 2.0),
    "gear": st.sampled_from(list(Gear)),
    "hand": st.one_of(st.none(), st.tuples(*[st.floats(0.0, 100.0)] * 5)),
})


def observe(now: float, case: dict) -> Observation:
    read_at = {"fresh": now - 0.01, "stale": now - 0.5}.get(case["reading"], now)
    reading = None if case["reading"] == "none" else InputState(
        read_at=read_at, connected=case["reading"] != "unplugged")
    age = case["data_age"]
    link = LinkStatus(robot=case["robot"], online=case["online"],
                      data_at=None if age is None else now - age,
                      estop=case["robot_estop"], fault=case["fault"],
                      battery=case["battery"], undrivable=case["undrivable"])
    return Observation(now, reading, case["deadman"], link, case["estop"],
                       case["focused"], case["lateness"])


def in_control(obs: Observation, config: ArmingConfig) -> bool:
    link, reading = obs.link, obs.input
    battery_ok = link.battery is None or link.battery >= config.battery_block_pct
    return (obs.deadman and not obs.estop and not link.estop and bool(link.robot)
            and link.online and link.data_at is not None
            and obs.now - link.data_at <= config.link_age_s
            and not link.fault and not link.undrivable and battery_ok
            and reading is not None and reading.connected
            and obs.now - reading.read_at <= config.input_stale_s
            and obs.lateness <= config.stall_s
            and (obs.focused or not config.focus_disarms))


def nonzero(motion: Motion) -> bool:
    return any(getattr(motion, name) != 0.0
               for name in ("linear", "lateral", "angular", "steering", "speed"))


@settings(max_examples=400, deadline=None)
@given(st.lists(observations, min_size=1, max_size=60), st.integers(1, 5),
       st.booleans())
def test_no_motion_without_control_and_every_loss_stops_at_once(cases, stop_count,
                                                                 focus_disarms):
    config = ArmingConfig(stop_count=stop_count, focus_disarms=focus_disarms)
    machine = ArmingMachine(config)
    now = 0.0
    previous: Step | None = None
    last_armed: Motion | None = None
    quiet = 0  # steps since control was lost
    robot = ""
    for case in cases:
        now += case["dt"]
        obs = observe(now, case)
        if obs.link.robot != robot:  # another robot's stops hold none of the old one's
            robot, last_armed = obs.link.robot, None if last_armed is None else Motion()
        wanted = Motion(linear=case["linear"], angular=case["linear"], speed=abs(case["linear"]),
                        steering=0.1, gear=case["gear"], hand=case["hand"])
        step = machine.step(obs, lambda wanted=wanted: wanted)
        if step.send is not None and nonzero(step.send):
            assert in_control(obs, config), (obs, step)
        if not in_control(obs, config):
            assert not step.armed
        if step.armed:
            assert step.send is not None and step.reason == ""
            last_armed, quiet = step.send, 0
            assert step.send.gear is wanted.gear and step.send.hand == wanted.hand
        else:
            quiet += 1
            assert step.reason
            if last_armed is None or quiet > stop_count:
                assert step.send is None
            else:  # within one period of the loss, and for stop_count periods
                assert step.send == Motion(gear=last_armed.gear, hand=last_armed.hand)
            if previous is not None and previous.armed:
                assert step.send is not None and not nonzero(step.send)
        previous = step


def test_another_robot_is_not_driven_by_a_deadman_held_across_the_switch():
    machine = armed_machine()
    switched = live(link=LinkStatus(robot="humanoid-1", online=True, data_at=NOW))
    step = machine.step(switched, lambda: DRIVE)
    assert not step.armed
    assert step.reason == "release the deadman and press it again to drive"
    machine.step(replace(switched, deadman=False), lambda: DRIVE)
    assert machine.step(switched, lambda: DRIVE).armed


def test_a_failing_command_stops_and_needs_a_new_press():
    machine = armed_machine()

    def broken() -> Motion:
        raise ZeroDivisionError("division by zero")

    step = machine.step(live(), broken)
    assert (step.state, step.reason) == (Arming.DISARMED, "command failed: division by zero")
    assert step.send == DRIVE.stopped()
    assert not machine.step(live(), lambda: DRIVE).armed


# -- re-arming needs a release seen on a live device ----------------------------------------
def latched_machine() -> ArmingMachine:
    """The deadman held from the start: the machine waits for a release."""
    machine = ArmingMachine()
    assert not machine.step(live(), lambda: DRIVE).armed
    return machine


@pytest.mark.parametrize("reading", [
    None,
    InputState(read_at=NOW, connected=False),
    InputState(read_at=NOW - 0.3),  # stale
    InputState(read_at=NOW - 0.06, stale_after=0.05),  # stale by its own bound
], ids=["none", "unplugged", "stale", "stale-by-its-bound"])
def test_a_lost_reading_is_not_a_release(reading: InputState | None):
    machine = latched_machine()
    step = machine.step(live(input=reading, deadman=False), lambda: DRIVE)
    assert not step.armed
    step = machine.step(live(), lambda: DRIVE)
    assert not step.armed
    assert step.reason == "release the deadman and press it again to drive"


def test_a_lost_device_latches_even_with_the_deadman_up_before():
    machine = armed_machine()
    machine.step(live(deadman=False), lambda: DRIVE)  # released: free to press again
    machine.step(live(input=InputState(read_at=NOW, connected=False), deadman=False),
                 lambda: DRIVE)
    assert not machine.step(live(), lambda: DRIVE).armed  # back, held: not a press


def test_another_device_needs_its_own_press():
    machine = ArmingMachine()
    first = InputState(read_at=NOW, device_id="sdl:1")
    machine.step(live(input=first, deadman=False), lambda: DRIVE)
    assert machine.step(live(input=first), lambda: DRIVE).armed
    second = InputState(read_at=NOW, device_id="sdl:2")
    step = machine.step(live(input=second), lambda: DRIVE)
    assert not step.armed and step.send == DRIVE.stopped()
    machine.step(live(input=second, deadman=False), lambda: DRIVE)
    assert machine.step(live(input=second), lambda: DRIVE).armed


def test_rearm_latches_even_with_the_reading_held():
    machine = armed_machine()
    assert not machine.step(live(rearm=True), lambda: DRIVE).armed
    assert not machine.step(live(), lambda: DRIVE).armed
    machine.step(live(deadman=False), lambda: DRIVE)
    assert machine.step(live(), lambda: DRIVE).armed


def test_a_reading_is_stale_after_the_smaller_of_its_bound_and_the_config():
    machine = armed_machine()
    own = InputState(read_at=NOW - 0.06, stale_after=0.05)
    step = machine.step(live(input=own), lambda: DRIVE)
    assert (step.state, step.reason) == (Arming.STALE, "input stale: no reading for 0.1 s")
    loose = InputState(read_at=NOW - 0.3, stale_after=1.0)  # the config's 0.25 s still holds
    assert machine.step(live(input=loose), lambda: DRIVE).state is Arming.STALE
    nan = InputState(read_at=NOW, stale_after=math.nan)
    assert machine.step(live(input=nan), lambda: DRIVE).state is Arming.STALE
