//! The command line: `shanghai-mahjong [--data-dir DIR] [--lang zh|en] [--practice [PRESET]]
//! [--name NAME] [--lobby] [--peer MULTIADDR]… [--listen MULTIADDR]… [--no-mdns]
//! [--autoplay [--hands N] [--bots K]]`, parsed by clap (as the `mahjong` command line is).
//!
//! `--help` prints every flag explained; a flag that cannot be followed is one `error:` line
//! naming it (with clap's hint to `--help`) and exit status 2 (`main.rs`).

use std::path::PathBuf;

use clap::Parser;
use mahjong_rules::Ruleset;

use crate::i18n::Lang;

/// What the command line asks for.
#[derive(Clone, Debug, Default, PartialEq, Eq, Parser)]
#[command(
    name = "shanghai-mahjong",
    about = "Shanghai mahjong (上海麻将) for friends on one LAN: practice against three bots, \
             play at a LAN table, every hand explained, in 中文 and English",
    // A flag given twice: the last one counts (`--peer` and `--listen` still add up).
    args_override_self = true
)]
pub struct Args {
    /// Keep settings, tables and the ledger in DIR (default: the platform's data directory).
    #[arg(long, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// The language, zh (中文) or en (remembered).
    #[arg(long, value_name = "zh|en")]
    pub lang: Option<Lang>,
    /// Go straight to a practice table against three bots: PRESET qiaoma (the default),
    /// classic or baida.
    #[arg(
        long,
        value_name = "PRESET",
        num_args = 0..=1,
        default_missing_value = "qiaoma"
    )]
    pub practice: Option<Ruleset>,
    /// The name the others see (skips the welcome screen; remembered).
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// Open the LAN lobby at start.
    #[arg(long)]
    pub lobby: bool,
    /// Dial this player (repeatable), for networks without multicast.
    #[arg(long = "peer", value_name = "MULTIADDR")]
    pub peers: Vec<String>,
    /// Listen here (repeatable; default every IPv4 interface, a free port).
    #[arg(long, value_name = "MULTIADDR")]
    pub listen: Vec<String>,
    /// Do not look for players by mDNS (only --peer and the address field).
    #[arg(long)]
    pub no_mdns: bool,
    /// The master bot plays your seat for --hands hands, each printed on stderr, then the app
    /// exits (tests and demos).
    ///
    /// With --practice: at the practice table; the exit status is 1 if a hand was not signed
    /// by all four or the table stopped. Otherwise: at the first open LAN table, or one this
    /// player opens (with --bots bots), until the session is over.
    #[arg(long)]
    pub autoplay: bool,
    /// Hands of an --autoplay session, 1 to 64 (default 1).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=64))]
    pub hands: Option<u32>,
    /// Seats for bots at a table an --autoplay player opens, 0 to 3 (default 0).
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u8).range(0..=3))]
    pub bots: Option<u8>,
}

#[cfg(test)]
mod tests {
    use clap::error::ErrorKind;

    use super::*;

    fn parse(s: &str) -> Result<Args, clap::Error> {
        Args::try_parse_from(std::iter::once("shanghai-mahjong").chain(s.split_whitespace()))
    }

    /// The error's first line, as the player sees it.
    fn error(s: &str) -> (ErrorKind, String) {
        let e = parse(s).expect_err(s);
        let text = e.render().to_string();
        (
            e.kind(),
            text.lines().next().unwrap_or_default().to_string(),
        )
    }

    #[test]
    fn flags_parse() {
        assert_eq!(parse("").expect("ok"), Args::default());
        let a = parse("--data-dir /tmp/x --lang en --practice baida").expect("ok");
        assert_eq!(a.data_dir, Some(PathBuf::from("/tmp/x")));
        assert_eq!(a.lang, Some(Lang::En));
        assert_eq!(a.practice, Some(Ruleset::Baida));
        assert_eq!(
            parse("--practice").expect("ok").practice,
            Some(Ruleset::Qiaoma)
        );
        let a = parse("--practice --lang zh").expect("ok");
        assert_eq!(
            (a.practice, a.lang),
            (Some(Ruleset::Qiaoma), Some(Lang::Zh))
        );
        assert_eq!(
            parse("--practice=classic").expect("ok").practice,
            Some(Ruleset::Classic)
        );
        assert_eq!(parse("--lang=en").expect("ok").lang, Some(Lang::En));
        assert_eq!(parse("--lang 中文").expect("ok").lang, Some(Lang::Zh));
        let a = parse("--peer /ip4/10.0.0.1/tcp/1 --peer=/ip4/10.0.0.2/tcp/2 --no-mdns --autoplay --hands 2 --bots 1 --name Ann --lobby")
            .expect("ok");
        assert_eq!(a.peers, ["/ip4/10.0.0.1/tcp/1", "/ip4/10.0.0.2/tcp/2"]);
        assert!(a.no_mdns && a.autoplay && a.lobby);
        assert_eq!(
            (a.hands, a.bots, a.name.as_deref()),
            (Some(2), Some(1), Some("Ann"))
        );
        let a = parse("--listen /ip4/0.0.0.0/tcp/4001 --listen /ip4/0.0.0.0/udp/4001/quic-v1")
            .expect("ok");
        assert_eq!(
            a.listen,
            ["/ip4/0.0.0.0/tcp/4001", "/ip4/0.0.0.0/udp/4001/quic-v1"]
        );
        assert_eq!(
            (
                parse("--hands 64").expect("ok").hands,
                parse("--bots 0").expect("ok").bots
            ),
            (Some(64), Some(0))
        );
        // A flag given twice: the last one counts.
        let a = parse("--lang zh --lang en --lobby --lobby").expect("ok");
        assert_eq!((a.lang, a.lobby), (Some(Lang::En), true));
    }

    #[test]
    fn bad_arguments_are_named() {
        for (args, kind, says) in [
            ("--hands 0", ErrorKind::ValueValidation, "'--hands <N>'"),
            ("--hands 65", ErrorKind::ValueValidation, "'--hands <N>'"),
            ("--hands two", ErrorKind::ValueValidation, "'--hands <N>'"),
            ("--bots 4", ErrorKind::ValueValidation, "'--bots <K>'"),
            ("--bots 9", ErrorKind::ValueValidation, "'--bots <K>'"),
            (
                "--lang fr",
                ErrorKind::ValueValidation,
                "unknown language \"fr\"",
            ),
            (
                "--practice nope",
                ErrorKind::ValueValidation,
                "'--practice [<PRESET>]'",
            ),
            (
                "--practice mahjong",
                ErrorKind::ValueValidation,
                "qiaoma, classic or baida",
            ),
            ("--peer", ErrorKind::InvalidValue, "'--peer <MULTIADDR>'"),
            ("--lang", ErrorKind::InvalidValue, "'--lang <zh|en>'"),
            ("--data-dir", ErrorKind::InvalidValue, "'--data-dir <DIR>'"),
            ("--fast", ErrorKind::UnknownArgument, "'--fast'"),
            ("table", ErrorKind::UnknownArgument, "'table'"),
        ] {
            let (k, line) = error(args);
            assert_eq!(k, kind, "{args}: {line}");
            assert!(line.starts_with("error: "), "{args}: {line}");
            assert!(line.contains(says), "{args}: {line}");
        }
        // The value given is named too.
        assert!(error("--lang fr").1.contains("'--lang <zh|en>'"));
        assert!(error("--bots 9").1.contains("'9'"));
    }

    #[test]
    fn help_explains_every_flag() {
        let e = parse("--help").expect_err("help");
        assert_eq!(e.kind(), ErrorKind::DisplayHelp);
        assert_eq!(e.exit_code(), 0);
        let help = e.render().to_string();
        for flag in [
            "--data-dir <DIR>",
            "--lang <zh|en>",
            "--practice [<PRESET>]",
            "--name <NAME>",
            "--lobby",
            "--peer <MULTIADDR>",
            "--listen <MULTIADDR>",
            "--no-mdns",
            "--autoplay",
            "--hands <N>",
            "--bots <K>",
            "-h, --help",
        ] {
            assert!(help.contains(flag), "{flag} in\n{help}");
        }
        assert_eq!(
            parse("-h").expect_err("help").kind(),
            ErrorKind::DisplayHelp
        );
        // Usage errors are exit status 2.
        assert_eq!(parse("--bots 9").expect_err("9").exit_code(), 2);
    }
}
