"""Layout files as the window reads and writes them: the file name a layout's name gets,
and a check that Qt can read a layout's window bytes before any dock is touched."""

from __future__ import annotations

from PySide6.QtCore import QByteArray
from PySide6.QtWidgets import QMainWindow

from app.layouts import Layout, LayoutError


def safe_name(name: str) -> str:
    """A layout's file name (without ``.json``): its name with what no file system takes
    replaced."""
    return "".join(c if c.isalnum() or c in " -_" else "_" for c in name).strip() or "layout"


def check_window_bytes(layout: Layout, source: str) -> None:
    """Raises LayoutError if Qt cannot read the layout's window arrangement, tried on a
    scratch window so the real one is untouched."""
    if not layout.window_state and not layout.geometry:
        return
    scratch = QMainWindow()
    try:
        if layout.window_state and not scratch.restoreState(QByteArray(layout.window_state)):
            raise LayoutError(f"{source}: the saved window arrangement is corrupt")
        if layout.geometry and not scratch.restoreGeometry(QByteArray(layout.geometry)):
            raise LayoutError(f"{source}: the saved window geometry is corrupt")
    finally:
        # Python owns it, so it goes now; deleteLater() would hand it to Qt, which keeps
        # it (a hidden top-level window) until the event loop next turns.
        del scratch
