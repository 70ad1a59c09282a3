//! Four players, each with its own data directory, identity and store, playing one table
//! with bots over an in-memory network (every frame reaches the other three, in order), in
//! simulated time. Every output's journal goes to the seat's store before its frames are
//! delivered, and every finished hand is booked, as the network shell does.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use mahjong_bot::{Bot, Level};
use mahjong_deal::CardTable;
use mahjong_rules::{Money, Options, Ruleset, SessionLength};
use mahjong_store::{Identity, LocalSeat, Store, TableInfo};
use mahjong_table::{Client, Config, Input, TableEvent};

/// One card table for the whole test binary.
pub fn cards() -> Arc<CardTable> {
    static CARDS: OnceLock<Arc<CardTable>> = OnceLock::new();
    CARDS.get_or_init(|| Arc::new(CardTable::new())).clone()
}

pub const NAMES: [&str; 4] = ["Ann", "Bo", "Cy", "Di"];

/// A player: its data directory, identity and open store.
pub struct Player {
    pub dir: PathBuf,
    pub identity: Identity,
    pub store: Store,
}

impl Player {
    pub fn open(dir: &Path, name: Option<&str>) -> Player {
        let identity = Identity::load_or_create(dir, name).expect("identity");
        let store = Store::open(dir).expect("store");
        store
            .claim_identity(&identity)
            .expect("the store is this player's");
        Player {
            dir: dir.to_path_buf(),
            identity,
            store,
        }
    }
}

pub fn player_dir(root: &Path, seat: usize) -> PathBuf {
    root.join(format!("player{seat}"))
}

pub fn table_id(seed: u64) -> [u8; 32] {
    let mut id = [0x5a; 32];
    id[..8].copy_from_slice(&seed.to_le_bytes());
    id
}

/// The whole table.
pub struct Game {
    pub table: [u8; 32],
    pub players: Vec<Player>,
    pub clients: Vec<Option<Client>>,
    pub events: Vec<Vec<TableEvent>>,
    pub now: u64,
    queue: VecDeque<(usize, Input)>,
    deadlines: [Option<u64>; 4],
    bots: Vec<Bot>,
    /// Each journal append: whether it held a `Record::Own` (committed with FULL sync), and
    /// how long it took.
    pub appends: Vec<(bool, std::time::Duration)>,
    /// Loads of older steps the clients asked for (they keep their log in the store).
    pub loads: usize,
    /// Seats that journal but do not book (a process killed between the two writes).
    pub unbooked: [bool; 4],
}

impl Game {
    /// Four new players under `root` sit at a new table; the host (seat 0) proposes a session
    /// of `hands` hands of `ruleset`.
    pub fn new(root: &Path, seed: u64, ruleset: Ruleset, hands: u32) -> Game {
        Game::build(root, seed, ruleset, hands, true, false)
    }

    /// [`Game::new`] as the seats played before they signed their names (protocol 1).
    pub fn unsigned(root: &Path, seed: u64, ruleset: Ruleset, hands: u32) -> Game {
        Game::build(root, seed, ruleset, hands, false, false)
    }

    /// [`Game::new`] with the four seats in one data directory and one store (each seat
    /// with a key of its own), as the app keeps a practice table: player 0's directory;
    /// seats 1 to 3 are added to its table.
    pub fn one_store(root: &Path, seed: u64, ruleset: Ruleset, hands: u32) -> Game {
        Game::build(root, seed, ruleset, hands, true, true)
    }

    fn build(
        root: &Path,
        seed: u64,
        ruleset: Ruleset,
        hands: u32,
        sign: bool,
        one_store: bool,
    ) -> Game {
        let players: Vec<Player> = (0..4)
            .map(|s| match (one_store, s) {
                (true, 1..) => {
                    let dir = player_dir(root, 0);
                    let mut key = [s as u8 + 0x40; 32];
                    key[..8].copy_from_slice(&seed.to_le_bytes());
                    Player {
                        store: Store::open(&dir).expect("store"),
                        dir,
                        identity: Identity {
                            key: ed25519_dalek::SigningKey::from_bytes(&key),
                            name: NAMES[s].to_string(),
                        },
                    }
                }
                _ => Player::open(&player_dir(root, s), Some(NAMES[s])),
            })
            .collect();
        let roster = [0, 1, 2, 3].map(|s| players[s].identity.public());
        let table = table_id(seed);
        let mut clients = Vec::new();
        for (seat, p) in players.iter().enumerate() {
            let config = Config {
                table,
                seat: seat as u8,
                roster,
                host: 0,
            };
            let mut root_secret = [seat as u8 + 1; 32];
            root_secret[..8].copy_from_slice(&seed.to_le_bytes());
            let info = TableInfo {
                id: table,
                seats: vec![LocalSeat {
                    config: config.clone(),
                    root: root_secret,
                    bot_key: None,
                }],
                names: NAMES.map(String::from),
                created: 1_700_000_000_000 + seed,
                finished: false,
                practice: None,
            };
            if one_store && seat > 0 {
                p.store.add_seat(&table, &info.seats[0]).expect("add seat");
            } else {
                p.store.save_table(&info).expect("save table");
            }
            let mut client =
                Client::with_cards(config, p.identity.key.clone(), root_secret, cards())
                    .expect("client");
            client.keep_log_in_store();
            if sign {
                client.set_name(NAMES[seat]);
            }
            clients.push(Some(client));
        }
        let mut game = Game::with(table, players, clients, seed);
        game.queue.push_back((
            0,
            Input::Propose {
                options: Box::new(Options::preset(ruleset)),
                stake: Money::coins(1),
                length: SessionLength::Hands(hands),
            },
        ));
        game
    }

    /// The four players under `root` (as a restarted process finds them) resume the table
    /// from their stores.
    pub fn resume(root: &Path, seed: u64) -> Game {
        let players: Vec<Player> = (0..4)
            .map(|s| Player::open(&player_dir(root, s), None))
            .collect();
        let table = table_id(seed);
        let clients = players
            .iter()
            .enumerate()
            .map(|(s, p)| {
                let unfinished = p.store.unfinished_tables().expect("tables");
                assert_eq!(unfinished.len(), 1, "one table to resume");
                assert_eq!(unfinished[0].id, table);
                Some(
                    p.store
                        .restore(&table, s as u8, &p.identity)
                        .expect("restore")
                        .expect("the seat is stored"),
                )
            })
            .collect();
        let mut game = Game::with(table, players, clients, seed);
        for s in 0..4 {
            game.queue.push_back((s, Input::Tick));
        }
        game
    }

    fn with(
        table: [u8; 32],
        players: Vec<Player>,
        clients: Vec<Option<Client>>,
        seed: u64,
    ) -> Game {
        Game {
            table,
            players,
            clients,
            events: vec![Vec::new(); 4],
            now: 0,
            queue: VecDeque::new(),
            deadlines: [None; 4],
            bots: (0..4)
                .map(|s| Bot::new(Level::Basic, seed * 4 + s))
                .collect(),
            appends: Vec::new(),
            loads: 0,
            unbooked: [false; 4],
        }
    }

    pub fn client(&self, seat: usize) -> &Client {
        self.clients[seat].as_ref().expect("live seat")
    }

    fn handle(&mut self, seat: usize, input: Input) {
        let now = self.now;
        let Some(client) = self.clients[seat].as_mut() else {
            return;
        };
        let out = client.handle(now, input);
        let store = &self.players[seat].store;
        if let Some(load) = out.load {
            // Older steps, read back from the journal, handed back next.
            let steps = store
                .steps(&self.table, seat as u8, load.from, load.to)
                .expect("steps");
            let from = load.to - steps.len() as u32;
            self.loads += 1;
            self.queue.push_front((seat, Input::Stored { from, steps }));
        }
        // Durable before anything is sent.
        let started = std::time::Instant::now();
        store
            .append(&self.table, seat as u8, &out.journal)
            .expect("journal");
        if !out.journal.is_empty() {
            let own = out
                .journal
                .iter()
                .any(|r| matches!(r, mahjong_table::Record::Own(_)));
            self.appends.push((own, started.elapsed()));
        }
        if !self.unbooked[seat]
            && out
                .events
                .iter()
                .any(|e| matches!(e, TableEvent::HandOver { .. }))
        {
            store.book_from_client(client).expect("book");
        }
        if client.is_over() {
            store.mark_finished(&self.table).expect("finish");
        }
        for frame in out.send {
            for to in (0..4).filter(|&t| t != seat) {
                self.queue.push_back((to, Input::Frame(frame.clone())));
            }
        }
        for (to, frame) in out.reply {
            self.queue.push_back((to as usize, Input::Frame(frame)));
        }
        self.deadlines[seat] = out.deadline;
        for ev in out.events {
            match &ev {
                TableEvent::YourTurn { view, .. } => {
                    let action = self.bots[seat].decide(view).action;
                    self.queue.push_back((seat, Input::Act(action)));
                }
                TableEvent::Proposed(p) if p.host as usize != seat => {
                    self.queue.push_back((seat, Input::Accept));
                }
                _ => {}
            }
            self.events[seat].push(ev);
        }
    }

    /// Queues an input for a seat.
    pub fn push(&mut self, seat: usize, input: Input) {
        self.queue.push_back((seat, input));
    }

    /// Runs until `stop` holds, every seat is over, or nothing is left to do.
    pub fn run_until(&mut self, mut stop: impl FnMut(&Game) -> bool) {
        for _ in 0..2_000_000 {
            if stop(self) || self.clients.iter().flatten().all(Client::is_over) {
                return;
            }
            let Some((seat, input)) = self.queue.pop_front() else {
                // Nothing in flight: let time pass to the next deadline.
                let Some(next) = (0..4)
                    .filter(|&s| self.clients[s].is_some())
                    .filter_map(|s| self.deadlines[s])
                    .min()
                else {
                    return;
                };
                self.now = self.now.max(next);
                for s in 0..4 {
                    if self.deadlines[s].is_some_and(|d| d <= self.now) {
                        self.deadlines[s] = None;
                        self.queue.push_back((s, Input::Tick));
                    }
                }
                continue;
            };
            self.now += 1;
            self.handle(seat, input);
        }
        panic!("the table did not finish");
    }

    pub fn run(&mut self) {
        self.run_until(|_| false);
    }

    /// Moves seen by seat 0.
    pub fn moves(&self) -> usize {
        self.events[0]
            .iter()
            .filter(|e| matches!(e, TableEvent::Moved { .. }))
            .count()
    }

    /// Moves seen by seat 0 since the last hand ended (all of them in the first hand).
    pub fn moves_in_hand(&self) -> usize {
        self.events[0]
            .iter()
            .rev()
            .take_while(|e| !matches!(e, TableEvent::HandOver { .. }))
            .filter(|e| matches!(e, TableEvent::Moved { .. }))
            .count()
    }

    /// Crashes `seat`: its client and store are dropped; frames in flight to it are lost.
    /// Drops the frames in flight that `seat` signed with a settlement body, as if it died
    /// after making its `Settle` entry but before any of it left the machine.
    pub fn drop_settlements_of(&mut self, seat: usize) {
        self.queue.retain(|(_, input)| {
            let Input::Frame(bytes) = input else {
                return true;
            };
            !mahjong_table::Envelope::decode(bytes).is_ok_and(|e| {
                e.seat as usize == seat
                    && matches!(
                        e.body,
                        mahjong_table::Body::Settle { .. }
                            | mahjong_table::Body::SettleVoided { .. }
                    )
            })
        });
    }

    pub fn crash(&mut self, seat: usize) {
        self.clients[seat] = None;
        self.queue.retain(|(to, _)| *to != seat);
        self.deadlines[seat] = None;
    }

    /// Restarts a crashed seat from its data directory (the store reopened).
    pub fn restart(&mut self, seat: usize) {
        let dir = self.players[seat].dir.clone();
        self.players[seat] = Player::open(&dir, None);
        let p = &self.players[seat];
        let client = p
            .store
            .restore(&self.table, seat as u8, &p.identity)
            .expect("restore")
            .expect("the seat is stored");
        let mut client = client;
        client.keep_log_in_store();
        self.clients[seat] = Some(client);
        self.queue.push_back((seat, Input::Tick));
    }

    /// Every seat holds the same log and results.
    pub fn assert_agree(&self) {
        for s in 1..4 {
            assert_eq!(
                self.client(s).log_hash(),
                self.client(0).log_hash(),
                "seat {s}"
            );
            assert_eq!(
                self.client(s).results(),
                self.client(0).results(),
                "seat {s}"
            );
        }
    }
}
