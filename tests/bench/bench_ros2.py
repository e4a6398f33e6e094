"""ROS 2 samples as the station takes them off the bus, same run:
- a 1M-point PointCloud2 (x, y, z, intensity floats, as a lidar driver sends it) from its
  CDR bytes to the (N, 3) float32 array the 3D view draws (decoded, translated to a foxglove
  PointCloud, decoded as every sample is, converted), against one numpy copy of its bytes;
  and, for what the window sees, the same through the station's subscription (the
  said-again sample counted and routed as every sample is), against the same copy;
- small types (Odometry, TFMessage, a 181-ray LaserScan): our decode (rosbags, with our
  limits and checks) against rosbags' own deserialiser of the same bytes, and the whole way
  to the bytes the station says again (decode and translation) against the same."""

from __future__ import annotations

import math

import numpy as np

from app.bus.config import BusConfig
from app.bus.session import BusSession
from app.bus.subscription import RawSample, Subscription
from app.codec.decode import decode, encoding_for
from app.convert.registry import get_converter
from app.ros2.cdr import RosTypes
from app.ros2.translate import Translation, translate, translation_for
from tests.bench.common import iterations, median, median_time, report

POINTS = 1_000_000
KEY = "fleet/rover_1/points"
CLOUD_TARGET = 1.0
DECODE_TARGET = 1.2
SAID_TARGET = 5.0


def cloud_cdr(types: RosTypes, points: int) -> tuple[bytes, np.ndarray]:
    xyzi = np.random.default_rng(0).normal(size=(points, 4)).astype(np.float32)
    field = [types.message("sensor_msgs/msg/PointField", name=n, offset=4 * i, datatype=7,
                           count=1) for i, n in enumerate("xyzi")]
    message = types.message(
        "sensor_msgs/msg/PointCloud2", header=_header(types, "lidar"), height=1, width=points,
        fields=field, is_bigendian=False, point_step=16, row_step=16 * points,
        data=xyzi.view(np.uint8).reshape(-1), is_dense=True)
    return types.encode("sensor_msgs/msg/PointCloud2", message), xyzi


def _header(types: RosTypes, frame: str) -> object:
    stamp = types.message("builtin_interfaces/msg/Time", sec=1, nanosec=2)
    return types.message("std_msgs/msg/Header", stamp=stamp, frame_id=frame)


def small_samples(types: RosTypes) -> dict[str, bytes]:
    vector = "geometry_msgs/msg/Vector3"
    quaternion = types.message("geometry_msgs/msg/Quaternion", x=0.0, y=0.0, z=0.0, w=1.0)
    pose = types.message("geometry_msgs/msg/Pose", position=types.message(
        "geometry_msgs/msg/Point", x=1.0, y=2.0, z=0.0), orientation=quaternion)
    twist = types.message("geometry_msgs/msg/Twist",
                          linear=types.message(vector, x=0.5, y=0.0, z=0.0),
                          angular=types.message(vector, x=0.0, y=0.0, z=0.1))
    odometry = types.message(
        "nav_msgs/msg/Odometry", header=_header(types, "odom"), child_frame_id="base_link",
        pose=types.message("geometry_msgs/msg/PoseWithCovariance", pose=pose,
                           covariance=np.zeros(36)),
        twist=types.message("geometry_msgs/msg/TwistWithCovariance", twist=twist,
                            covariance=np.zeros(36)))
    transform = types.message(
        "geometry_msgs/msg/TransformStamped", header=_header(types, "odom"),
        child_frame_id="base_link", transform=types.message(
            "geometry_msgs/msg/Transform", translation=types.message(vector, x=1.0, y=0.0,
                                                                     z=0.0),
            rotation=quaternion))
    scan = types.message(
        "sensor_msgs/msg/LaserScan", header=_header(types, "laser"), angle_min=-math.pi / 2,
        angle_max=math.pi / 2, angle_increment=math.pi / 180, time_increment=0.0,
        scan_time=0.1, range_min=0.1, range_max=10.0,
        ranges=np.full(181, 3.0, np.float32), intensities=np.zeros(0, np.float32))
    messages = {"nav_msgs/msg/Odometry": odometry,
                "tf2_msgs/msg/TFMessage": types.message("tf2_msgs/msg/TFMessage",
                                                        transforms=[transform]),
                "sensor_msgs/msg/LaserScan": scan}
    return {name: types.encode(name, message) for name, message in messages.items()}


def _through_the_station(types: RosTypes, payload: bytes, xyzi: np.ndarray,
                         repeats: int) -> float:
    """Median seconds from a PointCloud2's CDR bytes to its points where a panel takes
    them: decoded, translated, handed to the station's subscription (as app.ros2.streams
    does within the station), routed and converted."""
    cloud_type = "sensor_msgs/msg/PointCloud2"
    translation = translation_for(cloud_type, "/points")
    assert translation is not None
    encoding = encoding_for(translation.type_name)
    to_points = get_converter("foxglove.point_cloud")
    seen: list[np.ndarray] = []

    def convert(sample: RawSample) -> None:
        seen[:] = [to_points(decode(sample.encoding, sample.payload, sample.attachment)).xyz]

    with BusSession(BusConfig()) as bus:
        subscription = Subscription(bus, [KEY], route=lambda *_: convert, drain=True)

        def once() -> None:
            ((said, attachment),) = translate(translation, cloud_type,
                                              types.decode(cloud_type, payload), "rover_1")
            subscription.offer(KEY, encoding, said, attachment)

        once()
        assert np.array_equal(seen[0], xyzi[:, :3])
        took = median([median_time(once, repeats) for _ in range(3)])
        subscription.close()
    return took


def run() -> list[str]:
    from rosbags.typesys import Stores, get_typestore

    types = RosTypes()
    store = get_typestore(Stores.ROS2_JAZZY)
    cloud_type = "sensor_msgs/msg/PointCloud2"
    cloud_translation = translation_for(cloud_type, "/points")
    assert cloud_translation is not None
    payload, xyzi = cloud_cdr(types, POINTS)
    encoding = encoding_for(cloud_translation.type_name)
    to_points = get_converter("foxglove.point_cloud")

    def ours() -> np.ndarray:
        ((said, attachment),) = translate(cloud_translation, cloud_type,
                                          types.decode(cloud_type, payload), "rover_1")
        return to_points(decode(encoding, said, attachment)).xyz

    assert np.array_equal(ours(), xyzi[:, :3])
    raw = xyzi.tobytes()
    repeats = 15  # a millisecond each: short mode keeps them all, the medians are steadier
    cloud, copy = [], []
    for _ in range(3):  # interleaved rounds, so load drifts hit both alike
        copy.append(median_time(lambda: np.frombuffer(raw, np.float32).copy(), repeats))
        cloud.append(median_time(ours, repeats))
    lines = [report("ROS 2 PointCloud2 1M points CDR -> numpy (ours / one numpy copy)",
                    median(cloud), median(copy), CLOUD_TARGET),
             report("ROS 2 PointCloud2 1M points CDR -> numpy through the station's "
                    "subscription (ours / one numpy copy)",
                    _through_the_station(types, payload, xyzi, repeats), median(copy))]
    small = small_samples(types)
    rounds = iterations(2000, 50)
    for name, data in small.items():
        translation = translation_for(name, "/x")
        assert translation is not None

        def said(name: str = name, data: bytes = data,
                 translation: Translation = translation) -> object:
            return translate(translation, name, types.decode(name, data), "rover_1")

        def decoded(name: str = name, data: bytes = data) -> object:
            return types.decode(name, data)

        def bare(name: str = name, data: bytes = data) -> object:
            return store.deserialize_cdr(data, name)

        theirs, ours_decoded, ours_said = [], [], []
        for _ in range(3):
            theirs.append(median_time(bare, rounds))
            ours_decoded.append(median_time(decoded, rounds))
            ours_said.append(median_time(said, rounds))
        short = name.rsplit("/", 1)[-1]
        lines.append(report(f"ROS 2 {short} CDR decode (ours / rosbags deserialise)",
                            median(ours_decoded), median(theirs), DECODE_TARGET))
        lines.append(report(f"ROS 2 {short} CDR -> said again as capnp (ours / rosbags "
                            "deserialise)", median(ours_said), median(theirs), SAID_TARGET))
    return lines


if __name__ == "__main__":
    run()
