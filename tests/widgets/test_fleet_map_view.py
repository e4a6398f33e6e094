"""The fleet map widget, by its pixels: a robot is drawn where it is, pointing where it
heads, in its colour; zoom to fit brings every robot on screen; the wheel zooms at the
cursor, a drag pans, a click picks a robot; a robot in a site frame of its own gets a tile."""

from __future__ import annotations

import math

import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QColor, QImage, QWheelEvent
from PySide6.QtWidgets import QApplication

from widgets.fleet_map_view import ACTIVE_RING, FleetMapView, MapRobot

GREEN, RED, MAGENTA = "#3fb950", "#f85149", "#e040fb"


def shown(view: FleetMapView, qtbot) -> QImage:
    qtbot.addWidget(view)
    view.resize(480, 360)
    view.show()
    qtbot.waitExposed(view)
    return view.grab().toImage()


def colour_at(image: QImage, point: QPointF) -> str:
    return QColor(image.pixel(round(point.x()), round(point.y()))).name()


def ringed(image: QImage, point: QPointF) -> bool:
    """Whether the active ring's colour is at ``point`` (give or take a pixel: antialiased)."""
    return any(colour_at(image, point + QPointF(0, dy)) == ACTIVE_RING.name()
               for dy in (-1, 0, 1))


def ahead(at: QPointF, yaw: float, px: float) -> QPointF:
    return QPointF(at.x() + math.cos(yaw) * px, at.y() - math.sin(yaw) * px)


def test_a_robot_is_drawn_at_its_place_pointing_its_heading(qtbot) -> None:
    view = FleetMapView()
    east = MapRobot("east", 30.0, 0.0, 0.0, GREEN)
    north = MapRobot("north", 0.0, 20.0, math.pi / 2, RED)
    view.set_robots([east, north])
    image = shown(view, qtbot)
    for robot in (east, north):
        at = view.to_screen(robot.x, robot.y)
        assert view.rect().contains(at.toPoint())
        assert colour_at(image, ahead(at, robot.yaw, 7)) == robot.colour  # towards its tip
        assert colour_at(image, ahead(at, robot.yaw, -8)) != robot.colour  # behind its notch
    # 30 m east of "north" and 20 m south of it, at one scale
    a, b = view.to_screen(30.0, 0.0), view.to_screen(0.0, 20.0)
    assert (a.x() - b.x()) / 30.0 == pytest_approx(view.scale)
    assert (a.y() - b.y()) / 20.0 == pytest_approx(view.scale)


def test_zoom_to_fit_puts_every_robot_on_screen(qtbot) -> None:
    view = FleetMapView()
    robots = [MapRobot("a", -500.0, 300.0, 0.0, GREEN), MapRobot("b", 800.0, -200.0, 1.0, RED),
              MapRobot("c", 0.0, 0.0, None, MAGENTA)]
    view.set_robots(robots)
    shown(view, qtbot)
    qtbot.mouseMove(view, QPoint(50, 50))
    for _ in range(12):  # zoom far in at a corner: the robots leave the screen
        _wheel(view, QPointF(50, 50), 120)
    assert not view.following
    assert not any(view.rect().contains(view.to_screen(r.x, r.y).toPoint()) for r in robots)
    view.fit()
    image = view.grab().toImage()
    for robot in robots:
        at = view.to_screen(robot.x, robot.y)
        assert view.rect().adjusted(10, 10, -10, -10).contains(at.toPoint())
        assert colour_at(image, ahead(at, robot.yaw or 0.0, 3)) == robot.colour
    assert view.following


def test_the_wheel_zooms_at_the_cursor_and_a_drag_pans(qtbot) -> None:
    view = FleetMapView()
    view.set_robots([MapRobot("a", 0.0, 0.0, 0.0, GREEN), MapRobot("b", 40.0, 30.0, 0.0, RED)])
    shown(view, qtbot)
    cursor = QPointF(100, 90)
    under = view.to_world(cursor)
    scale = view.scale
    _wheel(view, cursor, 240)
    assert view.scale > scale * 1.5
    assert view.to_world(cursor) == (pytest_approx(under[0]), pytest_approx(under[1]))
    before = view.to_screen(0.0, 0.0)
    qtbot.mousePress(view, Qt.MouseButton.LeftButton, pos=QPoint(200, 200))
    qtbot.mouseMove(view, QPoint(260, 170))
    qtbot.mouseRelease(view, Qt.MouseButton.LeftButton, pos=QPoint(260, 170))
    after = view.to_screen(0.0, 0.0)
    assert (after.x() - before.x(), after.y() - before.y()) == (60.0, -30.0)


def test_a_click_picks_the_robot_and_the_active_one_is_ringed(qtbot) -> None:
    view = FleetMapView()
    view.set_robots([MapRobot("a", 0.0, 0.0, 0.0, GREEN), MapRobot("b", 40.0, 30.0, 0.0, RED)])
    image = shown(view, qtbot)
    at = view.to_screen(40.0, 30.0)
    ring = QPointF(at.x(), at.y() + 15)  # on the ring, off the arrow
    assert not ringed(image, ring)
    with qtbot.waitSignal(view.robot_clicked) as picked:
        qtbot.mouseClick(view, Qt.MouseButton.LeftButton, pos=at.toPoint() + QPoint(3, 0))
    assert picked.args == ["b"]
    view.set_active("b")
    assert ringed(view.grab().toImage(), ring)
    assert view.robot_at(QPointF(5, 5)) is None


def test_a_robot_in_its_own_site_frame_gets_a_tile(qtbot) -> None:
    view = FleetMapView()
    view.set_robots([MapRobot("rover", 0.0, 0.0, 0.0, GREEN),
                     MapRobot("car", 12.0, -3.0, math.pi, RED, frame="map")])
    image = shown(view, qtbot)
    assert view.main_rect().width() < view.width() - 150  # the tile column is off the map
    [where] = [p for r, p in view._placed() if r.frame]
    assert where.x() > view.main_rect().right()
    assert colour_at(image, ahead(where, math.pi, 7)) == RED
    with qtbot.waitSignal(view.robot_clicked) as picked:
        qtbot.mouseClick(view, Qt.MouseButton.LeftButton, pos=where.toPoint())
    assert picked.args == ["car"]


def _wheel(view: FleetMapView, at: QPointF, delta: int) -> None:
    event = QWheelEvent(at, view.mapToGlobal(at), QPoint(), QPoint(0, delta),
                        Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
                        Qt.ScrollPhase.NoScrollPhase, False)
    assert event.type() == QEvent.Type.Wheel
    QApplication.sendEvent(view, event)


def pytest_approx(value: float) -> object:
    return pytest.approx(value, abs=1e-6)


def test_robots_side_by_side_never_print_their_labels_over_each_other(qtbot) -> None:
    view = FleetMapView()
    crowd = [MapRobot(f"rover-{i}", 0.3 * (i % 3), 0.2 * (i // 3), 0.0, GREEN)
             for i in range(9)]  # a depot's charging row: within a metre of each other
    view.set_robots(crowd)
    view.active = "rover-4"
    image = shown(view, qtbot)
    places = view.label_places()
    assert "rover-4" in places  # the active robot is always named
    assert len(places) >= 2
    boxes = list(places.values())
    assert not any(a.intersects(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])
    for box in boxes:  # and each label is drawn where it was placed: ink in its box
        assert any(QColor(image.pixel(round(box.left() + dx), round(box.center().y())))
                   .lightness() > 150 for dx in range(int(box.width())))
