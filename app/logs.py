"""Logging: a rotating file in the config dir (everything from INFO) and stderr (warnings)."""

from __future__ import annotations

import logging
import logging.handlers
from pathlib import Path

LOG_NAME = "fieldstation.log"
FORMAT = "%(asctime)s %(levelname)s %(threadName)s %(name)s: %(message)s"
_configured: list[Path | None] = []  # the log file of the first configure(), once called


def configure(config_dir: Path | None) -> Path | None:
    """Sets up the ``fieldstation`` and ``app`` loggers once; returns the log file's path."""
    if _configured:
        return _configured[0]
    root = logging.getLogger()
    root.setLevel(logging.INFO)
    stderr = logging.StreamHandler()
    stderr.setLevel(logging.WARNING)
    stderr.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    root.addHandler(stderr)
    path = None
    if config_dir is not None:
        try:
            config_dir.mkdir(parents=True, exist_ok=True)
            path = config_dir / LOG_NAME
            file = logging.handlers.RotatingFileHandler(path, maxBytes=2_000_000,
                                                        backupCount=3, encoding="utf-8")
            file.setFormatter(logging.Formatter(FORMAT))
            root.addHandler(file)
        except OSError as exc:
            logging.getLogger("fieldstation").warning("no log file in %s: %s", config_dir, exc)
            path = None
    _configured.append(path)
    return path


def log_path() -> Path | None:
    """The log file, once configure() made one."""
    return _configured[0] if _configured else None
