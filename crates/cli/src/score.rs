//! `mahjong score`: the scorer for a real table (docs/rules.en.md §8).

use anyhow::{Context, Result};
use mahjong_rules::explain_text::{self, Lang};
use std::io::Read;

/// The `--help` text of `mahjong score`.
pub const LONG_HELP: &str = r#"Score one hand of Shanghai mahjong from a settlement file (JSON) and print the result.

Reads FILE, or standard input when FILE is - or absent. Prints one JSON object on stdout:
  {"winners": [{"seat", "hand", "patterns", "flowers", "points", "value", "cap", "score"}],
   "payments": [p0, p1, p2, p3], "hands": [hand id per winner], "explain": {...}}
payments are in coins (points x stake) and sum to zero. "explain" says why: each winner's
flower items, points, rows, modifiers, multiplier, cap and table limit, and every share paid
with its reason (self-draw, discarder, robbed kong, 承包 / 吃三口 row, leaver penalty).
With --explain the same explanation is printed as text instead (--lang en or zh). If the hand does not win under the
ruleset, or the input is impossible (five of a tile, a flower in a meld, 13 tiles where 14 are
needed, ...), the exit status is 1, one line on stderr names the problem, stdout stays empty.

Tiles: 1m-9m characters, 1p-9p dots, 1s-9s bamboo, 1z-7z east south west north white green
red, 1f-8f flowers; digits share a suffix: "123m55z". Spaces are ignored.

Fields (all but "win" optional):
  ruleset    "qiaoma" (default), "classic" or "baida"
  options    {"name": value} overrides of the ruleset's options, e.g. {"table_limit_lezi": null};
             the names, their values and each preset's default are listed below (their
             effects in docs/rules.en.md §9, 中文 docs/rules.zh.md)
  stake      coins per point (default 1)
  dealer     the dealer's seat, 0-3
  kaibao     this hand's dice were a double or 1 and 4 (开宝; in classic such dice make it
             a 荒番 hand)
  huangfan   the drawn-hand counter (荒番) in force for this hand (doubles it when above 0)
  wildcard   baida's wildcard tile (百搭), e.g. "5p"
  declared   [bool x4]: seats that had declared ready (敲)
  claims     4x4: claims[a][b] = chows, pungs and claimed kongs seat a made on b's discards
  win.kind   self_draw | discard | rob_kong | eight_flowers | four_wildcards
  win.from   the discarder or the kong player (discard, rob_kong)
  win.winners[]: seat; concealed (tiles in hand at the win, winning tile included);
             winning_tile; melds [{"type": "chow"|"pung"|"kong", "tiles": "777z",
             "concealed": bool, "added": bool}]; flowers ("12f"); replacement_draw (won on a
             replacement draw after a kong or flower)

Example (seat 1 wins 碰碰胡 on seat 3's discard; pays [0, 9, 0, -9]):
  {"ruleset": "qiaoma", "stake": 1, "declared": [false, true, false, false],
   "win": {"kind": "discard", "from": 3, "winners": [{"seat": 1,
     "concealed": "222m55p999s", "winning_tile": "9s",
     "melds": [{"type": "pung", "tiles": "777z"},
               {"type": "kong", "tiles": "1111z", "concealed": true}],
     "flowers": "12f"}]}}
"#;

/// [`LONG_HELP`] and the options, from the rules' catalogue: name, values, each preset's
/// default.
pub fn long_help() -> String {
    let mut help = LONG_HELP.trim_end().to_string();
    help.push_str("\n\nOptions (name, values, default under each preset it applies to):\n");
    for spec in &mahjong_rules::catalogue::OPTIONS {
        help.push_str("  ");
        help.push_str(spec.help_line().trim_end());
        help.push('\n');
    }
    help
}

/// The arguments of `mahjong score`.
#[derive(clap::Args)]
pub struct ScoreArgs {
    /// The settlement file, or - (the default) for standard input.
    #[arg(default_value = "-")]
    file: String,
    /// Print why each seat pays what it pays, as text, instead of the JSON.
    #[arg(long)]
    explain: bool,
    /// The language of --explain: zh (中文) or en.
    #[arg(long, default_value = "en")]
    lang: String,
}

/// Runs `mahjong score FILE`.
pub fn run(args: &ScoreArgs) -> Result<()> {
    let file = args.file.as_str();
    let lang: Lang = args
        .lang
        .parse()
        .map_err(|e| anyhow::anyhow!("--lang: {e}"))?;
    let text = if file == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .context("reading standard input")?;
        s
    } else {
        std::fs::read_to_string(file).with_context(|| format!("reading {file}"))?
    };
    // A file's errors name the file; standard input's need no name.
    let out = match mahjong_rules::score_json(&text) {
        Err(e) if file != "-" => return Err(anyhow::Error::new(e).context(file.to_string())),
        r => r?,
    };
    if args.explain {
        for line in explain_text::render(&out.explain, lang) {
            println!("{line}");
        }
    } else {
        println!("{}", serde_json::to_string(&out)?);
    }
    Ok(())
}
