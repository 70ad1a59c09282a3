//! The seam between the event loop and a player's durable store: the host's
//! [`Storage`](mahjong_host::Storage) (one way to save and resume every table; the player's
//! SQLite store implements it, [`MemoryStorage`] keeps it in memory for tests), and how a
//! friends' table's signed roster is kept with it.
//!
//! The event loop calls the storage for everything that must survive a crash: the table it
//! begins with its roster ([`table_start`]), every seat's journal records (`Record::Own`
//! durable **before** the frames of the same output are sent), each final hand for the
//! ledger, and on start the friends' table to resume, whose roster [`roster_of`] reads back.

pub use mahjong_host::storage::{Kind, MemoryStorage, Storage, StorageError, Stored, TableStart};

use crate::wire::Roster;

/// The table a roster begins, as the store keeps it: its names, the people sat with (bots are
/// not noted: their keys are new each table) and the roster itself (who runs which seat,
/// needed to route frames after a restart).
pub fn table_start(roster: &Roster) -> Result<TableStart, StorageError> {
    let setup = postcard::to_allocvec(roster).map_err(|e| StorageError(e.to_string()))?;
    Ok(TableStart {
        id: roster.advert.table,
        names: roster
            .advert
            .seats
            .clone()
            .map(|s| s.map(|s| s.name).unwrap_or_default()),
        players: roster
            .advert
            .seats
            .iter()
            .flatten()
            .filter(|s| !s.bot)
            .map(|s| (s.key, s.name.clone()))
            .collect(),
        setup,
        practice: None,
    })
}

/// The signed roster of a stored friends' table.
pub fn roster_of(stored: &Stored) -> Result<Roster, StorageError> {
    postcard::from_bytes(&stored.setup).map_err(|e| {
        StorageError(format!(
            "the roster of table {} is corrupt: {e}",
            mahjong_store::to_hex(&stored.id)
        ))
    })
}
