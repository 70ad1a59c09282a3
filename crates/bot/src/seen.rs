//! What a bot knows: the facts it reads off its seat's [`SeatView`], and nothing else.
//!
//! Own concealed tiles as counts, own melds as shapes, and for every tile kind how many
//! copies the seat can see (its hand, all melds shown, all discards, flowers and the `baida`
//! indicator, docs/rules.en.md §1) and so how many are still *live* (unseen: in the wall or in other
//! hands). Every other module of the bot works from a [`Seen`].

use crate::shape::HandShape;
use mahjong_rules::hand::{MeldShape, MeldType};
use mahjong_rules::view::{PublicPhase, SeatView};
use mahjong_rules::{Action, Counts, Options, Ruleset, Seat, Tile, counts_of};

/// Facts read from one view.
pub struct Seen<'a> {
    /// The view itself.
    pub view: &'a SeatView,
    /// Own seat.
    pub me: Seat,
    /// The options.
    pub options: &'a Options,
    /// Own concealed tiles (wildcards included), flowers excluded.
    pub counts: Counts,
    /// Own melds.
    pub melds: Vec<MeldShape>,
    /// Copies of each play kind this seat cannot see.
    pub live: [u8; 34],
    /// Sum of `live`.
    pub unseen: u32,
    /// The `baida` wildcard kind.
    pub wildcard: Option<usize>,
}

impl<'a> Seen<'a> {
    /// Reads a view.
    pub fn new(view: &'a SeatView) -> Seen<'a> {
        let me = view.seat;
        let options = &view.options;
        let tiles: Vec<Tile> = view
            .hand
            .iter()
            .map(|c| c.tile)
            .filter(|t| !options.is_flower(*t))
            .collect();
        let counts = counts_of(&tiles);
        let melds = view.seats[me as usize]
            .melds
            .iter()
            .filter_map(|m| m.tile.map(|tile| MeldShape { kind: m.kind, tile }))
            .collect();
        let visible = view.visible_counts();
        let mut live = [0u8; 34];
        let mut unseen = 0;
        for (i, l) in live.iter_mut().enumerate() {
            let flower = Tile::from_index(i).is_some_and(|t| options.is_flower(t));
            if !flower {
                *l = 4u8.saturating_sub(visible[i]);
                unseen += *l as u32;
            }
        }
        let wildcard = view
            .wildcard
            .filter(|_| options.wildcard)
            .map(|t| t.index());
        Seen {
            view,
            me,
            options,
            counts,
            melds,
            live,
            unseen: unseen.max(1),
            wildcard,
        }
    }

    /// The ruleset.
    pub fn ruleset(&self) -> Ruleset {
        self.options.ruleset
    }

    /// A hand shape for analysis: wildcards split off, sets still needed from the melds.
    pub fn shape(&self, counts: &Counts, melds: usize) -> HandShape {
        let mut c = *counts;
        let mut jokers = 0;
        if let Some(w) = self.wildcard {
            jokers = c[w];
            c[w] = 0;
        }
        HandShape {
            counts: c,
            jokers,
            need: 4usize.saturating_sub(melds),
        }
    }

    /// Own draws left, roughly: a quarter of the wall.
    pub fn cycles_left(&self) -> f64 {
        self.view.wall_remaining as f64 / 4.0
    }

    /// Whether own seat has declared ready.
    pub fn ready(&self) -> bool {
        self.view.seats[self.me as usize].ready
    }

    /// Whether the tile just drawn is a replacement (after a flower or a kong), which a win
    /// on it makes 杠开. Every replacement is drawn from the back of the wall and everyone sees
    /// how many were (flowers set aside, kongs made), so the drawn tile's place tells: the wall
    /// holds places 53 to 143 after the deal, and the replacements so far came from the last
    /// of them. (The dealer's 14th tile may be a replacement drawn before other seats'.)
    pub fn drawn_is_replacement(&self) -> bool {
        let Some(card) = self.view.drawn else {
            return false;
        };
        let back: usize = self
            .view
            .seats
            .iter()
            .map(|s| s.flowers.len() + s.melds.iter().filter(|m| m.kind.is_kong()).count())
            .sum();
        usize::from(card.pos) + back >= mahjong_rules::tile::TILE_COUNT
    }

    /// Own flower tiles set aside.
    pub fn flower_tiles(&self) -> u32 {
        self.view.seats[self.me as usize].flowers.len() as u32
    }

    /// The seat whose discard is being answered, and the tile, in a claim window.
    pub fn claim_window(&self) -> Option<(Seat, Tile)> {
        match &self.view.phase {
            PublicPhase::Claims { from, card, .. } => Some((*from, card.tile)),
            _ => None,
        }
    }

    /// The hand after declaring a concealed kong of `tile`: the own tiles left and the melds
    /// with the kong.
    pub fn after_concealed_kong(&self, tile: Tile) -> (Counts, Vec<MeldShape>) {
        let mut c = self.counts;
        c[tile.index()] = c[tile.index()].saturating_sub(4);
        let mut melds = self.melds.clone();
        melds.push(MeldShape {
            kind: MeldType::ConcealedKong,
            tile,
        });
        (c, melds)
    }

    /// The hand after adding `tile` to its pung: the own tiles left and the melds with the
    /// pung made a kong.
    pub fn after_added_kong(&self, tile: Tile) -> (Counts, Vec<MeldShape>) {
        let mut c = self.counts;
        c[tile.index()] = c[tile.index()].saturating_sub(1);
        let mut melds = self.melds.clone();
        if let Some(m) = melds
            .iter_mut()
            .find(|m| m.kind == MeldType::Pung && m.tile == tile)
        {
            m.kind = MeldType::AddedKong;
        }
        (c, melds)
    }

    /// The hand after claiming `tile` with `claim` (a chow, pung or kong answer): the own
    /// tiles left, the melds with the new one, and the new meld. `None` for other actions.
    pub fn after_claim(
        &self,
        claim: &Action,
        tile: Tile,
    ) -> Option<(Counts, Vec<MeldShape>, MeldShape)> {
        let (cards, shape) = match claim {
            Action::Pung { cards } => (
                &cards[..],
                MeldShape {
                    kind: MeldType::Pung,
                    tile,
                },
            ),
            Action::Kong { cards } => (
                &cards[..],
                MeldShape {
                    kind: MeldType::ClaimedKong,
                    tile,
                },
            ),
            Action::Chow { cards } => {
                let low = cards
                    .iter()
                    .map(|c| c.tile)
                    .chain([tile])
                    .min()
                    .unwrap_or(tile);
                (
                    &cards[..],
                    MeldShape {
                        kind: MeldType::Chow,
                        tile: low,
                    },
                )
            }
            _ => return None,
        };
        let mut counts = self.counts;
        for c in cards {
            let i = c.tile.index();
            counts[i] = counts[i].saturating_sub(1);
        }
        let mut melds = self.melds.clone();
        melds.push(shape);
        Some((counts, melds, shape))
    }
}

/// The name of a suit for explanations.
pub fn suit_name(s: u8) -> &'static str {
    match s {
        0 => "characters (万)",
        1 => "dots (筒)",
        _ => "bamboo (条)",
    }
}
