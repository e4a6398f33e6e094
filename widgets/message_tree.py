"""A tree of a plain nested value (dicts, lists, numbers, text), updated in place.

Besides dicts, lists and scalars a value may hold the few nodes defined here: a long list
cut short (:class:`Elided`), binary data (:class:`Bytes`) and a leaf shown as a warning
(:class:`Flagged`). The caller turns its own types into these.

Only what the user can see is kept current: a collapsed row stores its new value and
refreshes its children when expanded, so a large message costs what its open rows cost.
Rows are reused while the shape of the value stays the same, so expansion, selection and
scrolling survive every update.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTreeWidget, QTreeWidgetItem, QWidget

Key = str | int
Path = tuple[Key, ...]
TypeHint = Callable[[Path], str]

FIELD, VALUE, TYPE = range(3)
MAX_TEXT = 200
PREVIEW_CHARS = 80
DIM = QColor(130, 134, 140)
WARN = QColor("#d29922")


@dataclass(frozen=True)
class Elided:
    """A long list shown by its length and first items."""

    length: int
    first: list[Any]


@dataclass(frozen=True)
class Flagged:
    """A leaf shown as a warning: ``text`` in the value column, its field highlighted and
    explained by ``tip``; ``value`` is what it stands for (its type and preview)."""

    value: Any
    text: str
    tip: str


@dataclass(frozen=True)
class Bytes:
    """Binary data shown by its size and first bytes."""

    size: int
    head: bytes


class _More:
    """The row standing for list items an Elided list left out."""

    def __init__(self, count: int) -> None:
        self.count = count


class _Row(QTreeWidgetItem):
    def __init__(self, path: Path, label: str) -> None:
        super().__init__([label, "", ""])
        self.path = path
        self.value: Any = None
        self.stale = False  # children out of date (refreshed when expanded)


def _child(parent: QTreeWidgetItem, index: int) -> _Row:
    """A row under ``parent``: every item below the tree's root is a _Row."""
    return cast(_Row, parent.child(index))


def path_text(path: Path) -> str:
    """``("motion", "pose", "latDeg")`` -> ``motion.pose.latDeg``; ints become ``[i]``."""
    text = ""
    for key in path:
        text += f"[{key}]" if isinstance(key, int) else (f".{key}" if text else key)
    return text


def float_text(value: float) -> str:
    """Shortest text that reads back to the value; float32 values without float64 noise."""
    if not math.isfinite(value):
        return str(value)
    single = _as_float32(value)
    if single != value:
        return repr(value)
    for digits in range(1, 10):  # 9 significant digits always read back a float32
        shortest = float(f"{value:.{digits}g}")
        if _as_float32(shortest) == single:
            return repr(shortest)
    return repr(value)


def _as_float32(value: float) -> float:
    try:
        return struct.unpack("<f", struct.pack("<f", value))[0]
    except OverflowError:
        return math.nan


def leaf_text(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return float_text(value)
    if isinstance(value, str):
        flat = value.replace("\n", "⏎")
        return flat if len(flat) <= MAX_TEXT else flat[:MAX_TEXT] + "…"
    if isinstance(value, Flagged):
        return leaf_text(value.value)
    if isinstance(value, Bytes):
        more = " …" if value.size > len(value.head) else ""
        return f"{value.size} bytes: {value.head.hex(' ')}{more}"
    return str(value)


def kind_text(value: Any) -> str:
    """A type hint from the value alone (when no schema hint is given)."""
    if isinstance(value, dict):
        return "struct"
    if isinstance(value, list | Elided):
        return "list"
    if isinstance(value, Bytes):
        return "Data"
    if isinstance(value, Flagged):
        return kind_text(value.value)
    if isinstance(value, str):
        return "text"
    return "" if value is None else type(value).__name__


def _entries(value: Any) -> list[tuple[str, Any, Key | None]]:
    """(label, value, path key) of each child row of a value; empty for a leaf."""
    if isinstance(value, dict):
        return [(str(k), v, k) for k, v in value.items()]
    if isinstance(value, list):
        return [(f"[{i}]", v, i) for i, v in enumerate(value)]
    if isinstance(value, Elided):
        rows: list[tuple[str, Any, Key | None]] = [
            (f"[{i}]", v, i) for i, v in enumerate(value.first)]
        return [*rows, ("…", _More(value.length - len(value.first)), None)]
    return []


def _is_container(value: Any) -> bool:
    return isinstance(value, dict | list | Elided)


def _has_children(value: Any) -> bool:
    return value.length > 0 if isinstance(value, Elided) else bool(value)


def _preview(value: Any) -> str:
    """One line of a collapsed container's first leaves."""
    parts = []
    for label, child, _ in _entries(value):
        if isinstance(child, _More):
            break
        text = "{…}" if isinstance(child, dict) else (
            "[…]" if _is_container(child) else leaf_text(child))
        parts.append(text if isinstance(value, list | Elided) else f"{label}: {text}")
        if sum(len(p) + 2 for p in parts) > PREVIEW_CHARS:
            break
    inner = ", ".join(parts)
    if len(inner) > PREVIEW_CHARS:
        inner = inner[:PREVIEW_CHARS] + "…"
    return "{" + inner + "}" if isinstance(value, dict) else inner


def container_text(value: Any, expanded: bool) -> str:
    if isinstance(value, dict):
        return "" if expanded or not value else _preview(value)
    length = value.length if isinstance(value, Elided) else len(value)
    count = f"[{length} item{'' if length == 1 else 's'}]"
    return count if expanded or not length else f"{count}  {_preview(value)}"


class MessageTree(QTreeWidget):
    """Field / value / type rows of a plain value; call ``set_value`` as often as it changes."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setColumnCount(3)
        self.setHeaderLabels(["Field", "Value", "Type"])
        self.setUniformRowHeights(True)
        self.setAlternatingRowColors(True)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        header = self.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(FIELD, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(VALUE, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(TYPE, QHeaderView.ResizeMode.Interactive)
        self.setColumnWidth(FIELD, 200)
        self.setColumnWidth(TYPE, 150)
        self._type_hint: TypeHint | None = None
        self._expanded: set[str] | None = None  # None: open the first level of structs
        self._quiet = 0  # >0 while the tree itself expands rows
        self.itemExpanded.connect(self._on_expanded)
        self.itemCollapsed.connect(self._on_collapsed)

    # -- the value -----------------------------------------------------------------------
    def set_value(self, value: Any) -> None:
        """Shows ``value``, reusing the rows of the previous one where the shape matches."""
        self._sync(self.invisibleRootItem(), value, ())

    def clear_value(self) -> None:
        self.clear()

    def set_type_hint(self, hint: TypeHint | None) -> None:
        """Type column text by path (a schema's view); rows made after this use it."""
        self._type_hint = hint

    # -- expansion (what a saved layout remembers) -------------------------------------------
    def expanded_paths(self) -> list[str] | None:
        """The rows the user opened, or None while the automatic default applies."""
        return None if self._expanded is None else sorted(self._expanded)

    def set_expanded_paths(self, paths: list[str] | None) -> None:
        self._expanded = None if paths is None else set(paths)
        self._quiet += 1
        try:
            for row in self._rows():
                row.setExpanded(self._wants_open(row))
        finally:
            self._quiet -= 1

    def row_at(self, path: str) -> QTreeWidgetItem | None:
        """The row showing ``path`` (as ``path_text`` writes it), if it exists now."""
        return next((r for r in self._rows() if path_text(r.path) == path), None)

    def path_of(self, item: QTreeWidgetItem) -> str | None:
        return path_text(item.path) if isinstance(item, _Row) and None not in item.path else None

    # -- keeping rows in step ----------------------------------------------------------------
    def _sync(self, parent: QTreeWidgetItem, value: Any, path: Path) -> None:
        entries = _entries(value)
        count = parent.childCount()
        keep = 0
        while keep < min(count, len(entries)) and _child(parent, keep).text(FIELD) == \
                entries[keep][0]:
            keep += 1
        for _ in range(count - keep):  # the shape changed from here on (e.g. union member)
            parent.takeChild(keep)
        # The "… more" row's key is None (no field): path_of and the type hint skip it.
        fresh = [_Row((*path, key), label)  # type: ignore[arg-type]
                 for label, _, key in entries[keep:]]
        parent.addChildren(fresh)
        for index, (_, child_value, _) in enumerate(entries):
            row = _child(parent, index)
            self._fill(row, child_value, created=index >= keep)

    def _fill(self, row: _Row, value: Any, created: bool) -> None:
        restyle = created or type(value) is not type(row.value)
        row.value = value
        if restyle:
            self._style(row, value)
        row.setText(VALUE, self._value_text(row, value))
        if not _is_container(value):
            if row.childCount():
                row.takeChildren()
            return
        policy = QTreeWidgetItem.ChildIndicatorPolicy
        row.setChildIndicatorPolicy(policy.ShowIndicator if _has_children(value)
                                    else policy.DontShowIndicatorWhenChildless)
        if created and self._wants_open(row):
            self._quiet += 1
            try:
                row.setExpanded(True)  # fills the children through _on_expanded
            finally:
                self._quiet -= 1
        elif row.isExpanded():
            self._sync(row, value, row.path)
        else:
            row.stale = True

    def _style(self, row: _Row, value: Any) -> None:
        hint = self._type_hint(row.path) if self._type_hint and None not in row.path else ""
        row.setText(TYPE, hint or kind_text(value))
        row.setForeground(TYPE, QBrush(DIM))
        dim = isinstance(value, _More) or value is None
        row.setForeground(VALUE, QBrush(DIM) if dim else self.palette().text())
        if isinstance(value, Flagged):
            row.setForeground(FIELD, QBrush(WARN))
            row.setToolTip(FIELD, value.tip)

    @staticmethod
    def _value_text(row: _Row, value: Any) -> str:
        if isinstance(value, _More):
            return f"{value.count} more not shown"
        if _is_container(value):
            return container_text(value, row.isExpanded())
        if isinstance(value, Flagged):
            return value.text
        return leaf_text(value)

    def _wants_open(self, row: _Row) -> bool:
        if self._expanded is None:
            return len(row.path) == 1 and isinstance(row.value, dict)
        return path_text(row.path) in self._expanded

    def _on_expanded(self, item: QTreeWidgetItem) -> None:
        if not isinstance(item, _Row):
            return
        if not self._quiet:
            self._remember(item, True)
        if item.stale or not item.childCount():
            item.stale = False
            self._sync(item, item.value, item.path)
        item.setText(VALUE, self._value_text(item, item.value))

    def _on_collapsed(self, item: QTreeWidgetItem) -> None:
        if not isinstance(item, _Row):
            return
        if not self._quiet:
            self._remember(item, False)
        item.setText(VALUE, self._value_text(item, item.value))

    def _remember(self, row: _Row, opened: bool) -> None:
        if self._expanded is None:  # the user takes over from the automatic default
            self._expanded = {path_text(r.path) for r in self._rows() if r.isExpanded()}
        if opened:
            self._expanded.add(path_text(row.path))
        else:
            self._expanded.discard(path_text(row.path))

    def _rows(self) -> list[_Row]:
        rows: list[_Row] = []
        stack = [self.invisibleRootItem()]
        while stack:
            parent = stack.pop()
            for i in range(parent.childCount()):
                child = _child(parent, i)
                rows.append(child)
                stack.append(child)
        return rows
