"""Word-level access to single-segment Cap'n Proto messages, to craft hostile samples.

Layout (capnp encoding spec): a struct pointer is ``offset<<2 | 0`` + data words (bits 32-47)
+ pointer count (bits 48-63); a list pointer is ``offset<<2 | 1`` + element size (bits 32-34)
+ element count (bits 35-63, words for inline-composite lists). Offsets count words from the
end of the pointer.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

BYTE_ELEMENTS = 2
POINTER_ELEMENTS = 6
COMPOSITE_ELEMENTS = 7


def frame(body: bytes) -> bytes:
    """One segment, standard framing."""
    assert len(body) % 8 == 0
    return struct.pack("<II", 0, len(body) // 8) + body


def struct_pointer(offset: int, data_words: int, pointers: int) -> int:
    return ((offset & 0x3FFFFFFF) << 2) | (data_words << 32) | (pointers << 48)


def list_pointer(offset: int, element_size: int, count: int) -> int:
    return ((offset & 0x3FFFFFFF) << 2) | 1 | (element_size << 32) | (count << 35)


def _signed30(value: int) -> int:
    return value - (1 << 30) if value & (1 << 29) else value


@dataclass
class StructAt:
    data: int  # word index of the data section
    data_words: int
    pointers: int  # word index of the pointer section


class Message:
    """A mutable single-segment message (the output of ``to_bytes()`` of a small builder)."""

    def __init__(self, payload: bytes) -> None:
        segments, words = struct.unpack_from("<II", payload, 0)
        if segments != 0 or len(payload) != 8 + 8 * words:
            raise ValueError("not a single-segment message")
        self.buf = bytearray(payload)

    def __bytes__(self) -> bytes:
        return bytes(self.buf)

    def word(self, index: int) -> int:
        return struct.unpack_from("<Q", self.buf, 8 + 8 * index)[0]

    def set_word(self, index: int, value: int) -> None:
        struct.pack_into("<Q", self.buf, 8 + 8 * index, value)

    def struct_at(self, pointer_index: int) -> StructAt:
        ptr = self.word(pointer_index)
        assert ptr & 3 == 0 and ptr != 0, f"word {pointer_index} is not a struct pointer"
        data = pointer_index + 1 + _signed30((ptr >> 2) & 0x3FFFFFFF)
        data_words = (ptr >> 32) & 0xFFFF
        return StructAt(data, data_words, data + data_words)

    def list_at(self, pointer_index: int) -> tuple[int, int, int]:
        """(word index of the first element, element size code, element count)."""
        ptr = self.word(pointer_index)
        assert ptr & 3 == 1, f"word {pointer_index} is not a list pointer"
        start = pointer_index + 1 + _signed30((ptr >> 2) & 0x3FFFFFFF)
        return start, (ptr >> 32) & 7, ptr >> 35

    def root(self) -> StructAt:
        return self.struct_at(0)

    def pointer_of(self, at: StructAt, schema: Any, name: str) -> int:
        """Word index of the pointer holding field ``name`` of the struct at ``at``."""
        return at.pointers + schema.fields[name].proto.slot.offset

    def follow(self, schema: Any, path: str) -> tuple[StructAt, Any]:
        """The struct reached through the struct fields ``a.b.c`` from the root."""
        at = self.root()
        for name in path.split(".") if path else []:
            field = schema.fields[name]
            at = self.struct_at(self.pointer_of(at, schema, name))
            schema = field.schema
        return at, schema

    def set_uint16(self, at: StructAt, schema: Any, name: str, value: int) -> None:
        """Writes a 16-bit data field (an enum, a UInt16) in place."""
        offset = 8 + 8 * at.data + 2 * schema.fields[name].proto.slot.offset
        struct.pack_into("<H", self.buf, offset, value)

    def set_list_count(self, pointer_index: int, count: int) -> None:
        ptr = self.word(pointer_index)
        self.set_word(pointer_index, (ptr & ((1 << 35) - 1)) | (count << 35))
