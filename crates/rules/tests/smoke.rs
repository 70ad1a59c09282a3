#![allow(clippy::unwrap_used, missing_docs)]
use mahjong_rules::*;
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

#[test]
fn random_games_run() {
    for preset in Ruleset::ALL {
        let mut ends = std::collections::BTreeMap::new();
        for g in 0..300u64 {
            let mut rng = ChaCha8Rng::seed_from_u64(g);
            let mut seed = [0u8; 32];
            rng.fill_bytes(&mut seed);
            let setup = Setup {
                options: Options::preset(preset),
                stake: Money::coins(1),
                dealer: (g % 4) as u8,
                dice: Dice::new(1 + (g % 6) as u8, 1 + (g / 6 % 6) as u8).unwrap(),
                huangfan: 0,
            };
            let mut st = HandState::new(setup, &Wall::shuffled(seed)).unwrap();
            let mut n = 0;
            while !st.is_over() {
                st.check_conservation().unwrap();
                let seat = st.to_act()[0];
                let legal = st.legal_actions(seat);
                assert!(!legal.is_empty(), "{:?}", st.phase());
                // prefer wins to see them
                let a = legal
                    .iter()
                    .find(|a| matches!(a, Action::Win { .. }))
                    .cloned()
                    .unwrap_or_else(|| legal[(rng.next_u32() as usize) % legal.len()].clone());
                st.apply(&Move::new(seat, a.clone()))
                    .unwrap_or_else(|e| panic!("{e} {a:?}"));
                n += 1;
                assert!(n < 2000);
            }
            st.check_conservation().unwrap();
            let o = st.outcome().unwrap();
            assert_eq!(o.payments().iter().map(|m| m.0).sum::<i64>(), 0);
            let k = match o {
                Outcome::Win { settlement, result } => {
                    format!("{:?} {}", settlement.kind, result.winners[0].hand)
                }
                Outcome::Drawn => "drawn".into(),
                Outcome::Abandoned { .. } => "left".into(),
            };
            *ends.entry(k).or_insert(0) += 1;
        }
        eprintln!("{preset}: {ends:?}");
    }
}
