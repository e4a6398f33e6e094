"""ROS 2 messages -> the structs our panels read, as Cap'n Proto bytes.

Sensor data becomes the foxglove struct Foxglove's own ROS support makes of it (a
PointCloud2 is a ``foxglove.PointCloud``, a TFMessage ``foxglove.FrameTransforms``); a
battery and diagnostics become fleet ``Uplink`` battery and faults, on the robot's uplink keys,
as a robot of ours says them. So a ROS 2 robot's data enters the station as the samples a
robot of ours would have published, and every panel, recorder and converter reads it
unchanged. Input is a message as ``rosbags`` deserialises it (its big arrays numpy views of
the payload); bad content raises :class:`Untranslatable`. A cloud's points go in the sample's
attachment, copied once, not into the message (schemas/README.md "Point clouds in the
attachment").
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import capnp

from app.codec.buffers import HeldBuffers
from app.codec.registry import registry
from app.ros2 import detections, generic, markers

if TYPE_CHECKING:
    from app.ros2.cdr import RosTypes

# ROS PointField datatypes (sensor_msgs/PointField) -> foxglove NumericType
_NUMERIC = {1: "int8", 2: "uint8", 3: "int16", 4: "uint16", 5: "int32", 6: "uint32",
            7: "float32", 8: "float64"}
# sensor_msgs/NavSatFix position_covariance_type -> foxglove PositionCovarianceType
_COVARIANCE = {0: "unknown", 1: "approximated", 2: "diagonalKnown", 3: "known"}


class Untranslatable(ValueError):
    """The message decoded, but its content makes no foxglove struct (a cloud whose fields
    lie outside its points, a value its field cannot hold)."""


@dataclass(frozen=True)
class Translation:
    type_name: str  # family.Struct, as in an encoding
    # (capnp builder, ROS message) -> the attachment's buffers, if any; or for fleet Uplinks
    # (the message, its robot id) -> each Uplink's filler: one message may say several (a
    # DiagnosticArray's faults)
    fill: Callable[..., Any]
    key: str = ""  # the key under the robot's, when not the topic's own (uplink/battery)

    @property
    def uplink(self) -> bool:
        return self.type_name == FLEET_UPLINK


FLEET_UPLINK = "fleet.Uplink"
# sensor_msgs/DiagnosticStatus level -> fleet FaultSeverity (OK: the fault is cleared)
_SEVERITY = {0: "info", 1: "minor", 2: "major", 3: "minor"}  # OK, WARN, ERROR, STALE
_HEALTHS, _TECHNOLOGIES = 9, 7  # the fleet enums' sizes (a newer ROS value: unknown)


# One translated sample: its payload, and its attachment (a ``transport.Buffers``) or None
Said = tuple[bytes, HeldBuffers | None]


def _bytes_of(array: Any) -> memoryview:
    """A numpy array's bytes as they lie (copied by the caller into the message, or held in
    the attachment until its bytes are asked for)."""
    return memoryview(array).cast("B")


def _time(builder: Any, stamp: Any) -> None:
    builder.sec, builder.nsec = stamp.sec, stamp.nanosec


def _header(builder: Any, header: Any) -> None:
    _time(builder.timestamp, header.stamp)
    builder.frameId = header.frame_id


def _xyz(builder: Any, value: Any) -> None:
    builder.x, builder.y, builder.z = value.x, value.y, value.z


def _pose(builder: Any, pose: Any) -> None:
    _xyz(builder.position, pose.position)
    _xyz(builder.orientation, pose.orientation)
    builder.orientation.w = pose.orientation.w


def point_cloud(builder: Any, msg: Any) -> list[memoryview]:
    """The cloud without its points, which are the attachment's one buffer."""
    if msg.is_bigendian:
        raise Untranslatable("a big-endian PointCloud2 is not drawn")
    if msg.point_step and msg.row_step != msg.width * msg.point_step:
        raise Untranslatable("a PointCloud2 with padded rows is not drawn")
    _header(builder, msg.header)
    builder.pose.orientation.w = 1.0
    builder.pointStride = msg.point_step
    known = [f for f in msg.fields if f.datatype in _NUMERIC and f.count == 1]
    fields = builder.init("fields", len(known))
    for item, field in zip(fields, known, strict=True):
        item.name, item.offset, item.type = field.name, field.offset, _NUMERIC[field.datatype]
    size = msg.width * msg.height * msg.point_step
    if size > len(msg.data):
        raise Untranslatable(f"{msg.width}x{msg.height} points of {msg.point_step} bytes, "
                             f"{len(msg.data)} bytes of data")
    return [_bytes_of(msg.data[:size])]


def laser_scan(builder: Any, msg: Any) -> None:
    _header(builder, msg.header)
    builder.pose.orientation.w = 1.0
    count = len(msg.ranges)
    builder.startAngle = msg.angle_min
    builder.endAngle = msg.angle_min + msg.angle_increment * max(count - 1, 0)
    # the ROS convention: out of [range_min, range_max] (NaN too) is no return
    ranges = msg.ranges.astype("f8")
    ranges[~((ranges >= msg.range_min) & (ranges <= msg.range_max))] = math.inf
    builder.ranges = ranges.tolist()
    builder.intensities = msg.intensities.tolist()


def frame_transforms(builder: Any, msg: Any) -> None:
    items = builder.init("transforms", len(msg.transforms))
    for item, stamped in zip(items, msg.transforms, strict=True):
        _time(item.timestamp, stamped.header.stamp)
        item.parentFrameId, item.childFrameId = stamped.header.frame_id, stamped.child_frame_id
        _xyz(item.translation, stamped.transform.translation)
        _xyz(item.rotation, stamped.transform.rotation)
        item.rotation.w = stamped.transform.rotation.w


def static_transforms(builder: Any, msg: Any) -> None:
    """/tf_static: transforms that hold at any time (stamp 0, as our scene takes them)."""
    frame_transforms(builder, msg)
    for item in builder.transforms:
        item.timestamp.sec, item.timestamp.nsec = 0, 0


def pose_stamped(builder: Any, msg: Any) -> None:
    _header(builder, msg.header)
    _pose(builder.pose, msg.pose)


def odometry(builder: Any, msg: Any) -> None:
    """The robot's pose in the odometry frame (``child_frame_id`` is where it sits)."""
    _header(builder, msg.header)
    _pose(builder.pose, msg.pose.pose)


def pose_array(builder: Any, msg: Any) -> None:
    _header(builder, msg.header)
    for item, pose in zip(builder.init("poses", len(msg.poses)), msg.poses, strict=True):
        _pose(item, pose)


def path(builder: Any, msg: Any) -> None:
    _header(builder, msg.header)
    for item, stamped in zip(builder.init("poses", len(msg.poses)), msg.poses, strict=True):
        _pose(item, stamped.pose)


def compressed_image(builder: Any, msg: Any) -> None:
    _header(builder, msg.header)
    builder.format = msg.format.split(";", 1)[0].strip()  # "jpeg", or "rgb8; jpeg ..."
    builder.data = _bytes_of(msg.data)


def raw_image(builder: Any, msg: Any) -> None:
    if msg.step * msg.height > len(msg.data):
        raise Untranslatable(f"{msg.height} rows of {msg.step} bytes, "
                             f"{len(msg.data)} bytes of data")
    _header(builder, msg.header)
    builder.width, builder.height, builder.step = msg.width, msg.height, msg.step
    builder.encoding = msg.encoding
    builder.data = _bytes_of(msg.data)


def camera_info(builder: Any, msg: Any) -> None:
    _header(builder, msg.header)
    builder.width, builder.height = msg.width, msg.height
    builder.distortionModel = msg.distortion_model
    builder.d, builder.k = msg.d.tolist(), msg.k.tolist()
    builder.r, builder.p = msg.r.tolist(), msg.p.tolist()


def nav_sat_fix(builder: Any, msg: Any) -> None:
    _header(builder, msg.header)
    builder.latitude, builder.longitude = msg.latitude, msg.longitude
    builder.altitude = msg.altitude
    builder.positionCovariance = msg.position_covariance.tolist()
    builder.positionCovarianceType = _COVARIANCE.get(msg.position_covariance_type, "unknown")


def occupancy_grid(builder: Any, msg: Any) -> None:
    info = msg.info
    if info.width * info.height > len(msg.data):
        raise Untranslatable(f"a {info.width}x{info.height} grid with {len(msg.data)} cells")
    _header(builder, msg.header)
    _pose(builder.pose, info.origin)
    builder.columnCount = info.width
    builder.cellSize.x = builder.cellSize.y = info.resolution
    builder.rowStride, builder.cellStride = info.width, 1
    field = builder.init("fields", 1)[0]
    field.name, field.offset, field.type = "occupancy", 0, "int8"
    builder.data = _bytes_of(msg.data[: info.width * info.height])


def battery(msg: Any) -> list[Callable[[Any], None]]:
    def fill(uplink: Any) -> None:
        state = uplink.init("battery")
        percentage = float(msg.percentage)  # 0..1, NaN when not measured
        state.percentage = percentage * 100 if math.isfinite(percentage) else math.nan
        state.voltageV, state.currentA = msg.voltage, msg.current
        state.temperatureC = msg.temperature
        state.status = msg.power_supply_status if msg.power_supply_status <= 4 else 0
        state.health = msg.power_supply_health if msg.power_supply_health < _HEALTHS else 0
        state.technology = msg.power_supply_technology \
            if msg.power_supply_technology < _TECHNOLOGIES else 0

    return [fill]


def diagnostics(msg: Any) -> list[Callable[[Any], None]]:
    """Each status a fault named by its ``name``: raised while not OK, cleared when OK."""
    raised_ms = msg.header.stamp.sec * 1000 + msg.header.stamp.nanosec // 10**6

    def fault(status: Any) -> Callable[[Any], None]:
        def fill(uplink: Any) -> None:
            item = uplink.init("fault")
            level = status.level if isinstance(status.level, int) else int(status.level[0])
            item.code, item.message, item.source = status.name, status.message, \
                status.hardware_id
            item.severity = _SEVERITY.get(level, "major")
            item.active = level != 0
            item.raisedUnixTimeMs = raised_ms or time.time_ns() // 10**6

        return fill

    return [fault(status) for status in msg.status]


TRANSLATIONS: dict[str, Translation] = {
    "sensor_msgs/msg/PointCloud2": Translation("foxglove.PointCloud", point_cloud),
    "sensor_msgs/msg/LaserScan": Translation("foxglove.LaserScan", laser_scan),
    "sensor_msgs/msg/CompressedImage": Translation("foxglove.CompressedImage",
                                                   compressed_image),
    "sensor_msgs/msg/Image": Translation("foxglove.RawImage", raw_image),
    "sensor_msgs/msg/CameraInfo": Translation("foxglove.CameraCalibration", camera_info),
    "sensor_msgs/msg/NavSatFix": Translation("foxglove.LocationFix", nav_sat_fix),
    "tf2_msgs/msg/TFMessage": Translation("foxglove.FrameTransforms", frame_transforms),
    "geometry_msgs/msg/PoseStamped": Translation("foxglove.PoseInFrame", pose_stamped),
    "geometry_msgs/msg/PoseArray": Translation("foxglove.PosesInFrame", pose_array),
    "nav_msgs/msg/Odometry": Translation("foxglove.PoseInFrame", odometry),
    "nav_msgs/msg/Path": Translation("foxglove.PosesInFrame", path),
    "nav_msgs/msg/OccupancyGrid": Translation("foxglove.Grid", occupancy_grid),
    "visualization_msgs/msg/MarkerArray": Translation("foxglove.SceneUpdate",
                                                      markers.marker_array),
    "visualization_msgs/msg/Marker": Translation("foxglove.SceneUpdate", markers.marker),
    "vision_msgs/msg/Detection3DArray": Translation("foxglove.SceneUpdate",
                                                    detections.detections_3d),
    "vision_msgs/msg/Detection2DArray": Translation("foxglove.ImageAnnotations",
                                                    detections.detections_2d),
    "sensor_msgs/msg/BatteryState": Translation(FLEET_UPLINK, battery, "uplink/battery"),
    "diagnostic_msgs/msg/DiagnosticArray": Translation(FLEET_UPLINK, diagnostics,
                                                       "uplink/fault"),
}


def _stamp_ms(msg: Any) -> int:
    """The message's header stamp in unix ms; 0 when it has none or left it unset."""
    header = getattr(msg, "header", None)
    return header.stamp.sec * 1000 + header.stamp.nanosec // 10**6 if header is not None else 0


STATIC_TRANSFORMS = Translation("foxglove.FrameTransforms", static_transforms)


# The graph's own plumbing, which every node publishes: no robot's data
INFRASTRUCTURE = frozenset({"/parameter_events"})


def translation_for(ros_type: str, topic: str, types: RosTypes | None = None
                    ) -> Translation | None:
    """How a topic of ``ros_type`` named ``topic`` (``/rover_1/tf_static``) is translated:
    to what our panels draw, else (given the ``types`` that define it) to its own struct
    (app.ros2.generic: the inspector and plots read it); None when it is not."""
    if ros_type == "tf2_msgs/msg/TFMessage" and topic.rsplit("/", 1)[-1] == "tf_static":
        return STATIC_TRANSFORMS
    known = TRANSLATIONS.get(ros_type)
    if known is not None or types is None or topic in INFRASTRUCTURE or \
            not types.knows(ros_type):
        return known
    fielddefs = types.fielddefs
    generic.ensure_struct(fielddefs, ros_type)
    return Translation(generic.type_name(ros_type), generic.filler(fielddefs, ros_type))


def translate(translation: Translation, ros_type: str, msg: Any, robot_id: str
              ) -> list[Said]:
    """The Cap'n Proto bytes of ``msg`` as ``translation`` says, each with its attachment
    (one sample, or for fleet Uplinks one per thing the message says)."""
    struct = registry().struct(translation.type_name)
    try:
        if not translation.uplink:
            builder = struct.new_message()
            buffers = translation.fill(builder, msg)
            return [(builder.to_bytes(), HeldBuffers(buffers) if buffers else None)]
        sent_ms = _stamp_ms(msg) or time.time_ns() // 10**6  # a log's own time in playback
        samples: list[Said] = []
        for fill in translation.fill(msg):
            uplink = struct.new_message(robotId=robot_id, unixTimeMs=sent_ms)
            fill(uplink)
            samples.append((uplink.to_bytes(), None))
        return samples
    except (capnp.KjException, ValueError, TypeError, OverflowError, AttributeError) as exc:
        if isinstance(exc, Untranslatable):
            raise
        raise Untranslatable(f"{ros_type} does not make a {translation.type_name}: "
                             f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
                             ) from None
