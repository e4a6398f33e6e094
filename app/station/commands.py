"""Commands that must arrive (services, settings, missions) as fleet ``Command`` envelopes,
and what became of each: the robot's acknowledgement, its answer, or silence.

Qt-free. The robot acknowledges a command by reporting its ``seq`` as
``StatusTelemetry.lastCommandSeq``; it explains a refusal in a ``RobotMessage``. A call is
therefore settled by the first of: the acknowledgement, a robot message that arrived after
it was sent, or ``timeout_s`` of silence.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from app.bus.keys import DEFAULT_ROOT, command_key
from app.bus.outbox import Outbox
from app.bus.publisher import Traffic
from app.codec.registry import registry
from app.station.vitals import Enum, RobotVitals

COMMAND = "fleet.Command"
ANSWER_TIMEOUT_S = 5.0

_seq_lock = threading.Lock()
_last_seq = 0
_kinds: OrderedDict[int, str] = OrderedDict()  # the newest seqs sent, by what they were
KINDS_KEPT = 256


class CommandError(Exception):
    """A command that could not be sent; the message says why, for the operator."""


def next_seq(kind: str = "") -> int:
    """Increasing across calls and across restarts of the app (microseconds since the
    epoch, bumped when two come in the same microsecond), so a robot's lastCommandSeq is
    comparable with any seq this app sent. ``kind`` ("teleop", "e-stop") is remembered
    for :func:`sent_kind`."""
    global _last_seq
    with _seq_lock:
        _last_seq = max(_last_seq + 1, time.time_ns() // 1000)
        if kind:
            _kinds[_last_seq] = kind
            if len(_kinds) > KINDS_KEPT:
                _kinds.popitem(last=False)
        return _last_seq


def sent_kind(seq: int) -> str:
    """What this app sent as ``seq`` ("" if not one of its recent commands)."""
    with _seq_lock:
        return _kinds.get(seq, "")


def sent_unix_s(seq: int) -> float | None:
    """When a seq made as :func:`next_seq` makes them was sent (unix seconds); None for a
    seq that is not such a time (another client's counter)."""
    unix_s = seq / 1e6
    return unix_s if 1e9 < unix_s < time.time() + 86400 else None


@dataclass(frozen=True)
class Sent:
    robot_id: str
    seq: int
    what: str  # for the operator: "Horn", "Max speed = 1.2"
    sent_at: float  # time.monotonic()


@dataclass(frozen=True)
class Outcome:
    state: str  # "waiting" | "done" | "answered" | "timeout"
    text: str


def outcome(sent: Sent, vitals: RobotVitals | None, now: float,
            timeout_s: float = ANSWER_TIMEOUT_S) -> Outcome:
    """What became of a sent command, judged from the robot's vitals."""
    said = next((m for m in (vitals.messages if vitals else ()) if m.at >= sent.sent_at), None)
    status = vitals.status if vitals else None
    if status is not None and status.at >= sent.sent_at and status.last_command_seq >= sent.seq:
        return Outcome("done", said.text if said else "acknowledged")
    if said is not None:
        return Outcome("answered", said.text)
    if now - sent.sent_at >= timeout_s:
        return Outcome("timeout", f"no answer in {timeout_s:g} s")
    return Outcome("waiting", "sent…")


class Commander:
    """Builds commands and sends them through the station's outbox."""

    def __init__(self, outbox: Outbox, root: str = DEFAULT_ROOT,
                 refusal: Callable[[str], str] | None = None) -> None:
        """``refusal(robot_id)``: why this station may not command it now ("" when it
        may: app.station.authority)."""
        self._outbox = outbox
        self.root = root
        self._refusal = refusal

    def send(self, robot_id: str, member: str, what: str,
             fill: Callable[[Any], None], min_role: Enum = "") -> Sent:
        """Sends ``Command.<member>``, filled by ``fill(builder_of_member)``; a setting or
        service on the key of its ``min_role`` (app.bus.keys.command_key)."""
        refused = self._refusal(robot_id) if self._refusal is not None else ""
        if refused:
            raise CommandError(f"{robot_id} is {refused}")
        key = command_key(robot_id, member, self.root, min_role)
        seq = next_seq(what)
        message = registry().struct(COMMAND).new_message()
        message.robotId, message.unixTimeMs, message.seq = robot_id, time.time_ns() // 10**6, seq
        if member in ("service", "setting", "mission"):
            fill(message.init(member))
        else:
            raise CommandError(f"{member} commands are not sent from here")
        if not self._outbox.put(key, COMMAND, Traffic.COMMAND, message):
            raise CommandError("not connected")
        return Sent(robot_id, seq, what, time.monotonic())


def fill_value(value: Any, kind: str, number: Any) -> None:
    """Sets a fleet.Value builder to ``number`` as ``kind`` (string, int, number, bool,
    enum); raises CommandError for a value that cannot be sent."""
    if kind == "int":
        if not isinstance(number, int) or not -2**31 <= number < 2**31:
            raise CommandError(f"{number!r} is not a 32-bit integer")
        value.int = number
    elif kind == "number":
        if not isinstance(number, int | float) or not math.isfinite(number):
            raise CommandError(f"{number!r} is not a finite number")
        value.number = float(number)
    elif kind == "bool":
        value.bool = bool(number)
    elif kind in ("string", "enum"):
        setattr(value, kind, str(number))
    else:
        raise CommandError(f"cannot send a value of type {kind!r}")
