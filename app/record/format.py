"""How Fieldstation samples map onto MCAP records (documented in schemas/README.md), and the
types the recorder, the black box and the reader share."""

from __future__ import annotations

import functools
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from app.codec.buffers import Attachment
from app.codec.decode import ENCODING_PREFIX
from schemas.loader import FAMILIES, PACKAGED_FAMILIES, SCHEMA_DIR

PROFILE = "fieldstation"
SCHEMA_ENCODING = "capnp"
CAPNP = "capnp"  # data = the zenoh payload, byte for byte
CAPNP_ATTACHED = "capnp+attachment"  # data = u32 LE payload length, payload, attachment
ZENOH = "zenoh"  # an encoding that is not application/capnp: opaque bytes, schema id 0
LIVELINESS = "zenoh-liveliness"  # data = b"\x01" alive, b"\x00" gone
OUR_ENCODINGS = frozenset({CAPNP, CAPNP_ATTACHED, ZENOH, LIVELINESS})

META_ZENOH_ENCODING = "zenoh_encoding"
META_ATTACHMENT = "attachment"  # "true" on a "zenoh" channel whose data is framed
ALIVE = b"\x01"
GONE = b"\x00"
CATALOG_ENCODING = ENCODING_PREFIX + "transport.Catalog"

_LENGTH = struct.Struct("<I")


@dataclass(frozen=True)
class LoggedSample:
    key: str
    encoding: str  # the zenoh encoding
    payload: bytes
    attachment: Attachment | None
    log_time_ns: int
    publish_time_ns: int


@dataclass(frozen=True)
class LivelinessEvent:
    key: str  # the token key, fleet/<robotId>
    alive: bool
    log_time_ns: int


@dataclass(frozen=True)
class ForeignChannelInfo:
    """A channel not written by us (e.g. foxglove protobuf)."""

    topic: str
    message_encoding: str
    schema_name: str
    schema_encoding: str
    schema_data: bytes
    metadata: dict[str, str]
    file_topics: tuple[str, ...] = ()  # every channel's topic in its file


class ForeignError(Exception):
    """One readable line: why a foreign message could not be translated (or, raised by a
    :data:`Translator`, why a whole channel is not readable here)."""


# The capnp payload and attachment of one sample
Translated = tuple[bytes, Attachment | None]


class ForeignChannel(Protocol):
    key: str  # the key it plays on, fleet/<robotId>/<...>
    encoding: str  # the zenoh encoding of what translate returns

    def translate(self, data: bytes) -> Translated | Sequence[Translated]:
        """The sample one message makes, or a list of the samples it makes (a ROS
        DiagnosticArray is one fault per status); raises ForeignError."""
        ...


# (channel, robot id for the file) -> None when the channel is not readable here; a
# ForeignError instead says why not ("std_msgs/msg/String has no display here yet")
Translator = Callable[[ForeignChannelInfo, str], ForeignChannel | None]


def type_name_of(zenoh_encoding: str) -> str | None:
    """``isaac.PointCloudProto`` for ``application/capnp;isaac.PointCloudProto``, else None."""
    if zenoh_encoding.startswith(ENCODING_PREFIX) and len(zenoh_encoding) > len(ENCODING_PREFIX):
        return zenoh_encoding[len(ENCODING_PREFIX):]
    return None


@functools.cache
def schema_text(type_name: str) -> bytes | None:
    """The UTF-8 text of the .capnp file that defines ``type_name``; None for a type that
    none of ours defines (its samples are still recorded, with schema id 0)."""
    from app.codec.registry import registry  # loads every schema: only when first needed

    family, _, rest = type_name.partition(".")
    if family not in FAMILIES or type_name not in registry().structs:  # a ROS 2 type's own
        return None  # struct is made at run time (app.ros2.generic): no file of ours
    if family in PACKAGED_FAMILIES:
        path = SCHEMA_DIR / family / f"{rest.partition('.')[0]}.capnp"
    else:
        path = SCHEMA_DIR / f"{family}.capnp"
    return path.read_bytes() if path.is_file() else None


def message_encoding(zenoh_encoding: str | None, attached: bool) -> str:
    """None stands for a Cap'n Proto encoding."""
    if zenoh_encoding is not None and type_name_of(zenoh_encoding) is None:
        return ZENOH
    return CAPNP_ATTACHED if attached else CAPNP


def channel_metadata(zenoh_encoding: str, attached: bool) -> dict[str, str]:
    metadata = {META_ZENOH_ENCODING: zenoh_encoding}
    if attached and type_name_of(zenoh_encoding) is None:
        metadata[META_ATTACHMENT] = "true"
    return metadata


def is_attached(message_encoding: str, metadata: dict[str, str]) -> bool:
    return message_encoding == CAPNP_ATTACHED or (
        message_encoding == ZENOH and metadata.get(META_ATTACHMENT) == "true")


def encode_message(payload: bytes, attachment: Attachment | None,
                   zenoh_encoding: str | None = None) -> tuple[str, bytes]:
    """(MCAP message encoding, message data) for one sample (of a Cap'n Proto encoding
    unless ``zenoh_encoding`` says otherwise)."""
    attached = attachment is not None
    encoding = message_encoding(zenoh_encoding, attached)
    if attachment is None:
        return encoding, payload
    return encoding, b"".join((_LENGTH.pack(len(payload)), payload, bytes(attachment)))


def decode_message(data: bytes | memoryview, attached: bool) -> tuple[bytes, bytes | None]:
    """(payload, attachment) of one message's data; ValueError when the framing is broken."""
    if not attached:
        return bytes(data), None
    if len(data) < 4:
        raise ValueError(f"framed message of {len(data)} bytes has no length")
    (length,) = _LENGTH.unpack_from(data)
    if 4 + length > len(data):
        raise ValueError(f"payload of {length} bytes does not fit a message of {len(data)}")
    return bytes(data[4:4 + length]), bytes(data[4 + length:])


class LogError(Exception):
    """One line: why a file cannot be read at all ("not an MCAP file: x.txt")."""
