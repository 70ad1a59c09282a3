#!/bin/sh
# Installs Shanghai mahjong from this unpacked tarball for the current user (no root needed):
# the two programs into ~/.local/bin, the launcher and the icons under ~/.local/share.
# Undo: ./install.sh --uninstall
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bindir=$HOME/.local/bin
data=${XDG_DATA_HOME:-$HOME/.local/share}
apps="$data/applications"
icons="$data/icons/hicolor"
if [ "${1:-}" = "--uninstall" ]; then
  rm -f "$bindir/shanghai-mahjong" "$bindir/mahjong" "$apps/shanghai-mahjong.desktop" \
        "$icons/256x256/apps/shanghai-mahjong.png" "$icons/64x64/apps/shanghai-mahjong.png"
  echo "removed (your data in ${XDG_DATA_HOME:-$HOME/.local/share}/shanghai-mahjong is kept)"
  exit 0
fi
mkdir -p "$bindir" "$apps" "$icons/256x256/apps" "$icons/64x64/apps"
cp "$here/bin/shanghai-mahjong" "$here/bin/mahjong" "$bindir/"
# The launcher names the program by its full path: ~/.local/bin is not on every PATH.
sed "s|^Exec=shanghai-mahjong|Exec=$bindir/shanghai-mahjong|" \
  "$here/share/applications/shanghai-mahjong.desktop" >"$apps/shanghai-mahjong.desktop"
for s in 256 64; do
  cp "$here/share/icons/hicolor/${s}x$s/apps/shanghai-mahjong.png" "$icons/${s}x$s/apps/"
done
command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database "$apps" || true
echo "installed: $bindir/shanghai-mahjong, $bindir/mahjong and the launcher (your desktop's menu: Shanghai Mahjong)"
