//! 换牌 (`swap_five`) over the table protocol, through the real clients on the simulated
//! network: the answers are committed then opened, the five put back stay face down (no
//! other seat can read them before the audit), the swap draws are private draws, a seat that
//! lies about the tiles it puts back is caught and named, and a seat restarted in the middle
//! of the swap finds its answer again.

use mahjong_deal::{Body as DealBody, HandContext, Message as DealMessage, SeatIndex, SetAside};
use mahjong_rules::view::PublicPhase;
use mahjong_rules::wall::{DEALT, deal_seat};
use mahjong_rules::{Action, Event, Options, Ruleset, Seat, SessionLength};
use mahjong_table::codec::{chain, claim_commitment};
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
        if checked || !s.clients.iter().all(Option::is_some) {
            return false;
        }
        // Each seat, once it has seen swaps resolved, cannot read what the others put back,
        // and its deal holds each swapper to its five (set aside, by it).
        for other in 0..4usize {
            for (seat, put_back) in swaps(s, other) {
                if seat as usize == other {
                    continue;
                }
                let deal = s.client(other).deal().expect("a seat's deal");
                for pos in put_back {
                    assert!(
                        deal.card_at(pos).is_none(),
                        "seat {other} can read position {pos} that seat {seat} put back"
                    );
                    assert_eq!(
                        deal.observer().set_aside().get(&pos).map(|s| s.get()),
                        Some(seat)
                    );
                }
                checked = true;
            }
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

/// How a liar lies about the five it puts back.
#[derive(Clone, Copy)]
enum Lie {
    /// Four own tiles and one of seat 0's, with a deal set-aside of those five it signs.
    OthersTile,
    /// Its own five, without the deal set-aside that binds them.
    NoSetAside,
}

fn swap_liar(lie_kind: Lie) -> Hook {
    let mut lie: Option<(u32, Play, [u8; 32], Envelope)> = None;
    Box::new(move |ctx, env| {
        let commit = matches!(env.body, Body::ClaimCommit { .. });
        let open = matches!(env.body, Body::ClaimOpen { .. });
        if let Some((seq, play, nonce, sent)) = &lie {
            if commit && env.seq == *seq {
                return vec![(None, sent.encode())];
            }
            if open && env.seq == *seq + 1 {
                let log = ctx.client.log();
                // Step `seq` is held (this hand's), and its entries carry the hash before it.
                let logged = &log[(*seq - ctx.client.first_step_held()) as usize];
                let prev = logged.entries[0].prev_hash;
                let entries: Vec<Envelope> = logged
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
        let mut put_back: Vec<u8> = view.hand.iter().take(5).map(|c| c.pos).collect();
        if let Lie::OthersTile = lie_kind {
            put_back[4] = (0..DEALT)
                .find(|&p| deal_seat(view.dealer, p) == 0)
                .expect("seat 0 is dealt tiles") as u8;
        }
        put_back.sort_unstable();
        let shows = match lie_kind {
            Lie::OthersTile => {
                let deal_ctx = HandContext {
                    table: env.table,
                    hand: env.hand,
                };
                let body = DealBody::SetAside(SetAside {
                    positions: put_back.clone(),
                });
                let seat = SeatIndex::new(env.seat).expect("a seat");
                vec![
                    DealMessage::new(&deal_ctx, seat, body)
                        .sign(ctx.key)
                        .expect("sign"),
                ]
            }
            Lie::NoSetAside => vec![],
        };
        let play = Play {
            action: Action::Swap {
                put_back: put_back.try_into().expect("five"),
            },
            timed_out: false,
            shows,
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
    })
}

/// A seat that lies about the five it puts back — naming a tile it never held, or leaving
/// out the deal set-aside that binds its five — commits to that answer and opens it: every
/// honest peer refuses the opened move, names the liar with evidence anyone can verify
/// offline, and the hand is aborted against it.
#[test]
fn a_seat_lying_about_the_tiles_it_puts_back_is_caught() {
    let liar: Seat = 1;
    for (seed, lie, why) in [
        (72u64, Lie::OthersTile, "holds no tile"),
        (75, Lie::NoSetAside, "set-aside"),
    ] {
        let mut sim = Sim::new(
            seed,
            Net::LOSSY,
            swap_options(Ruleset::Classic),
            SessionLength::Hands(1),
        );
        sim.hooks[liar as usize] = Some(swap_liar(lie));
        let honest = [0usize, 2, 3];
        let all_over = |sim: &Sim| {
            honest
                .iter()
                .all(|&s| sim.clients[s].as_ref().is_some_and(|c| c.is_over()))
        };
        sim.run_until(6 * 3_600_000, all_over);
        assert!(
            all_over(&sim),
            "seed {seed}: the honest seats did not finish"
        );
        sim.assert_agree(&honest);
        for s in honest {
            let ev = sim.client(s).evidence();
            assert!(!ev.is_empty(), "seed {seed}: seat {s} holds no evidence");
            for e in ev {
                let culprit = e
                    .verify_with_cards(crate::sim::cards())
                    .expect("the evidence verifies offline");
                assert_eq!(culprit.seat, liar);
                let text = match &culprit.offence {
                    Offence::Illegal(err) => err.to_string(),
                    Offence::Malformed(m) => m.clone(),
                    o => panic!("seed {seed}: unexpected offence {o:?}"),
                };
                assert!(text.contains(why), "seed {seed}: {text}");
            }
            let r = &sim.client(s).results()[0];
            assert!(r.aborted);
            assert!(
                matches!(r.outcome, mahjong_rules::Outcome::Abandoned { leaver, .. } if leaver == liar)
            );
        }
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

/// A seat that does nothing during 换牌 keeps its hand: its own client passes for it when
/// `start_seconds` (here 60 s, unlike the 20 s claim and discard timers) run out.
#[test]
fn a_silent_seat_keeps_its_hand_when_the_start_timer_runs_out() {
    let mut o = swap_options(Ruleset::Qiaoma);
    o.start_seconds = 60;
    let mut sim = Sim::new(76, Net::FAST, o, SessionLength::Hands(1));
    sim.asleep = Some(2);
    let sent_at = std::rc::Rc::new(std::cell::Cell::new(None));
    let flag = sent_at.clone();
    let hook: Hook = Box::new(move |ctx, env| {
        let swap = ctx
            .client
            .view()
            .is_some_and(|v| matches!(v.phase, PublicPhase::Swap { .. }));
        if swap && matches!(env.body, Body::ClaimCommit { .. }) && flag.get().is_none() {
            flag.set(Some(ctx.now));
        }
        vec![(None, env.encode())]
    });
    sim.hooks[2] = Some(hook);
    let mut entered = None;
    sim.run_until(6 * 3_600_000, |s| {
        if entered.is_none() && in_swap(s, 2) {
            entered = Some(s.now);
        }
        false
    });
    let (entered, sent) = (entered.expect("the swap"), sent_at.get().expect("answered"));
    assert!(
        (60_000..62_000).contains(&(sent - entered)),
        "answered {} ms after the swap began",
        sent - entered
    );
    sim.assert_agree(&[0, 1, 2, 3]);
    assert!(!sim.client(0).results()[0].aborted);
    // Its answer, opened: a timed-out pass.
    let answer = sim
        .log(0)
        .iter()
        .flat_map(|r| r.entries.iter())
        .find_map(|e| match &e.body {
            Body::ClaimOpen { play, .. } if e.seat == 2 => Some(play.clone()),
            _ => None,
        })
        .expect("seat 2 opened an answer");
    assert_eq!(answer.action, Action::Pass);
    assert!(answer.timed_out);
    assert!(swaps(&sim, 0).iter().all(|(s, _)| *s != 2));
}
