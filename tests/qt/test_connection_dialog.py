"""The connection dialog: endpoints validated as typed, the last choice remembered, and a
choice made in it reconnects the window (real fleet over real zenoh)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.qt.connection_dialog import ConnectionDialog, endpoint_problem
from app.station.connection import ConnectionChoice

SIM, PEER, CLIENT = 0, 1, 2  # rows of the mode box


@pytest.fixture
def dialog(qtbot, tmp_path: Path):
    def make(choice: ConnectionChoice | None = None, config_dir: Path | None = None):
        made = ConnectionDialog(choice or ConnectionChoice(), None,
                                config_dir or tmp_path / "config")
        qtbot.addWidget(made)
        return made
    return make


@pytest.mark.parametrize("endpoint", [
    "tcp/192.168.1.10:7447", "tcp/localhost:7447", "udp/10.0.0.2:7447", "tls/robot-7.lan:443",
    "quic/robot.example.com:7447", "tcp/[::1]:7447", "udp/[fe80::1%eth0]:7447",
    "tcp/192.168.1.10:7447#iface=eth0",
])
def test_good_endpoints_pass(endpoint: str) -> None:
    assert endpoint_problem(endpoint) == ""


@pytest.mark.parametrize(("endpoint", "why"), [
    ("192.168.1.10:7447", "is not protocol/host:port"),
    ("tcp/192.168.1.10", "is not protocol/host:port"),
    ("tcp/:7447", "is not protocol/host:port"),
    ("tcp/robot:port", "is not protocol/host:port"),
    ("tcp//robot:7447", "is not protocol/host:port"),
    ("http/robot:80", "protocol must be one of tcp, udp, tls, quic"),
    ("tcp/robot:0", "port must be 1–65535"),
    ("tcp/robot:70000", "port must be 1–65535"),
])
def test_bad_endpoints_say_why(endpoint: str, why: str) -> None:
    assert why in endpoint_problem(endpoint)


def test_a_bad_line_shows_inline_and_disables_connect(dialog) -> None:
    d = dialog(ConnectionChoice(simulation=False, endpoints=["tcp/10.0.0.2:7447"]))
    assert d.ok_button.isEnabled() and d.error_label.isHidden()

    d.endpoints_edit.setPlainText("tcp/10.0.0.2:7447\n\n  tcp/robot.local  \n")
    assert not d.ok_button.isEnabled()
    assert not d.error_label.isHidden()
    assert "'tcp/robot.local' is not protocol/host:port" in d.error_label.text()
    d.accept()  # Enter with a bad entry does nothing
    assert d.result() == 0 and not (d.config_dir / "connection.json").exists()

    d.endpoints_edit.setPlainText("tcp/10.0.0.2:7447\n\n  tcp/robot.local:7447  \n")
    assert d.ok_button.isEnabled() and d.error_label.isHidden()
    assert d.choice().endpoints == ["tcp/10.0.0.2:7447", "tcp/robot.local:7447"]


def test_a_real_connection_needs_an_endpoint_or_a_config_file(dialog, tmp_path: Path) -> None:
    d = dialog(ConnectionChoice(simulation=False, mode="client"))
    assert "at least one endpoint or a zenoh config file" in d.error_label.text()
    assert not d.ok_button.isEnabled()

    d.config_edit.setText(str(tmp_path / "missing.json5"))
    assert "zenoh config file not found" in d.error_label.text()
    config = tmp_path / "zenoh.json5"
    config.write_text("{}")
    d.config_edit.setText(str(config))
    assert d.ok_button.isEnabled()
    assert d.choice() == ConnectionChoice(simulation=False, mode="client",
                                          config_file=str(config))


def test_the_embedded_fleet_needs_nothing_else(dialog) -> None:
    d = dialog(ConnectionChoice(simulation=False, endpoints=["tcp/nope"]))
    assert not d.ok_button.isEnabled()
    d.mode_box.setCurrentIndex(SIM)
    assert d.ok_button.isEnabled() and d.error_label.isHidden()
    assert not d.endpoints_edit.isEnabled() and not d.config_edit.isEnabled()
    assert d.choice().simulation


def test_the_config_file_picker_fills_the_path(dialog, tmp_path: Path, monkeypatch) -> None:
    from PySide6.QtWidgets import QFileDialog

    config = tmp_path / "robot.json5"
    config.write_text("{}")
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(config), ""))
    d = dialog(ConnectionChoice(simulation=False, mode="client"))
    d.browse_button.click()
    assert d.config_edit.text() == str(config) and d.ok_button.isEnabled()


def test_the_last_choice_is_remembered(dialog, tmp_path: Path) -> None:
    config_dir = tmp_path / "config"
    first = dialog(ConnectionChoice(), config_dir)
    assert first.mode_box.currentIndex() == SIM  # nothing remembered yet: the current choice
    first.mode_box.setCurrentIndex(CLIENT)
    first.endpoints_edit.setPlainText("tcp/10.1.2.3:7447\nquic/10.1.2.4:7447")
    first.accept()
    assert first.result() == 1

    again = dialog(ConnectionChoice(), config_dir)  # e.g. after a restart on the simulation
    assert again.mode_box.currentIndex() == CLIENT
    assert again.endpoints_edit.toPlainText() == "tcp/10.1.2.3:7447\nquic/10.1.2.4:7447"
    assert again.choice() == first.choice()

    (config_dir / "connection.json").write_text("{ not json")
    fallback = dialog(ConnectionChoice(simulation=False, endpoints=["tcp/10.9.9.9:1"]),
                      config_dir)
    assert fallback.endpoints_edit.toPlainText() == "tcp/10.9.9.9:1"


def test_choosing_in_the_dialog_reconnects_the_window(
        make_main_window, fleet, free_endpoint: str, qtbot, monkeypatch) -> None:
    window = make_main_window(show=True, choice=ConnectionChoice(
        simulation=False, endpoints=["tcp/127.0.0.1:9"]))  # nothing listens there
    assert window.status_strip.sim_badge.isHidden()

    def choose(mode: int, endpoints: str):
        def exec_(self: ConnectionDialog) -> int:
            self.mode_box.setCurrentIndex(mode)
            self.endpoints_edit.setPlainText(endpoints)
            self.accept()
            return self.result()
        monkeypatch.setattr(ConnectionDialog, "exec", exec_)
        window._open_connection_dialog()

    choose(PEER, free_endpoint)  # the fleet
    assert window.connection.choice.endpoints == [free_endpoint]
    qtbot.waitUntil(lambda: f"online — {free_endpoint}" in window.status_strip.session_label.text(),
                    timeout=10_000)
    qtbot.waitUntil(lambda: "3 robots online" in window.status_strip.robots_label.text(),
                    timeout=10_000)
    assert window.status_strip.sim_badge.isHidden()
    remembered = json.loads((window.config_dir / "connection.json").read_text())
    assert remembered["endpoints"] == [free_endpoint] and not remembered["simulation"]

    choose(SIM, free_endpoint)
    assert window.connection.sim is not None
    qtbot.waitUntil(window.status_strip.sim_badge.isVisible, timeout=5_000)
    assert "embedded simulated fleet" in window.status_strip.session_label.text()

    choose(PEER, free_endpoint)
    qtbot.waitUntil(lambda: window.status_strip.sim_badge.isHidden(), timeout=5_000)
    assert free_endpoint in window.status_strip.session_label.text()
