"""Soak: the station window (default layout "Field laptop", a fresh config folder) on a
simulated depot of 100 robots (``fieldstation sim --fleet 100``, a process of its own; the
window connected to its router as a client, as at a depot) for an hour, its resident memory
sampled once a second; reports the growth from minute 5 to the end as a ratio (end RSS /
minute-5 RSS, target ≤ 1.05). Minute 5, not 1: the window's black box fills for its first
minute (up to its 256 MB bound) and the plots' windows for their first minutes.

The app is launched as ``python -m app.cli`` like a user would; only its own process is
measured (VmRSS of /proc/PID/status); the fleet's process is reported on a line of its own.
Both figures are medians of the minute's samples up to the reference time and up to the
end (5 samples in short mode), so one allocation spike does not decide the verdict. At the
end the window is closed with SIGTERM (it saves its layout); a window that does not close
is killed and reported as an error.

``FIELDSTATION_SOAK_S`` sets the length (default 3600 s; short mode 20 s with the reference
at 10 s), ``FIELDSTATION_SOAK_FLEET`` the depot's size (default 100; short mode 12; over
100, light robots, as bench_fleet's depot of 1,000: ``sim --fleet N --light``);
``FIELDSTATION_SOAK_CSV=FILE`` writes every sample. Run under a display (an Xvfb server is
started when there is none).
"""

from __future__ import annotations

import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from app.qt.mem_probe import rss_kib
from tests.bench.bench_fleet import start_fleet, stop_fleet
from tests.bench.bench_startup import REPO, display_env
from tests.bench.common import fmt_mib, report, short_mode
from tests.conftest import free_port

TARGET = 1.05
LIGHT_OVER = 100  # robots: a bigger depot is light robots (sim --fleet N --light)
# Samples in each median: a minute (a black-box save, a minute of the depot written to disk,
# holds some 100 MB for up to half a minute: a 5-sample median could land on one).
SMOOTH_S = 60
SMOOTH_SHORT_S = 3
CLOSE_TIMEOUT_S = 20


def lengths() -> tuple[float, float]:
    """(total seconds, reference seconds)."""
    default = 12.0 if short_mode() else 3600.0
    total = float(os.environ.get("FIELDSTATION_SOAK_S", "") or default)
    reference = 6.0 if short_mode() else 300.0
    return total, min(reference, total / 2)


def fleet_size() -> int:
    return int(os.environ.get("FIELDSTATION_SOAK_FLEET", "") or (12 if short_mode() else 100))


def clock(seconds: float) -> str:
    return f"{int(seconds) // 60}:{int(seconds) % 60:02d}"


def close(app: subprocess.Popen[str]) -> str:
    """Closes the window; returns what went wrong ('' when it went away cleanly)."""
    if app.poll() is not None:
        return ""
    app.send_signal(signal.SIGTERM)
    try:
        app.wait(timeout=CLOSE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        app.kill()
        app.wait()
        return f"the window did not close within {CLOSE_TIMEOUT_S} s (killed)"
    return ""


def soak(env: dict[str, str], total_s: float, robots: int) -> list[tuple[float, int, int]]:
    """(seconds since launch, app RSS KiB, fleet RSS KiB) once a second."""
    samples: list[tuple[float, int, int]] = []
    progress_every = 5 if short_mode() else 60
    endpoint = f"tcp/127.0.0.1:{free_port()}"
    fleet = start_fleet(robots, endpoint, light=robots > LIGHT_OVER)
    with tempfile.TemporaryDirectory(prefix="fs-soak-") as config:
        app = subprocess.Popen(
            [sys.executable, "-m", "app.cli", "--no-sim", "--mode", "client",
             "--connect", endpoint], cwd=REPO, text=True,
            env={**env, "FIELDSTATION_CONFIG_DIR": config},
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )
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
                app_kib = rss_kib(app.pid) or 0
                fleet_kib = rss_kib(fleet.pid) or 0
                elapsed = time.monotonic() - started
                samples.append((elapsed, app_kib, fleet_kib))
                if tick % progress_every == 0:
                    print(f"  {clock(elapsed)}  app {fmt_mib(app_kib)}  "
                          f"fleet {fmt_mib(fleet_kib)}", flush=True)
                if elapsed >= total_s:
                    break
        finally:
            closing = close(app)
            stderr = app.stderr.read() if app.stderr else ""
            stop_fleet(fleet)
        if not closing and app.returncode != 0:
            closing = f"the window exited {app.returncode} when closed"
        elif not closing and not (Path(config) / "last-layout.json").is_file():
            closing = "the window went without closing (no last layout saved)"
        problem = "; ".join(p for p in (problem, closing) if p)
        if problem:
            raise RuntimeError(f"soak: {problem}: {stderr.strip()[-1500:]}")
    return samples


def around(samples: list[tuple[float, int, int]], seconds: float, column: int) -> float:
    """Median of the samples of the SMOOTH_S seconds up to ``seconds``."""
    upto = [s for s in samples if s[0] <= seconds + 0.5] or samples[:1]
    return statistics.median(s[column] for s in upto[-smooth():])


def smooth() -> int:
    return SMOOTH_SHORT_S if short_mode() else SMOOTH_S


def run() -> list[str]:
    total_s, reference_s = lengths()
    robots = fleet_size()
    light = " light" if robots > LIGHT_OVER else ""
    print(f"soak: the window on a simulated depot of {robots}{light} robots for "
          f"{clock(total_s)} "
          f"(reference at {clock(reference_s)})", flush=True)
    with display_env() as env:
        samples = soak(env, total_s, robots)
    csv = os.environ.get("FIELDSTATION_SOAK_CSV")
    if csv:
        Path(csv).write_text("seconds,app_kib,fleet_kib\n" + "".join(
            f"{t:.1f},{a},{f}\n" for t, a, f in samples))
    end = samples[-1][0]
    lines = [
        report(f"soak RSS growth, app ({clock(reference_s)} -> {clock(end)}: end / start)",
               around(samples, end, 1), around(samples, reference_s, 1), TARGET, fmt_mib),
        report(f"soak RSS growth, the depot's process ({clock(reference_s)} -> {clock(end)})",
               around(samples, end, 2), around(samples, reference_s, 2), fmt=fmt_mib),
    ]
    peak = max(s[1] for s in samples)
    line = f"soak: app peak RSS {fmt_mib(peak)}; window closed"
    print(line, flush=True)
    return [*lines, line]


if __name__ == "__main__":
    run()
