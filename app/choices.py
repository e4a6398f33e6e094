"""Small choices the station remembers between runs (the active robot, the teleop input),
each a one-key JSON file in the config dir. A missing or unreadable file is no choice; a
file that cannot be written is logged, never an error for the operator."""

from __future__ import annotations

import json
import logging
from pathlib import Path

log = logging.getLogger(__name__)


def read_choice(config_dir: Path, file_name: str, key: str) -> str | None:
    try:
        value = json.loads((config_dir / file_name).read_text()).get(key)
    except (OSError, ValueError, AttributeError):
        return None
    return value if isinstance(value, str) and value else None


def write_choice(config_dir: Path, file_name: str, key: str, value: str) -> None:
    try:
        config_dir.mkdir(parents=True, exist_ok=True)
        (config_dir / file_name).write_text(json.dumps({key: value}))
    except OSError as exc:
        log.warning("%s was not saved in %s: %s", key, config_dir / file_name, exc)
