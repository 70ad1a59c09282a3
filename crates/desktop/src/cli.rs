//! The command line: `shanghai-mahjong [--data-dir DIR] [--lang zh|en] [--practice [PRESET]]`.

use std::path::PathBuf;

use mahjong_rules::Ruleset;

use crate::i18n::Lang;

/// What the command line asks for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Args {
    /// Where settings live (default: the platform's data dir).
    pub data_dir: Option<PathBuf>,
    /// The language for this run (and remembered).
    pub lang: Option<Lang>,
    /// Go straight to a practice table with this preset.
    pub practice: Option<Ruleset>,
    /// `--help` was given.
    pub help: bool,
}

/// A command line that cannot be followed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ArgsError {
    /// A flag that needs a value came last.
    #[error("{0} needs a value")]
    Missing(&'static str),
    /// Not a language.
    #[error("--lang: {0}")]
    Lang(#[from] crate::i18n::UnknownLang),
    /// Not a preset.
    #[error("--practice: unknown preset \"{0}\" (expected qiaoma, classic or baida)")]
    Preset(String),
    /// Anything else.
    #[error("unknown argument \"{0}\" (see --help)")]
    Unknown(String),
}

/// The usage text.
pub const USAGE: &str = "\
usage: shanghai-mahjong [--data-dir DIR] [--lang zh|en] [--practice [qiaoma|classic|baida]]

  --data-dir DIR      keep settings in DIR (default: the platform's data directory)
  --lang zh|en        the language (remembered)
  --practice [PRESET] go straight to a practice table against three bots (default qiaoma)
";

impl Args {
    /// Parses the arguments after the program name.
    pub fn parse<I: IntoIterator<Item = String>>(args: I) -> Result<Args, ArgsError> {
        let mut out = Args::default();
        let mut it = args.into_iter().peekable();
        while let Some(a) = it.next() {
            let (flag, inline) = match a.split_once('=') {
                Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
                _ => (a.clone(), None),
            };
            match flag.as_str() {
                "--data-dir" => {
                    let v = inline
                        .or_else(|| it.next())
                        .ok_or(ArgsError::Missing("--data-dir"))?;
                    out.data_dir = Some(PathBuf::from(v));
                }
                "--lang" => {
                    let v = inline
                        .or_else(|| it.next())
                        .ok_or(ArgsError::Missing("--lang"))?;
                    out.lang = Some(v.parse()?);
                }
                "--practice" => {
                    let v = inline.or_else(|| it.next_if(|n| !n.starts_with("--")));
                    out.practice = Some(match v {
                        None => Ruleset::Qiaoma,
                        Some(p) => p.parse().map_err(|_| ArgsError::Preset(p))?,
                    });
                }
                "-h" | "--help" => out.help = true,
                _ => return Err(ArgsError::Unknown(a)),
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Args, ArgsError> {
        Args::parse(s.split_whitespace().map(String::from))
    }

    #[test]
    fn flags_parse() {
        let a = parse("--data-dir /tmp/x --lang en --practice baida").expect("ok");
        assert_eq!(a.data_dir, Some(PathBuf::from("/tmp/x")));
        assert_eq!(a.lang, Some(Lang::En));
        assert_eq!(a.practice, Some(Ruleset::Baida));
        assert_eq!(
            parse("--practice").expect("ok").practice,
            Some(Ruleset::Qiaoma)
        );
        assert_eq!(
            parse("--practice --lang zh").expect("ok").practice,
            Some(Ruleset::Qiaoma)
        );
        assert_eq!(parse("--lang=en").expect("ok").lang, Some(Lang::En));
    }

    #[test]
    fn bad_arguments_are_named() {
        assert_eq!(parse("--lang"), Err(ArgsError::Missing("--lang")));
        assert_eq!(
            parse("--practice mahjong"),
            Err(ArgsError::Preset("mahjong".into()))
        );
        assert!(
            parse("--lang fr")
                .expect_err("fr")
                .to_string()
                .contains("fr")
        );
        assert_eq!(parse("--fast"), Err(ArgsError::Unknown("--fast".into())));
    }
}
