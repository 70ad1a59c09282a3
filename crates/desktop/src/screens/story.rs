//! The evening's story, shown at a session's end (over the last hand's settlement) and for
//! each table of the history: a chart of each player's running balance over the hands (a
//! line per player in its colour, the hands along the bottom, the zero line), each player's
//! wins, self-draws and deal-ins, the biggest hand, and the settle-up — the fewest payments
//! that clear the evening ("阿明 付给 小红 12"). The numbers are the store's
//! ([`mahjong_store::stats::story`]); this module only draws them.

use std::cell::Cell;
use std::hash::{Hash, Hasher};

use iced::widget::canvas::{self, Cache, Canvas, Frame, Geometry, Path, Stroke, Text};
use iced::widget::{column, container, row, text};
use iced::{Alignment, Color, Element, Length, Point, Rectangle, Renderer, Theme, mouse};
use mahjong_rules::{Money, Seat, WinKind};
use mahjong_store::Story;

use super::{ACCENT, MUTED, ON_FELT, bold, label, panel, signed};
use crate::i18n::{Lang, T, Text as _};

/// Each seat's colour in the chart and its legend: told apart on the felt and by people who
/// do not see red and green apart (gold, sky blue, vermilion, pink: after Okabe and Ito's
/// palette), and none of them the zero line's grey.
pub const COLOURS: [Color; 4] = [
    Color::from_rgb(0.98, 0.78, 0.25),
    Color::from_rgb(0.45, 0.75, 1.0),
    Color::from_rgb(1.0, 0.45, 0.35),
    Color::from_rgb(0.95, 0.6, 0.85),
];

/// The chart's height.
pub const CHART_HEIGHT: f32 = 220.0;

/// How a hand was won, in words: `self-draw`, `on Bo's discard`.
pub fn how_won(
    lang: Lang,
    name: &dyn Fn(Seat) -> String,
    kind: WinKind,
    from: Option<Seat>,
) -> String {
    match (kind, from) {
        (WinKind::SelfDraw, _) => lang.t(T::WinSelfDraw).to_string(),
        (WinKind::Discard, Some(f)) => lang.f(T::ResOnDiscard, &[&name(f)]),
        (WinKind::Discard, None) => lang.t(T::WinDiscard).to_string(),
        (WinKind::RobKong, Some(f)) => lang.f(T::ResRobKong, &[&name(f)]),
        (WinKind::RobKong, None) => lang.t(T::WinRobKong).to_string(),
        (WinKind::EightFlowers, _) => lang.t(T::WinEightFlowers).to_string(),
        (WinKind::FourWildcards, _) => lang.t(T::WinFourWildcards).to_string(),
    }
}

/// The settle-up in sentences: `Amy pays Hong 12`, or that everyone is even.
pub fn settle_up_lines(lang: Lang, name: &dyn Fn(Seat) -> String, story: &Story) -> Vec<String> {
    if story.settle_up.is_empty() {
        return vec![lang.t(T::SettleEven).to_string()];
    }
    story
        .settle_up
        .iter()
        .map(|p| {
            lang.f(
                T::SettlePays,
                &[&name(p.from as Seat), &name(p.to as Seat), &p.amount],
            )
        })
        .collect()
}

/// The story's panel: the chart, the legend, each player's tally, the biggest hand and the
/// settle-up. `names` are the seats' names as the screen shows them.
pub fn view<'a, M: 'a>(lang: Lang, names: [String; 4], story: &Story) -> Element<'a, M> {
    let name = |s: Seat| names[usize::from(s & 3)].clone();
    let balances = story.balances();
    let legend = (0..4).fold(row![].spacing(18), |r, s| {
        r.push(
            row![
                text("■").size(16).color(COLOURS[s]),
                label(
                    format!("{} {}", names[s], signed(balances[s])),
                    15.0,
                    ON_FELT
                ),
            ]
            .spacing(6)
            .align_y(Alignment::Center),
        )
    });
    let chart = Canvas::new(Chart {
        running: story.hands.iter().map(|h| (h.hand, h.running)).collect(),
        axis: lang.t(T::StoryAxis).to_string(),
    })
    .width(Length::Fill)
    .height(Length::Fixed(CHART_HEIGHT));
    let mut tallies = column![].spacing(3);
    for (s, t) in story.seats.iter().enumerate() {
        tallies = tallies.push(
            row![
                text("■").size(13).color(COLOURS[s]),
                label(
                    lang.f(
                        T::StoryTally,
                        &[&names[s], &t.wins, &t.self_draws, &t.deal_ins],
                    ),
                    14.0,
                    ON_FELT,
                ),
            ]
            .spacing(6)
            .align_y(Alignment::Center),
        );
    }
    let biggest = match &story.biggest {
        Some(b) => {
            let how = how_won(lang, &name, b.kind, b.from);
            let hand = lang.f(T::ResWin, &[&name(b.seat), &lang.pattern(&b.pattern), &how]);
            lang.f(T::StoryBiggest, &[&hand, &b.hand, &signed(b.amount)])
        }
        None => lang.t(T::StoryNoWin).to_string(),
    };
    let mut settle = column![bold(lang.t(T::SettleUpTitle), 16.0, ACCENT)].spacing(3);
    for line in settle_up_lines(lang, &name, story) {
        settle = settle.push(label(line, 15.0, ON_FELT));
    }
    container(
        column![
            bold(lang.t(T::StoryTitle), 18.0, ACCENT),
            legend,
            chart,
            row![
                column![tallies, label(biggest, 14.0, ON_FELT)]
                    .spacing(8)
                    .width(Length::FillPortion(3)),
                settle.width(Length::FillPortion(2)),
            ]
            .spacing(18),
            label(lang.t(T::SettleUpNote), 12.0, MUTED),
        ]
        .spacing(8),
    )
    .padding(10)
    .width(Length::Fill)
    .style(panel)
    .into()
}

/// The chart of running balances: hand numbers and each seat's balance after it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Chart {
    /// (hand, each seat's balance after it), in order.
    pub running: Vec<(u32, [Money; 4])>,
    /// The word under the hands' axis.
    pub axis: String,
}

/// The chart's drawing, kept until its inputs or size change.
#[derive(Default)]
pub struct ChartState {
    cache: Cache,
    key: Cell<u64>,
}

/// A text drawn on the chart.
fn write(frame: &mut Frame, content: &str, at: Point, color: Color, right: bool) {
    Text {
        content: content.to_string(),
        position: at,
        size: 12.0.into(),
        color,
        font: crate::FONT,
        align_x: if right {
            iced::widget::text::Alignment::Right
        } else {
            iced::widget::text::Alignment::Center
        },
        align_y: iced::alignment::Vertical::Center,
        ..Text::default()
    }
    .draw_with(|path, color| frame.fill(&path, color));
}

impl Chart {
    /// Draws the chart in a frame of `size`.
    fn draw_into(&self, frame: &mut Frame) {
        let size = frame.size();
        let (left, right, top, bottom) = (52.0, 14.0, 10.0, 22.0);
        let w = (size.width - left - right).max(1.0);
        let h = (size.height - top - bottom).max(1.0);
        let coins = |m: Money| m.0 as f32 / 100.0;
        let mut lo = 0.0f32;
        let mut hi = 0.0f32;
        for (_, r) in &self.running {
            for m in r {
                lo = lo.min(coins(*m));
                hi = hi.max(coins(*m));
            }
        }
        if hi - lo < 1.0 {
            hi += 1.0;
            lo -= 1.0;
        }
        let pad = (hi - lo) * 0.06;
        let (lo, hi) = (lo - pad, hi + pad);
        let n = self.running.len().max(1) as f32;
        let x = |i: usize| left + w * i as f32 / n;
        let y = |v: f32| top + h * (hi - v) / (hi - lo);
        // Frame, zero line and the scale.
        let axis = Stroke::default().with_width(1.0).with_color(MUTED);
        frame.stroke(
            &Path::line(Point::new(left, top), Point::new(left, top + h)),
            axis,
        );
        frame.stroke(
            &Path::line(Point::new(left, top + h), Point::new(left + w, top + h)),
            axis,
        );
        let zero = Stroke {
            line_dash: canvas::LineDash {
                segments: &[6.0, 4.0],
                offset: 0,
            },
            ..Stroke::default()
                .with_width(1.0)
                .with_color(Color { a: 0.7, ..MUTED })
        };
        frame.stroke(
            &Path::line(Point::new(left, y(0.0)), Point::new(left + w, y(0.0))),
            zero,
        );
        let top_value = hi - pad;
        let bottom_value = lo + pad;
        write(frame, "0", Point::new(left - 6.0, y(0.0)), MUTED, true);
        for v in [top_value, bottom_value] {
            if (y(v) - y(0.0)).abs() > 14.0 {
                let m = Money((v * 100.0).round() as i64);
                write(frame, &signed(m), Point::new(left - 6.0, y(v)), MUTED, true);
                frame.stroke(
                    &Path::line(Point::new(left - 3.0, y(v)), Point::new(left, y(v))),
                    axis,
                );
            }
        }
        // The hands along the bottom: every one, or every k-th when they are many.
        let every = (self.running.len() / 16).max(1);
        for (i, (hand, _)) in self.running.iter().enumerate() {
            if i % every == 0 || i + 1 == self.running.len() {
                let px = x(i + 1);
                frame.stroke(
                    &Path::line(Point::new(px, top + h), Point::new(px, top + h + 3.0)),
                    axis,
                );
                write(
                    frame,
                    &hand.to_string(),
                    Point::new(px, top + h + 10.0),
                    MUTED,
                    false,
                );
            }
        }
        // The axis's word under its origin, where no hand's number stands.
        write(
            frame,
            &self.axis,
            Point::new(left, top + h + 10.0),
            MUTED,
            false,
        );
        // A line per seat, from zero before the first hand; a dot at each hand when they
        // are few enough to see.
        for seat in 0..4 {
            let colour = COLOURS[seat];
            let line = Path::new(|b| {
                b.move_to(Point::new(x(0), y(0.0)));
                for (i, (_, r)) in self.running.iter().enumerate() {
                    b.line_to(Point::new(x(i + 1), y(coins(r[seat]))));
                }
            });
            frame.stroke(&line, Stroke::default().with_width(2.5).with_color(colour));
            if self.running.len() <= 24 {
                for (i, (_, r)) in self.running.iter().enumerate() {
                    let dot = Path::circle(Point::new(x(i + 1), y(coins(r[seat]))), 3.0);
                    frame.fill(&dot, colour);
                }
            }
        }
    }
}

impl<M> canvas::Program<M> for Chart {
    type State = ChartState;

    fn draw(
        &self,
        state: &ChartState,
        renderer: &Renderer,
        _theme: &Theme,
        bounds: Rectangle,
        _cursor: mouse::Cursor,
    ) -> Vec<Geometry> {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.hash(&mut h);
        bounds.width.to_bits().hash(&mut h);
        bounds.height.to_bits().hash(&mut h);
        let key = h.finish();
        if state.key.get() != key {
            state.cache.clear();
            state.key.set(key);
        }
        vec![
            state
                .cache
                .draw(renderer, bounds.size(), |frame| self.draw_into(frame)),
        ]
    }
}
