"""The import rules of ARCHITECTURE.md, enforced with import-linter contracts."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def run_lint_imports(cwd: Path, pythonpath: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(pythonpath)}
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"], cwd=cwd, env=env, capture_output=True, text=True,
        timeout=120,
    )


def test_project_keeps_every_import_contract() -> None:
    result = run_lint_imports(REPO, REPO)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_contracts_catch_a_violation(tmp_path: Path) -> None:
    """The same contracts, on a tiny tree where app imports a widget and Qt, the MCAP
    package imports the station above it, the simulator imports the station, and a panel
    reaches into the main window."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]
    sources = {
        "app": "import widgets.gauge\nimport PySide6\n",
        "widgets": "",
        "panels": "",
        "schemas": "",
    }
    layers = [name.strip() for layer in next(c for c in config["contracts"]
                                             if c["type"] == "layers")["layers"]
              for name in layer.split("|")]
    sources |= {f"app/{name}": "" for name in layers}
    sources["app/record"] = "import app.station\n"
    sources["app/sim"] = "import app.station\n"
    for package, source in sources.items():
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text(source)
    (tmp_path / "widgets" / "gauge.py").write_text("")
    (tmp_path / "panels" / "camera.py").write_text("import app.qt.main_window\n"
                                                   "import app.qt.panel_api\n")
    (tmp_path / "app" / "qt" / "main_window.py").write_text("")
    (tmp_path / "app" / "qt" / "panel_api.py").write_text("")
    lines = [
        "[tool.importlinter]",
        f"root_packages = {config['root_packages']!r}",
        "include_external_packages = true",
    ]
    for contract in config["contracts"]:
        lines.append("[[tool.importlinter.contracts]]")
        lines += [f"{key} = {value!r}".replace("True", "true").replace("False", "false")
                  for key, value in contract.items()]
    (tmp_path / "pyproject.toml").write_text("\n".join(lines) + "\n")
    result = run_lint_imports(tmp_path, tmp_path)
    assert result.returncode != 0, result.stdout + result.stderr
    for broken in ("app never imports widgets or panels",
                   "app is Qt-free outside its Qt bridge (app.qt)",
                   "app in layers: a package imports only those below it",
                   "the simulator never imports the station (it is a robot)",
                   "panels reach app.qt only through its panel API"):
        assert f"{broken} BROKEN" in result.stdout, result.stdout
    assert "app.record -> app.station" in result.stdout  # the layer it names
    assert "app.qt.panel_api" not in result.stdout.split("Broken contracts")[-1]


def test_no_panel_shadows_qwidget_update() -> None:
    """The per-tick hook is ``on_frame``: a panel defining ``update`` would break Qt's own
    repaint requests (``QWidget.update()``) for that widget."""
    from panels.registry import load

    shadowing = [cls.__name__ for cls in load().classes()
                 for klass in cls.__mro__ if klass.__module__.startswith("panels")
                 and "update" in vars(klass)]
    assert shadowing == []
    assert all(callable(getattr(cls, "on_frame", None)) for cls in load().classes())


def test_the_start_up_path_leaves_numpy_vispy_and_pyqtgraph_for_later() -> None:
    """The window paints before any of these ~0.1-0.5 s imports: they come with the first
    plot, 3D view or decoded Data field, not with the window."""
    import subprocess
    import sys

    probe = ("import sys, app.qt.start as start; start.panel_registry(); "
             "print(sorted(m for m in ('numpy', 'vispy', 'pyqtgraph') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, timeout=60)
    assert out.stdout.strip() == "[]"
