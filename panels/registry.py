"""The one panel registry; the main window builds docks only through it."""

from __future__ import annotations

from app.qt.panel_api import PanelClass


class Registry:
    def __init__(self, classes: list[PanelClass]) -> None:
        ids = [c.panel_id for c in classes]
        if len(set(ids)) != len(ids) or not all(ids):
            raise ValueError(f"panel ids must be unique and non-empty: {ids}")
        self._classes = {c.panel_id: c for c in classes}

    def classes(self) -> list[PanelClass]:
        return list(self._classes.values())

    def get(self, panel_id: str) -> PanelClass | None:
        return self._classes.get(panel_id)


def load() -> Registry:
    """Every shipped panel (the ``fieldstation.panels`` entry point names this)."""
    from panels.battery import BatteryPanel
    from panels.camera import CameraPanel
    from panels.capabilities import CapabilitiesPanel
    from panels.faults import FaultsPanel
    from panels.fleet_map import FleetMapPanel
    from panels.inspector import InspectorPanel
    from panels.mission import MissionPanel
    from panels.plot import PlotPanel
    from panels.robots import RobotsPanel
    from panels.ros_graph import RosGraphPanel
    from panels.scene3d import Scene3DPanel
    from panels.status import StatusPanel
    from panels.teleop import TeleopPanel
    from panels.topics import TopicsPanel

    return Registry([RobotsPanel, TopicsPanel, InspectorPanel, PlotPanel, Scene3DPanel,
                     BatteryPanel, FaultsPanel, StatusPanel, CapabilitiesPanel,
                     MissionPanel, CameraPanel, TeleopPanel, FleetMapPanel, RosGraphPanel])
