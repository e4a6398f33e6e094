"""Driving one robot from the station: the controller, the robot's output adapter, the link
monitor and the e-stop sender, put together.

A session is a consumer of the station model, not of a panel: it lives while teleop is
wanted (the window's teleop panel, or ``fieldstation teleop``), follows the robot chosen,
and keeps working across reconnects (it asks the station for the current session each
time it sends). Inputs (gamepad, keyboard, on-screen stick) hand it plain readings.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

from app.station.commands import next_seq
from app.teleop.adapters import OutputAdapter, Wire, adapter_for
from app.teleop.arming import ArmingConfig
from app.teleop.arming import LinkStatus as ArmingLink
from app.teleop.controller import TeleopController, TeleopStatus
from app.teleop.estop import EStopSender, EStopStatus
from app.teleop.link import LinkMonitor, LinkStatus
from app.teleop.model import InputState, Motion
from app.teleop.profiles import DEFAULT, Profile

CRITICAL = "critical"


@dataclass(frozen=True)
class SessionStatus:
    """What the panel and the command line show."""

    teleop: TeleopStatus
    link: LinkStatus
    estop: EStopStatus | None
    output: str  # what is sent: "fleet.Command teleop on fleet/rover-1/command/teleop"


class TeleopSession:
    def __init__(self, station: Any, *, profile: Profile = DEFAULT, rate_hz: float = 20.0,
                 focus_disarms: bool = True) -> None:
        self._station = station
        self._lock = threading.Lock()
        self._sending = threading.Lock()  # one robot's commands at a time on the wire
        # Robots switched and none driven since: the controller's stops are the old robot's,
        # which select() sent it.
        self._switched = False
        self._robot: str | None = None
        self._adapter: OutputAdapter | None = None
        self._adapter_catalog: object = None  # the catalog the adapter was chosen from
        self._estop: EStopSender | None = None
        self._wire = Wire(lambda: station.bus)
        self._link = LinkMonitor(station)
        self._last_link = LinkStatus(None, False, None, None, None, "no robot selected")
        self.controller = TeleopController(
            self._send, profile=profile, link=self._link_now, rate_hz=rate_hz,
            config=ArmingConfig(focus_disarms=focus_disarms), on_estop=self._on_estop)
        self.controller.start()

    # -- what the operator does ------------------------------------------------------------
    def select(self, robot_id: str | None) -> None:
        """Drive ``robot_id`` (None: nobody). The old robot, if anything was sent to it, gets
        its stops first and nothing after them; the new one waits for the deadman to be
        pressed again (the arming machine sees the switch)."""
        with self._sending:
            with self._lock:
                if robot_id == self._robot:
                    return
                old_estop, old_adapter = self._estop, self._adapter
                self._robot = robot_id
                self._adapter = None
                self._estop = EStopSender.for_station(self._station, robot_id) \
                    if robot_id else None
            if old_adapter is not None:
                now = time.monotonic()
                for _ in range(self.controller.config.stop_count):
                    self._wire.send(old_adapter.stop(next_seq(), now))
            self._switched = True
        self._link.select(robot_id)
        if old_estop is not None:
            old_estop.close()

    def set_input(self, state: InputState | None) -> None:
        self.controller.set_input(state)

    def set_focus(self, focused: bool) -> None:
        self.controller.set_focus(focused)

    def engage_estop(self) -> None:
        self.controller.engage_estop()

    def release_estop(self) -> None:
        """Only ever from a deliberate act in the GUI or the terminal."""
        self.controller.release_estop()

    def status(self) -> SessionStatus:
        adapter = self._adapter
        output = f"{adapter.type_name} on {adapter.key}" if adapter is not None else ""
        estop = self._estop
        return SessionStatus(self.controller.status(), self._last_link,
                             estop.status() if estop is not None else None, output)

    def close(self) -> None:
        self.controller.stop()  # sends its stop burst first
        with self._lock:
            estop, self._estop = self._estop, None
        if estop is not None:
            estop.close()
        self._wire.close()

    # -- the controller's side (its clock thread) -------------------------------------------
    def _link_now(self) -> ArmingLink:
        now = time.monotonic()
        link = self._link.check(now)
        self._last_link = link
        robot = link.selected or ""
        vitals = self._station.vitals.snapshot().get(robot) if robot else None
        status = vitals.status if vitals is not None else None
        battery = vitals.battery.percentage if vitals is not None and \
            vitals.battery is not None else None
        fault = next((f"{f.code}: {f.message}" for f in vitals.faults
                      if f.severity == CRITICAL), "") if vitals is not None else ""
        data_at = None if link.data_age_s is None else now - link.data_age_s
        return ArmingLink(robot, link.online, data_at if link.online else None,
                          link.round_trip_s or link.latency_s,
                          bool(status is not None and status.estop), fault, battery)

    def _send(self, motion: Motion, armed: bool) -> None:
        with self._sending:  # never alongside select(): a robot's stops are its last word
            adapter = self._adapter_now()
            # A step decided for the robot selected before a switch is not the new one's,
            # nor are the stops of control lost over there (its hand, its gear).
            if adapter is None or adapter.robot_id != self._last_link.selected:
                return
            if armed:
                self._switched = False
            elif self._switched:
                return
            seq, now = next_seq(), time.monotonic()
            outgoing = adapter.messages(motion, seq, now) if armed else adapter.stop(seq, now)
            if self._wire.send(outgoing):
                self._link.sent(seq, now)

    def _adapter_now(self) -> OutputAdapter | None:
        with self._lock:
            robot = self._robot
            if robot is None:
                return None
            info = next((r for r in self._station.robots() if r.robot_id == robot), None)
            catalog = info.catalog if info is not None else None
            if self._adapter is None or self._adapter.robot_id != robot or \
                    catalog is not self._adapter_catalog:
                self._adapter = adapter_for(robot, catalog, self._station.root)
                self._adapter_catalog = catalog
            return self._adapter

    def _on_estop(self, engaged: bool) -> None:
        estop = self._estop
        if estop is None:
            return
        if engaged:
            estop.engage()
        else:
            estop.release()
