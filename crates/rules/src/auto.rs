//! What the table plays for a seat without asking its player: one policy for the app, the
//! terminal game and anything else that seats a person (the bots decide everything
//! themselves; a seat whose timer runs out gets [`crate::HandState::default_action`]).

use crate::state::Action;
use crate::view::{PublicPhase, SeatView};

impl SeatView {
    /// The action to play for the player now, or `None` when the choice is the player's:
    /// - 换牌 is always the player's choice;
    /// - a flower is set aside at once (the rules allow nothing else before it);
    /// - a prompt with one action that is not a discard is played (a claim window with
    ///   nothing to claim, the end of a flower replacement);
    /// - after 敲 the hand plays itself: the drawn tile is discarded (the only discards left
    ///   are of that tile in effect: the hand is fixed) and claim windows are passed, except
    ///   where the player can win or make a kong, which stay the player's to take or leave.
    ///
    /// The action returned is always one of [`SeatView::legal`].
    pub fn auto_action(&self) -> Option<Action> {
        let legal = &self.legal;
        if legal.is_empty() || matches!(self.phase, PublicPhase::Swap { .. }) {
            return None;
        }
        if let Some(f) = legal.iter().find(|a| matches!(a, Action::Flower { .. })) {
            return Some(f.clone());
        }
        if let [only] = legal.as_slice()
            && !matches!(only, Action::Discard { .. })
        {
            return Some(only.clone());
        }
        if !self.seats[self.seat as usize].ready {
            return None;
        }
        let choice = |a: &Action| {
            matches!(
                a,
                Action::Win { .. }
                    | Action::ConcealedKong { .. }
                    | Action::AddedKong { .. }
                    | Action::Kong { .. }
            )
        };
        if legal.iter().any(choice) {
            return None;
        }
        if legal.iter().all(|a| matches!(a, Action::Discard { .. })) {
            let drawn = self.drawn.map(|c| c.tile);
            let pick = legal
                .iter()
                .find(|a| matches!(a, Action::Discard { card, .. } if Some(card.tile) == drawn))
                .unwrap_or(&legal[0]);
            return Some(pick.clone());
        }
        legal.contains(&Action::Pass).then_some(Action::Pass)
    }
}
