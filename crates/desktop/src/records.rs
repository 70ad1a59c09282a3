//! The player's records in the store (`mahjong-store`, `<data dir>/mahjong.sqlite3`): the
//! history screen's data (every table and hand of the ledger with running totals and the
//! players' balances), the export of a hand's signed log, the offline verification of a file
//! or of a stored table, and the booking of practice hands.
//!
//! Everything here is blocking (SQLite, the deal's crypto): the screens call it from a `Task`,
//! never on the UI thread.
//!
//! **Practice tables** are saved like any table, through the host's storage
//! (`mahjong_host::storage`, by [`crate::engine::Engine::saved`]): the four seats as local
//! seats with their own keys, the names `[player, "bot 1 (strong)", …]`, the typed practice
//! marker with the bots' levels (`TableInfo::practice`), the set-up to seat it again, every
//! seat's journal and each final hand. It stays unfinished until its session ends or the
//! player leaves it ([`crate::session::leave_practice`]); the app opens on one left unfinished
//! by a kill ([`crate::session::practice_to_resume`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use mahjong_store::{Checked, DB_FILE, LogCheck, Store, StoreError, VerifyError, to_hex};
use mahjong_table::{LogFault, verify::verify_log_with_cards};

pub use mahjong_store::history::{
    HandEntry, History, PlayerEntry, TableEntry, Who, practice_level, practice_names,
};

/// One card table for the whole process (building it costs a few milliseconds): the tile set
/// every practice table deals and every log is checked with.
pub use mahjong_table::rebuild::cards;

/// Why the history could not be read, a hand exported, replayed or reviewed, or a table
/// verified: what is wrong, sorted out of the store's and the system's errors so that the app
/// can say it in the player's language ([`crate::i18n::records_error`]: which file, a full
/// disk, a damaged database, a hand not found). The store's or the system's own words are
/// kept as the detail (shown in English only).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RecordsError {
    /// A file could not be read or written.
    #[error("{path}: {detail}")]
    File {
        /// The file (or folder).
        path: PathBuf,
        /// What kind of trouble.
        trouble: Trouble,
        /// The system's words.
        detail: String,
    },
    /// The database is damaged or is not this program's.
    #[error("database {path} is corrupt or not a mahjong store: {detail}")]
    Corrupt {
        /// The database file.
        path: PathBuf,
        /// What SQLite or the schema check said.
        detail: String,
    },
    /// The database was written by a newer version of the program.
    #[error("database {path} was written by a newer version of this program")]
    Newer {
        /// The database file.
        path: PathBuf,
    },
    /// The database belongs to another identity key than the data directory's.
    #[error("database {path} belongs to another identity")]
    OtherIdentity {
        /// The database file.
        path: PathBuf,
    },
    /// A stored record does not decode (the database was changed outside the program).
    #[error("a stored record does not decode: {0}")]
    Damaged(String),
    /// Another process holds the data directory.
    #[error("the data dir is in use by another process (pid {pid:?})")]
    InUse {
        /// Its process id, when known.
        pid: Option<u32>,
    },
    /// There is no store in the data directory yet.
    #[error("no store in {0}")]
    NoStore(PathBuf),
    /// The table is not in the store.
    #[error("no table {0} in the store")]
    NoTable(String),
    /// The table has no local seat in the store (so no log of the player's).
    #[error("table {0} has no local seat")]
    NoSeat(String),
    /// The hand is not booked.
    #[error("hand {hand} of table {table} is not booked")]
    NoHand {
        /// The table id (hex).
        table: String,
        /// The hand.
        hand: u32,
    },
    /// The hand is booked, but the player's stored log does not reach its end.
    #[error("the stored log does not hold hand {0}'s end")]
    NotInLog(u32),
    /// Anything else the store said (its words).
    #[error("{0}")]
    Store(String),
}

/// What kind of trouble a file gave.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trouble {
    /// The disk is full.
    Full,
    /// No permission, or a read-only file system.
    Denied,
    /// The file or a folder on its way does not exist.
    NotFound,
    /// A file stands where a folder on its way should be.
    NotAFolder,
    /// A folder stands where the file should.
    IsFolder,
    /// Anything else.
    Other,
}

impl Trouble {
    /// The trouble an I/O error shows.
    pub fn of(e: &std::io::Error) -> Trouble {
        use std::io::ErrorKind as K;
        match e.kind() {
            K::StorageFull | K::QuotaExceeded => Trouble::Full,
            K::PermissionDenied | K::ReadOnlyFilesystem => Trouble::Denied,
            K::NotFound => Trouble::NotFound,
            K::NotADirectory | K::AlreadyExists => Trouble::NotAFolder,
            K::IsADirectory => Trouble::IsFolder,
            _ => Trouble::Other,
        }
    }
}

impl RecordsError {
    /// A file's I/O error.
    pub fn io(path: &Path, e: &std::io::Error) -> RecordsError {
        RecordsError::File {
            path: path.to_path_buf(),
            trouble: Trouble::of(e),
            detail: e.to_string(),
        }
    }
}

impl From<StoreError> for RecordsError {
    fn from(e: StoreError) -> RecordsError {
        match e {
            StoreError::Io { path, source } => RecordsError::io(&path, &source),
            StoreError::CorruptDatabase { path, why } => {
                RecordsError::Corrupt { path, detail: why }
            }
            StoreError::NewerSchema { path, .. } => RecordsError::Newer { path },
            StoreError::OtherIdentity { path, .. } => RecordsError::OtherIdentity { path },
            StoreError::Decode { what, why } => RecordsError::Damaged(format!("{what}: {why}")),
            StoreError::InUse { pid, .. } => RecordsError::InUse { pid },
            StoreError::UnknownTable(t) => RecordsError::NoTable(t),
            StoreError::UnknownSeat { table, .. } => RecordsError::NoSeat(table),
            other => RecordsError::Store(other.to_string()),
        }
    }
}

/// Opens the store of `dir` without creating one: `None` when there is none yet.
pub fn open_existing(dir: &Path) -> Result<Option<Store>, RecordsError> {
    if !dir.join(DB_FILE).is_file() {
        return Ok(None);
    }
    Ok(Some(Store::open_file(&dir.join(DB_FILE))?))
}

/// Reads the whole history of the store in `dir` (empty when there is no store yet).
pub fn load(dir: &Path) -> Result<History, RecordsError> {
    match open_existing(dir)? {
        Some(store) => Ok(store.history()?),
        None => Ok(History::default()),
    }
}

/// Every friend's statistics and the practice apart ([`Store::stats`]; none when there is no
/// store yet).
pub fn stats(dir: &Path) -> Result<mahjong_store::Stats, RecordsError> {
    match open_existing(dir)? {
        Some(store) => Ok(store.stats()?),
        None => Ok(mahjong_store::Stats::default()),
    }
}

/// Where a hand's export goes unless the player says otherwise.
pub fn default_export_path(dir: &Path, table: &[u8; 32], hand: u32) -> PathBuf {
    dir.join("exports")
        .join(format!("table-{}-hand-{hand}.json", &to_hex(table)[..12]))
}

/// Writes the signed log of `table` through the end of `hand` (the file `mahjong export
/// --hand` writes) to `path`, atomically (a partial file, renamed). Returns its size.
pub fn export_hand(
    dir: &Path,
    table: &[u8; 32],
    hand: u32,
    path: &Path,
) -> Result<u64, RecordsError> {
    let store = open_existing(dir)?.ok_or_else(|| RecordsError::NoStore(dir.to_path_buf()))?;
    let bytes = store.export(table, Some(hand))?.to_bytes();
    let write = |why: std::io::Error| RecordsError::io(path, &why);
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(write)?;
    }
    let tmp = path.with_extension("partial");
    std::fs::write(&tmp, &bytes).map_err(write)?;
    std::fs::rename(&tmp, path).map_err(write)?;
    Ok(bytes.len() as u64)
}

/// Checks a log or evidence file: the same checks as `mahjong verify`.
pub fn verify_path(path: &Path) -> Result<LogCheck, VerifyError> {
    mahjong_store::verify_file(path).map(|Checked::Log(c)| c)
}

/// A hand's verification status.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HandCheck {
    /// The table's stored log was replayed offline (signatures, hash chain, deal proofs and
    /// audit, every move through the rules) and gives this very result.
    Verified,
    /// The replay found a fault at this step of the log (in this hand or before it); the
    /// table crate's words as the detail.
    Fault {
        /// The log step, when the fault has one.
        step: Option<u32>,
        /// What is wrong (English).
        detail: String,
    },
    /// The log replays, but to another result than the one booked in the ledger.
    Differs,
    /// The table's log could not be checked (why).
    Unavailable(Unchecked),
}

/// Why a stored hand could not be checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unchecked {
    /// The table has no seat of the player's, so the store holds no log of it.
    NoSeat,
    /// The hand's steps are not in the stored log.
    NotInLog,
}

/// The file in the data directory that remembers the offline checks of stored tables.
pub const CHECKS_FILE: &str = "verified.json";

/// Checks remembered per table (hex id) and hand.
type Remembered = BTreeMap<String, BTreeMap<u32, HandCheck>>;

fn read_remembered(dir: &Path) -> Remembered {
    // A cache of checks anyone can redo: a missing or unreadable file is an empty one (it is
    // rewritten at the next check).
    std::fs::read(dir.join(CHECKS_FILE))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

/// The offline checks remembered from earlier runs (only verdicts, not "cannot check").
pub fn remembered_checks(dir: &Path) -> BTreeMap<[u8; 32], BTreeMap<u32, HandCheck>> {
    read_remembered(dir)
        .into_iter()
        .filter_map(|(t, hands)| Some((mahjong_store::from_hex32(&t)?, hands)))
        .collect()
}

/// Remembers a table's checks (atomically: a temporary file renamed over the old one).
fn remember(
    dir: &Path,
    table: &[u8; 32],
    checks: &BTreeMap<u32, HandCheck>,
) -> Result<(), RecordsError> {
    let mut all = read_remembered(dir);
    let kept: BTreeMap<u32, HandCheck> = checks
        .iter()
        .filter(|(_, c)| !matches!(c, HandCheck::Unavailable(_)))
        .map(|(h, c)| (*h, c.clone()))
        .collect();
    all.insert(to_hex(table), kept);
    let path = dir.join(CHECKS_FILE);
    let bytes = serde_json::to_vec(&all).map_err(|e| RecordsError::Store(e.to_string()))?;
    let tmp = path.with_extension("partial");
    std::fs::write(&tmp, bytes).map_err(|e| RecordsError::io(&path, &e))?;
    std::fs::rename(&tmp, &path).map_err(|e| RecordsError::io(&path, &e))
}

/// Replays a stored table's log offline (the checks of `mahjong verify`) and says, for every
/// booked hand of it, whether it holds; the verdicts are remembered in [`CHECKS_FILE`].
pub fn verify_table(
    dir: &Path,
    table: &[u8; 32],
) -> Result<BTreeMap<u32, HandCheck>, RecordsError> {
    let store = open_existing(dir)?.ok_or_else(|| RecordsError::NoStore(dir.to_path_buf()))?;
    let info = store
        .table(table)?
        .ok_or_else(|| RecordsError::NoTable(to_hex(table)))?;
    let booked = store.ledger_of(table)?;
    let mut out = BTreeMap::new();
    let Some(seat) = info.owner_seat() else {
        for row in &booked {
            out.insert(row.hand, HandCheck::Unavailable(Unchecked::NoSeat));
        }
        return Ok(out);
    };
    let log = store
        .persisted(table, seat)?
        .map(|p| p.log)
        .unwrap_or_default();
    match verify_log_with_cards(&log, cards()) {
        Ok(report) => {
            for row in &booked {
                let check = match report.hands.iter().find(|h| h.hand == row.hand) {
                    Some(h) if h.result == row.result => HandCheck::Verified,
                    Some(_) => HandCheck::Differs,
                    None => HandCheck::Unavailable(Unchecked::NotInLog),
                };
                out.insert(row.hand, check);
            }
        }
        Err(fault) => {
            let at = fault.seq().map_or(0, |s| s as usize);
            for row in &booked {
                let end = mahjong_store::export::log_through_hand(&log, row.hand)
                    .map(<[_]>::len)
                    .unwrap_or(usize::MAX);
                let check = if end <= at {
                    HandCheck::Verified
                } else {
                    HandCheck::Fault {
                        step: fault.seq(),
                        detail: fault_text(&fault),
                    }
                };
                out.insert(row.hand, check);
            }
        }
    }
    remember(dir, table, &out)?;
    Ok(out)
}

fn fault_text(fault: &LogFault) -> String {
    fault.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use mahjong_bot::Level;

    #[test]
    fn practice_names_carry_the_levels() {
        let names = practice_names("Mei", [Level::Strong, Level::Basic, Level::Random]);
        assert_eq!(names[2], "bot 2 (basic)");
        assert_eq!(practice_level(&names[1]), Some(Level::Strong));
        assert_eq!(practice_level(&names[3]), Some(Level::Random));
        assert_eq!(practice_level("Mei"), None);
        assert_eq!(practice_level("bot 1 (genius)"), None);
    }

    #[test]
    fn an_empty_data_dir_has_an_empty_history() {
        let dir = std::env::temp_dir().join(format!("shanghai-records-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let h = load(&dir).expect("no store is an empty history");
        assert_eq!(h.hand_count(), 0);
        assert!(!dir.join(DB_FILE).exists(), "reading creates nothing");
    }
}
