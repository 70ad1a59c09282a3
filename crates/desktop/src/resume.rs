//! A practice table that survives a kill: its journal (`practice.jsonl` in the data dir).
//!
//! The practice engine is deterministic: the same set-up (its seed included) and the same
//! player commands at the same engine times give the same table, step for step. So the
//! journal keeps the set-up on its first line and then one line per command with the engine
//! time it was applied at; a restarted app plays it back ([`replay`]) and the table is where it
//! was, down to the open prompt and its countdown. Hands finished before the kill were booked
//! in the store when they ended; the playback does not book them again
//! ([`crate::records::Recorder`] resumes after what the store holds).
//!
//! The journal is removed when the session ends or the player leaves the table; a journal
//! that cannot be read (truncated by a full disk, edited) is set aside as
//! `practice.jsonl.bad` with one line in the log, and the app starts as if there were none.

use std::io::Write;
use std::path::{Path, PathBuf};

use mahjong_bot::Level;
use mahjong_rules::{Action, Money, Options, Ruleset, SessionLength};
use serde::{Deserialize, Serialize};

use crate::engine::{Command, Engine, PracticeConfig, Update};

/// The journal's format: the set-up, then the commands, played back by the practice engine
/// on the seat host (version 1 was the engine before it).
const VERSION: u32 = 2;

/// The journal's file name in the data dir.
pub const FILE: &str = "practice.jsonl";

#[derive(Serialize, Deserialize)]
struct Head {
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

#[derive(Serialize, Deserialize)]
enum Cmd {
    Act(Action),
    Next,
    Hold(bool),
    /// The engine's clock reached `t` and something happened (a timer fired, a bot moved):
    /// played back so that a time-out before a kill is not forgotten.
    Tick,
}

#[derive(Serialize, Deserialize)]
struct Line {
    t: u64,
    cmd: Cmd,
}

/// A practice table found in the data dir: its set-up and the player's commands so far.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Saved {
    /// The set-up.
    pub config: PracticeConfig,
    /// Each command with the engine time it was applied at (`None`: the clock only moved).
    pub commands: Vec<(u64, Option<Command>)>,
}

fn path(dir: &Path) -> PathBuf {
    dir.join(FILE)
}

fn to_cmd(c: &Command) -> Cmd {
    match c {
        Command::Act(a) => Cmd::Act(a.clone()),
        Command::Next => Cmd::Next,
        Command::Hold(on) => Cmd::Hold(*on),
    }
}

fn from_cmd(c: Cmd) -> Option<Command> {
    match c {
        Cmd::Act(a) => Some(Command::Act(a)),
        Cmd::Next => Some(Command::Next),
        Cmd::Hold(on) => Some(Command::Hold(on)),
        Cmd::Tick => None,
    }
}

/// The journal being written for a running table.
pub struct Journal {
    file: std::fs::File,
}

impl Journal {
    /// Starts the journal of a new table (replacing any older one).
    pub fn create(dir: &Path, config: &PracticeConfig) -> std::io::Result<Journal> {
        let head = Head {
            version: VERSION,
            ruleset: config.ruleset,
            levels: config.levels.map(|l| l.to_string()),
            seed: config.seed,
            length: config.length,
            options: config.options.clone(),
            stake: config.stake,
            think_ms: config.think_ms,
            timers: config.timers,
        };
        let mut file = std::fs::File::create(path(dir))?;
        let line = serde_json::to_string(&head).map_err(std::io::Error::other)?;
        writeln!(file, "{line}")?;
        Ok(Journal { file })
    }

    /// Goes on writing the journal of a table played back from it.
    pub fn reopen(dir: &Path) -> std::io::Result<Journal> {
        let file = std::fs::OpenOptions::new().append(true).open(path(dir))?;
        Ok(Journal { file })
    }

    /// Adds a command applied at engine time `t`. One short line, written at once, so that a
    /// kill loses nothing the player did.
    pub fn command(&mut self, t: u64, command: &Command) -> std::io::Result<()> {
        let line = serde_json::to_string(&Line {
            t,
            cmd: to_cmd(command),
        })
        .map_err(std::io::Error::other)?;
        writeln!(self.file, "{line}")
    }

    /// Notes that the engine's clock reached `t` with something happening.
    pub fn tick(&mut self, t: u64) -> std::io::Result<()> {
        let line =
            serde_json::to_string(&Line { t, cmd: Cmd::Tick }).map_err(std::io::Error::other)?;
        writeln!(self.file, "{line}")
    }
}

/// Removes the journal (the session is over or the player left it).
pub fn clear(dir: &Path) {
    let _ = std::fs::remove_file(path(dir));
}

/// The table saved in `dir`, if there is one that can be read. A journal that cannot be read
/// is set aside (`practice.jsonl.bad`) and said in the log.
pub fn load(dir: &Path) -> Option<Saved> {
    let text = std::fs::read_to_string(path(dir)).ok()?;
    match parse(&text) {
        Ok(s) => Some(s),
        Err(why) => {
            tracing::warn!("the saved practice table cannot be read ({why}): set aside");
            let _ = std::fs::rename(path(dir), dir.join(format!("{FILE}.bad")));
            None
        }
    }
}

fn parse(text: &str) -> Result<Saved, String> {
    let mut lines = text.lines();
    let head: Head =
        serde_json::from_str(lines.next().ok_or("empty")?).map_err(|e| format!("line 1: {e}"))?;
    if head.version == 1 {
        // Version 1 was played by the engine before it ran on the seat host, whose order of
        // events at one instant differs: played back now, its earlier hands would not be the
        // ones booked. They are booked already; only the hand in play is lost.
        return Err(
            "version 1, written by an earlier version of the app: its hand in play cannot be played back the same (its finished hands are in the history)"
                .into(),
        );
    }
    if head.version != VERSION {
        return Err(format!("version {} is not known", head.version));
    }
    let mut levels = [Level::Strong; 3];
    for (l, s) in levels.iter_mut().zip(&head.levels) {
        *l = s.parse().map_err(|_| format!("unknown level {s:?}"))?;
    }
    let mut commands = Vec::new();
    let mut last = 0;
    let total = text.lines().count();
    for (i, l) in lines.enumerate() {
        if l.trim().is_empty() {
            continue;
        }
        // A last line cut short by a kill is dropped: the command was not applied for sure.
        let line: Line = match serde_json::from_str(l) {
            Ok(x) => x,
            Err(_) if i + 2 == total && !text.ends_with('\n') => break,
            Err(e) => return Err(format!("line {}: {e}", i + 2)),
        };
        if line.t < last {
            return Err(format!("line {}: time goes back", i + 2));
        }
        last = line.t;
        commands.push((line.t, from_cmd(line.cmd)));
    }
    Ok(Saved {
        config: PracticeConfig {
            ruleset: head.ruleset,
            levels,
            seed: head.seed,
            length: head.length,
            options: head.options,
            stake: head.stake,
            think_ms: head.think_ms,
            timers: head.timers,
        },
        commands,
    })
}

/// Plays the saved commands into a new engine of the saved set-up: the table as it was. The
/// updates are those the screen would have seen.
pub fn replay(engine: &mut Engine, commands: &[(u64, Option<Command>)]) -> Vec<Update> {
    let mut out = Vec::new();
    for (t, c) in commands {
        out.extend(engine.advance_to(*t));
        if let Some(c) = c {
            out.extend(engine.command(c.clone()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_journal_round_trips_and_a_cut_last_line_is_dropped() {
        let dir = std::env::temp_dir().join(format!("shanghai-resume-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("dir");
        let config = PracticeConfig::new(Ruleset::Baida, 42);
        let mut j = Journal::create(&dir, &config).expect("journal");
        j.command(10, &Command::Next).expect("write");
        j.command(20, &Command::Act(Action::Pass)).expect("write");
        drop(j);
        let saved = load(&dir).expect("saved");
        assert_eq!(saved.config, config);
        assert_eq!(
            saved.commands,
            vec![
                (10, Some(Command::Next)),
                (20, Some(Command::Act(Action::Pass)))
            ]
        );
        // A kill in the middle of a line.
        let mut text = std::fs::read_to_string(path(&dir)).expect("read");
        text.push_str("{\"t\":30,\"cmd\":{\"Act\"");
        std::fs::write(path(&dir), text).expect("write");
        assert_eq!(load(&dir).expect("still read").commands.len(), 2);
        // Garbage is set aside, not a crash.
        std::fs::write(path(&dir), "not json\n").expect("write");
        assert!(load(&dir).is_none());
        assert!(dir.join(format!("{FILE}.bad")).exists());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_journal_of_the_engine_before_the_seat_host_is_refused_with_why() {
        let config = PracticeConfig::new(Ruleset::Qiaoma, 5);
        let mut head = serde_json::to_value(Head {
            version: VERSION,
            ruleset: config.ruleset,
            levels: config.levels.map(|l| l.to_string()),
            seed: config.seed,
            length: config.length,
            options: None,
            stake: config.stake,
            think_ms: config.think_ms,
            timers: None,
        })
        .expect("head");
        assert!(parse(&format!("{head}\n")).is_ok());
        head["version"] = 1.into();
        let why = parse(&format!("{head}\n")).expect_err("version 1");
        assert!(
            why.contains("version 1") && why.contains("history"),
            "{why}"
        );
    }
}
