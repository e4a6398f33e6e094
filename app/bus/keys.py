"""Key expressions of the wire contract (PROTOCOL.md, section Keys)."""

from __future__ import annotations

import functools
import re

import zenoh

DEFAULT_ROOT = "fleet"
ROBOT_ID = re.compile(r"^[A-Za-z0-9_-]+$")

# Fleet envelope union member -> key segment. Upsert/delete asset streams are plural.
UPLINK_SEGMENTS = {
    "status": "status",
    "motion": "motion",
    "battery": "battery",
    "fault": "fault",
    "mission": "mission",
    "object": "objects",
    "reportedShape": "reported_shapes",
    "capabilities": "capabilities",
    "message": "message",
}
COMMAND_SEGMENTS = {
    "teleop": "teleop",
    "goTo": "go_to",
    "estop": "estop",
    "mission": "mission",
    "feature": "features",
    "spatialDirective": "spatial_directives",
    "object": "objects",
    "setting": "setting",
    "service": "service",
}
# A setting or service whose minRole is one of these goes on a key of its own,
# ``.../command/<segment>/<minRole>``: a router's access control sees keys, not payloads
# (schemas/README.md, "Roles and access control").
ROLE_KEYED_MEMBERS = ("setting", "service")
ROLE_KEYED_ROLES = ("admin", "owner")


def check_robot_id(robot_id: str) -> str:
    if not ROBOT_ID.match(robot_id):
        raise ValueError(f"robot id {robot_id!r} is not one key chunk [A-Za-z0-9_-]+")
    return robot_id


def check_key_expr(key_expr: str) -> str:
    """``key_expr`` if zenoh accepts it as a key expression; else ValueError saying why."""
    try:
        zenoh.KeyExpr(key_expr)
    except zenoh.ZError as exc:
        reason = str(exc).split(" at /", 1)[0]  # drop zenoh's source location
        reason = reason.replace("Invalid Key Expr", "invalid key expression", 1)
        raise ValueError(reason or f"invalid key expression {key_expr!r}") from None
    return key_expr


def robot_key(robot_id: str, root: str = DEFAULT_ROOT) -> str:
    return f"{root}/{check_robot_id(robot_id)}"


def catalog_key(robot_id: str, root: str = DEFAULT_ROOT) -> str:
    return f"{robot_key(robot_id, root)}/catalog"


def uplink_key(robot_id: str, member: str, root: str = DEFAULT_ROOT) -> str:
    return f"{robot_key(robot_id, root)}/uplink/{UPLINK_SEGMENTS[member]}"


def command_key(robot_id: str, member: str, root: str = DEFAULT_ROOT,
                min_role: str | int = "") -> str:
    """The key ``Command.<member>`` goes on; for a setting or service, the one of its
    ``min_role`` (fleet.Role, as read: a name, or a number the schema does not know)."""
    key = f"{robot_key(robot_id, root)}/command/{COMMAND_SEGMENTS[member]}"
    if member in ROLE_KEYED_MEMBERS and min_role in ROLE_KEYED_ROLES:
        return f"{key}/{min_role}"
    return key


def command_keys(robot_id: str, member: str, root: str = DEFAULT_ROOT) -> list[str]:
    """Every key ``Command.<member>`` may come on: a robot listens on all of them."""
    key = command_key(robot_id, member, root)
    if member not in ROLE_KEYED_MEMBERS:
        return [key]
    return [key, *(f"{key}/{role}" for role in ROLE_KEYED_ROLES)]


@functools.lru_cache(maxsize=1 << 16)  # a depot's keys, asked on every sample of them
def robot_of(key: str, root: str = DEFAULT_ROOT) -> str | None:
    """The robot id a key belongs to, or None if it is not under ``root/<id>``."""
    parts = key.split("/")
    if len(parts) >= 2 and parts[0] == root and ROBOT_ID.match(parts[1]):
        return parts[1]
    return None


def key_matches(key_expr: str, key: str) -> bool:
    """Whether a concrete key is one of those ``key_expr`` (with ``*``, ``**``) names."""
    if "*" not in key_expr and "$" not in key_expr:
        return key_expr == key
    try:
        return zenoh.KeyExpr(key_expr).intersects(zenoh.KeyExpr(key))
    except zenoh.ZError:
        return False


def key_includes(outer: str, inner: str) -> bool:
    """Whether every key ``inner`` names is also one ``outer`` names."""
    try:
        return bool(zenoh.KeyExpr(outer).includes(zenoh.KeyExpr(inner)))
    except zenoh.ZError:
        return False
