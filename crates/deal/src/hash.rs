//! Hashing and domain separation: every hash this crate computes is built here.
//!
//! Implements ARCHITECTURE.md "Randomness and dealing": "domain-separate every hash and proof
//! with the table id, hand id, seat and purpose". Each hash starts with a [`Purpose`] label,
//! length-prefixed (`u16` little-endian) and prefixed with `mahjong-deal/v1/`, followed by
//! fixed-width fields only (32-byte table id, `u32` LE hand number, one byte per seat, position
//! or tag, 32-byte points, scalars and seeds). Variable-length input is length-prefixed
//! (`u32` LE). So no two different inputs of one purpose encode to the same bytes, and no two
//! purposes share an input.
//!
//! Also here, because they are pure functions of hashes: the seed commitments, the joint
//! randomness and what is derived from it (hand id, dice, dealer; byte-exact, unbiased by
//! rejection), and the 144 card points.

use curve25519_dalek::ristretto::{CompressedRistretto, RistrettoPoint};
use curve25519_dalek::scalar::Scalar;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256, Sha512};

use crate::{CardIndex, HandContext, SeatIndex, WALL_SIZE};

/// Every purpose a hash is used for. The label is part of the hashed bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Purpose {
    /// Commitment to a seat's joint-randomness seed.
    SeedCommit,
    /// The joint randomness from the four seeds.
    Joint,
    /// The hand id derived from the joint randomness.
    HandId,
    /// The dice stream derived from the joint randomness.
    Dice,
    /// The dealer derived from the joint randomness.
    Dealer,
    /// Commitment to a seat's secret shuffle seed.
    ShuffleCommit,
    /// Seed of the ChaCha20 stream of a seat's Fisher–Yates permutation.
    ShufflePermutation,
    /// Re-encryption randomness of one output position of a seat's shuffle.
    ShuffleRerandomize,
    /// The point of one card.
    Card,
    /// Independent generators of the shuffle proof.
    ShuffleGenerator,
    /// Fiat–Shamir challenges of the shuffle proof.
    ShuffleProof,
    /// Deterministic randomness of the shuffle proof.
    ShuffleProofNonce,
    /// Fiat–Shamir challenge of a Schnorr proof of knowledge of a hand key.
    KeyProof,
    /// Fiat–Shamir challenge of a Chaum–Pedersen proof of a decryption share.
    ShareProof,
    /// Deterministic proof nonces (like EdDSA: secret ‖ statement).
    ProofNonce,
    /// Prefix of the bytes an ed25519 signature covers.
    Signature,
    /// Identifier of a signed message (for evidence and logs).
    MessageId,
    /// Per-hand secrets derived from a root seed.
    SecretDerivation,
    /// Fiat–Shamir transcript of the compact (Bayer–Groth) shuffle argument.
    ShuffleArgument,
    /// Deterministic randomness of the compact shuffle argument.
    ShuffleArgumentNonce,
    /// Commitment key of the compact shuffle argument.
    ShuffleArgumentGenerator,
}

impl Purpose {
    /// The label hashed for this purpose (without the common prefix).
    pub(crate) const fn label(self) -> &'static str {
        match self {
            Purpose::SeedCommit => "seed-commit",
            Purpose::Joint => "joint-randomness",
            Purpose::HandId => "hand-id",
            Purpose::Dice => "dice",
            Purpose::Dealer => "dealer",
            Purpose::ShuffleCommit => "shuffle-seed-commit",
            Purpose::ShufflePermutation => "shuffle-permutation",
            Purpose::ShuffleRerandomize => "shuffle-rerandomize",
            Purpose::Card => "card-point",
            Purpose::ShuffleGenerator => "shuffle-generator",
            Purpose::ShuffleProof => "shuffle-proof",
            Purpose::ShuffleProofNonce => "shuffle-proof-nonce",
            Purpose::KeyProof => "key-proof",
            Purpose::ShareProof => "share-proof",
            Purpose::ProofNonce => "proof-nonce",
            Purpose::Signature => "signed-message",
            Purpose::MessageId => "message-id",
            Purpose::SecretDerivation => "secret-derivation",
            Purpose::ShuffleArgument => "shuffle-argument",
            Purpose::ShuffleArgumentNonce => "shuffle-argument-nonce",
            Purpose::ShuffleArgumentGenerator => "shuffle-argument-generator",
        }
    }
}

/// Common prefix of every domain label.
pub(crate) const DOMAIN_PREFIX: &str = "mahjong-deal/v1/";

/// The full domain tag of a purpose: `u16` LE length ‖ `mahjong-deal/v1/<label>`.
pub(crate) fn domain_tag(purpose: Purpose) -> Vec<u8> {
    let label = purpose.label();
    let len = DOMAIN_PREFIX.len() + label.len();
    let mut out = Vec::with_capacity(2 + len);
    // Labels are short constants; the length always fits in a u16.
    out.extend_from_slice(&(len as u16).to_le_bytes());
    out.extend_from_slice(DOMAIN_PREFIX.as_bytes());
    out.extend_from_slice(label.as_bytes());
    out
}

/// A hash being built under one purpose, field by fixed-width field.
#[derive(Clone)]
pub(crate) struct DomainHash<D: Digest> {
    inner: D,
}

impl<D: Digest> DomainHash<D> {
    /// Starts a hash for `purpose`.
    pub(crate) fn new(purpose: Purpose) -> Self {
        let mut inner = D::new();
        inner.update(domain_tag(purpose));
        DomainHash { inner }
    }

    /// Adds the table id (32 bytes) and hand number (`u32` LE).
    pub(crate) fn ctx(self, ctx: &HandContext) -> Self {
        self.bytes32(&ctx.table).u32(ctx.hand)
    }

    /// Adds a seat (one byte).
    pub(crate) fn seat(self, seat: SeatIndex) -> Self {
        self.u8(seat.get())
    }

    /// Adds one byte.
    pub(crate) fn u8(mut self, v: u8) -> Self {
        self.inner.update([v]);
        self
    }

    /// Adds a `u16`, little-endian.
    pub(crate) fn u16(mut self, v: u16) -> Self {
        self.inner.update(v.to_le_bytes());
        self
    }

    /// Adds a `u32`, little-endian.
    pub(crate) fn u32(mut self, v: u32) -> Self {
        self.inner.update(v.to_le_bytes());
        self
    }

    /// Adds 32 fixed bytes.
    pub(crate) fn bytes32(mut self, v: &[u8; 32]) -> Self {
        self.inner.update(v);
        self
    }

    /// Adds variable-length bytes, prefixed by their `u32` LE length.
    pub(crate) fn bytes(mut self, v: &[u8]) -> Self {
        // Our inputs are far below 4 GiB; saturate rather than wrap if ever not.
        let len = u32::try_from(v.len()).unwrap_or(u32::MAX);
        self.inner.update(len.to_le_bytes());
        self.inner.update(v);
        self
    }

    /// Adds a compressed point (32 bytes).
    pub(crate) fn point(self, p: &CompressedRistretto) -> Self {
        self.bytes32(p.as_bytes())
    }

    /// Adds a scalar (32 canonical bytes).
    pub(crate) fn scalar(self, s: &Scalar) -> Self {
        self.bytes32(s.as_bytes())
    }
}

impl DomainHash<Sha256> {
    /// Starts a SHA-256 hash for `purpose`.
    pub(crate) fn sha256(purpose: Purpose) -> Self {
        Self::new(purpose)
    }

    /// The 32-byte digest.
    pub(crate) fn finish(self) -> [u8; 32] {
        self.inner.finalize().into()
    }
}

impl DomainHash<Sha512> {
    /// Starts a SHA-512 hash for `purpose` (used for scalars and points: wide reduction).
    pub(crate) fn sha512(purpose: Purpose) -> Self {
        Self::new(purpose)
    }

    /// The 64-byte digest.
    pub(crate) fn finish_wide(self) -> [u8; 64] {
        self.inner.finalize().into()
    }

    /// A scalar by wide reduction of the 64-byte digest (bias below 2^-250).
    pub(crate) fn finish_scalar(self) -> Scalar {
        Scalar::from_bytes_mod_order_wide(&self.finish_wide())
    }
}

/// `sha256(seed-commit ‖ table ‖ hand ‖ seat ‖ seed ‖ nonce)`: a seat's commitment to its
/// joint-randomness seed.
pub fn seed_commitment(
    ctx: &HandContext,
    seat: SeatIndex,
    seed: &[u8; 32],
    nonce: &[u8; 32],
) -> [u8; 32] {
    DomainHash::sha256(Purpose::SeedCommit)
        .ctx(ctx)
        .seat(seat)
        .bytes32(seed)
        .bytes32(nonce)
        .finish()
}

/// `sha256(shuffle-seed-commit ‖ table ‖ hand ‖ seat ‖ shuffle seed)`: a seat's commitment to
/// its secret shuffle seed. The seed is 32 uniformly random secret bytes, so it needs no nonce
/// to hide.
pub fn shuffle_commitment(ctx: &HandContext, seat: SeatIndex, shuffle_seed: &[u8; 32]) -> [u8; 32] {
    DomainHash::sha256(Purpose::ShuffleCommit)
        .ctx(ctx)
        .seat(seat)
        .bytes32(shuffle_seed)
        .finish()
}

/// The public randomness of one hand, fixed by the four revealed seeds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct JointRandomness {
    /// `sha256(joint-randomness ‖ table ‖ hand ‖ seed₀ ‖ seed₁ ‖ seed₂ ‖ seed₃)`.
    pub value: [u8; 32],
    /// `sha256(hand-id ‖ value)`: the hand id.
    pub hand_id: [u8; 32],
    /// Two dice, each 1..=6.
    pub dice: [u8; 2],
    /// A dealer seat (used only for a table's first hand).
    pub dealer: SeatIndex,
}

impl JointRandomness {
    /// Derives the joint randomness from the four seeds, in seat order.
    ///
    /// Byte-exact: the dice are read from the stream of blocks
    /// `sha256(dice ‖ value ‖ counter u32 LE)`, counter 0, 1, …, one byte at a time; a byte
    /// `b < 252` gives the die `b mod 6 + 1` and any other byte is skipped (rejection, so every
    /// face has probability exactly 1/6). The dealer is the first byte of
    /// `sha256(dealer ‖ value)` modulo 4 (exact: 256 is a multiple of 4).
    pub fn from_seeds(ctx: &HandContext, seeds: &[[u8; 32]; 4]) -> Self {
        let mut h = DomainHash::sha256(Purpose::Joint).ctx(ctx);
        for seed in seeds {
            h = h.bytes32(seed);
        }
        let value = h.finish();
        let hand_id = DomainHash::sha256(Purpose::HandId).bytes32(&value).finish();
        let dice = dice_from(&value);
        let dealer_byte = DomainHash::sha256(Purpose::Dealer).bytes32(&value).finish()[0];
        JointRandomness {
            value,
            hand_id,
            dice,
            dealer: SeatIndex::from_low_bits(dealer_byte),
        }
    }
}

/// Two dice from the joint value, by rejection sampling on a hash stream.
fn dice_from(value: &[u8; 32]) -> [u8; 2] {
    let mut dice = [0u8; 2];
    let mut filled = 0;
    let mut counter: u32 = 0;
    while filled < 2 {
        let block = DomainHash::sha256(Purpose::Dice)
            .bytes32(value)
            .u32(counter)
            .finish();
        for b in block {
            if b < 252 {
                dice[filled] = b % 6 + 1;
                filled += 1;
                if filled == 2 {
                    break;
                }
            }
        }
        // A block of 32 bytes all ≥ 252 has probability (4/256)^32; keep going regardless.
        counter = counter.wrapping_add(1);
    }
    dice
}

/// The point of card `index`: hash-to-ristretto (`from_uniform_bytes`, i.e. two Elligator
/// maps) of `sha512(card-point ‖ index u16 LE)`. The 144 points are distinct (checked by a test)
/// and nobody knows a discrete-log relation between them.
pub(crate) fn card_point(index: CardIndex) -> RistrettoPoint {
    let wide = DomainHash::sha512(Purpose::Card)
        .u16(u16::from(index))
        .finish_wide();
    RistrettoPoint::from_uniform_bytes(&wide)
}

/// The points of all 144 cards, in card order.
pub(crate) fn card_points() -> Vec<RistrettoPoint> {
    (0..WALL_SIZE as u16)
        .map(|i| card_point(i as CardIndex))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> HandContext {
        HandContext {
            table: [7; 32],
            hand: 3,
        }
    }

    #[test]
    fn labels_are_distinct() {
        let all = [
            Purpose::SeedCommit,
            Purpose::Joint,
            Purpose::HandId,
            Purpose::Dice,
            Purpose::Dealer,
            Purpose::ShuffleCommit,
            Purpose::ShufflePermutation,
            Purpose::ShuffleRerandomize,
            Purpose::Card,
            Purpose::ShuffleGenerator,
            Purpose::ShuffleProof,
            Purpose::ShuffleProofNonce,
            Purpose::KeyProof,
            Purpose::ShareProof,
            Purpose::ProofNonce,
            Purpose::Signature,
            Purpose::MessageId,
            Purpose::SecretDerivation,
            Purpose::ShuffleArgument,
            Purpose::ShuffleArgumentNonce,
            Purpose::ShuffleArgumentGenerator,
        ];
        let mut labels: Vec<_> = all.iter().map(|p| p.label()).collect();
        labels.sort_unstable();
        labels.dedup();
        assert_eq!(labels.len(), all.len());
    }

    #[test]
    fn commitment_binds_every_field() {
        let c = ctx();
        let s0 = SeatIndex::ALL[0];
        let base = seed_commitment(&c, s0, &[1; 32], &[2; 32]);
        let other_table = HandContext {
            table: [8; 32],
            ..c
        };
        let other_hand = HandContext { hand: 4, ..c };
        assert_ne!(base, seed_commitment(&other_table, s0, &[1; 32], &[2; 32]));
        assert_ne!(base, seed_commitment(&other_hand, s0, &[1; 32], &[2; 32]));
        assert_ne!(
            base,
            seed_commitment(&c, SeatIndex::ALL[1], &[1; 32], &[2; 32])
        );
        assert_ne!(base, seed_commitment(&c, s0, &[2; 32], &[1; 32]));
        assert_ne!(base, shuffle_commitment(&c, s0, &[1; 32]));
    }

    #[test]
    fn joint_randomness_is_in_range_and_deterministic() {
        for i in 0..200u8 {
            let seeds = [[i; 32], [1; 32], [2; 32], [3; 32]];
            let j = JointRandomness::from_seeds(&ctx(), &seeds);
            assert_eq!(j, JointRandomness::from_seeds(&ctx(), &seeds));
            assert!(j.dice.iter().all(|d| (1..=6).contains(d)));
            assert!(j.dealer.get() < 4);
        }
    }

    #[test]
    fn card_points_are_distinct() {
        let mut bytes: Vec<_> = card_points()
            .iter()
            .map(|p| p.compress().to_bytes())
            .collect();
        bytes.sort_unstable();
        bytes.dedup();
        assert_eq!(bytes.len(), WALL_SIZE);
    }

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// Pins the derivations: if these change, every recorded hand changes meaning. The
    /// expected values were computed independently from the documented encoding (Python
    /// `hashlib`).
    #[test]
    fn golden_values() {
        let j = JointRandomness::from_seeds(&ctx(), &[[0; 32], [1; 32], [2; 32], [3; 32]]);
        assert_eq!(
            hex(&j.value),
            "15cbc77944f34585801172c16fcc142b4fd18218d55b4a8b8108d25285a37ae5"
        );
        assert_eq!(
            hex(&j.hand_id),
            "a2d8eee5680ebcf3d75dfc0ea5d8755a571c8084a9b3324863cf244939d6c7f5"
        );
        assert_eq!(j.dice, [6, 6]);
        assert_eq!(j.dealer, SeatIndex::ALL[3]);
        assert_eq!(
            hex(&seed_commitment(
                &ctx(),
                SeatIndex::ALL[1],
                &[1; 32],
                &[2; 32]
            )),
            "926a5f73941286c029a2c752c6bf599391e257f8a9f038f1083fb53112bed5af"
        );
    }
}
