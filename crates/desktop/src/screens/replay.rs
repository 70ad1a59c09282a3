//! The replay of a finished hand, step by step, forward and back (buttons and ← →), rebuilt
//! from its stored signed log ([`crate::rerun`]): the deal, every draw, discard, claim and
//! kong, and the settlement.
//!
//! The table is drawn by the table screen's own drawing (`table_view`), fed the player's view
//! of each step: the player's own tiles face up, the others' as the player saw them. "Show all
//! hands" (and the last step, always) lays every seat's concealed tiles out face up, as the
//! end-of-hand audit of the deal proves them. The last step adds the settlement: the result
//! in words, the rules crate's explanation of the score and each seat's payment.

use crate::i18n::Text;
use std::path::PathBuf;

use iced::widget::{Space, button, column, container, row, scrollable};
use iced::{Alignment, Element, Length, Size, Task};
use mahjong_bot::Level;
use mahjong_rules::{Action, Event, Outcome, PublicPhase, Seat, Tile};

use super::history::{self, result_words};
use super::table::{self, LastMove};
use super::table_view::{self, Ctx};
use super::{ACCENT, MUTED, ON_FELT, WARN, action, bold, label, panel, seat_name, signed};
use crate::engine::PracticeConfig;
use crate::i18n::{Lang, T};
use crate::rerun::{self, Replay, ReplayError};
use crate::tiles::{Faces, Mark, TileView, tile_text};

/// The replay screen.
pub struct State {
    /// The table.
    pub table: [u8; 32],
    /// The hand.
    pub hand: u32,
    /// The rebuilt hand (`None` while it is rebuilt), or why it cannot be.
    pub replay: Option<Result<Replay, ReplayError>>,
    /// The step shown (0: the deal).
    pub step: usize,
    /// Every seat's tiles face up.
    pub open: bool,
    /// The history to go back to.
    pub back: Option<Box<history::State>>,
    /// The table drawing's state for the step shown.
    view: table::State,
}

/// What the replay screen is told.
#[derive(Clone, Debug)]
pub enum Message {
    /// The hand was rebuilt.
    Loaded(Result<Box<Replay>, ReplayError>),
    /// One step on.
    Forward,
    /// One step back.
    Back,
    /// To the deal.
    Start,
    /// To the settlement.
    End,
    /// Show or hide the others' tiles.
    ToggleHands,
    /// Back to the history.
    Close,
    /// Something the table drawing sent (clicks on tiles: nothing to do).
    Ignored,
    /// Open the review (复盘) of this hand (the app opens it over the replay).
    Review,
}

/// Below this width the replay's buttons go on a line of their own.
const NARROW: f32 = 1200.0;

/// Rebuilds a hand (blocking: call it from a task).
pub fn load(dir: PathBuf, table: [u8; 32], hand: u32) -> Message {
    Message::Loaded(rerun::load(&dir, &table, hand).map(Box::new))
}

impl State {
    /// The screen for hand `hand` of `table`, and the task that rebuilds it.
    pub fn open(
        dir: PathBuf,
        table: [u8; 32],
        hand: u32,
        back: Option<Box<history::State>>,
    ) -> (State, Task<Message>) {
        let state = State {
            table,
            hand,
            replay: None,
            step: 0,
            open: false,
            back,
            view: table::State::new(PracticeConfig::new(mahjong_rules::Ruleset::Qiaoma, 0), 0),
        };
        let task = Task::perform(async move { load(dir, table, hand) }, |m| m);
        (state, task)
    }

    /// The number of steps (0 until rebuilt).
    pub fn steps(&self) -> usize {
        match &self.replay {
            Some(Ok(r)) => r.steps.len(),
            _ => 0,
        }
    }

    /// Handles a message; true when the player goes back to the history.
    pub fn update(&mut self, message: Message) -> bool {
        let last = self.steps().saturating_sub(1);
        match message {
            Message::Loaded(r) => {
                self.replay = Some(r.map(|b| *b));
                self.step = 0;
            }
            Message::Forward => self.step = (self.step + 1).min(last),
            Message::Back => self.step = self.step.saturating_sub(1),
            Message::Start => self.step = 0,
            Message::End => self.step = last,
            Message::ToggleHands => self.open = !self.open,
            Message::Close => return true,
            Message::Ignored | Message::Review => {}
        }
        self.sync();
        false
    }

    /// Points the table drawing at the step shown.
    fn sync(&mut self) {
        let Some(Ok(r)) = &self.replay else {
            return;
        };
        let Some(step) = r.steps.get(self.step) else {
            return;
        };
        let levels = r
            .practice
            .unwrap_or([Level::Strong, Level::Basic, Level::Strong]);
        if self.view.config().levels != levels
            || self.view.config().ruleset != r.result.session.options.ruleset
        {
            let config = PracticeConfig {
                levels,
                ..PracticeConfig::new(r.result.session.options.ruleset, 0)
            };
            self.view = table::State::new(config, 0);
        }
        self.view.agreed = true;
        self.view.watched = true;
        self.view.hand = r.hand;
        self.view.view = Some(Box::new(step.view.clone()));
        self.view.last = r.steps[..=self.step]
            .iter()
            .rev()
            .flat_map(|s| s.moves.iter().rev())
            .find(|m| !matches!(m.action, Action::Pass))
            .map(|mv| LastMove::new(mv.clone(), &[]));
    }

    /// The screen.
    pub fn view<'a>(&'a self, lang: Lang, faces: Faces, size: Size) -> Element<'a, Message> {
        let title = bold(
            lang.f(
                T::ReplayTitle,
                &[&self.hand, &&mahjong_store::to_hex(&self.table)[..8]],
            ),
            20.0,
            ACCENT,
        );
        let close =
            action(lang.t(T::BackToHistory), 14.0, Some(Message::Close)).style(button::secondary);
        let r = match &self.replay {
            None => {
                return column![
                    row![title, Space::new().width(Length::Fill), close].padding([6, 12]),
                    container(bold(lang.t(T::ReplayLoading), 18.0, ON_FELT)).center(Length::Fill),
                ]
                .into();
            }
            Some(Err(e)) => {
                return column![
                    row![title, Space::new().width(Length::Fill), close].padding([6, 12]),
                    container(label(
                        lang.f(T::ReplayFailed, &[&crate::i18n::replay_error(lang, e)]),
                        16.0,
                        WARN
                    ))
                    .center(Length::Fill),
                ]
                .into();
            }
            Some(Ok(r)) => r,
        };
        let n = r.steps.len();
        let at_end = self.step + 1 >= n;
        let me = r.names.get(r.owner as usize).map_or("", String::as_str);
        let heading = row![
            title,
            label(lang.f(T::StepOf, &[&self.step, &(n - 1)]), 15.0, ON_FELT),
        ]
        .spacing(8)
        .align_y(Alignment::Center);
        let buttons = row![
            action(
                lang.t(T::StepStart),
                14.0,
                (self.step > 0).then_some(Message::Start)
            )
            .style(button::secondary),
            action(
                lang.t(T::StepBack),
                14.0,
                (self.step > 0).then_some(Message::Back)
            )
            .style(button::primary),
            action(
                lang.t(T::StepForward),
                14.0,
                (!at_end).then_some(Message::Forward)
            )
            .style(button::primary),
            action(lang.t(T::StepEnd), 14.0, (!at_end).then_some(Message::End))
                .style(button::secondary),
            action(
                lang.t(if self.open {
                    T::HideHands
                } else {
                    T::ShowHands
                }),
                14.0,
                (!at_end).then_some(Message::ToggleHands)
            )
            .style(button::secondary),
            action(lang.t(T::ReviewButton), 14.0, Some(Message::Review)).style(button::secondary),
            close,
        ]
        .spacing(8)
        .align_y(Alignment::Center);
        // The title and seven buttons need about 1200 px: a narrower window (1024 × 600) puts
        // the buttons on a line of their own, so that Back to the history stays on screen.
        let narrow = size.width < NARROW;
        let controls: Element<'a, Message> = if narrow {
            column![
                heading,
                row![Space::new().width(Length::Fill), buttons].align_y(Alignment::Center),
            ]
            .spacing(4)
            .into()
        } else {
            row![heading, Space::new().width(Length::Fill), buttons]
                .spacing(8)
                .align_y(Alignment::Center)
                .into()
        };
        let header_h = if narrow { 110.0 } else { 70.0 };
        let what = row![
            bold(self.describe(lang, faces, me, r), 16.0, ACCENT),
            Space::new().width(Length::Fill),
            label(lang.t(T::ReplayKeys), 12.0, MUTED),
        ]
        .align_y(Alignment::Center);
        let step = &r.steps[self.step];
        let tile_w = (size.width / 44.0).clamp(18.0, 30.0);
        if at_end {
            // The end: every hand face up with its melds, and the settlement.
            let below = column![
                hands(lang, faces, me, r, step, tile_w),
                settlement(lang, faces, me, r)
            ]
            .spacing(8);
            return column![
                container(controls).padding([4, 12]),
                container(what).padding([0, 12]),
                scrollable(below.padding([4, 12])).height(Length::Fill),
            ]
            .spacing(2)
            .into();
        }
        let hands_h = 4.0 * (tile_w * 1.4 + 6.0) + 50.0;
        let table_h = if self.open {
            size.height - header_h - hands_h
        } else {
            size.height - header_h
        };
        let ctx = Ctx {
            lang,
            faces,
            name: me,
            size: Size::new(size.width, table_h),
        };
        let drawn = container(table_view::view(&self.view, ctx).map(|_| Message::Ignored))
            .height(Length::Fixed(table_h));
        let mut col = column![
            container(controls).padding([4, 12]),
            container(what).padding([0, 12]),
            drawn
        ]
        .spacing(2);
        if self.open {
            col = col.push(container(hands(lang, faces, me, r, step, tile_w)).padding([4, 12]));
        }
        col.into()
    }

    /// What the step shown did, in words.
    fn describe(&self, lang: Lang, faces: Faces, me: &str, r: &Replay) -> String {
        let Some(step) = r.steps.get(self.step) else {
            return String::new();
        };
        if self.step == 0 {
            return lang.t(T::ReplayDeal).to_string();
        }
        if self.step + 1 == r.steps.len() {
            let last: Vec<String> = step
                .moves
                .iter()
                .filter(|m| !matches!(m.action, Action::Pass))
                .map(|m| table_view::describe(lang, faces, me, m))
                .collect();
            return format!("{} · {}", last.join(" · "), lang.t(T::ReplayEnd))
                .trim_start_matches(" · ")
                .to_string();
        }
        let mut parts: Vec<String> = Vec::new();
        for m in &step.moves {
            match &m.action {
                Action::Pass => {}
                Action::ConcealedKong { .. } => {
                    parts.push(lang.f(T::ReplayConcealedKong, &[&seat_name(lang, me, m.seat)]));
                }
                _ => parts.push(table_view::describe(lang, faces, me, m)),
            }
        }
        let claimed = step
            .events
            .iter()
            .any(|e| matches!(e, Event::Claimed { .. }));
        if parts.is_empty() && !claimed && step.moves.len() > 1 {
            parts.push(lang.t(T::ReplayNoClaim).to_string());
        }
        for e in &step.events {
            if let Event::Drew { seat, pos, .. } = e {
                let who = seat_name(lang, me, *seat);
                let card = step.hands[*seat as usize].iter().find(|c| c.pos == *pos);
                match card {
                    Some(c) if *seat == r.owner || self.open => {
                        parts.push(
                            lang.f(T::ReplayDrawsTile, &[&who, &tile_text(c.tile, faces, lang)]),
                        );
                    }
                    _ => parts.push(lang.f(T::ReplayDraws, &[&who])),
                }
            }
        }
        parts.join(" · ")
    }
}

/// Every seat's concealed tiles, face up.
fn hands<'a>(
    lang: Lang,
    faces: Faces,
    me: &str,
    r: &Replay,
    step: &rerun::Step,
    w: f32,
) -> Element<'a, Message> {
    let wildcard = r.steps.first().and_then(|s| s.view.wildcard);
    let dealer = r.steps.first().map_or(0, |s| s.view.dealer);
    let mut col = column![bold(lang.t(T::ProvenHands), 15.0, ACCENT)].spacing(4);
    for seat in 0..4u8 {
        // A winner's hand at the end is the one it won with (the winning tile lit).
        let winner = match (&step.view.phase, &r.result.outcome) {
            (PublicPhase::Over(_), Outcome::Win { settlement, .. }) => {
                settlement.winners.iter().find(|h| h.seat == seat)
            }
            _ => None,
        };
        let (mut tiles, glow): (Vec<Tile>, Option<Tile>) = match winner {
            Some(h) => (h.concealed.clone(), h.winning_tile),
            None => (
                step.hands[seat as usize].iter().map(|c| c.tile).collect(),
                None,
            ),
        };
        tiles.sort_by_key(|t| t.index());
        let tile_row = |tiles: &[Tile], w: f32, glow: Option<Tile>| {
            let mut lit = false;
            tiles.iter().fold(row![].spacing(1), |row, &t| {
                let mark = if !lit && Some(t) == glow {
                    lit = true;
                    Mark::Glow
                } else {
                    Mark::None
                };
                row.push(
                    TileView::face(t, faces, wildcard == Some(t))
                        .mark(mark)
                        .view(w),
                )
            })
        };
        let mut faces_row = row![tile_row(&tiles, w, glow)]
            .spacing(10)
            .align_y(Alignment::End);
        for m in &step.melds[seat as usize] {
            faces_row = faces_row.push(tile_row(&m.tiles(), w * 0.8, None));
        }
        let flowers = &step.view.seats[seat as usize].flowers;
        if !flowers.is_empty() {
            faces_row = faces_row.push(tile_row(flowers, w * 0.7, None));
        }
        col = col.push(
            row![
                container(label(
                    format!(
                        "{} {}",
                        lang.t(super::wind(seat, dealer)),
                        seat_name(lang, me, seat)
                    ),
                    14.0,
                    ON_FELT
                ))
                .width(Length::Fixed(150.0)),
                faces_row,
            ]
            .spacing(8)
            .align_y(Alignment::Center),
        );
    }
    container(col)
        .padding(10)
        .width(Length::Fill)
        .style(panel)
        .into()
}

/// The settlement: the result in words, the explanation of the score, the payments.
fn settlement<'a>(lang: Lang, faces: Faces, me: &str, r: &Replay) -> Element<'a, Message> {
    let name = |s: Seat| seat_name(lang, me, s);
    let mut col = column![
        bold(lang.f(T::HandResult, &[&r.hand]), 18.0, ACCENT),
        bold(result_words(lang, &name, &r.result), 16.0, ON_FELT),
    ]
    .spacing(4);
    if let Some(e) = crate::engine::explain(&r.result) {
        let names = super::Names {
            me,
            table: r.practice.is_none().then_some(&r.names),
        };
        let seats =
            super::settle::seat_labels(lang, names, r.result.setup.as_ref().map(|s| s.dealer));
        col = col.push(super::settle::explanation_lines(lang, faces, seats, &e));
    }
    col = col.push(bold(lang.t(T::Totals), 15.0, ACCENT));
    for seat in 0..4u8 {
        let p = r.result.payments[seat as usize];
        let total = r.result.session.balances[seat as usize];
        col = col.push(label(
            format!(
                "{} · {}",
                name(seat),
                lang.f(T::Totalled, &[&signed(p), &signed(total)])
            ),
            14.0,
            ON_FELT,
        ));
    }
    container(col)
        .padding(10)
        .width(Length::Fill)
        .style(panel)
        .into()
}
