//! Hints are true: a reason comes from the decision it explains.

use crate::common::setup;
use mahjong_bot::{Bot, Defence, Guessed, Level, Progress, Reason};
use mahjong_rules::{Action, HandState, Move, Ruleset, Wall};

/// Strong bots play whole `qiaoma` hands; every discard whose reason says "playing safe"
/// against a likely flush must not be a tile of that flush's suit, and no reason may count
/// 99 tiles from ready (the analysis' "cannot win" distance).
#[test]
fn playing_safe_never_discards_into_the_suit_it_warns_about() {
    let mut safe = 0;
    let mut wrong = Vec::new();
    for seed in 0..40u64 {
        let mut wall_seed = [0u8; 32];
        wall_seed[..8].copy_from_slice(&seed.to_le_bytes());
        let mut st = HandState::new(
            setup(Ruleset::Qiaoma, (seed % 4) as u8, (3, 5)),
            &Wall::shuffled(wall_seed),
        )
        .unwrap();
        let mut bots: Vec<Bot> = (0..4)
            .map(|i| Bot::new(Level::Strong, seed * 4 + i))
            .collect();
        while !st.is_over() {
            let seat = st.to_act()[0];
            let d = bots[seat as usize].decide(&st.view(seat));
            assert!(!d.reason.to_string().contains("99"), "{}", d.reason);
            if let (
                Action::Discard { card, .. },
                Reason::Discard {
                    defence: Some(Defence::Safe { threat, .. }),
                    ..
                },
            ) = (&d.action, &d.reason)
            {
                safe += 1;
                let t = card.tile;
                if let Some(Guessed::Flush(s)) = threat.hand
                    && t.is_suited()
                    && t.index() / 9 == s as usize
                {
                    wrong.push(d.reason.to_string());
                }
            }
            st.apply(&Move::new(seat, d.action)).unwrap();
        }
    }
    assert!(safe > 0, "some safe play happened");
    assert!(wrong.is_empty(), "{} of {safe}: {wrong:#?}", wrong.len());
}

/// Random players chow and pung freely, so their hands often can no longer win; the strong
/// bot's hint on such a hand says so instead of counting tiles from ready.
#[test]
fn a_hand_that_cannot_win_is_called_so() {
    use mahjong_rules::hand::{self, MeldShape};
    let mut seen = 0;
    for seed in 0..30u64 {
        let mut wall_seed = [0u8; 32];
        wall_seed[..8].copy_from_slice(&seed.to_le_bytes());
        let mut st = HandState::new(
            setup(Ruleset::Qiaoma, (seed % 4) as u8, (2, 5)),
            &Wall::shuffled(wall_seed),
        )
        .unwrap();
        let mut players: Vec<Bot> = (0..4).map(|i| Bot::new(Level::Random, seed + i)).collect();
        let mut hint = Bot::new(Level::Strong, seed);
        while !st.is_over() {
            let seat = st.to_act()[0];
            let view = st.view(seat);
            let melds: Vec<MeldShape> = view.seats[seat as usize]
                .melds
                .iter()
                .filter_map(|m| m.tile.map(|tile| MeldShape { kind: m.kind, tile }))
                .collect();
            // (A single legal discard is explained as the only one.)
            let discarding = view.legal.len() > 1
                && view
                    .legal
                    .iter()
                    .any(|a| matches!(a, Action::Discard { .. }));
            if discarding && !hand::can_still_win(&view.options, &melds) {
                let d = hint.decide(&view);
                if matches!(d.action, Action::Discard { .. }) {
                    assert!(
                        matches!(
                            &d.reason,
                            Reason::Discard { plan, .. } if plan.progress == Progress::CannotWin
                        ),
                        "{} {:?}",
                        d.reason,
                        view.legal
                    );
                    seen += 1;
                }
            }
            let d = players[seat as usize].decide(&view);
            st.apply(&Move::new(seat, d.action)).unwrap();
        }
    }
    assert!(seen > 0, "some random hand could no longer win");
}
