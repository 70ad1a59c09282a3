//! A friend who watches: a [`Follower::watching`] given the signed log by one seat's peer,
//! in any order, books every hand as the seats do, refuses what its server changed, and is
//! never given what opens a concealed tile before the hand's audit.

use std::collections::{BTreeMap, BTreeSet};

use mahjong_deal::{Body as DealBody, ShareKind, SignedMessage};
use mahjong_rules::{Ruleset, SessionLength};
use mahjong_table::{Body, Envelope, Follower, Input, Misfit, Rejected, StepRecord, TableEvent};
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

use crate::sim::{Net, Sim, options};

fn session(seed: u64, ruleset: Ruleset, hands: u32) -> Sim {
    let mut sim = Sim::new(
        seed,
        Net::FAST,
        options(ruleset),
        SessionLength::Hands(hands),
    );
    sim.run(hands as u64 * 3_600_000);
    assert!((0..4).all(|s| sim.client(s).is_over()));
    sim
}

fn watcher(sim: &Sim) -> Follower {
    let roster = [0, 1, 2, 3].map(|i| sim.keys[i].verifying_key());
    Follower::watching(sim.stores[0].config.table, 0, roster)
}

/// Every envelope of the journal's log, as frames.
fn frames(log: &[StepRecord]) -> Vec<Vec<u8>> {
    log.iter()
        .flat_map(|r| r.entries.iter().map(Envelope::frame))
        .collect()
}

#[test]
fn a_watcher_given_the_log_in_any_order_books_what_the_seats_book() {
    for (seed, ruleset) in [(71, Ruleset::Qiaoma), (72, Ruleset::Baida)] {
        let sim = session(seed, ruleset, 2);
        let log = sim.stores[0].log.clone();
        let mut frames = frames(&log);
        // Shuffled within windows of 40 frames: a server's batches and live steps cross.
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for chunk in frames.chunks_mut(40) {
            for i in (1..chunk.len()).rev() {
                chunk.swap(i, rng.next_u32() as usize % (i + 1));
            }
        }
        let mut w = watcher(&sim);
        let mut events = Vec::new();
        let mut views = 0;
        for (i, f) in frames.into_iter().enumerate() {
            let out = w.handle(i as u64, Input::Frame(f));
            assert!(out.rejected.is_empty(), "seed {seed}: {:?}", out.rejected);
            assert!(
                out.reply.is_empty(),
                "a watcher that never sat signs nothing"
            );
            events.extend(out.events);
            // What it shows: the public side of every seat, never a concealed tile.
            if let Some(v) = w.view(1) {
                assert!(v.hand.is_empty() && v.drawn.is_none() && v.legal.is_empty());
                views += usize::from(v.seats.iter().any(|s| s.hand_size > 0));
            }
        }
        assert!(views > 0, "seed {seed}: no view of a hand under way");
        assert!(w.is_over(), "seed {seed}: not over at {:?}", w.next_step());
        assert_eq!(w.results(), sim.client(1).results(), "seed {seed}");
        let ends = events
            .iter()
            .filter(|e| matches!(e, TableEvent::HandOver { .. }))
            .count();
        assert_eq!(ends, 2);
        assert!(
            events
                .iter()
                .any(|e| matches!(e, TableEvent::SessionOver { .. }))
        );
        // Never its own tiles or a prompt: it has none.
        assert!(!events.iter().any(|e| matches!(
            e,
            TableEvent::Drew { .. } | TableEvent::YourTurn { .. } | TableEvent::RunBot { .. }
        )));
        for e in &events {
            if let TableEvent::HandStarted { tiles, .. } = e {
                assert!(tiles.is_empty(), "a watcher was dealt {tiles:?}");
            }
        }
        // Every hand face up at its end, as the seats saw it.
        let (hand, hands) = w.revealed().cloned().expect("the last hand face up");
        assert_eq!(Some(&hands), sim.client(2).revealed(hand));
    }
}

#[test]
fn an_entry_its_server_changed_is_said_not_booked() {
    let sim = session(73, Ruleset::Qiaoma, 1);
    let log = sim.stores[0].log.clone();
    let mut frames = frames(&log);
    // Change one byte of the first discard of another seat's (inside its signed bytes).
    let i = log
        .iter()
        .flat_map(|r| r.entries.iter())
        .position(|e| e.seat == 2 && matches!(&e.body, Body::Play(_)))
        .expect("a play of seat 2");
    let f = &mut frames[i];
    let n = f.len();
    f[n - 70] ^= 0x01;
    let mut w = watcher(&sim);
    let mut said = Vec::new();
    for (t, f) in frames.into_iter().enumerate() {
        let out = w.handle(t as u64, Input::Frame(f));
        said.extend(out.rejected);
    }
    assert!(
        said.iter().any(|r| matches!(
            r,
            Rejected::Misfit {
                seat: 2,
                why: Misfit::Signature,
                ..
            }
        ) || matches!(r, Rejected::Frame(_))),
        "{said:?}"
    );
    assert!(!w.is_over(), "a doctored log was booked");
    assert!(w.results().is_empty());
}

/// The deal messages an envelope carries.
fn deal_messages(e: &Envelope) -> Vec<&SignedMessage> {
    match &e.body {
        Body::Deal(m) => m.iter().collect(),
        Body::Play(p) | Body::ClaimOpen { play: p, .. } => p.shows.iter().collect(),
        _ => Vec::new(),
    }
}

#[test]
fn nothing_a_watcher_is_given_opens_a_concealed_tile_before_the_audit() {
    // Opening a wall position takes a decryption share from each of the four seats; a seat's
    // own share of a tile it drew goes out only when it shows that tile. So before a hand's
    // audit, no position may have shares from all four seats unless it was shown or opened
    // for all (a flower, a discard, a meld, the 百搭 indicator, a win).
    for (seed, ruleset) in [
        (74, Ruleset::Qiaoma),
        (75, Ruleset::Baida),
        (76, Ruleset::Classic),
    ] {
        let sim = session(seed, ruleset, 2);
        let log = sim.stores[0].log.clone();
        let mut hands_checked = 0;
        let mut by_hand: BTreeMap<u32, Vec<&Envelope>> = BTreeMap::new();
        for e in log.iter().flat_map(|r| r.entries.iter()) {
            by_hand.entry(e.hand).or_default().push(e);
        }
        for (hand, envelopes) in by_hand {
            let mut senders: BTreeMap<u8, BTreeSet<u8>> = BTreeMap::new();
            let mut opened: BTreeSet<u8> = BTreeSet::new();
            let mut audited = false;
            for e in envelopes {
                for m in deal_messages(e) {
                    match &m.message.body {
                        DealBody::AuditReveal(_) => audited = true,
                        DealBody::Share(s) => {
                            let pos = s.position;
                            senders.entry(pos).or_default().insert(m.message.seat.get());
                            if matches!(s.kind, ShareKind::Show | ShareKind::Public) {
                                opened.insert(pos);
                            }
                        }
                        _ => {}
                    }
                }
                if audited {
                    break;
                }
            }
            if senders.is_empty() {
                continue; // the set-up, before the first hand
            }
            for (pos, from) in &senders {
                assert!(
                    from.len() < 4 || opened.contains(pos),
                    "seed {seed} hand {hand}: position {pos} has shares of all four seats \
                     and was never shown"
                );
            }
            // The tiles still concealed at the audit (a hand's worth at least) have the
            // shares of the three others: the check above saw them.
            let concealed = senders.values().filter(|f| f.len() == 3).count();
            assert!(
                concealed >= 13,
                "seed {seed} hand {hand}: {concealed} concealed"
            );
            hands_checked += 1;
        }
        assert!(hands_checked >= 2);
    }
}
