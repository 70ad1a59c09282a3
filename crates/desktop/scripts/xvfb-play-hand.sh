#!/bin/sh
# Plays one whole practice hand in the real window under Xvfb, driven by key presses sent with
# xdotool, until the settlement shows; then takes a screenshot of it.
#
#   crates/desktop/scripts/xvfb-play-hand.sh [BINARY] [OUT.png]
#
# Needs: xvfb, xdotool, imagemagick (apt). BINARY defaults to target/release/shanghai-mahjong.
# The script reads the window title, which names the hand and says when its result is shown
# ("Shanghai Mahjong · Hand 1: the result"). Exit status 0 when the settlement was reached.
# It also prints the app's resident memory at the end of the hand and its CPU use while idle.
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
# No window manager under Xvfb: give the window the keyboard focus, then send real (XTEST) key
# events (the app, like most, ignores synthetic events sent to a window).
xdotool windowfocus --sync "$win"
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
  # One key per call with a pause: two quick presses of one key can reach the app as one.
  for k in h Escape 1 1 space; do
    xdotool key "$k"
    sleep 0.12
  done
done
echo "settlement reached after $(( $(date +%s) - start )) s: $title"
rss=$(awk '/VmRSS/ {print $2}' "/proc/$app/status")
echo "resident memory at the settlement: $((rss / 1024)) MB"
# CPU while idle at the settlement (the table is paused, nothing changes): 10 s of ticks.
hz=$(getconf CLK_TCK)
cpu() { awk '{print $14 + $15}' "/proc/$app/stat"; }
c0=$(cpu); sleep 10; c1=$(cpu)
echo "CPU while idle at the settlement: $(( (c1 - c0) * 1000 / hz / 10 )) ms per second (0.1% units: $(( (c1 - c0) * 1000 / hz / 10 )))"
if [ -n "$out" ]; then
  import -window root "$out"
  echo "screenshot: $out"
fi
