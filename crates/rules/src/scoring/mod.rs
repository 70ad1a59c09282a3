//! Scoring (the rules, "Scoring"): flowers, points, values, caps, multipliers, the table
//! limit, who pays (self-draw, discard, robbing, several winners), 承包 / 吃三口, `baida`
//! flowers × fan, leaver penalties and the stake. Payments always sum to zero.
//!
//! The input is a [`Settlement`] (the same whether it comes from a finished hand of the state
//! machine or from a settlement file); [`settle`] checks that every winner's hand wins and
//! returns each winner's breakdown and the payments in coins ([`Money`]) together with the
//! [`Explanation`] of them, computed in the same pass ([`score`] and [`explain`] are its two
//! halves), so the scores explained are the ones paid.
//!
//! Readings where the rules leave room (each also noted where it is applied):
//! - Where a hand fits several types, the type giving the highest score S is taken; ties go to
//!   the rarer type (风碰 > 清碰 > 风一色 > 八花齐 > 混碰 > 清一色 > 混一色 > 碰碰胡).
//! - Bindings add up literally: each binding of the winner applies its whole row, and a seat
//!   named by several rows pays the sum.
//! - 吃三口 (`classic`), as the rules now settle it: robbing the kong, the kong player pays
//!   3 S and the bound seat (if not the kong player) also 3 S, as in `qiaoma`; a third seat's
//!   discard that wins for both bound seats: the discarder pays each of them 1 S.
//! - Robbing the kong with a binding: a bound seat that is itself one of the robbers still
//!   pays its 3 S (the row names no exception, unlike the discard rows).
//! - 八花齐: the `eight_flowers` win is worth 八花齐 whatever the concealed tiles (it is
//!   settled before the eighth flower's replacement); its flowers are the flower tiles and the
//!   melds, the concealed tiles being no hand.
//! - Where a hand fits several rows, the reported value V is the highest of them; S is the
//!   same either way, since every row capped above 1 lezi is worth exactly its cap.
//! - `baida`: a wind pung earns its flower only as three real wind tiles; a wildcard standing
//!   in any set (three wildcards together included) earns only its own flower. The split of
//!   the hand keeping the most real wind pungs is taken.
//! - `baida`: 四百搭 (2 fan) counts whenever the four wildcards are held; the `four_wildcards`
//!   option governs only the immediate win. The hand is named by its first pattern in the
//!   order of the rules, 门清 included, else 平胡.
//! - 门清 is literal: no chow, pung or claimed kong among the melds, whatever the win kind.
//! - The table limit (单局封顶) caps S, as the scoring steps compute it; a seat that pays
//!   several S (a bound seat, a kong player robbed, a discarder paying two winners) may pay
//!   more than the limit in all. The option's one-line summary ("most a seat pays per hand")
//!   would cap the total instead; we follow the explicit steps.
//! - Money is counted in hundredths of a coin so that a leaver's penalty split three ways
//!   stays exact to the cent and sums to zero (the odd cents go to the seats after the leaver).

pub use crate::explain::{
    BoundRow, Cap, Effect, Explanation, FlowerItem, FlowerSource, HandEnd, HandRow, LimitedBy,
    Modifier, ModifierId, Share, ShareReason, ValueBasis, WinnerExplanation,
};
use crate::hand::{self, HandType, MeldShape, MeldType};
use crate::options::{BindingRule, MenqingEffect, Options, Ruleset};
use crate::tile::{Counts, PLAY_KINDS, Tile, counts_of};
use serde::{Deserialize, Serialize};

pub use crate::money::{Money, Seat, WinKind};

mod baida;
mod lezi;
mod shares;

use baida::value_baida;
use lezi::value_lezi;
use shares::share_rows;
pub use shares::{explain_leaver, leaver_payments, paid_units};

/// One winner's hand at the win.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct WinnerHand {
    /// The winning seat.
    pub seat: Seat,
    /// Concealed tiles at the win, the winning tile included.
    pub concealed: Vec<Tile>,
    /// The winning tile (absent for eight flowers).
    pub winning_tile: Option<Tile>,
    /// Melds, exposed or declared.
    pub melds: Vec<MeldShape>,
    /// Flower tiles set aside (dragons too in `baida`).
    pub flowers: Vec<Tile>,
    /// The winning tile was a replacement draw after a kong or a flower.
    pub replacement_draw: bool,
}

/// The end of one won hand: everything scoring needs (§8).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Settlement {
    /// Every option (the ruleset's, with the table's or file's overrides).
    pub options: Options,
    /// Coins per point.
    pub stake: Money,
    /// The dealer.
    pub dealer: Seat,
    /// This hand's dice were a double or 1 and 4.
    pub kaibao: bool,
    /// The 荒番 counter for this hand.
    pub huangfan: u32,
    /// The `baida` wildcard.
    pub wildcard: Option<Tile>,
    /// Seats that had declared ready.
    pub declared: [bool; 4],
    /// `claims[a][b]`: chows, pungs and claimed kongs seat `a` made on seat `b`'s discards.
    pub claims: [[u32; 4]; 4],
    /// How it was won.
    pub kind: WinKind,
    /// The discarder or kong player.
    pub from: Option<Seat>,
    /// The winners (several only on one discard or one robbed kong).
    pub winners: Vec<WinnerHand>,
}

/// One winner's scoring breakdown (§8 output).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct WinnerScore {
    /// The seat.
    pub seat: Seat,
    /// The hand type id.
    pub hand: String,
    /// The hand type and every modifier that applies, by id.
    pub patterns: Vec<String>,
    /// Flowers (花) counted.
    pub flowers: u32,
    /// Points P (`qiaoma`/`classic`: base + flowers; `baida`: flowers).
    pub points: u32,
    /// Value V before multipliers and caps (`baida`: flowers × 2^fan).
    pub value: u32,
    /// Cap in lezi (`qiaoma` family), else `None`.
    pub cap: Option<u32>,
    /// S: points each paying unit pays, after multipliers, caps and the table limit.
    pub score: u32,
}

/// The result of scoring a hand.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ScoreResult {
    /// Per winner, in the order given.
    pub winners: Vec<WinnerScore>,
    /// Coins per seat, summing to zero.
    pub payments: [Money; 4],
}

/// Why a settlement cannot be scored.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ScoreError {
    /// The hand does not win under the ruleset.
    #[error("seat {seat}'s hand {hand} does not win under {ruleset}: {why}")]
    NotWinning {
        /// The seat.
        seat: Seat,
        /// The hand in notation.
        hand: String,
        /// The ruleset.
        ruleset: Ruleset,
        /// Why.
        why: Unwinnable,
    },
    /// Inconsistent or impossible input.
    #[error("{0}")]
    Invalid(String),
}

/// Why a complete-looking hand does not win (typed, so that a front end can say it in its
/// own language; `Display` is the English the command line prints).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, thiserror::Error)]
pub enum Unwinnable {
    /// The ruleset needs 敲 before a win.
    #[error("the seat had not declared ready (敲), which this ruleset needs to win")]
    NotDeclared,
    /// Four sets and a pair, but none of the restricted winning types.
    #[error(
        "a standard hand, but not one of the winning types (碰碰胡, 混一色, 清一色, 混碰, 清碰, 风一色, 风碰)"
    )]
    NotAWinningType,
    /// Not four sets and a pair.
    #[error("not four sets and a pair")]
    NotStandard,
    /// Not four sets and a pair even with the wildcards.
    #[error("not four sets and a pair, even with the wildcards")]
    NotStandardWithWildcards,
    /// No winning type at all.
    #[error("no winning type")]
    NoWinningType,
}

fn invalid<T>(s: impl Into<String>) -> Result<T, ScoreError> {
    Err(ScoreError::Invalid(s.into()))
}

/// Seats bound to `w` (承包 / 吃三口): claims either way between them add up to 3 or more.
pub fn bound_seats(claims: &[[u32; 4]; 4], w: Seat) -> Vec<Seat> {
    (0..4u8)
        .filter(|&r| {
            r != w
                && claims[w as usize][r as usize].saturating_add(claims[r as usize][w as usize])
                    >= 3
        })
        .collect()
}

/// Scores a settlement: checks every winner's hand and computes the payments.
pub fn score(s: &Settlement) -> Result<ScoreResult, ScoreError> {
    settle(s).map(|(r, _)| r)
}

/// Explains a settlement: the same computation as [`score`], as data.
pub fn explain(s: &Settlement) -> Result<Explanation, ScoreError> {
    settle(s).map(|(_, e)| e)
}

/// Scores and explains a settlement in one pass: the payments of the result are the sums of
/// the explanation's shares, and each winner's breakdown comes from the same computation as
/// its explanation.
pub fn settle(s: &Settlement) -> Result<(ScoreResult, Explanation), ScoreError> {
    check_shape(s)?;
    let mut winners = Vec::with_capacity(s.winners.len());
    let mut explained = Vec::with_capacity(s.winners.len());
    let mut shares = Vec::new();
    let winner_seats: Vec<Seat> = s.winners.iter().map(|w| w.seat).collect();
    for w in &s.winners {
        let (ws, we) = value_winner(s, w)?;
        for (payer, units, reason) in share_rows(s, w.seat, &winner_seats) {
            let points = units.saturating_mul(ws.score);
            shares.push(Share {
                payer,
                payee: w.seat,
                units,
                points,
                amount: s.stake.times(points as i64),
                reason,
            });
        }
        winners.push(ws);
        explained.push(we);
    }
    let payments = payments_of(&shares);
    let explanation = Explanation {
        ruleset: s.options.ruleset,
        stake: s.stake,
        end: HandEnd::Win {
            kind: s.kind,
            from: s.from,
        },
        winners: explained,
        shares,
        payments,
    };
    Ok((ScoreResult { winners, payments }, explanation))
}

/// Each seat's coins from a list of shares.
fn payments_of(shares: &[Share]) -> [Money; 4] {
    let mut payments = [Money::ZERO; 4];
    for sh in shares {
        payments[sh.payer as usize].0 -= sh.amount.0;
        payments[sh.payee as usize].0 += sh.amount.0;
    }
    debug_assert_eq!(payments.iter().map(|m| m.0).sum::<i64>(), 0);
    payments
}

/// Cross-winner and general checks that do not depend on the hand's value.
fn check_shape(s: &Settlement) -> Result<(), ScoreError> {
    let o = &s.options;
    if s.winners.is_empty() {
        return invalid("no winner given");
    }
    if s.stake.0 <= 0 {
        return invalid(format!("stake must be positive, got {}", s.stake));
    }
    if s.dealer > 3 {
        return invalid(format!("dealer {} is not a seat (0-3)", s.dealer));
    }
    for a in 0..4 {
        if s.claims[a][a] != 0 {
            return invalid(format!(
                "claims[{a}][{a}]: a seat cannot claim its own discards"
            ));
        }
    }
    let mut seen = [false; 4];
    for w in &s.winners {
        if w.seat > 3 {
            return invalid(format!("winner seat {} is not a seat (0-3)", w.seat));
        }
        if std::mem::replace(&mut seen[w.seat as usize], true) {
            return invalid(format!("seat {} is listed twice as a winner", w.seat));
        }
    }
    match s.kind {
        WinKind::Discard | WinKind::RobKong => {
            let Some(from) = s.from else {
                return invalid(format!(
                    "a {} win needs \"from\" (the seat that gave the tile)",
                    WinKind::name(s.kind)
                ));
            };
            if from > 3 {
                return invalid(format!("from {from} is not a seat (0-3)"));
            }
            if seen[from as usize] {
                return invalid(format!("seat {from} cannot win on its own tile"));
            }
            if !o.win_on_discard {
                return invalid(format!(
                    "{} wins by self-draw only; no {} win",
                    o.ruleset,
                    WinKind::name(s.kind)
                ));
            }
        }
        _ => {
            if s.winners.len() != 1 {
                return invalid(format!(
                    "a {} win has exactly one winner",
                    WinKind::name(s.kind)
                ));
            }
            if let Some(from) = s.from {
                return invalid(format!(
                    "a {} win has no \"from\" seat (got {from})",
                    WinKind::name(s.kind)
                ));
            }
        }
    }
    if s.kind == WinKind::EightFlowers && !o.eight_flowers {
        return invalid(format!("{} has no eight-flowers win", o.ruleset));
    }
    if s.kind == WinKind::FourWildcards && !o.four_wildcards {
        return invalid(format!("{} has no four-wildcards win", o.ruleset));
    }
    match (o.wildcard, s.wildcard) {
        (true, None) => {
            return invalid(format!(
                "{} needs the wildcard tile (\"wildcard\": \"5p\")",
                o.ruleset
            ));
        }
        (true, Some(w)) if o.is_flower(w) => {
            return invalid(format!(
                "the wildcard {w} is a flower tile under {}",
                o.ruleset
            ));
        }
        _ => {}
    }
    // Across winners, the tile given by the discarder or kong player is shared.
    let mut total = [0u32; PLAY_KINDS];
    for w in &s.winners {
        for t in w.concealed.iter().chain(
            w.melds
                .iter()
                .flat_map(|m| m.tiles())
                .collect::<Vec<_>>()
                .iter(),
        ) {
            if !t.is_flower() {
                total[t.index()] += 1;
            }
        }
    }
    if matches!(s.kind, WinKind::Discard | WinKind::RobKong) && s.winners.len() > 1 {
        let shared: Vec<Option<Tile>> = s.winners.iter().map(|w| w.winning_tile).collect();
        let first = shared[0];
        if shared.iter().any(|t| *t != first) {
            return invalid("winners on one discard must share the same winning tile");
        }
        if let Some(t) = first {
            total[t.index()] -= s.winners.len() as u32 - 1;
        }
    }
    for (i, &n) in total.iter().enumerate() {
        if n > 4 {
            let t = Tile::from_index(i)
                .map(|t| t.to_string())
                .unwrap_or_default();
            let whose = if s.winners.len() == 1 {
                format!("in seat {}'s hand", s.winners[0].seat)
            } else {
                "among the winners' hands".to_string()
            };
            return invalid(format!("{n} tiles of {t} {whose} (there are only 4)"));
        }
    }
    for w in &s.winners {
        check_winner_tiles(s, w)?;
    }
    Ok(())
}

fn check_winner_tiles(s: &Settlement, w: &WinnerHand) -> Result<(), ScoreError> {
    let o = &s.options;
    let seat = w.seat;
    if w.melds.len() > 4 {
        return invalid(format!(
            "seat {seat} has {} melds; a hand has at most 4",
            w.melds.len()
        ));
    }
    for t in &w.concealed {
        if o.is_flower(*t) {
            return invalid(format!(
                "seat {seat}: {t} is a flower tile under {} and cannot be in the concealed hand (list it in \"flowers\")",
                o.ruleset
            ));
        }
    }
    for m in &w.melds {
        if o.is_flower(m.tile) {
            return invalid(format!(
                "seat {seat}: a meld of {} (a flower tile) is impossible",
                m.tile
            ));
        }
    }
    let mut fl = [0u8; crate::tile::KINDS];
    for f in &w.flowers {
        if !o.is_flower(*f) {
            return invalid(format!(
                "seat {seat}: {f} is not a flower tile under {}",
                o.ruleset
            ));
        }
        fl[f.index()] += 1;
        if fl[f.index()] > f.copies() {
            return invalid(format!(
                "seat {seat}: flower {f} listed more times than it exists"
            ));
        }
    }
    let need = hand::complete_size(&w.melds);
    let have = w.concealed.len();
    match s.kind {
        WinKind::EightFlowers => {
            if w.flowers.iter().filter(|f| f.is_flower()).count() != 8 {
                return invalid(format!(
                    "seat {seat}: an eight_flowers win needs all eight flowers 1f-8f"
                ));
            }
            if have != 0 && have != need && have + 1 != need {
                return invalid(format!(
                    "seat {seat}: {have} concealed tiles with {} melds (expected {} or {})",
                    w.melds.len(),
                    need - 1,
                    need
                ));
            }
        }
        WinKind::FourWildcards if have + 1 == need => {}
        _ => {
            if have != need {
                return invalid(format!(
                    "seat {seat}: {have} concealed tiles with {} melds; a winning hand has {need} (winning tile included)",
                    w.melds.len()
                ));
            }
        }
    }
    if s.kind == WinKind::RobKong {
        // The kong player holds the other three copies of the robbed tile.
        if let Some(t) = w.winning_tile {
            let copies = w.concealed.iter().filter(|&&x| x == t).count()
                + w.melds
                    .iter()
                    .flat_map(|m| m.tiles())
                    .filter(|&x| x == t)
                    .count();
            if copies != 1 {
                return invalid(format!(
                    "seat {seat}: robbing a kong of {t}, the winner can hold no other {t} (the kong player has three), found {copies}"
                ));
            }
        }
    }
    match (s.kind, w.winning_tile) {
        (WinKind::EightFlowers, _) => {}
        (WinKind::FourWildcards, None) => {}
        (_, None) => return invalid(format!("seat {seat}: winning_tile is missing")),
        (_, Some(t)) => {
            if !w.concealed.contains(&t) {
                return invalid(format!(
                    "seat {seat}: the winning tile {t} is not in the concealed tiles"
                ));
            }
        }
    }
    if s.kind == WinKind::FourWildcards {
        let wild = s
            .wildcard
            .map(|x| w.concealed.iter().filter(|&&t| t == x).count())
            .unwrap_or(0);
        if wild != 4 {
            return invalid(format!(
                "seat {seat}: a four_wildcards win needs four wildcards in hand, found {wild}"
            ));
        }
    }
    if o.must_declare_ready
        && !s.declared[seat as usize]
        && !matches!(s.kind, WinKind::EightFlowers | WinKind::FourWildcards)
    {
        return Err(ScoreError::NotWinning {
            seat,
            hand: crate::tile::format_tiles(&w.concealed),
            ruleset: o.ruleset,
            why: Unwinnable::NotDeclared,
        });
    }
    Ok(())
}

fn not_winning(s: &Settlement, w: &WinnerHand, why: Unwinnable) -> ScoreError {
    let mut hand = crate::tile::format_tiles(&w.concealed);
    for m in &w.melds {
        hand.push(' ');
        hand.push_str(&crate::tile::format_tiles(&m.tiles()));
    }
    ScoreError::NotWinning {
        seat: w.seat,
        hand,
        ruleset: s.options.ruleset,
        why,
    }
}

/// Scores one winner (§6 value), without payments.
pub fn score_winner(s: &Settlement, w: &WinnerHand) -> Result<WinnerScore, ScoreError> {
    value_winner(s, w).map(|(ws, _)| ws)
}

/// One winner's value: its breakdown and the explanation of it, from one computation.
fn value_winner(
    s: &Settlement,
    w: &WinnerHand,
) -> Result<(WinnerScore, WinnerExplanation), ScoreError> {
    match s.options.ruleset {
        Ruleset::Baida => value_baida(s, w),
        _ => value_lezi(s, w),
    }
}

/// The rank used to break ties between hand types of equal score.
fn rarity(t: HandType) -> u8 {
    match t {
        HandType::Fengpeng => 12,
        HandType::Qingpeng => 11,
        HandType::Fengyise | HandType::Ziyise => 10,
        HandType::Bahuaqi => 9,
        HandType::Hunpeng => 8,
        HandType::Qingyise => 7,
        HandType::Hunyise => 6,
        HandType::Pengpenghu => 5,
        HandType::Dadiaoche => 4,
        HandType::Sibaida => 3,
        HandType::Pinghu => 1,
    }
}

fn item(source: FlowerSource, tile: Tile, meld: Option<MeldType>, flowers: u32) -> FlowerItem {
    FlowerItem {
        source,
        tile: Some(tile),
        meld,
        flowers,
    }
}

/// Flower items common to both families: the flower tiles set aside and the melds.
fn tile_and_meld_flowers(w: &WinnerHand) -> Vec<FlowerItem> {
    let mut items: Vec<FlowerItem> = w
        .flowers
        .iter()
        .map(|&f| item(FlowerSource::FlowerTile, f, None, 1))
        .collect();
    for m in &w.melds {
        let n = m.flowers();
        if n > 0 {
            items.push(item(FlowerSource::Meld, m.tile, Some(m.kind), n));
        }
    }
    items
}

fn sorted(tiles: &[Tile]) -> Vec<Tile> {
    let mut v = tiles.to_vec();
    v.sort();
    v
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn money_prints_like_json_numbers() {
        assert_eq!(Money::coins(9).to_string(), "9");
        assert_eq!(Money(-34).to_string(), "-0.34");
        assert_eq!(serde_json::to_string(&Money::coins(-40)).unwrap(), "-40");
        assert_eq!(serde_json::to_string(&Money(33)).unwrap(), "0.33");
    }

    #[test]
    fn leaver_split_sums_to_zero() {
        let q = Options::preset(Ruleset::Qiaoma);
        let p = leaver_payments(&q, Money::coins(1), 2, 0);
        assert_eq!(p.iter().map(|m| m.0).sum::<i64>(), 0);
        assert_eq!(p[2], Money::coins(-1));
        assert_eq!(p[3], Money(34));
        let b = Options::preset(Ruleset::Baida);
        let p = leaver_payments(&b, Money::coins(1), 0, 1);
        assert_eq!(
            p,
            [
                Money::coins(-120),
                Money::coins(40),
                Money::coins(40),
                Money::coins(40)
            ]
        );
    }
}
