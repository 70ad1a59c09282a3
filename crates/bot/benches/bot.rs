//! Time of one bot decision: a strong discard decision in the middle of a `qiaoma` hand (warm:
//! the bot has played before and remembers its suit analyses; cold: a new bot), a strong
//! claim decision, the master's discard decision (strong with a look-ahead), and a
//! basic discard decision.

#![allow(clippy::unwrap_used, missing_docs)]

use criterion::{Criterion, black_box, criterion_group, criterion_main};
use mahjong_bot::{Bot, Level};
use mahjong_rules::view::{PublicPhase, SeatView};
use mahjong_rules::{Action, Dice, HandState, Money, Move, Options, Ruleset, Setup, Wall};

/// Plays strong bots from a fixed wall until `pick` accepts a view; returns it.
fn find_view(ruleset: Ruleset, pick: impl Fn(&SeatView) -> bool) -> SeatView {
    for seed in 0..200u8 {
        let setup = Setup {
            options: Options::preset(ruleset),
            stake: Money::coins(1),
            dealer: 0,
            dice: Dice::new(2, 5).unwrap(),
            huangfan: 0,
        };
        let mut st = HandState::new(setup, &Wall::shuffled([seed; 32])).unwrap();
        let mut bots: Vec<Bot> = (0..4).map(|s| Bot::new(Level::Strong, s)).collect();
        while !st.is_over() {
            for seat in st.to_act() {
                let v = st.view(seat);
                if pick(&v) {
                    return v;
                }
                let d = bots[seat as usize].decide(&v);
                st.apply(&Move::new(seat, d.action)).unwrap();
                if st.is_over() {
                    break;
                }
            }
        }
    }
    panic!("no such view");
}

fn discards(v: &SeatView) -> usize {
    v.legal
        .iter()
        .filter(|a| matches!(a, Action::Discard { .. }))
        .count()
}

fn bench(c: &mut Criterion) {
    let turn = find_view(Ruleset::Qiaoma, |v| {
        matches!(v.phase, PublicPhase::Turn { .. })
            && v.wall_remaining < 70
            && discards(v) >= 12
            && !v.seats.iter().any(|s| s.ready)
    });
    let claim = find_view(Ruleset::Qiaoma, |v| {
        matches!(v.phase, PublicPhase::Claims { .. })
            && v.legal.iter().any(|a| matches!(a, Action::Chow { .. }))
    });
    let baida = find_view(Ruleset::Baida, |v| {
        matches!(v.phase, PublicPhase::Turn { .. }) && v.wall_remaining < 70 && discards(v) >= 11
    });
    let mut warm = Bot::new(Level::Strong, 1);
    warm.decide(&turn);
    c.bench_function("strong discard decision (qiaoma, warm)", |b| {
        b.iter(|| warm.decide(black_box(&turn)))
    });
    c.bench_function("strong discard decision (qiaoma, new bot)", |b| {
        b.iter(|| Bot::new(Level::Strong, 1).decide(black_box(&turn)))
    });
    c.bench_function("strong claim decision (qiaoma, warm)", |b| {
        b.iter(|| warm.decide(black_box(&claim)))
    });
    let mut wb = Bot::new(Level::Strong, 1);
    wb.decide(&baida);
    c.bench_function("strong discard decision (baida, warm)", |b| {
        b.iter(|| wb.decide(black_box(&baida)))
    });
    let mut master = Bot::new(Level::Master, 1);
    master.decide(&turn);
    c.bench_function("master discard decision (qiaoma, warm)", |b| {
        b.iter(|| master.decide(black_box(&turn)))
    });
    let mut basic = Bot::new(Level::Basic, 1);
    c.bench_function("basic discard decision (qiaoma)", |b| {
        b.iter(|| basic.decide(black_box(&turn)))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
