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

#[test]
fn a_hand_costs_no_more_bytes_than_its_ceiling() {
    let mut sim = Sim::new(
        77,
        Net::FAST,
        options(Ruleset::Qiaoma),
        SessionLength::Hands(1),
    );
    sim.run(3_600_000);
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
