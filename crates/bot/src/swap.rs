//! 换牌 (option `swap_five`, docs/rules.en.md §7): which five tiles to put back, or whether
//! to keep the hand.
//!
//! The five are chosen greedily, one at a time: each time the tile whose loss hurts the hand
//! least — by the `strong` valuation ([`crate::strong::Evaluator::worth`]) for `strong`, by
//! the distance to the nearest winning shape and then the loneliest tile for `basic` — never
//! a `baida` wildcard. A seat swaps only when its hand is still far from ready (at least
//! [`FAR`] tiles away, or unable to win): five fresh tiles from the wall are worth more to
//! such a hand than its five weakest, while a hand near ready would lose more shape than it
//! can expect to gain.

use crate::seen::Seen;
use crate::shape::{Analyzer, NO_WIN};
use crate::strong::Evaluator;
use crate::{Decision, Level, Progress, Reason};
use mahjong_rules::{Action, Counts, Tile};

/// The distance from ready from which a hand is swapped.
pub const FAR: i32 = 3;

/// The 换牌 decision of a `basic` or `strong` bot.
pub fn decide(an: &mut Analyzer, seen: &Seen, level: Level) -> Decision {
    let mut counts = seen.counts;
    let mut chosen: Vec<Tile> = Vec::with_capacity(5);
    // The hand's distance once it holds 13 tiles (the dealer's 14th is weighed as a discard).
    let mut dist = None;
    while chosen.len() < 5 {
        let size: u32 = counts.iter().map(|&n| n as u32).sum();
        if size == 13 && dist.is_none() {
            dist = Some(distance(an, seen, &counts, level));
        }
        let Some(tile) = weakest(an, seen, &counts, level) else {
            break;
        };
        counts[tile.index()] -= 1;
        chosen.push(tile);
    }
    let dist = dist.unwrap_or(NO_WIN);
    let keep = Decision {
        action: Action::Pass,
        reason: Reason::SwapKeep {
            progress: Progress::of(dist, Vec::new()),
        },
    };
    if dist < FAR || chosen.len() < 5 {
        return keep;
    }
    chosen.sort();
    let text = mahjong_rules::format_tiles(&chosen);
    match seen.view.swap_action(&text) {
        Ok(action) if seen.view.legal.contains(&action) => Decision {
            action,
            reason: Reason::SwapPutBack {
                progress: Progress::of(dist, Vec::new()),
                tiles: chosen,
            },
        },
        _ => keep,
    }
}

fn distance(an: &mut Analyzer, seen: &Seen, counts: &Counts, level: Level) -> i32 {
    match level {
        Level::Strong | Level::Master => {
            let mut ev = Evaluator {
                seen,
                an,
                tune: crate::value::Tune::STRONG,
            };
            ev.worth(counts, &seen.melds, false).dist
        }
        _ => crate::basic::nearest(an, seen, counts, &seen.melds).0,
    }
}

/// The tile whose loss hurts the hand least (never a wildcard).
fn weakest(an: &mut Analyzer, seen: &Seen, counts: &Counts, level: Level) -> Option<Tile> {
    let mut best: Option<(f64, u32, Tile)> = None;
    for i in (0..34).filter(|&i| counts[i] > 0 && Some(i) != seen.wildcard) {
        let Some(tile) = Tile::from_index(i) else {
            continue;
        };
        let mut c = *counts;
        c[i] -= 1;
        let score = match level {
            Level::Strong | Level::Master => {
                let mut ev = Evaluator {
                    seen,
                    an,
                    tune: crate::value::Tune::STRONG,
                };
                ev.worth(&c, &seen.melds, false).ev
            }
            _ => -(crate::basic::nearest(an, seen, &c, &seen.melds).0 as f64),
        };
        let company = crate::basic::company(counts, i);
        let better = best.is_none_or(|(s, comp, _)| {
            score > s + 1e-12 || ((score - s).abs() <= 1e-12 && company < comp)
        });
        if better {
            best = Some((score, company, tile));
        }
    }
    best.map(|b| b.2)
}
