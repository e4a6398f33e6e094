"""Driving one robot from the station: the controller, the robot's output adapter, the link
monitor, the stop bursts and the e-stop senders, put together.

A session is a consumer of the station model, not of a panel: it lives while teleop is
wanted (the window, or ``fieldstation teleop``), follows the robot chosen, and keeps working
across reconnects (it asks the station for the current session each time it sends). Inputs
(gamepad, keyboard, on-screen stick) hand it plain readings.

Stops are never dropped at the station: every stop (the arming machine's, and the burst a
robot gets when it stops being driven) goes with :attr:`Traffic.STOP`; live commands stay
:attr:`Traffic.TELEOP`. An engaged e-stop belongs to the robots it was sent to: each keeps
its own sender, repeating until that robot reports it, whatever robot is selected after.
"""

from __future__ import annotations

import dataclasses
import math
import threading
import time
from dataclasses import dataclass
from typing import Protocol

from app.bus.outbox import Outbox, Outgoing
from app.bus.publisher import Traffic
from app.inputs.model import InputState
from app.station.authority import OWNER, Authority, Control
from app.station.commands import next_seq
from app.station.robots import RobotInfo
from app.station.vitals import Fault, VitalsBook
from app.teleop.adapters import OutputAdapter, adapter_for
from app.teleop.arming import ArmingConfig
from app.teleop.arming import LinkStatus as ArmingLink
from app.teleop.bursts import StopBursts
from app.teleop.controller import TeleopController, TeleopStatus
from app.teleop.estop import EStopSender, EStopStatus
from app.teleop.link import LinkMonitor, LinkStatus
from app.teleop.model import Motion
from app.teleop.profiles import DEFAULT, Profile

CRITICAL = "critical"
TAKE_RETRY_S = 1.0  # the deadman held on a robot still free: control asked again after this
TAKING = "taking control…"
FLUSH_S = 1.0  # at most this long for the stops to be handed to zenoh
ESTOP_GRACE_S = 1.0  # on close, unconfirmed e-stops keep going this long at most


class TeleopStation(Protocol):
    """What teleop reads of the station and sends through (app.station.station.Station):
    the robots, their vitals, whether a log plays, and the outbox."""

    root: str
    vitals: VitalsBook
    outbox: Outbox
    authority: Authority

    @property
    def playback(self) -> bool: ...

    def robots(self) -> list[RobotInfo]: ...

    def robot(self, robot_id: str) -> RobotInfo | None: ...


@dataclass(frozen=True)
class SessionStatus:
    """What the panel and the command line show."""

    teleop: TeleopStatus
    link: LinkStatus
    estop: EStopStatus | None  # the selected robot's e-stop; None: never engaged here
    output: str  # what is sent: "fleet.Command teleop on fleet/rover-1/command/teleop"


def _fault_text(fault: Fault) -> str:
    text = f"{fault.code}: {fault.message}"
    return f"{text} (reported before the reconnect)" if fault.carried else text


def as_stops(outgoing: list[Outgoing]) -> list[Outgoing]:
    """The same messages with the stops' quality of service."""
    return [dataclasses.replace(out, traffic=Traffic.STOP) for out in outgoing]


class TeleopSession:
    def __init__(self, station: TeleopStation, *, profile: Profile = DEFAULT,
                 rate_hz: float = 20.0,
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
        self._estops: dict[str, EStopSender] = {}  # every robot ever e-stopped here
        self._outbox = station.outbox  # the station's: every command leaves through it
        self._bursts = StopBursts(self._send_stop)
        self._link = LinkMonitor(station)
        self._last_link = LinkStatus(None, False, None, None, None, "no robot selected")
        self._take_at = -math.inf  # when the ticks may next try to take control
        self.controller = TeleopController(
            self._send, profile=profile, link=self._link_now, rate_hz=rate_hz,
            config=ArmingConfig(focus_disarms=focus_disarms), on_estop=self._on_estop)
        self.controller.start()

    # -- what the operator does ------------------------------------------------------------
    def select(self, robot_id: str | None) -> None:
        """Drive ``robot_id`` (None: nobody). The old robot, if anything was sent to it, gets
        its stop burst (spread over a period, on the bursts' thread: this returns at once)
        and nothing after it; the new one waits for the deadman to be pressed again (the
        arming machine sees the switch). Before switching the station's connection, call
        ``select(None)`` then :meth:`flush`."""
        with self._sending:
            with self._lock:
                if robot_id == self._robot:
                    return
                old_adapter, old_robot = self._adapter, self._robot
                self._robot = robot_id
                self._adapter = None
            if old_adapter is not None:
                self._bursts.burst(old_adapter, self.controller.config.stop_count,
                                   self._period_s())
            self._switched = True
            self._hold_estop()
        self._link.select(robot_id)
        self._hand_over(old_robot, robot_id)

    def _hand_over(self, old: str | None, new: str | None) -> None:
        """Control follows what is driven: the old robot's is given back once its stops are
        on the wire (on a thread of its own: the caller may be the GUI); the new one's is
        taken when the deadman is held on it (:meth:`_take_control`)."""
        self._take_at = -math.inf
        authority = self._station.authority

        def give_back(robot: str) -> None:
            if self._bursts.flush(FLUSH_S) and self._robot != robot:
                authority.release(robot)

        if old is not None and old != new:
            threading.Thread(target=give_back, args=(old,), name="teleop control",
                             daemon=True).start()

    def _take_control(self, robot: str, control: Control, now: float) -> None:
        """The deadman held on a robot nobody controls: control is taken (on a thread of
        its own, as taking waits for a rival's claim), and driving starts once it is in."""
        if control.holder is not None or control.taking or now < self._take_at:
            return
        self._take_at = now + TAKE_RETRY_S
        threading.Thread(target=self._station.authority.take, args=(robot,),
                         name="teleop take control", daemon=True).start()

    def flush(self, timeout: float = FLUSH_S) -> bool:
        """Waits until every stop burst asked for has been handed to zenoh (call it after
        ``select(None)`` and before the station's connection is switched); False when the
        bursts did not leave within ``timeout``."""
        return self._bursts.flush(timeout)

    def set_input(self, state: InputState | None, *, tick_here: bool = False) -> None:
        """The latest reading; ``tick_here`` from an input device's own thread (see
        :meth:`TeleopController.set_input`)."""
        self.controller.set_input(state, tick_here=tick_here)

    def set_focus(self, focused: bool) -> None:
        self.controller.set_focus(focused)

    def engage_estop(self) -> None:
        """The e-stop of the selected robot; with none selected, of every robot online."""
        self.controller.engage_estop()

    def release_estop(self, robot_id: str | None = None) -> bool:
        """Releases ``robot_id``'s e-stop (default: the selected robot's); only ever from a
        deliberate act in the GUI or the terminal. False when it was not engaged here."""
        robot = robot_id if robot_id is not None else self._robot
        if robot is not None and self.estop_release_refusal(robot):
            return False
        with self._lock:
            sender = self._estops.get(robot) if robot is not None else None
        released = sender is not None and sender.status().engaged
        if sender is not None and released:
            sender.release()
        self._hold_estop()
        return released

    def estop_release_refusal(self, robot_id: str) -> str:
        """Why this station may not release ``robot_id``'s e-stop ("" when it may): any
        station engages one, only the one in control (or the owner role) releases it."""
        authority = self._station.authority
        control = authority.control(robot_id)
        if control.holder is None or control.mine or authority.role == OWNER:
            return ""
        return f"releasing the e-stop needs control: {control.refusal}"

    def estops(self) -> dict[str, EStopStatus]:
        """Every robot whose e-stop is engaged here, or being released, by robot id."""
        with self._lock:
            senders = dict(self._estops)
        statuses = {robot: sender.status() for robot, sender in senders.items()}
        return {robot: s for robot, s in sorted(statuses.items()) if s.engaged or s.sending}

    def status(self) -> SessionStatus:
        adapter = self._adapter
        output = f"{adapter.type_name} on {adapter.key}" if adapter is not None else ""
        with self._lock:
            sender = self._estops.get(self._robot) if self._robot is not None else None
        return SessionStatus(self.controller.status(), self._last_link,
                             sender.status() if sender is not None else None, output)

    def close(self) -> None:
        """The selected robot's stop burst, handed to zenoh; e-stops not yet reported get
        a moment more; then everything ends."""
        self.select(None)
        self.controller.stop()  # no robot selected: its own stops go nowhere
        self._bursts.flush(FLUSH_S)
        self._bursts.close()
        with self._lock:
            senders = list(self._estops.values())
        deadline = time.monotonic() + ESTOP_GRACE_S
        for sender in senders:
            while sender.status().sending and time.monotonic() < deadline:
                time.sleep(sender.repeat_s)
            sender.close()

    # -- e-stops -----------------------------------------------------------------------------
    def _on_estop(self, engaged: bool) -> None:
        """The controller's e-stop (the operator, the profile's button); a release comes
        only through :meth:`release_estop`."""
        if engaged:
            for robot in self._estop_targets():
                self._sender(robot).engage()

    def _estop_targets(self) -> list[str]:
        if self._station.playback:  # a log's robots are not there: nothing is sent
            return []
        robot = self._robot
        if robot is not None:
            return [robot]
        return sorted(r.robot_id for r in self._station.robots() if r.online)

    def _sender(self, robot_id: str) -> EStopSender:
        with self._lock:
            sender = self._estops.get(robot_id)
            if sender is None:
                sender = self._estops[robot_id] = EStopSender.for_station(self._station,
                                                                          robot_id)
            return sender

    def _engaged_here(self, robot_id: str | None) -> bool:
        """``robot_id``'s e-stop engaged here; for no robot, any robot's."""
        with self._lock:
            senders = list(self._estops.values()) if robot_id is None else \
                [s for s in (self._estops.get(robot_id),) if s is not None]
        return any(s.status().engaged for s in senders)

    def _hold_estop(self) -> None:
        """The controller held in ESTOP iff the selected robot is e-stopped here."""
        self.controller.hold_estop(self._engaged_here(self._robot))

    # -- the controller's side (its clock thread) -------------------------------------------
    def _link_now(self) -> ArmingLink:
        now = time.monotonic()
        link = self._link.check(now)
        self._last_link = link
        robot = link.selected or ""
        control, pending = "", False
        if robot:
            held = self._station.authority.control(robot)
            pending = held.taking or held.holder is None
            control = TAKING if pending else held.refusal
            if pending and self.controller.deadman_held():
                self._take_control(robot, held, now)
        vitals = self._station.vitals.snapshot().get(robot) if robot else None
        status = vitals.status if vitals is not None else None
        battery = vitals.battery.percentage if vitals is not None and \
            vitals.battery is not None else None
        fault = next((_fault_text(f) for f in vitals.faults if f.severity == CRITICAL),
                     "") if vitals is not None else ""
        data_at = None if link.data_age_s is None else now - link.data_age_s
        undrivable = f"{robot} lists no command teleop can drive" \
            if robot and not self._drivable(robot) else ""
        return ArmingLink(robot, link.online, data_at if link.online else None,
                          link.round_trip_s or link.latency_s,
                          bool(status is not None and status.estop), fault, battery,
                          control=control, control_pending=pending, undrivable=undrivable)

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
            seq, now = next_seq("teleop"), time.monotonic()
            outgoing = adapter.messages(motion, seq, now) if armed else \
                as_stops(adapter.stop(seq, now))
            if self._put(outgoing):
                self._link.sent(seq, now)

    def _send_stop(self, adapter: OutputAdapter) -> None:
        """One stop of a burst (the bursts' thread)."""
        self._put(as_stops(adapter.stop(next_seq("teleop stop"), time.monotonic())))

    def _put(self, outgoing: list[Outgoing]) -> bool:
        return bool(self._outbox.send(outgoing))

    def _period_s(self) -> float:
        return 1.0 / self.controller.status().rate_hz

    def _drivable(self, robot: str) -> bool:
        """Whether the robot's catalog lists a command teleop drives (asked without making
        its adapter: a robot only looked at is never sent a stop burst when left)."""
        info = self._station.robot(robot)
        return adapter_for(robot, info.catalog if info is not None else None,
                           self._station.root) is not None

    def _adapter_now(self) -> OutputAdapter | None:
        with self._lock:
            robot = self._robot
            if robot is None:
                return None
            info = self._station.robot(robot)
            catalog = info.catalog if info is not None else None
            if self._adapter is None or self._adapter.robot_id != robot or \
                    catalog is not self._adapter_catalog:
                self._adapter = adapter_for(robot, catalog, self._station.root)
                self._adapter_catalog = catalog
            return self._adapter
