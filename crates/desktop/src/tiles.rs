//! Tiles drawn as vectors on a canvas: crisp at any size, all 42 faces and the back.
//!
//! Two face styles ([`Faces`]): the Chinese faces (一…九 over 萬, dots and bamboo sticks laid
//! out as on real tiles, 東南西北, 中 發 and the framed 白, the eight flowers with their
//! numbers) and the notation of the rules crate (`5m`, `1z`, `3f`) for players who know only
//! that. A wildcard (`baida`) gets a gold corner in both styles. Each tile caches its geometry
//! and redraws only when its face, style, mark or size changes.

use std::cell::Cell;
use std::hash::{Hash, Hasher};

use iced::widget::canvas::{self, Cache, Canvas, Frame, Geometry, Path, Stroke, Text};
use iced::{Color, Element, Length, Point, Rectangle, Renderer, Size, Theme, mouse};
use mahjong_rules::{Suit, Tile};
use serde::{Deserialize, Serialize};

/// How faces are drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Faces {
    /// The Chinese faces.
    #[default]
    Chinese,
    /// The notation (`5m`).
    Notation,
}

/// How a tile stands out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Mark {
    /// Plain.
    #[default]
    None,
    /// Selected in the hand (raised, outlined).
    Selected,
    /// The last discard, the winning tile or a tile to look at.
    Glow,
    /// Greyed (claimed away, or not the player's to play).
    Dim,
}

/// One tile to draw: a face, or the back when `tile` is `None`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TileView {
    /// The face (`None`: face down).
    pub tile: Option<Tile>,
    /// The style.
    pub faces: Faces,
    /// The table's wildcard.
    pub wild: bool,
    /// Highlight.
    pub mark: Mark,
    /// Drawn this many pixels off its place (an animation; clipped to its place).
    pub offset: (i16, i16),
    /// Drawn this percent of its width, centred (a tile turning over); 100 is flat.
    pub width_pct: u8,
}

impl TileView {
    /// A face-up tile.
    pub fn face(tile: Tile, faces: Faces, wild: bool) -> TileView {
        TileView {
            tile: Some(tile),
            faces,
            wild,
            mark: Mark::None,
            offset: (0, 0),
            width_pct: 100,
        }
    }

    /// A face-down tile.
    pub fn back() -> TileView {
        TileView {
            tile: None,
            faces: Faces::Chinese,
            wild: false,
            mark: Mark::None,
            offset: (0, 0),
            width_pct: 100,
        }
    }

    /// With a highlight.
    pub fn mark(mut self, mark: Mark) -> TileView {
        self.mark = mark;
        self
    }

    /// Drawn `offset` pixels off its place ([`crate::motion`]).
    pub fn moved(mut self, offset: (i16, i16)) -> TileView {
        self.offset = offset;
        self
    }

    /// Drawn `pct` percent of its width, centred ([`crate::motion::turn`]).
    pub fn narrowed(mut self, pct: u8) -> TileView {
        self.width_pct = pct.clamp(1, 100);
        self
    }

    /// A canvas of `width` pixels (height 4/3 of it).
    pub fn view<'a, M: 'a>(self, width: f32) -> Element<'a, M> {
        Canvas::new(self)
            .width(Length::Fixed(width))
            .height(Length::Fixed((width * 4.0 / 3.0).round()))
            .into()
    }
}

/// A tile's geometry cache and the key it was drawn for.
#[derive(Default)]
pub struct TileState {
    key: Cell<u64>,
    cache: Cache,
}

const IVORY: Color = Color::from_rgb(0.98, 0.96, 0.89);
const EDGE: Color = Color::from_rgb(0.55, 0.5, 0.42);
const INK: Color = Color::from_rgb(0.1, 0.12, 0.2);
const RED: Color = Color::from_rgb(0.78, 0.1, 0.12);
const GREEN: Color = Color::from_rgb(0.05, 0.5, 0.25);
const BLUE: Color = Color::from_rgb(0.1, 0.25, 0.6);
const GOLD: Color = Color::from_rgb(0.93, 0.7, 0.1);
const BACK: Color = Color::from_rgb(0.1, 0.45, 0.35);

impl<M> canvas::Program<M> for TileView {
    type State = TileState;

    fn draw(
        &self,
        state: &TileState,
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
        vec![state.cache.draw(renderer, bounds.size(), |frame| {
            // Clipped to its place: a moving tile slides in from the edge.
            let place = Rectangle::with_size(frame.size());
            frame.with_clip(place, |frame| {
                let (dx, dy) = self.offset;
                frame.translate(iced::Vector::new(dx as f32, dy as f32));
                if self.width_pct < 100 {
                    let cx = frame.width() / 2.0;
                    frame.translate(iced::Vector::new(cx, 0.0));
                    frame.scale_nonuniform(iced::Vector::new(self.width_pct as f32 / 100.0, 1.0));
                    frame.translate(iced::Vector::new(-cx, 0.0));
                }
                draw_tile(frame, self);
            })
        })]
    }

    fn mouse_interaction(
        &self,
        _state: &TileState,
        _bounds: Rectangle,
        _cursor: mouse::Cursor,
    ) -> mouse::Interaction {
        mouse::Interaction::default()
    }
}

fn rounded(frame: &Frame, inset: f32) -> Path {
    let s = frame.size();
    let r = (s.width * 0.12).max(2.0);
    Path::rounded_rectangle(
        Point::new(inset, inset),
        Size::new(s.width - 2.0 * inset, s.height - 2.0 * inset),
        r.into(),
    )
}

fn draw_tile(frame: &mut Frame, tv: &TileView) {
    let s = frame.size();
    let w = s.width;
    // The body, with a darker base for depth.
    let body = rounded(frame, 0.5);
    let base = match tv.tile {
        None => BACK,
        Some(_) => IVORY,
    };
    frame.fill(&body, Color::from_rgb(0.62, 0.58, 0.5));
    let face = Path::rounded_rectangle(
        Point::new(0.5, 0.5),
        Size::new(w - 1.0, s.height - 1.0 - (w * 0.06).max(1.5)),
        (w * 0.12).max(2.0).into(),
    );
    frame.fill(&face, base);
    let outline = match tv.mark {
        Mark::Selected => Some((GOLD, (w * 0.08).max(2.0))),
        Mark::Glow => Some((Color::from_rgb(0.95, 0.35, 0.2), (w * 0.07).max(2.0))),
        _ => None,
    };
    frame.stroke(&body, Stroke::default().with_color(EDGE).with_width(1.0));
    // A sliding tile shows its face once it lands: a canvas's text is not clipped by
    // `with_clip`, so the characters of a face half out of its place would be printed over
    // whatever lies beside it (a discard sliding in drew "七萬" on an opponent's row).
    let moving = tv.offset != (0, 0);
    if let Some(t) = tv.tile.filter(|_| !moving) {
        let inner = Rectangle::new(
            Point::new(w * 0.1, w * 0.1),
            Size::new(w * 0.8, s.height - w * 0.26),
        );
        match tv.faces {
            Faces::Chinese => chinese(frame, t, inner),
            Faces::Notation => notation(frame, t, inner),
        }
        if tv.wild {
            let c = Path::new(|b| {
                b.move_to(Point::new(w * 0.55, 0.5));
                b.line_to(Point::new(w - 0.5, 0.5));
                b.line_to(Point::new(w - 0.5, w * 0.45));
                b.close();
            });
            frame.fill(&c, GOLD);
        }
    } else {
        // The back: an inset panel.
        let p = Path::rounded_rectangle(
            Point::new(w * 0.14, w * 0.14),
            Size::new(w * 0.72, s.height - w * 0.36),
            (w * 0.08).into(),
        );
        frame.stroke(
            &p,
            Stroke::default()
                .with_color(Color::from_rgba(1.0, 1.0, 1.0, 0.35))
                .with_width((w * 0.04).max(1.0)),
        );
    }
    if let Some((color, width)) = outline {
        frame.stroke(
            &rounded(frame, width / 2.0),
            Stroke::default().with_color(color).with_width(width),
        );
    }
    if tv.mark == Mark::Dim {
        frame.fill(&body, Color::from_rgba(0.2, 0.2, 0.2, 0.35));
    }
}

fn text(frame: &mut Frame, content: &str, center: Point, size: f32, color: Color, bold: bool) {
    frame.fill_text(Text {
        content: content.to_string(),
        position: center,
        size: size.into(),
        color,
        font: if bold { crate::FONT_BOLD } else { crate::FONT },
        align_x: iced::widget::text::Alignment::Center,
        align_y: iced::alignment::Vertical::Center,
        ..Text::default()
    });
}

const NUMERALS: [&str; 9] = ["一", "二", "三", "四", "五", "六", "七", "八", "九"];
const HONORS: [&str; 7] = ["東", "南", "西", "北", "", "發", "中"];
const FLOWERS: [&str; 8] = ["春", "夏", "秋", "冬", "梅", "兰", "竹", "菊"];

fn chinese(frame: &mut Frame, t: Tile, r: Rectangle) {
    let cx = r.center_x();
    let n = t.number() as usize;
    match t.suit() {
        Suit::Characters => {
            let size = r.width * 0.62;
            text(
                frame,
                NUMERALS[n - 1],
                Point::new(cx, r.y + r.height * 0.27),
                size,
                INK,
                true,
            );
            text(
                frame,
                "萬",
                Point::new(cx, r.y + r.height * 0.72),
                size,
                RED,
                true,
            );
        }
        Suit::Dots => {
            let radius = match n {
                1 => 0.36,
                2..=4 => 0.2,
                5 | 6 => 0.17,
                _ => 0.14,
            } * r.width;
            for (i, (x, y)) in layout(n).iter().enumerate() {
                let c = Point::new(r.x + x * r.width, r.y + y * r.height);
                let color = dot_color(n, i);
                frame.fill(&Path::circle(c, radius), color);
                frame.fill(&Path::circle(c, radius * 0.55), IVORY);
                frame.fill(&Path::circle(c, radius * 0.3), color);
            }
        }
        Suit::Bamboo => {
            let (sw, sh) = match n {
                1 => (0.22, 0.7),
                2..=4 => (0.14, 0.34),
                5 | 6 => (0.12, 0.25),
                _ => (0.1, 0.2),
            };
            let (sw, sh) = (sw * r.width, sh * r.height);
            for (i, (x, y)) in layout(n).iter().enumerate() {
                let c = Point::new(r.x + x * r.width, r.y + y * r.height);
                let red =
                    n == 1 || (n == 5 && i == 4) || (n == 9 && i % 3 == 1) || (n == 7 && i == 0);
                let color = if red { RED } else { GREEN };
                let stick = Path::rounded_rectangle(
                    Point::new(c.x - sw / 2.0, c.y - sh / 2.0),
                    Size::new(sw, sh),
                    (sw * 0.45).into(),
                );
                frame.fill(&stick, color);
                let band = Path::rectangle(
                    Point::new(c.x - sw / 2.0, c.y - sh * 0.05),
                    Size::new(sw, sh * 0.1),
                );
                frame.fill(&band, IVORY);
            }
        }
        Suit::Honors => {
            if n == 5 {
                // 白: an empty blue frame.
                let f = Path::rectangle(
                    Point::new(r.x + r.width * 0.12, r.y + r.height * 0.15),
                    Size::new(r.width * 0.76, r.height * 0.7),
                );
                frame.stroke(
                    &f,
                    Stroke::default()
                        .with_color(BLUE)
                        .with_width((r.width * 0.07).max(1.5)),
                );
            } else {
                let color = match n {
                    6 => GREEN,
                    7 => RED,
                    _ => INK,
                };
                text(
                    frame,
                    HONORS[n - 1],
                    Point::new(cx, r.center_y()),
                    r.width * 0.95,
                    color,
                    true,
                );
            }
        }
        Suit::Flowers => {
            let color = if n <= 4 { GREEN } else { RED };
            text(
                frame,
                FLOWERS[n - 1],
                Point::new(cx, r.y + r.height * 0.58),
                r.width * 0.85,
                color,
                true,
            );
            let k = (n - 1) % 4 + 1;
            text(
                frame,
                &k.to_string(),
                Point::new(r.x + r.width * 0.18, r.y + r.height * 0.12),
                r.width * 0.32,
                BLUE,
                false,
            );
        }
    }
}

fn dot_color(n: usize, i: usize) -> Color {
    match n {
        1 => RED,
        2 | 4 | 8 => BLUE,
        3 | 9 => [BLUE, RED, GREEN][i / 3 % 3],
        5 => {
            if i == 4 {
                RED
            } else {
                BLUE
            }
        }
        6 => {
            if i < 2 {
                GREEN
            } else {
                RED
            }
        }
        _ => {
            if i < 3 {
                GREEN
            } else {
                RED
            }
        }
    }
}

/// Where the dots or sticks of a suited tile of `n` sit, in the face's unit square.
fn layout(n: usize) -> Vec<(f32, f32)> {
    let l = 0.27;
    let r = 0.73;
    match n {
        1 => vec![(0.5, 0.5)],
        2 => vec![(0.5, 0.26), (0.5, 0.74)],
        3 => vec![(0.24, 0.2), (0.5, 0.5), (0.76, 0.8)],
        4 => vec![(l, 0.27), (r, 0.27), (l, 0.73), (r, 0.73)],
        5 => vec![(l, 0.22), (r, 0.22), (l, 0.78), (r, 0.78), (0.5, 0.5)],
        6 => vec![
            (l, 0.18),
            (r, 0.18),
            (l, 0.5),
            (r, 0.5),
            (l, 0.82),
            (r, 0.82),
        ],
        7 => vec![
            (0.2, 0.13),
            (0.5, 0.25),
            (0.8, 0.37),
            (l, 0.62),
            (r, 0.62),
            (l, 0.87),
            (r, 0.87),
        ],
        8 => vec![
            (l, 0.13),
            (r, 0.13),
            (l, 0.38),
            (r, 0.38),
            (l, 0.62),
            (r, 0.62),
            (l, 0.87),
            (r, 0.87),
        ],
        _ => (0..9)
            .map(|i| (0.2 + 0.3 * (i % 3) as f32, 0.17 + 0.33 * (i / 3) as f32))
            .collect(),
    }
}

fn suit_color(s: Suit) -> Color {
    match s {
        Suit::Characters => RED,
        Suit::Dots => BLUE,
        Suit::Bamboo => GREEN,
        Suit::Honors => INK,
        Suit::Flowers => Color::from_rgb(0.6, 0.2, 0.55),
    }
}

fn notation(frame: &mut Frame, t: Tile, r: Rectangle) {
    let color = suit_color(t.suit());
    text(
        frame,
        &t.number().to_string(),
        Point::new(r.center_x(), r.y + r.height * 0.36),
        r.width * 0.95,
        color,
        true,
    );
    text(
        frame,
        &t.suit().letter().to_string(),
        Point::new(r.center_x(), r.y + r.height * 0.8),
        r.width * 0.6,
        color,
        false,
    );
}

/// The width of a tile that fits `count` tiles side by side in `width` pixels, within
/// `min..=max`.
pub fn fit(width: f32, count: usize, min: f32, max: f32) -> f32 {
    let w = width / count.max(1) as f32;
    w.clamp(min, max).floor()
}

/// A tile named in 中文 (`七筒`, `东风`, `春`) for the Chinese faces, `7p` for the notation
/// ([`mahjong_rules::names`], the one place tiles are named).
pub fn tile_name(t: Tile, faces: Faces) -> String {
    tile_text(t, faces, crate::i18n::Lang::Zh)
}

/// A tile named in a sentence of `lang`: the notation when the player chose notation faces,
/// else as players of the language say it, `七筒` / `7 Dot`, `红中` / `Red Dragon`
/// ([`mahjong_rules::names::tile`], shared with the settlement and the terminal), so that an
/// English sentence carries no Chinese.
pub fn tile_text(t: Tile, faces: Faces, lang: crate::i18n::Lang) -> String {
    if faces == Faces::Notation {
        return t.to_string();
    }
    mahjong_rules::names::tile(t, lang)
}

/// The tiles of a meld in a sentence: a chow as its run, `三四五筒`, `3-4-5 Dots`, a pung as
/// its tile, `七筒`, `7 Dots`, or in notation `345p` ([`mahjong_rules::names::group`]).
pub fn run_text(tiles: &[Tile], faces: Faces, lang: crate::i18n::Lang) -> String {
    if faces == Faces::Notation {
        return match tiles.first() {
            Some(&first) if tiles.iter().all(|&t| t == first) => first.to_string(),
            _ => mahjong_rules::format_tiles(tiles),
        };
    }
    mahjong_rules::names::group(tiles, lang)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chow_is_named_as_its_run() {
        let run = mahjong_rules::parse_tiles("345p").expect("tiles");
        assert_eq!(
            run_text(&run, Faces::Chinese, crate::i18n::Lang::Zh),
            "三四五筒"
        );
        assert_eq!(
            run_text(&run, Faces::Chinese, crate::i18n::Lang::En),
            "3-4-5 Dots"
        );
        assert_eq!(
            run_text(&run, Faces::Notation, crate::i18n::Lang::En),
            "345p"
        );
    }

    #[test]
    fn tiles_in_english_sentences_carry_no_chinese() {
        for i in 0..42u8 {
            let Some(t) = Tile::from_index(i as usize) else {
                continue;
            };
            let en = tile_text(t, Faces::Chinese, crate::i18n::Lang::En);
            assert!(en.is_ascii() && !en.is_empty(), "{t}: {en}");
            let zh = tile_text(t, Faces::Chinese, crate::i18n::Lang::Zh);
            assert!(!zh.is_ascii(), "{t}: {zh}");
            assert_eq!(
                tile_text(t, Faces::Notation, crate::i18n::Lang::Zh),
                t.to_string()
            );
        }
    }

    #[test]
    fn every_suited_layout_has_one_spot_per_pip_inside_the_face() {
        for n in 1..=9 {
            let l = layout(n);
            assert_eq!(l.len(), n);
            assert!(
                l.iter()
                    .all(|&(x, y)| (0.0..=1.0).contains(&x) && (0.0..=1.0).contains(&y))
            );
        }
    }

    #[test]
    fn tiles_fit_the_room_given() {
        assert_eq!(fit(700.0, 14, 20.0, 60.0), 50.0);
        assert_eq!(fit(100.0, 14, 20.0, 60.0), 20.0);
        assert_eq!(fit(7000.0, 14, 20.0, 60.0), 60.0);
    }
}
