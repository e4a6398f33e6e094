#!/usr/bin/env bash
# Runs every check CI runs: lint, import rules, types (mypy; pyproject.toml says where), the
# installer bundle, the test suite (under Xvfb with Mesa's software OpenGL; tests/packaging
# runs the bundle) and the benchmarks in short mode (the start-up one also times the bundle).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh test

export QT_QPA_PLATFORM=${QT_QPA_PLATFORM:-xcb}
export SDL_VIDEODRIVER=dummy LIBGL_ALWAYS_SOFTWARE=1 PYTHONDONTWRITEBYTECODE=1

# The bundle builds while the checkers run: each keeps one core busy.
build_log=$(mktemp)
packaging/build.sh >"$build_log" 2>&1 &
build=$!
trap 'kill "$build" 2>/dev/null || true; rm -f "$build_log"' EXIT
.venv/bin/ruff check .
.venv/bin/lint-imports
.venv/bin/mypy
built=0
wait "$build" || built=$?
cat "$build_log"
[ "$built" -eq 0 ] || { echo "packaging/build.sh failed ($built)"; exit "$built"; }
export FIELDSTATION_BUNDLE=dist/fieldstation
# One worker per core (PYTEST_WORKERS overrides; 0 runs in this process): each is a process
# of its own with its own SDL, Qt application and zenoh sessions, on the same display.
echo "checks and bundle done at ${SECONDS} s"
xvfb-run -a -s "-screen 0 1920x1080x24" .venv/bin/python -m pytest -n "${PYTEST_WORKERS:-auto}" "$@"
FIELDSTATION_BENCH=short xvfb-run -a -s "-screen 0 1920x1080x24" .venv/bin/python -m tests.bench
echo "scripts/test.sh: every check passed in ${SECONDS} s"
