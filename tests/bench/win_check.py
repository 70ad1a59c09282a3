#!/usr/bin/env python3
"""Compare `mahjong bench win-check` with the Python `mahjong` package's Agari.is_agari.

Generates HANDS 14-tile hands (about half of them complete: four sets and a pair built at
random; the rest the same with one tile changed), drops any that are seven pairs or thirteen
orphans (is_agari accepts those; the standard-shape check does not), writes them in compact
notation, times is_agari on them, runs the Rust benchmark on the same file and checks that
every verdict is the same. Prints one JSON line with both timings and their ratio.

    pip install mahjong
    cargo build --release -p mahjong-cli
    python3 tests/bench/win_check.py [HANDS] [FILE]

The binary is looked for in $CARGO_TARGET_DIR/release (as cargo builds it there when that
variable is set), else in the repository's target/release; $MAHJONG_BIN names it outright.
"""
import json, os, random, subprocess, sys, time
from pathlib import Path

from mahjong.agari import Agari

HANDS = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
FILE = Path(sys.argv[2] if len(sys.argv) > 2 else "/tmp/win_check_hands.txt")
ROOT = Path(__file__).resolve().parents[2]
# A relative CARGO_TARGET_DIR is relative to the directory cargo runs in, as here.
TARGET = Path(os.environ.get("CARGO_TARGET_DIR") or ROOT / "target").resolve()
BIN = Path(os.environ.get("MAHJONG_BIN") or TARGET / "release" / "mahjong")
if not BIN.is_file():
    sys.exit(f"win_check.py: no mahjong binary at {BIN}: run `cargo build --release -p mahjong-cli` "
             "(with the same CARGO_TARGET_DIR), or set MAHJONG_BIN")

def notation(c):
    out = []
    for base, suf, n in ((0, "m", 9), (9, "p", 9), (18, "s", 9), (27, "z", 7)):
        digits = "".join(str(i + 1) * c[base + i] for i in range(n))
        if digits:
            out.append(digits + suf)
    return "".join(out)

def seven_pairs(c):
    return sum(1 for x in c if x == 2) == 7

def orphans(c):
    term = [0, 8, 9, 17, 18, 26] + list(range(27, 34))
    return sum(c) == 14 and all(c[i] >= 1 for i in term) and sum(c[i] for i in term) == 14

def hand(rng):
    while True:
        c = [0] * 34
        for _ in range(4):
            if rng.random() < 0.4:
                c[rng.randrange(34)] += 3
            else:
                s, n = rng.randrange(3), rng.randrange(7)
                for k in range(3):
                    c[s * 9 + n + k] += 1
        c[rng.randrange(34)] += 2
        if rng.random() < 0.5:
            i = rng.choice([i for i in range(34) if c[i]])
            c[i] -= 1
            c[rng.randrange(34)] += 1
        if max(c) <= 4 and not seven_pairs(c) and not orphans(c):
            return c

rng = random.Random(20261129)
hands = [hand(rng) for _ in range(HANDS)]
FILE.write_text("\n".join(notation(c) for c in hands) + "\n")

best = float("inf")
for _ in range(3):
    t = time.perf_counter()
    py = [Agari.is_agari(c) for c in hands]
    best = min(best, time.perf_counter() - t)
py_ns = best * 1e9 / len(hands)

out = json.loads(subprocess.check_output([str(BIN), "bench", "win-check", str(FILE), "--verdicts"]))
rust = [v == "1" for v in out["verdicts"]]
mismatch = [i for i, (a, b) in enumerate(zip(py, rust)) if a != b]
print(json.dumps({
    "hands": len(hands),
    "winning": sum(py),
    "python_ns_per_hand": round(py_ns, 1),
    "rust_ns_per_hand": out["ns_per_hand"],
    "ratio": round(py_ns / out["ns_per_hand"], 1),
    "same_verdicts": not mismatch,
    "first_mismatch": notation(hands[mismatch[0]]) if mismatch else None,
}))
sys.exit(1 if mismatch else 0)
