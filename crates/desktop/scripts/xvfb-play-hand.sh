#!/bin/sh
# Plays one whole practice hand in the real window under Xvfb, driven by key presses sent with
# xdotool, until the settlement shows; then takes a screenshot of it.
#
#   crates/desktop/scripts/xvfb-play-hand.sh [BINARY] [OUT.png]
#
# Needs: xvfb, xdotool, imagemagick (apt). BINARY defaults to target/release/shanghai-mahjong.
# The script reads the window title, which names the hand and says when its result is shown
# ("Shanghai Mahjong · Hand 1: the result"). Exit status 0 when the settlement was reached.
set -eu
root=$(cd "$(dirname "$0")/../../.." && pwd)
bin=${1:-$root/target/release/shanghai-mahjong}
out=${2:-}
display=:${XVFB_DISPLAY:-97}
data=$(mktemp -d)
printf '{"name":"Xvfb","lang":"en","faces":"chinese"}' > "$data/settings.json"
Xvfb "$display" -screen 0 1280x800x24 -nolisten tcp >/dev/null 2>&1 &
xvfb=$!
app=
cleanup() {
  [ -n "$app" ] && kill "$app" 2>/dev/null || true
  kill "$xvfb" 2>/dev/null || true
  rm -rf "$data"
}
trap cleanup EXIT
export DISPLAY="$display"
sleep 1
"$bin" --data-dir "$data" --lang en --practice qiaoma &
app=$!
win=$(xdotool search --sync --name "Shanghai Mahjong" | head -n 1)
xdotool windowactivate --sync "$win" 2>/dev/null || xdotool windowfocus "$win"
start=$(date +%s)
while :; do
  title=$(xdotool getwindowname "$win")
  case "$title" in
    *"the result"*) break ;;
  esac
  if [ $(( $(date +%s) - start )) -gt 600 ]; then
    echo "no settlement after 10 minutes (title: $title)" >&2
    exit 1
  fi
  # Win if offered; else discard the first tile (press 1 twice); pass a claim.
  xdotool key --window "$win" h
  xdotool key --window "$win" Escape 1 1
  xdotool key --window "$win" space
  sleep 0.4
done
echo "settlement reached after $(( $(date +%s) - start )) s: $title"
sleep 0.5
if [ -n "$out" ]; then
  import -window root "$out"
  echo "screenshot: $out"
fi
