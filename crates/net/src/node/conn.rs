//! The event loop's connections: swarm events, writers and readers of the stream protocol,
//! misbehaving and incompatible peers, frames in, and which table peers are reachable.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use ed25519_dalek::VerifyingKey;
use libp2p::multiaddr::Protocol;
use libp2p::swarm::SwarmEvent;
use libp2p::swarm::dial_opts::{DialOpts, PeerCondition};
use libp2p::{Multiaddr, PeerId, StreamProtocol, dcutr, identify, mdns, relay};
use mahjong_store::clean_name;
use mahjong_table::TableEvent;
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::wire::{self, MAX_MESSAGE, TableId, Wire, WireError};

use super::{
    BAN_MS, BehaviourEvent, EventLoop, Inbound, MAX_CONNECTIONS, MAX_MESSAGES_PER_SECOND,
    MAX_STRAY_FRAMES_PER_SECOND, MAX_STREAMS_PER_PEER, NetEvent, SEND_QUEUE, Traffic, peer_id,
    peer_key,
};

/// The connections and the peers behind them: each peer's writer and rates, the misbehaving
/// ones refused, the addresses known and the dials kept going, the versions identify told.
pub(super) struct Connections {
    /// Opens the streams of the protocol.
    control: libp2p_stream::Control,
    /// The stream protocol spoken.
    protocol: StreamProtocol,
    /// The protocol version identify announces.
    version: String,
    /// Where the readers and writers report to the loop.
    inbound_tx: mpsc::Sender<Inbound>,
    peers: HashMap<PeerId, PeerState>,
    banned: HashMap<PeerId, u64>,
    addresses: HashMap<PeerId, Vec<Multiaddr>>,
    /// The addresses dialled and kept (`--peer`, the manual address field, the relay).
    explicit: Vec<Multiaddr>,
    redial: HashMap<PeerId, Redial>,
    explicit_redial: Vec<(Multiaddr, Redial)>,
    traffic: Traffic,
    /// The last writer's generation (each writer has its own, so that a writer that failed
    /// is told from the one that replaced it).
    generations: u64,
    /// Protocol versions identify reported, by peer.
    versions: HashMap<PeerId, String>,
    /// Peers that refused the stream protocol before identify answered.
    unsupported: HashSet<PeerId>,
    /// Peers to disconnect at a time.
    hang_up: Vec<(PeerId, u64)>,
    /// The names peers said in their hello (a watcher's name), by peer.
    hello_names: HashMap<PeerId, String>,
}

#[derive(Default)]
struct PeerState {
    writer: Option<mpsc::Sender<Vec<u8>>>,
    /// The table of the last frame queued for `writer`'s stream ([`wire::FrameContext`]).
    written: wire::FrameContext,
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

impl Connections {
    /// No peer yet; `explicit` dialled at start and kept.
    pub(super) fn new(
        control: libp2p_stream::Control,
        protocol: StreamProtocol,
        version: String,
        inbound_tx: mpsc::Sender<Inbound>,
        explicit: Vec<Multiaddr>,
    ) -> Connections {
        Connections {
            control,
            protocol,
            version,
            inbound_tx,
            peers: HashMap::new(),
            banned: HashMap::new(),
            addresses: HashMap::new(),
            explicit,
            redial: HashMap::new(),
            explicit_redial: Vec::new(),
            traffic: Traffic::default(),
            generations: 0,
            versions: HashMap::new(),
            unsupported: HashSet::new(),
            hang_up: Vec::new(),
            hello_names: HashMap::new(),
        }
    }

    /// The other peers' streams of the protocol (once).
    pub(super) fn accept(
        &mut self,
    ) -> Result<libp2p_stream::IncomingStreams, libp2p_stream::AlreadyRegistered> {
        self.control.accept(self.protocol.clone())
    }

    /// The traffic counters.
    pub(super) fn traffic(&self) -> Traffic {
        self.traffic
    }

    /// The addresses dialled and kept.
    pub(super) fn explicit(&self) -> &[Multiaddr] {
        &self.explicit
    }

    /// Keeps dialling `addr` (an address dialled by hand: at most 64 are kept).
    pub(super) fn keep_dialling(&mut self, addr: Multiaddr) {
        if !self.explicit.contains(&addr) && self.explicit.len() < 64 {
            self.explicit.push(addr);
        }
    }

    /// Keeps dialling `addr` (the relay), however many are kept.
    pub(super) fn keep_dialling_always(&mut self, addr: Multiaddr) {
        if !self.explicit.contains(&addr) {
            self.explicit.push(addr);
        }
    }

    /// Stops dialling `addr`.
    pub(super) fn forget_explicit(&mut self, addr: &Multiaddr) {
        self.explicit.retain(|a| a != addr);
        self.explicit_redial.retain(|(a, _)| a != addr);
    }

    /// The peers this one has a state for (a writer, readers, its rates).
    pub(super) fn peer_ids(&self) -> impl Iterator<Item = PeerId> + '_ {
        self.peers.keys().copied()
    }

    /// The peers this one writes to.
    pub(super) fn writers(&self) -> impl Iterator<Item = PeerId> + '_ {
        self.peers
            .iter()
            .filter(|(_, s)| s.writer.is_some())
            .map(|(p, _)| *p)
    }

    /// Whether this peer writes to `peer`.
    pub(super) fn has_writer(&self, peer: &PeerId) -> bool {
        self.peers.get(peer).is_some_and(|p| p.writer.is_some())
    }

    /// The generation of the writer to `peer`, if it has a state.
    pub(super) fn generation(&self, peer: &PeerId) -> Option<u64> {
        self.peers.get(peer).map(|p| p.generation)
    }

    /// Messages queued for `peer` and not yet written (`None`: no writer).
    pub(super) fn queued(&self, peer: &PeerId) -> Option<usize> {
        self.peers
            .get(peer)
            .and_then(|p| p.writer.as_ref())
            .map(|w| SEND_QUEUE - w.capacity())
    }

    /// Forgets the writer, the readers' count and the rates of `peer`.
    pub(super) fn remove_peer(&mut self, peer: &PeerId) {
        self.peers.remove(peer);
    }

    /// Whether `peer` is refused at `now`.
    pub(super) fn is_banned(&self, peer: &PeerId, now: u64) -> bool {
        self.banned.get(peer).is_some_and(|&u| u > now)
    }

    /// Remembers addresses of `peer` (at most 8).
    pub(super) fn remember<'a>(
        &mut self,
        peer: PeerId,
        addrs: impl IntoIterator<Item = &'a Multiaddr>,
    ) {
        let known = self.addresses.entry(peer).or_default();
        for a in addrs {
            if !known.contains(a) && known.len() < 8 {
                known.push(a.clone());
            }
        }
    }

    /// The addresses known of `peer`.
    pub(super) fn addresses(&self, peer: &PeerId) -> &[Multiaddr] {
        self.addresses.get(peer).map_or(&[], Vec::as_slice)
    }

    /// Whether `peer` is redialled already.
    pub(super) fn is_redialling(&self, peer: &PeerId) -> bool {
        self.redial.contains_key(peer)
    }

    /// Redials `peer` now, then with back-off from `backoff`.
    pub(super) fn redial_now(&mut self, peer: PeerId, backoff: Duration) {
        self.redial.insert(
            peer,
            Redial {
                at: Instant::now(),
                backoff,
            },
        );
    }

    /// The name `peer` said in its hello.
    pub(super) fn hello_name(&self, peer: &PeerId) -> Option<&String> {
        self.hello_names.get(peer)
    }
}

impl EventLoop {
    // ---- connections ----

    /// The connections' part of the lobby tick: peers due to be hung up are, and the peers
    /// and addresses whose connection is down are redialled with back-off.
    pub(super) fn redial_tick(&mut self, now: u64) {
        let due: Vec<PeerId> = self
            .conn
            .hang_up
            .iter()
            .filter(|(_, at)| *at <= now)
            .map(|(p, _)| *p)
            .collect();
        self.conn.hang_up.retain(|(_, at)| *at > now);
        for peer in due {
            self.conn.peers.remove(&peer);
            let _ = self.swarm.disconnect_peer_id(peer);
        }
        let now_i = Instant::now();
        let due: Vec<PeerId> = self
            .conn
            .redial
            .iter()
            .filter(|(_, r)| r.at <= now_i)
            .map(|(p, _)| *p)
            .collect();
        for peer in due {
            if self.swarm.is_connected(&peer) {
                self.conn.redial.remove(&peer);
                continue;
            }
            let addrs = self.conn.addresses.get(&peer).cloned().unwrap_or_default();
            let opts = DialOpts::peer_id(peer)
                .addresses(addrs)
                .condition(PeerCondition::DisconnectedAndNotDialing)
                .build();
            let _ = self.swarm.dial(opts);
            if let Some(r) = self.conn.redial.get_mut(&peer) {
                r.backoff = (r.backoff * 2).min(Duration::from_secs(8));
                r.at = now_i + r.backoff;
            }
        }
        // Explicit addresses whose peer is not connected: redial with back-off.
        let connected_addrs: HashSet<Multiaddr> = self
            .conn
            .addresses
            .iter()
            .filter(|(p, _)| self.swarm.is_connected(p))
            .flat_map(|(_, a)| a.iter().cloned())
            .collect();
        for addr in self.conn.explicit.clone() {
            let bare: Multiaddr = addr
                .iter()
                .filter(|p| !matches!(p, Protocol::P2p(_)))
                .collect();
            if connected_addrs.contains(&addr) || connected_addrs.contains(&bare) {
                continue;
            }
            match self
                .conn
                .explicit_redial
                .iter_mut()
                .find(|(a, _)| a == &addr)
            {
                Some((_, r)) if r.at <= now_i => {
                    let _ = self.swarm.dial(addr.clone());
                    r.backoff = (r.backoff * 2).min(Duration::from_secs(8));
                    r.at = now_i + r.backoff;
                }
                Some(_) => {}
                None => self.conn.explicit_redial.push((
                    addr,
                    Redial {
                        at: now_i + Duration::from_millis(500),
                        backoff: Duration::from_millis(500),
                    },
                )),
            }
        }
    }

    pub(super) fn on_swarm(&mut self, ev: SwarmEvent<BehaviourEvent>) {
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
                if self.conn.is_banned(&peer_id, self.now()) {
                    let _ = self.swarm.disconnect_peer_id(peer_id);
                    return;
                }
                self.meeting
                    .connection_up(peer_id, connection_id, endpoint.is_relayed());
                self.conn.redial.remove(&peer_id);
                let addr = endpoint.get_remote_address().clone();
                if endpoint.is_dialer() {
                    self.conn.remember(peer_id, [&addr]);
                    self.conn.explicit_redial.retain(|(a, _)| a != &addr);
                }
                if self.is_relay(&peer_id) {
                    self.relay_connected();
                    return;
                }
                if self.meeting.is_on() {
                    let how = if endpoint.is_relayed() {
                        "relayed"
                    } else {
                        "direct"
                    };
                    tracing::info!("{how} connection to {peer_id}: {addr}");
                }
                self.prefer_direct(peer_id);
                if !self.admitted(&peer_id) {
                    // Not (yet) proven to know the table code: no lobby with it, only the
                    // proofs. Look the friends up again now, in case it has just registered.
                    if self.meeting.has_failed(&peer_id, self.now()) {
                        let _ = self.swarm.disconnect_peer_id(peer_id);
                        return;
                    }
                    tracing::debug!("{peer_id} connected, not yet proven to know the code");
                    self.ask_proof(peer_id);
                    self.meeting.discover_soon();
                    return;
                }
                if self.conn.has_writer(&peer_id) {
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
                self.meeting.connection_down(&peer_id, connection_id);
                if self.is_relay(&peer_id) {
                    if num_established == 0 {
                        self.relay_lost(peer_id);
                    }
                    return;
                }
                if num_established > 0 {
                    // The relayed connection closed and a direct one is up: the writer may
                    // have been on the relayed one, so write over the other from now on (and
                    // say again what may have been lost with the old stream).
                    if endpoint.is_relayed() && self.conn.has_writer(&peer_id) {
                        self.open_writer(peer_id);
                        if self.admitted(&peer_id) {
                            self.greet(peer_id);
                        } else {
                            self.ask_proof(peer_id);
                        }
                    }
                    self.update_link(peer_id);
                    return;
                }
                self.meeting.disconnected(&peer_id);
                tracing::info!("disconnected from {peer_id}");
                if let (Some(key), Some(p)) = (peer_key(&peer_id), self.playing.as_mut())
                    && !p.host.is_over()
                    && key != self.me
                    && !p.host.seats_of(&key).is_empty()
                {
                    let now = self.start.elapsed().as_millis() as u64;
                    p.unreachable_since(&key, now);
                }
                self.conn.peers.remove(&peer_id);
                self.conn.versions.remove(&peer_id);
                if self.conn.unsupported.remove(&peer_id) {
                    let theirs = format!("a protocol without {}", self.conn.protocol.as_ref());
                    self.incompatible(peer_id, theirs);
                }
                self.conn.hello_names.remove(&peer_id);
                self.drop_watcher(peer_id);
                self.emit(NetEvent::Disconnected(peer_id));
                if let Some(key) = peer_key(&peer_id) {
                    let now = self.now();
                    let acts = self.lobbying.lobby.disconnected(key, now);
                    self.lobby_actions(acts);
                }
                if self.conn.addresses.contains_key(&peer_id)
                    && !self.conn.banned.contains_key(&peer_id)
                {
                    self.conn.redial.insert(
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
                    if let Some(r) = self.conn.redial.get_mut(&p) {
                        r.backoff = (r.backoff * 2).min(Duration::from_secs(8));
                        r.at = Instant::now() + r.backoff;
                    } else if self.conn.addresses.contains_key(&p)
                        && !self.swarm.is_connected(&p)
                        && !self.conn.banned.contains_key(&p)
                    {
                        // A first dial can fail (two peers that found each other by mDNS at
                        // the same moment dial each other, and both handshakes may fail);
                        // mDNS reports a peer once, so retry here, each side after its own
                        // delay so the two retries do not meet again.
                        let jitter = u64::from(p.to_bytes().last().copied().unwrap_or(0));
                        let backoff = Duration::from_millis(250 + jitter);
                        self.conn.redial.insert(
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
                    if self.conn.is_banned(&peer, self.now()) {
                        continue;
                    }
                    self.conn.remember(peer, [&addr]);
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
                if self.conn.versions.len() < 1024 {
                    self.conn
                        .versions
                        .insert(peer_id, info.protocol_version.clone());
                }
                if info.protocol_version != self.conn.version
                    || self.conn.unsupported.remove(&peer_id)
                {
                    self.incompatible(peer_id, info.protocol_version);
                }
            }
            SwarmEvent::ListenerClosed { listener_id, .. }
                if self.meeting.is_listener(listener_id) =>
            {
                self.meeting.listener_closed();
            }
            SwarmEvent::Behaviour(BehaviourEvent::Relay(
                relay::client::Event::ReservationReqAccepted {
                    relay_peer_id,
                    renewal: false,
                    ..
                },
            )) if self.is_relay(&relay_peer_id) => {
                self.relay_reserved();
            }
            SwarmEvent::Behaviour(BehaviourEvent::Relay(ev)) => {
                tracing::debug!("relay: {ev:?}");
            }
            SwarmEvent::Behaviour(BehaviourEvent::Dcutr(dcutr::Event {
                remote_peer_id,
                result,
            })) => match result {
                Ok(_) => {
                    tracing::info!("hole punched: a direct connection to {remote_peer_id}");
                    self.meeting.punched(&remote_peer_id);
                }
                Err(e) => {
                    tracing::info!("no direct connection to {remote_peer_id}: {e}");
                    self.punch_failed(remote_peer_id);
                }
            },
            SwarmEvent::Behaviour(BehaviourEvent::Rendezvous(ev)) => self.on_rendezvous(ev),
            _ => {}
        }
    }

    pub(super) fn incompatible(&mut self, peer: PeerId, theirs: String) {
        if self.conn.is_banned(&peer, self.now()) {
            return; // told already
        }
        tracing::warn!(
            "peer {peer} speaks {theirs}, this peer speaks {}: both must run the same version of mahjong",
            self.conn.version
        );
        self.emit(NetEvent::Incompatible { peer, theirs });
        // Ignore it from now on, but let identify reach it before hanging up, so that it
        // can tell its own user which version this peer speaks.
        let now = self.now();
        self.conn.banned.insert(peer, now + BAN_MS);
        self.conn.redial.remove(&peer);
        self.conn.hang_up.push((peer, now + 2000));
    }

    pub(super) fn ban(&mut self, peer: PeerId) {
        let until = self.now() + BAN_MS;
        self.conn.banned.insert(peer, until);
        self.conn.redial.remove(&peer);
        self.conn.peers.remove(&peer);
        let _ = self.swarm.disconnect_peer_id(peer);
    }

    pub(super) fn misbehaved(&mut self, peer: PeerId, why: String) {
        tracing::warn!("peer {peer} disconnected: {why}");
        self.emit(NetEvent::Misbehaved { peer, why });
        self.ban(peer);
    }

    /// Says hello to a peer and tells it of the table this peer hosts, if any.
    pub(super) fn greet(&mut self, peer: PeerId) {
        if let Some(key) = peer_key(&peer) {
            let hello = Wire::Hello {
                version: wire::WIRE_VERSION,
                name: self.settings.name.clone(),
            };
            self.send_to(&peer, &hello);
            let acts = self.lobbying.lobby.connected(key);
            self.lobby_actions(acts);
        }
    }

    pub(super) fn open_writer(&mut self, peer: PeerId) {
        let (tx, mut rx) = mpsc::channel::<Vec<u8>>(SEND_QUEUE);
        self.conn.generations += 1;
        let generation = self.conn.generations;
        let state = self.conn.peers.entry(peer).or_default();
        state.writer = Some(tx);
        state.written = wire::FrameContext::default();
        state.generation = generation;
        let mut control = self.conn.control.clone();
        let protocol = self.conn.protocol.clone();
        let report = self.conn.inbound_tx.clone();
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
        // Over the internet every stream starts with this peer's proof of the table code: a
        // proof sent on a stream that went with its connection (a relayed link replaced by a
        // direct one) is never the only one.
        self.send_proof(peer);
    }

    pub(super) fn on_stream(&mut self, peer: PeerId, mut stream: libp2p::Stream) {
        let readers = self.conn.peers.entry(peer).or_default().readers.clone();
        if readers.load(Ordering::SeqCst) >= MAX_STREAMS_PER_PEER {
            // A peer writes over one stream (two while a connection is replaced): more are
            // refused, so that streams cannot pile up partly received messages.
            tracing::debug!("{peer} opened more than {MAX_STREAMS_PER_PEER} streams: one dropped");
            return;
        }
        readers.fetch_add(1, Ordering::SeqCst);
        let report = self.conn.inbound_tx.clone();
        tokio::spawn(async move {
            // Counts the reader out however it ends.
            struct Done(Arc<AtomicU32>);
            impl Drop for Done {
                fn drop(&mut self) {
                    self.0.fetch_sub(1, Ordering::SeqCst);
                }
            }
            let _done = Done(readers);
            let mut context = wire::FrameContext::default();
            loop {
                let read = wire::read_message_within(&mut stream, wire::READ_DEADLINE).await;
                let read = read.and_then(|m| match m {
                    Some((wire, size)) => Ok(Some((context.incoming(wire)?, size))),
                    None => Ok(None),
                });
                match read {
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

    pub(super) fn send_to(&mut self, peer: &PeerId, wire: &Wire) {
        let Some(state) = self.conn.peers.get_mut(peer) else {
            return;
        };
        let Some(w) = state.writer.as_ref() else {
            return;
        };
        // The stream's frame context moves on only with a message queued on it.
        let mut context = state.written;
        let bytes = context.outgoing(wire).encode();
        if bytes.len() > MAX_MESSAGE {
            tracing::error!("refusing to send a {}-byte message", bytes.len());
            return;
        }
        let len = bytes.len() as u64 + 4;
        if w.try_send(bytes).is_ok() {
            state.written = context;
            self.conn.traffic.messages_out += 1;
            self.conn.traffic.bytes_out += len;
        } else {
            tracing::debug!("send queue to {peer} full: message dropped");
        }
    }

    pub(super) fn on_inbound(&mut self, msg: Inbound) {
        match msg {
            Inbound::Unsupported(peer) => self.incompatible(
                peer,
                "a protocol without ".to_string() + self.conn.protocol.as_ref(),
            ),
            // A peer of the table played whose message came slowly was most likely busy
            // (or this peer was): the stream is dropped and the peer may connect again at
            // once (the table's requests fill what was lost), never banned for it.
            Inbound::Broken(peer, e @ WireError::Slow(_)) if self.is_table_peer(&peer) => {
                tracing::info!("peer {peer}: {e}: the stream is dropped");
                self.conn.hang_up.push((peer, self.now()));
            }
            Inbound::Broken(peer, e) => self.misbehaved(peer, e.to_string()),
            Inbound::WriterDown(peer, generation) => {
                let current = self.conn.peers.get(&peer).map(|p| p.generation);
                if current == Some(generation) {
                    if self.swarm.is_connected(&peer) {
                        // Another connection to the peer is up: write over it, and say again
                        // what may have been lost with the old stream.
                        self.open_writer(peer);
                        if self.admitted(&peer) {
                            self.greet(peer);
                        }
                    } else if let Some(p) = self.conn.peers.get_mut(&peer) {
                        p.writer = None;
                    }
                }
            }
            Inbound::Message(peer, wire, size) => {
                if self.conn.is_banned(&peer, self.now()) {
                    return;
                }
                self.conn.traffic.messages_in += 1;
                self.conn.traffic.bytes_in += size as u64 + 4;
                let now = self.now();
                let state = self.conn.peers.entry(peer).or_default();
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
                    Wire::Hello { name, .. } => {
                        if self.conn.hello_names.len() < MAX_CONNECTIONS as usize * 2 {
                            self.conn.hello_names.insert(peer, clean_name(&name));
                        }
                    }
                    Wire::CodeProof { mac } => self.on_code_proof(peer, mac),
                    // A peer not found under the table code takes no part in the lobby.
                    _ if !self.admitted(&peer) => {}
                    wire @ (Wire::Start(_)
                    | Wire::Frame { .. }
                    | Wire::Watched { .. }
                    | Wire::WatchRefused { .. }
                    | Wire::Watchers { .. }
                    | Wire::Chat(_))
                        if self.is_server(&peer) =>
                    {
                        self.on_served(peer, wire)
                    }
                    Wire::Watch { table, from } => self.on_watch(peer, key, table, from),
                    Wire::Unwatch { table } => {
                        if self.hosted().is_some_and(|(t, _)| t == table) {
                            self.drop_watcher(peer);
                        }
                    }
                    Wire::Chat(line) => self.on_chat(peer, *line),
                    Wire::Watchers { names, chat, .. } => {
                        // From the host of the table played: who watches it.
                        if self
                            .playing
                            .as_ref()
                            .is_some_and(|p| peer_id(&p.roster.advert.host) == Some(peer))
                        {
                            let names = names
                                .iter()
                                .take(wire::MAX_WATCHERS)
                                .map(|n| clean_name(n))
                                .collect();
                            self.emit(NetEvent::Watchers { names, chat });
                        }
                    }
                    // A frame again is given back as its frame by the stream's reader.
                    Wire::Watched { .. } | Wire::WatchRefused { .. } | Wire::FrameAgain { .. } => {}
                    Wire::Frame { table, to, bytes } => self.on_frame(peer, key, table, to, bytes),
                    // A peer not found under the table code takes no part in the lobby.
                    _ if !self.admitted(&peer) => {}
                    other => {
                        let acts = self.lobbying.lobby.message(key, other, now);
                        self.lobby_actions(acts);
                    }
                }
            }
        }
    }

    pub(super) fn on_frame(
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
        // Steps of a table this peer stopped watching may still be on their way.
        let unwatched = self.gallery.is_unwatched(table, now);
        if !ours && !unwatched {
            let state = self.conn.peers.entry(peer).or_default();
            state.strays += 1;
            if state.strays > MAX_STRAY_FRAMES_PER_SECOND {
                self.misbehaved(
                    peer,
                    format!("more than {MAX_STRAY_FRAMES_PER_SECOND} frames a second for a table it does not share"),
                );
            }
        }
    }

    /// Whether `peer` is a peer of the table this peer plays at.
    pub(super) fn is_table_peer(&self, peer: &PeerId) -> bool {
        peer_key(peer).is_some_and(|k| self.playing.as_ref().is_some_and(|p| p.has_peer(&k)))
    }

    /// A peer of this table connected again: its seats, reported silent, have returned.
    pub(super) fn reachable(&mut self, peer: PeerId) {
        let Some(key) = peer_key(&peer) else {
            return;
        };
        let Some(p) = self.playing.as_mut() else {
            return;
        };
        for seat in p.reachable(&key) {
            self.emit(NetEvent::Table(TableEvent::SeatReturned { seat }));
        }
    }

    /// Seats whose peer's connection has been down for [`PEER_SILENT_MS`]: reported silent.
    pub(super) fn report_unreachable(&mut self, now: u64) {
        let Some(p) = self.playing.as_mut() else {
            return;
        };
        if p.host.is_over() {
            return;
        }
        for seat in p.silent(now) {
            self.emit(NetEvent::Table(TableEvent::SeatSilent { seat }));
        }
    }
}
