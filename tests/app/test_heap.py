"""The C heap hands freed memory back to the system (glibc, which every Linux we ship to
has): a long run's resident size follows what it holds, not what it once held."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from app import heap

pytestmark = pytest.mark.skipif(heap._glibc() is None, reason="glibc only")

# A child process, so the arena cap applies before its threads start and the test's own
# heap is not touched: 120 MiB in 1 KiB blocks (above pymalloc's, so malloc's), all freed
# but the last, which pins the heap's top so glibc cannot shrink it by itself.
CHILD = textwrap.dedent("""
    import sys, threading
    from app import heap
    from app.qt.mem_probe import rss_kib
    print(int(heap.limit_arenas()))
    blocks = [bytes(1024) for _ in range(120 * 1024)]
    pin = blocks[-1]
    del blocks
    before = rss_kib()
    trimmed = heap.trim()
    print(int(trimmed), before, rss_kib())
    stop = heap.start_trimming(0.05)
    names = [t.name for t in threading.enumerate()]
    stop.set()
    print(int("heap-trim" in names))
""")


def test_freed_memory_goes_back_to_the_system_when_trimmed() -> None:
    result = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True,
                            timeout=60, check=True)
    capped, trim_line, thread = result.stdout.split("\n")[:3]
    trimmed, before, after = (int(v) for v in trim_line.split())
    assert capped == "1"
    assert trimmed == 1
    assert before - after > 80 * 1024, (before, after)  # KiB: most of the 120 MiB back
    assert thread == "1"
