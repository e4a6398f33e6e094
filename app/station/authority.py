"""This station's side of command authority: who controls each robot (every station's
claims, app.bus.claim_book), taking and releasing control, asking the holder for it and
answering such requests. Qt-free; thread-safe.

Taking control declares this station's claim token, then waits ``settle_s`` for a rival
claim made at the same instant to arrive: the rule (app.bus.control) then names one
holder, the same at every station, and the loser withdraws. A claim beaten later (a
takeover: one generation up) is withdrawn at once and said as lost.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from app.bus.claim_book import ClaimBook
from app.bus.control import Claim, request_key
from app.bus.session import BusSession
from app.station.identity import StationIdentity

log = logging.getLogger(__name__)

SETTLE_S = 0.3  # a rival claim made at the same instant arrives within this
SEEN_OWN_S = 2.0  # the station's own token reaches its own subscriber within this
REQUEST_TIMEOUT_S = 30.0  # the holder's operator answers within this, or it is "no answer"
GRANT_RELEASE_S = 3.0  # a granting holder's token is gone within this
GRANTED, DECLINED = "granted", "declined"
OWNER = "owner"

# (robot id, who asks, answer): the operator's answer goes to answer(True / False).
RequestHandler = Callable[[str, str, Callable[[bool], None]], None]


@dataclass(frozen=True)
class Control:
    """A robot's control as this station sees it."""

    holder: Claim | None  # who holds it; None: nobody
    mine: bool  # this station holds it
    taking: bool = False  # this station's claim is settling
    lost: str = ""  # why this station lost it last ("" when it did not)

    @property
    def refusal(self) -> str:
        """Why this station may not command the robot ("" when it may): its claim must
        have outlasted a rival's first."""
        if self.taking:
            return "taking control…"
        if self.mine:
            return ""
        if self.holder is not None:
            return f"controlled by {self.holder.label}"
        return self.lost or "not in control: take control to command it"


class Authority:
    def __init__(self, identity: StationIdentity, root: str, role: str = "operator",
                 settle_s: float = SETTLE_S) -> None:
        self.identity = identity
        self.root = root
        self.role = role
        self.settle_s = settle_s
        self._lock = threading.RLock()
        self._bus: BusSession | None = None
        self._book: ClaimBook | None = None
        self._mine: dict[str, tuple[Claim, Any, Any]] = {}  # robot: claim, token, queryable
        self._taking: set[str] = set()
        self._lost: dict[str, str] = {}
        self._watchers: list[Callable[[str], None]] = []
        self._on_request: RequestHandler | None = None
        self._changed = threading.Condition(self._lock)

    # -- the session ----------------------------------------------------------------------
    def attach(self, bus: BusSession) -> None:
        """Follows every robot's claims on ``bus`` (a new session: no claims of ours)."""
        self.detach()
        book = ClaimBook(bus, self.root, on_change=self._on_change)
        with self._lock:
            self._bus, self._book = bus, book

    def detach(self) -> None:
        """The session ends: this station's claims go with it."""
        with self._lock:
            book, self._book, self._bus = self._book, None, None
            mine, self._mine = self._mine, {}
            for robot in mine:
                self._lost[robot] = "control lost: the station's connection ended"
        if book is not None:
            book.close()
        for robot in mine:
            self._tell(robot)

    # -- what every station sees ----------------------------------------------------------
    def control(self, robot_id: str) -> Control:
        with self._lock:
            holder = self._book.holder(robot_id) if self._book is not None else None
            # The token's own key says whose it is: true from the moment it is seen, before
            # take() has filed it.
            mine = holder is not None and holder.station_id == self.identity.station_id
            return Control(holder, mine, robot_id in self._taking,
                           self._lost.get(robot_id, ""))

    def holders(self) -> dict[str, Claim]:
        with self._lock:
            book = self._book
        return book.holders() if book is not None else {}

    def watch(self, on_change: Callable[[str], None]) -> Callable[[], None]:
        """``on_change(robot_id)`` after a robot's control changes (zenoh's or the caller's
        thread); returns the function that stops it."""
        with self._lock:
            self._watchers.append(on_change)

        def stop() -> None:
            with self._lock:
                if on_change in self._watchers:
                    self._watchers.remove(on_change)
        return stop

    # -- taking and giving back -----------------------------------------------------------
    def take(self, robot_id: str, takeover: bool = False) -> str:
        """Takes control of ``robot_id``; "" when this station holds it, else why not.
        Blocks up to ``settle_s`` (and the own token's round trip): not on a GUI thread.
        ``takeover`` (the owner role only) takes it from the station holding it."""
        with self._lock:
            bus, book = self._bus, self._book
            if bus is None or book is None:
                return "not connected"
            if robot_id in self._taking:
                return "taking control…"
            current = book.holder(robot_id)
            own = self._mine.get(robot_id)
            if own is not None and current == own[0]:
                return ""
            generation = max((c.generation for c in book.claims(robot_id)), default=0)
            if current is not None and current.station_id != self.identity.station_id:
                if not takeover:
                    return f"controlled by {current.label}"
                if self.role != OWNER:
                    return ("taking control over needs the owner role (this station: "
                            f"{self.role})")
                generation = current.generation + 1
            claim = Claim(robot_id, generation, time.time_ns(), self.identity.station_id,
                          self.role, self.identity.name)
            self._taking.add(robot_id)
            self._lost.pop(robot_id, None)
            stale = self._mine.pop(robot_id, None)
        self._undeclare(bus, stale)
        try:
            token = bus.declare_token(claim.key(self.root))
            # asked from the moment the claim is seen: withdrawn with it if it loses
            asked = bus.declare_queryable(request_key(self.root, robot_id),
                                          lambda query: self._asked(robot_id, query))
        except Exception as exc:  # the session closed meanwhile, or the router refused
            with self._lock:
                self._taking.discard(robot_id)
            self._tell(robot_id)
            return f"control not taken: {exc}"
        with self._lock:
            self._mine[robot_id] = (claim, token, asked)
            seen_by = time.monotonic() + SEEN_OWN_S
            while claim not in book.claims(robot_id) and robot_id in self._mine and \
                    time.monotonic() < seen_by:
                self._changed.wait(0.05)
            settled = time.monotonic() + self.settle_s
            while time.monotonic() < settled and robot_id in self._mine:
                self._changed.wait(max(0.0, settled - time.monotonic()))
            self._taking.discard(robot_id)
            won = self._mine.get(robot_id, (None,))[0] == claim and \
                book.holder(robot_id) == claim
            lost = None if won else self._mine.pop(robot_id, None)
            winner = book.holder(robot_id)
        self._undeclare(bus, lost)
        self._tell(robot_id)
        if won:
            return ""
        return f"{winner.label} took control first" if winner is not None else \
            "control not confirmed: this station's claim was not seen"

    def permit(self, robot_id: str) -> str:
        """Why this station may not send ``robot_id`` a command now ("" when it may): it
        holds control, or nobody does (then it takes control, in the background, as it
        sends: a command to a free robot makes this station its controller)."""
        control = self.control(robot_id)
        if control.mine or control.taking:
            return ""
        if control.holder is not None:
            return control.refusal
        threading.Thread(target=self.take, args=(robot_id,), name=f"take {robot_id}",
                         daemon=True).start()
        return ""

    def release(self, robot_id: str) -> None:
        """Gives control of ``robot_id`` back (its token is withdrawn)."""
        with self._lock:
            own, bus = self._mine.pop(robot_id, None), self._bus
        if own is not None:
            self._undeclare(bus, own)
            self._tell(robot_id)

    def release_all(self) -> None:
        with self._lock:
            robots = list(self._mine)
        for robot in robots:
            self.release(robot)

    # -- asking the holder, and being asked -----------------------------------------------
    def request(self, robot_id: str, timeout_s: float = REQUEST_TIMEOUT_S) -> str:
        """Asks the station in control of ``robot_id`` for it; takes it when granted.
        "" when this station then holds it, else why not. Blocks until the answer."""
        control = self.control(robot_id)
        if control.mine:
            return ""
        holder = control.holder
        if holder is None:
            return self.take(robot_id)
        with self._lock:
            bus = self._bus
        if bus is None:
            return "not connected"
        asking = json.dumps({"station": self.identity.station_id, "name": self.identity.name,
                             "role": self.role})
        answer = ""
        asked_at = time.monotonic()
        try:
            for reply in bus.zenoh.get(request_key(self.root, robot_id), payload=asking,
                                       timeout=timeout_s):
                if reply.ok is not None:
                    answer = reply.ok.payload.to_string()
                    break
        except Exception as exc:  # the session closed under the query
            return f"not asked: {exc}"
        if not answer and time.monotonic() - asked_at < timeout_s / 2:
            return f"{holder.label} cannot be asked: its station answers no requests"
        if not answer:
            return f"no answer from {holder.label} within {timeout_s:.0f} s"
        if answer != GRANTED:
            return f"{holder.label} declined" if answer == DECLINED else answer
        deadline = time.monotonic() + GRANT_RELEASE_S
        while self.control(robot_id).holder == holder and \
                time.monotonic() < deadline:
            time.sleep(0.02)
        return self.take(robot_id)

    def on_request(self, handler: RequestHandler | None) -> None:
        """Who answers another station's request for a robot this station holds (the
        window asks its operator). Without one, requests are declined."""
        with self._lock:
            self._on_request = handler

    def _asked(self, robot_id: str, query: Any) -> None:
        try:
            asking = json.loads(query.payload.to_string()) if query.payload is not None else {}
            who = f"{asking['name']} ({asking['role']})"
        except (ValueError, KeyError, TypeError):
            who = "another station"
        with self._lock:
            handler = self._on_request
        answered = threading.Event()

        def answer(granted: bool) -> None:
            if answered.is_set():
                return
            answered.set()
            if granted:
                self.release(robot_id)
            try:
                query.reply(query.key_expr, GRANTED if granted else DECLINED)
            except Exception as exc:  # the asker gave up (its timeout) or left
                log.info("answer to a control request not sent: %s", exc)

        if handler is None:
            answer(False)
        else:
            handler(robot_id, who, answer)

    # -- inside ---------------------------------------------------------------------------
    def _on_change(self, robot_id: str) -> None:
        """A robot's claims changed: a claim of ours that another now beats is withdrawn."""
        beaten = None
        with self._lock:
            book, bus, own = self._book, self._bus, self._mine.get(robot_id)
            if book is not None and own is not None and robot_id not in self._taking:
                current = book.holder(robot_id)
                if current is not None and current.rank < own[0].rank:
                    beaten = self._mine.pop(robot_id)
                    self._lost[robot_id] = f"control taken by {current.label}"
            self._changed.notify_all()
        self._undeclare(bus, beaten)
        self._tell(robot_id)

    @staticmethod
    def _undeclare(bus: BusSession | None, own: tuple[Claim, Any, Any] | None) -> None:
        """Withdraws a claim's token and request queryable (outside the lock: zenoh may
        call the claims' subscriber back on this thread)."""
        if own is None or bus is None or bus.closed:
            return
        for handle in (own[2], own[1]):
            if handle is not None:
                bus.release(handle)

    def _tell(self, robot_id: str) -> None:
        with self._lock:
            watchers = list(self._watchers)
        for watcher in watchers:
            try:
                watcher(robot_id)
            except Exception:
                log.exception("control watcher failed")
