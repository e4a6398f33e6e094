"""Decode limits per wire type: how large and how deep a type may be, and how much reading
a message may cost.

Small command types get tight limits so a hostile or broken sample costs almost nothing;
bulk sensor types (images, clouds, scans) get room for 1M+ points; everything else gets a
default that fits any telemetry a robot reasonably sends. How much reading a message may
cost follows from its actual size (``read_budget``), not its type's maximum.
"""

from __future__ import annotations

from dataclasses import dataclass

KIB = 1024
MIB = 1024 * KIB


# What one reader of a message may read, in words (Cap'n Proto's traversal limit): a few
# passes over the message's own words, plus room for tiny messages. Reading a field twice
# counts twice, and a list of zero-sized elements counts a word per element, so a message
# whose pointers share objects or whose lists claim millions of empty elements runs out at
# once instead of costing minutes.
READS_PER_WORD = 8
BASE_READS = 1024


def read_budget(payload_bytes: int) -> int:
    return READS_PER_WORD * (payload_bytes // 8) + BASE_READS


@dataclass(frozen=True)
class Limits:
    max_bytes: int
    nesting: int


DEFAULT = Limits(max_bytes=4 * MIB, nesting=16)
SMALL = Limits(max_bytes=64 * KIB, nesting=8)
BULK = Limits(max_bytes=256 * MIB, nesting=16)
# Attachments (isaac transport.Buffers) carry the pixel and point data itself.
ATTACHMENT = Limits(max_bytes=512 * MIB, nesting=4)

FAMILY_DEFAULTS = {
    # Shapes and routes nest lists of lists inside unions inside ops.
    "fleet": Limits(max_bytes=4 * MIB, nesting=24),
}

PER_TYPE: dict[str, Limits] = {
    **dict.fromkeys(
        [
            "fleet.VelTwist",
            "isaac.JoystickStateProto",
            "isaac.Goal2Proto",
            "autoware.traffic_simulator_msgs.VehicleCommand",
            "autoware.autoware_auto_control_msgs.AckermannControlCommand",
            "autoware.autoware_auto_vehicle_msgs.GearCommand",
            "transport.Catalog",
        ],
        SMALL,
    ),
    **dict.fromkeys(
        [
            "isaac.ImageProto",
            "isaac.TensorProto",
            "isaac.PointCloudProto",
            "isaac.FlatscanProto",
            "isaac.RangeScanProto",
            "isaac.HeatmapProto",
            "foxglove.PointCloud",
            "foxglove.CompressedImage",
            "foxglove.CompressedVideo",
            "foxglove.RawImage",
            "foxglove.Grid",
            "foxglove.LaserScan",
            "bow.ImageSamples",
            "bow.AudioSamples",
            "bow.ExteroceptionSample",
            "bow.Recording",
        ],
        BULK,
    ),
}


# Recursive octrees: as deep as Cap'n Proto's own default allows.
PER_TYPE["bow.Workspaces"] = Limits(max_bytes=256 * MIB, nesting=64)
PER_TYPE["bow.Recording"] = Limits(max_bytes=256 * MIB, nesting=64)


def limits_for(type_name: str) -> Limits:
    if type_name in PER_TYPE:
        return PER_TYPE[type_name]
    return FAMILY_DEFAULTS.get(type_name.split(".", 1)[0], DEFAULT)
