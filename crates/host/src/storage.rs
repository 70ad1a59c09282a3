//! The one way a table is saved and resumed: what a host's caller does with
//! [`Out::durable`](crate::Out) and [`Out::load`](crate::Out), written once for every table.
//!
//! A host never touches a disk (it is sans-IO). Its caller — the network's event loop, the
//! app's practice engine — hands each [`Durable`] to a [`Storage`] with [`keep`], reads back
//! the steps a seat asks for with [`load`], and on start asks the storage for the unfinished
//! table of its kind ([`Storage::resume`]). `mahjong_store::Store` is the player's SQLite
//! store; [`MemoryStorage`] keeps the same in memory (tests, and a table played where no data
//! dir can keep it).
//!
//! `Record::Own` is durable when [`Storage::append`] returns: the caller sends the frames of
//! the same `Out` only after [`keep`] returned `Ok`.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use ed25519_dalek::{SigningKey, VerifyingKey};
use mahjong_bot::Level;
use mahjong_rules::Seat;
use mahjong_table::{Evidence, HandResult, Persisted, Record, StepRecord};

use crate::{Durable, Host, Load, TableId};

/// A store failure (the table cannot go on safely: its caller stops it).
#[derive(Debug, thiserror::Error)]
#[error("store: {0}")]
pub struct StorageError(pub String);

/// Which tables a program resumes: a friends' table (the network's) or a practice table (the
/// app's practice engine). Each resumes only its own kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Played with other programs (LAN or internet).
    Friends,
    /// Four seats of this program: the player and three bots.
    Practice,
}

/// A table as it begins, for the store.
#[derive(Clone, Debug)]
pub struct TableStart {
    /// The table's id.
    pub id: TableId,
    /// The name of each seat.
    pub names: [String; 4],
    /// The other people at the table, by key (noted as friends sat with; bots are not).
    pub players: Vec<(VerifyingKey, String)>,
    /// What the caller needs to resume the table, in its own encoding (the network's signed
    /// roster; the practice table's set-up). The store keeps it as it is.
    pub setup: Vec<u8>,
    /// A practice table's bots, seats 1–3 (`None`: a friends' table).
    pub practice: Option<[Level; 3]>,
}

impl TableStart {
    /// The kind of table.
    pub fn kind(&self) -> Kind {
        match self.practice {
            Some(_) => Kind::Practice,
            None => Kind::Friends,
        }
    }
}

/// An unfinished table in the store, to resume after a restart.
#[derive(Clone, Debug)]
pub struct Stored {
    /// The table's id.
    pub id: TableId,
    /// [`TableStart::setup`], as kept.
    pub setup: Vec<u8>,
    /// Every seat this program ran there, as persisted.
    pub seats: Vec<Persisted>,
}

/// A player's durable store, as a host's caller uses it.
pub trait Storage: Send + 'static {
    /// Whether the store holds this table already (begun here before, finished or not).
    fn has_table(&mut self, table: &TableId) -> Result<bool, StorageError>;
    /// A table begins: keep it (before any record of it). A table already in the store is
    /// refused, never rewritten.
    fn begin_table(&mut self, start: &TableStart) -> Result<(), StorageError>;
    /// A seat this program runs starts at the table (its config and root secret; the signing
    /// key of a seat that does not sign with the player's identity: a bot's, a practice
    /// seat's).
    fn begin_seat(
        &mut self,
        table: &TableId,
        seat: &Persisted,
        key: Option<&SigningKey>,
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
    /// `to - 1`; fewer when the journal starts later): the answer to a
    /// [`Load`](crate::Load). By default none: a store that cannot read its journal back;
    /// the client then drops what waited for them and plays on.
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
    /// The table is over, or left (it is not resumed again).
    fn finish_table(&mut self, table: &TableId) -> Result<(), StorageError>;
    /// The newest unfinished table of this kind, if any.
    fn resume(&mut self, kind: Kind) -> Result<Option<Stored>, StorageError>;
}

/// Keeps what a host's [`Out::durable`](crate::Out) says, in its order; `appended` is told of
/// each seat's records once they are kept (the network serves them to watchers). Stops at the
/// first failure: nothing more of that `Out` may be sent.
pub fn keep(
    storage: &mut dyn Storage,
    table: &TableId,
    durable: Vec<Durable>,
    mut appended: impl FnMut(Seat, &[Record]),
) -> Result<(), StorageError> {
    for d in durable {
        match &d {
            Durable::Seat { persisted, bot_key } => {
                storage.begin_seat(table, persisted, bot_key.as_ref())?
            }
            Durable::Append { seat, records } => {
                storage.append(table, *seat, records)?;
                appended(*seat, records);
            }
            Durable::Book { results, log } => storage.book(table, results, log)?,
            Durable::Evidence(e) => storage.save_evidence(table, e)?,
            Durable::Finish => storage.finish_table(table)?,
        }
    }
    Ok(())
}

/// Reads back the steps each seat of [`Out::load`](crate::Out) asks for and hands them to
/// the host.
pub fn load(
    storage: &mut dyn Storage,
    host: &mut Host,
    now: u64,
    loads: Vec<Load>,
) -> Result<(), StorageError> {
    let table = host.table();
    for l in loads {
        let steps = storage.steps(&table, l.seat, l.from, l.to)?;
        host.stored(now, &l, steps);
    }
    Ok(())
}

#[derive(Debug, Default)]
struct Memory {
    table: Option<(TableStart, bool)>,
    seats: BTreeMap<Seat, Persisted>,
    ledger: Vec<HandResult>,
}

/// An in-memory [`Storage`] of one table at a time; clones share the same data (a test can
/// "restart" a peer on it).
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
        self.with(|m| m.table.as_ref().is_some_and(|(t, _)| t.id == *table))
    }

    fn begin_table(&mut self, start: &TableStart) -> Result<(), StorageError> {
        if self.has_table(&start.id)? {
            return Err(StorageError(
                "the table is already in the store: a stored table is never rewritten".into(),
            ));
        }
        self.with(|m| {
            *m = Memory {
                table: Some((start.clone(), false)),
                ..Memory::default()
            }
        })
    }

    fn begin_seat(
        &mut self,
        _table: &TableId,
        seat: &Persisted,
        _key: Option<&SigningKey>,
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
        self.with(|m| {
            if let Some((_, finished)) = &mut m.table {
                *finished = true;
            }
        })
    }

    fn resume(&mut self, kind: Kind) -> Result<Option<Stored>, StorageError> {
        self.with(|m| match &m.table {
            Some((start, false)) if start.kind() == kind => Some(Stored {
                id: start.id,
                setup: start.setup.clone(),
                seats: m.seats.values().cloned().collect(),
            }),
            _ => None,
        })
    }
}
