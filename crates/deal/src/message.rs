//! The messages this crate emits and checks, and their ed25519 signatures.
//!
//! Implements ARCHITECTURE.md "Agreement" for the dealing steps. Every message names its
//! protocol version, table, hand number and sending seat, and is signed by that seat's ed25519
//! key over `domain tag ‖ postcard(message)` (postcard 1.x is deterministic for these types:
//! no maps, no floats). The table crate wraps a [`SignedMessage`] in its own envelope; this
//! crate does no I/O.
//!
//! Sizes (postcard): a shuffle is about 15.6 KB (144 × 64 bytes of compressed ciphertexts and
//! a 6.3 KB proof of shuffle; 32.6 KB with the linear proof of older hands), a share about 210
//! bytes, the others under 250 bytes: one seat sends about 16 KB for the set-up of a hand.
//!
//! Compatibility: postcard names an enum variant by its index, so [`Body`] only ever grows at
//! the end. The compact shuffle is [`Body::Shuffle`] (the last variant); the linear one keeps
//! its old index as [`Body::LinearShuffle`], so every message logged before decodes, hashes
//! and verifies as it did.

use curve25519_dalek::ristretto::{CompressedRistretto, RistrettoPoint};
use curve25519_dalek::scalar::Scalar;
use ed25519_dalek::{Signature, Signer, SigningKey, VerifyingKey};
use serde::{Deserialize, Serialize};

use crate::elgamal::{CardTable, Ciphertext, CompressedCiphertext, Wall, shuffle};
use crate::error::DealError;
use crate::hash::shuffle_commitment;
use crate::hash::{DomainHash, Purpose, domain_tag};
use crate::proof::{DleqProof, SchnorrProof, ShareStatement, prove_key, prove_share};
use crate::shuffle_argument::{
    ShuffleArgument, prove as prove_argument, verify as verify_argument,
};
use crate::shuffle_proof::{ShuffleProof, prove as prove_shuffle, verify as verify_linear};
use crate::{HandContext, Position, SeatIndex};
use curve25519_dalek::ristretto::RistrettoBasepointTable;

/// The protocol version this crate speaks; messages with another version are rejected.
pub const PROTOCOL_VERSION: u16 = 1;

/// Largest encoded [`SignedMessage`] accepted by [`SignedMessage::from_bytes`].
pub const MAX_MESSAGE_BYTES: usize = 64 * 1024;

/// Whom a decryption share is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum ShareKind {
    /// For `requester`'s private draw of the position (never the sender itself).
    Draw {
        /// The seat drawing the position.
        requester: SeatIndex,
    },
    /// The sender shows a card it holds (it drew this position).
    Show,
    /// A public open of a position nobody holds: all four seats send one.
    Public,
}

impl ShareKind {
    /// Fixed-width encoding for hashing: (tag, seat or 0xFF).
    pub(crate) fn encode(self) -> (u8, u8) {
        match self {
            ShareKind::Draw { requester } => (0, requester.get()),
            ShareKind::Show => (1, 0xFF),
            ShareKind::Public => (2, 0xFF),
        }
    }
}

/// Commitment to a seat's joint-randomness seed (step 1).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeedCommit {
    /// [`crate::seed_commitment`] of the seed and nonce.
    pub commitment: [u8; 32],
}

/// The opening of a [`SeedCommit`] (step 2, after all four commits are in).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeedReveal {
    /// The seed.
    pub seed: [u8; 32],
    /// The nonce.
    pub nonce: [u8; 32],
}

/// A seat's fresh hand key with its proof of knowledge, and its shuffle-seed commitment.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyAnnouncement {
    /// `x·G`, compressed.
    pub key: CompressedRistretto,
    /// Proof of knowledge of `x`, bound to (table, hand, seat).
    pub proof: SchnorrProof,
    /// [`crate::shuffle_commitment`] of the secret shuffle seed.
    pub shuffle_commitment: [u8; 32],
}

impl KeyAnnouncement {
    /// The announcement of `secret_key`'s public key with its proof, and the commitment to
    /// `shuffle_seed`. [`crate::DealSeat::key_message`] uses this; it is public for tools and
    /// tests that act as a (possibly modified) client.
    pub fn new(
        ctx: &HandContext,
        seat: SeatIndex,
        secret_key: &Scalar,
        shuffle_seed: &[u8; 32],
    ) -> Self {
        let key = RistrettoPoint::mul_base(secret_key).compress();
        KeyAnnouncement {
            key,
            proof: prove_key(ctx, seat, secret_key, &key),
            shuffle_commitment: shuffle_commitment(ctx, seat, shuffle_seed),
        }
    }
}

/// A seat's shuffle: the whole wall after its permutation and re-encryption, with the compact
/// proof ([`ShuffleArgument`], Bayer–Groth, about 6 KB) that it is one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShuffleOutput {
    /// 144 ciphertexts; position `p` of the final wall is `wall[p]` of seat 3's output.
    pub wall: Vec<CompressedCiphertext>,
    /// Proof that `wall` is a permutation and re-encryption of the previous seat's wall.
    pub proof: Box<ShuffleArgument>,
}

impl ShuffleOutput {
    /// The shuffle `shuffle_seed` derives, applied to `input` (the previous seat's wall, or
    /// [`CardTable::initial_wall`] for seat 0) under `joint_key`, with its proof.
    /// [`crate::DealSeat::shuffle_message`] uses this; it is public for tools and tests that
    /// act as a (possibly modified) client.
    pub fn new(
        ctx: &HandContext,
        seat: SeatIndex,
        shuffle_seed: &[u8; 32],
        joint_key: &RistrettoPoint,
        input: &[Ciphertext],
        cards: &CardTable,
    ) -> Self {
        Self::build(
            ctx,
            seat,
            shuffle_seed,
            joint_key,
            &Wall::from_points(input.to_vec()),
            cards,
        )
        .0
    }

    /// [`ShuffleOutput::new`] from a wall with its compressions; also returns the output wall.
    pub(crate) fn build(
        ctx: &HandContext,
        seat: SeatIndex,
        shuffle_seed: &[u8; 32],
        joint_key: &RistrettoPoint,
        input: &Wall,
        cards: &CardTable,
    ) -> (Self, Wall) {
        let key_table = RistrettoBasepointTable::create(joint_key);
        let shuffled = shuffle(ctx, seat, shuffle_seed, &key_table, &input.points);
        let output = Wall::from_points(shuffled.output.clone());
        let proof = prove_argument(
            ctx,
            seat,
            &cards.argument_key,
            joint_key,
            input,
            &output,
            &shuffled,
            shuffle_seed,
        );
        (
            ShuffleOutput {
                wall: output.compressed.clone(),
                proof: Box::new(proof),
            },
            output,
        )
    }

    /// Whether the proof shows `wall` to be `seat`'s shuffle of `input` under `joint_key`:
    /// the proof check [`crate::Observer::receive`] makes (which also refuses a wall with an
    /// invalid, unrandomized or repeated ciphertext). For tools, benchmarks and fuzzing.
    pub fn verify(
        &self,
        ctx: &HandContext,
        seat: SeatIndex,
        joint_key: &RistrettoPoint,
        input: &[Ciphertext],
        cards: &CardTable,
    ) -> bool {
        let Some(output) = decompress_wall(&self.wall) else {
            return false;
        };
        let input = Wall::from_points(input.to_vec());
        verify_argument(
            ctx,
            seat,
            &cards.argument_key,
            joint_key,
            &input,
            &output,
            &self.proof,
        )
    }
}

/// A seat's shuffle as dealt before the compact proof: the wall with the linear proof
/// ([`ShuffleProof`], Terelius–Wikström, about 23 KB). Hands logged with it still verify;
/// new hands are dealt with [`ShuffleOutput`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinearShuffleOutput {
    /// 144 ciphertexts; position `p` of the final wall is `wall[p]` of seat 3's output.
    pub wall: Vec<CompressedCiphertext>,
    /// Proof that `wall` is a permutation and re-encryption of the previous seat's wall.
    pub proof: Box<ShuffleProof>,
}

impl LinearShuffleOutput {
    /// Like [`ShuffleOutput::new`], with the linear proof: for tools and tests that make a
    /// hand as it was dealt before the compact proof.
    pub fn new(
        ctx: &HandContext,
        seat: SeatIndex,
        shuffle_seed: &[u8; 32],
        joint_key: &RistrettoPoint,
        input: &[Ciphertext],
        cards: &CardTable,
    ) -> Self {
        let key_table = RistrettoBasepointTable::create(joint_key);
        let input = Wall::from_points(input.to_vec());
        let shuffled = shuffle(ctx, seat, shuffle_seed, &key_table, &input.points);
        let output = Wall::from_points(shuffled.output.clone());
        let proof = prove_shuffle(
            ctx,
            seat,
            &cards.generators,
            joint_key,
            &input,
            &output,
            &shuffled,
            shuffle_seed,
        );
        LinearShuffleOutput {
            wall: output.compressed,
            proof: Box::new(proof),
        }
    }

    /// Whether the proof shows `wall` to be `seat`'s shuffle of `input` under `joint_key`:
    /// the proof check [`crate::Observer::receive`] makes (which also refuses a wall with an
    /// invalid, unrandomized or repeated ciphertext). For tools, benchmarks and fuzzing.
    pub fn verify(
        &self,
        ctx: &HandContext,
        seat: SeatIndex,
        joint_key: &RistrettoPoint,
        input: &[Ciphertext],
        cards: &CardTable,
    ) -> bool {
        let Some(output) = decompress_wall(&self.wall) else {
            return false;
        };
        let input = Wall::from_points(input.to_vec());
        verify_linear(
            ctx,
            seat,
            &cards.generators,
            joint_key,
            &input,
            &output,
            &self.proof,
        )
    }
}

/// The points of a wall on the wire, if every one is valid.
fn decompress_wall(wall: &[CompressedCiphertext]) -> Option<Wall> {
    let points = wall
        .iter()
        .map(CompressedCiphertext::decompress)
        .collect::<Option<Vec<_>>>()?;
    Some(Wall {
        points,
        compressed: wall.to_vec(),
    })
}

/// A decryption share `x·C1` for one wall position, with its DLEQ proof.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShareMessage {
    /// Wall position (0..144) in the final wall.
    pub position: Position,
    /// Whom the share is for.
    pub kind: ShareKind,
    /// `x·C1`, compressed.
    pub share: CompressedRistretto,
    /// Proof that the share matches the sender's published key.
    pub proof: DleqProof,
}

impl ShareMessage {
    /// `secret_key·c1` for `position`, with its proof, bound to `kind`.
    /// [`crate::DealSeat::share_for`], [`crate::DealSeat::show`] and
    /// [`crate::DealSeat::public_share`] use this after checking the request is legitimate; it
    /// is public for tools and tests that act as a (possibly modified) client.
    pub fn new(
        ctx: &HandContext,
        seat: SeatIndex,
        secret_key: &Scalar,
        c1: &RistrettoPoint,
        position: Position,
        kind: ShareKind,
    ) -> Self {
        let key = RistrettoPoint::mul_base(secret_key).compress();
        Self::with_key(ctx, seat, secret_key, &key, c1, position, kind)
    }

    /// [`ShareMessage::new`] with the sender's compressed public key already at hand.
    pub(crate) fn with_key(
        ctx: &HandContext,
        seat: SeatIndex,
        secret_key: &Scalar,
        key: &CompressedRistretto,
        c1: &RistrettoPoint,
        position: Position,
        kind: ShareKind,
    ) -> Self {
        let share = (c1 * secret_key).compress();
        let stmt = ShareStatement {
            ctx,
            seat,
            position,
            kind,
            key,
            c1: &c1.compress(),
            share: &share,
        };
        ShareMessage {
            position,
            kind,
            share,
            proof: prove_share(&stmt, secret_key, c1),
        }
    }
}

/// End-of-hand reveal of a seat's per-hand secrets, for the audit.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditReveal {
    /// The hand secret key `x`.
    pub secret_key: Scalar,
    /// The shuffle seed.
    pub shuffle_seed: [u8; 32],
}

/// The content of a message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Body {
    /// Step 1: seed commitment.
    Commit(SeedCommit),
    /// Step 2: seed reveal.
    Reveal(SeedReveal),
    /// Hand key and shuffle-seed commitment.
    Key(KeyAnnouncement),
    /// The seat's shuffle of the wall with the linear proof (hands dealt before the compact
    /// proof; still accepted and verified).
    LinearShuffle(LinearShuffleOutput),
    /// A decryption share (private draw, show, or public open).
    Share(ShareMessage),
    /// End-of-hand secrets.
    AuditReveal(AuditReveal),
    /// Cards the sender drew privately and now sets aside face down for good: it may never
    /// show them, and nobody may draw or open them again before the audit.
    SetAside(SetAside),
    /// The seat's shuffle of the wall with the compact proof (last, so that the messages
    /// logged before it keep their encoding).
    Shuffle(ShuffleOutput),
}

/// Cards set aside face down by the seat that drew them (for a game that lets a player put
/// cards back unseen, e.g. 换牌). The positions are public, the cards stay secret until the
/// end-of-hand audit; at most one such message per seat and hand.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetAside {
    /// The wall positions, strictly increasing.
    pub positions: Vec<Position>,
}

/// The protocol step a message belongs to; used to name steps in errors and audits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Step {
    /// Seed commitment.
    Commit,
    /// Seed reveal.
    Reveal,
    /// Key announcement.
    Key,
    /// Shuffle.
    Shuffle,
    /// Decryption share for another seat's private draw.
    DrawShare,
    /// Show of a held card.
    Show,
    /// Share for a public open.
    PublicShare,
    /// End-of-hand secrets.
    AuditReveal,
    /// Held cards set aside face down.
    SetAside,
}

impl std::fmt::Display for Step {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = match self {
            Step::Commit => "seed commitment",
            Step::Reveal => "seed reveal",
            Step::Key => "key announcement",
            Step::Shuffle => "shuffle",
            Step::DrawShare => "draw share",
            Step::Show => "show",
            Step::PublicShare => "public share",
            Step::AuditReveal => "audit reveal",
            Step::SetAside => "set-aside",
        };
        f.write_str(s)
    }
}

impl Body {
    /// The step this body belongs to.
    pub fn step(&self) -> Step {
        match self {
            Body::Commit(_) => Step::Commit,
            Body::Reveal(_) => Step::Reveal,
            Body::Key(_) => Step::Key,
            Body::Shuffle(_) | Body::LinearShuffle(_) => Step::Shuffle,
            Body::Share(s) => match s.kind {
                ShareKind::Draw { .. } => Step::DrawShare,
                ShareKind::Show => Step::Show,
                ShareKind::Public => Step::PublicShare,
            },
            Body::AuditReveal(_) => Step::AuditReveal,
            Body::SetAside(_) => Step::SetAside,
        }
    }
}

/// One message from one seat about one hand.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    /// [`PROTOCOL_VERSION`].
    pub version: u16,
    /// Table id.
    pub table: [u8; 32],
    /// Hand number within the table.
    pub hand: u32,
    /// The sending seat (its key signs the message).
    pub seat: SeatIndex,
    /// The content.
    pub body: Body,
}

impl Message {
    /// A message of the current version for `ctx` from `seat`.
    pub fn new(ctx: &HandContext, seat: SeatIndex, body: Body) -> Self {
        Message {
            version: PROTOCOL_VERSION,
            table: ctx.table,
            hand: ctx.hand,
            seat,
            body,
        }
    }

    /// The bytes the signature covers: domain tag ‖ postcard encoding.
    pub fn signing_bytes(&self) -> Result<Vec<u8>, DealError> {
        let mut out = domain_tag(Purpose::Signature);
        let encoded = postcard::to_allocvec(self).map_err(|e| DealError::Encode(e.to_string()))?;
        out.extend_from_slice(&encoded);
        Ok(out)
    }

    /// Signs the message with the sender's ed25519 key.
    pub fn sign(self, key: &SigningKey) -> Result<SignedMessage, DealError> {
        let signature = key.sign(&self.signing_bytes()?);
        Ok(SignedMessage {
            message: self,
            signature,
        })
    }
}

/// A message with the sender's ed25519 signature: everything this crate emits.
///
/// A message may instead be **carried** ([`SignedMessage::carried`]): its signature is the
/// all-zero [`CARRIED`] mark, because the signed envelope that carries it (the table crate's,
/// signed by the same seat over the message's bytes) authenticates it. Only
/// [`crate::Observer::receive_carried`] and the audits told so accept one without a signature,
/// and only the carrier's checker may call them; [`crate::Observer::receive`] refuses it
/// (the mark is no valid signature).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignedMessage {
    /// The signed content.
    pub message: Message,
    /// ed25519 signature by `message.seat` over [`Message::signing_bytes`], or [`CARRIED`].
    pub signature: Signature,
}

/// The signature bytes of a carried message ([`SignedMessage::carried`]): 64 zeros, which no
/// strict ed25519 check accepts.
pub const CARRIED: [u8; 64] = [0; 64];

impl SignedMessage {
    /// `message` as a carried message: authenticated by the envelope that carries it, not by
    /// a signature of its own.
    pub fn carried(message: Message) -> SignedMessage {
        SignedMessage {
            message,
            signature: Signature::from_bytes(&CARRIED),
        }
    }

    /// Whether this is a carried message (its signature is the [`CARRIED`] mark).
    pub fn is_carried(&self) -> bool {
        self.signature.to_bytes() == CARRIED
    }

    /// The same message carried (its signature dropped).
    pub fn into_carried(self) -> SignedMessage {
        SignedMessage::carried(self.message)
    }

    /// The sending seat (as claimed until the signature is checked).
    pub fn seat(&self) -> SeatIndex {
        self.message.seat
    }

    /// The step of the message.
    pub fn step(&self) -> Step {
        self.message.body.step()
    }

    /// Postcard encoding.
    pub fn to_bytes(&self) -> Result<Vec<u8>, DealError> {
        postcard::to_allocvec(self).map_err(|e| DealError::Encode(e.to_string()))
    }

    /// Decodes a message (at most [`MAX_MESSAGE_BYTES`], no trailing bytes). Checks nothing
    /// else: pass it to [`crate::DealSeat::receive`] or [`crate::Observer::receive`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DealError> {
        if bytes.len() > MAX_MESSAGE_BYTES {
            return Err(DealError::TooLarge { len: bytes.len() });
        }
        let (msg, rest) = postcard::take_from_bytes::<SignedMessage>(bytes)
            .map_err(|e| DealError::Decode(e.to_string()))?;
        if !rest.is_empty() {
            return Err(DealError::Decode(format!("{} trailing bytes", rest.len())));
        }
        Ok(msg)
    }

    /// `sha256(message-id ‖ postcard(self))`: a stable identifier for evidence and logs.
    pub fn id(&self) -> [u8; 32] {
        let bytes = self.to_bytes().unwrap_or_default();
        DomainHash::sha256(Purpose::MessageId)
            .bytes(&bytes)
            .finish()
    }

    /// Checks the signature against the roster key of the claimed seat (strict ed25519:
    /// no malleable or small-order signatures).
    pub fn verify_signature(&self, roster: &[VerifyingKey; 4]) -> Result<(), DealError> {
        let seat = self.message.seat;
        let bytes = self.message.signing_bytes()?;
        roster[seat.index()]
            .verify_strict(&bytes, &self.signature)
            .map_err(|_| DealError::BadSignature { seat })
    }
}
