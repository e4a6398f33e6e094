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

from app.bus.control import issuer_attachment
from app.bus.keys import DEFAULT_ROOT, robot_of
from app.bus.publisher import Publisher, Traffic
from app.bus.session import BusSession
from app.codec.registry import registry

log = logging.getLogger(__name__)

FLEET_COMMAND = "fleet.Command"
MAY_BE_REFUSED = (Traffic.COMMAND, Traffic.TELEOP)  # never a stop or an e-stop


@dataclass(frozen=True)
class Outgoing:
    key: str  # full key, fleet/<robotId>/...
    type_name: str
    payload: bytes
    traffic: Traffic


class Outbox:
    """``bus`` returns the current session (None when offline). Every command names
    ``issuer`` (this station's id, app.bus.control): in the sample's attachment, and in a
    ``fleet.Command``'s own ``issuer`` field, set here so no sender can leave it out."""

    def __init__(self, bus: Callable[[], BusSession | None], issuer: str = "",
                 refusal: Callable[[str], str] | None = None, root: str = DEFAULT_ROOT
                 ) -> None:
        """``refusal(robot_id)``: why this station may not command that robot now ("" when
        it may; app.station.authority). Commands and teleop refused so are not sent; stops
        and e-stops always are."""
        self._bus = bus
        self.issuer = issuer
        self._refusal = refusal
        self._root = root
        self._attachment = issuer_attachment(issuer) if issuer else None
        self._lock = threading.Lock()
        self._publishers: dict[tuple[str, str, Traffic], Publisher] = {}
        self._for: BusSession | None = None

    def send(self, outgoing: Iterable[Outgoing]) -> bool:
        """True if every message was handed to zenoh; False when not connected."""
        return all([self.put(o.key, o.type_name, o.traffic, o.payload) for o in outgoing])

    def put(self, key: str, type_name: str, traffic: Traffic, message: Any) -> bool:
        """Publishes a capnp builder (or its bytes); False when not connected."""
        if self._refusal is not None and traffic in MAY_BE_REFUSED:
            robot_id = robot_of(key, self._root)
            refused = self._refusal(robot_id) if robot_id is not None else ""
            if refused:
                log.info("not sent on %s: %s", key, refused)
                return False
        publisher = self._publisher(key, type_name, traffic)
        if publisher is None:
            return False
        try:
            if type_name == FLEET_COMMAND and self.issuer:
                message = _issued(message, self.issuer)
            publisher.put(message, self._attachment)
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


def _issued(message: Any, issuer: str) -> Any:
    """``message`` (a fleet.Command builder or its bytes) with ``issuer`` set, as a new
    message (the caller's builder is left as it was)."""
    payload = bytes(message) if isinstance(message, bytes | bytearray | memoryview) \
        else message.to_bytes()
    with registry().struct(FLEET_COMMAND).from_bytes(payload) as reader:
        issued = reader.as_builder()
    issued.issuer = issuer
    return issued
