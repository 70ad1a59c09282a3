//! Shape analysis for bots: how far a hand is from a winning hand of a chosen kind (向听,
//! shanten) and which tiles bring it closer (有效牌, acceptance). docs/rules.en.md §5 fixes which
//! hands win; this module only measures distance, the rules crate decides wins.
//!
//! A group of tiles (one suit, or the honors) is summarised by its [`Blocks`]: for "with or
//! without the pair" and for each number of complete sets `m`, the most partial sets (两面,
//! 嵌张, 边张 or a pair waiting to become a pung) the group can hold beside them. Groups combine
//! by a small max-plus product, and the distance of a hand needing `need` sets is
//! `2·need − 2·sets − partials − pair` (partials capped at `need − sets`), the usual formula.
//! Suit summaries are computed by an exhaustive split once per suit shape and remembered in
//! an [`Analyzer`], so the many look-ups of an acceptance count cost a hash probe each.
//!
//! Targets ([`Target`]) restrict the hand to some tile kinds (a flush keeps one suit, with or
//! without honors) or to some shapes (all pungs); tiles outside the target must be swapped
//! out, one draw each, which bounds the distance from below.

use mahjong_rules::Counts;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// The distance of a hand no target fits any more (its melds rule every winning hand out):
/// it cannot win.
pub const NO_WIN: i32 = 99;

/// `blocks[pair][sets]` = the most partial sets beside `sets` complete sets, with (`1`) or
/// without (`0`) the pair; `-1` where impossible.
pub type Blocks = [[i8; 5]; 2];

/// Nothing possible.
const NONE: Blocks = [[-1; 5]; 2];
/// The empty group: no set, no partial, no pair.
const UNIT: Blocks = [[0, -1, -1, -1, -1], [-1; 5]];

/// Per-kind summaries of pung-only groups (honors, or any kind when only pungs count), by
/// the number of copies held.
const KIND_BLOCKS: [Blocks; 5] = [
    UNIT,
    UNIT,
    // a pair: the hand's pair, or a partial set waiting for the third
    [[1, -1, -1, -1, -1], [0, -1, -1, -1, -1]],
    // three: a pung, or a pair, or a partial
    [[1, 0, -1, -1, -1], [0, -1, -1, -1, -1]],
    // four: a pung and a loose tile, or a pair, or a partial
    [[1, 0, -1, -1, -1], [0, -1, -1, -1, -1]],
];

/// The max-plus product of two group summaries: the best of every split of sets and pair.
pub fn combine(a: &Blocks, b: &Blocks) -> Blocks {
    let mut c = NONE;
    for pa in 0..2 {
        for ma in 0..5 {
            let ta = a[pa][ma];
            if ta < 0 {
                continue;
            }
            for pb in 0..2 - pa {
                for mb in 0..5 - ma {
                    let tb = b[pb][mb];
                    if tb < 0 {
                        continue;
                    }
                    let v = ta + tb;
                    if v > c[pa + pb][ma + mb] {
                        c[pa + pb][ma + mb] = v;
                    }
                }
            }
        }
    }
    c
}

/// The distance formula: draws needed to be one tile from a win (0 = ready, −1 = complete)
/// for a hand that still needs `need` sets and a pair.
pub fn distance(b: &Blocks, need: usize) -> i32 {
    let n = need as i32;
    let mut best = 2 * n + 1;
    for (p, row) in b.iter().enumerate() {
        for (m, &t) in row.iter().enumerate() {
            if t < 0 {
                continue;
            }
            let m = (m as i32).min(n);
            let t = (t as i32).min(n - m);
            best = best.min(2 * n - 2 * m - t - p as i32);
        }
    }
    best
}

/// A hasher for small integer keys (a multiply; the keys are already well spread).
#[derive(Default)]
pub struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x100000001b3);
        }
    }
    fn write_u32(&mut self, n: u32) {
        self.0 = (n as u64)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .rotate_left(29);
    }
}

type KeyMap = HashMap<u32, Blocks, BuildHasherDefault<KeyHasher>>;

/// Remembers suit summaries (a pure function of the suit's shape; caching changes no result).
#[derive(Default)]
pub struct Analyzer {
    suits: KeyMap,
    honors: KeyMap,
}

fn key9(d: &[u8]) -> u32 {
    d.iter().fold(0u32, |k, &n| k * 5 + n.min(4) as u32)
}

impl Analyzer {
    /// A new, empty analyzer.
    pub fn new() -> Analyzer {
        Analyzer::default()
    }

    /// The summary of one suit (nine counts), chows allowed.
    pub fn suit(&mut self, d: &[u8]) -> Blocks {
        let key = key9(d);
        if let Some(b) = self.suits.get(&key) {
            return *b;
        }
        let mut digits = [0u8; 9];
        for (x, &n) in digits.iter_mut().zip(d) {
            *x = n.min(4);
        }
        let out = suit_blocks(&digits);
        if self.suits.len() > 1 << 20 {
            self.suits.clear();
        }
        self.suits.insert(key, out);
        out
    }

    /// The summary of a pung-only group (honors: seven counts).
    pub fn honors(&mut self, d: &[u8]) -> Blocks {
        let key = key9(d);
        if let Some(b) = self.honors.get(&key) {
            return *b;
        }
        let out = pung_blocks(d);
        self.honors.insert(key, out);
        out
    }
}

/// The summary of kinds that only make pungs and pairs.
pub fn pung_blocks(d: &[u8]) -> Blocks {
    let mut b = UNIT;
    for &n in d {
        if n >= 2 {
            b = combine(&b, &KIND_BLOCKS[n.min(4) as usize]);
        }
    }
    b
}

/// The summary of one suit: every split into sets, partials, the pair and loose tiles, by
/// dynamic programming over the numbers 1–9. Arriving at number `i`, only the counts of `i`
/// and `i + 1` can have been used by groups that started lower, so `(i, left at i, left at
/// i + 1)` is the whole state (9 × 5 × 5 of them).
pub fn suit_blocks(d: &[u8; 9]) -> Blocks {
    let mut memo = [[[None; 5]; 5]; 10];
    suit_from(
        d,
        0,
        d[0].min(4),
        d.get(1).copied().unwrap_or(0).min(4),
        &mut memo,
    )
}

fn suit_from(
    d: &[u8; 9],
    i: usize,
    a: u8,
    b: u8,
    memo: &mut [[[Option<Blocks>; 5]; 5]; 10],
) -> Blocks {
    if i >= 9 {
        return UNIT;
    }
    if let Some(r) = memo[i][a as usize][b as usize] {
        return r;
    }
    let c = if i + 2 < 9 { d[i + 2].min(4) } else { 0 };
    let mut out = NONE;
    for pung in 0..=a / 3 {
        let a1 = a - 3 * pung;
        for chow in 0..=a1.min(b).min(c) {
            let a2 = a1 - chow;
            for two in 0..=a2.min(b - chow) {
                let a3 = a2 - two;
                for gap in 0..=a3.min(c - chow) {
                    let rest = a3 - gap;
                    let next = suit_from(d, i + 1, b - chow - two, c - chow - gap, memo);
                    let m = (pung + chow) as usize;
                    for eye in 0..=(rest / 2).min(1) {
                        let pairs = (rest - 2 * eye) / 2;
                        // Every split of the pairs left: each a partial or broken up.
                        let t = (two + gap + pairs) as i8;
                        for (p2, row) in next.iter().enumerate() {
                            let p = p2 + eye as usize;
                            if p > 1 {
                                continue;
                            }
                            for (m2, &t2) in row.iter().enumerate() {
                                if t2 < 0 || m + m2 > 4 {
                                    continue;
                                }
                                let v = (t + t2).min(8);
                                if v > out[p][m + m2] {
                                    out[p][m + m2] = v;
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    memo[i][a as usize][b as usize] = Some(out);
    out
}

/// Every split of a suit into sets, partials, the pair and loose tiles (exhaustive; the
/// reference the dynamic programme is tested against).
#[cfg(test)]
fn split_suit(d: &mut [u8; 9], from: usize, m: i8, t: i8, p: usize, out: &mut Blocks) {
    let mut i = from;
    while i < 9 && d[i] == 0 {
        i += 1;
    }
    if i == 9 {
        let mm = (m as usize).min(4);
        let t = t.min(8);
        if out[p][mm] < t {
            out[p][mm] = t;
        }
        return;
    }
    if d[i] >= 3 {
        d[i] -= 3;
        split_suit(d, i, m + 1, t, p, out);
        d[i] += 3;
    }
    if i + 2 < 9 && d[i + 1] > 0 && d[i + 2] > 0 {
        d[i] -= 1;
        d[i + 1] -= 1;
        d[i + 2] -= 1;
        split_suit(d, i, m + 1, t, p, out);
        d[i] += 1;
        d[i + 1] += 1;
        d[i + 2] += 1;
    }
    if d[i] >= 2 {
        d[i] -= 2;
        if p == 0 {
            split_suit(d, i, m, t, 1, out);
        }
        split_suit(d, i, m, t + 1, p, out);
        d[i] += 2;
    }
    // A partial chow with the next tile or the one after it.
    for k in [i + 1, i + 2] {
        if k < 9 && d[k] > 0 {
            d[i] -= 1;
            d[k] -= 1;
            split_suit(d, i, m, t + 1, p, out);
            d[i] += 1;
            d[k] += 1;
        }
    }
    d[i] -= 1;
    split_suit(d, i, m, t, p, out);
    d[i] += 1;
}

/// What a hand aims at (docs/rules.en.md §5 winning hands, as shapes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// 清一色: one suit only (0 characters, 1 dots, 2 bamboo), chows allowed.
    Qing(u8),
    /// 混一色: one suit and honors, chows allowed.
    Hun(u8),
    /// 碰碰胡: all pungs, any tiles.
    Pungs,
    /// 混碰 / 清碰: all pungs in one suit and honors.
    FlushPungs(u8),
    /// 风一色: all honors, any arrangement.
    Honors,
    /// Any standard hand (`baida`), wildcards filling gaps.
    Standard,
}

/// The kinds (bit per index) of one suit.
pub const fn suit_mask(s: u8) -> u64 {
    0x1ff << (9 * s as u64)
}
/// The honor kinds.
pub const HONOR_MASK: u64 = 0x7f << 27;
/// Every play kind.
pub const ALL_MASK: u64 = (1 << 34) - 1;

impl Target {
    /// The kinds the finished hand may hold.
    pub fn mask(self) -> u64 {
        match self {
            Target::Qing(s) => suit_mask(s),
            Target::Hun(s) | Target::FlushPungs(s) => suit_mask(s) | HONOR_MASK,
            Target::Pungs | Target::Standard => ALL_MASK,
            Target::Honors => HONOR_MASK,
        }
    }

    /// Whether chows fit.
    pub fn allows_chows(self) -> bool {
        matches!(self, Target::Qing(_) | Target::Hun(_) | Target::Standard)
    }

    /// The targets of the restricted rules (`qiaoma`, `classic`).
    pub fn restricted() -> [Target; 11] {
        [
            Target::Qing(0),
            Target::Qing(1),
            Target::Qing(2),
            Target::Hun(0),
            Target::Hun(1),
            Target::Hun(2),
            Target::Pungs,
            Target::FlushPungs(0),
            Target::FlushPungs(1),
            Target::FlushPungs(2),
            Target::Honors,
        ]
    }
}

/// A hand being measured: concealed counts (wildcards removed), the wildcards held, and the
/// number of sets still needed (4 − melds).
#[derive(Clone, Copy, Debug)]
pub struct HandShape {
    /// Concealed counts, wildcards excluded.
    pub counts: Counts,
    /// Wildcards held (`baida`).
    pub jokers: u8,
    /// Sets still needed.
    pub need: usize,
}

impl HandShape {
    /// Concealed tiles, wildcards included.
    pub fn size(&self) -> usize {
        self.counts.iter().map(|&n| n as usize).sum::<usize>() + self.jokers as usize
    }

    /// Tiles a hand of this size may hold outside its target: 0 one short of a win, 1 with
    /// the winning tile in.
    fn spare(&self) -> i32 {
        self.size() as i32 - (3 * self.need as i32 + 1)
    }
}

impl Analyzer {
    /// The distance of `hand` to `target` (0 = ready, −1 = complete, as a shape).
    pub fn distance(&mut self, hand: &HandShape, target: Target) -> i32 {
        let c = &hand.counts;
        let mask = target.mask();
        let inside: i32 = (0..34)
            .filter(|&i| mask >> i & 1 == 1)
            .map(|i| c[i] as i32)
            .sum();
        let offs = hand.size() as i32 - hand.jokers as i32 - inside;
        let floor = offs - hand.spare();
        let formula = match target {
            Target::Qing(s) => {
                let s = s as usize;
                distance(&self.suit(&c[9 * s..9 * s + 9]), hand.need)
            }
            Target::Hun(s) => {
                let s = s as usize;
                let b = combine(&self.suit(&c[9 * s..9 * s + 9]), &self.honors(&c[27..34]));
                distance(&b, hand.need)
            }
            Target::Pungs => pung_distance(c.iter().copied(), hand.need),
            Target::FlushPungs(s) => {
                let s = s as usize;
                pung_distance(
                    c[9 * s..9 * s + 9].iter().chain(&c[27..34]).copied(),
                    hand.need,
                )
            }
            Target::Honors => floor,
            Target::Standard => {
                let b = self.all_blocks(c);
                let low = if hand.spare() >= 1 { -1 } else { 0 };
                return (distance(&b, hand.need) - hand.jokers as i32).max(low);
            }
        };
        formula.max(floor)
    }

    /// The blocks of a whole hand: the three suits and the honors combined.
    fn all_blocks(&mut self, c: &Counts) -> Blocks {
        let mut b = self.suit(&c[0..9]);
        b = combine(&b, &self.suit(&c[9..18]));
        b = combine(&b, &self.suit(&c[18..27]));
        combine(&b, &self.honors(&c[27..34]))
    }

    /// `baida`: the distance of `hand` to a hand of sets only and one wildcard alone, which
    /// wins on any tile (跑百搭; 0 = there, on the scale of [`Analyzer::distance`]); `None`
    /// without a wildcard.
    pub fn run_distance(&mut self, hand: &HandShape) -> Option<i32> {
        if hand.jokers == 0 {
            return None;
        }
        let mut b = self.all_blocks(&hand.counts);
        // No pair: the wildcard left alone takes its place.
        b[1] = [-1; 5];
        Some((distance(&b, hand.need) - (hand.jokers as i32 - 1)).max(0))
    }

    /// Acceptance of a hand one tile short (size 3·need+1): the live tiles (by `live` count
    /// per kind) that bring it closer to `target`, with the distance it is at now.
    pub fn acceptance(
        &mut self,
        hand: &HandShape,
        target: Target,
        live: &[u8; 34],
        wildcard: Option<usize>,
    ) -> (i32, u32) {
        let a = self.acceptance_split(hand, target, live, wildcard);
        (a.dist, a.all)
    }

    /// Acceptance split by how the useful tiles can come: any draw, a pung of another seat's
    /// discard (a pair is held), or a chow of the left seat's discard (two neighbours held).
    pub fn acceptance_split(
        &mut self,
        hand: &HandShape,
        target: Target,
        live: &[u8; 34],
        wildcard: Option<usize>,
    ) -> Acceptance {
        let now = self.distance(hand, target);
        let mut out = Acceptance {
            dist: now,
            all: 0,
            pung: 0,
            chow: 0,
        };
        let mut h = *hand;
        let mask = target.mask();
        let c = &hand.counts;
        for i in 0..34 {
            if mask >> i & 1 == 0 || live[i] == 0 || Some(i) == wildcard {
                continue;
            }
            h.counts[i] += 1;
            let better = self.distance(&h, target) < now;
            h.counts[i] -= 1;
            if !better {
                continue;
            }
            let l = live[i] as u32;
            out.all += l;
            if c[i] >= 2 {
                out.pung += l;
            } else if i < 27 && target.allows_chows() {
                let n = i % 9;
                let has = |d: isize| -> bool {
                    let m = n as isize + d;
                    (0..9).contains(&m) && c[(i as isize + d) as usize] > 0
                };
                if (has(-2) && has(-1)) || (has(-1) && has(1)) || (has(1) && has(2)) {
                    out.chow += l;
                }
            }
        }
        if let Some(w) = wildcard {
            // A drawn wildcard always helps while the hand is not ready.
            if now > 0 || target == Target::Standard {
                out.all += live[w] as u32;
            }
        }
        out
    }
}

/// Useful live tiles of a hand one tile short, and how they can come.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Acceptance {
    /// The distance now (0 = ready).
    pub dist: i32,
    /// Live useful tiles.
    pub all: u32,
    /// Of them, tiles a pung of a discard can take (a pair is held).
    pub pung: u32,
    /// Of them, tiles a chow of the left seat's discard can take.
    pub chow: u32,
}

/// Distance for pung-only hands over the given kinds.
fn pung_distance(kinds: impl Iterator<Item = u8>, need: usize) -> i32 {
    let (mut pungs, mut pairs) = (0i32, 0i32);
    for n in kinds {
        match n {
            0 | 1 => {}
            2 => pairs += 1,
            _ => pungs += 1,
        }
    }
    let n = need as i32;
    let m = pungs.min(n);
    let (eye, partial) = if pairs > 0 {
        (1, (pairs - 1).min(n - m))
    } else {
        (0, 0)
    };
    2 * n - 2 * m - partial - eye
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use mahjong_rules::{counts_of, parse_tiles};
    use proptest::{prop_assert, prop_assume};

    fn hand(s: &str, need: usize) -> HandShape {
        HandShape {
            counts: counts_of(&parse_tiles(s).unwrap()),
            jokers: 0,
            need,
        }
    }

    /// `baida`: how far a hand with wildcards is from sets only and one wildcard alone.
    #[test]
    fn run_distances() {
        let mut a = Analyzer::new();
        let wild = |s: &str, jokers: u8| HandShape {
            jokers,
            ..hand(s, 4)
        };
        // Four sets and a wildcard: there.
        assert_eq!(a.run_distance(&wild("123m456p789s111z", 1)), Some(0));
        // Ready with the wildcard beside 5s, one step from leaving it alone.
        let ready = wild("123m456p789s11z5s", 1);
        assert_eq!(a.distance(&ready, Target::Standard), 0);
        assert_eq!(a.run_distance(&ready), Some(1));
        // A second wildcard completes a set: there.
        assert_eq!(a.run_distance(&wild("123m456p789s11z", 2)), Some(0));
        // No wildcard, no road to it.
        assert_eq!(a.run_distance(&hand("123m456p789s111z1s", 4)), None);
    }

    proptest::proptest! {
        /// `baida`: a hand short of ready leaves its wildcard alone one or two steps after it
        /// is ready, never further (`master::RUN_STEP` counts those two).
        #[test]
        fn a_wildcard_alone_is_one_or_two_steps_beyond_ready(
            kinds in proptest::collection::vec(0usize..34, 10..=12),
            need in 1usize..=4,
        ) {
            let mut counts = [0u8; 34];
            for k in kinds {
                if counts[k] < 4 {
                    counts[k] += 1;
                }
            }
            let size: usize = counts.iter().map(|&n| n as usize).sum();
            // 13 tiles with the wildcards, sets still needed as the melds leave them.
            let total = 3 * need + 1;
            prop_assume!(size < total && total - size <= 3);
            let shape = HandShape {
                counts,
                jokers: (total - size) as u8,
                need,
            };
            let mut a = Analyzer::new();
            let d = a.distance(&shape, Target::Standard);
            let r = a.run_distance(&shape).unwrap();
            prop_assert!((d + 1..=d + 2).contains(&r), "{d} to ready, {r} to a wildcard alone");
        }
    }

    #[test]
    fn standard_distances() {
        let mut a = Analyzer::new();
        assert_eq!(a.distance(&hand("11123455678999p", 4), Target::Qing(1)), -1);
        assert_eq!(a.distance(&hand("1112345678999p", 4), Target::Qing(1)), 0);
        assert_eq!(a.distance(&hand("1112345678999p", 4), Target::Qing(0)), 13);
        // one off-suit tile in an otherwise ready flush: one swap to ready
        assert_eq!(a.distance(&hand("111234567899p1m", 4), Target::Qing(1)), 1);
        assert_eq!(
            a.distance(&hand("123m456p789s11z22z33z", 4), Target::Standard),
            0
        );
        assert_eq!(
            a.distance(&hand("147m258p369s1234z", 4), Target::Standard),
            8
        );
    }

    #[test]
    fn pungs_and_honors() {
        let mut a = Analyzer::new();
        assert_eq!(a.distance(&hand("111m222p333s444z5z", 4), Target::Pungs), 0);
        assert_eq!(a.distance(&hand("111m222p333s44z55z", 4), Target::Pungs), 0);
        assert_eq!(
            a.distance(&hand("111m222p333s44z55z", 4), Target::FlushPungs(0)),
            6
        );
        assert_eq!(a.distance(&hand("1122334455667z", 4), Target::Honors), 0);
        assert_eq!(a.distance(&hand("112233445566z1m", 4), Target::Honors), 1);
    }

    #[test]
    fn dynamic_programme_matches_exhaustive_split() {
        let mut x = 12345u64;
        for _ in 0..3000 {
            let mut d = [0u8; 9];
            let n = (x % 15) as usize;
            for _ in 0..n {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let i = (x >> 33) as usize % 9;
                if d[i] < 4 {
                    d[i] += 1;
                }
            }
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let mut e = d;
            let mut out = NONE;
            split_suit(&mut e, 0, 0, 0, 0, &mut out);
            assert_eq!(suit_blocks(&d), out, "{d:?}");
        }
    }

    #[test]
    fn acceptance_counts_live_tiles() {
        let mut a = Analyzer::new();
        let mut live = [4u8; 34];
        let h = hand("23m456m789m111z22z", 4);
        let (d, n) = a.acceptance(&h, Target::Hun(0), &live, None);
        assert_eq!(d, 0);
        assert_eq!(n, 4 + 4 + 4); // 1m, 4m and 7m
        live[0] = 0;
        assert_eq!(a.acceptance(&h, Target::Hun(0), &live, None).1, 8);
    }
}
