//! The types of a hand: cards, actions and moves, the seats' state, phases, outcomes,
//! events, errors and the set-up.

use super::*;

/// A card: a wall position and its face.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Card {
    /// The wall position, 0..144.
    pub pos: u8,
    /// Its face.
    pub tile: Tile,
}

/// What a seat does.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Action {
    /// Set a flower aside (face up) and draw a replacement from the back.
    Flower {
        /// The flower.
        card: Card,
    },
    /// Decline: no claim on a discard, no robbing, or "no flowers left" in the initial
    /// flower replacement.
    Pass,
    /// Discard a tile, declaring ready (敲) with it if `ready`.
    Discard {
        /// The tile.
        card: Card,
        /// Declare ready.
        ready: bool,
    },
    /// 暗杠 of four tiles in hand.
    ConcealedKong {
        /// The four cards.
        cards: [Card; 4],
    },
    /// 加杠: add a tile to an own exposed pung.
    AddedKong {
        /// The fourth tile.
        card: Card,
    },
    /// Declare a win (self-draw, four wildcards, on a discard, or robbing a kong), showing
    /// every concealed tile.
    Win {
        /// The concealed cards (all of them).
        reveal: Vec<Card>,
    },
    /// 吃 the discard with two tiles from hand (next seat only).
    Chow {
        /// The two tiles.
        cards: [Card; 2],
    },
    /// 碰 the discard with two tiles from hand.
    Pung {
        /// The two tiles.
        cards: [Card; 2],
    },
    /// 明杠 the discard with three tiles from hand.
    Kong {
        /// The three tiles.
        cards: [Card; 3],
    },
    /// Leave the table (or be declared a leaver).
    Leave,
    /// 换牌: put back these five concealed tiles, named by wall position in increasing order
    /// and never by face (they stay hidden), and take five from the wall (option
    /// `swap_five`, [`Phase::Swap`]).
    Swap {
        /// The five wall positions, strictly increasing.
        put_back: [u8; 5],
    },
}

impl Action {
    /// The offered action that plays `card` (a discard, with 敲 if `ready`), for whichever copy
    /// of its tile the player pointed at.
    ///
    /// The rules offer one discard per tile kind, with one representative copy (the drawn tile
    /// if it is of that kind, else the right-most one in hand), so that a bot or a list of
    /// choices sees each play once. A person points at a copy: every copy of a kind plays the
    /// same, so an interface maps the copy it was shown to this offered action instead of
    /// building an action around the copy (which the rules would refuse after 敲, where only
    /// the drawn copy may go). `None` when no discard of that tile is offered.
    pub fn discard_of(legal: &[Action], card: Card, ready: bool) -> Option<&Action> {
        legal
            .iter()
            .find(|a| matches!(a, Action::Discard { card: c, ready: r } if c.pos == card.pos && *r == ready))
            .or_else(|| {
                legal.iter().find(|a| {
                    matches!(a, Action::Discard { card: c, ready: r } if c.tile == card.tile && *r == ready)
                })
            })
    }
}

/// An action by a seat.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Move {
    /// Who acts.
    pub seat: Seat,
    /// What.
    pub action: Action,
    /// Played by the seat's own client when its timer ran out.
    #[serde(default)]
    pub timed_out: bool,
}

impl Move {
    /// A move that was not timed out.
    pub fn new(seat: Seat, action: Action) -> Move {
        Move {
            seat,
            action,
            timed_out: false,
        }
    }
}

/// An exposed or declared meld.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Meld {
    /// Type and tile.
    pub shape: MeldShape,
    /// The wall positions of its tiles.
    pub cards: Vec<u8>,
    /// The seat whose discard was claimed, if any.
    pub from: Option<Seat>,
}

/// A discard in a seat's river.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Discard {
    /// The tile.
    pub card: Card,
    /// Taken by a claim.
    pub claimed: bool,
    /// Declared ready with this discard.
    pub ready: bool,
    /// The hand's move count when it was made: orders discards across seats (what was
    /// discarded after a seat declared ready is safe against it).
    pub at: u32,
}

/// One seat's part of the hand.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SeatState {
    /// Wall positions of the concealed tiles, in the order received.
    pub hand: Vec<u8>,
    /// Melds.
    pub melds: Vec<Meld>,
    /// Flowers set aside.
    pub flowers: Vec<Card>,
    /// Discards, oldest first.
    pub discards: Vec<Discard>,
    /// Declared ready (敲).
    pub ready: bool,
    /// 漏胡: kinds (bit per tile index) this seat may not win on by discard.
    pub barred: u64,
    /// Timed-out moves in a row.
    pub timeouts: u32,
    /// 换牌: the wall positions put back face down (out of play; faces public only at the
    /// end of the hand).
    pub buried: Vec<u8>,
}

/// A claim answer after a discard.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Answer {
    /// No claim.
    Pass,
    /// Win on the discard.
    Win,
    /// Chow with these two tiles.
    Chow([Card; 2]),
    /// Pung with these two tiles.
    Pung([Card; 2]),
    /// Kong with these three tiles.
    Kong([Card; 3]),
}

/// Where the hand is.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Phase {
    /// Initial flower replacement: `seat` sets its flowers aside, then passes.
    Flowers {
        /// Whose turn.
        seat: Seat,
        /// Seats done so far.
        done: u8,
    },
    /// `seat` has its turn.
    Turn {
        /// Whose turn.
        seat: Seat,
        /// The tile just drawn (or the dealer's 14th), absent after a chow or pung.
        drawn: Option<u8>,
        /// That draw was a replacement (after a kong or a flower).
        replacement: bool,
    },
    /// The three others answer a discard.
    Claims {
        /// The discarder.
        from: Seat,
        /// The discard.
        card: Card,
        /// Answers so far.
        answers: [Option<Answer>; 4],
        /// Which seats could win on the discard (as far as this engine knows their tiles),
        /// worked out once when it was made: passing such a win is 漏胡.
        could_win: [bool; 4],
    },
    /// The three others may rob an added kong.
    RobKong {
        /// The kong player.
        from: Seat,
        /// The added tile.
        card: Card,
        /// Answers so far (true = rob).
        answers: [Option<bool>; 4],
    },
    /// The hand is over.
    Over(Box<Outcome>),
    /// 换牌 (option `swap_five`): every seat answers at once, [`Action::Swap`] or
    /// [`Action::Pass`].
    Swap {
        /// Who has answered.
        answered: [bool; 4],
        /// The positions each swapping seat put back (filled as the answers come).
        put_back: [Option<[u8; 5]>; 4],
    },
}

/// How a hand ended.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Outcome {
    /// Won; scored.
    Win {
        /// What the scorer was given.
        settlement: Box<Settlement>,
        /// What it returned.
        result: ScoreResult,
    },
    /// 流局: a seat had to draw and no tile was left.
    Drawn,
    /// A seat left; it pays the penalty.
    Abandoned {
        /// The leaver.
        leaver: Seat,
        /// The penalty.
        payments: [Money; 4],
    },
}

impl Outcome {
    /// Coins per seat.
    pub fn payments(&self) -> [Money; 4] {
        match self {
            Outcome::Win { result, .. } => result.payments,
            Outcome::Drawn => [Money::ZERO; 4],
            Outcome::Abandoned { payments, .. } => *payments,
        }
    }

    /// The winning seats.
    pub fn winners(&self) -> Vec<Seat> {
        match self {
            Outcome::Win { settlement, .. } => settlement.winners.iter().map(|w| w.seat).collect(),
            _ => vec![],
        }
    }

    /// Why the payments are what they are: the scorer's explanation of a win's settlement, or
    /// of a leaver's penalty under `options`, `stake` and the hand's 荒番 count; `None` for a
    /// drawn hand. Computed by the same code as the payments, so it explains what was paid.
    pub fn explain(
        &self,
        options: &Options,
        stake: Money,
        huangfan: u32,
    ) -> Result<Option<crate::scoring::Explanation>, crate::scoring::ScoreError> {
        Ok(match self {
            Outcome::Win { settlement, .. } => Some(crate::scoring::explain(settlement)?),
            Outcome::Abandoned { leaver, .. } => Some(crate::scoring::explain_leaver(
                options, stake, *leaver, huangfan,
            )),
            Outcome::Drawn => None,
        })
    }
}

/// What happened, for the UI and the log.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Event {
    /// A seat drew the tile at `pos` (its face is that seat's secret).
    Drew {
        /// Who.
        seat: Seat,
        /// The wall position.
        pos: u8,
        /// From the back (after a kong or flower).
        replacement: bool,
    },
    /// A flower was set aside.
    FlowerSetAside {
        /// Who.
        seat: Seat,
        /// The flower.
        card: Card,
    },
    /// A seat finished its initial flower replacement.
    FlowersDone {
        /// Who.
        seat: Seat,
    },
    /// A discard.
    Discarded {
        /// Who.
        seat: Seat,
        /// The tile.
        card: Card,
        /// With a ready declaration.
        ready: bool,
    },
    /// A seat answered the claim window (the answer is public once all have answered).
    Answered {
        /// Who.
        seat: Seat,
    },
    /// A claim was executed.
    Claimed {
        /// Who claimed.
        seat: Seat,
        /// Whose discard.
        from: Seat,
        /// The meld made.
        meld: MeldShape,
    },
    /// A kong from the hand (concealed or added) was completed.
    Konged {
        /// Who.
        seat: Seat,
        /// The meld (a concealed kong's face is hidden in other seats' views).
        meld: MeldShape,
    },
    /// An added kong may be robbed.
    KongOffered {
        /// Who adds.
        seat: Seat,
        /// The tile.
        card: Card,
    },
    /// 漏胡: a seat passed a win and may not win on that kind until it next moves.
    MissedWin {
        /// Who.
        seat: Seat,
        /// The kind.
        tile: Tile,
    },
    /// The hand is over.
    HandOver {
        /// How.
        outcome: Box<Outcome>,
    },
    /// 换牌: a seat put five tiles back face down (by position) and drew five.
    Swapped {
        /// Who.
        seat: Seat,
        /// The positions put back.
        put_back: [u8; 5],
    },
}

/// Why a move was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    /// The hand has ended.
    #[error("the hand is over")]
    HandOver,
    /// Not a seat number.
    #[error("seat {0} does not exist (seats are 0-3)")]
    NoSuchSeat(Seat),
    /// It is not this seat's moment to act.
    #[error("seat {seat} cannot act now: waiting for {waiting:?}")]
    OutOfTurn {
        /// The seat that tried.
        seat: Seat,
        /// The seats that must act.
        waiting: Vec<Seat>,
    },
    /// The action breaks a rule.
    #[error("seat {seat}: {why}")]
    Illegal {
        /// The seat.
        seat: Seat,
        /// Which rule.
        why: String,
    },
    /// The engine needs a face it does not know (partial knowledge).
    #[error("the face of wall position {pos} is not known here")]
    Unknown {
        /// The position.
        pos: u8,
    },
    /// A face learned for a position contradicts the one already known there.
    #[error("wall position {pos} is {known}, not {claimed}")]
    Conflict {
        /// The position.
        pos: u8,
        /// The face known.
        known: Tile,
        /// The face claimed.
        claimed: Tile,
    },
}

/// The fixed facts of one hand, given from outside (the table's agreement and randomness).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Setup {
    /// Every option.
    pub options: Options,
    /// Coins per point.
    pub stake: Money,
    /// The dealer.
    pub dealer: Seat,
    /// This hand's dice.
    pub dice: Dice,
    /// The 荒番 counter carried into this hand (the `classic` dice bonus is added here).
    pub huangfan: u32,
}

impl Setup {
    /// The 荒番 counter in force in this hand: the one carried in, plus the dice's bonus where
    /// the dice add to it (`classic`).
    pub fn huangfan_in_force(&self) -> u32 {
        if self.options.dice_huangfan {
            self.huangfan + self.dice.huangfan_bonus()
        } else {
            self.huangfan
        }
    }
}

/// A problem with a [`Setup`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    /// Options that make no sense.
    #[error(transparent)]
    Options(#[from] crate::options::OptionsError),
    /// Dealer out of range.
    #[error("dealer {0} is not a seat (0-3)")]
    Dealer(Seat),
    /// Bad stake.
    #[error("the stake must be positive")]
    Stake,
    /// The indicator face is needed (wildcard rules) but missing or a flower.
    #[error("the wildcard indicator face is needed for this ruleset")]
    Indicator,
}
