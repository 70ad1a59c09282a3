//! Rulesets: the three presets and every option of docs/rules.en.md §9.
//!
//! A [`Ruleset`] names the scoring family (`qiaoma`, `classic`, `baida`: how a hand's value is
//! computed, §6); [`Options`] holds a value for every option, and a table may change any of
//! them before its first hand. [`Options::apply_overrides`] applies a JSON object of options by
//! name (the `options` field of a settlement file), rejecting unknown names and bad values.
//! [`Options::canonical_bytes`] is the exact encoding every seat signs and hashes.

use crate::tile::Tile;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// The scoring family and default options (docs/rules.en.md, the table of presets).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ruleset {
    /// 敲麻: declare ready to win, restricted hands, lezi caps. The default.
    Qiaoma,
    /// Everyday Shanghai rules (001): optional ready, 吃三口, dice 荒番, 8-point lezi.
    Classic,
    /// 百搭: wildcard, any standard hand, self-draw only, flowers × fan.
    Baida,
}

impl Ruleset {
    /// The preset's name as written in files.
    pub const fn name(self) -> &'static str {
        match self {
            Ruleset::Qiaoma => "qiaoma",
            Ruleset::Classic => "classic",
            Ruleset::Baida => "baida",
        }
    }

    /// All presets.
    pub const ALL: [Ruleset; 3] = [Ruleset::Qiaoma, Ruleset::Classic, Ruleset::Baida];
}

impl fmt::Display for Ruleset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Ruleset {
    type Err = OptionsError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "qiaoma" => Ok(Ruleset::Qiaoma),
            "classic" => Ok(Ruleset::Classic),
            "baida" => Ok(Ruleset::Baida),
            _ => Err(OptionsError::UnknownRuleset(s.to_string())),
        }
    }
}

/// Which hands win (§5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HandsRule {
    /// Only 碰碰胡, 混一色, 清一色, 混碰, 清碰, 风一色, 风碰 (and 八花齐).
    Restricted,
    /// As `restricted`, and 大吊车 wins on its own (`classic`).
    RestrictedDadiaoche,
    /// Any standard hand (four sets and a pair).
    Standard,
}

/// What 门清 does (§5, §6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MenqingEffect {
    /// No effect.
    None,
    /// ×2 and a cap of 2 lezi (`qiaoma`).
    Double,
    /// One more flower (`baida`).
    Flower,
}

/// Which responsibility (承包 / 吃三口) table applies (§6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BindingRule {
    /// The 承包 table of 000/003.
    Qiaoma,
    /// The 吃三口 table of 001.
    ChiSanKou,
}

/// A value for every option of docs/rules.en.md §9. Field names are the option names.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Options {
    /// The scoring family.
    pub ruleset: Ruleset,
    /// Winning needs a prior 敲.
    pub must_declare_ready: bool,
    /// Which hands win.
    pub hands: HandsRule,
    /// A 百搭 indicator and wildcard.
    pub wildcard: bool,
    /// Dragons are set aside like flowers.
    pub dragons_are_flowers: bool,
    /// Wins by discard and by robbing a kong are allowed.
    pub win_on_discard: bool,
    /// 底分 (points) or 底花 (flowers).
    pub base_points: u32,
    /// Points in one 勒子, if the family has lezi.
    #[serde(with = "none_or")]
    pub lezi_points: Option<u32>,
    /// Most a seat pays per hand, in lezi.
    #[serde(with = "none_or")]
    pub table_limit_lezi: Option<u32>,
    /// The responsibility table.
    #[serde(with = "none_or")]
    pub binding: Option<BindingRule>,
    /// Dice doubles or 1-4 double the hand (开宝).
    pub kaibao: bool,
    /// Dice add to the 荒番 counter (`classic`).
    pub dice_huangfan: bool,
    /// 门清 effect.
    pub menqing: MenqingEffect,
    /// 八花齐 wins at once.
    pub eight_flowers: bool,
    /// 四百搭 wins at once.
    pub four_wildcards: bool,
    /// Stakes a leaver pays, split equally among the other three.
    pub leaver_penalty: u32,
    /// Seconds to discard.
    pub discard_seconds: u32,
    /// Seconds to answer a claim prompt.
    pub claim_seconds: u32,
    /// Seconds to press start in the lobby.
    pub start_seconds: u32,
    /// Timed-out turns in a row allowed before the next one makes the seat a leaver.
    #[serde(with = "none_or")]
    pub timeouts_before_leaver: Option<u32>,
    /// Silence before a seat counts as a leaver.
    pub disconnect_seconds: u32,
    /// 逛花园: chips per player.
    #[serde(with = "none_or")]
    pub chip_limit: Option<u64>,
    /// 换牌: after the initial flower replacement every seat may put five concealed tiles
    /// back face down (out of play) and draw five from the wall, within `start_seconds`
    /// (the readings are in [`crate::state`]'s header).
    pub swap_five: bool,
}

/// Problems with a ruleset or its options.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OptionsError {
    /// Not one of the three presets.
    #[error("unknown ruleset \"{0}\" (expected qiaoma, classic or baida)")]
    UnknownRuleset(String),
    /// An option name that does not exist.
    #[error("unknown option \"{0}\"")]
    UnknownOption(String),
    /// A value of the wrong type or out of range.
    #[error("bad value for option \"{name}\": {why}")]
    BadValue {
        /// The option.
        name: String,
        /// What is wrong.
        why: String,
    },
    /// `options` is not a JSON object.
    #[error("options must be a JSON object of option names to values")]
    NotAnObject,
}

impl Options {
    /// The preset's options.
    pub fn preset(ruleset: Ruleset) -> Options {
        let common = Options {
            ruleset,
            must_declare_ready: true,
            hands: HandsRule::Restricted,
            wildcard: false,
            dragons_are_flowers: false,
            win_on_discard: true,
            base_points: 2,
            lezi_points: Some(10),
            table_limit_lezi: Some(5),
            binding: Some(BindingRule::Qiaoma),
            kaibao: true,
            dice_huangfan: false,
            menqing: MenqingEffect::Double,
            eight_flowers: true,
            four_wildcards: false,
            leaver_penalty: 1,
            discard_seconds: 20,
            claim_seconds: 20,
            start_seconds: 15,
            timeouts_before_leaver: None,
            disconnect_seconds: 180,
            chip_limit: None,
            swap_five: false,
        };
        match ruleset {
            Ruleset::Qiaoma => common,
            Ruleset::Classic => Options {
                must_declare_ready: false,
                hands: HandsRule::RestrictedDadiaoche,
                lezi_points: Some(8),
                table_limit_lezi: None,
                binding: Some(BindingRule::ChiSanKou),
                kaibao: false,
                dice_huangfan: true,
                menqing: MenqingEffect::None,
                ..common
            },
            Ruleset::Baida => Options {
                must_declare_ready: false,
                hands: HandsRule::Standard,
                wildcard: true,
                dragons_are_flowers: true,
                win_on_discard: false,
                base_points: 1,
                lezi_points: None,
                table_limit_lezi: None,
                binding: None,
                kaibao: false,
                menqing: MenqingEffect::Flower,
                eight_flowers: false,
                four_wildcards: true,
                leaver_penalty: 60,
                timeouts_before_leaver: Some(5),
                ..common
            },
        }
    }

    /// Whether `tile` is set aside as a flower under these options (dragons in `baida`).
    pub fn is_flower(&self, tile: Tile) -> bool {
        tile.is_flower() || (self.dragons_are_flowers && tile.is_dragon())
    }

    /// How many flower tiles the set has (8, or 20 with dragons).
    pub fn flower_tiles(&self) -> usize {
        if self.dragons_are_flowers { 20 } else { 8 }
    }

    /// Whether a ready declaration (敲 / 报听) exists in this ruleset.
    pub fn ready_declaration(&self) -> bool {
        self.ruleset != Ruleset::Baida
    }

    /// Applies `{"name": value, ...}` over these options. Unknown names and bad values are
    /// errors naming the option.
    pub fn apply_overrides(&self, overrides: &serde_json::Value) -> Result<Options, OptionsError> {
        let o = self.merge_overrides(overrides)?;
        o.validate()?;
        Ok(o)
    }

    /// [`Options::apply_overrides`] without the check of combinations: each value is of its
    /// option's type, nothing more (an editor holds a combination the rules refuse while the
    /// player changes it, and says why).
    pub fn merge_overrides(&self, overrides: &serde_json::Value) -> Result<Options, OptionsError> {
        let obj = match overrides {
            serde_json::Value::Object(o) => o,
            serde_json::Value::Null => return Ok(self.clone()),
            _ => return Err(OptionsError::NotAnObject),
        };
        let mut base = match serde_json::to_value(self) {
            Ok(serde_json::Value::Object(m)) => m,
            _ => return Err(OptionsError::NotAnObject),
        };
        for (k, v) in obj {
            if k == "ruleset" {
                return Err(OptionsError::BadValue {
                    name: k.clone(),
                    why: "the ruleset is set by the file's \"ruleset\" field".into(),
                });
            }
            if !base.contains_key(k) {
                return Err(OptionsError::UnknownOption(k.clone()));
            }
            base.insert(k.clone(), v.clone());
            let probe: Result<Options, _> =
                serde_json::from_value(serde_json::Value::Object(base.clone()));
            if let Err(e) = probe {
                return Err(OptionsError::BadValue {
                    name: k.clone(),
                    why: e.to_string(),
                });
            }
        }
        serde_json::from_value(serde_json::Value::Object(base)).map_err(|e| {
            OptionsError::BadValue {
                name: "options".into(),
                why: e.to_string(),
            }
        })
    }

    /// Checks ranges and combinations that make no sense. Every option of the rules is
    /// supported, 换牌 (`swap_five`) included.
    pub fn validate(&self) -> Result<(), OptionsError> {
        let bad = |name: &str, why: &str| {
            Err(OptionsError::BadValue {
                name: name.into(),
                why: why.into(),
            })
        };
        if self.lezi_points == Some(0) {
            return bad("lezi_points", "must be at least 1");
        }
        if self.table_limit_lezi.is_some() && self.lezi_points.is_none() {
            return bad(
                "table_limit_lezi",
                "a table limit in lezi needs lezi_points",
            );
        }
        if self.four_wildcards && !self.wildcard {
            return bad("four_wildcards", "needs the wildcard option");
        }
        if self.ruleset != Ruleset::Baida && self.lezi_points.is_none() {
            return bad("lezi_points", "qiaoma and classic scoring need lezi_points");
        }
        if self.discard_seconds == 0 || self.claim_seconds == 0 {
            return bad("discard_seconds", "timers must be at least one second");
        }
        Ok(())
    }

    /// The exact bytes every seat signs and hashes for these options (postcard encoding of
    /// every field in declaration order).
    pub fn canonical_bytes(&self) -> Vec<u8> {
        postcard::to_allocvec(self).unwrap_or_default()
    }
}

impl Default for Options {
    fn default() -> Self {
        Options::preset(Ruleset::Qiaoma)
    }
}

/// Serde for `Option<T>` that writes `null` for none and reads `null` or `"none"`.
mod none_or {
    use super::*;

    pub fn serialize<S: Serializer, T: Serialize>(v: &Option<T>, s: S) -> Result<S::Ok, S::Error> {
        v.serialize(s)
    }

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Either<T> {
        Value(T),
        Word(String),
    }

    pub fn deserialize<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
        d: D,
    ) -> Result<Option<T>, D::Error> {
        if !d.is_human_readable() {
            return Option::<T>::deserialize(d);
        }
        match Option::<Either<T>>::deserialize(d)? {
            None => Ok(None),
            Some(Either::Value(v)) => Ok(Some(v)),
            Some(Either::Word(w)) if w == "none" => Ok(None),
            Some(Either::Word(w)) => Err(serde::de::Error::custom(format!(
                "expected a value, null or \"none\", found \"{w}\""
            ))),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn presets_match_the_table() {
        let q = Options::preset(Ruleset::Qiaoma);
        assert!(q.must_declare_ready && q.kaibao && q.eight_flowers);
        assert_eq!(q.table_limit_lezi, Some(5));
        let c = Options::preset(Ruleset::Classic);
        assert_eq!(c.lezi_points, Some(8));
        assert_eq!(c.binding, Some(BindingRule::ChiSanKou));
        let b = Options::preset(Ruleset::Baida);
        assert!(b.wildcard && b.dragons_are_flowers && !b.win_on_discard);
        assert_eq!(b.leaver_penalty, 60);
        for r in Ruleset::ALL {
            Options::preset(r).validate().unwrap();
        }
    }

    #[test]
    fn overrides_by_name() {
        let q = Options::preset(Ruleset::Qiaoma);
        let o = q
            .apply_overrides(&serde_json::json!({"table_limit_lezi": null, "kaibao": false}))
            .unwrap();
        assert_eq!(o.table_limit_lezi, None);
        assert!(!o.kaibao);
        let o = q
            .apply_overrides(&serde_json::json!({"table_limit_lezi": "none"}))
            .unwrap();
        assert_eq!(o.table_limit_lezi, None);
        let e = q
            .apply_overrides(&serde_json::json!({"nope": 1}))
            .unwrap_err();
        assert!(e.to_string().contains("nope"));
        let e = q
            .apply_overrides(&serde_json::json!({"kaibao": 3}))
            .unwrap_err();
        assert!(e.to_string().contains("kaibao"), "{e}");
    }

    #[test]
    fn canonical_bytes_differ_by_option() {
        let q = Options::preset(Ruleset::Qiaoma);
        let mut q2 = q.clone();
        q2.claim_seconds = 21;
        assert_ne!(q.canonical_bytes(), q2.canonical_bytes());
        let back: Options = postcard::from_bytes(&q.canonical_bytes()).unwrap();
        assert_eq!(back, q);
    }
}
