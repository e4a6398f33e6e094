"""Creating the QApplication: dark Fusion look, high-DPI, names for settings."""

from __future__ import annotations

import sys

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

ORGANISATION = "Fieldstation"
APPLICATION = "Fieldstation"


def dark_palette() -> QPalette:
    palette = QPalette()
    base, window, text = QColor(30, 32, 36), QColor(40, 43, 48), QColor(220, 222, 226)
    accent, dim = QColor(64, 150, 230), QColor(130, 134, 140)
    for role, color in [
        (QPalette.ColorRole.Window, window), (QPalette.ColorRole.WindowText, text),
        (QPalette.ColorRole.Base, base), (QPalette.ColorRole.AlternateBase, window),
        (QPalette.ColorRole.ToolTipBase, window), (QPalette.ColorRole.ToolTipText, text),
        (QPalette.ColorRole.Text, text), (QPalette.ColorRole.Button, window),
        (QPalette.ColorRole.ButtonText, text), (QPalette.ColorRole.BrightText, QColor("red")),
        (QPalette.ColorRole.Link, accent), (QPalette.ColorRole.Highlight, accent),
        (QPalette.ColorRole.HighlightedText, QColor(255, 255, 255)),
        (QPalette.ColorRole.PlaceholderText, dim),
    ]:
        palette.setColor(role, color)
    for role in (QPalette.ColorRole.Text, QPalette.ColorRole.ButtonText,
                 QPalette.ColorRole.WindowText):
        palette.setColor(QPalette.ColorGroup.Disabled, role, dim)
    return palette


def create_application(argv: list[str] | None = None) -> QApplication:
    """The application object (reused if one exists, as under pytest-qt)."""
    existing = QApplication.instance()
    if isinstance(existing, QApplication):
        return existing
    QGuiApplication.setHighDpiScaleFactorRoundingPolicy(
        Qt.HighDpiScaleFactorRoundingPolicy.PassThrough
    )
    app = QApplication(argv if argv is not None else sys.argv[:1])
    app.setOrganizationName(ORGANISATION)
    app.setApplicationName(APPLICATION)
    app.setStyle("Fusion")
    app.setPalette(dark_palette())
    return app
