//! The sans-IO interface of a [`crate::Client`] and its journal: what goes in, what comes out,
//! and what a seat persists.
//!
//! Persistence is the caller's: [`Output::journal`] lists [`Record`]s to append to the seat's
//! store, and **`Record::Own` records must be durable before the frames of the same output
//! are sent** (a restarted seat must re-send exactly what it sent, never something else: a
//! different move for the same step would be equivocation). The other records may be written
//! lazily: what is lost is asked for again from the others. [`Persisted`] folds the records;
//! [`crate::Client::restore`] rebuilds the seat from it.

use mahjong_rules::{Action, Money, Options, Seat, SessionLength};
use serde::{Deserialize, Serialize};

use crate::codec::Envelope;
use crate::error::{ActError, FrameError};
use crate::event::TableEvent;
use crate::replica::{Checkpoint, StepRecord};

/// Who this seat is at which table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Config {
    /// The table id (the lobby's).
    pub table: [u8; 32],
    /// This seat.
    pub seat: Seat,
    /// The four seats' ed25519 keys (the lobby's).
    pub roster: [ed25519_dalek::VerifyingKey; 4],
    /// The seat that proposes the set-up.
    pub host: Seat,
}

/// What goes into a client.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// A frame from another seat.
    Frame(Vec<u8>),
    /// The local player's (or bot's) choice at [`TableEvent::YourTurn`].
    Act(Action),
    /// The time passed (at or after [`Output::deadline`]).
    Tick,
    /// The host proposes the set-up.
    Propose {
        /// Every option (timers included).
        options: Box<Options>,
        /// Coins per point.
        stake: Money,
        /// How long to play.
        length: SessionLength,
    },
    /// Accept the proposal.
    Accept,
    /// Decline the proposal (leave the table).
    Decline,
    /// Stop the session after the current hand.
    Stop,
    /// Leave: during a hand, at once (the hand is abandoned with this seat as the leaver);
    /// between hands, at the next settlement.
    Leave,
    /// Steps `from..` read from the seat's store, answering [`Output::load`] (only a client
    /// that keeps its log in the store asks: [`crate::Client::keep_log_in_store`]).
    Stored {
        /// The first step's number.
        from: u32,
        /// The steps, in order.
        steps: Vec<StepRecord>,
    },
}

/// Why an input was dropped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rejected {
    /// A frame.
    Frame(FrameError),
    /// A local request.
    Act(ActError),
    /// Steps handed back from the store ([`Input::Stored`]) that are not this log's (a
    /// damaged store): what waited for them is dropped.
    Stored(String),
    /// A watcher ([`crate::Follower::watching`]) was given an entry for the step it waits
    /// for that does not fit it: the peer serving it showed what the seat did not sign, or
    /// another history.
    Misfit {
        /// The seat the entry claims to be from.
        seat: Seat,
        /// The hand.
        hand: u32,
        /// The step.
        seq: u32,
        /// What is wrong with it.
        why: Misfit,
    },
    /// A watcher was given a complete step the rules refuse (signed by its seats).
    Step(crate::error::StepError),
}

/// What is wrong with an entry a watcher was given ([`Rejected::Misfit`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Misfit {
    /// It does not carry the seat's signature: it was changed after the seat signed it
    /// (proof that the peer that passed it on lied).
    Signature,
    /// It is signed, but follows another history than the one shown so far.
    Chain,
    /// It is signed, but the seat does not speak at this step or not so.
    Step,
}

impl std::fmt::Display for Misfit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Misfit::Signature => {
                "does not carry the seat's signature (it was changed after it was signed)"
            }
            Misfit::Chain => "follows another history than the steps shown before it",
            Misfit::Step => "is not what the seat may send at that step",
        })
    }
}

/// Steps the host reads from the seat's store and hands back with [`Input::Stored`]: the
/// client keeps only recent hands in memory ([`crate::Client::keep_log_in_store`]) and needs
/// older steps to answer a seat far behind, to compare a late envelope of an old hand, or to
/// build evidence (whose log starts at step 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Load {
    /// The first step wanted.
    pub from: u32,
    /// One past the last step wanted (the first step the client holds).
    pub to: u32,
}

/// A record of the seat's journal (see the module header for durability).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Record {
    /// A step was logged.
    Step(StepRecord),
    /// This seat sent this envelope (an entry or a vote): durable before sending.
    Own(Box<Envelope>),
    /// The log was cut back to this many steps (a hand aborted at an earlier step).
    Truncate(u32),
    /// The replica at a hand boundary.
    Checkpoint(Box<Checkpoint>),
}

/// Everything a seat needs to resume (its identity key aside, which the caller keeps).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Persisted {
    /// Who.
    pub config: Config,
    /// The secret root of every per-hand secret (keep it encrypted at rest).
    pub root: [u8; 32],
    /// The log: all of it from step 0, or from the last checkpoint on
    /// ([`Persisted::from_checkpoint_on`]; see [`Persisted::base`]).
    pub log: Vec<StepRecord>,
    /// The last hand boundary.
    pub checkpoint: Option<Checkpoint>,
    /// This seat's envelopes not (yet) in the log.
    pub own: Vec<Envelope>,
}

impl Persisted {
    /// A store for a new seat.
    pub fn new(config: Config, root: [u8; 32]) -> Persisted {
        Persisted {
            config,
            root,
            log: Vec::new(),
            checkpoint: None,
            own: Vec::new(),
        }
    }

    /// Folds one journal record in.
    pub fn apply(&mut self, record: Record) {
        match record {
            Record::Step(rec) => {
                if let (Some(h), Some(s)) = (rec.hand(), rec.seq()) {
                    self.own
                        .retain(|e| e.is_vote() || e.hand != h || e.seq != s);
                }
                self.log.push(rec);
            }
            Record::Own(e) => {
                if !self.own.contains(&e) {
                    self.own.push(*e);
                }
            }
            Record::Truncate(n) => {
                let base = self.base();
                self.log.truncate(n.saturating_sub(base) as usize);
            }
            Record::Checkpoint(cp) => {
                self.own.retain(|e| e.hand >= cp.hand);
                self.checkpoint = Some(*cp);
            }
        }
    }

    /// The step number of `log[0]` (steps carry their numbers): 0 when the whole log is
    /// here; a store that starts at its last checkpoint starts there (a restore then does
    /// not read and hash every hand before it).
    pub fn base(&self) -> u32 {
        match self.log.first().and_then(StepRecord::seq) {
            Some(seq) => seq,
            None => self.checkpoint.as_ref().map_or(0, |cp| cp.seq),
        }
    }

    /// Steps `from..to` of the log this holds (fewer when it starts later): a store's answer
    /// to a client's [`Load`].
    pub fn steps(&self, from: u32, to: u32) -> Vec<StepRecord> {
        let base = self.base();
        let lo = from.max(base).saturating_sub(base) as usize;
        let hi = (to.saturating_sub(base) as usize).min(self.log.len());
        self.log
            .get(lo..hi.max(lo))
            .map(<[_]>::to_vec)
            .unwrap_or_default()
    }

    /// The same store starting at its checkpoint: the steps before it are left out (a
    /// restore then trusts the checkpoint, as it always does, and reads only what follows).
    pub fn from_checkpoint_on(mut self) -> Persisted {
        let base = self.base();
        if let Some(cp) = &self.checkpoint
            && cp.seq >= base
        {
            let n = ((cp.seq - base) as usize).min(self.log.len());
            self.log.drain(..n);
        }
        self
    }
}

/// In [`Output::reply`], the bit that addresses an answer to the returning player of a seat
/// (see there).
pub const TO_RETURNING: Seat = 0x80;

/// What comes out of a client.
#[derive(Clone, Debug, Default)]
pub struct Output {
    /// Frames to broadcast to the other three seats.
    pub send: Vec<Vec<u8>>,
    /// Frames for one seat only (answers to its requests). A seat with [`TO_RETURNING`] set
    /// is the player of that seat who came back to follow the table after a bot took it:
    /// the answer is for that player's program only, not for the bot's.
    pub reply: Vec<(Seat, Vec<u8>)>,
    /// Events, in order.
    pub events: Vec<TableEvent>,
    /// Call again with [`Input::Tick`] at this time (milliseconds, the caller's clock).
    pub deadline: Option<u64>,
    /// Records to append to the seat's store (`Own` durable before sending).
    pub journal: Vec<Record>,
    /// Inputs that were dropped, and why.
    pub rejected: Vec<Rejected>,
    /// Steps to read from the store and hand back with [`Input::Stored`], soon (what waits
    /// for them is an answer to another seat, a comparison or evidence).
    pub load: Option<Load>,
}

/// Traffic counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Frames broadcast (each to three seats).
    pub broadcast_frames: u64,
    /// Bytes broadcast (counted once per frame).
    pub broadcast_bytes: u64,
    /// Frames sent to one seat.
    pub reply_frames: u64,
    /// Bytes sent to one seat.
    pub reply_bytes: u64,
}
