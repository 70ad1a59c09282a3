//! The player's identity: one ed25519 key per player, made on first run in the data
//! directory, used both as the peer's network identity and as its table signing key, and the
//! display name other players see.
//!
//! Files (in the data directory, which is created 0700):
//! - `identity.key` (0600), three lines of text:
//!   `shanghai-mahjong identity v1`, `secret <64 hex>`, `public <64 hex>`. The public key is
//!   redundant on purpose: it is recomputed from the secret on every load, so a damaged file
//!   is detected instead of silently becoming another identity. A damaged or unreadable key
//!   file is an error ([`StoreError::CorruptKey`]) and is never replaced: losing it loses the
//!   player's identity and the link to every signature made with it.
//! - `name` (0600): the display name, one line. A name given on the command line replaces it.
//!
//! The key file is written atomically (temporary file, sync, link), so two processes started
//! at once on an empty directory end up with the same identity.

use std::fs;
use std::path::{Path, PathBuf};

use ed25519_dalek::{SigningKey, VerifyingKey};
use rand_core::{OsRng, RngCore};

use crate::error::StoreError;
use crate::files;
use crate::hex::{from_hex32, to_hex};

/// First line of the key file.
const KEY_HEADER: &str = "shanghai-mahjong identity v1";

/// The key file's name in the data directory.
pub const KEY_FILE: &str = "identity.key";

/// The display name's file in the data directory.
pub const NAME_FILE: &str = "name";

/// Longest display name, in characters.
pub const MAX_NAME_CHARS: usize = 40;

/// A player: the signing key and the display name.
#[derive(Clone)]
pub struct Identity {
    /// The player's ed25519 key (the libp2p identity and the table signing key).
    pub key: SigningKey,
    /// The display name.
    pub name: String,
}

impl std::fmt::Debug for Identity {
    /// Never prints the secret key.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Identity")
            .field("public", &to_hex(self.public().as_bytes()))
            .field("name", &self.name)
            .finish()
    }
}

impl Identity {
    /// Loads the identity in `data_dir`, making the key on first run (the directory too). A
    /// given `name` replaces the stored one; without one the stored name is kept, or on
    /// first run a name is made from the key (`player-1a2b3c4d`).
    pub fn load_or_create(data_dir: &Path, name: Option<&str>) -> Result<Identity, StoreError> {
        let name = name.map(check_name).transpose()?;
        files::create_private_dir(data_dir)?;
        let key_path = data_dir.join(KEY_FILE);
        let key = match read_key(&key_path)? {
            Some(key) => key,
            None => {
                let mut secret = [0u8; 32];
                OsRng.fill_bytes(&mut secret);
                let key = SigningKey::from_bytes(&secret);
                if files::write_new_private(&key_path, key_file_text(&key).as_bytes())? {
                    tracing::info!(public = %to_hex(key.verifying_key().as_bytes()), "made a new identity key");
                    key
                } else {
                    // Another process made it first: use that one.
                    read_key(&key_path)?.ok_or_else(|| StoreError::CorruptKey {
                        path: key_path.clone(),
                        why: "it vanished while being created".into(),
                    })?
                }
            }
        };
        let name_path = data_dir.join(NAME_FILE);
        let name = match name {
            Some(given) => {
                if read_name(&name_path)?.as_deref() != Some(given.as_str()) {
                    files::replace_private(&name_path, format!("{given}\n").as_bytes())?;
                }
                given
            }
            None => match read_name(&name_path)? {
                Some(stored) => stored,
                None => {
                    let made = format!("player-{}", &to_hex(key.verifying_key().as_bytes())[..8]);
                    files::replace_private(&name_path, format!("{made}\n").as_bytes())?;
                    made
                }
            },
        };
        Ok(Identity { key, name })
    }

    /// The public key.
    pub fn public(&self) -> VerifyingKey {
        self.key.verifying_key()
    }

    /// The key file's path in `data_dir`.
    pub fn key_path(data_dir: &Path) -> PathBuf {
        data_dir.join(KEY_FILE)
    }
}

fn key_file_text(key: &SigningKey) -> String {
    format!(
        "{KEY_HEADER}\nsecret {}\npublic {}\n",
        to_hex(&key.to_bytes()),
        to_hex(key.verifying_key().as_bytes())
    )
}

/// Reads the key file: `None` if it does not exist, an error if it is not a valid key.
fn read_key(path: &Path) -> Result<Option<SigningKey>, StoreError> {
    let bytes = match fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(StoreError::io(path, e)),
    };
    let corrupt = |why: &str| StoreError::CorruptKey {
        path: path.to_path_buf(),
        why: why.into(),
    };
    let text = std::str::from_utf8(&bytes).map_err(|_| corrupt("not text"))?;
    let mut lines = text.lines();
    if lines.next() != Some(KEY_HEADER) {
        return Err(corrupt("the first line is not the identity header"));
    }
    let field = |line: Option<&str>, label: &str| -> Result<[u8; 32], StoreError> {
        line.and_then(|l| l.strip_prefix(label))
            .and_then(|v| from_hex32(v.trim()))
            .ok_or_else(|| corrupt(&format!("no valid `{}` line", label.trim())))
    };
    let secret = field(lines.next(), "secret ")?;
    let public = field(lines.next(), "public ")?;
    if lines.any(|l| !l.trim().is_empty()) {
        return Err(corrupt("unexpected lines after the key"));
    }
    let key = SigningKey::from_bytes(&secret);
    if key.verifying_key().as_bytes() != &public {
        return Err(corrupt("the secret does not match the public key"));
    }
    if files::readable_by_others(path) {
        tracing::warn!(path = %path.display(), "identity key file was readable by others; made it 0600");
        files::make_private(path)?;
    }
    Ok(Some(key))
}

fn read_name(path: &Path) -> Result<Option<String>, StoreError> {
    match fs::read_to_string(path) {
        Ok(text) => Ok(check_name(text.trim_end_matches(['\n', '\r'])).ok()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(StoreError::io(path, e)),
    }
}

/// A display name, trimmed: 1 to [`MAX_NAME_CHARS`] characters, no control characters.
pub fn check_name(name: &str) -> Result<String, StoreError> {
    let trimmed = name.trim();
    let chars = trimmed.chars().count();
    if chars == 0 || chars > MAX_NAME_CHARS || trimmed.chars().any(char::is_control) {
        return Err(StoreError::BadName(name.to_string()));
    }
    Ok(trimmed.to_string())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn first_run_makes_a_private_key_and_later_runs_load_it() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        let a = Identity::load_or_create(&data, None).unwrap();
        assert!(a.name.starts_with("player-"));
        let b = Identity::load_or_create(&data, Some("  Ann ")).unwrap();
        assert_eq!(a.public(), b.public());
        assert_eq!(b.name, "Ann");
        let c = Identity::load_or_create(&data, None).unwrap();
        assert_eq!(c.name, "Ann");
        assert_eq!(c.key.to_bytes(), a.key.to_bytes());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&data), 0o700);
            assert_eq!(mode(&data.join(KEY_FILE)), 0o600);
            assert_eq!(mode(&data.join(NAME_FILE)), 0o600);
        }
        assert!(!format!("{c:?}").contains(&to_hex(&c.key.to_bytes())));
    }

    #[test]
    fn a_corrupt_key_file_is_an_error_and_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let first = Identity::load_or_create(dir.path(), None).unwrap();
        let path = dir.path().join(KEY_FILE);
        let text = fs::read_to_string(&path).unwrap();
        // One hex digit of the secret changed: the public key no longer matches.
        let pos = text.find("secret ").unwrap() + 7;
        let mut bytes = text.into_bytes();
        bytes[pos] = if bytes[pos] == b'0' { b'1' } else { b'0' };
        fs::write(&path, &bytes).unwrap();
        let err = Identity::load_or_create(dir.path(), None).unwrap_err();
        assert!(
            matches!(&err, StoreError::CorruptKey { why, .. } if why.contains("does not match")),
            "{err}"
        );
        assert_eq!(
            fs::read(&path).unwrap(),
            bytes,
            "the file is never replaced"
        );
        for garbage in [
            &b"\xff\xfe"[..],
            b"",
            b"shanghai-mahjong identity v1\nsecret 12\n",
        ] {
            fs::write(&path, garbage).unwrap();
            assert!(matches!(
                Identity::load_or_create(dir.path(), None),
                Err(StoreError::CorruptKey { .. })
            ));
        }
        fs::write(&path, key_file_text(&first.key)).unwrap();
        let back = Identity::load_or_create(dir.path(), None).unwrap();
        assert_eq!(back.public(), first.public());
    }

    #[test]
    fn bad_names_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        for bad in ["", "   ", "a\nb", &"x".repeat(41)] {
            assert!(matches!(
                Identity::load_or_create(dir.path(), Some(bad)),
                Err(StoreError::BadName(_))
            ));
        }
        let ok = Identity::load_or_create(dir.path(), Some("张三")).unwrap();
        assert_eq!(ok.name, "张三");
    }
}
