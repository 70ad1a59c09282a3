//! The start screen: set up a practice table (each bot's level, and through the option
//! editor the preset, stake, length, timers and the preset's options) and sit down.
//!
//! Start is enabled only while the rules crate accepts the options; otherwise the editor says
//! why.

use crate::i18n::Text;
use iced::widget::{button, column, container, row, scrollable, text};
use iced::{Alignment, Element, Length};
use mahjong_bot::Level;
use mahjong_rules::Ruleset;

use super::options::{self, Choice, Editor, Scope};
use super::{ACCENT, MUTED, ON_FELT, action, bold, label, level_name};
use crate::i18n::{Lang, T};

/// The home screen.
#[derive(Clone, Debug)]
pub struct State {
    /// The option editor (preset, stake, length, timers, options).
    pub editor: Editor,
    /// The bots' levels (right, across, left).
    pub levels: [Level; 3],
}

impl Default for State {
    fn default() -> State {
        State {
            editor: Editor::new(Ruleset::Qiaoma, Scope::Practice),
            levels: [Level::Strong, Level::Basic, Level::Strong],
        }
    }
}

/// What the home screen is told.
#[derive(Clone, Debug)]
pub enum Message {
    /// The option editor.
    Options(options::Message),
    /// A bot's level was clicked (the next level).
    Level(usize),
    /// Sit down.
    Start,
    /// Read the rules of the chosen preset.
    Rules,
    /// Open the scorer for a game with real tiles.
    Scorer,
    /// Open the LAN lobby.
    Lobby,
}

/// What the app should do after a home message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Exit {
    /// Stay.
    Stay,
    /// Sit down at a practice table with this set-up.
    Start(Choice),
    /// Open the rules.
    Rules,
    /// Open the scorer.
    Scorer,
    /// Open the LAN lobby.
    Lobby,
}

impl State {
    /// The chosen preset.
    pub fn ruleset(&self) -> Ruleset {
        self.editor.preset()
    }

    /// Picks a preset (its defaults for every option).
    pub fn set_ruleset(&mut self, r: Ruleset) {
        self.editor.update(options::Message::Preset(r));
    }

    /// Handles a message.
    pub fn update(&mut self, message: Message) -> Exit {
        match message {
            Message::Options(m) => self.editor.update(m),
            Message::Level(i) => {
                if let Some(l) = self.levels.get_mut(i) {
                    // The levels offered to people, in turn (the bot crate's list).
                    *l = l.next_offered();
                }
            }
            // A refused combination cannot start (its button is disabled too).
            Message::Start => {
                if let Ok(c) = self.editor.choice() {
                    return Exit::Start(c);
                }
            }
            Message::Rules => return Exit::Rules,
            Message::Scorer => return Exit::Scorer,
            Message::Lobby => return Exit::Lobby,
        }
        Exit::Stay
    }

    /// The screen: the set-up scrolls, the start button stays in view.
    pub fn view(&self, lang: Lang, name: &str) -> Element<'_, Message> {
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
        let head = column![
            bold(lang.f(T::Hello, &[&name]), 28.0, ACCENT),
            bold(lang.t(T::PracticeTitle), 20.0, ON_FELT),
            label(lang.t(T::PracticeIntro), 14.0, MUTED),
            bots,
        ]
        .spacing(14)
        .align_x(Alignment::Center)
        .width(Length::Fill);
        let body = column![head, self.editor.view(lang).map(Message::Options)]
            .spacing(18)
            .padding([12, 24])
            .max_width(980);
        let start = action(
            lang.t(T::StartPractice),
            20.0,
            self.editor.choice().is_ok().then_some(Message::Start),
        )
        .style(button::success);
        let rules =
            action(lang.t(T::RulesButton), 16.0, Some(Message::Rules)).style(button::secondary);
        let scorer =
            action(lang.t(T::ScorerButton), 16.0, Some(Message::Scorer)).style(button::secondary);
        let lobby =
            action(lang.t(T::LobbyButton), 16.0, Some(Message::Lobby)).style(button::primary);
        let bar = row![scorer, rules, lobby, start]
            .spacing(16)
            .align_y(Alignment::Center);
        column![
            scrollable(container(body).center_x(Length::Fill)).height(Length::Fill),
            container(bar).center_x(Length::Fill).padding(10),
        ]
        .into()
    }
}
