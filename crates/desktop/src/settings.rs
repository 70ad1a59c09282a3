//! The player's UI settings, kept in `<data dir>/settings.json`: display name, language, tile
//! faces, the window's size, the sound's volume and whether the table's motions are reduced.
//! Every field has a default, so a file written before a field existed still loads.
//!
//! The data directory is `directories::ProjectDirs::from("", "", "shanghai-mahjong")`'s data
//! dir (on Linux `~/.local/share/shanghai-mahjong`) unless `--data-dir` names another. The
//! player's key file and the game store live in the same directory and belong to other parts
//! of the project; this module touches only `settings.json`, written atomically (a temporary
//! file renamed over the old one) so a crash never leaves half a file. A malformed file is
//! reported with its path and the parser's reason, and the app starts with the defaults.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::i18n::Lang;
use crate::tiles::Faces;

/// The file name inside the data directory.
pub const FILE: &str = "settings.json";

/// The longest display name, in characters.
pub const MAX_NAME: usize = 24;

/// What the app remembers between runs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    /// The display name (empty until the player gives one).
    pub name: String,
    /// The language.
    pub lang: Lang,
    /// How tiles are drawn.
    pub faces: Faces,
    /// The window's last size (logical pixels), to open at it again.
    pub window: Option<(u32, u32)>,
    /// The sound's volume in percent, 0 for off (`None`: the default, 70).
    pub volume: Option<u8>,
    /// Nothing moves on the table (no sliding discards, no turning hand).
    pub reduce_motion: bool,
    /// The relay of "Play over the internet", as last used.
    pub relay: Option<String>,
    /// The practice bots' levels as last chosen (right, across, left; the bot crate's names).
    /// A name this version does not know leaves that seat at its default.
    pub levels: Option<[String; 3]>,
}

impl Settings {
    /// The sound's volume in percent (0: off).
    pub fn volume(&self) -> u8 {
        self.volume.unwrap_or(70).min(100)
    }
}

/// The window's smallest size (everything on every screen stays reachable at it).
pub const MIN_WINDOW: (f32, f32) = (800.0, 560.0);

/// The size to open the window at: the remembered one, else 1280 × 800, never below
/// [`MIN_WINDOW`].
pub fn opening_size(s: &Settings) -> (f32, f32) {
    let (w, h) = s
        .window
        .map_or((1280.0, 800.0), |(w, h)| (w as f32, h as f32));
    (w.max(MIN_WINDOW.0), h.max(MIN_WINDOW.1))
}

/// The size the table is laid out for; a larger window scales it up ([`scale_for`]).
pub const DESIGN: (f32, f32) = (1280.0, 800.0);

/// The app's scale factor for a window of `size` (logical pixels of the system, whose own
/// scale factor is applied already): tiles, text and panels grow with the window from
/// [`DESIGN`] up to three times it (3840 × 2160); a smaller window is laid out at its own
/// size, never shrunk (from 1024 × 600 up everything is reachable at scale 1).
pub fn scale_for(size: (f32, f32)) -> f32 {
    let f = (size.0 / DESIGN.0).min(size.1 / DESIGN.1);
    if f.is_finite() {
        f.clamp(1.0, 3.0)
    } else {
        1.0
    }
}

/// The size to open the window at on a monitor of `monitor` when no size is remembered:
/// most of a screen larger than [`DESIGN`] (a window that fits with room for a panel), and
/// `None` on a smaller one (the window stays at its opening size, shrunk to fit if need be).
pub fn first_size_on(monitor: (f32, f32)) -> Option<(f32, f32)> {
    let room = (monitor.0, monitor.1 - 40.0);
    if room.0 <= DESIGN.0 + 100.0 || room.1 <= DESIGN.1 + 60.0 {
        return None;
    }
    Some(((room.0 * 0.85).round(), (room.1 * 0.9).round()))
}

/// A window of `size` on a monitor of `monitor`: the size to shrink it to when it does not
/// fit (leaving room for a panel or a task bar), `None` when it fits.
pub fn fit_to_monitor(size: (f32, f32), monitor: (f32, f32)) -> Option<(f32, f32)> {
    let room = (monitor.0, (monitor.1 - 40.0).max(MIN_WINDOW.1));
    if size.0 <= room.0 && size.1 <= room.1 {
        return None;
    }
    Some((
        size.0.min(room.0).max(MIN_WINDOW.0),
        size.1.min(room.1).max(MIN_WINDOW.1),
    ))
}

/// Why the settings could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    /// The file exists but cannot be read, or cannot be written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// The file is not valid settings JSON.
    #[error("{path} is not a valid settings file: {source}")]
    Malformed {
        /// The file.
        path: PathBuf,
        /// What the parser found.
        source: serde_json::Error,
    },
}

/// Why a display name is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    /// Nothing but spaces.
    #[error("the name is empty")]
    Empty,
    /// Longer than [`MAX_NAME`] characters.
    #[error("the name is longer than {MAX_NAME} characters")]
    TooLong,
}

/// The name as it will be kept: trimmed, control characters refused as empty.
pub fn clean_name(raw: &str) -> Result<String, NameError> {
    let name: String = raw.trim().chars().filter(|c| !c.is_control()).collect();
    if name.is_empty() {
        Err(NameError::Empty)
    } else if name.chars().count() > MAX_NAME {
        Err(NameError::TooLong)
    } else {
        Ok(name)
    }
}

/// The default data directory.
pub fn default_data_dir() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "shanghai-mahjong").map(|d| d.data_dir().to_path_buf())
}

impl Settings {
    /// Reads `<dir>/settings.json`; a missing file gives the defaults.
    pub fn load(dir: &Path) -> Result<Settings, SettingsError> {
        let path = dir.join(FILE);
        match fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map_err(|source| SettingsError::Malformed { path, source }),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Settings::default()),
            Err(source) => Err(SettingsError::Io { path, source }),
        }
    }

    /// Writes `<dir>/settings.json` (creating the directory), atomically.
    pub fn save(&self, dir: &Path) -> Result<(), SettingsError> {
        let path = dir.join(FILE);
        let io = |source| SettingsError::Io {
            path: path.clone(),
            source,
        };
        fs::create_dir_all(dir).map_err(io)?;
        let tmp = dir.join(format!("{FILE}.tmp"));
        let json = serde_json::to_vec_pretty(self).map_err(|source| SettingsError::Malformed {
            path: path.clone(),
            source,
        })?;
        fs::write(&tmp, json).map_err(io)?;
        fs::rename(&tmp, &path).map_err(io)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_opens_at_its_last_size_and_fits_a_small_screen() {
        assert_eq!(opening_size(&Settings::default()), (1280.0, 800.0));
        let s = Settings {
            window: Some((1000, 700)),
            ..Settings::default()
        };
        assert_eq!(opening_size(&s), (1000.0, 700.0));
        // A netbook screen: 1280 × 800 shrinks to fit, a window that fits stays.
        assert_eq!(
            fit_to_monitor((1280.0, 800.0), (1024.0, 600.0)),
            Some((1024.0, 560.0))
        );
        assert_eq!(fit_to_monitor((1280.0, 800.0), (1920.0, 1080.0)), None);
        // Larger windows scale the table up; smaller ones are laid out at scale 1.
        assert_eq!(scale_for((1024.0, 600.0)), 1.0);
        assert_eq!(scale_for((1280.0, 800.0)), 1.0);
        assert_eq!(scale_for((2560.0, 1600.0)), 2.0);
        assert!((scale_for((1920.0, 1080.0)) - 1.35).abs() < 1e-6);
        assert_eq!(scale_for((3840.0, 2160.0)), 2.7);
        assert_eq!(scale_for((7680.0, 4320.0)), 3.0);
        // A first run opens on most of a large screen, as it is on a small one.
        assert_eq!(first_size_on((1920.0, 1080.0)), Some((1632.0, 936.0)));
        assert_eq!(first_size_on((1366.0, 768.0)), None);
        assert_eq!(first_size_on((1280.0, 800.0)), None);
    }

    fn dir(name: &str) -> PathBuf {
        let d =
            std::env::temp_dir().join(format!("shanghai-settings-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn settings_round_trip_through_the_data_dir() {
        let d = dir("roundtrip");
        assert_eq!(
            Settings::load(&d).expect("missing is default"),
            Settings::default()
        );
        let s = Settings {
            name: "小明".into(),
            lang: Lang::En,
            faces: Faces::Contrast,
            window: Some((1024, 600)),
            volume: Some(35),
            reduce_motion: true,
            relay: Some("/ip4/203.0.113.7/tcp/4001/p2p/12D3KooWRelay".into()),
            levels: Some(["strong".into(), "random".into(), "basic".into()]),
        };
        s.save(&d).expect("save");
        assert_eq!(Settings::load(&d).expect("load"), s);
        assert!(!d.join("identity.key").exists() && !d.join("mahjong.sqlite3").exists());
        let _ = fs::remove_dir_all(&d);
    }

    #[test]
    fn a_file_written_before_reduce_motion_existed_still_loads() {
        let d = dir("older");
        fs::create_dir_all(&d).expect("dir");
        fs::write(
            d.join(FILE),
            r#"{"name":"Mei","lang":"en","faces":"chinese","window":[1280,800],"volume":40}"#,
        )
        .expect("write");
        let s = Settings::load(&d).expect("an older file loads");
        assert_eq!(s.name, "Mei");
        assert_eq!(s.volume, Some(40));
        assert!(!s.reduce_motion, "motion is on by default");
        let _ = fs::remove_dir_all(&d);
    }

    #[test]
    fn every_face_set_is_kept_by_its_name_and_older_files_still_load() {
        let d = dir("faces");
        fs::create_dir_all(&d).expect("dir");
        for (name, faces) in [
            ("chinese", Faces::Chinese),
            ("notation", Faces::Notation),
            ("contrast", Faces::Contrast),
        ] {
            // A file of the version before the contrast faces (no `faces` at all, or one of
            // the two it knew) loads as it was.
            fs::write(
                d.join(FILE),
                format!(r#"{{"name":"Mei","faces":"{name}"}}"#),
            )
            .expect("write");
            assert_eq!(Settings::load(&d).expect("loads").faces, faces);
            let s = Settings {
                faces,
                ..Settings::default()
            };
            s.save(&d).expect("save");
            let text = fs::read_to_string(d.join(FILE)).expect("read");
            assert!(text.contains(&format!(r#""faces": "{name}""#)), "{text}");
            assert_eq!(Settings::load(&d).expect("load"), s);
        }
        fs::write(d.join(FILE), r#"{"name":"Mei"}"#).expect("write");
        assert_eq!(Settings::load(&d).expect("loads").faces, Faces::Chinese);
        let _ = fs::remove_dir_all(&d);
    }

    #[test]
    fn a_malformed_file_is_named_with_its_reason() {
        let d = dir("bad");
        fs::create_dir_all(&d).expect("dir");
        fs::write(d.join(FILE), b"{\"lang\": \"fr\"}").expect("write");
        let e = Settings::load(&d).expect_err("bad language");
        let msg = e.to_string();
        assert!(msg.contains("settings.json") && msg.contains("fr"), "{msg}");
        let _ = fs::remove_dir_all(&d);
    }

    #[test]
    fn names_are_trimmed_and_bounded() {
        assert_eq!(clean_name("  阿强 "), Ok("阿强".into()));
        assert_eq!(clean_name(" \t "), Err(NameError::Empty));
        assert_eq!(clean_name(&"x".repeat(25)), Err(NameError::TooLong));
    }
}

/// Why a data dir cannot keep the player's games.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DirProblem {
    /// The path is a file.
    IsFile,
    /// It cannot be written (permissions, a read-only file system).
    ReadOnly,
    /// The disk is full.
    Full,
    /// Anything else.
    Other,
}

impl DirProblem {
    /// The problem an I/O error shows.
    pub fn of(e: &io::Error) -> DirProblem {
        match e.kind() {
            io::ErrorKind::NotADirectory | io::ErrorKind::AlreadyExists => DirProblem::IsFile,
            io::ErrorKind::PermissionDenied | io::ErrorKind::ReadOnlyFilesystem => {
                DirProblem::ReadOnly
            }
            io::ErrorKind::StorageFull | io::ErrorKind::QuotaExceeded => DirProblem::Full,
            _ => DirProblem::Other,
        }
    }
}

/// Whether `dir` can keep the player's games: it is (or can be made) a folder and a file can
/// be written in it. Writes and removes a small probe file.
pub fn check_data_dir(dir: &Path) -> Result<(), DirProblem> {
    if dir.is_file() {
        return Err(DirProblem::IsFile);
    }
    std::fs::create_dir_all(dir).map_err(|e| DirProblem::of(&e))?;
    let probe = dir.join(format!(".write-probe-{}", std::process::id()));
    let written = std::fs::write(&probe, b"ok").map_err(|e| DirProblem::of(&e));
    let _ = std::fs::remove_file(&probe);
    written
}
