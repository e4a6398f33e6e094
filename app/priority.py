"""The window's thread, and the threads that drive a robot, first on the CPU: every other
thread of the process (the 3D view's software renderer, camera decoders and overlays, lanes,
zenoh's and FFmpeg's own threads) and the embedded fleet run at a lower priority.

On a two-core laptop these share the CPU in bursts (the renderer alone takes a core for
150 ms a frame), and the window's thread waited its turn: with two cameras, the 3D view and
the fleet, the camera panel's ticks waited 707-975 ms for a core in 15 s, and the window
stalled for 23-43 ms at p99. Lowered, the same ticks waited 294-506 ms and the stall was
13-20 ms. A lower priority costs a thread nothing while a core is free.

Linux only, where each thread has its own nice value (and a new thread takes its creator's):
elsewhere nothing changes. A process may lower its threads but never raise them back, so
threads that must stay prompt (the gamepad, the teleop clock, the e-stop) say so first.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading

BACKGROUND_NICE = 10  # added to the window thread's own; CPU weight about 1/9 of it
_LINUX = sys.platform.startswith("linux")
_prompt: set[int] = set()  # native ids of threads kept at the window's priority
_lock = threading.Lock()


def keep_prompt() -> None:
    """Called by a thread that must not wait behind background work (it sends commands to
    a robot): :func:`lower_background` leaves it alone."""
    with _lock:
        _prompt.add(threading.get_native_id())


def lower_background() -> int:
    """Lowers every thread of this process but the calling one (the window's) and those
    kept prompt to the caller's priority + BACKGROUND_NICE; returns how many it lowered.
    Cheap enough to call twice a second, so threads started since are caught."""
    if not _LINUX:
        return 0
    own = threading.get_native_id()
    background = min(os.getpriority(os.PRIO_PROCESS, own) + BACKGROUND_NICE, 19)
    try:
        tasks = [int(name) for name in os.listdir("/proc/self/task")]
    except OSError:
        return 0
    with _lock:
        _prompt.intersection_update(tasks)  # ids of ended threads may be reused
        kept = _prompt | {own}
    lowered = 0
    for task in tasks:
        if task in kept:
            continue
        with contextlib.suppress(OSError):  # a thread that ended meanwhile
            if os.getpriority(os.PRIO_PROCESS, task) < background:
                os.setpriority(os.PRIO_PROCESS, task, background)
                lowered += 1
    return lowered


def lower_process(pid: int) -> None:
    """Lowers a child process started just now (its first thread, which the threads it
    starts take after) to background priority."""
    if not _LINUX:
        return
    with contextlib.suppress(OSError):
        own = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
        os.setpriority(os.PRIO_PROCESS, pid, min(own + BACKGROUND_NICE, 19))
