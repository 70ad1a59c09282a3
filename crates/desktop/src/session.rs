//! A table session, as the table screen sees it: one [`Feed`] of one [`Update`] type, and one
//! [`Commands`] link back, whether the table is a practice table (the engine on a thread of
//! this module) or a LAN table (the network's thread, [`crate::lan`], which sends the same
//! feed: its table events become the same updates through the same
//! [`crate::watch::Watcher`]). A table is saved and resumed the same way in both
//! (`mahjong_host::storage`), and the host plays the player's forced moves and `--autoplay`
//! in both, as it plays its bots: the screen only shows the table and sends what the player
//! chose.
//!
//! The practice engine's thread and the countdown ticker are iced subscriptions built with
//! `Subscription::run_with`: the subscription's data is a hashable key, and its stream starts
//! a thread that lives as long as the stream is polled. Dropping the subscription (leaving
//! the table, stopping the countdown) drops the stream's receiver, and the thread ends at its
//! next send. The engine thread hands the UI a command sender first ([`Feed::Ready`]), then
//! every [`Update`]. The crypto of the deal and the audit runs there, so the window never
//! waits for it.

use std::path::Path;
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use iced::Subscription;
use iced::futures::channel::mpsc as async_mpsc;
use iced::futures::stream::{self, BoxStream, StreamExt};

use crate::engine::{Command, Engine, EngineError, Failure, PracticeConfig};
pub use crate::watch::Update;

/// What a table session sends the table screen (the practice engine's thread and the LAN
/// thread alike).
#[derive(Clone, Debug)]
pub enum Feed {
    /// Where to send the player's commands.
    Ready(Commands),
    /// An update of the table.
    Update(Update),
    /// A table killed earlier is being seated again from the store (`true`) or is back
    /// where it was (`false`): no sounds for what already happened.
    Replay(bool),
}

/// Where the table screen's commands go: the practice engine's thread, or straight into the
/// LAN thread's loop (no thread in between).
#[derive(Clone, Debug)]
pub enum Commands {
    /// The practice engine's thread (it waits on a std channel between its timers).
    Practice(mpsc::Sender<Command>),
    /// The LAN thread's loop (it selects on a tokio channel beside the network's events).
    Lan(tokio::sync::mpsc::UnboundedSender<Command>),
}

impl Commands {
    /// Sends a command; false when the table's thread has stopped.
    pub fn send(&self, command: Command) -> bool {
        match self {
            Commands::Practice(tx) => tx.send(command).is_ok(),
            Commands::Lan(tx) => tx.send(command).is_ok(),
        }
    }
}

/// A practice table keyed by its configuration and a generation (a new table each time the
/// player sits down).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TableKey {
    /// The set-up.
    pub config: PracticeConfig,
    /// Distinguishes two tables with the same set-up.
    pub generation: u64,
    /// Where to keep the table (its hands in the history, its journal to resume it), if
    /// anywhere.
    pub record: Option<RecordTo>,
    /// The table is the one saved unfinished in `record`'s store: resume it.
    pub resume: bool,
    /// `--autoplay`: the master computer player plays the player's seat.
    pub autoplay: bool,
}

/// Where a practice table's hands are kept: the player's data directory and name.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RecordTo {
    /// The data directory (its store, `mahjong.sqlite3`).
    pub dir: std::path::PathBuf,
    /// The player's display name.
    pub name: String,
}

/// The subscription that runs the practice table `key`.
pub fn practice(key: TableKey) -> Subscription<Feed> {
    Subscription::run_with(key, start)
}

fn start(key: &TableKey) -> BoxStream<'static, Feed> {
    let (tx, rx) = async_mpsc::unbounded();
    let key = key.clone();
    let spawned = thread::Builder::new()
        .name("practice-table".into())
        .spawn(move || run(key, tx));
    match spawned {
        Ok(_) => rx.boxed(),
        Err(e) => {
            stream::once(
                async move { Feed::Update(Update::Failed(Failure::Thread(e.to_string()))) },
            )
            .boxed()
        }
    }
}

/// The engine loop: wall-clock time, paused while the engine is paused.
fn run(key: TableKey, out: async_mpsc::UnboundedSender<Feed>) {
    let (cmd_tx, cmd_rx) = mpsc::channel();
    if out
        .unbounded_send(Feed::Ready(Commands::Practice(cmd_tx)))
        .is_err()
    {
        return;
    }
    let send_all = |updates: Vec<Update>| {
        updates
            .into_iter()
            .all(|u| out.unbounded_send(Feed::Update(u)).is_ok())
    };
    let started = if key.resume {
        resume_table(&key)
    } else {
        start_table(&key)
    };
    let (mut engine, first) = match started {
        Ok(x) => x,
        Err(e) => {
            let _ = out.unbounded_send(Feed::Update(Update::Failed(Failure::Start(e.to_string()))));
            return;
        }
    };
    if key.autoplay {
        engine.autoplay();
    }
    // A table seated again from the store: the screen learns the hand under way between the
    // two marks (no sounds for what already happened).
    if key.resume {
        let _ = out.unbounded_send(Feed::Replay(true));
    }
    if !send_all(first) {
        return;
    }
    if key.resume {
        let _ = out.unbounded_send(Feed::Replay(false));
    }
    // The engine clock advances with the wall clock only while the engine runs.
    let mut clock = engine.now();
    let mut last = Instant::now();
    loop {
        let real = Instant::now();
        if !engine.is_paused() {
            clock += real.duration_since(last).as_millis() as u64;
        }
        last = real;
        let ups = engine.advance_to(clock);
        if !send_all(ups) {
            return;
        }
        let wait = match engine.next_due() {
            Some(at) if at <= clock => Duration::ZERO,
            Some(at) => Duration::from_millis(at - clock),
            // Nothing due: wake now and then only to notice that the UI has gone.
            None => Duration::from_secs(5),
        };
        let command = match cmd_rx.recv_timeout(wait) {
            Ok(c) => Some(c),
            Err(mpsc::RecvTimeoutError::Timeout) => None,
            Err(mpsc::RecvTimeoutError::Disconnected) => return,
        };
        if let Some(c) = command {
            let real = Instant::now();
            if !engine.is_paused() {
                clock += real.duration_since(last).as_millis() as u64;
                let ups = engine.advance_to(clock);
                if !send_all(ups) {
                    return;
                }
            }
            last = real;
            let ups = engine.command(c);
            if !send_all(ups) {
                return;
            }
        }
        if out.is_closed() {
            return;
        }
    }
}

/// An old practice journal (`practice.jsonl`, written by the app before practice tables were
/// saved in the store): set aside once, as `practice.jsonl.old`.
pub const OLD_PRACTICE_JOURNAL: &str = "practice.jsonl";

/// An old practice journal found in `dir` (written by the app before practice tables were
/// kept in the store) is refused with why, once: set aside as `practice.jsonl.old`, with a line
/// in the log. Its hand in play is lost; its finished hands were booked in the history when
/// they ended. Whether one was found (the home screen says so).
pub fn set_aside_old_journal(dir: &Path) -> bool {
    let old = dir.join(OLD_PRACTICE_JOURNAL);
    if !old.exists() {
        return false;
    }
    tracing::warn!(
        "{} was written by an earlier version of the app, which kept a practice table \
         apart from the store: its hand in play cannot be resumed (its finished hands are \
         in the history); set aside as {}.old",
        old.display(),
        OLD_PRACTICE_JOURNAL
    );
    if let Err(e) = std::fs::rename(&old, dir.join(format!("{OLD_PRACTICE_JOURNAL}.old"))) {
        tracing::warn!("{} cannot be set aside: {e}", old.display());
    }
    true
}

/// The practice table saved unfinished in `dir`'s store (its set-up), which the app opens on
/// (the worker seats it again: [`Engine::resume`]). Creates nothing.
pub fn practice_to_resume(dir: &Path) -> Option<PracticeConfig> {
    let store = crate::records::open_existing(dir).ok()??;
    let table = store
        .unfinished_table(mahjong_host::Kind::Practice)
        .ok()??;
    let setup = store.roster(&table.id).ok()??;
    match crate::engine::PracticeConfig::from_stored(&setup) {
        Ok(config) => Some(config),
        Err(why) => {
            tracing::warn!(
                "the practice table {} cannot be resumed ({why}): left",
                mahjong_store::to_hex(&table.id)
            );
            let _ = store.mark_finished(&table.id);
            None
        }
    }
}

/// The player left the practice table: it is not resumed again (every unfinished practice
/// table of `dir`'s store is marked finished; its hands stay in the history).
pub fn leave_practice(dir: &Path) {
    let Ok(Some(store)) = crate::records::open_existing(dir) else {
        return;
    };
    for t in store.unfinished_tables().unwrap_or_default() {
        if t.is_practice()
            && let Err(e) = store.mark_finished(&t.id)
        {
            tracing::warn!("the practice table left stays resumable: {e}");
        }
    }
}

/// A tick every `period_ms` while subscribed (the countdowns).
pub fn every(period_ms: u64) -> Subscription<Instant> {
    Subscription::run_with(period_ms, ticker)
}

fn ticker(period_ms: &u64) -> BoxStream<'static, Instant> {
    let period = Duration::from_millis((*period_ms).max(10));
    let (tx, rx) = async_mpsc::unbounded();
    let spawned = thread::Builder::new()
        .name("countdown".into())
        .spawn(move || {
            while tx.unbounded_send(Instant::now()).is_ok() {
                thread::sleep(period);
            }
        });
    match spawned {
        Ok(_) => rx.boxed(),
        Err(_) => stream::empty().boxed(),
    }
}

/// The practice table saved unfinished in the key's store, seated again
/// ([`Engine::resume`]): the screen is told the hands already final (the hand under way is the
/// next) and the table as the player last saw it. A table found over, or no table at all,
/// starts the key's set-up afresh, as a new table (another seed: the stored table keeps its
/// id).
pub fn resume_table(key: &TableKey) -> Result<(Engine, Vec<Update>), EngineError> {
    let Some(r) = &key.record else {
        return start_table(key);
    };
    let store = mahjong_store::Store::open(&r.dir)
        .map_err(|e| EngineError::Store(mahjong_host::StorageError(e.to_string())))?;
    match Engine::resume(Box::new(store))? {
        Some(resumed) => {
            let mut updates = vec![Update::Resumed {
                hands: resumed.hands,
            }];
            updates.extend(resumed.updates);
            Ok((resumed.engine, updates))
        }
        None => {
            let mut fresh = key.clone();
            fresh.config.seed ^= mahjong_store::now_ms();
            start_table(&fresh)
        }
    }
}

/// Sits the engine of a practice table down: [`Engine::new`], or [`Engine::saved`] when the
/// key says where to keep it (a store that cannot be opened or refuses the table is reported
/// as a failed update; the table still plays, not kept).
pub fn start_table(key: &TableKey) -> Result<(Engine, Vec<Update>), EngineError> {
    let Some(r) = &key.record else {
        return Engine::new(&key.config);
    };
    let store = match mahjong_store::Store::open(&r.dir) {
        Ok(store) => store,
        Err(e) => {
            let (engine, mut updates) = Engine::new(&key.config)?;
            updates.push(Update::Failed(Failure::NotKept(e.into())));
            return Ok((engine, updates));
        }
    };
    match Engine::saved(&key.config, Box::new(store), &r.name) {
        // The store refused the table (a full disk, the same table kept before): it plays,
        // not kept, and says so.
        Err(EngineError::Store(e)) => {
            let (engine, mut updates) = Engine::new(&key.config)?;
            updates.push(Update::Failed(Failure::NotKept(
                crate::records::RecordsError::Store(e.to_string()),
            )));
            Ok((engine, updates))
        }
        other => other,
    }
}
