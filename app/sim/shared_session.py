"""Many simulated robots on one zenoh session, run by one thread: each robot keeps its own
liveliness token, publishers, catalog and command keys, so a station sees a robot of its
own, but a thousand of them cost a few sessions and threads, not thousands (a light depot:
app.sim.light_depot).

zenoh-python runs each callback on a thread of its own, so the session answers its robots'
catalog queries with one queryable on ``<root>/*/catalog`` and hears their commands with one
subscription on each of their command keys' wildcards (``<root>/*/command/teleop``...),
handing each sample to the robot whose key it is."""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from app.bus.catalog import CATALOG_TYPE
from app.bus.claim_book import ClaimBook
from app.bus.config import BusConfig
from app.bus.keys import catalog_key, key_matches, robot_key
from app.bus.presence import announce
from app.bus.session import BusSession
from app.bus.subscription import Subscription
from app.codec.decode import encoding_for
from app.sim.robot import CommandInput, SimRobot

log = logging.getLogger(__name__)

CATALOG_ENCODING = encoding_for(CATALOG_TYPE)

SLOTS = 10  # the thread wakes this often per robot tick, each time for a tenth of the robots
COMMAND_DEPTH = 1024  # commands heard between two turns of the thread (a fiftieth of a second)


class SharedSession:
    """Its robots tick ``tick_hz`` times a second, a slice of them at each of the thread's
    ``SLOTS`` wake-ups a tick, and their topics start at staggered phases: the bus hears
    the robots evenly, not in bursts."""

    def __init__(self, robots: Sequence[SimRobot], tick_hz: float) -> None:
        self.robots = list(robots)
        self.tick_hz = tick_hz
        for robot in self.robots:
            robot.tick_hz = tick_hz  # its physics steps a tick at a time
        self.failures = 0  # a robot's work that raised
        self.bus: BusSession | None = None
        self._catalogs: dict[str, bytes] = {}  # catalog key -> its robot's catalog
        self._inputs: dict[str, tuple[SimRobot, CommandInput]] = {}  # command key -> robot
        self._commands: Subscription | None = None
        self._failed: set[str] = set()
        self._slices = [self.robots[slot::SLOTS] for slot in range(SLOTS)]
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    def start(self, config: BusConfig) -> None:
        bus = self.bus = BusSession(config)
        now = time.monotonic()
        for robot in self.robots:
            robot.attach(bus)
            phase = random.Random(robot.robot_id)
            for topic in robot.topics:
                if topic.rate_hz > 0:
                    topic.next_due = now + phase.random() / topic.rate_hz
            self._catalogs[catalog_key(robot.robot_id, robot.root)] = robot.catalog().to_bytes()
            self._inputs.update((c.key, (robot, c)) for c in robot.commands)
        wildcards = {f"{r.root}/*{c.key.removeprefix(robot_key(r.robot_id, r.root))}"
                     for r, c in self._inputs.values()}
        if wildcards:
            self._commands = Subscription(bus, wildcards, depth=COMMAND_DEPTH)
        roots = {robot.root for robot in self.robots}
        books = {root: ClaimBook(bus, root) for root in roots}  # who may command each robot
        for robot in self.robots:
            robot.claims = books[robot.root]
        for root in roots:
            bus.declare_queryable(f"{root}/*/catalog", self._answer_catalog)
        for robot in self.robots:  # last: a robot seen online answers for its catalog
            announce(bus, robot.robot_id, robot.root)
        name = f"robots {self.robots[0].robot_id}.."
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Ends the thread and closes the session: every robot's token goes with it."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self.bus is not None:
            self.bus.close()

    def _run(self) -> None:
        period = 1.0 / (self.tick_hz * SLOTS)
        due = time.monotonic()
        last = [due] * SLOTS
        turn = 0
        while not self._stop.is_set():
            now = time.monotonic()
            self._obey_commands()
            slot = turn % SLOTS
            for robot in self._slices[slot]:
                self._guard(robot, partial(robot.tick, last[slot], now))
            last[slot] = now
            turn += 1
            # On schedule: a late turn is made up by prompt ones, at most a tick's worth.
            due = max(due + period, time.monotonic() - 1.0 / self.tick_hz)
            self._stop.wait(max(0.0, due - time.monotonic()))

    def _answer_catalog(self, query: Any) -> None:
        """Replies each catalog of ours the query names, as the robot's own queryable would."""
        asked = str(query.key_expr)
        for key, payload in self._catalogs.items():
            if key_matches(asked, key):
                query.reply(key, payload, encoding=CATALOG_ENCODING)

    def _obey_commands(self) -> None:
        if self._commands is None:
            return
        for sample in self._commands.take():
            addressed = self._inputs.get(sample.key)
            if addressed is not None:  # else another session's robot's (or none's)
                robot, command = addressed
                self._guard(robot, partial(robot.obey, command, self._commands, sample))

    def _guard(self, robot: SimRobot, work: Callable[[], None]) -> None:
        """Does a robot's work; a failure is counted, and logged the first time for each
        robot, and the others go on."""
        try:
            work()
        except Exception:
            self.failures += 1
            if robot.robot_id not in self._failed:
                self._failed.add(robot.robot_id)
                log.exception("%s failed (its later failures are only counted)",
                              robot.robot_id)
