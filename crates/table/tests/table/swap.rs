//! 换牌 (`swap_five`) over the table protocol, through the real clients on the simulated
//! network: the answers are committed then opened, the five put back stay face down (no
//! other seat can read them before the audit), the swap draws are private draws, a seat that
//! lies about the tiles it puts back is caught and named, and a seat restarted in the middle
//! of the swap finds its answer again.

use mahjong_rules::view::PublicPhase;
use mahjong_rules::wall::{DEALT, deal_seat};
use mahjong_rules::{Action, Event, Options, Ruleset, Seat, SessionLength};
use mahjong_table::codec::{chain, claim_commitment, genesis};
use mahjong_table::{Body, Envelope, Offence, Play, TableEvent};

use crate::sim::{Hook, Net, Sim};

fn swap_options(ruleset: Ruleset) -> Options {
    let mut o = Options::preset(ruleset);
    o.swap_five = true;
    o
}

/// The swaps (seat, positions put back) in a seat's events.
fn swaps(sim: &Sim, seat: usize) -> Vec<(Seat, [u8; 5])> {
    sim.events[seat]
        .iter()
        .filter_map(|e| match e {
            TableEvent::Moved { events, .. } => Some(events),
            _ => None,
        })
        .flatten()
        .filter_map(|e| match e {
            Event::Swapped { seat, put_back } => Some((*seat, *put_back)),
            _ => None,
        })
        .collect()
}

fn in_swap(sim: &Sim, seat: usize) -> bool {
    sim.clients[seat]
        .as_ref()
        .and_then(|c| c.view())
        .is_some_and(|v| matches!(v.phase, PublicPhase::Swap { .. }))
}

#[test]
fn honest_swaps_stay_hidden_and_every_seat_agrees() {
    let mut sim = Sim::new(
        71,
        Net::LOSSY,
        swap_options(Ruleset::Qiaoma),
        SessionLength::Hands(2),
    );
    // Once the first swap is resolved, nobody else can read the tiles a seat put back.
    let mut checked = false;
    sim.run_until(6 * 3_600_000, |s| {
        let done = swaps(s, 0);
        if !checked && !done.is_empty() && s.clients.iter().all(Option::is_some) {
            for &(seat, put_back) in &done {
                for other in (0..4).filter(|&o| o != seat as usize) {
                    let deal = s.client(other).deal().expect("a seat's deal");
                    for pos in put_back {
                        assert!(
                            deal.card_at(pos).is_none(),
                            "seat {other} can read position {pos} that seat {seat} put back"
                        );
                    }
                }
            }
            checked = true;
        }
        false
    });
    assert!(checked, "somebody swapped");
    sim.assert_agree(&[0, 1, 2, 3]);
    let results = sim.client(0).results();
    assert_eq!(results.len(), 2);
    assert!(results.iter().all(|r| !r.aborted));
    for s in 0..4 {
        assert!(sim.client(s).evidence().is_empty());
        assert_eq!(swaps(&sim, s), swaps(&sim, 0), "seat {s} saw other swaps");
    }
    // Each seat read exactly its own swap draws: five private draws per swap of its own.
    let own = swaps(&sim, 0).iter().filter(|(s, _)| *s == 1).count();
    let drew_live = sim.events[1]
        .iter()
        .filter(|e| matches!(e, TableEvent::Drew { card, replacement: false } if card.pos as usize >= DEALT))
        .count();
    assert!(drew_live >= 5 * own);
}

/// Seat 1 answers 换牌 naming four of its own tiles and one of seat 0's (a tile it never
/// held), commits to that answer and opens it: every honest peer refuses the opened move and
/// names seat 1.
#[test]
fn a_seat_lying_about_the_tiles_it_puts_back_is_caught() {
    let liar: Seat = 1;
    let mut lie: Option<(u32, Play, [u8; 32], Envelope)> = None;
    let hook: Hook = Box::new(move |ctx, env| {
        let commit = matches!(env.body, Body::ClaimCommit { .. });
        let open = matches!(env.body, Body::ClaimOpen { .. });
        if let Some((seq, play, nonce, sent)) = &lie {
            if commit && env.seq == *seq {
                return vec![(None, sent.encode())];
            }
            if open && env.seq == *seq + 1 {
                let log = ctx.client.log();
                let prev = log[..*seq as usize]
                    .iter()
                    .enumerate()
                    .fold(genesis(&env.table), |h, (i, r)| {
                        chain(&h, i as u32, &r.entries)
                    });
                let entries: Vec<Envelope> = log[*seq as usize]
                    .entries
                    .iter()
                    .map(|e| {
                        if e.seat == env.seat {
                            sent.clone()
                        } else {
                            e.clone()
                        }
                    })
                    .collect();
                let mut header = env.header();
                header.prev_hash = chain(&prev, *seq, &entries);
                let body = Body::ClaimOpen {
                    play: play.clone(),
                    nonce: *nonce,
                };
                return vec![(
                    None,
                    Envelope::sign(env.table, header, env.seat, body, ctx.key).encode(),
                )];
            }
            return vec![(None, env.encode())];
        }
        let Some(view) = ctx.client.view() else {
            return vec![(None, env.encode())];
        };
        if !commit || !matches!(view.phase, PublicPhase::Swap { .. }) {
            return vec![(None, env.encode())];
        }
        // Four own tiles and a tile dealt to seat 0.
        let other = (0..DEALT)
            .find(|&p| deal_seat(view.dealer, p) == 0)
            .expect("seat 0 is dealt tiles") as u8;
        let mut put_back: Vec<u8> = view.hand.iter().take(4).map(|c| c.pos).collect();
        put_back.push(other);
        put_back.sort_unstable();
        let play = Play {
            action: Action::Swap {
                put_back: put_back.try_into().expect("five"),
            },
            timed_out: false,
            shows: vec![],
        };
        let nonce = [9u8; 32];
        let sent = Envelope::sign(
            env.table,
            env.header(),
            env.seat,
            Body::ClaimCommit {
                commitment: claim_commitment(&play, &nonce),
            },
            ctx.key,
        );
        lie = Some((env.seq, play, nonce, sent.clone()));
        vec![(None, sent.encode())]
    });
    let mut sim = Sim::new(
        72,
        Net::LOSSY,
        swap_options(Ruleset::Classic),
        SessionLength::Hands(1),
    );
    sim.hooks[liar as usize] = Some(hook);
    let honest = [0usize, 2, 3];
    let all_over = |sim: &Sim| {
        honest
            .iter()
            .all(|&s| sim.clients[s].as_ref().is_some_and(|c| c.is_over()))
    };
    sim.run_until(6 * 3_600_000, all_over);
    assert!(all_over(&sim), "the honest seats did not finish");
    sim.assert_agree(&honest);
    for s in honest {
        let ev = sim.client(s).evidence();
        assert!(!ev.is_empty(), "seat {s} holds no evidence");
        for e in ev {
            let culprit = e
                .verify_with_cards(crate::sim::cards())
                .expect("the evidence verifies offline");
            assert_eq!(culprit.seat, liar);
            assert!(
                matches!(&culprit.offence, Offence::Illegal(err) if err.to_string().contains("holds no tile")),
                "{:?}",
                culprit.offence
            );
        }
        let r = &sim.client(s).results()[0];
        assert!(r.aborted);
        assert!(
            matches!(r.outcome, mahjong_rules::Outcome::Abandoned { leaver, .. } if leaver == liar)
        );
    }
}

/// A seat crashes in the middle of 换牌 — once before it answered, once just after it sent
/// its commitment (before the opening) — and is restored from its journal: it answers (or
/// finds the answer its logged commitment hides and opens it) and the hand goes on to the end
/// with nobody blamed.
#[test]
fn a_seat_restarted_mid_swap_resumes_it() {
    for (seed, after_commit) in [(73u64, false), (74, true)] {
        let mut sim = Sim::new(
            seed,
            Net::LOSSY,
            swap_options(Ruleset::Baida),
            SessionLength::Hands(1),
        );
        let committed = std::rc::Rc::new(std::cell::Cell::new(false));
        let flag = committed.clone();
        let hook: Hook = Box::new(move |ctx, env| {
            let swap = ctx
                .client
                .view()
                .is_some_and(|v| matches!(v.phase, PublicPhase::Swap { .. }));
            if swap && matches!(env.body, Body::ClaimCommit { .. }) {
                flag.set(true);
            }
            vec![(None, env.encode())]
        });
        sim.hooks[2] = Some(hook);
        sim.run_until(3_600_000, |s| {
            in_swap(s, 2) && (!after_commit || committed.get())
        });
        assert!(in_swap(&sim, 2), "seed {seed}: the swap was reached");
        sim.hooks[2] = None;
        sim.crash(2, 3_000);
        sim.run(6 * 3_600_000);
        sim.assert_agree(&[0, 1, 2, 3]);
        let results = sim.client(0).results();
        assert_eq!(results.len(), 1, "seed {seed}");
        assert!(!results[0].aborted, "seed {seed}: {:?}", results[0].outcome);
        for s in 0..4 {
            assert!(sim.client(s).evidence().is_empty(), "seed {seed}");
        }
    }
}
