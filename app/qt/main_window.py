"""The main window: docks built through the panel registry, layouts, the frame tick,
the status bar and the connection."""

from __future__ import annotations

import gc
import math
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from PySide6.QtCore import QByteArray, QSize, Qt, QTimer
from PySide6.QtGui import QAction, QCloseEvent, QIcon, QKeySequence, QResizeEvent, QShowEvent
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QInputDialog,
    QMainWindow,
    QMenu,
    QMessageBox,
    QWidget,
)

from app import resources
from app.layouts import DockRecord, Layout, LayoutError, parse_layout, read_layout
from app.priority import lower_background
from app.qt.control_bar import add_control_bar
from app.qt.frame_clock import FrameClock
from app.qt.help_menu import build_help_menu
from app.qt.layout_files import check_window_bytes, safe_name
from app.qt.layout_menu import LayoutMenu
from app.qt.operator import Operator
from app.qt.panel_api import Panel, PanelClass, PanelRegistry
from app.qt.playback import OPEN_LOG_SHORTCUT, PlaybackControls
from app.qt.recording import RecordingControls
from app.qt.safety_bar import SafetyBar
from app.qt.slow_panels import SlowPanels, loading_note
from app.qt.status_strip import StatusStrip
from app.station.active_robot import first_choice, remember_robot, remembered_robot
from app.station.connection import Connection, ConnectionChoice
from app.station.frame import FrameBatch
from app.station.identity import load_identity
from app.station.interests import Interest, LaneStats
from app.station.ros2_robot_names import read_robot_names
from app.station.station import Station
from app.station.velocity_inputs import saved_velocity_inputs

if TYPE_CHECKING:
    from app.teleop.session import TeleopSession

TABLES_PERIOD_S = 0.5  # robots/topics snapshots and the status bar refresh this often
# Which panels are on screen is asked again this often (and when one opens or closes): Qt
# works it out from the whole dock layout, 0.5 ms a tick with a camera waking it 30 times
# a second, all of it ahead of the camera's picture.
VISIBLE_PERIOD_S = 0.1
RESHARE_MS = 60  # a resize's last step this long ago: the docks get their shares back
SETTLED_MS = 3000  # after the first show: the layout's panels have drawn (and imported)
FULL_GC_EVERY = 100  # the garbage collector's middle passes between full ones (its default: 10)
AREAS = {
    "left": Qt.DockWidgetArea.LeftDockWidgetArea,
    "right": Qt.DockWidgetArea.RightDockWidgetArea,
    "top": Qt.DockWidgetArea.TopDockWidgetArea,
    "bottom": Qt.DockWidgetArea.BottomDockWidgetArea,
}
PANEL_MIN = QSize(320, 180)  # the most room a panel may insist on
SAFETY_PERIOD_S = 0.066  # the arming banner and the e-stop refresh at ~15 Hz
GAMEPAD_START_MS = 200  # SDL starts once the window has painted: the first frame never waits


class MainWindow(QMainWindow):
    def __init__(self, registry: PanelRegistry, choice: ConnectionChoice,
                 config_dir: Path, start_clock: bool = True, start_sim: bool = True) -> None:
        super().__init__()
        self.registry = registry
        self.config_dir = config_dir
        self.connection = Connection(choice, start_sim, load_identity(config_dir),
                                     read_robot_names(config_dir))
        self.active_robot: str | None = None
        self._remembered_robot = remembered_robot(config_dir)
        for robot_id, name in saved_velocity_inputs(config_dir).items():
            self.station.choose_ros_velocity_input(robot_id, name)
        self._panels: dict[str, Panel] = {}
        self._docks: dict[str, QDockWidget] = {}
        self._wanted: set[Interest] = set()
        self._tables_at = 0.0
        # A robot came, went or got its catalog: the tables now, not at their next turn (a
        # robot online is chosen, and its panels subscribe, a frame later).
        self._robots_changed = threading.Event()
        self._unwatch_robots = self.station.watch_robots(lambda _: self._robots_changed.set())
        self._visible: list[Panel] = []  # the panels on screen, as of _visible_at
        self._visible_at = -math.inf
        self._robots: list[Any] = []
        self._topics: dict[str, Any] = {}
        self._lanes: dict[str, LaneStats] = {}
        self._table_steps: deque[Callable[[], None]] = deque()  # this round's snapshots
        self._pending_placement: tuple[Any, ...] = ()
        # Each dock's share of the window, measured while its size holds still: a resize
        # gives every dock its share of the new size (as Foxglove's panels keep theirs),
        # instead of Qt's handing all the new room to one row.
        self._shares: dict[QDockWidget, list[float]] = {}
        self._reshare = QTimer(self, singleShot=True, interval=RESHARE_MS)
        self._reshare.timeout.connect(lambda: self._placed(self._shares, []))
        self._shown_once = False
        # Once the panels settle, what exists is frozen out of the garbage collector's reach
        # (see _freeze_settled_objects); a panel closing thaws it, so what it leaves goes.
        self._settled = QTimer(self, singleShot=True, interval=SETTLED_MS)
        self._settled.timeout.connect(_freeze_settled_objects)
        self._alerts: dict[str, str] = {}  # dock object name -> what it alerts about
        self._teleop: TeleopSession | None = None
        self._safety_at = -math.inf
        self.live_data_at: float | None = None  # when panels on screen first got robot data
        self.slow_panels = SlowPanels(self, lambda: self.live_data_at is not None,
                                      self._build_held)
        self.setWindowTitle("Fieldstation")
        self.setWindowIcon(_icon("fieldstation"))
        self.setDockNestingEnabled(True)
        self.setDockOptions(QMainWindow.DockOption.AllowTabbedDocks
                            | QMainWindow.DockOption.AllowNestedDocks
                            | QMainWindow.DockOption.GroupedDragging)
        self.status_strip = StatusStrip(self.statusBar(), lambda: self.station,
                                        lambda: self.connection.choice.describe(),
                                        self._alert_clicked)
        self._build_menus()
        self._build_safety_bar()
        self.operator = Operator(self.teleop, config_dir, self)
        self.recording = RecordingControls(self, self)
        self.playback = PlaybackControls(self, self)
        self.clock = FrameClock(self.tick, parent=self)
        self.station.feeds.set_waker(self.clock.wake)
        if start_clock:
            self.clock.start()

    # -- panels the registry builds ------------------------------------------------------
    @property
    def station(self) -> Station:
        return self.connection.station

    def panels(self) -> dict[str, Panel]:
        return dict(self._panels)

    def open_panel(self, panel_id: str, state: dict[str, Any] | None = None,
                   object_name: str = "", area: str = "right", tabbed: bool = False) -> Panel:
        """Docks a new panel in ``area``; ``tabbed``: as a tab beside a dock already there
        (what the operator's Add panel does), so the window and its other panels keep their
        size."""
        cls = self._panel_class(panel_id)
        object_name = object_name or self._free_name(panel_id)
        panel = self._make_panel(cls, state)
        widget = cast(QWidget, panel)
        neighbour = self._dock_in(AREAS[area]) if tabbed else None
        dock = self._add_dock(object_name, panel_id, widget.windowTitle() or cls.title, widget,
                              area)
        if neighbour is not None:
            # A panel added to a window on screen joins a tab group there: a new column or
            # row would squeeze the others, or grow the window past the screen.
            self.tabifyDockWidget(neighbour, dock)
            QTimer.singleShot(0, dock, dock.raise_)
        self._adopt(object_name, panel)
        return panel

    def _panel_class(self, panel_id: str) -> PanelClass:
        cls = self.registry.get(panel_id)
        if cls is None:
            raise KeyError(f"no panel {panel_id!r}")
        return cls

    def _make_panel(self, cls: PanelClass, state: dict[str, Any] | None) -> Panel:
        panel = cls(self)
        if state:
            panel.restore_state(state)
        # What a panel lays out may ask for more room than the window has (a long form, a
        # wide table): it is clipped, never allowed to push the window past the screen.
        widget = cast(QWidget, panel)
        hint = widget.minimumSizeHint()
        widget.setMinimumSize(min(hint.width(), PANEL_MIN.width()),
                              min(hint.height(), PANEL_MIN.height()))
        return panel

    def _add_dock(self, object_name: str, panel_id: str, title: str, widget: QWidget,
                  area: str) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(object_name)
        dock.setWindowIcon(_icon(panel_id))  # shown on the dock's tab when tabbed
        dock.setWidget(widget)
        dock.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dock.destroyed.connect(lambda _=None, name=object_name, d=dock: self._forget(name, d))
        self.addDockWidget(AREAS[area], dock)
        self._docks[object_name] = dock
        return dock

    def _adopt(self, object_name: str, panel: Panel) -> None:
        self._panels[object_name] = panel
        cast(QWidget, panel).windowTitleChanged.connect(
            lambda _=None, name=object_name: self._show_title(name))
        self._visible_at = -math.inf

    def _hold_slow_panel(self, record: DockRecord) -> None:
        """A dock for ``record`` holding a "Loading…" note until SlowPanels builds it."""
        cls = self._panel_class(record.panel_id)
        note = loading_note(cls.title)
        note.setMinimumSize(PANEL_MIN)  # a slow panel's own minimum, clipped (_make_panel)
        self._add_dock(record.object_name, record.panel_id, cls.title, note, record.area)
        self.slow_panels.hold(record)

    def _build_held(self, record: DockRecord) -> None:
        dock = self._docks.get(record.object_name)
        if dock is None:
            return
        panel = self._make_panel(self._panel_class(record.panel_id), record.state)
        note = dock.widget()
        dock.setWidget(cast(QWidget, panel))
        note.deleteLater()
        self._adopt(record.object_name, panel)
        self._show_title(record.object_name)

    def _dock_in(self, area: Qt.DockWidgetArea) -> QDockWidget | None:
        """The last docked (not floating) dock of ``area``, else of any area."""
        docked = [d for d in self._docks.values() if not d.isFloating()]
        in_area = [d for d in docked if self.dockWidgetArea(d) == area]
        candidates = in_area or docked
        return candidates[-1] if candidates else None

    def _free_name(self, panel_id: str) -> str:
        n = 1
        while f"{panel_id}#{n}" in self._docks:
            n += 1
        return f"{panel_id}#{n}"

    def _forget(self, object_name: str, dock: QDockWidget | None = None) -> None:
        if dock is not None and self._docks.get(object_name) is not dock:
            return  # a dock closed earlier, whose name a newer dock has taken
        panel = self._panels.pop(object_name, None)
        self._docks.pop(object_name, None)
        self.slow_panels.forget(object_name)
        self._visible, self._visible_at = [], -math.inf  # holding no closed panel
        gc.unfreeze()
        if self._shown_once:
            self._settled.start()
        if self._alerts.pop(object_name, None) is not None:
            self._show_alerts()
        if panel is not None:
            panel.shutdown()

    def close_all_panels(self) -> None:
        for name, dock in list(self._docks.items()):
            self.removeDockWidget(dock)
            self._forget(name)
            dock.setObjectName("")  # until deleted, restoreState() must not find it by name
            dock.deleteLater()

    def set_active_robot(self, robot_id: str | None) -> None:
        self.active_robot = robot_id
        self.station.active_robot = robot_id
        if self._teleop is not None:
            self._teleop.select(robot_id)
        self.status_strip.show_active_robot(robot_id)
        if robot_id is not None and not self.station.status.playback:
            self._remembered_robot = robot_id
            remember_robot(self.config_dir, robot_id)

    def show_message(self, text: str) -> None:
        self.statusBar().showMessage(text, 5000)

    def record_topics(self, keys: list[str]) -> None:
        if self.station.playback:
            self.show_message("Recording is for live robots: go back to live first")
            return
        self.recording.start_recording(keys=keys)

    # -- teleop: one session for the window, made when first wanted --------------------------
    def teleop(self) -> TeleopSession:
        """The window's teleop session (driving the active robot); made on first use and
        kept across panel closes and reconnects until the window closes."""
        if self._teleop is None:
            from app.teleop.session import TeleopSession

            self._teleop = TeleopSession(self.station)
            self._teleop.select(self.active_robot)
            app = QApplication.instance()
            if isinstance(app, QApplication):
                app.applicationStateChanged.connect(self._application_state_changed)
                self._application_state_changed()
        return self._teleop

    def _application_state_changed(self, _: Qt.ApplicationState | None = None) -> None:
        """The station drives only while it is the active application and no dialog is
        open over it (a modal dialog leaves the application active)."""
        if self._teleop is not None:
            active = QApplication.applicationState() == Qt.ApplicationState.ApplicationActive
            self._teleop.set_focus(active and not self.safety_bar.dialog_open())

    def engage_estop(self) -> None:
        """The e-stop of the active robot (with none active, of every robot online), from
        any state."""
        if self.station.status.playback:
            self.show_message("Playback: nothing is sent to any robot")
            return
        self.teleop().engage_estop()
        self._show_estop()
        self.show_message(f"E-STOP engaged ({self.active_robot or 'every robot online'})")

    def release_estop(self) -> bool:
        """Releases the active robot's e-stop after the operator confirms it; whether it
        was released. Other robots' e-stops stay engaged."""
        who = self.active_robot
        if who is None or who not in self.estopped_robots():
            self.show_message("The active robot's e-stop is not engaged here")
            return False
        answer = QMessageBox.question(
            self, "Release e-stop",
            f"Release the e-stop of {who}?\n\nNothing moves until the deadman is pressed "
            "again.", QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Cancel)
        if answer != QMessageBox.StandardButton.Yes:
            return False
        released = self.teleop().release_estop(who)
        self._show_estop()
        if released:
            self.show_message(f"E-stop released ({who})")
        return released

    def estopped_robots(self) -> list[str]:
        """The robots whose e-stop is engaged from this station."""
        if self._teleop is None:
            return []
        return [robot for robot, status in self._teleop.estops().items() if status.engaged]

    def motion_refused(self, robot_id: str) -> str:
        """Why a command that moves ``robot_id`` (a goal, a mission started or resumed) must
        not be sent now; "" when it may. Stopping commands are never refused."""
        if self.station.status.playback:
            return "playback: nothing is sent to any robot"
        if robot_id in self.estopped_robots():
            return f"{robot_id}'s e-stop is engaged from this station"
        vitals = self.station.vitals.snapshot().get(robot_id)
        if vitals is not None and vitals.status is not None and vitals.status.estop:
            return f"{robot_id} reports its e-stop engaged"
        critical = next((f for f in vitals.faults if f.severity == "critical"), None) \
            if vitals is not None else None
        if critical is not None:
            return f"{robot_id} has a critical fault: {critical.code}"
        return ""

    def estop_engaged(self) -> bool:
        """The active robot's e-stop is engaged here (with none active: any robot's)."""
        engaged = self.estopped_robots()
        return self.active_robot in engaged if self.active_robot else bool(engaged)

    def _show_estop(self) -> None:
        engaged = self.estopped_robots()
        active = self.active_robot in engaged if self.active_robot else bool(engaged)
        self.safety_bar.show_estop(active, engaged, bool(self.station.status.playback))

    def _show_safety(self) -> None:
        """The arming banner and the e-stop, from the session's status."""
        self.safety_bar.watch_dialogs()
        self.control_bar.refresh()
        if self._teleop is None:
            return
        status = self._teleop.status().teleop
        self.safety_bar.show_state(status.state, status.robot, status.reason, status.device)
        self._show_estop()

    # -- alerts: kept in the status bar and on the panel's tab until seen --------------------
    def alert(self, panel: Any, text: str) -> None:
        name = self._name_of(panel)
        if name is None:
            return
        self._alerts[name] = text
        self._show_title(name)
        self._show_alerts()

    def alert_seen(self, panel: Any) -> None:
        name = self._name_of(panel)
        if name is not None and self._alerts.pop(name, None) is not None:
            self._show_title(name)
            self._show_alerts()

    def _show_title(self, name: str) -> None:
        """A dock's title: its panel's own (a plot names its series), marked while it
        alerts."""
        panel, dock = self._panels.get(name), self._docks.get(name)
        if panel is not None and dock is not None:
            mark = "⚠ " if name in self._alerts else ""
            dock.setWindowTitle(mark + (cast(QWidget, panel).windowTitle() or panel.title))

    def alerting(self, panel: Any) -> bool:
        return self._name_of(panel) in self._alerts

    def alerts(self) -> dict[str, str]:
        return dict(self._alerts)

    def _name_of(self, panel: Any) -> str | None:
        return next((n for n, p in self._panels.items() if p is panel), None)

    def _show_alerts(self) -> None:
        if not self._alerts:
            self.status_strip.hide_alert()
            return
        name, text = next(reversed(self._alerts.items()))
        self.status_strip.show_alert(name, text, len(self._alerts) - 1)

    def _alert_clicked(self, name: str) -> None:
        dock, panel = self._docks.get(name), self._panels.get(name)
        if dock is not None and panel is not None:
            dock.show()
            dock.raise_()
            self.alert_seen(panel)

    # -- the frame tick ------------------------------------------------------------------
    def tick(self) -> None:
        now = time.monotonic()
        if now - self._visible_at >= VISIBLE_PERIOD_S:
            self._visible_at = now
            # A dock tabbed behind another is moved off-screen, not hidden: ask what is seen.
            self._visible = [p for p in self._panels.values()
                             if not p.visibleRegion().isEmpty()]  # type: ignore[attr-defined]
        visible = self._visible
        wanted: set[Interest] = set()
        for panel in visible:
            wanted |= panel.interests()
        if wanted != self._wanted:
            self._wanted = wanted
            self.station.set_interests(wanted)
        # The station's snapshots are taken one per tick, so no frame pays for them all; the
        # panels then refresh their tables (tables_changed) in one tick: every frame that
        # changes the window costs a whole repaint, which under software GL (the 3D view
        # makes the window composite through OpenGL) is the dearest part of a frame.
        if now - self._tables_at >= TABLES_PERIOD_S or self._robots_changed.is_set():
            self._robots_changed.clear()
            self._tables_at = now
            self._table_steps = deque([self._take_robots, self._take_topics, self._take_rest])
            lower_background()  # threads started since the last time (see app.priority)
        watch_hidden = False
        if self._table_steps:
            self._table_steps.popleft()()
            watch_hidden = not self._table_steps
        self.playback.refresh()
        feeds = self.station.feeds
        batch = FrameBatch(now, self.station.status, self.active_robot, self._robots,
                           self._topics, dict(feeds.latest), dict(feeds.series),
                           False, dict(feeds.converted), self._lanes,
                           self.station.vitals.snapshot())
        feeds.frame_taken()
        if watch_hidden:
            batch.tables_changed = True
        for panel in visible:
            panel.on_frame(batch)
        if watch_hidden:
            for panel in self._panels.values():
                if panel not in visible:
                    panel.watch(batch)
        if now - self._safety_at >= SAFETY_PERIOD_S:
            self._safety_at = now
            self._show_safety()
        if self.live_data_at is None and visible and _shows_live_data(batch):
            self.live_data_at = time.time()

    def _take_robots(self) -> None:
        self._robots = self.station.robots()
        chosen = first_choice(self.active_robot, self._remembered_robot, self._robots,
                              time.monotonic())
        if chosen is not None:
            self.set_active_robot(chosen)

    def _take_topics(self) -> None:
        self._topics = self.station.topics()

    def _take_rest(self) -> None:
        if not self._reshare.isActive():  # the operator may have moved a separator
            self._shares = self.dock_shares()
        self._lanes = self.station.feeds.lane_stats()
        self.status_strip.refresh()
        self.recording.refresh()

    # -- layouts ---------------------------------------------------------------------------
    def current_layout(self, name: str = "") -> Layout:
        docks = []
        for object_name, dock in self._docks.items():
            panel = self._panels.get(object_name)
            held = self.slow_panels.held.get(object_name)
            if panel is not None:
                panel_id, state = panel.panel_id, panel.save_state()
            elif held is not None:  # not built yet: as the layout had it
                panel_id, state = held.panel_id, held.state
            else:
                continue
            area = {v: k for k, v in AREAS.items()}.get(self.dockWidgetArea(dock), "left")
            docks.append(DockRecord(object_name, panel_id, state, area,
                                    self._tab_group_head(dock), dock.isFloating()))
        return Layout(name or "Current", docks, bytes(self.saveState().data()),
                      bytes(self.saveGeometry().data()))

    def _tab_group_head(self, dock: QDockWidget) -> str:
        """The first dock (in panel order) this one is tabbed with, if it is not that one."""
        group = set(self.tabifiedDockWidgets(dock))
        for name, other in self._docks.items():
            if other is dock:
                return ""
            if other in group:
                return name
        return ""

    def apply_layout(self, layout: Layout, hold_slow: bool = False) -> None:
        """Replaces every dock. The layout was validated by parse_layout already. With
        ``hold_slow`` (the window's first layout) panels that load slowly are built once the
        window shows live data (see app.qt.slow_panels)."""
        self.close_all_panels()
        for record in layout.docks:
            if hold_slow and self._panel_class(record.panel_id).loads_slowly:
                self._hold_slow_panel(record)
            else:
                self.open_panel(record.panel_id, record.state, record.object_name, record.area)
        for record in layout.docks:
            dock = self._docks[record.object_name]
            if record.tab_with and record.tab_with in self._docks:
                self.tabifyDockWidget(self._docks[record.tab_with], dock)
            dock.setFloating(record.floating)
        if layout.geometry:
            self.restoreGeometry(QByteArray(layout.geometry))
        if layout.window_state:
            self.restoreState(QByteArray(layout.window_state))
        else:
            self._place_docks(
                {self._docks[r.object_name]: r.size for r in layout.docks
                 if len(r.size) == 2 and not r.floating},
                [self._docks[r.object_name] for r in layout.docks if r.tab_with])
        self.slow_panels.start()

    def _place_docks(self, sizes: dict[QDockWidget, list[float]],
                     on_top: list[QDockWidget]) -> None:
        """For layouts without Qt's window state (the shipped defaults, which suit any
        screen): gives docks their share of the window ([width, height] fractions) and puts
        each tabbed dock on top of the one it tabs with. Done once the new docks are laid
        out, and for a hidden window once it is shown."""
        if self.isVisible():
            QTimer.singleShot(0, self, lambda: self._placed(sizes, on_top))
        else:
            self._pending_placement = (sizes, on_top)

    def dock_shares(self) -> dict[QDockWidget, list[float]]:
        """Each docked panel's [width, height] as fractions of the window's."""
        width, height = max(1, self.width()), max(1, self.height())
        return {d: [d.width() / width, d.height() / height] for d in self._docks.values()
                if d.isVisible() and not d.isFloating()}

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self._shares and event.oldSize().isValid() and self.isVisible():
            self._reshare.start()  # once the resize settles (a drag sends many)

    def _placed(self, sizes: dict[QDockWidget, list[float]],
                on_top: list[QDockWidget]) -> None:
        open_docks = list(self._docks.values())
        docks = [d for d in sizes if d in open_docks]
        for axis, orientation, extent in ((0, Qt.Orientation.Horizontal, self.width()),
                                          (1, Qt.Orientation.Vertical, self.height())):
            self.resizeDocks(docks, [max(1, round(sizes[d][axis] * extent)) for d in docks],
                             orientation)
        for dock in on_top:
            if dock in open_docks:
                dock.raise_()

    def parsed_layout(self, text: str | bytes, source: str) -> Layout | None:
        """The layout in `text`, validated, or None once the operator is told why not."""
        try:
            layout = parse_layout(text, [c.panel_id for c in self.registry.classes()], source)
            check_window_bytes(layout, source)
        except LayoutError as exc:
            self.layout_refused(str(exc))
            return None
        return layout

    def load_layout_text(self, text: str | bytes, source: str, hold_slow: bool = False) -> bool:
        """Applies a layout, or explains why not and keeps the current one."""
        layout = self.parsed_layout(text, source)
        if layout is None:
            return False
        self.apply_layout(layout, hold_slow)
        self.layouts.took(layout.name, layout)
        return True

    def layout_refused(self, reason: str) -> None:
        self.show_message(f"Layout not loaded: {reason}")
        if self.isVisible():
            QMessageBox.warning(self, "Layout not loaded",
                                f"{reason}\n\nThe current layout is unchanged.")

    def layouts_dir(self) -> Path:
        return self.config_dir / "layouts"

    def save_named_layout(self, name: str) -> Path:
        path = self.layouts_dir() / f"{safe_name(name)}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.current_layout(name).to_json())
        self.layouts.took(name)
        return path

    def load_named_layout(self, name: str, hold_slow: bool = False) -> bool:
        """Opens the named layout without asking (the Layouts menu asks first)."""
        for folder in (self.layouts_dir(), resources.LAYOUTS):
            path = folder / f"{safe_name(name)}.json"
            if path.is_file():
                try:
                    layout = read_layout(path, [c.panel_id for c in self.registry.classes()])
                    check_window_bytes(layout, path.name)
                except LayoutError as exc:
                    self.layout_refused(str(exc))
                    return False
                self.apply_layout(layout, hold_slow)
                self.layouts.took(name, layout)
                return True
        self.layout_refused(f"no layout named {name!r}")
        return False

    def restore_last_layout(self, hold_slow: bool = False) -> None:
        last = self.config_dir / "last-layout.json"
        if last.is_file() and self.load_layout_text(last.read_bytes(), "the last layout",
                                                    hold_slow):
            return
        self.load_named_layout(resources.DEFAULT_LAYOUT, hold_slow)

    # -- connection -----------------------------------------------------------------------
    def reconnect(self, choice: ConnectionChoice) -> None:
        """Swaps the session under the station (off this thread); panels and other
        consumers keep what they asked for. The robot driven gets its stops first, on the
        session they can still leave by."""
        robot = None if self.station.status.playback else self.active_robot
        if self._teleop is not None:
            self._teleop.select(None)
            self._teleop.flush()
        self.connection.switch(choice)
        # Live to live keeps the robot chosen (driving it needs a fresh press); out of a log,
        # the one chosen live comes back once it is online.
        self.set_active_robot(robot)
        self.refresh_mode()

    def refresh_mode(self) -> None:
        """Live or playback: the badge, the title and what can be done in each."""
        playback = self.station.status.playback
        self.setWindowTitle(f"Fieldstation — PLAYBACK {playback}" if playback
                            else "Fieldstation")
        self.back_to_live_action.setEnabled(bool(playback))
        self.status_strip.refresh()
        self.recording.refresh()

    def _open_connection_dialog(self) -> None:
        from app.qt.connection_dialog import ConnectionDialog

        dialog = ConnectionDialog(self.connection.choice, self, self.config_dir)
        try:
            if dialog.exec():
                self.reconnect(dialog.choice())
        finally:
            dialog.deleteLater()

    # -- chrome ----------------------------------------------------------------------------
    def _build_menus(self) -> None:
        menu = self.menuBar()
        file_menu = menu.addMenu("&File")
        self._action(file_menu, "&Connect…", "Ctrl+K", self._open_connection_dialog, "connect")
        file_menu.addSeparator()
        self._action(file_menu, "Open &log…", OPEN_LOG_SHORTCUT,
                     lambda: self.playback.choose_log())
        self.back_to_live_action = self._action(file_menu, "&Back to live robots", None,
                                                lambda: self.playback.back_to_live())
        self.back_to_live_action.setEnabled(False)
        file_menu.addSeparator()
        self._action(file_menu, "&Quit", QKeySequence.StandardKey.Quit, self.close)

        self.layouts = LayoutMenu(self, self, menu.addMenu("&Layouts"))

        view = menu.addMenu("&View")
        self._action(view, "Add &panel…", "Ctrl+T", self._choose_panel, "add-panel")
        add = view.addMenu(_icon("add-panel"), "&Add panel")
        for n, cls in enumerate(self.registry.classes(), start=1):
            self._action(add, cls.title, f"Ctrl+{n}" if n < 10 else None,
                         lambda _=False, pid=cls.panel_id: self.open_panel(pid, tabbed=True),
                         cls.panel_id)
        view.addSeparator()
        full_screen = self._action(view, "&Full screen", "F11", self._toggle_full_screen,
                                   "full-screen")
        # F11 everywhere; the desktop's own key too where it has one (it has none on some).
        standard = QKeySequence.keyBindings(QKeySequence.StandardKey.FullScreen)
        full_screen.setShortcuts([QKeySequence("F11"),
                                  *(k for k in standard if k != QKeySequence("F11"))])

        build_help_menu(self, self.config_dir)

    def _build_safety_bar(self) -> None:
        """The arming banner, the E-STOP and its release in the menu bar's corner: on screen
        in every layout (full screen included) without taking a row from the docks."""
        self.safety_bar = SafetyBar(self, self.engage_estop, self.release_estop,
                                    lambda _: self._application_state_changed())
        self.estop_action = self.safety_bar.estop_action
        self.release_estop_action = self.safety_bar.release_action
        self._estop_button = self.safety_bar.estop_button
        self.menuBar().setCornerWidget(self.safety_bar, Qt.Corner.TopRightCorner)
        self.control_bar = add_control_bar(self, lambda: self.station,
                                           lambda: self.active_robot, self.show_message,
                                           self.config_dir)

    def _choose_panel(self) -> None:
        classes = self.registry.classes()
        title, ok = QInputDialog.getItem(self, "Add panel", "Panel:",
                                         [c.title for c in classes], 0, False)
        chosen = next((c for c in classes if c.title == title), None)
        if ok and chosen is not None:
            self.open_panel(chosen.panel_id, tabbed=True)

    def _action(self, menu: QMenu, text: str, shortcut: Any, slot: Any,
                icon: str = "") -> QAction:
        action = QAction(_icon(icon), text, self) if icon else QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        action.triggered.connect(slot)
        menu.addAction(action)
        return action

    def _toggle_full_screen(self) -> None:
        self.showNormal() if self.isFullScreen() else self.showFullScreen()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self._shown_once:
            self._shown_once = True
            self._settled.start()
            QTimer.singleShot(GAMEPAD_START_MS, self, self.operator.start_gamepad)
        if self._pending_placement:
            placement, self._pending_placement = self._pending_placement, ()
            QTimer.singleShot(0, self, lambda: self._placed(*placement))

    def closeEvent(self, event: QCloseEvent) -> None:
        self._close_teleop()  # the robot's stops first, whatever the panels do next
        self._unwatch_robots()
        self.station.feeds.set_waker(None)
        self.clock.stop()
        try:
            self.config_dir.mkdir(parents=True, exist_ok=True)
            (self.config_dir / "last-layout.json").write_text(
                self.current_layout(self.layouts.name).to_json())
        except OSError as exc:
            self.show_message(f"could not save the layout: {exc}")
        self.close_all_panels()
        self._settled.stop()
        self.recording.close()
        self.connection.close(wait=False)  # the process waits for it at exit, not the GUI
        super().closeEvent(event)

    def _close_teleop(self) -> None:
        """The devices go and the session sends its stop burst, then closes."""
        self.operator.shutdown()
        if self._teleop is None:
            return
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.applicationStateChanged.disconnect(self._application_state_changed)
        self._teleop.close()
        self._teleop = None


def _shows_live_data(batch: FrameBatch) -> bool:
    """Whether the batch holds anything decoded from a robot (a vital, a value, a series)."""
    return bool(batch.latest or batch.converted
                or any(len(buffer) for buffer in batch.series.values())
                or any(r.online and r.battery_pct is not None for r in batch.robots))


def _icon(name: str) -> QIcon:
    path = resources.icon_path(name)
    return QIcon(str(path)) if path.is_file() else QIcon()


def _freeze_settled_objects() -> None:
    """Moves what start-up and the panels made (modules, classes, Qt wrappers, schemas: most
    of the objects the garbage collector tracks) out of its reach. Its full passes then look
    only at what came since; over them all they stalled the window for a tenth of a second
    or more, a few times a minute, with a fleet's traffic coming in. Those passes still took
    45-70 ms each at a depot of a thousand robots, every four seconds, and found next to
    nothing (28 objects in 30 s: the station makes few reference cycles): they now come ten
    times less often."""
    gc.collect()
    gc.freeze()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_GC_EVERY)
