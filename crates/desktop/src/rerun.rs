//! A finished hand rebuilt from its stored signed log, step by step, for the replay screen.
//!
//! The store keeps the player's seat's log of each table (the signed, hash-chained steps) and
//! the booked result of each hand, whose set-up gives the dealer, dice and 荒番. The table
//! crate reads the hand out of the log ([`mahjong_table::hand_log`], verifying the log through
//! it as every peer did, with the replica's roster rule); the hand's deal messages (commitments, reveals, the four shuffles, the shares and the end-of-hand
//! secrets) go through the deal crate's audit (`mahjong_deal::audit`, the same check every
//! seat runs at the end of a hand), which gives the whole wall; then the rules engine deals it
//! ([`HandState::new`]) and the moves of the log (`Play` entries and opened claim answers, in
//! log order, exactly as the table applied them) are applied one log step at a time. Each
//! step keeps the player's own view (what the player saw then) and every seat's concealed
//! tiles (what the audit proves), so the screen can show either. The rebuilt outcome must be
//! the booked one, or the replay is refused.
//!
//! A hand aborted before its deal secrets were revealed has no audit, so no wall to show: it
//! cannot be replayed ([`ReplayError::NoAudit`]).

use std::path::Path;
use std::sync::Arc;

use mahjong_bot::Level;
use mahjong_deal::{CardTable, HandContext, audit_with_cards};
use mahjong_rules::{Card, Event, HandState, MeldShape, Move, Seat, SeatView, Setup, Wall};
use mahjong_store::to_hex;
use mahjong_table::{HandLog, HandResult, LogFault, StepRecord};

use crate::records::{self, RecordsError};

/// One step of the replay: the moves of one log step and the state after them.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    /// The moves applied (empty for the deal).
    pub moves: Vec<Move>,
    /// What the rules said they did.
    pub events: Vec<Event>,
    /// The player's own view after them.
    pub view: SeatView,
    /// Every seat's concealed tiles after them (proven by the audit).
    pub hands: [Vec<Card>; 4],
    /// Every seat's melds, concealed kongs face up (proven by the audit).
    pub melds: [Vec<MeldShape>; 4],
    /// The player's own view just before each of the player's moves of this step, in their
    /// order: what the player was asked (the review of the hand weighs each against it).
    pub prompts: Vec<SeatView>,
}

/// A finished hand, rebuilt.
#[derive(Clone, Debug, PartialEq)]
pub struct Replay {
    /// The table id.
    pub table: [u8; 32],
    /// The hand number.
    pub hand: u32,
    /// The player's seat.
    pub owner: Seat,
    /// The seats' names as stored.
    pub names: [String; 4],
    /// For a practice table, the bots' levels.
    pub practice: Option<[Level; 3]>,
    /// The booked result.
    pub result: HandResult,
    /// The deal (step 0), then every log step that moved the hand, the last one ending it.
    pub steps: Vec<Step>,
}

/// Why a hand cannot be replayed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    /// The store could not be read, or does not hold the table, its log or the hand.
    #[error("{0}")]
    Records(#[from] RecordsError),
    /// The log is not a table's log (no set-up at its start).
    #[error("the stored log of table {0} does not start with the host's proposal")]
    NoSetup(String),
    /// The hand's deal was not revealed (aborted before the audit) or does not audit.
    #[error("hand {hand}'s deal cannot be rebuilt: {why}")]
    NoAudit {
        /// The hand.
        hand: u32,
        /// Why.
        why: String,
    },
    /// A move of the log is refused by the rules, or the rebuilt outcome is not the booked
    /// one: the store does not hold what was signed.
    #[error("hand {hand} does not replay as it was booked: {why}")]
    Disagree {
        /// The hand.
        hand: u32,
        /// Why.
        why: String,
    },
}

/// Rebuilds hand `hand` of table `table` from the store in `dir`.
pub fn load(dir: &Path, table: &[u8; 32], hand: u32) -> Result<Replay, ReplayError> {
    let store =
        records::open_existing(dir)?.ok_or_else(|| RecordsError::NoStore(dir.to_path_buf()))?;
    let store_err = |e: mahjong_store::StoreError| ReplayError::Records(e.into());
    let info = store
        .table(table)
        .map_err(store_err)?
        .ok_or_else(|| RecordsError::NoTable(to_hex(table)))?;
    let owner = records::owner_seat(&info).ok_or_else(|| RecordsError::NoSeat(to_hex(table)))?;
    let row = store
        .ledger_of(table)
        .map_err(store_err)?
        .into_iter()
        .find(|r| r.hand == hand)
        .ok_or_else(|| RecordsError::NoHand {
            table: to_hex(table),
            hand,
        })?;
    let log = store
        .persisted(table, owner)
        .map_err(store_err)?
        .map(|p| p.log)
        .unwrap_or_default();
    let log =
        mahjong_store::export::log_through_hand(&log, hand).ok_or(RecordsError::NotInLog(hand))?;
    let steps = rebuild(log, &row.result, owner, crate::records::cards())?;
    let practice = records::practice_levels(&info);
    Ok(Replay {
        table: *table,
        hand,
        owner,
        names: info.names.clone(),
        practice,
        result: row.result,
        steps,
    })
}

/// Rebuilds the steps of `result`'s hand from `log` (the table's log through that hand's end),
/// seen from `owner`.
pub fn rebuild(
    log: &[StepRecord],
    result: &HandResult,
    owner: Seat,
    cards: Arc<CardTable>,
) -> Result<Vec<Step>, ReplayError> {
    let hand = result.hand;
    let no_audit = |why: String| ReplayError::NoAudit { hand, why };
    let disagree = |why: String| ReplayError::Disagree { hand, why };
    let setup: Setup = result
        .setup
        .clone()
        .ok_or_else(|| no_audit("it was aborted before the dice".into()))?;
    // The table crate walks the log (verifying it through the hand, with its own roster
    // rule): the roster in force, the deal messages and the moves of the hand.
    let HandLog {
        proposal,
        roster,
        messages,
        moves: groups,
    } = match mahjong_table::hand_log(log, hand, cards.clone()) {
        Ok(Some(h)) => h,
        Ok(None) => return Err(no_audit("the log holds none of its deal".into())),
        Err(LogFault::NoSetup) => return Err(ReplayError::NoSetup(String::new())),
        Err(f) => return Err(disagree(format!("the log does not verify: {f}"))),
    };
    let ctx = HandContext {
        table: proposal.table,
        hand,
    };
    let summary = audit_with_cards(ctx, &roster, &messages, cards)
        .map_err(|v| no_audit(format!("the deal audit fails ({v})")))?;
    let wall = Wall::from_cards(&summary.final_wall).map_err(|e| no_audit(e.to_string()))?;
    let mut state = HandState::new(setup, &wall).map_err(|e| no_audit(e.to_string()))?;
    let snapshot = |state: &HandState, moves: Vec<Move>, events: Vec<Event>, prompts| Step {
        moves,
        events,
        prompts,
        view: state.view(owner),
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
            if mv.seat == owner {
                prompts.push(state.view(owner));
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
