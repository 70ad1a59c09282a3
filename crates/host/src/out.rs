//! What one call of the host gives its caller to do.

use ed25519_dalek::{SigningKey, VerifyingKey};
use mahjong_rules::{Card, Seat, SeatView};
use mahjong_table::{Evidence, HandResult, Persisted, Record, StepRecord, TableEvent};

/// What one call gives the caller to do, in this order: make `durable` durable, read `load`
/// and hand the steps back ([`crate::Host::stored`]), send `send`, show `updates`.
#[derive(Debug, Default)]
pub struct Out {
    /// To keep before any frame of this `Out` is sent (a failure stops the table).
    pub durable: Vec<Durable>,
    /// Older steps a seat asks for from its journal.
    pub load: Vec<Load>,
    /// Frames to other programs.
    pub send: Vec<Outgoing>,
    /// For the player's interface.
    pub updates: Vec<Update>,
}

/// One frame for the seats `to` (a bit per seat) that `peer` runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outgoing {
    /// The program that runs those seats.
    pub peer: VerifyingKey,
    /// The seats, a bit each.
    pub to: u8,
    /// The signed frame.
    pub frame: Vec<u8>,
}

/// Steps `from..to` of `seat`'s log, wanted from its journal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Load {
    /// The seat.
    pub seat: Seat,
    /// The first step wanted.
    pub from: u32,
    /// One past the last.
    pub to: u32,
}

/// Something to keep in the player's store.
#[derive(Clone, Debug)]
pub enum Durable {
    /// A seat this program runs starts at the table (a bot seat with its key).
    Seat {
        /// Its configuration and root secret (no log yet).
        persisted: Box<Persisted>,
        /// A bot seat's signing key.
        bot_key: Option<SigningKey>,
    },
    /// A seat's journal records (durable before the frames that follow them are sent).
    Append {
        /// The seat.
        seat: Seat,
        /// Its records.
        records: Vec<Record>,
    },
    /// Every final hand so far, with the log that holds their signatures: the ledger books
    /// those it does not hold yet.
    Book {
        /// The results.
        results: Vec<HandResult>,
        /// The log.
        log: Vec<StepRecord>,
    },
    /// A proof of misbehaviour one of this program's seats produced.
    Evidence(Box<Evidence>),
    /// The table is over (never resumed again).
    Finish,
}

/// What the player's interface is told.
#[derive(Clone, Debug)]
pub enum Update {
    /// An event of the player's own seat.
    Table(TableEvent),
    /// The player's view after the events just told, and the host's clock then.
    View {
        /// What the seat sees.
        view: Box<SeatView>,
        /// The clock (of `TableEvent::YourTurn`'s deadline).
        now: u64,
    },
    /// Every seat's concealed tiles at the end of a final hand whose deal was audited (just
    /// before that hand's `TableEvent::HandOver`).
    Revealed {
        /// The hand.
        hand: u32,
        /// Each seat's concealed tiles.
        hands: Box<[Vec<Card>; 4]>,
    },
    /// The player's seat was given to a bot while the player was away: it follows the table
    /// to the end of the session.
    Following {
        /// The seat it played.
        seat: Seat,
        /// Hands final when it came back.
        hands: u32,
    },
    /// A seat of this program declined the host's proposal: it is not what was agreed.
    Declined {
        /// What differs.
        why: String,
    },
}
