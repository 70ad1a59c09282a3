//! The small window of a second app started on a data dir another process holds (one process
//! per data dir, [`mahjong_store::DirLock`]): it says so in the player's language (the
//! `--lang` given, else the language of the settings in that data dir), with what to do, and
//! closes with its button. The line on standard error stays for terminals and scripts.

use iced::widget::{button, column, container, text};
use iced::{Alignment, Element, Length, Task};

use crate::i18n::{Lang, T, Text};
use crate::screens::{ACCENT, ON_FELT, bold};

/// The id of the window's button.
pub const CLOSE_ID: &str = "in-use-close";

/// The window's size (logical pixels).
pub const SIZE: (f32, f32) = (620.0, 260.0);

/// What the window shows.
#[derive(Clone, Debug)]
pub struct InUse {
    /// The language.
    pub lang: Lang,
    /// The sentence: which data dir, which process holds it, what to do.
    pub said: String,
}

/// The window's one message.
#[derive(Clone, Debug)]
pub enum Message {
    /// The button.
    Close,
}

impl InUse {
    /// The window for `dir`, held by process `pid`, in `lang`.
    pub fn new(lang: Lang, dir: &std::path::Path, pid: Option<u32>) -> InUse {
        let pid = pid.map_or_else(|| "?".to_string(), |p| p.to_string());
        InUse {
            lang,
            said: lang.f(T::InUseText, &[&dir.display(), &pid]),
        }
    }

    /// The language to speak on `dir`: `given` (`--lang`), else its settings' language.
    pub fn lang_for(dir: &std::path::Path, given: Option<Lang>) -> Lang {
        given.unwrap_or_else(|| {
            crate::settings::Settings::load(dir)
                .map(|s| s.lang)
                .unwrap_or_default()
        })
    }

    /// The window's title.
    pub fn title(&self) -> String {
        self.lang.t(T::AppTitle).to_string()
    }

    /// Handles the button: the window closes.
    pub fn update(&mut self, message: Message) -> Task<Message> {
        match message {
            Message::Close => iced::exit(),
        }
    }

    /// The window.
    pub fn view(&self) -> Element<'_, Message> {
        container(
            column![
                bold(self.lang.t(T::InUseTitle), 20.0, ACCENT),
                text(&self.said).size(15).color(ON_FELT),
                container(
                    button(text(self.lang.t(T::InUseClose)).size(15)).on_press(Message::Close)
                )
                .id(CLOSE_ID),
            ]
            .spacing(14)
            .align_x(Alignment::Center),
        )
        .padding(20)
        .center(Length::Fill)
        .style(|_| container::Style::default().background(crate::screens::FELT))
        .into()
    }
}

/// Shows the window until it is closed.
pub fn run(window: InUse) -> iced::Result {
    iced::application(move || window.clone(), InUse::update, InUse::view)
        .title(InUse::title)
        .settings(crate::iced_settings())
        .window(iced::window::Settings {
            size: iced::Size::new(SIZE.0, SIZE.1),
            resizable: false,
            ..iced::window::Settings::default()
        })
        .run()
}
