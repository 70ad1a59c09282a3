//! What the log and the ledger are made of: a step of the log ([`StepRecord`]), the result
//! of a hand that the seats sign ([`HandResult`]) and how a table ended ([`Ending`]). Below
//! the replica, its events and its evidence, which all name them.

use mahjong_rules::{Money, Outcome, Seat, Session, Setup};
use serde::{Deserialize, Serialize};

use crate::codec::{Envelope, Hash, encode_value, tagged_hash};

/// One step of the log: its entries in seat order (or, for an aborted hand, the three votes).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepRecord {
    /// The envelopes, sorted by seat.
    pub entries: Vec<Envelope>,
}

impl StepRecord {
    /// The step number.
    pub fn seq(&self) -> Option<u32> {
        self.entries.first().map(|e| e.seq)
    }

    /// The hand.
    pub fn hand(&self) -> Option<u32> {
        self.entries.first().map(|e| e.hand)
    }

    /// Whether this step is an abort (three votes).
    pub fn is_abort(&self) -> bool {
        self.entries.first().is_some_and(Envelope::is_vote)
    }
}

/// The result of one hand: what the four (or, for an abort, the three) seats sign.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandResult {
    /// The hand number.
    pub hand: u32,
    /// Its set-up (absent when it was aborted before the dice).
    pub setup: Option<Setup>,
    /// How it ended (an abort is [`Outcome::Abandoned`] with the named seat as leaver).
    pub outcome: Outcome,
    /// Coins per seat (after 逛花园 chips), summing to zero.
    pub payments: [Money; 4],
    /// Ended by an abort co-signed by the three other seats.
    pub aborted: bool,
    /// The session after this hand (dealer, 荒番, rounds, balances).
    pub session: Session,
}

impl HandResult {
    /// `sha256(tag ‖ postcard(self))`: what `Settle` and `Abort` entries sign.
    pub fn hash(&self) -> Hash {
        tagged_hash("hand-result", &encode_value(self))
    }
}

/// How a table ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Ending {
    /// A seat declined the set-up or never answered.
    SetupFailed(Seat),
    /// The session was played out or stopped.
    SessionOver,
    /// This seat left the table.
    Left,
    /// Nobody can be blamed and nothing can go on.
    Halted(String),
}
