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
//! - [`stats`]: the evening's [`Story`] (running balances, biggest hand, wins, self-draws,
//!   deal-ins, the fewest payments that [`settle_up`]) and every friend's [`Stats`] with a
//!   rating, practice apart.
//! - [`init_logging`]: `tracing` to `<data dir>/mahjong.log`, `RUST_LOG` respected.
//! - [`DirLock`]: one process per data directory (`mahjong.lock`, an OS file lock).
//!
//! # Use by the network shell
//!
//! At start-up: [`DirLock::acquire`] (kept for the life of the process), [`init_logging`], [`Identity::load_or_create`], [`Store::open`],
//! [`Store::claim_identity`], then resume every [`Store::unfinished_tables`] seat with
//! [`Store::restore`]. For a new table: [`Store::save_table`] with each local seat's config
//! and fresh root secret ([`new_root_secret`]) before the client's first input. For every
//! output of a client: [`Store::append`] its journal **before** sending its frames; after a
//! `HandOver` event, [`Store::book_from_client`]; on an `Evidence` event,
//! [`Store::save_evidence`]; when the client is over, [`Store::mark_finished`]. A restored
//! client starts at its last checkpoint, and one told `keep_log_in_store` holds only recent
//! hands: when an output asks for older steps (`out.load`), hand them back from
//! [`Store::steps`] as `Input::Stored`.
//!
//! ```no_run
//! use mahjong_store::{Identity, LocalSeat, Store, StoreError, TableInfo, new_root_secret, now_ms};
//! use mahjong_table::{Client, Config, Input, Output, TableEvent};
//!
//! /// One input to one local seat, with the store kept in step.
//! fn step(store: &Store, client: &mut Client, now: u64, input: Input) -> Result<Output, StoreError> {
//!     let out = client.handle(now, input);
//!     let table = client.log().first().map_or([0; 32], |s| s.entries[0].table);
//!     store.append(&table, client.seat(), &out.journal)?; // durable before sending
//!     for event in &out.events {
//!         match event {
//!             TableEvent::HandOver { .. } => {
//!                 store.book_from_client(client)?;
//!             }
//!             TableEvent::Evidence(evidence) => store.save_evidence(&table, evidence)?,
//!             _ => {}
//!         }
//!     }
//!     if client.is_over() {
//!         store.mark_finished(&table)?;
//!     }
//!     Ok(out) // now send out.send / out.reply, arm out.deadline
//! }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = mahjong_store::default_data_dir();
//! let _ = mahjong_store::init_logging(&dir);
//! let me = Identity::load_or_create(&dir, Some("Ann"))?;
//! let store = Store::open(&dir)?;
//! store.claim_identity(&me)?;
//! for table in store.unfinished_tables()? {
//!     for seat in &table.seats {
//!         if let Some(mut client) = store.restore(&table.id, seat.config.seat, &me)? {
//!             let _out = step(&store, &mut client, 0, Input::Tick)?; // re-sends, asks
//!         }
//!     }
//! }
//! # let (table, roster, names) = ([0u8; 32], [me.public(); 4], ["a", "b", "c", "d"].map(String::from));
//! let config = Config { table, seat: 1, roster, host: 0 };
//! let root = new_root_secret();
//! store.save_table(&TableInfo {
//!     id: table,
//!     seats: vec![LocalSeat { config: config.clone(), root, bot_key: None }],
//!     names,
//!     created: now_ms(),
//!     finished: false,
//!     practice: None,
//! })?;
//! let mut client = Client::new(config, me.key.clone(), root)?;
//! # let _ = &mut client;
//! # Ok(())
//! # }
//! ```
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

pub mod contacts;
pub mod db;
pub mod error;
pub mod export;
pub mod files;
pub mod fingerprint;
mod fingerprint_words;
pub mod hex;
pub mod history;
pub mod identity;
pub mod ledger;
pub mod lock;
pub mod logging;
pub mod muted;
pub mod names;
pub mod stats;
mod storage;

use std::path::PathBuf;

pub use contacts::{Contact, Recognition};
pub use db::{DB_FILE, LocalSeat, SCHEMA_VERSION, Store, TableInfo, now_ms};
pub use error::StoreError;
pub use export::{
    Checked, EvidenceFile, LogCheck, LogFile, VerifyError, verify_bytes, verify_file,
};
pub use fingerprint::Fingerprint;
pub use hex::{from_hex, from_hex32, to_hex};
pub use history::{History, PlayerEntry, TableEntry, Who};
pub use identity::Identity;
pub use ledger::{LedgerRow, Level, describe, level};
pub use lock::{DirLock, LOCK_FILE};
pub use logging::init_logging;
pub use muted::{MUTED_FILE, Muted};
pub use names::{SHOWN_NAME_CHARS, clean_name, clean_text, is_clean_name};
pub use stats::{Payment, PlayerStats, Stats, Story, settle_up, story};

/// A fresh 32-byte secret from the operating system (a seat's root secret, a bot's key).
pub fn new_root_secret() -> [u8; 32] {
    use rand_core::RngCore;
    let mut bytes = [0u8; 32];
    rand_core::OsRng.fill_bytes(&mut bytes);
    bytes
}

/// The platform data directory of the program (`~/.local/share/shanghai-mahjong` on Linux,
/// `~/Library/Application Support/shanghai-mahjong` on macOS, `%APPDATA%\shanghai-mahjong\data`
/// on Windows); where no home directory is known, `./shanghai-mahjong-data`.
pub fn default_data_dir() -> PathBuf {
    directories::ProjectDirs::from("", "", "shanghai-mahjong")
        .map(|dirs| dirs.data_dir().to_path_buf())
        .unwrap_or_else(|| PathBuf::from("shanghai-mahjong-data"))
}
