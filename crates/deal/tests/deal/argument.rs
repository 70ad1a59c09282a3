//! The compact proof of shuffle under mutation (the `shuffle_argument` fuzz target's check,
//! run on every test run): changed bytes of an honest shuffle's encoding never panic, and
//! never pass for a wall other than the honest one.

use std::sync::OnceLock;

use curve25519_dalek::ristretto::RistrettoPoint;
use curve25519_dalek::scalar::Scalar;
use mahjong_deal::{CardTable, Ciphertext, HandContext, ShuffleOutput};
use proptest::prelude::*;

use crate::common::{cards, seat};

const CTX: HandContext = HandContext {
    table: [6; 32],
    hand: 1,
};

struct Fixture {
    key: RistrettoPoint,
    input: Vec<Ciphertext>,
    honest: ShuffleOutput,
    bytes: Vec<u8>,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let cards: &CardTable = &cards();
        let key = RistrettoPoint::mul_base(&Scalar::from(1234u64));
        let input = cards.initial_wall().to_vec();
        let honest = ShuffleOutput::new(&CTX, seat(0), &[8; 32], &key, &input, cards);
        let bytes = postcard::to_allocvec(&honest).expect("encodes");
        Fixture {
            key,
            input,
            honest,
            bytes,
        }
    })
}

#[test]
fn the_honest_shuffle_verifies() {
    let f = fixture();
    assert!(f.honest.verify(&CTX, seat(0), &f.key, &f.input, &cards()));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn mutated_encodings_never_pass_for_another_wall(
        flips in prop::collection::vec((any::<u16>(), 1u8..=255), 1..4)
    ) {
        let f = fixture();
        let mut bytes = f.bytes.clone();
        for (at, mask) in flips {
            let at = usize::from(at) % bytes.len();
            bytes[at] ^= mask;
        }
        if let Ok(out) = postcard::from_bytes::<ShuffleOutput>(&bytes) {
            let passed = out.verify(&CTX, seat(0), &f.key, &f.input, &cards());
            prop_assert!(!passed || out.wall == f.honest.wall);
            // Every flip lands in the wall or the proof: nothing else is encoded.
            prop_assert!(!passed);
        }
    }
}
