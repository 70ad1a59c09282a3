//! One process per data dir: the app refuses a data dir another process holds (the CLI's
//! `mahjong play` takes the same lock), with one line naming the holder, before any window
//! opens. Here this test process is the other process.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The app on `dir` with no display at all, its output.
fn without_a_display(dir: &std::path::Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_shanghai-mahjong"))
        .arg("--data-dir")
        .arg(dir)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .stdin(Stdio::null())
        .output()
        .expect("the app runs")
}

#[test]
fn the_app_on_a_data_dir_in_use_exits_at_once_naming_the_holder() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("app-lock-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let held = mahjong_store::DirLock::acquire(&dir).expect("the test takes the lock");
    let started = Instant::now();
    // No display: were the lock not checked first, the app would fail otherwise.
    let out = without_a_display(&dir);
    let took = started.elapsed();
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "shanghai-mahjong: the data dir {} is in use by another process (pid {})\n",
            dir.display(),
            std::process::id()
        )
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(took < Duration::from_secs(2), "took {took:?}");
    // Nothing else in the data dir was made: no settings, no store, no log.
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["mahjong.lock"]);
    drop(held);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_app_without_a_display_says_so_in_one_line() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("app-nodisplay-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = without_a_display(&dir);
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "shanghai-mahjong: no display to open the window on (neither DISPLAY nor WAYLAND_DISPLAY is set)\n"
    );
    assert_eq!(out.status.code(), Some(1));
    let _ = std::fs::remove_dir_all(&dir);
}
