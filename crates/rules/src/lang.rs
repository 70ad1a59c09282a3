//! The languages of everything shown to a player: one type for the rules' explanations, the
//! terminal and the app.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// A display language.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    /// 中文 (the app's default).
    #[default]
    Zh,
    /// English.
    En,
}

/// A language code that is not `zh` or `en`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown language \"{0}\" (expected zh or en)")]
pub struct UnknownLang(pub String);

impl FromStr for Lang {
    type Err = UnknownLang;
    fn from_str(s: &str) -> Result<Lang, UnknownLang> {
        match s.trim().to_ascii_lowercase().as_str() {
            "zh" | "zh-cn" | "cn" | "中文" => Ok(Lang::Zh),
            "en" | "english" => Ok(Lang::En),
            other => Err(UnknownLang(other.to_string())),
        }
    }
}

impl fmt::Display for Lang {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Lang::Zh => "zh",
            Lang::En => "en",
        })
    }
}
