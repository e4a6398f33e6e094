"""The window's status bar: simulation and playback badges, the session, robots online,
decode and internal errors, the active robot, and the newest alert a panel raised."""

from __future__ import annotations

import html
import time
from collections.abc import Callable

from PySide6.QtWidgets import QLabel, QMessageBox, QStatusBar, QWidget

from app import logs
from app.station.station import Station

STATUS_TEXT_MAX = 160  # a longer connection problem is cut (the tooltip has it whole)
STATUS_LABEL_MAX_PX = 480
SESSION_COLOURS = {"online": "#3fb950", "connecting": "#d29922", "offline": "#f85149",
                   "error": "#f85149", "playback": "#388bfd"}


def _badge(text: str, style: str) -> QLabel:
    label = QLabel(text)
    label.setStyleSheet(f"{style}font-weight:bold;border-radius:3px;padding:1px 6px;")
    return label


class StatusStrip:
    """Fills ``bar`` and keeps it current (:meth:`refresh`, a few times a second)."""

    def __init__(self, bar: QStatusBar, station: Callable[[], Station],
                 where: Callable[[], str], on_alert_clicked: Callable[[str], None]) -> None:
        self._bar = bar
        self._station = station
        self._where = where
        self.sim_badge = _badge(" SIMULATION ", "background:#d29922;color:#111;")
        self.playback_badge = _badge(" PLAYBACK ", "background:#388bfd;color:#ffffff;")
        self.playback_badge.setToolTip("Showing a log: nothing is sent to any robot")
        self.session_label = QLabel()
        self.robots_label = QLabel()
        self.errors_label = QLabel()
        self.internal_label = QLabel()
        self.internal_label.setToolTip("Errors inside Fieldstation: click to see them")
        self.internal_label.linkActivated.connect(lambda _: self.show_internal_errors())
        self.robot_label = QLabel("No active robot")
        self.alert_label = _badge("", "background:#b62324;color:#ffffff;")
        self.alert_label.setToolTip("Click to see it")
        self.alert_label.linkActivated.connect(on_alert_clicked)
        self.alert_label.hide()
        for label in (self.session_label, self.alert_label):
            # Long text (a refused connection, a fault's message) is cut, the tooltip has
            # it whole: nothing in the status bar may widen the window past the screen.
            label.setMaximumWidth(STATUS_LABEL_MAX_PX)
        bar.insertPermanentWidget(0, self.alert_label)  # a message must not hide it
        for widget in (self.sim_badge, self.playback_badge, self.session_label,
                       self.robots_label, self.errors_label, self.internal_label,
                       self.robot_label):
            bar.addPermanentWidget(widget)
        self.refresh()

    def refresh(self) -> None:
        station = self._station()
        status = station.status
        self.sim_badge.setVisible(status.simulation)
        self.playback_badge.setVisible(bool(status.playback))
        colour = SESSION_COLOURS.get(status.session, "#aaa")
        where = status.playback or self._where()
        # Why there is no session (a refused password, an untrusted certificate) is news.
        problem = status.detail if status.session in ("error", "offline") else ""
        shown = problem if len(problem) <= STATUS_TEXT_MAX else \
            problem[:STATUS_TEXT_MAX - 1] + "…"
        self.session_label.setText(f"<span style='color:{colour}'>●</span> {status.session}"
                                   f" — {html.escape(shown or where, quote=False)}")
        self.session_label.setToolTip(status.detail or where)
        self.robots_label.setText(f"{status.robots_online} robot"
                                  f"{'' if status.robots_online == 1 else 's'} online")
        errors = status.decode_errors
        self.errors_label.setText(f"{errors} decode error{'' if errors == 1 else 's'}")
        self.errors_label.setStyleSheet("color:#f85149;" if errors else "")
        internal = station.incidents.count
        self.internal_label.setVisible(internal > 0)
        if internal:
            self.internal_label.setText(
                f"<a href='#' style='color:#f85149'>{internal} internal "
                f"error{'' if internal == 1 else 's'}</a>")

    def show_active_robot(self, robot_id: str | None) -> None:
        self.robot_label.setText(f"Active: {robot_id}" if robot_id else "No active robot")

    def show_alert(self, name: str, text: str, more: int) -> None:
        """The newest alert (``name``: the panel's dock, which a click brings up); ``more``
        others are waiting behind it."""
        self.alert_label.setText(f"<a href='{name}' style='color:#ffffff;"
                                 f"text-decoration:none'>⚠ {text}"
                                 + (f" (+{more})" if more else "") + "</a>")
        self.alert_label.setToolTip(f"{text}\n\nClick to see it")
        self.alert_label.show()

    def hide_alert(self) -> None:
        self.alert_label.hide()

    def internal_errors_text(self) -> str:
        station = self._station()
        lines = [f"{time.strftime('%H:%M:%S', time.localtime(i.when))}  {i.where}: {i.what}"
                 for i in reversed(station.incidents.recent())]
        where = logs.log_path()
        if where is not None:
            lines.append(f"\nFull tracebacks: {where}")
        return "\n".join(lines) or "No internal errors."

    def show_internal_errors(self) -> None:
        parent: QWidget | None = self._bar.window()
        box = QMessageBox(QMessageBox.Icon.Warning, "Internal errors",
                          f"{self._station().incidents.count} internal errors; newest first.",
                          QMessageBox.StandardButton.Close, parent)
        box.setDetailedText(self.internal_errors_text())
        box.exec()
