"""Re-arming needs a new press, end to end: a (virtual) game controller pulled and plugged
back with its deadman held, through the gamepad thread and a teleop session, to a simulated
rover over real zenoh. Nothing moves until the deadman is released and pressed again."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from app.bus.config import BusConfig
from app.inputs.gamepad import Gamepad
from app.station.station import Station
from app.teleop.arming import Arming
from app.teleop.session import TeleopSession
from tests.bus.helpers import wait_for
from tests.inputs.virtual_gamepad import VirtualGamepad, joysticks_locked
from tests.sim.running import one_robot
from tests.teleop.test_session_e2e import Sent

pytestmark = pytest.mark.slow
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
REARM = "release the deadman and press it again to drive"


@pytest.fixture
def session(free_endpoint: str) -> Iterator[TeleopSession]:
    with one_robot("rover", free_endpoint, points=2_000):
        station = Station(BusConfig(mode="peer", connect=[free_endpoint]))
        session = TeleopSession(station)
        try:
            wait_for(lambda: any(r.online and r.catalog for r in station.robots()), 8.0)
            session.select("rover-1")
            wait_for(lambda: session.status().link.live, 8.0)
            yield session
        finally:
            session.close()
            station.close()


def held(pad: VirtualGamepad) -> VirtualGamepad:
    pad.set_axis("lefty", -1.0)
    pad.press("leftshoulder")
    return pad


def periods_pass(session: TeleopSession, count: int) -> None:
    """Until the command clock has ticked ``count`` more periods."""
    start = session.controller.status().period.samples
    wait_for(lambda: session.controller.status().period.samples >= start + count, 5.0)


def test_a_pad_replugged_with_the_deadman_held_does_not_drive_until_pressed_again(
        session: TeleopSession) -> None:
    gamepad = Gamepad(session.set_input)
    gamepad.start()
    pads = [VirtualGamepad("Operator pad")]
    sent = Sent(session)
    try:
        wait_for(lambda: session.status().teleop.device == "Operator pad", 5.0)
        periods_pass(session, 2)  # the pad seen at rest
        held(pads[0])
        wait_for(lambda: any(linear > 0 for _, linear, _ in sent.items), 3.0)
        with joysticks_locked():  # pulled and back, deadman held: one change for SDL
            pads[0].unplug()
            pads.append(held(VirtualGamepad("Operator pad")))
        replugged = len(sent.items)
        wait_for(lambda: session.status().teleop.reason == REARM, 3.0)
        periods_pass(session, 10)  # half a second of fresh, held readings
        # still latched (a stall of a loaded machine may show STALE meanwhile: it passes,
        # the latch stays)
        wait_for(lambda: (s := session.status().teleop).state is Arming.DISARMED
                 and s.reason == REARM, 3.0)
        after = sent.items[replugged:]
        assert after and all((linear, angular) == (0.0, 0.0) for _, linear, angular in after)

        pads[1].release("leftshoulder")
        wait_for(lambda: session.status().teleop.reason == "deadman released", 3.0)
        pads[1].press("leftshoulder")

        def armed() -> bool:
            if session.status().teleop.reason == REARM:  # a loaded machine's late tick
                pads[1].release("leftshoulder")
                wait_for(lambda: session.status().teleop.reason != REARM, 3.0)
                pads[1].press("leftshoulder")
            return session.status().teleop.state is Arming.ARMED

        wait_for(armed, 8.0, why=lambda: session.status().teleop.reason)
        wait_for(lambda: sent.items[-1][1] > 0, 3.0)
    finally:
        for pad in pads:
            pad.unplug()
        gamepad.stop()
