"""Vitals: one normalised, frozen view per robot of its battery, status, GNSS fix, faults,
mission, messages and UI capabilities, from every family that carries them.

Qt-free. The station's vitals consumer offers every fleet ``Uplink`` of those kinds and every
bow ``InteroceptionSample`` to a :class:`VitalsBook` on the keys' lanes; panels read
:meth:`VitalsBook.snapshot` once per tick. Each part carries ``at`` (``time.monotonic()`` of
its arrival), so its age is ``now - at``. An enum value this schema does not know (a newer
robot) is kept as its number; a non-finite float becomes ``None`` ("unknown").
"""

from __future__ import annotations

import dataclasses
import math
import re
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from app.codec.fields import enum_value
from app.remade import remade

Enum = str | int  # an enumerant's name, or its number when the schema does not know it
SEVERITIES = ("critical", "major", "minor", "info")
ALERT_SEVERITIES = ("critical", "major")
HISTORY_MAX = 500  # cleared faults kept per robot
MESSAGES_MAX = 500  # robot messages kept per robot
MESSAGE_TEXT_MAX = 2000
BOW_ERROR_SOURCE = "interoception"
# bow's ``InteroceptionSample.error`` is plain text without a severity: an error that opens
# with the word "critical" or "fatal" (any case, after brackets or punctuation: "CRITICAL:
# ...", "[fatal] ...") is critical and blocks driving; any other is major (schemas/README).
_CRITICAL_ERROR = re.compile(r"^\W*(critical|fatal)\b", re.IGNORECASE)
CRITICAL = "critical"
# A critical fault kept over a reconnect (the robot need not repeat it at once) is dropped
# when the robot, heard this long since, has neither repeated nor cleared it: robots repeat
# their active faults for late joiners (schemas/README.md), so it was cleared meanwhile.
CARRIED_FAULT_S = 10.0


def error_severity(text: str) -> str:
    """The fault severity of one bow ``InteroceptionSample.error`` text."""
    return "critical" if _CRITICAL_ERROR.match(text) else "major"


def finite(value: Any) -> float | None:
    """A float, or None for NaN, infinities and anything not a number."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def severity_rank(severity: Enum) -> int:
    """0 = most severe. A severity this schema does not know ranks with "major": a newer
    robot's extra level is shown near the top and notifies rather than hides."""
    if isinstance(severity, str) and severity in SEVERITIES:
        return SEVERITIES.index(severity)
    return SEVERITIES.index("major")


@dataclass(frozen=True)
class Battery:
    percentage: float | None  # 0..100 as reported (not clamped); None = unknown
    voltage_v: float | None = None
    current_a: float | None = None  # negative = discharging
    temperature_c: float | None = None
    status: Enum = "unknown"
    health: Enum = "unknown"
    technology: Enum = "unknown"
    runtime_s: float | None = None
    source: str = "fleet"  # "fleet" | "bow"
    at: float = 0.0


@dataclass(frozen=True)
class Status:
    mode: Enum
    estop: bool
    estop_reason: str
    uptime_s: float | None
    last_command_seq: int
    active_mission: str | None
    at: float


@dataclass(frozen=True)
class Gnss:
    fix_type: Enum
    source: Enum
    at: float


@dataclass(frozen=True)
class Fault:
    code: str
    severity: Enum
    message: str
    source: str
    raised_ms: int  # unix ms, as the robot reported it
    active: bool
    at: float  # when last reported
    seq: int  # book-wide number of this raising: a new raising gets a new number
    cleared_at: float | None = None
    carried: bool = False  # reported before the station reconnected, not since

    @property
    def rank(self) -> int:
        return severity_rank(self.severity)

    @property
    def alerts(self) -> bool:
        return self.rank <= SEVERITIES.index("major")


@dataclass(frozen=True)
class Mission:
    mission_id: str
    name: str
    status: Enum
    step_index: int
    step_count: int
    progress: float | None  # 0..1
    target: tuple[float, float] | None  # (lat, lon)
    message: str
    at: float


@dataclass(frozen=True)
class Message:
    level: Enum
    text: str
    unix_ms: int
    at: float


@dataclass(frozen=True)
class Service:
    name: str
    label: str
    type: Enum
    danger: Enum
    min_role: Enum
    description: str
    state: bool


# A fleet.Value as plain Python (an enum option as its string); None: unset or unknown.
PlainValue = str | int | float | bool | None


@dataclass(frozen=True)
class Sensor:
    key: str
    label: str
    hint: Enum
    value: PlainValue
    unit: str
    min: float | None
    max: float | None


@dataclass(frozen=True)
class Setting:
    key: str
    label: str
    value_type: Enum
    value: PlainValue
    options: tuple[str, ...]
    min: float | None
    max: float | None
    min_role: Enum
    description: str


@dataclass(frozen=True)
class Capabilities:
    services: tuple[Service, ...]
    sensors: tuple[Sensor, ...]
    settings: tuple[Setting, ...]
    at: float


@dataclass(frozen=True)
class RobotVitals:
    robot_id: str
    battery: Battery | None = None
    status: Status | None = None
    gnss: Gnss | None = None
    faults: tuple[Fault, ...] = ()  # active: most severe first, then newest raised
    history: tuple[Fault, ...] = ()  # cleared: newest cleared first
    mission: Mission | None = None
    messages: tuple[Message, ...] = ()  # oldest first
    capabilities: Capabilities | None = None
    last_at: float | None = None  # newest vital of any kind
    # Arrival (wall clock) minus the robot's Uplink.unixTimeMs, s: the link's latency plus
    # the offset between the two clocks (no clock sync is assumed).
    latency_s: float | None = None
    version: int = 0


class VitalsBook:
    """Every robot's vitals; offered from lane threads, read from the GUI thread."""

    def __init__(self, wall: Callable[[], float] = time.time) -> None:
        self._wall = wall
        self._lock = threading.Lock()
        self._robots: dict[str, RobotVitals] = {}
        self._snapshot: Mapping[str, RobotVitals] = MappingProxyType({})
        self._snapshot_stale = False  # made when read, not on every sample (many robots)
        self._seq = 0
        self._heard_since: dict[str, float] = {}  # first arrival after a reconnect
        self._since = -math.inf
        self.version = 0

    def snapshot(self) -> Mapping[str, RobotVitals]:
        """Frozen: a new one after any change, never mutated."""
        with self._lock:
            if self._snapshot_stale:
                self._snapshot = MappingProxyType(dict(self._robots))
                self._snapshot_stale = False
            return self._snapshot

    def get(self, robot_id: str) -> RobotVitals | None:
        with self._lock:
            return self._robots.get(robot_id)

    def offer(self, robot_id: str, type_name: str, root: Any, arrival: float,
              received: float | None = None) -> bool:
        """Takes one decoded message; True if it was a vital."""
        extra: dict[str, Any] = {}
        if type_name == "fleet.Uplink":
            member = root.which()
            read = _UPLINK.get(member)
            if read is None:
                return False
            changes = read(self, robot_id, getattr(root, member), arrival)
            sent_ms = root.unixTimeMs
            if sent_ms > 0:
                extra["latency_s"] = (received if received is not None
                                      else self._wall()) - sent_ms / 1000.0
        elif type_name == "bow.InteroceptionSample":
            changes = self._interoception(robot_id, root, arrival)
        else:
            return False
        with self._lock:
            if arrival < self._since:
                return True  # heard before forget(): the closed session's
            old = self._robots.get(robot_id) or RobotVitals(robot_id)
            self.version += 1
            new = remade(old, changes(old) if callable(changes) else changes, extra,
                         {"last_at": arrival, "version": self.version})
            self._robots[robot_id] = self._expire_carried(new, arrival)
            self._snapshot_stale = True
        return True

    def forget(self, keep_critical: bool = False, since: float | None = None) -> None:
        """Drops every robot (a new session: robots start afresh); offers of samples that
        arrived before ``since`` (the closed session's, still queued) are ignored from now
        on. With ``keep_critical``
        (a reconnect to live robots) each robot's active critical faults stay, marked
        ``carried``, until the robot repeats them, reports them cleared, or has been heard
        for :data:`CARRIED_FAULT_S` without either: driving must not resume because the
        station reconnected before the robot said its fault again."""
        with self._lock:
            kept = {robot_id: RobotVitals(robot_id, faults=carried, version=self.version + 1)
                    for robot_id, vitals in self._robots.items()
                    if keep_critical and (carried := _carried_over(vitals.faults))}
            self._robots = kept
            self._since = since if since is not None else self._since
            self._heard_since = {}
            self.version += 1
            self._snapshot_stale = True

    def _expire_carried(self, vitals: RobotVitals, arrival: float) -> RobotVitals:
        """Under the lock: a robot's carried faults once it has been heard long enough."""
        if not any(f.carried for f in vitals.faults):
            return vitals
        since = self._heard_since.setdefault(vitals.robot_id, arrival)
        if arrival - since <= CARRIED_FAULT_S:
            return vitals
        gone = tuple(dataclasses.replace(f, active=False, cleared_at=arrival)
                     for f in vitals.faults if f.carried)
        return dataclasses.replace(
            vitals, faults=tuple(f for f in vitals.faults if not f.carried),
            history=(*gone, *vitals.history)[:HISTORY_MAX])

    # -- readers, one per kind of vital ------------------------------------------------------
    def _battery(self, robot_id: str, b: Any, at: float) -> dict[str, Any]:
        runtime = finite(b.runtimeRemainingS) if b.hasRuntimeRemainingS else None
        return {"battery": Battery(
            finite(b.percentage), finite(b.voltageV), finite(b.currentA),
            finite(b.temperatureC), enum_value(b.status), enum_value(b.health),
            enum_value(b.technology), runtime, "fleet", at)}

    def _status(self, robot_id: str, s: Any, at: float) -> dict[str, Any]:
        return {"status": Status(
            enum_value(s.mode), bool(s.estop), str(s.estopReason), finite(s.uptimeS),
            int(s.lastCommandSeq), str(s.activeMissionId) if s.hasActiveMission else None, at)}

    def _motion(self, robot_id: str, m: Any, at: float) -> dict[str, Any]:
        return {"gnss": Gnss(enum_value(m.gpsFixType), enum_value(m.gpsSource), at)}

    def _mission(self, robot_id: str, m: Any, at: float) -> dict[str, Any]:
        target = None
        if m.hasTarget:
            lat, lon = finite(m.target.latDeg), finite(m.target.lonDeg)
            target = (lat, lon) if lat is not None and lon is not None else None
        progress = finite(m.progress)
        return {"mission": Mission(
            str(m.missionId), str(m.name), enum_value(m.status), int(m.stepIndex),
            int(m.stepCount), None if progress is None else min(1.0, max(0.0, progress)),
            target, str(m.message), at)}

    def _message(self, robot_id: str, m: Any, at: float) -> Callable[[RobotVitals], dict]:
        message = Message(enum_value(m.level), str(m.text)[:MESSAGE_TEXT_MAX],
                          int(self._wall() * 1000), at)
        return lambda old: {"messages": (*old.messages, message)[-MESSAGES_MAX:]}

    def _fault(self, robot_id: str, f: Any, at: float) -> Callable[[RobotVitals], dict]:
        code, active = str(f.code), bool(f.active)
        severity, raised = enum_value(f.severity), int(f.raisedUnixTimeMs)
        message, source = str(f.message), str(f.source)

        def apply(old: RobotVitals) -> dict[str, Any]:
            faults = {x.code: x for x in old.faults}
            history = old.history
            known = faults.pop(code, None)
            if active:
                same = known is not None and known.raised_ms == raised
                seq = known.seq if same and known is not None else self._next_seq()
                faults[code] = Fault(code, severity, message, source, raised, True, at, seq)
            elif known is not None:
                cleared = dataclasses.replace(known, active=False, cleared_at=at)
                history = (cleared, *history)[:HISTORY_MAX]
            return {"faults": _ordered(faults.values()), "history": history}

        return apply

    def _capabilities(self, robot_id: str, c: Any, at: float) -> dict[str, Any]:
        services = tuple(Service(
            str(s.name), str(s.label), enum_value(s.type), enum_value(s.dangerLevel),
            enum_value(s.minRole), str(s.description), bool(s.state)) for s in c.services)
        sensors = tuple(Sensor(
            str(s.key), str(s.label), enum_value(s.hint), value_of(s.value), str(s.unit),
            finite(s.min), finite(s.max)) for s in c.sensors)
        settings = tuple(Setting(
            str(s.key), str(s.label), enum_value(s.valueType), value_of(s.value),
            tuple(str(o) for o in s.options), finite(s.min), finite(s.max),
            enum_value(s.minRole), str(s.description)) for s in c.settings)
        return {"capabilities": Capabilities(services, sensors, settings, at)}

    def _interoception(self, robot_id: str, root: Any,
                       at: float) -> Callable[[RobotVitals], dict]:
        b = root.battery
        battery = Battery(finite(b.percentage), finite(b.voltage), finite(b.current),
                          status=enum_value(b.supplyStatus), source="bow", at=at) \
            if b.present else None
        errors = [str(e) for e in root.error]
        raised = int(self._wall() * 1000)

        def apply(old: RobotVitals) -> dict[str, Any]:
            faults = {x.code: x for x in old.faults}
            history = old.history
            for code, gone in list(faults.items()):
                if gone.source == BOW_ERROR_SOURCE and code not in errors:
                    del faults[code]
                    history = (dataclasses.replace(gone, active=False, cleared_at=at),
                               *history)[:HISTORY_MAX]
            for text in errors:
                known = faults.get(text)
                faults[text] = Fault(text, error_severity(text), text, BOW_ERROR_SOURCE,
                                     known.raised_ms if known else raised, True, at,
                                     known.seq if known else self._next_seq())
            changes: dict[str, Any] = {"faults": _ordered(faults.values()), "history": history}
            if battery is not None:
                changes["battery"] = battery
            return changes

        return apply

    def _next_seq(self) -> int:
        self._seq += 1  # called under the lock (inside apply)
        return self._seq


def value_of(value: Any) -> PlainValue:
    """A fleet.Value as plain Python; None when unset or of a kind this schema lacks."""
    try:
        kind = value.which()
    except Exception:  # an unknown union member (a newer robot): no value to show
        return None
    got = getattr(value, kind)
    return str(got) if kind == "enum" else got


def _carried_over(faults: tuple[Fault, ...]) -> tuple[Fault, ...]:
    return tuple(dataclasses.replace(f, carried=True) for f in faults
                 if f.active and f.severity == CRITICAL)


def _ordered(faults: Any) -> tuple[Fault, ...]:
    return tuple(sorted(faults, key=lambda f: (f.rank, -f.raised_ms, f.code)))


_UPLINK: dict[str, Callable[..., Any]] = {
    "battery": VitalsBook._battery,
    "status": VitalsBook._status,
    "motion": VitalsBook._motion,
    "mission": VitalsBook._mission,
    "message": VitalsBook._message,
    "fault": VitalsBook._fault,
    "capabilities": VitalsBook._capabilities,
}
# The fleet uplink segments whose messages are vitals (app.bus.keys.UPLINK_SEGMENTS).
UPLINK_MEMBERS = tuple(_UPLINK)
# Those whose every message counts (a fault raised and cleared, a message said): the others
# say a state, and only the newest matters.
UPLINK_EVENTS = frozenset({"message", "fault"})
