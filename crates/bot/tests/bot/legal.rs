//! Every decision is one of the view's legal actions and the rules accept it, at every level
//! and in every preset, over states reached by random (and mixed) play.

use crate::common::setup;
use mahjong_bot::{Bot, Level};
use mahjong_rules::{Action, HandState, Move, Ruleset, Wall};
use proptest::prelude::*;

fn check_hand(ruleset: Ruleset, seed: u64, levels: [Level; 4]) -> Result<(), TestCaseError> {
    let mut wall_seed = [0u8; 32];
    wall_seed[..8].copy_from_slice(&seed.to_le_bytes());
    let dice = (1 + (seed % 6) as u8, 1 + (seed / 7 % 6) as u8);
    let mut st = HandState::new(
        setup(ruleset, (seed % 4) as u8, dice),
        &Wall::shuffled(wall_seed),
    )
    .unwrap();
    let mut players: Vec<Bot> = levels
        .iter()
        .enumerate()
        .map(|(i, &l)| Bot::new(l, seed.wrapping_add(i as u64)))
        .collect();
    // Side bots of every level answer every view too; their choice is checked and dropped.
    let mut side: Vec<Bot> = Level::ALL
        .iter()
        .map(|&l| Bot::new(l, seed ^ 0x5eed))
        .collect();
    let mut moves = 0;
    while !st.is_over() {
        for seat in st.to_act() {
            let view = st.view(seat);
            prop_assert!(!view.legal.is_empty());
            for bot in side.iter_mut() {
                let d = bot.decide(&view);
                prop_assert!(
                    view.legal.contains(&d.action),
                    "{} chose {:?}, not in {:?}",
                    bot.level(),
                    d.action,
                    view.legal
                );
                prop_assert!(!d.reason.to_string().is_empty());
                prop_assert!(st.step(&Move::new(seat, d.action.clone())).is_ok());
            }
            let d = players[seat as usize].decide(&view);
            prop_assert!(view.legal.contains(&d.action));
            st.apply(&Move::new(seat, d.action))
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            moves += 1;
            prop_assert!(moves < 3000);
            if st.is_over() {
                break;
            }
        }
    }
    prop_assert_eq!(
        st.outcome()
            .unwrap()
            .payments()
            .iter()
            .map(|m| m.0)
            .sum::<i64>(),
        0
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 36, ..ProptestConfig::default() })]

    #[test]
    fn bots_choose_only_legal_actions(seed in any::<u64>(), preset in 0usize..3, levels in proptest::array::uniform4(0usize..Level::ALL.len())) {
        check_hand(Ruleset::ALL[preset], seed, levels.map(|i| Level::ALL[i]))?;
    }
}

#[test]
fn every_preset_and_level_plays_whole_hands() {
    for ruleset in Ruleset::ALL {
        for level in Level::ALL {
            for seed in 0..3 {
                check_hand(ruleset, seed, [level; 4]).unwrap();
            }
        }
    }
}

/// The same seed and the same views give the same decisions (and reasons).
#[test]
fn decisions_are_deterministic() {
    for ruleset in Ruleset::ALL {
        let run = || {
            let mut st =
                HandState::new(setup(ruleset, 1, (3, 4)), &Wall::shuffled([9; 32])).unwrap();
            let mut bots: Vec<Bot> = [Level::Strong, Level::Basic, Level::Random, Level::Strong]
                .iter()
                .map(|&l| Bot::new(l, 42))
                .collect();
            let mut log = Vec::new();
            while !st.is_over() {
                let seat = st.to_act()[0];
                let d = bots[seat as usize].decide(&st.view(seat));
                log.push((seat, d.action.clone(), d.reason));
                st.apply(&Move::new(seat, d.action)).unwrap();
            }
            (log, st.state_hash())
        };
        assert_eq!(run(), run(), "{ruleset}");
    }
}

/// A view with nothing to do gets a `Pass` and says so.
#[test]
fn nothing_to_do() {
    let st = HandState::new(setup(Ruleset::Qiaoma, 0, (3, 4)), &Wall::shuffled([1; 32])).unwrap();
    let waiting = (0..4).find(|s| !st.to_act().contains(s)).unwrap();
    let d = Bot::new(Level::Strong, 0).decide(&st.view(waiting));
    assert_eq!(d.action, Action::Pass);
    assert_eq!(d.reason, mahjong_bot::Reason::NothingToDecide);
}
