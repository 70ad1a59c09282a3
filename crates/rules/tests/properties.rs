//! Property tests over thousands of random legal games per preset: every tile accounted for
//! at every step, payments summing to zero, every game ending, replays giving the same state
//! hash, serde round-trips of every state, the legal-action enumeration agreeing with the
//! step function, and four partial-knowledge engines (one per seat, as peers run them)
//! accepting the same moves and agreeing on everything public.
#![allow(clippy::unwrap_used, missing_docs)]

use mahjong_rules::*;
use proptest::prelude::*;
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

/// The inputs of one random game: randomness for the wall, dice, dealer and the moves.
#[derive(Clone, Debug)]
struct Game {
    preset: Ruleset,
    seed: u64,
    /// With 换牌 (`swap_five`).
    swap: bool,
}

fn setup_for(game: &Game, rng: &mut ChaCha8Rng) -> (Setup, Wall) {
    let mut options = Options::preset(game.preset);
    options.swap_five = game.swap;
    let mut wall_seed = [0u8; 32];
    rng.fill_bytes(&mut wall_seed);
    let d = rng.next_u32();
    let setup = Setup {
        options,
        stake: Money::coins(1 + (d % 3) as i64),
        dealer: (d >> 8) as u8 % 4,
        dice: Dice::new(1 + ((d >> 16) % 6) as u8, 1 + ((d >> 24) % 6) as u8).unwrap(),
        huangfan: (d >> 4) % 3,
    };
    (setup, Wall::shuffled(wall_seed))
}

/// A random but not hopeless player: takes wins, often declares ready, otherwise uniform.
fn choose(legal: &[Action], rng: &mut ChaCha8Rng) -> Action {
    if let Some(w) = legal.iter().find(|a| matches!(a, Action::Win { .. }))
        && !rng.next_u32().is_multiple_of(10)
    {
        return w.clone();
    }
    if rng.next_u32().is_multiple_of(2)
        && let Some(r) = legal
            .iter()
            .find(|a| matches!(a, Action::Discard { ready: true, .. }))
    {
        return r.clone();
    }
    legal[rng.next_u32() as usize % legal.len()].clone()
}

/// Plays one game, checking invariants at every step. Returns the final state hash and the
/// moves played.
fn play(game: &Game, deep: bool) -> (u64, Vec<Move>, HandState) {
    let mut rng = ChaCha8Rng::seed_from_u64(game.seed);
    let (setup, wall) = setup_for(game, &mut rng);
    let mut st = HandState::new(setup.clone(), &wall).unwrap();
    let indicator = st.indicator().map(|p| wall.get(p as usize).unwrap());
    // One partial-knowledge engine per seat, as the peers run them.
    let mut peers: Vec<HandState> = (0..4)
        .map(|_| HandState::new_hidden(setup.clone(), indicator).unwrap())
        .collect();
    let reveal_own = |peers: &mut Vec<HandState>, st: &HandState| {
        for (s, p) in peers.iter_mut().enumerate() {
            for &pos in &st.seat(s as u8).hand {
                p.learn(pos, wall.get(pos as usize).unwrap()).unwrap();
            }
        }
    };
    reveal_own(&mut peers, &st);
    let mut moves = Vec::new();
    let mut steps = 0;
    while !st.is_over() {
        st.check_conservation().unwrap();
        let waiting = st.to_act();
        assert!(!waiting.is_empty());
        for p in &peers {
            assert_eq!(p.to_act(), waiting, "peers agree on who acts");
        }
        let seat = waiting[rng.next_u32() as usize % waiting.len()];
        let legal = st.legal_actions(seat);
        assert!(
            !legal.is_empty(),
            "a seat that must act has a legal action: {:?}",
            st.phase()
        );
        // Seats not waiting have nothing to do.
        for other in 0..4u8 {
            if !waiting.contains(&other) {
                assert!(st.legal_actions(other).is_empty());
                let e = st
                    .clone()
                    .apply(&Move::new(other, Action::Pass))
                    .unwrap_err();
                assert!(matches!(e, MoveError::OutOfTurn { .. }), "{e}");
            }
        }
        // The peer of the acting seat enumerates exactly what the full engine does.
        assert_eq!(
            peers[seat as usize].legal_actions(seat),
            legal,
            "own engine sees the same legal set"
        );
        if deep {
            // Every enumerated action is accepted.
            for a in &legal {
                let (next, _) = st
                    .step(&Move::new(seat, a.clone()))
                    .unwrap_or_else(|e| panic!("{a:?} refused: {e}"));
                next.check_conservation().unwrap();
            }
            // Bogus actions are refused without changing anything: a card not in the wall,
            // a flower not held, and a held tile that is no flower set aside as one.
            let before = st.state_hash();
            let nowhere = Card {
                pos: 200,
                tile: tile!("1m"),
            };
            let mut bogus = vec![
                Action::Discard {
                    card: nowhere,
                    ready: false,
                },
                Action::Flower {
                    card: Card {
                        pos: 201,
                        tile: tile!("1f"),
                    },
                },
            ];
            if let Some(&c) = st
                .hand_cards(seat)
                .iter()
                .find(|c| !st.options().is_flower(c.tile))
            {
                bogus.push(Action::Flower { card: c });
            }
            for b in bogus {
                let mut probe = st.clone();
                assert!(probe.apply(&Move::new(seat, b.clone())).is_err(), "{b:?}");
                assert_eq!(probe.state_hash(), before, "{b:?} changed the state");
                assert!(probe == st, "{b:?} changed the state");
            }
            // The view hides other hands, and never sees more copies of a tile than exist.
            let v = st.view(seat);
            assert_eq!(v.hand.len(), st.seat(seat).hand.len());
            for s in 0..4 {
                let seen = st.view(s).visible_counts();
                for t in Tile::all() {
                    assert!(
                        seen[t.index()] <= t.copies(),
                        "{t} seen {} times",
                        seen[t.index()]
                    );
                }
            }
            assert!(v.legal == legal);
            // What the table plays for a person without asking is legal, and leaves the
            // player every real choice.
            let ready = v.seats[seat as usize].ready;
            if ready && legal.iter().all(|a| matches!(a, Action::Discard { .. })) {
                // After 敲 the drawn tile goes.
                let drawn = v.drawn.map(|c| c.tile);
                assert!(
                    matches!(v.auto_action(), Some(Action::Discard { card, .. })
                        if drawn.is_none() || Some(card.tile) == drawn),
                    "after 敲: {:?} for {legal:?}",
                    v.auto_action()
                );
            }
            if let Some(a) = v.auto_action() {
                assert!(legal.contains(&a), "{a:?} is not legal: {legal:?}");
                assert!(
                    !matches!(a, Action::Win { .. } | Action::Swap { .. }),
                    "{a:?} played for the player"
                );
                assert!(
                    ready || legal.len() == 1 || matches!(a, Action::Flower { .. }),
                    "{a:?} chosen among {legal:?} before 敲"
                );
            } else {
                let flower = legal.iter().any(|a| matches!(a, Action::Flower { .. }));
                let swap = matches!(v.phase, PublicPhase::Swap { .. });
                assert!(
                    !flower || swap,
                    "a flower to set aside was left to the player"
                );
            }
            // Serde round trips.
            let bytes = postcard::to_allocvec(&st).unwrap();
            let back: HandState = postcard::from_bytes(&bytes).unwrap();
            assert_eq!(back, st);
            let json = serde_json::to_string(&st).unwrap();
            let back: HandState = serde_json::from_str(&json).unwrap();
            assert_eq!(back, st);
        }
        let action = choose(&legal, &mut rng);
        let mv = Move::new(seat, action);
        st.apply(&mv).unwrap();
        for p in peers.iter_mut() {
            p.apply(&mv)
                .unwrap_or_else(|e| panic!("a peer refused {mv:?}: {e}"));
        }
        reveal_own(&mut peers, &st);
        moves.push(mv);
        steps += 1;
        assert!(steps < 1500, "the game ends");
    }
    st.check_conservation().unwrap();
    let outcome = st.outcome().unwrap();
    assert_eq!(
        outcome.payments().iter().map(|m| m.0).sum::<i64>(),
        0,
        "payments sum to zero"
    );
    for p in &peers {
        assert_eq!(
            p.outcome(),
            Some(outcome),
            "every peer reaches the same outcome"
        );
    }
    (st.state_hash(), moves, st)
}

fn replay(game: &Game, moves: &[Move]) -> u64 {
    let mut rng = ChaCha8Rng::seed_from_u64(game.seed);
    let (setup, wall) = setup_for(game, &mut rng);
    let mut st = HandState::new(setup, &wall).unwrap();
    for m in moves {
        st.apply(m).unwrap();
    }
    st.state_hash()
}

fn games(preset: Ruleset) -> impl Strategy<Value = Game> {
    any::<u64>().prop_map(move |seed| Game {
        preset,
        seed,
        swap: false,
    })
}

fn swap_games() -> impl Strategy<Value = Game> {
    (any::<u64>(), 0..3usize).prop_map(|(seed, p)| Game {
        preset: Ruleset::ALL[p],
        seed,
        swap: true,
    })
}

fn check(game: Game, deep: bool) {
    let (hash, moves, end) = play(&game, deep);
    assert_eq!(
        replay(&game, &moves),
        hash,
        "replaying the same inputs gives the same state"
    );
    if let Some(Outcome::Win { settlement, result }) = end.outcome() {
        // The settlement file written from the hand scores the same.
        let file = mahjong_rules::settlement::settlement_json(settlement);
        let again = score_json(&file.to_string()).unwrap();
        assert_eq!(again.payments, result.payments);
        // The explanation of the hand explains what was paid: its shares add up to the
        // payments, and each winner's S and flower items are the scored ones.
        let e = mahjong_rules::explain(settlement).unwrap();
        assert_eq!(e.payments, result.payments);
        assert_eq!(again.explain, e);
        let mut sums = [0i64; 4];
        for sh in &e.shares {
            sums[sh.payer as usize] -= sh.amount.0;
            sums[sh.payee as usize] += sh.amount.0;
        }
        assert_eq!(sums, result.payments.map(|m| m.0));
        for (w, r) in e.winners.iter().zip(&result.winners) {
            assert_eq!((w.score, w.flowers), (r.score, r.flowers));
            assert_eq!(
                w.flower_items.iter().map(|i| i.flowers).sum::<u32>(),
                r.flowers
            );
        }
    } else if let Some(Outcome::Abandoned { leaver, payments }) = end.outcome() {
        let e = mahjong_rules::scoring::explain_leaver(
            end.options(),
            end.setup().stake,
            *leaver,
            end.huangfan(),
        );
        assert_eq!(&e.payments, payments);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn qiaoma_games(g in games(Ruleset::Qiaoma)) { check(g, false) }

    #[test]
    fn classic_games(g in games(Ruleset::Classic)) { check(g, false) }

    #[test]
    fn baida_games(g in games(Ruleset::Baida)) { check(g, false) }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, failure_persistence: None, ..ProptestConfig::default() })]

    /// 换牌: the same invariants with the swap phase (the random player swaps in most games:
    /// it picks uniformly among Pass and every choice of five).
    #[test]
    fn swap_five_games(g in swap_games()) { check(g, false) }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn deep_checks_with_swap_five(g in swap_games()) { check(g, true) }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 150, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn deep_checks_every_step(g in prop_oneof![games(Ruleset::Qiaoma), games(Ruleset::Classic), games(Ruleset::Baida)]) {
        check(g, true)
    }
}

/// Wins do happen under each preset with this player (so the checks above see them).
#[test]
fn random_players_do_win_sometimes() {
    for preset in Ruleset::ALL {
        let wins = (0..400u64)
            .filter(|&seed| {
                let (_, _, st) = play(
                    &Game {
                        preset,
                        seed,
                        swap: false,
                    },
                    false,
                );
                matches!(st.outcome(), Some(Outcome::Win { .. }))
            })
            .count();
        assert!(wins > 4, "{preset}: {wins} wins in 400 games");
    }
}
