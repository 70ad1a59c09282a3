//! What the caller of the network holds: its configuration ([`NetConfig`]), its handle
//! ([`Network`], whose methods send [`Command`]s to the event loop) and what comes out
//! ([`NetEvent`]).

use ed25519_dalek::{SigningKey, VerifyingKey};
use libp2p::multiaddr::Protocol;
use libp2p::{Multiaddr, PeerId};
use mahjong_bot::Level;
#[cfg(feature = "test-hooks")]
use mahjong_rules::Options;
use mahjong_rules::Seat;
use mahjong_table::TableEvent;
use tokio::sync::{mpsc, oneshot};

use crate::code::TableCode;
use crate::lobby::{LobbyError, Settings, TableSpec};
use crate::storage::StorageError;
#[cfg(feature = "test-hooks")]
use crate::wire;
use crate::wire::{Advert, Roster, TableId};

#[cfg(feature = "test-hooks")]
use super::Tamper;
use super::{ChatError, DialError, MeetError, WatchError, WatchPolicy, WatchTarget};

/// Everything the event loop needs.
pub struct NetConfig {
    /// The player's identity: libp2p key and table signing key.
    pub identity: SigningKey,
    /// What the player wants at the table.
    pub settings: Settings,
    /// Addresses to listen on (default: every IPv4 interface, a free TCP port).
    pub listen: Vec<Multiaddr>,
    /// Peers to dial (`--peer`), kept and redialled.
    pub peers: Vec<Multiaddr>,
    /// Discover peers by mDNS.
    pub mdns: bool,
    /// Whether a bot plays the player's own seat (headless); otherwise the caller answers
    /// [`TableEvent::YourTurn`] and [`TableEvent::Proposed`] with [`Network::act`] and
    /// [`Network::accept`].
    pub own_bot: bool,
    /// The bots' level.
    pub bot_level: Level,
    /// The wire version this peer speaks: [`crate::wire::WIRE_VERSION`]; another value exists only so
    /// that tests can play a peer of another version (the `test-hooks` feature only).
    #[cfg(feature = "test-hooks")]
    pub wire_version: u32,
    /// A lying peer's rewrite of its own seat's frames (the `test-hooks` feature only; see
    /// [`Tamper`]).
    #[cfg(feature = "test-hooks")]
    pub tamper: Option<Tamper>,
    /// The player chooses tables by hand ([`Network::host`], [`Network::sit`],
    /// [`Network::stand`]); the lobby never joins or opens one on its own (the desktop app).
    pub manual: bool,
    /// At a table this peer hosts: how long a silent seat is waited for before the others
    /// vote it out and a bot takes its seat (`None`: the preset's). Part of the options this
    /// peer agrees to, so at a table it joins too.
    pub disconnect_seconds: Option<u32>,
    /// The own seat's bot does not accept the proposals of this many tables, so the seat's
    /// own timer declines each after `start_seconds` (a player who misses the Accept;
    /// `u32::MAX`: never accepts; the `test-hooks` feature only).
    #[cfg(feature = "test-hooks")]
    pub never_accept: u32,
    /// A lying host: proposes these options instead of the ones it advertised (the
    /// `test-hooks` feature only: tests play a hostile peer through the real shell).
    #[cfg(feature = "test-hooks")]
    pub lying_proposal: Option<Options>,
    /// A lying host: changes every roster before signing it (tests only, like
    /// [`NetConfig::lying_proposal`]).
    #[cfg(feature = "test-hooks")]
    pub lying_roster: Option<fn(&mut Advert)>,
    /// Play over the internet: meet the friends who have the same table code through this
    /// relay (see [`Internet`]).
    pub internet: Option<Internet>,
    /// Try direct connections to friends reached through a relay (DCUtR hole punching; the
    /// `test-hooks` feature only: off in tests that need a table the relay carries, always
    /// on without the feature).
    #[cfg(feature = "test-hooks")]
    pub hole_punching: bool,
    /// A lying host (the `test-hooks` feature only): the first entry of another seat's move it
    /// serves a watcher has one byte changed, so the watcher must catch it.
    #[cfg(feature = "test-hooks")]
    pub lie_to_watchers: bool,
    /// Watch a table instead of sitting at one (`mahjong watch`): see [`WatchTarget`].
    pub watch: Option<WatchTarget>,
    /// At a table this peer hosts: whether friends may watch it and talk at it.
    pub watchers: WatchPolicy,
}

/// Where friends in different homes meet: a relay (`mahjong relay`) and a table code.
///
/// The peer dials the relay, reserves a relayed address on it, registers that address at the
/// relay's rendezvous under the code's namespace ([`TableCode::namespace`]) and looks up the
/// others registered there; the lower peer id of each pair dials the other through the relay,
/// and DCUtR then tries a direct connection (hole punching). Only peers found under the code
/// (and the peers of the table it sits at) take part in its lobby.
#[derive(Clone, Debug)]
pub struct Internet {
    /// The relay's full address, ending in `/p2p/RELAY`.
    pub relay: Multiaddr,
    /// The relay's peer id (from the address).
    pub relay_peer: PeerId,
    /// The table code.
    pub code: TableCode,
    /// The code this peer proves it knows to the others ([`TableCode::proof`]) and checks
    /// theirs with: the table code, except in tests that play a stranger who learnt the
    /// namespace but not the code (the `test-hooks` feature only; without it, always `code`).
    #[cfg(feature = "test-hooks")]
    pub proof: TableCode,
}

impl Internet {
    /// Whether the relay is met over QUIC: then this peer also listens on QUIC, and hole
    /// punching goes over QUIC (the relay observes the UDP port the NAT gave this peer).
    pub fn is_quic(&self) -> bool {
        self.relay.iter().any(|p| p == Protocol::QuicV1)
    }

    /// The code proven to the others and checked in their proofs: [`Internet::code`] (or a
    /// stranger's [`Internet::proof`] in the tests).
    #[cfg(feature = "test-hooks")]
    pub(super) fn proven_code(&self) -> TableCode {
        self.proof
    }

    /// The code proven to the others and checked in their proofs: [`Internet::code`].
    #[cfg(not(feature = "test-hooks"))]
    pub(super) fn proven_code(&self) -> TableCode {
        self.code
    }

    /// Checks the relay's address: a TCP or QUIC address at an IP address (`/ip4/…`, `/ip6/…`)
    /// or a host name (`/dns/…`, `/dns4/…`, `/dns6/…`, resolved when dialled), ending in
    /// `/p2p/PEER`.
    pub fn new(relay: Multiaddr, code: TableCode) -> Result<Internet, MeetError> {
        let Some(Protocol::P2p(relay_peer)) = relay.iter().last() else {
            return Err(MeetError::NoPeerId(relay));
        };
        let mut parts = relay.iter();
        let host = matches!(
            parts.next(),
            Some(
                Protocol::Ip4(_)
                    | Protocol::Ip6(_)
                    | Protocol::Dns(_)
                    | Protocol::Dns4(_)
                    | Protocol::Dns6(_)
            )
        );
        let transport = match parts.next() {
            Some(Protocol::Tcp(_)) => true,
            Some(Protocol::Udp(_)) => matches!(parts.next(), Some(Protocol::QuicV1)),
            _ => false,
        };
        let end = matches!(parts.next(), Some(Protocol::P2p(_))) && parts.next().is_none();
        if !(host && transport && end) {
            return Err(MeetError::NotARelay(relay));
        }
        Ok(Internet {
            relay,
            relay_peer,
            code,
            #[cfg(feature = "test-hooks")]
            proof: code,
        })
    }
}

/// How a friend is connected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Link {
    /// A direct connection (on a LAN, or through the NATs after hole punching).
    Direct,
    /// Only through the relay (`/p2p-circuit`): it works, but every byte goes via the relay.
    Relayed,
}

impl NetConfig {
    /// The defaults for `identity` and `settings`: listen on all IPv4 interfaces, mDNS on,
    /// own seat, empty seats and replaced players played by the master bot
    /// ([`Level::BOTS`]).
    pub fn new(identity: SigningKey, settings: Settings) -> NetConfig {
        NetConfig {
            identity,
            settings,
            listen: vec![
                "/ip4/0.0.0.0/tcp/0"
                    .parse()
                    .unwrap_or_else(|_| Multiaddr::empty()),
            ],
            peers: Vec::new(),
            mdns: true,
            own_bot: true,
            bot_level: Level::BOTS,
            #[cfg(feature = "test-hooks")]
            wire_version: wire::WIRE_VERSION,
            #[cfg(feature = "test-hooks")]
            tamper: None,
            manual: false,
            disconnect_seconds: None,
            #[cfg(feature = "test-hooks")]
            never_accept: 0,
            #[cfg(feature = "test-hooks")]
            lying_proposal: None,
            #[cfg(feature = "test-hooks")]
            lying_roster: None,
            internet: None,
            #[cfg(feature = "test-hooks")]
            hole_punching: true,
            #[cfg(feature = "test-hooks")]
            lie_to_watchers: false,
            watch: None,
            watchers: WatchPolicy::default(),
        }
    }
}

/// Why the network could not start or stopped.
#[derive(Debug, thiserror::Error)]
pub enum NetError {
    /// The transport or a listener could not be set up.
    #[error("network: {0}")]
    Transport(String),
    /// The store failed.
    #[error(transparent)]
    Storage(#[from] StorageError),
    /// The event loop is gone.
    #[error("the network event loop has stopped")]
    Stopped,
}

/// What the loop tells its caller.
#[derive(Clone, Debug)]
pub enum NetEvent {
    /// Listening on this address (with `/p2p/PEER`).
    Listening(Multiaddr),
    /// Connected to a peer.
    Connected(PeerId),
    /// The connection to a peer was lost.
    Disconnected(PeerId),
    /// A peer speaks another protocol version.
    Incompatible {
        /// The peer.
        peer: PeerId,
        /// What it announced.
        theirs: String,
    },
    /// A peer broke the wire rules and was disconnected.
    Misbehaved {
        /// The peer.
        peer: PeerId,
        /// What it did.
        why: String,
    },
    /// The open tables changed.
    Lobby(Vec<Advert>),
    /// The roster is fixed; this peer runs `seats` (its own first).
    Began {
        /// The signed roster.
        roster: Box<Roster>,
        /// Seats this peer runs.
        seats: Vec<Seat>,
    },
    /// A table resumed from the store after a restart.
    Resumed {
        /// The signed roster.
        roster: Box<Roster>,
        /// Hands already final.
        hands: u32,
    },
    /// An event of the player's own seat.
    Table(TableEvent),
    /// The player's own seat's view after the events just passed out, and the loop's clock
    /// then (milliseconds, the clock of [`TableEvent::YourTurn`]'s deadline).
    View {
        /// What the seat sees.
        view: Box<mahjong_rules::SeatView>,
        /// The loop's clock.
        now: u64,
    },
    /// The player's seat was given to a bot while this peer was away (the others booked the
    /// hand it left as the leaver's): it now follows the table to the end of the session as
    /// a watcher, booking every hand as the others do (`TableEvent::HandOver`, then
    /// `TableEvent::SessionOver` come as for a seat). See `mahjong_table::Follower`.
    Following {
        /// The seat it played.
        seat: Seat,
        /// Hands final when it came back.
        hands: u32,
    },
    /// Every seat's concealed tiles at the end of a final hand whose deal was audited (sent
    /// just before that hand's `TableEvent::HandOver`): what "all hands face up" shows.
    Revealed {
        /// The hand.
        hand: u32,
        /// Each seat's concealed tiles.
        hands: Box<[Vec<mahjong_rules::Card>; 4]>,
    },
    /// A seat this peer runs declined the host's proposal: it is not what was agreed.
    Declined {
        /// What differs, in one line.
        why: String,
    },
    /// The loop stopped on an error (a corrupt store, an unusable roster).
    Fatal(String),
    /// The relay accepted this peer's reservation: friends reach it at this address.
    RelayReserved(Multiaddr),
    /// The connection to the relay was lost (it is redialled); links already direct go on.
    RelayLost {
        /// The relay's address.
        relay: Multiaddr,
        /// Friends linked directly at that moment (none: every friend was linked through the
        /// relay, and nothing reaches them until it is back).
        direct: usize,
    },
    /// This peer watches the table of this roster (its host serves it the log).
    Watching {
        /// The signed roster.
        roster: Box<Roster>,
    },
    /// The table's host will not serve this watcher: why, in one line.
    WatchRefused {
        /// Why.
        reason: String,
    },
    /// Who watches the table now (at every change), and whether watchers may talk.
    Watchers {
        /// Their names.
        names: Vec<String>,
        /// Watchers may talk.
        chat: bool,
    },
    /// The host this peer watches through showed it a false game (a changed entry, another
    /// history, a step the rules refuse): the watcher stops.
    Lied {
        /// The host's peer.
        peer: PeerId,
        /// What it showed.
        why: String,
    },
    /// A line of table talk (the player's own included, once sent).
    Chat {
        /// Its sender's name.
        name: String,
        /// Its sender's identity key.
        from: VerifyingKey,
        /// The line.
        text: String,
        /// Said by a watcher.
        watcher: bool,
    },
    /// A friend's link changed (or is first known): direct or through the relay.
    Link {
        /// The friend.
        peer: PeerId,
        /// How it is connected now.
        link: Link,
    },
}

/// Traffic and timing counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Traffic {
    /// Wire messages written.
    pub messages_out: u64,
    /// Bytes written (length prefixes included).
    pub bytes_out: u64,
    /// Wire messages read.
    pub messages_in: u64,
    /// Bytes read.
    pub bytes_in: u64,
}

/// What the handle asks of the loop.
#[derive(Debug)]
pub enum Command {
    /// The player's choice at its turn.
    Act(mahjong_rules::Action, oneshot::Sender<()>),
    /// Accept the proposal.
    Accept(oneshot::Sender<()>),
    /// Leave the table.
    Leave(oneshot::Sender<()>),
    /// The open tables.
    Tables(oneshot::Sender<Vec<Advert>>),
    /// The traffic counters.
    Traffic(oneshot::Sender<Traffic>),
    /// Stop the loop.
    Shutdown(oneshot::Sender<()>),
    /// Leave the table (a signed leave for every seat this peer runs, so that the others
    /// replace them at once), then stop the loop.
    Quit(oneshot::Sender<()>),
    /// Open a table with this set-up (manual lobby).
    Host(Box<TableSpec>, oneshot::Sender<Result<(), LobbyError>>),
    /// Ask for a seat at this table (manual lobby).
    Sit(TableId, oneshot::Sender<Result<(), LobbyError>>),
    /// Leave the table hosted or asked for, before it starts (manual lobby).
    Stand(oneshot::Sender<()>),
    /// Fill the hosted table's free seats with bots now (manual lobby).
    FillBots(oneshot::Sender<Result<(), LobbyError>>),
    /// Dial an address (the manual address field), kept and redialled like `--peer`.
    Dial(Multiaddr, oneshot::Sender<Result<(), DialError>>),
    /// How each connected friend is linked.
    Links(oneshot::Sender<Vec<(PeerId, Link)>>),
    /// Meet the friends of a table code at a relay from now on (see [`Network::meet`]).
    Meet(Box<Internet>, oneshot::Sender<Result<(), MeetError>>),
    /// End the table played here, unfinished, for good (see [`Network::end_table`]).
    EndTable(oneshot::Sender<Result<(), StorageError>>),
    /// Say a line at the table (see [`Network::say`]).
    Say(String, oneshot::Sender<Result<(), ChatError>>),
    /// Turn a watcher away (see [`Network::turn_away`]).
    TurnAway(String, oneshot::Sender<Result<(), WatchError>>),
    /// Watch a table (see [`Network::watch`]).
    Watch(TableId, oneshot::Sender<Result<(), WatchError>>),
    /// Stop watching (see [`Network::stop_watching`]).
    StopWatching(oneshot::Sender<()>),
    /// Whether the tables this peer hosts from now on take watchers (see
    /// [`Network::set_watchers`]).
    SetWatchers(WatchPolicy, oneshot::Sender<()>),
}

/// The cheap cloneable handle of the event loop.
#[derive(Clone, Debug)]
pub struct Network {
    pub(super) tx: mpsc::Sender<Command>,
}

impl Network {
    async fn call<T>(&self, f: impl FnOnce(oneshot::Sender<T>) -> Command) -> Result<T, NetError> {
        let (tx, rx) = oneshot::channel();
        self.tx.send(f(tx)).await.map_err(|_| NetError::Stopped)?;
        rx.await.map_err(|_| NetError::Stopped)
    }

    /// Plays the player's action (at [`TableEvent::YourTurn`]).
    pub async fn act(&self, action: mahjong_rules::Action) -> Result<(), NetError> {
        self.call(|tx| Command::Act(action, tx)).await
    }

    /// Accepts the host's proposal.
    pub async fn accept(&self) -> Result<(), NetError> {
        self.call(Command::Accept).await
    }

    /// Leaves the table.
    pub async fn leave(&self) -> Result<(), NetError> {
        self.call(Command::Leave).await
    }

    /// The open tables known now.
    pub async fn tables(&self) -> Result<Vec<Advert>, NetError> {
        self.call(Command::Tables).await
    }

    /// The traffic so far.
    pub async fn traffic(&self) -> Result<Traffic, NetError> {
        self.call(Command::Traffic).await
    }

    /// Opens a table with the player's set-up; its host proposes `spec.options`.
    pub async fn host(&self, spec: TableSpec) -> Result<Result<(), LobbyError>, NetError> {
        self.call(|tx| Command::Host(Box::new(spec), tx)).await
    }

    /// Asks for a seat at `table`.
    pub async fn sit(&self, table: TableId) -> Result<Result<(), LobbyError>, NetError> {
        self.call(|tx| Command::Sit(table, tx)).await
    }

    /// Leaves the table hosted or asked for, before it starts.
    pub async fn stand(&self) -> Result<(), NetError> {
        self.call(Command::Stand).await
    }

    /// Fills the hosted table's free seats with bots (it starts).
    pub async fn fill_bots(&self) -> Result<Result<(), LobbyError>, NetError> {
        self.call(Command::FillBots).await
    }

    /// Dials `addr` now and keeps redialling it like a `--peer` address.
    pub async fn dial(&self, addr: Multiaddr) -> Result<Result<(), DialError>, NetError> {
        self.call(|tx| Command::Dial(addr, tx)).await
    }

    /// Leaves the table this peer plays at, if any (a signed leave for every seat it runs:
    /// the others replace them at once instead of waiting the disconnect limit), then stops
    /// the loop. Nothing is left when the table is over.
    pub async fn quit(&self) -> Result<(), NetError> {
        self.call(Command::Quit).await
    }

    /// From now on, meet the friends of `internet`'s code at its relay (the app's "Play over
    /// the internet"): as [`NetConfig::internet`], set while running. The lobby then holds only
    /// the peers found under that code: peers already in it that are not are dropped from it.
    pub async fn meet(&self, internet: Internet) -> Result<Result<(), MeetError>, NetError> {
        self.call(|tx| Command::Meet(Box::new(internet), tx)).await
    }

    /// How each connected friend is linked now: direct or through the relay.
    pub async fn links(&self) -> Result<Vec<(PeerId, Link)>, NetError> {
        self.call(Command::Links).await
    }

    /// Ends the table this peer plays at, unfinished, for good: nothing more of it is played
    /// or sent, it is marked over in the store (never resumed), and what was booked stays
    /// booked. For a table none of whose peers can be reached any more (every friend was
    /// linked through a relay that is gone): each peer ends it alike, so every ledger holds
    /// the same final hands and none the hand that was in play.
    pub async fn end_table(&self) -> Result<Result<(), StorageError>, NetError> {
        self.call(Command::EndTable).await
    }

    /// Says a line at the table played or watched: signed, to the players and watchers
    /// (`Err`: why it was not sent, e.g. over 200 characters or too many lines at once).
    pub async fn say(&self, text: &str) -> Result<Result<(), ChatError>, NetError> {
        self.call(|tx| Command::Say(text.to_string(), tx)).await
    }

    /// Watches `table` (a started table of the lobby): its host is asked, and the table comes
    /// out as [`NetEvent::Watching`], then the events and views of a seat nobody plays here.
    pub async fn watch(&self, table: TableId) -> Result<Result<(), WatchError>, NetError> {
        self.call(|tx| Command::Watch(table, tx)).await
    }

    /// Stops watching.
    pub async fn stop_watching(&self) -> Result<(), NetError> {
        self.call(Command::StopWatching).await
    }

    /// Whether the tables this peer hosts from now on take watchers and let them talk (the
    /// app's choice at "open a table"; [`NetConfig::watchers`] at start).
    pub async fn set_watchers(&self, policy: WatchPolicy) -> Result<(), NetError> {
        self.call(|tx| Command::SetWatchers(policy, tx)).await
    }

    /// Turns the watcher of this name away from the table this peer hosts.
    pub async fn turn_away(&self, name: &str) -> Result<Result<(), WatchError>, NetError> {
        self.call(|tx| Command::TurnAway(name.to_string(), tx))
            .await
    }

    /// Stops the loop (after the answer, the loop is gone).
    pub async fn shutdown(&self) -> Result<(), NetError> {
        self.call(Command::Shutdown).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PEER: &str = "12D3KooWDpJ7As7BWAwRMfu1VU2WCqNjvq387JEYKDBj4kx6nXTN";

    fn internet(addr: &str) -> Result<Internet, MeetError> {
        let code: TableCode = "7K3M-QX9P".parse().expect("code");
        Internet::new(addr.parse().expect("multiaddr"), code)
    }

    #[test]
    fn a_relay_is_met_at_an_ip_or_a_name_over_tcp_or_quic() {
        for (addr, quic) in [
            (format!("/ip4/203.0.113.7/tcp/4001/p2p/{PEER}"), false),
            (format!("/ip6/2001:db8::7/tcp/4001/p2p/{PEER}"), false),
            (
                format!("/ip4/203.0.113.7/udp/4001/quic-v1/p2p/{PEER}"),
                true,
            ),
            (
                format!("/dns4/relay.example.org/tcp/4001/p2p/{PEER}"),
                false,
            ),
            (
                format!("/dns/relay.example.org/udp/4001/quic-v1/p2p/{PEER}"),
                true,
            ),
            (
                format!("/dns6/relay.example.org/tcp/4001/p2p/{PEER}"),
                false,
            ),
        ] {
            let i = internet(&addr).unwrap_or_else(|e| panic!("{addr}: {e}"));
            assert_eq!(i.is_quic(), quic, "{addr}");
            assert_eq!(i.relay_peer.to_string(), PEER);
        }
    }

    #[test]
    fn other_relay_addresses_are_refused_saying_the_form() {
        for addr in [
            format!("/ip4/203.0.113.7/udp/4001/p2p/{PEER}"),
            format!("/ip4/203.0.113.7/tcp/4001/p2p/{PEER}/p2p-circuit"),
            format!("/ip4/203.0.113.7/p2p/{PEER}"),
            format!("/dnsaddr/relay.example.org/p2p/{PEER}"),
            format!("/p2p/{PEER}"),
        ] {
            let e = internet(&addr)
                .err()
                .unwrap_or_else(|| panic!("{addr} accepted"))
                .to_string();
            assert!(
                e.contains("/ip4/ADDRESS/tcp/PORT/p2p/PEER_ID") || e.contains("/p2p/PEER_ID"),
                "{addr}: {e}"
            );
        }
        let e = internet("/ip4/203.0.113.7/tcp/4001")
            .expect_err("no peer id")
            .to_string();
        assert!(e.contains("does not end in /p2p/PEER_ID"), "{e}");
    }
}
