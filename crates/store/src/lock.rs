//! One process per data directory: an operating-system lock on `<data dir>/mahjong.lock`,
//! held for the life of the process by `mahjong play` and the desktop app.
//!
//! Two processes on one data directory would sign with one key at one table from two
//! journals (and race to create the database). The lock is taken before anything else in the
//! directory is opened and before any peer is dialled; a second process gets
//! [`StoreError::InUse`] at once, naming the holder's process id, which the holder writes into
//! the lock file. The operating system drops the lock when its holder exits, however it
//! exits (a crash or `kill -9` included), so a stale lock file never locks anybody out: the
//! next process takes the lock and writes its own id.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::error::StoreError;
use crate::files;

/// The lock file in the data directory.
pub const LOCK_FILE: &str = "mahjong.lock";

/// The held lock on a data directory; dropping it (or the process ending) releases it.
#[derive(Debug)]
pub struct DirLock {
    _file: File,
    path: PathBuf,
}

impl DirLock {
    /// Takes the lock of `data_dir` (created, 0700, if missing) without waiting, and writes
    /// this process's id into the lock file. Another process holding it:
    /// [`StoreError::InUse`].
    pub fn acquire(data_dir: &Path) -> Result<DirLock, StoreError> {
        files::create_private_dir(data_dir)?;
        let path = data_dir.join(LOCK_FILE);
        let mut options = OpenOptions::new();
        options.read(true).write(true).create(true).truncate(false);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        let mut file = options.open(&path).map_err(|e| StoreError::io(&path, e))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                return Err(StoreError::InUse {
                    dir: data_dir.to_path_buf(),
                    pid: holder_pid(&mut file),
                });
            }
            Err(TryLockError::Error(e)) => return Err(StoreError::io(&path, e)),
        }
        let pid = std::process::id().to_string();
        file.set_len(0)
            .and_then(|()| file.seek(SeekFrom::Start(0)).map(drop))
            .and_then(|()| file.write_all(pid.as_bytes()))
            .and_then(|()| file.sync_all())
            .map_err(|e| StoreError::io(&path, e))?;
        Ok(DirLock { _file: file, path })
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// The process id the holder wrote into the lock file. The holder writes it just after
/// taking the lock, so an empty file is read again for a moment; `None` if it never appears.
fn holder_pid(file: &mut File) -> Option<u32> {
    let until = Instant::now() + Duration::from_millis(500);
    loop {
        let mut text = String::new();
        let read = file
            .seek(SeekFrom::Start(0))
            .and_then(|_| file.read_to_string(&mut text));
        if read.is_ok()
            && let Ok(pid) = text.trim().parse()
        {
            return Some(pid);
        }
        if Instant::now() >= until {
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_on_a_directory_is_refused_with_the_holders_pid() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        let held = DirLock::acquire(&data).unwrap();
        assert_eq!(
            std::fs::read_to_string(held.path()).unwrap(),
            std::process::id().to_string()
        );
        // A second open of the file is a second lock (flock is per open file), as another
        // process's would be.
        let err = DirLock::acquire(&data).unwrap_err();
        assert!(
            matches!(&err, StoreError::InUse { pid: Some(p), .. } if *p == std::process::id()),
            "{err:?}"
        );
        assert_eq!(
            err.to_string(),
            format!(
                "the data dir {} is in use by another process (pid {})",
                data.display(),
                std::process::id()
            )
        );
        drop(held);
        // Released: taken again, the stale id overwritten.
        let again = DirLock::acquire(&data).unwrap();
        drop(again);
    }

    #[test]
    fn a_stale_lock_file_with_a_longer_pid_is_overwritten_whole() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(LOCK_FILE), "999999999999").unwrap();
        let held = DirLock::acquire(dir.path()).unwrap();
        assert_eq!(
            std::fs::read_to_string(held.path()).unwrap(),
            std::process::id().to_string()
        );
    }
}
