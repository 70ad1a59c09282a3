//! Why a bot chose what it chose: a typed value ([`Reason`]) with the facts the choice rests
//! on (the tile, the hand aimed at, how far from ready, the waits and their live copies, the
//! defence that decided), so an app can say it in its own language and name tiles and seats
//! its own way. [`fmt::Display`] gives the English sentence for the terminal and logs.
//!
//! Seats are table seats (0–3); suits are 0 characters, 1 dots, 2 bamboo.

use std::fmt;

use mahjong_rules::{Seat, Tile, format_tiles};

use crate::seen::suit_name;
use crate::shape::{NO_WIN, Target};

/// A winning tile and its copies still live (not visible to the bot).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wait {
    /// The tile.
    pub tile: Tile,
    /// Copies the bot cannot see (in the wall or in other hands).
    pub live: u8,
}

/// How far a hand is from ready.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Progress {
    /// No winning hand can be made of it any more (its melds rule every target out).
    CannotWin,
    /// Ready: these tiles win (empty when the level does not count them).
    Ready(Vec<Wait>),
    /// This many tiles from ready (向听).
    Away(u32),
}

impl Progress {
    /// From a distance of the shape analysis and the waits of a ready hand.
    pub fn of(dist: i32, waits: Vec<Wait>) -> Progress {
        match dist {
            d if d >= NO_WIN => Progress::CannotWin,
            d if d <= 0 => Progress::Ready(waits),
            d => Progress::Away(d as u32),
        }
    }

    /// Tiles from ready: 0 when ready, `None` when it cannot win.
    pub fn distance(&self) -> Option<u32> {
        match self {
            Progress::CannotWin => None,
            Progress::Ready(_) => Some(0),
            Progress::Away(d) => Some(*d),
        }
    }

    /// The live winning tiles in all.
    pub fn live(&self) -> u32 {
        match self {
            Progress::Ready(w) => w.iter().map(|w| w.live as u32).sum(),
            _ => 0,
        }
    }
}

/// The plan behind a choice: the hand aimed at (when the level names one) and how far.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The winning hand aimed at.
    pub target: Option<Target>,
    /// How far the hand is from ready after the choice.
    pub progress: Progress,
}

/// What another seat may be building, as the bot guesses it from its melds and discards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Guessed {
    /// A flush in this suit.
    Flush(u8),
    /// All pungs.
    Pungs,
}

/// A seat that may win on the bot's discards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Threat {
    /// The seat.
    pub seat: Seat,
    /// It declared ready (敲); otherwise it only looks close to a win.
    pub declared: bool,
    /// The hand it likely builds.
    pub hand: Option<Guessed>,
}

/// Why defence chose the discard over `avoided`, a tile at least as good for the hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Defence {
    /// A seat could make a third claim on `avoided` and bind the bot (承包).
    Binding {
        /// The tile kept.
        avoided: Tile,
    },
    /// `avoided` may win for `threat`, and the chosen tile is safe against it.
    Safe {
        /// The tile kept.
        avoided: Tile,
        /// The seat it may win for.
        threat: Threat,
    },
    /// `avoided` is more dangerous (because of `threat`, when one seat stands out).
    Dangerous {
        /// The tile kept.
        avoided: Tile,
        /// The seat it may win for most.
        threat: Option<Threat>,
    },
}

/// Which meld a claim makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClaimKind {
    /// 吃.
    Chow,
    /// 碰.
    Pung,
    /// 杠 (of a discard).
    Kong,
}

/// Why the only legal action was played.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Only {
    /// Set a flower aside and draw a replacement.
    Flower,
    /// No flower left to set aside.
    NoFlower,
    /// Nothing to claim.
    NothingToClaim,
    /// Declared ready: the drawn tile goes.
    ReadyDrawn,
    /// The only discard.
    Discard,
    /// The only legal action.
    Action,
}

/// Why a bot chose its action.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reason {
    /// The seat need not act now (the decision is `Pass`, which the rules would refuse).
    NothingToDecide,
    /// The `random` level's choice.
    Random,
    /// A win is taken: passing would bar the tile (漏胡).
    Win,
    /// The only legal action.
    Only(Only),
    /// Nothing was worth weighing: the first legal action.
    Fallback,
    /// The `basic` level makes every kong it can.
    AnyKong,
    /// A discard, the plan after it, and (`strong`) the defence that decided it.
    Discard {
        /// The tile.
        tile: Tile,
        /// With a ready declaration (敲).
        ready: bool,
        /// The hand after it.
        plan: Plan,
        /// Defence chose it over a tile at least as good for the hand.
        defence: Option<Defence>,
    },
    /// A kong in the bot's turn: flowers and a replacement draw.
    Kong {
        /// The kong's tile.
        tile: Tile,
        /// Added to a pung (加杠); concealed otherwise.
        added: bool,
        /// The hand after it.
        plan: Plan,
    },
    /// A claim on a discard.
    Claim {
        /// The meld made.
        kind: ClaimKind,
        /// The claimed tile.
        tile: Tile,
        /// The discarder.
        from: Seat,
        /// The hand after it (and after the best discard that follows).
        plan: Plan,
    },
    /// Passing on a discard: the plan kept, or (`basic`) `None`, the tile does not help.
    Pass {
        /// The discarded tile.
        tile: Tile,
        /// The hand kept.
        plan: Option<Plan>,
    },
    /// `baida` (`master`): a self-drawn win passed up to play on for a bigger one
    /// ([`crate::master::play_on`]).
    PlayOn {
        /// The tile discarded to play on, or the kong's tile.
        tile: Tile,
        /// How the hand plays on.
        by: PlayOnBy,
        /// Points a paying seat would pay for the win passed up.
        now: u32,
        /// Points a paying seat would pay, on average, for the win played for.
        then: u32,
    },
    /// 换牌: the hand is kept.
    SwapKeep {
        /// How far it is from ready.
        progress: Progress,
    },
    /// 换牌: five tiles go back.
    SwapPutBack {
        /// How far the hand is from ready.
        progress: Progress,
        /// The five.
        tiles: Vec<Tile>,
    },
}

/// How a `baida` hand plays on past a win it passes up ([`Reason::PlayOn`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlayOnBy {
    /// The discard leaves a wildcard alone: any tile then wins, at ×2 (跑百搭).
    RunWild,
    /// The discard leaves a hand ready on fewer tiles for a bigger win.
    Bigger,
    /// A kong (`added` to a pung, or concealed): the hand wins on any tile, so the
    /// replacement draw wins, with 杠开.
    Kong {
        /// Added to a pung (加杠); concealed otherwise.
        added: bool,
    },
}

/// A hand's English name for the terminal.
pub fn target_name(t: Target) -> String {
    match t {
        Target::Qing(s) => format!("清一色 (qingyise) in {}", suit_name(s)),
        Target::Hun(s) => format!("混一色 (hunyise) in {}", suit_name(s)),
        Target::Pungs => "碰碰胡 (pengpenghu, all pungs)".to_string(),
        Target::FlushPungs(s) => format!("混碰/清碰 (hunpeng/qingpeng) in {}", suit_name(s)),
        Target::Honors => "风一色 (fengyise, all honors)".to_string(),
        Target::Standard => "a standard hand".to_string(),
    }
}

impl fmt::Display for Progress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Progress::CannotWin => f.write_str("this hand cannot win any more"),
            Progress::Ready(w) if w.is_empty() => f.write_str("ready"),
            Progress::Ready(w) => {
                let tiles: Vec<Tile> = w.iter().map(|w| w.tile).collect();
                write!(
                    f,
                    "ready on {} ({} live)",
                    format_tiles(&tiles),
                    self.live()
                )
            }
            Progress::Away(1) => f.write_str("1 tile from ready"),
            Progress::Away(d) => write!(f, "{d} tiles from ready"),
        }
    }
}

impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.target {
            Some(t) => write!(f, "going for {}; {}", target_name(t), self.progress),
            None => self.progress.fmt(f),
        }
    }
}

impl fmt::Display for Threat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = if self.declared {
            "declared ready"
        } else {
            "looks close to a win"
        };
        write!(f, "seat {} {what}", self.seat)?;
        match self.hand {
            Some(Guessed::Flush(s)) => write!(f, ", likely a flush in {}", suit_name(s)),
            Some(Guessed::Pungs) => f.write_str(", likely all pungs"),
            None => Ok(()),
        }
    }
}

impl Defence {
    /// The tile defence kept back.
    pub fn avoided(&self) -> Tile {
        match *self {
            Defence::Binding { avoided }
            | Defence::Safe { avoided, .. }
            | Defence::Dangerous { avoided, .. } => avoided,
        }
    }
}

impl fmt::Display for Defence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Defence::Binding { avoided } => write!(
                f,
                "keeping {avoided}: a seat could make a third claim on it and bind us (承包)"
            ),
            Defence::Safe { avoided, threat } => {
                write!(f, "playing safe: {avoided} may win for {threat}")
            }
            Defence::Dangerous {
                avoided,
                threat: Some(t),
            } => write!(f, "{avoided} is more dangerous: {t}"),
            Defence::Dangerous { avoided, .. } => write!(f, "{avoided} is more dangerous"),
        }
    }
}

impl ClaimKind {
    /// Its English verb.
    pub fn verb(self) -> &'static str {
        match self {
            ClaimKind::Chow => "chow",
            ClaimKind::Pung => "pung",
            ClaimKind::Kong => "kong",
        }
    }
}

impl fmt::Display for Only {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Only::Flower => "set the flower aside and draw a replacement",
            Only::NoFlower => "no flower left to set aside",
            Only::NothingToClaim => "nothing to claim",
            Only::ReadyDrawn => "declared ready: discard the drawn tile",
            Only::Discard => "the only discard",
            Only::Action => "the only legal action",
        })
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::NothingToDecide => f.write_str("nothing to decide: this seat need not act now"),
            Reason::Random => f.write_str("a random legal action"),
            Reason::Win => f.write_str("win: passing would bar this tile (漏胡)"),
            Reason::Only(o) => o.fmt(f),
            Reason::Fallback => f.write_str("nothing better to do"),
            Reason::AnyKong => f.write_str("a kong: more flowers and a replacement draw"),
            Reason::Discard {
                tile,
                ready,
                plan,
                defence,
            } => {
                if *ready {
                    write!(f, "declare ready (敲) discarding {tile}: {}", plan.progress)?;
                } else {
                    write!(f, "{plan}; discard {tile}")?;
                }
                if let Some(d) = defence {
                    let safe = matches!(d, Defence::Safe { .. });
                    write!(f, " — {d}")?;
                    if safe {
                        write!(f, "; {tile} is safer")?;
                    }
                }
                Ok(())
            }
            Reason::PlayOn {
                tile,
                by,
                now,
                then,
            } => match by {
                PlayOnBy::RunWild => write!(
                    f,
                    "pass up this win ({now} points a seat): discard {tile} and keep a wildcard \
                     alone, so any tile wins (跑百搭, double) — about {then} points a seat"
                ),
                PlayOnBy::Bigger => write!(
                    f,
                    "pass up this win ({now} points a seat): discard {tile} and wait for a bigger \
                     one — about {then} points a seat"
                ),
                PlayOnBy::Kong { .. } => write!(
                    f,
                    "kong {tile} before winning: any tile wins, so the replacement draw wins, \
                     and doubles as a win on a kong's draw (杠开) — about {then} points a seat \
                     instead of {now}"
                ),
            },
            Reason::Kong { tile, added, plan } => {
                if *added {
                    write!(
                        f,
                        "add {tile} to my pung: a flower and a replacement draw; {}",
                        plan.progress
                    )
                } else {
                    write!(
                        f,
                        "concealed kong of {tile}: flowers and a replacement draw; {}",
                        plan.progress
                    )
                }
            }
            Reason::Claim {
                kind,
                tile,
                from,
                plan,
            } => write!(f, "{} {tile} from seat {from}: {plan}", kind.verb()),
            Reason::Pass {
                tile,
                plan: Some(p),
            } => write!(f, "pass on {tile}: {p}"),
            Reason::Pass { tile, plan: None } => write!(f, "pass on {tile}: it does not help"),
            Reason::SwapKeep { progress } => {
                write!(f, "换牌 (swap): keep the hand ({progress} is close enough)")
            }
            Reason::SwapPutBack { progress, tiles } => write!(
                f,
                "换牌 (swap): {progress}; put back the five weakest, {}",
                format_tiles(tiles)
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> Tile {
        s.parse().expect("a tile")
    }

    #[test]
    fn the_english_names_every_fact() {
        let r = Reason::Discard {
            tile: t("1z"),
            ready: false,
            plan: Plan {
                target: Some(Target::Standard),
                progress: Progress::Away(1),
            },
            defence: Some(Defence::Safe {
                avoided: t("5p"),
                threat: Threat {
                    seat: 2,
                    declared: true,
                    hand: Some(Guessed::Flush(1)),
                },
            }),
        };
        assert_eq!(
            r.to_string(),
            "going for a standard hand; 1 tile from ready; discard 1z — playing safe: 5p may \
             win for seat 2 declared ready, likely a flush in dots (筒); 1z is safer"
        );
        let ready = Reason::Discard {
            tile: t("9s"),
            ready: true,
            plan: Plan {
                target: Some(Target::Qing(1)),
                progress: Progress::Ready(vec![
                    Wait {
                        tile: t("3p"),
                        live: 2,
                    },
                    Wait {
                        tile: t("6p"),
                        live: 3,
                    },
                ]),
            },
            defence: None,
        };
        assert_eq!(
            ready.to_string(),
            "declare ready (敲) discarding 9s: ready on 36p (5 live)"
        );
        assert_eq!(Progress::of(NO_WIN, vec![]), Progress::CannotWin);
        assert_eq!(Progress::of(-1, vec![]).distance(), Some(0));
        assert_eq!(Progress::of(3, vec![]).distance(), Some(3));
    }
}
