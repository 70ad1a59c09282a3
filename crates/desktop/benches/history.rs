//! How long the history of 1,000 hands takes to open: reading the ledger from the store
//! (`records::load`: every row decoded, its signatures checked to make the result final,
//! running totals and balances), and that plus the screen built and laid out once (what the
//! player waits for after clicking History).
//!
//! The store: one real practice table of 4 hands played by the engine (four table clients,
//! three bots), then 125 more tables (124 of 8 hands, one of 4) whose results are those real
//! results, each booked through `Store::book` with four `Settle` envelopes signed for it (126
//! tables, 4 + 996 = 1,000 hands). `cargo bench -p shanghai-mahjong --bench history`.

// criterion's macros make undocumented functions.
#![allow(missing_docs)]

use std::path::{Path, PathBuf};

use criterion::{Criterion, criterion_group, criterion_main};
use ed25519_dalek::SigningKey;
use mahjong_rules::{Ruleset, Seat, SessionLength};
use mahjong_store::{LocalSeat, Store, TableInfo};
use mahjong_table::codec::Header;
use mahjong_table::{Body, Config, Envelope, HandResult, Next};
use shanghai_mahjong::engine::{Command, PracticeConfig, Update};
use shanghai_mahjong::i18n::Lang;
use shanghai_mahjong::records;
use shanghai_mahjong::screens::history;
use shanghai_mahjong::session::{RecordTo, TableKey};

/// Plays `hands` practice hands into the store in `dir`.
fn play(dir: &Path, hands: u32) {
    let key = TableKey {
        resume: false,
        autoplay: false,
        config: PracticeConfig {
            think_ms: (0, 0),
            length: SessionLength::Hands(hands),
            ..PracticeConfig::new(Ruleset::Qiaoma, 3)
        },
        generation: 1,
        record: Some(RecordTo {
            dir: dir.to_path_buf(),
            name: "Mei".into(),
        }),
    };
    let (mut engine, _) = shanghai_mahjong::session::start_table(&key).expect("engine");
    let (mut ended, mut hint) = (0, None);
    let mut updates = engine.settle(u64::MAX / 4);
    for _ in 0..100_000 {
        for u in updates.drain(..) {
            match u {
                Update::Hint { action, .. } => hint = Some(action),
                Update::HandEnded(_) => ended += 1,
                _ => {}
            }
        }
        if engine.is_paused() {
            if ended == hands {
                return;
            }
            updates = engine.command(Command::Next);
        } else if engine.player_must_act() {
            updates = engine.command(Command::Act(hint.take().expect("hint")));
        } else {
            updates = engine.settle(u64::MAX / 4);
        }
    }
    panic!("the practice hands did not end");
}

/// Books 996 more hands (124 tables of 8, one of 4) with the real results, re-signed for
/// each table.
fn fill(dir: &Path) {
    let store = Store::open(dir).expect("store");
    let real: Vec<HandResult> = store
        .ledger()
        .expect("ledger")
        .into_iter()
        .map(|r| r.result)
        .collect();
    let keys: Vec<SigningKey> = (0..4u8)
        .map(|i| SigningKey::from_bytes(&[i + 9; 32]))
        .collect();
    let roster = [0, 1, 2, 3].map(|i| keys[i].verifying_key());
    for t in 0..125u32 {
        let hands = if t < 124 { 8 } else { 4 };
        let mut table = [0u8; 32];
        table[..4].copy_from_slice(&t.to_le_bytes());
        table[31] = 0xbe;
        let seats = (0..4u8)
            .map(|seat| LocalSeat {
                config: Config {
                    table,
                    seat,
                    roster,
                    host: 0,
                },
                root: [seat; 32],
                bot_key: Some(keys[seat as usize].clone()),
            })
            .collect();
        store
            .save_table(&TableInfo {
                id: table,
                seats,
                names: records::practice_names(
                    "Mei",
                    [
                        mahjong_bot::Level::Strong,
                        mahjong_bot::Level::Basic,
                        mahjong_bot::Level::Strong,
                    ],
                ),
                created: 1_790_000_000_000 + u64::from(t) * 3_600_000,
                finished: true,
                practice: Some([
                    mahjong_bot::Level::Strong,
                    mahjong_bot::Level::Basic,
                    mahjong_bot::Level::Strong,
                ]),
            })
            .expect("table");
        for hand in 1..=hands {
            let mut result = real[(hand as usize - 1) % real.len()].clone();
            result.hand = hand;
            let hash = result.hash();
            let sigs: Vec<Envelope> = (0..4u8)
                .map(|seat: Seat| {
                    Envelope::sign(
                        table,
                        Header {
                            hand,
                            seq: hand * 200,
                            prev_hash: [hand as u8; 32],
                        },
                        seat,
                        Body::Settle {
                            result: hash,
                            next: Next::Continue,
                        },
                        &keys[seat as usize],
                    )
                })
                .collect();
            store.book(&table, &result, &sigs, None).expect("book");
        }
    }
}

fn store_of_1000_hands() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("shanghai-history-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    play(&dir, 4);
    fill(&dir);
    let n = records::load(&dir).expect("load").hand_count();
    assert_eq!(n, 1000, "the store holds 1,000 hands");
    dir
}

fn bench(c: &mut Criterion) {
    let dir = store_of_1000_hands();
    let mut g = c.benchmark_group("history of 1,000 hands");
    g.sample_size(20);
    g.bench_function("read the ledger", |b| {
        b.iter(|| records::load(&dir).expect("load"));
    });
    g.bench_function("read, build and lay out the screen", |b| {
        b.iter(|| {
            let (mut state, _) = history::State::open(dir.clone());
            let _ = state.update(history::load(dir.clone()));
            let ui = iced_test::Simulator::with_size(
                shanghai_mahjong::iced_settings(),
                iced::Size::new(1280.0, 800.0),
                state.view(Lang::En),
            );
            drop(ui);
        });
    });
    g.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, bench);
criterion_main!(benches);
