"""`fieldstation record`, `info` and `play` as a user runs them: a recorder killed with
SIGKILL leaves a file that `info` and the station open up to its last chunk; a file that is
not MCAP is refused in one line; `play` brings the robots back for another zenoh session."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

import pytest

from app.bus.config import BusConfig
from app.bus.presence import PresenceTracker
from app.bus.session import BusSession
from app.record.reader import LogReader
from app.station.station import Station
from tests.bus.helpers import wait_for
from tests.cli.test_cli import FIELDSTATION, REPO, run_cli
from tests.conftest import free_port


def test_info_refuses_a_file_that_is_not_mcap_in_one_line(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("field notes, not a log\n")
    result = run_cli("info", str(notes))
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [f"fieldstation: not an MCAP file: {notes}"]


@pytest.mark.slow
def test_a_recorder_killed_with_sigkill_leaves_a_file_info_and_the_station_open(
        sim_endpoint: str, tmp_path: Path) -> None:
    path = tmp_path / "killed.mcap"
    proc = subprocess.Popen([*FIELDSTATION, "record", str(path), "--connect", sim_endpoint],
                            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        assert "recording every topic" in proc.stdout.readline()
        wait_for(lambda: path.exists() and path.stat().st_size > 200_000, timeout=20)
        time.sleep(2.5)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    info = run_cli("info", str(path))
    assert info.returncode == 0, info.stderr
    assert "not closed cleanly" in info.stdout
    assert "fleet/rover-1/uplink/battery" in info.stdout

    station = Station(BusConfig(mode="peer", listen=[f"tcp/127.0.0.1:{free_port()}"]))
    try:
        wait_for(lambda: station.status.session == "online")  # then the log replaces it
        station.play(LogReader(path))
        wait_for(lambda: {r.robot_id for r in station.robots() if r.online}
                 == {"rover-1", "humanoid-1", "car-1"}, timeout=10)
        wait_for(lambda: any("not closed cleanly" in p
                             for p in station.status.detail.split("; ")))
        assert station.robots()[0].catalog is not None
    finally:
        station.close()


@pytest.mark.slow
def test_record_for_a_duration_then_play_it_to_another_session(
        sim_endpoint: str, tmp_path: Path) -> None:
    path = tmp_path / "drive.mcap"
    recorded = run_cli("record", str(path), "--keys", "fleet/car-1/**", "--duration", "2",
                       "--connect", sim_endpoint)
    assert recorded.returncode == 0, recorded.stderr
    assert "dropped" not in recorded.stdout
    with LogReader(path) as reader:
        assert reader.closed_cleanly
        data = {c.key for c in reader.channels() if not c.key.endswith("/catalog")}
        assert data and all(key.startswith("fleet/car-1/") for key in data)
        count = sum(c.count for c in reader.channels())
    described = run_cli("info", str(path))
    assert described.returncode == 0, described.stderr
    size = next(line.split(":", 1)[1].strip() for line in described.stdout.splitlines()
                if line.startswith("size:"))
    assert f"messages: {count} on" in described.stdout
    closing = recorded.stdout.strip().splitlines()[-1]  # record and info say the same
    assert closing.startswith(f"{count} messages") and f", {size}, " in closing, closing
    endpoint = f"tcp/127.0.0.1:{free_port()}"
    player = subprocess.Popen([*FIELDSTATION, "play", str(path), "--listen", endpoint,
                               "--loop"], cwd=REPO, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        assert player.stdout is not None
        assert "playing" in player.stdout.readline()
        with BusSession(BusConfig(mode="peer", connect=[endpoint], must_connect=True)) as bus:
            presence = PresenceTracker(bus)
            wait_for(lambda: "car-1" in presence.online(), timeout=10)
            heard = run_cli("echo", "fleet/car-1/entities/car-1", "--count", "2",
                            "--timeout", "10", "--connect", endpoint)
            assert heard.returncode == 0, heard.stderr
            assert heard.stdout.count("EntityStatus") >= 2
    finally:
        player.send_signal(signal.SIGINT)
        player.wait(timeout=15)
