"""A log played back onto zenoh, so any zenoh tool sees its robots again.

Qt-free. Each sample goes out on its key with its exact payload, encoding and attachment
when the log clock reaches it; each robot's liveliness token comes and goes as recorded, and
its recorded catalog is served on ``fleet/<robotId>/catalog``. Commands in the log (teleop,
goals, e-stops) are never sent: a log must not drive a robot.
"""

from __future__ import annotations

import functools
import threading
from typing import Any

import zenoh

from app.bus.keys import DEFAULT_ROOT, robot_of
from app.bus.publisher import Traffic
from app.bus.session import BusSession
from app.codec.buffers import attachment_bytes
from app.record.format import LivelinessEvent, LoggedSample
from app.record.player import LogPlayer
from app.record.reader import LogReader


def is_command(key: str, root: str = DEFAULT_ROOT) -> bool:
    robot_id = robot_of(key, root)
    return robot_id is not None and key.startswith(f"{root}/{robot_id}/command/")


class Republisher:
    def __init__(self, bus: BusSession, reader: LogReader, speed: float = 1.0,
                 loop: bool = False, root: str = DEFAULT_ROOT) -> None:
        self.bus = bus
        self.root = root
        self.sent = 0
        self.skipped_commands = 0
        self.errors: list[str] = []
        self._publishers: dict[tuple[str, str], Any] = {}
        self._tokens: dict[str, Any] = {}
        self._catalogs: dict[str, tuple[bytes, str]] = {}  # key -> payload, encoding
        self._queryables: dict[str, Any] = {}
        self._lock = threading.Lock()
        self.player = LogPlayer(reader, self._put, self._liveliness, on_error=self._error)
        self.player.set_speed(speed)
        self.player.set_loop(loop)

    def start(self) -> None:
        self.player.play()

    def done(self) -> bool:
        return self.player.state().finished

    def _put(self, sample: LoggedSample) -> None:
        if is_command(sample.key, self.root):
            self.skipped_commands += 1
            return
        if sample.key.endswith("/catalog"):
            self._serve_catalog(sample)
            return
        slot = (sample.key, sample.encoding)
        publisher = self._publishers.get(slot)
        if publisher is None:
            qos = Traffic.TELEMETRY.value
            publisher = self._publishers[slot] = self.bus.keep(self.bus.zenoh.declare_publisher(
                sample.key, encoding=zenoh.Encoding(sample.encoding), priority=qos.priority,
                congestion_control=zenoh.CongestionControl.BLOCK,  # a replay drops nothing
                reliability=qos.reliability))
        publisher.put(sample.payload, attachment=attachment_bytes(sample.attachment))
        self.sent += 1

    def _serve_catalog(self, sample: LoggedSample) -> None:
        with self._lock:
            self._catalogs[sample.key] = (sample.payload, sample.encoding)
            if sample.key in self._queryables:
                return
        self._queryables[sample.key] = self.bus.declare_queryable(
            sample.key, functools.partial(self._reply, key=sample.key))

    def _reply(self, query: Any, *, key: str) -> None:
        with self._lock:
            payload, encoding = self._catalogs[key]
        query.reply(key, payload, encoding=zenoh.Encoding(encoding))

    def _liveliness(self, event: LivelinessEvent) -> None:
        token = self._tokens.pop(event.key, None)
        if token is not None:
            self.bus.release(token)
        if event.alive:
            self._tokens[event.key] = self.bus.declare_token(event.key)

    def _error(self, where: str, exc: Exception) -> None:
        self.errors.append(f"{where}: {exc}")

    def close(self) -> None:
        self.player.close()
        for handle in [*self._publishers.values(), *self._tokens.values(),
                       *self._queryables.values()]:
            self.bus.release(handle)
