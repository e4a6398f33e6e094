"""PROTOCOL.md "Bad input": every hostile or broken sample becomes one typed DecodeError.

Each test runs the real decode path (app.codec.decode.decode) on a crafted sample and
expects the specific error class the subscription counts and shows for that topic.
"""

from __future__ import annotations

import time

import pytest

from app.codec.decode import EAGER_CHECK_BYTES, EAGER_OBJECTS, decode, encoding_for, read_root
from app.codec.errors import (
    DecodeError,
    LimitExceeded,
    MalformedMessage,
    MissingAttachment,
    OversizedMessage,
    UnknownEncoding,
    UnknownType,
)
from app.codec.fields import UNKNOWN_MEMBER, get_path, items_budget, plain
from app.codec.limits import Limits, limits_for
from app.codec.registry import registry
from tests.codec.filler import filled_message, union_members
from tests.codec.wire import (
    BYTE_ELEMENTS,
    COMPOSITE_ELEMENTS,
    Message,
    frame,
    list_pointer,
    struct_pointer,
)

QUICK_S = 0.5  # a hostile sample must be rejected (or accepted) within this


def struct_type(name: str):
    return registry().structs[name]


def single_segment(builder) -> Message:
    return Message(builder.to_bytes())


def new(name: str, words: int = 1 << 16):
    """A builder whose message stays in one segment (so wire.Message can patch it)."""
    return struct_type(name).new_message(num_first_segment_words=words)


# ---------------------------------------------------------------------------------------
# Text (random and mutated bytes of every type: test_fuzz.py)
# ---------------------------------------------------------------------------------------


def test_invalid_utf8_in_text_is_a_malformed_message():
    builder = new("fleet.RobotMessage")
    builder.text = "ABCD"
    payload = bytearray(builder.to_bytes())
    payload[payload.index(b"ABCD")] = 0xFF
    with pytest.raises(MalformedMessage):
        decode(encoding_for("fleet.RobotMessage"), bytes(payload))


def test_out_of_bounds_text_in_a_field_named_schema_is_malformed():
    """isaac.StateProto.schema shares its name with the readers' `schema` attribute; its
    pointer must be checked like any other text."""
    builder = new("isaac.StateProto")
    builder.schema = "x:f64"
    message = single_segment(builder)
    pointer = message.pointer_of(message.root(), struct_type("isaac.StateProto").schema, "schema")
    message.set_word(pointer, list_pointer(1000, 2, 6))  # 1000 words past the end
    with pytest.raises(MalformedMessage):
        decode(encoding_for("isaac.StateProto"), bytes(message))


# ---------------------------------------------------------------------------------------
# Truncated, trailing bytes
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["isaac.Detections3Proto", "fleet.Uplink"])
def test_every_prefix_of_a_real_message_is_malformed(name):
    payload, _, _ = filled_message(name)
    decode(encoding_for(name), payload)  # the whole message is fine
    for length in range(len(payload)):
        with pytest.raises(MalformedMessage):
            decode(encoding_for(name), payload[:length])


@pytest.mark.parametrize("name", ["isaac.Detections3Proto", "fleet.Uplink"])
def test_truncated_segment_with_a_consistent_header_is_malformed(name):
    """The framing agrees with the length, but pointers lead past the end of the segment."""
    payload, _, _ = filled_message(name)
    body = Message(payload).buf[8:]
    for words in range(1, len(body) // 8):
        with pytest.raises(MalformedMessage):
            decode(encoding_for(name), frame(bytes(body[: 8 * words])))


def test_trailing_bytes_are_malformed():
    payload, _, _ = filled_message("fleet.Uplink")
    with pytest.raises(MalformedMessage):
        decode(encoding_for("fleet.Uplink"), payload + bytes(8))


def test_segment_table_claiming_huge_segments_is_malformed_quickly():
    start = time.perf_counter()
    with pytest.raises(MalformedMessage):
        decode(encoding_for("fleet.Uplink"), b"\xff\xff\xff\x7f" + bytes(60))
    with pytest.raises(MalformedMessage):
        decode(encoding_for("fleet.Uplink"), b"\x00\x00\x00\x00\xff\xff\xff\xff" + bytes(64))
    assert time.perf_counter() - start < QUICK_S


# ---------------------------------------------------------------------------------------
# Encoding and type
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "encoding",
    ["text/plain", "application/json", "", "application/capnp;", "application/capnp",
     "application/protobuf;fleet.Uplink", "application/capnp ;fleet.Uplink", "fleet.Uplink"],
)
def test_wrong_encoding_is_unknown_encoding(encoding):
    payload, _, _ = filled_message("fleet.Uplink")
    with pytest.raises(UnknownEncoding):
        decode(encoding, payload)


@pytest.mark.parametrize(
    "type_name",
    ["isaac.NoSuchProto", "fleet", "Uplink", "isaac.ColorCameraProto.ColorSpace",
     "autoware.EntityStatus", "fleet.Uplink.status"],
)
def test_unknown_type_is_unknown_type(type_name):
    """Names no registered struct has — including an enum, a bare family, an autoware name
    without its package and a union member."""
    payload, _, _ = filled_message("fleet.Uplink")
    with pytest.raises(UnknownType):
        decode(encoding_for(type_name), payload)


# ---------------------------------------------------------------------------------------
# Lists that claim more than the message holds
# ---------------------------------------------------------------------------------------


def test_tensor_sizes_claiming_100m_elements_is_malformed_quickly():
    builder = new("isaac.TensorProto")
    builder.sizes = [480, 640, 3]
    builder.dataBufferIndex = 0
    message = single_segment(builder)
    schema = struct_type("isaac.TensorProto").schema
    message.set_list_count(message.pointer_of(message.root(), schema, "sizes"), 100_000_000)
    buffers = struct_type("transport.Buffers").new_message(buffers=[b"pixels"]).to_bytes()

    start = time.perf_counter()
    with pytest.raises(MalformedMessage):
        decode(encoding_for("isaac.TensorProto"), bytes(message), buffers)
    assert time.perf_counter() - start < QUICK_S


def test_point_cloud_data_claiming_100m_bytes_is_malformed_quickly():
    builder = new("foxglove.PointCloud")
    builder.frameId = "lidar"
    builder.data = bytes(range(48))
    message = single_segment(builder)
    schema = struct_type("foxglove.PointCloud").schema
    message.set_list_count(message.pointer_of(message.root(), schema, "data"), 100_000_000)

    start = time.perf_counter()
    with pytest.raises(MalformedMessage):
        decode(encoding_for("foxglove.PointCloud"), bytes(message))
    assert time.perf_counter() - start < QUICK_S


def _amplified_struct_list(type_name: str, path: str, field: str, count: int) -> bytes:
    """A real message whose list of structs ``path.field`` is rewritten to claim ``count``
    elements of zero words each: a few bytes on the wire, ``count`` elements to walk."""
    builder = new(type_name)
    node = builder
    for name in path.split(".") if path else []:
        node = node.init(name)
    node.init(field, 1)
    message = single_segment(builder)
    at, schema = message.follow(struct_type(type_name).schema, path)
    pointer = message.pointer_of(at, schema, field)
    tag, size, _words = message.list_at(pointer)
    assert size == COMPOSITE_ELEMENTS
    message.set_word(pointer, list_pointer((message.word(pointer) >> 2) & 0x3FFFFFFF,
                                           COMPOSITE_ELEMENTS, 0))
    message.set_word(tag, struct_pointer(count, 0, 0))  # tag: count, 0 data, 0 pointers
    return bytes(message)


def test_list_of_100m_empty_structs_is_limit_exceeded_quickly():
    payload = _amplified_struct_list("fleet.Uplink", "capabilities", "services", 100_000_000)
    start = time.perf_counter()
    with pytest.raises(LimitExceeded):
        decode(encoding_for("fleet.Uplink"), payload)
    assert time.perf_counter() - start < QUICK_S


def test_list_of_many_empty_structs_within_the_traversal_limit_is_rejected_quickly():
    """300,000 zero-word ServiceCapability elements in a 128-byte Uplink: under the type's
    traversal limit, so only the decoder's own walk can stop it from costing seconds."""
    payload = _amplified_struct_list("fleet.Uplink", "capabilities", "services", 300_000)
    assert len(payload) < 200
    start = time.perf_counter()
    with pytest.raises(LimitExceeded):
        decode(encoding_for("fleet.Uplink"), payload)
    assert time.perf_counter() - start < QUICK_S


def test_list_of_bytes_read_as_a_list_of_structs_is_limit_exceeded_quickly():
    """A DifferentialTrajectoryPlanProto whose `states` (a List(struct)) is a 120 kB list
    of bytes: legal Cap'n Proto (each byte an element's data section), but 120,000 states of
    every field to show, where an honest sender fits at most a word per state. Found by the
    fuzzer (bytes sent under another type's encoding): showing it cost 4 s."""
    count = 120_000
    body = (struct_pointer(0, 0, 2).to_bytes(8, "little")
            + list_pointer(1, BYTE_ELEMENTS, count).to_bytes(8, "little")
            + bytes(8) + bytes(count))
    payload = frame(body)
    start = time.perf_counter()
    with pytest.raises(LimitExceeded):
        decode(encoding_for("isaac.DifferentialTrajectoryPlanProto"), payload)
    assert time.perf_counter() - start < QUICK_S


def test_a_large_message_expanding_to_too_many_values_is_limit_exceeded_at_decode():
    """The same trick in a message over 128 KiB: made of a few objects, it is walked typed
    at decode like a small one, and refused there at once (not when shown, in seconds)."""
    count = 200_000
    body = (struct_pointer(0, 0, 2).to_bytes(8, "little")
            + list_pointer(1, BYTE_ELEMENTS, count).to_bytes(8, "little")
            + bytes(8) + bytes(count))
    start = time.process_time()
    with pytest.raises(LimitExceeded, match="list of 200000 structs"):
        decode(encoding_for("isaac.DifferentialTrajectoryPlanProto"), frame(body))
    assert time.process_time() - start < QUICK_S


def test_a_large_message_of_many_structs_expanding_to_too_many_values_stops_when_shown():
    """The trick behind a list of 65 honest structs, in a message over 128 KiB: too many
    objects to walk typed at decode, so its types are checked as read, and showing it (echo
    --json, the inspector) stops at the value budget instead of costing ten seconds."""
    count = 200_000
    builder = struct_type("bow.Recording").new_message()
    builder.init("imageSamples", EAGER_OBJECTS + 1)
    builder.init("motorSamples", 1)  # its pointer is turned into the trick below
    message = Message(builder.to_bytes())
    at = message.pointer_of(message.root(), struct_type("bow.Recording").schema,
                            "motorSamples")
    words = (len(message.buf) - 8) // 8
    message.set_word(at, list_pointer(words - at - 1, BYTE_ELEMENTS, count))
    decoded = decode(encoding_for("bow.Recording"), frame(bytes(message.buf[8:]) + bytes(count)))
    assert decoded.size > EAGER_CHECK_BYTES and not decoded.walked
    start = time.process_time()
    with pytest.raises(LimitExceeded, match="too many values"):
        plain(decoded.root, max_items=items_budget(decoded.size))
    assert time.process_time() - start < 3.0


# ---------------------------------------------------------------------------------------
# Nesting and traversal limits
# ---------------------------------------------------------------------------------------


def _octree(depth: int) -> bytes:
    """bow.Workspaces whose octree is a chain ``depth`` nodes deep (valid, just deep)."""
    builder = struct_type("bow.Workspaces").new_message()
    node = builder.init("workspaces", 1)[0]
    for level in range(depth):
        node.depth = level
        if level < depth - 1:
            node = node.init("children", 1)[0]
    return builder.to_bytes()


def test_nesting_deeper_than_the_limit_is_limit_exceeded():
    nesting = limits_for("bow.Workspaces").nesting
    shallow = decode(encoding_for("bow.Workspaces"), _octree(3))
    assert get_path(shallow.root, "workspaces[0].children[0].children[0].depth") == 2
    # Workspaces -> list -> node, then list -> node per level: 2 nesting levels each.
    with pytest.raises(LimitExceeded):
        decode(encoding_for("bow.Workspaces"), _octree(nesting))


def test_pointer_cycle_is_limit_exceeded_quickly():
    """An octree node whose children list is the list that contains it: infinitely deep."""
    schema = struct_type("bow.OctreeNode").schema
    data_words = schema.node.struct.dataWordCount
    pointers = schema.node.struct.pointerCount
    children = schema.fields["children"].proto.slot.offset
    size = data_words + pointers
    # word 0: root -> Workspaces at 1; word 1: its one pointer -> list at 2 (tag) + element.
    words = [0] * (3 + size)
    words[0] = struct_pointer(0, 0, 1)
    words[1] = list_pointer(0, COMPOSITE_ELEMENTS, size)
    words[2] = struct_pointer(1, data_words, pointers)  # tag: one element
    child_pointer = 3 + data_words + children
    words[child_pointer] = list_pointer(2 - (child_pointer + 1), COMPOSITE_ELEMENTS, size)
    payload = frame(b"".join(w.to_bytes(8, "little") for w in words))

    start = time.perf_counter()
    with pytest.raises(LimitExceeded):
        decode(encoding_for("bow.Workspaces"), payload)
    assert time.perf_counter() - start < QUICK_S


def test_many_pointers_to_one_far_text_is_limit_exceeded():
    """A Catalog (64 KiB limit) whose 2000 family names all point at one 20 kB text: 52 kB
    on the wire, 40 MB to read."""
    builder = new("transport.Catalog")
    builder.robotId = "A" * 20_000
    families = builder.init("families", 2000)
    for i in range(len(families)):
        families[i] = "x"
    message = single_segment(builder)
    decode(encoding_for("transport.Catalog"), bytes(message))  # the honest catalog is fine
    schema = struct_type("transport.Catalog").schema
    root = message.root()
    robot_id = message.pointer_of(root, schema, "robotId")
    target, _size, length = message.list_at(robot_id)
    first, _size, count = message.list_at(message.pointer_of(root, schema, "families"))
    for i in range(count):
        index = first + i
        message.set_word(index, list_pointer(target - (index + 1), 2, length))
    payload = bytes(message)
    assert len(payload) < limits_for("transport.Catalog").max_bytes

    start = time.perf_counter()
    with pytest.raises(LimitExceeded):
        decode(encoding_for("transport.Catalog"), payload)
    assert time.perf_counter() - start < QUICK_S


def test_read_root_applies_the_limits_it_is_given():
    uplink = struct_type("fleet.Uplink")
    # capabilities: Uplink -> UiCapabilities -> List(ServiceCapability) -> ... is 4+ deep
    choice = union_members(uplink.schema).index("capabilities")
    payload, _, _ = filled_message("fleet.Uplink", choice)
    assert plain(read_root(uplink, payload, Limits(max_bytes=1 << 20, nesting=16)))
    shallow = read_root(uplink, payload, Limits(max_bytes=1 << 20, nesting=2))
    with pytest.raises(LimitExceeded, match="too deeply-nested"):
        plain(shallow)
    with pytest.raises(OversizedMessage):
        read_root(uplink, payload, Limits(max_bytes=len(payload) - 8, nesting=16))


# ---------------------------------------------------------------------------------------
# Limits never reject an honest sample
# ---------------------------------------------------------------------------------------


def _polygon_with_hole(polygon) -> None:
    exterior = polygon.init("exterior", 4)
    for point, (lon, lat) in zip(exterior, [(0, 0), (0, 1), (1, 1), (1, 0)], strict=True):
        point.lon, point.lat = lon, lat
    hole = polygon.init("holes", 1).init(0, 3)
    for point, (lon, lat) in zip(hole, [(0.2, 0.2), (0.2, 0.4), (0.4, 0.2)], strict=True):
        point.lon, point.lat = lon, lat


def test_command_with_a_keepout_polygon_with_a_hole_decodes():
    """fleet.Command feature upsert of a Shape whose polygon has a hole — a keepout zone
    around an allowed island — is an ordinary command, not a limit violation."""
    builder = struct_type("fleet.Command").new_message()
    builder.robotId = "r1"
    shape = builder.init("feature").init("upsert").init("shape")
    shape.areaType = "keepout"
    _polygon_with_hole(shape.init("data").init("polygon"))
    decoded = decode(encoding_for("fleet.Command"), builder.to_bytes())
    assert get_path(decoded.root, "feature.upsert.shape.data.polygon.holes[0][2].lon") == 0.4


def test_mission_command_over_multipolygons_decodes():
    builder = struct_type("fleet.Command").new_message()
    mission = builder.init("mission")
    mission.action = "start"
    step = mission.init("steps", 1)[0]
    _polygon_with_hole(step.init("feature").init("shape").init("data").init("multiPolygon", 1)[0])
    decoded = decode(encoding_for("fleet.Command"), builder.to_bytes())
    assert plain(decoded.root)["mission"]["action"] == "start"


def test_point_cloud_of_a_million_points_decodes():
    builder = struct_type("foxglove.PointCloud").new_message()
    builder.pointStride = 16
    builder.data = bytes(16 * 1_000_000)
    decoded = decode(encoding_for("foxglove.PointCloud"), builder.to_bytes())
    assert len(decoded.root.data) == 16_000_000


# ---------------------------------------------------------------------------------------
# Oversized
# ---------------------------------------------------------------------------------------


def test_oversized_garbage_is_oversized_not_read():
    """Bytes that would be malformed if read: the size check comes first."""
    limit = limits_for("fleet.Command").max_bytes
    with pytest.raises(OversizedMessage):
        decode(encoding_for("fleet.Command"), b"\xff" * (limit + 8))
    with pytest.raises(MalformedMessage):
        decode(encoding_for("fleet.Command"), b"\xff" * limit)


def test_oversized_valid_message_is_oversized():
    builder = struct_type("transport.Catalog").new_message()
    builder.name = "n" * limits_for("transport.Catalog").max_bytes
    with pytest.raises(OversizedMessage):
        decode(encoding_for("transport.Catalog"), builder.to_bytes())


def test_oversized_is_checked_before_reading_quickly():
    payload = memoryview(bytes(limits_for("fleet.Uplink").max_bytes + 8))
    start = time.perf_counter()
    with pytest.raises(OversizedMessage):
        decode(encoding_for("fleet.Uplink"), payload)
    assert time.perf_counter() - start < QUICK_S


# ---------------------------------------------------------------------------------------
# Isaac attachments
# ---------------------------------------------------------------------------------------


def _image(index: int) -> bytes:
    builder = struct_type("isaac.ImageProto").new_message()
    builder.elementType = "uint8"
    builder.rows, builder.cols, builder.channels = 2, 2, 1
    builder.dataBufferIndex = index
    return builder.to_bytes()


def _buffers(count: int) -> bytes:
    message = struct_type("transport.Buffers").new_message()
    buffers = message.init("buffers", count)
    for i in range(count):
        buffers[i] = bytes([i]) * 4
    return message.to_bytes()


def test_image_with_its_buffer_decodes():
    decoded = decode(encoding_for("isaac.ImageProto"), _image(2), _buffers(3))
    assert decoded.buffer(2) == b"\x02" * 4


@pytest.mark.parametrize("attachment", [None, b""], ids=["none", "empty"])
def test_image_without_attachment_is_missing_attachment(attachment):
    with pytest.raises(MissingAttachment):
        decode(encoding_for("isaac.ImageProto"), _image(0), attachment)


def test_image_with_too_few_buffers_is_missing_attachment():
    with pytest.raises(MissingAttachment):
        decode(encoding_for("isaac.ImageProto"), _image(3), _buffers(3))


def test_nested_image_without_its_buffer_is_missing_attachment():
    builder = struct_type("isaac.ColorCameraProto").new_message()
    builder.init("image").dataBufferIndex = 1
    payload = builder.to_bytes()
    with pytest.raises(MissingAttachment):
        decode(encoding_for("isaac.ColorCameraProto"), payload, _buffers(1))
    decoded = decode(encoding_for("isaac.ColorCameraProto"), payload, _buffers(2))
    assert decoded.buffer(1) == b"\x01" * 4


def test_tensor_in_a_list_without_its_buffer_is_missing_attachment():
    builder = struct_type("isaac.PointCloudProto").new_message()
    builder.init("positions").dataBufferIndex = 0
    builder.init("normals").dataBufferIndex = 5
    with pytest.raises(MissingAttachment):
        decode(encoding_for("isaac.PointCloudProto"), builder.to_bytes(), _buffers(5))


# A Buffers root whose `buffers` pointer is a struct pointer (one data word), not a list.
STRUCT_NOT_LIST = frame(
    struct_pointer(0, 0, 1).to_bytes(8, "little")
    + struct_pointer(0, 1, 0).to_bytes(8, "little")
    + bytes(8)
)


@pytest.mark.parametrize(
    "attachment",
    [
        b"junk",
        b"\x00" * 7,
        _buffers(3)[:-8],
        _buffers(3) + b"\x00" * 8,
        STRUCT_NOT_LIST,
    ],
    ids=["junk", "short", "truncated", "trailing", "struct-not-list"],
)
def test_malformed_attachment_is_malformed(attachment):
    with pytest.raises(MalformedMessage):
        decode(encoding_for("isaac.ImageProto"), _image(0), attachment)


def test_malformed_attachment_is_reported_even_for_types_without_buffers():
    payload, _, _ = filled_message("fleet.Uplink")
    with pytest.raises(MalformedMessage):
        decode(encoding_for("fleet.Uplink"), payload, b"junk")


# ---------------------------------------------------------------------------------------
# Enum values this schema does not know (a newer robot)
# ---------------------------------------------------------------------------------------


def test_unknown_enum_value_is_shown_as_its_number():
    builder = new("fleet.Fault")
    builder.code = "E42"
    builder.severity = "critical"
    message = single_segment(builder)
    message.set_uint16(message.root(), struct_type("fleet.Fault").schema, "severity", 200)

    decoded = decode(encoding_for("fleet.Fault"), bytes(message))

    assert plain(decoded.root)["severity"] == 200
    assert get_path(decoded.root, "severity") == 200
    assert get_path(decoded.root, "code") == "E42"


def test_unknown_enum_value_in_a_nested_struct_is_shown_as_its_number():
    builder = new("fleet.Uplink")
    battery = builder.init("battery")
    battery.percentage = 55.5
    battery.status = "charging"
    battery.health = "good"
    message = single_segment(builder)
    at, schema = message.follow(struct_type("fleet.Uplink").schema, "battery")
    message.set_uint16(at, schema, "status", 77)

    decoded = decode(encoding_for("fleet.Uplink"), bytes(message))

    assert get_path(decoded.root, "battery.status") == 77
    assert get_path(decoded.root, "battery.health") == "good"
    shown = plain(decoded.root)["battery"]
    assert (shown["status"], shown["health"], shown["percentage"]) == (77, "good", 55.5)


def test_unknown_enum_value_in_a_list_is_shown_as_its_number():
    builder = new("bow.Effector")
    builder.availableActions = ["goto", "goto"]
    message = single_segment(builder)
    schema = struct_type("bow.Effector").schema
    first, size, count = message.list_at(message.pointer_of(message.root(), schema,
                                                            "availableActions"))
    assert (size, count) == (3, 2)  # two-byte elements
    message.buf[8 + 8 * first + 2 : 8 + 8 * first + 4] = (1234).to_bytes(2, "little")

    decoded = decode(encoding_for("bow.Effector"), bytes(message))

    assert plain(decoded.root)["availableActions"] == ["goto", 1234]
    assert get_path(decoded.root, "availableActions[1]") == 1234


def test_every_decode_error_has_its_own_kind():
    classes = [UnknownEncoding, UnknownType, OversizedMessage, MalformedMessage,
               LimitExceeded, MissingAttachment]
    assert all(issubclass(cls, DecodeError) for cls in classes)
    assert len({cls.kind for cls in classes}) == len(classes)


def test_union_member_of_a_newer_robot_is_shown_not_dropped():
    builder = new("fleet.Uplink")
    builder.robotId = "r9"
    builder.init("battery").percentage = 42.0
    message = single_segment(builder)
    schema = struct_type("fleet.Uplink").schema
    offset = schema.node.struct.discriminantOffset  # in 16-bit units from the data section
    root = message.root()
    word = message.word(root.data + offset // 4)
    shift = 16 * (offset % 4)
    message.set_word(root.data + offset // 4, (word & ~(0xFFFF << shift)) | (99 << shift))

    decoded = decode(encoding_for("fleet.Uplink"), bytes(message))

    shown = plain(decoded.root)
    assert shown["robotId"] == "r9"
    assert shown[UNKNOWN_MEMBER] is True
    assert "battery" not in shown
    assert get_path(decoded.root, "battery.percentage") is None
