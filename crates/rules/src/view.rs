//! What one seat may see (a per-seat view of a [`HandState`]).
//!
//! A [`SeatView`] holds the seat's own concealed tiles, and of the others only what lies on
//! the table: melds (a concealed kong face down), flowers, discards, ready declarations and
//! how many tiles each holds; the wall only as a count, and the `baida` indicator face up.
//! It also carries the seat's legal actions, computed from the state before the view was
//! cut, so a bot or a UI can act from the view alone and never touch hidden information.

use crate::hand::MeldType;
use crate::options::Options;
use crate::scoring::Seat;
use crate::state::{Action, Card, Discard, HandState, Outcome, Phase};
use crate::tile::{KINDS, Tile};
use crate::wall::Dice;
use serde::{Deserialize, Serialize};

/// A meld as the table shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PublicMeld {
    /// The type.
    pub kind: MeldType,
    /// The tile (lowest of a chow); `None` for another seat's concealed kong (face down).
    pub tile: Option<Tile>,
    /// Whose discard was claimed.
    pub from: Option<Seat>,
}

/// One seat as the others see it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PublicSeat {
    /// Concealed tiles held.
    pub hand_size: u8,
    /// Melds.
    pub melds: Vec<PublicMeld>,
    /// Flowers set aside.
    pub flowers: Vec<Tile>,
    /// Discards, oldest first.
    pub discards: Vec<Discard>,
    /// Declared ready.
    pub ready: bool,
    /// 换牌: tiles put back face down (out of play; their faces stay hidden).
    pub buried: u8,
}

/// The phase as every seat sees it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PublicPhase {
    /// Initial flower replacement by `seat`.
    Flowers {
        /// Whose.
        seat: Seat,
    },
    /// `seat`'s turn.
    Turn {
        /// Whose.
        seat: Seat,
        /// It has drawn (not after a chow or pung).
        drawn: bool,
    },
    /// Claim window on `card` from `from`.
    Claims {
        /// The discarder.
        from: Seat,
        /// The discard.
        card: Card,
        /// Who has answered.
        answered: [bool; 4],
    },
    /// `from` adds `card` to a pung; the others may rob it.
    RobKong {
        /// The kong player.
        from: Seat,
        /// The tile.
        card: Card,
        /// Who has answered.
        answered: [bool; 4],
    },
    /// Over.
    Over(Box<Outcome>),
    /// 换牌 (option `swap_five`): every seat puts five tiles back or passes, at once.
    Swap {
        /// Who has answered (not what).
        answered: [bool; 4],
    },
}

/// What `seat` may see of a hand.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SeatView {
    /// Whose view.
    pub seat: Seat,
    /// The options.
    pub options: Options,
    /// The dealer.
    pub dealer: Seat,
    /// The dice.
    pub dice: Dice,
    /// The 荒番 counter in force.
    pub huangfan: u32,
    /// The `baida` wildcard.
    pub wildcard: Option<Tile>,
    /// The `baida` indicator, face up in the wall.
    pub indicator: Option<Card>,
    /// The indicator is still where nobody shows it (in the wall, or in another seat's
    /// concealed hand), so it counts as seen; once discarded, melded or set aside it is
    /// counted there instead.
    pub indicator_unseen: bool,
    /// Tiles left in the wall.
    pub wall_remaining: u8,
    /// The phase.
    pub phase: PublicPhase,
    /// Own concealed tiles.
    pub hand: Vec<Card>,
    /// Own tile just drawn.
    pub drawn: Option<Card>,
    /// Own 漏胡 bars (bit per tile index).
    pub barred: u64,
    /// Everyone's public side (own included).
    pub seats: [PublicSeat; 4],
    /// `claims[a][b]`.
    pub claims: [[u32; 4]; 4],
    /// Own legal actions now.
    pub legal: Vec<Action>,
    /// 换牌: own tiles put back face down (this seat knows them; the others do not).
    pub put_back: Vec<Card>,
}

impl SeatView {
    /// Tiles of each kind this seat can see (own hand and own tiles put back by 换牌, all
    /// melds shown, discards, flowers, the indicator): what is *not* live for it.
    pub fn visible_counts(&self) -> [u8; KINDS] {
        let mut n = [0u8; KINDS];
        let mut add = |t: Tile, k: u8| n[t.index()] = n[t.index()].saturating_add(k);
        for c in self.hand.iter().chain(&self.put_back) {
            add(c.tile, 1);
        }
        for s in &self.seats {
            for m in &s.melds {
                if let Some(t) = m.tile {
                    if m.kind == MeldType::Chow {
                        for d in 0..3 {
                            if let Some(x) = Tile::from_index(t.index() + d) {
                                add(x, 1);
                            }
                        }
                    } else {
                        add(t, if m.kind.is_kong() { 4 } else { 3 });
                    }
                }
            }
            for f in &s.flowers {
                add(*f, 1);
            }
            for d in &s.discards {
                if !d.claimed {
                    add(d.card.tile, 1);
                }
            }
        }
        if let (Some(i), true) = (self.indicator, self.indicator_unseen) {
            add(i.tile, 1);
        }
        n
    }

    /// Whether it is this seat's moment to act.
    pub fn must_act(&self) -> bool {
        !self.legal.is_empty()
    }

    /// The tiles this seat's concealed hand waits on (when it holds 3n+1 tiles), each with
    /// how many copies are still live for it: not in its hand, not in any meld, flower row
    /// or discard pond it can see ([`SeatView::visible_counts`]). A wait whose copies are all
    /// seen is listed with 0: the hand is ready on it, but no copy can come.
    pub fn waits_live(&self) -> Vec<(Tile, u8)> {
        if self.hand.len() % 3 != 1 {
            return Vec::new();
        }
        let tiles: Vec<Tile> = self.hand.iter().map(|c| c.tile).collect();
        let counts = crate::tile::counts_of(&tiles);
        let melds: Vec<crate::hand::MeldShape> = self.seats[self.seat as usize & 3]
            .melds
            .iter()
            .filter_map(|m| {
                m.tile
                    .map(|tile| crate::hand::MeldShape { kind: m.kind, tile })
            })
            .collect();
        let mask = crate::hand::waits(&self.options, &counts, &melds, self.wildcard);
        let seen = self.visible_counts();
        (0..KINDS)
            .filter(|&i| mask & (1 << i) != 0)
            .filter_map(|i| Tile::from_index(i).map(|t| (t, 4u8.saturating_sub(seen[i]))))
            .collect()
    }
}

impl HandState {
    /// What `seat` may see now.
    pub fn view(&self, seat: Seat) -> SeatView {
        let seat = seat & 3;
        let setup = self.setup();
        let mut seats: [PublicSeat; 4] = Default::default();
        for (i, ps) in seats.iter_mut().enumerate() {
            let st = self.seat(i as Seat);
            ps.hand_size = st.hand.len() as u8;
            ps.melds = st
                .melds
                .iter()
                .map(|m| PublicMeld {
                    kind: m.shape.kind,
                    tile: if m.shape.kind == MeldType::ConcealedKong
                        && i as Seat != seat
                        && !self.is_over()
                    {
                        None
                    } else {
                        Some(m.shape.tile)
                    },
                    from: m.from,
                })
                .collect();
            ps.flowers = st.flowers.iter().map(|c| c.tile).collect();
            ps.discards = st.discards.clone();
            ps.ready = st.ready;
            ps.buried = st.buried.len() as u8;
        }
        let answered = |a: &[Option<bool>; 4]| a.map(|x| x.is_some());
        let phase = match self.phase() {
            Phase::Flowers { seat, .. } => PublicPhase::Flowers { seat: *seat },
            Phase::Turn { seat, drawn, .. } => PublicPhase::Turn {
                seat: *seat,
                drawn: drawn.is_some(),
            },
            Phase::Claims {
                from,
                card,
                answers,
                ..
            } => PublicPhase::Claims {
                from: *from,
                card: *card,
                answered: answers.map(|x| x.is_some()),
            },
            Phase::RobKong {
                from,
                card,
                answers,
            } => PublicPhase::RobKong {
                from: *from,
                card: *card,
                answered: answered(answers),
            },
            Phase::Swap { answered, .. } => PublicPhase::Swap {
                answered: *answered,
            },
            Phase::Over(o) => PublicPhase::Over(o.clone()),
        };
        let drawn = match self.phase() {
            Phase::Turn {
                seat: s,
                drawn: Some(p),
                ..
            } if *s == seat => self.face(*p).map(|tile| Card { pos: *p, tile }),
            _ => None,
        };
        SeatView {
            seat,
            options: setup.options.clone(),
            dealer: setup.dealer,
            dice: setup.dice,
            huangfan: self.huangfan(),
            wildcard: self.wildcard(),
            indicator: self
                .indicator()
                .and_then(|p| self.face(p).map(|tile| Card { pos: p, tile })),
            wall_remaining: self.wall_remaining(),
            indicator_unseen: self.indicator().is_some_and(|p| {
                let in_wall = (self.next_live()
                    ..self.next_live().saturating_add(self.wall_remaining()))
                    .contains(&p);
                let in_other_hand = (0..4u8).any(|s| s != seat && self.seat(s).hand.contains(&p));
                in_wall || in_other_hand
            }),
            phase,
            hand: self.hand_cards(seat),
            drawn,
            barred: self.seat(seat).barred,
            seats,
            claims: *self.claims(),
            legal: self.legal_actions(seat),
            put_back: self
                .seat(seat)
                .buried
                .iter()
                .filter_map(|&p| self.face(p).map(|tile| Card { pos: p, tile }))
                .collect(),
        }
    }
}
