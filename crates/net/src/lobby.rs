//! The lobby: who hosts which open table, who sits where, and the rule that brings peers
//! started at the same moment to one table. Sans-IO like the table: messages and time in,
//! [`Action`]s out; the event loop moves them.
//!
//! About 850 lines besides its tests: the lobby's rules are one state machine (adverts, seats,
//! rosters, the tie-break between tables).
//!
//! **Rules.**
//! - A host advertises its table to every peer it is connected to, at connection and at every
//!   change ([`Wire::Advert`], newest `revision` wins; a peer keeps one table per host, so a
//!   flood of adverts cannot grow memory).
//! - A peer not at a table asks for a seat at the open table with the *lowest id* that fits
//!   its settings (preset, stake, hands); it opens its own table only when none fits after
//!   `open_after_ms`.
//! - A host whose table has a lower-id table beside it with room for all its humans closes its
//!   own ([`TableState::Closed`]) and moves there; its joiners follow. Two peers that open
//!   tables at once therefore end at one table, the lower id.
//! - The host seats joiners first come, first served, and refuses a full table (a fifth peer
//!   cannot break it). When the humans are seated it fills the `bots` seats, spreading them
//!   round-robin over the human peers (so no peer runs two bots while another human runs
//!   none), signs the [`Roster`] and sends it to every seated peer: every seat, its name and
//!   the peer that runs it, so every joiner sees who runs which bot.
//!
//! - **What is agreed.** A table is joined only when its advert's [`Terms`] (preset, options
//!   hash, stake, hands) are the peer's ([`Settings::terms`]); an advert or roster that
//!   changes them after a join is left. A table id is bound to its host
//!   ([`crate::wire::table_id`]): other adverts are ignored.
//! - **Nobody holds the others.** A host that does not seat a joiner within
//!   [`JOIN_TIMEOUT_MS`], whose table gains no player for [`SEATED_PATIENCE_MS`] while this
//!   peer sits there, or that changes its terms or sends a roster the shell refuses, is set
//!   aside for [`AVOID_MS`] with every table id it uses meanwhile; the peer then looks again
//!   or opens its own table at once.
//! - **Bounded.** Names are cleaned to 32 characters on intake, one table per host and at
//!   most [`MAX_TABLES`] hosts are kept, at most [`MAX_SET_ASIDE`] tables and hosts set aside.
//!
//! A bot's table key is derived from its controller's identity key and the table id
//! ([`bot_key`]), so the controller can rebuild it after a restart.

use std::collections::BTreeMap;

use ed25519_dalek::{SigningKey, VerifyingKey};
use mahjong_rules::{Money, Options, Ruleset, Seat};
use mahjong_store::clean_name;
use mahjong_store::names::NO_NAME;
use sha2::{Digest, Sha256};

use crate::wire::{Advert, Roster, SeatInfo, TableId, TableState, Terms, Wire};

/// How long a peer looks for an open table before it opens one (mDNS finds a LAN peer in
/// well under a second).
pub const DEFAULT_OPEN_AFTER_MS: u64 = 1200;

/// How long a `Join` waits for the host's answer before the peer looks elsewhere.
pub const JOIN_TIMEOUT_MS: u64 = 3000;

/// How long a peer seated at a table that does not fill waits for one more player before it
/// leaves it (a host that shows joiners seated and never starts holds nobody longer).
pub const SEATED_PATIENCE_MS: u64 = 6000;

/// How long a host that did not seat, start or keep its terms is set aside (with every table
/// id it uses meanwhile).
pub const AVOID_MS: u64 = 30_000;

/// Most hosts whose table a peer keeps (one table each).
pub const MAX_TABLES: usize = 64;

/// Most tables a peer remembers it set aside.
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
}

impl Settings {
    /// What this peer agrees to: its options, stake and hands.
    pub fn terms(&self) -> Terms {
        Terms::of(&self.options, self.stake, self.hands)
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

// One per lobby: its size does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
enum State {
    Idle,
    Hosting {
        advert: Advert,
        bot_keys: BTreeMap<[u8; 32], [VerifyingKey; 4]>,
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
    },
    Started,
}

/// The key of the bot at `seat` of `table` run by the peer with identity `identity`.
pub fn bot_key(identity: &SigningKey, table: &TableId, seat: Seat) -> SigningKey {
    let mut h = Sha256::new();
    h.update(b"shanghai-mahjong/bot-key/1");
    h.update(identity.to_bytes());
    h.update(table);
    h.update([seat]);
    SigningKey::from_bytes(&h.finalize().into())
}

/// `sha256(Options::canonical_bytes())` of a preset.
pub fn options_hash(preset: Ruleset) -> [u8; 32] {
    Sha256::digest(Options::preset(preset).canonical_bytes()).into()
}

/// One peer's lobby.
pub struct Lobby {
    identity: SigningKey,
    me: VerifyingKey,
    settings: Settings,
    tables: BTreeMap<[u8; 32], Advert>,
    refused: Vec<TableId>,
    state: State,
    open_at: u64,
    /// Manual mode (the desktop app): the player chooses; `tick` never joins, opens or moves.
    manual: bool,
    /// The name and options hash of the next table this peer opens ([`Lobby::host`]).
    hosting: Option<(String, [u8; 32])>,
    /// A lying host's change to the rosters it signs (tests only: [`Lobby::set_roster_tamper`]).
    roster_tamper: Option<fn(&mut Advert)>,
    /// The tables known changed since [`Lobby::take_changed`].
    changed: bool,
    /// Hosts set aside, until when (ms): their tables are neither joined nor moved to.
    avoid: BTreeMap<[u8; 32], u64>,
    /// At the table this peer is seated at: when its humans last grew, and how many.
    progress: (u64, usize),
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

impl Lobby {
    /// A lobby started at time `now` (milliseconds).
    pub fn new(identity: SigningKey, mut settings: Settings, now: u64) -> Lobby {
        let me = identity.verifying_key();
        settings.name = clean_name(&settings.name);
        let open_at = now + settings.open_after_ms;
        Lobby {
            identity,
            me,
            settings,
            tables: BTreeMap::new(),
            refused: Vec::new(),
            state: State::Idle,
            open_at,
            manual: false,
            hosting: None,
            roster_tamper: None,
            changed: false,
            avoid: BTreeMap::new(),
            progress: (0, 0),
        }
    }

    /// Sets `host` aside for [`AVOID_MS`] from `now`, whatever table ids it uses (at most
    /// [`MAX_SET_ASIDE`] hosts remembered, the soonest to expire forgotten first).
    fn avoid_host(&mut self, host: VerifyingKey, now: u64) {
        self.avoid.retain(|_, until| *until > now);
        if self.avoid.len() >= MAX_SET_ASIDE
            && let Some(first) = self
                .avoid
                .iter()
                .min_by_key(|(_, until)| **until)
                .map(|(k, _)| *k)
        {
            self.avoid.remove(&first);
        }
        tracing::info!(
            "host {} set aside for {} s",
            mahjong_store::to_hex(&host.as_bytes()[..4]),
            AVOID_MS / 1000
        );
        self.avoid.insert(*host.as_bytes(), now + AVOID_MS);
    }

    /// Whether the tables known changed since the last call (the shell then shows them once,
    /// rather than after every lobby message).
    pub fn take_changed(&mut self) -> bool {
        std::mem::take(&mut self.changed)
    }

    /// Keeps `advert` as `from`'s one table (a peer keeps one table per host). At most
    /// [`MAX_TABLES`] hosts are kept: past that a new host's table is kept only in place of
    /// one that does not fit this peer's terms (the highest such id), so hosts of tables
    /// nobody here would join cannot push out the ones it would. Returns whether it is kept.
    fn keep(&mut self, from: VerifyingKey, advert: Advert) -> bool {
        if !self.tables.contains_key(from.as_bytes()) && self.tables.len() >= MAX_TABLES {
            let terms = self.settings.terms();
            if !advert.fits(&terms) {
                return false;
            }
            let Some(evict) = self
                .tables
                .iter()
                .filter(|(_, a)| !a.fits(&terms))
                .max_by_key(|(_, a)| a.table)
                .map(|(k, _)| *k)
            else {
                return false;
            };
            self.tables.remove(&evict);
        }
        self.tables.insert(*from.as_bytes(), advert);
        self.changed = true;
        true
    }

    /// Never asks for a seat at `table` again (at most [`MAX_SET_ASIDE`] remembered, the
    /// oldest forgotten first).
    fn set_aside(&mut self, table: TableId) {
        if self.refused.len() >= MAX_SET_ASIDE {
            self.refused.remove(0);
        }
        self.refused.push(table);
    }

    /// Plays a lying host: `f` changes every roster before this peer signs it (tests only,
    /// to play a hostile peer through the real shell).
    pub fn set_roster_tamper(&mut self, f: Option<fn(&mut Advert)>) {
        self.roster_tamper = f;
    }

    /// The shell refused the roster of `table` (it failed a check the lobby cannot make,
    /// such as a key this peer does not hold, or the table is in its store already): back
    /// to looking for a table, never this one again.
    pub fn abandon(&mut self, host: VerifyingKey, table: TableId, now: u64) -> Vec<Action> {
        if !matches!(self.state, State::Started) {
            return Vec::new();
        }
        self.set_aside(table);
        self.avoid_host(host, now);
        self.tables.retain(|_, a| a.table != table);
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
    pub fn host(&mut self, spec: TableSpec, now: u64) -> Result<Vec<Action>, String> {
        if !matches!(self.state, State::Idle) {
            return Err("already at a table: leave it first".into());
        }
        if spec.hands == 0 {
            return Err("a table plays at least one hand".into());
        }
        if spec.bots > 3 {
            return Err(format!("at most 3 bots, not {}", spec.bots));
        }
        if spec.options.ruleset != spec.preset {
            return Err("the options are of another preset".into());
        }
        let name = match clean_name(&spec.name) {
            n if n == NO_NAME => clean_name(&format!("{}'s table", self.settings.name)),
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
    pub fn sit(&mut self, table: TableId, now: u64) -> Result<Vec<Action>, String> {
        let advert = self
            .tables
            .values()
            .find(|a| a.table == table)
            .cloned()
            .ok_or_else(|| "no such open table".to_string())?;
        if advert.state != TableState::Open || advert.free() == 0 {
            return Err("that table is full".into());
        }
        let mut actions = match &self.state {
            State::Idle => Vec::new(),
            State::Hosting { .. } => self.stand(now),
            _ => return Err("already at a table: leave it first".into()),
        };
        self.refused.retain(|t| *t != table);
        actions.extend(self.join(&advert, now));
        Ok(actions)
    }

    /// Leaves the table this peer hosts (closing it) or asked to sit at, before it starts.
    pub fn stand(&mut self, now: u64) -> Vec<Action> {
        let _ = now;
        match std::mem::replace(&mut self.state, State::Idle) {
            State::Hosting { mut advert, .. } => {
                advert.state = TableState::Closed;
                advert.revision += 1;
                vec![Action::Broadcast(Wire::Advert(Box::new(advert)))]
            }
            State::Joining { table, host, .. } | State::Seated { table, host, .. } => {
                vec![Action::Send(host, Wire::Leave { table })]
            }
            State::Idle => Vec::new(),
            State::Started => {
                self.state = State::Started;
                Vec::new()
            }
        }
    }

    /// The host fills every free seat with a bot now (the table starts).
    pub fn fill_bots(&mut self) -> Result<Vec<Action>, String> {
        let State::Hosting { advert, .. } = &mut self.state else {
            return Err("only the host of an open table fills it with bots".into());
        };
        advert.bots = (4 - advert.humans()) as u8;
        Ok(self.after_change())
    }

    /// The open tables this peer knows of (its own included), lowest id first.
    pub fn tables(&self) -> Vec<Advert> {
        let mut all: Vec<Advert> = self.tables.values().cloned().collect();
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
        matches!(self.state, State::Started)
    }

    fn bot_keys(&self, table: &TableId) -> [VerifyingKey; 4] {
        [0, 1, 2, 3].map(|s| bot_key(&self.identity, table, s).verifying_key())
    }

    fn fitting(&self, now: u64) -> Option<Advert> {
        let terms = self.settings.terms();
        self.tables
            .values()
            .filter(|a| {
                a.fits(&terms)
                    && !self.refused.contains(&a.table)
                    && self
                        .avoid
                        .get(a.host.as_bytes())
                        .is_none_or(|until| *until <= now)
            })
            .min_by_key(|a| a.table)
            .cloned()
    }

    fn join(&mut self, advert: &Advert, now: u64) -> Vec<Action> {
        self.state = State::Joining {
            table: advert.table,
            host: advert.host,
            since: now,
            terms: advert.terms(),
        };
        vec![Action::Send(
            advert.host,
            Wire::Join {
                table: advert.table,
                name: self.settings.name.clone(),
                key: self.me,
                bot_keys: self.bot_keys(&advert.table),
            },
        )]
    }

    fn open(&mut self, now: u64) -> Vec<Action> {
        let _ = now;
        let mut nonce = [0u8; 32];
        rand_core::RngCore::fill_bytes(&mut rand_core::OsRng, &mut nonce);
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
            name: self.hosting.as_ref().map_or_else(
                || clean_name(&format!("{}'s table", s.name)),
                |h| h.0.clone(),
            ),
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
            revision: 1,
        };
        self.state = State::Hosting {
            advert,
            bot_keys: BTreeMap::new(),
        };
        self.after_change()
    }

    /// Re-advertises the hosted table, and starts it when its humans are seated.
    fn after_change(&mut self) -> Vec<Action> {
        let State::Hosting { advert, bot_keys } = &mut self.state else {
            return Vec::new();
        };
        advert.revision += 1;
        if advert.free() > 0 {
            return vec![Action::Broadcast(Wire::Advert(Box::new(advert.clone())))];
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
        let mut signed = advert.clone();
        if let Some(f) = self.roster_tamper {
            f(&mut signed);
        }
        let roster = Roster::sign(signed, 0, &self.identity);
        let mut actions = vec![Action::Broadcast(Wire::Advert(Box::new(advert.clone())))];
        let mut peers: Vec<VerifyingKey> = humans
            .iter()
            .map(|s| s.peer)
            .filter(|p| *p != self.me)
            .collect();
        peers.dedup();
        for p in peers {
            actions.push(Action::Send(p, Wire::Start(Box::new(roster.clone()))));
        }
        actions.push(Action::Begin(Box::new(roster)));
        self.state = State::Started;
        actions
    }

    /// Called about every 100 ms: joins, moves or opens a table as the rules say.
    pub fn tick(&mut self, now: u64) -> Vec<Action> {
        if self.manual {
            if let State::Joining { table, since, .. } = self.state
                && now >= since + JOIN_TIMEOUT_MS
            {
                self.set_aside(table);
                self.state = State::Idle;
            }
            return Vec::new();
        }
        match self.state.clone() {
            State::Idle => {
                if let Some(best) = self.fitting(now) {
                    self.join(&best, now)
                } else if now >= self.open_at {
                    self.open(now)
                } else {
                    Vec::new()
                }
            }
            State::Hosting { advert, .. } => {
                let Some(best) = self.fitting(now) else {
                    return Vec::new();
                };
                if best.table < advert.table && best.free() >= advert.humans() {
                    let mut closed = advert.clone();
                    closed.state = TableState::Closed;
                    closed.revision += 1;
                    let mut actions = vec![Action::Broadcast(Wire::Advert(Box::new(closed)))];
                    actions.extend(self.join(&best, now));
                    actions
                } else {
                    Vec::new()
                }
            }
            State::Joining {
                table, since, host, ..
            } => {
                if now >= since + JOIN_TIMEOUT_MS {
                    // The host did not seat this peer in time: neither this table nor the
                    // next ids of that host.
                    self.set_aside(table);
                    self.avoid_host(host, now);
                    self.state = State::Idle;
                    self.open_at = self.open_at.max(now);
                    self.tick(now)
                } else {
                    Vec::new()
                }
            }
            State::Seated { table, host, .. } => {
                if now < self.progress.0 + SEATED_PATIENCE_MS {
                    return Vec::new();
                }
                // Nobody new sat down for a while: the table may be a host's that shows
                // joiners seated and never starts. Leave it, set its host aside, and look
                // again (or open a table) at once.
                tracing::info!("the table did not fill: leaving it");
                self.set_aside(table);
                self.avoid_host(host, now);
                self.state = State::Idle;
                self.open_at = self.open_at.min(now);
                let mut actions = vec![Action::Send(host, Wire::Leave { table })];
                actions.extend(self.tick(now));
                actions
            }
            State::Started => Vec::new(),
        }
    }

    /// A peer connected: tell it of the hosted table.
    pub fn connected(&mut self, peer: VerifyingKey) -> Vec<Action> {
        match &self.state {
            State::Hosting { advert, .. } => {
                vec![Action::Send(peer, Wire::Advert(Box::new(advert.clone())))]
            }
            _ => Vec::new(),
        }
    }

    /// A peer disconnected: forget its tables, free its seats at a table not yet started.
    pub fn disconnected(&mut self, peer: VerifyingKey, now: u64) -> Vec<Action> {
        if self.tables.remove(peer.as_bytes()).is_some() {
            self.changed = true;
        }
        match &mut self.state {
            State::Hosting { advert, bot_keys } => {
                let before = advert.humans();
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
                self.state = State::Idle;
                self.tick(now)
            }
            _ => Vec::new(),
        }
    }

    /// A lobby message from `from`.
    pub fn message(&mut self, from: VerifyingKey, wire: Wire, now: u64) -> Vec<Action> {
        match wire {
            Wire::Advert(advert) => self.advert(from, *advert, now),
            Wire::Join {
                table,
                name,
                key,
                bot_keys,
            } => self.joined(from, table, name, key, bot_keys),
            Wire::Refuse { table, .. } => match self.state {
                State::Joining { table: t, host, .. } if t == table && host == from => {
                    self.set_aside(table);
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
                self.disconnected(from, now)
            }
            Wire::Start(roster) => self.start(from, *roster, now),
            Wire::Hello { .. } | Wire::Frame { .. } => Vec::new(),
        }
    }

    fn advert(&mut self, from: VerifyingKey, mut advert: Advert, now: u64) -> Vec<Action> {
        if advert.host != from || from == self.me || !advert.id_is_bound() {
            return Vec::new(); // only a host speaks for its table, under an id of its own
        }
        // Names are kept (and so shown) cleaned and bounded.
        advert.name = clean_name(&advert.name);
        for s in advert.seats.iter_mut().flatten() {
            s.name = clean_name(&s.name);
        }
        let newer = self
            .tables
            .get(from.as_bytes())
            .is_none_or(|old| old.table != advert.table || old.revision < advert.revision);
        if !newer {
            return Vec::new();
        }
        let table = advert.table;
        let seated = advert.seats.iter().flatten().any(|s| s.peer == self.me);
        let live = advert.state != TableState::Closed;
        let changed_terms = advert.terms();
        let humans = advert.humans();
        if let State::Joining {
            table: t,
            host,
            terms,
            ..
        }
        | State::Seated {
            table: t,
            host,
            terms,
        } = self.state
            && t == table
            && terms != changed_terms
        {
            // The host changed what the table plays for after this peer asked to sit: leave
            // it, and do not come back.
            tracing::warn!("the host of the table this peer asked for changed its terms: leaving");
            self.keep(from, advert);
            self.set_aside(table);
            self.avoid_host(host, now);
            self.state = State::Idle;
            let mut actions = vec![Action::Send(host, Wire::Leave { table })];
            actions.extend(self.tick(now));
            return actions;
        }
        if live {
            if !self.keep(from, advert) {
                return Vec::new();
            }
        } else if self.tables.remove(from.as_bytes()).is_some() {
            self.changed = true;
        }
        match self.state {
            State::Joining {
                table: t,
                host,
                terms,
                ..
            } if t == table => {
                if seated && live {
                    self.state = State::Seated { table, host, terms };
                    self.progress = (now, humans);
                    Vec::new()
                } else if !live {
                    self.state = State::Idle;
                    self.tick(now)
                } else {
                    Vec::new()
                }
            }
            State::Seated { table: t, .. } if t == table && (!live || !seated) => {
                self.state = State::Idle;
                self.tick(now)
            }
            State::Seated { table: t, .. } if t == table && humans > self.progress.1 => {
                self.progress = (now, humans);
                Vec::new()
            }
            _ => Vec::new(),
        }
    }

    fn joined(
        &mut self,
        from: VerifyingKey,
        table: TableId,
        name: String,
        key: VerifyingKey,
        keys: [VerifyingKey; 4],
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
        let State::Hosting { advert, bot_keys } = &mut self.state else {
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
        self.after_change()
    }

    fn start(&mut self, from: VerifyingKey, roster: Roster, now: u64) -> Vec<Action> {
        let (ours, agreed) = match self.state {
            State::Seated { table, host, terms }
            | State::Joining {
                table, host, terms, ..
            } => (table == roster.advert.table && host == from, terms),
            _ => return Vec::new(),
        };
        if !ours || roster.advert.host != from || roster.verify().is_err() {
            return Vec::new();
        }
        if roster.advert.terms() != agreed {
            // A roster is the host's word on the table it advertised: other terms there are
            // not what this peer asked to sit at.
            tracing::warn!("the host's roster changes the table's terms: leaving");
            let table = roster.advert.table;
            self.set_aside(table);
            self.avoid_host(from, now);
            self.state = State::Idle;
            let mut actions = vec![Action::Send(from, Wire::Leave { table })];
            actions.extend(self.tick(now));
            return actions;
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
        self.state = State::Started;
        vec![Action::Begin(Box::new(roster))]
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

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(name: &str, bots: u8) -> Settings {
        Settings {
            name: name.into(),
            preset: Ruleset::Qiaoma,
            stake: Money::coins(1),
            hands: 3,
            bots,
            open_after_ms: 500,
            options: Options::preset(Ruleset::Qiaoma),
        }
    }

    /// Lobbies connected to each other, with messages delivered in rounds.
    struct Net {
        lobbies: Vec<Lobby>,
        begun: Vec<Option<Roster>>,
        now: u64,
    }

    impl Net {
        fn new(n: u8, bots: u8) -> Net {
            let lobbies = (0..n)
                .map(|i| {
                    Lobby::new(
                        SigningKey::from_bytes(&[i + 1; 32]),
                        settings(&format!("p{i}"), bots),
                        0,
                    )
                })
                .collect();
            Net {
                lobbies,
                begun: vec![None; n as usize],
                now: 0,
            }
        }

        fn index(&self, key: &VerifyingKey) -> usize {
            self.lobbies
                .iter()
                .position(|l| &l.me == key)
                .expect("known peer")
        }

        fn deliver(
            &mut self,
            from: usize,
            actions: Vec<Action>,
            queue: &mut Vec<(usize, usize, Wire)>,
        ) {
            for a in actions {
                match a {
                    Action::Broadcast(w) => {
                        for to in 0..self.lobbies.len() {
                            if to != from {
                                queue.push((from, to, w.clone()));
                            }
                        }
                    }
                    Action::Send(k, w) => queue.push((from, self.index(&k), w)),
                    Action::Begin(r) => {
                        assert!(self.begun[from].is_none(), "began twice");
                        self.begun[from] = Some(*r);
                    }
                }
            }
        }

        /// Every lobby ticks at once every 100 ms; messages take one tick.
        fn run(&mut self, until: u64) {
            let mut queue = Vec::new();
            while self.now < until {
                self.now += 100;
                let now = self.now;
                let pending: Vec<(usize, usize, Wire)> = std::mem::take(&mut queue);
                for (from, to, w) in pending {
                    let key = self.lobbies[from].me;
                    let actions = self.lobbies[to].message(key, w, now);
                    self.deliver(to, actions, &mut queue);
                }
                for i in 0..self.lobbies.len() {
                    let actions = self.lobbies[i].tick(now);
                    self.deliver(i, actions, &mut queue);
                }
            }
        }
    }

    #[test]
    fn four_peers_started_at_once_end_at_one_table() {
        let mut net = Net::new(4, 0);
        net.run(5000);
        let rosters: Vec<&Roster> = net.begun.iter().flatten().collect();
        assert_eq!(rosters.len(), 4, "every peer began");
        assert!(rosters.iter().all(|r| *r == rosters[0]), "one roster");
        let seats = rosters[0].verify().expect("valid roster");
        for l in &net.lobbies {
            assert_eq!(seats.iter().filter(|s| s.peer == l.me).count(), 1);
        }
    }

    #[test]
    fn a_fifth_peer_does_not_break_a_full_table() {
        let mut net = Net::new(5, 0);
        net.run(8000);
        let rosters: Vec<&Roster> = net.begun.iter().flatten().collect();
        assert_eq!(rosters.len(), 4, "four began, one waits");
        assert!(rosters.iter().all(|r| *r == rosters[0]));
        let waiting = net
            .begun
            .iter()
            .position(Option::is_none)
            .expect("one waits");
        assert!(
            net.lobbies[waiting].my_table().is_some(),
            "it opened its own table"
        );
    }

    #[test]
    fn two_peers_with_two_bots_spread_them_one_each() {
        let mut net = Net::new(2, 2);
        net.run(3000);
        let r = net.begun[0].as_ref().expect("began");
        assert_eq!(Some(r), net.begun[1].as_ref());
        let seats = r.verify().expect("valid");
        for l in &net.lobbies {
            let bots = seats.iter().filter(|s| s.bot && s.peer == l.me).count();
            assert_eq!(bots, 1, "one bot each");
        }
        // The bot keys are the ones its controller derives.
        for (seat, s) in seats.iter().enumerate().filter(|(_, s)| s.bot) {
            let runner = &net.lobbies[net.index(&s.peer)];
            let key = bot_key(&runner.identity, &r.advert.table, seat as Seat);
            assert_eq!(key.verifying_key(), s.key);
        }
    }

    #[test]
    fn one_human_with_three_bots_runs_them_all() {
        let mut net = Net::new(1, 3);
        net.run(1000);
        let seats = net.begun[0]
            .as_ref()
            .expect("began")
            .verify()
            .expect("valid");
        assert_eq!(seats.iter().filter(|s| s.bot).count(), 3);
    }

    #[test]
    fn the_lower_table_wins_when_two_open_at_once() {
        let mut a = Lobby::new(SigningKey::from_bytes(&[1; 32]), settings("a", 0), 0);
        let mut b = Lobby::new(SigningKey::from_bytes(&[2; 32]), settings("b", 0), 0);
        let ka = a.me;
        let kb = b.me;
        let adv = |acts: Vec<Action>| {
            acts.into_iter()
                .find_map(|x| match x {
                    Action::Broadcast(w @ Wire::Advert(_)) => Some(w),
                    _ => None,
                })
                .expect("advert")
        };
        let wa = adv(a.tick(600));
        let wb = adv(b.tick(600));
        let (ta, tb) = (
            a.my_table().expect("a hosts"),
            b.my_table().expect("b hosts"),
        );
        b.message(ka, wa, 700);
        a.message(kb, wb, 700);
        let acts_a = a.tick(800);
        let acts_b = b.tick(800);
        let (mover, stayer) = if ta < tb {
            (&acts_b, tb)
        } else {
            (&acts_a, ta)
        };
        assert!(
            mover.iter().any(|x| matches!(x, Action::Broadcast(Wire::Advert(ad)) if ad.table == stayer && ad.state == TableState::Closed)),
            "the higher table closes"
        );
        assert!(
            mover
                .iter()
                .any(|x| matches!(x, Action::Send(_, Wire::Join { .. })))
        );
    }

    #[test]
    fn adverts_from_someone_else_than_the_host_are_ignored() {
        let mut a = Lobby::new(SigningKey::from_bytes(&[1; 32]), settings("a", 0), 0);
        let mut b = Lobby::new(SigningKey::from_bytes(&[2; 32]), settings("b", 0), 0);
        let w = a
            .tick(600)
            .into_iter()
            .find_map(|x| match x {
                Action::Broadcast(w) => Some(w),
                _ => None,
            })
            .expect("advert");
        let liar = SigningKey::from_bytes(&[3; 32]).verifying_key();
        b.message(liar, w.clone(), 700);
        assert!(b.tables().is_empty());
        // The host itself, under a table id that is not bound to it (another host's, or an
        // old one), is ignored too.
        let Wire::Advert(mut ad) = w else {
            panic!("advert")
        };
        ad.table = [0; 32];
        b.message(a.me, Wire::Advert(ad.clone()), 800);
        assert!(b.tables().is_empty());
        ad.table = crate::wire::table_id(&a.me, &ad.nonce);
        b.message(a.me, Wire::Advert(ad), 900);
        assert_eq!(b.tables().len(), 1);
    }

    fn spec(name: &str, bots: u8) -> TableSpec {
        let mut options = Options::preset(Ruleset::Classic);
        options.discard_seconds = 9;
        TableSpec {
            name: name.into(),
            preset: Ruleset::Classic,
            options,
            stake: Money::coins(2),
            hands: 4,
            bots,
        }
    }

    /// Delivers queued messages (and what they cause) until none is left.
    fn flush(net: &mut Net, queue: &mut Vec<(usize, usize, Wire)>, now: u64) {
        while !queue.is_empty() {
            for (from, to, w) in std::mem::take(queue) {
                let key = net.lobbies[from].me;
                let actions = net.lobbies[to].message(key, w, now);
                net.deliver(to, actions, queue);
            }
        }
    }

    fn manual(n: u8) -> Net {
        let mut net = Net::new(n, 0);
        for l in &mut net.lobbies {
            l.set_manual(true);
        }
        net
    }

    #[test]
    fn a_manual_lobby_waits_for_the_player() {
        let mut net = manual(2);
        net.run(5000);
        assert!(net.lobbies.iter().all(|l| l.my_table().is_none()));
        assert!(net.lobbies.iter().all(|l| l.tables().is_empty()));
    }

    #[test]
    fn a_hosted_table_with_its_own_set_up_is_seen_taken_and_started() {
        let mut net = manual(2);
        let acts = net.lobbies[0].host(spec("Friday", 2), 0).expect("host");
        let mut queue = Vec::new();
        net.deliver(0, acts, &mut queue);
        flush(&mut net, &mut queue, 100);
        let seen = net.lobbies[1].tables();
        assert_eq!(seen.len(), 1);
        let ad = &seen[0];
        assert_eq!(ad.name, "Friday");
        assert_eq!(
            (ad.preset, ad.stake, ad.hands, ad.bots),
            (Ruleset::Classic, Money::coins(2), 4, 2)
        );
        assert_ne!(
            ad.options_hash,
            options_hash(Ruleset::Classic),
            "the changed options' hash"
        );
        // A second table cannot be opened while hosting; the other peer sits down.
        assert!(net.lobbies[0].host(spec("again", 0), 100).is_err());
        let acts = net.lobbies[1].sit(ad.table, 200).expect("sit");
        net.deliver(1, acts, &mut queue);
        flush(&mut net, &mut queue, 300);
        let r0 = net.begun[0].as_ref().expect("host began");
        assert_eq!(Some(r0), net.begun[1].as_ref());
        assert_eq!(
            r0.verify().expect("valid").iter().filter(|s| s.bot).count(),
            2
        );
    }

    #[test]
    fn a_joiner_stands_up_and_the_host_closes_its_table() {
        let mut net = manual(3);
        let acts = net.lobbies[0].host(spec("t", 0), 0).expect("host");
        let mut queue = Vec::new();
        net.deliver(0, acts, &mut queue);
        flush(&mut net, &mut queue, 100);
        let table = net.lobbies[1].tables()[0].table;
        let acts = net.lobbies[1].sit(table, 100).expect("sit");
        net.deliver(1, acts, &mut queue);
        let acts = net.lobbies[2].sit(table, 100).expect("sit");
        net.deliver(2, acts, &mut queue);
        flush(&mut net, &mut queue, 200);
        assert_eq!(net.lobbies[2].tables()[0].humans(), 3);
        assert_eq!(net.lobbies[1].my_table(), Some(table));
        let acts = net.lobbies[1].stand(1000);
        net.deliver(1, acts, &mut queue);
        flush(&mut net, &mut queue, 1100);
        assert_eq!(net.lobbies[1].my_table(), None);
        assert_eq!(
            net.lobbies[2].tables()[0].humans(),
            2,
            "its seat is free again"
        );
        // The host fills the rest with bots: the table starts with the two humans.
        let acts = net.lobbies[0].fill_bots().expect("host");
        net.deliver(0, acts, &mut queue);
        flush(&mut net, &mut queue, 1200);
        let r = net.begun[0].as_ref().expect("began");
        assert_eq!(net.begun[2].as_ref(), Some(r));
        assert!(net.begun[1].is_none());
        let acts = net.lobbies[1].stand(3000);
        assert!(acts.is_empty());
        // A host that stands closes its table for everyone.
        let mut solo = manual(2);
        let acts = solo.lobbies[0].host(spec("x", 0), 0).expect("host");
        solo.deliver(0, acts, &mut queue);
        let acts = solo.lobbies[0].stand(50);
        solo.deliver(0, acts, &mut queue);
        flush(&mut solo, &mut queue, 100);
        assert!(solo.lobbies[1].tables().is_empty());
        assert!(
            solo.lobbies[1].sit(table, 200).is_err(),
            "an unknown table is refused"
        );
    }

    /// The first advert `acts` broadcasts.
    fn advert_of(acts: Vec<Action>) -> Advert {
        acts.into_iter()
            .find_map(|x| match x {
                Action::Broadcast(Wire::Advert(a)) => Some(*a),
                _ => None,
            })
            .expect("advert")
    }

    #[test]
    fn a_table_advertising_other_options_is_not_joined() {
        let mut host = Lobby::new(SigningKey::from_bytes(&[1; 32]), settings("h", 0), 0);
        let mut options = Options::preset(Ruleset::Qiaoma);
        options.base_points *= 100;
        host.settings.options = options;
        let mut ad = advert_of(host.tick(600));
        let mut b = Lobby::new(SigningKey::from_bytes(&[2; 32]), settings("b", 0), 0);
        ad.revision = 10;
        assert!(
            b.message(host.me, Wire::Advert(Box::new(ad.clone())), 100)
                .is_empty()
        );
        let acts = b.tick(200);
        assert!(
            !acts
                .iter()
                .any(|x| matches!(x, Action::Send(_, Wire::Join { .. }))),
            "joined a table with other options: {acts:?}"
        );
        // The same table with the preset's options is joined.
        ad.options_hash = options_hash(Ruleset::Qiaoma);
        ad.revision = 11;
        b.message(host.me, Wire::Advert(Box::new(ad)), 300);
        let acts = b.tick(400);
        assert!(
            acts.iter()
                .any(|x| matches!(x, Action::Send(_, Wire::Join { .. })))
        );
    }

    #[test]
    fn a_roster_or_advert_changing_the_terms_after_a_join_is_left() {
        for how in ["roster", "advert"] {
            let host_key = SigningKey::from_bytes(&[1; 32]);
            let mut host = Lobby::new(host_key.clone(), settings("h", 2), 0);
            let ad = advert_of(host.tick(600));
            let mut b = Lobby::new(SigningKey::from_bytes(&[2; 32]), settings("b", 0), 0);
            b.message(host.me, Wire::Advert(Box::new(ad.clone())), 100);
            let join = b
                .tick(200)
                .into_iter()
                .find_map(|x| match x {
                    Action::Send(_, w @ Wire::Join { .. }) => Some(w),
                    _ => None,
                })
                .expect("join");
            let acts = host.message(b.me, join, 300);
            let roster = acts
                .iter()
                .find_map(|x| match x {
                    Action::Send(_, Wire::Start(r)) => Some(r.clone()),
                    _ => None,
                })
                .expect("the host starts");
            let mut changed = roster.advert.clone();
            changed.options_hash = [7; 32];
            let acts = if how == "roster" {
                let forged = Roster::sign(changed, 0, &host_key);
                b.message(host.me, Wire::Start(Box::new(forged)), 400)
            } else {
                changed.state = TableState::Open;
                changed.revision += 10;
                b.message(host.me, Wire::Advert(Box::new(changed)), 400)
            };
            assert!(
                !acts.iter().any(|x| matches!(x, Action::Begin(_))),
                "{how}: began at other terms"
            );
            assert!(
                acts.iter()
                    .any(|x| matches!(x, Action::Send(_, Wire::Leave { .. }))),
                "{how}: did not leave: {acts:?}"
            );
            // The genuine roster that follows is not taken either: the table is set aside.
            let acts = b.message(host.me, Wire::Start(roster), 500);
            assert!(!acts.iter().any(|x| matches!(x, Action::Begin(_))), "{how}");
            assert_eq!(b.my_table(), None, "{how}");
        }
    }

    #[test]
    fn names_are_cleaned_on_intake() {
        let dirty = format!("\u{1b}[31mMal\u{202e}lory\u{85}{}", "x".repeat(500));
        let mut host = Lobby::new(
            SigningKey::from_bytes(&[1; 32]),
            settings("\u{1b}]0;pwned\u{7}Host\u{2066}", 0),
            0,
        );
        let mut ad = advert_of(host.tick(600));
        assert_eq!(ad.seats[0].as_ref().expect("host seat").name, "Host");
        assert_eq!(ad.name, "Host's table");
        let joiner = SigningKey::from_bytes(&[2; 32]).verifying_key();
        host.message(
            joiner,
            Wire::Join {
                table: ad.table,
                name: dirty.clone(),
                key: joiner,
                bot_keys: [joiner; 4],
            },
            700,
        );
        let seated = host.tables()[0].seats[1].clone().expect("seated");
        assert_eq!(seated.name, clean_name(&dirty));
        assert!(seated.name.starts_with("Mallory") && seated.name.chars().count() == 32);
        // Another host's advert with dirty names is kept cleaned.
        let mut b = Lobby::new(SigningKey::from_bytes(&[3; 32]), settings("b", 0), 0);
        ad.name = dirty.clone();
        ad.seats[0].as_mut().expect("seat").name = dirty.clone();
        b.message(host.me, Wire::Advert(Box::new(ad)), 800);
        let seen = &b.tables()[0];
        assert!(crate::wire::Advert::is_clean(seen), "{seen:?}");
        assert_eq!(seen.name, clean_name(&dirty));
    }

    #[test]
    fn tables_kept_are_bounded_and_fitting_ones_are_not_pushed_out() {
        let mut b = Lobby::new(SigningKey::from_bytes(&[200; 32]), settings("b", 0), 0);
        let advert = |i: u16, stake: i64| {
            let mut seed = [7u8; 32];
            seed[..2].copy_from_slice(&i.to_le_bytes());
            let key = SigningKey::from_bytes(&seed);
            let mut s = settings("x", 0);
            s.stake = Money::coins(stake);
            let mut host = Lobby::new(key, s, 0);
            (host.me, advert_of(host.tick(600)))
        };
        for i in 0..200 {
            let (k, ad) = advert(i, 9);
            b.message(k, Wire::Advert(Box::new(ad)), 100);
        }
        assert_eq!(b.tables().len(), MAX_TABLES);
        assert!(b.take_changed());
        assert!(!b.take_changed(), "changed once, told once");
        // A table this peer would join still finds room.
        let (k, ad) = advert(500, 1);
        let fitting = ad.table;
        b.message(k, Wire::Advert(Box::new(ad)), 200);
        assert_eq!(b.tables().len(), MAX_TABLES);
        assert!(b.tables().iter().any(|a| a.table == fitting));
        // Repeated adverts of one host keep one table.
        let (k, mut ad) = advert(501, 1);
        for r in 0..50 {
            ad.revision = 10 + r;
            b.message(k, Wire::Advert(Box::new(ad.clone())), 300);
        }
        assert_eq!(b.tables().iter().filter(|a| a.host == k).count(), 1);
        assert_eq!(b.tables().len(), MAX_TABLES);
    }

    /// A host that seats each joiner in the advert it sends that joiner only (each sees
    /// itself seated at a table with free seats), never starts, and every 500 ms opens the
    /// table again under a lower id.
    struct Griefer {
        key: SigningKey,
        /// (nonce, id), highest id first.
        ids: Vec<([u8; 32], TableId)>,
        at: usize,
        revision: u64,
    }

    impl Griefer {
        fn new() -> Griefer {
            let key = SigningKey::from_bytes(&[99; 32]);
            let mut ids: Vec<([u8; 32], TableId)> = (0..4096u32)
                .map(|i| {
                    let mut nonce = [0u8; 32];
                    nonce[..4].copy_from_slice(&i.to_le_bytes());
                    (nonce, crate::wire::table_id(&key.verifying_key(), &nonce))
                })
                .collect();
            ids.sort_by_key(|(_, id)| std::cmp::Reverse(*id));
            ids.drain(..ids.len() - 64); // the 64 lowest: below any honest id, almost surely
            Griefer {
                key,
                ids,
                at: 0,
                revision: 0,
            }
        }

        fn me(&self) -> VerifyingKey {
            self.key.verifying_key()
        }

        fn advert(&mut self, seated: Option<VerifyingKey>) -> Wire {
            self.revision += 1;
            let (nonce, table) = self.ids[self.at.min(self.ids.len() - 1)];
            let me = self.me();
            let seat = |k: VerifyingKey, name: &str| SeatInfo {
                key: k,
                name: name.into(),
                peer: k,
                bot: false,
            };
            Wire::Advert(Box::new(Advert {
                table,
                host: me,
                nonce,
                name: "trap".into(),
                preset: Ruleset::Qiaoma,
                options_hash: options_hash(Ruleset::Qiaoma),
                stake: Money::coins(1),
                hands: 3,
                bots: 0,
                seats: [
                    Some(seat(me, "trap")),
                    seated.map(|k| seat(k, "you")),
                    None,
                    None,
                ],
                state: TableState::Open,
                revision: self.revision,
            }))
        }
    }

    /// Simulated ms until four honest lobbies all began (with a griefer beside them or not).
    fn four_begin(griefer: bool) -> Option<u64> {
        let mut net = Net::new(4, 0);
        let mut g = Griefer::new();
        let gk = g.me();
        // (from, to: None = the griefer, wire)
        let mut queue: Vec<(VerifyingKey, Option<usize>, Wire)> = Vec::new();
        let mut now = 0;
        while now < 120_000 {
            now += 100;
            let mut out: Vec<(VerifyingKey, Vec<Action>)> = Vec::new();
            for (from, to, w) in std::mem::take(&mut queue) {
                match to {
                    Some(i) => out.push((net.lobbies[i].me, net.lobbies[i].message(from, w, now))),
                    None => {
                        if let Wire::Join { key, .. } = w {
                            let ad = g.advert(Some(key));
                            queue.push((gk, Some(net.index(&from)), ad));
                        }
                    }
                }
            }
            for i in 0..4 {
                out.push((net.lobbies[i].me, net.lobbies[i].tick(now)));
            }
            if griefer && now % 500 == 0 {
                g.at += 1;
                let ad = g.advert(None);
                for i in 0..4 {
                    queue.push((gk, Some(i), ad.clone()));
                }
            }
            for (from, actions) in out {
                let i = net.index(&from);
                for a in actions {
                    match a {
                        Action::Broadcast(w) => {
                            for to in (0..4).filter(|t| *t != i) {
                                queue.push((from, Some(to), w.clone()));
                            }
                            if griefer {
                                queue.push((from, None, w));
                            }
                        }
                        Action::Send(k, w) if k == gk => queue.push((from, None, w)),
                        Action::Send(k, w) => queue.push((from, Some(net.index(&k)), w)),
                        Action::Begin(r) => net.begun[i] = Some(*r),
                    }
                }
            }
            if net.begun.iter().all(Option::is_some) {
                return Some(now);
            }
        }
        None
    }

    #[test]
    fn a_host_that_seats_and_never_starts_under_ever_lower_ids_does_not_hold_friends() {
        let clean = four_begin(false).expect("four honest peers start a table");
        let with = four_begin(true).expect("four honest peers start a table beside a griefer");
        println!("four honest lobbies began after {clean} ms alone, {with} ms with a griefer");
        assert!(
            with <= clean + 10_000,
            "{with} ms with a griefer, {clean} ms without"
        );
    }
}
