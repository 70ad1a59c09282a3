//! Sessions: hands in a row, stopping, leaving, and a bot taking a seat over.

use mahjong_rules::{Outcome, Ruleset, Session, SessionLength};
use mahjong_table::{BotError, Input, TableEvent};

use crate::honest::play_session;
use crate::sim::{Net, Sim, cards, options};

#[test]
fn session_carries_dealer_rotation_and_huangfan_from_hand_to_hand() {
    let sim = play_session(61, Ruleset::Classic, 3, Net::LOSSY);
    let results = sim.client(0).results();
    let p = sim.client(0).proposal().expect("agreed").clone();
    let mut session = Session::new(p.options.clone(), p.stake, p.length);
    let started: Vec<(u8, u32)> = sim.events[0]
        .iter()
        .filter_map(|e| match e {
            TableEvent::HandStarted {
                dealer, huangfan, ..
            } => Some((*dealer, *huangfan)),
            _ => None,
        })
        .collect();
    assert_eq!(started.len(), 3);
    for (i, r) in results.iter().enumerate() {
        let setup = r.setup.clone().expect("played hands have a setup");
        // The dealer comes from the session (after the first hand).
        if let Some(d) = session.dealer {
            assert_eq!(setup.dealer, d);
        }
        assert_eq!(started[i].0, setup.dealer);
        assert_eq!(setup.huangfan, session.huangfan);
        let counter = setup.huangfan + setup.dice.huangfan_bonus();
        session.record(&setup, counter, &r.outcome);
        assert_eq!(r.session, session, "hand {}", r.hand);
    }
    assert_eq!(session.hands_played, 3);
}

#[test]
fn a_seat_stops_the_session_after_the_current_hand() {
    let mut sim = Sim::new(
        62,
        Net::LOSSY,
        options(Ruleset::Qiaoma),
        SessionLength::Hands(5),
    );
    sim.run_until(3_600_000, |s| s.client(2).view().is_some());
    sim.input_now(2, Input::Stop);
    sim.run(3_600_000);
    sim.assert_agree(&[0, 1, 2, 3]);
    assert_eq!(sim.client(0).results().len(), 1);
    for s in 0..4 {
        assert!(sim.client(s).is_over());
        assert_eq!(
            sim.count(s, |e| matches!(e, TableEvent::SessionOver { .. })),
            1
        );
    }
}

#[test]
fn a_leaving_seat_is_aborted_at_once_and_a_bot_takes_its_place() {
    let mut sim = Sim::new(
        63,
        Net::LOSSY,
        options(Ruleset::Baida),
        SessionLength::Hands(2),
    );
    sim.run_until(3_600_000, |s| {
        s.count(0, |e| matches!(e, TableEvent::Moved { .. })) >= 10
    });
    let left_at = sim.now;
    sim.input_now(1, Input::Leave);
    sim.run_until(3_600_000, |s| !s.client(0).results().is_empty());
    // No waiting for the disconnect limit: the seat said it leaves.
    assert!(
        sim.now < left_at + 30_000,
        "abort took {} ms",
        sim.now - left_at
    );
    sim.run(3 * 3_600_000);
    for s in [0, 2, 3] {
        assert_eq!(
            sim.count(s, |e| matches!(
                e,
                TableEvent::SeatReplaced {
                    seat: 1,
                    controller: 2
                }
            )),
            1
        );
    }
    assert_eq!(
        sim.count(2, |e| matches!(e, TableEvent::RunBot { seat: 1 })),
        1
    );
    // Slot 1 now holds the bot's client (run by seat 2's peer).
    sim.assert_agree(&[0, 1, 2, 3]);
    let results = sim.client(0).results();
    assert_eq!(results.len(), 2);
    assert!(results[0].aborted);
    assert!(matches!(
        results[0].outcome,
        Outcome::Abandoned { leaver: 1, .. }
    ));
    // baida: 60 stakes, 20 to each other seat.
    assert_eq!(results[0].payments[1].0, -6000);
    assert!(!results[1].aborted);
    // The log walk of a replay sees the roster the replica sees: the leaver's own key in
    // hand 1, the bot's in hand 2.
    let log: Vec<mahjong_table::StepRecord> = sim.log(0).to_vec();
    let first = mahjong_table::hand_log(&log, 1, cards())
        .expect("verifies")
        .expect("hand 1");
    let second = mahjong_table::hand_log(&log, 2, cards())
        .expect("verifies")
        .expect("hand 2");
    assert_eq!(first.roster[1], sim.keys[1].verifying_key());
    assert_ne!(second.roster[1], sim.keys[1].verifying_key());
    assert_eq!(second.roster[2], sim.keys[2].verifying_key());
    assert!(!second.messages.is_empty() && !second.moves.is_empty());
    assert!(
        mahjong_table::hand_log(&log, 3, cards())
            .expect("verifies")
            .is_none()
    );
    // The bot seat has a new key in the roster.
    let bot_key = sim.keys[1].verifying_key();
    assert!(
        sim.log(0)
            .last()
            .expect("log")
            .entries
            .iter()
            .all(|e| e.seat != 1 || e.verify(&bot_key).is_err())
    );
}

/// A seat proven at fault (it signed two versions of its first discard) is aborted, replaced
/// by a bot that the next seat's peer runs, and the session is played to its end with the
/// bot in that seat: the bot's client comes from [`mahjong_table::Client::bot_client`] of the
/// controller only, and its entries are signed with the bot's new key.
#[test]
fn a_proven_culprit_is_replaced_by_a_bot_and_the_session_finishes() {
    let mut sim = Sim::new(
        66,
        Net::LOSSY,
        options(Ruleset::Qiaoma),
        SessionLength::Hands(2),
    );
    sim.hooks[1] = Some(crate::lying::equivocate_first_discard(1));
    let liar_key = sim.keys[1].verifying_key();
    sim.run(6 * 3_600_000);
    for s in 0..4 {
        assert!(
            sim.client(s).is_over(),
            "seat {s} (slot 1: the bot) did not finish: {:?}",
            sim.client(s).stage()
        );
    }
    // The liar's slot holds the bot's client now: the four agree on everything.
    sim.assert_agree(&[0, 1, 2, 3]);
    for s in [0, 2, 3] {
        assert!(
            sim.client(s)
                .evidence()
                .iter()
                .any(|e| matches!(e.charge, mahjong_table::Charge::Equivocation { .. })),
            "seat {s} holds no proof"
        );
        assert_eq!(
            sim.count(s, |e| matches!(
                e,
                TableEvent::SeatReplaced {
                    seat: 1,
                    controller: 2
                }
            )),
            1
        );
    }
    assert_eq!(
        sim.count(2, |e| matches!(e, TableEvent::RunBot { seat: 1 })),
        1
    );
    let results = sim.client(0).results();
    assert!(results[0].aborted, "{:?}", results[0].outcome);
    assert!(matches!(
        results[0].outcome,
        Outcome::Abandoned { leaver: 1, .. }
    ));
    assert!(results[1..].iter().all(|r| !r.aborted));
    let session = sim.client(0).session().expect("session");
    assert_eq!(session.hands_played, 2, "the session was played to its end");
    assert_eq!(sim.client(0).controllers(), [None, Some(2), None, None]);
    // Every entry of seat 1 after the roster step is the bot's, under its new key.
    let log = sim.log(0);
    let roster = log
        .iter()
        .position(|r| {
            r.entries
                .iter()
                .any(|e| matches!(e.body, mahjong_table::Body::Roster(_)))
        })
        .expect("a roster step");
    let after: Vec<_> = log[roster + 1..]
        .iter()
        .flat_map(|r| r.entries.iter().filter(|e| e.seat == 1))
        .collect();
    assert!(!after.is_empty(), "the bot never played");
    assert!(after.iter().all(|e| e.verify(&liar_key).is_err()));
    // Only the controller can build the bot, and a refusal says why.
    assert_eq!(
        sim.client(0).bot_client(1).err(),
        Some(BotError::NotController {
            seat: 1,
            me: 0,
            controller: Some(2)
        })
    );
    let not_a_bot = sim.client(2).bot_client(3).err().expect("seat 3 is no bot");
    assert!(!not_a_bot.is_pending());
    assert!(not_a_bot.to_string().contains("seat 3 is not a bot seat"));
}

/// A session that ends by rounds, not hands: one round (the deal passes every seat once) over
/// a lossy network, every seat agreeing. The whole game of four rounds is the ignored
/// [`four_rounds`].
#[test]
fn one_round() {
    rounds(1);
}

/// A whole game of four rounds (about a minute in the test profile): `cargo test -p
/// mahjong-table --test table four_rounds -- --ignored`.
#[test]
#[ignore = "long: a whole game of four rounds (about a minute); one_round runs on every test run"]
fn four_rounds() {
    rounds(4);
}

fn rounds(n: u32) {
    let mut sim = Sim::new(
        64,
        Net::LOSSY,
        options(Ruleset::Qiaoma),
        SessionLength::Rounds(n),
    );
    sim.run(1_000 * 3_600_000);
    sim.assert_agree(&[0, 1, 2, 3]);
    let s = sim.client(0).session().expect("session");
    assert_eq!(s.rounds, n);
    assert!(
        s.hands_played >= 4 * n,
        "{} hands in {n} rounds",
        s.hands_played
    );
}

/// A long session (`LONG_SESSION_HANDS`, default 200, over a perfect network): the CPU of a
/// hand, what a client holds of the log (it keeps the log in the store) and what a restore
/// from the store's last checkpoint costs stay flat as hands accumulate. Prints one line per block of
/// hands: `LONG_SESSION_HANDS=200 cargo test -p mahjong-table --test table long_session --
/// --ignored --nocapture`.
#[test]
#[ignore = "long: a 200-hand session (about ten minutes of CPU)"]
fn long_session_costs_stay_flat() {
    use std::time::{Duration, Instant};
    let hands: usize = std::env::var("LONG_SESSION_HANDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let block = (hands / 10).max(1);
    let mut sim = Sim::new(
        65,
        Net::FAST,
        options(Ruleset::Qiaoma),
        SessionLength::Hands(hands as u32),
    );
    let mut last_cpu = Duration::ZERO;
    let mut last_thread = thread_cpu_ms();
    let mut done = 0;
    while done < hands {
        let target = (done + block).min(hands);
        sim.run_until(u64::MAX, |s| s.client(0).results().len() >= target);
        let cpu: Duration = sim.cpu.iter().sum();
        let per_hand = (cpu - last_cpu).as_secs_f64() * 1000.0 / (target - done) as f64;
        last_cpu = cpu;
        // CPU time of this thread (the whole simulation: four clients and their bots),
        // which the machine's load does not inflate.
        let thread = thread_cpu_ms();
        let thread_per_hand = match (thread, last_thread) {
            (Some(t), Some(l)) => format!("{:.0}", (t - l) as f64 / (target - done) as f64),
            _ => "?".into(),
        };
        last_thread = thread;
        // What seat 0's client holds of the log (it keeps the log in the store).
        let c = sim.client(0);
        let held_bytes: usize = c
            .log()
            .iter()
            .flat_map(|r| r.entries.iter())
            .map(|e| e.encode().len())
            .sum();
        let t = Instant::now();
        let _ = c.persistent();
        let persist_ms = t.elapsed().as_secs_f64() * 1000.0;
        // A restart now, as the real store does it: the journal from its last checkpoint on.
        let (tail, all) = (
            sim.stores[0].clone().from_checkpoint_on(),
            sim.stores[0].clone(),
        );
        let t = Instant::now();
        let back = mahjong_table::Client::restore_with_cards(
            tail,
            sim.keys[0].clone(),
            crate::sim::cards(),
        )
        .expect("restores");
        let restore_ms = t.elapsed().as_secs_f64() * 1000.0;
        assert_eq!(back.log_hash(), sim.client(0).log_hash());
        // For comparison: a restore that reads and hashes the whole log.
        let t = Instant::now();
        let whole = mahjong_table::Client::restore_with_cards(
            all,
            sim.keys[0].clone(),
            crate::sim::cards(),
        )
        .expect("restores");
        let whole_ms = t.elapsed().as_secs_f64() * 1000.0;
        assert_eq!(whole.log_hash(), sim.client(0).log_hash());
        let log = sim.log(0);
        let frames: usize = log.iter().map(|r| r.entries.len()).sum();
        eprintln!(
            "hands {:>3}..{:>3}: {thread_per_hand} ms thread CPU per hand (four seats and bots; \
             {per_hand:.0} ms wall inside the clients); log {} steps, {frames} envelopes; \
             held in memory {} steps, {} KiB; persistent() {persist_ms:.1} ms, restore from \
             the checkpoint {restore_ms:.1} ms (the whole log: {whole_ms:.1} ms)",
            done + 1,
            target,
            log.len(),
            c.log().len(),
            held_bytes / 1024,
        );
        done = target;
    }
    sim.run(u64::MAX);
    sim.assert_agree(&[0, 1, 2, 3]);
    assert_eq!(sim.client(0).results().len(), hands);
}

/// This thread's CPU time (user and system), in milliseconds, from /proc (Linux).
fn thread_cpu_ms() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    // The fields after the command name (which is in parentheses).
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    // Clock ticks of 10 ms (USER_HZ = 100 on Linux).
    Some((utime + stime) * 10)
}

/// A seat that leaves just after it signed a hand's settlement (the player quits between
/// hands; the process stops a few seconds later): the others replace it at once, not after
/// the disconnect limit. Its signed settlement stands (the hand is booked as agreed); its
/// leave takes effect at the next hand.
#[test]
fn a_seat_leaving_after_it_signed_the_settlement_is_replaced_at_once() {
    use mahjong_table::Stage;
    let mut sim = Sim::new(
        64,
        Net::LOSSY,
        options(Ruleset::Qiaoma),
        SessionLength::Hands(3),
    );
    sim.run_until(3_600_000, |s| *s.client(1).stage() == Stage::Settle);
    assert_eq!(*sim.client(1).stage(), Stage::Settle);
    let left_at = sim.now;
    sim.input_now(1, Input::Leave);
    // The process stops 3 s later (the CLI's wait for the others' abort).
    sim.cut = Some((1, left_at + 3_000, u64::MAX));
    sim.run_until(3_600_000, |s| {
        s.count(0, |e| matches!(e, TableEvent::SeatReplaced { seat: 1, .. })) == 1
    });
    assert!(
        sim.now < left_at + 30_000,
        "replaced {} ms after it left",
        sim.now - left_at
    );
    let results = sim.client(0).results();
    assert!(!results[0].aborted, "the signed settlement stands");
    assert!(matches!(
        results[1].outcome,
        Outcome::Abandoned { leaver: 1, .. }
    ));
    sim.run(3 * 3_600_000);
    sim.assert_agree(&[0, 2, 3]);
}
