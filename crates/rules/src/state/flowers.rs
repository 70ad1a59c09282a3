//! The flower replacement and 换牌 (`swap_five`): setting flowers aside, 八花齐 and the
//! swap of five tiles, as the module header of `state` reads them.

use super::*;

impl HandState {
    pub(super) fn set_flower_aside(
        &mut self,
        seat: Seat,
        card: Card,
        events: &mut Vec<Event>,
    ) -> Result<(), MoveError> {
        self.check_in_hand(seat, card)?;
        if !self.is_flower(card.tile) {
            return illegal(seat, format!("{} is not a flower", card.tile));
        }
        self.faces[card.pos as usize] = Some(card.tile);
        self.remove_from_hand(seat, card.pos);
        self.seats[seat as usize].flowers.push(card);
        events.push(Event::FlowerSetAside { seat, card });
        Ok(())
    }

    /// 四百搭: all four wildcards in the concealed hand (known here).
    pub(super) fn holds_four_wildcards(&self, seat: Seat) -> bool {
        self.setup.options.four_wildcards
            && self.wildcard.is_some_and(|w| {
                self.seats[seat as usize]
                    .hand
                    .iter()
                    .filter(|&&p| self.face(p) == Some(w))
                    .count()
                    == 4
            })
    }

    /// 八花齐: all eight flower tiles (1f-8f) set aside.
    pub(super) fn has_eight_flowers(&self, seat: Seat) -> bool {
        self.setup.options.eight_flowers && self.flower_tiles_aside(seat) == 8
    }

    /// Flower tiles (1f-8f; not `baida`'s dragons) the seat has set aside.
    pub(super) fn flower_tiles_aside(&self, seat: Seat) -> usize {
        self.seats[seat as usize]
            .flowers
            .iter()
            .filter(|c| c.tile.is_flower())
            .count()
    }

    pub(super) fn flowers_phase(
        &mut self,
        seat: Seat,
        done: u8,
        action: &Action,
        events: &mut Vec<Event>,
    ) -> Result<(), MoveError> {
        match action {
            Action::Flower { card } => {
                self.set_flower_aside(seat, *card, events)?;
                if self.has_eight_flowers(seat) {
                    return self.win_eight_flowers(seat, events);
                }
                self.draw(seat, true, events);
                if !self.is_over() {
                    self.phase = Phase::Flowers { seat, done };
                }
                Ok(())
            }
            Action::Pass => {
                if let Some(f) = self.flower_in_hand(seat) {
                    return illegal(seat, format!("must set its flower {} aside first", f.tile));
                }
                events.push(Event::FlowersDone { seat });
                if let Some(mask) = self.swapped {
                    // The flower replacement after 换牌: only the seats that swapped.
                    match self.next_in_mask(seat, mask) {
                        Some(next) => {
                            self.phase = Phase::Flowers {
                                seat: next,
                                done: done + 1,
                            }
                        }
                        None => self.start_first_turn(),
                    }
                } else if done + 1 == 4 {
                    if self.setup.options.swap_five {
                        self.phase = Phase::Swap {
                            answered: [false; 4],
                            put_back: [None; 4],
                        };
                    } else {
                        self.start_first_turn();
                    }
                } else {
                    self.phase = Phase::Flowers {
                        seat: (seat + 1) % 4,
                        done: done + 1,
                    };
                }
                Ok(())
            }
            Action::Win { reveal } if self.setup.options.four_wildcards => {
                // 四百搭 wins at once, even before the first turn.
                self.learn_reveal(seat, reveal)?;
                let concealed = self.concealed_tiles(seat)?;
                let wild = self.wildcard;
                let n = wild
                    .map(|w| concealed.iter().filter(|&&t| t == w).count())
                    .unwrap_or(0);
                if n != 4 {
                    return illegal(
                        seat,
                        "during the flower replacement only four wildcards win",
                    );
                }
                let winner = self.winner_hand(seat, concealed, None, false);
                self.settle(WinKind::FourWildcards, None, vec![winner], events)
            }
            _ => illegal(seat, "during the flower replacement only Flower or Pass"),
        }
    }

    /// The dealer's first turn: its last tile received counts as drawn (a replacement if it
    /// came from the back of the wall).
    pub(super) fn start_first_turn(&mut self) {
        let dealer = self.setup.dealer;
        let last = self.seats[dealer as usize].hand.last().copied();
        let back = self.front as u16 + self.remaining as u16;
        let replacement = last.is_some_and(|p| p as u16 >= back);
        self.phase = Phase::Turn {
            seat: dealer,
            drawn: last,
            replacement,
        };
    }

    /// The first seat in `mask` after `after` in turn order, not going past the seat before
    /// the dealer (the round runs from the dealer).
    pub(super) fn next_in_mask(&self, after: Seat, mask: u8) -> Option<Seat> {
        let dealer = self.setup.dealer;
        let rank = |s: Seat| (s + 4 - dealer) % 4;
        (rank(after) + 1..4)
            .map(|r| (dealer + r) % 4)
            .find(|s| mask & (1 << s) != 0)
    }

    /// Checks a 换牌 choice: five positions, strictly increasing, all in the seat's concealed
    /// hand, none a known flower.
    pub(super) fn check_swap(&self, seat: Seat, put_back: &[u8; 5]) -> Result<(), MoveError> {
        if put_back.windows(2).any(|w| w[0] >= w[1]) {
            return illegal(
                seat,
                "换牌 names five different wall positions in increasing order",
            );
        }
        for &pos in put_back {
            if !self.seats[seat as usize].hand.contains(&pos) {
                return illegal(seat, format!("换牌: holds no tile at wall position {pos}"));
            }
            if let Some(t) = self.face(pos)
                && self.is_flower(t)
            {
                return illegal(
                    seat,
                    format!("换牌: {t} is a flower, not a tile to put back"),
                );
            }
        }
        Ok(())
    }

    pub(super) fn swap_phase(
        &mut self,
        seat: Seat,
        mut answered: [bool; 4],
        mut put_back: [Option<[u8; 5]>; 4],
        action: &Action,
        events: &mut Vec<Event>,
    ) -> Result<(), MoveError> {
        match action {
            Action::Pass => {}
            Action::Swap { put_back: p } => {
                self.check_swap(seat, p)?;
                put_back[seat as usize] = Some(*p);
            }
            _ => return illegal(seat, "during 换牌 only Swap (five tiles) or Pass"),
        }
        answered[seat as usize] = true;
        events.push(Event::Answered { seat });
        if answered.iter().any(|a| !a) {
            self.phase = Phase::Swap { answered, put_back };
            return Ok(());
        }
        // All four have answered: bury and draw, in turn order from the dealer.
        let dealer = self.setup.dealer;
        let mut mask = 0u8;
        for r in 0..4 {
            let s = (dealer + r) % 4;
            let Some(p) = put_back[s as usize] else {
                continue;
            };
            mask |= 1 << s;
            for &pos in &p {
                self.remove_from_hand(s, pos);
                self.seats[s as usize].buried.push(pos);
            }
            for _ in 0..5 {
                // The wall holds far more than twenty tiles after the deal.
                if self.remaining == 0 {
                    break;
                }
                let pos = self.front;
                self.front += 1;
                self.remaining -= 1;
                self.seats[s as usize].hand.push(pos);
                events.push(Event::Drew {
                    seat: s,
                    pos,
                    replacement: false,
                });
            }
            events.push(Event::Swapped {
                seat: s,
                put_back: p,
            });
        }
        match (0..4)
            .map(|r| (dealer + r) % 4)
            .find(|s| mask & (1 << s) != 0)
        {
            Some(first) => {
                self.swapped = Some(mask);
                self.phase = Phase::Flowers {
                    seat: first,
                    done: 0,
                };
            }
            None => {
                self.swapped = Some(0);
                self.start_first_turn();
            }
        }
        Ok(())
    }
}

/// Calls `f` with every strictly increasing choice of five of `items` (sorted ascending).
pub(super) fn for_each_five(items: &[u8], mut f: impl FnMut([u8; 5])) {
    let n = items.len();
    if n < 5 {
        return;
    }
    let mut idx = [0usize, 1, 2, 3, 4];
    loop {
        f(idx.map(|i| items[i]));
        // Advance the rightmost index that can move.
        let mut k = 5;
        while k > 0 && idx[k - 1] == n - 5 + (k - 1) {
            k -= 1;
        }
        if k == 0 {
            return;
        }
        idx[k - 1] += 1;
        for j in k..5 {
            idx[j] = idx[j - 1] + 1;
        }
    }
}
