//! A finished hand rebuilt from its signed log, step by step (the replay and the review).
//!
//! [`hand_log`] reads the hand out of the log, verifying the log through it as every peer did
//! (with the replica's roster rule); the hand's deal messages go through the deal crate's audit
//! (the same check every seat runs at the end of a hand), which gives the whole wall; then the
//! rules engine deals it ([`HandState::new`]) and the moves of the log (`Play` entries and
//! opened claim answers, in log order, exactly as the table applied them) are applied one log
//! step at a time. Each step keeps one seat's view (what that seat saw then) and every seat's
//! concealed tiles (what the audit proves). The rebuilt outcome must be the booked one, or the
//! rebuild is refused.
//!
//! A hand aborted before its deal secrets were revealed has no audit, so no wall:
//! [`RebuildError::NoAudit`].

use std::sync::Arc;

use mahjong_deal::{CardTable, HandContext, audit_carried_with_cards};
use mahjong_rules::{Card, Event, HandState, MeldShape, Move, Seat, SeatView, Setup, Wall};

use crate::replica::{HandResult, StepRecord};
use crate::verify::{HandLog, LogFault, hand_log};

/// One step of a rebuilt hand: the moves of one log step and the state after them.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    /// The moves applied (empty for the deal).
    pub moves: Vec<Move>,
    /// What the rules said they did.
    pub events: Vec<Event>,
    /// The chosen seat's view after them.
    pub view: SeatView,
    /// Every seat's concealed tiles after them (proven by the audit).
    pub hands: [Vec<Card>; 4],
    /// Every seat's melds, concealed kongs face up (proven by the audit).
    pub melds: [Vec<MeldShape>; 4],
    /// The chosen seat's view just before each of its moves of this step, in their order:
    /// what the seat was asked (a review weighs each move against it).
    pub prompts: Vec<SeatView>,
}

/// Why a hand cannot be rebuilt.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RebuildError {
    /// The log is not a table's log (no set-up at its start).
    #[error("the log does not start with the host's proposal")]
    NoSetup,
    /// The hand's deal was not revealed (aborted before the audit) or does not audit.
    #[error("hand {hand}'s deal cannot be rebuilt: {why}")]
    NoAudit {
        /// The hand.
        hand: u32,
        /// Why.
        why: String,
    },
    /// A move of the log is refused by the rules, or the rebuilt outcome is not the booked
    /// one: the log does not hold what was signed.
    #[error("hand {hand} does not replay as it was booked: {why}")]
    Disagree {
        /// The hand.
        hand: u32,
        /// Why.
        why: String,
    },
}

/// Rebuilds the steps of `result`'s hand from `log` (the table's log through that hand's end),
/// seen from `seat`.
pub fn rebuild(
    log: &[StepRecord],
    result: &HandResult,
    seat: Seat,
    cards: Arc<CardTable>,
) -> Result<Vec<Step>, RebuildError> {
    let hand = result.hand;
    let no_audit = |why: String| RebuildError::NoAudit { hand, why };
    let disagree = |why: String| RebuildError::Disagree { hand, why };
    let setup: Setup = result
        .setup
        .clone()
        .ok_or_else(|| no_audit("it was aborted before the dice".into()))?;
    let HandLog {
        proposal,
        roster,
        messages,
        moves: groups,
    } = match hand_log(log, hand, cards.clone()) {
        Ok(Some(h)) => h,
        Ok(None) => return Err(no_audit("the log holds none of its deal".into())),
        Err(LogFault::NoSetup) => return Err(RebuildError::NoSetup),
        Err(f) => return Err(disagree(format!("the log does not verify: {f}"))),
    };
    let ctx = HandContext {
        table: proposal.table,
        hand,
    };
    let summary = audit_carried_with_cards(ctx, &roster, &messages, cards)
        .map_err(|v| no_audit(format!("the deal audit fails ({v})")))?;
    let wall = Wall::from_cards(&summary.final_wall).map_err(|e| no_audit(e.to_string()))?;
    let mut state = HandState::new(setup, &wall).map_err(|e| no_audit(e.to_string()))?;
    let snapshot = |state: &HandState, moves: Vec<Move>, events: Vec<Event>, prompts| Step {
        moves,
        events,
        prompts,
        view: state.view(seat),
        hands: std::array::from_fn(|s| state.hand_cards(s as Seat)),
        melds: std::array::from_fn(|s| state.meld_shapes(s as Seat)),
    };
    let mut steps = vec![snapshot(&state, Vec::new(), Vec::new(), Vec::new())];
    for group in groups {
        if state.is_over() {
            break;
        }
        let mut applied = Vec::new();
        let mut events = Vec::new();
        let mut prompts = Vec::new();
        for mv in group {
            if state.is_over() {
                break;
            }
            if mv.seat == seat {
                prompts.push(state.view(seat));
            }
            let evs = state
                .apply(&mv)
                .map_err(|e| disagree(format!("move {mv:?} is refused: {e}")))?;
            events.extend(evs);
            applied.push(mv);
        }
        steps.push(snapshot(&state, applied, events, prompts));
    }
    match (state.outcome(), &result.outcome) {
        (Some(mine), booked) if mine == booked => Ok(steps),
        (Some(_), _) => Err(disagree("the rebuilt outcome is not the booked one".into())),
        (None, _) => Err(disagree("the log ends before the hand does".into())),
    }
}

/// One card table for the whole process (building one costs a few milliseconds, and every
/// check of a log needs one).
pub fn cards() -> Arc<CardTable> {
    static CARDS: std::sync::OnceLock<Arc<CardTable>> = std::sync::OnceLock::new();
    CARDS.get_or_init(|| Arc::new(CardTable::new())).clone()
}
