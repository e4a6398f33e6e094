"""Builds the zenoh configuration from the command line / connection dialog choices."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import zenoh

DEFAULT_ENDPOINT = "tcp/127.0.0.1:7447"
LEASE_MS = 3000  # a silently vanished robot is reported offline within this
CONNECT_TIMEOUT_MS = 3000
# A lost link (a restarted router, a robot back on the network) is retried at least once a
# second; zenoh's default backs off to 4 s, too slow to be back within 5 s of a restart.
CONNECT_RETRY = '{"period_init_ms": 500, "period_max_ms": 1000, "period_increase_factor": 2}'


@dataclass
class BusConfig:
    # None: the config file's mode, else "peer"; a mode given here overrides the file's.
    mode: str | None = None
    connect: list[str] = field(default_factory=list)
    listen: list[str] = field(default_factory=list)
    config_file: str | None = None
    # Multicast scouting is off unless a config file turns it on: explicit endpoints only.
    scouting: bool = False
    # Fail at open when no connect endpoint answers (the CLI), instead of retrying forever;
    # a station with it does not open its session again after it failed.
    must_connect: bool = False

    @classmethod
    def from_env(cls, **overrides: object) -> BusConfig:
        config = cls(**overrides)  # type: ignore[arg-type]
        if config.config_file is None and os.environ.get("ZENOH_CONFIG"):
            config.config_file = os.environ["ZENOH_CONFIG"]
        return config

    def to_zenoh(self) -> zenoh.Config:
        if self.config_file:
            path = Path(self.config_file)
            if not path.is_file():
                raise FileNotFoundError(f"zenoh config file not found: {path}")
            conf = zenoh.Config.from_file(str(path))
        else:
            conf = zenoh.Config()
            conf.insert_json5("scouting/multicast/enabled", json.dumps(self.scouting))
            conf.insert_json5("scouting/gossip/enabled", json.dumps(self.scouting))
            conf.insert_json5("transport/link/tx/lease", str(LEASE_MS))
            conf.insert_json5("connect/retry", CONNECT_RETRY)
            conf.insert_json5(
                "timestamping/enabled", '{"router": true, "peer": true, "client": true}'
            )
        if self.mode is not None or not self.config_file:
            conf.insert_json5("mode", json.dumps(self.mode or "peer"))
        if self.connect:
            conf.insert_json5("connect/endpoints", json.dumps(self.connect))
            if self.must_connect:
                conf.insert_json5("connect/timeout_ms", str(CONNECT_TIMEOUT_MS))
                conf.insert_json5("connect/exit_on_failure", "true")
        if self.listen:
            conf.insert_json5("listen/endpoints", json.dumps(self.listen))
        elif not self.config_file:
            conf.insert_json5("listen/endpoints", "[]")
        return conf


def per_mode(value: object, mode: str) -> list[str]:
    """A config list that may be given once, or once per mode ({"router": [...], ...})."""
    if isinstance(value, dict):
        value = value.get(mode) or []
    return [str(v) for v in value] if isinstance(value, list) else []


def file_mode(path: str | None) -> str:
    """The station's mode for a config file: "client" if the file says so, else "peer" (the
    two a station can be; also when there is no file, or it cannot be read)."""
    if not path:
        return "peer"
    try:
        mode = session_mode(zenoh.Config.from_file(path))
    except zenoh.ZError:
        return "peer"  # opening the session will say what is wrong with the file
    return "client" if mode == "client" else "peer"


def session_mode(conf: zenoh.Config) -> str:
    return str(json.loads(conf.get_json("mode")) or "peer")


def listen_endpoints(conf: zenoh.Config, mode: str) -> list[str]:
    """The endpoints a session of ``mode`` opened with ``conf`` listens on (a config may
    give one list, or one per mode)."""
    return per_mode(json.loads(conf.get_json("listen/endpoints")), mode)


def connect_endpoints(conf: zenoh.Config) -> list[str]:
    """The endpoints a session opened with ``conf`` connects to."""
    return per_mode(json.loads(conf.get_json("connect/endpoints")), session_mode(conf))


def user_name(config: BusConfig) -> str:
    """The user name the session authenticates with (its config file's
    transport/auth/usrpwd/user); "" with none, or a file that cannot be read (opening the
    session says what is wrong with it)."""
    if not config.config_file:
        return ""
    try:
        user = json.loads(zenoh.Config.from_file(config.config_file)
                          .get_json("transport/auth/usrpwd/user"))
    except (zenoh.ZError, ValueError):
        return ""
    return user if isinstance(user, str) else ""
