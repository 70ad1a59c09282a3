//! The event loop's lobby side: its tick (silent table peers, redials, the lobby's own
//! tick and adverts) and the caller's commands.

use super::*;

impl EventLoop {
    pub(super) fn on_tick(&mut self) {
        let now = self.now();
        self.report_unreachable(now);
        self.watch_tick(now);
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
                let acts = self.lobby.repeat();
                self.lobby_actions(acts);
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

    /// The table is over: back in the lobby, free to open or take another table. The lobby
    /// keeps what it knows of the others' tables and who it set aside; the peers whose seats
    /// did not accept a failed set-up are not seated again for a while
    /// ([`Lobby::restart`]).
    pub(super) fn back_to_lobby(&mut self, now: u64) {
        let (table, failed) = match self.playing.take() {
            Some(p) => {
                let failed: Vec<VerifyingKey> = p
                    .host
                    .setup_culprits()
                    .iter()
                    .map(|&s| p.seats[s as usize & 3].peer)
                    .collect();
                (Some(p.host.table()), failed)
            }
            None => (None, Vec::new()),
        };
        self.proposal = None;
        self.lobby.restart(now, table, &failed);
        self.emit(NetEvent::Lobby(self.lobby.tables()));
    }

    pub(super) fn lobby_actions(&mut self, actions: Vec<Action>) {
        self.lobby_dirty |= !actions.is_empty();
        for a in actions {
            match a {
                Action::Broadcast(w) => {
                    // Only to the lobby: over the internet a peer that has not proven the
                    // table code hears nothing of it.
                    let peers: Vec<PeerId> = self
                        .peers
                        .keys()
                        .copied()
                        .filter(|p| self.admitted(p))
                        .collect();
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

    pub(super) fn on_command(&mut self, cmd: Command) {
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
            Command::Say(text, tx) => {
                let _ = tx.send(self.say(&text));
            }
            Command::TurnAway(name, tx) => {
                let _ = tx.send(self.turn_away(&name));
            }
            Command::Watch(table, tx) => {
                let _ = tx.send(self.watch(table));
            }
            Command::SetWatchers(policy, tx) => {
                self.watch_policy = policy;
                let _ = tx.send(());
            }
            Command::StopWatching(tx) => {
                self.stop_watching();
                let _ = tx.send(());
            }
            Command::EndTable(tx) => {
                let ended = match self.playing.take() {
                    Some(p) => {
                        let table = p.host.table();
                        tracing::info!("table {} ended here, unfinished", hex(&table));
                        self.storage.finish_table(&table).map_err(|e| e.to_string())
                    }
                    None => Ok(()),
                };
                let _ = tx.send(ended);
            }
            Command::Links(tx) => {
                let mut links: Vec<(PeerId, Link)> =
                    self.links.iter().map(|(p, l)| (*p, *l)).collect();
                links.sort_by_key(|(p, _)| p.to_bytes());
                let _ = tx.send(links);
            }
        }
    }
}
