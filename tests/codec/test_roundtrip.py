"""Every registered struct survives encode -> decode -> fields.plain unchanged.

The filler (tests/codec/filler.py) sets every field of the struct, nested structs, lists
(two elements each) and groups to distinct non-default values, once per member of the
struct's union; whatever the app shows for the decoded message must be exactly that.
"""

from __future__ import annotations

import pytest

from app.codec.decode import decode, encoding_for
from app.codec.fields import plain
from app.codec.registry import registry
from tests.codec.filler import filled_message, union_choices

STRUCTS = sorted(registry().structs)


def test_every_family_is_covered():
    families = {name.split(".", 1)[0] for name in STRUCTS}
    assert families == {"transport", "isaac", "bow", "fleet", "foxglove", "autoware"}
    assert len(STRUCTS) > 300


@pytest.mark.parametrize("name", STRUCTS)
def test_roundtrip(name: str) -> None:
    for choice in range(union_choices(registry().structs[name].schema)):
        payload, attachment, expected = filled_message(name, choice)

        decoded = decode(encoding_for(name), payload, attachment)

        assert decoded.type_name == name
        assert decoded.size == len(payload)
        assert plain(decoded.root) == expected, f"{name} (union choice {choice})"


def test_isaac_buffers_reach_the_decoded_message():
    payload, attachment, expected = filled_message("isaac.ImageProto")
    index = expected["dataBufferIndex"]
    decoded = decode(encoding_for("isaac.ImageProto"), payload, attachment)
    assert decoded.buffer(index) == bytes([index % 256]) * 3
