//! The hand end: every hand face up, the winning hand split into its sets, the score explained
//! line by line (hand type and patterns, flowers, points, value, multiplier, cap in 勒子, the
//! table limit, S, who pays what and why, 承包), running totals, the "verified" mark and the
//! evidence against a cheating seat; next hand or stop.
//!
//! At the session's end the evening's story ([`super::story`]: the chart of running balances,
//! each player's wins, self-draws and deal-ins, the biggest hand, the settle-up) comes first.
//!
//! The score's lines are the rules crate's explanation (`scoring::explain`, rendered by
//! `explain_text`, the same text as `mahjong score --explain`); a result without one falls back
//! to what the scoring result gives (`WinnerScore`: type, patterns, flowers, P, V, cap, S).

use crate::i18n::Text;
use iced::widget::{button, column, container, row, scrollable};
use iced::{Alignment, Element, Length};
use mahjong_rules::explain::Explanation;
use mahjong_rules::explain_text;
use mahjong_rules::shape::{Set, decompositions};
use mahjong_rules::{Money, Outcome, Seat, Settlement, Tile, WinnerHand, WinnerScore, counts_of};

use super::table::{Message, State};
use super::table_view::Ctx;
use super::{ACCENT, MUTED, Names, ON_FELT, WARN, action, bold, label, panel, signed, wind};
use crate::engine::HandEnd;
use crate::i18n::{Lang, T};
use crate::tiles::{Faces, Mark, TileView};

/// A row of tiles; `flourish`: the win's flourish has this share of its way to go
/// ([`crate::motion`]): the tiles turn face up and rise, and the winning tile (`glow`) shines.
fn tile_row<'a>(
    tiles: &[Tile],
    faces: Faces,
    wildcard: Option<Tile>,
    w: f32,
    glow: Option<Tile>,
    flourish: Option<f32>,
) -> Element<'a, Message> {
    let mut glowed = false;
    tiles
        .iter()
        .fold(row![].spacing(1), |r, &t| {
            let mark = if !glowed && Some(t) == glow {
                glowed = true;
                if flourish.is_some() {
                    Mark::Shine
                } else {
                    Mark::Glow
                }
            } else {
                Mark::None
            };
            r.push(flourish_tile(t, faces, wildcard == Some(t), mark, w, flourish).view(w))
        })
        .into()
}

/// A tile of the winning hand at a frame of the win's flourish (`None`: still): turning face
/// up in its first part, risen by [`crate::motion::rise`].
pub fn flourish_tile(
    t: Tile,
    faces: Faces,
    wild: bool,
    mark: Mark,
    w: f32,
    flourish: Option<f32>,
) -> TileView {
    let face = TileView::face(t, faces, wild).mark(mark);
    let Some(left) = flourish else {
        return face;
    };
    let tile = match crate::motion::turn(crate::motion::reveal_turn(left)) {
        (false, pct) => TileView::back().narrowed(pct),
        (true, pct) => face.narrowed(pct),
    };
    tile.on_way(
        (0, crate::motion::rise(left, w)),
        (0, crate::motion::rise(0.5, w)),
    )
}

/// The winner's concealed tiles split into sets and the pair, when they split.
fn sets(h: &WinnerHand, wildcard: Option<Tile>) -> Option<Vec<Vec<Tile>>> {
    let jokers = wildcard.map_or(0, |w| h.concealed.iter().filter(|&&t| t == w).count()) as u8;
    let plain: Vec<Tile> = h
        .concealed
        .iter()
        .copied()
        .filter(|&t| Some(t) != wildcard && !t.is_flower())
        .collect();
    let d = decompositions(&counts_of(&plain), jokers)
        .into_iter()
        .next()?;
    let mut out: Vec<Vec<Tile>> = d
        .sets
        .iter()
        .map(|s| match *s {
            Set::Pung(t) => vec![t; 3],
            Set::Chow(t) => (0..3)
                .filter_map(|i| Tile::from_index(t.index() + i))
                .collect(),
        })
        .collect();
    out.push(match d.pair {
        Some(p) => vec![p; 2],
        None => wildcard.map(|w| vec![w; 2]).unwrap_or_default(),
    });
    Some(out)
}

fn multiplier(ws: &WinnerScore) -> u32 {
    ws.patterns
        .iter()
        .filter(|p| matches!(p.as_str(), "menqing" | "kaibao" | "huangfan"))
        .fold(1, |m, _| m * 2)
}

/// The score explained line by line by the rules crate (`explain_text::render_styled`): each
/// flower item, points, multipliers, the cap in 勒子, the table limit, who pays what and why,
/// 承包 included. `seats` name each seat as the player knows it (`西 小明`), tiles are named in
/// the player's faces and language, hands by their names in the language: a 中文 settlement
/// carries no seat number, pinyin id or notation the player did not choose. The scorer and
/// the replay show the same.
pub fn explanation_lines<'a, M: 'a>(
    lang: Lang,
    faces: Faces,
    seats: [String; 4],
    e: &Explanation,
) -> Element<'a, M> {
    explanation_text(lang, faces, seats, e)
        .into_iter()
        .fold(column![].spacing(2), |c, line| {
            let indent = line.len() - line.trim_start().len();
            let color = if indent == 0 { ACCENT } else { ON_FELT };
            c.push(label(line, 14.0, color))
        })
        .into()
}

/// The lines of [`explanation_lines`].
pub fn explanation_text(
    lang: Lang,
    faces: Faces,
    seats: [String; 4],
    e: &Explanation,
) -> Vec<String> {
    let style = explain_text::Style::named(
        lang,
        move |s| seats.get(s as usize).cloned().unwrap_or_default(),
        faces != Faces::Notation,
    );
    explain_text::render_styled(e, &style, 100)
}

/// Each seat as a settlement names it: its wind and its player (`西 小明`).
pub fn seat_labels(lang: Lang, names: Names<'_>, dealer: Option<Seat>) -> [String; 4] {
    [0u8, 1, 2, 3].map(|s| match dealer {
        Some(d) => format!("{} {}", lang.t(wind(s, d)), names.of(lang, s)),
        None => names.of(lang, s),
    })
}

/// What the scoring result alone gives, for a result without an explanation.
fn fallback_lines<'a>(
    lang: Lang,
    me: Names<'_>,
    s: &Settlement,
    ws: &WinnerScore,
) -> Element<'a, Message> {
    let name = |seat: Seat| me.of(lang, seat);
    let mut col = column![].spacing(4);
    let patterns: Vec<String> = ws.patterns.iter().map(|p| lang.pattern(p)).collect();
    col = col.push(label(
        lang.f(T::Of, &[&lang.t(T::Patterns), &patterns.join("、")]),
        15.0,
        ON_FELT,
    ));
    col = col.push(label(lang.f(T::FlowerCount, &[&ws.flowers]), 15.0, ON_FELT));
    col = col.push(label(lang.f(T::Points, &[&ws.points]), 15.0, ON_FELT));
    col = col.push(label(lang.f(T::Value, &[&ws.value]), 15.0, ON_FELT));
    let m = multiplier(ws);
    if m > 1 {
        col = col.push(label(lang.f(T::Multiplier, &[&m]), 15.0, ON_FELT));
    }
    match (ws.cap, s.options.lezi_points) {
        (Some(c), Some(lz)) => {
            col = col.push(label(lang.f(T::Cap, &[&c, &(c * lz)]), 15.0, ON_FELT));
        }
        _ => col = col.push(label(lang.t(T::NoCap), 15.0, ON_FELT)),
    }
    if let Some(l) = s.options.table_limit_lezi {
        col = col.push(label(lang.f(T::TableLimit, &[&l]), 15.0, ON_FELT));
    }
    col = col.push(bold(lang.f(T::ScoreS, &[&ws.score]), 16.0, ACCENT));
    col = col.push(label(
        lang.t(if s.kind.paid_by_all() {
            T::PaidByAll
        } else {
            T::PaidByDiscarder
        }),
        14.0,
        MUTED,
    ));
    if s.options.binding.is_some() {
        for other in (0..4u8).filter(|&o| o != ws.seat) {
            let n = s.claims[ws.seat as usize][other as usize]
                + s.claims[other as usize][ws.seat as usize];
            if n >= 3 {
                col = col.push(label(
                    lang.f(T::Binding, &[&name(other), &name(ws.seat), &n]),
                    14.0,
                    WARN,
                ));
            }
        }
    }
    col.into()
}

/// How the winning hand's tiles are drawn: faces, width, and how much of the win's flourish
/// is still to go ([`crate::motion`]).
#[derive(Clone, Copy)]
struct Look {
    faces: Faces,
    w: f32,
    turn: Option<f32>,
}

fn explain<'a>(
    lang: Lang,
    me: Names<'_>,
    s: &Settlement,
    ws: &WinnerScore,
    explanation: Option<&Explanation>,
    look: Look,
) -> Element<'a, Message> {
    let Look { faces, w, turn } = look;
    let name = |seat: Seat| me.of(lang, seat);
    // The banner swells with the flourish, in a line of its own height: nothing below moves.
    let size = turn.map_or(20.0, |left| crate::motion::swell(left, 20.0));
    let banner = container(bold(lang.f(T::Wins, &[&name(ws.seat)]), size, ACCENT))
        .height(Length::Fixed(44.0))
        .align_y(Alignment::Center);
    let mut col = column![banner].spacing(4);
    let mut how = lang.t(crate::i18n::win_kind(s.kind)).to_string();
    if let Some(from) = s.from {
        how = format!("{how} · {}", lang.f(T::FromSeat, &[&name(from)]));
    }
    col = col.push(label(how, 15.0, ON_FELT));
    if let Some(h) = s.winners.iter().find(|h| h.seat == ws.seat) {
        let mut sets_row = row![].spacing(8).align_y(Alignment::End);
        for m in &h.melds {
            sets_row = sets_row.push(tile_row(&m.tiles(), faces, s.wildcard, w, None, None));
        }
        match sets(h, s.wildcard) {
            Some(groups) => {
                for g in groups {
                    sets_row =
                        sets_row.push(tile_row(&g, faces, s.wildcard, w, h.winning_tile, turn));
                }
            }
            None => {
                sets_row = sets_row.push(tile_row(
                    &h.concealed,
                    faces,
                    s.wildcard,
                    w,
                    h.winning_tile,
                    turn,
                ));
            }
        }
        if !h.flowers.is_empty() {
            sets_row = sets_row.push(tile_row(&h.flowers, faces, None, w * 0.8, None, None));
        }
        col = col.push(label(lang.t(T::Sets), 13.0, MUTED)).push(sets_row);
    }
    if explanation.is_none() {
        col = col.push(fallback_lines(lang, me, s, ws));
    }
    col.into()
}

fn payments<'a>(
    lang: Lang,
    me: Names<'_>,
    pay: &[Money; 4],
    totals: &[Money; 4],
) -> Element<'a, Message> {
    let mut col = column![bold(lang.t(T::Totals), 16.0, ACCENT)].spacing(3);
    for seat in 0..4u8 {
        let p = pay[seat as usize];
        let who = me.of(lang, seat);
        let line = if p.0 < 0 {
            lang.f(T::Pays, &[&who, &Money(-p.0)])
        } else if p.0 > 0 {
            lang.f(T::Receives, &[&who, &p])
        } else {
            lang.f(T::PaysNothing, &[&who])
        };
        col = col.push(
            row![
                label(line, 15.0, ON_FELT),
                label(
                    lang.f(T::Totalled, &[&signed(p), &signed(totals[seat as usize])]),
                    14.0,
                    MUTED
                ),
            ]
            .spacing(14),
        );
    }
    col.into()
}

/// Whether the review (复盘) of this hand can be offered: the hand is kept in the player's
/// store (a practice hand booked by its recorder, a LAN hand booked by the network's storage
/// in the same data dir) and it was played to its end.
///
/// The review rebuilds the player's views before each decision ([`crate::rerun`]) by dealing
/// the whole wall, which only the end-of-hand audit gives: the four seats' deal secrets,
/// revealed and logged when a hand ends. A hand aborted by a leaver never reveals them: the
/// signed log and this seat's own secrets open only the tiles this seat saw, not the wall
/// this rebuild deals, so it is not offered. (This seat's views alone could be had by
/// restoring its client from the journal one log prefix at a time, `Client::restore` over
/// the stored secret root, at the cost of replaying the table's crypto from its start for
/// each step; not done here.)
pub fn reviewable(end: &HandEnd) -> bool {
    end.kept.is_some() && !end.result.aborted
}

fn review_button<'a>(lang: Lang, end: &HandEnd) -> Element<'a, Message> {
    if reviewable(end) {
        action(lang.t(T::ReviewButton), 16.0, Some(Message::Review))
            .style(button::secondary)
            .into()
    } else {
        iced::widget::Space::new().into()
    }
}

/// The hand end.
pub fn view<'a>(st: &'a State, end: &'a HandEnd, ctx: Ctx<'a>) -> Element<'a, Message> {
    let lang = ctx.lang;
    let r = &end.result;
    let w = (ctx.size.width / 40.0).clamp(20.0, 34.0);
    let verified = end.audited && end.signed_by_all;
    let names = st.names(ctx.name);
    // The header with the buttons stays in view; the explanation scrolls below it.
    let next: Element<'a, Message> = if st.over {
        bold(lang.t(T::SessionOver), 18.0, ACCENT)
    } else {
        action(lang.t(T::NextHand), 18.0, Some(Message::Next))
            .style(button::success)
            .into()
    };
    let header = row![
        bold(lang.f(T::HandResult, &[&r.hand]), 24.0, ACCENT),
        bold(
            lang.t(if verified {
                T::Verified
            } else {
                T::NotVerified
            }),
            16.0,
            if verified { ACCENT } else { WARN }
        ),
        iced::widget::Space::new().width(Length::Fill),
        // The review is offered only for a hand it can rebuild (`reviewable`).
        review_button(lang, end),
        next,
        // A friends' table watched is left from the top bar ("Stop watching").
        if st.watched && st.is_lan() {
            Element::from(iced::widget::Space::new())
        } else {
            action(lang.t(T::Stop), 16.0, Some(Message::Stop))
                .style(button::secondary)
                .into()
        },
    ]
    .spacing(16)
    .align_y(Alignment::Center);
    let mut col = column![].spacing(10);
    // At the session's end, the evening's story comes first.
    if st.over && !st.results.is_empty() {
        let story = mahjong_store::story(&st.results);
        let seat_names = [0, 1, 2, 3].map(|s| names.of(lang, s));
        col = col.push(super::story::view(lang, seat_names, &story));
    }
    match &r.outcome {
        Outcome::Win { settlement, result } => {
            for ws in &result.winners {
                col = col.push(
                    container(explain(
                        lang,
                        names,
                        settlement,
                        ws,
                        end.explanation.as_deref(),
                        Look {
                            faces: ctx.faces,
                            w,
                            turn: st.frame().reveal,
                        },
                    ))
                    .padding(10)
                    .width(Length::Fill)
                    .style(panel),
                );
            }
        }
        Outcome::Drawn => col = col.push(bold(lang.t(T::DrawnHand), 18.0, ON_FELT)),
        Outcome::Abandoned { leaver, .. } => {
            col = col.push(bold(
                lang.f(T::Abandoned, &[&names.of(lang, *leaver)]),
                18.0,
                WARN,
            ));
        }
    }
    if let Some(e) = &end.explanation {
        col = col.push(
            container(explanation_lines(
                lang,
                ctx.faces,
                seat_labels(lang, names, end.result.setup.as_ref().map(|s| s.dealer)),
                e,
            ))
            .padding(10)
            .width(Length::Fill)
            .style(panel),
        );
    }
    for p in &st.proven {
        let line = match (p.seat, &p.offence) {
            (Some(s), Some(o)) => lang.f(
                T::Cheated,
                &[&names.of(lang, s), &crate::i18n::offence(lang, o)],
            ),
            (Some(s), None) => lang.f(T::Cheated, &[&names.of(lang, s), &p.what]),
            (None, _) => lang.f(T::ProvenNone, &[&p.what]),
        };
        col = col.push(
            column![
                bold(lang.t(T::Evidence), 16.0, WARN),
                label(line, 14.0, WARN)
            ]
            .spacing(2),
        );
    }
    col = col.push(
        container(payments(lang, names, &r.payments, &r.session.balances))
            .padding(10)
            .width(Length::Fill)
            .style(panel),
    );
    // Every hand face up.
    let dealer = r.setup.as_ref().map_or(0, |s| s.dealer);
    let mut hands = column![bold(lang.t(T::FaceUp), 16.0, ACCENT)].spacing(4);
    for seat in 0..4u8 {
        let mut tiles: Vec<Tile> = end.hands[seat as usize].iter().map(|c| c.tile).collect();
        tiles.sort_by_key(|t| t.index());
        let mut line = row![
            label(
                format!("{} {}", lang.t(wind(seat, dealer)), names.of(lang, seat)),
                14.0,
                ON_FELT
            ),
            tile_row(
                &tiles,
                ctx.faces,
                end.view.as_ref().and_then(|v| v.wildcard),
                w * 0.8,
                None,
                None
            ),
        ]
        .spacing(8)
        .align_y(Alignment::Center);
        if let Some(v) = &end.view {
            for m in &v.seats[seat as usize].melds {
                if let Some(t) = m.tile {
                    line = line.push(tile_row(
                        &mahjong_rules::MeldShape {
                            kind: m.kind,
                            tile: t,
                        }
                        .tiles(),
                        ctx.faces,
                        v.wildcard,
                        w * 0.7,
                        None,
                        None,
                    ));
                }
            }
        }
        hands = hands.push(line);
    }
    col = col.push(
        container(hands)
            .padding(10)
            .width(Length::Fill)
            .style(panel),
    );
    column![
        container(header).padding([6, 12]),
        container(scrollable(col.padding(12)).height(Length::Fill)).padding(6),
    ]
    .into()
}
