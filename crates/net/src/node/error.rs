//! Why a command of the caller was refused: one error type per concern, whose text is what
//! the player is shown (the CLI and the app print it as it is).

use libp2p::{Multiaddr, rendezvous};
use mahjong_rules::Seat;
use mahjong_store::SHOWN_NAME_CHARS;

use super::talk::{CHAT_BURST, CHAT_WINDOW_MS};
use crate::storage::StorageError;
use crate::wire::{MAX_CHAT_CHARS, RosterError};

/// Why an address could not be dialled ([`super::Network::dial`]).
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct DialError(#[from] libp2p::swarm::DialError);

/// Why friends cannot be met at a relay ([`super::Internet::new`], [`super::Network::meet`]).
#[derive(Debug, thiserror::Error)]
pub enum MeetError {
    /// The relay's address names no peer id.
    #[error(
        "the relay address {0} does not end in /p2p/PEER_ID (the whole line `mahjong relay` prints)"
    )]
    NoPeerId(Multiaddr),
    /// The relay's address is not a TCP or QUIC address at an IP address or a host name.
    #[error(
        "the relay address {0} is not of the form /ip4/ADDRESS/tcp/PORT/p2p/PEER_ID \
         (or /dns4/NAME/…, or …/udp/PORT/quic-v1/p2p/PEER_ID)"
    )]
    NotARelay(Multiaddr),
    /// The table code makes no rendezvous namespace.
    #[error(transparent)]
    Namespace(#[from] rendezvous::NamespaceTooLong),
}

/// Why a line was not said at the table ([`super::Network::say`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ChatError {
    /// The line is empty (once cleaned).
    #[error("nothing to say")]
    Empty,
    /// The line is over [`MAX_CHAT_CHARS`] characters.
    #[error("a line holds at most {MAX_CHAT_CHARS} characters")]
    TooLong,
    /// This peer neither plays nor watches a table.
    #[error("not at a table")]
    NotAtTable,
    /// The table watched does not let its watchers talk.
    #[error("watchers may not talk at this table")]
    WatchersMayNotTalk,
    /// Over [`CHAT_BURST`] lines within [`CHAT_WINDOW_MS`].
    #[error("at most {CHAT_BURST} lines in {} seconds", CHAT_WINDOW_MS / 1000)]
    TooFast,
}

/// Why a table cannot be watched, or a watcher turned away ([`super::Network::watch`],
/// [`super::Network::turn_away`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WatchError {
    /// A peer that plays at a table watches no other.
    #[error("this peer plays at a table: it cannot watch another")]
    Playing,
    /// Only the table's host turns watchers away.
    #[error("only the table's host can turn a watcher away")]
    NotHost,
    /// No watcher of that name.
    #[error("nobody called {0} watches this table")]
    NoSuchWatcher(String),
}

/// Why a roster was refused, or why the table played here cannot go on (the loop then stops
/// with [`super::NetEvent::Fatal`], saying this).
#[derive(Debug, thiserror::Error)]
pub(super) enum TableError {
    /// Two seats of the roster have the same key.
    #[error("the roster gives two seats the same key")]
    SameKey,
    /// A seat's name does not show as it is (cleaned here).
    #[error(
        "the roster names a seat {0:?}: control characters, escapes or over {SHOWN_NAME_CHARS} characters"
    )]
    SeatName(String),
    /// The roster gives this peer no human seat, or more than one.
    #[error("the roster gives this peer {0} human seats, not one")]
    HumanSeats(usize),
    /// A seat of this peer has a key it does not hold.
    #[error("the roster gives seat {0} a key this peer does not hold")]
    NotOurKey(Seat),
    /// The store could not say whether it holds the table.
    #[error("cannot read the store: {0}")]
    ReadStore(StorageError),
    /// The store holds the table already (its id's first hex digits).
    #[error("the roster is for table {0}, which this peer's store holds already")]
    Stored(String),
    /// The roster is not its host's word on a full table.
    #[error(transparent)]
    Roster(#[from] RosterError),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StorageError),
    /// What the roster's own checks, the seat host or a table client said, in their words.
    #[error("{0}")]
    Other(String),
}

impl From<String> for TableError {
    fn from(why: String) -> TableError {
        TableError::Other(why)
    }
}
