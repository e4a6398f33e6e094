"""What the station knows of each robot: presence, catalog and vitals."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from app.bus.catalog import Catalog
from app.bus.keys import robot_of


@dataclass(frozen=True)
class RobotInfo:
    robot_id: str
    online: bool = False
    changed: float = 0.0  # time.monotonic() of the last online/offline change
    catalog: Catalog | None = None
    battery_pct: float | None = None
    mode: str = ""
    estop: bool = False
    last_data: float | None = None  # time.monotonic() of its newest sample
    # Who controls it (command authority): "" nobody, else the holder's "name (role)";
    # ``controlled_here`` when that is this station.
    controlled_by: str = ""
    controlled_here: bool = False

    @property
    def model(self) -> str:
        return self.catalog.model if self.catalog else ""

    @property
    def name(self) -> str:
        return self.catalog.name if self.catalog and self.catalog.name else self.robot_id

    @property
    def families(self) -> list[str]:
        return self.catalog.families if self.catalog else []


@dataclass(frozen=True)
class Vital:
    """Where a robot's battery or mode is found: a key suffix, a type and a field path."""

    suffix: str
    type_name: str
    path: str
    what: str  # "battery" | "mode" | "estop"


# The vitals of each family the station reads for the robots panel.
VITALS = (
    Vital("uplink/battery", "fleet.Uplink", "battery.percentage", "battery"),
    Vital("uplink/status", "fleet.Uplink", "status.mode", "mode"),
    Vital("uplink/status", "fleet.Uplink", "status.estop", "estop"),
)
# bow robots report their battery inside InteroceptionSample, on any key.
BOW_BATTERY = ("bow.InteroceptionSample", "battery.percentage")


@dataclass(frozen=True)
class StationStatus:
    session: str = "connecting"  # connecting | online | offline | error
    detail: str = ""
    simulation: bool = False
    robots_online: int = 0
    decode_errors: int = 0
    endpoints: tuple[str, ...] = ()
    internal_errors: int = 0
    playback: str = ""  # the log's file name while one plays instead of a session


def newest_data(arrivals: Mapping[str, float], robots: Iterable[RobotInfo],
                root: str) -> dict[str, float]:
    """Each robot's newest data arrival (time.monotonic()) among ``arrivals`` per key,
    commands left out — the keys under ``command/`` and those its catalog lists as
    commands: the station hears what it publishes itself, and a teleop stream to a dead
    robot must not keep its data looking fresh."""
    commands = {c.key for r in robots if r.catalog is not None for c in r.catalog.commands}
    data_of = _DATA_OF.setdefault(root, {})
    last: dict[str, float] = {}
    for key, arrival in arrivals.items():
        robot_id = data_of.get(key, "")
        if robot_id == "":
            robot_id = data_of[key] = _data_of(key, root)
        if robot_id is None or key in commands:
            continue
        if arrival > last.get(robot_id, 0.0):
            last[robot_id] = arrival
    return last


# root -> key -> the robot whose data the key is (None: no robot's, or one of its command
# keys): a depot's keys are looked at twice a second (a robot id is never "")
_DATA_OF: dict[str, dict[str, str | None]] = {}


def _data_of(key: str, root: str) -> str | None:
    robot_id = robot_of(key, root)
    if robot_id is None or key.startswith(f"{root}/{robot_id}/command/"):
        return None
    return robot_id
