"""Status panel: large tiles readable across the room — mode, e-stop and its reason,
battery charge, uptime, GPS fix and its source, the last command the robot acknowledged, link
latency and data age."""

from __future__ import annotations

import math
import time
from typing import Any

from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from app.qt.panel_api import PanelHost
from app.render_text import human_age
from app.station.commands import sent_kind, sent_unix_s
from app.station.frame import FrameBatch
from app.station.vitals import RobotVitals
from panels.base import PanelBase
from panels.robot_picker import RobotPicker, no_robot_text
from widgets.battery_gauge import CRITICAL_PCT, WARNING_PCT, level_state
from widgets.status_light import ALARM, ONLINE, WARNING
from widgets.status_tile import StatusTile

# The battery is a tile too: the layouts that drive (Teleop station) have no battery panel,
# and a charge below 20 % scales driving down.
TILES = ("Mode", "E-stop", "Battery", "Uptime", "GPS fix", "Last command", "Link latency",
         "Data age")
COLUMNS = 4
STALE_S = 2.0  # data older than this is shown as stale, older than LOST_S as lost
LOST_S = 10.0
LATENCY_WARN_S = 0.3
GOOD_FIXES = ("fixedRtk", "floatRtk", "dgps", "sbas", "gps", "pps")
RTK_FIXES = ("fixedRtk",)


class StatusPanel(PanelBase):
    panel_id = "status"
    title = "Status"

    def __init__(self, host: PanelHost) -> None:
        super().__init__(host)
        self.picker = RobotPicker()
        self.hint = QLabel()
        self.tiles = {name: StatusTile(name) for name in TILES}
        board = QWidget()
        grid = QGridLayout(board)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setSpacing(4)
        for i, tile in enumerate(self.tiles.values()):
            grid.addWidget(tile, i // COLUMNS, i % COLUMNS)
        scroll = QScrollArea()  # a short dock scrolls rather than squeezing the view
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(board)
        top = QHBoxLayout()
        top.addWidget(self.picker)
        top.addWidget(self.hint, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addWidget(scroll, 1)
        self._shown: tuple[Any, ...] = ()

    def on_frame(self, batch: FrameBatch) -> None:
        robot_id, vitals = self.picker.vitals(batch)
        shown = (robot_id, vitals.version if vitals else -1)
        if shown == self._shown and not batch.tables_changed:
            return
        self._shown = shown
        self.hint.setText("" if vitals else no_robot_text(robot_id, "status"))
        self.fill(vitals or RobotVitals(robot_id or ""), batch.now)

    def text(self, name: str) -> str:
        tile = self.tiles[name]
        return f"{tile.value.text()} {tile.detail.text()}".strip()

    def fill(self, v: RobotVitals, now: float) -> None:
        t = self.tiles
        status = v.status
        if status is None:
            for name in ("Mode", "E-stop", "Uptime", "Last command"):
                t[name].set("—", "no status yet")
        else:
            age = f"{human_age(now - status.at)} ago"
            t["Mode"].set(str(status.mode).upper() if isinstance(status.mode, str)
                          else f"mode {status.mode}", age)
            if status.estop:
                t["E-stop"].set("ENGAGED", status.estop_reason or "no reason given", ALARM,
                                fill=True)
            else:
                t["E-stop"].set("released", "", ONLINE)
            t["Uptime"].set(_uptime(status.uptime_s))
            t["Last command"].set(*_last_command(status.last_command_seq))
            t["Last command"].setToolTip(f"Command id {status.last_command_seq}: the newest "
                                         "the robot acknowledged" if status.last_command_seq
                                         else "The robot has acknowledged no command")
        battery = v.battery
        if battery is None or battery.percentage is None or \
                not math.isfinite(battery.percentage):
            t["Battery"].set("—", "no battery reported")
        else:
            word, colour = level_state(battery.percentage, WARNING_PCT, CRITICAL_PCT)
            t["Battery"].set(f"{battery.percentage:.0f} %", f"{word} · {battery.status}",
                             colour)
        gnss = v.gnss
        if gnss is None:
            t["GPS fix"].set("—", "no fix reported")
        else:
            fix = gnss.fix_type
            colour = ONLINE if fix in RTK_FIXES else WARNING if fix in GOOD_FIXES else ALARM
            t["GPS fix"].set(str(fix) if isinstance(fix, str) else f"fix {fix}",
                             f"source: {gnss.source}", colour)
        latency = v.latency_s
        if latency is None:
            t["Link latency"].set("—")
        else:
            t["Link latency"].set(f"{latency * 1000:.0f} ms", "incl. clock offset",
                                  WARNING if abs(latency) > LATENCY_WARN_S else ONLINE)
        if v.last_at is None:
            t["Data age"].set("—", "no data")
        else:
            data_age = now - v.last_at
            state = "LOST" if data_age > LOST_S else "STALE" if data_age > STALE_S else "live"
            t["Data age"].set(human_age(data_age), state,
                              ALARM if state == "LOST" else WARNING if state == "STALE"
                              else ONLINE)

    def save_state(self) -> dict[str, Any]:
        return self.picker.save()

    def restore_state(self, state: dict[str, Any]) -> None:
        self.picker.restore(state)


def _last_command(seq: int) -> tuple[str, str]:
    """(value, detail) of the newest command the robot acknowledged: what it was (when this
    station sent it) and how long ago it was sent; its bare id is for the tooltip."""
    if not seq:
        return "none", ""
    kind = sent_kind(seq) or "command"
    sent = sent_unix_s(seq)
    when = f" · sent {human_age(max(time.time() - sent, 0.0))} ago" if sent is not None else ""
    return kind, f"acknowledged{when}"


def _uptime(seconds: float | None) -> str:
    if seconds is None or seconds < 0:
        return "—"
    s = int(seconds)
    days, s = divmod(s, 86400)
    hours, s = divmod(s, 3600)
    minutes, s = divmod(s, 60)
    if days:
        return f"{days} d {hours} h"
    return f"{hours}:{minutes:02d}:{s:02d}" if hours else f"{minutes}:{s:02d}"
