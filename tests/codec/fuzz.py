"""Feeds mutated real payloads of every registered type to the real decode path.

Every payload must end as a decoded message that ``fields.plain`` reads fully within its
value budget (``items_budget``, as the app reads messages) and whose attachment buffers all
resolve, or as a DecodeError subclass — raised by ``decode``, or, for
what is by design checked as it is read (a large message's typed faults, an attachment's
buffers), by the read. Anything else is a failure reported with its type, mutation kind and
payload hex: another exception, a payload costing more CPU than ``cpu_bound`` allows for
its size, a crash of the process, or a hang (no progress for ``HANG_S``).

Payload ``i`` of seed ``s`` is ``case_at(s, i)``: kinds take turns, and each kind walks
through every registered type in turn, so any run of ``len(KINDS) * len(types)`` payloads
covers every type with every kind, and any payload can be made again from its index.

The payloads run in worker subprocesses (``python -m tests.codec.fuzz SEED START STOP
PROGRESS``), each printing a JSON report: a crash or a hang fails the run, not the process
that asked for it. The worker writes the index it is on into the 8-byte ``PROGRESS`` file,
so the parent knows which payload crashed or hung, and makes it again to report it.
"""

from __future__ import annotations

import json
import mmap
import os
import random
import struct
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from app.codec.decode import decode
from app.codec.errors import DecodeError
from app.codec.fields import items_budget, plain
from tests.codec.corpus import Corpus, corpus
from tests.codec.mutators import KINDS, MUTATORS, Case

REPO = Path(__file__).resolve().parents[2]
# The CPU time (not wall: the machine may be shared) a payload may take. Reading follows
# size: the densest read is a list of bytes read as a list of structs (bytes sent under
# another type's encoding), one struct per byte, each a dict for plain(): 4-13 µs a byte
# here, depending on what else the machine runs. Amplification costs orders of magnitude.
SLOW_BASE_S = 0.5
SLOW_PER_BYTE_S = 50e-6
HANG_S = 30.0  # wall time without progress after which a worker counts as hung
STARTUP_S = 120.0  # wall time a worker may take to reach its first payload
DECODED = "decoded"
UNEXPECTED = "unexpected"
ON_READ = " on read"  # suffix of a DecodeError raised reading a decoded message
MAX_REPORTED = 20
NOT_STARTED = -1  # the progress file before a worker reaches its first payload
MAX_HEX_BYTES = 8192


def case_at(seed: int, index: int, data: Corpus | None = None) -> Case:
    data = data or corpus()
    rng = random.Random(seed * 1_000_003 + index)
    kind = KINDS[index % len(KINDS)]
    turn = index // len(KINDS)
    if kind == "attachment" and turn % 10:
        type_name = data.with_buffers[turn % len(data.with_buffers)]
        sample = rng.choice([s for s in data.of(type_name) if s.attachment])
    else:
        types = data.types
        type_name = types[(turn // 10 if kind == "attachment" else turn) % len(types)]
        sample = rng.choice(data.of(type_name))
    return MUTATORS[kind](rng, sample, data)


def cpu_bound(case: Case) -> float:
    return SLOW_BASE_S + SLOW_PER_BYTE_S * (len(case.payload) + len(case.attachment or b""))


def outcome(case: Case) -> tuple[str, str | None]:
    """(what became of the case, what went wrong if it is unexpected)."""
    try:
        decoded = decode(case.encoding, case.payload, case.attachment)
    except DecodeError as exc:
        return type(exc).__name__, None
    except Exception as exc:
        return UNEXPECTED, f"decode raised {type(exc).__name__}: {exc}"
    try:
        plain(decoded.root, max_items=items_budget(decoded.size))
    except DecodeError as exc:
        if not decoded.walked:  # a large message of many objects is typed lazily, by design
            return type(exc).__name__ + ON_READ, None
        return UNEXPECTED, f"decode accepted, plain raised {type(exc).__name__}: {exc}"
    except Exception as exc:
        return UNEXPECTED, f"plain raised {type(exc).__name__}: {exc}"
    try:
        for index in range(len(decoded.buffers)):  # each resolved when read, by design
            decoded.buffer(index)
    except DecodeError as exc:
        return type(exc).__name__ + ON_READ, None
    except Exception as exc:
        return UNEXPECTED, f"reading attachment buffers raised {type(exc).__name__}: {exc}"
    return DECODED, None


def describe(case: Case, seed: int, index: int) -> dict[str, Any]:
    """A failing case as the report shows it: enough to see and to make it again."""
    def shown(blob: bytes | None) -> str | None:
        if blob is None:
            return None
        more = f"…({len(blob)} bytes)" if len(blob) > MAX_HEX_BYTES else ""
        return blob[:MAX_HEX_BYTES].hex() + more

    return {"type": case.type_name, "kind": case.kind, "how": case.how,
            "encoding": case.encoding[:200], "payload": shown(case.payload),
            "attachment": shown(case.attachment),
            "replay": f"tests.codec.fuzz.case_at({seed}, {index})"}


def run(seed: int, start: int, stop: int, progress: Callable[[int], None] = lambda i: None
        ) -> dict[str, Any]:
    """Runs payloads ``start`` to ``stop`` in this process; the JSON-ready report."""
    data = corpus()
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    types: dict[str, set[str]] = defaultdict(set)
    failures: list[dict[str, Any]] = []
    slowest: dict[str, Any] = {"cpu_s": 0.0}
    decode_cpu = 0.0
    started = time.perf_counter()
    for index in range(start, stop):
        progress(index)
        case = case_at(seed, index, data)
        cpu = time.thread_time()
        result, error = outcome(case)
        cpu = time.thread_time() - cpu
        decode_cpu += cpu
        if cpu > cpu_bound(case) and error is None:
            result, error = UNEXPECTED, f"slow: {cpu:.2f} s of CPU, bound {cpu_bound(case):.2f} s"
        counts[case.kind][result] += 1
        types[case.kind].add(case.type_name)
        if error is not None and len(failures) < MAX_REPORTED:
            failures.append({"index": index, "error": error[:500],
                             **describe(case, seed, index)})
        if cpu > slowest["cpu_s"]:
            slowest = {"cpu_s": cpu, "index": index, "type": case.type_name,
                       "kind": case.kind, "how": case.how, "bytes": len(case.payload)}
    return {
        "payloads": stop - start,
        "seconds": time.perf_counter() - started,
        "decode_cpu_s": decode_cpu,
        "counts": {kind: dict(c) for kind, c in counts.items()},
        "types": {kind: sorted(names) for kind, names in types.items()},
        "failures": failures,
        "slowest": slowest,
    }


# ---------------------------------------------------------------------------------------
# The parent side: workers in subprocesses, crashes and hangs found and reported
# ---------------------------------------------------------------------------------------


def worker_command(seed: int, start: int, stop: int, progress: Path) -> list[str]:
    return [sys.executable, "-W", "ignore", "-m", "tests.codec.fuzz", str(seed), str(start),
            str(stop), str(progress)]


def fuzz(seed: int, count: int, chunk: int = 100_000,
         on_chunk: Callable[[dict[str, Any]], None] = lambda report: None,
         command: Callable[[int, int, int, Path], list[str]] = worker_command,
         hang_s: float = HANG_S) -> dict[str, Any]:
    """Runs payloads 0 to ``count`` in worker subprocesses (``command``) of at most
    ``chunk`` payloads each, one after another; the merged report, with a crash or a hang
    (no progress for ``hang_s``) as a failure. A dead worker's chunk goes on after the
    payload that killed it, in a new worker."""
    total = _empty_report()
    ranges = [(start, min(count, start + chunk)) for start in range(0, count, chunk)][::-1]
    with tempfile.TemporaryDirectory() as folder:
        progress = Path(folder) / "progress"
        while ranges:
            start, stop = ranges.pop()
            report, died_at, how = _worker(command(seed, start, stop, progress), progress,
                                           hang_s)
            if report is not None:
                _merge(total, report)
                on_chunk(total)
                continue
            _add_failure(total, seed, died_at, how)
            if died_at + 1 < stop:
                ranges.append((died_at + 1, stop))
            if died_at > start:  # their outcomes died with the worker: run them again
                ranges.append((start, died_at))
    return total


def _add_failure(total: dict[str, Any], seed: int, index: int, how: str) -> None:
    case = case_at(seed, index)
    counts = total["counts"].setdefault(case.kind, {})
    counts[UNEXPECTED] = counts.get(UNEXPECTED, 0) + 1
    total["payloads"] += 1
    if len(total["failures"]) < MAX_REPORTED:
        total["failures"].append({"index": index, "error": how,
                                  **describe(case, seed, index)})


def _worker(command: list[str], progress: Path, hang_s: float
            ) -> tuple[dict[str, Any] | None, int, str]:
    """(report, or None with the index it died on and how it died)."""
    progress.write_bytes(struct.pack("<q", NOT_STARTED))
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        worker = subprocess.Popen(command, cwd=REPO, stdout=out, stderr=err)
        last, moved = NOT_STARTED, time.monotonic()
        while worker.poll() is None:
            time.sleep(0.2)
            at = struct.unpack("<q", progress.read_bytes())[0]
            if at != last:
                last, moved = at, time.monotonic()
            elif time.monotonic() - moved > (hang_s if at != NOT_STARTED else STARTUP_S):
                worker.kill()
                worker.wait()
                if at == NOT_STARTED:
                    raise RuntimeError(f"fuzz worker did not start in {STARTUP_S:g} s")
                return None, at, f"hang: no progress for {hang_s:g} s"
        at = struct.unpack("<q", progress.read_bytes())[0]
        out.seek(0)
        err.seek(0)
        if worker.returncode == 0:
            return json.loads(out.read()), at, ""
        tail = err.read()[-1500:].decode(errors="replace")
        if at == NOT_STARTED:
            raise RuntimeError(f"fuzz worker failed to start ({worker.returncode}): {tail}")
        return None, at, f"crash: exit status {worker.returncode}: {tail}"


def _empty_report() -> dict[str, Any]:
    return {"payloads": 0, "seconds": 0.0, "decode_cpu_s": 0.0, "counts": {}, "types": {},
            "failures": [], "slowest": {"cpu_s": 0.0}}


def _merge(total: dict[str, Any], report: dict[str, Any]) -> None:
    for key in ("payloads", "seconds", "decode_cpu_s"):
        total[key] += report[key]
    for kind, counts in report["counts"].items():
        merged = total["counts"].setdefault(kind, {})
        for result, n in counts.items():
            merged[result] = merged.get(result, 0) + n
    for kind, names in report["types"].items():
        total["types"][kind] = sorted(set(total["types"].get(kind, ())) | set(names))
    total["failures"] += report["failures"][: MAX_REPORTED - len(total["failures"])]
    if report["slowest"]["cpu_s"] > total["slowest"]["cpu_s"]:
        total["slowest"] = report["slowest"]


def _main(seed: int, start: int, stop: int, progress_path: str) -> None:
    fd = os.open(progress_path, os.O_RDWR)
    progress = mmap.mmap(fd, 8)

    def at(index: int) -> None:
        struct.pack_into("<q", progress, 0, index)

    print(json.dumps(run(seed, start, stop, at)))


if __name__ == "__main__":
    _main(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
