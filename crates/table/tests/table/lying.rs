//! Lying seats: each lie is proven by the liar's own signed messages, the hand stops with an
//! evidence record anyone can verify offline, and the three honest seats abort it naming
//! the liar.

use mahjong_deal::{Body as DealBody, SignedMessage};
use mahjong_rules::{Action, Card, Outcome, Ruleset, Seat, SessionLength};
use mahjong_table::codec::{chain, claim_commitment};
use mahjong_table::{Body, Charge, Envelope, Offence, Play, TableEvent};

use crate::sim::{Hook, HookCtx, Net, Sim, options};

fn resign(ctx: &HookCtx, env: &Envelope, body: Body) -> Vec<u8> {
    Envelope::sign(env.table, env.header(), env.seat, body, ctx.key).encode()
}

/// A changed deal message as the liar's client sends it: carried (envelope version 2), its
/// envelope signing it; every other check still applies to it.
fn resign_deal(_ctx: &HookCtx, msg: &SignedMessage) -> SignedMessage {
    SignedMessage::carried(msg.message.clone())
}

/// The same change signed on its own (as envelope version 1 did, and as a version-2
/// envelope may still carry it): caught the same way.
fn sign_deal(ctx: &HookCtx, msg: &SignedMessage) -> SignedMessage {
    msg.message.clone().sign(ctx.key).expect("sign")
}

/// Runs a table with a liar and checks the outcome: every honest seat holds evidence that
/// verifies against `liar` with an offence matching `offence`, the hand is aborted naming
/// the liar, and the honest seats agree.
pub(crate) fn expect_caught(
    seed: u64,
    ruleset: Ruleset,
    liar: Seat,
    hands: u32,
    hook: Hook,
    offence: impl Fn(&Offence) -> bool,
) -> Sim {
    let mut sim = Sim::new(
        seed,
        Net::LOSSY,
        options(ruleset),
        SessionLength::Hands(hands),
    );
    sim.hooks[liar as usize] = Some(hook);
    let honest: Vec<usize> = (0..4).filter(|&s| s != liar as usize).collect();
    let all_over = |sim: &Sim| {
        honest
            .iter()
            .all(|&s| sim.clients[s].as_ref().is_some_and(|c| c.is_over()))
    };
    sim.run_until(6 * 3_600_000, all_over);
    assert!(all_over(&sim), "the honest seats did not finish");
    let cards = crate::sim::cards();
    for &s in &honest {
        let ev = sim.client(s).evidence();
        assert!(!ev.is_empty(), "seat {s} holds no evidence");
        for e in ev {
            let culprit = e
                .verify_with_cards(cards.clone())
                .expect("evidence verifies");
            assert_eq!(culprit.seat, liar);
            assert!(
                offence(&culprit.offence),
                "unexpected offence {:?}",
                culprit.offence
            );
        }
        assert!(sim.count(s, |e| matches!(e, TableEvent::Evidence(_))) >= 1);
    }
    sim.assert_agree(&honest);
    let aborted = sim
        .client(honest[0])
        .results()
        .iter()
        .find(|r| r.aborted)
        .expect("aborted hand");
    assert!(matches!(aborted.outcome, Outcome::Abandoned { leaver, .. } if leaver == liar));
    let record = sim
        .log(honest[0])
        .iter()
        .rev()
        .find(|r| r.is_abort())
        .expect("votes");
    assert_eq!(
        record
            .entries
            .iter()
            .map(|e| e.seat as usize)
            .collect::<Vec<_>>(),
        honest
    );
    sim
}

/// A liar at `liar` that signs two versions of its first discard (one marked timed out):
/// the seat after it gets one, the other two seats the other.
pub fn equivocate_first_discard(liar: Seat) -> Hook {
    let mut original: Option<Envelope> = None;
    let mut variant: Vec<u8> = Vec::new();
    let others: Vec<Seat> = (1..4).map(|k| (liar + k) % 4).collect();
    Box::new(move |ctx, env| {
        let is_discard =
            matches!(&env.body, Body::Play(p) if matches!(p.action, Action::Discard { .. }));
        if original.is_none() && is_discard {
            let Body::Play(p) = &env.body else {
                unreachable!()
            };
            let mut p = p.clone();
            p.timed_out = !p.timed_out;
            variant = resign(ctx, env, Body::Play(p));
            original = Some(env.clone());
        }
        if original.as_ref() == Some(env) {
            vec![
                (Some(others[0]), env.encode()),
                (Some(others[1]), variant.clone()),
                (Some(others[2]), variant.clone()),
            ]
        } else {
            vec![(None, env.encode())]
        }
    })
}

#[test]
fn equivocating_seat_is_caught() {
    // Seat 1 signs two versions of its first discard (one marked timed out): seat 2 gets one,
    // seats 3 and 0 the other. The honest seats split, notice the other history, fetch it,
    // and find the two signed versions.
    let hook = equivocate_first_discard(1);
    let sim = expect_caught(51, Ruleset::Qiaoma, 1, 1, hook, |o| {
        *o == Offence::Equivocation
    });
    for s in [0, 2, 3] {
        assert!(
            sim.client(s)
                .evidence()
                .iter()
                .any(|e| matches!(e.charge, Charge::Equivocation { .. }))
        );
    }
}

#[test]
fn pung_without_the_tiles_is_caught() {
    // Seat 2 answers a discard with a pung of two tiles it holds but that are not the
    // discarded kind, commits to it and opens it with genuine shows: the shows open to other
    // faces.
    let mut lie: Option<(u32, Play, [u8; 32], Envelope)> = None;
    let hook: Hook = Box::new(move |ctx, env| {
        let commit = matches!(env.body, Body::ClaimCommit { .. });
        let open = matches!(env.body, Body::ClaimOpen { .. });
        if let Some((seq, play, nonce, sent)) = &lie {
            if commit && env.seq == *seq {
                return vec![(None, sent.encode())];
            }
            if open && env.seq == *seq + 1 {
                // The opening follows the commitment step as the others logged it (with the
                // lie), so it chains on that.
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
                let e = Envelope::sign(env.table, header, env.seat, body, ctx.key);
                return vec![(None, e.encode())];
            }
            return vec![(None, env.encode())];
        }
        if !commit {
            return vec![(None, env.encode())];
        }
        let client = ctx.client;
        // The discard is the move of the step before this claim window.
        let discard = client
            .log()
            .get((env.seq - 1 - client.first_step_held()) as usize)
            .and_then(|r| {
                r.entries.iter().find_map(|e| match &e.body {
                    Body::Play(Play {
                        action: Action::Discard { card, .. },
                        ..
                    }) => Some(*card),
                    _ => None,
                })
            });
        let (Some(discard), Some(view), Some(deal)) = (discard, client.view(), client.deal())
        else {
            return vec![(None, env.encode())];
        };
        let t = discard.tile;
        let mine: Vec<Card> = view
            .hand
            .iter()
            .filter(|c| c.tile != t && view.drawn.is_none_or(|d| d.pos != c.pos))
            .copied()
            .collect();
        if view.seats[2].ready || mine.len() < 2 || t.is_flower() {
            return vec![(None, env.encode())];
        }
        let mut deal = deal.clone();
        let (a, b) = (mine[0], mine[1]);
        let shows = vec![
            deal.show(ctx.key, a.pos).expect("show"),
            deal.show(ctx.key, b.pos).expect("show"),
        ];
        let play = Play {
            action: Action::Pung {
                cards: [
                    Card {
                        pos: a.pos,
                        tile: t,
                    },
                    Card {
                        pos: b.pos,
                        tile: t,
                    },
                ],
            },
            timed_out: false,
            shows,
        };
        let nonce = [7u8; 32];
        let commitment = claim_commitment(&play, &nonce);
        let sent = Envelope::sign(
            env.table,
            env.header(),
            env.seat,
            Body::ClaimCommit { commitment },
            ctx.key,
        );
        lie = Some((env.seq, play, nonce, sent.clone()));
        vec![(None, sent.encode())]
    });
    expect_caught(52, Ruleset::Qiaoma, 2, 1, hook, |o| {
        matches!(o, Offence::FaceMismatch { .. })
    });
}

#[test]
fn bad_share_is_caught() {
    // Seat 3 swaps the shares of two positions in its deal entry (re-signing them): each
    // share's proof now fails.
    let hook: Hook = Box::new(move |ctx, env| {
        let Body::Deal(msgs) = &env.body else {
            return vec![(None, env.encode())];
        };
        if msgs.len() < 2
            || !msgs
                .iter()
                .all(|m| matches!(m.message.body, DealBody::Share(_)))
        {
            return vec![(None, env.encode())];
        }
        let mut msgs = msgs.clone();
        let (DealBody::Share(a), DealBody::Share(b)) =
            (msgs[0].message.body.clone(), msgs[1].message.body.clone())
        else {
            unreachable!()
        };
        if let DealBody::Share(s) = &mut msgs[0].message.body {
            s.share = b.share;
        }
        if let DealBody::Share(s) = &mut msgs[1].message.body {
            s.share = a.share;
        }
        msgs[0] = resign_deal(ctx, &msgs[0]);
        msgs[1] = resign_deal(ctx, &msgs[1]);
        vec![(None, resign(ctx, env, Body::Deal(msgs)))]
    });
    expect_caught(53, Ruleset::Classic, 3, 1, hook, |o| {
        matches!(o, Offence::Deal(mahjong_deal::DealError::BadShare { .. }))
    });
}

#[test]
fn tampered_shuffle_is_caught() {
    // Seat 1 swaps two ciphertexts of its shuffle output (re-signing it): the proof fails,
    // carried or signed on its own.
    tampered_shuffle(resign_deal);
    tampered_shuffle(sign_deal);
}

fn tampered_shuffle(wrap: fn(&HookCtx, &SignedMessage) -> SignedMessage) {
    let hook: Hook = Box::new(move |ctx, env| {
        let Body::Deal(msgs) = &env.body else {
            return vec![(None, env.encode())];
        };
        let [m] = msgs.as_slice() else {
            return vec![(None, env.encode())];
        };
        let DealBody::Shuffle(out) = &m.message.body else {
            return vec![(None, env.encode())];
        };
        let mut out = out.clone();
        out.wall.swap(0, 1);
        let mut m = m.clone();
        m.message.body = DealBody::Shuffle(out);
        let m = wrap(ctx, &m);
        vec![(None, resign(ctx, env, Body::Deal(vec![m])))]
    });
    expect_caught(54, Ruleset::Baida, 1, 1, hook, |o| {
        matches!(o, Offence::Deal(mahjong_deal::DealError::BadShuffle { .. }))
    });
}

#[test]
fn replayed_envelope_is_a_harmless_duplicate() {
    // Seat 0 re-sends its envelopes of hand 1 during hand 2: they are ignored.
    let mut sim = Sim::new(
        55,
        Net::LOSSY,
        options(Ruleset::Qiaoma),
        SessionLength::Hands(2),
    );
    sim.run_until(3_600_000, |s| {
        s.client(1).hand_number() == 2 && s.client(1).view().is_some()
    });
    let old: Vec<Vec<u8>> = sim
        .log(0)
        .iter()
        .filter(|r| r.hand() == Some(1))
        .flat_map(|r| {
            r.entries
                .iter()
                .filter(|e| e.seat == 0)
                .map(Envelope::encode)
        })
        .collect();
    assert!(!old.is_empty());
    for f in &old {
        for to in 1..4 {
            sim.input_now(to, mahjong_table::Input::Frame(f.clone()));
        }
    }
    sim.run(4 * 3_600_000);
    sim.assert_agree(&[0, 1, 2, 3]);
    assert_eq!(sim.client(0).results().len(), 2);
    assert!(sim.client(0).results().iter().all(|r| !r.aborted));
    for s in 0..4 {
        assert!(sim.client(s).evidence().is_empty());
    }
}

#[test]
fn old_deal_message_in_a_new_entry_is_caught() {
    // In hand 2, seat 0 sends its hand-1 seed commitment and key again, in a freshly signed
    // envelope: the deal crate names the replay (another hand), before the dice.
    let mut old: Option<Vec<SignedMessage>> = None;
    let hook: Hook = Box::new(move |ctx, env| {
        let commit = matches!(&env.body, Body::Deal(m) if matches!(m.first().map(|m| &m.message.body), Some(DealBody::Commit(_))));
        if commit && env.hand == 1 {
            if let Body::Deal(m) = &env.body {
                old = Some(m.clone());
            }
        } else if commit
            && env.hand == 2
            && let Some(m) = &old
        {
            return vec![(None, resign(ctx, env, Body::Deal(m.clone())))];
        }
        vec![(None, env.encode())]
    });
    let sim = expect_caught(56, Ruleset::Qiaoma, 0, 2, hook, |o| {
        matches!(o, Offence::Deal(mahjong_deal::DealError::WrongHand { .. }))
    });
    let r = sim
        .client(1)
        .results()
        .iter()
        .find(|r| r.aborted)
        .expect("aborted");
    assert_eq!(r.hand, 2);
    assert!(
        r.setup.is_none(),
        "aborted before the dice: the penalty alone"
    );
}

/// A seat's request for the whole hand (its log went another way: the answer is how an
/// equivocation shows) is answered even just after an answer to its routine request for the
/// step it waits for; a third request within the same half period, from no earlier step, is
/// not (a seat cannot make another send its log over and over). Over real sockets, the
/// routine request of each retransmission used to swallow the other for good.
#[test]
fn a_request_from_an_earlier_step_is_answered_right_after_a_routine_one() {
    use mahjong_table::codec::Header;
    use mahjong_table::{Client, Input};
    let mut sim = Sim::new(
        71,
        Net::FAST,
        options(Ruleset::Qiaoma),
        SessionLength::Hands(1),
    );
    sim.run_until(3_600_000, |s| {
        s.count(0, |e| matches!(e, TableEvent::Moved { .. })) >= 6
    });
    let mut client = Client::restore_with_cards(
        sim.stores[0].clone(),
        sim.keys[0].clone(),
        crate::sim::cards(),
    )
    .expect("restores");
    let next = client.next_step();
    let hand = client.hand_number();
    let first = sim
        .log(0)
        .iter()
        .position(|r| r.hand() == Some(hand))
        .expect("the hand's first step") as u32;
    let request = |from_seq: u32| {
        Envelope::sign(
            sim.stores[0].config.table,
            Header {
                hand,
                seq: next,
                prev_hash: client.log_hash(),
            },
            1,
            Body::Request { from_seq, have: 0 },
            &sim.keys[1],
        )
        .encode()
    };
    let (routine, whole, again) = (request(next), request(first), request(next));
    let t = sim.now + 10_000;
    let a = client.handle(t, Input::Frame(routine));
    let b = client.handle(t + 20, Input::Frame(whole));
    let c = client.handle(t + 40, Input::Frame(again));
    assert!(
        b.reply.len() > a.reply.len(),
        "the request for the whole hand got {} frames after {}",
        b.reply.len(),
        a.reply.len()
    );
    assert!(b.reply.iter().all(|(to, _)| *to == 1));
    assert!(c.reply.is_empty(), "a third answer within the half period");
}

/// Issue 27: a seated peer that asks for ever earlier steps, one request a millisecond with
/// `from_seq` one lower each time (then the table's first step again and again), gets answers
/// bounded by its byte budget over time — at most `MAX_REPLY_BYTES` at once and
/// `REPLY_BYTES_PER_SECOND` after — whatever the order of its requests, and reads of the
/// store (`Output::load`) only when its budget allows an answer.
#[test]
fn a_seat_asking_for_ever_earlier_steps_gets_its_byte_budget_and_no_more() {
    use mahjong_table::codec::Header;
    use mahjong_table::{Client, Input, MAX_REPLY_BYTES, REPLY_BYTES_PER_SECOND};
    let mut sim = Sim::new(
        72,
        Net::FAST,
        options(Ruleset::Qiaoma),
        SessionLength::Hands(3),
    );
    sim.run_until(3_600_000, |s| {
        s.count(0, |e| matches!(e, TableEvent::HandOver { .. })) >= 2
    });
    let mut client = Client::restore_with_cards(
        sim.stores[0].clone(),
        sim.keys[0].clone(),
        crate::sim::cards(),
    )
    .expect("restores");
    let next = client.next_step();
    let hand = client.hand_number();
    let prev_hash = client.log_hash();
    let request = |from_seq: u32| {
        Envelope::sign(
            sim.stores[0].config.table,
            Header {
                hand,
                seq: next,
                prev_hash,
            },
            1,
            Body::Request { from_seq, have: 0 },
            &sim.keys[1],
        )
        .encode()
    };
    let start = sim.now + 10_000;
    let (requests, millis) = (2_000u64, 2_000u64);
    let (mut bytes, mut answers, mut loads) = (0u64, 0u64, 0u64);
    for k in 0..requests {
        let from = next.saturating_sub(k as u32 + 1);
        let out = client.handle(start + k * millis / requests, Input::Frame(request(from)));
        if out.load.is_some() {
            loads += 1;
        }
        if !out.reply.is_empty() {
            answers += 1;
        }
        bytes += out.reply.iter().map(|(_, f)| f.len() as u64).sum::<u64>();
    }
    let bound = MAX_REPLY_BYTES as u64 + REPLY_BYTES_PER_SECOND * millis / 1000;
    println!(
        "{requests} requests over {millis} ms for ever earlier steps (from step {next}): \
         {answers} answered, {bytes} bytes, {loads} store loads; bound {bound} bytes"
    );
    assert!(bytes <= bound, "{bytes} bytes answered, bound {bound}");
    assert!(answers < requests / 10, "{answers} of {requests} answered");
    assert!(
        loads <= answers + 1,
        "{loads} store loads for {answers} answers"
    );
}

#[test]
fn another_seats_deal_message_carried_in_an_entry_is_never_taken() {
    // Seat 2 puts seat 1's commitment, carried (no signature), into its own first deal entry
    // instead of its own: nothing but its envelope could vouch for it, and that is seat 2's.
    // Every honest seat refuses the frame, so seat 2 has sent nothing for the step: the
    // set-up fails at the start timer naming it, and nobody ever holds the forgery.
    let hook: Hook = Box::new(move |ctx, env| {
        let Body::Deal(msgs) = &env.body else {
            return vec![(None, env.encode())];
        };
        if !matches!(
            msgs.first().map(|m| &m.message.body),
            Some(DealBody::Commit(_))
        ) {
            return vec![(None, env.encode())];
        }
        let mut msgs = msgs.clone();
        msgs[0].message.seat = mahjong_deal::SeatIndex::new(1).expect("seat");
        let forged = SignedMessage::carried(msgs[0].message.clone());
        msgs[0] = forged;
        let bytes = resign(ctx, env, Body::Deal(msgs));
        assert!(
            Envelope::decode(&bytes).is_err(),
            "a forgery must not decode"
        );
        vec![(None, bytes)]
    });
    let mut sim = Sim::new(
        57,
        Net::FAST,
        options(Ruleset::Qiaoma),
        SessionLength::Hands(1),
    );
    sim.hooks[2] = Some(hook);
    let honest = [0usize, 1, 3];
    sim.run_until(3_600_000, |sim| {
        honest.iter().all(|&s| {
            sim.clients[s]
                .as_ref()
                .is_some_and(|c| c.results().iter().any(|r| r.aborted) || c.is_over())
        })
    });
    for s in honest {
        let c = sim.client(s);
        assert!(
            c.log().iter().flat_map(|r| &r.entries).all(|e| e.seat != 2
                || !matches!(&e.body, Body::Deal(m) if m.iter().any(|m| m.seat().get() != 2))),
            "seat {s} logged the forgery"
        );
        let failed = c.results().iter().find(|r| r.aborted);
        assert!(
            failed.is_some_and(
                |r| matches!(r.outcome, Outcome::Abandoned { leaver, .. } if leaver == 2)
            ),
            "seat {s}: {:?}",
            c.results()
        );
    }
}
