"""Feeds random and mutated samples to the real decode path; prints a JSON report.

Run in a subprocess by test_bad_input (so a crash fails one test instead of the session):
``python -m tests.codec.fuzz SEED TRIALS TYPE...``. Every sample must either decode — and
then ``fields.plain`` must read all of it — or raise a DecodeError subclass.
"""

from __future__ import annotations

import json
import random
import struct
import sys
import time
from collections import Counter
from typing import Any

from app.codec.decode import decode, encoding_for
from app.codec.errors import DecodeError
from app.codec.fields import plain
from app.codec.registry import registry
from tests.codec.filler import filled_message, union_choices
from tests.codec.wire import struct_pointer


def random_payload(rng: random.Random) -> bytes:
    return rng.randbytes(rng.randrange(0, 256))


def framed_random(rng: random.Random) -> bytes:
    """Random words behind a valid one-segment header, half of them under a plausible root
    struct pointer: reaches pycapnp's pointer checks and the validation walk."""
    words = rng.randrange(1, 48)
    body = bytearray(rng.randbytes(8 * words))
    if rng.randrange(2):
        root = struct_pointer(0, rng.randrange(4), rng.randrange(5))
        body[0:8] = root.to_bytes(8, "little")
    return struct.pack("<II", 0, words) + bytes(body)


def mutate(rng: random.Random, payload: bytes) -> bytes:
    """A real message with a few bytes, bits or whole words changed, keeping its framing."""
    data = bytearray(payload)
    body = len(data) - 8
    for _ in range(rng.randrange(1, 5)):
        position = 8 + rng.randrange(body)
        how = rng.randrange(4)
        if how == 0:
            data[position] = rng.randrange(256)
        elif how == 1:
            data[position] ^= 1 << rng.randrange(8)
        elif how == 2:  # a random pointer-like word: any kind, offset, size, count
            word = 8 + 8 * ((position - 8) // 8)
            data[word : word + 8] = rng.randbytes(8)
        else:  # a list/struct count pushed high
            word = 8 + 8 * ((position - 8) // 8)
            data[word + 4 + rng.randrange(4)] = rng.choice((0x7F, 0xFF, 0x10))
    return bytes(data)


def _try(type_name: str, payload: bytes, attachment: bytes | None) -> tuple[str, Any]:
    try:
        decoded = decode(encoding_for(type_name), payload, attachment)
    except DecodeError as exc:
        return type(exc).__name__, None
    except Exception as exc:
        return "unexpected", f"decode: {type(exc).__name__}: {exc}"
    try:
        plain(decoded.root)
    except Exception as exc:
        return "unexpected", f"plain after decode: {type(exc).__name__}: {exc}"
    return "decoded", None


def run(seed: int, trials: int, type_names: list[str]) -> dict[str, Any]:
    rng = random.Random(seed)
    outcomes: Counter[str] = Counter()
    unexpected: list[dict[str, str]] = []
    slowest = 0.0
    for type_name in type_names:
        reals = [
            filled_message(type_name, choice)
            for choice in range(union_choices(registry().structs[type_name].schema))
        ]
        for mode in ("random", "framed", "mutated", "attachment"):
            for _ in range(trials):
                payload, attachment, _expected = rng.choice(reals)
                if mode == "random":
                    payload = random_payload(rng)
                elif mode == "framed":
                    payload = framed_random(rng)
                elif mode == "mutated":
                    payload = mutate(rng, payload)
                elif attachment is not None:
                    attachment = mutate(rng, attachment)
                else:
                    continue
                start = time.perf_counter()
                outcome, detail = _try(type_name, payload, attachment)
                slowest = max(slowest, time.perf_counter() - start)
                outcomes[f"{mode}:{outcome}"] += 1
                if detail is not None and len(unexpected) < 20:
                    unexpected.append(
                        {"type": type_name, "mode": mode, "error": detail[:300],
                         "payload": payload.hex()[:240]}
                    )
    return {"outcomes": dict(outcomes), "unexpected": unexpected, "slowest_s": slowest}


if __name__ == "__main__":
    print(json.dumps(run(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:])))
