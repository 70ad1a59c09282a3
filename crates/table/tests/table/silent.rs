//! Silent seats: one that never answers, one that answers late, one asleep at the table, one
//! that crashes and resumes.

use mahjong_rules::{Outcome, Ruleset, SessionLength};
use mahjong_table::{Body, TableEvent};
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

use crate::sim::{Net, Sim, options};

fn moves(sim: &Sim, seat: usize) -> usize {
    sim.count(seat, |e| matches!(e, TableEvent::Moved { .. }))
}

/// Runs until seat 0 has seen `n` moves.
fn run_to_move(sim: &mut Sim, n: usize) {
    sim.run_until(3_600_000, |s| moves(s, 0) >= n);
    assert!(moves(sim, 0) >= n, "the hand never got to move {n}");
}

#[test]
fn silent_seat_is_aborted_after_the_disconnect_limit_and_replaced_by_a_bot() {
    let mut sim = Sim::new(
        21,
        Net::LOSSY,
        options(Ruleset::Qiaoma),
        SessionLength::Hands(2),
    );
    run_to_move(&mut sim, 12);
    let cut_at = sim.now;
    sim.cut = Some((2, cut_at, u64::MAX));
    sim.run(4 * 3_600_000);
    let others = [0, 1, 3];
    for &s in &others {
        assert!(sim.count(s, |e| matches!(e, TableEvent::SeatSilent { seat: 2 })) >= 1);
        assert_eq!(
            sim.count(s, |e| matches!(
                e,
                TableEvent::SeatReplaced {
                    seat: 2,
                    controller: 3
                }
            )),
            1
        );
    }
    // Seat 3's peer now runs a bot in seat 2 (slot 2 holds the bot's client).
    sim.assert_agree(&[0, 1, 2, 3]);
    let results = sim.client(0).results();
    assert_eq!(results.len(), 2);
    let first = &results[0];
    assert!(first.aborted);
    assert!(matches!(
        first.outcome,
        Outcome::Abandoned { leaver: 2, .. }
    ));
    // Qiaoma leaver penalty: 1 stake split among the three others.
    assert_eq!(first.payments.iter().map(|m| m.0).sum::<i64>(), 0);
    assert!(first.payments[2].0 < 0);
    // The abort is three votes, cast no earlier than the disconnect limit.
    let abort = sim
        .log(0)
        .iter()
        .find(|r| r.is_abort())
        .expect("abort step");
    assert_eq!(abort.entries.len(), 3);
    assert!(abort.entries.iter().all(|e| e.seat != 2));
    assert!(sim.now >= cut_at + 180_000);
    assert!(!results[1].aborted);
    for s in 0..4 {
        assert!(sim.client(s).is_over());
    }
}

#[test]
fn late_seat_is_warned_about_then_returns_and_the_hand_goes_on() {
    let mut sim = Sim::new(
        22,
        Net::LOSSY,
        options(Ruleset::Classic),
        SessionLength::Hands(1),
    );
    run_to_move(&mut sim, 8);
    sim.cut = Some((1, sim.now, sim.now + 60_000));
    sim.run(3_600_000);
    for s in [0, 2, 3] {
        assert!(sim.count(s, |e| matches!(e, TableEvent::SeatSilent { seat: 1 })) >= 1);
        assert!(sim.count(s, |e| matches!(e, TableEvent::SeatReturned { seat: 1 })) >= 1);
    }
    sim.assert_agree(&[0, 1, 2, 3]);
    let results = sim.client(0).results();
    assert_eq!(results.len(), 1);
    assert!(!results[0].aborted);
    assert!(!sim.log(0).iter().any(|r| r.is_abort()));
}

#[test]
fn sleeping_player_is_played_by_its_own_clients_timer() {
    let mut sim = Sim::new(
        23,
        Net::LOSSY,
        options(Ruleset::Qiaoma),
        SessionLength::Hands(1),
    );
    sim.asleep = Some(3);
    sim.run(3_600_000);
    sim.assert_agree(&[0, 1, 2, 3]);
    assert_eq!(sim.client(0).results().len(), 1);
    let log = sim.log(0);
    let timed: Vec<u8> = log
        .iter()
        .flat_map(|r| r.entries.iter())
        .filter(|e| matches!(&e.body, Body::Play(p) if p.timed_out))
        .map(|e| e.seat)
        .collect();
    assert!(!timed.is_empty());
    assert!(timed.iter().all(|&s| s == 3), "{timed:?}");
    // Every move of seat 3 was played by its timer.
    assert!(
        log.iter()
            .flat_map(|r| r.entries.iter())
            .filter(|e| e.seat == 3)
            .all(|e| !matches!(&e.body, Body::Play(p) if !p.timed_out))
    );
}

#[test]
fn baida_sleeper_becomes_a_leaver_on_its_sixth_timeout() {
    let mut sim = Sim::new(
        24,
        Net::LOSSY,
        options(Ruleset::Baida),
        SessionLength::Hands(2),
    );
    sim.asleep = Some(1);
    sim.stop_after_hands = 1;
    sim.run(3_600_000);
    sim.assert_agree(&[0, 1, 2, 3]);
    let first = &sim.client(0).results()[0];
    // A rules leaver (not an abort): the hand ends Abandoned, settled by all four.
    assert!(!first.aborted);
    assert!(matches!(
        first.outcome,
        Outcome::Abandoned { leaver: 1, .. }
    ));
    // 60 stakes, 20 to each other seat.
    assert_eq!(first.payments[1].0, -6000);
}

/// Crashes a random seat at a random moment and restarts it from its store.
fn crash_and_resume(seed: u64) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut sim = Sim::new(
        seed,
        Net::LOSSY,
        options(Ruleset::Qiaoma),
        SessionLength::Hands(2),
    );
    let victim = (rng.next_u32() % 4) as usize;
    let at = 1_000 + rng.next_u64() % 250_000;
    let down = 500 + rng.next_u64() % 60_000;
    sim.run_until(3_600_000, |s| s.now >= at);
    sim.crash(victim, down);
    sim.run(4 * 3_600_000);
    for s in 0..4 {
        assert!(sim.client(s).is_over(), "seed {seed}: seat {s} not over");
    }
    sim.assert_agree(&[0, 1, 2, 3]);
    let results = sim.client(0).results();
    assert_eq!(results.len(), 2, "seed {seed}");
    assert!(
        results.iter().all(|r| !r.aborted),
        "seed {seed}: crash within the limit aborts nothing"
    );
}

#[test]
fn crashed_seat_resumes_from_its_store_at_a_random_step() {
    for seed in [31, 32, 33] {
        crash_and_resume(seed);
    }
}

#[test]
fn seat_down_past_the_limit_is_aborted_and_learns_it_when_back() {
    let mut sim = Sim::new(
        41,
        Net::LOSSY,
        options(Ruleset::Qiaoma),
        SessionLength::Hands(1),
    );
    run_to_move(&mut sim, 20);
    sim.crash(1, 400_000);
    sim.run(3_600_000);
    // The hand was aborted naming seat 1; when it came back, it found the abort, took its
    // penalty and left.
    let r = &sim.client(0).results()[0];
    assert!(r.aborted && matches!(r.outcome, Outcome::Abandoned { leaver: 1, .. }));
    assert_eq!(sim.client(1).results(), sim.client(0).results());
    assert!(sim.client(1).is_over());
}

/// The outcome of the first hand as seat 0 saw it when the last move was played.
fn first_outcome(sim: &Sim) -> Option<Outcome> {
    sim.events[0].iter().find_map(|e| match e {
        TableEvent::Moved { events, .. } => events.iter().find_map(|ev| match ev {
            mahjong_rules::Event::HandOver { outcome } => Some((**outcome).clone()),
            _ => None,
        }),
        _ => None,
    })
}

#[test]
fn a_loser_silent_after_the_last_move_still_pays_its_loss() {
    // Find a seed whose first hand is won, then cut the biggest loser off right after the
    // winning move, before it reveals its secrets for the audit.
    for seed in 40..60 {
        let mut sim = Sim::new(
            seed,
            Net::LOSSY,
            options(Ruleset::Qiaoma),
            SessionLength::Hands(2),
        );
        sim.run_until(3_600_000, |s| first_outcome(s).is_some());
        let Some(outcome @ Outcome::Win { .. }) = first_outcome(&sim) else {
            continue;
        };
        let paid = outcome.payments();
        let loser = (0..4).min_by_key(|&s| paid[s].0).expect("a seat");
        assert!(paid[loser].0 < 0);
        sim.cut = Some((loser as u8, sim.now, u64::MAX));
        sim.run(4 * 3_600_000);
        let others: Vec<usize> = (0..4).filter(|&s| s != loser).collect();
        let results = sim.client(others[0]).results();
        let first = &results[0];
        // Voted out by the three others (at the audit, or at the settlement step, where the
        // votes sign the settled result itself).
        let votes = sim.log(others[0]).iter().find(|r| r.is_abort());
        assert!(
            votes.is_some_and(|r| r.entries.iter().all(|e| matches!(
                e.body,
                mahjong_table::Body::Abort { culprit, .. } if culprit as usize == loser
            ))),
            "the silent seat was voted out"
        );
        assert_eq!(first.outcome, outcome, "the agreed outcome stands");
        assert_eq!(
            first.payments, paid,
            "the loser pays its loss, not the leaver penalty"
        );
        for &s in &others[1..] {
            assert_eq!(sim.client(s).results()[0].payments, paid);
        }
        return;
    }
    panic!("no seed in 40..60 gave a won first hand");
}

#[test]
fn a_seat_silent_at_the_set_up_fails_it_after_the_start_timer_not_the_disconnect_limit() {
    // Seat 2 is cut off from the start: it never sees the proposal and never answers.
    let mut sim = Sim::new(
        25,
        Net::LOSSY,
        options(Ruleset::Qiaoma),
        SessionLength::Hands(1),
    );
    sim.cut = Some((2, 0, u64::MAX));
    let others = [0usize, 1, 3];
    let failed = |s: &Sim| {
        others
            .iter()
            .all(|&o| s.count(o, |e| matches!(e, TableEvent::SetupFailed { seat: 2 })) == 1)
    };
    sim.run_until(3_600_000, failed);
    assert!(failed(&sim), "the set-up never failed");
    // start_seconds (15) and the grace (5), not the disconnect limit (180).
    assert!(sim.now >= 20_000, "failed at {} ms", sim.now);
    assert!(sim.now < 30_000, "failed only at {} ms", sim.now);
    for &o in &others {
        assert!(sim.client(o).is_over());
        assert!(sim.client(o).results().is_empty());
    }
}

/// A seat that accepts the set-up and then never speaks (a squatter): the others vote it out
/// after `start_seconds` and the grace, not after the disconnect limit, a bot takes its seat
/// and the session is played.
#[test]
fn a_seat_silent_from_the_first_deal_is_replaced_within_seconds() {
    let opts = options(Ruleset::Qiaoma);
    let limit = (u64::from(opts.start_seconds) * 1000) + mahjong_table::SILENT_GRACE_MS;
    assert!(limit < u64::from(opts.disconnect_seconds) * 1000);
    let mut sim = Sim::new(33, Net::LOSSY, opts, SessionLength::Hands(2));
    sim.run_until(3_600_000, |s| {
        s.count(2, |e| matches!(e, TableEvent::SetupAgreed(_))) >= 1
    });
    let cut_at = sim.now;
    sim.cut = Some((2, cut_at, u64::MAX));
    sim.run_until(4 * 3_600_000, |s| {
        s.count(0, |e| matches!(e, TableEvent::SeatReplaced { seat: 2, .. })) >= 1
    });
    let replaced_at = sim.now;
    assert!(
        sim.count(0, |e| matches!(e, TableEvent::SeatReplaced { seat: 2, .. })) == 1,
        "seat 2 was never replaced"
    );
    assert!(
        replaced_at <= cut_at + limit + 10_000,
        "replaced {} ms after it fell silent (limit {limit} ms)",
        replaced_at - cut_at
    );
    sim.run(4 * 3_600_000);
    sim.assert_agree(&[0, 1, 2, 3]);
    let results = sim.client(0).results();
    assert!(results[0].aborted);
    assert!(matches!(
        results[0].outcome,
        Outcome::Abandoned { leaver: 2, .. }
    ));
    // Before the dice there is no hand to count: the penalty alone is booked, then the two
    // hands are played with the bot.
    assert_eq!(results.len(), 3, "the session was played with the bot");
    assert!(results[1..].iter().all(|r| !r.aborted));
    println!(
        "a seat silent from the first deal was replaced {} ms after it fell silent",
        replaced_at - cut_at
    );
}

/// A seat whose player went away for good is replaced by a bot; the player comes back (its
/// store as it was) while the session goes on: it learns its seat was taken, follows the
/// rest of the session as a watcher, and ends with every hand exactly as the others have it.
#[test]
fn a_replaced_player_who_comes_back_follows_the_session_to_its_end() {
    let mut sim = Sim::new(
        23,
        Net::LOSSY,
        options(Ruleset::Qiaoma),
        SessionLength::Hands(4),
    );
    run_to_move(&mut sim, 12);
    sim.cut = Some((2, sim.now, u64::MAX));
    let gone = sim.stores[2].clone();
    // The others abort the hand after the disconnect limit and a bot takes seat 2; the
    // player comes back during the hand after.
    sim.run_until(4 * 3_600_000, |s| {
        s.count(0, |e| matches!(e, TableEvent::HandStarted { .. })) >= 2
            && s.count(0, |e| matches!(e, TableEvent::SeatReplaced { seat: 2, .. })) == 1
            && moves(s, 0) >= 40
    });
    assert_eq!(
        sim.client(0).results().len(),
        1,
        "back during the second hand"
    );
    sim.bring_back(2, gone);
    sim.run(8 * 3_600_000);
    for s in 0..4 {
        assert!(sim.client(s).is_over(), "seat {s} is not over");
    }
    let theirs = sim.client(0).results();
    assert_eq!(theirs.len(), 4);
    let r = sim.returner.as_ref().expect("the returner");
    assert!(
        r.events.iter().any(|e| matches!(e, TableEvent::Left)),
        "it learnt that it left"
    );
    let f = r.follower.as_ref().expect("it follows");
    assert!(f.is_over());
    assert_eq!(f.results(), theirs);
    assert_eq!(f.log().len(), sim.client(0).next_step() as usize);
    assert_eq!(
        r.events
            .iter()
            .filter(|e| matches!(e, TableEvent::HandOver { .. }))
            .count(),
        4,
        "the leaver hand and the three after it"
    );
    assert!(
        r.events
            .iter()
            .any(|e| matches!(e, TableEvent::SessionOver { .. }))
    );
}
