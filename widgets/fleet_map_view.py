"""A top-down map of robots: each an arrow at its heading with its id, in its state's colour.

Plain data in (:class:`MapRobot`), QPainter out: a hundred robots cost a hundred small
polygons and labels per repaint, and it repaints only when told something changed.

Robots on the earth (``frame`` ""; metres east/north around a datum) share the main map:
zoom with the wheel at the cursor, pan by dragging, :meth:`fit` to see them all (it keeps
fitting as they move until the user zooms or pans). A robot placed only in a site frame of
its own cannot be put beside the others, so it gets a tile of its own on the right, titled
with its frame, showing it against that frame's origin.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetrics,
    QHelpEvent,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPen,
    QPolygonF,
    QResizeEvent,
    QWheelEvent,
)
from PySide6.QtWidgets import QToolTip, QWidget

BACKGROUND = QColor("#11161d")
TILE_BACKGROUND = QColor("#171d25")
GRID = QColor("#222a35")
INK = QColor("#c9d1d9")
MUTED_INK = QColor("#6e7681")
ACTIVE_RING = QColor("#58a6ff")
ARROW_PX = 20.0  # a robot's arrow, tip to tail
HIT_PX = 14.0  # a click this close to a robot picks it
MIN_SPAN_M = 20.0  # fitting one robot (or robots close together) shows this much around it
# Fitting leaves room around the robots: for the title above, the labels on the right and
# the scale bar below (left, top, right, bottom).
FIT_MARGINS_PX = (30.0, 50.0, 110.0, 50.0)
TILE_W, TILE_H, TILE_GAP = 170.0, 120.0, 8.0
ZOOM_PER_NOTCH = 1.25
MIN_SCALE, MAX_SCALE = 1e-4, 500.0  # px per metre
DRAG_PX = 4  # a press moved less than this is a click


@dataclass(frozen=True)
class MapRobot:
    robot_id: str
    x: float  # m: east (or x of its site frame)
    y: float  # m: north (or y)
    yaw: float | None  # rad counter-clockwise from +x; None: heading unknown (a dot)
    colour: str
    frame: str = ""  # "": the main map; else the robot's own site frame (a tile)
    muted: bool = False  # offline: drawn grey-labelled at its last known place
    tooltip: str = ""
    label: str = ""  # its label on the map; "": its id

    @property
    def text(self) -> str:
        return self.label or self.robot_id


class FleetMapView(QWidget):
    robot_clicked = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setMinimumSize(320, 240)
        self.setMouseTracking(False)
        self.robots: tuple[MapRobot, ...] = ()
        self._split_of: tuple[MapRobot, ...] | None = None
        self._parts: tuple[tuple[MapRobot, ...], tuple[MapRobot, ...]] = ((), ())
        self.active: str | None = None
        self.title = ""
        self.north_label = "N"
        self.scale = 10.0  # px per metre
        self.centre = (0.0, 0.0)  # the world point at the main area's centre
        self.following = True  # keeps fitting until the user zooms or pans
        self.paints = 0
        self._press: tuple[QPointF, tuple[float, float]] | None = None
        self._dragged = False
        self._font = QFont(self.font())
        self._font.setPointSizeF(max(7.0, self._font.pointSizeF() * 0.9))
        self._metrics = QFontMetrics(self._font)
        self._bold = QFont(self._font)
        self._bold.setBold(True)
        self._label_metrics = QFontMetrics(self._bold)  # the widest a label gets (the active one)
        # by colour: a thousand robots share a few, and parsing one per robot per paint cost
        # a tenth of the paint
        self._inks: dict[str, tuple[QPen, QBrush]] = {}
        self._widths: dict[str, float] = {}  # a label's, by its text

    # -- plain data in ------------------------------------------------------------------------
    def set_robots(self, robots: Sequence[MapRobot]) -> None:
        self.robots = tuple(robots)
        if self.following:
            self._fit()
        self.update()

    def set_active(self, robot_id: str | None) -> None:
        if robot_id != self.active:
            self.active = robot_id
            self.update()

    def set_title(self, title: str) -> None:
        if title != self.title:
            self.title = title
            self.update()

    def fit(self) -> None:
        """Shows every robot of the main map, and follows them from now on."""
        self.following = True
        self._fit()
        self.update()

    # -- geometry -----------------------------------------------------------------------------
    def main_robots(self) -> tuple[MapRobot, ...]:
        return self._split()[0]

    def tile_robots(self) -> tuple[MapRobot, ...]:
        return self._split()[1]

    def _split(self) -> tuple[tuple[MapRobot, ...], tuple[MapRobot, ...]]:
        """(the main map's robots, the tiles' robots), made once per set of robots: a paint
        places each robot through them (a thousand robots were a million looks)."""
        if self._split_of is not self.robots:
            self._split_of = self.robots
            self._parts = (tuple(r for r in self.robots if not r.frame),
                           tuple(r for r in self.robots if r.frame))
        return self._parts

    def main_rect(self) -> QRectF:
        """Where the main map is drawn: the widget less the column(s) of site-frame tiles."""
        columns, _ = self._tile_grid()
        return QRectF(0, 0, max(1.0, self.width() - columns * (TILE_W + TILE_GAP)),
                      self.height())

    def to_screen(self, x: float, y: float) -> QPointF:
        area = self.main_rect()
        return QPointF(area.center().x() + (x - self.centre[0]) * self.scale,
                       area.center().y() - (y - self.centre[1]) * self.scale)

    def _main_on_screen(self) -> dict[str, QPointF]:
        """Where each robot of the main map is drawn, by id (the area's centre looked up
        once, not per robot)."""
        centre = self.main_rect().center()
        (cx, cy), (wx, wy), scale = (centre.x(), centre.y()), self.centre, self.scale
        return {r.robot_id: QPointF(cx + (r.x - wx) * scale, cy - (r.y - wy) * scale)
                for r in self.main_robots()}

    def to_world(self, point: QPointF) -> tuple[float, float]:
        area = self.main_rect()
        return (self.centre[0] + (point.x() - area.center().x()) / self.scale,
                self.centre[1] - (point.y() - area.center().y()) / self.scale)

    def robot_at(self, point: QPointF) -> str | None:
        """The robot drawn nearest ``point`` within a click's reach, if any."""
        best, best_d = None, HIT_PX
        for robot, where in self._placed():
            d = math.hypot(where.x() - point.x(), where.y() - point.y())
            if d <= best_d:
                best, best_d = robot.robot_id, d
        return best

    def _fit(self) -> None:
        robots = self.main_robots()
        if not robots:
            return
        xs, ys = [r.x for r in robots], [r.y for r in robots]
        span_x, span_y = max(max(xs) - min(xs), MIN_SPAN_M), max(max(ys) - min(ys), MIN_SPAN_M)
        area = self.main_rect()
        left, top, right, bottom = FIT_MARGINS_PX
        usable_w = max(area.width() - left - right, 10.0)
        usable_h = max(area.height() - top - bottom, 10.0)
        self.scale = _clamp(min(usable_w / span_x, usable_h / span_y))
        # the robots' middle goes to the middle of the area inside the margins
        self.centre = ((max(xs) + min(xs)) / 2 + (right - left) / 2 / self.scale,
                       (max(ys) + min(ys)) / 2 + (top - bottom) / 2 / self.scale)

    def _tile_grid(self) -> tuple[int, int]:
        """(columns, rows) of tiles: as many columns as needed, at most half the width."""
        count = len(self.tile_robots())
        if not count:
            return 0, 0
        rows = max(1, int((self.height() - TILE_GAP) // (TILE_H + TILE_GAP)))
        most = max(1, int((self.width() / 2) // (TILE_W + TILE_GAP)))
        return min(most, math.ceil(count / rows)), rows

    def _tiles(self) -> list[tuple[MapRobot, QRectF]]:
        columns, rows = self._tile_grid()
        tiles = []
        for index, robot in enumerate(self.tile_robots()[:columns * rows]):
            column, row = divmod(index, rows)
            left = self.width() - (column + 1) * (TILE_W + TILE_GAP)
            tiles.append((robot, QRectF(left, TILE_GAP + row * (TILE_H + TILE_GAP),
                                        TILE_W, TILE_H)))
        return tiles

    def _tile_transform(self, robot: MapRobot, tile: QRectF) -> tuple[QPointF, float]:
        """(the frame origin on screen, px per metre) of a tile showing origin and robot."""
        inner = tile.adjusted(8, 22, -8, -20)
        span = max(MIN_SPAN_M, 2.4 * max(abs(robot.x), abs(robot.y)))
        return inner.center(), min(inner.width(), inner.height()) / span

    def _placed(self) -> list[tuple[MapRobot, QPointF]]:
        on_screen = self._main_on_screen()
        placed = [(r, on_screen[r.robot_id]) for r in self.main_robots()]
        for robot, tile in self._tiles():
            origin, scale = self._tile_transform(robot, tile)
            placed.append((robot, QPointF(origin.x() + robot.x * scale,
                                          origin.y() - robot.y * scale)))
        return placed

    # -- painting -----------------------------------------------------------------------------
    def paintEvent(self, event: QPaintEvent) -> None:
        self.paints += 1
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setFont(self._font)
        painter.fillRect(self.rect(), BACKGROUND)
        area = self.main_rect()
        step = _nice_step(110.0 / self.scale)
        self._draw_grid(painter, area, step)
        main = self.main_robots()
        if main:
            on_screen = self._main_on_screen()
            labels = self.label_places(on_screen)
            for robot in main:
                self._draw_robot(painter, robot, on_screen[robot.robot_id],
                                 labels.get(robot.robot_id))
        else:
            painter.setPen(MUTED_INK)
            painter.drawText(area, Qt.AlignmentFlag.AlignCenter,
                             "No robot placed here yet" if not self.robots else
                             "No robot on the earth: robots in their own site frames "
                             "are on the right")
        self._draw_scale_bar(painter, QPointF(14, area.height() - 16), step, self.scale)
        self._draw_north(painter, QPointF(area.right() - 24, 34))
        if self.title:
            painter.setPen(INK)
            painter.drawText(QPointF(10, 6 + self._metrics.ascent()), self.title)
        for robot, tile in self._tiles():
            self._draw_tile(painter, robot, tile)
        hidden = len(self.tile_robots()) - len(self._tiles())
        if hidden > 0:
            painter.setPen(INK)
            painter.drawText(QPointF(area.right() + TILE_GAP, self.height() - 6),
                             f"+{hidden} more in site frames")
        painter.end()

    def _draw_grid(self, painter: QPainter, area: QRectF, step: float) -> None:
        painter.setPen(QPen(GRID, 1))
        west, north = self.to_world(area.topLeft())
        east, south = self.to_world(area.bottomRight())
        if (east - west) / step > 200 or (north - south) / step > 200:
            return
        x = math.floor(west / step) * step
        while x <= east:
            sx = self.to_screen(x, 0).x()
            painter.drawLine(QPointF(sx, area.top()), QPointF(sx, area.bottom()))
            x += step
        y = math.floor(south / step) * step
        while y <= north:
            sy = self.to_screen(0, y).y()
            painter.drawLine(QPointF(area.left(), sy), QPointF(area.right(), sy))
            y += step

    def label_places(self, on_screen: dict[str, QPointF] | None = None) -> dict[str, QRectF]:
        """Where each robot on the map has its label: beside it, on the first side (right
        above, right below, left above, left below) clear of the labels placed before it,
        the active robot's first; a robot with no side clear goes unlabelled (its label
        would print over another's)."""
        robots = sorted(self.main_robots(), key=lambda r: (r.robot_id != self.active,
                                                           r.robot_id))
        wide = self._label_metrics
        height, ascent = float(wide.height()), float(wide.ascent())
        widths = {r.robot_id: self._label_width(r.text) for r in robots}
        taken = _Boxes(max(widths.values(), default=1.0), height)
        places: dict[str, QRectF] = {}
        on_screen = self._main_on_screen() if on_screen is None else on_screen
        for robot in robots:
            at = on_screen[robot.robot_id]
            width = widths[robot.robot_id]
            right, left = at.x() + ARROW_PX * 0.6, at.x() - ARROW_PX * 0.6 - width
            above, below = at.y() - ARROW_PX * 0.45 - ascent, at.y() + ARROW_PX * 0.45
            for x, y in ((right, above), (right, below), (left, above), (left, below)):
                if taken.add_clear(x, y, width, height):
                    places[robot.robot_id] = QRectF(x, y, width, height)
                    break
        return places

    def _draw_robot(self, painter: QPainter, robot: MapRobot, at: QPointF,
                    label_box: QRectF | None) -> None:
        active = robot.robot_id == self.active
        if active:
            painter.setPen(QPen(ACTIVE_RING, 3.0))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawEllipse(at, ARROW_PX * 0.75, ARROW_PX * 0.75)
        pen, brush = self._ink(robot.colour)
        painter.setPen(pen)
        painter.setBrush(brush)
        if robot.yaw is None:
            painter.drawEllipse(at, ARROW_PX * 0.3, ARROW_PX * 0.3)
        else:
            painter.drawPolygon(_arrow(at, robot.yaw))
        if label_box is None:
            return
        painter.setPen(MUTED_INK if robot.muted else INK)
        if active:
            painter.setFont(self._bold)
        metrics = self._label_metrics if active else self._metrics
        painter.drawText(QPointF(label_box.left(), label_box.top() + metrics.ascent()),
                         robot.text)
        if active:
            painter.setFont(self._font)

    def _label_width(self, text: str) -> float:
        """The width of a label at its widest (bold), measured once per text."""
        width = self._widths.get(text)
        if width is None:
            width = self._widths[text] = float(self._label_metrics.horizontalAdvance(text))
        return width

    def _ink(self, colour: str) -> tuple[QPen, QBrush]:
        """A robot's outline and fill in its colour."""
        ink = self._inks.get(colour)
        if ink is None:
            fill = QColor(colour)
            ink = self._inks[colour] = (QPen(fill.darker(180), 1), QBrush(fill))
        return ink

    def _draw_tile(self, painter: QPainter, robot: MapRobot, tile: QRectF) -> None:
        painter.setPen(QPen(GRID.lighter(150), 1))
        painter.setBrush(TILE_BACKGROUND)
        painter.drawRect(tile)
        origin, scale = self._tile_transform(robot, tile)
        painter.setPen(QPen(MUTED_INK, 1))
        painter.drawLine(origin + QPointF(-6, 0), origin + QPointF(6, 0))
        painter.drawLine(origin + QPointF(0, -6), origin + QPointF(0, 6))
        painter.setPen(INK)
        painter.drawText(QRectF(tile.left() + 6, tile.top() + 3, tile.width() - 12, 16),
                         Qt.AlignmentFlag.AlignLeft,
                         self._metrics.elidedText(f"site frame {robot.frame}",
                                                  Qt.TextElideMode.ElideRight,
                                                  int(tile.width() - 12)))
        painter.setPen(MUTED_INK)
        painter.drawText(QRectF(tile.left() + 6, tile.bottom() - 18, tile.width() - 12, 16),
                         Qt.AlignmentFlag.AlignLeft,
                         f"x {robot.x:.1f}  y {robot.y:.1f} m")
        painter.save()
        painter.setClipRect(tile)
        at = QPointF(origin.x() + robot.x * scale, origin.y() - robot.y * scale)
        width = float(self._metrics.horizontalAdvance(robot.robot_id))
        self._draw_robot(painter, robot, at, QRectF(  # alone in its tile: right, above
            at.x() + ARROW_PX * 0.6, at.y() - ARROW_PX * 0.45 - self._metrics.ascent(),
            width, self._metrics.height()))
        painter.restore()

    def _draw_scale_bar(self, painter: QPainter, at: QPointF, step: float,
                        scale: float) -> None:
        length = step * scale
        painter.setPen(QPen(INK, 2))
        painter.drawLine(at, at + QPointF(length, 0))
        painter.drawLine(at + QPointF(0, -4), at + QPointF(0, 4))
        painter.drawLine(at + QPointF(length, -4), at + QPointF(length, 4))
        painter.drawText(at + QPointF(0, -7), _distance(step))

    def _draw_north(self, painter: QPainter, at: QPointF) -> None:
        painter.setPen(QPen(INK, 1.5))
        painter.setBrush(INK)
        painter.drawPolygon(QPolygonF([at + QPointF(0, -14), at + QPointF(-6, 4),
                                       at + QPointF(0, 0), at + QPointF(6, 4)]))
        width = self._metrics.horizontalAdvance(self.north_label)
        painter.drawText(at + QPointF(-width / 2, 18 + self._metrics.ascent() / 2),
                         self.north_label)

    def resizeEvent(self, event: QResizeEvent) -> None:
        if self.following:
            self._fit()
        super().resizeEvent(event)

    # -- the mouse ----------------------------------------------------------------------------
    def wheelEvent(self, event: QWheelEvent) -> None:
        notches = event.angleDelta().y() / 120.0
        if not notches:
            return
        at = event.position()
        if not self.main_rect().contains(at):
            return
        anchor = self.to_world(at)
        self.scale = _clamp(self.scale * ZOOM_PER_NOTCH ** notches)
        area = self.main_rect()
        self.centre = (anchor[0] - (at.x() - area.center().x()) / self.scale,
                       anchor[1] + (at.y() - area.center().y()) / self.scale)
        self.following = False
        self.update()
        event.accept()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self._press = (event.position(), self.centre)
            self._dragged = False

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if self._press is None:
            return
        start, centre = self._press
        delta = event.position() - start
        if not self._dragged and abs(delta.x()) + abs(delta.y()) < DRAG_PX:
            return
        self._dragged = True
        self.following = False
        self.centre = (centre[0] - delta.x() / self.scale, centre[1] + delta.y() / self.scale)
        self.update()

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if self._press is not None and not self._dragged:
            picked = self.robot_at(event.position())
            if picked is not None:
                self.robot_clicked.emit(picked)
        self._press = None

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            picked = self.robot_at(QPointF(event.pos()))
            robot = next((r for r in self.robots if r.robot_id == picked), None)
            if robot is not None:
                QToolTip.showText(event.globalPos(), robot.tooltip or robot.robot_id, self)
            else:
                QToolTip.hideText()
            return True
        return super().event(event)


class _Boxes:
    """Label boxes placed so far, in a grid of cells as big as the biggest box, each box in
    every cell it covers (at most four): a box can only overlap those in the cells it covers
    (a thousand robots' labels, each checked against every other, took seconds)."""

    def __init__(self, cell_w: float, cell_h: float) -> None:
        self._w, self._h = max(cell_w, 1.0), max(cell_h, 1.0)
        # (left, top, right, bottom) of each box: plain floats, as a QRectF's intersects()
        # per pair cost more than the comparison
        self._cells: dict[tuple[int, int], list[tuple[float, float, float, float]]] = {}

    def add_clear(self, x: float, y: float, width: float, height: float) -> bool:
        """Adds the box at (x, y) unless it overlaps one added before; whether it did."""
        right, bottom = x + width, y + height
        w, h, cells = self._w, self._h, self._cells
        covered = [(cx, cy) for cx in range(math.floor(x / w), math.floor(right / w) + 1)
                   for cy in range(math.floor(y / h), math.floor(bottom / h) + 1)]
        for cell in covered:
            for left, top, other_right, other_bottom in cells.get(cell, ()):
                if left < right and x < other_right and top < bottom and y < other_bottom:
                    return False
        box = (x, y, right, bottom)
        for cell in covered:
            cells.setdefault(cell, []).append(box)
        return True


ARROW_TURNS = 360  # headings an arrow is drawn at: a degree turns its tip by a tenth of a px


def _arrow(at: QPointF, yaw: float) -> QPolygonF:
    """An arrowhead centred on ``at`` pointing along ``yaw`` (screen y grows downwards)."""
    return _arrow_at_origin(round(yaw / math.tau * ARROW_TURNS) % ARROW_TURNS).translated(at)


@functools.cache
def _arrow_at_origin(turn: int) -> QPolygonF:
    yaw = turn * math.tau / ARROW_TURNS
    fx, fy = math.cos(yaw), -math.sin(yaw)  # forward on screen
    lx, ly = -fy, fx  # to its side
    return QPolygonF([QPointF((fx * forward + lx * side) * ARROW_PX,
                              (fy * forward + ly * side) * ARROW_PX)
                      for forward, side in ((0.6, 0.0), (-0.4, 0.42), (-0.15, 0.0),
                                            (-0.4, -0.42))])


def _nice_step(metres: float) -> float:
    """1, 2 or 5 times a power of ten, at or below ``metres``."""
    power = 10.0 ** math.floor(math.log10(max(metres, 1e-6)))
    return next((m * power for m in (5.0, 2.0, 1.0) if m * power <= metres), power)


def _distance(metres: float) -> str:
    return f"{metres / 1000:g} km" if metres >= 1000 else f"{metres:g} m"


def _clamp(scale: float) -> float:
    return min(MAX_SCALE, max(MIN_SCALE, scale))
