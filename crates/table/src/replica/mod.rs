//! The replicated state machine: the table's log, step by step, from the set-up through every
//! hand, its settlement and roster changes.
//!
//! Implements ARCHITECTURE.md "Agreement" and docs/rules.en.md §7 (set-up, sessions, leavers). A
//! `Replica` is a pure function of the log: it is given complete steps in order (every
//! entry the step requires, sorted by seat) and moves on, or names the seat whose signed entry
//! is at fault. The live [`crate::Client`] feeds it what the network delivers; the
//! [`crate::Evidence`] verifier feeds it a recorded log. Every honest peer runs the same
//! replica over the same log and so holds the same state (its own secrets aside), the same log
//! hash and the same results.
//!
//! Table-level steps: `Propose` (the host), `Accept` (the three others), then per hand the
//! steps of [`crate::hand`], then `Settle` (all four sign the result and say whether they go
//! on), and after a seat left, `Roster` (the three others replace it by a bot or stop). An
//! abort (three votes) can end a hand at any of its steps; see `Replica::apply_abort`.

mod abort;
mod log;

use std::sync::Arc;

use ed25519_dalek::{SigningKey, VerifyingKey};
use mahjong_deal::{CardTable, DealSeat};
use mahjong_rules::scoring::leaver_payments;
use mahjong_rules::{HandState, Money, Outcome, Seat, Session};
use serde::{Deserialize, Serialize};

use crate::codec::{
    Body, Envelope, Hash, Next, Play, Proposal, RosterVote, chain, genesis, options_hash,
    tagged_hash,
};
use crate::error::{ActError, Fault, Offence, StepError};
use crate::event::TableEvent;
use crate::hand::{HandPlay, HandStage};

pub use crate::record::{Ending, HandResult, StepRecord};

/// Where the table is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Stage {
    /// Waiting for the host's proposal.
    Propose,
    /// Waiting for the others' acceptance.
    Accept,
    /// In a hand.
    Hand(HandStage),
    /// Signing the result.
    Settle,
    /// Replacing a seat that left.
    Roster {
        /// The seat that left.
        leaver: Seat,
    },
    /// Over.
    Over(Ending),
}

/// What the next step takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StepKind {
    Propose,
    Accept,
    Deal,
    /// A move; in a claim window, the committed answer.
    Play {
        claim: bool,
    },
    /// The opening of the claim answers committed in the step before.
    Open,
    Settle,
    Roster,
}

impl StepKind {
    /// Whether an entry body fits this step.
    pub fn takes(self, body: &Body) -> bool {
        matches!(
            (self, body),
            (StepKind::Propose, Body::Propose(_) | Body::ProposeAs { .. })
                | (
                    StepKind::Accept,
                    Body::Accept { .. } | Body::AcceptAs { .. } | Body::Decline
                )
                | (StepKind::Deal, Body::Deal(_))
                | (StepKind::Play { claim: false }, Body::Play(_))
                | (StepKind::Play { claim: true }, Body::ClaimCommit { .. })
                | (StepKind::Open, Body::ClaimOpen { .. })
                | (
                    StepKind::Settle,
                    Body::Settle { .. } | Body::SettleVoided { .. }
                )
                | (StepKind::Roster, Body::Roster(_))
        )
    }

    /// Whether a hand can be aborted at this step.
    pub fn abortable(self) -> bool {
        matches!(
            self,
            StepKind::Deal | StepKind::Play { .. } | StepKind::Open | StepKind::Settle
        )
    }
}

/// The next step: who must speak and what.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Expect {
    pub hand: u32,
    pub seq: u32,
    pub prev_hash: Hash,
    pub speakers: u8,
    pub kind: StepKind,
}

impl Expect {
    pub fn speaks(&self, seat: Seat) -> bool {
        self.speakers & (1 << seat) != 0
    }
}

/// The replica's state at a hand boundary: enough to go on from there without replaying the
/// hands before (a restarted seat trusts its own persisted checkpoint).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// Steps in the log before it.
    pub seq: u32,
    /// The log hash through step `seq - 1`.
    pub head: Hash,
    /// The stage (the first step of a hand, a roster step, or over).
    pub stage: Stage,
    /// The current hand number.
    pub hand: u32,
    /// The roster in force.
    pub roster: [VerifyingKey; 4],
    /// Bot seats and the seat running each.
    pub controllers: [Option<Seat>; 4],
    /// The agreed set-up.
    pub proposal: Option<Proposal>,
    /// The session.
    pub session: Option<Session>,
    /// Every hand's result so far.
    pub results: Vec<HandResult>,
}

/// This seat's identity in the replica (none for a verifier).
#[derive(Clone, Copy)]
pub(crate) struct Me {
    pub seat: Seat,
    pub root: [u8; 32],
}

/// The replicated table.
#[derive(Clone)]
pub(crate) struct Replica {
    pub table: [u8; 32],
    pub host: Seat,
    pub initial_roster: [VerifyingKey; 4],
    pub me: Option<Me>,
    cards: Arc<CardTable>,
    /// The steps held in memory: `log[i]` is step `base + i` (see [`Replica::prune_before`]).
    log: Vec<StepRecord>,
    /// `heads[i]`: the log hash through step `base + i`.
    heads: Vec<Hash>,
    /// Steps before it are not held in memory (they are in the seat's store).
    base: u32,
    /// The log hash through step `base - 1` (the genesis when `base` is 0).
    base_head: Hash,
    /// The first step of each hand no longer held in memory (eight bytes a hand).
    pruned_hands: Vec<(u32, u32)>,
    genesis: Hash,
    pub stage: Stage,
    pub hand_no: u32,
    pub hand_first_seq: u32,
    pub roster: [VerifyingKey; 4],
    pub controllers: [Option<Seat>; 4],
    pub proposal: Option<Proposal>,
    pub session: Option<Session>,
    pub hand: Option<Box<HandPlay>>,
    pub results: Vec<HandResult>,
    /// The result being signed in the `Settle` step.
    pub pending_result: Option<HandResult>,
    /// The last final hand's concealed tiles of every seat, if its deal was audited.
    pub revealed: Option<(u32, [Vec<mahjong_rules::Card>; 4])>,
}

impl Replica {
    /// A replica at an empty table.
    pub fn new(
        table: [u8; 32],
        host: Seat,
        roster: [VerifyingKey; 4],
        me: Option<Me>,
        cards: Arc<CardTable>,
    ) -> Replica {
        Replica {
            table,
            host,
            initial_roster: roster,
            me,
            cards,
            log: Vec::new(),
            heads: Vec::new(),
            base: 0,
            base_head: genesis(&table),
            pruned_hands: Vec::new(),
            genesis: genesis(&table),
            stage: Stage::Propose,
            hand_no: 0,
            hand_first_seq: 0,
            roster,
            controllers: [None; 4],
            proposal: None,
            session: None,
            hand: None,
            results: Vec::new(),
            pending_result: None,
            revealed: None,
        }
    }

    /// A replica from a checkpoint and the steps `from..cp.seq` before it (all of them when
    /// `from` is 0). Only those steps are hashed: that they end at the checkpoint's head is
    /// checked from the first one's `prev_hash` on (a restarted seat trusts its own
    /// checkpoint, so the steps before `from`, which stay in the store, are not re-hashed).
    pub fn from_checkpoint(
        base: Replica,
        cp: Checkpoint,
        from: u32,
        log: Vec<StepRecord>,
    ) -> Result<Replica, String> {
        let mut r = base;
        if from as usize + log.len() != cp.seq as usize {
            return Err(format!(
                "checkpoint at step {} but steps {from} to {} logged",
                cp.seq,
                from as usize + log.len()
            ));
        }
        let start = match (from, log.first().and_then(|rec| rec.entries.first())) {
            (0, _) => r.genesis,
            (_, Some(e)) => e.prev_hash,
            (_, None) => cp.head,
        };
        let mut head = start;
        for (i, rec) in log.iter().enumerate() {
            head = chain(&head, from + i as u32, &rec.entries);
            r.heads.push(head);
        }
        if head != cp.head {
            return Err("the log does not hash to the checkpoint".into());
        }
        r.base = from;
        r.base_head = start;
        r.log = log;
        r.hand_no = cp.hand;
        r.roster = cp.roster;
        r.controllers = cp.controllers;
        r.proposal = cp.proposal;
        r.session = cp.session;
        r.results = cp.results;
        r.stage = cp.stage.clone();
        if cp.stage == Stage::Hand(HandStage::Commit) {
            r.start_hand();
        }
        Ok(r)
    }

    /// The checkpoint, if the replica is at a hand boundary.
    pub fn checkpoint(&self) -> Option<Checkpoint> {
        let at_boundary = match &self.stage {
            Stage::Hand(HandStage::Commit) => self.hand_first_seq == self.next_seq(),
            Stage::Roster { .. } | Stage::Over(_) => true,
            _ => false,
        };
        at_boundary.then(|| Checkpoint {
            seq: self.next_seq(),
            head: self.head(),
            stage: self.stage.clone(),
            hand: self.hand_no,
            roster: self.roster,
            controllers: self.controllers,
            proposal: self.proposal.clone(),
            session: self.session.clone(),
            results: self.results.clone(),
        })
    }

    /// The next step, unless the table is over.
    pub fn expected(&self) -> Option<Expect> {
        let (speakers, kind) = match &self.stage {
            Stage::Propose => (1 << self.host, StepKind::Propose),
            Stage::Accept => (0b1111 & !(1 << self.host), StepKind::Accept),
            Stage::Hand(stage) => {
                let hand = self.hand.as_ref()?;
                let kind = match stage {
                    HandStage::Play if hand.committed.is_some() => StepKind::Open,
                    HandStage::Play => StepKind::Play {
                        claim: hand.is_claim_window(),
                    },
                    _ => StepKind::Deal,
                };
                (hand.speakers(), kind)
            }
            Stage::Settle => (0b1111, StepKind::Settle),
            Stage::Roster { leaver } => (0b1111 & !(1 << leaver), StepKind::Roster),
            Stage::Over(_) => return None,
        };
        Some(Expect {
            hand: self.hand_no,
            seq: self.next_seq(),
            prev_hash: self.head(),
            speakers,
            kind,
        })
    }

    /// Checks that `entries` are exactly the next step's: one per speaker, in seat order, with
    /// this step's header, a body the step takes, and a valid signature.
    pub fn check_step(&self, entries: &[Envelope]) -> Result<(), String> {
        let exp = self.expected().ok_or("the table is over")?;
        let mut seen = 0u8;
        for e in entries {
            if e.table != self.table
                || e.hand != exp.hand
                || e.seq != exp.seq
                || e.prev_hash != exp.prev_hash
            {
                return Err(format!("seat {}'s entry is for another step", e.seat));
            }
            if e.seat > 3 || !exp.speaks(e.seat) || seen & (1 << e.seat) != 0 {
                return Err(format!("seat {} is not expected here", e.seat));
            }
            if seen >> e.seat != 0 {
                return Err("entries are not in seat order".into());
            }
            seen |= 1 << e.seat;
            e.verify(&self.roster[e.seat as usize])
                .map_err(|err| err.to_string())?;
        }
        if seen != exp.speakers {
            return Err("entries are missing".into());
        }
        Ok(())
    }

    /// Processes the next step (checked with [`Replica::check_step`] by the caller). On
    /// success the step is logged and the table has moved on.
    pub fn process(&mut self, entries: Vec<Envelope>) -> Result<Vec<TableEvent>, StepError> {
        let exp = self
            .expected()
            .ok_or_else(|| StepError::Internal("the table is over".into()))?;
        for e in &entries {
            if !exp.kind.takes(&e.body) {
                return Err(Fault::malformed(e.seat, "an entry this step does not take").into());
            }
        }
        let seq = exp.seq;
        let mut events = Vec::new();
        let mut start_hand = false;
        match self.stage.clone() {
            Stage::Propose => {
                let [e] = entries.as_slice() else {
                    return Err(StepError::Internal("one proposal expected".into()));
                };
                let Some(p) = e.body.proposal() else {
                    return Err(Fault::malformed(e.seat, "expected a proposal").into());
                };
                if e.body
                    .signed_name()
                    .is_some_and(|n| !crate::codec::is_signable_name(n))
                {
                    return Err(Fault::malformed(e.seat, "a name no player could sign").into());
                }
                self.check_proposal(e.seat, p)?;
                self.proposal = Some(Proposal::clone(p));
                self.stage = Stage::Accept;
                events.push(TableEvent::Proposed(Box::new(p.clone())));
            }
            Stage::Accept => {
                let p = self
                    .proposal
                    .clone()
                    .ok_or_else(|| StepError::Internal("no proposal".into()))?;
                let hash = p.hash();
                let mut declined = None;
                for e in &entries {
                    if e.body
                        .signed_name()
                        .is_some_and(|n| !crate::codec::is_signable_name(n))
                    {
                        return Err(Fault::malformed(e.seat, "a name no player could sign").into());
                    }
                    match e.body.accepted() {
                        Some(proposal) if *proposal == hash => {}
                        Some(_) => {
                            return Err(Fault::new(
                                e.seat,
                                Offence::BadProposal("accepted another proposal".into()),
                            )
                            .into());
                        }
                        _ => {
                            declined.get_or_insert(e.seat);
                        }
                    }
                }
                if let Some(seat) = declined {
                    self.over(Ending::SetupFailed(seat), &mut events);
                } else {
                    self.session = Some(Session::new(p.options.clone(), p.stake, p.length));
                    self.hand_no = 1;
                    start_hand = true;
                    events.push(TableEvent::SetupAgreed(Box::new(p)));
                }
            }
            Stage::Hand(_) => {
                let session = self
                    .session
                    .clone()
                    .ok_or_else(|| StepError::Internal("no session".into()))?;
                let hand = self
                    .hand
                    .as_mut()
                    .ok_or_else(|| StepError::Internal("no hand".into()))?;
                hand.process(seq, &session, &entries, &mut events)?;
                let stage = hand.stage;
                if let (HandStage::Audit, Some(outcome)) = (stage, hand.audited.clone()) {
                    let result = self.result_of(outcome)?;
                    self.pending_result = Some(result);
                    self.stage = Stage::Settle;
                } else {
                    self.stage = Stage::Hand(stage);
                }
            }
            Stage::Settle => {
                start_hand = self.process_settle(&entries, &mut events)?;
            }
            Stage::Roster { leaver } => {
                start_hand = self.process_roster(leaver, &entries, &mut events)?;
            }
            Stage::Over(_) => return Err(StepError::Internal("the table is over".into())),
        }
        self.push(entries);
        if start_hand {
            self.start_hand();
        }
        Ok(events)
    }

    fn push(&mut self, entries: Vec<Envelope>) {
        let head = chain(&self.head(), self.next_seq(), &entries);
        self.heads.push(head);
        self.log.push(StepRecord { entries });
    }

    fn start_hand(&mut self) {
        self.hand = Some(Box::new(HandPlay::new(
            self.table,
            self.hand_no,
            self.roster,
            self.me.map(|m| (m.seat, m.root)),
            self.cards.clone(),
        )));
        self.hand_first_seq = self.next_seq();
        self.pending_result = None;
        self.stage = Stage::Hand(HandStage::Commit);
    }

    fn check_proposal(&self, seat: Seat, p: &Proposal) -> Result<(), Fault> {
        let bad = |why: &str| Fault::new(seat, Offence::BadProposal(why.into()));
        if seat != self.host || p.host != seat {
            return Err(bad("not from the host"));
        }
        if p.table != self.table {
            return Err(bad("for another table"));
        }
        if p.roster != self.initial_roster {
            return Err(bad("another roster"));
        }
        if p.preset != p.options.ruleset {
            return Err(bad("preset and options disagree"));
        }
        p.options.validate().map_err(|e| bad(&e.to_string()))?;
        if p.options_hash != options_hash(&p.options) {
            return Err(bad("the options hash is wrong"));
        }
        if p.stake.0 <= 0 {
            return Err(bad("the stake must be positive"));
        }
        Ok(())
    }

    /// The result of the audited hand.
    fn result_of(&self, outcome: Outcome) -> Result<HandResult, StepError> {
        let hand = self
            .hand
            .as_ref()
            .ok_or_else(|| StepError::Internal("no hand".into()))?;
        let setup = hand
            .setup
            .clone()
            .ok_or_else(|| StepError::Internal("no setup".into()))?;
        let mut session = self
            .session
            .clone()
            .ok_or_else(|| StepError::Internal("no session".into()))?;
        let counter = hand.huangfan_in_force().unwrap_or(setup.huangfan);
        let rec = session.record(&setup, counter, &outcome);
        Ok(HandResult {
            hand: self.hand_no,
            setup: Some(setup),
            outcome,
            payments: rec.payments,
            aborted: false,
            session,
        })
    }

    fn process_settle(
        &mut self,
        entries: &[Envelope],
        events: &mut Vec<TableEvent>,
    ) -> Result<bool, StepError> {
        let result = self
            .pending_result
            .clone()
            .ok_or_else(|| StepError::Internal("no result to settle".into()))?;
        let hash = result.hash();
        let mut leavers = 0u8;
        let mut stop = false;
        for e in entries {
            let Some((result, next)) = e.settle() else {
                return Err(Fault::malformed(e.seat, "expected a settlement").into());
            };
            if let Body::SettleVoided { voids, .. } = &e.body
                && voids.len() > 3
            {
                return Err(Fault::malformed(e.seat, "more voids than seats").into());
            }
            if result != hash {
                return Err(Fault::new(e.seat, Offence::WrongResult).into());
            }
            match next {
                Next::Continue => {}
                Next::Stop => stop = true,
                Next::Leave => leavers |= 1 << e.seat,
            }
        }
        if let Outcome::Abandoned { leaver, .. } = &result.outcome {
            leavers |= 1 << leaver;
        }
        self.session = Some(result.session.clone());
        self.results.push(result.clone());
        events.push(TableEvent::HandOver {
            result: Box::new(result),
            signatures: entries.to_vec(),
        });
        Ok(self.after_hand(leavers, stop, events))
    }

    /// After a final hand: the session goes on (true: start the next hand), needs a roster
    /// step, or is over.
    fn after_hand(&mut self, leavers: u8, stop: bool, events: &mut Vec<TableEvent>) -> bool {
        self.pending_result = None;
        self.revealed = self
            .hand
            .take()
            .and_then(|h| h.revealed)
            .map(|hands| (self.hand_no, hands));
        self.hand_no += 1;
        let finished = self.session.as_ref().is_none_or(Session::is_finished);
        let me = self.me.map(|m| m.seat);
        if stop || finished || leavers.count_ones() > 1 {
            self.over(Ending::SessionOver, events);
            return false;
        }
        if leavers != 0 {
            let leaver = leavers.trailing_zeros() as Seat;
            if me == Some(leaver) {
                self.over(Ending::Left, events);
            } else if self.controller_for(leaver).is_none() {
                self.over(Ending::SessionOver, events);
            } else {
                self.stage = Stage::Roster { leaver };
            }
            return false;
        }
        true
    }

    /// Ends the table with `ending` and the event that announces it.
    pub(crate) fn over(&mut self, ending: Ending, events: &mut Vec<TableEvent>) {
        match &ending {
            Ending::SessionOver => {
                let balances = self
                    .session
                    .as_ref()
                    .map_or([Money::ZERO; 4], |s| s.balances);
                events.push(TableEvent::SessionOver { balances });
            }
            Ending::SetupFailed(seat) => events.push(TableEvent::SetupFailed { seat: *seat }),
            Ending::Halted(reason) => events.push(TableEvent::Halted {
                reason: reason.clone(),
            }),
            Ending::Left => events.push(TableEvent::Left),
        }
        self.stage = Stage::Over(ending);
    }

    /// The seat whose peer runs a bot in `leaver`'s place: the first seat after it in turn
    /// order that is not itself a bot.
    pub fn controller_for(&self, leaver: Seat) -> Option<Seat> {
        (1..4)
            .map(|k| (leaver + k) % 4)
            .find(|&s| self.controllers[s as usize].is_none())
    }

    /// The bot key and root this seat derives for a seat it controls, from the roster step
    /// at `seq`.
    pub fn bot_secrets(&self, seat: Seat, seq: u32) -> Option<(SigningKey, [u8; 32])> {
        let me = self.me?;
        let mut bytes = Vec::with_capacity(69);
        bytes.extend_from_slice(&me.root);
        bytes.extend_from_slice(&self.table);
        bytes.push(seat);
        bytes.extend_from_slice(&seq.to_le_bytes());
        let key = SigningKey::from_bytes(&tagged_hash("bot-key", &bytes));
        Some((key, tagged_hash("bot-root", &bytes)))
    }

    fn process_roster(
        &mut self,
        leaver: Seat,
        entries: &[Envelope],
        events: &mut Vec<TableEvent>,
    ) -> Result<bool, StepError> {
        let controller = self
            .controller_for(leaver)
            .ok_or_else(|| StepError::Internal("no seat can run a bot".into()))?;
        let mut key = None;
        let mut stop = false;
        for e in entries {
            let Body::Roster(vote) = &e.body else {
                return Err(Fault::malformed(e.seat, "expected a roster vote").into());
            };
            match vote {
                RosterVote::Stop => stop = true,
                RosterVote::Replace { seat, key: k } if *seat == leaver && e.seat == controller => {
                    key = Some(*k);
                }
                RosterVote::Agree { seat } if *seat == leaver && e.seat != controller => {}
                _ => return Err(Fault::malformed(e.seat, "a roster vote out of place").into()),
            }
        }
        match (stop, key) {
            (false, Some(key)) => {
                self.roster[leaver as usize] = key;
                self.controllers[leaver as usize] = Some(controller);
                if let Some(s) = self.session.as_mut() {
                    s.player_left();
                }
                events.push(TableEvent::SeatReplaced {
                    seat: leaver,
                    controller,
                });
                if self.me.map(|m| m.seat) == Some(controller) {
                    events.push(TableEvent::RunBot { seat: leaver });
                }
                Ok(true)
            }
            _ => {
                self.over(Ending::SessionOver, events);
                Ok(false)
            }
        }
    }

    // ---- own entries ----

    /// This seat's deal entry for the current step.
    pub fn make_deal(&mut self, signer: &SigningKey) -> Result<Body, ActError> {
        let hand = self.hand.as_mut().ok_or(ActError::NotYourTurn)?;
        hand.make_deal(signer)
            .map(Body::Deal)
            .map_err(ActError::Deal)
    }

    /// This seat's move.
    pub fn make_play(
        &mut self,
        action: mahjong_rules::Action,
        timed_out: bool,
        signer: &SigningKey,
    ) -> Result<Play, ActError> {
        let hand = self.hand.as_mut().ok_or(ActError::NotYourTurn)?;
        hand.make_play(action, timed_out, signer)
    }

    /// This seat's settlement signature: plain, or carrying `voids` when this seat voted
    /// earlier in the hand.
    pub fn make_settle(&self, next: Next, voids: Option<Vec<crate::codec::Void>>) -> Option<Body> {
        let result = self.pending_result.as_ref()?.hash();
        Some(match voids {
            None => Body::Settle { result, next },
            Some(voids) => Body::SettleVoided {
                result,
                next,
                voids,
            },
        })
    }

    /// This seat's roster vote (`stop`: end the session instead).
    pub fn make_roster(&self, stop: bool) -> Option<Body> {
        let Stage::Roster { leaver } = self.stage else {
            return None;
        };
        let me = self.me?.seat;
        if stop {
            return Some(Body::Roster(RosterVote::Stop));
        }
        if Some(me) == self.controller_for(leaver) {
            let (key, _) = self.bot_secrets(leaver, self.next_seq())?;
            Some(Body::Roster(RosterVote::Replace {
                seat: leaver,
                key: key.verifying_key(),
            }))
        } else {
            Some(Body::Roster(RosterVote::Agree { seat: leaver }))
        }
    }

    /// The nonce of this seat's claim commitment at step `seq` (derived from its root, so a
    /// restarted seat finds it again).
    pub fn claim_nonce(&self, seq: u32) -> Option<Hash> {
        let me = self.me?;
        let mut bytes = Vec::with_capacity(72);
        bytes.extend_from_slice(&me.root);
        bytes.extend_from_slice(&self.table);
        bytes.extend_from_slice(&self.hand_no.to_le_bytes());
        bytes.extend_from_slice(&seq.to_le_bytes());
        Some(tagged_hash("claim-nonce", &bytes))
    }

    /// The shared deal card table.
    pub fn cards(&self) -> Arc<CardTable> {
        self.cards.clone()
    }

    /// The rules engine of the current hand.
    pub fn state(&self) -> Option<&HandState> {
        self.hand.as_ref().and_then(|h| h.state.as_ref())
    }

    /// The current hand's deal seat.
    pub fn deal_seat(&self) -> Option<&DealSeat> {
        self.hand.as_ref().and_then(|h| h.deal_seat())
    }
}
