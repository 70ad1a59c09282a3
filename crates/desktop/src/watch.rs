//! What the table screen is told beside the player's own events, built once for every table:
//! the master bot's hint at each prompt, a proof checked before it is shown, the hand end with
//! all four hands face up and the explanation of the payments. The practice engine
//! ([`crate::engine`]) and the LAN link ([`crate::lan`]) both feed a [`Watcher`] the player's
//! seat's events and views, in the order the seat saw them.

use mahjong_bot::Bot;
use mahjong_rules::explain::Explanation;
use mahjong_rules::{Action, Seat};
use mahjong_rules::{Card, Event, SeatView};
use mahjong_table::{HandResult, Offence, TableEvent};

/// Everything the player's own seat saw of one finished hand, with all four hands face up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HandEnd {
    /// The signed result.
    pub result: Box<HandResult>,
    /// Each seat's concealed tiles at the end (the practice engine holds all four seats).
    pub hands: [Vec<Card>; 4],
    /// Each seat's view at the end (melds, flowers, discards), seat 0's point of view.
    pub view: Option<Box<SeatView>>,
    /// All four seats signed the result (not an abort).
    pub signed_by_all: bool,
    /// The audit passed: no seat was proven at fault during the hand.
    pub audited: bool,
    /// Why the payments are what they are (the rules crate's explanation of the settlement,
    /// or of a leaver's penalty); `None` for a drawn hand.
    pub explanation: Option<Box<Explanation>>,
    /// The table under which the hand is kept in the player's store (the history, and the
    /// review of the hand); `None` when it is not kept.
    pub kept: Option<[u8; 32]>,
}

/// The rules crate's explanation of a hand's outcome.
pub fn explain(result: &HandResult) -> Option<Box<Explanation>> {
    let setup = result.setup.as_ref();
    let options = setup.map_or(&result.session.options, |s| &s.options);
    let stake = setup.map_or(result.session.stake, |s| s.stake);
    let huangfan = setup.map_or(0, |s| s.huangfan);
    result
        .outcome
        .explain(options, stake, huangfan)
        .ok()
        .flatten()
        .map(Box::new)
}

/// What the UI is told.
#[derive(Clone, Debug)]
pub enum Update {
    /// An event of the player's own client.
    Table(TableEvent),
    /// The player's view after the latest change, and the engine clock then.
    View {
        /// The view.
        view: Box<SeatView>,
        /// Engine milliseconds.
        now: u64,
    },
    /// The master bot's advice for the player's current prompt.
    Hint {
        /// What it would play.
        action: Action,
        /// Why.
        reason: mahjong_bot::Reason,
    },
    /// A hand is over and signed; a practice table pauses until [`crate::engine::Command::Next`].
    HandEnded(Box<HandEnd>),
    /// A seat is proven at fault: the evidence was checked offline-style (replayed from the
    /// signed log alone) before it is shown.
    Proven(Proof),
    /// The table cannot go on, or cannot keep its hands.
    Failed(Failure),
    /// The table was seated again after a restart: `hands` were final before it (the hand
    /// under way is the next).
    Resumed {
        /// Hands final.
        hands: u32,
    },
}

/// Why a table cannot go on or cannot keep its hands (worded for the player by
/// [`crate::i18n::failure`]; `Display` is the English of logs and `--autoplay`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Failure {
    /// The table's hands cannot be kept in the player's history (the table still plays).
    #[error("the hands cannot be kept in the history: {0}")]
    NotKept(crate::records::RecordsError),
    /// The table's thread could not start, or stopped.
    #[error("the table thread stopped: {0}")]
    Thread(String),
    /// The table could not be set up or resumed (the engine's words).
    #[error("the table cannot start: {0}")]
    Start(String),
    /// The table halted (the table crate's reason).
    #[error("the table halted: {0}")]
    Halted(String),
}

/// What an evidence record proves, once checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proof {
    /// The culprit, or `None` when the record does not verify.
    pub seat: Option<Seat>,
    /// What it did (`None` when the record does not verify).
    pub offence: Option<Box<Offence>>,
    /// The table crate's words for it (or why the record does not verify).
    pub what: String,
}

impl Proof {
    /// What a record of evidence proves, checked against the tile set.
    pub fn of(evidence: &mahjong_table::Evidence) -> Proof {
        match evidence.verify_with_cards(crate::records::cards()) {
            Ok(c) => Proof {
                seat: Some(c.seat),
                what: c.offence.to_string(),
                offence: Some(Box::new(c.offence)),
            },
            Err(e) => Proof {
                seat: None,
                offence: None,
                what: e.to_string(),
            },
        }
    }
}

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
