"""Internal errors: every worker guards each unit of work, and what it catches lands here.

Each failure is logged (with its traceback) and kept, newest last, so the status bar can
show how many there were and what they said; the work goes on.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from dataclasses import dataclass

log = logging.getLogger("fieldstation")
KEPT = 200


@dataclass(frozen=True)
class Incident:
    when: float  # time.time()
    where: str  # the worker and the key it was working on
    what: str  # the exception, one line


class Incidents:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._recent: deque[Incident] = deque(maxlen=KEPT)
        self._count = 0

    def record(self, where: str, exc: BaseException) -> None:
        """Called from an ``except`` block: logs the traceback and keeps a one-line note."""
        log.error("internal error in %s", where, exc_info=exc)
        incident = Incident(time.time(), where, f"{type(exc).__name__}: {exc}")
        with self._lock:
            self._recent.append(incident)
            self._count += 1

    @property
    def count(self) -> int:
        return self._count

    def recent(self) -> list[Incident]:
        with self._lock:
            return list(self._recent)
