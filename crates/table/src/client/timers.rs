//! Timers (docs/rules.en.md §4.8): this seat's own (auto-play, auto-pass, auto-decline), watching
//! the others (silent, returned, the abort vote after `disconnect_seconds`), retransmission,
//! and the next deadline.

use mahjong_rules::{Options, Seat};

use super::{Client, SILENT_GRACE_MS};
use crate::event::TableEvent;
use crate::io::{Output, Rejected};
use crate::replica::{Ending, Expect, StepKind};

impl Client {
    // ---- timers ----

    pub(super) fn options(&self) -> Option<&Options> {
        self.replica.proposal.as_ref().map(|p| &p.options)
    }

    /// This seat's own timer at a play step: `claim_seconds` in a claim window,
    /// `start_seconds` for 换牌 (`swap_five`), else `discard_seconds`.
    pub(super) fn own_timer_ms(&self, claim: bool) -> u64 {
        let o = self.options();
        let swap = claim && self.replica.hand.as_ref().is_some_and(|h| h.is_swap());
        let secs = match (o, claim) {
            (Some(o), true) if swap => o.start_seconds,
            (Some(o), true) => o.claim_seconds,
            (Some(o), false) => o.discard_seconds,
            (None, _) => 20,
        };
        secs as u64 * 1000
    }

    pub(super) fn disconnect_ms(&self) -> u64 {
        self.options().map_or(180, |o| o.disconnect_seconds) as u64 * 1000
    }

    /// How long a seat may stay silent at step `exp` before the others vote against it: the
    /// disconnect limit, but at the opening of committed claim answers only the claim timer
    /// and the grace (an unopened commitment is the seat's own doing: opening is automatic),
    /// and before the first hand is dealt (the proposal, the answers to it, the first deal)
    /// only `start_seconds` and the grace: a seat that does not answer in time has declined
    /// (its own timer declines for it), nothing is booked yet, and waiting the disconnect limit
    /// would only hold the three others at a table that cannot start; a seat taken by a peer
    /// that then stays silent holds the table seconds, not minutes.
    pub(super) fn limit_ms(&self, exp: &Expect) -> u64 {
        match exp.kind {
            StepKind::Open => self.own_timer_ms(true) + SILENT_GRACE_MS,
            StepKind::Propose | StepKind::Accept => {
                (self.start_ms() + SILENT_GRACE_MS).min(self.disconnect_ms())
            }
            StepKind::Deal if exp.hand <= 1 && self.replica.results.is_empty() => {
                (self.start_ms() + SILENT_GRACE_MS).min(self.disconnect_ms())
            }
            _ => self.disconnect_ms(),
        }
    }

    pub(super) fn start_ms(&self) -> u64 {
        self.options().map_or(15, |o| o.start_seconds) as u64 * 1000
    }

    /// When the watchers warn about a seat silent at this step.
    pub(super) fn warn_at(&self, exp: &Expect) -> u64 {
        let timer = match exp.kind {
            StepKind::Play { claim } => self.own_timer_ms(claim),
            StepKind::Open => self.own_timer_ms(true),
            StepKind::Accept => self.start_ms(),
            _ => 0,
        };
        self.clock.started + timer + SILENT_GRACE_MS
    }

    pub(super) fn missing(&self, exp: &Expect) -> u8 {
        let slot = self.slots.get(&(exp.hand, exp.seq));
        (0..4u8)
            .filter(|&s| {
                exp.speaks(s)
                    && s != self.me()
                    && slot.is_none_or(|sl| sl.entries[s as usize].is_none())
            })
            .fold(0, |m, s| m | (1 << s))
    }

    pub(super) fn on_timers(&mut self, out: &mut Output) {
        let Some(exp) = self.replica.expected() else {
            return;
        };
        let now = self.now;
        let halted = self.halted_hand == Some(exp.hand);
        // This seat's own timer (docs/rules.en.md §4.8).
        if !halted && exp.speaks(self.me()) && !self.has_entry(&exp) {
            match exp.kind {
                StepKind::Play { claim }
                    if now >= self.clock.started + self.own_timer_ms(claim)
                        && !self.clock.timed_out_acted =>
                {
                    self.clock.timed_out_acted = true;
                    let action = self
                        .replica
                        .state()
                        .and_then(|s| s.default_action(self.me()));
                    if let Some(a) = action
                        && let Err(e) = self.on_act(a, true, out)
                    {
                        out.rejected.push(Rejected::Act(e));
                    }
                }
                StepKind::Accept if now >= self.clock.started + self.start_ms() => {
                    let _ = self.on_accept(false, out);
                }
                _ => {}
            }
        }
        // Watching the others.
        let missing = if halted { 0 } else { self.missing(&exp) };
        if missing != 0 && now >= self.warn_at(&exp) {
            for s in 0..4u8 {
                if missing & !self.clock.warned & (1 << s) != 0 {
                    self.clock.warned |= 1 << s;
                    out.events.push(TableEvent::SeatSilent { seat: s });
                }
            }
        }
        // Seats silent at once: those missing here and those not heard from at all since
        // the limit started to run (a waiting seat asks for what it misses every
        // RETRANSMIT_MS, so a live one is heard).
        let since = self.clock.limit_from;
        let unheard = (0..4u8)
            .filter(|&s| s != self.me() && self.heard[s as usize] <= since && !halted)
            .fold(0u8, |m, s| m | (1 << s));
        let silent = if missing != 0 { missing | unheard } else { 0 };
        // Waiting for the settlements that void this seat's earlier vote, when every seat
        // that could give one voted too: neither a settlement nor an abort can form.
        let stuck = !halted && self.waiting_voids();
        let blocked = silent.count_ones() >= 2 || stuck;
        if self.paused != 0 && !blocked {
            // One came back: the table goes on, and the limit runs again for the other.
            self.paused = 0;
            self.clock.limit_from = now;
            self.clock.gave_up = false;
            out.events.push(TableEvent::Resumed);
        }
        if missing != 0 && now >= self.clock.limit_from + self.limit_ms(&exp) && !self.clock.gave_up
        {
            if blocked {
                // No abort can gather three votes: the table pauses (once) and says so.
                if self.paused == 0 {
                    for s in 0..4u8 {
                        if silent & !self.clock.warned & (1 << s) != 0 {
                            self.clock.warned |= 1 << s;
                            out.events.push(TableEvent::SeatSilent { seat: s });
                        }
                    }
                    self.paused = silent.max(1);
                    out.events.push(TableEvent::Paused {
                        silent: (0..4u8).filter(|s| silent & (1 << s) != 0).collect(),
                    });
                }
            } else if self.sanction == 0 {
                self.clock.gave_up = true;
                let silent = missing.trailing_zeros() as Seat;
                self.blame(&exp, silent, Ending::SessionOver, out);
            } else {
                // This seat holds proof that a seat misbehaved: it votes against that seat
                // (see `cast_deferred_votes`), never against a silent one.
                self.clock.gave_up = true;
            }
        }
        // Retransmission while something is outstanding.
        let outstanding = missing != 0 || halted || self.waiting_voids();
        if outstanding && now >= self.next_retransmit {
            self.retransmit(out, true);
        }
    }

    pub(super) fn deadline(&self) -> Option<u64> {
        let exp = self.replica.expected()?;
        let mut next: Option<u64> = None;
        let mut at = |t: u64| next = Some(next.map_or(t, |n| n.min(t)));
        let halted = self.halted_hand == Some(exp.hand);
        if !halted && exp.speaks(self.me()) && !self.has_entry(&exp) {
            match exp.kind {
                StepKind::Play { claim } if !self.clock.timed_out_acted => {
                    at(self.clock.started + self.own_timer_ms(claim));
                }
                StepKind::Accept => at(self.clock.started + self.start_ms()),
                _ => {}
            }
        }
        let missing = if halted { 0 } else { self.missing(&exp) };
        if missing != 0 {
            if missing & !self.clock.warned != 0 {
                at(self.warn_at(&exp));
            }
            if !self.clock.gave_up && self.paused == 0 {
                at(self.clock.limit_from + self.limit_ms(&exp));
            }
        }
        if missing != 0 || halted || self.waiting_voids() {
            at(self.next_retransmit.max(self.now + 1));
        }
        next
    }
}

impl Client {
    /// Whether this seat waits, at the settlement step, for the plain settlements that void
    /// its earlier votes.
    pub(super) fn waiting_voids(&self) -> bool {
        self.replica.expected().is_some_and(|e| {
            e.kind == StepKind::Settle && !self.has_entry(&e) && self.settle_voids(&e).is_err()
        })
    }
}
