"""The station's one outbox: every command it sends (teleop, stops, e-stops, goals,
missions, services, settings) leaves through here.

One publisher per key, type and kind of traffic (each with the QoS PROTOCOL.md asks for:
:class:`Traffic`), made on the current session and made again on a new one (the old session
released its handles); closed with the station. Thread-safe: the teleop clock, the e-stop
senders, the stop bursts and the GUI send at once, and none waits on another's put.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from app.bus.publisher import Publisher, Traffic
from app.bus.session import BusSession

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Outgoing:
    key: str  # full key, fleet/<robotId>/...
    type_name: str
    payload: bytes
    traffic: Traffic


class Outbox:
    """``bus`` returns the current session (None when offline)."""

    def __init__(self, bus: Callable[[], BusSession | None]) -> None:
        self._bus = bus
        self._lock = threading.Lock()
        self._publishers: dict[tuple[str, str, Traffic], Publisher] = {}
        self._for: BusSession | None = None

    def send(self, outgoing: Iterable[Outgoing]) -> bool:
        """True if every message was handed to zenoh; False when not connected."""
        return all([self.put(o.key, o.type_name, o.traffic, o.payload) for o in outgoing])

    def put(self, key: str, type_name: str, traffic: Traffic, message: Any) -> bool:
        """Publishes a capnp builder (or its bytes); False when not connected."""
        publisher = self._publisher(key, type_name, traffic)
        if publisher is None:
            return False
        try:
            publisher.put(message)
        except Exception as exc:  # the session closed under the put (a reconnect)
            log.info("not sent on %s: %s", key, exc)
            return False
        return True

    def _publisher(self, key: str, type_name: str, traffic: Traffic) -> Publisher | None:
        bus = self._bus()
        if bus is None or bus.closed:
            return None
        with self._lock:
            if bus is not self._for:
                self._publishers, self._for = {}, bus  # the old session released its handles
            slot = (key, type_name, traffic)
            publisher = self._publishers.get(slot)
            if publisher is None:
                publisher = self._publishers[slot] = Publisher(bus, key, type_name, traffic)
            return publisher

    def close(self) -> None:
        with self._lock:
            publishers, bus = list(self._publishers.values()), self._for
            self._publishers, self._for = {}, None
        if bus is not None and not bus.closed:
            for publisher in publishers:
                publisher.close()
