#!/usr/bin/env bash
# Makes this bundle the desktop's Fieldstation for the current user: `fieldstation` on the
# PATH (~/.local/bin), the menu entry, its icon, and .mcap files opening with it.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bundle="$(dirname "$here")"
data="${XDG_DATA_HOME:-$HOME/.local/share}"
mkdir -p "$HOME/.local/bin" "$data/applications" "$data/mime/packages" \
  "$data/icons/hicolor/scalable/apps"
ln -sf "$bundle/fieldstation" "$HOME/.local/bin/fieldstation"
cp "$here/fieldstation.desktop" "$data/applications/"
cp "$here/fieldstation-mcap.xml" "$data/mime/packages/"
cp "$here/fieldstation.svg" "$data/icons/hicolor/scalable/apps/"
if command -v update-mime-database >/dev/null; then update-mime-database "$data/mime"; fi
if command -v update-desktop-database >/dev/null; then
  update-desktop-database "$data/applications"
fi
echo "installed: fieldstation in ~/.local/bin, .mcap files open with it"
