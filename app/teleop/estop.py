"""The e-stop: fleet ``Command.estop`` on ``command/estop``, reliable at the highest
priority, repeated until the robot's ``StatusTelemetry`` reports it.

Qt-free, on a thread of its own, so it keeps going whatever the GUI or the command clock
do. ``engage()`` may be called from any state and any thread; ``release()`` is a deliberate
act in the GUI, never bound to a gamepad button. Confirmation is a status that arrived after
the first send and reports the state asked for. Once confirmed it stops repeating but keeps
watching: an engaged e-stop that a later status reports released (a robot reboot, another
station) is sent again until reported. A release that the robot does not confirm within
``release_timeout_s`` gives up (the robot keeps its e-stop), saying so.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from app.bus.keys import DEFAULT_ROOT, command_key
from app.bus.outbox import Outbox, Outgoing
from app.bus.publisher import Traffic
from app.codec.registry import registry
from app.priority import keep_prompt
from app.station.commands import next_seq
from app.station.vitals import RobotVitals
from app.teleop.adapters import FLEET_COMMAND

REPEAT_S = 0.1
RELEASE_TIMEOUT_S = 5.0
REASON = "operator e-stop"


class _Vitals(Protocol):
    def get(self, robot_id: str) -> RobotVitals | None: ...


class _Station(Protocol):
    root: str
    outbox: Outbox

    @property
    def vitals(self) -> _Vitals: ...


@dataclass(frozen=True)
class EStopStatus:
    engaged: bool  # what the operator asked for (False: released, or never engaged)
    sending: bool  # still repeating
    confirmed: bool  # the robot reports the state asked for
    since: float | None  # time.monotonic() of the engage/release; None if never asked
    sent: int  # messages sent since then
    reason: str  # for the panel


class EStopSender:
    """One robot's e-stop, sent through ``outbox`` (the station's); ``vitals`` is the
    station's VitalsBook (its status carries ``estop``)."""

    def __init__(self, outbox: Outbox, vitals: _Vitals, robot_id: str,
                 root: str = DEFAULT_ROOT, repeat_s: float = REPEAT_S,
                 release_timeout_s: float = RELEASE_TIMEOUT_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.robot_id = robot_id
        self.key = command_key(robot_id, "estop", root)
        self.repeat_s = repeat_s
        self.release_timeout_s = release_timeout_s
        self._vitals = vitals
        self._clock = clock
        self._outbox = outbox
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._closed = False
        self._generation = 0
        self._engaged = False
        self._engage_reason = ""
        self._since: float | None = None
        self._sending = False
        self._confirmed = False
        self._sent = 0
        self._reason = "not engaged"
        self._thread = threading.Thread(target=self._run, name=f"estop {robot_id}",
                                        daemon=True)
        self._thread.start()

    @classmethod
    def for_station(cls, station: _Station, robot_id: str, **options: Any) -> EStopSender:
        """On an app.station.station.Station: its outbox and its vitals."""
        return cls(station.outbox, station.vitals, robot_id, station.root, **options)

    def engage(self, reason: str = REASON) -> None:
        """Engage from any state: the first message leaves at once."""
        self._ask(True, reason)

    def release(self) -> None:
        """Release (the GUI's deliberate act)."""
        self._ask(False, "")

    def status(self) -> EStopStatus:
        with self._lock:
            return EStopStatus(self._engaged, self._sending, self._confirmed, self._since,
                               self._sent, self._reason)

    def close(self, timeout: float = 2.0) -> None:
        with self._lock:
            self._closed = True
        self._wake.set()
        self._thread.join(timeout)

    def _ask(self, engage: bool, reason: str) -> None:
        with self._lock:
            if self._since is not None and engage == self._engaged and self._sending:
                return  # already on its way: keep the count and the first send's time
            self._generation += 1
            self._engaged, self._engage_reason = engage, reason
            self._since, self._sent = self._clock(), 0
            self._sending, self._confirmed = True, False
            self._reason = "engaging…" if engage else "releasing…"
        self._wake.set()

    def _run(self) -> None:
        keep_prompt()
        while True:
            with self._lock:
                if self._closed:
                    return
            self._step()
            self._wake.wait(self.repeat_s)
            self._wake.clear()

    def _step(self) -> None:
        now = self._clock()
        with self._lock:
            if self._since is None or not (self._sending or self._engaged):
                return  # never asked, or a release settled: nothing to watch
            generation, engaged, since = self._generation, self._engaged, self._since
            reason, was_confirmed = self._engage_reason, self._confirmed
        vitals = self._vitals.get(self.robot_id)
        status = vitals.status if vitals is not None else None
        if status is not None and status.at >= since and status.estop == engaged:
            what = "engaged" if engaged else "released"
            self._update(generation, sending=False, confirmed=True,
                         reason=f"{what}: reported by the robot")
            return
        if not engaged and now - since > self.release_timeout_s:
            self._update(generation, sending=False, confirmed=False,
                         reason=f"release not reported in {self.release_timeout_s:g} s")
            return
        if was_confirmed:  # engaged, then reported released (a reboot, another station)
            with self._lock:
                if generation != self._generation:
                    return
                self._since, self._sent = now, 0
        sent = self._send(engaged, reason)
        what = "engaging" if engaged else "releasing"
        self._update(generation, sending=True, confirmed=False,
                     reason=f"{what}: waiting for the robot to report it" if sent
                     else f"{what}: not connected, retrying", sent=int(sent))

    def _send(self, engage: bool, reason: str) -> bool:
        message = registry().struct(FLEET_COMMAND).new_message(
            robotId=self.robot_id, unixTimeMs=time.time_ns() // 10**6,
            seq=next_seq("e-stop" if engage else "e-stop release"))
        estop = message.init("estop")
        estop.engage, estop.reason = engage, reason
        out = Outgoing(self.key, FLEET_COMMAND, message.to_bytes(), Traffic.ESTOP)
        return self._outbox.send([out])  # False offline: the next repeat tries again

    def _update(self, generation: int, sending: bool, confirmed: bool, reason: str,
                sent: int = 0) -> None:
        with self._lock:
            if generation != self._generation:
                return  # asked otherwise meanwhile
            self._sending, self._confirmed, self._reason = sending, confirmed, reason
            self._sent += sent
