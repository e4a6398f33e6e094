"""``make_main_window`` fails a test that leaves any top-level widget behind, shown or not;
and the window's own scratch work leaves none."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from PySide6.QtWidgets import QApplication, QMainWindow

REPO = Path(__file__).resolve().parents[2]

LEAKY_TESTS = '''
from PySide6.QtWidgets import QDialog

from tests.conftest import free_endpoint  # noqa: F401
from tests.qt.conftest import make_main_window, qapp_cls  # noqa: F401

kept = []


def test_leaks_a_hidden_dialog(make_main_window):
    make_main_window()
    kept.append(QDialog(windowTitle="hidden leak"))


def test_leaks_a_shown_dialog(make_main_window):
    make_main_window()
    kept.append(QDialog(windowTitle="shown leak"))
    kept[-1].show()


def test_leaks_nothing(make_main_window):
    make_main_window(show=True).open_panel("plot")
'''


def test_a_leaked_top_level_widget_fails_the_test_shown_or_not(tmp_path: Path) -> None:
    tests = tmp_path / "test_leaky.py"
    tests.write_text(textwrap.dedent(LEAKY_TESTS))
    result = subprocess.run(
        [sys.executable, "-m", "pytest", str(tests), "-p", "no:cacheprovider", "-q",
         "--rootdir", str(tmp_path)],
        cwd=REPO, capture_output=True, text=True, timeout=120)
    assert "3 passed, 2 errors" in result.stdout, result.stdout[-3000:]
    assert "ERROR at teardown of test_leaks_a_hidden_dialog" in result.stdout
    assert "leaked top-level widgets: QDialog(hidden leak)" in result.stdout
    assert "leaked top-level widgets: QDialog(shown leak)" in result.stdout


def test_checking_a_layouts_window_bytes_leaves_no_window(make_main_window) -> None:
    window = make_main_window()
    window.open_panel("plot")
    text = window.current_layout("mine").to_json()
    assert window.load_layout_text(text, "mine")  # checked on a scratch QMainWindow first
    # gone at once, not on the event loop's next turn
    assert [w for w in QApplication.topLevelWidgets() if type(w) is QMainWindow] == []
