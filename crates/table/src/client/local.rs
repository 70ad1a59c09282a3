//! The local player's inputs: the proposal, accepting it, a move (with the claim answer's
//! opening) and leaving.

use super::*;

impl Client {
    // ---- local inputs ----

    pub(super) fn on_propose(
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
        let body = match self.name.clone() {
            Some(name) => Body::ProposeAs {
                proposal: Box::new(p),
                name,
            },
            None => Body::Propose(Box::new(p)),
        };
        self.send_entry(&exp, body, out);
        Ok(())
    }

    pub(super) fn on_accept(&mut self, accept: bool, out: &mut Output) -> Result<(), ActError> {
        let exp = self.replica.expected().ok_or(ActError::Closed)?;
        if exp.kind != StepKind::Accept || !exp.speaks(self.me()) || self.has_entry(&exp) {
            return Err(ActError::NothingToAccept);
        }
        let body = match (&self.replica.proposal, accept, self.name.clone()) {
            (Some(p), true, Some(name)) => Body::AcceptAs {
                proposal: p.hash(),
                name,
            },
            (Some(p), true, None) => Body::Accept { proposal: p.hash() },
            _ => Body::Decline,
        };
        self.send_entry(&exp, body, out);
        Ok(())
    }

    pub(super) fn on_leave(&mut self, out: &mut Output) {
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

    pub(super) fn on_act(
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
    pub(super) fn opening(&mut self, exp: &Expect) -> Option<Body> {
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
}
