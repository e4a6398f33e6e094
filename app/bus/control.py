"""Command authority on the wire (schemas/README.md, "Command authority"): which station
controls a robot, read from the stations' claims, and who sent a command.

A station in control of a robot holds the liveliness token
``<root>/<robotId>/control/<generation>/<claimNs>/<stationId>/<role>/<name>`` (``name``
percent-encoded UTF-8). The token vanishes by itself when the station's session ends or
its link drops (within the zenoh lease). Among a robot's live claims the holder is the one
with the highest generation, then the earliest ``claimNs``, then the lowest station id:
every station and the robot, seeing the same tokens, agree on one holder whatever order
they arrived in. A takeover claims one generation above the holder.

Every command a station sends carries its station id in the sample's attachment (a
``transport.Buffers`` with its ``issuer`` set); ``fleet.Command`` also in its ``issuer``
field.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Iterable
from dataclasses import dataclass

from app.codec.buffers import Attachment, HeldBuffers
from app.codec.registry import registry

CONTROL = "control"
REQUEST = "request"  # <root>/<robotId>/control/request: the holder's queryable for requests
BUFFERS = "transport.Buffers"
ATTACHMENT_WORDS = 1 << 16  # an attachment read for its issuer only
_ID = re.compile(r"[A-Za-z0-9_-]+")
_NUMBER = re.compile(r"[0-9]{1,20}")


@dataclass(frozen=True)
class Claim:
    """One station's claim of control of one robot."""

    robot_id: str
    generation: int
    claim_ns: int  # unix ns, the claiming station's clock
    station_id: str
    role: str
    name: str  # the operator's name, as the station shows it

    @property
    def rank(self) -> tuple[int, int, str]:
        """Lower wins: the highest generation, then the earliest claim, then the lowest id."""
        return -self.generation, self.claim_ns, self.station_id

    @property
    def label(self) -> str:
        """Who holds it, for the operator: "Ana (operator)"."""
        return f"{self.name} ({self.role})" if self.role else self.name

    def key(self, root: str) -> str:
        name = urllib.parse.quote(self.name, safe="") or "-"
        role = urllib.parse.quote(self.role, safe="") or "-"
        return (f"{root}/{self.robot_id}/{CONTROL}/{self.generation}/{self.claim_ns}/"
                f"{self.station_id}/{role}/{name}")


def claims_expr(root: str, robot_id: str = "*") -> str:
    """The key expression of every claim token (of one robot, or of all)."""
    return f"{root}/{robot_id}/{CONTROL}/*/*/*/*/*"


def request_key(root: str, robot_id: str) -> str:
    return f"{root}/{robot_id}/{CONTROL}/{REQUEST}"


def parse_claim(key: str, root: str) -> Claim | None:
    """The claim a token's key names; None for a key that is not a well-formed claim."""
    prefix = f"{root}/"
    if not key.startswith(prefix):
        return None
    parts = key[len(prefix):].split("/")
    if len(parts) != 7 or parts[1] != CONTROL:
        return None
    robot_id, _, generation, claim_ns, station_id, role, name = parts
    if not (_ID.fullmatch(robot_id) and _ID.fullmatch(station_id)
            and _NUMBER.fullmatch(generation) and _NUMBER.fullmatch(claim_ns)):
        return None
    return Claim(robot_id, int(generation), int(claim_ns), station_id,
                 _unquoted(role), _unquoted(name))


def holder(claims: Iterable[Claim]) -> Claim | None:
    """The claim in control among ``claims`` (of one robot); None when there is none."""
    return min(claims, key=lambda claim: claim.rank, default=None)


def issuer_attachment(station_id: str) -> bytes:
    """A command's attachment: a ``transport.Buffers`` with no buffers, naming its issuer
    (so a reader that takes every attachment as buffers still reads it)."""
    attachment = registry().struct(BUFFERS).new_message()
    attachment.issuer = station_id
    return attachment.to_bytes()


def issuer_of(attachment: Attachment | None) -> str:
    """The station id a command's attachment names ("" when it names none, or is not a
    ``transport.Buffers``)."""
    if not attachment or isinstance(attachment, HeldBuffers):
        return ""
    try:
        with registry().struct(BUFFERS).from_bytes(
                bytes(attachment), traversal_limit_in_words=ATTACHMENT_WORDS) as reader:
            issuer = str(reader.issuer)
    except Exception:  # capnp's errors are KjException, and any damage is "names none"
        return ""
    return issuer if _ID.fullmatch(issuer) else ""


def valid_station_id(station_id: str) -> bool:
    return bool(_ID.fullmatch(station_id))


def _unquoted(chunk: str) -> str:
    return "" if chunk == "-" else urllib.parse.unquote(chunk, errors="replace")


def refusal(holder_claim: Claim | None, issuer: str) -> str:
    """Why a robot that enforces authority ignores a command from ``issuer`` ("" when it
    obeys): while a station holds control, only that station's commands count; while
    none does, any station's (stations and tools that predate authority keep working;
    Fieldstation claims before it commands). An e-stop engage is obeyed from anyone, so
    the caller does not ask for it."""
    if holder_claim is None or holder_claim.station_id == issuer:
        return ""
    sender = f"station {issuer}" if issuer else "a station that names none"
    return f"command from {sender} ignored: {holder_claim.label} is in control"
