//! The contacts: the players a data dir has sat with, by key, and what each new player at a
//! table is to this player (known, new, or taking a friend's name).

use ed25519_dalek::{SigningKey, VerifyingKey};
use mahjong_store::{Fingerprint, Identity, Recognition, Store, StoreError};

fn key(i: u8) -> VerifyingKey {
    SigningKey::from_bytes(&[i; 32]).verifying_key()
}

fn store_of(name: &str) -> (tempfile::TempDir, Store, VerifyingKey) {
    let dir = tempfile::tempdir().expect("tempdir");
    let me = Identity::load_or_create(dir.path(), Some(name)).expect("identity");
    let store = Store::open(dir.path()).expect("open");
    store.claim_identity(&me).expect("claim");
    let public = me.public();
    (dir, store, public)
}

#[test]
fn players_are_known_by_key_and_a_name_taken_by_another_key_is_flagged() {
    let (_dir, store, me) = store_of("Ann");
    let (bo, cy, di, fake_di) = (key(2), key(3), key(4), key(5));
    // Before any table: everyone is new, and Ann is herself.
    assert_eq!(store.recognise(&di, "Di").expect("store"), Recognition::New);
    assert_eq!(store.recognise(&me, "Ann").expect("store"), Recognition::Me);
    let players = [
        (me, "Ann".to_string()),
        (bo, "Bo".to_string()),
        (cy, "Cy".to_string()),
        (di, "Di".to_string()),
    ];
    store
        .note_players(&[1; 32], &players, 1_000)
        .expect("store");
    // Ann herself is not a contact; the three friends are, once each.
    let contacts = store.contacts().expect("store");
    assert_eq!(contacts.len(), 3);
    assert!(contacts.iter().all(|c| c.key != me && c.tables == 1));
    match store.recognise(&di, "Di").expect("store") {
        Recognition::Known(c) => assert_eq!(c.names, vec!["Di".to_string()]),
        other => panic!("Di is known: {other:?}"),
    }
    // A stranger who types "Di" (or "di ") is not the Di Ann knows.
    for typed in ["Di", "di ", "DI"] {
        match store.recognise(&fake_di, typed).expect("store") {
            Recognition::NameClash { known, seen } => {
                assert_eq!(known.key, di);
                assert!(!seen);
            }
            other => panic!("{typed:?} takes Di's name: {other:?}"),
        }
    }
    // A known friend who takes another friend's name is flagged too.
    assert!(matches!(
        store.recognise(&bo, "Cy").expect("store"),
        Recognition::NameClash { seen: true, .. }
    ));
    // The same table noted again counts once; a second table counts.
    store
        .note_players(&[1; 32], &players, 2_000)
        .expect("store");
    store
        .note_players(&[2; 32], &players[..2], 3_000)
        .expect("store");
    let bo_c = store.contact(&bo).expect("store").expect("store");
    assert_eq!(
        (bo_c.tables, bo_c.first_ms, bo_c.last_ms),
        (2, 1_000, 3_000)
    );
    // Bots are not noted.
    store
        .note_players(&[3; 32], &[(key(9), "bot of Ann".to_string())], 4_000)
        .expect("store");
    assert!(store.contact(&key(9)).expect("store").is_none());
}

#[test]
fn a_player_seen_only_at_the_table_just_begun_was_new_there() {
    let (_dir, store, me) = store_of("Ann");
    let players = [(me, "Ann".to_string()), (key(7), "Eve".to_string())];
    store.note_players(&[1; 32], &players, 1).expect("store");
    assert_eq!(
        store
            .recognise_before(&key(7), "Eve", Some(&[1; 32]))
            .expect("store"),
        Recognition::New
    );
    assert!(matches!(
        store
            .recognise_before(&key(7), "Eve", Some(&[2; 32]))
            .expect("store"),
        Recognition::Known(_)
    ));
}

#[test]
fn a_nickname_is_kept_locally_and_names_the_friend() {
    let (_dir, store, _me) = store_of("Ann");
    assert!(
        !store.set_nickname(&key(2), Some("Bobo")).expect("store"),
        "not a contact yet"
    );
    store
        .note_players(&[1; 32], &[(key(2), "Bo".to_string())], 1)
        .expect("store");
    assert!(
        store
            .set_nickname(&key(2), Some("Bobo\u{1b}[31m"))
            .expect("store")
    );
    let c = store.contact(&key(2)).expect("store").expect("store");
    // Kept cleaned: the escape sequence is gone.
    assert_eq!(c.shown_name(), "Bobo");
    // A stranger calling itself by the nickname is flagged as well.
    assert!(matches!(
        store.recognise(&key(3), "bobo").expect("store"),
        Recognition::NameClash { .. }
    ));
    assert!(store.set_nickname(&key(2), Some("  ")).expect("store"));
    assert_eq!(
        store
            .contact(&key(2))
            .expect("store")
            .expect("store")
            .nickname,
        None
    );
    // Found by fingerprint (what a friend reads aloud).
    let found = store
        .contacts_with(Fingerprint::of(&key(2)))
        .expect("store");
    assert_eq!(found.len(), 1);
}

#[test]
fn a_damaged_contact_is_refused_with_why_and_nothing_is_lost() {
    let (dir, store, _me) = store_of("Ann");
    store
        .note_players(&[1; 32], &[(key(2), "Bo".to_string())], 1)
        .expect("store");
    drop(store);
    // Written outside the program: a key of 5 bytes.
    let conn = rusqlite::Connection::open(dir.path().join(mahjong_store::DB_FILE)).expect("store");
    conn.execute(
        "INSERT INTO contacts (key, first_ms, last_ms) VALUES (x'0102030405', 1, 1)",
        [],
    )
    .expect("store");
    drop(conn);
    let store = Store::open(dir.path()).expect("the store still opens");
    match store.contacts() {
        Err(StoreError::Decode { what, why }) => {
            assert!(what.contains("contact"), "{what}");
            assert!(why.contains("32"), "{why}");
        }
        other => panic!("a damaged contact is an error: {other:?}"),
    }
    // The friend noted before is still there, whole.
    assert!(store.contact(&key(2)).expect("store").is_some());
}
