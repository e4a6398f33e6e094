"""Runs every benchmark: ``python -m tests.bench`` (``FIELDSTATION_BENCH=short`` for CI).

Full runs go one at a time, so that no benchmark's figures share the machine with another.
Short runs only prove the code runs, not its speed: they go in two processes at once (one
per core on CI's two-core machine), each printed whole when it ends. ``--only a,b`` runs the
named benchmarks (``bench_gui,bench_fleet``) in this process.
"""

from __future__ import annotations

import gc
import subprocess
import sys
import threading
import time
from types import ModuleType

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
    bench_ros2,
    bench_scene,
    bench_scene_view,
    bench_soak,
    bench_startup,
    bench_teleop,
    bench_tls,
    bench_topics_panel,
    bench_video,
)
from tests.bench.common import MISSED, short_mode

BENCHMARKS = (bench_bus_latency, bench_camera, bench_cloud_decode, bench_feeds, bench_gui,
              bench_plot, bench_record, bench_record_station, bench_robots_panel, bench_ros2,
              bench_scene, bench_scene_view, bench_teleop, bench_tls, bench_topics_panel,
              bench_video, bench_fleet, bench_fuzz, bench_startup, bench_soak)
# The short runs' two processes, about even in time (~55 s each on CI's machine).
SHORT_GROUPS = (
    (bench_gui, bench_fleet, bench_camera, bench_record, bench_robots_panel, bench_tls,
     bench_scene, bench_video, bench_bus_latency, bench_feeds),
    (bench_soak, bench_startup, bench_record_station, bench_teleop, bench_fuzz,
     bench_plot, bench_scene_view, bench_cloud_decode, bench_topics_panel, bench_ros2),
)


def name(bench: ModuleType) -> str:
    return bench.__name__.rsplit(".", 1)[-1]


def run(benchmarks: tuple[ModuleType, ...]) -> None:
    for bench in benchmarks:
        started = time.monotonic()
        bench.run()
        print(f"({name(bench)}: {time.monotonic() - started:.0f} s)", flush=True)
        # A benchmark's GL canvases left in reference cycles are freed here, on the thread
        # that owns their contexts, not by a collection some zenoh or lane thread triggers
        # later (Qt aborts when a context is made current on another thread).
        gc.collect()


def run_short_groups() -> int:
    """Each of SHORT_GROUPS in a process of its own, at once; their output in turn."""
    grouped = [b for group in SHORT_GROUPS for b in group]
    if sorted(map(name, grouped)) != sorted(map(name, BENCHMARKS)):
        raise SystemExit("SHORT_GROUPS must hold every benchmark once")
    children = [subprocess.Popen([sys.executable, "-m", "tests.bench", "--only",
                                  ",".join(name(b) for b in group)],
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                for group in SHORT_GROUPS]
    started = time.monotonic()
    outputs: list[tuple[str, float]] = [("", 0.0)] * len(children)

    def drain(n: int) -> None:  # each read whole on its own thread: no pipe fills up
        output, _ = children[n].communicate()
        outputs[n] = (output, time.monotonic() - started)

    readers = [threading.Thread(target=drain, args=(n,)) for n in range(len(children))]
    for reader in readers:
        reader.start()
    failed = 0
    for n, (reader, child) in enumerate(zip(readers, children, strict=True)):
        reader.join()
        output, seconds = outputs[n]
        print(output, end="", flush=True)
        print(f"(short benchmarks, process {n + 1} of {len(children)}: {seconds:.0f} s)",
              flush=True)
        failed += child.returncode != 0
    return failed


def main() -> None:
    args = sys.argv[1:]
    if args[:1] == ["--only"] and len(args) == 2:
        wanted = args[1].split(",")
        unknown = set(wanted) - {name(b) for b in BENCHMARKS}
        if unknown:
            raise SystemExit(f"no such benchmark: {', '.join(sorted(unknown))}")
        run(tuple(b for b in BENCHMARKS if name(b) in wanted))
        return
    mode = "short mode: figures prove the code runs, not its speed" if short_mode() else "full"
    print(f"benchmarks ({mode})", flush=True)
    if short_mode():
        failed = run_short_groups()
        if failed:
            print(f"{failed} benchmark process(es) failed", flush=True)
            sys.exit(1)
        return
    run(BENCHMARKS)
    if MISSED:
        print(f"{len(MISSED)} target(s) missed:", *MISSED, sep="\n  ")
        sys.exit(1)


if __name__ == "__main__":
    main()
