"""Hostile bytes at scale: 1M mutated real payloads of every registered type (a few
thousand in short mode), in worker subprocesses of 100k, each ending as a decoded message or
a typed DecodeError (tests/codec/fuzz.py). A crash, a hang, a slow payload or an untyped
exception is a missed target.

The ratio: our checked decode (framing, limits, the validating walk; ``decode().root``)
against bare pycapnp (``from_bytes`` and its root) on the same unmutated real payloads, same
run: what the checks cost per payload over the library's own reading.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from app.codec.decode import EAGER_CHECK_BYTES, decode, encoding_for
from app.codec.registry import registry
from tests.bench.common import MISSED, fmt_seconds, iterations, median, report
from tests.codec.corpus import Sample, corpus
from tests.codec.fuzz import fuzz

SEED = 1
PAYLOADS = iterations(1_000_000, 5_000)
CHUNK = 100_000
ROUNDS = iterations(5, 1)


def _progress(total: dict[str, Any]) -> None:
    rate = total["payloads"] / total["seconds"]
    print(f"  fuzz: {total['payloads']}/{PAYLOADS} payloads, {rate:.0f}/s", flush=True)


def _per_payload(read: Callable[[Sample], Any], samples: list[Sample]) -> float:
    start = time.perf_counter()
    for sample in samples:
        read(sample)
    return (time.perf_counter() - start) / len(samples)


def _checked(sample: Sample) -> Any:
    return decode(encoding_for(sample.type_name), sample.payload, sample.attachment).root


def _bare(sample: Sample) -> None:
    with registry().structs[sample.type_name].from_bytes(sample.payload) as root:
        return root.schema


def _shown(failure: dict[str, Any]) -> str:
    head = (failure["payload"] or "")[:256]
    return (f"  {failure['error'][:200]}: {failure['type']} {failure['kind']} "
            f"({failure['how']}) as {failure['encoding'][:80]}, {failure['replay']}, "
            f"payload {head}…")


def _ratio_lines() -> list[str]:
    samples = [s for group in corpus().samples.values() for s in group]
    lines = []
    for label, chosen in (
        ("≤ 128 KiB", [s for s in samples if len(s.payload) <= EAGER_CHECK_BYTES]),
        ("> 128 KiB", [s for s in samples if len(s.payload) > EAGER_CHECK_BYTES]),
    ):
        _per_payload(_checked, chosen)  # warm: each type's walk plan is built once
        ours, bare = [], []
        for _ in range(ROUNDS):  # interleaved, so load drifts hit both alike
            bare.append(_per_payload(_bare, chosen))
            ours.append(_per_payload(_checked, chosen))
        lines.append(report(f"checked decode / bare pycapnp, {len(chosen)} real payloads "
                            f"{label}", median(ours), median(bare)))
    return lines


def run() -> list[str]:
    started = time.perf_counter()
    total = fuzz(SEED, PAYLOADS, CHUNK, on_chunk=_progress)
    wall = time.perf_counter() - started
    slowest = total["slowest"]
    print(f"fuzz: {total['payloads']} payloads of {len(corpus().types)} types in {wall:.0f} s: "
          f"{total['payloads'] / wall:.0f} payloads/s, decode + plain "
          f"{fmt_seconds(total['decode_cpu_s'] / total['payloads'])} CPU each; slowest "
          f"{fmt_seconds(slowest['cpu_s'])} CPU: {slowest.get('type')} {slowest.get('kind')} "
          f"({slowest.get('how')}), {slowest.get('bytes')} bytes, "
          f"tests.codec.fuzz.case_at({SEED}, {slowest.get('index')})", flush=True)
    for kind, counts in total["counts"].items():
        shown = ", ".join(f"{outcome} {n}" for outcome, n in
                          sorted(counts.items(), key=lambda item: -item[1]))
        print(f"  {kind:<10} {shown}")
    lines = _ratio_lines()
    failures = total["failures"]
    if failures:
        line = (f"fuzz: {len(failures)} payload(s) crashed, hung, were slow or raised an "
                f"untyped exception  [target: none: MISSED]")
        print(line, *(_shown(f) for f in failures[:5]), sep="\n", flush=True)
        MISSED.append(line)
        lines.append(line)
    return lines


if __name__ == "__main__":
    run()
