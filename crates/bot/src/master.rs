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
//!   wildcards only.
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
use crate::shape::Target;
use crate::strong::{Choice, Evaluator};
use crate::value::Tune;
use mahjong_rules::hand::MeldShape;
use mahjong_rules::{Action, Counts, Ruleset};

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
