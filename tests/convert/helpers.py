"""Real Cap'n Proto bytes through decode and the scene's converter for their type."""

from __future__ import annotations

from typing import Any

from app.codec.decode import DecodedMessage, decode, encoding_for
from app.codec.registry import registry
from app.convert.registry import get_converter, scene_converter_for


def new(type_name: str) -> Any:
    return registry().structs[type_name].new_message()


def wire(message: Any) -> DecodedMessage:
    type_name = registry().name_of(message.schema.node.id)
    payload = message.to_bytes()
    message.clear_write_flag()  # tests edit and re-send the same builder
    return decode(encoding_for(type_name), payload)


def convert(message: Any) -> Any:
    decoded = wire(message)
    converter = scene_converter_for(decoded.type_name)
    assert converter is not None, f"no scene converter for {decoded.type_name}"
    return get_converter(converter)(decoded)
