"""The converters' shared plumbing: Data fields as arrays that own their message, and reading
errors as ConversionError."""

from __future__ import annotations

import gc
import sys

import capnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.codec.data_view import data_array
from app.codec.errors import MalformedMessage
from app.codec.framing import split_segments
from app.codec.registry import registry
from app.convert.capnp_data import finite_rows, guarded
from app.convert.registry import ConversionError


def cloud_bytes(data: bytes | None) -> bytes:
    message = registry().struct("foxglove.PointCloud").new_message(pointStride=4)
    if data is not None:
        message.data = data
    return message.to_bytes()


def read(payload) -> object:
    return registry().struct("foxglove.PointCloud").from_segments(split_segments(payload))


def is_pinned(payload: bytearray) -> bool:
    """A bytearray cannot grow while a buffer export of it is alive."""
    try:
        payload.extend(bytes(8))
    except BufferError:
        return True
    del payload[-8:]
    return False


def test_data_array_views_the_message_and_keeps_it_alive() -> None:
    values = np.arange(1000, dtype=np.float32)
    payload = bytearray(cloud_bytes(values.tobytes()))

    def view() -> np.ndarray:
        reader = read(payload)
        before = sys.getrefcount(reader)
        array = data_array(reader, "data")
        assert sys.getrefcount(reader) == before + 1  # held by the array, nothing leaked
        return array.view(np.float32)[10:20]

    array = view()
    gc.collect()
    assert is_pinned(payload)  # the reader, its segments and the payload live on
    np.testing.assert_array_equal(array, values[10:20])
    assert not array.flags.writeable
    del array
    gc.collect()
    assert not is_pinned(payload)  # nothing left holding the message


def test_data_array_of_an_unset_or_empty_field() -> None:
    payload = bytearray(cloud_bytes(None))
    assert data_array(read(payload), "data").size == 0
    payload = bytearray(cloud_bytes(b""))
    assert data_array(read(payload), "data").size == 0
    gc.collect()
    assert not is_pinned(payload)


def test_finite_rows() -> None:
    assert finite_rows(np.zeros((4, 3), np.float32)) is None
    xyz = np.zeros((4, 3), np.float32)
    xyz[1, 2], xyz[3, 0] = np.nan, -np.inf
    np.testing.assert_array_equal(finite_rows(xyz), [True, False, True, False])


@settings(max_examples=200, deadline=None)
@given(points=st.integers(1, 40), spoiled=st.lists(
    st.tuples(st.integers(0, 39), st.integers(0, 3),
              st.sampled_from([np.nan, np.inf, -np.inf, 3e38, -1e30, 0.0])), max_size=6))
def test_finite_rows_from_a_packed_clouds_words_is_the_exact_mask(
        points: int, spoiled: list[tuple[int, int, float]]) -> None:
    words = np.ones((points, 4), np.float32)  # x, y, z, intensity
    for row, column, value in spoiled:
        words[row % points, column] = value
    xyz = words[:, :3]  # strided, as a packed cloud's view
    expected = np.isfinite(xyz).all(axis=1)
    found = finite_rows(xyz, words.reshape(-1))
    if expected.all():
        assert found is None
    else:
        np.testing.assert_array_equal(found, expected)
    contiguous = finite_rows(np.ascontiguousarray(xyz))
    assert (contiguous is None) == expected.all()


@pytest.mark.parametrize("error", [
    capnp.KjException("failed: bad pointer"),
    MalformedMessage("truncated"),
    UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"),
    ValueError("negative dimensions"),
    IndexError("list index out of range"),
])
def test_guarded_converters_raise_only_conversion_errors(error: Exception) -> None:
    class Decoded:
        type_name = "foxglove.PointCloud"

    @guarded
    def failing(decoded):
        raise error

    with pytest.raises(ConversionError, match=r"foxglove\.PointCloud"):
        failing(Decoded())
