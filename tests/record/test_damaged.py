"""Files a recorder did not finish: truncated at any byte, corrupt in a chunk, written by a
process killed with SIGKILL, or not MCAP at all."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from mcap.data_stream import ReadDataStream
from mcap.reader import make_reader
from mcap.records import Chunk, Message
from mcap.stream_reader import breakup_chunk

from app.record.info import describe
from app.record.reader import LogError, LogReader
from app.record.writer import Recorder
from tests.record.conftest import offer_all
from tests.record.fleet import FleetSample


@pytest.fixture(scope="module")
def whole(tmp_path_factory: pytest.TempPathFactory, fleet: list[FleetSample]) -> Path:
    """A cleanly closed file of several chunks (one per 0.5 s of log time)."""
    path = tmp_path_factory.mktemp("damaged") / "whole.mcap"
    recorder = Recorder(path, chunk_s=0.5)
    offer_all(recorder, fleet)
    recorder.close()
    return path


def chunks_of(path: Path) -> list[tuple[int, int, list[bytes]]]:
    """(start, end offset, message data) of every chunk, read by the mcap library."""
    with open(path, "rb") as stream:
        summary = make_reader(stream).get_summary()
        assert summary is not None
        found = []
        for index in sorted(summary.chunk_indexes, key=lambda i: i.chunk_start_offset):
            stream.seek(index.chunk_start_offset + 9)
            chunk = Chunk.read(ReadDataStream(stream))
            data = [r.data for r in breakup_chunk(chunk) if isinstance(r, Message)]
            found.append((index.chunk_start_offset,
                          index.chunk_start_offset + index.chunk_length, data))
    return found


def all_data(reader: LogReader) -> list[bytes]:
    found = []
    for sample in reader.samples():
        if sample.attachment is None:
            found.append(sample.payload)
        else:
            found.append(len(sample.payload).to_bytes(4, "little") + sample.payload
                         + sample.attachment)
    return found


def test_truncated_at_many_offsets_reads_every_complete_chunk(
        tmp_path: Path, whole: Path) -> None:
    data = whole.read_bytes()
    chunks = chunks_of(whole)
    assert len(chunks) >= 5
    cuts = set()
    for start, end, _ in chunks:
        cuts |= {start + 5, (start + end) // 2, end - 1, end, end + 20}
    cuts |= {len(data) - 3, len(data) - 40, chunks[-1][1] + 200}
    for cut in sorted(cuts):
        part = tmp_path / f"cut-{cut}.mcap"
        part.write_bytes(data[:cut])
        with LogReader(part) as reader:
            want = sorted(d for start, end, ds in chunks if end <= cut for d in ds)
            assert sorted(all_data(reader)) == want, cut
            assert not reader.closed_cleanly
            assert reader.problems[0] == "not closed cleanly (no summary): indexed by a scan"
            inside = [(start, end) for start, end, _ in chunks if start < cut < end]
            if inside:
                assert any(p.startswith(f"the file ends at byte {cut} inside a ")
                           for p in reader.problems), reader.problems
            if inside and cut - inside[0][0] > 9 + 28:  # the chunk's header is there
                assert any(p.startswith(f"the file ends at byte {cut} inside a chunk "
                                        f"(from byte {inside[0][0]}): its last")
                           for p in reader.problems), reader.problems


def test_corrupt_chunk_is_skipped_and_said(tmp_path: Path, whole: Path) -> None:
    data = bytearray(whole.read_bytes())
    chunks = chunks_of(whole)
    start, _, lost = chunks[2]
    data[start + 80:start + 400] = bytes(320)  # inside the compressed records
    broken = tmp_path / "broken.mcap"
    broken.write_bytes(bytes(data))
    with LogReader(broken) as reader:
        assert reader.closed_cleanly  # the summary is intact
        found = all_data(reader)
        want = [d for i, (_, _, ds) in enumerate(chunks) if i != 2 for d in ds]
        assert sorted(found) == sorted(want)
        assert any(p.startswith(f"chunk at byte {start} cannot be decompressed")
                   for p in reader.problems), reader.problems
        assert lost


def test_not_mcap_is_refused_in_one_line(tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("hello, this is not a log\n" * 10)
    with pytest.raises(LogError) as caught:
        LogReader(text)
    assert str(caught.value) == f"not an MCAP file: {text}"
    empty = tmp_path / "empty.mcap"
    empty.write_bytes(b"")
    with pytest.raises(LogError, match=r"^not an MCAP file: "):
        LogReader(empty)
    with pytest.raises(LogError) as missing:
        LogReader(tmp_path / "nope.mcap")
    assert str(missing.value) == f"cannot read {tmp_path / 'nope.mcap'}: No such file or directory"


def test_info_says_what_was_lost(tmp_path: Path, whole: Path) -> None:
    data = whole.read_bytes()
    start, end, _ = chunks_of(whole)[-1]
    cut = tmp_path / "cut.mcap"
    cut.write_bytes(data[:(start + end) // 2])
    with LogReader(cut) as reader:
        text = describe(reader)
    assert "closed:   NOT cleanly" in text
    assert "not closed cleanly (no summary): indexed by a scan" in text
    assert f"inside a chunk (from byte {start})" in text
    with LogReader(whole) as reader:
        text = describe(reader)
        assert "closed:   cleanly" in text and "problems: none" in text
        for channel in reader.channels():
            assert f"{channel.key}" in text
        assert "duration: 2.990 s" in text


CHILD = """
import sys, time
from app.record.writer import Recorder
recorder = Recorder(sys.argv[1])
payload = bytes(2000)
n = 0
while True:
    now = time.time()
    recorder.offer("fleet/rover-1/x", "application/octet-stream",
                   n.to_bytes(8, "little") + payload, None, now, None)
    n += 1
    if n == 200:
        print("writing", flush=True)
    time.sleep(0.002)
"""


@pytest.mark.slow
def test_sigkilled_recorder_leaves_a_file_read_up_to_its_last_chunk(tmp_path: Path) -> None:
    path = tmp_path / "killed.mcap"
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(path)], stdout=subprocess.PIPE,
                             cwd=Path(__file__).resolve().parents[2], text=True)
    try:
        assert child.stdout is not None and child.stdout.readline() == "writing\n"
        time.sleep(2.5)
        killed_at = time.time()
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.wait(10)
    assert child.returncode == -signal.SIGKILL
    with LogReader(path) as reader:
        assert not reader.closed_cleanly
        assert "not closed cleanly (no summary): indexed by a scan" in reader.problems
        numbers = [int.from_bytes(s.payload[:8], "little") for s in reader.samples()]
        assert numbers == list(range(len(numbers)))  # nothing missing before the last chunk
        assert killed_at - reader.end_ns / 1e9 < 1.6  # at most about a second lost
