//! Offline verification of a table's whole signed log, by anyone, with no secret.
//!
//! [`verify_log`] replays a recorded log (every [`StepRecord`] from the host's proposal on)
//! through the same [`crate::replica`] every peer runs, as a watcher: it checks every
//! envelope's signature under the roster in force, the hash chain (each entry's `prev_hash`
//! is the log hash through the step before), that each step holds exactly the entries of the
//! seats that had to speak, every deal proof, each hand's end-of-hand deal audit and full
//! replay through the rules, every settlement (four `Settle` signatures on the result the
//! replay gives) and every abort (three votes on the result the rules give). It returns what
//! it checked ([`LogReport`]) or the first fault ([`LogFault`]), with the step and the seat
//! whose entry it is. A fault proven by a seat's own signed entry (an illegal move, a bad
//! proof, a failed audit, a wrong result) blames that seat ([`LogFault::culprit`]); a broken
//! signature, chain or a missing step proves the record was altered or cut, and names where.
//!
//! Also [`hand_ids`]: each hand's id (the deal's joint randomness hand id), read off the
//! log's seed reveals.

use std::collections::BTreeMap;
use std::sync::Arc;

use mahjong_deal::{Body as DealBody, CardTable, HandContext, JointRandomness};
use mahjong_rules::Seat;
use thiserror::Error;

use crate::codec::{Body, Envelope, Hash, Proposal};
use crate::error::{EvidenceError, Fault, Offence, StepError};
use crate::event::TableEvent;
use crate::evidence::{Charge, Culprit, Evidence, conflict};
use crate::hand::HandStage;
use crate::record::{HandResult, StepRecord};
use crate::replica::{Replica, Stage};

/// One final hand of a verified log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HandReport {
    /// The hand number.
    pub hand: u32,
    /// The deal's hand id (none for a hand aborted before its seeds were revealed).
    pub hand_id: Option<Hash>,
    /// The result the replay gives, which the signatures sign.
    pub result: HandResult,
    /// The envelopes that make it final: four `Settle`, or three `Abort` votes.
    pub signatures: Vec<Envelope>,
    /// For an aborted hand, the seat the votes name.
    pub aborted_by: Option<Seat>,
    /// Whether the hand's deal was audited and its moves replayed with full knowledge.
    pub audited: bool,
    /// `Play` entries (moves, claim answers and passes) replayed through the rules.
    pub moves: u32,
}

/// What [`verify_log`] checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogReport {
    /// The table id.
    pub table: [u8; 32],
    /// The host's proposal (roster, preset, options, stake, length).
    pub proposal: Proposal,
    /// Steps replayed.
    pub steps: u32,
    /// Envelopes whose signature was checked.
    pub signatures: u32,
    /// The log hash through the last step.
    pub head: Hash,
    /// Every final hand, in order.
    pub hands: Vec<HandReport>,
    /// A hand the log ends in the middle of (not a fault: the table was still playing).
    pub open_hand: Option<u32>,
    /// Whether the table is over at the end of the log.
    pub over: bool,
}

/// The first thing wrong in a log.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum LogFault {
    /// The log is empty or does not start with the host's proposal.
    #[error("the log does not start with the host's proposal")]
    NoSetup,
    /// A step with no entry.
    #[error("step {seq} is empty")]
    EmptyStep {
        /// The step.
        seq: u32,
    },
    /// The entries at this place are of another step: a step was removed, added or moved.
    #[error(
        "step {seq}: seat {seat}'s entry is for step {found} of hand {hand}: a step is missing or out of place"
    )]
    Gap {
        /// The place in the log.
        seq: u32,
        /// The seat whose entry it is.
        seat: Seat,
        /// The step the entry is for.
        found: u32,
        /// The hand the entry is for.
        hand: u32,
    },
    /// An entry of another table.
    #[error("step {seq}: seat {seat}'s entry is for another table")]
    WrongTable {
        /// The step.
        seq: u32,
        /// The seat.
        seat: Seat,
    },
    /// An entry whose `prev_hash` is not the log hash through the step before: the log
    /// before it was altered (or the entry belongs to another history).
    #[error(
        "step {seq}: seat {seat}'s entry does not follow the hash chain (the log before it was altered)"
    )]
    Chain {
        /// The step.
        seq: u32,
        /// The seat.
        seat: Seat,
    },
    /// A signature that does not verify under the seat's key: the entry was altered, or is
    /// not the seat's.
    #[error(
        "step {seq}: seat {seat}'s signature does not verify (the entry was altered or is not seat {seat}'s)"
    )]
    Signature {
        /// The step.
        seq: u32,
        /// The seat.
        seat: Seat,
    },
    /// An entry from a seat that does not speak at this step, twice, or out of seat order.
    #[error("step {seq}: seat {seat} is not expected to speak here (or twice, or out of order)")]
    Unexpected {
        /// The step.
        seq: u32,
        /// The seat.
        seat: Seat,
    },
    /// Seats that had to speak at this step have no entry.
    #[error("step {seq}: the entries of seats {seats:?} are missing")]
    Missing {
        /// The step.
        seq: u32,
        /// The seats.
        seats: Vec<Seat>,
    },
    /// Steps after the end of the table.
    #[error("step {seq}: the table was already over")]
    AfterEnd {
        /// The step.
        seq: u32,
    },
    /// A seat's own signed entry proves it at fault (an illegal move, a bad deal proof, a
    /// failed audit or full replay, a settlement on a wrong result…).
    #[error("step {seq}: {fault}")]
    Fault {
        /// The step.
        seq: u32,
        /// The seat and what it did.
        fault: Fault,
    },
    /// Three abort votes that do not hold (not the three other seats, another result…).
    #[error("step {seq}: the abort votes do not hold: {why}")]
    Abort {
        /// The step.
        seq: u32,
        /// Why.
        why: String,
    },
    /// The replay failed without naming a seat.
    #[error("step {seq}: the replay failed: {why}")]
    Internal {
        /// The step.
        seq: u32,
        /// Why.
        why: String,
    },
}

impl LogFault {
    /// The step at fault (none for a log without a set-up).
    pub fn seq(&self) -> Option<u32> {
        match self {
            LogFault::NoSetup => None,
            LogFault::EmptyStep { seq }
            | LogFault::Gap { seq, .. }
            | LogFault::WrongTable { seq, .. }
            | LogFault::Chain { seq, .. }
            | LogFault::Signature { seq, .. }
            | LogFault::Unexpected { seq, .. }
            | LogFault::Missing { seq, .. }
            | LogFault::AfterEnd { seq }
            | LogFault::Fault { seq, .. }
            | LogFault::Abort { seq, .. }
            | LogFault::Internal { seq, .. } => Some(*seq),
        }
    }

    /// The seat the fault is blamed on: the seat whose own signed entry proves the fault.
    /// Altered records (a signature, the chain, a missing step) blame no seat: anyone can
    /// produce them.
    pub fn culprit(&self) -> Option<Seat> {
        match self {
            LogFault::Fault { fault, .. } => Some(fault.seat),
            _ => None,
        }
    }

    /// The seat whose entry the fault is found in, where there is one (the culprit, or the
    /// seat whose signature or chain link is broken).
    pub fn seat(&self) -> Option<Seat> {
        match self {
            LogFault::Gap { seat, .. }
            | LogFault::WrongTable { seat, .. }
            | LogFault::Chain { seat, .. }
            | LogFault::Signature { seat, .. }
            | LogFault::Unexpected { seat, .. } => Some(*seat),
            LogFault::Fault { fault, .. } => Some(fault.seat),
            _ => None,
        }
    }
}

/// Replays and checks a table's whole log (see the module header).
pub fn verify_log(log: &[StepRecord]) -> Result<LogReport, LogFault> {
    verify_log_with_cards(log, Arc::new(CardTable::new()))
}

/// [`verify_log`] reusing a deal card table.
pub fn verify_log_with_cards(
    log: &[StepRecord],
    cards: Arc<CardTable>,
) -> Result<LogReport, LogFault> {
    walk(log, cards, &mut |_, _| true)
}

/// One hand of a log, as the table played it: what a replay of the hand needs.
#[derive(Clone, Debug)]
pub struct HandLog {
    /// The host's proposal.
    pub proposal: Proposal,
    /// The roster in force for the hand (the proposal's, with every seat replaced by a bot
    /// before it, by the replica's own rule).
    pub roster: [ed25519_dalek::VerifyingKey; 4],
    /// The hand's deal messages, in log order (an aborted attempt's left out).
    pub messages: Vec<mahjong_deal::SignedMessage>,
    /// The moves of each log step that has any (plays and opened claim answers, in seat
    /// order), as the table applied them.
    pub moves: Vec<Vec<mahjong_rules::Move>>,
}

/// The moves of one log step, in seat order.
fn plays(rec: &StepRecord) -> Vec<mahjong_rules::Move> {
    rec.entries
        .iter()
        .filter_map(|e| match &e.body {
            Body::Play(p) | Body::ClaimOpen { play: p, .. } => Some(mahjong_rules::Move {
                seat: e.seat,
                action: p.action.clone(),
                timed_out: p.timed_out,
            }),
            _ => None,
        })
        .collect()
}

/// Hand `hand` of `log`, read while the log is verified through that hand as [`verify_log`]
/// verifies it (so the roster in force is the replica's): `None` when the log holds no step
/// of it.
pub fn hand_log(
    log: &[StepRecord],
    hand: u32,
    cards: Arc<CardTable>,
) -> Result<Option<HandLog>, LogFault> {
    let Some(proposal) = log
        .first()
        .and_then(|r| r.entries.first())
        .and_then(|e| e.body.proposal())
    else {
        return Err(LogFault::NoSetup);
    };
    let mut found: Option<HandLog> = None;
    let report = walk(log, cards, &mut |replica, rec| {
        match rec.hand() {
            Some(h) if h == hand => {}
            Some(h) if h > hand => return false,
            _ => return true,
        }
        // A roster step (a seat replaced by a bot) carries the number of the hand it comes
        // before: the roster in force is the one after it.
        if rec
            .entries
            .iter()
            .any(|e| matches!(e.body, Body::Roster(_)))
        {
            return true;
        }
        let entry = found.get_or_insert_with(|| HandLog {
            proposal: Proposal::clone(proposal),
            roster: replica.roster,
            messages: Vec::new(),
            moves: Vec::new(),
        });
        if rec.is_abort() {
            return true;
        }
        for e in &rec.entries {
            if let Body::Deal(msgs) = &e.body {
                entry.messages.extend(msgs.iter().cloned());
            }
        }
        let moves = plays(rec);
        if !moves.is_empty() {
            entry.moves.push(moves);
        }
        true
    });
    report.map(|_| found)
}

/// Replays `log` through a watcher replica, calling `before` with each step before it is
/// applied (`false` stops the walk there).
fn walk(
    log: &[StepRecord],
    cards: Arc<CardTable>,
    before: &mut dyn FnMut(&Replica, &StepRecord) -> bool,
) -> Result<LogReport, LogFault> {
    let proposal = match log
        .first()
        .and_then(|r| r.entries.first())
        .and_then(|e| e.body.proposal())
    {
        Some(p) => Proposal::clone(p),
        None => return Err(LogFault::NoSetup),
    };
    let ids = hand_ids(log);
    let mut replica = Replica::new(proposal.table, proposal.host, proposal.roster, None, cards);
    let mut signatures = 0u32;
    let mut hands = Vec::new();
    let mut audited = false;
    let mut moves = 0u32;
    for (i, rec) in log.iter().enumerate() {
        let seq = i as u32;
        if rec.entries.is_empty() {
            return Err(LogFault::EmptyStep { seq });
        }
        if !before(&replica, rec) {
            break;
        }
        let events = if rec.is_abort() {
            check_votes(&replica, seq, &rec.entries)?;
            replica
                .apply_abort(rec.entries.clone())
                .map_err(|e| LogFault::Abort {
                    seq,
                    why: match e {
                        StepError::Internal(why) => why,
                        other => other.to_string(),
                    },
                })?
        } else {
            check_entries(&replica, seq, &rec.entries)?;
            replica
                .check_step(&rec.entries)
                .map_err(|why| LogFault::Internal { seq, why })?;
            moves += rec
                .entries
                .iter()
                .filter(|e| matches!(e.body, Body::Play(_)))
                .count() as u32;
            let events = replica.process(rec.entries.clone()).map_err(|e| match e {
                StepError::Fault(fault) => LogFault::Fault { seq, fault },
                StepError::Internal(why) => LogFault::Internal { seq, why },
            })?;
            if replica.stage == Stage::Settle {
                audited = true;
            }
            events
        };
        signatures += rec.entries.len() as u32;
        for event in events {
            if let TableEvent::HandOver {
                result,
                signatures: sigs,
            } = event
            {
                let aborted_by = sigs.iter().find_map(|e| match e.body {
                    Body::Abort { culprit, .. } => Some(culprit),
                    _ => None,
                });
                hands.push(HandReport {
                    hand: result.hand,
                    hand_id: ids.get(&result.hand).copied(),
                    result: *result,
                    signatures: sigs,
                    aborted_by,
                    audited,
                    moves,
                });
                audited = false;
                moves = 0;
            }
        }
    }
    let open_hand = match replica.stage {
        Stage::Hand(HandStage::Commit) if replica.hand_first_seq == replica.next_seq() => None,
        Stage::Hand(_) | Stage::Settle => Some(replica.hand_no),
        _ => None,
    };
    Ok(LogReport {
        table: proposal.table,
        proposal,
        steps: log.len() as u32,
        signatures,
        head: replica.head(),
        hands,
        open_hand,
        over: matches!(replica.stage, Stage::Over(_)),
    })
}

/// The typed checks of one step's entries (what `Replica::check_step` checks, naming the
/// entry at fault).
fn check_entries(replica: &Replica, seq: u32, entries: &[Envelope]) -> Result<(), LogFault> {
    let exp = replica.expected().ok_or(LogFault::AfterEnd { seq })?;
    let mut seen = 0u8;
    for e in entries {
        let seat = e.seat;
        check_place(replica, seq, e, exp.seq, exp.hand)?;
        if seat > 3 || !exp.speaks(seat) || seen >> seat != 0 {
            return Err(LogFault::Unexpected { seq, seat });
        }
        check_signed(replica, seq, e, Some(exp.prev_hash))?;
        seen |= 1 << seat;
    }
    if seen != exp.speakers {
        let seats = (0..4u8)
            .filter(|&s| exp.speaks(s) && seen & (1 << s) == 0)
            .collect();
        return Err(LogFault::Missing { seq, seats });
    }
    Ok(())
}

/// The typed checks of abort votes before `Replica::check_abort` (which says why in words).
fn check_votes(replica: &Replica, seq: u32, votes: &[Envelope]) -> Result<(), LogFault> {
    for v in votes {
        let seat = v.seat;
        check_place(replica, seq, v, seq, replica.hand_no)?;
        if seat > 3 {
            return Err(LogFault::Unexpected { seq, seat });
        }
        check_signed(replica, seq, v, replica.prev_of(seq))?;
    }
    Ok(())
}

/// An envelope of step `seq` stands where the log expects it: step `want_seq` of hand
/// `want_hand`, at this table.
fn check_place(
    replica: &Replica,
    seq: u32,
    e: &Envelope,
    want_seq: u32,
    want_hand: u32,
) -> Result<(), LogFault> {
    let seat = e.seat;
    if e.seq != want_seq || e.hand != want_hand {
        return Err(LogFault::Gap {
            seq,
            seat,
            found: e.seq,
            hand: e.hand,
        });
    }
    if e.table != replica.table {
        return Err(LogFault::WrongTable { seq, seat });
    }
    Ok(())
}

/// An envelope (of a seat 0–3) chains to `prev` and is signed by its seat's key.
fn check_signed(
    replica: &Replica,
    seq: u32,
    e: &Envelope,
    prev: Option<Hash>,
) -> Result<(), LogFault> {
    let seat = e.seat;
    if Some(e.prev_hash) != prev {
        return Err(LogFault::Chain { seq, seat });
    }
    if e.verify(&replica.roster[seat as usize]).is_err() {
        return Err(LogFault::Signature { seq, seat });
    }
    Ok(())
}

/// Each hand's id, from the seed reveals in the log (`JointRandomness::hand_id` of the four
/// revealed seeds in seat order). A hand aborted before (or at) its reveal step has none.
pub fn hand_ids(log: &[StepRecord]) -> BTreeMap<u32, Hash> {
    let mut ids = BTreeMap::new();
    for rec in log {
        if rec.entries.len() != 4 {
            continue;
        }
        let mut seeds = [[0u8; 32]; 4];
        let mut found = 0u8;
        for e in &rec.entries {
            let Body::Deal(msgs) = &e.body else {
                break;
            };
            for m in msgs {
                if let DealBody::Reveal(r) = &m.message.body {
                    seeds[(e.seat & 3) as usize] = r.seed;
                    found |= 1 << (e.seat & 3);
                }
            }
        }
        if found == 0b1111
            && let Some(e) = rec.entries.first()
        {
            let ctx = HandContext {
                table: e.table,
                hand: e.hand,
            };
            ids.insert(e.hand, JointRandomness::from_seeds(&ctx, &seeds).hand_id);
        }
    }
    ids
}

// ---- evidence ----

/// Verifying evidence replays its log like [`verify_log`]; it lives here, above the
/// replica, so that the evidence types below it need not know the replica.
impl Evidence {
    /// Replays the record and names the seat it proves at fault.
    pub fn verify(&self) -> Result<Culprit, EvidenceError> {
        self.verify_with_cards(Arc::new(CardTable::new()))
    }

    /// [`Evidence::verify`] reusing a card table.
    pub fn verify_with_cards(&self, cards: Arc<CardTable>) -> Result<Culprit, EvidenceError> {
        let first = self
            .log
            .first()
            .and_then(|r| r.entries.first())
            .ok_or(EvidenceError::NoSetup)?;
        let Some(p) = first.body.proposal() else {
            return Err(EvidenceError::NoSetup);
        };
        let mut replica = Replica::new(p.table, p.host, p.roster, None, cards);
        let culprit = |replica: &Replica, seat: Seat, offence: Offence| Culprit {
            seat,
            key: replica.roster[seat as usize & 3],
            offence,
        };
        for (seq, rec) in self.log.iter().enumerate() {
            let context = |why: String| EvidenceError::Context {
                seq: seq as u32,
                why,
            };
            if rec.is_abort() {
                replica
                    .apply_abort(rec.entries.clone())
                    .map_err(|e| context(e.to_string()))?;
                continue;
            }
            replica.check_step(&rec.entries).map_err(context)?;
            match replica.process(rec.entries.clone()) {
                Ok(_) => {}
                Err(StepError::Fault(f)) => return Ok(culprit(&replica, f.seat, f.offence)),
                Err(StepError::Internal(why)) => return Err(context(why)),
            }
        }
        match &self.charge {
            Charge::Equivocation { first, second } => {
                if first.table != replica.table || first.hand != replica.hand_no {
                    return Err(EvidenceError::NotEquivocation(
                        "not of the hand the log leads to",
                    ));
                }
                conflict(first, second, &replica.roster).map_err(EvidenceError::NotEquivocation)?;
                let key = replica.roster[first.seat as usize & 3];
                first.verify(&key).map_err(EvidenceError::Signature)?;
                second.verify(&key).map_err(EvidenceError::Signature)?;
                Ok(Culprit {
                    seat: first.seat,
                    key,
                    offence: Offence::Equivocation,
                })
            }
            Charge::Step { entries } => {
                replica
                    .check_step(entries)
                    .map_err(EvidenceError::NotNextStep)?;
                match replica.process(entries.clone()) {
                    Ok(_) => Err(EvidenceError::NoFault),
                    Err(StepError::Fault(f)) => Ok(culprit(&replica, f.seat, f.offence)),
                    Err(StepError::Internal(why)) => Err(EvidenceError::Context {
                        seq: replica.next_seq(),
                        why,
                    }),
                }
            }
        }
    }
}
