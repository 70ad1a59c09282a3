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

mod claims;
mod flowers;
mod legal;
mod turn;
mod types;

pub use types::*;

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
