#!/bin/sh
# Draws the app icon (a 中 tile on green felt) at 256 px and 64 px, and the 64 px raw RGBA
# the window uses (the app has no image decoder), and the Windows .ico the app's exe embeds
# (crates/desktop/build.rs). Needs ImageMagick and the bundled font.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
font="$here/../fonts/MahjongSans-Bold.otf"
convert -size 256x256 xc:none \
  -fill '#1b6b50' -draw 'roundrectangle 8,8 248,248 40,40' \
  -fill '#9c9480' -draw 'roundrectangle 52,34 204,230 22,22' \
  -fill '#fbf5e3' -draw 'roundrectangle 52,28 204,218 22,22' \
  -fill '#c81a1f' -font "$font" -pointsize 150 -gravity center -annotate +0-6 '中' \
  "$here/shanghai-mahjong-256.png"
convert "$here/shanghai-mahjong-256.png" -resize 64x64 "$here/shanghai-mahjong-64.png"
convert "$here/shanghai-mahjong-64.png" -depth 8 rgba:"$here/shanghai-mahjong-64.rgba"
convert "$here/shanghai-mahjong-256.png" -depth 8 -define icon:auto-resize=256,64,48,32,16 \
  "$here/shanghai-mahjong.ico"
