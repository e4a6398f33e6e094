#!/usr/bin/env bash
# Installs what Fieldstation needs on a fresh Debian/Ubuntu machine: the system libraries of
# Qt's xcb plugin and Mesa (and Xvfb for tests), then a virtualenv in .venv with the project.
# Usage: scripts/bootstrap.sh [run|test]
set -euo pipefail
cd "$(dirname "$0")/.."
purpose=${1:-run}

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"

apt_packages=(
  libgl1 libegl1 libgl1-mesa-dri libglib2.0-0 libfontconfig1 libdbus-1-3 libxkbcommon0
  libxkbcommon-x11-0 libxcb-cursor0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1
  libxcb-randr0 libxcb-render-util0 libxcb-shape0 libxcb-xfixes0 libxcb-xinerama0
  libxcb-xkb1 libx11-xcb1
)
[ "$purpose" = test ] && apt_packages+=(xvfb xauth xdotool)

missing=()
for pkg in "${apt_packages[@]}"; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if ! python3 -c 'import sys, venv, ensurepip; assert sys.version_info >= (3, 11)' 2>/dev/null; then
  missing+=(python3 python3-venv)
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing system packages: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
stamp=.venv/.fieldstation-$purpose
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  .venv/bin/python -m pip install -q --upgrade pip
  extras=""
  [ "$purpose" = test ] && extras="[dev]"
  .venv/bin/python -m pip install -q -e ".$extras"
  touch "$stamp"
fi
