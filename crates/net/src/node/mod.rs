//! The event loop and its handle, in the shape of rust-libp2p's file-sharing example: a
//! cloneable [`Network`] sends [`Command`]s (each with a `oneshot` for its answer) to one task,
//! [`EventLoop`], which owns the libp2p `Swarm`, the [`Lobby`], the seat host of the table this
//! peer plays at ([`mahjong_host::Host`]: its own seat and any bot seats) and the [`Storage`];
//! [`NetEvent`]s come out over a channel.
//!
//! **Parts.** The loop's state is in one part per concern, each a struct in its own module
//! that keeps its fields to itself and does what needs only them: the connections and the
//! peers behind them (`conn::Connections`), meeting friends through a relay
//! (`internet::Meeting`), the lobby (`lobbying::Lobbying`), the table played
//! (`table::Playing`), watching (`watch::Gallery`) and talk (`talk::Talk`). The loop
//! keeps the swarm, the channels, the identity and settings, the store and the parts, and does
//! what spans them (a connection up is a connection, a link, perhaps a lobby peer). A command
//! refused says why with its concern's error type ([`LobbyError`](crate::LobbyError),
//! [`DialError`], [`MeetError`], [`ChatError`], [`WatchError`], or the store's).
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

use std::collections::VecDeque;
use std::time::Duration;

use ed25519_dalek::{SigningKey, VerifyingKey};
use futures::StreamExt;
use libp2p::identity::PublicKey;
use libp2p::multiaddr::Protocol;
use libp2p::swarm::NetworkBehaviour;
use libp2p::swarm::behaviour::toggle::Toggle;
use libp2p::{
    Multiaddr, PeerId, StreamProtocol, Swarm, connection_limits, dcutr, identify, mdns, noise,
    relay, rendezvous, tcp, yamux,
};
use mahjong_bot::Level;
use mahjong_host::Durable;
use mahjong_rules::{Money, Options};
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::lobby::{self, Lobby, Settings};
use crate::storage::Storage;
use crate::wire::{self, PROTOCOL, PROTOCOL_VERSION, Wire, WireError};

mod api;
mod commands;
mod conn;
mod error;
mod internet;
mod lobbying;
mod table;
mod talk;
mod watch;

pub use api::*;
pub use error::{ChatError, DialError, MeetError, WatchError};
pub use talk::{CHAT_BURST, CHAT_WINDOW_MS};
pub use watch::{
    MAX_WATCHER_IN_FLIGHT, WATCH_ASK_MS, WATCH_ASKS_PER_SECOND, WATCH_BATCH_BYTES, WatchPolicy,
    WatchTarget,
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
/// How long the host of a finished table keeps serving watchers that have not yet every step
/// (a watcher that joined late catches up), before it stops.
pub const WATCHERS_LINGER_MS: u64 = 10_000;
/// A player following the table after a bot took its seat asks for what it lacks every
/// `RETRANSMIT_MS`: one that asked within twice that is still catching up, and a peer whose
/// session is over keeps serving it (for at most [`WATCHERS_LINGER_MS`]) so that it sees the
/// session's end too.
pub const FOLLOWER_ASKING_MS: u64 = 2 * mahjong_table::RETRANSMIT_MS;
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
/// Registrations asked for at each look-up under a code: more than [`MAX_CODE_PEERS`], so
/// that friends are seen past a flood of fake ones (whose peers are dropped when they do
/// not prove the code, and not looked at again for [`CODE_FAILED_MS`]).
const MAX_DISCOVERED: u64 = 1000;
/// How long a peer connected over the internet has to prove it knows the table code
/// ([`crate::Wire::CodeProof`]) before it is dropped (ms).
const CODE_PROOF_MS: u64 = 10_000;
/// How long a peer that did not prove the table code (or proved it wrong) is neither looked
/// at nor dialled again (ms).
const CODE_FAILED_MS: u64 = 10 * 60_000;
/// How long a peer that did not prove the code in time (not a wrong proof) is not looked at
/// (ms).
const CODE_LATE_MS: u64 = 60_000;
/// Peers remembered as having failed to prove the table code (the oldest forgotten first).
const MAX_CODE_FAILED: usize = 1024;
/// How long the higher peer id of a pair found under a code leaves the dial to the lower one
/// (one circuit per pair) before it dials too (ms).
const CODE_DIAL_GRACE_MS: u64 = 6000;
/// After DCUtR gives up on a friend (its own three attempts failed), the loop tries again
/// this long after each failure (ms), then leaves the link relayed: a new relayed connection
/// makes the friend's DCUtR punch again, which helps when the failure was passing (a busy
/// router, a lost packet), and costs a few packets when it was not.
const PUNCH_RETRY_MS: [u64; 3] = [15_000, 60_000, 240_000];
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
#[cfg(feature = "test-hooks")]
pub use mahjong_host::Tamper;

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

/// The task that owns the swarm, the lobby, the table clients and the store.
pub struct EventLoop {
    swarm: Swarm<Behaviour>,
    identity: SigningKey,
    me: VerifyingKey,
    settings: Settings,
    own_bot: bool,
    bot_level: Level,
    lobbying: lobbying::Lobbying,
    storage: Box<dyn Storage>,
    playing: Option<table::Playing>,
    conn: conn::Connections,
    meeting: internet::Meeting,
    gallery: watch::Gallery,
    talk: talk::Talk,
    commands: mpsc::Receiver<Command>,
    events: mpsc::Sender<NetEvent>,
    /// Events the caller has not yet taken while its channel was full, in order: sent as it
    /// frees room (see `emit`).
    overflow: std::cell::RefCell<VecDeque<NetEvent>>,
    inbound: mpsc::Receiver<Inbound>,
    start: Instant,
    seed: u64,
    #[cfg(feature = "test-hooks")]
    hooks: table::Hooks,
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
        #[cfg(feature = "test-hooks")]
        let wire_version = config.wire_version;
        #[cfg(not(feature = "test-hooks"))]
        let wire_version = wire::WIRE_VERSION;
        let version = if wire_version == wire::WIRE_VERSION {
            PROTOCOL_VERSION.to_string()
        } else {
            format!("shanghai-mahjong/{wire_version}")
        };
        let protocol = if wire_version == wire::WIRE_VERSION {
            StreamProtocol::new(PROTOCOL)
        } else {
            StreamProtocol::try_from_owned(format!("/shanghai-mahjong/{wire_version}"))
                .map_err(transport)?
        };
        let use_mdns = config.mdns;
        #[cfg(feature = "test-hooks")]
        let hole_punching = config.hole_punching;
        #[cfg(not(feature = "test-hooks"))]
        let hole_punching = true;
        let ident_version = version.clone();
        // Relay addresses may name their host (`/dns4/relay.example.org/…`): resolved with the
        // system's DNS configuration, or with the hosts file alone where there is none.
        let (dns, dns_options) =
            hickory_resolver::system_conf::read_system_conf().unwrap_or_else(|e| {
                tracing::info!("no DNS configuration ({e}): host names from the hosts file only");
                (
                    hickory_resolver::config::ResolverConfig::from_name_servers(Vec::new()),
                    hickory_resolver::config::ResolverOpts::default(),
                )
            });
        let mut swarm = libp2p::SwarmBuilder::with_existing_identity(keypair)
            .with_tokio()
            .with_tcp(
                tcp::Config::default().nodelay(true),
                noise::Config::new,
                yamux_config,
            )
            .map_err(transport)?
            .with_quic()
            .with_dns_config(dns, dns_options)
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
        let quic_listen: Vec<Multiaddr> = config
            .listen
            .iter()
            .filter_map(|a| match a.iter().next()? {
                p @ (Protocol::Ip4(_) | Protocol::Ip6(_)) => Some(
                    Multiaddr::empty()
                        .with(p)
                        .with(Protocol::Udp(0))
                        .with(Protocol::QuicV1),
                ),
                _ => None,
            })
            .collect();
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
        // Met over QUIC: listen on QUIC too, so that hole punching dials from the UDP port
        // the relay saw.
        let quic_up = internet.as_ref().is_some_and(|(i, _)| i.is_quic());
        if quic_up {
            for addr in &quic_listen {
                swarm.listen_on(addr.clone()).map_err(transport)?;
            }
        }
        let mut explicit = config.peers.clone();
        // The relay is dialled at start and redialled like a `--peer`.
        if let Some((i, _)) = &internet {
            explicit.push(i.relay.clone());
        }
        let mut lobby = Lobby::new(config.identity.clone(), settings.clone(), 0);
        // A watcher takes no seat: its lobby only learns the tables.
        lobby.set_manual(config.manual || config.watch.is_some());
        #[cfg(feature = "test-hooks")]
        lobby.set_roster_tamper(config.lying_roster);
        Ok(EventLoop {
            lobbying: lobbying::Lobbying::new(lobby),
            swarm,
            identity: config.identity,
            me,
            settings,
            own_bot: config.own_bot,
            bot_level: config.bot_level,
            storage,
            playing: None,
            conn: conn::Connections::new(control, protocol, version, inbound_tx, explicit),
            meeting: internet::Meeting::new(internet, quic_listen, quic_up),
            gallery: watch::Gallery::new(
                config.watchers,
                config.watch,
                #[cfg(feature = "test-hooks")]
                config.lie_to_watchers,
            ),
            talk: talk::Talk::default(),
            commands,
            events,
            overflow: std::cell::RefCell::new(VecDeque::new()),
            inbound,
            start: Instant::now(),
            seed,
            #[cfg(feature = "test-hooks")]
            hooks: table::Hooks {
                tamper: config.tamper,
                lying_proposal: config.lying_proposal,
                never_accept: config.never_accept,
            },
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

    fn fatal(&mut self, why: impl std::fmt::Display) {
        let why = why.to_string();
        tracing::error!("{why}");
        let events = self.events.clone();
        tokio::spawn(async move {
            let _ = events.send(NetEvent::Fatal(why)).await;
        });
    }

    /// Runs until shut down or a fatal error.
    pub async fn run(mut self) {
        let mut incoming = match self.conn.accept() {
            Ok(i) => i,
            Err(e) => {
                self.fatal(format!("cannot accept streams: {e}"));
                return;
            }
        };
        // The newest unfinished table is resumed; one that turns out to be over (a failed
        // set-up, an ended session not marked so) is marked finished and the next is tried.
        // A watcher plays no table.
        let resumes = if self.gallery.is_watching() {
            0
        } else {
            MAX_OVER_TABLES_SKIPPED
        };
        for _ in 0..resumes {
            match self.storage.resume(crate::storage::Kind::Friends) {
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
        for addr in self.conn.explicit().to_vec() {
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
                        self.until_followers_have_all(Duration::from_millis(WATCHERS_LINGER_MS))
                            .await;
                        self.until_watchers_have_all(Duration::from_millis(WATCHERS_LINGER_MS))
                            .await;
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
        let sent = !out.send.is_empty();
        self.send_frames(table, out.send);
        tracing::info!("left table {}", hex(&table));
        sent || deferred
    }

    /// After this peer's leave: the table goes on as usual (frames in, store, timers) until
    /// every seat this peer ran is over (the others aborted its hand, which it books as they
    /// do) or `time` passed. The lobby is not served meanwhile.
    async fn until_left(&mut self, time: Duration) {
        self.serve_table_until(time, |l| {
            l.playing.as_ref().is_none_or(|p| p.host.all_over())
        })
        .await;
    }

    /// At the end of a session: the table goes on as usual while a player following it
    /// (its seat given to a bot, back) still asks for steps ([`FOLLOWER_ASKING_MS`]), or until
    /// `time` passed, so that it books the session's last hands too.
    async fn until_followers_have_all(&mut self, time: Duration) {
        self.serve_table_until(time, |l| {
            let now = l.now();
            l.playing
                .as_ref()
                .is_none_or(|p| !p.host.followed_within(now, FOLLOWER_ASKING_MS))
        })
        .await;
    }

    /// Runs the table (frames in, store, timers; not the lobby) until `done` or `time`
    /// passed, looking at `done` at least every 100 ms.
    async fn serve_table_until(&mut self, time: Duration, done: impl Fn(&Self) -> bool) {
        let until = Instant::now() + time;
        loop {
            if done(self) {
                return;
            }
            let tick = (Instant::now() + Duration::from_millis(100)).min(until);
            let next = self
                .next_deadline()
                .map_or(tick, |d| (self.start + Duration::from_millis(d)).min(tick));
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

    /// At the end of a table this peer hosts: serves its watchers until each has every step
    /// (or `time` passed), so that they see the session's end too.
    async fn until_watchers_have_all(&mut self, time: Duration) {
        let until = Instant::now() + time;
        let mut tick = tokio::time::interval(Duration::from_millis(100));
        loop {
            if !self.watchers_behind() {
                // What was queued for them goes out before the connections close.
                self.linger(Duration::from_millis(LEAVE_FLUSH_MS)).await;
                return;
            }
            tokio::select! {
                ev = self.swarm.select_next_some() => self.on_swarm(ev),
                Some(msg) = self.inbound.recv() => self.on_inbound(msg),
                _ = tick.tick() => {}
                _ = tokio::time::sleep_until(until) => return,
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
        admit: None,
    }
}
