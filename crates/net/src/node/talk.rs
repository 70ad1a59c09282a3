//! Talking at a table (docs/watching.md).
//!
//! **Talk** ([`Wire::Chat`]): a line is signed by its sender, goes from a seated peer to the
//! other seated peers, and through the host to the watchers (a watcher's line through the
//! host to everyone, when the table lets watchers talk). Every reader checks the signature,
//! the length and the characters, passes a line on once, and keeps at most
//! [`CHAT_BURST`] lines of a sender within [`CHAT_WINDOW_MS`]. Talk never enters the
//! table's log and never waits for anything of it.

use std::collections::HashMap;

use ed25519_dalek::VerifyingKey;
use libp2p::PeerId;

use crate::wire::{self, Wire};
use crate::wire::{Chat, SignedChat};

use super::{ChatError, EventLoop, NetEvent, peer_id, peer_key};

/// A sender's lines kept within [`CHAT_WINDOW_MS`] (more are dropped).
pub const CHAT_BURST: u32 = 5;
/// See [`CHAT_BURST`] (ms).
pub const CHAT_WINDOW_MS: u64 = 10_000;

/// Talk at the table played or watched: this peer's lines so far, and what it heard.
#[derive(Default)]
pub(super) struct Talk {
    /// Whether the table watched lets watchers talk (its host says so).
    watchers_chat: bool,
    /// This peer's lines of talk so far.
    chat_number: u32,
    /// Talk heard, by sender.
    heard: HashMap<[u8; 32], Heard>,
}

impl Talk {
    /// The host of the table watched says whether watchers may talk.
    pub(super) fn set_watchers_chat(&mut self, chat: bool) {
        self.watchers_chat = chat;
    }
}

/// Talk heard from one sender: the last line number passed on, and the lines in the window.
#[derive(Default)]
pub(super) struct Heard {
    last: Option<u32>,
    window_start: u64,
    lines: u32,
}

impl EventLoop {
    /// Sends a line of talk from the player.
    pub(super) fn say(&mut self, text: &str) -> Result<(), ChatError> {
        let text = mahjong_store::clean_text(text, wire::MAX_CHAT_CHARS + 1);
        let n = text.chars().count();
        if n == 0 {
            return Err(ChatError::Empty);
        }
        if n > wire::MAX_CHAT_CHARS {
            return Err(ChatError::TooLong);
        }
        let (table, watcher) = if let Some(p) = self.playing.as_ref() {
            (p.host.table(), false)
        } else if let Some(t) = self.gallery.watched_table() {
            (t, true)
        } else {
            return Err(ChatError::NotAtTable);
        };
        if watcher && !self.talk.watchers_chat {
            return Err(ChatError::WatchersMayNotTalk);
        }
        let now = self.now();
        let me = self.me;
        if !self.heard_ok(&me, None, now) {
            return Err(ChatError::TooFast);
        }
        self.talk.chat_number += 1;
        let line = SignedChat::sign(
            Chat {
                table,
                from: me,
                name: self.settings.name.clone(),
                number: self.talk.chat_number,
                text: text.clone(),
            },
            &self.identity,
        );
        if let Some(h) = self.talk.heard.get_mut(me.as_bytes()) {
            h.last = Some(self.talk.chat_number);
        }
        self.pass_on(&line, None);
        self.emit(NetEvent::Chat {
            name: self.settings.name.clone(),
            from: me,
            text,
            watcher,
        });
        Ok(())
    }

    /// Whether a line numbered `number` of `from` is new and within its rate (counted).
    fn heard_ok(&mut self, from: &VerifyingKey, number: Option<u32>, now: u64) -> bool {
        if self.talk.heard.len() > 64 && !self.talk.heard.contains_key(from.as_bytes()) {
            return false;
        }
        let h = self.talk.heard.entry(*from.as_bytes()).or_default();
        if let (Some(n), Some(last)) = (number, h.last)
            && n <= last
        {
            return false;
        }
        if now >= h.window_start + CHAT_WINDOW_MS {
            h.window_start = now;
            h.lines = 0;
        }
        if h.lines >= CHAT_BURST {
            return false;
        }
        h.lines += 1;
        if number.is_some() {
            h.last = number;
        }
        true
    }

    /// A line of talk from `peer`: checked, shown once, passed on by the host.
    pub(super) fn on_chat(&mut self, peer: PeerId, line: SignedChat) {
        let now = self.now();
        let table = self
            .playing
            .as_ref()
            .map(|p| p.host.table())
            .or_else(|| self.gallery.watched_table());
        if Some(line.chat.table) != table {
            return;
        }
        let served = self.gallery.serves(&peer);
        // A line of a seated player: at the table played, or at the table watched.
        let from_seat = self
            .playing
            .as_ref()
            .is_some_and(|p| p.seats.iter().any(|s| s.peer == line.chat.from && !s.bot))
            || self.gallery.is_watched_player(&line.chat.from);
        // Whom it may come from: a seated player itself, a watcher this host serves (its
        // own line, if watchers may talk), or the host passing a line on.
        let sender_is_peer = peer_key(&peer) == Some(line.chat.from);
        let host_passes = self
            .playing
            .as_ref()
            .map(|p| peer_id(&p.roster.advert.host) == Some(peer))
            .unwrap_or_else(|| self.is_server(&peer));
        let allowed = if served {
            sender_is_peer && self.gallery.lets_watchers_talk()
        } else {
            (from_seat && sender_is_peer) || host_passes
        };
        if !allowed || line.verify().is_err() || line.chat.from == self.me {
            return;
        }
        if !self.heard_ok(&line.chat.from, Some(line.chat.number), now) {
            return;
        }
        let watcher = !from_seat;
        self.pass_on(&line, Some(peer));
        self.emit(NetEvent::Chat {
            name: line.chat.name.clone(),
            from: line.chat.from,
            text: line.chat.text.clone(),
            watcher,
        });
    }

    /// Sends a line on: a seated player's own line to the other seats; the host passes every
    /// line to the watchers, and a watcher's to the seats; a watcher sends its own to the
    /// host. Never back to the peer it came from.
    fn pass_on(&mut self, line: &SignedChat, came_from: Option<PeerId>) {
        let wire = Wire::Chat(Box::new(line.clone()));
        let mut to: Vec<PeerId> = Vec::new();
        if self.playing.is_some() {
            let mine = line.chat.from == self.me;
            let hosting = self.hosted().is_some();
            let from_watcher = self
                .playing
                .as_ref()
                .is_some_and(|p| !p.seats.iter().any(|s| s.peer == line.chat.from));
            if mine || (hosting && from_watcher) {
                to.extend(self.table_peers());
            }
            if hosting {
                to.extend(self.gallery.served_peers());
            }
        } else if let Some(server) = self.gallery.server()
            && line.chat.from == self.me
        {
            to.push(server);
        }
        to.sort();
        to.dedup();
        for peer in to {
            if Some(peer) != came_from && peer_key(&peer) != Some(line.chat.from) {
                self.send_to(&peer, &wire);
            }
        }
    }
}
