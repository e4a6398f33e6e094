"""The connection dialog: the embedded simulated fleet, or real robots as a zenoh peer or
client (endpoints and/or a zenoh config file). The last choice is remembered in
``<config_dir>/connection.json`` and pre-fills the dialog next time."""

from __future__ import annotations

import contextlib
import json
import re
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app import resources
from app.station.connection import ConnectionChoice

MODES = (("Embedded simulated fleet", "simulation"), ("Peer", "peer"), ("Client", "client"))
PROTOCOLS = ("tcp", "udp", "tls", "quic")
REMEMBERED = "connection.json"
# proto/host:port, host a name, an IPv4 address or a [bracketed IPv6] address; zenoh's
# optional ?metadata and #config suffixes are passed through unchecked.
_ENDPOINT = re.compile(
    r"^(?P<proto>[a-z]+)/(?P<host>\[[0-9A-Fa-f:.%\w]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)"
    r":(?P<port>\d{1,5})(?:[?#].*)?$"
)


def endpoint_problem(text: str) -> str:
    """Why ``text`` is not a usable zenoh endpoint, or "" if it is."""
    match = _ENDPOINT.match(text)
    proto = text.split("/", 1)[0] if "/" in text else ""
    if proto and proto not in PROTOCOLS:
        return f"{text!r}: protocol must be one of {', '.join(PROTOCOLS)}"
    if match is None:
        return f"{text!r} is not protocol/host:port (e.g. tcp/192.168.1.10:7447)"
    if not 0 < int(match["port"]) < 65536:
        return f"{text!r}: port must be 1–65535"
    return ""


def load_last_choice(config_dir: Path) -> ConnectionChoice | None:
    """The choice remembered from last time, or None (missing or unreadable file)."""
    try:
        return ConnectionChoice.from_dict(json.loads((config_dir / REMEMBERED).read_text()))
    except (OSError, ValueError):
        return None


def save_last_choice(config_dir: Path, choice: ConnectionChoice) -> None:
    config_dir.mkdir(parents=True, exist_ok=True)
    (config_dir / REMEMBERED).write_text(json.dumps(choice.to_dict(), indent=1))


class ConnectionDialog(QDialog):
    def __init__(self, choice: ConnectionChoice, parent: QWidget | None = None,
                 config_dir: Path | None = None) -> None:
        super().__init__(parent)
        self.config_dir = config_dir
        self.setWindowTitle("Connect")
        self.setMinimumWidth(480)

        current = QLabel(f"Now: {choice.describe()}")
        current.setStyleSheet("color: palette(placeholder-text);")
        self.mode_box = QComboBox()
        for title, _ in MODES:
            self.mode_box.addItem(title)
        self.endpoints_edit = QPlainTextEdit()
        self.endpoints_edit.setPlaceholderText("tcp/192.168.1.10:7447\none endpoint per line")
        self.endpoints_edit.setTabChangesFocus(True)
        self.endpoints_edit.setFixedHeight(self.fontMetrics().lineSpacing() * 5)
        self.config_edit = QLineEdit()
        self.config_edit.setPlaceholderText("optional: a zenoh config file (JSON5)")
        self.config_edit.setClearButtonEnabled(True)
        self.browse_button = QPushButton("Browse…")
        self.browse_button.clicked.connect(self._browse)
        config_row = QHBoxLayout()
        config_row.addWidget(self.config_edit, 1)
        config_row.addWidget(self.browse_button)
        self.error_label = QLabel()
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet("color: #f85149;")
        self.error_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        form = QFormLayout()
        form.addRow("Mode:", self.mode_box)
        form.addRow("Endpoints:", self.endpoints_edit)
        form.addRow("Zenoh config:", config_row)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                        | QDialogButtonBox.StandardButton.Cancel)
        self.ok_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok_button.setText("Connect")
        # our line icon instead of the style's coloured tick/cross
        self.ok_button.setIcon(QIcon(str(resources.icon_path("connect"))))
        self.buttons.button(QDialogButtonBox.StandardButton.Cancel).setIcon(QIcon())
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(current)
        layout.addLayout(form)
        layout.addWidget(self.error_label)
        layout.addWidget(self.buttons)

        remembered = load_last_choice(config_dir) if config_dir is not None else None
        self._fill(remembered or choice)
        self.mode_box.currentIndexChanged.connect(self._validate)
        self.endpoints_edit.textChanged.connect(self._validate)
        self.config_edit.textChanged.connect(self._validate)
        self._validate()

    def _fill(self, choice: ConnectionChoice) -> None:
        self._listen = list(choice.listen)  # from --listen; the dialog keeps it as it is
        mode = "simulation" if choice.simulation else choice.mode
        self.mode_box.setCurrentIndex([m for _, m in MODES].index(mode))
        self.endpoints_edit.setPlainText("\n".join(choice.endpoints))
        self.config_edit.setText(choice.config_file)

    def _mode(self) -> str:
        return MODES[self.mode_box.currentIndex()][1]

    def _endpoints(self) -> list[str]:
        lines = (line.strip() for line in self.endpoints_edit.toPlainText().splitlines())
        return list(dict.fromkeys(line for line in lines if line))

    def problem(self) -> str:
        """What stops the current entries from connecting, or ""."""
        if self._mode() == "simulation":
            return ""
        for endpoint in self._endpoints():
            problem = endpoint_problem(endpoint)
            if problem:
                return problem
        config = self.config_edit.text().strip()
        if config and not Path(config).expanduser().is_file():
            return f"zenoh config file not found: {config}"
        if not self._endpoints() and not config and not self._listen:
            return "give at least one endpoint or a zenoh config file"
        return ""

    def _validate(self) -> None:
        real = self._mode() != "simulation"
        for widget in (self.endpoints_edit, self.config_edit, self.browse_button):
            widget.setEnabled(real)
        problem = self.problem()
        self.error_label.setText(problem)
        self.error_label.setVisible(bool(problem))
        self.ok_button.setEnabled(not problem)

    def _browse(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Zenoh config file", self.config_edit.text(),
            "Zenoh config (*.json5 *.json *.yaml *.yml);;All files (*)")
        if path:
            self.config_edit.setText(path)

    def choice(self) -> ConnectionChoice:
        mode = self._mode()
        config = self.config_edit.text().strip()
        return ConnectionChoice(
            simulation=mode == "simulation", mode="peer" if mode == "simulation" else mode,
            endpoints=self._endpoints(),
            config_file=str(Path(config).expanduser()) if config else "",
            listen=[] if mode == "simulation" else list(self._listen))

    def accept(self) -> None:
        if self.problem():
            return
        if self.config_dir is not None:
            with contextlib.suppress(OSError):  # not remembering is no reason to refuse
                save_last_choice(self.config_dir, self.choice())
        super().accept()
