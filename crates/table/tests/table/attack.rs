//! The table under attack: one dishonest seat (a modified client: its outgoing frames are
//! rewritten, or crafted with its key) must never split the honest seats' results, frame an
//! honest seat, stall them into blaming one, or exhaust a peer's memory.

use std::time::Instant;

use mahjong_rules::{Outcome, Ruleset, Seat, SessionLength};
use mahjong_table::codec::Header;
use mahjong_table::{
    Body, Charge, Client, Envelope, Evidence, Input, MAX_BUFFER_BYTES, Next, Offence, Play,
    TableEvent,
};

use crate::sim::{Hook, HookCtx, Net, Sim, cards, options};

fn resign(ctx: &HookCtx, env: &Envelope, body: Body) -> Vec<u8> {
    Envelope::sign(env.table, env.header(), env.seat, body, ctx.key).encode()
}

/// What each seat is at (printed when a scenario fails).
fn dump(sim: &Sim) {
    for s in 0..4 {
        if let Some(c) = sim.clients[s].as_ref() {
            let last: Vec<String> = sim.events[s]
                .iter()
                .rev()
                .take(6)
                .map(|e| format!("{e:.80?}"))
                .collect();
            eprintln!(
                "seat {s}: {:?} hand {} log {} results {} proven {:?} paused {}; last events {last:?}",
                c.stage(),
                c.hand_number(),
                c.next_step(),
                c.results().len(),
                c.proven(),
                c.is_paused()
            );
        }
    }
}

/// The seat an evidence record proves at fault (it must verify).
fn culprit(e: &Evidence) -> Seat {
    e.verify_with_cards(cards())
        .expect("evidence verifies")
        .seat
}

/// Every honest seat holds evidence naming `liar`, and none names anyone else.
fn all_prove(sim: &Sim, honest: &[usize], liar: Seat) {
    for &s in honest {
        let ev = sim.client(s).evidence();
        assert!(!ev.is_empty(), "seat {s} holds no evidence");
        for e in &ev {
            assert_eq!(
                culprit(e),
                liar,
                "seat {s} holds evidence against another seat"
            );
        }
    }
}

/// No booked result charges an honest seat as a leaver.
fn no_honest_leaver(sim: &Sim, honest: &[usize]) {
    for &s in honest {
        for r in sim.client(s).results() {
            if let Outcome::Abandoned { leaver, .. } = r.outcome {
                assert!(
                    !honest.contains(&(leaver as usize)),
                    "seat {s} booked hand {} as abandoned by honest seat {leaver}",
                    r.hand
                );
            }
        }
    }
}

/// The honest seats that booked a hand booked the same result.
fn same_results(sim: &Sim, honest: &[usize]) {
    for &a in honest {
        for &b in honest {
            let (ra, rb) = (sim.client(a).results(), sim.client(b).results());
            let n = ra.len().min(rb.len());
            assert_eq!(
                ra[..n],
                rb[..n],
                "seats {a} and {b} booked different results"
            );
        }
    }
}

fn moves(sim: &Sim, seat: usize) -> usize {
    sim.count(seat, |e| matches!(e, TableEvent::Moved { .. }))
}

/// A two-hand qiaoma table ten moves in, with seat 2 cut off from now for 200 s (past the
/// disconnect limit): the table and when the cut began.
fn seat_2_cut_off_past_the_limit(seed: u64) -> (Sim, u64) {
    let mut sim = Sim::new(
        seed,
        Net::LOSSY,
        options(Ruleset::Qiaoma),
        SessionLength::Hands(2),
    );
    sim.run_until(3_600_000, |s| moves(s, 0) >= 10);
    let cut_at = sim.now;
    sim.cut = Some((2, cut_at, cut_at + 200_000));
    (sim, cut_at)
}

/// Finding 2: seat 1 votes to abort (withholding the vote from seats 0 and 2), then signs a
/// plain settlement of the same hand. Holding both is proof against it, the honest voters
/// are released only by plain settlements (never by a later-hand envelope), and no two
/// honest seats book different results without that proof.
#[test]
fn a_settlement_and_an_abort_vote_of_one_seat_prove_it_at_fault() {
    // Seat 2 is cut off for 200 s: the three others vote against it at one step.
    let (mut sim, cut_at) = seat_2_cut_off_past_the_limit(91);
    let mut vote: Option<Envelope> = None;
    let mut forged = false;
    let hook: Hook = Box::new(move |ctx, env| {
        if env.is_vote() && env.hand == 1 {
            vote.get_or_insert_with(|| env.clone());
            return vec![]; // withheld, for now
        }
        let c = ctx.client;
        if let (Some(result), Some(v), false) = (c.settling(), &vote, forged) {
            // Blocked from settling by its own vote, it forges a plain settlement, and
            // hands its vote to seat 3 only.
            forged = true;
            let header = Header {
                hand: c.hand_number(),
                seq: c.next_step(),
                prev_hash: c.log_hash(),
            };
            let body = Body::Settle {
                result: result.hash(),
                next: Next::Continue,
            };
            let settle = Envelope::sign(env.table, header, env.seat, body, ctx.key);
            return vec![
                (Some(3), v.encode()),
                (None, settle.encode()),
                (None, env.encode()),
            ];
        }
        vec![(None, env.encode())]
    });
    sim.hooks[1] = Some(hook);
    // Its client never sees the others' votes (so it never applies the abort itself).
    sim.inbound[1] = Some(Box::new(|env| !env.is_vote()));
    let honest = [0usize, 2, 3];
    let proven = |s: &Sim| {
        honest
            .iter()
            .all(|&h| s.client(h).proven().iter().any(|&(_, seat)| seat == 1))
    };
    sim.run_until(cut_at + 3 * 3_600_000, proven);
    if !proven(&sim) {
        dump(&sim);
    }
    all_prove(&sim, &honest, 1);
    same_results(&sim, &honest);
    for &s in &honest {
        for e in sim.client(s).evidence() {
            let Charge::Equivocation { first, second } = &e.charge else {
                panic!("an equivocation record expected");
            };
            // A vote and a settlement of one hand.
            assert!(first.is_vote() != second.is_vote());
            assert_eq!(culprit(&e), 1);
        }
    }
}

/// Finding 1: seat 1 signs `Settle{Continue}` for seats 0 and 2 and `Settle{Stop}` for
/// seat 3. Seat 3 ends the session; the others, before blaming its silence in the next
/// hand, ask for the step that ended the last one, find the two versions, and end it too.
#[test]
fn a_settlement_told_two_ways_at_a_hand_boundary_is_caught_and_blames_no_honest_seat() {
    let mut sim = Sim::new(
        92,
        Net::LOSSY,
        options(Ruleset::Qiaoma),
        SessionLength::Hands(2),
    );
    let hook: Hook = Box::new(move |ctx, env| match &env.body {
        Body::Settle { result, .. } if env.hand == 1 => {
            let stop = resign(
                ctx,
                env,
                Body::Settle {
                    result: *result,
                    next: Next::Stop,
                },
            );
            vec![
                (Some(0), env.encode()),
                (Some(2), env.encode()),
                (Some(3), stop),
            ]
        }
        _ => vec![(None, env.encode())],
    });
    sim.hooks[1] = Some(hook);
    let honest = [0usize, 2, 3];
    let over = |s: &Sim| honest.iter().all(|&h| s.client(h).is_over());
    sim.run_until(4 * 3_600_000, over);
    if !over(&sim) {
        dump(&sim);
    }
    assert!(over(&sim), "the honest seats did not end");
    no_honest_leaver(&sim, &honest);
    same_results(&sim, &honest);
    for &s in &honest {
        assert_eq!(sim.client(s).results().len(), 1, "seat {s}");
        assert!(!sim.client(s).results()[0].aborted);
    }
    // Seats 0 and 2 (which would have blamed seat 3's silence) hold the proof; seat 3 ended
    // at once and may hold it too (if the pair reached it), naming seat 1 only.
    all_prove(&sim, &[0, 2], 1);
    for &s in &honest {
        assert!(sim.client(s).evidence().iter().all(|e| matches!(
            e.verify_with_cards(cards()).map(|c| c.offence),
            Ok(Offence::Equivocation)
        )));
    }
}

/// Finding 1 at the set-up: seat 2 accepts for seats 0 and 1 and declines for seat 3.
#[test]
fn an_acceptance_told_two_ways_fails_the_set_up_for_every_honest_seat() {
    let mut sim = Sim::new(
        95,
        Net::LOSSY,
        options(Ruleset::Classic),
        SessionLength::Hands(1),
    );
    let hook: Hook = Box::new(move |ctx, env| match &env.body {
        Body::Accept { .. } => vec![
            (Some(0), env.encode()),
            (Some(1), env.encode()),
            (Some(3), resign(ctx, env, Body::Decline)),
        ],
        _ => vec![(None, env.encode())],
    });
    sim.hooks[2] = Some(hook);
    let honest = [0usize, 1, 3];
    let over = |s: &Sim| honest.iter().all(|&h| s.client(h).is_over());
    sim.run_until(3_600_000, over);
    assert!(over(&sim), "the honest seats did not end");
    for &s in &honest {
        assert!(sim.client(s).results().is_empty(), "seat {s} booked a hand");
        assert_eq!(
            sim.count(s, |e| matches!(e, TableEvent::SetupFailed { seat: 2 })),
            1,
            "seat {s}"
        );
    }
    all_prove(&sim, &honest, 2);
}

/// Resident set size of this process, in KiB (Linux), for the printed figures.
fn rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Finding 3: 10,000 validly signed frames of seat 1's largest entry, for steps ahead of
/// seat 0 in this hand and the next (most of them conflicting): seat 0 keeps at most
/// `MAX_BUFFER_BYTES` of them, its CPU per frame does not grow, and the hand goes on.
#[test]
fn a_flood_of_signed_entries_ahead_stays_within_a_small_buffer() {
    let mut sim = Sim::new(
        93,
        Net::FAST,
        options(Ruleset::Classic),
        SessionLength::Hands(1),
    );
    sim.run_until(3_600_000, |s| moves(s, 0) >= 4);
    let c0 = sim.client(0);
    let (table, hand, next) = (
        sim.log(0)[0].entries[0].table,
        c0.hand_number(),
        c0.next_step(),
    );
    let big = sim
        .log(0)
        .iter()
        .flat_map(|r| r.entries.iter())
        .filter(|e| e.seat == 1)
        .max_by_key(|e| e.encode().len())
        .expect("an entry of seat 1")
        .body
        .clone();
    let key = sim.keys[1].clone();
    let frames: Vec<Vec<u8>> = (0..10_000u32)
        .map(|i| {
            let mut prev_hash = [0u8; 32];
            prev_hash[..4].copy_from_slice(&i.to_le_bytes());
            let header = Header {
                hand: hand + i % 2,
                seq: next + 1 + (i / 2) % 24,
                prev_hash,
            };
            Envelope::sign(table, header, 1, big.clone(), &key).encode()
        })
        .collect();
    let size = frames[0].len();
    let rss0 = rss_kib();
    let mut cpu = Vec::new();
    for chunk in frames.chunks(1000) {
        let t = Instant::now();
        for f in chunk {
            sim.input_now(0, Input::Frame(f.clone()));
        }
        cpu.push(t.elapsed().as_secs_f64() * 1e6 / chunk.len() as f64);
    }
    let rss1 = rss_kib();
    let held = sim.client(0).buffered();
    eprintln!(
        "flood: 10,000 frames of {size} B from one seat: {held} B buffered (budget \
         {MAX_BUFFER_BYTES} per seat); CPU per frame by thousand: {:?} µs; RSS {:?} -> {:?} KiB",
        cpu.iter().map(|c| c.round()).collect::<Vec<_>>(),
        rss0,
        rss1
    );
    assert!(held <= MAX_BUFFER_BYTES, "{held} bytes buffered");
    // The forged entries conflict with one another: one proof, not thousands.
    assert_eq!(sim.client(0).proven(), vec![(hand, 1)]);
    assert_eq!(
        sim.count(0, |e| matches!(e, TableEvent::Evidence(_))),
        1,
        "one evidence event"
    );
    // The table goes on: the proof reaches the others and the hand is aborted naming 1.
    sim.run(4 * 3_600_000);
    let honest = [0usize, 2, 3];
    sim.assert_agree(&honest);
    all_prove(&sim, &honest, 1);
    let r = &sim.client(0).results()[0];
    assert!(r.aborted && matches!(r.outcome, Outcome::Abandoned { leaver: 1, .. }));
}

/// Finding 4: seat 1 signs a second version of each of its moves of the hand so far: one
/// proof per culprit per hand, one evidence event, no log copy per pair.
#[test]
fn an_equivocation_flood_keeps_one_proof_per_culprit_per_hand() {
    let mut sim = Sim::new(
        96,
        Net::FAST,
        options(Ruleset::Qiaoma),
        SessionLength::Hands(1),
    );
    sim.run_until(3_600_000, |s| moves(s, 0) >= 40);
    let key = sim.keys[1].clone();
    let twins: Vec<Vec<u8>> = sim
        .log(0)
        .iter()
        .flat_map(|r| r.entries.iter())
        .filter(|e| e.seat == 1 && e.hand == 1)
        .filter_map(|e| {
            let body = match &e.body {
                Body::Play(p) => Body::Play(Play {
                    timed_out: !p.timed_out,
                    ..p.clone()
                }),
                Body::ClaimOpen { play, nonce } => Body::ClaimOpen {
                    play: Play {
                        timed_out: !play.timed_out,
                        ..play.clone()
                    },
                    nonce: *nonce,
                },
                _ => return None,
            };
            Some(Envelope::sign(e.table, e.header(), 1, body, &key).encode())
        })
        .collect();
    assert!(twins.len() >= 10, "{} moves of seat 1", twins.len());
    let sent0 = sim.client(0).stats().broadcast_frames;
    for f in &twins {
        sim.input_now(0, Input::Frame(f.clone()));
    }
    assert_eq!(
        sim.count(0, |e| matches!(e, TableEvent::Evidence(_))),
        1,
        "{} pairs make one evidence event",
        twins.len()
    );
    assert_eq!(sim.client(0).proven(), vec![(1, 1)]);
    let ev = sim.client(0).evidence();
    assert_eq!(ev.len(), 1);
    assert_eq!(culprit(&ev[0]), 1);
    // Both versions of the first pair are sent once (and its vote).
    let sent = sim.client(0).stats().broadcast_frames - sent0;
    assert!(sent <= 4, "{sent} frames sent for {} pairs", twins.len());
    sim.run(4 * 3_600_000);
    sim.assert_agree(&[0, 2, 3]);
    all_prove(&sim, &[0, 2, 3], 1);
}

/// Two seats silent at once: the other two see both, pause and say so (no vote can gather),
/// resume when one comes back, and then vote the other out after the limit.
#[test]
fn two_silent_seats_pause_the_table_until_one_returns() {
    let mut sim = Sim::new(
        94,
        Net::LOSSY,
        options(Ruleset::Qiaoma),
        SessionLength::Hands(2),
    );
    sim.run_until(3_600_000, |s| moves(s, 0) >= 10);
    let t = sim.now;
    sim.cut = Some((2, t, u64::MAX));
    sim.cuts.push((3, t, t + 400_000));
    sim.run_until(t + 390_000, |_| false);
    for s in [0, 1] {
        assert!(sim.count(s, |e| matches!(e, TableEvent::SeatSilent { seat: 2 })) >= 1);
        assert!(sim.count(s, |e| matches!(e, TableEvent::SeatSilent { seat: 3 })) >= 1);
        assert_eq!(
            sim.count(s, |e| matches!(e, TableEvent::Paused { silent } if silent.contains(&2) && silent.contains(&3))),
            1,
            "seat {s} did not pause"
        );
        assert!(sim.client(s).is_paused());
        assert!(sim.client(s).results().is_empty());
    }
    sim.run(6 * 3_600_000);
    dump(&sim);
    for s in [0, 1] {
        assert!(sim.count(s, |e| matches!(e, TableEvent::Resumed)) >= 1);
    }
    sim.assert_agree(&[0, 1, 3]);
    let r = &sim.client(0).results()[0];
    assert!(r.aborted && matches!(r.outcome, Outcome::Abandoned { leaver: 2, .. }));
    assert_eq!(sim.client(0).results().len(), 2);
}

/// While paused, the two remaining seats can leave: nothing is booked for the unfinished
/// hand, and their journal still holds it (a restore resumes the hand).
#[test]
fn while_paused_the_two_remaining_seats_leave_with_nothing_booked() {
    let mut sim = Sim::new(
        97,
        Net::LOSSY,
        options(Ruleset::Classic),
        SessionLength::Hands(1),
    );
    sim.run_until(3_600_000, |s| moves(s, 0) >= 6);
    let t = sim.now;
    sim.cut = Some((2, t, u64::MAX));
    sim.cuts.push((3, t, u64::MAX));
    sim.run_until(t + 3_600_000, |s| {
        s.client(0).is_paused() && s.client(1).is_paused()
    });
    for s in [0, 1] {
        assert!(sim.client(s).is_paused(), "seat {s} did not pause");
        sim.input_now(s, Input::Leave);
        assert!(sim.client(s).is_over());
        assert!(sim.client(s).results().is_empty());
        assert_eq!(sim.count(s, |e| matches!(e, TableEvent::Left)), 1);
        // No vote was cast, nothing booked; the journal resumes the hand.
        assert!(!sim.log(s).iter().any(|r| r.is_abort()));
        let back = Client::restore_with_cards(sim.stores[s].clone(), sim.keys[s].clone(), cards())
            .expect("restores");
        assert!(!back.is_over());
        assert_eq!(back.hand_number(), 1);
        assert_eq!(back.log_hash(), sim.client(s).log_hash());
    }
}

/// Finding 5: a seat that answers claims late (asleep: its own timer answers for it) sees
/// only the others' commitments before it commits; the answers are opened in the next step.
#[test]
fn a_late_claim_answer_sees_only_commitments() {
    use std::cell::RefCell;
    use std::rc::Rc;
    let mut sim = Sim::new(
        98,
        Net::LOSSY,
        options(Ruleset::Classic),
        SessionLength::Hands(1),
    );
    sim.asleep = Some(3);
    // What seat 3 sent and received, in order: (sent?, step, body name).
    type Seen = Rc<RefCell<Vec<(bool, u32, &'static str)>>>;
    let seen: Seen = Rc::default();
    let sent = seen.clone();
    sim.hooks[3] = Some(Box::new(move |_, env| {
        sent.borrow_mut().push((true, env.seq, env.body.name()));
        vec![(None, env.encode())]
    }));
    let got = seen.clone();
    sim.inbound[3] = Some(Box::new(move |env| {
        got.borrow_mut().push((false, env.seq, env.body.name()));
        true
    }));
    sim.run(3_600_000);
    sim.assert_agree(&[0, 1, 2, 3]);
    let log = seen.borrow();
    let commits: Vec<u32> = log
        .iter()
        .filter(|(s, _, b)| *s && *b == "claim-commit")
        .map(|(_, seq, _)| *seq)
        .collect();
    assert!(commits.len() >= 5, "{} claim windows", commits.len());
    for seq in commits {
        let own = log
            .iter()
            .position(|&(s, q, b)| s && q == seq && b == "claim-commit")
            .expect("sent");
        // Before its commitment, no answer of that window was readable: the others' entries
        // for it are commitments, and their openings come in the next step.
        for &(s, q, b) in &log[..own] {
            assert!(
                s || !(q == seq && b == "play" || q == seq + 1 && b == "claim-open"),
                "seat 3 saw a {b} of step {q} before committing at step {seq}"
            );
        }
    }
    // Every claim window of the log is a commitment step followed by its opening.
    let log = &sim.stores[0].log;
    for (i, r) in log.iter().enumerate() {
        if matches!(r.entries[0].body, Body::ClaimCommit { .. }) {
            let next = &log[i + 1];
            assert!(matches!(next.entries[0].body, Body::ClaimOpen { .. }));
            assert_eq!(next.entries.len(), r.entries.len());
        }
    }
}

/// The withheld vote: seat 2 is cut off past the disconnect limit and seats 0 and 3 vote
/// against it, but seat 1 keeps its vote back, so no abort forms and seat 2 comes back and
/// plays on. At the settlement, seat 1 sends its old vote instead of its settlement: seats 0
/// and 3 (whose own votes wait on a plain settlement to void them) book the abort, and seat
/// 2, which had signed the settlement, must book it too rather than wait there for good.
/// Every honest seat books the same result (or holds evidence naming seat 1).
#[test]
fn a_vote_withheld_until_the_settlement_leaves_no_honest_seat_behind() {
    let (mut sim, cut_at) = seat_2_cut_off_past_the_limit(93);
    let mut vote: Option<Envelope> = None;
    let mut sent = false;
    let hook: Hook = Box::new(move |ctx, env| {
        let settling = ctx.client.settling().is_some() && env.hand == 1;
        if (env.is_vote() || env.is_settle()) && env.hand == 1 {
            vote.get_or_insert_with(|| env.clone());
            if !settling {
                return vec![]; // withheld
            }
        }
        if settling {
            // At the settlement: its old vote goes out, and nothing else of this hand.
            if !sent && let Some(v) = vote.as_ref().filter(|v| v.is_vote()) {
                sent = true;
                return vec![(None, v.encode())];
            }
            return vec![];
        }
        vec![(None, env.encode())]
    });
    sim.hooks[1] = Some(hook);
    // It never applies the others' votes itself.
    sim.inbound[1] = Some(Box::new(|env| !env.is_vote()));
    let honest = [0usize, 2, 3];
    let settled = |s: &Sim| honest.iter().all(|&h| !s.client(h).results().is_empty());
    sim.run_until(cut_at + 3 * 3_600_000, settled);
    if !settled(&sim) {
        dump(&sim);
    }
    assert!(settled(&sim), "an honest seat booked nothing");
    same_results(&sim, &honest);
    let first = &sim.client(0).results()[0];
    assert!(first.aborted, "{first:?}");
}
