//! The claim window after a discard (win > kong = pung > chow, several wins) and the
//! robbing window after an added kong.

use super::*;

impl HandState {
    /// Whether `seat` could win on `tile` given by another seat (discard or robbed kong),
    /// if its hand is known here.
    pub(super) fn could_win_on(&self, seat: Seat, tile: Tile, discard: bool) -> Option<bool> {
        let o = &self.setup.options;
        if !o.win_on_discard {
            return Some(false);
        }
        let st = &self.seats[seat as usize];
        if o.must_declare_ready && !st.ready {
            return Some(false);
        }
        if discard && st.barred & (1 << tile.index()) != 0 {
            return Some(false);
        }
        let mut c = self.hand_counts(seat)?;
        if tile.is_flower() {
            return Some(false);
        }
        // Cheap rejection: without wildcards, a tile with no copy and no neighbour in hand
        // would stand alone, which no winning hand allows (but 风一色, all honors anyhow).
        let i = tile.index();
        if self.wildcard.is_none() && c[i] == 0 {
            let lonely = if tile.is_suited() {
                let lo = i - (tile.number() as usize - 1).min(2);
                let hi = (i + (9 - tile.number() as usize).min(2)).min(26);
                c[lo..=hi].iter().all(|&n| n == 0)
            } else {
                c[..27].iter().any(|&n| n > 0)
                    || self.seats[seat as usize]
                        .melds
                        .iter()
                        .any(|m| m.shape.tile.is_suited())
            };
            if lonely {
                return Some(false);
            }
        }
        c[i] += 1;
        Some(hand::is_winning(o, &c, &self.shapes(seat), self.wildcard))
    }

    #[allow(clippy::too_many_arguments)] // the claim window's fields, passed unpacked
    pub(super) fn claim(
        &mut self,
        seat: Seat,
        from: Seat,
        card: Card,
        mut answers: [Option<Answer>; 4],
        could: [bool; 4],
        action: &Action,
        events: &mut Vec<Event>,
    ) -> Result<(), MoveError> {
        let ready = self.seats[seat as usize].ready;
        let t = card.tile;
        let no_meld = |what: &str| -> Result<(), MoveError> {
            if ready {
                illegal(seat, format!("has declared ready and cannot {what}"))
            } else {
                Ok(())
            }
        };
        let answer = match action {
            Action::Pass => Answer::Pass,
            Action::Win { reveal } => {
                let o = &self.setup.options;
                if !o.win_on_discard {
                    return illegal(seat, format!("{} wins by self-draw only", o.ruleset));
                }
                if o.must_declare_ready && !ready {
                    return illegal(seat, "must declare ready (敲) before it can win");
                }
                if self.seats[seat as usize].barred & (1 << t.index()) != 0 {
                    return illegal(
                        seat,
                        format!("passed a win on {t} (漏胡) and has not moved since"),
                    );
                }
                self.learn_reveal(seat, reveal)?;
                if let Some(false) = self.could_win_on(seat, t, true) {
                    return illegal(seat, format!("cannot win on {t}"));
                }
                Answer::Win
            }
            Action::Chow { cards } => {
                no_meld("chow")?;
                if seat != (from + 1) % 4 {
                    return illegal(seat, "only the next seat may chow");
                }
                Self::check_distinct(seat, cards)?;
                for c in cards {
                    self.check_in_hand(seat, *c)?;
                }
                let mut ts = [cards[0].tile, cards[1].tile, t];
                ts.sort();
                let seq = ts.iter().all(|x| x.is_suited())
                    && ts[0].suit() == ts[2].suit()
                    && ts[1].index() == ts[0].index() + 1
                    && ts[2].index() == ts[1].index() + 1;
                if !seq {
                    return illegal(seat, format!("{} is not a chow", format_tiles(&ts)));
                }
                Answer::Chow(*cards)
            }
            Action::Pung { cards } => {
                no_meld("pung")?;
                Self::check_distinct(seat, cards)?;
                for c in cards {
                    self.check_in_hand(seat, *c)?;
                    if c.tile != t {
                        return illegal(seat, format!("a pung of {t} needs two {t}"));
                    }
                }
                Answer::Pung(*cards)
            }
            Action::Kong { cards } => {
                no_meld("kong")?;
                if self.remaining == 0 {
                    return illegal(seat, "no tile is left to replace a kong");
                }
                Self::check_distinct(seat, cards)?;
                for c in cards {
                    self.check_in_hand(seat, *c)?;
                    if c.tile != t {
                        return illegal(seat, format!("a kong of {t} needs three {t}"));
                    }
                }
                Answer::Kong(*cards)
            }
            _ => {
                return illegal(
                    seat,
                    "after a discard a seat answers: win, kong, pung, chow or pass",
                );
            }
        };
        answers[seat as usize] = Some(answer);
        events.push(Event::Answered { seat });
        if answers.iter().any(Option::is_none) {
            self.phase = Phase::Claims {
                from,
                card,
                answers,
                could_win: could,
            };
            return Ok(());
        }
        self.resolve_claims(from, card, answers, could, events)
    }

    /// The resolution of the claim window: a pure function of the answers.
    pub(super) fn resolve_claims(
        &mut self,
        from: Seat,
        card: Card,
        answers: [Option<Answer>; 4],
        could: [bool; 4],
        events: &mut Vec<Event>,
    ) -> Result<(), MoveError> {
        let t = card.tile;
        // 漏胡 for every seat that could have won and did not say so.
        for s in 0..4u8 {
            if could[s as usize] && answers[s as usize] != Some(Answer::Win) {
                self.seats[s as usize].barred |= 1 << t.index();
                events.push(Event::MissedWin { seat: s, tile: t });
            }
        }
        let order = |k: u8| (from + k) % 4;
        let winners: Vec<Seat> = (1..4)
            .map(order)
            .filter(|&s| answers[s as usize] == Some(Answer::Win))
            .collect();
        if !winners.is_empty() {
            let hands = self.hands_winning_on(&winners, t)?;
            return self.settle(WinKind::Discard, Some(from), hands, events);
        }
        let claim = (1..4).map(order).find_map(|s| match answers[s as usize] {
            Some(a @ (Answer::Pung(_) | Answer::Kong(_))) => Some((s, a)),
            _ => None,
        });
        let claim = claim.or_else(|| {
            (1..4).map(order).find_map(|s| match answers[s as usize] {
                Some(a @ Answer::Chow(_)) => Some((s, a)),
                _ => None,
            })
        });
        let Some((claimer, answer)) = claim else {
            self.draw((from + 1) % 4, false, events);
            return Ok(());
        };
        let (kind, own): (MeldType, Vec<Card>) = match answer {
            Answer::Chow(c) => (MeldType::Chow, c.to_vec()),
            Answer::Pung(c) => (MeldType::Pung, c.to_vec()),
            Answer::Kong(c) => (MeldType::ClaimedKong, c.to_vec()),
            _ => return Ok(()),
        };
        for c in &own {
            self.faces[c.pos as usize] = Some(c.tile);
            self.remove_from_hand(claimer, c.pos);
        }
        if let Some(d) = self.seats[from as usize].discards.last_mut() {
            d.claimed = true;
        }
        let low = own.iter().map(|c| c.tile).chain([t]).min().unwrap_or(t);
        let shape = MeldShape { kind, tile: low };
        let mut cards: Vec<u8> = own.iter().map(|c| c.pos).collect();
        cards.push(card.pos);
        let st = &mut self.seats[claimer as usize];
        st.melds.push(Meld {
            shape,
            cards,
            from: Some(from),
        });
        st.barred = 0;
        self.claims[claimer as usize][from as usize] += 1;
        events.push(Event::Claimed {
            seat: claimer,
            from,
            meld: shape,
        });
        if kind == MeldType::ClaimedKong {
            self.draw(claimer, true, events);
        } else {
            self.phase = Phase::Turn {
                seat: claimer,
                drawn: None,
                replacement: false,
            };
        }
        Ok(())
    }

    pub(super) fn rob(
        &mut self,
        seat: Seat,
        from: Seat,
        card: Card,
        mut answers: [Option<bool>; 4],
        action: &Action,
        events: &mut Vec<Event>,
    ) -> Result<(), MoveError> {
        let rob = match action {
            Action::Pass => false,
            Action::Win { reveal } => {
                let o = &self.setup.options;
                if o.must_declare_ready && !self.seats[seat as usize].ready {
                    return illegal(seat, "must declare ready (敲) before it can win");
                }
                self.learn_reveal(seat, reveal)?;
                if let Some(false) = self.could_win_on(seat, card.tile, false) {
                    return illegal(seat, format!("cannot win on {}", card.tile));
                }
                true
            }
            _ => {
                return illegal(
                    seat,
                    "an added kong can only be robbed (Win) or let pass (Pass)",
                );
            }
        };
        answers[seat as usize] = Some(rob);
        events.push(Event::Answered { seat });
        if answers.iter().any(Option::is_none) {
            self.phase = Phase::RobKong {
                from,
                card,
                answers,
            };
            return Ok(());
        }
        let robbers: Vec<Seat> = (1..4)
            .map(|k| (from + k) % 4)
            .filter(|&s| answers[s as usize] == Some(true))
            .collect();
        if robbers.is_empty() {
            self.complete_added_kong(from, card, events);
            return Ok(());
        }
        let hands = self.hands_winning_on(&robbers, card.tile)?;
        self.robbed = Some(card.pos);
        self.settle(WinKind::RobKong, Some(from), hands, events)
    }

    /// A winner's hand for the scorer: its concealed tiles as given, its melds and flowers.
    pub(super) fn winner_hand(
        &self,
        seat: Seat,
        concealed: Vec<Tile>,
        winning_tile: Option<Tile>,
        replacement_draw: bool,
    ) -> WinnerHand {
        WinnerHand {
            seat,
            concealed,
            winning_tile,
            melds: self.meld_shapes(seat),
            flowers: self.seats[seat as usize]
                .flowers
                .iter()
                .map(|c| c.tile)
                .collect(),
            replacement_draw,
        }
    }

    /// The hands of seats winning on another seat's tile `t` (a discard or a robbed kong),
    /// the tile joining their concealed tiles.
    pub(super) fn hands_winning_on(
        &self,
        seats: &[Seat],
        t: Tile,
    ) -> Result<Vec<WinnerHand>, MoveError> {
        seats
            .iter()
            .map(|&w| {
                let mut concealed = self.concealed_tiles(w)?;
                concealed.push(t);
                Ok(self.winner_hand(w, concealed, Some(t), false))
            })
            .collect()
    }

    pub(super) fn complete_added_kong(&mut self, seat: Seat, card: Card, events: &mut Vec<Event>) {
        let st = &mut self.seats[seat as usize];
        if let Some(m) = st
            .melds
            .iter_mut()
            .find(|m| m.shape.kind == MeldType::Pung && m.shape.tile == card.tile)
        {
            m.shape.kind = MeldType::AddedKong;
            m.cards.push(card.pos);
            let shape = m.shape;
            st.barred = 0;
            events.push(Event::Konged { seat, meld: shape });
        }
        self.draw(seat, true, events);
    }
}
