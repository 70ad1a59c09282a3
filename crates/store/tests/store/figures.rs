//! Measured figures of the store (ignored by default; run with
//! `cargo test -p mahjong-store --test store figures -- --ignored --nocapture`).

use std::time::{Duration, Instant};

use mahjong_rules::Ruleset;
use mahjong_store::verify_bytes;

use crate::harness::Game;

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// `STORE_FIGURES_HANDS=N` for a longer session (the per-hand growth of the journal).
fn hands_wanted() -> u32 {
    std::env::var("STORE_FIGURES_HANDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(4)
}

#[test]
#[ignore = "prints measured figures; slow"]
fn figures() {
    let hands_wanted = hands_wanted();
    // On the real disk (not a tmpfs), so that fsync costs what it costs.
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("tempdir");
    let mut game = Game::new(dir.path(), 41, Ruleset::Qiaoma, hands_wanted);
    let started = Instant::now();
    game.run();
    let played = started.elapsed();
    game.assert_agree();
    let hands = game.client(0).results().len();
    let split = |own: bool| {
        let mut v: Vec<Duration> = game
            .appends
            .iter()
            .filter(|(o, _)| *o == own)
            .map(|(_, d)| *d)
            .collect();
        v.sort();
        v
    };
    for (own, label) in [
        (true, "with Record::Own (synchronous=FULL)"),
        (false, "without (NORMAL)"),
    ] {
        let v = split(own);
        println!(
            "append {label}: {} batches, p50 {:?}, p99 {:?}, max {:?}",
            v.len(),
            percentile(&v, 0.5),
            percentile(&v, 0.99),
            v.last().copied().unwrap_or_default()
        );
    }
    println!("{hands} hands played by four seats in {played:?} (store writes included)");
    let p = &game.players[0];
    let db = std::fs::metadata(p.store.path())
        .map(|m| m.len())
        .unwrap_or(0)
        + std::fs::metadata(p.store.path().with_extension("sqlite3-wal"))
            .map(|m| m.len())
            .unwrap_or(0);
    let records = p.store.journal_len(&game.table, 0).expect("count");
    println!(
        "seat 0 store: {records} journal records, {} KB on disk (db + wal) for {hands} hands",
        db / 1024
    );
    let t = Instant::now();
    let restored = p
        .store
        .restore(&game.table, 0, &p.identity)
        .expect("restore")
        .expect("seat");
    println!(
        "restore of seat 0 after {hands} hands (fold + Client::restore): {:?}",
        t.elapsed()
    );
    assert_eq!(restored.log_hash(), game.client(0).log_hash());
    let t = Instant::now();
    let file = p.store.export(&game.table, None).expect("export");
    let bytes = file.to_bytes();
    println!(
        "export: {:?}, {} KB ({} KB per hand)",
        t.elapsed(),
        bytes.len() / 1024,
        bytes.len() / 1024 / hands.max(1)
    );
    let t = Instant::now();
    verify_bytes(&bytes).expect("verifies");
    let took = t.elapsed();
    println!(
        "verify: {took:?} ({:?} per hand)",
        took / hands.max(1) as u32
    );
    // The journal's records (what the seat keeps), and the database once its last connection
    // closed (SQLite then folds the WAL into the file and removes it).
    let journal: u64 = p
        .store
        .journal_bytes(&game.table, 0)
        .expect("journal bytes");
    {
        let conn = rusqlite::Connection::open(p.store.path()).expect("open");
        let pragma = |name: &str| -> i64 {
            conn.query_row(&format!("PRAGMA {name}"), [], |r| r.get(0))
                .unwrap_or(-1)
        };
        println!(
            "database pages: {} of {} bytes, {} free",
            pragma("page_count"),
            pragma("page_size"),
            pragma("freelist_count")
        );
    }
    let path = p.store.path().to_path_buf();
    drop(restored);
    drop(game);
    let closed = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    let wal = std::fs::metadata(path.with_extension("sqlite3-wal")).map_or(0, |m| m.len());
    println!(
        "seat 0 journal: {} KB of records ({} KB per hand); the closed database {} KB \
         ({} KB per hand; WAL left {wal} bytes)",
        journal / 1000,
        journal / 1000 / u64::from(hands.max(1) as u32),
        closed / 1000,
        closed / 1000 / u64::from(hands.max(1) as u32),
    );
}

/// The data directory of a practice table (four seats in one store, as the app keeps it):
/// `STORE_FIGURES_HANDS=12 cargo test --release -p mahjong-store --test store
/// practice_figures -- --ignored --nocapture`.
#[test]
#[ignore = "prints measured figures; slow"]
fn practice_figures() {
    let hands_wanted = hands_wanted();
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("tempdir");
    let mut game = Game::one_store(dir.path(), 41, Ruleset::Qiaoma, hands_wanted);
    game.run();
    game.assert_agree();
    let hands = game.client(0).results().len() as u64;
    let seats: Vec<u64> = (0..4u8)
        .map(|s| {
            game.players[0]
                .store
                .journal_bytes(&game.table, s)
                .expect("bytes")
        })
        .collect();
    let path = game.players[0].store.path().to_path_buf();
    drop(game);
    let closed = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    println!(
        "practice table, four seats in one store: each seat's journal reads {} KB a hand; \
         the closed database {} KB ({} KB a hand) for {hands} hands",
        seats[0] / 1000 / hands.max(1),
        closed / 1000,
        closed / 1000 / hands.max(1)
    );
}
