//! A finished hand rebuilt from its stored signed log, step by step, for the replay screen.
//!
//! The store keeps the player's seat's log of each table (the signed, hash-chained steps) and
//! the booked result of each hand. This module finds them in the store; the table crate
//! rebuilds the hand from them ([`mahjong_table::rebuild()`]: the log verified as every peer did,
//! the deal audited, the moves applied by the rules engine, the outcome checked against the
//! booked one), seen from the player's seat.
//!
//! A hand aborted before its deal secrets were revealed has no audit, so no wall to show: it
//! cannot be replayed ([`RebuildError::NoAudit`]).

use std::path::Path;

use mahjong_bot::Level;
use mahjong_rules::Seat;
use mahjong_store::to_hex;
use mahjong_table::{HandResult, RebuildError};

use crate::records::{self, RecordsError};

/// One step of the replay: the moves of one log step and the state after them.
pub type Step = mahjong_table::RebuiltStep;

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
    /// The stored log does not rebuild the hand as it was booked.
    #[error("{0}")]
    Rebuild(#[from] RebuildError),
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
    let owner = info
        .owner_seat()
        .ok_or_else(|| RecordsError::NoSeat(to_hex(table)))?;
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
    let steps = mahjong_table::rebuild(log, &row.result, owner, mahjong_table::rebuild::cards())?;
    let practice = info.practice_levels();
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
