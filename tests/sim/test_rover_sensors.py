"""The rover's sensor topics over a real zenoh session on loopback, checked the way a user
would notice: clouds and images of the right size, boxes on the things drawn, skeletons on
the people, and frames that chain up consistently."""

from __future__ import annotations

import math
import socket
import time
from collections import defaultdict
from collections.abc import Callable

import cv2
import numpy as np
import pytest

from app.bus.config import BusConfig
from app.bus.session import BusSession
from app.bus.subscription import RawSample, Subscription
from app.codec.decode import DecodedMessage, decode
from app.convert.isaac import image_to_numpy, point_cloud_to_numpy, point_intensities_to_numpy
from app.sim.kinematics import Pose2D, Unicycle
from app.sim.robot import SimRobot
from app.sim.rover_lidar import Lidar
from app.sim.rover_sensors import RoverSensors
from app.sim.scene import SKELETON_JOINTS, SyntheticScene

ROBOT = "rover-test"
SPEED = 0.4  # m/s, the test rover drives a gentle arc
TURN = 0.05  # rad/s
COUNTS = {"lidar/points": 6, "camera/image": 12, "camera/compressed": 12,
          "camera/detections": 12, "camera/skeletons": 12, "lidar/detections": 12, "tf": 24,
          "scene": 4, "camera/calibration": 1}  # 4 scenes: a path of > 1.5 s (> 10 points)


class SensorRover(SimRobot):
    """Just enough of a rover to carry RoverSensors: it drives a constant arc."""

    model = "sensor-test"
    families = ("isaac", "foxglove")

    def __init__(self, points: int) -> None:
        super().__init__(ROBOT, "Sensor test rover")
        self.points = points
        self.base = Unicycle(Pose2D())
        self.sensors: RoverSensors | None = None

    def setup(self) -> None:
        self.scene = SyntheticScene()
        self.sensors = RoverSensors(self.scene, self.points)
        self.sensors.register(self, lambda: self.base.pose)

    def step(self, now: float, dt: float) -> None:
        self.base.command(SPEED, TURN, now)
        self.base.step(now, dt)


def free_endpoint() -> str:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return f"tcp/127.0.0.1:{sock.getsockname()[1]}"


def record(points: int, wanted: dict[str, int], timeout: float = 30.0,
           enough: Callable[[dict[str, list[RawSample]]], bool] = lambda _samples: True,
           ) -> tuple[SensorRover, dict[str, list[RawSample]]]:
    """Runs a SensorRover behind a router and records what an app session receives, until
    ``wanted`` counts have come and ``enough`` says so (a loaded machine's late ticks pair
    fewer topics)."""
    endpoint = free_endpoint()
    hub = BusSession(BusConfig(mode="router", listen=[endpoint]))
    robot = SensorRover(points)
    app: BusSession | None = None
    samples: dict[str, list[RawSample]] = defaultdict(list)
    try:
        robot.start(BusConfig(mode="client", connect=[endpoint]))
        app = BusSession(BusConfig(mode="peer", connect=[endpoint]))
        subscription = Subscription(app, f"fleet/{ROBOT}/**", depth=1024)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            time.sleep(0.1)
            for sample in subscription.take():
                samples[sample.key.split(f"fleet/{ROBOT}/", 1)[1]].append(sample)
            if all(len(samples[key]) >= count for key, count in wanted.items()) and \
                    enough(samples):
                break
    finally:
        robot.stop()
        if app is not None:
            app.close()
        hub.close()
    return robot, dict(samples)


@pytest.fixture(scope="module")
def recording() -> tuple[SensorRover, dict[str, list[RawSample]]]:
    return record(200_000, COUNTS, enough=lambda samples: len(chained(samples)) >= 6)


def decoded(sample: RawSample) -> DecodedMessage:
    return decode(sample.encoding, sample.payload, sample.attachment)


def stamp(sample: RawSample) -> float:
    return sample.source_time if sample.source_time is not None else sample.arrival


def same_tick(samples: list[RawSample], at: RawSample) -> RawSample | None:
    """The sample of another topic of the same rate produced in the same robot tick as
    ``at`` (the robot stamps each sample with the time of its tick), or None when it did not
    arrive (telemetry may be dropped under congestion)."""
    return next((s for s in samples if stamp(s) == stamp(at)), None)


def pairs(samples: dict[str, list[RawSample]], key: str,
          other: str) -> list[tuple[RawSample, RawSample]]:
    """(``key`` sample, ``other`` sample) of each tick where both arrived, oldest first."""
    found = [(sample, same_tick(samples[other], sample)) for sample in samples[key]]
    return [(sample, partner) for sample, partner in found if partner is not None]


def tf_at(samples: list[RawSample], at: RawSample) -> RawSample | None:
    """The tf (20 Hz) of the tick of ``at`` or of a tick within 20 ms of it (after a late
    tick the 20 Hz and 10 Hz topics need not share ticks any more; in 20 ms the rover moves
    < 1 cm), or None."""
    best = min(samples, key=lambda s: abs(stamp(s) - stamp(at)))
    return best if abs(stamp(best) - stamp(at)) <= 0.02 else None


def chained(samples: dict[str, list[RawSample]]) -> list[tuple[RawSample, RawSample, RawSample]]:
    """(lidar detections, camera detections, tf) of each tick where all three came."""
    if not samples.get("tf"):
        return []
    found = [(lidar, camera, tf_at(samples["tf"], lidar))
             for lidar, camera in pairs(samples, "lidar/detections", "camera/detections")]
    return [(lidar, camera, tf) for lidar, camera, tf in found if tf is not None]


def rect(box) -> tuple[float, float, float, float]:
    return box.min.x, box.min.y, box.max.x, box.max.y  # rows, cols (isaac convention)


# -- without zenoh ------------------------------------------------------------------------------
def test_scene_is_deterministic_and_moves_as_it_reports() -> None:
    scene = SyntheticScene(seed=3)
    again = SyntheticScene(seed=3).objects(12.0)
    now = scene.objects(12.0)
    assert [o.position for o in now] == [o.position for o in again]
    assert [o.position for o in SyntheticScene(seed=4).objects(12.0)] != [o.position for o in now]
    later = scene.objects(12.1)
    kinds = {o.kind for o in now}
    assert {"person", "box", "pallet", "vehicle"} <= kinds
    for before, after in zip(now, later, strict=True):
        moved = np.subtract(after.position, before.position) / 0.1
        assert moved == pytest.approx(before.velocity, abs=0.05), before.id
        speed = math.hypot(*before.velocity[:2])
        if speed > 0:  # heading follows the direction of travel
            heading = math.atan2(before.velocity[1], before.velocity[0])
            assert math.cos(heading - before.yaw) == pytest.approx(1.0, abs=1e-6)
        if before.kind == "person":
            assert 0.6 < speed < 1.6
            assert before.joints is not None and before.joints.shape == (len(SKELETON_JOINTS), 3)
            assert before.joints[:, 2].min() < 0.2 and before.joints[:, 2].max() > 1.5
            assert not np.allclose(before.joints - before.position,
                                   after.joints - after.position)  # limbs swing


def test_every_part_lies_inside_its_objects_box() -> None:
    """What the camera draws and the lidar hits stays inside the reported 3D box."""
    scene = SyntheticScene()
    for t in np.linspace(0, 6, 25):
        for obj in scene.objects(float(t)):
            c, s = math.cos(obj.yaw), math.sin(obj.yaw)
            to_object = np.array([[c, s, 0], [-s, c, 0], [0, 0, 1]])
            for part in obj.parts:
                corners = np.array([[a, b, h] for a in (-.5, .5) for b in (-.5, .5)
                                    for h in (-.5, .5)]) * part.size
                world = corners @ part.rotation.T + part.center
                local = (world - obj.position) @ to_object.T
                assert np.all(np.abs(local) <= np.array(obj.size) / 2 + 1e-6), obj.id


def test_lidar_points_lie_on_the_ground_or_on_objects() -> None:
    scene = SyntheticScene()
    pose = Pose2D(1.0, -0.5, 0.3)
    lidar = Lidar(50_000)
    scan = lidar.scan(pose, scene.objects(5.0))
    assert scan.positions.shape == (50_000, 3) and scan.intensities.shape == (50_000, 1)
    assert scan.object_points > 100
    ground = scan.positions[scan.object_points:]
    assert np.allclose(ground[:, 2], -lidar.mount[2])
    # Object points, back in the world, fall inside the bounding box of some object.
    c, s = math.cos(pose.yaw), math.sin(pose.yaw)
    hits = scan.positions[: scan.object_points].astype(float) + lidar.mount
    world = np.column_stack([pose.x + c * hits[:, 0] - s * hits[:, 1],
                             pose.y + s * hits[:, 0] + c * hits[:, 1], hits[:, 2]])
    inside = np.zeros(len(world), bool)
    for obj in scene.objects(5.0):
        local = world - obj.position
        co, so = math.cos(obj.yaw), math.sin(obj.yaw)
        along = np.column_stack([co * local[:, 0] + so * local[:, 1],
                                 -so * local[:, 0] + co * local[:, 1], local[:, 2]])
        inside |= np.all(np.abs(along) <= np.array(obj.size) / 2 + 0.05, axis=1)
    assert inside.all()


# -- over zenoh ---------------------------------------------------------------------------------
def test_every_topic_arrives_at_about_its_rate(recording) -> None:
    _, samples = recording
    for key, count in COUNTS.items():
        assert len(samples.get(key, [])) >= count, key
    for key, rate in {"lidar/points": 5, "camera/image": 10, "camera/detections": 10,
                      "tf": 20}.items():
        stamps = [stamp(s) for s in samples[key]]  # the robot's ticks, not their delivery
        measured = (len(stamps) - 1) / (stamps[-1] - stamps[0])
        assert 0.6 * rate < measured < 1.4 * rate, (key, measured)


def test_cloud_arrives_with_all_points(recording) -> None:
    _, samples = recording
    for sample in samples["lidar/points"][-3:]:
        message = decoded(sample)
        assert message.type_name == "isaac.PointCloudProto"
        assert list(message.root.positions.sizes) == [200_000, 3]
        xyz = point_cloud_to_numpy(message)
        assert xyz.shape == (200_000, 3) and xyz.dtype == np.float32
        assert np.isfinite(xyz).all()
        intensities = point_intensities_to_numpy(message)
        assert intensities is not None and intensities.shape == (200_000,)
        above_ground = xyz[:, 2] > -0.7
        assert 100 < above_ground.sum() < 100_000  # some returns are objects, most ground


def test_raw_and_jpeg_images_show_the_same_view(recording) -> None:
    _, samples = recording
    raw_sample, jpeg_sample = pairs(samples, "camera/image", "camera/compressed")[-1]
    message = decoded(raw_sample)
    assert message.root.rows == 480 and message.root.cols == 640
    assert message.root.channels == 3 and message.root.elementType == "uint8"
    assert len(message.buffers[message.root.dataBufferIndex]) == 480 * 640 * 3
    raw = image_to_numpy(message)
    jpeg_message = decoded(jpeg_sample).root
    assert jpeg_message.format == "jpeg" and jpeg_message.frameId == "camera"
    assert jpeg_message.timestamp.sec > 1_600_000_000
    bgr = cv2.imdecode(np.frombuffer(jpeg_message.data, np.uint8), cv2.IMREAD_COLOR)
    assert bgr.shape == (480, 640, 3)
    difference = np.abs(bgr[:, :, ::-1].astype(int) - raw.astype(int)).mean()
    assert difference < 4  # only JPEG loss: one rendering serves both topics


def test_detections_box_what_was_drawn(recording) -> None:
    robot, samples = recording
    assert robot.sensors is not None
    background = robot.sensors.camera.background.astype(int)
    checked = 0
    for detection_sample, image_sample in pairs(samples, "camera/detections",
                                                "camera/image")[-5:]:
        detections = decoded(detection_sample).root
        image = image_to_numpy(decoded(image_sample))
        assert len(detections.predictions) == len(detections.boundingBoxes) > 0
        for prediction, box in zip(detections.predictions, detections.boundingBoxes,
                                   strict=True):
            assert prediction.label in {"person", "box", "pallet", "vehicle"}
            assert 0 < prediction.confidence <= 1
            r0, c0, r1, c1 = rect(box)
            assert 0 <= r0 < r1 <= 479 and 0 <= c0 < c1 <= 639
            region = (slice(int(r0), int(r1) + 1), slice(int(c0), int(c1) + 1))
            changed = np.abs(image[region].astype(int) - background[region]).max(axis=2) > 12
            # A box cut by the image edge may hold only a limb; a whole one holds the object.
            whole = r0 > 0 and c0 > 0 and r1 < 479 and c1 < 639
            assert changed.mean() > (0.3 if whole else 0.08), (rect(box), changed.mean())
            checked += 1
    assert checked >= 5


def test_skeletons_sit_on_the_people(recording) -> None:
    _, samples = recording
    seen = 0
    for skeleton_sample, boxes_sample in pairs(samples, "camera/skeletons",
                                               "camera/detections")[-5:]:
        skeletons = decoded(skeleton_sample).root.skeletons
        boxes = decoded(boxes_sample).root
        people = [rect(b) for p, b in zip(boxes.predictions, boxes.boundingBoxes, strict=True)
                  if p.label == "person"]
        assert len(skeletons) <= len(people)
        for skeleton in skeletons:
            assert skeleton.label.label == "person"
            assert skeleton.graph.nodeCount == len(skeleton.joints) == len(SKELETON_JOINTS)
            assert all(0 <= e.source < 14 and 0 <= e.target < 14 for e in skeleton.graph.edges)
            visible = [(j.position.x, j.position.y) for j in skeleton.joints
                       if j.label.confidence > 0]
            assert visible
            assert any(all(r0 - 2 <= r <= r1 + 2 and c0 - 2 <= c <= c1 + 2
                           for r, c in visible) for r0, c0, r1, c1 in people)
            seen += 1
    assert seen > 0


def quaternion_matrix(q) -> np.ndarray:
    x, y, z, w = q.x, q.y, q.z, q.w
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ])


def transforms(sample: RawSample) -> dict[str, tuple[str, np.ndarray, np.ndarray]]:
    """child -> (parent, rotation, translation) with p_parent = rotation @ p_child + t."""
    frames = {}
    for t in decoded(sample).root.transforms:
        translation = np.array([t.translation.x, t.translation.y, t.translation.z])
        frames[t.childFrameId] = (t.parentFrameId, quaternion_matrix(t.rotation), translation)
    return frames


def box_corners(box, pose) -> np.ndarray:
    """The 8 corners, in the detection's frame, of a BoxProto placed at a Pose3dProto."""
    rotation = quaternion_matrix(pose.rotation.q)
    lo = np.array([box.min.x, box.min.y, box.min.z])
    hi = np.array([box.max.x, box.max.y, box.max.z])
    local = np.array([[(lo, hi)[i][0], (lo, hi)[j][1], (lo, hi)[m][2]]
                      for i in (0, 1) for j in (0, 1) for m in (0, 1)])
    t = pose.translation
    return local @ rotation.T + np.array([t.x, t.y, t.z])


def test_frames_chain_from_world_to_the_camera_pixels(recording) -> None:
    _, samples = recording
    calibration = decoded(samples["camera/calibration"][-1]).root
    k = np.array(calibration.k).reshape(3, 3)
    assert (calibration.width, calibration.height) == (640, 480)
    scene = decoded(samples["scene"][-1]).root
    cubes = {e.id: e.cubes[0].pose.position for e in scene.entities if e.cubes}
    statics = {key: np.array([p.x, p.y, p.z]) for key, p in cubes.items()
               if key.startswith(("box-", "pallet-"))}
    exact = checked = 0
    for sample, boxes2_sample, tf in chained(samples):
        checked += 1
        objects = decoded(sample).root
        frames = transforms(tf)
        assert frames["base_link"][0] == "world" and frames["camera"][0] == "base_link"
        assert frames["lidar"][0] == "base_link"
        boxes3 = [(p.label, box_corners(b, q)) for p, b, q in
                  zip(objects.predictions, objects.boundingBoxes, objects.poses, strict=True)]
        # world -> base_link: the static objects of the scene overlay are where lidar sees them.
        _, rotation, translation = frames["base_link"]
        for position in statics.values():
            local = rotation.T @ (position - translation)
            assert min(np.linalg.norm(local - c.mean(axis=0)) for _, c in boxes3) < 0.05
        # base_link -> camera -> pixels: a box (one cuboid, nothing else) projects exactly onto
        # its 2D detection; any object's 2D box lies within its projected 3D box.
        boxes2 = decoded(boxes2_sample).root
        rects2 = [(p.label, rect(b)) for p, b in
                  zip(boxes2.predictions, boxes2.boundingBoxes, strict=True)]
        _, rotation, translation = frames["camera"]
        for label, corners in boxes3:
            in_camera = (corners - translation) @ rotation
            if in_camera[:, 2].min() < 1.0:
                continue
            pixels = in_camera @ k.T
            cols, rows = pixels[:, 0] / pixels[:, 2], pixels[:, 1] / pixels[:, 2]
            if cols.min() < 0 or cols.max() > 639 or rows.min() < 0 or rows.max() > 479:
                continue
            projected = np.array([rows.min(), cols.min(), rows.max(), cols.max()])
            if label == "box":
                assert any(other == "box" and np.abs(projected - r).max() < 1.0
                           for other, r in rects2), projected
                exact += 1
            else:
                assert any(other == label and r[0] >= projected[0] - 1 and
                           r[1] >= projected[1] - 1 and r[2] <= projected[2] + 1 and
                           r[3] <= projected[3] + 1 for other, r in rects2), (label, projected)
    assert checked >= 5 and exact >= 5


def test_the_rover_is_reported_where_it_drove(recording) -> None:
    _, samples = recording
    first, last = samples["tf"][0], samples["tf"][-1]
    start, end = transforms(first)["base_link"][2], transforms(last)["base_link"][2]
    travelled = float(np.linalg.norm(end - start))
    assert travelled == pytest.approx(SPEED * (stamp(last) - stamp(first)), rel=0.2)
    path = next(e for e in decoded(samples["scene"][-1]).root.entities if e.id == "rover-path")
    points = path.lines[0].points
    assert len(points) > 10
    tail = np.array([points[-1].x, points[-1].y])
    assert np.linalg.norm(tail - end[:2]) < SPEED * 1.0  # the scene lags the tf by < 1 s


def test_a_million_point_cloud_travels() -> None:
    _, samples = record(1_000_000, {"lidar/points": 2})
    message = decoded(samples["lidar/points"][-1])
    xyz = point_cloud_to_numpy(message)
    assert xyz.shape == (1_000_000, 3)
    assert np.isfinite(xyz).all()
