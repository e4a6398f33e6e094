"""The Layouts menu as an operator uses it: the current layout checked, a question before a
switch would discard added panels or plot series, a name proposed on Save, export names
that never overwrite."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QFileDialog, QInputDialog, QMessageBox

from app.qt.main_window import MainWindow

Button = QMessageBox.StandardButton


def layout_action(window: MainWindow, name: str) -> QAction:
    return next(a for a in window.layouts.menu.actions() if a.text() == name)


def checked(window: MainWindow) -> list[str]:
    return [a.text() for a in window.layouts.menu.actions() if a.isChecked()]


class Questions:
    """Each question asked, answered with `answer`."""

    def __init__(self) -> None:
        self.asked: list[str] = []
        self.answer = Button.Cancel

    def __call__(self, parent, title, text, *args, **kwargs) -> QMessageBox.StandardButton:
        self.asked.append(f"{title}: {text}")
        return self.answer


@pytest.fixture
def questions(monkeypatch) -> Questions:
    recorded = Questions()
    monkeypatch.setattr(QMessageBox, "question", recorded)
    return recorded


def test_the_menu_checks_the_current_layout_only(make_main_window) -> None:
    window = make_main_window()
    assert checked(window) == []
    window.load_named_layout("Teleop station")
    assert checked(window) == ["Teleop station"]
    layout_action(window, "Field laptop").trigger()  # unchanged: no question
    assert checked(window) == ["Field laptop"]
    assert "topics#1" in window.panels()


def test_an_added_panel_is_not_discarded_without_asking(make_main_window, questions) -> None:
    window = make_main_window()
    window.load_named_layout("Field laptop")
    window.open_panel("mission", tabbed=True)
    before = window.panels()

    layout_action(window, "Teleop station").trigger()  # answered Cancel
    assert len(questions.asked) == 1 and "“Field laptop”" in questions.asked[0]
    assert window.panels() == before  # the same widgets, the added one among them
    assert checked(window) == ["Field laptop"]  # the click did not move the mark

    questions.answer = Button.Discard
    layout_action(window, "Teleop station").trigger()
    assert "mission#1" not in window.panels() and checked(window) == ["Teleop station"]


def test_a_plot_series_added_counts_as_a_change(make_main_window, questions) -> None:
    window = make_main_window()
    window.load_named_layout("Field laptop")
    plot = next(p for p in window.panels().values() if p.panel_id == "plot")
    assert plot.add_series("fleet/rover-1/uplink/battery", "battery.voltage")  # type: ignore
    assert window.layouts.is_changed()
    layout_action(window, "Teleop station").trigger()
    assert len(questions.asked) == 1


def test_save_in_the_question_saves_under_the_proposed_name_then_switches(
        make_main_window, questions, monkeypatch) -> None:
    window = make_main_window()
    window.load_named_layout("Field laptop")
    window.open_panel("mission", tabbed=True)
    proposed: list[str] = []

    def get_text(parent, title, label, *args, text: str = "", **kwargs):
        proposed.append(text)
        return text, True

    monkeypatch.setattr(QInputDialog, "getText", get_text)
    questions.answer = Button.Save
    layout_action(window, "Teleop station").trigger()
    assert proposed == ["Field laptop"]
    saved = (window.layouts_dir() / "Field laptop.json").read_text()
    assert "mission#1" in saved
    assert checked(window) == ["Teleop station"]


def test_save_proposes_a_fresh_name_for_an_unnamed_arrangement(
        make_main_window, monkeypatch) -> None:
    make_main_window().save_named_layout("Layout 1")
    window = make_main_window()  # the same config dir, started with no layout
    window.open_panel("plot")
    proposed: list[str] = []

    def get_text(parent, title, label, *args, text: str = "", **kwargs):
        proposed.append(text)
        return text, True

    monkeypatch.setattr(QInputDialog, "getText", get_text)
    assert window.layouts.save_as()
    assert proposed == ["Layout 2"]
    assert checked(window) == ["Layout 2"]
    assert not window.layouts.is_changed()


def test_the_real_question_box_cancels(make_main_window, qtbot) -> None:
    window = make_main_window(show=True)
    window.load_named_layout("Field laptop")
    window.open_panel("mission", tabbed=True)
    seen: list[str] = []

    def answer() -> None:
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            QTimer.singleShot(20, answer)
            return
        seen.append(box.text())
        box.grab().save(str(Path(window.config_dir).parent / "question.png"))
        box.button(Button.Cancel).click()

    QTimer.singleShot(0, answer)
    layout_action(window, "Teleop station").trigger()
    assert seen and "Save the changes" in seen[0]
    assert "mission#1" in window.panels()


def test_a_layout_with_live_robots_stays_unchanged_on_its_own(
        make_main_window, fleet, qtbot) -> None:
    window = make_main_window(show=True)
    window.load_named_layout("Field laptop")
    window.set_active_robot("rover-1")
    battery = window.panels()["battery#1"]
    qtbot.waitUntil(lambda: "Voltage" in dict(battery.gauge.details()),  # type: ignore
                    timeout=10_000)
    assert not window.layouts.is_changed()


def test_export_proposes_a_name_that_does_not_overwrite(make_main_window, monkeypatch) -> None:
    window = make_main_window()
    window.load_named_layout("Teleop station")
    offered: list[str] = []

    def get_save_file_name(parent, caption, start, *args, **kwargs):
        offered.append(start)
        return "", ""

    monkeypatch.setattr(QFileDialog, "getSaveFileName", get_save_file_name)
    window.layouts.export_layout()
    assert offered[0].startswith("Teleop station ") and offered[0].endswith(".json")
    assert Path(offered[0]).parent == Path(".")  # the dialog starts where it did
    assert offered[0] != "layout.json"
