//! What the desktop app's test files (other than `app.rs`) share: a harness around the real
//! app in the `iced_test` simulator, standing in for the practice table's worker thread with
//! the engine itself in simulated time, and the screenshot writer for the documentation.

#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::mpsc;

use iced_test::{Error, Simulator, selector};
use mahjong_rules::Action;
use shanghai_mahjong::app::{App, Flags, Message};
use shanghai_mahjong::engine::{Command, Engine, Update};
use shanghai_mahjong::i18n::Lang;
use shanghai_mahjong::screens::table::Message as TableMsg;
use shanghai_mahjong::session::Feed;
use shanghai_mahjong::settings::Settings;
use shanghai_mahjong::tiles::Faces;

/// The app, and the practice engine once seated.
pub struct Harness {
    pub app: App,
    pub engine: Option<Engine>,
    rx: Option<mpsc::Receiver<Command>>,
    dir: PathBuf,
}

impl Harness {
    /// A named player in `lang` with `faces`, on the home screen of a tall window.
    pub fn new(name: &str, lang: Lang, faces: Faces) -> Harness {
        Harness::seeded(name, lang, faces, 9)
    }

    /// As [`Harness::new`], the practice tables dealt from `seed`.
    pub fn seeded(name: &str, lang: Lang, faces: Faces, seed: u64) -> Harness {
        let dir =
            std::env::temp_dir().join(format!("shanghai-desktop-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        // Built on the defaults, so fields the settings gain later keep their defaults.
        let named = Settings {
            name: "Mei".into(),
            lang,
            ..Settings::default()
        };
        Settings { faces, ..named }.save(&dir).expect("settings");
        let (mut app, _) = App::new(Flags {
            data_dir: dir.clone(),
            lang: None,
            practice: None,
            seed: Some(seed),
            think_ms: (0, 0),
        });
        // Tall enough that every option is on screen for the clicks.
        let _ = app.update(Message::Resized(iced::Size::new(1280.0, 3200.0)));
        Harness {
            app,
            engine: None,
            rx: None,
            dir,
        }
    }

    pub fn ui(&self) -> Simulator<'_, Message> {
        Simulator::with_size(
            shanghai_mahjong::iced_settings(),
            self.app.size,
            self.app.view(),
        )
    }

    pub fn apply(&mut self, msgs: Vec<Message>) {
        for m in msgs {
            let _ = self.app.update(m);
        }
        self.pump();
    }

    pub fn click(&mut self, text: &str) -> Result<(), Error> {
        let msgs: Vec<Message> = {
            let mut ui = self.ui();
            ui.click(text)?;
            ui.into_messages().collect()
        };
        self.apply(msgs);
        Ok(())
    }

    pub fn click_id(&mut self, id: &str) -> Result<(), Error> {
        let msgs: Vec<Message> = {
            let mut ui = self.ui();
            ui.click(selector::id(id.to_string()))?;
            ui.into_messages().collect()
        };
        self.apply(msgs);
        Ok(())
    }

    pub fn find(&self, text: &str) -> bool {
        self.ui().find(text).is_ok()
    }

    /// Starts the engine the app's subscription would run and runs it to the first prompt.
    pub fn sit_down(&mut self) {
        self.sit_down_with(|_| {});
    }

    /// As [`Harness::sit_down`], with `hook` applied to the engine before it runs.
    pub fn sit_down_with(&mut self, hook: impl FnOnce(&mut Engine)) {
        let key = self.app.table_key().expect("at a table").clone();
        let (engine, first) = Engine::new(&key.config).expect("engine");
        self.seat(engine, first, hook);
    }

    /// As [`Harness::sit_down`], the table's hands kept in the player's store as the app's
    /// worker keeps them (the history, the review).
    pub fn sit_down_kept(&mut self) {
        let key = self.app.table_key().expect("at a table").clone();
        assert!(key.record.is_some(), "the app keeps this table's hands");
        let (engine, first) = shanghai_mahjong::session::start_table(&key).expect("engine");
        self.seat(engine, first, |_| {});
    }

    /// The data directory.
    pub fn dir(&self) -> &std::path::Path {
        &self.dir
    }

    fn seat(&mut self, mut engine: Engine, first: Vec<Update>, hook: impl FnOnce(&mut Engine)) {
        hook(&mut engine);
        let (tx, rx) = mpsc::channel();
        let _ = self.app.update(Message::Table(TableMsg::Feed(Feed::Ready(
            shanghai_mahjong::session::Commands::Practice(tx),
        ))));
        self.engine = Some(engine);
        self.rx = Some(rx);
        self.feed(first);
        self.pump();
    }

    pub fn feed(&mut self, updates: Vec<Update>) {
        for u in updates {
            let _ = self
                .app
                .update(Message::Table(TableMsg::Feed(Feed::Update(u))));
        }
    }

    pub fn pump(&mut self) {
        for _ in 0..10_000 {
            let (Some(rx), Some(engine)) = (&self.rx, self.engine.as_mut()) else {
                return;
            };
            let commands: Vec<Command> = rx.try_iter().collect();
            let had = !commands.is_empty();
            let mut ups = Vec::new();
            for c in commands {
                ups.extend(engine.command(c));
            }
            if !had && (engine.is_paused() || engine.player_must_act()) {
                self.feed(ups);
                return;
            }
            let now = engine.now();
            ups.extend(engine.settle(now + 1_000));
            let idle = ups.is_empty() && !had;
            self.feed(ups);
            if idle {
                return;
            }
        }
    }
    /// Plays the strong bot's hint at every prompt until the hand ends (or `limit` prompts).
    pub fn play_to_end(&mut self, limit: usize) {
        for _ in 0..limit {
            let Some(t) = self.app.table_state() else {
                return;
            };
            if t.end.is_some() {
                return;
            }
            let Some((a, _)) = t.hint.clone() else {
                self.pump();
                if self
                    .app
                    .table_state()
                    .is_some_and(|t| t.hint.is_none() && t.end.is_none())
                {
                    return;
                }
                continue;
            };
            let a = if t.legal().contains(&a) {
                a
            } else {
                t.legal().first().cloned().unwrap_or(Action::Pass)
            };
            let _ = self.app.update(Message::Table(TableMsg::Act(a)));
            self.pump();
        }
    }
}

impl Drop for Harness {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

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
