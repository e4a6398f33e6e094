"""Hostile CDR: real ROS 2 samples of every translated type (and one translated to its own
struct, app.ros2.generic), damaged, through the station's decode and translation. Each ends
decoded and translated, or as a DecodeError (counted on its topic) — never another
exception, and never a slow one."""

from __future__ import annotations

import random
import struct
import threading
import time
from collections import Counter

import pytest

from app.codec.errors import DecodeError
from app.ros2.cdr import RosTypes
from app.ros2.translate import TRANSLATIONS, Untranslatable, translate, translation_for
from tests.bench.bench_ros2 import cloud_cdr, small_samples
from tests.ros2.test_detections import detections_2d
from tests.ros2_robot import VISION_MSGS, Ros2Robot

SEED = 20261128
ROUNDS = 40  # per type and kind
SLOW_S = 0.05  # CPU seconds no damaged sample of these sizes may cost


class _Producers(Ros2Robot):
    """The test robot's messages, without its session."""

    def __init__(self) -> None:  # only what the producers read
        from rosbags.typesys import Stores, get_types_from_msg, get_typestore

        self.store = get_typestore(Stores.ROS2_JAZZY)
        for name, text in VISION_MSGS.items():
            self.store.register(get_types_from_msg(text, name))
        self.x = self.y = self.yaw = 0.0
        self.velocity = (0.0, 0.0)
        self.lock = threading.Lock()


def corpus(types: RosTypes) -> dict[str, bytes]:
    robot = _Producers()
    samples = small_samples(types)
    samples["sensor_msgs/msg/PointCloud2"] = cloud_cdr(types, 64)[0]
    for name, message in (("sensor_msgs/msg/CompressedImage", robot.image()),
                          ("sensor_msgs/msg/BatteryState", robot.battery()),
                          ("diagnostic_msgs/msg/DiagnosticArray", robot.diagnostics()),
                          ("visualization_msgs/msg/MarkerArray", robot.markers()),
                          ("sensor_msgs/msg/Imu", robot.imu()),  # its own struct
                          ("vision_msgs/msg/Detection3DArray", robot.detections()),
                          ("vision_msgs/msg/Detection2DArray", detections_2d(types))):
        samples[name] = types.encode(name, message)
    return samples


def damaged(rng: random.Random, data: bytes, kind: str) -> bytes:
    out = bytearray(data)
    if kind == "truncate":
        return bytes(out[: rng.randrange(len(out))])
    if kind == "bitflip":
        for _ in range(rng.randint(1, 4)):
            position = rng.randrange(len(out))
            out[position] ^= 1 << rng.randrange(8)
        return bytes(out)
    if kind == "length":  # a 4-byte word (a sequence or string length) made huge or odd
        offset = 4 + 4 * rng.randrange((len(out) - 4) // 4)
        value = rng.choice((0xFFFFFFFF, 0x7FFFFFFF, 0x10000000, len(out), len(out) * 8, 0))
        out[offset:offset + 4] = struct.pack("<I", value)
        return bytes(out)
    if kind == "header":
        out[:4] = rng.choice((b"\x00\x02\x00\x00", b"\x01\x00\x00\x00", b"\xff\xff\x00\x00",
                              b"\x00\x00\x00\x00"))
        return bytes(out)
    if kind == "random":
        return b"\x00\x01\x00\x00" + rng.randbytes(rng.randrange(0, 256))
    raise ValueError(kind)


KINDS = ("truncate", "bitflip", "length", "header", "random")


def outcome(types: RosTypes, name: str, payload: bytes) -> str:
    try:
        message = types.decode(name, payload)
    except DecodeError as exc:
        return type(exc).__name__
    translation = translation_for(name, "/topic", types)
    assert translation is not None
    try:
        translate(translation, name, message, "rover_1")
    except Untranslatable:
        return "Untranslatable"
    return "translated"


@pytest.mark.slow
def test_damaged_cdr_of_every_translated_type_decodes_or_is_a_decode_error() -> None:
    types = RosTypes()
    samples = corpus(types)
    assert {n for n in TRANSLATIONS if n not in samples} <= {
        "sensor_msgs/msg/Image", "sensor_msgs/msg/CameraInfo", "sensor_msgs/msg/NavSatFix",
        "geometry_msgs/msg/PoseStamped", "geometry_msgs/msg/PoseArray", "nav_msgs/msg/Path",
        "nav_msgs/msg/OccupancyGrid", "visualization_msgs/msg/Marker"}
    rng = random.Random(SEED)
    counts: dict[str, Counter[str]] = {kind: Counter() for kind in KINDS}
    slowest = (0.0, "")
    for name, data in samples.items():
        assert outcome(types, name, data) == "translated", name  # the corpus is sound
        for kind in KINDS:
            for _ in range(ROUNDS):
                payload = damaged(rng, data, kind)
                started = time.thread_time()  # not the wall: other processes share the CPU
                counts[kind][outcome(types, name, payload)] += 1
                slowest = max(slowest, (time.thread_time() - started, f"{name} {kind}"))
    print(counts, slowest)
    assert slowest[0] < SLOW_S, slowest
    for kind in ("truncate", "length", "header", "random"):
        assert counts[kind]["MalformedMessage"] > 0, (kind, counts[kind])
    assert counts["bitflip"]["translated"] > 0  # damage that still decodes is taken too


def test_an_unknown_type_a_wrong_hash_and_a_huge_sample_are_refused() -> None:
    types = RosTypes()
    odometry = corpus(types)["nav_msgs/msg/Odometry"]
    with pytest.raises(DecodeError) as unknown:
        types.decode("fieldstation_test_msgs/msg/Nothing", odometry)
    assert unknown.value.kind == "type"
    with pytest.raises(DecodeError) as mismatch:
        types.check_hash("nav_msgs/msg/Odometry", "RIHS01_" + "0" * 64)
    assert mismatch.value.kind == "type hash"
    with pytest.raises(DecodeError) as oversized:
        types.decode("nav_msgs/msg/Odometry", b"\x00\x01\x00\x00" + bytes(5 * 2**20))
    assert oversized.value.kind == "oversized"
