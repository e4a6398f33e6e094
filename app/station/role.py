"""The station's role (viewer, operator, admin, owner): what the operator may use of a
robot's controls. Chosen in the station's settings (``settings.json`` in the config dir);
operator by default."""

from __future__ import annotations

import json
import logging
from pathlib import Path

from app.station.vitals import Enum

log = logging.getLogger(__name__)

ROLES = ("viewer", "operator", "admin", "owner")  # fleet.Role, lowest first
DEFAULT_ROLE = "operator"
SETTINGS_FILE = "settings.json"


def load_role(config_dir: Path) -> str:
    try:
        role = json.loads((config_dir / SETTINGS_FILE).read_text()).get("role")
    except (OSError, ValueError, AttributeError):
        return DEFAULT_ROLE
    return role if role in ROLES else DEFAULT_ROLE


def save_role(config_dir: Path, role: str) -> str:
    """Saves it among the other settings; returns why not ("" when saved)."""
    if role not in ROLES:
        return f"unknown role {role!r}"
    path = config_dir / SETTINGS_FILE
    try:
        settings = json.loads(path.read_text()) if path.is_file() else {}
        if not isinstance(settings, dict):
            settings = {}
    except (OSError, ValueError):
        settings = {}
    settings["role"] = role
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(settings, indent=1))
    except OSError as exc:
        log.warning("cannot save %s: %s", path, exc)
        return f"role not saved: {exc.strerror or exc}"
    return ""


def refusal(station_role: str, min_role: Enum) -> str:
    """Why a control needing ``min_role`` is off limits to ``station_role`` ("" if it is
    not). A role this station does not know (a newer robot's) is off limits to all."""
    if not isinstance(min_role, str) or min_role not in ROLES:
        return f"needs role {min_role}, unknown to this station"
    if ROLES.index(station_role) < ROLES.index(min_role):
        return f"needs the {min_role} role (this station: {station_role})"
    return ""
