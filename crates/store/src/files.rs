//! Private files and directories: the data directory is made owner-only (0700), and the
//! files that hold secrets (the identity key, the database with the tables' root secrets)
//! owner-read/write only (0600). Writes that create a file are atomic: a crash leaves either
//! no file or the whole file, never a torn one. On systems without Unix permissions the
//! platform defaults apply.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::StoreError;

/// Creates `dir` (and its parents) if missing; a directory this call creates is 0700.
pub fn create_private_dir(dir: &Path) -> Result<(), StoreError> {
    if dir.is_dir() {
        return Ok(());
    }
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir).map_err(|e| StoreError::io(dir, e))
}

/// Options that create a new file readable and writable by its owner only.
fn private_options() -> OpenOptions {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options
}

/// Creates the empty file `path` with mode 0600 unless it exists (SQLite then opens it and
/// gives its journal files the same mode).
pub fn touch_private(path: &Path) -> Result<(), StoreError> {
    match private_options().open(path) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(StoreError::io(path, e)),
    }
}

/// Writes `bytes` to a new private file `path` atomically: a temporary file is written and
/// synced, then linked to `path`, which must not exist. Returns `Ok(false)` when `path`
/// already exists (another process made it first): nothing is overwritten.
pub fn write_new_private(path: &Path, bytes: &[u8]) -> Result<bool, StoreError> {
    let tmp = temp_path(path);
    let _ = fs::remove_file(&tmp);
    write_synced(&tmp, bytes)?;
    let linked = fs::hard_link(&tmp, path);
    let _ = fs::remove_file(&tmp);
    match linked {
        Ok(()) => {
            sync_parent(path);
            Ok(true)
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(StoreError::io(path, e)),
    }
}

/// Replaces the private file `path` with `bytes` atomically (write a temporary, rename).
pub fn replace_private(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    let tmp = temp_path(path);
    let _ = fs::remove_file(&tmp);
    write_synced(&tmp, bytes)?;
    fs::rename(&tmp, path).map_err(|e| StoreError::io(path, e))?;
    sync_parent(path);
    Ok(())
}

fn temp_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".tmp{}", std::process::id()));
    path.with_file_name(name)
}

fn write_synced(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    let mut file: File = private_options()
        .open(path)
        .map_err(|e| StoreError::io(path, e))?;
    file.write_all(bytes)
        .and_then(|()| file.sync_all())
        .map_err(|e| StoreError::io(path, e))
}

/// Makes a rename or link in `path`'s directory durable (best effort: not every platform
/// can open a directory).
fn sync_parent(path: &Path) {
    if let Some(dir) = path.parent()
        && let Ok(d) = File::open(dir)
    {
        let _ = d.sync_all();
    }
}

/// Whether group or others may read `path` (always false where there are no Unix modes).
pub fn readable_by_others(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o077 != 0)
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        false
    }
}

/// Restricts `path` to its owner (0600); a no-op where there are no Unix modes.
pub fn make_private(path: &Path) -> Result<(), StoreError> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(path, fs::Permissions::from_mode(0o600))
            .map_err(|e| StoreError::io(path, e))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        Ok(())
    }
}
