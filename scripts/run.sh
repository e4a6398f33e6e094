#!/usr/bin/env bash
# Runs Fieldstation on the embedded simulated fleet (pass arguments through, e.g. --connect).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh run
exec .venv/bin/fieldstation "$@"
