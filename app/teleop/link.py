"""The link to the robot being driven, as the station knows it: online (its liveliness
token), the age of its newest data, its vitals latency and the round trip of commands.

Qt-free. The round trip is measured from the robot's ``StatusTelemetry.lastCommandSeq``
echo: the time from sending seq N to the arrival of the first status reporting a seq >= N.
A robot reports its status at its own rate, so a round trip includes up to one status
period: it is an upper bound, shown "where known".
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from app.station.robots import RobotInfo
from app.station.vitals import RobotVitals
from app.teleop.arming import ArmingConfig

# Older data: the link is not live, the same bound that stops driving (one word for both).
DATA_AGE_LIMIT_S = ArmingConfig().link_age_s
SENT_KEPT = 256  # seqs remembered while waiting for their echo


class StationView(Protocol):
    """What the link monitor reads of the station (app.station.station.Station)."""

    root: str

    @property
    def playback(self) -> bool: ...

    def robot(self, robot_id: str) -> RobotInfo | None: ...

    @property
    def vitals(self) -> _VitalsView: ...


class _VitalsView(Protocol):
    def snapshot(self) -> Mapping[str, RobotVitals]: ...


@dataclass(frozen=True)
class LinkStatus:
    selected: str | None  # the robot id, None when no robot is selected
    online: bool
    data_age_s: float | None  # None: no data seen yet
    latency_s: float | None  # vitals: arrival minus the robot's stamp (clock offset included)
    round_trip_s: float | None  # command seq to its echo in the robot's status
    reason: str  # why the link is not live; "" when it is

    @property
    def live(self) -> bool:
        return not self.reason


class RoundTrip:
    """Round trip of commands from the ``lastCommandSeq`` echo. Thread-safe: ``sent`` is
    called on the command clock's thread, ``observe`` wherever the status is read."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sent: deque[tuple[int, float]] = deque(maxlen=SENT_KEPT)
        self._status_at: float | None = None
        self.last_s: float | None = None

    def sent(self, seq: int, at: float) -> None:
        """A command numbered ``seq`` left at ``at`` (time.monotonic())."""
        with self._lock:
            if self._sent and seq <= self._sent[-1][0]:
                self._sent.clear()  # seqs went back (a new run): older ones mean nothing
            self._sent.append((seq, at))

    def observe(self, last_command_seq: int, status_at: float) -> float | None:
        """A status that arrived at ``status_at`` echoing ``last_command_seq``; returns the
        newest round trip (None while unknown)."""
        with self._lock:
            if status_at == self._status_at:
                return self.last_s  # this status was read already
            self._status_at = status_at
            echoed = None
            while self._sent and self._sent[0][0] <= last_command_seq:
                echoed = self._sent.popleft()
            if echoed is not None and status_at >= echoed[1]:
                self.last_s = status_at - echoed[1]
            return self.last_s

    def reset(self) -> None:
        with self._lock:
            self._sent.clear()
            self._status_at = None
            self.last_s = None


class LinkMonitor:
    """Judges the link to the selected robot; ``check`` is cheap enough for every tick of
    the command clock. Select a robot with :meth:`select`, report every command sent with
    :meth:`sent`."""

    def __init__(self, station: StationView, data_age_limit_s: float = DATA_AGE_LIMIT_S,
                 ) -> None:
        self._station = station
        self.data_age_limit_s = data_age_limit_s
        self.round_trip = RoundTrip()
        self._selected: str | None = None

    @property
    def selected(self) -> str | None:
        return self._selected

    def select(self, robot_id: str | None) -> None:
        if robot_id != self._selected:
            self._selected = robot_id
            self.round_trip.reset()

    def sent(self, seq: int, at: float) -> None:
        self.round_trip.sent(seq, at)

    def check(self, now: float) -> LinkStatus:
        """The link now (``now``: time.monotonic())."""
        robot_id = self._selected
        if robot_id is None:
            return LinkStatus(None, False, None, None, None, "no robot selected")
        if self._station.playback:  # a log's robot is not there to drive
            return LinkStatus(robot_id, False, None, None, None,
                              "playing a log: commands are disabled")
        info = self._station.robot(robot_id)
        vitals = self._station.vitals.snapshot().get(robot_id)
        status = vitals.status if vitals is not None else None
        round_trip = (self.round_trip.observe(status.last_command_seq, status.at)
                      if status is not None else self.round_trip.last_s)
        latency = vitals.latency_s if vitals is not None else None
        online = info is not None and info.online
        last = info.last_data if info is not None else None  # our own commands left out
        age = None if last is None else max(0.0, now - last)
        if not online:
            reason = f"{robot_id} is offline"
        elif age is None:
            reason = f"no data from {robot_id} yet"
        elif age > self.data_age_limit_s:
            reason = f"no data from {robot_id} for {age:.1f} s"
        else:
            reason = ""
        return LinkStatus(robot_id, online, age, latency, round_trip, reason)
