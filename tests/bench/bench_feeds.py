"""The station model: what a value costs from the bus to a panel, and what data nobody
shows costs.

- Publish-to-panel latency: a robot session puts a small ``fleet.Uplink`` at 50 Hz; the
  station's lane turns the newest into a plain tree; a 30 Hz frame clock (the GUI's rate)
  takes it (and tells the hub, as the window's tick does). Latency = the tick that first
  holds a sample - its put. Baseline: a bare zenoh subscriber's put -> callback latency in
  the same run, plus one frame period (a value can at best wait a whole frame for the
  tick). Target: p50 and p99 at most 1.0x.
- App CPU: this process's CPU time a second with the station connected to the full
  simulated fleet (its own process) and no panel open, against the same station connected
  to an idle router. Reported, no target: zenoh still receives every byte of the fleet.
"""

from __future__ import annotations

import threading
import time

import zenoh

from app.bus.config import BusConfig
from app.bus.publisher import Publisher, Traffic
from app.bus.session import BusSession
from app.codec.registry import registry
from app.station.embedded_sim import EmbeddedSim
from app.station.interests import Latest
from app.station.station import Station
from tests.bench.common import iterations, percentile, process_cpu_per_s, report
from tests.conftest import free_port

KEY = "fleet/bench-1/uplink/status"
RATE_HZ = 50.0
FRAME_S = 1 / 30


def uplink(n: int) -> bytes:
    message = registry().structs["fleet.Uplink"].new_message()
    message.robotId = "bench-1"
    message.unixTimeMs = n
    message.init("status")
    return message.to_bytes()


def _put_numbered(robot: BusSession, count: int, sent: dict[int, float]) -> None:
    publisher = Publisher(robot, KEY, "fleet.Uplink", Traffic.TELEMETRY)
    payloads = [uplink(n) for n in range(1, count + 1)]
    next_at = time.monotonic()
    for n, payload in enumerate(payloads, start=1):
        time.sleep(max(0.0, next_at - time.monotonic()))
        sent[n] = time.perf_counter()
        publisher.put(payload)
        next_at += 1 / RATE_HZ
    publisher.close()


def bus_latencies(count: int) -> list[float]:
    endpoint = f"tcp/127.0.0.1:{free_port()}"
    sent: dict[int, float] = {}
    got: list[float] = []
    with BusSession(BusConfig(listen=[endpoint])) as robot, \
            BusSession(BusConfig(connect=[endpoint])) as app:
        def arrive(sample: zenoh.Sample) -> None:
            now = time.perf_counter()
            message = registry().structs["fleet.Uplink"].from_bytes(sample.payload.to_bytes())
            with message as root:
                got.append(now - sent[root.unixTimeMs])

        app.declare_subscriber(KEY, arrive)
        time.sleep(0.5)
        _put_numbered(robot, count, sent)
        time.sleep(0.2)
    return got


def panel_latencies(count: int) -> list[float]:
    endpoint = f"tcp/127.0.0.1:{free_port()}"
    sent: dict[int, float] = {}
    got: list[float] = []
    with BusSession(BusConfig(listen=[endpoint])) as robot:
        station = Station(BusConfig(connect=[endpoint]))
        try:
            station.set_interests({Latest(KEY)})
            while station.status.session != "online":
                time.sleep(0.01)
            time.sleep(0.5)
            putter = threading.Thread(target=_put_numbered, args=(robot, count, sent))
            putter.start()
            seen = -1
            next_tick = time.monotonic()
            while putter.is_alive():  # the frame clock
                next_tick += FRAME_S
                time.sleep(max(0.0, next_tick - time.monotonic()))
                value = station.feeds.latest.get(KEY)
                station.feeds.frame_taken()
                if value is not None and value.seq != seen:
                    seen = value.seq
                    got.append(time.perf_counter() - sent[value.tree["unixTimeMs"]])
            putter.join()
        finally:
            station.close()
    return got


def cpu_per_s(endpoint: str, seconds: float) -> float:
    station = Station(BusConfig(connect=[endpoint]))
    try:
        time.sleep(iterations(2, 1))  # connected, robots and catalogs found
        return process_cpu_per_s(seconds)
    finally:
        station.close()


def run() -> list[str]:
    count = iterations(1500, 60)
    bus = bus_latencies(count)
    panel = panel_latencies(count)
    lines = [
        report("publish-to-panel latency p50 (station at a 30 Hz tick / bus + one frame)",
               percentile(panel, 50), percentile(bus, 50) + FRAME_S, 1.0),
        report("publish-to-panel latency p99 (station at a 30 Hz tick / bus + one frame)",
               percentile(panel, 99), percentile(bus, 99) + FRAME_S, 1.0),
    ]
    seconds = iterations(20, 2)
    fleet = EmbeddedSim(f"tcp/127.0.0.1:{free_port()}")
    try:
        busy = cpu_per_s(fleet.endpoint, seconds)
    finally:
        fleet.stop()
    idle_endpoint = f"tcp/127.0.0.1:{free_port()}"
    with BusSession(BusConfig(mode="router", listen=[idle_endpoint])):
        idle = cpu_per_s(idle_endpoint, seconds)
    lines.append(report("app CPU, full fleet and no panel open / idle session",
                        busy, idle))
    print(f"  (CPU: {100 * busy:.1f} % of a core with the fleet, {100 * idle:.1f} % idle)")
    return lines


if __name__ == "__main__":
    run()
