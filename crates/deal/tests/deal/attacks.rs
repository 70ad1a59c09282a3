//! Each attack is detected and the culprit named. A modified client is modelled by a test that
//! signs whatever it likes with that seat's key.

use curve25519_dalek::ristretto::RistrettoPoint;
use curve25519_dalek::scalar::Scalar;
use mahjong_deal::{
    AuditRevealFault, Body, Ciphertext, DealError, KeyAnnouncement, KeyFault, SeedReveal,
    ShareFault, ShareKind, ShareMessage, ShuffleFault, ShuffleOutput, SignedMessage, Step, audit,
};

use crate::common::{Table, ready_table, seat, shared_table};

fn secret_key(t: &Table, i: usize) -> Scalar {
    *t.seats[i].snapshot().secrets.secret_key()
}

fn body_of(m: &SignedMessage) -> Body {
    m.message.body.clone()
}

/// Every seat other than `except` rejects `msg` with an error naming `culprit`.
fn all_reject(
    t: &mut Table,
    msg: &SignedMessage,
    except: Option<usize>,
    culprit: usize,
) -> DealError {
    let mut first = None;
    for (i, s) in t.seats.iter_mut().enumerate() {
        if Some(i) == except {
            continue;
        }
        let e = s.receive(msg.clone()).expect_err("must be rejected");
        assert_eq!(e.culprit(), Some(seat(culprit)), "seat {i}: {e}");
        first.get_or_insert(e);
    }
    first.expect("at least one receiver")
}

#[test]
fn rogue_key_is_rejected_naming_the_seat() {
    let mut t = Table::new(20, 0);
    for i in 0..3 {
        let k = t.seats[i].key_message(&t.signers[i]).expect("key");
        t.broadcast(&k);
    }
    // Seat 3 picks Y3 = T − Y0 − Y1 − Y2 so that the joint key is T, whose secret it knows.
    let target = RistrettoPoint::mul_base(&Scalar::from(1234u64));
    let others: RistrettoPoint = (0..3)
        .map(|i| RistrettoPoint::mul_base(&secret_key(&t, i)))
        .sum();
    let rogue = (target - others).compress();
    // It cannot prove knowledge of log(Y3); it reuses a proof of its honest key.
    let Body::Key(mut honest) =
        body_of(&t.seats[3].clone().key_message(&t.signers[3]).expect("key"))
    else {
        panic!("key body");
    };
    honest.key = rogue;
    let msg = t.sign_as(3, Body::Key(honest.clone()));
    let e = all_reject(&mut t, &msg, Some(3), 3);
    assert_eq!(
        e,
        DealError::BadKey {
            seat: seat(3),
            fault: KeyFault::BadProof
        }
    );

    // The identity key and an invalid encoding are rejected too.
    honest.key = curve25519_dalek::ristretto::CompressedRistretto([0; 32]);
    let msg = t.sign_as(3, Body::Key(honest.clone()));
    assert!(matches!(
        all_reject(&mut t, &msg, Some(3), 3),
        DealError::BadKey {
            fault: KeyFault::Identity,
            ..
        }
    ));
    honest.key = curve25519_dalek::ristretto::CompressedRistretto([0xFF; 32]);
    let msg = t.sign_as(3, Body::Key(honest));
    assert!(matches!(
        all_reject(&mut t, &msg, Some(3), 3),
        DealError::BadKey {
            fault: KeyFault::InvalidPoint,
            ..
        }
    ));
}

#[test]
fn wrong_decryption_share_is_rejected_naming_the_seat() {
    let mut t = shared_table();
    let good = t.seats[1]
        .clone()
        .share_for(&t.signers[1], 7, seat(0))
        .expect("share");
    let Body::Share(mut share) = body_of(&good) else {
        panic!("share body");
    };
    // Seat 1 sends a different point with the honest proof…
    let bad_point =
        share.share.decompress().expect("point") + RistrettoPoint::mul_base(&Scalar::ONE);
    share.share = bad_point.compress();
    let msg = t.sign_as(1, Body::Share(share.clone()));
    let e = all_reject(&mut t, &msg, None, 1);
    assert_eq!(
        e,
        DealError::BadShare {
            seat: seat(1),
            position: 7,
            fault: ShareFault::BadProof
        }
    );
    // …or a proof made with a wrong secret for a wrong share.
    let c1 = t.seats[0].observer().final_wall().expect("wall")[7].c1;
    let forged = ShareMessage::new(
        &t.ctx,
        seat(1),
        &Scalar::from(5u64),
        &c1,
        7,
        ShareKind::Draw { requester: seat(0) },
    );
    let msg = t.sign_as(1, Body::Share(forged));
    assert!(matches!(
        all_reject(&mut t, &msg, None, 1),
        DealError::BadShare {
            fault: ShareFault::BadProof,
            ..
        }
    ));
    // The honest share is still accepted afterwards.
    t.broadcast(&good);
}

#[test]
fn a_share_for_another_requester_does_not_open_a_card() {
    let mut t = shared_table();
    let card = t.draw(9, 0);
    // Seat 2 received (by broadcast) seats 1 and 3's shares of position 9 for seat 0.
    assert_eq!(
        t.seats[2].open_private(9),
        Err(DealError::MissingShares { position: 9 })
    );
    assert_eq!(t.seats[2].card_at(9), None);

    let shares_for_0: Vec<SignedMessage> = t
        .log
        .iter()
        .filter(|m| matches!(&m.message.body, Body::Share(s) if s.position == 9))
        .cloned()
        .collect();
    assert_eq!(shares_for_0.len(), 3);

    // Re-addressing another seat's share to itself breaks that seat's signature.
    let from1 = shares_for_0
        .iter()
        .find(|m| m.seat() == seat(1))
        .expect("share of seat 1");
    let mut relabelled = from1.clone();
    if let Body::Share(s) = &mut relabelled.message.body {
        s.kind = ShareKind::Draw { requester: seat(2) };
    }
    assert_eq!(
        t.seats[2].receive(relabelled.clone()),
        Err(DealError::BadSignature { seat: seat(1) })
    );
    // Even if seat 1 colludes and re-signs it, the proof is bound to requester 0.
    let resigned = t.sign_as(1, relabelled.message.body.clone());
    assert_eq!(
        t.seats[2].receive(resigned),
        Err(DealError::BadShare {
            seat: seat(1),
            position: 9,
            fault: ShareFault::BadProof
        })
    );
    // Moved to another position, it fails the same way.
    let mut moved = from1.message.body.clone();
    if let Body::Share(s) = &mut moved {
        s.position = 10;
    }
    let moved = t.sign_as(1, moved);
    assert!(matches!(
        t.seats[2].receive(moved),
        Err(DealError::BadShare {
            fault: ShareFault::BadProof,
            ..
        })
    ));
    // And by hand: every share seat 2 can get (1's, 3's, its own) still lacks seat 0's.
    let wall = t.seats[2].observer().final_wall().expect("wall");
    let c = wall[9];
    let shares: RistrettoPoint = shares_for_0
        .iter()
        .filter(|m| m.seat() != seat(2))
        .map(|m| match &m.message.body {
            Body::Share(s) => s.share.decompress().expect("point"),
            _ => unreachable!(),
        })
        .sum();
    let guess = c.c2 - shares - c.c1 * secret_key(&t, 2);
    assert_eq!(t.seats[2].observer().card_table().card_of(&guess), None);
    assert_eq!(t.seats[0].open_private(9), Ok(card));
}

/// Seat `cheat` publishes its honest shuffle's proof with a tampered wall: every seat rejects
/// it on receipt (the proof of shuffle fails), and the audit of a transcript holding it names
/// the cheat, with the signed shuffle as evidence.
fn shuffle_attack(seed: u64, cheat: usize, tamper: impl FnOnce(&Table, &mut Vec<Ciphertext>)) {
    let mut t = Table::new(seed, 0);
    t.commit_and_reveal();
    for i in 0..cheat {
        t.shuffle(i);
    }
    let honest = t.seats[cheat]
        .clone()
        .shuffle_message(&t.signers[cheat])
        .expect("shuffle");
    let Body::Shuffle(out) = body_of(&honest) else {
        panic!("shuffle body");
    };
    let mut wall: Vec<Ciphertext> = out
        .wall
        .iter()
        .map(|c| c.decompress().expect("valid"))
        .collect();
    tamper(&t, &mut wall);
    let tampered = t.sign_as(
        cheat,
        Body::Shuffle(ShuffleOutput {
            wall: wall.iter().map(Ciphertext::compress).collect(),
            proof: out.proof,
        }),
    );
    for r in t.try_broadcast(&tampered) {
        assert_eq!(
            r,
            Err(DealError::BadShuffle {
                seat: seat(cheat),
                fault: ShuffleFault::BadProof
            })
        );
    }
    let v = audit(t.ctx, &t.roster, &t.log).expect_err("audit must fail");
    assert_eq!(v.seat, Some(seat(cheat)));
    assert_eq!(v.step, Step::Shuffle);
    assert_eq!(
        v.error,
        DealError::BadShuffle {
            seat: seat(cheat),
            fault: ShuffleFault::BadProof
        }
    );
    assert_eq!(
        v.evidence,
        vec![tampered],
        "the signed shuffle is the evidence"
    );
}

/// A fresh encryption of `card` under the joint key.
fn encrypt(t: &Table, card: usize, r: u64) -> Ciphertext {
    let y = *t.seats[0].observer().joint_key().expect("joint key");
    let m = t.seats[0].observer().card_table().points()[card];
    let r = Scalar::from(r);
    Ciphertext {
        c1: RistrettoPoint::mul_base(&r),
        c2: m + y * r,
    }
}

#[test]
fn shuffle_replacing_a_card_is_caught_naming_the_shuffler() {
    // Seat 1 replaces whatever is at position 40 by a fresh encryption of card 0.
    shuffle_attack(23, 1, |t, wall| wall[40] = encrypt(t, 0, 99));
}

#[test]
fn shuffle_duplicating_a_card_is_caught_naming_the_shuffler() {
    // Seat 2 copies position 3 over position 4, re-randomized so it does not look repeated.
    shuffle_attack(24, 2, |t, wall| {
        let y = *t.seats[0].observer().joint_key().expect("joint key");
        let r = Scalar::from(7u64);
        wall[4] = Ciphertext {
            c1: wall[3].c1 + RistrettoPoint::mul_base(&r),
            c2: wall[3].c2 + y * r,
        };
    });
}

#[test]
fn last_shuffler_replacing_the_whole_wall_is_caught_naming_the_shuffler() {
    // Seat 3 encrypts the cards in an order it knows (so it could read every draw).
    shuffle_attack(25, 3, |t, wall| {
        for (p, c) in wall.iter_mut().enumerate() {
            *c = encrypt(t, p, 1000 + p as u64);
        }
    });
}

#[test]
fn shuffle_with_junk_is_caught_naming_the_shuffler() {
    // Seat 0 puts a valid point that encrypts no card at position 0.
    shuffle_attack(26, 0, |_, wall| {
        wall[0] = Ciphertext {
            c1: RistrettoPoint::mul_base(&Scalar::from(3u64)),
            c2: RistrettoPoint::mul_base(&Scalar::from(4u64)),
        };
    });
}

#[test]
fn shuffle_not_derived_from_the_committed_seed_is_caught_at_the_audit() {
    // Seat 1 shuffles correctly (its proof holds) but with a seed other than the one it
    // committed to, e.g. one it ground to place a card. Only the audit can tell.
    let mut t = Table::new(37, 0);
    t.commit_and_reveal();
    t.shuffle(0);
    let key = *t.seats[1].observer().joint_key().expect("joint key");
    let input = t.seats[1]
        .observer()
        .messages()
        .iter()
        .find_map(|m| match &m.message.body {
            Body::Shuffle(s) if m.seat() == seat(0) => Some(
                s.wall
                    .iter()
                    .map(|c| c.decompress().expect("valid"))
                    .collect::<Vec<_>>(),
            ),
            _ => None,
        })
        .expect("seat 0's wall");
    let cards = crate::common::cards();
    let other = ShuffleOutput::new(&t.ctx, seat(1), &[0x5E; 32], &key, &input, &cards);
    let msg = t.sign_as(1, Body::Shuffle(other));
    t.broadcast(&msg);
    t.shuffle(2);
    t.shuffle(3);
    let card = t.draw(0, 2);
    assert_eq!(t.show(0, 2), card);
    t.audit_reveals();
    let v = audit(t.ctx, &t.roster, &t.log).expect_err("audit must fail");
    assert_eq!(v.seat, Some(seat(1)));
    assert_eq!(v.step, Step::Shuffle);
    assert!(matches!(
        v.error,
        DealError::BadShuffle {
            fault: ShuffleFault::NotDerived(_),
            ..
        }
    ));
    assert!(
        v.evidence.contains(&msg),
        "the signed shuffle is the evidence"
    );
    // With the seat's own audit reveal, the wall it shuffled (seat 0's) and the four keys:
    // enough to check offline.
    assert_eq!(
        v.evidence.len(),
        7,
        "{:?}",
        v.evidence.iter().map(|m| m.step()).collect::<Vec<_>>()
    );
}

#[test]
fn malformed_shuffles_are_rejected_on_receipt() {
    let mut t = Table::new(27, 0);
    t.commit_and_reveal();
    let honest = t.seats[0]
        .clone()
        .shuffle_message(&t.signers[0])
        .expect("shuffle");
    let Body::Shuffle(out) = body_of(&honest) else {
        panic!("shuffle body");
    };
    let cases: Vec<(Vec<mahjong_deal::CompressedCiphertext>, ShuffleFault)> = vec![
        (out.wall[..143].to_vec(), ShuffleFault::WrongLength(143)),
        (
            {
                let mut w = out.wall.clone();
                w[5].c2 = [0xFF; 32];
                w
            },
            ShuffleFault::InvalidPoint(5),
        ),
        (
            {
                let mut w = out.wall.clone();
                w[6].c1 = [0; 32];
                w
            },
            ShuffleFault::Unrandomized(6),
        ),
        (
            {
                let mut w = out.wall.clone();
                w[9] = w[2];
                w
            },
            ShuffleFault::Duplicate(9),
        ),
    ];
    for (wall, fault) in cases {
        let msg = t.sign_as(
            0,
            Body::Shuffle(ShuffleOutput {
                wall,
                proof: out.proof.clone(),
            }),
        );
        let e = all_reject(&mut t, &msg, Some(0), 0);
        assert_eq!(
            e,
            DealError::BadShuffle {
                seat: seat(0),
                fault
            }
        );
    }
}

#[test]
fn reveal_not_matching_its_commitment_is_rejected_naming_the_seat() {
    let mut t = Table::new(28, 0);
    for i in 0..4 {
        let c = t.seats[i].commit(&t.signers[i]).expect("commit");
        t.broadcast(&c);
        let k = t.seats[i].key_message(&t.signers[i]).expect("key");
        t.broadcast(&k);
    }
    // Seat 2 saw the others' reveals and would like another seed.
    for i in [0, 1, 3] {
        let r = t.seats[i].reveal(&t.signers[i]).expect("reveal");
        t.broadcast(&r);
    }
    let Body::Reveal(honest) = body_of(&t.seats[2].clone().reveal(&t.signers[2]).expect("reveal"))
    else {
        panic!("reveal body");
    };
    let msg = t.sign_as(
        2,
        Body::Reveal(SeedReveal {
            seed: [42; 32],
            nonce: honest.nonce,
        }),
    );
    let e = all_reject(&mut t, &msg, Some(2), 2);
    assert_eq!(e, DealError::RevealMismatch { seat: seat(2) });
    assert!(t.seats[0].joint_randomness().is_none());
    // Seat 2's reveal is still missing, and the table knows whom it waits for.
    assert_eq!(t.seats[0].observer().missing(Step::Reveal), vec![seat(2)]);
    assert!(t.seats[0].observer().missing(Step::Commit).is_empty());
}

#[test]
fn messages_replayed_from_another_hand_are_rejected() {
    // Same seats (same signing keys), hands 1 and 2 of one table.
    let mut h1 = ready_table(29, 1);
    h1.draw(0, 0);
    let mut h2 = Table::new(29, 2);
    for m in h1.log.clone() {
        let seat_of = m.seat();
        let e = h2.seats[0].receive(m).expect_err("replay");
        assert!(
            matches!(e, DealError::WrongHand { hand: 1, seat } if seat == seat_of),
            "{e}"
        );
    }
    // A seat that re-signs its old key announcement for the new hand: the proof is bound to
    // hand 1.
    let old_key = h1
        .log
        .iter()
        .find(|m| m.step() == Step::Key && m.seat() == seat(1))
        .expect("key");
    let msg = h2.sign_as(1, old_key.message.body.clone());
    assert_eq!(
        h2.seats[0].receive(msg),
        Err(DealError::BadKey {
            seat: seat(1),
            fault: KeyFault::BadProof
        })
    );
}

#[test]
fn messages_replayed_from_another_table_are_rejected() {
    let t1 = shared_table();
    // Same signers, same hand number, different table id.
    let mut rng = <rand_chacha::ChaCha20Rng as rand_core::SeedableRng>::seed_from_u64(99);
    let mut t2 = Table::with_signers(t1.signers.clone(), [0xEE; 32], 0, &mut rng);
    for m in t1.log.clone() {
        let seat_of = m.seat();
        let e = t2.seats[3].receive(m).expect_err("replay");
        assert_eq!(e, DealError::WrongTable { seat: seat_of });
    }
    let old_key = t1
        .log
        .iter()
        .find(|m| m.step() == Step::Key && m.seat() == seat(2))
        .expect("key");
    let msg = t2.sign_as(2, old_key.message.body.clone());
    assert!(matches!(
        t2.seats[3].receive(msg),
        Err(DealError::BadKey {
            fault: KeyFault::BadProof,
            ..
        })
    ));
}

#[test]
fn bad_signature_is_rejected_naming_the_claimed_seat() {
    let mut t = shared_table();
    let m = t.seats[2]
        .share_for(&t.signers[2], 0, seat(1))
        .expect("share");
    // A flipped bit in the signature.
    let mut bytes = m.to_bytes().expect("encode");
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    let flipped = SignedMessage::from_bytes(&bytes).expect("still decodes");
    assert_eq!(
        t.seats[0].receive(flipped),
        Err(DealError::BadSignature { seat: seat(2) })
    );
    // Signed by another seat's key while claiming seat 2.
    let forged = m.message.clone().sign(&t.signers[3]).expect("sign");
    assert_eq!(
        t.seats[0].receive(forged),
        Err(DealError::BadSignature { seat: seat(2) })
    );
    // A changed body under the old signature.
    let mut changed = m.clone();
    if let Body::Share(s) = &mut changed.message.body {
        s.position = 1;
    }
    assert_eq!(
        t.seats[0].receive(changed),
        Err(DealError::BadSignature { seat: seat(2) })
    );
    t.broadcast(&m);
}

#[test]
fn showing_a_card_not_held_is_rejected_naming_the_seat() {
    let mut t = shared_table();
    t.draw(20, 0);
    t.draw(21, 1);
    // Seat 1 (holding 21) claims to show 20, which seat 0 holds, with a valid proof of its own
    // share.
    let c1 = t.seats[1].observer().final_wall().expect("wall")[20].c1;
    let x1 = secret_key(&t, 1);
    let fake = ShareMessage::new(&t.ctx, seat(1), &x1, &c1, 20, ShareKind::Show);
    let msg = t.sign_as(1, Body::Share(fake));
    let e = all_reject(&mut t, &msg, Some(1), 1);
    assert_eq!(
        e,
        DealError::NotHeld {
            seat: seat(1),
            position: 20
        }
    );
    // A position nobody drew.
    let c1 = t.seats[1].observer().final_wall().expect("wall")[30].c1;
    let fake = ShareMessage::new(&t.ctx, seat(1), &x1, &c1, 30, ShareKind::Show);
    let msg = t.sign_as(1, Body::Share(fake));
    assert!(matches!(
        all_reject(&mut t, &msg, Some(1), 1),
        DealError::NotHeld { .. }
    ));
    // Re-labelling its draw share of seat 0's position as a show breaks the proof.
    let draw_share = t
        .log
        .iter()
        .find(|m| {
            m.seat() == seat(1) && matches!(&m.message.body, Body::Share(s) if s.position == 20)
        })
        .expect("seat 1's share of 20")
        .clone();
    let mut body = draw_share.message.body.clone();
    if let Body::Share(s) = &mut body {
        s.kind = ShareKind::Show;
    }
    let msg = t.sign_as(1, body);
    assert!(matches!(
        all_reject(&mut t, &msg, Some(1), 1),
        DealError::BadShare {
            fault: ShareFault::BadProof,
            ..
        }
    ));
    // The real holder shows it fine.
    t.show(20, 0);
}

#[test]
fn equivocation_is_proven_with_both_messages() {
    let mut t = Table::new(33, 0);
    let c = t.seats[1].commit(&t.signers[1]).expect("commit");
    t.broadcast(&c);
    let other = t.sign_as(
        1,
        Body::Commit(mahjong_deal::SeedCommit {
            commitment: [9; 32],
        }),
    );
    match t.seats[0].receive(other.clone()) {
        Err(DealError::Equivocation {
            seat: s,
            step: Step::Commit,
            first,
            second,
        }) => {
            assert_eq!(s, seat(1));
            assert_eq!(*first, c);
            assert_eq!(*second, other);
        }
        r => panic!("expected equivocation, got {r:?}"),
    }
}

#[test]
fn lying_at_the_audit_reveal_is_caught_naming_the_seat() {
    let mut t = shared_table();
    for i in [0, 1, 3] {
        let m = t.seats[i].audit_reveal(&t.signers[i]).expect("reveal");
        t.broadcast(&m);
    }
    let Body::AuditReveal(honest) = body_of(
        &t.seats[2]
            .clone()
            .audit_reveal(&t.signers[2])
            .expect("reveal"),
    ) else {
        panic!("audit reveal body");
    };
    let mut wrong_key = honest.clone();
    wrong_key.secret_key += Scalar::ONE;
    let msg = t.sign_as(2, Body::AuditReveal(wrong_key));
    assert_eq!(
        all_reject(&mut t, &msg, Some(2), 2),
        DealError::BadAuditReveal {
            seat: seat(2),
            fault: AuditRevealFault::KeyMismatch
        }
    );
    let mut wrong_seed = honest;
    wrong_seed.shuffle_seed[0] ^= 1;
    let msg = t.sign_as(2, Body::AuditReveal(wrong_seed));
    assert_eq!(
        all_reject(&mut t, &msg, Some(2), 2),
        DealError::BadAuditReveal {
            seat: seat(2),
            fault: AuditRevealFault::SeedMismatch
        }
    );
    // The audit of a transcript holding the lie names seat 2 too; without any reveal from
    // seat 2, it names seat 2 as missing.
    let mut transcript = t.log.clone();
    let v = audit(t.ctx, &t.roster, &transcript).expect_err("missing reveal");
    assert_eq!(
        v.error,
        DealError::Missing {
            seat: seat(2),
            step: Step::AuditReveal
        }
    );
    transcript.retain(|m| m != &msg);
    transcript.push(msg);
    let v = audit(t.ctx, &t.roster, &transcript).expect_err("lie");
    assert_eq!(v.seat, Some(seat(2)));
    assert_eq!(v.step, Step::AuditReveal);
}

#[test]
fn the_audit_names_a_seat_missing_from_the_set_up() {
    let mut t = Table::new(35, 0);
    t.commit_and_reveal();
    t.shuffle(0);
    t.shuffle(1);
    let v = audit(t.ctx, &t.roster, &t.log).expect_err("incomplete");
    assert_eq!(
        v.error,
        DealError::Missing {
            seat: seat(2),
            step: Step::Shuffle
        }
    );
}

#[test]
fn a_key_announcement_proof_is_bound_to_the_seat() {
    // Seat 1 copies seat 0's key announcement (to share its key and read its cards later).
    let mut t = Table::new(36, 0);
    let k0 = t.seats[0].key_message(&t.signers[0]).expect("key");
    t.broadcast(&k0);
    let msg = t.sign_as(1, k0.message.body.clone());
    assert_eq!(
        all_reject(&mut t, &msg, Some(1), 1),
        DealError::BadKey {
            seat: seat(1),
            fault: KeyFault::BadProof
        }
    );
    // A proof for its own key made as another seat fails too.
    let x = Scalar::from(77u64);
    let as_seat_0 = KeyAnnouncement::new(&t.ctx, seat(0), &x, &[0; 32]);
    let msg = t.sign_as(1, Body::Key(as_seat_0));
    assert!(matches!(
        all_reject(&mut t, &msg, Some(1), 1),
        DealError::BadKey { .. }
    ));
}
