"""Recording in the window: the record button, the black box saving itself on the rover's
critical fault with nothing missing, and a log opened in playback (badge, timeline, seek,
teleop refused, back to live)."""

from __future__ import annotations

import difflib
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from app.bus.keys import key_matches
from app.qt.main_window import MainWindow
from app.record.reader import LogReader
from app.sim import rover
from app.sim.fleet import SimFleet
from tests.record.test_fleet_round_trip import Heard

pytestmark = pytest.mark.slow


def online(window: MainWindow) -> set[str]:
    return {r.robot_id for r in window.station.robots() if r.online and r.catalog}


def test_the_black_box_saves_itself_when_the_rover_raises_a_critical_fault(
        make_main_window: Callable[..., MainWindow], free_endpoint: str, qtbot: Any,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rover, "FAULT_PERIOD_S", 1.5)  # the critical fault after ~4.5 s
    window = make_main_window(show=True)
    heavy = {"fleet/rover-1/lidar/points", "fleet/rover-1/camera/image",
             "fleet/rover-1/camera/compressed"}

    def unheard() -> set[str]:
        return {k for k, s in window.station.topics().items() if not s.listening}

    with SimFleet(["rover"], listen=[free_endpoint], points=2_000):
        qtbot.waitUntil(lambda: window.station.bus is not None, timeout=10_000)
        heard = Heard(window.station.bus)
        # Once the rover's catalog has said which topics are heavy, the station stops
        # listening to them; a sample arriving while its subscribers change may be missed
        # (Subscription.listen), so the comparison starts after that.
        qtbot.waitUntil(lambda: unheard() == heavy, timeout=10_000)
        started = time.monotonic()
        qtbot.waitUntil(lambda: window.recording.last_saved is not None, timeout=20_000)
        saved_at = time.monotonic()
        still_unheard = unheard()
    path = window.recording.last_saved
    assert path is not None and path.parent == window.config_dir / "black-box"
    assert "rover-1: critical fault TILT_LIMIT" in window.statusBar().currentMessage()
    reader = LogReader(path)
    try:
        assert reader.closed_cleanly
        keyed: dict[str, list[tuple[bytes, bytes | None]]] = {}
        for sample in reader.samples():
            keyed.setdefault(sample.key, []).append((sample.payload, sample.attachment))
        assert any(e.key == "fleet/rover-1" and e.alive for e in reader.liveliness())
    finally:
        reader.close()
    assert "fleet/rover-1/catalog" in keyed
    faults = keyed.get("fleet/rover-1/uplink/fault", [])
    assert faults, "the fault that saved the box is in it"
    # Nothing missing: every sample of the rover the reference heard from a moment after
    # the station settled its listening up to the save is in the box, in order — but for
    # the heavy topics no panel showed, which the station does not listen to (nor keep).
    assert saved_at - started > 2
    assert still_unheard == heavy
    # (heard only until the rover's catalog said they were heavy)
    assert all(len(keyed.get(key, [])) <= 10 for key in heavy)
    for key, samples in heard.samples.items():
        if key in heavy:
            continue
        run = [(p, a) for _, p, a, at in samples if started + 0.5 < at < saved_at - 1.0]
        if key.endswith("/catalog") or not run:
            continue
        box = keyed.get(key, [])
        match = difflib.SequenceMatcher(None, box, run, autojunk=False).find_longest_match()
        assert match.size == len(run), key


def test_the_record_button_records_until_pressed_again(
        make_main_window: Callable[..., MainWindow], fleet: SimFleet, qtbot: Any) -> None:
    window = make_main_window(show=True)
    qtbot.waitUntil(lambda: online(window) == {"rover-1", "humanoid-1", "car-1"},
                    timeout=15_000)
    battery = "fleet/rover-1/uplink/battery"  # 1 Hz: two more of it, and one is recorded

    def heard() -> int:
        stats = window.station.topics().get(battery)
        return stats.count if stats is not None else 0

    before = heard()
    window.recording.record_action.trigger()
    assert window.recording.recorder is not None
    window.set_active_robot("rover-1")
    # the recorder wants every key: the station subscribes to the command keys too (its
    # worker re-plans what it hears), and only then does it hear what it sends itself
    estop = "fleet/rover-1/command/estop"
    qtbot.waitUntil(lambda: any(key_matches(e, estop)
                                for e in window.station._traffic.key_exprs), timeout=5_000)
    window.engage_estop()  # what the operator sends is recorded beside what robots say
    qtbot.waitUntil(lambda: heard() >= before + 2, timeout=10_000)
    qtbot.wait(300)  # through the recorder's queue
    window.recording.refresh()
    assert "REC" in window.recording.label.text()
    path = window.recording.recorder.status().path
    window.recording.record_action.trigger()
    assert window.recording.recorder is None
    reader = LogReader(Path(path))
    try:
        keys = {c.key for c in reader.channels()}
        assert {"fleet/rover-1/uplink/battery", "fleet/car-1/catalog",
                "fleet/rover-1/command/estop"} <= keys
        assert reader.end_ns - reader.start_ns > 1e9
    finally:
        reader.close()


def test_a_log_opens_in_playback_with_its_robots_a_timeline_and_no_commands(
        make_main_window: Callable[..., MainWindow], fleet: SimFleet, qtbot: Any,
        tmp_path: Path) -> None:
    window = make_main_window(show=True)
    qtbot.waitUntil(lambda: online(window) == {"rover-1", "humanoid-1", "car-1"},
                    timeout=15_000)
    path = window.recording.start_recording(tmp_path / "drive.mcap")
    qtbot.wait(2500)
    window.recording.stop_recording()

    window.playback.open_log(path)
    qtbot.waitUntil(lambda: window.station.player is not None, timeout=10_000)
    qtbot.waitUntil(lambda: online(window) == {"rover-1", "humanoid-1", "car-1"},
                    timeout=5_000)
    window.tick()
    window.status_strip.refresh()
    strip = window.status_strip
    assert strip.playback_badge.isVisible() and not strip.sim_badge.isVisible()
    assert window.windowTitle() == f"Fieldstation — PLAYBACK {path.name}"
    assert window.playback.toolbar.isVisible()
    assert not window.recording.record_action.isEnabled()

    window.set_active_robot("rover-1")
    qtbot.waitUntil(lambda: "commands are disabled" in window.teleop().status().link.reason,
                    timeout=10_000)
    assert not window.teleop().status().link.live

    bar = window.playback.bar
    bar.seek.emit(0.5)
    qtbot.waitUntil(lambda: abs(window.station.player.state().fraction - 0.5) < 0.01,
                    timeout=10_000)
    window.tick()
    assert bar.track.fraction == pytest.approx(0.5, abs=0.01)
    bar.play_pause.emit()
    qtbot.waitUntil(lambda: window.station.player.state().finished, timeout=10_000)
    window.tick()
    assert bar.track.fraction == 1.0

    window.playback.back_to_live()
    qtbot.waitUntil(lambda: window.station.status.session == "online", timeout=10_000)
    window.tick()
    assert not window.station.playback and not window.playback.toolbar.isVisible()
    assert window.windowTitle() == "Fieldstation"


def test_a_file_that_is_not_a_log_is_refused_with_one_line(
        make_main_window: Callable[..., MainWindow], qtbot: Any, tmp_path: Path) -> None:
    window = make_main_window()
    bogus = tmp_path / "notes.mcap"
    bogus.write_text("not a log")
    window.playback.open_log(bogus)
    qtbot.waitUntil(lambda: "Log not opened" in window.statusBar().currentMessage(),
                    timeout=5_000)
    assert "not an MCAP file" in window.statusBar().currentMessage()
    assert not window.station.playback
