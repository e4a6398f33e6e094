#!/usr/bin/env bash
# Runs every check CI runs: lint, import rules, types (mypy; pyproject.toml says where), the
# installer bundle, the test suite (under Xvfb with Mesa's software OpenGL; tests/packaging
# runs the bundle) and the benchmarks in short mode (the start-up one also times the bundle).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh test

export QT_QPA_PLATFORM=${QT_QPA_PLATFORM:-xcb}
export SDL_VIDEODRIVER=dummy LIBGL_ALWAYS_SOFTWARE=1 PYTHONDONTWRITEBYTECODE=1

.venv/bin/ruff check .
.venv/bin/lint-imports
.venv/bin/mypy
packaging/build.sh
export FIELDSTATION_BUNDLE=dist/fieldstation
# One worker per core (PYTEST_WORKERS overrides; 0 runs in this process): each is a process
# of its own with its own SDL, Qt application and zenoh sessions, on the same display.
xvfb-run -a -s "-screen 0 1920x1080x24" .venv/bin/python -m pytest -n "${PYTEST_WORKERS:-auto}" "$@"
FIELDSTATION_BENCH=short xvfb-run -a -s "-screen 0 1920x1080x24" .venv/bin/python -m tests.bench
