"""The timeline's marks: a critical fault the rover raised, and an e-stop sent, at their
times in the log; lesser faults leave no mark."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.bus.keys import command_key
from app.codec.decode import decode
from app.logbook.markers import find_markers
from app.record.reader import LogReader
from app.record.writer import Recorder
from app.sim import rover
from tests.record.fleet import fleet_samples

T0 = 1_760_000_000.0


def test_a_critical_fault_and_an_e_stop_are_marked_at_their_times(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rover, "FAULT_PERIOD_S", 1.0)  # info, minor, major, then critical
    samples = fleet_samples(4.5)
    path = tmp_path / "faults.mcap"
    recorder = Recorder(path)
    for s in samples:
        recorder.offer(s.key, s.encoding, s.payload, s.attachment, T0 + s.at_s, None)
    estop = next(s for s in samples if s.key.endswith("/uplink/status"))
    for at in (4.0, 4.05):  # repeated until the robot reports it: one mark
        recorder.offer(command_key("rover-1", "estop"), estop.encoding, estop.payload, None,
                       T0 + at, None)
    recorder.close()
    raised, active = [], False  # each raising (repeats of an active fault are not one)
    for s in samples:
        if s.key == "fleet/rover-1/uplink/fault" and \
                (fault := decode(s.encoding, s.payload).root.fault).code == "TILT_LIMIT":
            if fault.active and not active:
                raised.append(round(s.at_s, 2))
            active = fault.active
    assert raised  # the rover raised its critical fault in these 4.5 s

    with LogReader(path) as reader:
        markers = find_markers(reader, "fleet")
    texts = [(round(m.t_ns / 1e9 - T0, 2), m.kind, m.text) for m in markers]
    critical = [t for t in texts if t[1] == "fault"]
    assert [(t, text) for t, _, text in critical] == \
        [(at, "rover-1: critical fault TILT_LIMIT") for at in raised]
    assert [t for t in texts if t[1] == "estop"] == [(4.0, "estop", "rover-1: e-stop sent")]
