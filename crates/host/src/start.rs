//! How a host starts: at a new table, or resumed from the store.

use std::collections::{BTreeMap, HashMap};

use mahjong_bot::Bot;
use mahjong_rules::{Seat, SeatView};
use mahjong_table::{Client, Input, Persisted};

use crate::{Durable, Host, NewSeat, Out, Runner, Setup};

/// A table resumed from the store.
pub enum Resumed {
    /// Every seat of this program is over: the table is not played again.
    Over,
    /// It goes on.
    Playing {
        /// The host.
        host: Box<Host>,
        /// Hands final for the player's seat.
        hands: u32,
        /// The player's seat follows the table (the seat, hands final then).
        following: Option<(Seat, u32)>,
        /// The player's view as it was.
        view: Option<Box<SeatView>>,
    },
}

impl Host {
    pub(crate) fn with(setup: Setup, mut runners: BTreeMap<Seat, Runner>) -> Host {
        if let Some(names) = &setup.names {
            for (seat, r) in runners.iter_mut() {
                r.client.set_name(&names[*seat as usize & 3]);
            }
        }
        let mut host = Host {
            table: setup.table,
            me: setup.me,
            peers: setup.peers,
            route: setup.peers,
            host_seat: setup.host_seat,
            player: setup.player,
            terms: setup.terms,
            #[cfg(feature = "test-hooks")]
            never_accept: setup.never_accept,
            #[cfg(not(feature = "test-hooks"))]
            never_accept: false,
            bot_level: setup.bot_level,
            seed: setup.seed,
            #[cfg(feature = "test-hooks")]
            tamper: setup.tamper,
            #[cfg(not(feature = "test-hooks"))]
            tamper: None,
            keep_log_in_store: setup.keep_log_in_store,
            think: setup.think,
            pause_after_hand: setup.pause_after_hand,
            runners,
            queue: BTreeMap::new(),
            order: 0,
            now: 0,
            until: 0,
            wall_clock: None,
            paused: false,
            held: false,
            pending_bots: Vec::new(),
            followers: HashMap::new(),
            over: false,
            failed_at: None,
            culprits: Vec::new(),
            leaving: false,
        };
        // A resumed table: the seats already replaced run on their controllers' peers.
        let controllers = host
            .runners
            .values()
            .next()
            .map_or([None; 4], |r| r.client.controllers());
        for (seat, c) in controllers.iter().enumerate() {
            if let Some(c) = c {
                host.replaced(seat as Seat, *c);
            }
        }
        host
    }

    /// A new table: each seat is kept in the store first ([`Durable::Seat`]), `propose` (the
    /// host seat's `Input::Propose`, if this program proposes) is its first input, and every
    /// seat is ticked once so that its timers start. `now` is the caller's clock: the host's
    /// clock starts there, so the first step's timers run from the table's start (a table
    /// begun after a long wait in the lobby does not see its seats silent since time 0).
    pub fn begin(
        setup: Setup,
        seats: Vec<NewSeat>,
        propose: Option<Input>,
        now: u64,
    ) -> (Host, Out) {
        let mut out = Out::default();
        let mut runners = BTreeMap::new();
        let keep = setup.keep_log_in_store;
        for s in seats {
            let start = s.client.persistent();
            out.durable.push(Durable::Seat {
                persisted: Box::new(Persisted::new(start.config.clone(), start.root)),
                bot_key: s.bot_key,
            });
            runners.insert(s.client.seat(), Runner::new(s.client, s.bot, keep));
        }
        let mut host = Host::with(setup, runners);
        host.now = now;
        if let Some(p) = propose {
            host.push(now, host.host_seat, p);
        }
        let seats: Vec<Seat> = host.runners.keys().copied().collect();
        for seat in seats {
            host.push(now, seat, Input::Tick);
        }
        (host, out)
    }

    /// A table played here before, from the store: `clients` are this program's seats by the
    /// roster (restored, each with its bot), `taken_over` the stored seats of other peers
    /// this program ran a bot for (restored once their controlling seat is: the bot's key
    /// derives from the controller's root). `now` seeds the bots of the seats taken over.
    pub fn resume(
        setup: Setup,
        clients: Vec<(Client, Option<Bot>)>,
        taken_over: Vec<Persisted>,
        now: u64,
    ) -> Result<Resumed, String> {
        let keep = setup.keep_log_in_store;
        let mut runners: BTreeMap<Seat, Runner> = clients
            .into_iter()
            .map(|(c, bot)| (c.seat(), Runner::new(c, bot, keep)))
            .collect();
        let me = setup.player;
        let hands = me
            .and_then(|m| runners.get(&m))
            .map_or(0, |r| r.client.results().len() as u32);
        // The player's seat, over because a bot took it while this program was away (it came
        // back, learnt it, and stopped before the session ended): it follows again.
        let mut following = None;
        if let Some(r) = me.and_then(|m| runners.get_mut(&m))
            && let Some(f) = r.client.follow()
        {
            following = Some((f.seat(), f.results().len() as u32));
            r.follower = Some(f);
        }
        if !runners.is_empty()
            && runners
                .values()
                .all(|r| r.client.is_over() && r.follower.is_none())
        {
            return Ok(Resumed::Over);
        }
        let controllers = runners
            .values()
            .next()
            .map_or([None; 4], |r| r.client.controllers());
        let bot = |seat: Seat| Bot::new(setup.bot_level, setup.seed ^ (seat as u64) << 56 ^ now);
        for p in taken_over {
            let seat = p.config.seat;
            let Some(controller) = controllers[seat as usize & 3] else {
                continue; // the store began it, the table never logged it: nothing to run
            };
            let Some(c) = runners.get(&controller) else {
                continue;
            };
            let key = c
                .client
                .bot_key(seat)
                .map_err(|e| format!("cannot resume the bot of seat {seat}: {e}"))?;
            let client = Client::restore(p, key)
                .map_err(|e| format!("cannot resume the bot of seat {seat}: {e}"))?;
            runners.insert(seat, Runner::new(client, Some(bot(seat)), keep));
        }
        // A bot this program controls but had not started when it stopped: it has signed
        // nothing yet, so it starts from its controller's checkpoint.
        let mut pending_bots = Vec::new();
        for (b, c) in controllers.iter().enumerate() {
            if let Some(c) = c
                && runners.contains_key(c)
                && !runners.contains_key(&(b as Seat))
            {
                pending_bots.push((*c, b as Seat));
            }
        }
        let view = me
            .and_then(|m| runners.get(&m))
            .filter(|r| r.follower.is_none())
            .and_then(|r| r.client.view())
            .map(Box::new);
        let mut host = Host::with(setup, runners);
        host.pending_bots = pending_bots;
        host.now = now;
        let seats: Vec<Seat> = host.runners.keys().copied().collect();
        for seat in seats {
            host.push(now, seat, Input::Tick);
        }
        Ok(Resumed::Playing {
            host: Box::new(host),
            hands,
            following,
            view,
        })
    }
}
