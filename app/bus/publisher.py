"""Publishers with the quality of service PROTOCOL.md asks for, per kind of traffic."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

import zenoh

from app.bus.session import BusSession
from app.codec.decode import encoding_for


@dataclass(frozen=True)
class QoS:
    priority: zenoh.Priority
    congestion: zenoh.CongestionControl
    express: bool
    reliability: zenoh.Reliability


class Traffic(Enum):
    # Telemetry may be dropped under congestion rather than stall the robot's publisher.
    TELEMETRY = QoS(
        zenoh.Priority.DATA, zenoh.CongestionControl.DROP, False, zenoh.Reliability.RELIABLE
    )
    # Commands that must arrive (settings, services, missions, goals).
    COMMAND = QoS(
        zenoh.Priority.INTERACTIVE_LOW, zenoh.CongestionControl.BLOCK, False,
        zenoh.Reliability.RELIABLE,
    )
    # Teleop: express, drop-on-congestion, above telemetry: a stale command never queues.
    TELEOP = QoS(
        zenoh.Priority.INTERACTIVE_HIGH, zenoh.CongestionControl.DROP, True,
        zenoh.Reliability.BEST_EFFORT,
    )
    # Stops (the end of driving): never dropped at the station, at teleop's priority, so a
    # stop is not queued behind data; the caller spreads a burst over a period.
    STOP = QoS(
        zenoh.Priority.INTERACTIVE_HIGH, zenoh.CongestionControl.BLOCK, True,
        zenoh.Reliability.RELIABLE,
    )
    # E-stop: reliable, highest priority.
    ESTOP = QoS(
        zenoh.Priority.REAL_TIME, zenoh.CongestionControl.BLOCK, True, zenoh.Reliability.RELIABLE
    )


class Publisher:
    """Publishes capnp messages of one root type on one key."""

    def __init__(self, bus: BusSession, key: str, type_name: str, traffic: Traffic) -> None:
        self.key = key
        self.type_name = type_name
        self.encoding = encoding_for(type_name)
        qos = traffic.value
        self._bus = bus
        self._handle = bus.keep(
            bus.zenoh.declare_publisher(
                key,
                encoding=self.encoding,
                priority=qos.priority,
                congestion_control=qos.congestion,
                express=qos.express,
                reliability=qos.reliability,
            )
        )

    def put(
        self, message: Any, attachment: bytes | None = None, timestamp: Any = None
    ) -> int:
        """Publishes a capnp builder (or ready bytes); returns the payload size. Without a
        ``timestamp`` (see :meth:`BusSession.timestamp`) zenoh stamps the sample now."""
        payload = message if isinstance(message, bytes | bytearray) else message.to_bytes()
        self._handle.put(payload, attachment=attachment, timestamp=timestamp)
        return len(payload)

    def close(self) -> None:
        self._bus.release(self._handle)
