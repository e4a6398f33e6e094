"""The station's config folder without Qt, for the command line: where the window keeps it
(QStandardPaths' AppConfigLocation), or ``FIELDSTATION_CONFIG_DIR`` when set."""

from __future__ import annotations

import os
import sys
from pathlib import Path

ORGANISATION = APPLICATION = "Fieldstation"  # as app.qt.application names the app


def config_dir() -> Path:
    override = os.environ.get("FIELDSTATION_CONFIG_DIR")
    if override:
        return Path(override)
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Preferences"
    else:
        base = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return base / ORGANISATION / APPLICATION
