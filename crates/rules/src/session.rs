//! Across hands (docs/rules.en.md §2 dealer rotation, §7): the next dealer, the 荒番 counter, rounds,
//! the session length, balances and 逛花园 chips.
//!
//! A [`Session`] is the state a table carries from one hand to the next. It is pure: the
//! table gives it each hand's [`Outcome`] and gets back what the next hand needs. The dealer
//! of a table's first hand (and, in `baida`, after a drawn first hand) comes from the table's
//! joint randomness, so [`Session::dealer`] is `None` then.
//!
//! Readings: after an abandoned hand the same dealer deals again and the 荒番 counter resets
//! (a player left the table). A round (圈) is complete when every seat has dealt at least one
//! hand since it began. 逛花园 (`chip_limit`): a seat pays at most the chips it has left; what
//! it cannot pay is missing from its winners' takings, shared among them in proportion.

use crate::options::{Options, Ruleset};
use crate::scoring::{Money, Seat};
use crate::state::{Outcome, Setup};
use crate::wall::Dice;
use serde::{Deserialize, Serialize};

/// How long a table plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SessionLength {
    /// Until the players stop.
    Open,
    /// A number of hands.
    Hands(u32),
    /// A number of rounds (四圈 = 4).
    Rounds(u32),
}

/// The state carried between hands.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Session {
    /// Options for every hand.
    pub options: Options,
    /// Coins per point.
    pub stake: Money,
    /// How long to play.
    pub length: SessionLength,
    /// Hands played.
    pub hands_played: u32,
    /// The next dealer, or `None` when it is to be drawn at random.
    pub dealer: Option<Seat>,
    /// The 荒番 counter carried into the next hand.
    pub huangfan: u32,
    /// Rounds completed.
    pub rounds: u32,
    /// Seats that have dealt in the current round (bit per seat).
    pub dealt: u8,
    /// Coins won (+) or lost (-) by each seat.
    pub balances: [Money; 4],
    /// Chips left per seat under `chip_limit`.
    pub chips: Option<[Money; 4]>,
}

/// What the session did with one hand's outcome.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandRecord {
    /// Payments after the chip limit.
    pub payments: [Money; 4],
    /// The session is over.
    pub finished: bool,
}

impl Session {
    /// A new table.
    pub fn new(options: Options, stake: Money, length: SessionLength) -> Session {
        let chips = options.chip_limit.map(|c| [Money::coins(c as i64); 4]);
        Session {
            options,
            stake,
            length,
            hands_played: 0,
            dealer: None,
            huangfan: 0,
            rounds: 0,
            dealt: 0,
            balances: [Money::ZERO; 4],
            chips,
        }
    }

    /// The next hand's set-up, with `random_dealer` used when the dealer is to be drawn.
    pub fn setup(&self, random_dealer: Seat, dice: Dice) -> Setup {
        Setup {
            options: self.options.clone(),
            stake: self.stake,
            dealer: self.dealer.unwrap_or(random_dealer & 3),
            dice,
            huangfan: self.huangfan,
        }
    }

    /// Whether the set length has been played.
    pub fn is_finished(&self) -> bool {
        match self.length {
            SessionLength::Open => false,
            SessionLength::Hands(n) => self.hands_played >= n,
            SessionLength::Rounds(n) => self.rounds >= n,
        }
    }

    /// A player left the table (a seat is taken over or refilled): 荒番 is void.
    pub fn player_left(&mut self) {
        self.huangfan = 0;
    }

    /// Records a finished hand played with `setup` and moves the session on.
    pub fn record(
        &mut self,
        setup: &Setup,
        counter_in_force: u32,
        outcome: &Outcome,
    ) -> HandRecord {
        let first = self.hands_played == 0;
        self.hands_played += 1;
        self.dealt |= 1 << setup.dealer;
        if self.dealt == 0b1111 {
            self.rounds += 1;
            self.dealt = 0;
        }
        let payments = self.book(outcome.payments());
        match outcome {
            Outcome::Win { settlement, .. } => {
                self.dealer = Some(next_dealer_after_win(
                    settlement.from,
                    &settlement
                        .winners
                        .iter()
                        .map(|w| w.seat)
                        .collect::<Vec<_>>(),
                ));
                self.huangfan = counter_in_force.saturating_sub(1);
            }
            Outcome::Drawn => {
                self.dealer = if first && self.options.ruleset == Ruleset::Baida {
                    None
                } else {
                    Some(setup.dealer)
                };
                self.huangfan = if self.options.dice_huangfan {
                    counter_in_force
                } else {
                    counter_in_force + 1
                };
            }
            Outcome::Abandoned { .. } => {
                self.dealer = Some(setup.dealer);
                self.huangfan = 0;
            }
        }
        HandRecord {
            payments,
            finished: self.is_finished(),
        }
    }

    /// Books a penalty that ends a hand before it was dealt (a seat left or was aborted
    /// before the dice): the payments go through the chip limit into the balances, the hand
    /// does not count, the dealer stays, and 荒番 resets (a player left the table).
    pub fn record_penalty(&mut self, payments: [Money; 4]) -> HandRecord {
        let payments = self.book(payments);
        self.player_left();
        HandRecord {
            payments,
            finished: self.is_finished(),
        }
    }

    /// Adds a hand's payments, capped by the chips (逛花园), to the balances; returns them
    /// as booked.
    fn book(&mut self, payments: [Money; 4]) -> [Money; 4] {
        let payments = self.apply_chips(payments);
        for s in 0..4 {
            self.balances[s] = Money(self.balances[s].0 + payments[s].0);
        }
        payments
    }

    /// Caps each payer at the chips it has left (逛花园) and updates the chips.
    fn apply_chips(&mut self, payments: [Money; 4]) -> [Money; 4] {
        let Some(chips) = self.chips.as_mut() else {
            return payments;
        };
        let mut out = payments;
        let mut shortfall = 0i64;
        for s in 0..4 {
            if out[s].0 < 0 {
                let can = chips[s].0.max(0);
                let pay = (-out[s].0).min(can);
                shortfall += -out[s].0 - pay;
                out[s] = Money(-pay);
            }
        }
        if shortfall > 0 {
            let gains: i64 = out.iter().filter(|m| m.0 > 0).map(|m| m.0).sum();
            let mut left = shortfall;
            let winners: Vec<usize> = (0..4).filter(|&s| out[s].0 > 0).collect();
            for (k, &s) in winners.iter().enumerate() {
                let cut = if k + 1 == winners.len() {
                    left
                } else {
                    (shortfall as i128 * out[s].0 as i128 / gains.max(1) as i128) as i64
                };
                let cut = cut.min(out[s].0).min(left);
                out[s] = Money(out[s].0 - cut);
                left -= cut;
            }
        }
        for s in 0..4 {
            chips[s] = Money(chips[s].0 + out[s].0);
        }
        out
    }
}

/// The next dealer after a win: the winner; after several wins on one discard (or one robbed
/// kong), the winner nearest after the giver in turn order (点炮者最近的一个胡牌者).
pub fn next_dealer_after_win(from: Option<Seat>, winners: &[Seat]) -> Seat {
    match (from, winners) {
        (Some(f), ws) if ws.len() > 1 => (1..4)
            .map(|k| (f + k) % 4)
            .find(|s| ws.contains(s))
            .unwrap_or(ws[0]),
        (_, ws) => ws.first().copied().unwrap_or(0),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn nearest_winner_after_discarder_deals() {
        assert_eq!(next_dealer_after_win(Some(3), &[1, 2]), 1);
        assert_eq!(next_dealer_after_win(Some(1), &[0, 3]), 3);
        assert_eq!(next_dealer_after_win(Some(1), &[0, 2, 3]), 2);
        assert_eq!(next_dealer_after_win(None, &[2]), 2);
    }

    #[test]
    fn huangfan_counter() {
        let o = Options::preset(Ruleset::Qiaoma);
        let mut s = Session::new(o, Money::coins(1), SessionLength::Open);
        let setup = s.setup(2, Dice::new(2, 3).unwrap());
        s.record(&setup, 0, &Outcome::Drawn);
        assert_eq!((s.huangfan, s.dealer), (1, Some(2)));
        s.record(&setup, 1, &Outcome::Drawn);
        assert_eq!(s.huangfan, 2);
        s.record(
            &setup,
            2,
            &Outcome::Abandoned {
                leaver: 1,
                payments: [Money::ZERO; 4],
            },
        );
        assert_eq!(s.huangfan, 0);
    }

    #[test]
    fn baida_first_drawn_hand_redraws_dealer() {
        let o = Options::preset(Ruleset::Baida);
        let mut s = Session::new(o, Money::coins(1), SessionLength::Hands(2));
        let setup = s.setup(1, Dice::new(2, 3).unwrap());
        s.record(&setup, 0, &Outcome::Drawn);
        assert_eq!(s.dealer, None);
        let r = s.record(&setup, 1, &Outcome::Drawn);
        assert_eq!(s.dealer, Some(1));
        assert!(r.finished);
    }

    #[test]
    fn chips_cap_payments() {
        let mut o = Options::preset(Ruleset::Qiaoma);
        o.chip_limit = Some(10);
        let mut s = Session::new(o, Money::coins(1), SessionLength::Rounds(4));
        let setup = s.setup(0, Dice::new(2, 3).unwrap());
        let out = Outcome::Abandoned {
            leaver: 1,
            payments: [
                Money::coins(10),
                Money::coins(-30),
                Money::coins(10),
                Money::coins(10),
            ],
        };
        let r = s.record(&setup, 0, &out);
        assert_eq!(r.payments.iter().map(|m| m.0).sum::<i64>(), 0);
        assert_eq!(r.payments[1], Money::coins(-10));
        assert_eq!(s.chips.unwrap()[1], Money::ZERO);
        let r = s.record(&setup, 0, &out);
        assert_eq!(r.payments, [Money::ZERO; 4]);
    }
}
