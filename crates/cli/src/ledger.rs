//! `mahjong ledger`: the player's ledger of finished hands, from the store in the data
//! directory.
//!
//! `--json`: one JSON object per line per finished hand (`table`, `hand_id`, `hand`,
//! `ruleset`, `stake`, `payments` in coins, `signatures` as hex, for an aborted hand its three
//! votes and `aborted_by`; see `mahjong_store::LedgerRow::to_json`), with the seats' `names`. Without it: per table, each
//! hand's payments with each seat's running total, then every player's balance over all
//! tables and level (the rules' level table, 贫民 … 富可敌国).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::Args;
use mahjong_rules::explain_text::{signed, wrap_words};
use mahjong_store::{DB_FILE, History, Store, TableInfo, level, to_hex};

use crate::lines::{self, People, cell};

/// Arguments of `mahjong ledger`.
#[derive(Args, Debug)]
pub struct LedgerArgs {
    /// The player's data directory (default: the platform data directory).
    #[arg(long, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// One JSON object per line per finished hand.
    #[arg(long)]
    pub json: bool,
}

/// The data directory argument or the platform default.
pub fn data_dir(arg: Option<PathBuf>) -> PathBuf {
    arg.unwrap_or_else(mahjong_store::default_data_dir)
}

/// Opens the store of `dir` without creating anything: `None` when it has none.
pub fn open_existing(dir: &Path) -> Result<Option<Store>> {
    let path = dir.join(DB_FILE);
    if !path.is_file() {
        return Ok(None);
    }
    Store::open_file(&path)
        .map(Some)
        .with_context(|| format!("opening the store in {}", dir.display()))
}

/// Runs `mahjong ledger`.
pub fn run(args: LedgerArgs) -> Result<()> {
    let dir = data_dir(args.data_dir);
    let Some(store) = open_existing(&dir)? else {
        if !args.json {
            println!("no finished hands: no store in {}", dir.display());
        }
        return Ok(());
    };
    if args.json {
        let rows = store.ledger().context("reading the ledger")?;
        let tables: BTreeMap<[u8; 32], TableInfo> = store
            .tables()
            .context("reading the tables")?
            .into_iter()
            .map(|t| (t.id, t))
            .collect();
        let mut out = String::new();
        for row in &rows {
            let mut json = row.to_json();
            if let (Some(t), Some(map)) = (tables.get(&row.table), json.as_object_mut()) {
                // Cleaned (no controls, escapes or bidi overrides): serde_json would
                // leave U+202E and C1 controls raw.
                let names = t.names.clone().map(|n| mahjong_store::clean_name(&n));
                map.insert("names".into(), serde_json::json!(names));
            }
            writeln!(out, "{json}")?;
        }
        print!("{out}");
        return Ok(());
    }
    let history = store.history().context("reading the history")?;
    print!("{}", render(&history, &dir));
    Ok(())
}

/// The readable ledger, within 80 columns: per table its hands (each seat's payment and
/// running total, then what happened, players named by wind and name), then every player's
/// balance over all tables and level ([`Store::history`], the same history the app shows:
/// a friend is one line by roster key, a practice bot one line by its name).
fn render(history: &History, dir: &Path) -> String {
    let mut out = String::new();
    if history.tables.is_empty() {
        let _ = writeln!(out, "no finished hands in {}", dir.display());
        return out;
    }
    const W: usize = 16;
    for table in &history.tables {
        // Cleaned (no controls, escapes or bidi overrides).
        let names = table.names.clone().map(|n| mahjong_store::clean_name(&n));
        let people = People::from_names(&names);
        let _ = writeln!(
            out,
            "\ntable {} ({}, stake {})",
            &to_hex(&table.id)[..16],
            table.ruleset.name(),
            table.stake
        );
        let _ = write!(out, "{:>4}  ", "hand");
        for name in &names {
            let _ = write!(out, "{}", cell(name, W));
        }
        let _ = writeln!(out);
        for hand in &table.hands {
            let _ = write!(out, "{:>4}  ", hand.hand);
            for seat in 0..4 {
                let text = format!(
                    "{} ({})",
                    signed(hand.payments[seat]),
                    signed(hand.running[seat])
                );
                let _ = write!(out, "{}", cell(&text, W));
            }
            let _ = writeln!(out);
            let what = people.outcome(&hand.result);
            for line in wrap_words(&format!("      {what}"), lines::WIDTH, 8) {
                let _ = writeln!(out, "{line}");
            }
        }
    }
    let _ = writeln!(
        out,
        "\n(each cell: the hand's payment, then the running total at the table, in coins)"
    );
    // By key, never by name alone: two players who used one name are two lines, told apart
    // by their fingerprints (the words their apps show).
    let _ = writeln!(
        out,
        "\n{}{:>8}  {}fingerprint",
        cell("player", W),
        "balance",
        cell("level", 12)
    );
    for p in &history.players {
        let l = level(p.balance);
        let fingerprint = p
            .roster_key
            .and_then(|k| ed25519_dalek::VerifyingKey::from_bytes(&k).ok())
            .map(|k| mahjong_store::Fingerprint::of(&k).to_string())
            .unwrap_or_default();
        let level = format!("{} {}", l.number, l.name);
        let _ = writeln!(
            out,
            "{}{:>8}  {}{fingerprint}",
            cell(&mahjong_store::clean_name(&p.name), W),
            signed(p.balance),
            cell(&level, 12)
        );
    }
    // Padded cells leave no spaces at the ends of lines.
    out.lines().map(|l| format!("{}\n", l.trim_end())).collect()
}
