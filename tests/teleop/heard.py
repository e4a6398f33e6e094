"""What robots are told: every command any robot of a simulated fleet could take, heard at
its hub, and a controller held as a test says."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

from app.codec.decode import decode
from app.inputs.model import InputState
from app.sim.fleet import SimFleet


@dataclass(frozen=True)
class Command:
    at: float  # time.monotonic() heard
    robot: str
    key: str
    what: str  # "teleop", "estop", ...
    moving: bool
    # time.monotonic() it was sent, from its zenoh timestamp (the sender's clock, which is
    # this machine's): what a rule about sending checks, whatever a loaded machine's
    # delivery adds. ``at`` when the sample carries none.
    sent: float = 0.0


def motion_of(type_name: str, root: Any) -> tuple[str, bool]:
    if type_name == "fleet.Command":
        member = str(root.which())
        if member == "teleop":
            return "teleop", root.teleop.linearMps != 0 or root.teleop.angularRps != 0
        return member, False
    if type_name == "bow.MotorSample":
        loc = root.locomotion
        speeds = (loc.translationalVelocity.x, loc.translationalVelocity.z,
                  loc.rotationalVelocity.y)
        return "teleop", any(v != 0 for v in speeds)
    return type_name, True  # anything else counts as motion: it must not come at all


class Heard:
    """Every command any robot of the fleet could take, heard at the hub: the keys their
    catalogs list, and anything under ``fleet/*/command/``."""

    def __init__(self, fleet: SimFleet) -> None:
        self.keys = {c.key for robot in fleet.robots for c in robot.commands}
        self.items: list[Command] = []
        self._lock = threading.Lock()
        assert fleet.hub is not None
        fleet.hub.declare_subscriber("fleet/**", self._on_sample)

    def _on_sample(self, sample: Any) -> None:
        key = str(sample.key_expr)
        if key not in self.keys and "/command/" not in key:
            return
        message = decode(str(sample.encoding), bytes(sample.payload), None)
        what, moving = motion_of(message.type_name, message.root)
        heard = time.monotonic()
        sent = heard
        if sample.timestamp is not None:
            sent = heard - max(0.0, time.time() - sample.timestamp.get_time().timestamp())
        with self._lock:
            self.items.append(Command(heard, key.split("/")[1], key, what, moving, sent))

    def of(self, robot: str, since: float = 0.0) -> list[Command]:
        with self._lock:
            return [c for c in self.items if c.robot == robot and c.at >= since]


LATCHED = "release the deadman and press it again to drive"


class Pad:
    """A controller held as the test says, read 20 times a second like the gamepad thread.
    With ``regrip``, it does what an operator does when told to: a deadman held through a
    moment that forbade driving (a loaded machine's late tick) is released and pressed."""

    def __init__(self, session: Any, *, regrip: bool = False) -> None:
        self.deadman = False
        self.regrip = regrip
        self.regrips = 0
        self._session = session
        self._stop = threading.Event()
        self._read()  # plugged with the deadman up: a press after this is a fresh one
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(0.05):
            self._read()

    def _read(self) -> None:
        held = self.deadman
        if held and self.regrip and self._session.status().teleop.reason == LATCHED:
            held = False
            self.regrips += 1
        buttons = frozenset({"leftshoulder"}) if held else frozenset()
        self._session.set_input(InputState(axes={"lefty": -1.0}, buttons=buttons,
                                           read_at=time.monotonic(), device="pad"))

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2)
