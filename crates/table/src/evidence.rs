//! Proof of misbehaviour that anyone can check offline.
//!
//! Implements ARCHITECTURE.md "Agreement" ("two different signed messages from one seat for
//! the same step are proof of cheating") and the deal audit's "any deviation names the seat
//! that made it, with its own signed messages as proof". An [`Evidence`] record holds the
//! table's log up to the offence (every entry signed by its seat; the first step is the
//! host's proposal, which names the four public keys, and the three acceptances signed under
//! them) and the offence itself: two signed envelopes of one seat that cannot both be honest
//! ([`conflict`]: two entries or two votes for one step, or a settlement and an abort vote of
//! one hand), or a complete step whose processing fails. The log of an equivocation record
//! runs up to the start of the hand it concerns (an earlier hand's, too: equivocation is
//! caught whenever the second message comes). [`Evidence::verify`] replays the log with the same
//! [`crate::replica`] every peer runs, without any secret, and returns the seat the messages
//! prove at fault. It needs nothing but the record.
//!
//! What it cannot prove: silence (a seat that never sent proves nothing; the three others
//! co-sign an abort instead), and a bad signature (anyone can send garbage).

use ed25519_dalek::VerifyingKey;
use mahjong_rules::Seat;
use serde::{Deserialize, Serialize};

use crate::codec::{Body, Envelope};
use crate::error::Offence;
use crate::record::StepRecord;

/// What the record shows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Charge {
    /// Two signed envelopes from one seat that cannot both be honest (see [`conflict`]): two
    /// entries or two votes for one step, or a settlement and an abort vote of one hand.
    Equivocation {
        /// One.
        first: Box<Envelope>,
        /// The other.
        second: Box<Envelope>,
    },
    /// The complete step after the log, whose processing names a seat at fault (an illegal
    /// move, a bad proof, a face not held, a failed audit or full replay, a wrong result).
    Step {
        /// Its entries, in seat order.
        entries: Vec<Envelope>,
    },
}

/// A self-contained, offline-verifiable proof that a seat misbehaved.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evidence {
    /// The table's log from the set-up up to the offence.
    pub log: Vec<StepRecord>,
    /// The offence.
    pub charge: Charge,
}

/// The seat proven at fault.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Culprit {
    /// The seat.
    pub seat: Seat,
    /// Its key (from the log's roster).
    pub key: VerifyingKey,
    /// What it did.
    pub offence: Offence,
}

/// Whether two envelopes signed by one seat cannot both come from an honest seat (their
/// signatures are not checked here, but the voids a settlement carries are, under
/// `roster`): `Ok` when they conflict, else why not.
///
/// They conflict when they are of one table, hand and seat, differ, and are
/// - two entries for one step, or two votes for one step (equivocation);
/// - a vote and a settlement of the hand, the vote at another step than the settlement
///   (a vote at the settlement step names a seat that did not sign and asks for the same
///   result), unless the settlement is a [`Body::SettleVoided`] carrying a valid plain
///   `Settle` of a seat that is neither the signer nor the vote's culprit.
pub fn conflict(
    a: &Envelope,
    b: &Envelope,
    roster: &[VerifyingKey; 4],
) -> Result<(), &'static str> {
    if a.table != b.table || a.hand != b.hand || a.seat != b.seat {
        return Err("not one hand of one seat");
    }
    if a == b {
        return Err("the same message twice");
    }
    if matches!(a.body, Body::Request { .. }) || matches!(b.body, Body::Request { .. }) {
        return Err("requests are not entries");
    }
    match (a.is_vote(), b.is_vote()) {
        (true, true) | (false, false) if a.seq == b.seq => Ok(()),
        (true, true) | (false, false) => Err("not one step"),
        (true, false) => settle_excludes(b, a, roster),
        (false, true) => settle_excludes(a, b, roster),
    }
}

/// Whether a settlement excludes a vote of its signer (see [`conflict`]).
fn settle_excludes(
    settle: &Envelope,
    vote: &Envelope,
    roster: &[VerifyingKey; 4],
) -> Result<(), &'static str> {
    let Body::Abort { culprit, .. } = vote.body else {
        return Err("not a vote");
    };
    if vote.seq == settle.seq {
        return Err("a vote at the settlement step asks for the settled result");
    }
    match &settle.body {
        Body::Settle { .. } => Ok(()),
        Body::SettleVoided { voids, .. } => {
            let voided = voids.iter().any(|v| {
                v.seat != settle.seat
                    && v.seat != culprit
                    && v.envelope(settle)
                        .is_some_and(|e| e.verify(&roster[v.seat as usize & 3]).is_ok())
            });
            if voided && vote.seq < settle.seq {
                Err("the settlement voids the vote")
            } else {
                Ok(())
            }
        }
        _ => Err("not a settlement and a vote"),
    }
}
