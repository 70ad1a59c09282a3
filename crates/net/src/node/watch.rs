//! Watching a table (docs/watching.md); talking at it is [`super::talk`]'s.
//!
//! **Serving.** The table's host serves its watchers: a friend's [`Wire::Watch`] is answered
//! with the signed roster ([`Wire::Start`]), then the steps of the log from the step asked
//! for, read from the host seat's journal ([`Storage::steps`]) as [`Wire::Frame`]s with no
//! seat bit, at most [`WATCH_BATCH_BYTES`] a time and [`WATCH_ASKS_PER_SECOND`] times a
//! second, closed by [`Wire::Watched`]; the next batch goes when the watcher has taken the
//! last (it asks from past it), and once it has everything, each step goes to it as the host
//! seat logs it. Only logged steps are sent (the seats' own secrets, their
//! journals' `Own` records and their prompts never are), so a watcher gets nothing that opens
//! a concealed tile before the hand's audit. At most [`MAX_WATCHERS`] are served; one that
//! leaves more than [`MAX_WATCHER_IN_FLIGHT`] bytes untaken, or whose send queue cannot take a
//! batch, does not read and is dropped. A
//! table whose host set "no watchers" refuses every one with [`Wire::WatchRefused`]; the host
//! may turn one away. The seated peers and the watchers are told who watches
//! ([`Wire::Watchers`]) at every change.
//!
//! **Watching** ([`NetConfig::watch`]): the peer takes no seat; it finds the started table
//! (the first, or the one named) in the lobby's adverts, asks its host, and follows the log
//! with a [`mahjong_table::Follower::watching`], which checks every entry as a seat does. An
//! entry the host changed (not its seat's signature), another history, or a step the rules
//! refuse is a lie told to this watcher: [`NetEvent::Lied`] names the host's peer and the
//! watcher stops.

use std::collections::HashSet;

use ed25519_dalek::VerifyingKey;
use libp2p::PeerId;
use mahjong_rules::Seat;
use mahjong_store::clean_name;
use mahjong_table::{Follower, Misfit, Rejected};

use crate::wire::MAX_WATCHERS;
use crate::wire::{TableId, TableState, Wire};

use super::{EventLoop, NetEvent, SEND_QUEUE, WatchError, hex, peer_id, peer_key};

/// Most bytes of steps sent to a watcher for one [`Wire::Watch`].
pub const WATCH_BATCH_BYTES: usize = 256 * 1024;
/// [`Wire::Watch`]es of one watcher answered a second (more are ignored).
pub const WATCH_ASKS_PER_SECOND: u32 = 4;
/// Most messages of one batch ([`WATCHER_QUEUE`] plus a batch fit the send queue).
const WATCH_BATCH_MESSAGES: usize = 512;
/// Bytes sent to a watcher and not yet taken (it asks from past them) before it is dropped
/// as not reading: what one watcher can make its host hold.
pub const MAX_WATCHER_IN_FLIGHT: usize = 4 << 20;
/// How long a batch may go untaken before it is sent again (it was lost) (ms).
const WATCH_RESEND_MS: u64 = 3000;
/// How often a watcher asks again for what it lacks (ms).
pub const WATCH_ASK_MS: u64 = 1000;
/// How long the steps of a table no longer watched are dropped quietly (ms).
const UNWATCHED_MS: u64 = 10_000;

/// Whether a table takes watchers, and whether they may talk (its host's choice).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WatchPolicy {
    /// Friends may watch.
    pub allow: bool,
    /// Watchers may talk at the table.
    pub chat: bool,
}

impl Default for WatchPolicy {
    fn default() -> WatchPolicy {
        WatchPolicy {
            allow: true,
            chat: true,
        }
    }
}

/// What a watching peer looks for ([`NetConfig::watch`]).
#[derive(Clone, Debug, Default)]
pub struct WatchTarget {
    /// The table's id, or its first hex digits; `None`: the first started table found.
    pub table: Option<String>,
}

/// Watching, both ways: the watchers of the table this peer hosts, and the table this peer
/// watches (a watcher takes no seat).
pub(super) struct Gallery {
    /// Whether the table this peer hosts takes watchers, and lets them talk.
    watch_policy: WatchPolicy,
    /// The watchers this peer's table serves.
    served: Vec<Served>,
    /// Watchers turned away from the table this peer hosts (their identity keys).
    turned_away: HashSet<[u8; 32]>,
    /// The table this peer watches (a watcher takes no seat).
    watching: Option<Watching>,
    /// [`NetConfig::lie_to_watchers`] (tests only): still to lie once.
    #[cfg(feature = "test-hooks")]
    lie_to_watchers: bool,
    /// The table this peer stopped watching, until when its late steps are dropped quietly.
    unwatched: Option<(TableId, u64)>,
}

impl Gallery {
    /// No watcher yet; watching `watch` if set.
    pub(super) fn new(
        policy: WatchPolicy,
        watch: Option<WatchTarget>,
        #[cfg(feature = "test-hooks")] lie_to_watchers: bool,
    ) -> Gallery {
        Gallery {
            watch_policy: policy,
            served: Vec::new(),
            turned_away: HashSet::new(),
            watching: watch.map(Watching::new),
            #[cfg(feature = "test-hooks")]
            lie_to_watchers,
            unwatched: None,
        }
    }

    /// Whether the tables this peer hosts from now on take watchers and let them talk.
    pub(super) fn set_policy(&mut self, policy: WatchPolicy) {
        self.watch_policy = policy;
    }

    /// Whether this peer watches a table (or looks for one to watch).
    pub(super) fn is_watching(&self) -> bool {
        self.watching.is_some()
    }

    /// A new table is played here: the watchers of the last one are forgotten.
    pub(super) fn clear_served(&mut self) {
        self.served.clear();
    }

    /// Whether frames of `table` are late steps of a table no longer watched, at `now`.
    pub(super) fn is_unwatched(&self, table: TableId, now: u64) -> bool {
        self.unwatched
            .is_some_and(|(t, until)| t == table && now < until)
    }

    /// The table watched, once found.
    pub(super) fn watched_table(&self) -> Option<TableId> {
        self.watching.as_ref().and_then(|w| w.table)
    }

    /// The host this peer watches through, once asked.
    pub(super) fn server(&self) -> Option<PeerId> {
        self.watching.as_ref().and_then(|w| w.server)
    }

    /// Whether `key` is a player seated at the table watched.
    pub(super) fn is_watched_player(&self, key: &VerifyingKey) -> bool {
        self.watching
            .as_ref()
            .is_some_and(|w| w.players.contains(key))
    }

    /// Whether this peer's table serves `peer` as a watcher.
    pub(super) fn serves(&self, peer: &PeerId) -> bool {
        self.served.iter().any(|w| w.peer == *peer)
    }

    /// The watchers this peer's table serves.
    pub(super) fn served_peers(&self) -> impl Iterator<Item = PeerId> + '_ {
        self.served.iter().map(|w| w.peer)
    }

    /// Whether the watchers of the table this peer hosts may talk.
    pub(super) fn lets_watchers_talk(&self) -> bool {
        self.watch_policy.chat
    }
}

/// A watcher this peer's table serves.
struct Served {
    peer: PeerId,
    name: String,
    /// The next step to send it.
    next: u32,
    window: u64,
    asks: u32,
    /// Batches and steps sent and not yet taken: (first step after them, bytes).
    unacked: std::collections::VecDeque<(u32, usize)>,
    /// Their bytes.
    in_flight: usize,
    /// When the last batch was sent (ms).
    last_batch: u64,
}

/// The table this peer watches.
struct Watching {
    target: WatchTarget,
    /// The host's peer, once asked.
    server: Option<PeerId>,
    table: Option<TableId>,
    follower: Option<Follower>,
    last_ask: u64,
    /// The highest step a [`Wire::Watched`] mark said was sent.
    last_mark: u32,
    /// The hand whose tiles were last shown face up.
    revealed: u32,
    /// The seat whose chair the table is seen from (the host's).
    chair: Seat,
    /// The identity keys of the players seated at the table watched (not its bots).
    players: Vec<VerifyingKey>,
    done: bool,
}

impl Watching {
    fn new(target: WatchTarget) -> Watching {
        Watching {
            target,
            server: None,
            table: None,
            follower: None,
            last_ask: 0,
            last_mark: 0,
            revealed: 0,
            chair: 0,
            players: Vec::new(),
            done: false,
        }
    }
}

impl EventLoop {
    // ---- serving watchers (the table's host) ----

    /// The table this peer hosts and plays at, if any: its id and the host seat.
    pub(super) fn hosted(&self) -> Option<(TableId, Seat)> {
        let p = self.playing.as_ref()?;
        let seat = p.roster.host_seat;
        (p.roster.advert.host == self.me && p.host.client(seat).is_some())
            .then(|| (p.host.table(), seat))
    }

    pub(super) fn on_watch(&mut self, peer: PeerId, key: VerifyingKey, table: TableId, from: u32) {
        if self.is_table_peer(&peer) {
            return;
        }
        let Some((ours, seat)) = self.hosted().filter(|(t, _)| *t == table) else {
            self.send_to(
                &peer,
                &Wire::WatchRefused {
                    table,
                    reason: "this peer does not host that table (or it is over)".into(),
                },
            );
            return;
        };
        let now = self.now();
        if !self.gallery.served.iter().any(|w| w.peer == peer) {
            let refusal = if !self.gallery.watch_policy.allow {
                Some("the table takes no watchers".to_string())
            } else if self.gallery.turned_away.contains(key.as_bytes()) {
                Some("the host turned you away".to_string())
            } else if self.gallery.served.len() >= MAX_WATCHERS {
                Some(format!("the table has {MAX_WATCHERS} watchers already"))
            } else {
                None
            };
            if let Some(reason) = refusal {
                tracing::info!("watcher {peer} refused: {reason}");
                self.send_to(&peer, &Wire::WatchRefused { table, reason });
                return;
            }
            let name = self
                .conn
                .hello_name(&peer)
                .cloned()
                .unwrap_or_else(|| "?".to_string());
            tracing::info!("{peer} ({name}) watches table {}", hex(&ours));
            if let Some(roster) = self.playing.as_ref().map(|p| p.roster.clone()) {
                self.send_to(&peer, &Wire::Start(Box::new(roster)));
            }
            self.gallery.served.push(Served {
                peer,
                name,
                next: 0,
                window: now / 1000,
                asks: 0,
                unacked: Default::default(),
                in_flight: 0,
                last_batch: 0,
            });
            self.swarm.behaviour_mut().limits.bypass_peer_id(&peer);
            self.tell_watchers();
        }
        let Some(logged) = self
            .playing
            .as_ref()
            .and_then(|p| p.host.client(seat))
            .map(|c| c.next_step())
        else {
            return;
        };
        let Some(w) = self.gallery.served.iter_mut().find(|w| w.peer == peer) else {
            return;
        };
        if now / 1000 != w.window {
            w.window = now / 1000;
            w.asks = 0;
        }
        w.asks += 1;
        if w.asks > WATCH_ASKS_PER_SECOND {
            return;
        }
        // What the watcher asks from, it has taken: no longer in flight.
        while let Some(&(end, b)) = w.unacked.front() {
            if end > from {
                break;
            }
            w.unacked.pop_front();
            w.in_flight = w.in_flight.saturating_sub(b);
        }
        // Steps sent and not yet taken are on their way, unless it still asks from before
        // them a while later (they were lost: sent again).
        if from < w.next {
            if now < w.last_batch + WATCH_RESEND_MS {
                return;
            }
            w.unacked.clear();
            w.in_flight = 0;
        }
        // A watcher that has everything is sent only the mark (the steps come as they are
        // logged); one past the end of the log (a hand cut back by an abort) is sent the
        // last step again: after an abort that is the three votes.
        if from == logged {
            w.next = logged;
            self.send_to(
                &peer,
                &Wire::Watched {
                    table,
                    next: logged,
                },
            );
            return;
        }
        let from = from.min(logged.saturating_sub(1));
        let steps = match self.storage.steps(&table, seat, from, logged) {
            Ok(steps) => steps,
            Err(e) => {
                tracing::warn!("cannot read the journal for a watcher: {e}");
                return;
            }
        };
        if !self.reads(peer) {
            return;
        }
        let mut next = from;
        let mut bytes = 0;
        let mut frames = Vec::new();
        for step in &steps {
            if bytes >= WATCH_BATCH_BYTES || frames.len() + 4 > WATCH_BATCH_MESSAGES {
                break;
            }
            for e in &step.entries {
                let f = self.for_watcher(e, seat);
                bytes += f.len();
                frames.push(f);
            }
            next = step.seq().map_or(next, |s| s + 1);
        }
        for bytes in frames {
            self.send_to(
                &peer,
                &Wire::Frame {
                    table,
                    to: 0,
                    bytes,
                },
            );
        }
        self.send_to(&peer, &Wire::Watched { table, next });
        if let Some(w) = self.gallery.served.iter_mut().find(|w| w.peer == peer) {
            w.next = next;
            w.last_batch = now;
            w.unacked.push_back((next, bytes));
            w.in_flight += bytes;
        }
    }

    /// An entry's frame as sent to a watcher (a lying host of the tests changes one).
    fn for_watcher(&mut self, e: &mahjong_table::Envelope, host_seat: Seat) -> Vec<u8> {
        #[allow(unused_mut)]
        let mut f = e.frame();
        #[cfg(feature = "test-hooks")]
        if self.gallery.lie_to_watchers
            && e.seat != host_seat
            && matches!(e.body, mahjong_table::Body::Play(_))
            && f.len() > 80
        {
            self.gallery.lie_to_watchers = false;
            let n = f.len();
            f[n - 70] ^= 1;
        }
        let _ = host_seat;
        f
    }

    /// Whether a watcher of the table this peer hosts lacks steps.
    pub(super) fn watchers_behind(&self) -> bool {
        let Some((_, seat)) = self.hosted() else {
            return false;
        };
        let Some(logged) = self
            .playing
            .as_ref()
            .and_then(|p| p.host.client(seat))
            .map(|c| c.next_step())
        else {
            return false;
        };
        self.gallery.served.iter().any(|w| w.next < logged)
    }

    /// Whether a served watcher reads what it is sent: one whose send queue cannot take
    /// another batch (or whose connection is gone) is dropped.
    fn reads(&mut self, peer: PeerId) -> bool {
        let queued = self.conn.queued(&peer);
        match queued {
            Some(q) if q <= SEND_QUEUE - WATCH_BATCH_MESSAGES => true,
            Some(_) => {
                tracing::info!("watcher {peer} does not read: dropped");
                self.drop_watcher(peer);
                false
            }
            None => {
                self.drop_watcher(peer);
                false
            }
        }
    }

    pub(super) fn drop_watcher(&mut self, peer: PeerId) {
        let before = self.gallery.served.len();
        self.gallery.served.retain(|w| w.peer != peer);
        if self.gallery.served.len() != before {
            self.tell_watchers();
        }
    }

    /// Tells the seated peers, the watchers and the player who watches.
    fn tell_watchers(&mut self) {
        let Some((table, _)) = self.hosted() else {
            return;
        };
        let names: Vec<String> = self.gallery.served.iter().map(|w| w.name.clone()).collect();
        let wire = Wire::Watchers {
            table,
            names: names.clone(),
            chat: self.gallery.watch_policy.chat,
        };
        for peer in self.table_peers() {
            self.send_to(&peer, &wire);
        }
        for w in self
            .gallery
            .served
            .iter()
            .map(|w| w.peer)
            .collect::<Vec<_>>()
        {
            self.send_to(&w, &wire);
        }
        self.emit(NetEvent::Watchers {
            names,
            chat: self.gallery.watch_policy.chat,
        });
    }

    /// The other peers of the table played (not this one).
    pub(super) fn table_peers(&self) -> Vec<PeerId> {
        let Some(p) = self.playing.as_ref() else {
            return Vec::new();
        };
        let mut peers: Vec<PeerId> = p
            .seats
            .iter()
            .filter(|s| s.peer != self.me)
            .filter_map(|s| peer_id(&s.peer))
            .collect();
        peers.sort();
        peers.dedup();
        peers
    }

    /// Steps the host seat logged: each goes to the watchers that have everything before it.
    pub(super) fn serve_logged(&mut self, seat: Seat, records: &[mahjong_table::Record]) {
        if self.gallery.served.is_empty() || self.hosted().map(|(_, s)| s) != Some(seat) {
            return;
        }
        let Some((table, _)) = self.hosted() else {
            return;
        };
        for r in records {
            match r {
                mahjong_table::Record::Step(step) => {
                    let Some(seq) = step.seq() else {
                        continue;
                    };
                    let due: Vec<PeerId> = self
                        .gallery
                        .served
                        .iter()
                        .filter(|w| w.next == seq)
                        .map(|w| w.peer)
                        .collect();
                    let size: usize = step.entries.iter().map(|e| e.frame().len()).sum();
                    for peer in due {
                        let flooded = self
                            .gallery
                            .served
                            .iter()
                            .find(|w| w.peer == peer)
                            .is_some_and(|w| w.in_flight + size > MAX_WATCHER_IN_FLIGHT);
                        if flooded {
                            tracing::info!("watcher {peer} takes nothing it is sent: dropped");
                            self.drop_watcher(peer);
                            continue;
                        }
                        if !self.reads(peer) {
                            continue;
                        }
                        for e in &step.entries {
                            let bytes = self.for_watcher(e, seat);
                            self.send_to(
                                &peer,
                                &Wire::Frame {
                                    table,
                                    to: 0,
                                    bytes,
                                },
                            );
                        }
                        if let Some(w) = self.gallery.served.iter_mut().find(|w| w.peer == peer) {
                            w.next = seq + 1;
                            w.unacked.push_back((seq + 1, size));
                            w.in_flight += size;
                        }
                    }
                }
                mahjong_table::Record::Truncate(n) => {
                    for w in &mut self.gallery.served {
                        w.next = w.next.min(*n);
                    }
                }
                _ => {}
            }
        }
    }

    /// Turns a watcher away (by name): it is told so and not served again at this table.
    pub(super) fn turn_away(&mut self, name: &str) -> Result<(), WatchError> {
        let Some((table, _)) = self.hosted() else {
            return Err(WatchError::NotHost);
        };
        let Some(peer) = self
            .gallery
            .served
            .iter()
            .find(|w| w.name == name)
            .map(|w| w.peer)
        else {
            return Err(WatchError::NoSuchWatcher(name.to_string()));
        };
        if let Some(key) = peer_key(&peer) {
            self.gallery.turned_away.insert(*key.as_bytes());
        }
        self.send_to(
            &peer,
            &Wire::WatchRefused {
                table,
                reason: "the host turned you away".into(),
            },
        );
        self.drop_watcher(peer);
        Ok(())
    }

    // ---- watching a table ----

    /// Starts watching `table` (the app's Watch): refused at a table this peer plays.
    pub(super) fn watch(&mut self, table: TableId) -> Result<(), WatchError> {
        if self.playing.as_ref().is_some_and(|p| !p.host.is_over()) {
            return Err(WatchError::Playing);
        }
        self.stop_watching();
        self.gallery.watching = Some(Watching::new(WatchTarget {
            table: Some(hex(&table)),
        }));
        Ok(())
    }

    /// Stops watching: the host is told to send nothing more, and what it sent meanwhile is
    /// dropped quietly for a while (not counted against it).
    pub(super) fn stop_watching(&mut self) {
        let Some(w) = self.gallery.watching.take() else {
            return;
        };
        if let (Some(server), Some(table)) = (w.server, w.table) {
            self.send_to(&server, &Wire::Unwatch { table });
            self.gallery.unwatched = Some((table, self.now() + UNWATCHED_MS));
        }
    }

    /// At each tick: find the table to watch and ask its host for what is missing.
    pub(super) fn watch_tick(&mut self, now: u64) {
        let Some(w) = self.gallery.watching.as_ref() else {
            return;
        };
        if w.done {
            return;
        }
        if w.server.is_some_and(|s| !self.swarm.is_connected(&s)) {
            // Its host went away: ask again when it is back (the log goes on from where it is).
            return;
        }
        if w.server.is_none() {
            let wanted = w.target.table.clone();
            let found = self.lobbying.lobby.tables().into_iter().find(|a| {
                a.state == TableState::Started
                    && wanted
                        .as_ref()
                        .is_none_or(|t| hex(&a.table).starts_with(&t.to_lowercase()))
                    && peer_id(&a.host).is_some_and(|p| self.swarm.is_connected(&p))
            });
            let Some(advert) = found else {
                return;
            };
            let Some(host) = peer_id(&advert.host) else {
                return;
            };
            tracing::info!("asking {host} to watch table {}", hex(&advert.table));
            if let Some(w) = self.gallery.watching.as_mut() {
                w.server = Some(host);
                w.table = Some(advert.table);
                w.last_ask = 0;
            }
        }
        let Some(w) = self.gallery.watching.as_ref() else {
            return;
        };
        if now >= w.last_ask + WATCH_ASK_MS {
            self.ask_to_watch(now);
        }
    }

    fn ask_to_watch(&mut self, now: u64) {
        let Some(w) = self.gallery.watching.as_mut() else {
            return;
        };
        let (Some(server), Some(table)) = (w.server, w.table) else {
            return;
        };
        w.last_ask = now;
        let from = w.follower.as_ref().map_or(0, |f| f.next_step().1);
        self.send_to(&server, &Wire::Watch { table, from });
    }

    /// Whether `peer` is the host this peer watches through.
    pub(super) fn is_server(&self, peer: &PeerId) -> bool {
        self.gallery
            .watching
            .as_ref()
            .is_some_and(|w| w.server.as_ref() == Some(peer))
    }

    /// A message from the host this peer watches through.
    pub(super) fn on_served(&mut self, peer: PeerId, wire: Wire) {
        let now = self.now();
        let Some(table) = self.gallery.watching.as_ref().and_then(|w| w.table) else {
            return;
        };
        match wire {
            Wire::Start(roster) if roster.advert.table == table => {
                if self
                    .gallery
                    .watching
                    .as_ref()
                    .is_some_and(|w| w.follower.is_some())
                {
                    return;
                }
                let seats = match roster.verify() {
                    Ok(seats) => seats,
                    Err(why) => {
                        self.lied(peer, format!("its roster is false: {why}"));
                        return;
                    }
                };
                let keys = [0, 1, 2, 3].map(|i: usize| seats[i].key);
                let follower = Follower::watching(table, roster.host_seat, keys);
                if let Some(w) = self.gallery.watching.as_mut() {
                    w.follower = Some(follower);
                    w.chair = roster.host_seat;
                    w.players = seats.iter().filter(|s| !s.bot).map(|s| s.peer).collect();
                }
                self.emit(NetEvent::Watching { roster });
                self.ask_to_watch(now);
            }
            Wire::Frame {
                table: t, bytes, ..
            } if t == table => self.watched_frame(peer, now, bytes),
            Wire::Watched { table: t, next } if t == table => {
                let have = self
                    .gallery
                    .watching
                    .as_ref()
                    .and_then(|w| w.follower.as_ref())
                    .map_or(0, |f| f.next_step().1);
                tracing::debug!("watched to {next}, have {have}");
                // A full batch taken: ask for the next at once (a mark with nothing new in it
                // is not answered before the next tick).
                let fresh = self
                    .gallery
                    .watching
                    .as_ref()
                    .is_some_and(|w| w.last_mark < next);
                if let Some(w) = self.gallery.watching.as_mut() {
                    w.last_mark = w.last_mark.max(next);
                }
                if have >= next && fresh {
                    self.ask_to_watch(now);
                }
            }
            Wire::WatchRefused { table: t, reason } if t == table => {
                if let Some(w) = self.gallery.watching.as_mut() {
                    w.done = true;
                }
                self.emit(NetEvent::WatchRefused {
                    reason: mahjong_store::clean_text(&reason, 200),
                });
            }
            Wire::Watchers {
                table: t,
                names,
                chat,
            } if t == table => {
                self.talk.set_watchers_chat(chat);
                let names = names
                    .iter()
                    .take(MAX_WATCHERS)
                    .map(|n| clean_name(n))
                    .collect();
                self.emit(NetEvent::Watchers { names, chat });
            }
            Wire::Chat(line) if line.chat.table == table => self.on_chat(peer, *line),
            _ => {}
        }
    }

    fn watched_frame(&mut self, peer: PeerId, now: u64, bytes: Vec<u8>) {
        let Some(w) = self.gallery.watching.as_mut() else {
            return;
        };
        let Some(f) = w.follower.as_mut() else {
            return;
        };
        let out = f.handle(now, mahjong_table::Input::Frame(bytes));
        let revealed = f.revealed().cloned();
        let over = f.is_over();
        for r in &out.rejected {
            let why = match r {
                Rejected::Misfit {
                    seat,
                    hand,
                    seq,
                    why: why @ (Misfit::Signature | Misfit::Chain | Misfit::Step),
                } => Some(format!(
                    "the entry it passed on for seat {seat} at hand {hand}, step {seq} {why}"
                )),
                Rejected::Step(e) => Some(format!("it showed a step the rules refuse: {e}")),
                // An undecodable frame, another table's: nothing signed, nothing shown.
                _ => None,
            };
            if let Some(why) = why {
                self.lied(peer, why);
                return;
            }
        }
        if let Some((hand, hands)) = revealed
            && let Some(w) = self.gallery.watching.as_mut()
            && hand > w.revealed
        {
            w.revealed = hand;
            self.emit(NetEvent::Revealed {
                hand,
                hands: Box::new(hands),
            });
        }
        let changed = !out.events.is_empty();
        for ev in out.events {
            self.emit(NetEvent::Table(ev));
        }
        // The table as a watcher sees it, from the host's chair (the app draws it).
        if changed
            && let Some(w) = self.gallery.watching.as_ref()
            && let Some(f) = w.follower.as_ref()
            && let Some(view) = f.view(w.chair)
        {
            self.emit(NetEvent::View {
                view: Box::new(view),
                now,
            });
        }
        if over && let Some(w) = self.gallery.watching.as_mut() {
            w.done = true;
        }
    }

    /// The host this peer watches through showed it a false game: said, and the watcher
    /// stops (no other peer serves it; what it was shown up to there was checked).
    fn lied(&mut self, peer: PeerId, why: String) {
        if let Some(w) = self.gallery.watching.as_mut() {
            if w.done {
                return;
            }
            w.done = true;
        }
        tracing::warn!("the host {peer} lied to this watcher: {why}");
        self.emit(NetEvent::Lied { peer, why });
        self.ban(peer);
    }
}
