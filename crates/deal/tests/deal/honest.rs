//! Honest four-seat runs: everyone learns exactly what they should, the audit passes, and a
//! seat survives a restart.

use mahjong_deal::{
    Accepted, DealError, DealSeat, Observer, Opening, Position, SeatIndex, SignedMessage, Step,
    WALL_SIZE, audit, permutation,
};

use crate::common::{Table, cards, seat, shared_table};

/// Deals 13 cards to each seat (position p to seat p mod 4) and one more to seat 0.
fn deal_hands(t: &mut Table) -> Vec<(Position, usize, u8)> {
    (0..53u8)
        .map(|p| {
            let drawer = usize::from(p % 4);
            (p, drawer, t.draw(p, drawer))
        })
        .collect()
}

#[test]
fn honest_hand_every_seat_reads_exactly_its_own_cards() {
    let mut t = shared_table();
    let joint = *t.seats[0].joint_randomness().expect("joint");
    assert!(t.seats.iter().all(|s| s.joint_randomness() == Some(&joint)));

    let dealt = deal_hands(&mut t);
    for &(p, drawer, card) in &dealt {
        for (i, s) in t.seats.iter().enumerate() {
            if i == drawer {
                assert_eq!(s.card_at(p), Some((card, Opening::Drawn(seat(i)))));
            } else {
                assert_eq!(s.card_at(p), None, "seat {i} must not see position {p}");
            }
        }
    }
    for (i, s) in t.seats.iter().enumerate() {
        let expected = if i == 0 { 14 } else { 13 };
        assert_eq!(s.hand_cards().len(), expected);
    }

    // Each seat shows two cards; an indicator is opened publicly.
    let mut shown = Vec::new();
    for &(p, drawer, card) in dealt.iter().take(8) {
        assert_eq!(t.show(p, drawer), card);
        shown.push(p);
    }
    let indicator = t.public_open(143);

    // A spectator sees the shown and public cards, and nothing else.
    let mut spectator = Observer::with_cards(t.ctx, t.roster, cards());
    for m in &t.log {
        spectator.receive(m.clone()).expect("spectator accepts");
    }
    assert_eq!(spectator.public_cards().len(), shown.len() + 1);
    assert_eq!(
        spectator.public_card(143),
        Some((indicator, Opening::Public))
    );

    t.audit_reveals();
    let report = audit(t.ctx, &t.roster, &t.log).expect("honest hand audits clean");
    assert_eq!(report.joint, joint);
    let mut sorted = report.final_wall.clone();
    sorted.sort_unstable();
    assert!(
        sorted.iter().enumerate().all(|(i, &c)| usize::from(c) == i),
        "a permutation"
    );
    for &(p, drawer, card) in &dealt {
        assert_eq!(report.final_wall[usize::from(p)], card);
        let expected = if shown.contains(&p) {
            Opening::Shown(seat(drawer))
        } else {
            Opening::Drawn(seat(drawer))
        };
        assert_eq!(report.openings[&p], expected);
    }
    assert_eq!(report.final_wall[143], indicator);
    assert_eq!(report.openings[&143], Opening::Public);
    // Every seat's own transcript audits the same.
    for s in &t.seats {
        assert_eq!(s.audit().as_ref(), Ok(&report));
    }
}

#[test]
fn final_wall_is_the_composition_of_the_four_permutations() {
    let mut t = shared_table();
    t.audit_reveals();
    let report = audit(t.ctx, &t.roster, &t.log).expect("clean");
    let perms: Vec<_> = (0..4)
        .map(|i| {
            let seed = *t.seats[i].snapshot().secrets.shuffle_seed();
            permutation(&t.ctx, seat(i), &seed)
        })
        .collect();
    for p in 0..WALL_SIZE {
        // Final position p holds seat 3's input perms[3][p], which is seat 2's output at that
        // position, and so on down to the initial wall where position = card.
        let mut q = usize::from(perms[3][p]);
        for s in (0..3).rev() {
            q = usize::from(perms[s][q]);
        }
        assert_eq!(usize::from(report.final_wall[p]), q);
    }
}

#[test]
fn hands_at_one_table_are_independent() {
    let mut walls = Vec::new();
    let mut ids = Vec::new();
    // Hand 0 of the shared table, and hand 1 with the same signing keys.
    let first = shared_table();
    let mut rng = <rand_chacha::ChaCha20Rng as rand_core::SeedableRng>::seed_from_u64(3);
    let mut second = Table::with_signers(first.signers.clone(), first.ctx.table, 1, &mut rng);
    second.setup();
    for mut t in [first, second] {
        t.audit_reveals();
        let report = audit(t.ctx, &t.roster, &t.log).expect("clean");
        ids.push(report.joint.hand_id);
        walls.push(report.final_wall);
    }
    assert_ne!(ids[0], ids[1]);
    assert_ne!(walls[0], walls[1]);
}

#[test]
fn a_restored_seat_continues_and_reemits_identical_messages() {
    let mut t = shared_table();
    let card = t.draw(10, 2);

    // Seat 2 crashes: persist (postcard bytes), restore, carry on.
    let bytes = postcard::to_allocvec(&t.seats[2].snapshot()).expect("encode snapshot");
    let snapshot = postcard::from_bytes(&bytes).expect("decode snapshot");
    let restored = DealSeat::restore_with_cards(snapshot, cards()).expect("restore");
    assert_eq!(restored.open_private(10), Ok(card));
    assert_eq!(restored.transcript(), t.seats[2].transcript());
    t.seats[2] = restored;

    // Re-asking for its earlier messages gives the identical bytes (no accidental equivocation).
    let commit = t.seats[2].commit(&t.signers[2]).expect("commit");
    let shuffle = t.seats[2].shuffle_message(&t.signers[2]).expect("shuffle");
    assert!(t.log.contains(&commit));
    assert!(t.log.contains(&shuffle));

    // And it can keep playing.
    assert_eq!(t.show(10, 2), card);
    let other = t.draw(11, 2);
    assert_eq!(t.seats[2].open_private(11), Ok(other));
    t.audit_reveals();
    audit(t.ctx, &t.roster, &t.log).expect("clean after restore");
}

#[test]
fn a_seat_rebuilt_from_fresh_secrets_state_replays_messages_in_any_later_phase() {
    // Restore at every prefix of the log: each must succeed and agree with the live seat.
    let mut t = shared_table();
    t.draw(0, 1);
    let snapshot = t.seats[1].snapshot();
    for n in [0, 3, 8, 12, 16, snapshot.messages.len()] {
        let mut partial = snapshot.clone();
        partial.messages.truncate(n);
        let seat = DealSeat::restore_with_cards(partial, cards()).expect("restore prefix");
        assert_eq!(seat.transcript().len(), n);
    }
}

#[test]
fn deal_seat_serializes_as_its_snapshot() {
    let mut t = shared_table();
    let card = t.draw(3, 0);
    let bytes = postcard::to_allocvec(&t.seats[0]).expect("encode");
    let back: DealSeat = postcard::from_bytes(&bytes).expect("decode");
    assert_eq!(back.open_private(3), Ok(card));
    assert_eq!(back.seat(), seat(0));
}

#[test]
fn messages_round_trip_and_fit_the_budget() {
    let mut t = shared_table();
    t.draw(0, 1);
    t.audit_reveals();
    let mut per_seat_setup = [0usize; 4];
    for m in &t.log {
        let bytes = m.to_bytes().expect("encode");
        assert_eq!(&SignedMessage::from_bytes(&bytes).expect("decode"), m);
        match m.step() {
            // 144 ciphertexts (9 KB) and the proof of shuffle (23 KB).
            Step::Shuffle => assert!(bytes.len() < 33_000, "shuffle {} bytes", bytes.len()),
            _ => assert!(bytes.len() < 300, "{:?} {} bytes", m.step(), bytes.len()),
        }
        if matches!(
            m.step(),
            Step::Commit | Step::Key | Step::Reveal | Step::Shuffle
        ) {
            per_seat_setup[m.seat().index()] += bytes.len();
        }
    }
    for (i, bytes) in per_seat_setup.iter().enumerate() {
        assert!(*bytes < 34_000, "seat {i} sends {bytes} bytes for set-up");
    }
}

#[test]
fn redelivery_is_harmless() {
    let mut t = shared_table();
    t.draw(5, 3);
    let log = t.log.clone();
    for m in &log {
        for s in &mut t.seats {
            assert_eq!(s.receive(m.clone()), Ok(Accepted::Duplicate));
        }
    }
}

#[test]
fn out_of_order_delivery_is_refused_without_blame() {
    let mut t = Table::new(9, 0);
    let c0 = t.seats[0].commit(&t.signers[0]).expect("commit");
    t.broadcast(&c0);
    // A reveal can be made only after all four commits.
    assert_eq!(
        t.seats[0].reveal(&t.signers[0]),
        Err(DealError::NotReady {
            needs: Step::Commit
        })
    );
    // A shuffle needs the keys.
    assert_eq!(
        t.seats[0].shuffle_message(&t.signers[0]).map(|_| ()),
        Err(DealError::NotReady { needs: Step::Key })
    );
    t.commit_and_reveal();
    // Seat 1's shuffle before seat 0's: refused, nobody blamed.
    let mut early = Table::new(9, 0);
    early.commit_and_reveal();
    assert!(!early.seats[1].is_my_turn_to_shuffle());
    assert_eq!(
        early.seats[1]
            .shuffle_message(&early.signers[1])
            .map(|_| ()),
        Err(DealError::NotReady {
            needs: Step::Shuffle
        })
    );
    early.shuffle(0);
    let s1 = early.seats[1]
        .shuffle_message(&early.signers[1])
        .expect("shuffle 1");
    let mut fresh = DealSeat::with_cards(
        early.ctx,
        seat(3),
        early.roster,
        mahjong_deal::HandSecrets::from_root(&[1; 32]),
        cards(),
    );
    for m in early.log.iter().filter(|m| m.step() != Step::Shuffle) {
        fresh.receive(m.clone()).expect("set-up messages");
    }
    let err = fresh.receive(s1).expect_err("out of order");
    assert!(matches!(
        err,
        DealError::OutOfOrder {
            needs: Step::Shuffle,
            ..
        }
    ));
    assert_eq!(err.culprit(), None);
}

#[test]
fn local_misuse_is_refused() {
    let mut t = shared_table();
    let signer0 = t.signers[0].clone();
    let signer1 = t.signers[1].clone();
    assert_eq!(
        t.seats[0].share_for(&signer0, 1, seat(0)).map(|_| ()),
        Err(DealError::SelfRequest)
    );
    assert_eq!(
        t.seats[0].share_for(&signer0, 144, seat(1)).map(|_| ()),
        Err(DealError::PositionOutOfRange { position: 144 })
    );
    assert_eq!(
        t.seats[0].share_for(&signer1, 1, seat(1)).map(|_| ()),
        Err(DealError::WrongSigningKey)
    );
    assert_eq!(
        t.seats[0].show(&signer0, 1).map(|_| ()),
        Err(DealError::NotHeld {
            seat: seat(0),
            position: 1
        })
    );
    // Seat 0 draws position 1: it must refuse to release a share of it to anyone, or publicly.
    t.draw(1, 0);
    assert_eq!(
        t.seats[0].share_for(&signer0, 1, seat(2)).map(|_| ()),
        Err(DealError::PositionConflict { position: 1 })
    );
    assert_eq!(
        t.seats[0].public_share(&signer0, 1).map(|_| ()),
        Err(DealError::PositionConflict { position: 1 })
    );
    // Seat 1 gave its share of position 1 to seat 0: not also to seat 2, nor publicly.
    assert_eq!(
        t.seats[1].share_for(&signer1, 1, seat(2)).map(|_| ()),
        Err(DealError::PositionConflict { position: 1 })
    );
    assert_eq!(
        t.seats[1].public_share(&signer1, 1).map(|_| ()),
        Err(DealError::PositionConflict { position: 1 })
    );
    // Asking again for the same share gives the same message.
    let again = t.seats[1]
        .share_for(&signer1, 1, seat(0))
        .expect("same share");
    assert!(t.log.contains(&again));
    assert_eq!(SeatIndex::new(4), None);
}
