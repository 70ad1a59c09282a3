#!/usr/bin/env bash
# Installs the few system packages the project needs on Debian or Ubuntu, only those missing:
# ALSA's headers and pkg-config to build the app's sound; for the tests, iproute2 (the LAN
# tests' network namespaces), Xvfb and xdotool (the real-window tests). Everything else is
# built from source by cargo. Safe to run again: it installs nothing when all is there.
set -euo pipefail
need=()
pkg-config --exists alsa 2>/dev/null || need+=(libasound2-dev pkg-config)
command -v ip >/dev/null 2>&1 || need+=(iproute2)
command -v Xvfb >/dev/null 2>&1 || need+=(xvfb)
command -v xdotool >/dev/null 2>&1 || need+=(xdotool)
if [ "${#need[@]}" -eq 0 ]; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup: please install these packages (or your system's equivalents): ${need[*]}" >&2
  exit 1
fi
sudo=()
if [ "$(id -u)" != 0 ]; then
  sudo=(sudo)
fi
echo "setup: installing ${need[*]}" >&2
"${sudo[@]}" apt-get update -q
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q "${need[@]}"
