"""Running a script that ends while one of our threads is still at work, in a process of its
own: it must exit cleanly, not crash on its way out."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def assert_exits_cleanly(script: str, runs: int) -> None:
    for _ in range(runs):
        result = subprocess.run([sys.executable, "-c", script], cwd=REPO,
                                capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr[-2000:]
