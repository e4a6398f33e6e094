"""CDR payloads -> ROS 2 messages, through ``rosbags``' type store, with our limits.

Every failure is one of the codec's typed errors, counted on its topic like a bad Cap'n Proto
sample: a payload over its type's size limit (the limit of the foxglove struct it becomes,
else the default), a bad encapsulation header, a truncated payload or a sequence longer than
it, a type the store does not know, and a type hash that is not the one the name has.
Big primitive arrays (a cloud's or an image's ``data``) are numpy views of the payload.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from app.codec.errors import DecodeError, MalformedMessage, OversizedMessage, UnknownType
from app.codec.limits import DEFAULT, limits_for
from app.ros2 import detections, services
from app.ros2.definitions import read_definitions
from app.ros2.translate import TRANSLATIONS

# CDR encapsulation identifiers (OMG DDS-XTypes 7.6.3.1.2): plain CDR, big or little endian.
CDR_HEADERS = (b"\x00\x00", b"\x00\x01")


class TypeHashMismatch(DecodeError):
    """A sample or token names a type whose hash is not the one that name has here."""

    kind = "type hash"


class RosTypes:
    """The standard ROS 2 message definitions (Jazzy) with vision_msgs', those read from
    ``folders`` (app.ros2.definitions: a live robot's own types), and any a bag adds."""

    def __init__(self, folders: Sequence[Path] = ()) -> None:
        from rosbags.serde import SerdeError  # loaded with the first ROS robot
        from rosbags.typesys import Stores, get_typestore

        self._store = get_typestore(Stores.ROS2_JAZZY)
        self._store.register(detections.definitions())  # not among the standard ones
        self._store.register(services.definitions())  # no service is among them
        self._lock = threading.Lock()
        self._limits: dict[str, int] = {}  # bytes, by type: known types only
        self._serde_errors = (SerdeError, ValueError, IndexError, UnicodeDecodeError)
        read = read_definitions(list(folders), self.knows)
        self._store.register(read.types)
        self.custom = sorted(read.types)  # the types read from the folders
        self.problems = read.problems  # the files refused, and why

    def knows(self, type_name: str) -> bool:
        return type_name in self._store.types

    def add(self, definitions: dict[str, Any]) -> None:
        """Adds message definitions (``rosbags.typesys`` ``get_types_from_msg`` output)."""
        with self._lock:
            self._store.register(definitions)
            self.hash_of.cache_clear()
            self._limits.clear()

    @functools.lru_cache(maxsize=1024)  # noqa: B019 -- one store per station, kept for its life
    def hash_of(self, type_name: str) -> str:
        """The RIHS01 hash of a known type, as rmw_zenoh's keys and tokens carry it."""
        return str(self._store.hash_rihs01(type_name))

    def check_hash(self, type_name: str, type_hash: str) -> None:
        if not self.knows(type_name):
            raise UnknownType(f"no ROS 2 definition of {type_name}")
        if type_hash and type_hash != self.hash_of(type_name):
            raise TypeHashMismatch(f"{type_name} is {self.hash_of(type_name)}, "
                                   f"the sample says {type_hash}")

    def decode(self, type_name: str, payload: bytes | memoryview) -> Any:
        """The message; its arrays of numbers may be views of ``payload`` (keep it)."""
        limit = self._limits.get(type_name) or self._limit_of(type_name)
        if len(payload) > limit:
            raise OversizedMessage(f"{len(payload)} bytes, limit {limit}")
        if payload[:2] not in CDR_HEADERS:
            raise MalformedMessage(f"not a CDR encapsulation header: {bytes(payload[:4]).hex()}")
        try:  # a view: rosbags slices off the header, and its arrays are views of ours
            return self._store.deserialize_cdr(memoryview(payload), type_name)
        except self._serde_errors as exc:
            raise MalformedMessage(f"{type_name}: {str(exc).splitlines()[0]}") from None

    def _limit_of(self, type_name: str) -> int:
        """The size limit of a known type (that of the struct it becomes, else the default),
        kept; UnknownType for a type the store does not know."""
        if not self.knows(type_name):
            raise UnknownType(f"no ROS 2 definition of {type_name}")
        translation = TRANSLATIONS.get(type_name)
        limit = (limits_for(translation.type_name) if translation else DEFAULT).max_bytes
        self._limits[type_name] = limit
        return limit

    @property
    def fielddefs(self) -> dict[str, Any]:
        """rosbags' parsed definitions, by type name."""
        return dict(self._store.fielddefs)

    def encode(self, type_name: str, message: Any) -> bytes:
        return bytes(self._store.serialize_cdr(message, type_name))

    def message(self, type_name: str, **fields: Any) -> Any:
        """A new message of ``type_name`` (its class from the store)."""
        return self._store.types[type_name](**fields)
