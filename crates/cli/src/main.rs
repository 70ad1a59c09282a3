//! `mahjong`: the command line of the project (no GUI dependencies).
//!
//! - `mahjong score [FILE|-]`: score one hand's settlement file (RULES.md §8).
//! - `mahjong bench win-check FILE`: time the standard win check on a file of hands.

mod bench;
mod score;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "mahjong", version, about = "Shanghai mahjong (上海麻将) on the command line: scorer, benchmarks")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Score one hand: read a settlement JSON file (or - for stdin), print the result JSON.
    #[command(long_about = score::LONG_HELP)]
    Score {
        /// The settlement file, or - (the default) for standard input.
        #[arg(default_value = "-")]
        file: String,
    },
    /// Benchmarks.
    #[command(subcommand)]
    Bench(bench::BenchCommand),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Score { file } => score::run(&file),
        Command::Bench(b) => bench::run(b),
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
