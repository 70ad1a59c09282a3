//! `mahjong`: the command line of the project (no GUI dependencies).
//!
//! - `mahjong score [FILE|-]`: score one hand's settlement file (docs/rules.en.md §8).
//! - `mahjong bench win-check FILE`: time the standard win check on a file of hands.
//! - `mahjong arena`: computer players against each other; `--duplicate` measures one level
//!   against another with the deal's luck cancelled out (`duplicate.rs`, docs/bots.md).
//! - `mahjong solo`: play in the terminal against three computer players.
//! - `mahjong ledger`, `mahjong export`, `mahjong verify`: the ledger and signed logs of the
//!   tables played (`ledger.rs`, `export.rs`).
//! - `mahjong contacts`: the players sat with, by key, and their fingerprints.
//! - `mahjong play`: sit at a table on the LAN (mDNS or `--peer`) and play a session.
//! - `mahjong relay`: run the relay that friends in different homes meet through
//!   (docs/relay.md).

mod arena;
mod bench;
mod contacts;
mod duplicate;
mod export;
mod flags;
mod ledger;
mod lines;
mod play;
mod relay;
mod score;
mod solo;
mod stats;
mod watch;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "mahjong",
    version,
    about = "Shanghai mahjong (上海麻将) on the command line: scorer, bots, benchmarks, a terminal game"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Score one hand: read a settlement JSON file (or - for stdin), print the result JSON.
    #[command(long_about = score::long_help())]
    Score(score::ScoreArgs),
    /// Benchmarks.
    #[command(subcommand)]
    Bench(bench::BenchCommand),
    /// Computer players against each other: per-position win rate, deal-in rate and points;
    /// --duplicate: one level against three of another, every wall four times (--hands = walls).
    Arena(arena::ArenaArgs),
    /// Play in the terminal against three computer players.
    Solo(solo::SoloArgs),
    /// Sit at a table on the LAN and play: `--bot` lets the master bot play this seat.
    Play(play::PlayArgs),
    /// Watch a table on the LAN (or through a relay with its code) without a seat: every
    /// public move and each hand's end, checked as a seat checks them; exits 0 at the end.
    Watch(watch::WatchArgs),
    /// Run a relay for friends in different homes (circuit relay v2, rendezvous; sees only
    /// encrypted bytes): prints its addresses, stops on SIGINT/SIGTERM.
    Relay(relay::RelayArgs),
    /// The ledger of finished hands in the data directory.
    Ledger(ledger::LedgerArgs),
    /// The players sat with, by key: fingerprints, names, tables together; --nickname.
    Contacts(contacts::ContactsArgs),
    /// Every friend's hands, win, self-draw and deal-in rates, balance and rating; practice apart.
    Stats(stats::StatsArgs),
    /// Write a self-contained file of a table's signed log.
    Export(export::ExportArgs),
    /// Check a log or evidence file offline (exit 1: a fault, 2: unreadable input).
    Verify(export::VerifyArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Score(a) => score::run(&a),
        Command::Bench(b) => bench::run(b),
        Command::Arena(a) => arena::run(a),
        Command::Solo(a) => solo::run(a),
        Command::Play(a) => play::run(a),
        Command::Watch(a) => watch::run(a),
        Command::Relay(a) => relay::run(a),
        Command::Ledger(a) => ledger::run(a),
        Command::Contacts(a) => contacts::run(a),
        Command::Stats(a) => stats::run(a),
        Command::Export(a) => export::run_export(a),
        Command::Verify(a) => return export::run_verify(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let msg = format!("{e:#}").replace('\n', " ");
            eprintln!("mahjong: {msg}");
            ExitCode::FAILURE
        }
    }
}
