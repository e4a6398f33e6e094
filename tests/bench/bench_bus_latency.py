"""Publish-to-subscriber latency through the app's bus, against bare zenoh, same run.

Two sessions in one process over TCP loopback (so both clocks are the same clock). One
message in flight at a time. The baseline is a bare zenoh subscriber that reads the payload
(``to_bytes()``: any consumer must); the app path is Publisher -> Subscription, timed when the
subscription hands the sample to its consumer (ring, counters and all).
"""

from __future__ import annotations

import os
import threading
import time

import zenoh

from app.bus.config import BusConfig
from app.bus.publisher import Publisher, Traffic
from app.bus.session import BusSession
from app.bus.subscription import Subscription
from tests.bench.common import iterations, percentile, report
from tests.conftest import free_port

SIZES = {"64 B": 64, "1 MB": 1_000_000, "16 MB": 16_000_000}
TARGET = 1.2


def _ping(put, received: threading.Event, stamps: list[float], count: int) -> list[float]:
    latencies = []
    for _ in range(count):
        received.clear()
        sent = time.perf_counter()
        put()
        if not received.wait(10):
            raise RuntimeError("sample lost")
        latencies.append(stamps[-1] - sent)
    return latencies


def run() -> list[str]:
    endpoint = f"tcp/127.0.0.1:{free_port()}"
    robot = BusSession(BusConfig(listen=[endpoint]))
    app = BusSession(BusConfig(connect=[endpoint], must_connect=True))
    lines = []
    try:
        received = threading.Event()
        stamps: list[float] = []

        def arrive(_sample: object) -> None:
            stamps.append(time.perf_counter())
            received.set()

        def bare_arrive(sample: zenoh.Sample) -> None:
            sample.payload.to_bytes()
            arrive(sample)

        app.declare_subscriber("bench/bare", bare_arrive)
        Subscription(app, "bench/app", depth=4, on_sample=arrive)
        bare_pub = robot.keep(robot.zenoh.declare_publisher("bench/bare"))
        app_pub = Publisher(robot, "bench/app", "transport.Buffers", Traffic.TELEMETRY)
        time.sleep(0.5)
        for label, size in SIZES.items():
            payload = os.urandom(size)
            count = iterations({64: 5000, 1_000_000: 1000, 16_000_000: 100}[size], 5)
            bare: list[float] = []
            ours: list[float] = []
            for _ in range(5):  # interleave so drifts in machine load hit both alike
                bare += _ping(lambda p=payload: bare_pub.put(p), received, stamps, count // 5 or 1)
                ours += _ping(lambda p=payload: app_pub.put(p), received, stamps, count // 5 or 1)
            for q in (50, 99):
                lines.append(report(f"bus latency {label} p{q} (app bus / bare zenoh)",
                                    percentile(ours, q), percentile(bare, q), TARGET))
    finally:
        app.close()
        robot.close()
    return lines


if __name__ == "__main__":
    run()
