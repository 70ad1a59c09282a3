//! Every option of [`Options`] described once: its name (the field and the settlement file's
//! key), what kind of value it takes and the values a player may choose, which presets it
//! means something under, and whether it is a timer or only matters at a networked table.
//! The app's option editor and `mahjong score --help` read it; a value is read and written by
//! name through [`Options`]' own serde names, so nothing here mirrors the struct by hand (a
//! test checks the catalogue lists every field exactly once).
//!
//! The explanation of an option is the player's language's business: the key is its name.

use crate::options::{Options, OptionsError, Ruleset};

/// What values an option takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionKind {
    /// On or off.
    Bool,
    /// A whole number from `min` to `max`; with `none`, also none (`null`, written `"none"`).
    Number {
        /// The least.
        min: u64,
        /// The most.
        max: u64,
        /// Whether none is a value.
        none: bool,
    },
    /// One of the names (as written in files); `"none"` stands for none where it is one.
    Choice(&'static [&'static str]),
}

/// A value of an option.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionValue {
    /// On or off.
    Bool(bool),
    /// A number, or none.
    Number(Option<u64>),
    /// A choice, by its name.
    Choice(String),
}

/// One option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OptionSpec {
    /// The field's name, as written in settlement files and docs/rules.en.md §9.
    pub name: &'static str,
    /// Its values.
    pub kind: OptionKind,
    /// The presets it means something under (elsewhere it keeps the preset's value).
    pub presets: &'static [Ruleset],
    /// A timer (shown beside the stake and the length).
    pub timer: bool,
    /// Matters only at a networked table (the start countdown, the silence limit).
    pub network: bool,
}

const ALL: &[Ruleset] = &Ruleset::ALL;
const LEZI: &[Ruleset] = &[Ruleset::Qiaoma, Ruleset::Classic];
const BAIDA: &[Ruleset] = &[Ruleset::Baida];

const fn spec(name: &'static str, kind: OptionKind, presets: &'static [Ruleset]) -> OptionSpec {
    OptionSpec {
        name,
        kind,
        presets,
        timer: false,
        network: false,
    }
}

const fn num(min: u64, max: u64, none: bool) -> OptionKind {
    OptionKind::Number { min, max, none }
}

const fn timer(name: &'static str, kind: OptionKind, network: bool) -> OptionSpec {
    OptionSpec {
        name,
        kind,
        presets: ALL,
        timer: true,
        network,
    }
}

/// Every option of [`Options`] (all but `ruleset`, which the preset is), in the order an
/// editor shows them: the timers, then the rules of play, scoring and the table's money.
pub const OPTIONS: [OptionSpec; 22] = [
    timer("discard_seconds", num(3, 300, false), false),
    timer("claim_seconds", num(3, 300, false), false),
    timer("timeouts_before_leaver", num(1, 50, true), false),
    timer("start_seconds", num(3, 300, false), true),
    timer("disconnect_seconds", num(10, 3600, false), true),
    spec("must_declare_ready", OptionKind::Bool, LEZI),
    spec(
        "hands",
        OptionKind::Choice(&["restricted", "restricted_dadiaoche", "standard"]),
        ALL,
    ),
    spec("win_on_discard", OptionKind::Bool, ALL),
    spec("wildcard", OptionKind::Bool, BAIDA),
    spec("dragons_are_flowers", OptionKind::Bool, BAIDA),
    spec("eight_flowers", OptionKind::Bool, ALL),
    spec("four_wildcards", OptionKind::Bool, BAIDA),
    spec("swap_five", OptionKind::Bool, ALL),
    spec("base_points", num(1, 20, false), ALL),
    spec("lezi_points", num(1, 100, true), LEZI),
    spec("table_limit_lezi", num(1, 50, true), LEZI),
    spec("kaibao", OptionKind::Bool, ALL),
    spec("dice_huangfan", OptionKind::Bool, ALL),
    spec(
        "menqing",
        OptionKind::Choice(&["none", "double", "flower"]),
        ALL,
    ),
    spec(
        "binding",
        OptionKind::Choice(&["none", "qiaoma", "chi_san_kou"]),
        ALL,
    ),
    spec("leaver_penalty", num(0, 500, false), ALL),
    spec("chip_limit", num(10, 100_000, true), ALL),
];

/// The option of that name.
pub fn option(name: &str) -> Option<&'static OptionSpec> {
    OPTIONS.iter().find(|o| o.name == name)
}

impl OptionSpec {
    /// Whether the option means something under `preset`.
    pub fn applies(&self, preset: Ruleset) -> bool {
        self.presets.contains(&preset)
    }

    /// Its value in `options`.
    pub fn get(&self, options: &Options) -> OptionValue {
        let value = serde_json::to_value(options)
            .ok()
            .and_then(|v| v.get(self.name).cloned())
            .unwrap_or(serde_json::Value::Null);
        match self.kind {
            OptionKind::Bool => OptionValue::Bool(value.as_bool().unwrap_or(false)),
            OptionKind::Number { .. } => OptionValue::Number(value.as_u64()),
            OptionKind::Choice(_) => {
                OptionValue::Choice(value.as_str().unwrap_or("none").to_string())
            }
        }
    }

    /// Its value in `preset`'s options.
    pub fn default_for(&self, preset: Ruleset) -> OptionValue {
        self.get(&Options::preset(preset))
    }

    /// `options` with this option set to `value`, checked: a value of another kind, out of
    /// the range or not among the choices is refused naming the option, and so is a
    /// combination [`Options::validate`] refuses.
    pub fn set(&self, options: &Options, value: &OptionValue) -> Result<Options, OptionsError> {
        let o = self.put(options, value)?;
        o.validate()?;
        Ok(o)
    }

    /// [`OptionSpec::set`] without the check of combinations (an editor shows a combination
    /// the rules refuse, and why, while the player changes it).
    pub fn put(&self, options: &Options, value: &OptionValue) -> Result<Options, OptionsError> {
        let bad = |why: String| OptionsError::BadValue {
            name: self.name.into(),
            why,
        };
        let json = match (self.kind, value) {
            (OptionKind::Bool, OptionValue::Bool(b)) => serde_json::Value::Bool(*b),
            (OptionKind::Number { min, max, none }, OptionValue::Number(n)) => match n {
                None if none => serde_json::Value::Null,
                None => return Err(bad("needs a number".into())),
                Some(n) if *n < min || *n > max => {
                    return Err(bad(format!("{n} is outside {min} to {max}")));
                }
                Some(n) => serde_json::Value::from(*n),
            },
            (OptionKind::Choice(choices), OptionValue::Choice(c)) => {
                if !choices.contains(&c.as_str()) {
                    return Err(bad(format!("\"{c}\" is not one of {}", choices.join(", "))));
                }
                serde_json::Value::String(c.clone())
            }
            (kind, v) => return Err(bad(format!("{v:?} is not a value of {kind:?}"))),
        };
        let mut change = serde_json::Map::new();
        change.insert(self.name.into(), json);
        options.merge_overrides(&serde_json::Value::Object(change))
    }

    /// One line for a command's help: the name, its values and each preset's default.
    pub fn help_line(&self) -> String {
        let values = match self.kind {
            OptionKind::Bool => "true|false".to_string(),
            OptionKind::Number { min, max, none } => {
                format!("{min}..{max}{}", if none { "|none" } else { "" })
            }
            OptionKind::Choice(choices) => choices.join("|"),
        };
        let defaults: Vec<String> = Ruleset::ALL
            .iter()
            .filter(|p| self.applies(**p))
            .map(|p| format!("{p} {}", self.default_for(*p)))
            .collect();
        format!("{:<24} {values:<36} {}", self.name, defaults.join(", "))
    }
}

impl std::fmt::Display for OptionValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OptionValue::Bool(b) => write!(f, "{b}"),
            OptionValue::Number(Some(n)) => write!(f, "{n}"),
            OptionValue::Number(None) => f.write_str("none"),
            OptionValue::Choice(c) => f.write_str(c),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_catalogue_lists_every_field_once() {
        let serde_json::Value::Object(fields) =
            serde_json::to_value(Options::preset(Ruleset::Qiaoma)).unwrap()
        else {
            panic!("an object");
        };
        let mut names: Vec<&str> = OPTIONS.iter().map(|o| o.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), OPTIONS.len(), "a name twice");
        let mut want: Vec<&str> = fields
            .keys()
            .map(String::as_str)
            .filter(|k| *k != "ruleset")
            .collect();
        want.sort_unstable();
        assert_eq!(names, want);
    }

    #[test]
    fn every_preset_default_is_a_value_the_catalogue_allows_and_sets_back() {
        for preset in Ruleset::ALL {
            let o = Options::preset(preset);
            for spec in &OPTIONS {
                let v = spec.get(&o);
                let back = spec
                    .set(&o, &v)
                    .unwrap_or_else(|e| panic!("{}: {e}", spec.name));
                assert_eq!(back, o, "{} under {preset}", spec.name);
            }
        }
    }

    #[test]
    fn set_changes_one_option_and_refuses_what_it_does_not_allow() {
        let o = Options::preset(Ruleset::Qiaoma);
        let d = option("discard_seconds").unwrap();
        let o2 = d.set(&o, &OptionValue::Number(Some(45))).unwrap();
        assert_eq!(o2.discard_seconds, 45);
        assert_eq!(
            Options {
                discard_seconds: 20,
                ..o2.clone()
            },
            o
        );
        assert!(d.set(&o, &OptionValue::Number(Some(1))).is_err());
        assert!(d.set(&o, &OptionValue::Number(None)).is_err());
        assert!(d.set(&o, &OptionValue::Bool(true)).is_err());
        let b = option("binding").unwrap();
        let none = b.set(&o, &OptionValue::Choice("none".into())).unwrap();
        assert_eq!(none.binding, None);
        assert_eq!(b.get(&none), OptionValue::Choice("none".into()));
        assert!(b.set(&o, &OptionValue::Choice("other".into())).is_err());
        // A combination the rules refuse is refused here too.
        let l = option("lezi_points").unwrap();
        let err = l.set(&o, &OptionValue::Number(None)).unwrap_err();
        assert!(err.to_string().contains("lezi_points"), "{err}");
        assert!(option("ruleset").is_none());
        assert!(option("nonsense").is_none());
    }

    #[test]
    fn a_help_line_names_the_values_and_the_defaults() {
        let line = option("lezi_points").unwrap().help_line();
        assert!(line.contains("1..100|none"), "{line}");
        assert!(line.contains("qiaoma 10, classic 8"), "{line}");
        assert!(!line.contains("baida"), "{line}");
    }
}
