"""Where the station's file dialogs start, instead of the process's working directory."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QStandardPaths


def pictures_folder() -> Path:
    """The user's pictures folder (``~/Pictures``), or home where there is none."""
    location = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.PicturesLocation)
    return Path(location) if location and Path(location).is_dir() else Path.home()
