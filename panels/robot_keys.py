"""Keys in a panel's state that follow the active robot, and what to say when the robot a
key names is not there.

A key may name the active robot with the segment ``{robot}``: ``fleet/{robot}/uplink/motion``
is the motion of whichever robot is active, resolved each frame against
``FrameBatch.active_robot``. Shipped layouts name keys this way, so they work on any robot.
"""

from __future__ import annotations

from app.bus.catalog import Catalog
from app.bus.keys import robot_of
from app.station.frame import FrameBatch

ROBOT = "{robot}"
NO_ROBOT_CHOSEN = "no robot chosen"
# Presence is heard within about a second of the session coming up: a robot still missing
# after this long is not there, and the panel says so instead of waiting.
PRESENCE_GRACE_S = 3.0


def follows_active_robot(key: str) -> bool:
    return ROBOT in key


def resolve(key: str, active_robot: str | None) -> str | None:
    """The concrete key: ``key`` itself when it names no placeholder; None when it follows
    the active robot and none is chosen."""
    if not follows_active_robot(key):
        return key
    return key.replace(ROBOT, active_robot) if active_robot else None


class RobotKey:
    """One key a panel shows, fixed or following the active robot, resolved each frame."""

    def __init__(self, template: str) -> None:
        self.template = template
        self.key = resolve(template, None)
        self._missing_since: float | None = None

    def follow(self, batch: FrameBatch) -> bool:
        """Resolves the key for this frame; True when it names another key than before."""
        key = resolve(self.template, batch.active_robot)
        if key == self.key:
            return False
        self.key, self._missing_since = key, None
        return True

    def absence(self, batch: FrameBatch, root: str) -> str:
        """What to say instead of waiting for data: no robot chosen, the robot the key names
        is not online (once the station has been online a while without it), or its catalog
        does not list the key; "" while waiting is right."""
        if self.key is None:
            return NO_ROBOT_CHOSEN
        robot = robot_of(self.key, root)
        info = next((r for r in batch.robots if r.robot_id == robot), None)
        online = info is not None and info.online
        if robot is None or online or batch.status.session != "online":
            self._missing_since = None
            return unlisted(self.key, info.catalog, robot, root) \
                if info is not None and robot is not None else ""
        if self._missing_since is None:
            self._missing_since = batch.now
        if batch.now - self._missing_since < PRESENCE_GRACE_S:
            return ""
        return f"no robot {robot} online"


def unlisted(key: str, catalog: Catalog | None, robot: str, root: str) -> str:
    """What to say of a key the robot's own catalog does not list (it will not publish it:
    a layout made on another robot); "" while the catalog is not in or was only learnt by
    listening."""
    if catalog is None or catalog.discovered or any(t.key == key for t in catalog.topics):
        return ""
    return f"{robot} does not publish {key.removeprefix(f'{root}/{robot}/')} (not in its catalog)"
