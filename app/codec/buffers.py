"""isaac attachments (``transport.Buffers``) read without copying a byte, and written with
one copy.

pycapnp returns each element of a ``List(Data)`` as a ``bytes`` copy, so a 16 MB point cloud
would be copied again on every sample. This module walks the few pointers of that one
message by hand instead, with the bounds checks Cap'n Proto makes, far pointers included
(pycapnp writers put large Data in segments of their own). Each buffer is resolved when it
is asked for, so decoding costs the same for 1 buffer or a million.

Writing (``encode_buffers``, with ``fill_tensor`` for the ``TensorProto`` that names a
buffer) lays the message out directly, so each buffer's bytes are copied exactly once. An
attachment said within this process (``HeldBuffers``) is not written at all until its bytes
are asked for: the panels read its buffers where they lie. numpy is imported only when an
array is handed in: reading stays on the window's start-up path.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, overload

from app.codec.errors import MalformedMessage, OversizedMessage
from app.codec.framing import split_segments
from app.codec.limits import ATTACHMENT

if TYPE_CHECKING:
    import numpy as np

STRUCT, LIST, FAR = 0, 1, 2
BYTE_ELEMENTS = 2
POINTER_ELEMENTS = 6

# numpy dtype (kind, itemsize) -> isaac.ElementType enumerant, byte order aside.
ELEMENT_NAMES: dict[tuple[str, int], str] = {
    ("u", 1): "uint8",
    ("u", 2): "uint16",
    ("f", 4): "float32",
    ("f", 8): "float64",
    ("f", 2): "float16",
    ("u", 4): "uint32",
    ("u", 8): "uint64",
    ("i", 1): "int8",
    ("i", 2): "int16",
    ("i", 4): "int32",
    ("i", 8): "int64",
}


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


class HeldBuffers:
    """An attachment said within this process (a ROS 2 sample, translated): its buffers as
    they lie, read there by the panels, and written out as a ``transport.Buffers`` message
    only when its bytes are asked for (``bytes()``: a recorder, a put). ``len()`` is the
    length those bytes would have."""

    __slots__ = ("_size", "views")

    def __init__(self, buffers: Sequence[bytes | bytearray | memoryview | np.ndarray]) -> None:
        self.views = tuple(_byte_view(buffer).toreadonly() for buffer in buffers)
        self._size = buffers_layout([len(view) for view in self.views])[0]

    def __len__(self) -> int:
        return self._size

    def __bytes__(self) -> bytes:
        return encode_buffers(self.views)


Attachment = bytes | HeldBuffers  # a sample's attachment: as heard, or said in the process


def attachment_bytes(attachment: Attachment | None) -> bytes | None:
    """The attachment as it goes on the wire or into a log."""
    return bytes(attachment) if isinstance(attachment, HeldBuffers) else attachment


def read_buffers(attachment: bytes | bytearray | memoryview | HeldBuffers
                 ) -> Sequence[memoryview]:
    """The buffers of a ``transport.Buffers`` message; MalformedMessage unless its root and
    its list of buffers are where the framing says."""
    if len(attachment) > ATTACHMENT.max_bytes:
        raise OversizedMessage(f"attachment of {len(attachment)} bytes, "
                               f"limit {ATTACHMENT.max_bytes}")
    if isinstance(attachment, HeldBuffers):
        return attachment.views
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


# -- encoding -------------------------------------------------------------------------------
def element_type_name(dtype: np.dtype) -> str:
    """The isaac ``ElementType`` enumerant of a numpy dtype."""
    import numpy as np

    normal = np.dtype(dtype)
    name = ELEMENT_NAMES.get((normal.kind, normal.itemsize))
    if name is None:
        raise ValueError(f"no isaac element type for {dtype}")
    return name


def fill_tensor(tensor: Any, array: np.ndarray, buffer_index: int) -> None:
    """Sets a ``TensorProto`` builder to describe ``array`` stored in buffer ``buffer_index``."""
    tensor.elementType = element_type_name(array.dtype)
    tensor.sizes = [int(size) for size in array.shape]
    tensor.dataBufferIndex = buffer_index


def buffers_layout(sizes: Sequence[int]) -> tuple[int, list[int]]:
    """Total byte length of a ``transport.Buffers`` message holding buffers of ``sizes`` bytes,
    and the byte offset where each buffer's data starts in it."""
    count = len(sizes)
    word = 8 + 16 + 8 * count  # segment table, root pointer + list pointer, element pointers
    offsets = []
    for size in sizes:
        offsets.append(word)
        word += -(-size // 8) * 8
    return word, offsets


def encode_buffers(buffers: Sequence[bytes | bytearray | memoryview | np.ndarray]) -> bytes:
    """One ``transport.Buffers`` Cap'n Proto message (single segment) holding ``buffers``.

    Written directly rather than through pycapnp so each buffer is copied exactly once: by
    one ``bytes.join`` of the pointers, the buffers and their padding (a slice assignment
    into a ``bytearray`` took 3 to 20 times as long as a copy).
    """
    views = [_byte_view(buffer) for buffer in buffers]
    total, offsets = buffers_layout([len(view) for view in views])
    count = len(views)
    head = bytearray(offsets[0] if offsets else total)
    # Segment table: one segment of (total - 8) / 8 words.
    struct.pack_into("<II", head, 0, 0, (total - 8) // 8)
    # Root: struct pointer, offset 0, no data words, one pointer.
    struct.pack_into("<Q", head, 8, 1 << 48)
    # Buffers.buffers: list pointer, offset 0, element size 6 (pointer), count elements.
    struct.pack_into("<Q", head, 16, 1 | (6 << 32) | (count << 35))
    parts: list[bytes | bytearray | memoryview] = [head]
    for i, (view, offset) in enumerate(zip(views, offsets, strict=True)):
        pointer_at = 24 + 8 * i
        relative = (offset - (pointer_at + 8)) // 8
        # Data element: list pointer, element size 2 (byte), len(view) elements.
        struct.pack_into("<Q", head, pointer_at,
                         1 | (relative << 2) | (2 << 32) | (len(view) << 35))
        parts += [view, bytes(-len(view) % 8)]
    return b"".join(parts)


def _byte_view(buffer: bytes | bytearray | memoryview | np.ndarray) -> memoryview:
    raw: Any = buffer
    if not isinstance(buffer, bytes | bytearray | memoryview):
        import numpy as np

        if isinstance(buffer, np.ndarray):
            raw = np.ascontiguousarray(buffer).data
    view = memoryview(raw).cast("B")
    if len(view) >= 1 << 29:
        raise ValueError(f"buffer of {len(view)} bytes exceeds a Cap'n Proto Data field")
    return view
