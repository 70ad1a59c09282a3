//! Computer players for Shanghai mahjong (上海麻将), at four levels, for all three presets.
//!
//! A [`Bot`] chooses one of the legal actions the rules crate lists for its seat
//! ([`SeatView::legal`]) and says why ([`Decision::reason`], a typed [`Reason`] the desktop app
//! says in the player's language and the terminal in English through `Display`). Its only input is a [`SeatView`], what one seat may see (own tiles,
//! the table, the wall's size), so **a bot cannot read hidden information**: there is no API
//! that hands it a [`mahjong_rules::HandState`]. Two hands that differ only in tiles its seat
//! cannot see give it the same view, and so the same decision.
//!
//! Levels ([`Level`]):
//! - `random`: uniform over the legal actions — the arena's baseline.
//! - `beginner` (新手): a human beginner's habits — keeps pairs, chases a flush in its longest
//!   suit, pungs eagerly, no defence, a little noise ([`beginner`]).
//! - `basic`: nearest winning shape, no live-tile counting, no values, no defence
//!   ([`basic`]).
//! - `strong`: values every action by chance × points of the best target, and subtracts what
//!   a discard may cost against ready or dangerous seats, 承包 included ([`strong`],
//!   [`value`], [`defence`]).
//! - `master` (大师): `strong` looking one draw ahead on its best discards, with a chance
//!   model less hopeful about far hands, without the 承包 feeding cost, in `classic` weighing
//!   defence less, and in `baida` passing up a self-drawn win to play on for 跑百搭 or 杠开
//!   ([`master`]); it beats `strong` in duplicate in every preset (docs/bots.md has the
//!   figures). The review (复盘) and the hints use it.
//!
//! 换牌 (option `swap_five`): `basic` and `strong` put back their five weakest tiles when the
//! hand is far from ready, and keep it otherwise ([`swap`]); `random` picks among Pass and
//! every choice of five like any other action.
//!
//! Deterministic: a bot owns a ChaCha stream seeded from `seed`; the same seed and the same
//! sequence of views give the same decisions on every machine.
//!
//! ```
//! use mahjong_bot::{Bot, Level};
//! use mahjong_rules::{Dice, HandState, Money, Move, Options, Ruleset, Setup, Wall};
//! let setup = Setup {
//!     options: Options::preset(Ruleset::Qiaoma),
//!     stake: Money::coins(1),
//!     dealer: 0,
//!     dice: Dice::new(3, 5).unwrap(),
//!     huangfan: 0,
//! };
//! let mut state = HandState::new(setup, &Wall::shuffled([1; 32])).unwrap();
//! let mut bots: Vec<Bot> = (0..4).map(|s| Bot::new(Level::Strong, s)).collect();
//! while !state.is_over() {
//!     let seat = state.to_act()[0];
//!     let d = bots[seat as usize].decide(&state.view(seat));
//!     state.apply(&Move::new(seat, d.action)).unwrap();
//! }
//! ```

pub mod basic;
pub mod beginner;
pub mod defence;
pub mod master;
pub mod outlook;
pub mod reason;
pub mod seen;
pub mod shape;
pub mod strong;
pub mod swap;
pub mod value;

pub use outlook::{Outlook, outlook};
pub use reason::{
    ClaimKind, Defence, Guessed, Only, Plan, PlayOnBy, Progress, Reason, Threat, Wait,
};

use mahjong_rules::Action;
use mahjong_rules::view::{PublicPhase, SeatView};
use mahjong_rules::wall::uniform_below;
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;
use std::fmt;
use std::str::FromStr;

/// How well a bot plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Level {
    /// Uniform over the legal actions (a baseline for the arena, not a player).
    Random,
    /// 新手: plays like a human beginner — keeps pairs too long, chases a flush in its
    /// longest suit, claims pungs eagerly, never looks at danger ([`beginner`]).
    Beginner,
    /// A sensible, careful learner: nearest winning shape, no values, no defence.
    Basic,
    /// Values and defence.
    Strong,
    /// 大师: `strong` with a look-ahead of one draw and its own constants ([`master`]).
    Master,
}

impl Level {
    /// The name used on the command line, in files and in records.
    pub const fn name(self) -> &'static str {
        match self {
            Level::Random => "random",
            Level::Beginner => "beginner",
            Level::Basic => "basic",
            Level::Strong => "strong",
            Level::Master => "master",
        }
    }

    /// All levels, weakest first.
    pub const ALL: [Level; 5] = [
        Level::Random,
        Level::Beginner,
        Level::Basic,
        Level::Strong,
        Level::Master,
    ];

    /// The levels an app offers people to play against, weakest first (`random` is the
    /// arena's baseline, not an opponent anyone asks for; it is kept for old records).
    pub const OFFERED: [Level; 4] = [Level::Beginner, Level::Basic, Level::Strong, Level::Master];

    /// The level that gives hints and weighs a player's decisions in a review (复盘): the
    /// strongest (docs/bots.md).
    pub const ADVISER: Level = Level::Master;

    /// The level that plays a seat nobody asked for a level for: an empty seat at a LAN or
    /// internet table, a friend replaced after leaving, a player's own seat under `--bot` or
    /// `--autoplay`. The strongest, as the people at the table play against it.
    pub const BOTS: Level = Level::Master;

    /// The next offered level after this one, wrapping round (a button that cycles levels).
    pub fn next_offered(self) -> Level {
        let i = Level::OFFERED.iter().position(|&l| l == self);
        match i {
            Some(i) => Level::OFFERED[(i + 1) % Level::OFFERED.len()],
            None => Level::OFFERED[0],
        }
    }

    /// The level of a name ([`Level::name`]).
    pub fn from_name(name: &str) -> Option<Level> {
        Level::ALL.into_iter().find(|l| l.name() == name)
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not a level.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownLevel(pub String);

impl fmt::Display for UnknownLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = Level::ALL.iter().map(|l| l.name()).collect();
        write!(
            f,
            "unknown bot level \"{}\" (expected one of {})",
            self.0,
            names.join(", ")
        )
    }
}

impl std::error::Error for UnknownLevel {}

impl FromStr for Level {
    type Err = UnknownLevel;
    fn from_str(s: &str) -> Result<Level, UnknownLevel> {
        Level::from_name(s.trim()).ok_or_else(|| UnknownLevel(s.trim().to_string()))
    }
}

/// A chosen action and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    /// One of the view's legal actions (or `Pass` when the seat had nothing to do).
    pub action: Action,
    /// Why, as facts an app can say in its language (`Display`: the English, e.g. "going for
    /// 清一色 (qingyise) in dots (筒); 2 tiles from ready; discard 3m").
    pub reason: Reason,
}

/// A computer player.
pub struct Bot {
    level: Level,
    rng: ChaCha8Rng,
    analyzer: shape::Analyzer,
}

impl Bot {
    /// A bot of `level` whose random choices come from `seed`.
    pub fn new(level: Level, seed: u64) -> Bot {
        Bot {
            level,
            rng: ChaCha8Rng::seed_from_u64(seed),
            analyzer: shape::Analyzer::new(),
        }
    }

    /// Starts the bot's random stream again from `seed`, keeping what it has learnt about
    /// hand shapes (a cache of pure functions, so the decisions are those of
    /// `Bot::new(level, seed)`; only faster). Arenas use it to give every hand a bot seeded
    /// from the hand alone.
    pub fn reseed(&mut self, seed: u64) {
        self.rng = ChaCha8Rng::seed_from_u64(seed);
    }

    /// Its level.
    pub fn level(&self) -> Level {
        self.level
    }

    /// Chooses an action for the seat whose view this is. The action is one of
    /// `view.legal`; when that list is empty (the seat need not act) it is `Pass`, which the
    /// rules would refuse, and the reason says so.
    pub fn decide(&mut self, view: &SeatView) -> Decision {
        let legal = &view.legal;
        if legal.is_empty() {
            return Decision {
                action: Action::Pass,
                reason: Reason::NothingToDecide,
            };
        }
        if self.level == Level::Random {
            let i = uniform_below(&mut self.rng, legal.len() as u32) as usize;
            return Decision {
                action: legal[i].clone(),
                reason: Reason::Random,
            };
        }
        if let Some(w) = legal.iter().find(|a| matches!(a, Action::Win { .. })) {
            // `baida`: master may pass up a win to play on for a bigger one.
            if self.level == Level::Master
                && let Some(d) = master::play_on(&seen::Seen::new(view))
            {
                return d;
            }
            return Decision {
                action: w.clone(),
                reason: Reason::Win,
            };
        }
        if legal.len() == 1 {
            return Decision {
                action: legal[0].clone(),
                reason: Reason::Only(only_reason(&legal[0], view)),
            };
        }
        let seen = seen::Seen::new(view);
        if matches!(view.phase, PublicPhase::Swap { .. }) {
            return swap::decide(&mut self.analyzer, &seen, self.level);
        }
        let claims = matches!(view.phase, PublicPhase::Claims { .. });
        match (self.level, claims) {
            (Level::Beginner, false) => beginner::turn(&mut self.analyzer, &mut self.rng, &seen),
            (Level::Beginner, true) => beginner::claim(&mut self.analyzer, &seen),
            (Level::Basic, false) => basic::turn(&mut self.analyzer, &mut self.rng, &seen),
            (Level::Basic, true) => basic::claim(&mut self.analyzer, &seen),
            (Level::Master, false) => {
                strong::turn_with(&mut self.analyzer, &seen, master::tune(seen.ruleset()))
            }
            (Level::Master, true) => {
                strong::claim_with(&mut self.analyzer, &seen, master::tune(seen.ruleset()))
            }
            (_, false) => strong::turn(&mut self.analyzer, &seen),
            (_, true) => strong::claim(&mut self.analyzer, &seen),
        }
    }
}

fn only_reason(a: &Action, view: &SeatView) -> Only {
    match a {
        Action::Flower { .. } => Only::Flower,
        Action::Pass if matches!(view.phase, PublicPhase::Flowers { .. }) => Only::NoFlower,
        Action::Pass => Only::NothingToClaim,
        Action::Discard { .. } if view.seats[view.seat as usize].ready => Only::ReadyDrawn,
        Action::Discard { .. } => Only::Discard,
        _ => Only::Action,
    }
}
