//! Off the UI thread: the practice engine on a worker thread, and a countdown ticker.
//!
//! Both are iced subscriptions built with `Subscription::run_with`: the subscription's data
//! is a hashable key, and its stream starts a thread that lives as long as the stream is
//! polled. Dropping the subscription (leaving the table, stopping the countdown) drops the
//! stream's receiver, and the thread ends at its next send. The engine thread hands the UI a
//! command sender first ([`Feed::Ready`]), then every [`Update`]. The crypto of the deal and
//! the audit runs there, so the window never waits for it.

use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use iced::Subscription;
use iced::futures::channel::mpsc as async_mpsc;
use iced::futures::stream::{self, BoxStream, StreamExt};

use crate::engine::{Command, Engine, EngineError, Failure, PracticeConfig, Update};

/// What the engine thread sends to the UI.
#[derive(Clone, Debug)]
pub enum Feed {
    /// Where to send the player's commands.
    Ready(Commands),
    /// An update of the table.
    Update(Update),
    /// A table killed earlier is being played back from its journal (`true`) or is back
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
    /// Where to keep the table's hands (the history), if anywhere; the table's journal
    /// ([`crate::resume`]) is kept there too.
    pub record: Option<RecordTo>,
    /// The commands of a table killed earlier, played back before it goes on.
    pub resume: Option<Vec<(u64, Option<Command>)>>,
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
    let (mut engine, first) = match &key.resume {
        Some(commands) => {
            // Played back from the journal; the hands it finished were booked already. The
            // screen sees every update of the playback between the two marks.
            let _ = out.unbounded_send(Feed::Replay(true));
            match resume_table(&key, commands) {
                Ok((engine, ups)) => {
                    if !send_all(ups) {
                        return;
                    }
                    let _ = out.unbounded_send(Feed::Replay(false));
                    (engine, Vec::new())
                }
                Err(e) => {
                    let _ = out.unbounded_send(Feed::Replay(false));
                    let _ = out.unbounded_send(Feed::Update(Update::Failed(Failure::Start(
                        e.to_string(),
                    ))));
                    return;
                }
            }
        }
        None => match start_table(&key) {
            Ok(x) => x,
            Err(e) => {
                let _ =
                    out.unbounded_send(Feed::Update(Update::Failed(Failure::Start(e.to_string()))));
                return;
            }
        },
    };
    // The journal that lets a killed table come back (only where hands are kept).
    let mut journal = key.record.as_ref().and_then(|r| {
        let j = match key.resume {
            Some(_) => crate::resume::Journal::reopen(&r.dir),
            None => crate::resume::Journal::create(&r.dir, &key.config),
        };
        j.map_err(|e| tracing::warn!("the practice table cannot be saved: {e}"))
            .ok()
    });
    let finished = |updates: &[Update]| {
        updates
            .iter()
            .any(|u| matches!(u, Update::HandEnded(end) if end.result.session.is_finished()))
    };
    if finished(&first)
        && let Some(r) = &key.record
    {
        crate::resume::clear(&r.dir);
    }
    if !send_all(first) {
        return;
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
        note(&mut journal, &key, engine.now(), &ups);
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
                note(&mut journal, &key, engine.now(), &ups);
                if !send_all(ups) {
                    return;
                }
            }
            last = real;
            if let Some(j) = &mut journal
                && let Err(e) = j.command(engine.now(), &c)
            {
                tracing::warn!("the practice table's journal: {e}");
                journal = None;
            }
            let ups = engine.command(c);
            if session_over(&ups)
                && let Some(r) = &key.record
            {
                crate::resume::clear(&r.dir);
                journal = None;
            }
            if !send_all(ups) {
                return;
            }
        }
        if out.is_closed() {
            return;
        }
    }
}

/// Keeps the journal in step with what the clock did: a tick where something happened, and
/// no journal once the session is over (a finished table is not resumed).
fn note(journal: &mut Option<crate::resume::Journal>, key: &TableKey, now: u64, ups: &[Update]) {
    if !ups.is_empty()
        && let Some(j) = journal
        && let Err(e) = j.tick(now)
    {
        tracing::warn!("the practice table's journal: {e}");
        *journal = None;
    }
    if session_over(ups)
        && let Some(r) = &key.record
    {
        crate::resume::clear(&r.dir);
        *journal = None;
    }
}

/// Whether these updates end the session.
fn session_over(updates: &[Update]) -> bool {
    updates
        .iter()
        .any(|u| matches!(u, Update::HandEnded(end) if end.result.session.is_finished()))
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

/// A practice table killed earlier, played back from its journal ([`crate::resume`]): the
/// engine of its set-up, its commands replayed, then the recording of its hands from where the
/// store's copy ends (the hands finished before the kill are not booked twice).
pub fn resume_table(
    key: &TableKey,
    commands: &[(u64, Option<Command>)],
) -> Result<(Engine, Vec<Update>), EngineError> {
    let (mut engine, mut updates) = Engine::new(&key.config)?;
    updates.extend(crate::resume::replay(&mut engine, commands));
    if let Some(r) = &key.record {
        let names = crate::records::practice_names(&r.name, key.config.levels);
        match engine.record_again(&r.dir, names) {
            // The hands played back were booked before the kill (or just now): their
            // settlements keep their *Review* button.
            Ok(table) => {
                for u in &mut updates {
                    if let Update::HandEnded(end) = u {
                        end.kept.get_or_insert(table);
                    }
                }
            }
            Err(e) => updates.push(Update::Failed(Failure::NotKept(e.into()))),
        }
    }
    Ok((engine, updates))
}

/// Sits the engine of a practice table down: [`Engine::new`], then, when the key says where,
/// the recording of its hands in the player's store (a store that cannot be opened is
/// reported as a failed update; the table still plays).
pub fn start_table(key: &TableKey) -> Result<(Engine, Vec<Update>), EngineError> {
    let (mut engine, mut updates) = Engine::new(&key.config)?;
    if let Some(r) = &key.record {
        let names = crate::records::practice_names(&r.name, key.config.levels);
        if let Err(e) = engine.record_to(&r.dir, names) {
            updates.push(Update::Failed(Failure::NotKept(e.into())));
        }
    }
    Ok((engine, updates))
}
