//! The store's typed errors: each names the file, table or record at fault.

use std::path::PathBuf;

use thiserror::Error;

/// Something the store could not do.
#[derive(Debug, Error)]
pub enum StoreError {
    /// A file or directory could not be read, written or created.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The system error.
        source: std::io::Error,
    },
    /// The identity key file exists but is not a valid key. It is never replaced silently:
    /// the player's identity (and every signature made with it) would be lost.
    #[error(
        "identity key file {path} is corrupt ({why}); move it away to make a new identity, \
         or restore it from a backup"
    )]
    CorruptKey {
        /// The key file.
        path: PathBuf,
        /// What is wrong with it.
        why: String,
    },
    /// The database file is not a readable SQLite database of this program.
    #[error("database {path} is corrupt or not a mahjong store: {why}")]
    CorruptDatabase {
        /// The database file.
        path: PathBuf,
        /// What SQLite or the schema check said.
        why: String,
    },
    /// The database was written by a newer version of this program.
    #[error(
        "database {path} has schema version {found}, newer than this program's {supported}: \
         upgrade the program"
    )]
    NewerSchema {
        /// The database file.
        path: PathBuf,
        /// The version found.
        found: i64,
        /// The newest version this program knows.
        supported: i64,
    },
    /// An SQLite operation failed.
    #[error("database: {what}: {source}")]
    Sqlite {
        /// What the store was doing.
        what: &'static str,
        /// SQLite's error.
        source: rusqlite::Error,
    },
    /// A stored record does not decode (the database was changed outside this program).
    #[error("stored {what} does not decode: {why}")]
    Decode {
        /// Which record.
        what: String,
        /// Why.
        why: String,
    },
    /// The database belongs to another identity key than the one in the data directory.
    #[error(
        "database {path} belongs to the identity {stored}, not to this data directory's key \
         {given}: the key file or the database was replaced"
    )]
    OtherIdentity {
        /// The database file.
        path: PathBuf,
        /// The public key the database was made for (hex).
        stored: String,
        /// The public key given (hex).
        given: String,
    },
    /// No such table in the store.
    #[error("no table {0} in the store")]
    UnknownTable(String),
    /// A table already in the store would be rewritten (its names, roster or finished flag):
    /// refused, a table's record is never overwritten.
    #[error("table {table} is already in the store with {what}: a stored table is never rewritten")]
    TableExists {
        /// The table id (hex).
        table: String,
        /// What would change (other names, another roster, finished).
        what: String,
    },
    /// The table has no such local seat in the store.
    #[error("table {table} has no local seat {seat} in the store")]
    UnknownSeat {
        /// The table id (hex).
        table: String,
        /// The seat.
        seat: u8,
    },
    /// A finished hand does not come with the signatures that make it final.
    #[error("hand {hand} of table {table} is not final: {why}")]
    NotFinal {
        /// The table id (hex).
        table: String,
        /// The hand number.
        hand: u32,
        /// What is missing.
        why: String,
    },
    /// The ledger already holds another result for this hand (never overwritten).
    #[error("the ledger already holds a different result for hand {hand} of table {table}")]
    LedgerConflict {
        /// The table id (hex).
        table: String,
        /// The hand number.
        hand: u32,
    },
    /// Restoring a seat's client from its journal failed.
    #[error("table {table} seat {seat}: {source}")]
    Restore {
        /// The table id (hex).
        table: String,
        /// The seat.
        seat: u8,
        /// The table crate's error.
        source: mahjong_table::TableError,
    },
    /// A display name that cannot be used.
    #[error("bad player name {0:?}: 1 to 40 characters, no control characters")]
    BadName(String),
    /// Logging could not be set up.
    #[error("logging: {0}")]
    Logging(String),
    /// Another process holds the data directory's lock ([`crate::DirLock`]).
    #[error("the data dir {} is in use by another process (pid {})", dir.display(), pid.map_or_else(|| "unknown".to_string(), |p| p.to_string()))]
    InUse {
        /// The data directory.
        dir: PathBuf,
        /// The holder's process id, as it wrote it in the lock file.
        pid: Option<u32>,
    },
}

impl StoreError {
    /// An I/O error on `path`.
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> StoreError {
        StoreError::Io {
            path: path.into(),
            source,
        }
    }

    /// A closure mapping an SQLite error while doing `what`.
    pub(crate) fn sql(what: &'static str) -> impl FnOnce(rusqlite::Error) -> StoreError {
        move |source| StoreError::Sqlite { what, source }
    }
}
