//! Hand analysis (docs/rules.en.md §5): whether a hand wins under a ruleset, its waits, and the hand
//! types and flowers that scoring needs.
//!
//! A hand is its concealed tiles as a count array (the winning tile included) plus its melds
//! ([`MeldShape`]). In `qiaoma` and `classic` only restricted hands win: a standard hand that
//! is all pungs (碰碰胡), or of one suit with or without honors (清一色/混一色), or all honors in
//! any arrangement (风一色, 乱风), and in `classic` also 大吊车. In `baida` any standard hand
//! wins and wildcards (百搭) stand for any non-flower tile.
//!
//! Flowers in `qiaoma`/`classic` do not depend on how the concealed tiles are split: only
//! honor pungs score, and honors can only form pungs; a concealed honor triple counts as a
//! pung (a pung completed by a discard too). In `baida` only three real wind tiles make a
//! wind pung that earns a flower (a wildcard earns its own flower only), and the split that
//! keeps the most of them is taken.

use crate::options::{HandsRule, Options};
use crate::shape::{self, Set};
use crate::tile::{Counts, PLAY_KINDS, Tile};
use serde::{Deserialize, Serialize};

/// The kind of an exposed or declared meld.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MeldType {
    /// 吃: three in sequence, claimed.
    Chow,
    /// 碰: three alike, claimed.
    Pung,
    /// 明杠: four alike, claimed from a discard.
    ClaimedKong,
    /// 加杠 / 上杠: a fourth tile added to an own exposed pung.
    AddedKong,
    /// 暗杠: four alike from the hand.
    ConcealedKong,
}

impl MeldType {
    /// Any kind of kong.
    pub const fn is_kong(self) -> bool {
        matches!(
            self,
            MeldType::ClaimedKong | MeldType::AddedKong | MeldType::ConcealedKong
        )
    }
    /// Made with a claimed tile (breaks 门清): chow, pung, claimed kong, and an added kong
    /// (which was a pung first).
    pub const fn is_open(self) -> bool {
        !matches!(self, MeldType::ConcealedKong)
    }
    /// The number of tiles it holds.
    pub const fn tile_count(self) -> usize {
        if self.is_kong() { 4 } else { 3 }
    }
}

/// A meld as analysis sees it: its type and its tile (the lowest tile of a chow).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct MeldShape {
    /// The type.
    pub kind: MeldType,
    /// The tile (lowest of a chow).
    pub tile: Tile,
}

impl MeldShape {
    /// The tiles it holds.
    pub fn tiles(&self) -> Vec<Tile> {
        let i = self.tile.index();
        match self.kind {
            MeldType::Chow => (i..i + 3).filter_map(Tile::from_index).collect(),
            k => vec![self.tile; k.tile_count()],
        }
    }

    /// Flowers it is worth in `qiaoma`/`classic` (§6 flower table).
    pub fn flowers(&self) -> u32 {
        let t = self.tile;
        match self.kind {
            MeldType::Chow => 0,
            MeldType::Pung => honor_pung_flowers(t),
            MeldType::ClaimedKong | MeldType::AddedKong => {
                if t.is_suited() {
                    1
                } else {
                    honor_pung_flowers(t) + 1
                }
            }
            MeldType::ConcealedKong => {
                if t.is_suited() {
                    2
                } else {
                    honor_pung_flowers(t) + 2
                }
            }
        }
    }
}

/// Up to four melds on the stack (a hand never has more), usable as `&[MeldShape]`.
#[derive(Clone, Copy, Debug)]
pub struct MeldList {
    buf: [MeldShape; 4],
    len: u8,
}

impl MeldList {
    /// From an iterator; melds beyond the fourth are ignored (a hand cannot have them).
    pub fn collect(it: impl IntoIterator<Item = MeldShape>) -> MeldList {
        let mut l = MeldList {
            buf: [MeldShape {
                kind: MeldType::Pung,
                tile: Tile::EAST,
            }; 4],
            len: 0,
        };
        for m in it.into_iter().take(4) {
            l.buf[l.len as usize] = m;
            l.len += 1;
        }
        l
    }
}

impl std::ops::Deref for MeldList {
    type Target = [MeldShape];
    fn deref(&self) -> &[MeldShape] {
        &self.buf[..self.len as usize]
    }
}

/// Flowers of an honor pung: wind 1, dragon 2, suited 0.
pub fn honor_pung_flowers(t: Tile) -> u32 {
    if t.is_wind() {
        1
    } else if t.is_dragon() {
        2
    } else {
        0
    }
}

/// The winning hand types of §5 (their ids are the pinyin names of the rule book).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HandType {
    /// 平胡: any standard hand (`baida`, or the `standard` hands option).
    Pinghu,
    /// 大吊车 as a hand on its own (`classic`).
    Dadiaoche,
    /// 碰碰胡: every set a pung or kong.
    Pengpenghu,
    /// 混一色: one suit plus honors.
    Hunyise,
    /// 清一色: one suit only.
    Qingyise,
    /// 混碰: 混一色 and 碰碰胡.
    Hunpeng,
    /// 八花齐: all eight flowers.
    Bahuaqi,
    /// 字一色 (`classic`'s name for an all-honors hand).
    Ziyise,
    /// 风一色: all honors, any arrangement.
    Fengyise,
    /// 清碰: 清一色 and 碰碰胡.
    Qingpeng,
    /// 风碰: all honors as pungs and a pair.
    Fengpeng,
    /// 四百搭: four wildcards (`baida`).
    Sibaida,
}

impl HandType {
    /// The id used in files.
    pub fn id(self) -> &'static str {
        match self {
            HandType::Pinghu => "pinghu",
            HandType::Dadiaoche => "dadiaoche",
            HandType::Pengpenghu => "pengpenghu",
            HandType::Hunyise => "hunyise",
            HandType::Qingyise => "qingyise",
            HandType::Hunpeng => "hunpeng",
            HandType::Bahuaqi => "bahuaqi",
            HandType::Ziyise => "ziyise",
            HandType::Fengyise => "fengyise",
            HandType::Qingpeng => "qingpeng",
            HandType::Fengpeng => "fengpeng",
            HandType::Sibaida => "sibaida",
        }
    }
}

/// What the suits of a hand look like.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Composition {
    /// Bit 0 characters, 1 dots, 2 bamboo.
    pub suits: u8,
    /// Any honor present.
    pub honors: bool,
}

impl Composition {
    /// Of the concealed counts (wildcards excluded) and melds.
    pub fn of(concealed: &Counts, melds: &[MeldShape]) -> Composition {
        let mut c = Composition::default();
        let mut add = |t: Tile| {
            if t.is_suited() {
                c.suits |= 1 << (t.index() / 9);
            } else if t.is_honor() {
                c.honors = true;
            }
        };
        for (i, &n) in concealed.iter().enumerate() {
            if n > 0
                && let Some(t) = Tile::from_index(i)
            {
                add(t);
            }
        }
        for m in melds {
            add(m.tile);
        }
        c
    }

    /// Number of suits present.
    pub fn suit_count(&self) -> u32 {
        self.suits.count_ones()
    }
}

/// Splits concealed counts into real tiles and the number of wildcards.
pub fn split_wild(concealed: &Counts, wildcard: Option<Tile>) -> (Counts, u8) {
    match wildcard {
        Some(w) if !w.is_flower() => {
            let mut c = *concealed;
            let j = c[w.index()];
            c[w.index()] = 0;
            (c, j)
        }
        _ => (*concealed, 0),
    }
}

/// The number of concealed tiles a complete hand with these melds has.
pub fn complete_size(melds: &[MeldShape]) -> usize {
    14 - 3 * melds.len().min(4)
}

/// Whether every concealed tile can be a pung except one pair (no wildcards).
fn all_pungs_concealed(c: &Counts) -> bool {
    let mut pairs = 0;
    for &n in c.iter() {
        match n {
            0 | 3 => {}
            2 => pairs += 1,
            _ => return false,
        }
    }
    pairs == 1
}

/// Whether a complete hand (concealed with the winning tile, plus melds) wins under `options`.
/// Eight flowers and four wildcards are decided elsewhere (they win whatever the hand).
pub fn is_winning(
    options: &Options,
    concealed: &Counts,
    melds: &[MeldShape],
    wildcard: Option<Tile>,
) -> bool {
    if melds.len() > 4 {
        return false;
    }
    let size: usize = concealed.iter().map(|&n| n as usize).sum();
    if size != complete_size(melds) {
        return false;
    }
    let (real, jokers) = split_wild(concealed, wildcard.filter(|_| options.wildcard));
    if jokers > 0 {
        return !winning_types_wild(options, &real, jokers, melds).is_empty();
    }
    if options.hands == HandsRule::Standard {
        return shape::is_standard(&real);
    }
    // The suits present, in one pass (bit 0 characters, 1 dots, 2 bamboo).
    let mut suits = 0u8;
    for (s, chunk) in real[..27].chunks_exact(9).enumerate() {
        if chunk.iter().any(|&n| n > 0) {
            suits |= 1 << s;
        }
    }
    for m in melds {
        if m.tile.is_suited() {
            suits |= 1 << (m.tile.index() / 9);
        }
    }
    if suits == 0 {
        // 风一色 / 字一色: all honors in any arrangement (乱风).
        return true;
    }
    // One suit (with or without honors): any standard hand. Several suits: only all pungs
    // (which is a standard shape by itself) or, where admitted, 大吊车. The cheap tests come
    // first, so most mixed hands never reach the shape table.
    if suits.count_ones() == 1 {
        return shape::is_standard(&real);
    }
    if melds.iter().all(|m| m.kind != MeldType::Chow) && all_pungs_concealed(&real) {
        return true;
    }
    options.hands == HandsRule::RestrictedDadiaoche && melds.len() == 4 && shape::is_standard(&real)
}

/// The kinds (bit per tile index) on which a hand one tile short wins under `options`.
/// A kind of which the hand and its melds already hold four is not a wait.
pub fn waits(
    options: &Options,
    concealed: &Counts,
    melds: &[MeldShape],
    wildcard: Option<Tile>,
) -> u64 {
    let size: usize = concealed.iter().map(|&n| n as usize).sum();
    if melds.len() > 4 || size + 1 != complete_size(melds) {
        return 0;
    }
    let wild = wildcard.filter(|_| options.wildcard);
    let (real, jokers) = split_wild(concealed, wild);
    // Kinds that could complete the hand at all, before the preset's restrictions.
    let candidates: u64 = if jokers == 0 && wild.is_none() {
        let std = shape::standard_waits(&real);
        let restricted = options.hands != HandsRule::Standard;
        // Without a standard wait only 风一色 (all honors, any arrangement) can still win.
        let all_honors = restricted
            && real[..27].iter().all(|&n| n == 0)
            && melds.iter().all(|m| !m.tile.is_suited());
        if all_honors { std | (0x7f << 27) } else { std }
    } else {
        (1u64 << PLAY_KINDS) - 1
    };
    if candidates == 0 {
        return 0;
    }
    let mut held = *concealed;
    for m in melds {
        add_meld(&mut held, m);
    }
    let playable = |i: usize| -> bool {
        held[i] < 4 && Tile::from_index(i).is_some_and(|t| !options.is_flower(t))
    };
    let mut out = 0u64;
    for i in 0..PLAY_KINDS {
        if candidates & (1 << i) == 0 || !playable(i) {
            continue;
        }
        let mut c = *concealed;
        c[i] += 1;
        if is_winning(options, &c, melds, wild) {
            out |= 1 << i;
        }
    }
    out
}

/// Adds a meld's tiles to a count array.
pub fn add_meld(counts: &mut Counts, m: &MeldShape) {
    let i = m.tile.index();
    if i >= PLAY_KINDS {
        return;
    }
    match m.kind {
        MeldType::Chow => {
            for k in i..(i + 3).min(PLAY_KINDS) {
                counts[k] = counts[k].saturating_add(1);
            }
        }
        k => counts[i] = counts[i].saturating_add(k.tile_count() as u8),
    }
}

/// The winning hand types a complete hand fits, with wildcards (`jokers` > 0). Used for
/// `baida`, where this is `[Pinghu]` for any standard hand.
fn winning_types_wild(
    options: &Options,
    real: &Counts,
    jokers: u8,
    melds: &[MeldShape],
) -> Vec<HandType> {
    let decs = shape::decompositions(real, jokers);
    if options.hands == HandsRule::Standard {
        return if decs.is_empty() {
            vec![]
        } else {
            vec![HandType::Pinghu]
        };
    }
    let mut out = Vec::new();
    let comp = Composition::of(real, melds);
    if comp.suits == 0 {
        out.push(HandType::Fengyise);
    }
    for d in &decs {
        let pungs = melds.iter().all(|m| m.kind != MeldType::Chow)
            && d.sets.iter().all(|s| matches!(s, Set::Pung(_)));
        if comp.suit_count() <= 1 || pungs {
            out.push(HandType::Pengpenghu);
        }
    }
    out
}

/// How a complete hand wins in `qiaoma`/`classic` terms: every hand type it fits.
pub fn restricted_types(
    options: &Options,
    concealed: &Counts,
    melds: &[MeldShape],
) -> Vec<HandType> {
    let mut out = Vec::new();
    let size: usize = concealed.iter().map(|&n| n as usize).sum();
    if melds.len() > 4 || size != complete_size(melds) {
        return out;
    }
    let comp = Composition::of(concealed, melds);
    let classic = options.ruleset == crate::options::Ruleset::Classic;
    let standard = shape::is_standard(concealed);
    let pungs = standard
        && melds.iter().all(|m| m.kind != MeldType::Chow)
        && all_pungs_concealed(concealed);
    if comp.suits == 0 {
        if classic {
            out.push(HandType::Ziyise);
        } else {
            out.push(HandType::Fengyise);
            if pungs {
                out.push(HandType::Fengpeng);
            }
        }
    }
    if !standard {
        return out;
    }
    if pungs {
        out.push(HandType::Pengpenghu);
    }
    if comp.suit_count() == 1 {
        if comp.honors {
            out.push(HandType::Hunyise);
            if pungs {
                out.push(HandType::Hunpeng);
            }
        } else {
            out.push(HandType::Qingyise);
            if pungs {
                out.push(HandType::Qingpeng);
            }
        }
    }
    if options.hands == HandsRule::RestrictedDadiaoche && melds.len() == 4 {
        out.push(HandType::Dadiaoche);
    }
    if options.hands == HandsRule::Standard {
        out.push(HandType::Pinghu);
    }
    out
}

/// Flowers of a hand in `qiaoma`/`classic`: flower tiles, melds, and concealed honor pungs.
pub fn restricted_flowers(concealed: &Counts, melds: &[MeldShape], flower_tiles: usize) -> u32 {
    let mut f = flower_tiles as u32;
    for m in melds {
        f += m.flowers();
    }
    for (i, &n) in concealed.iter().enumerate().skip(27) {
        if n >= 3
            && let Some(t) = Tile::from_index(i)
        {
            f += honor_pung_flowers(t);
        }
    }
    f
}

/// Whether a hand with these melds can still win at all under `options`, whatever its
/// concealed tiles become. Only the `restricted` hands rule a hand out by its melds: a chow
/// with suited melds in two suits fits no winning hand (not all pungs, not one suit, not all
/// honors). With 大吊车 admitted (`classic`) four melds of any kind still win, and any
/// standard hand wins in `baida`.
pub fn can_still_win(options: &Options, melds: &[MeldShape]) -> bool {
    if options.hands != HandsRule::Restricted {
        return true;
    }
    let chow = melds.iter().any(|m| m.kind == MeldType::Chow);
    let suits = melds
        .iter()
        .filter(|m| m.tile.is_suited())
        .fold(0u8, |acc, m| acc | 1 << (m.tile.index() / 9));
    !(chow && suits.count_ones() >= 2)
}

/// 大吊车 / 大吊: four melds and the concealed tiles are the pair (a single wait).
pub fn is_big_single_wait(concealed: &Counts, melds: &[MeldShape]) -> bool {
    melds.len() == 4 && concealed.iter().map(|&n| n as u32).sum::<u32>() == 2
}

/// 门清: no chow, pung or claimed kong in the whole hand (concealed kongs allowed).
pub fn is_menqing(melds: &[MeldShape]) -> bool {
    melds.iter().all(|m| !m.kind.is_open())
}

/// `baida`: the concealed wind pungs that earn a flower, for the best split. Only three real
/// wind tiles make such a pung (§6 `baida`): a wildcard standing in a set earns only its own
/// flower, so the wildcards never complete one, and three wildcards together are no wind
/// pung. Returns the winds of the pungs (the most that a standard split of the hand allows),
/// or `None` when the hand is not standard.
pub fn baida_concealed_wind_pungs(concealed: &Counts, wildcard: Option<Tile>) -> Option<Vec<Tile>> {
    let (real, jokers) = split_wild(concealed, wildcard);
    let triples: Vec<usize> = (27..31).filter(|&i| real[i] >= 3).collect();
    let mut best: Option<Vec<Tile>> = None;
    // At most four winds: every subset of the real triples, taken as pungs of three real
    // tiles, must leave a standard shape (with the wildcards) for the rest of the hand.
    for mask in 0u32..(1 << triples.len()) {
        let mut rest = real;
        let mut winds = Vec::new();
        for (k, &i) in triples.iter().enumerate() {
            if mask & (1 << k) != 0 {
                rest[i] -= 3;
                winds.extend(Tile::from_index(i));
            }
        }
        if best.as_ref().is_some_and(|b| b.len() >= winds.len()) {
            continue;
        }
        if shape::is_standard_wild(&rest, jokers) {
            best = Some(winds);
        }
    }
    best
}

/// Wind triples of real tiles among the concealed tiles (wildcards not used): the wind
/// pungs of a 四百搭 hand that is not standard.
pub fn plain_wind_triples(concealed: &Counts, wildcard: Option<Tile>) -> Vec<Tile> {
    let (real, _) = split_wild(concealed, wildcard);
    (27..31)
        .filter(|&i| real[i] >= 3)
        .filter_map(Tile::from_index)
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::options::Ruleset;
    use crate::tile;
    use crate::tile::{counts_of, parse_tiles};

    fn c(s: &str) -> Counts {
        counts_of(&parse_tiles(s).unwrap())
    }
    fn q() -> Options {
        Options::preset(Ruleset::Qiaoma)
    }
    fn pung(t: Tile) -> MeldShape {
        MeldShape {
            kind: MeldType::Pung,
            tile: t,
        }
    }
    fn chow(t: Tile) -> MeldShape {
        MeldShape {
            kind: MeldType::Chow,
            tile: t,
        }
    }

    #[test]
    fn restricted_hands() {
        let o = q();
        assert!(is_winning(&o, &c("11123455678999p"), &[], None)); // qingyise
        assert!(is_winning(&o, &c("123p456p789p111z22z"), &[], None)); // hunyise
        assert!(is_winning(&o, &c("111m222p333s444z55z"), &[], None)); // pengpenghu
        assert!(!is_winning(&o, &c("123m456p789s11122z"), &[], None)); // mixed chows
        assert!(!is_winning(&o, &c("123m123p111z222z33z"), &[], None)); // chows in two suits
        assert!(is_winning(&o, &c("11223344556677z"), &[], None)); // 乱风 any arrangement
        assert!(is_winning(&o, &c("1234567z1234567z"), &[], None));
        assert!(!is_winning(&o, &c("1234567z123456z"), &[], None)); // 13 tiles
        // melds count
        assert!(is_winning(
            &o,
            &c("222m55p999s"),
            &[pung(tile!("7z")), pung(tile!("1z"))],
            None
        ));
        assert!(!is_winning(
            &o,
            &c("222m55p789s"),
            &[pung(tile!("7z")), pung(tile!("1z"))],
            None
        ));
        assert!(is_winning(
            &o,
            &c("222p55p789p"),
            &[chow(tile!("1p")), pung(tile!("1z"))],
            None
        ));
    }

    #[test]
    fn a_chow_and_a_second_suit_rule_every_restricted_hand_out() {
        let o = q();
        assert!(can_still_win(&o, &[chow(tile!("1m")), chow(tile!("4m"))]));
        assert!(can_still_win(&o, &[pung(tile!("1m")), pung(tile!("4p"))]));
        assert!(can_still_win(&o, &[chow(tile!("1m")), pung(tile!("1z"))]));
        assert!(!can_still_win(&o, &[chow(tile!("1m")), chow(tile!("4p"))]));
        assert!(!can_still_win(&o, &[chow(tile!("1m")), pung(tile!("4s"))]));
        let cl = Options::preset(Ruleset::Classic);
        assert!(can_still_win(&cl, &[chow(tile!("1m")), chow(tile!("4p"))]));
        let b = Options::preset(Ruleset::Baida);
        assert!(can_still_win(&b, &[chow(tile!("1m")), chow(tile!("4p"))]));
    }

    #[test]
    fn classic_dadiaoche_wins_alone() {
        let cl = Options::preset(Ruleset::Classic);
        let melds = [
            chow(tile!("1m")),
            chow(tile!("1p")),
            chow(tile!("1s")),
            chow(tile!("4s")),
        ];
        assert!(is_winning(&cl, &c("55z"), &melds, None));
        assert!(!is_winning(&q(), &c("55z"), &melds, None));
        assert_eq!(waits(&cl, &c("5z"), &melds, None), 1 << tile!("5z").index());
        assert_eq!(waits(&q(), &c("5z"), &melds, None), 0);
    }

    #[test]
    fn waits_respect_restrictions() {
        let o = q();
        // 23m + sets in m + honors: waits 1m and 4m
        let w = waits(&o, &c("23m456m789m111z22z"), &[], None);
        assert_eq!(w, (1 << 0) | (1 << 3) | (1 << 6)); // 1m, 4m, and 7m (234 567 789)
        // mixed suits with a chow: no wait
        assert_eq!(waits(&o, &c("23m456p789s111z22z"), &[], None), 0);
        // 13 honors wait on every honor not held four times
        let w = waits(&o, &c("1112223334445z"), &[], None);
        assert_eq!(w.count_ones(), 7);
        // kong held: no fifth copy
        let w = waits(
            &o,
            &c("1m"),
            &[
                MeldShape {
                    kind: MeldType::ConcealedKong,
                    tile: tile!("1m"),
                },
                pung(tile!("2m")),
                pung(tile!("3m")),
                pung(tile!("4m")),
            ],
            None,
        );
        assert_eq!(w, 0);
    }

    #[test]
    fn baida_wildcards() {
        let b = Options::preset(Ruleset::Baida);
        let w = Some(tile!("5p"));
        // wildcards (5p) complete 13m and 46p
        assert!(is_winning(&b, &c("13m456p789s11z222s5p"), &[], w));
        assert!(!is_winning(&b, &c("13m456p789s11z222s5p"), &[], None));
        assert!(!is_winning(&b, &c("123m456m789s1z2z69p5p"), &[], w));
        assert!(is_winning(
            &b,
            &c("123m456m789s1z5p"),
            &[pung(tile!("2z"))],
            w
        ));
        // 13 tiles + any: with one wildcard as single wait, waits on everything
        let wt = waits(&b, &c("123m456m789s111z5p"), &[], w);
        assert_eq!(wt.count_ones(), 31, "{wt:b}");
    }
}
