//! 复盘, the review of a finished hand: the player's own decisions, each weighed by the master
//! computer player on the very view the player had, and those where it would have chosen
//! differently, with what either choice leaves the hand with.
//!
//! The source is the hand's own record: the player's signed log kept in the store, rebuilt
//! move by move by [`crate::rerun`] (the same rebuild as the replay screen), which keeps the
//! player's view before each of the player's moves. A decision is a prompt that offered more
//! than one action (a discard, a claim answer, a kong, a win, 换牌); a prompt with a single
//! action (a flower, a forced pass, the discard after 敲) decided nothing. Two choices are
//! the same when they play the same tiles the same way (any copy of a kind is that kind).
//!
//! A different choice is a *mistake* only where the master's choice is better by a margin
//! ([`cost`]): a win not taken; a hand left further from ready (向听); both choices ready but
//! at least [`WAITS_MARGIN`] fewer live winning tiles; neither ready, as far from it, and at
//! least [`USEFUL_MARGIN`] fewer live tiles that bring it nearer (有效牌); or, no worse for the
//! hand by these measures, a discard at least [`DANGER_MARGIN_PCT`] percentage points more
//! likely to win for another seat. Other differences are choices of equal value: counted in the
//! summary, not listed as mistakes.

use std::path::Path;

use mahjong_bot::reason::Progress;
use mahjong_bot::{Bot, Level, Outlook, outlook};
use mahjong_rules::{Action, Seat, SeatView, Tile};

use crate::rerun::{self, Replay, ReplayError};

/// A decision where the master computer player would have chosen differently.
#[derive(Clone, Debug, PartialEq)]
pub struct Difference {
    /// The replay step of the player's move (1: the first move after the deal).
    pub step: usize,
    /// What the player saw and was offered.
    pub view: SeatView,
    /// What the player played.
    pub played: Action,
    /// The player's timer played it.
    pub timed_out: bool,
    /// The master computer player's choice and its reason.
    pub advice: mahjong_bot::Decision,
    /// What the player's choice leaves the hand with.
    pub mine: Option<Outlook>,
    /// What the bot's choice leaves the hand with.
    pub theirs: Option<Outlook>,
    /// What the player's choice cost, beyond the margins; `None`: a choice of equal value.
    pub cost: Option<Cost>,
}

/// Both choices ready: the master's must have at least this many more live winning tiles
/// for the player's to be a mistake.
pub const WAITS_MARGIN: u32 = 2;

/// As far from ready, not ready: the master's choice must leave at least this many more live
/// tiles that bring the hand nearer (有效牌) for the player's to be a mistake (one kind's
/// four copies).
pub const USEFUL_MARGIN: u32 = 4;

/// As near to ready and as many winning tiles: the player's discard must be at least this
/// many percentage points more likely to win for another seat to be a mistake.
pub const DANGER_MARGIN_PCT: u32 = 5;

/// What a mistake cost, as the review says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cost {
    /// A win was there and was not taken.
    MissedWin,
    /// The hand was left further from ready: tiles from ready after each choice (0: ready;
    /// `None`: no winning hand can be made any more).
    Further {
        /// After the player's choice.
        mine: Option<u32>,
        /// After the master's choice.
        theirs: Option<u32>,
    },
    /// Both ready, with fewer live winning tiles.
    FewerWins {
        /// After the player's choice.
        mine: u32,
        /// After the master's choice.
        theirs: u32,
    },
    /// As far from ready, with fewer live tiles that bring the hand nearer (有效牌).
    FewerUseful {
        /// After the player's choice.
        mine: u32,
        /// After the master's choice.
        theirs: u32,
    },
    /// A discard more likely to win for another seat (percent).
    Riskier {
        /// The player's discard.
        mine: u32,
        /// The master's choice.
        theirs: u32,
    },
}

/// Tiles from ready (0: ready), `None` when no winning hand can be made.
fn distance(o: &Outlook) -> Option<u32> {
    match &o.plan.progress {
        Progress::CannotWin => None,
        Progress::Ready(_) => Some(0),
        Progress::Away(n) => Some(*n),
    }
}

/// Live winning tiles of a ready hand.
fn live_wins(o: &Outlook) -> u32 {
    match &o.plan.progress {
        Progress::Ready(waits) => waits.iter().map(|w| u32::from(w.live)).sum(),
        _ => 0,
    }
}

/// What the player's choice cost against the master's, beyond the margins (module doc).
pub fn cost(
    played: &Action,
    advised: &Action,
    mine: Option<&Outlook>,
    theirs: Option<&Outlook>,
) -> Option<Cost> {
    match (played, advised) {
        (Action::Win { .. }, _) => return None,
        (_, Action::Win { .. }) => return Some(Cost::MissedWin),
        _ => {}
    }
    let (mine, theirs) = (mine?, theirs?);
    // `None` (cannot win) is the furthest.
    let far = |d: Option<u32>| d.unwrap_or(u32::MAX);
    let (dm, dt) = (distance(mine), distance(theirs));
    if far(dm) > far(dt) {
        return Some(Cost::Further {
            mine: dm,
            theirs: dt,
        });
    }
    if far(dm) < far(dt) {
        return None;
    }
    let (wm, wt) = (live_wins(mine), live_wins(theirs));
    if dm == Some(0) && wt >= wm + WAITS_MARGIN {
        return Some(Cost::FewerWins {
            mine: wm,
            theirs: wt,
        });
    }
    if wm > wt {
        return None;
    }
    if let (Some(um), Some(ut)) = (mine.useful, theirs.useful) {
        if ut >= um + USEFUL_MARGIN {
            return Some(Cost::FewerUseful {
                mine: um,
                theirs: ut,
            });
        }
        if um > ut {
            return None;
        }
    }
    let pct = |p: f64| (p * 100.0).round() as u32;
    match (mine.danger, theirs.danger) {
        (Some(a), Some(b)) if pct(a) >= pct(b) + DANGER_MARGIN_PCT => Some(Cost::Riskier {
            mine: pct(a),
            theirs: pct(b),
        }),
        _ => None,
    }
}

/// The review of one hand.
#[derive(Clone, Debug, PartialEq)]
pub struct Review {
    /// The table.
    pub table: [u8; 32],
    /// The hand.
    pub hand: u32,
    /// The player's seat.
    pub owner: Seat,
    /// The seats' names as stored.
    pub names: [String; 4],
    /// For a practice table, the bots' levels (the app names them its own way).
    pub practice: Option<[Level; 3]>,
    /// The player's decisions (prompts with a choice).
    pub decisions: usize,
    /// Those where the master computer player would have chosen differently, in order.
    pub differences: Vec<Difference>,
}

impl Review {
    /// The differences that cost something (the mistakes), in order.
    pub fn mistakes(&self) -> impl Iterator<Item = &Difference> {
        self.differences.iter().filter(|d| d.cost.is_some())
    }
}

/// The tiles an action plays, sorted, as a comparable key (any copy of a kind is that kind).
fn key(view: &SeatView, a: &Action) -> (u8, bool, Vec<Tile>) {
    let sorted = |mut v: Vec<Tile>| {
        v.sort();
        v
    };
    match a {
        Action::Flower { card } => (0, false, vec![card.tile]),
        Action::Pass => (1, false, Vec::new()),
        Action::Discard { card, ready } => (2, *ready, vec![card.tile]),
        Action::ConcealedKong { cards } => (3, false, vec![cards[0].tile]),
        Action::AddedKong { card } => (4, false, vec![card.tile]),
        Action::Win { .. } => (5, false, Vec::new()),
        Action::Chow { cards } => (6, false, sorted(cards.iter().map(|c| c.tile).collect())),
        Action::Pung { cards } => (7, false, vec![cards[0].tile]),
        Action::Kong { cards } => (8, false, vec![cards[0].tile]),
        Action::Leave => (9, false, Vec::new()),
        Action::Swap { put_back } => (
            10,
            false,
            sorted(
                put_back
                    .iter()
                    .filter_map(|&p| view.hand.iter().find(|c| c.pos == p).map(|c| c.tile))
                    .collect(),
            ),
        ),
    }
}

/// Whether two actions are the same choice: the same tiles played the same way.
pub fn same_choice(view: &SeatView, a: &Action, b: &Action) -> bool {
    key(view, a) == key(view, b)
}

/// Weighs every decision of the player in `replay` with the master computer player.
pub fn build(replay: &Replay) -> Review {
    let mut decisions = 0;
    let mut differences = Vec::new();
    // The master level decides from the view alone (no random choice): one bot, any seed.
    let mut bot = Bot::new(Level::ADVISER, 0);
    for (step, s) in replay.steps.iter().enumerate() {
        let mine = s.moves.iter().filter(|m| m.seat == replay.owner);
        for (view, mv) in s.prompts.iter().zip(mine) {
            if view.legal.len() < 2 {
                continue;
            }
            decisions += 1;
            let advice = bot.decide(view);
            if same_choice(view, &advice.action, &mv.action) {
                continue;
            }
            let mine = outlook(view, &mv.action);
            let theirs = outlook(view, &advice.action);
            differences.push(Difference {
                step,
                view: view.clone(),
                played: mv.action.clone(),
                timed_out: mv.timed_out,
                cost: cost(&mv.action, &advice.action, mine.as_ref(), theirs.as_ref()),
                mine,
                theirs,
                advice,
            });
        }
    }
    Review {
        table: replay.table,
        hand: replay.hand,
        owner: replay.owner,
        names: replay.names.clone(),
        practice: replay.practice,
        decisions,
        differences,
    }
}

/// Rebuilds hand `hand` of `table` from the store in `dir` and reviews it (blocking: call it
/// from a task).
pub fn load(dir: &Path, table: &[u8; 32], hand: u32) -> Result<Review, ReplayError> {
    rerun::load(dir, table, hand).map(|r| build(&r))
}

#[cfg(test)]
mod tests {
    use super::*;
    use mahjong_bot::reason::{Plan, Wait};
    use mahjong_rules::Card;

    fn o(progress: Progress, danger: f64, useful: Option<u32>) -> Outlook {
        Outlook {
            plan: Plan {
                target: None,
                progress,
            },
            danger: Some(danger),
            useful,
        }
    }

    fn ready(live: u8) -> Progress {
        Progress::Ready(vec![Wait {
            tile: "5p".parse().expect("tile"),
            live,
        }])
    }

    fn discard() -> Action {
        Action::Discard {
            card: Card {
                pos: 0,
                tile: "1z".parse().expect("tile"),
            },
            ready: false,
        }
    }

    #[test]
    fn only_a_choice_worse_by_a_margin_is_a_mistake() {
        let d = discard();
        let c = |m: &Outlook, t: &Outlook| cost(&d, &d, Some(m), Some(t));
        let away = |n, danger, useful| o(Progress::Away(n), danger, Some(useful));
        // Equal value.
        assert_eq!(c(&away(2, 0.0, 20), &away(2, 0.0, 20)), None);
        // A step further from ready, or no win left.
        assert_eq!(
            c(&away(3, 0.0, 30), &away(2, 0.0, 10)),
            Some(Cost::Further {
                mine: Some(3),
                theirs: Some(2)
            })
        );
        assert_eq!(
            c(&o(Progress::CannotWin, 0.0, None), &away(4, 0.0, 1)),
            Some(Cost::Further {
                mine: None,
                theirs: Some(4)
            })
        );
        // Nearer to ready is never a mistake, however risky.
        assert_eq!(c(&away(1, 0.9, 4), &away(2, 0.0, 30)), None);
        // Useful tiles: 3 fewer is within the margin, 4 is not.
        assert_eq!(c(&away(2, 0.0, 17), &away(2, 0.0, 20)), None);
        assert_eq!(
            c(&away(2, 0.0, 16), &away(2, 0.0, 20)),
            Some(Cost::FewerUseful {
                mine: 16,
                theirs: 20
            })
        );
        // Winning tiles of a ready hand: 1 fewer is within the margin, 2 is not.
        assert_eq!(c(&o(ready(3), 0.0, None), &o(ready(4), 0.0, None)), None);
        assert_eq!(
            c(&o(ready(2), 0.0, None), &o(ready(4), 0.0, None)),
            Some(Cost::FewerWins { mine: 2, theirs: 4 })
        );
        // Danger: 4 points is within the margin, 5 is not; more useful tiles excuse it.
        assert_eq!(c(&away(2, 0.14, 20), &away(2, 0.10, 20)), None);
        assert_eq!(
            c(&away(2, 0.15, 20), &away(2, 0.10, 20)),
            Some(Cost::Riskier {
                mine: 15,
                theirs: 10
            })
        );
        assert_eq!(c(&away(2, 0.30, 22), &away(2, 0.10, 20)), None);
        // A win not taken, whatever the hand.
        let win = Action::Win { reveal: Vec::new() };
        assert_eq!(cost(&d, &win, None, None), Some(Cost::MissedWin));
        assert_eq!(cost(&win, &d, None, None), None);
    }
}
