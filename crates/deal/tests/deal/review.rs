//! Regression tests from the security review: a transcript handed to the auditor by someone
//! else cannot frame an innocent seat or hide the real culprit, reveals need every key
//! first, and a seat told it is drawing a position never releases its share of it.

use mahjong_deal::{Body, DealError, ShareKind, ShuffleOutput, SignedMessage, Step, audit};

use crate::common::{Table, cards, seat};

fn honest_hand(seed: u64, hand: u32) -> Table {
    let mut t = Table::new(seed, hand);
    t.setup();
    let c = t.draw(3, 2);
    assert_eq!(t.show(3, 2), c);
    t.draw(4, 1);
    t.audit_reveals();
    t
}

/// A hand where seat 1 shuffles with `other_seed` instead of the seed it committed to (a
/// valid shuffle with a valid proof: only the audit can tell), then the rest shuffle.
fn uncommitted_shuffle(seed: u64, hand: u32, other_seed: [u8; 32]) -> Table {
    let mut t = Table::new(seed, hand);
    t.commit_and_reveal();
    t.shuffle(0);
    let key = *t.seats[1].observer().joint_key().unwrap();
    let input: Vec<_> = t.seats[1]
        .observer()
        .messages()
        .iter()
        .find_map(|m| match &m.message.body {
            Body::Shuffle(s) if m.seat() == seat(0) => Some(s.wall.clone()),
            _ => None,
        })
        .unwrap()
        .iter()
        .map(|c| c.decompress().unwrap())
        .collect();
    let other = ShuffleOutput::new(&t.ctx, seat(1), &other_seed, &key, &input, &cards());
    let msg = t.sign_as(1, Body::Shuffle(other));
    t.broadcast(&msg);
    t.shuffle(2);
    t.shuffle(3);
    t
}

#[test]
fn a_message_replayed_from_another_hand_blames_nobody_at_the_audit() {
    let h1 = honest_hand(29, 1);
    let h2 = honest_hand(29, 2);
    let mut log = h2.log.clone();
    log.push(h1.log.iter().find(|m| m.seat() == seat(1)).unwrap().clone());
    assert!(
        audit(h2.ctx, &h2.roster, &log).is_ok(),
        "the foreign message is set aside"
    );
}

#[test]
fn junk_with_a_bad_signature_blames_nobody_at_the_audit() {
    let h = honest_hand(31, 0);
    let mut junk = h
        .log
        .iter()
        .rev()
        .find(|m| m.seat() == seat(3))
        .unwrap()
        .clone();
    if let Body::AuditReveal(a) = &mut junk.message.body {
        a.shuffle_seed[0] ^= 1;
    }
    let mut log = h.log.clone();
    log.push(junk);
    assert!(audit(h.ctx, &h.roster, &log).is_ok());
}

#[test]
fn an_injected_replay_does_not_mask_the_real_culprit() {
    let h1 = honest_hand(37, 1);
    let mut t = uncommitted_shuffle(37, 2, [0x5E; 32]);
    t.audit_reveals();
    let mut log = t.log.clone();
    log.push(h1.log.iter().find(|m| m.seat() == seat(0)).unwrap().clone());
    let v = audit(t.ctx, &t.roster, &log).expect_err("the bad shuffle is caught");
    assert_eq!(v.seat, Some(seat(1)));
    assert_eq!(v.step, Step::Shuffle);
}

#[test]
fn missing_or_reordered_draw_shares_frame_nobody() {
    let h = honest_hand(41, 0);
    let is_draw_3 = |m: &SignedMessage| matches!(&m.message.body, Body::Share(s) if s.position == 3 && matches!(s.kind, ShareKind::Draw { .. }));
    // Without the draw shares, the show cannot be checked, and nobody is to blame for that.
    let log: Vec<_> = h.log.iter().filter(|m| !is_draw_3(m)).cloned().collect();
    let v = audit(h.ctx, &h.roster, &log).expect_err("incomplete");
    assert_eq!(v.seat, None, "{v}");
    // Shares after the show in the transcript: the audit puts them back in order.
    let mut log: Vec<_> = h.log.iter().filter(|m| !is_draw_3(m)).cloned().collect();
    log.extend(h.log.iter().filter(|m| is_draw_3(m)).cloned());
    assert!(audit(h.ctx, &h.roster, &log).is_ok());
}

#[test]
fn a_seat_told_it_draws_a_position_never_gives_its_share_away() {
    let mut t = Table::new(43, 0);
    t.setup();
    // Seat 2 is drawing position 7; the draw shares for it are still in flight.
    t.seats[2].expect_draw(7);
    assert_eq!(
        t.seats[2].share_for(&t.signers[2], 7, seat(1)),
        Err(DealError::PositionConflict { position: 7 })
    );
    assert_eq!(
        t.seats[2].public_share(&t.signers[2], 7),
        Err(DealError::PositionConflict { position: 7 })
    );
    // And the mark survives a restart.
    let restored = mahjong_deal::DealSeat::restore(t.seats[2].snapshot()).unwrap();
    let mut restored = restored;
    assert_eq!(
        restored.share_for(&t.signers[2], 7, seat(1)),
        Err(DealError::PositionConflict { position: 7 })
    );
}

#[test]
fn reveals_wait_for_every_key() {
    let mut t = Table::new(47, 0);
    for i in 0..4 {
        let c = t.seats[i].commit(&t.signers[i]).unwrap();
        t.broadcast(&c);
    }
    let r = t.seats[0].reveal(&t.signers[0]);
    let r = match r {
        Ok(m) => t.seats[1].receive(m),
        Err(e) => Err(e),
    };
    assert!(
        matches!(
            r,
            Err(DealError::OutOfOrder {
                needs: Step::Key,
                ..
            }) | Err(DealError::NotReady { .. })
        ),
        "{r:?}"
    );
}

#[test]
fn the_audit_of_an_accepted_transcript_agrees_with_the_full_audit() {
    let h = honest_hand(53, 0);
    let full = audit(h.ctx, &h.roster, &h.log).unwrap();
    for s in &h.seats {
        assert_eq!(mahjong_deal::audit_verified(s.observer()), Ok(full.clone()));
        assert_eq!(s.audit(), Ok(full.clone()));
    }
    // And it still recomputes every shuffle: a shuffle from an uncommitted seed is caught.
    let mut t = uncommitted_shuffle(59, 0, [0x77; 32]);
    t.audit_reveals();
    let v = t.seats[0].audit().expect_err("caught");
    assert_eq!((v.seat, v.step), (Some(seat(1)), Step::Shuffle));
}
