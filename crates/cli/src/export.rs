//! `mahjong export` and `mahjong verify`: a self-contained file of a table's signed log, and
//! its offline check (see `mahjong_store::export` for the file format and what is checked).
//!
//! - `mahjong export --data-dir DIR --table ID [--hand N] FILE`: writes the log of table ID
//!   (its 64 hex digits, or a unique prefix of at least 8) from the store in DIR, whole or
//!   through the end of hand N; FILE `-` writes to standard output. `--evidence K` writes the
//!   table's K-th evidence record (1: the first) instead.
//! - `mahjong verify FILE`: checks a log or evidence file offline. Prints what it checked and
//!   exits 0; or prints the first fault, with the seat to blame, as one line on stderr and
//!   exits 1; or, for input that is not such a file, one line on stderr and exit 2.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, anyhow, bail};
use clap::Args;
use mahjong_store::{Checked, Store, from_hex32, to_hex, verify_file};

use crate::ledger::{data_dir, open_existing};

/// Arguments of `mahjong export`.
#[derive(Args, Debug)]
pub struct ExportArgs {
    /// The player's data directory (default: the platform data directory).
    #[arg(long, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// The table id: 64 hex digits, or a unique prefix of at least 8.
    #[arg(long, value_name = "ID")]
    pub table: String,
    /// Only through the end of this hand (the hands before it are needed to check it).
    #[arg(long, value_name = "N", conflicts_with = "evidence")]
    pub hand: Option<u32>,
    /// Write the table's K-th evidence record (1: the first) instead of its log.
    #[arg(long, value_name = "K")]
    pub evidence: Option<usize>,
    /// The file to write, or - for standard output.
    pub file: PathBuf,
}

/// Arguments of `mahjong verify`.
#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// A log file from `mahjong export`, or an evidence file.
    pub file: PathBuf,
}

/// The table of `store` whose id is `text` (whole, or a unique prefix).
fn find_table(store: &Store, text: &str) -> Result<[u8; 32]> {
    if let Some(id) = from_hex32(text) {
        return Ok(id);
    }
    let prefix = text.to_ascii_lowercase();
    if prefix.len() < 8 || !prefix.bytes().all(|b| b.is_ascii_hexdigit()) {
        bail!("table id {text:?} is not 64 hex digits nor a prefix of at least 8");
    }
    let matches: Vec<[u8; 32]> = store
        .tables()?
        .into_iter()
        .map(|t| t.id)
        .filter(|id| to_hex(id).starts_with(&prefix))
        .collect();
    match matches.as_slice() {
        [id] => Ok(*id),
        [] => bail!("no table {text} in the store"),
        _ => bail!(
            "table id prefix {text} is ambiguous ({} tables)",
            matches.len()
        ),
    }
}

/// Runs `mahjong export`.
pub fn run_export(args: ExportArgs) -> Result<()> {
    let dir = data_dir(args.data_dir);
    let store = open_existing(&dir)?.ok_or_else(|| anyhow!("no store in {}", dir.display()))?;
    let table = find_table(&store, &args.table)?;
    let bytes = match args.evidence {
        Some(k) => store
            .export_evidence(&table, k.saturating_sub(1))?
            .ok_or_else(|| anyhow!("table {} has no evidence record {k}", args.table))?
            .to_bytes(),
        None => store.export(&table, args.hand)?.to_bytes(),
    };
    if args.file.as_os_str() == "-" {
        std::io::stdout()
            .write_all(&bytes)
            .context("writing standard output")?;
    } else {
        let tmp = args.file.with_extension("partial");
        std::fs::write(&tmp, &bytes).with_context(|| format!("writing {}", tmp.display()))?;
        std::fs::rename(&tmp, &args.file)
            .with_context(|| format!("writing {}", args.file.display()))?;
    }
    Ok(())
}

/// Runs `mahjong verify`: exit 0 verified, 1 a fault, 2 unreadable input.
pub fn run_verify(args: VerifyArgs) -> ExitCode {
    match verify_file(&args.file) {
        Ok(Checked::Log(check)) => {
            println!("{check}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            let line = e.to_string().replace('\n', " ");
            eprintln!("mahjong: verify {}: {line}", args.file.display());
            if e.is_unreadable() {
                ExitCode::from(2)
            } else {
                ExitCode::FAILURE
            }
        }
    }
}
