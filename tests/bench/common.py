"""Shared benchmark plumbing: run length, percentiles and the ratio report line."""

from __future__ import annotations

import os
import resource
import statistics
import time
from collections.abc import Callable, Sequence

MISSED: list[str] = []  # report lines whose target was missed in this run


def short_mode() -> bool:
    return os.environ.get("FIELDSTATION_BENCH", "") == "short"


def iterations(full: int, short: int) -> int:
    return short if short_mode() else full


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def median_time(action: Callable[[], object], repeats: int) -> float:
    """The median wall time of ``repeats`` calls of ``action``."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return median(times)


def fmt_seconds(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"


def fmt_mib(kib: float) -> str:
    return f"{kib / 1024:.1f} MiB"


def process_cpu_per_s(seconds: float) -> float:
    """This process's CPU time (user + system) per second of wall time over ``seconds``."""
    before = resource.getrusage(resource.RUSAGE_SELF)
    started = time.monotonic()
    time.sleep(seconds)
    after = resource.getrusage(resource.RUSAGE_SELF)
    return ((after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
            / (time.monotonic() - started))


def report(name: str, measured: float, baseline: float, target: float | None = None,
           fmt: Callable[[float], str] = fmt_seconds) -> str:
    """One line: the ratio first (comparable across machines), absolute figures after
    (times unless ``fmt`` says otherwise)."""
    ratio = measured / baseline if baseline > 0 else float("inf")
    verdict = ""
    if target is not None:
        verdict = f"  [target ≤ {target:g}x: {'met' if ratio <= target else 'MISSED'}]"
    line = (f"{name}: {ratio:.2f}x{verdict}  "
            f"(measured {fmt(measured)}, baseline {fmt(baseline)})")
    if target is not None and not ratio <= target:
        MISSED.append(line)
    print(line, flush=True)
    return line
