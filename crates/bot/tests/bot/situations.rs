//! Named situations where the right move is clear.

use crate::common::{card, crafted_wall, play_to, setup, through_flowers};
use mahjong_bot::{Bot, Level};
use mahjong_rules::hand;
use mahjong_rules::view::PublicPhase;
use mahjong_rules::{Action, HandState, Move, Ruleset, Tile};

fn discard(st: &mut HandState, seat: u8, tile: &str, ready: bool) {
    let c = card(st, seat, tile);
    st.apply(&Move::new(seat, Action::Discard { card: c, ready }))
        .unwrap();
}

fn pass_all(st: &mut HandState) {
    for s in st.to_act() {
        st.apply(&Move::new(s, Action::Pass)).unwrap();
    }
}

/// `qiaoma`: the dealer holds 1112345678999p and 1z. Discarding 1z with a ready
/// declaration leaves the nine gates of dots, waiting on every dot: declare.
#[test]
fn declares_ready_on_a_live_flush_wait() {
    let wall = crafted_wall(
        0,
        [
            "1112345678999p1z",
            "1123456789m123s",
            "1123456789s567z",
            "234567m2345678s",
        ],
        "",
    );
    let mut st = HandState::new(setup(Ruleset::Qiaoma, 0, (2, 5)), &wall).unwrap();
    through_flowers(&mut st);
    assert_eq!(st.to_act(), vec![0]);
    for seed in 0..4 {
        let d = Bot::new(Level::Strong, seed).decide(&st.view(0));
        match &d.action {
            Action::Discard { card, ready } => {
                assert_eq!(card.tile, "1z".parse::<Tile>().unwrap(), "{}", d.reason);
                assert!(ready, "must declare ready: {}", d.reason);
            }
            a => panic!("expected a ready discard, got {a:?}"),
        }
        assert!(
            matches!(
                &d.reason,
                mahjong_bot::Reason::Discard { ready: true, plan, .. }
                    if matches!(plan.progress, mahjong_bot::Progress::Ready(_))
            ),
            "{}",
            d.reason
        );
    }
    // The basic level declares too.
    let d = Bot::new(Level::Basic, 0).decide(&st.view(0));
    assert!(
        matches!(d.action, Action::Discard { ready: true, .. }),
        "{d:?}"
    );
}

/// `qiaoma`: seat 1 pungs 2p and declares ready on 55p 88p 123p 456p (a 清一色 in dots
/// waiting on 5p and 8p). Seat 0 holds a lone 5p, which its own hand does not need, and
/// bamboo it does not need either: it must not give seat 1 the 5p.
#[test]
fn does_not_feed_a_ready_flush() {
    let wall = crafted_wall(
        0,
        [
            "2p5p123m456m11s59s77z",
            "22p55p88p123p456p1z",
            "123789m123789s1z",
            "456789m234567s2z",
        ],
        "3z4z9m",
    );
    let mut st = HandState::new(setup(Ruleset::Qiaoma, 0, (2, 5)), &wall).unwrap();
    through_flowers(&mut st);
    discard(&mut st, 0, "2p", false);
    let two = card(&st, 1, "2p");
    let pung = st
        .legal_actions(1)
        .into_iter()
        .find(|a| matches!(a, Action::Pung { cards } if cards.contains(&two) || cards[0].tile == two.tile))
        .unwrap();
    st.apply(&Move::new(1, pung)).unwrap();
    pass_all(&mut st);
    discard(&mut st, 1, "1z", true);
    pass_all(&mut st);
    discard(&mut st, 2, "3z", false);
    pass_all(&mut st);
    discard(&mut st, 3, "4z", false);
    pass_all(&mut st);
    assert_eq!(st.to_act(), vec![0]);
    let waits = hand::waits(
        st.options(),
        &st.hand_counts(1).unwrap(),
        &st.meld_shapes(1),
        None,
    );
    let five: Tile = "5p".parse().unwrap();
    assert!(waits & (1 << five.index()) != 0, "seat 1 waits on 5p");
    let view = st.view(0);
    assert!(view.seats[1].ready);
    for seed in 0..4 {
        let d = Bot::new(Level::Strong, seed).decide(&view);
        let Action::Discard { card, .. } = &d.action else {
            panic!("{d:?}")
        };
        assert!(
            waits & (1 << card.tile.index()) == 0,
            "discarded {} into a ready flush: {}",
            card.tile,
            d.reason
        );
        assert!(
            !card.tile.is_suited() || card.tile.index() / 9 != 1,
            "a dot is dangerous: {}",
            d.reason
        );
        assert!(
            matches!(
                &d.reason,
                mahjong_bot::Reason::Discard {
                    defence: Some(mahjong_bot::Defence::Safe { .. }),
                    ..
                }
            ),
            "{}",
            d.reason
        );
    }
}

/// `baida`: a wildcard is never discarded while another tile can go.
#[test]
fn never_discards_a_wildcard() {
    let mut seen = 0;
    for seed in 0..40u64 {
        let mut st = play_to(Ruleset::Baida, seed, [Level::Random; 4], 0);
        let mut bots: Vec<Bot> = [Level::Strong, Level::Basic, Level::Strong, Level::Basic]
            .iter()
            .map(|&l| Bot::new(l, seed))
            .collect();
        let w = st.wildcard().unwrap();
        while !st.is_over() {
            let seat = st.to_act()[0];
            let view = st.view(seat);
            let d = bots[seat as usize].decide(&view);
            let holds = view.hand.iter().any(|c| c.tile == w);
            let other = view
                .legal
                .iter()
                .any(|a| matches!(a, Action::Discard { card, .. } if card.tile != w));
            if holds && other && matches!(view.phase, PublicPhase::Turn { .. }) {
                seen += 1;
                assert!(
                    !matches!(&d.action, Action::Discard { card, .. } if card.tile == w),
                    "seed {seed}: {}",
                    d.reason
                );
            }
            st.apply(&Move::new(seat, d.action)).unwrap();
        }
    }
    assert!(seen > 100, "only {seen} decisions with a wildcard in hand");
}

/// A win offered is a win taken (self-draw, on a discard, robbing a kong), at both levels.
#[test]
fn takes_a_win_when_offered() {
    let mut offered = 0;
    for ruleset in Ruleset::ALL {
        for seed in 0..40u64 {
            let mut st = play_to(ruleset, seed, [Level::Random; 4], 0);
            let mut bots: Vec<Bot> = (0..4)
                .map(|s| {
                    Bot::new(
                        if s % 2 == 0 {
                            Level::Strong
                        } else {
                            Level::Basic
                        },
                        seed,
                    )
                })
                .collect();
            while !st.is_over() {
                for seat in st.to_act() {
                    let view = st.view(seat);
                    let d = bots[seat as usize].decide(&view);
                    if view.legal.iter().any(|a| matches!(a, Action::Win { .. })) {
                        offered += 1;
                        for level in [Level::Strong, Level::Basic] {
                            let d = Bot::new(level, 3).decide(&view);
                            assert!(matches!(d.action, Action::Win { .. }), "{level}: {d:?}");
                        }
                    }
                    st.apply(&Move::new(seat, d.action)).unwrap();
                    if st.is_over() {
                        break;
                    }
                }
            }
        }
    }
    assert!(offered > 50, "only {offered} wins offered");
}

/// Master's chance model ([`mahjong_bot::master::WAIT`]) is less hopeful than strong's about
/// a hand still short of ready, the more so the further it is, and the same about a ready one
/// (its waits are counted tile by tile).
#[test]
fn masters_chance_model_is_less_hopeful_about_far_hands() {
    use mahjong_bot::master;
    use mahjong_bot::seen::Seen;
    use mahjong_bot::shape::{Acceptance, Target};
    use mahjong_bot::value::{Tune, chance_in};
    let st = play_to(Ruleset::Classic, 3, [Level::Strong; 4], 12);
    let view = st.view(0);
    let seen = Seen::new(&view);
    let strong = Tune::STRONG.model(Ruleset::Classic);
    let ours = master::tune(Ruleset::Classic).model(Ruleset::Classic);
    let acc = |dist| Acceptance {
        dist,
        all: 12,
        pung: 2,
        chow: 4,
    };
    let ready = |m| chance_in(m, &seen, Target::Standard, &acc(0));
    assert_eq!(ready(&strong), ready(&ours));
    let ratio = |dist| {
        chance_in(&ours, &seen, Target::Standard, &acc(dist))
            / chance_in(&strong, &seen, Target::Standard, &acc(dist))
    };
    assert!(ratio(1) < 1.0, "one from ready: {}", ratio(1));
    assert!(
        ratio(3) < ratio(1),
        "three from ready: {} against {}",
        ratio(3),
        ratio(1)
    );
    assert_eq!(
        master::tune(Ruleset::Baida).model(Ruleset::Baida).wait,
        Tune::STRONG.model(Ruleset::Baida).wait
    );
}

/// `baida` (150 hands; 40 in each other preset): master passes up a self-drawn win only to
/// play on for a bigger one, and says so;
/// after keeping a wildcard alone (跑百搭) its hand wins on any tile, and its next draw is a
/// win. Along the way, [`mahjong_bot::value::runs`] agrees with the rules' own waits on every
/// hand of 13 a discard leaves. Elsewhere master takes every win.
#[test]
fn master_plays_on_for_a_win_on_any_tile() {
    use mahjong_bot::seen::Seen;
    use mahjong_bot::{PlayOnBy, Reason, value};
    let (mut declined, mut runs, mut next_wins, mut replacements) = (0, 0, 0, 0);
    for ruleset in Ruleset::ALL {
        let hands = if ruleset == Ruleset::Baida { 150 } else { 40 };
        for seed in 0..hands {
            let mut st = play_to(ruleset, seed, [Level::Random; 4], 0);
            let mut bots: Vec<Bot> = (0..4)
                .map(|s| {
                    let level = if s % 2 == 0 {
                        Level::Master
                    } else {
                        Level::Strong
                    };
                    Bot::new(level, seed)
                })
                .collect();
            // A seat that kept a wildcard alone, and its melds then.
            let mut running: Option<(u8, usize)> = None;
            while !st.is_over() {
                let seat = st.to_act()[0];
                let view = st.view(seat);
                let d = bots[seat as usize].decide(&view);
                let seen = Seen::new(&view);
                let wildcard = view.wildcard;
                let every_kind: u64 = (0..34)
                    .filter(|&i| Tile::from_index(i).is_some_and(|t| !view.options.is_flower(t)))
                    .fold(0, |m, i| m | 1 << i);
                // Every kind, but those the hand holds all four of (no fifth can come).
                let any_tile = |c: &mahjong_rules::Counts| {
                    let mut held = *c;
                    for m in &seen.melds {
                        hand::add_meld(&mut held, m);
                    }
                    (0..34)
                        .filter(|&i| held[i] == 4)
                        .fold(every_kind, |m, i| m & !(1 << i))
                };
                if matches!(view.phase, PublicPhase::Turn { .. }) && ruleset == Ruleset::Baida {
                    for i in (0..34).filter(|&i| seen.counts[i] > 0) {
                        let mut c = seen.counts;
                        c[i] -= 1;
                        let any = hand::waits(&view.options, &c, &seen.melds, wildcard);
                        assert_eq!(value::runs(&seen, &c), any == any_tile(&c), "{c:?}");
                        runs += usize::from(any == any_tile(&c));
                    }
                }
                // The seat's own view tells a replacement draw as the rules know it.
                if let mahjong_rules::Phase::Turn { replacement, .. } = st.phase() {
                    assert_eq!(
                        seen.drawn_is_replacement(),
                        *replacement && view.drawn.is_some(),
                        "seed {seed}: {:?}",
                        view.drawn
                    );
                    replacements += usize::from(*replacement);
                }
                let win = view.legal.iter().any(|a| matches!(a, Action::Win { .. }));
                if let Some((s, melds)) = running
                    && s == seat
                    && view.drawn.is_some_and(|c| !view.options.is_flower(c.tile))
                    && seen.melds.len() == melds
                {
                    assert!(win, "seed {seed}: a hand that wins on any tile drew no win");
                    next_wins += 1;
                    running = None;
                }
                if win && !matches!(d.action, Action::Win { .. }) {
                    declined += 1;
                    assert_eq!(ruleset, Ruleset::Baida, "{}", d.reason);
                    let Reason::PlayOn {
                        tile,
                        by,
                        now,
                        then,
                    } = d.reason
                    else {
                        panic!("a win passed up for {}", d.reason);
                    };
                    assert!(then > now, "{}", d.reason);
                    match by {
                        PlayOnBy::RunWild => {
                            let mut c = seen.counts;
                            c[tile.index()] -= 1;
                            let any = hand::waits(&view.options, &c, &seen.melds, wildcard);
                            assert_eq!(any, any_tile(&c), "{}", d.reason);
                            running = Some((seat, seen.melds.len()));
                        }
                        PlayOnBy::Kong { .. } => {
                            assert!(matches!(
                                d.action,
                                Action::ConcealedKong { .. } | Action::AddedKong { .. }
                            ));
                            running = Some((seat, seen.melds.len() + 1));
                        }
                        PlayOnBy::Bigger => {}
                    }
                }
                st.apply(&Move::new(seat, d.action)).unwrap();
            }
        }
    }
    assert!(declined >= 5, "only {declined} wins passed up");
    assert!(replacements >= 100, "only {replacements} replacement draws");
    assert!(
        next_wins >= 3,
        "only {next_wins} next draws after playing on"
    );
    assert!(runs >= 20, "only {runs} hands that win on any tile");
}
