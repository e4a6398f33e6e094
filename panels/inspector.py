"""Inspector panel (being written)."""

from __future__ import annotations

from panels.base import PanelBase


class InspectorPanel(PanelBase):
    panel_id = "inspector"
    title = "Inspector"
