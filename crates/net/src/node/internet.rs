//! The event loop over the internet: the relay, the table code's rendezvous, and whether
//! each friend's link is direct or relayed (docs/relay.md).

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use libp2p::core::transport::ListenerId;
use libp2p::multiaddr::Protocol;
use libp2p::swarm::ConnectionId;
use libp2p::swarm::dial_opts::{DialOpts, PeerCondition};
use libp2p::{Multiaddr, PeerId, rendezvous};

use crate::wire::Wire;

use super::{
    CODE_DIAL_GRACE_MS, CODE_FAILED_MS, CODE_LATE_MS, CODE_PROOF_MS, DISCOVER_LOBBY_MS,
    DISCOVER_PLAYING_MS, EventLoop, Internet, Link, MAX_CODE_FAILED, MAX_CODE_PEERS,
    MAX_DISCOVERED, MeetError, NetEvent, PUNCH_RETRY_MS, peer_key,
};

/// Meeting the friends of a table code through a relay: the relay's reservation and the
/// rendezvous, who proved the code, and whether each friend's link is direct or relayed.
pub(super) struct Meeting {
    /// [`NetConfig::internet`], with the code's rendezvous namespace.
    internet: Option<(Internet, rendezvous::Namespace)>,
    /// The circuit listener on the relay, while it is up.
    relay_listener: Option<ListenerId>,
    /// The QUIC addresses to listen on when a relay is met over QUIC: one per TCP listen
    /// address, same host, any UDP port ([`EventLoop::listen_quic`]).
    quic_listen: Vec<Multiaddr>,
    /// Listening on QUIC already.
    quic_up: bool,
    /// The relay holds a reservation for this peer.
    reserved: bool,
    /// Registered under the code's namespace since the reservation.
    registered: bool,
    /// When the registration was last asked for (ms).
    last_register: u64,
    /// When the friends were last looked up (ms).
    last_discover: u64,
    /// Peers found under the code and not yet proven: when each was first seen (ms).
    code_peers: HashMap<PeerId, u64>,
    /// Peers that proved they know the table code (admitted to its lobby).
    proven: HashSet<PeerId>,
    /// Peers this one sent its own proof to (on the current writer's generation).
    proof_sent: HashMap<PeerId, u64>,
    /// Connected peers that have not proven the code yet: since when (ms).
    unproven: HashMap<PeerId, u64>,
    /// Peers that failed to prove the code: not dialled or looked at until then (ms).
    code_failed: HashMap<PeerId, u64>,
    /// Every connection up, by peer: whether it is relayed.
    conns: HashMap<PeerId, HashMap<ConnectionId, bool>>,
    /// The link last told for each friend.
    links: HashMap<PeerId, Link>,
    /// Friends whose hole punching failed: when to try again (ms), the failures so far, and
    /// how many connections were up when it failed (more at the time due: the friend has
    /// dialled again already).
    punch_retry: HashMap<PeerId, PunchRetry>,
}

/// A hole punch to try again ([`PUNCH_RETRY_MS`]).
#[derive(Clone, Copy, Debug)]
struct PunchRetry {
    at: u64,
    failures: usize,
    conns: usize,
}

impl Meeting {
    /// Meeting at `internet`'s relay if any; `quic_up` when listening on QUIC already.
    pub(super) fn new(
        internet: Option<(Internet, rendezvous::Namespace)>,
        quic_listen: Vec<Multiaddr>,
        quic_up: bool,
    ) -> Meeting {
        Meeting {
            internet,
            relay_listener: None,
            quic_listen,
            quic_up,
            reserved: false,
            registered: false,
            last_register: 0,
            last_discover: 0,
            code_peers: HashMap::new(),
            proven: HashSet::new(),
            proof_sent: HashMap::new(),
            unproven: HashMap::new(),
            code_failed: HashMap::new(),
            conns: HashMap::new(),
            links: HashMap::new(),
            punch_retry: HashMap::new(),
        }
    }

    /// Whether this peer meets its friends through a relay.
    pub(super) fn is_on(&self) -> bool {
        self.internet.is_some()
    }

    /// A connection to `peer` is up.
    pub(super) fn connection_up(&mut self, peer: PeerId, id: ConnectionId, relayed: bool) {
        self.conns.entry(peer).or_default().insert(id, relayed);
    }

    /// A connection to `peer` closed.
    pub(super) fn connection_down(&mut self, peer: &PeerId, id: ConnectionId) {
        if let Some(c) = self.conns.get_mut(peer) {
            c.remove(&id);
            if c.is_empty() {
                self.conns.remove(peer);
            }
        }
    }

    /// The last connection to `peer` closed: its link, its proof and its wait for one are
    /// forgotten (a peer that proved the code stays proven).
    pub(super) fn disconnected(&mut self, peer: &PeerId) {
        self.links.remove(peer);
        self.proof_sent.remove(peer);
        self.unproven.remove(peer);
    }

    /// Whether `peer` failed to prove the code and is not looked at until later than `now`.
    pub(super) fn has_failed(&self, peer: &PeerId, now: u64) -> bool {
        self.code_failed.get(peer).is_some_and(|&u| u > now)
    }

    /// Looks the friends up again at the next tick.
    pub(super) fn discover_soon(&mut self) {
        self.last_discover = 0;
    }

    /// Whether `id` is the circuit listener on the relay.
    pub(super) fn is_listener(&self, id: ListenerId) -> bool {
        self.relay_listener == Some(id)
    }

    /// The circuit listener on the relay closed: no reservation, no registration.
    pub(super) fn listener_closed(&mut self) {
        self.relay_listener = None;
        self.reserved = false;
        self.registered = false;
    }

    /// Hole punching to `peer` worked: no retry.
    pub(super) fn punched(&mut self, peer: &PeerId) {
        self.punch_retry.remove(peer);
    }

    /// How each friend is linked, lowest peer id first.
    pub(super) fn links(&self) -> Vec<(PeerId, Link)> {
        let mut links: Vec<(PeerId, Link)> = self.links.iter().map(|(p, l)| (*p, *l)).collect();
        links.sort_by_key(|(p, _)| p.to_bytes());
        links
    }
}

impl EventLoop {
    // ---- over the internet: the relay, the table code, direct or relayed links ----

    /// The last connection to the relay closed: its circuit listener goes with it (a new one
    /// is made when the relay is back), and the caller is told.
    pub(super) fn relay_lost(&mut self, peer: PeerId) {
        tracing::warn!("lost the relay {peer}: redialling it");
        if let Some(id) = self.meeting.relay_listener.take() {
            self.swarm.remove_listener(id);
        }
        self.meeting.reserved = false;
        self.meeting.registered = false;
        let relay = self
            .meeting
            .internet
            .as_ref()
            .map(|(i, _)| i.relay.clone())
            .unwrap_or_else(Multiaddr::empty);
        let direct = self.direct_friends();
        self.emit(NetEvent::RelayLost { relay, direct });
    }

    /// The relay holds a reservation for this peer (a new one, not a renewal): told, and the
    /// relayed address is registered under the code.
    pub(super) fn relay_reserved(&mut self) {
        let me = *self.swarm.local_peer_id();
        if let Some((i, _)) = &self.meeting.internet {
            let addr = i
                .relay
                .clone()
                .with(Protocol::P2pCircuit)
                .with(Protocol::P2p(me));
            tracing::info!("the relay holds a reservation: reachable at {addr}");
            self.emit(NetEvent::RelayReserved(addr));
        }
        self.meeting.reserved = true;
        self.meeting.registered = false;
        self.meeting.last_register = 0;
        self.register();
    }

    /// Switches to (another) table code and relay while running.
    pub(super) fn meet(&mut self, internet: Internet) -> Result<(), MeetError> {
        let ns = rendezvous::Namespace::new(internet.code.namespace())?;
        if let Some((old, old_ns)) = self.meeting.internet.take() {
            let relay = old.relay_peer;
            if self.swarm.is_connected(&relay) {
                self.swarm
                    .behaviour_mut()
                    .rendezvous
                    .unregister(old_ns, relay);
            }
            if old.relay != internet.relay {
                self.conn.forget_explicit(&old.relay);
                if let Some(id) = self.meeting.relay_listener.take() {
                    self.swarm.remove_listener(id);
                }
                self.meeting.reserved = false;
                let _ = self.swarm.disconnect_peer_id(relay);
            }
        }
        if internet.is_quic() {
            self.listen_quic();
        }
        self.meeting.code_peers.clear();
        self.meeting.proven.clear();
        self.meeting.proof_sent.clear();
        self.meeting.unproven.clear();
        self.meeting.registered = false;
        self.meeting.last_register = 0;
        self.meeting.last_discover = 0;
        let relay = internet.relay.clone();
        let relay_peer = internet.relay_peer;
        tracing::info!(
            "meeting the friends of table code {} at {relay}",
            internet.code
        );
        self.meeting.internet = Some((internet, ns));
        // Peers in the lobby that are not (yet) found under the code leave it.
        let others: Vec<PeerId> = self.conn.writers().filter(|p| !self.admitted(p)).collect();
        let now = self.now();
        for peer in others {
            self.conn.remove_peer(&peer);
            self.meeting.links.remove(&peer);
            self.emit(NetEvent::Disconnected(peer));
            if let Some(key) = peer_key(&peer) {
                let acts = self.lobbying.lobby.disconnected(key, now);
                self.lobby_actions(acts);
            }
        }
        self.conn.keep_dialling_always(relay.clone());
        if self.swarm.is_connected(&relay_peer) {
            if self.meeting.reserved {
                self.register();
            } else {
                self.relay_connected();
            }
        } else if let Err(e) = self.swarm.dial(relay.clone()) {
            tracing::warn!("dial the relay {relay}: {e}");
        }
        Ok(())
    }

    /// Listens on QUIC (once): a relay met over QUIC observes this peer's UDP port, and
    /// DCUtR punches from it.
    fn listen_quic(&mut self) {
        if std::mem::replace(&mut self.meeting.quic_up, true) {
            return;
        }
        for addr in self.meeting.quic_listen.clone() {
            if let Err(e) = self.swarm.listen_on(addr.clone()) {
                tracing::warn!("cannot listen on {addr}: {e}");
            }
        }
    }

    pub(super) fn is_relay(&self, peer: &PeerId) -> bool {
        self.meeting
            .internet
            .as_ref()
            .is_some_and(|(i, _)| i.relay_peer == *peer)
    }

    /// Whether a connected peer takes part in the lobby: on a LAN every peer; with a table
    /// code, the peers that proved they know the code and those of the table this peer sits
    /// at.
    pub(super) fn admitted(&self, peer: &PeerId) -> bool {
        if self.meeting.internet.is_none() {
            return true;
        }
        if self.is_relay(peer) {
            return false;
        }
        self.meeting.proven.contains(peer) || self.is_table_peer(peer)
    }

    /// A peer of the lobby from now on: a writer, a hello, the lobby's state.
    pub(super) fn admit(&mut self, peer: PeerId) {
        tracing::info!("connected to {peer}");
        self.meeting.unproven.remove(&peer);
        self.reachable(peer);
        if !self.conn.has_writer(&peer) {
            self.open_writer(peer);
        }
        self.send_proof(peer);
        self.emit(NetEvent::Connected(peer));
        self.greet(peer);
        self.update_link(peer);
    }

    /// Over the internet, to a peer connected and not (yet) proven: a writer and this peer's
    /// proof of the code, and nothing else until the other's proof comes (within
    /// [`CODE_PROOF_MS`]).
    pub(super) fn ask_proof(&mut self, peer: PeerId) {
        let now = self.now();
        self.meeting.unproven.entry(peer).or_insert(now);
        if !self.conn.has_writer(&peer) {
            self.open_writer(peer);
        }
        self.send_proof(peer);
    }

    /// Sends this peer's proof of the code to `peer`, once per writer.
    pub(super) fn send_proof(&mut self, peer: PeerId) {
        let Some((i, _)) = &self.meeting.internet else {
            return;
        };
        let Some(generation) = self.conn.generation(&peer) else {
            return;
        };
        if self.meeting.proof_sent.get(&peer) == Some(&generation) {
            return;
        }
        let me = *self.swarm.local_peer_id();
        let mac = i.proven_code().proof(&me.to_bytes(), &peer.to_bytes());
        self.meeting.proof_sent.insert(peer, generation);
        self.send_to(&peer, &Wire::CodeProof { mac });
    }

    /// A peer's proof of the code: right, it joins the lobby; wrong, it is dropped.
    pub(super) fn on_code_proof(&mut self, peer: PeerId, mac: [u8; 32]) {
        let Some((i, _)) = &self.meeting.internet else {
            return;
        };
        if self.meeting.proven.contains(&peer) {
            return;
        }
        let me = *self.swarm.local_peer_id();
        if mac != i.proven_code().proof(&peer.to_bytes(), &me.to_bytes()) {
            self.code_failed(peer);
            self.misbehaved(
                peer,
                "it does not know the table code (a wrong proof)".into(),
            );
            return;
        }
        tracing::info!("{peer} proved it knows the table code");
        self.meeting.proven.insert(peer);
        self.meeting.code_peers.remove(&peer);
        if self.swarm.is_connected(&peer) {
            self.admit(peer);
        }
    }

    /// Remembers that `peer` failed to prove the code (bounded: the oldest is forgotten).
    fn code_failed(&mut self, peer: PeerId) {
        let now = self.now();
        self.meeting.code_peers.remove(&peer);
        self.meeting.unproven.remove(&peer);
        if self.meeting.code_failed.len() >= MAX_CODE_FAILED
            && let Some(oldest) = self
                .meeting
                .code_failed
                .iter()
                .min_by_key(|(_, until)| **until)
                .map(|(p, _)| *p)
        {
            self.meeting.code_failed.remove(&oldest);
        }
        self.meeting.code_failed.insert(peer, now + CODE_FAILED_MS);
    }

    /// Drops the peers connected longer than [`CODE_PROOF_MS`] without proving the code.
    fn prune_unproven(&mut self, now: u64) {
        let late: Vec<PeerId> = self
            .meeting
            .unproven
            .iter()
            .filter(|(_, since)| now >= **since + CODE_PROOF_MS)
            .map(|(p, _)| *p)
            .collect();
        for peer in late {
            self.meeting.unproven.remove(&peer);
            if self.admitted(&peer) {
                continue;
            }
            tracing::info!("{peer} did not prove it knows the table code in time: dropped");
            self.code_failed(peer);
            // Late, not wrong (a proof lost with a connection): looked at again sooner.
            let now = self.now();
            self.meeting.code_failed.insert(peer, now + CODE_LATE_MS);
            self.conn.remove_peer(&peer);
            self.meeting.proof_sent.remove(&peer);
            let _ = self.swarm.disconnect_peer_id(peer);
        }
        self.meeting.code_failed.retain(|_, until| *until > now);
    }

    /// Connected to the relay: reserve a relayed address on it (once per connection).
    pub(super) fn relay_connected(&mut self) {
        if self.meeting.relay_listener.is_some() {
            return;
        }
        let Some((i, _)) = &self.meeting.internet else {
            return;
        };
        let circuit = i.relay.clone().with(Protocol::P2pCircuit);
        match self.swarm.listen_on(circuit.clone()) {
            Ok(id) => self.meeting.relay_listener = Some(id),
            Err(e) => tracing::warn!("cannot listen on {circuit}: {e}"),
        }
    }

    /// Registers the relayed address under the code's namespace.
    pub(super) fn register(&mut self) {
        let now = self.now();
        let Some((i, ns)) = &self.meeting.internet else {
            return;
        };
        let (relay, ns) = (i.relay_peer, ns.clone());
        self.meeting.last_register = now;
        if let Err(e) = self
            .swarm
            .behaviour_mut()
            .rendezvous
            .register(ns, relay, None)
        {
            tracing::debug!("rendezvous registration not yet possible: {e}");
        }
    }

    pub(super) fn on_rendezvous(&mut self, ev: rendezvous::client::Event) {
        match ev {
            rendezvous::client::Event::Registered { ttl, .. } => {
                tracing::info!("registered under the table code for {ttl} s");
                self.meeting.registered = true;
                self.meeting.last_discover = 0;
            }
            rendezvous::client::Event::RegisterFailed { error, .. } => {
                tracing::warn!("the relay refused the registration: {error:?}");
            }
            rendezvous::client::Event::Discovered { registrations, .. } => {
                let me = *self.swarm.local_peer_id();
                let now = self.now();
                for reg in registrations {
                    let peer = reg.record.peer_id();
                    if peer == me
                        || self.is_relay(&peer)
                        || self
                            .meeting
                            .code_failed
                            .get(&peer)
                            .is_some_and(|&u| u > now)
                    {
                        continue;
                    }
                    // Unproven peers are bounded (a flood of registrations fills this, and
                    // each one that does not prove the code within CODE_PROOF_MS of its
                    // connection is dropped); proven ones are not counted.
                    if !self.meeting.proven.contains(&peer)
                        && !self.meeting.code_peers.contains_key(&peer)
                    {
                        if self.meeting.code_peers.len() >= MAX_CODE_PEERS {
                            continue;
                        }
                        tracing::info!("found {peer} under the table code");
                        self.meeting.code_peers.insert(peer, now);
                    }
                    self.conn.remember(peer, reg.record.addresses());
                    if self.conn.is_banned(&peer, now) {
                        continue;
                    }
                    if self.swarm.is_connected(&peer) {
                        if self.admitted(&peer) {
                            if !self.conn.has_writer(&peer) {
                                self.admit(peer);
                            }
                        } else {
                            self.ask_proof(peer);
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

    pub(super) fn dial_friend(&mut self, peer: PeerId) {
        let addrs = self.conn.addresses(&peer).to_vec();
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
    pub(super) fn internet_tick(&mut self, now: u64) {
        let Some((i, ns)) = self.meeting.internet.clone() else {
            return;
        };
        self.prune_unproven(now);
        // A peer found long ago that never connected nor proved: forgotten, so that a flood
        // of registrations cannot hold the places of friends who register later.
        self.meeting.code_peers.retain(|p, since| {
            now < *since + 3 * CODE_PROOF_MS || self.meeting.unproven.contains_key(p)
        });
        if !self.meeting.reserved {
            return;
        }
        if !self.meeting.registered && now >= self.meeting.last_register + 3000 {
            self.register();
        }
        let every = if self.playing.is_some() {
            DISCOVER_PLAYING_MS
        } else {
            DISCOVER_LOBBY_MS
        };
        if self.meeting.registered
            && (self.meeting.last_discover == 0 || now >= self.meeting.last_discover + every)
        {
            self.meeting.last_discover = now;
            self.swarm.behaviour_mut().rendezvous.discover(
                Some(ns),
                None,
                Some(MAX_DISCOVERED),
                i.relay_peer,
            );
        }
        let me = *self.swarm.local_peer_id();
        let late: Vec<PeerId> = self
            .meeting
            .code_peers
            .iter()
            .filter(|(p, since)| {
                me > **p
                    && now >= **since + CODE_DIAL_GRACE_MS
                    && !self.swarm.is_connected(p)
                    && !self.conn.is_redialling(p)
                    && !self.conn.is_banned(p, now)
            })
            .map(|(p, _)| *p)
            .collect();
        for peer in late {
            self.conn.redial_now(peer, Duration::from_millis(500));
        }
        self.punch_again(now);
    }

    /// DCUtR gave up on `peer`: the relayed connections it left beyond the first are closed
    /// (the writer moves if it was on one), and another try is planned ([`PUNCH_RETRY_MS`]).
    pub(super) fn punch_failed(&mut self, peer: PeerId) {
        let Some(c) = self.meeting.conns.get(&peer) else {
            return;
        };
        if is_direct(c) {
            return; // direct after all
        }
        let mut ids: Vec<ConnectionId> = c.keys().copied().collect();
        ids.sort();
        for id in ids.iter().skip(1) {
            self.swarm.close_connection(*id);
        }
        let failures = self
            .meeting
            .punch_retry
            .get(&peer)
            .map_or(0, |r| r.failures)
            + 1;
        let Some(wait) = PUNCH_RETRY_MS.get(failures - 1) else {
            tracing::info!(
                "{peer} stays linked through the relay: hole punching failed {failures} times"
            );
            return;
        };
        // The higher peer id waits a little longer: of a pair, one dials again.
        let me = *self.swarm.local_peer_id();
        let wait = if me < peer { *wait } else { wait + 5000 };
        tracing::info!(
            "hole punching to {peer} failed: trying again in {} s",
            wait / 1000
        );
        self.meeting.punch_retry.insert(
            peer,
            PunchRetry {
                at: self.now() + wait,
                failures,
                conns: 1,
            },
        );
    }

    /// The planned hole punches that are due: a new relayed connection to the friend, over
    /// which its DCUtR tries again. Skipped when the link went direct meanwhile or the friend
    /// already dialled again.
    fn punch_again(&mut self, now: u64) {
        let due: Vec<(PeerId, PunchRetry)> = self
            .meeting
            .punch_retry
            .iter()
            .filter(|(_, r)| r.at <= now && r.at != u64::MAX)
            .map(|(p, r)| (*p, *r))
            .collect();
        for (peer, retry) in due {
            let conns = self.meeting.conns.get(&peer).map_or(0, HashMap::len);
            let direct = self.meeting.conns.get(&peer).is_some_and(is_direct);
            if direct || conns == 0 {
                self.meeting.punch_retry.remove(&peer);
                continue;
            }
            // Kept (at no time) so that the count of failures goes on.
            self.meeting.punch_retry.insert(
                peer,
                PunchRetry {
                    at: u64::MAX,
                    ..retry
                },
            );
            if conns > retry.conns {
                continue; // the friend dialled again: its connection makes this side punch
            }
            let addrs: Vec<Multiaddr> = self
                .conn
                .addresses(&peer)
                .iter()
                .filter(|a| a.iter().any(|p| p == Protocol::P2pCircuit))
                .cloned()
                .collect();
            if addrs.is_empty() {
                continue;
            }
            tracing::info!("trying hole punching to {peer} again");
            let opts = DialOpts::peer_id(peer)
                .addresses(addrs)
                .condition(PeerCondition::Always)
                .build();
            if let Err(e) = self.swarm.dial(opts) {
                tracing::debug!("dial {peer} again through the relay: {e}");
            }
        }
    }

    /// A direct connection to `peer` is up: its relayed ones are closed, so that the table's
    /// bytes no longer go through the relay.
    pub(super) fn prefer_direct(&mut self, peer: PeerId) {
        let Some(c) = self.meeting.conns.get(&peer) else {
            return;
        };
        if !is_direct(c) {
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
    pub(super) fn update_link(&mut self, peer: PeerId) {
        let Some(c) = self.meeting.conns.get(&peer) else {
            self.meeting.links.remove(&peer);
            return;
        };
        let link = if is_direct(c) {
            Link::Direct
        } else {
            Link::Relayed
        };
        if self.meeting.links.get(&peer) != Some(&link) && self.meeting.links.len() < 1024 {
            self.meeting.links.insert(peer, link);
            tracing::info!("link to {peer}: {link:?}");
            self.emit(NetEvent::Link { peer, link });
        }
    }
}

/// Whether one of a peer's connections (each: whether it is relayed) is direct.
impl EventLoop {
    /// Friends (peers of the lobby or the table, not the relay) with a direct connection up.
    pub(super) fn direct_friends(&self) -> usize {
        self.meeting
            .conns
            .iter()
            .filter(|(p, c)| !self.is_relay(p) && self.admitted(p) && is_direct(c))
            .count()
    }
}

fn is_direct(conns: &HashMap<ConnectionId, bool>) -> bool {
    conns.values().any(|relayed| !relayed)
}
