"""Nothing received from the wire is fetched or run: no module of the station can fetch a
URL, unpickle bytes or evaluate code (an AST scan of app/, widgets/, panels/, schemas/).
The one place that opens sockets itself, app/bus/diagnose.py, only probes the endpoints the
user configured, to say why zenoh could not reach them. tests/panels/test_scene3d_models.py
shows it end to end with a model URL."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FETCHING = ("urllib.request", "http.client", "requests", "httpx", "aiohttp", "urllib3",
            "ftplib", "pickle", "marshal", "shelve", "dill")
RUNNING = {"eval", "exec", "compile", "__import__"}


def _imports(tree: ast.AST) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def test_no_module_can_fetch_or_run_what_it_received() -> None:
    offences = []
    files = [p for folder in ("app", "widgets", "panels", "schemas")
             for p in sorted((ROOT / folder).rglob("*.py"))]
    assert len(files) > 100
    for path in files:
        tree = ast.parse(path.read_text(), str(path))
        where = path.relative_to(ROOT)
        for name in _imports(tree):
            if any(name == f or name.startswith(f + ".") for f in FETCHING):
                offences.append(f"{where}: imports {name}")
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id in RUNNING):
                offences.append(f"{where}:{node.lineno}: calls {node.func.id}()")
    assert offences == []
