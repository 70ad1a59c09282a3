//! The statistics: every player sat with at friends' tables, by key and shown by name (the
//! player first) — hands, win rate, self-draw rate, deal-in rate, average win, balance and
//! rating — and apart, the player's practice against the computer players. The numbers and
//! the rating are the store's ([`mahjong_store::stats`], docs/stats.md), the same as
//! `mahjong stats`; the store is read in a `Task`.

use std::path::PathBuf;

use iced::widget::{Space, button, column, container, row, scrollable};
use iced::{Alignment, Element, Length, Task};
use mahjong_store::{PlayerStats, Stats};

use super::{ACCENT, MUTED, ON_FELT, WARN, action, bold, label, panel, signed};
use crate::i18n::{Lang, T, Text as _, records_error};
use crate::records::{self, RecordsError};

/// The statistics screen.
#[derive(Clone, Debug)]
pub struct State {
    /// The numbers (`None` while they are read), or why they cannot be read.
    pub stats: Option<Result<Stats, RecordsError>>,
}

/// What the statistics screen is told.
#[derive(Clone, Debug)]
pub enum Message {
    /// The statistics were read.
    Loaded(Result<Stats, RecordsError>),
    /// Back to the home screen.
    Back,
}

impl State {
    /// The screen, and the task that reads the store of `dir`.
    pub fn open(dir: PathBuf) -> (State, Task<Message>) {
        (
            State { stats: None },
            Task::perform(async move { records::stats(&dir) }, Message::Loaded),
        )
    }

    /// Handles a message; `true`: back home.
    pub fn update(&mut self, message: Message) -> bool {
        match message {
            Message::Loaded(r) => {
                self.stats = Some(r);
                false
            }
            Message::Back => true,
        }
    }

    /// The screen.
    pub fn view(&self, lang: Lang) -> Element<'_, Message> {
        let head = row![
            bold(lang.t(T::StatsTitle), 24.0, ACCENT),
            Space::new().width(Length::Fill),
            action(lang.t(T::Back), 15.0, Some(Message::Back)).style(button::secondary),
        ]
        .spacing(16)
        .align_y(Alignment::Center);
        let mut body = column![].spacing(14);
        match &self.stats {
            None => body = body.push(bold(lang.t(T::StatsLoading), 18.0, ON_FELT)),
            Some(Err(e)) => {
                let said = records_error(lang, e);
                body = body.push(label(lang.f(T::StatsFailed, &[&said]), 15.0, WARN));
            }
            Some(Ok(s)) if s.is_empty() => {
                body = body.push(label(lang.t(T::StatsEmpty), 16.0, ON_FELT));
            }
            Some(Ok(s)) => {
                if s.friend_tables > 0 {
                    let list: Vec<&PlayerStats> = s.friends.iter().collect();
                    body = body.push(section(
                        lang,
                        lang.f(T::StatsFriends, &[&s.friend_tables]),
                        &list,
                    ));
                }
                if let Some(p) = &s.practice {
                    body = body.push(section(
                        lang,
                        lang.f(T::StatsPractice, &[&s.practice_tables]),
                        &[p],
                    ));
                }
                body = body.push(label(lang.t(T::StatsNote), 13.0, MUTED));
            }
        }
        column![
            container(head).padding([6, 12]),
            scrollable(container(body.padding(12).max_width(1100)).center_x(Length::Fill))
                .height(Length::Fill),
        ]
        .into()
    }
}

/// A rate as a percentage.
fn percent(x: f64) -> String {
    format!("{:.0}%", x * 100.0)
}

/// One section: its title, the column heads and a line per player.
fn section<'a>(lang: Lang, title: String, players: &[&PlayerStats]) -> Element<'a, Message> {
    let cell = |s: String, w: u16, c| container(label(s, 14.0, c)).width(Length::FillPortion(w));
    let heads = [
        (T::ColPlayer, 4),
        (T::ColHands, 2),
        (T::ColWinRate, 2),
        (T::ColSelfDraw, 2),
        (T::ColDealIn, 2),
        (T::ColAvgWin, 2),
        (T::ColBalance, 2),
        (T::ColRating, 2),
    ];
    let header = heads.iter().fold(row![].spacing(8), |r, (k, w)| {
        r.push(cell(lang.t(*k).to_string(), *w, MUTED))
    });
    let mut col = column![bold(title, 17.0, ACCENT), header].spacing(6);
    for p in players {
        let name = if p.me {
            format!("{} · {}", p.name, lang.t(T::Me))
        } else {
            p.name.clone()
        };
        let balance_colour = if p.balance.0 > 0 {
            ACCENT
        } else if p.balance.0 < 0 {
            WARN
        } else {
            ON_FELT
        };
        col = col.push(
            row![
                cell(name, 4, ON_FELT),
                cell(p.hands.to_string(), 2, ON_FELT),
                cell(percent(p.win_rate()), 2, ON_FELT),
                cell(percent(p.self_draw_rate()), 2, ON_FELT),
                cell(percent(p.deal_in_rate()), 2, ON_FELT),
                cell(
                    p.avg_win()
                        .map_or_else(|| "–".to_string(), |m| m.to_string()),
                    2,
                    ON_FELT
                ),
                cell(signed(p.balance), 2, balance_colour),
                cell(format!("{:.0}", p.rating()), 2, ON_FELT),
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
