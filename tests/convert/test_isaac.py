"""Isaac tensors, clouds and images through the real wire path: capnp message + Buffers
attachment -> codec.decode -> numpy."""

from __future__ import annotations

import numpy as np
import pytest

from app.codec.buffers import encode_buffers, fill_tensor
from app.codec.decode import DecodedMessage, decode, encoding_for
from app.codec.errors import MalformedMessage, MissingAttachment
from app.codec.registry import registry
from app.convert.isaac import (
    image_to_numpy,
    point_cloud_to_numpy,
    point_intensities_to_numpy,
    tensor_to_numpy,
)


def wire(message, buffers=None) -> DecodedMessage:
    """Decodes a builder the way a subscriber would, attachment included."""
    type_name = registry().name_of(message.schema.node.id)
    attachment = bytes(encode_buffers(buffers)) if buffers is not None else None
    return decode(encoding_for(type_name), message.to_bytes(), attachment)


def cloud_message(points: np.ndarray, intensities: np.ndarray | None = None):
    cloud = registry().struct("isaac.PointCloudProto").new_message()
    fill_tensor(cloud.positions, points, 0)
    if intensities is not None:
        fill_tensor(cloud.intensities, intensities, 1)
    return cloud


def test_point_cloud_round_trip_is_a_zero_copy_view() -> None:
    points = np.random.default_rng(1).normal(size=(5000, 3)).astype(np.float32)
    intensities = np.linspace(0, 1, 5000, dtype=np.float32).reshape(-1, 1)
    decoded = wire(cloud_message(points, intensities), [points, intensities])
    xyz = point_cloud_to_numpy(decoded)
    assert xyz.shape == (5000, 3) and xyz.dtype == np.float32
    np.testing.assert_array_equal(xyz, points)
    assert xyz.base is not None and not xyz.flags.writeable  # a view of the attachment bytes
    np.testing.assert_array_equal(point_intensities_to_numpy(decoded), intensities[:, 0])


def test_image_round_trip() -> None:
    pixels = np.random.default_rng(2).integers(0, 255, (48, 64, 3), dtype=np.uint8)
    image = registry().struct("isaac.ImageProto").new_message(
        elementType="uint8", rows=48, cols=64, channels=3, dataBufferIndex=1
    )
    decoded = wire(image, [b"unused", pixels])
    array = image_to_numpy(decoded)
    assert array.shape == (48, 64, 3) and array.dtype == np.uint8
    np.testing.assert_array_equal(array, pixels)


@pytest.mark.parametrize("dtype", ["<u1", "<u2", "<u4", "<u8", "<i1", "<i2", "<i4", "<i8",
                                   "<f2", "<f4", "<f8"])
def test_every_element_type_maps_to_its_dtype(dtype: str) -> None:
    values = (np.arange(24) % 7).astype(dtype).reshape(2, 3, 4)
    tensor = registry().struct("isaac.TensorProto").new_message()
    fill_tensor(tensor, values, 0)
    decoded = wire(tensor, [values])
    array = tensor_to_numpy(decoded, decoded.root)
    assert array.dtype == np.dtype(dtype) and array.shape == (2, 3, 4)
    np.testing.assert_array_equal(array, values)


def test_buffer_size_that_does_not_match_sizes_is_malformed() -> None:
    points = np.zeros((10, 3), np.float32)
    decoded = wire(cloud_message(points), [points[:9]])
    with pytest.raises(MalformedMessage, match=r"108 bytes.*needs 120"):
        point_cloud_to_numpy(decoded)


def test_unknown_element_type_is_malformed() -> None:
    cloud = cloud_message(np.zeros((4, 3), np.float32))
    cloud.positions.elementType = "unknown"
    with pytest.raises(MalformedMessage, match="element type"):
        point_cloud_to_numpy(wire(cloud, [bytes(48)]))
    cloud = cloud_message(np.zeros((4, 3), np.float32))
    cloud.positions.elementType = 42  # a newer robot's enumerant
    with pytest.raises(MalformedMessage, match="element type"):
        point_cloud_to_numpy(wire(cloud, [bytes(48)]))


def test_missing_buffer_is_reported() -> None:
    cloud = cloud_message(np.zeros((4, 3), np.float32))
    cloud.positions.dataBufferIndex = 2
    with pytest.raises(MissingAttachment):
        wire(cloud, [bytes(48)])  # the codec already refuses it
    decoded = wire(cloud_message(np.zeros((4, 3), np.float32)), [bytes(48)])
    decoded.buffers = []  # a message that bypassed the codec's check
    with pytest.raises(MissingAttachment):
        point_cloud_to_numpy(decoded)


def test_negative_sizes_and_wrong_shapes_are_malformed() -> None:
    cloud = cloud_message(np.zeros((4, 3), np.float32))
    cloud.positions.sizes = [-4, 3]
    with pytest.raises(MalformedMessage, match="negative"):
        point_cloud_to_numpy(wire(cloud, [bytes(48)]))
    flat = np.zeros((4, 2), np.float32)
    with pytest.raises(MalformedMessage, match=r"need \[N, 3\]"):
        point_cloud_to_numpy(wire(cloud_message(flat), [flat]))


def test_cloud_without_positions_is_empty() -> None:
    cloud = registry().struct("isaac.PointCloudProto").new_message()
    decoded = wire(cloud)
    assert point_cloud_to_numpy(decoded).shape == (0, 3)
    assert point_intensities_to_numpy(decoded) is None


def test_converters_refuse_other_types() -> None:
    image = registry().struct("isaac.ImageProto").new_message(dataBufferIndex=0)
    with pytest.raises(ValueError, match="PointCloudProto"):
        point_cloud_to_numpy(wire(image, [b""]))


def test_encoded_buffers_read_back_with_pycapnp() -> None:
    """The hand-written framing is the standard one, padding included."""
    chunks = [b"", b"a", b"abcdefghi", bytes(range(256)) * 3]
    buffers_type = registry().struct("transport.Buffers")
    with buffers_type.from_bytes(bytes(encode_buffers(chunks))) as message:
        assert [bytes(b) for b in message.buffers] == chunks


def test_fill_tensor_rejects_types_isaac_has_not() -> None:
    tensor = registry().struct("isaac.TensorProto").new_message()
    with pytest.raises(ValueError, match="no isaac element type"):
        fill_tensor(tensor, np.zeros(3, np.complex64), 0)


def _attachment_array(attachment: bytes) -> np.ndarray:
    return np.frombuffer(attachment, np.uint8)


def test_cloud_array_shares_memory_with_the_attachment() -> None:
    """No copy between the zenoh attachment and the array a panel draws."""
    points = np.random.default_rng(3).normal(size=(1000, 3)).astype(np.float32)
    attachment = bytes(encode_buffers([points]))
    cloud = cloud_message(points)
    decoded = decode(encoding_for("isaac.PointCloudProto"), cloud.to_bytes(), attachment)
    assert isinstance(decoded.buffer(0), memoryview)
    xyz = point_cloud_to_numpy(decoded)
    assert np.shares_memory(xyz, _attachment_array(attachment))
    np.testing.assert_array_equal(xyz, points)


def test_multi_segment_attachment_from_pycapnp_is_viewed_in_place() -> None:
    """pycapnp puts each large buffer in a segment of its own, behind a far pointer."""
    chunks = [bytes([i + 1]) * (3_000_000 + i) for i in range(3)]
    message = registry().struct("transport.Buffers").new_message()
    buffers = message.init("buffers", 3)
    for i, chunk in enumerate(chunks):
        buffers[i] = chunk
    attachment = message.to_bytes()
    assert int.from_bytes(attachment[:4], "little") >= 1  # more than one segment
    tensor = registry().struct("isaac.TensorProto").new_message()
    fill_tensor(tensor, np.zeros(3_000_002, np.uint8), 2)
    decoded = decode(encoding_for("isaac.TensorProto"), tensor.to_bytes(), attachment)
    assert [bytes(decoded.buffer(i)) for i in range(3)] == chunks
    array = tensor_to_numpy(decoded, decoded.root)
    assert np.shares_memory(array, _attachment_array(attachment))
    assert array[-1] == 3 and not array.flags.writeable


def test_double_far_pointer_to_a_buffer_is_followed() -> None:
    """A buffer reached through a double-far landing pad (segment 1) in segment 2."""
    def word(value: int) -> bytes:
        return value.to_bytes(8, "little")

    data = b"doublefar!"
    seg0 = (word(1 << 48)  # root: no data, one pointer
            + word(1 | (6 << 32) | (1 << 35))  # buffers: one pointer element
            + word(2 | 4 | (1 << 32)))  # double far: landing pad at segment 1, word 0
    seg1 = (word(2 | (2 << 32))  # far pointer to segment 2, word 0
            + word(1 | (2 << 32) | (len(data) << 35)))  # tag: Data of len(data) bytes
    seg2 = data + bytes(-len(data) % 8)
    sizes = [len(seg0) // 8, len(seg1) // 8, len(seg2) // 8]
    table = (len(sizes) - 1).to_bytes(4, "little") + b"".join(
        size.to_bytes(4, "little") for size in sizes) + bytes(4 * ((len(sizes) + 1) % 2))
    attachment = table + seg0 + seg1 + seg2
    image = registry().struct("isaac.ImageProto").new_message(dataBufferIndex=0)
    decoded = decode(encoding_for("isaac.ImageProto"), image.to_bytes(), attachment)
    assert bytes(decoded.buffer(0)) == data


def test_malformed_buffer_pointer_is_malformed_when_used() -> None:
    attachment = bytearray(encode_buffers([b"abcd", b"efgh"]))
    attachment[32:40] = (1 | (1000 << 2) | (2 << 32) | (4 << 35)).to_bytes(8, "little")
    image = registry().struct("isaac.ImageProto").new_message(dataBufferIndex=1)
    with pytest.raises(MalformedMessage, match="out of bounds"):
        decode(encoding_for("isaac.ImageProto"), image.to_bytes(), bytes(attachment))
    image = registry().struct("isaac.ImageProto").new_message(dataBufferIndex=0)
    decoded = decode(encoding_for("isaac.ImageProto"), image.to_bytes(), bytes(attachment))
    assert bytes(decoded.buffer(0)) == b"abcd"


def test_large_cloud_decodes_without_copying() -> None:
    """A 5.6M-point cloud (64 MB attachment): decode and view cost no pass over the bytes."""
    import time

    points = np.ones((5_600_000, 3), np.float32)
    attachment = bytes(encode_buffers([points]))
    payload = cloud_message(points).to_bytes()
    start = time.perf_counter()
    xyz = point_cloud_to_numpy(decode(encoding_for("isaac.PointCloudProto"), payload, attachment))
    elapsed = time.perf_counter() - start
    print(f"\n{len(attachment) / 2**20:.0f} MB cloud -> numpy: {elapsed * 1000:.2f} ms")
    assert elapsed < 0.05
    assert np.shares_memory(xyz, _attachment_array(attachment))
