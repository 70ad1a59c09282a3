//! The relay server behind `mahjong relay`: what friends in different homes use to meet when
//! no LAN joins them. Anyone can run it (a club, one of the friends, on a small VPS); it is
//! never a party to a game.
//!
//! It runs, over TCP with noise and yamux:
//! - **circuit relay v2** (server side): a player behind a NAT *reserves* a slot and is then
//!   reachable at `/…/p2p/RELAY/p2p-circuit/p2p/PLAYER`; a friend dialling that address gets
//!   a *circuit*, a byte pipe through the relay, inside which the two players run their own
//!   noise handshake. The relay sees only ciphertext and the two peer ids (docs/relay.md).
//! - **rendezvous** (server side, the relay's own: [`rendezvous`]): players register under a
//!   namespace and discover each other's peer ids and addresses (the client side derives the
//!   namespace from a table code). A look-up must name its namespace, and registrations are
//!   bounded per namespace, per peer and per IP address and end with their peer's connection.
//! - **identify**, **ping**, and an **AutoNAT v2** server, so a player can learn whether it
//!   is reachable directly.
//!
//! The limits are set for mahjong sessions (the library's defaults would cut a relayed table
//! off within a minute) and capped per peer, per IP address and in total: see the constants.
//!
//! ```no_run
//! # async fn run() -> Result<(), mahjong_relay::RelayError> {
//! let keypair = libp2p::identity::Keypair::generate_ed25519();
//! let listen = vec!["/ip4/0.0.0.0/tcp/4001".parse().expect("multiaddr")];
//! let relay = mahjong_relay::Relay::start(keypair, &listen, &[])?;
//! relay
//!     .run(std::future::pending(), |addr| println!("{addr}"))
//!     .await;
//! # Ok(())
//! # }
//! ```

pub mod per_ip;
pub mod rendezvous;

use std::future::Future;
use std::path::Path;
use std::time::{Duration, Instant};

use futures::StreamExt;
use libp2p::core::multiaddr::Protocol;
use libp2p::swarm::{NetworkBehaviour, SwarmEvent};
use libp2p::{
    Multiaddr, PeerId, Swarm, autonat, connection_limits, identify, noise, ping, relay,
    request_response, tcp, yamux,
};

pub use libp2p;
pub use per_ip::PerIpLimit;
pub use rendezvous::{
    MAX_DISCOVER_ANSWER, MAX_REGISTRATIONS, MAX_REGISTRATIONS_PER_IP,
    MAX_REGISTRATIONS_PER_IP_IN_NAMESPACE, MAX_REGISTRATIONS_PER_NAMESPACE,
    MAX_REGISTRATIONS_PER_PEER,
};

/// How long a circuit (one relayed link between two players) may last before the relay
/// closes it. Bots play a hand in about 2 s; people take some 5 to 10 minutes, so a session
/// of sixteen hands lasts one and a half to three hours. The links of a table are meant to go
/// direct (DCUtR) within seconds and leave the relay, but where punching fails the relay
/// carries the whole session: six hours is twice a long evening. Past it the link drops and
/// the players' nodes dial again (a new circuit), which the table survives as it survives
/// any lost connection.
pub const MAX_CIRCUIT_DURATION: Duration = Duration::from_secs(6 * 60 * 60);

/// Bytes (both ways together) one circuit may carry before the relay closes it. Measured
/// (docs/relay.md): a link between two players carries some 190 KB per hand, both ways (the
/// shuffle's ciphertexts are most of it), so the library's 128 KiB would not last one hand;
/// 32 MiB is about 170 hands, ten times a sixteen-hand session.
pub const MAX_CIRCUIT_BYTES: u64 = 32 << 20;

/// How long a reservation lasts; clients renew it before it runs out.
pub const RESERVATION_DURATION: Duration = Duration::from_secs(60 * 60);

/// Reservations in total: 32 tables of four players waiting to be reached.
pub const MAX_RESERVATIONS: usize = 128;

/// Reservations per peer id. A player needs one; a second covers a restart whose old
/// connection has not timed out yet. (A reservation belongs to a connection, and
/// [`MAX_CONNECTIONS_PER_PEER`] holds a peer to this many connections.)
pub const MAX_RESERVATIONS_PER_PEER: usize = 2;

/// Circuits in total: the six links of each of the [`MAX_RESERVATIONS`]`/4` tables.
pub const MAX_CIRCUITS: usize = 6 * MAX_RESERVATIONS / 4;

/// Circuits a peer may open (as their source; libp2p counts those where it is source or
/// destination, and lets through one more than this). A player opens at most three (one per
/// friend at its table); eight leave room for redials after a drop.
pub const MAX_CIRCUITS_PER_PEER: usize = 8;

/// Inbound connections from one IP address, pending and established. A peer id costs a
/// stranger nothing, an address does: this is what keeps one stranger from taking every
/// reservation ([`MAX_RESERVATIONS`] needs eight addresses). Sixteen leave room for four
/// tables of players behind one NAT (a club, a shared flat).
pub const MAX_CONNECTIONS_PER_IP: usize = 16;

/// Established connections per peer id.
pub const MAX_CONNECTIONS_PER_PEER: u32 = MAX_RESERVATIONS_PER_PEER as u32;

/// Inbound connections in total, established: every reservation and some room for players
/// that only look up a table code.
pub const MAX_CONNECTIONS: u32 = MAX_RESERVATIONS as u32 + 64;

/// Inbound connections in the handshake at once.
pub const MAX_PENDING_CONNECTIONS: u32 = 32;

/// A connection with no reservation, circuit or request running is closed after this.
pub const IDLE_CONNECTION_TIMEOUT: Duration = Duration::from_secs(30);

/// The identify protocol version the relay announces.
pub const IDENTIFY_VERSION: &str = "shanghai-mahjong-relay/1";

/// The default listen addresses of `mahjong relay`: every IPv4 and IPv6 interface, port
/// 4001 (where the libp2p world usually runs its relays; any port works).
pub const DEFAULT_LISTEN: [&str; 4] = [
    "/ip4/0.0.0.0/tcp/4001",
    "/ip6/::/tcp/4001",
    "/ip4/0.0.0.0/udp/4001/quic-v1",
    "/ip6/::/udp/4001/quic-v1",
];

/// What can stop the relay from starting.
#[derive(Debug, thiserror::Error)]
pub enum RelayError {
    /// The identity key in the data directory could not be read or made.
    #[error(transparent)]
    Store(#[from] mahjong_store::StoreError),
    /// A listen address could not be used.
    #[error("cannot listen on {addr}: {why}")]
    Listen {
        /// The address.
        addr: Multiaddr,
        /// Why.
        why: String,
    },
    /// Nothing could be listened on.
    #[error("no listen address could be used")]
    NoListener,
    /// The libp2p transport could not be built.
    #[error("transport: {0}")]
    Transport(String),
}

/// The relay's network behaviour: the caps first, so a refused connection reaches no other.
#[derive(NetworkBehaviour)]
struct Behaviour {
    per_ip: PerIpLimit,
    limits: connection_limits::Behaviour,
    relay: relay::Behaviour,
    rendezvous: request_response::Behaviour<rendezvous::Codec>,
    identify: identify::Behaviour,
    ping: ping::Behaviour,
    autonat: autonat::v2::server::Behaviour,
}

/// The circuit relay's configuration: the library's rate limiters, and the limits above.
pub fn relay_config() -> relay::Config {
    relay::Config {
        max_reservations: MAX_RESERVATIONS,
        max_reservations_per_peer: MAX_RESERVATIONS_PER_PEER,
        reservation_duration: RESERVATION_DURATION,
        max_circuits: MAX_CIRCUITS,
        max_circuits_per_peer: MAX_CIRCUITS_PER_PEER,
        max_circuit_duration: MAX_CIRCUIT_DURATION,
        max_circuit_bytes: MAX_CIRCUIT_BYTES,
        ..relay::Config::default()
    }
}

/// The connection caps (per IP address is [`PerIpLimit`]).
pub fn connection_limits() -> connection_limits::ConnectionLimits {
    connection_limits::ConnectionLimits::default()
        .with_max_pending_incoming(Some(MAX_PENDING_CONNECTIONS))
        .with_max_established_incoming(Some(MAX_CONNECTIONS))
        .with_max_established_per_peer(Some(MAX_CONNECTIONS_PER_PEER))
}

/// The relay's libp2p identity: the identity key kept in `data_dir` (made on first run,
/// `identity.key`, as a player's is; see `mahjong_store::identity`).
pub fn load_keypair(data_dir: &Path) -> Result<libp2p::identity::Keypair, RelayError> {
    let identity = mahjong_store::Identity::load_or_create(data_dir, Some("relay"))?;
    let mut secret = identity.key.to_bytes();
    libp2p::identity::Keypair::ed25519_from_bytes(&mut secret)
        .map_err(|e| RelayError::Transport(e.to_string()))
}

/// Sends `tracing` events to stderr, filtered by `RUST_LOG` (default `info`). Does nothing
/// if a subscriber is already set.
pub fn init_stderr_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .try_init();
}

/// A started relay: listening, not yet serving.
pub struct Relay {
    swarm: Swarm<Behaviour>,
    /// The rendezvous registrations and the connections they live with.
    rendezvous: rendezvous::Server,
    external: Vec<Multiaddr>,
    /// No external address was given: each listen address is taken as one (a reservation
    /// must carry at least one address of the relay, or the client refuses it).
    listen_is_external: bool,
}

impl Relay {
    /// Builds the relay with `keypair` and listens on `listen`. An address that cannot be
    /// listened on is an error, except that among several, an IPv6 one may fail (a host
    /// without IPv6) with a warning. `external` are the addresses players reach it at
    /// (announced to them in reservations and by identify); without any, each listen address
    /// is announced.
    pub fn start(
        keypair: libp2p::identity::Keypair,
        listen: &[Multiaddr],
        external: &[Multiaddr],
    ) -> Result<Relay, RelayError> {
        let transport = |e: &dyn std::fmt::Display| RelayError::Transport(e.to_string());
        let mut swarm = libp2p::SwarmBuilder::with_existing_identity(keypair)
            .with_tokio()
            .with_tcp(
                tcp::Config::default().nodelay(true),
                noise::Config::new,
                yamux::Config::default,
            )
            .map_err(|e| transport(&e))?
            .with_quic()
            .with_behaviour(|key| {
                let me = key.public().to_peer_id();
                Behaviour {
                    per_ip: PerIpLimit::new(MAX_CONNECTIONS_PER_IP),
                    limits: connection_limits::Behaviour::new(connection_limits()),
                    relay: relay::Behaviour::new(me, relay_config()),
                    rendezvous: rendezvous::behaviour(),
                    identify: identify::Behaviour::new(
                        identify::Config::new(IDENTIFY_VERSION.to_string(), key.public())
                            .with_agent_version(format!(
                                "mahjong-relay/{}",
                                env!("CARGO_PKG_VERSION")
                            )),
                    ),
                    ping: ping::Behaviour::new(ping::Config::new()),
                    autonat: autonat::v2::server::Behaviour::default(),
                }
            })
            .map_err(|e| transport(&e))?
            .with_swarm_config(|c| c.with_idle_connection_timeout(IDLE_CONNECTION_TIMEOUT))
            .build();
        // The relay serves whether or not it has learnt an external address: it was started
        // to be one (the library would otherwise wait for a confirmed external address).
        swarm
            .behaviour_mut()
            .relay
            .set_status(Some(relay::Status::Enable));
        let mut listening = 0;
        for addr in listen {
            match swarm.listen_on(addr.clone()) {
                Ok(_) => listening += 1,
                Err(e) => {
                    let why = match e {
                        libp2p::TransportError::MultiaddrNotSupported(_) => {
                            "not a TCP or QUIC address (e.g. /ip4/0.0.0.0/tcp/4001 or /ip4/0.0.0.0/udp/4001/quic-v1)".to_string()
                        }
                        libp2p::TransportError::Other(io) => io.to_string(),
                    };
                    let is_ip6 = matches!(addr.iter().next(), Some(Protocol::Ip6(_)));
                    if listen.len() > 1 && is_ip6 {
                        tracing::warn!(%addr, %why, "cannot listen (no IPv6 here?); going on without it");
                    } else {
                        return Err(RelayError::Listen {
                            addr: addr.clone(),
                            why,
                        });
                    }
                }
            }
        }
        if listening == 0 {
            return Err(RelayError::NoListener);
        }
        let me = *swarm.local_peer_id();
        let external: Vec<Multiaddr> = external.iter().map(|a| with_peer(a, me)).collect();
        for addr in &external {
            swarm.add_external_address(addr.clone());
        }
        Ok(Relay {
            swarm,
            rendezvous: rendezvous::Server::new(rendezvous::Limits::default()),
            listen_is_external: external.is_empty(),
            external,
        })
    }

    /// The relay's peer id.
    pub fn peer_id(&self) -> PeerId {
        *self.swarm.local_peer_id()
    }

    /// Serves until `shutdown` completes. `on_address` is called with each full address
    /// (ending in `/p2p/<peer id>`): first the external ones, then each listen address as
    /// it comes up.
    pub async fn run(
        mut self,
        shutdown: impl Future<Output = ()>,
        mut on_address: impl FnMut(&Multiaddr),
    ) {
        let me = self.peer_id();
        tracing::info!(peer = %me, "relay starting");
        for addr in &self.external {
            on_address(addr);
        }
        let mut shutdown = std::pin::pin!(shutdown);
        loop {
            tokio::select! {
                _ = &mut shutdown => break,
                event = self.swarm.select_next_some() => match event {
                    SwarmEvent::NewListenAddr { address, .. } => {
                        let full = with_peer(&address, me);
                        tracing::info!(address = %full, "listening");
                        if self.listen_is_external {
                            self.swarm.add_external_address(full.clone());
                        }
                        on_address(&full);
                    }
                    SwarmEvent::ExpiredListenAddr { address, .. } => {
                        let full = with_peer(&address, me);
                        tracing::info!(address = %full, "no longer listening");
                        if self.listen_is_external {
                            self.swarm.remove_external_address(&full);
                        }
                    }
                    SwarmEvent::Behaviour(BehaviourEvent::Rendezvous(event)) => {
                        self.on_rendezvous(event)
                    }
                    SwarmEvent::Behaviour(event) => log_event(event),
                    SwarmEvent::ConnectionEstablished { connection_id, endpoint, .. } => {
                        let ip = per_ip::ip_of(endpoint.get_remote_address());
                        self.rendezvous.connected(connection_id, ip);
                    }
                    SwarmEvent::ConnectionClosed { peer_id, connection_id, num_established, .. } => {
                        let gone = self.rendezvous.closed(peer_id, connection_id, num_established);
                        if gone > 0 {
                            tracing::info!(peer = %peer_id, registrations = gone, "unregistered: its last connection closed");
                        }
                    }
                    SwarmEvent::IncomingConnectionError { send_back_addr, error, .. } => {
                        tracing::debug!(from = %send_back_addr, %error, "refused a connection");
                    }
                    SwarmEvent::ListenerError { error, .. } => {
                        tracing::warn!(%error, "listener error");
                    }
                    SwarmEvent::ListenerClosed { addresses, reason, .. } => {
                        tracing::warn!(?addresses, ?reason, "listener closed");
                    }
                    _ => {}
                },
            }
        }
        tracing::info!("relay stopping");
    }

    /// Answers a rendezvous request (the rules are [`rendezvous`]'s).
    fn on_rendezvous(
        &mut self,
        event: request_response::Event<rendezvous::Request, rendezvous::Response>,
    ) {
        use rendezvous::Outcome;
        match event {
            request_response::Event::Message {
                peer,
                connection_id,
                message:
                    request_response::Message::Request {
                        request, channel, ..
                    },
            } => {
                let (response, outcome) =
                    self.rendezvous
                        .request(peer, connection_id, request, Instant::now());
                match outcome {
                    Outcome::Registered(namespace) => {
                        tracing::info!(%peer, %namespace, held = self.rendezvous.registry.count_in(&namespace), "registered");
                    }
                    Outcome::RegisterRefused(status, why) => {
                        tracing::info!(%peer, ?status, %why, "registration refused");
                    }
                    Outcome::DiscoverRefused(status, why) => {
                        tracing::info!(%peer, ?status, %why, "look-up refused");
                    }
                    Outcome::Unregistered(namespace) => {
                        tracing::debug!(%peer, %namespace, "unregistered");
                    }
                    Outcome::Discovered(namespace, n) => {
                        tracing::debug!(%peer, %namespace, listed = n, "looked up");
                    }
                }
                // An Unregister has no response: dropping the channel ends the stream.
                if let Some(response) = response
                    && self
                        .swarm
                        .behaviour_mut()
                        .rendezvous
                        .send_response(channel, response)
                        .is_err()
                {
                    tracing::debug!(%peer, "the rendezvous answer could not be sent");
                }
            }
            request_response::Event::InboundFailure { peer, error, .. } => {
                tracing::debug!(%peer, %error, "rendezvous request failed");
            }
            other => tracing::debug!(?other, "rendezvous"),
        }
    }
}

/// Completes on the first SIGINT or SIGTERM (elsewhere than Unix, on Ctrl-C), logging which.
pub fn stop_signal() -> std::io::Result<impl Future<Output = ()>> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut int = signal(SignalKind::interrupt())?;
        let mut term = signal(SignalKind::terminate())?;
        Ok(async move {
            tokio::select! {
                _ = int.recv() => tracing::info!("SIGINT"),
                _ = term.recv() => tracing::info!("SIGTERM"),
            }
        })
    }
    #[cfg(not(unix))]
    {
        Ok(async {
            let _ = tokio::signal::ctrl_c().await;
            tracing::info!("Ctrl-C");
        })
    }
}

/// `addr` ending in `/p2p/<me>` (added if not there).
pub fn with_peer(addr: &Multiaddr, me: PeerId) -> Multiaddr {
    match addr.iter().last() {
        Some(Protocol::P2p(_)) => addr.clone(),
        _ => addr.clone().with(Protocol::P2p(me)),
    }
}

fn log_event(event: BehaviourEvent) {
    match event {
        BehaviourEvent::Relay(e) => log_relay(e),
        BehaviourEvent::Rendezvous(e) => tracing::debug!(?e, "rendezvous"),
        BehaviourEvent::Autonat(e) => {
            tracing::debug!(client = %e.client, addr = %e.tested_addr, ok = e.result.is_ok(), "autonat dial-back");
        }
        BehaviourEvent::Identify(_) | BehaviourEvent::Ping(_) => {}
    }
}

fn log_relay(event: relay::Event) {
    use relay::Event as E;
    match event {
        E::ReservationReqAccepted {
            src_peer_id,
            renewed,
        } => tracing::info!(peer = %src_peer_id, renewed, "reservation accepted"),
        E::ReservationReqDenied {
            src_peer_id,
            status,
        } => tracing::info!(peer = %src_peer_id, ?status, "reservation refused"),
        E::ReservationClosed { src_peer_id } => {
            tracing::info!(peer = %src_peer_id, "reservation closed")
        }
        E::ReservationTimedOut { src_peer_id } => {
            tracing::info!(peer = %src_peer_id, "reservation timed out")
        }
        E::CircuitReqAccepted {
            src_peer_id,
            dst_peer_id,
        } => tracing::info!(src = %src_peer_id, dst = %dst_peer_id, "circuit opened"),
        E::CircuitReqDenied {
            src_peer_id,
            dst_peer_id,
            status,
        } => tracing::info!(src = %src_peer_id, dst = %dst_peer_id, ?status, "circuit refused"),
        E::CircuitClosed {
            src_peer_id,
            dst_peer_id,
            error,
        } => tracing::info!(src = %src_peer_id, dst = %dst_peer_id, ?error, "circuit closed"),
        other => tracing::debug!(?other, "relay"),
    }
}
