//! One hand as a pure state machine (docs/rules.en.md §2–§4, §7 leavers).
//!
//! [`HandState::apply`] takes a [`Move`] (a seat and an [`Action`]) and either returns the
//! [`Event`]s it caused, having moved the state on, or a typed [`MoveError`] (out of turn,
//! illegal, hand over) leaving the state untouched. [`HandState::step`] is the same as a pure
//! function `state + move -> new state + events`. [`HandState::legal_actions`] enumerates
//! every legal action of a seat, and [`HandState::view`] is what one seat may see.
//!
//! Cards are named by their wall position (0..144, see [`crate::wall`]); a [`Card`] is a
//! position with its face. The engine runs with full knowledge (every face known: bots,
//! tests, replays, audits) or with partial knowledge (a peer that knows only its own tiles
//! and what was shown: [`HandState::new_hidden`] and [`HandState::learn`]). Actions carry the
//! faces they show, so every engine learns the same public facts; whatever the engine can
//! check with what it knows, it checks. A peer's partial engine cannot check another seat's
//! hidden tiles (a claimed 漏胡, a ready declaration on a hand that waits on nothing); the
//! full replay after the end-of-hand audit does.
//!
//! Phases: the initial flower replacement (each seat from the dealer in turn order sets its
//! flowers aside with [`Action::Flower`] and ends with [`Action::Pass`]); with the option
//! `swap_five`, 换牌 ([`Phase::Swap`], see below) and the flower replacement of the seats that
//! swapped; turns (draws are
//! automatic when a turn passes; a drawn flower must be set aside before anything else);
//! the claim window after a discard, where all three others answer and the resolution
//! (win > kong = pung > chow, several wins allowed) is a function of the three answers; the
//! robbing window after an added kong; and the end.
//!
//! Readings: a concealed kong's faces are in the action (and so in every peer's log); views
//! show it face down to the others. 漏胡 is set by passing on a discard (not on a robbable
//! kong), and bars wins on discards only, as the texts say (打出). A seat that times out more
//! than `timeouts_before_leaver` times in a row becomes a leaver on the next time-out. After
//! an abandoned hand the same dealer deals again.
//!
//! 换牌 (`swap_five`, docs/rules.en.md §7; 000 換牌規則: "遊戲開始摸完牌後，玩家將有15秒的時間
//! 埋下自己手中的五張牌並與牌牆中隨機的牌進行對換"). Readings, where the rules are silent:
//! - It comes after the initial flower replacement, before the dealer's first turn, and all four
//!   seats answer at once ([`Phase::Swap`]): [`Action::Swap`] with exactly five of its concealed
//!   tiles, or [`Action::Pass`]. It is optional; a seat whose timer (`start_seconds`, 15 s by
//!   default) runs out passes ([`HandState::default_action`]), as does, in effect, a seat that
//!   left (000: "掉線或者退出…將不能進行換牌").
//! - The five put back are named by wall position only, never by face: they are "buried" (埋下)
//!   face down, out of play for the rest of the hand ([`SeatState::buried`]); no seat ever draws
//!   them, and their faces become public only at the end-of-hand audit. The wall to draw from
//!   is then five shorter for each seat that swapped (the tiles-left count says so).
//! - Once all four have answered, each seat that swapped, in turn order from the dealer, puts
//!   its five aside and draws five from the front of the wall (live draws, [`Event::Drew`]),
//!   then [`Event::Swapped`]. Those seats, again in turn order from the dealer, set aside the
//!   flowers they drew and replace them from the back, as in the initial replacement
//!   ([`Phase::Flowers`], [`Action::Flower`] then [`Action::Pass`]; 八花齐 counts there too).
//!   Then the dealer's turn starts as usual, its last tile received counting as its draw.
//! - The five positions are listed in increasing order (one spelling per choice, so a choice
//!   is always found again among [`HandState::legal_actions`], which lists every one).

use crate::hand::{self, MeldShape, MeldType};
use crate::options::Options;
use crate::scoring::{self, Money, ScoreResult, Seat, Settlement, WinKind, WinnerHand};
use crate::shape;
use crate::tile::{Counts, PLAY_KINDS, TILE_COUNT, Tile, format_tiles};
use crate::wall::{DEALT, Dice, Wall, deal_seat};
use serde::{Deserialize, Serialize};

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

/// One hand: everything the rules need to know, and nothing more.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct HandState {
    setup: Setup,
    /// The 荒番 counter in force for this hand.
    huangfan: u32,
    /// Faces known to this engine, by wall position.
    faces: Vec<Option<Tile>>,
    /// Next live draw position.
    front: u8,
    /// Tiles left in the wall.
    remaining: u8,
    /// `baida`: the indicator position and the wildcard.
    indicator: Option<u8>,
    wildcard: Option<Tile>,
    seats: [SeatState; 4],
    claims: [[u32; 4]; 4],
    phase: Phase,
    /// The wall position of a kong tile taken by robbing (it is in no seat's tiles).
    robbed: Option<u8>,
    /// Accepted moves so far (a state id).
    moves: u32,
    /// 换牌: once the swap is resolved, a bit per seat that swapped (their flower
    /// replacement is the one in progress).
    swapped: Option<u8>,
}

fn illegal<T>(seat: Seat, why: impl Into<String>) -> Result<T, MoveError> {
    Err(MoveError::Illegal {
        seat,
        why: why.into(),
    })
}

impl HandState {
    /// A hand with full knowledge of the wall (bots, tests, replays, audits).
    pub fn new(setup: Setup, wall: &Wall) -> Result<HandState, SetupError> {
        let faces: Vec<Option<Tile>> = wall.tiles().iter().map(|&t| Some(t)).collect();
        HandState::build(setup, faces)
    }

    /// A hand as one peer sees it: no face known but the `baida` indicator's (public).
    /// The peer then [`learn`](Self::learn)s its own tiles as it reads them.
    pub fn new_hidden(setup: Setup, indicator: Option<Tile>) -> Result<HandState, SetupError> {
        let mut faces = vec![None; TILE_COUNT];
        if setup.options.wildcard {
            let pos = setup.dice.indicator_position() as usize;
            faces[pos] = Some(indicator.ok_or(SetupError::Indicator)?);
        }
        HandState::build(setup, faces)
    }

    fn build(setup: Setup, faces: Vec<Option<Tile>>) -> Result<HandState, SetupError> {
        setup.options.validate()?;
        if setup.dealer > 3 {
            return Err(SetupError::Dealer(setup.dealer));
        }
        if setup.stake.0 <= 0 {
            return Err(SetupError::Stake);
        }
        let huangfan = setup.huangfan_in_force();
        let (indicator, wildcard) = if setup.options.wildcard {
            let pos = setup.dice.indicator_position();
            let face = faces[pos as usize].ok_or(SetupError::Indicator)?;
            (Some(pos), Some(face.wildcard_successor()))
        } else {
            (None, None)
        };
        // Room for a whole hand up front: no vector grows during play.
        let mut seats: [SeatState; 4] = std::array::from_fn(|_| SeatState {
            hand: Vec::with_capacity(18),
            melds: Vec::with_capacity(4),
            flowers: Vec::with_capacity(8),
            discards: Vec::with_capacity(32),
            ..SeatState::default()
        });
        for pos in 0..DEALT {
            seats[deal_seat(setup.dealer, pos) as usize]
                .hand
                .push(pos as u8);
        }
        let dealer = setup.dealer;
        Ok(HandState {
            setup,
            huangfan,
            faces,
            front: DEALT as u8,
            remaining: (TILE_COUNT - DEALT) as u8,
            indicator,
            wildcard,
            seats,
            claims: [[0; 4]; 4],
            phase: Phase::Flowers {
                seat: dealer,
                done: 0,
            },
            robbed: None,
            moves: 0,
            swapped: None,
        })
    }

    // ---- read access ----

    /// The fixed facts.
    pub fn setup(&self) -> &Setup {
        &self.setup
    }
    /// The options.
    pub fn options(&self) -> &Options {
        &self.setup.options
    }
    /// The phase.
    pub fn phase(&self) -> &Phase {
        &self.phase
    }
    /// One seat.
    pub fn seat(&self, seat: Seat) -> &SeatState {
        &self.seats[(seat & 3) as usize]
    }
    /// The 荒番 counter in force for this hand.
    pub fn huangfan(&self) -> u32 {
        self.huangfan
    }
    /// The `baida` wildcard.
    pub fn wildcard(&self) -> Option<Tile> {
        self.wildcard
    }
    /// The `baida` indicator's wall position.
    pub fn indicator(&self) -> Option<u8> {
        self.indicator
    }
    /// Tiles left to draw.
    pub fn wall_remaining(&self) -> u8 {
        self.remaining
    }
    /// The next live draw position.
    pub fn next_live(&self) -> u8 {
        self.front
    }
    /// The next replacement draw position.
    pub fn next_replacement(&self) -> u8 {
        (self.front as u16 + self.remaining as u16 - 1) as u8
    }
    /// Claims matrix: `claims[a][b]` = claims a made on b's discards.
    pub fn claims(&self) -> &[[u32; 4]; 4] {
        &self.claims
    }
    /// Accepted moves so far.
    pub fn move_count(&self) -> u32 {
        self.moves
    }
    /// The face at a position, if this engine knows it.
    pub fn face(&self, pos: u8) -> Option<Tile> {
        self.faces.get(pos as usize).copied().flatten()
    }
    /// Whether every face is known (full knowledge).
    pub fn knows_all(&self) -> bool {
        self.faces.iter().all(Option::is_some)
    }
    /// The outcome, once over.
    pub fn outcome(&self) -> Option<&Outcome> {
        match &self.phase {
            Phase::Over(o) => Some(o),
            _ => None,
        }
    }
    /// Whether the hand is over.
    pub fn is_over(&self) -> bool {
        matches!(self.phase, Phase::Over(_))
    }

    /// The seats that must act now (the table waits for exactly these).
    pub fn to_act(&self) -> Vec<Seat> {
        let m = self.to_act_mask();
        (0..4).filter(|s| m & (1 << s) != 0).collect()
    }

    /// [`to_act`](Self::to_act) as a bit per seat.
    pub fn to_act_mask(&self) -> u8 {
        match &self.phase {
            Phase::Flowers { seat, .. } | Phase::Turn { seat, .. } => 1 << seat,
            Phase::Claims { answers, .. } => (0..4)
                .filter(|&s| answers[s].is_none())
                .fold(0, |m, s| m | (1 << s)),
            Phase::RobKong { answers, .. } => (0..4)
                .filter(|&s| answers[s].is_none())
                .fold(0, |m, s| m | (1 << s)),
            Phase::Swap { answered, .. } => (0..4)
                .filter(|&s| !answered[s])
                .fold(0, |m, s| m | (1 << s)),
            Phase::Over(_) => 0,
        }
    }

    /// The concealed cards of a seat whose faces are known here.
    pub fn hand_cards(&self, seat: Seat) -> Vec<Card> {
        self.seat(seat)
            .hand
            .iter()
            .filter_map(|&pos| self.face(pos).map(|tile| Card { pos, tile }))
            .collect()
    }

    /// Counts of a seat's concealed tiles, if all are known.
    pub fn hand_counts(&self, seat: Seat) -> Option<Counts> {
        let mut c = [0u8; PLAY_KINDS];
        for &pos in &self.seat(seat).hand {
            let t = self.face(pos)?;
            if !t.is_flower() {
                c[t.index()] += 1;
            }
        }
        Some(c)
    }

    /// A seat's melds as analysis sees them.
    pub fn meld_shapes(&self, seat: Seat) -> Vec<MeldShape> {
        self.seat(seat).melds.iter().map(|m| m.shape).collect()
    }

    /// The same, without allocating.
    fn shapes(&self, seat: Seat) -> hand::MeldList {
        hand::MeldList::collect(self.seat(seat).melds.iter().map(|m| m.shape))
    }

    /// Records a face this engine learned privately (its own draw) or publicly.
    /// A face that contradicts what is known is refused.
    pub fn learn(&mut self, pos: u8, tile: Tile) -> Result<(), MoveError> {
        match self.faces.get_mut(pos as usize) {
            None => Err(MoveError::Unknown { pos }),
            Some(Some(t)) if *t != tile => Err(MoveError::Conflict {
                pos,
                known: *t,
                claimed: tile,
            }),
            Some(f) => {
                *f = Some(tile);
                Ok(())
            }
        }
    }

    /// A stable 64-bit fingerprint of the whole state (FNV-1a over its postcard encoding):
    /// equal on every machine for equal states.
    pub fn state_hash(&self) -> u64 {
        let bytes = postcard::to_allocvec(self).unwrap_or_default();
        let mut h: u64 = 0xcbf29ce484222325;
        for b in bytes {
            h ^= b as u64;
            h = h.wrapping_mul(0x100000001b3);
        }
        h
    }

    // ---- the step function ----

    /// `state + move -> new state + events`, leaving `self` unchanged.
    pub fn step(&self, mv: &Move) -> Result<(HandState, Vec<Event>), MoveError> {
        let mut next = self.clone();
        let events = next.apply(mv)?;
        Ok((next, events))
    }

    /// Applies a move in place. On error nothing has changed.
    pub fn apply(&mut self, mv: &Move) -> Result<Vec<Event>, MoveError> {
        let mut events = Vec::new();
        self.apply_into(mv, &mut events)?;
        Ok(events)
    }

    /// [`apply`](Self::apply) appending the events to a buffer the caller reuses (for hot
    /// loops). On error nothing has changed and nothing is appended.
    pub fn apply_into(&mut self, mv: &Move, events: &mut Vec<Event>) -> Result<(), MoveError> {
        let seat = mv.seat;
        if seat > 3 {
            return Err(MoveError::NoSuchSeat(seat));
        }
        if self.is_over() {
            return Err(MoveError::HandOver);
        }
        let mark = events.len();
        let leaving = mv.action == Action::Leave
            || (mv.timed_out
                && self
                    .setup
                    .options
                    .timeouts_before_leaver
                    .is_some_and(|n| self.seats[seat as usize].timeouts >= n));
        if leaving {
            let payments = scoring::leaver_payments(
                &self.setup.options,
                self.setup.stake,
                seat,
                self.huangfan,
            );
            self.finish(
                Outcome::Abandoned {
                    leaver: seat,
                    payments,
                },
                events,
            );
            self.moves += 1;
            return Ok(());
        }
        let waiting = self.to_act_mask();
        if waiting & (1 << seat) == 0 {
            return Err(MoveError::OutOfTurn {
                seat,
                waiting: self.to_act(),
            });
        }
        // Most actions are checked in full before anything changes; the few that may fail
        // late (a win is scored only at the end, a last answer resolves the window) run on a
        // copy that is put back on error.
        let cheap = match mv.action {
            Action::Discard { .. }
            | Action::ConcealedKong { .. }
            | Action::AddedKong { .. }
            | Action::Swap { .. } => true,
            Action::Pass | Action::Chow { .. } | Action::Pung { .. } | Action::Kong { .. } => {
                waiting.count_ones() > 1 || !self.win_pending()
            }
            // A flower is checked before anything changes, unless it is the eighth (八花齐
            // is then scored, late).
            Action::Flower { card } => {
                !(self.setup.options.eight_flowers
                    && card.tile.is_flower()
                    && self.flower_tiles_aside(seat) >= 7)
            }
            Action::Win { .. } | Action::Leave => false,
        };
        let backup = if cheap { None } else { Some(self.clone()) };
        let result = self.dispatch(seat, &mv.action, events);
        if let Err(e) = result {
            if let Some(b) = backup {
                *self = b;
            }
            events.truncate(mark);
            return Err(e);
        }
        let st = &mut self.seats[seat as usize];
        st.timeouts = if mv.timed_out { st.timeouts + 1 } else { 0 };
        self.moves += 1;
        Ok(())
    }

    fn dispatch(
        &mut self,
        seat: Seat,
        action: &Action,
        events: &mut Vec<Event>,
    ) -> Result<(), MoveError> {
        match self.phase.clone() {
            Phase::Flowers { seat: s, done } => self.flowers_phase(s, done, action, events),
            Phase::Turn {
                seat: s,
                drawn,
                replacement,
            } => self.turn(s, drawn, replacement, action, events),
            Phase::Claims {
                from,
                card,
                answers,
                could_win,
            } => self.claim(seat, from, card, answers, could_win, action, events),
            Phase::RobKong {
                from,
                card,
                answers,
            } => self.rob(seat, from, card, answers, action, events),
            Phase::Swap { answered, put_back } => {
                self.swap_phase(seat, answered, put_back, action, events)
            }
            Phase::Over(_) => Err(MoveError::HandOver),
        }
    }

    /// Whether a win has been answered in the open claim or robbing window (resolving it
    /// scores the hand, which is the one step that can still fail late).
    fn win_pending(&self) -> bool {
        match &self.phase {
            Phase::Claims { answers, .. } => answers.iter().any(|a| matches!(a, Some(Answer::Win))),
            Phase::RobKong { answers, .. } => answers.contains(&Some(true)),
            _ => false,
        }
    }

    /// Checks a shown card: in this seat's hand, and its face consistent with what is known.
    fn check_in_hand(&self, seat: Seat, card: Card) -> Result<(), MoveError> {
        if !self.seats[seat as usize].hand.contains(&card.pos) {
            return illegal(seat, format!("holds no tile at wall position {}", card.pos));
        }
        if let Some(t) = self.face(card.pos)
            && t != card.tile
        {
            return illegal(
                seat,
                format!("the tile at position {} is not {}", card.pos, card.tile),
            );
        }
        Ok(())
    }

    fn check_distinct(seat: Seat, cards: &[Card]) -> Result<(), MoveError> {
        for (i, a) in cards.iter().enumerate() {
            if cards[i + 1..].iter().any(|b| b.pos == a.pos) {
                return illegal(seat, format!("wall position {} used twice", a.pos));
            }
        }
        Ok(())
    }

    fn remove_from_hand(&mut self, seat: Seat, pos: u8) {
        let h = &mut self.seats[seat as usize].hand;
        if let Some(i) = h.iter().position(|&p| p == pos) {
            h.remove(i);
        }
    }

    fn is_flower(&self, t: Tile) -> bool {
        self.setup.options.is_flower(t)
    }

    /// A known flower in the seat's hand, if any.
    fn flower_in_hand(&self, seat: Seat) -> Option<Card> {
        self.seats[seat as usize].hand.iter().find_map(|&pos| {
            self.face(pos)
                .filter(|&t| self.is_flower(t))
                .map(|tile| Card { pos, tile })
        })
    }

    /// Draws for `seat` from the front or back; ends the hand when the wall is empty.
    fn draw(&mut self, seat: Seat, replacement: bool, events: &mut Vec<Event>) {
        if self.remaining == 0 {
            self.finish(Outcome::Drawn, events);
            return;
        }
        let pos = if replacement {
            self.next_replacement()
        } else {
            self.front
        };
        if !replacement {
            self.front += 1;
        }
        self.remaining -= 1;
        let st = &mut self.seats[seat as usize];
        st.hand.push(pos);
        st.barred = 0;
        events.push(Event::Drew {
            seat,
            pos,
            replacement,
        });
        self.phase = Phase::Turn {
            seat,
            drawn: Some(pos),
            replacement,
        };
    }

    fn finish(&mut self, outcome: Outcome, events: &mut Vec<Event>) {
        events.push(Event::HandOver {
            outcome: Box::new(outcome.clone()),
        });
        self.phase = Phase::Over(Box::new(outcome));
    }

    fn set_flower_aside(
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
    fn holds_four_wildcards(&self, seat: Seat) -> bool {
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
    fn has_eight_flowers(&self, seat: Seat) -> bool {
        self.setup.options.eight_flowers && self.flower_tiles_aside(seat) == 8
    }

    /// Flower tiles (1f-8f; not `baida`'s dragons) the seat has set aside.
    fn flower_tiles_aside(&self, seat: Seat) -> usize {
        self.seats[seat as usize]
            .flowers
            .iter()
            .filter(|c| c.tile.is_flower())
            .count()
    }

    fn flowers_phase(
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
    fn start_first_turn(&mut self) {
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
    fn next_in_mask(&self, after: Seat, mask: u8) -> Option<Seat> {
        let dealer = self.setup.dealer;
        let rank = |s: Seat| (s + 4 - dealer) % 4;
        (rank(after) + 1..4)
            .map(|r| (dealer + r) % 4)
            .find(|s| mask & (1 << s) != 0)
    }

    /// Checks a 换牌 choice: five positions, strictly increasing, all in the seat's concealed
    /// hand, none a known flower.
    fn check_swap(&self, seat: Seat, put_back: &[u8; 5]) -> Result<(), MoveError> {
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

    fn swap_phase(
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

    fn turn(
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
    fn learn_reveal(&mut self, seat: Seat, reveal: &[Card]) -> Result<(), MoveError> {
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
    fn concealed_tiles(&self, seat: Seat) -> Result<Vec<Tile>, MoveError> {
        self.seats[seat as usize]
            .hand
            .iter()
            .map(|&p| self.face(p).ok_or(MoveError::Unknown { pos: p }))
            .collect()
    }

    fn win_eight_flowers(&mut self, seat: Seat, events: &mut Vec<Event>) -> Result<(), MoveError> {
        let winner = self.winner_hand(seat, vec![], None, false);
        self.settle(WinKind::EightFlowers, None, vec![winner], events)
    }

    /// Scores and ends the hand. A hand that does not score is an illegal win, and nothing
    /// changes (the caller has only learned faces).
    fn settle(
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

    fn settlement(
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

    /// Whether `seat` could win on `tile` given by another seat (discard or robbed kong),
    /// if its hand is known here.
    fn could_win_on(&self, seat: Seat, tile: Tile, discard: bool) -> Option<bool> {
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
    fn claim(
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
    fn resolve_claims(
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

    fn rob(
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
    fn winner_hand(
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
    fn hands_winning_on(&self, seats: &[Seat], t: Tile) -> Result<Vec<WinnerHand>, MoveError> {
        seats
            .iter()
            .map(|&w| {
                let mut concealed = self.concealed_tiles(w)?;
                concealed.push(t);
                Ok(self.winner_hand(w, concealed, Some(t), false))
            })
            .collect()
    }

    fn complete_added_kong(&mut self, seat: Seat, card: Card, events: &mut Vec<Event>) {
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

    /// Checks that every one of the 144 positions is in exactly one place: the wall, a hand,
    /// a meld, a flower area or an unclaimed discard. Returns a description of the first
    /// problem.
    pub fn check_conservation(&self) -> Result<(), String> {
        let mut seen = [0u8; TILE_COUNT];
        let remaining_front = self.front as usize;
        let back_end = remaining_front + self.remaining as usize;
        for p in remaining_front..back_end {
            seen[p] += 1;
        }
        let robbed = match &self.phase {
            Phase::RobKong { card, .. } => Some(card.pos),
            _ => self.robbed,
        };
        if let Some(p) = robbed {
            seen[p as usize] += 1;
        }
        for st in &self.seats {
            for &p in &st.hand {
                seen[p as usize] += 1;
            }
            for m in &st.melds {
                for &p in &m.cards {
                    seen[p as usize] += 1;
                }
            }
            for c in &st.flowers {
                seen[c.pos as usize] += 1;
            }
            for &p in &st.buried {
                seen[p as usize] += 1;
            }
            for d in &st.discards {
                if !d.claimed {
                    seen[d.card.pos as usize] += 1;
                }
            }
        }
        match seen.iter().position(|&n| n != 1) {
            None => Ok(()),
            Some(p) => Err(format!("wall position {p} is in {} places", seen[p])),
        }
    }
}

/// Calls `f` with every strictly increasing choice of five of `items` (sorted ascending).
fn for_each_five(items: &[u8], mut f: impl FnMut([u8; 5])) {
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
