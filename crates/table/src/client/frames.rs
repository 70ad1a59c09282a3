//! Frames in and out: checking, buffering, duplicates and equivocation, the abort-vote
//! withdrawal rule, requests for missed entries and their answers, retransmission.

use mahjong_rules::Seat;

use super::{Client, MAX_AHEAD, MAX_REPLY_BYTES, RETRANSMIT_MS};
use crate::codec::{Body, Envelope, Header};
use crate::error::FrameError;
use crate::event::TableEvent;
use crate::evidence::{Charge, Evidence};
use crate::io::Output;

impl Client {
    // ---- frames ----

    pub(super) fn on_frame(&mut self, bytes: &[u8], out: &mut Output) -> Result<(), FrameError> {
        let env = Envelope::decode(bytes)?;
        if env.table != self.config.table {
            return Err(FrameError::WrongTable);
        }
        // Signatures first: whatever a frame says, it counts only if its seat signed it.
        env.verify(&self.replica.roster[env.seat as usize])?;
        if let Body::Request { from_seq, have } = env.body {
            // A seat still in an earlier hand may have missed how it ended (an abort cuts
            // the log back): answer from that hand's last step at the latest.
            let from = if env.hand < self.replica.hand_no {
                let end_of_its_hand = self
                    .replica
                    .log
                    .iter()
                    .rposition(|r| r.hand() == Some(env.hand))
                    .map_or(from_seq, |i| i as u32);
                from_seq.min(end_of_its_hand)
            } else {
                from_seq
            };
            let have = if from == from_seq { have } else { 0 };
            self.reply(env.seat, from, have, out);
            return Ok(());
        }
        if self.is_over() {
            return Err(FrameError::Closed);
        }
        let hand = self.replica.hand_no;
        let next = self.replica.next_seq();
        if env.hand < hand {
            return Ok(()); // a finished hand: duplicates and stale branches
        }
        if env.hand > hand + 1 || env.seq > next.saturating_add(MAX_AHEAD) {
            self.request(env.seat, next, out);
            return Err(FrameError::TooFarAhead {
                hand: env.hand,
                seq: env.seq,
            });
        }
        if env.hand == hand + 1 {
            self.maybe_withdraw(env.seat);
        }
        if env.seq < next && env.hand == hand {
            return self.on_past(env, out);
        }
        if env.seq < next {
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
        } else if env.seq > next || env.hand > hand {
            self.request(env.seat, next, out);
        }
        self.store(env, out);
        Ok(())
    }

    /// An envelope for a step already logged in the current hand.
    pub(super) fn on_past(&mut self, env: Envelope, out: &mut Output) -> Result<(), FrameError> {
        if env.seq < self.replica.hand_first_seq {
            return Ok(());
        }
        if env.is_vote() {
            self.store(env, out);
            return Ok(());
        }
        let logged = self
            .replica
            .log
            .get(env.seq as usize)
            .and_then(|r| {
                r.entries
                    .iter()
                    .find(|e| e.seat == env.seat && !e.is_vote())
            })
            .cloned();
        if let Some(first) = logged
            && first != env
        {
            self.equivocation(first, env, out);
        }
        Ok(())
    }

    /// Keeps an entry or vote for a step not yet logged (or a vote for a logged step of this
    /// hand); two different ones from one seat for one slot are equivocation.
    pub(super) fn store(&mut self, env: Envelope, out: &mut Output) {
        let seat = env.seat as usize & 3;
        let vote = env.is_vote();
        let slot = self.slots.entry((env.hand, env.seq)).or_default();
        let place = if vote {
            &mut slot.votes[seat]
        } else {
            &mut slot.entries[seat]
        };
        match place {
            Some(first) if *first == env => {}
            Some(first) => {
                let first = first.clone();
                self.equivocation(first, env, out);
            }
            None => {
                let self_leave =
                    matches!(env.body, Body::Abort { culprit, .. } if culprit == env.seat);
                let (hand, seq, voter) = (env.hand, env.seq, env.seat);
                *place = Some(env);
                if self_leave {
                    // A seat says it leaves: no need to wait for its silence.
                    self.deferred_votes.push((hand, seq, voter));
                }
            }
        }
    }

    pub(super) fn equivocation(&mut self, first: Envelope, second: Envelope, out: &mut Output) {
        let (hand, seq, seat) = (second.hand, second.seq, second.seat);
        if self
            .evidence
            .iter()
            .any(|e| matches!(&e.charge, Charge::Equivocation { second: s, .. } if s.seat == seat && s.hand == hand && s.seq == seq))
        {
            return;
        }
        let upto = (seq as usize).min(self.replica.log.len());
        let evidence = Evidence {
            log: self.replica.log[..upto].to_vec(),
            charge: Charge::Equivocation {
                first: Box::new(first.clone()),
                second: Box::new(second.clone()),
            },
        };
        // Let every seat see both versions.
        for e in [&first, &second] {
            self.broadcast(e.encode(), out);
        }
        self.evidence.push(evidence.clone());
        out.events.push(TableEvent::Evidence(Box::new(evidence)));
        if hand == self.replica.hand_no {
            self.deferred_votes.push((hand, seq, seat));
        }
    }

    /// V′ rule: a seat that voted in this hand may settle only once it knows the abort cannot
    /// gather its votes: a seat that did not vote has moved on to the next hand.
    pub(super) fn maybe_withdraw(&mut self, seat: Seat) {
        let hand = self.replica.hand_no;
        let me = self.me() as usize;
        let mut culprits = 0u8;
        let mut voters = 0u8;
        for ((h, _), slot) in &self.slots {
            if *h != hand {
                continue;
            }
            for v in slot.votes.iter().flatten() {
                voters |= 1 << v.seat;
                if v.seat as usize == me
                    && let Body::Abort { culprit, .. } = v.body
                {
                    culprits |= 1 << culprit;
                }
            }
        }
        if culprits & (1 << seat) == 0 && voters & (1 << seat) == 0 {
            self.withdrawn = Some(hand);
        }
    }

    pub(super) fn settle_blocked(&self) -> bool {
        let hand = self.replica.hand_no;
        if self.withdrawn == Some(hand) {
            return false;
        }
        let me = self.me() as usize;
        self.slots
            .iter()
            .any(|((h, _), slot)| *h == hand && slot.votes[me].is_some())
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
        let bytes = env.encode();
        self.stats.reply_frames += 1;
        self.stats.reply_bytes += bytes.len() as u64;
        out.reply.push((seat, bytes));
    }

    pub(super) fn reply(&mut self, seat: Seat, from_seq: u32, have: u8, out: &mut Output) {
        let i = seat as usize & 3;
        // At most one answer per seat per half retransmission period, whatever it asks: a
        // seat cannot make this one send its log over and over.
        let (_, at) = self.last_reply[i];
        if at != 0 && self.now < at + RETRANSMIT_MS / 2 {
            return;
        }
        self.last_reply[i] = (from_seq, self.now.max(1));
        let mut frames: Vec<Vec<u8>> = Vec::new();
        let mut bytes = 0;
        let log = &self.replica.log;
        let logged = log
            .iter()
            .skip(from_seq as usize)
            .flat_map(|r| r.entries.iter());
        let pending = self
            .slots
            .iter()
            .filter(|((h, s), _)| *h >= self.replica.hand_no || *s >= from_seq)
            .flat_map(|(_, slot)| slot.entries.iter().chain(slot.votes.iter()).flatten());
        for e in logged.chain(pending) {
            let held = e.seq == from_seq && !e.is_vote() && have & (1 << e.seat) != 0;
            if e.seat == seat || held {
                continue;
            }
            let f = e.encode();
            bytes += f.len();
            frames.push(f);
            if bytes > MAX_REPLY_BYTES {
                break;
            }
        }
        for f in frames {
            self.stats.reply_frames += 1;
            self.stats.reply_bytes += f.len() as u64;
            out.reply.push((seat, f));
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
            .map(Envelope::encode)
            .collect();
        for f in own {
            self.broadcast(f, out);
        }
        let have = self.slots.get(&(hand, next)).map_or(0, |slot| {
            (0..4u8)
                .filter(|&s| slot.entries[s as usize].is_some())
                .fold(0, |m, s| m | (1 << s))
        });
        let env = self.sign(
            Header {
                hand,
                seq: next,
                prev_hash: self.replica.head(),
            },
            Body::Request {
                from_seq: next,
                have,
            },
        );
        self.broadcast(env.encode(), out);
    }
}
