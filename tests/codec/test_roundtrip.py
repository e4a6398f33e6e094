"""Every registered struct survives encode -> decode -> fields.plain unchanged.

The filler (tests/codec/filler.py) sets every field of the struct, nested structs, lists
(two elements each) and groups to distinct non-default values, once per member of the
struct's union; whatever the app shows for the decoded message must be exactly that.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.codec.decode import decode, encoding_for
from app.codec.fields import DataSummary, ListSummary, plain
from app.codec.registry import registry
from schemas.loader import FAMILIES
from tests.codec.filler import filled_message, union_choices, union_members

STRUCTS = sorted(n for n in registry().structs if n.split(".", 1)[0] in FAMILIES)
PLAIN_LEAVES = (str, int, float, bool, type(None), DataSummary)


def non_plain_values(value: Any, path: str = "") -> list[str]:
    """Where plain() left something that is not plain Python (a capnp object, say)."""
    if isinstance(value, dict):
        children = [(f"{path}.{key}", item) for key, item in value.items()]
    elif isinstance(value, list | ListSummary):
        items = value.first if isinstance(value, ListSummary) else value
        children = [(f"{path}[{i}]", item) for i, item in enumerate(items)]
    else:
        children = None
    if children is not None:
        return [bad for where, item in children for bad in non_plain_values(item, where)]
    if isinstance(value, PLAIN_LEAVES):
        return []
    return [f"{path.lstrip('.')}: {type(value).__name__}"]


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
        shown = plain(decoded.root)
        assert non_plain_values(shown) == [], f"{name}: plain() shows non-plain values"
        assert shown == expected, f"{name} (union choice {choice})"


def test_isaac_buffers_reach_the_decoded_message():
    payload, attachment, expected = filled_message("isaac.ImageProto")
    index = expected["dataBufferIndex"]
    decoded = decode(encoding_for("isaac.ImageProto"), payload, attachment)
    assert decoded.buffer(index) == bytes([index % 256]) * 3


def _single_enumerant(schema: Any, field: str) -> bool:
    proto = schema.fields[field].proto
    if proto.which() != "slot" or proto.slot.type.which() != "enum":
        return False
    return len(schema.fields[field].schema.enumerants) == 1


@pytest.mark.parametrize("name", STRUCTS)
def test_filler_sets_every_field_to_a_non_default_value(name: str) -> None:
    """So the round trip cannot pass by comparing defaults with defaults; and over the
    union choices every union member is set once."""
    struct_type = registry().structs[name]
    members = union_members(struct_type.schema)
    default = plain(struct_type.new_message().as_reader())
    chosen = set()
    for choice in range(union_choices(struct_type.schema)):
        _payload, _attachment, expected = filled_message(name, choice)
        chosen |= set(expected) & set(members)
        for field, value in expected.items():
            was = default.get(field)
            if value is None or value == {} or _single_enumerant(struct_type.schema, field):
                continue  # Void, an empty struct, an enum with one value: nothing else to set
            assert type(value) is not type(was) or value != was, f"{name}.{field} at default"
    assert chosen == set(members)


ONE_BUFFER = registry().structs["transport.Buffers"].new_message(buffers=[b"\x00"]).to_bytes()


@pytest.mark.parametrize("name", STRUCTS)
def test_message_with_every_field_unset_decodes(name: str) -> None:
    """A robot that leaves fields at their defaults (no Data, no text, no lists set) sends
    a valid sample; the app shows the defaults. (One buffer for a root ImageProto/TensorProto,
    whose dataBufferIndex defaults to 0.)"""
    builder = registry().structs[name].new_message()
    decoded = decode(encoding_for(name), builder.to_bytes(), ONE_BUFFER)
    shown = plain(decoded.root)
    assert non_plain_values(shown) == [], f"{name}: plain() shows non-plain values"
    assert set(shown) == set(plain(builder.as_reader()))


def test_scene_with_a_model_by_url_decodes():
    """foxglove ModelPrimitive: a model loaded from a URL has no embedded `data`."""
    builder = registry().structs["foxglove.SceneUpdate"].new_message()
    entity = builder.init("entities", 1)[0]
    entity.id = "robot"
    model = entity.init("models", 1)[0]
    model.url = "package://robot/meshes/base.glb"
    model.mediaType = "model/gltf-binary"
    decoded = decode(encoding_for("foxglove.SceneUpdate"), builder.to_bytes())
    shown = plain(decoded.root)["entities"][0]["models"][0]
    assert shown["url"] == "package://robot/meshes/base.glb"
    assert shown["data"] == DataSummary(0, b"")
