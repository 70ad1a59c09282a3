//! The event loop over the internet: the relay, the table code's rendezvous, and whether
//! each friend's link is direct or relayed (docs/relay.md).

use super::*;

impl EventLoop {
    // ---- over the internet: the relay, the table code, direct or relayed links ----

    /// Switches to (another) table code and relay while running.
    pub(super) fn meet(&mut self, internet: Internet) -> Result<(), String> {
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
        if internet.is_quic() {
            self.listen_quic();
        }
        self.code_peers.clear();
        self.proven.clear();
        self.proof_sent.clear();
        self.unproven.clear();
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

    /// Listens on QUIC (once): a relay met over QUIC observes this peer's UDP port, and
    /// DCUtR punches from it.
    fn listen_quic(&mut self) {
        if std::mem::replace(&mut self.quic_up, true) {
            return;
        }
        for addr in self.quic_listen.clone() {
            if let Err(e) = self.swarm.listen_on(addr.clone()) {
                tracing::warn!("cannot listen on {addr}: {e}");
            }
        }
    }

    pub(super) fn is_relay(&self, peer: &PeerId) -> bool {
        self.internet
            .as_ref()
            .is_some_and(|(i, _)| i.relay_peer == *peer)
    }

    /// Whether a connected peer takes part in the lobby: on a LAN every peer; with a table
    /// code, the peers that proved they know the code and those of the table this peer sits
    /// at.
    pub(super) fn admitted(&self, peer: &PeerId) -> bool {
        if self.internet.is_none() {
            return true;
        }
        if self.is_relay(peer) {
            return false;
        }
        self.proven.contains(peer) || self.is_table_peer(peer)
    }

    /// A peer of the lobby from now on: a writer, a hello, the lobby's state.
    pub(super) fn admit(&mut self, peer: PeerId) {
        tracing::info!("connected to {peer}");
        self.unproven.remove(&peer);
        self.reachable(peer);
        if self.peers.get(&peer).is_none_or(|p| p.writer.is_none()) {
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
        self.unproven.entry(peer).or_insert(now);
        if self.peers.get(&peer).is_none_or(|p| p.writer.is_none()) {
            self.open_writer(peer);
        }
        self.send_proof(peer);
    }

    /// Sends this peer's proof of the code to `peer`, once per writer.
    pub(super) fn send_proof(&mut self, peer: PeerId) {
        let Some((i, _)) = &self.internet else {
            return;
        };
        let Some(generation) = self.peers.get(&peer).map(|p| p.generation) else {
            return;
        };
        if self.proof_sent.get(&peer) == Some(&generation) {
            return;
        }
        let me = *self.swarm.local_peer_id();
        let mac = i.proven_code().proof(&me.to_bytes(), &peer.to_bytes());
        self.proof_sent.insert(peer, generation);
        self.send_to(&peer, &Wire::CodeProof { mac });
    }

    /// A peer's proof of the code: right, it joins the lobby; wrong, it is dropped.
    pub(super) fn on_code_proof(&mut self, peer: PeerId, mac: [u8; 32]) {
        let Some((i, _)) = &self.internet else {
            return;
        };
        if self.proven.contains(&peer) {
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
        self.proven.insert(peer);
        self.code_peers.remove(&peer);
        if self.swarm.is_connected(&peer) {
            self.admit(peer);
        }
    }

    /// Remembers that `peer` failed to prove the code (bounded: the oldest is forgotten).
    fn code_failed(&mut self, peer: PeerId) {
        let now = self.now();
        self.code_peers.remove(&peer);
        self.unproven.remove(&peer);
        if self.code_failed.len() >= MAX_CODE_FAILED
            && let Some(oldest) = self
                .code_failed
                .iter()
                .min_by_key(|(_, until)| **until)
                .map(|(p, _)| *p)
        {
            self.code_failed.remove(&oldest);
        }
        self.code_failed.insert(peer, now + CODE_FAILED_MS);
    }

    /// Drops the peers connected longer than [`CODE_PROOF_MS`] without proving the code.
    fn prune_unproven(&mut self, now: u64) {
        let late: Vec<PeerId> = self
            .unproven
            .iter()
            .filter(|(_, since)| now >= **since + CODE_PROOF_MS)
            .map(|(p, _)| *p)
            .collect();
        for peer in late {
            self.unproven.remove(&peer);
            if self.admitted(&peer) {
                continue;
            }
            tracing::info!("{peer} did not prove it knows the table code in time: dropped");
            self.code_failed(peer);
            // Late, not wrong (a proof lost with a connection): looked at again sooner.
            let now = self.now();
            self.code_failed.insert(peer, now + CODE_LATE_MS);
            self.peers.remove(&peer);
            self.proof_sent.remove(&peer);
            let _ = self.swarm.disconnect_peer_id(peer);
        }
        self.code_failed.retain(|_, until| *until > now);
    }

    /// Connected to the relay: reserve a relayed address on it (once per connection).
    pub(super) fn relay_connected(&mut self) {
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
    pub(super) fn register(&mut self) {
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

    pub(super) fn on_rendezvous(&mut self, ev: rendezvous::client::Event) {
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
                    if peer == me
                        || self.is_relay(&peer)
                        || self.code_failed.get(&peer).is_some_and(|&u| u > now)
                    {
                        continue;
                    }
                    // Unproven peers are bounded (a flood of registrations fills this, and
                    // each one that does not prove the code within CODE_PROOF_MS of its
                    // connection is dropped); proven ones are not counted.
                    if !self.proven.contains(&peer) && !self.code_peers.contains_key(&peer) {
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
                        if self.admitted(&peer) {
                            if self.peers.get(&peer).is_none_or(|p| p.writer.is_none()) {
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
    pub(super) fn internet_tick(&mut self, now: u64) {
        let Some((i, ns)) = self.internet.clone() else {
            return;
        };
        self.prune_unproven(now);
        // A peer found long ago that never connected nor proved: forgotten, so that a flood
        // of registrations cannot hold the places of friends who register later.
        self.code_peers
            .retain(|p, since| now < *since + 3 * CODE_PROOF_MS || self.unproven.contains_key(p));
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
                Some(MAX_DISCOVERED),
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
        self.punch_again(now);
    }

    /// DCUtR gave up on `peer`: the relayed connections it left beyond the first are closed
    /// (the writer moves if it was on one), and another try is planned ([`PUNCH_RETRY_MS`]).
    pub(super) fn punch_failed(&mut self, peer: PeerId) {
        let Some(c) = self.conns.get(&peer) else {
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
        let failures = self.punch_retry.get(&peer).map_or(0, |r| r.failures) + 1;
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
        self.punch_retry.insert(
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
            .punch_retry
            .iter()
            .filter(|(_, r)| r.at <= now && r.at != u64::MAX)
            .map(|(p, r)| (*p, *r))
            .collect();
        for (peer, retry) in due {
            let conns = self.conns.get(&peer).map_or(0, HashMap::len);
            let direct = self.conns.get(&peer).is_some_and(is_direct);
            if direct || conns == 0 {
                self.punch_retry.remove(&peer);
                continue;
            }
            // Kept (at no time) so that the count of failures goes on.
            self.punch_retry.insert(
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
                .addresses
                .get(&peer)
                .map(|a| {
                    a.iter()
                        .filter(|a| a.iter().any(|p| p == Protocol::P2pCircuit))
                        .cloned()
                        .collect()
                })
                .unwrap_or_default();
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
        let Some(c) = self.conns.get(&peer) else {
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
        let Some(c) = self.conns.get(&peer) else {
            self.links.remove(&peer);
            return;
        };
        let link = if is_direct(c) {
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
}

/// Whether one of a peer's connections (each: whether it is relayed) is direct.
impl EventLoop {
    /// Friends (peers of the lobby or the table, not the relay) with a direct connection up.
    pub(super) fn direct_friends(&self) -> usize {
        self.conns
            .iter()
            .filter(|(p, c)| !self.is_relay(p) && self.admitted(p) && is_direct(c))
            .count()
    }
}

fn is_direct(conns: &HashMap<ConnectionId, bool>) -> bool {
    conns.values().any(|relayed| !relayed)
}
