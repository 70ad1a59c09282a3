//! One seat's peer: bytes and the time go in; frames to send, events and a timer deadline
//! come out. No sockets, threads or clock of its own.
//!
//! Implements ARCHITECTURE.md "Data flow of one move" and "Agreement" (timers, silent seats,
//! retransmission) and docs/rules.en.md §4.8 (timers) and §6 (leavers). The [`Client`] feeds complete
//! steps to its replica (`crate::replica`), makes this seat's own entries (automatically for
//! the deal, settlement and roster steps; from [`Input::Act`] or its own timer for moves),
//! buffers entries that arrive early, drops duplicates, detects equivocation, watches for
//! silent seats and votes aborts, and answers requests for missed entries. Frames and
//! requests are in `client/frames.rs`, timers in `client/timers.rs`; the interface types and the journal in
//! [`crate::io`].

mod follow;
mod frames;
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

/// Largest reply to one request, in bytes (the rest is asked for again).
pub const MAX_REPLY_BYTES: usize = 4 << 20;

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
    last_reply: [(u32, u64); 4],
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
            last_reply: [(u32::MAX, 0); 4],
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
        let Persisted {
            config,
            root,
            base,
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
            base: self.replica.base(),
            log: self.replica.steps().to_vec(),
            checkpoint: self.last_checkpoint.clone(),
            own,
        }
    }

    /// The client for a bot seat this seat controls (see [`TableEvent::RunBot`]): its key and
    /// root are derived from this seat's root, so this seat can always rebuild it. It starts
    /// at this seat's last checkpoint, which must already hold the roster step that gave the
    /// seat to the bot (it does once that step is logged: the next hand's first step is a
    /// checkpoint). Trust: the controlling peer holds the bot's keys and sees its tiles (see
    /// the crate header).
    ///
    /// # Errors
    ///
    /// [`BotError::NotController`] when this seat does not run that seat's bot;
    /// [`BotError::NoCheckpoint`] / [`BotError::NotYetCheckpointed`] when the roster step is
    /// not yet behind a checkpoint (retry later, [`BotError::is_pending`]);
    /// [`BotError::Restore`] when the bot's client cannot be rebuilt from the log.
    pub fn bot_client(&self, seat: Seat) -> Result<Client, BotError> {
        let (key, root, cp) = self.bot_origin(seat)?;
        let base = self.replica.base();
        if cp.seq < base || cp.seq > self.replica.next_seq() {
            return Err(BotError::Restore {
                seat,
                why: format!("the checkpoint at step {} is outside the log held", cp.seq),
            });
        }
        let prefix = self.replica.logged(base as usize, cp.seq as usize);
        let persisted = Persisted {
            config: Config {
                seat,
                ..self.config.clone()
            },
            root,
            base,
            log: prefix.to_vec(),
            checkpoint: Some(cp),
            own: Vec::new(),
        };
        Client::restore_with_cards(persisted, key, self.replica.cards()).map_err(|e| {
            BotError::Restore {
                seat,
                why: e.to_string(),
            }
        })
    }

    /// The signing key of a bot seat this seat controls (the one [`Client::bot_client`]
    /// gives it): to keep it with the bot's own journal, and to restore the bot from that
    /// journal after a restart ([`Client::restore`]) rather than from this seat's checkpoint,
    /// which would forget what the bot signed since. Errors as [`Client::bot_client`].
    pub fn bot_key(&self, seat: Seat) -> Result<SigningKey, BotError> {
        Ok(self.bot_origin(seat)?.0)
    }

    /// The bot's key and root and the checkpoint it starts from.
    fn bot_origin(&self, seat: Seat) -> Result<(SigningKey, [u8; 32], Checkpoint), BotError> {
        let controller = self
            .replica
            .controllers
            .get(seat as usize)
            .copied()
            .flatten();
        if seat > 3 || controller != Some(self.me()) {
            return Err(BotError::NotController {
                seat,
                me: self.me(),
                controller,
            });
        }
        let cp = self.last_checkpoint.clone().ok_or(BotError::NoCheckpoint)?;
        if cp.seq > self.replica.next_seq() {
            return Err(BotError::Restore {
                seat,
                why: format!("the checkpoint at step {} is past the log", cp.seq),
            });
        }
        // The roster step is the step before a hand boundary: held in memory.
        let prefix = self
            .replica
            .logged(self.replica.base() as usize, cp.seq as usize);
        let roster_seq = prefix
            .iter()
            .rev()
            .find_map(|rec| {
                rec.entries.iter().find_map(|e| match &e.body {
                    Body::Roster(crate::codec::RosterVote::Replace { seat: s, .. })
                        if *s == seat =>
                    {
                        Some(e.seq)
                    }
                    _ => None,
                })
            })
            .ok_or(BotError::NotYetCheckpointed { seat })?;
        let (key, root) =
            self.replica
                .bot_secrets(seat, roster_seq)
                .ok_or_else(|| BotError::Restore {
                    seat,
                    why: "this client holds no root secret".into(),
                })?;
        Ok((key, root, cp))
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

    // ---- local inputs ----

    fn on_propose(
        &mut self,
        options: Options,
        stake: Money,
        length: SessionLength,
        out: &mut Output,
    ) -> Result<(), ActError> {
        let exp = self.replica.expected().ok_or(ActError::Closed)?;
        if exp.kind != StepKind::Propose || !exp.speaks(self.me()) || self.has_entry(&exp) {
            return Err(ActError::CannotPropose);
        }
        options
            .validate()
            .map_err(|e| ActError::BadProposal(e.to_string()))?;
        if stake.0 <= 0 {
            return Err(ActError::BadProposal("the stake must be positive".into()));
        }
        let p = Proposal::new(
            self.config.table,
            self.me(),
            self.config.roster,
            options,
            stake,
            length,
        );
        self.send_entry(&exp, Body::Propose(Box::new(p)), out);
        Ok(())
    }

    fn on_accept(&mut self, accept: bool, out: &mut Output) -> Result<(), ActError> {
        let exp = self.replica.expected().ok_or(ActError::Closed)?;
        if exp.kind != StepKind::Accept || !exp.speaks(self.me()) || self.has_entry(&exp) {
            return Err(ActError::NothingToAccept);
        }
        let body = match (&self.replica.proposal, accept) {
            (Some(p), true) => Body::Accept { proposal: p.hash() },
            _ => Body::Decline,
        };
        self.send_entry(&exp, body, out);
        Ok(())
    }

    fn on_leave(&mut self, out: &mut Output) {
        let Some(exp) = self.replica.expected() else {
            return;
        };
        if self.paused != 0 {
            // Two others are silent: no abort can form. This seat leaves with nothing
            // booked for the unfinished hand; its journal still holds the hand, so a later
            // restore resumes it.
            self.replica.over(Ending::Left, &mut out.events);
            return;
        }
        match exp.kind {
            StepKind::Propose => {}
            StepKind::Accept => {
                let _ = self.on_accept(false, out);
            }
            StepKind::Roster => self.next_pref = Next::Stop,
            StepKind::Settle if !self.has_entry(&exp) => self.next_pref = Next::Leave,
            StepKind::Settle => {
                // Its settlement is signed already: a vote against itself now would
                // contradict it. The hand is settled as agreed; the seat leaves at the next
                // hand's first step (see `advance`), so the others replace it at once.
                self.leave_after = Some(exp.hand);
            }
            _ => {
                // Leave now: vote against this seat and send nothing more in this hand.
                self.next_pref = Next::Leave;
                self.vote(exp.seq, self.me(), out);
                self.halted_hand = Some(exp.hand);
            }
        }
    }

    fn on_act(
        &mut self,
        action: Action,
        timed_out: bool,
        out: &mut Output,
    ) -> Result<(), ActError> {
        if action == Action::Leave {
            self.on_leave(out);
            return Ok(());
        }
        let exp = self.replica.expected().ok_or(ActError::Closed)?;
        if !matches!(exp.kind, StepKind::Play { .. }) || !exp.speaks(self.me()) {
            return Err(ActError::NotYourTurn);
        }
        if self.halted_hand == Some(exp.hand) {
            return Err(ActError::Closed);
        }
        if self.has_entry(&exp) {
            return Err(ActError::AlreadyActed);
        }
        let key = self.key.clone();
        let play = self.replica.make_play(action, timed_out, &key)?;
        let body = match (exp.kind, self.replica.claim_nonce(exp.seq)) {
            (StepKind::Play { claim: true }, Some(nonce)) => {
                // A claim answer: committed now, opened in the next step.
                let commitment = claim_commitment(&play, &nonce);
                self.opening = Some((exp.hand, exp.seq, play));
                Body::ClaimCommit { commitment }
            }
            _ => Body::Play(play),
        };
        self.send_entry(&exp, body, out);
        Ok(())
    }

    /// This seat's opening of its claim commitment of the step before `exp`: the answer kept
    /// when it committed, or, after a restart, the legal answer whose commitment (with the
    /// nonce derived from the root) is the logged one.
    fn opening(&mut self, exp: &Expect) -> Option<Body> {
        let seq = exp.seq.checked_sub(1)?;
        let nonce = self.replica.claim_nonce(seq)?;
        if let Some((h, s, play)) = &self.opening
            && (*h, *s) == (exp.hand, seq)
        {
            return Some(Body::ClaimOpen {
                play: play.clone(),
                nonce,
            });
        }
        let me = self.me();
        let committed = self
            .replica
            .step(seq)?
            .entries
            .iter()
            .find_map(|e| match e.body {
                Body::ClaimCommit { commitment } if e.seat == me => Some(commitment),
                _ => None,
            })?;
        let legal = self.view()?.legal;
        let key = self.key.clone();
        for action in legal {
            for timed_out in [false, true] {
                if let Ok(play) = self.replica.make_play(action.clone(), timed_out, &key)
                    && claim_commitment(&play, &nonce) == committed
                {
                    self.opening = Some((exp.hand, seq, play.clone()));
                    return Some(Body::ClaimOpen { play, nonce });
                }
            }
        }
        None
    }

    // ---- the step loop ----

    fn has_entry(&self, exp: &Expect) -> bool {
        self.slots
            .get(&(exp.hand, exp.seq))
            .is_some_and(|s| s.entries[self.me() as usize].is_some())
    }

    fn sign(&self, header: Header, body: Body) -> Envelope {
        Envelope::sign(self.config.table, header, self.me(), body, &self.key)
    }

    fn broadcast(&mut self, frame: Vec<u8>, out: &mut Output) {
        self.stats.broadcast_frames += 1;
        self.stats.broadcast_bytes += frame.len() as u64;
        out.send.push(frame);
    }

    fn send_entry(&mut self, exp: &Expect, body: Body, out: &mut Output) {
        let env = self.sign(
            Header {
                hand: exp.hand,
                seq: exp.seq,
                prev_hash: exp.prev_hash,
            },
            body,
        );
        self.journal.push(Record::Own(Box::new(env.clone())));
        self.broadcast(env.encode(), out);
        let slot = self.slots.entry((exp.hand, exp.seq)).or_default();
        slot.entries[self.config.seat as usize] = Some(env);
    }

    /// Whether this seat has signed its settlement of the current hand.
    fn signed_settle(&self) -> bool {
        self.replica.stage == Stage::Settle
            && self
                .slots
                .get(&(self.replica.hand_no, self.replica.next_seq()))
                .is_some_and(|s| s.entries[self.me() as usize].is_some())
    }

    /// The seats this seat voted against in the current hand before step `before` (a bit
    /// per seat).
    fn my_votes_before(&self, before: u32) -> u8 {
        let hand = self.replica.hand_no;
        let me = self.me() as usize;
        self.slots
            .range((hand, 0)..(hand, before))
            .filter_map(|(_, slot)| match slot.votes[me].as_ref().map(|v| &v.body) {
                Some(Body::Abort { culprit, .. }) => Some(1u8 << (culprit & 3)),
                _ => None,
            })
            .fold(0, |m, b| m | b)
    }

    /// The voids of this seat's earlier votes for the settlement step `exp`: `Ok(None)` if
    /// it did not vote, `Ok(Some)` with one plain `Settle` of another seat outside {this
    /// seat, culprit} per culprit, `Err` while one is missing (it cannot sign yet).
    fn settle_voids(&self, exp: &Expect) -> Result<Option<Vec<Void>>, ()> {
        let culprits = self.my_votes_before(exp.seq);
        if culprits == 0 {
            return Ok(None);
        }
        let me = self.me();
        let result = self.replica.pending_result.as_ref().map(HandResult::hash);
        let slot = self.slots.get(&(exp.hand, exp.seq));
        let plain = |w: Seat| {
            slot.and_then(|s| s.entries[w as usize].as_ref())
                .filter(|e| {
                    e.prev_hash == exp.prev_hash
                        && matches!(e.body, Body::Settle { result: r, .. } if Some(r) == result)
                })
                .and_then(Void::of)
        };
        let mut voids: Vec<Void> = Vec::new();
        for c in (0..4u8).filter(|c| culprits & (1 << c) != 0) {
            if voids.iter().any(|v| v.seat != c) {
                continue;
            }
            let v = (0..4u8)
                .filter(|&w| w != me && w != c)
                .find_map(plain)
                .ok_or(())?;
            voids.push(v);
        }
        Ok(Some(voids))
    }

    /// Votes to abort the current hand at step `seq`, naming `culprit` (once per step).
    ///
    /// A seat votes at most once in a hand before its settlement step, unless it names a
    /// seat proven at fault (or itself, leaving): two aborts of one hand at different steps
    /// could otherwise each gather three votes at different seats. After signing its
    /// settlement it votes only at that step (a vote there signs the settled result), and
    /// only once its earlier votes are voided.
    fn vote(&mut self, seq: u32, culprit: Seat, out: &mut Output) {
        let hand = self.replica.hand_no;
        let me = self.me() as usize;
        if self
            .slots
            .get(&(hand, seq))
            .is_some_and(|s| s.votes[me].is_some())
        {
            return;
        }
        let next = self.replica.next_seq();
        let settle_step = self.replica.stage == Stage::Settle && seq == next;
        let free = self.sanction & (1 << culprit) != 0 || culprit == self.me();
        if self.signed_settle() && !settle_step {
            return;
        }
        if !free {
            if !settle_step && self.my_votes_before(u32::MAX) != 0 {
                return;
            }
            if settle_step
                && let Some(exp) = self.replica.expected()
                && self.settle_voids(&exp).is_err()
            {
                return;
            }
        }
        let (Some(result), Some(prev_hash)) = (
            self.replica.abort_result(seq, culprit),
            self.replica.prev_of(seq),
        ) else {
            return;
        };
        let env = self.sign(
            Header {
                hand,
                seq,
                prev_hash,
            },
            Body::Abort {
                culprit,
                result: result.hash(),
            },
        );
        self.journal.push(Record::Own(Box::new(env.clone())));
        self.broadcast(env.encode(), out);
        self.slots.entry((hand, seq)).or_default().votes[me] = Some(env);
    }

    /// Processes everything that can be processed, and makes this seat's automatic entries.
    fn advance(&mut self, out: &mut Output) {
        for _ in 0..100_000 {
            if self.is_over() {
                return;
            }
            self.cast_deferred_votes(out);
            if self.try_abort(out) {
                continue;
            }
            let Some(exp) = self.replica.expected() else {
                return;
            };
            if self.clock.key != (exp.hand, exp.seq) {
                self.clock = StepClock {
                    key: (exp.hand, exp.seq),
                    started: self.now,
                    limit_from: self.now,
                    ..StepClock::default()
                };
                self.next_retransmit = self.now + RETRANSMIT_MS;
            }
            if let Some(h) = self.leave_after
                && exp.hand > h
                && exp.kind.abortable()
            {
                self.leave_after = None;
                self.next_pref = Next::Leave;
                self.vote(exp.seq, self.me(), out);
                self.halted_hand = Some(exp.hand);
            }
            if self.halted_hand == Some(exp.hand) {
                return;
            }
            if self.try_complete(&exp, out) {
                continue;
            }
            if !self.produce(&exp, out) {
                return;
            }
        }
    }

    fn cast_deferred_votes(&mut self, out: &mut Output) {
        let halted = self.halted_hand == Some(self.replica.hand_no);
        if self.sanction != 0
            && !halted
            && self.replica.expected().is_some_and(|e| e.kind.abortable())
        {
            // Every seat holding the proof votes at the same step: the settlement step if
            // the hand is there, else the hand's first step.
            let seq = if self.replica.stage == Stage::Settle {
                self.replica.next_seq()
            } else {
                self.replica.hand_first_seq
            };
            let sanction = self.sanction;
            for culprit in (0..4u8).filter(|s| sanction & (1 << s) != 0) {
                self.vote(seq, culprit, out);
            }
        }
        if self.deferred_votes.is_empty() {
            return;
        }
        let hand = self.replica.hand_no;
        let next = self.replica.next_seq();
        let votes = std::mem::take(&mut self.deferred_votes);
        let expected = self.replica.expected();
        for (h, seq, culprit) in votes {
            if h != hand {
                continue;
            }
            if seq > next {
                // A seat that says it leaves at a later step but has not sent its entry for
                // this one (it stopped before it could: its store failed) will never send
                // it: this step is voted on now, as after the disconnect limit, rather than
                // waited on for that long.
                if let Some(exp) = expected.as_ref().filter(|e| e.seq == next)
                    && exp.kind.abortable()
                    && self.missing(exp) & (1 << (culprit & 3)) != 0
                    && self.halted_hand != Some(hand)
                {
                    self.vote(next, culprit, out);
                }
                self.deferred_votes.push((h, seq, culprit));
                continue;
            }
            // A no-op where the hand cannot be aborted (then there is nothing to vote on).
            self.vote(seq, culprit, out);
        }
    }

    /// Applies an abort whose three votes are in.
    fn try_abort(&mut self, out: &mut Output) -> bool {
        let hand = self.replica.hand_no;
        let candidates = abort_candidates(
            self.slots
                .range((hand, 0)..(hand, u32::MAX))
                .map(|(_, slot)| &slot.votes),
        );
        let signed = self.signed_settle();
        let next = self.replica.next_seq();
        let hand_no = self.replica.hand_no;
        for votes in candidates {
            if signed && votes[0].seq != next {
                // This seat signed the settlement. If a voter signed it too, the hand ends
                // with the settlement (that voter's vote and settlement are proof against
                // it). If none did, the settlement can never complete: the voters hold the
                // abort (two of them may have booked it already, a third having kept its
                // vote back until now), and this seat takes it too rather than wait at the
                // settlement for good.
                let settled = self.slots.get(&(hand_no, next)).is_some_and(|slot| {
                    votes
                        .iter()
                        .any(|v| slot.entries[v.seat as usize & 3].is_some())
                });
                if settled {
                    continue;
                }
            }
            let Ok(checked) = self.replica.check_abort(&votes) else {
                continue;
            };
            self.sanction &= !(1 << (checked.0 & 3));
            let seq = votes[0].seq;
            let events = self.replica.apply_checked_abort(checked, votes);
            self.journal.push(Record::Truncate(seq));
            if let Some(rec) = self.replica.steps().last() {
                self.journal.push(Record::Step(rec.clone()));
            }
            self.after_step(out, events);
            return true;
        }
        false
    }

    /// Processes the current step if every entry is in.
    fn try_complete(&mut self, exp: &Expect, out: &mut Output) -> bool {
        let key = (exp.hand, exp.seq);
        let Some(slot) = self.slots.get_mut(&key) else {
            return false;
        };
        let mut forks = Vec::new();
        for seat in 0..4u8 {
            let keep = match &slot.entries[seat as usize] {
                Some(e) => {
                    if e.prev_hash != exp.prev_hash {
                        forks.push(seat);
                    }
                    e.prev_hash == exp.prev_hash && exp.speaks(seat) && exp.kind.takes(&e.body)
                }
                None => true,
            };
            if !keep {
                slot.entries[seat as usize] = None;
            }
        }
        let complete = (0..4).all(|s| !exp.speaks(s) || slot.entries[s as usize].is_some());
        let entries: Vec<Envelope> = slot.entries.iter().flatten().cloned().collect();
        for seat in forks {
            let first = self.replica.hand_first_seq;
            self.request(seat, first, out);
        }
        if !complete {
            return false;
        }
        match self.replica.process(entries.clone()) {
            Ok(events) => {
                if let Some(slot) = self.slots.get_mut(&key) {
                    slot.entries = Default::default();
                    slot.entry_bytes = [0; 4];
                }
                self.journal.push(Record::Step(StepRecord { entries }));
                self.after_step(out, events);
                true
            }
            Err(StepError::Fault(fault)) => {
                self.halted_hand = Some(exp.hand);
                if self.replica.base() == 0 {
                    let evidence = Evidence {
                        log: self.replica.steps().to_vec(),
                        charge: Charge::Step { entries },
                    };
                    self.step_evidence
                        .push((exp.hand, fault.seat, evidence.clone()));
                    out.events.push(TableEvent::Evidence(Box::new(evidence)));
                } else {
                    // Its log starts at step 0, in the store: the event follows the load.
                    let wait = stored::Wait::Step {
                        hand: exp.hand,
                        seat: fault.seat,
                        upto: self.replica.next_seq(),
                        entries,
                    };
                    self.wait_for_store(wait, out);
                }
                // Proven at fault: this seat's vote against it is not limited to one a hand.
                self.sanction |= 1 << (fault.seat & 3);
                self.blame(exp, fault.seat, Ending::Halted(fault.to_string()), out);
                false
            }
            Err(StepError::Internal(reason)) => {
                self.halted_hand = Some(exp.hand);
                self.replica.over(Ending::Halted(reason), &mut out.events);
                false
            }
        }
    }

    /// `seat` is to blame at step `exp`: a vote to abort it where a hand can be aborted; a
    /// failed set-up at the proposal or an acceptance; otherwise the table ends `otherwise`.
    fn blame(&mut self, exp: &Expect, seat: Seat, otherwise: Ending, out: &mut Output) {
        if exp.kind.abortable() {
            self.vote(exp.seq, seat, out);
        } else if matches!(exp.kind, StepKind::Propose | StepKind::Accept) {
            self.replica
                .over(Ending::SetupFailed(seat), &mut out.events);
        } else {
            self.replica.over(otherwise, &mut out.events);
        }
    }

    fn after_step(&mut self, out: &mut Output, events: Vec<TableEvent>) {
        out.events.extend(events);
        let hand = self.replica.hand_no;
        // Forget finished hands' slots.
        self.slots.retain(|(h, _), _| *h >= hand);
        self.deferred_votes.retain(|(h, _, _)| *h >= hand);
        let mut buffered = [0usize; 4];
        for slot in self.slots.values() {
            for s in 0..4 {
                buffered[s] += (slot.entry_bytes[s] + slot.vote_bytes[s]) as usize;
            }
        }
        self.buffered = buffered;
        // A seat replaced by a bot is no longer the one proven at fault.
        for s in 0..4u8 {
            if self.replica.controllers[s as usize].is_some() {
                self.sanction &= !(1 << s);
            }
        }
        if let Some(cp) = self.replica.checkpoint() {
            self.journal.push(Record::Checkpoint(Box::new(cp.clone())));
            self.last_checkpoint = Some(cp);
            if self.log_in_store && hand > 1 {
                // The hand before this one stays (late requests and envelopes are mostly
                // about it); the hands before that are in the store.
                let (start, _) = self.replica.range_of(hand - 1);
                self.replica.prune_before(start);
            }
            for (first, second) in std::mem::take(&mut self.future_pairs) {
                if second.hand == hand {
                    self.prove(first, second, out);
                }
            }
            self.end_if_split_at_boundary(out);
        }
    }

    /// Makes this seat's entry for the step if it is automatic, or prompts for it. True when
    /// an entry was made (the step may now be complete).
    fn produce(&mut self, exp: &Expect, out: &mut Output) -> bool {
        if !exp.speaks(self.me()) || self.has_entry(exp) {
            return false;
        }
        let key = self.key.clone();
        let body = match exp.kind {
            StepKind::Propose => return false,
            StepKind::Accept => return false,
            StepKind::Play { claim } => {
                if !self.clock.prompted {
                    self.clock.prompted = true;
                    if let Some(view) = self.view() {
                        out.events.push(TableEvent::YourTurn {
                            view: Box::new(view),
                            deadline: self.clock.started + self.own_timer_ms(claim),
                        });
                    }
                }
                return false;
            }
            StepKind::Deal => match self.replica.make_deal(&key) {
                Ok(body) => body,
                Err(e) => {
                    out.rejected.push(Rejected::Act(e));
                    return false;
                }
            },
            StepKind::Open => match self.opening(exp) {
                Some(b) => b,
                None => return false,
            },
            StepKind::Settle => {
                // A seat that voted earlier in the hand signs only once its votes are void.
                let Ok(voids) = self.settle_voids(exp) else {
                    return false;
                };
                match self.replica.make_settle(self.next_pref, voids) {
                    Some(b) => b,
                    None => return false,
                }
            }
            StepKind::Roster => match self.replica.make_roster(self.next_pref == Next::Stop) {
                Some(b) => b,
                None => return false,
            },
        };
        self.send_entry(exp, body, out);
        true
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
