//! Typed errors. Every rejection of a received message names the seat at fault where one can
//! be named ([`DealError::culprit`]); the others are local misuse or missing input.

use thiserror::Error;

use crate::message::{MAX_MESSAGE_BYTES, PROTOCOL_VERSION, SignedMessage, Step};
use crate::{Position, SeatIndex};

/// Why a hand key was rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub enum KeyFault {
    /// The key is not a valid ristretto255 encoding.
    #[error("not a valid point")]
    InvalidPoint,
    /// The key is the identity (secret 0).
    #[error("identity key")]
    Identity,
    /// The proof of knowledge fails (a rogue key, or a proof replayed from elsewhere).
    #[error("proof of knowledge fails")]
    BadProof,
}

/// Why a shuffle was rejected on receipt.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub enum ShuffleFault {
    /// Not exactly 144 ciphertexts.
    #[error("{0} ciphertexts instead of 144")]
    WrongLength(usize),
    /// A point of this output position is not a valid encoding.
    #[error("position {0} is not a valid ciphertext")]
    InvalidPoint(usize),
    /// `C1` of this output position is the identity: the card would be public.
    #[error("position {0} has C1 = identity")]
    Unrandomized(usize),
    /// This output position repeats an earlier ciphertext.
    #[error("position {0} repeats a ciphertext")]
    Duplicate(usize),
    /// The proof of the shuffle fails: the wall is not a permutation and re-encryption of the
    /// previous one (a card replaced, duplicated or dropped).
    #[error("proof of shuffle fails")]
    BadProof,
    /// At the audit: this output position differs from what the seat's seed derives.
    #[error("position {0} differs from what the revealed seed derives")]
    NotDerived(usize),
}

/// Why a decryption share was rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub enum ShareFault {
    /// The position is not in 0..144.
    #[error("position out of range")]
    PositionOutOfRange,
    /// A draw share addressed to the sender itself.
    #[error("a draw share for the sender itself")]
    SelfRequest,
    /// The share is not a valid encoding.
    #[error("not a valid point")]
    InvalidPoint,
    /// The DLEQ proof fails.
    #[error("proof fails")]
    BadProof,
    /// At the audit: the share is not `x·C1` for the revealed secret key.
    #[error("does not match the revealed secret key")]
    NotDerived,
}

/// Why an end-of-hand reveal was rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub enum AuditRevealFault {
    /// `x·G` is not the published hand key.
    #[error("secret key does not match the published key")]
    KeyMismatch,
    /// The shuffle seed does not match its commitment.
    #[error("shuffle seed does not match its commitment")]
    SeedMismatch,
}

/// Every error of this crate.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum DealError {
    /// The encoded message is over [`MAX_MESSAGE_BYTES`].
    #[error("message of {len} bytes exceeds the limit of {MAX_MESSAGE_BYTES}")]
    TooLarge {
        /// Its length.
        len: usize,
    },
    /// The bytes do not decode to a message.
    #[error("message does not decode: {0}")]
    Decode(String),
    /// Encoding failed (should not happen for this crate's types).
    #[error("message does not encode: {0}")]
    Encode(String),
    /// Another protocol version.
    #[error("seat {seat} sent protocol version {version}, expected {PROTOCOL_VERSION}")]
    UnsupportedVersion {
        /// Sender.
        seat: SeatIndex,
        /// Its version.
        version: u16,
    },
    /// The signature does not verify under the claimed seat's key. The claimed seat is named,
    /// but this is no proof against it: anyone on the path could have sent the bytes.
    #[error("message claiming to be from seat {seat} has a bad signature")]
    BadSignature {
        /// Claimed sender.
        seat: SeatIndex,
    },
    /// A signed message for another table (a replay).
    #[error("seat {seat} sent a message for another table")]
    WrongTable {
        /// Sender.
        seat: SeatIndex,
    },
    /// A signed message for another hand (a replay).
    #[error("seat {seat} sent a message for hand {hand}, not this hand")]
    WrongHand {
        /// Sender.
        seat: SeatIndex,
        /// The hand number in the message.
        hand: u32,
    },
    /// Two different signed messages from one seat for one step: proof of cheating.
    #[error("seat {seat} sent two different messages for one {step}")]
    Equivocation {
        /// Sender.
        seat: SeatIndex,
        /// The step.
        step: Step,
        /// The message accepted first.
        first: Box<SignedMessage>,
        /// The conflicting message.
        second: Box<SignedMessage>,
    },
    /// A seed reveal that does not open the seat's commitment.
    #[error("seat {seat}'s seed reveal does not match its commitment")]
    RevealMismatch {
        /// Sender.
        seat: SeatIndex,
    },
    /// A rejected hand key.
    #[error("seat {seat}'s hand key is rejected: {fault}")]
    BadKey {
        /// Sender.
        seat: SeatIndex,
        /// Why.
        fault: KeyFault,
    },
    /// A rejected shuffle.
    #[error("seat {seat}'s shuffle is rejected: {fault}")]
    BadShuffle {
        /// Shuffler.
        seat: SeatIndex,
        /// Why.
        fault: ShuffleFault,
    },
    /// A rejected decryption share.
    #[error("seat {seat}'s share for position {position} is rejected: {fault}")]
    BadShare {
        /// Sender.
        seat: SeatIndex,
        /// Position named in the share.
        position: Position,
        /// Why.
        fault: ShareFault,
    },
    /// A seat showed a position it did not draw (the draw shares for it are not addressed to
    /// that seat, or there are none).
    #[error("seat {seat} showed position {position}, which it does not hold")]
    NotHeld {
        /// The seat that showed.
        seat: SeatIndex,
        /// The position.
        position: Position,
    },
    /// A position set aside face down was shown, drawn or opened again (or set aside twice).
    #[error("seat {seat} used position {position}, which seat {by} set aside face down")]
    SetAside {
        /// The seat that used it.
        seat: SeatIndex,
        /// The position.
        position: Position,
        /// The seat that set it aside.
        by: SeatIndex,
    },
    /// A rejected end-of-hand reveal.
    #[error("seat {seat}'s end-of-hand reveal is rejected: {fault}")]
    BadAuditReveal {
        /// Sender.
        seat: SeatIndex,
        /// Why.
        fault: AuditRevealFault,
    },
    /// At the audit: a seat never sent a required message.
    #[error("seat {seat} never sent its {step}")]
    Missing {
        /// The silent seat.
        seat: SeatIndex,
        /// The missing step.
        step: Step,
    },
    /// A message arrived before one it depends on (deliver in log order).
    #[error("{step} from seat {seat} arrived before the {needs} it depends on")]
    OutOfOrder {
        /// Sender.
        seat: SeatIndex,
        /// Its step.
        step: Step,
        /// What must come first.
        needs: Step,
    },
    /// A local request that needs more of the protocol done first.
    #[error("not ready: needs {needs} first")]
    NotReady {
        /// What must come first.
        needs: Step,
    },
    /// A local request for a position outside 0..144.
    #[error("position {position} is out of range")]
    PositionOutOfRange {
        /// The position.
        position: Position,
    },
    /// A local request that conflicts with how this seat already used the position (e.g. a
    /// share for another seat of a position it drew itself).
    #[error("position {position} is already used otherwise")]
    PositionConflict {
        /// The position.
        position: Position,
    },
    /// A local request for a share addressed to this seat itself.
    #[error("a seat does not send draw shares to itself; use show")]
    SelfRequest,
    /// Not all shares needed to open a position are in yet.
    #[error("shares for position {position} are missing")]
    MissingShares {
        /// The position.
        position: Position,
    },
    /// A position decrypted to no card: the wall is corrupt. The messages were valid and are
    /// kept; run the audit to find the seat at fault. With every proof of shuffle and share
    /// checked this cannot happen; it is kept as a last line of defence.
    #[error("position {position} decrypts to no card: the wall is corrupt (run the audit)")]
    NotACard {
        /// The position.
        position: Position,
    },
    /// The signing key passed in is not this seat's roster key.
    #[error("the signing key is not this seat's roster key")]
    WrongSigningKey,
}

impl DealError {
    /// The seat this error proves (or, for [`DealError::BadSignature`], claims) at fault.
    pub fn culprit(&self) -> Option<SeatIndex> {
        match self {
            DealError::Equivocation { seat, .. }
            | DealError::RevealMismatch { seat }
            | DealError::BadKey { seat, .. }
            | DealError::BadShuffle { seat, .. }
            | DealError::BadShare { seat, .. }
            | DealError::NotHeld { seat, .. }
            | DealError::SetAside { seat, .. }
            | DealError::BadAuditReveal { seat, .. }
            | DealError::Missing { seat, .. } => Some(*seat),
            // A bad signature proves nothing (anyone can send garbage), and a validly signed
            // message of another hand, table or version proves only that it was replayed,
            // which anyone who saw it can do.
            DealError::UnsupportedVersion { .. }
            | DealError::BadSignature { .. }
            | DealError::WrongTable { .. }
            | DealError::WrongHand { .. }
            | DealError::TooLarge { .. }
            | DealError::Decode(_)
            | DealError::Encode(_)
            | DealError::OutOfOrder { .. }
            | DealError::NotReady { .. }
            | DealError::PositionOutOfRange { .. }
            | DealError::PositionConflict { .. }
            | DealError::SelfRequest
            | DealError::MissingShares { .. }
            | DealError::NotACard { .. }
            | DealError::WrongSigningKey => None,
        }
    }
}
