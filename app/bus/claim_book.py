"""Every robot's live control claims, kept from the claim tokens by one liveliness
subscriber (app.bus.control has the format and the rule)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import zenoh

from app.bus.control import Claim, claims_expr, holder, parse_claim
from app.bus.session import BusSession


class ClaimBook:
    """``on_change(robot_id)`` is called on zenoh's thread after a robot's claims change."""

    def __init__(self, bus: BusSession, root: str, robot_id: str = "*",
                 on_change: Callable[[str], None] | None = None) -> None:
        self.root = root
        self.malformed = 0  # tokens under the claims' keys that are no claim
        self._claims: dict[str, dict[str, Claim]] = {}  # by robot, by token key
        self._lock = threading.Lock()
        self._on_change = on_change
        self._bus = bus
        self._handle = bus.declare_liveliness_subscriber(claims_expr(root, robot_id),
                                                         self._receive)

    def _receive(self, sample: Any) -> None:
        key = str(sample.key_expr)
        claim = parse_claim(key, self.root)
        if claim is None:
            self.malformed += 1
            return
        with self._lock:
            claims = self._claims.setdefault(claim.robot_id, {})
            if sample.kind == zenoh.SampleKind.PUT:
                claims[key] = claim
            else:
                claims.pop(key, None)
                if not claims:
                    del self._claims[claim.robot_id]
        if self._on_change is not None:
            self._on_change(claim.robot_id)

    def holder(self, robot_id: str) -> Claim | None:
        with self._lock:
            return holder(self._claims.get(robot_id, {}).values())

    def claims(self, robot_id: str) -> list[Claim]:
        with self._lock:
            return list(self._claims.get(robot_id, {}).values())

    def holders(self) -> dict[str, Claim]:
        """The holder of every robot someone controls, by robot id."""
        with self._lock:
            found = {robot: holder(claims.values()) for robot, claims in self._claims.items()}
        return {robot: claim for robot, claim in found.items() if claim is not None}

    def close(self) -> None:
        if not self._bus.closed:
            self._bus.release(self._handle)
