//! The seats one program runs at a table, written once for every table: the player's seat and
//! any bot seats (one to four), the bots that play them, the bots that replace a seat whose
//! player went away, and where each seat's frames go.
//!
//! Sans-IO like the clients it drives: a [`Host`] is given inputs with their time — a frame from
//! a peer ([`Host::frame`]), the player's action ([`Host::act`], [`Host::accept`],
//! [`Host::leave`]), steps read back from the store ([`Host::stored`]) — and queues them with
//! its seats' timers and its bots' moves, each due at a time. [`Host::pump`] runs what is due
//! and returns an [`Out`]: what to make durable (in order, **before** anything of the same
//! `Out` is sent), the frames to send to each peer (one frame with a bit per seat of that
//! peer), steps to read from the store, and [`Update`]s for the player's interface.
//! [`Host::next_deadline`] says when to call again. Bots may think for a while ([`Think`], a
//! practice table) or play at once (a networked peer), and the host may stop after each hand
//! until the player goes on ([`Setup::pause_after_hand`]).
//!
//! Frames between two seats of the same program never leave it: they are queued in process.
//! So a practice table is one host with four local seats, a LAN peer is one host with its
//! player's seat (and the bots it runs) behind libp2p (`mahjong-net`), and tests run four
//! hosts over a simulated network with no sockets (`tests/hosts.rs`).
//!
//! **Replaced seats.** When a seat is replaced by a bot (`TableEvent::SeatReplaced`), every
//! host routes that seat's frames to the controller's peer from then on (on resume too, from
//! the client's controllers). The controller starts the bot's client on `TableEvent::RunBot`
//! with `Client::bot_client`; while that says the roster step is not yet behind a checkpoint
//! (`BotError::is_pending`) the bot stays pending and is tried again at
//! [`Host::retry_bots`]. The bot is a seat of the store like any other ([`Durable::Seat`], its
//! starting log, then its journal), so a restarted controller resumes it from what it signed.
//!
//! **A player back after a bot took the seat** follows the table to the end of the session
//! (`mahjong_table::Follower`): its host asks for the log as any seat does, and the hosts
//! that run the seat now send it a copy of every frame while it asks ([`FOLLOWER_QUIET_MS`]).

use std::collections::{BTreeMap, HashMap};
use std::time::{SystemTime, UNIX_EPOCH};

use ed25519_dalek::VerifyingKey;
use mahjong_bot::{Bot, Level};
use mahjong_rules::{Action, Seat};
use mahjong_table::{
    Client, Follower, Input, Output, Persisted, Proposal, Record, StepRecord, TableEvent,
};

#[cfg(feature = "test-hooks")]
pub mod hooks;
mod out;
mod setup;
mod start;
pub mod storage;

pub use start::Resumed;

pub use out::{Durable, Load, Out, Outgoing, Update};
pub use setup::{NewSeat, Setup, Think};
pub use storage::{Kind, MemoryStorage, Storage, StorageError, Stored, TableStart};
/// A table's id.
pub type TableId = [u8; 32];

/// Rewrites the frames the player's own seat broadcasts: each result goes to one seat
/// (`Some`) or to all three others (`None`). A test hook: tests play a lying peer (an
/// equivocating entry) through the real shell with it.
pub type Tamper = Box<dyn FnMut(Vec<u8>) -> Vec<(Option<Seat>, Vec<u8>)> + Send>;

/// What a seat of this program accepts of the host's proposal: `Ok` to accept, else what
/// differs from what was agreed, in one line (the seat declines).
pub type Terms = Box<dyn Fn(&Proposal) -> Result<(), String> + Send>;

/// How long after a following player's last request it still gets a copy of every frame (ms).
pub const FOLLOWER_QUIET_MS: u64 = 10_000;

/// Inputs [`Host::pump`] runs at most in one call: the caller's other work (the network)
/// breathes, and the rest (still queued, none dropped) runs at the next call.
pub const PUMP_BUDGET: usize = 10_000;

/// What waits in the queue for a seat.
enum Due {
    Input(Input),
    /// The seat's timer (`Input::Tick` when it is still the one armed).
    Timer,
}

struct Runner {
    client: Client,
    /// The player's seat after a bot took it while this program was away: what follows the
    /// table from then on (the client is over).
    follower: Option<Follower>,
    bot: Option<Bot>,
    /// When its timer is due (a `Due::Timer` waits in the queue for that time; an older one
    /// left there is stale and dropped).
    timer: Option<u64>,
}

impl Runner {
    /// A seat's client with no timer armed yet. It keeps only recent hands in memory: older
    /// steps are read from the store when it asks ([`Out::load`]).
    fn new(mut client: Client, bot: Option<Bot>, keep_log_in_store: bool) -> Runner {
        if keep_log_in_store {
            client.keep_log_in_store();
        }
        Runner {
            client,
            follower: None,
            bot,
            timer: None,
        }
    }
}

/// The seats one program runs at one table.
pub struct Host {
    table: TableId,
    me: VerifyingKey,
    /// The roster's peer of each seat.
    peers: [VerifyingKey; 4],
    /// The peer that runs each seat now: the roster's, until a seat is replaced by a bot
    /// (then its controller's peer).
    route: [VerifyingKey; 4],
    host_seat: Seat,
    player: Option<Seat>,
    terms: Terms,
    never_accept: bool,
    bot_level: Level,
    seed: u64,
    tamper: Option<(Seat, Tamper)>,
    keep_log_in_store: bool,
    think: Option<Think>,
    pause_after_hand: bool,
    runners: BTreeMap<Seat, Runner>,
    /// Inputs by (due time, order queued): what is due runs in that order.
    queue: BTreeMap<(u64, u64), (Seat, Due)>,
    order: u64,
    /// The host's clock: the latest time it ran at.
    now: u64,
    /// The time the current run goes to ([`Host::pump`]'s `now`).
    until: u64,
    /// The wall clock as the caller last gave it ([`Host::set_wall_clock`]): the time of the
    /// timing marks in the log. The host reads no clock itself.
    wall_clock: Option<SystemTime>,
    /// Stopped after a hand ([`Setup::pause_after_hand`]).
    paused: bool,
    /// Held by the player ([`Host::hold`]).
    held: bool,
    /// Bot seats this program must run whose client cannot be built yet (the controller's
    /// roster step is not behind a checkpoint): (controlling seat, bot seat).
    pending_bots: Vec<(Seat, Seat)>,
    /// Players of this table whose seat a bot took and who came back to follow it: when each
    /// last asked for the log (ms).
    followers: HashMap<[u8; 32], u64>,
    over: bool,
    failed_at: Option<u64>,
    /// The seats that did not accept the set-up, when it failed.
    culprits: Vec<Seat>,
    /// This program said it leaves: a seat that ends is not followed.
    leaving: bool,
}

impl Host {
    // ---- inputs ----

    /// Queues an input for one of this program's seats, due at `now`.
    pub fn push(&mut self, now: u64, seat: Seat, input: Input) {
        self.enqueue(now, seat, Due::Input(input));
    }

    fn enqueue(&mut self, at: u64, seat: Seat, due: Due) {
        self.order += 1;
        self.queue.insert((at, self.order), (seat, due));
    }

    /// The player plays `action` at its prompt.
    pub fn act(&mut self, now: u64, action: Action) {
        self.for_player(now, Input::Act(action));
    }

    /// The player accepts the host's set-up.
    pub fn accept(&mut self, now: u64) {
        self.for_player(now, Input::Accept);
    }

    /// The player leaves (declines a set-up not yet agreed).
    pub fn leave(&mut self, now: u64) {
        self.for_player(now, Input::Leave);
    }

    fn for_player(&mut self, now: u64, input: Input) {
        if let Some(me) = self.player {
            self.push(now, me, input);
        }
    }

    /// A frame of this table from the program `from`, for the seats `to` (a bit each): queued
    /// for those of them this program runs. `false` when `from` is not a peer of this table's
    /// roster (the frame is a stray). A peer of the roster that runs no seat now is a player
    /// whose seat a bot took, back to follow the table: it gets a copy of every frame while it
    /// asks.
    pub fn frame(&mut self, now: u64, from: &VerifyingKey, to: u8, bytes: Vec<u8>) -> bool {
        if !self.peers.contains(from) {
            return false;
        }
        if !self.route.contains(from) && *from != self.me {
            self.followers.insert(*from.as_bytes(), now);
        }
        // A frame of this table from one of its peers is never a stray, even for a seat this
        // program does not run (yet): a bot about to start here, a seat just replaced.
        let seats: Vec<Seat> = self.runners.keys().copied().collect();
        for seat in seats {
            if to & (1 << seat) != 0 {
                self.push(now, seat, Input::Frame(bytes.clone()));
            }
        }
        true
    }

    /// The steps a [`Load`] asked for, as the journal holds them (fewer when it starts
    /// later).
    pub fn stored(&mut self, now: u64, load: &Load, steps: Vec<StepRecord>) {
        let from = load.to - (steps.len() as u32).min(load.to);
        self.push(now, load.seat, Input::Stored { from, steps });
    }

    /// When to call [`Host::pump`] next: the time the first queued input is due (a seat's
    /// timer, a bot's move, or now), `None` while nothing waits or the host is paused.
    pub fn next_deadline(&self) -> Option<u64> {
        if self.is_paused() {
            return None;
        }
        self.queue.keys().next().map(|(at, _)| *at)
    }

    /// Stopped after a hand ([`Setup::pause_after_hand`]) or held by the player.
    pub fn is_paused(&self) -> bool {
        self.paused || self.held
    }

    /// Stopped after a hand ([`Setup::pause_after_hand`]) until [`Host::next_hand`].
    pub fn stopped_after_hand(&self) -> bool {
        self.paused
    }

    /// Goes on after a hand the host stopped at.
    pub fn next_hand(&mut self) {
        self.paused = false;
    }

    /// Holds the table (no timer runs, no bot moves: what is due waits) or lets it go.
    pub fn hold(&mut self, on: bool) {
        self.held = on;
    }

    /// The host's clock: the latest time it ran at.
    pub fn now(&self) -> u64 {
        self.now
    }

    /// The wall clock now, for the timing marks the host writes to the log at a networked
    /// table (a discard seen, a hand over: compared between the programs of a table, so on
    /// the wall clock rather than the caller's own): a networked caller gives it just before
    /// each [`Host::pump`], and every mark of that run carries it. The host reads no clock
    /// itself; until it is given, no marks.
    pub fn set_wall_clock(&mut self, now: SystemTime) {
        self.wall_clock = Some(now);
    }

    /// Has `bot` play `seat` from its next prompt on (`None`: the player plays it again):
    /// `--autoplay`, the master computer player in the player's seat.
    pub fn play_for(&mut self, seat: Seat, bot: Option<Bot>) {
        if let Some(r) = self.runners.get_mut(&seat) {
            r.bot = bot;
        }
    }

    /// Makes one seat of this program send what `tamper` makes of its frames (the
    /// `test-hooks` feature only).
    #[cfg(feature = "test-hooks")]
    pub fn set_tamper(&mut self, seat: Seat, tamper: Tamper) {
        self.tamper = Some((seat, tamper));
    }

    // ---- what the caller reads ----

    /// The table.
    pub fn table(&self) -> TableId {
        self.table
    }

    /// The player's seat here.
    pub fn player(&self) -> Option<Seat> {
        self.player
    }

    /// The seats this program runs.
    pub fn seats(&self) -> Vec<Seat> {
        self.runners.keys().copied().collect()
    }

    /// A seat's client, when this program runs it.
    pub fn client(&self, seat: Seat) -> Option<&Client> {
        self.runners.get(&seat).map(|r| &r.client)
    }

    /// The table is over for this program (its player's session ended or it left, or the
    /// set-up failed).
    pub fn is_over(&self) -> bool {
        self.over
    }

    /// When the set-up failed (the table is over for every seat).
    pub fn failed_at(&self) -> Option<u64> {
        self.failed_at
    }

    /// The seats that declined or never answered the set-up, when it failed (the lobby does
    /// not seat their players again for a while).
    pub fn setup_culprits(&self) -> &[Seat] {
        &self.culprits
    }

    /// Whether a player following this table (its seat was given to a bot and it came back)
    /// sent a frame within the last `within` ms: it asks for what it lacks while it catches up.
    pub fn followed_within(&self, now: u64, within: u64) -> bool {
        self.followers.values().any(|&asked| now < asked + within)
    }

    /// Every seat of this program is over.
    pub fn all_over(&self) -> bool {
        self.runners.values().all(|r| r.client.is_over())
    }

    /// The seats `peer` runs now that this program does not.
    pub fn seats_of(&self, peer: &VerifyingKey) -> Vec<Seat> {
        (0..4u8)
            .filter(|&s| self.route[s as usize] == *peer && !self.runners.contains_key(&s))
            .collect()
    }

    /// Bots this program must start are waiting for their controller's checkpoint.
    pub fn has_pending_bots(&self) -> bool {
        !self.pending_bots.is_empty()
    }

    // ---- running ----

    /// Runs the queued inputs due by `now`, each at its own due time, in the order they were
    /// queued (at most [`PUMP_BUDGET`]; none while paused), and returns what to do. The clock
    /// then stands at `now` unless the host paused.
    pub fn pump(&mut self, now: u64) -> Out {
        let mut out = Out::default();
        let mut budget = PUMP_BUDGET;
        self.until = now.max(self.now);
        while budget > 0 && !self.is_paused() {
            let Some(entry) = self.queue.first_entry() else {
                break;
            };
            let (at, _) = *entry.key();
            if at > now {
                break;
            }
            let (seat, due) = entry.remove();
            budget -= 1;
            self.now = self.now.max(at);
            let t = self.now;
            let Some(r) = self.runners.get_mut(&seat) else {
                continue;
            };
            let input = match due {
                Due::Input(i) => i,
                // A timer whose seat has armed another since is stale.
                Due::Timer if r.timer == Some(at) => {
                    r.timer = None;
                    Input::Tick
                }
                Due::Timer => continue,
            };
            let o = match r.follower.as_mut() {
                Some(f) => f.handle(t, input),
                None => r.client.handle(t, input),
            };
            self.dispatch(t, seat, o, &mut out);
        }
        if !self.is_paused() {
            self.now = self.now.max(now);
        }
        out
    }

    /// Every seat this program runs at a table not over leaves: the client's signed leave (a
    /// vote against itself during a hand, a decline at the set-up) goes straight to the
    /// others' programs (not to this one's other seats: they leave too). The second value
    /// says whether a seat's leave waits for the next hand's first step (its settlement was
    /// signed already): then the caller must run on a little for the others to hear it.
    pub fn leave_all(&mut self, now: u64) -> (Out, bool) {
        self.leaving = true;
        let mut out = Out::default();
        if self.over {
            return (out, false);
        }
        let mut deferred = false;
        let seats: Vec<Seat> = self.runners.keys().copied().collect();
        for seat in seats {
            let Some(r) = self.runners.get_mut(&seat) else {
                continue;
            };
            if r.client.is_over() {
                continue;
            }
            let o = r.client.handle(now, Input::Leave);
            deferred |= o.send.is_empty() && o.reply.is_empty() && !r.client.is_over();
            if !o.journal.is_empty() {
                out.durable.push(Durable::Append {
                    seat,
                    records: o.journal,
                });
            }
            let frames = o
                .send
                .into_iter()
                .map(|f| (0b1111u8, f))
                .chain(o.reply.into_iter().map(|(to, f)| (1u8 << (to & 3), f)));
            for (targets, frame) in frames {
                let mut per_peer: BTreeMap<[u8; 32], (VerifyingKey, u8)> = BTreeMap::new();
                for t in 0..4u8 {
                    if targets & (1 << t) != 0 && t != seat && !self.runners.contains_key(&t) {
                        let peer = self.route[t as usize];
                        per_peer.entry(*peer.as_bytes()).or_insert((peer, 0)).1 |= 1 << t;
                    }
                }
                for (peer, to) in per_peer.into_values() {
                    out.send.push(Outgoing {
                        peer,
                        to,
                        frame: frame.clone(),
                    });
                }
            }
        }
        (out, deferred)
    }

    /// Starts the bots this program must run and can now (the others stay pending): each is
    /// kept in the store with its key and its starting log, so that a restart resumes the bot
    /// from its own journal.
    pub fn retry_bots(&mut self) -> Out {
        let mut out = Out::default();
        self.start_pending_bots(&mut out);
        out
    }

    fn start_pending_bots(&mut self, out: &mut Out) {
        let pending = std::mem::take(&mut self.pending_bots);
        for (controller, b) in pending {
            if self.runners.get(&b).is_some_and(|r| !r.client.is_over()) {
                continue; // already running
            }
            let Some(c) = self.runners.get(&controller) else {
                continue;
            };
            let built = c
                .client
                .bot_client(b)
                .and_then(|client| Ok((client, c.client.bot_key(b)?)));
            match built {
                Ok((client, key)) => {
                    tracing::info!("seat {controller} runs the bot of seat {b}");
                    let start = client.persistent();
                    // The seat may have a journal here already (a bot of this program's that
                    // was replaced and came back to it): the bot's log starts afresh.
                    let mut records: Vec<Record> = vec![Record::Truncate(0)];
                    records.extend(start.log.iter().cloned().map(Record::Step));
                    if let Some(cp) = start.checkpoint.clone() {
                        records.push(Record::Checkpoint(Box::new(cp)));
                    }
                    out.durable.push(Durable::Seat {
                        persisted: Box::new(Persisted::new(start.config.clone(), start.root)),
                        bot_key: Some(key),
                    });
                    out.durable.push(Durable::Append { seat: b, records });
                    let bot = Bot::new(self.bot_level, self.seed ^ b as u64);
                    let keep = self.keep_log_in_store;
                    self.runners.insert(b, Runner::new(client, Some(bot), keep));
                    self.push(self.now, b, Input::Tick);
                }
                Err(e) if e.is_pending() => {
                    tracing::debug!("bot of seat {b} pending: {e}");
                    self.pending_bots.push((controller, b));
                }
                Err(e) => tracing::error!("seat {controller} cannot run the bot of seat {b}: {e}"),
            }
        }
    }

    /// `seat` is played by a bot that `controller`'s program runs from now on.
    fn replaced(&mut self, seat: Seat, controller: Seat) {
        let peer = self.route[controller as usize & 3];
        self.route[seat as usize & 3] = peer;
    }

    /// One seat's output: journal first, then the frames (this program's seats in process,
    /// the others one frame per program), the timer, and the events.
    fn dispatch(&mut self, now: u64, seat: Seat, o: Output, out: &mut Out) {
        let Output {
            send,
            reply,
            events,
            deadline,
            journal,
            rejected,
            load,
        } = o;
        if self.runners.contains_key(&seat) && !journal.is_empty() {
            out.durable.push(Durable::Append {
                seat,
                records: journal,
            });
        }
        if let Some(load) = load {
            out.load.push(Load {
                seat,
                from: load.from,
                to: load.to,
            });
        }
        for r in &rejected {
            tracing::debug!("seat {seat} dropped an input: {r:?}");
        }
        for frame in send {
            match self.tamper.as_mut() {
                Some((s, t)) if *s == seat => {
                    for (to, f) in t(frame) {
                        let targets = to.map_or(0b1111, |s| 1 << (s & 3));
                        self.route(now, seat, f, targets, false, out);
                    }
                }
                _ => self.route(now, seat, frame, 0b1111, false, out),
            }
        }
        for (to, frame) in reply {
            if to & mahjong_table::TO_RETURNING != 0 {
                // For the player who came back to follow the seat, not for the bot that
                // plays it: its own program only.
                let t = to & 3;
                let original = self.peers[t as usize];
                if original != self.me {
                    out.send.push(Outgoing {
                        peer: original,
                        to: 1 << t,
                        frame,
                    });
                }
                continue;
            }
            self.route(now, seat, frame, 1 << (to & 3), true, out);
        }
        // The seat's timer: a new one when it is earlier than the one armed, or that one is
        // due already. One due already (a seat waiting on what has not come yet, steps from
        // the store, a peer's answer) fires after this run, not in it: a seat that asks to be
        // woken at once cannot keep the other inputs from their turn.
        if let Some(r) = self.runners.get_mut(&seat)
            && let Some(d) = deadline
            && r.timer.is_none_or(|t| d < t || t <= now)
        {
            let at = if d <= now { self.until + 1 } else { d };
            r.timer = Some(at);
            self.enqueue(at, seat, Due::Timer);
        }
        let had_events = !events.is_empty();
        for ev in events {
            self.on_event(now, seat, ev, out);
        }
        if had_events
            && self.player == Some(seat)
            && let Some(view) = self
                .runners
                .get(&seat)
                .filter(|r| r.follower.is_none())
                .and_then(|r| r.client.view())
        {
            out.updates.push(Update::View {
                view: Box::new(view),
                now,
            });
        }
    }

    /// Where a frame of `seat` for `targets` goes. A `reply` (an answer to one seat's
    /// request) for a seat replaced by a bot also goes to its own program when that asked (its
    /// player came back): it learns what was booked and that its seat was taken. Players
    /// following a table their seat left get a copy of every other frame for that seat.
    fn route(
        &mut self,
        now: u64,
        seat: Seat,
        frame: Vec<u8>,
        targets: u8,
        reply: bool,
        out: &mut Out,
    ) {
        let mut per_peer: BTreeMap<[u8; 32], (VerifyingKey, u8)> = BTreeMap::new();
        let mut add = |peer: VerifyingKey, t: u8| {
            per_peer.entry(*peer.as_bytes()).or_insert((peer, 0)).1 |= 1 << t;
        };
        for t in 0..4u8 {
            if targets & (1 << t) == 0 || t == seat {
                continue;
            }
            if self.runners.contains_key(&t) {
                self.push(now, t, Input::Frame(frame.clone()));
            } else {
                add(self.route[t as usize], t);
            }
            let original = self.peers[t as usize];
            if reply && original != self.route[t as usize] && original != self.me {
                add(original, t);
            }
        }
        if !reply {
            for t in 0..4u8 {
                let original = self.peers[t as usize];
                let watching = original != self.route[t as usize]
                    && original != self.me
                    && self
                        .followers
                        .get(original.as_bytes())
                        .is_some_and(|asked| now < asked + FOLLOWER_QUIET_MS);
                if watching && (targets & (1 << t) != 0 || t == seat) {
                    add(original, t);
                }
            }
        }
        for (peer, to) in per_peer.into_values() {
            out.send.push(Outgoing {
                peer,
                to,
                frame: frame.clone(),
            });
        }
    }

    fn on_event(&mut self, now: u64, seat: Seat, ev: TableEvent, out: &mut Out) {
        let own = self.player == Some(seat);
        match &ev {
            TableEvent::YourTurn { view, .. } => {
                if let Some(bot) = self.runners.get_mut(&seat).and_then(|r| r.bot.as_mut()) {
                    let action = bot.decide(view).action;
                    // The player's seat played for the player (`--autoplay`) plays at once.
                    let delay = match own {
                        true => 0,
                        false => self.think.as_mut().map_or(0, |t| t.delay(&action)),
                    };
                    self.push(now + delay, seat, Input::Act(action));
                } else if own && let Some(action) = view.auto_action() {
                    // The rules' forced move for the player (a flower set aside, the only
                    // answer there is, the drawn tile after 敲): played at once, as a bot
                    // plays, and never shown as a prompt.
                    self.push(now, seat, Input::Act(action));
                    return;
                }
            }
            TableEvent::Proposed(proposal)
                if seat != self.host_seat
                    && self.runners.get(&seat).is_some_and(|r| r.bot.is_some())
                    && !(own && self.never_accept) =>
            {
                // A bot accepts only what this program agreed to.
                match (self.terms)(proposal) {
                    Ok(()) => self.push(now, seat, Input::Accept),
                    Err(why) => {
                        tracing::warn!("seat {seat} declines the proposal: {why}");
                        self.push(now, seat, Input::Decline);
                        if own {
                            out.updates.push(Update::Declined { why });
                        }
                    }
                }
            }
            TableEvent::SetupFailed { seat: culprit } if self.failed_at.is_none() => {
                // The table is over for everyone who took part: never resumed.
                self.culprits.push(*culprit);
                self.over = true;
                self.failed_at = Some(now);
                out.durable.push(Durable::Finish);
            }
            TableEvent::SeatReplaced {
                seat: b,
                controller,
            } => self.replaced(*b, *controller),
            TableEvent::RunBot { seat: b } => {
                self.pending_bots.push((seat, *b));
                self.start_pending_bots(out);
            }
            TableEvent::Evidence(e) => out.durable.push(Durable::Evidence(e.clone())),
            TableEvent::HandOver { result, .. } if own => {
                self.paused |= self.pause_after_hand;
                if let Some(r) = self.runners.get(&seat) {
                    let hands = match &r.follower {
                        Some(_) => None,
                        None => r.client.revealed(result.hand).cloned(),
                    };
                    if let Some(hands) = hands {
                        out.updates.push(Update::Revealed {
                            hand: result.hand,
                            hands: Box::new(hands),
                        });
                    }
                    let (results, log) = match &r.follower {
                        Some(f) => (f.results(), f.log()),
                        None => (r.client.results(), r.client.log()),
                    };
                    out.durable.push(Durable::Book {
                        results: results.to_vec(),
                        log: log.to_vec(),
                    });
                }
            }
            TableEvent::Left
                if own
                    && !self.leaving
                    && self
                        .runners
                        .get(&seat)
                        .and_then(|r| r.client.follow())
                        .is_some() =>
            {
                // Back after a bot took the seat (this program did not choose to leave): it
                // follows the table to the end of the session.
                let Some(r) = self.runners.get_mut(&seat) else {
                    return;
                };
                let Some(f) = r.client.follow() else {
                    return;
                };
                let hands = f.results().len() as u32;
                tracing::info!(
                    "seat {seat} is played by a bot now: following the table to its end"
                );
                r.follower = Some(f);
                r.timer = None;
                self.push(now, seat, Input::Tick);
                out.updates.push(Update::Following { seat, hands });
                return;
            }
            TableEvent::SessionOver { .. } | TableEvent::Left if own => {
                self.over = true;
                out.durable.push(Durable::Finish);
            }
            _ => {}
        }
        if own {
            self.timing(seat, &ev);
            out.updates.push(Update::Table(ev));
        }
    }

    /// Timing marks in the log for the LAN's figures (a discard seen by each seat, a hand
    /// over), at the wall clock the caller gave ([`Host::set_wall_clock`]). They are `debug`
    /// events, off by default: about 80 lines a hand that would otherwise take a tenth of what
    /// a hand costs a player's data directory; turn them on with
    /// `RUST_LOG=info,mahjong_net::timing=debug`. None where every
    /// seat is this program's (a practice table: nothing crosses a network, and a player's
    /// log stays free of them) or no wall clock was given.
    fn timing(&self, seat: Seat, ev: &TableEvent) {
        if self.route.iter().all(|p| *p == self.me) {
            return;
        }
        let Some(wall_clock) = self.wall_clock else {
            return;
        };
        let unix_us = wall_clock
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_micros());
        match ev {
            TableEvent::Moved { mv, .. } if matches!(mv.action, Action::Discard { .. }) => {
                let step = self
                    .runners
                    .get(&seat)
                    .map_or((0, 0), |r| (r.client.hand_number(), r.client.log().len()));
                tracing::debug!(
                    target: "mahjong_net::timing",
                    "discard seen hand={} step={} by={} unix_us={}",
                    step.0,
                    step.1,
                    mv.seat,
                    unix_us
                );
            }
            TableEvent::HandOver { result, .. } => tracing::debug!(
                target: "mahjong_net::timing",
                "hand over hand={} unix_us={}",
                result.hand,
                unix_us
            ),
            _ => {}
        }
    }
}
