//! The start screen: set up a practice table (preset, each bot's level) and sit down.

use iced::widget::{button, column, container, row, text};
use iced::{Alignment, Element, Length};
use mahjong_bot::Level;
use mahjong_rules::Ruleset;

use super::{ACCENT, MUTED, ON_FELT, action, bold, label, level_name, preset_name};
use crate::i18n::{Lang, T};

/// The home screen.
#[derive(Clone, Debug)]
pub struct State {
    /// The chosen preset.
    pub ruleset: Ruleset,
    /// The bots' levels (right, across, left).
    pub levels: [Level; 3],
}

impl Default for State {
    fn default() -> State {
        State {
            ruleset: Ruleset::Qiaoma,
            levels: [Level::Strong, Level::Basic, Level::Strong],
        }
    }
}

/// What the home screen is told.
#[derive(Clone, Debug)]
pub enum Message {
    /// A preset was picked.
    Ruleset(Ruleset),
    /// A bot's level was clicked (the next level).
    Level(usize),
    /// Sit down.
    Start,
    /// Open the LAN lobby (the app handles it).
    Lobby,
}

impl State {
    /// Handles a message; true when the player sits down.
    pub fn update(&mut self, message: Message) -> bool {
        match message {
            Message::Ruleset(r) => self.ruleset = r,
            Message::Level(i) => {
                if let Some(l) = self.levels.get_mut(i) {
                    *l = match l {
                        Level::Random => Level::Basic,
                        Level::Basic => Level::Strong,
                        Level::Strong => Level::Random,
                    };
                }
            }
            Message::Start => return true,
            Message::Lobby => {}
        }
        false
    }

    /// The screen.
    pub fn view(&self, lang: Lang, name: &str) -> Element<'_, Message> {
        let presets = Ruleset::ALL.iter().fold(row![].spacing(10), |r, &p| {
            let b = button(text(lang.t(preset_name(p))).size(16))
                .padding([8, 16])
                .on_press(Message::Ruleset(p));
            r.push(if p == self.ruleset {
                b.style(button::primary)
            } else {
                b.style(button::secondary)
            })
        });
        let seats = [T::SeatRight, T::SeatAcross, T::SeatLeft];
        let names = [T::Bot1, T::Bot2, T::Bot3];
        let bots = (0..3).fold(row![].spacing(14), |r, i| {
            r.push(
                column![
                    label(lang.t(seats[i]), 13.0, MUTED),
                    label(lang.t(names[i]), 16.0, ON_FELT),
                    button(text(lang.t(level_name(self.levels[i]))).size(15))
                        .padding([6, 14])
                        .style(button::secondary)
                        .on_press(Message::Level(i)),
                ]
                .spacing(4)
                .align_x(Alignment::Center),
            )
        });
        let col = column![
            bold(lang.f(T::Hello, &[&name]), 28.0, ACCENT),
            bold(lang.t(T::PracticeTitle), 20.0, ON_FELT),
            label(lang.t(T::PracticeIntro), 14.0, MUTED),
            label(lang.t(T::Preset), 14.0, MUTED),
            presets,
            bots,
            action(lang.t(T::StartPractice), 20.0, Some(Message::Start)).style(button::success),
            action(lang.t(T::LobbyButton), 18.0, Some(Message::Lobby)).style(button::primary),
        ]
        .spacing(18)
        .align_x(Alignment::Center)
        .max_width(640);
        container(col).center(Length::Fill).into()
    }
}
