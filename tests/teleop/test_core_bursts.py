"""A stop burst stays spread when its thread wakes late."""

from __future__ import annotations

import itertools
import threading
import time
from typing import Any

from app.teleop.bursts import StopBursts

PERIOD_S, STOPS = 0.05, 3


def test_a_late_first_stop_does_not_send_the_next_at_its_heels() -> None:
    sent: list[float] = []
    done = threading.Event()

    def send(adapter: Any) -> None:
        if not sent:
            time.sleep(PERIOD_S / 2)  # the first stop's put stalls past the second's time
        sent.append(time.monotonic())
        if len(sent) == STOPS:
            done.set()

    bursts = StopBursts(send)
    try:
        bursts.burst(object(), STOPS, PERIOD_S)  # type: ignore[arg-type]
        assert done.wait(2.0)
    finally:
        bursts.close()
    gaps = [b - a for a, b in itertools.pairwise(sent)]
    assert min(gaps) >= 0.5 * PERIOD_S / STOPS - 0.002
    assert sent[-1] - sent[0] <= PERIOD_S
