"""Types shared by the recorder, the log reader and foreign-file translators (issue 13)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class LoggedSample:
    key: str
    encoding: str  # the zenoh encoding
    payload: bytes
    attachment: bytes | None
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


class ForeignChannel(Protocol):
    key: str  # the key it plays on, fleet/<robotId>/<...>
    encoding: str  # the zenoh encoding of what translate returns

    def translate(self, data: bytes) -> tuple[bytes, bytes | None]:
        """The capnp payload and attachment; raises ForeignError."""
        ...


class ForeignError(Exception):
    """A foreign message that does not translate (one readable line)."""


# (channel, robot_id for the file) -> None if not readable
Translator = Callable[[ForeignChannelInfo, str], ForeignChannel | None]
