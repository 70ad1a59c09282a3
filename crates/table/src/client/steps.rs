//! The step loop: making this seat's entries, completing steps, votes and aborts, and what
//! follows a logged step (checkpoints, pruning the log held).

use super::*;

impl Client {
    // ---- the step loop ----

    pub(super) fn has_entry(&self, exp: &Expect) -> bool {
        self.slots
            .get(&(exp.hand, exp.seq))
            .is_some_and(|s| s.entries[self.me() as usize].is_some())
    }

    pub(super) fn sign(&self, header: Header, body: Body) -> Envelope {
        Envelope::sign(self.config.table, header, self.me(), body, &self.key)
    }

    pub(super) fn broadcast(&mut self, frame: Vec<u8>, out: &mut Output) {
        self.stats.broadcast_frames += 1;
        self.stats.broadcast_bytes += frame.len() as u64;
        out.send.push(frame);
    }

    pub(super) fn send_entry(&mut self, exp: &Expect, body: Body, out: &mut Output) {
        let env = self.sign(
            Header {
                hand: exp.hand,
                seq: exp.seq,
                prev_hash: exp.prev_hash,
            },
            body,
        );
        self.journal.push(Record::Own(Box::new(env.clone())));
        self.broadcast(env.frame(), out);
        let slot = self.slots.entry((exp.hand, exp.seq)).or_default();
        slot.entries[self.config.seat as usize] = Some(env);
    }

    /// Whether this seat has signed its settlement of the current hand.
    pub(super) fn signed_settle(&self) -> bool {
        self.replica.stage == Stage::Settle
            && self
                .slots
                .get(&(self.replica.hand_no, self.replica.next_seq()))
                .is_some_and(|s| s.entries[self.me() as usize].is_some())
    }

    /// The seats this seat voted against in the current hand before step `before` (a bit
    /// per seat).
    pub(super) fn my_votes_before(&self, before: u32) -> u8 {
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
    pub(super) fn settle_voids(&self, exp: &Expect) -> Result<Option<Vec<Void>>, ()> {
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
    pub(super) fn vote(&mut self, seq: u32, culprit: Seat, out: &mut Output) {
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
        self.broadcast(env.frame(), out);
        self.slots.entry((hand, seq)).or_default().votes[me] = Some(env);
    }

    /// Processes everything that can be processed, and makes this seat's automatic entries.
    pub(super) fn advance(&mut self, out: &mut Output) {
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

    pub(super) fn cast_deferred_votes(&mut self, out: &mut Output) {
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
    pub(super) fn try_abort(&mut self, out: &mut Output) -> bool {
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
    pub(super) fn try_complete(&mut self, exp: &Expect, out: &mut Output) -> bool {
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
    pub(super) fn blame(&mut self, exp: &Expect, seat: Seat, otherwise: Ending, out: &mut Output) {
        if exp.kind.abortable() {
            self.vote(exp.seq, seat, out);
        } else if matches!(exp.kind, StepKind::Propose | StepKind::Accept) {
            self.replica
                .over(Ending::SetupFailed(seat), &mut out.events);
        } else {
            self.replica.over(otherwise, &mut out.events);
        }
    }

    pub(super) fn after_step(&mut self, out: &mut Output, events: Vec<TableEvent>) {
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
    pub(super) fn produce(&mut self, exp: &Expect, out: &mut Output) -> bool {
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
