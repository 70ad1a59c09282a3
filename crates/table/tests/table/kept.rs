//! Clients that keep their log in the store (every simulated seat does: `Sim` answers their
//! `Output::load` from the journal it folds). Memory holds the current and the previous
//! hand; older steps come back from the store, checked against the chain, to answer a seat
//! far behind, to compare a late envelope of an old hand, and to build evidence from step 0.

use mahjong_rules::{Action, Ruleset, SessionLength};
use mahjong_table::codec::Header;
use mahjong_table::{Body, Charge, Client, Envelope, Input, Load, Offence, Rejected, TableEvent};

use crate::lying::{equivocate_first_discard, expect_caught};
use crate::sim::{Hook, Net, Sim, cards, options};

/// A four-hand qiaoma table played to the end of hand `n`.
fn after_hands(seed: u64, n: usize) -> Sim {
    let mut sim = Sim::new(
        seed,
        Net::FAST,
        options(Ruleset::Qiaoma),
        SessionLength::Hands(8),
    );
    sim.run_until(u64::MAX, |s| {
        (0..4).all(|i| s.client(i).results().len() >= n)
    });
    sim
}

fn table_of(sim: &Sim) -> [u8; 32] {
    sim.log(0)[0].entries[0].table
}

#[test]
fn memory_holds_two_hands_and_a_restore_reads_only_the_current_one() {
    let mut sim = Sim::new(
        71,
        Net::LOSSY,
        options(Ruleset::Qiaoma),
        SessionLength::Hands(6),
    );
    for n in 1..=5 {
        sim.run_until(u64::MAX, |s| s.client(0).results().len() >= n);
        for s in 0..4 {
            let c = sim.client(s);
            let first = c.log().first().and_then(|r| r.hand()).unwrap_or(0);
            assert!(
                first + 1 >= c.hand_number(),
                "seat {s} holds hand {first} on in hand {}",
                c.hand_number()
            );
            // What it holds is exactly its journal's tail.
            let all = sim.log(s);
            assert_eq!(&all[c.first_step_held() as usize..], c.log());
        }
    }
    let c = sim.client(0);
    assert!(c.first_step_held() > 0, "nothing left memory");
    // A restart reads the store from its checkpoint on and hashes only that.
    let store = sim.stores[0].clone().from_checkpoint_on();
    let cp = store.checkpoint.clone().expect("a checkpoint");
    assert_eq!(store.base(), cp.seq);
    let back = Client::restore_with_cards(store, sim.keys[0].clone(), cards()).expect("restores");
    assert_eq!(back.log_hash(), c.log_hash());
    assert_eq!(back.next_step(), c.next_step());
    assert_eq!(back.first_step_held(), cp.seq);
    assert_eq!(back.results(), c.results());
    sim.run(u64::MAX);
    sim.assert_agree(&[0, 1, 2, 3]);
}

#[test]
fn a_request_from_far_behind_is_answered_from_the_store() {
    let mut sim = after_hands(72, 4);
    let table = table_of(&sim);
    let base = sim.client(0).first_step_held();
    assert!(base > 20, "base {base}");
    let key2 = sim.keys[2].clone();
    let now = sim.now + 60_000;
    let request = |c: &Client, from_seq: u32| {
        let header = Header {
            hand: c.hand_number(),
            seq: c.next_step(),
            prev_hash: c.log_hash(),
        };
        Envelope::sign(table, header, 2, Body::Request { from_seq, have: 0 }, &key2).encode()
    };
    let journal = sim.log(0).to_vec();
    let c = sim.clients[0].as_mut().expect("live");
    let out = c.handle(now, Input::Frame(request(c, 5)));
    assert_eq!(out.load, Some(Load { from: 5, to: base }));
    assert!(out.reply.is_empty(), "answered before the store was read");
    let stored = journal[5..base as usize].to_vec();
    let out = c.handle(
        now,
        Input::Stored {
            from: 5,
            steps: stored.clone(),
        },
    );
    assert!(out.rejected.is_empty(), "{:?}", out.rejected);
    let seqs: Vec<u32> = out
        .reply
        .iter()
        .filter(|(to, _)| *to == 2)
        .map(|(_, f)| Envelope::decode(f).expect("decodes").seq)
        .collect();
    assert_eq!(seqs.first(), Some(&5), "{seqs:?}");
    // In log order (the steps where only seat 2 spoke are not sent back to it).
    assert!(seqs.windows(2).all(|w| w[0] <= w[1]), "{seqs:?}");
    assert!(seqs.len() > 20, "{} frames", seqs.len());

    // A damaged store: one step of the run signed by another seat's key is not this log.
    let later = now + 60_000;
    let out = c.handle(later, Input::Frame(request(c, 5)));
    assert_eq!(out.load, Some(Load { from: 5, to: base }));
    let mut bad = stored.clone();
    bad[3].entries.swap(0, 1);
    let out = c.handle(
        later,
        Input::Stored {
            from: 5,
            steps: bad,
        },
    );
    assert!(out.reply.is_empty());
    assert!(
        matches!(&out.rejected[..], [Rejected::Stored(why)] if why.contains("do not chain")),
        "{:?}",
        out.rejected
    );

    // A store that starts later than asked cannot answer: said, and nothing is sent.
    let later = later + 60_000;
    let out = c.handle(later, Input::Frame(request(c, 5)));
    assert!(out.load.is_some());
    let out = c.handle(
        later,
        Input::Stored {
            from: 9,
            steps: journal[9..base as usize].to_vec(),
        },
    );
    assert!(out.reply.is_empty());
    assert!(
        matches!(&out.rejected[..], [Rejected::Stored(why)] if why.contains("no steps before step 9")),
        "{:?}",
        out.rejected
    );
}

#[test]
fn a_late_envelope_of_an_old_hand_is_proven_from_the_store() {
    let mut sim = after_hands(73, 3);
    let base = sim.client(0).first_step_held();
    assert!(base > 0);
    // Seat 1's first discard of hand 1, signed again marked timed out.
    let original = sim
        .log(0)
        .iter()
        .flat_map(|r| r.entries.iter())
        .find(|e| {
            e.hand == 1
                && e.seat == 1
                && matches!(&e.body, Body::Play(p) if matches!(p.action, Action::Discard { .. }))
        })
        .cloned()
        .expect("a discard of seat 1 in hand 1");
    let Body::Play(mut play) = original.body.clone() else {
        unreachable!()
    };
    play.timed_out = !play.timed_out;
    let twin = Envelope::sign(
        original.table,
        original.header(),
        1,
        Body::Play(play),
        &sim.keys[1],
    );
    let loads = sim.loads[0];
    sim.input_now(0, Input::Frame(twin.encode()));
    assert!(sim.loads[0] > loads, "the store was not read");
    let proof = sim.events[0]
        .iter()
        .rev()
        .find_map(|e| match e {
            TableEvent::Evidence(ev) => Some(ev.clone()),
            _ => None,
        })
        .expect("evidence");
    assert!(matches!(proof.charge, Charge::Equivocation { .. }));
    assert_eq!(proof.log.first().and_then(|r| r.seq()), Some(0));
    let culprit = proof.verify_with_cards(cards()).expect("verifies");
    assert_eq!(culprit.seat, 1);
    assert_eq!(culprit.offence, Offence::Equivocation);
    assert!(sim.client(0).evidence().contains(&proof));
    // The others get the pair, prove it from their own stores, and the honest three agree.
    sim.run(u64::MAX);
    sim.assert_agree(&[0, 2, 3]);
    for s in [2, 3] {
        assert!(
            sim.client(s)
                .evidence()
                .iter()
                .any(|e| e.verify_with_cards(cards()).is_ok_and(|c| c.seat == 1)),
            "seat {s}"
        );
    }
}

#[test]
fn a_liar_in_the_third_hand_is_caught_with_evidence_from_step_0() {
    let mut inner = equivocate_first_discard(1);
    let hook: Hook = Box::new(move |ctx, env| {
        if ctx.client.hand_number() >= 3 {
            inner(ctx, env)
        } else {
            vec![(None, env.encode())]
        }
    });
    let sim = expect_caught(74, Ruleset::Qiaoma, 1, 4, hook, |o| {
        *o == Offence::Equivocation
    });
    for s in [0, 2, 3] {
        let c = sim.client(s);
        assert!(c.first_step_held() > 0, "seat {s} held everything");
        let ev = c.evidence();
        assert!(
            ev.iter()
                .any(|e| e.log.first().and_then(|r| r.seq()) == Some(0)
                    && e.log.iter().any(|r| r.hand() == Some(2))),
            "seat {s}: no evidence with the log from step 0 through hand 2"
        );
    }
}
