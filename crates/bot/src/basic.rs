//! The `basic` level: a sensible beginner. It aims at the nearest winning shape (a flush with
//! honors or all pungs in `qiaoma`/`classic`, any standard hand in `baida`), discards the
//! tile that keeps the hand closest to it (the loneliest tile on ties, then at random),
//! claims a discard only when that brings the hand closer, makes every kong it can, declares
//! ready (敲) at the first chance in `qiaoma`, keeps its wildcards in `baida`, and always
//! takes a win. It counts no live tiles, weighs no values and plays no defence.

use crate::seen::Seen;
use crate::shape::{Analyzer, NO_WIN, Target};
use crate::{ClaimKind, Decision, Plan, Progress, Reason};
use mahjong_rules::hand::{MeldShape, MeldType};
use mahjong_rules::wall::uniform_below;
use mahjong_rules::{Action, Counts, Ruleset};
use rand_core::RngCore;

const TARGETS: [Target; 4] = [
    Target::Hun(0),
    Target::Hun(1),
    Target::Hun(2),
    Target::Pungs,
];

fn fits(t: Target, melds: &[MeldShape]) -> bool {
    let mask = t.mask();
    melds.iter().all(|m| {
        (t.allows_chows() || m.kind != MeldType::Chow)
            && m.tiles().iter().all(|x| mask >> x.index() & 1 == 1)
    })
}

/// The nearest target and its distance.
pub(crate) fn nearest(
    an: &mut Analyzer,
    seen: &Seen,
    counts: &Counts,
    melds: &[MeldShape],
) -> (i32, Target) {
    let shape = seen.shape(counts, melds.len());
    if seen.ruleset() == Ruleset::Baida {
        return (an.distance(&shape, Target::Standard), Target::Standard);
    }
    TARGETS
        .iter()
        .filter(|t| fits(**t, melds))
        .map(|&t| (an.distance(&shape, t), t))
        .min_by_key(|x| x.0)
        .unwrap_or((NO_WIN, Target::Pungs))
}

/// How many of the hand's tiles sit near this one (lonely tiles go first).
pub(crate) fn company(counts: &Counts, i: usize) -> u32 {
    let mut n = counts[i] as u32 - 1;
    if i < 27 {
        let s = i / 9 * 9;
        for j in i.saturating_sub(2).max(s)..=(i + 2).min(s + 8) {
            if j != i {
                n += counts[j] as u32;
            }
        }
    }
    n
}

/// The discards the simple levels weigh, in the order offered: each action with its tile's
/// index, the distance to the nearest winning shape after it, and that shape. A declaration
/// (敲) counts as one step better, as it is the only way to win in qiaoma, and is skipped in
/// the other presets; a wildcard is not thrown while a plain tile can go.
pub(crate) fn discards<'a>(
    an: &mut Analyzer,
    seen: &Seen,
    legal: &'a [Action],
) -> Vec<(&'a Action, usize, i32, Target)> {
    let declare = seen.ruleset() == Ruleset::Qiaoma;
    let has_plain = legal.iter().any(
        |a| matches!(a, Action::Discard { card, .. } if Some(card.tile.index()) != seen.wildcard),
    );
    let mut out = Vec::new();
    for a in legal {
        let Action::Discard { card, ready } = a else {
            continue;
        };
        let i = card.tile.index();
        if (*ready && !declare) || (has_plain && Some(i) == seen.wildcard) || i >= 34 {
            continue;
        }
        let mut c = seen.counts;
        c[i] = c[i].saturating_sub(1);
        let (d, t) = nearest(an, seen, &c, &seen.melds);
        out.push((a, i, if *ready { d - 1 } else { d }, t));
    }
    out
}

/// The first kong among the legal actions, taken at once: more flowers and a replacement draw
/// (the basic and beginner levels both play it so).
pub(crate) fn any_kong(legal: &[Action]) -> Option<Decision> {
    legal
        .iter()
        .find(|a| matches!(a, Action::ConcealedKong { .. } | Action::AddedKong { .. }))
        .map(|k| Decision {
            action: k.clone(),
            reason: Reason::AnyKong,
        })
}

/// Chooses among the legal actions of a turn.
pub fn turn(an: &mut Analyzer, rng: &mut impl RngCore, seen: &Seen) -> Decision {
    let legal = &seen.view.legal;
    if let Some(kong) = any_kong(legal) {
        return kong;
    }
    let mut best: Vec<(&Action, i32, u32, Target)> = Vec::new();
    let mut best_key = (i32::MAX, u32::MAX);
    for (a, i, d, t) in discards(an, seen, legal) {
        let key = (d, company(&seen.counts, i));
        if key < best_key {
            best_key = key;
            best.clear();
        }
        if key == best_key {
            best.push((a, d, key.1, t));
        }
    }
    if best.is_empty() {
        return crate::strong::fallback(legal);
    }
    let pick = best[uniform_below(rng, best.len() as u32) as usize];
    let reason = match pick.0 {
        Action::Discard { card, ready } => Reason::Discard {
            tile: card.tile,
            ready: *ready,
            plan: Plan {
                target: (pick.1 < NO_WIN).then_some(pick.3),
                progress: Progress::of(pick.1, Vec::new()),
            },
            defence: None,
        },
        _ => Reason::Fallback,
    };
    Decision {
        action: pick.0.clone(),
        reason,
    }
}

/// Chooses among the answers to a discard.
pub fn claim(an: &mut Analyzer, seen: &Seen) -> Decision {
    let legal = &seen.view.legal;
    let Some((from, tile)) = seen.claim_window() else {
        return crate::strong::fallback(legal);
    };
    let (now, _) = nearest(an, seen, &seen.counts, &seen.melds);
    for a in legal {
        let Some((c, melds, shape)) = seen.after_claim(a, tile) else {
            continue;
        };
        let after = if shape.kind == MeldType::ClaimedKong {
            nearest(an, seen, &c, &melds).0
        } else {
            (0..34)
                .filter(|&i| c[i] > 0 && Some(i) != seen.wildcard)
                .map(|i| {
                    let mut d = c;
                    d[i] -= 1;
                    nearest(an, seen, &d, &melds).0
                })
                .min()
                .unwrap_or(NO_WIN)
        };
        if after < now || (shape.kind == MeldType::ClaimedKong && after <= now) {
            return Decision {
                action: a.clone(),
                reason: Reason::Claim {
                    kind: match shape.kind {
                        MeldType::Chow => ClaimKind::Chow,
                        MeldType::Pung => ClaimKind::Pung,
                        _ => ClaimKind::Kong,
                    },
                    tile,
                    from,
                    plan: Plan {
                        target: None,
                        progress: Progress::of(after, Vec::new()),
                    },
                },
            };
        }
    }
    Decision {
        action: Action::Pass,
        reason: Reason::Pass { tile, plan: None },
    }
}
