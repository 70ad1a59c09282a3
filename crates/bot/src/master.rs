//! The `master` level (大师): the `strong` level with a look-ahead of one draw and its own
//! constants.
//!
//! `strong` values a discard by the worth of the 13 tiles it leaves ([`Evaluator::worth`],
//! a chance model of the rest of the hand). `master` takes strong's best few discards and
//! looks one draw further: for every tile kind it cannot see (drawn with the chance of its
//! live copies among all unseen tiles), the best discard that would follow and the worth it
//! would leave, minus what that discard may cost ([`crate::defence`]). Tiles that bring no
//! target closer are thrown back. The mean over the draws, minus the cost of the discard
//! now, is the discard's score. It uses what the seat sees only (live counts are unseen
//! copies, wherever they are).
//!
//! Its constants ([`tune`]) differ from strong's where duplicate play against `strong` said
//! so:
//! - a chance model less hopeful about hands far from ready ([`WAIT`], `qiaoma` and
//!   `classic`);
//! - no 承包 feeding cost ([`TUNE`]);
//! - in `classic`, a fifth of the defence ([`CLASSIC_DEFENCE`]) and no weight for a second
//!   plan ([`CLASSIC_SECOND`]);
//! - in `baida`, a ready hand valued exactly, tile by tile with the scorer
//!   (`Tune::exact_baida`: 跑百搭, 大吊 and 无百搭 count), where strong counts flowers and
//!   wildcards only;
//! - in `baida`, a self-drawn win is not always taken ([`play_on`]): a win whose pair is a
//!   wildcard and a tile throws the tile instead, and the wildcard left alone wins on any
//!   tile at the next draw, at ×2 (跑百搭); a hand that wins on any tile kongs before it wins,
//!   and its replacement draw wins at ×2 again (杠开). A ready hand counts such winning tiles
//!   at [`RUN`] × their points, and a hand short of ready that can leave its wildcard alone
//!   one step after it is ready counts [`RUN`] × its value (two steps after: half the
//!   extra, [`RUN_STEP`]).
//!
//! In `baida` it does not look ahead: there the look-ahead lost to `strong` in duplicate,
//! and `baida` has no wins on a discard and no 承包 (docs/bots.md). Elsewhere it
//! looks ahead only while the hand is at least one tile from ready (a ready hand's worth is
//! already exact tile by tile) and never for a declared hand. The look-ahead chooses between
//! discards only: whether to kong, claim or pass is weighed as `strong` weighs it
//! ([`Choice::plain`]), since a look-ahead counts one more draw than the worth it is
//! compared with.
//!
//! docs/bots.md has its measured strength against every level.

use crate::defence::Threats;
use crate::seen::Seen;
use crate::shape::Target;
use crate::strong::{Choice, Evaluator};
use crate::value::{self, Tune};
use crate::{Decision, PlayOnBy, Reason};
use mahjong_rules::hand::{self, MeldShape};
use mahjong_rules::{Action, Counts, Ruleset, Tile};

/// The `master` level's constants: strong's, with the look-ahead on, no 承包 feeding cost,
/// exact values of ready hands in `baida` and a chance model less hopeful about hands far
/// from ready ([`WAIT`]). In duplicate against `strong`, weighing the feeding cost at all lost
/// points, and the more it was weighed the more it lost (docs/bots.md): holding a tile back
/// because a seat with two claims between it and the bot might claim it slows the bot's own
/// hand more than the binding costs.
pub const TUNE: Tune = Tune {
    lookahead: 3,
    feed: 0.0,
    exact_baida: true,
    wait: WAIT,
    run: RUN,
    run_step: RUN_STEP,
    ..Tune::STRONG
};

/// `qiaoma` and `classic`: the chance model expects a hand not yet ready to wait on 0.35 × the
/// live tiles strong's model expects (1.4 instead of 4; [`Tune::wait`]), so its last step,
/// from ready to a win, takes longer. The chance model was fitted to strong's self-play and is
/// too hopeful about long roads (strong damps big values to make up for it,
/// [`crate::value::k::VALUE_EXPONENT`]); with this scale master prefers the hand nearer ready
/// and the ready hand with more live tiles. In duplicate against `strong` (docs/bots.md), the
/// scale gained the more the lower it went, down to 0.35, in both presets; 0.25 gained less.
/// In `baida` it was flat (1 is kept).
pub const WAIT: f64 = 0.35;

/// `classic`: what a discard may cost is weighed a fifth as much as in `strong`. There a win
/// on a discard is paid by the discarder alone and nobody declares ready, so the danger of a
/// tile is a guess from melds and discards; in duplicate against `strong`, master gained the
/// more the less it weighed it, down to 0.15 (docs/bots.md).
pub const CLASSIC_DEFENCE: f64 = 0.1;

/// `classic`: no weight for the second-best target (strong: 0.2, [`Tune::second`]). There
/// every hand is worth at most one 勒子 (8 points), so a second plan adds little value and
/// keeping it open slows the first; in duplicate against `strong`, 0 gained over 0.2 on three
/// sets of walls and 0.5 lost (docs/bots.md).
pub const CLASSIC_SECOND: f64 = 0.0;

/// The `master` level's constants for a ruleset.
pub fn tune(ruleset: Ruleset) -> Tune {
    match ruleset {
        Ruleset::Classic => Tune {
            defence: CLASSIC_DEFENCE,
            second: CLASSIC_SECOND,
            ..TUNE
        },
        Ruleset::Baida => Tune { wait: 1.0, ..TUNE },
        Ruleset::Qiaoma => TUNE,
    }
}

/// Candidates within this much of the best score get a look-ahead.
const MARGIN: f64 = 0.5;

/// Re-scores the best few of `scored` (discards from `counts`, a hand of complete size) by
/// the look-ahead of one draw.
pub fn look_ahead(
    ev: &mut Evaluator,
    counts: &Counts,
    melds: &[MeldShape],
    threats: &Threats,
    scored: &mut [Choice],
) {
    let seen = ev.seen;
    // In `baida` the look-ahead lost to plain `strong` (docs/bots.md).
    if seen.ready()
        || scored.len() < 2
        || seen.view.wall_remaining < 8
        || seen.ruleset() == Ruleset::Baida
    {
        return;
    }
    let mut order: Vec<usize> = (0..scored.len()).collect();
    order.sort_by(|&a, &b| scored[b].score.total_cmp(&scored[a].score));
    let first = &scored[order[0]];
    if first.worth.dist < 1 || matches!(first.action, Action::Discard { ready: true, .. }) {
        return;
    }
    let top = first.score;
    let targets = ev.targets(melds);
    let picked: Vec<usize> = order
        .iter()
        .copied()
        .filter(|&k| {
            let c = &scored[k];
            !matches!(c.action, Action::Discard { ready: true, .. })
                && c.worth.dist >= 1
                && c.score >= top - MARGIN * top.abs().max(0.05)
        })
        .take(ev.tune.lookahead)
        .collect();
    // A look-ahead is worth comparing only with other look-aheads.
    if picked.len() < 2 {
        return;
    }
    let mut looked = vec![false; scored.len()];
    for k in picked {
        looked[k] = true;
        let d = scored[k].tile.index();
        let mut c1 = *counts;
        c1[d] -= 1;
        let base = scored[k].worth.ev;
        scored[k].score = one_draw(ev, &c1, melds, threats, &targets, base) - scored[k].loss;
    }
    // Candidates without a look-ahead keep strong's score, which is not on the same footing
    // (a look-ahead counts one more draw): they were worse by strong's measure already.
    for k in order {
        if !looked[k] {
            scored[k].score = f64::NEG_INFINITY;
        }
    }
}

/// What a hand of 13 (`c1`, worth `base` as it is) is worth one draw later: for every tile
/// kind it cannot see (drawn with the chance of its live copies among all unseen tiles), the
/// best discard that would follow and the worth it would leave, minus what that discard may
/// cost. A draw that brings no target closer is thrown back.
fn one_draw(
    ev: &mut Evaluator,
    c1: &Counts,
    melds: &[MeldShape],
    threats: &Threats,
    targets: &[Target],
    base: f64,
) -> f64 {
    let seen = ev.seen;
    let unseen = seen.unseen as f64;
    let shape1 = seen.shape(c1, melds.len());
    let dist1: Vec<i32> = targets
        .iter()
        .map(|&t| ev.an.distance(&shape1, t))
        .collect();
    let best1 = dist1.iter().copied().min().unwrap_or(i32::MAX);
    let mut total = 0.0;
    for t in 0..34 {
        let live = seen.live[t];
        if live == 0 {
            continue;
        }
        let p = live as f64 / unseen;
        let mut c2 = *c1;
        c2[t] += 1;
        let shape2 = seen.shape(&c2, melds.len());
        let useful = Some(t) == seen.wildcard
            || targets
                .iter()
                .zip(&dist1)
                .any(|(&tg, &d1)| d1 <= best1 + 1 && ev.an.distance(&shape2, tg) < d1);
        let keep = base - ev.loss(threats, t, base);
        if !useful {
            total += p * keep;
            continue;
        }
        let mut v = keep;
        for j in 0..34 {
            if c2[j] == 0 || j == t || Some(j) == seen.wildcard {
                continue;
            }
            let mut c3 = c2;
            c3[j] -= 1;
            let w = ev.worth(&c3, melds, false);
            v = v.max(w.ev - ev.loss(threats, j, w.ev));
        }
        total += p * v;
    }
    total
}

/// `baida`: the chance that another seat wins on its draw, in [`play_on`]'s race between
/// this seat's next draws and the three others'. Between 0.02 and 0.1 the choices were the
/// same in duplicate (docs/bots.md); at 0.15 it passed up fewer wins and gained less.
pub const RIVAL_WIN: f64 = 0.05;

/// `baida`: the points a seat pays for another seat's win, in [`play_on`] (the mean in play
/// between strong bots is about this; 8 and 12 chose the same).
pub const RIVAL_PAY: f64 = 8.0;

/// `baida`: the worth, as a multiple of its points, of a win whose 14 tiles could instead
/// leave a wildcard alone and win on any tile (跑百搭, ×2) at the next draw, which
/// [`play_on`] will then choose, and of a hand short of ready that can get there one step
/// after it is ready ([`Tune::run`]). In duplicate against strong, for the winning tiles:
/// flat from 1.5 to 2, lost at 2.5; for the hands short of ready: 1.15, 1.3, 1.4 gained
/// less than 1.5 to 1.7, 2 less again (docs/bots.md).
pub const RUN: f64 = 1.7;

/// `baida`: a hand short of ready whose wildcard can be left alone two steps after it is
/// ready (one more useful tile, then the win it plays on past) counts half of [`RUN`]'s extra,
/// ×1.35 ([`Tune::run_step`]); none is ever further. In duplicate against strong, 0.5, 0.75
/// and 1 (the full ×1.7) all gained over 0 (none), by 0.04 to 0.05 a hand on two sets of
/// walls (docs/bots.md); half, since that hand needs one tile more than the hand one step
/// beyond.
pub const RUN_STEP: f64 = 0.5;

/// `baida` (self-draw only; every level takes every win it can, and so does `master`
/// elsewhere): whether to pass up a self-drawn win and play on for a bigger one.
///
/// The win now is weighed against
/// - each discard that leaves the hand ready: its winning tiles' mean points (the rules
///   crate's scorer), times the chance of drawing one before another seat wins
///   ([`RIVAL_WIN`] a draw) or the wall ends, less the chance of another seat's win times
///   what it costs ([`RIVAL_PAY`]). Above all this is 跑百搭: a hand whose pair would be a
///   wildcard and a tile throws the tile and keeps the wildcard alone, which wins on any tile
///   at ×2, so its next draw wins unless another seat wins first;
/// - each kong that leaves a hand winning on any tile: its replacement draw wins at once,
///   with 杠开 (×2) and the kong's flowers.
pub fn play_on(seen: &Seen) -> Option<Decision> {
    if seen.ruleset() != Ruleset::Baida {
        return None;
    }
    let drawn = seen.view.drawn?.tile;
    // A win on a replacement draw is 杠开 already.
    let now = value::exact_value_after(
        seen,
        &seen.counts,
        &seen.melds,
        drawn,
        seen.drawn_is_replacement(),
    )?;
    let rounds = i32::from(seen.view.wall_remaining / 4);
    let huangfan = if seen.view.huangfan > 0 { 2.0 } else { 1.0 };
    // The three others draw before this seat's next draw.
    let others_miss = (1.0 - RIVAL_WIN).powi(3);
    let unseen = f64::from(seen.unseen);
    // (expected points, the win's mean points a seat, the action, how)
    let mut best: Option<(f64, f64, &Action, PlayOnBy)> = None;
    let mut weighed = 0u64;
    for action in &seen.view.legal {
        let (ev, then, by) = match action {
            Action::Discard { card, .. } if rounds >= 1 => {
                let i = card.tile.index();
                if weighed >> i & 1 == 1 {
                    continue;
                }
                weighed |= 1 << i;
                let mut c = seen.counts;
                c[i] -= 1;
                let waits = hand::waits(seen.options, &c, &seen.melds, seen.view.wildcard);
                let Some((then, live)) = mean_win(seen, &c, &seen.melds, waits, false) else {
                    continue;
                };
                // Each round: the three others miss, then this seat draws a winner.
                let draw = (live / unseen).min(1.0);
                let go_on = others_miss * (1.0 - draw);
                let rounds_in_play = (1.0 - go_on.powi(rounds)) / (1.0 - go_on);
                let win = others_miss * draw * rounds_in_play;
                let lose = (1.0 - others_miss) * rounds_in_play;
                let by = if value::runs(seen, &c) {
                    PlayOnBy::RunWild
                } else {
                    PlayOnBy::Bigger
                };
                (win * 3.0 * then - lose * RIVAL_PAY * huangfan, then, by)
            }
            Action::ConcealedKong { cards } => {
                let (c, melds) = seen.after_concealed_kong(cards[0].tile);
                let Some(then) = kong_win(seen, &c, &melds) else {
                    continue;
                };
                (3.0 * then, then, PlayOnBy::Kong { added: false })
            }
            Action::AddedKong { card } => {
                let (c, melds) = seen.after_added_kong(card.tile);
                let Some(then) = kong_win(seen, &c, &melds) else {
                    continue;
                };
                (3.0 * then, then, PlayOnBy::Kong { added: true })
            }
            _ => continue,
        };
        if best.as_ref().is_none_or(|b| ev > b.0) {
            best = Some((ev, then, action, by));
        }
    }
    let (ev, then, action, by) = best?;
    if ev <= 3.0 * now {
        return None;
    }
    let tile = match action {
        Action::Discard { card, .. } | Action::AddedKong { card } => card.tile,
        Action::ConcealedKong { cards } => cards[0].tile,
        _ => return None,
    };
    Some(Decision {
        action: action.clone(),
        reason: Reason::PlayOn {
            tile,
            by,
            now: now.round() as u32,
            then: then.round() as u32,
        },
    })
}

/// The mean points a seat of the win a kong's replacement draw makes, when the hand after
/// the kong (`c`, `melds`) wins on any tile (跑百搭); `None` otherwise.
fn kong_win(seen: &Seen, c: &Counts, melds: &[MeldShape]) -> Option<f64> {
    if !value::runs(seen, c) {
        return None;
    }
    mean_win(seen, c, melds, u64::MAX, true).map(|(v, _)| v)
}

/// The mean points a seat of the wins a hand of 13 (`c`) makes on the tiles of `waits` it
/// may draw, weighted by their live copies, and those copies; `None` if no live tile wins.
/// `replacement`: the draw is a kong's replacement (杠开).
fn mean_win(
    seen: &Seen,
    c: &Counts,
    melds: &[MeldShape],
    waits: u64,
    replacement: bool,
) -> Option<(f64, f64)> {
    let (mut live, mut sum) = (0.0, 0.0);
    for i in (0..34).filter(|&i| waits >> i & 1 == 1 && seen.live[i] > 0) {
        let Some(tile) = Tile::from_index(i) else {
            continue;
        };
        let mut c2 = *c;
        c2[i] += 1;
        if let Some(v) = value::exact_value_after(seen, &c2, melds, tile, replacement) {
            let n = f64::from(seen.live[i]);
            live += n;
            sum += n * v;
        }
    }
    (live > 0.0).then(|| (sum / live, live))
}
