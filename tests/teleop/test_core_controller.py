"""The teleop controller: profile, mapping, machine and clock together, seen from the sink
(what goes on the wire) and the status snapshot (what the panel shows)."""

from __future__ import annotations

import itertools
import math
import threading
import time
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.inputs.model import InputState
from app.teleop.arming import Arming, ArmingConfig, LinkStatus
from app.teleop.clock import Schedule, Tick
from app.teleop.controller import HAND_UNKNOWN, TURBO_RISE_S, TeleopController
from app.teleop.model import Gear, Motion
from app.teleop.profiles import DEFAULT, POSES

NORMAL = DEFAULT.limits.normal


class Wire:
    """The sink: what the controller put on the wire, and on which thread."""

    def __init__(self) -> None:
        self.sent: list[tuple[Motion, bool]] = []
        self.threads: set[str] = set()
        self.lock = threading.Lock()

    def __call__(self, motion: Motion, armed: bool) -> None:
        with self.lock:
            self.sent.append((motion, armed))
            self.threads.add(threading.current_thread().name)

    def snapshot(self) -> list[tuple[Motion, bool]]:
        with self.lock:
            return list(self.sent)


def pad(now: float, *buttons: str, **axes: float) -> InputState:
    return InputState(axes=axes, buttons=frozenset(buttons), read_at=now, device="pad")


def link_at(now: float, **changes: object) -> LinkStatus:
    return LinkStatus(**{"robot": "rover-1", "online": True, "data_at": now, **changes})


class Driver:
    """A controller ticked by hand with a fake time."""

    def __init__(self, **options: object) -> None:
        self.now = 100.0
        self.wire = Wire()
        self.controller = TeleopController(self.wire, clock=lambda: self.now,
                                           **options)  # type: ignore[arg-type]
        self.link: dict[str, object] = {}  # what the robot reports besides its data
        self.controller.set_link(link_at(self.now))
        self.held: tuple[tuple[str, ...], dict[str, float]] | None = None

    def tick(self, dt: float = 0.05, lateness: float = 0.0) -> None:
        """A period later: the input thread read the pad again, the robot sent data."""
        self.now += dt
        if self.held is not None:
            self.controller.set_input(pad(self.now, *self.held[0], **self.held[1]))
        self.controller.set_link(link_at(self.now, **self.link))
        self.controller.tick(Tick(self.now, lateness, False, dt))

    def hold(self, *buttons: str, **axes: float) -> None:
        self.held = (buttons, axes)
        self.controller.set_input(pad(self.now, *buttons, **axes))

    def arm(self, **axes: float) -> None:
        self.hold()
        self.tick()
        self.hold("leftshoulder", **axes)
        self.tick()
        assert self.controller.status().state is Arming.ARMED


def test_stick_up_drives_forward_and_release_stops():
    driver = Driver()
    driver.arm(lefty=-1.0, rightx=-1.0)
    motion, armed = driver.wire.sent[-1]
    assert armed and motion.linear == pytest.approx(NORMAL.linear)
    assert motion.angular == pytest.approx(NORMAL.angular)
    driver.hold(lefty=-1.0)  # deadman let go, stick still pushed
    for _ in range(5):
        driver.tick()
    after = driver.wire.sent[1:]
    assert after == [(Motion(), False)] * 3
    status = driver.controller.status()
    assert (status.state, status.reason) == (Arming.DISARMED, "deadman released")


def test_status_snapshot():
    driver = Driver()
    driver.arm(lefty=-0.5)
    status = driver.controller.status()
    assert status.robot == "rover-1" and status.device == "pad"
    assert status.profile == "default" and status.rate_hz == 20.0
    assert status.motion == driver.wire.sent[-1][0] and status.sent == 1
    assert status.link_age == pytest.approx(0.0) and status.input_age == pytest.approx(0.0)
    assert status.scale == 1.0 and not status.turbo and not status.estop


def test_turbo_button_raises_the_limits_over_half_a_second():
    driver = Driver()
    driver.arm(lefty=-1.0)
    driver.hold("leftshoulder", "rightshoulder", lefty=-1.0)
    turbo = DEFAULT.limits.turbo.linear
    speeds = []
    for _ in range(12):
        driver.tick()
        speeds.append(driver.wire.sent[-1][0].linear)
    step = (turbo - NORMAL.linear) * 0.05 / TURBO_RISE_S
    assert speeds[0] == pytest.approx(NORMAL.linear + step)  # not x3 in one step
    assert all(b - a <= step + 1e-9 for a, b in itertools.pairwise([NORMAL.linear, *speeds]))
    assert speeds[-1] == pytest.approx(turbo)
    assert driver.controller.status().turbo
    driver.hold("leftshoulder", lefty=-1.0)  # turbo let go: back to normal at once
    driver.tick()
    assert driver.wire.sent[-1][0].linear == pytest.approx(NORMAL.linear)


def test_a_recovered_link_brings_the_speed_back_gently():
    driver = Driver()
    driver.arm(lefty=-1.0)
    driver.link = {"latency": 0.6}  # slow: the floor
    driver.tick()
    assert driver.wire.sent[-1][0].linear == pytest.approx(NORMAL.linear * 0.25)
    driver.link = {}
    speeds = []
    for _ in range(12):
        driver.tick()
        speeds.append(driver.wire.sent[-1][0].linear)
    assert speeds[0] == pytest.approx(NORMAL.linear * 0.35)  # 10 % a period, not 25 -> 100
    assert speeds[-1] == pytest.approx(NORMAL.linear)
    assert "speed coming back" in driver.controller.status().scale_reason or \
        driver.controller.status().scale == 1.0


def test_gamepad_estop_button_engages_only_the_gui_releases():
    calls: list[bool] = []
    driver = Driver(on_estop=calls.append)
    driver.arm(lefty=-1.0)
    driver.hold("leftshoulder", "back", lefty=-1.0)
    assert calls == [True]  # at once, not on the next tick
    driver.tick()
    assert driver.controller.status().state is Arming.ESTOP
    assert driver.wire.sent[-1] == (Motion(), False)
    driver.hold("leftshoulder", lefty=-1.0)  # button released: still e-stopped
    driver.hold("leftshoulder", "back", lefty=-1.0)  # pressed again: no second engage
    driver.hold("leftshoulder", lefty=-1.0)
    driver.tick()
    assert driver.controller.status().state is Arming.ESTOP and calls == [True, True]
    driver.controller.release_estop()
    assert calls == [True, True, False]
    driver.tick()
    assert driver.controller.status().state is Arming.DISARMED  # deadman must be re-pressed
    driver.hold(lefty=-1.0)
    driver.tick()
    driver.hold("leftshoulder", lefty=-1.0)
    driver.tick()
    assert driver.wire.sent[-1][1]


def test_robot_reported_estop_holds():
    driver = Driver()
    driver.arm()
    driver.controller.set_link(link_at(driver.now, estop=True))
    driver.now += 0.05
    driver.controller.tick(Tick(driver.now, 0.0, False, 0.05))
    status = driver.controller.status()
    assert (status.state, status.reason) == (Arming.ESTOP, "e-stop reported by the robot")


def test_triggers_move_the_hand_only_while_armed_and_stops_hold_it():
    driver = Driver()
    driver.link = {"hand": (10.0,) * 7}  # the robot reports its hand
    driver.hold(righttrigger=1.0)
    driver.tick(dt=1.0)  # disarmed: the hand target stays put
    assert driver.controller.status().hand is None
    driver.arm(righttrigger=1.0)
    driver.tick(dt=0.2)
    hand = driver.wire.sent[-1][0].hand
    # from the reported 10 %, for 0.05 s + 0.2 s
    assert hand == pytest.approx((10.0 + DEFAULT.hand.rate * 0.25,) * 5)
    driver.hold()
    driver.tick()
    assert driver.wire.sent[-1] == (Motion(hand=hand), False)  # the hand is not opened


def test_panel_sets_the_hand():
    driver = Driver()
    driver.controller.set_hand((10, 20, 300, -4, 50))
    driver.arm()
    assert driver.wire.sent[-1][0].hand == (10.0, 20.0, 100.0, 0.0, 50.0)
    driver.hold("leftshoulder", "dpright")
    driver.tick()
    assert driver.wire.sent[-1][0].hand == POSES["point"]


def test_with_the_hand_unknown_the_triggers_move_nothing_until_a_preset():
    driver = Driver()
    driver.arm(righttrigger=1.0)  # "close", with nothing known of the hand
    driver.tick(dt=0.5)
    assert all(m.hand is None for m, _ in driver.wire.sent)  # never integrated from 0 %
    status = driver.controller.status()
    assert status.hand is None and status.hand_note == HAND_UNKNOWN
    driver.hold("leftshoulder", "dpdown")  # the power grip preset
    driver.tick()
    assert driver.wire.sent[-1][0].hand == POSES["power"]
    assert driver.controller.status().hand_note == ""
    driver.hold("leftshoulder", righttrigger=1.0)
    driver.tick(dt=0.05)
    assert driver.wire.sent[-1][0].hand == pytest.approx(
        tuple(min(100.0, f + DEFAULT.hand.rate * 0.05) for f in POSES["power"]))


def test_a_reported_hand_clears_the_note():
    driver = Driver()
    driver.link = {"hand": (30.0, 30.0, 30.0, 30.0, 30.0, math.nan, math.nan)}
    driver.tick()
    assert driver.controller.status().hand_note == ""
    driver.link = {"hand": (30.0, math.nan, 30.0, 30.0, 30.0)}  # a finger unknown
    driver.tick()
    assert driver.controller.status().hand_note == HAND_UNKNOWN


def test_another_robot_gets_neither_the_old_hand_nor_the_old_gear():
    driver = Driver()
    driver.controller.set_hand((90.0,) * 5)  # holding something on rover-1
    driver.arm()
    driver.hold("leftshoulder", "a")  # reverse
    driver.tick()
    status = driver.controller.status()
    assert (status.hand, status.gear) == ((90.0,) * 5, Gear.REVERSE)
    before = len(driver.wire.sent)
    driver.link = {"robot": "humanoid-1"}
    driver.hold("leftshoulder")
    driver.tick()
    status = driver.controller.status()
    assert (status.robot, status.hand, status.gear) == ("humanoid-1", None, None)
    driver.hold()
    driver.tick()
    driver.hold("leftshoulder", lefty=-1.0)
    driver.tick()
    new = driver.wire.sent[before:]
    assert new[-1][1]  # armed on the new robot, with nothing of the old one's
    assert all(m.hand is None and m.gear is None for m, _ in new)


def test_gear_never_changes_while_moving_and_speed_ramps():
    driver = Driver()
    driver.arm()
    driver.hold("leftshoulder", "y")
    driver.tick()
    assert driver.wire.sent[-1][0].gear is Gear.DRIVE
    driver.hold("leftshoulder", lefty=-1.0)
    driver.tick(dt=0.5)
    moving = driver.wire.sent[-1][0]
    assert moving.speed == pytest.approx(NORMAL.acceleration * 0.5)  # ramped, not a jump
    driver.hold("leftshoulder", "a", lefty=-1.0)  # reverse asked while moving
    driver.tick(dt=0.5)
    assert driver.wire.sent[-1][0].gear is Gear.DRIVE
    driver.hold("leftshoulder", "a")  # stick released: speed 0, then the gear
    driver.tick()
    driver.tick()
    motion = driver.wire.sent[-1][0]
    assert motion.gear is Gear.REVERSE and motion.speed == 0.0
    driver.hold("leftshoulder", lefty=-1.0)
    driver.tick()
    assert driver.wire.sent[-1][0].gear is Gear.REVERSE and driver.wire.sent[-1][0].speed > 0


def test_stalled_tick_stops():
    driver = Driver()
    driver.arm(lefty=-1.0)
    driver.tick(dt=0.23, lateness=0.18)
    status = driver.controller.status()
    assert (status.state, status.reason) == (Arming.STALE, "app stalled 180 ms")
    assert driver.wire.sent[-1] == (Motion(), False)


def test_unplugged_controller_stops():
    driver = Driver()
    driver.arm(lefty=-1.0)
    driver.held = None  # the input thread reports the pad gone, then nothing more
    driver.controller.set_input(InputState(read_at=driver.now, connected=False))
    driver.tick()
    assert driver.controller.status().reason == "controller unplugged"
    assert driver.wire.sent[-1] == (Motion(), False)


def test_link_provider_is_polled_each_tick():
    now = [100.0]
    links = [link_at(100.0)]
    wire = Wire()
    controller = TeleopController(wire, link=lambda: links[-1], clock=lambda: now[0])
    controller.set_input(pad(now[0]))
    controller.tick(Tick(now[0], 0.0, False, 0.0))
    controller.set_input(pad(now[0], "leftshoulder"))
    controller.tick(Tick(now[0], 0.0, False, 0.0))
    assert controller.status().state is Arming.ARMED
    now[0] += 0.6  # the robot went quiet
    controller.set_input(pad(now[0], "leftshoulder"))
    controller.tick(Tick(now[0], 0.0, False, 0.0))
    assert controller.status().reason == "link lost: no data for 0.6 s"


def test_a_failing_sink_is_counted():
    def broken(motion: Motion, armed: bool) -> None:
        raise OSError("session closed")

    now = 100.0
    controller = TeleopController(broken, clock=lambda: now)
    controller.set_link(link_at(now))
    controller.set_input(pad(now))
    controller.tick(Tick(now, 0.0, False, 0.0))
    controller.set_input(pad(now, "leftshoulder"))
    controller.tick(Tick(now, 0.0, False, 0.0))
    assert controller.status().send_errors == 1 and controller.status().sent == 0


# -- property: any events at any times, ticked by a jittery clock ------------------------
events = st.lists(st.tuples(
    st.floats(0.0, 0.4),  # time until the thread wakes
    st.sampled_from(["deadman", "release", "stick", "unplug", "silence", "link-down",
                     "link-up", "quiet-robot", "estop", "release-estop", "blur", "focus",
                     "none"]),
), min_size=1, max_size=60)


@settings(max_examples=200, deadline=None)
@given(events)
def test_no_motion_without_control_through_the_controller(script):
    now = [100.0]
    wire = Wire()
    config = ArmingConfig()
    controller = TeleopController(wire, clock=lambda: now[0], config=config)
    schedule = Schedule(20.0, now[0])
    reading = pad(now[0])
    data_at: float | None = now[0]
    online, estop, focused, input_alive = True, False, True, True
    for delay, event in script:
        now[0] += delay
        if event == "deadman":
            reading = pad(now[0], "leftshoulder", lefty=-1.0)
        elif event == "release":
            reading = pad(now[0], lefty=-1.0)
        elif event == "stick":
            reading = pad(now[0], *reading.buttons, rightx=-0.7)
        elif event == "unplug":
            reading = InputState(read_at=now[0], connected=False)
        elif event in ("link-down", "link-up"):
            online = event == "link-up"
        elif event == "quiet-robot":
            data_at = None if data_at is None else data_at - 1.0
        elif event == "estop":
            controller.engage_estop()
            estop = True
        elif event == "release-estop":
            controller.release_estop()
            estop = False
        elif event in ("blur", "focus"):
            focused = event == "focus"
            controller.set_focus(focused)
        input_alive = event != "silence" and (input_alive or event != "none")
        if input_alive:
            reading = InputState(reading.axes, reading.buttons, now[0], reading.connected)
        controller.set_input(reading)
        if event not in ("quiet-robot", "link-down"):
            data_at = now[0] if online else data_at
        controller.set_link(LinkStatus("rover-1", online, data_at))
        schedule.poke()
        tick = schedule.wake(now[0])
        if tick is None:
            continue
        before = len(wire.sent)
        step = controller.tick(tick)
        sent = wire.sent[before:]
        in_control = ("leftshoulder" in reading.buttons and reading.connected
                      and tick.now - reading.read_at <= config.input_stale_s
                      and online and data_at is not None
                      and tick.now - data_at <= config.link_age_s
                      and not estop and focused and tick.lateness <= config.stall_s)
        for motion, armed in sent:
            if motion.moving or motion.steering:
                assert armed and in_control, (event, step)
        if not in_control:
            assert not step.armed
            assert all(not m.moving for m, _ in sent)


# -- on the real clock thread --------------------------------------------------------------
def wait_for(predicate, timeout: float = 2.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.005)
    return False


def test_real_clock_drives_and_stops_within_a_period():
    wire = Wire()
    controller = TeleopController(wire, rate_hz=20.0,
                                  link=lambda: link_at(time.monotonic()))
    stop_feeding = threading.Event()
    buttons: list[frozenset[str]] = [frozenset()]

    def feed() -> None:  # an input thread: fresh readings, 100 Hz
        while not stop_feeding.is_set():
            controller.set_input(InputState({"lefty": -1.0}, buttons[-1], time.monotonic()))
            time.sleep(0.01)

    feeder = threading.Thread(target=feed, name="input")
    controller.start()
    feeder.start()
    try:
        assert wait_for(lambda: controller.status().reason == "deadman released")
        buttons.append(frozenset({"leftshoulder"}))
        assert wait_for(lambda: any(armed for _, armed in wire.snapshot()))
        time.sleep(0.3)
        released_at = time.monotonic()
        buttons.append(frozenset())
        assert wait_for(lambda: not wire.snapshot()[-1][1])
        stop_delay = time.monotonic() - released_at
        time.sleep(0.3)
    finally:
        stop_feeding.set()
        feeder.join()
        controller.stop()
    sent = wire.snapshot()
    armed = [m for m, a in sent if a]
    assert len(armed) >= 5 and all(m.linear == pytest.approx(NORMAL.linear) for m in armed)
    assert sent[len(armed):] == [(Motion(), False)] * 3  # three stops, then silence
    assert stop_delay < 0.05  # the release pokes the clock: no waiting for a period
    assert wire.threads == {"teleop-clock"}
    assert controller.status().period.samples > 0


def test_stop_sends_the_stops_of_a_loss_of_control():
    wire = Wire()
    controller = TeleopController(wire, link=lambda: link_at(time.monotonic()))
    controller.start()
    try:
        controller.set_input(InputState(read_at=time.monotonic()))
        # the release must be seen on a tick before the press counts
        assert wait_for(lambda: controller.status().reason == "deadman released")
        controller.set_input(InputState({"lefty": -1.0}, frozenset({"leftshoulder"}),
                                        time.monotonic()))
        assert wait_for(lambda: any(a for _, a in wire.snapshot()))
    finally:
        controller.stop()
    assert wire.snapshot()[-3:] == [(Motion(), False)] * 3


def test_a_failing_link_provider_is_a_lost_link():
    now = 100.0
    wire = Wire()
    healthy = [True]

    def provider() -> LinkStatus:
        if not healthy[-1]:
            raise RuntimeError("monitor broke")
        return link_at(now)

    controller = TeleopController(wire, link=provider, clock=lambda: now)
    controller.set_input(pad(now))
    controller.tick(Tick(now, 0.0, False, 0.0))
    controller.set_input(pad(now, "leftshoulder", lefty=-1.0))
    controller.tick(Tick(now, 0.0, False, 0.0))
    assert wire.sent[-1][1]
    healthy.append(False)
    controller.tick(Tick(now, 0.0, False, 0.0))
    assert controller.status().reason == "link lost: robot offline"
    assert wire.sent[-1] == (Motion(), False)


# -- re-arming: a lost or replaced device needs a new press ----------------------------------
def reading(now: float, device_id: str, *buttons: str, **axes: float) -> InputState:
    return InputState(axes=axes, buttons=frozenset(buttons), read_at=now,
                      device_id=device_id)


def armed_on(device_id: str) -> Driver:
    driver = Driver()
    driver.controller.set_input(reading(driver.now, device_id))
    driver.tick()
    driver.controller.set_input(reading(driver.now, device_id, "leftshoulder", lefty=-1.0))
    driver.tick()
    assert driver.wire.sent[-1][1]
    return driver


def tick_with(driver: Driver, state: InputState | None) -> None:
    driver.now += 0.05
    if state is not None:
        driver.controller.set_input(replace(state, read_at=driver.now))
    driver.controller.set_link(link_at(driver.now))
    driver.controller.tick(Tick(driver.now, 0.0, False, 0.05))


@pytest.mark.parametrize("lost", [
    InputState(connected=False, device_id="sdl:1"),  # unplugged, back with the same id
    InputState(connected=False, device_id="sdl:1"),
    None,  # the source switched off, then on again
], ids=["unplugged", "unplugged-again", "no-input"])
def test_a_device_lost_and_back_within_one_period_needs_a_new_press(lost):
    driver = armed_on("sdl:1")
    driver.controller.set_input(lost)  # never seen by a tick
    held = reading(driver.now, "sdl:1", "leftshoulder", lefty=-1.0)
    tick_with(driver, held)
    status = driver.controller.status()
    assert status.reason == "release the deadman and press it again to drive"
    assert driver.wire.sent[-1] == (Motion(), False)
    tick_with(driver, reading(driver.now, "sdl:1", lefty=-1.0))  # released...
    tick_with(driver, held)  # ...and pressed again
    assert driver.wire.sent[-1][1]


def test_a_replugged_pad_with_the_deadman_held_does_not_drive():
    driver = armed_on("sdl:1")
    driver.controller.set_input(InputState(connected=False, device_id="sdl:1"))
    tick_with(driver, reading(driver.now, "sdl:2", "leftshoulder", lefty=-1.0))
    assert driver.controller.status().state is not Arming.ARMED
    assert not any(m.moving for m, _ in driver.wire.sent[1:])


@pytest.mark.parametrize("other", ["sdl:2", "keyboard", "on-screen stick"])
def test_another_device_taking_over_needs_its_own_press(other: str):
    driver = armed_on("sdl:1")
    tick_with(driver, reading(driver.now, other, "leftshoulder", lefty=-1.0))
    assert driver.controller.status().state is not Arming.ARMED
    assert driver.wire.sent[-1] == (Motion(), False)


def test_a_profile_moving_the_deadman_needs_a_new_press():
    driver = armed_on("sdl:1")
    moved = replace(DEFAULT, deadman="a")
    driver.controller.set_profile(moved)
    tick_with(driver, reading(driver.now, "sdl:1", "a", "leftshoulder", lefty=-1.0))
    assert driver.controller.status().state is not Arming.ARMED
    tick_with(driver, reading(driver.now, "sdl:1", "leftshoulder", lefty=-1.0))
    tick_with(driver, reading(driver.now, "sdl:1", "a", lefty=-1.0))
    assert driver.wire.sent[-1][1]


def test_a_profile_keeping_the_deadman_keeps_driving():
    driver = armed_on("sdl:1")
    driver.controller.set_profile(replace(DEFAULT, name="other"))
    tick_with(driver, reading(driver.now, "sdl:1", "leftshoulder", lefty=-1.0))
    assert driver.wire.sent[-1][1]


def test_a_gui_reading_goes_stale_after_its_own_bound():
    driver = armed_on("keyboard")
    gui = replace(reading(driver.now, "keyboard", "leftshoulder", lefty=-1.0),
                  stale_after=0.05)
    tick_with(driver, gui)
    assert driver.wire.sent[-1][1]
    driver.now += 0.06  # the GUI thread froze: no new stamp
    driver.controller.set_link(link_at(driver.now))
    driver.controller.tick(Tick(driver.now, 0.0, False, 0.06))
    assert driver.controller.status().state is Arming.STALE
    assert driver.wire.sent[-1] == (Motion(), False)


def test_a_release_and_press_quicker_than_one_period_is_a_fresh_press() -> None:
    sent: list[tuple[Motion, bool]] = []
    controller = TeleopController(lambda m, armed: sent.append((m, armed)),
                                  link=lambda: link_at(now))
    now = time.monotonic()
    held = InputState(axes={"lefty": -1.0}, buttons=frozenset({"leftshoulder"}),
                      read_at=now, device_id="pad")
    controller.set_input(held)
    controller.tick(Tick(now, 0.0, True, 0.05))  # held since the device came: latched
    assert controller.status().state is not Arming.ARMED
    controller.set_input(InputState(axes={"lefty": -1.0}, read_at=now, device_id="pad"))
    controller.set_input(held)  # released and pressed again between two ticks
    controller.tick(Tick(now + 0.01, 0.0, True, 0.05))
    assert controller.status().state is Arming.ARMED
