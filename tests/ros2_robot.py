"""A ROS 2 robot on rmw_zenoh, written from rmw_zenoh's design document and source alone (not
from ``app.ros2``): plain zenoh, messages serialised by ``rosbags``. It plays what a robot
started with ``RMW_IMPLEMENTATION=rmw_zenoh_cpp`` puts on the wire.

    python -m tests.ros2_robot --listen tcp/127.0.0.1:PORT [--namespace rover_1] [--domain 0]
    python -m tests.ros2_robot --connect tcp/127.0.0.1:PORT ...

Node ``/<namespace>/base`` publishes ``scan`` (LaserScan, a wall 3 m ahead, 10 Hz),
``points`` (PointCloud2, 2000 points, 2 Hz), ``odom`` (Odometry, 20 Hz) with ``tf``,
``tf_static`` (transient local, once), ``camera/image_raw/compressed`` (CompressedImage,
JPEG, 5 Hz), ``battery`` (BatteryState, 1 Hz), ``diagnostics`` (DiagnosticArray, 1 Hz) and
``markers`` (MarkerArray, 2 Hz: a red pallet cube 2 m ahead labelled ``pallet``), ``imu``
(Imu, 20 Hz: gravity on z, its yaw rate the commanded one), ``detections``
(vision_msgs Detection3DArray, 2 Hz: the pallet, ``pallet`` at 0.93),
serves ``reset`` (std_srvs Trigger: its odometry back to the origin) and ``enable_motors``
(std_srvs SetBool: refused while the base moves), and subscribes to ``cmd_vel`` (Twist;
TwistStamped with ``--stamped``; ``--inputs a,b`` names its velocity inputs instead, as a
twist_mux's): the base drives at the commanded velocity, and stops by itself 0.5 s after
the last command (what twist_mux's timeout does on a real robot); and to ``goal_pose``
(PoseStamped, as Nav2), reporting each goal as ``goal <x> <y> <yaw> <frame>``.
``--custom`` also publishes ``gauge``, a ``fieldstation_test_msgs/msg/Gauge`` (the robot
team's own type, :data:`GAUGE_MSG`), at 5 Hz. ``--bad`` also publishes, on ``scan``, a
truncated sample, one with a wrong encapsulation header and one with the wrong type hash,
every second, and declares a malformed token. It prints ``ready`` once its tokens are
declared, then each Twist heard as ``twist <linear.x> <angular.z> <input>`` and each
service call as ``call <service> <request's data, or ->``; it runs until
its stdin closes. ``--stagger S`` says ``ready`` as soon as it listens, then waits S
seconds before each of its tokens (a robot whose nodes start one by one, or a slow link).
"""

from __future__ import annotations

import argparse
import math
import os
import struct
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import zenoh
import zenoh.ext

DOMAIN = 0
STOP_AFTER_S = 0.5  # no cmd_vel for this long: the base stops
# rmw_zenoh's QoS key chunk: reliability:durability:history,depth:deadline:lifespan:liveliness
# (liveliness_utils.cpp qos_to_keyexpr; a field equal to rmw_zenoh's default is left empty)
QOS_DEPTH_10 = "::,10:,:,:,,"
QOS_TRANSIENT_LOCAL = ":1:,1:,:,:,,"
# (topic under the namespace, ROS type, rate Hz)
PUBLISHED = (  # in the order their tokens are declared: a heavy topic first
    ("points", "sensor_msgs/msg/PointCloud2", 2.0),
    ("scan", "sensor_msgs/msg/LaserScan", 10.0),
    ("odom", "nav_msgs/msg/Odometry", 20.0),
    ("tf", "tf2_msgs/msg/TFMessage", 20.0),
    ("camera/image_raw/compressed", "sensor_msgs/msg/CompressedImage", 5.0),
    ("battery", "sensor_msgs/msg/BatteryState", 1.0),
    ("diagnostics", "diagnostic_msgs/msg/DiagnosticArray", 1.0),
    ("markers", "visualization_msgs/msg/MarkerArray", 2.0),
    ("imu", "sensor_msgs/msg/Imu", 20.0),
    ("detections", "vision_msgs/msg/Detection3DArray", 2.0),
)
BATTERY_PCT = 64.0
# --custom: a message type of the robot team's own package, on ``gauge`` at 5 Hz
GAUGE_TYPE = "fieldstation_test_msgs/msg/Gauge"
GAUGE_MSG = "std_msgs/Header header\nfloat64 level\nstring unit\nint32[] readings\n"
GAUGE_LEVEL = 0.75
# vision_msgs 4.x (ros-perception/vision_msgs, ROS 2), as the robot's detector is built on it
VISION_MSGS = {
    "vision_msgs/msg/ObjectHypothesis": "string class_id\nfloat64 score\n",
    "vision_msgs/msg/ObjectHypothesisWithPose": "vision_msgs/ObjectHypothesis hypothesis\n"
                                                "geometry_msgs/PoseWithCovariance pose\n",
    "vision_msgs/msg/BoundingBox3D": "geometry_msgs/Pose center\ngeometry_msgs/Vector3 size\n",
    "vision_msgs/msg/Detection3D": "std_msgs/Header header\n"
                                   "vision_msgs/ObjectHypothesisWithPose[] results\n"
                                   "vision_msgs/BoundingBox3D bbox\nstring id\n",
    "vision_msgs/msg/Detection3DArray": "std_msgs/Header header\n"
                                        "vision_msgs/Detection3D[] detections\n",
}
GRAVITY = 9.81
# std_srvs: (service, type, its type hash as the token carries it; the Trigger one as robots
# say it, the SetBool one made up: the station takes whatever hash the token names)
SERVICES = (("reset", "std_srvs/srv/Trigger",
             "RIHS01_eeff2cd6fa5ad9d27cdf4dec64818317839b62f212a91e6b5304b634b2062c5f"),
            ("enable_motors", "std_srvs/srv/SetBool", "RIHS01_" + "5e7b" * 16))
SERVICE_TYPES = {  # name rosbags registers -> definition (an empty struct has one uint8)
    "std_srvs/srv/msg/Trigger_Request": "uint8 structure_needs_at_least_one_member\n",
    "std_srvs/srv/msg/Trigger_Response": "bool success\nstring message\n",
    "std_srvs/srv/msg/SetBool_Request": "bool data\n",
    "std_srvs/srv/msg/SetBool_Response": "bool success\nstring message\n",
}


def dds_type(ros_type: str) -> str:
    package, kind, name = ros_type.split("/")
    return f"{package}::{kind}::dds_::{name}_"


def mangle(name: str) -> str:
    return name.replace("/", "%")


class Ros2Robot:
    def __init__(self, session: zenoh.Session, namespace: str, domain: int, bad: bool,
                 stagger_s: float = 0.0, stamped: bool = False,
                 inputs: tuple[str, ...] = ("cmd_vel",), custom: bool = False) -> None:
        from rosbags.typesys import Stores, get_types_from_msg, get_typestore

        self.store = get_typestore(Stores.ROS2_JAZZY)
        for name, text in VISION_MSGS.items():  # its detector's package, as built on it
            self.store.register(get_types_from_msg(text, name))
        self.store.register(get_types_from_msg(GAUGE_MSG, GAUGE_TYPE))
        for name, text in SERVICE_TYPES.items():
            self.store.register(get_types_from_msg(text, name))
        self.custom = custom
        self.session = session
        self.namespace = f"/{namespace}" if namespace else ""  # "": the root namespace
        self.domain = domain
        self.bad = bad
        self.zid = str(session.info.zid())
        self.x = self.y = self.yaw = 0.0
        self.velocity = (0.0, 0.0)
        self.commanded_at = -math.inf
        self.lock = threading.Lock()
        self.tokens: list[Any] = []
        self.seq: dict[str, int] = {}
        self.gid = os.urandom(16)
        self._entity = 0
        self._stagger_s = stagger_s
        self.token("NN", "")
        self.publishers = {topic: self.declare(topic, ros_type, QOS_DEPTH_10)
                           for topic, ros_type, _ in PUBLISHED}
        self.static = self.declare("tf_static", "tf2_msgs/msg/TFMessage", QOS_TRANSIENT_LOCAL)
        if custom:
            self.publishers["gauge"] = self.declare("gauge", GAUGE_TYPE, QOS_DEPTH_10)
        self.cmd_type = "geometry_msgs/msg/TwistStamped" if stamped else "geometry_msgs/msg/Twist"
        self.cmd_subs = []
        for name in inputs:  # twist_mux's inputs, say, when there are several
            self.token("MS", f"{mangle(self.namespace + '/' + name)}/{dds_type(self.cmd_type)}/"
                       f"{self.store.hash_rihs01(self.cmd_type)}/{QOS_DEPTH_10}")
            self.cmd_subs.append(session.declare_subscriber(
                self.data_key(name, self.cmd_type),
                lambda sample, name=name: self.on_twist(sample, name)))
        goal_type = "geometry_msgs/msg/PoseStamped"
        self.token("MS", f"{mangle(self.namespace + '/goal_pose')}/{dds_type(goal_type)}/"
                   f"{self.store.hash_rihs01(goal_type)}/{QOS_DEPTH_10}")
        self.goal_sub = session.declare_subscriber(self.data_key("goal_pose", goal_type),
                                                   self.on_goal)
        self.servers = []
        for name, srv_type, type_hash in SERVICES:  # rmw_service_data.cpp: complete queryables
            self.token("SS", f"{mangle(self.namespace + '/' + name)}/{dds_type(srv_type)}/"
                       f"{type_hash}/{QOS_DEPTH_10}")
            key = f"{self.domain}/{(self.namespace + '/' + name).lstrip('/')}/" \
                  f"{dds_type(srv_type)}/{type_hash}"
            self.servers.append(session.declare_queryable(
                key, lambda query, name=name, srv_type=srv_type: self.on_call(
                    query, name, srv_type), complete=True))
        if bad:
            self.tokens.append(session.liveliness().declare_token(
                f"@ros2_lv/{domain}/{self.zid}/0/99/MP/%/nonsense"))

    def data_key(self, topic: str, ros_type: str) -> str:
        """rmw_zenoh's key of a topic: <domain>/<fully qualified name>/<dds type>/<RIHS01>"""
        name = f"{self.namespace}/{topic}".lstrip("/")
        return f"{self.domain}/{name}/{dds_type(ros_type)}/{self.store.hash_rihs01(ros_type)}"

    def token(self, kind: str, tail: str) -> None:
        if kind != "NN":
            self._entity += 1
        entity = 0 if kind == "NN" else self._entity
        key = (f"@ros2_lv/{self.domain}/{self.zid}/0/{entity}/{kind}/%/"
               f"{mangle(self.namespace or '/')}/base")
        time.sleep(self._stagger_s)
        self.tokens.append(self.session.liveliness().declare_token(
            f"{key}/{tail}" if tail else key))

    def declare(self, topic: str, ros_type: str, qos: str) -> Any:
        key = self.data_key(topic, ros_type)
        self.token("MP", f"{mangle(self.namespace + '/' + topic)}/{dds_type(ros_type)}/"
                   f"{self.store.hash_rihs01(ros_type)}/{qos}")
        if qos == QOS_TRANSIENT_LOCAL:  # rmw_publisher_data.cpp: an AdvancedPublisher, cached
            return zenoh.ext.declare_advanced_publisher(
                self.session, key, cache=zenoh.ext.CacheConfig(1), publisher_detection=True)
        return self.session.declare_publisher(key)

    def attachment(self, topic: str) -> bytes:
        """attachment_helpers.cpp: sequence number, source timestamp (int64 LE), the GID."""
        self.seq[topic] = self.seq.get(topic, 0) + 1
        return struct.pack("<qqB16s", self.seq[topic], time.time_ns(), 16, self.gid)

    def put(self, topic: str, ros_type: str, message: Any, publisher: Any = None) -> None:
        payload = bytes(self.store.serialize_cdr(message, ros_type))
        (publisher or self.publishers[topic]).put(payload, attachment=self.attachment(topic))

    def on_twist(self, sample: zenoh.Sample, name: str) -> None:
        twist = self.store.deserialize_cdr(sample.payload.to_bytes(), self.cmd_type)
        if self.cmd_type.endswith("Stamped"):
            print(f"stamped {twist.header.frame_id}", flush=True)
            twist = twist.twist
        with self.lock:
            self.velocity = (twist.linear.x, twist.angular.z)
            self.commanded_at = time.monotonic()
        print(f"twist {twist.linear.x} {twist.angular.z} {name}", flush=True)

    def on_goal(self, sample: zenoh.Sample) -> None:
        goal = self.store.deserialize_cdr(sample.payload.to_bytes(),
                                          "geometry_msgs/msg/PoseStamped")
        q = goal.pose.orientation
        yaw = 2 * math.atan2(q.z, q.w)
        print(f"goal {goal.pose.position.x} {goal.pose.position.y} {yaw} "
              f"{goal.header.frame_id}", flush=True)

    def on_call(self, query: zenoh.Query, name: str, srv_type: str) -> None:
        kind = srv_type.replace("/srv/", "/srv/msg/")
        request = self.store.deserialize_cdr(query.payload.to_bytes(), f"{kind}_Request")
        data = getattr(request, "data", None)
        print(f"call {name} {'-' if data is None else data}", flush=True)
        with self.lock:
            moving = self.velocity != (0.0, 0.0)
            if name == "reset":
                self.x = self.y = self.yaw = 0.0
        if name == "reset":
            success, said = True, "odometry reset"
        elif moving:
            success, said = False, "the base is moving"
        else:
            success, said = True, f"motors {'on' if data else 'off'}"
        response = self.new(f"{kind}_Response", success=success, message=said)
        # the reply's attachment: the request's sequence number and client GID, a new time
        asked = query.attachment.to_bytes() if query.attachment is not None else b""
        seq, gid = (struct.unpack_from("<q", asked)[0], asked[17:33]) if len(asked) == 33 \
            else (0, bytes(16))
        query.reply(query.key_expr, bytes(self.store.serialize_cdr(response, f"{kind}_Response")),
                    attachment=struct.pack("<qqB16s", seq, time.time_ns(), 16, gid))

    # -- messages --------------------------------------------------------------------------
    def new(self, ros_type: str, **fields: Any) -> Any:
        return self.store.types[ros_type](**fields)

    def header(self, frame: str) -> Any:
        now = time.time_ns()
        stamp = self.new("builtin_interfaces/msg/Time", sec=now // 10**9, nanosec=now % 10**9)
        return self.new("std_msgs/msg/Header", stamp=stamp, frame_id=frame)

    def vector(self, x: float = 0.0, y: float = 0.0, z: float = 0.0) -> Any:
        return self.new("geometry_msgs/msg/Vector3", x=x, y=y, z=z)

    def quaternion(self, yaw: float) -> Any:
        return self.new("geometry_msgs/msg/Quaternion", x=0.0, y=0.0, z=math.sin(yaw / 2),
                        w=math.cos(yaw / 2))

    def transform(self, parent: str, child: str, x: float, y: float, yaw: float) -> Any:
        return self.new("geometry_msgs/msg/TransformStamped", header=self.header(parent),
                        child_frame_id=child, transform=self.new(
                            "geometry_msgs/msg/Transform", translation=self.vector(x, y),
                            rotation=self.quaternion(yaw)))

    def scan(self) -> Any:
        angles = np.linspace(-math.pi / 2, math.pi / 2, 181)
        ranges = (3.0 / np.maximum(np.cos(angles), 0.2)).astype(np.float32)
        return self.new("sensor_msgs/msg/LaserScan", header=self.header("laser"),
                        angle_min=-math.pi / 2, angle_max=math.pi / 2,
                        angle_increment=math.pi / 180, time_increment=0.0, scan_time=0.1,
                        range_min=0.1, range_max=10.0, ranges=ranges,
                        intensities=np.zeros(0, np.float32))

    def points(self) -> Any:
        count = 2000
        xyz = np.zeros((count, 3), np.float32)
        xyz[:, 0] = 4.0
        xyz[:, 1] = np.linspace(-2, 2, count)
        xyz[:, 2] = np.tile(np.linspace(0, 1.5, 20), count // 20)
        field = self.store.types["sensor_msgs/msg/PointField"]
        return self.new("sensor_msgs/msg/PointCloud2", header=self.header("base_link"),
                        height=1, width=count,
                        fields=[field(name=n, offset=4 * i, datatype=7, count=1)
                                for i, n in enumerate("xyz")],
                        is_bigendian=False, point_step=12, row_step=12 * count,
                        data=xyz.view(np.uint8).reshape(-1), is_dense=True)

    def odometry(self) -> Any:
        with self.lock:
            x, y, yaw = self.x, self.y, self.yaw
            linear, angular = self.velocity
        pose = self.new("geometry_msgs/msg/Pose", position=self.new(
            "geometry_msgs/msg/Point", x=x, y=y, z=0.0), orientation=self.quaternion(yaw))
        twist = self.new("geometry_msgs/msg/Twist", linear=self.vector(linear),
                         angular=self.vector(z=angular))
        return self.new("nav_msgs/msg/Odometry", header=self.header("odom"),
                        child_frame_id="base_link",
                        pose=self.new("geometry_msgs/msg/PoseWithCovariance", pose=pose,
                                      covariance=np.zeros(36)),
                        twist=self.new("geometry_msgs/msg/TwistWithCovariance", twist=twist,
                                       covariance=np.zeros(36)))

    def image(self) -> Any:
        import cv2

        frame = np.zeros((120, 160, 3), np.uint8)
        frame[:, :80] = (180, 20, 250)  # BGR: pink left half
        frame[:, 80:] = (90, 200, 20)  # green right half
        _, jpeg = cv2.imencode(".jpg", frame)
        return self.new("sensor_msgs/msg/CompressedImage", header=self.header("camera"),
                        format="jpeg", data=np.frombuffer(jpeg.tobytes(), np.uint8))

    def battery(self) -> Any:
        nan = float("nan")
        return self.new("sensor_msgs/msg/BatteryState", header=self.header("base_link"),
                        voltage=25.1, temperature=nan, current=-1.5, charge=nan, capacity=nan,
                        design_capacity=nan, percentage=BATTERY_PCT / 100, power_supply_status=2,
                        power_supply_health=1, power_supply_technology=2, present=True,
                        cell_voltage=np.zeros(0, np.float32),
                        cell_temperature=np.zeros(0, np.float32), location="base",
                        serial_number="B-17")

    def diagnostics(self) -> Any:
        status = self.new("diagnostic_msgs/msg/DiagnosticStatus", level=b"\x01"[0],
                          name="base: motor", message="drive motor warm (64 °C)",
                          hardware_id="motor-1", values=[])
        return self.new("diagnostic_msgs/msg/DiagnosticArray", header=self.header(""),
                        status=[status])

    def imu(self) -> Any:
        with self.lock:
            yaw = self.yaw
            _, angular = self.velocity
        return self.new("sensor_msgs/msg/Imu", header=self.header("imu"),
                        orientation=self.quaternion(yaw), orientation_covariance=np.zeros(9),
                        angular_velocity=self.vector(z=angular),
                        angular_velocity_covariance=np.zeros(9),
                        linear_acceleration=self.vector(z=GRAVITY),
                        linear_acceleration_covariance=np.zeros(9))

    def detections(self) -> Any:
        pose = self.new("geometry_msgs/msg/Pose", position=self.new(
            "geometry_msgs/msg/Point", x=2.0, y=0.0, z=0.5), orientation=self.quaternion(0.0))
        hypothesis = self.new(
            "vision_msgs/msg/ObjectHypothesisWithPose",
            hypothesis=self.new("vision_msgs/msg/ObjectHypothesis", class_id="pallet",
                                score=0.93),
            pose=self.new("geometry_msgs/msg/PoseWithCovariance", pose=pose,
                          covariance=np.zeros(36)))
        detection = self.new(
            "vision_msgs/msg/Detection3D", header=self.header("base_link"),
            results=[hypothesis], bbox=self.new("vision_msgs/msg/BoundingBox3D", center=pose,
                                                size=self.vector(1.2, 1.0, 1.0)), id="p-1")
        return self.new("vision_msgs/msg/Detection3DArray", header=self.header("base_link"),
                        detections=[detection])

    def markers(self) -> Any:
        color = "std_msgs/msg/ColorRGBA"
        duration = self.new("builtin_interfaces/msg/Duration", sec=1, nanosec=0)

        def marker(kind: int, marker_id: int, z: float, scale: tuple[float, float, float],
                   rgba: tuple[float, float, float, float], text: str = "") -> Any:
            pose = self.new("geometry_msgs/msg/Pose", position=self.new(
                "geometry_msgs/msg/Point", x=2.0, y=0.0, z=z), orientation=self.quaternion(0.0))
            return self.new(
                "visualization_msgs/msg/Marker", header=self.header("base_link"),
                ns="obstacles", id=marker_id, type=kind, action=0, pose=pose,
                scale=self.vector(*scale), color=self.new(color, r=rgba[0], g=rgba[1],
                                                          b=rgba[2], a=rgba[3]),
                lifetime=duration, frame_locked=False, points=[], colors=[],
                texture_resource="", texture=self.new(
                    "sensor_msgs/msg/CompressedImage", header=self.header(""), format="",
                    data=np.zeros(0, np.uint8)),
                uv_coordinates=[], text=text, mesh_resource="",
                mesh_file=self.new("visualization_msgs/msg/MeshFile", filename="",
                                   data=np.zeros(0, np.uint8)),
                mesh_use_embedded_materials=False)

        return self.new("visualization_msgs/msg/MarkerArray", markers=[
            marker(1, 1, 0.5, (1.0, 1.0, 1.0), (1.0, 0.1, 0.1, 1.0)),  # CUBE
            marker(9, 2, 1.4, (0.0, 0.0, 0.3), (1.0, 1.0, 1.0, 1.0), "pallet")])  # TEXT

    # -- the loop --------------------------------------------------------------------------
    def step(self, dt: float) -> None:
        with self.lock:
            if time.monotonic() - self.commanded_at > STOP_AFTER_S:
                self.velocity = (0.0, 0.0)
            linear, angular = self.velocity
            self.yaw += angular * dt
            self.x += linear * math.cos(self.yaw) * dt
            self.y += linear * math.sin(self.yaw) * dt

    def run(self, stop: threading.Event) -> None:
        self.put("tf_static", "tf2_msgs/msg/TFMessage", self.new(
            "tf2_msgs/msg/TFMessage",
            transforms=[self.transform("base_link", "laser", 0.2, 0.0, 0.0)]), self.static)
        producers = {"scan": self.scan, "points": self.points, "odom": self.odometry,
                     "tf": lambda: self.new("tf2_msgs/msg/TFMessage", transforms=[
                         self.transform("odom", "base_link", self.x, self.y, self.yaw)]),
                     "camera/image_raw/compressed": self.image, "battery": self.battery,
                     "diagnostics": self.diagnostics, "markers": self.markers,
                     "imu": self.imu, "detections": self.detections}
        due = dict.fromkeys(producers, 0.0)
        last = time.monotonic()
        bad_due = 0.0
        while not stop.wait(0.02):  # 50 Hz: every topic is at most 20 Hz
            now = time.monotonic()
            self.step(now - last)
            last = now
            for topic, ros_type, rate in PUBLISHED:
                if now >= due[topic]:
                    due[topic] = max(due[topic] + 1 / rate, now)
                    self.put(topic, ros_type, producers[topic]())
            if self.custom and now >= due.get("gauge", 0.0):
                due["gauge"] = max(due.get("gauge", 0.0) + 0.2, now)
                self.put("gauge", GAUGE_TYPE, self.new(
                    GAUGE_TYPE, header=self.header("base_link"), level=GAUGE_LEVEL,
                    unit="bar", readings=np.array([1, 2, 3], np.int32)))
            if self.bad and now >= bad_due:
                bad_due = now + 1.0
                self.put_bad()

    def put_bad(self) -> None:
        good = bytes(self.store.serialize_cdr(self.scan(), "sensor_msgs/msg/LaserScan"))
        scan = self.publishers["scan"]
        scan.put(good[:30], attachment=self.attachment("scan"))  # truncated
        scan.put(b"\x07\x07\x00\x00" + good[4:], attachment=self.attachment("scan"))
        wrong_hash = self.data_key("scan", "sensor_msgs/msg/LaserScan").rsplit("/", 1)[0] + \
            "/RIHS01_" + "0" * 64
        self.session.put(wrong_hash, good, attachment=self.attachment("scan"))

    def close(self) -> None:
        for token in self.tokens:
            token.undeclare()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--listen")
    where.add_argument("--connect")
    parser.add_argument("--namespace", default="rover_1")
    parser.add_argument("--domain", type=int, default=DOMAIN)
    parser.add_argument("--bad", action="store_true")
    parser.add_argument("--stagger", type=float, default=0.0, metavar="S")
    parser.add_argument("--stamped", action="store_true")
    parser.add_argument("--inputs", default="cmd_vel", metavar="NAME[,NAME...]")
    parser.add_argument("--custom", action="store_true")
    args = parser.parse_args()
    config = zenoh.Config()
    config.insert_json5("mode", '"peer"')
    config.insert_json5("scouting/multicast/enabled", "false")
    if args.listen:
        config.insert_json5("listen/endpoints", f'["{args.listen}"]')
    else:
        config.insert_json5("connect/endpoints", f'["{args.connect}"]')
    # as rmw_zenoh's default session config: a transient-local publisher's cache needs it
    config.insert_json5("timestamping/enabled", "true")
    stop = threading.Event()
    with zenoh.open(config) as session:
        if args.stagger:  # up, listening, its nodes to come one by one
            print("ready", flush=True)
        robot = Ros2Robot(session, args.namespace, args.domain, args.bad, args.stagger,
                          args.stamped, tuple(args.inputs.split(",")), args.custom)
        if not args.stagger:
            print("ready", flush=True)

        def until_stdin_closes() -> None:
            sys.stdin.read()
            stop.set()

        threading.Thread(target=until_stdin_closes, daemon=True).start()
        try:
            robot.run(stop)
        finally:
            robot.close()
    return 0


class Ros2RobotProcess:
    """The robot in a process of its own: ``twists`` are the Twists it heard, in order."""

    def __init__(self, listen: str, namespace: str = "rover_1", bad: bool = False,
                 stagger_s: float = 0.0, domain: int = DOMAIN, stamped: bool = False,
                 inputs: tuple[str, ...] = ("cmd_vel",), custom: bool = False) -> None:
        self.command = [sys.executable, "-m", "tests.ros2_robot", "--listen", listen,
                        "--namespace", namespace, "--stagger", str(stagger_s),
                        "--domain", str(domain), "--inputs", ",".join(inputs)] + \
            (["--stamped"] if stamped else []) + (["--custom"] if custom else [])
        self.command += ["--bad"] if bad else []
        self.twists: list[tuple[float, float]] = []
        self.inputs_heard: list[str] = []  # the input each Twist came on, in order
        self.goals: list[tuple[float, float, float, str]] = []
        self.calls: list[tuple[str, str]] = []  # (service, its request's data or "-")
        self.stamped_frames: list[str] = []  # --stamped: each TwistStamped's frame
        self.process: subprocess.Popen[str] | None = None
        self._log = tempfile.TemporaryFile("w+")  # noqa: SIM115
        self._ready = threading.Event()

    def start(self, timeout_s: float = 20.0) -> Ros2RobotProcess:
        self.process = subprocess.Popen(
            self.command, cwd=Path(__file__).resolve().parents[1], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=self._log, text=True)
        threading.Thread(target=self._read, daemon=True).start()
        if not self._ready.wait(timeout_s):
            self._log.seek(0)
            why = self._log.read()[-2000:]
            self.stop()
            raise RuntimeError(f"ROS 2 robot did not start: {why}")
        return self

    def _read(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        for line in self.process.stdout:
            if line.strip() == "ready":
                self._ready.set()
            elif line.startswith("twist "):
                _, linear, angular, name = line.split()
                self.twists.append((float(linear), float(angular)))
                self.inputs_heard.append(name)
            elif line.startswith("stamped "):
                self.stamped_frames.append(line.split()[1])
            elif line.startswith("goal "):
                _, x, y, yaw, frame = line.split()
                self.goals.append((float(x), float(y), float(yaw), frame))
            elif line.startswith("call "):
                _, service, data = line.split()
                self.calls.append((service, data))

    def stop(self, timeout_s: float = 10.0) -> None:
        process = self.process
        if process is None:
            return
        if process.poll() is None:
            try:
                process.stdin.close()  # type: ignore[union-attr]
                process.wait(timeout_s)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout_s)
        self._log.close()

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)

    def __enter__(self) -> Ros2RobotProcess:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()


if __name__ == "__main__":
    sys.exit(main())
