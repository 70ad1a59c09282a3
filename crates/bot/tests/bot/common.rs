//! Shared helpers: set-ups, crafted walls, playing a hand with bots.

use mahjong_bot::{Bot, Level};
use mahjong_rules::wall::{DEALT, deal_seat};
use mahjong_rules::{
    Dice, HandState, Money, Move, Options, Ruleset, Setup, Tile, Wall, parse_tiles,
};

/// A set-up with the given preset, dealer and dice.
pub fn setup(ruleset: Ruleset, dealer: u8, dice: (u8, u8)) -> Setup {
    Setup {
        options: Options::preset(ruleset),
        stake: Money::coins(1),
        dealer,
        dice: Dice::new(dice.0, dice.1).unwrap(),
        huangfan: 0,
    }
}

/// A wall that deals `hands[s]` to seat `s` (14 tiles to the dealer, 13 to the others, no
/// flowers), then gives `draws` as the next live draws in order; every other tile follows in
/// a fixed order, flowers in the middle of the rest.
pub fn crafted_wall(dealer: u8, hands: [&str; 4], draws: &str) -> Wall {
    let mut pool: Vec<Tile> = Wall::sorted().tiles().to_vec();
    let mut take = |t: Tile| {
        let i = pool
            .iter()
            .position(|&x| x == t)
            .unwrap_or_else(|| panic!("no {t} left"));
        pool.remove(i);
        t
    };
    let mut seat_tiles: Vec<Vec<Tile>> = hands
        .iter()
        .map(|h| parse_tiles(h).unwrap().into_iter().map(&mut take).collect())
        .collect();
    for (s, h) in seat_tiles.iter().enumerate() {
        assert_eq!(h.len(), if s as u8 == dealer { 14 } else { 13 }, "seat {s}");
    }
    let draws: Vec<Tile> = parse_tiles(draws)
        .unwrap()
        .into_iter()
        .map(&mut take)
        .collect();
    let mut tiles = vec![Tile::EAST; 144];
    let mut next = [0usize; 4];
    for (pos, slot) in tiles.iter_mut().enumerate().take(DEALT) {
        let s = deal_seat(dealer, pos) as usize;
        *slot = seat_tiles[s][next[s]];
        next[s] += 1;
    }
    for h in &mut seat_tiles {
        h.clear();
    }
    let (flowers, mut rest): (Vec<Tile>, Vec<Tile>) = pool.into_iter().partition(|t| t.is_flower());
    let mid = rest.len() / 2;
    rest.splice(mid..mid, flowers);
    for (slot, t) in tiles
        .iter_mut()
        .skip(DEALT)
        .zip(draws.into_iter().chain(rest))
    {
        *slot = t;
    }
    Wall::new(tiles).unwrap()
}

/// Plays the flower phase (each seat's only action) until the dealer's first turn.
pub fn through_flowers(st: &mut HandState) {
    while matches!(st.phase(), mahjong_rules::Phase::Flowers { .. }) {
        let seat = st.to_act()[0];
        let a = st.legal_actions(seat)[0].clone();
        st.apply(&Move::new(seat, a)).unwrap();
    }
}

/// The card of `tile` in `seat`'s hand.
pub fn card(st: &HandState, seat: u8, tile: &str) -> mahjong_rules::Card {
    let t: Tile = tile.parse().unwrap();
    st.hand_cards(seat)
        .into_iter()
        .find(|c| c.tile == t)
        .unwrap_or_else(|| panic!("seat {seat} holds no {tile}"))
}

/// A random-play state: `moves` moves of bots of the given levels from a shuffled wall.
pub fn play_to(ruleset: Ruleset, seed: u64, levels: [Level; 4], moves: usize) -> HandState {
    let mut wall_seed = [0u8; 32];
    wall_seed[..8].copy_from_slice(&seed.to_le_bytes());
    let dice = (1 + (seed % 6) as u8, 1 + (seed / 6 % 6) as u8);
    let mut st = HandState::new(
        setup(ruleset, (seed % 4) as u8, dice),
        &Wall::shuffled(wall_seed),
    )
    .unwrap();
    let mut bots: Vec<Bot> = levels
        .iter()
        .enumerate()
        .map(|(i, &l)| Bot::new(l, seed ^ i as u64))
        .collect();
    let mut n = 0;
    while !st.is_over() && n < moves {
        let seat = st.to_act()[0];
        let d = bots[seat as usize].decide(&st.view(seat));
        st.apply(&Move::new(seat, d.action)).unwrap();
        n += 1;
    }
    st
}
