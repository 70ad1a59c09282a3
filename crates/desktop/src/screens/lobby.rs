//! The lobby: the tables seen on the LAN, live (name, host, who sits where and who runs which
//! bot, preset, stake, length), a form to open a table (name, preset, stake, hands, seats for
//! bots, the three timers), a field for a player's address where multicast does not reach,
//! and, once a table is full, the host's set-up with every difference from its preset
//! highlighted, the accept-or-leave choice and its countdown (`start_seconds`).
//!
//! The screen only keeps what the network said ([`crate::lan`] feeds it) and what the player
//! typed; every choice goes out as a [`Request`]. Bots are spread over the human peers by the
//! lobby's rule (no peer runs two bots while another human runs none), and every seat shows
//! who runs it before anyone accepts.

use std::time::{Duration, Instant};

use ed25519_dalek::VerifyingKey;
use iced::widget::{Space, button, column, container, row, scrollable, text, text_input};
use iced::{Alignment, Element, Length};
use mahjong_net::{Advert, NetEvent, Roster, SeatInfo, TableId, TableSpec, TableState};
use mahjong_rules::{Money, Options, Ruleset, SessionLength};
use mahjong_table::{Proposal, TableEvent};

use super::{ACCENT, MUTED, ON_FELT, WARN, action, bold, label, panel, preset_name};
use crate::i18n::{Lang, T};
use crate::lan::{Link, Request};

/// The id of the address field (tests type into it).
pub const ADDRESS_FIELD: &str = "lobby-address";
/// The id of the table-name field.
pub const NAME_FIELD: &str = "lobby-table-name";

/// The form that opens a table (texts as typed; checked on "open").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Form {
    /// The table's name.
    pub name: String,
    /// The preset.
    pub preset: Ruleset,
    /// Coins per point.
    pub stake: String,
    /// Hands to play.
    pub hands: String,
    /// Seats for bots.
    pub bots: u8,
    /// Seconds to discard.
    pub discard: String,
    /// Seconds to claim.
    pub claim: String,
    /// Seconds to accept the set-up.
    pub start: String,
}

impl Default for Form {
    fn default() -> Form {
        Form::for_preset(Ruleset::Qiaoma)
    }
}

impl Form {
    /// The preset's defaults.
    pub fn for_preset(preset: Ruleset) -> Form {
        let o = Options::preset(preset);
        Form {
            name: String::new(),
            preset,
            stake: "1".into(),
            hands: "8".into(),
            bots: 0,
            discard: o.discard_seconds.to_string(),
            claim: o.claim_seconds.to_string(),
            start: o.start_seconds.to_string(),
        }
    }

    /// The table the form describes, or the first field that is wrong (its label key and
    /// the text typed).
    pub fn spec(&self) -> Result<TableSpec, (T, String)> {
        let stake = self
            .stake
            .trim()
            .parse::<f64>()
            .ok()
            .and_then(Money::from_f64)
            .filter(|m| m.0 > 0 && m.0 <= Money::coins(1000).0)
            .ok_or((T::StakeField, self.stake.clone()))?;
        let number = |s: &str, lo: u32, hi: u32, key: T| {
            s.trim()
                .parse::<u32>()
                .ok()
                .filter(|n| (lo..=hi).contains(n))
                .ok_or((key, s.to_string()))
        };
        let hands = number(&self.hands, 1, 64, T::HandsField)?;
        let mut options = Options::preset(self.preset);
        options.discard_seconds = number(&self.discard, 3, 600, T::DiscardSeconds)?;
        options.claim_seconds = number(&self.claim, 3, 600, T::ClaimSeconds)?;
        options.start_seconds = number(&self.start, 5, 600, T::StartSeconds)?;
        Ok(TableSpec {
            name: self.name.trim().to_string(),
            preset: self.preset,
            options,
            stake,
            hands,
            bots: self.bots.min(3),
        })
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
    /// At a full table, before its set-up is agreed.
    pub seated: Option<Seated>,
    /// The wall clock (ticked while the countdown runs).
    pub now: Option<Instant>,
}

/// What the lobby is told.
#[derive(Clone, Debug)]
pub enum Message {
    /// The table name typed.
    Name(String),
    /// A preset picked (the timers take its defaults).
    Preset(Ruleset),
    /// The stake typed.
    Stake(String),
    /// The hands typed.
    Hands(String),
    /// Seats for bots picked.
    Bots(u8),
    /// Seconds to discard typed.
    Discard(String),
    /// Seconds to claim typed.
    Claim(String),
    /// Seconds to accept typed.
    Start(String),
    /// Open the table.
    Create,
    /// Take a seat.
    Sit(TableId),
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
}

/// What the app should do after a lobby message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Exit {
    /// Stay.
    Stay,
    /// Back to the home screen.
    Home,
}

/// A difference between a table's options and its preset's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    /// The option's name (as in the rules document).
    pub option: String,
    /// The preset's value.
    pub preset: String,
    /// The table's value.
    pub table: String,
}

/// Every option of `options` that differs from its preset's, in the options' order.
pub fn differences(options: &Options) -> Vec<Difference> {
    let preset = Options::preset(options.ruleset);
    let as_map = |o: &Options| match serde_json::to_value(o) {
        Ok(serde_json::Value::Object(m)) => m,
        _ => serde_json::Map::new(),
    };
    let (p, t) = (as_map(&preset), as_map(options));
    t.iter()
        .filter(|(k, v)| p.get(*k) != Some(*v))
        .map(|(k, v)| Difference {
            option: k.clone(),
            preset: p.get(k).map_or_else(|| "-".into(), show_value),
            table: show_value(v),
        })
        .collect()
}

fn show_value(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Null => "none".into(),
        other => other.to_string(),
    }
}

/// An option's name as the player reads it.
fn option_name(lang: Lang, option: &str) -> String {
    match option {
        "discard_seconds" => lang.t(T::DiscardSeconds).to_string(),
        "claim_seconds" => lang.t(T::ClaimSeconds).to_string(),
        "start_seconds" => lang.t(T::StartSeconds).to_string(),
        other => other.to_string(),
    }
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
        self.seated
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

    fn request(&mut self, r: Request) {
        match &self.link {
            Some(l) => {
                if !l.send(r) {
                    self.notice = Some("the network thread has stopped".into());
                }
            }
            None => self.notice = Some("the network is not up yet".into()),
        }
    }

    /// Handles a message.
    pub fn update(&mut self, message: Message, lang: Lang) -> Exit {
        match message {
            Message::Name(s) => self.form.name = s.chars().take(40).collect(),
            Message::Preset(p) => {
                let name = std::mem::take(&mut self.form.name);
                let (stake, hands, bots) = (
                    self.form.stake.clone(),
                    self.form.hands.clone(),
                    self.form.bots,
                );
                self.form = Form {
                    name,
                    stake,
                    hands,
                    bots,
                    ..Form::for_preset(p)
                };
            }
            Message::Stake(s) => self.form.stake = s,
            Message::Hands(s) => self.form.hands = s,
            Message::Bots(b) => self.form.bots = b.min(3),
            Message::Discard(s) => self.form.discard = s,
            Message::Claim(s) => self.form.claim = s,
            Message::Start(s) => self.form.start = s,
            Message::Create => match self.form.spec() {
                Ok(spec) => {
                    self.notice = None;
                    self.request(Request::Host(Box::new(spec)));
                }
                Err((key, typed)) => {
                    self.notice = Some(lang.f(T::BadField, &[&lang.t(key), &typed]));
                }
            },
            Message::Sit(t) => {
                self.notice = None;
                self.asking = Some(t);
                self.request(Request::Sit(t));
            }
            Message::Stand => {
                self.asking = None;
                self.request(Request::Stand);
            }
            Message::FillBots => self.request(Request::FillBots),
            Message::Address(s) => self.address = s,
            Message::Dial => {
                let a = self.address.trim().to_string();
                if !a.is_empty() {
                    self.notice = None;
                    self.request(Request::Dial(a));
                }
            }
            Message::Accept => {
                if let Some(s) = &mut self.seated
                    && s.proposal.is_some()
                    && !s.accepted
                {
                    s.accepted = true;
                    self.request(Request::Accept);
                }
            }
            Message::Leave => {
                if self.seated.take().is_some() {
                    self.request(Request::Leave);
                }
            }
            Message::Back => {
                if self.my_table().is_some() || self.asking.is_some() {
                    self.asking = None;
                    self.request(Request::Stand);
                }
                return Exit::Home;
            }
            Message::Tick(now) => self.now = Some(now),
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
            NetEvent::Disconnected(_) => self.peers = self.peers.saturating_sub(1),
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
                let who = self
                    .seated
                    .as_ref()
                    .and_then(|s| s.roster.advert.seats.get(seat as usize).cloned().flatten())
                    .map_or_else(|| seat.to_string(), |s| s.name);
                self.notice = Some(lang.f(T::SetupFailedSeat, &[&who]));
                self.seated = None;
            }
            NetEvent::Incompatible { peer, theirs } => {
                self.notice = Some(lang.f(T::LanProblem, &[&format!("{peer}: {theirs}")]));
            }
            NetEvent::Misbehaved { why, .. } | NetEvent::Fatal(why) => {
                self.notice = Some(lang.f(T::LanProblem, &[&why]));
            }
            _ => {}
        }
        false
    }

    /// A request refused by the network.
    pub fn refused(&mut self, why: String, lang: Lang) {
        self.asking = None;
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
        let mut top = row![
            bold(lang.t(T::LobbyTitle), 22.0, ACCENT),
            label(lang.f(T::LobbyPeers, &[&self.peers]), 14.0, MUTED),
            Space::new().width(Length::Fill),
            action(lang.t(T::Back), 14.0, Some(Message::Back)).style(button::secondary),
        ]
        .spacing(14)
        .align_y(Alignment::Center);
        if let Some(n) = &self.notice {
            top = top.push(label(n.as_str(), 14.0, WARN));
        }
        container(column![top, body].spacing(12))
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
            Some(s) => s.name.clone(),
        }
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
                let t = self.seat_text(lang, s.as_ref(), runner);
                let color = if s.is_some() { ON_FELT } else { MUTED };
                r.push(
                    container(label(format!("{} · {t}", i + 1), 14.0, color))
                        .padding([4, 8])
                        .style(panel),
                )
            });
        let mut head = row![
            bold(a.name.as_str(), 18.0, ON_FELT),
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
                &lang.f(T::Hands, &[&a.hands]),
            ],
        )];
        if a.bots > 0 && a.state == TableState::Open {
            details.push(lang.f(T::LobbyBotsLater, &[&a.bots]));
        }
        if a.options_hash != mahjong_net::lobby::options_hash(a.preset) {
            details.push(lang.t(T::Differences).to_string());
        }
        let mut buttons = row![].spacing(8);
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
        container(
            column![
                head,
                details
                    .into_iter()
                    .fold(row![].spacing(12), |r, d| r.push(label(d, 14.0, MUTED))),
                seats,
                buttons
            ]
            .spacing(6),
        )
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
        container(scrollable(list).height(Length::Fill))
            .width(Length::FillPortion(3))
            .height(Length::Fill)
            .into()
    }

    fn side_view(&self, lang: Lang) -> Element<'_, Message> {
        let f = &self.form;
        let field = |key: T, value: &str, on: fn(String) -> Message| {
            column![
                label(lang.t(key), 13.0, MUTED),
                text_input("", value).on_input(on).padding(6).size(14),
            ]
            .spacing(2)
        };
        let presets = Ruleset::ALL.iter().fold(row![].spacing(6), |r, &p| {
            let b = button(text(lang.t(preset_name(p))).size(14))
                .padding([4, 10])
                .on_press(Message::Preset(p));
            r.push(if p == f.preset {
                b.style(button::primary)
            } else {
                b.style(button::secondary)
            })
        });
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
        let can_create = self.my_table().is_none() && self.asking.is_none();
        let form = column![
            bold(lang.t(T::CreateTitle), 18.0, ON_FELT),
            column![
                label(lang.t(T::TableName), 13.0, MUTED),
                text_input("", &f.name)
                    .id(NAME_FIELD)
                    .on_input(Message::Name)
                    .padding(6)
                    .size(14),
            ]
            .spacing(2),
            label(lang.t(T::Preset), 13.0, MUTED),
            presets,
            row![
                field(T::StakeField, &f.stake, Message::Stake),
                field(T::HandsField, &f.hands, Message::Hands),
            ]
            .spacing(8),
            label(lang.t(T::BotsField), 13.0, MUTED),
            bots,
            row![
                field(T::DiscardSeconds, &f.discard, Message::Discard),
                field(T::ClaimSeconds, &f.claim, Message::Claim),
            ]
            .spacing(8),
            field(T::StartSeconds, &f.start, Message::Start),
            action(
                lang.t(T::CreateTable),
                16.0,
                can_create.then_some(Message::Create)
            )
            .style(button::success),
        ]
        .spacing(8);
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
        container(scrollable(column![form, address].spacing(18)).height(Length::Fill))
            .padding(12)
            .width(Length::FillPortion(2))
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
            bold(lang.f(T::SetupTitle, &[&a.name]), 24.0, ACCENT),
            label(lang.f(T::SetupBy, &[&host]), 14.0, MUTED),
            seats,
        ]
        .spacing(10)
        .max_width(760);
        match &s.proposal {
            None => col = col.push(label(lang.t(T::WaitingSetup), 16.0, MUTED)),
            Some((p, _)) => {
                let length = match p.length {
                    SessionLength::Hands(n) => lang.f(T::Hands, &[&n]),
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
                let diffs = differences(&p.options);
                if diffs.is_empty() {
                    col = col.push(label(lang.t(T::NoDifferences), 15.0, MUTED));
                } else {
                    let list = diffs.iter().fold(column![].spacing(4), |c, d| {
                        c.push(bold(
                            lang.f(
                                T::DiffLine,
                                &[&option_name(lang, &d.option), &d.preset, &d.table],
                            ),
                            15.0,
                            ACCENT,
                        ))
                    });
                    col = col.push(
                        container(
                            column![
                                bold(lang.t(T::Differences), 16.0, ON_FELT),
                                list,
                                label(lang.t(T::DiffWhy), 12.0, MUTED),
                            ]
                            .spacing(6),
                        )
                        .padding(10)
                        .style(panel),
                    );
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
        container(col).center_x(Length::Fill).into()
    }
}
