"""Keeping the C heap from growing on a long run (glibc only; elsewhere nothing is done).

At a depot of a hundred robots the station allocates from some 130 threads (zenoh's, the
lanes', Qt's). glibc gives busy threads arenas of their own, up to 8 per core, and each
arena keeps the high-water mark of what it once held: measured over 6 minutes, 180 MiB in
use took 464 MiB of arenas, and the resident size kept creeping up as arenas took turns at
their peaks. Two arenas hold the same work with little contention (the GIL serialises most
allocations anyway), and trimming now and then hands freed pages back to the system.
Every 10 s, not less often: a burst (a black-box save, a fault's flurry) then stays resident
for seconds, not half a minute. One trim of a 600 MB heap takes some 20 ms, on a thread of
its own.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import logging
import sys
import threading
import time

log = logging.getLogger(__name__)

M_ARENA_MAX = -8  # glibc's mallopt parameter
ARENAS = 2
TRIM_EVERY_S = 10.0


@functools.cache
def _glibc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    except OSError:
        return None
    return libc if hasattr(libc, "mallopt") and hasattr(libc, "malloc_trim") else None


def limit_arenas(arenas: int = ARENAS) -> bool:
    """Caps glibc's malloc arenas; call before threads start (arenas already made stay).
    Returns whether the cap was set."""
    libc = _glibc()
    return bool(libc is not None and libc.mallopt(M_ARENA_MAX, arenas) == 1)


def trim() -> bool:
    """Hands the heap's free pages back to the system; whether any were."""
    libc = _glibc()
    return bool(libc is not None and libc.malloc_trim(0))


def start_trimming(every_s: float = TRIM_EVERY_S) -> threading.Event | None:
    """Trims every ``every_s`` seconds on a daemon thread, so the GUI thread never waits
    on it; set the returned event to stop. None where there is nothing to trim."""
    if _glibc() is None:
        return None
    stop = threading.Event()

    def run() -> None:
        while not stop.wait(every_s):
            started = time.perf_counter()
            trim()
            log.debug("heap trimmed in %.1f ms", (time.perf_counter() - started) * 1e3)

    threading.Thread(target=run, name="heap-trim", daemon=True).start()
    return stop
