"""isaac attachments (``transport.Buffers``) read without copying a byte.

pycapnp returns each element of a ``List(Data)`` as a ``bytes`` copy, so a 16 MB point cloud
would be copied again on every sample. This module walks the few pointers of that one
message by hand instead, with the bounds checks Cap'n Proto makes, far pointers included
(pycapnp writers put large Data in segments of their own). Each buffer is resolved when it
is asked for, so decoding costs the same for 1 buffer or a million.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import overload

from app.codec.errors import MalformedMessage, OversizedMessage
from app.codec.framing import split_segments
from app.codec.limits import ATTACHMENT

STRUCT, LIST, FAR = 0, 1, 2
BYTE_ELEMENTS = 2
POINTER_ELEMENTS = 6


class Buffers(Sequence[memoryview]):
    """The buffers of one attachment, each a read-only view of the attachment's bytes."""

    def __init__(self, segments: list[memoryview], list_segment: int, first: int,
                 count: int) -> None:
        self._segments = segments
        self._list_segment = list_segment
        self._first = first
        self._count = count

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> memoryview: ...
    @overload
    def __getitem__(self, index: slice) -> list[memoryview]: ...
    def __getitem__(self, index: int | slice) -> memoryview | list[memoryview]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._count))]
        if not -self._count <= index < self._count:
            raise IndexError(f"buffer {index} of {self._count}")
        found = _follow(self._segments, self._list_segment, self._first + index % self._count)
        if found is None:
            return memoryview(b"")
        segment, start, pointer = found
        if pointer & 3 != LIST or (pointer >> 32) & 7 != BYTE_ELEMENTS:
            raise MalformedMessage(f"attachment buffer {index} is not Data")
        size = pointer >> 35
        _check(self._segments, segment, start, -(-size // 8))
        return self._segments[segment][8 * start : 8 * start + size]


NO_BUFFERS = Buffers([], 0, 0, 0)


def read_buffers(attachment: bytes | bytearray | memoryview) -> Buffers:
    """The buffers of a ``transport.Buffers`` message; MalformedMessage unless its root and
    its list of buffers are where the framing says."""
    if len(attachment) > ATTACHMENT.max_bytes:
        raise OversizedMessage(f"attachment of {len(attachment)} bytes, "
                               f"limit {ATTACHMENT.max_bytes}")
    segments = [segment.toreadonly() for segment in split_segments(attachment)]
    root = _follow(segments, 0, 0)
    if root is None:
        return NO_BUFFERS
    segment, start, pointer = root
    if pointer & 3 != STRUCT:
        raise MalformedMessage("attachment root is not a struct")
    data_words, pointers = (pointer >> 32) & 0xFFFF, pointer >> 48
    _check(segments, segment, start, data_words + pointers)
    if pointers == 0:
        return NO_BUFFERS
    found = _follow(segments, segment, start + data_words)
    if found is None:
        return NO_BUFFERS
    segment, first, pointer = found
    if pointer & 3 != LIST or (pointer >> 32) & 7 != POINTER_ELEMENTS:
        raise MalformedMessage("attachment buffers are not a List(Data)")
    count = pointer >> 35
    _check(segments, segment, first, count)
    return Buffers(segments, segment, first, count)


def _follow(segments: list[memoryview], segment: int, at: int) -> tuple[int, int, int] | None:
    """(segment, word index, pointer word describing it) of the object the pointer at word
    ``at`` of ``segment`` points to, through far pointers; None for a null pointer."""
    pointer = _word(segments, segment, at)
    if pointer == 0:
        return None
    if pointer & 3 != FAR:
        return segment, at + 1 + _offset(pointer), pointer
    pad_segment, pad = pointer >> 32, (pointer >> 3) & 0x1FFFFFFF
    double = (pointer >> 2) & 1
    _check(segments, pad_segment, pad, 1 + double)
    landing = _word(segments, pad_segment, pad)
    if not double:
        if landing & 3 == FAR:
            raise MalformedMessage("far pointer lands on another far pointer")
        return pad_segment, pad + 1 + _offset(landing), landing
    # A double-far landing pad: a far pointer to the object, then the object's tag.
    tag = _word(segments, pad_segment, pad + 1)
    if landing & 7 != FAR or tag & 3 == FAR:
        raise MalformedMessage("malformed double-far landing pad")
    return landing >> 32, (landing >> 3) & 0x1FFFFFFF, tag


def _offset(pointer: int) -> int:
    offset = (pointer >> 2) & 0x3FFFFFFF
    return offset - (1 << 30) if offset & (1 << 29) else offset


def _word(segments: list[memoryview], segment: int, at: int) -> int:
    _check(segments, segment, at, 1)
    return struct.unpack_from("<Q", segments[segment], 8 * at)[0]


def _check(segments: list[memoryview], segment: int, start: int, words: int) -> None:
    if segment >= len(segments) or start < 0 or 8 * (start + words) > len(segments[segment]):
        raise MalformedMessage("attachment pointer out of bounds")
