"""The main window on the real simulated fleet over real zenoh."""

from __future__ import annotations

from app.station.connection import ConnectionChoice
from tests.bus.helpers import wait_for

MOTION = "fleet/rover-1/uplink/motion"


def test_every_registered_panel_opens_in_its_own_dock(make_main_window) -> None:
    window = make_main_window()
    for cls in window.registry.classes():
        window.open_panel(cls.panel_id)
        window.open_panel(cls.panel_id)  # several instances of a type
    names = sorted(window.panels())
    assert len(names) == 2 * len(window.registry.classes())
    assert len(set(names)) == len(names)


def test_status_bar_shows_robots_online(make_main_window, fleet, qtbot) -> None:
    window = make_main_window(show=True)
    qtbot.waitUntil(lambda: window.station.status.session == "online", timeout=10_000)
    qtbot.waitUntil(lambda: "3 robots online" in window.status_strip.robots_label.text(),
                    timeout=10_000)
    wait_for(lambda: {r.robot_id for r in window.station.robots() if r.catalog} ==
             {"rover-1", "humanoid-1", "car-1"}, timeout=10)


def test_internal_errors_show_in_the_status_bar(make_main_window, qtbot) -> None:
    window = make_main_window(show=True)
    window.tick()
    assert window.status_strip.internal_label.isHidden()
    try:
        raise RuntimeError("lane exploded")
    except RuntimeError as exc:  # as a worker's guard records what it caught
        window.station.incidents.record("lane fleet/x/y", exc)
    qtbot.waitUntil(lambda: window.status_strip.internal_label.isVisible(), timeout=10_000)
    assert "1 internal error" in window.status_strip.internal_label.text()
    details = window.status_strip.internal_errors_text()
    assert "lane fleet/x/y: RuntimeError: lane exploded" in details


def test_panels_keep_their_feeds_across_a_reconnect(make_main_window, fleet, free_endpoint,
                                                    qtbot) -> None:
    window = make_main_window(show=True)
    station = window.station
    inspector = window.open_panel("inspector")
    inspector.set_key(MOTION)
    qtbot.waitUntil(lambda: inspector._shown is not None, timeout=10_000)
    window.reconnect(ConnectionChoice(simulation=False, endpoints=[free_endpoint]))
    assert window.station is station  # the session is swapped under it
    qtbot.waitUntil(lambda: station.topics().get(MOTION) is not None, timeout=10_000)
    shown = inspector._shown  # what the old session showed, or the new one's first
    qtbot.waitUntil(lambda: inspector._shown is not shown, timeout=5_000)  # still live


def test_sigterm_closes_the_window_and_saves_the_layout(make_main_window, qtbot) -> None:
    import os
    import signal

    from app.qt.start import close_on_sigterm

    window = make_main_window(show=True, start_clock=False)
    previous = signal.getsignal(signal.SIGTERM)
    try:
        close_on_sigterm(window)
        os.kill(os.getpid(), signal.SIGTERM)
        qtbot.waitUntil(lambda: not window.isVisible(), timeout=5_000)
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert (window.config_dir / "last-layout.json").is_file()
