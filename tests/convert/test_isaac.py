"""Isaac tensors, clouds and images through the real wire path: capnp message + Buffers
attachment -> codec.decode -> numpy."""

from __future__ import annotations

import numpy as np
import pytest

from app.codec.decode import DecodedMessage, decode, encoding_for
from app.codec.errors import MalformedMessage, MissingAttachment
from app.codec.registry import registry
from app.convert.isaac import (
    encode_buffers,
    fill_tensor,
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
