//! What the table screen is told beside the player's own events, built once for every table:
//! the strong bot's hint at each prompt, a proof checked before it is shown, the hand end with
//! all four hands face up and the explanation of the payments. The practice engine
//! ([`crate::engine`]) and the LAN link ([`crate::lan`]) both feed a [`Watcher`] the player's
//! seat's events and views, in the order the seat saw them.

use mahjong_bot::Bot;
use mahjong_rules::{Card, Event, SeatView};
use mahjong_table::TableEvent;

use crate::engine::{Failure, HandEnd, Proof, Update, explain};

/// Follows the player's seat through a hand.
pub struct Watcher {
    advisor: Option<Bot>,
    view: Option<Box<SeatView>>,
    /// The view once the hand's last move was played (what the hand end shows).
    final_view: Option<Box<SeatView>>,
    /// The last move was seen; the view after it is the final one.
    ending: bool,
    faults: bool,
    /// Every seat's concealed tiles at the end of a hand (the deal's audit, or the practice
    /// engine's four clients).
    revealed: Option<(u32, Box<[Vec<Card>; 4]>)>,
}

impl Watcher {
    /// A watcher that hints with `advisor` (none: no hints, a bot plays the seat).
    pub fn new(advisor: Option<Bot>) -> Watcher {
        Watcher {
            advisor,
            view: None,
            final_view: None,
            ending: false,
            faults: false,
            revealed: None,
        }
    }

    /// The player's view after the events just told.
    pub fn view(&mut self, view: &SeatView) {
        let view = Box::new(view.clone());
        if std::mem::take(&mut self.ending) {
            self.final_view = Some(view.clone());
        }
        self.view = Some(view);
    }

    /// Every seat's concealed tiles at the end of hand `hand`.
    pub fn revealed(&mut self, hand: u32, hands: [Vec<Card>; 4]) {
        self.revealed = Some((hand, Box::new(hands)));
    }

    /// An event of the player's seat: the updates to show for it, itself included, in order.
    /// `kept` is the table under which a finished hand is kept in the player's store.
    pub fn event(&mut self, ev: TableEvent, kept: Option<[u8; 32]>) -> Vec<Update> {
        let mut updates = Vec::new();
        match &ev {
            TableEvent::YourTurn { view, .. } => {
                if let Some(advisor) = self.advisor.as_mut() {
                    let d = advisor.decide(view);
                    updates.push(Update::Hint {
                        action: d.action,
                        reason: d.reason,
                    });
                }
            }
            TableEvent::Moved { events, .. }
                if events.iter().any(|e| matches!(e, Event::HandOver { .. })) =>
            {
                self.final_view = self.view.clone();
                self.ending = true;
            }
            TableEvent::Evidence(e) => {
                self.faults = true;
                updates.push(Update::Proven(Proof::of(e)));
            }
            TableEvent::Halted { reason } => {
                updates.push(Update::Failed(Failure::Halted(reason.clone())));
            }
            _ => {}
        }
        let end = match &ev {
            TableEvent::HandOver { result, signatures } => {
                Some(self.hand_end(result, signatures.len(), kept))
            }
            _ => None,
        };
        updates.push(Update::Table(ev));
        if let Some(end) = end {
            updates.push(Update::HandEnded(Box::new(end)));
        }
        updates
    }

    fn hand_end(
        &mut self,
        result: &mahjong_table::HandResult,
        signatures: usize,
        kept: Option<[u8; 32]>,
    ) -> HandEnd {
        self.ending = false;
        let view = self.final_view.take().or_else(|| self.view.clone());
        // Every seat's concealed tiles; for a hand without an audit (an aborted one), only
        // the player's own.
        let mut hands: [Vec<Card>; 4] = match self.revealed.take() {
            Some((hand, all)) if hand == result.hand => *all,
            _ => Default::default(),
        };
        if let Some(v) = &view
            && let Some(h) = hands.get_mut(v.seat as usize)
            && h.is_empty()
        {
            *h = v.hand.clone();
        }
        let end = HandEnd {
            result: Box::new(result.clone()),
            hands,
            view,
            signed_by_all: !result.aborted && signatures == 4,
            audited: !self.faults && !result.aborted,
            explanation: explain(result),
            kept,
        };
        self.faults = false;
        end
    }
}
