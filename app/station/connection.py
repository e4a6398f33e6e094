"""How the station connects: the embedded simulated fleet, or real robots."""

from __future__ import annotations

import socket
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from app.bus.config import BusConfig
from app.station.embedded_sim import EmbeddedSim
from app.station.identity import StationIdentity
from app.station.ros2_robot_names import RobotNames
from app.station.station import Station

if TYPE_CHECKING:
    from app.record.reader import LogReader


@dataclass
class ConnectionChoice:
    simulation: bool = True  # start the embedded fleet and connect to it
    mode: str = "peer"
    endpoints: list[str] = field(default_factory=list)
    config_file: str = ""
    listen: list[str] = field(default_factory=list)  # endpoints robots may connect to

    def describe(self) -> str:
        if self.simulation:
            return "embedded simulated fleet"
        listening = f"listening on {', '.join(self.listen)}" if self.listen else ""
        return ", ".join(self.endpoints) or self.config_file or listening or "loopback"

    def to_dict(self) -> dict[str, object]:
        return {"simulation": self.simulation, "mode": self.mode,
                "endpoints": list(self.endpoints), "config_file": self.config_file,
                "listen": list(self.listen)}

    @classmethod
    def from_dict(cls, data: object) -> ConnectionChoice:
        if not isinstance(data, dict):
            return cls()
        endpoints = data.get("endpoints", [])
        listen = data.get("listen", [])
        return cls(
            simulation=bool(data.get("simulation", True)),
            mode="client" if data.get("mode") == "client" else "peer",
            endpoints=[str(e) for e in endpoints] if isinstance(endpoints, list) else [],
            config_file=str(data.get("config_file") or ""),
            listen=[str(e) for e in listen] if isinstance(listen, list) else [],
        )


def free_loopback_endpoint() -> str:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return f"tcp/127.0.0.1:{sock.getsockname()[1]}"


class Connection:
    """The station, and for the simulation the fleet process it talks to. The station lives
    as long as this; switching swaps the session under it and the fleet beside it."""

    def __init__(self, choice: ConnectionChoice, start_sim: bool = True,
                 identity: StationIdentity | None = None,
                 ros_robot_names: RobotNames | None = None) -> None:
        """``start_sim`` False: the embedded fleet's process waits for :meth:`start_sim`.
        ``identity``: who the station is (a new one, kept nowhere, without it);
        ``ros_robot_names``: the ids its ROS 2 robots are known by."""
        self.choice = choice
        self.sim = _start_sim(choice, start_sim)
        self.station = Station(_config(choice, self.sim), simulation=choice.simulation,
                               identity=identity, ros_robot_names=ros_robot_names)
        self._closer: threading.Thread | None = None

    def start_sim(self) -> None:
        if self.sim is not None and self._closer is None:  # not once closing began
            self.sim.start()

    def switch(self, choice: ConnectionChoice) -> None:
        """Returns at once: the old fleet stops, and the new session opens, off this thread."""
        old_sim, self.sim = self.sim, _start_sim(choice)
        self.choice = choice
        self.station.reconnect(_config(choice, self.sim), simulation=choice.simulation)
        if old_sim is not None:
            threading.Thread(target=old_sim.stop, name="stop old fleet").start()

    def play(self, reader: LogReader) -> None:
        """Plays a log in place of the session; the fleet, if any, stops. Returns at once;
        :meth:`switch` goes back to live robots."""
        old_sim, self.sim = self.sim, None
        self.station.play(reader)
        if old_sim is not None:
            threading.Thread(target=old_sim.stop, name="stop old fleet").start()

    def close(self, wait: bool = True) -> None:
        """Closes the station and stops the fleet; without ``wait`` on a thread of its own,
        which the process still waits for at exit (a zenoh session must be closed)."""
        if self._closer is None:
            self._closer = threading.Thread(target=self._close, name="close connection")
            self._closer.start()
        if wait:
            self._closer.join()

    def _close(self) -> None:
        self.station.close()
        if self.sim is not None:
            self.sim.stop()


def _start_sim(choice: ConnectionChoice, start: bool = True) -> EmbeddedSim | None:
    return EmbeddedSim(free_loopback_endpoint(), start) if choice.simulation else None


def _config(choice: ConnectionChoice, sim: EmbeddedSim | None) -> BusConfig:
    if sim is not None:
        return sim.bus_config()
    return BusConfig.from_env(mode=choice.mode, connect=list(choice.endpoints),
                              listen=list(choice.listen),
                              config_file=choice.config_file or None)
