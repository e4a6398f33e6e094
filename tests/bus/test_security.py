"""TLS and passwords, end to end on loopback: the simulated fleet's hub with the shipped
router config (TLS only, users from a password file), its robots with the shipped robot
config, and stations with the shipped station config — as is, and spoiled the ways an
operator spoils it (no password, a wrong one, no CA, another CA, a tcp/ endpoint). The
certificates are made here, as README.md's openssl steps make them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app import cli
from app.bus.config import BusConfig
from app.bus.session import BusSession
from app.sim.fleet import RobotsUnreachable, SimFleet
from app.station.station import Station
from tests.bus.depot import NO_PASSWORD, Depot, make_depot
from tests.bus.helpers import wait_for

NO_USER = "the router refused the session: it probably requires a user name and password"
BAD_USER = "the router refused our user name and password (user 'station')"


@pytest.fixture(scope="module")
def depot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Depot]:
    """The depot's router (the sim fleet's hub) with a rover and a car connected to it."""
    depot = make_depot(tmp_path_factory.mktemp("depot"))
    fleet = SimFleet(["rover", "car"], listen=[], points=2_000,
                     config_file=depot.config("router"),
                     robot_config_file=depot.config("robot"))
    fleet.start()
    try:
        yield depot
    finally:
        fleet.stop()


@pytest.fixture
def no_env_config(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ZENOH_CONFIG", raising=False)


def test_station_with_credentials_sees_the_robots_and_their_data(depot: Depot) -> None:
    station = Station(BusConfig(config_file=depot.config("station")))
    try:
        def ready() -> bool:
            robots = {r.robot_id: r for r in station.robots()}
            return (set(robots) == {"rover-1", "car-1"}
                    and all(r.online and r.catalog for r in robots.values()))

        wait_for(ready, timeout=15)
        counts = wait_for(lambda: _counts(station) if all(_counts(station).values())
                          else None, timeout=5)
        assert counts["rover-1"] > 0 and counts["car-1"] > 0
        assert station.status.session == "online"
        assert station.status.detail == ""
    finally:
        station.close()


def _counts(station: Station) -> dict[str, int]:
    counts = {"rover-1": 0, "car-1": 0}
    for key, stats in station.topics().items():
        robot = key.split("/")[1]
        if robot in counts:
            counts[robot] += stats.count
    return counts


def test_cli_with_credentials_lists_the_robots(depot: Depot, no_env_config,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    lines: list[str] = []
    assert cli.main(["robots", "--zenoh-config", depot.config("station")],
                    out=lines.append) == 0
    table = "\n".join(lines)
    assert "rover-1  online  Field rover" in table
    assert "car-1    online  Sim car" in table


@pytest.mark.parametrize(("spoil", "expected"), [
    (NO_PASSWORD, NO_USER),
    ({"station-password": "wrong-password"}, BAD_USER),
    ({'root_ca_certificate: "': '// root_ca_certificate: "'},
     "TLS: the router's certificate is not trusted (no CA given: set "
     "transport/link/tls/root_ca_certificate)"),
    ({"certs/ca.pem": "certs/rogue-ca.pem"},
     "TLS: the router's certificate is not trusted: not signed by "),
    ({"certs/ca.pem": "certs/missing-ca.pem"}, "TLS: CA certificate file not found: "),
], ids=["no password", "wrong password", "no CA", "another CA", "missing CA file"])
def test_station_turned_away_says_why_in_one_line(
        depot: Depot, no_env_config, capsys: pytest.CaptureFixture[str],
        spoil: dict[str, str], expected: str) -> None:
    config = depot.config("station", "spoilt", **spoil)
    lines: list[str] = []
    assert cli.main(["robots", "--zenoh-config", config], out=lines.append) == 1
    assert lines == []
    error = capsys.readouterr().err
    assert error.count("\n") == 1, error
    assert error.startswith(f"fieldstation: cannot connect to tls/localhost:{depot.port}: ")
    assert expected in error


def test_plain_tcp_to_the_tls_router_is_told_to_use_tls(
        depot: Depot, no_env_config, capsys: pytest.CaptureFixture[str]) -> None:
    endpoint = f"tcp/127.0.0.1:{depot.port}"
    assert cli.main(["topics", "--connect", endpoint], out=lambda _line: None) == 1
    assert capsys.readouterr().err == (f"fieldstation: cannot connect to {endpoint}: the "
                                       "router speaks TLS there: connect to a tls/ endpoint\n")


def test_window_station_shows_why_in_its_status(depot: Depot) -> None:
    # As a client (the sample's mode) the session fails at once: an error, with the reason.
    station = Station(BusConfig(config_file=depot.config("station", "nopassword",
                                                         **NO_PASSWORD)))
    try:
        wait_for(lambda: station.status.session == "error", timeout=10)
        assert NO_USER in station.status.detail
    finally:
        station.close()
    # As a peer, zenoh keeps retrying: offline, and the status says why meanwhile.
    station = Station(BusConfig(mode="peer", config_file=depot.config(
        "station", "wrong", **{"station-password": "wrong-password"})))
    try:
        wait_for(lambda: BAD_USER in station.status.detail, timeout=10)
        assert station.status.session == "offline"
        assert station.robots() == []
    finally:
        station.close()


def test_sim_robots_without_credentials_cannot_reach_the_hub(tmp_path: Path) -> None:
    depot = make_depot(tmp_path)
    fleet = SimFleet(["car"], listen=[], config_file=depot.config("router"))
    with pytest.raises(RobotsUnreachable) as refused:
        fleet.start()
    assert str(refused.value) == (
        f"the simulated robots cannot reach the hub: cannot connect to "
        f"tls/127.0.0.1:{depot.port}: TLS: the router's certificate is not trusted (no CA "
        "given: set transport/link/tls/root_ca_certificate)")
    # The hub it had opened is closed again: its port is free.
    BusSession(BusConfig(mode="router", listen=[f"tcp/127.0.0.1:{depot.port}"])).close()
