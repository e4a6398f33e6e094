"""The embedded simulated fleet, in its own process so it never steals the GUI's time."""

from __future__ import annotations

import subprocess
import sys

from app.bus.config import BusConfig
from app.priority import lower_process


def sim_command(endpoint: str, robots: str = "rover,humanoid,car") -> list[str]:
    """The command that runs ``fieldstation sim`` from source or from the bundle."""
    frozen = getattr(sys, "frozen", False)
    base = [sys.executable] if frozen else [sys.executable, "-m", "app.cli"]
    return [*base, "sim", "--robots", robots, "--listen", endpoint, "--exit-with-stdin"]


class EmbeddedSim:
    def __init__(self, endpoint: str, start: bool = True) -> None:
        """``start`` False: the fleet process starts at :meth:`start` (the window starts
        it after its first paint, so the two do not share the CPU while it opens)."""
        self.endpoint = endpoint
        self._process: subprocess.Popen[bytes] | None = None
        if start:
            self.start()

    def start(self) -> None:
        if self._process is not None:
            return
        # The fleet watches its stdin: when this process dies, however it dies, the pipe
        # closes and the fleet stops instead of streaming on as an orphan.
        self._process = subprocess.Popen(
            sim_command(self.endpoint), stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
        )
        lower_process(self._process.pid)  # the robots it stands in for run elsewhere

    def bus_config(self) -> BusConfig:
        return BusConfig(mode="peer", connect=[self.endpoint])

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def stop(self) -> None:
        if self._process is None:
            return
        if self._process.stdin is not None:
            self._process.stdin.close()
        if self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
