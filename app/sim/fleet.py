"""Runs simulated robots: one zenoh router that others connect to, one client session
per robot, so each robot is a real, separately-vanishing participant — or, for a light
depot, a few sessions each shared by many robots (app.sim.shared_session)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator

from app.bus.config import DEFAULT_ENDPOINT, BusConfig, connect_endpoints, listen_endpoints
from app.bus.session import BusError, BusSession
from app.sim.kinematics import Pose2D
from app.sim.robot import SimRobot
from app.sim.shared_session import SharedSession

log = logging.getLogger(__name__)

DEFAULT_LIDAR_HZ = 5.0  # the rover's lidar rate (app.sim.rover_sensors.LIDAR_HZ)
DEFAULT_CAMERA_SIZE = (640, 480)  # the rover's camera (app.sim.rover_sensors.CAMERA_SIZE)


def robot_factories(points: int, lidar_hz: float = DEFAULT_LIDAR_HZ,
                    camera_size: tuple[int, int] = DEFAULT_CAMERA_SIZE,
                    ) -> dict[str, Callable[[], SimRobot]]:
    from app.sim.car import SimCar
    from app.sim.humanoid import SimHumanoid
    from app.sim.rover import SimRover

    return {
        "rover": lambda: SimRover("rover-1", points=points, lidar_hz=lidar_hz,
                                  camera_size=camera_size),
        "humanoid": lambda: SimHumanoid("humanoid-1"),
        "car": lambda: SimCar("car-1"),
    }


ROBOT_KINDS = ("rover", "humanoid", "car")
# A depot's mix, repeated: half rovers, a quarter humanoids, a quarter cars.
DEPOT_MIX = ("rover", "humanoid", "rover", "car")
DEPOT_SPACING_M = 25.0  # rovers and humanoids stand on a grid this wide around the datum
DEPOT_ROW = 10  # robots per row of that grid
# A light depot robot ticks and publishes slower than a robot under test: its small topics
# at most at 10 Hz, as a depot's fleet link carries them (a hundred full-rate humanoids would
# need three cores of this machine's two just to simulate).
DEPOT_TICK_HZ = 20.0
DEPOT_MAX_RATE_HZ = 10.0


def depot_places(count: int) -> Iterator[tuple[str, str, int, Pose2D]]:
    """The depot's ``count`` robots in order: (kind, robot id, its number among its kind,
    where it stands). Rovers and humanoids stand on a grid around the shared datum; a car
    drives its own street (its own ``map``) and ignores its place."""
    numbers: dict[str, int] = {}
    for index in range(count):
        kind = DEPOT_MIX[index % len(DEPOT_MIX)]
        number = numbers[kind] = numbers.get(kind, 0) + 1
        row, column = divmod(index, DEPOT_ROW)
        yield kind, f"{kind}-{number}", number, Pose2D(column * DEPOT_SPACING_M,
                                                       row * DEPOT_SPACING_M)


def depot_robots(count: int, heavy: int = 1, points: int = 200_000,
                 lidar_hz: float = DEFAULT_LIDAR_HZ,
                 camera_size: tuple[int, int] = DEFAULT_CAMERA_SIZE) -> list[SimRobot]:
    """``count`` robots of the depot mix, ``rover-1``, ``humanoid-1``, ``rover-2``,
    ``car-1``...: the first ``heavy`` of each kind with their full sensors (lidar cloud,
    cameras), the others with their small topics only. Rovers and humanoids stand apart on
    a grid around the shared datum; each car drives its own street (its own ``map``)."""
    from app.sim.car import SimCar
    from app.sim.humanoid import SimHumanoid
    from app.sim.rover import SimRover

    robots: list[SimRobot] = []
    for kind, robot_id, number, start in depot_places(count):
        full = number <= heavy
        if kind == "rover":
            robots.append(SimRover(robot_id, points=points, lidar_hz=lidar_hz,
                                   camera_size=camera_size, sensors=full, start=start))
        elif kind == "humanoid":
            robots.append(SimHumanoid(robot_id, camera=full, start=start))
        else:
            robots.append(SimCar(robot_id))
        if not full:
            robots[-1].tick_hz, robots[-1].max_rate_hz = DEPOT_TICK_HZ, DEPOT_MAX_RATE_HZ
    return robots


class RobotsUnreachable(BusError):
    """The hub opened, but the robots' sessions could not reach it."""


def _reachable(endpoint: str) -> str:
    """A listen endpoint as a local client can connect to it (wildcards -> loopback)."""
    return endpoint.replace("/0.0.0.0:", "/127.0.0.1:").replace("/[::]:", "/[::1]:")


class SimFleet:
    def __init__(
        self,
        kinds: list[str],
        listen: list[str] | None = None,
        connect: list[str] | None = None,
        points: int = 200_000,
        config_file: str | None = None,
        lidar_hz: float = DEFAULT_LIDAR_HZ,
        camera_size: tuple[int, int] = DEFAULT_CAMERA_SIZE,
        robot_config_file: str | None = None,
        robots: list[SimRobot] | None = None,
        robots_per_session: int = 1,
        tick_hz: float | None = None,
    ) -> None:
        """The robots: one of each of ``kinds``, or ``robots`` as they are given (e.g.
        :func:`depot_robots`). ``robots_per_session`` 1: each robot on a session and thread
        of its own; more: that many share a session and a thread, which ticks them
        ``tick_hz`` times a second (light robots only: app.sim.light_depot)."""
        unknown = [k for k in kinds if k not in ROBOT_KINDS]
        if unknown:
            raise ValueError(f"unknown robot kind(s): {', '.join(unknown)}; "
                             f"choose from {', '.join(ROBOT_KINDS)}")
        factories = robot_factories(points, lidar_hz, camera_size)
        self.robots = robots if robots is not None else [factories[kind]() for kind in kinds]
        self.listen = listen if listen is not None else [DEFAULT_ENDPOINT]
        self.connect = connect or []
        self.config_file = config_file  # the hub's zenoh config; listen/connect override it
        # The robots' client config (TLS CA, user and password for a hub that wants them).
        self.robot_config_file = robot_config_file
        self.hub: BusSession | None = None
        self.shared: list[SharedSession] = []
        if robots_per_session > 1:
            if tick_hz is None:
                raise ValueError("robots sharing a session need a tick rate")
            self.shared = [SharedSession(self.robots[i:i + robots_per_session], tick_hz)
                           for i in range(0, len(self.robots), robots_per_session)]
        self._stopped = threading.Event()

    def start(self) -> None:
        hub_config = BusConfig(mode="router", listen=self.listen, connect=self.connect,
                               config_file=self.config_file)
        self.hub = BusSession(hub_config)
        try:
            robot_config = self.robot_config()
            for shared in self.shared:
                shared.start(robot_config)
                log.info("started %d robots on one session", len(shared.robots))
            if not self.shared:
                for robot in self.robots:
                    robot.start(robot_config)
                    log.info("started %s (%s)", robot.robot_id, robot.model)
        except BusError as exc:
            self.stop()
            raise RobotsUnreachable(f"the simulated robots cannot reach the hub: {exc}"
                                    ) from None
        except BaseException:
            self.stop()
            raise

    def robot_config(self) -> BusConfig:
        """The robots' client sessions: to the endpoints of their config file if it names
        any, else to where the hub listens."""
        if self.robot_config_file:
            own = BusConfig(mode="client", config_file=self.robot_config_file).to_zenoh()
            if connect_endpoints(own):
                return BusConfig(mode="client", config_file=self.robot_config_file)
        targets = [_reachable(e) for e in self.hub_listen()] or self.connect
        return BusConfig(mode="client", connect=targets, config_file=self.robot_config_file)

    def hub_listen(self) -> list[str]:
        """Where the hub listens: the given endpoints, else those of its config file."""
        if self.listen or not self.config_file:
            return list(self.listen)
        return listen_endpoints(BusConfig(mode="router", config_file=self.config_file)
                                .to_zenoh(), "router")

    def stop(self) -> None:
        for shared in self.shared:
            shared.stop()
        if not self.shared:
            for robot in self.robots:
                robot.stop()
        if self.hub is not None:
            self.hub.close()
            self.hub = None
        self._stopped.set()

    def __enter__(self) -> SimFleet:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
