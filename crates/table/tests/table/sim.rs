//! A simulated network and four bot-driven seats, all in memory and in simulated time.
//!
//! The network delays every frame by a random time (so it reorders), drops and duplicates
//! frames at the given rates, and can cut a seat off for a while. Seats are driven by
//! `mahjong_bot` bots from the views the clients give them; journals are folded into each
//! seat's store at once (instant durable storage), so a crashed seat can be restored from it.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::{Arc, OnceLock};

use ed25519_dalek::SigningKey;
use mahjong_bot::{Bot, Level};
use mahjong_deal::CardTable;
use mahjong_rules::{Action, Money, Options, Ruleset, Seat, SessionLength};
use mahjong_table::{
    Client, Config, Envelope, Follower, Input, Output, Persisted, Rejected, TableEvent,
};
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

/// One card table for the whole test binary.
pub fn cards() -> Arc<CardTable> {
    static CARDS: OnceLock<Arc<CardTable>> = OnceLock::new();
    CARDS.get_or_init(|| Arc::new(CardTable::new())).clone()
}

/// Network behaviour.
#[derive(Clone, Copy, Debug)]
pub struct Net {
    pub min_delay: u64,
    pub max_delay: u64,
    /// Per mille of frames dropped.
    pub drop: u32,
    /// Per mille of frames delivered twice.
    pub dup: u32,
}

impl Net {
    /// A perfect network with 5 ms latency.
    pub const FAST: Net = Net {
        min_delay: 5,
        max_delay: 5,
        drop: 0,
        dup: 0,
    };
    /// Random delays (reordering), 5% loss, 5% duplicates.
    pub const LOSSY: Net = Net {
        min_delay: 1,
        max_delay: 400,
        drop: 50,
        dup: 50,
    };
}

/// Rewrites a liar's outgoing frame: returns the frames to deliver instead, each to one seat
/// (`Some(seat)`) or to all (`None`).
pub type Hook = Box<dyn FnMut(&mut HookCtx, &Envelope) -> Vec<(Option<Seat>, Vec<u8>)>>;

/// Decides whether a seat's client is given an incoming envelope (false: dropped).
pub type Inbound = Box<dyn FnMut(&Envelope) -> bool>;

/// What a hook may use: the liar's client and key, and the time.
pub struct HookCtx<'a> {
    pub client: &'a Client,
    pub key: &'a SigningKey,
    pub now: u64,
}

#[derive(Clone, Debug)]
enum Ev {
    Frame(Vec<u8>),
    Tick,
    Act(Action),
    Accept,
    Restart,
}

/// A seat's player who comes back after a bot took the seat: its restored client, then (once
/// it learns it left) the follower it becomes. The simulated network gives it a copy of
/// every frame sent to its seat (as the real network routes them to the seat's original peer
/// too); it is slot [`RETURNER`] of the event queue.
pub struct Returner {
    pub seat: usize,
    pub client: Option<Client>,
    pub follower: Option<Follower>,
    pub events: Vec<TableEvent>,
    next_tick: Option<u64>,
}

/// The queue slot of the [`Returner`].
pub const RETURNER: usize = 4;

/// The whole simulated table.
pub struct Sim {
    /// A player back after its seat was replaced, if any.
    pub returner: Option<Returner>,
    pub clients: Vec<Option<Client>>,
    pub stores: Vec<Persisted>,
    pub keys: Vec<SigningKey>,
    pub events: Vec<Vec<TableEvent>>,
    pub rejected: Vec<Vec<Rejected>>,
    pub now: u64,
    pub net: Net,
    queue: BinaryHeap<Reverse<(u64, u64)>>,
    pending: std::collections::HashMap<u64, (usize, Ev)>,
    order: u64,
    rng: ChaCha8Rng,
    bots: Vec<Bot>,
    next_tick: Vec<Option<u64>>,
    /// A seat cut off the network between these times.
    pub cut: Option<(Seat, u64, u64)>,
    /// More seats cut off, each between its times.
    pub cuts: Vec<(Seat, u64, u64)>,
    /// A seat whose bot does not act (its client's timer plays for it).
    pub asleep: Option<Seat>,
    /// Bot thinking time, milliseconds.
    pub think: (u64, u64),
    pub hooks: Vec<Option<Hook>>,
    /// Filters of incoming frames, per seat (a modified client that ignores some).
    pub inbound: Vec<Option<Inbound>>,
    /// Stop when every live seat has this many results (0: play the session out).
    pub stop_after_hands: usize,
    /// Frames delivered.
    pub delivered: u64,
    /// Time spent inside each seat's `Client::handle` (the seat's CPU; bots excluded).
    pub cpu: [std::time::Duration; 4],
    /// Loads from the store each seat asked for ([`mahjong_table::Output::load`]).
    pub loads: [u64; 4],
}

pub fn keys(seed: u64) -> Vec<SigningKey> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed);
    (0..4)
        .map(|_| {
            let mut b = [0u8; 32];
            rng.fill_bytes(&mut b);
            SigningKey::from_bytes(&b)
        })
        .collect()
}

pub fn options(ruleset: Ruleset) -> Options {
    Options::preset(ruleset)
}

impl Sim {
    /// Four seats at a fresh table; the host (seat 0) proposes `options` at time 0.
    pub fn new(seed: u64, net: Net, options: Options, length: SessionLength) -> Sim {
        let keys = keys(seed);
        let roster = [0, 1, 2, 3].map(|i| keys[i].verifying_key());
        let mut table = [0u8; 32];
        table[..8].copy_from_slice(&seed.to_le_bytes());
        let mut clients = Vec::new();
        let mut stores = Vec::new();
        for seat in 0..4u8 {
            let config = Config {
                table,
                seat,
                roster,
                host: 0,
            };
            let mut root = [0u8; 32];
            root[..8].copy_from_slice(&seed.to_le_bytes());
            root[8] = seat;
            root[9] = 0xaa;
            let mut client =
                Client::with_cards(config.clone(), keys[seat as usize].clone(), root, cards())
                    .expect("client");
            client.keep_log_in_store();
            clients.push(Some(client));
            stores.push(Persisted::new(config, root));
        }
        let mut sim = Sim {
            returner: None,
            clients,
            stores,
            keys,
            events: vec![Vec::new(); 4],
            rejected: vec![Vec::new(); 4],
            now: 0,
            net,
            queue: BinaryHeap::new(),
            pending: std::collections::HashMap::new(),
            order: 0,
            rng: ChaCha8Rng::seed_from_u64(seed),
            bots: (0..4)
                .map(|s| Bot::new(Level::Basic, seed * 4 + s))
                .collect(),
            next_tick: vec![None; 4],
            cut: None,
            cuts: Vec::new(),
            asleep: None,
            think: (20, 600),
            hooks: (0..4).map(|_| None).collect(),
            inbound: (0..4).map(|_| None).collect(),
            stop_after_hands: 0,
            delivered: 0,
            cpu: [std::time::Duration::ZERO; 4],
            loads: [0; 4],
        };
        let propose = Input::Propose {
            options: Box::new(options),
            stake: Money::coins(1),
            length,
        };
        sim.input_now(0, propose);
        sim
    }

    fn push(&mut self, at: u64, to: usize, ev: Ev) {
        self.order += 1;
        self.queue.push(Reverse((at, self.order)));
        self.pending.insert(self.order, (to, ev));
    }

    fn is_cut(&self, seat: usize) -> bool {
        self.cut
            .iter()
            .chain(&self.cuts)
            .any(|&(s, from, to)| s as usize == seat && self.now >= from && self.now < to)
    }

    fn deliver(&mut self, from: usize, to: usize, frame: Vec<u8>) {
        if from == to || self.is_cut(from) {
            return;
        }
        if to < RETURNER && self.returner.as_ref().is_some_and(|r| r.seat == to) {
            self.deliver(from, RETURNER, frame.clone());
        }
        if self.is_cut(to) {
            return;
        }
        if self.rng.next_u32() % 1000 < self.net.drop {
            return;
        }
        let copies = if self.rng.next_u32() % 1000 < self.net.dup {
            2
        } else {
            1
        };
        for _ in 0..copies {
            let span = self.net.max_delay - self.net.min_delay + 1;
            let delay = self.net.min_delay + self.rng.next_u64() % span;
            self.push(self.now + delay, to, Ev::Frame(frame.clone()));
        }
    }

    /// Gives `input` to `seat` now and dispatches its output.
    pub fn input_now(&mut self, seat: usize, input: Input) {
        let now = self.now;
        if seat == RETURNER {
            self.returner_input(input);
            return;
        }
        let Some(client) = self.clients[seat].as_mut() else {
            return;
        };
        let t = std::time::Instant::now();
        let out = client.handle(now, input);
        self.cpu[seat] += t.elapsed();
        self.dispatch(seat, out);
    }

    fn dispatch(&mut self, seat: usize, out: Output) {
        let Output {
            send,
            reply,
            events,
            deadline,
            journal,
            rejected,
            load,
        } = out;
        for r in journal {
            self.stores[seat].apply(r);
        }
        for frame in send {
            let rewritten = match self.hooks[seat].as_mut() {
                Some(hook) => {
                    let env = Envelope::decode(&frame).expect("own frame decodes");
                    let client = self.clients[seat].as_ref().expect("live");
                    let mut ctx = HookCtx {
                        client,
                        key: &self.keys[seat],
                        now: self.now,
                    };
                    hook(&mut ctx, &env)
                }
                None => vec![(None, frame)],
            };
            for (to, f) in rewritten {
                match to {
                    Some(t) => self.deliver(seat, t as usize, f),
                    None => {
                        for t in 0..4 {
                            self.deliver(seat, t, f.clone());
                        }
                    }
                }
            }
        }
        for (to, frame) in reply {
            if to & mahjong_table::TO_RETURNING != 0 {
                // For the returning player of that seat only.
                self.deliver(seat, RETURNER, frame);
                continue;
            }
            // A liar lies consistently: its answers to requests go through its hook too.
            let rewritten = match self.hooks[seat].as_mut() {
                Some(hook) => match Envelope::decode(&frame) {
                    Ok(env)
                        if env.seat as usize == seat
                            && !matches!(env.body, mahjong_table::Body::Request { .. }) =>
                    {
                        let client = self.clients[seat].as_ref().expect("live");
                        let mut ctx = HookCtx {
                            client,
                            key: &self.keys[seat],
                            now: self.now,
                        };
                        hook(&mut ctx, &env)
                            .into_iter()
                            .filter(|(t, _)| t.is_none_or(|t| t == to))
                            .map(|(_, f)| f)
                            .collect()
                    }
                    _ => vec![frame],
                },
                None => vec![frame],
            };
            for f in rewritten {
                self.deliver(seat, to as usize, f);
            }
        }
        if let Some(d) = deadline
            && self.next_tick[seat].is_none_or(|t| d < t || t <= self.now)
        {
            self.next_tick[seat] = Some(d);
            self.push(d.max(self.now), seat, Ev::Tick);
        }
        self.rejected[seat].extend(rejected);
        for ev in events {
            self.react(seat, &ev);
            self.events[seat].push(ev);
        }
        if let Some(load) = load {
            // The host reads its store (every step the journal recorded) and hands the
            // steps back at once.
            let store = &self.stores[seat];
            let base = store.base();
            let lo = load.from.max(base);
            let steps = store
                .log
                .get((lo - base) as usize..(load.to.max(lo) - base) as usize)
                .map(<[_]>::to_vec)
                .unwrap_or_default();
            self.loads[seat] += 1;
            self.input_now(seat, Input::Stored { from: lo, steps });
        }
    }

    fn react(&mut self, seat: usize, ev: &TableEvent) {
        match ev {
            TableEvent::YourTurn { view, .. } => {
                if self.asleep == Some(seat as Seat) {
                    return;
                }
                let action = self.bots[seat].decide(view).action;
                let span = self.think.1 - self.think.0 + 1;
                let at = self.now + self.think.0 + self.rng.next_u64() % span;
                self.push(at, seat, Ev::Act(action));
            }
            TableEvent::Proposed(p) if p.host as usize != seat => {
                let at = self.now + 50 + self.rng.next_u64() % 500;
                self.push(at, seat, Ev::Accept);
            }
            TableEvent::RunBot { seat: bot } => {
                let bot_client = self.clients[seat]
                    .as_ref()
                    .expect("the controller is live")
                    .bot_client(*bot)
                    .expect("bot client");
                let b = *bot as usize;
                if matches!(self.cut, Some((c, _, _)) if c == *bot) {
                    self.cut = None; // the old seat stays gone; the bot is on the network
                }
                // The bot's store: the controller's steps before the bot's first held step,
                // then the bot's own.
                let mut start = bot_client.persistent();
                let controller = &self.stores[seat];
                if start.base() > controller.base() {
                    let mut log =
                        controller.log[..(start.base() - controller.base()) as usize].to_vec();
                    log.append(&mut start.log);
                    start.log = log;
                }
                self.stores[b] = start;
                let mut bot_client = bot_client;
                bot_client.keep_log_in_store();
                self.clients[b] = Some(bot_client);
                self.next_tick[b] = None;
                self.push(self.now + 1, b, Ev::Tick);
            }
            _ => {}
        }
    }

    /// Brings back `seat`'s player from `store` (its store as it was when it went away) while
    /// a bot plays its seat.
    pub fn bring_back(&mut self, seat: usize, store: Persisted) {
        let client =
            Client::restore_with_cards(store, self.keys[seat].clone(), cards()).expect("restore");
        self.returner = Some(Returner {
            seat,
            client: Some(client),
            follower: None,
            events: Vec::new(),
            next_tick: None,
        });
        self.input_now(RETURNER, Input::Tick);
    }

    fn returner_input(&mut self, input: Input) {
        let now = self.now;
        let Some(r) = self.returner.as_mut() else {
            return;
        };
        let out = match (r.follower.as_mut(), r.client.as_mut()) {
            (Some(f), _) => f.handle(now, input),
            (None, Some(c)) => {
                let out = c.handle(now, input);
                if out.events.iter().any(|e| matches!(e, TableEvent::Left)) {
                    r.follower = c.follow();
                    if let Some(f) = r.follower.as_mut() {
                        r.client = None;
                        let mut first = f.handle(now, Input::Tick);
                        let mut out = out;
                        out.events.append(&mut first.events);
                        out.reply.append(&mut first.reply);
                        out.deadline = first.deadline;
                        out
                    } else {
                        out
                    }
                } else {
                    out
                }
            }
            (None, None) => return,
        };
        let seat = r.seat;
        r.events.extend(out.events);
        let tick = out
            .deadline
            .filter(|&d| r.next_tick.is_none_or(|t| d < t || t <= now));
        if let Some(d) = tick {
            r.next_tick = Some(d);
        }
        for frame in out.send {
            for t in (0..4).filter(|&t| t != seat) {
                self.deliver(RETURNER, t, frame.clone());
            }
        }
        for (to, frame) in out.reply {
            self.deliver(RETURNER, to as usize, frame);
        }
        if let Some(d) = tick {
            self.push(d.max(now), RETURNER, Ev::Tick);
        }
    }

    /// Crashes `seat` now (its store survives) and restarts it after `down` ms.
    pub fn crash(&mut self, seat: usize, down: u64) {
        self.clients[seat] = None;
        self.push(self.now + down, seat, Ev::Restart);
    }

    fn live_done(&self) -> bool {
        if self.clients.iter().any(Option::is_none) {
            return false; // a crashed seat is yet to restart
        }
        if let Some(r) = &self.returner {
            let following = r.follower.as_ref().is_some_and(|f| !f.is_over());
            if following || r.client.as_ref().is_some_and(|c| !c.is_over()) {
                return false;
            }
        }
        self.clients.iter().flatten().all(|c| {
            c.is_over() || (self.stop_after_hands > 0 && c.results().len() >= self.stop_after_hands)
        })
    }

    /// Runs until every live seat is done, or `limit` ms of simulated time.
    pub fn run(&mut self, limit: u64) {
        self.run_until(limit, |_| false);
    }

    /// Runs until `stop` holds (checked after each event), every live seat is done, or `limit`.
    pub fn run_until(&mut self, limit: u64, mut stop: impl FnMut(&Sim) -> bool) {
        while let Some(Reverse((at, order))) = self.queue.pop() {
            if at > limit {
                self.queue.push(Reverse((at, order)));
                self.now = limit;
                return;
            }
            let Some((to, ev)) = self.pending.remove(&order) else {
                continue;
            };
            self.now = at;
            match ev {
                Ev::Frame(f) => {
                    if self.is_cut(to) {
                        continue;
                    }
                    if let (Some(keep), Ok(env)) = (
                        self.inbound.get_mut(to).and_then(Option::as_mut),
                        Envelope::decode(&f),
                    ) && !keep(&env)
                    {
                        continue;
                    }
                    self.delivered += 1;
                    self.input_now(to, Input::Frame(f));
                }
                Ev::Tick if to == RETURNER => {
                    if let Some(r) = self.returner.as_mut()
                        && r.next_tick == Some(at)
                    {
                        r.next_tick = None;
                        self.input_now(RETURNER, Input::Tick);
                    }
                }
                Ev::Tick => {
                    if self.next_tick[to] == Some(at) {
                        self.next_tick[to] = None;
                        self.input_now(to, Input::Tick);
                    }
                }
                Ev::Act(a) => self.input_now(to, Input::Act(a)),
                Ev::Accept => self.input_now(to, Input::Accept),
                Ev::Restart => {
                    // A restart reads the store from its checkpoint on, as the real store
                    // does; older steps are loaded when they are needed.
                    let mut client = Client::restore_with_cards(
                        self.stores[to].clone().from_checkpoint_on(),
                        self.keys[to].clone(),
                        cards(),
                    )
                    .expect("restore");
                    client.keep_log_in_store();
                    self.clients[to] = Some(client);
                    self.next_tick[to] = None;
                    self.input_now(to, Input::Tick);
                }
            }
            if stop(self) || self.live_done() {
                return;
            }
        }
    }

    /// The whole log of `seat` as its journal recorded it (the client itself holds only
    /// recent hands: it keeps its log in the store).
    pub fn log(&self, seat: usize) -> &[mahjong_table::StepRecord] {
        assert_eq!(
            self.stores[seat].base(),
            0,
            "seat {seat}'s store starts at step 0"
        );
        &self.stores[seat].log
    }

    pub fn client(&self, seat: usize) -> &Client {
        self.clients[seat].as_ref().expect("live seat")
    }

    /// Every live seat holds the same log hash, log length and results.
    pub fn assert_agree(&self, seats: &[usize]) {
        let first = self.client(seats[0]);
        for &s in &seats[1..] {
            let c = self.client(s);
            assert_eq!(c.results(), first.results(), "seat {s} results differ");
            assert_eq!(
                c.next_step(),
                first.next_step(),
                "seat {s} log length differs"
            );
            assert_eq!(c.log_hash(), first.log_hash(), "seat {s} log hash differs");
        }
    }

    /// The events of one seat matching `f`.
    pub fn count(&self, seat: usize, f: impl Fn(&TableEvent) -> bool) -> usize {
        self.events[seat].iter().filter(|e| f(e)).count()
    }
}
