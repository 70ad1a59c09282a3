//! 换牌 (option `swap_five`, docs/rules.en.md §7) as a player names it: five tiles in the
//! compact notation (`"19m 5z 34p"`) turned into the [`Action::Swap`] of a [`SeatView`], with
//! a typed error naming what is wrong. The rule itself (when, in which order, what happens to
//! the five put back) is in [`crate::state`].

use crate::state::{Action, Card};
use crate::tile::{NotationError, Tile, parse_tiles};
use crate::view::{PublicPhase, SeatView};

/// Why five tiles named for 换牌 cannot be put back.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SwapChoiceError {
    /// The seat has no 换牌 to answer now.
    #[error("this is not the moment for 换牌 (swapping five tiles)")]
    NotNow,
    /// The text is not tile notation.
    #[error("换牌: {0}")]
    Notation(#[from] NotationError),
    /// Not five tiles.
    #[error("换牌 puts back exactly five tiles, got {0}")]
    Count(usize),
    /// More of a tile than the hand holds.
    #[error("换牌: you hold {held} of {tile}, not {named}")]
    NotHeld {
        /// The tile.
        tile: Tile,
        /// How many the hand holds.
        held: usize,
        /// How many were named.
        named: usize,
    },
}

impl SeatView {
    /// The [`Action::Swap`] putting back the five tiles `text` names (e.g. `"19m 5z 34p"`),
    /// taken from this seat's concealed tiles; which copy of a tile held twice is put back
    /// makes no difference to the game. The action is one of [`SeatView::legal`].
    pub fn swap_action(&self, text: &str) -> Result<Action, SwapChoiceError> {
        if !matches!(self.phase, PublicPhase::Swap { answered } if !answered[self.seat as usize]) {
            return Err(SwapChoiceError::NotNow);
        }
        let tiles = parse_tiles(text)?;
        if tiles.len() != 5 {
            return Err(SwapChoiceError::Count(tiles.len()));
        }
        let mut left: Vec<Card> = self.hand.clone();
        let mut put_back = [0u8; 5];
        for (i, &tile) in tiles.iter().enumerate() {
            let Some(at) = left.iter().position(|c| c.tile == tile) else {
                return Err(SwapChoiceError::NotHeld {
                    tile,
                    held: self.hand.iter().filter(|c| c.tile == tile).count(),
                    named: tiles.iter().filter(|&&t| t == tile).count(),
                });
            };
            put_back[i] = left.remove(at).pos;
        }
        put_back.sort_unstable();
        Ok(Action::Swap { put_back })
    }
}
