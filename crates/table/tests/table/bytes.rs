//! What a hand costs in bytes (counted, not timed): the frames a seat sends and what its
//! journal keeps, against ceilings a little above today's figures, so that nothing grows back
//! unnoticed. The figures and their breakdown by part: `cargo bench -p mahjong-table --bench
//! table`. The goals of issue 32 are lower still (docs/performance.md says how far they are).

use mahjong_rules::{Ruleset, SessionLength};
use mahjong_table::{Body, Envelope};

use crate::sim::{Net, Sim, options};

/// Broadcast frame bytes a seat sends in one qiaoma hand, set-up included, at most (today
/// 46.1–47.9 KB a seat for this hand; 52.4–55.0 KB with deal messages signed on their own,
/// before envelope version 2; 85.6 KB on average before the compact proof of shuffle and frames).
const FRAMES_PER_SEAT: u64 = 51_000;

/// One shuffle's frame at most (the wall 9.2 KB and its proof 6.3 KB; 32.7 KB before).
const SHUFFLE_FRAME: usize = 16_000;

/// A one-hand qiaoma table played to its end on a perfect network.
fn one_hand(seed: u64) -> Sim {
    let mut sim = Sim::new(
        seed,
        Net::FAST,
        options(Ruleset::Qiaoma),
        SessionLength::Hands(1),
    );
    sim.run(3_600_000);
    sim
}

#[test]
fn a_hand_costs_no_more_bytes_than_its_ceiling() {
    let sim = one_hand(77);
    assert!((0..4).all(|s| sim.client(s).is_over()));
    let mut logged = 0usize;
    for s in 0..4 {
        let st = sim.client(s).stats();
        assert!(
            st.broadcast_bytes <= FRAMES_PER_SEAT,
            "seat {s} sent {} bytes of frames in one hand",
            st.broadcast_bytes
        );
        assert_eq!(
            st.reply_bytes, 0,
            "a perfect network asks for nothing again"
        );
    }
    for r in sim.client(0).log() {
        for e in &r.entries {
            logged += e.encode().len();
            let frame = e.frame();
            assert!(frame.len() <= e.encode().len());
            assert_eq!(Envelope::decode(&frame).as_ref(), Ok(e));
            if let Body::Deal(ms) = &e.body
                && ms.iter().any(|m| m.step() == mahjong_deal::Step::Shuffle)
            {
                assert!(
                    frame.len() <= SHUFFLE_FRAME,
                    "a shuffle of {} bytes",
                    frame.len()
                );
            }
        }
    }
    // The log every seat keeps (its journal's steps): the four seats' envelopes in full.
    assert!(logged <= 4 * 76_000, "{logged} bytes logged in one hand");
}

/// What a finished qiaoma hand's stored run keeps at most (today about 91 KB for four seats'
/// envelopes; 175 KB before finished hands left out what their reveals derive).
const RUN_PER_HAND: usize = 100_000;

/// The steps of `hand` in seat 0's log of a table played to its end.
fn steps_of(sim: &Sim, hand: u32) -> Vec<Vec<Envelope>> {
    sim.client(0)
        .log()
        .iter()
        .filter(|r| r.entries.first().is_some_and(|e| e.hand == hand))
        .map(|r| r.entries.clone())
        .collect()
}

#[test]
fn a_finished_hand_is_stored_without_what_its_reveals_derive_and_read_back_whole() {
    let sim = one_hand(78);
    assert!((0..4).all(|s| sim.client(s).is_over()));
    let steps = steps_of(&sim, 1);
    let table = steps[0][0].table;
    let full: usize = steps.iter().flatten().map(|e| e.encode().len()).sum();
    let run = mahjong_table::stored_run(&table, &steps).expect("a run");
    assert_eq!(run[0], mahjong_table::STORED_RUN_DERIVED);
    assert!(
        run.len() <= RUN_PER_HAND,
        "a finished hand kept in {} bytes ({full} in full)",
        run.len()
    );
    // Every envelope comes back byte for byte: its signature and the chain hold.
    let back = mahjong_table::from_stored_run(&table, &run).expect("reads back");
    assert_eq!(back, steps);
    let roster: Vec<_> = crate::sim::keys(78)
        .iter()
        .map(|k| k.verifying_key())
        .collect();
    for e in back.iter().flatten() {
        e.verify(&roster[usize::from(e.seat)]).expect("signed");
    }

    // Without its reveals (the hand cut before them), nothing is left out: 4 walls and some
    // 400 shares more.
    let reveals = steps
        .iter()
        .position(|s| {
            s.iter().any(|e| {
                e.deal_messages()
                    .any(|m| m.step() == mahjong_deal::Step::AuditReveal)
            })
        })
        .expect("the reveals");
    let before = &steps[..reveals];
    let unrevealed = mahjong_table::stored_run(&table, before).expect("a run");
    let revealed = mahjong_table::stored_run(&table, &steps[..reveals + 1]).expect("a run");
    assert!(
        unrevealed.len() > revealed.len() + 4 * 9_000 + 300 * 96,
        "{} bytes unrevealed, {} revealed",
        unrevealed.len(),
        revealed.len()
    );
    assert_eq!(
        mahjong_table::from_stored_run(&table, &unrevealed).as_deref(),
        Ok(before)
    );
}

#[test]
fn a_stored_run_whose_bytes_were_changed_never_reads_back_as_the_hand() {
    let sim = one_hand(79);
    let steps = steps_of(&sim, 1);
    let table = steps[0][0].table;
    let run = mahjong_table::stored_run(&table, &steps).expect("a run");
    let roster: Vec<_> = crate::sim::keys(79)
        .iter()
        .map(|k| k.verifying_key())
        .collect();
    // Every 1009th byte changed in turn (a secret key, a seed, a share's position, a proof, a
    // nonce...): an error naming what is wrong, or envelopes that are not the signed ones.
    for i in (1..run.len()).step_by(1009) {
        let mut bad = run.clone();
        bad[i] ^= 0x20;
        match mahjong_table::from_stored_run(&table, &bad) {
            Err(e) => assert!(!e.to_string().is_empty()),
            Ok(back) => assert!(
                back != steps
                    && back
                        .iter()
                        .flatten()
                        .any(|e| e.verify(&roster[usize::from(e.seat) & 3]).is_err()),
                "byte {i} changed read back as the signed hand"
            ),
        }
    }
    // Cut short, or with a byte more: refused.
    for len in [1, run.len() / 3, run.len() / 2, run.len() - 1] {
        assert!(mahjong_table::from_stored_run(&table, &run[..len]).is_err());
    }
    let mut longer = run.clone();
    longer.push(0);
    assert!(mahjong_table::from_stored_run(&table, &longer).is_err());
    // The same bytes under the old mark, which leaves nothing out: refused, not misread.
    let mut old = run;
    old[0] = mahjong_table::STORED_RUN;
    let e = mahjong_table::from_stored_run(&table, &old).expect_err("not the old form");
    assert!(e.to_string().contains("reveals"), "{e}");
}

#[test]
fn a_hand_with_a_deal_message_signed_on_its_own_is_stored_and_read_back_whole() {
    // A version-2 envelope may carry a deal message signed by its seat rather than carried
    // (an older or a lying client's): such a hand is kept so that it reads back, whatever it
    // derives.
    let sim = one_hand(80);
    let mut steps = steps_of(&sim, 1);
    let table = steps[0][0].table;
    let mut signed = 0;
    for e in steps.iter_mut().flatten() {
        if e.seat != 2 {
            continue;
        }
        if let Body::Deal(ms) = &mut e.body {
            for m in ms.iter_mut() {
                if matches!(
                    m.message.body,
                    mahjong_deal::Body::Key(_) | mahjong_deal::Body::AuditReveal(_)
                ) {
                    m.signature = ed25519_dalek::Signature::from_bytes(&[7; 64]);
                    signed += 1;
                }
            }
        }
    }
    assert_eq!(signed, 2, "seat 2's key and reveal");
    let run = mahjong_table::stored_run(&table, &steps).expect("a run");
    assert_eq!(
        mahjong_table::from_stored_run(&table, &run).as_deref(),
        Ok(&steps[..])
    );
}
