//! The practice table as a player meets it, the bots thinking no time (so that only the app's
//! own work is measured; at a real table the bots take 0.35–0.9 s each on purpose):
//!
//! - `discard_to_next_prompt`: from the player's discard to the player's next prompt (three
//!   bots answer and play, the table clients sign and check every step, the deal's reveals);
//! - `journal_replay_40`: a practice table killed after 40 of the player's commands played back
//!   from its journal (what the player waits for when the app comes back).
//!
//! `cargo bench -p shanghai-mahjong --bench table`.

// criterion's macros make undocumented functions.
#![allow(missing_docs)]

use std::time::Duration;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use mahjong_rules::{Action, Ruleset, SessionLength};
use shanghai_mahjong::engine::{Command, Engine, PracticeConfig, Update};

fn config(seed: u64) -> PracticeConfig {
    PracticeConfig {
        think_ms: (0, 0),
        length: SessionLength::Hands(1),
        ..PracticeConfig::new(Ruleset::Qiaoma, seed)
    }
}

/// The player's first discard prompt of a fresh table: the engine and the discard to play.
fn at_a_discard(seed: u64) -> Option<(Engine, Action)> {
    let (mut engine, _) = Engine::new(&config(seed)).ok()?;
    for _ in 0..200 {
        let now = engine.now();
        let _ = engine.settle(now + 60_000);
        if engine.is_paused() {
            return None;
        }
        let view = engine.player().view()?;
        if let Some(a) = view
            .legal
            .iter()
            .find(|a| matches!(a, Action::Discard { ready: false, .. }))
        {
            return Some((engine, a.clone()));
        }
        let first = view.legal.first().cloned()?;
        let _ = engine.command(Command::Act(first));
    }
    None
}

/// Plays the discard and runs the table until the player must act again (or the hand ends).
fn discard_to_prompt((mut engine, discard): (Engine, Action)) -> usize {
    let mut ups: Vec<Update> = engine.command(Command::Act(discard));
    let now = engine.now();
    ups.extend(engine.settle(now + 600_000));
    ups.len()
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("practice");
    g.sample_size(20).measurement_time(Duration::from_secs(20));
    let mut seed = 100;
    g.bench_function("discard_to_next_prompt", |b| {
        b.iter_batched(
            || loop {
                seed += 1;
                if let Some(x) = at_a_discard(seed) {
                    break x;
                }
            },
            discard_to_prompt,
            BatchSize::PerIteration,
        )
    });
    // A table saved in a store, 40 of the player's moves in; then its resumption from the
    // store (every seat restored from its journal), as a restarted app does.
    let dir = std::env::temp_dir().join(format!("mahjong-bench-resume-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    let store = mahjong_store::Store::open(&dir).expect("store");
    let (mut engine, _) = Engine::saved(&config(7), Box::new(store), "Mei").expect("engine");
    let mut moves = 0;
    while moves < 40 {
        let now = engine.now();
        let _ = engine.settle(now + 60_000);
        if engine.is_paused() {
            break;
        }
        let Some(view) = engine.player().view() else {
            break;
        };
        let Some(a) = view.legal.first().cloned() else {
            break;
        };
        let _ = engine.command(Command::Act(a));
        moves += 1;
    }
    drop(engine);
    g.bench_function("resume_from_store_40", |b| {
        b.iter(|| {
            let store = mahjong_store::Store::open(&dir).expect("store");
            Engine::resume(Box::new(store))
                .expect("resumed")
                .expect("a table")
                .hands
        })
    });
    g.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, bench);
criterion_main!(benches);
