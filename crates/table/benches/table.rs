//! A full hand of four in-memory seats, bot-driven, over a perfect 5 ms network: CPU per
//! hand (criterion), and messages, bytes and CPU per seat per hand (printed once), with the
//! claim windows (each a commitment step and an opening step) and what the commitments add.
//!
//! `cargo bench -p mahjong-table --bench table`
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used, dead_code)]

use criterion::{Criterion, criterion_group, criterion_main};
use mahjong_rules::{Ruleset, SessionLength};

#[path = "../tests/table/sim.rs"]
mod sim;

use sim::{Net, Sim, options};

fn one_hand(seed: u64, ruleset: Ruleset) -> Sim {
    let mut sim = Sim::new(seed, Net::FAST, options(ruleset), SessionLength::Hands(1));
    sim.run(3_600_000);
    assert!((0..4).all(|s| sim.client(s).is_over()));
    sim
}

fn figures() {
    let hands = 12u64;
    for ruleset in [Ruleset::Qiaoma, Ruleset::Classic, Ruleset::Baida] {
        let (mut frames, mut bytes, mut reply, mut cpu, mut steps) = (0u64, 0u64, 0u64, 0f64, 0u64);
        let (mut windows, mut commits, mut commit_bytes) = (0u64, 0u64, 0u64);
        for seed in 0..hands {
            let sim = one_hand(1000 + seed, ruleset);
            for s in 0..4 {
                let st = sim.client(s).stats();
                frames += st.broadcast_frames + st.reply_frames;
                bytes += st.broadcast_bytes + st.reply_bytes;
                reply += st.reply_bytes;
                cpu += sim.cpu[s].as_secs_f64();
            }
            steps += sim.client(0).log().len() as u64;
            for r in sim.client(0).log() {
                if matches!(r.entries[0].body, mahjong_table::Body::ClaimCommit { .. }) {
                    windows += 1;
                    commits += r.entries.len() as u64;
                    commit_bytes += r
                        .entries
                        .iter()
                        .map(|e| e.encode().len() as u64)
                        .sum::<u64>();
                }
            }
        }
        let per = (hands * 4) as f64;
        eprintln!(
            "{ruleset}: per seat per hand (set-up included): {:.0} frames sent, {:.1} KB sent \
             ({:.1} KB of it answers), {:.0} ms CPU; {:.0} log steps per hand",
            frames as f64 / per,
            bytes as f64 / per / 1000.0,
            reply as f64 / per / 1000.0,
            cpu / per * 1000.0,
            steps as f64 / hands as f64,
        );
        eprintln!(
            "{ruleset}: {:.1} claim windows per hand; the commitments add {:.1} frames of {:.0} B \
             per window (one more step: one more network delay per discard)",
            windows as f64 / hands as f64,
            commits as f64 / windows.max(1) as f64,
            commit_bytes as f64 / commits.max(1) as f64,
        );
    }
}

fn bench(c: &mut Criterion) {
    figures();
    let mut g = c.benchmark_group("table");
    g.sample_size(10);
    let mut seed = 0;
    g.bench_function("full hand, four seats (qiaoma)", |b| {
        b.iter(|| {
            seed += 1;
            one_hand(seed, Ruleset::Qiaoma)
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
