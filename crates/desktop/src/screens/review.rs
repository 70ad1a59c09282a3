//! The review screen (复盘): the player's decisions of one hand where the master computer
//! player would have chosen differently ([`crate::review`]), each with the hand as it was, the
//! two choices side by side, the bot's reason in the current language, and what each choice
//! leaves the hand with: the distance to ready (向听), the winning tiles with their live copies,
//! and a discard's chance of winning for another seat.
//!
//! It opens over the settlement of a hand kept in the player's store (a practice hand, or a
//! LAN hand booked by the network in the same store) and over the replay of a hand of the
//! history; Back returns there. A hand that cannot be rebuilt is said so in the player's
//! language ([`crate::i18n::replay_error`]).

use crate::i18n::Text;
use std::path::PathBuf;

use iced::widget::{column, container, row, scrollable};
use iced::{Alignment, Element, Length, Size, Task};
use mahjong_bot::Outlook;
use mahjong_rules::{Action, PublicPhase, Seat, SeatView};

use super::{ACCENT, MUTED, Names, ON_FELT, WARN, action, bold, label, panel};
use crate::i18n::reasons::Words;
use crate::i18n::{Lang, T};
use crate::rerun::ReplayError;
use crate::review::{Cost, Difference, Review};
use crate::tiles::{Faces, TileView, run_text, tile_text};

/// Why a hand cannot be reviewed (said in the current language by
/// [`crate::i18n::replay_error`]).
pub type Problem = ReplayError;

/// The review screen.
pub struct State {
    /// The hand reviewed.
    pub hand: u32,
    /// The review (`None` while it is built), or why there is none.
    pub review: Option<Result<Review, Problem>>,
}

/// What the review screen is told.
#[derive(Clone, Debug)]
pub enum Message {
    /// The review was built.
    Loaded(Result<Box<Review>, Problem>),
    /// Back to where it was opened.
    Back,
}

/// Builds the review of a hand (blocking: call it from a task).
pub fn load(dir: PathBuf, table: [u8; 32], hand: u32) -> Message {
    Message::Loaded(
        crate::review::load(&dir, &table, hand)
            .map(Box::new)
            .map_err(|e| {
                tracing::warn!(target: "review", "hand {hand} cannot be reviewed: {e}");
                e
            }),
    )
}

impl State {
    /// The screen for hand `hand` of `table`, and the task that builds its review.
    pub fn open(dir: PathBuf, table: [u8; 32], hand: u32) -> (State, Task<Message>) {
        let task = Task::perform(async move { load(dir, table, hand) }, |m| m);
        (State { hand, review: None }, task)
    }

    /// Handles a message; true when the player goes back.
    pub fn update(&mut self, message: Message) -> bool {
        match message {
            Message::Loaded(r) => {
                self.review = Some(r.map(|b| *b));
                false
            }
            Message::Back => true,
        }
    }

    /// The screen.
    pub fn view<'a>(&'a self, lang: Lang, faces: Faces, size: Size) -> Element<'a, Message> {
        let header = row![
            bold(lang.f(T::ReviewTitle, &[&self.hand]), 24.0, ACCENT),
            iced::widget::Space::new().width(Length::Fill),
            action(lang.t(T::ReviewBack), 16.0, Some(Message::Back))
                .style(iced::widget::button::secondary),
        ]
        .spacing(16)
        .align_y(Alignment::Center);
        let body: Element<'a, Message> = match &self.review {
            None => label(lang.t(T::ReviewLoading), 16.0, MUTED),
            Some(Err(p)) => label(
                lang.f(T::ReviewCannot, &[&crate::i18n::replay_error(lang, p)]),
                16.0,
                WARN,
            ),
            Some(Ok(r)) => review(r, lang, faces, size),
        };
        column![
            container(header).padding([6, 12]),
            container(scrollable(container(body).padding(12)).height(Length::Fill)).padding(6),
        ]
        .into()
    }
}

fn review<'a>(r: &'a Review, lang: Lang, faces: Faces, size: Size) -> Element<'a, Message> {
    let me = r.names.get(r.owner as usize).map_or("", String::as_str);
    let names = Names {
        me,
        table: r.practice.is_none().then_some(&r.names),
    };
    let mut top = column![bold(summary(r, lang), 17.0, ON_FELT)].spacing(4);
    let equal = r.differences.len() - r.mistakes().count();
    if equal > 0 {
        top = top.push(label(lang.f(T::ReviewEqual, &[&equal]), 14.0, MUTED));
    }
    let w = (size.width / 44.0).clamp(18.0, 30.0);
    r.mistakes()
        .fold(column![top].spacing(12), |c, d| {
            c.push(difference(d, names, lang, faces, w))
        })
        .into()
}

/// The one line at the review's top: the decisions, the mistakes and what they cost.
pub fn summary(r: &Review, lang: Lang) -> String {
    if r.differences.is_empty() {
        return lang.t(T::ReviewSame).to_string();
    }
    let mut counts = [0usize; 5];
    for d in r.mistakes() {
        let i = match d.cost {
            Some(Cost::MissedWin) => 0,
            Some(Cost::Further { .. }) => 1,
            Some(Cost::FewerWins { .. }) => 2,
            Some(Cost::FewerUseful { .. }) => 3,
            _ => 4,
        };
        counts[i] += 1;
    }
    let total: usize = counts.iter().sum();
    if total == 0 {
        return lang.f(T::ReviewNoMistake, &[&r.decisions]);
    }
    let parts: Vec<String> = [
        T::CostMissedWin,
        T::CostFurther,
        T::CostFewerWins,
        T::CostFewerUseful,
        T::CostRiskier,
    ]
    .into_iter()
    .zip(counts)
    .filter(|(_, n)| *n > 0)
    .map(|(k, n)| lang.f(k, &[&n]))
    .collect();
    let sep = if lang == Lang::Zh { "、" } else { ", " };
    lang.f(T::ReviewSummary, &[&r.decisions, &total, &parts.join(sep)])
}

/// Why the player's choice was a mistake: what it cost against the master's.
pub fn why(d: &Difference, words: &Words<'_>) -> String {
    let lang = words.lang;
    let progress = |o: Option<&Outlook>| o.map(|o| words.progress(&o.plan.progress));
    match d.cost {
        Some(Cost::MissedWin) => lang.t(T::WhyMissedWin).to_string(),
        Some(Cost::Further { .. }) => lang.f(
            T::WhyFurther,
            &[
                &progress(d.mine.as_ref()).unwrap_or_default(),
                &progress(d.theirs.as_ref()).unwrap_or_default(),
            ],
        ),
        Some(Cost::FewerWins { mine, theirs }) => lang.f(T::WhyFewerWins, &[&mine, &theirs]),
        Some(Cost::FewerUseful { mine, theirs }) => lang.f(
            T::WhyFewerUseful,
            &[
                &progress(d.mine.as_ref()).unwrap_or_default(),
                &mine,
                &theirs,
            ],
        ),
        Some(Cost::Riskier { mine, theirs }) => lang.f(T::WhyRiskier, &[&mine, &theirs]),
        None => String::new(),
    }
}

/// The hand as shown at the table: sorted, the drawn tile last.
fn shown(v: &SeatView) -> Vec<mahjong_rules::Tile> {
    let mut tiles: Vec<_> = v
        .hand
        .iter()
        .filter(|c| Some(**c) != v.drawn)
        .map(|c| c.tile)
        .collect();
    tiles.sort_by_key(|t| t.index());
    if let Some(d) = v.drawn
        && v.hand.contains(&d)
    {
        tiles.push(d.tile);
    }
    tiles
}

fn difference<'a>(
    d: &'a Difference,
    names: Names<'a>,
    lang: Lang,
    faces: Faces,
    w: f32,
) -> Element<'a, Message> {
    let seat = move |s: Seat| names.of(lang, s);
    let words = Words {
        lang,
        faces,
        seat: &seat,
    };
    let at = match &d.view.phase {
        PublicPhase::Claims { from, card, .. } => lang.f(
            T::ReviewClaimAt,
            &[&d.step, &seat(*from), &tile_text(card.tile, faces, lang)],
        ),
        PublicPhase::RobKong { from, card, .. } => lang.f(
            T::ReviewRobAt,
            &[&d.step, &seat(*from), &tile_text(card.tile, faces, lang)],
        ),
        PublicPhase::Swap { .. } => lang.f(T::ReviewSwapAt, &[&d.step]),
        _ => lang.f(T::ReviewTurnAt, &[&d.step]),
    };
    let wildcard = d.view.wildcard;
    let hand = shown(&d.view).into_iter().fold(row![].spacing(1), |r, t| {
        r.push(TileView::face(t, faces, wildcard == Some(t)).view(w))
    });
    let mut mine = column![
        bold(lang.t(T::ReviewYours), 15.0, MUTED),
        bold(choice(lang, faces, &d.view, &d.played), 17.0, ON_FELT),
    ]
    .spacing(3);
    if d.timed_out {
        mine = mine.push(label(lang.t(T::ReviewTimedOut), 13.0, WARN));
    }
    mine = facts(mine, d.mine.as_ref(), &words, &d.played);
    let mut theirs = column![
        bold(lang.t(T::ReviewBots), 15.0, MUTED),
        bold(choice(lang, faces, &d.view, &d.advice.action), 17.0, ACCENT),
    ]
    .spacing(3);
    theirs = facts(theirs, d.theirs.as_ref(), &words, &d.advice.action);
    theirs = theirs.push(label(
        lang.f(T::ReviewWhy, &[&why(d, &words)]),
        14.0,
        ON_FELT,
    ));
    container(
        column![
            bold(at, 16.0, ACCENT),
            hand,
            row![
                container(mine).width(Length::FillPortion(1)),
                container(theirs).width(Length::FillPortion(1)),
            ]
            .spacing(16),
        ]
        .spacing(8),
    )
    .padding(10)
    .width(Length::Fill)
    .style(panel)
    .into()
}

/// What a choice leaves the hand with: distance, winning tiles with their live copies, danger.
fn facts<'a>(
    mut col: iced::widget::Column<'a, Message>,
    o: Option<&Outlook>,
    words: &Words<'_>,
    a: &Action,
) -> iced::widget::Column<'a, Message> {
    let lang = words.lang;
    let Some(o) = o else {
        return col;
    };
    col = col.push(label(
        lang.f(T::ReviewAfter, &[&words.plan(&o.plan)]),
        14.0,
        ON_FELT,
    ));
    if let mahjong_bot::Progress::Ready(waits) = &o.plan.progress
        && !waits.is_empty()
    {
        let list: Vec<String> = waits
            .iter()
            .map(|w| {
                lang.f(
                    T::ReviewWaitCount,
                    &[&tile_text(w.tile, words.faces, lang), &w.live],
                )
            })
            .collect();
        let sep = if lang == Lang::Zh { "、" } else { ", " };
        col = col.push(label(
            lang.f(T::ReviewWins, &[&list.join(sep)]),
            14.0,
            ON_FELT,
        ));
    }
    if let Some(p) = o.danger
        && matches!(a, Action::Discard { .. } | Action::AddedKong { .. })
    {
        let pct = (p * 100.0).round() as u32;
        col = col.push(label(
            lang.f(T::ReviewDanger, &[&pct]),
            14.0,
            if pct >= 20 { WARN } else { ON_FELT },
        ));
    }
    col
}

/// A choice in words: `discard 5 dots`, `chow 3-4-5 dots`, `pass`.
pub fn choice(lang: Lang, faces: Faces, view: &SeatView, a: &Action) -> String {
    let t = |t| tile_text(t, faces, lang);
    match a {
        Action::Discard { card, ready: false } => lang.f(T::ChDiscard, &[&t(card.tile)]),
        Action::Discard { card, ready: true } => lang.f(T::ChReady, &[&t(card.tile)]),
        Action::Chow { cards } => {
            let mut tiles: Vec<_> = cards.iter().map(|c| c.tile).collect();
            if let PublicPhase::Claims { card, .. } = &view.phase {
                tiles.push(card.tile);
            }
            tiles.sort();
            lang.f(T::ChChow, &[&run_text(&tiles, faces, lang)])
        }
        Action::Pung { cards } => lang.f(T::ChPung, &[&t(cards[0].tile)]),
        Action::Kong { cards } => lang.f(T::ChKong, &[&t(cards[0].tile)]),
        Action::ConcealedKong { cards } => lang.f(T::ChConcealedKong, &[&t(cards[0].tile)]),
        Action::AddedKong { card } => lang.f(T::ChAddedKong, &[&t(card.tile)]),
        Action::Win { .. } => lang.t(T::ChWin).to_string(),
        Action::Pass if matches!(view.phase, PublicPhase::Swap { .. }) => {
            lang.t(T::ChKeep).to_string()
        }
        Action::Pass => lang.t(T::ChPass).to_string(),
        Action::Flower { card } => lang.f(T::ChFlower, &[&t(card.tile)]),
        Action::Leave => lang.t(T::ChLeave).to_string(),
        Action::Swap { put_back } => {
            let mut tiles: Vec<_> = put_back
                .iter()
                .filter_map(|&p| view.hand.iter().find(|c| c.pos == p).map(|c| c.tile))
                .collect();
            tiles.sort();
            let sep = if lang == Lang::Zh { "、" } else { ", " };
            let list: Vec<String> = tiles.into_iter().map(t).collect();
            lang.f(T::ChSwap, &[&list.join(sep)])
        }
    }
}
