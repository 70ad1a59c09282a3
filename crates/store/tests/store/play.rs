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
    // Seat 3 dies after the others reached the settlement, before it signed its own.
    game.run_until(|g| {
        matches!(g.client(0).stage(), Stage::Settle)
            && matches!(g.client(3).stage(), Stage::Hand(_))
    });
    assert!(
        matches!(game.client(3).stage(), Stage::Hand(_)),
        "seat 3 had not settled"
    );
    game.crash(3);
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
