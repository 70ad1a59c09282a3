//! The evening's story and the friends' statistics from real stores: four players play two
//! sessions, and each computes everyone's numbers from its own SQLite file.

use std::collections::BTreeMap;

use mahjong_bot::Level;
use mahjong_rules::{Money, Ruleset};
use mahjong_store::stats::{self, START_RATING};
use mahjong_store::{Store, TableInfo, settle_up};

use crate::harness::{Game, NAMES};

#[test]
fn every_friend_computes_the_same_statistics_from_their_own_store() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut tables = Vec::new();
    for (seed, ruleset, hands) in [(31, Ruleset::Qiaoma, 3), (32, Ruleset::Classic, 2)] {
        let mut game = Game::new(dir.path(), seed, ruleset, hands);
        game.run();
        game.assert_agree();
        tables.push(game.table);
    }
    let stores: Vec<Store> = (0..4)
        .map(|s| Store::open(&crate::harness::player_dir(dir.path(), s)).expect("store"))
        .collect();
    let all: Vec<_> = stores.iter().map(|s| s.stats().expect("stats")).collect();
    for (seat, s) in all.iter().enumerate() {
        assert_eq!(s.friend_tables, 2);
        assert_eq!(s.practice_tables, 0);
        assert!(s.practice.is_none());
        assert_eq!(s.friends.len(), 4, "{s:#?}");
        // This player first, by its own name; everyone by name.
        assert!(s.friends[0].me);
        assert_eq!(s.friends[0].name, NAMES[seat]);
        assert_eq!(s.friends.iter().filter(|p| p.me).count(), 1);
        let mut names: Vec<&str> = s.friends.iter().map(|p| p.name.as_str()).collect();
        names.sort_unstable();
        assert_eq!(names, NAMES);
        for p in &s.friends {
            assert_eq!(p.hands, 5);
            assert_eq!(p.sessions, 2);
            assert!(p.self_draws <= p.wins);
            assert!((0.0..=1.0).contains(&p.win_rate()));
            assert_eq!(p.avg_win().is_some(), p.wins > 0);
        }
        // Zero-sum: money and rating.
        assert_eq!(s.friends.iter().map(|p| p.balance.0).sum::<i64>(), 0);
        let ratings: f64 = s.friends.iter().map(|p| p.rating()).sum();
        assert!((ratings - 4.0 * START_RATING as f64).abs() < 1e-9);
    }
    // The same numbers for every key, whoever computes them.
    // (Who is `me` differs by store; nothing else may.)
    let by_key = |i: usize| -> BTreeMap<[u8; 32], stats::PlayerStats> {
        all[i]
            .friends
            .iter()
            .map(|p| {
                (
                    p.key,
                    stats::PlayerStats {
                        me: false,
                        ..p.clone()
                    },
                )
            })
            .collect()
    };
    for i in 1..4 {
        assert_eq!(by_key(i), by_key(0));
    }
    // Each table's story: running balances end at the ledger's sums, the settle-up clears them.
    for table in &tables {
        let story = stores[0].story(table).expect("story");
        let rows = stores[0].ledger_of(table).expect("rows");
        assert_eq!(story.hands.len(), rows.len());
        let sums: [Money; 4] =
            std::array::from_fn(|s| Money(rows.iter().map(|r| r.payments[s].0).sum()));
        assert_eq!(story.balances(), sums);
        assert_eq!(story.settle_up, settle_up(&sums));
        let mut left = sums.map(|m| m.0);
        for p in &story.settle_up {
            left[p.from] += p.amount.0;
            left[p.to] -= p.amount.0;
        }
        assert_eq!(left, [0; 4]);
        let nonzero = sums.iter().filter(|m| m.0 != 0).count();
        assert!(story.settle_up.len() < nonzero.max(1));
        let wins: u32 = story.seats.iter().map(|s| s.wins).sum();
        assert_eq!(story.biggest.is_some(), wins > 0);
        if let Some(b) = &story.biggest {
            for h in &rows {
                for w in 0..4 {
                    if stats::tally(&h.result)[w].win {
                        assert!(h.payments[w] <= b.amount);
                    }
                }
            }
        }
    }
}

#[test]
fn a_practice_table_counts_apart_and_its_bots_are_not_friends() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut game = Game::new(dir.path(), 41, Ruleset::Baida, 2);
    game.run();
    let store = &game.players[0].store;
    let rows = store.ledger().expect("ledger");
    let info = store.table(&game.table).expect("read").expect("stored");
    assert!(!info.is_practice());
    // The same hands stored as a practice table would be: four local seats, each with its
    // own key.
    let practice = TableInfo {
        seats: (0..4u8)
            .map(|s| {
                let mut seat = info.seats[0].clone();
                seat.config.seat = s;
                seat.bot_key = Some(ed25519_dalek::SigningKey::from_bytes(&[s + 1; 32]));
                seat
            })
            .collect(),
        practice: Some([Level::Strong, Level::Basic, Level::Strong]),
        ..info.clone()
    };
    assert!(practice.is_practice());
    let map = BTreeMap::from([(game.table, practice)]);
    let me = Some(([7; 32], "Mei".to_string()));
    let s = stats::stats(&rows, &map, me, &BTreeMap::new());
    assert_eq!((s.friend_tables, s.practice_tables), (0, 1));
    assert!(s.friends.is_empty());
    let p = s.practice.expect("practice");
    assert_eq!(
        (p.name.as_str(), p.hands, p.me, p.key),
        ("Mei", 2, true, [7; 32])
    );
    let mine: i64 = rows.iter().map(|r| r.payments[0].0).sum();
    assert_eq!(p.balance, Money(mine));
    // And as the friends' table it is.
    let s = stats::stats(
        &rows,
        &BTreeMap::from([(game.table, info)]),
        None,
        &BTreeMap::new(),
    );
    assert_eq!((s.friend_tables, s.practice_tables), (1, 0));
    assert_eq!(s.friends.len(), 4);
    assert!(s.friends[0].me && s.friends[0].name == "Ann");
}
