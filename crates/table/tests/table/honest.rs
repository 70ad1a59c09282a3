//! Honest seats over a network that reorders, delays, duplicates and drops frames.

use mahjong_rules::{Ruleset, SessionLength};
use mahjong_table::{Body, TableEvent};

use crate::sim::{Net, Sim, options};

/// Plays a session of `hands` hands and checks every seat agrees.
pub fn play_session(seed: u64, ruleset: Ruleset, hands: u32, net: Net) -> Sim {
    let mut sim = Sim::new(seed, net, options(ruleset), SessionLength::Hands(hands));
    sim.run(hands as u64 * 3_600_000);
    for s in 0..4 {
        assert!(
            sim.client(s).is_over(),
            "seat {s} not over: {:?}",
            sim.client(s).stage()
        );
        assert_eq!(sim.client(s).results().len(), hands as usize);
    }
    sim.assert_agree(&[0, 1, 2, 3]);
    // After the last hand every seat knows every seat's concealed tiles (the audit's full
    // replay), the same everywhere: what "all hands face up" shows.
    let last = sim.client(0).results().last().expect("a hand").hand;
    let revealed = sim.client(0).revealed(last).cloned().expect("revealed");
    assert!(revealed.iter().all(|h| !h.is_empty()), "{revealed:?}");
    for s in 1..4 {
        assert_eq!(sim.client(s).revealed(last), Some(&revealed));
    }
    // Every hand is final with four settlement signatures.
    let settles = sim
        .log(0)
        .iter()
        .filter(|r| r.entries.len() == 4 && matches!(r.entries[0].body, Body::Settle { .. }))
        .count();
    assert_eq!(settles, hands as usize);
    // The journal each seat wrote is its log, and restores to the same state.
    for s in 0..4 {
        let store = sim.stores[s].clone();
        assert_eq!(store.log.as_slice(), sim.log(s));
        let back = mahjong_table::Client::restore_with_cards(
            store,
            sim.keys[s].clone(),
            crate::sim::cards(),
        )
        .expect("restores");
        assert_eq!(back.log_hash(), sim.client(s).log_hash());
        assert_eq!(back.results(), sim.client(s).results());
    }
    for s in 0..4 {
        assert_eq!(sim.count(s, |e| matches!(e, TableEvent::Evidence(_))), 0);
        assert_eq!(
            sim.count(s, |e| matches!(e, TableEvent::SessionOver { .. })),
            1
        );
    }
    sim
}

/// A harsher network: delays up to 1.5 s, 15% loss, 10% duplicates.
const HARSH: Net = Net {
    min_delay: 1,
    max_delay: 1500,
    drop: 150,
    dup: 100,
};

/// Plays `TABLE_SOAK_HANDS` hands (default 16: two sessions of eight, one over a lossy network
/// and one over a harsh one) of `ruleset` in sessions of up to 8 hands, alternating the two
/// networks, and checks every seat agrees on everything.
/// A larger soak: `TABLE_SOAK_HANDS=1000 cargo test -p mahjong-table --release --test table
/// soak -- --nocapture`.
fn soak(ruleset: Ruleset, base_seed: u64) {
    let hands: u32 = std::env::var("TABLE_SOAK_HANDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(16);
    let started = std::time::Instant::now();
    let (mut played, mut sessions) = (0u32, 0u64);
    let (mut wins, mut drawn, mut abandoned, mut steps, mut delivered) = (0, 0, 0, 0, 0);
    while played < hands {
        let n = 8.min(hands - played);
        let net = if sessions % 2 == 0 { Net::LOSSY } else { HARSH };
        let sim = play_session(base_seed + sessions, ruleset, n, net);
        for r in sim.client(0).results() {
            match r.outcome {
                mahjong_rules::Outcome::Win { .. } => wins += 1,
                mahjong_rules::Outcome::Drawn => drawn += 1,
                mahjong_rules::Outcome::Abandoned { .. } => abandoned += 1,
            }
        }
        steps += sim.client(0).next_step() as usize;
        delivered += sim.delivered;
        played += n;
        sessions += 1;
    }
    eprintln!(
        "soak {ruleset}: {played} hands in {sessions} sessions, {:.1} s ({wins} won, {drawn} drawn, \
         {abandoned} abandoned); {steps} log steps, {delivered} frames delivered; \
         every seat agreed on every log hash and four-signed settlement",
        started.elapsed().as_secs_f64()
    );
}

#[test]
fn soak_qiaoma() {
    soak(Ruleset::Qiaoma, 10_000);
}

#[test]
fn soak_classic() {
    soak(Ruleset::Classic, 20_000);
}

#[test]
fn soak_baida() {
    soak(Ruleset::Baida, 30_000);
}
