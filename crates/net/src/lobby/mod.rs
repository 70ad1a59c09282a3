//! The lobby: who hosts which open table, who sits where, and the rule that brings the peers
//! that fit each other to one table whatever the order and timing of their arrivals. Sans-IO
//! like the table: messages and time in, [`Action`]s out; the event loop moves them.
//!
//! About 900 lines besides its tests: the lobby's rules are one state machine (adverts, seats,
//! rosters, where each peer goes, who is set aside and until when).
//!
//! **Tables.** A host advertises its table under its signature ([`SignedAdvert`]) to every
//! peer it is connected to, at connection and at every change; newest `revision` wins and a
//! peer keeps one table per host, so a flood of adverts cannot grow memory. A peer seated at
//! a table passes the host's newest advert of it on to every peer it knows (at its seat, at
//! every change and to each new connection), so every peer sees what the host told the
//! others. The host seats joiners first come, first served, refuses a full table, and when
//! the humans are seated fills the `bots` seats round-robin over the human peers, signs the
//! [`Roster`] and sends it to every seated peer.
//!
//! **Where a peer goes (the convergence rule).** Every peer that chooses on its own (not
//! [`Lobby::set_manual`]) ranks the tables it may sit at — open, its [`Terms`], a free seat,
//! its host connected, neither the table nor its host set aside, no peer it set aside seated
//! — by the humans seated (more first), then a table a person chose in the app
//! ([`Advert::chosen`]) before one a peer opened, then the lower table id. Every peer ranks
//! the same way, so of two tables only the peers of the lower-ranked one move.
//!
//! - A peer at no table joins the table its coming completes (the last free seat), else the
//!   best; it opens its own when it has seen none for `open_after_ms`.
//! - A peer seated at a table moves to a table that ranks above its own (its own counted
//!   with itself): it leaves and joins the other.
//! - A host moves with all its humans, to a table that ranks above its own and has a free
//!   seat for each of them, or alone where it completes a table that ranks above its own; it
//!   closes its table ([`TableState::Closed`]) and its joiners follow (each, at no table,
//!   joins the best).
//!
//! Each move takes humans from a table to one that ranks higher, so the tables' sizes only
//! grow towards one full table at a time: **two half-full tables merge** (the smaller's
//! peers go to the larger, one by one when the larger cannot take them all; between equal
//! ones, towards the one a person chose, then the lower id), and the peers that fit end at
//! ⌊n/need⌋ full tables (need: four humans less the table's bots). The property tests in
//! `tests.rs` check this over random arrivals, delays, broken connections, clicks and
//! departures, with the bound they state.
//!
//! **Nobody holds the others.** A peer abandons a table, and sets its host aside, when:
//! - the host does not seat it within [`JOIN_TIMEOUT_MS`] (set aside for
//!   [`JOIN_AVOID_MS`], doubled at each repeat up to [`AVOID_MS`]);
//! - the host shows it seated at a full table (or started) and no roster comes within
//!   [`START_GRACE_MS`];
//! - the host drops it from the table while it neither left nor lost its connection, or
//!   signs two different adverts of one revision (the host told others another story);
//! - no new player sits down for [`SEATED_PATIENCE_MS`] while the table already seats as many
//!   humans as this peer needs itself (its own `bots` setting): the host could start and
//!   does not;
//! - the host changes the table's terms, or sends a roster the shell refuses (that table id
//!   for good).
//!
//! A set-aside never outlives its cause: a host is set aside for a time ([`AVOID_MS`] at
//! most, the table id with it), a table refused as full is eligible again at its next
//! advert, and only a table whose host broke its word (changed the terms, a bad roster) is
//! refused for good. A peer that failed a set-up (declined or never answered the host's
//! proposal) is not seated again, nor its table joined, for [`SHUN_MS`], doubled at each
//! failure ([`Lobby::restart`]): a squatter costs the others one set-up, a friend who missed
//! the Accept sits again soon after.
//!
//! **What is agreed.** A table is joined only when its advert's [`Terms`] (preset, options
//! hash, stake, hands) are the peer's ([`Settings::terms`]); an advert or roster that changes
//! them after a join is left. A table id is bound to its host ([`crate::wire::table_id`]).
//!
//! **Bounded.** Names are shown cleaned to 32 characters, one table per host and at most
//! [`MAX_TABLES`] hosts are kept, at most [`MAX_SET_ASIDE`] tables, hosts and peers set
//! aside.
//!
//! A bot's table key is derived from its controller's identity key and the table id
//! ([`bot_key`]), so the controller can rebuild it after a restart.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet};

use ed25519_dalek::{SigningKey, VerifyingKey};
use mahjong_rules::{Money, Options, Ruleset, Seat};
use mahjong_store::names::NO_NAME;
use mahjong_store::{Fingerprint, clean_name};
use sha2::{Digest, Sha256};

use crate::wire::{
    Advert, MAX_JOIN_AVOID, Roster, SeatInfo, SignedAdvert, TableId, TableState, Terms, Wire,
};

#[cfg(test)]
mod sim;
#[cfg(test)]
mod tests;

/// How long a peer looks for an open table before it opens one (mDNS finds a LAN peer in
/// well under a second).
pub const DEFAULT_OPEN_AFTER_MS: u64 = 1200;

/// How long a `Join` waits for the host's answer before the peer looks elsewhere.
pub const JOIN_TIMEOUT_MS: u64 = 3000;

/// How long a host that did not answer a `Join` is first set aside (doubled at each repeat,
/// up to [`AVOID_MS`]).
pub const JOIN_AVOID_MS: u64 = 5000;

/// How long a host that shows this peer seated at a full (or started) table may take to send
/// the roster.
pub const START_GRACE_MS: u64 = 3000;

/// How long a peer seated at a table that already seats as many humans as it needs waits for
/// the host to start (or one more player) before it leaves.
pub const SEATED_PATIENCE_MS: u64 = 6000;

/// How long a host that did not start, keep its terms or its word is set aside (with every
/// table id it uses meanwhile).
pub const AVOID_MS: u64 = 30_000;

/// How long a peer that failed a set-up is first not seated again (doubled at each failure,
/// up to ten times this).
pub const SHUN_MS: u64 = 20_000;

/// How long after its host's connection went a peer still takes the roster of the table it
/// sat at (the host sends it again when they connect again).
pub const LOST_SEAT_MS: u64 = 10_000;

/// Most hosts whose table a peer keeps (one table each).
pub const MAX_TABLES: usize = 64;

/// Most tables, hosts and peers a peer remembers it set aside (each).
pub const MAX_SET_ASIDE: usize = 256;

/// What this peer wants.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The player's name.
    pub name: String,
    /// The preset.
    pub preset: Ruleset,
    /// Coins per point.
    pub stake: Money,
    /// Hands to play.
    pub hands: u32,
    /// Bots at a table this peer opens.
    pub bots: u8,
    /// Wait this long for an open table before opening one.
    pub open_after_ms: u64,
    /// The options this peer agrees to play with (the preset's, or the preset with the
    /// player's changes, `--disconnect-seconds` included): a table is joined only when its
    /// advert's options hash is theirs, and its host's proposal accepted only when it is them.
    pub options: Options,
    /// Sit only with these players (`--only-known`); `None`: with anyone.
    pub admit: Option<Admit>,
}

/// The players a peer sits with when it sits only with people it knows (`mahjong play
/// --only-known`): the keys of its contacts and the fingerprints named by `--friend`. A table
/// seating anyone else is not joined, nor left seated at, and such a player is refused a
/// seat at this peer's own table.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Admit {
    /// Identity keys sat with before.
    pub keys: BTreeSet<[u8; 32]>,
    /// Fingerprints a friend read aloud.
    pub fingerprints: BTreeSet<Fingerprint>,
}

impl Admit {
    /// Whether the player of `key` is admitted.
    pub fn admits(&self, key: &VerifyingKey) -> bool {
        self.keys.contains(key.as_bytes()) || self.fingerprints.contains(&Fingerprint::of(key))
    }
}

impl Settings {
    /// What this peer agrees to: its options, stake and hands.
    pub fn terms(&self) -> Terms {
        Terms::of(&self.options, self.stake, self.hands)
    }

    /// Humans this peer needs at a table of its own (four less its bots).
    fn need(&self) -> usize {
        4 - self.bots.min(3) as usize
    }
}

/// What the lobby asks the event loop to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Send to every connected peer.
    Broadcast(Wire),
    /// Send to one peer.
    Send(VerifyingKey, Wire),
    /// The table is full and the roster fixed: start the table clients.
    Begin(Box<Roster>),
}

/// Where this peer stands.
// One per lobby: its size does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
enum State {
    Idle,
    Hosting {
        advert: Advert,
        bot_keys: BTreeMap<[u8; 32], [VerifyingKey; 4]>,
        /// What each seated joiner will not sit with, and until when ([`Wire::Join`]'s
        /// `avoid`).
        avoids: BTreeMap<[u8; 32], Vec<(VerifyingKey, u64)>>,
    },
    Joining {
        table: TableId,
        host: VerifyingKey,
        since: u64,
        terms: Terms,
    },
    Seated {
        table: TableId,
        host: VerifyingKey,
        terms: Terms,
        /// The revision of the host's advert that seated this peer.
        revision: u64,
        /// Since when the host's adverts show the table full or started (no roster yet).
        full_since: Option<u64>,
    },
    /// The roster is fixed; a host keeps it to send again to a seated peer that connects
    /// again before the table's set-up (its `Start` may have been lost with a connection).
    Started(Option<Box<Roster>>),
}

/// A host or peer set aside until a time; `strikes` counts the times (the next is longer).
#[derive(Clone, Copy, Debug)]
struct Aside {
    until: u64,
    strikes: u32,
}

/// Why a table is not asked for a seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Refused {
    /// Its host refused this peer (full, closed, a player set aside): eligible again at a
    /// newer advert, or at the time given (ms), whichever comes first.
    UpTo(u64, u64),
    /// Its host broke its word at it (changed the terms, a roster refused).
    ForGood,
    /// Its host closed it or opened another since: adverts of it that come late are old.
    Gone,
}

/// How long a table whose host refused this peer is not asked again unless it changes.
pub const REFUSED_MS: u64 = 10_000;

/// The key of the bot at `seat` of `table` run by the peer with identity `identity`.
pub fn bot_key(identity: &SigningKey, table: &TableId, seat: Seat) -> SigningKey {
    let mut h = Sha256::new();
    h.update(b"shanghai-mahjong/bot-key/1");
    h.update(identity.to_bytes());
    h.update(table);
    h.update([seat]);
    SigningKey::from_bytes(&h.finalize().into())
}

/// The name a table gets when its host gives none: `NAME's table`, cleaned as every name is.
/// An app may show it in its player's language (it knows it by this name).
pub fn default_table_name(host: &str) -> String {
    clean_name(&format!("{host}'s table"))
}

/// `sha256(Options::canonical_bytes())` of a preset.
pub fn options_hash(preset: Ruleset) -> [u8; 32] {
    Sha256::digest(Options::preset(preset).canonical_bytes()).into()
}

/// How a table ranks (greater is better): its humans, whether a person chose it, the lower
/// id. Every peer ranks every table the same way, so of two tables only the peers of the
/// lower one move.
type Rank = (usize, bool, Reverse<TableId>);

fn rank(a: &Advert) -> Rank {
    (a.humans(), a.chosen, Reverse(a.table))
}

/// Why the lobby refused the player's choice ([`Lobby::host`], [`Lobby::sit`],
/// [`Lobby::fill_bots`]); the text is what the player is shown.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LobbyError {
    /// Already hosting, asking for a seat or seated.
    #[error("already at a table: leave it first")]
    AtATable,
    /// A table set up with no hand to play.
    #[error("a table plays at least one hand")]
    NoHand,
    /// More bots than free seats.
    #[error("at most 3 bots, not {0}")]
    TooManyBots(u8),
    /// The options are not of the preset chosen.
    #[error("the options are of another preset")]
    OtherPreset,
    /// No open table of that id is known.
    #[error("no such open table")]
    NoSuchTable,
    /// The table has no free seat, or has started.
    #[error("that table is full")]
    Full,
    /// Only the host of an open table fills it with bots.
    #[error("only the host of an open table fills it with bots")]
    NotHosting,
}

/// One peer's lobby.
pub struct Lobby {
    identity: SigningKey,
    me: VerifyingKey,
    settings: Settings,
    /// The newest signed advert of each host.
    tables: BTreeMap<[u8; 32], SignedAdvert>,
    refused: BTreeMap<TableId, Refused>,
    state: State,
    open_at: u64,
    /// Manual mode (the desktop app): the player chooses; `tick` never joins, opens or moves.
    manual: bool,
    /// The name and options hash of the next table this peer opens ([`Lobby::host`]).
    hosting: Option<(String, [u8; 32])>,
    /// A lying host's change to the rosters it signs ([`Lobby::set_roster_tamper`]).
    #[cfg(feature = "test-hooks")]
    roster_tamper: Option<fn(&mut Advert)>,
    /// The tables known changed since [`Lobby::take_changed`].
    changed: bool,
    /// Hosts set aside: their tables are neither joined nor moved to.
    avoid: BTreeMap<[u8; 32], Aside>,
    /// Peers that failed a set-up: not seated, their tables not joined.
    shunned: BTreeMap<[u8; 32], Aside>,
    /// At the table this peer is seated at: when its humans last grew, and how many.
    progress: (u64, usize),
    /// The secret the nonces of this peer's tables derive from, and how many it made.
    nonces: ([u8; 32], u64),
    /// The peers connected now: a table is asked for a seat only when its host is one.
    peers: BTreeSet<[u8; 32]>,
    /// The table this peer sat at when its host's connection went, and until when its roster
    /// is still taken.
    lost_seats: Vec<(TableId, VerifyingKey, u64)>,
    /// The revision of this peer's newest advert.
    revisions: u64,
    /// The table this peer last gave up a seat at, and when.
    left: Option<(TableId, u64)>,
}

/// A table the player opens by hand ([`Lobby::host`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableSpec {
    /// The table's name.
    pub name: String,
    /// The preset the options start from.
    pub preset: Ruleset,
    /// The options the host will propose (the preset with the player's changes).
    pub options: Options,
    /// Coins per point.
    pub stake: Money,
    /// Hands to play.
    pub hands: u32,
    /// Seats that will be bots (0-3).
    pub bots: u8,
}

/// Sets `key` aside in `map` from `now` for `base` doubled at each earlier strike (up to
/// `cap`); at most [`MAX_SET_ASIDE`] kept, the soonest to end forgotten first.
fn set_aside_in(
    map: &mut BTreeMap<[u8; 32], Aside>,
    key: &VerifyingKey,
    now: u64,
    base: u64,
    cap: u64,
) -> u64 {
    let strikes = map.get(key.as_bytes()).map_or(0, |a| a.strikes);
    if !map.contains_key(key.as_bytes())
        && map.len() >= MAX_SET_ASIDE
        && let Some(first) = map.iter().min_by_key(|(_, a)| a.until).map(|(k, _)| *k)
    {
        map.remove(&first);
    }
    let time = base.saturating_mul(1 << strikes.min(16)).min(cap);
    map.insert(
        *key.as_bytes(),
        Aside {
            until: now + time,
            strikes: strikes + 1,
        },
    );
    time
}

fn is_aside(map: &BTreeMap<[u8; 32], Aside>, key: &VerifyingKey, now: u64) -> bool {
    map.get(key.as_bytes()).is_some_and(|a| a.until > now)
}

fn short(key: &VerifyingKey) -> String {
    mahjong_store::to_hex(&key.as_bytes()[..4])
}

impl Lobby {
    /// A lobby started at time `now` (milliseconds).
    pub fn new(identity: SigningKey, mut settings: Settings, now: u64) -> Lobby {
        let me = identity.verifying_key();
        settings.name = clean_name(&settings.name);
        let open_at = now + settings.open_after_ms;
        let mut nonce_secret = [0u8; 32];
        rand_core::RngCore::fill_bytes(&mut rand_core::OsRng, &mut nonce_secret);
        Lobby {
            identity,
            me,
            settings,
            tables: BTreeMap::new(),
            refused: BTreeMap::new(),
            state: State::Idle,
            open_at,
            manual: false,
            hosting: None,
            #[cfg(feature = "test-hooks")]
            roster_tamper: None,
            changed: false,
            avoid: BTreeMap::new(),
            shunned: BTreeMap::new(),
            progress: (0, 0),
            nonces: (nonce_secret, 0),
            peers: BTreeSet::new(),
            lost_seats: Vec::new(),
            revisions: 0,
            left: None,
        }
    }

    /// Back in the lobby after a table (its set-up failed, or it ended): looking for a table
    /// again from `now`, with what is known of the others' tables and of who was set aside.
    /// The peers in `failed` did not accept the failed set-up of `table`: they are not seated
    /// again, nor their tables joined, for [`SHUN_MS`] (doubled at each failure, at most ten
    /// times that).
    pub fn restart(&mut self, now: u64, table: Option<TableId>, failed: &[VerifyingKey]) {
        if let Some(t) = table {
            self.refuse(t, Refused::ForGood);
            self.tables.retain(|_, s| s.advert.table != t);
        }
        for peer in failed.iter().filter(|p| **p != self.me) {
            let time = set_aside_in(&mut self.shunned, peer, now, SHUN_MS, SHUN_MS * 10);
            tracing::info!(
                "peer {} did not accept the set-up: not seated again for {} s",
                short(peer),
                time / 1000
            );
        }
        self.state = State::Idle;
        self.hosting = None;
        self.open_at = now + self.settings.open_after_ms;
        self.changed = true;
    }

    /// Sets `host` aside from `now` for `base` (doubled at each repeat, up to [`AVOID_MS`]),
    /// whatever table ids it uses.
    fn avoid_host(&mut self, host: VerifyingKey, now: u64, base: u64, why: &str) {
        let time = set_aside_in(&mut self.avoid, &host, now, base, AVOID_MS.max(base));
        tracing::info!(
            "host {} set aside for {} s: {why}",
            short(&host),
            time / 1000
        );
    }

    /// Whether the tables known changed since the last call (the shell then shows them once,
    /// rather than after every lobby message).
    pub fn take_changed(&mut self) -> bool {
        std::mem::take(&mut self.changed)
    }

    /// Keeps `signed` as its host's one table. At most [`MAX_TABLES`] hosts are kept: past
    /// that a new host's table is kept only in place of one that does not fit this peer's
    /// terms (the highest such id), so hosts of tables nobody here would join cannot push out
    /// the ones it would. Returns whether it is kept.
    fn keep(&mut self, signed: SignedAdvert) -> bool {
        let host = *signed.advert.host.as_bytes();
        if !self.tables.contains_key(&host) && self.tables.len() >= MAX_TABLES {
            let terms = self.settings.terms();
            if !signed.advert.fits(&terms) {
                return false;
            }
            let Some(evict) = self
                .tables
                .iter()
                .filter(|(_, s)| !s.advert.fits(&terms))
                .max_by_key(|(_, s)| s.advert.table)
                .map(|(k, _)| *k)
            else {
                return false;
            };
            self.tables.remove(&evict);
        }
        self.tables.insert(host, signed);
        self.changed = true;
        true
    }

    /// Does not ask for a seat at `table` (at most [`MAX_SET_ASIDE`] remembered: an expired
    /// refusal first, else the oldest id).
    fn refuse(&mut self, table: TableId, why: Refused) {
        if !self.refused.contains_key(&table) && self.refused.len() >= MAX_SET_ASIDE {
            let drop = self
                .refused
                .iter()
                .find(|(_, r)| matches!(r, Refused::UpTo(..)))
                .map(|(t, _)| *t)
                .or_else(|| self.refused.keys().next().copied());
            if let Some(t) = drop {
                self.refused.remove(&t);
            }
        }
        if !matches!(
            self.refused.get(&table),
            Some(Refused::ForGood | Refused::Gone)
        ) {
            self.refused.insert(table, why);
        }
    }

    /// Whether a table at `revision` is refused at `now`.
    fn is_refused(&self, table: &TableId, revision: u64, now: u64) -> bool {
        match self.refused.get(table) {
            Some(Refused::ForGood | Refused::Gone) => true,
            Some(Refused::UpTo(r, until)) => revision <= *r && now < *until,
            None => false,
        }
    }

    /// Plays a lying host: `f` changes every roster before this peer signs it (tests that
    /// play a hostile peer through the real shell).
    #[cfg(feature = "test-hooks")]
    pub fn set_roster_tamper(&mut self, f: Option<fn(&mut Advert)>) {
        self.roster_tamper = f;
    }

    /// The shell refused the roster of `table` (it failed a check the lobby cannot make,
    /// such as a key this peer does not hold, or the table is in its store already): back
    /// to looking for a table, never this one again.
    pub fn abandon(&mut self, host: VerifyingKey, table: TableId, now: u64) -> Vec<Action> {
        if !matches!(self.state, State::Started(_)) {
            return Vec::new();
        }
        self.refuse(table, Refused::ForGood);
        self.avoid_host(host, now, AVOID_MS, "its roster was refused");
        self.tables.retain(|_, s| s.advert.table != table);
        self.changed = true;
        self.state = State::Idle;
        self.open_at = self.open_at.max(now);
        self.tick(now)
    }

    /// Manual mode: the player lists, opens ([`Lobby::host`]), takes ([`Lobby::sit`]) and
    /// leaves ([`Lobby::stand`]) tables; `tick` never joins, opens or moves on its own.
    pub fn set_manual(&mut self, manual: bool) {
        self.manual = manual;
    }

    /// Opens a table with the player's own set-up. Refused while at a table.
    pub fn host(&mut self, spec: TableSpec, now: u64) -> Result<Vec<Action>, LobbyError> {
        if !matches!(self.state, State::Idle) {
            return Err(LobbyError::AtATable);
        }
        if spec.hands == 0 {
            return Err(LobbyError::NoHand);
        }
        if spec.bots > 3 {
            return Err(LobbyError::TooManyBots(spec.bots));
        }
        if spec.options.ruleset != spec.preset {
            return Err(LobbyError::OtherPreset);
        }
        let name = match clean_name(&spec.name) {
            n if n == NO_NAME => default_table_name(&self.settings.name),
            n => n,
        };
        self.settings.preset = spec.preset;
        self.settings.stake = spec.stake;
        self.settings.hands = spec.hands;
        self.settings.bots = spec.bots;
        self.settings.options = spec.options.clone();
        let hash: [u8; 32] = Sha256::digest(spec.options.canonical_bytes()).into();
        self.hosting = Some((name, hash));
        Ok(self.open(now))
    }

    /// Asks the host of `table` for a seat (leaving a table this peer hosts first).
    pub fn sit(&mut self, table: TableId, now: u64) -> Result<Vec<Action>, LobbyError> {
        let advert = self
            .tables
            .values()
            .map(|s| &s.advert)
            .find(|a| a.table == table)
            .cloned()
            .ok_or(LobbyError::NoSuchTable)?;
        if advert.state != TableState::Open || advert.free() == 0 {
            return Err(LobbyError::Full);
        }
        let mut actions = match &self.state {
            State::Idle => Vec::new(),
            State::Hosting { .. } => self.stand(now),
            _ => return Err(LobbyError::AtATable),
        };
        if matches!(self.refused.get(&table), Some(Refused::UpTo(..))) {
            self.refused.remove(&table);
        }
        actions.extend(self.join(&advert, now));
        Ok(actions)
    }

    /// Leaves the table this peer hosts (closing it) or asked to sit at, before it starts.
    pub fn stand(&mut self, now: u64) -> Vec<Action> {
        let _ = now;
        match std::mem::replace(&mut self.state, State::Idle) {
            State::Hosting { advert, .. } => vec![self.closed(advert)],
            State::Joining { table, host, .. } | State::Seated { table, host, .. } => {
                vec![Action::Send(host, Wire::Leave { table })]
            }
            State::Idle => Vec::new(),
            started @ State::Started(_) => {
                self.state = started;
                Vec::new()
            }
        }
    }

    /// The next revision of this peer's adverts: one counter across all the tables it hosts,
    /// so that the others can tell its newest word whatever the table.
    fn next_revision(&mut self) -> u64 {
        self.revisions += 1;
        self.revisions
    }

    /// The advert that closes a hosted table, to every peer.
    fn closed(&mut self, mut advert: Advert) -> Action {
        advert.state = TableState::Closed;
        advert.revision = self.next_revision();
        Action::Broadcast(Wire::Advert(Box::new(SignedAdvert::sign(
            advert,
            &self.identity,
        ))))
    }

    /// The host fills every free seat with a bot now (the table starts).
    pub fn fill_bots(&mut self) -> Result<Vec<Action>, LobbyError> {
        let State::Hosting { advert, .. } = &mut self.state else {
            return Err(LobbyError::NotHosting);
        };
        advert.bots = (4 - advert.humans()) as u8;
        Ok(self.after_change())
    }

    /// The open tables this peer knows of (its own included), lowest id first, names cleaned
    /// for showing (the signed adverts are kept as their hosts sent them, to pass on).
    pub fn tables(&self) -> Vec<Advert> {
        let mut all: Vec<Advert> = self
            .tables
            .values()
            .filter(|s| s.advert.state != TableState::Closed)
            .map(|s| {
                let mut a = s.advert.clone();
                a.name = clean_name(&a.name);
                for seat in a.seats.iter_mut().flatten() {
                    seat.name = clean_name(&seat.name);
                }
                a
            })
            .collect();
        if let State::Hosting { advert, .. } = &self.state {
            all.push(advert.clone());
        }
        all.sort_by_key(|a| a.table);
        all
    }

    /// The table this peer sits at or hosts, if any.
    pub fn my_table(&self) -> Option<TableId> {
        match &self.state {
            State::Hosting { advert, .. } => Some(advert.table),
            State::Seated { table, .. } => Some(*table),
            _ => None,
        }
    }

    /// Whether the roster is fixed (the lobby is done).
    pub fn started(&self) -> bool {
        matches!(self.state, State::Started(_))
    }

    fn bot_keys(&self, table: &TableId) -> [VerifyingKey; 4] {
        [0, 1, 2, 3].map(|s| bot_key(&self.identity, table, s).verifying_key())
    }

    /// Whether this peer may ask for a seat at `a` (its host connected, its terms, a free
    /// seat, neither the table nor its host set aside).
    fn may_sit(&self, a: &Advert, now: u64) -> bool {
        a.host != self.me
            && self.peers.contains(a.host.as_bytes())
            && a.fits(&self.settings.terms())
            && !self.is_refused(&a.table, a.revision, now)
            && !is_aside(&self.avoid, &a.host, now)
            && !self.seats_shunned(a, now)
    }

    /// Whether a peer that failed a set-up with this one, or one it does not sit with
    /// ([`Settings::admit`]), sits at (or hosts) `a`.
    fn seats_shunned(&self, a: &Advert, now: u64) -> bool {
        a.seats
            .iter()
            .flatten()
            .any(|s| is_aside(&self.shunned, &s.peer, now) || !self.admits(&s.peer))
    }

    /// Whether this peer sits with the player of `key` ([`Settings::admit`]).
    fn admits(&self, key: &VerifyingKey) -> bool {
        *key == self.me || self.settings.admit.as_ref().is_none_or(|a| a.admits(key))
    }

    /// The best table for `group` humans of this peer's (itself, or a host's table): one
    /// they complete first, then by [`rank`]; better than `current` if given.
    fn best(&self, now: u64, group: usize, current: Option<&Advert>) -> Option<Advert> {
        let best = self
            .tables
            .values()
            .map(|s| &s.advert)
            .filter(|a| {
                self.may_sit(a, now)
                    && a.free() >= group
                    && current.is_none_or(|c| c.table != a.table)
            })
            .max_by_key(|a| (a.free() == group, rank(a)))?;
        match current {
            Some(c) if rank(best) <= rank(c) => None,
            _ => Some(best.clone()),
        }
    }

    fn join(&mut self, advert: &Advert, now: u64) -> Vec<Action> {
        self.state = State::Joining {
            table: advert.table,
            host: advert.host,
            since: now,
            terms: advert.terms(),
        };
        let mut avoid: Vec<(u64, VerifyingKey)> = self
            .shunned
            .iter()
            .filter(|(_, a)| a.until > now)
            .filter_map(|(k, a)| Some((a.until, VerifyingKey::from_bytes(k).ok()?)))
            .collect();
        avoid.sort_by_key(|(until, _)| Reverse(*until));
        avoid.truncate(MAX_JOIN_AVOID);
        vec![Action::Send(
            advert.host,
            Wire::Join {
                table: advert.table,
                name: self.settings.name.clone(),
                key: self.me,
                bot_keys: self.bot_keys(&advert.table),
                avoid: avoid
                    .into_iter()
                    .map(|(until, k)| (k, until - now))
                    .collect(),
            },
        )]
    }

    fn open(&mut self, now: u64) -> Vec<Action> {
        let _ = now;
        self.nonces.1 += 1;
        let mut h = Sha256::new();
        h.update(b"shanghai-mahjong/table-nonce/1");
        h.update(self.nonces.0);
        h.update(self.nonces.1.to_le_bytes());
        let nonce: [u8; 32] = h.finalize().into();
        let table = crate::wire::table_id(&self.me, &nonce);
        let s = &self.settings;
        let mut seats: [Option<SeatInfo>; 4] = Default::default();
        seats[0] = Some(SeatInfo {
            key: self.me,
            name: s.name.clone(),
            peer: self.me,
            bot: false,
        });
        let advert = Advert {
            table,
            host: self.me,
            nonce,
            name: self
                .hosting
                .as_ref()
                .map_or_else(|| default_table_name(&s.name), |h| h.0.clone()),
            preset: s.preset,
            options_hash: self
                .hosting
                .as_ref()
                .map_or_else(|| s.terms().options_hash, |h| h.1),
            stake: s.stake,
            hands: s.hands,
            bots: s.bots.min(3),
            seats,
            state: TableState::Open,
            revision: self.next_revision(),
            chosen: self.manual,
        };
        self.state = State::Hosting {
            advert,
            bot_keys: BTreeMap::new(),
            avoids: BTreeMap::new(),
        };
        self.after_change()
    }

    /// The hosted table's advert under this peer's signature.
    fn signed(&self, advert: &Advert) -> Wire {
        Wire::Advert(Box::new(SignedAdvert::sign(advert.clone(), &self.identity)))
    }

    /// Re-advertises the hosted table, and starts it when its humans are seated.
    fn after_change(&mut self) -> Vec<Action> {
        let revision = self.next_revision();
        let State::Hosting {
            advert, bot_keys, ..
        } = &mut self.state
        else {
            return Vec::new();
        };
        advert.revision = revision;
        if advert.free() > 0 {
            let advert = advert.clone();
            return vec![Action::Broadcast(self.signed(&advert))];
        }
        // Fill the bot seats, round-robin over the human seats in seat order.
        let humans: Vec<SeatInfo> = advert.seats.iter().flatten().cloned().collect();
        let mut k = 0;
        for seat in 0..4u8 {
            if advert.seats[seat as usize].is_some() {
                continue;
            }
            let runner = &humans[k % humans.len()];
            k += 1;
            let key = if runner.peer == self.me {
                bot_key(&self.identity, &advert.table, seat).verifying_key()
            } else {
                match bot_keys.get(runner.peer.as_bytes()) {
                    Some(keys) => keys[seat as usize],
                    None => return Vec::new(), // unreachable: every joiner sent its keys
                }
            };
            advert.seats[seat as usize] = Some(SeatInfo {
                key,
                name: clean_name(&format!("bot of {}", runner.name)),
                peer: runner.peer,
                bot: true,
            });
        }
        advert.state = TableState::Started;
        let advert = advert.clone();
        #[allow(unused_mut)]
        let mut signed = advert.clone();
        #[cfg(feature = "test-hooks")]
        if let Some(f) = self.roster_tamper {
            f(&mut signed);
        }
        let roster = Roster::sign(signed, 0, &self.identity);
        let mut actions = vec![Action::Broadcast(self.signed(&advert))];
        let mut peers: Vec<VerifyingKey> = humans
            .iter()
            .map(|s| s.peer)
            .filter(|p| *p != self.me)
            .collect();
        peers.dedup();
        for p in peers {
            actions.push(Action::Send(p, Wire::Start(Box::new(roster.clone()))));
        }
        actions.push(Action::Begin(Box::new(roster.clone())));
        self.state = State::Started(Some(Box::new(roster)));
        actions
    }

    /// The newest advert of the table this peer is seated at or joining.
    fn advert_of(&self, host: &VerifyingKey, table: &TableId) -> Option<&Advert> {
        self.tables
            .get(host.as_bytes())
            .map(|s| &s.advert)
            .filter(|a| a.table == *table)
    }

    /// Leaves the table this peer is seated at or joining (the host told), and looks again.
    fn leave(&mut self, now: u64, host: VerifyingKey, table: TableId) -> Vec<Action> {
        let mut actions = vec![self.leave_seat(now, host, table)];
        actions.extend(self.tick(now));
        actions
    }

    /// Gives up the seat this peer has or asked for at `table`: the leave to its host. The
    /// host may have started the table before the leave reaches it: its roster is still
    /// taken for [`LOST_SEAT_MS`] (the set-up then fails on whoever is to blame, not on
    /// this peer), unless the host is set aside or the table is refused for good.
    fn leave_seat(&mut self, now: u64, host: VerifyingKey, table: TableId) -> Action {
        if matches!(self.state, State::Seated { .. } | State::Joining { .. })
            && !self.is_refused(&table, u64::MAX, u64::MAX)
            && !is_aside(&self.avoid, &host, now)
        {
            self.lost_seat(table, host, now);
        }
        self.left = Some((table, now));
        self.state = State::Idle;
        Action::Send(host, Wire::Leave { table })
    }

    /// Remembers a seat this peer gave up or lost with its connection, whose roster it still
    /// takes for [`LOST_SEAT_MS`] (the last four).
    fn lost_seat(&mut self, table: TableId, host: VerifyingKey, now: u64) {
        self.lost_seats
            .retain(|(t, _, until)| *t != table && *until > now);
        if self.lost_seats.len() >= 4 {
            self.lost_seats.remove(0);
        }
        self.lost_seats.push((table, host, now + LOST_SEAT_MS));
    }

    /// Called about every 100 ms: joins, moves or opens a table as the rules say.
    pub fn tick(&mut self, now: u64) -> Vec<Action> {
        match self.state.clone() {
            State::Joining {
                table, since, host, ..
            } if now >= since + JOIN_TIMEOUT_MS => {
                // The host did not seat this peer in time: neither this table nor the next
                // ids of that host for a while (longer at each repeat).
                self.avoid_host(host, now, JOIN_AVOID_MS, "it did not answer a join");
                let mut actions = vec![Action::Send(host, Wire::Leave { table })];
                self.state = State::Idle;
                self.open_at = self.open_at.max(now);
                if !self.manual {
                    actions.extend(self.tick(now));
                }
                actions
            }
            _ if self.manual => Vec::new(),
            State::Idle => {
                if let Some(best) = self.best(now, 1, None) {
                    self.join(&best, now)
                } else if now >= self.open_at {
                    self.open(now)
                } else {
                    Vec::new()
                }
            }
            State::Hosting { advert, .. } => {
                // With all its humans; or alone where that completes a table.
                let whole = self.best(now, advert.humans(), Some(&advert));
                let alone = || {
                    self.best(now, 1, Some(&advert))
                        .filter(|a| a.free() == 1 && advert.humans() > 1)
                };
                let Some(best) = whole.or_else(alone) else {
                    return Vec::new();
                };
                // Close this table and take its humans to the better one (the joiners follow
                // on their own when they see it closed).
                let mut actions = vec![self.closed(advert)];
                actions.extend(self.join(&best, now));
                actions
            }
            State::Joining { .. } | State::Started(_) => Vec::new(),
            State::Seated {
                table,
                host,
                full_since,
                ..
            } => {
                let Some(mine) = self.advert_of(&host, &table).cloned() else {
                    // The host advertises another table now (or none): this one is gone.
                    return self.leave(now, host, table);
                };
                if full_since.is_some_and(|t| now >= t + START_GRACE_MS) {
                    self.avoid_host(host, now, AVOID_MS, "its table was full and did not start");
                    self.open_at = self.open_at.min(now);
                    return self.leave(now, host, table);
                }
                if full_since.is_some() {
                    return Vec::new();
                }
                if self.seats_shunned(&mine, now) {
                    // A peer that failed a set-up with this one sits here now.
                    self.refuse(table, Refused::UpTo(mine.revision, now + REFUSED_MS));
                    return self.leave(now, host, table);
                }
                if let Some(best) = self.best(now, 1, Some(&mine)) {
                    tracing::info!("a table that ranks above this one has a seat: moving there");
                    let mut actions = vec![self.leave_seat(now, host, table)];
                    actions.extend(self.join(&best, now));
                    return actions;
                }
                if now >= self.progress.0 + SEATED_PATIENCE_MS
                    && mine.humans() >= self.settings.need()
                {
                    // The table seats as many humans as this peer needs for a table of its
                    // own, and its host neither starts nor seats anyone new.
                    tracing::info!("the table did not start: leaving it");
                    self.avoid_host(host, now, AVOID_MS, "it did not start a table it could");
                    self.open_at = self.open_at.min(now);
                    return self.leave(now, host, table);
                }
                Vec::new()
            }
        }
    }

    /// What this peer repeats now and then (an advert sent over a connection that died is
    /// lost, and one can come before the news of its connection): the table it hosts, to
    /// every peer; or, once that table has started, that it has, to the peers connected that
    /// do not sit at it (a friend who comes to watch), never to its players, who know.
    pub fn repeat(&self) -> Vec<Action> {
        match &self.state {
            State::Hosting { advert, .. } => vec![Action::Broadcast(self.signed(advert))],
            State::Started(Some(roster)) if roster.advert.host == self.me => {
                let seated = |k: &[u8; 32]| {
                    roster
                        .advert
                        .seats
                        .iter()
                        .flatten()
                        .any(|s| s.peer.as_bytes() == k)
                };
                let others: Vec<VerifyingKey> = self
                    .peers
                    .iter()
                    .filter(|k| !seated(k))
                    .filter_map(|k| VerifyingKey::from_bytes(k).ok())
                    .collect();
                if others.is_empty() {
                    return Vec::new();
                }
                let advert = self.signed(&roster.advert);
                others
                    .into_iter()
                    .map(|k| Action::Send(k, advert.clone()))
                    .collect()
            }
            _ => Vec::new(),
        }
    }

    /// Counts `peer` as reachable, within the bound on peers kept; whether it is.
    fn count_reachable(&mut self, peer: &VerifyingKey) -> bool {
        if self.peers.len() < MAX_TABLES * 4 {
            self.peers.insert(*peer.as_bytes());
        }
        self.peers.contains(peer.as_bytes())
    }

    /// A peer connected: tell it of the hosted table, or pass on the host's newest advert of
    /// the table this peer is seated at.
    pub fn connected(&mut self, peer: VerifyingKey) -> Vec<Action> {
        self.count_reachable(&peer);
        match &self.state {
            State::Hosting { advert, .. } => vec![Action::Send(peer, self.signed(advert))],
            State::Started(Some(roster))
                if roster.advert.seats.iter().flatten().any(|s| s.peer == peer) =>
            {
                vec![Action::Send(peer, Wire::Start(roster.clone()))]
            }
            // Any other peer learns that the table this peer hosts has started (a friend who
            // comes to watch finds it so).
            State::Started(Some(roster)) if roster.advert.host == self.me => {
                vec![Action::Send(peer, self.signed(&roster.advert))]
            }
            State::Seated { table, host, .. } if peer != *host => self
                .tables
                .get(host.as_bytes())
                .filter(|s| s.advert.table == *table)
                .map(|s| vec![Action::Send(peer, Wire::Advert(Box::new(s.clone())))])
                .unwrap_or_default(),
            _ => Vec::new(),
        }
    }

    /// A peer disconnected: forget its tables, free its seats at a table not yet started.
    pub fn disconnected(&mut self, peer: VerifyingKey, now: u64) -> Vec<Action> {
        self.peers.remove(peer.as_bytes());
        if self.tables.remove(peer.as_bytes()).is_some() {
            self.changed = true;
        }
        self.gone_from_seat(peer, now)
    }

    /// `peer` is no longer at the table this peer hosts (it left or its connection went), or
    /// this peer's host is gone.
    fn gone_from_seat(&mut self, peer: VerifyingKey, now: u64) -> Vec<Action> {
        match &mut self.state {
            State::Hosting {
                advert,
                bot_keys,
                avoids,
            } => {
                let before = advert.humans();
                avoids.remove(peer.as_bytes());
                for s in advert.seats.iter_mut() {
                    if s.as_ref().is_some_and(|s| s.peer == peer) {
                        *s = None;
                    }
                }
                compact(&mut advert.seats);
                bot_keys.remove(peer.as_bytes());
                if advert.humans() != before {
                    return self.after_change();
                }
                Vec::new()
            }
            State::Joining { host, .. } | State::Seated { host, .. } if *host == peer => {
                if let State::Seated { table, host, .. } | State::Joining { table, host, .. } =
                    self.state
                {
                    // The host may have seated this peer and started the table as the
                    // connection went: its roster is still taken when it comes (the host
                    // sends it again on a new connection, [`Lobby::connected`]).
                    self.lost_seat(table, host, now);
                }
                self.state = State::Idle;
                self.tick(now)
            }
            _ => Vec::new(),
        }
    }

    /// A lobby message from `from`.
    pub fn message(&mut self, from: VerifyingKey, wire: Wire, now: u64) -> Vec<Action> {
        match wire {
            Wire::Advert(signed) => self.advert(from, *signed, now),
            Wire::Join {
                table,
                name,
                key,
                bot_keys,
                avoid,
            } => self.joined(from, table, name, key, bot_keys, avoid, now),
            Wire::Refuse { table, .. } => match self.state {
                State::Joining { table: t, host, .. } if t == table && host == from => {
                    let revision = self.advert_of(&host, &table).map_or(0, |a| a.revision);
                    self.refuse(table, Refused::UpTo(revision, now + REFUSED_MS));
                    self.state = State::Idle;
                    self.tick(now)
                }
                _ => Vec::new(),
            },
            Wire::Leave { table } => {
                let State::Hosting { advert, .. } = &mut self.state else {
                    return Vec::new();
                };
                if advert.table != table {
                    return Vec::new();
                }
                self.gone_from_seat(from, now)
            }
            Wire::Start(roster) => self.start(from, *roster, now),
            // Not the lobby's: the table's, the watchers' and the talk.
            Wire::Hello { .. }
            | Wire::Frame { .. }
            | Wire::FrameAgain { .. }
            | Wire::CodeProof { .. }
            | Wire::Watch { .. }
            | Wire::WatchRefused { .. }
            | Wire::Watched { .. }
            | Wire::Watchers { .. }
            | Wire::Chat(_)
            | Wire::Unwatch { .. } => Vec::new(),
        }
    }

    /// A host's signed advert, from the host or passed on by a peer seated at its table.
    fn advert(&mut self, from: VerifyingKey, signed: SignedAdvert, now: u64) -> Vec<Action> {
        let host = signed.advert.host;
        if host == self.me || from == self.me || !signed.verify() {
            return Vec::new(); // only a host speaks for its table, under an id of its own
        }
        if !self.peers.contains(host.as_bytes()) {
            // The host itself speaks: it is reachable, though the news of its connection may
            // not have come yet (the first message on a new connection can overtake it). A
            // host whose table has started says so once, when a peer connects: dropped here,
            // a friend who came to watch would find the table only at the next repeat.
            if from != host || !self.count_reachable(&host) {
                return Vec::new(); // a table whose host this peer cannot reach
            }
        }
        let table = signed.advert.table;
        let revision = signed.advert.revision;
        if self.refused.get(&table) == Some(&Refused::Gone) {
            return Vec::new(); // an old advert of a table closed or replaced since
        }
        if let Some(old) = self.tables.get(host.as_bytes()) {
            // A host's revisions count across its tables: the highest is its newest word.
            if old.advert.revision == revision {
                if old.advert != signed.advert {
                    // Two adverts of one revision: the host tells two stories.
                    self.avoid_host(host, now, AVOID_MS, "it signed two adverts of one revision");
                    return self.left_by(host, table, now, "two adverts of one revision");
                }
                return Vec::new();
            }
            if old.advert.revision > revision {
                return Vec::new();
            }
            if old.advert.table != table {
                // A host has one table at a time: its other one is gone.
                let gone = old.advert.table;
                self.refuse(gone, Refused::Gone);
            }
        }
        let advert = signed.advert.clone();
        let seated = advert.seats.iter().flatten().any(|s| s.peer == self.me);
        let live = advert.state != TableState::Closed;
        if let State::Joining {
            table: t, terms, ..
        }
        | State::Seated {
            table: t, terms, ..
        } = self.state
            && t == table
            && terms != advert.terms()
        {
            // The host changed what the table plays for after this peer asked to sit: leave
            // it, and do not come back.
            tracing::warn!("the host of the table this peer asked for changed its terms: leaving");
            self.keep(signed);
            self.refuse(table, Refused::ForGood);
            self.avoid_host(host, now, AVOID_MS, "it changed its table's terms");
            return self.leave(now, host, table);
        }
        // A closed table is kept too (its host's newest word, so that older adverts that
        // come late are known old), but neither shown nor joined.
        if !self.keep(signed.clone()) {
            return Vec::new();
        }
        let full = advert.state == TableState::Started || advert.free() == 0;
        if let State::Joining {
            table: t, host: h, ..
        }
        | State::Seated {
            table: t, host: h, ..
        } = self.state
            && h == host
            && t != table
        {
            // The host of this peer's table opened another: that one is gone.
            return self.leave(now, host, t);
        }
        match self.state.clone() {
            State::Joining {
                table: t, terms, ..
            } if t == table => {
                if seated && live {
                    self.state = State::Seated {
                        table,
                        host,
                        terms,
                        revision,
                        full_since: full.then_some(now),
                    };
                    self.progress = (now, advert.humans());
                    // Every peer hears from this one what the host told it.
                    vec![Action::Broadcast(Wire::Advert(Box::new(signed)))]
                } else if !live {
                    self.state = State::Idle;
                    self.tick(now)
                } else {
                    Vec::new()
                }
            }
            State::Seated {
                table: t,
                terms,
                revision: r,
                full_since,
                ..
            } if t == table => {
                if !live {
                    self.state = State::Idle;
                    return self.tick(now);
                }
                if !seated
                    && self
                        .left
                        .is_some_and(|(t, at)| t == table && now < at + JOIN_TIMEOUT_MS)
                {
                    // This peer left the table and asked again since: the advert says the
                    // leave, the one that seats it again comes next.
                    self.state = State::Joining {
                        table,
                        host,
                        since: now,
                        terms,
                    };
                    return Vec::new();
                }
                if !seated {
                    // A newer advert without this peer, which neither left nor lost its
                    // connection to the host: the host dropped it.
                    self.avoid_host(host, now, AVOID_MS, "it dropped this peer from its table");
                    return self.left_by(host, table, now, "dropped from the table");
                }
                self.state = State::Seated {
                    table,
                    host,
                    terms,
                    revision: r.max(revision),
                    full_since: if full { full_since.or(Some(now)) } else { None },
                };
                if advert.humans() > self.progress.1 {
                    self.progress = (now, advert.humans());
                }
                // Pass the host's newest word on.
                vec![Action::Broadcast(Wire::Advert(Box::new(signed)))]
            }
            _ => Vec::new(),
        }
    }

    /// The host of the table this peer sits at or asked for is set aside already: back to
    /// looking (it is told with a leave).
    fn left_by(&mut self, host: VerifyingKey, table: TableId, now: u64, why: &str) -> Vec<Action> {
        match self.state {
            State::Joining { table: t, .. } | State::Seated { table: t, .. } if t == table => {
                tracing::warn!("leaving the table: {why}");
                self.leave(now, host, table)
            }
            _ => Vec::new(),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn joined(
        &mut self,
        from: VerifyingKey,
        table: TableId,
        name: String,
        key: VerifyingKey,
        keys: [VerifyingKey; 4],
        avoid: Vec<(VerifyingKey, u64)>,
        now: u64,
    ) -> Vec<Action> {
        let refuse = |reason: &str| {
            vec![Action::Send(
                from,
                Wire::Refuse {
                    table,
                    reason: reason.into(),
                },
            )]
        };
        let shunned = is_aside(&self.shunned, &from, now);
        let admits = self.admits(&from);
        let State::Hosting {
            advert,
            bot_keys,
            avoids,
        } = &mut self.state
        else {
            return refuse("that table is not open here");
        };
        if advert.table != table {
            return refuse("that table is not open here");
        }
        if key != from {
            return refuse("a player sits with its own identity key");
        }
        if advert.seats.iter().flatten().any(|s| s.peer == from) {
            return Vec::new(); // a repeated join
        }
        if shunned {
            return refuse("you did not accept the last set-up here: try again in a while");
        }
        if !admits {
            return refuse("this table's host sits only with players it knows");
        }
        // Each for as long as the joiner said, at most the longest set-aside of a set-up.
        let avoid: Vec<(VerifyingKey, u64)> = avoid
            .into_iter()
            .take(MAX_JOIN_AVOID)
            .map(|(k, left)| (k, now + left.min(SHUN_MS * 10)))
            .collect();
        let seated: Vec<VerifyingKey> = advert.seats.iter().flatten().map(|s| s.peer).collect();
        if avoid.iter().any(|(k, _)| seated.contains(k)) {
            return refuse("a player you set aside sits here");
        }
        if avoids
            .values()
            .flatten()
            .any(|(k, until)| *k == from && *until > now)
        {
            return refuse("a player here set you aside");
        }
        if advert.free() == 0 {
            return refuse("the table is full");
        }
        let Some(free) = advert.seats.iter().position(Option::is_none) else {
            return refuse("the table is full");
        };
        let name = clean_name(&name);
        advert.seats[free] = Some(SeatInfo {
            key,
            name,
            peer: from,
            bot: false,
        });
        bot_keys.insert(*from.as_bytes(), keys);
        avoids.insert(*from.as_bytes(), avoid);
        self.after_change()
    }

    fn start(&mut self, from: VerifyingKey, roster: Roster, now: u64) -> Vec<Action> {
        let table = roster.advert.table;
        let lost = self
            .lost_seats
            .iter()
            .any(|(t, h, until)| *t == table && *h == from && now < *until)
            && !is_aside(&self.avoid, &from, now);
        let (ours, agreed) = match self.state {
            State::Seated {
                table: t,
                host,
                terms,
                ..
            }
            | State::Joining {
                table: t,
                host,
                terms,
                ..
            } if t == table && host == from => (true, terms),
            // The table it sat at when the connection to its host went: taken still.
            State::Idle | State::Joining { .. } | State::Seated { .. } | State::Hosting { .. }
                if lost =>
            {
                (true, self.settings.terms())
            }
            _ => return Vec::new(),
        };
        if !ours || roster.advert.host != from || roster.verify().is_err() {
            return Vec::new();
        }
        if roster.advert.terms() != agreed {
            // A roster is the host's word on the table it advertised: other terms there are
            // not what this peer asked to sit at.
            tracing::warn!("the host's roster changes the table's terms: leaving");
            self.refuse(table, Refused::ForGood);
            self.avoid_host(from, now, AVOID_MS, "its roster changed the table's terms");
            return self.leave(now, from, table);
        }
        if !roster
            .advert
            .seats
            .iter()
            .flatten()
            .any(|s| s.peer == self.me)
        {
            return Vec::new();
        }
        // Gone from where it went meanwhile.
        let mut actions = self.stand(now);
        actions.retain(|a| !matches!(a, Action::Send(h, _) if *h == from));
        self.lost_seats.clear();
        self.state = State::Started(None);
        actions.push(Action::Begin(Box::new(roster)));
        actions
    }
}

/// Moves taken seats to the front (the seat order is the join order).
fn compact(seats: &mut [Option<SeatInfo>; 4]) {
    let taken: Vec<SeatInfo> = seats.iter().flatten().cloned().collect();
    *seats = Default::default();
    for (i, s) in taken.into_iter().enumerate() {
        seats[i] = Some(s);
    }
}
