"""The contract between the main window and the panels it docks.

The window never imports ``panels``: the panel registry is found through the
``fieldstation.panels`` entry point, and the window talks to panels only through these
protocols. Panels reach ``app.qt`` only through this module (an import contract): what they
use of the window's input devices (:class:`Operator`, its ``SOURCES``) is named here. A
panel is a QWidget with a stable ``panel_id`` (saved layouts name it).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from app.bus.config import BusConfig
from app.bus.outbox import Outbox
from app.qt.operator import SOURCES, Operator
from app.qt.safety_bar import banner as arming_banner
from app.ros2.graph import RosNodeInfo
from app.ros2.source import VelocityInputs
from app.station.authority import Authority
from app.station.commands import Commander
from app.station.feeds import Consumer
from app.station.frame import FrameBatch
from app.station.interests import Interest
from app.station.positions import PositionBook
from app.station.robots import RobotInfo
from app.station.vitals import VitalsBook

if TYPE_CHECKING:
    from app.record.player import LogPlayer
    from app.teleop.session import TeleopSession

__all__ = ["SOURCES", "TOPIC_MIME", "Operator", "Panel", "PanelClass", "PanelHost",
           "PanelRegistry", "PanelStation", "arming_banner"]

TOPIC_MIME = "application/x-fieldstation-topic"  # drag payload: JSON {"key", "type"}


class PanelStation(Protocol):
    """What a panel may read of the station and ask of it, and no more (not its session,
    its lanes or its other consumers): robots, their vitals and positions, a consumer for
    the streams it shows, the outbox's senders of commands, whether a log plays, and the
    config it connected with (its user name names its role: app.station.role)."""

    root: str
    config: BusConfig
    vitals: VitalsBook
    positions: PositionBook
    commands: Commander
    outbox: Outbox
    authority: Authority  # who controls each robot; commands need control (e-stops not)
    player: LogPlayer | None

    @property
    def playback(self) -> bool: ...

    def now(self) -> float:
        """The time shown: the log's while one plays, else the wall clock (unix s)."""
        ...

    def robots(self) -> list[RobotInfo]: ...

    def robot(self, robot_id: str) -> RobotInfo | None: ...

    def ros_nodes(self) -> list[RosNodeInfo]:
        """The nodes of the ROS 2 graph the station sees (rmw_zenoh), its own left out."""
        ...

    def ros_definitions(self) -> tuple[list[str], list[str]]:
        """The ROS 2 types read from .msg files (app.ros2.definitions), the files refused."""
        ...

    def ros_robot_names_refused(self) -> tuple[str, ...]:
        """The entries of the config dir's ROS 2 robot names not used, each with why."""
        ...

    def ros_velocity_inputs(self, robot_id: str) -> VelocityInputs:
        """A ROS 2 robot's velocity inputs and the one chosen for teleop."""
        ...

    def choose_ros_velocity_input(self, robot_id: str, name: str | None) -> None: ...

    def consumer(self, name: str, on_sample: Any = None) -> Consumer: ...

    def wake(self) -> None:
        """A frame now (a picture a panel decoded on its own thread is ready)."""
        ...


class PanelHost(Protocol):
    """What a panel may ask of the window it lives in."""

    @property
    def station(self) -> PanelStation: ...

    def open_panel(self, panel_id: str, state: dict[str, Any] | None = None) -> Any: ...

    def panels(self) -> dict[str, Panel]:
        """The open panels by dock name, in the order they were opened."""
        ...

    def set_active_robot(self, robot_id: str | None) -> None: ...

    def show_message(self, text: str) -> None: ...

    @property
    def config_dir(self) -> Path: ...

    def alert(self, panel: Any, text: str) -> None:
        """Something the operator must see (a new critical fault): shown in the status bar
        and marked on the panel's tab until the operator clicks it there or the panel calls
        :meth:`alert_seen`."""

    def alert_seen(self, panel: Any) -> None: ...

    def alerting(self, panel: Any) -> bool:
        """Whether the panel's alert is still shown (the operator has not clicked it)."""
        ...

    def record_topics(self, keys: list[str]) -> None:
        """Starts recording these keys (ending any recording under way)."""

    def motion_refused(self, robot_id: str) -> str:
        """Why a command that moves the robot (a goal, a mission started or resumed) must
        not be sent now (its e-stop, a critical fault, playback); "" when it may."""
        ...

    @property
    def operator(self) -> Operator:
        """The window's input devices and teleop profile (they outlive every panel)."""
        ...

    def teleop(self) -> TeleopSession:
        """The window's one teleop session (it drives the active robot), made on first use
        and kept until the window closes: panels feed it inputs, never close it."""
        ...


class Panel(Protocol):
    panel_id: ClassVar[str]
    title: ClassVar[str]
    accepts: ClassVar[frozenset[str]]  # input kinds: "topic", "field" (key + path), "robot"

    def interests(self) -> set[Interest]: ...

    def on_frame(self, batch: FrameBatch) -> None: ...

    def watch(self, batch: FrameBatch) -> None:
        """Called a few times a second instead of on_frame while the panel is off screen:
        the place to raise an alert, never to redraw."""

    def save_state(self) -> dict[str, Any]: ...

    def restore_state(self, state: dict[str, Any]) -> None: ...

    def accept_topic(self, key: str, type_name: str) -> bool: ...

    def shutdown(self) -> None: ...


class PanelClass(Protocol):
    panel_id: str
    title: str
    accepts: frozenset[str]
    loads_slowly: bool  # built after the first live data at start-up (app.qt.slow_panels)

    def __call__(self, host: PanelHost) -> Panel: ...


class PanelRegistry(Protocol):
    def classes(self) -> list[PanelClass]: ...

    def get(self, panel_id: str) -> PanelClass | None: ...
