//! Why a command of the caller was refused: one error type per concern, whose text is what
//! the player is shown (the CLI and the app print it as it is).

use libp2p::{Multiaddr, rendezvous};

use super::talk::{CHAT_BURST, CHAT_WINDOW_MS};
use crate::wire::MAX_CHAT_CHARS;

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
