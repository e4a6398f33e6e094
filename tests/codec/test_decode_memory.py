"""Decoding keeps nothing alive: once a DecodedMessage is dropped, so are its readers and the
payload they pinned (a long-running station decodes millions of samples)."""

from __future__ import annotations

import gc
import sys

from app.codec.decode import decode, encoding_for
from app.codec.registry import registry


def _payload_with_data() -> bytes:
    builder = registry().structs["foxglove.CompressedImage"].new_message()
    builder.frameId = "camera"
    builder.format = "jpeg"
    builder.data = bytes(range(256)) * 64
    return builder.to_bytes()


def test_decoding_a_data_field_pins_nothing():
    payload = _payload_with_data()
    gc.collect()
    before = sys.getrefcount(payload)

    for _ in range(50):
        decoded = decode(encoding_for("foxglove.CompressedImage"), payload)
        assert len(decoded.root.data) == 256 * 64
    del decoded
    gc.collect()

    assert sys.getrefcount(payload) == before  # each leaked reader held a view of it


def test_no_reader_outlives_its_message():
    payload = _payload_with_data()

    def readers() -> int:
        gc.collect()
        return sum(type(o).__name__ == "_DynamicStructReader" for o in gc.get_objects())

    before = readers()
    for _ in range(50):
        decode(encoding_for("foxglove.CompressedImage"), payload)
    assert readers() - before < 5
