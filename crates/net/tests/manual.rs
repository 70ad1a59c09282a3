//! The manual lobby through real sockets on loopback (mDNS off): one peer opens a table with
//! its own set-up, another dials it by address, sees the table, takes a seat, both begin and
//! the joiner is proposed the host's changed options; the table plays its hand to the end.
//! After the session, standing up brings the peer back to the lobby.

use std::time::Duration;

use ed25519_dalek::SigningKey;
use mahjong_net::{
    Kind, MemoryStorage, NetConfig, NetEvent, Network, Storage, StorageError, Stored, TableSpec,
    TableStart, node,
};
use mahjong_rules::{Money, Options, Ruleset};
use mahjong_table::TableEvent;
use tokio::sync::mpsc::Receiver;

fn peer(seed: u8, name: &str) -> (Network, Receiver<NetEvent>) {
    let settings = node::settings(name, Ruleset::Qiaoma, Money::coins(1), 1, 0);
    let mut config = NetConfig::new(SigningKey::from_bytes(&[seed; 32]), settings);
    config.listen = vec!["/ip4/127.0.0.1/tcp/0".parse().expect("addr")];
    config.mdns = false;
    config.manual = true;
    mahjong_net::spawn(config, Box::new(MemoryStorage::new())).expect("spawn")
}

async fn until<T>(
    events: &mut Receiver<NetEvent>,
    what: &str,
    mut f: impl FnMut(&NetEvent) -> Option<T>,
) -> T {
    let wait = async {
        while let Some(ev) = events.recv().await {
            if let Some(t) = f(&ev) {
                return Some(t);
            }
        }
        None
    };
    tokio::time::timeout(Duration::from_secs(60), wait)
        .await
        .ok()
        .flatten()
        .unwrap_or_else(|| panic!("no {what}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_opened_by_hand_is_seen_taken_and_played_with_its_own_options() {
    let (host, mut host_ev) = peer(21, "ann");
    let (guest, mut guest_ev) = peer(22, "bo");
    let addr = until(&mut host_ev, "listening address", |e| match e {
        NetEvent::Listening(a) => Some(a.clone()),
        _ => None,
    })
    .await;
    // Nothing happens by itself in a manual lobby.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert!(host.tables().await.expect("tables").is_empty());
    let mut options = Options::preset(Ruleset::Classic);
    options.discard_seconds = 7;
    let spec = TableSpec {
        name: "Friday".into(),
        preset: Ruleset::Classic,
        options: options.clone(),
        stake: Money::coins(2),
        hands: 1,
        bots: 2,
    };
    host.host(spec.clone())
        .await
        .expect("loop")
        .expect("hosted");
    assert!(
        host.host(spec).await.expect("loop").is_err(),
        "one table at a time"
    );
    guest.dial(addr).await.expect("loop").expect("dialled");
    let advert = until(&mut guest_ev, "the host's table", |e| match e {
        NetEvent::Lobby(t) => t.iter().find(|a| a.name == "Friday").cloned(),
        _ => None,
    })
    .await;
    assert_eq!(advert.stake, Money::coins(2));
    assert_eq!(advert.bots, 2);
    guest.sit(advert.table).await.expect("loop").expect("seat");
    let proposal = until(&mut guest_ev, "the proposal", |e| match e {
        NetEvent::Table(TableEvent::Proposed(p)) => Some(p.clone()),
        _ => None,
    })
    .await;
    assert_eq!(proposal.options, options);
    assert_eq!(proposal.stake, Money::coins(2));
    // The own seats are bots here (the default), so both accept and the hand is played.
    until(&mut guest_ev, "a view", |e| match e {
        NetEvent::View { view, .. } => (!view.hand.is_empty()).then_some(()),
        _ => None,
    })
    .await;
    // Every seat's concealed tiles (the audit's) come just before the settlement.
    let revealed = until(&mut guest_ev, "the revealed hands", |e| match e {
        NetEvent::Revealed { hand, hands } => Some((*hand, hands.clone())),
        _ => None,
    })
    .await;
    assert!(revealed.1.iter().all(|h| !h.is_empty()), "{revealed:?}");
    let (signatures, hand) = until(&mut guest_ev, "the settlement", |e| match e {
        NetEvent::Table(TableEvent::HandOver { signatures, result }) if !result.aborted => {
            Some((signatures.len(), result.hand))
        }
        _ => None,
    })
    .await;
    assert_eq!(signatures, 4);
    assert_eq!(hand, revealed.0);
    until(&mut guest_ev, "the session's end", |e| match e {
        NetEvent::Table(TableEvent::SessionOver { .. }) => Some(()),
        _ => None,
    })
    .await;
    // After the session, standing up returns to the lobby: a new table can be opened.
    let again = TableSpec {
        name: "again".into(),
        preset: Ruleset::Qiaoma,
        options: Options::preset(Ruleset::Qiaoma),
        stake: Money::coins(1),
        hands: 1,
        bots: 0,
    };
    assert!(
        guest.host(again.clone()).await.expect("loop").is_err(),
        "still at the table"
    );
    guest.stand().await.expect("loop");
    guest.host(again).await.expect("loop").expect("a new table");
    let _ = host.shutdown().await;
    let _ = guest.shutdown().await;
}

fn peer_on(
    seed: u8,
    name: &str,
    storage: &MemoryStorage,
    own_bot: bool,
) -> (Network, Receiver<NetEvent>) {
    let settings = node::settings(name, Ruleset::Qiaoma, Money::coins(1), 1, 0);
    let mut config = NetConfig::new(SigningKey::from_bytes(&[seed; 32]), settings);
    config.listen = vec!["/ip4/127.0.0.1/tcp/0".parse().expect("addr")];
    config.mdns = false;
    config.manual = true;
    config.own_bot = own_bot;
    mahjong_net::spawn(config, Box::new(storage.clone())).expect("spawn")
}

/// A store as an older version kept it: a table whose set-up failed was never marked
/// finished (`finish` false).
struct Old(MemoryStorage, bool);

impl Storage for Old {
    fn has_table(&mut self, table: &mahjong_net::TableId) -> Result<bool, StorageError> {
        self.0.has_table(table)
    }
    fn begin_table(&mut self, start: &TableStart) -> Result<(), StorageError> {
        self.0.begin_table(start)
    }
    fn begin_seat(
        &mut self,
        table: &mahjong_net::TableId,
        seat: &mahjong_table::Persisted,
        bot_key: Option<&SigningKey>,
    ) -> Result<(), StorageError> {
        self.0.begin_seat(table, seat, bot_key)
    }
    fn append(
        &mut self,
        table: &mahjong_net::TableId,
        seat: mahjong_rules::Seat,
        records: &[mahjong_table::Record],
    ) -> Result<(), StorageError> {
        self.0.append(table, seat, records)
    }
    fn book(
        &mut self,
        table: &mahjong_net::TableId,
        results: &[mahjong_table::HandResult],
        log: &[mahjong_table::StepRecord],
    ) -> Result<(), StorageError> {
        self.0.book(table, results, log)
    }
    fn save_evidence(
        &mut self,
        table: &mahjong_net::TableId,
        evidence: &mahjong_table::Evidence,
    ) -> Result<(), StorageError> {
        self.0.save_evidence(table, evidence)
    }
    fn finish_table(&mut self, table: &mahjong_net::TableId) -> Result<(), StorageError> {
        if self.1 {
            self.0.finish_table(table)
        } else {
            Ok(())
        }
    }
    fn resume(&mut self, kind: Kind) -> Result<Option<Stored>, StorageError> {
        self.0.resume(kind)
    }
}

fn peer_old(seed: u8, name: &str, storage: Old, own_bot: bool) -> (Network, Receiver<NetEvent>) {
    let settings = node::settings(name, Ruleset::Qiaoma, Money::coins(1), 1, 0);
    let mut config = NetConfig::new(SigningKey::from_bytes(&[seed; 32]), settings);
    config.listen = vec!["/ip4/127.0.0.1/tcp/0".parse().expect("addr")];
    config.mdns = false;
    config.manual = true;
    config.own_bot = own_bot;
    mahjong_net::spawn(config, Box::new(storage)).expect("spawn")
}

/// The wedge of issue 18 in data dirs an older version left: a table whose set-up failed but
/// that the store still holds as unfinished. Restarted, the peer finds it over when it
/// restores it, marks it finished and does not resume it (it used to resume it and wait for
/// ever).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_set_up_left_unfinished_by_an_older_version_is_not_resumed() {
    let (hs, gs) = (MemoryStorage::new(), MemoryStorage::new());
    let (host, mut host_ev) = peer_old(41, "ann", Old(hs.clone(), false), true);
    let (guest, mut guest_ev) = peer_old(42, "bo", Old(gs.clone(), false), false);
    let addr = until(&mut host_ev, "listening address", |e| match e {
        NetEvent::Listening(a) => Some(a.clone()),
        _ => None,
    })
    .await;
    let spec = TableSpec {
        name: "old".into(),
        preset: Ruleset::Qiaoma,
        options: Options::preset(Ruleset::Qiaoma),
        stake: Money::coins(1),
        hands: 1,
        bots: 2,
    };
    host.host(spec).await.expect("loop").expect("hosted");
    guest.dial(addr).await.expect("loop").expect("dialled");
    let advert = until(&mut guest_ev, "the host's table", |e| match e {
        NetEvent::Lobby(t) => t.iter().find(|a| a.name == "old").cloned(),
        _ => None,
    })
    .await;
    guest.sit(advert.table).await.expect("loop").expect("seat");
    until(&mut guest_ev, "the proposal", |e| {
        matches!(e, NetEvent::Table(TableEvent::Proposed(_))).then_some(())
    })
    .await;
    guest.leave().await.expect("loop");
    for ev in [&mut host_ev, &mut guest_ev] {
        until(ev, "the failed set-up", |e| {
            matches!(e, NetEvent::Table(TableEvent::SetupFailed { .. })).then_some(())
        })
        .await;
    }
    let _ = host.shutdown().await;
    let _ = guest.shutdown().await;
    for (seed, name, store) in [(41, "ann", &hs), (42, "bo", &gs)] {
        // Still unfinished in the store, as the older version left it.
        assert!(
            store
                .clone()
                .resume(Kind::Friends)
                .expect("store")
                .is_some()
        );
        let (net, mut ev) = peer_old(seed, name, Old(store.clone(), true), true);
        let resumed = tokio::time::timeout(Duration::from_secs(3), async {
            while let Some(e) = ev.recv().await {
                if matches!(e, NetEvent::Resumed { .. }) {
                    return true;
                }
            }
            false
        })
        .await
        .unwrap_or(false);
        assert!(!resumed, "{name} resumed the failed table");
        assert!(
            store
                .clone()
                .resume(Kind::Friends)
                .expect("store")
                .is_none(),
            "{name}"
        );
        let _ = net.shutdown().await;
    }
}

/// A declined set-up ends the table for both peers, in their stores too: each is back in the
/// lobby by itself (the host opens another table without standing up first, the other sees
/// it), and restarted on the same stores neither resumes the failed table.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_declined_set_up_returns_both_to_the_lobby_and_is_never_resumed() {
    let (hs, gs) = (MemoryStorage::new(), MemoryStorage::new());
    let (host, mut host_ev) = peer_on(31, "ann", &hs, true);
    let (guest, mut guest_ev) = peer_on(32, "bo", &gs, false);
    let addr = until(&mut host_ev, "listening address", |e| match e {
        NetEvent::Listening(a) => Some(a.clone()),
        _ => None,
    })
    .await;
    let spec = |name: &str| TableSpec {
        name: name.into(),
        preset: Ruleset::Qiaoma,
        options: Options::preset(Ruleset::Qiaoma),
        stake: Money::coins(1),
        hands: 1,
        bots: 2,
    };
    host.host(spec("first"))
        .await
        .expect("loop")
        .expect("hosted");
    guest
        .dial(addr.clone())
        .await
        .expect("loop")
        .expect("dialled");
    let advert = until(&mut guest_ev, "the host's table", |e| match e {
        NetEvent::Lobby(t) => t.iter().find(|a| a.name == "first").cloned(),
        _ => None,
    })
    .await;
    guest.sit(advert.table).await.expect("loop").expect("seat");
    until(&mut guest_ev, "the proposal", |e| match e {
        NetEvent::Table(TableEvent::Proposed(_)) => Some(()),
        _ => None,
    })
    .await;
    // The player declines (leaves before the first hand).
    guest.leave().await.expect("loop");
    let started = std::time::Instant::now();
    for (who, ev) in [("host", &mut host_ev), ("guest", &mut guest_ev)] {
        until(ev, &format!("the failed set-up at the {who}"), |e| {
            matches!(e, NetEvent::Table(TableEvent::SetupFailed { .. })).then_some(())
        })
        .await;
    }
    // Back in the lobby by itself: the host opens another table, the guest sees it.
    let reopened = async {
        loop {
            if host.host(spec("second")).await.expect("loop").is_ok() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(10), reopened)
        .await
        .expect("the host never got back to the lobby");
    let back = started.elapsed();
    until(&mut guest_ev, "the host's second table", |e| match e {
        NetEvent::Lobby(t) => t.iter().any(|a| a.name == "second").then_some(()),
        _ => None,
    })
    .await;
    println!("declined → the host hosting again after {back:?}");
    let _ = host.shutdown().await;
    let _ = guest.shutdown().await;
    // Restarted on the same stores: nothing to resume.
    for (seed, name, store) in [(31, "ann", &hs), (32, "bo", &gs)] {
        let (net, mut ev) = peer_on(seed, name, store, true);
        let resumed = tokio::time::timeout(Duration::from_secs(3), async {
            while let Some(e) = ev.recv().await {
                if matches!(e, NetEvent::Resumed { .. }) {
                    return true;
                }
            }
            false
        })
        .await
        .unwrap_or(false);
        assert!(!resumed, "{name} resumed the failed table");
        let _ = net.shutdown().await;
    }
}

/// A caller that reads nothing while its peer plays a whole session (four seats, three of
/// them bots, its own played by the bot too) gets every event once it reads: the channel
/// fills up, and what does not fit waits in order instead of being dropped.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_caller_that_reads_late_loses_no_event() {
    const HANDS: u32 = 6;
    let storage = MemoryStorage::new();
    let settings = node::settings("ann", Ruleset::Qiaoma, Money::coins(1), HANDS, 3);
    let mut config = NetConfig::new(SigningKey::from_bytes(&[61; 32]), settings);
    config.listen = vec!["/ip4/127.0.0.1/tcp/0".parse().expect("addr")];
    config.mdns = false;
    config.own_bot = true;
    let (net, mut events) = mahjong_net::spawn(config, Box::new(storage.clone())).expect("spawn");
    // Nothing is read while the session is played and booked.
    let played = async {
        while storage.ledger().len() < HANDS as usize {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(300), played)
        .await
        .expect("the session is played");
    let mut all = Vec::new();
    while let Ok(Some(ev)) = tokio::time::timeout(Duration::from_secs(2), events.recv()).await {
        all.push(ev);
    }
    let hand_overs = all
        .iter()
        .filter(|e| matches!(e, NetEvent::Table(TableEvent::HandOver { .. })))
        .count();
    println!("{} events read after the session", all.len());
    assert!(
        all.len() > 1024,
        "the channel never filled: {} events",
        all.len()
    );
    assert_eq!(hand_overs, HANDS as usize);
    let _ = net.shutdown().await;
}
