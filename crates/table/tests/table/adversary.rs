//! A randomised adversary: one seat whose outgoing frames are rewritten at random steps
//! (withheld from some seats, delayed, told two ways to a subset, replayed, a plain
//! settlement forged after its vote, long silences near the disconnect limit). Over many
//! schedules, every honest seat books the same result for every hand or holds evidence
//! naming the adversary; no honest seat is ever named or charged.
//!
//! CI runs `ADVERSARY_SCHEDULES` (default 8) schedules; a longer run:
//! `ADVERSARY_SCHEDULES=60 cargo test -p mahjong-table --test table \
//! adversary::one_adversarial_seat_over_many_schedules -- --ignored --nocapture` (60
//! schedules, seeds 100000–100059: 112 hands booked, no hand booked two ways, 145 of the 180
//! honest seat-schedules holding evidence against the adversary, none against an honest seat;
//! 1,174 s on the loaded 2-core machine).

use std::time::Instant;

use mahjong_rules::{Outcome, Ruleset, Seat, SessionLength};
use mahjong_table::codec::Header;
use mahjong_table::{Body, Envelope, Next, RosterVote};
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

use crate::sim::{Hook, HookCtx, Net, Sim, cards, options};

/// Another version of `env`, signed by the adversary (a conflicting message).
fn variant(ctx: &HookCtx, env: &Envelope, rng: &mut ChaCha8Rng) -> Option<Vec<u8>> {
    let mut header = env.header();
    let body = match &env.body {
        Body::Play(p) => {
            let mut p = p.clone();
            p.timed_out = !p.timed_out;
            Body::Play(p)
        }
        Body::Settle { result, next } => Body::Settle {
            result: *result,
            next: if *next == Next::Continue {
                Next::Stop
            } else {
                Next::Continue
            },
        },
        Body::SettleVoided { result, next, .. } => Body::Settle {
            result: *result,
            next: *next,
        },
        Body::Accept { .. } => Body::Decline,
        Body::ClaimCommit { commitment } => {
            let mut c = *commitment;
            c[0] ^= 1;
            Body::ClaimCommit { commitment: c }
        }
        Body::ClaimOpen { play, nonce } => {
            let mut play = play.clone();
            play.timed_out = !play.timed_out;
            Body::ClaimOpen {
                play,
                nonce: *nonce,
            }
        }
        Body::Roster(_) => Body::Roster(RosterVote::Stop),
        Body::Deal(_) | Body::Abort { .. } => {
            header.prev_hash[(rng.next_u32() % 32) as usize] ^= 1;
            env.body.clone()
        }
        _ => return None,
    };
    Some(Envelope::sign(env.table, header, env.seat, body, ctx.key).encode())
}

/// A random subset of the other seats (a bit per seat, never empty, never all three).
fn subset(rng: &mut ChaCha8Rng, me: Seat) -> Vec<Seat> {
    let others: Vec<Seat> = (0..4).filter(|&s| s != me).collect();
    let k = 1 + (rng.next_u32() % 2) as usize;
    let mut picked = others.clone();
    while picked.len() > k {
        let i = (rng.next_u32() as usize) % picked.len();
        picked.remove(i);
    }
    picked
}

fn adversary(seed: u64, me: Seat) -> Hook {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0xad);
    let mut held: Vec<(u64, Option<Seat>, Vec<u8>)> = Vec::new();
    let mut old: Vec<Vec<u8>> = Vec::new();
    let mut silent_until = 0u64;
    let mut forged_in: Option<u32> = None;
    Box::new(move |ctx, env| {
        let now = ctx.now;
        let mut out: Vec<(Option<Seat>, Vec<u8>)> = Vec::new();
        held.retain(|(at, to, f)| {
            let due = *at <= now;
            if due {
                out.push((*to, f.clone()));
            }
            !due
        });
        let frame = env.encode();
        if now < silent_until {
            held.push((silent_until, None, frame));
            return out;
        }
        if old.len() < 64 {
            old.push(frame.clone());
        } else {
            let i = (rng.next_u32() % 64) as usize;
            old[i] = frame.clone();
        }
        let others: Vec<Seat> = (0..4).filter(|&s| s != me).collect();
        match rng.next_u32() % 1000 {
            // Honest, most of the time.
            0..=599 => out.push((None, frame)),
            // Withheld from a subset (the others relay it when asked).
            600..=679 => {
                let skip = subset(&mut rng, me);
                for s in others.iter().filter(|s| !skip.contains(s)) {
                    out.push((Some(*s), frame.clone()));
                }
            }
            // Delayed (up to a minute).
            680..=759 => held.push((now + rng.next_u64() % 60_000, None, frame)),
            // Told two ways.
            760..=869 => {
                let twin = variant(ctx, env, &mut rng);
                let to = subset(&mut rng, me);
                for s in &others {
                    match (&twin, to.contains(s)) {
                        (Some(t), true) => out.push((Some(*s), t.clone())),
                        _ => out.push((Some(*s), frame.clone())),
                    }
                }
            }
            // An old envelope again, to one seat.
            870..=929 => {
                out.push((None, frame));
                let i = (rng.next_u32() as usize) % old.len();
                let to = others[(rng.next_u32() % 3) as usize];
                out.push((Some(to), old[i].clone()));
            }
            // A plain settlement forged while its own client may not sign one (it voted),
            // to a subset.
            930..=979 => {
                out.push((None, frame));
                let c = ctx.client;
                if let Some(result) = c.settling()
                    && forged_in != Some(c.hand_number())
                {
                    forged_in = Some(c.hand_number());
                    let header = Header {
                        hand: c.hand_number(),
                        seq: c.next_step(),
                        prev_hash: c.log_hash(),
                    };
                    let next = if rng.next_u32() % 2 == 0 {
                        Next::Continue
                    } else {
                        Next::Stop
                    };
                    let body = Body::Settle {
                        result: result.hash(),
                        next,
                    };
                    let f = Envelope::sign(env.table, header, me, body, ctx.key).encode();
                    for s in subset(&mut rng, me) {
                        out.push((Some(s), f.clone()));
                    }
                }
            }
            // Silent for about the disconnect limit (near-miss votes).
            _ => {
                silent_until = now + 150_000 + rng.next_u64() % 60_000;
                held.push((silent_until, None, frame));
            }
        }
        out
    })
}

/// Summary of one schedule.
#[derive(Default, Debug)]
struct Tally {
    hands_booked: usize,
    split_hands: usize,
    with_evidence: usize,
}

/// Runs one schedule and checks the invariant; panics with the seed on a violation.
fn schedule(seed: u64) -> Tally {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let me = (rng.next_u32() % 4) as Seat;
    let hands = 1 + rng.next_u32() % 2;
    let ruleset =
        [Ruleset::Qiaoma, Ruleset::Classic, Ruleset::Baida][(rng.next_u32() % 3) as usize];
    let mut sim = Sim::new(
        seed,
        Net::LOSSY,
        options(ruleset),
        SessionLength::Hands(hands),
    );
    sim.hooks[me as usize] = Some(adversary(seed, me));
    let honest: Vec<usize> = (0..4).filter(|&s| s != me as usize).collect();
    let done = |s: &Sim| {
        honest.iter().all(|&h| {
            s.clients[h]
                .as_ref()
                .is_none_or(|c| c.is_over() || c.is_paused())
        })
    };
    sim.run_until(3 * 3_600_000, done);
    let mut tally = Tally::default();
    let proves = |s: usize| sim.client(s).proven().iter().any(|&(_, seat)| seat == me);
    for &s in &honest {
        // Nobody honest is named, by any record.
        for (_, seat) in sim.client(s).proven() {
            assert_eq!(
                seat, me,
                "seed {seed}: seat {s} holds evidence against honest {seat}"
            );
        }
        for e in sim.client(s).evidence() {
            let c = e.verify_with_cards(cards()).expect("evidence verifies");
            assert_eq!(
                c.seat, me,
                "seed {seed}: evidence names honest seat {}",
                c.seat
            );
        }
        // Nobody honest is charged as a leaver.
        for r in sim.client(s).results() {
            if let Outcome::Abandoned { leaver, .. } = r.outcome {
                assert!(
                    leaver == me,
                    "seed {seed}: seat {s} booked hand {} abandoned by honest seat {leaver}",
                    r.hand
                );
            }
        }
        if proves(s) {
            tally.with_evidence += 1;
        }
    }
    let most = honest
        .iter()
        .map(|&s| sim.client(s).results().len())
        .max()
        .unwrap_or(0);
    tally.hands_booked = most;
    for h in 0..most {
        let booked: Vec<(usize, &mahjong_table::HandResult)> = honest
            .iter()
            .filter_map(|&s| sim.client(s).results().get(h).map(|r| (s, r)))
            .collect();
        let split = booked.iter().any(|(_, r)| *r != booked[0].1);
        if split {
            tally.split_hands += 1;
            for &s in &honest {
                assert!(
                    proves(s),
                    "seed {seed}: hand {} booked differently and seat {s} holds no evidence \
                     against the adversary {me}",
                    h + 1
                );
            }
        }
    }
    tally
}

fn run_schedules(n: u64, base: u64) {
    let started = Instant::now();
    let mut total = Tally::default();
    for i in 0..n {
        let t = schedule(base + i);
        total.hands_booked += t.hands_booked;
        total.split_hands += t.split_hands;
        total.with_evidence += t.with_evidence;
    }
    eprintln!(
        "adversary: {n} schedules in {:.1} s: {} hands booked, {} split (each with evidence at \
         every honest seat), {} honest seat-schedules holding evidence against the adversary",
        started.elapsed().as_secs_f64(),
        total.hands_booked,
        total.split_hands,
        total.with_evidence
    );
}

fn schedules(default: u64) -> u64 {
    std::env::var("ADVERSARY_SCHEDULES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
fn one_adversarial_seat_never_splits_or_frames_the_honest_seats() {
    run_schedules(schedules(8), 7_000);
}

#[test]
#[ignore = "long: 60 schedules, about twenty minutes (see the module header)"]
fn one_adversarial_seat_over_many_schedules() {
    run_schedules(schedules(60), 100_000);
}
