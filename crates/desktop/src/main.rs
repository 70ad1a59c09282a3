//! `shanghai-mahjong`: the desktop app. See the library's documentation for what it does.

use std::process::ExitCode;

use shanghai_mahjong::cli::{Args, USAGE};

fn main() -> ExitCode {
    let args = match Args::parse(std::env::args().skip(1)) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("shanghai-mahjong: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    if args.help {
        print!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    match shanghai_mahjong::run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("shanghai-mahjong: {e}");
            ExitCode::FAILURE
        }
    }
}
