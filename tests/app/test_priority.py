"""Background threads and the embedded fleet yield the CPU to the window's thread and to
the threads that drive a robot (Linux, where threads have their own priorities)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from app.priority import BACKGROUND_NICE, lower_process

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="per-thread priorities are Linux's")


def nice_of(native_id: int) -> int:
    return os.getpriority(os.PRIO_PROCESS, native_id)


WINDOW = """
import json, os, threading
from app.priority import keep_prompt, lower_background

ids, go_on = {}, threading.Event()

def run(name, prompt):
    if prompt:
        keep_prompt()
    ids[name] = threading.get_native_id()
    go_on.wait(10)

workers = [threading.Thread(target=run, args=(name, name == "teleop"))
           for name in ("decoder", "teleop")]
for worker in workers:
    worker.start()
while len(ids) < 2:
    go_on.wait(0.01)
nice = lambda task: os.getpriority(os.PRIO_PROCESS, task)
own = nice(threading.get_native_id())
lowered = lower_background()
print(json.dumps({"own": own, "own after": nice(threading.get_native_id()),
                  "decoder": nice(ids["decoder"]), "teleop": nice(ids["teleop"]),
                  "lowered": lowered}))
go_on.set()
"""


def test_background_threads_are_lowered_prompt_ones_and_the_window_thread_are_not() -> None:
    # In a process of its own: lowering is for good, and this one's threads would stay low.
    out = subprocess.run([sys.executable, "-c", WINDOW], capture_output=True, text=True,
                         timeout=60, check=True, cwd=Path(__file__).parents[2]).stdout
    result = json.loads(out)
    own = result["own"]
    assert result["own after"] == own and result["teleop"] == own
    assert result["decoder"] == min(own + BACKGROUND_NICE, 19)
    assert result["lowered"] >= 1


def test_the_embedded_fleet_process_is_lowered() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"],
                             stdin=subprocess.PIPE)
    try:
        lower_process(child.pid)
        own = nice_of(threading.get_native_id())
        assert nice_of(child.pid) == min(own + BACKGROUND_NICE, 19)
    finally:
        assert child.stdin is not None
        child.stdin.close()
        child.wait(10)
