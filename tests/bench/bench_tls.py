"""Put-to-subscriber latency through a router over TLS (with user/password authentication,
as a depot runs it), against plain TCP through a router, same run, loopback.

Per transport: a router, and two client sessions through it (a publisher and a subscriber,
as a robot and a station), all in this process so both ends read the same clock. One
message in flight at a time; bare zenoh publisher and subscriber (the subscriber reads the
payload), so the figure is the transport's. Shared memory is off on both: zenoh would
otherwise hand big payloads between sessions of one host through it, past the link, and a
depot's robots are on other hosts. The two transports are measured in interleaved rounds so
drifts in machine load hit both alike. Authentication happens once per session, at open:
it does not enter the latency.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import zenoh

from app.bus.config import BusConfig
from app.bus.session import BusSession
from tests.bench.common import iterations, percentile, report
from tests.bus.certs import make_certs
from tests.conftest import free_port

SIZES = {"100 B": 100, "100 KB": 100_000}
ROUNDS = 5
QUIET = {"multicast": {"enabled": False}, "gossip": {"enabled": False}}
NO_SHM = {"enabled": False}


class Link:
    """A router on ``endpoint`` and two clients through it, publisher and subscriber."""

    def __init__(self, endpoint: str, router_config: str, client_config: str) -> None:
        self.sessions = [BusSession(BusConfig(mode="router", listen=[endpoint],
                                              config_file=router_config))]
        self.sessions += [BusSession(BusConfig(mode="client", connect=[endpoint],
                                               config_file=client_config, must_connect=True))
                          for _ in range(2)]
        robot, station = self.sessions[1:]
        self.received = threading.Event()
        self.arrived = 0.0
        station.declare_subscriber("bench/tls", self._arrive)
        # Blocking, not dropping: on a busy machine a fragment of 100 KB may wait longer
        # than zenoh's drop deadline, and a lost sample is no latency.
        self.publisher = robot.keep(robot.zenoh.declare_publisher(
            "bench/tls", congestion_control=zenoh.CongestionControl.BLOCK))

    def _arrive(self, sample: zenoh.Sample) -> None:
        sample.payload.to_bytes()
        self.arrived = time.perf_counter()
        self.received.set()

    def ping(self, payload: bytes, count: int) -> list[float]:
        latencies = []
        for _ in range(count):
            self.received.clear()
            sent = time.perf_counter()
            self.publisher.put(payload)
            if not self.received.wait(10):
                raise RuntimeError("sample lost")
            latencies.append(self.arrived - sent)
        return latencies

    def close(self) -> None:
        for session in reversed(self.sessions):
            session.close()


def _write(path: Path, transport: dict) -> str:
    path.write_text(json.dumps({"scouting": QUIET, "listen": {"endpoints": []},
                                "transport": {"shared_memory": NO_SHM, **transport}}))
    return str(path)


@contextmanager
def configs() -> Iterator[dict[str, tuple[str, str]]]:
    """(router, client) configs: "tls" requires TLS and a password (the client has both),
    "tcp" is plain."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        certs = make_certs(root)
        (root / "users.txt").write_text("bench:bench-password\n")
        tls = {"root_ca_certificate": str(certs.ca)}
        yield {
            "tls": (_write(root / "tls-router.json5", {
                "link": {"tls": {**tls, "listen_certificate": str(certs.router),
                                 "listen_private_key": str(certs.router_key)}},
                "auth": {"usrpwd": {"dictionary_file": str(root / "users.txt")}}}),
                    _write(root / "tls-client.json5", {
                        "link": {"tls": tls},
                        "auth": {"usrpwd": {"user": "bench", "password": "bench-password"}}})),
            "tcp": (_write(root / "tcp-router.json5", {}),
                    _write(root / "tcp-client.json5", {})),
        }


def run() -> list[str]:
    lines = []
    with configs() as files:
        tls = Link(f"tls/localhost:{free_port()}", *files["tls"])
        tcp = Link(f"tcp/127.0.0.1:{free_port()}", *files["tcp"])
        try:
            time.sleep(0.5)  # the subscriber's declaration reaches the publisher's side
            for label, size in SIZES.items():
                payload = os.urandom(size)
                count = iterations({100: 5000, 100_000: 1000}[size], 50)
                over_tls: list[float] = []
                over_tcp: list[float] = []
                for _ in range(ROUNDS):
                    over_tcp += tcp.ping(payload, count // ROUNDS)
                    over_tls += tls.ping(payload, count // ROUNDS)
                for q in (50, 99):
                    lines.append(report(f"latency through a router {label} p{q} "
                                        "(TLS + password / plain TCP)",
                                        percentile(over_tls, q), percentile(over_tcp, q)))
        finally:
            tcp.close()
            tls.close()
    return lines


if __name__ == "__main__":
    run()
