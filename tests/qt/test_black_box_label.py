"""The toolbar's black box, as a new user reads it: what it is, and its automatic saves."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from app.qt.main_window import MainWindow
from app.sim import rover
from app.sim.fleet import SimFleet

pytestmark = pytest.mark.slow


def held_s(window: MainWindow) -> int:
    window.recording.refresh()
    match = re.match(r"◉ black box: last (\d+) s", window.recording.label.text())
    assert match, window.recording.label.text()
    return int(match.group(1))


def test_the_black_box_says_what_it_is_and_when_it_saved_itself(
        make_main_window: Callable[..., MainWindow], free_endpoint: str, qtbot: Any,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rover, "FAULT_PERIOD_S", 1.0)  # the critical fault after ~3 s
    window = make_main_window(show=True)
    label = window.recording.label
    tip = label.toolTip() or (window.recording.refresh(), label.toolTip())[1]
    for words in ("last 60 s of every topic", "Ctrl+B", "critical fault", "e-stop",
                  str(window.config_dir / "black-box")):
        assert words in tip
    most = 0
    with SimFleet(["rover"], listen=[free_endpoint], points=2_000):
        def saved() -> bool:
            nonlocal most
            if window.recording.last_saved is None:
                most = max(most, held_s(window))
            return window.recording.last_saved is not None

        qtbot.waitUntil(saved, timeout=20_000)
        message = window.statusBar().currentMessage()
        assert "saved by itself" in message and "critical fault TILT_LIMIT" in message
        assert str(window.recording.last_saved) in message
        assert re.fullmatch(r"◉ black box: last \d+ s · saved \d\d:\d\d:\d\d",
                            (window.recording.refresh(), label.text())[1])
        assert held_s(window) >= most  # a save keeps what the box holds
        assert str(window.recording.last_saved) in label.toolTip()
