"""A light depot: ``fieldstation sim --fleet N --light``, a thousand robots on one machine.

The depot's mix and names (app.sim.fleet), each robot with its own liveliness token and
catalog, but only the small topics a depot's fleet link carries, at fleet-link rates, on
the keys and types of the full robots: a rover's status, motion, battery and faults; a
humanoid's exteroception (its position) and interoception (its battery); a car's own
EntityStatus. No body, street, map or sensors, and no per-robot physics beyond a
unicycle (a bicycle for cars) that patrols a circle around the robot's place.

Commands: a robot stops patrolling at its first command and from then on obeys the
operator. A rover takes ``teleop`` and ``estop`` (an engaged e-stop holds it still and
refuses teleop; a released one does not restart it), a humanoid the locomotion of
``bow.MotorSample`` (not its hand), a car ``VehicleCommand``; each stops by itself 0.5 s
after its last motion command (PROTOCOL.md). Missions, goals, settings and services are
not served; the catalogs list only what is obeyed."""

from __future__ import annotations

import math
import time
from functools import partial
from typing import Any

import capnp
import numpy as np

from app.bus.keys import DEFAULT_ROOT, command_key, robot_key, uplink_key
from app.codec.decode import DecodedMessage
from app.sim.bicycle import Bicycle
from app.sim.car import (
    BASE_FRAME,
    ENTITY_STATUS,
    MAP_FRAME,
    VEHICLE_COMMAND,
    drive,
    entity_status_fields,
)
from app.sim.fleet import depot_places
from app.sim.humanoid import (
    MAX_SPEED,
    MAX_TURN_RATE,
    fill_exteroception,
    fill_interoception,
    motor_locomotion,
)
from app.sim.humanoid_body import BASE_LINK, DEFAULT_POSITIONS, forward_kinematics
from app.sim.humanoid_health import Battery as HumanoidBattery
from app.sim.humanoid_health import FaultSchedule
from app.sim.kinematics import Pose2D, Unicycle
from app.sim.robot import TELEOP_TIMEOUT_S, SimRobot
from app.sim.rover import (
    COMMAND,
    FAULT_PERIOD_S,
    FAULT_REPUBLISH_S,
    UPLINK,
    fill_battery,
    fill_fault,
    fill_motion,
    new_uplink,
)
from app.sim.rover_health import RTK_LOST, FaultCycle, FaultFeed, GnssFix
from app.sim.rover_power import Battery as RoverBattery
from app.sim.street import EGO_CAR

ROBOTS_PER_SESSION = 250
TICK_HZ = 5.0  # each robot's loop: its commands, its motion, its topics due
# Fleet-link rates (a rover's status also goes at once when its mode or e-stop changes).
STATUS_HZ = 1.0
MOTION_HZ = 2.0
BATTERY_HZ = 0.5
EXTEROCEPTION_HZ = 2.0
INTEROCEPTION_HZ = 0.5
ENTITY_HZ = 2.0
# Patrols: a slow circle around the robot's place (a car's in its own map).
PATROL_RADIUS_M = 6.0
ROVER_PATROL_MPS = 0.5
HUMANOID_PATROL_MPS = 0.4
CAR_PATROL_RADIUS_M = 20.0
CAR_PATROL_MPS = 4.0

_STANDING = forward_kinematics(DEFAULT_POSITIONS)  # a light humanoid's body: no gait


def light_depot_robots(count: int, root: str = DEFAULT_ROOT) -> list[SimRobot]:
    """``count`` light robots of the depot mix: ``rover-1``, ``humanoid-1``, ``rover-2``,
    ``car-1``..., standing where the full depot's robots stand."""
    robots: list[SimRobot] = []
    for kind, robot_id, _, place in depot_places(count):
        if kind == "rover":
            robots.append(LightRover(robot_id, place, root))
        elif kind == "humanoid":
            robots.append(LightHumanoid(robot_id, place, root))
        else:
            robots.append(LightCar(robot_id, root))
    return robots


def _unix_ms() -> int:
    return time.time_ns() // 1_000_000


class LightRover(SimRobot):
    model = "sim-rover"
    families = ("fleet",)

    def __init__(self, robot_id: str, place: Pose2D, root: str = DEFAULT_ROOT) -> None:
        super().__init__(robot_id, "Field rover", root)
        booted = time.monotonic()
        self.base = Unicycle(place)
        self.battery = RoverBattery()
        self.faults = FaultFeed(FaultCycle(FAULT_PERIOD_S, robot_id, booted), FAULT_REPUBLISH_S,
                                booted)
        self.gnss = GnssFix(robot_id, booted)
        self.patrolling = True
        self.estop = False
        self.estop_reason = ""
        self.last_seq = 0
        self._boot = booted
        self._now = booted
        self._teleop_at = -math.inf
        self._reported: tuple[str, bool] = ("", False)

    def setup(self) -> None:
        self._status = self._uplink_topic("status", STATUS_HZ, self._produce_status)
        self._uplink_topic("motion", MOTION_HZ, self._produce_motion)
        self._uplink_topic("battery", BATTERY_HZ, self._produce_battery)
        self._uplink_topic("fault", 0.0, self._produce_fault)
        for member in ("teleop", "estop"):
            suffix = command_key(self.robot_id, member, self.root)
            self.add_command(self._suffix(suffix), COMMAND, partial(self._on_command, member))

    def _suffix(self, key: str) -> str:
        return key.removeprefix(robot_key(self.robot_id, self.root) + "/")

    def _uplink_topic(self, member: str, rate_hz: float, produce: Any) -> Any:
        key = uplink_key(self.robot_id, member, self.root)
        return self.add_topic(self._suffix(key), UPLINK, rate_hz, produce)

    def step(self, now: float, dt: float) -> None:
        self._now = now
        if self.patrolling:
            self.base.command(ROVER_PATROL_MPS, ROVER_PATROL_MPS / PATROL_RADIUS_M, now)
        self.base.step(now, dt)
        self.battery.step(now, dt, self.base.linear, self.base.angular)
        self.faults.update(now, _unix_ms())
        if self._signature(now) != self._reported:
            self._status.next_due = now

    def _mode(self, now: float) -> str:
        if now - self._teleop_at <= TELEOP_TIMEOUT_S:
            return "teleop"
        return "auto" if self.patrolling else "idle"

    def _signature(self, now: float) -> tuple[str, bool]:
        return self._mode(now), self.estop

    def _on_command(self, member: str, message: DecodedMessage) -> None:
        command = message.root
        try:
            if command.robotId != self.robot_id or command.which() != member:
                self.rejected_commands += 1
                return
            if member == "estop":
                self._estop(command.estop.engage, command.estop.reason)
            elif self.estop:
                return  # refused: the e-stop holds it
            else:
                twist = command.teleop
                self.patrolling = False
                self.base.command(twist.linearMps, twist.angularRps, self._now)
                self._teleop_at = self._now
            self.last_seq = command.seq
        except capnp.KjException:
            self.rejected_commands += 1

    def _estop(self, engage: bool, reason: str) -> None:
        self.patrolling = False
        self.estop, self.estop_reason = engage, (reason or "operator e-stop") if engage else ""
        if engage:
            self.base.halt()
            self._teleop_at = -math.inf
        self._status.next_due = self._now

    def _produce_status(self, now: float) -> Any:
        self._reported = self._signature(now)
        message, status = new_uplink(self.robot_id, "status")
        status.mode, status.estop, status.estopReason = *self._reported, self.estop_reason
        status.uptimeS = now - self._boot
        status.lastCommandSeq = self.last_seq
        return message

    def _produce_motion(self, now: float) -> Any:
        message, motion = new_uplink(self.robot_id, "motion")
        active = self.faults.cycle.active
        fill_motion(motion, self.base, self.gnss.fix_type(now, "rtk", RTK_LOST in active))
        return message

    def _produce_battery(self, now: float) -> Any:
        message, battery = new_uplink(self.robot_id, "battery")
        fill_battery(battery, self.battery)
        return message

    def _produce_fault(self, now: float) -> Any:
        event = self.faults.next(now)
        if event is None:
            return None
        message, fault = new_uplink(self.robot_id, "fault")
        fill_fault(fault, event)
        return message


class LightHumanoid(SimRobot):
    """Every Transform it sends is of a standing body; only its base moves."""

    model = "sim-humanoid"
    families = ("bow",)

    def __init__(self, robot_id: str, place: Pose2D, root: str = DEFAULT_ROOT) -> None:
        super().__init__(robot_id, "Sim humanoid", root)
        self.base = Unicycle(place, max_linear=MAX_SPEED, max_angular=MAX_TURN_RATE)
        self.battery = HumanoidBattery()
        self.faults = FaultSchedule()
        self.patrolling = True
        self._boot = time.monotonic()
        self._now = self._boot
        self._rng = np.random.default_rng()

    def setup(self) -> None:
        self.add_topic("exteroception", "bow.ExteroceptionSample", EXTEROCEPTION_HZ,
                       self._exteroception, BASE_LINK)
        self.add_topic("interoception", "bow.InteroceptionSample", INTEROCEPTION_HZ,
                       self._interoception, BASE_LINK)
        self.add_command("motor", "bow.MotorSample", self._on_motor, BASE_LINK)

    def step(self, now: float, dt: float) -> None:
        self._now = now
        if self.patrolling:
            self.base.command(HUMANOID_PATROL_MPS, HUMANOID_PATROL_MPS / PATROL_RADIUS_M, now)
        self.base.step(now, dt)
        self.battery.step(dt, abs(self.base.linear) / MAX_SPEED)

    def _on_motor(self, message: DecodedMessage) -> None:
        locomotion = motor_locomotion(message.root)
        if locomotion is not None:
            self.patrolling = False
            self.base.command(*locomotion, self._now)

    def _exteroception(self, now: float) -> Any:
        msg = self.new("bow.ExteroceptionSample")
        fill_exteroception(msg, _STANDING, self.base, 0.0, 0.0, self._rng.normal(size=6))
        return msg

    def _interoception(self, now: float) -> Any:
        msg = self.new("bow.InteroceptionSample")
        fill_interoception(msg, self.battery, self.faults.active(now - self._boot))
        return msg


class LightCar(SimRobot):
    """Its own EntityStatus on ``entities/<robotId>``, no street around it."""

    model = "sim-car"
    families = ("autoware",)

    def __init__(self, robot_id: str, root: str = DEFAULT_ROOT) -> None:
        super().__init__(robot_id, "Sim car", root)
        self.car = Bicycle(Pose2D())
        self.patrolling = True
        self._t0 = time.monotonic()
        self._now = self._t0

    def setup(self) -> None:
        self.add_topic(f"entities/{self.robot_id}", ENTITY_STATUS, ENTITY_HZ, self._ego_status,
                       MAP_FRAME)
        self.add_command("vehicle_command", VEHICLE_COMMAND, self._on_command, BASE_FRAME)

    def step(self, now: float, dt: float) -> None:
        self._now = now
        if self.patrolling:
            steer = math.atan(self.car.wheelbase / CAR_PATROL_RADIUS_M)
            self.car.command(CAR_PATROL_MPS, steer, 1, now)
        self.car.step(now, dt)

    def _on_command(self, message: DecodedMessage) -> None:
        self.patrolling = False
        drive(self.car, message.root, self._now)

    def _action(self, now: float) -> str:
        if self.patrolling:
            return "patrol"
        return "teleop" if self.car.active(now) else "idle"

    def _ego_status(self, now: float) -> Any:
        return self.new(ENTITY_STATUS, **entity_status_fields(
            self.robot_id, EGO_CAR, self.car, self._action(now), now - self._t0))
