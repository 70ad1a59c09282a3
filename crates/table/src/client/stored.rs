//! A client that keeps its log in the store ([`Client::keep_log_in_store`]) holds in memory
//! only the steps of the current hand and the one before (with the chain hash of everything
//! before them and the first step of each earlier hand). Three things still need older
//! steps, rarely: answering a seat far behind (a returning player, a restored peer), comparing
//! a late envelope of an old hand with what was logged (equivocation), and evidence, whose
//! log starts at step 0. Each waits here as a [`Wait`] while the host reads the steps from its
//! store ([`Output::load`]) and hands them back ([`Input::Stored`]); they are checked against
//! the chain hash before anything is done with them, and dropped afterwards.
//!
//! At most one load is asked for at a time; a seat has at most one comparison waiting, and
//! answers are rate-limited as before, so a seat cannot make this one read its store over and
//! over.

use mahjong_rules::Seat;

use super::Client;
use crate::codec::Envelope;
use crate::event::TableEvent;
use crate::evidence::{Charge, Evidence};
use crate::io::{Load, Output, Rejected};
use crate::replica::StepRecord;

/// Work waiting for steps from the store.
#[derive(Clone, Debug)]
pub(super) enum Wait {
    /// The answer to `seat`'s request for the log from step `from`.
    Reply {
        seat: Seat,
        from: u32,
        have: u8,
        returning: bool,
    },
    /// A late envelope of a hand no longer held, to compare with what was logged.
    Check(Box<Envelope>),
    /// Evidence of a faulty step (the seat already acted on it): the log `0..upto` and the
    /// step's entries.
    Step {
        hand: u32,
        seat: Seat,
        upto: u32,
        entries: Vec<Envelope>,
    },
    /// Evidence of the equivocation `proofs[i]` (the seat already acted on it).
    Proof(usize),
}

/// Comparisons of late envelopes waiting at once (one per seat would do; a few more for
/// envelopes of several hands).
const MAX_CHECKS: usize = 8;

impl Client {
    /// Keeps only recent steps in memory: at each hand boundary the steps of the hands
    /// before the previous one are dropped (they are in the seat's store: the journal holds
    /// every step). The host must then answer [`Output::load`] with [`Input::Stored`] from the
    /// same store. Memory then stays flat over a long session; a client restored from a
    /// store that starts at its checkpoint ([`crate::Persisted::from_checkpoint_on`]) needs
    /// the same answers whether or not this is set.
    ///
    /// [`Input::Stored`]: crate::Input::Stored
    pub fn keep_log_in_store(&mut self) {
        self.log_in_store = true;
    }

    /// The hand of the first step held in memory (the current hand when none is held).
    pub(super) fn first_held_hand(&self) -> u32 {
        self.replica
            .steps()
            .first()
            .and_then(StepRecord::hand)
            .unwrap_or(self.replica.hand_no)
    }

    /// The first step `wait` needs.
    fn needs_from(&self, wait: &Wait) -> u32 {
        match wait {
            Wait::Reply { from, .. } => *from,
            Wait::Check(env) => {
                let (start, end) = self.replica.range_of(env.hand);
                if start < end { start } else { 0 }
            }
            Wait::Step { .. } | Wait::Proof(_) => 0,
        }
    }

    /// Queues `wait` and asks for the steps it needs, unless a load already asked covers it.
    pub(super) fn wait_for_store(&mut self, wait: Wait, out: &mut Output) {
        if let Wait::Check(env) = &wait {
            let checks = self.waits.iter().filter(|w| matches!(w, Wait::Check(_)));
            let same_seat = self
                .waits
                .iter()
                .any(|w| matches!(w, Wait::Check(e) if e.seat == env.seat));
            if same_seat || checks.count() >= MAX_CHECKS {
                return;
            }
        }
        self.waits.push(wait);
        self.ask_store(out);
    }

    /// Asks for the steps the waiting work needs, from the lowest, unless a load asked
    /// covers them.
    fn ask_store(&mut self, out: &mut Output) {
        let base = self.replica.base();
        let Some(from) = self.waits.iter().map(|w| self.needs_from(w)).min() else {
            return;
        };
        let from = from.min(base);
        if self.loading.is_some_and(|l| l.from <= from && l.to == base) {
            return;
        }
        let load = Load { from, to: base };
        self.loading = Some(load);
        out.load = Some(load);
    }

    /// Steps `from..` from the store ([`crate::Input::Stored`]).
    pub(super) fn on_stored(&mut self, from: u32, steps: Vec<StepRecord>, out: &mut Output) {
        let asked = self.loading.take();
        let base = self.replica.base();
        if let Some(asked) = asked
            && from > asked.from
        {
            // The store starts later than asked (it was begun from a checkpoint): what needs
            // the earlier steps cannot be done.
            let before = self.waits.len();
            let waits = std::mem::take(&mut self.waits);
            self.waits = waits
                .into_iter()
                .filter(|w| self.needs_from(w) >= from)
                .collect();
            if self.waits.len() < before {
                out.rejected.push(Rejected::Stored(format!(
                    "the store holds no steps before step {from}"
                )));
            }
        }
        if from as usize + steps.len() != base as usize {
            // Asked before the last hand boundary moved the steps held: ask again.
            self.ask_store(out);
            return;
        }
        if !self.replica.chains_to_base(from, &steps) {
            let why = format!(
                "steps {from} to {} from the store do not chain to this log",
                base.saturating_sub(1)
            );
            self.waits.clear();
            out.rejected.push(Rejected::Stored(why));
            return;
        }
        if from == 0 {
            self.replica.index_hands(&steps);
        }
        let waits = std::mem::take(&mut self.waits);
        for wait in waits {
            let need = self.needs_from(&wait);
            if need < from {
                self.waits.push(wait);
                continue;
            }
            let earlier = steps.get((need - from) as usize..).unwrap_or(&[]);
            match wait {
                Wait::Reply {
                    seat,
                    from: first,
                    have,
                    returning,
                } => self.send_reply(seat, first, have, returning, earlier, out),
                Wait::Check(env) => {
                    let (start, end) = self.replica.range_of(env.hand);
                    let lo = (start.max(from) - from) as usize;
                    let hi = (end.max(from) - from) as usize;
                    let records = steps.get(lo..hi.min(steps.len())).unwrap_or(&[]);
                    self.check_against(&env, records, out);
                }
                Wait::Step {
                    hand,
                    seat,
                    upto,
                    entries,
                } => {
                    let log = self.log_upto(&steps, upto);
                    let evidence = Evidence {
                        log,
                        charge: Charge::Step { entries },
                    };
                    self.step_evidence.push((hand, seat, evidence.clone()));
                    out.events.push(TableEvent::Evidence(Box::new(evidence)));
                }
                Wait::Proof(i) => {
                    let Some(p) = self.proofs.get(i) else {
                        continue;
                    };
                    let all = self.log_upto(&steps, u32::MAX);
                    let upto = super::frames::proof_prefix(&all, &p.second);
                    let evidence = Evidence {
                        log: all[..upto as usize].to_vec(),
                        charge: Charge::Equivocation {
                            first: Box::new(p.first.clone()),
                            second: Box::new(p.second.clone()),
                        },
                    };
                    if let Some(p) = self.proofs.get_mut(i) {
                        p.upto = upto;
                    }
                    self.loaded_evidence.push(evidence.clone());
                    out.events.push(TableEvent::Evidence(Box::new(evidence)));
                }
            }
        }
        self.ask_store(out);
    }

    /// The log `0..upto`: `stored` (steps `0..base`) and the steps held.
    fn log_upto(&self, stored: &[StepRecord], upto: u32) -> Vec<StepRecord> {
        let held = self
            .replica
            .logged(self.replica.base() as usize, upto as usize);
        let mut log = Vec::with_capacity(stored.len() + held.len());
        log.extend_from_slice(&stored[..stored.len().min(upto as usize)]);
        log.extend_from_slice(held);
        log
    }
}
