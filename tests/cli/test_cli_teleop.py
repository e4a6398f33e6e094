"""``fieldstation teleop`` in-process (SDL's virtual game controller lives in this process)
against the simulated rover over real zenoh: the status line as the operator reads it."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from app.bus.config import BusConfig
from app.cli import main
from app.sim.fleet import SimFleet
from app.station.config_folder import config_dir
from app.station.identity import StationIdentity, load_identity
from app.station.station import Station
from app.teleop.profiles import DEFAULT
from app.teleop.terminal import pick_profile
from tests.bus.helpers import wait_for
from tests.cli.test_cli import FIELDSTATION, REPO
from tests.inputs.virtual_gamepad import VirtualGamepad
from tests.sim.running import one_robot
from tests.teleop.heard import LATCHED, Heard

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
STOPS = 3  # the arming machine's stop_count


class Screen(io.StringIO):
    """A stdout that says whether it is a terminal."""

    def __init__(self, tty: bool) -> None:
        super().__init__()
        self.tty = tty
        self.lock = threading.Lock()

    def isatty(self) -> bool:
        return self.tty

    def write(self, text: str) -> int:
        with self.lock:
            return super().write(text)

    def text(self) -> str:
        with self.lock:
            return self.getvalue()

    def line(self) -> str:
        """What the operator sees now: the last line, as redrawn in place."""
        lines = [part for part in self.text().replace("\x1b[K", "").split("\n") if part]
        return lines[-1].rsplit("\r", 1)[-1] if lines else ""


class Running:
    """``main(["teleop", ...])`` on a thread, typed into through a pipe."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, args: list[str], tty: bool) -> None:
        read_end, write_end = os.pipe()
        self.keyboard = os.fdopen(write_end, "w", buffering=1)
        self.screen = Screen(tty)
        monkeypatch.setattr("sys.stdin", os.fdopen(read_end, "r"))
        monkeypatch.setattr("sys.stdout", self.screen)
        self.code: int | None = None
        self.thread = threading.Thread(target=self._main, args=(args,), daemon=True)
        self.thread.start()

    def _main(self, args: list[str]) -> None:
        self.code = main(["teleop", *args], out=lambda line: self.screen.write(line + "\n"))

    def type(self, line: str) -> None:
        self.keyboard.write(line + "\n")

    def end(self) -> int | None:
        self.type("q")
        self.keyboard.close()
        self.thread.join(15)
        assert not self.thread.is_alive()
        return self.code


def hold_until(running: Running, pad: VirtualGamepad,
               done: Callable[[], bool] | None = None) -> None:
    """The deadman held until ``done`` (the line says ARMED, by default), pressed again when
    a loaded machine's late tick latched it (as the line tells the operator to)."""
    def held() -> bool:
        if LATCHED in running.screen.line():
            pad.release("leftshoulder")
            wait_for(lambda: LATCHED not in running.screen.line(), 5.0)
            pad.press("leftshoulder")
        return done() if done is not None else running.screen.line().startswith("ARMED")

    wait_for(held, 15.0, why=running.screen.line)


@pytest.fixture
def fleet(free_endpoint: str) -> Iterator[SimFleet]:
    with SimFleet(["rover"], listen=[free_endpoint], points=2_000) as fleet:
        yield fleet


@pytest.fixture
def rover(fleet: SimFleet) -> Any:
    return fleet.robots[0]


@pytest.mark.slow
@pytest.mark.parametrize("tty", [True, False], ids=["terminal", "pipe"])
def test_stick_with_deadman_drives_the_rover_and_the_line_says_armed(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path,
        free_endpoint: str, fleet: SimFleet, rover: Any, tty: bool) -> None:
    monkeypatch.setenv("FIELDSTATION_CONFIG_DIR", str(tmp_path))
    heard = Heard(fleet)
    running = Running(monkeypatch, ["--robot", "rover-1", "--profile", "nosuch",
                                    "--connect", free_endpoint], tty)
    pad: VirtualGamepad | None = None
    try:
        wait_for(lambda: "pad: none" in running.screen.line(), 10.0)
        pad = VirtualGamepad("Operator pad")
        wait_for(lambda: "pad: Operator pad" in running.screen.line(), 5.0)
        assert running.screen.line().startswith("DISARMED")  # no deadman yet
        start = rover.odometer_m
        pad.set_axis("lefty", -1.0)  # stick up: forward
        pad.press("leftshoulder")  # the deadman
        hold_until(running, pad)
        assert "linear +" in running.screen.line()
        wait_for(lambda: rover.odometer_m > start + 0.05, 5.0)

        running.type("e")
        wait_for(lambda: "E-STOP engaged (confirmed)" in running.screen.line(), 5.0)
        assert running.screen.line().startswith("ESTOP") and rover.estop
        pad.release("leftshoulder")
        running.type("release")
        wait_for(lambda: not rover.estop, 5.0)
        wait_for(lambda: "E-STOP" not in running.screen.line(), 5.0)
        pad.press("leftshoulder")  # pressed anew: driving again
        hold_until(running, pad)
        driving = time.monotonic()
        hold_until(running, pad, lambda: any(c.moving for c in heard.of("rover-1",
                                                                         since=driving)))
        code = running.end()  # "q" while driving
    finally:
        if pad is not None:
            pad.unplug()
        if running.thread.is_alive():
            running.end()
    assert code == 0

    def stops_after_the_last_motion() -> int:
        teleop = [c for c in heard.of("rover-1", since=driving) if c.what == "teleop"]
        last_move = max(i for i, c in enumerate(teleop) if c.moving)
        return len(teleop[last_move + 1:])

    # After the last motion only stops: the loss of the pad's stop, then the close's burst,
    # which never drops at the station: the rover hears all of it (a moment later, on a
    # loaded machine).
    wait_for(lambda: stops_after_the_last_motion() >= STOPS, 5.0,
             why=stops_after_the_last_motion)
    assert ("\r" in running.screen.text()) == tty
    assert "profile refused, default kept" in capsys.readouterr().err
    assert "teleop rover-1, profile default" in running.screen.text()


@pytest.mark.slow
def test_with_stdin_closed_it_goes_on_and_says_so_once_and_sigterm_ends_it(
        free_endpoint: str, tmp_path: Path) -> None:
    with one_robot("rover", free_endpoint, points=2_000):
        proc = subprocess.Popen(
            [*FIELDSTATION, "teleop", "--robot", "rover-1", "--connect", free_endpoint],
            cwd=REPO, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True,
            env={**os.environ, "FIELDSTATION_CONFIG_DIR": str(tmp_path)})
        try:
            assert proc.stdout is not None
            lines = iter(proc.stdout.readline, "")
            assert any("no longer reading commands" in line for line in lines)
            time.sleep(1.5)  # it used to end a second after its input did
            assert proc.poll() is None
            proc.send_signal(signal.SIGTERM)
            rest, _ = proc.communicate(timeout=15)
        finally:
            proc.kill()
    assert proc.returncode == 0
    assert "no longer reading commands" not in rest  # said once
    assert "pad: none" in rest.rstrip().splitlines()[-1]  # the final status line


def test_bad_options_are_refused_before_connecting(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["teleop", "--robot", "rover-1", "--rate", "1000"]) == 1
    assert "command rate must be" in capsys.readouterr().err
    assert main(["teleop", "--robot", "bad/id"]) == 1
    assert "fieldstation:" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exited:
        main(["teleop"])
    assert exited.value.code == 2


@pytest.mark.slow
def test_no_fleet_there_is_an_error_with_a_hint(capsys: pytest.CaptureFixture[str],
                                                free_endpoint: str) -> None:
    assert main(["teleop", "--robot", "rover-1", "--connect", free_endpoint]) == 1
    assert "fieldstation:" in capsys.readouterr().err


def test_profile_by_file_and_refusals(tmp_path: Path) -> None:
    bad = tmp_path / "mine.json"
    bad.write_text("{not json")
    profile, reason = pick_profile(str(bad), tmp_path)
    assert profile is DEFAULT and "not JSON" in reason and "default kept" in reason
    assert pick_profile(None, tmp_path) == (DEFAULT, "")
    assert "bad profile name" in pick_profile("..", tmp_path)[1]


def test_config_dir_is_the_guis(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FIELDSTATION_CONFIG_DIR", raising=False)
    # the application is the process's one (the display of the run, as every GUI test's):
    # one made on another platform plugin here would serve the OpenGL tests after it
    from app.qt.application import create_application
    from app.qt.start import config_dir as qt_config_dir

    create_application()
    assert config_dir() == qt_config_dir()


@pytest.mark.slow
def test_a_robot_another_station_controls_is_listed_with_its_holder_and_refused_in_one_line(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path,
        free_endpoint: str, fleet: SimFleet, rover: Any) -> None:
    monkeypatch.setenv("FIELDSTATION_CONFIG_DIR", str(tmp_path))
    heard = Heard(fleet)
    ana = Station(BusConfig(mode="client", connect=[free_endpoint]),
                  identity=StationIdentity.new("Ana"), role="operator")
    try:
        wait_for(lambda: any(r.robot_id == "rover-1" for r in ana.robots()), 10.0)
        assert ana.authority.take("rover-1") == ""

        assert main(["robots", "--connect", free_endpoint]) == 0
        row = next(line for line in capsys.readouterr().out.splitlines()
                   if line.startswith("rover-1"))
        assert row.rstrip().endswith("Ana (operator)")

        asked = time.monotonic()
        assert main(["teleop", "--robot", "rover-1", "--connect", free_endpoint]) == 1
        said = capsys.readouterr()
        assert said.err.splitlines() == [
            "fieldstation: rover-1: controlled by Ana (operator); this station "
            f"({load_identity(tmp_path).name}) may not drive it"]
        assert said.out == ""
        assert ana.authority.control("rover-1").holder is not None
        assert ana.authority.control("rover-1").holder.name == "Ana"  # not taken from her
        assert [c for c in heard.of("rover-1", since=asked) if c.what == "teleop"] == []
    finally:
        ana.close()
