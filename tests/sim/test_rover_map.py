"""What the simulated rover reports for the map and the 3D view beside its own pose: tracked
objects, its planned path, the field rules it holds, and a lidar rate on request."""

from __future__ import annotations

import math
import time
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

import pytest

from app.bus import catalog as catalog_mod
from app.bus.keys import uplink_key
from app.bus.session import BusSession
from app.bus.subscription import RawSample, Subscription
from app.codec.decode import decode
from app.codec.fields import plain
from app.sim.fleet import DEFAULT_LIDAR_HZ
from app.sim.kinematics import Pose2D, local_from_geodetic
from app.sim.rover import SimRover
from app.sim.rover_map import (
    ALTITUDE_M,
    KEEPOUT,
    PATROL_LOOP,
    SERVICE_TRACK,
    TRACK_RANGE_M,
)
from app.sim.rover_sensors import LIDAR_HZ
from tests.sim.running import one_robot
from tests.sim.test_rover import Offline

ROBOT = "rover-1"
POINTS = 2_000
OBJECTS = uplink_key(ROBOT, "object")
SHAPES = uplink_key(ROBOT, "reportedShape")
DIRECTIVES = f"fleet/{ROBOT}/spatial_directives"


@pytest.fixture
def rover(free_endpoint: str) -> Iterator[SimRover]:
    with one_robot("rover", free_endpoint, points=POINTS) as robot:
        assert isinstance(robot, SimRover)
        yield robot


def local(point: dict[str, Any]) -> tuple[float, float]:
    """Local (x east, y north) of a fleet Pose or GeoPoint2, as plain data."""
    if "latDeg" in point:
        return local_from_geodetic(point["latDeg"], point["lonDeg"])
    return local_from_geodetic(point["lat"], point["lon"])


def record(bus: BusSession, seconds: float) -> dict[str, list[tuple[float, Any]]]:
    """(rover's stamp, decoded root) of every sample on the three keys: the objects' of
    ``seconds``; the shapes' and directives' (0.5 Hz sweeps) until a whole sweep of each has
    come, should a loaded machine's rover send them later (10 s at most)."""
    sub = Subscription(bus, f"fleet/{ROBOT}/**", depth=4096)
    samples: list[RawSample] = []
    start = time.monotonic()
    swept_at = math.inf  # when both sweeps had begun: a second more finishes them

    def slow_ones_in() -> bool:
        return {SHAPES, DIRECTIVES} <= {s.key for s in samples}

    while time.monotonic() < min(max(start + seconds, swept_at + 1.0), start + 10.0):
        samples += [s for s in sub.take() if s.key in (OBJECTS, SHAPES, DIRECTIVES)]
        if swept_at == math.inf and slow_ones_in():
            swept_at = time.monotonic()
        time.sleep(0.05)
    samples = [s for s in samples if s.key != OBJECTS or s.arrival <= start + seconds]
    seen: dict[str, list[tuple[float, Any]]] = defaultdict(list)
    for sample in samples:
        message = decode(sample.encoding, sample.payload)
        stamp = sample.source_time
        seen[sample.key].append((stamp if stamp is not None else sample.received, message))
    return seen


def test_objects_shapes_and_directives_arrive(rover: SimRover, app_bus: BusSession) -> None:
    seen = record(app_bus, 3.2)
    rover_at = (rover.base.pose.x, rover.base.pose.y)  # it stands still: nobody drives it

    # -- objects: fleet.Uplink with one ObjectOp upsert each, geodetic, near the rover -------
    tracks: dict[str, list[tuple[float, dict[str, Any]]]] = defaultdict(list)
    for stamp, message in seen[OBJECTS]:
        assert message.type_name == "fleet.Uplink" and message.root.robotId == ROBOT
        op = plain(message.root.object)
        if "delete" in op:  # only the vehicle's loop leaves the range around the rover
            assert op["delete"] == f"{ROBOT}:vehicle-1"
            continue
        obj = op["upsert"]
        tracks[obj["id"]].append((stamp, obj))
    scene = {obj.id: obj for obj in rover.scene.objects(time.monotonic())}
    assert {f"{ROBOT}:{name}" for name in scene if name != "vehicle-1"} <= set(tracks)
    kinds = {obj["id"]: obj["objectType"] for track in tracks.values() for _, obj in track}
    assert kinds[f"{ROBOT}:person-1"] == "person" and kinds[f"{ROBOT}:box-1"] == "obstacle"
    assert kinds[f"{ROBOT}:pallet-1"] == "equipment"
    assert kinds.get(f"{ROBOT}:vehicle-1", "vehicle") == "vehicle"
    for object_id, track in tracks.items():
        if not object_id.endswith("vehicle-1"):  # it may come or go meanwhile
            assert 5 <= len(track) <= 9, object_id  # ~2 Hz for 3.2 s
        for _, obj in track:
            assert obj["name"] == object_id.split(":", 1)[1] and obj["scope"] == "robot"
            assert obj["location"]["altitudeM"] == ALTITUDE_M
            assert math.dist(local(obj["location"]), rover_at) <= TRACK_RANGE_M + 0.01
            assert obj["expiresUnixTimeMs"] > obj["unixTimeMs"] > 0
            assert obj["radiusM"] > 0.2
    for name in ("person-1", "person-2", "person-3"):
        first, last = tracks[f"{ROBOT}:{name}"][0][1], tracks[f"{ROBOT}:{name}"][-1][1]
        elapsed = (last["unixTimeMs"] - first["unixTimeMs"]) / 1000  # when they were there
        moved = math.dist(local(first["location"]), local(last["location"]))
        speed = last["trajectory"]["speedMps"]
        assert 0.5 < speed < 2.0 and elapsed > 2.0
        # Walking a circle: the chord is a little shorter than the arc.
        assert 0.6 * speed * elapsed < moved <= speed * elapsed + 0.15, name
    box = tracks[f"{ROBOT}:box-1"]
    assert local(box[0][1]["location"]) == local(box[-1][1]["location"])  # boxes stay put
    assert box[-1][1]["trajectory"]["speedMps"] == 0.0

    # -- the planned path: a closed patrol loop without a mission --------------------------
    assert seen[SHAPES]
    for _, message in seen[SHAPES]:
        shape = plain(message.root.reportedShape)["upsert"]
        assert shape["identity"]["id"] == f"{ROBOT}:planned-path"
        assert shape["areaType"] == "plannedPath"
        line = [local(p) for p in shape["data"]["lineString"]]
        assert line[0] == pytest.approx(line[-1])
        assert [p for xy in line for p in xy] == pytest.approx(
            [p for xy in PATROL_LOOP for p in xy], abs=1e-6)

    # -- the field rules: bare SpatialDirectiveOp roots -------------------------------------
    directives = {}
    for _, message in seen[DIRECTIVES]:
        assert message.type_name == "fleet.SpatialDirectiveOp"
        directive = plain(message.root)["upsert"]
        directives[directive["name"]] = directive
    assert set(directives) == {"Pallet store: keep out", "Service track"}
    keepout = directives["Pallet store: keep out"]["spatial"]["shape"]
    assert keepout["areaType"] == "keepout"
    ring = [local(p) for p in keepout["data"]["polygon"]["exterior"]]
    assert len(ring) == len(KEEPOUT) + 1 and ring[0] == pytest.approx(ring[-1])  # closed
    assert all(math.dist(p, rover_at) < 30.0 for p in ring)
    assert keepout["minZM"] == ALTITUDE_M < keepout["maxZM"]
    track = directives["Service track"]
    route = track["spatial"]["route"]
    assert route["areaType"] == "preferred"
    path = route["data"]["path"]
    assert len(path) == len(SERVICE_TRACK)
    assert path[0]["headingDeg"] == pytest.approx(90.0)  # the first leg runs east
    assert track["zoneParameters"] == [{"key": "maxSpeed", "value": {"number": 1.0}}]
    assert len(directives["Service track"]["directiveId"]) == 36  # a UUID

    catalog = catalog_mod.fetch(app_bus, ROBOT, timeout_s=2.0)
    assert catalog is not None
    listed = {t.key: (t.type, t.rate_hz, t.frame_id) for t in catalog.topics}
    assert listed[OBJECTS] == ("fleet.Uplink", 2.0, "")
    assert listed[SHAPES] == ("fleet.Uplink", 0.5, "")
    assert listed[DIRECTIVES] == ("fleet.SpatialDirectiveOp", 0.5, "")


def _objects(sim: Offline) -> list[dict[str, Any]]:
    return sim.seen["object"]


def test_an_object_that_leaves_the_range_is_deleted() -> None:
    sim = Offline(SimRover(ROBOT, points=POINTS))
    sim.run(32.0)  # the vehicle's loop (~29 s) takes it out of range and back
    vehicle = [op for op in _objects(sim)
               if op.get("delete") == f"{ROBOT}:vehicle-1"
               or op.get("upsert", {}).get("id") == f"{ROBOT}:vehicle-1"]
    deletes = [i for i, op in enumerate(vehicle) if "delete" in op]
    assert deletes and len(vehicle) > len(deletes)
    assert all("upsert" in vehicle[i + 1] for i in deletes if i + 1 < len(vehicle))
    assert all("delete" not in vehicle[i - 1] for i in deletes if i > 0)  # deleted once

    sim.rover.base.pose = Pose2D(500.0, 0.0)  # far away: everything is gone
    count = len(_objects(sim))
    sim.run(0.6)
    after = _objects(sim)[count:]
    assert after and all("delete" in op for op in after)
    assert {op["delete"] for op in after} >= {f"{ROBOT}:person-1", f"{ROBOT}:box-1"}
    count = len(_objects(sim))
    sim.run(1.0)
    assert len(_objects(sim)) == count  # nothing tracked, nothing sent


def test_the_planned_path_follows_the_mission() -> None:
    sim = Offline(SimRover(ROBOT, points=POINTS))
    sim.mission("start", [(4.0, 0.0), (4.0, 4.0)])
    sim.run(2.5)
    shape = sim.seen["reportedShape"][-1]["upsert"]
    assert shape["identity"]["name"] == "Planned path: Patrol"
    line = [local(p) for p in shape["data"]["lineString"]]
    here = sim.seen["motion"][-1]["localPose"]
    assert math.dist(line[0], (here["x"], here["y"])) < 1.0  # from the rover (0.5 Hz)...
    assert line[-2:] == [pytest.approx((4.0, 0.0), abs=1e-6), pytest.approx((4.0, 4.0), abs=1e-6)]
    sim.run(12.0)  # ...until it is done: then the patrol loop again
    assert "complete" in sim.statuses()
    last = sim.seen["reportedShape"][-1]["upsert"]
    assert last["identity"]["name"] == "Planned path: patrol loop"
    assert len(last["data"]["lineString"]) == len(PATROL_LOOP)


def test_lidar_rate_on_request(free_endpoint: str, app_bus: BusSession) -> None:
    assert DEFAULT_LIDAR_HZ == LIDAR_HZ
    with one_robot("rover", free_endpoint, points=POINTS, lidar_hz=10.0):
        sub = Subscription(app_bus, f"fleet/{ROBOT}/lidar/points", depth=256)
        deadline = time.monotonic() + 10.0
        stamps: list[float] = []
        while len(stamps) < 25 and time.monotonic() < deadline:
            stamps += [s.source_time or s.received for s in sub.take()]
            time.sleep(0.05)
        catalog = catalog_mod.fetch(app_bus, ROBOT, timeout_s=2.0)
    assert len(stamps) >= 25
    stamps = stamps[-20:]  # the robot's ticks, not their delivery
    assert (len(stamps) - 1) / (stamps[-1] - stamps[0]) == pytest.approx(10.0, rel=0.15)
    assert catalog is not None
    assert {t.key: t.rate_hz for t in catalog.topics}[f"fleet/{ROBOT}/lidar/points"] == 10.0
