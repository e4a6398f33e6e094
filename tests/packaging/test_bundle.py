"""The PyInstaller bundle as a user gets it: built once per session with packaging/build.sh
(or taken from ``FIELDSTATION_BUNDLE``, which scripts/test.sh builds while the tests start), then
run: --version, --self-test under X, the libraries it must carry, and the simulated fleet
served and read by the bundle itself, including the GUI's embedded sim."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from importlib.metadata import version
from pathlib import Path

import pytest

from tests.bus.helpers import wait_for
from tests.conftest import free_port

REPO = Path(__file__).resolve().parents[2]
BATTERY = "fleet/rover-1/uplink/battery"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(900),  # the first test also waits for the build (~1 min)
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="bundle tests run on Linux"),
]


def built_status(status: Path, timeout_s: float = 900) -> None:
    """Waits for the build scripts/test.sh runs beside the tests to write its exit status
    to ``status``; fails unless it is 0."""
    deadline = time.monotonic() + timeout_s
    while not status.is_file() or not status.read_text().strip():
        assert time.monotonic() < deadline, f"no bundle build status in {status} yet"
        time.sleep(0.5)
    assert status.read_text().strip() == "0", "packaging/build.sh failed (scripts/test.sh " \
        "prints its output)"


@pytest.fixture(scope="session")
def bundle() -> Path:
    """The ``fieldstation`` executable of the one-folder bundle."""
    given = os.environ.get("FIELDSTATION_BUNDLE")
    if given:
        building = os.environ.get("FIELDSTATION_BUNDLE_BUILDING")
        if building:
            built_status(Path(building))
        exe = Path(given).resolve() / "fieldstation"
        assert exe.is_file(), f"FIELDSTATION_BUNDLE={given} holds no fieldstation executable"
        return exe
    if importlib.util.find_spec("PyInstaller") is None:
        pytest.skip("PyInstaller is not installed: pip install -e '.[package]'")
    build = subprocess.run([str(REPO / "packaging" / "build.sh")], cwd=REPO,
                           capture_output=True, text=True, timeout=900)
    assert build.returncode == 0, f"build failed:\n{build.stdout[-4000:]}{build.stderr[-4000:]}"
    return REPO / "dist" / "fieldstation" / "fieldstation"


@pytest.fixture
def gui_env(tmp_path: Path) -> dict[str, str]:
    """The bundle's GUI on X (Xvfb in CI), with its settings in a fresh folder."""
    return {**os.environ, "QT_QPA_PLATFORM": "xcb", "FIELDSTATION_CONFIG_DIR": str(tmp_path)}


def on_display(command: list[str]) -> list[str]:
    if os.environ.get("DISPLAY"):
        return command
    if not shutil.which("xvfb-run"):
        pytest.skip("no X display and no xvfb-run")
    return ["xvfb-run", "-a", "-s", "-screen 0 1600x1000x24", *command]


def run(command: list[str], env: dict[str, str] | None = None,
        timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env,
                          stdin=subprocess.DEVNULL)


def echo_one(bundle: Path, endpoint: str, key: str = BATTERY) -> dict:
    result = run([str(bundle), "echo", key, "--json", "--count", "1", "--timeout", "15",
                  "--connect", endpoint])
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.splitlines()[0])


def test_version_is_the_projects(bundle: Path) -> None:
    result = run([str(bundle), "--version"])
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"fieldstation {version('fieldstation')}"


def test_self_test_passes_and_renders_every_panel(bundle: Path, gui_env: dict[str, str]) -> None:
    from panels.registry import load

    result = run(on_display([str(bundle), "--self-test"]), env=gui_env)
    assert result.returncode == 0, f"{result.stdout}\n{result.stderr}"
    assert re.search(r"schemas: \d+ structs", result.stdout)
    assert "zenoh: session on loopback opened and closed" in result.stdout
    for cls in load().classes():
        assert re.search(rf"panel {cls.panel_id}#1: rendered \d+x\d+", result.stdout), cls
    assert "self-test passed" in result.stdout


def test_carries_schemas_resources_plugins_and_libraries(
        bundle: Path, gui_env: dict[str, str]) -> None:
    """packaging/bundle_check.py: each library used as the station uses it, vispy rendering
    with the system's OpenGL driver."""
    result = run(on_display([str(bundle)]), env={**gui_env, "FIELDSTATION_BUNDLE_CHECK": "1"})
    assert result.returncode == 0, f"{result.stdout}\n{result.stderr}"
    lines = dict(line.split(": ", 1) for line in result.stdout.splitlines() if line[:3] == "ok ")
    assert set(lines) == {f"ok {name}" for name in (
        "metadata", "schemas", "resources", "capnp", "zenoh", "qt-plugins", "pyqtgraph",
        "vispy", "pygame", "cv2", "video", "mcap")}
    inside = str(bundle.parent / "_internal")
    for name in ("schemas", "resources", "qt-plugins"):  # from the bundle, not the source tree
        assert inside in lines[f"ok {name}"], lines[f"ok {name}"]
    assert "panels.registry:load" in lines["ok metadata"]


@pytest.fixture
def bundled_sim(bundle: Path) -> Iterator[str]:
    endpoint = f"tcp/127.0.0.1:{free_port()}"
    sim = subprocess.Popen([str(bundle), "sim", "--robots", "rover", "--listen", endpoint],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert sim.stdout is not None
        assert "simulated fleet on" in sim.stdout.readline()
        yield endpoint
        sim.send_signal(signal.SIGTERM)
        assert sim.wait(timeout=15) == 0, sim.stderr.read() if sim.stderr else ""
    finally:
        if sim.poll() is None:
            sim.kill()
            sim.wait()


def test_sim_served_by_the_bundle_is_read_by_the_bundle(bundle: Path, bundled_sim: str) -> None:
    sample = echo_one(bundle, bundled_sim)
    assert sample["key"] == BATTERY and sample["type"] == "fleet.Uplink"
    assert sample["message"]["robotId"] == "rover-1"
    assert 0 <= sample["message"]["battery"]["percentage"] <= 100


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        tree.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    return tree


def _descendants(pid: int) -> list[int]:
    tree, found, todo = _children(), [], [pid]
    while todo:
        kids = tree.get(todo.pop(), [])
        found += kids
        todo += kids
    return found


def _cmdline(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")
    except OSError:
        return []


def test_gui_from_the_bundle_runs_its_embedded_sim(bundle: Path, gui_env: dict[str, str]) -> None:
    gui = subprocess.Popen(on_display([str(bundle)]), env=gui_env, stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        def embedded_sim() -> list[str]:
            assert gui.poll() is None, f"the GUI exited: {gui.stderr.read() if gui.stderr else ''}"
            for pid in _descendants(gui.pid):
                if _cmdline(pid)[:2] == [str(bundle), "sim"]:
                    return _cmdline(pid)
            return []

        args = wait_for(embedded_sim, timeout=30, every=0.1)
        endpoint = args[args.index("--listen") + 1]
        assert echo_one(bundle, endpoint)["message"]["robotId"] == "rover-1"
    finally:
        # SIGTERM ends the GUI without its closeEvent, so its sim is stopped here too.
        processes = _descendants(gui.pid)
        gui.terminate()
        for pid in processes:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
        gui.wait(timeout=15)


def test_start_up_probe_works_for_the_app_and_the_bare_window(
        bundle: Path, gui_env: dict[str, str]) -> None:
    """What tests/bench/bench_startup.py times from the bundle."""
    app_env = {**gui_env, "FIELDSTATION_EXIT_AFTER_FIRST_PAINT": "1"}
    bare_env = {**gui_env, "FIELDSTATION_BARE_WINDOW": "1"}
    for command, env in ((on_display([str(bundle), "--no-sim"]), app_env),
                         (on_display([str(bundle)]), bare_env)):
        started = time.time()
        result = run(command, env=env)
        assert result.returncode == 0, f"{result.stdout}\n{result.stderr}"
        painted = float(re.search(r"^first-paint (\S+)$", result.stdout, re.M).group(1))
        assert started < painted < time.time()
