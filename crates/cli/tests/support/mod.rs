//! What the process tests of `mahjong play` share: reading a data dir's ledger and comparing
//! the ledgers of a table's players.
#![allow(dead_code)]

use std::path::Path;

/// A ledger row as compared: (table, hand, payments in cents, signing seats).
pub type Row = ([u8; 32], u32, [i64; 4], Vec<u8>);

/// The ledger of a peer's data dir (the store checked every signature when it booked).
pub fn ledger(dir: &Path) -> Vec<Row> {
    let store = mahjong_store::Store::open(dir).expect("store opens");
    store
        .ledger()
        .expect("ledger reads")
        .into_iter()
        .map(|r| {
            (
                r.table,
                r.hand,
                r.payments.map(|m| m.0),
                r.signatures.iter().map(|e| e.seat).collect(),
            )
        })
        .collect()
}

/// Every peer's ledger holds the same `hands` rows, each zero-sum and four-signed (or three
/// votes naming a seat): no row lost or doubled. The rows, for stricter checks.
pub fn assert_same_ledgers(dir: &Path, names: &[String], hands: usize) -> Vec<Row> {
    let first = ledger(&dir.join(&names[0]));
    assert_eq!(first.len(), hands, "ledger of {}: {first:?}", names[0]);
    for n in names {
        assert_eq!(ledger(&dir.join(n)), first, "ledger of {n} differs");
    }
    for (_, hand, pay, signers) in &first {
        assert_eq!(pay.iter().sum::<i64>(), 0, "hand {hand} not zero-sum");
        assert!(
            signers == &vec![0, 1, 2, 3] || signers.len() == 3,
            "hand {hand} signed by {signers:?}"
        );
    }
    first
}

/// A session of `hands` hands in which one seat left once: the leave is one row signed by
/// the three others. A leave inside a hand ends that hand and counts it; a leave before a
/// hand's dice (the kill landed while the next deal was being set up, as on a loaded
/// machine) books the penalty alone and counts no hand (docs/rules.en.md §6), so the session
/// then holds one row more than its length. Either way `hands` rows are hands that were
/// counted.
pub fn assert_one_leave_in_session(rows: &[Row], hands: usize) {
    let aborts = rows.iter().filter(|r| r.3.len() == 3).count();
    assert_eq!(aborts, 1, "one row signed by three: {rows:?}");
    assert!(
        rows.len() == hands || rows.len() == hands + 1,
        "{hands} hands, or {hands} and a penalty before a hand's dice: {rows:?}"
    );
}

/// Takes one line a `mahjong` process printed into `seen`, the way a player reads it: it
/// must keep to 80 columns (a CJK character is two) and never name a seat by its number
/// (`seat 2`); a longer sentence goes on, indented by four spaces, on the next lines, which
/// are joined to it here so that tests read whole sentences.
pub fn heard(seen: &mut Vec<String>, line: String) {
    // A failure is one whole line (`mahjong: …`, for scripts), and a log line (`RUST_LOG`)
    // is for developers: neither is held to the width.
    let log = line.len() > 20 && line.as_bytes()[..4].iter().all(u8::is_ascii_digit);
    if line.starts_with("mahjong: ") || log {
        seen.push(line);
        return;
    }
    let columns: usize = line
        .chars()
        .map(|c| if (c as u32) >= 0x2E80 { 2 } else { 1 })
        .sum();
    assert!(columns <= 80, "{columns} columns: {line}");
    let numbered = line
        .match_indices("seat ")
        .any(|(i, _)| line[i + 5..].starts_with(|c: char| c.is_ascii_digit()));
    // A hostile peer's offence is the network layer's own words (`… was disconnected: the
    // roster gives seat 1 a key …`), not yet a player's sentence.
    assert!(
        !numbered || line.contains(" was disconnected: "),
        "a seat named by its number: {line}"
    );
    match seen.last_mut() {
        Some(last) if line.starts_with("    ") => {
            last.push(' ');
            last.push_str(line.trim());
        }
        _ => seen.push(line),
    }
}
