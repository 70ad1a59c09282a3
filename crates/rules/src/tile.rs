//! Tiles and the compact notation (docs/rules.en.md §1).
//!
//! A [`Tile`] is a tile *kind*: one of 34 suited/honor kinds or one of the 8 flowers. The
//! 144 physical tiles are four of each of the 34 kinds plus one of each flower; the wall and
//! hands refer to physical tiles by their wall position, and to faces by [`Tile`].
//!
//! Notation: `1m`–`9m` characters (万), `1p`–`9p` dots (筒), `1s`–`9s` bamboo (条),
//! `1z`–`7z` east, south, west, north, white, green, red (东南西北白发中), `1f`–`8f` flowers
//! (春夏秋冬梅兰竹菊). A run of digits shares one suffix (`123m55z`); spaces are ignored.
//! [`parse_tiles`] and [`format_tiles`] convert both ways; errors name the offending tile.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// Number of tile kinds, flowers included.
pub const KINDS: usize = 42;
/// Number of non-flower kinds (suited and honors): the index space of hand counts.
pub const PLAY_KINDS: usize = 34;
/// Number of physical tiles.
pub const TILE_COUNT: usize = 144;

/// The suit of a tile kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Suit {
    /// 万 characters, `m`.
    Characters,
    /// 筒 dots, `p`.
    Dots,
    /// 条 bamboo, `s`.
    Bamboo,
    /// Winds and dragons, `z`.
    Honors,
    /// The eight flowers, `f`.
    Flowers,
}

impl Suit {
    /// The notation suffix.
    pub const fn letter(self) -> char {
        match self {
            Suit::Characters => 'm',
            Suit::Dots => 'p',
            Suit::Bamboo => 's',
            Suit::Honors => 'z',
            Suit::Flowers => 'f',
        }
    }

    const fn from_letter(c: char) -> Option<Suit> {
        match c {
            'm' => Some(Suit::Characters),
            'p' => Some(Suit::Dots),
            's' => Some(Suit::Bamboo),
            'z' => Some(Suit::Honors),
            'f' => Some(Suit::Flowers),
            _ => None,
        }
    }

    const fn base(self) -> u8 {
        match self {
            Suit::Characters => 0,
            Suit::Dots => 9,
            Suit::Bamboo => 18,
            Suit::Honors => 27,
            Suit::Flowers => 34,
        }
    }

    const fn max_number(self) -> u8 {
        match self {
            Suit::Characters | Suit::Dots | Suit::Bamboo => 9,
            Suit::Honors => 7,
            Suit::Flowers => 8,
        }
    }
}

/// A tile kind: index 0–8 `1m`–`9m`, 9–17 `1p`–`9p`, 18–26 `1s`–`9s`, 27–33 `1z`–`7z`,
/// 34–41 `1f`–`8f`. Always valid: the index is private and checked on construction.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Tile(u8);

impl Tile {
    /// East wind, `1z` (东).
    pub const EAST: Tile = Tile(27);
    /// White dragon, `5z` (白).
    pub const WHITE: Tile = Tile(31);

    /// The tile with this index (0..42), or `None`.
    pub const fn from_index(index: usize) -> Option<Tile> {
        if index < KINDS {
            Some(Tile(index as u8))
        } else {
            None
        }
    }

    /// The tile `number` of `suit` (1-based), or `None` if it does not exist.
    pub const fn new(suit: Suit, number: u8) -> Option<Tile> {
        if number >= 1 && number <= suit.max_number() {
            Some(Tile(suit.base() + number - 1))
        } else {
            None
        }
    }

    /// Index 0..42.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The suit.
    pub const fn suit(self) -> Suit {
        match self.0 {
            0..=8 => Suit::Characters,
            9..=17 => Suit::Dots,
            18..=26 => Suit::Bamboo,
            27..=33 => Suit::Honors,
            _ => Suit::Flowers,
        }
    }

    /// The number within the suit, 1-based.
    pub const fn number(self) -> u8 {
        self.0 - self.suit().base() + 1
    }

    /// A flower tile `1f`–`8f` (never a dragon: see [`crate::Options::is_flower`]).
    pub const fn is_flower(self) -> bool {
        self.0 >= 34
    }

    /// A wind or dragon.
    pub const fn is_honor(self) -> bool {
        self.0 >= 27 && self.0 < 34
    }

    /// A wind, `1z`–`4z`.
    pub const fn is_wind(self) -> bool {
        self.0 >= 27 && self.0 < 31
    }

    /// A dragon, `5z`–`7z`.
    pub const fn is_dragon(self) -> bool {
        self.0 >= 31 && self.0 < 34
    }

    /// A characters, dots or bamboo tile.
    pub const fn is_suited(self) -> bool {
        self.0 < 27
    }

    /// The next tile in its suit for the `baida` wildcard (docs/rules.en.md §5): suited n → n+1 with
    /// 9 → 1; winds east → south → west → north → east; a flower or dragon → east.
    pub const fn wildcard_successor(self) -> Tile {
        match self.suit() {
            Suit::Characters | Suit::Dots | Suit::Bamboo => {
                let base = self.suit().base();
                Tile(base + (self.0 - base + 1) % 9)
            }
            Suit::Honors if self.is_wind() => Tile(27 + (self.0 - 27 + 1) % 4),
            _ => Tile::EAST,
        }
    }

    /// The physical tile count of this kind in a full set (4, or 1 for a flower).
    pub const fn copies(self) -> u8 {
        if self.is_flower() { 1 } else { 4 }
    }

    /// The kind of physical card `card` (0..144): cards `4k..4k+4` are kind `k` for the 34
    /// play kinds, cards 136..144 are the flowers. This is the card numbering of the dealing
    /// protocol.
    pub const fn of_card(card: u8) -> Option<Tile> {
        if card < 136 {
            Some(Tile(card / 4))
        } else if (card as usize) < TILE_COUNT {
            Some(Tile(34 + card - 136))
        } else {
            None
        }
    }

    /// All 42 kinds in index order.
    pub fn all() -> impl Iterator<Item = Tile> {
        (0..KINDS as u8).map(Tile)
    }

    /// The 34 non-flower kinds in index order.
    pub fn playing() -> impl Iterator<Item = Tile> {
        (0..PLAY_KINDS as u8).map(Tile)
    }
}

impl fmt::Display for Tile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.number(), self.suit().letter())
    }
}

impl fmt::Debug for Tile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// What is wrong with a tile string.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NotationError {
    /// A digit/suffix pair that names no tile, e.g. `0m`, `8z`, `9f`.
    #[error("no such tile \"{digit}{suffix}\" at character {at}: {why}")]
    NoSuchTile {
        /// The digit.
        digit: char,
        /// The suffix letter.
        suffix: char,
        /// Character offset of the digit.
        at: usize,
        /// Which numbers that suffix allows.
        why: &'static str,
    },
    /// Digits at the end with no suffix, e.g. `12`.
    #[error(
        "digits \"{digits}\" at character {at} have no suit letter (m, p, s, z or f) after them"
    )]
    MissingSuffix {
        /// The dangling digits.
        digits: String,
        /// Character offset of the first of them.
        at: usize,
    },
    /// A suffix with no digit before it, e.g. `m`.
    #[error("suit letter '{suffix}' at character {at} has no digits before it")]
    MissingDigits {
        /// The letter.
        suffix: char,
        /// Its character offset.
        at: usize,
    },
    /// A character that is not a digit, a suit letter or a space.
    #[error("unexpected character '{ch}' at character {at} (tiles are written like 123m55z or 1f)")]
    BadCharacter {
        /// The character.
        ch: char,
        /// Its offset.
        at: usize,
    },
    /// A single tile was expected.
    #[error("expected exactly one tile, found {found} in \"{input}\"")]
    NotOneTile {
        /// How many were found.
        found: usize,
        /// The input.
        input: String,
    },
}

/// Parses compact notation into tiles, in the order written.
///
/// ```
/// use mahjong_rules::{parse_tiles, format_tiles};
/// let tiles = parse_tiles("123m 55z 1f").unwrap();
/// assert_eq!(tiles.len(), 6);
/// assert_eq!(format_tiles(&tiles), "123m55z1f");
/// assert!(parse_tiles("8z").is_err());
/// ```
pub fn parse_tiles(input: &str) -> Result<Vec<Tile>, NotationError> {
    let mut out = Vec::with_capacity(input.len());
    let mut pending: Vec<(char, usize)> = Vec::new();
    for (at, ch) in input.chars().enumerate() {
        if ch.is_whitespace() {
            continue;
        }
        if ch.is_ascii_digit() {
            pending.push((ch, at));
            continue;
        }
        let Some(suit) = Suit::from_letter(ch) else {
            return Err(NotationError::BadCharacter { ch, at });
        };
        if pending.is_empty() {
            return Err(NotationError::MissingDigits { suffix: ch, at });
        }
        for (digit, dat) in pending.drain(..) {
            let n = digit as u8 - b'0';
            let tile = Tile::new(suit, n).ok_or(NotationError::NoSuchTile {
                digit,
                suffix: ch,
                at: dat,
                why: match suit {
                    Suit::Honors => {
                        "honors are 1z-7z (east, south, west, north, white, green, red)"
                    }
                    Suit::Flowers => "flowers are 1f-8f",
                    _ => "suited tiles are 1-9",
                },
            })?;
            out.push(tile);
        }
    }
    if let Some(&(_, at)) = pending.first() {
        return Err(NotationError::MissingSuffix {
            digits: pending.iter().map(|(c, _)| *c).collect(),
            at,
        });
    }
    Ok(out)
}

/// Prints tiles in compact notation, sharing a suffix between neighbours of one suit.
pub fn format_tiles(tiles: &[Tile]) -> String {
    let mut s = String::with_capacity(tiles.len() * 2);
    for (i, t) in tiles.iter().enumerate() {
        s.push((b'0' + t.number()) as char);
        if tiles.get(i + 1).is_none_or(|n| n.suit() != t.suit()) {
            s.push(t.suit().letter());
        }
    }
    s
}

impl FromStr for Tile {
    type Err = NotationError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let tiles = parse_tiles(s)?;
        match tiles.as_slice() {
            [t] => Ok(*t),
            _ => Err(NotationError::NotOneTile {
                found: tiles.len(),
                input: s.to_string(),
            }),
        }
    }
}

impl Serialize for Tile {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if s.is_human_readable() {
            s.collect_str(self)
        } else {
            s.serialize_u8(self.0)
        }
    }
}

impl<'de> Deserialize<'de> for Tile {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        if d.is_human_readable() {
            let s = String::deserialize(d)?;
            s.parse().map_err(serde::de::Error::custom)
        } else {
            let i = u8::deserialize(d)?;
            Tile::from_index(i as usize)
                .ok_or_else(|| serde::de::Error::custom(format!("tile index {i} out of range")))
        }
    }
}

/// Counts of the 34 play kinds (flowers excluded): the shape every analysis works on.
pub type Counts = [u8; PLAY_KINDS];

/// Counts of `tiles` by kind; flowers are ignored.
pub fn counts_of(tiles: &[Tile]) -> Counts {
    let mut c = [0u8; PLAY_KINDS];
    for t in tiles {
        if !t.is_flower() {
            c[t.index()] += 1;
        }
    }
    c
}

/// The tiles of `counts` in index order.
pub fn tiles_of(counts: &Counts) -> Vec<Tile> {
    let mut v = Vec::new();
    for (i, &n) in counts.iter().enumerate() {
        for _ in 0..n {
            v.push(Tile(i as u8));
        }
    }
    v
}

/// A tile literal checked at compile time: `tile!("5m")`.
#[macro_export]
macro_rules! tile {
    ($s:literal) => {{
        const T: $crate::Tile = $crate::tile::const_tile($s);
        T
    }};
}

/// Parses one tile at compile time (used by [`tile!`]); panics (at compile time) on a bad name.
#[doc(hidden)]
pub const fn const_tile(s: &str) -> Tile {
    let b = s.as_bytes();
    assert!(b.len() == 2, "a tile is a digit and a suit letter");
    let suit = match b[1] {
        b'm' => Suit::Characters,
        b'p' => Suit::Dots,
        b's' => Suit::Bamboo,
        b'z' => Suit::Honors,
        b'f' => Suit::Flowers,
        _ => panic!("bad suit letter"),
    };
    match Tile::new(suit, b[0].wrapping_sub(b'0')) {
        Some(t) => t,
        None => panic!("no such tile"),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn all_kinds_round_trip() {
        let all: Vec<Tile> = Tile::all().collect();
        let s = format_tiles(&all);
        assert_eq!(s, "123456789m123456789p123456789s1234567z12345678f");
        assert_eq!(parse_tiles(&s).unwrap(), all);
        for t in Tile::all() {
            assert_eq!(t.to_string().parse::<Tile>().unwrap(), t);
        }
    }

    #[test]
    fn bad_strings_are_named() {
        for (s, needle) in [
            ("0m", "\"0m\""),
            ("8z", "\"8z\""),
            ("9f", "\"9f\""),
            ("12", "no suit letter"),
            ("m", "no digits"),
            ("1x", "unexpected character 'x'"),
        ] {
            let e = parse_tiles(s).unwrap_err().to_string();
            assert!(e.contains(needle), "{s}: {e}");
        }
        assert!("11m".parse::<Tile>().is_err());
        assert!("".parse::<Tile>().is_err());
    }

    #[test]
    fn spaces_and_groups() {
        assert_eq!(
            format_tiles(&parse_tiles(" 1 2 3m 5 5z ").unwrap()),
            "123m55z"
        );
    }

    #[test]
    fn successor_wraps() {
        assert_eq!(tile!("9p").wildcard_successor(), tile!("1p"));
        assert_eq!(tile!("4z").wildcard_successor(), tile!("1z"));
        assert_eq!(tile!("6z").wildcard_successor(), tile!("1z"));
        assert_eq!(tile!("3f").wildcard_successor(), tile!("1z"));
        assert_eq!(tile!("3s").wildcard_successor(), tile!("4s"));
    }

    #[test]
    fn cards_map_to_full_set() {
        let mut n = [0u8; KINDS];
        for c in 0..144u8 {
            n[Tile::of_card(c).unwrap().index()] += 1;
        }
        for t in Tile::all() {
            assert_eq!(n[t.index()], t.copies());
        }
        assert!(Tile::of_card(144).is_none());
    }
}
