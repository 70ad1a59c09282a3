//! The event loop's table: the roster's checks, the seat host begun or resumed, and what
//! each of its outputs says to do (the store first, then the frames, then the player's events).

use std::collections::{HashMap, HashSet};

use ed25519_dalek::VerifyingKey;
use mahjong_bot::Bot;
use mahjong_host::{Host, NewSeat, Out as HostOut, Resumed, Setup, Update};
#[cfg(feature = "test-hooks")]
use mahjong_rules::Options;
use mahjong_rules::{Seat, SessionLength};
use mahjong_table::{Client, Input};

use crate::lobby::bot_key;
use crate::wire::{Roster, SeatInfo, TableId, Wire};

#[cfg(feature = "test-hooks")]
use super::Tamper;
use super::error::TableError;
use super::{EventLoop, NetEvent, PEER_SILENT_MS, hex, peer_id};

/// The table this peer plays at: its seat host, the roster's seats, and the table's peers
/// whose connection is down (since when, ms, and whether their seats were reported silent).
pub(super) struct Playing {
    pub(super) host: Host,
    pub(super) roster: Roster,
    pub(super) seats: [SeatInfo; 4],
    unreachable: HashMap<[u8; 32], (u64, bool)>,
}

/// The tests' lying and forgetful peers at the table (the `test-hooks` feature only; see
/// [`NetConfig`]).
#[cfg(feature = "test-hooks")]
pub(super) struct Hooks {
    /// [`NetConfig::tamper`]: taken by the first table's own seat.
    pub(super) tamper: Option<Tamper>,
    /// [`NetConfig::lying_proposal`].
    pub(super) lying_proposal: Option<Options>,
    /// [`NetConfig::never_accept`]: the tables whose proposal this peer still misses.
    pub(super) never_accept: u32,
}

impl Playing {
    /// Whether `key` is the peer of a seat of this table.
    pub(super) fn has_peer(&self, key: &VerifyingKey) -> bool {
        self.seats.iter().any(|s| s.peer == *key)
    }

    /// The connection to `key`, the peer of seats of this table not over, went down at
    /// `now` (ms).
    pub(super) fn unreachable_since(&mut self, key: &VerifyingKey, now: u64) {
        self.unreachable
            .entry(*key.as_bytes())
            .or_insert((now, false));
    }

    /// The peer `key` connected again: the seats of it reported silent, which have
    /// returned.
    pub(super) fn reachable(&mut self, key: &VerifyingKey) -> Vec<Seat> {
        match self.unreachable.remove(key.as_bytes()) {
            Some((_, true)) => self.host.seats_of(key),
            _ => Vec::new(),
        }
    }

    /// The seats whose peer's connection has been down for [`PEER_SILENT_MS`] at `now`,
    /// not yet reported silent.
    pub(super) fn silent(&mut self, now: u64) -> Vec<Seat> {
        let mut silent = Vec::new();
        for (peer, (since, told)) in self.unreachable.iter_mut() {
            if !*told && now >= *since + PEER_SILENT_MS {
                *told = true;
                if let Ok(key) = VerifyingKey::from_bytes(peer) {
                    silent.extend(self.host.seats_of(&key));
                }
            }
        }
        silent
    }
}

impl EventLoop {
    // ---- the table ----

    pub(super) fn bot(&self, seat: Seat) -> Bot {
        Bot::new(self.bot_level, self.seed ^ (seat as u64) << 56 ^ self.now())
    }

    /// Every check of a roster this peer is given, before anything of it is stored: the
    /// host's signature and the table id bound to it, four distinct keys, one human seat of
    /// this peer, a key this peer holds for every seat it runs, and a table not already in
    /// its store (a table is begun once and never rewritten).
    pub(super) fn check_roster(&mut self, roster: &Roster) -> Result<[SeatInfo; 4], TableError> {
        let seats = roster.verify()?;
        let table = roster.advert.table;
        let keys: HashSet<[u8; 32]> = seats.iter().map(|s| *s.key.as_bytes()).collect();
        if keys.len() != 4 {
            return Err(TableError::SameKey);
        }
        if let Some(s) = seats
            .iter()
            .find(|s| !mahjong_store::is_clean_name(&s.name))
        {
            return Err(TableError::SeatName(mahjong_store::clean_name(&s.name)));
        }
        let mine = seats.iter().filter(|s| s.peer == self.me && !s.bot).count();
        if mine != 1 {
            return Err(TableError::HumanSeats(mine));
        }
        for (i, s) in seats.iter().enumerate() {
            if s.peer != self.me {
                continue;
            }
            let key = if s.bot {
                bot_key(&self.identity, &table, i as Seat).verifying_key()
            } else {
                self.me
            };
            if key != s.key {
                return Err(TableError::NotOurKey(i as Seat));
            }
        }
        if self
            .storage
            .has_table(&table)
            .map_err(TableError::ReadStore)?
        {
            return Err(TableError::Stored(hex(&table)[..8].to_string()));
        }
        Ok(seats)
    }

    /// A roster from another host failed its checks: nothing of it is stored, the host is
    /// disconnected as misbehaving, and the lobby looks for another table.
    pub(super) fn refuse_roster(&mut self, roster: &Roster, why: TableError) {
        let now = self.now();
        let acts = self
            .lobbying
            .lobby
            .abandon(roster.advert.host, roster.advert.table, now);
        match peer_id(&roster.advert.host) {
            Some(host) => self.misbehaved(host, format!("its roster was refused: {why}")),
            None => tracing::warn!("a roster was refused: {why}"),
        }
        self.lobby_actions(acts);
    }

    /// The peers of the table this peer plays at are not counted against the connection
    /// limits: strangers filling them cannot keep a seat from reconnecting.
    pub(super) fn bypass_limits(&mut self, seats: &[SeatInfo; 4]) {
        for s in seats {
            if let Some(p) = peer_id(&s.peer) {
                self.swarm.behaviour_mut().limits.bypass_peer_id(&p);
            }
        }
    }

    pub(super) fn begin(&mut self, roster: Roster) -> Result<(), TableError> {
        let seats = match self.check_roster(&roster) {
            Ok(seats) => seats,
            Err(why) if roster.advert.host != self.me => {
                self.refuse_roster(&roster, why);
                return Ok(());
            }
            Err(why) => return Err(why),
        };
        let table = roster.advert.table;
        let start = crate::storage::table_start(&roster)?;
        self.storage.begin_table(&start)?;
        let mut new_seats = Vec::new();
        let mut me = None;
        for (i, s) in seats.iter().enumerate() {
            let seat = i as Seat;
            if s.peer != self.me {
                continue;
            }
            let key = if s.bot {
                bot_key(&self.identity, &table, seat)
            } else {
                me = Some(seat);
                self.identity.clone()
            };
            if key.verifying_key() != s.key {
                return Err(TableError::NotOurKey(seat));
            }
            let mut root = [0u8; 32];
            rand_core::RngCore::fill_bytes(&mut rand_core::OsRng, &mut root);
            let config = roster.config(&seats, seat);
            let client = Client::new(config, key.clone(), root).map_err(|e| e.to_string())?;
            new_seats.push(NewSeat {
                client,
                bot_key: s.bot.then_some(key),
                bot: (s.bot || self.own_bot).then(|| self.bot(seat)),
            });
        }
        let list: Vec<Seat> = me
            .into_iter()
            .chain(
                new_seats
                    .iter()
                    .map(|s| s.client.seat())
                    .filter(|s| Some(*s) != me),
            )
            .collect();
        self.emit(NetEvent::Began {
            roster: Box::new(roster.clone()),
            seats: list,
        });
        tracing::info!("table {} began", hex(&table));
        let host_seat = roster.host_seat;
        self.bypass_limits(&seats);
        let propose = (me == Some(host_seat)).then(|| {
            let s = &self.settings;
            // The options advertised (the settings' with `--disconnect-seconds` in them, or
            // the player's set-up).
            let options = self
                .lobbying
                .proposal()
                .cloned()
                .unwrap_or_else(|| s.options.clone());
            // A lying host of the tests proposes other options.
            #[cfg(feature = "test-hooks")]
            let options = self.hooks.lying_proposal.clone().unwrap_or(options);
            Input::Propose {
                options: Box::new(options),
                stake: s.stake,
                length: SessionLength::Hands(s.hands),
            }
        });
        let setup = self.setup(&roster, &seats, me);
        let (host, out) = Host::begin(setup, new_seats, propose, self.now());
        self.playing = Some(Playing {
            host,
            roster,
            seats,
            unreachable: HashMap::new(),
        });
        self.gallery.clear_served();
        self.apply(out)
    }

    /// What the seat host of a table of `roster` needs: who runs which seat, what this
    /// peer's bots accept (the roster's terms, which the lobby matched against this peer's
    /// settings or the player's choice), the bots' level and seed.
    pub(super) fn setup(
        &mut self,
        roster: &Roster,
        seats: &[SeatInfo; 4],
        me: Option<Seat>,
    ) -> Setup {
        let terms = roster.advert.terms();
        let mut setup = Setup::new(
            roster.advert.table,
            self.me,
            [0, 1, 2, 3].map(|i: usize| seats[i].peer),
            roster.host_seat,
            me,
            Box::new(move |p| terms.check(p).map_err(|e| e.to_string())),
        );
        // Each seat of this peer signs the roster's name for it at the set-up.
        setup.names = Some([0, 1, 2, 3].map(|i: usize| seats[i].name.clone()));
        setup.bot_level = self.bot_level;
        setup.seed = self.seed;
        #[cfg(feature = "test-hooks")]
        {
            setup.never_accept = self.hooks.never_accept > 0;
            self.hooks.never_accept = self.hooks.never_accept.saturating_sub(1);
            setup.tamper = me.and_then(|m| Some((m, self.hooks.tamper.take()?)));
        }
        setup
    }

    /// Resumes a table from the store: `Ok(false)` when it is over (it is marked finished and
    /// not resumed: an over table is never played again).
    pub(super) fn resume(&mut self, resume: crate::storage::Stored) -> Result<bool, TableError> {
        let roster = crate::storage::roster_of(&resume)?;
        let seats = roster.verify()?;
        let table = roster.advert.table;
        let mut clients = Vec::new();
        let mut me = None;
        // Seats of other peers this peer took over with a bot: restored by the host once
        // their controlling seat is (the bot's key derives from the controller's root).
        let mut taken_over = Vec::new();
        for p in resume.seats {
            let seat = p.config.seat;
            let info = seats
                .get(seat as usize)
                .ok_or_else(|| format!("the store has seat {seat}"))?;
            if info.peer != self.me {
                taken_over.push(p);
                continue;
            }
            let key = if info.bot {
                bot_key(&self.identity, &table, seat)
            } else {
                me = Some(seat);
                self.identity.clone()
            };
            let client = Client::restore(p, key).map_err(|e| format!("cannot resume: {e}"))?;
            // A hand made final just before this peer stopped may not be booked yet (the
            // journal's commit and the booking are two writes): book it now, the table over
            // or not.
            self.storage
                .book(&table, client.results(), client.log())
                .map_err(|e| e.to_string())?;
            let bot = (info.bot || self.own_bot).then(|| self.bot(seat));
            clients.push((client, bot));
        }
        let setup = self.setup(&roster, &seats, me);
        let now = self.now();
        let (host, hands, following, view) = match Host::resume(setup, clients, taken_over, now)? {
            Resumed::Over => {
                tracing::info!("table {} is over: not resumed", hex(&table));
                self.storage
                    .finish_table(&table)
                    .map_err(|e| e.to_string())?;
                return Ok(false);
            }
            Resumed::Playing {
                host,
                hands,
                following,
                view,
            } => (host, hands, following, view),
        };
        // The table's peers are known by key: dial what mDNS or --peer finds.
        self.emit(NetEvent::Resumed {
            roster: Box::new(roster.clone()),
            hands,
        });
        if let Some((seat, hands)) = following {
            self.emit(NetEvent::Following { seat, hands });
        }
        // The hand as this seat last saw it, at once (the player is not shown a blank table
        // while the others answer).
        if let Some(view) = view {
            self.emit(NetEvent::View {
                view,
                now: self.now(),
            });
        }
        self.bypass_limits(&seats);
        self.playing = Some(Playing {
            host: *host,
            roster,
            seats,
            unreachable: HashMap::new(),
        });
        self.gallery.clear_served();
        Ok(true)
    }

    pub(super) fn next_deadline(&self) -> Option<u64> {
        self.playing.as_ref()?.host.next_deadline()
    }

    /// Runs the seat host's queued inputs and does what it says.
    pub(super) fn pump(&mut self) -> Result<(), TableError> {
        let now = self.now();
        let Some(p) = self.playing.as_mut() else {
            return Ok(());
        };
        // The timing marks of this run (a discard seen, a hand over) carry the wall clock now.
        p.host.set_wall_clock(std::time::SystemTime::now());
        let out = p.host.pump(now);
        self.apply(out)
    }

    /// The seat host's frames, one [`Wire::Frame`] per peer with a bit per seat.
    pub(super) fn send_frames(&mut self, table: TableId, send: Vec<mahjong_host::Outgoing>) {
        for s in send {
            let Some(id) = peer_id(&s.peer) else {
                continue;
            };
            self.send_to(
                &id,
                &Wire::Frame {
                    table,
                    to: s.to,
                    bytes: s.frame,
                },
            );
        }
    }

    /// What the seat host gives to do, in its order: the store first (a failure stops before
    /// anything is sent), older steps read back for the seats that asked, the frames (one
    /// [`Wire::Frame`] per peer with a bit per seat), then the player's events.
    pub(super) fn apply(&mut self, out: HostOut) -> Result<(), TableError> {
        let HostOut {
            durable,
            load,
            send,
            updates,
        } = out;
        let Some(table) = self.playing.as_ref().map(|p| p.host.table()) else {
            return Ok(());
        };
        // Logged steps go to the watchers once they are kept.
        let mut logged = Vec::new();
        mahjong_host::storage::keep(self.storage.as_mut(), &table, durable, |seat, records| {
            logged.push((seat, records.to_vec()))
        })?;
        for (seat, records) in logged {
            self.serve_logged(seat, &records);
        }
        let now = self.now();
        if let Some(p) = self.playing.as_mut() {
            mahjong_host::storage::load(self.storage.as_mut(), &mut p.host, now, load)?;
        }
        self.send_frames(table, send);
        for u in updates {
            let ev = match u {
                Update::Table(ev) => NetEvent::Table(ev),
                Update::View { view, now } => NetEvent::View { view, now },
                Update::Revealed { hand, hands } => NetEvent::Revealed { hand, hands },
                Update::Following { seat, hands } => {
                    tracing::info!(
                        "seat {seat} is played by a bot now: following table {} to its end",
                        hex(&table)
                    );
                    NetEvent::Following { seat, hands }
                }
                Update::Declined { why } => NetEvent::Declined { why },
            };
            self.emit(ev);
        }
        Ok(())
    }
}
