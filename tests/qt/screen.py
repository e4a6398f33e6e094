"""What a user can read and see in a window, for the tests that look at it as a user
would: the panels on screen, the texts of their labels and table cells, the colours of their
pixels."""

from __future__ import annotations

from typing import Any

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QAbstractItemView, QLabel, QTreeWidget, QWidget

from app.qt.main_window import MainWindow
from panels.battery import BatteryPanel
from panels.robots import RobotsPanel
from panels.scene3d import Scene3DPanel


def on_screen(widget: QWidget) -> bool:
    return widget.isVisible() and not widget.visibleRegion().isEmpty()


def panel_of(window: MainWindow, kind: type[Any]) -> Any:
    found = [p for p in window.panels().values() if isinstance(p, kind) and on_screen(p)]
    assert found, f"no {kind.__name__} on screen"
    return found[0]


def table_rows(view: QAbstractItemView) -> list[list[str]]:
    model = view.model()
    return [[str(model.index(row, col).data(Qt.ItemDataRole.DisplayRole) or "")
             for col in range(model.columnCount())] for row in range(model.rowCount())]


def texts_on_screen(window: MainWindow) -> list[str]:
    """Every text the user can read: labels, the cells of tables and lists on screen, the
    battery gauges' painted headline."""
    texts = [w.text() for w in window.findChildren(QLabel) if on_screen(w) and w.text()]
    for view in window.findChildren(QAbstractItemView):
        if on_screen(view):
            texts += [cell for row in table_rows(view) for cell in row if cell]
    for panel in window.panels().values():
        if isinstance(panel, BatteryPanel) and on_screen(panel.gauge):
            texts.append(panel.gauge.headline())
    return texts


def shows(window: MainWindow, text: str) -> bool:
    return any(text in t for t in texts_on_screen(window))


def colour_share(image: np.ndarray, rgb: tuple[int, int, int], tolerance: int = 40) -> float:
    """The share of ``image``'s pixels within ``tolerance`` of ``rgb`` on every channel."""
    close = np.abs(image[..., :3].astype(int) - np.array(rgb)).max(axis=-1) <= tolerance
    return float(close.mean())


def grabbed(widget: QWidget) -> np.ndarray:
    image = widget.grab().toImage().convertToFormat(QImage.Format.Format_RGB888)
    return np.array(image.constBits(), np.uint8).reshape(
        image.height(), image.bytesPerLine())[:, :image.width() * 3].reshape(
        image.height(), image.width(), 3)


def robot_online(window: MainWindow, robot_id: str) -> bool:
    return any(r.robot_id == robot_id and r.online for r in window.station.robots())


def robots_row(window: MainWindow, robot_id: str) -> list[str]:
    """The Robots panel's row of a robot, as its cells read."""
    panel = panel_of(window, RobotsPanel)
    view = next((v for v in panel.findChildren(QAbstractItemView) if on_screen(v)), None)
    if view is None:  # the list not shown yet (a hint in its place)
        return []
    return next((row for row in table_rows(view) if any(robot_id in c for c in row)), [])


def layer_status(window: MainWindow, suffix: str) -> str:
    """The 3D layer list's status text of a layer."""
    tree = panel_of(window, Scene3DPanel).findChild(QTreeWidget)
    items = [tree.topLevelItem(i) for i in range(tree.topLevelItemCount())]
    return next((i.text(1) for i in items if i.text(0).endswith(suffix)), "")
