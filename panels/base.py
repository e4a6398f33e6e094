"""What every panel shares: identity, defaults for the panel contract, topic drops."""

from __future__ import annotations

import json
from typing import Any, ClassVar

from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QWidget

from app.qt.panel_api import TOPIC_MIME, PanelHost
from app.station.frame import FrameBatch
from app.station.interests import Interest


class PanelBase(QWidget):
    panel_id: ClassVar[str] = ""
    title: ClassVar[str] = ""
    accepts: ClassVar[frozenset[str]] = frozenset()
    loads_slowly: ClassVar[bool] = False

    def __init__(self, host: PanelHost) -> None:
        super().__init__()
        self.host = host
        self.setAcceptDrops("topic" in self.accepts or "field" in self.accepts)

    # -- the panel contract (override what applies) ------------------------------------
    def interests(self) -> set[Interest]:
        return set()

    def on_frame(self, batch: FrameBatch) -> None:
        """Called once per frame tick while the panel is on screen."""

    def watch(self, batch: FrameBatch) -> None:
        """Called at the tables' rate (a few Hz) while the panel is off screen (closed tab,
        hidden dock): only to raise an alert (``host.alert``), never to redraw."""

    def save_state(self) -> dict[str, Any]:
        return {}

    def restore_state(self, state: dict[str, Any]) -> None:
        pass

    def accept_topic(self, key: str, type_name: str) -> bool:
        return False

    def shutdown(self) -> None:
        """Releases what the panel holds; called when its dock closes."""

    # -- dropping a topic dragged from the topics panel ------------------------------------
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasFormat(TOPIC_MIME):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        try:
            topic = json.loads(bytes(event.mimeData().data(TOPIC_MIME).data()).decode())
            accepted = self.accept_topic(str(topic["key"]), str(topic.get("type", "")))
        except (ValueError, KeyError, TypeError):
            accepted = False
        if accepted:
            event.acceptProposedAction()
        else:
            self.host.show_message(f"{self.title} cannot show that topic")
