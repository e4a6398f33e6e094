"""Real payloads of every registered type: what the fuzzer mutates.

Per type: a filled message for each member of its root union (one segment, as a robot's
writer sends small messages), the same filled message written in many small segments (so
real far and double-far pointers occur), and, for types with a ``Data`` or primitive-list
field of their own, a large one above ``EAGER_CHECK_BYTES`` (checked by the structural walk
and typed as it is read, not at decode).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from app.codec.decode import EAGER_CHECK_BYTES
from app.codec.limits import limits_for
from app.codec.registry import registry
from schemas.loader import FAMILIES
from tests.codec.filler import attachment_for, fill, union_choices
from tests.codec.layout import Layout, Pointer

LARGE_BYTES = EAGER_CHECK_BYTES + 8 * 1024
_PRIMITIVE_BITS = {"bool": 1, "int8": 8, "uint8": 8, "int16": 16, "uint16": 16, "int32": 32,
                   "uint32": 32, "float32": 32, "int64": 64, "uint64": 64, "float64": 64}


@dataclass(frozen=True)
class Sample:
    type_name: str
    shape: str  # "filled", "segmented" or "large"
    payload: bytes
    attachment: bytes | None

    @functools.cached_property
    def layout(self) -> Layout:
        return Layout.from_bytes(self.payload)

    @functools.cached_property
    def pointers(self) -> list[Pointer]:
        return self.layout.pointers()


@dataclass(frozen=True)
class Corpus:
    types: list[str]  # every registered struct, sorted
    samples: dict[str, list[Sample]]
    with_buffers: list[str]  # types whose samples carry an isaac attachment

    def of(self, type_name: str, shape: str | None = None) -> list[Sample]:
        samples = self.samples[type_name]
        chosen = [s for s in samples if s.shape == shape] if shape else samples
        return chosen or samples


def _filled(type_name: str, choice: int, first_segment_words: int | None) -> Any:
    struct_type = registry().structs[type_name]
    builder = (struct_type.new_message(num_first_segment_words=first_segment_words)
               if first_segment_words else struct_type.new_message())
    return builder, fill(builder, choice)


def _large_field(schema: Any) -> tuple[str, str] | None:
    """(name, element kind) of the root's first Data or primitive-list field outside its
    union, which a large sample fills."""
    union = set(schema.union_fields)
    for f in schema.fields_list:
        if f.proto.which() != "slot" or f.proto.name in union:
            continue
        kind = f.proto.slot.type.which()
        if kind == "data":
            return f.proto.name, "data"
        if kind == "list":
            element = f.proto.slot.type.list.elementType.which()
            if element in _PRIMITIVE_BITS:
                return f.proto.name, element
    return None


def _large(type_name: str) -> Sample | None:
    builder, expected = _filled(type_name, 0, None)
    found = _large_field(builder.schema)
    if found is None:
        return None
    name, kind = found
    if kind == "data":
        setattr(builder, name, bytes(range(256)) * (LARGE_BYTES // 256))
    else:
        count = 8 * LARGE_BYTES // _PRIMITIVE_BITS[kind]
        items = builder.init(name, count)
        value = True if kind == "bool" else 1
        for i in range(0, count, max(1, count // 64)):
            items[i] = value
    payload = builder.to_bytes()
    if len(payload) > limits_for(type_name).max_bytes:  # a small command type
        return None
    return Sample(type_name, "large", payload, attachment_for(expected))


def _samples(type_name: str) -> list[Sample]:
    schema = registry().structs[type_name].schema
    samples = []
    for choice in range(union_choices(schema)):
        builder, expected = _filled(type_name, choice, None)
        attachment = attachment_for(expected)
        samples.append(Sample(type_name, "filled", builder.to_bytes(), attachment))
        segmented, _ = _filled(type_name, choice, 1)
        samples.append(Sample(type_name, "segmented", segmented.to_bytes(), attachment))
    large = _large(type_name)
    if large is not None:
        samples.append(large)
    return samples


@functools.cache
def corpus() -> Corpus:
    types = sorted(n for n in registry().structs if n.split(".", 1)[0] in FAMILIES)
    samples = {name: _samples(name) for name in types}
    with_buffers = [name for name in types if any(s.attachment for s in samples[name])]
    return Corpus(types, samples, with_buffers)
