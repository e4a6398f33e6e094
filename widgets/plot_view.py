"""A time-series plot (pyqtgraph): series by id with a legend, a following time window,
pause, mouse zoom, and downsampling with clip-to-view so long series stay fast. Instead of
the window it can show a fixed span (a whole log) with a line at ``now`` in it.

Knows nothing of topics: a series' data comes from a source (``SeriesSource``: anything
that can hand out a time window of its points and, later, only the points appended since;
``app.station.series.SeriesBuffer`` is one) or from plain arrays (``set_data``). Items are
made once per series; the caller calls ``refresh`` only when a source changed.

Clipping and peak downsampling are done here, not by pyqtgraph (whose auto modes redo
every curve whenever the view moves, which a following window does on every frame): the
view reads only the visible window plus one window of margin each side from the source
and bins it by time, one bin per pixel, keeping each bin's first, lowest, highest and
last point (spikes survive, the newest point is exact). While that range stays in view, a
refresh reads only the points appended since the last read and folds them into the last
bins: the cost of a tick follows the pixels and the new points, not the history's length.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Signal
from PySide6.QtWidgets import QGraphicsItem, QVBoxLayout, QWidget

PALETTE = ("#4c9be8", "#f28e2b", "#59a14f", "#e15759", "#b07aa1", "#edc948", "#76b7b2",
           "#ff9da7", "#9c755f", "#bab0ac")
BACKGROUND = (30, 32, 36)
FOREGROUND = (200, 202, 206)
LABEL_COLOUR = "#dcdee2"
ERROR_COLOUR = "#f85149"
DIM_COLOUR = "#82868c"
NOW_COLOUR = (200, 202, 206, 150)  # the line at ``now`` in a fixed span
# Time-axis ticks: (major step in seconds, minor ticks per major), round numbers of
# seconds, minutes and hours.
STEPS = ((0.1, 5), (0.2, 4), (0.5, 5), (1, 5), (2, 4), (5, 5), (10, 5), (15, 3), (30, 3),
         (60, 4), (120, 4), (300, 5), (600, 5), (900, 3), (1800, 3), (3600, 4), (7200, 4),
         (21600, 6), (43200, 4), (86400, 4))
TICK_PX = 70  # the least room a tick label gets


class TimeAxis(pg.AxisItem):
    """x values are unix seconds; labels read as time before ``now`` (relative) or as
    local wall-clock time, on round steps of either."""

    def __init__(self) -> None:
        self._drawn_for: tuple[float, float] | None = None  # (span, right edge - now)
        self.relative = True
        self.now = time.time()
        super().__init__("bottom")

    def setRange(self, mn: float, mx: float) -> None:
        # A window following ``now`` moves every few frames; in relative time its ticks and
        # labels stay where they were (they count from its right edge), so the drawing is
        # kept instead of laid out again (tick texts measured one by one: 2-4 ms a move).
        drawn = self._drawn_for
        if drawn is not None and self.picture is not None and self.relative and \
                math.isfinite(mn) and math.isfinite(mx) and \
                math.isclose(mx - mn, drawn[0], rel_tol=1e-6) and \
                abs(mx - self.now - drawn[1]) <= (mx - mn) * 1e-6:
            self.range = [mn, mx]
            return
        super().setRange(mn, mx)

    def paint(self, p: Any, opt: Any, widget: Any) -> None:
        if self.picture is None:
            low, high = self.range
            self._drawn_for = (high - low, high - self.now) if self.relative else None
        super().paint(p, opt, widget)

    def tickValues(self, minVal: float, maxVal: float, size: float) -> list:
        span = max(maxVal - minVal, 1e-9)
        fits = [step for step in STEPS if span / step[0] <= max(size / TICK_PX, 1)]
        if not fits:  # zoomed out past days: plain numbers will do
            return super().tickValues(minVal, maxVal, size)
        major, parts = fits[0]
        origin = self.now if self.relative else -_utc_offset(minVal)
        return [(major, _ticks(minVal, maxVal, major, origin)),
                (major / parts, _ticks(minVal, maxVal, major / parts, origin))]

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        if self.relative:
            return [_relative_text(v - self.now, spacing) for v in values]
        return [_wall_text(v, spacing) for v in values]


def _utc_offset(when: float) -> float:
    """Seconds the local clock is ahead of UTC (ticks fall on round local times)."""
    return float(time.localtime(when).tm_gmtoff)


def _ticks(low: float, high: float, step: float, origin: float) -> list[float]:
    first = math.ceil((low - origin) / step)
    last = math.floor((high - origin) / step)
    return [origin + k * step for k in range(first, last + 1)]


def _relative_text(seconds: float, spacing: float) -> str:
    if abs(seconds) < spacing / 2:
        return "now"
    sign = "-" if seconds < 0 else "+"
    whole = round(abs(seconds))
    if spacing >= 3600:
        return f"{sign}{whole // 3600}:{whole % 3600 // 60:02d} h"
    if spacing >= 60:
        return f"{sign}{whole // 60}:{whole % 60:02d}"
    return f"{seconds:+.{0 if spacing >= 1 else 1}f} s"


def _wall_text(when: float, spacing: float) -> str:
    millis = round(when * 1000)
    local = time.localtime(millis // 1000)
    if spacing >= 86400:
        return time.strftime("%Y-%m-%d", local)
    if spacing >= 60:
        return time.strftime("%H:%M", local)
    text = time.strftime("%H:%M:%S", local)
    return text if spacing >= 1 else f"{text}.{millis % 1000:03d}"


class SeriesSource(Protocol):
    """Where a series' points come from, in time order (``SeriesBuffer`` is one)."""

    def window(self, low: float, high: float) -> tuple[np.ndarray, np.ndarray, Any]:
        """The points with ``low <= t <= high`` and one neighbour each side, and a cursor."""

    def since(self, cursor: Any, high: float) -> tuple[np.ndarray, np.ndarray, Any] | None:
        """The points appended after ``cursor`` (up to ``high`` and one past it) and the
        next cursor; ``None`` when the reader must read its window again."""


class ArraySeries:
    """Plain arrays as a source: non-finite points dropped and times sorted, once."""

    def __init__(self, t: np.ndarray, y: np.ndarray) -> None:
        t = np.asarray(t, dtype=float)
        y = np.asarray(y, dtype=float)
        finite = np.isfinite(t) & np.isfinite(y)
        if not finite.all():
            t, y = t[finite], y[finite]
        if len(t) > 1 and (t[1:] < t[:-1]).any():
            order = np.argsort(t, kind="stable")
            t, y = t[order], y[order]
        self.t, self.y = t, y

    def window(self, low: float, high: float) -> tuple[np.ndarray, np.ndarray, Any]:
        first = max(0, int(np.searchsorted(self.t, low, side="left")) - 1)
        last = min(len(self.t), int(np.searchsorted(self.t, high, side="right")) + 1)
        return self.t[first:last], self.y[first:last], None

    def since(self, cursor: Any, high: float) -> None:
        return None  # never appended to: set_data hands over a new one


@dataclass
class _Line:
    item: pg.PlotDataItem
    name: str
    colour: str
    status: str = ""
    is_error: bool = False
    source: SeriesSource | None = None
    cursor: Any = None  # the source's cursor after the last read; None: read the window
    low: float = 0.0  # the time bins of the drawn points: from low, ``width`` s each ...
    width: float = 1.0
    bins: int = 0  # ... this many (points outside fall into one bin each side)
    high: float = math.inf
    done_t: np.ndarray = field(default_factory=lambda: np.empty(0))  # bins no point joins
    done_y: np.ndarray = field(default_factory=lambda: np.empty(0))
    open_t: np.ndarray = field(default_factory=lambda: np.empty(0))  # the last bin's
    open_y: np.ndarray = field(default_factory=lambda: np.empty(0))


def bin_peaks(t: np.ndarray, y: np.ndarray, low: float, width: float, bins: int
              ) -> tuple[np.ndarray, np.ndarray, int]:
    """Time-ordered points into time bins ``[low + k * width, ...)`` (k < 0 or >= bins:
    one bin each side), keeping of each bin its first, lowest, highest and last point
    (M4: at one bin per pixel the line looks the same, spikes survive, and the newest
    point is drawn exactly). Binning the result again, with or without later points,
    gives the same bins: the last bin can be kept open and merged with the next points.
    Returns the points kept and where the last bin's points start among them."""
    n = len(t)
    if n < 3:
        return t, y, 0
    k = np.floor((t - low) / width)
    np.clip(k, -1, bins, out=k)
    changes = np.flatnonzero(k[1:] != k[:-1]) + 1
    starts = np.concatenate(([0], changes))
    counts = np.diff(np.append(starts, n))
    if n <= 2 * len(starts) and (counts <= 2).all():
        return t, y, int(starts[-1])  # no bin holds more than two points: all are kept
    keep = np.zeros(n, dtype=bool)
    keep[starts] = True
    keep[changes - 1] = True
    keep[-1] = True
    which = np.repeat(np.arange(len(starts)), counts)  # each point's bin
    for peaks in (np.minimum.reduceat(y, starts), np.maximum.reduceat(y, starts)):
        at = np.flatnonzero(y == np.repeat(peaks, counts))
        first = np.concatenate(([True], which[at][1:] != which[at][:-1]))
        keep[at[first]] = True  # the first point at each bin's minimum (maximum)
    split = int(np.count_nonzero(keep[: starts[-1]]))
    return t[keep], y[keep], split


class PlotView(QWidget):
    pausedChanged = Signal(bool)  # also when a mouse zoom or pan pauses following

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.axis = TimeAxis()
        self.plot = pg.PlotWidget(background=BACKGROUND, axisItems={"bottom": self.axis})
        self.plot_item = self.plot.getPlotItem()
        self.view_box = self.plot_item.getViewBox()
        # Horizontal lines at the major ticks only: a full grid costs more per frame (in
        # software rendering) than all the curves' data updates together.
        self.plot_item.showGrid(x=False, y=True, alpha=0.2)
        self.plot_item.getAxis("left").setStyle(maxTickLevel=0)
        for side in ("left", "bottom"):
            axis = self.plot_item.getAxis(side)
            axis.setPen(pg.mkPen(FOREGROUND))
            axis.setTextPen(pg.mkPen(FOREGROUND))
            # Kept as pixels until the axis changes: a repaint of the curves copies them
            # instead of replaying every label's text (about a millisecond an axis).
            axis.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.legend = self.plot_item.addLegend(
            offset=(8, 8), brush=pg.mkBrush(*BACKGROUND, 210), pen=pg.mkPen(70, 74, 80),
            labelTextColor=LABEL_COLOUR, labelTextSize="9pt")
        self.legend.setVisible(False)  # an empty legend is a stray box
        self.view_box.setAutoVisible(y=True)
        self.view_box.enableAutoRange(axis="y")
        self.view_box.sigRangeChangedManually.connect(self._on_manual_range)
        self._rendered = (0.0, 0.0)  # x range the items' points cover
        self.view_box.sigXRangeChanged.connect(self._on_x_range)
        self._lines: dict[str, _Line] = {}
        self._window_s = 60.0
        self._paused = False
        self._now = time.time()  # as of the last advance()
        self._edge = 0.0  # right edge of the window while following
        self._span: tuple[float, float] | None = None  # shown instead of the window
        self.now_line = pg.InfiniteLine(angle=90, movable=False, pen=pg.mkPen(NOW_COLOUR))
        self.now_line.hide()
        self.plot_item.addItem(self.now_line, ignoreBounds=True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.plot)

    # -- series ------------------------------------------------------------------------------
    def add_series(self, series_id: str, name: str) -> str:
        """Adds an empty series (its item is made here, once); returns its colour."""
        if series_id in self._lines:
            return self._lines[series_id].colour
        used = {line.colour for line in self._lines.values()}
        colour = next((c for c in PALETTE if c not in used), PALETTE[len(self._lines) %
                                                                   len(PALETTE)])
        # (1 px: wider pens cost Qt's raster engine several times more per frame)
        item = pg.PlotDataItem(name=name, pen=pg.mkPen(colour, width=1),
                               skipFiniteCheck=True)
        self.plot_item.addItem(item)
        self._lines[series_id] = _Line(item, name, colour)
        self.legend.setVisible(True)
        return colour

    def remove_series(self, series_id: str) -> None:
        line = self._lines.pop(series_id, None)
        if line is not None:
            self.plot_item.removeItem(line.item)
        self.legend.setVisible(bool(self._lines))

    def series_ids(self) -> list[str]:
        return list(self._lines)

    def data_item(self, series_id: str) -> pg.PlotDataItem:
        return self._lines[series_id].item

    def set_data(self, series_id: str, t: np.ndarray, y: np.ndarray) -> None:
        """Replaces a series' points with plain arrays: unix seconds and values. Non-finite
        points are dropped and unordered times sorted, so pyqtgraph only sees clean data."""
        self.set_source(series_id, ArraySeries(t, y))

    def set_source(self, series_id: str, source: SeriesSource) -> None:
        """Draws the series from ``source`` from now on (its visible window is read now);
        call ``refresh`` when it changed."""
        line = self._lines[series_id]
        line.source, line.cursor = source, None
        self._render(line)

    def refresh(self, series_id: str) -> None:
        """The series' source changed: reads what was appended since the last read and
        folds it into the drawn points (one ``setData``, none if nothing new is in range),
        or reads the window again where the source says it must."""
        line = self._lines[series_id]
        if line.source is None:
            return
        got = None if line.cursor is None else line.source.since(line.cursor, line.high)
        if got is None:
            self._render(line)
            return
        t, y, line.cursor = got
        if not len(t):
            return
        td, yd, split = bin_peaks(np.concatenate([line.open_t, t]),
                                  np.concatenate([line.open_y, y]),
                                  line.low, line.width, line.bins)
        if split:
            line.done_t = np.concatenate([line.done_t, td[:split]])
            line.done_y = np.concatenate([line.done_y, yd[:split]])
        line.open_t, line.open_y = td[split:], yd[split:]
        line.item.setData(np.concatenate([line.done_t, line.open_t]),
                          np.concatenate([line.done_y, line.open_y]))

    def _render(self, line: _Line) -> None:
        """Reads the series' window (the view plus one window of margin each side) afresh."""
        if line.source is None:
            return
        bins = 3 * max(int(self.view_box.width()), 200)  # ~one bin per pixel of the view
        if not self._edge and not self._paused and self._span is None:  # all in view
            t, y, _ = line.source.window(-math.inf, math.inf)
            line.cursor = None  # (read it all again next time: the range is open)
            low = float(t[0]) if len(t) else 0.0
            span = float(t[-1]) - low if len(t) else 0.0
            line.low, line.high, line.width = low, math.inf, max(span, 1e-9) / bins
        else:
            low, high = self.view_box.viewRange()[0]
            span = max(high - low, 1e-9)
            self._rendered = (low - span, high + span)
            t, y, line.cursor = line.source.window(*self._rendered)
            line.low, line.high = self._rendered
            line.width = 3 * span / bins
        line.bins = bins
        td, yd, split = bin_peaks(t, y, line.low, line.width, bins)
        line.done_t, line.done_y = td[:split], yd[:split]
        line.open_t, line.open_y = td[split:], yd[split:]
        line.item.setData(td, yd)

    def _on_x_range(self, *_: object) -> None:
        """Re-renders only when the view left the rendered margin or was zoomed."""
        low, high = self.view_box.viewRange()[0]
        rendered_low, rendered_high = self._rendered
        zoomed = abs((high - low) * 3 - (rendered_high - rendered_low)) > 1e-6 * (high - low)
        if zoomed or low < rendered_low or high > rendered_high:
            for line in self._lines.values():
                self._render(line)

    def set_status(self, series_id: str, status: str, is_error: bool = False) -> None:
        """A note after the series' name in the legend (an error in red), also its tooltip."""
        line = self._lines[series_id]
        if (line.status, line.is_error) == (status, is_error):
            return
        line.status, line.is_error = status, is_error
        label = self.legend.getLabel(line.item)
        if label is None:
            return
        text = f"{line.name} — {status}" if status else line.name
        colour = ERROR_COLOUR if is_error else (DIM_COLOUR if status else LABEL_COLOUR)
        label.setText(text, color=colour)
        label.setToolTip(status)

    def status(self, series_id: str) -> tuple[str, bool]:
        line = self._lines[series_id]
        return line.status, line.is_error

    def legend_text(self, series_id: str) -> str:
        label = self.legend.getLabel(self._lines[series_id].item)
        return label.text if label is not None else ""

    # -- the time window ----------------------------------------------------------------------
    @property
    def window_s(self) -> float:
        return self._window_s

    def set_window(self, seconds: float) -> None:
        self._window_s = float(seconds)
        if self._span is not None:
            return  # the window comes back with the span's end
        if self._paused:
            right = self.view_box.viewRange()[0][1]
            self.view_box.setXRange(right - self._window_s, right, padding=0)
        else:
            self._follow(self._now)

    @property
    def span(self) -> tuple[float, float] | None:
        return self._span

    def set_span(self, span: tuple[float, float] | None) -> None:
        """Shows exactly ``span`` (unix seconds), not following ``now`` but marking it with a
        line (relative times count from it); None: back to the time window."""
        self._span = span
        self.now_line.setVisible(span is not None)
        if span is not None:
            self._mark_now(self._now)
        if span is not None and self._paused:
            self.set_paused(False)  # (which shows it)
        elif not self._paused:
            self.view_box.enableAutoRange(axis="y")
            self._show_now()

    @property
    def paused(self) -> bool:
        return self._paused

    def set_paused(self, paused: bool) -> None:
        """Paused: the view stays put (data keeps arriving); unpaused: follow ``now``."""
        if paused == self._paused:
            return
        if paused and not self._edge and self._span is None:  # paused before ever following:
            self._follow(self._now)  # show the newest window
        self._paused = paused
        if not paused:
            self.view_box.enableAutoRange(axis="y")
            self._show_now()
        self.pausedChanged.emit(paused)

    @property
    def wall_clock(self) -> bool:
        return not self.axis.relative

    def set_wall_clock(self, wall: bool) -> None:
        self.axis.relative = not wall
        self.axis.picture = None
        self.axis.update()

    def advance(self, now: float) -> None:
        """Once per frame: moves the window to ``now`` while following (at most once per
        pixel of movement, so a long window repaints rarely)."""
        self._now = now
        if self._span is not None:
            if abs(now - self.now_line.value()) >= self._pixel_s(self.visible_range()):
                self._mark_now(now)
            return
        if self._paused:
            return
        pixel_s = self._window_s / max(self.view_box.width(), 1.0)
        if abs(now - self._edge) >= pixel_s:
            self._follow(now)

    def visible_range(self) -> tuple[float, float]:
        low, high = self.view_box.viewRange()[0]
        return low, high

    def _pixel_s(self, shown: tuple[float, float]) -> float:
        return (shown[1] - shown[0]) / max(self.view_box.width(), 1.0)

    def _mark_now(self, now: float) -> None:
        self.now_line.setValue(now)
        self.axis.now = now
        self.axis.picture = None
        self.axis.update()

    def _show_now(self) -> None:
        """Shows the span, or the window ending at ``now``."""
        if self._span is not None:
            self.view_box.setXRange(*self._span, padding=0)
        else:
            self._follow(self._now)

    def _follow(self, now: float) -> None:
        self._edge = now
        self.axis.now = now
        self.view_box.setXRange(now - self._window_s, now, padding=0)

    def _on_manual_range(self, *_: object) -> None:
        self.set_paused(True)
