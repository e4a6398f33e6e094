"""Topics panel (being written)."""

from __future__ import annotations

from panels.base import PanelBase


class TopicsPanel(PanelBase):
    panel_id = "topics"
    title = "Topics"
