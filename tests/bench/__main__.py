"""Runs every benchmark: ``python -m tests.bench`` (``FIELDSTATION_BENCH=short`` for CI)."""

from __future__ import annotations

from tests.bench import (
    bench_bus_latency,
    bench_cloud_decode,
    bench_gui,
    bench_plot,
    bench_soak,
    bench_startup,
)
from tests.bench.common import short_mode

BENCHMARKS = (bench_bus_latency, bench_cloud_decode, bench_gui, bench_plot, bench_startup,
              bench_soak)


def main() -> None:
    mode = "short mode: figures prove the code runs, not its speed" if short_mode() else "full"
    print(f"benchmarks ({mode})")
    for bench in BENCHMARKS:
        bench.run()


if __name__ == "__main__":
    main()
