//! Criterion benchmarks of the rules engine: the standard win check, waits, scoring, and a
//! complete in-process hand played by random legal moves.
#![allow(clippy::unwrap_used, missing_docs)]

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use mahjong_rules::*;
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use std::hint::black_box;

/// 14-tile hands: half built as four sets and a pair, half near misses (one tile changed).
fn hands(n: usize) -> Vec<Counts> {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let mut c = [0u8; 34];
        let mut ok = true;
        for _ in 0..4 {
            let r = rng.next_u32() as usize;
            if r.is_multiple_of(3) {
                let t = r / 3 % 34;
                c[t] += 3;
            } else {
                let suit = r / 3 % 3;
                let start = suit * 9 + (r / 9) % 7;
                for k in 0..3 {
                    c[start + k] += 1;
                }
            }
        }
        let p = rng.next_u32() as usize % 34;
        c[p] += 2;
        if out.len() % 2 == 1 {
            let from = (0..34).find(|&i| c[i] > 0).unwrap();
            c[from] -= 1;
            c[rng.next_u32() as usize % 34] += 1;
        }
        if c.iter().any(|&x| x > 4) {
            ok = false;
        }
        if ok {
            out.push(c);
        }
    }
    out
}

fn win_check(c: &mut Criterion) {
    let hs = hands(10_000);
    shape::warm_up();
    let mut g = c.benchmark_group("win_check");
    g.throughput(Throughput::Elements(hs.len() as u64));
    g.bench_function("standard_10k_hands", |b| {
        b.iter(|| {
            hs.iter()
                .filter(|h| shape::is_standard(black_box(h)))
                .count()
        })
    });
    let q = Options::preset(Ruleset::Qiaoma);
    g.bench_function("qiaoma_is_winning_10k_hands", |b| {
        b.iter(|| {
            hs.iter()
                .filter(|h| hand::is_winning(&q, black_box(h), &[], None))
                .count()
        })
    });
    let bd = Options::preset(Ruleset::Baida);
    let wild = Some(tile!("5p"));
    g.bench_function("baida_wildcards_10k_hands", |b| {
        b.iter(|| {
            hs.iter()
                .filter(|h| hand::is_winning(&bd, black_box(h), &[], wild))
                .count()
        })
    });
    g.finish();
}

fn waits(c: &mut Criterion) {
    let mut hs = hands(10_000);
    for h in hs.iter_mut() {
        let i = h.iter().position(|&n| n > 0).unwrap();
        h[i] -= 1;
    }
    let q = Options::preset(Ruleset::Qiaoma);
    let mut g = c.benchmark_group("waits");
    g.throughput(Throughput::Elements(hs.len() as u64));
    g.bench_function("standard_waits_10k", |b| {
        b.iter(|| {
            hs.iter()
                .map(|h| shape::standard_waits(black_box(h)).count_ones())
                .sum::<u32>()
        })
    });
    g.bench_function("qiaoma_waits_10k", |b| {
        b.iter(|| {
            hs.iter()
                .map(|h| hand::waits(&q, black_box(h), &[], None).count_ones())
                .sum::<u32>()
        })
    });
    g.finish();
}

fn scoring(c: &mut Criterion) {
    let files: Vec<Settlement> = (1..=3)
        .map(|i| {
            let p = format!(
                "{}/../../tests/settlements/settlement-{i}.json",
                env!("CARGO_MANIFEST_DIR")
            );
            let text =
                std::fs::read_to_string(&p).expect("the worked examples in tests/settlements");
            parse_settlement(&text).unwrap()
        })
        .collect();
    c.bench_function("score_settlement", |b| {
        b.iter(|| {
            files
                .iter()
                .map(|s| score(black_box(s)).unwrap().payments[0].0)
                .sum::<i64>()
        })
    });
}

/// One complete hand by uniformly random legal moves (every seat answers every discard).
fn random_hand(preset: Ruleset, seed: u64) -> u32 {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut ws = [0u8; 32];
    rng.fill_bytes(&mut ws);
    let setup = Setup {
        options: Options::preset(preset),
        stake: Money::coins(1),
        dealer: (seed % 4) as u8,
        dice: Dice::new(1 + (seed % 6) as u8, 1 + (seed / 6 % 6) as u8).unwrap(),
        huangfan: 0,
    };
    let mut st = HandState::new(setup, &Wall::shuffled(ws)).unwrap();
    while !st.is_over() {
        let seat = st.to_act()[0];
        let legal = st.legal_actions(seat);
        let a = legal[rng.next_u32() as usize % legal.len()].clone();
        st.apply(&Move::new(seat, a)).unwrap();
    }
    st.move_count()
}

fn full_hand(c: &mut Criterion) {
    let mut g = c.benchmark_group("random_hand");
    for preset in Ruleset::ALL {
        let mut seed = 0u64;
        g.bench_function(preset.name(), |b| {
            b.iter_batched(
                || {
                    seed += 1;
                    seed
                },
                |s| random_hand(preset, s),
                BatchSize::SmallInput,
            )
        });
    }
    g.finish();
}

criterion_group!(benches, win_check, waits, scoring, full_hand);
criterion_main!(benches);
