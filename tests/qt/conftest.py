"""GUI fixtures: ``make_main_window`` builds windows like napari's ``make_napari_viewer``:
hidden unless asked, closed and deleted at teardown, and the test fails if it leaked a
top-level widget, shown or hidden."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QApplication

from app.qt.application import create_application
from app.qt.main_window import MainWindow
from app.qt.start import panel_registry
from app.sim.fleet import SimFleet
from app.station.connection import ConnectionChoice


@pytest.fixture(scope="session")
def qapp_cls():  # pytest-qt: our own application setup (palette, names)
    create_application()
    return type(QApplication.instance())


@pytest.fixture
def fleet(free_endpoint: str) -> Iterator[SimFleet]:
    """The simulated rover, humanoid and car in this process, on a free port."""
    with SimFleet(["rover", "humanoid", "car"], listen=[free_endpoint], points=20_000) as f:
        yield f


@pytest.fixture
def make_main_window(qapp, tmp_path: Path, free_endpoint: str, monkeypatch: pytest.MonkeyPatch,
                     request: pytest.FixtureRequest) -> Iterator[Callable[..., MainWindow]]:
    monkeypatch.setenv("FIELDSTATION_CONFIG_DIR", str(tmp_path / "config"))
    failed_before = request.session.testsfailed
    before = set(QApplication.topLevelWidgets())  # wrappers held: ids cannot be reused
    windows: list[MainWindow] = []

    def make(show: bool = False, choice: ConnectionChoice | None = None,
             **options: Any) -> MainWindow:
        choice = choice or ConnectionChoice(simulation=False, endpoints=[free_endpoint])
        window = MainWindow(panel_registry(), choice, tmp_path / "config", **options)
        windows.append(window)
        if show:
            window.resize(1200, 800)
            window.show()
        return window

    try:
        yield make
    finally:
        for window in windows:
            window.close()
            window.connection.close()  # wait for the session the window closes off-thread
            window.deleteLater()
        QApplication.processEvents()
        # Outside an event loop, processEvents() leaves deleteLater() undone: ask for it.
        QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        gc.collect()  # parentless Qt objects that Python holds in cycles (pyqtgraph's menus)
        QApplication.processEvents()
        # No exclusions: the window's menus, combo-box popups and dialogs are top-level
        # widgets too, but its children, so they went with it; whatever is left leaked.
        leaked = [w for w in QApplication.topLevelWidgets() if w not in before]
        names = ", ".join(f"{type(w).__name__}({w.objectName() or w.windowTitle()})"
                          for w in leaked)
        for widget in leaked:
            widget.close()
        # A failed test's traceback keeps its widgets alive: its own failure is the news.
        if leaked and request.session.testsfailed == failed_before:
            pytest.fail(f"test leaked top-level widgets: {names}")


def rover_estop(window: MainWindow) -> bool | None:
    """The rover's e-stop as it reports it (None before its first status)."""
    vitals = window.station.vitals.snapshot().get("rover-1")
    return None if vitals is None or vitals.status is None else vitals.status.estop


@pytest.fixture
def rover_window(make_main_window: Callable[..., MainWindow], fleet: SimFleet,
                 qtbot: Any) -> MainWindow:
    """A window on screen, active, driving-ready on the simulated rover (not e-stopped)."""
    window = make_main_window(show=True)
    qtbot.waitUntil(lambda: any(r.robot_id == "rover-1" and r.online and r.catalog
                                for r in window.station.robots()), timeout=10_000)
    window.set_active_robot("rover-1")
    qtbot.waitUntil(lambda: rover_estop(window) is False, timeout=5_000)
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.applicationState()
                    == Qt.ApplicationState.ApplicationActive, timeout=10_000)
    return window
