"""The station: one zenoh session, every robot seen, every topic heard, and the feeds the
visible panels ask for. Qt-free; a worker thread keeps robots and the connection state up
to date so the GUI thread only reads snapshots."""

from __future__ import annotations

import threading
from typing import Any

from app.bus import catalog as catalog_mod
from app.bus.config import BusConfig
from app.bus.keys import DEFAULT_ROOT, robot_of
from app.bus.presence import PresenceTracker, RobotPresence
from app.bus.session import BusError, BusSession
from app.bus.stats import TopicStats
from app.bus.subscription import RawSample, Subscription
from app.codec.errors import DecodeError
from app.codec.fields import get_path
from app.station.feeds import FeedHub, Interest
from app.station.robots import BOW_BATTERY, VITALS, RobotInfo, StationStatus

WORKER_PERIOD_S = 0.5


class Station:
    def __init__(self, config: BusConfig, simulation: bool = False,
                 root: str = DEFAULT_ROOT) -> None:
        self.config = config
        self.root = root
        self.feeds = FeedHub()
        self.status = StationStatus(simulation=simulation,
                                    endpoints=list(config.connect) or list(config.listen))
        self.active_robot: str | None = None
        self._robots: dict[str, RobotInfo] = {}
        self._newest: dict[str, RawSample] = {}  # per key; decoded by the worker
        self._checked: dict[str, int] = {}  # key -> seq of the newest sample decoded
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self.bus: BusSession | None = None
        self._traffic: Subscription | None = None
        self._presence: PresenceTracker | None = None
        self._thread = threading.Thread(target=self._run, name="station", daemon=True)
        self._thread.start()

    # -- snapshots for the GUI thread -------------------------------------------------------
    def robots(self) -> list[RobotInfo]:
        with self._lock:
            return [RobotInfo(**vars(r)) for r in sorted(self._robots.values(),
                                                        key=lambda r: r.robot_id)]

    def topics(self) -> dict[str, TopicStats]:
        return self._traffic.stats() if self._traffic is not None else {}

    def set_interests(self, wanted: set[Interest]) -> None:
        self.feeds.set_interests(wanted)

    # -- the worker ----------------------------------------------------------------------
    def _run(self) -> None:
        try:
            self.bus = BusSession(self.config)
        except (BusError, FileNotFoundError) as exc:
            self.status.session, self.status.detail = "error", str(exc)
            return
        self._presence = PresenceTracker(self.bus, self.root, on_change=self._on_presence)
        self._traffic = Subscription(self.bus, f"{self.root}/**", depth=1,
                                     on_sample=self._on_sample)
        while not self._stop.wait(WORKER_PERIOD_S):
            self._update_connection()
            self._fetch_catalogs()
            self._check_newest()

    def _on_presence(self, presence: RobotPresence) -> None:
        with self._lock:
            info = self._robots.setdefault(presence.robot_id, RobotInfo(presence.robot_id))
            info.online, info.changed = presence.online, presence.changed

    def _on_sample(self, sample: RawSample) -> None:
        self.feeds.offer(sample)
        robot_id = robot_of(sample.key, self.root)
        if robot_id is None:
            return
        info = self._robots.get(robot_id)
        if info is not None:
            info.last_data = sample.arrival
        self._newest[sample.key] = sample

    def _update_connection(self) -> None:
        assert self.bus is not None
        if self.bus.closed:
            self.status.session = "offline"
            return
        info = self.bus.zenoh.info
        linked = bool(info.peers_zid() or info.routers_zid())
        expected = bool(self.config.connect)
        if linked or not expected:
            self.status.session, self.status.detail = "online", ""
        else:
            self.status.session = "offline"
            self.status.detail = "no link to " + ", ".join(self.config.connect)
        with self._lock:
            self.status.robots_online = sum(r.online for r in self._robots.values())
        self.status.decode_errors = sum(s.error_count for s in self.topics().values())

    def _fetch_catalogs(self) -> None:
        with self._lock:
            missing = [r.robot_id for r in self._robots.values()
                       if r.online and r.catalog is None]
        for robot_id in missing:
            assert self.bus is not None
            found = catalog_mod.fetch(self.bus, robot_id, timeout_s=1.0, root=self.root)
            if found is None:
                found = catalog_mod.discover(self.bus, robot_id, listen_s=1.0, root=self.root)
            with self._lock:
                if robot_id in self._robots:
                    self._robots[robot_id].catalog = found

    def _check_newest(self) -> None:
        """Decodes the newest sample of each key once: a failure is counted on its topic
        (topics panel, status bar), and robots' vitals are read from what decodes."""
        assert self._traffic is not None
        for key, sample in list(self._newest.items()):
            if self._checked.get(key) == sample.seq:
                continue
            self._checked[key] = sample.seq
            try:
                message = self._traffic.decode(sample)
            except DecodeError:
                continue
            info = self._robots.get(robot_of(key, self.root) or "")
            if info is None:
                continue
            for what, value in _vitals_of(key, message.type_name, message.root):
                with self._lock:
                    if what == "battery":
                        info.battery_pct = float(value)
                    elif what == "mode":
                        info.mode = str(value)
                    elif what == "estop":
                        info.estop = bool(value)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self.feeds.close()
        if self.bus is not None:
            self.bus.close()


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
