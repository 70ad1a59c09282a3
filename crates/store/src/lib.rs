//! A player's durable store: the identity key, the tables and every local seat's journal,
//! the signed ledger of finished hands, exports of a table's signed log and their offline
//! verification, and the log file.
//!
//! Implements items 1 (identity), 4 (the durable store) and 6 (logs) of the networked-play
//! design, and the data behind `mahjong ledger`, `mahjong export` and `mahjong verify`. No
//! networking, no async: the network shell (`mahjong-net`) and the command line call it.
//!
//! - [`Identity`]: one ed25519 key per player, made on first run in the data directory
//!   (0600), used both as the peer's network identity and as its table signing key, and the
//!   display name.
//! - [`Store`]: one SQLite database per player (`mahjong.sqlite3`, WAL, versioned schema):
//!   [`TableInfo`]s with the root secret of each [`LocalSeat`], every seat's journal of
//!   [`mahjong_table::Record`]s (a `Record::Own` is durable before [`Store::append`]
//!   returns), folded back into a [`mahjong_table::Persisted`] for `Client::restore`.
//! - [`LedgerRow`]s: one per final hand, with the four `Settle` signatures or the three
//!   abort votes, booked idempotently ([`Store::book_from_client`]); player [`level`]s.
//! - [`export`]: a self-contained file of a table's signed log ([`Store::export`]), evidence
//!   files, and [`verify_file`], which checks either offline.
//! - [`init_logging`]: `tracing` to `<data dir>/mahjong.log`, `RUST_LOG` respected.
//!
//! # Example
//!
//! ```
//! use mahjong_store::{Identity, Store};
//!
//! let dir = tempfile::tempdir()?;
//! let me = Identity::load_or_create(dir.path(), Some("Ann"))?;
//! let store = Store::open(dir.path())?;
//! assert!(store.unfinished_tables()?.is_empty());
//! // Same directory, same player.
//! assert_eq!(Identity::load_or_create(dir.path(), None)?.public(), me.public());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod db;
pub mod error;
pub mod export;
pub mod files;
pub mod hex;
pub mod identity;
pub mod ledger;
pub mod logging;

use std::path::PathBuf;

pub use db::{DB_FILE, LocalSeat, SCHEMA_VERSION, Store, TableInfo, now_ms};
pub use error::StoreError;
pub use export::{
    Checked, EvidenceFile, LogCheck, LogFile, VerifyError, verify_bytes, verify_file,
};
pub use hex::{from_hex, from_hex32, to_hex};
pub use identity::Identity;
pub use ledger::{LedgerRow, Level, describe, level};
pub use logging::init_logging;

/// The platform data directory of the program (`~/.local/share/shanghai-mahjong` on Linux,
/// `~/Library/Application Support/shanghai-mahjong` on macOS, `%APPDATA%\shanghai-mahjong\data`
/// on Windows); where no home directory is known, `./shanghai-mahjong-data`.
pub fn default_data_dir() -> PathBuf {
    directories::ProjectDirs::from("", "", "shanghai-mahjong")
        .map(|dirs| dirs.data_dir().to_path_buf())
        .unwrap_or_else(|| PathBuf::from("shanghai-mahjong-data"))
}
