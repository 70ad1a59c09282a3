//! The lobby: the tables seen on the LAN, live (name, host, who sits where and who runs which
//! bot, preset, stake, length), a form to open a table (name, seats for bots, and the option
//! editor of [`super::options`] in its LAN scope: preset, stake, hands, every timer and every
//! option of the preset, explained, changes highlighted, a refused combination said plainly
//! and blocking "open"), a field for a player's address where multicast does not reach, and,
//! once a table is full, the host's set-up with every difference from its preset highlighted
//! and explained, the accept-or-leave choice and its countdown (`start_seconds`).
//!
//! About 830 lines besides its tests: the list, the form and the set-up view share the
//! lobby's state.
//!
//! The screen only keeps what the network said ([`crate::lan`] feeds it) and what the player
//! typed; every choice goes out as a [`Request`]. Bots are spread over the human peers by the
//! lobby's rule (no peer runs two bots while another human runs none), and every seat shows
//! who runs it before anyone accepts.

use crate::i18n::Text;
use std::time::{Duration, Instant};

use ed25519_dalek::VerifyingKey;
use iced::widget::{Space, button, column, container, row, scrollable, text, text_input};
use iced::{Alignment, Element, Length};
use mahjong_net::{Advert, NetEvent, Roster, SeatInfo, TableId, TableSpec, TableState};
use mahjong_rules::{Options, OptionsError, Ruleset, SessionLength};
use mahjong_store::Fingerprint;
use mahjong_table::{Proposal, TableEvent};

use super::options::{self, Editor, Scope};
use super::{ACCENT, MUTED, ON_FELT, WARN, action, bold, label, panel, preset_name};
use crate::i18n::{Lang, T};
use crate::lan::{Link, Request};

/// The id of the address field (tests type into it).
pub const ADDRESS_FIELD: &str = "lobby-address";
/// How long the lobby waits for a host's answer before it says the host did not answer (the
/// network gives up after `mahjong_net::lobby::JOIN_TIMEOUT_MS`).
pub const ASK_MS: u64 = mahjong_net::lobby::JOIN_TIMEOUT_MS + 1000;

/// The id of the table-name field.
pub const NAME_FIELD: &str = "lobby-table-name";
/// The id of the relay address field ("Play over the internet").
pub const RELAY_FIELD: &str = "lobby-relay";
/// The id of the table code field.
pub const CODE_FIELD: &str = "lobby-code";

/// The form that opens a table: its name, the seats for bots, and the option editor (preset,
/// stake, hands, timers, every option of the preset).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Form {
    /// The table's name.
    pub name: String,
    /// Seats for bots.
    pub bots: u8,
    /// Who may watch the table: 0 friends who may talk, 1 friends who may not, 2 nobody.
    pub watchers: u8,
    /// The set-up the host proposes.
    pub editor: Editor,
}

impl Default for Form {
    fn default() -> Form {
        Form {
            name: String::new(),
            bots: 0,
            watchers: 0,
            editor: Editor::new(Ruleset::Qiaoma, Scope::Lan),
        }
    }
}

impl Form {
    /// The table the form describes, or the rules crate's reason why its options cannot be
    /// played (the editor shows it too, and "open" stays disabled).
    pub fn spec(&self) -> Result<TableSpec, OptionsError> {
        let c = self.editor.choice()?;
        let hands = match c.length {
            SessionLength::Hands(n) => n,
            // The LAN editor offers no rounds; a table announces a number of hands.
            _ => {
                return Err(OptionsError::BadValue {
                    name: "length".into(),
                    why: "a LAN table plays a number of hands, not rounds".into(),
                });
            }
        };
        Ok(TableSpec {
            name: self.name.trim().to_string(),
            preset: c.options.ruleset,
            options: c.options,
            stake: c.stake,
            hands,
            bots: self.bots.min(3),
        })
    }
}

/// A player in the lobby who is not (yet) a known friend: shown beside the name, with the
/// four fingerprint words to compare aloud (the same words as `mahjong play` prints).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stranger {
    /// A key this player never sat with.
    New {
        /// Its fingerprint.
        fingerprint: Fingerprint,
    },
    /// A name another known key used: not the friend of that name.
    NotTheOne {
        /// The friend's name (the nickname given, or the name it used last).
        known: String,
        /// This player's fingerprint.
        fingerprint: Fingerprint,
        /// The friend's fingerprint.
        known_fingerprint: Fingerprint,
    },
}

impl Stranger {
    /// "new · apple tiger river lamp", "不是你认识的 Di · 苹果 …".
    pub fn text(&self, lang: Lang) -> String {
        let words = |f: &Fingerprint| f.words(lang);
        match self {
            Stranger::New { fingerprint } => lang.f(T::StrangerNew, &[&words(fingerprint)]),
            Stranger::NotTheOne {
                known, fingerprint, ..
            } => lang.f(T::StrangerNotTheOne, &[known, &words(fingerprint)]),
        }
    }
}

/// Where the player stands once a table is full.
#[derive(Clone, Debug)]
pub struct Seated {
    /// The signed roster.
    pub roster: Box<Roster>,
    /// The host's proposal and when its accept window closes.
    pub proposal: Option<(Box<Proposal>, Instant)>,
    /// The player accepted.
    pub accepted: bool,
    /// A first Accept was pressed while a stranger sits here: the warning is shown, and the
    /// next press accepts.
    pub warned: bool,
}

/// The lobby screen.
#[derive(Clone, Debug, Default)]
pub struct State {
    /// The tables the network reports.
    pub tables: Vec<Advert>,
    /// The link to the LAN thread (none until it is up).
    pub link: Option<Link>,
    /// The open-a-table form.
    pub form: Form,
    /// The address field.
    pub address: String,
    /// A problem to show.
    pub notice: Option<String>,
    /// Peers connected now.
    pub peers: usize,
    /// This peer's listening addresses.
    pub listening: Vec<String>,
    /// The table asked for (until the host seats the player or refuses).
    pub asking: Option<TableId>,
    /// When the seat was asked for (the host has [`ASK_MS`] to answer).
    pub asked_at: Option<Instant>,
    /// At a full table, before its set-up is agreed.
    pub seated: Option<Seated>,
    /// The wall clock (ticked while the countdown runs).
    pub now: Option<Instant>,
    /// "Play over the internet": the relay's address typed (the app remembers the last one
    /// used in `settings.json`).
    pub relay: String,
    /// The table code typed.
    pub code: String,
    /// The code and relay met at, once "Meet" was pressed.
    pub meeting: Option<(String, String)>,
    /// The relay holds this peer's reservation.
    pub relay_up: bool,
    /// Each friend's link: direct or not (through the relay).
    pub links: std::collections::BTreeMap<String, bool>,
    /// The players who are new or take a friend's name ([`crate::lan::Feed::Strangers`]).
    pub strangers: Vec<(VerifyingKey, Stranger)>,
    /// The started table the player asked to watch (until its host answers).
    pub watch_asked: Option<TableId>,
}

/// The id of a started table's Watch button (the real-window tests click it).
pub fn watch_button_id(table: &TableId) -> String {
    format!("watch-{}", &mahjong_net::node::hex(table)[..16])
}

fn with_id<'a>(id: String, e: impl Into<Element<'a, Message>>) -> Element<'a, Message> {
    container(e).id(id).into()
}

/// What the lobby is told.
#[derive(Clone, Debug)]
pub enum Message {
    /// The table name typed.
    Name(String),
    /// Seats for bots picked.
    Bots(u8),
    /// Who may watch picked (see [`Form::watchers`]).
    Watchers(u8),
    /// The option editor (preset, stake, hands, timers, options).
    Options(options::Message),
    /// Open the table.
    Create,
    /// Take a seat.
    Sit(TableId),
    /// Watch a started table.
    Watch(TableId),
    /// Leave the table (before it starts).
    Stand,
    /// Fill the hosted table with bots.
    FillBots,
    /// The address typed.
    Address(String),
    /// Dial the address.
    Dial,
    /// Accept the set-up.
    Accept,
    /// Leave the full table (declines the set-up).
    Leave,
    /// Back to the home screen.
    Back,
    /// The countdown ticker.
    Tick(Instant),
    /// The relay's address typed.
    Relay(String),
    /// The table code typed.
    Code(String),
    /// Make a fresh table code.
    NewCode,
    /// Meet the friends of the code at the relay.
    Meet,
}

/// What the app should do after a lobby message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Exit {
    /// Stay.
    Stay,
    /// Back to the home screen.
    Home,
}

/// "1 hand", "8 hands" (中文 has no plural).
fn hands(lang: Lang, n: u32) -> String {
    lang.f(if n == 1 { T::Hand } else { T::Hands }, &[&n])
}

impl State {
    fn me(&self) -> Option<VerifyingKey> {
        self.link.as_ref().map(|l| l.me)
    }

    /// The table the player hosts or sits at (from the adverts).
    pub fn my_table(&self) -> Option<&Advert> {
        let me = self.me()?;
        self.tables
            .iter()
            .find(|a| a.state == TableState::Open && a.seats.iter().flatten().any(|s| s.peer == me))
    }

    /// A countdown runs (the ticker exists only then).
    pub fn counting(&self) -> bool {
        self.asking.is_some()
            || self
                .seated
                .as_ref()
                .is_some_and(|s| s.proposal.is_some() && !s.accepted)
    }

    /// Seconds left to accept the proposal.
    pub fn seconds_left(&self) -> Option<u64> {
        let s = self.seated.as_ref()?;
        let (_, until) = s.proposal.as_ref()?;
        let now = self.now.unwrap_or_else(Instant::now);
        Some(
            until
                .saturating_duration_since(now)
                .as_millis()
                .div_ceil(1000) as u64,
        )
    }

    fn request(&mut self, lang: Lang, r: Request) {
        match &self.link {
            Some(l) => {
                if !l.send(r) {
                    self.notice = Some(lang.t(T::NetStopped).to_string());
                }
            }
            None => self.notice = Some(lang.t(T::NetNotUp).to_string()),
        }
    }

    /// Handles a message.
    pub fn update(&mut self, message: Message, lang: Lang) -> Exit {
        match message {
            Message::Name(s) => self.form.name = s.chars().take(40).collect(),
            Message::Bots(b) => self.form.bots = b.min(3),
            Message::Watchers(w) => self.form.watchers = w.min(2),
            Message::Options(m) => self.form.editor.update(m),
            Message::Create => match self.form.spec() {
                Ok(spec) => {
                    self.notice = None;
                    let policy = mahjong_net::WatchPolicy {
                        allow: self.form.watchers < 2,
                        chat: self.form.watchers == 0,
                    };
                    self.request(lang, Request::Watchers(policy));
                    self.request(lang, Request::Host(Box::new(spec)));
                }
                // The button is disabled then; the editor already says why.
                Err(e) => self.notice = Some(lang.f(T::RulesSay, &[&e])),
            },
            Message::Watch(t) => {
                self.notice = None;
                self.watch_asked = Some(t);
                self.request(lang, Request::Watch(t));
            }
            Message::Sit(t) => {
                self.notice = None;
                self.asking = Some(t);
                self.asked_at = Some(Instant::now());
                self.request(lang, Request::Sit(t));
            }
            Message::Stand => {
                self.asking = None;
                self.request(lang, Request::Stand);
            }
            Message::FillBots => self.request(lang, Request::FillBots),
            Message::Address(s) => self.address = s,
            Message::Relay(s) => self.relay = s,
            Message::Code(s) => self.code = s,
            Message::NewCode => self.code = mahjong_net::TableCode::generate().to_string(),
            Message::Meet => self.meet(lang),
            Message::Dial => {
                let a = self.address.trim().to_string();
                if !a.is_empty() {
                    self.notice = None;
                    self.request(lang, Request::Dial(a));
                }
            }
            Message::Accept => {
                // A player who uses a known friend's name (not that friend) makes Accept ask
                // once more; a player merely new is marked, and one press accepts.
                let strangers = self.seated.as_ref().is_some_and(|s| {
                    self.strangers_at(&s.roster.advert)
                        .iter()
                        .any(|x| matches!(x, Stranger::NotTheOne { .. }))
                });
                if let Some(s) = &mut self.seated
                    && s.proposal.is_some()
                    && !s.accepted
                {
                    // The warning and the fingerprints are shown above the buttons.
                    if strangers && !s.warned {
                        s.warned = true;
                    } else {
                        s.accepted = true;
                        self.request(lang, Request::Accept);
                    }
                }
            }
            Message::Leave => {
                if self.seated.take().is_some() {
                    self.request(lang, Request::Leave);
                }
            }
            Message::Back => {
                if self.seated.take().is_some() {
                    self.request(lang, Request::Leave);
                } else if self.my_table().is_some() || self.asking.is_some() {
                    self.asking = None;
                    self.request(lang, Request::Stand);
                }
                return Exit::Home;
            }
            Message::Tick(now) => {
                self.now = Some(now);
                if self.asking.is_some()
                    && self.asked_at.is_some_and(|at| {
                        now.saturating_duration_since(at) >= Duration::from_millis(ASK_MS)
                    })
                {
                    self.asking = None;
                    self.notice = Some(lang.t(T::HostSilent).to_string());
                }
            }
        }
        Exit::Stay
    }

    /// A network event for the lobby. Returns true when the set-up is agreed (the app moves
    /// to the table screen).
    pub fn on_net(&mut self, ev: NetEvent, lang: Lang) -> bool {
        match ev {
            NetEvent::Listening(a) => {
                let a = a.to_string();
                if self.listening.len() < 8 && !self.listening.contains(&a) {
                    self.listening.push(a);
                }
            }
            NetEvent::Connected(_) => self.peers += 1,
            NetEvent::Disconnected(p) => {
                self.peers = self.peers.saturating_sub(1);
                self.links.remove(&p.to_string());
            }
            NetEvent::Link { peer, link } if self.links.len() < 64 => {
                self.links
                    .insert(peer.to_string(), link == mahjong_net::Link::Direct);
            }
            NetEvent::RelayReserved(_) => self.relay_up = true,
            NetEvent::RelayLost { .. } => self.relay_up = false,
            NetEvent::Lobby(tables) => {
                self.tables = tables;
                if let Some(t) = self.asking
                    && (self.my_table().is_some_and(|a| a.table == t)
                        || !self.tables.iter().any(|a| a.table == t))
                {
                    self.asking = None;
                }
            }
            NetEvent::Began { roster, .. } => {
                self.asking = None;
                self.seated = Some(Seated {
                    roster,
                    proposal: None,
                    accepted: false,
                    warned: false,
                });
            }
            NetEvent::Table(TableEvent::Proposed(p)) => {
                let until = Instant::now() + Duration::from_secs(p.options.start_seconds.into());
                let host = self
                    .seated
                    .as_ref()
                    .is_some_and(|s| Some(s.roster.advert.host) == self.me());
                if let Some(s) = &mut self.seated {
                    s.proposal = Some((p, until));
                    // The host proposed it: its acceptance is the proposal itself.
                    s.accepted = host;
                }
            }
            NetEvent::Table(TableEvent::SetupAgreed(_)) => return self.seated.is_some(),
            NetEvent::Table(TableEvent::SetupFailed { seat }) => {
                let info = self
                    .seated
                    .as_ref()
                    .and_then(|s| s.roster.advert.seats.get(seat as usize).cloned().flatten());
                // The player is told "you" (not its own name); another seat by its name.
                self.notice = Some(match info {
                    Some(s) if !s.bot && Some(s.peer) == self.me() => {
                        lang.t(T::SetupFailedYou).to_string()
                    }
                    Some(s) => lang.f(T::SetupFailedSeat, &[&s.name]),
                    None => lang.t(T::SetupFailedSomeone).to_string(),
                });
                self.seated = None;
            }
            NetEvent::Incompatible { peer, theirs } => {
                let why = crate::i18n::network_detail(lang, &format!("{peer}: {theirs}"));
                self.notice = Some(lang.f(T::LanProblem, &[&why]));
            }
            NetEvent::Misbehaved { why, .. } | NetEvent::Fatal(why) => {
                let why = crate::i18n::network_detail(lang, &why);
                self.notice = Some(lang.f(T::LanProblem, &[&why]));
            }
            _ => {}
        }
        false
    }

    /// "Meet": checks the relay's address and the code (a refusal said in the player's
    /// language), then asks the network to meet the code's friends there.
    fn meet(&mut self, lang: Lang) {
        let code = match self.code.parse::<mahjong_net::TableCode>() {
            Ok(c) => c,
            Err(_) => {
                self.notice = Some(lang.t(T::NetBadCode).to_string());
                return;
            }
        };
        let relay = self.relay.trim();
        let internet = relay
            .parse()
            .ok()
            .and_then(|a| mahjong_net::Internet::new(a, code).ok());
        let Some(internet) = internet else {
            self.notice = Some(lang.t(T::NetBadRelay).to_string());
            return;
        };
        self.notice = None;
        self.code = code.to_string();
        self.relay_up = false;
        self.links.clear();
        self.meeting = Some((code.to_string(), relay.to_string()));
        self.request(lang, Request::Meet(Box::new(internet)));
    }

    /// The "Play over the internet" panel: the relay's address, the code (typed, or made
    /// here to share), "Meet", then the code met at, the relay's state and how the friends
    /// are linked.
    fn internet_view(&self, lang: Lang) -> Element<'_, Message> {
        let mut panel_ = column![
            label(lang.t(T::NetTitle), 13.0, MUTED),
            text_input("/ip4/203.0.113.7/tcp/4001/p2p/12D3KooW…", &self.relay)
                .id(RELAY_FIELD)
                .on_input(Message::Relay)
                .padding(6)
                .size(13),
            label(lang.t(T::NetRelay), 11.0, MUTED),
            row![
                text_input("7K3M-QX9P", &self.code)
                    .id(CODE_FIELD)
                    .on_input(Message::Code)
                    .on_submit(Message::Meet)
                    .padding(6)
                    .size(13),
                action(lang.t(T::NetNewCode), 14.0, Some(Message::NewCode))
                    .style(button::secondary),
                action(lang.t(T::NetMeet), 14.0, Some(Message::Meet)).style(button::primary),
            ]
            .spacing(6),
            label(lang.t(T::NetCode), 11.0, MUTED),
        ]
        .spacing(4);
        if let Some((code, _)) = &self.meeting {
            panel_ = panel_.push(label(lang.f(T::NetMeeting, &[code]), 13.0, ACCENT));
            panel_ = panel_.push(label(
                lang.t(if self.relay_up {
                    T::NetRelayUp
                } else {
                    T::NetRelayDown
                }),
                11.0,
                MUTED,
            ));
            let direct = self.links.values().filter(|d| **d).count();
            let relayed = self.links.len() - direct;
            panel_ = panel_.push(label(
                lang.f(T::NetLinks, &[&direct, &relayed]),
                11.0,
                MUTED,
            ));
        }
        container(panel_).padding(10).style(panel).into()
    }

    /// A request refused by the network.
    pub fn refused(&mut self, why: String, lang: Lang) {
        self.asking = None;
        let why = crate::i18n::network_detail(lang, &why);
        self.notice = Some(lang.f(T::LanRefused, &[&why]));
    }

    /// The screen.
    pub fn view(&self, lang: Lang) -> Element<'_, Message> {
        let body: Element<'_, Message> = match &self.seated {
            Some(s) => self.setup_view(s, lang),
            None => row![self.tables_view(lang), self.side_view(lang)]
                .spacing(16)
                .height(Length::Fill)
                .into(),
        };
        let top = row![
            bold(lang.t(T::LobbyTitle), 22.0, ACCENT),
            label(
                lang.f(
                    if self.peers == 1 {
                        T::LobbyPeer
                    } else {
                        T::LobbyPeers
                    },
                    &[&self.peers]
                ),
                14.0,
                MUTED
            ),
            Space::new().width(Length::Fill),
            action(lang.t(T::Back), 14.0, Some(Message::Back)).style(button::secondary),
        ]
        .spacing(14)
        .align_y(Alignment::Center);
        // The notice has its own line, always there: nothing above or beside it moves when
        // it comes or goes (Back stays under the pointer).
        let notice = container(label(self.notice.as_deref().unwrap_or(""), 14.0, WARN))
            .height(Length::Fixed(20.0));
        container(column![top, notice, body].spacing(12))
            .padding(16)
            .width(Length::Fill)
            .height(Length::Fill)
            .into()
    }

    fn seat_text(
        &self,
        lang: Lang,
        seat: Option<&SeatInfo>,
        runner: impl Fn(&VerifyingKey) -> String,
    ) -> String {
        match seat {
            None => lang.t(T::SeatFree).to_string(),
            Some(s) if s.bot => lang.f(T::SeatBotOf, &[&runner(&s.peer)]),
            Some(s) if Some(s.peer) == self.me() => lang.f(T::SeatYou, &[&s.name]),
            Some(s) => {
                let mut text = s.name.clone();
                // A stranger is marked: new, or not the friend whose name it uses.
                if let Some(flag) = self.stranger(&s.key) {
                    text = format!("{text} · {}", flag.text(lang));
                }
                // Met over the internet: how the friend is linked, once known.
                if let Some(direct) = self.link_of(&s.peer) {
                    text = format!("{text} · {}", lang.t(super::link_word(direct)));
                }
                text
            }
        }
    }

    /// The flag of the player of `key`, if it is a stranger.
    pub fn stranger(&self, key: &VerifyingKey) -> Option<&Stranger> {
        self.strangers
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, s)| s)
    }

    /// The strangers seated at `a`.
    pub fn strangers_at(&self, a: &Advert) -> Vec<&Stranger> {
        a.seats
            .iter()
            .flatten()
            .filter(|s| !s.bot)
            .filter_map(|s| self.stranger(&s.key))
            .collect()
    }

    /// A friend's link (direct or through the relay) when met over the internet; `None` on
    /// a LAN and before it is known.
    pub fn link_of(&self, peer: &VerifyingKey) -> Option<bool> {
        self.meeting.as_ref()?;
        let id = mahjong_net::node::peer_id(peer)?;
        self.links.get(&id.to_string()).copied()
    }

    fn table_card<'a>(&'a self, a: &'a Advert, lang: Lang) -> Element<'a, Message> {
        let host = a
            .seats
            .iter()
            .flatten()
            .find(|s| s.key == a.host)
            .map_or("?", |s| s.name.as_str());
        let runner = |k: &VerifyingKey| {
            a.seats
                .iter()
                .flatten()
                .find(|s| !s.bot && s.peer == *k)
                .map_or_else(|| "?".to_string(), |s| s.name.clone())
        };
        let mine = self
            .me()
            .is_some_and(|me| a.seats.iter().flatten().any(|s| s.peer == me));
        let i_host = self.me() == Some(a.host);
        let seats = a
            .seats
            .iter()
            .enumerate()
            .fold(row![].spacing(8), |r, (i, s)| {
                // The last `bots` seats of an open table go to bots once the humans sit.
                let t = match s {
                    None if i >= 4 - usize::from(a.bots.min(4)) => lang.t(T::SeatBot).to_string(),
                    _ => self.seat_text(lang, s.as_ref(), runner),
                };
                let color = if s.is_some() { ON_FELT } else { MUTED };
                r.push(
                    container(label(format!("{} · {t}", i + 1), 14.0, color))
                        .padding([4, 8])
                        .style(panel),
                )
            })
            // Four seats with a stranger's fingerprint each do not fit one line: they wrap
            // rather than squeeze the last one into a column of letters.
            .wrap()
            .vertical_spacing(6);
        let mut head = row![
            bold(table_title(lang, a), 18.0, ON_FELT),
            label(lang.f(T::LobbyHost, &[&host]), 14.0, MUTED),
        ]
        .spacing(10)
        .align_y(Alignment::Center);
        if a.state == TableState::Started {
            head = head.push(bold(lang.t(T::TablePlaying), 14.0, WARN));
        }
        let mut details = vec![lang.f(
            T::LobbyLine,
            &[
                &lang.t(preset_name(a.preset)),
                &a.stake,
                &hands(lang, a.hands),
            ],
        )];
        if a.bots > 0 && a.state == TableState::Open {
            let key = if a.bots == 1 {
                T::LobbyBotLater
            } else {
                T::LobbyBotsLater
            };
            details.push(lang.f(key, &[&a.bots]));
        }
        let mut line = details
            .into_iter()
            .fold(row![].spacing(12), |r, d| r.push(label(d, 14.0, MUTED)));
        if a.options_hash != mahjong_net::lobby::options_hash(a.preset) {
            line = line.push(bold(lang.t(T::Differences), 14.0, ACCENT));
        }
        let mut buttons = row![].spacing(8);
        if a.state == TableState::Started && !mine {
            buttons = if self.watch_asked == Some(a.table) {
                buttons.push(label(lang.t(T::WatchAsking), 14.0, ACCENT))
            } else {
                buttons.push(with_id(
                    watch_button_id(&a.table),
                    action(lang.t(T::WatchTable), 14.0, Some(Message::Watch(a.table)))
                        .style(button::primary),
                ))
            };
        }
        if a.state == TableState::Open {
            if mine {
                if i_host {
                    buttons = buttons.push(
                        action(lang.t(T::FillBots), 14.0, Some(Message::FillBots))
                            .style(button::primary),
                    );
                }
                buttons = buttons.push(
                    action(lang.t(T::LeaveTable), 14.0, Some(Message::Stand))
                        .style(button::secondary),
                );
            } else if self.asking == Some(a.table) {
                buttons = buttons.push(label(lang.t(T::TableAsking), 14.0, ACCENT));
            } else if a.free() > 0 {
                let free_now = self
                    .my_table()
                    .is_none_or(|t| t.host == self.me().unwrap_or(t.host));
                buttons = buttons.push(
                    action(
                        lang.t(T::SitDown),
                        14.0,
                        (free_now && self.asking.is_none()).then_some(Message::Sit(a.table)),
                    )
                    .style(button::success),
                );
            }
        }
        container(column![head, line, seats, buttons].spacing(6))
            .padding(10)
            .width(Length::Fill)
            .style(panel)
            .into()
    }

    fn tables_view(&self, lang: Lang) -> Element<'_, Message> {
        let shown = crate::lan::shown(&self.tables);
        let list: Element<'_, Message> = if shown.is_empty() {
            label(lang.t(T::LobbyEmpty), 15.0, MUTED)
        } else {
            shown
                .into_iter()
                .fold(column![].spacing(10), |c, a| {
                    c.push(self.table_card(a, lang))
                })
                .into()
        };
        let mut address = column![
            label(lang.t(T::AddressTitle), 13.0, MUTED),
            row![
                text_input("/ip4/192.168.1.20/tcp/4001", &self.address)
                    .id(ADDRESS_FIELD)
                    .on_input(Message::Address)
                    .on_submit(Message::Dial)
                    .padding(6)
                    .size(13),
                action(lang.t(T::Connect), 14.0, Some(Message::Dial)).style(button::secondary),
            ]
            .spacing(6),
        ]
        .spacing(4);
        for a in self
            .listening
            .iter()
            .filter(|a| !a.contains("/127.0.0.1/"))
            .take(2)
        {
            address = address.push(label(lang.f(T::YourAddress, &[a]), 11.0, MUTED));
        }
        container(
            column![
                scrollable(list).height(Length::Fill),
                container(address).padding(10).style(panel),
                self.internet_view(lang),
            ]
            .spacing(10),
        )
        .width(Length::FillPortion(1))
        .height(Length::Fill)
        .into()
    }

    /// The form: name, seats for bots, "open" (disabled while the rules refuse the options),
    /// then the option editor.
    fn side_view(&self, lang: Lang) -> Element<'_, Message> {
        let f = &self.form;
        let bots = (0..4u8).fold(row![].spacing(6), |r, b| {
            let bt = button(text(b.to_string()).size(14))
                .padding([4, 12])
                .on_press(Message::Bots(b));
            r.push(if b == f.bots {
                bt.style(button::primary)
            } else {
                bt.style(button::secondary)
            })
        });
        let can_create =
            self.my_table().is_none() && self.asking.is_none() && f.editor.choice().is_ok();
        let head = row![
            column![
                label(lang.t(T::TableName), 13.0, MUTED),
                text_input("", &f.name)
                    .id(NAME_FIELD)
                    .on_input(Message::Name)
                    .padding(6)
                    .size(14),
            ]
            .spacing(2)
            .width(Length::Fill),
            column![label(lang.t(T::BotsField), 13.0, MUTED), bots].spacing(2),
        ]
        .spacing(12)
        .align_y(Alignment::End);
        let watchers = [T::WatchersTalk, T::WatchersQuiet, T::WatchersNone]
            .into_iter()
            .enumerate()
            .fold(row![].spacing(6), |r, (i, t)| {
                let bt = button(text(lang.t(t)).size(13))
                    .padding([4, 10])
                    .on_press(Message::Watchers(i as u8));
                r.push(if i as u8 == f.watchers {
                    bt.style(button::primary)
                } else {
                    bt.style(button::secondary)
                })
            });
        let head = column![
            head,
            column![
                label(lang.t(T::WatchersField), 13.0, MUTED),
                watchers.wrap()
            ]
            .spacing(2),
        ]
        .spacing(8);
        let form = column![
            row![
                bold(lang.t(T::CreateTitle), 18.0, ON_FELT),
                Space::new().width(Length::Fill),
                action(
                    lang.t(T::CreateTable),
                    16.0,
                    can_create.then_some(Message::Create)
                )
                .style(button::success),
            ]
            .align_y(Alignment::Center),
            head,
            bold(lang.t(T::CreateOptions), 16.0, ACCENT),
            f.editor.view(lang).map(Message::Options),
        ]
        .spacing(10)
        .padding(iced::Padding {
            right: 14.0,
            ..iced::Padding::ZERO
        });
        container(scrollable(form).height(Length::Fill))
            .padding(12)
            .width(Length::FillPortion(1))
            .height(Length::Fill)
            .style(panel)
            .into()
    }

    fn setup_view<'a>(&'a self, s: &'a Seated, lang: Lang) -> Element<'a, Message> {
        let a = &s.roster.advert;
        let host = a
            .seats
            .iter()
            .flatten()
            .find(|x| x.key == a.host)
            .map_or("?", |x| x.name.as_str());
        let runner = |k: &VerifyingKey| {
            a.seats
                .iter()
                .flatten()
                .find(|x| !x.bot && x.peer == *k)
                .map_or_else(|| "?".to_string(), |x| x.name.clone())
        };
        let seats = a
            .seats
            .iter()
            .enumerate()
            .fold(column![].spacing(4), |c, (i, x)| {
                c.push(label(
                    format!("{} · {}", i + 1, self.seat_text(lang, x.as_ref(), runner)),
                    15.0,
                    ON_FELT,
                ))
            });
        let mut col = column![
            bold(
                lang.f(T::SetupTitle, &[&table_title(lang, a)]),
                24.0,
                ACCENT
            ),
            label(lang.f(T::SetupBy, &[&host]), 14.0, MUTED),
            seats,
        ]
        .spacing(10)
        .max_width(760);
        match &s.proposal {
            None => col = col.push(label(lang.t(T::WaitingSetup), 16.0, MUTED)),
            Some((p, _)) => {
                let length = match p.length {
                    SessionLength::Hands(n) => hands(lang, n),
                    other => format!("{other:?}"),
                };
                col = col.push(label(
                    lang.f(
                        T::LobbyLine,
                        &[&lang.t(preset_name(p.preset)), &p.stake, &length],
                    ),
                    16.0,
                    ON_FELT,
                ));
                // Every difference from the preset, highlighted and explained (timers and
                // rules alike); "the preset's options" when there is none.
                if p.options != Options::preset(p.options.ruleset) {
                    col = col.push(
                        container(
                            column![
                                bold(lang.t(T::Differences), 16.0, ON_FELT),
                                options::summary(lang, &p.options, Scope::Lan, true),
                                label(lang.t(T::DiffWhy), 12.0, MUTED),
                            ]
                            .spacing(6),
                        )
                        .padding(10)
                        .style(panel),
                    );
                } else {
                    col = col.push(label(lang.t(T::NoDifferences), 15.0, MUTED));
                }
                if s.warned && !s.accepted {
                    col = col.push(bold(lang.t(T::StrangerAcceptAgain), 16.0, WARN));
                }
                if s.accepted {
                    col = col.push(label(lang.t(T::SetupAccepted), 16.0, MUTED));
                } else {
                    let left = self.seconds_left().unwrap_or(0);
                    col = col.push(bold(lang.f(T::AcceptIn, &[&left]), 18.0, WARN));
                    col = col.push(
                        row![
                            action(lang.t(T::AcceptSetup), 18.0, Some(Message::Accept))
                                .style(button::success),
                            action(lang.t(T::LeaveTable), 18.0, Some(Message::Leave))
                                .style(button::danger),
                        ]
                        .spacing(12),
                    );
                }
            }
        }
        scrollable(container(col).center_x(Length::Fill))
            .height(Length::Fill)
            .into()
    }
}

/// A table's name as shown: the name its host gave it, or, for the network's default name
/// (`NAME's table`, made in the host's words), the same in the player's language
/// (`甲的牌桌`).
pub fn table_title(lang: Lang, a: &Advert) -> String {
    let host = a.seats.iter().flatten().find(|s| s.key == a.host);
    match host {
        Some(h) if a.name == mahjong_net::lobby::default_table_name(&h.name) => {
            lang.f(T::TableOfHost, &[&h.name])
        }
        _ => a.name.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::screens::options::Opt;
    use mahjong_rules::catalogue::OptionValue;

    #[test]
    fn the_host_chooses_who_may_watch_before_the_table_opens_in_both_languages() {
        for lang in [Lang::Zh, Lang::En] {
            for (pick, allow, chat) in [
                (None, true, true),
                (Some(1), true, false),
                (Some(2), false, false),
            ] {
                let key = ed25519_dalek::SigningKey::from_bytes(&[5; 32]).verifying_key();
                let (link, mut requests, _) = Link::pair(key);
                let mut st = State {
                    link: Some(link),
                    ..State::default()
                };
                // The choice is on the form, in the player's language, by click.
                let msgs: Vec<Message> = {
                    let view = st.side_view(lang);
                    let mut ui = iced_test::Simulator::with_size(
                        crate::iced_settings(),
                        iced::Size::new(1280.0, 4000.0),
                        view,
                    );
                    assert!(ui.find(lang.t(T::WatchersField)).is_ok());
                    if let Some(i) = pick {
                        let t = [T::WatchersTalk, T::WatchersQuiet, T::WatchersNone][i];
                        ui.click(lang.t(t)).expect("the choice is a button");
                    }
                    ui.into_messages().collect()
                };
                for m in msgs {
                    st.update(m, lang);
                }
                st.update(Message::Create, lang);
                let first = requests.try_recv().expect("a request");
                assert!(
                    matches!(first, Request::Watchers(p) if p.allow == allow && p.chat == chat),
                    "{first:?}"
                );
                assert!(matches!(requests.try_recv(), Ok(Request::Host(_))));
            }
        }
    }

    #[test]
    fn the_form_proposes_the_editors_options_and_refuses_what_the_rules_refuse() {
        let mut st = State::default();
        let spec = st.form.spec().expect("the preset's defaults");
        assert_eq!(spec.options, Options::preset(Ruleset::Qiaoma));
        assert_eq!((spec.hands, spec.bots), (8, 0));
        let mut go = |m: options::Message| st.update(Message::Options(m), Lang::En);
        go(options::Message::Preset(Ruleset::Classic));
        go(options::Message::Set(
            Opt::named("kaibao").expect("kaibao"),
            OptionValue::Bool(true),
        ));
        go(options::Message::Step(
            Opt::named("discard_seconds").expect("discard_seconds"),
            false,
        ));
        go(options::Message::Stake(true));
        go(options::Message::Hands(3));
        go(options::Message::FourRounds);
        st.update(Message::Bots(2), Lang::En);
        st.update(Message::Name("  Friday ".into()), Lang::En);
        let spec = st.form.spec().expect("valid");
        let mut want = Options::preset(Ruleset::Classic);
        want.kaibao = true;
        want.discard_seconds = 15;
        assert_eq!(spec.options, want);
        assert_eq!(spec.preset, Ruleset::Classic);
        assert_eq!(spec.stake, mahjong_rules::Money::coins(2));
        assert_eq!(
            (spec.hands, spec.bots),
            (3, 2),
            "four rounds are not offered"
        );
        assert_eq!(spec.name, "Friday");
        // A refused combination opens nothing and says why.
        st.update(
            Message::Options(options::Message::Set(
                Opt::named("lezi_points").expect("lezi_points"),
                OptionValue::Number(None),
            )),
            Lang::En,
        );
        let e = st.form.spec().expect_err("lezi needed");
        st.update(Message::Create, Lang::En);
        assert_eq!(st.notice, Some(Lang::En.f(T::RulesSay, &[&e])));
    }

    #[test]
    fn counts_are_singular_or_plural_in_english() {
        let peers = |n: usize| {
            let st = State {
                peers: n,
                ..State::default()
            };
            let mut ui = iced_test::Simulator::with_size(
                crate::iced_settings(),
                iced::Size::new(1280.0, 800.0),
                st.view(Lang::En),
            );
            (
                ui.find(format!("{n} player connected")).is_ok(),
                ui.find(format!("{n} players connected")).is_ok(),
            )
        };
        assert_eq!(peers(1), (true, false));
        assert_eq!(peers(2), (false, true));
        assert_eq!(peers(0), (false, true));
        assert_eq!(hands(Lang::En, 1), "1 hand");
        assert_eq!(hands(Lang::En, 4), "4 hands");
        assert_eq!(hands(Lang::Zh, 1), "1 局");
    }

    #[test]
    fn a_default_table_name_reads_in_the_players_language() {
        let mut a = stranger_table().seated.expect("a table").roster.advert;
        assert_eq!(table_title(Lang::Zh, &a), "Friday", "a name its host gave");
        a.name = "Ann's table".into();
        assert_eq!(table_title(Lang::Zh, &a), "Ann的牌桌");
        assert_eq!(table_title(Lang::En, &a), "Ann's table");
        // A host name long enough that the network cut its default table name short.
        let host = a.host;
        let long = "Annabelle-Josephine-Maximiliane";
        if let Some(h) = a.seats.iter_mut().flatten().find(|s| s.key == host) {
            h.name = long.into();
        }
        a.name = mahjong_net::lobby::default_table_name(long);
        assert_ne!(a.name, format!("{long}'s table"), "the name was cleaned");
        assert_eq!(table_title(Lang::Zh, &a), format!("{long}的牌桌"));
    }

    #[test]
    fn a_host_that_does_not_answer_frees_the_lobby() {
        let mut st = State::default();
        let t = [9; 32];
        st.update(Message::Sit(t), Lang::En);
        assert_eq!(st.asking, Some(t));
        assert!(st.counting(), "the ticker runs while asking");
        let at = st.asked_at.expect("asked");
        st.update(Message::Tick(at + Duration::from_millis(1000)), Lang::En);
        assert_eq!(st.asking, Some(t));
        st.update(Message::Tick(at + Duration::from_millis(ASK_MS)), Lang::En);
        assert_eq!(st.asking, None);
        assert_eq!(st.notice.as_deref(), Some(Lang::En.t(T::HostSilent)));
    }

    /// Issue 27: at a full table, a new player is marked with its fingerprint words, a player
    /// who uses a known friend's name is marked "not the … you know", and Accept then asks
    /// once more — in both languages.
    /// Writes docs/lobby-stranger-{en,zh}.png: the set-up of a table where a newcomer is
    /// marked and another uses a friend's name, after the first press of Accept.
    /// `cargo test -p shanghai-mahjong --lib stranger_screenshots -- --ignored`
    #[test]
    #[ignore = "writes the documentation's screenshots"]
    fn stranger_screenshots() {
        let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs");
        for lang in [Lang::En, Lang::Zh] {
            let mut st = stranger_table();
            st.update(Message::Accept, lang);
            let mut ui = iced_test::Simulator::with_size(
                crate::iced_settings(),
                iced::Size::new(1280.0, 800.0),
                st.view(lang),
            );
            let name = format!("lobby-stranger-{lang}");
            let path = dir.join(&name);
            let snap = ui.snapshot(&iced::Theme::Dark).expect("snapshot");
            let _ = std::fs::remove_file(dir.join(format!("{name}-tiny-skia.png")));
            assert!(snap.matches_image(&path).expect("written"));
            let written = dir.join(format!("{name}-tiny-skia.png"));
            std::fs::rename(written, dir.join(format!("{name}.png"))).expect("renamed");
        }
    }

    /// A full table whose seats 3 and 4 are a newcomer and a player using a friend's name,
    /// with the host's proposal waiting for this player's Accept.
    fn stranger_table() -> State {
        use ed25519_dalek::SigningKey;
        let sk = |i: u8| SigningKey::from_bytes(&[i; 32]);
        let key = |i: u8| sk(i).verifying_key();
        let seat = |i: u8, name: &str| {
            Some(SeatInfo {
                key: key(i),
                name: name.into(),
                peer: key(i),
                bot: false,
            })
        };
        let advert = Advert {
            table: [7; 32],
            host: key(1),
            nonce: [0; 32],
            name: "Friday".into(),
            preset: Ruleset::Qiaoma,
            options_hash: [0; 32],
            stake: mahjong_rules::Money::coins(1),
            hands: 1,
            bots: 0,
            seats: [seat(1, "Ann"), seat(2, "Bo"), seat(3, "Cy"), seat(4, "Di")],
            state: TableState::Started,
            revision: 1,
            chosen: false,
        };
        let roster = Roster::sign(advert, 0, &sk(1));
        let proposal = Proposal::new(
            [7; 32],
            0,
            [key(1), key(2), key(3), key(4)],
            Options::preset(Ruleset::Qiaoma),
            mahjong_rules::Money::coins(1),
            SessionLength::Hands(1),
        );
        State {
            strangers: vec![
                (
                    key(3),
                    Stranger::New {
                        fingerprint: Fingerprint::of(&key(3)),
                    },
                ),
                (
                    key(4),
                    Stranger::NotTheOne {
                        known: "Di".into(),
                        fingerprint: Fingerprint::of(&key(4)),
                        known_fingerprint: Fingerprint::of(&key(9)),
                    },
                ),
            ],
            seated: Some(Seated {
                roster: Box::new(roster),
                proposal: Some((Box::new(proposal), Instant::now() + Duration::from_secs(60))),
                accepted: false,
                warned: false,
            }),
            ..State::default()
        }
    }

    #[test]
    fn a_stranger_is_marked_and_a_friends_name_taken_makes_accept_ask_once_more() {
        use ed25519_dalek::SigningKey;
        let key = |i: u8| SigningKey::from_bytes(&[i; 32]).verifying_key();
        let (cy, di) = (Fingerprint::of(&key(3)), Fingerprint::of(&key(4)));
        for lang in [Lang::En, Lang::Zh] {
            let mut st = stranger_table();
            let shown = |st: &State, text: &str| {
                let mut ui = iced_test::Simulator::with_size(
                    crate::iced_settings(),
                    iced::Size::new(1280.0, 800.0),
                    st.view(lang),
                );
                ui.find(text.to_string()).is_ok()
            };
            let cy_line = format!("3 · Cy · {}", lang.f(T::StrangerNew, &[&cy.words(lang)]));
            let di_line = format!(
                "4 · Di · {}",
                lang.f(T::StrangerNotTheOne, &[&"Di", &di.words(lang)])
            );
            assert!(shown(&st, &cy_line), "{cy_line}");
            assert!(shown(&st, &di_line), "{di_line}");
            assert!(shown(&st, "2 · Bo"), "a known friend is not marked");
            // The first press warns, the second accepts.
            st.update(Message::Accept, lang);
            assert!(!st.seated.as_ref().expect("seated").accepted);
            assert!(shown(&st, lang.t(T::StrangerAcceptAgain)));
            st.update(Message::Accept, lang);
            assert!(st.seated.as_ref().expect("seated").accepted);
            // A table with only new players (no name taken) accepts at the first press.
            st.strangers
                .retain(|(_, s)| matches!(s, Stranger::New { .. }));
            if let Some(s) = &mut st.seated {
                (s.accepted, s.warned) = (false, false);
            }
            st.update(Message::Accept, lang);
            assert!(st.seated.as_ref().expect("seated").accepted);
        }
        assert_eq!(
            Lang::En.f(T::StrangerNotTheOne, &[&"Di", &"apple tiger river lamp"]),
            "not the Di you know · apple tiger river lamp"
        );
        assert_eq!(
            Lang::Zh.f(T::StrangerNotTheOne, &[&"阿迪", &"苹果 老虎 河 台灯"]),
            "不是你认识的阿迪 · 苹果 老虎 河 台灯"
        );
    }
}
