#!/usr/bin/env bash
# Installs the few system packages the project needs on Debian or Ubuntu, only those missing:
# ALSA's headers and pkg-config to build the app's sound; for the tests, iproute2 (the LAN
# tests' network namespaces), nftables (the NAT lab's home routers), Xvfb and xdotool (the real-window tests), and for the Windows
# check (crates/cli/tests/windows.rs: both binaries cross-built and run under wine) MinGW-w64's
# C compiler, wine and the rustup target x86_64-pc-windows-gnu. Everything else is built from
# source by cargo. Safe to run again: it installs nothing when all is there.
set -euo pipefail
need=()
pkg-config --exists alsa 2>/dev/null || need+=(libasound2-dev pkg-config)
command -v ip >/dev/null 2>&1 || need+=(iproute2)
command -v nft >/dev/null 2>&1 || need+=(nftables)
command -v Xvfb >/dev/null 2>&1 || need+=(xvfb)
command -v xdotool >/dev/null 2>&1 || need+=(xdotool)
# The Windows check: MinGW-w64 links the .exe files, wine runs them (wine64 alone: 64-bit
# Windows programs only, no i386 architecture needed). Without recommends: about 205 MB
# downloaded, 1.2 GB installed (Debian 12).
win=()
command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1 || win+=(gcc-mingw-w64-x86-64)
command -v wine >/dev/null 2>&1 || win+=(wine wine64)
if [ "${#need[@]}" -ne 0 ] || [ "${#win[@]}" -ne 0 ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "setup: please install these packages (or your system's equivalents): ${need[*]} ${win[*]}" >&2
    exit 1
  fi
  sudo=()
  if [ "$(id -u)" != 0 ]; then
    sudo=(sudo)
  fi
  echo "setup: installing ${need[*]} ${win[*]}" >&2
  "${sudo[@]}" apt-get update -q
  if [ "${#need[@]}" -ne 0 ]; then
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q "${need[@]}"
  fi
  if [ "${#win[@]}" -ne 0 ]; then
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q --no-install-recommends "${win[@]}"
  fi
fi
# Rust's standard library for Windows (about 125 MB in the toolchain).
if ! rustup target list --installed 2>/dev/null | grep -qx x86_64-pc-windows-gnu; then
  if ! command -v rustup >/dev/null 2>&1; then
    echo "setup: please add Rust's target x86_64-pc-windows-gnu to your toolchain (rustup is not on the PATH)" >&2
    exit 1
  fi
  echo "setup: adding the Rust target x86_64-pc-windows-gnu" >&2
  rustup target add x86_64-pc-windows-gnu
fi
