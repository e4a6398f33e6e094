"""What every simulated robot shares: its own zenoh session, liveliness token, catalog,
rate-scheduled publishers and a command inbox drained on the robot's own thread."""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from app.bus import catalog as catalog_mod
from app.bus.claim_book import ClaimBook
from app.bus.config import BusConfig
from app.bus.control import issuer_of, refusal
from app.bus.keys import DEFAULT_ROOT, robot_key
from app.bus.presence import announce
from app.bus.publisher import Publisher, Traffic
from app.bus.session import BusSession
from app.bus.subscription import RawSample, Subscription
from app.codec.decode import DecodedMessage
from app.codec.errors import DecodeError
from app.codec.registry import registry

log = logging.getLogger(__name__)

TICK_HZ = 100.0
TELEOP_TIMEOUT_S = 0.5  # a robot stops by itself without teleop commands (PROTOCOL.md)
# A late tick (a loaded machine) is integrated in steps no longer than this, so the motion,
# the teleop timeout and the robots' filters come out as they would have on time.
MAX_STEP_S = 2.0 / TICK_HZ
IGNORED_SAID_S = 2.0  # a command ignored for want of control is said at most this often
FLEET_COMMAND = "fleet.Command"


@dataclass
class Topic:
    """One telemetry stream: its catalog entry, publisher and a producer called at rate_hz
    (rate 0 = on change: the producer is polled every tick and returns None when idle)."""

    key: str
    type_name: str
    rate_hz: float
    produce: Callable[[float], tuple[Any, bytes | None] | Any | None]
    frame_id: str = ""  # catalog frameId: the frame of data whose type carries none
    publisher: Publisher | None = None
    next_due: float = 0.0

    def due(self, now: float) -> bool:
        """True when the topic should produce now; advances its schedule."""
        if now < self.next_due:
            return False
        if self.rate_hz > 0:
            self.next_due = max(self.next_due + 1.0 / self.rate_hz, now)
        return True


@dataclass
class CommandInput:
    key: str
    type_name: str
    handle: Callable[[DecodedMessage], None]
    frame_id: str = ""  # catalog frameId, as for topics
    subscription: Subscription | None = None


class SimRobot:
    """Subclasses add topics and commands in ``setup()`` and move in ``step(dt)``."""

    model = "sim"
    families: tuple[str, ...] = ()

    def __init__(self, robot_id: str, name: str, root: str = DEFAULT_ROOT) -> None:
        self.robot_id = robot_id
        self.tick_hz = TICK_HZ
        # A cap on every periodic topic's rate (a depot's light robot: app.sim.fleet); its
        # catalog lists the capped rates.
        self.max_rate_hz = math.inf
        self.name = name
        self.root = root
        self.topics: list[Topic] = []
        self.commands: list[CommandInput] = []
        self.rejected_commands = 0
        self.ignored_not_in_control = 0  # commands from a station not in control
        # Every station's claims of this robot (app.bus.control): who may command it. Set
        # by the session's owner: start(), or app.sim.shared_session for a shared one.
        self.claims: ClaimBook | None = None
        self._ignored_said: dict[str, float] = {}  # issuer -> when its last refusal was said
        self.bus: BusSession | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    # -- declared by subclasses -------------------------------------------------
    def setup(self) -> None:
        """Adds topics and command inputs (called before the session opens)."""

    def step(self, now: float, dt: float) -> None:
        """Advances the robot's physics by dt seconds."""

    # -- helpers for subclasses ---------------------------------------------------
    def key(self, suffix: str) -> str:
        return f"{robot_key(self.robot_id, self.root)}/{suffix}"

    def add_topic(
        self, suffix: str, type_name: str, rate_hz: float, produce: Callable[[float], Any],
        frame_id: str = "",
    ) -> Topic:
        """``frame_id``: the frame of the data when its type carries none (isaac clouds,
        detections, images; bow samples); "" for types that name their frame."""
        if rate_hz > 0:
            rate_hz = min(rate_hz, self.max_rate_hz)
        topic = Topic(self.key(suffix), type_name, rate_hz, produce, frame_id)
        self.topics.append(topic)
        return topic

    def add_command(
        self, suffix: str, type_name: str, handle: Callable[[DecodedMessage], None],
        frame_id: str = "",
    ) -> None:
        self.commands.append(CommandInput(self.key(suffix), type_name, handle, frame_id))

    def new(self, type_name: str, **fields: Any) -> Any:
        return registry().struct(type_name).new_message(**fields)

    def catalog(self) -> catalog_mod.Catalog:
        return catalog_mod.Catalog(
            robot_id=self.robot_id,
            name=self.name,
            model=self.model,
            families=list(self.families),
            topics=[catalog_mod.TopicInfo(t.key, t.type_name, t.rate_hz, t.frame_id)
                    for t in self.topics],
            commands=[catalog_mod.TopicInfo(c.key, c.type_name, 0.0, c.frame_id)
                      for c in self.commands],
        )

    # -- lifecycle ------------------------------------------------------------------
    def start(self, config: BusConfig) -> None:
        """On a session and a thread of its own."""
        bus = BusSession(config)
        self.attach(bus)
        for command in self.commands:
            command.subscription = Subscription(bus, command.key, depth=64)
        self.claims = ClaimBook(bus, self.root, self.robot_id)
        catalog_mod.serve(bus, self.catalog(), self.root)
        announce(bus, self.robot_id, self.root)
        self._thread = threading.Thread(target=self._run, name=self.robot_id, daemon=True)
        self._thread.start()

    def attach(self, bus: BusSession) -> None:
        """Sets the robot up on ``bus`` with its topics' publishers. Its command inputs,
        catalog and token are the session owner's to declare, and :meth:`tick` its to call:
        :meth:`start`, or app.sim.shared_session for robots that share a session."""
        self.bus = bus
        self.setup()
        for topic in self.topics:
            topic.publisher = Publisher(bus, topic.key, topic.type_name, Traffic.TELEMETRY)

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self.bus is not None:
            self.bus.close()

    def _run(self) -> None:
        period = 1.0 / self.tick_hz
        last = time.monotonic()
        while not self._stop.is_set():
            now = time.monotonic()
            self.tick(last, now)
            last = now
            self._stop.wait(max(0.0, period - (time.monotonic() - now)))

    def tick(self, last: float, now: float) -> None:
        """One turn of the robot's loop: the commands that came, the physics from ``last``
        to ``now``, the topics due."""
        self._drain_commands()
        self._advance(last, now)
        self._publish_due(now)

    def _advance(self, last: float, now: float) -> None:
        """Steps the physics from ``last`` to ``now`` in steps of at most MAX_STEP_S."""
        steps = max(1, math.ceil((now - last) / max(MAX_STEP_S, 1.0 / self.tick_hz)))
        dt = (now - last) / steps
        for index in range(1, steps):
            self.step(last + index * dt, dt)
        self.step(now, dt)

    def _drain_commands(self) -> None:
        for command in self.commands:
            if command.subscription is not None:  # else heard for it (shared_session)
                for sample in command.subscription.take():
                    self.obey(command, command.subscription, sample)

    def obey(self, command: CommandInput, heard_by: Subscription, sample: RawSample) -> None:
        """Hands a sample heard on the command's key to its handler if it decodes (by
        ``heard_by``, which counts a failure on its topic) to the type the command takes."""
        try:
            message = heard_by.decode(sample)
        except DecodeError as exc:
            self.rejected_commands += 1
            log.warning("%s: rejected command on %s: %s", self.robot_id, sample.key, exc)
            return
        if message.type_name != command.type_name:
            self.rejected_commands += 1
            log.warning("%s: %s on %s, expected %s", self.robot_id,
                        message.type_name, sample.key, command.type_name)
            return
        refused = self._authority_refusal(message, sample)
        if refused:
            self.ignored_not_in_control += 1
            self._say_ignored(refused, time.monotonic())
            return
        command.handle(message)

    def _authority_refusal(self, message: DecodedMessage, sample: RawSample) -> str:
        """Why a command is ignored under command authority ("" when it is obeyed): an
        e-stop engage from anyone, anything else only from the station in control."""
        if self.claims is None:
            return ""
        root = message.root
        issuer = issuer_of(sample.attachment)
        if message.type_name == FLEET_COMMAND:
            if root.which() == "estop" and root.estop.engage:
                return ""
            issuer = issuer or str(root.issuer)
        return refusal(self.claims.holder(self.robot_id), issuer)

    def _say_ignored(self, why: str, now: float) -> None:
        """Says why a command was ignored, once every IGNORED_SAID_S per reason."""
        if now - self._ignored_said.get(why, -math.inf) < IGNORED_SAID_S:
            return
        self._ignored_said[why] = now
        self.say("warn", why)

    def say(self, level: str, text: str) -> None:
        """A message for the operators ("info", "warn", "error"); robots that report
        messages publish it (the rover's RobotMessage), the others log it."""
        log.info("%s says (%s): %s", self.robot_id, level, text)

    def _publish_due(self, now: float) -> None:
        """Publishes the topics due at this tick, each stamped with the tick's time: what
        the messages describe, however long producing the earlier ones took."""
        assert self.bus is not None
        stamp = None
        for topic in self.topics:
            if not topic.due(now):
                continue
            produced = topic.produce(now)
            if produced is None:
                continue
            message, attachment = produced if isinstance(produced, tuple) else (produced, None)
            if stamp is None:
                stamp = self.bus.timestamp(time.time() - (time.monotonic() - now))
            assert topic.publisher is not None
            topic.publisher.put(message, attachment, timestamp=stamp)
