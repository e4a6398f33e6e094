"""What command authority adds, for bench_teleop: the outbox's put of a teleop command with
the issuer stamped and control checked, against the same outbox without them, and that
difference on a command's way to the robot, against a bare zenoh put's latency; and taking
control, from the call to the claim token seen by another station, against a bare
liveliness token's round trip between the same two sessions. Same run, same load."""

from __future__ import annotations

import threading
import time
from typing import Any

from app.bus.control import claims_expr
from app.bus.keys import command_key
from app.bus.outbox import Outbox
from app.bus.publisher import Traffic
from app.bus.session import BusSession
from app.codec.registry import registry
from app.station.station import Station
from tests.bench.common import iterations, percentile, report

COMMAND = "fleet.Command"


def control_lines(station: Station, robot: str, other: BusSession, bare_put_s: float
                  ) -> list[str]:
    """``other``: a session of another station on the same fabric; ``bare_put_s``: a bare
    zenoh put's p50 latency to the robot, measured in the same run."""
    assert station.bus is not None
    lines = _put_lines(station, robot, station.bus, bare_put_s)
    lines += _take_lines(station, other)
    return lines


def _teleop(robot: str) -> Any:
    message = registry().struct(COMMAND).new_message(robotId=robot, seq=1)
    message.init("teleop").linearMps = 0.5
    return message.to_bytes()


def _put_lines(station: Station, robot: str, bus: BusSession, bare_put_s: float
               ) -> list[str]:
    key = command_key(robot, "teleop", station.root) + "/bench"  # no robot takes it
    payload, count = _teleop(robot), iterations(5000, 300)
    bare = Outbox(lambda: bus)

    def per_put(outbox: Outbox) -> float:
        started = time.thread_time()
        for _ in range(count):
            outbox.put(key, COMMAND, Traffic.TELEOP, payload)
        return (time.thread_time() - started) / count

    per_put(bare), per_put(station.outbox)  # publishers made, caches warm
    plain, with_control = per_put(bare), per_put(station.outbox)
    bare.close()
    added = max(0.0, with_control - plain)  # on the sending thread, before the wire
    return [report("teleop command put with the issuer stamped and control checked / the "
                   "same outbox without (CPU a put)", with_control, plain,
                   fmt=lambda s: f"{s * 1e6:.0f} µs"),
            report("what control adds to pad change -> command on the wire: a bare zenoh "
                   "put's p50 latency with it added / without", bare_put_s + added,
                   bare_put_s)]


class _Seen:
    """When another session's liveliness subscriber sees each token appear."""

    def __init__(self, other: BusSession, key_expr: str) -> None:
        self.at: dict[str, float] = {}
        self.changed = threading.Condition()
        self._handle = other.declare_liveliness_subscriber(key_expr, self._on)

    def _on(self, sample: Any) -> None:
        with self.changed:
            self.at.setdefault(str(sample.key_expr), time.perf_counter())
            self.changed.notify_all()

    def wait(self, match: str, timeout: float = 5.0) -> float:
        deadline = time.perf_counter() + timeout
        with self.changed:
            while True:
                found = next((t for k, t in self.at.items() if match in k), None)
                if found is not None:
                    return found
                if not self.changed.wait(max(0.0, deadline - time.perf_counter())):
                    raise RuntimeError(f"{match} never seen")


def _take_lines(station: Station, other: BusSession) -> list[str]:
    assert station.bus is not None
    count = iterations(40, 4)
    seen = _Seen(other, claims_expr(station.root))
    bare_seen = _Seen(other, "bench/token/*")
    takes, bares = [], []
    for n in range(count):
        robot = f"bench-claim-{n}"
        started = time.perf_counter()
        assert station.authority.take(robot) == ""
        takes.append(seen.wait(f"/{robot}/control/") - started)
        station.authority.release(robot)
        started = time.perf_counter()
        token = station.bus.declare_token(f"bench/token/{n}")
        bares.append(bare_seen.wait(f"bench/token/{n}") - started)
        station.bus.release(token)
    settle = station.authority.settle_s
    print(f"  taking control waits {settle * 1000:.0f} ms for a rival's claim before it "
          "answers; the token is out before that wait", flush=True)
    return [report("take control, the call to the claim seen by another station p99 / a "
                   "bare liveliness token's round trip p99", percentile(takes, 99),
                   percentile(bares, 99))]
