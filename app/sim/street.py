"""The street around the simulated car: a one-way loop road whose NPC vehicles follow each
other (intelligent driver model) and stop at a signalled crosswalk, where pedestrians cross
when their light is green.

Map frame: x east, y north, metres; the car starts at the origin, inside the loop.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from app.sim.kinematics import Pose2D


@dataclass(frozen=True)
class Body:
    """An entity's class and box. Its pose is the rear-axle centre (vehicles) or the body
    centre (pedestrians) on the ground; the box is given relative to that pose."""

    kind: str  # traffic_simulator_msgs.EntityType enumerant
    subtype: str  # traffic_simulator_msgs.EntitySubtype enumerant
    length: float
    width: float
    height: float
    rear_overhang: float  # m of body behind the pose origin

    @property
    def front(self) -> float:
        """m of body ahead of the pose origin."""
        return self.length - self.rear_overhang

    def box_center(self) -> tuple[float, float, float]:
        return (self.length / 2 - self.rear_overhang, 0.0, self.height / 2)


EGO_CAR = Body("ego", "car", 4.5, 1.8, 1.5, 0.9)
CAR = Body("vehicle", "car", 4.4, 1.8, 1.5, 0.9)
TRUCK = Body("vehicle", "truck", 7.5, 2.3, 3.0, 1.6)
BUS = Body("vehicle", "bus", 12.0, 2.5, 3.2, 3.0)
PEDESTRIAN = Body("pedestrian", "pedestrian", 0.5, 0.6, 1.75, 0.25)


@dataclass
class Motion:
    """Where an entity is and how it moves, in the terms EntityStatus reports."""

    pose: Pose2D
    speed: float = 0.0  # m/s along the heading
    accel: float = 0.0  # m/s²
    jerk: float = 0.0  # m/s³
    yaw_rate: float = 0.0  # rad/s
    yaw_accel: float = 0.0  # rad/s²
    action: str = ""

    def advance(self, speed: float, accel: float, yaw_rate: float, dt: float) -> None:
        """Records the new rates after a step of dt seconds (the pose is set by the caller)."""
        self.jerk = (accel - self.accel) / dt
        self.yaw_accel = (yaw_rate - self.yaw_rate) / dt
        self.speed, self.accel, self.yaw_rate = speed, accel, yaw_rate


# -- the road -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class LoopRoad:
    """Centre line of a counter-clockwise rounded rectangle: straights along x and y joined by
    quarter circles. Arc length s starts at the west end of the south straight."""

    half_x: float = 40.0  # half length of the east-west straights
    half_y: float = 15.0  # half length of the north-south straights
    radius: float = 20.0
    half_width: float = 3.5
    _segments: list[tuple[float, float, float, float, float, float]] = field(
        init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        quarter = math.pi / 2 * self.radius
        pieces = [(2 * self.half_x, 0.0), (quarter, 1 / self.radius),
                  (2 * self.half_y, 0.0), (quarter, 1 / self.radius)] * 2
        x, y, yaw, s = -self.half_x, -(self.half_y + self.radius), 0.0, 0.0
        segments = []
        for length, curvature in pieces:
            segments.append((s, length, curvature, x, y, yaw))
            x, y, yaw = _travel(x, y, yaw, curvature, length)
            s += length
        object.__setattr__(self, "_segments", segments)

    @property
    def length(self) -> float:
        start, length, *_ = self._segments[-1]
        return start + length

    @property
    def south_y(self) -> float:
        """y of the south straight's centre line."""
        return -(self.half_y + self.radius)

    def at(self, s: float) -> tuple[float, float, float, float]:
        """(x, y, yaw, curvature) of the centre line at arc length s (wraps around)."""
        s %= self.length
        for start, length, curvature, x, y, yaw in self._segments:
            if s < start + length:
                return (*_travel(x, y, yaw, curvature, s - start), curvature)
        start, _, curvature, x, y, yaw = self._segments[-1]
        return (*_travel(x, y, yaw, curvature, s - start), curvature)


def _travel(
    x: float, y: float, yaw: float, curvature: float, distance: float
) -> tuple[float, float, float]:
    if curvature == 0.0:
        return x + distance * math.cos(yaw), y + distance * math.sin(yaw), yaw
    end_yaw = yaw + distance * curvature
    radius = 1 / curvature
    return (
        x + radius * (math.sin(end_yaw) - math.sin(yaw)),
        y - radius * (math.cos(end_yaw) - math.cos(yaw)),
        end_yaw,
    )


# -- the signals ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Aspect:
    """What one signal shows: TrafficLight.Color and TrafficLight.Status enumerants."""

    color: str
    status: str = "solidOn"


@dataclass(frozen=True)
class SignalPlan:
    """Fixed-time plan of the crosswalk: the road's signal runs green, amber, red; the
    pedestrians get green (then flashing green) only while the road is red, with an all-red
    clearance on either side."""

    green_s: float = 12.0
    amber_s: float = 3.0
    clearance_s: float = 1.5
    walk_s: float = 10.0
    flash_s: float = 3.0

    @property
    def cycle_s(self) -> float:
        return self.green_s + self.amber_s + 2 * self.clearance_s + self.walk_s + self.flash_s

    def vehicle(self, t: float) -> Aspect:
        phase = t % self.cycle_s
        if phase < self.green_s:
            return Aspect("green")
        if phase < self.green_s + self.amber_s:
            return Aspect("amber")
        return Aspect("red")

    def walk_elapsed(self, t: float) -> float | None:
        """Seconds into the pedestrians' steady green, or None outside it."""
        elapsed = t % self.cycle_s - (self.green_s + self.amber_s + self.clearance_s)
        return elapsed if 0.0 <= elapsed < self.walk_s else None

    def pedestrian(self, t: float) -> Aspect:
        if self.walk_elapsed(t) is not None:
            return Aspect("green")
        elapsed = t % self.cycle_s - (self.green_s + self.amber_s + self.clearance_s)
        if self.walk_s <= elapsed < self.walk_s + self.flash_s:
            return Aspect("green", "flashing")
        return Aspect("red")


# -- the traffic ----------------------------------------------------------------------------------

# Intelligent driver model (Treiber): desired time gap, minimum gap, comfortable accel/brake.
IDM_TIME_GAP_S = 1.5
IDM_MIN_GAP_M = 2.0
IDM_ACCEL = 1.5
IDM_BRAKE = 2.0
MAX_BRAKE = 8.0
STOP_LINE_HORIZON_M = 60.0  # vehicles farther than this from the stop line ignore the signal


def idm_accel(speed: float, desired: float, gap: float, closing: float) -> float:
    """Acceleration behind an obstacle ``gap`` metres ahead approached at ``closing`` m/s."""
    wanted_gap = IDM_MIN_GAP_M + max(
        0.0, speed * IDM_TIME_GAP_S + speed * closing / (2 * math.sqrt(IDM_ACCEL * IDM_BRAKE))
    )
    free = 1 - (speed / desired) ** 4
    return IDM_ACCEL * (free - (wanted_gap / max(gap, 0.1)) ** 2)


@dataclass
class NpcVehicle:
    name: str
    body: Body
    s: float  # m along the loop, of the rear axle
    desired_speed: float  # m/s
    motion: Motion = field(default_factory=lambda: Motion(Pose2D(), action="follow_lane"))


@dataclass
class Pedestrian:
    """Waits at one kerb, crosses on a steady green, turns round on the far side."""

    name: str
    body: Body
    near: tuple[float, float]
    far: tuple[float, float]
    reaction_s: float  # how long after the green it steps off the kerb
    motion: Motion = field(init=False)
    crossing: bool = field(init=False, default=False)

    WALK_SPEED = 1.3  # m/s
    WALK_ACCEL = 1.0  # m/s²
    TURN_RATE = 2.0  # rad/s

    def __post_init__(self) -> None:
        heading = math.atan2(self.far[1] - self.near[1], self.far[0] - self.near[0])
        self.motion = Motion(Pose2D(*self.near, heading), action="waiting")

    def step(self, walk_elapsed: float | None, dt: float) -> None:
        pose, motion = self.motion.pose, self.motion
        if not self.crossing:
            heading = math.atan2(self.far[1] - pose.y, self.far[0] - pose.x)
            turn = (heading - pose.yaw + math.pi) % (2 * math.pi) - math.pi
            yaw_rate = math.copysign(min(self.TURN_RATE, abs(turn) / dt), turn)
            pose.yaw = (pose.yaw + yaw_rate * dt + math.pi) % (2 * math.pi) - math.pi
            motion.advance(0.0, 0.0, yaw_rate, dt)
            facing = abs(turn) < 1e-6
            if facing and walk_elapsed is not None and walk_elapsed >= self.reaction_s:
                self.crossing = True
                motion.action = "walk_straight"
            return
        remaining = math.dist((pose.x, pose.y), self.far)
        speed = min(self.WALK_SPEED, motion.speed + self.WALK_ACCEL * dt,
                    math.sqrt(2 * self.WALK_ACCEL * remaining))
        travel = min(speed * dt, remaining)
        pose.x += travel * math.cos(pose.yaw)
        pose.y += travel * math.sin(pose.yaw)
        if travel >= remaining:
            pose.x, pose.y = self.far
            self.near, self.far = self.far, self.near
            self.crossing = False
            motion.action = "waiting"
            speed = 0.0
        motion.advance(speed, (speed - motion.speed) / dt, 0.0, dt)


@dataclass
class Street:
    road: LoopRoad = field(default_factory=LoopRoad)
    signals: SignalPlan = field(default_factory=SignalPlan)
    crosswalk_x: float = 0.0  # on the south straight
    vehicles: list[NpcVehicle] = field(init=False)
    pedestrians: list[Pedestrian] = field(init=False)

    def __post_init__(self) -> None:
        lap = self.road.length
        self.vehicles = [
            NpcVehicle("npc-car", CAR, 0.05 * lap, 7.5),
            NpcVehicle("npc-truck", TRUCK, 0.38 * lap, 7.0),
            NpcVehicle("npc-bus", BUS, 0.71 * lap, 6.5),
        ]
        for vehicle in self.vehicles:
            vehicle.motion.speed = vehicle.desired_speed
            vehicle.motion.yaw_rate = vehicle.desired_speed * self._place(vehicle)
        kerb = self.road.half_width + 1.0
        south = (self.road.south_y - kerb, self.road.south_y + kerb)
        self.pedestrians = [
            Pedestrian("pedestrian-1", PEDESTRIAN, (self.crosswalk_x - 1.0, south[0]),
                       (self.crosswalk_x - 1.0, south[1]), reaction_s=0.4),
            Pedestrian("pedestrian-2", PEDESTRIAN, (self.crosswalk_x + 1.0, south[1]),
                       (self.crosswalk_x + 1.0, south[0]), reaction_s=1.1),
        ]

    @property
    def stop_line_s(self) -> float:
        """Arc length of the stop line, 4 m before the crosswalk's centre line (vehicle
        fronts halt 1 m short of it)."""
        return self.crosswalk_x - 4.0 + self.road.half_x

    def step(self, t: float, dt: float) -> None:
        if dt <= 0.0:
            return
        aspect = self.signals.vehicle(t).color
        accels = [self._accel(v, aspect) for v in self.vehicles]
        for vehicle, accel in zip(self.vehicles, accels, strict=True):
            motion = vehicle.motion
            speed = max(0.0, motion.speed + accel * dt)
            vehicle.s = (vehicle.s + speed * dt) % self.road.length
            curvature = self._place(vehicle)
            motion.advance(speed, (speed - motion.speed) / dt, speed * curvature, dt)
        walk = self.signals.walk_elapsed(t)
        for pedestrian in self.pedestrians:
            pedestrian.step(walk, dt)

    def _place(self, vehicle: NpcVehicle) -> float:
        x, y, yaw, curvature = self.road.at(vehicle.s)
        vehicle.motion.pose = Pose2D(x, y, (yaw + math.pi) % (2 * math.pi) - math.pi)
        return curvature

    def _accel(self, vehicle: NpcVehicle, aspect: str) -> float:
        lap = self.road.length
        speed = vehicle.motion.speed
        front = vehicle.s + vehicle.body.front
        leader = min(
            (v for v in self.vehicles if v is not vehicle),
            key=lambda v: (v.s - vehicle.s) % lap,
        )
        gap = (leader.s - leader.body.rear_overhang - front) % lap
        accel = idm_accel(speed, vehicle.desired_speed, gap, speed - leader.motion.speed)
        action = "follow_lane"
        to_line = (self.stop_line_s - front) % lap
        must_stop = aspect == "red" or (
            aspect == "amber" and speed * speed / (2 * IDM_BRAKE) < to_line
        )
        if must_stop and to_line < STOP_LINE_HORIZON_M:
            # A virtual wall 1 m past the line: IDM's minimum gap halts the front 1 m before it.
            at_line = idm_accel(speed, vehicle.desired_speed, to_line + 1.0, speed)
            if at_line < accel:
                accel, action = at_line, "stop_at_traffic_light"
        vehicle.motion.action = action
        return max(-MAX_BRAKE, accel)
