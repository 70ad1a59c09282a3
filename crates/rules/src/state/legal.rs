//! Every legal action of a seat, and what the table plays for a seat that does not answer.

use super::flowers::for_each_five;
use super::*;

impl HandState {
    // ---- legal actions ----

    /// Every legal action of `seat` now, as far as this engine knows its tiles (with full
    /// knowledge: exactly the legal set). Empty when the seat need not act. `Leave` is
    /// always possible and not listed.
    pub fn legal_actions(&self, seat: Seat) -> Vec<Action> {
        let mut out = Vec::new();
        self.legal_actions_into(seat, &mut out);
        out
    }

    /// [`legal_actions`](Self::legal_actions) into a buffer the caller reuses (it is
    /// cleared first): for hot loops such as random play and bots.
    pub fn legal_actions_into(&self, seat: Seat, out: &mut Vec<Action>) {
        out.clear();
        if seat > 3 || self.to_act_mask() & (1 << seat) == 0 {
            return;
        }
        let o = &self.setup.options;
        match &self.phase {
            Phase::Flowers { .. } => {
                if let Some(f) = self.flower_in_hand(seat) {
                    out.push(Action::Flower { card: f });
                } else {
                    out.push(Action::Pass);
                    if self.holds_four_wildcards(seat) {
                        out.push(Action::Win {
                            reveal: self.hand_cards(seat),
                        });
                    }
                }
            }
            Phase::Swap { .. } => {
                out.push(Action::Pass);
                let mut hand: Vec<u8> = self.seats[seat as usize]
                    .hand
                    .iter()
                    .copied()
                    .filter(|&p| self.face(p).is_none_or(|t| !self.is_flower(t)))
                    .collect();
                hand.sort_unstable();
                for_each_five(&hand, |put_back| out.push(Action::Swap { put_back }));
            }
            Phase::Turn { drawn, .. } => {
                let mut buf = [Card {
                    pos: 0,
                    tile: Tile::EAST,
                }; 16];
                let mut len = 0;
                for &pos in &self.seats[seat as usize].hand {
                    if let (Some(tile), true) = (self.face(pos), len < buf.len()) {
                        buf[len] = Card { pos, tile };
                        len += 1;
                    }
                }
                let hand = &buf[..len];
                if let Some(f) = hand.iter().find(|c| self.is_flower(c.tile)) {
                    out.push(Action::Flower { card: *f });
                    return;
                }
                let st = &self.seats[seat as usize];
                let Some(counts) = self.hand_counts(seat) else {
                    return;
                };
                let melds = self.shapes(seat);
                let after_claim = drawn.is_none();
                // Win
                let four_wild =
                    o.four_wildcards && self.wildcard.is_some_and(|w| counts[w.index()] == 4);
                let can_self_win = drawn.is_some()
                    && (!o.must_declare_ready || st.ready)
                    && hand::is_winning(o, &counts, &melds, self.wildcard);
                if (can_self_win || four_wild) && !after_claim {
                    out.push(Action::Win {
                        reveal: hand.to_vec(),
                    });
                }
                if st.ready {
                    if let Some(d) = drawn.and_then(|p| hand.iter().find(|c| c.pos == p)) {
                        out.push(Action::Discard {
                            card: *d,
                            ready: false,
                        });
                    }
                    return;
                }
                // Kongs (a replacement tile must exist)
                if self.remaining > 0 && !after_claim {
                    for i in 0..PLAY_KINDS {
                        if counts[i] == 4 {
                            let cs: Vec<Card> = hand
                                .iter()
                                .filter(|c| c.tile.index() == i)
                                .copied()
                                .collect();
                            if let Ok(cards) = <[Card; 4]>::try_from(cs) {
                                out.push(Action::ConcealedKong { cards });
                            }
                        }
                    }
                    for m in &st.melds {
                        if m.shape.kind == MeldType::Pung
                            && let Some(c) = hand.iter().find(|c| c.tile == m.shape.tile)
                        {
                            out.push(Action::AddedKong { card: *c });
                        }
                    }
                }
                // Discards: one per kind (the drawn tile preferred as the representative).
                let mut seen = 0u64;
                let mut reps = [Card {
                    pos: 0,
                    tile: Tile::EAST,
                }; 16];
                let mut n_reps = 0;
                let drawn_card = drawn.and_then(|p| hand.iter().find(|c| c.pos == p));
                for c in drawn_card.into_iter().chain(hand.iter().rev()) {
                    if seen & (1 << c.tile.index()) == 0 {
                        seen |= 1 << c.tile.index();
                        reps[n_reps] = *c;
                        n_reps += 1;
                    }
                }
                let declare = o.ready_declaration();
                // Discards that may leave a waiting hand: a standard wait (one table pass),
                // or every discard when the rest could be all honors (风一色) or wild.
                let maybe_ready = if !declare {
                    0
                } else if self.wildcard.is_some()
                    || (counts[..27].iter().map(|&n| n as u32).sum::<u32>() <= 1
                        && melds.iter().all(|m| !m.tile.is_suited()))
                {
                    u64::MAX
                } else {
                    shape::ready_discards(&counts)
                };
                for &c in &reps[..n_reps] {
                    out.push(Action::Discard {
                        card: c,
                        ready: false,
                    });
                    if maybe_ready & (1 << c.tile.index()) != 0 {
                        let mut left = counts;
                        left[c.tile.index()] -= 1;
                        if hand::waits(o, &left, &melds, self.wildcard) != 0 {
                            out.push(Action::Discard {
                                card: c,
                                ready: true,
                            });
                        }
                    }
                }
            }
            Phase::Claims {
                from,
                card,
                could_win,
                ..
            } => {
                out.push(Action::Pass);
                let t = card.tile;
                if could_win[seat as usize] {
                    out.push(Action::Win {
                        reveal: self.hand_cards(seat),
                    });
                }
                if self.seats[seat as usize].ready {
                    return;
                }
                // One pass over the hand: copies of the discard, and neighbours for a chow.
                let chow_ok = seat == (from + 1) % 4 && t.is_suited();
                let mut same = [Card { pos: 0, tile: t }; 3];
                let mut n_same = 0;
                let mut near: [Option<Card>; 5] = [None; 5]; // t-2, t-1, t, t+1, t+2
                for &pos in &self.seats[seat as usize].hand {
                    let Some(x) = self.face(pos) else { continue };
                    if x == t && n_same < 3 {
                        same[n_same] = Card { pos, tile: x };
                        n_same += 1;
                    }
                    if chow_ok && x.suit() == t.suit() {
                        let d = x.index() as isize - t.index() as isize;
                        if (-2..=2).contains(&d) && d != 0 && near[(d + 2) as usize].is_none() {
                            near[(d + 2) as usize] = Some(Card { pos, tile: x });
                        }
                    }
                }
                if n_same >= 3 && self.remaining > 0 {
                    out.push(Action::Kong {
                        cards: [same[0], same[1], same[2]],
                    });
                }
                if n_same >= 2 {
                    out.push(Action::Pung {
                        cards: [same[0], same[1]],
                    });
                }
                if chow_ok {
                    for (a, b) in [(0, 1), (1, 3), (3, 4)] {
                        if let (Some(x), Some(y)) = (near[a], near[b]) {
                            out.push(Action::Chow { cards: [x, y] });
                        }
                    }
                }
            }
            Phase::RobKong { card, .. } => {
                out.push(Action::Pass);
                if self.could_win_on(seat, card.tile, false) == Some(true) {
                    out.push(Action::Win {
                        reveal: self.hand_cards(seat),
                    });
                }
            }
            Phase::Over(_) => {}
        }
    }

    /// The action a seat's client plays when its timer runs out (docs/rules.en.md §4.8): pass a claim
    /// window; set a flower aside; a ready seat (and a seat with four wildcards) wins if it
    /// can; otherwise discard the drawn tile, or the last tile in hand.
    pub fn default_action(&self, seat: Seat) -> Option<Action> {
        let legal = self.legal_actions(seat);
        if legal.is_empty() {
            return None;
        }
        if let Some(a) = legal.iter().find(|a| matches!(a, Action::Flower { .. })) {
            return Some(a.clone());
        }
        // A ready seat's client plays its wins itself (001: 系统将为玩家自动摸牌和胡牌), and
        // four wildcards win at once.
        let auto_win = self.seats[seat as usize].ready || self.holds_four_wildcards(seat);
        if auto_win && let Some(w) = legal.iter().find(|a| matches!(a, Action::Win { .. })) {
            return Some(w.clone());
        }
        match &self.phase {
            Phase::Turn { drawn, .. } => {
                let hand = self.hand_cards(seat);
                let pick = drawn
                    .and_then(|p| hand.iter().find(|c| c.pos == p))
                    .or_else(|| hand.last())
                    .copied()?;
                Some(Action::Discard {
                    card: pick,
                    ready: false,
                })
            }
            _ => Some(Action::Pass),
        }
    }
}
