//! The smallest shared words of the rules: a seat, an amount of coins, how a hand was won.
//! Below both the scoring and its explanation (which name them), so neither depends on the
//! other for them.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// A seat number, 0–3 in turn order.
pub type Seat = u8;

/// An amount of coins, held in hundredths so that splits stay exact.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Money(pub i64);

impl Money {
    /// Zero coins.
    pub const ZERO: Money = Money(0);

    /// Whole coins.
    pub const fn coins(n: i64) -> Money {
        Money(n * 100)
    }

    /// From a decimal number of coins (at most two decimals are kept, rounding to nearest).
    pub fn from_f64(x: f64) -> Option<Money> {
        if !x.is_finite() || x.abs() > 1e13 {
            return None;
        }
        Some(Money((x * 100.0).round() as i64))
    }

    /// As a decimal number of coins.
    pub fn as_f64(self) -> f64 {
        self.0 as f64 / 100.0
    }

    /// `points` × this stake.
    pub fn times(self, points: i64) -> Money {
        Money(self.0.saturating_mul(points))
    }
}

impl fmt::Display for Money {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 % 100 == 0 {
            write!(f, "{}", self.0 / 100)
        } else {
            let sign = if self.0 < 0 { "-" } else { "" };
            write!(f, "{sign}{}.{:02}", self.0.abs() / 100, self.0.abs() % 100)
        }
    }
}

impl Serialize for Money {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if !s.is_human_readable() {
            return s.serialize_i64(self.0);
        }
        if self.0 % 100 == 0 {
            s.serialize_i64(self.0 / 100)
        } else {
            s.serialize_f64(self.as_f64())
        }
    }
}

impl<'de> Deserialize<'de> for Money {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        if !d.is_human_readable() {
            return Ok(Money(i64::deserialize(d)?));
        }
        let x = f64::deserialize(d)?;
        Money::from_f64(x).ok_or_else(|| serde::de::Error::custom("amount out of range"))
    }
}

/// How a hand was won (§8 `kind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WinKind {
    /// 自摸: the winner drew the tile.
    SelfDraw,
    /// 点炮: won on another seat's discard.
    Discard,
    /// 抢杠: won on the tile another seat added to its pung.
    RobKong,
    /// 八花齐: all eight flowers.
    EightFlowers,
    /// 四百搭: all four wildcards.
    FourWildcards,
}

impl WinKind {
    /// Every way to win.
    pub const ALL: [WinKind; 5] = [
        WinKind::SelfDraw,
        WinKind::Discard,
        WinKind::RobKong,
        WinKind::EightFlowers,
        WinKind::FourWildcards,
    ];

    /// The name as written in settlement files (`self_draw`, `discard`, …): the one place
    /// that names a way to win for files, ids and messages.
    pub const fn name(self) -> &'static str {
        match self {
            WinKind::SelfDraw => "self_draw",
            WinKind::Discard => "discard",
            WinKind::RobKong => "rob_kong",
            WinKind::EightFlowers => "eight_flowers",
            WinKind::FourWildcards => "four_wildcards",
        }
    }

    /// Paid by all three others (self-draw, eight flowers, four wildcards).
    pub const fn paid_by_all(self) -> bool {
        matches!(
            self,
            WinKind::SelfDraw | WinKind::EightFlowers | WinKind::FourWildcards
        )
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_way_to_win_is_named_as_files_write_it() {
        for k in WinKind::ALL {
            let json = serde_json::to_value(k).unwrap();
            assert_eq!(json.as_str(), Some(k.name()));
        }
    }
}
