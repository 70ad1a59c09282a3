//! Carried messages: made without a signature of their own for an envelope that signs them
//! (the table crate's envelope version 2). Only the carried paths take them; every proof is still
//! checked and every cheat still names its seat.

use curve25519_dalek::ristretto::RistrettoPoint;
use curve25519_dalek::scalar::Scalar;
use mahjong_deal::{
    Body, DealError, Message, ShareFault, SignedMessage, Step, audit, audit_carried_with_cards,
};

use crate::common::{Table, cards, seat};

/// A carried table, set up, with a hand dealt, shown from and audited.
fn carried_hand(seed: u64) -> Table {
    let mut t = Table::new_carried(seed, 0);
    t.setup();
    for p in 0..8u8 {
        t.draw(p, usize::from(p % 4));
    }
    t.show(1, 1);
    t.audit_reveals();
    t
}

#[test]
fn a_carried_seat_makes_messages_without_signatures_and_its_hand_audits() {
    let t = carried_hand(71);
    assert!(t.log.iter().all(SignedMessage::is_carried));
    let summary = audit_carried_with_cards(t.ctx, &t.roster, &t.log, cards()).expect("audits");
    for s in &t.seats {
        assert_eq!(s.audit(), Ok(summary.clone()));
    }
    // The audit for anyone's transcript asks every message for its signature: a carried
    // transcript proves nothing there (its messages are set aside, the set-up is missing).
    let v = audit(t.ctx, &t.roster, &t.log).expect_err("no signatures");
    assert_eq!(v.step, Step::Commit);
}

#[test]
fn a_carried_message_is_refused_where_a_signature_is_asked_for() {
    let mut signed = Table::new(73, 0);
    let c = signed.seats[0].commit(&signed.signers[0]).expect("commit");
    let carried = c.clone().into_carried();
    assert!(!c.is_carried() && carried.is_carried());
    let e = signed.seats[1]
        .receive(carried.clone())
        .expect_err("no signature");
    assert_eq!(e, DealError::BadSignature { seat: seat(0) });
    // Out of a checked carrier it is taken, and so is a signed one.
    signed.seats[1].receive_carried(carried).expect("carried");
    let k = signed.seats[0]
        .key_message(&signed.signers[0])
        .expect("key");
    signed.seats[1].receive_carried(k).expect("signed");
}

#[test]
fn a_signed_message_with_a_bad_signature_is_refused_on_the_carried_path_too() {
    let mut t = Table::new_carried(79, 0);
    let c = t.seats[0].commit(&t.signers[0]).expect("commit");
    let mut forged = c.message.clone().sign(&t.signers[1]).expect("sign");
    assert!(!forged.is_carried());
    let e = t.seats[2]
        .receive_carried(forged.clone())
        .expect_err("forged");
    assert_eq!(e, DealError::BadSignature { seat: seat(0) });
    forged.signature = c.message.sign(&t.signers[0]).expect("sign").signature;
    t.seats[2]
        .receive_carried(forged)
        .expect("the seat's own signature");
}

#[test]
fn a_carried_share_with_a_wrong_point_is_refused_naming_the_seat() {
    let mut t = Table::new_carried(83, 0);
    t.setup();
    let good = t.seats[1]
        .clone()
        .share_for(&t.signers[1], 7, seat(0))
        .expect("share");
    assert!(good.is_carried());
    let Body::Share(mut share) = good.message.body.clone() else {
        panic!("a share");
    };
    let bad = share.share.decompress().expect("point") + RistrettoPoint::mul_base(&Scalar::ONE);
    share.share = bad.compress();
    let msg = SignedMessage::carried(Message::new(&t.ctx, seat(1), Body::Share(share)));
    for i in [0, 2, 3] {
        let e = t.seats[i]
            .receive_carried(msg.clone())
            .expect_err("bad proof");
        assert_eq!(
            e,
            DealError::BadShare {
                seat: seat(1),
                position: 7,
                fault: ShareFault::BadProof
            },
            "seat {i}"
        );
    }
    t.broadcast(&good);
}

#[test]
fn a_restored_carried_seat_continues_carried() {
    let t = carried_hand(89);
    for s in &t.seats {
        let restored = mahjong_deal::DealSeat::restore(s.snapshot()).expect("restores");
        assert_eq!(restored.audit(), s.audit());
    }
    let mut t = Table::new_carried(97, 0);
    t.commit_and_reveal();
    let snapshot = t.seats[2].snapshot();
    let mut restored = mahjong_deal::DealSeat::restore(snapshot).expect("restores");
    let reveal_again = restored.reveal(&t.signers[2]).expect("re-emits");
    assert!(reveal_again.is_carried());
}
