"""The on-screen stick with mouse and touch: drags give SDL-signed values clamped to the
circle, letting go springs back to (0, 0), and the dead zone is drawn."""

from __future__ import annotations

import math

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

from widgets.virtual_stick import BASE, DEAD_ZONE, VirtualStick


@pytest.fixture
def stick(qtbot) -> VirtualStick:
    widget = VirtualStick(dead_zone=0.2)
    qtbot.addWidget(widget)
    widget.resize(200, 200)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def travel(stick: VirtualStick) -> float:
    return stick._travel()


def point(stick: VirtualStick, x: float, y: float) -> QPoint:
    """Where the knob is at (x, y)."""
    centre = stick.rect().center()
    return QPoint(round(centre.x() + x * travel(stick)), round(centre.y() + y * travel(stick)))


def test_dragging_up_gives_minus_one_on_y_and_release_springs_back(qtbot, stick) -> None:
    moves: list[tuple[float, float]] = []
    held: list[bool] = []
    stick.moved.connect(lambda x, y: moves.append((x, y)))
    stick.held_changed.connect(held.append)
    QTest.mousePress(stick, Qt.MouseButton.LeftButton, pos=point(stick, 0, 0))
    assert stick.is_held() and held == [True]
    QTest.mouseMove(stick, point(stick, 0, -1))
    x, y = stick.value()
    assert abs(x) < 0.02 and y == pytest.approx(-1.0, abs=0.02)
    QTest.mouseMove(stick, point(stick, 0.5, 0.25))
    assert stick.value() == pytest.approx((0.5, 0.25), abs=0.02)
    QTest.mouseRelease(stick, Qt.MouseButton.LeftButton, pos=point(stick, 0.5, 0.25))
    assert stick.value() == (0.0, 0.0) and not stick.is_held()
    assert moves[-1] == (0.0, 0.0) and held == [True, False]


def test_a_drag_past_the_rim_is_clamped_to_the_circle(stick) -> None:
    QTest.mousePress(stick, Qt.MouseButton.LeftButton, pos=point(stick, 0, 0))
    QTest.mouseMove(stick, point(stick, 1.3, 1.3))
    x, y = stick.value()
    assert math.hypot(x, y) == pytest.approx(1.0, abs=1e-9)
    assert x == pytest.approx(y, abs=0.02) and x > 0
    QTest.mouseRelease(stick, Qt.MouseButton.LeftButton, pos=point(stick, 1.3, 1.3))


def test_a_press_outside_the_stick_does_nothing(stick) -> None:
    stick.resize(400, 200)
    QTest.mousePress(stick, Qt.MouseButton.LeftButton, pos=QPoint(5, 100))
    QTest.mouseMove(stick, QPoint(200, 10))
    assert stick.value() == (0.0, 0.0) and not stick.is_held()
    QTest.mouseRelease(stick, Qt.MouseButton.LeftButton, pos=QPoint(200, 10))


def test_touch_drags_and_springs_back(stick) -> None:
    device = QTest.createTouchDevice()
    QTest.touchEvent(stick, device).press(0, point(stick, 0, 0)).commit()
    assert stick.is_held()
    QTest.touchEvent(stick, device).move(0, point(stick, -1, 0)).commit()
    x, y = stick.value()  # (a touch lands within a few pixels on the offscreen platform)
    assert x == pytest.approx(-1.0, abs=0.05) and abs(y) < 0.06
    QTest.touchEvent(stick, device).release(0, point(stick, -1, 0)).commit()
    assert stick.value() == (0.0, 0.0) and not stick.is_held()


def test_hiding_a_held_stick_lets_go(stick) -> None:
    QTest.mousePress(stick, Qt.MouseButton.LeftButton, pos=point(stick, 0, 0))
    QTest.mouseMove(stick, point(stick, 0, -1))
    stick.hide()
    assert stick.value() == (0.0, 0.0) and not stick.is_held()


def test_the_dead_zone_is_drawn(stick) -> None:
    QTest.mousePress(stick, Qt.MouseButton.LeftButton, pos=point(stick, 0, 0))
    QTest.mouseMove(stick, point(stick, 0, -1))  # the knob out of the way
    inside, outside = point(stick, 0.1, 0.1), point(stick, 0.3, 0.3)
    image = stick.grab().toImage()
    assert image.pixelColor(inside) == DEAD_ZONE
    assert image.pixelColor(outside) == BASE
    stick.set_dead_zone(0.0)
    assert stick.grab().toImage().pixelColor(inside) == BASE
    stick.set_dead_zone(float("nan"))
    assert stick.dead_zone == 0.0
    QTest.mouseRelease(stick, Qt.MouseButton.LeftButton, pos=point(stick, 0, -1))
