//! The LAN lobby through the app's real `update` and `view` in the `iced_test` simulator, with
//! the app's real LAN thread (`lan::start`: `mahjong-net` with the player's identity and SQLite
//! store in a temporary data dir) and a second player that is a real headless `mahjong-net`
//! peer in this test. Everything stays on loopback: mDNS is off, the two find each other by
//! address (the lobby's address field, or `--peer`).
//!
//! The simulator runs no subscriptions, so the harness polls the LAN thread's stream itself
//! and hands each feed to `App::update` as the subscription would.

use std::path::PathBuf;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use ed25519_dalek::SigningKey;
use iced::futures::StreamExt;
use iced_test::{Error, Simulator, selector};
use mahjong_net::{MemoryStorage, NetConfig, NetEvent, Network, TableSpec, node};
use mahjong_rules::{Action, Money, Options, Ruleset};
use mahjong_table::TableEvent;
use shanghai_mahjong::app::{App, Flags, Message, Screen};
use shanghai_mahjong::i18n::Lang;
use shanghai_mahjong::lan::{self, Feed, LanOptions};
use shanghai_mahjong::screens::lobby::{self, ADDRESS_FIELD};
use shanghai_mahjong::screens::table::Message as TableMsg;
use shanghai_mahjong::settings::Settings;

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("shanghai-lobby-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

struct Harness {
    app: App,
    feeds: mpsc::Receiver<Feed>,
    _dir: PathBuf,
}

impl Harness {
    /// The app named "Mei" in `lang`, in the lobby, its LAN thread started on loopback.
    fn new(name: &str, lang: Lang, peers: Vec<String>) -> Harness {
        let dir = temp_dir(name);
        Settings {
            name: "Mei".into(),
            lang,
            ..Settings::default()
        }
        .save(&dir)
        .expect("settings");
        let (mut app, _) = App::new(Flags {
            data_dir: dir.clone(),
            lang: None,
            practice: None,
            seed: Some(1),
            think_ms: (0, 0),
        });
        let _ = app.connect(LanOptions {
            lobby: true,
            peers,
            listen: vec!["/ip4/127.0.0.1/tcp/0".into()],
            mdns: false,
            ..LanOptions::default()
        });
        assert!(matches!(app.screen, Screen::Lobby));
        let key = app.lan.clone().expect("the LAN starts with --lobby");
        let mut stream = lan::start(&key);
        let (tx, feeds) = mpsc::channel();
        std::thread::spawn(move || {
            iced::futures::executor::block_on(async {
                while let Some(f) = stream.next().await {
                    if tx.send(f).is_err() {
                        return;
                    }
                }
            });
        });
        Harness {
            app,
            feeds,
            _dir: dir,
        }
    }

    fn ui(&self) -> Simulator<'_, Message> {
        Simulator::with_size(
            shanghai_mahjong::iced_settings(),
            self.app.size,
            self.app.view(),
        )
    }

    fn send(&mut self, m: Message) {
        let _ = self.app.update(m);
    }

    fn click(&mut self, text: &str) -> Result<(), Error> {
        let msgs: Vec<Message> = {
            let mut ui = self.ui();
            ui.click(text)?;
            ui.into_messages().collect()
        };
        for m in msgs {
            self.send(m);
        }
        Ok(())
    }

    fn type_into(&mut self, id: &'static str, text: &str) -> Result<(), Error> {
        let msgs: Vec<Message> = {
            let mut ui = self.ui();
            ui.click(selector::id(id))?;
            ui.typewrite(text);
            ui.into_messages().collect()
        };
        for m in msgs {
            self.send(m);
        }
        Ok(())
    }

    fn find(&self, text: &str) -> bool {
        self.ui().find(text).is_ok()
    }

    /// Feeds the app what the LAN thread says until `done` holds (or panics after 60 s).
    fn until(&mut self, what: &str, mut done: impl FnMut(&App) -> bool) {
        let end = Instant::now() + Duration::from_secs(60);
        while !done(&self.app) {
            let left = end.saturating_duration_since(Instant::now());
            assert!(!left.is_zero(), "timed out waiting for {what}");
            if let Ok(f) = self
                .feeds
                .recv_timeout(left.min(Duration::from_millis(200)))
            {
                self.send(Message::Lan(f));
            }
        }
    }
}

/// A headless player on loopback, manual lobby; its own seat played by the strong bot (so it
/// accepts a set-up by itself).
fn headless(
    rt: &tokio::runtime::Runtime,
    seed: u8,
    name: &str,
) -> (Network, tokio::sync::mpsc::Receiver<NetEvent>) {
    let _guard = rt.enter();
    let settings = node::settings(name, Ruleset::Qiaoma, Money::coins(1), 1, 0);
    let mut config = NetConfig::new(SigningKey::from_bytes(&[seed; 32]), settings);
    config.listen = vec!["/ip4/127.0.0.1/tcp/0".parse().expect("addr")];
    config.mdns = false;
    config.manual = true;
    mahjong_net::spawn(config, Box::new(MemoryStorage::new())).expect("spawn")
}

fn next_event<T>(
    rt: &tokio::runtime::Runtime,
    events: &mut tokio::sync::mpsc::Receiver<NetEvent>,
    what: &str,
    mut f: impl FnMut(&NetEvent) -> Option<T>,
) -> T {
    rt.block_on(async {
        tokio::time::timeout(Duration::from_secs(60), async {
            while let Some(ev) = events.recv().await {
                if let Some(t) = f(&ev) {
                    return Some(t);
                }
            }
            None
        })
        .await
        .ok()
        .flatten()
    })
    .unwrap_or_else(|| panic!("the headless peer saw no {what}"))
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime")
}

#[test]
fn the_app_opens_a_table_a_headless_friend_joins_and_accepts_and_it_starts() -> Result<(), Error> {
    let rt = runtime();
    let mut h = Harness::new("host", Lang::En, Vec::new());
    h.until("the LAN thread", |a| {
        a.lobby.link.is_some() && !a.lobby.listening.is_empty()
    });
    assert!(h.find("Tables on the LAN"));
    assert!(h.find("No table yet. Friends' tables appear here by themselves, or open one."));
    // The form: a name, two seats for bots, a quicker discard timer (a difference).
    h.type_into(lobby::NAME_FIELD, "Friday")?;
    h.send(Message::Lobby(lobby::Message::Bots(2)));
    h.send(Message::Lobby(lobby::Message::Discard("9".into())));
    h.click("Open the table")?;
    h.until("the own table listed", |a| !a.lobby.tables.is_empty());
    assert!(h.find("Friday"));
    assert!(h.find("host Mei"));
    assert!(h.find("1 · Mei (you)"));
    assert!(h.find("2 seats for bots"));
    // A friend dials the app and takes the free seat; the table fills (two bots) and starts.
    let (friend, mut events) = headless(&rt, 41, "Bo");
    let addr = h.app.lobby.listening[0].clone();
    rt.block_on(friend.dial(addr.parse().expect("multiaddr")))
        .expect("loop")
        .expect("dial");
    let advert = next_event(&rt, &mut events, "the app's table", |e| match e {
        NetEvent::Lobby(t) => t.iter().find(|a| a.name == "Friday").cloned(),
        _ => None,
    });
    rt.block_on(friend.sit(advert.table))
        .expect("loop")
        .expect("seat");
    h.until("the roster", |a| a.lobby.seated.is_some());
    assert!(h.find("Set-up of Friday"));
    assert!(h.find("2 · Bo"));
    // Bots are spread one per human peer, and each seat says who runs it.
    assert!(h.find("3 · bot run by Mei"));
    assert!(h.find("4 · bot run by Bo"));
    h.until("the proposal", |a| {
        a.lobby
            .seated
            .as_ref()
            .is_some_and(|s| s.proposal.is_some())
    });
    assert!(h.find("Seconds to discard: preset 20, this table 9"));
    assert!(
        h.find("Accepted: waiting for the others"),
        "the host proposed it"
    );
    // The friend's bot accepts: the set-up is agreed and the app is at the table.
    h.until("the table screen", |a| a.table_state().is_some());
    let t = h.app.table_state().expect("table");
    assert!(t.is_lan());
    assert_eq!(t.me, 0);
    h.until("the deal", |a| {
        a.table_state()
            .is_some_and(|t| t.view.as_ref().is_some_and(|v| !v.hand.is_empty()))
    });
    assert!(h.find("Bo"));
    let _ = rt.block_on(friend.shutdown());
    Ok(())
}

#[test]
fn the_app_joins_a_friends_table_by_address_sees_the_differences_counts_down_accepts_and_plays()
-> Result<(), Error> {
    let rt = runtime();
    let (friend, mut events) = headless(&rt, 42, "Ann");
    let addr = next_event(&rt, &mut events, "a listening address", |e| match e {
        NetEvent::Listening(a) => Some(a.to_string()),
        _ => None,
    });
    let mut options = Options::preset(Ruleset::Classic);
    options.discard_seconds = 12;
    options.start_seconds = 40;
    rt.block_on(friend.host(TableSpec {
        name: "Ann's classic".into(),
        preset: Ruleset::Classic,
        options,
        stake: Money::coins(2),
        hands: 1,
        bots: 2,
    }))
    .expect("loop")
    .expect("hosted");
    let mut h = Harness::new("join", Lang::En, Vec::new());
    h.until("the LAN thread", |a| a.lobby.link.is_some());
    // The address field (a network without multicast).
    h.type_into(ADDRESS_FIELD, &addr)?;
    h.click("Connect")?;
    h.until("the friend's table", |a| !a.lobby.tables.is_empty());
    assert!(h.find("Ann's classic"));
    assert!(h.find("host Ann"));
    assert!(h.find("Classic · stake 2 · 1 hands"));
    assert!(
        h.find("Differences from the preset"),
        "the card says it differs"
    );
    h.click("Sit down")?;
    h.until("the proposal", |a| {
        a.lobby
            .seated
            .as_ref()
            .is_some_and(|s| s.proposal.is_some())
    });
    assert!(h.find("Set-up of Ann's classic"));
    assert!(h.find("2 · Mei (you)"));
    assert!(h.find("Seconds to discard: preset 20, this table 12"));
    assert!(h.find("Seconds to accept the set-up: preset 15, this table 40"));
    // The countdown runs from start_seconds.
    let left = h.app.lobby.seconds_left().expect("counting");
    assert!((38..=40).contains(&left), "{left}");
    assert!(h.find(&format!("{left} s left to accept or leave")));
    h.send(Message::Lobby(lobby::Message::Tick(
        Instant::now() + Duration::from_secs(10),
    )));
    let later = h.app.lobby.seconds_left().expect("counting");
    assert!(later <= left - 9, "{later} after {left}");
    assert!(h.find(&format!("{later} s left to accept or leave")));
    h.click("Accept")?;
    h.until("the table screen", |a| a.table_state().is_some());
    let t = h.app.table_state().expect("table");
    assert_eq!(t.me, 1);
    assert_eq!(t.config().ruleset, Ruleset::Classic);
    // Play the hand: at each prompt the strong bot's hint, as the player would click it.
    let mut hint: Option<Action> = None;
    let end = Instant::now() + Duration::from_secs(120);
    loop {
        let t = h.app.table_state().expect("table");
        if t.end.is_some() {
            break;
        }
        assert!(Instant::now() < end, "the hand did not end");
        if let Some((a, _)) = &t.hint {
            hint = Some(a.clone());
        }
        if !t.legal().is_empty()
            && let Some(a) = hint.take()
            && t.legal().contains(&a)
        {
            h.send(Message::Table(TableMsg::Act(a)));
            continue;
        }
        if let Ok(f) = h.feeds.recv_timeout(Duration::from_millis(200)) {
            h.send(Message::Lan(f));
        }
    }
    let t = h.app.table_state().expect("table");
    let end = t.end.as_ref().expect("hand end");
    assert!(end.signed_by_all, "four signatures");
    assert_eq!(end.result.payments.iter().map(|m| m.0).sum::<i64>(), 0);
    assert!(h.find(&Lang::En.f(shanghai_mahjong::i18n::T::HandResult, &[&1])));
    assert!(h.find(Lang::En.t(shanghai_mahjong::i18n::T::Verified)));
    // The friend's ledger holds the same result.
    let theirs = next_event(&rt, &mut events, "the friend's hand end", |e| match e {
        NetEvent::Table(TableEvent::HandOver { result, .. }) => Some(result.clone()),
        _ => None,
    });
    assert_eq!(theirs.payments, end.result.payments);
    let _ = rt.block_on(friend.shutdown());
    Ok(())
}
