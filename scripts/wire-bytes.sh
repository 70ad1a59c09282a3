#!/usr/bin/env bash
# What a hand costs four real peers: four `mahjong play --bot` processes meet by a table code
# at a relay on loopback (their links go direct, on 127.0.0.1), play HANDS qiaoma hands and
# print their traffic. Prints the mean bytes each peer sent a hand (its messages and their
# 4-byte length prefixes, as `play` counts them; libp2p's own framing not counted), the CPU
# each peer used a hand (user + system) and the size of one player's data directory a hand.
# Loopback only: nothing leaves the machine.
#
#   scripts/wire-bytes.sh [BIN] [HANDS]   (default: target/debug/mahjong, 60 hands)
set -euo pipefail
bin=${1:-target/debug/mahjong}
hands=${2:-60}
dir=$(mktemp -d)
trap 'kill "$relay" 2>/dev/null || true; rm -rf "$dir"' EXIT
"$bin" relay --listen /ip4/127.0.0.1/tcp/0 --data-dir "$dir/relay" >"$dir/relay.out" 2>/dev/null &
relay=$!
addr=
for _ in $(seq 1 100); do
  addr=$(head -1 "$dir/relay.out" || true)
  [ -n "$addr" ] && break
  sleep 0.1
done
[ -n "$addr" ] || { echo "wire-bytes: the relay printed no address" >&2; exit 1; }
pids=()
for i in 0 1 2 3; do
  /usr/bin/time -f "%U %S" -o "$dir/p$i.time" "$bin" play --bot --name "p$i" \
    --data-dir "$dir/p$i" --hands "$hands" --wait 60 --no-mdns --relay "$addr" \
    --code "7k3m qx9p" --listen /ip4/127.0.0.1/tcp/0 2>"$dir/p$i.err" >/dev/null &
  pids+=($!)
done
start=$(date +%s.%N)
wait "${pids[@]}"
took=$(echo "$(date +%s.%N) - $start" | bc)
grep -h "bytes sent" "$dir"/p?.err |
  sed 's/.*messages, \([0-9]*\) bytes sent/\1/' |
  awk -v h="$hands" -v t="$took" '{s += $1} END {
    if (NR != 4) { print "wire-bytes: " NR " of 4 peers finished" > "/dev/stderr"; exit 1 }
    printf "sent: %.1f KB a peer a hand (%d hands in %.1f s)\n", s / NR / h / 1000, h, t }'
cat "$dir"/p?.time | awk -v h="$hands" '{c += $1 + $2} END {
  printf "CPU: %.0f ms a peer a hand (user + system)\n", c / 4 / h * 1000 }'
du -sb "$dir/p0" | awk -v h="$hands" '{printf "disk: %.1f KB a hand in a player'"'"'s data directory\n", $1 / h / 1000}'
