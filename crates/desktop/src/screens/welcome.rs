//! First run: ask for the display name (kept in `settings.json`).

use crate::i18n::Text;
use iced::widget::{column, container, text_input};
use iced::{Alignment, Element, Length};

use super::{ACCENT, MUTED, ON_FELT, WARN, action, bold, label};
use crate::i18n::{Lang, T};
use crate::settings::{NameError, clean_name};

/// The id of the name field.
pub const NAME_FIELD: &str = "name";

/// The welcome screen.
#[derive(Clone, Debug, Default)]
pub struct State {
    name: String,
    error: Option<NameError>,
}

/// What the welcome screen is told.
#[derive(Clone, Debug)]
pub enum Message {
    /// The field changed.
    Name(String),
    /// Enter or the button.
    Submit,
}

impl State {
    /// Handles a message; returns the accepted name when the player submits a good one.
    pub fn update(&mut self, message: Message) -> Option<String> {
        match message {
            Message::Name(n) => {
                self.name = n;
                self.error = None;
                None
            }
            Message::Submit => match clean_name(&self.name) {
                Ok(name) => Some(name),
                Err(e) => {
                    self.error = Some(e);
                    None
                }
            },
        }
    }

    /// The screen.
    pub fn view(&self, lang: Lang) -> Element<'_, Message> {
        let error = self.error.map(|e| match e {
            NameError::Empty => lang.t(T::NameEmpty),
            NameError::TooLong => lang.t(T::NameTooLong),
        });
        // The refusal has its own line, always there: the field and *Continue* do not move
        // under the pointer when it comes or goes.
        let refusal = container(label(error.unwrap_or(""), 15.0, WARN)).height(Length::Fixed(20.0));
        let col = column![
            bold(lang.t(T::Welcome), 30.0, ACCENT),
            label(lang.t(T::AskName), 17.0, ON_FELT),
            text_input(lang.t(T::NamePlaceholder), &self.name)
                .id(NAME_FIELD)
                .on_input(Message::Name)
                .on_submit(Message::Submit)
                .padding(10)
                .size(18)
                .width(Length::Fixed(320.0)),
            action(lang.t(T::Continue), 17.0, Some(Message::Submit)),
            refusal,
            label(lang.t(T::PracticeIntro), 13.0, MUTED),
        ]
        .spacing(16)
        .align_x(Alignment::Center);
        container(col.max_width(520)).center(Length::Fill).into()
    }
}
