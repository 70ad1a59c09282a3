//! ElGamal over ristretto255, the wall, and each seat's shuffle.
//!
//! Implements ARCHITECTURE.md "Randomness and dealing" item 2. A card is the point
//! `M = card_point(i)`; a ciphertext under the joint key `Y` is `(C1, C2) = (r·G, M + r·Y)`;
//! re-encrypting adds `(r'·G, r'·Y)`; decrypting subtracts the four decryption shares
//! `x_i·C1` from `C2`. The initial wall is the public encryption of card `i` at position `i`
//! with randomness 0, `(O, M_i)`: everyone computes the same one, and the first shuffle hides
//! it.
//!
//! A seat's shuffle is derived from its committed secret shuffle seed, byte-exactly and with
//! no library shuffle (its output must never change between versions):
//!
//! 1. Permutation: `rng = ChaCha20Rng::from_seed(sha256(shuffle-permutation ‖ table ‖ hand ‖
//!    seat ‖ shuffle_seed))` (rand_chacha 0.3: the ChaCha20 keystream, key = seed, nonce 0,
//!    read as little-endian `u32` words). `perm = [0, 1, …, 143]`; for `i` from 143 down to 1:
//!    `n = i + 1`; draw `x = rng.next_u32()` until `x < 2^32 − (2^32 mod n)`; `j = x mod n`;
//!    swap `perm[i]` and `perm[j]` (Fisher–Yates, unbiased by rejection).
//! 2. Output position `p` holds input position `perm[p]`, re-encrypted with
//!    `r_p = sha512(shuffle-rerandomize ‖ table ‖ hand ‖ seat ‖ shuffle_seed ‖ p) mod ℓ`.
//!
//! The proof that an output is a shuffle of its input is in `shuffle_proof`.

use std::collections::HashMap;

use curve25519_dalek::constants::RISTRETTO_BASEPOINT_TABLE;
use curve25519_dalek::ristretto::{CompressedRistretto, RistrettoBasepointTable, RistrettoPoint};
use curve25519_dalek::scalar::Scalar;
use curve25519_dalek::traits::Identity;
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use serde::{Deserialize, Serialize};

use crate::hash::{DomainHash, Purpose, card_points};
use crate::shuffle_argument::CommitKey;
use crate::{CardIndex, HandContext, Position, SeatIndex, WALL_SIZE};

/// An ElGamal ciphertext `(C1, C2) = (r·G, M + r·Y)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ciphertext {
    /// `r·G`.
    pub c1: RistrettoPoint,
    /// `M + r·Y`.
    pub c2: RistrettoPoint,
}

/// A ciphertext on the wire: both points compressed (64 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct CompressedCiphertext {
    /// Compressed `C1`.
    pub c1: [u8; 32],
    /// Compressed `C2`.
    pub c2: [u8; 32],
}

impl Ciphertext {
    /// Compresses both points.
    pub fn compress(&self) -> CompressedCiphertext {
        CompressedCiphertext {
            c1: self.c1.compress().to_bytes(),
            c2: self.c2.compress().to_bytes(),
        }
    }

    /// Re-encrypts with randomness `r` under the key whose precomputed table is `key_table`.
    pub(crate) fn rerandomize(&self, r: &Scalar, key_table: &RistrettoBasepointTable) -> Self {
        Ciphertext {
            c1: self.c1 + r * RISTRETTO_BASEPOINT_TABLE,
            c2: self.c2 + r * key_table,
        }
    }
}

impl CompressedCiphertext {
    /// Decompresses both points; `None` if either is not a valid ristretto255 encoding.
    pub fn decompress(&self) -> Option<Ciphertext> {
        Some(Ciphertext {
            c1: CompressedRistretto(self.c1).decompress()?,
            c2: CompressedRistretto(self.c2).decompress()?,
        })
    }
}

/// A wall of 144 ciphertexts, as points and as their compressions (the proofs hash the
/// compressions; the arithmetic uses the points).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Wall {
    pub points: Vec<Ciphertext>,
    pub compressed: Vec<CompressedCiphertext>,
}

impl Wall {
    /// A wall from its points (compresses them).
    pub(crate) fn from_points(points: Vec<Ciphertext>) -> Self {
        let compressed = points.iter().map(Ciphertext::compress).collect();
        Wall { points, compressed }
    }
}

/// The public constants of the deal, computed once and shared: the 144 card points with a
/// reverse lookup from a decrypted point to its card, the public initial wall, and the
/// independent generators of the shuffle proof.
#[derive(Clone, Debug)]
pub struct CardTable {
    points: Vec<RistrettoPoint>,
    lookup: HashMap<[u8; 32], CardIndex>,
    initial: Wall,
    pub(crate) generators: ShuffleGenerators,
    /// The commitment key of the compact shuffle argument.
    pub(crate) argument_key: CommitKey,
}

/// Generators `H_0, H_1, …, H_144` for the shuffle proof: hash-to-ristretto of
/// `sha512(shuffle-generator ‖ i u16 LE)`, so nobody knows a relation between them, `G`, or the
/// cards.
#[derive(Clone)]
pub(crate) struct ShuffleGenerators {
    /// `H_0`, the base of the commitment chain.
    pub h0: RistrettoPoint,
    /// Precomputed multiples of `H_0` (the prover multiplies it 288 times).
    pub h0_table: Box<RistrettoBasepointTable>,
    /// `H_1..H_144`, one per wall position.
    pub h: Vec<RistrettoPoint>,
}

impl std::fmt::Debug for ShuffleGenerators {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShuffleGenerators")
            .field("h0", &self.h0)
            .field("h", &self.h.len())
            .finish_non_exhaustive()
    }
}

impl ShuffleGenerators {
    fn new() -> Self {
        let generator = |i: u16| {
            RistrettoPoint::from_uniform_bytes(
                &DomainHash::sha512(Purpose::ShuffleGenerator)
                    .u16(i)
                    .finish_wide(),
            )
        };
        let h0 = generator(0);
        ShuffleGenerators {
            h0,
            h0_table: Box::new(RistrettoBasepointTable::create(&h0)),
            h: (1..=WALL_SIZE as u16).map(generator).collect(),
        }
    }
}

impl CardTable {
    /// Computes the card points, the initial wall and the shuffle-proof generators (about
    /// 6 ms; share one table across hands).
    pub fn new() -> Self {
        let points = card_points();
        let lookup = points
            .iter()
            .enumerate()
            .map(|(i, p)| (p.compress().to_bytes(), i as CardIndex))
            .collect();
        let initial = Wall::from_points(
            points
                .iter()
                .map(|m| Ciphertext {
                    c1: RistrettoPoint::identity(),
                    c2: *m,
                })
                .collect(),
        );
        CardTable {
            points,
            lookup,
            initial,
            generators: ShuffleGenerators::new(),
            argument_key: CommitKey::new(),
        }
    }

    /// The point of each card, in card order.
    pub fn points(&self) -> &[RistrettoPoint] {
        &self.points
    }

    /// Which card a decrypted point is, if any.
    pub fn card_of(&self, point: &RistrettoPoint) -> Option<CardIndex> {
        self.lookup.get(point.compress().as_bytes()).copied()
    }

    /// The public initial wall: card `i` at position `i`, encrypted with randomness 0.
    pub fn initial_wall(&self) -> &[Ciphertext] {
        &self.initial.points
    }

    /// The initial wall with its compressions.
    pub(crate) fn initial(&self) -> &Wall {
        &self.initial
    }
}

impl Default for CardTable {
    fn default() -> Self {
        Self::new()
    }
}

/// The permutation a seat's shuffle applies: output position `p` takes input `perm[p]`.
/// Byte-exact; see the module header.
pub fn permutation(
    ctx: &HandContext,
    seat: SeatIndex,
    shuffle_seed: &[u8; 32],
) -> [Position; WALL_SIZE] {
    let key = DomainHash::sha256(Purpose::ShufflePermutation)
        .ctx(ctx)
        .seat(seat)
        .bytes32(shuffle_seed)
        .finish();
    let mut rng = ChaCha20Rng::from_seed(key);
    let mut perm = [0 as Position; WALL_SIZE];
    for (i, p) in perm.iter_mut().enumerate() {
        *p = i as Position;
    }
    for i in (1..WALL_SIZE).rev() {
        let j = uniform_below(&mut rng, (i + 1) as u32);
        perm.swap(i, j as usize);
    }
    perm
}

/// A uniform integer in `0..n` (`n ≥ 1`) by rejection on `u32` draws.
pub(crate) fn uniform_below(rng: &mut impl RngCore, n: u32) -> u32 {
    // Accept x < limit, where limit is the largest multiple of n not above 2^32.
    let limit: u64 = (1u64 << 32) - ((1u64 << 32) % u64::from(n));
    loop {
        let x = rng.next_u32();
        if u64::from(x) < limit {
            return x % n;
        }
    }
}

/// The re-encryption randomness of output position `p` of a seat's shuffle.
pub(crate) fn rerandomizer(
    ctx: &HandContext,
    seat: SeatIndex,
    shuffle_seed: &[u8; 32],
    p: Position,
) -> Scalar {
    DomainHash::sha512(Purpose::ShuffleRerandomize)
        .ctx(ctx)
        .seat(seat)
        .bytes32(shuffle_seed)
        .u8(p)
        .finish_scalar()
}

/// A seat's shuffle with its witness (kept only to prove it).
pub(crate) struct Shuffled {
    /// The output wall.
    pub output: Vec<Ciphertext>,
    /// Output position `p` took input `perm[p]`.
    pub perm: [Position; WALL_SIZE],
    /// Output position `p` was re-encrypted with `rerandomizers[p]`.
    pub rerandomizers: Vec<Scalar>,
}

/// Applies a seat's shuffle to `input` (144 ciphertexts): permute, then re-encrypt under the
/// joint key (whose precomputed table is `key_table`).
pub(crate) fn shuffle(
    ctx: &HandContext,
    seat: SeatIndex,
    shuffle_seed: &[u8; 32],
    key_table: &RistrettoBasepointTable,
    input: &[Ciphertext],
) -> Shuffled {
    let perm = permutation(ctx, seat, shuffle_seed);
    let rerandomizers: Vec<Scalar> = (0..WALL_SIZE)
        .map(|p| rerandomizer(ctx, seat, shuffle_seed, p as Position))
        .collect();
    let output = perm
        .iter()
        .zip(&rerandomizers)
        .filter_map(|(&from, r)| {
            input
                .get(usize::from(from))
                .map(|c| c.rerandomize(r, key_table))
        })
        .collect();
    Shuffled {
        output,
        perm,
        rerandomizers,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> HandContext {
        HandContext {
            table: [1; 32],
            hand: 0,
        }
    }

    #[test]
    fn permutation_is_a_permutation() {
        for s in 0..20u8 {
            let perm = permutation(&ctx(), SeatIndex::ALL[usize::from(s % 4)], &[s; 32]);
            let mut sorted = perm;
            sorted.sort_unstable();
            assert!(sorted.iter().enumerate().all(|(i, &p)| usize::from(p) == i));
        }
    }

    /// Pins the byte-exact derivation: every peer must get the same wall forever. The
    /// expected values were computed independently from the module header's description
    /// (Python, `cryptography`'s RFC 7539 ChaCha20 with a zero counter and nonce).
    #[test]
    fn golden_permutation() {
        let perm = permutation(&ctx(), SeatIndex::ALL[2], &[0xAB; 32]);
        assert_eq!(&perm[..12], &GOLDEN_PERM_PREFIX);
    }

    const GOLDEN_PERM_PREFIX: [u8; 12] = [76, 40, 2, 60, 68, 25, 7, 33, 141, 116, 130, 32];

    #[test]
    fn uniform_below_accepts_small_and_large_ranges() {
        let mut rng = ChaCha20Rng::from_seed([3; 32]);
        for n in [1u32, 2, 3, 144, u32::MAX] {
            for _ in 0..100 {
                assert!(uniform_below(&mut rng, n) < n);
            }
        }
    }

    #[test]
    fn shuffle_then_decrypt_gives_permuted_cards() {
        let cards = CardTable::new();
        let x = Scalar::from(99u64);
        let y = RistrettoPoint::mul_base(&x);
        let table = RistrettoBasepointTable::create(&y);
        let seat = SeatIndex::ALL[0];
        let out = shuffle(&ctx(), seat, &[5; 32], &table, cards.initial_wall()).output;
        let perm = permutation(&ctx(), seat, &[5; 32]);
        for (p, c) in out.iter().enumerate() {
            let m = c.c2 - c.c1 * x;
            assert_eq!(cards.card_of(&m), Some(perm[p]));
        }
    }
}
