"""``--listen`` reaches the window: robots that connect to the station find it listening."""

from __future__ import annotations

import pytest

from app.cli import main
from app.qt.connection_dialog import ConnectionDialog
from app.sim.fleet import SimFleet
from app.station.connection import ConnectionChoice


def test_listen_on_the_command_line_reaches_the_window(monkeypatch) -> None:
    chosen: list[ConnectionChoice] = []
    monkeypatch.setattr("app.qt.start.run_gui",
                        lambda choice, **_: chosen.append(choice) or 0)
    assert main(["--listen", "tcp/0.0.0.0:7448"]) == 0
    assert main(["--connect", "tcp/10.0.0.5:7447", "--listen", "tcp/0.0.0.0:7448"]) == 0
    listening, both = chosen
    assert not listening.simulation and listening.listen == ["tcp/0.0.0.0:7448"]
    assert listening.endpoints == []  # nothing to connect to: robots come to the station
    assert listening.describe() == "listening on tcp/0.0.0.0:7448"
    assert both.endpoints == ["tcp/10.0.0.5:7447"] and both.listen == ["tcp/0.0.0.0:7448"]


def test_listen_is_remembered_with_the_rest_of_the_choice() -> None:
    choice = ConnectionChoice(simulation=False, endpoints=["tcp/10.0.0.5:7447"],
                              listen=["tcp/0.0.0.0:7448"])
    assert ConnectionChoice.from_dict(choice.to_dict()) == choice
    assert ConnectionChoice.from_dict({"simulation": False}).listen == []


def test_the_connection_dialog_keeps_listening(qtbot, tmp_path) -> None:
    dialog = ConnectionDialog(ConnectionChoice(simulation=False, listen=["tcp/0.0.0.0:7448"]),
                              None, tmp_path)
    qtbot.addWidget(dialog)
    assert dialog.problem() == ""  # listening alone is a way to meet robots
    assert dialog.choice().listen == ["tcp/0.0.0.0:7448"]
    dialog.endpoints_edit.setPlainText("tcp/10.0.0.5:7447")
    assert dialog.choice().listen == ["tcp/0.0.0.0:7448"]
    dialog.mode_box.setCurrentIndex(0)  # the embedded simulated fleet
    assert dialog.choice().listen == []


@pytest.mark.slow
def test_robots_that_connect_to_the_listening_window_show_up(
        make_main_window, free_endpoint: str, qtbot) -> None:
    window = make_main_window(show=True, choice=ConnectionChoice(simulation=False,
                                                                 listen=[free_endpoint]))
    # The fleet's router and robots dial the station; nothing listens on their side.
    with SimFleet(["car"], listen=[], connect=[free_endpoint], points=1000):
        qtbot.waitUntil(lambda: "1 robot online" in window.status_strip.robots_label.text(),
                        timeout=10_000)
    assert "listening on " + free_endpoint in window.status_strip.session_label.text()
