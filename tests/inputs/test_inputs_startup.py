"""pygame (SDL, ~0.1 s and a native library) loads only when a gamepad thread starts: not
with the window, nor with the input modules a panel imports."""

from __future__ import annotations

import subprocess
import sys


def test_pygame_stays_off_the_start_up_path() -> None:
    probe = ("import sys, app.qt.start as start; start.panel_registry(); "
             "import app.inputs.gamepad, app.inputs.keyboard, widgets.virtual_stick; "
             "print('pygame' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, timeout=60)
    assert out.stdout.strip() == "False"
