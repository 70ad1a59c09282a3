//! The event loop and its handle, in the shape of rust-libp2p's file-sharing example: a
//! cloneable [`Network`] sends [`Command`]s (each with a `oneshot` for its answer) to one task,
//! [`EventLoop`], which owns the libp2p `Swarm`, the [`Lobby`], the seat host of the table this
//! peer plays at ([`mahjong_host::Host`]: its own seat and any bot seats) and the [`Storage`];
//! [`NetEvent`]s come out over a channel.
//!
//! **The table** is the seat host's: the loop hands it frames from the table's peers, the
//! player's commands and its timers, and does what each [`mahjong_host::Out`] says, in its
//! order: the store first (`Record::Own` is durable when [`Storage::append`] returns; a store
//! failure stops the loop before anything of that output is sent), steps read back from the
//! journal for a seat that asked, one [`Wire::Frame`] per peer with a bit per seat, then the
//! player's events as [`NetEvent`]s. Routing, bots, replacing bots (started on
//! `TableEvent::RunBot`, retried at every lobby tick while their controller's roster step is
//! not behind a checkpoint) and a player following the table after a bot took its seat are
//! the host's (see its docs); the network only carries frames and says which peers are
//! reachable.
//!
//! **Connections.** tcp + noise + yamux. mDNS discoveries and `--peer` addresses are dialled;
//! as the default mDNS query interval is minutes, the lobby exchanges adverts over the
//! connection, not over mDNS. Each peer writes to the other over one outbound stream of
//! [`PROTOCOL`] and reads the other's inbound stream (a reader task per stream, a bounded
//! channel to the loop, so a fast sender is slowed down, never buffered without bound). A peer
//! that sends an oversized or undecodable message, or more than [`MAX_MESSAGES_PER_SECOND`],
//! or frames for a table it does not sit at, or leaves a message unfinished for
//! [`wire::READ_DEADLINE`], is disconnected and refused for [`BAN_MS`]. At most
//! [`MAX_STREAMS_PER_PEER`] inbound streams of a peer are read at once, yamux allows
//! [`MAX_STREAMS_PER_CONNECTION`], and libp2p's connection limits bound connections
//! ([`MAX_INCOMING_CONNECTIONS`], [`MAX_PENDING_CONNECTIONS`], [`MAX_CONNECTIONS_PER_PEER`],
//! [`MAX_CONNECTIONS`]; the peers of the table played are exempt).
//! A dropped connection to a known address is redialled with back-off (250 ms doubling to
//! 8 s); the table's own `Request`/resend fills what was missed.
//!
//! **Over the internet** ([`NetConfig::internet`], [`Network::meet`]; docs/relay.md). The
//! swarm also carries libp2p's relay client, DCUtR and a rendezvous client. With a relay and
//! a table code, the relay is dialled (and redialled like a `--peer`), a relayed address is
//! reserved on it and registered under the code's namespace ([`TableCode::namespace`]), and
//! the others registered there are looked up every [`DISCOVER_LOBBY_MS`]; of each pair the
//! lower peer id dials the other's relayed address. DCUtR then tries a direct connection;
//! once one is up, the relayed one is closed (the writer moves to the direct one). Only the
//! peers found under the code (and the table's own peers) take part in the lobby: another
//! peer may be connected (mDNS) but gets no writer, no adverts, and its lobby messages are
//! dropped. Each friend's link is told as [`NetEvent::Link`] when it changes.
//!
//! **Versions.** identify announces [`PROTOCOL_VERSION`]; a peer announcing another gives one
//! [`NetEvent::Incompatible`] (a clear line in the CLI) and is disconnected.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use ed25519_dalek::{SigningKey, VerifyingKey};
use futures::StreamExt;
use libp2p::core::transport::ListenerId;
use libp2p::identity::PublicKey;
use libp2p::multiaddr::Protocol;
use libp2p::swarm::behaviour::toggle::Toggle;
use libp2p::swarm::dial_opts::{DialOpts, PeerCondition};
use libp2p::swarm::{ConnectionId, NetworkBehaviour, SwarmEvent};
use libp2p::{
    Multiaddr, PeerId, StreamProtocol, Swarm, connection_limits, dcutr, identify, mdns, noise,
    relay, rendezvous, tcp, yamux,
};
use mahjong_bot::{Bot, Level};
use mahjong_host::{Durable, Host, NewSeat, Out as HostOut, Resumed, Setup, Update};
use mahjong_rules::{Money, Options, Seat, SessionLength};
use mahjong_table::{Client, Input, TableEvent};
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use crate::code::TableCode;
use crate::lobby::{self, Action, Lobby, Settings, TableSpec, bot_key};
use crate::storage::{Storage, StorageError};
use crate::wire::{
    self, Advert, MAX_MESSAGE, PROTOCOL, PROTOCOL_VERSION, Roster, SeatInfo, TableId, Wire,
    WireError,
};

/// How often a peer not yet at a table repeats its hosted table to every peer (ms).
const ADVERT_REPEAT_MS: u64 = 1500;
/// Messages per second a peer may send before it is disconnected.
pub const MAX_MESSAGES_PER_SECOND: u32 = 4000;
/// Frames for a table the peer does not sit at, per second, before it is disconnected.
pub const MAX_STRAY_FRAMES_PER_SECOND: u32 = 64;
/// How long a disconnected misbehaving peer is refused.
pub const BAN_MS: u64 = 30_000;
/// How long the connection to a peer that runs seats at this peer's table may be down before
/// those seats are reported silent ([`TableEvent::SeatSilent`]: "reconnecting…"); the table's
/// own watch only warns past the seat's turn timer plus its grace, some 25 s. A peer that
/// connects again within this is not reported.
pub const PEER_SILENT_MS: u64 = 3000;
/// How long a peer that must stop keeps its connections after its signed leave, so that the
/// leave reaches the others before the process ends.
pub const LEAVE_FLUSH_MS: u64 = 500;

/// Events kept for a caller that does not read them as fast as they come (see `emit`).
pub const MAX_OVERFLOW: usize = 1 << 14;
/// How long a peer that quits waits, after its signed leave, for the others' abort of its
/// hand, so that it books its own leaver penalty as they do.
pub const LEAVE_BOOK_MS: u64 = 3000;
/// Tables found over at start-up (marked finished, not resumed) before the loop gives up
/// looking for one to resume (a store whose `finish_table` did not take would loop).
const MAX_OVER_TABLES_SKIPPED: usize = 64;
/// How long a peer stays at a table whose set-up failed before it is back in the lobby (it
/// still answers a peer that missed its last entry meanwhile).
pub const LINGER_AFTER_FAILED_SETUP_MS: u64 = 1500;
/// Messages queued for one peer before new ones are dropped (the table resends).
const SEND_QUEUE: usize = 1024;
/// Messages from all readers queued for the loop (readers wait when it is full).
const INBOUND_QUEUE: usize = 256;
/// Connections other peers may have open to this one at once (the peers of the table this
/// peer sits at are not counted: they can always reconnect). Each holds at most
/// [`MAX_STREAMS_PER_CONNECTION`] streams, each with yamux's receive window (256 KiB).
pub const MAX_INCOMING_CONNECTIONS: u32 = 48;
/// Connections being set up at once (the noise handshake).
pub const MAX_PENDING_CONNECTIONS: u32 = 32;
/// Connections to one peer at once (two peers that dial each other at the same moment have
/// two; through a relay, the relayed one and the direct one hole punching makes, which may
/// itself be two for a moment).
pub const MAX_CONNECTIONS_PER_PEER: u32 = 4;
/// How often a peer with a table code looks its friends up at the relay while in the lobby
/// (ms); at a table, [`DISCOVER_PLAYING_MS`].
pub const DISCOVER_LOBBY_MS: u64 = 2000;
/// How often a peer at a table looks its friends up at the relay (one that restarted
/// reserves a new relayed address).
pub const DISCOVER_PLAYING_MS: u64 = 10_000;
/// Peers found under one table code that are remembered (a code is shared by four friends;
/// more is someone filling the namespace).
const MAX_CODE_PEERS: usize = 64;
/// How long the higher peer id of a pair found under a code leaves the dial to the lower one
/// (one circuit per pair) before it dials too (ms).
const CODE_DIAL_GRACE_MS: u64 = 6000;
/// All connections at once.
pub const MAX_CONNECTIONS: u32 = 96;
/// Inbound streams of one peer read at once.
pub const MAX_STREAMS_PER_PEER: u32 = 4;
/// Streams open on one connection at once (the game uses one each way; identify opens short
/// ones).
pub const MAX_STREAMS_PER_CONNECTION: usize = 8;

/// Rewrites the frames the player's own seat broadcasts (see [`mahjong_host::Tamper`]). For
/// tests that play a lying peer (an equivocating entry) through the real shell; `mahjong play`
/// never sets it.
pub use mahjong_host::Tamper;

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
    /// The wire version this peer speaks: [`wire::WIRE_VERSION`]; another value exists only so
    /// that tests can play a peer of another version.
    pub wire_version: u32,
    /// A lying peer's rewrite of its own seat's frames (tests only; see [`Tamper`]).
    pub tamper: Option<Tamper>,
    /// The player chooses tables by hand ([`Network::host`], [`Network::sit`],
    /// [`Network::stand`]); the lobby never joins or opens one on its own (the desktop app).
    pub manual: bool,
    /// At a table this peer hosts: how long a silent seat is waited for before the others
    /// vote it out and a bot takes its seat (`None`: the preset's). Part of the options this
    /// peer agrees to, so at a table it joins too.
    pub disconnect_seconds: Option<u32>,
    /// Tests only: the own seat's bot never accepts a proposal, so the seat's own timer
    /// declines it after `start_seconds` (a player who misses the Accept).
    pub never_accept: bool,
    /// A lying host: proposes these options instead of the ones it advertised (tests only,
    /// to play a hostile peer through the real shell; `mahjong play` never sets it).
    pub lying_proposal: Option<Options>,
    /// A lying host: changes every roster before signing it (tests only, like
    /// [`NetConfig::lying_proposal`]).
    pub lying_roster: Option<fn(&mut Advert)>,
    /// Play over the internet: meet the friends who have the same table code through this
    /// relay (see [`Internet`]).
    pub internet: Option<Internet>,
    /// Try direct connections to friends reached through a relay (DCUtR hole punching); off
    /// only in tests that need a table the relay carries.
    pub hole_punching: bool,
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
}

impl Internet {
    /// Checks the relay's address: a TCP address (`/ip4/…` or `/ip6/…`; names are not
    /// resolved) ending in `/p2p/PEER`.
    pub fn new(relay: Multiaddr, code: TableCode) -> Result<Internet, String> {
        let Some(Protocol::P2p(relay_peer)) = relay.iter().last() else {
            return Err(format!(
                "the relay address {relay} does not end in /p2p/PEER_ID (the whole line `mahjong relay` prints)"
            ));
        };
        let mut parts = relay.iter();
        let host = matches!(parts.next(), Some(Protocol::Ip4(_) | Protocol::Ip6(_)));
        let tcp = matches!(parts.next(), Some(Protocol::Tcp(_)));
        let end = matches!(parts.next(), Some(Protocol::P2p(_))) && parts.next().is_none();
        if !(host && tcp && end) {
            return Err(format!(
                "the relay address {relay} is not of the form /ip4/ADDRESS/tcp/PORT/p2p/PEER_ID"
            ));
        }
        Ok(Internet {
            relay,
            relay_peer,
            code,
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
    /// own seat played by a strong bot.
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
            bot_level: Level::Strong,
            wire_version: wire::WIRE_VERSION,
            tamper: None,
            manual: false,
            disconnect_seconds: None,
            never_accept: false,
            lying_proposal: None,
            lying_roster: None,
            internet: None,
            hole_punching: true,
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
    RelayLost,
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
    Host(Box<TableSpec>, oneshot::Sender<Result<(), String>>),
    /// Ask for a seat at this table (manual lobby).
    Sit(TableId, oneshot::Sender<Result<(), String>>),
    /// Leave the table hosted or asked for, before it starts (manual lobby).
    Stand(oneshot::Sender<()>),
    /// Fill the hosted table's free seats with bots now (manual lobby).
    FillBots(oneshot::Sender<Result<(), String>>),
    /// Dial an address (the manual address field), kept and redialled like `--peer`.
    Dial(Multiaddr, oneshot::Sender<Result<(), String>>),
    /// How each connected friend is linked.
    Links(oneshot::Sender<Vec<(PeerId, Link)>>),
    /// Meet the friends of a table code at a relay from now on (see [`Network::meet`]).
    Meet(Box<Internet>, oneshot::Sender<Result<(), String>>),
}

/// The cheap cloneable handle of the event loop.
#[derive(Clone, Debug)]
pub struct Network {
    tx: mpsc::Sender<Command>,
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
    pub async fn host(&self, spec: TableSpec) -> Result<Result<(), String>, NetError> {
        self.call(|tx| Command::Host(Box::new(spec), tx)).await
    }

    /// Asks for a seat at `table`.
    pub async fn sit(&self, table: TableId) -> Result<Result<(), String>, NetError> {
        self.call(|tx| Command::Sit(table, tx)).await
    }

    /// Leaves the table hosted or asked for, before it starts.
    pub async fn stand(&self) -> Result<(), NetError> {
        self.call(Command::Stand).await
    }

    /// Fills the hosted table's free seats with bots (it starts).
    pub async fn fill_bots(&self) -> Result<Result<(), String>, NetError> {
        self.call(Command::FillBots).await
    }

    /// Dials `addr` now and keeps redialling it like a `--peer` address.
    pub async fn dial(&self, addr: Multiaddr) -> Result<Result<(), String>, NetError> {
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
    pub async fn meet(&self, internet: Internet) -> Result<Result<(), String>, NetError> {
        self.call(|tx| Command::Meet(Box::new(internet), tx)).await
    }

    /// How each connected friend is linked now: direct or through the relay.
    pub async fn links(&self) -> Result<Vec<(PeerId, Link)>, NetError> {
        self.call(Command::Links).await
    }

    /// Stops the loop (after the answer, the loop is gone).
    pub async fn shutdown(&self) -> Result<(), NetError> {
        self.call(Command::Shutdown).await
    }
}

#[derive(NetworkBehaviour)]
struct Behaviour {
    limits: connection_limits::Behaviour,
    identify: identify::Behaviour,
    mdns: Toggle<mdns::tokio::Behaviour>,
    stream: libp2p_stream::Behaviour,
    relay: relay::client::Behaviour,
    dcutr: Toggle<dcutr::Behaviour>,
    rendezvous: rendezvous::client::Behaviour,
}

fn yamux_config() -> yamux::Config {
    let mut c = yamux::Config::default();
    c.set_max_num_streams(MAX_STREAMS_PER_CONNECTION);
    c
}

/// The ed25519 key behind a peer id (every peer id of this protocol inlines its key).
pub fn peer_key(peer: &PeerId) -> Option<VerifyingKey> {
    let mh = peer.as_ref();
    if mh.code() != 0 {
        return None;
    }
    let pk = PublicKey::try_decode_protobuf(mh.digest()).ok()?;
    let ed = pk.try_into_ed25519().ok()?;
    VerifyingKey::from_bytes(&ed.to_bytes()).ok()
}

/// The peer id of an ed25519 key.
pub fn peer_id(key: &VerifyingKey) -> Option<PeerId> {
    let ed = libp2p::identity::ed25519::PublicKey::try_from_bytes(key.as_bytes()).ok()?;
    Some(PublicKey::from(ed).to_peer_id())
}

/// From a reader or writer task to the loop.
// At most `INBOUND_QUEUE` of them exist at once.
#[allow(clippy::large_enum_variant)]
enum Inbound {
    Message(PeerId, Wire, usize),
    Broken(PeerId, WireError),
    Unsupported(PeerId),
    /// A writer's stream failed (its connection closed, perhaps one of two).
    WriterDown(PeerId, u64),
}

/// The table this peer plays at: its seat host, the roster's seats, and the table's peers
/// whose connection is down (since when, ms, and whether their seats were reported silent).
struct Playing {
    host: Host,
    seats: [SeatInfo; 4],
    unreachable: HashMap<[u8; 32], (u64, bool)>,
}

#[derive(Default)]
struct PeerState {
    writer: Option<mpsc::Sender<Vec<u8>>>,
    /// Its inbound streams being read (each reader counts itself out when it ends).
    readers: Arc<AtomicU32>,
    generation: u64,
    window: u64,
    messages: u32,
    strays: u32,
}

struct Redial {
    at: Instant,
    backoff: Duration,
}

/// The task that owns the swarm, the lobby, the table clients and the store.
pub struct EventLoop {
    swarm: Swarm<Behaviour>,
    control: libp2p_stream::Control,
    protocol: StreamProtocol,
    version: String,
    identity: SigningKey,
    me: VerifyingKey,
    settings: Settings,
    own_bot: bool,
    bot_level: Level,
    lobby: Lobby,
    storage: Box<dyn Storage>,
    playing: Option<Playing>,
    peers: HashMap<PeerId, PeerState>,
    banned: HashMap<PeerId, u64>,
    addresses: HashMap<PeerId, Vec<Multiaddr>>,
    explicit: Vec<Multiaddr>,
    redial: HashMap<PeerId, Redial>,
    /// When this peer last repeated its lobby state to every connected peer (ms).
    last_advert: u64,
    explicit_redial: Vec<(Multiaddr, Redial)>,
    commands: mpsc::Receiver<Command>,
    events: mpsc::Sender<NetEvent>,
    /// Events the caller has not yet taken while its channel was full, in order: sent as it
    /// frees room (see `emit`).
    overflow: std::cell::RefCell<VecDeque<NetEvent>>,
    inbound_tx: mpsc::Sender<Inbound>,
    inbound: mpsc::Receiver<Inbound>,
    start: Instant,
    traffic: Traffic,
    seed: u64,
    tamper: Option<Tamper>,
    generations: u64,
    /// Protocol versions identify reported, by peer.
    versions: HashMap<PeerId, String>,
    /// Peers that refused the stream protocol before identify answered.
    unsupported: HashSet<PeerId>,
    /// Peers to disconnect at a time.
    hang_up: Vec<(PeerId, u64)>,
    /// The options this peer proposes as host ([`Command::Host`]; else its settings').
    proposal: Option<Options>,
    /// [`NetConfig::lying_proposal`] (tests only).
    lying_proposal: Option<Options>,
    /// The lobby is manual ([`NetConfig::manual`]).
    manual: bool,
    /// [`NetConfig::never_accept`].
    never_accept: bool,
    /// The lobby acted since the tables were last shown ([`NetEvent::Lobby`] at the next tick).
    lobby_dirty: bool,
    /// [`NetConfig::internet`], with the code's rendezvous namespace.
    internet: Option<(Internet, rendezvous::Namespace)>,
    /// The circuit listener on the relay, while it is up.
    relay_listener: Option<ListenerId>,
    /// The relay holds a reservation for this peer.
    reserved: bool,
    /// Registered under the code's namespace since the reservation.
    registered: bool,
    /// When the registration was last asked for (ms).
    last_register: u64,
    /// When the friends were last looked up (ms).
    last_discover: u64,
    /// Peers found under the code: when each was first seen (ms).
    code_peers: HashMap<PeerId, u64>,
    /// Every connection up, by peer: whether it is relayed.
    conns: HashMap<PeerId, HashMap<ConnectionId, bool>>,
    /// The link last told for each friend.
    links: HashMap<PeerId, Link>,
}

/// Starts the network on the current tokio runtime: the handle and the events.
pub fn spawn(
    config: NetConfig,
    storage: Box<dyn Storage>,
) -> Result<(Network, mpsc::Receiver<NetEvent>), NetError> {
    let (cmd_tx, cmd_rx) = mpsc::channel(64);
    let (ev_tx, ev_rx) = mpsc::channel(1024);
    let event_loop = EventLoop::new(config, storage, cmd_rx, ev_tx)?;
    tokio::spawn(event_loop.run());
    Ok((Network { tx: cmd_tx }, ev_rx))
}

fn transport(e: impl std::fmt::Display) -> NetError {
    NetError::Transport(e.to_string())
}

impl EventLoop {
    fn new(
        config: NetConfig,
        storage: Box<dyn Storage>,
        commands: mpsc::Receiver<Command>,
        events: mpsc::Sender<NetEvent>,
    ) -> Result<EventLoop, NetError> {
        let mut secret = config.identity.to_bytes();
        let keypair =
            libp2p::identity::Keypair::ed25519_from_bytes(&mut secret).map_err(transport)?;
        let version = if config.wire_version == wire::WIRE_VERSION {
            PROTOCOL_VERSION.to_string()
        } else {
            format!("shanghai-mahjong/{}", config.wire_version)
        };
        let protocol = if config.wire_version == wire::WIRE_VERSION {
            StreamProtocol::new(PROTOCOL)
        } else {
            StreamProtocol::try_from_owned(format!("/shanghai-mahjong/{}", config.wire_version))
                .map_err(transport)?
        };
        let use_mdns = config.mdns;
        let hole_punching = config.hole_punching;
        let ident_version = version.clone();
        let mut swarm = libp2p::SwarmBuilder::with_existing_identity(keypair)
            .with_tokio()
            .with_tcp(
                tcp::Config::default().nodelay(true),
                noise::Config::new,
                yamux_config,
            )
            .map_err(transport)?
            .with_relay_client(noise::Config::new, yamux_config)
            .map_err(transport)?
            .with_behaviour(|key, relay| {
                let mdns = if use_mdns {
                    Some(mdns::tokio::Behaviour::new(
                        mdns::Config {
                            query_interval: Duration::from_secs(5),
                            ..mdns::Config::default()
                        },
                        key.public().to_peer_id(),
                    )?)
                } else {
                    None
                };
                Ok(Behaviour {
                    limits: connection_limits::Behaviour::new(
                        connection_limits::ConnectionLimits::default()
                            .with_max_established_incoming(Some(MAX_INCOMING_CONNECTIONS))
                            .with_max_pending_incoming(Some(MAX_PENDING_CONNECTIONS))
                            .with_max_established_per_peer(Some(MAX_CONNECTIONS_PER_PEER))
                            .with_max_established(Some(MAX_CONNECTIONS)),
                    ),
                    identify: identify::Behaviour::new(
                        identify::Config::new(ident_version, key.public())
                            .with_agent_version(format!("mahjong/{}", env!("CARGO_PKG_VERSION"))),
                    ),
                    mdns: Toggle::from(mdns),
                    stream: libp2p_stream::Behaviour::new(),
                    relay,
                    dcutr: Toggle::from(
                        hole_punching.then(|| dcutr::Behaviour::new(key.public().to_peer_id())),
                    ),
                    rendezvous: rendezvous::client::Behaviour::new(key.clone()),
                })
            })
            .map_err(transport)?
            .with_swarm_config(|c| c.with_idle_connection_timeout(Duration::from_secs(3600)))
            .build();
        for addr in &config.listen {
            swarm.listen_on(addr.clone()).map_err(transport)?;
        }
        let control = swarm.behaviour().stream.new_control();
        let (inbound_tx, inbound) = mpsc::channel(INBOUND_QUEUE);
        let me = config.identity.verifying_key();
        let seed = u64::from_le_bytes(me.as_bytes()[..8].try_into().unwrap_or([0; 8]));
        let mut settings = config.settings;
        if let Some(d) = config.disconnect_seconds {
            settings.options.disconnect_seconds = d;
        }
        let internet = match config.internet {
            Some(i) => {
                let ns = rendezvous::Namespace::new(i.code.namespace()).map_err(transport)?;
                Some((i, ns))
            }
            None => None,
        };
        let mut explicit = config.peers.clone();
        // The relay is dialled at start and redialled like a `--peer`.
        if let Some((i, _)) = &internet {
            explicit.push(i.relay.clone());
        }
        let mut lobby = Lobby::new(config.identity.clone(), settings.clone(), 0);
        lobby.set_manual(config.manual);
        lobby.set_roster_tamper(config.lying_roster);
        Ok(EventLoop {
            lobby,
            swarm,
            control,
            protocol,
            version,
            identity: config.identity,
            me,
            settings,
            own_bot: config.own_bot,
            bot_level: config.bot_level,
            storage,
            playing: None,
            peers: HashMap::new(),
            banned: HashMap::new(),
            addresses: HashMap::new(),
            explicit,
            redial: HashMap::new(),
            last_advert: 0,
            explicit_redial: Vec::new(),
            commands,
            events,
            overflow: std::cell::RefCell::new(VecDeque::new()),
            inbound_tx,
            inbound,
            start: Instant::now(),
            traffic: Traffic::default(),
            seed,
            tamper: config.tamper,
            generations: 0,
            versions: HashMap::new(),
            unsupported: HashSet::new(),
            hang_up: Vec::new(),
            proposal: None,
            lying_proposal: config.lying_proposal,
            manual: config.manual,
            never_accept: config.never_accept,
            lobby_dirty: false,
            internet,
            relay_listener: None,
            reserved: false,
            registered: false,
            last_register: 0,
            last_discover: 0,
            code_peers: HashMap::new(),
            conns: HashMap::new(),
            links: HashMap::new(),
        })
    }

    fn now(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }

    /// Gives the caller an event. None is dropped while the caller reads on, however many
    /// come at once: when its channel is full they wait here, in order, and go out as it
    /// frees room (the loop's `reserve` branch); a newer lobby list replaces an older one
    /// still waiting. A caller that stopped reading (the receiver dropped) gets nothing, and
    /// one that has not read for [`MAX_OVERFLOW`] events loses the oldest, with a warning.
    fn emit(&self, ev: NetEvent) {
        let mut waiting = self.overflow.borrow_mut();
        let ev = if waiting.is_empty() {
            match self.events.try_send(ev) {
                Ok(()) | Err(mpsc::error::TrySendError::Closed(_)) => return,
                Err(mpsc::error::TrySendError::Full(ev)) => ev,
            }
        } else {
            ev
        };
        if matches!(ev, NetEvent::Lobby(_)) {
            waiting.retain(|e| !matches!(e, NetEvent::Lobby(_)));
        }
        if waiting.len() >= MAX_OVERFLOW {
            tracing::warn!("the caller has not read {MAX_OVERFLOW} events: the oldest is lost");
            waiting.pop_front();
        }
        waiting.push_back(ev);
    }

    /// Sends what waits in `overflow` while the channel takes it.
    fn flush_overflow(&self) {
        let mut waiting = self.overflow.borrow_mut();
        while let Some(ev) = waiting.pop_front() {
            match self.events.try_send(ev) {
                Ok(()) => {}
                Err(mpsc::error::TrySendError::Full(ev)) => {
                    waiting.push_front(ev);
                    return;
                }
                Err(mpsc::error::TrySendError::Closed(_)) => {
                    waiting.clear();
                    return;
                }
            }
        }
    }

    fn fatal(&mut self, why: String) {
        tracing::error!("{why}");
        let events = self.events.clone();
        tokio::spawn(async move {
            let _ = events.send(NetEvent::Fatal(why)).await;
        });
    }

    /// Runs until shut down or a fatal error.
    pub async fn run(mut self) {
        let mut incoming = match self.control.accept(self.protocol.clone()) {
            Ok(i) => i,
            Err(e) => {
                self.fatal(format!("cannot accept streams: {e}"));
                return;
            }
        };
        // The newest unfinished table is resumed; one that turns out to be over (a failed
        // set-up, an ended session not marked so) is marked finished and the next is tried.
        for _ in 0..MAX_OVER_TABLES_SKIPPED {
            match self.storage.resume() {
                Ok(Some(resume)) => match self.resume(resume) {
                    Ok(true) => break,
                    Ok(false) => continue,
                    Err(e) => {
                        self.fatal(e);
                        return;
                    }
                },
                Ok(None) => break,
                Err(e) => {
                    self.fatal(e.to_string());
                    return;
                }
            }
        }
        for addr in self.explicit.clone() {
            if let Err(e) = self.swarm.dial(addr.clone()) {
                tracing::warn!("dial {addr}: {e}");
            }
        }
        let mut lobby_tick = tokio::time::interval(Duration::from_millis(100));
        lobby_tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let events = self.events.clone();
        loop {
            let deadline = self.next_deadline();
            let sleep_until = match deadline {
                Some(d) => self.start + Duration::from_millis(d),
                None => Instant::now() + Duration::from_secs(3600),
            };
            let waiting = !self.overflow.borrow().is_empty();
            tokio::select! {
                // The caller made room for events that waited.
                room = events.reserve(), if waiting => match room {
                    Ok(permit) => {
                        if let Some(ev) = self.overflow.borrow_mut().pop_front() {
                            permit.send(ev);
                        }
                        self.flush_overflow();
                    }
                    // Nobody reads any more.
                    Err(_) => self.overflow.borrow_mut().clear(),
                },
                ev = self.swarm.select_next_some() => self.on_swarm(ev),
                cmd = self.commands.recv() => match cmd {
                    Some(Command::Shutdown(tx)) => {
                        let _ = tx.send(());
                        return;
                    }
                    Some(Command::Quit(tx)) => {
                        if self.say_leave() {
                            self.until_left(Duration::from_millis(LEAVE_BOOK_MS)).await;
                        }
                        let _ = tx.send(());
                        return;
                    }
                    Some(c) => self.on_command(c),
                    None => return,
                },
                Some((peer, stream)) = incoming.next() => self.on_stream(peer, stream),
                Some(msg) = self.inbound.recv() => self.on_inbound(msg),
                // A seat's timer or a bot's move is due: the pump below runs it.
                _ = tokio::time::sleep_until(sleep_until) => {}
                _ = lobby_tick.tick() => self.on_tick(),
            }
            if let Err(e) = self.pump() {
                // This peer cannot go on (its store failed: a full disk): it says so with a
                // signed leave, so the others replace its seats now rather than after the
                // disconnect limit.
                if self.say_leave() {
                    self.linger(Duration::from_millis(LEAVE_FLUSH_MS)).await;
                }
                self.fatal(e);
                return;
            }
        }
    }

    /// Every seat this peer runs at a table not over leaves: the client's signed leave (a
    /// vote against itself during a hand, a decline at the set-up) goes straight to the
    /// others' peers. Its journal records are kept if the store still takes them. Whether
    /// anything was sent, or a seat's leave waits for the next hand (its settlement was
    /// signed already): either way the loop must run on a little for the others to hear it.
    fn say_leave(&mut self) -> bool {
        let now = self.now();
        let Some(p) = self.playing.as_mut() else {
            return false;
        };
        if p.host.is_over() {
            return false;
        }
        let table = p.host.table();
        // A seat whose settlement is signed leaves at the next hand's first step: nothing
        // goes out now, but the loop must run on until it does.
        let (out, deferred) = p.host.leave_all(now);
        for d in &out.durable {
            if let Durable::Append { seat, records } = d
                && let Err(e) = self.storage.append(&table, *seat, records)
            {
                tracing::warn!("seat {seat} leaves without its journal: {e}");
            }
        }
        let mut sent = false;
        for s in out.send {
            let Some(id) = peer_id(&s.peer) else {
                continue;
            };
            self.send_to(
                &id,
                &Wire::Frame {
                    table,
                    to: s.to,
                    bytes: s.frame,
                },
            );
            sent = true;
        }
        tracing::info!("left table {}", hex(&table));
        sent || deferred
    }

    /// After this peer's leave: the table goes on as usual (frames in, store, timers) until
    /// every seat this peer ran is over (the others aborted its hand, which it books as they
    /// do) or `time` passed. The lobby is not served meanwhile.
    async fn until_left(&mut self, time: Duration) {
        let until = Instant::now() + time;
        loop {
            let done = self.playing.as_ref().is_none_or(|p| p.host.all_over());
            if done {
                return;
            }
            let next = self.next_deadline().map_or(until, |d| {
                (self.start + Duration::from_millis(d)).min(until)
            });
            tokio::select! {
                ev = self.swarm.select_next_some() => self.on_swarm(ev),
                Some(msg) = self.inbound.recv() => self.on_inbound(msg),
                _ = tokio::time::sleep_until(next) => {
                    if Instant::now() >= until {
                        return;
                    }
                }
            }
            if self.pump().is_err() {
                return;
            }
        }
    }

    /// Keeps the connections going for `time` (the writers flush what was queued); what
    /// comes in meanwhile is dropped.
    async fn linger(&mut self, time: Duration) {
        let until = Instant::now() + time;
        loop {
            tokio::select! {
                _ = self.swarm.select_next_some() => {}
                Some(_) = self.inbound.recv() => {}
                _ = tokio::time::sleep_until(until) => return,
            }
        }
    }

    // ---- connections ----

    fn on_swarm(&mut self, ev: SwarmEvent<BehaviourEvent>) {
        match ev {
            SwarmEvent::NewListenAddr { address, .. } => {
                let me = *self.swarm.local_peer_id();
                // A relayed address ends in this peer's id already.
                let full = if address.iter().last() == Some(Protocol::P2p(me)) {
                    address
                } else {
                    address.with(Protocol::P2p(me))
                };
                tracing::info!("listening on {full}");
                self.emit(NetEvent::Listening(full));
            }
            SwarmEvent::ConnectionEstablished {
                peer_id,
                connection_id,
                endpoint,
                ..
            } => {
                if self
                    .banned
                    .get(&peer_id)
                    .is_some_and(|&until| until > self.now())
                {
                    let _ = self.swarm.disconnect_peer_id(peer_id);
                    return;
                }
                self.conns
                    .entry(peer_id)
                    .or_default()
                    .insert(connection_id, endpoint.is_relayed());
                self.redial.remove(&peer_id);
                let addr = endpoint.get_remote_address().clone();
                if endpoint.is_dialer() {
                    let known = self.addresses.entry(peer_id).or_default();
                    if !known.contains(&addr) && known.len() < 8 {
                        known.push(addr.clone());
                    }
                    self.explicit_redial.retain(|(a, _)| a != &addr);
                }
                if self.is_relay(&peer_id) {
                    self.relay_connected();
                    return;
                }
                if self.internet.is_some() {
                    let how = if endpoint.is_relayed() {
                        "relayed"
                    } else {
                        "direct"
                    };
                    tracing::info!("{how} connection to {peer_id}: {addr}");
                }
                self.prefer_direct(peer_id);
                if !self.admitted(&peer_id) {
                    // Not (yet) found under the table code: no lobby with it. Look the
                    // friends up again now, in case it has just registered.
                    tracing::debug!("{peer_id} connected, not found under the table code");
                    self.last_discover = 0;
                    return;
                }
                if self.peers.get(&peer_id).is_some_and(|p| p.writer.is_some()) {
                    self.update_link(peer_id);
                    return;
                }
                self.admit(peer_id);
            }
            SwarmEvent::ConnectionClosed {
                peer_id,
                connection_id,
                endpoint,
                num_established,
                ..
            } => {
                if let Some(c) = self.conns.get_mut(&peer_id) {
                    c.remove(&connection_id);
                    if c.is_empty() {
                        self.conns.remove(&peer_id);
                    }
                }
                if self.is_relay(&peer_id) {
                    if num_established == 0 {
                        tracing::warn!("lost the relay {peer_id}: redialling it");
                        // Its circuit listener goes with it; a new one is made when the relay
                        // is back.
                        if let Some(id) = self.relay_listener.take() {
                            self.swarm.remove_listener(id);
                        }
                        self.reserved = false;
                        self.registered = false;
                        self.emit(NetEvent::RelayLost);
                    }
                    return;
                }
                if num_established > 0 {
                    // The relayed connection closed and a direct one is up: the writer may
                    // have been on the relayed one, so write over the other from now on (and
                    // say again what may have been lost with the old stream).
                    if endpoint.is_relayed()
                        && self.peers.get(&peer_id).is_some_and(|p| p.writer.is_some())
                    {
                        self.open_writer(peer_id);
                        self.greet(peer_id);
                    }
                    self.update_link(peer_id);
                    return;
                }
                self.links.remove(&peer_id);
                tracing::info!("disconnected from {peer_id}");
                if let (Some(key), Some(p)) = (peer_key(&peer_id), self.playing.as_mut())
                    && !p.host.is_over()
                    && key != self.me
                    && !p.host.seats_of(&key).is_empty()
                {
                    let now = self.start.elapsed().as_millis() as u64;
                    p.unreachable.entry(*key.as_bytes()).or_insert((now, false));
                }
                self.peers.remove(&peer_id);
                self.versions.remove(&peer_id);
                if self.unsupported.remove(&peer_id) {
                    let theirs = format!("a protocol without {}", self.protocol.as_ref());
                    self.incompatible(peer_id, theirs);
                }
                self.emit(NetEvent::Disconnected(peer_id));
                if let Some(key) = peer_key(&peer_id) {
                    let now = self.now();
                    let acts = self.lobby.disconnected(key, now);
                    self.lobby_actions(acts);
                }
                if self.addresses.contains_key(&peer_id) && !self.banned.contains_key(&peer_id) {
                    self.redial.insert(
                        peer_id,
                        Redial {
                            at: Instant::now() + Duration::from_millis(250),
                            backoff: Duration::from_millis(250),
                        },
                    );
                }
            }
            SwarmEvent::OutgoingConnectionError { peer_id, error, .. } => {
                tracing::debug!("dial failed ({peer_id:?}): {error}");
                if let Some(p) = peer_id {
                    if let Some(r) = self.redial.get_mut(&p) {
                        r.backoff = (r.backoff * 2).min(Duration::from_secs(8));
                        r.at = Instant::now() + r.backoff;
                    } else if self.addresses.contains_key(&p)
                        && !self.swarm.is_connected(&p)
                        && !self.banned.contains_key(&p)
                    {
                        // A first dial can fail (two peers that found each other by mDNS at
                        // the same moment dial each other, and both handshakes may fail);
                        // mDNS reports a peer once, so retry here, each side after its own
                        // delay so the two retries do not meet again.
                        let jitter = u64::from(p.to_bytes().last().copied().unwrap_or(0));
                        let backoff = Duration::from_millis(250 + jitter);
                        self.redial.insert(
                            p,
                            Redial {
                                at: Instant::now() + backoff,
                                backoff,
                            },
                        );
                    }
                }
            }
            SwarmEvent::Behaviour(BehaviourEvent::Mdns(mdns::Event::Discovered(list))) => {
                for (peer, addr) in list {
                    if self.banned.get(&peer).is_some_and(|&u| u > self.now()) {
                        continue;
                    }
                    let known = self.addresses.entry(peer).or_default();
                    if !known.contains(&addr) && known.len() < 8 {
                        known.push(addr.clone());
                    }
                    if !self.swarm.is_connected(&peer) {
                        let opts = DialOpts::peer_id(peer)
                            .addresses(vec![addr])
                            .condition(PeerCondition::DisconnectedAndNotDialing)
                            .build();
                        if let Err(e) = self.swarm.dial(opts) {
                            tracing::debug!("dial {peer}: {e}");
                        }
                    }
                }
            }
            SwarmEvent::Behaviour(BehaviourEvent::Identify(identify::Event::Received {
                peer_id,
                info,
                ..
            })) => {
                if self.is_relay(&peer_id) {
                    // The relay speaks no table protocol: not a peer of another version.
                    return;
                }
                if self.versions.len() < 1024 {
                    self.versions.insert(peer_id, info.protocol_version.clone());
                }
                if info.protocol_version != self.version || self.unsupported.remove(&peer_id) {
                    self.incompatible(peer_id, info.protocol_version);
                }
            }
            SwarmEvent::ListenerClosed { listener_id, .. }
                if Some(listener_id) == self.relay_listener =>
            {
                self.relay_listener = None;
                self.reserved = false;
                self.registered = false;
            }
            SwarmEvent::Behaviour(BehaviourEvent::Relay(
                relay::client::Event::ReservationReqAccepted {
                    relay_peer_id,
                    renewal: false,
                    ..
                },
            )) if self.is_relay(&relay_peer_id) => {
                let me = *self.swarm.local_peer_id();
                if let Some((i, _)) = &self.internet {
                    let addr = i
                        .relay
                        .clone()
                        .with(Protocol::P2pCircuit)
                        .with(Protocol::P2p(me));
                    tracing::info!("the relay holds a reservation: reachable at {addr}");
                    self.emit(NetEvent::RelayReserved(addr));
                }
                self.reserved = true;
                self.registered = false;
                self.last_register = 0;
                self.register();
            }
            SwarmEvent::Behaviour(BehaviourEvent::Relay(ev)) => {
                tracing::debug!("relay: {ev:?}");
            }
            SwarmEvent::Behaviour(BehaviourEvent::Dcutr(dcutr::Event {
                remote_peer_id,
                result,
            })) => match result {
                Ok(_) => tracing::info!("hole punched: a direct connection to {remote_peer_id}"),
                Err(e) => tracing::info!("no direct connection to {remote_peer_id}: {e}"),
            },
            SwarmEvent::Behaviour(BehaviourEvent::Rendezvous(ev)) => self.on_rendezvous(ev),
            _ => {}
        }
    }

    // ---- over the internet: the relay, the table code, direct or relayed links ----

    /// Switches to (another) table code and relay while running.
    fn meet(&mut self, internet: Internet) -> Result<(), String> {
        let ns =
            rendezvous::Namespace::new(internet.code.namespace()).map_err(|e| e.to_string())?;
        if let Some((old, old_ns)) = self.internet.take() {
            let relay = old.relay_peer;
            if self.swarm.is_connected(&relay) {
                self.swarm
                    .behaviour_mut()
                    .rendezvous
                    .unregister(old_ns, relay);
            }
            if old.relay != internet.relay {
                self.explicit.retain(|a| a != &old.relay);
                self.explicit_redial.retain(|(a, _)| a != &old.relay);
                if let Some(id) = self.relay_listener.take() {
                    self.swarm.remove_listener(id);
                }
                self.reserved = false;
                let _ = self.swarm.disconnect_peer_id(relay);
            }
        }
        self.code_peers.clear();
        self.registered = false;
        self.last_register = 0;
        self.last_discover = 0;
        let relay = internet.relay.clone();
        let relay_peer = internet.relay_peer;
        tracing::info!(
            "meeting the friends of table code {} at {relay}",
            internet.code
        );
        self.internet = Some((internet, ns));
        // Peers in the lobby that are not (yet) found under the code leave it.
        let others: Vec<PeerId> = self
            .peers
            .iter()
            .filter(|(_, s)| s.writer.is_some())
            .map(|(p, _)| *p)
            .filter(|p| !self.admitted(p))
            .collect();
        let now = self.now();
        for peer in others {
            self.peers.remove(&peer);
            self.links.remove(&peer);
            self.emit(NetEvent::Disconnected(peer));
            if let Some(key) = peer_key(&peer) {
                let acts = self.lobby.disconnected(key, now);
                self.lobby_actions(acts);
            }
        }
        if !self.explicit.contains(&relay) {
            self.explicit.push(relay.clone());
        }
        if self.swarm.is_connected(&relay_peer) {
            if self.reserved {
                self.register();
            } else {
                self.relay_connected();
            }
        } else if let Err(e) = self.swarm.dial(relay.clone()) {
            tracing::warn!("dial the relay {relay}: {e}");
        }
        Ok(())
    }

    fn is_relay(&self, peer: &PeerId) -> bool {
        self.internet
            .as_ref()
            .is_some_and(|(i, _)| i.relay_peer == *peer)
    }

    /// Whether a connected peer takes part in the lobby: on a LAN every peer; with a table
    /// code, the peers found under it and those of the table this peer sits at.
    fn admitted(&self, peer: &PeerId) -> bool {
        if self.internet.is_none() {
            return true;
        }
        if self.is_relay(peer) {
            return false;
        }
        self.code_peers.contains_key(peer)
            || peer_key(peer).is_some_and(|k| {
                self.playing
                    .as_ref()
                    .is_some_and(|p| p.seats.iter().any(|s| s.peer == k))
            })
    }

    /// A peer of the lobby from now on: a writer, a hello, the lobby's state.
    fn admit(&mut self, peer: PeerId) {
        tracing::info!("connected to {peer}");
        self.reachable(peer);
        self.open_writer(peer);
        self.emit(NetEvent::Connected(peer));
        self.greet(peer);
        self.update_link(peer);
    }

    /// Connected to the relay: reserve a relayed address on it (once per connection).
    fn relay_connected(&mut self) {
        if self.relay_listener.is_some() {
            return;
        }
        let Some((i, _)) = &self.internet else {
            return;
        };
        let circuit = i.relay.clone().with(Protocol::P2pCircuit);
        match self.swarm.listen_on(circuit.clone()) {
            Ok(id) => self.relay_listener = Some(id),
            Err(e) => tracing::warn!("cannot listen on {circuit}: {e}"),
        }
    }

    /// Registers the relayed address under the code's namespace.
    fn register(&mut self) {
        let now = self.now();
        let Some((i, ns)) = &self.internet else {
            return;
        };
        let (relay, ns) = (i.relay_peer, ns.clone());
        self.last_register = now;
        if let Err(e) = self
            .swarm
            .behaviour_mut()
            .rendezvous
            .register(ns, relay, None)
        {
            tracing::debug!("rendezvous registration not yet possible: {e}");
        }
    }

    fn on_rendezvous(&mut self, ev: rendezvous::client::Event) {
        match ev {
            rendezvous::client::Event::Registered { ttl, .. } => {
                tracing::info!("registered under the table code for {ttl} s");
                self.registered = true;
                self.last_discover = 0;
            }
            rendezvous::client::Event::RegisterFailed { error, .. } => {
                tracing::warn!("the relay refused the registration: {error:?}");
            }
            rendezvous::client::Event::Discovered { registrations, .. } => {
                let me = *self.swarm.local_peer_id();
                let now = self.now();
                for reg in registrations {
                    let peer = reg.record.peer_id();
                    if peer == me || self.is_relay(&peer) {
                        continue;
                    }
                    if !self.code_peers.contains_key(&peer) {
                        if self.code_peers.len() >= MAX_CODE_PEERS {
                            continue;
                        }
                        tracing::info!("found {peer} under the table code");
                        self.code_peers.insert(peer, now);
                    }
                    let known = self.addresses.entry(peer).or_default();
                    for a in reg.record.addresses() {
                        if !known.contains(a) && known.len() < 8 {
                            known.push(a.clone());
                        }
                    }
                    if self.banned.get(&peer).is_some_and(|&u| u > now) {
                        continue;
                    }
                    if self.swarm.is_connected(&peer) {
                        if self.peers.get(&peer).is_none_or(|p| p.writer.is_none()) {
                            self.admit(peer);
                        }
                    } else if me < peer {
                        // One circuit per pair: the lower peer id dials.
                        self.dial_friend(peer);
                    }
                }
            }
            rendezvous::client::Event::DiscoverFailed { error, .. } => {
                tracing::debug!("looking the friends up failed: {error:?}");
            }
            rendezvous::client::Event::Expired { .. } => {}
        }
    }

    fn dial_friend(&mut self, peer: PeerId) {
        let addrs = self.addresses.get(&peer).cloned().unwrap_or_default();
        let opts = DialOpts::peer_id(peer)
            .addresses(addrs)
            .condition(PeerCondition::DisconnectedAndNotDialing)
            .build();
        if let Err(e) = self.swarm.dial(opts) {
            tracing::debug!("dial {peer}: {e}");
        }
    }

    /// The relay's part of the lobby tick: register when due, look the friends up, and dial
    /// a friend the lower peer id has not dialled within [`CODE_DIAL_GRACE_MS`].
    fn internet_tick(&mut self, now: u64) {
        let Some((i, ns)) = self.internet.clone() else {
            return;
        };
        if !self.reserved {
            return;
        }
        if !self.registered && now >= self.last_register + 3000 {
            self.register();
        }
        let every = if self.playing.is_some() {
            DISCOVER_PLAYING_MS
        } else {
            DISCOVER_LOBBY_MS
        };
        if self.registered && (self.last_discover == 0 || now >= self.last_discover + every) {
            self.last_discover = now;
            self.swarm.behaviour_mut().rendezvous.discover(
                Some(ns),
                None,
                Some(MAX_CODE_PEERS as u64),
                i.relay_peer,
            );
        }
        let me = *self.swarm.local_peer_id();
        let late: Vec<PeerId> = self
            .code_peers
            .iter()
            .filter(|(p, since)| {
                me > **p
                    && now >= **since + CODE_DIAL_GRACE_MS
                    && !self.swarm.is_connected(p)
                    && !self.redial.contains_key(p)
                    && self.banned.get(p).is_none_or(|&u| u <= now)
            })
            .map(|(p, _)| *p)
            .collect();
        for peer in late {
            self.redial.insert(
                peer,
                Redial {
                    at: Instant::now(),
                    backoff: Duration::from_millis(500),
                },
            );
        }
    }

    /// A direct connection to `peer` is up: its relayed ones are closed, so that the table's
    /// bytes no longer go through the relay.
    fn prefer_direct(&mut self, peer: PeerId) {
        let Some(c) = self.conns.get(&peer) else {
            return;
        };
        if !c.values().any(|relayed| !relayed) {
            return;
        }
        let relayed: Vec<ConnectionId> = c
            .iter()
            .filter(|(_, relayed)| **relayed)
            .map(|(id, _)| *id)
            .collect();
        for id in relayed {
            tracing::debug!("closing the relayed connection to {peer}: a direct one is up");
            self.swarm.close_connection(id);
        }
    }

    /// Tells how a friend is linked when that changed.
    fn update_link(&mut self, peer: PeerId) {
        let Some(c) = self.conns.get(&peer) else {
            self.links.remove(&peer);
            return;
        };
        let link = if c.values().any(|relayed| !relayed) {
            Link::Direct
        } else {
            Link::Relayed
        };
        if self.links.get(&peer) != Some(&link) && self.links.len() < 1024 {
            self.links.insert(peer, link);
            tracing::info!("link to {peer}: {link:?}");
            self.emit(NetEvent::Link { peer, link });
        }
    }

    fn incompatible(&mut self, peer: PeerId, theirs: String) {
        if self.banned.get(&peer).is_some_and(|&u| u > self.now()) {
            return; // told already
        }
        tracing::warn!(
            "peer {peer} speaks {theirs}, this peer speaks {}: both must run the same version of mahjong",
            self.version
        );
        self.emit(NetEvent::Incompatible { peer, theirs });
        // Ignore it from now on, but let identify reach it before hanging up, so that it
        // can tell its own user which version this peer speaks.
        let now = self.now();
        self.banned.insert(peer, now + BAN_MS);
        self.redial.remove(&peer);
        self.hang_up.push((peer, now + 2000));
    }

    fn ban(&mut self, peer: PeerId) {
        let until = self.now() + BAN_MS;
        self.banned.insert(peer, until);
        self.redial.remove(&peer);
        self.peers.remove(&peer);
        let _ = self.swarm.disconnect_peer_id(peer);
    }

    fn misbehaved(&mut self, peer: PeerId, why: String) {
        tracing::warn!("peer {peer} disconnected: {why}");
        self.emit(NetEvent::Misbehaved { peer, why });
        self.ban(peer);
    }

    /// Says hello to a peer and tells it of the table this peer hosts, if any.
    fn greet(&mut self, peer: PeerId) {
        if let Some(key) = peer_key(&peer) {
            let hello = Wire::Hello {
                version: wire::WIRE_VERSION,
                name: self.settings.name.clone(),
            };
            self.send_to(&peer, &hello);
            let acts = self.lobby.connected(key);
            self.lobby_actions(acts);
        }
    }

    fn open_writer(&mut self, peer: PeerId) {
        let (tx, mut rx) = mpsc::channel::<Vec<u8>>(SEND_QUEUE);
        self.generations += 1;
        let generation = self.generations;
        let state = self.peers.entry(peer).or_default();
        state.writer = Some(tx);
        state.generation = generation;
        let mut control = self.control.clone();
        let protocol = self.protocol.clone();
        let report = self.inbound_tx.clone();
        tokio::spawn(async move {
            let mut stream = match control.open_stream(peer, protocol).await {
                Ok(s) => s,
                Err(libp2p_stream::OpenStreamError::UnsupportedProtocol(_)) => {
                    let _ = report.send(Inbound::Unsupported(peer)).await;
                    return;
                }
                Err(e) => {
                    tracing::debug!("stream to {peer}: {e}");
                    let _ = report.send(Inbound::WriterDown(peer, generation)).await;
                    return;
                }
            };
            while let Some(bytes) = rx.recv().await {
                if let Err(e) = wire::write_message(&mut stream, &bytes).await {
                    tracing::debug!("write to {peer}: {e}");
                    let _ = report.send(Inbound::WriterDown(peer, generation)).await;
                    return;
                }
            }
        });
    }

    fn on_stream(&mut self, peer: PeerId, mut stream: libp2p::Stream) {
        let readers = self.peers.entry(peer).or_default().readers.clone();
        if readers.load(Ordering::SeqCst) >= MAX_STREAMS_PER_PEER {
            // A peer writes over one stream (two while a connection is replaced): more are
            // refused, so that streams cannot pile up partly received messages.
            tracing::debug!("{peer} opened more than {MAX_STREAMS_PER_PEER} streams: one dropped");
            return;
        }
        readers.fetch_add(1, Ordering::SeqCst);
        let report = self.inbound_tx.clone();
        tokio::spawn(async move {
            // Counts the reader out however it ends.
            struct Done(Arc<AtomicU32>);
            impl Drop for Done {
                fn drop(&mut self) {
                    self.0.fetch_sub(1, Ordering::SeqCst);
                }
            }
            let _done = Done(readers);
            loop {
                match wire::read_message_within(&mut stream, wire::READ_DEADLINE).await {
                    Ok(Some((wire, size))) => {
                        if report
                            .send(Inbound::Message(peer, wire, size))
                            .await
                            .is_err()
                        {
                            return;
                        }
                    }
                    Ok(None) => return,
                    Err(WireError::Io(e)) => {
                        tracing::debug!("read from {peer}: {e}");
                        return;
                    }
                    Err(e) => {
                        let _ = report.send(Inbound::Broken(peer, e)).await;
                        return;
                    }
                }
            }
        });
    }

    fn send_to(&mut self, peer: &PeerId, wire: &Wire) {
        let bytes = wire.encode();
        if bytes.len() > MAX_MESSAGE {
            tracing::error!("refusing to send a {}-byte message", bytes.len());
            return;
        }
        if let Some(w) = self.peers.get(peer).and_then(|p| p.writer.as_ref()) {
            let len = bytes.len() as u64 + 4;
            if w.try_send(bytes).is_ok() {
                self.traffic.messages_out += 1;
                self.traffic.bytes_out += len;
            } else {
                tracing::debug!("send queue to {peer} full: message dropped");
            }
        }
    }

    fn on_inbound(&mut self, msg: Inbound) {
        match msg {
            Inbound::Unsupported(peer) => self.incompatible(
                peer,
                "a protocol without ".to_string() + self.protocol.as_ref(),
            ),
            Inbound::Broken(peer, e) => self.misbehaved(peer, e.to_string()),
            Inbound::WriterDown(peer, generation) => {
                let current = self.peers.get(&peer).map(|p| p.generation);
                if current == Some(generation) {
                    if self.swarm.is_connected(&peer) {
                        // Another connection to the peer is up: write over it, and say again
                        // what may have been lost with the old stream.
                        self.open_writer(peer);
                        self.greet(peer);
                    } else if let Some(p) = self.peers.get_mut(&peer) {
                        p.writer = None;
                    }
                }
            }
            Inbound::Message(peer, wire, size) => {
                if self.banned.get(&peer).is_some_and(|&u| u > self.now()) {
                    return;
                }
                self.traffic.messages_in += 1;
                self.traffic.bytes_in += size as u64 + 4;
                let now = self.now();
                let state = self.peers.entry(peer).or_default();
                if now / 1000 != state.window {
                    state.window = now / 1000;
                    state.messages = 0;
                    state.strays = 0;
                }
                state.messages += 1;
                if state.messages > MAX_MESSAGES_PER_SECOND {
                    self.misbehaved(
                        peer,
                        format!("more than {MAX_MESSAGES_PER_SECOND} messages a second"),
                    );
                    return;
                }
                let Some(key) = peer_key(&peer) else {
                    self.misbehaved(peer, "its peer id holds no ed25519 key".into());
                    return;
                };
                match wire {
                    Wire::Hello { version, .. } if version != wire::WIRE_VERSION => {
                        self.incompatible(peer, format!("shanghai-mahjong/{version}"));
                    }
                    Wire::Hello { .. } => {}
                    Wire::Frame { table, to, bytes } => self.on_frame(peer, key, table, to, bytes),
                    // A peer not found under the table code takes no part in the lobby.
                    _ if !self.admitted(&peer) => {}
                    other => {
                        let acts = self.lobby.message(key, other, now);
                        self.lobby_actions(acts);
                    }
                }
            }
        }
    }

    fn on_frame(
        &mut self,
        peer: PeerId,
        key: VerifyingKey,
        table: TableId,
        to: u8,
        bytes: Vec<u8>,
    ) {
        let now = self.start.elapsed().as_millis() as u64;
        // A frame of this table from one of its peers (the seat host follows a player back
        // after a bot took its seat; it never counts a frame of the table as a stray).
        let ours = self
            .playing
            .as_mut()
            .is_some_and(|p| p.host.table() == table && p.host.frame(now, &key, to, bytes));
        if !ours {
            let state = self.peers.entry(peer).or_default();
            state.strays += 1;
            if state.strays > MAX_STRAY_FRAMES_PER_SECOND {
                self.misbehaved(
                    peer,
                    format!("more than {MAX_STRAY_FRAMES_PER_SECOND} frames a second for a table it does not share"),
                );
            }
        }
    }

    /// A peer of this table connected again: its seats, reported silent, have returned.
    fn reachable(&mut self, peer: PeerId) {
        let Some(key) = peer_key(&peer) else {
            return;
        };
        let Some(p) = self.playing.as_mut() else {
            return;
        };
        if let Some((_, true)) = p.unreachable.remove(key.as_bytes()) {
            for seat in p.host.seats_of(&key) {
                self.emit(NetEvent::Table(TableEvent::SeatReturned { seat }));
            }
        }
    }

    /// Seats whose peer's connection has been down for [`PEER_SILENT_MS`]: reported silent.
    fn report_unreachable(&mut self, now: u64) {
        let Some(p) = self.playing.as_mut() else {
            return;
        };
        if p.host.is_over() {
            return;
        }
        let mut silent = Vec::new();
        for (peer, (since, told)) in p.unreachable.iter_mut() {
            if !*told && now >= *since + PEER_SILENT_MS {
                *told = true;
                if let Ok(key) = VerifyingKey::from_bytes(peer) {
                    silent.extend(p.host.seats_of(&key));
                }
            }
        }
        for seat in silent {
            self.emit(NetEvent::Table(TableEvent::SeatSilent { seat }));
        }
    }

    fn on_tick(&mut self) {
        let now = self.now();
        self.report_unreachable(now);
        self.internet_tick(now);
        if self
            .playing
            .as_ref()
            .and_then(|p| p.host.failed_at())
            .is_some_and(|t| now >= t + LINGER_AFTER_FAILED_SETUP_MS)
        {
            self.back_to_lobby(now);
        }
        if let Some(p) = self.playing.as_mut()
            && p.host.has_pending_bots()
        {
            let out = p.host.retry_bots();
            if let Err(e) = self.apply(out) {
                self.fatal(e);
            }
        }
        let due: Vec<PeerId> = self
            .hang_up
            .iter()
            .filter(|(_, at)| *at <= now)
            .map(|(p, _)| *p)
            .collect();
        self.hang_up.retain(|(_, at)| *at > now);
        for peer in due {
            self.peers.remove(&peer);
            let _ = self.swarm.disconnect_peer_id(peer);
        }
        let now_i = Instant::now();
        let due: Vec<PeerId> = self
            .redial
            .iter()
            .filter(|(_, r)| r.at <= now_i)
            .map(|(p, _)| *p)
            .collect();
        for peer in due {
            if self.swarm.is_connected(&peer) {
                self.redial.remove(&peer);
                continue;
            }
            let addrs = self.addresses.get(&peer).cloned().unwrap_or_default();
            let opts = DialOpts::peer_id(peer)
                .addresses(addrs)
                .condition(PeerCondition::DisconnectedAndNotDialing)
                .build();
            let _ = self.swarm.dial(opts);
            if let Some(r) = self.redial.get_mut(&peer) {
                r.backoff = (r.backoff * 2).min(Duration::from_secs(8));
                r.at = now_i + r.backoff;
            }
        }
        // Explicit addresses whose peer is not connected: redial with back-off.
        let connected_addrs: HashSet<Multiaddr> = self
            .addresses
            .iter()
            .filter(|(p, _)| self.swarm.is_connected(p))
            .flat_map(|(_, a)| a.iter().cloned())
            .collect();
        for addr in self.explicit.clone() {
            let bare: Multiaddr = addr
                .iter()
                .filter(|p| !matches!(p, Protocol::P2p(_)))
                .collect();
            if connected_addrs.contains(&addr) || connected_addrs.contains(&bare) {
                continue;
            }
            match self.explicit_redial.iter_mut().find(|(a, _)| a == &addr) {
                Some((_, r)) if r.at <= now_i => {
                    let _ = self.swarm.dial(addr.clone());
                    r.backoff = (r.backoff * 2).min(Duration::from_secs(8));
                    r.at = now_i + r.backoff;
                }
                Some(_) => {}
                None => self.explicit_redial.push((
                    addr,
                    Redial {
                        at: now_i + Duration::from_millis(500),
                        backoff: Duration::from_millis(500),
                    },
                )),
            }
        }
        if self.playing.is_none() {
            let now = self.now();
            if now >= self.last_advert + ADVERT_REPEAT_MS {
                // Repeat the hosted table to every peer: an advert sent over a stream whose
                // connection died (two connections to one peer, one closed) is lost, and
                // nothing else would tell that peer of the table.
                self.last_advert = now;
                let peers: Vec<PeerId> = self.peers.keys().copied().collect();
                for peer in peers {
                    if let Some(key) = peer_key(&peer) {
                        let acts = self.lobby.connected(key);
                        self.lobby_actions(acts);
                    }
                }
            }
            let acts = self.lobby.tick(now);
            self.lobby_actions(acts);
            // The tables, shown at most once a tick and only when they changed (a flood of
            // lobby messages costs no copies of them).
            if std::mem::take(&mut self.lobby_dirty) | self.lobby.take_changed()
                && self.playing.is_none()
            {
                self.emit(NetEvent::Lobby(self.lobby.tables()));
            }
        }
    }

    /// The table is over: back in the lobby, free to open or take another table.
    fn back_to_lobby(&mut self, now: u64) {
        self.playing = None;
        self.proposal = None;
        self.lobby = Lobby::new(self.identity.clone(), self.settings.clone(), now);
        self.lobby.set_manual(self.manual);
        self.emit(NetEvent::Lobby(self.lobby.tables()));
    }

    fn lobby_actions(&mut self, actions: Vec<Action>) {
        self.lobby_dirty |= !actions.is_empty();
        for a in actions {
            match a {
                Action::Broadcast(w) => {
                    let peers: Vec<PeerId> = self.peers.keys().copied().collect();
                    for p in peers {
                        self.send_to(&p, &w);
                    }
                }
                Action::Send(key, w) => {
                    if let Some(p) = peer_id(&key) {
                        self.send_to(&p, &w);
                    }
                }
                Action::Begin(roster) => {
                    if let Err(e) = self.begin(*roster) {
                        self.fatal(e);
                    }
                }
            }
        }
    }

    // ---- the table ----

    fn bot(&self, seat: Seat) -> Bot {
        Bot::new(self.bot_level, self.seed ^ (seat as u64) << 56 ^ self.now())
    }

    /// Every check of a roster this peer is given, before anything of it is stored: the
    /// host's signature and the table id bound to it, four distinct keys, one human seat of
    /// this peer, a key this peer holds for every seat it runs, and a table not already in
    /// its store (a table is begun once and never rewritten).
    fn check_roster(&mut self, roster: &Roster) -> Result<[SeatInfo; 4], String> {
        let seats = roster.verify()?;
        let table = roster.advert.table;
        let keys: HashSet<[u8; 32]> = seats.iter().map(|s| *s.key.as_bytes()).collect();
        if keys.len() != 4 {
            return Err("the roster gives two seats the same key".into());
        }
        if let Some(s) = seats
            .iter()
            .find(|s| !mahjong_store::is_clean_name(&s.name))
        {
            return Err(format!(
                "the roster names a seat {:?}: control characters, escapes or over {} characters",
                mahjong_store::clean_name(&s.name),
                mahjong_store::SHOWN_NAME_CHARS
            ));
        }
        let mine = seats.iter().filter(|s| s.peer == self.me && !s.bot).count();
        if mine != 1 {
            return Err(format!(
                "the roster gives this peer {mine} human seats, not one"
            ));
        }
        for (i, s) in seats.iter().enumerate() {
            if s.peer != self.me {
                continue;
            }
            let key = if s.bot {
                bot_key(&self.identity, &table, i as Seat).verifying_key()
            } else {
                self.me
            };
            if key != s.key {
                return Err(format!(
                    "the roster gives seat {i} a key this peer does not hold"
                ));
            }
        }
        if self
            .storage
            .has_table(&table)
            .map_err(|e| format!("cannot read the store: {e}"))?
        {
            return Err(format!(
                "the roster is for table {}, which this peer's store holds already",
                &hex(&table)[..8]
            ));
        }
        Ok(seats)
    }

    /// A roster from another host failed its checks: nothing of it is stored, the host is
    /// disconnected as misbehaving, and the lobby looks for another table.
    fn refuse_roster(&mut self, roster: &Roster, why: String) {
        let now = self.now();
        let acts = self
            .lobby
            .abandon(roster.advert.host, roster.advert.table, now);
        match peer_id(&roster.advert.host) {
            Some(host) => self.misbehaved(host, format!("its roster was refused: {why}")),
            None => tracing::warn!("a roster was refused: {why}"),
        }
        self.lobby_actions(acts);
    }

    /// The peers of the table this peer plays at are not counted against the connection
    /// limits: strangers filling them cannot keep a seat from reconnecting.
    fn bypass_limits(&mut self, seats: &[SeatInfo; 4]) {
        for s in seats {
            if let Some(p) = peer_id(&s.peer) {
                self.swarm.behaviour_mut().limits.bypass_peer_id(&p);
            }
        }
    }

    fn begin(&mut self, roster: Roster) -> Result<(), String> {
        let seats = match self.check_roster(&roster) {
            Ok(seats) => seats,
            Err(why) if roster.advert.host != self.me => {
                self.refuse_roster(&roster, why);
                return Ok(());
            }
            Err(why) => return Err(why),
        };
        let table = roster.advert.table;
        self.storage
            .begin_table(&roster)
            .map_err(|e| e.to_string())?;
        let mut new_seats = Vec::new();
        let mut me = None;
        for (i, s) in seats.iter().enumerate() {
            let seat = i as Seat;
            if s.peer != self.me {
                continue;
            }
            let key = if s.bot {
                bot_key(&self.identity, &table, seat)
            } else {
                me = Some(seat);
                self.identity.clone()
            };
            if key.verifying_key() != s.key {
                return Err(format!(
                    "the roster gives seat {seat} a key this peer does not hold"
                ));
            }
            let mut root = [0u8; 32];
            rand_core::RngCore::fill_bytes(&mut rand_core::OsRng, &mut root);
            let config = roster.config(&seats, seat);
            let client = Client::new(config, key.clone(), root).map_err(|e| e.to_string())?;
            new_seats.push(NewSeat {
                client,
                bot_key: s.bot.then_some(key),
                bot: (s.bot || self.own_bot).then(|| self.bot(seat)),
            });
        }
        let list: Vec<Seat> = me
            .into_iter()
            .chain(
                new_seats
                    .iter()
                    .map(|s| s.client.seat())
                    .filter(|s| Some(*s) != me),
            )
            .collect();
        self.emit(NetEvent::Began {
            roster: Box::new(roster.clone()),
            seats: list,
        });
        tracing::info!("table {} began", hex(&table));
        let host_seat = roster.host_seat;
        self.bypass_limits(&seats);
        let propose = (me == Some(host_seat)).then(|| {
            let s = &self.settings;
            // The options advertised (the settings' with `--disconnect-seconds` in them, or
            // the player's set-up).
            let options = self
                .lying_proposal
                .clone()
                .or_else(|| self.proposal.clone())
                .unwrap_or_else(|| s.options.clone());
            Input::Propose {
                options: Box::new(options),
                stake: s.stake,
                length: SessionLength::Hands(s.hands),
            }
        });
        let setup = self.setup(&roster, &seats, me);
        let (host, out) = Host::begin(setup, new_seats, propose);
        self.playing = Some(Playing {
            host,
            seats,
            unreachable: HashMap::new(),
        });
        self.apply(out)
    }

    /// What the seat host of a table of `roster` needs: who runs which seat, what this
    /// peer's bots accept (the roster's terms, which the lobby matched against this peer's
    /// settings or the player's choice), the bots' level and seed.
    fn setup(&mut self, roster: &Roster, seats: &[SeatInfo; 4], me: Option<Seat>) -> Setup {
        let terms = roster.advert.terms();
        Setup {
            table: roster.advert.table,
            me: self.me,
            peers: [0, 1, 2, 3].map(|i: usize| seats[i].peer),
            host_seat: roster.host_seat,
            player: me,
            terms: Box::new(move |p| terms.check(p)),
            never_accept: self.never_accept,
            bot_level: self.bot_level,
            seed: self.seed,
            tamper: me.and_then(|m| Some((m, self.tamper.take()?))),
            keep_log_in_store: true,
            think: None,
            pause_after_hand: false,
        }
    }

    /// Resumes a table from the store: `Ok(false)` when it is over (it is marked finished and
    /// not resumed: an over table is never played again).
    fn resume(&mut self, resume: crate::storage::Resume) -> Result<bool, String> {
        let roster = resume.roster;
        let seats = roster.verify()?;
        let table = roster.advert.table;
        let mut clients = Vec::new();
        let mut me = None;
        // Seats of other peers this peer took over with a bot: restored by the host once
        // their controlling seat is (the bot's key derives from the controller's root).
        let mut taken_over = Vec::new();
        for p in resume.seats {
            let seat = p.config.seat;
            let info = seats
                .get(seat as usize)
                .ok_or_else(|| format!("the store has seat {seat}"))?;
            if info.peer != self.me {
                taken_over.push(p);
                continue;
            }
            let key = if info.bot {
                bot_key(&self.identity, &table, seat)
            } else {
                me = Some(seat);
                self.identity.clone()
            };
            let client = Client::restore(p, key).map_err(|e| format!("cannot resume: {e}"))?;
            let bot = (info.bot || self.own_bot).then(|| self.bot(seat));
            clients.push((client, bot));
        }
        let setup = self.setup(&roster, &seats, me);
        let now = self.now();
        let (host, hands, following, view) = match Host::resume(setup, clients, taken_over, now)? {
            Resumed::Over => {
                tracing::info!("table {} is over: not resumed", hex(&table));
                self.storage
                    .finish_table(&table)
                    .map_err(|e| e.to_string())?;
                return Ok(false);
            }
            Resumed::Playing {
                host,
                hands,
                following,
                view,
            } => (host, hands, following, view),
        };
        // The table's peers are known by key: dial what mDNS or --peer finds.
        self.emit(NetEvent::Resumed {
            roster: Box::new(roster.clone()),
            hands,
        });
        if let Some((seat, hands)) = following {
            self.emit(NetEvent::Following { seat, hands });
        }
        // The hand as this seat last saw it, at once (the player is not shown a blank table
        // while the others answer).
        if let Some(view) = view {
            self.emit(NetEvent::View {
                view,
                now: self.now(),
            });
        }
        self.bypass_limits(&seats);
        self.playing = Some(Playing {
            host: *host,
            seats,
            unreachable: HashMap::new(),
        });
        Ok(true)
    }

    fn next_deadline(&self) -> Option<u64> {
        self.playing.as_ref()?.host.next_deadline()
    }

    fn on_command(&mut self, cmd: Command) {
        match cmd {
            Command::Act(action, tx) => {
                let now = self.now();
                if let Some(p) = self.playing.as_mut() {
                    p.host.act(now, action);
                }
                let _ = tx.send(());
            }
            Command::Accept(tx) => {
                let now = self.now();
                if let Some(p) = self.playing.as_mut() {
                    p.host.accept(now);
                }
                let _ = tx.send(());
            }
            Command::Leave(tx) => {
                let now = self.now();
                if let Some(p) = self.playing.as_mut() {
                    p.host.leave(now);
                }
                let _ = tx.send(());
            }
            Command::Tables(tx) => {
                let _ = tx.send(self.lobby.tables());
            }
            Command::Traffic(tx) => {
                let _ = tx.send(self.traffic);
            }
            Command::Shutdown(tx) | Command::Quit(tx) => {
                let _ = tx.send(());
            }
            Command::Host(spec, tx) => {
                let now = self.now();
                let options = spec.options.clone();
                let (preset, stake, hands) = (spec.preset, spec.stake, spec.hands);
                match self.lobby.host(*spec, now) {
                    Ok(acts) => {
                        self.settings.options = options.clone();
                        self.proposal = Some(options);
                        self.settings.preset = preset;
                        self.settings.stake = stake;
                        self.settings.hands = hands;
                        let _ = tx.send(Ok(()));
                        self.lobby_actions(acts);
                    }
                    Err(e) => {
                        let _ = tx.send(Err(e));
                    }
                }
            }
            Command::Sit(table, tx) => {
                let now = self.now();
                match self.lobby.sit(table, now) {
                    Ok(acts) => {
                        let _ = tx.send(Ok(()));
                        self.lobby_actions(acts);
                    }
                    Err(e) => {
                        let _ = tx.send(Err(e));
                    }
                }
            }
            Command::Stand(tx) => {
                let now = self.now();
                if self.playing.as_ref().is_some_and(|p| p.host.is_over()) {
                    self.back_to_lobby(now);
                }
                let acts = self.lobby.stand(now);
                let _ = tx.send(());
                self.lobby_actions(acts);
            }
            Command::FillBots(tx) => match self.lobby.fill_bots() {
                Ok(acts) => {
                    let _ = tx.send(Ok(()));
                    self.lobby_actions(acts);
                }
                Err(e) => {
                    let _ = tx.send(Err(e));
                }
            },
            Command::Dial(addr, tx) => {
                let dialled = self.swarm.dial(addr.clone()).map_err(|e| e.to_string());
                if dialled.is_ok() && !self.explicit.contains(&addr) && self.explicit.len() < 64 {
                    self.explicit.push(addr);
                }
                let _ = tx.send(dialled);
            }
            Command::Meet(internet, tx) => {
                let _ = tx.send(self.meet(*internet));
            }
            Command::Links(tx) => {
                let mut links: Vec<(PeerId, Link)> =
                    self.links.iter().map(|(p, l)| (*p, *l)).collect();
                links.sort_by_key(|(p, _)| p.to_bytes());
                let _ = tx.send(links);
            }
        }
    }

    /// Runs the seat host's queued inputs and does what it says.
    fn pump(&mut self) -> Result<(), String> {
        let now = self.now();
        let Some(p) = self.playing.as_mut() else {
            return Ok(());
        };
        let out = p.host.pump(now);
        self.apply(out)
    }

    /// What the seat host gives to do, in its order: the store first (a failure stops before
    /// anything is sent), older steps read back for the seats that asked, the frames (one
    /// [`Wire::Frame`] per peer with a bit per seat), then the player's events.
    fn apply(&mut self, out: HostOut) -> Result<(), String> {
        let HostOut {
            durable,
            load,
            send,
            updates,
        } = out;
        let Some(table) = self.playing.as_ref().map(|p| p.host.table()) else {
            return Ok(());
        };
        for d in durable {
            let done = match &d {
                Durable::Seat { persisted, bot_key } => {
                    self.storage.begin_seat(&table, persisted, bot_key.as_ref())
                }
                Durable::Append { seat, records } => self.storage.append(&table, *seat, records),
                Durable::Book { results, log } => self.storage.book(&table, results, log),
                Durable::Evidence(e) => self.storage.save_evidence(&table, e),
                Durable::Finish => self.storage.finish_table(&table),
            };
            done.map_err(|e| e.to_string())?;
        }
        let now = self.now();
        for l in load {
            let steps = self
                .storage
                .steps(&table, l.seat, l.from, l.to)
                .map_err(|e| e.to_string())?;
            if let Some(p) = self.playing.as_mut() {
                p.host.stored(now, &l, steps);
            }
        }
        for s in send {
            let Some(id) = peer_id(&s.peer) else {
                continue;
            };
            self.send_to(
                &id,
                &Wire::Frame {
                    table,
                    to: s.to,
                    bytes: s.frame,
                },
            );
        }
        for u in updates {
            let ev = match u {
                Update::Table(ev) => NetEvent::Table(ev),
                Update::View { view, now } => NetEvent::View { view, now },
                Update::Revealed { hand, hands } => NetEvent::Revealed { hand, hands },
                Update::Following { seat, hands } => {
                    tracing::info!(
                        "seat {seat} is played by a bot now: following table {} to its end",
                        hex(&table)
                    );
                    NetEvent::Following { seat, hands }
                }
                Update::Declined { why } => NetEvent::Declined { why },
            };
            self.emit(ev);
        }
        Ok(())
    }
}

/// Lower-case hex of bytes.
pub use crate::wire::hex;

/// The lobby settings for `mahjong play`.
pub fn settings(
    name: &str,
    preset: mahjong_rules::Ruleset,
    stake: Money,
    hands: u32,
    bots: u8,
) -> Settings {
    Settings {
        name: name.to_string(),
        preset,
        stake,
        hands,
        bots,
        open_after_ms: lobby::DEFAULT_OPEN_AFTER_MS,
        options: Options::preset(preset),
    }
}
