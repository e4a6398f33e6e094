"""The text ``fieldstation info FILE`` prints about a log."""

from __future__ import annotations

import datetime

from app.record.reader import LogReader


def _when(ns: int) -> str:
    moment = datetime.datetime.fromtimestamp(ns / 1e9, datetime.UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def human_size(count: int) -> str:
    """A file's size as ``info`` and ``record`` print it (binary units)."""
    if count < 1024:
        return f"{count} bytes"
    scaled = count / 1024
    for unit in ("KiB", "MiB"):
        if scaled < 1024:
            return f"{scaled:.1f} {unit}"
        scaled /= 1024
    return f"{scaled:.2f} GiB"


def describe(reader: LogReader) -> str:
    channels = reader.channels()
    presence = reader.liveliness()
    duration_s = (reader.end_ns - reader.start_ns) / 1e9
    lines = [
        f"file:     {reader.path}",
        f"size:     {human_size(reader.size)}",
        f"closed:   {'cleanly' if reader.closed_cleanly else 'NOT cleanly (indexed by a scan)'}",
    ]
    if reader.start_ns or reader.end_ns:
        lines += [f"start:    {_when(reader.start_ns)}", f"end:      {_when(reader.end_ns)}"]
    lines.append(f"duration: {duration_s:.3f} s")
    total = sum(c.count for c in channels)
    lines.append(f"messages: {total} on {len(channels)} channel(s)")
    if channels:
        key_width = max(len(c.key) for c in channels)
        type_width = max(len(c.type_name or c.encoding) for c in channels)
        for channel in channels:
            what = channel.type_name or channel.encoding or "(no encoding)"
            foreign = "  (foreign, translated)" if channel.foreign else ""
            lines.append(f"  {channel.key:<{key_width}}  {what:<{type_width}}  "
                         f"{channel.count:>8}{foreign}")
    if presence:
        lines.append(f"presence: {len(presence)} liveliness event(s)")
        for key in sorted({event.key for event in presence}):
            events = [e for e in presence if e.key == key]
            alive = sum(e.alive for e in events)
            lines.append(f"  {key}  {alive} alive, {len(events) - alive} gone")
    if reader.problems:
        lines.append(f"problems: {len(reader.problems)}")
        lines += [f"  {problem}" for problem in reader.problems]
    else:
        lines.append("problems: none")
    return "\n".join(lines)
