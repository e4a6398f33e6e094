"""The embedded fleet runs in its own process and never outlives the app."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from app.bus.presence import PresenceTracker
from app.station.embedded_sim import EmbeddedSim
from tests.bus.helpers import wait_for

APP_STAND_IN = """
import sys, time
from app.station.embedded_sim import EmbeddedSim
sim = EmbeddedSim(sys.argv[1])
print(sim._process.pid, flush=True)
time.sleep(600)
"""


@pytest.mark.slow
def test_embedded_fleet_appears_and_stops_with_the_app(free_endpoint, open_session) -> None:
    sim = EmbeddedSim(free_endpoint)
    try:
        presence = PresenceTracker(open_session(**vars(sim.bus_config())))
        wait_for(lambda: presence.online() == ["car-1", "humanoid-1", "rover-1"], timeout=15)
    finally:
        sim.stop()
    assert not sim.running


@pytest.mark.slow
def test_embedded_fleet_exits_when_the_app_is_killed(free_endpoint) -> None:
    app = subprocess.Popen([sys.executable, "-c", APP_STAND_IN, free_endpoint],
                           stdout=subprocess.PIPE, text=True)
    assert app.stdout is not None
    sim_pid = int(app.stdout.readline())
    time.sleep(1.0)
    os.kill(app.pid, signal.SIGKILL)
    app.wait()

    def gone() -> bool:
        try:
            os.kill(sim_pid, 0)
        except ProcessLookupError:
            return True
        with open(f"/proc/{sim_pid}/stat") as stat:  # a zombie waiting for init counts
            return stat.read().split()[2] == "Z"

    wait_for(gone, timeout=10)
