//! Cards set aside face down (换牌's five put back): only the seat that drew them can, they
//! stay secret from the others until the audit, nobody may show, draw or open them again, and
//! the audit of the transcript names a seat that tries.

use crate::common::*;
use mahjong_deal::{Body, DealError, SetAside, Step, audit};

/// Seat 1 draws positions 10..15 and sets 10..15 (five) aside; seat 2 draws 20.
fn swapped() -> Table {
    let mut t = shared_table();
    for p in 10..15 {
        t.draw(p, 1);
    }
    t.draw(20, 2);
    let m = t.seats[1]
        .set_aside(&t.signers[1], &[14, 10, 11, 12, 13])
        .expect("set aside");
    let Body::SetAside(sa) = &m.message.body else {
        panic!("not a set-aside")
    };
    assert_eq!(sa.positions, vec![10, 11, 12, 13, 14], "sorted");
    t.broadcast(&m);
    // The swap's draws: five more private draws with their proofs, read by seat 1 alone.
    for p in 53..58 {
        t.draw(p, 1);
    }
    t
}

#[test]
fn set_aside_cards_stay_secret_until_the_audit() {
    let mut t = swapped();
    for p in (10..15).chain(53..58) {
        assert!(t.seats[1].card_at(p).is_some(), "the drawer knows {p}");
        for other in [0, 2, 3] {
            assert!(
                t.seats[other].card_at(p).is_none(),
                "seat {other} reads {p}"
            );
        }
    }
    for s in &t.seats {
        assert_eq!(s.observer().set_aside().len(), 5);
        assert!(s.observer().set_aside().values().all(|&by| by == seat(1)));
    }
    let faces: Vec<u8> = (10..15)
        .map(|p| t.seats[1].open_private(p).unwrap())
        .collect();
    t.audit_reveals();
    let report = audit(t.ctx, &t.roster, &t.log).expect("honest hand audits");
    assert_eq!(report.set_aside.len(), 5);
    for (i, p) in (10..15).enumerate() {
        assert_eq!(report.set_aside[&p], seat(1));
        assert_eq!(
            report.final_wall[p as usize], faces[i],
            "the audit opens them"
        );
    }
}

#[test]
fn only_held_cards_can_be_set_aside() {
    let t = swapped();
    // Seat 1 cannot prepare a set-aside of a card it never drew, or one already set aside.
    for p in [20u8, 30, 10] {
        let e = t.seats[1].set_aside(&t.signers[1], &[p]).unwrap_err();
        assert!(
            matches!(e, DealError::NotHeld { seat: s, position } if s == seat(1) && position == p),
            "{e}"
        );
    }
    // A modified client signs one anyway: every seat refuses it and names seat 3.
    let mut t = shared_table();
    t.draw(20, 2);
    let lie = t.sign_as(
        3,
        Body::SetAside(SetAside {
            positions: vec![20],
        }),
    );
    for r in t.try_broadcast(&lie) {
        let e = r.unwrap_err();
        assert_eq!(e.culprit(), Some(seat(3)), "{e}");
        assert!(matches!(e, DealError::NotHeld { position: 20, .. }), "{e}");
    }
    // Out of order and malformed lists are refused too.
    let unordered = t.sign_as(
        2,
        Body::SetAside(SetAside {
            positions: vec![20, 20],
        }),
    );
    assert!(t.try_broadcast(&unordered).iter().all(Result::is_err));
}

#[test]
fn a_set_aside_card_is_never_shown_or_drawn_again() {
    let mut t = swapped();
    // Seat 1 tries to show a card it put back (a modified client: the honest API refuses).
    assert!(t.seats[1].show(&t.signers[1], 10).is_err());
    let key = *t.seats[1].snapshot().secrets.secret_key();
    let c1 = t.seats[0].observer().final_wall().expect("wall")[10].c1;
    let show = t.sign_as(
        1,
        Body::Share(mahjong_deal::ShareMessage::new(
            &t.ctx,
            seat(1),
            &key,
            &c1,
            10,
            mahjong_deal::ShareKind::Show,
        )),
    );
    for r in t.try_broadcast(&show) {
        let e = r.unwrap_err();
        assert!(
            matches!(e, DealError::SetAside { seat: s, position: 10, by } if s == seat(1) && by == seat(1)),
            "{e}"
        );
    }
    // Nobody may draw it again: the honest API refuses, and a modified client's share for
    // another drawer is refused on receipt, naming the sender.
    assert!(t.seats[0].share_for(&t.signers[0], 11, seat(2)).is_err());
    let x0 = *t.seats[0].snapshot().secrets.secret_key();
    let c1 = t.seats[0].observer().final_wall().expect("wall")[11].c1;
    let share = t.sign_as(
        0,
        Body::Share(mahjong_deal::ShareMessage::new(
            &t.ctx,
            seat(0),
            &x0,
            &c1,
            11,
            mahjong_deal::ShareKind::Draw { requester: seat(2) },
        )),
    );
    for r in t.try_broadcast(&share) {
        let e = r.unwrap_err();
        assert!(
            matches!(e, DealError::SetAside { seat: s, position: 11, .. } if s == seat(0)),
            "{e}"
        );
        assert_eq!(e.culprit(), Some(seat(0)));
    }
}

#[test]
fn the_audit_names_a_seat_that_shows_a_card_it_set_aside() {
    let mut t = swapped();
    let key = *t.seats[1].snapshot().secrets.secret_key();
    let c1 = t.seats[0].observer().final_wall().expect("wall")[12].c1;
    let show = t.sign_as(
        1,
        Body::Share(mahjong_deal::ShareMessage::new(
            &t.ctx,
            seat(1),
            &key,
            &c1,
            12,
            mahjong_deal::ShareKind::Show,
        )),
    );
    // In the transcript (e.g. a log handed to a verifier) the show follows the set-aside.
    t.log.push(show);
    t.audit_reveals();
    let v = audit(t.ctx, &t.roster, &t.log).expect_err("the audit catches it");
    assert_eq!(v.seat, Some(seat(1)));
    assert_eq!(v.step, Step::Show);
    assert!(
        matches!(v.error, DealError::SetAside { position: 12, .. }),
        "{}",
        v.error
    );
    assert!(!v.evidence.is_empty(), "the liar's signed messages");
}
