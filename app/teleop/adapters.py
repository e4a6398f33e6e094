"""Output adapters: a :class:`Motion` as the messages one robot's command key takes.

The adapter is chosen from the robot's catalog ``commands``: the first entry whose type it
can drive with (the robot lists its preference first), else fleet ``Command.teleop`` when the
robot serves no catalog. Each adapter keeps what a stop must hold (the hand's last target,
the car's gear and steering) and what it needs to limit (the car's commanded speed).

Every value written is finite, but for one thing: a hand digit the operator never gave a
target is NaN, which HandMapPercentage reads as "leave this digit alone". A non-finite
velocity is written as 0, a non-finite position target keeps its last value. A stop is
explicit zeros, never NaN, with the position targets last sent (PROTOCOL.md "Commands and
safety").
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

from app.bus.catalog import Catalog
from app.bus.keys import DEFAULT_ROOT, command_key
from app.bus.outbox import Outgoing
from app.bus.publisher import Traffic
from app.codec.registry import registry
from app.teleop.model import Gear, Motion

FLEET_COMMAND = "fleet.Command"
MOTOR_SAMPLE = "bow.MotorSample"
VEHICLE_COMMAND = "autoware.traffic_simulator_msgs.VehicleCommand"
JOYSTICK = "isaac.JoystickStateProto"

# Motion.hand's order: the seed's HandMapPercentage fields.
HAND_DIGITS = ("thumb", "index", "middle", "ring", "pinky", "fingerAdduction",
               "thumbOpposition")
# JoystickStateProto: sticks and triggers as (x, y) pairs, buttons in SDL's
# SDL_GameControllerButton order.
JOYSTICK_AXES = (("leftx", "lefty"), ("rightx", "righty"), ("lefttrigger", "righttrigger"))
JOYSTICK_BUTTONS = ("a", "b", "x", "y", "back", "guide", "start", "leftstick", "rightstick",
                    "leftshoulder", "rightshoulder", "dpup", "dpdown", "dpleft", "dpright")
# A robot stops by itself this long after its last teleop command (PROTOCOL.md).
ROBOT_TIMEOUT_S = 0.5
CAR_ACCEL = 2.0  # m/s², speeding up
CAR_BRAKE = 4.0  # m/s², slowing down while driving (a stop commands 0 at once)
# Added to the braking time before a gear change: a car's braking builds up (jerk limits)
# and the command takes a while to arrive. The simulated car, braking from 3 m/s at its
# own 4 m/s², still rolls at 0.5 m/s when the commanded speed is computed to be at rest.
CAR_SETTLE_S = 0.5


FLOAT32_MAX = 3.4028234663852886e38


def _finite(value: float, otherwise: float = 0.0) -> float:
    """``value`` if it is finite in a Float32 field, else ``otherwise``."""
    return value if math.isfinite(value) and abs(value) <= FLOAT32_MAX else otherwise


class OutputAdapter:
    """One robot's teleop output. ``sent`` is the motion last written, as written (after
    the adapter's own limits), for the panel."""

    type_name = ""

    def __init__(self, robot_id: str, key: str) -> None:
        self.robot_id = robot_id
        self.key = key
        self.sent = Motion()

    def messages(self, motion: Motion, seq: int, now: float) -> list[Outgoing]:
        """The messages for ``motion``; ``seq`` numbers them (fleet commands carry it),
        ``now`` is time.monotonic()."""
        raise NotImplementedError

    def stop(self, seq: int, now: float) -> list[Outgoing]:
        """No motion, position targets (hand, gear, steering) held."""
        return self.messages(self.sent.stopped(), seq, now)

    def _out(self, message: Any) -> list[Outgoing]:
        return [Outgoing(self.key, self.type_name, message.to_bytes(), Traffic.TELEOP)]


class TwistAdapter(OutputAdapter):
    """fleet ``Command.teleop`` (VelTwist: m/s forward, rad/s counter-clockwise)."""

    type_name = FLEET_COMMAND

    def messages(self, motion: Motion, seq: int, now: float) -> list[Outgoing]:
        linear, angular = _finite(motion.linear), _finite(motion.angular)
        message = registry().struct(FLEET_COMMAND).new_message(
            robotId=self.robot_id, unixTimeMs=time.time_ns() // 10**6, seq=seq)
        twist = message.init("teleop")
        twist.linearMps, twist.angularRps = linear, angular
        self.sent = Motion(linear=linear, angular=angular)
        return self._out(message)


class BowAdapter(OutputAdapter):
    """bow ``MotorSample``: locomotion in the seed's Transform axes (X right, Y up,
    Z forward, left-handed: positive ``rotationalVelocity.y`` turns right) and, once a hand
    target was asked for, ``gripperObjective`` in ``percentageMode`` (digits 0 open .. 1
    closed; Motion.hand is 0..100 % in :data:`HAND_DIGITS` order). A digit never given a
    target (``fingerAdduction`` and ``thumbOpposition`` while only the five fingers are
    mapped) is NaN: the robot leaves it where it is."""

    type_name = MOTOR_SAMPLE

    def __init__(self, robot_id: str, key: str) -> None:
        super().__init__(robot_id, key)
        self.hand: tuple[float, ...] | None = None  # % per digit, the last target sent

    def messages(self, motion: Motion, seq: int, now: float) -> list[Outgoing]:
        linear, lateral = _finite(motion.linear), _finite(motion.lateral)
        angular = _finite(motion.angular)
        message = registry().struct(MOTOR_SAMPLE).new_message(controlMode="useObjective")
        loc = message.init("locomotion")
        move, turn = loc.init("translationalVelocity"), loc.init("rotationalVelocity")
        move.x, move.y, move.z = -lateral, 0.0, linear  # left = -X, forward = +Z
        turn.x, turn.y, turn.z = 0.0, -angular, 0.0  # counter-clockwise = -Y
        if motion.hand is not None:
            self.hand = self._hand_target(motion.hand)
        if self.hand is not None:
            grip = message.init("gripperObjective")
            grip.gripperControlMode = "percentageMode"
            digits = grip.init("handMapPercentage")
            for name, percent in zip(HAND_DIGITS, self.hand, strict=True):
                setattr(digits, name, percent / 100.0)
        self.sent = Motion(linear=linear, lateral=lateral, angular=angular, hand=self.hand)
        return self._out(message)

    def _hand_target(self, asked: tuple[float, ...]) -> tuple[float, ...]:
        """Asked percentages clamped to 0..100; a digit not given, or not finite, keeps its
        last target (NaN, left alone, before any)."""
        held = self.hand or (math.nan,) * len(HAND_DIGITS)
        given = asked + (math.nan,) * (len(HAND_DIGITS) - len(asked))
        return tuple(min(100.0, max(0.0, value)) if math.isfinite(value) else last
                     for value, last in zip(given, held, strict=False))


class CarAdapter(OutputAdapter):
    """autoware ``traffic_simulator_msgs.VehicleCommand``: tire angle (rad, left +) and
    speed (m/s, >= 0, along the gear's direction), speeding up at most ``accel_mps2`` and
    slowing down at most ``brake_mps2`` between messages. The gear never changes while the
    car may be moving: a new gear first brings the commanded speed to 0, then waits the
    time the car needs to brake from the speed it was last commanded plus ``settle_s``,
    then changes (speed 0 in that message). ``gear`` is the gear sent before any is asked
    for: the car's own gear where the caller knows it. Without it the adapter claims
    none: it writes ``none`` (GearCommandConstants' "no gear command": the car keeps
    its gear) and speed 0, since a speed along a gear nobody chose could go either way,
    until the operator picks a gear. ``acceleration`` is ``accel_mps2`` while a speed is
    asked for, and ``-brake_mps2`` (braking, never a push) on a stop or when slowing to 0.
    """

    type_name = VEHICLE_COMMAND

    def __init__(self, robot_id: str, key: str, accel_mps2: float = CAR_ACCEL,
                 brake_mps2: float = CAR_BRAKE, gear: Gear | None = None,
                 settle_s: float = CAR_SETTLE_S) -> None:
        super().__init__(robot_id, key)
        self.accel_mps2 = accel_mps2
        self.brake_mps2 = brake_mps2
        self.settle_s = settle_s
        self.gear = gear
        self.speed = 0.0  # last commanded, m/s
        self.steering = 0.0
        self.at_rest_after = -math.inf  # when the car is at rest at the latest, if speed is 0
        self._last_at: float | None = None

    def messages(self, motion: Motion, seq: int, now: float) -> list[Outgoing]:
        gap = math.inf if self._last_at is None else now - self._last_at
        dt = gap if 0.0 <= gap <= ROBOT_TIMEOUT_S else 0.0  # else the ramp starts afresh
        self._expire(now)
        wanted = motion.gear or self.gear
        target = max(0.0, _finite(motion.speed))
        if wanted is not self.gear or self.gear in (None, Gear.PARK, Gear.NEUTRAL):
            target = 0.0
        if target > self.speed:
            speed = min(target, self.speed + self.accel_mps2 * dt)
        else:
            speed = max(target, self.speed - self.brake_mps2 * dt)
        if wanted is not self.gear and self.speed == 0.0 and now >= self.at_rest_after:
            self.gear = wanted
        self._set_speed(speed, now)
        self.steering = _finite(motion.steering, self.steering)
        return self._write(now, self.accel_mps2 if target > 0.0 else -self.brake_mps2)

    def stop(self, seq: int, now: float) -> list[Outgoing]:
        self._expire(now)
        self._set_speed(0.0, now)
        return self._write(now, -self.brake_mps2)

    def _expire(self, now: float) -> None:
        """After the robot's own timeout the car has stopped by itself."""
        if self._last_at is not None and now - self._last_at > ROBOT_TIMEOUT_S:
            self._set_speed(0.0, self._last_at + ROBOT_TIMEOUT_S)

    def _set_speed(self, speed: float, now: float) -> None:
        if speed == 0.0 and self.speed != 0.0:
            self.at_rest_after = now + self.speed / self.brake_mps2 + self.settle_s
        self.speed = speed

    def _write(self, now: float, acceleration: float) -> list[Outgoing]:
        self._last_at = now
        message = registry().struct(VEHICLE_COMMAND).new_message()
        ack = message.init("ackermannControlCommand")
        sec, nanosec = divmod(time.time_ns(), 10**9)
        for part in (ack, ack.lateral, ack.longitudinal):
            part.stamp.sec, part.stamp.nanosec = sec, nanosec
        ack.lateral.steeringTireAngle = self.steering
        ack.lateral.steeringTireRotationRate = 0.0  # the car's own rate
        ack.longitudinal.speed = self.speed
        ack.longitudinal.acceleration = acceleration
        ack.longitudinal.jerk = 0.0
        message.gearCommand.stamp.sec, message.gearCommand.stamp.nanosec = sec, nanosec
        message.gearCommand.command = self.gear.value if self.gear is not None else "none"
        self.sent = Motion(steering=self.steering, speed=self.speed, gear=self.gear)
        return self._out(message)


class JoystickAdapter(OutputAdapter):
    """isaac ``JoystickStateProto``: the raw axes as (x, y) pairs of :data:`JOYSTICK_AXES`
    (SDL signs, triggers 0..1) and the buttons in :data:`JOYSTICK_BUTTONS` order. Its stop
    is every axis at rest (0) and no button pressed."""

    type_name = JOYSTICK

    def messages(self, motion: Motion, seq: int, now: float) -> list[Outgoing]:
        axes = {name: _finite(motion.axes.get(name, 0.0)) for pair in JOYSTICK_AXES
                for name in pair}
        message = registry().struct(JOYSTICK).new_message()
        for item, (x, y) in zip(message.init("axes", len(JOYSTICK_AXES)), JOYSTICK_AXES,
                                strict=True):
            item.x, item.y = axes[x], axes[y]
        message.buttons = [name in motion.buttons for name in JOYSTICK_BUTTONS]
        self.sent = Motion(axes=axes, buttons=motion.buttons & frozenset(JOYSTICK_BUTTONS))
        return self._out(message)

    def stop(self, seq: int, now: float) -> list[Outgoing]:
        return self.messages(Motion(), seq, now)


_BY_TYPE: dict[str, Callable[..., OutputAdapter]] = {
    MOTOR_SAMPLE: BowAdapter,
    VEHICLE_COMMAND: CarAdapter,
    JOYSTICK: JoystickAdapter,
}


def adapter_for(robot_id: str, catalog: Catalog | None, root: str = DEFAULT_ROOT,
                **options: Any) -> OutputAdapter | None:
    """The adapter for the first teleop command the catalog lists; fleet ``Command.teleop``
    when the robot serves no catalog (none, or one learnt by listening); None when its
    catalog lists no command teleop can drive. ``options`` go to the adapter that takes
    them (CarAdapter: ``accel_mps2``, ``brake_mps2``, ``gear``,
    ``settle_s``)."""
    teleop_key = command_key(robot_id, "teleop", root)
    if catalog is None or catalog.discovered:
        return TwistAdapter(robot_id, teleop_key)
    for info in catalog.commands:
        if info.type == FLEET_COMMAND and info.key == teleop_key:
            return TwistAdapter(robot_id, info.key)
        make = _BY_TYPE.get(info.type)
        if make is not None:
            return make(robot_id, info.key, **(options if make is CarAdapter else {}))
    return None

