//! 换牌 (`swap_five`): the bots put back their five weakest tiles when far from ready, keep a
//! hand near ready, and always answer with a legal action.

use crate::common::*;
use mahjong_bot::{Bot, Level};
use mahjong_rules::view::PublicPhase;
use mahjong_rules::{Action, HandState, Move, Ruleset, Tile, Wall};

fn swap_state(hands: [&str; 4]) -> HandState {
    let mut s = setup(Ruleset::Qiaoma, 0, (2, 3));
    s.options.swap_five = true;
    let mut st = HandState::new(s, &crafted_wall(0, hands, "")).unwrap();
    through_flowers(&mut st);
    assert!(matches!(st.view(0).phase, PublicPhase::Swap { .. }));
    st
}

fn put_back(st: &HandState, a: &Action) -> Vec<Tile> {
    let Action::Swap { put_back } = a else {
        panic!("not a swap: {a:?}")
    };
    let mut v: Vec<Tile> = put_back.iter().map(|&p| st.face(p).unwrap()).collect();
    v.sort();
    v
}

const HANDS: [&str; 4] = [
    "1m4m7m 2p5p8p 3s6s9s 1z2z3z 5z 6z",
    "111222333p 456p 7p",
    "1m 4p 7s 2z 3z 59m 369p 258s",
    "123456789s 11z 22z",
];

#[test]
fn strong_and_basic_put_back_the_weakest_of_a_far_hand() {
    let st = swap_state(HANDS);
    for level in [Level::Strong, Level::Basic] {
        let v = st.view(2);
        let d = Bot::new(level, 7).decide(&v);
        assert!(v.legal.contains(&d.action), "{level}: {:?}", d.action);
        let back = put_back(&st, &d.action);
        assert_eq!(back.len(), 5);
        assert!(
            matches!(&d.reason, mahjong_bot::Reason::SwapPutBack { tiles, .. } if tiles.len() == 5),
            "{}",
            d.reason
        );
        // Five of its own tiles go back; eight stay.
        let kept: Vec<Tile> = v
            .hand
            .iter()
            .map(|c| c.tile)
            .filter(|t| !back.contains(t))
            .collect();
        assert_eq!(kept.len(), 8, "{level}");
    }
}

#[test]
fn a_hand_near_ready_is_kept() {
    let st = swap_state(HANDS);
    for level in [Level::Strong, Level::Basic] {
        // Seat 1: 清一色 in dots, ready; seat 3: 清一色 bamboo with honors, close.
        for seat in [1, 3] {
            let d = Bot::new(level, 1).decide(&st.view(seat));
            assert_eq!(d.action, Action::Pass, "{level} seat {seat}: {}", d.reason);
        }
    }
}

#[test]
fn bots_play_whole_hands_with_swap_five() {
    for seed in 0..12u64 {
        let mut s = setup(Ruleset::ALL[seed as usize % 3], (seed % 4) as u8, (3, 4));
        s.options.swap_five = true;
        let mut wall_seed = [0u8; 32];
        wall_seed[..8].copy_from_slice(&seed.to_le_bytes());
        let mut st = HandState::new(s, &Wall::shuffled(wall_seed)).unwrap();
        let levels = [Level::Strong, Level::Basic, Level::Random, Level::Strong];
        let mut bots: Vec<Bot> = (0..4)
            .map(|i| Bot::new(levels[i], seed + i as u64))
            .collect();
        let mut n = 0;
        let mut swapped = 0;
        while !st.is_over() {
            let seat = st.to_act()[0];
            let v = st.view(seat);
            let d = bots[seat as usize].decide(&v);
            assert!(v.legal.contains(&d.action), "{:?}", d.action);
            if matches!(d.action, Action::Swap { .. }) {
                swapped += 1;
            }
            st.apply(&Move::new(seat, d.action)).unwrap();
            st.check_conservation().unwrap();
            n += 1;
            assert!(n < 1500);
        }
        let buried: usize = (0..4).map(|s| st.seat(s).buried.len()).sum();
        assert_eq!(buried, 5 * swapped);
    }
}
