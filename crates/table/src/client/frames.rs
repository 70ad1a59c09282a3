//! Frames in and out: checking, bounded buffering, duplicates, conflicts with what was sent
//! or logged before (equivocation, a settlement and a vote of one hand), requests for missed
//! entries and their answers, retransmission.

use mahjong_rules::Seat;

use super::{
    Client, MAX_AHEAD, MAX_BUFFER_BYTES, MAX_REPLY_BYTES, Proof, REPLY_BYTES_PER_SECOND,
    RETRANSMIT_MS,
};
use crate::codec::{Body, Envelope, Header};
use crate::error::FrameError;
use crate::event::TableEvent;
use crate::evidence::conflict;
use crate::io::Output;
use crate::replica::{Ending, Stage, StepRecord};

impl Client {
    // ---- frames ----

    pub(super) fn on_frame(&mut self, bytes: &[u8], out: &mut Output) -> Result<(), FrameError> {
        let env = Envelope::decode(bytes)?;
        if env.table != self.config.table {
            return Err(FrameError::WrongTable);
        }
        // Signatures first: whatever a frame says, it counts only if its seat signed it.
        let seat = env.seat as usize & 3;
        let mut returning = false;
        if let Err(e) = env.verify(&self.replica.roster[seat]) {
            // A seat replaced by a bot whose player came back asks, with its own key, what
            // it missed (how its hand was aborted, that its seat was taken): it is answered
            // with the signed log, which it may see, and nothing else it sends counts.
            let original = self.replica.initial_roster[seat];
            returning = matches!(env.body, Body::Request { .. })
                && original != self.replica.roster[seat]
                && env.verify(&original).is_ok();
            if !returning {
                return Err(e);
            }
        } else {
            self.heard[seat] = self.now.max(1);
        }
        if let Body::Request { from_seq, have } = env.body {
            // A seat still in an earlier hand may have missed how it ended (an abort cuts
            // the log back): answer from that hand's last step at the latest.
            let from = if env.hand < self.replica.hand_no {
                let (start, end) = self.replica.range_of(env.hand);
                let end_of_its_hand = if end > start { end - 1 } else { from_seq };
                from_seq.min(end_of_its_hand)
            } else {
                from_seq
            };
            let have = if from == from_seq { have } else { 0 };
            self.reply(env.seat, from, have, returning, out);
            return Ok(());
        }
        let hand = self.replica.hand_no;
        let next = self.replica.next_seq();
        // Whatever conflicts with the log is evidence, whenever it comes: an earlier hand,
        // a logged step of this one, after the table is over.
        if env.hand < hand || (env.hand == hand && env.seq < next && !env.is_vote()) {
            self.check_logged(&env, out);
            if self.is_over() {
                return Err(FrameError::Closed);
            }
            return Ok(());
        }
        if self.is_over() {
            return Err(FrameError::Closed);
        }
        if env.hand > hand + 1 || env.seq > next.saturating_add(MAX_AHEAD) {
            self.request(env.seat, next, out);
            return Err(FrameError::TooFarAhead {
                hand: env.hand,
                seq: env.seq,
            });
        }
        if env.seq < next {
            // A vote for a logged step of this hand: kept (three make an abort).
            if env.seq >= self.replica.hand_first_seq {
                self.store(env, bytes.len(), out)?;
            }
            return Ok(());
        }
        if env.seq == next && env.hand == hand && !env.is_vote() {
            let exp = self.replica.expected();
            if env.prev_hash != self.replica.head() {
                let first = self.replica.hand_first_seq;
                self.request(env.seat, first, out);
                return Err(FrameError::OtherHistory {
                    seat: env.seat,
                    seq: env.seq,
                });
            }
            if let Some(exp) = exp
                && (!exp.speaks(env.seat) || !exp.kind.takes(&env.body))
            {
                return Err(FrameError::NotExpected {
                    seat: env.seat,
                    seq: env.seq,
                    body: env.body.name(),
                });
            }
            if self.clock.warned & (1 << env.seat) != 0 {
                self.clock.warned &= !(1 << env.seat);
                out.events.push(TableEvent::SeatReturned { seat: env.seat });
            }
        } else {
            // Ahead of this seat: only what a later step can take is kept.
            let fits = match &env.body {
                Body::Deal(_) | Body::Play(_) | Body::Roster(_) | Body::Abort { .. } => true,
                Body::ClaimCommit { .. } | Body::ClaimOpen { .. } => true,
                Body::Settle { .. } | Body::SettleVoided { .. } => true,
                Body::Accept { .. } | Body::AcceptAs { .. } | Body::Decline => env.hand == 0,
                Body::Propose(_) | Body::ProposeAs { .. } | Body::Request { .. } => false,
            };
            if !fits {
                return Err(FrameError::NotExpected {
                    seat: env.seat,
                    seq: env.seq,
                    body: env.body.name(),
                });
            }
            if env.seq > next || env.hand > hand {
                self.request(env.seat, next, out);
            }
        }
        self.store(env, bytes.len(), out)
    }

    /// An envelope of a logged step (any hand) or of an earlier hand: compared with the log.
    /// A different entry of its seat for that step, a vote against the seat's settlement of
    /// that hand, or a settlement against the seat's vote in that hand's abort is evidence.
    /// A hand no longer held in memory is compared once its steps are read from the store
    /// (see `stored.rs`).
    pub(super) fn check_logged(&mut self, env: &Envelope, out: &mut Output) {
        let (start, end) = self.replica.range_of(env.hand);
        let base = self.replica.base();
        if base > 0 && (start < base || (start == end && env.hand < self.first_held_hand())) {
            self.wait_for_store(super::stored::Wait::Check(Box::new(env.clone())), out);
            return;
        }
        let records = self.replica.logged(start as usize, end as usize).to_vec();
        self.check_against(env, &records, out);
    }

    /// [`Client::check_logged`] with the steps of `env`'s hand.
    pub(super) fn check_against(
        &mut self,
        env: &Envelope,
        records: &[StepRecord],
        out: &mut Output,
    ) {
        let mut pairs: Vec<(Envelope, Envelope)> = Vec::new();
        let same_step = records
            .iter()
            .find(|r| r.seq() == Some(env.seq))
            .filter(|r| r.hand() == Some(env.hand) && r.is_abort() == env.is_vote());
        if let Some(logged) = same_step.and_then(|r| r.entries.iter().find(|e| e.seat == env.seat))
            && logged != env
        {
            pairs.push((logged.clone(), env.clone()));
        }
        let last = records.last();
        if env.is_vote()
            && let Some(settled) =
                last.filter(|r| r.entries.first().is_some_and(Envelope::is_settle))
            && let Some(s) = settled.entries.iter().find(|e| e.seat == env.seat)
        {
            pairs.push((s.clone(), env.clone()));
        }
        if env.is_settle()
            && let Some(abort) = last.filter(|r| r.is_abort())
        {
            if let Some(v) = abort.entries.iter().find(|e| e.seat == env.seat) {
                pairs.push((v.clone(), env.clone()));
            }
            // A settlement's voids are other seats' signed settlements.
            if let Body::SettleVoided { voids, .. } = &env.body {
                for w in voids.iter().filter_map(|v| v.envelope(env)) {
                    if let Some(v) = abort.entries.iter().find(|e| e.seat == w.seat)
                        && w.verify(&self.replica.roster[w.seat as usize & 3]).is_ok()
                    {
                        pairs.push((v.clone(), w));
                    }
                }
            }
        }
        for (first, second) in pairs {
            self.prove(first, second, out);
        }
    }

    /// Keeps an entry or vote for a step not yet logged (or a vote for a logged step of this
    /// hand), within the seat's byte budget; one that conflicts with what the seat sent
    /// before is evidence.
    pub(super) fn store(
        &mut self,
        env: Envelope,
        len: usize,
        out: &mut Output,
    ) -> Result<(), FrameError> {
        let seat = env.seat as usize & 3;
        let vote = env.is_vote();
        let held = self.slots.get(&(env.hand, env.seq)).and_then(|slot| {
            if vote {
                slot.votes[seat].clone()
            } else {
                slot.entries[seat].clone()
            }
        });
        match held {
            Some(first) if first == env => return Ok(()),
            Some(first) => {
                self.prove(first, env, out);
                return Ok(());
            }
            None => {}
        }
        if self.buffered[seat] + len > MAX_BUFFER_BYTES {
            return Err(FrameError::OverBudget {
                seat: env.seat,
                bytes: self.buffered[seat],
            });
        }
        // Settlements and votes of one seat in one hand exclude each other.
        let mut pairs: Vec<(Envelope, Envelope)> = Vec::new();
        if env.hand == self.replica.hand_no {
            let hand = env.hand;
            let others = self.slots.range((hand, 0)..=(hand, u32::MAX));
            for (_, slot) in others {
                let other = if vote {
                    slot.entries[seat].as_ref().filter(|e| e.is_settle())
                } else {
                    slot.votes[seat].as_ref().filter(|_| env.is_settle())
                };
                if let Some(o) = other {
                    pairs.push((o.clone(), env.clone()));
                }
            }
            if let Body::SettleVoided { voids, .. } = &env.body {
                for w in voids.iter().filter_map(|v| v.envelope(&env)) {
                    let ws = w.seat as usize & 3;
                    if w.verify(&self.replica.roster[ws]).is_err() {
                        continue;
                    }
                    let held = self
                        .slots
                        .get(&(w.hand, w.seq))
                        .and_then(|s| s.entries[ws].clone());
                    if let Some(h) = held.filter(|h| *h != w) {
                        pairs.push((h, w.clone()));
                    }
                    let hand_votes = self.slots.range((hand, 0)..(hand, w.seq));
                    for (_, slot) in hand_votes {
                        if let Some(v) = &slot.votes[ws] {
                            pairs.push((v.clone(), w.clone()));
                        }
                    }
                }
            }
        }
        let self_leave = matches!(env.body, Body::Abort { culprit, .. } if culprit == env.seat);
        let (hand, seq, voter) = (env.hand, env.seq, env.seat);
        let slot = self.slots.entry((env.hand, env.seq)).or_default();
        if vote {
            slot.votes[seat] = Some(env);
            slot.vote_bytes[seat] = len as u32;
        } else {
            slot.entries[seat] = Some(env);
            slot.entry_bytes[seat] = len as u32;
        }
        self.buffered[seat] += len;
        if self_leave {
            // A seat says it leaves: no need to wait for its silence.
            self.deferred_votes.push((hand, seq, voter));
        }
        for (first, second) in pairs {
            self.prove(first, second, out);
        }
        Ok(())
    }

    /// Records a proof against the seat of two conflicting envelopes (once per seat per
    /// hand), lets every seat see both, and acts on it: an abort naming the seat, or, when
    /// the two are entries of the step that ended the last hand (or the set-up) and this
    /// seat has logged nothing since, the end of the table (the others may have ended there).
    pub(super) fn prove(&mut self, first: Envelope, second: Envelope, out: &mut Output) {
        let (hand, seat) = (second.hand, second.seat);
        if seat == self.me() || conflict(&first, &second, &self.replica.roster).is_err() {
            // (This seat's own envelopes never conflict: a pair of them was forged.)
            return;
        }
        if hand > self.replica.hand_no {
            if self.future_pairs.len() < 4 && !self.future_pairs.iter().any(|(a, _)| a.seat == seat)
            {
                self.future_pairs.push((first, second));
            }
            return;
        }
        if self.proofs.iter().any(|p| p.hand == hand && p.seat == seat) {
            return;
        }
        let held = self.replica.base() == 0;
        let upto = if held {
            proof_prefix(self.replica.steps(), &second)
        } else {
            0
        };
        let proof = Proof {
            hand,
            seat,
            upto,
            first,
            second,
        };
        for e in [&proof.first, &proof.second] {
            let f = e.frame();
            self.broadcast(f, out);
        }
        if held {
            let evidence = self.proof_evidence(&proof);
            if self.log_in_store {
                // Its prefix may leave memory: kept as built (see `Client::evidence`).
                self.loaded_evidence.push(evidence.clone());
            }
            out.events.push(TableEvent::Evidence(Box::new(evidence)));
        } else {
            // Its log prefix starts at step 0, in the store: the event follows the load.
            let i = self.proofs.len();
            self.wait_for_store(super::stored::Wait::Proof(i), out);
        }
        self.proofs.push(proof);
        if self.is_over() {
            return;
        }
        self.sanction |= 1 << (seat & 3);
        self.end_if_split_at_boundary(out);
    }

    /// At the first step after a hand boundary (or the set-up), with a proof that a seat
    /// signed two different entries for the step that ended it: the seat told some seats
    /// one thing and others another about what follows, and some may have ended the table
    /// there. Nothing was logged since: the table ends here too, so every honest seat books
    /// the same hands.
    pub(super) fn end_if_split_at_boundary(&mut self, out: &mut Output) {
        let next = self.replica.next_seq();
        let at_boundary = next == self.replica.hand_first_seq
            || matches!(self.replica.stage, Stage::Roster { .. });
        if !at_boundary || self.is_over() {
            return;
        }
        let split = self.proofs.iter().find(|p| {
            !p.first.is_vote()
                && !p.second.is_vote()
                && p.second.seq + 1 == next
                && matches!(
                    p.second.body,
                    Body::Accept { .. }
                        | Body::AcceptAs { .. }
                        | Body::Decline
                        | Body::Settle { .. }
                        | Body::SettleVoided { .. }
                        | Body::Roster(_)
                )
        });
        let Some(p) = split else {
            return;
        };
        let ending = if matches!(
            p.second.body,
            Body::Accept { .. } | Body::AcceptAs { .. } | Body::Decline
        ) {
            Ending::SetupFailed(p.seat)
        } else {
            Ending::SessionOver
        };
        self.replica.over(ending, &mut out.events);
    }

    // ---- requests ----

    pub(super) fn request(&mut self, seat: Seat, from_seq: u32, out: &mut Output) {
        let i = seat as usize & 3;
        if self.last_request[i] != 0 && self.now < self.last_request[i] + RETRANSMIT_MS {
            return;
        }
        self.last_request[i] = self.now.max(1);
        let env = self.sign(
            Header {
                hand: self.replica.hand_no,
                seq: self.replica.next_seq(),
                prev_hash: self.replica.head(),
            },
            Body::Request { from_seq, have: 0 },
        );
        let bytes = env.frame();
        self.stats.reply_frames += 1;
        self.stats.reply_bytes += bytes.len() as u64;
        out.reply.push((seat, bytes));
    }

    /// Answers a request of `seat` with the log from `from_seq` and what is pending. A seat
    /// that `returning` (its player came back after a bot took it: see `follow.rs`) is sent
    /// its own seat's entries too, which the bot signed. Steps no longer held in memory are
    /// read from the store first (see `stored.rs`).
    pub(super) fn reply(
        &mut self,
        seat: Seat,
        from_seq: u32,
        have: u8,
        returning: bool,
        out: &mut Output,
    ) {
        // The player of a seat a bot took, back to follow the table, asks under the seat's
        // number too: it is answered apart (slots 4..8), so that its catching up never takes
        // the answers the bot playing the seat needs.
        let i = (seat as usize & 3) + if returning { 4 } else { 0 };
        // Within half a retransmission period a seat's requests are answered once, unless
        // one asks from an earlier step than the last answer began at: an answer to a
        // routine request (from the step it waits for) does not swallow a request for the
        // whole hand (its log went another way: the answer is how an equivocation shows).
        // What bounds the answers is the seat's byte budget ([`REPLY_BYTES_PER_SECOND`]),
        // not the order of its requests: a seat asking for ever earlier steps, or a peer far
        // behind asking for a whole session, gets answers at that pace and no faster. An
        // answer reads the store only when its budget allows one.
        let (last_from, at) = self.last_reply[i];
        if at != 0 && self.now < at + RETRANSMIT_MS / 2 && from_seq >= last_from {
            return;
        }
        if self.reply_budget_of(i) < MIN_REPLY_BUDGET {
            return;
        }
        self.last_reply[i] = (from_seq, self.now.max(1));
        if from_seq < self.replica.base() {
            let wait = super::stored::Wait::Reply {
                seat,
                from: from_seq,
                have,
                returning,
            };
            self.wait_for_store(wait, out);
            return;
        }
        self.send_reply(seat, from_seq, have, returning, &[], out);
    }

    /// The bytes the asker `i` (a seat, or 4 + a seat for its returning player) may be sent
    /// in answers now (its budget filled since last time).
    fn reply_budget_of(&mut self, i: usize) -> u64 {
        let now = self.now;
        let b = &mut self.reply_budget[i & 7];
        let filled = now.saturating_sub(b.1) * REPLY_BYTES_PER_SECOND / 1000;
        b.0 = (b.0 + filled).min(MAX_REPLY_BYTES as u64);
        b.1 = now;
        b.0
    }

    /// The answer of [`Client::reply`], with `earlier`: steps `from_seq..base` read from the
    /// store (none when `from_seq` is held in memory).
    pub(super) fn send_reply(
        &mut self,
        seat: Seat,
        from_seq: u32,
        have: u8,
        returning: bool,
        earlier: &[StepRecord],
        out: &mut Output,
    ) {
        let mut frames: Vec<Vec<u8>> = Vec::new();
        let mut bytes = 0;
        let asker = (seat as usize & 3) + if returning { 4 } else { 0 };
        let budget = (self.reply_budget_of(asker) as usize).min(MAX_REPLY_BYTES);
        let held = self.replica.logged(from_seq as usize, usize::MAX);
        let logged = earlier.iter().chain(held).flat_map(|r| r.entries.iter());
        let pending = self
            .slots
            .iter()
            .filter(|((h, s), _)| *h >= self.replica.hand_no || *s >= from_seq)
            .flat_map(|(_, slot)| slot.entries.iter().chain(slot.votes.iter()).flatten());
        for e in logged.chain(pending) {
            let held = e.seq == from_seq && !e.is_vote() && have & (1 << e.seat) != 0;
            if (e.seat == seat && !returning) || held {
                continue;
            }
            let f = e.frame();
            if bytes + f.len() > budget && !frames.is_empty() {
                break;
            }
            bytes += f.len();
            frames.push(f);
        }
        let b = &mut self.reply_budget[asker];
        b.0 = b.0.saturating_sub(bytes as u64);
        let to = if returning {
            seat | crate::io::TO_RETURNING
        } else {
            seat
        };
        for f in frames {
            self.stats.reply_frames += 1;
            self.stats.reply_bytes += f.len() as u64;
            out.reply.push((to, f));
        }
    }

    /// Re-sends this seat's envelopes of the unfinished step(s) and asks for the rest.
    pub(super) fn retransmit(&mut self, out: &mut Output, force: bool) {
        if !force && self.now < self.next_retransmit {
            return;
        }
        self.next_retransmit = self.now + RETRANSMIT_MS;
        let me = self.me() as usize;
        let hand = self.replica.hand_no;
        let next = self.replica.next_seq();
        let own: Vec<Vec<u8>> = self
            .slots
            .iter()
            .filter(|((h, _), _)| *h >= hand)
            .flat_map(|(_, slot)| [&slot.entries[me], &slot.votes[me]])
            .flatten()
            .map(Envelope::frame)
            .collect();
        for f in own {
            self.broadcast(f, out);
        }
        // The proofs this seat still acts on, until every seat has them.
        let proofs: Vec<Vec<u8>> = self
            .proofs
            .iter()
            .filter(|p| self.sanction & (1 << (p.seat & 3)) != 0)
            .flat_map(|p| [p.first.frame(), p.second.frame()])
            .collect();
        for f in proofs {
            self.broadcast(f, out);
        }
        // At the first step after a hand boundary, ask for the step that ended it too: if
        // a seat told the others different things there, this is how it shows.
        let boundary = next > 0
            && (next == self.replica.hand_first_seq
                || matches!(self.replica.stage, Stage::Roster { .. }));
        let (from_seq, have) = if boundary {
            (next - 1, 0)
        } else {
            let have = self.slots.get(&(hand, next)).map_or(0, |slot| {
                (0..4u8)
                    .filter(|&s| slot.entries[s as usize].is_some())
                    .fold(0, |m, s| m | (1 << s))
            });
            (next, have)
        };
        let env = self.sign(
            Header {
                hand,
                seq: next,
                prev_hash: self.replica.head(),
            },
            Body::Request { from_seq, have },
        );
        self.broadcast(env.frame(), out);
    }
}

/// The least budget a request is answered with (a few steps' worth).
const MIN_REPLY_BUDGET: u64 = 16 << 10;

/// The log prefix an equivocation record of `e` needs, in `log` (from step 0): up to the start
/// of its hand (after the roster step that opens it, unless `e` is of that step; after the
/// proposal, for the set-up).
pub(super) fn proof_prefix(log: &[StepRecord], e: &Envelope) -> u32 {
    if e.hand == 0 {
        return log.len().min(1) as u32;
    }
    let start = log.partition_point(|r| r.hand() < Some(e.hand));
    let end = log.partition_point(|r| r.hand() <= Some(e.hand));
    let roster_first = start < end
        && log[start]
            .entries
            .first()
            .is_some_and(|r| matches!(r.body, Body::Roster(_)));
    if roster_first && !matches!(e.body, Body::Roster(_)) {
        start as u32 + 1
    } else {
        start as u32
    }
}
