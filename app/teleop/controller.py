"""The teleop controller: profile + mapping + arming machine + command clock.

Inputs, the link, the e-stop and focus arrive from any thread as plain values; on each
tick of its clock (never the GUI thread) the controller steps the arming machine and hands
each command to ``send(motion, armed)`` (the robot's output adapter). ``status()`` is a
frozen snapshot for the panel and the command line.

E-stop: the profile's e-stop button, :meth:`engage_estop` and a robot reporting its e-stop
all hold the machine in ESTOP; only :meth:`release_estop` (the GUI's deliberate act)
releases the local one. ``on_estop(engaged)`` tells the e-stop sender, at once and on the
caller's thread.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from app.inputs.model import InputState
from app.teleop.arming import (
    Arming,
    ArmingConfig,
    ArmingMachine,
    LinkStatus,
    Observation,
    Step,
)
from app.teleop.clock import DEFAULT_RATE_HZ, CommandClock, PeriodStats, Tick
from app.teleop.mapping import MOVING_GEARS, blended, finite, limit_acceleration, motion_of
from app.teleop.model import Gear, Motion
from app.teleop.profiles import DEFAULT, FINGERS, Profile

log = logging.getLogger(__name__)

Sink = Callable[[Motion, bool], None]
TURBO_RISE_S = 0.5  # turbo's limits come in over this, from the normal ones


@dataclass(frozen=True)
class TeleopStatus:
    state: Arming = Arming.DISARMED
    reason: str = "starting"
    motion: Motion | None = None  # the last command sent
    sent_at: float | None = None  # its time.monotonic()
    sent: int = 0  # commands sent
    send_errors: int = 0
    rate_hz: float = DEFAULT_RATE_HZ
    period: PeriodStats = field(default_factory=PeriodStats)
    scale: float = 1.0
    scale_reason: str = ""
    turbo: bool = False
    robot: str = ""
    profile: str = DEFAULT.name
    device: str = ""  # the input device; "" = none
    input_age: float | None = None  # s since its last reading
    link_age: float | None = None  # s since the robot's newest data
    latency: float | None = None
    estop: bool = False  # engaged here (the robot's own report is in state/reason)
    hand: tuple[float, ...] | None = None  # the hand's target (sent or not)
    gear: Gear | None = None
    # Why the triggers do not move the hand ("" when they do): no target yet and the robot
    # reports no hand state to start from.
    hand_note: str = ""


HAND_UNKNOWN = "hand state unknown: pick a preset (d-pad) or set the fingers to start"


def reported_hand(link: LinkStatus) -> tuple[float, ...] | None:
    """The fingers' state as the robot reports it (0..100 %, FINGERS order), the start of
    the first hand target; None when it reports none or any finger is not known."""
    if link.hand is None or len(link.hand) < len(FINGERS):
        return None
    fingers = link.hand[:len(FINGERS)]
    if not all(math.isfinite(f) for f in fingers):
        return None
    return tuple(min(100.0, max(0.0, f)) for f in fingers)


def device_lost(previous: InputState | None, state: InputState | None) -> bool:
    """Whether ``state`` is not the connected device ``previous`` was reading: none, gone,
    or another one (a re-plugged pad has a new id)."""
    if state is None or not state.connected:
        return True
    return previous is None or not previous.connected or previous.device_id != state.device_id


class TeleopController:
    def __init__(self, send: Sink, *, profile: Profile = DEFAULT,
                 link: Callable[[], LinkStatus] | None = None,
                 rate_hz: float = DEFAULT_RATE_HZ, config: ArmingConfig | None = None,
                 on_estop: Callable[[bool], None] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._send = send
        self._link_provider = link
        self._on_estop = on_estop
        self._time = clock
        self._lock = threading.Lock()
        self._profile = profile
        self._input: InputState | None = None
        self._link = LinkStatus()
        self._estop = False
        self._focused = True
        self._hand: tuple[float, ...] | None = None
        self._gear: Gear | None = None
        self._robot = ""  # whose hand and gear those are ("": none yet, or none chosen)
        self._turbo_share = 0.0  # how far turbo has ramped in (clock thread only)
        # The input was lost or replaced (or the deadman rebound) since the last tick: set
        # on the caller's thread, so a re-plug within one period still needs a new press.
        self._rearm = False
        self._released = False  # the deadman seen up on a live device since the last tick
        self._machine = ArmingMachine(config)  # clock thread only
        self._clock = CommandClock(self.tick, rate_hz, clock=clock)
        self._status = TeleopStatus(rate_hz=self._clock.rate_hz, profile=profile.name)
        self._sent = 0
        self._send_errors = 0

    @property
    def config(self) -> ArmingConfig:
        return self._machine.config

    # -- life ---------------------------------------------------------------------------
    def start(self) -> None:
        self._clock.start()

    def stop(self) -> None:
        """Stops the clock; the robot gets the stops of a loss of control first."""
        self._clock.stop()
        with self._lock:
            self._input = None
        now = self._time()
        for _ in range(self._machine.config.stop_count):
            self.tick(Tick(now, 0.0, False, 0.0))

    # -- inputs, from any thread ----------------------------------------------------------
    def set_input(self, state: InputState | None, *, tick_here: bool = False) -> None:
        """The latest reading (None: no device). A change ticks the clock at once, on this
        thread with ``tick_here`` (an input device's thread, never the GUI's); the
        profile's e-stop button pressed engages the e-stop."""
        with self._lock:
            previous, self._input = self._input, state
            button = self._profile.estop
            # A release counts once seen on the device that reads now (never one seen on a
            # device lost since), so a release and press between two ticks is a fresh press.
            up = state is not None and state.connected and \
                self._profile.deadman not in state.buttons
            if device_lost(previous, state):
                self._rearm, self._released = True, up
            elif up:
                self._released = True
        pressed = state is not None and button is not None and button in state.buttons
        if pressed and not (previous is not None and button in previous.buttons):
            self.engage_estop()
        if previous is None or state is None or previous.axes != state.axes \
                or previous.buttons != state.buttons or previous.connected != state.connected:
            self._clock.poke(here=tick_here)

    def set_link(self, link: LinkStatus) -> None:
        """The selected robot's link (used when no link provider was given)."""
        with self._lock:
            changed, self._link = self._link != link, link
        if changed:
            self._clock.poke()

    def set_focus(self, focused: bool) -> None:
        with self._lock:
            self._focused = focused
        self._clock.poke()

    def set_profile(self, profile: Profile) -> None:
        """A deadman bound to another button needs a new press of that button."""
        with self._lock:
            if profile.deadman != self._profile.deadman:
                self._rearm, self._released = True, False
            self._profile = profile
        self._clock.poke()

    def set_rate(self, rate_hz: float) -> None:
        self._clock.set_rate(rate_hz)

    def set_hand(self, hand: tuple[float, ...] | None) -> None:
        """The hand's target from the panel (each finger adjusted), or as the robot
        reports it, so the triggers move on from there; sent with the next command."""
        with self._lock:
            self._hand = None if hand is None else tuple(min(100.0, max(0.0, float(f)))
                                                         for f in hand)
        self._clock.poke()

    def engage_estop(self) -> None:
        with self._lock:
            self._estop = True
        self._clock.poke()
        if self._on_estop is not None:
            self._on_estop(True)

    def release_estop(self) -> None:
        """Only the GUI's deliberate act calls this, never a gamepad button."""
        with self._lock:
            self._estop = False
        self._clock.poke()
        if self._on_estop is not None:
            self._on_estop(False)

    def deadman_held(self) -> bool:
        """The deadman is down on the connected device (whatever else forbids driving)."""
        with self._lock:
            reading, profile = self._input, self._profile
        return reading is not None and reading.connected and profile.deadman in reading.buttons

    def hold_estop(self, engaged: bool) -> None:
        """Holds the machine in ESTOP, or lets it go, without telling ``on_estop``: the
        session saying whether the robot now selected is e-stopped here."""
        with self._lock:
            self._estop = engaged
        self._clock.poke()

    def poke(self) -> None:
        """Something changed (the link monitor saw liveliness go): decide at once."""
        self._clock.poke()

    def status(self) -> TeleopStatus:
        return self._status

    # -- the clock's thread --------------------------------------------------------------
    def tick(self, tick: Tick) -> Step:
        """One command period (the clock calls it; tests may call it with their own
        ticks, but never alongside a running clock)."""
        link = self._provided_link()
        with self._lock:
            link = link if link is not None else self._link
            if link.robot != self._robot:
                if self._robot:  # another robot's hand and gear are not this one's
                    self._hand, self._gear = None, None
                self._robot = link.robot
            profile, reading, estop = self._profile, self._input, self._estop
            focused, hand, gear = self._focused, self._hand, self._gear
            rearm, self._rearm = self._rearm, False
            released, self._released = self._released, False
        buttons = reading.buttons if reading is not None else frozenset()
        turbo = profile.turbo is not None and profile.turbo in buttons
        deadman = reading is not None and reading.connected and profile.deadman in buttons
        observation = Observation(tick.now, reading, deadman, link, estop, focused,
                                  tick.lateness, rearm, released)
        last = self._machine.last_sent
        start_hand = reported_hand(link)
        share = min(1.0, self._turbo_share + max(0.0, finite(tick.dt)) / TURBO_RISE_S) \
            if turbo else 0.0
        limits = blended(profile.limits_for(link.robot, False),
                         profile.limits_for(link.robot, True), share)

        def command() -> Motion:
            assert reading is not None  # armed: a fresh reading exists
            motion = motion_of(profile, reading, turbo, hand, dt=tick.dt, robot=link.robot,
                               gear=gear, reported_hand=start_hand, limits=limits)
            return self._car_rules(motion, last, limits.acceleration, tick.dt)

        step = self._machine.step(observation, command)
        self._turbo_share = share if step.armed else 0.0
        if step.armed and step.send is not None:
            with self._lock:
                if self._hand == hand:  # the panel did not set one meanwhile
                    self._hand = step.send.hand
                self._gear = step.send.gear
        if step.send is not None:
            self._deliver(step.send, step.armed)
        self._status = TeleopStatus(
            state=step.state, reason=step.reason, motion=self._status.motion
            if step.send is None else step.send,
            sent_at=self._status.sent_at if step.send is None else tick.now,
            sent=self._sent, send_errors=self._send_errors,
            rate_hz=self._clock.rate_hz, period=self._clock.stats(), scale=step.scale,
            scale_reason=step.scale_reason, turbo=turbo, robot=link.robot,
            profile=profile.name, device=reading.device if reading is not None else "",
            input_age=None if reading is None else tick.now - reading.read_at,
            link_age=None if link.data_at is None else tick.now - link.data_at,
            latency=link.latency, estop=estop, hand=self._hand, gear=self._gear,
            hand_note="" if self._hand is not None or start_hand is not None
            else HAND_UNKNOWN)
        return step

    def _provided_link(self) -> LinkStatus | None:
        if self._link_provider is None:
            return None
        try:
            return self._link_provider()
        except Exception:  # no link known is a lost link: the machine stops
            log.exception("teleop link provider failed")
            return LinkStatus(robot=self._status.robot)

    @staticmethod
    def _car_rules(motion: Motion, last: Motion, acceleration: float, dt: float) -> Motion:
        """Never a gear change while moving (the request waits, speed held at 0 on the
        tick that changes it); speed rises at most ``acceleration`` m/s²."""
        gear = motion.gear
        if gear != last.gear and last.speed != 0.0:
            gear = last.gear
        speed = motion.speed if gear in MOVING_GEARS else 0.0
        speed = 0.0 if gear != last.gear else limit_acceleration(last.speed, speed,
                                                                 acceleration, dt)
        return dataclasses.replace(motion, gear=gear, speed=speed)

    def _deliver(self, motion: Motion, armed: bool) -> None:
        try:
            self._send(motion, armed)
            self._sent += 1
        except Exception:
            self._send_errors += 1
            log.exception("teleop send failed")
