//! The practice table: four real `mahjong_table::Client`s in this process, seat 0 for the
//! player and seats 1–3 played by `mahjong_bot` bots, run by one seat host
//! ([`mahjong_host::Host`], the same code a LAN peer runs its seats with) that keeps every frame
//! in process.
//!
//! The engine is sans-IO like the host it drives: [`Engine::advance_to`] takes the time
//! (milliseconds on the engine's own clock) and [`Engine::command`] the player's choices; both
//! return [`Update`]s for the UI, made by the same [`crate::watch::Watcher`] as at a LAN table
//! (hints, proofs, the hand end). Bots think for [`PracticeConfig::think_ms`]; timers fire at
//! each client's deadline. So the deal is the real mental-poker deal, audited at the end of
//! the hand, and every hand is four-signed, exactly as at a networked table.
//! [`crate::session`] runs an engine on its own thread with the wall clock; tests drive one
//! directly in simulated time, so they are deterministic.
//!
//! A practice table whose hands are kept ([`Engine::saved`]) is saved and resumed the way
//! every table is (`mahjong_host::storage`): its set-up and seats, every seat's journal and
//! each final hand go to the [`Storage`] it is given (the player's SQLite store) before
//! anything else of the same step happens, and a restarted app seats it again from there
//! ([`Engine::resume`]), as a LAN peer resumes its table.
//!
//! Between hands the engine pauses (its clock stops) until the player asks for the next hand,
//! so nobody's timer runs while the settlement is being read.

use ed25519_dalek::{SigningKey, VerifyingKey};
use mahjong_bot::{Bot, Level};
use mahjong_host::{
    Host, Kind, NewSeat, Resumed as HostResumed, Setup, Storage, StorageError, TableId, TableStart,
    Think, Update as HostUpdate,
};
use mahjong_rules::{Action, Money, Options, Ruleset, Seat, SessionLength};
use mahjong_table::{Client, Config, Input, TableError, TableEvent};
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use serde::{Deserialize, Serialize};

/// The player's seat at a practice table.
pub const HUMAN: Seat = 0;

/// How a practice table is set up.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PracticeConfig {
    /// The preset.
    pub ruleset: Ruleset,
    /// The bots' levels, seats 1, 2 and 3.
    pub levels: [Level; 3],
    /// Seeds the seats' keys and secrets and the bots: the same seed gives the same table.
    pub seed: u64,
    /// How long the session plays (a number of hands, or four rounds).
    pub length: SessionLength,
    /// The options chosen at the set-up (`None`: the preset's own).
    pub options: Option<Options>,
    /// Coins per point.
    pub stake: Money,
    /// Bot thinking time in milliseconds, least and most (0, 0 in tests).
    pub think_ms: (u64, u64),
    /// Overrides the turn and claim timers (seconds), for tests.
    pub timers: Option<(u32, u32)>,
}

impl PracticeConfig {
    /// The defaults: the preset's options, one basic and two strong bots, eight hands, one
    /// coin a point.
    pub fn new(ruleset: Ruleset, seed: u64) -> PracticeConfig {
        PracticeConfig {
            ruleset,
            levels: [Level::Strong, Level::Basic, Level::Strong],
            seed,
            length: SessionLength::Hands(8),
            options: None,
            stake: Money::coins(1),
            think_ms: (350, 900),
            timers: None,
        }
    }

    /// The options the host proposes: those chosen at the set-up, else the preset's.
    pub fn options(&self) -> Options {
        let mut o = self
            .options
            .clone()
            .unwrap_or_else(|| Options::preset(self.ruleset));
        if let Some((turn, claim)) = self.timers {
            o.discard_seconds = turn;
            o.claim_seconds = claim;
        }
        o
    }
}

/// What the player asks of the table.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Command {
    /// Play this action at the current prompt.
    Act(Action),
    /// Go on to the next hand (the engine pauses after each hand).
    Next,
    /// Hold the table's clock (the player reads the rules over it: no timer runs, no bot
    /// moves) or let it go again.
    Hold(bool),
}

pub use crate::watch::{Failure, HandEnd, Proof, Update, explain};

/// Why a practice table could not be set up or resumed.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// A client refused its configuration.
    #[error("the practice table could not seat player {seat}: {source}")]
    Seat {
        /// The seat.
        seat: Seat,
        /// Why.
        source: TableError,
    },
    /// The store could not keep the new table, or give back the one to resume.
    #[error("the practice table cannot be kept: {0}")]
    Store(#[from] StorageError),
    /// The stored table cannot be resumed (its set-up or a seat's journal does not read).
    #[error("the saved practice table cannot be resumed: {0}")]
    Resume(String),
}

pub use crate::records::cards;

/// The set-up a practice table is stored with (`TableStart::setup`): what a restarted app
/// needs to seat the same table again. Versioned JSON, so that a later app can refuse an
/// older set-up with why.
#[derive(Serialize, Deserialize)]
struct StoredSetup {
    version: u32,
    ruleset: Ruleset,
    levels: [String; 3],
    seed: u64,
    length: SessionLength,
    options: Option<Options>,
    stake: Money,
    think_ms: (u64, u64),
    timers: Option<(u32, u32)>,
}

/// [`StoredSetup::version`] this app writes.
const SETUP_VERSION: u32 = 1;

impl PracticeConfig {
    /// The set-up as the store keeps it.
    fn to_stored(&self) -> Vec<u8> {
        serde_json::to_vec(&StoredSetup {
            version: SETUP_VERSION,
            ruleset: self.ruleset,
            levels: self.levels.map(|l| l.name().to_string()),
            seed: self.seed,
            length: self.length,
            options: self.options.clone(),
            stake: self.stake,
            think_ms: self.think_ms,
            timers: self.timers,
        })
        .unwrap_or_default()
    }

    /// The set-up a practice table was stored with.
    pub fn from_stored(bytes: &[u8]) -> Result<PracticeConfig, String> {
        let s: StoredSetup =
            serde_json::from_slice(bytes).map_err(|e| format!("its set-up does not read: {e}"))?;
        if s.version != SETUP_VERSION {
            return Err(format!("its set-up is of version {}, not known", s.version));
        }
        let mut levels = [Level::Strong; 3];
        for (l, name) in levels.iter_mut().zip(&s.levels) {
            *l = Level::from_name(name).ok_or_else(|| format!("unknown level {name:?}"))?;
        }
        Ok(PracticeConfig {
            ruleset: s.ruleset,
            levels,
            seed: s.seed,
            length: s.length,
            options: s.options,
            stake: s.stake,
            think_ms: s.think_ms,
            timers: s.timers,
        })
    }

    /// The four seats' signing keys, the table id and the seats' root secrets, all from the
    /// seed: the same seed gives the same table.
    fn keys(&self) -> (Vec<SigningKey>, TableId, [[u8; 32]; 4], ChaCha8Rng) {
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
        let keys: Vec<SigningKey> = (0..4)
            .map(|_| {
                let mut b = [0u8; 32];
                rng.fill_bytes(&mut b);
                SigningKey::from_bytes(&b)
            })
            .collect();
        let mut table = [0u8; 32];
        rng.fill_bytes(&mut table);
        let mut roots = [[0u8; 32]; 4];
        for root in &mut roots {
            rng.fill_bytes(root);
        }
        (keys, table, roots, rng)
    }

    fn bot(&self, seat: Seat) -> Option<Bot> {
        (seat != HUMAN).then(|| Bot::new(self.levels[seat as usize - 1], self.seed ^ seat as u64))
    }

    /// The seat host's set-up: every seat is this program's, so frames never leave it; the
    /// bots accept the player's set-up, whatever it is. With a store, each seat keeps only
    /// recent hands in memory and its journal in the store.
    fn setup(&self, table: TableId, me: VerifyingKey, rng: ChaCha8Rng, saved: bool) -> Setup {
        let mut setup = Setup::new(table, me, [me; 4], HUMAN, Some(HUMAN), Box::new(|_| Ok(())));
        setup.seed = self.seed;
        setup.keep_log_in_store = saved;
        setup.think = Some(Think {
            least: self.think_ms.0,
            most: self.think_ms.1,
            rng,
        });
        setup.pause_after_hand = true;
        setup
    }
}

/// Where a practice table is saved: the store, and the table's id in it.
struct Saved {
    storage: Box<dyn Storage>,
    table: TableId,
}

/// The practice table: one seat host ([`mahjong_host::Host`]) running all four seats, so every
/// frame stays in this process, with the player's events watched for the screen
/// ([`crate::watch::Watcher`]).
pub struct Engine {
    host: Host,
    watcher: crate::watch::Watcher,
    /// The player has a prompt waiting.
    prompt: bool,
    /// The four seats' signing keys, read only by the test hooks (a seat made to equivocate).
    #[cfg_attr(not(feature = "test-hooks"), allow(dead_code))]
    keys: Vec<SigningKey>,
    /// Where the table is saved and resumed from (`None`: it is not kept).
    saved: Option<Saved>,
}

/// A practice table resumed from the store ([`Engine::resume`]).
pub struct Resumed {
    /// The engine, playing on.
    pub engine: Engine,
    /// Its set-up.
    pub config: PracticeConfig,
    /// Hands final before the restart.
    pub hands: u32,
    /// The table as the player last saw it.
    pub updates: Vec<Update>,
}

impl Engine {
    /// Seats four clients and has the host (the player) propose the set-up at time 0. The
    /// table is not kept anywhere ([`Engine::saved`] keeps it).
    pub fn new(config: &PracticeConfig) -> Result<(Engine, Vec<Update>), EngineError> {
        Engine::start(config, None)
    }

    /// [`Engine::new`] for a table saved in `storage` as it plays, the way every table is
    /// (`mahjong_host::storage`): its set-up and seats first, then every seat's journal, each
    /// final hand in the ledger (the history), the table finished when its session is; a
    /// restarted app resumes it ([`Engine::resume`]). `player` is the player's name.
    pub fn saved(
        config: &PracticeConfig,
        mut storage: Box<dyn Storage>,
        player: &str,
    ) -> Result<(Engine, Vec<Update>), EngineError> {
        let (_, table, _, _) = config.keys();
        storage.begin_table(&TableStart {
            id: table,
            names: mahjong_store::history::practice_names(player, config.levels),
            players: Vec::new(),
            setup: config.to_stored(),
            practice: Some(config.levels),
        })?;
        Engine::start(config, Some(Saved { storage, table }))
    }

    fn start(
        config: &PracticeConfig,
        saved: Option<Saved>,
    ) -> Result<(Engine, Vec<Update>), EngineError> {
        let (keys, table, roots, rng) = config.keys();
        let roster = [0, 1, 2, 3].map(|i| keys[i].verifying_key());
        let mut seats = Vec::with_capacity(4);
        for seat in 0..4u8 {
            let cfg = Config {
                table,
                seat,
                roster,
                host: HUMAN,
            };
            let key = keys[seat as usize].clone();
            let client = Client::with_cards(cfg, key.clone(), roots[seat as usize], cards())
                .map_err(|source| EngineError::Seat { seat, source })?;
            seats.push(NewSeat {
                client,
                // Every practice seat signs with a key of its own, kept with the seat.
                bot_key: Some(key),
                bot: config.bot(seat),
            });
        }
        let me = keys[HUMAN as usize].verifying_key();
        let setup = config.setup(table, me, rng, saved.is_some());
        let propose = Input::Propose {
            options: Box::new(config.options()),
            stake: config.stake,
            length: match config.length {
                SessionLength::Hands(n) => SessionLength::Hands(n.max(1)),
                l => l,
            },
        };
        let (host, out) = Host::begin(setup, seats, Some(propose), 0);
        let mut engine = Engine {
            host,
            watcher: crate::watch::Watcher::new(Some(Bot::new(Level::ADVISER, config.seed ^ 0xad))),
            prompt: false,
            keys,
            saved,
        };
        // The seats are kept before anything is played.
        let mut updates = Vec::new();
        engine.keep(out, &mut updates);
        // The proposal is the first thing due (at time 0): the first `advance_to` or
        // `settle` runs it.
        Ok((engine, updates))
    }

    /// The unfinished practice table of `storage`, seated again from its journal as every
    /// table is resumed (`mahjong_host::Host::resume`): each seat from what it signed, the
    /// clock from 0, the hand in play going on where it was (the player's prompt with its
    /// whole time). `Ok(None)`: no practice table to resume, or one whose session was over
    /// (it is marked finished).
    pub fn resume(mut storage: Box<dyn Storage>) -> Result<Option<Resumed>, EngineError> {
        let Some(stored) = storage.resume(Kind::Practice)? else {
            return Ok(None);
        };
        let config = PracticeConfig::from_stored(&stored.setup).map_err(EngineError::Resume)?;
        let (keys, table, _, rng) = config.keys();
        if table != stored.id {
            return Err(EngineError::Resume(
                "its set-up does not give the table it is stored with".into(),
            ));
        }
        let mut clients = Vec::new();
        for p in stored.seats {
            let seat = p.config.seat;
            let key = keys
                .get(seat as usize)
                .cloned()
                .ok_or_else(|| EngineError::Resume(format!("it has a seat {seat}")))?;
            let client = Client::restore_with_cards(p, key, cards())
                .map_err(|e| EngineError::Resume(format!("seat {seat}: {e}")))?;
            // A hand made final just before the kill may not be booked yet (the journal's
            // commit and the booking are two writes): book it now.
            if seat == HUMAN {
                storage.book(&table, client.results(), client.log())?;
            }
            clients.push((client, config.bot(seat)));
        }
        if clients.len() != 4 {
            return Err(EngineError::Resume(format!(
                "the store holds {} of its four seats",
                clients.len()
            )));
        }
        let me = keys[HUMAN as usize].verifying_key();
        let setup = config.setup(table, me, rng, true);
        let (host, hands, view) =
            match Host::resume(setup, clients, Vec::new(), 0).map_err(EngineError::Resume)? {
                HostResumed::Over => {
                    storage.finish_table(&table)?;
                    return Ok(None);
                }
                HostResumed::Playing {
                    host, hands, view, ..
                } => (host, hands, view),
            };
        let mut engine = Engine {
            host: *host,
            watcher: crate::watch::Watcher::new(Some(Bot::new(Level::ADVISER, config.seed ^ 0xad))),
            prompt: false,
            keys,
            saved: Some(Saved { storage, table }),
        };
        let mut updates = Vec::new();
        if let Some(view) = view {
            engine.prompt = !view.legal.is_empty();
            engine.watcher.view(&view);
            updates.push(Update::View { view, now: 0 });
        }
        Ok(Some(Resumed {
            engine,
            config,
            hands,
            updates,
        }))
    }

    /// `--autoplay`: the master computer player plays the player's seat, at once, from its
    /// next prompt on (the host plays it as it plays the bots).
    pub fn autoplay(&mut self) {
        self.host
            .play_for(HUMAN, Some(Bot::new(Level::BOTS, 0x5eed_a070)));
    }

    /// The table's id in the store, where it is kept.
    pub fn kept_as(&self) -> Option<TableId> {
        self.saved.as_ref().map(|s| s.table)
    }

    /// The player leaves the table: it is not resumed again.
    pub fn leave(&mut self) -> Result<(), StorageError> {
        match &mut self.saved {
            Some(s) => s.storage.finish_table(&s.table),
            None => Ok(()),
        }
    }

    /// Makes the bot at `seat` (1–3) cheat once, for tests of the evidence view: it signs two
    /// versions of its first discard (one marked timed out) and sends one to the next seat
    /// and the other to the remaining two, exactly what an equivocating peer on a network
    /// could do. The honest seats find both signed versions, the hand stops with the
    /// evidence naming the seat, and the settlement shows it. Practice tables never call it.
    #[cfg(feature = "test-hooks")]
    pub fn equivocate(&mut self, seat: Seat) {
        if seat == HUMAN || seat > 3 {
            return;
        }
        let key = self.keys[seat as usize].clone();
        self.host
            .set_tamper(seat, mahjong_host::hooks::equivocate_once(key));
    }

    /// The engine clock (milliseconds).
    pub fn now(&self) -> u64 {
        self.host.now()
    }

    /// Paused between hands, or held while the player reads the rules.
    pub fn is_paused(&self) -> bool {
        self.host.is_paused()
    }

    /// When something is next due (`None`: nothing, or paused).
    pub fn next_due(&self) -> Option<u64> {
        self.host.next_deadline()
    }

    /// The player's client (for its log, results and session).
    pub fn player(&self) -> &Client {
        match self.host.client(HUMAN) {
            Some(c) => c,
            // The host runs all four seats from the start.
            None => unreachable!("the practice host runs the player's seat"),
        }
    }

    /// A seat's client.
    pub fn client(&self, seat: Seat) -> Option<&Client> {
        self.host.client(seat)
    }

    /// The player's choice, applied now.
    pub fn command(&mut self, command: Command) -> Vec<Update> {
        let now = self.now();
        match command {
            Command::Act(action) => {
                // Between hands there is no prompt to answer.
                if self.host.stopped_after_hand() {
                    return Vec::new();
                }
                self.prompt = false;
                self.host.act(now, action);
                self.run(now)
            }
            Command::Next => {
                self.host.next_hand();
                // Everything buffered while paused is due now.
                self.run(now)
            }
            Command::Hold(on) => {
                self.host.hold(on);
                let mut updates = Vec::new();
                if !on {
                    // The screen's countdown restarts from the engine clock, which stood.
                    if let Some(view) = self.player().view() {
                        updates.push(Update::View {
                            view: Box::new(view),
                            now,
                        });
                    }
                    updates.extend(self.run(now));
                }
                updates
            }
        }
    }

    /// Runs everything due up to `t` (the clock does not move while paused).
    pub fn advance_to(&mut self, t: u64) -> Vec<Update> {
        if self.is_paused() {
            return Vec::new();
        }
        self.run(t)
    }

    /// Runs until nothing is due or the engine pauses or asks the player, at most until `limit`
    /// (simulated time: bots think instantly, timers fire at once). For tests and benchmarks.
    pub fn settle(&mut self, limit: u64) -> Vec<Update> {
        let mut updates = Vec::new();
        while let Some(at) = self.next_due() {
            if at > limit {
                break;
            }
            updates.extend(self.run(at));
            if self.is_paused() || self.player_must_act() {
                break;
            }
        }
        updates
    }

    /// Whether the player has a prompt waiting (its client said `YourTurn` and the player has
    /// not answered).
    pub fn player_must_act(&self) -> bool {
        self.prompt
    }

    /// Runs the host to `t` and turns what the player's seat saw into updates.
    fn run(&mut self, t: u64) -> Vec<Update> {
        let mut updates = Vec::new();
        loop {
            let out = self.host.pump(t);
            self.keep(out, &mut updates);
            // The host stopped at its budget with more due by `t`: go on.
            if self.host.next_deadline().is_none_or(|at| at > t) {
                break;
            }
        }
        updates
    }

    /// Does what one host output says, as every table does (`mahjong_host::storage`): the
    /// store first, steps read back for the seats that asked, then the player's updates.
    /// Nothing leaves this process. A store that fails is said once and let go: the table
    /// plays on, no longer kept.
    fn keep(&mut self, out: mahjong_host::Out, updates: &mut Vec<Update>) {
        let now = self.host.now();
        if let Some(s) = &mut self.saved {
            let kept =
                mahjong_host::storage::keep(s.storage.as_mut(), &s.table, out.durable, |_, _| {})
                    .and_then(|()| {
                        mahjong_host::storage::load(
                            s.storage.as_mut(),
                            &mut self.host,
                            now,
                            out.load,
                        )
                    });
            if let Err(e) = kept {
                tracing::warn!("the practice table is no longer kept: {e}");
                updates.push(Update::Failed(Failure::NotKept(
                    crate::records::RecordsError::Store(e.to_string()),
                )));
                self.saved = None;
            }
        }
        let kept = self.kept_as();
        for u in out.updates {
            self.update(u, kept, updates);
        }
    }

    fn update(&mut self, u: HostUpdate, kept: Option<TableId>, updates: &mut Vec<Update>) {
        match u {
            HostUpdate::Table(event) => {
                match &event {
                    TableEvent::YourTurn { .. } => self.prompt = true,
                    TableEvent::Moved { mv, .. } if mv.seat == HUMAN => self.prompt = false,
                    _ => {}
                }
                // A hand over is booked by now (the store came first).
                updates.extend(self.watcher.event(event, kept));
            }
            HostUpdate::View { view, now } => {
                self.watcher.view(&view);
                updates.push(Update::View { view, now });
            }
            HostUpdate::Revealed { hand, hands } => self.watcher.revealed(hand, *hands),
            HostUpdate::Following { .. } | HostUpdate::Declined { .. } => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> PracticeConfig {
        PracticeConfig {
            think_ms: (0, 0),
            length: SessionLength::Hands(1),
            ..PracticeConfig::new(Ruleset::Qiaoma, 7)
        }
    }

    /// Plays the player's prompts with the master bot's hint until the hand ends.
    fn play_out(engine: &mut Engine) -> Box<HandEnd> {
        let mut hint = None;
        let mut updates = engine.settle(10_000_000);
        for _ in 0..2000 {
            for u in updates.drain(..) {
                match u {
                    Update::Hint { action, .. } => hint = Some(action),
                    Update::HandEnded(end) => return end,
                    _ => {}
                }
            }
            updates = if engine.player_must_act() {
                let a = hint.take().unwrap_or_else(|| {
                    panic!(
                        "no hint; view {:?}",
                        engine.player().view().map(|v| (v.phase, v.legal))
                    )
                });
                engine.command(Command::Act(a))
            } else {
                engine.settle(10_000_000)
            };
        }
        panic!("the hand did not end");
    }

    #[test]
    fn a_practice_hand_is_dealt_played_audited_and_four_signed() {
        let (mut engine, _) = Engine::new(&config()).expect("engine");
        let end = play_out(&mut engine);
        assert!(end.signed_by_all);
        assert!(end.audited);
        assert!(engine.is_paused());
        assert_eq!(end.hands.iter().filter(|h| !h.is_empty()).count(), 4);
        let sum: i64 = end.result.payments.iter().map(|m| m.0).sum();
        assert_eq!(sum, 0);
        // Once play resumes, the three other seats hold the same signed result.
        let _ = engine.command(Command::Next);
        let _ = engine.settle(engine.now() + 1);
        for s in 0..4 {
            let c = engine.client(s).expect("seat");
            assert_eq!(c.results().first(), Some(&*end.result), "seat {s}");
        }
    }

    #[test]
    fn the_same_seed_deals_the_same_table() {
        let first = |seed| {
            let mut c = config();
            c.seed = seed;
            let (mut engine, _) = Engine::new(&c).expect("engine");
            engine
                .settle(10_000_000)
                .into_iter()
                .find_map(|u| match u {
                    Update::Table(TableEvent::HandStarted { tiles, dice, .. }) => {
                        Some((tiles, dice))
                    }
                    _ => None,
                })
                .expect("dealt")
        };
        assert_eq!(first(3), first(3));
        assert_ne!(first(3), first(4));
    }
}

/// Timings of the practice engine (bots answer at once), for the README's figures:
/// `cargo test --release -p shanghai-mahjong --lib timings -- --ignored --nocapture`.
#[cfg(test)]
mod timings {
    use super::*;
    use std::time::{Duration, Instant};

    #[test]
    #[ignore = "prints timings; run in release"]
    fn timings() {
        println!("not kept:");
        timings_of(None);
        let dir = std::env::temp_dir().join(format!("engine-timings-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("dir");
        println!(
            "kept in a store in {} (every seat's journal, the ledger):",
            dir.display()
        );
        timings_of(Some(&dir));
        let _ = std::fs::remove_dir_all(&dir);
    }

    fn timings_of(dir: Option<&std::path::Path>) {
        let mut setups = Vec::new();
        let mut turns: Vec<Duration> = Vec::new();
        for seed in 1..=5 {
            let config = PracticeConfig {
                think_ms: (0, 0),
                length: SessionLength::Hands(1),
                ..PracticeConfig::new(Ruleset::Qiaoma, seed)
            };
            let t = Instant::now();
            let (mut engine, _) = match dir {
                Some(d) => {
                    let store = mahjong_store::Store::open(d).expect("store");
                    Engine::saved(&config, Box::new(store), "Mei").expect("engine")
                }
                None => Engine::new(&config).expect("engine"),
            };
            let mut updates = engine.settle(u64::MAX / 2);
            setups.push(t.elapsed());
            let mut hint = None;
            for _ in 0..500 {
                for u in updates.drain(..) {
                    if let Update::Hint { action, .. } = u {
                        hint = Some(action);
                    }
                }
                if engine.is_paused() {
                    break;
                }
                if !engine.player_must_act() {
                    updates = engine.settle(u64::MAX / 2);
                    continue;
                }
                let Some(a) = hint.take() else { break };
                let discard = matches!(a, Action::Discard { .. });
                let t = Instant::now();
                updates = engine.command(Command::Act(a));
                if !engine.player_must_act() && !engine.is_paused() {
                    updates.extend(engine.settle(u64::MAX / 2));
                }
                if discard && !engine.is_paused() {
                    turns.push(t.elapsed());
                }
            }
        }
        turns.sort();
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        let mean_setup = setups.iter().map(|d| ms(*d)).sum::<f64>() / setups.len() as f64;
        println!(
            "hand set-up (agree, commit, reveal, four shuffles, deal, to the first prompt): mean {mean_setup:.0} ms over {} hands",
            setups.len()
        );
        println!(
            "player's discard to the next prompt (three bots, instant): median {:.1} ms, p90 {:.1} ms, max {:.1} ms over {} discards",
            ms(turns[turns.len() / 2]),
            ms(turns[turns.len() * 9 / 10]),
            ms(turns[turns.len() - 1]),
            turns.len()
        );
    }
}
