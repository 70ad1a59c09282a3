//! Timers (RULES.md §4.8): this seat's own (auto-play, auto-pass, auto-decline), watching
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

    pub(super) fn own_timer_ms(&self, claim: bool) -> u64 {
        let o = self.options();
        let secs = match (o, claim) {
            (Some(o), true) => o.claim_seconds,
            (Some(o), false) => o.discard_seconds,
            (None, _) => 20,
        };
        secs as u64 * 1000
    }

    pub(super) fn disconnect_ms(&self) -> u64 {
        self.options().map_or(180, |o| o.disconnect_seconds) as u64 * 1000
    }

    pub(super) fn start_ms(&self) -> u64 {
        self.options().map_or(15, |o| o.start_seconds) as u64 * 1000
    }

    /// When the watchers warn about a seat silent at this step.
    pub(super) fn warn_at(&self, exp: &Expect) -> u64 {
        let timer = match exp.kind {
            StepKind::Play { claim } => self.own_timer_ms(claim),
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
        // This seat's own timer (RULES.md §4.8).
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
        if missing != 0 && now >= self.clock.started + self.disconnect_ms() && !self.clock.gave_up {
            self.clock.gave_up = true;
            let silent = missing.trailing_zeros() as Seat;
            self.blame(&exp, silent, Ending::SessionOver, out);
        }
        // Retransmission while something is outstanding.
        let outstanding = missing != 0 || halted || self.settle_blocked();
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
            if !self.clock.gave_up {
                at(self.clock.started + self.disconnect_ms());
            }
        }
        if missing != 0 || halted || self.settle_blocked() {
            at(self.next_retransmit.max(self.now + 1));
        }
        next
    }
}
