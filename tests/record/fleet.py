"""Real samples for recording tests and benchmarks: the simulated fleet's own producers,
stepped without a bus, give the payloads and attachments its robots publish."""

from __future__ import annotations

from dataclasses import dataclass

from app.codec.decode import encoding_for
from app.sim.fleet import robot_factories
from app.sim.robot import TICK_HZ


@dataclass(frozen=True)
class FleetSample:
    key: str
    encoding: str
    payload: bytes
    attachment: bytes | None
    at_s: float  # seconds from the start


def fleet_samples(seconds: float, points: int = 2000, lidar_hz: float = 5.0,
                  camera_size: tuple[int, int] = (64, 48)) -> list[FleetSample]:
    """What the rover, the humanoid and the car publish in ``seconds``, in order, each
    robot's catalog first."""
    robots = [make() for make in robot_factories(points, lidar_hz, camera_size).values()]
    found = []
    for robot in robots:
        robot.setup()
        found.append(FleetSample(robot.key("catalog"), encoding_for("transport.Catalog"),
                                 robot.catalog().to_bytes(), None, 0.0))
    for tick in range(round(seconds * TICK_HZ)):
        now = tick / TICK_HZ
        for robot in robots:
            robot.step(now, 1 / TICK_HZ)
            for topic in robot.topics:
                if not topic.due(now) or (produced := topic.produce(now)) is None:
                    continue
                message, attachment = produced if isinstance(produced, tuple) else (
                    produced, None)
                payload = message if isinstance(message, bytes) else message.to_bytes()
                found.append(FleetSample(topic.key, encoding_for(topic.type_name),
                                         bytes(payload),
                                         None if attachment is None else bytes(attachment),
                                         now))
    return found
