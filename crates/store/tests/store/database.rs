//! Opening databases: new, reopened, corrupt, another program's, newer, older (migrated).

use std::fs;

use mahjong_store::{SCHEMA_VERSION, Store, StoreError};

#[test]
fn a_new_database_is_private_in_wal_mode_and_reopens() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("nested").join("data");
    let store = Store::open(&data).expect("open");
    assert_eq!(store.schema_version().expect("version"), SCHEMA_VERSION);
    assert!(store.tables().expect("tables").is_empty());
    drop(store);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode =
            |p: &std::path::Path| fs::metadata(p).expect("meta").permissions().mode() & 0o777;
        assert_eq!(mode(&data), 0o700);
        assert_eq!(mode(&data.join(mahjong_store::DB_FILE)), 0o600);
    }
    let again = Store::open(&data).expect("reopen");
    assert_eq!(again.schema_version().expect("version"), SCHEMA_VERSION);
}

#[test]
fn a_corrupt_database_is_a_clear_error_and_is_left_alone() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("mahjong.sqlite3");
    let garbage = b"this is not a database, just some bytes that happen to be here".repeat(100);
    fs::write(&path, &garbage).expect("write");
    let err = Store::open_file(&path).expect_err("refused");
    assert!(matches!(err, StoreError::CorruptDatabase { .. }), "{err}");
    assert!(err.to_string().contains("mahjong.sqlite3"), "{err}");
    assert_eq!(fs::read(&path).expect("read"), garbage, "never overwritten");

    // A real store whose pages were damaged after the header.
    let path = dir.path().join("damaged.sqlite3");
    let store = Store::open_file(&path).expect("open");
    drop(store);
    let mut bytes = fs::read(&path).expect("read");
    assert!(bytes.len() >= 4096 * 2, "a store has several pages");
    for b in &mut bytes[4096 + 8..4096 + 200] {
        *b = 0xA5;
    }
    fs::write(&path, &bytes).expect("write");
    let _ = fs::remove_file(dir.path().join("damaged.sqlite3-wal"));
    let _ = fs::remove_file(dir.path().join("damaged.sqlite3-shm"));
    let err = Store::open_file(&path).expect_err("refused");
    assert!(matches!(err, StoreError::CorruptDatabase { .. }), "{err}");
}

#[test]
fn another_programs_database_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("other.sqlite3");
    let conn = rusqlite::Connection::open(&path).expect("sqlite");
    conn.execute_batch("CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('hi');")
        .expect("create");
    drop(conn);
    let err = Store::open_file(&path).expect_err("refused");
    assert!(
        matches!(&err, StoreError::CorruptDatabase { why, .. } if why.contains("another program")),
        "{err}"
    );
}

#[test]
fn a_newer_schema_is_refused_with_both_versions() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("mahjong.sqlite3");
    drop(Store::open_file(&path).expect("open"));
    let conn = rusqlite::Connection::open(&path).expect("sqlite");
    conn.execute(
        "UPDATE meta SET value = ?1 WHERE key = 'schema_version'",
        [(SCHEMA_VERSION + 1).to_string()],
    )
    .expect("bump");
    drop(conn);
    let err = Store::open_file(&path).expect_err("refused");
    match &err {
        StoreError::NewerSchema {
            found, supported, ..
        } => {
            assert_eq!(*found, SCHEMA_VERSION + 1);
            assert_eq!(*supported, SCHEMA_VERSION);
        }
        other => panic!("{other}"),
    }
    assert!(err.to_string().contains("upgrade"), "{err}");
}

#[test]
fn a_store_is_bound_to_its_players_key() {
    let dir = tempfile::tempdir().expect("tempdir");
    let me = mahjong_store::Identity::load_or_create(dir.path(), Some("Ann")).expect("me");
    let store = Store::open(dir.path()).expect("open");
    assert_eq!(store.claimed_identity().expect("read"), None);
    store.claim_identity(&me).expect("claim");
    let renamed = mahjong_store::Identity::load_or_create(dir.path(), Some("Annie")).expect("me");
    store.claim_identity(&renamed).expect("same key, new name");
    let (key, name) = store.claimed_identity().expect("read").expect("claimed");
    assert_eq!(key, mahjong_store::to_hex(me.public().as_bytes()));
    assert_eq!(name, "Annie");
    // Another player's key (another data directory) is refused.
    let other_dir = tempfile::tempdir().expect("tempdir");
    let other = mahjong_store::Identity::load_or_create(other_dir.path(), None).expect("other");
    let err = store.claim_identity(&other).expect_err("refused");
    assert!(matches!(err, StoreError::OtherIdentity { .. }), "{err}");
}

#[test]
fn a_player_running_a_bot_seat_keeps_both_seats_and_restores_each_with_its_key() {
    use ed25519_dalek::SigningKey;
    use mahjong_store::{Identity, LocalSeat, TableInfo, new_root_secret};
    use mahjong_table::Config;

    let dir = tempfile::tempdir().expect("tempdir");
    let me = Identity::load_or_create(dir.path(), Some("Ann")).expect("me");
    let bot = SigningKey::from_bytes(&new_root_secret());
    let others = [7u8, 8].map(|b| SigningKey::from_bytes(&[b; 32]).verifying_key());
    let roster = [me.public(), others[0], others[1], bot.verifying_key()];
    let table = [3; 32];
    let seat = |seat: u8, bot_key: Option<SigningKey>| LocalSeat {
        config: Config {
            table,
            seat,
            roster,
            host: 0,
        },
        root: new_root_secret(),
        bot_key,
    };
    let info = TableInfo {
        id: table,
        seats: vec![seat(0, None), seat(3, Some(bot.clone()))],
        names: ["Ann", "Bo", "Cy", "bot"].map(String::from),
        created: 1,
        finished: false,
        practice: None,
    };
    let store = Store::open(dir.path()).expect("open");
    store.save_table(&info).expect("save");
    drop(store);
    let store = Store::open(dir.path()).expect("reopen");
    assert_eq!(store.table(&table).expect("read"), Some(info.clone()));
    assert!(
        !format!("{info:?}").contains(&mahjong_store::to_hex(&info.seats[0].root)),
        "no secret in Debug"
    );
    for s in [0u8, 3] {
        let client = store
            .restore(&table, s, &me)
            .expect("restore")
            .expect("stored");
        assert_eq!(client.seat(), s);
    }
    assert!(
        store.restore(&table, 1, &me).expect("restore").is_none(),
        "not a local seat"
    );
    assert!(
        store.persisted(&[4; 32], 0).expect("read").is_none(),
        "not a stored table"
    );
    assert!(matches!(
        store.mark_finished(&[4; 32]),
        Err(StoreError::UnknownTable(_))
    ));
    store.mark_finished(&table).expect("finish");
    assert!(store.unfinished_tables().expect("tables").is_empty());
    assert_eq!(store.tables().expect("tables").len(), 1);
}

/// A table in the store is never rewritten: another save with other names, another roster or
/// another finished flag is refused with a clear error and the stored table is unchanged;
/// a finished table takes no seat and is not resumed.
#[test]
fn a_stored_table_is_never_rewritten() {
    use mahjong_store::{LocalSeat, TableInfo, new_root_secret};
    use mahjong_table::Config;

    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(dir.path()).expect("open");
    let key = |b: u8| ed25519_dalek::SigningKey::from_bytes(&[b; 32]).verifying_key();
    let table = [5; 32];
    let seat = LocalSeat {
        config: Config {
            table,
            seat: 1,
            roster: [key(1), key(2), key(3), key(4)],
            host: 0,
        },
        root: new_root_secret(),
        bot_key: None,
    };
    let info = TableInfo {
        id: table,
        seats: vec![seat.clone()],
        names: ["Ann", "Bo", "Cy", "Di"].map(String::from),
        created: 1,
        finished: false,
        practice: None,
    };
    store.save_table(&info).expect("save");
    store.save_roster(&table, b"roster one").expect("roster");
    // The same table saved again (a restart) is fine; the same roster again too.
    store.save_table(&info).expect("same again");
    store
        .save_roster(&table, b"roster one")
        .expect("same roster");
    let renamed = TableInfo {
        names: ["Mallory", "Bo", "Cy", "Di"].map(String::from),
        ..info.clone()
    };
    let err = store.save_table(&renamed).expect_err("other names refused");
    assert!(matches!(err, StoreError::TableExists { .. }), "{err}");
    assert!(err.to_string().contains("other names"), "{err}");
    let err = store
        .save_roster(&table, b"roster two")
        .expect_err("another roster refused");
    assert!(err.to_string().contains("another roster"), "{err}");
    assert_eq!(
        store.roster(&table).expect("read").as_deref(),
        Some(&b"roster one"[..])
    );
    store.mark_finished(&table).expect("finish");
    // Neither unfinished again nor given a new seat once finished.
    let err = store.save_table(&info).expect_err("unfinish refused");
    assert!(err.to_string().contains("finished"), "{err}");
    let err = store.add_seat(&table, &seat).expect_err("no seat");
    assert!(matches!(err, StoreError::TableExists { .. }), "{err}");
    drop(store);
    let store = Store::open(dir.path()).expect("reopen");
    let stored = store.table(&table).expect("read").expect("kept");
    assert_eq!(stored.names, info.names);
    assert!(stored.finished);
    assert!(store.unfinished_tables().expect("tables").is_empty());
}

/// Schema 7: a finished hand's steps are one journal row naming its packed run. A store of
/// version 6 (its journals a row a step, no `runs`) is packed by the migration, and reads
/// back the same journal, the same restore and an export that verifies.
#[test]
fn the_migration_to_7_packs_the_finished_hands_and_reads_back_the_same_journal() {
    use crate::harness::{Game, player_dir};
    use mahjong_rules::Ruleset;

    let dir = tempfile::tempdir().expect("tempdir");
    let mut game = Game::new(dir.path(), 7, Ruleset::Qiaoma, 3);
    game.run();
    game.assert_agree();
    let table = game.table;
    let store = &game.players[1].store;
    let packed_rows = store.journal_len(&table, 1).expect("rows");
    let persisted = store.persisted(&table, 1).expect("read").expect("seat");
    let steps = persisted.log.len() as u64;
    // Three hands packed: far fewer rows than steps.
    assert!(
        packed_rows * 10 < steps,
        "{packed_rows} rows for {steps} steps"
    );
    let export = store.export(&table, None).expect("export").to_bytes();
    drop(game);

    // The same journal as version 6 wrote it: every run back to a row a step.
    let path = player_dir(dir.path(), 1).join(mahjong_store::DB_FILE);
    {
        let conn = rusqlite::Connection::open(&path).expect("open");
        let named: u64 = conn
            .query_row(
                "SELECT count(*) FROM journal WHERE substr(record, 1, 1) = x'C7'",
                [],
                |r| r.get(0),
            )
            .expect("count");
        assert!(named > 0);
        // Row ids between a run's first and the next row are free: renumber the journal.
        let rest: Vec<(i64, Vec<u8>, u8, Option<i64>)> = conn
            .prepare("SELECT id, record, seat, checkpoint FROM journal ORDER BY id")
            .expect("select")
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .expect("query")
            .collect::<Result<_, _>>()
            .expect("rows");
        conn.execute("DELETE FROM journal", []).expect("clear");
        let mut id = 0;
        for (_, record, seat, checkpoint) in rest {
            let rows = if record.first() == Some(&0xC7) {
                let run: Vec<u8> = conn
                    .query_row(
                        "SELECT record FROM runs WHERE hash = ?1",
                        [&record[1..]],
                        |r| r.get(0),
                    )
                    .expect("the run");
                mahjong_table::from_stored_run(&table, &run)
                    .expect("a run")
                    .iter()
                    .map(|entries| mahjong_table::stored_step(&table, entries).expect("a step"))
                    .collect()
            } else {
                vec![record]
            };
            for record in rows {
                id += 1;
                conn.execute(
                    "INSERT INTO journal (id, table_id, seat, record, checkpoint) \
                     VALUES (?1, ?2, ?3, ?4, ?5)",
                    rusqlite::params![id, &table[..], seat, record, checkpoint],
                )
                .expect("insert");
            }
        }
        conn.execute_batch(
            "DROP TABLE runs; UPDATE meta SET value = '6' WHERE key = 'schema_version';",
        )
        .expect("version 6");
        let rows: u64 = conn
            .query_row("SELECT count(*) FROM journal", [], |r| r.get(0))
            .expect("count");
        assert!(rows >= steps, "{rows} rows for {steps} steps");
    }
    let store = Store::open(&player_dir(dir.path(), 1)).expect("migrates");
    assert_eq!(store.schema_version().expect("version"), 7);
    assert_eq!(store.journal_len(&table, 1).expect("rows"), packed_rows);
    assert_eq!(
        store.persisted(&table, 1).expect("read").expect("seat"),
        persisted
    );
    assert_eq!(
        store.export(&table, None).expect("export").to_bytes(),
        export
    );
    mahjong_store::verify_bytes(&export).expect("verifies");
    // Opening again packs nothing more.
    drop(store);
    let store = Store::open(&player_dir(dir.path(), 1)).expect("reopen");
    assert_eq!(store.journal_len(&table, 1).expect("rows"), packed_rows);
}

/// The four seats of one table in one store (a practice table in the app) keep each
/// finished hand's steps once, not once a seat: every seat's journal names the same packed
/// runs, and each seat still reads back its whole log, restores and exports.
#[test]
fn four_seats_in_one_store_keep_each_finished_hand_once() {
    use crate::harness::{Game, player_dir};
    use mahjong_rules::Ruleset;

    let dir = tempfile::tempdir().expect("tempdir");
    let mut game = Game::one_store(dir.path(), 11, Ruleset::Qiaoma, 3);
    game.run();
    game.assert_agree();
    let table = game.table;
    let hands = game.client(0).results().len();
    assert_eq!(hands, 3);
    let conn = rusqlite::Connection::open(player_dir(dir.path(), 0).join(mahjong_store::DB_FILE))
        .expect("open");
    let count = |sql: &str| -> i64 { conn.query_row(sql, [], |r| r.get(0)).expect(sql) };
    let runs = count("SELECT count(*) FROM runs");
    let named = count("SELECT count(*) FROM journal WHERE substr(record, 1, 1) = x'C7'");
    // Every seat's hands are packed (the last one when the table finished, which the first
    // seat to be over may do while the others still log its last steps: then a seat's last
    // hand can differ and be kept apart); the hands all four logged alike are kept once.
    assert!(named >= 4 * hands as i64, "{named} rows name runs");
    assert!(runs * 2 <= named, "{runs} runs kept for {named} rows");
    let store = &game.players[0].store;
    let logs: Vec<_> = (0..4u8)
        .map(|s| store.persisted(&table, s).expect("read").expect("seat").log)
        .collect();
    assert!(logs.iter().all(|l| l == &logs[0]), "one log");
    let bytes: Vec<u64> = (0..4u8)
        .map(|s| store.journal_bytes(&table, s).expect("bytes"))
        .collect();
    let kept = count("SELECT sum(length(record)) FROM runs") as u64;
    assert!(kept < 2 * bytes[0], "{bytes:?} against {kept} kept");
    for (s, p) in game.players.iter().enumerate() {
        let client = store
            .restore(&table, s as u8, &p.identity)
            .expect("restore")
            .expect("stored");
        assert_eq!(client.results().len(), hands, "seat {s}");
    }
    let export = store.export(&table, None).expect("export").to_bytes();
    mahjong_store::verify_bytes(&export).expect("verifies");
    // Finished (again: the harness marks it when each seat is over): every seat's last hand
    // is packed too (a seat may stop before its last checkpoint), and its own envelopes go;
    // what each seat reads is the same.
    store.mark_finished(&table).expect("finish");
    let kinds: Vec<(u8, String)> = conn
        .prepare(
            "SELECT seat, hex(substr(record, 1, 1)) FROM journal WHERE checkpoint IS NULL \
             AND substr(record, 1, 1) != x'C7'",
        )
        .expect("select")
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .expect("query")
        .collect::<Result<_, _>>()
        .expect("rows");
    // Left loose: at most a seat's one last step (logged after another seat finished the
    // table; one step is not worth a run); no own envelope.
    assert!(
        kinds.iter().all(|(_, k)| k == "C5")
            && (0..4).all(|s| kinds.iter().filter(|(seat, _)| *seat == s).count() <= 1),
        "rows neither a checkpoint nor a packed run: {kinds:?}"
    );
    for (s, log) in logs.iter().enumerate() {
        let now = store
            .persisted(&table, s as u8)
            .expect("read")
            .expect("seat");
        assert_eq!(&now.log, log, "seat {s}");
        assert!(now.own.is_empty());
    }
    assert_eq!(
        store.export(&table, None).expect("export").to_bytes(),
        export
    );
}

/// A table finished in the middle of a hand (a practice table left, a session that ends
/// before a seat writes its last checkpoint): each seat's steps since its last checkpoint
/// are packed and its own envelopes go, and every seat reads back the same log.
#[test]
fn a_table_finished_mid_hand_packs_its_last_steps_and_drops_its_own_envelopes() {
    use crate::harness::{Game, player_dir};
    use mahjong_rules::Ruleset;

    let dir = tempfile::tempdir().expect("tempdir");
    let mut game = Game::one_store(dir.path(), 12, Ruleset::Qiaoma, 3);
    game.run_until(|g| g.client(0).results().len() == 1 && g.moves_in_hand() > 20);
    let table = game.table;
    let store = &game.players[0].store;
    let conn = rusqlite::Connection::open(player_dir(dir.path(), 0).join(mahjong_store::DB_FILE))
        .expect("open");
    let loose = |kind: &str| -> i64 {
        conn.query_row(
            "SELECT count(*) FROM journal WHERE checkpoint IS NULL \
             AND hex(substr(record, 1, 1)) = ?1",
            [kind],
            |r| r.get(0),
        )
        .expect("count")
    };
    // Mid-hand: the hand's steps a row each, and the seats' own envelopes.
    assert!(
        loose("C5") > 40 && loose("01") > 10,
        "{} {}",
        loose("C5"),
        loose("01")
    );
    let logs: Vec<_> = (0..4u8)
        .map(|s| store.persisted(&table, s).expect("read").expect("seat").log)
        .collect();
    store.mark_finished(&table).expect("finish");
    assert_eq!((loose("C5"), loose("01")), (0, 0));
    for (s, log) in logs.iter().enumerate() {
        let now = store
            .persisted(&table, s as u8)
            .expect("read")
            .expect("seat");
        assert_eq!(&now.log, log, "seat {s}");
        assert!(now.own.is_empty());
    }
    mahjong_store::verify_bytes(&store.export(&table, None).expect("export").to_bytes())
        .expect("verifies");
}

/// Only a seat's last checkpoint keeps the session's results (each earlier one keeps its
/// place and hand, so a journal no longer grows with the square of its hands); a finished
/// hand's run leaves out what its reveals derive. A restore from the last checkpoint and a
/// fold of the whole journal still agree, and an export still verifies.
#[test]
fn earlier_checkpoints_are_slim_and_finished_hands_are_kept_derived() {
    use crate::harness::{Game, player_dir};
    use mahjong_rules::Ruleset;

    let dir = tempfile::tempdir().expect("tempdir");
    let mut game = Game::new(dir.path(), 12, Ruleset::Qiaoma, 4);
    game.run();
    game.assert_agree();
    let table = game.table;
    let conn = rusqlite::Connection::open(player_dir(dir.path(), 1).join(mahjong_store::DB_FILE))
        .expect("open");
    let sizes: Vec<i64> = conn
        .prepare(
            "SELECT length(record) FROM journal WHERE seat = 1 AND checkpoint IS NOT NULL \
             ORDER BY id",
        )
        .expect("select")
        .query_map([], |r| r.get(0))
        .expect("query")
        .collect::<Result<_, _>>()
        .expect("rows");
    assert!(sizes.len() >= 4, "{sizes:?}");
    let (last, earlier) = sizes.split_last().expect("a checkpoint");
    // Each earlier one about the same size whatever its hand (its step number and the
    // session's counters grow by a byte or two); the last holds four results more.
    let (lo, hi) = (earlier.iter().min(), earlier.iter().max());
    assert!(
        lo.zip(hi)
            .is_some_and(|(lo, hi)| hi - lo <= 16 && hi + 4 * 100 < *last),
        "checkpoint sizes {sizes:?}"
    );
    let runs: Vec<Vec<u8>> = conn
        .prepare("SELECT record FROM runs")
        .expect("select")
        .query_map([], |r| r.get(0))
        .expect("query")
        .collect::<Result<_, _>>()
        .expect("rows");
    let derived = runs
        .iter()
        .filter(|r| r.first() == Some(&mahjong_table::STORED_RUN_DERIVED))
        .count();
    assert_eq!(derived, runs.len(), "every run is of the derived form");
    let store = &game.players[1].store;
    let whole = store.persisted(&table, 1).expect("read").expect("seat");
    let recent = store
        .persisted_from_checkpoint(&table, 1)
        .expect("read")
        .expect("seat");
    let results = |p: &mahjong_table::Persisted| p.checkpoint.as_ref().map(|cp| cp.results.clone());
    assert_eq!(results(&whole), results(&recent));
    assert_eq!(results(&whole).map(|r| r.len()), Some(4));
    let client = store
        .restore(&table, 1, &game.players[1].identity)
        .expect("restore")
        .expect("stored");
    assert_eq!(client.results().len(), 4);
    let export = store.export(&table, None).expect("export").to_bytes();
    mahjong_store::verify_bytes(&export).expect("verifies");
}
