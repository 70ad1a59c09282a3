#!/bin/sh
# Makes assets/fonts/MahjongSans-{Regular,Bold}.otf: the glyphs the desktop app uses, cut from
# Noto Sans CJK SC (SIL Open Font License 1.1, see OFL.txt) as Debian's fonts-noto-cjk ships
# it, and renamed "Mahjong Sans" (a modified version under the OFL keeps no original name).
#
# Needs: fonts-noto-cjk (apt) and fontTools (apt python3-fonttools, or pip install fonttools).
# Run it again whenever a catalogue, a tile face or a rules document gains a character: the
# characters are printable ASCII and every other character in crates/desktop/src, in the rule
# books the app shows (docs/rules.*.md) and in the rules crate's explanation texts
# (crates/rules/src/explain_text.rs, shown on the hand end and in the scorer), its names of
# tiles and hands (crates/rules/src/names.rs) and the fingerprint words
# (crates/store/src/fingerprint_words.rs).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
src=${NOTO_CJK_DIR:-/usr/share/fonts/opentype/noto}
py=${PYTHON:-python3}
chars="$here/.chars.txt"
# Printable ASCII, then every other character in the app's sources.
"$py" - "$root" "$chars" <<'PY'
import pathlib, sys
root, out = pathlib.Path(sys.argv[1]), sys.argv[2]
chars = {chr(c) for c in range(0x20, 0x7f)}
files = sorted((root / "crates/desktop/src").rglob("*.rs"))
files += sorted((root / "docs").glob("rules.*.md"))
files += [root / "crates/rules/src/explain_text.rs"]
# The rules crate's names of tiles and hands, and the fingerprint words (lobby, contacts).
files += [p for p in [root / "crates/rules/src/names.rs"] if p.exists()]
files += [root / "crates/store/src/fingerprint_words.rs"]
for p in files:
    chars |= {c for c in p.read_text(encoding="utf-8") if ord(c) > 0x7f}
chars |= set("×·—–…“”‘’←→↑↓✓")
pathlib.Path(out).write_text("".join(sorted(chars)), encoding="utf-8")
PY
for weight in Regular Bold; do
  "$py" -m fontTools.subset "$src/NotoSansCJK-$weight.ttc" --font-number=2 \
    --text-file="$chars" --layout-features='*' --no-hinting --desubroutinize \
    --output-file="$here/MahjongSans-$weight.otf"
  "$py" - "$here/MahjongSans-$weight.otf" "$weight" <<'PY'
import sys
from fontTools.ttLib import TTFont
path, weight = sys.argv[1], sys.argv[2]
f = TTFont(path)
names = {1: "Mahjong Sans", 2: weight, 3: f"Mahjong Sans {weight}; subset of Noto Sans CJK SC",
         4: f"Mahjong Sans {weight}", 6: f"MahjongSans-{weight}", 16: "Mahjong Sans", 17: weight}
for rec in f["name"].names:
    if rec.nameID in names:
        rec.string = names[rec.nameID]
if "CFF " in f:
    cff = f["CFF "].cff
    cff.fontNames = [f"MahjongSans-{weight}"]
    top = cff.topDictIndex[0]
    top.FamilyName, top.FullName = "Mahjong Sans", f"Mahjong Sans {weight}"
    if hasattr(top, "CIDFontName"):
        top.CIDFontName = f"MahjongSans-{weight}"
f.save(path)
missing = [c for c in open(sys.argv[0] if False else path.replace(f"MahjongSans-{weight}.otf", ".chars.txt"), encoding="utf-8").read()
           if ord(c) not in f.getBestCmap()]
if missing:
    print(f"{weight}: not in the font: {''.join(missing)!r}", file=sys.stderr)
PY
done
rm -f "$chars"
ls -l "$here"/MahjongSans-*.otf
