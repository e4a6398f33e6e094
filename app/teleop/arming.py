"""The arming state machine: whether a teleop command may move the robot, and why not.

Pure and deterministic: each :meth:`ArmingMachine.step` takes one :class:`Observation`
(what the controller knows at ``now``) and says the state, the reason and what to send.
Commands move the robot only when ARMED: a robot selected and online, its data younger than
a limit, the deadman held, the input connected and read recently, no e-stop, no blocking
fault, the window focused (when focus counts) and the command clock on time. Any loss of
control sends the stop of the last command (velocities zero, hand and gear held) for
``stop_count`` steps, then nothing. Arming again needs the deadman released and pressed
once everything else is fine, so a link that comes back never lurches the robot, and a
deadman held while the operator picks another robot never drives that one.

The re-arm latch: set at start, by anything that forbids driving while the deadman is held,
and by any loss of the input (none, unplugged, stale, another device id, or
``Observation.rearm`` for a loss the controller saw between steps). It clears only on a
connected reading, fresh within its bound, with the deadman up: a missing reading never
counts as a release.
Every comparison is written so that NaN fails safe (a NaN age is a lost link).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from dataclasses import dataclass, fields
from enum import Enum

from app.inputs.model import InputState
from app.teleop.model import Motion
from app.teleop.profiles import STICKS

log = logging.getLogger(__name__)

VELOCITIES = ("linear", "lateral", "angular", "speed")


class Arming(Enum):
    DISARMED = "disarmed"
    ARMED = "armed"
    STALE = "stale"  # control lost: link, input or the app's own clock
    ESTOP = "estop"


@dataclass(frozen=True)
class LinkStatus:
    """The selected robot as the station sees it (the link monitor fills it in)."""

    robot: str = ""  # robot id; "" = none selected
    online: bool = False  # presence / liveliness says it is there
    data_at: float | None = None  # time.monotonic() of its newest data; None = none yet
    latency: float | None = None  # s (round trip where known)
    estop: bool = False  # it reports its e-stop engaged
    fault: str = ""  # an active critical fault, for the operator ("" = none): blocks driving
    battery: float | None = None  # % where known
    # The hand as the robot reports it, 0..100 % per digit in adapters.HAND_DIGITS order
    # (NaN: that digit unknown); None: it reports none. The first hand target starts here.
    hand: tuple[float, ...] | None = None
    # Why this station may not command it (command authority: "controlled by Ana
    # (operator)", "taking control…"); "" when it holds control.
    control: str = ""
    # Nobody else holds it: control comes with the deadman held (a deadman held through
    # this wait is the press that drives once control is in: it does not latch).
    control_pending: bool = False
    # Why nothing teleop sends would reach it (its catalog lists no command teleop drives,
    # a ROS 2 robot with no velocity input chosen); "" when something would.
    undrivable: str = ""


@dataclass(frozen=True)
class ArmingConfig:
    input_stale_s: float = 0.25  # no reading for longer: input stale
    link_age_s: float = 0.5  # no data from the robot for longer: link lost
    stall_s: float = 0.1  # a command tick later than this: app stalled
    stop_count: int = 3  # stops sent after a loss of control (lossy links)
    focus_disarms: bool = True
    slow_link_s: float = 0.15  # data age or latency beyond this scales speeds down...
    slow_link_floor: float = 0.25  # ...to this at link_age_s
    battery_low_pct: float = 20.0  # below: speeds limited to battery_low_scale
    battery_low_scale: float = 0.5
    battery_block_pct: float = 5.0  # below: driving blocked
    # The speed scale drops at once but rises at most from 0 to 1 over this (a link that
    # recovers brings the speed back gently, not from 25 % to 100 % in one command).
    scale_rise_s: float = 0.5

    def __post_init__(self) -> None:
        for item in fields(self):
            value = getattr(self, item.name)
            if not isinstance(value, bool) and not (math.isfinite(value) and value >= 0):
                raise ValueError(f"{item.name} must be a finite number >= 0, got {value!r}")
        if self.stop_count < 1:
            raise ValueError("stop_count must be at least 1")
        if not self.slow_link_s < self.link_age_s:
            raise ValueError("slow_link_s must be below link_age_s")
        if not 0 <= self.slow_link_floor <= 1 or not 0 <= self.battery_low_scale <= 1:
            raise ValueError("scales run 0..1")


@dataclass(frozen=True)
class Observation:
    now: float  # time.monotonic()
    input: InputState | None  # the latest reading; None: no input device
    deadman: bool  # held in that reading
    link: LinkStatus
    estop: bool = False  # engaged here (the operator or a gamepad button)
    focused: bool = True
    lateness: float = 0.0  # how late the command clock's tick is, s
    # The input was lost or replaced since the last step (a re-plug within one period),
    # or the deadman was bound to another button: a fresh release is needed.
    rearm: bool = False
    # The deadman was seen up on the connected device since the last step (a release and
    # press quicker than one period is still a fresh press).
    released: bool = False


@dataclass(frozen=True)
class Step:
    state: Arming
    reason: str  # why not armed, for the operator ("" when armed)
    send: Motion | None  # what to put on the wire now; None: nothing
    scale: float  # 0..1 applied to the velocities (slow link, low battery)
    scale_reason: str  # "" when 1

    @property
    def armed(self) -> bool:
        return self.state is Arming.ARMED


def _age(now: float, at: float | None) -> float:
    return math.inf if at is None else now - at


def _blocked(obs: Observation, config: ArmingConfig) -> tuple[Arming, str] | None:
    """What stops driving, the deadman aside; None when nothing does."""
    link = obs.link
    if obs.estop or link.estop:
        return Arming.ESTOP, "e-stop" if obs.estop else "e-stop reported by the robot"
    if not link.robot:
        return Arming.DISARMED, "no robot selected"
    if not link.online:
        return Arming.STALE, "link lost: robot offline"
    age = _age(obs.now, link.data_at)
    if not age <= config.link_age_s:
        return Arming.STALE, ("link lost: no data yet" if link.data_at is None
                              else f"link lost: no data for {age:.1f} s")
    if link.fault:
        return Arming.DISARMED, f"critical fault: {link.fault}"
    if link.undrivable:
        return Arming.DISARMED, link.undrivable
    if link.battery is not None and link.battery < config.battery_block_pct:
        return Arming.DISARMED, f"battery too low to drive: {link.battery:.0f} %"
    if link.control and (obs.deadman or not link.control_pending):
        return Arming.DISARMED, link.control  # a robot nobody holds waits for the deadman
    reading = obs.input
    if reading is None:
        return Arming.DISARMED, "no input device"
    if not reading.connected:
        return Arming.STALE, "controller unplugged"
    if not input_fresh(reading, obs.now, config):
        age = _age(obs.now, reading.read_at)
        return Arming.STALE, f"input stale: no reading for {age:.1f} s"
    if not obs.lateness <= config.stall_s:
        return Arming.STALE, f"app stalled {obs.lateness * 1000:.0f} ms"
    if config.focus_disarms and not obs.focused:
        return Arming.DISARMED, "window lost focus"
    return None


def input_fresh(reading: InputState, now: float, config: ArmingConfig) -> bool:
    """Whether ``reading`` is recent enough: within the smaller of its own bound and the
    config's (a NaN age or bound is stale)."""
    age = _age(now, reading.read_at)
    own = reading.stale_after
    return age <= config.input_stale_s and (own is None or age <= own)


def _input_alive(obs: Observation, config: ArmingConfig) -> bool:
    reading = obs.input
    return reading is not None and reading.connected and input_fresh(reading, obs.now, config)


def speed_scale(obs: Observation, config: ArmingConfig) -> tuple[float, str]:
    """How much of the profile's speed is allowed (0..1), and why not all of it."""
    scale, reasons = 1.0, []
    link = obs.link
    age = _age(obs.now, link.data_at)
    latency = link.latency if link.latency is not None else 0.0
    slow = max(age, latency) if math.isfinite(latency) else math.inf
    if not slow <= config.slow_link_s:
        span = config.link_age_s - config.slow_link_s
        fraction = min(1.0, (slow - config.slow_link_s) / span) if slow < math.inf else 1.0
        scale = min(scale, 1.0 - (1.0 - config.slow_link_floor) * fraction)
        what = f"latency {latency * 1000:.0f} ms" if latency > age else \
            f"data {age * 1000:.0f} ms old"
        reasons.append(f"link slow: {what}")
    if link.battery is not None and link.battery < config.battery_low_pct:
        scale = min(scale, config.battery_low_scale)
        reasons.append(f"battery low: {link.battery:.0f} %")
    return scale, "; ".join(reasons)


def _times(value: float, scale: float) -> float:
    product = value * scale
    return product if math.isfinite(product) else 0.0


def scaled(motion: Motion, scale: float) -> Motion:
    """The motion with its velocities and a joystick's sticks times ``scale``; a
    non-finite one becomes 0."""
    values = {name: _times(getattr(motion, name), scale) for name in VELOCITIES}
    steering = motion.steering if math.isfinite(motion.steering) else 0.0
    axes = {name: _times(value, scale if name in STICKS else 1.0)
            for name, value in motion.axes.items()}
    return Motion(**values, steering=steering, gear=motion.gear, hand=motion.hand,
                  axes=axes, buttons=motion.buttons)


class ArmingMachine:
    """One per controller; stepped on the command clock's thread only."""

    def __init__(self, config: ArmingConfig | None = None) -> None:
        self.config = config or ArmingConfig()
        self.state = Arming.DISARMED
        self.last_sent = Motion()  # the last motion sent while armed: what a stop holds
        self._stops_left = 0
        # Set while the deadman is held through anything that forbids driving (and at
        # start): arming needs it released and pressed again.
        self._latched = True
        self._robot = ""  # the robot the last steps were for
        self._device = ""  # the device id of the last live reading
        self._scale = 1.0  # the speed scale, rising at most as fast as scale_rise_s allows
        self._scale_at: float | None = None

    def step(self, obs: Observation, command: Callable[[], Motion]) -> Step:
        """``command`` makes the motion asked for; it is called only when ARMED (so
        the hand's trigger integration stands still while disarmed)."""
        if obs.link.robot != self._robot:  # a deadman held across a switch: not for this one
            self._robot, self._latched = obs.link.robot, True
            self.last_sent = Motion()  # nor the old one's hand and gear in its stops
        blocked = _blocked(obs, self.config)
        self._update_latch(obs, blocked)
        scale, scale_reason = self._ramped(*speed_scale(obs, self.config), obs.now)
        if blocked is None and obs.deadman and not self._latched:
            try:
                motion = command()
            except Exception as exc:  # a bug must stop the robot, not freeze its command
                log.exception("teleop command failed")
                self._latched = True
                blocked = Arming.DISARMED, f"command failed: {exc}"
            else:
                self.state = Arming.ARMED
                self._stops_left = self.config.stop_count
                self.last_sent = scaled(motion, scale)
                return Step(Arming.ARMED, "", self.last_sent, scale, scale_reason)
        if blocked is not None:
            self.state, reason = blocked
        else:
            self.state = Arming.DISARMED
            reason = "deadman released" if not obs.deadman else \
                "release the deadman and press it again to drive"
        send = None
        if self._stops_left > 0:
            self._stops_left -= 1
            self.last_sent = self.last_sent.stopped()
            send = self.last_sent
        return Step(self.state, reason, send, scale, scale_reason)

    def _ramped(self, target: float, reason: str, now: float) -> tuple[float, str]:
        """``target`` at once when it is lower, else the scale risen by what the time since
        the last step allows."""
        elapsed = 0.0 if self._scale_at is None else now - self._scale_at
        self._scale_at = now
        rise_s = self.config.scale_rise_s
        rise = elapsed / rise_s if rise_s > 0 else math.inf
        self._scale = min(target, self._scale + (rise if rise >= 0 else 0.0))
        if self._scale < target:
            reason = "; ".join(filter(None, (reason, f"speed coming back to {target:.0%}")))
        return self._scale, reason

    def _update_latch(self, obs: Observation, blocked: tuple[Arming, str] | None) -> None:
        alive = _input_alive(obs, self.config)
        if obs.rearm or not alive:
            self._latched = True
        if alive and obs.input is not None and obs.input.device_id != self._device:
            self._device, self._latched = obs.input.device_id, True
        if alive and (not obs.deadman or obs.released):
            self._latched = False
        taking_control = blocked is not None and obs.link.control_pending and \
            blocked[1] == obs.link.control
        if blocked is not None and obs.deadman and not taking_control:
            self._latched = True
