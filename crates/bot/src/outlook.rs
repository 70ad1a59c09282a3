//! What an action leaves a hand with, as the `strong` level weighs it ([`outlook`]): the hand
//! aimed at, the distance to ready (向听), the winning tiles with their live copies, and for a
//! discard the chance it wins for another seat. A review of a played hand (复盘) sets the
//! player's choice beside the bot's with these facts.
//!
//! The figures are those the bot decides on ([`crate::strong::Evaluator::worth`],
//! [`crate::defence::threats`]), from the same [`SeatView`]: no hidden tile is used.

use mahjong_rules::Action;
use mahjong_rules::hand::MeldType;
use mahjong_rules::view::{PublicPhase, SeatView};

use crate::Plan;
use crate::defence;
use crate::seen::Seen;
use crate::shape::Analyzer;
use crate::strong::{Evaluator, Worth, claim_discards, plan_of};
use mahjong_rules::tile::Counts;

/// What an action leaves the hand with.
#[derive(Clone, Debug, PartialEq)]
pub struct Outlook {
    /// The hand aimed at and how far it is after the action (after a chow or pung, after the
    /// best discard that follows it).
    pub plan: Plan,
    /// For a discard: the chance (0–1) that the tile wins for another seat.
    pub danger: Option<f64>,
    /// For a hand not ready: the live tiles that would bring it nearer to the hand aimed at
    /// (有效牌); `None` after a claim (its discard is not chosen yet) and for a ready hand.
    pub useful: Option<u32>,
}

/// The live tiles that bring `counts` (one tile short) nearer to `w`'s target, while it is
/// not ready.
fn useful(seen: &Seen, an: &mut Analyzer, counts: &Counts, melds: usize, w: &Worth) -> Option<u32> {
    if w.dist <= 0 {
        return None;
    }
    let shape = seen.shape(counts, melds);
    Some(an.acceptance(&shape, w.target, &seen.live, seen.wildcard).1)
}

/// The outlook of `action` in `view` (one of its legal actions), or `None` for actions that
/// leave no hand to weigh (a win, a flower, leaving, 换牌).
pub fn outlook(view: &SeatView, action: &Action) -> Option<Outlook> {
    let seen = Seen::new(view);
    let mut an = Analyzer::new();
    let threats = defence::threats(&seen);
    let declared = seen.ready();
    let mut ev = Evaluator {
        seen: &seen,
        an: &mut an,
        tune: crate::value::Tune::STRONG,
    };
    let plan = |w| Some(plan_of(&seen, &w));
    match action {
        Action::Discard { card, ready } => {
            let i = card.tile.index();
            if i >= 34 || seen.counts[i] == 0 {
                return None;
            }
            let mut c = seen.counts;
            c[i] -= 1;
            let w = ev.worth(&c, &seen.melds, *ready || declared);
            let useful = useful(&seen, ev.an, &c, seen.melds.len(), &w);
            Some(Outlook {
                plan: plan(w)?,
                danger: Some(threats.danger[i].clamp(0.0, 1.0)),
                useful,
            })
        }
        Action::Pass => {
            let w = ev.worth(&seen.counts, &seen.melds, declared);
            let useful = useful(&seen, ev.an, &seen.counts, seen.melds.len(), &w);
            Some(Outlook {
                plan: plan(w)?,
                danger: None,
                useful,
            })
        }
        Action::Chow { .. } | Action::Pung { .. } | Action::Kong { .. } => {
            let tile = match &view.phase {
                PublicPhase::Claims { card, .. } => card.tile,
                _ => return None,
            };
            let (c, melds, shape) = seen.after_claim(action, tile)?;
            let w = if shape.kind == MeldType::ClaimedKong {
                ev.worth(&c, &melds, false)
            } else {
                let opts = claim_discards(&seen, &c, &melds);
                ev.best_discard(&c, &melds, &threats, &opts)?.worth
            };
            Some(Outlook {
                plan: plan(w)?,
                danger: None,
                useful: None,
            })
        }
        Action::ConcealedKong { cards } => {
            let (c, melds) = seen.after_concealed_kong(cards[0].tile);
            let w = ev.worth(&c, &melds, declared);
            let useful = useful(&seen, ev.an, &c, melds.len(), &w);
            Some(Outlook {
                plan: plan(w)?,
                danger: None,
                useful,
            })
        }
        Action::AddedKong { card } => {
            let i = card.tile.index();
            let (c, melds) = seen.after_added_kong(card.tile);
            let w = ev.worth(&c, &melds, declared);
            let useful = useful(&seen, ev.an, &c, melds.len(), &w);
            Some(Outlook {
                plan: plan(w)?,
                danger: Some(threats.danger[i].clamp(0.0, 1.0)),
                useful,
            })
        }
        Action::Win { .. } | Action::Flower { .. } | Action::Leave | Action::Swap { .. } => None,
    }
}
