//! The seam between the event loop and a player's durable store.
//!
//! The event loop calls [`Storage`] for everything that must survive a crash: the roster of the
//! table it begins, every seat's journal records (`Record::Own` durable **before** the frames
//! of the same output are sent: the loop calls [`Storage::append`] first and sends only when it
//! returned `Ok`), each final hand for the ledger, and on start the table to resume.
//! [`StoreStorage`] puts it in the player's SQLite store (`mahjong_store`, the signed roster
//! with its table); [`MemoryStorage`] is the in-memory version for tests (and a shared
//! handle, so a test can "restart" a peer on the same data).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use ed25519_dalek::{SigningKey, VerifyingKey};
use mahjong_rules::Seat;
use mahjong_store::{LocalSeat, Store, TableInfo};
use mahjong_table::{Evidence, HandResult, Persisted, Record, StepRecord};

use crate::wire::{Roster, TableId};

/// A store failure (the table cannot go on safely: the loop stops with it).
#[derive(Debug, thiserror::Error)]
#[error("store: {0}")]
pub struct StorageError(pub String);

/// A table to resume after a restart.
#[derive(Clone, Debug)]
pub struct Resume {
    /// Its signed roster.
    pub roster: Roster,
    /// Every seat this peer ran there, as persisted.
    pub seats: Vec<Persisted>,
}

/// A player's durable store, as the event loop uses it.
pub trait Storage: Send + 'static {
    /// Whether the store holds this table already (begun here before, finished or not).
    fn has_table(&mut self, table: &TableId) -> Result<bool, StorageError>;
    /// A table begins: keep its roster (before any record of it). Called only once the
    /// roster's checks passed; a table already in the store is refused, never rewritten.
    fn begin_table(&mut self, roster: &Roster) -> Result<(), StorageError>;
    /// A seat this peer runs starts at the table (its config and root secret; a bot seat's
    /// signing key).
    fn begin_seat(
        &mut self,
        table: &TableId,
        seat: &Persisted,
        bot_key: Option<&SigningKey>,
    ) -> Result<(), StorageError>;
    /// Appends a seat's journal records; durable before it returns when they hold
    /// `Record::Own`.
    fn append(
        &mut self,
        table: &TableId,
        seat: Seat,
        records: &[Record],
    ) -> Result<(), StorageError>;
    /// Books every final hand of `results` not yet in the ledger, with its signatures from
    /// `log` (idempotent): a seat's client's, or the follower's of a seat a bot took.
    fn book(
        &mut self,
        table: &TableId,
        results: &[HandResult],
        log: &[StepRecord],
    ) -> Result<(), StorageError>;
    /// Keeps a proof of misbehaviour a local seat produced.
    fn save_evidence(&mut self, table: &TableId, evidence: &Evidence) -> Result<(), StorageError>;
    /// Steps `from..to` of a seat's log as its journal holds them (the run ending at
    /// `to - 1`; fewer when the journal starts later): the answer to a client's
    /// [`mahjong_table::Output::load`]. By default none: a store that cannot read its journal
    /// back; the client then drops what waited for them (an answer to a seat far behind,
    /// evidence about an old hand) and plays on.
    fn steps(
        &mut self,
        table: &TableId,
        seat: Seat,
        from: u32,
        to: u32,
    ) -> Result<Vec<StepRecord>, StorageError> {
        let _ = (table, seat, from, to);
        Ok(Vec::new())
    }
    /// The table is over (it is not resumed again).
    fn finish_table(&mut self, table: &TableId) -> Result<(), StorageError>;
    /// The unfinished table to resume, if any.
    fn resume(&mut self) -> Result<Option<Resume>, StorageError>;
}

#[derive(Debug, Default)]
struct Memory {
    roster: Option<Roster>,
    seats: BTreeMap<Seat, Persisted>,
    ledger: Vec<HandResult>,
    finished: bool,
}

/// An in-memory [`Storage`]; clones share the same data.
#[derive(Clone, Debug, Default)]
pub struct MemoryStorage(Arc<Mutex<Memory>>);

impl MemoryStorage {
    /// An empty store.
    pub fn new() -> MemoryStorage {
        MemoryStorage::default()
    }

    fn with<T>(&self, f: impl FnOnce(&mut Memory) -> T) -> Result<T, StorageError> {
        let mut m = self
            .0
            .lock()
            .map_err(|_| StorageError("memory store poisoned".into()))?;
        Ok(f(&mut m))
    }

    /// The ledger: the final hands booked so far.
    pub fn ledger(&self) -> Vec<HandResult> {
        self.with(|m| m.ledger.clone()).unwrap_or_default()
    }
}

impl Storage for MemoryStorage {
    fn has_table(&mut self, table: &TableId) -> Result<bool, StorageError> {
        self.with(|m| m.roster.as_ref().is_some_and(|r| r.advert.table == *table))
    }

    fn begin_table(&mut self, roster: &Roster) -> Result<(), StorageError> {
        if self.has_table(&roster.advert.table)? {
            return Err(StorageError(
                "the table is already in the store: a stored table is never rewritten".into(),
            ));
        }
        self.with(|m| {
            *m = Memory {
                roster: Some(roster.clone()),
                ..Memory::default()
            }
        })
    }

    fn begin_seat(
        &mut self,
        _table: &TableId,
        seat: &Persisted,
        _bot_key: Option<&SigningKey>,
    ) -> Result<(), StorageError> {
        self.with(|m| {
            m.seats.insert(seat.config.seat, seat.clone());
        })
    }

    fn append(
        &mut self,
        _table: &TableId,
        seat: Seat,
        records: &[Record],
    ) -> Result<(), StorageError> {
        self.with(|m| match m.seats.get_mut(&seat) {
            Some(p) => {
                for r in records {
                    p.apply(r.clone());
                }
                Ok(())
            }
            None => Err(StorageError(format!("no seat {seat} begun"))),
        })?
    }

    fn book(
        &mut self,
        _table: &TableId,
        results: &[HandResult],
        _log: &[StepRecord],
    ) -> Result<(), StorageError> {
        self.with(|m| {
            for r in results {
                if !m.ledger.iter().any(|x| x.hand == r.hand) {
                    m.ledger.push(r.clone());
                }
            }
        })
    }

    fn steps(
        &mut self,
        _table: &TableId,
        seat: Seat,
        from: u32,
        to: u32,
    ) -> Result<Vec<StepRecord>, StorageError> {
        self.with(|m| {
            m.seats
                .get(&seat)
                .map_or_else(Vec::new, |p| p.steps(from, to))
        })
    }

    fn save_evidence(&mut self, _table: &TableId, _e: &Evidence) -> Result<(), StorageError> {
        Ok(())
    }

    fn finish_table(&mut self, _table: &TableId) -> Result<(), StorageError> {
        self.with(|m| m.finished = true)
    }

    fn resume(&mut self) -> Result<Option<Resume>, StorageError> {
        self.with(|m| match (&m.roster, m.finished) {
            (Some(roster), false) => Some(Resume {
                roster: roster.clone(),
                seats: m.seats.values().cloned().collect(),
            }),
            _ => None,
        })
    }
}

/// The player's SQLite store ([`mahjong_store::Store`]); the signed roster of each table (who
/// runs which seat, needed to route frames after a restart) is kept with the table.
pub struct StoreStorage {
    store: Store,
}

fn err(e: impl std::fmt::Display) -> StorageError {
    StorageError(e.to_string())
}

impl StoreStorage {
    /// Opens the store in `data_dir`.
    pub fn open(data_dir: &Path) -> Result<StoreStorage, StorageError> {
        let store = Store::open(data_dir).map_err(err)?;
        Ok(StoreStorage { store })
    }
}

impl Storage for StoreStorage {
    fn has_table(&mut self, table: &TableId) -> Result<bool, StorageError> {
        Ok(self.store.table(table).map_err(err)?.is_some())
    }

    fn begin_table(&mut self, roster: &Roster) -> Result<(), StorageError> {
        let table = roster.advert.table;
        if self.has_table(&table)? {
            return Err(StorageError(format!(
                "table {} is already in the store: a stored table is never rewritten",
                mahjong_store::to_hex(&table)
            )));
        }
        let names = roster
            .advert
            .seats
            .clone()
            .map(|s| s.map(|s| s.name).unwrap_or_default());
        self.store
            .save_table(&TableInfo {
                id: table,
                seats: Vec::new(),
                names,
                created: mahjong_store::now_ms(),
                finished: false,
            })
            .map_err(err)?;
        let bytes = postcard::to_allocvec(roster).map_err(err)?;
        self.store.save_roster(&table, &bytes).map_err(err)?;
        // The friends sat with, by key (bots are not noted: their keys are new each table).
        let players: Vec<(VerifyingKey, String)> = roster
            .advert
            .seats
            .iter()
            .flatten()
            .filter(|s| !s.bot)
            .map(|s| (s.key, s.name.clone()))
            .collect();
        self.store
            .note_players(&table, &players, mahjong_store::now_ms())
            .map_err(err)
    }

    fn begin_seat(
        &mut self,
        table: &TableId,
        seat: &Persisted,
        bot_key: Option<&SigningKey>,
    ) -> Result<(), StorageError> {
        self.store
            .add_seat(
                table,
                &LocalSeat {
                    config: seat.config.clone(),
                    root: seat.root,
                    bot_key: bot_key.cloned(),
                },
            )
            .map_err(err)
    }

    fn append(
        &mut self,
        table: &TableId,
        seat: Seat,
        records: &[Record],
    ) -> Result<(), StorageError> {
        self.store.append(table, seat, records).map_err(err)
    }

    fn book(
        &mut self,
        table: &TableId,
        results: &[HandResult],
        log: &[StepRecord],
    ) -> Result<(), StorageError> {
        self.store
            .book_from_log(table, results, log)
            .map(|_| ())
            .map_err(err)
    }

    fn save_evidence(&mut self, table: &TableId, evidence: &Evidence) -> Result<(), StorageError> {
        self.store.save_evidence(table, evidence).map_err(err)
    }

    fn steps(
        &mut self,
        table: &TableId,
        seat: Seat,
        from: u32,
        to: u32,
    ) -> Result<Vec<StepRecord>, StorageError> {
        self.store.steps(table, seat, from, to).map_err(err)
    }

    fn finish_table(&mut self, table: &TableId) -> Result<(), StorageError> {
        self.store.mark_finished(table).map_err(err)
    }

    fn resume(&mut self) -> Result<Option<Resume>, StorageError> {
        let Some(info) = self.store.unfinished_tables().map_err(err)?.pop() else {
            return Ok(None);
        };
        let table = mahjong_store::to_hex(&info.id);
        let bytes = self.store.roster(&info.id).map_err(err)?.ok_or_else(|| {
            StorageError(format!(
                "table {table} in the store has no roster to resume"
            ))
        })?;
        let roster: Roster = postcard::from_bytes(&bytes)
            .map_err(|e| StorageError(format!("the roster of table {table} is corrupt: {e}")))?;
        let mut seats = Vec::new();
        for local in &info.seats {
            // From the last checkpoint on: a restore reads only the current hand. A seat that
            // runs the bot of a replaced seat is read whole: the bot's keys come from the
            // roster step that gave it the seat, which may lie any number of hands back.
            let seat = local.config.seat;
            let Some(p) = self
                .store
                .persisted_from_checkpoint(&info.id, seat)
                .map_err(err)?
            else {
                continue;
            };
            let controls = p
                .checkpoint
                .as_ref()
                .is_some_and(|cp| cp.controllers.contains(&Some(seat)));
            if controls && p.base() > 0 {
                if let Some(whole) = self.store.persisted(&info.id, seat).map_err(err)? {
                    seats.push(whole);
                }
            } else {
                seats.push(p);
            }
        }
        Ok(Some(Resume { roster, seats }))
    }
}
