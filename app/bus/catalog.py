"""The robot catalog: queryable ``fleet/<robotId>/catalog`` and its client.

A robot without a catalog still works: :func:`discover` then listens on
``fleet/<robotId>/**`` for a moment and builds one from what it hears.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from app.bus.keys import DEFAULT_ROOT, catalog_key, robot_key, robot_of
from app.bus.session import BusSession
from app.bus.subscription import Subscription
from app.codec.decode import decode, encoding_for
from app.codec.errors import DecodeError
from app.codec.registry import registry

CATALOG_TYPE = "transport.Catalog"


@dataclass(frozen=True)
class TopicInfo:
    key: str  # the full key, fleet/<robotId>/...
    type: str  # family.Struct, as in the encoding
    rate_hz: float = 0.0  # 0 = on change
    # The frame of a topic whose type carries none (isaac clouds, detections, images; bow
    # samples); "" when the type names its own frame, or unknown (then: base_link).
    frame_id: str = ""
    # Said once and kept for late joiners (a ROS 2 transient-local topic, e.g. /tf_static):
    # heard only while wanted, so each new listener asks for what was said. Not on the wire.
    latched: bool = False


@dataclass
class Catalog:
    robot_id: str
    name: str = ""
    model: str = ""
    families: list[str] = field(default_factory=list)
    topics: list[TopicInfo] = field(default_factory=list)
    commands: list[TopicInfo] = field(default_factory=list)
    discovered: bool = False  # built by listening, not served by the robot

    def to_bytes(self) -> bytes:
        msg = registry().struct(CATALOG_TYPE).new_message(
            robotId=self.robot_id, name=self.name, model=self.model, families=self.families
        )
        for list_name, infos in (("topics", self.topics), ("commands", self.commands)):
            items = msg.init(list_name, len(infos))
            for item, info in zip(items, infos, strict=True):
                item.key, item.type, item.rateHz = info.key, info.type, info.rate_hz
                if info.frame_id:  # left null otherwise: reads as "" all the same
                    item.frameId = info.frame_id
        return msg.to_bytes()

    @classmethod
    def from_reader(cls, reader: Any) -> Catalog:
        def infos(items: Any) -> list[TopicInfo]:
            # A robot built before frameId existed sends 3-field TopicInfos: reads as "".
            return [TopicInfo(i.key, i.type, round(i.rateHz, 3), i.frameId) for i in items]

        return cls(
            robot_id=reader.robotId,
            name=reader.name,
            model=reader.model,
            families=list(reader.families),
            topics=infos(reader.topics),
            commands=infos(reader.commands),
        )

    def command_key(self, type_name: str) -> str | None:
        """The key the robot listens on for commands of this type, if it lists one."""
        return next((c.key for c in self.commands if c.type == type_name), None)


def serve(bus: BusSession, catalog: Catalog, root: str = DEFAULT_ROOT) -> Any:
    key = catalog_key(catalog.robot_id, root)
    payload = catalog.to_bytes()
    encoding = encoding_for(CATALOG_TYPE)
    return bus.declare_queryable(key, lambda query: query.reply(key, payload, encoding=encoding))


def fetch(
    bus: BusSession, robot_id: str, timeout_s: float = 1.0, root: str = DEFAULT_ROOT
) -> Catalog | None:
    """The robot's own catalog, or None if it serves none (or an undecodable one)."""
    for reply in bus.zenoh.get(catalog_key(robot_id, root), timeout=timeout_s):
        catalog = _catalog_of(reply)
        if catalog is not None:
            return catalog
    return None


def fetch_all(bus: BusSession, timeout_s: float = 2.0,
              root: str = DEFAULT_ROOT) -> dict[str, Catalog]:
    """Every robot's catalog that answers one query on ``<root>/*/catalog`` (a depot's
    robots in one round trip, not one each), by robot id."""
    found: dict[str, Catalog] = {}
    for reply in bus.zenoh.get(f"{root}/*/catalog", timeout=timeout_s):
        catalog = _catalog_of(reply)
        robot_id = robot_of(str(reply.ok.key_expr), root) if reply.ok is not None else None
        if catalog is not None and robot_id is not None:
            found[robot_id] = catalog
    return found


def _catalog_of(reply: Any) -> Catalog | None:
    sample = reply.ok
    if sample is None:
        return None
    try:
        message = decode(str(sample.encoding), sample.payload.to_bytes())
    except DecodeError:
        return None
    return Catalog.from_reader(message.root) if message.type_name == CATALOG_TYPE else None


def discover(
    bus: BusSession, robot_id: str, listen_s: float = 1.5, root: str = DEFAULT_ROOT
) -> Catalog:
    """A catalog learnt by listening on ``fleet/<robotId>/**`` for ``listen_s`` seconds.
    Listening cannot tell a topic's frame: every ``frame_id`` is left empty."""
    sub = Subscription(bus, f"{robot_key(robot_id, root)}/**", depth=1)
    try:
        time.sleep(listen_s)
        stats = sub.stats()
    finally:
        sub.close()
    topics = [  # the mean period of what was heard, however late its last came
        TopicInfo(key, s.type_name, round(s.rate_hz(s.last_arrival), 1))
        for key, s in sorted(stats.items())
        if not key.endswith("/catalog")
    ]
    families = sorted({t.type.split(".", 1)[0] for t in topics if "." in t.type})
    return Catalog(robot_id, families=families, topics=topics, discovered=True)


def catalog_of(bus: BusSession, robot_id: str, root: str = DEFAULT_ROOT) -> Catalog:
    return fetch(bus, robot_id, root=root) or discover(bus, robot_id, root=root)
