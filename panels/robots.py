"""Robots panel (being written)."""

from __future__ import annotations

from panels.base import PanelBase


class RobotsPanel(PanelBase):
    panel_id = "robots"
    title = "Robots"
