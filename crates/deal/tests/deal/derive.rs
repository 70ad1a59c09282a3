//! What a finished hand's reveals derive: every shuffled wall and every share of an honest
//! hand is made again byte for byte, and a message that is not the derivation's is told
//! apart (a store keeps those whole).

use mahjong_deal::{Body, Derivation, DleqProof, ShareMessage};

use crate::common::{Table, cards, seat};

/// A carried table, set up, with a hand dealt, shown from, opened publicly and audited.
fn finished_hand(seed: u64) -> Table {
    let mut t = Table::new_carried(seed, 3);
    t.setup();
    for p in 0..12u8 {
        t.draw(p, usize::from(p % 4));
    }
    t.show(1, 1);
    t.public_open(40);
    t.audit_reveals();
    t
}

fn derivation(t: &Table) -> Derivation {
    Derivation::new(t.ctx, t.log.iter().map(|m| &m.message)).expect("all four reveals")
}

#[test]
fn every_wall_and_share_of_an_honest_hand_is_derived_byte_for_byte() {
    let t = finished_hand(91);
    let mut d = derivation(&t);
    let (mut walls, mut shares) = (0, 0);
    for m in &t.log {
        let s = m.message.seat;
        match &m.message.body {
            Body::Shuffle(out) => {
                assert!(d.derives_wall(s, &out.wall, &cards()));
                assert_eq!(d.wall(s, &cards()), out.wall.as_slice());
                walls += 1;
            }
            Body::Share(share) => {
                assert!(d.derives_share(s, share, &cards()));
                let made = d.share(s, share.position, share.kind, &cards());
                assert_eq!(made.as_ref(), Some(share));
                shares += 1;
            }
            _ => {}
        }
    }
    assert_eq!(walls, 4);
    // 12 draws of three shares, a show and a public open of four.
    assert_eq!(shares, 12 * 3 + 1 + 4);
}

#[test]
fn nothing_is_derived_before_every_seat_has_revealed() {
    let mut t = Table::new_carried(92, 3);
    t.setup();
    t.draw(0, 0);
    assert!(Derivation::new(t.ctx, t.log.iter().map(|m| &m.message)).is_none());
    // Nor from another hand's messages.
    let other = finished_hand(93);
    let mut ctx = other.ctx;
    ctx.hand += 1;
    assert!(Derivation::new(ctx, other.log.iter().map(|m| &m.message)).is_none());
}

#[test]
fn a_share_or_wall_that_is_not_the_derivations_is_told_apart() {
    let t = finished_hand(94);
    let mut d = derivation(&t);
    let (share_seat, share) = t
        .log
        .iter()
        .find_map(|m| match &m.message.body {
            Body::Share(s) => Some((m.message.seat, s.clone())),
            _ => None,
        })
        .expect("a share");
    // Another seat's, another position's, another point, another proof.
    let other_seat = seat((share_seat.index() + 1) % 4);
    assert!(!d.derives_share(other_seat, &share, &cards()));
    let moved = ShareMessage {
        position: share.position + 1,
        ..share.clone()
    };
    assert!(!d.derives_share(share_seat, &moved, &cards()));
    let proof = DleqProof {
        response: share.proof.response + share.proof.challenge,
        ..share.proof
    };
    assert!(!d.derives_share(
        share_seat,
        &ShareMessage {
            proof,
            ..share.clone()
        },
        &cards()
    ));
    let beyond = ShareMessage {
        position: 200,
        ..share
    };
    assert!(!d.derives_share(share_seat, &beyond, &cards()));
    assert!(d.share(share_seat, 200, beyond.kind, &cards()).is_none());
    let wall = t
        .log
        .iter()
        .find_map(|m| match &m.message.body {
            Body::Shuffle(out) if m.message.seat == seat(2) => Some(out.wall.clone()),
            _ => None,
        })
        .expect("seat 2's shuffle");
    assert!(!d.derives_wall(seat(1), &wall, &cards()));
    let mut swapped = wall.clone();
    swapped.swap(0, 1);
    assert!(!d.derives_wall(seat(2), &swapped, &cards()));
}

#[test]
fn an_audited_derivation_takes_the_published_walls_and_checks_the_share_proofs_nonces() {
    let t = finished_hand(95);
    let mut plain = derivation(&t);
    let mut audited = derivation(&t).audited();
    let mut shares = 0;
    for m in &t.log {
        let s = m.message.seat;
        match &m.message.body {
            Body::Shuffle(out) => {
                assert!(audited.derives_wall(s, &out.wall, &cards()));
                let mut other = out.wall.clone();
                other.swap(3, 4);
                assert!(!audited.derives_wall(s, &other, &cards()));
            }
            Body::Share(share) => {
                assert!(audited.derives_share(s, share, &cards()));
                // A valid-looking proof with another nonce is not the derivation's.
                let proof = DleqProof {
                    response: share.proof.response + share.proof.challenge,
                    ..share.proof
                };
                let other = ShareMessage {
                    proof,
                    ..share.clone()
                };
                assert!(!audited.derives_share(s, &other, &cards()));
                shares += 1;
            }
            _ => {}
        }
    }
    assert!(shares > 40);
    // What it makes again is what the plain derivation makes.
    for m in &t.log {
        if let Body::Share(share) = &m.message.body {
            let s = m.message.seat;
            assert_eq!(
                audited.share(s, share.position, share.kind, &cards()),
                plain.share(s, share.position, share.kind, &cards())
            );
        }
    }
    assert_eq!(
        audited.wall(seat(3), &cards()),
        plain.wall(seat(3), &cards())
    );
}
