//! The players this data directory has sat with, by key: what makes a friend recognisable
//! when anyone can type any name.
//!
//! Each [`Contact`] is one key (a player's identity key): the names it used, most recent
//! first, a nickname this player gave it (kept here only), when it was first and last seen,
//! and how many tables were played together. Players are noted when a table begins
//! ([`Store::note_players`]); bots (whose keys are new at every table) are not noted.
//!
//! [`Store::recognise`] says what the lobby, the set-up and the table show beside a player:
//! - [`Recognition::Known`]: a key seen before (with its nickname or last name);
//! - [`Recognition::New`]: a key never seen;
//! - [`Recognition::NameClash`]: the name was used by (or is the nickname of) *another* known
//!   key — "not the Di you know" — whether or not this key is known itself.
//!
//! Schema version 5 holds them (three tables: `contacts`, `contact_names`,
//! `contact_tables`); the migration from 4 notes the players of the tables already stored.

use ed25519_dalek::VerifyingKey;
use rusqlite::{OptionalExtension, params};

use crate::db::{Store, id32};
use crate::error::StoreError;
use crate::fingerprint::Fingerprint;
use crate::hex::to_hex;
use crate::names::{NO_NAME, clean_name};

/// Longest nickname kept (characters).
pub const MAX_NICKNAME_CHARS: usize = 32;

/// Most names kept per contact (the most recent).
pub const MAX_NAMES_PER_CONTACT: usize = 16;

/// A player this data directory has sat with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Contact {
    /// The player's identity key.
    pub key: VerifyingKey,
    /// The names it used, most recent first (cleaned).
    pub names: Vec<String>,
    /// The name this player gave it, if any.
    pub nickname: Option<String>,
    /// When it was first seen at a table (milliseconds since the Unix epoch).
    pub first_ms: u64,
    /// When it was last seen at a table.
    pub last_ms: u64,
    /// Tables played together.
    pub tables: u32,
}

impl Contact {
    /// The name to show: the nickname, else the name it used last.
    pub fn shown_name(&self) -> &str {
        self.nickname
            .as_deref()
            .or(self.names.first().map(String::as_str))
            .unwrap_or("")
    }

    /// Its fingerprint.
    pub fn fingerprint(&self) -> Fingerprint {
        Fingerprint::of(&self.key)
    }
}

/// What a player at a table is to this player.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Recognition {
    /// This player's own key.
    Me,
    /// A key sat with before.
    Known(Contact),
    /// A key never seen.
    New,
    /// The name is another known key's: not the friend of that name.
    NameClash {
        /// The friend the name belongs to.
        known: Contact,
        /// Whether this key was seen before (under another name).
        seen: bool,
    },
}

impl Recognition {
    /// Whether the player is trusted to be who the lobby says: this player or a known key
    /// that takes no other friend's name.
    pub fn is_known(&self) -> bool {
        matches!(self, Recognition::Me | Recognition::Known(_))
    }
}

/// Schema version 5: the contacts.
pub(crate) const MIGRATE_V5: &str = "
CREATE TABLE contacts (
    key BLOB PRIMARY KEY,
    nickname TEXT,
    first_ms INTEGER NOT NULL,
    last_ms INTEGER NOT NULL
);
CREATE TABLE contact_names (
    key BLOB NOT NULL REFERENCES contacts(key),
    name TEXT NOT NULL,
    last_ms INTEGER NOT NULL,
    PRIMARY KEY (key, name)
);
CREATE INDEX contact_names_by_name ON contact_names (name);
CREATE TABLE contact_tables (
    key BLOB NOT NULL REFERENCES contacts(key),
    table_id BLOB NOT NULL,
    PRIMARY KEY (key, table_id)
);
UPDATE meta SET value = '5' WHERE key = 'schema_version';
";

/// Two names are one when they read the same (cleaned, case and surrounding blanks aside).
fn same_name(a: &str, b: &str) -> bool {
    let norm = |s: &str| clean_name(s).trim().to_lowercase();
    norm(a) == norm(b)
}

/// Whether a seat's name is a bot's ("bot of NAME", the lobby's).
pub fn is_bot_name(name: &str) -> bool {
    name.starts_with("bot of ")
}

impl Store {
    /// The player's own key, once the database is claimed ([`Store::claim_identity`]).
    fn own_key(&self) -> Result<Option<[u8; 32]>, StoreError> {
        Ok(self
            .claimed_identity()?
            .and_then(|(hex, _)| crate::hex::from_hex32(&hex)))
    }

    /// Notes the human players of a table as it begins: each key's name, when, and the table.
    /// The player's own key and bots are skipped; a table noted twice counts once.
    pub fn note_players(
        &self,
        table: &[u8; 32],
        players: &[(VerifyingKey, String)],
        now_ms: u64,
    ) -> Result<(), StoreError> {
        let own = self.own_key()?;
        let tx = self
            .conn
            .unchecked_transaction()
            .map_err(StoreError::sql("begin"))?;
        for (key, name) in players {
            if Some(*key.as_bytes()) == own || is_bot_name(name) {
                continue;
            }
            let k = &key.as_bytes()[..];
            let now = now_ms as i64;
            tx.execute(
                "INSERT INTO contacts (key, first_ms, last_ms) VALUES (?1, ?2, ?2)
                 ON CONFLICT (key) DO UPDATE SET last_ms = max(last_ms, excluded.last_ms)",
                params![k, now],
            )
            .map_err(StoreError::sql("note a player"))?;
            let name = clean_name(name);
            if name != NO_NAME {
                tx.execute(
                    "INSERT INTO contact_names (key, name, last_ms) VALUES (?1, ?2, ?3)
                     ON CONFLICT (key, name) DO UPDATE SET last_ms = max(last_ms, excluded.last_ms)",
                    params![k, name, now],
                )
                .map_err(StoreError::sql("note a player's name"))?;
                // Bounded: only the most recent names of a key are kept.
                tx.execute(
                    "DELETE FROM contact_names WHERE key = ?1 AND name NOT IN
                     (SELECT name FROM contact_names WHERE key = ?1
                      ORDER BY last_ms DESC, name LIMIT ?2)",
                    params![k, MAX_NAMES_PER_CONTACT as i64],
                )
                .map_err(StoreError::sql("note a player's name"))?;
            }
            tx.execute(
                "INSERT OR IGNORE INTO contact_tables (key, table_id) VALUES (?1, ?2)",
                params![k, &table[..]],
            )
            .map_err(StoreError::sql("note a table together"))?;
        }
        tx.commit().map_err(StoreError::sql("commit"))
    }

    /// The contact of `key`, if this player sat with it.
    pub fn contact(&self, key: &VerifyingKey) -> Result<Option<Contact>, StoreError> {
        let row = self
            .conn
            .query_row(
                "SELECT nickname, first_ms, last_ms,
                        (SELECT count(*) FROM contact_tables t WHERE t.key = c.key)
                 FROM contacts c WHERE key = ?1",
                params![&key.as_bytes()[..]],
                |r| {
                    Ok((
                        r.get::<_, Option<String>>(0)?,
                        r.get::<_, i64>(1)?,
                        r.get::<_, i64>(2)?,
                        r.get::<_, i64>(3)?,
                    ))
                },
            )
            .optional()
            .map_err(StoreError::sql("read a contact"))?;
        let Some((nickname, first, last, tables)) = row else {
            return Ok(None);
        };
        let mut stmt = self
            .conn
            .prepare("SELECT name FROM contact_names WHERE key = ?1 ORDER BY last_ms DESC, name")
            .map_err(StoreError::sql("read a contact's names"))?;
        let names = stmt
            .query_map(params![&key.as_bytes()[..]], |r| r.get::<_, String>(0))
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .map_err(StoreError::sql("read a contact's names"))?;
        Ok(Some(Contact {
            key: *key,
            names: names.iter().map(|n| clean_name(n)).collect(),
            nickname: nickname.map(|n| clean_name(&n)),
            first_ms: first as u64,
            last_ms: last as u64,
            tables: tables as u32,
        }))
    }

    /// Every contact, the most recently seen first.
    pub fn contacts(&self) -> Result<Vec<Contact>, StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT key FROM contacts ORDER BY last_ms DESC, key")
            .map_err(StoreError::sql("list contacts"))?;
        let keys = stmt
            .query_map([], |r| r.get::<_, Vec<u8>>(0))
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .map_err(StoreError::sql("list contacts"))?;
        let mut out = Vec::with_capacity(keys.len());
        for key in keys {
            let what = "contact key";
            let bytes = id32(key, what)?;
            let key = VerifyingKey::from_bytes(&bytes).map_err(|e| StoreError::Decode {
                what: format!("{what} {}", to_hex(&bytes)),
                why: e.to_string(),
            })?;
            if let Some(c) = self.contact(&key)? {
                out.push(c);
            }
        }
        Ok(out)
    }

    /// The contacts whose fingerprint is `fp` (almost surely one or none).
    pub fn contacts_with(&self, fp: Fingerprint) -> Result<Vec<Contact>, StoreError> {
        Ok(self
            .contacts()?
            .into_iter()
            .filter(|c| c.fingerprint() == fp)
            .collect())
    }

    /// Gives a contact a nickname of this player's own (`None` or an empty one removes it).
    /// Returns whether the key is a contact.
    pub fn set_nickname(
        &self,
        key: &VerifyingKey,
        nickname: Option<&str>,
    ) -> Result<bool, StoreError> {
        let nickname = nickname
            .map(|n| {
                clean_name(n)
                    .chars()
                    .take(MAX_NICKNAME_CHARS)
                    .collect::<String>()
            })
            .filter(|n| n != NO_NAME);
        let changed = self
            .conn
            .execute(
                "UPDATE contacts SET nickname = ?2 WHERE key = ?1",
                params![&key.as_bytes()[..], nickname],
            )
            .map_err(StoreError::sql("set a nickname"))?;
        Ok(changed == 1)
    }

    /// What the player of `key`, calling itself `name`, is to this player.
    pub fn recognise(&self, key: &VerifyingKey, name: &str) -> Result<Recognition, StoreError> {
        self.recognise_before(key, name, None)
    }

    /// [`Store::recognise`] as it was before the table `table` was noted: what the players
    /// of a table just begun were to this player when it sat down.
    pub fn recognise_before(
        &self,
        key: &VerifyingKey,
        name: &str,
        table: Option<&[u8; 32]>,
    ) -> Result<Recognition, StoreError> {
        if self.own_key()? == Some(*key.as_bytes()) {
            return Ok(Recognition::Me);
        }
        let this = match self.contact(key)? {
            Some(c) if self.seen_elsewhere(&c.key, table)? => Some(c),
            _ => None,
        };
        if clean_name(name) != NO_NAME {
            // Another known key that used this name, or that this player calls so.
            for known in self.contacts()? {
                if known.key != *key
                    && self.seen_elsewhere(&known.key, table)?
                    && (known.names.iter().any(|n| same_name(n, name))
                        || known
                            .nickname
                            .as_deref()
                            .is_some_and(|n| same_name(n, name)))
                {
                    return Ok(Recognition::NameClash {
                        known,
                        seen: this.is_some(),
                    });
                }
            }
        }
        Ok(match this {
            Some(c) => Recognition::Known(c),
            None => Recognition::New,
        })
    }

    /// Whether `key` was sat with at a table other than `table` (any table when `None`).
    fn seen_elsewhere(
        &self,
        key: &VerifyingKey,
        table: Option<&[u8; 32]>,
    ) -> Result<bool, StoreError> {
        let Some(table) = table else {
            return Ok(true);
        };
        let n: i64 = self
            .conn
            .query_row(
                "SELECT count(*) FROM contact_tables WHERE key = ?1 AND table_id != ?2",
                params![&key.as_bytes()[..], &table[..]],
                |r| r.get(0),
            )
            .map_err(StoreError::sql("read a contact's tables"))?;
        Ok(n > 0)
    }

    /// After the migration to schema 5: notes the human players of every table already
    /// stored (their keys from a local seat's configuration, their names from the table's
    /// row). Returns how many players of how many tables.
    pub(crate) fn note_stored_tables(&self) -> Result<(usize, usize), StoreError> {
        let mut players = 0;
        let mut tables = 0;
        for info in self.tables()? {
            let Some(seat) = info.seats.first() else {
                continue;
            };
            let bots: Vec<u8> = info
                .seats
                .iter()
                .filter(|s| s.bot_key.is_some())
                .map(|s| s.config.seat)
                .collect();
            let list: Vec<(VerifyingKey, String)> = (0..4)
                .filter(|i| !bots.contains(&(*i as u8)))
                .map(|i| (seat.config.roster[i], info.names[i].clone()))
                .collect();
            self.note_players(&info.id, &list, info.created)?;
            players += list.len();
            tables += 1;
        }
        Ok((players, tables))
    }
}
