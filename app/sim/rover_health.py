"""What degrades on the rover over time: a cycle of faults (one of each severity) and the
GNSS fix quality."""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass


@dataclass(frozen=True)
class FaultSpec:
    code: str
    severity: str  # fleet.FaultSeverity enumerant
    message: str
    source: str


FAULTS = (
    FaultSpec("IMU_CAL_DUE", "info", "IMU calibration due in 3 days", "imu"),
    FaultSpec("WHEEL_SLIP", "minor", "Wheel slip detected on rear left wheel", "drive/rear_left"),
    FaultSpec("RTK_CORRECTIONS_LOST", "major",
              "RTK correction stream lost, position degraded to DGPS", "gnss"),
    FaultSpec("TILT_LIMIT", "critical", "Chassis tilt 27° exceeds the 25° limit", "imu"),
)
RTK_LOST = "RTK_CORRECTIONS_LOST"
TILT = "TILT_LIMIT"


@dataclass
class FaultEvent:
    spec: FaultSpec
    active: bool
    raised_unix_ms: int


class FaultCycle:
    """Each fault in turn owns one slot of ``period_s``: quiet for the first 30 % of it, then
    raised for 40-60 % of it (seeded), then cleared until the next slot."""

    def __init__(self, period_s: float, seed: str, start: float) -> None:
        self.period_s = period_s
        self._rng = random.Random(seed)
        self._slot = -1
        self._start = start
        self._raise_at = self._clear_at = 0.0
        self.active: dict[str, FaultEvent] = {}

    def update(self, now: float, unix_ms: int) -> list[FaultEvent]:
        """The raise/clear events that happened since the last call."""
        events: list[FaultEvent] = []
        slot = int((now - self._start) // self.period_s)
        if slot != self._slot:
            events += self._clear_all()
            self._slot = slot
            slot_start = self._start + slot * self.period_s
            self._raise_at = slot_start + 0.3 * self.period_s
            self._clear_at = self._raise_at + self._rng.uniform(0.4, 0.6) * self.period_s
        spec = FAULTS[slot % len(FAULTS)]
        if self._raise_at <= now < self._clear_at and spec.code not in self.active:
            event = FaultEvent(spec, True, unix_ms)
            self.active[spec.code] = event
            events.append(event)
        elif now >= self._clear_at:
            events += self._clear_all()
        return events

    def _clear_all(self) -> list[FaultEvent]:
        cleared = [FaultEvent(e.spec, False, e.raised_unix_ms) for e in self.active.values()]
        self.active.clear()
        return cleared


class FaultFeed:
    """The fault events of a cycle to report, one a publish: raises and clears as they
    happen, and the active faults again every ``repeat_s`` so late joiners see them."""

    def __init__(self, cycle: FaultCycle, repeat_s: float, start: float) -> None:
        self.cycle = cycle
        self.repeat_s = repeat_s
        self._queue: deque[FaultEvent] = deque()
        self._repeated_at = start

    def update(self, now: float, unix_ms: int) -> list[FaultEvent]:
        """The cycle's raise/clear events since the last call, queued for reporting."""
        events = self.cycle.update(now, unix_ms)
        if any(event.active for event in events):
            self._repeated_at = now
        self._queue.extend(events)
        return events

    def next(self, now: float) -> FaultEvent | None:
        """The next event to report, or None."""
        if not self._queue:
            if not self.cycle.active or now - self._repeated_at < self.repeat_s:
                return None
            self._queue.extend(self.cycle.active.values())
            self._repeated_at = now
        return self._queue.popleft()


class GnssFix:
    """RTK mostly holds a fixed solution and now and then falls back to float for a few s."""

    def __init__(self, seed: str, start: float) -> None:
        self._rng = random.Random(seed)
        self._float = False
        self._until = start + self._rng.uniform(20.0, 90.0)

    def fix_type(self, now: float, corrections: str, rtk_lost: bool) -> str:
        """The fleet.GpsFixType enumerant for the corrections in use ("rtk", "sbas", "none")."""
        if now >= self._until:
            self._float = not self._float
            hold = self._rng.uniform(2.0, 8.0) if self._float else self._rng.uniform(20.0, 90.0)
            self._until = now + hold
        if corrections == "none":
            return "gps"
        if corrections == "sbas":
            return "sbas"
        if rtk_lost:
            return "dgps"
        return "floatRtk" if self._float else "fixedRtk"
