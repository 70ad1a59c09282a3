//! Screenshots for the documentation, shared by the test files that write them.

use std::path::PathBuf;

use iced_test::{Error, Simulator};
use shanghai_mahjong::app::Message;

/// Saves what `ui` shows as `docs/<name>.png`, rendered by the window's software renderer
/// (half the simulator's scale, 256 colours: small files).
pub fn save(mut ui: Simulator<'_, Message>, name: &str) -> Result<(), Error> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs");
    let path = dir.join(name);
    for entry in std::fs::read_dir(&dir)?.flatten() {
        if entry
            .file_name()
            .to_string_lossy()
            .starts_with(&format!("{name}-"))
        {
            std::fs::remove_file(entry.path())?;
        }
    }
    let snap = ui.snapshot(&iced::Theme::Dark)?;
    let _ = snap.matches_image(&path)?;
    let written = dir.join(format!("{name}-tiny-skia.png"));
    let status = std::process::Command::new("convert")
        .arg(&written)
        .args(["-resize", "50%", "-colors", "256", "-strip"])
        .arg(dir.join(format!("{name}.png")))
        .status()?;
    assert!(status.success(), "ImageMagick convert failed");
    std::fs::remove_file(written)?;
    Ok(())
}
