"""Soak: the station window on the full simulated fleet (default layout "Field laptop", a
fresh config folder) for 30 minutes, its resident memory sampled once a second; reports
the growth from minute 1 to the end as a ratio (end RSS / minute-1 RSS, target ≤ 1.05).

The app is launched as ``python -m app.cli`` like a user would; only its own process is
measured (VmRSS of /proc/PID/status); the embedded fleet, its child process, is reported
on a line of its own. Both figures are medians of the 5 samples up to the reference time
and up to the end, so one allocation spike does not decide the verdict. At the end the
window is closed with SIGTERM (it saves its layout and stops the fleet); a fleet left
running is killed and reported as an error.

``FIELDSTATION_SOAK_S`` sets the length (default 1800 s; short mode 20 s with the
reference at 10 s instead of 60 s); ``FIELDSTATION_SOAK_CSV=FILE`` writes every sample.
Run under a display (an Xvfb server is started when there is none).
"""

from __future__ import annotations

import contextlib
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from app.qt.mem_probe import rss_kib
from tests.bench.bench_startup import REPO, display_env
from tests.bench.common import fmt_mib, report, short_mode

TARGET = 1.05
SMOOTH = 5  # samples in each median
CLOSE_TIMEOUT_S = 20


def children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        with contextlib.suppress(OSError):
            found += [int(c) for c in task.read_text().split()]
    return found


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # a zombie is not running: it only waits for its parent to reap it
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1][0] != "Z"
    except (OSError, IndexError):
        return False


def lengths() -> tuple[float, float]:
    """(total seconds, reference seconds)."""
    default = 20.0 if short_mode() else 1800.0
    total = float(os.environ.get("FIELDSTATION_SOAK_S", "") or default)
    reference = 10.0 if short_mode() else 60.0
    return total, min(reference, total / 2)


def clock(seconds: float) -> str:
    return f"{int(seconds) // 60}:{int(seconds) % 60:02d}"


def close(app: subprocess.Popen[str], fleet: list[int]) -> str:
    """Closes the window; returns what went wrong ('' when all went away cleanly)."""
    problems = []
    if app.poll() is None:
        app.send_signal(signal.SIGTERM)
        try:
            app.wait(timeout=CLOSE_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            app.kill()
            app.wait()
            problems.append(f"the window did not close within {CLOSE_TIMEOUT_S} s (killed)")
    deadline = time.monotonic() + 10
    while any(alive(pid) for pid in fleet) and time.monotonic() < deadline:
        time.sleep(0.2)
    for pid in fleet:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)
            problems.append(f"the fleet (pid {pid}) outlived the window (killed)")
    return "; ".join(problems)


def soak(env: dict[str, str], total_s: float) -> list[tuple[float, int, int]]:
    """(seconds since launch, app RSS KiB, fleet RSS KiB) once a second."""
    samples: list[tuple[float, int, int]] = []
    progress_every = 5 if short_mode() else 60
    with tempfile.TemporaryDirectory(prefix="fs-soak-") as config:
        app = subprocess.Popen(
            [sys.executable, "-m", "app.cli"], cwd=REPO, text=True,
            env={**env, "FIELDSTATION_CONFIG_DIR": config},
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )
        fleet: list[int] = []
        problem = ""
        try:
            started = time.monotonic()
            tick = 0
            while True:
                tick += 1
                time.sleep(max(0.0, started + tick - time.monotonic()))
                if app.poll() is not None:
                    problem = f"the app exited early with status {app.returncode}"
                    break
                fleet = fleet or children(app.pid)
                app_kib = rss_kib(app.pid) or 0
                fleet_kib = sum(rss_kib(pid) or 0 for pid in fleet)
                elapsed = time.monotonic() - started
                samples.append((elapsed, app_kib, fleet_kib))
                if tick % progress_every == 0:
                    print(f"  {clock(elapsed)}  app {fmt_mib(app_kib)}  "
                          f"fleet {fmt_mib(fleet_kib)}", flush=True)
                if elapsed >= total_s:
                    break
            if not fleet:
                problem = problem or "no embedded fleet process was seen"
        finally:
            closing = close(app, fleet)
            stderr = app.stderr.read() if app.stderr else ""
        if not closing and app.returncode != 0:
            closing = f"the window exited {app.returncode} when closed"
        elif not closing and not (Path(config) / "last-layout.json").is_file():
            closing = "the window went without closing (no last layout saved)"
        problem = "; ".join(p for p in (problem, closing) if p)
        if problem:
            raise RuntimeError(f"soak: {problem}: {stderr.strip()[-1500:]}")
    return samples


def around(samples: list[tuple[float, int, int]], seconds: float, column: int) -> float:
    """Median of the SMOOTH samples up to ``seconds``."""
    upto = [s for s in samples if s[0] <= seconds + 0.5] or samples[:1]
    return statistics.median(s[column] for s in upto[-SMOOTH:])


def run() -> list[str]:
    total_s, reference_s = lengths()
    print(f"soak: the window on the simulated fleet for {clock(total_s)} "
          f"(reference at {clock(reference_s)})", flush=True)
    with display_env() as env:
        samples = soak(env, total_s)
    csv = os.environ.get("FIELDSTATION_SOAK_CSV")
    if csv:
        Path(csv).write_text("seconds,app_kib,fleet_kib\n" + "".join(
            f"{t:.1f},{a},{f}\n" for t, a, f in samples))
    end = samples[-1][0]
    lines = [
        report(f"soak RSS growth, app ({clock(reference_s)} -> {clock(end)}: end / start)",
               around(samples, end, 1), around(samples, reference_s, 1), TARGET, fmt_mib),
        report(f"soak RSS growth, embedded fleet ({clock(reference_s)} -> {clock(end)})",
               around(samples, end, 2), around(samples, reference_s, 2), fmt=fmt_mib),
    ]
    peak = max(s[1] for s in samples)
    line = f"soak: app peak RSS {fmt_mib(peak)}; window closed, fleet gone"
    print(line, flush=True)
    return [*lines, line]


if __name__ == "__main__":
    run()
