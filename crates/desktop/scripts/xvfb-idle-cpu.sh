#!/bin/sh
# The app's CPU while it idles at a practice table under Xvfb, waiting for the player's discard:
# it starts the app, waits for the player's first turn prompt in its log, then reads utime +
# stime from /proc/PID/stat over 10 s (checking that nothing was played meanwhile).
#
#   crates/desktop/scripts/xvfb-idle-cpu.sh [BINARY]
#
# Needs: xvfb (apt). BINARY defaults to target/release/shanghai-mahjong.
set -eu
root=$(cd "$(dirname "$0")/../../.." && pwd)
bin=${1:-$root/target/release/shanghai-mahjong}
display=:${XVFB_DISPLAY:-96}
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
"$bin" --data-dir "$data" --lang en --practice qiaoma 2>/dev/null &
app=$!
until grep -q 'your prompt.*kind="turn"' "$data/mahjong.log" 2>/dev/null; do sleep 0.1; done
sleep 0.5
hz=$(getconf CLK_TCK)
cpu() { awk '{print $14 + $15}' "/proc/$app/stat"; }
played0=$(grep -c 'you played' "$data/mahjong.log" || true)
c0=$(cpu); sleep 10; c1=$(cpu)
played1=$(grep -c 'you played' "$data/mahjong.log" || true)
[ "$played0" = "$played1" ] || { echo "something was played during the 10 s" >&2; exit 1; }
echo "CPU at the practice table waiting for the discard, 10 s: $(( (c1 - c0) * 1000 / hz )) ms ($((c1 - c0)) ticks of 1/$hz s)"
