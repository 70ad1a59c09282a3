//! The table drawn: the three others around (left, across, right) with their discard rivers,
//! melds, flowers and concealed-kong backs, names, seat winds, ready and silent marks; the
//! centre with the wall count, dice, dealer, 荒番, the `baida` indicator and wildcard, whose
//! turn it is and the countdown; the player's hand at the bottom with the drawn tile apart and
//! the buttons of the legal actions only (chow choices drawn as tiles).
//!
//! About 820 lines of drawing: the four seats, the centre and the player's hand are one
//! layout.

use crate::i18n::Text;
use iced::widget::{Space, button, column, container, mouse_area, row, scrollable, text};
use iced::{Alignment, Element, Length, Size};
use mahjong_rules::{Action, Card, MeldType, PublicMeld, PublicPhase, Seat, SeatView, Tile};

use super::table::{LastMove, Message, State};
use super::{
    ACCENT, MUTED, Names, ON_FELT, WARN, action, bold, label, panel, panel_active, relative, wind,
};
use crate::engine::HUMAN;
use crate::i18n::{Lang, T};
use crate::motion::{self, Frame};
use crate::tiles::{Faces, Mark, TileView, fit, run_text, tile_text};

/// What the view needs besides the state.
#[derive(Clone, Copy, Debug)]
pub struct Ctx<'a> {
    /// Language.
    pub lang: Lang,
    /// Tile faces.
    pub faces: Faces,
    /// The player's name.
    pub name: &'a str,
    /// The window size.
    pub size: Size,
}

/// The id of the hand tile at `i` (tests click it).
pub fn hand_tile_id(i: usize) -> String {
    format!("hand-{i}")
}

/// The id of the button of the `i`-th legal action (a chow, pung, kong or win; tests click
/// it).
pub fn action_id(i: usize) -> String {
    format!("action-{i}")
}

/// The id of the 敲 button.
pub const READY_ID: &str = "action-ready";
/// The id of the discard button.
pub const DISCARD_ID: &str = "action-discard";
/// The id of the pass button.
pub const PASS_ID: &str = "action-pass";

fn with_id<'a>(id: impl Into<String>, e: impl Into<Element<'a, Message>>) -> Element<'a, Message> {
    container(e).id(id.into()).into()
}

fn wild(v: &SeatView, t: Tile) -> bool {
    v.wildcard == Some(t)
}

fn tiles_row<'a>(
    v: &SeatView,
    tiles: impl IntoIterator<Item = Option<Tile>>,
    faces: Faces,
    w: f32,
    offset: (i16, i16),
) -> iced::widget::Row<'a, Message> {
    tiles.into_iter().fold(row![].spacing(1), |r, t| {
        r.push(
            match t {
                Some(t) => TileView::face(t, faces, wild(v, t)),
                None => TileView::back(),
            }
            .moved(offset)
            .view(w),
        )
    })
}

fn meld_tiles(m: &PublicMeld) -> Vec<Option<Tile>> {
    match (m.kind, m.tile) {
        (_, None) => vec![None; 4],
        (MeldType::Chow, Some(t)) => (0..3).map(|d| Tile::from_index(t.index() + d)).collect(),
        (MeldType::Pung, Some(t)) => vec![Some(t); 3],
        (MeldType::ConcealedKong, Some(t)) => vec![None, Some(t), Some(t), None],
        (_, Some(t)) => vec![Some(t); 4],
    }
}

/// A seat's melds and flowers; during a claim's motion its newest meld slides in from the
/// table's centre.
fn melds_row<'a>(
    v: &SeatView,
    seat: Seat,
    faces: Faces,
    w: f32,
    fr: Frame,
) -> iced::widget::Row<'a, Message> {
    let s = &v.seats[seat as usize];
    let mut r = row![].spacing(6).align_y(Alignment::End);
    let newest = s.melds.len().checked_sub(1);
    for (i, m) in s.melds.iter().enumerate() {
        let offset = match fr.meld {
            Some((who, left)) if who == seat && Some(i) == newest => {
                let (dx, dy) = motion::from_seat(seat, v.seat);
                motion::offset((-dx, -dy), left, w)
            }
            _ => (0, 0),
        };
        r = r.push(tiles_row(v, meld_tiles(m), faces, w, offset));
    }
    if !s.flowers.is_empty() {
        r = r.push(tiles_row(
            v,
            s.flowers.iter().map(|f| Some(*f)),
            faces,
            w * 0.8,
            (0, 0),
        ));
    }
    r
}

fn river<'a>(
    v: &SeatView,
    seat: Seat,
    faces: Faces,
    w: f32,
    per_row: usize,
    fr: Frame,
) -> Element<'a, Message> {
    let s = &v.seats[seat as usize];
    // During a discard's motion the seat's newest discard slides in from its hand.
    let sliding = match fr.discard {
        Some((who, left)) if who == seat => s.discards.last().map(|d| {
            (
                d.card,
                motion::offset(motion::from_seat(seat, v.seat), left, w),
            )
        }),
        _ => None,
    };
    let last_discard = match &v.phase {
        PublicPhase::Claims { from, card, .. } if *from == seat => Some(*card),
        _ => None,
    };
    let mut col = column![].spacing(1);
    for chunk in s.discards.chunks(per_row.max(1)) {
        col = col.push(chunk.iter().fold(row![].spacing(1), |r, d| {
            let mark = if Some(d.card) == last_discard {
                Mark::Glow
            } else if d.claimed {
                Mark::Dim
            } else {
                Mark::None
            };
            let offset = sliding
                .filter(|(c, _)| *c == d.card)
                .map_or((0, 0), |(_, o)| o);
            r.push(
                TileView::face(d.card.tile, faces, wild(v, d.card.tile))
                    .mark(mark)
                    .moved(offset)
                    .view(w),
            )
        }));
    }
    col.into()
}

fn whose_turn(v: &SeatView) -> Option<Seat> {
    match &v.phase {
        PublicPhase::Turn { seat, .. } | PublicPhase::Flowers { seat } => Some(*seat),
        _ => None,
    }
}

fn seat_header<'a>(st: &State, v: &SeatView, seat: Seat, ctx: Ctx<'_>) -> Element<'a, Message> {
    let lang = ctx.lang;
    let mut top = row![
        bold(lang.t(wind(seat, v.dealer)), 18.0, ACCENT),
        bold(st.names(ctx.name).of(lang, seat), 16.0, ON_FELT),
    ]
    .spacing(8)
    .align_y(Alignment::Center);
    if seat == v.dealer {
        top = top.push(bold(lang.t(T::Dealer), 14.0, WARN));
    }
    // The last claim, kong, 敲 or win, called out big at the seat that made it until the
    // next move.
    if let Some(call) = st
        .last
        .as_ref()
        .filter(|l| l.seat() == seat)
        .and_then(|l| l.call())
    {
        top = top.push(bold(lang.t(call), 24.0, WARN));
    }
    if v.seats[seat as usize].ready {
        top = top.push(bold(lang.t(T::IsReady), 14.0, ACCENT));
    }
    if st.replaced[seat as usize] {
        top = top.push(bold(lang.t(T::ReplacedByBot), 14.0, WARN));
    } else if st.silent[seat as usize] && st.relay_gone.is_none() {
        // At a LAN table a silent friend is a dropped connection the table waits for.
        let mark = if st.names.is_some() {
            T::Reconnecting
        } else {
            T::Silent
        };
        top = top.push(bold(lang.t(mark), 14.0, WARN));
    }
    let mut details = vec![lang.t(relative(seat, v.seat)).to_string()];
    if seat != HUMAN && st.names.is_none() {
        let level = st.config().levels[seat as usize - 1];
        details.push(lang.t(super::level_name(level)).to_string());
    }
    if seat != v.seat {
        details.push(lang.f(
            T::Of,
            &[&lang.t(T::Concealed), &v.seats[seat as usize].hand_size],
        ));
    } else if let Some(wc) = v.wildcard {
        // The mark on the wildcards in the player's hand, explained where the hand is.
        details.push(lang.f(T::WildcardLegend, &[&tile_text(wc, ctx.faces, lang)]));
    }
    let mut under = row![label(details.join(" · "), 12.0, MUTED)].spacing(6);
    // Over the internet: whether this friend's moves come straight or through the relay.
    if let Some(direct) = st.links[seat as usize] {
        under = under.push(label(lang.t(super::link_word(direct)), 12.0, ACCENT));
    }
    // The row keeps its height with or without a call-out: nothing below it moves.
    column![top.height(Length::Fixed(30.0)), under]
        .spacing(1)
        .into()
}

/// A seat across or at a side. `wide`: the seat across, whose panel is wide and low — its
/// melds go beside the name rather than under it, so that its discards keep their room on a
/// low window (1024×600).
fn other_seat<'a>(
    st: &State,
    v: &SeatView,
    seat: Seat,
    ctx: Ctx<'_>,
    w: f32,
    per_row: usize,
    wide: bool,
) -> Element<'a, Message> {
    let active = whose_turn(v) == Some(seat);
    // Melds and flowers wrap onto more lines rather than run past the panel's edge.
    let melds = melds_row(v, seat, ctx.faces, w, st.frame())
        .wrap()
        .vertical_spacing(4);
    let head: Element<'a, Message> = if wide {
        row![seat_header(st, v, seat, ctx), melds]
            .spacing(12)
            .align_y(Alignment::Start)
            .into()
    } else {
        column![seat_header(st, v, seat, ctx), melds]
            .spacing(6)
            .into()
    };
    let body = column![head, river(v, seat, ctx.faces, w, per_row, st.frame())].spacing(6);
    // On a small screen a long river scrolls instead of being cut off.
    container(scrollable(body).width(Length::Fill).height(Length::Fill))
        .padding(8)
        .width(Length::Fill)
        .height(Length::Fill)
        .style(if active { panel_active } else { panel })
        .into()
}

fn centre<'a>(st: &State, v: &SeatView, ctx: Ctx<'_>, w: f32) -> Element<'a, Message> {
    let lang = ctx.lang;
    // A narrow window has a narrow centre: smaller type, so that the last move still shows.
    let narrow = ctx.size.width < 1100.0;
    let f = if narrow { 13.0 } else { 15.0 };
    let wall = lang.f(T::WallLeft, &[&v.wall_remaining]);
    let dice = lang.f(T::Dice, &[&v.dice.values().0, &v.dice.values().1]);
    let mut info = column![bold(lang.f(T::HandNo, &[&st.hand]), f + 3.0, ACCENT)];
    info = if narrow {
        info.push(label(format!("{wall} · {dice}"), f, ON_FELT))
    } else {
        info.push(label(wall, f, ON_FELT))
            .push(label(dice, f, ON_FELT))
    };
    let mut info = info
        .push(label(lang.f(T::Huangfan, &[&v.huangfan]), f, ON_FELT))
        .spacing(if narrow { 2 } else { 4 })
        .align_x(Alignment::Center);
    if let Some(ind) = v.indicator {
        let r = row![
            label(lang.t(T::Indicator), 13.0, MUTED),
            TileView::face(ind.tile, ctx.faces, false).view(w)
        ]
        .spacing(6)
        .align_y(Alignment::Center);
        info = info.push(r);
    }
    if let Some(last) = &st.last {
        info = info.push(label(
            describe_named(lang, ctx.faces, st.names(ctx.name), last),
            f - 1.0,
            MUTED,
        ));
    }
    container(info)
        .padding(8)
        .center_x(Length::Fill)
        .center_y(Length::Fill)
        .style(panel)
        .into()
}

/// Whose turn it is, or whose discard is open to claims, with the tile.
fn status<'a>(st: &State, v: &SeatView, ctx: Ctx<'_>, w: f32) -> Element<'a, Message> {
    let lang = ctx.lang;
    let can_win = st.legal().iter().any(|a| matches!(a, Action::Win { .. }));
    let text: String = match &v.phase {
        PublicPhase::Turn { seat, .. } | PublicPhase::Flowers { seat } if *seat == v.seat => lang
            .t(if can_win {
                T::YourTurnWin
            } else {
                T::YourTurnDiscard
            })
            .to_string(),
        PublicPhase::Claims { from, .. } if !st.legal().is_empty() => {
            lang.f(T::YourClaim, &[&st.names(ctx.name).of(lang, *from)])
        }
        PublicPhase::Turn { seat, .. } | PublicPhase::Flowers { seat } => {
            lang.f(T::WaitingFor, &[&st.names(ctx.name).of(lang, *seat)])
        }
        PublicPhase::Claims { from, .. } => {
            lang.f(T::ClaimOn, &[&st.names(ctx.name).of(lang, *from)])
        }
        PublicPhase::RobKong { from, .. } => {
            lang.f(T::RobOn, &[&st.names(ctx.name).of(lang, *from)])
        }
        PublicPhase::Swap { .. } => lang.t(T::SwapPhase).to_string(),
        PublicPhase::Over(_) => String::new(),
    };
    let mut r = row![bold(text, 16.0, ON_FELT)]
        .spacing(8)
        .align_y(Alignment::Center);
    if let PublicPhase::Claims { card, .. } | PublicPhase::RobKong { card, .. } = &v.phase {
        r = r.push(
            TileView::face(card.tile, ctx.faces, wild(v, card.tile))
                .mark(Mark::Glow)
                .view(w),
        );
    }
    if let Some(s) = st.seconds_left() {
        r = r.push(bold(
            lang.f(T::Seconds, &[&s]),
            22.0,
            if s <= 5 { WARN } else { ACCENT },
        ));
    }
    r.into()
}

/// One line for a move.
pub fn describe(lang: Lang, faces: Faces, me: &str, mv: &mahjong_rules::Move) -> String {
    describe_named(
        lang,
        faces,
        Names { me, table: None },
        &LastMove::new(mv.clone(), &[]),
    )
}

/// One line for the last move, the seats named by `names`, with its verb and tiles:
/// `小红 碰 南`, `Lao Wang chows 3-4-5 dots` (a claim is said as the claimer's, whoever
/// answered the window last).
pub fn describe_named(lang: Lang, faces: Faces, names: Names<'_>, last: &LastMove) -> String {
    let mv = &last.mv;
    let who = names.of(lang, last.seat());
    let tile = |t: Tile| tile_text(t, faces, lang);
    if let Some((_, m)) = last.meld {
        let key = match m.kind {
            MeldType::Chow => T::MoveChow,
            MeldType::Pung => T::MovePung,
            _ => T::MoveKong,
        };
        // A concealed kong stays face down in the line (the others cannot see it).
        let what = if m.kind == MeldType::ConcealedKong {
            String::new()
        } else {
            run_text(&m.tiles(), faces, lang)
        };
        return lang.f(key, &[&who, &what]).trim_end().to_string();
    }
    let s = match &mv.action {
        Action::Discard { card, ready: true } => {
            format!(
                "{} · {}",
                lang.f(T::MoveReady, &[&who]),
                lang.f(T::MoveDiscard, &[&"", &tile(card.tile)]).trim()
            )
        }
        Action::Discard { card, .. } => lang.f(T::MoveDiscard, &[&who, &tile(card.tile)]),
        Action::Chow { cards } => {
            let mut ts: Vec<Tile> = cards.iter().map(|c| c.tile).collect();
            ts.sort();
            let what: Vec<String> = ts.into_iter().map(tile).collect();
            lang.f(T::MoveChow, &[&who, &what.join(" ")])
        }
        Action::Pung { cards } => lang.f(T::MovePung, &[&who, &tile(cards[0].tile)]),
        Action::Kong { cards } => lang.f(T::MoveKong, &[&who, &tile(cards[0].tile)]),
        Action::ConcealedKong { .. } => lang.f(T::MoveKong, &[&who, &""]).trim_end().to_string(),
        Action::AddedKong { card } => lang.f(T::MoveKong, &[&who, &tile(card.tile)]),
        Action::Flower { .. } => lang.f(T::MoveFlower, &[&who]),
        Action::Win { .. } => lang.f(T::MoveWin, &[&who]),
        Action::Swap { .. } => lang.f(T::MoveSwap, &[&who]),
        Action::Pass | Action::Leave => who,
    };
    if mv.timed_out {
        format!("{s} ({})", lang.f(T::MoveTimedOut, &[&""]).trim())
    } else {
        s
    }
}

fn kong_button<'a>(
    v: &SeatView,
    lang: Lang,
    ctx: Ctx<'_>,
    tile: Tile,
    a: &Action,
    w: f32,
) -> iced::widget::Button<'a, Message> {
    let faces = tiles_row(v, [Some(tile)], ctx.faces, w * 0.7, (0, 0));
    button(
        row![text(lang.t(T::Kong)).size(16).font(crate::FONT_BOLD), faces]
            .spacing(6)
            .align_y(Alignment::Center),
    )
    .padding([4, 10])
    .style(button::primary)
    .on_press(Message::Act(a.clone()))
}

fn buttons<'a>(st: &State, v: &SeatView, ctx: Ctx<'_>, w: f32) -> Element<'a, Message> {
    let lang = ctx.lang;
    let legal = st.legal();
    let mut r = row![].spacing(8).align_y(Alignment::Center);
    let claimed = match &v.phase {
        PublicPhase::Claims { card, .. } => Some(card.tile),
        _ => None,
    };
    for (i, a) in legal.iter().enumerate() {
        match a {
            Action::Chow { cards } => {
                let mut tiles: Vec<Tile> = cards.iter().map(|c| c.tile).collect();
                tiles.extend(claimed);
                tiles.sort_by_key(|t| t.index());
                let faces = tiles_row(v, tiles.into_iter().map(Some), ctx.faces, w * 0.7, (0, 0));
                r = r.push(with_id(
                    action_id(i),
                    button(
                        row![text(lang.t(T::Chow)).size(16).font(crate::FONT_BOLD), faces]
                            .spacing(6)
                            .align_y(Alignment::Center),
                    )
                    .padding([4, 10])
                    .style(button::primary)
                    .on_press(Message::Act(a.clone())),
                ));
            }
            Action::Pung { .. } => {
                r = r.push(with_id(
                    action_id(i),
                    action(lang.t(T::Pung), 17.0, Some(Message::Act(a.clone())))
                        .style(button::primary),
                ));
            }
            Action::Kong { .. } => {
                r = r.push(with_id(
                    action_id(i),
                    action(lang.t(T::Kong), 17.0, Some(Message::Act(a.clone())))
                        .style(button::primary),
                ));
            }
            Action::ConcealedKong { cards } => {
                // A turn may offer more than one kong: each button shows its tile.
                r = r.push(with_id(
                    action_id(i),
                    kong_button(v, lang, ctx, cards[0].tile, a, w),
                ));
            }
            Action::AddedKong { card } => {
                r = r.push(with_id(
                    action_id(i),
                    kong_button(v, lang, ctx, card.tile, a, w),
                ));
            }
            Action::Win { .. } => {
                r = r.push(with_id(
                    action_id(i),
                    action(lang.t(T::Win), 17.0, Some(Message::Act(a.clone())))
                        .style(button::success),
                ));
            }
            _ => {}
        }
    }
    if legal
        .iter()
        .any(|a| matches!(a, Action::Discard { ready: true, .. }))
    {
        let b = action(lang.t(T::Ready), 17.0, Some(Message::Ready));
        r = r.push(with_id(
            READY_ID,
            if st.ready_mode {
                b.style(button::success)
            } else {
                b.style(button::secondary)
            },
        ));
    }
    if legal
        .iter()
        .any(|a| matches!(a, Action::Discard { ready: false, .. }))
    {
        r = r.push(with_id(
            DISCARD_ID,
            action(
                lang.t(T::Discard),
                17.0,
                st.picked.map(|_| Message::Discard),
            )
            .style(button::secondary),
        ));
    }
    if legal.contains(&Action::Pass) {
        r = r.push(with_id(
            PASS_ID,
            action(lang.t(T::Pass), 17.0, Some(Message::Act(Action::Pass)))
                .style(button::secondary),
        ));
    }
    if st.hint.is_some() && !legal.is_empty() {
        r = r.push(
            action(lang.t(T::HintButton), 14.0, Some(Message::ToggleHint)).style(button::text),
        );
    }
    r.into()
}

fn hand<'a>(st: &State, v: &SeatView, ctx: Ctx<'_>, w: f32) -> Element<'a, Message> {
    let shown = st.shown_hand();
    let drawn = v.drawn.filter(|d| v.hand.contains(d));
    let mut r = row![].spacing(2).align_y(Alignment::End);
    for (i, card) in shown.iter().enumerate() {
        if drawn == Some(*card) && i + 1 == shown.len() {
            r = r.push(Space::new().width(Length::Fixed(w * 0.5)));
        }
        let playable = st.can_discard(*card, false) || st.can_discard(*card, true);
        let mark = if st.picked == Some(i) {
            Mark::Selected
        } else if st.ready_mode && st.can_discard(*card, true) {
            Mark::Glow
        } else {
            Mark::None
        };
        let tile = TileView::face(card.tile, ctx.faces, wild(v, card.tile))
            .mark(mark)
            .view(w);
        let lifted = column![
            Space::new().height(Length::Fixed(if st.picked == Some(i) {
                0.0
            } else {
                w * 0.25
            })),
            tile,
        ];
        let area = mouse_area(container(lifted).id(hand_tile_id(i)))
            .on_press(Message::Tile(i))
            .interaction(if playable {
                iced::mouse::Interaction::Pointer
            } else {
                iced::mouse::Interaction::default()
            });
        r = r.push(area);
    }
    r.into()
}

/// Cards shown by a meld of the player's own (for the concealed kongs the player sees).
fn own_melds<'a>(v: &SeatView, faces: Faces, w: f32, fr: Frame) -> Element<'a, Message> {
    melds_row(v, v.seat, faces, w, fr).into()
}

/// The whole table.
pub fn view<'a>(st: &'a State, ctx: Ctx<'a>) -> Element<'a, Message> {
    let lang = ctx.lang;
    let Some(v) = &st.view else {
        let msg = if st.agreed { T::Dealing } else { T::Setup };
        return container(bold(lang.t(msg), 20.0, ON_FELT))
            .center(Length::Fill)
            .into();
    };
    let v: &SeatView = v;
    let Size { width, height } = ctx.size;
    // Tile sizes follow the window: the hand fits 15 tiles, rivers 6 or 8 per row.
    let hand_w = fit(width * 0.72, 15, 26.0, 58.0).min(fit(height * 0.09, 1, 26.0, 58.0));
    let small = (hand_w * 0.55).clamp(16.0, 30.0);
    let per_row = if width < 1100.0 { 6 } else { 8 };
    let me = v.seat;
    let right = (me + 1) % 4;
    let across = (me + 2) % 4;
    let left = (me + 3) % 4;
    // The seat across and the discards under it are wide: as many tiles a row as fit.
    let wide_row = (((width * 0.5 - 60.0) / (small + 3.0)) as usize).clamp(per_row + 2, 14);
    let middle = row![
        other_seat(st, v, left, ctx, small, per_row, false),
        column![
            other_seat(st, v, across, ctx, small, wide_row, true),
            row![
                centre(st, v, ctx, small),
                container(
                    column![
                        label(lang.t(T::Discards), 12.0, MUTED),
                        river(v, me, ctx.faces, small, per_row + 2, st.frame())
                    ]
                    .spacing(4)
                )
                .padding(8)
                .width(Length::FillPortion(if per_row < 8 { 2 } else { 3 }))
                .height(Length::Fill)
                .style(panel),
            ]
            .spacing(6)
            .height(Length::FillPortion(1)),
        ]
        .spacing(6)
        .width(Length::FillPortion(2)),
        other_seat(st, v, right, ctx, small, per_row, false),
    ]
    .spacing(6)
    .height(Length::Fill);
    // The status and the buttons, then the notes: each in a space of its own size, so that
    // nothing moves under the pointer when a hint, a claim bar or a note comes and goes.
    let bar_h = hand_w * 0.7 + 16.0;
    let controls = row![
        container(status(st, v, ctx, small * 1.2))
            .width(Length::FillPortion(2))
            .height(Length::Fixed(bar_h))
            .align_y(Alignment::Center),
        container(buttons(st, v, ctx, hand_w))
            .width(Length::FillPortion(3))
            .height(Length::Fixed(bar_h))
            .align_y(Alignment::Center),
    ]
    .spacing(16);
    let mut bottom_notes = column![].spacing(2);
    for (line, color) in notes(st, v, ctx) {
        bottom_notes = bottom_notes.push(label(line, 14.0, color));
    }
    let mut bottom = column![
        row![
            seat_header(st, v, me, ctx),
            Space::new().width(Length::Fill),
            wildcard_badge(v, ctx, small),
            own_melds(v, ctx.faces, small, st.frame())
        ]
        .spacing(10)
        .align_y(Alignment::Center),
        hand(st, v, ctx, hand_w),
        controls,
        container(bottom_notes).height(Length::Fixed(NOTE_LINES as f32 * 19.0)),
    ]
    .spacing(6);
    // A replay is only looked at: the table's keys would mislead (it says its own).
    if !st.watched {
        bottom = bottom.push(label(lang.t(T::Keys), 12.0, MUTED));
    }
    let mine = whose_turn(v) == Some(me) || !st.legal().is_empty();
    let me_panel = container(bottom)
        .padding(8)
        .width(Length::Fill)
        .style(if mine { panel_active } else { panel });
    column![middle, me_panel].spacing(6).padding(6).into()
}

/// The 百搭 wildcard, large, beside the player's hand (it changes every hand; the legend under
/// the player's name explains its mark).
fn wildcard_badge<'a>(v: &SeatView, ctx: Ctx<'_>, w: f32) -> Element<'a, Message> {
    match v.wildcard {
        Some(wc) => row![
            bold(ctx.lang.t(T::Wildcard), 15.0, ACCENT),
            TileView::face(wc, ctx.faces, true)
                .mark(Mark::Glow)
                .view(w * 1.3),
        ]
        .spacing(6)
        .align_y(Alignment::Center)
        .into(),
        None => Space::new().width(Length::Shrink).into(),
    }
}

/// Lines the notes area keeps room for.
const NOTE_LINES: usize = 2;

/// The notes under the buttons, most pressing first, at most [`NOTE_LINES`]: a failure, what
/// the timer played, a claim that lost, a tile held back, the hint, the waits after 敲.
fn notes(st: &State, v: &SeatView, ctx: Ctx<'_>) -> Vec<(String, iced::Color)> {
    let lang = ctx.lang;
    let names = st.names(ctx.name);
    let mut out = Vec::new();
    if let Some(relay) = &st.relay_gone {
        out.push((lang.f(T::RelayGone, &[relay]), WARN));
    }
    if let Some(f) = &st.failed {
        // A hand that could not be kept does not stop the table: said as it is, not as the
        // table's end.
        let said = crate::i18n::failure(lang, f);
        out.push((
            if matches!(f, crate::watch::Failure::NotKept(_)) {
                said
            } else {
                lang.f(T::Failed, &[&said])
            },
            WARN,
        ));
    }
    if st.timed_out {
        let line = match &st.timed_out_action {
            Some(Action::Discard { card, .. }) => lang.f(
                T::TimedOutDiscard,
                &[&tile_text(card.tile, ctx.faces, lang)],
            ),
            Some(Action::Pass) => lang.t(T::TimedOutPass).to_string(),
            _ => lang.f(T::TimedOut, &[&lang.t(T::Me)]),
        };
        out.push((line, WARN));
    }
    if let Some((seat, won)) = st.claim_lost {
        let key = if won { T::ClaimLostWin } else { T::ClaimLost };
        out.push((lang.f(key, &[&names.of(lang, seat)]), WARN));
    }
    if let Some(t) = st.refused {
        out.push((
            lang.f(T::BarredTile, &[&tile_text(t, ctx.faces, lang)]),
            WARN,
        ));
    }
    if st.show_hint
        && let Some((a, reason)) = &st.hint
    {
        out.push((
            lang.f(
                T::HintText,
                &[
                    &action_name_at(lang, ctx.faces, a, claimed_tile(v)),
                    &crate::i18n::reasons::reason(lang, ctx.faces, &|s| names.of(lang, s), reason),
                ],
            ),
            ACCENT,
        ));
    }
    // The waits (听) whenever the hand is ready, 敲 declared or not, each with the copies
    // still live for the player (a 百搭 wildcard that completes the hand is one of them).
    let waits: Vec<String> = v
        .waits_live()
        .into_iter()
        .map(|(t, n)| lang.f(T::WaitLive, &[&tile_text(t, ctx.faces, lang), &n]))
        .collect();
    let waits = (!waits.is_empty()).then(|| {
        lang.f(
            T::WaitsLive,
            &[&waits.join(if lang == Lang::Zh { "、" } else { ", " })],
        )
    });
    match (st.auto(), waits) {
        (true, Some(w)) => out.push((format!("{} · {w}", lang.t(T::AutoPlay)), ACCENT)),
        (true, None) => out.push((lang.t(T::AutoPlay).to_string(), ACCENT)),
        (false, Some(w)) => out.push((w, ACCENT)),
        (false, None) => {}
    }
    out.truncate(NOTE_LINES);
    out
}

/// The tile open to claims, if any.
fn claimed_tile(v: &SeatView) -> Option<Tile> {
    match &v.phase {
        PublicPhase::Claims { card, .. } | PublicPhase::RobKong { card, .. } => Some(card.tile),
        _ => None,
    }
}

/// A short name of an action (for the hint).
pub fn action_name(lang: Lang, faces: Faces, a: &Action) -> String {
    action_name_at(lang, faces, a, None)
}

/// A short name of an action, a chow named by its run with the `claimed` tile (`吃 三四五筒`:
/// which chow, when the tile makes more than one).
pub fn action_name_at(lang: Lang, faces: Faces, a: &Action, claimed: Option<Tile>) -> String {
    let tile = |c: &Card| tile_text(c.tile, faces, lang);
    if let Action::Chow { cards } = a {
        let mut run: Vec<Tile> = cards.iter().map(|c| c.tile).chain(claimed).collect();
        run.sort();
        return format!("{} {}", lang.t(T::Chow), run_text(&run, faces, lang));
    }
    match a {
        Action::Discard { card, ready } => {
            let d = format!("{} {}", lang.t(T::Discard), tile(card));
            if *ready {
                format!("{} · {d}", lang.t(T::Ready))
            } else {
                d
            }
        }
        Action::Chow { .. } => lang.t(T::Chow).to_string(),
        Action::Pung { .. } => lang.t(T::Pung).to_string(),
        Action::Kong { .. } | Action::ConcealedKong { .. } | Action::AddedKong { .. } => {
            lang.t(T::Kong).to_string()
        }
        Action::Win { .. } => lang.t(T::Win).to_string(),
        Action::Flower { .. } => lang.t(T::Flower).to_string(),
        Action::Swap { .. } => lang.t(T::SwapPhase).to_string(),
        Action::Pass | Action::Leave => lang.t(T::Pass).to_string(),
    }
}

/// Scrollable wrapper for small windows.
pub fn scroll<'a>(e: Element<'a, Message>) -> Element<'a, Message> {
    scrollable(e).into()
}
