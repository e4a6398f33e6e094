"""The command line against the real simulated fleet, over real zenoh, as a user runs it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from app.bus.presence import PresenceTracker
from app.bus.session import BusSession
from app.cli import build_parser, main
from tests.bus.helpers import wait_for

REPO = Path(__file__).resolve().parents[2]
FIELDSTATION = [sys.executable, "-m", "app.cli"]


def run_cli(*args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*FIELDSTATION, *args], cwd=REPO, capture_output=True, text=True,
                          timeout=timeout)


def echo_json(endpoint: str, key: str, count: int = 1) -> list[dict]:
    result = run_cli("echo", key, "--json", "--count", str(count), "--timeout", "10",
                     "--connect", endpoint)
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


@pytest.mark.slow
def test_robots_lists_the_fleet_with_catalogs(sim_endpoint: str) -> None:
    result = run_cli("robots", "--connect", sim_endpoint)
    assert result.returncode == 0, result.stderr
    lines = {line.split()[0]: line for line in result.stdout.splitlines()[2:]}
    assert set(lines) == {"rover-1", "humanoid-1", "car-1"}
    assert "online" in lines["rover-1"] and "fleet,isaac,foxglove" in lines["rover-1"]
    assert "bow" in lines["humanoid-1"] and "autoware" in lines["car-1"]


@pytest.mark.slow
def test_topics_shows_rates_of_the_live_fleet(
    sim_endpoint: str, open_session: Callable[..., BusSession]
) -> None:
    # The rate shown is compared with what a bare subscriber hears in the same seconds: on
    # a loaded machine the simulated rover itself publishes below its 10 Hz.
    motion = "fleet/rover-1/uplink/motion"
    arrivals: list[float] = []
    bare = open_session(connect=[sim_endpoint], must_connect=True)
    bare.declare_subscriber(motion, lambda _sample: arrivals.append(time.monotonic()))
    # Options after the subcommand work as well as before it.
    result = run_cli("--connect", sim_endpoint, "topics", "--duration", "3")
    assert result.returncode == 0, result.stderr
    rows = {line.split()[0]: line.split() for line in result.stdout.splitlines()[2:]}
    assert rows[motion][1] == "fleet.Uplink"
    until = time.monotonic()
    heard = [t for t in list(arrivals) if until - 3.5 <= t <= until]
    published_hz = (len(heard) - 1) / (heard[-1] - heard[0])
    assert 3 < published_hz < 12
    assert float(rows[motion][2]) == pytest.approx(published_hz, rel=0.25)
    assert rows["fleet/humanoid-1/proprioception"][1] == "bow.ProprioceptionSample"
    assert rows["fleet/rover-1/lidar/points"][1] == "isaac.PointCloudProto"
    assert all(row[-1] == "0" for row in rows.values())  # no decode errors


@pytest.mark.slow
def test_echo_shows_a_message_of_every_family(sim_endpoint: str) -> None:
    (battery,) = echo_json(sim_endpoint, "fleet/rover-1/uplink/battery")
    assert battery["type"] == "fleet.Uplink" and battery["clock"] == "message"
    assert 0 <= battery["message"]["battery"]["percentage"] <= 100
    assert battery["message"]["battery"]["technology"] == "liIon"  # enums by name

    (cloud,) = echo_json(sim_endpoint, "fleet/rover-1/lidar/points")
    assert cloud["message"]["positions"]["sizes"] == [20000, 3]
    assert cloud["attachment"] >= 20000 * 3 * 4

    (image,) = echo_json(sim_endpoint, "fleet/rover-1/camera/compressed")
    assert image["message"]["format"] == "jpeg"
    assert image["message"]["data"]["head"].startswith("ffd8")  # Data summarised, JPEG magic

    (intero,) = echo_json(sim_endpoint, "fleet/humanoid-1/interoception")
    assert intero["type"] == "bow.InteroceptionSample"
    assert 0 < intero["message"]["battery"]["percentage"] <= 100

    (ego,) = echo_json(sim_endpoint, "fleet/car-1/entities/car-1")
    assert ego["type"] == "autoware.traffic_simulator_msgs.EntityStatus"
    assert ego["message"]["type"]["type"] == "ego"
    assert ego["message"]["boundingBox"]["dimensions"]["x"] == pytest.approx(4.5)


@pytest.mark.slow
def test_echo_human_readable(sim_endpoint: str) -> None:
    result = run_cli("echo", "fleet/rover-1/uplink/status", "--count", "1", "--connect",
                     sim_endpoint)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("--- fleet/rover-1/uplink/status  fleet.Uplink")
    assert '  mode: "idle"' in result.stdout
    assert "  estop: false" in result.stdout  # JSON's words, not Python's False
    assert "False" not in result.stdout and "True" not in result.stdout


@pytest.mark.slow
def test_killed_sim_is_reported_offline_within_2s(open_session, free_endpoint) -> None:
    proc = subprocess.Popen([*FIELDSTATION, "sim", "--robots", "car", "--listen", free_endpoint],
                            cwd=REPO, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and "car-1" in proc.stdout.readline()
        presence = PresenceTracker(open_session(connect=[free_endpoint], must_connect=True))
        wait_for(lambda: presence.online() == ["car-1"])
        killed = time.monotonic()
        os.kill(proc.pid, signal.SIGKILL)
        wait_for(lambda: presence.online() == [], timeout=2.0)
        assert time.monotonic() - killed < 2.0
    finally:
        proc.kill()
        proc.wait(timeout=10)


@pytest.mark.slow
def test_sim_listens_where_its_zenoh_config_says(open_session, free_endpoint,
                                                 tmp_path: Path) -> None:
    config = tmp_path / "site.json5"
    config.write_text(json.dumps({"listen": {"endpoints": [free_endpoint]}}))
    proc = subprocess.Popen([*FIELDSTATION, "sim", "--robots", "car", "--zenoh-config",
                             str(config)], cwd=REPO, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        assert f"simulated fleet on {free_endpoint}: car-1" in proc.stdout.readline()
        presence = PresenceTracker(open_session(connect=[free_endpoint], must_connect=True))
        wait_for(lambda: presence.online() == ["car-1"])
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=15)
        finally:
            proc.kill()


class TestBadInvocations:
    """Fast: no fleet needed."""

    def test_unknown_option_is_one_line_and_exit_2(self, capsys) -> None:
        with pytest.raises(SystemExit) as exit_info:
            main(["topics", "--bogus"])
        assert exit_info.value.code == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "unrecognized arguments: --bogus" in err[0]

    def test_unreachable_endpoint_is_one_line_and_exit_1(self, capsys, free_endpoint) -> None:
        assert main(["echo", "fleet/x", "--connect", free_endpoint]) == 1
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and free_endpoint in err[0] and "Traceback" not in err[0]

    @pytest.mark.parametrize(("args", "why"), [
        (["echo", "fleet/**/a**b"], "`*` may only be preceded by `/` or `$`"),
        (["echo", "fleet//x"], "empty chunks are forbidden"),
        (["topics", "--robot", "rover-1/**"], "robot id 'rover-1/**' is not one key chunk"),
    ])
    def test_a_bad_key_is_one_line_and_exit_1(self, capsys, open_session, free_endpoint,
                                             args: list[str], why: str) -> None:
        open_session(listen=[free_endpoint])  # reachable: the key itself must be refused
        assert main([*args, "--connect", free_endpoint]) == 1
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and why in err[0], err

    def test_missing_config_file(self, capsys, tmp_path) -> None:
        assert main(["robots", "--zenoh-config", str(tmp_path / "nope.json5")]) == 1
        assert "config file not found" in capsys.readouterr().err

    def test_unknown_robot_kind(self, capsys) -> None:
        assert main(["sim", "--robots", "rover,boat", "--listen", "tcp/127.0.0.1:0"]) == 1
        assert "unknown robot kind(s): boat" in capsys.readouterr().err

    def test_sim_with_a_missing_zenoh_config(self, capsys, tmp_path) -> None:
        assert main(["sim", "--zenoh-config", str(tmp_path / "nope.json5")]) == 1
        assert "config file not found" in capsys.readouterr().err

    @pytest.mark.parametrize("rate", ["0", "-5", "nan", "101"])
    def test_bad_lidar_rate(self, capsys, rate: str) -> None:
        assert main(["sim", "--lidar-hz", rate, "--listen", "tcp/127.0.0.1:0"]) == 1
        assert "--lidar-hz must be more than 0 and at most 100" in capsys.readouterr().err

    def test_lidar_rate_option(self) -> None:
        assert build_parser().parse_args(["sim"]).lidar_hz == 5.0
        args = build_parser().parse_args(["sim", "--points", "1000000", "--lidar-hz", "10"])
        assert (args.points, args.lidar_hz) == (1_000_000, 10.0)

    @pytest.mark.parametrize(("args", "why"), [
        (["--light"], "--light goes with --fleet N"),
        (["--fleet", "40", "--light", "--heavy", "1"], "leave out --heavy"),
        (["--fleet", "2001", "--light"], "--fleet must be 1 to 2000 robots"),
        (["--fleet", "1001"], "--fleet must be 1 to 1000 robots (2000 with --light)"),
    ])
    def test_a_light_depot_that_cannot_be(self, capsys, args: list[str], why: str) -> None:
        assert main(["sim", *args, "--listen", "tcp/127.0.0.1:0"]) == 1
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and why in err[0], err

    def test_a_light_depot_of_2000_is_allowed(self, monkeypatch) -> None:
        from app.sim import fleet

        started: list[tuple[int, int]] = []

        def pretend_to_start(self: fleet.SimFleet) -> None:
            started.append((len(self.robots), len(self.shared)))

        monkeypatch.setattr(fleet.SimFleet, "start", pretend_to_start)
        monkeypatch.setattr("app.cli._wait_for_signal", lambda _exit_with_stdin: None)
        assert main(["sim", "--fleet", "2000", "--light", "--listen", "tcp/127.0.0.1:0"]) == 0
        assert started == [(2000, 8)]  # every robot, 250 to a session

    def test_bad_count(self, capsys) -> None:
        assert main(["echo", "k", "--count", "0"]) == 1
        assert "--count must be at least 1" in capsys.readouterr().err

    def test_version(self, capsys) -> None:
        with pytest.raises(SystemExit) as exit_info:
            main(["--version"])
        assert exit_info.value.code == 0
        assert capsys.readouterr().out.startswith("fieldstation ")


@pytest.mark.parametrize("command", [[], ["record"], ["info"], ["echo"], ["sim"]])
def test_help_reads_as_plain_text(command: list[str], capsys) -> None:
    with pytest.raises(SystemExit):
        main([*command, "--help"])
    shown = capsys.readouterr().out
    assert "usage: fieldstation" in shown
    assert "`" not in shown and ":class:" not in shown and ":func:" not in shown
    assert "The fieldstation command line" in shown or command
