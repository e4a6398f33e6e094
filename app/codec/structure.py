"""The structure of a whole Cap'n Proto message checked at numpy speed, without its schema.

Walks every pointer, one nesting level at a time, each level as a few array operations:
bounds (per segment), far pointers (single and double), nesting, and the two ways a small
message can make reading it expensive: objects reached through more than one pointer (the
words read would exceed the words sent) and lists of zero-sized elements (counted one word
per element against the read budget, as Cap'n Proto does). What the schema adds (pointer
kinds per field, text) is left to the typed reads.

pycapnp's C++ ``total_size`` would do most of this, but a malformed message makes it abort
the process instead of raising.
"""

from __future__ import annotations

import numpy as np

from app.codec.errors import LimitExceeded, MalformedMessage

_FAR, _OTHER = 2, 3
# Data bits per element of each list element size code 0-5 (6: pointers, 7: structs).
_BITS = np.array([0, 1, 8, 16, 32, 64, 64, 0], np.int64)


def check_structure(body: memoryview, segment_words: list[int], nesting: int,
                    budget: int) -> None:
    """Raises MalformedMessage or LimitExceeded unless every object of the message lies in
    its segment, is reached once, and the message nests no deeper than ``nesting``."""
    words = np.frombuffer(body, "<u8")
    ends = np.cumsum(np.array(segment_words, np.int64))
    starts = ends - np.array(segment_words, np.int64)
    total = int(ends[-1])
    if segment_words[0] == 0:
        raise MalformedMessage("message without a root pointer")
    left = total  # words not yet read: an object read twice makes this run out
    empty_elements = budget
    # Pending pointers: their word, the word their offset counts from, their segment.
    value = words[:1].copy()
    base = np.array([1], np.int64)
    segment = np.array([0], np.int64)
    for _depth in range(nesting):
        keep = value != 0
        value, base, segment = value[keep], base[keep], segment[keep]
        if not len(value):
            return
        value, base, segment = _resolve_far(words, starts, ends, value, base, segment)
        kind = (value & 3).astype(np.int64)
        if np.any(kind == _OTHER):
            raise MalformedMessage("capability or unknown pointer in a message")
        offset = ((value >> 2) & 0x3FFFFFFF).astype(np.int64)
        target = base + np.where(offset >= 1 << 29, offset - (1 << 30), offset)
        is_struct = kind == 0
        children, left, empty_elements = _objects(words, starts, ends, value, target, segment,
                                                  is_struct, left, empty_elements)
        value = words[children]
        base, segment = children + 1, _segment_of(children, ends)
    if len(value) and np.any(value != 0):
        raise LimitExceeded(f"message nests deeper than {nesting}")


def _resolve_far(words: np.ndarray, starts: np.ndarray, ends: np.ndarray, value: np.ndarray,
                 base: np.ndarray, segment: np.ndarray) -> tuple[np.ndarray, ...]:
    far = (value & 3).astype(np.int64) == _FAR
    if not np.any(far):
        return value, base, segment
    value, base, segment = value.copy(), base.copy(), segment.copy()
    pad_segment = (value[far] >> 32).astype(np.int64)
    double = ((value[far] >> 2) & 1).astype(np.int64)
    if np.any(pad_segment >= len(starts)):
        raise MalformedMessage("far pointer to a segment the message has not")
    pad = starts[pad_segment] + ((value[far] >> 3) & 0x1FFFFFFF).astype(np.int64)
    if np.any(pad + 1 + double > ends[pad_segment]):
        raise MalformedMessage("far pointer out of bounds")
    landing = words[pad]
    tag = words[np.minimum(pad + 1, len(words) - 1)]
    single = double == 0
    if np.any((landing[single] & 3) == _FAR):
        raise MalformedMessage("far pointer lands on another far pointer")
    if np.any(((landing[~single] & 7) != _FAR) | ((tag[~single] & 3) == _FAR)):
        raise MalformedMessage("malformed double-far landing pad")
    content_segment = (landing >> 32).astype(np.int64)
    if np.any(content_segment[~single] >= len(starts)):
        raise MalformedMessage("far pointer to a segment the message has not")
    content = starts[np.where(single, 0, content_segment)] + (
        (landing >> 3) & 0x1FFFFFFF).astype(np.int64)
    # A double far's object starts at `content`, described by the tag (whose offset is 0).
    value[far] = np.where(single, landing, tag & np.uint64(0xFFFFFFFF00000003))
    base[far] = np.where(single, pad + 1, content)
    segment[far] = np.where(single, pad_segment, content_segment)
    return value, base, segment


def _objects(words: np.ndarray, starts: np.ndarray, ends: np.ndarray, value: np.ndarray,
             target: np.ndarray, segment: np.ndarray, is_struct: np.ndarray, left: int,
             empty_left: int) -> tuple[np.ndarray, int, int]:
    """(word index of every pointer inside the objects, words and empty elements left)."""
    upper = value >> 32
    data = np.where(is_struct, (upper & 0xFFFF).astype(np.int64), 0)
    pointers = np.where(is_struct, (upper >> 16).astype(np.int64), 0)
    code = np.where(is_struct, 0, (upper & 7).astype(np.int64))
    count = np.where(is_struct, 0, (value >> 35).astype(np.int64))
    composite = ~is_struct & (code == 7)
    plain_list = ~is_struct & ~composite
    # Objects' extent: a struct's sections, a list's elements (composite: its tag + words).
    size = np.where(is_struct, data + pointers,
                    np.where(composite, count + 1, -(-count * _BITS[code] // 64)))
    if np.any((target < starts[segment]) | (target + size > ends[segment])):
        raise MalformedMessage("pointer out of bounds")
    pointer_lists = plain_list & (code == 6)
    amplified = int(count[plain_list & (code == 0)].sum())
    first = [target + data, target[pointer_lists]]
    length = [pointers, count[pointer_lists]]
    read = size.copy()
    if np.any(composite):
        at = target[composite]
        tag = words[at]
        if np.any((tag & 3) != 0):
            raise MalformedMessage("list of structs without a struct tag")
        elements = ((tag >> 2) & 0x3FFFFFFF).astype(np.int64)
        element_data = ((tag >> 32) & 0xFFFF).astype(np.int64)
        element_pointers = (tag >> 48).astype(np.int64)
        stride = element_data + element_pointers
        if np.any(elements * stride > count[composite]):
            raise MalformedMessage("list of structs overruns its words")
        amplified += int(elements[stride == 0].sum())
        read[composite] = 1 + elements * stride
    left -= int(read.sum())
    empty_left -= amplified
    if left < 0:
        raise LimitExceeded("pointers share objects: more words to read than the message has")
    if empty_left < 0:
        raise LimitExceeded("lists claim more empty elements than the read budget allows")
    if np.any(composite):
        with_pointers = element_pointers > 0
        index = _ranges(np.zeros(int(with_pointers.sum()), np.int64), elements[with_pointers])
        owner = np.repeat(np.flatnonzero(with_pointers), elements[with_pointers])
        first.append(at[owner] + 1 + index * stride[owner] + element_data[owner])
        length.append(element_pointers[owner])
    return _ranges(np.concatenate(first), np.concatenate(length)), left, empty_left


def _ranges(first: np.ndarray, length: np.ndarray) -> np.ndarray:
    """The concatenation of ``arange(f, f + n)`` for each (f, n)."""
    keep = length > 0
    first, length = first[keep], length[keep]
    if not len(first):
        return np.empty(0, np.int64)
    steps = np.ones(int(length.sum()), np.int64)
    starts = np.cumsum(length) - length
    steps[0] = first[0]
    steps[starts[1:]] = first[1:] - (first[:-1] + length[:-1] - 1)
    return np.cumsum(steps)


def _segment_of(index: np.ndarray, ends: np.ndarray) -> np.ndarray:
    return np.searchsorted(ends, index, side="right").astype(np.int64)
