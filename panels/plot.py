"""Plot panel (being written)."""

from __future__ import annotations

from panels.base import PanelBase


class PlotPanel(PanelBase):
    panel_id = "plot"
    title = "Plot"
