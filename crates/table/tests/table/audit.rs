//! What only the end-of-hand audit can see: a lie about hidden tiles, proven offline by the
//! full-knowledge replay.

use mahjong_rules::{Action, Ruleset, SessionLength};
use mahjong_table::{Body, Charge, Envelope, Evidence, Offence, StepRecord};

use crate::sim::{Net, Sim, cards, options};

/// Re-signs `log[from..]` on the chain that `log[..from]` gives (every key is known here).
fn rechain(sim: &Sim, log: &mut [StepRecord], from: usize) {
    let table = log[0].entries[0].table;
    let mut head = log[..from]
        .iter()
        .enumerate()
        .fold(mahjong_table::codec::genesis(&table), |h, (seq, r)| {
            mahjong_table::codec::chain(&h, seq as u32, &r.entries)
        });
    for (i, rec) in log.iter_mut().enumerate().skip(from) {
        for e in &mut rec.entries {
            let mut header = e.header();
            header.prev_hash = head;
            *e = Envelope::sign(
                table,
                header,
                e.seat,
                e.body.clone(),
                &sim.keys[e.seat as usize],
            );
        }
        head = mahjong_table::codec::chain(&head, i as u32, &rec.entries);
    }
}

#[test]
fn false_ready_declaration_is_caught_by_the_full_replay() {
    let mut found = false;
    for seed in 81..90 {
        let mut sim = Sim::new(
            seed,
            Net::FAST,
            options(Ruleset::Qiaoma),
            SessionLength::Hands(1),
        );
        sim.run(3_600_000);
        let log = sim.log(0).to_vec();
        let audit = log
            .iter()
            .position(|r| {
                matches!(&r.entries[0].body, Body::Deal(m) if matches!(m.first().map(|m| &m.message.body), Some(mahjong_deal::Body::AuditReveal(_))))
            })
            .expect("an audit step");
        // Each seat's last discard, if it moves no more after it than passes.
        for i in (0..audit).rev() {
            let [e] = log[i].entries.as_slice() else {
                continue;
            };
            let Body::Play(p) = &e.body else { continue };
            let Action::Discard { card, ready: false } = p.action else {
                continue;
            };
            let x = e.seat;
            let later_moves = log[i + 1..audit]
                .iter()
                .flat_map(|r| r.entries.iter())
                .any(|l| {
                    l.seat == x && matches!(&l.body, Body::Play(p) if p.action != Action::Pass)
                });
            let already_ready = log[..i].iter().flat_map(|r| r.entries.iter()).any(|l| {
                l.seat == x && matches!(&l.body, Body::Play(p) if matches!(p.action, Action::Discard { ready: true, .. }))
            });
            if later_moves || already_ready {
                continue;
            }
            // Seat x declares ready with that discard.
            let mut forged = log[..=audit].to_vec();
            let mut lie = p.clone();
            lie.action = Action::Discard { card, ready: true };
            forged[i].entries[0].body = Body::Play(lie);
            rechain(&sim, &mut forged, i);
            let evidence = Evidence {
                log: forged[..audit].to_vec(),
                charge: Charge::Step {
                    entries: forged[audit].entries.clone(),
                },
            };
            match evidence.verify_with_cards(cards()) {
                Ok(c) if c.seat == x && matches!(c.offence, Offence::Replay { .. }) => {
                    found = true;
                }
                // The 13 tiles left did wait on something: not a lie, try elsewhere.
                Err(mahjong_table::EvidenceError::NoFault) => {}
                other => panic!("seed {seed}: unexpected {other:?}"),
            }
            break;
        }
        if found {
            break;
        }
    }
    assert!(found, "no hand offered a false ready declaration to test");
}
