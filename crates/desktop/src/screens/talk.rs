//! Table talk at a LAN table, played or watched (issue 29, docs/watching.md "Talk"): a panel
//! beside the table with the last lines said (the sender's name, "(watching)" for a watcher,
//! the line), who watches, a row of quick phrases and emotes in the player's language, and a
//! field to say a line. A watcher at a table whose host lets no watcher talk only reads.
//!
//! The panel only asks and shows: a line to say goes out as [`crate::lan::Request::Say`] (the
//! LAN thread sends it on a task of its own, so no move waits for talk); what is said at the
//! table, the player's own lines included once sent, comes in as [`NetEvent::Chat`], and a line
//! that was not sent as [`crate::lan::Feed::Unsaid`] with the network's reason, said here in
//! the player's language.
//!
//! Muting is by the sender's identity key ([`mahjong_store::Muted`], `muted.json` in the data
//! dir, the file `mahjong play` and `mahjong watch` use): a muted person's lines disappear and
//! stop coming, whatever name they take later; a chip under the lines unmutes them. The player
//! cannot mute themself.
//!
//! Emotes: the app's font (a subset of Noto Sans CJK, assets/fonts) has no emoji, and the app
//! draws with that font only. 👍 and 😂 are sent as those characters — a terminal shows them, and
//! an emote means the same in both languages — and the app shows them as words, 赞 / "Thumbs
//! up" and 哈哈 / "Ha ha", on the buttons and in the lines.

use std::collections::{BTreeMap, VecDeque};
use std::path::PathBuf;

use ed25519_dalek::VerifyingKey;
use iced::widget::{button, column, container, row, scrollable, text, text_input, tooltip};
use iced::{Alignment, Element, Length};
use mahjong_net::NetEvent;
use mahjong_store::Muted;

use super::{ACCENT, MUTED, ON_FELT, WARN, bold, label, panel};
use crate::i18n::{Lang, T, Text};

/// The talk field's widget id (tests type into it).
pub const FIELD: &str = "talk-field";

/// Takes the keyboard from the talk field (and any other): focusing an id no widget carries
/// unfocuses them all. Done once a typed line is sent, so that the table's keys (1–9, Enter,
/// C, P, …) play again; Escape in the field does the same.
pub fn leave_field<M>() -> iced::Task<M> {
    iced::widget::operation::focus("talk-no-field")
}

/// Lines kept (the panel shows the last of them that fit, and scrolls back).
pub const KEPT: usize = 60;

/// The longest line the network sends.
pub const MAX_CHARS: usize = mahjong_net::wire::MAX_CHAT_CHARS;

/// The panel's width beside a table laid out `width` wide (the table gets the rest).
pub fn width(width: f32) -> f32 {
    if width >= 1200.0 { 250.0 } else { 200.0 }
}

/// The quick phrases and emotes: what is sent, and the catalogue key of the button. An emote
/// is sent as its emoji (the same in both languages) and shown as a word.
pub fn phrases(lang: Lang) -> [(&'static str, T); 7] {
    let said = |k: T| lang.t(k);
    [
        (said(T::TalkHurry), T::TalkHurry),
        (said(T::TalkNiceHand), T::TalkNiceHand),
        (said(T::TalkSorry), T::TalkSorry),
        (said(T::TalkWellPlayed), T::TalkWellPlayed),
        (said(T::TalkOneMore), T::TalkOneMore),
        (THUMBS_UP, T::TalkThumbsUp),
        (LAUGH, T::TalkLaugh),
    ]
}

/// The thumbs-up emote as sent.
pub const THUMBS_UP: &str = "👍";
/// The laughing emote as sent.
pub const LAUGH: &str = "😂";

/// The word an emote line is shown as, if the line is an emote.
fn emote(text: &str) -> Option<T> {
    match text.trim() {
        THUMBS_UP => Some(T::TalkThumbsUp),
        LAUGH => Some(T::TalkLaugh),
        _ => None,
    }
}

/// A line said at the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// The sender's name.
    pub name: String,
    /// The sender's identity key.
    pub from: VerifyingKey,
    /// The line.
    pub text: String,
    /// Said by a watcher.
    pub watcher: bool,
}

/// Why a line was not sent, by kind (the network says it in English).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unsent {
    /// More than the lines a sender may say in a while.
    TooMany {
        /// Lines.
        lines: u32,
        /// In this many seconds.
        seconds: u32,
    },
    /// Longer than a line may be.
    TooLong(u32),
    /// The table does not let watchers talk.
    WatchersQuiet,
    /// Not at a table (it ended).
    NotAtTable,
    /// Anything else, in the network's words.
    Other(String),
}

impl Unsent {
    /// The kind of the network's reason (`mahjong-net`'s `say`).
    pub fn of(why: &str) -> Unsent {
        let numbers: Vec<u32> = why
            .split(|c: char| !c.is_ascii_digit())
            .filter_map(|n| n.parse().ok())
            .collect();
        if why.contains("lines in") && numbers.len() == 2 {
            Unsent::TooMany {
                lines: numbers[0],
                seconds: numbers[1],
            }
        } else if why.contains("characters") && numbers.len() == 1 {
            Unsent::TooLong(numbers[0])
        } else if why.contains("watchers may not talk") {
            Unsent::WatchersQuiet
        } else if why.contains("not at a table") {
            Unsent::NotAtTable
        } else {
            Unsent::Other(why.to_string())
        }
    }

    /// Said in `lang`.
    pub fn text(&self, lang: Lang) -> String {
        match self {
            Unsent::TooMany { lines, seconds } => lang.f(T::TalkTooMany, &[lines, seconds]),
            Unsent::TooLong(n) => lang.f(T::TalkTooLong, &[n]),
            Unsent::WatchersQuiet => lang.t(T::TalkWatchersQuiet).to_string(),
            Unsent::NotAtTable => lang.t(T::TalkNotAtTable).to_string(),
            Unsent::Other(why) => {
                lang.f(T::TalkNotSent, &[&crate::i18n::network_detail(lang, why)])
            }
        }
    }
}

/// What the panel is told.
#[derive(Clone, Debug)]
pub enum Message {
    /// A quick phrase or emote (its index in [`phrases`]).
    Phrase(usize),
    /// The text field changed.
    Draft(String),
    /// Say the text field's line (Send, or Enter in the field).
    Send,
    /// Mute this sender.
    Mute(VerifyingKey),
    /// Unmute this sender.
    Unmute(VerifyingKey),
    /// Turn this watcher away (the table's host only).
    TurnAway(String),
}

/// The talk at one table.
#[derive(Debug)]
pub struct State {
    data_dir: PathBuf,
    /// The player's identity key (never muted).
    me: VerifyingKey,
    muted: Muted,
    lines: VecDeque<Line>,
    /// The last name heard from each key (to name a muted person's chip).
    names: BTreeMap<[u8; 32], String>,
    /// Who watches now.
    pub watchers: Vec<String>,
    /// Watchers may talk.
    pub watchers_talk: bool,
    /// The text field.
    pub draft: String,
    /// The line last sent from the field, until it is heard back (restored if refused).
    pending: Option<String>,
    /// Why the last line was not sent.
    pub unsent: Option<Unsent>,
    /// Muting could not be remembered (the data dir refused it).
    pub unsaved: bool,
    /// The player watches this table (does not sit at it).
    pub watching: bool,
    /// The player hosts this table: it may turn a watcher away.
    pub hosting: bool,
    /// The identity keys of the people seated (their lines are players' lines).
    seated: Vec<VerifyingKey>,
}

impl State {
    /// The talk of a table just sat at, for the player `me` with the data dir `data_dir` (whose
    /// muted people are read now).
    pub fn new(data_dir: PathBuf, me: VerifyingKey) -> State {
        State {
            muted: Muted::load(&data_dir),
            data_dir,
            me,
            lines: VecDeque::new(),
            names: BTreeMap::new(),
            watchers: Vec::new(),
            watchers_talk: true,
            draft: String::new(),
            pending: None,
            unsent: None,
            unsaved: false,
            watching: false,
            hosting: false,
            seated: Vec::new(),
        }
    }

    /// The talk of a table whose seats `roster` lists (`watching`: the player watches it).
    pub fn at(
        data_dir: PathBuf,
        me: VerifyingKey,
        roster: &mahjong_net::Roster,
        watching: bool,
    ) -> State {
        State {
            watching,
            hosting: !watching && roster.advert.host == me,
            seated: roster
                .advert
                .seats
                .iter()
                .flatten()
                .filter(|s| !s.bot)
                .map(|s| s.peer)
                .collect(),
            ..State::new(data_dir, me)
        }
    }

    /// Handles a message; a line to say at the table comes back (the caller sends it).
    pub fn update(&mut self, message: Message, lang: Lang) -> Option<String> {
        match message {
            Message::Phrase(i) => {
                let (said, _) = *phrases(lang).get(i)?;
                self.unsent = None;
                Some(said.to_string())
            }
            Message::Draft(d) => {
                self.draft = d;
                None
            }
            Message::Send => {
                let line = self.draft.trim().to_string();
                if line.is_empty() {
                    return None;
                }
                if line.chars().count() > MAX_CHARS {
                    self.unsent = Some(Unsent::TooLong(MAX_CHARS as u32));
                    return None;
                }
                self.unsent = None;
                self.draft.clear();
                self.pending = Some(line.clone());
                Some(line)
            }
            Message::Mute(key) => {
                self.set_muted(&key, true);
                None
            }
            Message::Unmute(key) => {
                self.set_muted(&key, false);
                None
            }
            // The app sends it to the network (see `App::update`).
            Message::TurnAway(_) => None,
        }
    }

    fn set_muted(&mut self, key: &VerifyingKey, on: bool) {
        if *key == self.me {
            return;
        }
        self.muted.set(key.as_bytes(), on);
        self.unsaved = self.muted.save(&self.data_dir).is_err();
        if on {
            self.lines.retain(|l| l.from != *key);
        }
    }

    /// The network's word: a line said, or who watches now. Other events are not talk.
    pub fn on_net(&mut self, ev: &NetEvent) {
        match ev {
            NetEvent::Chat {
                name,
                from,
                text,
                watcher,
            } => self.heard(Line {
                name: name.clone(),
                from: *from,
                text: text.clone(),
                // A watcher's network marks every line its host passes on as a watcher's:
                // who sits at the table says who plays.
                watcher: *watcher && !self.seated.contains(from),
            }),
            NetEvent::Watchers { names, chat } => {
                self.watchers = names.clone();
                self.watchers_talk = *chat;
            }
            _ => {}
        }
    }

    /// A line heard (not kept when its sender is muted).
    pub fn heard(&mut self, line: Line) {
        self.muted.heard_from(&line.name, &line.from);
        self.names.insert(*line.from.as_bytes(), line.name.clone());
        if line.from == self.me {
            // The player's own line went out.
            self.unsent = None;
            if self.pending.as_deref() == Some(line.text.as_str()) {
                self.pending = None;
            }
        }
        if self.muted.is_muted(&line.from) {
            return;
        }
        if self.lines.len() == KEPT {
            self.lines.pop_front();
        }
        self.lines.push_back(line);
    }

    /// A line was not sent: why (the network's words); a line typed comes back into the field.
    pub fn refused(&mut self, why: &str) {
        self.unsent = Some(Unsent::of(why));
        if let Some(line) = self.pending.take()
            && self.draft.is_empty()
        {
            self.draft = line;
        }
    }

    /// The lines shown, oldest first (none of a muted sender's).
    pub fn lines(&self) -> impl Iterator<Item = &Line> {
        self.lines.iter().filter(|l| !self.muted.is_muted(&l.from))
    }

    /// Whether `key` is muted.
    pub fn is_muted(&self, key: &VerifyingKey) -> bool {
        self.muted.is_muted(key)
    }

    /// The people heard at this table who are muted, by name.
    fn muted_here(&self) -> Vec<(VerifyingKey, &str)> {
        self.names
            .iter()
            .filter_map(|(k, name)| {
                let key = VerifyingKey::from_bytes(k).ok()?;
                self.muted.is_muted(&key).then_some((key, name.as_str()))
            })
            .collect()
    }

    /// "观战：Dan、Eve" / "Watching: Dan and Eve", when anyone watches.
    pub fn watching_line(&self, lang: Lang) -> Option<String> {
        if self.watchers.is_empty() {
            return None;
        }
        let names = list(lang, &self.watchers);
        Some(if self.watchers_talk {
            lang.f(T::TalkWatching, &[&names])
        } else {
            lang.f(T::TalkWatchingQuiet, &[&names])
        })
    }

    /// The panel, `w` wide.
    pub fn view(&self, lang: Lang, w: f32) -> Element<'_, Message> {
        let mut head = column![bold(lang.t(T::TalkTitle), 15.0, ACCENT)].spacing(2);
        if let Some(watching) = self.watching_line(lang) {
            head = head.push(text(watching).size(12).color(MUTED).width(Length::Fill));
        }
        // The host may turn a watcher away: a small button per watcher, said in its tip.
        if self.hosting && !self.watchers.is_empty() {
            let away = self.watchers.iter().fold(row![].spacing(4), |r, name| {
                r.push(tooltip(
                    button(text(lang.f(T::TalkTurnAway, &[name])).size(11))
                        .padding([2, 6])
                        .style(button::secondary)
                        .on_press(Message::TurnAway(name.clone())),
                    container(label(lang.f(T::TalkTurnAwayTip, &[name]), 13.0, ON_FELT))
                        .padding(6)
                        .style(super::tip),
                    tooltip::Position::Bottom,
                ))
            });
            head = head.push(away.wrap());
        }
        let mut said = column![].spacing(4).width(Length::Fill);
        let mut any = false;
        for l in self.lines() {
            any = true;
            said = said.push(self.line_view(l, lang));
        }
        if !any {
            said = said.push(label(lang.t(T::TalkNobody), 12.0, MUTED));
        }
        let lines = scrollable(said)
            .anchor_bottom()
            .height(Length::Fill)
            .width(Length::Fill);
        let mut chips = row![].spacing(4);
        for (key, name) in self.muted_here() {
            chips = chips.push(tooltip(
                button(text(lang.f(T::TalkMutedChip, &[&name])).size(11))
                    .padding([2, 6])
                    .style(button::secondary)
                    .on_press(Message::Unmute(key)),
                container(label(lang.f(T::TalkUnmuteTip, &[&name]), 13.0, ON_FELT))
                    .padding(6)
                    .style(super::tip),
                tooltip::Position::Top,
            ));
        }
        let mut quick = row![].spacing(4);
        for (i, (_, key)) in phrases(lang).into_iter().enumerate() {
            quick = quick.push(
                button(text(lang.t(key)).size(12))
                    .padding([3, 7])
                    .style(button::secondary)
                    .on_press(Message::Phrase(i)),
            );
        }
        // A watcher at a table whose host lets no watcher talk reads only (the line on who
        // watches says so).
        let quiet = self.watching && !self.watchers_talk;
        let field = row![
            text_input(lang.t(T::TalkPlaceholder), &self.draft)
                .id(FIELD)
                .on_input(Message::Draft)
                .on_submit(Message::Send)
                .padding(5)
                .size(13),
            button(text(lang.t(T::TalkSend)).size(13).font(crate::FONT_BOLD))
                .padding([5, 10])
                .style(button::primary)
                .on_press_maybe((!self.draft.trim().is_empty()).then_some(Message::Send)),
        ]
        .spacing(4)
        .align_y(Alignment::Center);
        let mut body = column![head, lines, chips.wrap()]
            .spacing(6)
            .height(Length::Fill);
        if !quiet {
            body = body.push(quick.wrap().vertical_spacing(4)).push(field);
        }
        if let Some(why) = &self.unsent {
            body = body.push(text(why.text(lang)).size(12).color(WARN));
        }
        if self.unsaved {
            body = body.push(text(lang.t(T::TalkMuteUnsaved)).size(12).color(WARN));
        }
        container(body)
            .padding(8)
            .width(Length::Fixed(w))
            .height(Length::Fill)
            .style(panel)
            .into()
    }

    fn line_view<'a>(&'a self, l: &'a Line, lang: Lang) -> Element<'a, Message> {
        let who = if l.watcher {
            format!("{}{}", l.name, lang.t(T::TalkWatcherTag))
        } else {
            l.name.clone()
        };
        let name: Element<'a, Message> = if l.from == self.me {
            bold(who, 12.0, ACCENT)
        } else {
            tooltip(
                button(text(who).size(12).font(crate::FONT_BOLD).color(ACCENT))
                    .padding(0)
                    .style(button::text)
                    .on_press(Message::Mute(l.from)),
                container(label(lang.f(T::TalkMuteTip, &[&l.name]), 13.0, ON_FELT))
                    .padding(6)
                    .style(super::tip),
                tooltip::Position::Top,
            )
            .into()
        };
        let said: Element<'a, Message> = match emote(&l.text) {
            Some(k) => bold(lang.t(k), 13.0, ACCENT),
            None => text(&l.text)
                .size(13)
                .color(ON_FELT)
                .width(Length::Fill)
                .into(),
        };
        column![name, said].spacing(0).into()
    }
}

/// Names as a list: "Dan、Eve" / "Dan and Eve", "Dan, Eve and Fay".
pub fn list(lang: Lang, names: &[String]) -> String {
    match (lang, names) {
        (Lang::Zh, _) => names.join("、"),
        (Lang::En, [only]) => only.clone(),
        (Lang::En, [rest @ .., last]) => format!("{} and {last}", rest.join(", ")),
        (Lang::En, []) => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_networks_reasons_are_read_by_kind() {
        assert_eq!(
            Unsent::of("at most 5 lines in 10 seconds"),
            Unsent::TooMany {
                lines: 5,
                seconds: 10
            }
        );
        assert_eq!(
            Unsent::of("a line holds at most 200 characters"),
            Unsent::TooLong(200)
        );
        assert_eq!(
            Unsent::of("watchers may not talk at this table"),
            Unsent::WatchersQuiet
        );
        assert_eq!(Unsent::of("not at a table"), Unsent::NotAtTable);
        let other = Unsent::of("the network stopped");
        assert_eq!(other, Unsent::Other("the network stopped".into()));
        assert!(!other.text(Lang::Zh).contains("network"));
        assert_eq!(
            Unsent::of("at most 5 lines in 10 seconds").text(Lang::Zh),
            "没有发出去：10 秒内最多说 5 句"
        );
    }

    #[test]
    fn names_are_listed_as_people_say_them() {
        let n = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(list(Lang::En, &n(&["Dan"])), "Dan");
        assert_eq!(list(Lang::En, &n(&["Dan", "Eve"])), "Dan and Eve");
        assert_eq!(
            list(Lang::En, &n(&["Dan", "Eve", "Fay"])),
            "Dan, Eve and Fay"
        );
        assert_eq!(list(Lang::Zh, &n(&["Dan", "Eve"])), "Dan、Eve");
    }
}
