//! Property tests: random bytes and mutations of valid messages never panic on decode and
//! verify, and are rejected with typed errors.

use std::sync::OnceLock;

use mahjong_deal::{Body, DealError, DealSeat, ShareKind, SignedMessage};
use proptest::prelude::*;

use crate::common::{Table, shared_table};

struct Fixture {
    table: Table,
    /// Seat 0's state just before it received `table.log[i]`.
    before: Vec<DealSeat>,
    /// Seat 0's state after the whole hand.
    after: DealSeat,
}

/// A whole hand: set-up, a draw, a show, a public open, audit reveals.
fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let mut t = shared_table();
        t.draw(0, 1);
        t.show(0, 1);
        t.draw(1, 0);
        t.public_open(143);
        t.audit_reveals();
        let mut seat0 = DealSeat::restore_with_cards(
            mahjong_deal::SeatSnapshot {
                messages: Vec::new(),
                ..t.seats[0].snapshot()
            },
            crate::common::cards(),
        )
        .expect("fresh seat 0");
        let mut before = Vec::new();
        for m in &t.log {
            before.push(seat0.clone());
            seat0.receive(m.clone()).expect("replay");
        }
        Fixture {
            table: t,
            before,
            after: seat0,
        }
    })
}

/// Decodes and receives; returns the error or `Ok` if accepted.
fn decode_and_receive(seat: &mut DealSeat, bytes: &[u8]) -> Result<SignedMessage, DealError> {
    let msg = SignedMessage::from_bytes(bytes)?;
    seat.receive(msg.clone())?;
    Ok(msg)
}

#[derive(Clone, Debug)]
enum Mutation {
    Flip { at: usize, mask: u8 },
    Truncate { at: usize },
    Insert { at: usize, byte: u8 },
    Extend { bytes: Vec<u8> },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 1..=255u8).prop_map(|(at, mask)| Mutation::Flip { at, mask }),
        any::<usize>().prop_map(|at| Mutation::Truncate { at }),
        (any::<usize>(), any::<u8>()).prop_map(|(at, byte)| Mutation::Insert { at, byte }),
        prop::collection::vec(any::<u8>(), 1..8).prop_map(|bytes| Mutation::Extend { bytes }),
    ]
}

fn apply(bytes: &mut Vec<u8>, m: &Mutation) {
    let n = bytes.len();
    match m {
        Mutation::Flip { at, mask } => bytes[at % n] ^= mask,
        Mutation::Truncate { at } => bytes.truncate(at % n),
        Mutation::Insert { at, byte } => bytes.insert(at % (n + 1), *byte),
        Mutation::Extend { bytes: more } => bytes.extend_from_slice(more),
    }
}

/// Field-level changes to a decoded message, re-signed by the (possibly changed) sender: a
/// modified client sending well-formed but wrong content.
#[derive(Clone, Debug)]
enum FieldChange {
    Version(u16),
    Hand(u32),
    TableByte(usize),
    Seat(u8),
    Position(u8),
    Requester(u8),
    KindShowOrPublic(bool),
    PayloadByte(usize, u8),
}

fn field_change() -> impl Strategy<Value = FieldChange> {
    prop_oneof![
        any::<u16>().prop_map(FieldChange::Version),
        any::<u32>().prop_map(FieldChange::Hand),
        (0..32usize).prop_map(FieldChange::TableByte),
        (0..4u8).prop_map(FieldChange::Seat),
        any::<u8>().prop_map(FieldChange::Position),
        (0..4u8).prop_map(FieldChange::Requester),
        any::<bool>().prop_map(FieldChange::KindShowOrPublic),
        (any::<usize>(), 1..=255u8).prop_map(|(i, m)| FieldChange::PayloadByte(i, m)),
    ]
}

fn change(msg: &mut SignedMessage, c: &FieldChange) {
    let m = &mut msg.message;
    match c {
        FieldChange::Version(v) => m.version = *v,
        FieldChange::Hand(h) => m.hand = *h,
        FieldChange::TableByte(i) => m.table[*i] ^= 1,
        FieldChange::Seat(s) => m.seat = mahjong_deal::SeatIndex::ALL[usize::from(*s)],
        FieldChange::Position(p) => {
            if let Body::Share(s) = &mut m.body {
                s.position = *p;
            }
        }
        FieldChange::Requester(r) => {
            if let Body::Share(s) = &mut m.body {
                s.kind = ShareKind::Draw {
                    requester: mahjong_deal::SeatIndex::ALL[usize::from(*r)],
                };
            }
        }
        FieldChange::KindShowOrPublic(show) => {
            if let Body::Share(s) = &mut m.body {
                s.kind = if *show {
                    ShareKind::Show
                } else {
                    ShareKind::Public
                };
            }
        }
        FieldChange::PayloadByte(i, mask) => {
            let bytes: &mut [u8] = match &mut m.body {
                Body::Commit(c) => &mut c.commitment,
                Body::Reveal(r) => &mut r.seed,
                Body::Key(k) => &mut k.key.0,
                Body::Shuffle(s) => match s.wall.get_mut(*i % 144) {
                    Some(c) => &mut c.c1,
                    None => return,
                },
                Body::LinearShuffle(s) => match s.wall.get_mut(*i % 144) {
                    Some(c) => &mut c.c1,
                    None => return,
                },
                Body::Share(s) => &mut s.share.0,
                Body::AuditReveal(a) => &mut a.shuffle_seed,
                Body::SetAside(sa) => &mut sa.positions,
            };
            bytes[*i % 32] ^= mask;
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_bytes_are_rejected(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        let f = fixture();
        let mut seat = f.after.clone();
        let r = decode_and_receive(&mut seat, &bytes);
        prop_assert!(r.is_err());
        // Errors render.
        prop_assert!(!r.unwrap_err().to_string().is_empty());
    }

    #[test]
    fn byte_mutations_of_valid_messages_are_rejected(
        index in any::<prop::sample::Index>(),
        mutations in prop::collection::vec(mutation(), 1..4),
    ) {
        let f = fixture();
        let i = index.index(f.table.log.len());
        let original = &f.table.log[i];
        let mut bytes = original.to_bytes().unwrap();
        for m in &mutations {
            if bytes.is_empty() {
                break;
            }
            apply(&mut bytes, m);
        }
        // Received in the state just before the original arrived, where it would be accepted.
        let mut seat = f.before[i].clone();
        match decode_and_receive(&mut seat, &bytes) {
            Ok(decoded) => prop_assert_eq!(&decoded, original),
            Err(e) => prop_assert!(!e.to_string().is_empty()),
        }
    }

    #[test]
    fn resigned_field_changes_are_rejected_naming_a_seat(
        index in any::<prop::sample::Index>(),
        c in field_change(),
    ) {
        let f = fixture();
        let i = index.index(f.table.log.len());
        let original = &f.table.log[i];
        let mut msg = original.clone();
        change(&mut msg, &c);
        prop_assume!(msg.message != original.message);
        let signer = &f.table.signers[msg.seat().index()];
        let msg = msg.message.sign(signer).unwrap();
        // Through the wire and into the finished hand's state.
        let bytes = msg.to_bytes().unwrap();
        let mut seat = f.after.clone();
        let r = decode_and_receive(&mut seat, &bytes);
        prop_assert!(r.is_err(), "{:?} accepted", c);
        let e = r.unwrap_err();
        // Validly signed: blame lands on the signer, except for requests that are merely early
        // or incomplete.
        match e.culprit() {
            Some(s) => prop_assert_eq!(s, msg.seat()),
            None => prop_assert!(
                matches!(
                    e,
                    DealError::MissingShares { .. }
                        | DealError::NotACard { .. }
                        // A replay into another table, hand or version blames nobody.
                        | DealError::WrongTable { .. }
                        | DealError::WrongHand { .. }
                        | DealError::UnsupportedVersion { .. }
                ),
                "{e}"
            ),
        }
    }
}

#[test]
fn oversized_input_is_rejected_before_decoding() {
    let bytes = vec![0u8; mahjong_deal::MAX_MESSAGE_BYTES + 1];
    assert!(matches!(
        SignedMessage::from_bytes(&bytes),
        Err(DealError::TooLarge { .. })
    ));
}

#[test]
fn an_out_of_range_seat_number_does_not_decode() {
    let f = fixture();
    let mut bytes = f.table.log[0].to_bytes().unwrap();
    // version (1 byte varint) ‖ table (32) ‖ hand (1 byte varint) ‖ seat.
    assert_eq!(bytes[34], 0);
    bytes[34] = 7;
    assert!(matches!(
        SignedMessage::from_bytes(&bytes),
        Err(DealError::Decode(_))
    ));
}
