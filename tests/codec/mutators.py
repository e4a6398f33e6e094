"""The hostile samples the fuzzer feeds to the decoder, one kind of damage each.

Every mutator takes a real sample (tests/codec/corpus.py) and returns a ``Case``: the
encoding, payload and attachment to decode, and ``how`` (the variant of its kind) for the
report. Kinds:

- ``random``: random bytes; ``framed``: random words behind a valid one-segment header
- ``bitflip``: a few bits flipped; ``bytes``: bytes, words and counts changed (framing kept)
- ``truncate``: cut at any offset (inside the segment table too), or a segment shortened
  or dropped under a consistent segment table
- ``huge-list``: list pointers and struct tags claiming enormous element counts or struct
  sizes, lists of zero-sized elements
- ``shared``: two pointers aimed at one object, many pointers aimed at one object
  (amplification), a pointer aimed at an object that contains it (a cycle)
- ``far``: pointers rewritten as far and double-far pointers through landing pads (valid),
  then pads, segments and tags broken; real multi-segment messages the same way
- ``encoding``: the bytes of one type decoded as another, garbled or unknown encodings
- ``attachment``: the isaac attachment missing, empty, truncated, mutated, with too few
  buffers, in many segments (far pointers), broken there, another message, or given to a
  type that has no buffers
"""

from __future__ import annotations

import functools
import random
import struct
from collections.abc import Callable
from dataclasses import dataclass
from types import EllipsisType

from app.codec.decode import encoding_for
from app.codec.registry import registry
from tests.codec.corpus import Corpus, Sample
from tests.codec.layout import (
    LIST,
    OFFSET_MASK,
    STRUCT,
    Layout,
    Pointer,
    far_pointer,
    near_pointer,
)
from tests.codec.wire import COMPOSITE_ELEMENTS, struct_pointer

MAX_COUNT = (1 << 29) - 1  # the largest element count a list pointer can state


@dataclass(frozen=True)
class Case:
    kind: str
    how: str
    type_name: str  # the type of the real sample that was mutated
    encoding: str
    payload: bytes
    attachment: bytes | None


def _case(kind: str, how: str, sample: Sample, payload: bytes,
          attachment: bytes | EllipsisType | None = ..., encoding: str | None = None) -> Case:
    """``attachment``: the sample's own unless given (None: no attachment)."""
    return Case(kind, how, sample.type_name,
                encoding_for(sample.type_name) if encoding is None else encoding, payload,
                sample.attachment if attachment is ... else attachment)


# ---------------------------------------------------------------------------------------
# Bytes
# ---------------------------------------------------------------------------------------


def random_bytes(rng: random.Random, sample: Sample, corpus: Corpus) -> Case:
    return _case("random", "bytes", sample, rng.randbytes(rng.randrange(0, 256)))


def framed_random(rng: random.Random, sample: Sample, corpus: Corpus) -> Case:
    """Random words behind a valid one-segment header, half of them under a plausible root
    struct pointer: reaches pycapnp's pointer checks and the validation walk."""
    words = rng.randrange(1, 48)
    body = bytearray(rng.randbytes(8 * words))
    how = "words"
    if rng.randrange(2):
        root = struct_pointer(0, rng.randrange(4), rng.randrange(5))
        body[0:8] = root.to_bytes(8, "little")
        how = "root"
    return _case("framed", how, sample, struct.pack("<II", 0, words) + bytes(body))


def _window(rng: random.Random, size: int) -> int:
    """A byte position of a payload: near its start (segment table, root, first
    pointers) as often as anywhere, so a large message's pointers are hit too."""
    return rng.randrange(min(size, rng.choice((64, 512, size))))


def bit_flips(rng: random.Random, sample: Sample, corpus: Corpus) -> Case:
    data = bytearray(sample.payload)
    flips = rng.choice((1, 1, 2, 3, 8))
    body_only = rng.random() < 0.9
    for _ in range(flips):
        position = _window(rng, len(data) - 8) + 8 if body_only else _window(rng, len(data))
        data[position] ^= 1 << rng.randrange(8)
    return _case("bitflip", f"{flips} in {'body' if body_only else 'all'}", sample, bytes(data))


def mutate(rng: random.Random, payload: bytes) -> bytes:
    """A real message with a few bytes, bits or whole words changed, keeping its framing."""
    data = bytearray(payload)
    body = len(data) - 8
    for _ in range(rng.randrange(1, 5)):
        position = 8 + rng.randrange(body)
        how = rng.randrange(4)
        if how == 0:
            data[position] = rng.randrange(256)
        elif how == 1:
            data[position] ^= 1 << rng.randrange(8)
        elif how == 2:  # a random pointer-like word: any kind, offset, size, count
            word = 8 + 8 * ((position - 8) // 8)
            data[word : word + 8] = rng.randbytes(8)
        else:  # a list/struct count pushed high
            word = 8 + 8 * ((position - 8) // 8)
            data[word + 4 + rng.randrange(4)] = rng.choice((0x7F, 0xFF, 0x10))
    return bytes(data)


def byte_changes(rng: random.Random, sample: Sample, corpus: Corpus) -> Case:
    if rng.randrange(2) or len(sample.pointers) < 2:
        return _case("bytes", "anywhere", sample, mutate(rng, sample.payload))
    layout = sample.layout.copy()
    pointer = rng.choice(sample.pointers)
    word = rng.getrandbits(64)
    if rng.randrange(2):  # keep its kind: a struct or list pointer with random fields
        word = (word & ~3) | pointer.target.kind
    layout.set_word(pointer.segment, pointer.index, word)
    return _case("bytes", "pointer word", sample, layout.to_bytes())


# ---------------------------------------------------------------------------------------
# Truncation
# ---------------------------------------------------------------------------------------


def truncate(rng: random.Random, sample: Sample, corpus: Corpus) -> Case:
    payload = sample.payload
    layout = sample.layout
    table = 8 * ((4 + 4 * len(layout.segments) + 7) // 8)
    choice = rng.randrange(4)
    if choice == 0:
        return _case("truncate", "in segment table", sample, payload[: rng.randrange(table)])
    if choice == 1:
        return _case("truncate", "at any byte", sample, payload[: rng.randrange(len(payload))])
    shorter = layout.copy()
    if choice == 2 or len(layout.segments) == 1:
        used = layout.used_words(sample.pointers)
        segment = rng.choice([i for i, words in enumerate(used) if words])
        keep = rng.randrange(used[segment])  # at least one word that something uses cut
        del shorter.segments[segment][8 * keep :]
        return _case("truncate", "segment shortened, table agrees", sample, shorter.to_bytes())
    del shorter.segments[rng.randrange(1, len(layout.segments)) :]
    return _case("truncate", "segments dropped, table agrees", sample, shorter.to_bytes())


# ---------------------------------------------------------------------------------------
# Huge lists and struct sizes
# ---------------------------------------------------------------------------------------


def _huge_count(rng: random.Random, count: int) -> int:
    return rng.choice((MAX_COUNT, rng.randrange(1 << 16, MAX_COUNT), 2 * count + 1, count + 1))


def huge_list(rng: random.Random, sample: Sample, corpus: Corpus) -> Case:
    layout = sample.layout.copy()
    lists = [p for p in sample.pointers if p.target.kind == LIST]
    composites = [p for p in lists if (p.target.tag >> 32) & 7 == COMPOSITE_ELEMENTS]
    choice = rng.randrange(4)
    if choice == 0 and composites:
        pointer = rng.choice(composites)
        tag_word = layout.word(pointer.target.segment, pointer.target.start)
        elements = (tag_word >> 2) & OFFSET_MASK
        if rng.randrange(2):  # elements of no words: nothing on the wire, all to walk
            count, how = rng.choice((MAX_COUNT, rng.randrange(1, 1 << 20))), "empty structs"
            new_tag = struct_pointer(count, 0, 0)
        else:
            count, how = _huge_count(rng, elements), "struct elements"
            new_tag = (tag_word & ~(OFFSET_MASK << 2)) | ((count & OFFSET_MASK) << 2)
        layout.set_word(pointer.target.segment, pointer.target.start, new_tag)
        return _case("huge-list", how, sample, layout.to_bytes())
    if choice == 1 and lists:
        pointer = rng.choice(lists)
        if rng.randrange(3):
            size, how = (pointer.target.tag >> 32) & 7, "count"
        else:
            size, how = 0, "void elements"
        count = _huge_count(rng, pointer.target.tag >> 35)
        layout.set_sizes(pointer, LIST | (size << 32) | (count << 35))
        return _case("huge-list", how, sample, layout.to_bytes())
    pointer = rng.choice(sample.pointers)
    if pointer.target.kind == STRUCT and rng.randrange(2):
        data = rng.choice((0xFFFF, rng.randrange(0x10000), 0))
        pointers = rng.choice((0xFFFF, rng.randrange(0x10000), 0))
        layout.set_sizes(pointer, struct_pointer(0, data, pointers))
        return _case("huge-list", "struct sizes", sample, layout.to_bytes())
    # Any pointer made a list of many elements of any size.
    size = rng.randrange(8)
    count = _huge_count(rng, 0)
    layout.set_sizes(pointer, LIST | (size << 32) | (count << 35))
    return _case("huge-list", "any pointer", sample, layout.to_bytes())


# ---------------------------------------------------------------------------------------
# Shared objects, amplification, cycles
# ---------------------------------------------------------------------------------------


def _is_root(pointer: Pointer) -> bool:
    return (pointer.segment, pointer.index) == (0, 0)


def shared(rng: random.Random, sample: Sample, corpus: Corpus) -> Case:
    layout = sample.layout.copy()
    pointers = sample.pointers
    inner = [p for p in pointers if not _is_root(p)]
    cyclic = [p for p in inner if p.ancestors]
    choice = rng.randrange(3)
    if choice == 0 and cyclic:
        pointer = rng.choice(cyclic)
        layout.aim(pointer.segment, pointer.index, rng.choice(pointer.ancestors))
        return _case("shared", "cycle", sample, layout.to_bytes())
    if choice == 1 and len(inner) >= 2:
        first, second = rng.sample(inner, 2)
        layout.aim(second.segment, second.index, first.target)
        return _case("shared", "pair", sample, layout.to_bytes())
    if not inner:  # a struct without pointers: its root aimed at its own root pointer
        layout.set_word(0, 0, struct_pointer(-1, 0, 1))
        return _case("shared", "root at itself", sample, layout.to_bytes())
    # Fan-in: every pointer of the same kind and size aimed at one object.
    target = rng.choice(inner).target
    alike = [p for p in inner if p.target.tag == target.tag and p.target not in
             (target, *p.ancestors)]
    for pointer in alike or inner:
        layout.aim(pointer.segment, pointer.index, target)
    return _case("shared", f"fan-in of {len(alike or inner)}", sample, layout.to_bytes())


# ---------------------------------------------------------------------------------------
# Far pointers and multi-segment framing
# ---------------------------------------------------------------------------------------


def _break_far(rng: random.Random, layout: Layout, far: tuple[int, int]) -> str:
    """Damages the far pointer at ``far`` or its landing pad; what was done."""
    word = layout.word(*far)
    pad_segment, pad = word >> 32, (word >> 3) & 0x1FFFFFFF
    double = (word >> 2) & 1
    choice = rng.randrange(6)
    if choice == 0:
        segment = rng.choice((len(layout.segments), rng.randrange(len(layout.segments),
                                                                  1 << 32)))
        layout.set_word(*far, far_pointer(segment, pad, bool(double)))
        return "pad in a segment the message has not"
    if choice == 1:
        beyond = layout.words(pad_segment) - double + rng.randrange(3)
        layout.set_word(*far, far_pointer(pad_segment, beyond, bool(double)))
        return "pad past its segment"
    if choice == 2:
        layout.set_word(*far, word ^ 4)
        return "double-far bit flipped"
    if choice == 3:  # the landing pad is itself a far pointer (to the pad, or elsewhere)
        layout.set_word(pad_segment, pad, far_pointer(pad_segment, pad, bool(rng.randrange(2))))
        return "landing pad is a far pointer"
    if choice == 4 and double:
        landing = layout.word(pad_segment, pad)
        segment = rng.choice((len(layout.segments), landing >> 32))
        start = rng.choice(((landing >> 3) & 0x1FFFFFFF, layout.words(segment % len(
            layout.segments)) + rng.randrange(4)))
        layout.set_word(pad_segment, pad, far_pointer(segment, start))
        return "double-far content out of range"
    if choice == 4:
        landing = layout.word(pad_segment, pad)
        layout.set_word(pad_segment, pad, near_pointer(landing, rng.randrange(1 << 20)))
        return "landing pad points past its segment"
    if double:
        layout.set_word(pad_segment, pad + 1, far_pointer(0, 0))
        return "double-far tag is a far pointer"
    layout.set_word(pad_segment, pad, rng.getrandbits(64))
    return "landing pad random"


def _far_words(layout: Layout) -> list[tuple[int, int]]:
    return [(p.segment, p.index) for p in layout.pointers() if p.far]


def far(rng: random.Random, sample: Sample, corpus: Corpus) -> Case:
    base = sample if sample.shape == "segmented" or rng.randrange(2) else None
    if base is None:
        base = rng.choice(corpus.of(sample.type_name, "filled"))
    layout = base.layout.copy()
    how = f"{base.shape} sample"
    if base.shape != "segmented" or rng.randrange(2):
        for pointer in rng.sample(base.pointers, min(len(base.pointers), rng.randrange(1, 4))):
            if rng.randrange(2):
                layout.aim_far(pointer.segment, pointer.index, pointer.target)
                how += ", made far"
            else:
                layout.aim_double_far(pointer.segment, pointer.index, pointer.target)
                how += ", made double-far"
    choice = rng.randrange(5)
    if choice < 3:
        fars = _far_words(layout)
        if fars:
            how += ", " + _break_far(rng, layout, rng.choice(fars))
    elif choice == 3:
        for _ in range(rng.randrange(1, 4)):
            layout.new_segment()
        how += ", empty segments added"
    return _case("far", how, base, layout.to_bytes())


# ---------------------------------------------------------------------------------------
# Encodings
# ---------------------------------------------------------------------------------------

_GARBLE: tuple[Callable[[random.Random, str], str], ...] = (
    lambda rng, e: e[: rng.randrange(len(e))],
    lambda rng, e: e.upper(),
    lambda rng, e: e.replace(";", rng.choice((" ;", "; ", ":", ""))),
    lambda rng, e: e + rng.choice((".", ".X", " ", "\x00", ";x")),
    lambda rng, e: e.replace("capnp", rng.choice(("protobuf", "json", "cdr", "Capnp"))),
    lambda rng, e: "application/capnp;" + "".join(chr(rng.randrange(1, 0x2FFFF))
                                                  for _ in range(rng.randrange(1, 12))),
    lambda rng, e: "application/capnp;" + "x" * rng.randrange(1000, 100_000),
    lambda rng, e: "application/capnp;\udcff" + e[18:],
    lambda rng, e: "application/capnp;" + rng.choice(sorted(registry().enums)),
    lambda rng, e: "application/capnp;" + e.rsplit(".", 1)[-1],
)


def wrong_encoding(rng: random.Random, sample: Sample, corpus: Corpus) -> Case:
    if rng.randrange(2):
        other = rng.choice(corpus.types)
        return _case("encoding", "another type's", sample, sample.payload,
                     encoding=encoding_for(other))
    garble = rng.randrange(len(_GARBLE))
    encoding = _GARBLE[garble](rng, encoding_for(sample.type_name))
    return _case("encoding", f"garbled {garble}", sample, sample.payload, encoding=encoding)


# ---------------------------------------------------------------------------------------
# Attachments
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Segmented:
    """An attachment's buffers written again in many small segments (far pointers)."""

    layout: Layout
    pointers: list[Pointer]
    fars: list[tuple[int, int]]
    buffers: int


@functools.cache
def _segmented(attachment: bytes) -> _Segmented:
    buffers_type = registry().structs["transport.Buffers"]
    with buffers_type.from_bytes(attachment) as reader:
        builder = buffers_type.new_message(num_first_segment_words=1)
        builder.buffers = list(reader.buffers)
        layout = Layout.from_bytes(builder.to_bytes())
    pointers = layout.pointers()
    fars = [(p.segment, p.index) for p in pointers if p.far]
    return _Segmented(layout, pointers, fars, len(reader.buffers))


def _buffers(count: int) -> bytes:
    message = registry().structs["transport.Buffers"].new_message()
    message.buffers = [bytes([i % 256]) * 3 for i in range(count)]
    return message.to_bytes()


def bad_attachment(rng: random.Random, sample: Sample, corpus: Corpus) -> Case:
    attachment = sample.attachment
    if attachment is None:  # a type without buffers given one
        other = rng.choice(corpus.of(rng.choice(corpus.with_buffers)))
        given = rng.choice((other.attachment or b"", b"junk", mutate(rng, _buffers(2))))
        return _case("attachment", "given to a type without buffers", sample, sample.payload,
                     given)
    choice = rng.randrange(8)
    if choice == 0:
        return _case("attachment", "missing", sample, sample.payload, rng.choice((None, b"")))
    if choice == 1:
        cut = attachment[: rng.randrange(len(attachment))]
        return _case("attachment", "truncated", sample, sample.payload, cut)
    if choice == 2:
        return _case("attachment", "mutated", sample, sample.payload, mutate(rng, attachment))
    if choice == 3:
        fewer = _buffers(rng.randrange(max(1, _segmented(attachment).buffers)))
        return _case("attachment", "too few buffers", sample, sample.payload, fewer)
    if choice == 4:
        other = rng.choice(corpus.of(rng.choice(corpus.types)))
        return _case("attachment", "another message", sample, sample.payload, other.payload)
    segmented = _segmented(attachment)
    layout = segmented.layout.copy()
    how = "in segments"
    if choice == 5:
        how += ", " + _break_far(rng, layout, rng.choice(segmented.fars))
    elif choice == 6:
        pointer = rng.choice(segmented.pointers[1:])
        count = _huge_count(rng, pointer.target.tag >> 35)
        size = rng.choice(((pointer.target.tag >> 32) & 7, rng.randrange(8)))
        layout.set_sizes(pointer, LIST | (size << 32) | (count << 35))
        how += ", a list claiming more"
    return _case("attachment", how, sample, sample.payload, layout.to_bytes())


MUTATORS: dict[str, Callable[[random.Random, Sample, Corpus], Case]] = {
    "random": random_bytes,
    "framed": framed_random,
    "bitflip": bit_flips,
    "bytes": byte_changes,
    "truncate": truncate,
    "huge-list": huge_list,
    "shared": shared,
    "far": far,
    "encoding": wrong_encoding,
    "attachment": bad_attachment,
}
KINDS = tuple(MUTATORS)
