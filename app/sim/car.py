"""A simulated car of the autoware family: a kinematic bicycle driven by
``traffic_simulator_msgs.VehicleCommand`` on a street with NPC traffic and a signalled
crosswalk, reported as ``traffic_simulator_msgs.EntityStatus`` per entity.

Frames: these autoware types have no header, so they carry no frame and the catalog lists
one (PROTOCOL.md "Keys"). Entity poses are in the street's map frame ``map`` (x east,
y north, app.sim.street), twists and accelerations in the entity's body frame; the traffic
light states name signals of that map (``map``); a VehicleCommand drives the car's own
``base_link`` (its rear-axle centre on the ground, where its pose is).
"""

from __future__ import annotations

import functools
import math
import time
from typing import Any, Protocol

from app.bus.keys import DEFAULT_ROOT
from app.codec.decode import DecodedMessage
from app.codec.fields import enum_value
from app.sim.bicycle import Bicycle
from app.sim.kinematics import Pose2D
from app.sim.robot import SimRobot
from app.sim.street import EGO_CAR, Aspect, Body, NpcVehicle, Pedestrian, Street

ENTITY_STATUS = "autoware.traffic_simulator_msgs.EntityStatus"
ENTITY_STATUSES = "autoware.simulation_api_schema.UpdateEntityStatusRequest"
TRAFFIC_LIGHTS = "autoware.simulation_api_schema.UpdateTrafficLightsRequest"
VEHICLE_COMMAND = "autoware.traffic_simulator_msgs.VehicleCommand"
MAP_FRAME = "map"
BASE_FRAME = "base_link"

EGO_RATE_HZ = 20.0
NPC_RATE_HZ = 10.0
LIGHTS_RATE_HZ = 2.0
VEHICLE_SIGNAL_ID = 101  # the road's signal at the crosswalk
PEDESTRIAN_SIGNAL_ID = 102  # the crosswalk's pedestrian signal

FORWARD_GEARS = frozenset({"drive", "low", "low2"} | {f"drive{n}" for n in range(2, 19)})
REVERSE_GEARS = frozenset({"reverse", "reverse2"})


class Moving(Protocol):
    pose: Pose2D
    speed: float
    accel: float
    jerk: float
    yaw_rate: float
    yaw_accel: float


def gear_direction(gear: str | int) -> int:
    """+1 for the drive and low gears, -1 for reverse; park, neutral, none and gears this
    schema does not know hold the car still."""
    if gear in FORWARD_GEARS:
        return 1
    return -1 if gear in REVERSE_GEARS else 0


def motion_fields(name: str, body: Body, moving: Moving, action: str, sim_time: float) -> dict:
    """The fields both EntityStatus types share; twist and accel are in the body frame."""
    pose = moving.pose
    qx, qy, qz, qw = pose.quaternion()
    return {
        "type": {"type": body.kind},
        "subtype": {"value": body.subtype},
        "time": sim_time,
        "name": name,
        "actionStatus": {
            "currentAction": action,
            "twist": {"linear": {"x": moving.speed}, "angular": {"z": moving.yaw_rate}},
            "accel": {
                "linear": {"x": moving.accel, "y": moving.speed * moving.yaw_rate},
                "angular": {"z": moving.yaw_accel},
            },
            "linearJerk": moving.jerk,
        },
        "pose": {
            "position": {"x": pose.x, "y": pose.y, "z": 0.0},
            "orientation": {"x": qx, "y": qy, "z": qz, "w": qw},
        },
    }


def entity_status_fields(
    name: str, body: Body, moving: Moving, action: str, sim_time: float
) -> dict:
    cx, cy, cz = body.box_center()
    return {
        **motion_fields(name, body, moving, action, sim_time),
        "boundingBox": {
            "center": {"x": cx, "y": cy, "z": cz},
            "dimensions": {"x": body.length, "y": body.width, "z": body.height},
        },
        "laneletPoseValid": False,  # the simulated street has no lanelet map
    }


def signal_fields(signal_id: int, aspect: Aspect) -> dict:
    light = {"color": aspect.color, "shape": "circle", "status": aspect.status,
             "confidence": 1.0}
    return {"id": signal_id, "trafficLightStatus": [light]}


def drive(car: Bicycle, command: Any, now: float) -> None:
    """Applies a VehicleCommand reader to the car; a non-finite value in it is a stop."""
    ackermann = command.ackermannControlCommand
    lateral, longitudinal = ackermann.lateral, ackermann.longitudinal
    values = (lateral.steeringTireAngle, lateral.steeringTireRotationRate,
              longitudinal.speed, longitudinal.acceleration, longitudinal.jerk)
    if not all(math.isfinite(v) for v in values):
        car.stop(now)
        return
    car.command(
        speed=longitudinal.speed,
        steer=lateral.steeringTireAngle,
        direction=gear_direction(enum_value(command.gearCommand.command)),
        now=now,
        accel=longitudinal.acceleration,
        steer_rate=lateral.steeringTireRotationRate,
    )


class SimCar(SimRobot):
    """The ego car (EntityStatus named after the robot id) and the street's NPCs, each on
    ``entities/<name>``, all of them together on ``entity_status``, the crosswalk's signals on
    ``traffic_lights``; it drives by VehicleCommand on ``vehicle_command``."""

    model = "sim-car"
    families = ("autoware",)

    def __init__(self, robot_id: str, name: str = "Sim car", root: str = DEFAULT_ROOT) -> None:
        super().__init__(robot_id, name, root)
        self.car = Bicycle(Pose2D())
        self.street = Street()  # tests may shorten street.signals before start()
        self._t0 = 0.0  # monotonic time of the simulation's start

    def setup(self) -> None:
        self._t0 = time.monotonic()
        self.add_topic(f"entities/{self.robot_id}", ENTITY_STATUS, EGO_RATE_HZ, self._ego_status,
                       MAP_FRAME)
        for npc in self._npcs():
            self.add_topic(f"entities/{npc.name}", ENTITY_STATUS, NPC_RATE_HZ,
                           functools.partial(self._npc_status, npc), MAP_FRAME)
        self.add_topic("entity_status", ENTITY_STATUSES, NPC_RATE_HZ, self._all_statuses,
                       MAP_FRAME)
        self.add_topic("traffic_lights", TRAFFIC_LIGHTS, LIGHTS_RATE_HZ, self._traffic_lights,
                       MAP_FRAME)
        self.add_command("vehicle_command", VEHICLE_COMMAND, self._on_command, BASE_FRAME)

    def step(self, now: float, dt: float) -> None:
        self.car.step(now, dt)
        self.street.step(now - self._t0, dt)

    def _ego_action(self, now: float) -> str:
        return "teleop" if self.car.active(now) else "idle"

    def _npcs(self) -> list[NpcVehicle | Pedestrian]:
        return [*self.street.vehicles, *self.street.pedestrians]

    def _ego_status(self, now: float) -> Any:
        return self.new(ENTITY_STATUS, **entity_status_fields(
            self.robot_id, EGO_CAR, self.car, self._ego_action(now), now - self._t0))

    def _npc_status(self, npc: NpcVehicle | Pedestrian, now: float) -> Any:
        return self.new(ENTITY_STATUS, **entity_status_fields(
            npc.name, npc.body, npc.motion, npc.motion.action, now - self._t0))

    def _all_statuses(self, now: float) -> Any:
        sim_time = now - self._t0
        statuses = [
            motion_fields(self.robot_id, EGO_CAR, self.car, self._ego_action(now), sim_time)
        ]
        statuses += [
            motion_fields(npc.name, npc.body, npc.motion, npc.motion.action, sim_time)
            for npc in self._npcs()
        ]
        return self.new(ENTITY_STATUSES, status=statuses, npcLogicStarted=True,
                        overwriteEgoStatus=False)

    def _traffic_lights(self, now: float) -> Any:
        t = now - self._t0
        signals = self.street.signals
        return self.new(TRAFFIC_LIGHTS, states=[
            signal_fields(VEHICLE_SIGNAL_ID, signals.vehicle(t)),
            signal_fields(PEDESTRIAN_SIGNAL_ID, signals.pedestrian(t)),
        ])

    def _on_command(self, message: DecodedMessage) -> None:
        drive(self.car, message.root, time.monotonic())
