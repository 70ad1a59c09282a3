//! One seat's peer: bytes and the time go in; frames to send, events and a timer deadline
//! come out. No sockets, threads or clock of its own.
//!
//! Implements ARCHITECTURE.md "Data flow of one move" and "Agreement" (timers, silent seats,
//! retransmission) and docs/rules.en.md §4.8 (timers) and §6 (leavers). The [`Client`] feeds complete
//! steps to its replica (`crate::replica`), makes this seat's own entries (automatically for
//! the deal, settlement and roster steps; from [`Input::Act`] or its own timer for moves),
//! buffers entries that arrive early, drops duplicates, detects equivocation, watches for
//! silent seats and votes aborts, and answers requests for missed entries. Frames and
//! requests are in `client/frames.rs`, timers in `client/timers.rs`, the local player's
//! inputs in `client/local.rs`, the step loop in `client/steps.rs`, bots this seat runs in
//! `client/bots.rs`, steps read back from the store in `client/stored.rs`; the interface
//! types and the journal in [`crate::io`].

mod bots;
mod follow;
mod frames;
mod local;
mod steps;
mod stored;
mod timers;

use std::collections::BTreeMap;
use std::sync::Arc;

use ed25519_dalek::SigningKey;
use mahjong_deal::{CardTable, DealSeat};
use mahjong_rules::{Action, Money, Options, Seat, SeatView, Session, SessionLength};

use crate::codec::{Body, Envelope, Hash, Header, Next, Play, Proposal, Void, claim_commitment};
use crate::error::{ActError, StepError, TableError};
use crate::event::TableEvent;
use crate::evidence::{Charge, Evidence};
use crate::io::{Config, Input, Output, Persisted, Record, Rejected, Stats};
use crate::replica::{
    Checkpoint, Ending, Expect, HandResult, Me, Replica, Stage, StepKind, StepRecord,
};
pub use follow::Follower;

/// How often a seat re-sends its own entries of an unfinished step and asks for the rest.
pub const RETRANSMIT_MS: u64 = 1500;

/// How long past a seat's own timer (or, for steps without a timer, past the start of the
/// step) before the others warn that it is silent.
pub const SILENT_GRACE_MS: u64 = 5000;

/// How many steps ahead of this seat an entry may be and still be buffered. An honest seat
/// is ahead of another by the steps the other does not speak in plus one (a turn and the
/// claim window after it, the shares of a draw, the settlement and the next hand's first
/// step): a handful. Whatever is further ahead is dropped and asked for again later.
pub const MAX_AHEAD: u32 = 8;

/// Most bytes of one seat's entries and votes a client keeps for steps it has not logged
/// yet; what is over is dropped (retransmission heals an honest lag).
pub const MAX_BUFFER_BYTES: usize = 1 << 20;

/// Largest reply to one request, in bytes (the rest is asked for again): about a hand of
/// frames, some 600 of them at most, well within what a peer's send queue holds.
pub const MAX_REPLY_BYTES: usize = 128 << 10;

/// Bytes of answers a seat may be sent per second, on average: its requests are answered
/// from a budget that fills at this rate up to [`MAX_REPLY_BYTES`] (a seat far behind
/// catches up at this pace, a hand or so a second; one that asks for ever earlier steps gets
/// no more).
pub const REPLY_BYTES_PER_SECOND: u64 = 128 << 10;

/// Entries and votes received for one step, with their sizes (counted against each seat's
/// [`MAX_BUFFER_BYTES`]).
#[derive(Clone, Debug, Default)]
struct Slot {
    entries: [Option<Envelope>; 4],
    votes: [Option<Envelope>; 4],
    entry_bytes: [u32; 4],
    vote_bytes: [u32; 4],
}

/// Two signed envelopes of one seat that conflict (see [`crate::evidence::conflict`]): one
/// kept per culprit per hand. Its [`Evidence`] is built on demand with the log prefix
/// `..upto` (the start of the hand it concerns, which no later abort cuts).
#[derive(Clone, Debug)]
struct Proof {
    hand: u32,
    seat: Seat,
    upto: u32,
    first: Envelope,
    second: Envelope,
}

/// Timers of the current step.
#[derive(Clone, Copy, Debug, Default)]
struct StepClock {
    key: (u32, u32),
    started: u64,
    prompted: bool,
    warned: u8,
    timed_out_acted: bool,
    gave_up: bool,
    /// When the disconnect limit started to run (the step's start, or the time the table
    /// resumed after two seats were silent at once).
    limit_from: u64,
}

/// Why [`Client::bot_client`] gave no client.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BotError {
    /// The seat is not a bot seat run by this seat.
    #[error("seat {seat} is not a bot seat run by seat {me} (its controller: {controller:?})")]
    NotController {
        /// The seat asked for.
        seat: Seat,
        /// This seat.
        me: Seat,
        /// The seat that runs it, if it is a bot seat.
        controller: Option<Seat>,
    },
    /// This seat has no checkpoint yet (retry once it has one).
    #[error("no checkpoint yet to start the bot from")]
    NoCheckpoint,
    /// The roster step that gave the seat to a bot is not yet before the last checkpoint
    /// (retry at the next one).
    #[error("the roster step that gave seat {seat} to a bot is not yet behind a checkpoint")]
    NotYetCheckpointed {
        /// The bot's seat.
        seat: Seat,
    },
    /// The bot's client could not be rebuilt from this seat's log.
    #[error("cannot rebuild the bot of seat {seat}: {why}")]
    Restore {
        /// The bot's seat.
        seat: Seat,
        /// Why.
        why: String,
    },
}

impl BotError {
    /// Whether asking again after a later checkpoint may succeed.
    pub fn is_pending(&self) -> bool {
        matches!(
            self,
            BotError::NoCheckpoint | BotError::NotYetCheckpointed { .. }
        )
    }
}

/// One seat's peer (see the module header).
pub struct Client {
    config: Config,
    key: SigningKey,
    root: [u8; 32],
    replica: Replica,
    slots: BTreeMap<(u32, u32), Slot>,
    now: u64,
    clock: StepClock,
    next_retransmit: u64,
    last_request: [u64; 4],
    /// The last answer to each seat (4..8: to the returning player of each seat).
    last_reply: [(u32, u64); 8],
    /// Each asker's answer budget (as `last_reply`): bytes it may be sent now, and when it
    /// was last filled.
    reply_budget: [(u64, u64); 8],
    /// The display name this seat signs with its proposal or acceptance ([`Client::set_name`]).
    name: Option<String>,
    next_pref: Next,
    /// This seat left after it had signed the settlement of this hand (with "go on"): the
    /// hand ends as agreed, and the seat votes against itself at the next hand's first step.
    leave_after: Option<u32>,
    halted_hand: Option<u32>,
    deferred_votes: Vec<(u32, u32, Seat)>,
    restored: bool,
    last_checkpoint: Option<Checkpoint>,
    /// Evidence of faulty steps (at most one per hand: the hand halts), with the culprit.
    step_evidence: Vec<(u32, Seat, Evidence)>,
    /// Equivocation proofs, one per culprit per hand.
    proofs: Vec<Proof>,
    /// Conflicting entries for the next hand, proven once it starts (one per seat).
    future_pairs: Vec<(Envelope, Envelope)>,
    /// Seats proven at fault whose abort this seat still asks for (a bit per seat).
    sanction: u8,
    /// Bytes of each seat's envelopes held in `slots`.
    buffered: [usize; 4],
    /// When each seat was last heard from (any validly signed frame).
    heard: [u64; 4],
    /// The seats silent at once when the table paused (0: not paused).
    paused: u8,
    /// This seat's committed claim answer (hand, step), opened in the next step.
    opening: Option<(u32, u32, Play)>,
    journal: Vec<Record>,
    stats: Stats,
    /// Only recent steps are held in memory ([`Client::keep_log_in_store`]).
    log_in_store: bool,
    /// Work waiting for steps from the store (see `stored.rs`).
    waits: Vec<stored::Wait>,
    /// The load asked for and not yet answered.
    loading: Option<crate::io::Load>,
    /// Equivocation evidence built when it was found, for a client whose log prefix may
    /// later leave memory.
    loaded_evidence: Vec<Evidence>,
}

impl Client {
    /// A seat at a new table. `key` must be the roster's key of `config.seat`; `root` is a
    /// fresh 32-byte secret (OS randomness) from which every per-hand secret is derived:
    /// persist it with the log.
    pub fn new(config: Config, key: SigningKey, root: [u8; 32]) -> Result<Client, TableError> {
        Client::with_cards(config, key, root, Arc::new(CardTable::new()))
    }

    /// [`Client::new`] sharing a deal card table (it costs about 9 ms to build).
    pub fn with_cards(
        config: Config,
        key: SigningKey,
        root: [u8; 32],
        cards: Arc<CardTable>,
    ) -> Result<Client, TableError> {
        let client = Client::build(config, key, root, cards)?;
        client.check_key()?;
        Ok(client)
    }

    fn check_key(&self) -> Result<(), TableError> {
        if self.replica.roster[self.config.seat as usize] != self.key.verifying_key() {
            return Err(TableError::WrongKey(self.config.seat));
        }
        Ok(())
    }

    fn build(
        config: Config,
        key: SigningKey,
        root: [u8; 32],
        cards: Arc<CardTable>,
    ) -> Result<Client, TableError> {
        if config.seat > 3 {
            return Err(TableError::NoSuchSeat(config.seat));
        }
        if config.host > 3 {
            return Err(TableError::NoSuchSeat(config.host));
        }
        let replica = Replica::new(
            config.table,
            config.host,
            config.roster,
            Some(Me {
                seat: config.seat,
                root,
            }),
            cards,
        );
        Ok(Client {
            config,
            key,
            root,
            replica,
            slots: BTreeMap::new(),
            now: 0,
            clock: StepClock {
                key: (u32::MAX, u32::MAX),
                ..StepClock::default()
            },
            next_retransmit: 0,
            last_request: [0; 4],
            last_reply: [(u32::MAX, 0); 8],
            reply_budget: [(MAX_REPLY_BYTES as u64, 0); 8],
            name: None,
            next_pref: Next::Continue,
            leave_after: None,
            halted_hand: None,
            deferred_votes: Vec::new(),
            restored: false,
            last_checkpoint: None,
            step_evidence: Vec::new(),
            proofs: Vec::new(),
            future_pairs: Vec::new(),
            sanction: 0,
            buffered: [0; 4],
            heard: [0; 4],
            paused: 0,
            opening: None,
            journal: Vec::new(),
            stats: Stats::default(),
            log_in_store: false,
            waits: Vec::new(),
            loading: None,
            loaded_evidence: Vec::new(),
        })
    }

    /// The display name this seat signs with its proposal or its acceptance of the set-up
    /// (control characters dropped, at most [`crate::codec::MAX_NAME_CHARS`] characters):
    /// the name every result of the table shows for the seat, checked by anyone who verifies
    /// the log. Without one the seat signs the set-up without a name (as before names were
    /// signed).
    pub fn set_name(&mut self, name: &str) {
        let name: String = name
            .chars()
            .filter(|c| !c.is_control())
            .take(crate::codec::MAX_NAME_CHARS)
            .collect();
        self.name = Some(name);
    }

    /// Rebuilds a seat from its store (re-verifying the steps after the last checkpoint). On
    /// the first input it re-sends its unfinished entries and asks the others for what it
    /// missed.
    pub fn restore(persisted: Persisted, key: SigningKey) -> Result<Client, TableError> {
        Client::restore_with_cards(persisted, key, Arc::new(CardTable::new()))
    }

    /// [`Client::restore`] sharing a deal card table.
    pub fn restore_with_cards(
        persisted: Persisted,
        key: SigningKey,
        cards: Arc<CardTable>,
    ) -> Result<Client, TableError> {
        let base = persisted.base();
        let Persisted {
            config,
            root,
            log,
            checkpoint,
            own,
        } = persisted;
        let mut client = Client::build(config, key, root, cards)?;
        let mut log = log;
        let rest = match checkpoint {
            Some(cp) => {
                if cp.seq < base || (cp.seq - base) as usize > log.len() {
                    return Err(TableError::Restore {
                        seq: cp.seq,
                        why: format!(
                            "the checkpoint is outside the steps held ({base} to {})",
                            base as usize + log.len()
                        ),
                    });
                }
                // The prefix moves into the replica: nothing of it is copied.
                let rest = log.split_off((cp.seq - base) as usize);
                client.replica = Replica::from_checkpoint(client.replica, cp.clone(), base, log)
                    .map_err(|why| TableError::Restore { seq: cp.seq, why })?;
                client.last_checkpoint = Some(cp);
                rest
            }
            None if base > 0 => {
                return Err(TableError::Restore {
                    seq: base,
                    why: "the steps start after step 0 but there is no checkpoint".into(),
                });
            }
            None => log,
        };
        for rec in rest {
            let seq = client.replica.next_seq();
            let fail = |why: String| TableError::Restore { seq, why };
            if rec.is_abort() {
                client
                    .replica
                    .apply_abort(rec.entries)
                    .map_err(|e| fail(e.to_string()))?;
            } else {
                client.replica.check_step(&rec.entries).map_err(fail)?;
                client
                    .replica
                    .process(rec.entries)
                    .map_err(|e| fail(e.to_string()))?;
            }
            if let Some(cp) = client.replica.checkpoint() {
                client.last_checkpoint = Some(cp);
            }
        }
        for e in own {
            if e.hand >= client.replica.hand_no {
                let slot = client.slots.entry((e.hand, e.seq)).or_default();
                let seat = e.seat as usize & 3;
                if e.is_vote() {
                    slot.votes[seat] = Some(e);
                } else if e.seq >= client.replica.next_seq() {
                    slot.entries[seat] = Some(e);
                }
            }
        }
        client.check_key()?;
        client.restored = true;
        Ok(client)
    }

    /// Everything to persist now (the same as folding every journal record so far).
    pub fn persistent(&self) -> Persisted {
        let mut own: Vec<Envelope> = Vec::new();
        for ((h, _), slot) in &self.slots {
            if *h < self.replica.hand_no {
                continue;
            }
            let me = self.me() as usize;
            own.extend(slot.entries[me].iter().cloned());
            own.extend(slot.votes[me].iter().cloned());
        }
        Persisted {
            config: self.config.clone(),
            root: self.root,
            log: self.replica.steps().to_vec(),
            checkpoint: self.last_checkpoint.clone(),
            own,
        }
    }

    /// Every seat's concealed tiles at the end of final hand `hand`, when it is the last
    /// final hand and its deal was audited (a won or drawn hand; not an aborted one).
    pub fn revealed(&self, hand: u32) -> Option<&[Vec<mahjong_rules::Card>; 4]> {
        self.replica
            .revealed
            .as_ref()
            .filter(|(h, _)| *h == hand)
            .map(|(_, hands)| hands)
    }

    /// The seats replaced by a bot, each with the seat whose peer runs the bot.
    pub fn controllers(&self) -> [Option<Seat>; 4] {
        self.replica.controllers
    }

    // ---- read access ----

    /// This seat.
    pub fn seat(&self) -> Seat {
        self.config.seat
    }

    fn me(&self) -> Seat {
        self.config.seat
    }

    /// The log hash through the last step.
    pub fn log_hash(&self) -> Hash {
        self.replica.head()
    }

    /// The log held in memory: all of it, from step 0, unless the client keeps its log in
    /// the store ([`Client::keep_log_in_store`]) or was restored from a store starting at its
    /// checkpoint; then it starts at step [`Client::first_step_held`].
    pub fn log(&self) -> &[StepRecord] {
        self.replica.steps()
    }

    /// The number of the first step [`Client::log`] holds (0 unless steps are left in the
    /// store).
    pub fn first_step_held(&self) -> u32 {
        self.replica.base()
    }

    /// The number of the next step (the length of the whole log).
    pub fn next_step(&self) -> u32 {
        self.replica.next_seq()
    }

    /// Every final hand's result.
    pub fn results(&self) -> &[HandResult] {
        &self.replica.results
    }

    /// The session.
    pub fn session(&self) -> Option<&Session> {
        self.replica.session.as_ref()
    }

    /// The agreed set-up.
    pub fn proposal(&self) -> Option<&Proposal> {
        self.replica.proposal.as_ref()
    }

    /// Where the table is.
    pub fn stage(&self) -> &Stage {
        &self.replica.stage
    }

    /// The current hand number (0 during the set-up).
    pub fn hand_number(&self) -> u32 {
        self.replica.hand_no
    }

    /// What this seat sees of the current hand.
    pub fn view(&self) -> Option<SeatView> {
        self.replica.state().map(|s| s.view(self.me()))
    }

    /// The current hand's deal state of this seat (for tools and tests).
    pub fn deal(&self) -> Option<&DealSeat> {
        self.replica.deal_seat()
    }

    /// Every evidence record this seat holds, built now (each equivocation proof is kept
    /// as its two envelopes; the log prefix is copied here, not when it was found).
    pub fn evidence(&self) -> Vec<Evidence> {
        let mut all: Vec<Evidence> = self
            .step_evidence
            .iter()
            .map(|(_, _, e)| e.clone())
            .collect();
        if self.log_in_store {
            all.extend(self.loaded_evidence.iter().cloned());
        } else {
            all.extend(self.proofs.iter().map(|p| self.proof_evidence(p)));
        }
        all
    }

    /// The seats this seat holds evidence against, with the hand of each offence (cheap:
    /// builds no record).
    pub fn proven(&self) -> Vec<(u32, Seat)> {
        let mut all: Vec<(u32, Seat)> = self
            .step_evidence
            .iter()
            .map(|(h, s, _)| (*h, *s))
            .collect();
        all.extend(self.proofs.iter().map(|p| (p.hand, p.seat)));
        all
    }

    /// An equivocation record from the log held (from step 0; see `stored.rs` otherwise).
    fn proof_evidence(&self, p: &Proof) -> Evidence {
        Evidence {
            log: self.replica.logged(0, p.upto as usize).to_vec(),
            charge: Charge::Equivocation {
                first: Box::new(p.first.clone()),
                second: Box::new(p.second.clone()),
            },
        }
    }

    /// The result the settlement step signs, while the table is there.
    pub fn settling(&self) -> Option<&HandResult> {
        self.replica.pending_result.as_ref()
    }

    /// Bytes of other seats' envelopes this seat holds for steps it has not logged (each
    /// seat's share is at most [`MAX_BUFFER_BYTES`]).
    pub fn buffered(&self) -> usize {
        self.buffered.iter().sum()
    }

    /// Whether the table is paused: two or more seats silent at once (see
    /// [`TableEvent::Paused`]).
    pub fn is_paused(&self) -> bool {
        self.paused != 0
    }

    /// Traffic counters.
    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// Whether the table is over for this seat.
    pub fn is_over(&self) -> bool {
        matches!(self.replica.stage, Stage::Over(_))
    }

    // ---- the one entry point ----

    /// Takes one input at time `now` (milliseconds, any monotonic origin).
    pub fn handle(&mut self, now: u64, input: Input) -> Output {
        self.now = self.now.max(now);
        let mut out = Output::default();
        if self.restored {
            self.restored = false;
            self.retransmit(&mut out, true);
        }
        match input {
            Input::Frame(bytes) => {
                if let Err(e) = self.on_frame(&bytes, &mut out) {
                    out.rejected.push(Rejected::Frame(e));
                }
            }
            Input::Act(action) => {
                if let Err(e) = self.on_act(action, false, &mut out) {
                    out.rejected.push(Rejected::Act(e));
                }
            }
            Input::Tick => {}
            Input::Propose {
                options,
                stake,
                length,
            } => {
                if let Err(e) = self.on_propose(*options, stake, length, &mut out) {
                    out.rejected.push(Rejected::Act(e));
                }
            }
            Input::Accept | Input::Decline => {
                if let Err(e) = self.on_accept(input == Input::Accept, &mut out) {
                    out.rejected.push(Rejected::Act(e));
                }
            }
            Input::Stop => self.next_pref = Next::Stop,
            Input::Leave => self.on_leave(&mut out),
            Input::Stored { from, steps } => self.on_stored(from, steps, &mut out),
        }
        self.advance(&mut out);
        self.on_timers(&mut out);
        self.advance(&mut out);
        out.deadline = self.deadline();
        out.journal.append(&mut self.journal);
        out
    }
}

/// For each step's votes (by seat), the three votes of the other seats naming one culprit,
/// where a step has them: the aborts that may be applied.
pub(super) fn abort_candidates<'a>(
    steps: impl Iterator<Item = &'a [Option<Envelope>; 4]>,
) -> Vec<Vec<Envelope>> {
    steps
        .filter_map(|votes| {
            (0..4u8).find_map(|culprit| {
                let three: Vec<Envelope> = votes
                    .iter()
                    .flatten()
                    .filter(|v| {
                        matches!(v.body, Body::Abort { culprit: c, .. } if c == culprit)
                            && v.seat != culprit
                    })
                    .cloned()
                    .collect();
                (three.len() == 3).then_some(three)
            })
        })
        .collect()
}
