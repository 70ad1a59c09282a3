//! A real four-seat table played through the store: journals, restore, the ledger.

use ed25519_dalek::SigningKey;
use mahjong_rules::{Money, Ruleset};
use mahjong_store::{LedgerRow, StoreError, describe};
use mahjong_table::codec::Header;
use mahjong_table::{Body, Envelope};

use crate::harness::Game;

/// The ledger of every player is the same, one row per hand, zero-sum, four valid
/// signatures (or three votes).
pub fn assert_ledgers(game: &Game, hands: usize) -> Vec<LedgerRow> {
    let first = game.players[0].store.ledger().expect("ledger");
    assert_eq!(first.len(), hands);
    for p in &game.players[1..] {
        let rows = p.store.ledger().expect("ledger");
        assert_eq!(rows.len(), hands);
        for (a, b) in rows.iter().zip(&first) {
            assert_eq!(a.result, b.result);
            assert_eq!(a.signatures, b.signatures);
            assert_eq!(a.hand_id, b.hand_id);
        }
    }
    let roster = game.client(0).proposal().expect("agreed").roster;
    for row in &first {
        assert_eq!(row.payments.iter().map(|m| m.0).sum::<i64>(), 0, "zero-sum");
        let want = if row.aborted_by.is_some() { 3 } else { 4 };
        assert_eq!(row.signatures.len(), want);
        for e in &row.signatures {
            e.verify(&roster[e.seat as usize]).expect("valid signature");
        }
    }
    first
}

#[test]
fn a_client_restored_from_the_store_continues_the_hand() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut game = Game::new(dir.path(), 11, Ruleset::Qiaoma, 1);
    game.run_until(|g| g.moves() >= 12);
    assert!(game.client(2).results().is_empty(), "mid-hand");
    // What the store folds is what the client holds.
    let persisted = game.players[2]
        .store
        .persisted(&game.table, 2)
        .expect("persisted")
        .expect("stored seat");
    assert_eq!(persisted.log, game.client(2).log());
    assert_eq!(persisted.root, game.client(2).persistent().root);
    game.crash(2);
    game.restart(2);
    game.run();
    game.assert_agree();
    let results = game.client(0).results();
    assert_eq!(results.len(), 1);
    assert!(
        !results[0].aborted,
        "the hand completed: {}",
        describe(&results[0])
    );
    assert_ledgers(&game, 1);
    for p in &game.players {
        assert!(p.store.unfinished_tables().expect("tables").is_empty());
        assert!(p.store.tables().expect("tables")[0].finished);
    }
}

#[test]
fn a_hand_journalled_but_not_booked_before_a_crash_is_booked_from_the_journal_after_it() {
    // Killed between the journal's commit of a hand's settlement (with the checkpoint after
    // it) and the booking: the restored client holds its log from that checkpoint on, so the
    // hand's signatures are only in the journal.
    let dir = tempfile::tempdir().expect("tempdir");
    let mut game = Game::new(dir.path(), 13, Ruleset::Qiaoma, 2);
    game.unbooked[2] = true;
    game.run_until(|g| g.client(2).results().len() == 1);
    game.crash(2);
    game.unbooked[2] = false;
    game.restart(2);
    let p = &game.players[2];
    assert!(p.store.ledger().expect("ledger").is_empty(), "not booked");
    let restored = game.client(2);
    assert_eq!(restored.results().len(), 1);
    assert!(
        restored.log().iter().all(|r| r.hand() != Some(1)),
        "the restored log starts after hand 1"
    );
    assert_eq!(p.store.book_from_client(restored).expect("book"), 1);
    game.run();
    game.assert_agree();
    let rows = assert_ledgers(&game, 2);
    assert_eq!(rows[0].hand, 1);
}

#[test]
fn booking_is_idempotent_and_never_overwrites() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut game = Game::new(dir.path(), 12, Ruleset::Classic, 2);
    game.run();
    game.assert_agree();
    let rows = assert_ledgers(&game, 2);
    let table = game.table;
    for (s, p) in game.players.iter().enumerate() {
        // Again, from the live client and from one restored out of the store.
        assert_eq!(p.store.book_from_client(game.client(s)).expect("book"), 0);
        let restored = p
            .store
            .restore(&table, s as u8, &p.identity)
            .expect("restore")
            .expect("stored");
        assert_eq!(p.store.book_from_client(&restored).expect("book"), 0);
        let r = &rows[0];
        assert!(
            !p.store
                .book(&table, &r.result, &r.signatures, Some(r.hand_id))
                .expect("book")
        );
        assert_eq!(p.store.ledger().expect("ledger").len(), 2);
    }
    let store = &game.players[0].store;
    let r = &rows[1];
    // Three signatures do not make a settled hand final.
    let err = store
        .book(&table, &r.result, &r.signatures[..3], None)
        .expect_err("not final");
    assert!(matches!(err, StoreError::NotFinal { .. }), "{err}");
    // Signatures on another result do not either.
    let mut other = r.result.clone();
    other.payments[0] = Money(other.payments[0].0 + 100);
    other.payments[1] = Money(other.payments[1].0 - 100);
    let err = store
        .book(&table, &other, &r.signatures, None)
        .expect_err("not final");
    assert!(matches!(err, StoreError::NotFinal { .. }), "{err}");
    // Four valid signatures on a different result for a booked hand: refused, not written.
    let keys: Vec<SigningKey> = game
        .players
        .iter()
        .map(|p| p.identity.key.clone())
        .collect();
    let forged: Vec<Envelope> = r
        .signatures
        .iter()
        .map(|e| {
            let Body::Settle { next, .. } = e.body else {
                panic!("a settled hand");
            };
            Envelope::sign(
                table,
                Header {
                    hand: e.hand,
                    seq: e.seq,
                    prev_hash: e.prev_hash,
                },
                e.seat,
                Body::Settle {
                    result: other.hash(),
                    next,
                },
                &keys[e.seat as usize],
            )
        })
        .collect();
    let err = store
        .book(&table, &other, &forged, None)
        .expect_err("conflict");
    assert!(
        matches!(err, StoreError::LedgerConflict { hand: 2, .. }),
        "{err}"
    );
    assert_eq!(store.ledger().expect("ledger")[1].result, r.result);
}

#[test]
fn a_hand_whose_settlement_one_seat_never_signs_is_booked_from_three_votes() {
    use mahjong_table::Stage;
    let dir = tempfile::tempdir().expect("tempdir");
    let mut game = Game::new(dir.path(), 13, Ruleset::Qiaoma, 1);
    // Seat 3 dies at the settlement step before any of its own settlement left it: whichever
    // reaches the step first (the order of delivery decides), seat 3's `Settle` never arrives.
    game.run_until(|g| {
        let settling = |s: usize| matches!(g.client(s).stage(), Stage::Settle);
        let others = (0..3).any(settling);
        (others && !settling(3)) || (settling(3) && !others)
    });
    assert!(
        matches!(game.client(3).stage(), Stage::Hand(_) | Stage::Settle),
        "seat 3 had not signed a later step"
    );
    game.crash(3);
    game.drop_settlements_of(3);
    game.run();
    let rows: Vec<Vec<LedgerRow>> = (0..3)
        .map(|s| game.players[s].store.ledger().expect("ledger"))
        .collect();
    assert_eq!(rows[0].len(), 1);
    for r in &rows[1..] {
        assert_eq!(r.len(), 1);
        assert_eq!(
            (&r[0].result, &r[0].signatures),
            (&rows[0][0].result, &rows[0][0].signatures)
        );
    }
    let row = &rows[0][0];
    assert_eq!(row.aborted_by, Some(3));
    assert_eq!(row.signatures.len(), 3);
    assert_eq!(row.payments.iter().map(|m| m.0).sum::<i64>(), 0);
    let file = game.players[0]
        .store
        .export(&game.table, None)
        .expect("export");
    let mahjong_store::Checked::Log(check) =
        mahjong_store::verify_bytes(&file.to_bytes()).expect("verifies");
    assert_eq!(check.report.hands[0].aborted_by, Some(3));
    assert!(check.report.hands[0].audited);
}

/// A longer table through real SQLite files: each client holds two hands of the log; a seat
/// restarted late reads its journal from the last checkpoint on; a seat's log read back with
/// `Store::steps` is the journal's; the ledgers agree.
#[test]
fn a_seat_keeps_two_hands_in_memory_and_restarts_from_its_last_checkpoint() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut game = Game::new(dir.path(), 13, Ruleset::Qiaoma, 5);
    game.run_until(|g| g.client(0).results().len() >= 3 && g.moves_in_hand() >= 6);
    let table = game.table;
    let c = game.client(1);
    let held_from = c.first_step_held();
    assert!(held_from > 0, "the client holds the whole log");
    let first_hand = c.log().first().and_then(|r| r.hand()).expect("a step");
    assert!(first_hand + 1 >= c.hand_number());
    let store = &game.players[1].store;
    let whole = store.persisted(&table, 1).expect("read").expect("seat");
    assert_eq!(&whole.log[held_from as usize..], c.log());
    // What `steps` reads back is the journal's log.
    let back = store.steps(&table, 1, 3, held_from).expect("steps");
    assert_eq!(back, whole.log[3..held_from as usize]);
    // From the last checkpoint on: the current hand only, and the seat restores from it.
    let tail = store
        .persisted_from_checkpoint(&table, 1)
        .expect("read")
        .expect("seat");
    let cp = tail.checkpoint.clone().expect("a checkpoint");
    assert_eq!(tail.base(), cp.seq);
    assert!(tail.log.len() < 400, "{} steps read", tail.log.len());
    // The journal keeps one copy of what its seat signed: the seat's own records of the
    // hands before the last checkpoint's are gone (the fold drops them there anyway), and a
    // hand costs about what docs/performance.md says (275 KB of records; counted, not timed).
    let conn = rusqlite::Connection::open(store.path()).expect("open");
    let mut stmt = conn
        .prepare(
            "SELECT record FROM journal WHERE table_id = ?1 AND seat = 1 AND id < \
             (SELECT max(id) FROM journal WHERE table_id = ?1 AND seat = 1 \
              AND checkpoint IS NOT NULL)",
        )
        .expect("query");
    let rows: Vec<Vec<u8>> = stmt
        .query_map([&table[..]], |r| r.get(0))
        .expect("rows")
        .map(|r| r.expect("row"))
        .collect();
    for bytes in rows {
        if let Ok(mahjong_table::Record::Own(e)) = postcard::from_bytes(&bytes) {
            assert!(e.hand >= cp.hand, "an own record of hand {} kept", e.hand);
        }
    }
    let hands = game.client(1).results().len() as u64 + 1;
    let bytes = store.journal_bytes(&table, 1).expect("bytes");
    assert!(
        bytes <= 300_000 * hands,
        "{bytes} bytes of journal for {hands} hands"
    );
    drop(stmt);
    drop(conn);
    game.crash(1);
    game.restart(1);
    assert_eq!(game.client(1).first_step_held(), cp.seq);
    game.run();
    game.assert_agree();
    assert_ledgers(&game, 5);
}
