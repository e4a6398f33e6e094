"""A played log's presence: a robot that was publishing before the recorder heard of its
token (a recording begun as the station was still meeting its robots) is there from its
first sample, not only from its token's event some milliseconds later; robots met in the
log's opening moment are there from its start; a robot coming later is not."""

from __future__ import annotations

import threading
from pathlib import Path

from app.record.format import LivelinessEvent
from app.record.player import LogPlayer
from app.record.reader import LogReader
from app.record.writer import Recorder
from tests.bus.helpers import wait_for
from tests.record.conftest import T0


def test_a_robot_publishing_before_its_token_was_heard_is_online_from_the_start(
        tmp_path: Path) -> None:
    recorder = Recorder(tmp_path / "log.mcap")
    recorder.offer("fleet/rover-1/uplink/status", "text/plain", b"s", None, T0, None)
    recorder.offer_liveliness("fleet/rover-1", True, T0 + 0.03)  # heard just after
    # met in the log's opening moment, after another robot's first sample
    recorder.offer_liveliness("fleet/humanoid-1", True, T0 + 0.04)
    recorder.offer("fleet/humanoid-1/uplink", "text/plain", b"h", None, T0 + 0.05, None)
    recorder.offer_liveliness("fleet/car-1", True, T0 + 0.5)  # a robot coming later
    recorder.offer("fleet/car-1/entities/car-1", "text/plain", b"c", None, T0 + 0.6, None)
    recorder.offer("fleet/rover-1/uplink/status", "text/plain", b"s", None, T0 + 1.0, None)
    recorder.close()
    heard: list[LivelinessEvent] = []
    lock = threading.Lock()

    def on_liveliness(event: LivelinessEvent) -> None:
        with lock:
            heard.append(event)

    with LogReader(tmp_path / "log.mcap") as reader:
        player = LogPlayer(reader, lambda _sample: None, on_liveliness)
        try:
            wait_for(lambda: heard)  # the presence at the start, handed over paused
            with lock:
                at_start = {e.key: e.alive for e in heard}
            assert at_start == {"fleet/rover-1": True, "fleet/humanoid-1": True}
        finally:
            player.close()
