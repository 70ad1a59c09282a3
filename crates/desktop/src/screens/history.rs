//! The history: every table and hand of the player's ledger (date, players, result in words,
//! payments with each seat's running total, the verification status), every player's
//! balance and level (the rules' level table, 贫民 … 富可敌国), the export of a hand's signed
//! log to a file, and the verification of a file someone sent (the checks of `mahjong
//! verify`), with the verdict in plain words. Each table has its story ([`super::story`]: the
//! chart of running balances, the biggest hand, wins, self-draws and deal-ins, the
//! settle-up), open for the newest table and a click away for the others.
//!
//! Reading the store, verifying and exporting run in `Task`s ([`crate::records`]); the
//! screen shows "reading…" until the history arrives. A hand's status is "signed by all four"
//! (or "aborted: 3 votes") as booked; "Verify table" replays the table's stored log offline
//! and marks each hand verified or names the fault (remembered in `verified.json` in the data
//! directory, so the next opening shows it at once). The newest tables come first; long
//! histories are shown a page at a time.

use crate::i18n::Text;
use std::collections::BTreeMap;
use std::path::PathBuf;

use iced::widget::{Space, button, column, container, row, scrollable, text_input};
use iced::{Alignment, Element, Length, Task};
use mahjong_bot::Level;
use mahjong_rules::{Money, Outcome, Seat};
use mahjong_store::{LogCheck, VerifyError, level, to_hex};
use mahjong_table::HandResult;

use super::{ACCENT, MUTED, ON_FELT, WARN, action, bold, label, level_name, panel, preset_name};
use crate::i18n::records_error;
use crate::i18n::{Lang, T};
use crate::records::{
    self, HandCheck, History, PlayerEntry, RecordsError, TableEntry, Unchecked, practice_level,
};

/// The id of the export path field.
pub const EXPORT_FIELD: &str = "export-path";
/// The id of the verify path field.
pub const VERIFY_FIELD: &str = "verify-path";
/// Hands shown per page.
pub const PAGE: usize = 60;

/// The id of a hand's replay button (tests click it).
pub fn replay_id(table: &[u8; 32], hand: u32) -> String {
    format!("replay-{}-{hand}", &to_hex(table)[..12])
}

/// The id of a hand's export button.
pub fn export_id(table: &[u8; 32], hand: u32) -> String {
    format!("export-{}-{hand}", &to_hex(table)[..12])
}

/// Offline checks remembered from earlier runs, per table and hand.
pub type Remembered = BTreeMap<[u8; 32], BTreeMap<u32, HandCheck>>;

/// A table's offline check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TableCheck {
    /// Running.
    Running,
    /// Each booked hand's status.
    Done(BTreeMap<u32, HandCheck>),
    /// The check could not run.
    Failed(RecordsError),
}

/// The export form of one hand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportForm {
    /// The table.
    pub table: [u8; 32],
    /// The hand.
    pub hand: u32,
    /// The file to write.
    pub path: String,
    /// Written (path, bytes), or why not.
    pub outcome: Option<Result<(PathBuf, u64), RecordsError>>,
}

/// The history screen.
#[derive(Clone, Debug)]
pub struct State {
    /// The data directory.
    pub dir: PathBuf,
    /// The history (`None` while it is read), or why it cannot be read.
    pub history: Option<Result<History, RecordsError>>,
    /// Offline checks of tables.
    pub checks: BTreeMap<[u8; 32], TableCheck>,
    /// The export form, once a hand's Export was clicked.
    pub export: Option<ExportForm>,
    /// The verify field.
    pub verify_path: String,
    /// Verifying a file.
    pub verifying: bool,
    /// The last file's verdict.
    pub verdict: Option<Result<LogCheck, VerifyError>>,
    /// Hands shown (pages).
    pub shown: usize,
    /// The tables whose story is open (the newest, once read).
    pub stories: std::collections::BTreeSet<[u8; 32]>,
}

/// What the history screen is told.
#[derive(Clone, Debug)]
pub enum Message {
    /// The history was read, with the offline checks remembered from earlier runs.
    Loaded(Result<(History, Remembered), RecordsError>),
    /// Replay a table's stored log offline.
    VerifyTable([u8; 32]),
    /// A table's check is done.
    TableChecked([u8; 32], Result<BTreeMap<u32, HandCheck>, RecordsError>),
    /// Open the export form of a hand.
    PickExport([u8; 32], u32),
    /// The export path changed.
    ExportPath(String),
    /// Write the export.
    Export,
    /// The export was written (or not).
    Exported(Result<(PathBuf, u64), RecordsError>),
    /// The verify path changed.
    VerifyPath(String),
    /// Verify the file.
    VerifyFile,
    /// A file's verdict.
    FileVerified(Box<Result<LogCheck, VerifyError>>),
    /// Replay a hand.
    Replay([u8; 32], u32),
    /// Show more hands.
    More,
    /// Open or close a table's story.
    Story([u8; 32]),
    /// Back to the home screen.
    Back,
}

/// What the app does after a history message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Exit {
    /// Stay.
    Stay,
    /// Back home.
    Home,
    /// Replay this hand.
    Replay([u8; 32], u32),
}

/// Reads the history of `dir` (blocking: call it from a task).
pub fn load(dir: PathBuf) -> Message {
    Message::Loaded(records::load(&dir).map(|h| (h, records::remembered_checks(&dir))))
}

/// Checks the stored log of `table` (blocking).
pub fn check_table(dir: PathBuf, table: [u8; 32]) -> Message {
    Message::TableChecked(table, records::verify_table(&dir, &table))
}

/// Writes an export (blocking).
pub fn export(dir: PathBuf, table: [u8; 32], hand: u32, path: PathBuf) -> Message {
    Message::Exported(records::export_hand(&dir, &table, hand, &path).map(|n| (path, n)))
}

/// Verifies a file (blocking).
pub fn verify(path: PathBuf) -> Message {
    Message::FileVerified(Box::new(records::verify_path(&path)))
}

fn blocking<F: FnOnce() -> Message + Send + 'static>(f: F) -> Task<Message> {
    Task::perform(async move { f() }, |m| m)
}

impl State {
    /// The screen, and the task that reads the history.
    pub fn open(dir: PathBuf) -> (State, Task<Message>) {
        let state = State {
            dir: dir.clone(),
            history: None,
            checks: BTreeMap::new(),
            export: None,
            verify_path: String::new(),
            verifying: false,
            verdict: None,
            shown: PAGE,
            stories: std::collections::BTreeSet::new(),
        };
        (state, blocking(move || load(dir)))
    }

    /// Handles a message: what the app does next, and work to run off the UI thread.
    pub fn update(&mut self, message: Message) -> (Exit, Task<Message>) {
        let task = match message {
            Message::Loaded(h) => {
                self.history = Some(h.map(|(h, remembered)| {
                    for (table, checks) in remembered {
                        self.checks.entry(table).or_insert(TableCheck::Done(checks));
                    }
                    if let Some(newest) = h.tables.last() {
                        self.stories.insert(newest.id);
                    }
                    h
                }));
                Task::none()
            }
            Message::VerifyTable(table) => {
                if self.checks.get(&table) == Some(&TableCheck::Running) {
                    return (Exit::Stay, Task::none());
                }
                self.checks.insert(table, TableCheck::Running);
                let dir = self.dir.clone();
                blocking(move || check_table(dir, table))
            }
            Message::TableChecked(table, r) => {
                let check = match r {
                    Ok(map) => TableCheck::Done(map),
                    Err(e) => TableCheck::Failed(e),
                };
                self.checks.insert(table, check);
                Task::none()
            }
            Message::PickExport(table, hand) => {
                let path = records::default_export_path(&self.dir, &table, hand);
                self.export = Some(ExportForm {
                    table,
                    hand,
                    path: path.display().to_string(),
                    outcome: None,
                });
                Task::none()
            }
            Message::ExportPath(p) => {
                if let Some(f) = self.export.as_mut() {
                    f.path = p;
                    f.outcome = None;
                }
                Task::none()
            }
            Message::Export => match &self.export {
                Some(f) if !f.path.trim().is_empty() => {
                    let (dir, table, hand) = (self.dir.clone(), f.table, f.hand);
                    let path = PathBuf::from(f.path.trim());
                    blocking(move || export(dir, table, hand, path))
                }
                _ => Task::none(),
            },
            Message::Exported(r) => {
                if let Some(f) = self.export.as_mut() {
                    f.outcome = Some(r);
                }
                Task::none()
            }
            Message::VerifyPath(p) => {
                self.verify_path = p;
                Task::none()
            }
            Message::VerifyFile => {
                if self.verify_path.trim().is_empty() || self.verifying {
                    return (Exit::Stay, Task::none());
                }
                self.verifying = true;
                self.verdict = None;
                let path = PathBuf::from(self.verify_path.trim());
                blocking(move || verify(path))
            }
            Message::FileVerified(v) => {
                self.verifying = false;
                self.verdict = Some(*v);
                Task::none()
            }
            Message::Replay(table, hand) => return (Exit::Replay(table, hand), Task::none()),
            Message::More => {
                self.shown += PAGE;
                Task::none()
            }
            Message::Story(table) => {
                if !self.stories.remove(&table) {
                    self.stories.insert(table);
                }
                Task::none()
            }
            Message::Back => return (Exit::Home, Task::none()),
        };
        (Exit::Stay, task)
    }

    /// The screen.
    pub fn view(&self, lang: Lang) -> Element<'_, Message> {
        let mut head = row![bold(lang.t(T::History), 24.0, ACCENT)]
            .spacing(16)
            .align_y(Alignment::Center);
        if let Some(Ok(h)) = &self.history {
            head = head.push(label(
                lang.f(T::HistoryCount, &[&h.tables.len(), &h.hand_count()]),
                15.0,
                MUTED,
            ));
        }
        head = head
            .push(Space::new().width(Length::Fill))
            .push(action(lang.t(T::Back), 15.0, Some(Message::Back)).style(button::secondary));
        let mut body = column![self.verify_panel(lang)].spacing(12);
        if let Some(f) = &self.export {
            body = body.push(export_panel(lang, f));
        }
        match &self.history {
            None => body = body.push(bold(lang.t(T::HistoryLoading), 18.0, ON_FELT)),
            Some(Err(e)) => {
                let said = records_error(lang, e);
                body = body.push(label(lang.f(T::HistoryFailed, &[&said]), 15.0, WARN));
            }
            Some(Ok(h)) if h.tables.is_empty() => {
                body = body.push(label(lang.t(T::HistoryEmpty), 16.0, ON_FELT));
            }
            Some(Ok(h)) => {
                body = body.push(players(lang, &h.players));
                let mut left = self.shown;
                for t in h.tables.iter().rev() {
                    if left == 0 {
                        break;
                    }
                    let n = t.hands.len().min(left);
                    left -= n;
                    body = body.push(self.table(lang, t, n));
                }
                if h.hand_count() > self.shown {
                    body = body.push(
                        action(
                            lang.f(T::Hands, &[&(h.hand_count() - self.shown)]),
                            14.0,
                            Some(Message::More),
                        )
                        .style(button::secondary),
                    );
                }
                body = body.push(label(lang.t(T::CellLegend), 12.0, MUTED));
            }
        }
        column![
            container(head).padding([6, 12]),
            scrollable(body.padding(12)).height(Length::Fill),
        ]
        .into()
    }

    fn verify_panel(&self, lang: Lang) -> Element<'_, Message> {
        let field = text_input(lang.t(T::VerifyPlaceholder), &self.verify_path)
            .id(VERIFY_FIELD)
            .on_input(Message::VerifyPath)
            .on_submit(Message::VerifyFile)
            .padding(6)
            .size(14);
        let go = action(
            lang.t(if self.verifying {
                T::Verifying
            } else {
                T::VerifyButton
            }),
            14.0,
            (!self.verifying).then_some(Message::VerifyFile),
        );
        let mut col = column![
            label(lang.t(T::VerifyTitle), 14.0, MUTED),
            row![field, go].spacing(8).align_y(Alignment::Center),
        ]
        .spacing(6);
        if let Some(v) = &self.verdict {
            col = col.push(verdict(lang, v));
        }
        container(col)
            .padding(10)
            .width(Length::Fill)
            .style(panel)
            .into()
    }

    fn check_text(&self, lang: Lang, t: &TableEntry, h: &records::HandEntry) -> (String, bool) {
        match self.checks.get(&t.id) {
            Some(TableCheck::Running) => (lang.t(T::Verifying).to_string(), true),
            Some(TableCheck::Failed(e)) => (
                lang.f(T::CheckUnavailable, &[&records_error(lang, e)]),
                false,
            ),
            Some(TableCheck::Done(map)) => match map.get(&h.hand) {
                Some(HandCheck::Verified) => (lang.t(T::CheckVerified).to_string(), true),
                Some(HandCheck::Fault { step, detail }) => {
                    let at = match step {
                        Some(s) => lang.f(T::CheckFaultAt, &[s]),
                        None => lang.t(T::CheckFaultLog).to_string(),
                    };
                    let said = match lang {
                        Lang::En => format!("{at} ({detail})"),
                        Lang::Zh => at,
                    };
                    (lang.f(T::CheckFault, &[&said]), false)
                }
                Some(HandCheck::Differs) => (
                    lang.f(T::CheckFault, &[&lang.t(T::CheckLedgerDiffers)]),
                    false,
                ),
                Some(HandCheck::Unavailable(u)) => {
                    let why = match u {
                        Unchecked::NoSeat => T::UnNoSeat,
                        Unchecked::NotInLog => T::UnNotInLog,
                    };
                    (lang.f(T::CheckUnavailable, &[&lang.t(why)]), false)
                }
                None => (lang.f(T::CheckUnavailable, &[&"?"]), false),
            },
            None if h.aborted_by.is_some() => (lang.t(T::CheckAborted).to_string(), true),
            None => (lang.t(T::CheckSigned).to_string(), true),
        }
    }

    fn table<'a>(&'a self, lang: Lang, t: &'a TableEntry, n: usize) -> Element<'a, Message> {
        let mut title = row![bold(
            lang.f(
                T::TableHead,
                &[
                    &date(t.created),
                    &lang.t(preset_name(t.ruleset)),
                    &t.stake,
                    &&to_hex(&t.id)[..8],
                ],
            ),
            16.0,
            ACCENT
        )]
        .spacing(10)
        .align_y(Alignment::Center);
        if t.practice.is_some() {
            title = title.push(label(lang.t(T::PracticeTag), 13.0, MUTED));
        }
        let verify = action(
            lang.t(T::VerifyTable),
            13.0,
            (self.checks.get(&t.id) != Some(&TableCheck::Running))
                .then_some(Message::VerifyTable(t.id)),
        )
        .style(button::secondary);
        let open = self.stories.contains(&t.id);
        let story = action(
            lang.t(if open { T::StoryHide } else { T::StoryShow }),
            13.0,
            Some(Message::Story(t.id)),
        )
        .style(button::secondary);
        title = title
            .push(Space::new().width(Length::Fill))
            .push(story)
            .push(verify);
        let cell =
            |s: String, w: u16, c| container(label(s, 13.0, c)).width(Length::FillPortion(w));
        let mut header = row![cell(lang.t(T::ColHand).to_string(), 2, MUTED)].spacing(6);
        for seat in 0..4u8 {
            let who = seat_label(lang, t, seat);
            header = header.push(cell(who, 4, MUTED));
        }
        header = header
            .push(cell(lang.t(T::ColResult).to_string(), 8, MUTED))
            .push(cell(lang.t(T::ColCheck).to_string(), 4, MUTED))
            .push(Space::new().width(Length::Fixed(170.0)));
        let mut col = column![title, header].spacing(4);
        let start = t.hands.len() - n;
        for h in t.hands[start..].iter().rev() {
            let mut r = row![cell(
                format!("{} · {}", h.hand, time_of_day(h.booked)),
                2,
                ON_FELT
            )]
            .spacing(6)
            .align_y(Alignment::Center);
            for seat in 0..4 {
                let p = h.payments[seat];
                let color = if p.0 > 0 {
                    ACCENT
                } else if p.0 < 0 {
                    WARN
                } else {
                    ON_FELT
                };
                r = r.push(cell(
                    lang.f(
                        T::PaymentCell,
                        &[&super::signed(p), &super::signed(h.running[seat])],
                    ),
                    4,
                    color,
                ));
            }
            let names = |s: Seat| short_label(lang, t, s);
            let (check, good) = self.check_text(lang, t, h);
            r = r
                .push(cell(result_words(lang, &names, &h.result), 8, ON_FELT))
                .push(cell(check, 4, if good { MUTED } else { WARN }))
                .push(
                    row![
                        container(
                            action(
                                lang.t(T::ReplayButton),
                                13.0,
                                Some(Message::Replay(t.id, h.hand))
                            )
                            .style(button::primary)
                        )
                        .id(replay_id(&t.id, h.hand)),
                        container(
                            action(
                                lang.t(T::ExportButton),
                                13.0,
                                Some(Message::PickExport(t.id, h.hand))
                            )
                            .style(button::secondary)
                        )
                        .id(export_id(&t.id, h.hand)),
                    ]
                    .spacing(6)
                    .width(Length::Fixed(170.0)),
                );
            col = col.push(r);
        }
        // The story closes the table's hands (they stay where they were, at the top).
        if open {
            let names = [0, 1, 2, 3].map(|s| short_label(lang, t, s));
            col = col.push(super::story::view(lang, names, &t.story));
        }
        container(col)
            .padding(10)
            .width(Length::Fill)
            .style(panel)
            .into()
    }
}

fn export_panel<'a>(lang: Lang, f: &'a ExportForm) -> Element<'a, Message> {
    let field = text_input("", &f.path)
        .id(EXPORT_FIELD)
        .on_input(Message::ExportPath)
        .on_submit(Message::Export)
        .padding(6)
        .size(14);
    let mut col = column![
        label(
            lang.f(T::ExportTitle, &[&f.hand, &&to_hex(&f.table)[..8]]),
            14.0,
            MUTED
        ),
        row![
            field,
            action(lang.t(T::ExportWrite), 14.0, Some(Message::Export))
        ]
        .spacing(8)
        .align_y(Alignment::Center),
    ]
    .spacing(6);
    match &f.outcome {
        Some(Ok((path, n))) => {
            col = col.push(label(
                lang.f(T::Exported, &[&path.display(), n]),
                14.0,
                ACCENT,
            ));
        }
        Some(Err(e)) => {
            let said = records_error(lang, e);
            col = col.push(label(lang.f(T::ExportFailed, &[&said]), 14.0, WARN));
        }
        None => {}
    }
    container(col)
        .padding(10)
        .width(Length::Fill)
        .style(panel)
        .into()
}

/// A file's verdict in plain words: what was checked, or which check failed and whom it
/// blames.
pub fn verdict<'a, M: 'a>(lang: Lang, v: &Result<LogCheck, VerifyError>) -> Element<'a, M> {
    match v {
        Ok(c) => {
            let r = &c.report;
            let mut col = column![bold(
                lang.f(
                    T::VerifyOk,
                    &[
                        &&to_hex(&r.table)[..8],
                        &r.hands.len(),
                        &r.signatures,
                        &r.steps,
                        &c.results_checked,
                    ],
                ),
                15.0,
                ACCENT
            )]
            .spacing(3);
            let names = |s: Seat| match c.names.get(s as usize) {
                Some(n) => file_name(lang, n),
                None => format!("{s}"),
            };
            for h in &r.hands {
                if c.hand.is_some_and(|only| only != h.hand) {
                    continue;
                }
                let pay: Vec<String> = h
                    .result
                    .payments
                    .iter()
                    .map(|m| super::signed(*m))
                    .collect();
                col = col.push(label(
                    lang.f(
                        T::VerifyHandLine,
                        &[
                            &h.hand,
                            &result_words(lang, &names, &h.result),
                            &pay.join(" / "),
                        ],
                    ),
                    14.0,
                    ON_FELT,
                ));
            }
            col.into()
        }
        Err(e) => {
            let head = if e.is_unreadable() {
                T::VerifyUnreadable
            } else {
                T::VerifyFault
            };
            let mut col = column![
                bold(lang.t(head), 15.0, WARN),
                label(
                    crate::i18n::verify_error(lang, e, &|n| file_name(lang, n)),
                    13.0,
                    ON_FELT
                ),
            ]
            .spacing(3);
            if !e.is_unreadable() {
                let line = match e.culprit() {
                    Some(seat) => {
                        let name = match e {
                            VerifyError::Log { names, .. } => names.get(seat as usize).cloned(),
                            VerifyError::Proven { name, .. } => name.clone(),
                            _ => None,
                        };
                        let who = match name {
                            Some(n) if !n.is_empty() => file_name(lang, &n),
                            _ => lang.f(T::VeSeat, &[&(u32::from(seat) + 1)]),
                        };
                        lang.f(T::Culprit, &[&who])
                    }
                    None => lang.t(T::NoCulprit).to_string(),
                };
                col = col.push(bold(line, 14.0, WARN));
            }
            col.into()
        }
    }
}

fn players<'a>(lang: Lang, players: &[PlayerEntry]) -> Element<'a, Message> {
    let cell = |s: String, w: u16, c| container(label(s, 14.0, c)).width(Length::FillPortion(w));
    let mut col = column![
        bold(lang.t(T::Players), 16.0, ACCENT),
        row![
            cell(lang.t(T::ColPlayer).to_string(), 4, MUTED),
            cell(lang.t(T::ColBalance).to_string(), 2, MUTED),
            cell(lang.t(T::ColLevel).to_string(), 3, MUTED),
            cell(lang.t(T::ColHands).to_string(), 1, MUTED),
        ]
        .spacing(6),
    ]
    .spacing(3);
    for p in players {
        let l = level(p.balance);
        let name = if p.me {
            format!("{} · {}", p.name, lang.t(T::Me))
        } else {
            file_name(lang, &p.name)
        };
        col = col.push(
            row![
                cell(name, 4, if p.me { ACCENT } else { ON_FELT }),
                cell(super::signed(p.balance), 2, ON_FELT),
                cell(
                    lang.f(
                        T::LevelOf,
                        &[
                            &l.number,
                            &match lang {
                                Lang::Zh => l.name,
                                Lang::En => l.english,
                            },
                        ],
                    ),
                    3,
                    ON_FELT,
                ),
                cell(p.hands.to_string(), 1, MUTED),
            ]
            .spacing(6),
        );
    }
    container(col)
        .padding(10)
        .width(Length::Fill)
        .style(panel)
        .into()
}

/// A stored name as shown: a practice bot's (`bot 2 (basic)`) in the app's words.
pub fn file_name(lang: Lang, stored: &str) -> String {
    let Some(level) = practice_level(stored) else {
        return stored.to_string();
    };
    let bot = match stored.as_bytes().get(4) {
        Some(b'1') => T::Bot1,
        Some(b'2') => T::Bot2,
        _ => T::Bot3,
    };
    format!("{} · {}", lang.t(bot), lang.t(level_name(level)))
}

/// A practice bot's seat at a table (by the table's practice marker): its name and level.
fn practice_bot(t: &TableEntry, seat: Seat) -> Option<(T, Level)> {
    let levels = t.practice?;
    let bot = match seat {
        1 => T::Bot1,
        2 => T::Bot2,
        3 => T::Bot3,
        _ => return None,
    };
    Some((bot, levels[seat as usize - 1]))
}

/// A seat's name at a table.
pub fn seat_label(lang: Lang, t: &TableEntry, seat: Seat) -> String {
    if let Some((bot, level)) = practice_bot(t, seat) {
        return format!("{} · {}", lang.t(bot), lang.t(level_name(level)));
    }
    t.names
        .get(seat as usize)
        .map_or_else(|| seat.to_string(), |n| file_name(lang, n))
}

/// A seat's name at a table without a bot's level.
pub fn short_label(lang: Lang, t: &TableEntry, seat: Seat) -> String {
    match practice_bot(t, seat) {
        Some((bot, _)) => lang.t(bot).to_string(),
        None => t.names.get(seat as usize).cloned().unwrap_or_default(),
    }
}

/// A hand's result in words (the ledger's `describe`, in the app's language, hand types
/// named by the catalogue).
pub fn result_words(lang: Lang, name: &dyn Fn(Seat) -> String, r: &HandResult) -> String {
    let text = match &r.outcome {
        Outcome::Win {
            settlement,
            result: score,
        } => {
            let how = super::story::how_won(lang, name, settlement.kind, settlement.from);
            score
                .winners
                .iter()
                .map(|w| lang.f(T::ResWin, &[&name(w.seat), &lang.pattern(&w.hand), &how]))
                .collect::<Vec<_>>()
                .join(" · ")
        }
        Outcome::Drawn => lang.t(T::ResDrawn).to_string(),
        Outcome::Abandoned { leaver, .. } => lang.f(T::ResLeft, &[&name(*leaver)]),
    };
    if r.aborted && !matches!(r.outcome, Outcome::Abandoned { .. }) {
        lang.f(T::ResByThree, &[&text])
    } else {
        text
    }
}

/// A time (ms since the Unix epoch) as `YYYY-MM-DD HH:MM` on the player's clock (the
/// system's time zone at that moment, summer time included).
pub fn date(ms: u64) -> String {
    date_at(ms, local_offset(ms))
}

/// The time of day on the player's clock of a time in ms.
pub fn time_of_day(ms: u64) -> String {
    clock_at(ms, local_offset(ms))
}

/// The system time zone's offset from UTC at `ms` (seconds east), 0 where it cannot be read.
fn local_offset(ms: u64) -> i64 {
    use chrono::{Local, Offset, TimeZone};
    match Local.timestamp_millis_opt(ms as i64) {
        chrono::LocalResult::Single(t) | chrono::LocalResult::Ambiguous(t, _) => {
            i64::from(t.offset().fix().local_minus_utc())
        }
        chrono::LocalResult::None => 0,
    }
}

/// `YYYY-MM-DD HH:MM` of a time in ms, `offset` seconds east of UTC.
pub fn date_at(ms: u64, offset: i64) -> String {
    let secs = ms as i64 / 1000 + offset;
    let days = secs.div_euclid(86_400);
    // Howard Hinnant's days-to-civil.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02} {}", clock_at(ms, offset))
}

/// `HH:MM` of a time in ms, `offset` seconds east of UTC.
fn clock_at(ms: u64, offset: i64) -> String {
    let s = (ms as i64 / 1000 + offset).rem_euclid(86_400);
    format!("{:02}:{:02}", s / 3600, s / 60 % 60)
}

/// Coins with a sign (re-exported for the replay).
pub fn coins(m: Money) -> String {
    super::signed(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_civil_on_the_players_clock() {
        assert_eq!(date_at(0, 0), "1970-01-01 00:00");
        assert_eq!(date_at(951_782_400_000, 0), "2000-02-29 00:00");
        assert_eq!(date_at(1_796_050_930_000, 0), "2026-11-30 15:02");
        // Shanghai (UTC+8): the same moment is late evening; a day later after 16:00 UTC.
        assert_eq!(date_at(1_796_050_930_000, 8 * 3600), "2026-11-30 23:02");
        assert_eq!(date_at(1_796_068_930_000, 8 * 3600), "2026-12-01 04:02");
        // West of Greenwich, before the epoch's midnight.
        assert_eq!(date_at(0, -5 * 3600), "1969-12-31 19:00");
    }

    #[test]
    fn practice_bots_are_named_in_the_app_language() {
        assert_eq!(file_name(Lang::En, "bot 2 (basic)"), "Xiao Hong · basic");
        assert_eq!(file_name(Lang::En, "Mei"), "Mei");
    }
}
