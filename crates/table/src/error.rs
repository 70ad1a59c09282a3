//! Typed errors.
//!
//! Three families, by who is to blame:
//! - [`FrameError`]: a frame that is dropped and proves nothing against anyone (garbage, a bad
//!   signature — anyone can send those —, a frame for another table, a message nobody asked
//!   for). Retransmission heals whatever was lost.
//! - [`Fault`]: a seat's own signed messages prove it misbehaved (equivocation, an illegal
//!   move, a bad proof, a face it does not hold, a failed audit, a wrong result). A fault
//!   stops the hand with an [`crate::Evidence`] record.
//! - [`ActError`]: the local caller asked for something impossible (not its turn, an illegal
//!   action); nothing is sent.

use mahjong_deal::DealError;
use mahjong_rules::{MoveError, Seat, Tile};
use thiserror::Error;

/// A frame that was dropped without blame.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum FrameError {
    /// Over [`crate::MAX_FRAME`] bytes.
    #[error("frame of {len} bytes exceeds the limit")]
    TooLarge {
        /// Its length.
        len: usize,
    },
    /// Not a postcard envelope.
    #[error("frame does not decode: {0}")]
    Decode(String),
    /// Bytes left after the envelope.
    #[error("{0} trailing bytes after the envelope")]
    Trailing(usize),
    /// Decodes, but is not the canonical encoding of what it decodes to.
    #[error("frame is not canonically encoded")]
    NotCanonical,
    /// Another protocol version.
    #[error("protocol version {0} is not supported")]
    Version(u16),
    /// A seat number outside 0..4.
    #[error("seat {0} does not exist")]
    NoSuchSeat(Seat),
    /// For another table.
    #[error("frame for another table")]
    WrongTable,
    /// The signature does not verify under the claimed seat's key (proves nothing: anyone
    /// could have sent it).
    #[error("frame claiming to be from seat {seat} has a bad signature")]
    BadSignature {
        /// The claimed sender.
        seat: Seat,
    },
    /// The seat is not one that must speak at that step, or the body is not what the step
    /// takes.
    #[error("seat {seat} is not expected to send a {body} at step {seq}")]
    NotExpected {
        /// The sender.
        seat: Seat,
        /// The step.
        seq: u32,
        /// The body kind.
        body: &'static str,
    },
    /// Built on another history than this seat's (a fork: someone equivocated, or the sender
    /// is on an aborted branch); this seat asks the sender for its log to find out.
    #[error("seat {seat}'s entry for step {seq} follows another history")]
    OtherHistory {
        /// The sender.
        seat: Seat,
        /// The step.
        seq: u32,
    },
    /// Too far ahead of this seat to buffer; it will be asked for again.
    #[error("step {seq} of hand {hand} is too far ahead")]
    TooFarAhead {
        /// The hand.
        hand: u32,
        /// The step.
        seq: u32,
    },
    /// The seat's buffer for steps not yet logged is full ([`crate::MAX_BUFFER_BYTES`]); the
    /// frame is dropped (an honest seat's entry is asked for again later).
    #[error("seat {seat} already has {bytes} bytes buffered")]
    OverBudget {
        /// The sender.
        seat: Seat,
        /// What it has buffered.
        bytes: usize,
    },
    /// The table is over (or halted) here; nothing more is taken.
    #[error("the table is over")]
    Closed,
}

/// What a seat's own signed messages prove it did wrong.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum Offence {
    /// Two different signed entries (or votes) for one step.
    #[error("two different signed messages for one step")]
    Equivocation,
    /// A deal message rejected by the deal crate (bad key, shuffle, share, reveal, replay…).
    #[error("deal: {0}")]
    Deal(DealError),
    /// A move the rules refuse.
    #[error("illegal move: {0}")]
    Illegal(MoveError),
    /// An entry that is not what the step requires (missing or extra proofs, wrong kind).
    #[error("malformed entry: {0}")]
    Malformed(String),
    /// A shown card that is not the face the move claims.
    #[error("claims {claimed} at wall position {pos} but shows {shown}")]
    FaceMismatch {
        /// The position.
        pos: u8,
        /// What the move says.
        claimed: Tile,
        /// What the proof opens to.
        shown: Tile,
    },
    /// The end-of-hand audit of the deal names this seat.
    #[error("audit: {0}")]
    Audit(DealError),
    /// The full-knowledge replay after the audit refuses this seat's move (a hidden flower,
    /// a false ready declaration, a win barred by 漏胡…).
    #[error("full replay refuses move {index}: {error}")]
    Replay {
        /// The index of the move in the hand.
        index: usize,
        /// Why.
        error: MoveError,
    },
    /// A settlement signature on another result than the log gives.
    #[error("signed a wrong result")]
    WrongResult,
    /// A set-up proposal that is not valid.
    #[error("bad proposal: {0}")]
    BadProposal(String),
}

/// A seat proven at fault.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("seat {seat}: {offence}")]
pub struct Fault {
    /// The culprit.
    pub seat: Seat,
    /// What it did.
    pub offence: Offence,
}

impl Fault {
    pub(crate) fn new(seat: Seat, offence: Offence) -> Fault {
        Fault { seat, offence }
    }

    pub(crate) fn malformed(seat: Seat, why: impl Into<String>) -> Fault {
        Fault::new(seat, Offence::Malformed(why.into()))
    }
}

/// Why processing a complete step failed.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum StepError {
    /// A seat is at fault.
    #[error(transparent)]
    Fault(#[from] Fault),
    /// Something that should not happen with honest code and proven inputs (a bug, or a
    /// corrupt local store): the table halts without blaming anyone.
    #[error("internal: {0}")]
    Internal(String),
}

/// The local caller asked for something impossible; nothing was sent.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ActError {
    /// This seat need not act now.
    #[error("this seat has nothing to do now")]
    NotYourTurn,
    /// Already answered this step.
    #[error("this seat has already acted in this step")]
    AlreadyActed,
    /// The rules refuse the action.
    #[error("illegal: {0}")]
    Illegal(MoveError),
    /// The deal crate refused to make a proof (e.g. a show of a card not held).
    #[error("deal: {0}")]
    Deal(DealError),
    /// Only the host proposes, once, before anything else.
    #[error("cannot propose now")]
    CannotPropose,
    /// Nothing to accept or decline.
    #[error("no proposal is waiting for an answer")]
    NothingToAccept,
    /// A proposal that is not valid.
    #[error("bad proposal: {0}")]
    BadProposal(String),
    /// The table is over.
    #[error("the table is over")]
    Closed,
}

/// Creating or restoring a client failed.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum TableError {
    /// The signing key is not the roster's key for the seat.
    #[error("the signing key is not seat {0}'s roster key")]
    WrongKey(Seat),
    /// A seat number outside 0..4.
    #[error("seat {0} does not exist")]
    NoSuchSeat(Seat),
    /// The persisted state does not replay.
    #[error("persisted log does not replay at step {seq}: {why}")]
    Restore {
        /// The step.
        seq: u32,
        /// Why.
        why: String,
    },
}

/// Why an [`crate::Evidence`] record proves nothing.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum EvidenceError {
    /// The log does not start with a valid, agreed set-up.
    #[error("the log has no agreed set-up")]
    NoSetup,
    /// The context log itself fails to replay without naming anyone.
    #[error("the context does not replay at step {seq}: {why}")]
    Context {
        /// The step.
        seq: u32,
        /// Why.
        why: String,
    },
    /// An envelope of the evidence has a bad signature.
    #[error("bad signature in the evidence: {0}")]
    Signature(FrameError),
    /// The two messages are not two different ones for one step of one seat.
    #[error("not an equivocation: {0}")]
    NotEquivocation(&'static str),
    /// The offending step is not the step after the context, or not complete.
    #[error("the offending step does not follow the context: {0}")]
    NotNextStep(String),
    /// Processing the offending step succeeds: nobody is at fault.
    #[error("the offending step is valid")]
    NoFault,
}
