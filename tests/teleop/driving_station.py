"""Another station, in a process of its own, driving a robot: ``python -m
tests.teleop.driving_station ENDPOINT NAME ROBOT [grant|decline]``. It takes control, holds
the deadman and the stick forward (as tests.teleop.heard.Pad does), prints ``driving`` once
armed, then ``control: <refusal>`` whenever that changes, until it is killed. Another
station's request for the robot is granted or declined as told (declined by default), and
printed as ``asked by <who>``."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

from app.bus.config import BusConfig
from app.station.identity import StationIdentity
from app.station.station import Station
from app.teleop.arming import Arming
from app.teleop.session import TeleopSession
from tests.teleop.heard import Pad


def main(endpoint: str, name: str, robot: str, answer: str = "decline") -> None:
    station = Station(BusConfig(mode="client", connect=[endpoint]),
                      identity=StationIdentity.new(name))

    def asked(robot_id: str, who: str, reply: Callable[[bool], None]) -> None:
        print(f"asked by {who}", flush=True)
        reply(answer == "grant")

    station.authority.on_request(asked)
    session = TeleopSession(station, focus_disarms=False)
    pad = Pad(session, regrip=True)
    session.select(robot)
    pad.deadman = True
    said, armed = None, False
    while True:
        status = session.status()
        if status.teleop.state is Arming.ARMED and not armed:
            armed = True
            print("driving", flush=True)
        control = station.authority.control(robot).refusal
        if control != said:
            said = control
            print(f"control: {control}", flush=True)
        time.sleep(0.02)


if __name__ == "__main__":
    main(*sys.argv[1:5])
