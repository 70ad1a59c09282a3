//! Seat hosting with no sockets: four hosts over a simulated network (and one host with all
//! four seats), each with an in-memory store that applies its `Out::durable` before anything
//! of the same `Out` is delivered. A seat that leaves is replaced by a bot its controller's
//! host starts; a controller restarted from its store resumes the bot it ran.

use std::collections::{BTreeMap, VecDeque};

use ed25519_dalek::{SigningKey, VerifyingKey};
use mahjong_bot::{Bot, Level};
use mahjong_host::{Durable, Host, NewSeat, Out, Resumed, Setup, Update};
use mahjong_rules::{Money, Options, Outcome, Ruleset, Seat, SessionLength};
use mahjong_table::{Client, Config, HandResult, Input, Persisted, TableEvent};

const TABLE: [u8; 32] = [7; 32];

fn key(i: u8) -> SigningKey {
    SigningKey::from_bytes(&[i + 1; 32])
}

/// One program's store: its seats (with a bot seat's key), its ledger, and whether the table
/// is finished.
#[derive(Default)]
struct Store {
    seats: BTreeMap<Seat, (Persisted, Option<SigningKey>)>,
    ledger: Vec<HandResult>,
    finished: bool,
}

impl Store {
    fn apply(&mut self, d: Durable) {
        match d {
            Durable::Seat { persisted, bot_key } => {
                self.seats
                    .insert(persisted.config.seat, (*persisted, bot_key));
            }
            Durable::Append { seat, records } => {
                let (p, _) = self
                    .seats
                    .get_mut(&seat)
                    .expect("a seat begun before its records");
                for r in records {
                    p.apply(r);
                }
            }
            Durable::Book { results, .. } => {
                for r in results {
                    if !self.ledger.iter().any(|x| x.hand == r.hand) {
                        self.ledger.push(r);
                    }
                }
            }
            Durable::Evidence(_) => {}
            Durable::Finish => self.finished = true,
        }
    }

    fn steps(&self, seat: Seat, from: u32, to: u32) -> Vec<mahjong_table::StepRecord> {
        self.seats
            .get(&seat)
            .map_or_else(Vec::new, |(p, _)| p.steps(from, to))
    }
}

struct Program {
    key: SigningKey,
    host: Option<Host>,
    store: Store,
    updates: Vec<Update>,
}

/// Programs joined by an in-memory network that delivers each frame 5 ms later.
struct World {
    programs: Vec<Program>,
    /// (due, to program, from, seats, frame).
    wire: VecDeque<(u64, usize, VerifyingKey, u8, Vec<u8>)>,
    now: u64,
    frames: usize,
    /// Each frame's delay is 5 ms plus this much times a pseudo-random 0..=9 (0: in order).
    jitter: u64,
}

fn options() -> Options {
    let mut o = Options::preset(Ruleset::Qiaoma);
    o.disconnect_seconds = 20;
    o
}

fn setup(me: VerifyingKey, peers: [VerifyingKey; 4], player: Option<Seat>) -> Setup {
    let mut s = Setup::new(
        TABLE,
        me,
        peers,
        0,
        player,
        Box::new(|p| {
            (p.stake == Money::coins(1))
                .then_some(())
                .ok_or_else(|| "another stake".to_string())
        }),
    );
    s.bot_level = Level::Basic;
    s.seed = 11;
    s
}

fn propose(hands: u32) -> Input {
    Input::Propose {
        options: Box::new(options()),
        stake: Money::coins(1),
        length: SessionLength::Hands(hands),
    }
}

fn client(seat: Seat, roster: [VerifyingKey; 4]) -> Client {
    let config = Config {
        table: TABLE,
        seat,
        roster,
        host: 0,
    };
    Client::new(config, key(seat), [seat + 40; 32]).expect("client")
}

impl World {
    /// Four programs, one seat each, a bot playing each player's seat.
    fn four(hands: u32) -> World {
        World::four_at(hands, 0)
    }

    /// [`World::four`] begun at `start` (the programs' clocks have run that long before).
    fn four_at(hands: u32, start: u64) -> World {
        let roster = [0, 1, 2, 3].map(|i| key(i).verifying_key());
        let mut programs = Vec::new();
        for seat in 0..4u8 {
            let (host, out) = Host::begin(
                setup(roster[seat as usize], roster, Some(seat)),
                vec![NewSeat {
                    client: client(seat, roster),
                    bot_key: None,
                    bot: Some(Bot::new(Level::Strong, seat as u64)),
                }],
                (seat == 0).then(|| propose(hands)),
                start,
            );
            let mut p = Program {
                key: key(seat),
                host: Some(host),
                store: Store::default(),
                updates: Vec::new(),
            };
            for d in out.durable {
                p.store.apply(d);
            }
            programs.push(p);
        }
        World {
            programs,
            wire: VecDeque::new(),
            now: start,
            frames: 0,
            jitter: 0,
        }
    }

    fn index(&self, key: &VerifyingKey) -> Option<usize> {
        self.programs
            .iter()
            .position(|p| p.key.verifying_key() == *key)
    }

    fn apply(&mut self, i: usize, out: Out) {
        let Out {
            durable,
            load,
            send,
            updates,
        } = out;
        let from = self.programs[i].key.verifying_key();
        for d in durable {
            self.programs[i].store.apply(d);
        }
        for l in load {
            let steps = self.programs[i].store.steps(l.seat, l.from, l.to);
            let now = self.now;
            if let Some(h) = self.programs[i].host.as_mut() {
                h.stored(now, &l, steps);
            }
        }
        for s in send {
            assert_ne!(
                s.peer, from,
                "a frame between two seats of one host left it"
            );
            if let Some(to) = self.index(&s.peer) {
                self.frames += 1;
                let delay = 5 + self.jitter * ((self.frames as u64 * 7919) % 10);
                self.wire
                    .push_back((self.now + delay, to, from, s.to, s.frame));
            }
        }
        self.programs[i].updates.extend(updates);
    }

    /// Runs until `stop` or `limit` (simulated ms).
    fn run_until(&mut self, limit: u64, mut stop: impl FnMut(&World) -> bool) {
        while self.now < limit && !stop(self) {
            let mut busy = false;
            for i in 0..self.programs.len() {
                let now = self.now;
                let Some(h) = self.programs[i].host.as_mut() else {
                    continue;
                };
                if h.next_deadline().is_some_and(|d| d <= now) {
                    let out = h.pump(now);
                    busy = true;
                    self.apply(i, out);
                }
            }
            while let Some(i) = self.wire.iter().position(|w| w.0 <= self.now) {
                let Some((_, to, from, seats, frame)) = self.wire.remove(i) else {
                    break;
                };
                busy = true;
                let now = self.now;
                if let Some(h) = self.programs[to].host.as_mut() {
                    assert!(
                        h.frame(now, &from, seats, frame),
                        "a frame of the table refused"
                    );
                }
            }
            if !busy {
                let next_timer = self
                    .programs
                    .iter()
                    .filter_map(|p| p.host.as_ref()?.next_deadline())
                    .min();
                let next_wire = self.wire.iter().map(|w| w.0).min();
                let next = [next_timer, next_wire].into_iter().flatten().min();
                self.now = next.unwrap_or(limit).max(self.now + 1);
            }
        }
    }

    fn ledger(&self, i: usize) -> &[HandResult] {
        &self.programs[i].store.ledger
    }

    fn saw(&self, i: usize, f: impl Fn(&TableEvent) -> bool) -> usize {
        self.programs[i]
            .updates
            .iter()
            .filter(|u| matches!(u, Update::Table(e) if f(e)))
            .count()
    }
}

/// A table begun after its programs' clocks ran for minutes (a long wait in the lobby) calls
/// no seat silent and never pauses: its timers run from its start, not from the clock's zero.
#[test]
fn a_table_begun_after_a_long_wait_calls_no_seat_silent() {
    let start = 600_000;
    let mut w = World::four_at(1, start);
    w.run_until(start + 3_600_000, |w| {
        (0..4).all(|i| w.programs[i].store.finished)
    });
    for i in 0..4 {
        assert!(w.programs[i].store.finished, "program {i} did not finish");
        let alarms = w.saw(i, |e| {
            matches!(e, TableEvent::SeatSilent { .. } | TableEvent::Paused { .. })
        });
        assert_eq!(alarms, 0, "program {i} called a seat silent");
    }
}

#[test]
fn four_hosts_play_a_session_and_book_the_same_four_signed_hands() {
    let mut w = World::four(2);
    w.run_until(4 * 3_600_000, |w| {
        (0..4).all(|i| w.programs[i].store.finished)
    });
    for i in 0..4 {
        assert!(w.programs[i].store.finished, "program {i} did not finish");
        assert_eq!(w.ledger(i).len(), 2, "program {i}");
        assert_eq!(w.ledger(i), w.ledger(0), "program {i}");
        assert_eq!(w.saw(i, |e| matches!(e, TableEvent::SessionOver { .. })), 1);
        // The player's interface saw its seat's view and every hand's tiles face up.
        assert!(
            w.programs[i]
                .updates
                .iter()
                .any(|u| matches!(u, Update::View { .. }))
        );
        let revealed = w.programs[i]
            .updates
            .iter()
            .filter(|u| matches!(u, Update::Revealed { .. }))
            .count();
        assert_eq!(revealed, 2, "program {i}");
    }
    assert!(w.frames > 100, "{} frames", w.frames);
}

#[test]
fn one_host_runs_four_seats_with_no_frame_leaving_it() {
    let roster = [0, 1, 2, 3].map(|i| key(i).verifying_key());
    let me = key(0).verifying_key();
    // Every seat is run by this program.
    let peers = [me; 4];
    let seats = (0..4u8)
        .map(|s| NewSeat {
            client: client(s, roster),
            bot_key: (s != 0).then(|| key(s)),
            bot: Some(Bot::new(Level::Basic, s as u64)),
        })
        .collect();
    let (host, out) = Host::begin(setup(me, peers, Some(0)), seats, Some(propose(1)), 0);
    let mut w = World {
        programs: vec![Program {
            key: key(0),
            host: Some(host),
            store: Store::default(),
            updates: Vec::new(),
        }],
        wire: VecDeque::new(),
        now: 0,
        frames: 0,
        jitter: 0,
    };
    w.apply(0, out);
    w.run_until(3_600_000, |w| w.programs[0].store.finished);
    assert!(w.programs[0].store.finished);
    assert_eq!(w.frames, 0, "frames left the host");
    assert_eq!(w.ledger(0).len(), 1);
    // Each of the four seats kept its journal, and all hold the same booked hand.
    assert_eq!(w.programs[0].store.seats.len(), 4);
    let host = w.programs[0].host.as_ref().expect("host");
    for s in 0..4 {
        assert_eq!(host.client(s).expect("seat").results(), w.ledger(0));
    }
}

/// The player's forced moves are the host's, as its bots' moves are: a player (no bot in the
/// seat, its prompts answered by the test as a person would, always the first choice) is
/// never shown a prompt whose move the rules force (a flower set aside, the only answer, the
/// drawn tile after 敲), and the seat still sets its flowers aside and passes where it must.
#[test]
fn the_host_plays_the_players_forced_moves_and_never_shows_them() {
    let roster = [0, 1, 2, 3].map(|i| key(i).verifying_key());
    let me = key(0).verifying_key();
    let seats = (0..4u8)
        .map(|s| NewSeat {
            client: client(s, roster),
            bot_key: (s != 0).then(|| key(s)),
            bot: (s != 0).then(|| Bot::new(Level::Basic, s as u64)),
        })
        .collect();
    let (host, out) = Host::begin(setup(me, [me; 4], Some(0)), seats, Some(propose(2)), 0);
    let mut w = World {
        programs: vec![Program {
            key: key(0),
            host: Some(host),
            store: Store::default(),
            updates: Vec::new(),
        }],
        wire: VecDeque::new(),
        now: 0,
        frames: 0,
        jitter: 0,
    };
    w.apply(0, out);
    let mut prompts = 0;
    let mut answered = 0;
    for _ in 0..20_000 {
        w.run_until(3_600_000, |w| {
            w.programs[0].store.finished
                || w.programs[0]
                    .updates
                    .iter()
                    .skip(answered)
                    .any(|u| matches!(u, Update::Table(TableEvent::YourTurn { .. })))
        });
        if w.programs[0].store.finished {
            break;
        }
        let ups: Vec<Update> = w.programs[0].updates[answered..].to_vec();
        answered = w.programs[0].updates.len();
        for u in ups {
            if let Update::Table(TableEvent::YourTurn { view, .. }) = u {
                assert_eq!(
                    view.auto_action(),
                    None,
                    "a forced move was shown as a prompt: {:?}",
                    view.legal
                );
                prompts += 1;
                let now = w.now;
                let a = view.legal.first().cloned().expect("a choice");
                let host = w.programs[0].host.as_mut().expect("host");
                host.act(now, a);
                let out = host.pump(now);
                w.apply(0, out);
            }
        }
    }
    assert!(w.programs[0].store.finished, "the session ended");
    assert!(prompts > 10, "{prompts} prompts");
    let forced = w.saw(0, |e| {
        matches!(e, TableEvent::Moved { mv, .. } if mv.seat == 0
            && matches!(mv.action, mahjong_rules::Action::Flower { .. } | mahjong_rules::Action::Pass)
            && !mv.timed_out)
    });
    assert!(forced > 0, "the seat's forced moves were played");
    assert_eq!(
        w.saw(
            0,
            |e| matches!(e, TableEvent::Moved { mv, .. } if mv.seat == 0 && mv.timed_out)
        ),
        0,
        "nothing waited for its timer"
    );
}

#[test]
fn a_proposal_other_than_the_terms_is_declined_and_the_table_set_up_fails() {
    let roster = [0, 1, 2, 3].map(|i| key(i).verifying_key());
    let mut w = World::four(1);
    // The host proposes a stake of 5: every other seat's bot declines it.
    let mut s = setup(roster[0], roster, Some(0));
    s.terms = Box::new(|_| Ok(()));
    let (host, out) = Host::begin(
        s,
        vec![NewSeat {
            client: client(0, roster),
            bot_key: None,
            bot: Some(Bot::new(Level::Strong, 0)),
        }],
        Some(Input::Propose {
            options: Box::new(options()),
            stake: Money::coins(5),
            length: SessionLength::Hands(1),
        }),
        0,
    );
    w.programs[0].host = Some(host);
    w.programs[0].store = Store::default();
    w.apply(0, out);
    w.run_until(3_600_000, |w| {
        (1..4).all(|i| {
            w.programs[i]
                .host
                .as_ref()
                .is_some_and(|h| h.failed_at().is_some())
        })
    });
    for i in 1..4 {
        let declined = w.programs[i]
            .updates
            .iter()
            .filter(|u| matches!(u, Update::Declined { why } if why == "another stake"))
            .count();
        assert_eq!(declined, 1, "program {i}");
        assert!(w.programs[i].store.finished, "program {i}");
        assert!(w.ledger(i).is_empty());
    }
}

/// Seat 1 leaves during the first hand; the others abort its hand, and the controller's
/// program starts the replacing bot (kept in its store with its key). Then that program is
/// restarted from its store: it resumes its own seat and the bot, and the session ends with
/// the three remaining programs booking the same hands.
#[test]
fn a_seat_that_leaves_is_replaced_and_a_restarted_controller_resumes_the_bot() {
    let roster = [0, 1, 2, 3].map(|i| key(i).verifying_key());
    let mut w = World::four(3);
    w.run_until(3_600_000, |w| {
        w.saw(0, |e| matches!(e, TableEvent::Moved { .. })) >= 12
    });
    if let Some(h) = w.programs[1].host.as_mut() {
        let now = w.now;
        h.leave(now);
        let out = h.pump(now);
        w.apply(1, out);
    }
    // Its program goes away (its leave is on the wire).
    w.run_until(w.now + 10, |_| false);
    w.programs[1].host = None;
    w.run_until(4 * 3_600_000, |w| {
        (0..4).any(|i| {
            w.programs[i]
                .updates
                .iter()
                .any(|u| matches!(u, Update::Table(TableEvent::RunBot { .. })))
        })
    });
    let controller = (0..4)
        .find(|&i| w.saw(i, |e| matches!(e, TableEvent::RunBot { seat: 1 })) == 1)
        .expect("a controller runs the bot");
    assert_ne!(controller, 1);
    let host = w.programs[controller].host.as_ref().expect("host");
    assert!(host.seats().contains(&1) || host.has_pending_bots());
    // Play on until the bot has signed something, then restart the controller.
    w.run_until(4 * 3_600_000, |w| {
        w.programs[controller]
            .store
            .seats
            .get(&1)
            .is_some_and(|(p, _)| !p.own.is_empty())
            && w.ledger(controller).len() == 1
    });
    let (mine, _) = w.programs[controller].store.seats[&(controller as Seat)].clone();
    let (bot, bot_key) = w.programs[controller].store.seats[&1].clone();
    assert!(bot_key.is_some(), "the bot seat is kept with its key");
    let c = Client::restore(mine, key(controller as u8)).expect("restore");
    let resumed = Host::resume(
        setup(roster[controller], roster, Some(controller as Seat)),
        vec![(c, Some(Bot::new(Level::Strong, 9)))],
        vec![bot],
        w.now,
    )
    .expect("resume");
    let Resumed::Playing { host, hands, .. } = resumed else {
        panic!("the table is over");
    };
    assert_eq!(hands, 1);
    assert!(
        host.seats().contains(&1),
        "the bot resumed with its controller"
    );
    w.programs[controller].host = Some(*host);
    w.run_until(8 * 3_600_000, |w| {
        [0, 2, 3].iter().all(|&i| w.programs[i].store.finished)
    });
    for i in [0, 2, 3] {
        assert!(w.programs[i].store.finished, "program {i}");
        assert_eq!(w.ledger(i).len(), 3, "program {i}");
        assert_eq!(w.ledger(i), w.ledger(0), "program {i}");
    }
    assert!(matches!(
        w.ledger(0)[0].outcome,
        Outcome::Abandoned { leaver: 1, .. }
    ));
}

/// A program whose seat signs two versions of its first discard (one to the next seat, the
/// other to the remaining two): the honest hosts find both, prove it, abort the hand with the
/// liar at fault, and the session goes on with a bot in its seat.
#[cfg(feature = "test-hooks")]
#[test]
fn an_equivocating_seat_is_proven_at_fault_and_replaced() {
    let mut w = World::four(2);
    w.jitter = 3;
    let liar: Seat = 3;
    // Seat 0 gets one version of the liar's first discard, seats 1 and 2 the other.
    let tamper = mahjong_host::hooks::equivocate_once(key(liar));
    w.programs[liar as usize]
        .host
        .as_mut()
        .expect("host")
        .set_tamper(liar, tamper);
    w.run_until(4 * 3_600_000, |w| {
        (0..3).all(|i| w.programs[i].store.finished)
    });
    for i in 0..3 {
        assert!(
            w.saw(i, |e| matches!(e, TableEvent::Evidence(_))) >= 1,
            "program {i} proved nothing"
        );
        assert!(w.programs[i].store.finished, "program {i}");
        assert_eq!(w.ledger(i), w.ledger(0), "program {i}");
    }
    assert!(matches!(
        w.ledger(0)[0].outcome,
        Outcome::Abandoned { leaver: 3, .. }
    ));
}

/// Issue 26, item 2: a player killed mid-session (no leave: its program is gone), replaced
/// by a bot after the disconnect limit, comes back on its store and follows the session;
/// the three others must never stall (they did on a loaded machine: the returning player's
/// catching up took the answers the bot playing its seat needed). Over several deliveries
/// (in order, jittered), every program finishes the session with the same ledger.
#[test]
fn a_player_back_after_a_bot_took_its_seat_never_stalls_the_others() {
    let roster = [0, 1, 2, 3].map(|i| key(i).verifying_key());
    let hands = 8;
    for jitter in [0, 3, 11] {
        let mut w = World::four(hands);
        w.jitter = jitter;
        // Killed in hand 2.
        w.run_until(3_600_000, |w| {
            w.ledger(0).len() == 1 && w.saw(0, |e| matches!(e, TableEvent::Moved { .. })) >= 60
        });
        let victim = 2;
        let kept = w.programs[victim].store.seats[&(victim as Seat)].0.clone();
        w.programs[victim].host = None;
        // The others replace it after the disconnect limit (20 s here) and play on a while.
        w.run_until(w.now + 3_600_000, |w| {
            w.saw(0, |e| matches!(e, TableEvent::SeatReplaced { seat: 2, .. })) == 1
                && w.ledger(0).len() >= 3
        });
        assert!(
            w.saw(0, |e| matches!(e, TableEvent::SeatReplaced { seat: 2, .. })) == 1,
            "jitter {jitter}: the seat was not replaced"
        );
        // It comes back on what its store kept.
        let c = Client::restore(kept, key(victim as u8)).expect("restore");
        let resumed = Host::resume(
            setup(roster[victim], roster, Some(victim as Seat)),
            vec![(c, Some(Bot::new(Level::Strong, 7)))],
            Vec::new(),
            w.now,
        )
        .expect("resume");
        let Resumed::Playing { host, .. } = resumed else {
            panic!("jitter {jitter}: the table is over");
        };
        w.programs[victim].host = Some(*host);
        let back = w.now;
        w.run_until(back + 4 * 3_600_000, |w| {
            (0..4).all(|i| w.programs[i].store.finished)
        });
        for i in 0..4 {
            assert!(
                w.programs[i].store.finished,
                "jitter {jitter}: program {i} did not finish ({} hands booked, {} s after the return)",
                w.ledger(i).len(),
                (w.now - back) / 1000
            );
            assert!(
                w.ledger(i).len() >= hands as usize,
                "jitter {jitter}: program {i}"
            );
            assert_eq!(w.ledger(i), w.ledger(0), "jitter {jitter}: program {i}");
            assert_eq!(
                w.saw(i, |e| matches!(e, TableEvent::Paused { .. })),
                0,
                "jitter {jitter}: program {i} paused"
            );
        }
    }
}
