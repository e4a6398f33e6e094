"""Hostile bytes: mutated real payloads of every registered type, in a subprocess.

Every payload must end as a decoded message that plain() reads fully, or a DecodeError —
never another exception, a crash, a hang or a payload costing more than its time bound
(tests/codec/fuzz.py). The mutation kinds are in tests/codec/mutators.py.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from app.codec.registry import registry
from schemas.loader import FAMILIES
from tests.codec.fuzz import DECODED, UNEXPECTED, case_at, fuzz
from tests.codec.mutators import KINDS

SEED = 20240611
ROUNDS = 6  # each round feeds every registered type with every mutation kind once
# Kinds whose damage may leave a message that still decodes: both outcomes must occur, or
# the fuzzer would only be testing one side of the decoder (the framing check, say).
EITHER_WAY = ("bitflip", "bytes", "huge-list", "shared", "far", "encoding", "attachment")
# Errors each kind exists to provoke.
PROVOKES = {
    "huge-list": ("MalformedMessage", "LimitExceeded"),
    "shared": ("LimitExceeded", "MalformedMessage"),
    "far": ("MalformedMessage",),
    "encoding": ("UnknownEncoding", "UnknownType", "MalformedMessage"),
    "attachment": ("MissingAttachment", "MalformedMessage"),
    "framed": ("MalformedMessage",),
}


@pytest.mark.slow
def test_mutated_payloads_of_every_type_decode_or_raise_a_decode_error():
    types = sorted(n for n in registry().structs if n.split(".", 1)[0] in FAMILIES)
    payloads = ROUNDS * len(KINDS) * len(types)
    started = time.perf_counter()
    report = fuzz(SEED, payloads, chunk=payloads)
    elapsed = time.perf_counter() - started
    counts = report["counts"]
    print(f"\n{payloads} payloads in {elapsed:.1f} s, slowest {report['slowest']}\n"
          + json.dumps(counts, indent=1))

    assert report["failures"] == [], json.dumps(report["failures"][:3], indent=1)
    assert report["payloads"] == payloads
    for kind in KINDS:
        fed = set(report["types"][kind])
        if kind == "attachment":  # types with buffers, and some given one they cannot use
            assert len(fed) > len(types) // 2, f"{kind}: only {len(fed)} types"
        else:
            assert fed == set(types), f"{kind} never reached {sorted(set(types) - fed)[:5]}"
    for kind in EITHER_WAY:
        total = sum(counts[kind].values())
        decoded = counts[kind].get(DECODED, 0)
        assert 0.02 * total < decoded < 0.98 * total, f"{kind}: {counts[kind]}"
    for kind, errors in PROVOKES.items():
        for error in errors:
            assert counts[kind].get(error, 0) > 0, f"{kind} never raised {error}: {counts[kind]}"
    # Cutting bytes any object uses, or the segment table, never leaves a message.
    assert set(counts["truncate"]) == {"MalformedMessage"}, counts["truncate"]
    # Each payload has its own bound (fuzz.cpu_bound, a failure above); none may take long.
    assert report["slowest"]["cpu_s"] < 10.0


def _misbehaving_worker(crash_at: int, hang_at: int):
    """A worker command whose process aborts at one payload and hangs at another."""
    def command(seed: int, start: int, stop: int, progress: Path) -> list[str]:
        script = (
            "import os, sys, time\n"
            "import tests.codec.fuzz as fuzz\n"
            "real = fuzz.case_at\n"
            "def case_at(seed, index, data=None):\n"
            f"    if index == {crash_at}: os.abort()\n"
            f"    if index == {hang_at}: time.sleep(600)\n"
            "    return real(seed, index, data)\n"
            "fuzz.case_at = case_at\n"
            f"fuzz._main({seed}, {start}, {stop}, {str(progress)!r})\n"
        )
        return [sys.executable, "-W", "ignore", "-c", script]

    return command


def test_a_crash_or_a_hang_fails_its_payload_and_the_run_goes_on():
    payloads = 3 * len(KINDS)
    report = fuzz(SEED, payloads, chunk=payloads, command=_misbehaving_worker(7, 23),
                  hang_s=2.0)

    failed = {failure["index"]: failure for failure in report["failures"]}
    assert sorted(failed) == [7, 23]
    assert failed[7]["error"].startswith("crash: exit status -6")
    assert failed[23]["error"].startswith("hang")
    crashed = case_at(SEED, 7)
    assert (failed[7]["kind"], failed[7]["type"]) == (crashed.kind, crashed.type_name)
    assert failed[7]["payload"] == crashed.payload.hex()
    # Every other payload ran (the ones before each death again, in a new worker).
    assert report["payloads"] == payloads
    assert sum(sum(c.values()) for c in report["counts"].values()) == payloads
    assert sum(c.get(UNEXPECTED, 0) for c in report["counts"].values()) == 2
