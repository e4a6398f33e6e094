"""The zenoh session wrapper: opens, keeps every declared handle, closes cleanly."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import zenoh

from app.bus import diagnose
from app.bus.config import BusConfig

UNREACHED = "Unable to connect to any of"  # how zenoh says none of the endpoints took us


class BusError(Exception):
    """The session could not be opened or used; the message is one readable line."""


class BusSession:
    def __init__(self, config: BusConfig | None = None) -> None:
        self.config = config or BusConfig()
        try:
            conf = self.zenoh_config = self.config.to_zenoh()
            self.zenoh = zenoh.open(conf)
        except zenoh.ZError as exc:
            reason = str(exc).split(" at /", 1)[0]  # drop zenoh's source location
            if reason.startswith(UNREACHED):  # zenoh does not say why: find out
                raise BusError(f"cannot connect to {diagnose.explain(conf)}") from None
            where = ", ".join(self.config.connect) or self.config.config_file or "loopback"
            raise BusError(f"cannot open zenoh session ({where}): {reason}") from None
        self._handles: list[Any] = []
        self._lock = threading.Lock()
        self._timestamp_id = self.zenoh.new_timestamp().get_id()

    def keep(self, handle: Any) -> Any:
        """Remembers a declared handle so close() undeclares it."""
        with self._lock:
            self._handles.append(handle)
        return handle

    def release(self, handle: Any) -> None:
        with self._lock:
            if handle in self._handles:
                self._handles.remove(handle)
        _undeclare(handle)

    def timestamp(self, unix_s: float) -> zenoh.Timestamp:
        """A zenoh timestamp of this session for a moment in unix seconds (not in the future:
        peers drop samples stamped too far ahead of their clock)."""
        return zenoh.Timestamp(datetime.fromtimestamp(unix_s, UTC), self._timestamp_id)

    def declare_subscriber(self, key_expr: str, handler: Callable[[Any], None] | Any) -> Any:
        """``handler``: a callback, or a zenoh channel (then try_recv on what is returned)."""
        return self.keep(self.zenoh.declare_subscriber(key_expr, handler))

    def declare_queryable(self, key_expr: str, callback: Callable[[Any], None]) -> Any:
        return self.keep(self.zenoh.declare_queryable(key_expr, callback))

    def declare_token(self, key_expr: str) -> Any:
        return self.keep(self.zenoh.liveliness().declare_token(key_expr))

    def declare_liveliness_subscriber(
        self, key_expr: str, callback: Callable[[Any], None]
    ) -> Any:
        return self.keep(
            self.zenoh.liveliness().declare_subscriber(key_expr, callback, history=True)
        )

    @property
    def closed(self) -> bool:
        return self.zenoh.is_closed()

    def close(self) -> None:
        with self._lock:
            handles, self._handles = self._handles, []
        for handle in reversed(handles):
            _undeclare(handle)
        if not self.zenoh.is_closed():
            self.zenoh.close()

    def __enter__(self) -> BusSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _undeclare(handle: Any) -> None:
    with contextlib.suppress(zenoh.ZError):  # already undeclared, or its session is gone
        handle.undeclare()
