"""On first start (no saved geometry) the window takes most of the screen, centred: never
more than the screen, on a laptop's as on a wall display."""

from __future__ import annotations

import base64
import json
import os
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from app.qt.start import fit_to_screen

REPO = Path(__file__).resolve().parents[2]


def saved_geometry(config_dir: Path) -> tuple[int, int, int, int]:
    """x, y, width, height of the window as it closed (the geometry part of Qt's
    saveGeometry() bytes in the last layout: version 3 ends with geometry() as a QRect)."""
    layout = json.loads((config_dir / "last-layout.json").read_text())
    data = base64.b64decode(layout["window"]["geometry"])
    magic, major = struct.unpack_from(">IH", data)
    assert (magic, major) == (0x1D9D0CB, 3)
    left, top, right, bottom = struct.unpack_from(">4i", data, len(data) - 16)
    return left, top, right - left + 1, bottom - top + 1


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("xvfb-run") is None, reason="needs xvfb-run")
@pytest.mark.parametrize(("screen", "expected"), [
    ((1280, 800), (64, 40, 1152, 720)),  # a laptop: smaller than any fixed size we had
    ((2560, 1440), (128, 72, 2304, 1296)),  # a big screen: not stuck at a fixed size
])
def test_first_start_fills_most_of_the_screen(tmp_path: Path, free_endpoint: str,
                                              screen: tuple[int, int],
                                              expected: tuple[int, int, int, int]) -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "xcb", "FIELDSTATION_CONFIG_DIR": str(tmp_path),
           "FIELDSTATION_EXIT_AFTER_FIRST_PAINT": "1"}
    result = subprocess.run(
        ["xvfb-run", "-a", "-s", f"-screen 0 {screen[0]}x{screen[1]}x24",
         sys.executable, "-m", "app.cli", "--connect", free_endpoint],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=90)
    assert result.returncode == 0, result.stderr[-3000:]
    assert saved_geometry(tmp_path) == expected


def test_fit_to_screen_keeps_the_window_on_its_screen(make_main_window, qtbot) -> None:
    window = make_main_window()
    fit_to_screen(window)
    window.show()
    qtbot.waitExposed(window)
    area = window.screen().availableGeometry()
    assert area.contains(window.frameGeometry())
    assert window.width() >= 0.85 * area.width() and window.height() >= 0.85 * area.height()
    centre = window.frameGeometry().center()
    assert abs(centre.x() - area.center().x()) <= 1 and abs(centre.y() - area.center().y()) <= 1


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("xvfb-run") is None, reason="needs xvfb-run")
def test_layout_option_starts_with_that_layout(tmp_path: Path) -> None:
    """``fieldstation --layout "Teleop station"`` opens it (the 3D view large), not the
    default; the window shows live data of the embedded fleet, then closes."""
    env = {**os.environ, "QT_QPA_PLATFORM": "xcb", "FIELDSTATION_CONFIG_DIR": str(tmp_path),
           "FIELDSTATION_EXIT_AFTER_FIRST_PAINT": "live"}
    result = subprocess.run(
        ["xvfb-run", "-a", "-s", "-screen 0 1600x1000x24",
         sys.executable, "-m", "app.cli", "--layout", "Teleop station"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=90)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "live-data" in result.stdout
    layout = json.loads((tmp_path / "last-layout.json").read_text())
    panels = sorted(d["panel_id"] for d in layout["docks"])
    assert panels == ["camera", "faults", "inspector", "plot", "robots", "scene3d", "status",
                      "teleop"]
