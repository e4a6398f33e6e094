"""Runs every benchmark: ``python -m tests.bench`` (``FIELDSTATION_BENCH=short`` for CI)."""

from __future__ import annotations

import gc
import sys

from tests.bench import (
    bench_bus_latency,
    bench_camera,
    bench_cloud_decode,
    bench_feeds,
    bench_fleet,
    bench_fuzz,
    bench_gui,
    bench_plot,
    bench_record,
    bench_record_station,
    bench_robots_panel,
    bench_scene,
    bench_scene_view,
    bench_soak,
    bench_startup,
    bench_teleop,
    bench_tls,
    bench_video,
)
from tests.bench.common import MISSED, short_mode

BENCHMARKS = (bench_bus_latency, bench_camera, bench_cloud_decode, bench_feeds, bench_gui,
              bench_plot, bench_record, bench_record_station, bench_robots_panel,
              bench_scene, bench_scene_view, bench_teleop, bench_tls, bench_video, bench_fleet,
              bench_fuzz, bench_startup, bench_soak)


def main() -> None:
    mode = "short mode: figures prove the code runs, not its speed" if short_mode() else "full"
    print(f"benchmarks ({mode})")
    for bench in BENCHMARKS:
        bench.run()
        # A benchmark's GL canvases left in reference cycles are freed here, on the thread
        # that owns their contexts, not by a collection some zenoh or lane thread triggers
        # later (Qt aborts when a context is made current on another thread).
        gc.collect()
    if MISSED and not short_mode():  # short runs prove the code works, not its speed
        print(f"{len(MISSED)} target(s) missed:", *MISSED, sep="\n  ")
        sys.exit(1)


if __name__ == "__main__":
    main()
