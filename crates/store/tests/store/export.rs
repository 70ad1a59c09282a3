//! Export → verify round trips over real played hands, tampered files, evidence files.

use std::sync::OnceLock;

use ed25519_dalek::SigningKey;
use mahjong_rules::{Action, Money, Ruleset};
use mahjong_store::export::{ChargeFrames, EvidenceFile, LogFile};
use mahjong_store::{Checked, VerifyError, to_hex, verify_bytes, verify_file};
use mahjong_table::codec::Header;
use mahjong_table::{Body, Charge, Envelope, Evidence, Input, LogFault, Next, Offence, StepRecord};

use crate::harness::Game;

/// One played two-hand session, exported whole and for hand 1, with the players' keys.
struct Played {
    whole: LogFile,
    first_hand: LogFile,
    log: Vec<StepRecord>,
    keys: Vec<SigningKey>,
    table: [u8; 32],
}

fn played() -> &'static Played {
    static PLAYED: OnceLock<Played> = OnceLock::new();
    PLAYED.get_or_init(|| {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut game = Game::new(dir.path(), 31, Ruleset::Qiaoma, 2);
        game.run();
        game.assert_agree();
        let store = &game.players[1].store;
        Played {
            whole: store.export(&game.table, None).expect("export"),
            first_hand: store.export(&game.table, Some(1)).expect("export hand 1"),
            // The whole log, as the journal holds it (the client keeps only recent hands).
            log: store
                .persisted(&game.table, 1)
                .expect("read")
                .expect("seat")
                .log,
            keys: game
                .players
                .iter()
                .map(|p| p.identity.key.clone())
                .collect(),
            table: game.table,
        }
    })
}

fn check(file: &LogFile) -> Result<Checked, VerifyError> {
    verify_bytes(&file.to_bytes())
}

#[test]
fn an_exported_session_verifies_through_a_file() {
    let p = played();
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("table.json");
    std::fs::write(&path, p.whole.to_bytes()).expect("write");
    let Checked::Log(check) = verify_file(&path).expect("verifies");
    assert_eq!(check.report.hands.len(), 2);
    assert_eq!(check.results_checked, 2);
    assert_eq!(check.report.steps as usize, p.log.len());
    assert!(check.report.over);
    for h in &check.report.hands {
        assert!(h.audited, "hand {} audited", h.hand);
        assert!(h.moves > 0);
        assert!(h.hand_id.is_some());
        assert_eq!(h.signatures.len(), 4);
    }
    let text = check.to_string();
    for needle in [
        "verified table",
        "signatures:",
        "hash chain:",
        "hand 1 (id",
        "hand 2 (id",
        "settled by 4 signatures",
        "seat 0 (Ann)",
    ] {
        assert!(text.contains(needle), "{needle} in {text}");
    }
}

#[test]
fn a_one_hand_export_ends_with_that_hand() {
    let p = played();
    assert_eq!(p.first_hand.hand, Some(1));
    assert!(p.first_hand.steps.len() < p.whole.steps.len());
    assert_eq!(p.first_hand.results.len(), 1);
    let Checked::Log(check) = check(&p.first_hand).expect("verifies");
    assert_eq!(check.report.hands.len(), 1);
    assert!(check.to_string().contains("hand 1 (id"));
}

#[test]
fn a_flipped_signature_byte_is_named_with_its_step_and_seat() {
    let p = played();
    let mut file = p.whole.clone();
    // Seat 2's entry of the first step from step 40 on where it speaks: flip a byte of its
    // signature (the last 64 bytes).
    let seat = 2;
    let (step, entry) = (40..file.steps.len())
        .find_map(|step| {
            file.steps[step]
                .iter()
                .position(|h| {
                    let e =
                        Envelope::decode(&mahjong_store::from_hex(h).expect("hex")).expect("frame");
                    e.seat == seat
                })
                .map(|entry| (step, entry))
        })
        .expect("seat 2 speaks from step 40 on");
    let mut bytes = mahjong_store::from_hex(&file.steps[step][entry]).expect("hex");
    let n = bytes.len();
    bytes[n - 10] ^= 0x01;
    file.steps[step][entry] = to_hex(&bytes);
    let err = check(&file).expect_err("fault");
    match &err {
        VerifyError::Log {
            fault: LogFault::Signature { seq, seat: s },
            ..
        } => {
            assert_eq!(*seq, step as u32);
            assert_eq!(*s, seat);
        }
        other => panic!("{other}"),
    }
    let text = err.to_string();
    assert!(
        text.contains(&format!("step {step}")) && text.contains("seat 2"),
        "{text}"
    );
}

#[test]
fn a_removed_step_is_named() {
    let p = played();
    let mut file = p.whole.clone();
    file.steps.remove(25);
    let err = check(&file).expect_err("fault");
    assert!(
        matches!(
            &err,
            VerifyError::Log {
                fault: LogFault::Gap {
                    seq: 25,
                    found: 26,
                    ..
                },
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("step 25"), "{err}");
}

#[test]
fn a_header_that_contradicts_the_signed_log_is_named() {
    let p = played();
    let mut file = p.whole.clone();
    file.roster.swap(0, 1);
    let err = check(&file).expect_err("fault");
    assert!(matches!(&err, VerifyError::Header(_)), "{err}");
    let mut file = p.whole.clone();
    file.table = to_hex(&[1; 32]);
    let err = check(&file).expect_err("fault");
    assert!(matches!(&err, VerifyError::Header(_)), "{err}");
}

#[test]
fn claimed_results_are_checked_hand_by_hand() {
    let p = played();
    // A hand the ledger missed is not claimed: the log still verifies.
    let mut file = p.whole.clone();
    file.results.remove(0);
    let Checked::Log(report) = check(&file).expect("verifies");
    assert_eq!(report.results_checked, 1);
    assert!(
        report.to_string().contains("1 of 2 finished hands claimed"),
        "{report}"
    );
    // A claim for a hand the log does not finish, or a second claim for one hand, is not.
    let mut file = p.first_hand.clone();
    file.results.push(p.whole.results[1].clone());
    let err = check(&file).expect_err("fault");
    assert!(matches!(&err, VerifyError::Result { hand: 2, .. }), "{err}");
    let mut file = p.first_hand.clone();
    file.results.push(p.first_hand.results[0].clone());
    let err = check(&file).expect_err("fault");
    assert!(matches!(&err, VerifyError::Result { hand: 1, .. }), "{err}");
}

#[test]
fn a_changed_payment_is_named() {
    let p = played();
    let mut file = p.whole.clone();
    let r = &mut file.results[1];
    r.payments[0] = Money(r.payments[0].0 + 100);
    r.payments[3] = Money(r.payments[3].0 - 100);
    let err = check(&file).expect_err("fault");
    assert!(matches!(&err, VerifyError::Result { hand: 2, .. }), "{err}");
    assert!(err.to_string().contains("payments"), "{err}");
    // The players whose payments differ are named, with both amounts; the others are not.
    let said = err.to_string();
    let name = |s: usize| format!("seat {s} ({})", file.names[s]);
    for s in [0, 3] {
        assert!(said.contains(&name(s)), "{said}");
    }
    for s in [1, 2] {
        assert!(!said.contains(&name(s)), "{said}");
    }
}

#[test]
fn a_re_signed_entry_breaks_the_chain() {
    // Seat 0's entry of step 30 re-signed (with its own key) on another history: the
    // signature holds, the chain does not.
    let p = played();
    let mut file = p.whole.clone();
    let e = Envelope::decode(&mahjong_store::from_hex(&file.steps[30][0]).expect("hex"))
        .expect("frame");
    let mut header = e.header();
    header.prev_hash[0] ^= 1;
    let resigned = Envelope::sign(
        p.table,
        header,
        e.seat,
        e.body.clone(),
        &p.keys[e.seat as usize],
    );
    file.steps[30][0] = to_hex(&resigned.encode());
    let err = check(&file).expect_err("fault");
    assert!(
        matches!(
            &err,
            VerifyError::Log {
                fault: LogFault::Chain { seq: 30, .. },
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(err.culprit(), None);
}

#[test]
fn an_illegal_move_signed_by_its_seat_blames_that_seat() {
    // A discard replaced by a pass, signed by the discarding seat and chained correctly:
    // the seat's own signed entry proves it at fault.
    let p = played();
    let mut file = p.whole.clone();
    let (step, entry, e) = file
        .steps
        .iter()
        .enumerate()
        .find_map(|(s, entries)| {
            entries.iter().enumerate().find_map(|(i, h)| {
                let e = Envelope::decode(&mahjong_store::from_hex(h)?).ok()?;
                match &e.body {
                    Body::Play(play) if matches!(play.action, Action::Discard { .. }) => {
                        Some((s, i, e))
                    }
                    _ => None,
                }
            })
        })
        .expect("a discard");
    let Body::Play(mut play) = e.body.clone() else {
        panic!("a play");
    };
    play.action = Action::Pass;
    play.shows.clear();
    let forged = Envelope::sign(
        p.table,
        e.header(),
        e.seat,
        Body::Play(play),
        &p.keys[e.seat as usize],
    );
    file.steps[step][entry] = to_hex(&forged.encode());
    let err = check(&file).expect_err("fault");
    match &err {
        VerifyError::Log {
            fault: LogFault::Fault { seq, fault },
            ..
        } => {
            assert_eq!(*seq, step as u32);
            assert_eq!(fault.seat, e.seat);
        }
        other => panic!("{other}"),
    }
    assert_eq!(err.culprit(), Some(e.seat));
    let name = crate::harness::NAMES[e.seat as usize];
    assert!(
        err.to_string()
            .contains(&format!("blame seat {} ({name})", e.seat)),
        "{err}"
    );
}

#[test]
fn unreadable_input_is_told_apart_from_a_fault() {
    for bytes in [
        &b"\x00\x01binary"[..],
        b"{}",
        b"{\"format\":\"other\",\"version\":1}",
        b"{\"format\":\"shanghai-mahjong-log\",\"version\":9}",
    ] {
        let err = verify_bytes(bytes).expect_err("unreadable");
        assert!(err.is_unreadable(), "{err}");
    }
    let p = played();
    let mut file = p.whole.clone();
    file.steps[3][0] = "zz".into();
    let err = check(&file).expect_err("fault");
    assert!(
        matches!(err, VerifyError::BadFrame { step: 3, .. }),
        "{err}"
    );
}

#[test]
fn an_aborted_hand_is_booked_and_verifies_with_its_three_votes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut game = Game::new(dir.path(), 32, Ruleset::Baida, 1);
    game.run_until(|g| g.moves() >= 8);
    game.push(3, Input::Leave);
    game.run();
    let rows = crate::play::assert_ledgers(&game, 1);
    assert_eq!(rows[0].aborted_by, Some(3));
    let json = rows[0].to_json();
    assert_eq!(json["aborted_by"], 3);
    assert_eq!(json["signatures"].as_array().expect("array").len(), 3);
    let file = game.players[0]
        .store
        .export(&game.table, None)
        .expect("export");
    let Checked::Log(check) = verify_bytes(&file.to_bytes()).expect("verifies");
    assert_eq!(check.report.hands[0].aborted_by, Some(3));
    assert!(
        check
            .to_string()
            .contains("seat 3 (Di) named by the 3 votes"),
        "{check}"
    );
}

#[test]
fn an_equivocation_evidence_file_names_the_seat() {
    let p = played();
    // The log up to hand 1's settlement step; seat 2 signs two different settlements.
    let settle = p
        .log
        .iter()
        .position(|r| {
            r.entries
                .iter()
                .all(|e| matches!(e.body, Body::Settle { .. }))
        })
        .expect("a settlement");
    let log = p.log[..settle].to_vec();
    let e = p.log[settle].entries[2].clone();
    let Body::Settle { result, .. } = e.body else {
        panic!("settlement");
    };
    let sign = |next| {
        Envelope::sign(
            p.table,
            Header {
                hand: e.hand,
                seq: e.seq,
                prev_hash: e.prev_hash,
            },
            2,
            Body::Settle { result, next },
            &p.keys[2],
        )
    };
    let evidence = Evidence {
        log,
        charge: Charge::Equivocation {
            first: Box::new(sign(Next::Continue)),
            second: Box::new(sign(Next::Stop)),
        },
    };
    let names: Vec<String> = crate::harness::NAMES
        .iter()
        .map(|s| s.to_string())
        .collect();
    let file = EvidenceFile::new(&p.table, &names, &evidence);
    let err = verify_bytes(&file.to_bytes()).expect_err("a fault");
    match &err {
        VerifyError::Proven {
            seat: 2,
            offence: Offence::Equivocation,
            name,
            ..
        } => {
            assert_eq!(name.as_deref(), Some("Cy"));
        }
        other => panic!("{other}"),
    }
    assert_eq!(err.culprit(), Some(2));
    // The same message twice proves nothing.
    let mut same = file.clone();
    if let ChargeFrames::Equivocation([a, b]) = &mut same.charge {
        *b = a.clone();
    }
    let err = verify_bytes(&same.to_bytes()).expect_err("nothing proven");
    assert!(matches!(err, VerifyError::Evidence(_)), "{err}");
    assert_eq!(err.culprit(), None);
}

#[test]
fn any_changed_digit_of_any_envelope_is_caught_and_nothing_panics() {
    // A short table (a hand abandoned early) so that each check is quick.
    let dir = tempfile::tempdir().expect("tempdir");
    let mut game = Game::new(dir.path(), 33, Ruleset::Qiaoma, 1);
    game.run_until(|g| g.moves() >= 2);
    game.push(1, Input::Leave);
    game.run();
    let file = game.players[2]
        .store
        .export(&game.table, None)
        .expect("export");
    assert!(matches!(
        verify_bytes(&file.to_bytes()),
        Ok(Checked::Log(_))
    ));
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for _ in 0..40 {
        let mut f = file.clone();
        let step = (next() % f.steps.len() as u64) as usize;
        let entry = (next() % f.steps[step].len() as u64) as usize;
        let mut hex = f.steps[step][entry].clone().into_bytes();
        let at = (next() % hex.len() as u64) as usize;
        let digits = b"0123456789abcdef";
        let old = hex[at];
        hex[at] =
            digits[((digits.iter().position(|&d| d == old).expect("hex") as u64 + 1 + next() % 15)
                % 16) as usize];
        f.steps[step][entry] = String::from_utf8(hex).expect("ascii");
        match verify_bytes(&f.to_bytes()) {
            Ok(_) => panic!("a changed digit at step {step} entry {entry} verified"),
            Err(e) => assert!(!e.is_unreadable(), "{e}"),
        }
    }
    // Cut anywhere: the file still reads, and a cut inside a hand is reported as such.
    for cut in [1, file.steps.len() / 2, file.steps.len() - 1] {
        let mut f = file.clone();
        f.steps.truncate(cut);
        assert!(verify_bytes(&f.to_bytes()).is_err(), "cut at {cut}");
    }
}

/// Issue 27: each seat signs its name at the set-up, so a file whose names were swapped,
/// changed or removed is refused with the seat named, and the verification prints the names
/// the seats signed.
#[test]
fn doctored_names_are_refused_with_the_seat_named() {
    let p = played();
    let Checked::Log(verified) = check(&p.whole).expect("verifies");
    assert_eq!(verified.signed, [true; 4]);
    let text = verified.to_string();
    assert!(text.contains("seat 1 (Bo): key"), "{text}");
    assert!(text.contains("name signed"), "{text}");
    assert!(!text.contains("not signed"), "{text}");
    // Two names swapped: the first seat whose name is not its own is named.
    let mut swapped = p.whole.clone();
    swapped.names.swap(0, 1);
    let e = check(&swapped).expect_err("swapped names");
    assert!(
        matches!(&e, VerifyError::Name { seat: 0, file: Some(f), signed } if f == "Bo" && signed == "Ann"),
        "{e:?}"
    );
    assert!(
        e.to_string()
            .contains("the file names seat 0 \"Bo\" but the name its key signed is \"Ann\""),
        "{e}"
    );
    // A name changed.
    let mut changed = p.whole.clone();
    changed.names[2] = "Mallory".into();
    assert!(matches!(
        check(&changed),
        Err(VerifyError::Name { seat: 2, .. })
    ));
    // A seat's name removed (emptied, or the list cut short).
    let mut emptied = p.whole.clone();
    emptied.names[3] = String::new();
    assert!(matches!(
        check(&emptied),
        Err(VerifyError::Name {
            seat: 3,
            file: None,
            ..
        })
    ));
    let mut cut = p.whole.clone();
    cut.names.truncate(2);
    assert!(matches!(
        check(&cut),
        Err(VerifyError::Name {
            seat: 2,
            file: None,
            ..
        })
    ));
}

/// A table played before names were signed still verifies, and says its names are not signed.
#[test]
fn a_table_from_before_names_were_signed_verifies_and_says_so() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut game = crate::harness::Game::unsigned(dir.path(), 77, Ruleset::Qiaoma, 1);
    game.run();
    game.assert_agree();
    let file = game.players[0]
        .store
        .export(&game.table, None)
        .expect("export");
    let Checked::Log(verified) = check(&file).expect("verifies");
    assert_eq!(verified.signed, [false; 4]);
    let text = verified.to_string();
    assert!(
        text.contains("names: not signed (table from before protocol 2)"),
        "{text}"
    );
    // Any names may be written there: they are only shown.
    let mut renamed = file.clone();
    renamed.names.swap(0, 1);
    assert!(check(&renamed).is_ok());
}
