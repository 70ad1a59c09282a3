//! The compact proof of shuffle from the network: any bytes, or an honest shuffle's bytes
//! with the input's changes applied, decode without panicking, and whatever decodes is
//! checked against the honest statement: a proof never passes for a wall other than the
//! honest one (no panic, no false accept).
//!
//! Input: the first byte picks the mode: even, the rest is a whole `ShuffleOutput` encoding;
//! odd, the rest is records of `[position (2 bytes LE), xor mask (1 byte)]` applied to the
//! honest shuffle's encoding.
#![no_main]
use std::sync::OnceLock;

use curve25519_dalek::ristretto::RistrettoPoint;
use curve25519_dalek::scalar::Scalar;
use libfuzzer_sys::fuzz_target;
use mahjong_deal::{CardTable, Ciphertext, HandContext, SeatIndex, ShuffleOutput};

struct Fixture {
    cards: CardTable,
    key: RistrettoPoint,
    input: Vec<Ciphertext>,
    honest: ShuffleOutput,
    bytes: Vec<u8>,
}

const CTX: HandContext = HandContext { table: [6; 32], hand: 1 };

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let cards = CardTable::new();
        let key = RistrettoPoint::mul_base(&Scalar::from(1234u64));
        let input = cards.initial_wall().to_vec();
        let honest = ShuffleOutput::new(&CTX, SeatIndex::ALL[0], &[8; 32], &key, &input, &cards);
        let bytes = postcard::to_allocvec(&honest).expect("encodes");
        Fixture { cards, key, input, honest, bytes }
    })
}

fuzz_target!(|data: &[u8]| {
    let f = fixture();
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let bytes = if mode % 2 == 0 {
        rest.to_vec()
    } else {
        let mut b = f.bytes.clone();
        for r in rest.chunks_exact(3) {
            let at = usize::from(u16::from_le_bytes([r[0], r[1]])) % b.len();
            b[at] ^= r[2];
        }
        b
    };
    let Ok(out) = postcard::from_bytes::<ShuffleOutput>(&bytes) else {
        return;
    };
    if out.verify(&CTX, SeatIndex::ALL[0], &f.key, &f.input, &f.cards) {
        assert_eq!(out.wall, f.honest.wall, "a proof passed for another wall");
    }
});
