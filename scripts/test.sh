#!/usr/bin/env bash
# Runs every check CI runs: lint, import rules, types (mypy; pyproject.toml says where), the
# installer bundle, the test suite (under Xvfb with Mesa's software OpenGL; tests/packaging
# runs the bundle) and the benchmarks in short mode (the start-up one also times the bundle).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh test

export QT_QPA_PLATFORM=${QT_QPA_PLATFORM:-xcb}
export SDL_VIDEODRIVER=dummy LIBGL_ALWAYS_SOFTWARE=1 PYTHONDONTWRITEBYTECODE=1

# The bundle builds while the checkers and the first tests run (each keeps a core busy);
# tests/packaging waits for it (FIELDSTATION_BUNDLE_BUILDING names the file its status goes to).
build_log=$(mktemp)
build_status=$(mktemp -u)
(packaging/build.sh >"$build_log" 2>&1; echo $? >"$build_status") &
build=$!
trap 'kill "$build" 2>/dev/null || true; rm -f "$build_log" "$build_status"' EXIT
.venv/bin/ruff check .
.venv/bin/lint-imports
.venv/bin/mypy
echo "checks done at ${SECONDS} s"
export FIELDSTATION_BUNDLE=dist/fieldstation FIELDSTATION_BUNDLE_BUILDING="$build_status"
# One worker more than the cores (PYTEST_WORKERS overrides; 0 runs in this process): the
# tests wait on robots and timers a third of the time, which a third worker fills. Each is a
# process of its own with its own SDL, Qt application, X display and zenoh sessions.
tested=0
workers=${PYTEST_WORKERS:-$(( $(nproc) + 1 ))}
xvfb-run -a -s "-screen 0 1920x1080x24" .venv/bin/python -m pytest -n "$workers" "$@" \
  || tested=$?
wait "$build" || true
cat "$build_log"
built=$(cat "$build_status" 2>/dev/null || echo "no status")
[ "$built" = 0 ] || { echo "packaging/build.sh failed ($built)"; exit 1; }
[ "$tested" -eq 0 ] || exit "$tested"
echo "tests done at ${SECONDS} s"
FIELDSTATION_BENCH=short xvfb-run -a -s "-screen 0 1920x1080x24" .venv/bin/python -m tests.bench
echo "scripts/test.sh: every check passed in ${SECONDS} s"
