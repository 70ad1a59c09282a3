//! 复盘, the review of a finished hand: the player's own decisions, each weighed by the strong
//! computer player on the very view the player had, and those where it would have chosen
//! differently, with what either choice leaves the hand with.
//!
//! The source is the hand's own record: the player's signed log kept in the store, rebuilt
//! move by move by [`crate::rerun`] (the same rebuild as the replay screen), which keeps the
//! player's view before each of the player's moves. A decision is a prompt that offered more
//! than one action (a discard, a claim answer, a kong, a win, 换牌); a prompt with a single
//! action (a flower, a forced pass, the discard after 敲) decided nothing. Two choices are
//! the same when they play the same tiles the same way (any copy of a kind is that kind).

use std::path::Path;

use mahjong_bot::{Bot, Level, Outlook, outlook};
use mahjong_rules::{Action, Seat, SeatView, Tile};

use crate::rerun::{self, Replay, ReplayError};

/// A decision where the strong computer player would have chosen differently.
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
    /// The strong computer player's choice and its reason.
    pub advice: mahjong_bot::Decision,
    /// What the player's choice leaves the hand with.
    pub mine: Option<Outlook>,
    /// What the bot's choice leaves the hand with.
    pub theirs: Option<Outlook>,
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
    /// Those where the strong computer player would have chosen differently, in order.
    pub differences: Vec<Difference>,
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

/// Weighs every decision of the player in `replay` with the strong computer player.
pub fn build(replay: &Replay) -> Review {
    let mut decisions = 0;
    let mut differences = Vec::new();
    // The strong level decides from the view alone (no random choice): one bot, any seed.
    let mut bot = Bot::new(Level::Strong, 0);
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
            differences.push(Difference {
                step,
                view: view.clone(),
                played: mv.action.clone(),
                timed_out: mv.timed_out,
                mine: outlook(view, &mv.action),
                theirs: outlook(view, &advice.action),
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
