"""How many black-box files a station keeps: the newest, up to a total size. At a depot of a
hundred robots a critical fault somewhere saves a minute of the whole fleet (about 25 MB)
every few minutes; kept without end, that filled a laptop's disk in a day."""

from __future__ import annotations

from pathlib import Path

KEEP_BYTES = 2 * 1024**3


def prune_oldest(folder: Path, pattern: str, keep_bytes: int = KEEP_BYTES) -> list[Path]:
    """Deletes the oldest files of ``folder`` matching ``pattern`` (oldest by name: the
    names are stamped with their time) until the rest take at most ``keep_bytes``; the
    newest file is always kept. Returns what was deleted; a file that cannot be deleted
    (gone already, or read-only) is left and skipped."""
    files = []
    for path in sorted(folder.glob(pattern)):
        try:
            files.append((path, path.stat().st_size))
        except OSError:
            continue
    total = sum(size for _, size in files)
    deleted = []
    for path, size in files[:-1]:
        if total <= keep_bytes:
            break
        try:
            path.unlink()
        except OSError:
            continue
        total -= size
        deleted.append(path)
    return deleted
