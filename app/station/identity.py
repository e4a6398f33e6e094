"""Who this station is: a stable id, made once and kept in the config dir
(``station.json``), and the operator's name, which they may change. Every command carries
the id (app.bus.control); every station shows the name of the one in control."""

from __future__ import annotations

import getpass
import json
import logging
import socket
import uuid
from dataclasses import dataclass, replace
from pathlib import Path

from app.bus.control import valid_station_id

log = logging.getLogger(__name__)

IDENTITY_FILE = "station.json"
NAME_MAX = 64


@dataclass(frozen=True)
class StationIdentity:
    station_id: str
    name: str

    @staticmethod
    def new(name: str = "") -> StationIdentity:
        """A fresh identity (a station with nowhere to keep one: tests, a one-off tool)."""
        return StationIdentity(uuid.uuid4().hex, clean_name(name) or default_name())


def default_name() -> str:
    try:
        user = getpass.getuser()
    except (KeyError, OSError):  # no user name in a container's environment
        user = "operator"
    return clean_name(f"{user}@{socket.gethostname()}") or "operator"


def clean_name(name: str) -> str:
    """One line, no control characters, at most NAME_MAX characters."""
    text = "".join(ch for ch in name if ch.isprintable()).strip()
    return text[:NAME_MAX]


def load_identity(config_dir: Path) -> StationIdentity:
    """The identity kept in ``config_dir``; made and saved there the first time (an
    unreadable or damaged file gets a new one, so the station always has one)."""
    path = config_dir / IDENTITY_FILE
    try:
        data = json.loads(path.read_text())
        station_id, name = data["id"], data["name"]
        if isinstance(station_id, str) and valid_station_id(station_id) and \
                isinstance(name, str) and clean_name(name):
            return StationIdentity(station_id, clean_name(name))
    except FileNotFoundError:
        pass
    except (OSError, ValueError, KeyError, TypeError) as exc:
        log.warning("%s is damaged (%s): this station gets a new identity", path, exc)
    identity = StationIdentity.new()
    save_identity(config_dir, identity)
    return identity


def save_identity(config_dir: Path, identity: StationIdentity) -> str:
    """Why it was not saved ("" when it was)."""
    path = config_dir / IDENTITY_FILE
    try:
        config_dir.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"id": identity.station_id, "name": identity.name}))
    except OSError as exc:
        log.warning("cannot save %s: %s", path, exc)
        return f"not saved: {exc.strerror or exc}"
    return ""


def renamed(config_dir: Path, identity: StationIdentity, name: str) -> StationIdentity:
    """``identity`` with the operator's new name, saved (an empty name keeps the old)."""
    name = clean_name(name)
    if not name:
        return identity
    changed = replace(identity, name=name)
    save_identity(config_dir, changed)
    return changed
