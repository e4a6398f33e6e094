"""Black boxes are kept to a total size: the oldest go first, the newest always stays."""

from __future__ import annotations

from pathlib import Path

from app.record.retention import prune_oldest


def _files(folder: Path, sizes: dict[str, int]) -> None:
    for name, size in sizes.items():
        (folder / name).write_bytes(bytes(size))


def test_the_oldest_black_boxes_go_until_the_rest_fit(tmp_path: Path) -> None:
    _files(tmp_path, {"black-box-20261126-100000.mcap": 400,
                      "black-box-20261126-100200.mcap": 300,
                      "black-box-20261126-100400.mcap": 300,
                      "black-box-20261126-100600.mcap": 300,
                      "recording-20261126-090000.mcap": 5000})  # not a black box: kept
    deleted = prune_oldest(tmp_path, "black-box-*.mcap", keep_bytes=700)
    assert [p.name for p in deleted] == ["black-box-20261126-100000.mcap",
                                         "black-box-20261126-100200.mcap"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "black-box-20261126-100400.mcap", "black-box-20261126-100600.mcap",
        "recording-20261126-090000.mcap"]


def test_the_newest_stays_even_when_it_alone_is_too_big(tmp_path: Path) -> None:
    _files(tmp_path, {"black-box-20261126-100000.mcap": 10,
                      "black-box-20261126-100200.mcap": 900})
    assert [p.name for p in prune_oldest(tmp_path, "black-box-*.mcap", keep_bytes=500)] == [
        "black-box-20261126-100000.mcap"]
    assert [p.name for p in tmp_path.iterdir()] == ["black-box-20261126-100200.mcap"]


def test_within_the_size_nothing_goes(tmp_path: Path) -> None:
    _files(tmp_path, {"black-box-20261126-100000.mcap": 10,
                      "black-box-20261126-100200.mcap": 10})
    assert prune_oldest(tmp_path, "black-box-*.mcap", keep_bytes=20) == []
    assert len(list(tmp_path.iterdir())) == 2
