//! Short animations of the table: a discard slides from the hand into its pond (the player's
//! from the tile's place in the hand, another seat's from its side of the table), a claimed
//! meld slides into its seat's melds, and a win gets a flourish: the winning hand turns face
//! up and rises, its winning tile shines and the banner swells ([`FLOURISH_MS`], under a
//! second). The slides last [`DURATION_MS`]. A motion only decorates what is shown: the
//! screen's state is already the new one when it starts, so input is taken at once and the
//! last frame is exactly the still picture. A moving tile shows its face at every frame (the
//! face is drawn as paths, clipped with the tile: [`crate::tiles`]). With "reduce motion" in
//! the settings nothing moves.
//!
//! Timing is a pure function of the start and the time now ([`Motion::left`]); the app
//! subscribes to the window's frames only while a motion runs ([`Motion::done`] ends it), so an
//! idle table costs no CPU.

use std::time::{Duration, Instant};

use mahjong_rules::Seat;

/// How long a slide lasts (a discard, a meld).
pub const DURATION_MS: u64 = 220;

/// How long a win's flourish lasts.
pub const FLOURISH_MS: u64 = 800;

/// What moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The newest discard of this seat slides into its pond.
    Discard(Seat),
    /// The newest meld of this seat slides into place.
    Claim(Seat),
    /// The win's flourish (the settlement): the winning hand turns face up and rises, its
    /// winning tile shines, the banner swells.
    Reveal,
}

impl Kind {
    /// How long a motion of this kind lasts.
    pub fn duration(self) -> Duration {
        Duration::from_millis(match self {
            Kind::Discard(_) | Kind::Claim(_) => DURATION_MS,
            Kind::Reveal => FLOURISH_MS,
        })
    }
}

/// A running motion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Motion {
    /// What moves.
    pub kind: Kind,
    /// When it started.
    pub started: Instant,
}

impl Motion {
    /// A motion of `kind` starting `now`.
    pub fn new(kind: Kind, now: Instant) -> Motion {
        Motion { kind, started: now }
    }

    /// The share of the way still to go at `now`: 1 at the start, 0 at the end and after,
    /// eased out (fast first, settling gently).
    pub fn left(&self, now: Instant) -> f32 {
        let t = now.saturating_duration_since(self.started).as_secs_f32()
            / self.kind.duration().as_secs_f32();
        let t = t.clamp(0.0, 1.0);
        (1.0 - t).powi(3)
    }

    /// The motion is over at `now`.
    pub fn done(&self, now: Instant) -> bool {
        now.saturating_duration_since(self.started) >= self.kind.duration()
    }

    /// What the frame at `now` shows.
    pub fn frame(&self, now: Instant) -> Frame {
        let left = self.left(now);
        if left <= 0.0 {
            return Frame::default();
        }
        match self.kind {
            Kind::Discard(s) => Frame {
                discard: Some((s, left)),
                ..Frame::default()
            },
            Kind::Claim(s) => Frame {
                meld: Some((s, left)),
                ..Frame::default()
            },
            Kind::Reveal => Frame {
                reveal: Some(left),
                ..Frame::default()
            },
        }
    }
}

/// One frame of the running motion, for the drawing (all `None`: the still picture).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Frame {
    /// The seat whose newest discard is still this share of the way off its place.
    pub discard: Option<(Seat, f32)>,
    /// The seat whose newest meld is still this share of the way off its place.
    pub meld: Option<(Seat, f32)>,
    /// The win's flourish has this share of its way still to go.
    pub reveal: Option<f32>,
}

/// The direction a seat's tiles come from, seen from `me` (x right, y down): the player's
/// from below, the right-hand seat's from the right, and so on.
pub fn from_seat(seat: Seat, me: Seat) -> (f32, f32) {
    match (seat + 4 - me) % 4 {
        0 => (0.0, 1.0),
        1 => (1.0, 0.0),
        2 => (0.0, -1.0),
        _ => (-1.0, 0.0),
    }
}

/// A tile's offset in pixels, `left` of the way off its place, coming from `dir`, for a tile
/// `w` wide: a meld comes one tile's height, a discard [`DISCARD_RUN`] of them.
pub fn offset(dir: (f32, f32), left: f32, w: f32) -> (i16, i16) {
    towards((dir.0 * w * 4.0 / 3.0, dir.1 * w * 4.0 / 3.0), left)
}

/// How many tile heights another seat's discard slides in from its side of the table.
pub const DISCARD_RUN: f32 = 3.0;

/// A tile's offset in pixels, `left` of the way from `start` (where it starts, relative to its
/// place) to its place.
pub fn towards(start: (f32, f32), left: f32) -> (i16, i16) {
    let l = left.clamp(0.0, 1.0);
    let px = |v: f32| (v * l).round().clamp(i16::MIN as f32, i16::MAX as f32) as i16;
    (px(start.0), px(start.1))
}

/// The flourish's turn: the winning hand turns face up in its first [`TURN_SHARE`], so this
/// is how far from turned it still is when the flourish has `left` to go.
pub fn reveal_turn(left: f32) -> f32 {
    let p = 1.0 - left.clamp(0.0, 1.0);
    1.0 - (p / TURN_SHARE).min(1.0)
}

/// The share of the flourish the turning takes.
pub const TURN_SHARE: f32 = 0.35;

/// How far (pixels, upwards) the winning hand has risen, `left` of the flourish to go, for
/// tiles `w` wide: up a third of a tile and back down.
pub fn rise(left: f32, w: f32) -> i16 {
    let p = 1.0 - left.clamp(0.0, 1.0);
    -((std::f32::consts::PI * p).sin() * w / 3.0).round() as i16
}

/// The size of the win's banner, `left` of the flourish to go: it swells by three tenths and
/// settles back at `size` (its line is high enough for the largest, so nothing moves and
/// nothing of it is drawn outside the line).
pub fn swell(left: f32, size: f32) -> f32 {
    let p = 1.0 - left.clamp(0.0, 1.0);
    size * (1.0 + 0.3 * (std::f32::consts::PI * p).sin())
}

/// A turning tile, `left` of the way from turned: whether its face shows yet, and its width
/// in percent (it narrows to an edge and widens again).
pub fn turn(left: f32) -> (bool, u8) {
    let p = 1.0 - left.clamp(0.0, 1.0);
    let width = (std::f32::consts::PI * p).cos().abs();
    (p >= 0.5, (width * 100.0).round().clamp(4.0, 100.0) as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_motion_runs_its_duration_eased_and_ends_on_the_still_picture() {
        let t0 = Instant::now();
        let m = Motion::new(Kind::Discard(2), t0);
        let at = |ms| t0 + Duration::from_millis(ms);
        assert_eq!(m.left(t0), 1.0);
        assert!(!m.done(t0));
        // Eased out: more than half the way is done at a quarter of the time.
        assert!(m.left(at(DURATION_MS / 4)) < 0.5);
        let mut last = 1.0;
        for ms in (0..=DURATION_MS).step_by(10) {
            let l = m.left(at(ms));
            assert!(l <= last, "never goes back");
            last = l;
        }
        assert_eq!(m.left(at(DURATION_MS)), 0.0);
        assert!(m.done(at(DURATION_MS)));
        assert_eq!(m.frame(at(DURATION_MS + 50)), Frame::default());
        assert!((150..=250).contains(&DURATION_MS));
        assert_eq!(
            m.frame(at(0)),
            Frame {
                discard: Some((2, 1.0)),
                ..Frame::default()
            }
        );
        // A clock read before the start (another thread's instant) is the start.
        assert_eq!(m.left(t0 - Duration::from_millis(5)), 1.0);
    }

    #[test]
    fn tiles_come_from_their_seat_and_turn_over_halfway() {
        assert_eq!(from_seat(0, 0), (0.0, 1.0));
        assert_eq!(from_seat(3, 2), (1.0, 0.0));
        assert_eq!(offset((0.0, 1.0), 1.0, 30.0), (0, 40));
        assert_eq!(offset((-1.0, 0.0), 0.5, 30.0), (-20, 0));
        assert_eq!(offset((1.0, 0.0), 0.0, 30.0), (0, 0));
        assert_eq!(turn(1.0), (false, 100));
        assert!(turn(0.5).0, "face up from halfway");
        assert!(turn(0.5).1 <= 5, "edge-on halfway");
        assert_eq!(turn(0.0), (true, 100));
    }

    #[test]
    fn a_win_flourishes_for_under_a_second_and_settles_still() {
        assert!(Kind::Reveal.duration() < Duration::from_secs(1));
        assert!(Kind::Reveal.duration() > Kind::Discard(0).duration());
        // It turns face up first, rises and comes back down, the banner swells and settles.
        assert_eq!(reveal_turn(1.0), 1.0);
        assert_eq!(reveal_turn(1.0 - TURN_SHARE), 0.0);
        assert_eq!(rise(1.0, 30.0), 0);
        assert_eq!(rise(0.5, 30.0), -10);
        assert_eq!(rise(0.0, 30.0), 0);
        assert_eq!(swell(0.0, 20.0), 20.0);
        assert!((swell(0.5, 20.0) - 26.0).abs() < 1e-4);
        // A slide towards its place from where it starts.
        assert_eq!(towards((-300.0, 120.0), 1.0), (-300, 120));
        assert_eq!(towards((-300.0, 120.0), 0.5), (-150, 60));
        assert_eq!(towards((-300.0, 120.0), 0.0), (0, 0));
    }
}
