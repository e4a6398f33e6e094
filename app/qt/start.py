"""Starting the GUI, and ``--self-test`` (what the installer's CI runs on the bundle)."""

from __future__ import annotations

import os
import signal
import sys
import time
import traceback
from importlib.metadata import entry_points
from pathlib import Path

from PySide6.QtCore import QStandardPaths, QTimer
from PySide6.QtWidgets import QWidget

from app import logs
from app.qt import first_paint, mem_probe
from app.qt.application import create_application
from app.qt.main_window import MainWindow
from app.qt.panel_api import PanelRegistry
from app.station.connection import ConnectionChoice

ENTRY_POINT_GROUP = "fieldstation.panels"
FIRST_START_SHARE = 0.9  # of the screen's free area, before any layout has a saved geometry


def panel_registry() -> PanelRegistry:
    """The panels, found through their entry point (app never imports panels directly)."""
    found = entry_points(group=ENTRY_POINT_GROUP)
    if not found:
        raise RuntimeError(f"no {ENTRY_POINT_GROUP} entry point: is fieldstation installed?")
    return next(iter(found)).load()()


def config_dir() -> Path:
    override = os.environ.get("FIELDSTATION_CONFIG_DIR")
    if override:
        return Path(override)
    location = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppConfigLocation)
    return Path(location or Path.home() / ".config" / "Fieldstation")


def fit_to_screen(window: QWidget, share: float = FIRST_START_SHARE) -> None:
    """Sizes ``window`` to ``share`` of its screen's free area (never past it, never below
    the window's minimum) and centres it there."""
    area = window.screen().availableGeometry()
    size = (area.size() * share).expandedTo(window.minimumSize()).boundedTo(area.size())
    window.resize(size)
    frame = window.frameGeometry()
    frame.moveCenter(area.center())
    window.move(frame.topLeft())


def run_gui(choice: ConnectionChoice, layout: str = "", log: Path | None = None) -> int:
    """The window; with ``layout`` it starts with that named layout instead of the last,
    with ``log`` it plays that log (live, and saying why, if it cannot be opened)."""
    logs.configure(config_dir())
    app = create_application()
    # The embedded fleet starts once the window is on screen: its process would otherwise
    # take one of the CPUs the window needs to open.
    window = MainWindow(panel_registry(), choice, config_dir(), start_sim=False)
    fit_to_screen(window)  # the last layout's geometry, if it has one, replaces this

    def after_first_paint() -> None:
        if log is None:
            window.connection.start_sim()
        else:  # the fleet starts only if the log cannot be opened and the window stays live
            window.playback.log_failed.connect(window.connection.start_sim)
        if layout:
            window.load_named_layout(layout, hold_slow=True)
        else:
            window.restore_last_layout(hold_slow=True)
        if log is not None:
            window.playback.open_log(log)

    first_paint.after_first_paint(window, after_first_paint)
    if first_paint.requested():  # installed last, so its filter runs first (Qt: LIFO)
        first_paint.report_and_close(window)
    close_on_sigterm(window)
    mem_probe.install(window)
    window.show()
    return app.exec()


def close_on_sigterm(window: MainWindow) -> None:
    """SIGTERM closes the window as its close button does: the layout is saved and the
    embedded fleet stopped (instead of the process dying with the fleet left to notice)."""
    signal.signal(signal.SIGTERM, lambda *_: QTimer.singleShot(0, window.close))
    # Python runs signal handlers only between bytecodes: keep some running while idle.
    wake = QTimer(window)
    wake.timeout.connect(lambda: None)
    wake.start(250)


def self_test() -> int:
    """Loads every schema, opens a zenoh session on loopback, builds the main window with
    every registered panel, renders one frame of each; exit 0, or 1 with the reason."""
    started = time.monotonic()
    try:
        from app.bus.config import BusConfig
        from app.bus.session import BusSession
        from app.codec.registry import registry

        schemas = registry()
        print(f"schemas: {len(schemas.structs)} structs, {len(schemas.enums)} enums")
        with BusSession(BusConfig()):
            print("zenoh: session on loopback opened and closed")
        app = create_application()
        panels = panel_registry()
        window = MainWindow(panels, ConnectionChoice(simulation=False), config_dir(),
                            start_clock=False)
        try:
            for cls in panels.classes():
                window.open_panel(cls.panel_id)
            window.show()
            app.processEvents()
            window.tick()
            for name, panel in window.panels().items():
                image = panel.grab()  # type: ignore[attr-defined]
                if image.isNull() or image.width() == 0:
                    raise RuntimeError(f"panel {name} rendered nothing")
                print(f"panel {name}: rendered {image.width()}x{image.height()}")
        finally:
            window.close()
            app.processEvents()
    except Exception as exc:  # the self-test reports any failure as its reason
        traceback.print_exc(file=sys.stderr)
        print(f"self-test FAILED: {exc}", file=sys.stderr)
        return 1
    print(f"self-test passed in {time.monotonic() - started:.1f} s")
    return 0
