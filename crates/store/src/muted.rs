//! The people a player has muted at the table (their talk is not shown), by identity key,
//! remembered in `muted.json` in the data dir. Talk is heard by name; a name is tied to the
//! key of the last line said under it, so a person is muted whatever name they use later.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use ed25519_dalek::VerifyingKey;

use crate::error::StoreError;
use crate::hex::{from_hex32, to_hex};

/// The file in the data dir.
pub const MUTED_FILE: &str = "muted.json";

/// Most keys remembered (the oldest muted are forgotten past it).
pub const MAX_MUTED: usize = 1024;

/// The muted keys, and who said what lately.
#[derive(Clone, Debug, Default)]
pub struct Muted {
    keys: BTreeSet<[u8; 32]>,
    /// Name → key of the last line heard under it (this run only).
    names: BTreeMap<String, [u8; 32]>,
}

impl Muted {
    /// The muted keys of `data_dir` (none when the file is missing; a damaged file is read as
    /// far as it is whole and said in the log).
    pub fn load(data_dir: &Path) -> Muted {
        let path = data_dir.join(MUTED_FILE);
        let mut muted = Muted::default();
        let Ok(text) = std::fs::read_to_string(&path) else {
            return muted;
        };
        match serde_json::from_str::<Vec<String>>(&text) {
            Ok(list) => {
                for k in list.iter().take(MAX_MUTED) {
                    if let Some(k) = from_hex32(k) {
                        muted.keys.insert(k);
                    }
                }
            }
            Err(e) => tracing::warn!(
                "{} is not a list of keys ({e}): nobody is muted",
                path.display()
            ),
        }
        muted
    }

    /// Keeps the muted keys in `data_dir`.
    pub fn save(&self, data_dir: &Path) -> Result<(), StoreError> {
        let list: Vec<String> = self.keys.iter().map(|k| to_hex(k)).collect();
        let bytes = serde_json::to_vec_pretty(&list).unwrap_or_default();
        crate::files::replace_private(&data_dir.join(MUTED_FILE), &bytes)
    }

    /// A line was heard from `key` under `name`.
    pub fn heard_from(&mut self, name: &str, key: &VerifyingKey) {
        if self.names.len() < MAX_MUTED || self.names.contains_key(name) {
            self.names.insert(name.to_string(), *key.as_bytes());
        }
    }

    /// The key of the last line heard under `name`.
    pub fn heard(&self, name: &str) -> Option<[u8; 32]> {
        self.names.get(name).copied()
    }

    /// Mutes (`on`) or unmutes a key.
    pub fn set(&mut self, key: &[u8; 32], on: bool) {
        if on {
            if self.keys.len() < MAX_MUTED {
                self.keys.insert(*key);
            }
        } else {
            self.keys.remove(key);
        }
    }

    /// Whether `key` is muted.
    pub fn is_muted(&self, key: &VerifyingKey) -> bool {
        self.keys.contains(key.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ed25519_dalek::SigningKey;

    #[test]
    fn a_mute_is_remembered_by_key_whatever_the_name() {
        let dir = tempfile::tempdir().expect("dir");
        let key = SigningKey::from_bytes(&[7; 32]).verifying_key();
        let mut m = Muted::load(dir.path());
        assert!(m.heard("Bo").is_none());
        m.heard_from("Bo", &key);
        let k = m.heard("Bo").expect("heard");
        m.set(&k, true);
        m.save(dir.path()).expect("saved");
        let back = Muted::load(dir.path());
        assert!(back.is_muted(&key), "remembered");
        let mut back = back;
        back.set(key.as_bytes(), false);
        assert!(!back.is_muted(&key));
    }

    #[test]
    fn a_damaged_file_mutes_nobody() {
        let dir = tempfile::tempdir().expect("dir");
        std::fs::write(dir.path().join(MUTED_FILE), b"{not json").expect("write");
        let m = Muted::load(dir.path());
        let key = SigningKey::from_bytes(&[7; 32]).verifying_key();
        assert!(!m.is_muted(&key));
    }
}
