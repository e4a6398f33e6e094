"""The station: every robot seen, every topic heard, and the feeds its consumers want.

Qt-free. It outlives sessions: :meth:`Station.reconnect` swaps the zenoh session under it
while its feeds and their consumers (panels, controllers, monitors) carry on. A worker
thread opens and closes sessions, follows the connection state and fetches catalogs, so the
GUI thread only reads frozen snapshots.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import math
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from app.bus import catalog as catalog_mod
from app.bus.catalog import Catalog
from app.bus.config import BusConfig, connect_endpoints
from app.bus.diagnose import LinkCheck
from app.bus.keys import DEFAULT_ROOT, UPLINK_SEGMENTS, robot_of
from app.bus.outbox import Outbox
from app.bus.presence import PresenceTracker, RobotPresence
from app.bus.session import BusError, BusSession
from app.bus.stats import TopicStats
from app.bus.subscription import Subscription
from app.codec.errors import DecodeError
from app.codec.fields import get_path
from app.remade import remade
from app.ros2.graph import RosNodeInfo
from app.ros2.source import RosSource, VelocityInputs, velocity_inputs
from app.station.authority import Authority
from app.station.commands import Commander
from app.station.feeds import Consumer, FeedHub
from app.station.identity import StationIdentity
from app.station.incidents import Incidents
from app.station.interests import Interest, Stream
from app.station.lane import Delivery
from app.station.listening import listening_plan
from app.station.playback import LogTraffic
from app.station.positions import FLEET_MOTION, POSE_TYPES, PositionBook
from app.station.robots import BOW_BATTERY, VITALS, RobotInfo, StationStatus, newest_data
from app.station.role import role_of
from app.station.ros2_robot_names import RobotNames
from app.station.vitals import UPLINK_EVENTS, UPLINK_MEMBERS, VitalsBook

if TYPE_CHECKING:  # logs are read only when one is opened: numpy stays off the start-up path
    from app.record.format import LivelinessEvent
    from app.record.player import LogPlayer
    from app.record.reader import LogReader

WORKER_PERIOD_S = 0.5
# A session that could not open (a client whose router is not up yet) is opened again,
# sooner at first: (first wait, longest wait) in seconds
REOPEN_S = (1.0, 5.0)
CATALOG_BATCH = 8  # robots without a catalog from which one query asks them all
CATALOG_RETRY_S = 5.0  # a robot whose catalog did not come is asked again after this,
CATALOG_RETRY_MAX_S = 60.0  # and then twice as long each time, up to this
log = logging.getLogger(__name__)


class Station:
    def __init__(self, config: BusConfig, simulation: bool = False,
                 root: str = DEFAULT_ROOT, identity: StationIdentity | None = None,
                 role: str | None = None, ros_robot_names: RobotNames | None = None) -> None:
        """``identity``: who this station is (app.station.identity.load_identity); a new
        one, kept nowhere, without it. ``role``: the one its credentials name
        (app.station.role.role_of) without it. ``ros_robot_names``: the ids ROS 2 robots
        are known by (app.station.ros2_robot_names), from the first robot seen."""
        self.config = config
        self.root = root
        self.identity = identity or StationIdentity.new()
        self._fixed_role = role
        # who controls each robot, and this station's claims
        self.authority = Authority(self.identity, root, role or role_of(config)[0])
        self.authority.watch(self._on_control)
        self.incidents = Incidents()
        self.feeds = FeedHub(self.incidents, count_error=self._count_error)
        self.status = StationStatus(simulation=simulation, endpoints=_endpoints(config))
        self.active_robot: str | None = None
        self.bus: BusSession | None = None
        self.player: LogPlayer | None = None  # when a log plays instead of a session
        self._robots: dict[str, RobotInfo] = {}
        self._catalog_retry: dict[str, tuple[float, float]] = {}  # id -> (due, interval)
        self._lock = threading.Lock()
        self._traffic: Subscription | LogTraffic | None = None
        self._presence: PresenceTracker | None = None
        self._ros2: RosSource | None = None  # the ROS 2 robots of the session's graph
        self._ros_velocity_inputs: dict[str, str] = {}  # robot id -> the input teleop drives
        self._ros_robot_names = ros_robot_names or RobotNames()  # instead of the rule's ids
        self._link_check: LinkCheck | None = None  # why a retrying session has no link
        self._pending: tuple[BusConfig, bool] | LogReader | None = (config, simulation)
        # a session that did not open, to open again: (config, simulation), when, next wait
        self._reopen: tuple[tuple[BusConfig, bool], float, float] | None = None
        self._wake = threading.Event()
        self._stop = threading.Event()
        self.worker_cpu_s = 0.0
        self._watchers: list[Callable[[RobotInfo], None]] = []
        self._replan_listening = threading.Event()
        self._unheard: frozenset[str] = frozenset()
        self._session_since = -math.inf  # when the last session closed: older samples are its
        self.feeds.on_replan = self._listening_changed
        self.vitals = VitalsBook()
        self.positions = PositionBook()
        # every command the station sends, each naming this station
        self.outbox = Outbox(lambda: self.bus, issuer=self.identity.station_id,
                             refusal=self.authority.permit, root=root)
        self.commands = Commander(self.outbox, root, refusal=self.authority.permit)
        self._vitals = self.feeds.consumer("vitals", on_sample=self._on_vital)
        # States (a battery, a status, a pose) are read newest-first, each key's newest
        # sample when its turn comes: a station behind a thousand robots catches up instead
        # of queueing minutes of them. Events (faults, messages, missions) are read whole.
        self._vitals.want({
            Stream(f"{root}/*/{vital.suffix}", vital.type_name, newest=True)
            for vital in VITALS
        } | {
            Stream(f"{root}/*/uplink/{UPLINK_SEGMENTS[member]}", "fleet.Uplink",
                   newest=member not in UPLINK_EVENTS)
            for member in UPLINK_MEMBERS
        } | {Stream(f"{root}/**", BOW_BATTERY[0], newest=True)} | {
            # every robot's own pose (fleet motion is an uplink above): small keys, heard
            # anyway; passive, so the fleet map never makes the station listen to more
            Stream(f"{root}/**", type_name, passive=True, newest=True)
            for type_name in POSE_TYPES if type_name != FLEET_MOTION
        })
        self._thread = threading.Thread(target=self._run, name="station", daemon=True)
        self._thread.start()

    # -- for consumers -----------------------------------------------------------------------
    def consumer(self, name: str, on_sample: Any = None, on_raw: Any = None) -> Consumer:
        """A consumer that is not a panel; it keeps its interests across reconnects."""
        return self.feeds.consumer(name, on_sample, on_raw)

    def watch_robots(self, on_change: Callable[[RobotInfo], None]) -> Callable[[], None]:
        """Calls ``on_change`` (on a station thread) whenever a robot comes, goes or gets its
        catalog; returns what stops it."""
        self._watchers.append(on_change)
        return lambda: self._watchers.remove(on_change) if on_change in self._watchers \
            else None

    def wake(self) -> None:
        """A frame now (a consumer's picture, decoded on its own thread, is ready)."""
        self.feeds.wake()

    def set_interests(self, wanted: set[Interest]) -> None:
        self.feeds.set_interests(wanted)

    def robots(self) -> list[RobotInfo]:
        """Each robot, with the arrival of its newest data. Commands are left out of that:
        the station hears what it publishes itself (a teleop stream to a dead robot must
        not keep its data looking fresh)."""
        traffic = self._traffic
        arrivals = traffic.last_arrivals() if traffic is not None else {}
        with self._lock:
            robots = sorted(self._robots.values(), key=lambda r: r.robot_id)
        last = newest_data(arrivals, robots, self.root)
        return [remade(r, {"last_data": last.get(r.robot_id)}) for r in robots]

    def ros_nodes(self) -> list[RosNodeInfo]:
        """The nodes of the ROS 2 graph (rmw_zenoh) this station sees, not its own."""
        ros2 = self._ros2
        return ros2.graph.nodes() if ros2 is not None else []

    def ros_definitions(self) -> tuple[list[str], list[str]]:
        """The live ROS 2 robots' own types read from .msg files, and the files refused."""
        ros2 = self._ros2
        return ros2.definitions() if ros2 is not None else ([], [])

    def ros_robot_names_refused(self) -> tuple[str, ...]:
        """The entries of the configured ROS 2 robot names not used, each with why."""
        return self._ros_robot_names.refused

    def ros_velocity_inputs(self, robot_id: str) -> VelocityInputs:
        """A ROS 2 robot's velocity inputs and the one teleop drives (nothing found for a
        robot that is not a ROS 2 one)."""
        ros2 = self._ros2
        robot = ros2.robots().get(robot_id) if ros2 is not None else None
        return velocity_inputs(robot, self._ros_velocity_inputs.get(robot_id))

    def choose_ros_velocity_input(self, robot_id: str, name: str | None) -> None:
        """Teleop drives the ROS 2 robot's input ``name`` (None: by the rule), from now and
        after a reconnect."""
        chosen = dict(self._ros_velocity_inputs)
        if name is None:
            chosen.pop(robot_id, None)
        else:
            chosen[robot_id] = name
        self._ros_velocity_inputs = chosen
        ros2 = self._ros2  # read after the choice: a source made meanwhile has it (_open)
        if ros2 is not None:
            ros2.choose_velocity_inputs(chosen)

    def robot(self, robot_id: str) -> RobotInfo | None:
        """One robot as :meth:`robots` has it, reading only its own topics (the teleop
        clock asks on every tick)."""
        with self._lock:
            info = self._robots.get(robot_id)
        if info is None:
            return None
        traffic = self._traffic
        arrivals = traffic.last_arrivals(f"{self.root}/{robot_id}/") \
            if traffic is not None else {}
        last = newest_data(arrivals, (info,), self.root)
        return dataclasses.replace(info, last_data=last.get(robot_id))

    def topics(self) -> dict[str, TopicStats]:
        """Every topic heard, and the catalogs' heavy topics nobody wants now (not listened
        to: ``listening`` is False)."""
        traffic = self._traffic
        topics = traffic.stats() if traffic is not None else {}
        unheard = self._unheard
        if unheard:
            with self._lock:
                catalogs = [r.catalog for r in self._robots.values() if r.catalog is not None]
            for catalog in catalogs:
                for topic in catalog.topics:
                    if topic.key in unheard:
                        heard = topics.get(topic.key) or TopicStats(
                            topic.key, f"application/capnp;{topic.type}")
                        # a copy: the traffic's snapshots are shared from one call to the next
                        topics[topic.key] = dataclasses.replace(heard, listening=False)
        return topics

    def callback_cpu_s(self) -> float:
        """CPU time spent in the station's own zenoh callback (counting and routing)."""
        traffic = self._traffic
        return traffic.callback_cpu_s if traffic is not None else 0.0

    # -- connection --------------------------------------------------------------------------
    def reconnect(self, config: BusConfig, simulation: bool = False) -> None:
        """Swaps the session (done by the worker thread: returns at once). Robots and topics
        start afresh; feeds and their consumers stay."""
        self.config = config
        self.status = StationStatus(simulation=simulation, endpoints=_endpoints(config))
        self._pending = (config, simulation)
        self._wake.set()

    def play(self, reader: LogReader) -> None:
        """Plays a log in place of the session (done by the worker thread: returns at once).
        Nothing can be sent while a log plays: there is no session to send on."""
        self.status = StationStatus(session="connecting", playback=reader.path.name)
        self._pending = reader
        self._wake.set()

    @property
    def playback(self) -> bool:
        """Whether the station shows a log rather than live robots."""
        return bool(self.status.playback)

    def now(self) -> float:
        """Unix seconds of what the station shows: the clock, or the log's clock in playback."""
        player = self.player
        return player.state().position_ns / 1e9 if player is not None else time.time()

    def close(self, timeout: float = 10.0) -> None:
        self._stop.set()
        self._wake.set()
        self._thread.join(timeout)
        self.outbox.close()
        self._vitals.close()
        self.feeds.close()

    # -- the worker --------------------------------------------------------------------------
    def _run(self) -> None:
        while not self._stop.is_set():
            started = time.thread_time()
            pending, self._pending = self._pending, None
            if pending is None and self._reopen is not None and \
                    time.monotonic() >= self._reopen[1]:
                pending = self._reopen[0]
            if pending is not None and not isinstance(pending, tuple):  # a log
                self._guarded("opening the log", functools.partial(self._open_log, pending))
            elif pending is not None:
                self._guarded("opening the session", functools.partial(self._open, pending))
            if self.bus is not None:
                self._guarded("ROS 2 graph", self._update_ros2)
                self._guarded("listening", self._update_listening)
                self._guarded("connection state", self._update_connection)
                self._guarded("catalogs", self._fetch_catalogs)
            elif self.player is not None:
                self._guarded("playback state", self._update_playback)
            self.worker_cpu_s += time.thread_time() - started
            self._wake.wait(WORKER_PERIOD_S)
            self._wake.clear()
        self._guarded("closing the session", self._close_session)

    def _guarded(self, what: str, work: Any) -> None:
        try:
            work()
        except Exception as exc:  # log, count, carry on: the worker must never die
            self.incidents.record(f"station: {what}", exc)
            self._set_status(internal_errors=self.incidents.count)

    def _open(self, pending: tuple[BusConfig, bool]) -> None:
        config, _simulation = pending
        reconnecting = self.bus is not None  # live before: its critical faults still hold
        again = self._reopen
        self._reopen = None
        self._close_session()
        with self._lock:
            self._robots = {}
        self.vitals.forget(keep_critical=reconnecting, since=self._session_since)
        self.positions.forget()
        try:
            bus = BusSession(config)
        except (BusError, FileNotFoundError) as exc:
            if isinstance(exc, FileNotFoundError) or config.must_connect:  # the command line
                self._set_status(session="error", detail=str(exc))
                log.warning("%s", exc)
                return
            # nothing answered yet (a client before its router): tried again until it does
            wait = again[2] if again is not None and again[0] is pending else REOPEN_S[0]
            self._reopen = (pending, time.monotonic() + wait, min(2 * wait, REOPEN_S[1]))
            self._set_status(session="error", detail=f"{exc} — trying again every "
                                                     f"{REOPEN_S[1]:g} s at most")
            log.warning("%s", exc)
            return
        self.authority.role = self._fixed_role or role_of(config)[0]  # new credentials
        self.authority.attach(bus)  # first: a station with a bus follows control
        self.bus = bus
        self._traffic = Subscription(bus, (), route=self.feeds.route, drain=True)
        self._listening_changed()
        self._presence = PresenceTracker(
            bus, self.root, on_change=functools.partial(self._on_live_presence, bus))
        self._ros2 = RosSource(bus, self.root, functools.partial(self._on_live_presence, bus),
                               functools.partial(self._take_ros2_catalog, bus),
                               self._count_error, self._wake.set, self.identity.station_id,
                               deliver=self._traffic.offer)
        # after it is seen: a choice made while it was being made is in either
        self._ros2.name_robots(self._ros_robot_names.names)
        self._ros2.choose_velocity_inputs(self._ros_velocity_inputs)

    def _open_log(self, reader: LogReader) -> None:
        from app.record.player import LogPlayer

        self._reopen = None  # a log instead of the session that did not open
        self._close_session()
        with self._lock:
            self._robots = {}
        self.vitals.forget(since=self._session_since)
        self.positions.forget()
        traffic = LogTraffic(self.feeds.route, self.root, self._on_catalog)
        self._traffic = traffic
        keys = [c.key for c in reader.channels()]
        for key in keys:
            if key.endswith("/catalog"):
                for logged in reader.samples(keys=[key]):
                    traffic.deliver(logged)
        # A log without presence (another tool's): its robots are there while it plays.
        present = {robot_of(e.key, self.root) for e in reader.liveliness()}
        for robot_id in sorted({r for k in keys if (r := robot_of(k, self.root))} - present):
            self._on_presence(RobotPresence(robot_id, True, time.monotonic()))
        self.player = LogPlayer(reader, traffic.deliver, self._on_log_presence,
                                on_error=self.incidents.record)
        self._set_status(session="playback",
                         detail="; ".join(reader.problems) if reader.problems else "")

    def _close_session(self) -> None:
        self._link_check = None
        bus, self.bus = self.bus, None
        player, self.player = self.player, None
        traffic, self._traffic, self._presence = self._traffic, None, None
        ros2, self._ros2 = self._ros2, None
        self._unheard = frozenset()
        self.authority.detach()  # this station's claims end with the session
        if isinstance(traffic, Subscription):
            traffic.close()  # its drain's thread too
        if ros2 is not None:
            ros2.close()
        if bus is not None:
            bus.close()
        if player is not None:
            player.close()
        self._session_since = time.monotonic()

    def _on_live_presence(self, bus: BusSession, presence: RobotPresence) -> None:
        if bus is self.bus:  # a closing session's tokens vanish after it was replaced
            self._on_presence(presence)

    def _on_log_presence(self, event: LivelinessEvent) -> None:
        robot_id = robot_of(event.key, self.root)
        if robot_id is not None:
            self._on_presence(RobotPresence(robot_id, event.alive, time.monotonic()))

    def _on_catalog(self, robot_id: str, catalog: Catalog) -> None:
        with self._lock:
            info = self._robots.get(robot_id) or RobotInfo(robot_id)
            info = self._robots[robot_id] = dataclasses.replace(info, catalog=catalog)
        self._tell(info)

    def _listening_changed(self) -> None:
        """Robots, catalogs or what is wanted changed: the worker re-plans what to hear."""
        self._replan_listening.set()
        self._wake.set()

    def _update_listening(self) -> None:
        traffic = self._traffic
        if not isinstance(traffic, Subscription) or not self._replan_listening.is_set():
            return
        self._replan_listening.clear()
        with self._lock:
            catalogs = {r.robot_id: r.catalog for r in self._robots.values()}
        plan = listening_plan(self.root, catalogs, self.feeds.wanted())
        traffic.listen(plan.exprs, prompt=plan.heavy)
        self._unheard = plan.unheard

    def _update_ros2(self) -> None:
        if self._ros2 is not None:
            self._ros2.update()

    def _update_playback(self) -> None:
        with self._lock:
            online = sum(r.online for r in self._robots.values())
        self._set_status(robots_online=online,
                         decode_errors=sum(s.error_count for s in self.topics().values()),
                         internal_errors=self.incidents.count)

    def _set_status(self, **changes: Any) -> None:
        self.status = dataclasses.replace(self.status, **changes)

    def _on_presence(self, presence: RobotPresence) -> None:
        with self._lock:
            new = presence.robot_id not in self._robots
            info = self._robots.get(presence.robot_id) or \
                self._controlled(RobotInfo(presence.robot_id))
            info = self._robots[presence.robot_id] = dataclasses.replace(
                info, online=presence.online, changed=presence.changed)
        # The watchers first, then the worker subscribes to the new robot's keys: a recorder
        # logs the robot's arrival before any of its samples (a log played from its start
        # showed robots offline whose first samples came a few ms before their presence).
        self._tell(info)
        if new:
            self._listening_changed()

    def _on_control(self, robot_id: str) -> None:
        """A robot's control changed: its row says who holds it now."""
        with self._lock:
            info = self._robots.get(robot_id)
            if info is None:
                return
            now = self._controlled(info)
            if now == info:
                return
            self._robots[robot_id] = now
        self._tell(now)

    def _controlled(self, info: RobotInfo) -> RobotInfo:
        control = self.authority.control(info.robot_id)
        holder = control.holder
        return dataclasses.replace(info, controlled_by=holder.label if holder else "",
                                   controlled_here=control.mine)

    def _tell(self, info: RobotInfo) -> None:
        for watcher in list(self._watchers):
            try:
                watcher(info)
            except Exception as exc:  # a watcher's failure is its own
                self.incidents.record("station: robot watcher", exc)

    def _count_error(self, key: str, exc: DecodeError) -> None:
        traffic = self._traffic
        if traffic is not None:
            traffic.record_error(key, exc)

    def _update_connection(self) -> None:
        bus = self.bus
        assert bus is not None
        with self._lock:
            online = sum(r.online for r in self._robots.values())
        changes: dict[str, Any] = {
            "robots_online": online,
            "decode_errors": traffic.error_total() if isinstance(
                traffic := self._traffic, Subscription) else 0,
            "internal_errors": self.incidents.count,
        }
        if bus.closed:
            changes["session"] = "offline"
        else:
            info = bus.zenoh.info
            linked = bool(info.peers_zid() or info.routers_zid())
            endpoints = connect_endpoints(bus.zenoh_config)
            if linked or not endpoints:
                self._link_check = None
                changes.update(session="online", detail="")
            else:
                if self._link_check is None:
                    self._link_check = LinkCheck(bus.zenoh_config)
                reason = self._link_check.reason()
                changes.update(session="offline", detail=f"cannot connect to {reason}"
                               if reason else "no link to " + ", ".join(endpoints))
        self._set_status(**changes)

    def _fetch_catalogs(self) -> None:
        now = time.monotonic()
        with self._lock:
            missing = [r.robot_id for r in self._robots.values()
                       if r.online and r.catalog is None]
            # A catalog learnt by listening is asked for again now and then: the robot's
            # own may only have been slow to answer (a loaded robot, a slow link).
            learnt = [r.robot_id for r in self._robots.values()
                      if r.online and r.catalog is not None and r.catalog.discovered
                      and now >= self._catalog_retry.get(r.robot_id, (0.0, 0.0))[0]]
        bus = self.bus
        if len(missing) >= CATALOG_BATCH and bus is not None:
            answered = catalog_mod.fetch_all(bus, root=self.root)
            for robot_id in missing:
                if robot_id in answered:
                    self._take_catalog(bus, robot_id, answered[robot_id], update=False)
            self._update_listening()
            missing = [r for r in missing if r not in answered]
        for robot_id in missing + learnt:
            bus = self.bus
            if bus is None or self._pending is not None or self._stop.is_set():
                return
            found = catalog_mod.fetch(bus, robot_id, timeout_s=1.0, root=self.root)
            if found is None:
                self._retry_catalog_later(robot_id)
                if robot_id in learnt:
                    continue
                found = catalog_mod.discover(bus, robot_id, listen_s=1.0, root=self.root)
            self._take_catalog(bus, robot_id, found)

    def _take_catalog(self, bus: BusSession, robot_id: str, catalog: Catalog,
                      update: bool = True) -> None:
        """A robot's catalog is in; with ``update``, what is heard follows at once (a
        robot's heavy topics go as soon as its catalog is in)."""
        if not catalog.discovered:
            self._catalog_retry.pop(robot_id, None)
        with self._lock:
            info = self._robots.get(robot_id)
            if info is None or bus is not self.bus:
                return
            info = self._robots[robot_id] = dataclasses.replace(info, catalog=catalog)
        self._listening_changed()
        self._tell(info)
        if update:
            self._update_listening()

    def _take_ros2_catalog(self, bus: BusSession, robot_id: str, catalog: Catalog) -> None:
        """A ROS 2 robot's catalog, made again as its graph grows: heard at the worker's
        next listening update (it runs right after the graph's)."""
        self._take_catalog(bus, robot_id, catalog, update=False)

    def _retry_catalog_later(self, robot_id: str) -> None:
        """Each unanswered query waits twice as long for the next (up to a minute): a
        robot that serves no catalog costs the worker a second's wait only now and then."""
        _, interval = self._catalog_retry.get(robot_id, (0.0, CATALOG_RETRY_S / 2))
        interval = min(interval * 2, CATALOG_RETRY_MAX_S)
        self._catalog_retry[robot_id] = (time.monotonic() + interval, interval)

    # -- vitals, read on their keys' lanes --------------------------------------------------------
    def _on_vital(self, delivery: Delivery) -> None:
        key = delivery.sample.key
        robot_id = robot_of(key, self.root)
        if robot_id is None:
            return
        sample = delivery.sample
        if sample.arrival < self._session_since:
            return  # the closed session's, still queued on its lane: it would undo forget()
        type_name = delivery.type_name
        pose_due = type_name in POSE_TYPES and self.positions.due(key, sample.arrival)
        if type_name in POSE_TYPES and type_name != FLEET_MOTION and not pose_due:
            return  # read again a moment later: not decoded now
        try:
            message = delivery.message()
        except DecodeError:
            return  # counted on its topic already
        if pose_due:
            self.positions.offer(robot_id, key, type_name, message.root, sample.arrival,
                                 self._frame_of(robot_id, key))
        self.vitals.offer(robot_id, message.type_name, message.root, sample.arrival,
                          sample.received)
        found = _vitals_of(key, message.type_name, message.root)
        if not found:
            return
        with self._lock:
            info = self._robots.get(robot_id)
            if info is None:
                return
            changes: dict[str, Any] = {}
            for what, value in found:
                if what == "battery":
                    changes["battery_pct"] = float(value)
                elif what == "mode":
                    changes["mode"] = str(value)
                elif what == "estop":
                    changes["estop"] = bool(value)
            if any(getattr(info, name) != value for name, value in changes.items()):
                self._robots[robot_id] = dataclasses.replace(info, **changes)

    def _frame_of(self, robot_id: str, key: str) -> str:
        """The frame its catalog gives a topic ("" when it lists none)."""
        with self._lock:
            info = self._robots.get(robot_id)
        catalog = info.catalog if info is not None else None
        return next((t.frame_id for t in catalog.topics if t.key == key), "") \
            if catalog is not None else ""


def _endpoints(config: BusConfig) -> tuple[str, ...]:
    return tuple(config.connect) or tuple(config.listen)


def _vitals_of(key: str, type_name: str, root: Any) -> list[tuple[str, Any]]:
    found = []
    if type_name == BOW_BATTERY[0]:
        value = get_path(root, BOW_BATTERY[1])
        if value is not None:
            found.append(("battery", value))
    for vital in VITALS:
        if key.endswith("/" + vital.suffix) and type_name == vital.type_name:
            value = get_path(root, vital.path)
            if value is not None:
                found.append((vital.what, value))
    return found
