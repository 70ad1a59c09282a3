//! The wall, the dice and the deal (docs/rules.en.md §2, §3, §5 `baida` indicator).
//!
//! The engine keeps the wall as one sequence of 144 positions in draw order: live draws take
//! position 0, 1, 2, … from the front; replacement draws (补花, 杠) take 143, 142, … from the
//! back. Position `2k` and `2k+1` are one stack; at the front the top tile is the even one,
//! at the back the top tile (drawn first) is the odd one.
//!
//! Where that sequence lies on the physical table is fixed by the dice: the sum S is counted
//! from the dealer (dealer = 1) through the seats in turn order to pick a seat's wall; S
//! stacks are counted from that wall's right-hand end and the wall is broken there. Live
//! draws go on clockwise from the break; the S counted stacks, and then the next seat's wall,
//! are the back of the sequence.
//!
//! **\[reading\]** `baida` indicator (004: "在两个骰子数之和指定的玩家的下家牌墙上… 取两个骰子
//! 中面上数较小的那个数"): in the wall of the seat after the broken wall's seat, counted
//! counter-clockwise from its end next to the break side, the smaller die's stack; its top
//! tile. In the draw sequence that is back stack S + min(d1, d2) (back stack 1 = the last
//! stack), so position `145 - 2 (S + m)`. It stays in the wall and is drawn in its turn.

use crate::tile::{TILE_COUNT, Tile};
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use serde::{Deserialize, Serialize};

/// Two dice, each 1–6 (checked on construction and when decoded).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "(u8, u8)", into = "(u8, u8)")]
pub struct Dice(u8, u8);

impl TryFrom<(u8, u8)> for Dice {
    type Error = BadDice;
    fn try_from((a, b): (u8, u8)) -> Result<Dice, BadDice> {
        Dice::new(a, b)
    }
}

impl From<Dice> for (u8, u8) {
    fn from(d: Dice) -> (u8, u8) {
        (d.0, d.1)
    }
}

/// The dice are out of range.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("dice must each be 1-6, got {0} and {1}")]
pub struct BadDice(pub u8, pub u8);

impl Dice {
    /// Two dice values, each 1–6.
    pub fn new(a: u8, b: u8) -> Result<Dice, BadDice> {
        if (1..=6).contains(&a) && (1..=6).contains(&b) {
            Ok(Dice(a, b))
        } else {
            Err(BadDice(a, b))
        }
    }

    /// The two values.
    pub const fn values(self) -> (u8, u8) {
        (self.0, self.1)
    }

    /// Their sum S.
    pub const fn sum(self) -> u8 {
        self.0 + self.1
    }

    /// 开宝: a double, or 1 and 4.
    pub const fn is_kaibao(self) -> bool {
        self.0 == self.1 || (self.0 == 1 && self.1 == 4) || (self.0 == 4 && self.1 == 1)
    }

    /// `classic` dice 荒番: (1,1) or (4,4) add 2; (1,4), (2,2), (3,3), (5,5), (6,6) add 1.
    pub const fn huangfan_bonus(self) -> u32 {
        match (self.0, self.1) {
            (1, 1) | (4, 4) => 2,
            (2, 2) | (3, 3) | (5, 5) | (6, 6) | (1, 4) | (4, 1) => 1,
            _ => 0,
        }
    }

    /// The seat whose wall is broken: S counted from the dealer (dealer = 1) in turn order.
    pub const fn wall_seat(self, dealer: u8) -> u8 {
        (dealer + self.sum() - 1) % 4
    }

    /// The `baida` indicator's position in the draw sequence (see the module header).
    pub const fn indicator_position(self) -> u8 {
        let m = if self.0 < self.1 { self.0 } else { self.1 };
        (145 - 2 * (self.sum() as u16 + m as u16)) as u8
    }
}

/// The number of tiles dealt: 13 to each seat and the dealer's 14th.
pub const DEALT: usize = 53;

/// Which seat gets the tile at position `pos` of the deal (0..53): 4-4-4 to each seat in turn
/// order from the dealer, then one each, then the dealer's 14th.
pub const fn deal_seat(dealer: u8, pos: usize) -> u8 {
    let offset = if pos < 48 {
        (pos / 4) % 4
    } else if pos < 52 {
        pos - 48
    } else {
        0
    };
    ((dealer as usize + offset) % 4) as u8
}

/// A full wall in draw order: the face at each of the 144 positions.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Wall(Vec<Tile>);

/// A wall that is not exactly the 144 tiles.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BadWall {
    /// Wrong length.
    #[error("a wall has 144 tiles, got {0}")]
    Length(usize),
    /// Wrong multiset.
    #[error("the wall holds {count} of {tile}, expected {expected}")]
    Count {
        /// The tile.
        tile: Tile,
        /// How many there are.
        count: usize,
        /// How many there should be.
        expected: u8,
    },
}

impl Wall {
    /// A wall from faces in draw order; must be exactly the 144 tiles.
    pub fn new(tiles: Vec<Tile>) -> Result<Wall, BadWall> {
        if tiles.len() != TILE_COUNT {
            return Err(BadWall::Length(tiles.len()));
        }
        let mut n = [0usize; crate::tile::KINDS];
        for t in &tiles {
            n[t.index()] += 1;
        }
        for t in Tile::all() {
            if n[t.index()] != t.copies() as usize {
                return Err(BadWall::Count {
                    tile: t,
                    count: n[t.index()],
                    expected: t.copies(),
                });
            }
        }
        Ok(Wall(tiles))
    }

    /// The wall from physical card numbers (0..144, see [`Tile::of_card`]) in draw order.
    pub fn from_cards(cards: &[u8]) -> Result<Wall, BadWall> {
        let tiles: Vec<Tile> = cards.iter().filter_map(|&c| Tile::of_card(c)).collect();
        if tiles.len() != cards.len() {
            return Err(BadWall::Length(tiles.len()));
        }
        Wall::new(tiles)
    }

    /// The 144 cards in the order of [`Tile::of_card`], unshuffled.
    pub fn sorted() -> Wall {
        Wall((0..TILE_COUNT as u8).filter_map(Tile::of_card).collect())
    }

    /// A wall shuffled from a 32-byte seed: our own Fisher–Yates over a ChaCha20 stream, so
    /// the same seed gives the same wall on every machine and every version (an index below
    /// `n` is drawn from `u32`s by rejection, without modulo bias).
    pub fn shuffled(seed: [u8; 32]) -> Wall {
        let mut rng = ChaCha20Rng::from_seed(seed);
        let mut cards: Vec<u8> = (0..TILE_COUNT as u8).collect();
        fisher_yates(&mut cards, &mut rng);
        Wall(cards.iter().filter_map(|&c| Tile::of_card(c)).collect())
    }

    /// The face at a position.
    pub fn get(&self, pos: usize) -> Option<Tile> {
        self.0.get(pos).copied()
    }

    /// All faces in draw order.
    pub fn tiles(&self) -> &[Tile] {
        &self.0
    }
}

/// An unbiased index in `0..n` from a stream of `u32` (rejection sampling).
pub fn uniform_below(rng: &mut impl RngCore, n: u32) -> u32 {
    debug_assert!(n > 0);
    let zone = u32::MAX - (u32::MAX % n) - 1;
    loop {
        let x = rng.next_u32();
        if x <= zone {
            return x % n;
        }
    }
}

/// Fisher–Yates from the last element down, indices by [`uniform_below`].
pub fn fisher_yates<T>(items: &mut [T], rng: &mut impl RngCore) {
    for i in (1..items.len()).rev() {
        let j = uniform_below(rng, i as u32 + 1) as usize;
        items.swap(i, j);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn deal_order() {
        let mut n = [0; 4];
        for p in 0..DEALT {
            n[deal_seat(2, p) as usize] += 1;
        }
        assert_eq!(n, [13, 13, 14, 13]);
        assert_eq!(deal_seat(2, 0), 2);
        assert_eq!(deal_seat(2, 4), 3);
        assert_eq!(deal_seat(2, 48), 2);
        assert_eq!(deal_seat(2, 51), 1);
        assert_eq!(deal_seat(2, 52), 2);
    }

    #[test]
    fn dice() {
        let d = Dice::new(2, 5).unwrap();
        assert_eq!(d.wall_seat(0), 2); // the opposite seat, as in 000's example
        assert!(!d.is_kaibao());
        assert!(Dice::new(1, 4).unwrap().is_kaibao());
        assert!(Dice::new(3, 3).unwrap().is_kaibao());
        assert_eq!(Dice::new(4, 4).unwrap().huangfan_bonus(), 2);
        assert!(Dice::new(0, 3).is_err());
        assert!(Dice::new(6, 7).is_err());
        // Decoding checks too.
        let bytes = postcard::to_allocvec(&(9u8, 1u8)).unwrap();
        assert!(postcard::from_bytes::<Dice>(&bytes).is_err());
        let ok = postcard::to_allocvec(&Dice::new(2, 5).unwrap()).unwrap();
        assert_eq!(
            postcard::from_bytes::<Dice>(&ok).unwrap(),
            Dice::new(2, 5).unwrap()
        );
        for a in 1..=6 {
            for b in 1..=6 {
                let p = Dice::new(a, b).unwrap().indicator_position() as usize;
                assert!((DEALT..TILE_COUNT).contains(&p));
            }
        }
    }

    #[test]
    fn shuffle_is_a_fixed_permutation() {
        let w = Wall::shuffled([7; 32]);
        assert!(Wall::new(w.tiles().to_vec()).is_ok());
        assert_eq!(w, Wall::shuffled([7; 32]));
        assert_ne!(w, Wall::shuffled([8; 32]));
        // Pinned: the first tiles of this seed must never change between versions.
        let first: String = crate::tile::format_tiles(&w.tiles()[..6]);
        assert_eq!(
            first, PINNED_SEED7_PREFIX,
            "the shuffle changed: walls of old logs would differ"
        );
    }

    const PINNED_SEED7_PREFIX: &str = "7m2p3s2m3p3z";
}
