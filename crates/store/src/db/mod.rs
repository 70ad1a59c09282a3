//! The player's SQLite database: tables and their local seats, every seat's journal, the
//! ledger and evidence records.
//!
//! One file, `<data dir>/mahjong.sqlite3`, mode 0600 (it holds the tables' root secrets and
//! the keys of locally run bots), in WAL mode. Writes are `synchronous=NORMAL` (durable at
//! the next checkpoint, never torn), except a journal batch holding a `Record::Own`, which is
//! committed with `synchronous=FULL` before [`Store::append`] returns: the caller sends the
//! frames of that output only after, so a restarted seat never sends a different entry for a
//! step it already signed (that would be equivocation).
//!
//! **Schema versions** (`meta.schema_version`, and `PRAGMA application_id` = `MJST`):
//! 1. `tables`, `seats`, `journal`, `ledger`;
//! 2. adds `evidence` (proofs of misbehaviour this player's seats produced) and an index of
//!    the journal by seat;
//! 3. adds `tables.roster`: the network shell's signed roster of the table (an opaque blob
//!    to the store: who runs which seat, needed to route frames after a restart);
//! 4. adds `journal.checkpoint`: the step number of a `Record::Checkpoint` record (NULL for
//!    the others, and for every record written before version 4), with an index, so that a
//!    restore reads a seat's journal from its last checkpoint on
//!    ([`Store::persisted_from_checkpoint`]) instead of every hand of a long session;
//! 5. adds `contacts` and `contact_names` (the people sat with, by key);
//! 6. adds `tables.practice`: a practice table's bot levels (JSON, `["strong","basic","strong"]`;
//!    NULL at a friends' table), the typed marker the history and `mahjong ledger` read. The
//!    migration marks the practice tables stored before (four local seats, each with a key of
//!    its own) with the levels their stored names carry (`bot 2 (basic)`); a name that says no
//!    level counts as strong, the practice table's default. Since version 6 a practice table
//!    is saved and resumed through the same journal as a friends' table (`tables.roster`
//!    then holds its set-up).
//! 7. adds `runs`: a finished hand's steps, packed into one *run*
//!    ([`mahjong_table::stored_run`]) and kept once per table whatever the number of local
//!    seats that logged them (a practice table has four), by its sha256; when a seat's
//!    checkpoint is written, the journal rows of the hand it closes become one row naming
//!    its run (see `journal::pack_rows`). The migration packs the finished hands of every
//!    journal stored before in the same way, and logs how many rows it packed; what each
//!    journal reads back is the same records. A program of version 6 or below cannot read
//!    such rows, hence the version.
//!
//! Opening an older database migrates it step by step, each step in one transaction; a newer
//! one is refused ([`StoreError::NewerSchema`]); a file that is not an SQLite database, fails
//! SQLite's `quick_check`, or is another program's database is refused
//! ([`StoreError::CorruptDatabase`]). Nothing is ever deleted or recreated on error.

mod journal;

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use ed25519_dalek::SigningKey;
use mahjong_bot::Level;
use mahjong_table::{Client, Config, Evidence, Persisted, Record};
use rusqlite::{Connection, ErrorCode, OptionalExtension, params};
use serde::{Deserialize, Serialize};

use crate::error::StoreError;
use crate::files;
use crate::hex::to_hex;
use crate::identity::Identity;

/// The database file's name in the data directory.
pub const DB_FILE: &str = "mahjong.sqlite3";

/// The schema version this program writes.
pub const SCHEMA_VERSION: i64 = 7;

/// `PRAGMA application_id` of a mahjong store ("MJST").
const APPLICATION_ID: i64 = 0x4D4A_5354;

/// Version 1 of the schema (kept: migrations start from it).
pub(crate) const SCHEMA_V1: &str = "
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE tables (
    id BLOB PRIMARY KEY,
    names TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    finished INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE seats (
    table_id BLOB NOT NULL REFERENCES tables(id),
    seat INTEGER NOT NULL,
    config BLOB NOT NULL,
    root BLOB NOT NULL,
    bot_key BLOB,
    PRIMARY KEY (table_id, seat)
);
CREATE TABLE journal (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    table_id BLOB NOT NULL,
    seat INTEGER NOT NULL,
    record BLOB NOT NULL
);
CREATE TABLE ledger (
    table_id BLOB NOT NULL,
    hand INTEGER NOT NULL,
    hand_id BLOB NOT NULL,
    ruleset TEXT NOT NULL,
    stake INTEGER NOT NULL,
    p0 INTEGER NOT NULL,
    p1 INTEGER NOT NULL,
    p2 INTEGER NOT NULL,
    p3 INTEGER NOT NULL,
    aborted_by INTEGER,
    result BLOB NOT NULL,
    signatures BLOB NOT NULL,
    booked_ms INTEGER NOT NULL,
    PRIMARY KEY (table_id, hand)
);
INSERT INTO meta (key, value) VALUES ('schema_version', '1');
";

/// Migration from version 1 to 2.
const MIGRATE_V2: &str = "
CREATE TABLE evidence (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    table_id BLOB NOT NULL,
    evidence BLOB NOT NULL,
    found_ms INTEGER NOT NULL
);
CREATE INDEX journal_by_seat ON journal (table_id, seat, id);
UPDATE meta SET value = '2' WHERE key = 'schema_version';
";

/// Migration from version 2 to 3.
const MIGRATE_V3: &str = "
ALTER TABLE tables ADD COLUMN roster BLOB;
UPDATE meta SET value = '3' WHERE key = 'schema_version';
";

/// Migration from version 3 to 4.
const MIGRATE_V4: &str = "
ALTER TABLE journal ADD COLUMN checkpoint INTEGER;
CREATE INDEX journal_checkpoints ON journal (table_id, seat, id) WHERE checkpoint IS NOT NULL;
UPDATE meta SET value = '4' WHERE key = 'schema_version';
";

/// Migration from version 5 to 6 (the practice tables already stored are marked after it:
/// [`Store::mark_stored_practice_tables`]).
const MIGRATE_V6: &str = "
ALTER TABLE tables ADD COLUMN practice TEXT;
UPDATE meta SET value = '6' WHERE key = 'schema_version';
";

/// Migration from version 6 to 7 (the journals' finished hands are packed after it:
/// [`Store::pack_stored_journals`]).
const MIGRATE_V7: &str = "
CREATE TABLE runs (
    table_id BLOB NOT NULL,
    hash BLOB NOT NULL,
    record BLOB NOT NULL,
    PRIMARY KEY (table_id, hash)
);
UPDATE meta SET value = '7' WHERE key = 'schema_version';
";

/// The migrations: `MIGRATIONS[i]` takes version `i + 1` to `i + 2`.
const MIGRATIONS: [&str; 6] = [
    MIGRATE_V2,
    MIGRATE_V3,
    MIGRATE_V4,
    crate::contacts::MIGRATE_V5,
    MIGRATE_V6,
    MIGRATE_V7,
];

/// One seat this player runs at a table: its own seat, or a bot seat it runs. Its `Debug`
/// output leaves the secrets out.
#[derive(Clone, PartialEq, Eq)]
pub struct LocalSeat {
    /// The seat's table configuration (table id, seat, roster, host).
    pub config: Config,
    /// The seat's root secret, from which every per-hand secret derives (needed to resume).
    pub root: [u8; 32],
    /// The bot's signing key, for a bot seat; `None` for the player's own seat, which signs
    /// with the [`Identity`] key.
    pub bot_key: Option<SigningKey>,
}

impl std::fmt::Debug for LocalSeat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalSeat")
            .field("config", &self.config)
            .field("root", &"<secret>")
            .field("bot", &self.bot_key.is_some())
            .finish()
    }
}

impl LocalSeat {
    /// The key this seat signs with.
    pub fn key<'a>(&'a self, identity: &'a Identity) -> &'a SigningKey {
        self.bot_key.as_ref().unwrap_or(&identity.key)
    }
}

/// A table this player sits at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableInfo {
    /// The table id.
    pub id: [u8; 32],
    /// The seats this player runs there (its own, and any bots it runs).
    pub seats: Vec<LocalSeat>,
    /// The display name of each seat.
    pub names: [String; 4],
    /// When the table was created (milliseconds since the Unix epoch).
    pub created: u64,
    /// Whether the table is over for this player.
    pub finished: bool,
    /// A practice table's bot levels, seats 1–3 (`None`: a friends' table).
    pub practice: Option<[Level; 3]>,
}

impl TableInfo {
    /// A practice table (the player and three bots of this program), as it was saved
    /// (schema 6; tables stored before were marked by the migration).
    pub fn is_practice(&self) -> bool {
        self.practice.is_some()
    }
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// The player's database (see the module header).
pub struct Store {
    pub(crate) conn: Connection,
    path: PathBuf,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("path", &self.path).finish()
    }
}

/// Postcard encoding of a stored value.
pub(crate) fn encode<T: Serialize>(value: &T, what: &str) -> Result<Vec<u8>, StoreError> {
    postcard::to_allocvec(value).map_err(|e| StoreError::Decode {
        what: what.to_string(),
        why: format!("cannot encode: {e}"),
    })
}

/// Postcard decoding of a stored value.
pub(crate) fn decode<'a, T: Deserialize<'a>>(bytes: &'a [u8], what: &str) -> Result<T, StoreError> {
    postcard::from_bytes(bytes).map_err(|e| StoreError::Decode {
        what: what.to_string(),
        why: e.to_string(),
    })
}

pub(crate) fn id32(bytes: Vec<u8>, what: &str) -> Result<[u8; 32], StoreError> {
    bytes.try_into().map_err(|_| StoreError::Decode {
        what: what.to_string(),
        why: "not 32 bytes".into(),
    })
}

impl Store {
    /// Opens (creating it and the directory if needed) `<data_dir>/mahjong.sqlite3`.
    pub fn open(data_dir: &Path) -> Result<Store, StoreError> {
        files::create_private_dir(data_dir)?;
        Store::open_file(&data_dir.join(DB_FILE))
    }

    /// Moves a damaged database of `data_dir` aside, as it is, to
    /// `mahjong.sqlite3.damaged-STAMP` (with its `-wal` and `-shm` files, when there are), so
    /// that a fresh one can be made and the damaged file is kept for whoever can mend it.
    /// Returns the new path of the database file. Nothing is deleted: a name already taken is
    /// refused.
    pub fn set_aside_damaged(data_dir: &Path, stamp: &str) -> Result<PathBuf, StoreError> {
        let from = data_dir.join(DB_FILE);
        let to = data_dir.join(format!("{DB_FILE}.damaged-{stamp}"));
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| StoreError::Io { path, source }
        };
        if to.exists() {
            return Err(io(&to)(std::io::Error::from(
                std::io::ErrorKind::AlreadyExists,
            )));
        }
        std::fs::rename(&from, &to).map_err(io(&from))?;
        for side in ["-wal", "-shm"] {
            let f = data_dir.join(format!("{DB_FILE}{side}"));
            if f.exists() {
                let t = data_dir.join(format!("{DB_FILE}.damaged-{stamp}{side}"));
                std::fs::rename(&f, &t).map_err(io(&f))?;
            }
        }
        Ok(to)
    }

    /// Opens (creating it if needed) the database file `path`.
    pub fn open_file(path: &Path) -> Result<Store, StoreError> {
        files::touch_private(path)?;
        if files::readable_by_others(path) {
            files::make_private(path)?;
        }
        let corrupt = |why: String| StoreError::CorruptDatabase {
            path: path.to_path_buf(),
            why,
        };
        let classify = |what: &'static str| {
            move |e: rusqlite::Error| match e.sqlite_error_code() {
                Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt) => {
                    corrupt(e.to_string())
                }
                _ => StoreError::Sqlite { what, source: e },
            }
        };
        let conn = Connection::open(path).map_err(classify("open"))?;
        conn.busy_timeout(std::time::Duration::from_secs(10))
            .map_err(StoreError::sql("set the busy timeout"))?;
        // Switching a new file to WAL takes an exclusive lock, and SQLite answers BUSY at
        // once (without the busy handler) when another connection is opening the same file
        // at that moment; so the switch is retried for as long as the busy timeout.
        let started = std::time::Instant::now();
        let mode: String = loop {
            match conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0)) {
                Err(e)
                    if matches!(
                        e.sqlite_error_code(),
                        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)
                    ) && started.elapsed() < std::time::Duration::from_secs(10) =>
                {
                    std::thread::sleep(std::time::Duration::from_millis(5));
                }
                other => break other.map_err(classify("set WAL mode"))?,
            }
        };
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(corrupt(format!("cannot use WAL (journal mode {mode})")));
        }
        let check: String = conn
            .query_row("PRAGMA quick_check", [], |r| r.get(0))
            .map_err(classify("check the database"))?;
        if check != "ok" {
            return Err(corrupt(format!("integrity check: {check}")));
        }
        conn.execute_batch("PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;")
            .map_err(StoreError::sql("set pragmas"))?;
        let store = Store {
            conn,
            path: path.to_path_buf(),
        };
        store.migrate()?;
        Ok(store)
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The schema version of the open database (after migration: [`SCHEMA_VERSION`]).
    pub fn schema_version(&self) -> Result<i64, StoreError> {
        let v: Option<String> = self
            .conn
            .query_row(
                "SELECT value FROM meta WHERE key = 'schema_version'",
                [],
                |r| r.get(0),
            )
            .optional()
            .map_err(StoreError::sql("read the schema version"))?;
        v.and_then(|v| v.parse().ok())
            .ok_or_else(|| StoreError::CorruptDatabase {
                path: self.path.clone(),
                why: "no schema version in the meta table".into(),
            })
    }

    /// Creates or upgrades the schema. Everything happens in one `BEGIN IMMEDIATE`
    /// transaction, so two connections opening a new database at once (two windows of one
    /// app, or two processes) cannot both see it empty and both create the schema: the second
    /// waits (busy timeout) and then finds it made.
    fn migrate(&self) -> Result<(), StoreError> {
        let corrupt = |why: &str| StoreError::CorruptDatabase {
            path: self.path.clone(),
            why: why.into(),
        };
        let tx = rusqlite::Transaction::new_unchecked(
            &self.conn,
            rusqlite::TransactionBehavior::Immediate,
        )
        .map_err(StoreError::sql("begin the schema check"))?;
        let app: i64 = tx
            .query_row("PRAGMA application_id", [], |r| r.get(0))
            .map_err(StoreError::sql("read the application id"))?;
        let objects: i64 = tx
            .query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))
            .map_err(StoreError::sql("list the schema"))?;
        if objects == 0 {
            // A new database: version 1, then the migrations, as an old one would take.
            tx.execute_batch(SCHEMA_V1)
                .map_err(StoreError::sql("create the schema"))?;
            tx.pragma_update(None, "application_id", APPLICATION_ID)
                .map_err(StoreError::sql("set the application id"))?;
        } else if app != APPLICATION_ID {
            return Err(corrupt("it is another program's SQLite database"));
        }
        let mut version = self.schema_version()?;
        if version > SCHEMA_VERSION {
            return Err(StoreError::NewerSchema {
                path: self.path.clone(),
                found: version,
                supported: SCHEMA_VERSION,
            });
        }
        if version < 1 {
            return Err(corrupt("schema version below 1"));
        }
        let from = version;
        while version < SCHEMA_VERSION {
            let step = MIGRATIONS[(version - 1) as usize];
            tx.execute_batch(step)
                .map_err(StoreError::sql("migrate the schema"))?;
            tracing::info!(from = version, to = version + 1, "migrated the store");
            version += 1;
        }
        tx.commit().map_err(StoreError::sql("commit the schema"))?;
        if from < 7 && objects > 0 {
            let (rows, journals) = self.pack_stored_journals()?;
            tracing::info!(
                rows,
                journals,
                "schema 7: packed the steps of the finished hands stored before"
            );
        }
        if from < 6 && objects > 0 {
            let marked = self.mark_stored_practice_tables()?;
            tracing::info!(marked, "schema 6: marked the practice tables stored before");
        }
        if from < 5 && objects > 0 {
            let (players, tables) = self.note_stored_tables()?;
            tracing::info!(
                players,
                tables,
                "schema 5: noted the players of the tables already stored as contacts"
            );
        }
        Ok(())
    }

    // ---- identity ----

    /// Binds the database to the player's identity: the first call records its public key
    /// and name in the meta table; later calls update the name, and refuse another key
    /// ([`StoreError::OtherIdentity`]: the key file or the database was swapped, and the
    /// stored tables could not be resumed with this key).
    pub fn claim_identity(&self, identity: &Identity) -> Result<(), StoreError> {
        let given = to_hex(identity.public().as_bytes());
        let stored: Option<String> = self
            .conn
            .query_row("SELECT value FROM meta WHERE key = 'public_key'", [], |r| {
                r.get(0)
            })
            .optional()
            .map_err(StoreError::sql("read the identity"))?;
        if let Some(stored) = stored
            && stored != given
        {
            return Err(StoreError::OtherIdentity {
                path: self.path.clone(),
                stored,
                given,
            });
        }
        self.conn
            .execute(
                "INSERT INTO meta (key, value) VALUES ('public_key', ?1), ('name', ?2)
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                params![given, identity.name],
            )
            .map_err(StoreError::sql("record the identity"))?;
        Ok(())
    }

    /// The public key (hex) and name the database was claimed by, if any.
    pub fn claimed_identity(&self) -> Result<Option<(String, String)>, StoreError> {
        let get = |key: &str| -> Result<Option<String>, StoreError> {
            self.conn
                .query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
                .optional()
                .map_err(StoreError::sql("read the identity"))
        };
        Ok(match (get("public_key")?, get("name")?) {
            (Some(k), Some(n)) => Some((k, n)),
            _ => None,
        })
    }

    // ---- tables ----

    /// Saves a table: its row, and every listed seat (added, or replaced). Seats not listed
    /// and journals are kept. A table already stored is never rewritten: saving it again
    /// with other names or another finished flag is refused ([`StoreError::TableExists`]),
    /// and a finished table takes no seat. Names are kept and read cleaned
    /// ([`crate::clean_name`]).
    pub fn save_table(&self, info: &TableInfo) -> Result<(), StoreError> {
        let names = info.names.clone().map(|n| crate::names::clean_name(&n));
        let names = serde_json::to_string(&names).map_err(|e| StoreError::Decode {
            what: "table names".into(),
            why: e.to_string(),
        })?;
        let tx = self
            .conn
            .unchecked_transaction()
            .map_err(StoreError::sql("begin"))?;
        let existing = tx
            .query_row(
                "SELECT names, finished FROM tables WHERE id = ?1",
                params![&info.id[..]],
                |r| Ok((r.get::<_, String>(0)?, r.get::<_, bool>(1)?)),
            )
            .optional()
            .map_err(StoreError::sql("read a table"))?;
        let exists = |what: &str| StoreError::TableExists {
            table: to_hex(&info.id),
            what: what.into(),
        };
        match existing {
            None => {
                tx.execute(
                    "INSERT INTO tables (id, names, created_ms, finished, practice) \
                     VALUES (?1, ?2, ?3, ?4, ?5)",
                    params![
                        &info.id[..],
                        names,
                        info.created as i64,
                        info.finished,
                        info.practice.map(levels_text)
                    ],
                )
                .map_err(StoreError::sql("save a table"))?;
            }
            Some((stored, _)) if stored != names => return Err(exists("other names")),
            Some((_, true)) => return Err(exists("the table finished")),
            Some((_, false)) if info.finished => {
                return Err(exists(
                    "the table unfinished (finish it with mark_finished)",
                ));
            }
            Some(_) => {}
        }
        for seat in &info.seats {
            insert_seat(&tx, &info.id, seat)?;
        }
        tx.commit().map_err(StoreError::sql("commit a table"))
    }

    /// Adds (or replaces) one local seat of a saved table, e.g. a bot this player took over.
    /// A finished table takes no seat.
    pub fn add_seat(&self, table: &[u8; 32], seat: &LocalSeat) -> Result<(), StoreError> {
        match self.finished(table)? {
            None => return Err(StoreError::UnknownTable(to_hex(table))),
            Some(true) => {
                return Err(StoreError::TableExists {
                    table: to_hex(table),
                    what: "the table finished".into(),
                });
            }
            Some(false) => {}
        }
        insert_seat(&self.conn, table, seat)
    }

    /// Whether a saved table is finished (`None`: no such table).
    fn finished(&self, table: &[u8; 32]) -> Result<Option<bool>, StoreError> {
        self.conn
            .query_row(
                "SELECT finished FROM tables WHERE id = ?1",
                params![&table[..]],
                |r| r.get::<_, bool>(0),
            )
            .optional()
            .map_err(StoreError::sql("read a table"))
    }

    /// Keeps the network shell's signed roster of a saved table (opaque bytes to the store).
    /// Written once: the same bytes again are a no-op, another roster is refused
    /// ([`StoreError::TableExists`]).
    pub fn save_roster(&self, table: &[u8; 32], roster: &[u8]) -> Result<(), StoreError> {
        if self.finished(table)?.is_none() {
            return Err(StoreError::UnknownTable(to_hex(table)));
        }
        match self.roster(table)? {
            Some(old) if old == roster => return Ok(()),
            Some(_) => {
                return Err(StoreError::TableExists {
                    table: to_hex(table),
                    what: "another roster".into(),
                });
            }
            None => {}
        }
        self.conn
            .execute(
                "UPDATE tables SET roster = ?2 WHERE id = ?1",
                params![&table[..], roster],
            )
            .map_err(StoreError::sql("save a roster"))?;
        Ok(())
    }

    /// The roster kept with [`Store::save_roster`], if any.
    pub fn roster(&self, table: &[u8; 32]) -> Result<Option<Vec<u8>>, StoreError> {
        self.conn
            .query_row(
                "SELECT roster FROM tables WHERE id = ?1",
                params![&table[..]],
                |r| r.get::<_, Option<Vec<u8>>>(0),
            )
            .optional()
            .map(Option::flatten)
            .map_err(StoreError::sql("read a roster"))
    }

    /// A saved table.
    pub fn table(&self, id: &[u8; 32]) -> Result<Option<TableInfo>, StoreError> {
        let row = self
            .conn
            .query_row(
                "SELECT names, created_ms, finished, practice FROM tables WHERE id = ?1",
                params![&id[..]],
                |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, i64>(1)?,
                        r.get::<_, bool>(2)?,
                        r.get::<_, Option<String>>(3)?,
                    ))
                },
            )
            .optional()
            .map_err(StoreError::sql("read a table"))?;
        let Some((names, created, finished, practice)) = row else {
            return Ok(None);
        };
        let practice = practice
            .map(|text| {
                levels_from_text(&text).ok_or_else(|| StoreError::Decode {
                    what: format!("practice levels of table {}", to_hex(id)),
                    why: format!("{text:?} is not three levels"),
                })
            })
            .transpose()?;
        let names: [String; 4] = serde_json::from_str(&names).map_err(|e| StoreError::Decode {
            what: format!("names of table {}", to_hex(id)),
            why: e.to_string(),
        })?;
        let mut stmt = self
            .conn
            .prepare("SELECT config, root, bot_key FROM seats WHERE table_id = ?1 ORDER BY seat")
            .map_err(StoreError::sql("read seats"))?;
        let rows = stmt
            .query_map(params![&id[..]], |r| {
                Ok((
                    r.get::<_, Vec<u8>>(0)?,
                    r.get::<_, Vec<u8>>(1)?,
                    r.get::<_, Option<Vec<u8>>>(2)?,
                ))
            })
            .map_err(StoreError::sql("read seats"))?;
        let mut seats = Vec::new();
        for row in rows {
            let (config, root, bot_key) = row.map_err(StoreError::sql("read a seat"))?;
            let what = format!("seat of table {}", to_hex(id));
            let config: Config = decode(&config, &what)?;
            let root = id32(root, &what)?;
            let bot_key = bot_key
                .map(|k| id32(k, &what).map(|b| SigningKey::from_bytes(&b)))
                .transpose()?;
            seats.push(LocalSeat {
                config,
                root,
                bot_key,
            });
        }
        Ok(Some(TableInfo {
            id: *id,
            seats,
            // Names came from other peers: shown only cleaned (`mahjong ledger`, exports,
            // the app's history).
            names: names.map(|n| crate::names::clean_name(&n)),
            created: created as u64,
            finished,
            practice,
        }))
    }

    /// Every saved table, oldest first.
    pub fn tables(&self) -> Result<Vec<TableInfo>, StoreError> {
        self.tables_where("1")
    }

    /// The tables not marked finished, oldest first (those a restarted peer resumes).
    pub fn unfinished_tables(&self) -> Result<Vec<TableInfo>, StoreError> {
        self.tables_where("finished = 0")
    }

    fn tables_where(&self, filter: &str) -> Result<Vec<TableInfo>, StoreError> {
        let sql = format!("SELECT id FROM tables WHERE {filter} ORDER BY created_ms, id");
        let mut stmt = self
            .conn
            .prepare(&sql)
            .map_err(StoreError::sql("list tables"))?;
        let ids: Vec<Vec<u8>> = stmt
            .query_map([], |r| r.get(0))
            .and_then(|rows| rows.collect())
            .map_err(StoreError::sql("list tables"))?;
        let mut out = Vec::new();
        for id in ids {
            let id = id32(id, "table id")?;
            if let Some(t) = self.table(&id)? {
                out.push(t);
            }
        }
        Ok(out)
    }

    /// Marks a table finished (it is no longer resumed).
    ///
    /// Each local seat's journal after its last checkpoint (the last hand, whose checkpoint a
    /// seat that stopped with the session may never have written) is packed then, as a
    /// checkpoint packs a hand, and its own envelopes not yet pruned go: a finished table is
    /// never resumed, and its steps are all in the journal.
    pub fn mark_finished(&self, id: &[u8; 32]) -> Result<(), StoreError> {
        let tx = self
            .conn
            .unchecked_transaction()
            .map_err(StoreError::sql("begin"))?;
        let n = tx
            .execute(
                "UPDATE tables SET finished = 1 WHERE id = ?1",
                params![&id[..]],
            )
            .map_err(StoreError::sql("mark a table finished"))?;
        if n == 0 {
            return Err(StoreError::UnknownTable(to_hex(id)));
        }
        journal::pack_finished(&tx, id)?;
        tx.commit()
            .map_err(StoreError::sql("mark a table finished"))
    }

    // ---- evidence ----

    /// Keeps a proof of misbehaviour a local seat produced ([`mahjong_table::TableEvent::Evidence`]).
    pub fn save_evidence(&self, table: &[u8; 32], evidence: &Evidence) -> Result<(), StoreError> {
        let bytes = encode(evidence, "evidence")?;
        self.conn
            .execute(
                "INSERT INTO evidence (table_id, evidence, found_ms) VALUES (?1, ?2, ?3)",
                params![&table[..], bytes, now_ms() as i64],
            )
            .map_err(StoreError::sql("save evidence"))?;
        Ok(())
    }

    /// The evidence records kept for a table, oldest first.
    pub fn evidence(&self, table: &[u8; 32]) -> Result<Vec<Evidence>, StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT id, evidence FROM evidence WHERE table_id = ?1 ORDER BY id")
            .map_err(StoreError::sql("read evidence"))?;
        let rows: Vec<(i64, Vec<u8>)> = stmt
            .query_map(params![&table[..]], |r| Ok((r.get(0)?, r.get(1)?)))
            .and_then(|rows| rows.collect())
            .map_err(StoreError::sql("read evidence"))?;
        rows.into_iter()
            .map(|(id, bytes)| decode(&bytes, &format!("evidence record {id}")))
            .collect()
    }
}

/// A practice table's levels as `tables.practice` keeps them.
fn levels_text(levels: [Level; 3]) -> String {
    serde_json::to_string(&levels.map(Level::name)).unwrap_or_default()
}

fn levels_from_text(text: &str) -> Option<[Level; 3]> {
    let names: [String; 3] = serde_json::from_str(text).ok()?;
    Some([
        Level::from_name(&names[0])?,
        Level::from_name(&names[1])?,
        Level::from_name(&names[2])?,
    ])
}

impl Store {
    /// Schema 6: marks the practice tables stored before it (four local seats, each signing
    /// with a key of its own) with the levels their names carry. Returns how many.
    fn mark_stored_practice_tables(&self) -> Result<usize, StoreError> {
        let mut marked = 0;
        for info in self.tables()? {
            let practice = info.seats.len() == 4 && info.seats.iter().all(|s| s.bot_key.is_some());
            if !practice || info.practice.is_some() {
                continue;
            }
            let level =
                |s: usize| crate::history::practice_level(&info.names[s]).unwrap_or(Level::Strong);
            self.conn
                .execute(
                    "UPDATE tables SET practice = ?2 WHERE id = ?1",
                    params![&info.id[..], levels_text([level(1), level(2), level(3)])],
                )
                .map_err(StoreError::sql("mark a practice table"))?;
            marked += 1;
        }
        Ok(marked)
    }
}

fn insert_seat(conn: &Connection, table: &[u8; 32], seat: &LocalSeat) -> Result<(), StoreError> {
    let config = encode(&seat.config, "seat config")?;
    let bot_key = seat.bot_key.as_ref().map(|k| k.to_bytes().to_vec());
    conn.execute(
        "INSERT INTO seats (table_id, seat, config, root, bot_key) VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT (table_id, seat) DO UPDATE SET config = ?3, root = ?4, bot_key = ?5",
        params![
            &table[..],
            seat.config.seat,
            config,
            &seat.root[..],
            bot_key
        ],
    )
    .map_err(StoreError::sql("save a seat"))?;
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// A journal whose older rows hold steps as postcard `Record`s and whose newer rows hold
    /// them in the stored form reads back the same envelopes from both, and the stored form
    /// is smaller.
    #[test]
    fn steps_read_back_from_both_encodings() {
        use mahjong_table::{Body, Envelope, StepRecord};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(DB_FILE);
        let key = SigningKey::from_bytes(&[3; 32]);
        let table = [9u8; 32];
        let config = Config {
            table,
            seat: 1,
            roster: [key.verifying_key(); 4],
            host: 0,
        };
        let step = |seq: u32| StepRecord {
            entries: (0..4u8)
                .map(|seat| {
                    let header = mahjong_table::codec::Header {
                        hand: 1,
                        seq,
                        prev_hash: [seq as u8; 32],
                    };
                    Envelope::sign(
                        table,
                        header,
                        seat,
                        Body::ClaimCommit {
                            commitment: [seat; 32],
                        },
                        &key,
                    )
                })
                .collect(),
        };
        {
            let conn = Connection::open(&path).unwrap();
            conn.execute_batch(SCHEMA_V1).unwrap();
            conn.pragma_update(None, "application_id", APPLICATION_ID)
                .unwrap();
            conn.execute(
                "INSERT INTO tables (id, names, created_ms) VALUES (?1, ?2, 5)",
                params![&table[..], r#"["a","b","c","d"]"#],
            )
            .unwrap();
            conn.execute(
                "INSERT INTO seats (table_id, seat, config, root) VALUES (?1, 1, ?2, ?3)",
                params![
                    &table[..],
                    postcard::to_allocvec(&config).unwrap(),
                    &[4u8; 32][..]
                ],
            )
            .unwrap();
            conn.execute(
                "INSERT INTO journal (table_id, seat, record) VALUES (?1, 1, ?2)",
                params![
                    &table[..],
                    postcard::to_allocvec(&Record::Step(step(0))).unwrap()
                ],
            )
            .unwrap();
        }
        let store = Store::open_file(&path).unwrap();
        let old = store.journal_bytes(&table, 1).unwrap();
        store.append(&table, 1, &[Record::Step(step(1))]).unwrap();
        let new = store.journal_bytes(&table, 1).unwrap() - old;
        assert!(new + 4 * 50 < old, "stored {new} bytes against {old}");
        assert_eq!(
            store.steps(&table, 1, 0, 2).unwrap(),
            vec![step(0), step(1)]
        );
        let persisted = store.persisted(&table, 1).unwrap().unwrap();
        assert_eq!(persisted.log, vec![step(0), step(1)]);
    }

    /// A database overwritten with garbage is refused as corrupt, is moved aside byte for byte
    /// (never deleted, never over another set-aside file), and a fresh store opens after it.
    #[test]
    fn a_damaged_database_is_set_aside_as_it_is_and_a_fresh_one_opens() {
        let dir = tempfile::tempdir().unwrap();
        let garbage = b"not a database at all, just a file overwritten by mistake".repeat(200);
        std::fs::write(dir.path().join(DB_FILE), &garbage).unwrap();
        assert!(matches!(
            Store::open(dir.path()),
            Err(StoreError::CorruptDatabase { .. })
        ));
        let aside = Store::set_aside_damaged(dir.path(), "2026-12-02-1715").unwrap();
        assert_eq!(
            aside.file_name().unwrap(),
            "mahjong.sqlite3.damaged-2026-12-02-1715"
        );
        assert_eq!(std::fs::read(&aside).unwrap(), garbage);
        let store = Store::open(dir.path()).unwrap();
        assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
        drop(store);
        // The same stamp again: refused, the first set-aside file untouched.
        std::fs::write(dir.path().join(DB_FILE), b"garbage again").unwrap();
        assert!(Store::set_aside_damaged(dir.path(), "2026-12-02-1715").is_err());
        assert_eq!(std::fs::read(&aside).unwrap(), garbage);
    }

    /// Version 6: a practice table stored before it (four local seats, each with a key of its
    /// own, the names of `practice_names`) is marked with the levels its names carry, a
    /// friends' table is not, and a name that says no level counts as strong.
    #[test]
    fn the_migration_to_6_marks_the_practice_tables_stored_before() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(DB_FILE);
        let config = |table: u8, seat: u8| Config {
            table: [table; 32],
            seat,
            roster: [SigningKey::from_bytes(&[3; 32]).verifying_key(); 4],
            host: 0,
        };
        {
            let conn = Connection::open(&path).unwrap();
            conn.execute_batch(SCHEMA_V1).unwrap();
            conn.pragma_update(None, "application_id", APPLICATION_ID)
                .unwrap();
            for (table, names, keys) in [
                (
                    1u8,
                    r#"["Mei","bot 1 (strong)","bot 2 (basic)","bot 3 (beginner)"]"#,
                    4,
                ),
                (
                    2,
                    r#"["Mei","bot 1 (genius)","bot 2 (basic)","bot 3 (strong)"]"#,
                    4,
                ),
                (3, r#"["Mei","Bo","Cy","bot 1 (basic)"]"#, 1),
            ] {
                conn.execute(
                    "INSERT INTO tables (id, names, created_ms, finished) VALUES (?1, ?2, ?3, 1)",
                    params![&[table; 32][..], names, table as i64],
                )
                .unwrap();
                for seat in 0..4u8 {
                    let key = (seat >= 4 - keys).then(|| vec![seat + 10; 32]);
                    conn.execute(
                        "INSERT INTO seats (table_id, seat, config, root, bot_key) \
                         VALUES (?1, ?2, ?3, ?4, ?5)",
                        params![
                            &[table; 32][..],
                            seat,
                            postcard::to_allocvec(&config(table, seat)).unwrap(),
                            &[4u8; 32][..],
                            key
                        ],
                    )
                    .unwrap();
                }
            }
        }
        let store = Store::open_file(&path).unwrap();
        assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
        let practice = |t: u8| store.table(&[t; 32]).unwrap().unwrap().practice;
        assert_eq!(
            practice(1),
            Some([Level::Strong, Level::Basic, Level::Beginner])
        );
        assert_eq!(
            practice(2),
            Some([Level::Strong, Level::Basic, Level::Strong])
        );
        assert_eq!(practice(3), None, "a friends' table with a bot seat");
        assert!(store.table(&[1; 32]).unwrap().unwrap().is_practice());
    }

    /// A version-1 database with a table and a journal record is migrated on open, and
    /// keeps its data.
    #[test]
    fn a_version_1_database_is_migrated_and_keeps_its_data() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(DB_FILE);
        let key = SigningKey::from_bytes(&[3; 32]);
        let config = Config {
            table: [9; 32],
            seat: 1,
            roster: [key.verifying_key(); 4],
            host: 0,
        };
        {
            let conn = Connection::open(&path).unwrap();
            conn.execute_batch(SCHEMA_V1).unwrap();
            conn.pragma_update(None, "application_id", APPLICATION_ID)
                .unwrap();
            conn.execute(
                "INSERT INTO tables (id, names, created_ms) VALUES (?1, ?2, 5)",
                params![&[9u8; 32][..], r#"["a","b","c","d"]"#],
            )
            .unwrap();
            conn.execute(
                "INSERT INTO seats (table_id, seat, config, root) VALUES (?1, 1, ?2, ?3)",
                params![
                    &[9u8; 32][..],
                    postcard::to_allocvec(&config).unwrap(),
                    &[4u8; 32][..]
                ],
            )
            .unwrap();
            let record = Record::Truncate(0);
            conn.execute(
                "INSERT INTO journal (table_id, seat, record) VALUES (?1, 1, ?2)",
                params![&[9u8; 32][..], postcard::to_allocvec(&record).unwrap()],
            )
            .unwrap();
        }
        let store = Store::open_file(&path).unwrap();
        assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
        let table = store.table(&[9; 32]).unwrap().unwrap();
        assert_eq!(table.names[2], "c");
        assert_eq!(table.seats[0].config, config);
        assert_eq!(table.seats[0].root, [4; 32]);
        assert_eq!(store.journal_len(&[9; 32], 1).unwrap(), 1);
        let persisted = store.persisted(&[9; 32], 1).unwrap().unwrap();
        assert_eq!(persisted.config, config);
        // A journal written before version 4 has no checkpoint marked: it is read whole.
        let from_cp = store
            .persisted_from_checkpoint(&[9; 32], 1)
            .unwrap()
            .unwrap();
        assert_eq!(from_cp, persisted);
        // Version 5: the players of the table already stored are noted as contacts.
        let contacts = store.contacts().unwrap();
        assert_eq!(contacts.len(), 1);
        assert_eq!(contacts[0].key, key.verifying_key());
        assert_eq!(contacts[0].tables, 1);
        assert_eq!(contacts[0].first_ms, 5);
        // The version-2 table and the version-3 column exist.
        assert!(store.evidence(&[9; 32]).unwrap().is_empty());
        assert_eq!(store.roster(&[9; 32]).unwrap(), None);
        store.save_roster(&[9; 32], b"signed roster").unwrap();
        assert_eq!(
            store.roster(&[9; 32]).unwrap().as_deref(),
            Some(&b"signed roster"[..])
        );
        assert!(matches!(
            store.save_roster(&[8; 32], b"x"),
            Err(StoreError::UnknownTable(_))
        ));
        drop(store);
        // Opening again migrates nothing more.
        assert_eq!(
            Store::open_file(&path).unwrap().schema_version().unwrap(),
            SCHEMA_VERSION
        );
    }

    #[test]
    fn eight_connections_opening_a_new_database_at_once_all_succeed() {
        // Each round a fresh file; eight threads open it together (the race that made the
        // second of two processes fail with "create the schema: table meta already exists").
        for round in 0..5 {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join(format!("race{round}.sqlite3"));
            let start = std::sync::Arc::new(std::sync::Barrier::new(8));
            let handles: Vec<_> = (0..8)
                .map(|_| {
                    let (path, start) = (path.clone(), start.clone());
                    std::thread::spawn(move || {
                        start.wait();
                        Store::open_file(&path).map(|s| s.schema_version())
                    })
                })
                .collect();
            for h in handles {
                match h.join().unwrap() {
                    Ok(Ok(v)) => assert_eq!(v, SCHEMA_VERSION),
                    other => panic!("round {round}: {other:?}"),
                }
            }
        }
    }
}
