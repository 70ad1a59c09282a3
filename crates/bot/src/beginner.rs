//! The `beginner` level (新手): how a person plays in their first weeks, not at random.
//!
//! It sees the nearest winning shape as `basic` does ([`crate::basic::nearest`]) and then
//! weighs each discard with a beginner's habits:
//! - it keeps pairs too long: breaking a pair counts as a step backwards;
//! - it chases a flush clumsily: in `qiaoma`/`classic` it throws lone tiles of the other
//!   suits and lone honors first (dreaming of 清一色), even when another plan is nearer;
//! - it claims a pung whenever it holds the pair and the tile fits that suit (or is an
//!   honor), and every kong; a chow only when it brings the hand closer;
//! - it never looks at danger or 承包;
//! - and it is not exact: a little noise decides between near choices.
//!
//! It declares ready (敲) at the first chance in `qiaoma`, never in `classic`, keeps its
//! wildcards in `baida` and always takes a win, like `basic`.

use crate::basic::{any_kong, company, discards, nearest};
use crate::seen::Seen;
use crate::shape::{Analyzer, NO_WIN};
use crate::{ClaimKind, Decision, Plan, Progress, Reason};
use mahjong_rules::{Action, Ruleset};
use rand_core::RngCore;

/// How much breaking a pair weighs, in steps from ready.
const PAIR: f64 = 2.0;
/// How much throwing a tile outside the longest suit (a lone honor included: the beginner
/// dreams of 清一色) is preferred, in steps.
const OFF_SUIT: f64 = 1.0;
/// The noise on every discard's weight, in steps (uniform 0..NOISE).
const NOISE: f64 = 2.0;

/// The suit (0–2) holding most of the hand's suited tiles and melds.
fn longest_suit(seen: &Seen) -> usize {
    let mut n = [0u32; 3];
    for (i, &c) in seen.counts.iter().enumerate().take(27) {
        if Some(i) != seen.wildcard {
            n[i / 9] += c as u32;
        }
    }
    for m in &seen.melds {
        if m.tile.is_suited() {
            n[m.tile.index() / 9] += 3;
        }
    }
    (0..3).max_by_key(|&s| (n[s], 3 - s)).unwrap_or(0)
}

fn noise(rng: &mut impl RngCore) -> f64 {
    (rng.next_u32() >> 8) as f64 / (1u32 << 24) as f64 * NOISE
}

/// Chooses among the legal actions of a turn.
pub fn turn(an: &mut Analyzer, rng: &mut impl RngCore, seen: &Seen) -> Decision {
    let legal = &seen.view.legal;
    if let Some(kong) = any_kong(legal) {
        return kong;
    }
    let flushes = seen.ruleset() != Ruleset::Baida;
    let suit = longest_suit(seen);
    let mut best: Option<(f64, &Action, i32, Option<crate::shape::Target>)> = None;
    for (a, i, d, t) in discards(an, seen, legal) {
        let ready = matches!(a, Action::Discard { ready: true, .. });
        let mut w = d as f64 + 0.01 * company(&seen.counts, i) as f64;
        if seen.counts[i] >= 2 {
            w += PAIR;
        }
        if flushes && seen.counts[i] == 1 && (i >= 27 || i / 9 != suit) {
            w -= OFF_SUIT;
        }
        // A declaration is a beginner's goal in itself: no noise on it.
        if !ready {
            w += noise(rng);
        }
        if best.as_ref().is_none_or(|b| w < b.0) {
            best = Some((w, a, d, Some(t)));
        }
    }
    let Some((_, action, d, t)) = best else {
        return crate::strong::fallback(legal);
    };
    let reason = match action {
        Action::Discard { card, ready } => Reason::Discard {
            tile: card.tile,
            ready: *ready,
            plan: Plan {
                target: t.filter(|_| d < NO_WIN),
                progress: Progress::of(d, Vec::new()),
            },
            defence: None,
        },
        _ => Reason::Fallback,
    };
    Decision {
        action: action.clone(),
        reason,
    }
}

/// Chooses among the answers to a discard.
pub fn claim(an: &mut Analyzer, seen: &Seen) -> Decision {
    let legal = &seen.view.legal;
    let Some((from, tile)) = seen.claim_window() else {
        return crate::strong::fallback(legal);
    };
    let flushes = seen.ruleset() != Ruleset::Baida;
    let suit = longest_suit(seen);
    let fits = !flushes || tile.is_honor() || (tile.is_suited() && tile.index() / 9 == suit);
    for a in legal {
        let eager = match a {
            Action::Kong { .. } => true,
            Action::Pung { .. } => fits,
            _ => false,
        };
        if eager && let Some((c, melds, _)) = seen.after_claim(a, tile) {
            let after = nearest(an, seen, &c, &melds).0;
            if after >= NO_WIN {
                continue;
            }
            return Decision {
                action: a.clone(),
                reason: Reason::Claim {
                    kind: if matches!(a, Action::Kong { .. }) {
                        ClaimKind::Kong
                    } else {
                        ClaimKind::Pung
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
    // Chows (and anything else) as the basic level weighs them.
    let d = crate::basic::claim(an, seen);
    match d.action {
        Action::Chow { .. } | Action::Pass => d,
        _ => Decision {
            action: Action::Pass,
            reason: Reason::Pass { tile, plan: None },
        },
    }
}
