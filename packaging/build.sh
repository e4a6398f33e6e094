#!/usr/bin/env bash
# Builds the one-folder bundle dist/fieldstation/ (run dist/fieldstation/fieldstation) with
# .venv, and prints its size and the build time. Extra arguments go to PyInstaller
# (e.g. --clean to drop its cache in build/pyinstaller).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || scripts/bootstrap.sh run
if ! .venv/bin/python -c "import PyInstaller" 2>/dev/null; then
  echo "installing PyInstaller (the package extra)"
  .venv/bin/python -m pip install -q -e ".[package]"
fi

started=$(date +%s)
.venv/bin/python -m PyInstaller --noconfirm --log-level WARN \
  --distpath dist --workpath build/pyinstaller "$@" packaging/fieldstation.spec
# The desktop entry, the MCAP file type and their installer, beside the executable.
mkdir -p dist/fieldstation/desktop
cp packaging/desktop/* resources/icons/fieldstation.svg dist/fieldstation/desktop/
echo "built dist/fieldstation/fieldstation in $(( $(date +%s) - started )) s," \
  "bundle size $(du -sh dist/fieldstation | cut -f1)"
