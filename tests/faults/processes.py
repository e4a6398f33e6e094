"""Parts of a fleet run as processes of their own, so a test can SIGKILL them: a bare zenoh
router, or one simulated robot as a client of a router.

    python -m tests.faults.processes router ENDPOINT
    python -m tests.faults.processes rover|humanoid|car ENDPOINT [LIDAR_HZ]

Each prints ``ready`` and the time (``time.monotonic()``) once it is up, and runs until
its stdin closes (or it is killed).
"""

from __future__ import annotations

import select
import signal
import subprocess
import sys
import time
from pathlib import Path

from app.bus.config import BusConfig
from app.bus.session import BusSession
from app.sim.fleet import robot_factories
from app.sim.robot import SimRobot

ROOT = Path(__file__).resolve().parents[2]
# The rover's lidar and camera: real clouds and images, cheap enough for a small CI box.
ROBOT_POINTS = 2_000
ROBOT_CAMERA = (64, 48)


def make_robot(kind: str, **options: float) -> SimRobot:
    """A simulated robot of ``kind`` ("rover", "humanoid", "car") with the sizes above."""
    return robot_factories(ROBOT_POINTS, camera_size=ROBOT_CAMERA, **options)[kind]()


def robot_config(endpoint: str) -> BusConfig:
    """A simulated robot's session: a client of the router at ``endpoint``."""
    return BusConfig(mode="client", connect=[endpoint])


class Process:
    """One of the parts above in a child process."""

    def __init__(self, what: str, endpoint: str, *options: str,
                 start_timeout_s: float = 30.0) -> None:
        self.what = what
        self.popen = subprocess.Popen(
            [sys.executable, "-m", "tests.faults.processes", what, endpoint, *options],
            cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self.popen.stdout is not None
        ready, _, _ = select.select([self.popen.stdout], [], [], start_timeout_s)
        line = self.popen.stdout.readline().split() if ready else []
        if line[:1] != ["ready"]:
            self.kill()
            raise AssertionError(f"the {what} process did not start: {line!r}")
        self.ready_at = float(line[1])  # its time.monotonic(), the same clock as ours

    def kill(self) -> float:
        """SIGKILL: no goodbye on the wire, the kernel closes its sockets. Returns when."""
        self.popen.send_signal(signal.SIGKILL)
        killed_at = time.monotonic()
        self.popen.wait(10)
        return killed_at

    def stop(self) -> None:
        if self.popen.poll() is not None:
            return
        assert self.popen.stdin is not None
        self.popen.stdin.close()
        try:
            self.popen.wait(10)
        except subprocess.TimeoutExpired:
            self.kill()


def main(argv: list[str]) -> None:
    what, endpoint, *options = argv
    if what == "router":
        part = BusSession(BusConfig(mode="router", listen=[endpoint]))
        close = part.close
    else:
        robot = make_robot(what, **({"lidar_hz": float(options[0])} if options else {}))
        robot.start(robot_config(endpoint))
        close = robot.stop
    print("ready", time.monotonic(), flush=True)
    sys.stdin.read()  # until the test closes it
    close()


if __name__ == "__main__":
    main(sys.argv[1:])
