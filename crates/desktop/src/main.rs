//! `shanghai-mahjong`: the desktop app. See the library's documentation for what it does.

// On Windows a GUI program: no console window opens behind the app. Started from a console,
// its standard-error lines still reach it (see `attach_console`).
#![cfg_attr(windows, windows_subsystem = "windows")]

use std::process::ExitCode;

use clap::Parser;
use shanghai_mahjong::cli::Args;

fn main() -> ExitCode {
    // Before the command line is read: `--help` and a bad flag's error reach the console.
    #[cfg(windows)]
    attach_console();
    let args = match Args::try_parse_from(std::env::args_os()) {
        Ok(a) => a,
        // `--help` on standard output, exit 0; a flag that cannot be followed: its error on
        // standard error, exit 2.
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
        }
    };
    // One process per data dir (the CLI's `mahjong play` takes the same lock), before the
    // window opens, the store is read or a peer is dialled; held until the app exits.
    let data_dir = shanghai_mahjong::app::Flags::from_args(args.clone()).data_dir;
    // A data dir that cannot be written at all (a file, read-only) cannot be locked either:
    // the app then opens without saving and says so in its window.
    let _lock = match mahjong_store::DirLock::acquire(&data_dir) {
        Ok(lock) => Some(lock),
        Err(e @ mahjong_store::StoreError::InUse { .. }) => {
            eprintln!("shanghai-mahjong: {e}");
            // With a display the player is told in a window, in their language.
            if let mahjong_store::StoreError::InUse { dir, pid } = &e
                && has_display()
            {
                let lang = shanghai_mahjong::in_use::InUse::lang_for(dir, args.lang);
                let _ = shanghai_mahjong::in_use::run(shanghai_mahjong::in_use::InUse::new(
                    lang, dir, *pid,
                ));
            }
            return ExitCode::FAILURE;
        }
        Err(e) => {
            if shanghai_mahjong::settings::check_data_dir(&data_dir).is_ok() {
                eprintln!("shanghai-mahjong: {e}");
                return ExitCode::FAILURE;
            }
            None
        }
    };
    // Without a display the window library panics; say it in one line instead.
    if !has_display() {
        eprintln!(
            "shanghai-mahjong: no display to open the window on (neither DISPLAY nor WAYLAND_DISPLAY is set)"
        );
        return ExitCode::FAILURE;
    }
    match shanghai_mahjong::run(args) {
        Ok(shanghai_mahjong::Ended::Closed) => ExitCode::SUCCESS,
        // Already said on standard error when it happened.
        Ok(shanghai_mahjong::Ended::AutoplayFailed) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("shanghai-mahjong: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Whether a window can be opened (on Linux and the BSDs: an X or Wayland display is set).
fn has_display() -> bool {
    !cfg!(all(unix, not(target_os = "macos")))
        || std::env::var_os("DISPLAY").is_some()
        || std::env::var_os("WAYLAND_DISPLAY").is_some()
}

/// A Windows GUI program started from a console (cmd, PowerShell) without redirection has no
/// standard handles: its error lines, `--help` and `--autoplay`'s hand lines would be lost. It
/// attaches to the parent's console then. Handles already given (redirected to a file or a
/// pipe, as the tests do) are kept; started from the desktop, there is no console to attach to.
#[cfg(windows)]
#[allow(unsafe_code)]
fn attach_console() {
    use windows_sys::Win32::Foundation::INVALID_HANDLE_VALUE;
    use windows_sys::Win32::System::Console::{
        ATTACH_PARENT_PROCESS, AttachConsole, GetStdHandle, STD_ERROR_HANDLE,
    };
    // SAFETY: two Win32 calls taking and returning plain values; AttachConsole failing (no
    // parent console) changes nothing.
    unsafe {
        let handle = GetStdHandle(STD_ERROR_HANDLE);
        if handle.is_null() || handle == INVALID_HANDLE_VALUE {
            AttachConsole(ATTACH_PARENT_PROCESS);
        }
    }
}
