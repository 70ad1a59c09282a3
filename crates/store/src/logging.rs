//! Logs: `tracing` events to a file in the data directory (`mahjong.log`, 0600), filtered by
//! `RUST_LOG` (default `info`). The previous file is kept as `mahjong.log.1` once it passes
//! [`ROTATE_BYTES`] at start-up.
//!
//! Nothing secret is logged by this crate: keys appear only as public keys, never the
//! identity secret, a table's root secret or a bot's key (their `Debug` output hides them).

use std::fs::OpenOptions;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use tracing_subscriber::EnvFilter;

use crate::error::StoreError;
use crate::files;

/// The log file's name in the data directory.
pub const LOG_FILE: &str = "mahjong.log";

/// The filter without `RUST_LOG`: our own events at `info`, the window and font libraries
/// only when something goes wrong (at `info` winit alone writes every window attribute at
/// each launch, some 170 KB).
pub const DEFAULT_FILTER: &str = "info,winit=warn,iced_winit=warn,iced_wgpu=warn,iced_tiny_skia=warn,\
iced_graphics=warn,iced=warn,wgpu=warn,wgpu_core=warn,naga=warn,cosmic_text=warn,calloop=warn,\
sctk=warn,x11rb=warn,softbuffer=warn,tiny_skia=warn,fontdb=warn";

/// Size above which the log is moved to `mahjong.log.1` at start-up.
pub const ROTATE_BYTES: u64 = 16 << 20;

/// Sends this process's `tracing` events to `<data_dir>/mahjong.log` and returns its path.
/// Fails if a global subscriber is already set or the file cannot be opened; callers that
/// cannot log may go on without.
pub fn init_logging(data_dir: &Path) -> Result<PathBuf, StoreError> {
    files::create_private_dir(data_dir)?;
    let path = data_dir.join(LOG_FILE);
    if std::fs::metadata(&path).is_ok_and(|m| m.len() > ROTATE_BYTES) {
        let old = data_dir.join(format!("{LOG_FILE}.1"));
        std::fs::rename(&path, &old).map_err(|e| StoreError::io(&old, e))?;
    }
    files::touch_private(&path)?;
    let file = OpenOptions::new()
        .append(true)
        .open(&path)
        .map_err(|e| StoreError::io(&path, e))?;
    let filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(DEFAULT_FILTER));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(Mutex::new(file))
        .with_ansi(false)
        .try_init()
        .map_err(|e| StoreError::Logging(e.to_string()))?;
    tracing::info!(pid = std::process::id(), "logging started");
    Ok(path)
}
