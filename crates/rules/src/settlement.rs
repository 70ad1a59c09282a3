//! The settlement file (docs/rules.en.md §8): one hand's end as JSON in, its scoring as JSON out.
//!
//! This is how people playing with physical tiles use the scorer, and how scoring is tested.
//! [`score_json`] is the whole pipeline; [`parse_settlement`] gives the checked
//! [`Settlement`] and [`result_json`] the output object. Every problem with the input is a
//! one-line [`SettlementError`] naming the field and what is wrong.

use crate::hand::{MeldShape, MeldType};
use crate::options::{Options, Ruleset};
use crate::scoring::{
    self, Explanation, Money, ScoreError, ScoreResult, Settlement, WinKind, WinnerHand,
};
use crate::tile::{Tile, format_tiles, parse_tiles};
use serde::{Deserialize, Serialize};

/// Why a settlement file cannot be scored.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SettlementError {
    /// Not valid JSON, or a field of the wrong type.
    #[error("bad settlement JSON: {0}")]
    Json(String),
    /// A field with a bad value.
    #[error("{field}: {why}")]
    Field {
        /// Where, e.g. `win.winners[0].melds[1]`.
        field: String,
        /// What is wrong.
        why: String,
    },
    /// The hand does not score (not a win, or impossible).
    #[error(transparent)]
    Score(#[from] ScoreError),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileSettlement {
    #[serde(default = "default_ruleset")]
    ruleset: String,
    #[serde(default)]
    options: serde_json::Value,
    #[serde(default = "default_stake")]
    stake: f64,
    #[serde(default)]
    dealer: u8,
    #[serde(default)]
    kaibao: bool,
    #[serde(default)]
    huangfan: u32,
    #[serde(default)]
    wildcard: Option<String>,
    #[serde(default)]
    declared: [bool; 4],
    #[serde(default)]
    claims: [[u32; 4]; 4],
    win: FileWin,
}

fn default_ruleset() -> String {
    "qiaoma".into()
}
fn default_stake() -> f64 {
    1.0
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileWin {
    kind: WinKind,
    #[serde(default)]
    from: Option<u8>,
    winners: Vec<FileWinner>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileWinner {
    seat: u8,
    #[serde(default)]
    concealed: String,
    #[serde(default)]
    winning_tile: Option<String>,
    #[serde(default)]
    melds: Vec<FileMeld>,
    #[serde(default)]
    flowers: String,
    #[serde(default)]
    replacement_draw: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileMeld {
    #[serde(rename = "type")]
    kind: String,
    tiles: String,
    #[serde(default)]
    concealed: bool,
    #[serde(default)]
    added: bool,
}

/// Keeps an error message on one line: control characters from the input are escaped.
fn one_line(s: &str) -> String {
    s.chars()
        .flat_map(|c| {
            let v: Vec<char> = if c.is_control() {
                c.escape_default().collect()
            } else {
                vec![c]
            };
            v
        })
        .collect()
}

fn field<T>(field: impl Into<String>, why: impl Into<String>) -> Result<T, SettlementError> {
    Err(SettlementError::Field {
        field: one_line(&field.into()),
        why: one_line(&why.into()),
    })
}

fn tiles(at: &str, s: &str) -> Result<Vec<Tile>, SettlementError> {
    parse_tiles(s).or_else(|e| field(at, e.to_string()))
}

/// Parses and checks a settlement file (everything but whether the hands win).
pub fn parse_settlement(json: &str) -> Result<Settlement, SettlementError> {
    let value: serde_json::Value =
        serde_json::from_str(json).map_err(|e| SettlementError::Json(one_line(&e.to_string())))?;
    if !value.is_object() {
        return Err(SettlementError::Json(
            "a settlement is a JSON object ({\"ruleset\": ..., \"win\": {...}})".into(),
        ));
    }
    let f: FileSettlement = serde_json::from_value(value)
        .map_err(|e| SettlementError::Json(one_line(&e.to_string())))?;
    let ruleset: Ruleset = f
        .ruleset
        .parse()
        .or_else(|e: crate::OptionsError| field("ruleset", e.to_string()))?;
    let options: Options = Options::preset(ruleset)
        .apply_overrides(&f.options)
        .or_else(|e| field("options", e.to_string()))?;
    let stake = match Money::from_f64(f.stake) {
        _ if f.stake <= 0.0 => return field("stake", format!("must be positive, got {}", f.stake)),
        _ if f.stake > 1e9 => {
            return field(
                "stake",
                format!(
                    "{} is too large (at most 1000000000 coins a point)",
                    f.stake
                ),
            );
        }
        Some(m) if (m.as_f64() - f.stake).abs() <= 1e-9 * f.stake.max(1.0) && m.0 > 0 => m,
        _ => {
            return field(
                "stake",
                format!(
                    "{} has more than two decimals (coins are counted to the hundredth)",
                    f.stake
                ),
            );
        }
    };
    if f.dealer > 3 {
        return field("dealer", format!("{} is not a seat (0-3)", f.dealer));
    }
    let wildcard = match &f.wildcard {
        None => None,
        Some(s) => Some(
            s.parse::<Tile>()
                .or_else(|e| field("wildcard", e.to_string()))?,
        ),
    };
    if wildcard.is_some() && !options.wildcard {
        return field(
            "wildcard",
            format!("{ruleset} has no wildcard; leave it null"),
        );
    }
    let mut winners = Vec::with_capacity(f.win.winners.len());
    for (i, w) in f.win.winners.iter().enumerate() {
        let at = format!("win.winners[{i}]");
        if w.seat > 3 {
            return field(
                format!("{at}.seat"),
                format!("{} is not a seat (0-3)", w.seat),
            );
        }
        let concealed = tiles(&format!("{at}.concealed"), &w.concealed)?;
        let winning_tile = match &w.winning_tile {
            None => None,
            Some(s) if s.trim().is_empty() => None,
            Some(s) => Some(
                s.parse::<Tile>()
                    .or_else(|e| field(format!("{at}.winning_tile"), e.to_string()))?,
            ),
        };
        let mut melds = Vec::with_capacity(w.melds.len());
        for (j, m) in w.melds.iter().enumerate() {
            melds.push(parse_meld(&format!("{at}.melds[{j}]"), m)?);
        }
        let flowers = tiles(&format!("{at}.flowers"), &w.flowers)?;
        winners.push(WinnerHand {
            seat: w.seat,
            concealed,
            winning_tile,
            melds,
            flowers,
            replacement_draw: w.replacement_draw,
        });
    }
    if let Some(from) = f.win.from
        && from > 3
    {
        return field("win.from", format!("{from} is not a seat (0-3)"));
    }
    Ok(Settlement {
        options,
        stake,
        dealer: f.dealer,
        kaibao: f.kaibao,
        huangfan: f.huangfan,
        wildcard,
        declared: f.declared,
        claims: f.claims,
        kind: f.win.kind,
        from: f.win.from,
        winners,
    })
}

fn parse_meld(at: &str, m: &FileMeld) -> Result<MeldShape, SettlementError> {
    let ts = tiles(&format!("{at}.tiles"), &m.tiles)?;
    if let Some(f) = ts.iter().find(|t| t.is_flower()) {
        return field(at, format!("a meld cannot hold the flower {f}"));
    }
    let kind = match m.kind.as_str() {
        "chow" => MeldType::Chow,
        "pung" => MeldType::Pung,
        "kong" => match (m.concealed, m.added) {
            (true, true) => return field(at, "a kong is either concealed or added, not both"),
            (true, false) => MeldType::ConcealedKong,
            (false, true) => MeldType::AddedKong,
            (false, false) => MeldType::ClaimedKong,
        },
        other => {
            return field(
                format!("{at}.type"),
                format!("\"{other}\" is not chow, pung or kong"),
            );
        }
    };
    if kind != MeldType::ConcealedKong && m.concealed {
        return field(at, "only a kong can be concealed");
    }
    if !kind.is_kong() && m.added {
        return field(at, "only a kong can be added");
    }
    if ts.len() != kind.tile_count() {
        return field(
            at,
            format!(
                "a {} has {} tiles, got {} ({})",
                m.kind,
                kind.tile_count(),
                ts.len(),
                m.tiles
            ),
        );
    }
    let mut sorted = ts.clone();
    sorted.sort();
    let first = sorted[0];
    if kind == MeldType::Chow {
        if !first.is_suited() {
            return field(
                at,
                format!("a chow must be suited tiles, got {}", format_tiles(&ts)),
            );
        }
        let ok = sorted
            .windows(2)
            .all(|p| p[1].index() == p[0].index() + 1 && p[1].suit() == p[0].suit());
        if !ok {
            return field(
                at,
                format!("{} is not three in sequence in one suit", format_tiles(&ts)),
            );
        }
    } else if sorted.iter().any(|t| *t != first) {
        return field(
            at,
            format!("{} is not {} alike", format_tiles(&ts), kind.tile_count()),
        );
    }
    Ok(MeldShape { kind, tile: first })
}

/// The output object of a settlement file: `{"winners": [...], "payments": [...], "hands":
/// [...], "explain": {...}}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ResultFile {
    /// Per winner breakdown.
    pub winners: Vec<scoring::WinnerScore>,
    /// Coins per seat.
    pub payments: [Money; 4],
    /// The hand type id of each winner, in order.
    pub hands: Vec<String>,
    /// Why each seat pays what it pays, from the same computation as the payments.
    pub explain: Explanation,
}

/// The output object for a result and its explanation (both from [`scoring::settle`]).
pub fn result_json(r: &ScoreResult, explain: Explanation) -> ResultFile {
    ResultFile {
        winners: r.winners.clone(),
        payments: r.payments,
        hands: r.winners.iter().map(|w| w.hand.clone()).collect(),
        explain,
    }
}

/// Reads a settlement file and scores it.
///
/// ```
/// let out = mahjong_rules::score_json(r#"{"ruleset":"qiaoma","declared":[false,true,false,false],
///   "win":{"kind":"discard","from":3,"winners":[{"seat":1,"concealed":"222m55p999s",
///   "winning_tile":"9s","melds":[{"type":"pung","tiles":"777z"},
///   {"type":"kong","tiles":"1111z","concealed":true}],"flowers":"12f"}]}}"#).unwrap();
/// assert_eq!(out.payments.map(|m| m.to_string()), ["0", "9", "0", "-9"]);
/// ```
pub fn score_json(json: &str) -> Result<ResultFile, SettlementError> {
    let s = parse_settlement(json)?;
    let (r, e) = scoring::settle(&s)?;
    Ok(result_json(&r, e))
}

/// A settlement as a file (the inverse of [`parse_settlement`]), e.g. to save a hand
/// played on the table for the scorer.
pub fn settlement_json(s: &Settlement) -> serde_json::Value {
    let base = Options::preset(s.options.ruleset);
    let mut overrides = serde_json::Map::new();
    if let (Ok(serde_json::Value::Object(a)), Ok(serde_json::Value::Object(b))) = (
        serde_json::to_value(&base),
        serde_json::to_value(&s.options),
    ) {
        for (k, v) in b {
            if a.get(&k) != Some(&v) {
                overrides.insert(k, v);
            }
        }
    }
    let winners: Vec<serde_json::Value> = s
        .winners
        .iter()
        .map(|w| {
            let melds: Vec<serde_json::Value> = w
                .melds
                .iter()
                .map(|m| {
                    let kind = match m.kind {
                        MeldType::Chow => "chow",
                        MeldType::Pung => "pung",
                        _ => "kong",
                    };
                    let mut o =
                        serde_json::json!({"type": kind, "tiles": format_tiles(&m.tiles())});
                    if m.kind == MeldType::ConcealedKong {
                        o["concealed"] = true.into();
                    }
                    if m.kind == MeldType::AddedKong {
                        o["added"] = true.into();
                    }
                    o
                })
                .collect();
            serde_json::json!({
                "seat": w.seat,
                "concealed": format_tiles(&w.concealed),
                "winning_tile": w.winning_tile.map(|t| t.to_string()),
                "melds": melds,
                "flowers": format_tiles(&w.flowers),
                "replacement_draw": w.replacement_draw,
            })
        })
        .collect();
    serde_json::json!({
        "ruleset": s.options.ruleset.name(),
        "options": overrides,
        "stake": s.stake,
        "dealer": s.dealer,
        "kaibao": s.kaibao,
        "huangfan": s.huangfan,
        "wildcard": s.wildcard.map(|t| t.to_string()),
        "declared": s.declared,
        "claims": s.claims,
        "win": {"kind": s.kind, "from": s.from, "winners": winners},
    })
}
