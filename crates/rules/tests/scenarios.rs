//! Scenario tests: every rule of docs/rules.en.md §2–§7 walked through the step function
//! ([`HandState::apply`]) on crafted walls, one or more named tests per rule, grouped by
//! section.
//!
//! A [`common::Table`] names the tiles that matter — each seat's hand by notation (in deal
//! order; a shorter string fixes the first tiles and the rest is filled), the later live draws
//! (positions 53, 54, …) and the replacement draws (143, 142, …) — and fills every other
//! position with the leftover tiles: flowers (and `baida` dragons) in the middle of the wall,
//! where no scenario reaches them unless it plays the wall out. A [`common::Game`] drives the
//! state with real moves, checks after every accepted move that each of the 144 tiles is in
//! exactly one place, and checks that a refused move leaves the state exactly as it was.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use common::*;
use mahjong_rules::scoring::bound_seats;
use mahjong_rules::session::next_dealer_after_win;
use mahjong_rules::*;

mod common {
    use mahjong_rules::tile::{KINDS, PLAY_KINDS, TILE_COUNT};
    use mahjong_rules::wall::{DEALT, deal_seat};
    use mahjong_rules::*;

    /// One tile by notation.
    pub fn t(s: &str) -> Tile {
        s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    /// Whole coins per seat.
    pub fn coins(c: [i64; 4]) -> [Money; 4] {
        c.map(Money::coins)
    }

    /// The wall positions dealt to `seat`, in deal order.
    pub fn dealt_positions(dealer: Seat, seat: Seat) -> Vec<usize> {
        (0..DEALT)
            .filter(|&p| deal_seat(dealer, p) == seat)
            .collect()
    }

    /// A hand's set-up and the tiles that matter; everything else is filled.
    #[derive(Clone, Debug)]
    pub struct Table {
        pub options: Options,
        pub dealer: Seat,
        pub dice: Dice,
        pub huangfan: u32,
        pub stake: Money,
        hands: [Vec<Tile>; 4],
        live: Vec<Tile>,
        back: Vec<Tile>,
        fixed: Vec<(usize, Tile)>,
    }

    impl Table {
        /// Dealer 0, dice 2 and 3 (no 开宝, no dice 荒番), stake 1, counter 0.
        pub fn new(ruleset: Ruleset) -> Table {
            Table {
                options: Options::preset(ruleset),
                dealer: 0,
                dice: Dice::new(2, 3).unwrap(),
                huangfan: 0,
                stake: Money::coins(1),
                hands: Default::default(),
                live: vec![],
                back: vec![],
                fixed: vec![],
            }
        }
        pub fn qiaoma() -> Table {
            Table::new(Ruleset::Qiaoma)
        }
        pub fn classic() -> Table {
            Table::new(Ruleset::Classic)
        }
        pub fn baida() -> Table {
            Table::new(Ruleset::Baida)
        }
        /// The table of a session's next hand.
        pub fn from_setup(s: &Setup) -> Table {
            Table {
                options: s.options.clone(),
                dealer: s.dealer,
                dice: s.dice,
                huangfan: s.huangfan,
                stake: s.stake,
                ..Table::new(s.options.ruleset)
            }
        }
        pub fn dealer(mut self, d: Seat) -> Table {
            self.dealer = d;
            self
        }
        pub fn dice(mut self, a: u8, b: u8) -> Table {
            self.dice = Dice::new(a, b).unwrap();
            self
        }
        pub fn huangfan(mut self, n: u32) -> Table {
            self.huangfan = n;
            self
        }
        /// The first tiles dealt to `seat` (all 13, 14 for the dealer, or fewer).
        pub fn hand(mut self, seat: Seat, tiles: &str) -> Table {
            self.hands[seat as usize] = parse_tiles(tiles).unwrap();
            self
        }
        /// The live draws after the deal: positions 53, 54, …
        pub fn live(mut self, tiles: &str) -> Table {
            self.live = parse_tiles(tiles).unwrap();
            self
        }
        /// The replacement draws: positions 143, 142, …
        pub fn back(mut self, tiles: &str) -> Table {
            self.back = parse_tiles(tiles).unwrap();
            self
        }
        /// One tile at a wall position.
        pub fn at(mut self, pos: usize, tile: &str) -> Table {
            self.fixed.push((pos, t(tile)));
            self
        }
        pub fn setup(&self) -> Setup {
            Setup {
                options: self.options.clone(),
                stake: self.stake,
                dealer: self.dealer,
                dice: self.dice,
                huangfan: self.huangfan,
            }
        }

        /// The 144 tiles: the named ones where asked; the leftovers one of each kind at a time
        /// (1-4-7, honors, 2-5-8, 3-6-9), so filled hands are far from any win; flowers in
        /// the middle.
        pub fn wall(&self) -> Wall {
            fn put(slots: &mut [Option<Tile>], left: &mut [u8; KINDS], pos: usize, t: Tile) {
                assert!(slots[pos].is_none(), "wall position {pos} given twice");
                assert!(
                    left[t.index()] > 0,
                    "more than {} of {t} in the scenario",
                    t.copies()
                );
                left[t.index()] -= 1;
                slots[pos] = Some(t);
            }
            let mut slots = vec![None; TILE_COUNT];
            let mut left = [0u8; KINDS];
            for t in Tile::all() {
                left[t.index()] = t.copies();
            }
            for seat in 0..4u8 {
                let ps = dealt_positions(self.dealer, seat);
                let h = &self.hands[seat as usize];
                assert!(
                    h.len() <= ps.len(),
                    "seat {seat} is dealt {} tiles, not {}",
                    ps.len(),
                    h.len()
                );
                for (&p, &t) in ps.iter().zip(h) {
                    put(&mut slots, &mut left, p, t);
                }
            }
            for (k, &t) in self.live.iter().enumerate() {
                put(&mut slots, &mut left, DEALT + k, t);
            }
            for (k, &t) in self.back.iter().enumerate() {
                put(&mut slots, &mut left, TILE_COUNT - 1 - k, t);
            }
            for &(p, t) in &self.fixed {
                put(&mut slots, &mut left, p, t);
            }
            // Leftovers: 1-4-7, the honors, 2-5-8, 3-6-9 of each suit, one copy per round.
            let mut order = Vec::with_capacity(PLAY_KINDS);
            for start in 0..3 {
                for suit in 0..3 {
                    order.extend((start..9).step_by(3).map(|n| suit * 9 + n));
                }
                if start == 0 {
                    order.extend(27..PLAY_KINDS);
                }
            }
            order.extend(PLAY_KINDS..KINDS);
            let mut pool = Vec::new();
            let mut flowers = Vec::new();
            for round in 0..4 {
                for &k in &order {
                    if left[k] > round {
                        let tile = Tile::from_index(k).unwrap();
                        if self.options.is_flower(tile) {
                            flowers.push(tile);
                        } else {
                            pool.push(tile);
                        }
                    }
                }
            }
            let mut pool = pool.into_iter();
            for slot in slots.iter_mut().take(DEALT).filter(|s| s.is_none()) {
                *slot = Some(pool.next().expect("enough tiles to fill the hands"));
            }
            let empty: Vec<usize> = (DEALT..TILE_COUNT)
                .filter(|&p| slots[p].is_none())
                .collect();
            let mut middle = empty.clone();
            middle.sort_by_key(|&p| (p as i64 - 98).abs());
            for (&f, &p) in flowers.iter().zip(&middle) {
                slots[p] = Some(f);
            }
            for p in empty {
                if slots[p].is_none() {
                    slots[p] = pool.next();
                }
            }
            assert!(pool.next().is_none());
            Wall::new(slots.into_iter().map(Option::unwrap).collect()).unwrap()
        }

        /// The hand in its initial flower replacement.
        pub fn start(&self) -> Game {
            Game {
                st: HandState::new(self.setup(), &self.wall()).unwrap(),
            }
        }

        /// The hand after the initial flower replacement: the dealer's first turn.
        pub fn play(&self) -> Game {
            let mut g = self.start();
            g.skip_flowers();
            g
        }
    }

    /// A hand being played.
    pub struct Game {
        pub st: HandState,
    }

    impl Game {
        pub fn to_act(&self) -> Vec<Seat> {
            self.st.to_act()
        }
        pub fn legal(&self, seat: Seat) -> Vec<Action> {
            self.st.legal_actions(seat)
        }
        pub fn can_win(&self, seat: Seat) -> bool {
            self.legal(seat)
                .iter()
                .any(|a| matches!(a, Action::Win { .. }))
        }
        /// The seat whose turn it is (panics outside a turn).
        pub fn turn_seat(&self) -> Seat {
            match self.st.phase() {
                Phase::Turn { seat, .. } => *seat,
                p => panic!("not a turn: {p:?}"),
            }
        }
        /// The tile drawn this turn.
        pub fn drawn(&self) -> Card {
            match self.st.phase() {
                Phase::Turn { drawn: Some(p), .. } => Card {
                    pos: *p,
                    tile: self.st.face(*p).unwrap(),
                },
                p => panic!("no drawn tile: {p:?}"),
            }
        }
        /// The discard (or added kong tile) being answered.
        pub fn offered(&self) -> Card {
            match self.st.phase() {
                Phase::Claims { card, .. } | Phase::RobKong { card, .. } => *card,
                p => panic!("nothing offered: {p:?}"),
            }
        }

        /// Applies a move that must be accepted; checks tile conservation after it.
        pub fn mv(&mut self, mv: Move) -> Vec<Event> {
            let ev = match self.st.apply(&mv) {
                Ok(ev) => ev,
                Err(e) => panic!("{mv:?} refused: {e}\nphase {:?}", self.st.phase()),
            };
            self.st.check_conservation().unwrap();
            ev
        }
        pub fn act(&mut self, seat: Seat, action: Action) -> Vec<Event> {
            self.mv(Move::new(seat, action))
        }
        /// Applies a move that must be refused; checks that nothing changed.
        pub fn refuse(&mut self, seat: Seat, action: Action) -> MoveError {
            let before = self.st.clone();
            let hash = self.st.state_hash();
            let e = match self.st.apply(&Move::new(seat, action.clone())) {
                Ok(ev) => panic!("seat {seat} {action:?} was accepted: {ev:?}"),
                Err(e) => e,
            };
            assert_eq!(
                self.st.state_hash(),
                hash,
                "a refused move changed the state"
            );
            assert!(self.st == before, "a refused move changed the state");
            e
        }

        /// A card of this face in the seat's hand (the drawn one if it has this face).
        pub fn card(&self, seat: Seat, tile: &str) -> Card {
            let tile = t(tile);
            let hand = self.st.hand_cards(seat);
            let drawn = match self.st.phase() {
                Phase::Turn { seat: s, drawn, .. } if *s == seat => *drawn,
                _ => None,
            };
            if let Some(pos) = drawn.filter(|&p| self.st.face(p) == Some(tile)) {
                return Card { pos, tile };
            }
            *hand
                .iter()
                .find(|c| c.tile == tile)
                .unwrap_or_else(|| panic!("seat {seat} holds no {tile}"))
        }
        /// Distinct cards with these faces from the seat's hand.
        pub fn cards(&self, seat: Seat, tiles: &str) -> Vec<Card> {
            let mut hand = self.st.hand_cards(seat);
            parse_tiles(tiles)
                .unwrap()
                .into_iter()
                .map(|tile| {
                    let i = hand
                        .iter()
                        .position(|c| c.tile == tile)
                        .unwrap_or_else(|| panic!("seat {seat} holds too few {tile}"));
                    hand.remove(i)
                })
                .collect()
        }
        pub fn discard_of(&self, seat: Seat, tile: &str, ready: bool) -> Action {
            Action::Discard {
                card: self.card(seat, tile),
                ready,
            }
        }
        pub fn win_of(&self, seat: Seat) -> Action {
            Action::Win {
                reveal: self.st.hand_cards(seat),
            }
        }
        pub fn chow_of(&self, seat: Seat, tiles: &str) -> Action {
            Action::Chow {
                cards: self.cards(seat, tiles).try_into().unwrap(),
            }
        }
        pub fn pung_of(&self, seat: Seat) -> Action {
            let x = self.offered().tile.to_string();
            Action::Pung {
                cards: self.cards(seat, &format!("{x}{x}")).try_into().unwrap(),
            }
        }
        pub fn kong_of(&self, seat: Seat) -> Action {
            let x = self.offered().tile.to_string();
            Action::Kong {
                cards: self.cards(seat, &format!("{x}{x}{x}")).try_into().unwrap(),
            }
        }
        pub fn concealed_kong_of(&self, seat: Seat, tile: &str) -> Action {
            Action::ConcealedKong {
                cards: self.cards(seat, &tile.repeat(4)).try_into().unwrap(),
            }
        }

        pub fn discard(&mut self, seat: Seat, tile: &str) -> Vec<Event> {
            self.act(seat, self.discard_of(seat, tile, false))
        }
        pub fn discard_ready(&mut self, seat: Seat, tile: &str) -> Vec<Event> {
            self.act(seat, self.discard_of(seat, tile, true))
        }
        pub fn pass(&mut self, seat: Seat) -> Vec<Event> {
            self.act(seat, Action::Pass)
        }
        /// Every seat still to answer passes.
        pub fn pass_rest(&mut self) -> Vec<Event> {
            let mut ev = vec![];
            for s in self.to_act() {
                ev.extend(self.pass(s));
            }
            ev
        }
        /// `seat` discards `tile` and nobody claims it.
        pub fn turn(&mut self, seat: Seat, tile: &str) -> Vec<Event> {
            assert_eq!(self.turn_seat(), seat);
            let mut ev = self.discard(seat, tile);
            ev.extend(self.pass_rest());
            ev
        }
        /// `seat` discards what it drew and nobody claims it.
        pub fn turn_drawn(&mut self, seat: Seat) -> Vec<Event> {
            assert_eq!(self.turn_seat(), seat);
            let card = self.drawn();
            let mut ev = self.act(seat, Action::Discard { card, ready: false });
            ev.extend(self.pass_rest());
            ev
        }
        pub fn win(&mut self, seat: Seat) -> Vec<Event> {
            self.act(seat, self.win_of(seat))
        }
        pub fn pung(&mut self, seat: Seat) -> Vec<Event> {
            self.act(seat, self.pung_of(seat))
        }

        /// Plays each seat's timer action (docs/rules.en.md §4.8) through the flower replacement.
        pub fn skip_flowers(&mut self) {
            while matches!(self.st.phase(), Phase::Flowers { .. }) {
                let s = self.to_act()[0];
                let a = self.st.default_action(s).unwrap();
                self.act(s, a);
            }
        }
        /// Plays timer actions to the end of the hand.
        pub fn auto(&mut self) {
            let mut n = 0;
            while !self.st.is_over() {
                let s = self.to_act()[0];
                let a = self.st.default_action(s).unwrap();
                self.act(s, a);
                n += 1;
                assert!(n < 2000, "the hand does not end");
            }
        }

        pub fn outcome(&self) -> &Outcome {
            self.st.outcome().expect("the hand is over")
        }
        pub fn won(&self) -> (&Settlement, &ScoreResult) {
            match self.outcome() {
                Outcome::Win { settlement, result } => (settlement, result),
                o => panic!("not a win: {o:?}"),
            }
        }
        pub fn payments(&self) -> [Money; 4] {
            self.outcome().payments()
        }
        pub fn patterns(&self, seat: Seat) -> Vec<String> {
            let (_, r) = self.won();
            r.winners
                .iter()
                .find(|w| w.seat == seat)
                .unwrap()
                .patterns
                .clone()
        }
    }

    /// The draws in a list of events: (seat, position, replacement).
    pub fn draws(ev: &[Event]) -> Vec<(Seat, u8, bool)> {
        ev.iter()
            .filter_map(|e| match e {
                Event::Drew {
                    seat,
                    pos,
                    replacement,
                } => Some((*seat, *pos, *replacement)),
                _ => None,
            })
            .collect()
    }

    pub fn discards(actions: &[Action]) -> bool {
        actions.iter().all(|a| matches!(a, Action::Discard { .. }))
    }
}

/// A hand that waits on 2m and 5m: 混一色 with a concealed east pung (P = 3, S = 6 when
/// 门清 and nothing else holds).
const WAITS_2M_5M: &str = "34m678m999m111z22z";

/// Seat `dealer + 2` holds [`WAITS_2M_5M`], declares ready on its first discard and draws 5m
/// on its second turn; every other seat discards what it draws. Stops before the win.
fn ready_then_draw_5m(table: Table) -> Game {
    let d = table.dealer;
    let w = (d + 2) % 4;
    let mut g = table.hand(w, WAITS_2M_5M).live("9p 8p 7p 6p 5p 5m").play();
    g.turn_drawn(d);
    g.turn_drawn((d + 1) % 4);
    g.discard_ready(w, "8p");
    g.pass_rest();
    g.turn_drawn((d + 3) % 4);
    g.turn_drawn(d);
    g.turn_drawn((d + 1) % 4);
    assert_eq!(g.drawn().tile, t("5m"));
    g
}

/// [`ready_then_draw_5m`] and the self-drawn win.
fn ready_self_draw(table: Table) -> Game {
    let w = (table.dealer + 2) % 4;
    let mut g = ready_then_draw_5m(table);
    assert!(g.can_win(w));
    g.win(w);
    g
}

// ---------------------------------------------------------------------------------------
// §2 Seats, dice, wall
// ---------------------------------------------------------------------------------------

#[test]
fn deal_is_four_four_four_then_one_each_then_the_dealers_fourteenth() {
    let hands = [
        "6666777888999m",
        "11122233344455m",
        "1112223334445p",
        "1112223334445s",
    ];
    let mut table = Table::qiaoma().dealer(1);
    for (s, h) in hands.iter().enumerate() {
        table = table.hand(s as Seat, h);
    }
    let mut g = table.start();
    let run = |a: u8, n: u8| (a..a + n).collect::<Vec<u8>>();
    let expect: [Vec<u8>; 4] = [
        [run(12, 4), run(28, 4), run(44, 4), vec![51]].concat(),
        [run(0, 4), run(16, 4), run(32, 4), vec![48, 52]].concat(),
        [run(4, 4), run(20, 4), run(36, 4), vec![49]].concat(),
        [run(8, 4), run(24, 4), run(40, 4), vec![50]].concat(),
    ];
    for s in 0..4u8 {
        assert_eq!(g.st.seat(s).hand, expect[s as usize], "seat {s}");
        let mut got: Vec<Tile> = g.st.hand_cards(s).iter().map(|c| c.tile).collect();
        let mut want = parse_tiles(hands[s as usize]).unwrap();
        got.sort();
        want.sort();
        assert_eq!(got, want);
    }
    assert_eq!(g.st.seat(1).hand.len(), 14);
    assert_eq!(
        (
            g.st.wall_remaining(),
            g.st.next_live(),
            g.st.next_replacement()
        ),
        (91, 53, 143)
    );
    // The flower replacement starts with the dealer.
    assert_eq!(g.to_act(), vec![1]);
    g.skip_flowers();
    // The dealer's first turn has no draw: its 14th tile counts as drawn.
    assert_eq!(
        g.st.phase(),
        &Phase::Turn {
            seat: 1,
            drawn: Some(52),
            replacement: false
        }
    );
    let ev = g.discard(1, "5m");
    assert!(draws(&ev).is_empty());
    let ev = g.pass_rest();
    assert_eq!(draws(&ev), vec![(2, 53, false)]);
    assert_eq!(g.st.wall_remaining(), 90);
}

#[test]
fn winner_deals_the_next_hand() {
    let mut session = Session::new(
        Options::preset(Ruleset::Qiaoma),
        Money::coins(1),
        SessionLength::Open,
    );
    let setup = session.setup(1, Dice::new(2, 3).unwrap());
    assert_eq!(
        setup.dealer, 1,
        "the first dealer comes from the table's randomness"
    );
    let g = ready_self_draw(Table::from_setup(&setup));
    session.record(&setup, g.st.huangfan(), g.outcome());
    assert_eq!(session.dealer, Some(3));
    assert_eq!(session.setup(0, Dice::new(2, 3).unwrap()).dealer, 3);
}

#[test]
fn drawn_hand_is_dealt_again_by_the_same_dealer() {
    let mut session = Session::new(
        Options::preset(Ruleset::Qiaoma),
        Money::coins(1),
        SessionLength::Open,
    );
    let setup = session.setup(3, Dice::new(2, 3).unwrap());
    let mut g = Table::from_setup(&setup).play();
    g.auto();
    assert_eq!(g.outcome(), &Outcome::Drawn);
    session.record(&setup, g.st.huangfan(), g.outcome());
    assert_eq!(session.dealer, Some(3));
}

#[test]
fn two_winners_on_one_discard_the_nearest_after_the_discarder_deals() {
    let g = two_wins_on_seat_1s_discard();
    assert_eq!(
        g.outcome().winners(),
        vec![3, 0],
        "settled in turn order from the discarder"
    );
    let mut session = Session::new(
        Options::preset(Ruleset::Qiaoma),
        Money::coins(1),
        SessionLength::Open,
    );
    let setup = Table::qiaoma().setup();
    session.record(&setup, 0, g.outcome());
    // After seat 1 come 2, 3, 0: seat 3 is the nearest winner (not the lowest seat, 0).
    assert_eq!(session.dealer, Some(3));
    assert_eq!(next_dealer_after_win(Some(1), &[0, 3]), 3);
}

#[test]
fn baida_drawn_first_hand_draws_the_dealer_again() {
    let mut session = Session::new(
        Options::preset(Ruleset::Baida),
        Money::coins(1),
        SessionLength::Open,
    );
    let setup = session.setup(2, Dice::new(2, 3).unwrap());
    let mut g = Table::from_setup(&setup).play();
    g.auto();
    assert_eq!(g.outcome(), &Outcome::Drawn);
    session.record(&setup, g.st.huangfan(), g.outcome());
    assert_eq!(session.dealer, None, "chosen at random again");
    let setup = session.setup(1, Dice::new(2, 3).unwrap());
    assert_eq!(setup.dealer, 1);
    let mut g = Table::from_setup(&setup).play();
    g.auto();
    session.record(&setup, g.st.huangfan(), g.outcome());
    assert_eq!(
        session.dealer,
        Some(1),
        "only the first hand of a table redraws the dealer"
    );
}

#[test]
fn dice_sum_counts_the_wall_from_the_dealer() {
    // 000's example: 2 and 5 → 7 → the dealer's opposite seat.
    let d = Dice::new(2, 5).unwrap();
    assert_eq!(d.sum(), 7);
    assert_eq!(d.wall_seat(0), 2);
    assert_eq!(d.wall_seat(3), 1);
    assert_eq!(Dice::new(2, 2).unwrap().wall_seat(1), 0); // 4: the seat before the dealer
    assert_eq!(Dice::new(1, 4).unwrap().wall_seat(2), 2); // 5: the dealer again
    for a in 1..=6 {
        for b in 1..=6 {
            let dice = Dice::new(a, b).unwrap();
            assert_eq!(
                dice.is_kaibao(),
                a == b || (a.min(b), a.max(b)) == (1, 4),
                "{a} {b}"
            );
        }
    }
    assert!(Dice::new(0, 1).is_err() && Dice::new(1, 7).is_err());
    let g = Table::qiaoma().dice(6, 1).play();
    assert_eq!(g.st.view(2).dice, Dice::new(6, 1).unwrap());
}

#[test]
fn exhaustive_draw_when_a_seat_must_draw_and_none_is_left() {
    // Every seat holds four alike and never discards them: whoever draws the last tile
    // could kong but must not, as no replacement is left.
    let mut g = Table::qiaoma()
        .hand(0, "1111m")
        .hand(1, "2222m")
        .hand(2, "3333m")
        .hand(3, "4444m")
        .play();
    let mut last_turn_checked = false;
    while !g.st.is_over() {
        let s = g.to_act()[0];
        if g.st.wall_remaining() == 0 && matches!(g.st.phase(), Phase::Turn { .. }) {
            assert!(
                !g.legal(s)
                    .iter()
                    .any(|a| matches!(a, Action::ConcealedKong { .. }))
            );
            let quad = ["1m", "2m", "3m", "4m"][s as usize];
            let e = g.refuse(s, g.concealed_kong_of(s, quad));
            assert!(matches!(e, MoveError::Illegal { .. }), "{e}");
            last_turn_checked = true;
        }
        let before_remaining = g.st.wall_remaining();
        let a = g.st.default_action(s).unwrap();
        let ev = g.act(s, a);
        if g.st.is_over() {
            // The hand ends on the last answer to the last discard: the next seat must draw.
            assert_eq!(before_remaining, 0);
            assert!(
                matches!(ev.last(), Some(Event::HandOver { outcome }) if **outcome == Outcome::Drawn)
            );
        }
    }
    assert!(last_turn_checked);
    assert_eq!(g.outcome(), &Outcome::Drawn);
    assert_eq!(g.payments(), [Money::ZERO; 4]);
    assert_eq!(g.st.wall_remaining(), 0);
}

#[test]
fn baida_indicator_lies_at_the_next_walls_smaller_die_stack() {
    for a in 1..=6u8 {
        for b in 1..=6u8 {
            let s = (a + b) as usize;
            let m = a.min(b) as usize;
            let pos = 145 - 2 * (s + m);
            assert_eq!(Dice::new(a, b).unwrap().indicator_position() as usize, pos);
            if a == b || a + 1 == b {
                let g = Table::baida().dice(a, b).at(pos, "3s").start();
                assert_eq!(g.st.indicator(), Some(pos as u8));
                assert_eq!(g.st.wildcard(), Some(t("4s")));
            }
        }
    }
}

#[test]
fn baida_wildcard_is_the_indicators_successor() {
    for (indicator, wild) in [
        ("3s", "4s"),
        ("9p", "1p"),
        ("9m", "1m"),
        ("1z", "2z"),
        ("4z", "1z"),
        ("5z", "1z"),
        ("7z", "1z"),
        ("2f", "1z"),
    ] {
        let g = Table::baida().at(131, indicator).start();
        assert_eq!(g.st.wildcard(), Some(t(wild)), "indicator {indicator}");
        for s in 0..4 {
            let v = g.st.view(s);
            assert_eq!(v.wildcard, Some(t(wild)));
            assert_eq!(
                v.indicator,
                Some(Card {
                    pos: 131,
                    tile: t(indicator)
                })
            );
        }
    }
}

#[test]
fn baida_indicator_stays_in_the_wall_and_is_drawn_in_its_turn() {
    // Dice 1 and 1: the indicator is at 139, the fifth replacement draw. The dealer sets
    // five flowers aside (dragons are flowers) and draws it.
    let mut g = Table::baida()
        .dice(1, 1)
        .hand(0, "5z6z7z5z1f")
        .back("1m2m3m4m")
        .at(139, "9s")
        .start();
    assert_eq!(
        (g.st.indicator(), g.st.wildcard()),
        (Some(139), Some(t("1s")))
    );
    g.skip_flowers();
    assert!(g.st.seat(0).hand.contains(&139));
    assert_eq!(g.st.face(139), Some(t("9s")));
    assert_eq!(g.st.view(0).hand.iter().filter(|c| c.pos == 139).count(), 1);
    assert_eq!(
        g.st.view(1).indicator,
        Some(Card {
            pos: 139,
            tile: t("9s")
        })
    );
}

// ---------------------------------------------------------------------------------------
// §3 Deal and flowers
// ---------------------------------------------------------------------------------------

#[test]
fn initial_flowers_are_replaced_in_turn_order_from_the_back() {
    let mut g = Table::qiaoma()
        .dealer(2)
        .hand(2, "1f2f")
        .hand(3, "3f")
        .hand(1, "4f")
        .back("5f 1m 2m 3m 4m")
        .start();
    assert_eq!(g.to_act(), vec![2]);
    let e = g.refuse(
        3,
        Action::Flower {
            card: g.card(3, "3f"),
        },
    );
    assert!(matches!(e, MoveError::OutOfTurn { seat: 3, .. }), "{e}");
    let e = g.refuse(2, Action::Pass);
    assert!(
        matches!(e, MoveError::Illegal { .. }),
        "must set its flowers aside first: {e}"
    );
    let e = g.refuse(2, g.discard_of(2, "1f", false));
    assert!(matches!(e, MoveError::Illegal { .. }), "{e}");
    let mut all = vec![];
    for (seat, f) in [(2, "1f"), (2, "2f"), (2, "5f")] {
        all.extend(g.act(
            seat,
            Action::Flower {
                card: g.card(seat, f),
            },
        ));
    }
    all.extend(g.pass(2));
    all.extend(g.act(
        3,
        Action::Flower {
            card: g.card(3, "3f"),
        },
    ));
    all.extend(g.pass(3));
    all.extend(g.pass(0));
    all.extend(g.act(
        1,
        Action::Flower {
            card: g.card(1, "4f"),
        },
    ));
    all.extend(g.pass(1));
    assert_eq!(
        draws(&all),
        vec![
            (2, 143, true),
            (2, 142, true),
            (2, 141, true),
            (3, 140, true),
            (1, 139, true)
        ]
    );
    let flowers = |s: Seat| {
        g.st.seat(s)
            .flowers
            .iter()
            .map(|c| c.tile)
            .collect::<Vec<_>>()
    };
    assert_eq!(flowers(2), parse_tiles("1f2f5f").unwrap());
    assert_eq!(flowers(3), vec![t("3f")]);
    assert_eq!(flowers(1), vec![t("4f")]);
    assert_eq!(
        g.st.phase(),
        &Phase::Turn {
            seat: 2,
            drawn: Some(141),
            replacement: true
        }
    );
    assert_eq!(g.st.seat(2).hand.len(), 14);
    assert_eq!(g.st.wall_remaining(), 86);
}

#[test]
fn flower_drawn_in_play_is_set_aside_and_replaced_at_once() {
    let mut g = Table::qiaoma().live("6f").back("7f 9s").play();
    g.turn_drawn(0);
    let flower = g.drawn();
    assert_eq!(
        flower,
        Card {
            pos: 53,
            tile: t("6f")
        }
    );
    // Nothing but setting it aside is possible.
    assert_eq!(g.legal(1), vec![Action::Flower { card: flower }]);
    let e = g.refuse(1, g.discard_of(1, "6f", false));
    assert!(matches!(e, MoveError::Illegal { .. }), "{e}");
    let other = g.st.hand_cards(1)[0];
    let e = g.refuse(
        1,
        Action::Discard {
            card: other,
            ready: false,
        },
    );
    assert!(matches!(e, MoveError::Illegal { .. }), "{e}");
    let ev = g.act(1, Action::Flower { card: flower });
    assert_eq!(draws(&ev), vec![(1, 143, true)]);
    // The replacement is a flower too: replaced again.
    assert_eq!(
        g.legal(1),
        vec![Action::Flower {
            card: Card {
                pos: 143,
                tile: t("7f")
            }
        }]
    );
    let ev = g.act(
        1,
        Action::Flower {
            card: g.card(1, "7f"),
        },
    );
    assert_eq!(draws(&ev), vec![(1, 142, true)]);
    assert_eq!(
        g.st.phase(),
        &Phase::Turn {
            seat: 1,
            drawn: Some(142),
            replacement: true
        }
    );
    assert!(discards(&g.legal(1)));
    assert_eq!(g.st.view(3).seats[1].flowers, parse_tiles("6f7f").unwrap());
    g.turn(1, "9s");
}

#[test]
fn eight_flowers_win_at_once_in_play_qiaoma() {
    // Seat 1 sets seven flowers aside at the deal and draws the eighth in play.
    let mut g = Table::qiaoma().hand(1, "1f2f3f4f5f6f7f").live("8f").play();
    assert_eq!(g.st.seat(1).flowers.len(), 7);
    assert!(!g.st.seat(1).ready);
    g.turn_drawn(0);
    let ev = g.act(
        1,
        Action::Flower {
            card: g.card(1, "8f"),
        },
    );
    assert!(
        draws(&ev).is_empty(),
        "no replacement: the hand is won at once"
    );
    let (s, r) = g.won();
    assert_eq!(s.kind, WinKind::EightFlowers);
    assert_eq!(r.winners[0].hand, "bahuaqi");
    // P = 2 + 8, 八花齐 = 2 lezi = 20, cap 2 lezi: 20 from each of the three others.
    assert_eq!(r.winners[0].score, 20);
    assert_eq!(g.payments(), coins([-20, 60, -20, -20]));
}

#[test]
fn eight_flowers_win_at_once_at_the_deal_classic() {
    let mut g = Table::classic().hand(2, "1f2f3f4f5f6f7f8f").start();
    g.pass(0);
    g.pass(1);
    let mut all = vec![];
    for f in ["1f", "2f", "3f", "4f", "5f", "6f", "7f", "8f"] {
        assert!(!g.st.is_over());
        all.extend(g.act(2, Action::Flower { card: g.card(2, f) }));
    }
    assert_eq!(draws(&all).len(), 7, "the eighth flower is not replaced");
    let (s, r) = g.won();
    assert_eq!(
        (s.kind, r.winners[0].hand.as_str()),
        (WinKind::EightFlowers, "bahuaqi")
    );
    // classic: every hand but 碰碰胡/混一色 is worth one lezi of 8 points.
    assert_eq!(g.payments(), coins([-8, -8, 24, -8]));
}

#[test]
fn baida_dragons_are_flowers() {
    let o = Options::preset(Ruleset::Baida);
    assert_eq!(o.flower_tiles(), 20);
    let mut g = Table::baida()
        .at(131, "9p")
        .hand(0, "5z6z7z")
        .live("7z")
        .back("2p3p4p5p")
        .start();
    assert_eq!(
        g.legal(0),
        vec![Action::Flower {
            card: g.card(0, "5z")
        }]
    );
    for f in ["5z", "6z", "7z"] {
        g.act(0, Action::Flower { card: g.card(0, f) });
    }
    g.skip_flowers();
    assert_eq!(
        g.st.view(2).seats[0].flowers,
        parse_tiles("5z6z7z").unwrap()
    );
    g.turn_drawn(0);
    assert_eq!(g.drawn().tile, t("7z"));
    assert_eq!(g.legal(1), vec![Action::Flower { card: g.drawn() }]);
    let ev = g.act(1, Action::Flower { card: g.drawn() });
    assert_eq!(draws(&ev), vec![(1, 140, true)]);
}

#[test]
fn baida_any_standard_hand_wins_by_self_draw_with_a_wildcard() {
    // Indicator 4s: the wildcard 5s stands for the 2s of 123s.
    let mut g = Table::baida()
        .at(131, "4s")
        .hand(1, "123m456m789p11z13s")
        .live("5s")
        .play();
    g.turn_drawn(0);
    assert!(g.can_win(1));
    g.win(1);
    let (s, r) = g.won();
    assert_eq!((s.kind, s.wildcard), (WinKind::SelfDraw, Some(t("5s"))));
    // Flowers: 1 (底花) + 1 wildcard in hand + 1 门清 = 3; no fan: 3 from each.
    assert_eq!((r.winners[0].flowers, r.winners[0].score), (3, 3));
    let p = &r.winners[0].patterns;
    assert!(
        p.contains(&"menqing".to_string()) && !p.iter().any(|x| x.ends_with("baida")),
        "{p:?}"
    );
    assert_eq!(g.payments(), coins([-3, 9, -3, -3]));
}

#[test]
fn baida_four_wildcards_win_at_once() {
    // Indicator 4s: the wildcard is 5s. Seat 1 holds three and draws the fourth; its hand
    // is no standard hand, even with four wildcards.
    let mut g = Table::baida()
        .at(131, "4s")
        .hand(1, "555s 13579m 2468p 1s")
        .live("5s")
        .play();
    g.turn_drawn(0);
    assert!(g.can_win(1));
    g.win(1);
    let (s, r) = g.won();
    assert_eq!(s.kind, WinKind::FourWildcards);
    assert_eq!(r.winners[0].hand, "sibaida");
    // Flowers 1 (底花) + 4 wildcards + 1 门清 = 6, fan 2: 24 from each.
    assert_eq!(r.winners[0].flowers, 6);
    assert_eq!(g.payments(), coins([-24, 72, -24, -24]));
}

// ---------------------------------------------------------------------------------------
// §4 A turn
// ---------------------------------------------------------------------------------------

#[test]
fn moves_out_of_turn_are_rejected() {
    let mut g = Table::qiaoma().play();
    let c1 = g.st.hand_cards(1)[0];
    let e = g.refuse(
        1,
        Action::Discard {
            card: c1,
            ready: false,
        },
    );
    assert_eq!(
        e,
        MoveError::OutOfTurn {
            seat: 1,
            waiting: vec![0]
        }
    );
    let e = g.refuse(2, Action::Pass);
    assert!(matches!(e, MoveError::OutOfTurn { seat: 2, .. }));
    assert_eq!(g.refuse(9, Action::Pass), MoveError::NoSuchSeat(9));
    let d = g.drawn();
    g.act(
        0,
        Action::Discard {
            card: d,
            ready: false,
        },
    );
    // The discarder does not answer its own discard; a seat answers once.
    let e = g.refuse(0, Action::Pass);
    assert_eq!(
        e,
        MoveError::OutOfTurn {
            seat: 0,
            waiting: vec![1, 2, 3]
        }
    );
    g.pass(2);
    let e = g.refuse(2, Action::Pass);
    assert_eq!(
        e,
        MoveError::OutOfTurn {
            seat: 2,
            waiting: vec![1, 3]
        }
    );
}

#[test]
fn after_a_discard_all_three_others_answer() {
    let mut g = Table::qiaoma().play();
    g.discard(0, &g.drawn().tile.to_string());
    assert_eq!(g.to_act(), vec![1, 2, 3]);
    for s in [3, 1] {
        let ev = g.pass(s);
        assert_eq!(
            ev,
            vec![Event::Answered { seat: s }],
            "nothing is decided before all answer"
        );
    }
    assert_eq!(g.to_act(), vec![2]);
    let ev = g.pass(2);
    assert_eq!(draws(&ev), vec![(1, 53, false)]);
    assert_eq!(g.turn_seat(), 1);
}

#[test]
fn pung_beats_chow() {
    let mut g = Table::qiaoma()
        .hand(0, "5m")
        .hand(1, "46m")
        .hand(2, "55m")
        .play();
    g.discard(0, "5m");
    let base = g.st.clone();
    let chow = g.chow_of(1, "46m");
    let pung = g.pung_of(2);
    let orders = [
        [(1, &chow), (2, &pung), (3, &Action::Pass)],
        [(2, &pung), (1, &chow), (3, &Action::Pass)],
        [(3, &Action::Pass), (2, &pung), (1, &chow)],
        [(3, &Action::Pass), (1, &chow), (2, &pung)],
    ];
    for order in orders {
        let mut st = base.clone();
        let mut ev = vec![];
        for (s, a) in order {
            let (next, e) = st.step(&Move::new(s, a.clone())).unwrap();
            st = next;
            ev.extend(e);
        }
        let meld = MeldShape {
            kind: MeldType::Pung,
            tile: t("5m"),
        };
        assert!(
            ev.contains(&Event::Claimed {
                seat: 2,
                from: 0,
                meld
            }),
            "{ev:?}"
        );
        assert!(draws(&ev).is_empty());
        assert_eq!(
            st.phase(),
            &Phase::Turn {
                seat: 2,
                drawn: None,
                replacement: false
            }
        );
        assert_eq!((st.claims()[2][0], st.claims()[1][0]), (1, 0));
        assert!(st.seat(1).melds.is_empty() && st.seat(1).hand.len() == 13);
    }
    // Without the pung the chow is made.
    g.act(1, chow);
    g.pass_rest();
    assert_eq!(
        g.st.seat(1).melds[0].shape,
        MeldShape {
            kind: MeldType::Chow,
            tile: t("4m")
        }
    );
    assert_eq!(g.turn_seat(), 1);
}

#[test]
fn kong_beats_chow_and_draws_a_replacement() {
    let mut g = Table::qiaoma()
        .hand(0, "5m")
        .hand(1, "46m")
        .hand(3, "555m")
        .back("7p")
        .play();
    g.discard(0, "5m");
    g.act(1, g.chow_of(1, "46m"));
    g.act(3, g.kong_of(3));
    let ev = g.pass(2);
    let meld = MeldShape {
        kind: MeldType::ClaimedKong,
        tile: t("5m"),
    };
    assert!(ev.contains(&Event::Claimed {
        seat: 3,
        from: 0,
        meld
    }));
    assert_eq!(draws(&ev), vec![(3, 143, true)]);
    assert_eq!(
        g.st.phase(),
        &Phase::Turn {
            seat: 3,
            drawn: Some(143),
            replacement: true
        }
    );
    assert_eq!(g.st.seat(3).hand.len(), 11);
    assert_eq!(g.st.claims()[3][0], 1);
    assert!(g.st.seat(1).melds.is_empty());
    g.turn(3, "7p");
    assert_eq!(g.turn_seat(), 0, "play goes on after the kong player");
}

#[test]
fn only_the_next_seat_may_chow() {
    let mut g = Table::qiaoma()
        .hand(0, "5m")
        .hand(1, "467m2z")
        .hand(2, "46m13z")
        .play();
    g.discard(0, "5m");
    assert!(g.legal(1).iter().any(|a| matches!(a, Action::Chow { .. })));
    assert!(!g.legal(2).iter().any(|a| matches!(a, Action::Chow { .. })));
    let e = g.refuse(2, g.chow_of(2, "46m"));
    assert!(matches!(e, MoveError::Illegal { seat: 2, .. }), "{e}");
    let e = g.refuse(1, g.chow_of(1, "47m"));
    assert!(
        matches!(e, MoveError::Illegal { seat: 1, .. }),
        "not a sequence: {e}"
    );
    g.pass_rest();
    // No chow of honors, even for the next seat.
    g.discard(1, "2z");
    assert!(!g.legal(2).iter().any(|a| matches!(a, Action::Chow { .. })));
    let e = g.refuse(2, g.chow_of(2, "13z"));
    assert!(matches!(e, MoveError::Illegal { seat: 2, .. }), "{e}");
    g.pass_rest();
    assert_eq!(g.turn_seat(), 2);
}

#[test]
fn a_win_voids_every_other_claim() {
    let mut g = Table::qiaoma()
        .hand(1, "46m")
        .hand(2, WAITS_2M_5M)
        .hand(3, "55m")
        .live("1p 2p 9p 5m")
        .play();
    g.turn_drawn(0);
    g.turn_drawn(1);
    g.discard_ready(2, "2p");
    g.pass_rest();
    g.turn_drawn(3);
    g.discard(0, "5m");
    g.act(1, g.chow_of(1, "46m"));
    g.pung(3);
    assert!(g.can_win(2));
    g.win(2);
    assert_eq!(g.outcome().winners(), vec![2]);
    assert_eq!(g.st.claims(), &[[0; 4]; 4]);
    assert!(g.st.seat(1).melds.is_empty() && g.st.seat(3).melds.is_empty());
    assert_eq!(g.payments(), coins([-6, 0, 6, 0]));
}

/// Seat 0 (dealer) and seat 3 declare ready, then both win on seat 1's 5m.
fn two_wins_on_seat_1s_discard() -> Game {
    let mut g = Table::qiaoma()
        .hand(0, &format!("{WAITS_2M_5M}9p"))
        .hand(1, "5m")
        .hand(3, "111p222p333p999s5m")
        .live("2s 3s 8p 7p 1s")
        .play();
    g.discard_ready(0, "9p");
    g.pass_rest();
    g.turn_drawn(1);
    g.turn_drawn(2);
    g.discard_ready(3, "8p");
    g.pass_rest();
    assert_eq!(
        g.legal(0),
        vec![Action::Discard {
            card: g.drawn(),
            ready: false
        }]
    );
    g.turn_drawn(0);
    g.discard(1, "5m");
    assert!(g.can_win(0) && g.can_win(3) && !g.can_win(2));
    g.win(3);
    g.pass(2);
    g.win(0);
    g
}

#[test]
fn several_wins_on_one_discard_all_stand() {
    let g = two_wins_on_seat_1s_discard();
    let (s, r) = g.won();
    assert_eq!((s.kind, s.from), (WinKind::Discard, Some(1)));
    assert_eq!(
        r.winners
            .iter()
            .map(|w| (w.seat, w.score))
            .collect::<Vec<_>>(),
        vec![(3, 4), (0, 6)]
    );
    // Each winner is settled on its own; the discarder pays each.
    assert_eq!(g.payments(), coins([6, -10, 0, 4]));
}

#[test]
fn after_a_chow_or_pung_the_claimer_discards() {
    // classic (no ready needed): after the pung seat 2's tiles make a complete 碰碰胡, but
    // a claimer has no draw and may not win, kong or pass; it discards.
    let mut g = Table::classic()
        .hand(0, "5m")
        .hand(2, "55m111p222p333p44p")
        .play();
    g.discard(0, "5m");
    g.pung(2);
    let ev = g.pass_rest();
    assert!(draws(&ev).is_empty());
    assert_eq!(
        g.st.phase(),
        &Phase::Turn {
            seat: 2,
            drawn: None,
            replacement: false
        }
    );
    assert!(discards(&g.legal(2)));
    let e = g.refuse(2, g.win_of(2));
    assert!(matches!(e, MoveError::Illegal { .. }), "{e}");
    let e = g.refuse(2, Action::Pass);
    assert!(matches!(e, MoveError::Illegal { .. }), "{e}");
    // Its timer would discard the last tile in hand (there is no drawn tile).
    let last = *g.st.hand_cards(2).last().unwrap();
    assert_eq!(
        g.st.default_action(2),
        Some(Action::Discard {
            card: last,
            ready: false
        })
    );
    g.turn(2, "4p");
    assert_eq!(g.turn_seat(), 3, "the next seat after the claimer draws");

    // After a chow: no concealed kong before the discard.
    let mut g = Table::classic().hand(0, "5m").hand(1, "46m1111p").play();
    g.discard(0, "5m");
    g.act(1, g.chow_of(1, "46m"));
    g.pass_rest();
    assert!(discards(&g.legal(1)));
    let e = g.refuse(1, g.concealed_kong_of(1, "1p"));
    assert!(matches!(e, MoveError::Illegal { .. }), "{e}");
    g.turn(1, "1p");
}

/// Dealer: concealed kong of 1m, then discards 9s; seat 1 pungs it and later draws the
/// fourth 9s. `seat3` is seat 3's hand; with `ready` it declares on its first discard.
/// Stops with seat 1 holding the fourth 9s.
fn added_kong_script(seat3: &str, ready: bool) -> Game {
    let mut g = Table::qiaoma()
        .hand(0, "1111m9s")
        .hand(1, "99s1z")
        .hand(3, seat3)
        .live("2p 3p 4p 9s")
        .back("5p 6p")
        .play();
    let ev = g.act(0, g.concealed_kong_of(0, "1m"));
    let meld = MeldShape {
        kind: MeldType::ConcealedKong,
        tile: t("1m"),
    };
    assert!(ev.contains(&Event::Konged { seat: 0, meld }));
    assert_eq!(draws(&ev), vec![(0, 143, true)]);
    assert_eq!(
        g.st.phase(),
        &Phase::Turn {
            seat: 0,
            drawn: Some(143),
            replacement: true
        }
    );
    g.discard(0, "9s");
    g.pung(1);
    g.pass_rest();
    g.turn(1, "1z");
    g.turn_drawn(2);
    if ready {
        g.discard_ready(3, "3p");
        g.pass_rest();
    } else {
        g.turn_drawn(3);
    }
    g.turn_drawn(0);
    assert_eq!(g.drawn().tile, t("9s"));
    g
}

#[test]
fn concealed_and_added_kongs_draw_replacements() {
    let mut g = added_kong_script("", false);
    let card = g.card(1, "9s");
    let ev = g.act(1, Action::AddedKong { card });
    assert_eq!(ev, vec![Event::KongOffered { seat: 1, card }]);
    assert_eq!(g.to_act(), vec![0, 2, 3]);
    assert_eq!(g.legal(2), vec![Action::Pass]);
    let ev = g.pass_rest();
    let meld = MeldShape {
        kind: MeldType::AddedKong,
        tile: t("9s"),
    };
    assert!(ev.contains(&Event::Konged { seat: 1, meld }));
    assert_eq!(draws(&ev), vec![(1, 142, true)]);
    assert_eq!(g.st.seat(1).melds[0].cards.len(), 4);
    assert_eq!(g.st.claims()[1][0], 1, "an added kong is not a claim");
    g.turn(1, "6p");
}

#[test]
fn an_added_kong_can_be_robbed() {
    // Seat 3 is ready on 78s123s456s111z22z (waits 3s, 6s, 9s).
    let mut g = added_kong_script("78s123s456s111z22z", true);
    let card = g.card(1, "9s");
    g.act(1, Action::AddedKong { card });
    assert!(g.can_win(3));
    let e = g.refuse(2, g.win_of(2));
    assert!(
        matches!(e, MoveError::Illegal { .. }),
        "seat 2 has not declared ready: {e}"
    );
    // The pure step shows the other branch: nobody robs, the kong stands.
    let (no_rob, _) =
        g.st.step(&Move::new(3, Action::Pass))
            .and_then(|(s, _)| s.step(&Move::new(0, Action::Pass)))
            .and_then(|(s, _)| s.step(&Move::new(2, Action::Pass)))
            .unwrap();
    assert_eq!(no_rob.seat(1).melds[0].shape.kind, MeldType::AddedKong);
    g.pass(0);
    g.win(3);
    g.pass(2);
    let (s, r) = g.won();
    assert_eq!((s.kind, s.from), (WinKind::RobKong, Some(1)));
    assert_eq!(s.winners[0].winning_tile, Some(t("9s")));
    assert!(r.winners[0].patterns.contains(&"qianggang".to_string()));
    // 混一色, P = 2 + 1 (east pung), 门清 ×2: S = 6; the kong player alone pays 3 × S.
    assert_eq!(r.winners[0].score, 6);
    assert_eq!(g.payments(), coins([0, -18, 0, 18]));
}

#[test]
fn a_concealed_kong_cannot_be_robbed() {
    // Seat 3 is ready on thirteen honors (风一色, 乱风): it would win on any honor, 1z too.
    let mut g = Table::qiaoma()
        .hand(1, "111z")
        .hand(3, "222z333z444z55z66z")
        .live("1p 2p 3p 4p 1z")
        .back("5p")
        .play();
    g.turn_drawn(0);
    g.turn_drawn(1);
    g.turn_drawn(2);
    g.discard_ready(3, "3p");
    g.pass_rest();
    g.turn_drawn(0);
    assert_eq!(g.drawn().tile, t("1z"));
    let ev = g.act(1, g.concealed_kong_of(1, "1z"));
    assert!(!ev.iter().any(|e| matches!(e, Event::KongOffered { .. })));
    assert_eq!(draws(&ev), vec![(1, 143, true)]);
    assert_eq!(g.to_act(), vec![1]);
    let e = g.refuse(3, g.win_of(3));
    assert!(matches!(e, MoveError::OutOfTurn { seat: 3, .. }), "{e}");
    g.turn(1, "5p");
}

#[test]
fn qiaoma_cannot_win_without_declaring_ready() {
    let mut g = Table::qiaoma()
        .hand(0, "5m")
        .hand(2, WAITS_2M_5M)
        .live("1p 2m")
        .play();
    g.discard(0, "5m");
    assert!(!g.can_win(2));
    let e = g.refuse(2, g.win_of(2));
    assert!(
        matches!(&e, MoveError::Illegal { why, .. } if why.contains("ready")),
        "{e}"
    );
    g.pass_rest();
    g.turn_drawn(1);
    // A complete 混一色 by self-draw, still not ready.
    assert_eq!(g.drawn().tile, t("2m"));
    assert!(!g.can_win(2));
    let e = g.refuse(2, g.win_of(2));
    assert!(matches!(e, MoveError::Illegal { .. }), "{e}");
}

#[test]
fn classic_wins_without_declaring_ready() {
    let mut g = Table::classic().hand(0, "5m").hand(2, WAITS_2M_5M).play();
    g.discard(0, "5m");
    assert!(g.can_win(2));
    g.pass(1);
    g.pass(3);
    g.win(2);
    // classic 混一色: min(P = 3, 8); no 门清 multiplier in classic.
    assert_eq!(g.payments(), coins([-3, 0, 3, 0]));
}

#[test]
fn declaring_ready_needs_a_wait() {
    // The dealer's chows in three suits wait on nothing, whatever it discards.
    let mut g = Table::qiaoma()
        .hand(0, "123m456p789s12345z")
        .hand(1, WAITS_2M_5M)
        .live("9p")
        .play();
    assert!(
        !g.legal(0)
            .iter()
            .any(|a| matches!(a, Action::Discard { ready: true, .. }))
    );
    let e = g.refuse(0, g.discard_of(0, "1z", true));
    assert!(
        matches!(&e, MoveError::Illegal { why, .. } if why.contains("ready")),
        "{e}"
    );
    g.turn(0, "5z");
    let ready_9p = g.discard_of(1, "9p", true);
    assert!(g.legal(1).contains(&ready_9p));
    let ev = g.act(1, ready_9p);
    assert!(matches!(
        ev[0],
        Event::Discarded {
            seat: 1,
            ready: true,
            ..
        }
    ));
    let v = g.st.view(3);
    assert!(v.seats[1].ready && v.seats[1].discards[0].ready);
    // baida has no declaration at all.
    let mut b = Table::baida().at(131, "9p").play();
    let d = b.drawn();
    let e = b.refuse(
        0,
        Action::Discard {
            card: d,
            ready: true,
        },
    );
    assert!(matches!(e, MoveError::Illegal { .. }), "{e}");
}

#[test]
fn after_ready_no_chow_pung_or_kong_and_the_drawn_tile_is_discarded() {
    let mut g = Table::qiaoma()
        .hand(0, "1z")
        .hand(1, "6m")
        .hand(2, WAITS_2M_5M)
        .live("1p 9p 8p 7p 6p 9m")
        .play();
    g.turn_drawn(0);
    g.turn_drawn(1);
    g.discard_ready(2, "9p");
    g.pass_rest();
    g.turn_drawn(3);
    g.discard(0, "1z");
    assert_eq!(g.legal(2), vec![Action::Pass]);
    for a in [g.kong_of(2), g.pung_of(2)] {
        let e = g.refuse(2, a);
        assert!(
            matches!(&e, MoveError::Illegal { why, .. } if why.contains("ready")),
            "{e}"
        );
    }
    g.pass_rest();
    g.discard(1, "6m");
    assert_eq!(g.legal(2), vec![Action::Pass]);
    let e = g.refuse(2, g.chow_of(2, "78m"));
    assert!(matches!(e, MoveError::Illegal { .. }), "{e}");
    g.pass_rest();
    // Seat 2 draws its fourth 9m: it may neither kong nor keep it.
    let nine = g.drawn();
    assert_eq!(nine.tile, t("9m"));
    assert_eq!(
        g.legal(2),
        vec![Action::Discard {
            card: nine,
            ready: false
        }]
    );
    for a in [
        g.concealed_kong_of(2, "9m"),
        g.discard_of(2, "3m", false),
        Action::Discard {
            card: nine,
            ready: true,
        },
    ] {
        let e = g.refuse(2, a);
        assert!(matches!(e, MoveError::Illegal { .. }), "{e}");
    }
    assert_eq!(
        g.st.default_action(2),
        Some(Action::Discard {
            card: nine,
            ready: false
        })
    );
    g.turn_drawn(2);
}

#[test]
fn default_action_after_ready_discards_the_draw_and_wins_when_it_can() {
    // Seat 2, ready, draws 6p (discarded by its timer), then a flower whose replacement
    // 5m wins: the timer sets the flower aside and wins (杠开).
    let mut g = Table::qiaoma()
        .hand(2, WAITS_2M_5M)
        .live("1p 2p 3p 4p 5p 6p 7p 8p 9p 1f")
        .back("5m")
        .play();
    g.turn_drawn(0);
    g.turn_drawn(1);
    g.discard_ready(2, "2p");
    g.pass_rest();
    for s in [3, 0, 1] {
        g.turn_drawn(s);
    }
    let timed = |g: &mut Game| {
        let a = g.st.default_action(2).unwrap();
        g.mv(Move {
            seat: 2,
            action: a.clone(),
            timed_out: true,
        });
        a
    };
    assert_eq!(
        timed(&mut g),
        Action::Discard {
            card: Card {
                pos: 58,
                tile: t("6p")
            },
            ready: false
        }
    );
    g.pass_rest();
    for s in [3, 0, 1] {
        g.turn_drawn(s);
    }
    assert!(matches!(timed(&mut g), Action::Flower { .. }));
    assert!(matches!(timed(&mut g), Action::Win { .. }));
    let (s, r) = g.won();
    assert_eq!(s.kind, WinKind::SelfDraw);
    assert!(s.winners[0].replacement_draw);
    let p = &r.winners[0].patterns;
    assert!(
        p.contains(&"gangkai".to_string()) && p.contains(&"menqing".to_string()),
        "{p:?}"
    );
    // 混一色 P = 2 + 1 + 1 flower = 4, 杠开 → 10, 门清 ×2 = 20, cap 2 lezi: S = 20.
    assert_eq!(g.payments(), coins([-20, -20, 60, -20]));
}

#[test]
fn baida_wins_by_self_draw_only_and_an_added_kong_is_not_robbed() {
    // Indicator 9p (wildcard 1p). Seat 2's standard hand wins on the dealer's 5p, but not
    // on a discard; seat 1 pungs it and later adds the fourth 5p with no robbing window.
    let mut g = Table::baida()
        .at(131, "9p")
        .hand(0, "5p")
        .hand(1, "55p3s")
        .hand(2, "123m456m789m11s46p")
        .live("7s 8s 9s 5p")
        .play();
    g.discard(0, "5p");
    assert!(!g.can_win(2));
    let e = g.refuse(2, g.win_of(2));
    assert!(
        matches!(&e, MoveError::Illegal { why, .. } if why.contains("self-draw")),
        "{e}"
    );
    g.pung(1);
    g.pass_rest();
    g.turn(1, "3s");
    for s in [2, 3, 0] {
        g.turn_drawn(s);
    }
    let card = g.card(1, "5p");
    let ev = g.act(1, Action::AddedKong { card });
    assert!(!ev.iter().any(|e| matches!(e, Event::KongOffered { .. })));
    let meld = MeldShape {
        kind: MeldType::AddedKong,
        tile: t("5p"),
    };
    assert!(ev.contains(&Event::Konged { seat: 1, meld }));
    assert_eq!(draws(&ev), vec![(1, 143, true)]);
    assert_eq!(g.to_act(), vec![1]);
}

/// 漏胡 set-up: seat 2 ready on 23m456m789m111z22z (waits 1m, 4m, 7m) passes seat 3's 1m,
/// then may not win on the dealer's 1m. Stops at seat 1's turn (it drew 5p).
fn missed_win_script() -> Game {
    let mut g = Table::qiaoma()
        .hand(0, "1m")
        .hand(1, "4m")
        .hand(2, "23m456m789m111z22z")
        .hand(3, "11m")
        .live("1p 2p 3p 4p 5p 6p 7p")
        .play();
    g.turn_drawn(0);
    g.turn_drawn(1);
    g.discard_ready(2, "2p");
    g.pass_rest();
    g.discard(3, "1m");
    assert!(g.can_win(2));
    let ev = g.pass_rest();
    assert!(ev.contains(&Event::MissedWin {
        seat: 2,
        tile: t("1m")
    }));
    assert_ne!(g.st.view(2).barred & (1 << t("1m").index()), 0);
    // Seat 2 does not draw before the dealer discards the same kind.
    g.discard(0, "1m");
    assert!(!g.can_win(2));
    assert_eq!(g.legal(2), vec![Action::Pass]);
    let e = g.refuse(2, g.win_of(2));
    assert!(
        matches!(&e, MoveError::Illegal { why, .. } if why.contains("漏胡")),
        "{e}"
    );
    let ev = g.pass_rest();
    assert!(!ev.iter().any(|e| matches!(e, Event::MissedWin { .. })));
    assert_eq!(g.drawn().tile, t("5p"));
    g
}

#[test]
fn missed_win_bars_that_kind_from_anyone_but_not_the_other_waits() {
    let mut g = missed_win_script();
    g.discard(1, "4m");
    assert!(g.can_win(2));
    g.win(2);
    g.pass_rest();
    assert_eq!(g.payments(), coins([0, -6, 6, 0]));
}

#[test]
fn missed_win_is_lifted_by_the_next_draw() {
    let mut g = missed_win_script();
    g.turn_drawn(1);
    assert_eq!(g.st.seat(2).barred, 0, "seat 2 has drawn");
    g.turn_drawn(2);
    g.discard(3, "1m");
    assert!(g.can_win(2));
    g.win(2);
    g.pass_rest();
    assert_eq!(g.payments(), coins([0, 0, 6, -6]));
}

#[test]
fn missed_win_is_lifted_by_a_pung_classic() {
    let mut g = Table::classic()
        .hand(0, "5z")
        .hand(2, "23m456m789m555z11z")
        .hand(3, "11m")
        .live("1p 2p 3p 4p 5p")
        .play();
    g.turn_drawn(0);
    g.turn_drawn(1);
    g.turn_drawn(2);
    g.discard(3, "1m");
    assert!(g.can_win(2));
    g.pass_rest();
    assert_ne!(g.st.seat(2).barred, 0);
    g.discard(0, "5z");
    g.pung(2);
    g.pass_rest();
    assert_eq!(g.st.seat(2).barred, 0);
    g.turn(2, "5z");
    g.discard(3, "1m");
    assert!(g.can_win(2));
    g.win(2);
    g.pass_rest();
    assert_eq!(g.won().0.winners[0].seat, 2);
}

#[test]
fn timed_out_moves_are_counted_in_a_row() {
    let mut g = Table::qiaoma().play();
    let timed = |g: &mut Game, seat: Seat, timed_out: bool| {
        let action = g.st.default_action(seat).unwrap();
        g.mv(Move {
            seat,
            action,
            timed_out,
        });
    };
    timed(&mut g, 0, true);
    assert_eq!(g.st.seat(0).timeouts, 1);
    timed(&mut g, 1, true);
    timed(&mut g, 2, true);
    timed(&mut g, 3, false);
    assert_eq!([1, 2, 3].map(|s| g.st.seat(s).timeouts), [1, 1, 0]);
    timed(&mut g, 1, true);
    assert_eq!(g.st.seat(1).timeouts, 2);
    timed(&mut g, 2, false);
    assert_eq!(
        g.st.seat(2).timeouts,
        0,
        "a move of its own resets the count"
    );
    // qiaoma has no time-out limit: a seat may time out again and again.
    for _ in 0..40 {
        let s = g.to_act()[0];
        timed(&mut g, s, true);
    }
    assert!(!g.st.is_over());
    assert!(g.st.seat(0).timeouts >= 6);
}

#[test]
fn baida_sixth_timed_out_move_in_a_row_makes_a_leaver() {
    let mut g = Table::baida().at(131, "9p").play();
    let mut n = 0;
    loop {
        let s = g.to_act()[0];
        let action = g.st.default_action(s).unwrap();
        let ev = g.mv(Move {
            seat: s,
            action,
            timed_out: s == 1,
        });
        if s == 1 {
            n += 1;
            if n < 6 {
                assert_eq!(g.st.seat(1).timeouts, n);
                assert!(!g.st.is_over());
            } else {
                assert!(matches!(ev.last(), Some(Event::HandOver { .. })));
                break;
            }
        }
    }
    assert_eq!(
        g.outcome(),
        &Outcome::Abandoned {
            leaver: 1,
            payments: coins([20, -60, 20, 20])
        }
    );
}

#[test]
fn leaving_ends_the_hand_with_the_leaver_penalty() {
    // qiaoma: 1 stake split three ways, in hundredths; the odd cent to the seat after.
    let mut g = Table::qiaoma().play();
    g.discard(0, &g.drawn().tile.to_string());
    let ev = g.act(2, Action::Leave);
    assert!(matches!(ev.last(), Some(Event::HandOver { .. })));
    assert_eq!(g.payments(), [Money(33), Money(33), Money(-100), Money(34)]);
    assert_eq!(g.refuse(1, Action::Pass), MoveError::HandOver);
    // During the flower replacement, by a seat not acting; 荒番 does not double it in qiaoma.
    let mut g = Table::qiaoma().huangfan(2).start();
    g.act(3, Action::Leave);
    assert_eq!(g.payments(), [Money(34), Money(33), Money(33), Money(-100)]);
    // baida: 60, 20 to each; doubled while 荒番 holds.
    let mut g = Table::baida().at(131, "9p").play();
    g.act(0, Action::Leave);
    assert_eq!(g.payments(), coins([-60, 20, 20, 20]));
    let mut g = Table::baida().at(131, "9p").huangfan(1).play();
    g.act(1, Action::Leave);
    assert_eq!(g.payments(), coins([40, -120, 40, 40]));
}

// ---------------------------------------------------------------------------------------
// §5, §6 Winning hands and scoring, through the engine
// ---------------------------------------------------------------------------------------

#[test]
fn qiaoma_self_draw_everyone_pays() {
    let g = ready_self_draw(Table::qiaoma());
    let (s, r) = g.won();
    assert_eq!(s.kind, WinKind::SelfDraw);
    assert_eq!(s.declared, [false, false, true, false]);
    let w = &r.winners[0];
    assert_eq!(
        (w.hand.as_str(), w.flowers, w.points, w.score),
        ("hunyise", 1, 3, 6)
    );
    assert_eq!(w.patterns, vec!["hunyise", "menqing"]);
    assert_eq!(g.payments(), coins([-6, -6, 18, -6]));
}

#[test]
fn qiaoma_discard_win_the_discarder_alone_pays() {
    let mut g = Table::qiaoma()
        .hand(1, "2m")
        .hand(2, WAITS_2M_5M)
        .live("9p 8p 7p 6p 1s")
        .play();
    g.turn_drawn(0);
    g.turn_drawn(1);
    g.discard_ready(2, "8p");
    g.pass_rest();
    g.turn_drawn(3);
    g.turn_drawn(0);
    g.discard(1, "2m");
    g.win(2);
    g.pass_rest();
    let (s, r) = g.won();
    assert_eq!((s.kind, s.from), (WinKind::Discard, Some(1)));
    assert_eq!(r.winners[0].score, 6);
    assert_eq!(g.payments(), coins([0, -6, 6, 0]));
}

#[test]
fn kaibao_and_huangfan_double_the_hand_and_its_cap() {
    for (dice, huangfan, score, with) in [
        ((2, 3), 0, 6, vec![]),
        ((1, 4), 0, 12, vec!["kaibao"]),
        ((3, 3), 0, 12, vec!["kaibao"]),
        ((2, 5), 1, 12, vec!["huangfan"]),
        ((6, 6), 2, 24, vec!["kaibao", "huangfan"]),
    ] {
        let g = ready_self_draw(Table::qiaoma().dice(dice.0, dice.1).huangfan(huangfan));
        let (_, r) = g.won();
        assert_eq!(r.winners[0].score as i64, score, "{dice:?} {huangfan}");
        for p in ["kaibao", "huangfan"] {
            assert_eq!(
                r.winners[0].patterns.contains(&p.to_string()),
                with.contains(&p),
                "{dice:?} {p}"
            );
        }
        assert_eq!(g.payments(), coins([-score, -score, 3 * score, -score]));
    }
}

#[test]
fn menqing_holds_with_a_concealed_kong() {
    // The dealer makes a concealed kong of east, declares ready and self-draws 5m.
    let mut g = Table::qiaoma()
        .hand(0, "34m678m999m1111z22z")
        .back("7p")
        .live("1p 2p 3p 5m")
        .play();
    g.act(0, g.concealed_kong_of(0, "1z"));
    g.discard_ready(0, "7p");
    g.pass_rest();
    for s in [1, 2, 3] {
        g.turn_drawn(s);
    }
    g.win(0);
    let (_, r) = g.won();
    // 混一色, P = 2 + 3 (concealed wind kong), 门清 ×2: S = 10.
    assert_eq!(r.winners[0].patterns, vec!["hunyise", "menqing"]);
    assert_eq!(g.payments(), coins([30, -10, -10, -10]));
}

/// 承包: seats 1 and 2 claim three times from each other (2 pungs 1's 5p, 1 pungs 2's 7s,
/// 2 pungs 1's 9p); seat 2 declares ready on 111z333s4s. Stops with seat 1 to discard.
fn binding_script() -> Game {
    let mut g = Table::qiaoma()
        .hand(0, "7z")
        .hand(1, "5p9p77s4s")
        .hand(2, "55p99p111z333s4s7s2m")
        .live("1p 2p 3p 6p 4s")
        .play();
    g.turn(0, "7z");
    g.discard(1, "5p");
    g.pung(2);
    g.pass_rest();
    g.discard(2, "7s");
    g.pung(1);
    g.pass_rest();
    g.discard(1, "9p");
    g.pung(2);
    g.pass_rest();
    assert_eq!(g.st.claims()[2][1] + g.st.claims()[1][2], 3);
    assert_eq!(bound_seats(g.st.claims(), 2), vec![1]);
    g.discard_ready(2, "2m");
    g.pass_rest();
    g.turn_drawn(3);
    g.turn_drawn(0);
    g
}

#[test]
fn binding_self_draw_the_bound_seat_pays_five() {
    let mut g = binding_script();
    g.turn_drawn(1);
    g.win(2);
    let (s, r) = g.won();
    assert_eq!(s.claims[2][1], 2);
    assert_eq!(s.claims[1][2], 1);
    // 碰碰胡, P = 2 + 1 (east pung) = 3, not 门清: S = 3; seat 1 pays 5 × 3.
    assert_eq!(r.winners[0].patterns, vec!["pengpenghu"]);
    assert_eq!(g.payments(), coins([-3, -15, 21, -3]));
}

#[test]
fn binding_the_bound_seats_discard_pays_two() {
    let mut g = binding_script();
    g.discard(1, "4s");
    g.win(2);
    g.pass_rest();
    assert_eq!(g.payments(), coins([0, -6, 6, 0]));
}

// ---------------------------------------------------------------------------------------
// §7 Across hands
// ---------------------------------------------------------------------------------------

/// Plays a hand of the session to a draw and records it.
fn record_drawn(session: &mut Session) {
    let setup = session.setup(0, Dice::new(2, 3).unwrap());
    let mut g = Table::from_setup(&setup).play();
    g.auto();
    assert_eq!(g.outcome(), &Outcome::Drawn);
    session.record(&setup, g.st.huangfan(), g.outcome());
}

#[test]
fn huangfan_counter_rises_with_drawn_hands_and_falls_with_wins() {
    let mut session = Session::new(
        Options::preset(Ruleset::Qiaoma),
        Money::coins(1),
        SessionLength::Open,
    );
    record_drawn(&mut session);
    assert_eq!(session.huangfan, 1);
    record_drawn(&mut session);
    assert_eq!(session.huangfan, 2);
    // A won hand while the counter is 2: doubled, and the counter drops by one.
    let setup = session.setup(0, Dice::new(2, 3).unwrap());
    let g = ready_self_draw(Table::from_setup(&setup));
    assert_eq!(g.st.huangfan(), 2);
    assert!(g.patterns(2).contains(&"huangfan".to_string()));
    assert_eq!(g.payments(), coins([-12, -12, 36, -12]));
    session.record(&setup, g.st.huangfan(), g.outcome());
    assert_eq!((session.huangfan, session.dealer), (1, Some(2)));
    // A player leaves mid-hand: the counter resets, the same dealer deals again.
    let setup = session.setup(0, Dice::new(2, 3).unwrap());
    let mut g = Table::from_setup(&setup).play();
    g.act(1, Action::Leave);
    session.record(&setup, g.st.huangfan(), g.outcome());
    assert_eq!((session.huangfan, session.dealer), (0, Some(2)));
    record_drawn(&mut session);
    assert_eq!(session.huangfan, 1);
    session.player_left();
    assert_eq!(session.huangfan, 0);
}

#[test]
fn baida_huangfan_counter_and_doubled_penalty() {
    let mut session = Session::new(
        Options::preset(Ruleset::Baida),
        Money::coins(1),
        SessionLength::Open,
    );
    record_drawn(&mut session);
    assert_eq!((session.huangfan, session.dealer), (1, None));
    let setup = session.setup(3, Dice::new(2, 3).unwrap());
    let mut g = Table::from_setup(&setup).play();
    g.act(0, Action::Leave);
    assert_eq!(g.payments(), coins([-120, 40, 40, 40]));
    session.record(&setup, g.st.huangfan(), g.outcome());
    assert_eq!(session.huangfan, 0);
}

#[test]
fn classic_dice_add_to_huangfan_and_a_drawn_hand_carries_it() {
    let mut session = Session::new(
        Options::preset(Ruleset::Classic),
        Money::coins(1),
        SessionLength::Open,
    );
    // A drawn hand adds nothing by itself in classic.
    record_drawn(&mut session);
    assert_eq!(session.huangfan, 0);
    // Dice 1 and 1 add 2, and this hand already counts them.
    let setup = session.setup(0, Dice::new(1, 1).unwrap());
    let mut g = Table::from_setup(&setup).play();
    assert_eq!((g.st.huangfan(), g.st.view(1).huangfan), (2, 2));
    g.auto();
    session.record(&setup, g.st.huangfan(), g.outcome());
    assert_eq!(session.huangfan, 2, "a drawn 荒番 hand carries its count");
    // 1 and 4 add one more.
    let setup = session.setup(0, Dice::new(1, 4).unwrap());
    let mut g = Table::from_setup(&setup).play();
    assert_eq!(g.st.huangfan(), 3);
    g.auto();
    session.record(&setup, g.st.huangfan(), g.outcome());
    assert_eq!(session.huangfan, 3);
    // A won 荒番 hand is doubled (混一色 3 × 2).
    let setup = session.setup(0, Dice::new(2, 3).unwrap());
    let g = ready_self_draw(Table::from_setup(&setup));
    assert!(g.patterns(2).contains(&"huangfan".to_string()));
    assert_eq!(g.payments(), coins([-6, -6, 18, -6]));
    session.record(&setup, g.st.huangfan(), g.outcome());
    assert_eq!(session.huangfan, 2);
}

// ---------------------------------------------------------------------------------------
// Views and purity
// ---------------------------------------------------------------------------------------

#[test]
fn views_hide_hands_the_wall_and_concealed_kong_faces() {
    // Two tables that differ only in what seats 1 and 2 may not see: the dealer's concealed
    // kong, seat 3's hand and the undrawn wall.
    let shared = |quad: &str, seat3: &str| {
        Table::qiaoma()
            .hand(0, &format!("{quad}234p567p234s5s"))
            .hand(1, "234m567m888m1z2z3z4z")
            .hand(2, "555z666z777z666s7s")
            .hand(3, seat3)
            .live("6s")
            .back("5s")
            .play()
    };
    let mut a = shared("1111m", "111s888s999s111z2z");
    let mut b = shared("9999p", "1s8s9s3z4z1p2p3p5m6m7m9m8p");
    let same = |a: &Game, b: &Game| {
        for s in [1, 2] {
            assert_eq!(
                a.st.view(s),
                b.st.view(s),
                "seat {s} must not tell the tables apart"
            );
        }
        for s in [0, 3] {
            assert_ne!(a.st.view(s), b.st.view(s));
        }
    };
    same(&a, &b);
    for (g, quad) in [(&mut a, "1m"), (&mut b, "9p")] {
        g.act(0, g.concealed_kong_of(0, quad));
    }
    same(&a, &b);
    let v = a.st.view(1);
    assert_eq!(
        v.seats[0].melds,
        vec![PublicMeld {
            kind: MeldType::ConcealedKong,
            tile: None,
            from: None
        }]
    );
    assert_eq!(a.st.view(0).seats[0].melds[0].tile, Some(t("1m")));
    assert_eq!(v.seats[0].hand_size, 11);
    assert_eq!(v.hand, a.st.hand_cards(1));
    assert_eq!((v.drawn, v.wall_remaining), (None, 90));
    assert!(v.legal.is_empty());
    for g in [&mut a, &mut b] {
        g.turn(0, "5s");
    }
    same(&a, &b);
    let v = a.st.view(2);
    assert_eq!(
        v.seats[0].discards[0].card,
        Card {
            pos: 143,
            tile: t("5s")
        }
    );
    assert_eq!(
        a.st.view(1).drawn,
        Some(Card {
            pos: 53,
            tile: t("6s")
        })
    );
    for g in [&mut a, &mut b] {
        g.discard(1, "6s");
        g.pung(2);
        g.pass_rest();
    }
    same(&a, &b);
    let v = a.st.view(3);
    assert_eq!(
        v.seats[2].melds,
        vec![PublicMeld {
            kind: MeldType::Pung,
            tile: Some(t("6s")),
            from: Some(1)
        }]
    );
    assert!(v.seats[1].discards[0].claimed);
    assert_eq!(v.claims[2][1], 1);
}

#[test]
fn step_is_pure_and_a_refused_move_changes_nothing() {
    let mut g = Table::classic()
        .hand(0, "5m")
        .hand(1, "46m")
        .hand(2, "55m")
        .play();
    let before = g.st.clone();
    let hash = g.st.state_hash();
    let mv = Move::new(0, g.discard_of(0, "5m", false));
    let (next, ev) = g.st.step(&mv).unwrap();
    assert_eq!(
        (g.st.state_hash(), &g.st),
        (hash, &before),
        "step leaves its input alone"
    );
    assert_ne!(next.state_hash(), hash);
    assert_eq!(next.move_count(), before.move_count() + 1);
    assert_eq!(
        g.st.step(&mv).unwrap(),
        (next.clone(), ev.clone()),
        "and is deterministic"
    );
    // Refusals of every kind, on a turn.
    let five = g.card(0, "5m");
    let not_held = g.st.hand_cards(1)[0];
    for a in [
        Action::Discard {
            card: not_held,
            ready: false,
        },
        Action::Discard {
            card: Card {
                pos: five.pos,
                tile: t("6m"),
            },
            ready: false,
        },
        Action::Pass,
        g.win_of(0),
        Action::Chow {
            cards: [five, five],
        },
    ] {
        assert!(matches!(g.refuse(0, a), MoveError::Illegal { .. }));
    }
    assert!(matches!(
        g.refuse(1, Action::Pass),
        MoveError::OutOfTurn { .. }
    ));
    g.mv(mv);
    // In the claim window, the last answer (which would resolve it) refused.
    g.pass(1);
    g.pass(3);
    assert!(matches!(
        g.refuse(2, g.chow_of(2, "55m")),
        MoveError::Illegal { .. }
    ));
    let wrong = g.cards(2, "5m");
    let other =
        g.st.hand_cards(2)
            .into_iter()
            .find(|c| c.tile != t("5m"))
            .unwrap();
    assert!(matches!(
        g.refuse(
            2,
            Action::Pung {
                cards: [wrong[0], other]
            }
        ),
        MoveError::Illegal { .. }
    ));
    assert!(matches!(
        g.refuse(2, g.win_of(2)),
        MoveError::Illegal { .. }
    ));
    g.pung(2);
    assert_eq!(g.turn_seat(), 2);
}

// ---- §7 换牌 (`swap_five`) ----

fn swap_table() -> Table {
    let mut t = Table::qiaoma();
    t.options.swap_five = true;
    t
}

/// The positions of these faces in the seat's hand, as a swap choice (sorted).
fn swap_of(g: &Game, seat: Seat, tiles: &str) -> Action {
    let mut put_back: [u8; 5] = g
        .cards(seat, tiles)
        .iter()
        .map(|c| c.pos)
        .collect::<Vec<_>>()
        .try_into()
        .unwrap();
    put_back.sort_unstable();
    Action::Swap { put_back }
}

#[test]
fn swap_five_comes_after_the_flowers_and_all_four_answer_at_once() {
    let mut g = swap_table().start();
    g.skip_flowers();
    assert_eq!(
        g.st.phase(),
        &Phase::Swap {
            answered: [false; 4],
            put_back: [None; 4]
        }
    );
    assert_eq!(g.to_act(), vec![0, 1, 2, 3]);
    // Timer expiry: the seat's own client passes for it.
    assert_eq!(g.st.default_action(2), Some(Action::Pass));
    g.mv(Move {
        seat: 2,
        action: Action::Pass,
        timed_out: true,
    });
    // Nothing public about a seat's choice but that it answered.
    let v = g.st.view(0);
    assert_eq!(
        v.phase,
        PublicPhase::Swap {
            answered: [false, false, true, false]
        }
    );
    let e = g.refuse(2, Action::Pass);
    assert!(matches!(e, MoveError::OutOfTurn { seat: 2, .. }), "{e}");
    g.pass(0);
    g.pass(1);
    let ev = g.pass(3);
    assert!(draws(&ev).is_empty(), "nobody swapped: no draw");
    // The dealer's first turn, its 14th tile as the draw, as without the option.
    assert_eq!(
        g.st.phase(),
        &Phase::Turn {
            seat: 0,
            drawn: Some(52),
            replacement: false
        }
    );
    assert_eq!(g.st.wall_remaining(), 91);
}

#[test]
fn swap_puts_five_back_face_down_and_draws_five_from_the_front() {
    let mut g = swap_table()
        .dealer(1)
        .hand(2, "1m2m3m4m5m")
        .hand(0, "9p9p9p9p1s")
        .live("1z1z1z2z2z 3z3z3z4z4z")
        .start();
    g.skip_flowers();
    let s2 = swap_of(&g, 2, "12345m");
    let s0 = swap_of(&g, 0, "9999p1s");
    let Action::Swap { put_back: p2 } = s2.clone() else {
        unreachable!()
    };
    g.act(0, s0);
    g.pass(1);
    g.act(2, s2);
    let ev = g.pass(3);
    // Seat 2 comes first in turn order from the dealer (1), then seat 0.
    let expect: Vec<(Seat, u8, bool)> = (53..58)
        .map(|p| (2, p, false))
        .chain((58..63).map(|p| (0, p, false)))
        .collect();
    assert_eq!(draws(&ev), expect);
    assert!(ev.contains(&Event::Swapped {
        seat: 2,
        put_back: p2
    }));
    assert_eq!(g.st.seat(2).buried, p2.to_vec());
    assert_eq!(g.st.seat(2).hand.len(), 13);
    assert!(g.st.seat(2).hand.iter().all(|p| !p2.contains(p)));
    let faces = |s: Seat| {
        let mut v: Vec<Tile> = g.st.hand_cards(s).iter().map(|c| c.tile).collect();
        v.sort();
        v
    };
    assert_eq!(
        faces(2)
            .iter()
            .filter(|&&x| x == t("1z") || x == t("2z"))
            .count(),
        5
    );
    assert_eq!(
        faces(0)
            .iter()
            .filter(|&&x| x == t("3z") || x == t("4z"))
            .count(),
        5
    );
    // Out of play: 91 - 10 tiles left to draw; the others see five buried, no faces.
    assert_eq!(g.st.wall_remaining(), 81);
    let v = g.st.view(3);
    assert_eq!(v.seats[2].buried, 5);
    assert_eq!(v.seats[0].buried, 5);
    assert_eq!(v.seats[2].hand_size, 13);
    assert!(v.hand.iter().all(|c| !p2.contains(&c.pos)));
    assert!(
        v.put_back.is_empty(),
        "another seat's put-back is not in the view"
    );
    // The swapper knows its own five: they count as seen, not live, for it.
    let own = g.st.view(2);
    let mut back: Vec<Tile> = own.put_back.iter().map(|c| c.tile).collect();
    back.sort();
    assert_eq!(back, parse_tiles("12345m").unwrap());
    assert_eq!(own.visible_counts()[t("1m").index()], 1);
    // The seats that swapped, in turn order from the dealer, say they hold no flower; then
    // the dealer's turn, its last tile received counting as its draw.
    assert_eq!(g.to_act(), vec![2]);
    g.pass(2);
    assert_eq!(g.to_act(), vec![0]);
    g.pass(0);
    assert_eq!(g.turn_seat(), 1);
    assert_eq!(g.drawn().pos, 52);
    // A buried tile is never played again.
    let e = g.refuse(
        1,
        Action::Discard {
            card: Card {
                pos: p2[0],
                tile: t("1m"),
            },
            ready: false,
        },
    );
    assert!(matches!(e, MoveError::Illegal { .. }), "{e}");
    g.auto();
    assert!(g.st.seat(2).buried.len() == 5 && g.st.seat(0).buried.len() == 5);
}

#[test]
fn flowers_drawn_in_the_swap_are_replaced_by_the_seats_that_swapped_only() {
    let mut g = swap_table()
        .dealer(0)
        .hand(3, "1m2m3m4m5m")
        .hand(1, "1p2p3p4p5p")
        .live("1f6z6z6z6z 7z7z2f7z7z")
        .back("1s2s")
        .start();
    g.skip_flowers();
    g.pass(0);
    g.act(3, swap_of(&g, 3, "12345m"));
    g.act(1, swap_of(&g, 1, "12345p"));
    g.pass(2);
    // Seat 1 (after the dealer) first, then seat 3; seats 0 and 2 are not asked again.
    assert_eq!(g.st.phase(), &Phase::Flowers { seat: 1, done: 0 });
    let e = g.refuse(1, Action::Pass);
    assert!(matches!(e, MoveError::Illegal { .. }), "flower first: {e}");
    let ev = g.act(
        1,
        Action::Flower {
            card: g.card(1, "1f"),
        },
    );
    assert_eq!(draws(&ev), vec![(1, 143, true)]);
    g.pass(1);
    assert_eq!(g.to_act(), vec![3]);
    g.act(
        3,
        Action::Flower {
            card: g.card(3, "2f"),
        },
    );
    g.pass(3);
    assert_eq!(g.turn_seat(), 0);
    assert_eq!(g.st.seat(1).flowers.len(), 1);
    assert_eq!(g.st.seat(3).flowers.len(), 1);
    assert_eq!(g.st.seat(1).hand.len(), 13);
    g.auto();
}

#[test]
fn dealer_whose_last_swap_tile_is_a_flower_starts_on_a_replacement_draw() {
    let mut g = swap_table()
        .hand(0, "1m2m3m4m5m")
        .live("6z6z6z6z3f")
        .back("9s")
        .start();
    g.skip_flowers();
    g.act(0, swap_of(&g, 0, "12345m"));
    g.pass_rest();
    g.act(
        0,
        Action::Flower {
            card: g.card(0, "3f"),
        },
    );
    g.pass(0);
    assert_eq!(
        g.st.phase(),
        &Phase::Turn {
            seat: 0,
            drawn: Some(143),
            replacement: true
        }
    );
}

#[test]
fn illegal_swaps_are_refused_and_name_the_reason() {
    let mut g = swap_table().hand(1, "1m2m3m4m5m").start();
    g.skip_flowers();
    let own: Vec<u8> = g.st.seat(1).hand.clone();
    let mut sorted = own.clone();
    sorted.sort_unstable();
    let five = |v: &[u8]| -> [u8; 5] { v[..5].try_into().unwrap() };
    // Not increasing, a repeated position, another seat's tile, an undrawn wall tile.
    let mut down = five(&sorted);
    down.reverse();
    let mut twice = five(&sorted);
    twice[1] = twice[0];
    let mut other = five(&sorted);
    other[4] = g.st.seat(2).hand[0].max(other[3] + 1);
    if !g.st.seat(2).hand.contains(&other[4]) {
        other[4] = *g.st.seat(2).hand.iter().max().unwrap();
    }
    other.sort_unstable();
    let mut wall = five(&sorted);
    wall[4] = 100;
    for (bad, why) in [
        (down, "increasing"),
        (twice, "increasing"),
        (other, "holds no tile"),
        (wall, "holds no tile at wall position 100"),
    ] {
        let e = g.refuse(1, Action::Swap { put_back: bad });
        assert!(e.to_string().contains(why), "{bad:?}: {e}");
    }
    // Anything else than Swap or Pass.
    let e = g.refuse(1, g.discard_of(1, "1m", false));
    assert!(e.to_string().contains("换牌"), "{e}");
    // The legal list: Pass and every choice of five (13 tiles: 1287; the dealer's 14: 2002).
    assert_eq!(g.legal(1).len(), 1 + 1287);
    assert_eq!(g.legal(0).len(), 1 + 2002);
    g.act(
        1,
        Action::Swap {
            put_back: five(&sorted),
        },
    );
    // A second answer is out of turn.
    let e = g.refuse(1, Action::Pass);
    assert!(matches!(e, MoveError::OutOfTurn { .. }), "{e}");
}

#[test]
fn swap_is_refused_without_the_option_and_outside_its_phase() {
    let mut g = Table::qiaoma().start();
    g.skip_flowers();
    assert_eq!(g.turn_seat(), 0);
    let mut put_back: [u8; 5] = g.st.seat(0).hand[..5].try_into().unwrap();
    put_back.sort_unstable();
    let e = g.refuse(0, Action::Swap { put_back });
    assert!(matches!(e, MoveError::Illegal { .. }), "{e}");
    let mut g = swap_table().start();
    let e = g.refuse(0, Action::Swap { put_back });
    assert!(
        matches!(e, MoveError::Illegal { .. }),
        "during the flowers: {e}"
    );
}

#[test]
fn swap_choice_by_tile_notation_gives_clear_errors() {
    let mut g = swap_table().hand(1, "1m1m2m3m4m5z").start();
    g.skip_flowers();
    let v = g.st.view(1);
    let a = v.swap_action("11m 23m 5z").unwrap();
    assert!(
        v.legal.contains(&a),
        "the choice is one of the legal actions"
    );
    let err = |s: &str| v.swap_action(s).unwrap_err().to_string();
    assert_eq!(err("123m"), "换牌 puts back exactly five tiles, got 3");
    assert_eq!(err("1111m22m"), "换牌 puts back exactly five tiles, got 6");
    assert_eq!(err("111m2m3m"), "换牌: you hold 2 of 1m, not 3");
    assert!(err("12x3m").contains("换牌"), "{}", err("12x3m"));
    assert!(err("0m1234m").contains("0m"), "{}", err("0m1234m"));
    g.act(1, a);
    let v = g.st.view(1);
    assert_eq!(err_of(&v, "11m23m5z"), SwapChoiceError::NotNow);
    // Another seat's view before it answered: fine; after all answered: not now.
    g.pass_rest();
    assert_eq!(err_of(&g.st.view(2), "11m23m5z"), SwapChoiceError::NotNow);
}

fn err_of(v: &SeatView, s: &str) -> SwapChoiceError {
    v.swap_action(s).unwrap_err()
}

#[test]
fn leaving_during_the_swap_abandons_the_hand() {
    let mut g = swap_table().start();
    g.skip_flowers();
    g.pass(0);
    let ev = g.act(2, Action::Leave);
    assert!(matches!(g.outcome(), Outcome::Abandoned { leaver: 2, .. }));
    assert!(matches!(ev.last(), Some(Event::HandOver { .. })));
}
