"""Plain-text and JSON renderings of decoded messages and traffic tables (for the CLI)."""

from __future__ import annotations

import json
import math
from typing import Any

from app.codec.fields import DataSummary, ListSummary

INDENT = "  "


def to_jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: to_jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [to_jsonable(v) for v in value]
    if isinstance(value, ListSummary):
        return {"length": value.length, "first": to_jsonable(value.first)}
    if isinstance(value, DataSummary):
        return {"bytes": value.size, "head": value.head.hex()}
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)  # JSON has no NaN/Infinity
    return value


def to_json(value: Any) -> str:
    return json.dumps(to_jsonable(value), allow_nan=False, ensure_ascii=False)


def to_text(value: Any, depth: int = 0) -> list[str]:
    """An indented, YAML-like listing of a plain message value."""
    pad = INDENT * depth
    lines: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if _is_leaf(item):
                lines.append(f"{pad}{key}: {_leaf(item)}")
            else:
                lines.append(f"{pad}{key}:")
                lines += to_text(item, depth + 1)
        return lines
    items, more = (value.first, value.length - len(value.first)) if isinstance(
        value, ListSummary
    ) else (value, 0)
    for item in items:
        if _is_leaf(item):
            lines.append(f"{pad}- {_leaf(item)}")
        else:
            sub = to_text(item, depth + 1)
            lines.append(f"{pad}- {sub[0].lstrip()}" if sub else f"{pad}- {{}}")
            lines += sub[1:]
    if more:
        lines.append(f"{pad}… {more} more")
    return lines


def _is_leaf(value: Any) -> bool:
    if isinstance(value, dict):
        return not value
    if isinstance(value, ListSummary):
        return all(_is_leaf(v) and not isinstance(v, dict) for v in value.first)
    if isinstance(value, list):
        return all(_is_leaf(v) and not isinstance(v, dict) for v in value)
    return True


def _leaf(value: Any) -> str:
    if isinstance(value, dict):
        return "{}"
    if isinstance(value, ListSummary):
        inner = ", ".join(_leaf(v) for v in value.first)
        return f"[{inner}, … ({value.length} items)]"
    if isinstance(value, list):
        return "[" + ", ".join(_leaf(v) for v in value) + "]"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def table(headers: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
              for i, h in enumerate(headers)]
    def line(cells: list[str]) -> str:
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip()
    return "\n".join([line(headers), line(["-" * w for w in widths]), *map(line, rows)])


def human_rate(hz: float) -> str:
    return f"{hz:.1f} Hz" if hz else "-"


def human_bytes_per_s(bps: float) -> str:
    for unit in ("B/s", "kB/s", "MB/s", "GB/s"):
        if bps < 1000 or unit == "GB/s":
            return f"{bps:.0f} {unit}" if unit == "B/s" else f"{bps:.1f} {unit}"
        bps /= 1000
    return ""


def human_age(seconds: float | None) -> str:
    """How long ago: "0.2 s", "12 s", "3 min", "2 h"; "—" when unknown."""
    if seconds is None or not math.isfinite(seconds):
        return "—"
    seconds = max(0.0, seconds)
    if seconds < 10:
        return f"{seconds:.1f} s"
    if seconds < 60:
        return f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{seconds // 60:.0f} min"
    if seconds < 86400:
        return f"{seconds // 3600:.0f} h"
    return f"{seconds // 86400:.0f} d"
