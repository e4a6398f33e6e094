"""Another station, in a process of its own, for the race for control: ``python -m
tests.station.racing_station ENDPOINT NAME``. A client of the router at ENDPOINT; prints
``ready <its station id>`` once connected. Then, for each line read:

- ``take ROBOT AT``: waits until the unix time AT (seconds), takes control of ROBOT and
  prints ``took ROBOT ok`` or ``took ROBOT <why not>``, then ``holder ROBOT <station id>``
  once it sees who holds it;
- ``release ROBOT``: gives control back, and prints ``released ROBOT`` once nobody holds it.

It runs until its standard input closes."""

from __future__ import annotations

import sys
import time

from app.bus.config import BusConfig
from app.station.identity import StationIdentity
from app.station.station import Station

SEEN_WITHIN_S = 5.0


def main(endpoint: str, name: str) -> None:
    station = Station(BusConfig(mode="client", connect=[endpoint]),
                      identity=StationIdentity.new(name))
    try:
        while station.bus is None:
            time.sleep(0.01)
        print(f"ready {station.identity.station_id}", flush=True)
        for line in sys.stdin:
            words = line.split()
            if words[:1] == ["take"]:
                robot, at = words[1], float(words[2])
                time.sleep(max(0.0, at - time.time()))
                why = station.authority.take(robot)
                print(f"took {robot} {why or 'ok'}", flush=True)
                print(f"holder {robot} {holder_seen(station, robot)}", flush=True)
            elif words[:1] == ["release"]:
                station.authority.release(words[1])
                until = time.monotonic() + SEEN_WITHIN_S
                while station.authority.control(words[1]).holder is not None and \
                        time.monotonic() < until:
                    time.sleep(0.01)
                print(f"released {words[1]}", flush=True)
    finally:
        station.close()


def holder_seen(station: Station, robot: str) -> str:
    until = time.monotonic() + SEEN_WITHIN_S
    while time.monotonic() < until:
        holder = station.authority.control(robot).holder
        if holder is not None:
            return holder.station_id
        time.sleep(0.01)
    return "none"


if __name__ == "__main__":
    main(*sys.argv[1:3])
