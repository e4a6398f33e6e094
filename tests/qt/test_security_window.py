"""The window pointed at a router that wants a password it was not given: its status bar
says so, in words, instead of a bare "error"."""

from __future__ import annotations

import pytest

from app.bus.config import BusConfig
from app.bus.session import BusSession
from app.cli import main
from app.station.connection import ConnectionChoice
from tests.bus.depot import NO_PASSWORD, make_depot


def test_the_window_says_the_router_wants_a_password(make_main_window, qtbot, tmp_path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    depot = make_depot(tmp_path / "depot")
    router = BusSession(BusConfig(config_file=depot.config("router")))
    try:
        chosen: list[ConnectionChoice] = []
        monkeypatch.setattr("app.qt.start.run_gui",
                            lambda choice, **_: chosen.append(choice) or 0)
        config = depot.config("station", "nopassword", **NO_PASSWORD)
        assert main(["--zenoh-config", config]) == 0
        (choice,) = chosen
        assert not choice.simulation and choice.mode == "client"  # the file's mode
        window = make_main_window(show=True, choice=choice)
        qtbot.waitUntil(lambda: "requires a user name and password"
                        in window.status_strip.session_label.text(), timeout=10_000)
        assert window.status_strip.session_label.text().split("</span> ", 1)[1].startswith(
            f"error — cannot connect to tls/localhost:{depot.port}: the router refused the "
            "session")
        assert window.status_strip.robots_label.text() == "0 robots online"
    finally:
        router.close()
