//! Aborts: the result of ending the current hand at a step with a seat to blame, checking
//! three votes for it, and applying them.

use super::*;

impl Replica {
    // ---- aborts ----

    /// The result of aborting the current hand at step `seq` with `culprit` as the leaver,
    /// if the hand can be aborted there.
    pub fn abort_result(&self, seq: u32, culprit: Seat) -> Option<HandResult> {
        if culprit > 3
            || !matches!(self.stage, Stage::Hand(_) | Stage::Settle)
            || seq < self.hand_first_seq
            || seq > self.next_seq()
        {
            return None;
        }
        if self.stage == Stage::Settle && seq == self.next_seq() {
            // At the settlement step the result is agreed and signed by those who vote: the
            // votes sign that very result (a silent seat is then replaced, as a leaver, but
            // pays what the hand says). An abort there and the four-signed settlement book
            // the same result.
            return self.pending_result.clone();
        }
        let hand = self.hand.as_ref()?;
        let session = self.session.as_ref()?;
        let setup = match hand.setup_seq {
            Some(s) if s < seq => hand.setup.clone(),
            _ => None,
        };
        let counter = match &setup {
            Some(_) => hand.huangfan_in_force()?,
            None => session.huangfan,
        };
        let payments = leaver_payments(&session.options, session.stake, culprit, counter);
        // After the last move the outcome is agreed and every tile that decides it was shown
        // with its proof (a win shows the winner's hand): a seat that then goes silent, or
        // leaves, cannot escape a loss for the leaver penalty. The hand is settled as it ended
        // (unless the silent seat is a winner, who forfeits), and the seat is still replaced.
        let ended = matches!(self.stage, Stage::Settle | Stage::Hand(HandStage::Audit))
            && seq == self.next_seq();
        let agreed = hand
            .state
            .as_ref()
            .and_then(HandState::outcome)
            .filter(|o| ended && !o.winners().contains(&culprit))
            .cloned();
        let outcome = agreed.unwrap_or(Outcome::Abandoned {
            leaver: culprit,
            payments,
        });
        let mut after = session.clone();
        let paid = match &setup {
            Some(setup) => after.record(setup, counter, &outcome).payments,
            // No dice yet, so no hand to count: the penalty alone (docs/rules.en.md §6 leavers).
            None => after.record_penalty(payments).payments,
        };
        Some(HandResult {
            hand: self.hand_no,
            setup,
            outcome,
            payments: paid,
            aborted: true,
            session: after,
        })
    }

    /// Checks three abort votes (sorted by seat) for one step of the current hand and, if they
    /// hold, ends the hand there: the log is cut back to that step, which becomes the votes.
    pub fn check_abort(&self, votes: &[Envelope]) -> Result<(Seat, u32, HandResult), String> {
        let [a, ..] = votes else {
            return Err("no votes".into());
        };
        let Body::Abort { culprit, result } = a.body else {
            return Err("not a vote".into());
        };
        let seq = a.seq;
        let mut seen = 0u8;
        for v in votes {
            if v.table != self.table
                || v.hand != self.hand_no
                || v.seq != seq
                || v.body != (Body::Abort { culprit, result })
            {
                return Err("votes disagree".into());
            }
            if v.seat == culprit || v.seat > 3 || seen >> v.seat != 0 {
                return Err("votes not from the other seats in order".into());
            }
            seen |= 1 << v.seat;
            if Some(v.prev_hash) != self.prev_of(seq) {
                return Err("votes follow another history".into());
            }
            v.verify(&self.roster[v.seat as usize])
                .map_err(|e| e.to_string())?;
        }
        if seen != 0b1111 & !(1 << culprit) {
            return Err("votes are missing".into());
        }
        let expected = self
            .abort_result(seq, culprit)
            .ok_or("the hand cannot be aborted there")?;
        if expected.hash() != result {
            return Err("the votes sign another result".into());
        }
        Ok((culprit, seq, expected))
    }

    /// Applies checked votes (see [`Replica::check_abort`]).
    pub fn apply_abort(&mut self, votes: Vec<Envelope>) -> Result<Vec<TableEvent>, StepError> {
        let checked = self.check_abort(&votes).map_err(StepError::Internal)?;
        Ok(self.apply_checked_abort(checked, votes))
    }

    /// Applies three votes already passed by [`check_abort`](Self::check_abort), with what
    /// it returned.
    pub fn apply_checked_abort(
        &mut self,
        (culprit, seq, result): (Seat, u32, HandResult),
        votes: Vec<Envelope>,
    ) -> Vec<TableEvent> {
        let keep = seq.saturating_sub(self.base) as usize;
        self.log.truncate(keep);
        self.heads.truncate(keep);
        self.session = Some(result.session.clone());
        self.results.push(result.clone());
        let mut events = vec![TableEvent::HandOver {
            result: Box::new(result),
            signatures: votes.clone(),
        }];
        self.push(votes);
        if self.after_hand(1 << culprit, false, &mut events) {
            self.start_hand();
        }
        events
    }
}
