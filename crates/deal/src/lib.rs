//! Fair, private dealing with no trusted party: joint randomness by commit-reveal, and a
//! mental-poker wall of 144 cards that four seats shuffle together, draw privately, show, and
//! audit at the end of the hand.
//!
//! Implements ARCHITECTURE.md "Randomness and dealing (no one is trusted)". The crate knows
//! nothing of mahjong beyond "144 cards (indices 0..144), drawn by seats at wall positions the
//! caller gives": the table crate decides from the agreed game state who draws which position
//! and when, moves the messages, and persists them. No I/O, threads, clocks or global state;
//! randomness enters only through [`HandSecrets::generate`] (a caller's `RngCore + CryptoRng`)
//! or [`HandSecrets::from_root`].
//!
//! # Main types
//!
//! - [`HandContext`] `{ table: [u8; 32], hand: u32 }` names one hand; every hash, proof and
//!   signature is bound to it (and to the seat, purpose, and where relevant the position and
//!   requester), so nothing replays into another hand or table.
//! - [`DealSeat`]: one seat's state (secrets + verified transcript). It produces
//!   [`SignedMessage`]s ([`commit`](DealSeat::commit), [`key_message`](DealSeat::key_message),
//!   [`reveal`](DealSeat::reveal), [`shuffle_message`](DealSeat::shuffle_message),
//!   [`share_for`](DealSeat::share_for), [`show`](DealSeat::show),
//!   [`public_share`](DealSeat::public_share), [`audit_reveal`](DealSeat::audit_reveal)) and
//!   checks them ([`receive`](DealSeat::receive) → [`Accepted`] or a [`DealError`] naming the
//!   seat at fault, [`DealError::culprit`]). It serializes as a [`SeatSnapshot`] (secrets +
//!   messages) and [`restore`](DealSeat::restore)s by re-verifying them.
//! - [`Observer`]: the same checks without secrets, for anyone watching.
//! - [`audit()`]: from a transcript alone, [`AuditSummary`] (the card at every position) or the
//!   first [`Violation`] (seat, step, error, the culprit's signed messages).
//!
//! # One hand, message by message
//!
//! 1. Every seat sends [`commit`](DealSeat::commit) and [`key_message`](DealSeat::key_message)
//!    (together is fine).
//! 2. Once all four commits are in, every seat sends [`reveal`](DealSeat::reveal). The fourth
//!    reveal fixes the [`JointRandomness`] (hand id, dice, dealer).
//! 3. Once all keys are in, seat 0 sends [`shuffle_message`](DealSeat::shuffle_message) (the
//!    wall and a proof of shuffle); then seat 1 after receiving it, then 2, then 3. Seat 3's
//!    output is the final wall.
//! 4. Private draw of position `k` by seat `P`: each other seat sends
//!    [`share_for(k, P)`](DealSeat::share_for); `P` reads the card from [`Accepted::Share`]
//!    (or [`open_private`](DealSeat::open_private)) once the third arrives.
//! 5. `P` shows a held card with [`show(k)`](DealSeat::show); every seat reads it on receipt
//!    ([`Accepted::Share`], [`card_at`](DealSeat::card_at)). A public open of a position nobody
//!    holds: all four send [`public_share(k)`](DealSeat::public_share).
//!    `P` may instead set held cards aside face down for good with
//!    [`set_aside`](DealSeat::set_aside) (a [`SetAside`] of their positions, e.g. the five
//!    tiles of 换牌): from then on nobody may show, draw or open them ([`DealError::SetAside`]),
//!    and their cards stay secret until the audit ([`AuditSummary::set_aside`]).
//! 6. End of hand: every seat sends [`audit_reveal`](DealSeat::audit_reveal); anyone runs
//!    [`audit()`].
//!
//! Deliver every message to every seat (own messages too: they come back as
//! [`Accepted::Duplicate`]) in the order of the table's log.
//!
//! ```
//! use ed25519_dalek::SigningKey;
//! use mahjong_deal::{audit, DealError, DealSeat, HandContext, HandSecrets, SeatIndex, SignedMessage};
//! use rand_chacha::ChaCha20Rng;
//! use rand_core::SeedableRng;
//!
//! fn broadcast(seats: &mut [DealSeat], msg: &SignedMessage) -> Result<(), DealError> {
//!     // Over the wire: msg.to_bytes()? and SignedMessage::from_bytes(&bytes)?.
//!     for seat in seats.iter_mut() {
//!         seat.receive(msg.clone())?;
//!     }
//!     Ok(())
//! }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let mut rng = ChaCha20Rng::from_seed([7; 32]); // use OsRng in real life
//! let signers: Vec<SigningKey> = (0..4).map(|_| SigningKey::generate(&mut rng)).collect();
//! let roster = [0, 1, 2, 3].map(|i| signers[i].verifying_key());
//! let ctx = HandContext { table: [1; 32], hand: 0 };
//! let mut seats: Vec<DealSeat> = SeatIndex::ALL
//!     .into_iter()
//!     .map(|s| DealSeat::new(ctx, s, roster, HandSecrets::generate(&mut rng)))
//!     .collect();
//!
//! // 1–2: commit and keys, then reveal.
//! for i in 0..4 {
//!     let commit = seats[i].commit(&signers[i])?;
//!     let key = seats[i].key_message(&signers[i])?;
//!     broadcast(&mut seats, &commit)?;
//!     broadcast(&mut seats, &key)?;
//! }
//! for i in 0..4 {
//!     let reveal = seats[i].reveal(&signers[i])?;
//!     broadcast(&mut seats, &reveal)?;
//! }
//! let joint = *seats[0].joint_randomness().ok_or("no joint randomness")?;
//! assert!(joint.dice.iter().all(|d| (1..=6).contains(d)));
//!
//! // 3: four shuffles in seat order.
//! for i in 0..4 {
//!     assert!(seats[i].is_my_turn_to_shuffle());
//!     let shuffle = seats[i].shuffle_message(&signers[i])?;
//!     broadcast(&mut seats, &shuffle)?;
//! }
//!
//! // 4: seat 2 draws wall position 5; only seat 2 can read it.
//! let drawer = SeatIndex::ALL[2];
//! for i in [0, 1, 3] {
//!     let share = seats[i].share_for(&signers[i], 5, drawer)?;
//!     broadcast(&mut seats, &share)?;
//! }
//! let card = seats[2].open_private(5)?;
//! assert!(seats[0].card_at(5).is_none());
//!
//! // 5: seat 2 discards it face up; everyone reads the same card.
//! let show = seats[2].show(&signers[2], 5)?;
//! broadcast(&mut seats, &show)?;
//! assert!(seats.iter().all(|s| s.card_at(5).map(|(c, _)| c) == Some(card)));
//!
//! // A public open of position 143 (nobody holds it).
//! for i in 0..4 {
//!     let share = seats[i].public_share(&signers[i], 143)?;
//!     broadcast(&mut seats, &share)?;
//! }
//! let indicator = seats[1].card_at(143).ok_or("not opened")?.0;
//!
//! // 6: end of hand: reveal secrets and audit the transcript.
//! for i in 0..4 {
//!     let reveal = seats[i].audit_reveal(&signers[i])?;
//!     broadcast(&mut seats, &reveal)?;
//! }
//! let report = audit(ctx, &roster, seats[3].transcript())?;
//! assert_eq!(report.final_wall[5], card);
//! assert_eq!(report.final_wall[143], indicator);
//! assert_eq!(report.joint, joint);
//! # Ok(())
//! # }
//! ```
//!
//! # Security notes
//!
//! - Privacy of the wall holds if at least one shuffler is honest; cards stay private until
//!   shown as long as every seat releases a share only when the agreed state says so.
//! - Every shuffle carries a zero-knowledge proof of shuffle ([`ShuffleArgument`], Bayer–
//!   Groth, about 6 KB; hands logged before it carry [`ShuffleProof`], Terelius–Wikström,
//!   about 23 KB, and still verify), so a seat that replaces, duplicates or drops a card is
//!   caught on receipt.
//!   Rogue keys, bad shares, forged shows, replays, bad signatures, equivocation and bad
//!   reveals are caught on receipt too. What only the end-of-hand [`audit()`] can check is that
//!   each shuffle is the one its committed seed derives (a seat that ground its seed to place a
//!   card), and that the revealed secrets match.
//! - A seat that withholds its reveal, shuffle or shares stalls the hand; the table treats it
//!   as a leaver (the audit names it as [`DealError::Missing`]).
//!
//! # Costs
//!
//! CPU time per seat on the 2-core x86_64 (AMD EPYC, AVX2) development machine,
//! `cargo bench -p mahjong-deal`: set-up of one hand (commit, key, reveal, own shuffle with
//! its proof, checking the other three shuffles and their proofs) 50–53 ms (56–65 ms with the
//! linear proof); one proof of shuffle of the 144 cards, made with its
//! shuffle 35 ms and checked 8 ms (the linear proof of older hands: 31 ms and 11.5 ms); one
//! private draw: making a share 0.19 ms, receiving three shares and opening 0.63 ms; auditing
//! a hand whose 144 positions were all drawn 175 ms. [`CardTable::new`] costs 9 ms: build it
//! once and share it ([`DealSeat::with_cards`]). Bytes sent per seat for the set-up: about
//! 16 KB (the wall 9.2 KB, its proof 6.3 KB).

mod audit;
mod derive;
mod elgamal;
mod error;
mod hash;
mod message;
mod observer;
mod proof;
mod seat;
mod shuffle_argument;
mod shuffle_proof;

use serde::{Deserialize, Serialize};
use thiserror::Error;

pub use audit::{
    AuditReport, AuditSummary, Violation, audit, audit_carried_with_cards, audit_verified,
    audit_with_cards,
};
pub use derive::Derivation;
pub use elgamal::{CardTable, Ciphertext, CompressedCiphertext, permutation};
pub use error::{AuditRevealFault, DealError, KeyFault, ShareFault, ShuffleFault};
pub use hash::{JointRandomness, seed_commitment, shuffle_commitment};
pub use message::{
    AuditReveal, Body, CARRIED, KeyAnnouncement, LinearShuffleOutput, MAX_MESSAGE_BYTES, Message,
    PROTOCOL_VERSION, SeedCommit, SeedReveal, SetAside, ShareKind, ShareMessage, ShuffleOutput,
    SignedMessage, Step,
};
pub use observer::{Accepted, Observer, Opening};
pub use proof::{DleqProof, SchnorrProof};
pub use seat::{DealSeat, HandSecrets, SeatSnapshot};
pub use shuffle_argument::{
    HadamardArgument, MultiExpArgument, ProductArgument, ShuffleArgument,
    SingleValueProductArgument, ZeroArgument,
};
pub use shuffle_proof::ShuffleProof;

/// Number of cards, and of wall positions.
pub const WALL_SIZE: usize = 144;

/// A wall position in the final wall, 0..144.
pub type Position = u8;

/// A card, 0..144. What it means (which tile) is the caller's business.
pub type CardIndex = u8;

/// One hand at one table: what every hash, proof and signature is bound to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct HandContext {
    /// Table id.
    pub table: [u8; 32],
    /// Hand number within the table.
    pub hand: u32,
}

/// A seat at the table, 0..4 (validated on construction and when decoded).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "u8", into = "u8")]
pub struct SeatIndex(u8);

/// A seat number outside 0..4.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
#[error("seat {0} is out of range (0..4)")]
pub struct SeatOutOfRange(pub u8);

impl SeatIndex {
    /// The four seats in order.
    pub const ALL: [SeatIndex; 4] = [SeatIndex(0), SeatIndex(1), SeatIndex(2), SeatIndex(3)];

    /// Seat `i`, if `i < 4`.
    pub const fn new(i: u8) -> Option<Self> {
        if i < 4 { Some(SeatIndex(i)) } else { None }
    }

    /// The seat number.
    pub const fn get(self) -> u8 {
        self.0
    }

    /// The seat number as an index.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The seat that shuffles before this one (none for seat 0).
    pub const fn prev(self) -> Option<Self> {
        match self.0 {
            0 => None,
            n => Some(SeatIndex(n - 1)),
        }
    }

    /// The seat `b mod 4`.
    pub(crate) const fn from_low_bits(b: u8) -> Self {
        SeatIndex(b & 3)
    }
}

impl TryFrom<u8> for SeatIndex {
    type Error = SeatOutOfRange;

    fn try_from(i: u8) -> Result<Self, SeatOutOfRange> {
        SeatIndex::new(i).ok_or(SeatOutOfRange(i))
    }
}

impl From<SeatIndex> for u8 {
    fn from(s: SeatIndex) -> u8 {
        s.0
    }
}

impl std::fmt::Display for SeatIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}
