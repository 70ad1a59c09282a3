//! Tiles drawn as vectors on a canvas: crisp at any size, all 42 faces and the back.
//!
//! Three face styles ([`Faces`]): the Chinese faces (一…九 over 萬, dots and bamboo sticks laid
//! out as on real tiles with 一條 as the bird 幺鸡, 東南西北, 中 發 and the framed 白, the eight
//! flowers with their numbers); the notation of the rules crate (`5m`, `1z`, `3f`) for players
//! who know only that; and high contrast, whose suits differ by shape as well as colour
//! (characters in a square frame, dots as solid discs, bamboo as solid bars, honours and
//! flowers in a double border), for colour-blind players. A wildcard (`baida`) gets a gold
//! corner in every style. Each tile caches its geometry and redraws only when its face,
//! style, mark, turn, offset or size changes.
//!
//! Everything on a face is a filled path, the characters included (drawn as their glyphs'
//! outlines): the software renderer clips a canvas's paths to the region it draws in but
//! prints its text unclipped, in a pass after every path. So a tile moving through a
//! [`crate::motion`] draws its whole face at every frame, inside the region it covers
//! ([`TileView::drawn_region`]), and never prints a character beside it.

use std::cell::Cell;
use std::hash::{Hash, Hasher};

use iced::widget::canvas::{self, Cache, Canvas, Frame, Geometry, Path, Stroke, Text};
use iced::{Color, Element, Length, Point, Rectangle, Renderer, Size, Theme, mouse};
use mahjong_rules::{Suit, Tile};
use serde::{Deserialize, Serialize};

/// How faces are drawn (kept in `settings.json` as `"chinese"`, `"notation"`, `"contrast"`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Faces {
    /// The Chinese faces.
    #[default]
    Chinese,
    /// The notation (`5m`).
    Notation,
    /// High contrast: each suit its own shape and colour, readable without colour.
    Contrast,
}

impl Faces {
    /// Every face set, in the order the settings offer them.
    pub const ALL: [Faces; 3] = [Faces::Chinese, Faces::Notation, Faces::Contrast];

    /// The next face set (the top bar's button steps through them).
    pub fn next(self) -> Faces {
        match self {
            Faces::Chinese => Faces::Notation,
            Faces::Notation => Faces::Contrast,
            Faces::Contrast => Faces::Chinese,
        }
    }
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
    /// The winning tile while the win's flourish runs: a wide gold halo.
    Shine,
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
    /// Drawn this many pixels off its place (an animation).
    pub offset: (i16, i16),
    /// The farthest its motion takes it from its place (pixels): where a slide starts, the
    /// top of a rise. Its drawing covers its whole way at every frame
    /// ([`TileView::drawn_region`]).
    pub reach: (i16, i16),
    /// Drawn this percent of its width, centred (a tile turning over); 100 is flat.
    pub width_pct: u8,
    /// Lying on its side, turned a quarter left (the claimed tile of a meld): its canvas is
    /// as wide as an upright tile is high.
    pub turned: bool,
    /// Sliding in from a point of the window (its top-left corner's start, in the window's
    /// logical pixels) with this many thousandths of the way still to go; the offset is
    /// found where the canvas is laid out ([`TileView::placed`]).
    pub slide: Option<((i16, i16), u16)>,
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
            reach: (0, 0),
            width_pct: 100,
            turned: false,
            slide: None,
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
            reach: (0, 0),
            width_pct: 100,
            turned: false,
            slide: None,
        }
    }

    /// With a highlight.
    pub fn mark(mut self, mark: Mark) -> TileView {
        self.mark = mark;
        self
    }

    /// Drawn `offset` pixels off its place, standing there ([`crate::motion`]).
    pub fn moved(self, offset: (i16, i16)) -> TileView {
        self.on_way(offset, offset)
    }

    /// Drawn `offset` pixels off its place, on a way that reaches `reach` at its farthest
    /// ([`crate::motion`]).
    pub fn on_way(mut self, offset: (i16, i16), reach: (i16, i16)) -> TileView {
        self.offset = offset;
        self.reach = reach;
        self
    }

    /// Drawn `pct` percent of its width, centred ([`crate::motion::turn`]).
    pub fn narrowed(mut self, pct: u8) -> TileView {
        self.width_pct = pct.clamp(1, 100);
        self
    }

    /// Sliding in from `start` (a point of the window: where its top-left corner starts),
    /// `left` of the way still to go ([`crate::motion::Motion::left`]).
    pub fn slid_from(mut self, start: (f32, f32), left: f32) -> TileView {
        let clamp = |v: f32| v.round().clamp(i16::MIN as f32, i16::MAX as f32) as i16;
        let left = (left.clamp(0.0, 1.0) * 1000.0).round() as u16;
        self.slide = (left > 0).then_some(((clamp(start.0), clamp(start.1)), left));
        self
    }

    /// As drawn at `place` (its canvas's top-left corner in the window): a tile sliding in from
    /// a point of the window gets the offset that puts it on its way.
    pub fn placed(mut self, place: Point) -> TileView {
        if let Some(((x, y), left)) = self.slide.take() {
            let start = (x as f32 - place.x, y as f32 - place.y);
            self.offset = crate::motion::towards(start, left as f32 / 1000.0);
            self.reach = crate::motion::towards(start, 1.0);
        }
        self
    }

    /// Lying on its side (`true`), as the claimed tile of a meld.
    pub fn turned(mut self, turned: bool) -> TileView {
        self.turned = turned;
        self
    }

    /// The size of its canvas for a tile `width` pixels wide upright: `width` × 4/3 of it,
    /// or the other way round when turned.
    pub fn canvas_size(&self, width: f32) -> Size {
        let high = (width * 4.0 / 3.0).round();
        if self.turned {
            Size::new(high, width)
        } else {
            Size::new(width, high)
        }
    }

    /// The region its drawing covers in a canvas of `size` (canvas coordinates): its place,
    /// where it is ([`TileView::offset`]) and its whole way out to [`TileView::reach`]. Its
    /// paths are clipped to this region, never nearer, so a moving tile is drawn whole; and
    /// as the region is the same at every frame of a motion, the renderer repaints all of its
    /// way at each frame (its damage tracking compares a frame with one a buffer or two
    /// older, and a region that followed the tile left copies of it along the way).
    ///
    /// The region has a margin of [`MARGIN`] pixels: a canvas lies at a fraction of a pixel,
    /// and the renderer rounds the edges of what it paints and of what it repaints
    /// differently, so a tile touching its region's edge left a line of itself behind when
    /// it moved on or went away.
    pub fn drawn_region(&self, size: Size) -> Rectangle {
        let at = |(dx, dy): (i16, i16)| Rectangle::new(Point::new(dx as f32, dy as f32), size);
        Rectangle::with_size(size)
            .union(&at(self.offset))
            .union(&at(self.reach))
            .expand(MARGIN)
    }

    /// A canvas of `width` pixels (height 4/3 of it; turned, the other way round).
    pub fn view<'a, M: 'a>(self, width: f32) -> Element<'a, M> {
        let size = self.canvas_size(width);
        Canvas::new(self)
            .width(Length::Fixed(size.width))
            .height(Length::Fixed(size.height))
            .into()
    }
}

/// The margin around a tile's region ([`TileView::drawn_region`]).
pub const MARGIN: f32 = 2.0;

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
        let tv = self.placed(bounds.position());
        let mut h = std::collections::hash_map::DefaultHasher::new();
        tv.hash(&mut h);
        bounds.width.to_bits().hash(&mut h);
        bounds.height.to_bits().hash(&mut h);
        let key = h.finish();
        if state.key.get() != key {
            state.cache.clear();
            state.key.set(key);
        }
        let size = bounds.size();
        vec![
            state
                .cache
                .draw_with_bounds(renderer, tv.drawn_region(size), |frame| {
                    let (dx, dy) = tv.offset;
                    frame.translate(iced::Vector::new(dx as f32, dy as f32));
                    // The tile is drawn upright in its own `upright` box; a turned one is
                    // turned a quarter left into its lying canvas.
                    let upright = if tv.turned {
                        frame.translate(iced::Vector::new(0.0, size.height));
                        frame.rotate(-std::f32::consts::FRAC_PI_2);
                        Size::new(size.height, size.width)
                    } else {
                        size
                    };
                    if tv.width_pct < 100 {
                        let cx = upright.width / 2.0;
                        frame.translate(iced::Vector::new(cx, 0.0));
                        frame.scale_nonuniform(iced::Vector::new(tv.width_pct as f32 / 100.0, 1.0));
                        frame.translate(iced::Vector::new(-cx, 0.0));
                    }
                    draw_tile(frame, &tv, upright);
                }),
        ]
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

fn rounded(s: Size, inset: f32) -> Path {
    let r = (s.width * 0.12).max(2.0);
    Path::rounded_rectangle(
        Point::new(inset, inset),
        Size::new(s.width - 2.0 * inset, s.height - 2.0 * inset),
        r.into(),
    )
}

fn draw_tile(frame: &mut Frame, tv: &TileView, s: Size) {
    let w = s.width;
    // The body, with a darker base for depth.
    let body = rounded(s, 0.5);
    let base = match (tv.tile, tv.faces) {
        (None, _) => BACK,
        (Some(_), Faces::Contrast) => Color::WHITE,
        (Some(_), _) => IVORY,
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
        Mark::Shine => Some((GOLD, (w * 0.12).max(3.0))),
        _ => None,
    };
    if tv.mark == Mark::Shine {
        frame.fill(&face, Color::from_rgba(1.0, 0.85, 0.3, 0.25));
    }
    frame.stroke(&body, Stroke::default().with_color(EDGE).with_width(1.0));
    // The face at every frame, moving or not (its characters are paths, clipped with it).
    if let Some(t) = tv.tile {
        let inner = Rectangle::new(
            Point::new(w * 0.1, w * 0.1),
            Size::new(w * 0.8, s.height - w * 0.26),
        );
        match tv.faces {
            Faces::Chinese => chinese(frame, t, inner),
            Faces::Notation => notation(frame, t, inner),
            Faces::Contrast => contrast(frame, t, inner),
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
            &rounded(s, width / 2.0),
            Stroke::default().with_color(color).with_width(width),
        );
    }
    if tv.mark == Mark::Dim {
        frame.fill(&body, Color::from_rgba(0.2, 0.2, 0.2, 0.35));
    }
}

/// Characters centred on `center`, drawn as their glyphs' outlines (filled paths, clipped
/// with the rest of the tile; see the module's header).
fn text(frame: &mut Frame, content: &str, center: Point, size: f32, color: Color, bold: bool) {
    Text {
        content: content.to_string(),
        position: center,
        size: size.into(),
        color,
        font: if bold { crate::FONT_BOLD } else { crate::FONT },
        align_x: iced::widget::text::Alignment::Center,
        align_y: iced::alignment::Vertical::Center,
        ..Text::default()
    }
    .draw_with(|path, color| frame.fill(&path, color));
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
        // 一條 is the bird (幺鸡), as on real tiles.
        Suit::Bamboo if n == 1 => bird(frame, r),
        Suit::Bamboo => {
            let (sw, sh) = match n {
                2..=4 => (0.14, 0.34),
                5 | 6 => (0.12, 0.25),
                _ => (0.1, 0.2),
            };
            let (sw, sh) = (sw * r.width, sh * r.height);
            for (i, (x, y)) in layout(n).iter().enumerate() {
                let c = Point::new(r.x + x * r.width, r.y + y * r.height);
                let red = (n == 5 && i == 4) || (n == 9 && i % 3 == 1) || (n == 7 && i == 0);
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

/// 幺鸡: the bird of 一條, facing right on a short perch — tail feathers fanned behind, a
/// green body with a red wing, a round head with a red crest, a gold beak and an eye.
fn bird(frame: &mut Frame, r: Rectangle) {
    let p = |x: f32, y: f32| Point::new(r.x + x * r.width, r.y + y * r.height);
    let leaf = |from: Point, to: Point, bulge: f32| {
        // A feather: two curves between its ends, bulging `bulge` of its length either side.
        let (dx, dy) = (to.x - from.x, to.y - from.y);
        let mid = Point::new((from.x + to.x) / 2.0, (from.y + to.y) / 2.0);
        let side = |k: f32| Point::new(mid.x - dy * k, mid.y + dx * k);
        Path::new(|b| {
            b.move_to(from);
            b.quadratic_curve_to(side(bulge), to);
            b.quadratic_curve_to(side(-bulge), from);
            b.close();
        })
    };
    // The tail, behind the body.
    let root = p(0.36, 0.62);
    for (tip, color) in [
        (p(0.04, 0.70), BLUE),
        (p(0.08, 0.90), GREEN),
        (p(0.24, 0.97), RED),
    ] {
        frame.fill(&leaf(root, tip, 0.22), color);
    }
    // The body.
    let body = Path::new(|b| {
        b.move_to(p(0.52, 0.36));
        b.bezier_curve_to(p(0.80, 0.42), p(0.80, 0.66), p(0.56, 0.74));
        b.bezier_curve_to(p(0.42, 0.78), p(0.28, 0.70), p(0.30, 0.60));
        b.bezier_curve_to(p(0.34, 0.50), p(0.44, 0.46), p(0.52, 0.36));
        b.close();
    });
    frame.fill(&body, GREEN);
    frame.fill(&leaf(p(0.40, 0.54), p(0.66, 0.63), 0.2), RED);
    // The legs and the perch.
    let ink = Stroke::default()
        .with_color(INK)
        .with_width((r.width * 0.05).max(1.0));
    for (top, foot) in [
        (p(0.48, 0.75), p(0.45, 0.87)),
        (p(0.57, 0.73), p(0.59, 0.87)),
    ] {
        frame.stroke(&Path::line(top, foot), ink);
    }
    frame.stroke(&Path::line(p(0.34, 0.88), p(0.72, 0.88)), ink);
    // The head: crest, beak, eye.
    let head = p(0.64, 0.30);
    let hr = r.width * 0.14;
    let crest = Path::new(|b| {
        b.move_to(p(0.56, 0.24));
        b.line_to(p(0.58, 0.11));
        b.line_to(p(0.64, 0.19));
        b.line_to(p(0.69, 0.09));
        b.line_to(p(0.72, 0.23));
        b.close();
    });
    frame.fill(&crest, RED);
    let beak = Path::new(|b| {
        b.move_to(Point::new(head.x + hr * 0.8, head.y - hr * 0.35));
        b.line_to(Point::new(head.x + hr * 2.0, head.y + hr * 0.1));
        b.line_to(Point::new(head.x + hr * 0.8, head.y + hr * 0.45));
        b.close();
    });
    frame.fill(&beak, GOLD);
    frame.fill(&Path::circle(head, hr), GREEN);
    let eye = Point::new(head.x + hr * 0.3, head.y - hr * 0.15);
    frame.fill(&Path::circle(eye, hr * 0.38), IVORY);
    frame.fill(&Path::circle(eye, hr * 0.2), INK);
}

/// High contrast: the face's number large at the top in its suit's colour, and under it the
/// suit's own shape — a square frame (characters), a solid disc (dots), solid bars (bamboo);
/// honours and flowers in a double border. The shapes tell the suits apart without colour,
/// the colours (blue, vermilion, bluish green from a colour-blind-safe palette) without
/// shape.
fn contrast(frame: &mut Frame, t: Tile, r: Rectangle) {
    let cx = r.center_x();
    let n = t.number() as usize;
    let color = contrast_color(t);
    let thick = (r.width * 0.1).max(1.5);
    let digit = |frame: &mut Frame| {
        text(
            frame,
            &n.to_string(),
            Point::new(cx, r.y + r.height * 0.27),
            r.width * 0.8,
            color,
            true,
        );
    };
    let low = Rectangle::new(
        Point::new(r.x + r.width * 0.2, r.y + r.height * 0.56),
        Size::new(r.width * 0.6, r.height * 0.4),
    );
    match t.suit() {
        Suit::Characters => {
            digit(frame);
            // A square frame.
            let side = low.width.min(low.height);
            let sq = Path::rectangle(
                Point::new(cx - side / 2.0, low.center_y() - side / 2.0),
                Size::new(side, side),
            );
            frame.stroke(&sq, Stroke::default().with_color(color).with_width(thick));
        }
        Suit::Dots => {
            digit(frame);
            let radius = low.width.min(low.height) / 2.0;
            frame.fill(&Path::circle(low.center(), radius), color);
        }
        Suit::Bamboo => {
            digit(frame);
            // Two solid upright bars.
            let bw = low.width * 0.28;
            for x in [low.x + low.width * 0.12, low.x + low.width * 0.6] {
                frame.fill(
                    &Path::rectangle(Point::new(x, low.y), Size::new(bw, low.height)),
                    color,
                );
            }
        }
        Suit::Honors | Suit::Flowers => {
            // A double border: a thick outer frame and a thin inner one.
            let outer = Path::rectangle(
                Point::new(r.x + thick / 2.0, r.y + thick / 2.0),
                Size::new(r.width - thick, r.height - thick),
            );
            frame.stroke(
                &outer,
                Stroke::default().with_color(color).with_width(thick),
            );
            let inner = Path::rectangle(
                Point::new(r.x + thick * 2.0, r.y + thick * 2.0),
                Size::new(r.width - thick * 4.0, r.height - thick * 4.0),
            );
            frame.stroke(
                &inner,
                Stroke::default()
                    .with_color(color)
                    .with_width((thick * 0.4).max(1.0)),
            );
            let glyph = if t.suit() == Suit::Flowers {
                FLOWERS[n - 1]
            } else {
                HONORS[n - 1]
            };
            if !glyph.is_empty() {
                text(
                    frame,
                    glyph,
                    Point::new(cx, r.center_y()),
                    r.width * 0.72,
                    color,
                    true,
                );
            }
            if t.suit() == Suit::Flowers {
                text(
                    frame,
                    &((n - 1) % 4 + 1).to_string(),
                    Point::new(r.x + r.width * 0.78, r.y + r.height * 0.82),
                    r.width * 0.3,
                    color,
                    true,
                );
            }
        }
    }
}

/// The colours of the high-contrast faces, dark enough on white for any eyes.
fn contrast_color(t: Tile) -> Color {
    match t.suit() {
        Suit::Characters => Color::from_rgb(0.72, 0.22, 0.0),
        Suit::Dots => Color::from_rgb(0.0, 0.3, 0.7),
        Suit::Bamboo => Color::from_rgb(0.0, 0.42, 0.3),
        Suit::Flowers => Color::from_rgb(0.5, 0.15, 0.55),
        Suit::Honors => match t.number() {
            6 => Color::from_rgb(0.0, 0.42, 0.3),
            7 => Color::from_rgb(0.72, 0.22, 0.0),
            _ => Color::BLACK,
        },
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
    match faces {
        Faces::Notation => t.to_string(),
        Faces::Chinese | Faces::Contrast => mahjong_rules::names::tile(t, lang),
    }
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
    fn the_face_sets_are_stepped_through_in_turn() {
        let mut f = Faces::Chinese;
        for want in [Faces::Notation, Faces::Contrast, Faces::Chinese] {
            f = f.next();
            assert_eq!(f, want);
        }
        assert_eq!(Faces::ALL.len(), 3);
        // The contrast faces name tiles as the Chinese ones do (only the notation is notation).
        let t: Tile = "7p".parse().expect("tile");
        for lang in [crate::i18n::Lang::Zh, crate::i18n::Lang::En] {
            assert_eq!(
                tile_text(t, Faces::Contrast, lang),
                tile_text(t, Faces::Chinese, lang)
            );
        }
    }

    #[test]
    fn the_contrast_suits_differ_in_colour_too() {
        let c = |s: &str| contrast_color(s.parse().expect("tile"));
        let suits = [c("5m"), c("5p"), c("5s"), c("1z"), c("1f")];
        for i in 0..suits.len() {
            for j in i + 1..suits.len() {
                assert_ne!(suits[i], suits[j]);
            }
        }
    }

    #[test]
    fn a_turned_tile_lies_in_a_wide_canvas_and_a_moving_one_draws_where_it_goes() {
        let t: Tile = "3s".parse().expect("tile");
        let up = TileView::face(t, Faces::Chinese, false);
        assert_eq!(up.canvas_size(30.0), Size::new(30.0, 40.0));
        assert_eq!(up.turned(true).canvas_size(30.0), Size::new(40.0, 30.0));
        let moving = up.moved((-50, 10));
        assert!(moving.tile.is_some());
        assert_eq!(
            moving.drawn_region(Size::new(30.0, 40.0)),
            Rectangle::new(Point::new(-50.0, 0.0), Size::new(80.0, 50.0)).expand(MARGIN)
        );
        assert!(TileView::back().tile.is_none());
    }

    #[test]
    fn tiles_fit_the_room_given() {
        assert_eq!(fit(700.0, 14, 20.0, 60.0), 50.0);
        assert_eq!(fit(100.0, 14, 20.0, 60.0), 20.0);
        assert_eq!(fit(7000.0, 14, 20.0, 60.0), 60.0);
    }
}
