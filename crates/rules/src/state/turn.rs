//! A turn: drawing, discarding, kongs, 敲 (ready) and winning by self-draw, with the
//! settlement of a hand that ends.

use super::*;

impl HandState {
    pub(super) fn turn(
        &mut self,
        seat: Seat,
        drawn: Option<u8>,
        replacement: bool,
        action: &Action,
        events: &mut Vec<Event>,
    ) -> Result<(), MoveError> {
        let ready = self.seats[seat as usize].ready;
        if !matches!(action, Action::Flower { .. })
            && let Some(f) = self.flower_in_hand(seat)
        {
            return illegal(seat, format!("must set the flower {} aside first", f.tile));
        }
        if drawn.is_none() && !matches!(action, Action::Discard { .. }) {
            return illegal(seat, "after a chow or pung the claimer discards");
        }
        match action {
            Action::Flower { card } => {
                self.set_flower_aside(seat, *card, events)?;
                if self.has_eight_flowers(seat) {
                    return self.win_eight_flowers(seat, events);
                }
                self.draw(seat, true, events);
                Ok(())
            }
            Action::Discard {
                card,
                ready: declare,
            } => {
                self.check_in_hand(seat, *card)?;
                if ready && Some(card.pos) != drawn {
                    return illegal(seat, "has declared ready and must discard the tile it drew");
                }
                if *declare {
                    if !self.setup.options.ready_declaration() {
                        return illegal(
                            seat,
                            format!("{} has no ready declaration", self.setup.options.ruleset),
                        );
                    }
                    if ready {
                        return illegal(seat, "has already declared ready");
                    }
                    if let Some(mut c) = self.hand_counts(seat) {
                        if !card.tile.is_flower() {
                            c[card.tile.index()] -= 1;
                        }
                        let melds = self.shapes(seat);
                        if hand::waits(&self.setup.options, &c, &melds, self.wildcard) == 0 {
                            return illegal(
                                seat,
                                "cannot declare ready: the hand left would win on no tile",
                            );
                        }
                    }
                }
                self.faces[card.pos as usize] = Some(card.tile);
                self.remove_from_hand(seat, card.pos);
                let at = self.moves;
                let st = &mut self.seats[seat as usize];
                st.discards.push(Discard {
                    card: *card,
                    claimed: false,
                    ready: *declare,
                    at,
                });
                if *declare {
                    st.ready = true;
                }
                events.push(Event::Discarded {
                    seat,
                    card: *card,
                    ready: *declare,
                });
                let mut answers = [None; 4];
                answers[seat as usize] = Some(Answer::Pass);
                let could_win = [0u8, 1, 2, 3]
                    .map(|s| s != seat && self.could_win_on(s, card.tile, true) == Some(true));
                self.phase = Phase::Claims {
                    from: seat,
                    card: *card,
                    answers,
                    could_win,
                };
                Ok(())
            }
            Action::ConcealedKong { cards } => {
                if ready {
                    return illegal(seat, "has declared ready and makes no kong");
                }
                if self.remaining == 0 {
                    return illegal(seat, "no tile is left to replace a kong");
                }
                Self::check_distinct(seat, cards)?;
                for c in cards {
                    self.check_in_hand(seat, *c)?;
                }
                let t = cards[0].tile;
                if cards.iter().any(|c| c.tile != t) || self.is_flower(t) {
                    return illegal(seat, "a concealed kong is four alike");
                }
                for c in cards {
                    self.faces[c.pos as usize] = Some(c.tile);
                    self.remove_from_hand(seat, c.pos);
                }
                let shape = MeldShape {
                    kind: MeldType::ConcealedKong,
                    tile: t,
                };
                self.seats[seat as usize].melds.push(Meld {
                    shape,
                    cards: cards.iter().map(|c| c.pos).collect(),
                    from: None,
                });
                self.seats[seat as usize].barred = 0;
                events.push(Event::Konged { seat, meld: shape });
                self.draw(seat, true, events);
                Ok(())
            }
            Action::AddedKong { card } => {
                if ready {
                    return illegal(seat, "has declared ready and makes no kong");
                }
                if self.remaining == 0 {
                    return illegal(seat, "no tile is left to replace a kong");
                }
                self.check_in_hand(seat, *card)?;
                let has_pung = self.seats[seat as usize]
                    .melds
                    .iter()
                    .any(|m| m.shape.kind == MeldType::Pung && m.shape.tile == card.tile);
                if !has_pung {
                    return illegal(
                        seat,
                        format!("has no exposed pung of {} to add to", card.tile),
                    );
                }
                self.faces[card.pos as usize] = Some(card.tile);
                self.remove_from_hand(seat, card.pos);
                if self.setup.options.win_on_discard {
                    let mut answers = [None; 4];
                    answers[seat as usize] = Some(false);
                    self.phase = Phase::RobKong {
                        from: seat,
                        card: *card,
                        answers,
                    };
                    events.push(Event::KongOffered { seat, card: *card });
                } else {
                    self.complete_added_kong(seat, *card, events);
                }
                Ok(())
            }
            Action::Win { reveal } => {
                let Some(win_pos) =
                    drawn.or_else(|| self.seats[seat as usize].hand.last().copied())
                else {
                    return illegal(seat, "has no tile to win with");
                };
                self.learn_reveal(seat, reveal)?;
                let concealed = self.concealed_tiles(seat)?;
                let wild = self.wildcard;
                let four_wild = self.setup.options.four_wildcards
                    && wild.is_some_and(|w| concealed.iter().filter(|&&t| t == w).count() == 4);
                if drawn.is_none() && !four_wild {
                    return illegal(
                        seat,
                        "cannot win by self-draw without drawing (after a chow or pung, discard)",
                    );
                }
                let winning_tile = self.face(win_pos);
                let standard = hand::is_winning(
                    &self.setup.options,
                    &crate::tile::counts_of(&concealed),
                    &self.meld_shapes(seat),
                    wild,
                );
                let kind = if four_wild && !standard {
                    WinKind::FourWildcards
                } else {
                    WinKind::SelfDraw
                };
                let winning_tile = winning_tile.filter(|_| kind != WinKind::FourWildcards);
                let winner = self.winner_hand(
                    seat,
                    concealed,
                    winning_tile,
                    replacement && drawn.is_some(),
                );
                self.settle(kind, None, vec![winner], events)
            }
            _ => illegal(
                seat,
                "on its turn a seat discards, makes a kong, sets a flower aside or wins",
            ),
        }
    }

    /// Learns the faces a winner shows; they must be exactly its concealed cards (or a
    /// subset already known here).
    pub(super) fn learn_reveal(&mut self, seat: Seat, reveal: &[Card]) -> Result<(), MoveError> {
        Self::check_distinct(seat, reveal)?;
        for c in reveal {
            self.check_in_hand(seat, *c)?;
        }
        for c in reveal {
            self.faces[c.pos as usize] = Some(c.tile);
        }
        Ok(())
    }

    /// The concealed tiles of a seat; every face must be known.
    pub(super) fn concealed_tiles(&self, seat: Seat) -> Result<Vec<Tile>, MoveError> {
        self.seats[seat as usize]
            .hand
            .iter()
            .map(|&p| self.face(p).ok_or(MoveError::Unknown { pos: p }))
            .collect()
    }

    pub(super) fn win_eight_flowers(
        &mut self,
        seat: Seat,
        events: &mut Vec<Event>,
    ) -> Result<(), MoveError> {
        let winner = self.winner_hand(seat, vec![], None, false);
        self.settle(WinKind::EightFlowers, None, vec![winner], events)
    }

    /// Scores and ends the hand. A hand that does not score is an illegal win, and nothing
    /// changes (the caller has only learned faces).
    pub(super) fn settle(
        &mut self,
        kind: WinKind,
        from: Option<Seat>,
        winners: Vec<WinnerHand>,
        events: &mut Vec<Event>,
    ) -> Result<(), MoveError> {
        let settlement = self.settlement(kind, from, winners);
        match scoring::score(&settlement) {
            Ok(result) => {
                self.finish(
                    Outcome::Win {
                        settlement: Box::new(settlement),
                        result,
                    },
                    events,
                );
                Ok(())
            }
            Err(e) => {
                let seat = settlement.winners.first().map(|w| w.seat).unwrap_or(0);
                illegal(seat, format!("not a winning hand: {e}"))
            }
        }
    }

    pub(super) fn settlement(
        &self,
        kind: WinKind,
        from: Option<Seat>,
        winners: Vec<WinnerHand>,
    ) -> Settlement {
        Settlement {
            options: self.setup.options.clone(),
            stake: self.setup.stake,
            dealer: self.setup.dealer,
            kaibao: self.setup.dice.is_kaibao(),
            huangfan: self.huangfan,
            wildcard: self.wildcard,
            declared: [0, 1, 2, 3].map(|s| self.seats[s].ready),
            claims: self.claims,
            kind,
            from,
            winners,
        }
    }
}
