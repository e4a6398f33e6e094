"""Kinematic bicycle model of a car driven by Ackermann commands (target speed + tire angle)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from app.sim.kinematics import Pose2D

MAX_SPEED = 15.0  # m/s
DEFAULT_ACCEL = 2.0  # m/s², speeding up when the command gives no acceleration
MAX_ACCEL = 3.0  # m/s²
BRAKE = 4.0  # m/s², every slow-down: commanded, park/neutral, command timeout, bad input
JERK = 20.0  # m/s³, how fast the acceleration itself may change
DEFAULT_STEER_RATE = 0.8  # rad/s, when the command gives no rotation rate
MAX_STEER_RATE = 1.5  # rad/s


def _clamp(value: float, low: float, high: float) -> float:
    return max(low, min(high, value))


@dataclass
class Bicycle:
    """Rear-axle-referenced car: ``pose`` is the centre of the rear axle on the ground.

    Positive ``steer`` turns left (yaw grows when driving forward). It stops by itself when no
    command arrives for ``timeout_s``; a command with a non-finite value is a stop."""

    pose: Pose2D
    wheelbase: float = 2.7  # m
    max_steer: float = 0.6  # rad, tire angle
    timeout_s: float = 0.5
    speed: float = 0.0  # m/s along the heading, negative when backing up
    accel: float = 0.0  # m/s², d(speed)/dt
    jerk: float = 0.0  # m/s³, d(accel)/dt
    steer: float = 0.0  # rad
    yaw_rate: float = 0.0  # rad/s
    yaw_accel: float = 0.0  # rad/s²
    target_speed: float = 0.0
    target_steer: float = 0.0
    accel_limit: float = DEFAULT_ACCEL
    steer_rate: float = DEFAULT_STEER_RATE
    _last_command: float = -math.inf

    def command(
        self,
        speed: float,
        steer: float,
        direction: int,
        now: float,
        accel: float = 0.0,
        steer_rate: float = 0.0,
    ) -> None:
        """``speed`` magnitude in m/s (its sign is ignored: ``direction`` +1 drives forward,
        -1 backward, 0 stands still); ``accel`` and ``steer_rate`` limit how fast the car
        gets there (0 = the car's defaults)."""
        self._last_command = now
        if not all(math.isfinite(v) for v in (speed, steer, accel, steer_rate)):
            self.target_speed = 0.0
            return
        self.target_speed = direction * min(abs(speed), MAX_SPEED)
        self.target_steer = _clamp(steer, -self.max_steer, self.max_steer)
        self.accel_limit = min(abs(accel), MAX_ACCEL) or DEFAULT_ACCEL
        self.steer_rate = min(abs(steer_rate), MAX_STEER_RATE) or DEFAULT_STEER_RATE

    def stop(self, now: float) -> None:
        """Brakes to a standstill; the steering stays where it is."""
        self._last_command = now
        self.target_speed = 0.0

    def step(self, now: float, dt: float) -> None:
        if dt <= 0.0:
            return
        if now - self._last_command > self.timeout_s:
            self.target_speed = 0.0
        turn = self.steer_rate * dt
        self.steer = _clamp(self.target_steer, self.steer - turn, self.steer + turn)
        self._update_speed(dt)
        yaw_rate = self.speed * math.tan(self.steer) / self.wheelbase
        self.yaw_accel = (yaw_rate - self.yaw_rate) / dt
        self.yaw_rate = yaw_rate
        mid_yaw = self.pose.yaw + yaw_rate * dt / 2
        self.pose.x += self.speed * math.cos(mid_yaw) * dt
        self.pose.y += self.speed * math.sin(mid_yaw) * dt
        self.pose.yaw = (self.pose.yaw + yaw_rate * dt + math.pi) % (2 * math.pi) - math.pi

    def _update_speed(self, dt: float) -> None:
        target, speed = self.target_speed, self.speed
        error = target - speed
        speeding_up = target * speed >= 0.0 and abs(target) > abs(speed)
        limit = self.accel_limit if speeding_up else BRAKE
        # Ease off as the target nears (jerk-limited profile), so the car arrives, not creeps.
        wanted = math.copysign(min(limit, math.sqrt(JERK * abs(error))), error)
        jerk_step = JERK * dt
        accel = _clamp(wanted, self.accel - jerk_step, self.accel + jerk_step)
        new_speed = speed + accel * dt
        # Reaching the target ends the manoeuvre: no creeping past it (or past a standstill).
        if error == 0.0 or (target - new_speed) * error <= 0.0:
            new_speed = target
            accel = (new_speed - speed) / dt
        self.jerk = (accel - self.accel) / dt
        self.accel = accel
        self.speed = new_speed

    def active(self, now: float) -> bool:
        """Whether commands are still arriving (the timeout has not expired)."""
        return now - self._last_command <= self.timeout_s
