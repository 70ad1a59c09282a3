//! The manual lobby through real sockets on loopback (mDNS off): one peer opens a table with
//! its own set-up, another dials it by address, sees the table, takes a seat, both begin and
//! the joiner is proposed the host's changed options; the table plays its hand to the end.

use std::time::Duration;

use ed25519_dalek::SigningKey;
use mahjong_net::{MemoryStorage, NetConfig, NetEvent, Network, TableSpec, node};
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
    let signatures = until(&mut guest_ev, "the settlement", |e| match e {
        NetEvent::Table(TableEvent::HandOver { signatures, result }) if !result.aborted => {
            Some(signatures.len())
        }
        _ => None,
    })
    .await;
    assert_eq!(signatures, 4);
    let _ = host.shutdown().await;
    let _ = guest.shutdown().await;
}
