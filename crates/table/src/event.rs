//! What a client tells its caller (the UI, a headless bot driver, the ledger).
//!
//! Events are emitted in log order; every peer emits the same public events for the same log
//! (own tiles and own draws aside).

use mahjong_rules::{Card, Dice, Event, Money, Move, Seat, SeatView};

use crate::codec::{Envelope, Proposal};
use crate::evidence::Evidence;
use crate::record::HandResult;

/// Something the caller may show or act on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TableEvent {
    /// The host proposes this set-up: answer with [`crate::Input::Accept`] or
    /// [`crate::Input::Decline`] before `start_seconds` pass (then the client declines).
    Proposed(Box<Proposal>),
    /// All four accepted: the agreed set-up, the first entry of the log.
    SetupAgreed(Box<Proposal>),
    /// The set-up failed: a seat declined (or never answered).
    SetupFailed {
        /// The seat that declined or stayed silent.
        seat: Seat,
    },
    /// A hand was dealt.
    HandStarted {
        /// The hand number (1, 2, …).
        hand: u32,
        /// Its dice.
        dice: Dice,
        /// Its dealer.
        dealer: Seat,
        /// The 荒番 counter in force.
        huangfan: u32,
        /// The `baida` indicator, face up.
        indicator: Option<Card>,
        /// This seat's 13 (dealer 14) tiles.
        tiles: Vec<Card>,
    },
    /// This seat drew a tile (after its shares came in).
    Drew {
        /// The tile.
        card: Card,
        /// From the back (after a kong or flower).
        replacement: bool,
    },
    /// A move was agreed, with what the rules made of it (as far as this seat can see).
    Moved {
        /// The move.
        mv: Move,
        /// The rules events.
        events: Vec<Event>,
    },
    /// This seat must act: choose from `view.legal` and send [`crate::Input::Act`] before
    /// `deadline` (milliseconds, the caller's clock); then the client plays the default
    /// action itself, marked `timed_out`.
    YourTurn {
        /// What this seat sees, with its legal actions.
        view: Box<SeatView>,
        /// When the timer runs out.
        deadline: u64,
    },
    /// A seat has not sent what the table waits for, well past its own timer.
    SeatSilent {
        /// The seat.
        seat: Seat,
    },
    /// Two or more seats are silent at once past the disconnect limit: no abort can gather
    /// three votes, so the table waits. It resumes ([`TableEvent::Resumed`]) when one of
    /// them speaks again; meanwhile [`crate::Input::Leave`] leaves with nothing booked for
    /// the unfinished hand (the journal keeps it, for a later restore).
    Paused {
        /// The silent seats.
        silent: Vec<Seat>,
    },
    /// The table goes on after a pause (one of the silent seats spoke again).
    Resumed,
    /// A seat that was silent has spoken again.
    SeatReturned {
        /// The seat.
        seat: Seat,
    },
    /// A hand is final: four settlement signatures, or an abort signed by the three others.
    HandOver {
        /// The result (outcome, payments, the session after it).
        result: Box<HandResult>,
        /// The signed envelopes that make it final (four `Settle`, or three `Abort` votes).
        signatures: Vec<Envelope>,
    },
    /// A seat is proven at fault; the hand stops and this seat votes to abort it.
    Evidence(Box<Evidence>),
    /// A seat that left was replaced by a bot run by `controller`'s peer.
    SeatReplaced {
        /// The seat.
        seat: Seat,
        /// The seat whose peer runs the bot and holds its keys.
        controller: Seat,
    },
    /// This client is the controller of a new bot seat: build it with
    /// [`crate::Client::bot_client`] and drive it.
    RunBot {
        /// The bot's seat.
        seat: Seat,
    },
    /// This seat has left the table (or was replaced); the client takes nothing more.
    Left,
    /// The session is over (its set length was played, a seat stopped it, or too many left).
    SessionOver {
        /// Final balances in coins.
        balances: [Money; 4],
    },
    /// The table cannot go on and nobody can be blamed (a bug or a corrupt local store).
    Halted {
        /// Why.
        reason: String,
    },
}
