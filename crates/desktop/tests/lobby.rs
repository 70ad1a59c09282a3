//! The LAN lobby through the app's real `update` and `view` in the `iced_test` simulator, with
//! the app's real LAN thread (`lan::start`: `mahjong-net` with the player's identity and SQLite
//! store in a temporary data dir) and a second player that is a real headless `mahjong-net`
//! peer in this test. Everything stays on loopback: mDNS is off, the two find each other by
//! address (the lobby's address field, or `--peer`).
//!
//! The simulator runs no subscriptions, so the harness polls the LAN thread's stream itself
//! and hands each feed to `App::update` as the subscription would.

use shanghai_mahjong::i18n::Text;
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use ed25519_dalek::SigningKey;
use iced::futures::StreamExt;
use iced_test::{Error, Simulator, selector};
use mahjong_net::{MemoryStorage, NetConfig, NetEvent, Network, TableSpec, node};
use mahjong_rules::catalogue::OptionValue;
use mahjong_rules::{Action, Money, Options, Ruleset};
use mahjong_table::TableEvent;
use shanghai_mahjong::app::{App, Flags, Message, Screen};
use shanghai_mahjong::engine::Update;
use shanghai_mahjong::i18n::{Lang, T};
use shanghai_mahjong::lan::{self, Feed, LanOptions};
use shanghai_mahjong::screens::lobby::{self, ADDRESS_FIELD};
use shanghai_mahjong::screens::options::{self, Opt, control_id};
use shanghai_mahjong::screens::review as review_screen;
use shanghai_mahjong::screens::table::Message as TableMsg;
use shanghai_mahjong::session;
use shanghai_mahjong::settings::Settings;

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("shanghai-lobby-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

struct Harness {
    app: App,
    feeds: mpsc::Receiver<Feed>,
    dir: PathBuf,
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
        Harness { app, feeds, dir }
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

    /// Clicks the widget with `id` (an option editor's control), on a screen tall enough to
    /// show the whole editor.
    fn click_id(&mut self, id: &str) -> Result<(), Error> {
        let size = self.app.size;
        self.app.size = iced::Size::new(size.width, 4000.0);
        let msgs: Result<Vec<Message>, Error> = {
            let mut ui = self.ui();
            ui.click(selector::id(id.to_string()))
                .map(|_| ui.into_messages().collect())
        };
        self.app.size = size;
        for m in msgs? {
            self.send(m);
        }
        Ok(())
    }

    fn find(&self, text: &str) -> bool {
        self.ui().find(text).is_ok()
    }

    /// How many texts on the screen contain `part`.
    fn texts_containing(&self, part: &str) -> usize {
        let mut n = 0;
        let _ = self
            .ui()
            .find(|c: iced_test::selector::Candidate<'_>| -> Option<()> {
                if let iced_test::selector::Candidate::Text { content, .. } = c
                    && content.contains(part)
                {
                    n += 1;
                }
                None
            });
        n
    }

    /// Feeds the app what the LAN thread says until `done` holds (or panics after 60 s).
    /// Passes on what the LAN thread sends for `d`.
    fn for_a_while(&mut self, d: Duration) {
        let end = Instant::now() + d;
        while let Some(left) = end.checked_duration_since(Instant::now()) {
            if let Ok(f) = self
                .feeds
                .recv_timeout(left.min(Duration::from_millis(200)))
            {
                self.send(Message::Lan(f));
            }
        }
    }

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
    assert!(h.find("0 players connected"));
    // A combination the rules refuse is said plainly, and "open" does nothing.
    let editor = |m| Message::Lobby(lobby::Message::Options(m));
    h.send(editor(options::Message::Set(
        Opt::named("lezi_points").expect("lezi_points"),
        OptionValue::Number(None),
    )));
    assert!(h.find(Lang::En.t(T::Refused)));
    h.click("Open the table")?;
    assert!(h.app.lobby.tables.is_empty() && h.app.lobby.notice.is_none());
    h.send(editor(options::Message::Reset));
    assert!(!h.find(Lang::En.t(T::Refused)));
    // A LAN table counts hands: no four rounds in the lobby's editor.
    assert!(!h.find(Lang::En.t(T::LengthFourRounds)));
    // So is an address that is not one.
    h.type_into(ADDRESS_FIELD, "nonsense")?;
    h.click("Connect")?;
    h.until("the refusal", |a| {
        a.lobby
            .notice
            .as_deref()
            .is_some_and(|n| n.contains("\"nonsense\" is not a multiaddr"))
    });
    // The form: a name, two seats for bots, and through the option editor a quicker discard
    // timer, no 开宝 and a table limit of 6 lezi (differences from 敲麻), one hand.
    h.type_into(lobby::NAME_FIELD, "Friday")?;
    h.send(Message::Lobby(lobby::Message::Bots(2)));
    h.click_id(&control_id(
        Opt::named("discard_seconds").expect("discard_seconds"),
        "minus",
    ))?;
    h.click_id(&control_id(Opt::named("kaibao").expect("kaibao"), "off"))?;
    h.click_id(&control_id(
        Opt::named("table_limit_lezi").expect("table_limit_lezi"),
        "plus",
    ))?;
    h.click_id("opt-length-minus")?;
    let mut chosen = Options::preset(Ruleset::Qiaoma);
    chosen.discard_seconds = 15;
    chosen.kaibao = false;
    chosen.table_limit_lezi = Some(6);
    assert_eq!(h.app.lobby.form.editor.options(), &chosen);
    assert!(h.find(&Lang::En.f(T::ChangedCount, &[&3])));
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
    // Bo never sat with Mei: marked new, with the four words of its fingerprint.
    let bo = h
        .app
        .lobby
        .seated
        .as_ref()
        .and_then(|s| s.roster.advert.seats[1].clone())
        .expect("Bo seated");
    let flag = h.app.lobby.stranger(&bo.key).expect("Bo is new to Mei");
    assert!(h.find(&format!("2 · Bo · {}", flag.text(Lang::En))));
    // Bots are spread one per human peer, and each seat says who runs it.
    assert!(h.find("3 · bot run by Mei"));
    assert!(h.find("4 · bot run by Bo"));
    h.until("the proposal", |a| {
        a.lobby
            .seated
            .as_ref()
            .is_some_and(|s| s.proposal.is_some())
    });
    // The host's set-up shows each difference, explained.
    for key in [
        T::OptDiscardSeconds,
        T::OptKaibao,
        T::OptKaibaoHelp,
        T::OptTableLimit,
    ] {
        assert!(h.find(Lang::En.t(key)), "{}", Lang::En.t(key));
    }
    assert!(h.find("changed · default on"));
    assert!(h.find("changed · default 5"));
    assert!(h.find("changed · default 20 s"));
    assert!(
        h.find("Accepted: waiting for the others"),
        "the host proposed it"
    );
    // The friend's bot accepts: the set-up is agreed and the app is at the table.
    h.until("the table screen", |a| a.table_state().is_some());
    let t = h.app.table_state().expect("table");
    assert!(t.is_lan());
    assert_eq!(t.me, 0);
    assert_eq!(
        t.config().options(),
        chosen,
        "the table runs the agreed options"
    );
    // The friend's replica agreed to exactly these options (every seat signs their hash).
    let agreed = next_event(&rt, &mut events, "the agreed set-up", |e| match e {
        NetEvent::Table(TableEvent::SetupAgreed(p)) => Some(p.clone()),
        _ => None,
    });
    assert_eq!(agreed.options, chosen);
    assert_eq!(agreed.length, mahjong_rules::SessionLength::Hands(7));
    h.until("the deal", |a| {
        a.table_state()
            .is_some_and(|t| t.view.as_ref().is_some_and(|v| !v.hand.is_empty()))
    });
    assert!(h.find("Bo"));
    // The friend's connection drops: the table marks the seat, then a bot takes it over.
    let silent = TableEvent::SeatSilent { seat: 1 };
    h.send(Message::Lan(Feed::Table(session::Feed::Update(
        Update::Table(silent),
    ))));
    assert!(h.find("reconnecting…"));
    let replaced = TableEvent::SeatReplaced {
        seat: 1,
        controller: 0,
    };
    h.send(Message::Lan(Feed::Table(session::Feed::Update(
        Update::Table(replaced),
    ))));
    assert!(h.find("a bot plays for them now"));
    // The player leaves the table: back in the lobby, free to open or take another table,
    // never shown still seated at the table left (its last advert was of an open table).
    h.send(Message::Table(TableMsg::AskLeave));
    h.click(Lang::En.t(T::LeaveYes))?;
    assert!(matches!(h.app.screen, Screen::Lobby), "back in the lobby");
    h.for_a_while(Duration::from_secs(2));
    assert!(h.app.lobby.my_table().is_none(), "not seated in the lobby");
    assert!(!h.find("1 · Mei (you)"));
    assert!(!h.find(Lang::En.t(T::FillBots)));
    assert!(h.find("Open the table"));
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
    options.kaibao = true;
    rt.block_on(friend.host(TableSpec {
        options: options.clone(),
        name: "Ann's classic".into(),
        preset: Ruleset::Classic,
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
    assert!(h.find("Classic · stake 2 · 1 hand"));
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
    // Every difference from the preset, highlighted and explained: the timers and 开宝.
    for key in [
        T::OptDiscardSeconds,
        T::OptStartSeconds,
        T::OptKaibao,
        T::OptKaibaoHelp,
    ] {
        assert!(h.find(Lang::En.t(key)), "{}", Lang::En.t(key));
    }
    assert!(h.find("changed · default 20 s"));
    assert!(h.find("changed · default 15 s"));
    assert!(h.find("changed · default off"));
    assert!(
        !h.find(Lang::En.t(T::OptTableLimit)),
        "only the differences"
    );
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
    assert_eq!(
        t.config().options(),
        options,
        "the table runs the host's options"
    );
    // Play the hand: at each prompt the master bot's hint, as the player would click it.
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
    let end = t.end.clone().expect("hand end");
    assert!(end.signed_by_all, "four signatures");
    // "All hands face up": every seat's concealed tiles, the bots' and the friend's too
    // (the deal's audit reveals them), not only the player's own.
    assert!(end.hands.iter().all(|h| !h.is_empty()), "{:?}", end.hands);
    assert_eq!(end.result.payments.iter().map(|m| m.0).sum::<i64>(), 0);
    assert!(h.find(&Lang::En.f(shanghai_mahjong::i18n::T::HandResult, &[&1])));
    assert!(h.find(Lang::En.t(shanghai_mahjong::i18n::T::Verified)));
    // 复盘 of a LAN hand: the network's storage booked it in the player's store, under the
    // table, with the seat's log and the revealed deal; the review is offered and built from
    // there, the player's own decisions weighed.
    let table = end.kept.expect("a LAN hand is kept in the player's store");
    h.click(Lang::En.t(T::ReviewButton))?;
    assert!(
        h.app.review.is_some(),
        "the review opens over the settlement"
    );
    let review = shanghai_mahjong::review::load(&h.dir, &table, 1).expect("the review is built");
    assert_eq!(review.owner, 1, "the player's own seat");
    assert!(review.decisions > 0, "the player decided something");
    h.send(Message::Review(review_screen::load(
        h.dir.clone(),
        table,
        1,
    )));
    assert!(h.find(&Lang::En.f(T::ReviewTitle, &[&1])));
    assert!(
        matches!(
            h.app.review.as_ref().and_then(|r| r.review.as_ref()),
            Some(Ok(_))
        ),
        "built, not refused"
    );
    h.click(Lang::En.t(T::ReviewBack))?;
    assert!(h.app.review.is_none());
    // At a LAN table the next hand does not wait: the player's next prompt closes the
    // settlement (the last view stands in for the next hand's here).
    let view = h
        .app
        .table_state()
        .and_then(|t| t.view.clone())
        .expect("a view");
    let prompt = TableEvent::YourTurn { view, deadline: 0 };
    h.send(Message::Lan(Feed::Table(session::Feed::Update(
        Update::Table(prompt),
    ))));
    assert!(h.app.table_state().is_some_and(|t| t.end.is_none()));
    // The friend's ledger holds the same result.
    let theirs = next_event(&rt, &mut events, "the friend's hand end", |e| match e {
        NetEvent::Table(TableEvent::HandOver { result, .. }) => Some(result.clone()),
        _ => None,
    });
    assert_eq!(theirs.payments, end.result.payments);
    let _ = rt.block_on(friend.shutdown());
    Ok(())
}

/// A player who does not accept the set-up in time: the set-up fails for everyone, and the app
/// says so to the player as "you" (not its own name, nor a seat number), in both languages,
/// on a line of its own (Back does not move), and is back in the lobby.
#[test]
fn a_set_up_not_accepted_in_time_tells_the_player_you_and_returns_to_the_lobby() -> Result<(), Error>
{
    for (k, lang) in [Lang::En, Lang::Zh].into_iter().enumerate() {
        let rt = runtime();
        let (friend, mut events) = headless(&rt, 50 + k as u8, "Ann");
        let addr = next_event(&rt, &mut events, "a listening address", |e| match e {
            NetEvent::Listening(a) => Some(a.to_string()),
            _ => None,
        });
        let mut options = Options::preset(Ruleset::Qiaoma);
        options.start_seconds = 5;
        rt.block_on(friend.host(TableSpec {
            options,
            name: "Ann's table".into(),
            preset: Ruleset::Qiaoma,
            stake: Money::coins(1),
            hands: 1,
            bots: 2,
        }))
        .expect("loop")
        .expect("hosted");
        let mut h = Harness::new(&format!("late{k}"), lang, Vec::new());
        h.until("the LAN thread", |a| a.lobby.link.is_some());
        h.type_into(ADDRESS_FIELD, &addr)?;
        h.click(lang.t(T::Connect))?;
        h.until("the friend's table", |a| !a.lobby.tables.is_empty());
        h.click(lang.t(T::SitDown))?;
        h.until("the proposal", |a| {
            a.lobby
                .seated
                .as_ref()
                .is_some_and(|s| s.proposal.is_some())
        });
        // The player never clicks Accept.
        h.until("the failed set-up", |a| a.lobby.notice.is_some());
        assert_eq!(
            h.app.lobby.notice.as_deref(),
            Some(lang.t(T::SetupFailedYou)),
            "{lang:?}"
        );
        assert!(h.find(lang.t(T::SetupFailedYou)));
        assert!(h.app.lobby.seated.is_none(), "back in the lobby");
        let _ = rt.block_on(friend.shutdown());
    }
    Ok(())
}

/// Writes the lobby's screenshots under `docs/`: the tables on the LAN (a friend's table with
/// its own set-up, another's plain one) and the set-up shown to a joiner with its differences
/// highlighted, in both languages, at 1280×800. Run with
/// `cargo test -p shanghai-mahjong --test lobby screenshots -- --ignored`.
#[test]
#[ignore = "writes the documentation's screenshots"]
fn screenshots() -> Result<(), Error> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs");
    let shot = |h: &Harness, name: &str| -> Result<(), Error> {
        let path = dir.join(name);
        let mut ui = h.ui();
        let snap = ui.snapshot(&iced::Theme::Dark)?;
        let written = dir.join(format!("{name}-tiny-skia.png"));
        let _ = std::fs::remove_file(&written);
        assert!(snap.matches_image(&path)?);
        // Half size (the simulator renders at scale 2), 256 colours: small files.
        let status = std::process::Command::new("convert")
            .arg(&written)
            .args(["-resize", "50%", "-colors", "256", "-strip"])
            .arg(dir.join(format!("{name}.png")))
            .status()?;
        assert!(status.success(), "ImageMagick convert failed");
        std::fs::remove_file(written)?;
        Ok(())
    };
    for lang in [Lang::En, Lang::Zh] {
        let rt = runtime();
        let (ann, mut ann_ev) = headless(&rt, 51, "Ann");
        let (bo, mut bo_ev) = headless(&rt, 52, "Bo");
        let addr = |ev: &mut tokio::sync::mpsc::Receiver<NetEvent>| {
            next_event(&rt, ev, "a listening address", |e| match e {
                NetEvent::Listening(a) => Some(a.to_string()),
                _ => None,
            })
        };
        let (a1, a2) = (addr(&mut ann_ev), addr(&mut bo_ev));
        let mut options = Options::preset(Ruleset::Classic);
        options.discard_seconds = 12;
        options.claim_seconds = 10;
        options.start_seconds = 40;
        options.kaibao = true;
        let spec = |name: &str, preset, options, stake, hands, bots| TableSpec {
            name: name.into(),
            preset,
            options,
            stake: Money::coins(stake),
            hands,
            bots,
        };
        rt.block_on(ann.host(spec("Ann · Friday", Ruleset::Classic, options, 2, 4, 2)))
            .expect("loop")
            .expect("hosted");
        rt.block_on(bo.host(spec(
            "Bo's 敲麻",
            Ruleset::Qiaoma,
            Options::preset(Ruleset::Qiaoma),
            1,
            8,
            0,
        )))
        .expect("loop")
        .expect("hosted");
        let mut h = Harness::new(&format!("shot-{lang}"), lang, vec![a1, a2]);
        h.until("both tables", |a| a.lobby.tables.len() == 2);
        shot(&h, &format!("lobby-{lang}"))?;
        let ann_table = h
            .app
            .lobby
            .tables
            .iter()
            .find(|t| t.name.starts_with("Ann"))
            .map(|t| t.table)
            .expect("Ann's table");
        h.send(Message::Lobby(lobby::Message::Sit(ann_table)));
        h.until("the proposal", |a| {
            a.lobby
                .seated
                .as_ref()
                .is_some_and(|s| s.proposal.is_some())
        });
        shot(&h, &format!("lobby-setup-{lang}"))?;
        let _ = rt.block_on(ann.shutdown());
        let _ = rt.block_on(bo.shutdown());
    }
    Ok(())
}

/// A relay in this process on loopback (the `mahjong-relay` library `mahjong relay` runs): its
/// full address. It serves until the runtime ends.
fn relay_here(rt: &tokio::runtime::Runtime, dir: &std::path::Path) -> String {
    let _guard = rt.enter();
    let key = mahjong_relay::load_keypair(dir).expect("relay key");
    let relay =
        mahjong_relay::Relay::start(key, &["/ip4/127.0.0.1/tcp/0".parse().expect("addr")], &[])
            .expect("relay starts");
    let (tx, rx) = mpsc::channel();
    rt.spawn(relay.run(std::future::pending(), move |a| {
        let _ = tx.send(a.to_string());
    }));
    rx.recv_timeout(Duration::from_secs(10))
        .expect("the relay's address")
}

#[test]
fn play_over_the_internet_meets_a_friend_by_table_code_and_remembers_the_relay() -> Result<(), Error>
{
    let rt = runtime();
    let dir = temp_dir("internet-relay");
    let relay = relay_here(&rt, &dir);
    let mut h = Harness::new("internet", Lang::Zh, Vec::new());
    h.until("the LAN thread", |a| a.lobby.link.is_some());
    // The panel in 中文; a code that is not one is refused in the player's language.
    assert!(h.find(Lang::Zh.t(T::NetTitle)));
    h.type_into(lobby::CODE_FIELD, "7K3M-QX9")?;
    h.click(Lang::Zh.t(T::NetMeet))?;
    assert_eq!(
        h.app.lobby.notice.as_deref(),
        Some(Lang::Zh.t(T::NetBadCode))
    );
    h.click(Lang::Zh.t(T::NetNewCode))?;
    let code = h.app.lobby.code.clone();
    let parsed: mahjong_net::TableCode = code.parse().expect("a fresh code parses");
    assert_eq!(parsed.to_string(), code);
    // A relay address that is not one is refused too, then the real one is met.
    h.type_into(lobby::RELAY_FIELD, "/ip4/127.0.0.1/tcp/4001")?;
    h.click(Lang::Zh.t(T::NetMeet))?;
    assert_eq!(
        h.app.lobby.notice.as_deref(),
        Some(Lang::Zh.t(T::NetBadRelay))
    );
    h.send(Message::Lobby(lobby::Message::Relay(relay.clone())));
    h.click(Lang::Zh.t(T::NetMeet))?;
    assert_eq!(h.app.lobby.notice, None);
    assert!(h.find(&Lang::Zh.f(T::NetMeeting, &[&code])));
    // A friend elsewhere with the same code opens a table: it appears in the app's lobby,
    // and the link is told (direct on loopback, once hole punching has upgraded it).
    let (friend, _events) = {
        let _guard = rt.enter();
        let settings = node::settings("Bo", Ruleset::Qiaoma, Money::coins(1), 1, 0);
        let mut config = NetConfig::new(SigningKey::from_bytes(&[43; 32]), settings);
        config.listen = vec!["/ip4/127.0.0.1/tcp/0".parse().expect("addr")];
        config.mdns = false;
        config.manual = true;
        config.internet =
            Some(mahjong_net::Internet::new(relay.parse().expect("addr"), parsed).expect("relay"));
        mahjong_net::spawn(config, Box::new(MemoryStorage::new())).expect("spawn")
    };
    let spec = TableSpec {
        name: "Over the hills".into(),
        preset: Ruleset::Qiaoma,
        options: Options::preset(Ruleset::Qiaoma),
        stake: Money::coins(1),
        hands: 1,
        bots: 2,
    };
    rt.block_on(friend.host(spec))
        .expect("loop")
        .expect("hosted");
    h.until("the friend's table", |a| {
        a.lobby.tables.iter().any(|t| t.name == "Over the hills")
    });
    h.until("the relay and a direct link", |a| {
        a.lobby.relay_up && a.lobby.links.values().any(|d| *d)
    });
    assert!(h.find(Lang::Zh.t(T::NetRelayUp)));
    assert!(h.find(&Lang::Zh.f(T::NetLinks, &[&1, &0])));
    // The friend's seat on the table's card says how the friend is linked.
    // (Bo is new to this player: marked so, with its fingerprint, before the link.)
    let bo = h
        .app
        .lobby
        .tables
        .iter()
        .find(|t| t.name == "Over the hills")
        .and_then(|t| t.seats[0].clone())
        .expect("Bo hosts");
    let flag = h
        .app
        .lobby
        .stranger(&bo.key)
        .expect("Bo is new")
        .text(Lang::Zh);
    assert!(h.find(&format!("1 · Bo · {flag} · {}", Lang::Zh.t(T::LinkDirect))));
    // At the friend's table, each friend's seat says how it is linked.
    h.click(Lang::Zh.t(T::SitDown))?;
    h.until("the proposal", |a| {
        a.lobby
            .seated
            .as_ref()
            .is_some_and(|s| s.proposal.is_some())
    });
    h.click(Lang::Zh.t(T::AcceptSetup))?;
    h.until("the table screen", |a| a.table_state().is_some());
    let t = h.app.table_state().expect("table");
    let bo = 1 - t.me as usize; // the friend hosts seat 0, the app sits at seat 1
    assert_eq!(t.links[bo], Some(true), "{:?}", t.links);
    assert_eq!(
        t.links.iter().filter(|l| l.is_some()).count(),
        1,
        "only the friend's own seat (not bots, not the player): {:?}",
        t.links
    );
    h.until("the deal", |a| {
        a.table_state()
            .is_some_and(|t| t.view.as_ref().is_some_and(|v| !v.hand.is_empty()))
    });
    assert!(h.find(Lang::Zh.t(T::LinkDirect)));
    assert!(!h.find(Lang::Zh.t(T::LinkRelayed)));
    // Said once, under the friend's name (not again in the seat's details line).
    assert_eq!(h.texts_containing(Lang::Zh.t(T::LinkDirect)), 1);
    // Were the direct link to close, the seat says the moves come through the relay.
    let peer = mahjong_net::node::peer_id(&SigningKey::from_bytes(&[43; 32]).verifying_key())
        .expect("peer id");
    h.send(Message::Lan(Feed::Net(NetEvent::Link {
        peer,
        link: mahjong_net::Link::Relayed,
    })));
    assert_eq!(h.app.table_state().expect("table").links[bo], Some(false));
    assert!(h.find(Lang::Zh.t(T::LinkRelayed)));
    assert!(!h.find(Lang::Zh.t(T::LinkDirect)));
    let _ = rt.block_on(friend.shutdown());
    // The relay is remembered for the next time the app opens.
    let saved = Settings::load(&h.dir).expect("settings");
    assert_eq!(saved.relay.as_deref(), Some(relay.as_str()));
    let (again, _) = App::new(Flags {
        data_dir: h.dir.clone(),
        lang: None,
        practice: None,
        seed: Some(1),
        think_ms: (0, 0),
    });
    assert_eq!(again.lobby.relay, relay);
    Ok(())
}

/// Four headless bot players on loopback that find each other by address and sit at one
/// table of `hands` hands by themselves (the automatic lobby of `mahjong play --bot`).
fn table_of_four(
    rt: &tokio::runtime::Runtime,
    seed: u8,
    hands: u32,
) -> (Vec<Network>, Vec<String>) {
    let _guard = rt.enter();
    let ports: Vec<u16> = (0..4)
        .map(|_| {
            let l = std::net::TcpListener::bind("127.0.0.1:0").expect("free port");
            l.local_addr().expect("addr").port()
        })
        .collect();
    let addrs: Vec<String> = ports
        .iter()
        .map(|p| format!("/ip4/127.0.0.1/tcp/{p}"))
        .collect();
    let mut nets = Vec::new();
    for i in 0..4 {
        let name = format!("P{i}");
        let settings = node::settings(&name, Ruleset::Qiaoma, Money::coins(1), hands, 0);
        let mut config = NetConfig::new(SigningKey::from_bytes(&[seed + i as u8; 32]), settings);
        config.listen = vec![addrs[i].parse().expect("addr")];
        config.peers = (0..4)
            .filter(|&j| j != i)
            .map(|j| addrs[j].parse().expect("addr"))
            .collect();
        config.mdns = false;
        let (net, mut events) =
            mahjong_net::spawn(config, Box::new(MemoryStorage::new())).expect("spawn");
        // Nobody reads their events here: drain them.
        rt.spawn(async move { while events.recv().await.is_some() {} });
        nets.push(net);
    }
    (nets, addrs)
}

#[test]
fn the_app_watches_a_friends_table_from_the_lobby_and_stops_in_both_languages() -> Result<(), Error>
{
    for (lang, seed) in [(Lang::Zh, 60u8), (Lang::En, 70u8)] {
        let rt = runtime();
        let (nets, addrs) = table_of_four(&rt, seed, 40);
        let mut h = Harness::new(&format!("watch-{seed}"), lang, addrs);
        h.until("a started table", |a| {
            a.lobby
                .tables
                .iter()
                .any(|t| t.state == mahjong_net::TableState::Started)
        });
        assert!(h.find(lang.t(T::TablePlaying)));
        h.click(lang.t(T::WatchTable))?;
        h.until("the watched table", |a| {
            a.watching.is_some()
                && matches!(&a.screen, Screen::Table(t) if t.view.is_some() && t.end.is_none())
        });
        {
            let Screen::Table(t) = &h.app.screen else {
                unreachable!()
            };
            assert!(t.watched && t.is_lan(), "a live table, only looked at");
            let v = t.view.as_ref().expect("a view");
            assert!(
                v.hand.is_empty() && v.legal.is_empty(),
                "no hidden tile, nothing to play"
            );
            assert!(
                v.seats.iter().all(|s| s.hand_size > 0),
                "every seat's tiles counted"
            );
            assert!(t.prompt.is_none());
        }
        let banner = lang.f(
            T::WatchingBanner,
            &[&h.app.watching.clone().unwrap_or_default()],
        );
        assert!(
            h.find(banner.as_str()),
            "the banner says whose table and what is seen"
        );
        assert!(
            !h.find(lang.t(T::You)),
            "nobody at a watched table is 'you'"
        );
        h.click(lang.t(T::StopWatching))?;
        assert!(matches!(h.app.screen, Screen::Lobby), "back in the lobby");
        assert!(h.app.watching.is_none());
        // What the host sent before it heard "stop" is dropped quietly: the host is not
        // taken for a flooder, and the table is still listed to watch again.
        let until = Instant::now() + Duration::from_secs(3);
        while Instant::now() < until {
            if let Ok(f) = h.feeds.recv_timeout(Duration::from_millis(100)) {
                h.send(Message::Lan(f));
            }
        }
        assert!(h.app.lobby.notice.is_none(), "{:?}", h.app.lobby.notice);
        assert!(
            h.find(lang.t(T::WatchTable)),
            "the table can be watched again"
        );
        for n in &nets {
            let _ = rt.block_on(n.shutdown());
        }
        let _ = std::fs::remove_dir_all(&h.dir);
    }
    Ok(())
}
