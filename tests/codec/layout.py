"""Every pointer of a real (possibly multi-segment) Cap'n Proto message, to aim it elsewhere.

``Layout.parse`` walks a well-formed message from its root, through far pointers, and
records where each pointer lies and what it points at; a ``Layout`` is rewritten word by word
and framed again with ``to_bytes``. Pointer encoding: see tests/codec/wire.py (near pointers)
and the capnp encoding spec (a far pointer is ``2 | double<<2 | pad<<3 | segment<<32``).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field, replace

from tests.codec.wire import COMPOSITE_ELEMENTS, POINTER_ELEMENTS

STRUCT, LIST, FAR = 0, 1, 2
OFFSET_MASK = 0x3FFFFFFF
# Keeps the kind and sizes of a pointer word, drops its offset.
SIZE_BITS = 0xFFFFFFFF00000003
MAX_WALK_DEPTH = 64
_ELEMENT_BITS = (0, 1, 8, 16, 32, 64)  # per list element size code 0-5


@dataclass(frozen=True)
class Target:
    """What a pointer leads to: the object's first word (a composite list's tag) and the
    pointer word that describes it, with offset 0."""

    segment: int
    start: int
    tag: int

    @property
    def kind(self) -> int:
        return self.tag & 3

    @property
    def end(self) -> int:
        """The word after the object."""
        if self.kind == STRUCT:
            return self.start + ((self.tag >> 32) & 0xFFFF) + (self.tag >> 48)
        size, count = (self.tag >> 32) & 7, self.tag >> 35
        if size == COMPOSITE_ELEMENTS:
            return self.start + 1 + count
        return self.start + (count if size == POINTER_ELEMENTS else
                             -(-count * _ELEMENT_BITS[size] // 64))


@dataclass(frozen=True)
class Pointer:
    """A non-null pointer of the message: where it lies, whether it is far, what it leads
    to, and the objects on the path from the root to it (its ancestors)."""

    segment: int
    index: int
    far: bool
    target: Target
    tag_at: tuple[int, int]  # the word holding its kind and sizes (a far one's landing pad)
    ancestors: tuple[Target, ...] = field(default=())


def far_pointer(segment: int, pad: int, double: bool = False) -> int:
    return FAR | (int(double) << 2) | ((pad & 0x1FFFFFFF) << 3) | (segment << 32)


def near_pointer(tag: int, offset: int) -> int:
    """A struct or list pointer described by ``tag`` (offset bits ignored) at ``offset``."""
    return (tag & SIZE_BITS) | ((offset & OFFSET_MASK) << 2)


def _signed(offset: int) -> int:
    return offset - (1 << 30) if offset & (1 << 29) else offset


class Layout:
    """The segments of one message as mutable word arrays."""

    def __init__(self, segments: list[bytearray]) -> None:
        self.segments = segments

    @classmethod
    def from_bytes(cls, payload: bytes) -> Layout:
        count = struct.unpack_from("<I", payload, 0)[0] + 1
        sizes = struct.unpack_from(f"<{count}I", payload, 4)
        offset = 4 + 4 * count
        offset += offset % 8
        segments = []
        for size in sizes:
            segments.append(bytearray(payload[offset : offset + 8 * size]))
            offset += 8 * size
        return cls(segments)

    def copy(self) -> Layout:
        return Layout([bytearray(segment) for segment in self.segments])

    def to_bytes(self) -> bytes:
        count = len(self.segments)
        header = struct.pack(f"<I{count}I", count - 1, *(len(s) // 8 for s in self.segments))
        header += bytes(len(header) % 8)
        return header + b"".join(bytes(segment) for segment in self.segments)

    def words(self, segment: int) -> int:
        return len(self.segments[segment]) // 8

    def word(self, segment: int, index: int) -> int:
        return struct.unpack_from("<Q", self.segments[segment], 8 * index)[0]

    def set_word(self, segment: int, index: int, value: int) -> None:
        struct.pack_into("<Q", self.segments[segment], 8 * index, value & (1 << 64) - 1)

    def append_words(self, segment: int, *values: int) -> int:
        """Appends words to ``segment`` (nothing else moves); the index of the first."""
        first = self.words(segment)
        self.segments[segment] += b"".join(v.to_bytes(8, "little") for v in values)
        return first

    def new_segment(self, *values: int) -> int:
        self.segments.append(bytearray(b"".join(v.to_bytes(8, "little") for v in values)))
        return len(self.segments) - 1

    def resolve(self, segment: int, index: int) -> Pointer | None:
        """The pointer at ``index`` of ``segment``; None for a null pointer."""
        value = self.word(segment, index)
        if value == 0:
            return None
        if value & 3 != FAR:
            start = index + 1 + _signed((value >> 2) & OFFSET_MASK)
            return Pointer(segment, index, False, Target(segment, start, value & SIZE_BITS),
                           (segment, index))
        pad_segment, pad = value >> 32, (value >> 3) & 0x1FFFFFFF
        landing = self.word(pad_segment, pad)
        if not (value >> 2) & 1:
            start = pad + 1 + _signed((landing >> 2) & OFFSET_MASK)
            return Pointer(segment, index, True, Target(pad_segment, start, landing & SIZE_BITS),
                           (pad_segment, pad))
        tag = self.word(pad_segment, pad + 1)
        target = Target(landing >> 32, (landing >> 3) & 0x1FFFFFFF, tag & SIZE_BITS)
        return Pointer(segment, index, True, target, (pad_segment, pad + 1))

    def set_sizes(self, pointer: Pointer, tag: int) -> None:
        """Rewrites the kind and sizes of ``pointer`` (where they lie: the pointer itself or
        its landing pad), keeping its offset."""
        old = self.word(*pointer.tag_at)
        self.set_word(*pointer.tag_at, (old & ~SIZE_BITS) | (tag & SIZE_BITS))

    def aim(self, segment: int, index: int, target: Target) -> None:
        """Points the pointer word at (segment, index) at ``target``: a near pointer in the
        same segment, else a far pointer through a landing pad appended to the target's
        segment."""
        if segment == target.segment:
            self.set_word(segment, index, near_pointer(target.tag, target.start - index - 1))
        else:
            self.aim_far(segment, index, target)

    def aim_far(self, segment: int, index: int, target: Target) -> None:
        pad = self.words(target.segment)
        self.append_words(target.segment, near_pointer(target.tag, target.start - pad - 1))
        self.set_word(segment, index, far_pointer(target.segment, pad))

    def aim_double_far(self, segment: int, index: int, target: Target) -> None:
        """Through a new segment holding a double-far landing pad: a far pointer to the
        object's first word, then its tag."""
        pads = self.new_segment(far_pointer(target.segment, target.start), target.tag)
        self.set_word(segment, index, far_pointer(pads, 0, double=True))

    def pointers(self) -> list[Pointer]:
        """Every non-null pointer reachable from the root, root pointer first."""
        found: list[Pointer] = []
        self._walk(0, 0, (), found)
        return found

    def used_words(self, pointers: list[Pointer]) -> list[int]:
        """Per segment, the end of the last word that an object or landing pad of
        ``pointers`` (a walk of this layout) uses; a writer may leave words after it."""
        used = [0] * len(self.segments)
        used[0] = 1  # the root pointer
        for pointer in pointers:
            target = pointer.target
            used[target.segment] = max(used[target.segment], target.end)
            if pointer.far:
                segment, index = pointer.tag_at
                used[segment] = max(used[segment], index + 1)
        return used

    def _walk(self, segment: int, index: int, ancestors: tuple[Target, ...],
              found: list[Pointer]) -> None:
        pointer = self.resolve(segment, index)
        if pointer is None or len(ancestors) >= MAX_WALK_DEPTH:
            return
        found.append(replace(pointer, ancestors=ancestors))
        inner = (*ancestors, pointer.target)
        for child_segment, child in self._children(pointer.target):
            self._walk(child_segment, child, inner, found)

    def _children(self, target: Target) -> list[tuple[int, int]]:
        """The pointer words inside the object ``target``."""
        tag, at = target.tag, target.start
        if target.kind == STRUCT:
            data, count = (tag >> 32) & 0xFFFF, tag >> 48
            return [(target.segment, at + data + i) for i in range(count)]
        size, count = (tag >> 32) & 7, tag >> 35
        if size == POINTER_ELEMENTS:
            return [(target.segment, at + i) for i in range(count)]
        if size != COMPOSITE_ELEMENTS:
            return []
        element = self.word(target.segment, at)
        elements = (element >> 2) & OFFSET_MASK
        data, pointers = (element >> 32) & 0xFFFF, element >> 48
        stride = data + pointers
        return [(target.segment, at + 1 + e * stride + data + i)
                for e in range(elements) for i in range(pointers)]
