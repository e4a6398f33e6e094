"""The robot's side of ``bench_teleop``, in a process of its own as a robot is (the GUI's
threads must not hold its callbacks back): subscribes to the given keys and prints one line
per sample, ``<key index> <time.perf_counter()> <linear m/s or nan>``. perf_counter is
CLOCK_MONOTONIC on Linux, one clock for both processes.

    python -m tests.bench.robot_listener ENDPOINT KEY [KEY...]
"""

from __future__ import annotations

import math
import sys
import threading
import time
from typing import Any

from app.bus.config import BusConfig
from app.bus.session import BusSession
from app.codec.decode import decode


def main(endpoint: str, keys: list[str]) -> None:
    bus = BusSession(BusConfig(mode="client", connect=[endpoint]))
    out = threading.Lock()

    def listener(index: int) -> Any:
        def on_sample(sample: Any) -> None:
            arrived = time.perf_counter()
            payload = sample.payload.to_bytes()
            try:
                linear = decode(str(sample.encoding), payload).root.teleop.linearMps
            except Exception:  # the bare baseline's zeros, or a bad command: no value
                linear = math.nan
            with out:
                sys.stdout.write(f"{index} {arrived!r} {linear!r} {len(payload)}\n")
                sys.stdout.flush()
        return on_sample

    try:
        for index, key in enumerate(keys):
            bus.declare_subscriber(key, listener(index))
        sys.stdout.write("ready\n")
        sys.stdout.flush()
        sys.stdin.read()  # until the bench closes our stdin
    finally:
        bus.close()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
