#!/bin/sh
# Installs the launcher and the icon for the current user (no root needed), after
# `cargo install --path crates/desktop` (or with the binary on PATH). Undo: --uninstall.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
data=${XDG_DATA_HOME:-$HOME/.local/share}
apps="$data/applications"
icons="$data/icons/hicolor"
if [ "${1:-}" = "--uninstall" ]; then
  rm -f "$apps/shanghai-mahjong.desktop" "$icons/256x256/apps/shanghai-mahjong.png" \
        "$icons/64x64/apps/shanghai-mahjong.png"
  exit 0
fi
mkdir -p "$apps" "$icons/256x256/apps" "$icons/64x64/apps"
cp "$here/shanghai-mahjong.desktop" "$apps/"
cp "$here/../icons/shanghai-mahjong-256.png" "$icons/256x256/apps/shanghai-mahjong.png"
cp "$here/../icons/shanghai-mahjong-64.png" "$icons/64x64/apps/shanghai-mahjong.png"
command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database "$apps" || true
echo "installed: $apps/shanghai-mahjong.desktop"
