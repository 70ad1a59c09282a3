//! Crash safety across processes: a child process plays, journaling to four real data
//! directories, and dies with `abort()` in the middle of a hand (no destructor, no flush);
//! this process reopens the four stores, restores the four seats and finishes the session.

use std::process::Command;

use mahjong_rules::Ruleset;

use crate::harness::Game;
use crate::play::assert_ledgers;

const CHILD_DIR: &str = "MAHJONG_STORE_CRASH_DIR";
const SEED: u64 = 21;

/// The child's part (run only by `a_crashed_process_resumes_from_its_stores`).
#[test]
#[ignore = "run as a child process by a_crashed_process_resumes_from_its_stores"]
fn crash_child() {
    let Ok(dir) = std::env::var(CHILD_DIR) else {
        return;
    };
    let mut game = Game::new(std::path::Path::new(&dir), SEED, Ruleset::Qiaoma, 2);
    // Into the second hand, a few moves in.
    game.run_until(|g| g.client(0).results().len() == 1 && g.moves_in_hand() >= 20);
    std::process::abort();
}

#[test]
fn a_crashed_process_resumes_from_its_stores() {
    let dir = tempfile::tempdir().expect("tempdir");
    let status = Command::new(std::env::current_exe().expect("test binary"))
        .args(["crash::crash_child", "--exact", "--ignored", "--nocapture"])
        .env(CHILD_DIR, dir.path())
        .output()
        .expect("child runs");
    assert!(!status.status.success(), "the child died: {status:?}");
    let mut game = Game::resume(dir.path(), SEED);
    for s in 0..4 {
        assert_eq!(
            game.client(s).results().len(),
            1,
            "seat {s} had finished hand 1"
        );
        assert_eq!(game.players[s].store.ledger().expect("ledger").len(), 1);
    }
    game.run();
    game.assert_agree();
    let results = game.client(0).results();
    assert_eq!(results.len(), 2);
    assert!(results.iter().all(|r| !r.aborted));
    assert_ledgers(&game, 2);
}
