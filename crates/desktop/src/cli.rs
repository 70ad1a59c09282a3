//! The command line: `shanghai-mahjong [--data-dir DIR] [--lang zh|en] [--practice [PRESET]]
//! [--name NAME] [--lobby] [--peer MULTIADDR]… [--listen MULTIADDR]… [--no-mdns]
//! [--autoplay [--hands N] [--bots K]]`.

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
    /// The player's name (skips the welcome screen; remembered).
    pub name: Option<String>,
    /// Open the LAN lobby at start.
    pub lobby: bool,
    /// Peers to dial (`--peer`, repeatable).
    pub peers: Vec<String>,
    /// Addresses to listen on (`--listen`, repeatable).
    pub listen: Vec<String>,
    /// No mDNS (only `--peer` and the address field).
    pub no_mdns: bool,
    /// Sit at the first open LAN table (or open one), let the strong bot play, quit when the
    /// session is over (tests and demos).
    pub autoplay: bool,
    /// Hands of an `--autoplay` session (default 1).
    pub hands: Option<u32>,
    /// Bots at a table an `--autoplay` peer opens (0-3, default 0).
    pub bots: Option<u8>,
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
    /// Not a number in range.
    #[error("{0}: \"{1}\" is not a valid value")]
    Number(&'static str, String),
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
  --name NAME         the name the others see (skips the welcome screen; remembered)
  --lobby             open the LAN lobby at start
  --peer MULTIADDR    dial this player (repeatable), for networks without multicast
  --listen MULTIADDR  listen here (repeatable; default every IPv4 interface, a free port)
  --no-mdns           do not look for players by mDNS (only --peer and the address field)
  --autoplay          with --practice: the strong bot plays your seat for --hands hands, each
                      printed on stderr, then the app exits; otherwise
                      sit at the first open LAN table or open one, let the strong bot play,
                      print each hand on stderr and quit when the session is over
  --hands N           hands of an --autoplay session (default 1)
  --bots K            seats for bots at a table an --autoplay player opens (default 0)
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
                "--name" => {
                    let v = inline
                        .or_else(|| it.next())
                        .ok_or(ArgsError::Missing("--name"))?;
                    out.name = Some(v);
                }
                "--peer" => out.peers.push(
                    inline
                        .or_else(|| it.next())
                        .ok_or(ArgsError::Missing("--peer"))?,
                ),
                "--listen" => out.listen.push(
                    inline
                        .or_else(|| it.next())
                        .ok_or(ArgsError::Missing("--listen"))?,
                ),
                "--lobby" => out.lobby = true,
                "--no-mdns" => out.no_mdns = true,
                "--autoplay" => out.autoplay = true,
                "--hands" => {
                    let v = inline
                        .or_else(|| it.next())
                        .ok_or(ArgsError::Missing("--hands"))?;
                    out.hands = Some(
                        v.parse()
                            .ok()
                            .filter(|n| (1..=64).contains(n))
                            .ok_or(ArgsError::Number("--hands", v))?,
                    );
                }
                "--bots" => {
                    let v = inline
                        .or_else(|| it.next())
                        .ok_or(ArgsError::Missing("--bots"))?;
                    out.bots = Some(
                        v.parse()
                            .ok()
                            .filter(|n| *n <= 3)
                            .ok_or(ArgsError::Number("--bots", v))?,
                    );
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
        let a = parse("--peer /ip4/10.0.0.1/tcp/1 --peer=/ip4/10.0.0.2/tcp/2 --no-mdns --autoplay --hands 2 --bots 1 --name Ann --lobby")
            .expect("ok");
        assert_eq!(a.peers, ["/ip4/10.0.0.1/tcp/1", "/ip4/10.0.0.2/tcp/2"]);
        assert!(a.no_mdns && a.autoplay && a.lobby);
        assert_eq!(
            (a.hands, a.bots, a.name.as_deref()),
            (Some(2), Some(1), Some("Ann"))
        );
        assert_eq!(
            parse("--hands 0"),
            Err(ArgsError::Number("--hands", "0".into()))
        );
        assert_eq!(
            parse("--bots 4"),
            Err(ArgsError::Number("--bots", "4".into()))
        );
        assert_eq!(parse("--peer"), Err(ArgsError::Missing("--peer")));
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
