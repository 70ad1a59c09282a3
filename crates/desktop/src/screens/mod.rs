//! The screens: [`welcome`] (the name on first run), [`home`] (practice set-up, with the
//! [`options`] editor), [`table`] (play), [`settle`] (the hand end), [`rules`] (the rule
//! book), [`scorer`] (a hand played with real tiles), [`history`] (the ledger), [`replay`]
//! (a finished hand step by step), [`story`] (the evening's story: the chart of balances and
//! the settle-up), [`stats`] (every friend's statistics), [`review`] (复盘: the player's decisions beside the strong
//! computer player's) and [`lobby`] (the tables on the LAN), with the pieces they share.

pub mod history;
pub mod home;
pub mod lobby;
pub mod options;
pub mod replay;
pub mod review;
pub mod rules;
pub mod scorer;
pub mod settle;
pub mod stats;
pub mod story;
pub mod table;
pub mod table_view;
pub mod talk;
pub mod welcome;

use crate::i18n::Text;
use iced::widget::{button, container, text};
use iced::{Background, Border, Color, Element, Theme};
use mahjong_bot::Level;
use mahjong_rules::{Money, Ruleset, Seat};

use crate::i18n::{Lang, T};

/// The height of the app's top bar (language, faces, sound, motion): the screens below it
/// have the window's height less this.
pub const TOP_BAR: f32 = 40.0;

/// The felt of the table.
pub const FELT: Color = Color::from_rgb(0.09, 0.33, 0.26);
/// Text on the felt.
pub const ON_FELT: Color = Color::from_rgb(0.93, 0.95, 0.9);
/// Muted text on the felt.
pub const MUTED: Color = Color::from_rgb(0.7, 0.8, 0.74);
/// Accent (turn, countdown).
pub const ACCENT: Color = Color::from_rgb(0.98, 0.78, 0.25);
/// Warnings.
pub const WARN: Color = Color::from_rgb(0.98, 0.45, 0.35);

/// A tooltip: solid, so that it reads over whatever lies under it.
pub fn tip(theme: &Theme) -> container::Style {
    container::Style {
        background: Some(Background::Color(Color::from_rgb(0.05, 0.17, 0.13))),
        border: Border {
            radius: 6.0.into(),
            width: 1.0,
            color: ACCENT,
        },
        ..panel(theme)
    }
}

/// A panel on the felt.
pub fn panel(theme: &Theme) -> container::Style {
    let _ = theme;
    container::Style {
        background: Some(Background::Color(Color::from_rgba(0.0, 0.0, 0.0, 0.18))),
        border: Border {
            radius: 8.0.into(),
            width: 1.0,
            color: Color::from_rgba(1.0, 1.0, 1.0, 0.08),
        },
        text_color: Some(ON_FELT),
        ..container::Style::default()
    }
}

/// A panel that marks the seat whose turn it is.
pub fn panel_active(theme: &Theme) -> container::Style {
    container::Style {
        border: Border {
            radius: 8.0.into(),
            width: 2.0,
            color: ACCENT,
        },
        ..panel(theme)
    }
}

/// The whole window's felt.
pub fn felt(_theme: &Theme) -> container::Style {
    container::Style {
        background: Some(Background::Color(FELT)),
        text_color: Some(ON_FELT),
        ..container::Style::default()
    }
}

/// A text of `size` in `color`.
pub fn label<'a, M: 'a>(s: impl text::IntoFragment<'a>, size: f32, color: Color) -> Element<'a, M> {
    text(s).size(size).color(color).into()
}

/// A bold text.
pub fn bold<'a, M: 'a>(s: impl text::IntoFragment<'a>, size: f32, color: Color) -> Element<'a, M> {
    text(s)
        .size(size)
        .color(color)
        .font(crate::FONT_BOLD)
        .into()
}

/// A button with a text label (found by that label in tests).
pub fn action<'a, M: Clone + 'a>(
    s: impl text::IntoFragment<'a>,
    size: f32,
    on_press: Option<M>,
) -> button::Button<'a, M> {
    button(text(s).size(size).font(crate::FONT_BOLD))
        .padding([6, 14])
        .on_press_maybe(on_press)
}

/// The catalogue key of a preset's name.
pub fn preset_name(r: Ruleset) -> T {
    match r {
        Ruleset::Qiaoma => T::Qiaoma,
        Ruleset::Classic => T::Classic,
        Ruleset::Baida => T::Baida,
    }
}

/// The catalogue key of a bot level.
pub fn level_name(l: Level) -> T {
    match l {
        Level::Random => T::Random,
        Level::Beginner => T::Beginner,
        Level::Basic => T::Basic,
        Level::Strong => T::Strong,
        Level::Master => T::Master,
    }
}

/// The catalogue key of a friend's link over the internet: direct, or through the relay.
pub fn link_word(direct: bool) -> T {
    if direct {
        T::LinkDirect
    } else {
        T::LinkRelayed
    }
}

/// The seat wind of `seat` in a hand dealt by `dealer` (the dealer is East).
pub fn wind(seat: Seat, dealer: Seat) -> T {
    match (seat + 4 - dealer) % 4 {
        0 => T::East,
        1 => T::South,
        2 => T::West,
        _ => T::North,
    }
}

/// Where `seat` sits as seen from `me`.
pub fn relative(seat: Seat, me: Seat) -> T {
    match (seat + 4 - me) % 4 {
        0 => T::You,
        1 => T::SeatRight,
        2 => T::SeatAcross,
        _ => T::SeatLeft,
    }
}

/// Seat names at a practice table: the player, then the three bots.
pub fn seat_name(lang: Lang, me: &str, seat: Seat) -> String {
    match seat {
        0 => me.to_string(),
        1 => lang.t(T::Bot1).to_string(),
        2 => lang.t(T::Bot2).to_string(),
        _ => lang.t(T::Bot3).to_string(),
    }
}

/// Who sits where: a practice table's (the player, then the three bots) or a LAN table's
/// roster names.
#[derive(Clone, Copy, Debug)]
pub struct Names<'a> {
    /// The player's name.
    pub me: &'a str,
    /// The names of a LAN table's four seats.
    pub table: Option<&'a [String; 4]>,
}

impl Names<'_> {
    /// The name of `seat`.
    pub fn of(&self, lang: Lang, seat: Seat) -> String {
        match self.table {
            Some(t) => t.get(seat as usize).cloned().unwrap_or_default(),
            None => seat_name(lang, self.me, seat),
        }
    }
}

/// Coins with a sign.
pub fn signed(m: Money) -> String {
    if m.0 > 0 {
        format!("+{m}")
    } else {
        m.to_string()
    }
}
