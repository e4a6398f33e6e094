"""Cap'n Proto standard stream framing, checked before pycapnp ever sees the bytes."""

from __future__ import annotations

import struct

from app.codec.errors import MalformedMessage

MAX_SEGMENTS = 512


def split_segments(payload: bytes | bytearray | memoryview) -> list[memoryview]:
    """Zero-copy views of each segment; raises MalformedMessage on any framing error."""
    view = memoryview(payload)
    if len(view) < 8:
        raise MalformedMessage(f"{len(view)} bytes is too short for a capnp message")
    count = struct.unpack_from("<I", view, 0)[0] + 1
    if count > MAX_SEGMENTS:
        raise MalformedMessage(f"segment table claims {count} segments")
    header = 4 + 4 * count
    header += header % 8
    if len(view) < header:
        raise MalformedMessage("truncated segment table")
    sizes = struct.unpack_from(f"<{count}I", view, 4)
    body = 8 * sum(sizes)
    if header + body > len(view):
        raise MalformedMessage(
            f"truncated: segments need {header + body} bytes, got {len(view)}"
        )
    if header + body < len(view):
        raise MalformedMessage(f"{len(view) - header - body} trailing bytes after the message")
    segments = []
    offset = header
    for size in sizes:
        segments.append(view[offset : offset + 8 * size])
        offset += 8 * size
    return segments
