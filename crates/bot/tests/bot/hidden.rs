//! A bot reads only its seat's view. Its API takes a `SeatView` and nothing else; here two
//! hands that differ only in tiles the deciding seat cannot see (other seats' concealed tiles
//! and the order of the wall) give the same view and the same decision at every level.

use crate::common::setup;
use mahjong_bot::{Bot, Level};
use mahjong_rules::wall::fisher_yates;
use mahjong_rules::{HandState, Move, Ruleset, Tile, Wall};
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;

/// Plays `n` moves with mixed bots; returns the state and the moves.
fn play(ruleset: Ruleset, seed: u64, n: usize) -> (HandState, Vec<Move>, mahjong_rules::Setup) {
    let s = setup(ruleset, (seed % 4) as u8, (2, 3));
    let mut wall_seed = [0u8; 32];
    wall_seed[..8].copy_from_slice(&seed.to_le_bytes());
    let mut st = HandState::new(s.clone(), &Wall::shuffled(wall_seed)).unwrap();
    let mut bots: Vec<Bot> = [Level::Strong, Level::Basic, Level::Random, Level::Strong]
        .iter()
        .map(|&l| Bot::new(l, seed))
        .collect();
    let mut moves = Vec::new();
    while !st.is_over() && moves.len() < n {
        let seat = st.to_act()[0];
        let d = bots[seat as usize].decide(&st.view(seat));
        let mv = Move::new(seat, d.action);
        st.apply(&mv).unwrap();
        moves.push(mv);
    }
    (st, moves, s)
}

/// The same hand with the tiles `seat` cannot see shuffled among themselves.
fn reshuffle_hidden(st: &HandState, seat: u8, seed: u64) -> Option<Wall> {
    let opts = st.options();
    let mut hidden: Vec<u8> = Vec::new();
    for o in (0..4).filter(|&o| o != seat) {
        hidden.extend(&st.seat(o).hand);
    }
    let front = st.next_live();
    hidden.extend(front..front + st.wall_remaining());
    hidden.retain(|&p| Some(p) != st.indicator() && st.face(p).is_some_and(|t| !opts.is_flower(t)));
    let mut faces: Vec<Tile> = hidden.iter().map(|&p| st.face(p).unwrap()).collect();
    let before = faces.clone();
    fisher_yates(&mut faces, &mut ChaCha8Rng::seed_from_u64(seed));
    if faces == before {
        return None;
    }
    let mut tiles: Vec<Tile> = (0..144u8).map(|p| st.face(p).unwrap()).collect();
    for (&p, &t) in hidden.iter().zip(&faces) {
        tiles[p as usize] = t;
    }
    Some(Wall::new(tiles).unwrap())
}

#[test]
fn hidden_tiles_do_not_change_decisions() {
    let mut compared = 0;
    for ruleset in Ruleset::ALL {
        for seed in 0..40u64 {
            let (st, moves, s) = play(ruleset, seed, 20 + (seed as usize * 7) % 120);
            if st.is_over() {
                continue;
            }
            let seat = st.to_act()[0];
            let Some(wall) = reshuffle_hidden(&st, seat, seed) else {
                continue;
            };
            // Replay the same moves on the other wall; a move may have become illegal (a
            // ready declaration checked against another seat's changed hand): skip those.
            let mut other = HandState::new(s, &wall).unwrap();
            if moves.iter().any(|m| other.apply(m).is_err()) {
                continue;
            }
            assert_ne!(
                st.state_hash(),
                other.state_hash(),
                "the hidden tiles differ"
            );
            let (a, b) = (st.view(seat), other.view(seat));
            assert_eq!(a, b, "{ruleset} seed {seed}: the seat sees the same");
            for level in Level::ALL {
                let da = Bot::new(level, 7).decide(&a);
                let db = Bot::new(level, 7).decide(&b);
                assert_eq!(da, db, "{ruleset} seed {seed} {level}");
            }
            compared += 1;
        }
    }
    assert!(compared >= 60, "only {compared} comparisons");
}
