//! The application: phases ([`Screen`]), the top-level [`Message`], `update`, `view` and the
//! subscriptions (the practice table's worker, the countdown while one runs, the keyboard,
//! the window size).
//!
//! One file on purpose (about 1,150 lines): the top-level message and its dispatch to every
//! screen; each screen's own state and logic live in `screens/`, so what stays here is the
//! routing between them.
//!
//! A bar at the top switches the language and the tile faces at any time, mid-hand included;
//! both are remembered in `settings.json`.

use crate::i18n::Text;
use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

use iced::keyboard::{self, Key as IcedKey, key::Named};
use iced::widget::{button, column, container, row, text};
use iced::{Alignment, Element, Length, Size, Subscription, Task, Theme, window};
use mahjong_rules::Ruleset;

use crate::cli::Args;
use crate::engine::PracticeConfig;
use crate::i18n::{Lang, T};
use crate::lan::{self, LanKey, LanOptions, Link, Request};
use crate::screens::table::{self, Exit, Key};
use crate::screens::table_view::{self, Ctx};
use crate::screens::talk;
use crate::screens::{
    ACCENT, MUTED, WARN, felt, history, home, label, lobby, replay, review, rules, scorer, settle,
    stats, welcome,
};
use crate::session;
use crate::settings::{Settings, default_data_dir};
use crate::tiles::Faces;

/// How the app starts.
#[derive(Clone, Debug)]
pub struct Flags {
    /// Where settings live.
    pub data_dir: PathBuf,
    /// A language for this run (remembered).
    pub lang: Option<Lang>,
    /// Go straight to a practice table.
    pub practice: Option<Ruleset>,
    /// A fixed seed for practice tables (tests); random otherwise.
    pub seed: Option<u64>,
    /// Bot thinking time (ms, least and most).
    pub think_ms: (u64, u64),
}

impl Flags {
    /// From the command line.
    pub fn from_args(args: Args) -> Flags {
        Flags {
            data_dir: args
                .data_dir
                .or_else(default_data_dir)
                .unwrap_or_else(|| PathBuf::from(".shanghai-mahjong")),
            lang: args.lang,
            practice: args.practice,
            seed: None,
            think_ms: (350, 900),
        }
    }
}

/// The phases of the app.
pub enum Screen {
    /// First run: the name.
    Welcome(welcome::State),
    /// Practice set-up.
    Home(home::State),
    /// At a table.
    Table(Box<table::State>),
    /// The scorer for a game with real tiles.
    Scorer(Box<scorer::State>),
    /// The history of finished hands.
    History(Box<history::State>),
    /// A finished hand replayed.
    Replay(Box<replay::State>),
    /// Every friend's statistics, practice apart.
    Stats(Box<stats::State>),
    /// The LAN lobby ([`App::lobby`]).
    Lobby,
}

/// Everything the app is told.
#[derive(Clone, Debug)]
pub enum Message {
    /// The welcome screen.
    Welcome(welcome::Message),
    /// The home screen.
    Home(home::Message),
    /// The table.
    Table(table::Message),
    /// The scorer.
    Scorer(scorer::Message),
    /// The rules screen.
    Rules(rules::Message),
    /// Open the rules of the table being played (over the table, which keeps running).
    OpenRules,
    /// Switch language.
    ToggleLang,
    /// Switch tile faces.
    ToggleFaces,
    /// The window's size.
    Resized(Size),
    /// Step the sound's volume (off, low, medium, high).
    ToggleSound,
    /// Reduce the table's motions, or let them run again.
    ToggleMotion,
    /// The monitor the window opened on (to shrink a window that does not fit).
    Monitor(window::Id, Option<Size>),
    /// Open the history.
    OpenHistory,
    /// The history screen.
    History(history::Message),
    /// The replay screen.
    Replay(replay::Message),
    /// Open the statistics.
    OpenStats,
    /// The statistics screen.
    Stats(stats::Message),
    /// The review screen.
    Review(review::Message),
    /// The lobby.
    Lobby(lobby::Message),
    /// From the LAN thread.
    Lan(lan::Feed),
    /// The table talk panel (a LAN table).
    Talk(talk::Message),
}

/// The app.
pub struct App {
    /// Remembered settings.
    pub settings: Settings,
    data_dir: PathBuf,
    /// The current phase.
    pub screen: Screen,
    /// The rules, open over the current phase.
    pub rules: Option<rules::State>,
    /// A LAN table resumed after a restart whose other players have not spoken yet: the
    /// table says what it waits for.
    pub resuming: bool,
    /// The review of a hand (复盘), open over the settlement or the replay.
    pub review: Option<review::State>,
    /// A friends' table watched (not played): its host's name.
    pub watching: Option<String>,
    /// A problem to show (e.g. settings that could not be read or saved).
    pub notice: Option<String>,
    /// Why the data dir cannot keep games, if it cannot: the app runs without saving and
    /// says so in the current language.
    pub dir_problem: Option<crate::settings::DirProblem>,
    /// The settings file could not be read (the defaults are used).
    settings_unreadable: bool,
    /// The store (`mahjong.sqlite3`) was found damaged at start: where it was set aside as it
    /// was, or why it could not be (said on the home screen).
    pub store_damaged: Option<Result<std::path::PathBuf, String>>,
    /// A practice journal of an app before this one was found at start and set aside
    /// ([`crate::session::set_aside_old_journal`]): the home screen says so.
    pub old_practice: bool,
    /// The table's sounds (silent until [`App::enable_sound`]).
    pub sound: crate::sound::Sound,
    /// The countdown second last sounded.
    last_beep: Option<u64>,
    /// `--practice PRESET --autoplay --hands N`: hands still to play before the app exits.
    pub autoplay: Option<u32>,
    /// `--practice PRESET --autoplay`: a hand was not signed by all four or the table
    /// stopped. The app has exited; [`crate::run`] then says so to `main`, which exits 1.
    pub autoplay_failed: bool,
    /// The size the screens are laid out at (the window's logical size divided by
    /// [`App::scale`]).
    pub size: Size,
    /// The app's scale factor: tiles, text and panels grow with a window larger than
    /// [`crate::settings::DESIGN`] ([`crate::settings::scale_for`]).
    pub scale: f32,
    /// No window size was remembered at start: the first monitor seen sizes the window.
    grow: bool,
    generation: u64,
    practice: Option<Ruleset>,
    seed: Option<u64>,
    think_ms: (u64, u64),
    home: home::State,
    /// The LAN lobby (kept while on other screens: the tables stay live).
    pub lobby: lobby::State,
    /// The LAN side's key while it runs.
    pub lan: Option<LanKey>,
    lan_options: LanOptions,
    link: Option<Link>,
    /// At a LAN table, the key of each friend at their own seat (whose link the lobby
    /// knows); `None` for the player's seat, bots and empty seats.
    friends: [Option<ed25519_dalek::VerifyingKey>; 4],
    /// The talk at the LAN table sat at last (shown beside a LAN table).
    pub talk: Option<talk::State>,
}

impl App {
    /// Boots: reads the settings, then the welcome screen, the home screen or a table.
    pub fn new(flags: Flags) -> (App, Task<Message>) {
        let dir_problem = crate::settings::check_data_dir(&flags.data_dir).err();
        let (mut settings, settings_unreadable) = match Settings::load(&flags.data_dir) {
            Ok(s) => (s, false),
            Err(_) => {
                // Kept as it was beside the defaults that will be saved over its name.
                let file = flags.data_dir.join(crate::settings::FILE);
                let _ = std::fs::rename(&file, file.with_extension("json.unreadable"));
                (Settings::default(), dir_problem.is_none())
            }
        };
        let mut app = App {
            settings: Settings::default(),
            data_dir: flags.data_dir,
            screen: Screen::Home(home::State::default()),
            rules: None,
            review: None,
            notice: None,
            resuming: false,
            watching: None,
            store_damaged: None,
            old_practice: false,
            dir_problem,
            settings_unreadable,
            sound: crate::sound::Sound::silent(),
            last_beep: None,
            autoplay: None,
            autoplay_failed: false,
            size: Size::new(1280.0, 800.0),
            scale: 1.0,
            grow: false,
            generation: 0,
            practice: flags.practice,
            seed: flags.seed,
            think_ms: flags.think_ms,
            home: home::State::default(),
            lobby: lobby::State::default(),
            lan: None,
            lan_options: LanOptions::default(),
            link: None,
            friends: Default::default(),
            talk: None,
        };
        if let Some(l) = flags.lang {
            settings.lang = l;
        }
        app.settings = settings;
        app.lobby.relay = app.settings.relay.clone().unwrap_or_default();
        if let Some(saved) = &app.settings.levels {
            for (level, name) in app.home.levels.iter_mut().zip(saved) {
                if let Ok(l) = name.parse() {
                    *level = l;
                }
            }
        }
        if flags.lang.is_some() {
            app.save();
        }
        if app.dir_problem.is_none() {
            app.store_damaged = check_store(&app.data_dir);
        }
        if app.dir_problem.is_none() {
            app.old_practice = crate::session::set_aside_old_journal(&app.data_dir);
        }
        let saved = (app.dir_problem.is_none() && !app.settings.name.is_empty())
            .then(|| crate::session::practice_to_resume(&app.data_dir))
            .flatten();
        app.screen = if app.settings.name.is_empty() {
            Screen::Welcome(welcome::State::default())
        } else if let Some(r) = app.practice.take() {
            app.home.set_ruleset(r);
            app.table()
        } else if let Some(saved) = saved {
            // A practice table killed mid-hand comes back where it was.
            app.resumed(saved)
        } else {
            Screen::Home(app.home.clone())
        };
        // Laid out at the scale the window's opening size calls for.
        app.grow = app.settings.window.is_none();
        let (w, h) = crate::settings::opening_size(&app.settings);
        app.scale = crate::settings::scale_for((w, h));
        app.size = Size::new(w / app.scale, h / app.scale);
        let focus = match app.screen {
            Screen::Welcome(_) => iced::widget::operation::focus(welcome::NAME_FIELD),
            _ => Task::none(),
        };
        // A window larger than its screen shrinks to fit (a 1024 × 600 netbook).
        let fit = window::latest().then(|id| match id {
            Some(id) => window::monitor_size(id).map(move |m| Message::Monitor(id, m)),
            None => Task::none(),
        });
        (app, Task::batch([focus, fit]))
    }

    fn lang(&self) -> Lang {
        self.settings.lang
    }

    /// `--practice PRESET --autoplay --hands N`: the practice table at start plays `hands`
    /// hands with the master computer player in the player's seat, each hand printed on
    /// standard error, and the app exits once the last one is booked in the ledger.
    pub fn practice_autoplay(&mut self, hands: u32) {
        if !matches!(self.screen, Screen::Table(_)) {
            if self.settings.name.is_empty() {
                self.settings.name = "Autoplay".into();
            }
            if let Some(r) = self.practice.take() {
                self.home.set_ruleset(r);
            }
            self.screen = self.table();
        }
        if let Screen::Table(t) = &mut self.screen
            && !t.is_lan()
        {
            t.key.config.length = mahjong_rules::SessionLength::Hands(hands.max(1));
            // Nobody watches the bots think: they play at once.
            t.key.config.think_ms = (0, 0);
            t.key.autoplay = true;
            self.autoplay = Some(hands.max(1));
        }
    }

    /// `--practice PRESET --autoplay` cannot go on (said on standard error already): the app
    /// exits, with [`App::autoplay_failed`] for the process's exit status. Nothing more is
    /// printed for the session while the window closes.
    fn autoplay_fails(&mut self) -> Task<Message> {
        self.autoplay = None;
        self.autoplay_failed = true;
        iced::exit()
    }

    /// Opens the sound device (the real window; tests stay silent but still see the cues).
    pub fn enable_sound(&mut self) {
        self.sound = crate::sound::Sound::start();
    }

    /// Plays what a table message sounds like ([`heard`]), once the screen has taken it: no
    /// sound while a killed table is played back, a prompt only when the player must answer
    /// it, each of the last five seconds once.
    fn play_cue(&mut self, heard: Heard) {
        use crate::sound::Cue;
        let Screen::Table(t) = &self.screen else {
            return;
        };
        if t.replaying {
            return;
        }
        let cue = match heard {
            Heard::Nothing => None,
            Heard::Now(c) => Some(c),
            Heard::IfPrompt => (!t.legal().is_empty()).then_some(Cue::YourTurn),
            Heard::IfLastSeconds => match t.seconds_left() {
                Some(s) if (1..=5).contains(&s) && self.last_beep != Some(s) => {
                    self.last_beep = Some(s);
                    Some(Cue::LastSeconds)
                }
                _ => None,
            },
        };
        if let Some(c) = cue {
            self.sound.play(c, self.settings.volume());
        }
    }

    fn save(&mut self) {
        // Without a usable data dir the problem is said once, at the top.
        if self.dir_problem.is_some() {
            return;
        }
        if let Err(e) = self.settings.save(&self.data_dir) {
            let problem = match &e {
                crate::settings::SettingsError::Io { source, .. } => {
                    crate::settings::DirProblem::of(source)
                }
                crate::settings::SettingsError::Malformed { .. } => {
                    crate::settings::DirProblem::Other
                }
            };
            let lang = self.lang();
            self.notice = Some(lang.f(
                T::SettingsUnsaved,
                &[&self.data_dir.display(), &lang.t(dir_problem_text(problem))],
            ));
        }
    }

    /// What the home screen says of a store found damaged at start, in the current language:
    /// what the app did with the file and what the player can do.
    pub fn store_damaged_text(&self) -> Option<String> {
        let lang = self.lang();
        let db = self.data_dir.join(mahjong_store::DB_FILE);
        let damaged = self.store_damaged.as_ref().map(|d| match d {
            Ok(aside) => lang.f(T::StoreSetAside, &[&db.display(), &aside.display()]),
            Err(why) => lang.f(T::StoreDamagedKept, &[&db.display(), why]),
        });
        let old = self
            .old_practice
            .then(|| lang.t(T::OldPracticeSetAside).to_string());
        match (damaged, old) {
            (Some(d), Some(o)) => Some(format!("{d}\n{o}")),
            (d, o) => d.or(o),
        }
    }

    /// The problem with the data dir or the settings, in the current language.
    fn data_notice(&self) -> Option<String> {
        let lang = self.lang();
        if let Some(p) = self.dir_problem {
            return Some(lang.f(
                T::DataDirUnusable,
                &[&self.data_dir.display(), &lang.t(dir_problem_text(p))],
            ));
        }
        self.settings_unreadable.then(|| {
            lang.f(
                T::SettingsUnreadable,
                &[&self.data_dir.join(crate::settings::FILE).display()],
            )
        })
    }

    fn table(&mut self) -> Screen {
        let choice = self.home.editor.choice().ok();
        self.generation += 1;
        let seed = self.seed.unwrap_or_else(|| {
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
        });
        let ruleset = self.home.ruleset();
        let mut config = PracticeConfig {
            levels: self.home.levels,
            think_ms: self.think_ms,
            ..PracticeConfig::new(ruleset, seed)
        };
        if let Some(c) = choice {
            config.options = Some(c.options);
            config.stake = c.stake;
            config.length = c.length;
        }
        let mut state = table::State::new(config, self.generation);
        state.reduce_motion = self.settings.reduce_motion;
        // Hands are kept in the history only where the data dir can keep them.
        state.key.record = self.dir_problem.is_none().then(|| session::RecordTo {
            dir: self.data_dir.clone(),
            name: self.settings.name.clone(),
        });
        Screen::Table(Box::new(state))
    }

    /// The table screen of a practice table seated again from the store.
    fn resumed(&mut self, config: crate::engine::PracticeConfig) -> Screen {
        self.generation += 1;
        self.home.set_ruleset(config.ruleset);
        let mut state = table::State::new(config, self.generation);
        state.reduce_motion = self.settings.reduce_motion;
        state.key.record = Some(session::RecordTo {
            dir: self.data_dir.clone(),
            name: self.settings.name.clone(),
        });
        state.key.resume = true;
        Screen::Table(Box::new(state))
    }

    /// Applies the command line's LAN choices: the name, then the LAN at start (with
    /// `--lobby`, `--autoplay`, `--peer`, or a table in the store to resume).
    pub fn connect(&mut self, options: LanOptions) -> Task<Message> {
        if let Some(n) = &options.name {
            let n = n.trim().to_string();
            if !n.is_empty() && n != self.settings.name {
                self.settings.name = n;
                self.save();
            }
            // A fresh data dir given its name on the command line: `--practice` goes
            // straight to the table as it does for a known player.
            if matches!(self.screen, Screen::Welcome(_)) {
                self.screen = match self.practice.take() {
                    Some(r) => {
                        self.home.set_ruleset(r);
                        self.table()
                    }
                    None => Screen::Home(self.home.clone()),
                };
            }
        }
        let start = options.at_start() || lan::table_to_resume(&self.data_dir);
        let lobby = options.lobby || options.autoplay.is_some();
        self.lan_options = options;
        if start && !self.settings.name.is_empty() {
            self.start_lan();
            if lobby {
                self.screen = Screen::Lobby;
            }
        }
        Task::none()
    }

    fn start_lan(&mut self) {
        if self.lan.is_none() {
            let o = &self.lan_options;
            self.lan = Some(LanKey {
                data_dir: self.data_dir.clone(),
                name: self.settings.name.clone(),
                peers: o.peers.clone(),
                listen: o.listen.clone(),
                mdns: o.mdns,
                autoplay: o.autoplay.clone(),
            });
        }
    }

    /// Starts a LAN table screen for `roster` (set-up agreed, or resumed from the store).
    fn lan_table(&mut self, roster: &mahjong_net::Roster) {
        let Some(link) = self.link.clone() else {
            return;
        };
        let lang = self.lang();
        let a = &roster.advert;
        let names = seat_names(lang, roster);
        let me = a
            .seats
            .iter()
            .position(|s| s.as_ref().is_some_and(|s| !s.bot && s.peer == link.me))
            .unwrap_or(0) as mahjong_rules::Seat;
        // The agreed set-up (the proposal every seat signed) where the lobby saw it; a
        // resumed table shows the advert's preset and stake.
        let agreed = self
            .lobby
            .seated
            .as_ref()
            .and_then(|s| s.proposal.as_ref())
            .map(|(p, _)| p.clone());
        let config = PracticeConfig {
            length: mahjong_rules::SessionLength::Hands(a.hands),
            stake: agreed.as_ref().map_or(a.stake, |p| p.stake),
            options: agreed.map(|p| p.options),
            ..PracticeConfig::new(a.preset, 0)
        };
        self.generation += 1;
        let mut t = table::State::lan(config, self.generation, me, names);
        t.reduce_motion = self.settings.reduce_motion;
        self.friends = std::array::from_fn(|i| match &a.seats[i] {
            Some(s) if !s.bot && i != me as usize => Some(s.peer),
            _ => None,
        });
        t.links = self.links();
        // Under --autoplay the master bot plays the seat in the network loop: the screen only
        // shows the table.
        if self.lan_options.autoplay.is_none() {
            let _ = t.update(table::Message::Feed(session::Feed::Ready(
                link.table.clone(),
            )));
        }
        self.lobby.seated = None;
        // The table is in play now: its last advert (open, with this player seated) must not
        // come back in the lobby when the player leaves it; the network's next list says what
        // is open then.
        self.lobby.tables.retain(|a| a.table != roster.advert.table);
        self.talk = Some(talk::State::at(
            self.data_dir.clone(),
            link.me,
            roster,
            false,
        ));
        self.screen = Screen::Table(Box::new(t));
    }

    /// Starts the screen of a friends' table watched: every seat's public side from its
    /// host's chair, nothing to play, the hands face up at each hand's end.
    fn watch_table(&mut self, roster: &mahjong_net::Roster) {
        let lang = self.lang();
        let a = &roster.advert;
        let names = seat_names(lang, roster);
        let config = PracticeConfig {
            length: mahjong_rules::SessionLength::Hands(a.hands),
            stake: a.stake,
            ..PracticeConfig::new(a.preset, 0)
        };
        self.generation += 1;
        let me = roster.host_seat;
        let mut t = table::State::lan(config, self.generation, me, names.clone());
        // Only looked at: nothing is sent from this screen (no command channel is given).
        t.watched = true;
        t.reduce_motion = self.settings.reduce_motion;
        self.watching = Some(mahjong_store::clean_name(&names[me as usize & 3]));
        self.friends = [None; 4];
        self.talk = self
            .link
            .as_ref()
            .map(|l| talk::State::at(self.data_dir.clone(), l.me, roster, true));
        self.screen = Screen::Table(Box::new(t));
    }

    /// Stops watching: back in the lobby, with why when the watch ended by itself.
    fn stop_watching(&mut self, why: Option<String>) {
        if let Some(l) = &self.link {
            l.send(Request::StopWatching);
        }
        let was = self.watching.take().is_some();
        if was || why.is_some() {
            self.lobby.notice = why;
        }
        if was && matches!(self.screen, Screen::Table(_)) {
            self.screen = Screen::Lobby;
        }
    }

    /// Each friend's link at a table met over the internet (a LAN table shows none: every
    /// link there is direct).
    fn links(&self) -> [Option<bool>; 4] {
        std::array::from_fn(|i| self.lobby.link_of(self.friends[i].as_ref()?))
    }

    fn on_lan(&mut self, feed: lan::Feed) -> Task<Message> {
        let lang = self.lang();
        match feed {
            lan::Feed::Ready(link) => {
                self.lobby.link = Some(link.clone());
                self.link = Some(link);
            }
            lan::Feed::Net(mahjong_net::NetEvent::Resumed { roster, .. }) => {
                // Where the table stands comes next, in the session's feed.
                self.lan_table(&roster);
                self.resuming = true;
            }
            lan::Feed::Net(mahjong_net::NetEvent::Watching { roster }) => {
                self.lobby.watch_asked = None;
                self.watch_table(&roster);
            }
            lan::Feed::Net(mahjong_net::NetEvent::WatchRefused { reason }) => {
                self.lobby.watch_asked = None;
                let why = if reason.contains("takes no watchers") {
                    lang.t(T::WatchNoWatchers).to_string()
                } else if reason.contains("watchers already") {
                    lang.t(T::WatchFull).to_string()
                } else if reason.contains("turned you away") {
                    lang.t(T::WatchTurnedAway).to_string()
                } else {
                    lang.f(
                        T::WatchOther,
                        &[&crate::i18n::network_detail(lang, &reason)],
                    )
                };
                self.stop_watching(Some(why));
            }
            lan::Feed::Net(mahjong_net::NetEvent::Lied { .. }) => {
                let host = self.watching.clone().unwrap_or_default();
                self.stop_watching(Some(lang.f(T::WatchLied, &[&host])));
            }
            lan::Feed::Net(mahjong_net::NetEvent::Following { .. }) => {
                // The seat is the bot's now: the table goes on before the player's eyes,
                // who is told so (the own hand no longer changes).
                if let Screen::Table(t) = &mut self.screen {
                    t.replaced[t.me as usize & 3] = true;
                }
            }
            lan::Feed::Net(ev) => {
                if let Some(talk) = &mut self.talk {
                    talk.on_net(&ev);
                }
                // The relay every friend was linked through is gone, or back: said at the
                // table (it waits for the relay, not for silent seats).
                let relay = match &ev {
                    mahjong_net::NetEvent::RelayLost { relay, direct: 0 } => {
                        Some(Some(relay.to_string()))
                    }
                    mahjong_net::NetEvent::RelayReserved(_) => Some(None),
                    _ => None,
                };
                if let Some(gone) = relay
                    && let Screen::Table(t) = &mut self.screen
                    && t.is_lan()
                {
                    t.relay_gone = gone;
                }
                let link = matches!(
                    ev,
                    mahjong_net::NetEvent::Link { .. } | mahjong_net::NetEvent::Disconnected(_)
                );
                if self.lobby.on_net(ev, lang)
                    && let Some(s) = self.lobby.seated.clone()
                {
                    self.lan_table(&s.roster);
                }
                if link {
                    let links = self.links();
                    if let Screen::Table(t) = &mut self.screen
                        && t.is_lan()
                    {
                        t.links = links;
                    }
                }
            }
            lan::Feed::Table(feed) => {
                if let Screen::Table(t) = &mut self.screen
                    && t.is_lan()
                {
                    if self.resuming
                        && let session::Feed::Update(u) = &feed
                        && others_spoke(u, t.me)
                    {
                        self.resuming = false;
                    }
                    let _ = t.update(table::Message::Feed(feed));
                }
            }
            lan::Feed::Refused(why) => self.lobby.refused(why, lang),
            lan::Feed::Unsaid(why) => {
                if let Some(talk) = &mut self.talk {
                    talk.refused(&why);
                }
            }
            lan::Feed::Failed(why) => {
                let why = crate::i18n::network_detail(lang, &why);
                self.lobby.notice = Some(lang.f(T::LanProblem, &[&why]));
                self.notice = Some(lang.f(T::LanProblem, &[&why]));
            }
            lan::Feed::Done => return iced::exit(),
            lan::Feed::Strangers(s) => self.lobby.strangers = s,
        }
        Task::none()
    }

    /// The window title: the app, and at a table the hand and whether it is over (scripts
    /// driving the window read it).
    pub fn title(&self) -> String {
        let lang = self.lang();
        let app = lang.t(T::AppTitle);
        match &self.screen {
            // The result shown names its own hand (at a LAN table the next hand may already
            // be under way behind it).
            Screen::Table(t) if t.end.is_some() => {
                let hand = t.end.as_ref().map_or(t.hand, |e| e.result.hand);
                format!("{app} · {}", lang.f(T::HandResult, &[&hand]))
            }
            Screen::Table(t) if t.hand > 0 => format!("{app} · {}", lang.f(T::HandNo, &[&t.hand])),
            _ => app.to_string(),
        }
    }

    /// The theme.
    pub fn theme(&self) -> Theme {
        Theme::Dark
    }

    /// Handles a message.
    pub fn update(&mut self, message: Message) -> Task<Message> {
        match message {
            Message::ToggleLang => {
                self.settings.lang = self.lang().other();
                self.save();
            }
            Message::ToggleFaces => {
                self.settings.faces = self.settings.faces.next();
                self.save();
            }
            Message::Resized(s) => {
                // Reported at the scale in force: the window's size is that times it.
                let window = (s.width * self.scale, s.height * self.scale);
                self.scale = crate::settings::scale_for(window);
                self.size = Size::new(window.0 / self.scale, window.1 / self.scale);
                let remembered = Some((window.0.round() as u32, window.1.round() as u32));
                if self.settings.window != remembered {
                    self.settings.window = remembered;
                    self.save();
                }
            }
            Message::Monitor(id, Some(m)) => {
                let window = (self.size.width * self.scale, self.size.height * self.scale);
                // A first run opens on most of a large screen; any window larger than its
                // screen shrinks to fit.
                let first = std::mem::take(&mut self.grow)
                    .then(|| crate::settings::first_size_on((m.width, m.height)))
                    .flatten();
                if let Some((w, h)) =
                    first.or_else(|| crate::settings::fit_to_monitor(window, (m.width, m.height)))
                {
                    return window::resize(id, Size::new(w, h));
                }
            }
            Message::Monitor(_, None) => {}
            Message::Welcome(m) => {
                if let Screen::Welcome(w) = &mut self.screen
                    && let Some(name) = w.update(m)
                {
                    self.settings.name = name;
                    self.save();
                    self.screen = match self.practice.take() {
                        Some(r) => {
                            self.home.set_ruleset(r);
                            self.table()
                        }
                        None => Screen::Home(self.home.clone()),
                    };
                }
            }
            Message::Lobby(m) => {
                if matches!(self.screen, Screen::Lobby)
                    && self.lobby.update(m, self.settings.lang) == lobby::Exit::Home
                {
                    self.screen = Screen::Home(self.home.clone());
                }
                // The relay met at is remembered for the next time.
                let used = self.lobby.meeting.as_ref().map(|(_, relay)| relay.clone());
                if used.is_some() && used != self.settings.relay {
                    self.settings.relay = used;
                    self.save();
                }
            }
            Message::Lan(feed) => return self.on_lan(feed),
            Message::Talk(m) => {
                // Sent to the LAN thread and never waited for: talk holds up no move.
                let lang = self.lang();
                if let talk::Message::TurnAway(name) = &m {
                    if let Some(link) = &self.link {
                        link.send(Request::TurnAway(name.clone()));
                    }
                    return Task::none();
                }
                let typed = matches!(m, talk::Message::Send);
                if let Some(line) = self.talk.as_mut().and_then(|t| t.update(m, lang))
                    && let Some(link) = &self.link
                {
                    link.send(Request::Say(line));
                    if typed {
                        // The field lets go of the keyboard: the table's keys play again.
                        return talk::leave_field();
                    }
                }
            }
            Message::Home(m) => {
                if let Screen::Home(h) = &mut self.screen {
                    let levels = matches!(m, home::Message::Level(_));
                    let exit = h.update(m);
                    self.home = h.clone();
                    if levels {
                        self.settings.levels = Some(self.home.levels.map(|l| l.to_string()));
                        self.save();
                    }
                    match exit {
                        home::Exit::Stay => {}
                        home::Exit::Start(_) => self.screen = self.table(),
                        home::Exit::Scorer => {
                            self.screen = Screen::Scorer(Box::default());
                        }
                        home::Exit::Rules => {
                            let o = self.home.editor.options().clone();
                            self.rules = Some(rules::State::new(o, false));
                        }
                        home::Exit::Lobby => {
                            self.start_lan();
                            self.screen = Screen::Lobby;
                        }
                    }
                }
            }
            Message::Scorer(m) => {
                if let Screen::Scorer(s) = &mut self.screen
                    && s.update(m)
                {
                    self.screen = Screen::Home(self.home.clone());
                }
            }
            Message::OpenRules => {
                if let Screen::Table(t) = &mut self.screen {
                    self.rules = Some(rules::State::new(t.config().options(), true));
                    // A practice table waits while its rules are read.
                    t.hold(true);
                }
            }
            Message::Rules(rules::Message::Back) => {
                self.rules = None;
                if let Screen::Table(t) = &mut self.screen {
                    t.hold(false);
                }
            }
            // The table's shortcuts wait while the rules are read over it.
            Message::Table(table::Message::Key(_)) if self.rules.is_some() => {}
            // Over the review, Escape goes back; other shortcuts wait.
            Message::Table(table::Message::Key(k)) if self.review.is_some() => {
                if k == Key::Escape {
                    self.review = None;
                }
            }
            Message::Review(m) => {
                if let Some(r) = &mut self.review
                    && r.update(m)
                {
                    self.review = None;
                }
            }
            Message::Replay(replay::Message::Review) => {
                if let Screen::Replay(r) = &self.screen {
                    return self.open_review(r.table, r.hand);
                }
            }
            Message::OpenHistory | Message::History(_) | Message::Replay(_) => {
                return self.history_update(message);
            }
            Message::OpenStats => {
                self.rules = None;
                let (state, task) = stats::State::open(self.data_dir.clone());
                self.screen = Screen::Stats(Box::new(state));
                return task.map(Message::Stats);
            }
            Message::Stats(m) => {
                if let Screen::Stats(s) = &mut self.screen
                    && s.update(m)
                {
                    self.screen = Screen::Home(self.home.clone());
                }
            }
            Message::Table(table::Message::Key(k)) if matches!(self.screen, Screen::Replay(_)) => {
                let m = match k {
                    Key::Left => replay::Message::Back,
                    Key::Right => replay::Message::Forward,
                    Key::Escape => replay::Message::Close,
                    _ => return Task::none(),
                };
                return self.history_update(Message::Replay(m));
            }
            Message::Table(table::Message::Feed(session::Feed::Update(
                crate::engine::Update::HandEnded(end),
            ))) if self.autoplay.is_some() => {
                let signatures = if end.signed_by_all { 4 } else { 0 };
                eprintln!("{}", crate::lan::hand_line(&end.result, signatures));
                if !end.signed_by_all || !end.audited {
                    eprintln!("shanghai-mahjong: the hand was not signed by all four");
                    return self.autoplay_fails();
                }
                let over = end.result.session.is_finished();
                let left = self.autoplay.map_or(0, |n| n.saturating_sub(1));
                self.autoplay = Some(left);
                if let Screen::Table(t) = &mut self.screen {
                    let _ = t.update(table::Message::Feed(session::Feed::Update(
                        crate::engine::Update::HandEnded(end),
                    )));
                    if over || left == 0 {
                        eprintln!("session over: {left} hands left to play, booked in the ledger");
                        return iced::exit();
                    }
                    let _ = t.update(table::Message::Next);
                }
            }
            Message::Table(table::Message::Feed(session::Feed::Update(
                crate::engine::Update::Failed(why),
            ))) if self.autoplay.is_some() => {
                eprintln!("shanghai-mahjong: the practice table stopped: {why}");
                return self.autoplay_fails();
            }
            Message::Table(m) => {
                let sound = heard(&m);
                let exit = match &mut self.screen {
                    Screen::Table(t) => t.update(m),
                    _ => Exit::Stay,
                };
                if let Exit::Review(table, hand) = exit {
                    self.play_cue(sound);
                    return self.open_review(table, hand);
                }
                if exit == Exit::Leave && self.watching.is_some() {
                    self.stop_watching(None);
                    self.play_cue(sound);
                    return Task::none();
                }
                if let Screen::Table(t) = &mut self.screen
                    && exit == Exit::Leave
                {
                    self.screen = if t.is_lan() {
                        // Leaving a LAN table: the others vote the seat out or a bot takes it.
                        if let Some(l) = &self.link {
                            if !t.over {
                                l.send(Request::Leave);
                            }
                            // Back in the lobby, free to open or take another table.
                            l.send(Request::Stand);
                        }
                        Screen::Lobby
                    } else {
                        // A practice table left is not resumed.
                        crate::session::leave_practice(&self.data_dir);
                        Screen::Home(self.home.clone())
                    };
                }
                self.play_cue(sound);
            }
            Message::ToggleMotion => {
                self.settings.reduce_motion = !self.settings.reduce_motion;
                if let Screen::Table(t) = &mut self.screen {
                    t.reduce_motion = self.settings.reduce_motion;
                    if t.reduce_motion {
                        t.motion = None;
                    }
                }
                self.save();
            }
            Message::ToggleSound => {
                let now = self.settings.volume();
                let at = crate::sound::VOLUMES
                    .iter()
                    .position(|&v| v >= now)
                    .unwrap_or(0);
                let next = crate::sound::VOLUMES[(at + 1) % crate::sound::VOLUMES.len()];
                self.settings.volume = Some(next);
                self.save();
            }
        }
        Task::none()
    }

    /// Opens the review of hand `hand` of `table` over the current screen.
    fn open_review(&mut self, table: [u8; 32], hand: u32) -> Task<Message> {
        let (state, task) = review::State::open(self.data_dir.clone(), table, hand);
        self.review = Some(state);
        task.map(Message::Review)
    }

    /// The history and replay screens' messages.
    fn history_update(&mut self, message: Message) -> Task<Message> {
        match message {
            Message::OpenHistory => {
                // Asked for from the top bar over the rules (opened from home): the history
                // is what the player wants to see, not the rules left over it.
                self.rules = None;
                let (state, task) = history::State::open(self.data_dir.clone());
                self.screen = Screen::History(Box::new(state));
                task.map(Message::History)
            }
            Message::History(m) => {
                let Screen::History(h) = &mut self.screen else {
                    return Task::none();
                };
                match h.update(m) {
                    (history::Exit::Stay, task) => task.map(Message::History),
                    (history::Exit::Home, _) => {
                        self.screen = Screen::Home(self.home.clone());
                        Task::none()
                    }
                    (history::Exit::Replay(table, hand), _) => {
                        let back = match std::mem::replace(
                            &mut self.screen,
                            Screen::Home(self.home.clone()),
                        ) {
                            Screen::History(h) => Some(h),
                            _ => None,
                        };
                        let (state, task) =
                            replay::State::open(self.data_dir.clone(), table, hand, back);
                        self.screen = Screen::Replay(Box::new(state));
                        task.map(Message::Replay)
                    }
                }
            }
            Message::Replay(m) => {
                if let Screen::Replay(r) = &mut self.screen
                    && r.update(m)
                {
                    match r.back.take() {
                        Some(h) => self.screen = Screen::History(h),
                        None => return self.history_update(Message::OpenHistory),
                    }
                }
                Task::none()
            }
            _ => Task::none(),
        }
    }

    /// The practice table's set-up, when at a table (tests run the same engine themselves).
    pub fn table_key(&self) -> Option<&session::TableKey> {
        match &self.screen {
            Screen::Table(t) => Some(&t.key),
            _ => None,
        }
    }

    /// The table screen, when at a table.
    pub fn table_state(&self) -> Option<&table::State> {
        match &self.screen {
            Screen::Table(t) => Some(t),
            _ => None,
        }
    }

    /// The subscriptions: the table's worker and countdown, keys, window size.
    pub fn subscription(&self) -> Subscription<Message> {
        let mut subs = vec![
            window::resize_events().map(resized),
            keyboard::listen().filter_map(key_message),
        ];
        if let Some(k) = &self.lan {
            subs.push(lan::subscription(k.clone()).map(Message::Lan));
        }
        if let Screen::Table(t) = &self.screen {
            if !t.is_lan() {
                subs.push(session::practice(t.key.clone()).map(feed));
            }
            if t.counting() {
                subs.push(session::every(500).map(tick));
            }
            // The window's frames only while something moves: an idle table costs nothing.
            if t.motion.is_some() {
                subs.push(window::frames().map(frame));
            }
        }
        if matches!(self.screen, Screen::Lobby) && self.lobby.counting() {
            subs.push(session::every(500).map(lobby_tick));
        }
        Subscription::batch(subs)
    }

    fn top_bar(&self) -> Element<'_, Message> {
        let lang = self.lang();
        let faces = faces_label(self.settings.faces);
        let mut r = row![label(lang.t(T::AppTitle), 18.0, ACCENT)]
            .spacing(12)
            .align_y(Alignment::Center);
        if let Screen::Table(t) = &self.screen {
            r = r.push(label(
                lang.t(crate::screens::preset_name(t.config().ruleset)),
                15.0,
                MUTED,
            ));
        }
        if matches!(self.screen, Screen::Table(_)) && self.rules.is_none() {
            r = r.push(
                button(text(lang.t(T::RulesButton)).size(14))
                    .style(button::secondary)
                    .on_press(Message::OpenRules),
            );
        }
        let following = match &self.screen {
            Screen::Table(_) if self.watching.is_some() => Some(lang.f(
                T::WatchingBanner,
                &[&self.watching.as_deref().unwrap_or_default()],
            )),
            Screen::Table(t) if t.is_lan() && t.replaced[t.me as usize & 3] => {
                Some(lang.t(T::FollowingSeat).to_string())
            }
            Screen::Table(t) if t.is_lan() && self.resuming => {
                let names = t.names(lang.t(T::You));
                let others: Vec<String> = (0..4u8)
                    .filter(|&s| s != t.me)
                    .map(|s| names.of(lang, s))
                    .collect();
                let sep = match lang {
                    Lang::En => ", ",
                    Lang::Zh => "、",
                };
                Some(lang.f(T::ResumingWait, &[&others.join(sep)]))
            }
            _ => None,
        };
        if let Some(n) = following
            .or_else(|| self.notice.clone())
            .or_else(|| self.data_notice())
        {
            r = r.push(container(label(n, 12.0, WARN)).max_width(self.size.width * 0.5));
        }
        r = r.push(iced::widget::Space::new().width(Length::Fill));
        // Leaving during a hand, said before it is confirmed (the settlement has its own
        // way out). While it is asked, the bar holds only the question and its two answers
        // (the settings' buttons make room: on a 1024-wide window they would not fit).
        let mut asking_leave = false;
        if matches!(self.screen, Screen::Table(_)) && self.watching.is_some() {
            r = r.push(
                button(text(lang.t(T::StopWatching)).size(14))
                    .style(button::secondary)
                    .on_press(Message::Table(table::Message::Stop)),
            );
        } else if let Screen::Table(t) = &self.screen
            && t.end.is_none()
            && self.rules.is_none()
            && !t.over
        {
            if t.confirm_leave {
                asking_leave = true;
                let ask = if t.is_lan() {
                    lang.f(T::LeaveAskLan, &[&t.config().options().leaver_penalty])
                } else {
                    lang.t(T::LeaveAskPractice).to_string()
                };
                r = r
                    .push(container(label(ask, 12.0, WARN)).max_width(self.size.width * 0.45))
                    .push(
                        button(text(lang.t(T::LeaveYes)).size(14))
                            .style(button::danger)
                            .on_press(Message::Table(table::Message::Stop)),
                    )
                    .push(
                        button(text(lang.t(T::LeaveNo)).size(14))
                            .style(button::secondary)
                            .on_press(Message::Table(table::Message::CancelLeave)),
                    );
            } else {
                r = r.push(
                    button(text(lang.t(T::LeaveButton)).size(14))
                        .style(button::secondary)
                        .on_press(Message::Table(table::Message::AskLeave)),
                );
            }
        }
        if matches!(self.screen, Screen::Home(_)) {
            r = r.push(
                button(text(lang.t(T::History)).size(14))
                    .style(button::secondary)
                    .on_press(Message::OpenHistory),
            );
            r = r.push(
                button(text(lang.t(T::StatsButton)).size(14))
                    .style(button::secondary)
                    .on_press(Message::OpenStats),
            );
        }
        let volume = self.settings.volume();
        let sound = if volume == 0 {
            lang.t(T::SoundOff).to_string()
        } else {
            lang.f(T::SoundLevel, &[&volume])
        };
        let motion = lang.t(if self.settings.reduce_motion {
            T::MotionOff
        } else {
            T::MotionOn
        });
        if !asking_leave {
            r = r
                .push(
                    button(text(sound).size(14))
                        .style(button::secondary)
                        .on_press(Message::ToggleSound),
                )
                .push(
                    button(text(motion).size(14))
                        .style(button::secondary)
                        .on_press(Message::ToggleMotion),
                )
                .push(
                    button(text(lang.t(faces)).size(14))
                        .style(button::secondary)
                        .on_press(Message::ToggleFaces),
                )
                .push(
                    button(text(lang.t(T::OtherLang)).size(14))
                        .style(button::secondary)
                        .on_press(Message::ToggleLang),
                );
        }
        // A fixed height: what the bar says never moves the table below it.
        container(r)
            .padding([4, 8])
            .height(Length::Fixed(crate::screens::TOP_BAR))
            .align_y(Alignment::Center)
            .into()
    }

    /// The window's content.
    pub fn view(&self) -> Element<'_, Message> {
        let lang = self.lang();
        let body: Element<'_, Message> = match (&self.screen, &self.rules, &self.review) {
            (_, Some(r), _) => r.view(lang).map(Message::Rules),
            (_, None, Some(r)) => {
                let size = Size::new(self.size.width, self.size.height - crate::screens::TOP_BAR);
                r.view(lang, self.settings.faces, size).map(Message::Review)
            }
            (screen, None, None) => self.screen_view(screen),
        };
        container(column![self.top_bar(), body].height(Length::Fill))
            .width(Length::Fill)
            .height(Length::Fill)
            .style(felt)
            .into()
    }

    fn screen_view<'a>(&'a self, screen: &'a Screen) -> Element<'a, Message> {
        let lang = self.lang();
        match screen {
            Screen::Welcome(w) => w.view(lang).map(Message::Welcome),
            Screen::Home(h) => {
                let home = h.view(lang, &self.settings.name).map(Message::Home);
                match self.store_damaged_text() {
                    Some(said) => column![
                        container(label(said, 15.0, WARN))
                            .padding(12)
                            .width(Length::Fill)
                            .style(crate::screens::panel),
                        home
                    ]
                    .spacing(8)
                    .padding([8, 12])
                    .into(),
                    None => home,
                }
            }
            Screen::Scorer(s) => s.view(lang, self.settings.faces).map(Message::Scorer),
            Screen::Lobby => self.lobby.view(lang).map(Message::Lobby),
            Screen::Table(t) => {
                // At a LAN table the talk panel takes the right of the window.
                let talk = self.talk.as_ref().filter(|_| t.is_lan());
                let aside = talk.map_or(0.0, |_| talk::width(self.size.width));
                let ctx = Ctx {
                    lang,
                    faces: self.settings.faces,
                    name: &self.settings.name,
                    size: Size::new(
                        self.size.width - aside,
                        self.size.height - crate::screens::TOP_BAR,
                    ),
                };
                let table = match &t.end {
                    Some(end) => settle::view(t, end, ctx).map(Message::Table),
                    None => table_view::view(t, ctx).map(Message::Table),
                };
                match talk {
                    Some(talk) => row![
                        container(table).width(Length::Fill),
                        container(talk.view(lang, aside - 6.0).map(Message::Talk)).padding(
                            iced::Padding {
                                left: 0.0,
                                ..iced::Padding::new(6.0)
                            }
                        )
                    ]
                    .into(),
                    None => table,
                }
            }
            Screen::History(h) => h.view(lang).map(Message::History),
            Screen::Stats(s) => s.view(lang).map(Message::Stats),
            Screen::Replay(r) => {
                let size = Size::new(self.size.width, self.size.height - crate::screens::TOP_BAR);
                r.view(lang, self.settings.faces, size).map(Message::Replay)
            }
        }
    }
}

/// What a table message sounds like, decided from the message alone; some cues also depend
/// on the screen after it ([`App::play_cue`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Heard {
    Nothing,
    Now(crate::sound::Cue),
    /// The player's turn, if the prompt is one the player must answer.
    IfPrompt,
    /// A beep, if the countdown is in its last five seconds.
    IfLastSeconds,
}

fn heard(m: &table::Message) -> Heard {
    use crate::engine::Update;
    use crate::sound::Cue;
    use mahjong_rules::Event;
    use mahjong_table::TableEvent;
    match m {
        table::Message::Feed(session::Feed::Update(Update::Table(TableEvent::Moved {
            mv,
            events,
        }))) => {
            let called = events
                .iter()
                .any(|e| matches!(e, Event::Claimed { .. } | Event::Konged { .. }))
                || matches!(
                    mv.action,
                    mahjong_rules::Action::Discard { ready: true, .. }
                );
            if called {
                Heard::Now(Cue::Call)
            } else if events.iter().any(|e| matches!(e, Event::Discarded { .. })) {
                Heard::Now(Cue::Discard)
            } else {
                Heard::Nothing
            }
        }
        table::Message::Feed(session::Feed::Update(Update::Table(TableEvent::YourTurn {
            ..
        }))) => Heard::IfPrompt,
        table::Message::Feed(session::Feed::Update(Update::HandEnded(end)))
            if matches!(end.result.outcome, mahjong_rules::Outcome::Win { .. }) =>
        {
            Heard::Now(Cue::Win)
        }
        table::Message::Tick(_) => Heard::IfLastSeconds,
        _ => Heard::Nothing,
    }
}

fn dir_problem_text(p: crate::settings::DirProblem) -> T {
    match p {
        crate::settings::DirProblem::IsFile => T::DirIsFile,
        crate::settings::DirProblem::ReadOnly => T::DirReadOnly,
        crate::settings::DirProblem::Full => T::DirFull,
        crate::settings::DirProblem::Other => T::DirOther,
    }
}

fn resized((_, size): (window::Id, Size)) -> Message {
    Message::Resized(size)
}

fn feed(f: session::Feed) -> Message {
    Message::Table(table::Message::Feed(f))
}

fn lobby_tick(now: std::time::Instant) -> Message {
    Message::Lobby(lobby::Message::Tick(now))
}

/// The top bar's button for the face set in use (a click steps to the next).
pub fn faces_label(faces: Faces) -> T {
    match faces {
        Faces::Chinese => T::FacesChinese,
        Faces::Notation => T::FacesNotation,
        Faces::Contrast => T::FacesContrast,
    }
}

fn frame(now: std::time::Instant) -> Message {
    Message::Table(table::Message::Frame(now))
}

fn tick(now: std::time::Instant) -> Message {
    Message::Table(table::Message::Tick(now))
}

/// The table's shortcuts (keys typed into a text field never reach here).
pub fn key_message(event: keyboard::Event) -> Option<Message> {
    let keyboard::Event::KeyPressed { key, modifiers, .. } = event else {
        return None;
    };
    if modifiers.control() || modifiers.alt() || modifiers.logo() {
        return None;
    }
    table_key(&key).map(|k| Message::Table(table::Message::Key(k)))
}

/// The shortcut of a key.
pub fn table_key(key: &IcedKey) -> Option<Key> {
    Some(match key.as_ref() {
        IcedKey::Named(Named::ArrowLeft) => Key::Left,
        IcedKey::Named(Named::ArrowRight) => Key::Right,
        IcedKey::Named(Named::Enter) => Key::Discard,
        IcedKey::Named(Named::Space) => Key::Pass,
        IcedKey::Named(Named::Escape) => Key::Escape,
        IcedKey::Character(c) => match c.to_ascii_lowercase().as_str() {
            d @ ("1" | "2" | "3" | "4" | "5" | "6" | "7" | "8" | "9") => {
                Key::Pick(d.parse::<usize>().map_or(0, |n| n - 1))
            }
            "0" => Key::Pick(9),
            "-" => Key::Pick(10),
            "=" => Key::Pick(11),
            "c" => Key::Chow,
            "p" => Key::Pung,
            "k" => Key::Kong,
            "h" => Key::Win,
            "r" => Key::Ready,
            "d" => Key::Discard,
            "n" => Key::Next,
            "?" | "/" => Key::Hint,
            _ => return None,
        },
        _ => return None,
    })
}

/// Whether a table update shows another seat speaking (a resumed table is going on again).
fn others_spoke(u: &crate::engine::Update, me: mahjong_rules::Seat) -> bool {
    use mahjong_table::TableEvent as E;
    match u {
        crate::engine::Update::Table(ev) => match ev {
            E::HandStarted { .. } | E::HandOver { .. } | E::SeatReturned { .. } => true,
            E::Moved { mv, .. } => mv.seat != me,
            _ => false,
        },
        crate::engine::Update::HandEnded(_) => true,
        _ => false,
    }
}

/// Opens the player's store once at start: a file that is not a readable store (overwritten,
/// truncated) is moved aside as it is, named with the local date and time, so that a fresh
/// store keeps the hands from now on; `None` when the store opens (or is not there yet).
fn check_store(dir: &std::path::Path) -> Option<Result<std::path::PathBuf, String>> {
    if !dir.join(mahjong_store::DB_FILE).exists() {
        return None;
    }
    match mahjong_store::Store::open(dir) {
        Err(e @ mahjong_store::StoreError::CorruptDatabase { .. }) => {
            tracing::warn!("the store is damaged: {e}");
            // `2026-12-02-172501`: sortable, and a name every system accepts.
            let now = mahjong_store::now_ms();
            let stamp = format!(
                "{}{:02}",
                crate::screens::history::date(now)
                    .replace(' ', "-")
                    .replace(':', ""),
                now / 1000 % 60
            );
            Some(
                mahjong_store::Store::set_aside_damaged(dir, &stamp)
                    .inspect(|p| tracing::warn!("the damaged store was moved to {}", p.display()))
                    .map_err(|e| e.to_string()),
            )
        }
        _ => None,
    }
}

/// Each seat's name at the table of `roster`: the player's, or for a bot "bot of NAME" of the
/// player whose app runs it.
fn seat_names(lang: crate::i18n::Lang, roster: &mahjong_net::Roster) -> [String; 4] {
    let a = &roster.advert;
    let human = |k: &ed25519_dalek::VerifyingKey| {
        a.seats
            .iter()
            .flatten()
            .find(|s| !s.bot && s.peer == *k)
            .map_or_else(|| "?".to_string(), |s| s.name.clone())
    };
    std::array::from_fn(|i| match &a.seats[i] {
        Some(s) if s.bot => lang.f(T::SeatBotOf, &[&human(&s.peer)]),
        Some(s) => s.name.clone(),
        None => String::new(),
    })
}
