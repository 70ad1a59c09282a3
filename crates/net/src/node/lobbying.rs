//! The event loop's lobby: the sans-IO [`Lobby`] and what the loop keeps around it (when the
//! tables were last shown and repeated, the options proposed as host), its tick, its actions,
//! and the way back to it after a table.

use ed25519_dalek::VerifyingKey;
use libp2p::PeerId;
use mahjong_rules::Options;

use crate::lobby::{Action, Lobby};

use super::{ADVERT_REPEAT_MS, EventLoop, NetEvent, peer_id};

/// The lobby and its state in the loop.
pub(super) struct Lobbying {
    /// The open tables, seats, bots (sans-IO).
    pub(super) lobby: Lobby,
    /// The lobby acted since the tables were last shown ([`NetEvent::Lobby`] at the next tick).
    dirty: bool,
    /// When this peer last repeated its lobby state to every connected peer (ms).
    last_advert: u64,
    /// The options this peer proposes as host ([`Command::Host`]; else its settings').
    proposal: Option<Options>,
}

impl Lobbying {
    pub(super) fn new(lobby: Lobby) -> Lobbying {
        Lobbying {
            lobby,
            dirty: false,
            last_advert: 0,
            proposal: None,
        }
    }

    /// The options this peer proposes as host, if the player set the table up.
    pub(super) fn proposal(&self) -> Option<&Options> {
        self.proposal.as_ref()
    }

    /// The player set a table up with these options.
    pub(super) fn propose(&mut self, options: Options) {
        self.proposal = Some(options);
    }
}

impl EventLoop {
    /// The lobby's part of the tick: the adverts repeated (a started table's too, for a
    /// friend who comes to watch), and in the lobby only the lobby's own tick and the tables
    /// shown when they changed.
    pub(super) fn lobby_tick(&mut self) {
        let now = self.now();
        if now >= self.lobbying.last_advert + ADVERT_REPEAT_MS {
            // Repeat the hosted table: an advert sent over a stream whose connection died
            // (two connections to one peer, one closed) is lost, and nothing else would tell
            // that peer of the table.
            self.lobbying.last_advert = now;
            let acts = self.lobbying.lobby.repeat();
            self.lobby_actions(acts);
        }
        if self.playing.is_none() {
            let acts = self.lobbying.lobby.tick(now);
            self.lobby_actions(acts);
            // The tables, shown at most once a tick and only when they changed (a flood of
            // lobby messages costs no copies of them).
            if std::mem::take(&mut self.lobbying.dirty) | self.lobbying.lobby.take_changed()
                && self.playing.is_none()
            {
                self.emit(NetEvent::Lobby(self.lobbying.lobby.tables()));
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
        self.lobbying.proposal = None;
        self.lobbying.lobby.restart(now, table, &failed);
        self.emit(NetEvent::Lobby(self.lobbying.lobby.tables()));
    }

    pub(super) fn lobby_actions(&mut self, actions: Vec<Action>) {
        self.lobbying.dirty |= !actions.is_empty();
        for a in actions {
            match a {
                Action::Broadcast(w) => {
                    // Only to the lobby: over the internet a peer that has not proven the
                    // table code hears nothing of it.
                    let peers: Vec<PeerId> =
                        self.conn.peer_ids().filter(|p| self.admitted(p)).collect();
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
}
