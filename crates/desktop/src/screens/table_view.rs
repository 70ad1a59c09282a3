//! The table drawn: the three others around (left, across, right) with their discard rivers,
//! melds, flowers and concealed-kong backs, names, seat winds, ready and silent marks; the
//! centre with the wall count, dice, dealer, 荒番, the `baida` indicator and wildcard, whose
//! turn it is and the countdown; the player's hand at the bottom with the drawn tile apart and
//! the buttons of the legal actions only (chow choices drawn as tiles).
//!
//! A claimed meld lies its claimed tile on its side where it says whose discard it was, as
//! on a Chinese table: from the left-hand seat (上家) leftmost, from across (对家) in the
//! middle, from the right-hand seat (下家) rightmost; hovering the meld names that seat.
//!
//! About 820 lines of drawing: the four seats, the centre and the player's hand are one
//! layout.

use crate::i18n::Text;
use iced::widget::{Space, button, column, container, mouse_area, row, scrollable, text, tooltip};
use iced::{Alignment, Element, Length, Size};
use mahjong_rules::{
    Action, Card, MeldType, PublicMeld, PublicPhase, PublicSeat, Seat, SeatView, Tile,
};

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
/// The id of the hint button (the first of the row whenever it is shown).
pub const HINT_ID: &str = "action-hint";

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

/// The tiles of a meld as laid on the table, left to right, each with whether it lies on its
/// side. A claimed tile lies where its seat sits as seen from the meld's owner
/// ([`turned_at`]); in a chow it is the tile that was claimed (`claimed`, when known), moved
/// there, the others in order around it.
pub fn meld_faces(m: &PublicMeld, owner: Seat, claimed: Option<Tile>) -> Vec<(Option<Tile>, bool)> {
    let mut tiles: Vec<Option<Tile>> = match (m.kind, m.tile) {
        (_, None) => vec![None; 4],
        (MeldType::Chow, Some(t)) => (0..3).map(|d| Tile::from_index(t.index() + d)).collect(),
        (MeldType::Pung, Some(t)) => vec![Some(t); 3],
        (MeldType::ConcealedKong, Some(t)) => vec![None, Some(t), Some(t), None],
        (_, Some(t)) => vec![Some(t); 4],
    };
    let at = match m.kind {
        MeldType::ConcealedKong => None,
        _ => m.from.and_then(|from| turned_at(tiles.len(), owner, from)),
    };
    if let (Some(at), Some(c)) = (at, claimed)
        && let Some(i) = tiles.iter().position(|t| *t == Some(c))
    {
        let t = tiles.remove(i);
        tiles.insert(at, t);
    }
    tiles
        .into_iter()
        .enumerate()
        .map(|(i, t)| (t, Some(i) == at))
        .collect()
}

/// Where the claimed tile of a meld of `len` tiles lies, claimed by `owner` from `from`:
/// leftmost from the seat on the owner's left (上家), in the middle from across (对家),
/// rightmost from the seat on the right (下家); `None` for the owner's own tiles.
pub fn turned_at(len: usize, owner: Seat, from: Seat) -> Option<usize> {
    match (from + 4 - owner) % 4 {
        3 => Some(0),
        2 => Some(1),
        1 => Some(len.saturating_sub(1)),
        _ => None,
    }
}

/// The tile the `meld`-th meld of `owner` took from its discarder: a pung's or kong's own
/// tile; for a chow, the discarder's claimed discards are matched to the owner's chows from
/// it in order, each to the first one after the last matched whose tile is in that chow's
/// run (a pung a third seat claimed from the same river, of a tile in the run, could be
/// taken for it; only which tile lies on its side would differ).
pub fn chow_claimed(seats: &[PublicSeat; 4], owner: Seat, meld: usize) -> Option<Tile> {
    let melds = &seats.get(owner as usize)?.melds;
    let m = melds.get(meld)?;
    let from = m.from?;
    if m.kind != MeldType::Chow {
        return m.tile;
    }
    let river = &seats.get(from as usize)?.discards;
    let mut next = 0;
    for (i, c) in melds.iter().enumerate().take(meld + 1) {
        if c.kind != MeldType::Chow || c.from != Some(from) {
            continue;
        }
        let low = c.tile?.index();
        let hit = river
            .get(next..)?
            .iter()
            .position(|d| d.claimed && (low..low + 3).contains(&d.card.tile.index()))?;
        if i == meld {
            return Some(river[next + hit].card.tile);
        }
        next += hit + 1;
    }
    None
}

/// A seat's melds and flowers; during a claim's motion its newest meld slides in from the
/// table's centre. Each claimed meld names, when hovered, whose discard it took.
fn melds_row<'a>(
    v: &SeatView,
    seat: Seat,
    ctx: Ctx<'_>,
    names: Names<'_>,
    w: f32,
    fr: Frame,
) -> iced::widget::Row<'a, Message> {
    let faces = ctx.faces;
    let s = &v.seats[seat as usize];
    let mut r = row![].spacing(6).align_y(Alignment::End);
    let newest = s.melds.len().checked_sub(1);
    for (i, m) in s.melds.iter().enumerate() {
        let (offset, reach) = match fr.meld {
            Some((who, left)) if who == seat && Some(i) == newest => {
                meld_slide(seat, v.seat, w, left)
            }
            _ => ((0, 0), (0, 0)),
        };
        let claimed = chow_claimed(&v.seats, seat, i);
        let tiles = meld_faces(m, seat, claimed).into_iter().fold(
            row![].spacing(1).align_y(Alignment::End),
            |r, (t, turned)| {
                r.push(
                    match t {
                        Some(t) => TileView::face(t, faces, wild(v, t)),
                        None => TileView::back(),
                    }
                    .turned(turned)
                    .on_way(offset, reach)
                    .view(w),
                )
            },
        );
        match (m.from, claimed) {
            (Some(from), Some(t)) if m.kind != MeldType::ConcealedKong => {
                let said = meld_from(ctx.lang, faces, names, v.dealer, from, t);
                r = r.push(tooltip(
                    tiles,
                    container(label(said, 14.0, ON_FELT))
                        .padding(6)
                        .style(super::tip),
                    tooltip::Position::Top,
                ));
            }
            _ => r = r.push(tiles),
        }
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

/// Whose discard a meld took, by wind and name as the seats are named at the table, with the
/// tile: `北 老王 打出的 七筒`, `7 Dot from North Lao Wang`.
pub fn meld_from(
    lang: Lang,
    faces: Faces,
    names: Names<'_>,
    dealer: Seat,
    from: Seat,
    tile: Tile,
) -> String {
    let who = format!("{} {}", lang.t(wind(from, dealer)), names.of(lang, from));
    lang.f(T::MeldFrom, &[&who, &tile_text(tile, faces, lang)])
}

/// The newest discard of `seat` (seen from `me`), tiles `w` wide, `left` of its slide to go:
/// the player's from `from` (a point of the window), another seat's from its side of the table.
pub fn discard_slide(
    tile: TileView,
    seat: Seat,
    me: Seat,
    w: f32,
    left: f32,
    from: Option<(f32, f32)>,
) -> TileView {
    match from {
        Some(start) if seat == me => tile.slid_from(start, left),
        _ => {
            let (dx, dy) = motion::from_seat(seat, me);
            let run = w * 4.0 / 3.0 * motion::DISCARD_RUN;
            let start = (dx * run, dy * run);
            tile.on_way(motion::towards(start, left), motion::towards(start, 1.0))
        }
    }
}

/// The offset of the newest meld of `seat` (seen from `me`), tiles `w` wide, `left` of its
/// slide in from the table's centre to go, and where that slide starts.
pub fn meld_slide(seat: Seat, me: Seat, w: f32, left: f32) -> ((i16, i16), (i16, i16)) {
    let (dx, dy) = motion::from_seat(seat, me);
    (
        motion::offset((-dx, -dy), left, w),
        motion::offset((-dx, -dy), 1.0, w),
    )
}

/// A seat's discards, `per_row` a row. During a discard's motion the seat's newest discard
/// slides in: the player's from `from` (where it left the hand, a point of the window), the
/// others' from their side of the table, [`motion::DISCARD_RUN`] tiles away.
fn river<'a>(
    v: &SeatView,
    seat: Seat,
    faces: Faces,
    w: f32,
    per_row: usize,
    fr: Frame,
    from: Option<(f32, f32)>,
) -> Element<'a, Message> {
    let s = &v.seats[seat as usize];
    let sliding = match fr.discard {
        Some((who, left)) if who == seat => s.discards.last().map(|d| (d.card, left)),
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
            let tile = TileView::face(d.card.tile, faces, wild(v, d.card.tile)).mark(mark);
            let tile = match sliding.filter(|(c, _)| *c == d.card) {
                Some((_, left)) => discard_slide(tile, seat, v.seat, w, left, from),
                None => tile,
            };
            r.push(tile.view(w))
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

/// A seat's name in its header. The other seats' panels are narrow at 1024 × 600, where a
/// bot's label ("机器人（由 小明 运行）") wrapped into the line below the fixed-height row:
/// there the name stays on one line, takes the room the marks after it leave, and what does
/// not fit is cut. The player's own panel is wide: its name is laid out as it is.
fn seat_name<'a>(st: &State, v: &SeatView, seat: Seat, ctx: Ctx<'_>) -> Element<'a, Message> {
    let name = iced::widget::text(st.names(ctx.name).of(ctx.lang, seat))
        .size(16.0)
        .color(ON_FELT)
        .font(crate::FONT_BOLD);
    if seat == v.seat {
        return name.into();
    }
    container(name.wrapping(iced::widget::text::Wrapping::None))
        .width(Length::Fill)
        .clip(true)
        .into()
}

fn seat_header<'a>(st: &State, v: &SeatView, seat: Seat, ctx: Ctx<'_>) -> Element<'a, Message> {
    let lang = ctx.lang;
    let mut top = row![
        bold(lang.t(wind(seat, v.dealer)), 18.0, ACCENT),
        seat_name(st, v, seat, ctx),
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
    // A friends' table watched: the chair is nobody's here ("you" would be wrong).
    let live_watch = st.watched && st.is_lan();
    let mut details = if live_watch && seat == v.seat {
        Vec::new()
    } else {
        vec![lang.t(relative(seat, v.seat)).to_string()]
    };
    if seat != HUMAN && st.names.is_none() {
        let level = st.config().levels[seat as usize - 1];
        details.push(lang.t(super::level_name(level)).to_string());
    }
    if seat != v.seat || live_watch {
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
    let melds = melds_row(v, seat, ctx, st.names(ctx.name), w, st.frame())
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
    let body = column![
        head,
        river(v, seat, ctx.faces, w, per_row, st.frame(), None)
    ]
    .spacing(6);
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
        // A low window (1024×600) has no height in the centre for a tile: the indicator is
        // named instead (the wildcard it gives is shown as a tile in the player's panel).
        let face: Element<'a, Message> = if ctx.size.height < 700.0 {
            label(tile_text(ind.tile, ctx.faces, lang), f, ON_FELT)
        } else {
            TileView::face(ind.tile, ctx.faces, false).view(w)
        };
        let r = row![label(lang.t(T::Indicator), 13.0, MUTED), face]
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
        // The table sets a player's flowers aside itself (the host plays forced moves): while
        // their replacements are drawn there is nothing to do yet.
        PublicPhase::Flowers { seat } if *seat == v.seat => lang.t(T::YourTurnFlower).to_string(),
        PublicPhase::Turn { seat, .. } if *seat == v.seat => lang
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
    // The hint comes first, so it stays where it was when a claim prompt, with more buttons
    // than a turn, takes a turn's place: a click meant for it never lands on a claim.
    if st.hint.is_some() && !legal.is_empty() {
        r = r.push(with_id(
            HINT_ID,
            action(lang.t(T::HintButton), 14.0, Some(Message::ToggleHint)).style(button::text),
        ));
    }
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
    r.into()
}

fn hand<'a>(st: &State, v: &SeatView, ctx: Ctx<'_>, w: f32) -> Element<'a, Message> {
    let shown = st.shown_hand();
    let drawn = v.drawn.filter(|d| v.hand.contains(d));
    let mut r = row![].spacing(2).align_y(Alignment::End);
    // A friends' table watched: the chair's concealed tiles are backs, as everyone's are.
    if st.watched && st.is_lan() && shown.is_empty() {
        let n = v.seats[v.seat as usize & 3].hand_size;
        for _ in 0..n {
            r = r.push(TileView::back().view(w));
        }
        return r.into();
    }
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
fn own_melds<'a>(st: &State, v: &SeatView, ctx: Ctx<'_>, w: f32) -> Element<'a, Message> {
    melds_row(v, v.seat, ctx, st.names(ctx.name), w, st.frame()).into()
}

/// Where a hand tile's top-left corner is in the window: the `i`-th of the hand as shown
/// (`apart`: the drawn tile set apart at its end), tiles `w` wide, in a table of `size` under
/// the top bar. Worked out from the layout below, bottom up: the outer and the panel's
/// paddings, the keys' line (`keys`), the notes, the buttons' bar, then the tile (its lift
/// is above it).
pub fn hand_tile_at(size: Size, i: usize, apart: bool, w: f32, keys: bool) -> (f32, f32) {
    let bottom = size.height + super::TOP_BAR;
    let bar_h = w * 0.7 + 16.0;
    let notes = NOTE_LINES as f32 * 19.0;
    let keys = if keys { 16.0 + 6.0 } else { 0.0 };
    let high = (w * 4.0 / 3.0).round();
    let y = bottom - 6.0 - 8.0 - keys - notes - 6.0 - bar_h - 6.0 - high;
    let x = 6.0 + 8.0 + i as f32 * (w + 2.0) + if apart { w * 0.5 + 2.0 } else { 0.0 };
    (x, y)
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
    // The player's discard slides from where it left the hand, centred on that tile.
    let from_hand = st.left_hand.map(|(i, apart)| {
        let (x, y) = hand_tile_at(ctx.size, i, apart, hand_w, !st.watched);
        let small_high = (small * 4.0 / 3.0).round();
        let hand_high = (hand_w * 4.0 / 3.0).round();
        (
            x + (hand_w - small) / 2.0,
            y + (hand_high - small_high) / 2.0,
        )
    });
    let middle = row![
        other_seat(st, v, left, ctx, small, per_row, false),
        column![
            other_seat(st, v, across, ctx, small, wide_row, true),
            row![
                centre(st, v, ctx, small),
                container(
                    column![
                        label(lang.t(T::Discards), 12.0, MUTED),
                        river(v, me, ctx.faces, small, per_row + 2, st.frame(), from_hand)
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
            own_melds(st, v, ctx, small)
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
                    &crate::i18n::reasons::hint(lang, ctx.faces, &|s| names.of(lang, s), reason),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::motion::{Kind, Motion};
    use crate::screens::settle::flourish_tile;
    use mahjong_rules::state::Discard;
    use std::time::{Duration, Instant};

    fn tile(s: &str) -> Tile {
        s.parse().expect("tile")
    }

    /// Every frame of every motion, a millisecond apart, past its end.
    fn frames() -> Vec<Frame> {
        let t0 = Instant::now();
        let mut out = Vec::new();
        for kind in [
            Kind::Discard(0),
            Kind::Discard(2),
            Kind::Claim(1),
            Kind::Reveal,
        ] {
            let m = Motion::new(kind, t0);
            let ms = kind.duration().as_millis() as u64;
            for at in 0..=ms + 5 {
                out.push(m.frame(t0 + Duration::from_millis(at)));
            }
        }
        out
    }

    /// A tile as the table draws it at a frame: its face drawn, and all of it inside the
    /// region its canvas draws in (so nothing of the face is clipped away).
    fn whole(tv: TileView, w: f32, place: iced::Point, what: &str) {
        assert!(tv.tile.is_some(), "{what}: a face-up tile drawn blank");
        let tv = tv.placed(place);
        let size = tv.canvas_size(w);
        let region = tv.drawn_region(size);
        let (dx, dy) = tv.offset;
        let drawn = iced::Rectangle::new(iced::Point::new(dx as f32, dy as f32), size);
        // The same region at every frame: its place and its whole way.
        let (rx, ry) = tv.reach;
        let way = iced::Rectangle::with_size(size).union(&iced::Rectangle::new(
            iced::Point::new(rx as f32, ry as f32),
            size,
        ));
        let way = way.expand(crate::tiles::MARGIN);
        assert_eq!(region, way, "{what}: the region follows the tile");
        assert!(
            region.contains(drawn.position())
                && drawn.x + drawn.width <= region.x + region.width
                && drawn.y + drawn.height <= region.y + region.height,
            "{what}: the tile at {drawn:?} is clipped by {region:?}"
        );
    }

    #[test]
    fn no_tile_is_drawn_blank_or_clipped_at_any_frame_of_any_motion() {
        let w = 22.0;
        let place = iced::Point::new(640.0, 300.0);
        let hand = Some((200.0, 560.0));
        let mut moved = 0;
        for fr in frames() {
            let face = TileView::face(tile("7m"), Faces::Chinese, false);
            if let Some((seat, left)) = fr.discard {
                for from in [hand, None] {
                    let tv = discard_slide(face, seat, 0, w, left, from);
                    moved += usize::from(tv.placed(place).offset != (0, 0));
                    whole(tv, w, place, &format!("discard of {seat} at {left}"));
                }
            }
            if let Some((seat, left)) = fr.meld {
                for turned in [false, true] {
                    let (offset, reach) = meld_slide(seat, 0, w, left);
                    let tv = face.turned(turned).on_way(offset, reach);
                    moved += usize::from(tv.offset != (0, 0));
                    whole(tv, w, place, &format!("meld of {seat} at {left}"));
                }
            }
            if let Some(left) = fr.reveal {
                let tv = flourish_tile(
                    tile("1s"),
                    Faces::Contrast,
                    false,
                    Mark::Shine,
                    w,
                    Some(left),
                );
                moved += usize::from(tv.offset != (0, 0));
                // Face down in the turn's first half (the back is what is meant there).
                if tv.tile.is_some() {
                    whole(tv, w, place, &format!("flourish at {left}"));
                }
            }
        }
        assert!(moved > 300, "the frames move ({moved})");
    }

    #[test]
    fn the_last_frame_of_every_motion_is_the_still_picture() {
        let face = TileView::face(tile("5p"), Faces::Chinese, false);
        for fr in frames() {
            if fr == Frame::default() {
                continue;
            }
            // Past its end a motion's frame is the still picture, and its last moving one is
            // at most a pixel off.
            let left = fr
                .discard
                .map(|d| d.1)
                .or(fr.meld.map(|m| m.1))
                .or(fr.reveal);
            assert!(left.is_some_and(|l| l > 0.0));
        }
        assert_eq!(discard_slide(face, 2, 0, 30.0, 0.0, None).offset, (0, 0));
        let mine = discard_slide(face, 0, 0, 30.0, 0.0, Some((10.0, 500.0)));
        assert_eq!(mine.placed(iced::Point::new(600.0, 300.0)).offset, (0, 0));
        assert_eq!(meld_slide(3, 0, 30.0, 0.0).0, (0, 0));
        let end = flourish_tile(
            tile("5p"),
            Faces::Chinese,
            false,
            Mark::Glow,
            30.0,
            Some(0.0),
        );
        assert_eq!(
            (end.offset, end.width_pct, end.tile),
            ((0, 0), 100, face.tile)
        );
        assert_eq!(
            flourish_tile(tile("5p"), Faces::Chinese, false, Mark::Glow, 30.0, None),
            face.mark(Mark::Glow)
        );
        // The player's discard starts where it left the hand.
        let start = discard_slide(face, 0, 0, 30.0, 1.0, Some((10.0, 500.0)));
        assert_eq!(
            start.placed(iced::Point::new(600.0, 300.0)).offset,
            (-590, 200)
        );
    }

    fn meld(kind: MeldType, t: &str, from: Option<Seat>) -> PublicMeld {
        PublicMeld {
            kind,
            tile: Some(tile(t)),
            from,
        }
    }

    fn turned(faces: &[(Option<Tile>, bool)]) -> Vec<usize> {
        (0..faces.len()).filter(|&i| faces[i].1).collect()
    }

    #[test]
    fn a_claimed_tile_lies_where_its_seat_sits() {
        // Seat 1 claims: from seat 0 (its 上家) leftmost, from 3 (对家) in the middle, from 2
        // (下家) rightmost.
        let pung = |from| meld_faces(&meld(MeldType::Pung, "7p", Some(from)), 1, Some(tile("7p")));
        assert_eq!(turned(&pung(0)), vec![0]);
        assert_eq!(turned(&pung(3)), vec![1]);
        assert_eq!(turned(&pung(2)), vec![2]);
        let kong = |from| {
            meld_faces(
                &meld(MeldType::ClaimedKong, "1z", Some(from)),
                2,
                Some(tile("1z")),
            )
        };
        assert_eq!(turned(&kong(1)), vec![0]);
        assert_eq!(turned(&kong(0)), vec![1]);
        assert_eq!(turned(&kong(3)), vec![3]);
        // A chow is from the left: the claimed 5 lies first, then 4 and 6.
        let chow = meld_faces(&meld(MeldType::Chow, "4s", Some(0)), 1, Some(tile("5s")));
        assert_eq!(
            chow,
            vec![
                (Some(tile("5s")), true),
                (Some(tile("4s")), false),
                (Some(tile("6s")), false)
            ]
        );
        // Nothing lies down in a concealed kong.
        let hidden = meld_faces(&meld(MeldType::ConcealedKong, "9m", None), 1, None);
        assert!(turned(&hidden).is_empty());
        assert_eq!(turned_at(3, 0, 0), None);
    }

    #[test]
    fn a_chow_takes_the_claimed_tile_of_its_discarder() {
        let mut seats: [PublicSeat; 4] = Default::default();
        let d = |t: &str, claimed: bool, at: u32| Discard {
            card: Card {
                pos: at as u8,
                tile: tile(t),
            },
            claimed,
            ready: false,
            at,
        };
        seats[0].discards = vec![
            d("9m", false, 1),
            d("5s", true, 5),
            d("2p", false, 9),
            d("3p", true, 13),
        ];
        seats[1].melds = vec![
            meld(MeldType::Chow, "4s", Some(0)),
            meld(MeldType::Pung, "1z", Some(2)),
            meld(MeldType::Chow, "1p", Some(0)),
        ];
        assert_eq!(chow_claimed(&seats, 1, 0), Some(tile("5s")));
        assert_eq!(chow_claimed(&seats, 1, 1), Some(tile("1z")));
        assert_eq!(chow_claimed(&seats, 1, 2), Some(tile("3p")));
        assert_eq!(chow_claimed(&seats, 1, 3), None);
    }

    #[test]
    fn a_meld_says_whose_discard_it_took_by_wind_and_name() {
        let names = Names {
            me: "Mei",
            table: None,
        };
        let zh = meld_from(Lang::Zh, Faces::Chinese, names, 0, 3, tile("7p"));
        assert_eq!(zh, format!("北 {} 打出的 七筒", Lang::Zh.t(T::Bot3)));
        let en = meld_from(Lang::En, Faces::Contrast, names, 0, 3, tile("7p"));
        assert!(en.starts_with("7 Dot") && en.contains("from North"), "{en}");
        assert!(en.is_ascii(), "{en}");
    }
}
