"""What the station listens to: cost grows with what is shown, not with the fleet.

Every robot's small keys are heard (presence, vitals, status, poses: a robot whose catalog
lists nothing heavy is heard whole, on ``<root>/<robotId>/**``). A heavy topic — images,
video, point clouds, grids, audio, tensors — is heard only while a consumer wants it, and so
is a latched one (a ROS 2 robot's /tf_static: a new listener gets its history). A robot
whose catalog is not known yet is heard whole, as the contract says an app learns the topics
of a robot without a catalog; so is a robot that serves none (its catalog learnt by listening
for a moment may miss a slow key, a fault repeated every few seconds, which would then never
be heard). Key expressions a consumer names that belong to no robot seen
are listened to as they are.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from app.bus.catalog import Catalog, TopicInfo
from app.bus.keys import key_includes, key_matches, robot_of
from app.station.interests import Stream

# Types whose samples are big (kilobytes to megabytes each): heard only when wanted.
HEAVY_TYPES = frozenset({
    "foxglove.CompressedImage", "foxglove.RawImage", "foxglove.CompressedVideo",
    "foxglove.PointCloud", "foxglove.Grid",
    "isaac.ImageProto", "isaac.ColorCameraProto", "isaac.DepthCameraProto",
    "isaac.DisparityCameraProto", "isaac.SegmentationCameraProto", "isaac.PointCloudProto",
    "isaac.TensorProto", "isaac.TensorListProto", "isaac.HeatmapProto",
    "isaac.AudioDataProto",
    "bow.ImageSamples", "bow.AudioSamples",
})


def is_heavy(type_name: str) -> bool:
    return type_name in HEAVY_TYPES


@dataclass(frozen=True)
class Wanted:
    """What the station's consumers hold: keys named exactly, and streams on expressions."""

    keys: frozenset[str] = frozenset()
    streams: tuple[Stream, ...] = ()

    def wants(self, key: str, type_name: str) -> bool:
        return key in self.keys or any(
            (not s.type_name or s.type_name == type_name) and key_matches(s.key_expr, key)
            for s in self.streams)


@dataclass(frozen=True)
class Listening:
    exprs: frozenset[str]  # the key expressions to subscribe to
    unheard: frozenset[str]  # catalog topics left out: heavy, and nobody wants them
    heavy: frozenset[str] = frozenset()  # those of exprs that are heavy topics


def listening_plan(root: str, catalogs: Mapping[str, Catalog | None],
                   wanted: Wanted) -> Listening:
    """What to subscribe to, given each robot seen (its catalog, or None while unknown) and
    what is wanted. No two expressions overlap for a robot seen; robots heard whole share
    a few expressions (see :func:`_covering`)."""
    exprs: set[str] = set()
    unheard: set[str] = set()
    heavy_heard: set[str] = set()
    whole_ids: list[str] = []
    split_ids: list[str] = []  # robots heard topic by topic: some heavy topic is left out
    for robot_id, catalog in catalogs.items():
        whole = f"{root}/{robot_id}/**"
        if catalog is None or catalog.discovered or _wants_whole(wanted, whole):
            whole_ids.append(robot_id)
            continue
        if not any(_when_wanted(t) for t in catalog.topics):
            whole_ids.append(robot_id)
            continue
        split_ids.append(robot_id)
        for topic in catalog.topics:
            if not _when_wanted(topic):
                exprs.add(topic.key)
            elif wanted.wants(topic.key, topic.type):
                exprs.add(topic.key)
                if is_heavy(topic.type):
                    heavy_heard.add(topic.key)
            else:
                unheard.add(topic.key)
        exprs.update(c.key for c in catalog.commands if wanted.wants(c.key, c.type))
        exprs.update(k for k in wanted.keys if robot_of(k, root) == robot_id)
    covering = _covering(root, whole_ids, split_ids)
    exprs.update(covering)
    exprs.update(k for k in wanted.keys if robot_of(k, root) not in catalogs
                 and not any(key_matches(c, k) for c in covering))
    exprs.update(s.key_expr for s in wanted.streams if not _names_robots(s.key_expr, root))
    return Listening(frozenset(exprs), frozenset(unheard - exprs), frozenset(heavy_heard))


def _when_wanted(topic: TopicInfo) -> bool:
    """Heavy topics, and latched ones (each new listener must ask for their history)."""
    return is_heavy(topic.type) or topic.latched


def _covering(root: str, whole_ids: list[str], split_ids: list[str]) -> set[str]:
    """Few expressions that hear every robot of ``whole_ids`` whole and no robot of
    ``split_ids``: zenoh matches each sample against every subscriber of the session, so a
    subscriber per robot cost a thousand robots a core in zenoh's own thread. Robots are
    grouped by the start of their ids (``fleet/rover-$*/**``), split only where a robot
    heard topic by topic shares it. A robot not seen yet may fall in a group: it is heard
    whole, as an unknown robot is anyway."""
    patterns: set[str] = set()

    def cover(prefix: str, ids: list[str]) -> None:
        if not any(s.startswith(prefix) for s in split_ids):
            patterns.add(f"{root}/{prefix}$*/**" if prefix else f"{root}/*/**")
            return
        longer: dict[str, list[str]] = {}
        for robot_id in ids:
            if robot_id == prefix:
                patterns.add(f"{root}/{robot_id}/**")
            else:
                longer.setdefault(robot_id[len(prefix)], []).append(robot_id)
        for char, group in longer.items():
            cover(prefix + char, group)

    if whole_ids:
        cover("", whole_ids)
    return patterns


def _wants_whole(wanted: Wanted, whole: str) -> bool:
    """Whether an untyped stream takes every key of the robot (a recorder of everything)."""
    return any(not s.type_name and key_includes(s.key_expr, whole) for s in wanted.streams)


def _names_robots(key_expr: str, root: str) -> bool:
    """Whether an expression falls under ``<root>/<robot>`` (then robots' plans cover it)."""
    first = key_expr.split("/", 1)[0]
    return first == root or first in ("*", "**")

