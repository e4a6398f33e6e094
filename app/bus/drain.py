"""One thread that empties many subscribers' ring channels, instead of a thread each.

zenoh-python runs each callback subscriber's callback on a Python thread of its own: at a
hundred robots that is over a hundred threads, and most of their time went to switching
between them and taking the GIL. A drained subscriber hands its samples to a ring channel;
one thread takes every channel's samples in turn every :data:`DRAIN_PERIOD_S`, in a batch.
Samples wait at most that long; the ring keeps the newest :data:`RING_CAPACITY` of a
subscriber should the thread be held up longer (the older ones are dropped, never blocking
zenoh).
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import zenoh

from app.thread_cpu import ThreadClocks

log = logging.getLogger(__name__)

DRAIN_PERIOD_S = 0.005
RING_CAPACITY = 1024


class Drain:
    def __init__(self, name: str, deliver: Callable[[str, Any], None]) -> None:
        """``deliver(key_expr, sample)`` is called on the drain's thread, in arrival order per
        subscriber."""
        self._deliver = deliver
        self._subscribers: tuple[tuple[str, Any], ...] = ()
        self._pass = threading.Lock()  # one pass over the rings at a time
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._clock = ThreadClocks()
        self._thread.start()
        self._clock.add(self._thread)

    @staticmethod
    def handler() -> zenoh.handlers.RingChannel[zenoh.Sample]:
        """What a subscriber to be drained is declared with."""
        return zenoh.handlers.RingChannel(RING_CAPACITY)

    def drain(self, subscribers: Mapping[str, Any]) -> None:
        """Drains exactly these subscribers (key expression -> subscriber) from now on."""
        self._subscribers = tuple(subscribers.items())

    @contextlib.contextmanager
    def handover(self, leaving: Mapping[str, Any]) -> Iterator[None]:
        """Delivers what the rings of ``leaving`` hold now (on the caller's thread) and keeps
        the drain's thread still until the block ends: samples that waited in a ring are not
        lost when its subscriber goes, however late the thread is."""
        with self._pass:
            self._empty(tuple(leaving.items()))
            yield

    def cpu_s(self) -> float:
        """The CPU time of the drain's thread: taking and delivering its samples."""
        return self._clock.seconds()

    def _run(self) -> None:
        while not self._stopped.wait(DRAIN_PERIOD_S):
            with self._pass:
                self._empty(self._subscribers)
        self._clock.ending()

    def _empty(self, subscribers: tuple[tuple[str, Any], ...]) -> None:
        for key_expr, subscriber in subscribers:
            try:
                while (sample := subscriber.try_recv()) is not None:
                    self._deliver(key_expr, sample)
            except (zenoh.ZError, RuntimeError):
                # Undeclared meanwhile (RuntimeError: zenoh-python's "already mutably
                # borrowed" while it undeclares): its successor hears its samples.
                pass
            except Exception:  # a consumer's bug must not stop every subscriber
                log.exception("delivering a sample of %s", key_expr)

    def stop(self) -> None:
        self._stopped.set()
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout=2)
