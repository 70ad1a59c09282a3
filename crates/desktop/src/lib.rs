//! Shanghai mahjong, the desktop app (`shanghai-mahjong`): practice against three bots on the
//! real table protocol, every hand explained, in 中文 and English.
//!
//! Built with iced 0.14 on the software renderer. The top-level state is an enum of phases
//! ([`app::Screen`]: welcome, home, table); each screen has its own `Message` type lifted
//! into [`app::Message`]; `update` returns a `Task`; a table session (practice or LAN) runs
//! on its own thread behind a subscription and feeds the table screen one update type
//! ([`session`]); timers are subscriptions that exist only while a countdown runs, so an idle
//! window does no work.
//!
//! - [`engine`]: four `mahjong_table::Client`s and three bots in memory (sans-IO, seeded).
//! - [`session`]: what every table session feeds the table screen ([`session::Feed`], the
//!   one [`session::Update`] type) and where the screen's commands go ([`session::Commands`]);
//!   the practice engine on its own thread; the countdown ticker.
//! - [`lan`]: the LAN (`mahjong-net`) on its own thread: the lobby and LAN tables, whose
//!   events feed the same table screen.
//! - [`screens`]: welcome (the name), home (practice set-up and its option editor), table,
//!   hand end, the rules, the scorer, the lobby, the history of finished hands and the replay
//!   of one.
//! - [`records`]: the player's store (`mahjong-store`): the history's data, exports, the
//!   verification of a file or a stored table, practice hands booked in the ledger.
//! - [`rerun`]: a finished hand rebuilt step by step from its stored signed log.
//! - [`tiles`]: vector tiles, Chinese faces or notation.
//! - [`i18n`]: the two catalogues. [`settings`]: `settings.json`. [`cli`]: flags.
//!
//! ```no_run
//! let args = shanghai_mahjong::cli::Args::default();
//! shanghai_mahjong::run(args).expect("the window opens");
//! ```

pub mod app;
pub mod cli;
pub mod engine;
pub mod i18n;
pub mod in_use;
pub mod lan;
pub mod motion;
pub mod records;
pub mod rerun;
pub mod review;
pub mod screens;
pub mod session;
pub mod settings;
pub mod sound;
pub mod tiles;
pub mod watch;

use iced::Font;

/// The bundled font's family (a subset of Noto Sans CJK SC, see `assets/fonts`).
pub const FAMILY: &str = "Mahjong Sans";

/// The regular face.
pub const FONT: Font = Font::with_name(FAMILY);

/// The bold face.
pub const FONT_BOLD: Font = Font {
    weight: iced::font::Weight::Bold,
    ..Font::with_name(FAMILY)
};

/// The font files, loaded at start.
pub const FONT_FILES: [&[u8]; 2] = [
    include_bytes!("../../../assets/fonts/MahjongSans-Regular.otf"),
    include_bytes!("../../../assets/fonts/MahjongSans-Bold.otf"),
];

/// The window icon: 64 × 64 raw RGBA (made with the launcher's PNG by `assets/icons/make-icon.sh`).
pub const ICON_RGBA: &[u8] = include_bytes!("../../../assets/icons/shanghai-mahjong-64.rgba");

/// iced settings with the bundled fonts as the default (the tests use the same).
pub fn iced_settings() -> iced::Settings {
    iced::Settings {
        fonts: FONT_FILES
            .iter()
            .map(|f| std::borrow::Cow::Borrowed(*f))
            .collect(),
        default_font: FONT,
        default_text_size: iced::Pixels(15.0),
        ..iced::Settings::default()
    }
}

/// How the app ended, its window closed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ended {
    /// Closed by the player, or an `--autoplay` session played to its end.
    Closed,
    /// `--practice PRESET --autoplay`: a hand was not signed by all four or the practice
    /// table stopped (said on standard error when it happened); `main` exits 1.
    AutoplayFailed,
}

/// Opens the window and runs the app until it is closed.
pub fn run(args: cli::Args) -> Result<Ended, iced::Error> {
    let _ = lan::LAUNCHED.set(std::time::Instant::now());
    let lan = lan::LanOptions::from_args(&args);
    let practice_autoplay =
        (args.practice.is_some() && args.autoplay).then(|| args.hands.unwrap_or(1));
    let flags = app::Flags::from_args(args);
    // The log (`mahjong.log` in the data dir): the table's prompts and the player's moves,
    // the LAN. A data dir that cannot be written leaves the app without a log, not closed.
    let _ = mahjong_store::init_logging(&flags.data_dir);
    let (w, h) = settings::Settings::load(&flags.data_dir)
        .map(|s| settings::opening_size(&s))
        .unwrap_or((1280.0, 800.0));
    // The app's state stays inside iced: whether an autoplay session failed is carried out
    // through this flag, set by `update` before it asks iced to exit.
    let failed = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let failed_in_app = failed.clone();
    iced::application(
        move || {
            let (mut app, task) = app::App::new(flags.clone());
            app.enable_sound();
            // The command line's name first: the autoplayed practice table is kept under it.
            let more = app.connect(lan.clone());
            if let Some(n) = practice_autoplay {
                app.practice_autoplay(n);
            }
            (app, iced::Task::batch([task, more]))
        },
        move |app: &mut app::App, message| {
            let task = app.update(message);
            if app.autoplay_failed {
                failed_in_app.store(true, std::sync::atomic::Ordering::Relaxed);
            }
            task
        },
        app::App::view,
    )
    .scale_factor(|app: &app::App| app.scale)
    .title(app::App::title)
    .subscription(app::App::subscription)
    .theme(app::App::theme)
    .settings(iced_settings())
    .window(iced::window::Settings {
        size: iced::Size::new(w, h),
        min_size: Some(iced::Size::new(
            settings::MIN_WINDOW.0,
            settings::MIN_WINDOW.1,
        )),
        icon: iced::window::icon::from_rgba(ICON_RGBA.to_vec(), 64, 64).ok(),
        ..iced::window::Settings::default()
    })
    .run()?;
    Ok(if failed.load(std::sync::atomic::Ordering::Relaxed) {
        Ended::AutoplayFailed
    } else {
        Ended::Closed
    })
}
