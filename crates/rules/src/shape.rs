//! Standard-shape analysis (docs/rules.en.md §5): four sets and a pair, with 0–4 wildcards.
//!
//! The hot path, [`is_standard`], works on a count array and three table look-ups: each suit
//! is encoded base 5 (a digit per number, 0–4 copies) and a precomputed table of 5⁹ entries
//! says whether that suit splits into sets (plus one pair if its size is 2 mod 3). A second
//! table gives, for each suit key, the tiles whose addition makes it complete, so the waits of
//! a 13-tile hand ([`standard_waits`]) cost a handful of look-ups too. Both tables are built
//! once, on first use, by enumerating the complete suit shapes (about 22,000 of them).
//!
//! With wildcards (百搭) a small recursive search ([`decompositions`], [`is_standard_wild`])
//! is used instead; it is also what scoring uses to list every decomposition of a hand.
//! Seven pairs and thirteen orphans are not winning shapes in Shanghai rules and are not
//! recognised anywhere.

use crate::tile::{Counts, PLAY_KINDS, Tile};
use serde::{Deserialize, Serialize};
use std::sync::LazyLock;

const SUIT_KEYS: usize = 1_953_125; // 5^9
const POW5: [u32; 9] = [1, 5, 25, 125, 625, 3125, 15625, 78125, 390625];

struct Tables {
    /// Bit set where the suit shape splits into sets (and one pair when its size is 2 mod
    /// 3); a bitset of 5⁹ bits (244 KB) so that look-ups mostly stay in cache.
    complete: Vec<u64>,
    /// Bit i set where adding number i+1 makes the suit shape complete.
    waits: Vec<u16>,
}

static TABLES: LazyLock<Tables> = LazyLock::new(build_tables);

fn build_tables() -> Tables {
    let mut complete = vec![0u8; SUIT_KEYS];
    // Enumerate multisets of up to four sets (9 pungs + 7 chows) plus an optional pair.
    fn rec(start: usize, left: usize, digits: &mut [u8; 9], complete: &mut [u8]) {
        for pair in 0..=9 {
            if pair < 9 {
                if digits[pair] + 2 > 4 {
                    continue;
                }
                digits[pair] += 2;
            }
            complete[key_of(digits) as usize] = 1;
            if pair < 9 {
                digits[pair] -= 2;
            }
        }
        if left == 0 {
            return;
        }
        for set in start..16 {
            let ok = if set < 9 {
                digits[set] + 3 <= 4
            } else {
                let i = set - 9;
                digits[i] < 4 && digits[i + 1] < 4 && digits[i + 2] < 4
            };
            if !ok {
                continue;
            }
            add_set(digits, set, true);
            rec(set, left - 1, digits, complete);
            add_set(digits, set, false);
        }
    }
    fn add_set(d: &mut [u8; 9], set: usize, add: bool) {
        let idx: &[usize] = if set < 9 {
            &[set, set, set]
        } else {
            &[set - 9, set - 8, set - 7]
        };
        for &i in idx {
            if add { d[i] += 1 } else { d[i] -= 1 }
        }
    }
    let mut digits = [0u8; 9];
    rec(0, 4, &mut digits, &mut complete);
    let mut waits = vec![0u16; SUIT_KEYS];
    let mut bits = vec![0u64; SUIT_KEYS.div_ceil(64)];
    for key in 0..SUIT_KEYS as u32 {
        if complete[key as usize] == 0 {
            continue;
        }
        bits[key as usize / 64] |= 1 << (key % 64);
        let mut k = key;
        for (i, p) in POW5.iter().enumerate() {
            if k % 5 > 0 {
                waits[(key - p) as usize] |= 1 << i;
            }
            k /= 5;
        }
    }
    Tables {
        complete: bits,
        waits,
    }
}

impl Tables {
    #[inline]
    fn is_complete(&self, key: u32) -> bool {
        self.complete[key as usize / 64] >> (key % 64) & 1 != 0
    }
}

fn key_of(d: &[u8]) -> u32 {
    d.iter().zip(POW5).map(|(&n, p)| n as u32 * p).sum()
}

/// Forces the shape tables to be built now (benchmarks call this before timing).
pub fn warm_up() {
    LazyLock::force(&TABLES);
}

/// Whether `counts` (14, 11, 8, 5 or 2 tiles: concealed tiles with the winning tile) is four
/// sets and a pair minus the melds already exposed. No wildcards, no seven pairs.
///
/// ```
/// use mahjong_rules::{parse_tiles, counts_of, shape::is_standard};
/// assert!(is_standard(&counts_of(&parse_tiles("11123455678999p").unwrap()[..14])));
/// assert!(!is_standard(&counts_of(&parse_tiles("1133557799m1133p").unwrap()))); // seven pairs
/// ```
#[inline]
pub fn is_standard(counts: &Counts) -> bool {
    let t = &*TABLES;
    let mut pairs = 0u32;
    for s in 0..3 {
        let d = &counts[s * 9..s * 9 + 9];
        let mut key = 0u32;
        let mut sum = 0u32;
        let mut over = 0u8;
        for i in 0..9 {
            key += d[i] as u32 * POW5[i];
            sum += d[i] as u32;
            over |= (d[i] > 4) as u8;
        }
        if over != 0 {
            return false;
        }
        match sum % 3 {
            0 => {}
            2 => pairs += 1,
            _ => return false,
        }
        if sum > 14 || !t.is_complete(key) {
            return false;
        }
    }
    for &n in &counts[27..34] {
        match n {
            0 | 3 => {}
            2 => pairs += 1,
            _ => return false,
        }
    }
    pairs == 1
}

/// The kinds (bit = tile index) that complete a 13-tile (or 10, 7, 4, 1) hand to a standard
/// shape, ignoring whether copies remain. No wildcards.
pub fn standard_waits(counts: &Counts) -> u64 {
    let mut keys = [0u32; 3];
    let mut sums = [0u32; 3];
    for s in 0..3 {
        let d = &counts[s * 9..s * 9 + 9];
        for i in 0..9 {
            if d[i] > 4 {
                return 0;
            }
            keys[s] += d[i] as u32 * POW5[i];
            sums[s] += d[i] as u32;
        }
    }
    let mut honors = [0u8; 7];
    honors.copy_from_slice(&counts[27..34]);
    waits_from_parts(&keys, &sums, &honors)
}

/// For a 14-tile hand (or 11, 8, 5, 2): the kinds whose discard leaves a hand with at least
/// one standard wait (bit = tile index). No wildcards. One pass over the hand's suit keys.
pub fn ready_discards(counts: &Counts) -> u64 {
    let t = &*TABLES;
    let mut keys = [0u32; 3];
    let mut sums = [0u32; 4];
    for s in 0..3 {
        let d = &counts[s * 9..s * 9 + 9];
        for i in 0..9 {
            if d[i] > 4 {
                return 0;
            }
            keys[s] += d[i] as u32 * POW5[i];
            sums[s] += d[i] as u32;
        }
    }
    let mut honors = [0u8; 7];
    honors.copy_from_slice(&counts[27..34]);
    sums[3] = honors.iter().map(|&n| n as u32).sum();
    if sums[..3].iter().any(|&x| x > 14) {
        return 0;
    }
    // Completeness of each group as it stands: only the group losing a tile changes.
    let ok = [
        t.is_complete(keys[0]),
        t.is_complete(keys[1]),
        t.is_complete(keys[2]),
        honors_complete(&honors),
    ];
    // After one discard, every group but the one discarded from and the open one must be
    // complete as it stands: with three incomplete groups no discard can leave a wait.
    if ok.iter().filter(|&&x| !x).count() > 2 {
        return 0;
    }
    let mut out = 0u64;
    for g in 0..4 {
        if sums[g] == 0 {
            continue;
        }
        // Residues after a discard from g must be (1,0,0,0) or (2,2,0,0) in some order.
        let mut res = [0u32; 4];
        for h in 0..4 {
            res[h] = (sums[h] - (h == g) as u32) % 3;
        }
        let ones = res.iter().filter(|&&r| r == 1).count();
        let twos = res.iter().filter(|&&r| r == 2).count();
        if !((ones == 1 && twos == 0) || (ones == 0 && twos == 2)) {
            continue;
        }
        let open_r = if ones == 1 { 1 } else { 2 };
        // Groups other than g must all be complete except the open one.
        let others_bad = (0..4)
            .filter(|&h| h != g && res[h] != open_r && !ok[h])
            .count();
        if others_bad > 0 {
            continue;
        }
        let range = if g < 3 { g * 9..g * 9 + 9 } else { 27..34 };
        for i in range {
            if counts[i] == 0 {
                continue;
            }
            let mut h2 = honors;
            let key_g = if g < 3 {
                keys[g] - POW5[i % 9]
            } else {
                h2[i - 27] -= 1;
                0
            };
            let ok_g = if g < 3 {
                t.is_complete(key_g)
            } else {
                honors_complete(&h2)
            };
            let ready = (0..4).any(|open| {
                res[open] == open_r
                    && (0..4).all(|h| h == open || if h == g { ok_g } else { ok[h] })
                    && {
                        let mut k = keys;
                        if g < 3 {
                            k[g] = key_g;
                        }
                        let hon = if g == 3 { &h2 } else { &honors };
                        waits_of_group(t, &k, hon, open) != 0
                    }
            });
            if ready {
                out |= 1 << i;
            }
        }
    }
    out
}

/// Tiles that, added to group g (0-2 a suit, 3 the honors), complete it.
fn waits_of_group(t: &Tables, keys: &[u32; 3], honors: &[u8; 7], g: usize) -> u64 {
    if g < 3 {
        (t.waits[keys[g] as usize] as u64) << (g * 9)
    } else {
        let mut w = 0u64;
        for i in 0..7 {
            if honors[i] < 4 {
                let mut h = *honors;
                h[i] += 1;
                if honors_complete(&h) {
                    w |= 1 << (27 + i);
                }
            }
        }
        w
    }
}

fn honors_complete(h: &[u8; 7]) -> bool {
    let size: u32 = h.iter().map(|&n| n as u32).sum();
    let pairs = h.iter().filter(|&&n| n == 2).count();
    h.iter().all(|&n| matches!(n, 0 | 2 | 3)) && pairs == (size % 3 == 2) as usize
}

/// The waits of a hand given as three suit keys with their sizes and the honor counts.
fn waits_from_parts(keys: &[u32; 3], sums: &[u32; 3], honors: &[u8; 7]) -> u64 {
    let t = &*TABLES;
    let mut res = [0u8; 4];
    for s in 0..3 {
        if sums[s] > 13 {
            return 0;
        }
        res[s] = (sums[s] % 3) as u8;
    }
    res[3] = (honors.iter().map(|&n| n as u32).sum::<u32>() % 3) as u8;
    let ones = res.iter().filter(|&&r| r == 1).count();
    let twos = res.iter().filter(|&&r| r == 2).count();
    if !((ones == 1 && twos == 0) || (ones == 0 && twos == 2)) {
        return 0;
    }
    // Whether group g is complete as it stands (sets, plus its pair if size 2 mod 3).
    let group_ok = |g: usize| -> bool {
        if g < 3 {
            t.is_complete(keys[g])
        } else {
            honors_complete(honors)
        }
    };
    let mut waits = 0u64;
    for g in 0..4 {
        let open = if ones == 1 { res[g] == 1 } else { res[g] == 2 };
        if open && (0..4).all(|h| h == g || group_ok(h)) {
            waits |= waits_of_group(t, keys, honors, g);
        }
    }
    waits
}

/// One set of a decomposition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Set {
    /// Three alike.
    Pung(Tile),
    /// Three in sequence, starting at this tile.
    Chow(Tile),
}

/// A split of concealed tiles into sets and one pair. With wildcards, the wildcard tiles have
/// been given values; `wild_sets` counts sets made of wildcards alone (their value is free).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Decomposition {
    /// The sets, sorted.
    pub sets: Vec<Set>,
    /// The pair, or `None` when the pair is two wildcards.
    pub pair: Option<Tile>,
    /// Sets made of three wildcards.
    pub wild_sets: u8,
}

/// Every distinct decomposition of `counts` plus `jokers` wildcards into sets and exactly one
/// pair. `counts` must not include the wildcards themselves.
pub fn decompositions(counts: &Counts, jokers: u8) -> Vec<Decomposition> {
    let mut out = Vec::new();
    let mut c = *counts;
    let mut sets = Vec::with_capacity(4);
    rec_decompose(&mut c, jokers, 0, &mut sets, None, false, &mut out);
    out.sort();
    out.dedup();
    out
}

#[allow(clippy::too_many_arguments)]
fn rec_decompose(
    c: &mut Counts,
    jokers: u8,
    from: usize,
    sets: &mut Vec<Set>,
    pair: Option<Option<Tile>>,
    stop_at_first: bool,
    out: &mut Vec<Decomposition>,
) -> bool {
    let Some(i) = (from..PLAY_KINDS).find(|&i| c[i] > 0) else {
        // Only wildcards are left: they must make the pair (if still missing) and sets.
        let mut j = jokers;
        let pair = match pair {
            Some(p) => p,
            None if j >= 2 => {
                j -= 2;
                None
            }
            None => return false,
        };
        if !j.is_multiple_of(3) {
            return false;
        }
        let mut s = sets.clone();
        s.sort();
        out.push(Decomposition {
            sets: s,
            pair,
            wild_sets: j / 3,
        });
        return true;
    };
    let t = Tile::from_index(i).unwrap_or(Tile::EAST);
    let n = c[i];
    // Pung: 3 real, or 2 real + 1 wildcard, or 1 real + 2 wildcards.
    for real in (1..=3u8).rev() {
        let wild = 3 - real;
        if n >= real && jokers >= wild {
            c[i] -= real;
            sets.push(Set::Pung(t));
            let found = rec_decompose(c, jokers - wild, i, sets, pair, stop_at_first, out);
            sets.pop();
            c[i] += real;
            if found && stop_at_first {
                return true;
            }
        }
    }
    // Pair: 2 real, or 1 real + 1 wildcard.
    if pair.is_none() {
        for real in (1..=2u8).rev() {
            let wild = 2 - real;
            if n >= real && jokers >= wild {
                c[i] -= real;
                let found =
                    rec_decompose(c, jokers - wild, i, sets, Some(Some(t)), stop_at_first, out);
                c[i] += real;
                if found && stop_at_first {
                    return true;
                }
            }
        }
    }
    // Chows containing tile i, which is the lowest real tile left: i as low, middle or high
    // member, the lower members being wildcards.
    if t.is_suited() {
        let num = t.number() as usize; // 1..=9
        for offset in 0..3usize {
            // the chow starts at number num - offset
            if num <= offset || num - offset + 2 > 9 {
                continue;
            }
            let start = i - offset;
            let mut need_wild = offset as u8; // members below i are wildcards
            let mut take = [false; 3];
            for k in offset..3 {
                let idx = start + k;
                if k == offset || c[idx] > 0 {
                    take[k] = true;
                } else {
                    need_wild += 1;
                }
            }
            if need_wild > jokers {
                continue;
            }
            for k in 0..3 {
                if take[k] {
                    c[start + k] -= 1;
                }
            }
            sets.push(Set::Chow(Tile::from_index(start).unwrap_or(t)));
            let found = rec_decompose(c, jokers - need_wild, i, sets, pair, stop_at_first, out);
            sets.pop();
            for k in 0..3 {
                if take[k] {
                    c[start + k] += 1;
                }
            }
            if found && stop_at_first {
                return true;
            }
        }
    }
    false
}

/// Whether `counts` plus `jokers` wildcards form a standard shape.
pub fn is_standard_wild(counts: &Counts, jokers: u8) -> bool {
    if jokers == 0 {
        return is_standard(counts);
    }
    let total: u32 = counts.iter().map(|&n| n as u32).sum::<u32>() + jokers as u32;
    if total % 3 != 2 {
        return false;
    }
    let mut c = *counts;
    let mut sets = Vec::with_capacity(4);
    let mut out = Vec::new();
    rec_decompose(&mut c, jokers, 0, &mut sets, None, true, &mut out)
}

/// Whether `counts` plus `jokers` wildcards form sets only, with no pair (`baida`: a hand
/// that is these sets and one more wildcard wins on any tile, 跑百搭).
pub fn is_sets_wild(counts: &Counts, jokers: u8) -> bool {
    let total: u32 = counts.iter().map(|&n| n as u32).sum::<u32>() + jokers as u32;
    if !total.is_multiple_of(3) {
        return false;
    }
    let mut c = *counts;
    let mut sets = Vec::with_capacity(4);
    let mut out = Vec::new();
    rec_decompose(&mut c, jokers, 0, &mut sets, Some(None), true, &mut out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::tile::{counts_of, parse_tiles};

    fn c(s: &str) -> Counts {
        counts_of(&parse_tiles(s).unwrap())
    }

    /// Reference check by plain recursion, no tables.
    fn slow(counts: &Counts) -> bool {
        !decompositions(counts, 0).is_empty()
    }

    #[test]
    fn sets_without_a_pair() {
        for (h, jokers, sets) in [
            ("123m456p", 0, true),
            ("123m45p", 1, true),
            ("123m44p", 1, true), // 44p and a wildcard make a pung
            ("111z", 0, true),
            ("11z", 1, true),
            ("", 3, true),
            ("123m4p5s", 1, false),
            ("12m", 0, false),
            ("1m", 1, false),
            ("123m456p11z", 0, false), // a pair is not a set
        ] {
            assert_eq!(is_sets_wild(&c(h), jokers), sets, "{h} + {jokers}");
        }
    }

    #[test]
    fn known_hands() {
        for (h, win) in [
            ("11123455678999p", true),
            ("123m456p789s11122z", true),
            ("11122233344455m", true),
            ("11223344556677m", true),   // 123 123 456 456 77
            ("1133557799m1133p", false), // seven pairs is not a standard shape
            ("19m19p19s1234567z1z", false),
            ("22m", true),
            ("23m", false),
            ("111222333m44p", true),
            ("1112345678999m", false), // 13 tiles
        ] {
            let counts = c(h);
            assert_eq!(is_standard(&counts), win, "{h}");
            assert_eq!(slow(&counts), win, "{h}");
        }
    }

    #[test]
    fn nine_gates_waits_everything() {
        let w = standard_waits(&c("1112345678999m"));
        assert_eq!(w, 0x1ff);
        let w = standard_waits(&c("123m456p789s1122z"));
        assert_eq!(w, (1 << 27) | (1 << 28));
        assert_eq!(standard_waits(&c("1z")), 1 << 27);
        assert_eq!(standard_waits(&c("13m")), 0);
    }

    #[test]
    fn waits_match_brute_force() {
        // Deterministic pseudo-random 13-tile hands concentrated in few kinds.
        let mut x: u64 = 0x9e3779b97f4a7c15;
        for _ in 0..4000 {
            let mut counts = [0u8; PLAY_KINDS];
            let mut n = 0;
            while n < 13 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let k = (x % 12) as usize + if x.is_multiple_of(3) { 27 } else { 0 };
                let k = k.min(33);
                if counts[k] < 4 {
                    counts[k] += 1;
                    n += 1;
                }
            }
            let mut brute = 0u64;
            for k in 0..PLAY_KINDS {
                if counts[k] < 4 {
                    counts[k] += 1;
                    if slow(&counts) {
                        brute |= 1 << k;
                    }
                    assert_eq!(is_standard(&counts), slow(&counts));
                    counts[k] -= 1;
                }
            }
            assert_eq!(standard_waits(&counts), brute, "{counts:?}");
        }
    }

    #[test]
    fn ready_discards_match_waits() {
        let mut x: u64 = 77;
        for _ in 0..3000 {
            let mut counts = [0u8; PLAY_KINDS];
            let mut n = 0;
            while n < 14 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let k = ((x % 13) as usize + if x.is_multiple_of(4) { 25 } else { 0 }).min(33);
                if counts[k] < 4 {
                    counts[k] += 1;
                    n += 1;
                }
            }
            let mut want = 0u64;
            for k in 0..PLAY_KINDS {
                if counts[k] > 0 {
                    counts[k] -= 1;
                    if standard_waits(&counts) != 0 {
                        want |= 1 << k;
                    }
                    counts[k] += 1;
                }
            }
            assert_eq!(ready_discards(&counts), want, "{counts:?}");
        }
    }

    #[test]
    fn wildcards() {
        assert!(is_standard_wild(&c("123m456p789s11z22z"), 1));
        assert!(is_standard_wild(&c("123m456p789s1z"), 1)); // 1z + wildcard pair
        assert!(is_standard_wild(&c("13m456p789s11z222s"), 1));
        assert!(is_standard_wild(&c("9m"), 1));
        assert!(is_standard_wild(&c(""), 2));
        assert!(!is_standard_wild(&c("19m1p1s"), 4) && !is_standard_wild(&c("19m1p"), 4));
        assert!(is_standard_wild(&c("9m123p456p789p"), 1));
        assert!(is_standard_wild(&c("79m11p"), 1));
        assert!(!is_standard_wild(&c("1m5m9m1p5p9p1s5s9s1z"), 4));
        assert!(!is_standard_wild(&c("12m45m78m12p45p"), 4));
        assert!(is_standard_wild(&c("12m45m78m12p55p"), 4));
        assert!(!is_standard_wild(&c("12m45m78m12p"), 4)); // 12 tiles
    }

    #[test]
    fn wildcard_search_agrees_with_substitution() {
        // With one wildcard, a hand is standard iff some substitution is.
        let mut x: u64 = 12345;
        for _ in 0..1500 {
            let mut counts = [0u8; PLAY_KINDS];
            let mut n = 0;
            while n < 13 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let k = (x % 14) as usize + if x.is_multiple_of(5) { 20 } else { 0 };
                let k = k.min(33);
                if counts[k] < 4 {
                    counts[k] += 1;
                    n += 1;
                }
            }
            let by_sub = (0..PLAY_KINDS).any(|k| {
                let mut c2 = counts;
                c2[k] += 1;
                c2[k] <= 4 && is_standard(&c2)
            });
            // Wildcard may also stand for a 5th copy; compare allowing that.
            let by_sub5 = (0..PLAY_KINDS).any(|k| {
                let mut c2 = counts;
                c2[k] += 1;
                !decompositions(&c2, 0).is_empty()
            });
            let wild = is_standard_wild(&counts, 1);
            assert!(wild == by_sub5, "{counts:?}");
            assert!(!by_sub || wild);
        }
    }
}
