"""What a consumer can ask the station for, and the frozen values it gets back.

An interest names a key (exactly, except a stream's key expression) and what to make of its
samples. Values that come back are frozen: a lane publishes a new object, never mutates one
a reader may hold.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from app.convert.registry import DisplayModel


@dataclass(frozen=True)
class Latest:
    """The newest message of ``key``, as a plain tree for display."""

    key: str


@dataclass(frozen=True)
class Series:
    """A numeric field of every message of ``key``, over time."""

    key: str
    path: str


@dataclass(frozen=True)
class Converted:
    """The newest message of ``key`` turned into a display model by a named converter
    (``app.convert.registry``); its point clouds kept to one point per ``voxel_m`` cube
    when that is set (for slow GPUs). ``options`` are keyword arguments of the converter
    (hashable pairs, e.g. ``(("source", "left"),)``), part of the interest's identity.
    ``prompt``: each new value wakes the frame clock, so it is shown at once (camera
    frames), not at the next steady tick."""

    key: str
    converter: str
    voxel_m: float = 0.0
    options: tuple[tuple[str, Any], ...] = ()
    prompt: bool = False


@dataclass(frozen=True)
class Stream:
    """Every sample of the keys matching ``key_expr`` (of ``type_name`` only, when given),
    in order, handed to the consumer's ``on_sample`` on the key's lane. A ``passive`` stream
    takes only what the station hears for others: it never makes it listen to a heavy key
    (the window's black box keeps what was shown, not every camera of the fleet). A ``raw``
    stream's samples go, undecoded, to the consumer's ``on_raw`` on the thread that received
    them, with no lane (a recorder's queue: it must return at once). A ``newest`` stream
    takes a state, not events: only the newest sample of each key when its lane's turn
    comes (at most twice a tick), the ones it superseded dropped, so a station behind its
    fleet catches up instead of queueing."""

    key_expr: str
    type_name: str = ""
    passive: bool = False
    raw: bool = False
    newest: bool = False

    @property
    def key(self) -> str:
        return self.key_expr


Interest = Latest | Series | Converted | Stream


@dataclass(frozen=True)
class LatestValue:
    key: str
    type_name: str
    tree: dict[str, Any]
    stamp: float
    clock: str
    size: int
    seq: int
    error: str = ""  # the last decode failure on this key, shown beside the last good value


@dataclass(frozen=True)
class ConvertedValue:
    key: str
    converter: str
    value: DisplayModel | None  # None until a sample converted
    stamp: float
    seq: int
    version: int  # bumps whenever this object is replaced (new value or new error)
    error: str = ""  # why the newest sample did not convert; ``value`` is the last good one


class LaneStats(NamedTuple):
    """What one key's lane did: samples converted, superseded before their turn, failed (a
    tuple: a depot's thousands of lanes are read twice a second)."""

    key: str
    done: int = 0
    dropped: int = 0
    errors: int = 0
