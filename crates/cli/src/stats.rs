//! `mahjong stats`: every player sat with, by key and shown by name, across all the tables of
//! the data directory's ledger — hands, win rate, self-draw rate, deal-in rate, the average a
//! winning hand paid, balance and rating — and, apart, this player's practice against the
//! computer players. The numbers and the rating are the store's (`mahjong_store::stats`,
//! docs/stats.md).
//!
//! `--json`: one JSON object (see [`to_json`]); with no store yet, the same object with no
//! players. Without it, a table within 80 columns and a line on how the rating moves.

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use mahjong_rules::explain_text::signed;
use mahjong_rules::names::count;
use mahjong_store::{Fingerprint, PlayerStats, Stats, to_hex};
use serde_json::{Value, json};

use crate::ledger::{data_dir, open_existing};
use crate::lines::{self, cell};

/// Arguments of `mahjong stats`.
#[derive(Args, Debug)]
pub struct StatsArgs {
    /// The player's data directory (default: the platform data directory).
    #[arg(long, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// One JSON object: friends (per key) and practice.
    #[arg(long)]
    pub json: bool,
}

/// Runs `mahjong stats`.
pub fn run(args: StatsArgs) -> Result<()> {
    let dir = data_dir(args.data_dir);
    let stats = match open_existing(&dir)? {
        Some(store) => store.stats().context("reading the ledger")?,
        None if args.json => Stats::default(),
        None => {
            println!("no hands played yet: no store in {}", dir.display());
            return Ok(());
        }
    };
    if args.json {
        println!("{}", to_json(&stats));
    } else if stats.is_empty() {
        println!("no hands played yet in {}", dir.display());
    } else {
        print!("{}", render(&stats));
    }
    Ok(())
}

/// A rate to four decimals.
fn rate(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

/// One player as JSON: `key` (hex; `null` for a player who only practised and has no key),
/// `fingerprint`, `name`, `me`, `sessions`, `hands`,
/// `wins`, `self_draws`, `deal_ins`, `win_rate`, `self_draw_rate`, `deal_in_rate` (0 to 1),
/// `avg_win` (coins, `null` before a first win), `balance` (coins), `rating`.
fn player_json(p: &PlayerStats) -> Value {
    // All zeros: a player who only practised has no key.
    let known = p.key != [0; 32];
    let fingerprint = ed25519_dalek::VerifyingKey::from_bytes(&p.key)
        .ok()
        .filter(|_| known)
        .map(|k| Fingerprint::of(&k).to_string());
    json!({
        "key": known.then(|| to_hex(&p.key)),
        "fingerprint": fingerprint,
        "name": p.name,
        "me": p.me,
        "sessions": p.sessions,
        "hands": p.hands,
        "wins": p.wins,
        "self_draws": p.self_draws,
        "deal_ins": p.deal_ins,
        "win_rate": rate(p.win_rate()),
        "self_draw_rate": rate(p.self_draw_rate()),
        "deal_in_rate": rate(p.deal_in_rate()),
        "avg_win": p.avg_win(),
        "balance": p.balance,
        "rating": p.rating(),
    })
}

/// The statistics as one JSON object: `friends` (this player first, then everyone sat with,
/// the highest rating first, each as [`player_json`]), `friend_tables`, `practice` (this
/// player at practice tables, or `null`) and `practice_tables`.
pub fn to_json(stats: &Stats) -> Value {
    json!({
        "friend_tables": stats.friend_tables,
        "friends": stats.friends.iter().map(player_json).collect::<Vec<_>>(),
        "practice_tables": stats.practice_tables,
        "practice": stats.practice.as_ref().map(player_json),
    })
}

/// `40%`.
fn percent(x: f64) -> String {
    format!("{:.0}%", x * 100.0)
}

/// The header and one line per player.
fn table(out: &mut String, players: &[&PlayerStats]) {
    let _ = writeln!(
        out,
        "{}{:>6}{:>6}{:>11}{:>9}{:>9}{:>9}{:>8}",
        cell("player", 18),
        "hands",
        "won",
        "self-drawn",
        "dealt in",
        "avg win",
        "balance",
        "rating"
    );
    for p in players {
        let name = if p.me {
            format!("{} (you)", p.name)
        } else {
            p.name.clone()
        };
        let _ = writeln!(
            out,
            "{}{:>6}{:>6}{:>11}{:>9}{:>9}{:>9}{:>8.0}",
            cell(&lines::clean(&name), 18),
            p.hands,
            percent(p.win_rate()),
            percent(p.self_draw_rate()),
            percent(p.deal_in_rate()),
            p.avg_win()
                .map_or_else(|| "-".to_string(), |m| m.to_string()),
            signed(p.balance),
            p.rating()
        );
    }
}

/// The readable statistics, within 80 columns.
fn render(stats: &Stats) -> String {
    let mut out = String::new();
    if stats.friend_tables > 0 {
        let _ = writeln!(
            out,
            "With friends: {}, {} played with you",
            count(stats.friend_tables, "table", "tables"),
            count(
                stats.friends.iter().filter(|p| !p.me).count() as u64,
                "player",
                "players"
            ),
        );
        table(&mut out, &stats.friends.iter().collect::<Vec<_>>());
        // Two players under one name are told apart by their fingerprints.
        let mut seen: Vec<&str> = Vec::new();
        for p in &stats.friends {
            let same: Vec<&PlayerStats> =
                stats.friends.iter().filter(|q| q.name == p.name).collect();
            if same.len() > 1 && !seen.contains(&p.name.as_str()) {
                seen.push(&p.name);
                let prints: Vec<String> = same
                    .iter()
                    .filter_map(|q| ed25519_dalek::VerifyingKey::from_bytes(&q.key).ok())
                    .map(|k| Fingerprint::of(&k).to_string())
                    .collect();
                for l in lines::wrapped(&format!(
                    "{} players are named {}, in the order above: {}",
                    same.len(),
                    lines::clean(&p.name),
                    lines::and_list(&prints)
                )) {
                    let _ = writeln!(out, "{l}");
                }
            }
        }
    }
    if let Some(p) = &stats.practice {
        if stats.friend_tables > 0 {
            let _ = writeln!(out);
        }
        let _ = writeln!(
            out,
            "Practice against the computer players: {}",
            count(stats.practice_tables, "table", "tables")
        );
        table(&mut out, &[p]);
    }
    let _ = writeln!(out);
    let note = "won, self-drawn and dealt in are shares of the hands played; avg win is \
                what a winning hand paid, in coins. The rating starts at 1500; each table \
                moves it by the place its balance took: +30, +10, -10 or -30 (level \
                balances share), in full after 8 hands, in proportion before.";
    for l in lines::wrapped(note) {
        let _ = writeln!(out, "{l}");
    }
    out.lines().map(|l| format!("{}\n", l.trim_end())).collect()
}
