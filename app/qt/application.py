"""Creating the QApplication: dark Fusion look, high-DPI, names for settings, and the share of
the cores a software OpenGL may take."""

from __future__ import annotations

import os
import sys

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

ORGANISATION = "Fieldstation"
APPLICATION = "Fieldstation"
CORES_KEPT = 2  # for the GUI thread and the topics' lanes (decoding camera frames, clouds)


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


def limit_software_gl_threads() -> None:
    """Mesa's software renderer (llvmpipe, where there is no GPU) draws with a thread on
    every core besides the one asking; on a 2-core laptop those threads took the core the
    window needed, and its stalls doubled (p99 18 against 29 ms measured, with the 3D view
    drawing about a quarter fewer frames). It gets the cores beyond CORES_KEPT (none on two:
    it draws on the 3D view's render thread alone). Other drivers ignore the setting; one
    the user set is kept. Must run before the QApplication: Mesa reads it when Qt opens the
    display's GL."""
    os.environ.setdefault("LP_NUM_THREADS", str(max(0, (os.cpu_count() or 1) - CORES_KEPT)))


def create_application(argv: list[str] | None = None) -> QApplication:
    """The application object (reused if one exists, as under pytest-qt)."""
    existing = QApplication.instance()
    if isinstance(existing, QApplication):
        return existing
    limit_software_gl_threads()
    QGuiApplication.setHighDpiScaleFactorRoundingPolicy(
        Qt.HighDpiScaleFactorRoundingPolicy.PassThrough
    )
    # Qt's own dialogs, never the desktop's: a native dialog takes the keyboard and the
    # mouse outside Qt, where the e-stop key and the E-STOP laid over a dialog cannot work.
    QApplication.setAttribute(Qt.ApplicationAttribute.AA_DontUseNativeDialogs)
    app = QApplication(argv if argv is not None else sys.argv[:1])
    app.setOrganizationName(ORGANISATION)
    app.setApplicationName(APPLICATION)
    app.setStyle("Fusion")
    app.setPalette(dark_palette())
    return app
