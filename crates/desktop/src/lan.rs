//! The bridge to the LAN: `mahjong-net`'s event loop on its own thread, behind an iced
//! subscription, feeding the lobby and the very table screen the practice engine feeds.
//!
//! The thread runs a single-threaded tokio runtime (the app itself stays on iced's small
//! thread-pool executor, and no tokio reaches the UI thread). It opens the player's identity
//! key and SQLite store in the app's data dir — the same files `mahjong play --data-dir` uses,
//! so a table left by a crash is resumed by either — and spawns the network with the manual
//! lobby ([`mahjong_net::NetConfig::manual`]): the player lists, opens and takes tables.
//!
//! Out of the thread come [`Feed`]s: first [`Feed::Ready`] with a [`Link`] (where the app sends
//! its [`Request`]s, and the sender the table screen's commands go to), then lobby events as
//! they are ([`Feed::Net`]), and the table session's own feed ([`Feed::Table`], a
//! [`crate::session::Feed`] as the practice engine sends it): the player's view after each
//! change, a hint at each prompt, the hand end with its explanation, where a resumed table
//! stands. One table screen serves both; only the transport differs.
//!
//! `--autoplay` (tests, demos): the lobby joins the first open table or opens one (the
//! automatic lobby of `mahjong play --bot`), the master bot plays the player's seat and accepts
//! the set-up, each hand is printed on standard error as `mahjong play` prints it, and the app
//! quits when the session is over.

use std::path::PathBuf;
use std::sync::OnceLock;
use std::thread;
use std::time::{Duration, Instant};

use ed25519_dalek::VerifyingKey;
use iced::Subscription;
use iced::futures::channel::mpsc as async_mpsc;
use iced::futures::stream::{self, BoxStream, StreamExt};
use mahjong_bot::{Bot, Level};
use mahjong_net::{Advert, NetConfig, NetEvent, TableId, TableSpec, node};
use mahjong_rules::{Money, Outcome, Ruleset};
use mahjong_table::TableEvent;
use tokio::sync::mpsc as tokio_mpsc;

use crate::engine::{self, Update};
use crate::session::Commands;
use crate::watch::Watcher;

/// When the process started (set by [`crate::run`]; the lobby measures "launch to a friend's
/// table" from it).
pub static LAUNCHED: OnceLock<Instant> = OnceLock::new();

/// The automatic play of `--autoplay`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AutoPlay {
    /// Hands in the session.
    pub hands: u32,
    /// Bots at a table this peer opens.
    pub bots: u8,
}

/// How the LAN side is started (the subscription's identity: the same key, the same thread).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LanKey {
    /// Identity, store and logs.
    pub data_dir: PathBuf,
    /// The player's name.
    pub name: String,
    /// Addresses to dial at start (`--peer`).
    pub peers: Vec<String>,
    /// Addresses to listen on (`--listen`; default every IPv4 interface).
    pub listen: Vec<String>,
    /// Find peers by mDNS.
    pub mdns: bool,
    /// Play by itself.
    pub autoplay: Option<AutoPlay>,
}

/// What the app asks of the LAN thread.
#[derive(Clone, Debug)]
pub enum Request {
    /// Open a table.
    Host(Box<TableSpec>),
    /// Take a seat at this table.
    Sit(TableId),
    /// Leave the table hosted or asked for (before it starts).
    Stand,
    /// Fill the hosted table's free seats with bots.
    FillBots,
    /// Dial this address (a multiaddr typed by the player).
    Dial(String),
    /// Accept the host's set-up.
    Accept,
    /// Leave the table once started (declines a set-up not yet agreed).
    Leave,
    /// Meet the friends of a table code at a relay (checked by the lobby already).
    Meet(Box<mahjong_net::Internet>),
    /// Watch a started table (its host serves the signed log).
    Watch(TableId),
    /// Stop watching.
    StopWatching,
    /// Turn this watcher away from the table this player hosts.
    TurnAway(String),
    /// Whether the table this player opens takes watchers, and lets them talk.
    Watchers(mahjong_net::WatchPolicy),
    /// Say a line at the table (table talk, [`crate::screens::talk`]): sent on its own task,
    /// so that no move waits for it; a line not sent comes back as [`Feed::Unsaid`].
    Say(String),
}

/// The app's end of the LAN thread.
#[derive(Clone, Debug)]
pub struct Link {
    tx: tokio_mpsc::UnboundedSender<Request>,
    /// The table screen's command channel (the same type the practice worker hands over).
    pub table: Commands,
    /// The player's identity key (finds the player's seat in an advert).
    pub me: VerifyingKey,
}

impl Link {
    /// Sends a request; false when the LAN thread has stopped.
    pub fn send(&self, request: Request) -> bool {
        self.tx.send(request).is_ok()
    }

    /// A link whose far ends the caller holds (tests stand in for the LAN thread with it).
    pub fn pair(
        me: VerifyingKey,
    ) -> (
        Link,
        tokio_mpsc::UnboundedReceiver<Request>,
        tokio_mpsc::UnboundedReceiver<engine::Command>,
    ) {
        let (tx, rx) = tokio_mpsc::unbounded_channel();
        let (ctx, crx) = tokio_mpsc::unbounded_channel();
        (
            Link {
                tx,
                table: Commands::Lan(ctx),
                me,
            },
            rx,
            crx,
        )
    }
}

/// What the LAN thread tells the app.
#[derive(Clone, Debug)]
pub enum Feed {
    /// Started: where to send requests.
    Ready(Link),
    /// A network event for the lobby (tables, the roster, the proposal, connections).
    Net(NetEvent),
    /// The table session's feed, for the table screen as it is.
    Table(crate::session::Feed),
    /// A request was refused (why, in the network's words).
    Refused(String),
    /// A line of table talk was not sent (why, in the network's words).
    Unsaid(String),
    /// The LAN side cannot run (no identity, no store, no socket).
    Failed(String),
    /// `--autoplay`: the session is over and booked; quit.
    Done,
    /// The players in the lobby (or at the table just begun) who are new to this player or
    /// take a friend's name (sent before the tables they sit at).
    Strangers(Vec<(VerifyingKey, crate::screens::lobby::Stranger)>),
}

/// Who, among the humans of `tables`, is new to this player or takes the name of another
/// friend, as each was before that table (a table just begun has noted its players).
fn strangers(
    store: &mahjong_store::Store,
    me: VerifyingKey,
    tables: &[&mahjong_net::Advert],
) -> Vec<(VerifyingKey, crate::screens::lobby::Stranger)> {
    use crate::screens::lobby::Stranger;
    use mahjong_store::{Fingerprint, Recognition};
    let mut out = Vec::new();
    for a in tables {
        for s in a.seats.iter().flatten().filter(|s| !s.bot && s.peer != me) {
            let fingerprint = Fingerprint::of(&s.key);
            let flag = match store.recognise_before(&s.key, &s.name, Some(&a.table)) {
                Ok(Recognition::Me | Recognition::Known(_)) => continue,
                Ok(Recognition::NameClash { known, .. }) => Stranger::NotTheOne {
                    known: mahjong_store::clean_name(known.shown_name()),
                    fingerprint,
                    known_fingerprint: known.fingerprint(),
                },
                Ok(Recognition::New) | Err(_) => Stranger::New { fingerprint },
            };
            if !out.iter().any(|(k, _)| *k == s.key) {
                out.push((s.key, flag));
            }
        }
    }
    out
}

/// The subscription that runs the LAN side for `key`.
pub fn subscription(key: LanKey) -> Subscription<Feed> {
    Subscription::run_with(key, start)
}

/// Starts the LAN thread for `key`: the stream the subscription runs (tests poll it
/// themselves, as the simulator runs no subscriptions). The thread ends soon after the stream
/// is dropped.
pub fn start(key: &LanKey) -> BoxStream<'static, Feed> {
    let (tx, rx) = async_mpsc::unbounded();
    let key = key.clone();
    let spawned = thread::Builder::new()
        .name("lan".into())
        .spawn(move || run(key, tx));
    match spawned {
        Ok(_) => rx.boxed(),
        Err(e) => {
            stream::once(
                async move { Feed::Failed(format!("cannot start the network thread: {e}")) },
            )
            .boxed()
        }
    }
}

type Out = async_mpsc::UnboundedSender<Feed>;

fn run(key: LanKey, out: Out) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build();
    match runtime {
        Ok(rt) => {
            if let Err(e) = rt.block_on(session(key, out.clone())) {
                let _ = out.unbounded_send(Feed::Failed(e));
            }
        }
        Err(e) => {
            let _ = out.unbounded_send(Feed::Failed(format!("cannot start the runtime: {e}")));
        }
    }
}

fn config(key: &LanKey) -> Result<(NetConfig, mahjong_store::Store), String> {
    let name = mahjong_store::identity::check_name(&key.name).ok();
    let identity = mahjong_store::Identity::load_or_create(&key.data_dir, name.as_deref())
        .map_err(|e| format!("identity key: {e}"))?;
    // A second app on the same data dir has the logger already: not an error.
    let _ = mahjong_store::init_logging(&key.data_dir);
    let storage = mahjong_store::Store::open(&key.data_dir).map_err(|e| format!("store: {e}"))?;
    let (hands, bots) = key.autoplay.as_ref().map_or((8, 0), |a| (a.hands, a.bots));
    let settings = node::settings(&key.name, Ruleset::Qiaoma, Money::coins(1), hands, bots);
    let mut config = NetConfig::new(identity.key, settings);
    for p in &key.peers {
        config.peers.push(
            p.parse()
                .map_err(|e| format!("--peer {p} is not a multiaddr: {e}"))?,
        );
    }
    if !key.listen.is_empty() {
        let mut listen = Vec::new();
        for l in &key.listen {
            listen.push(
                l.parse()
                    .map_err(|e| format!("--listen {l} is not a multiaddr: {e}"))?,
            );
        }
        config.listen = listen;
    }
    config.mdns = key.mdns;
    config.manual = key.autoplay.is_none();
    config.own_bot = key.autoplay.is_some();
    Ok((config, storage))
}

/// What the thread keeps of the table between events.
struct Seen {
    /// The player's seat's hints, proofs and hand ends (as at a practice table).
    watcher: Watcher,
    table: Option<TableId>,
    first_table: bool,
    opened: bool,
}

async fn session(key: LanKey, out: Out) -> Result<(), String> {
    let (config, storage) = config(&key)?;
    let me = config.identity.verifying_key();
    let (network, mut events) =
        mahjong_net::spawn(config, Box::new(storage)).map_err(|e| e.to_string())?;
    // The players this data dir has sat with: who is new, who takes a friend's name.
    let contacts = mahjong_store::Store::open(&key.data_dir).ok();
    let (req_tx, mut requests) = tokio_mpsc::unbounded_channel();
    // The table screen's commands come straight into this loop.
    let (cmd_tx, mut table_cmds) = tokio_mpsc::unbounded_channel();
    let link = Link {
        tx: req_tx,
        table: Commands::Lan(cmd_tx),
        me,
    };
    if out.unbounded_send(Feed::Ready(link)).is_err() {
        return Ok(());
    }
    let autoplay = key.autoplay.clone();
    // No hints when a bot plays the seat anyway; hints come from the master level.
    let advisor = autoplay
        .is_none()
        .then(|| Bot::new(Level::ADVISER, u64::from_le_bytes([7; 8])));
    let mut seen = Seen {
        watcher: Watcher::new(advisor),
        table: None,
        first_table: false,
        opened: false,
    };
    let mut alive = tokio::time::interval(Duration::from_secs(2));
    loop {
        tokio::select! {
            ev = events.recv() => {
                let Some(ev) = ev else {
                    let _ = out.unbounded_send(Feed::Failed("the network stopped".into()));
                    return Ok(());
                };
                let over = matches!(ev, NetEvent::Table(TableEvent::SessionOver { .. }));
                if let Some(store) = &contacts {
                    let tables: Vec<&mahjong_net::Advert> = match &ev {
                        NetEvent::Lobby(tables) => tables.iter().collect(),
                        NetEvent::Began { roster, .. } => vec![&roster.advert],
                        _ => Vec::new(),
                    };
                    if !tables.is_empty() {
                        let _ = out.unbounded_send(Feed::Strangers(strangers(store, me, &tables)));
                    }
                }
                on_event(ev, me, &out, &mut seen, autoplay.as_ref());
                if over && autoplay.is_some() {
                    // Stay a moment so a peer missing one of this seat's last entries can ask.
                    tokio::time::sleep(Duration::from_millis(1500)).await;
                    let _ = network.shutdown().await;
                    let _ = out.unbounded_send(Feed::Done);
                    return Ok(());
                }
            }
            req = requests.recv() => {
                let Some(req) = req else { break };
                if let Request::Say(text) = req {
                    say(&network, text, &out);
                    continue;
                }
                let answer = match req {
                    Request::Host(spec) => why(network.host(*spec).await),
                    Request::Sit(t) => why(network.sit(t).await),
                    Request::Stand => network.stand().await.map(Ok),
                    Request::FillBots => why(network.fill_bots().await),
                    Request::Dial(a) => match a.trim().parse() {
                        Ok(addr) => why(network.dial(addr).await),
                        Err(e) => Ok(Err(format!("{:?} is not a multiaddr: {e}", a.trim()))),
                    },
                    Request::Accept => network.accept().await.map(Ok),
                    Request::Leave => network.leave().await.map(Ok),
                    Request::Meet(internet) => why(network.meet(*internet).await),
                    Request::Watch(t) => why(network.watch(t).await),
                    Request::StopWatching => network.stop_watching().await.map(Ok),
                    Request::Say(_) => Ok(Ok(())),
                    Request::TurnAway(name) => why(network.turn_away(&name).await),
                    Request::Watchers(policy) => network.set_watchers(policy).await.map(Ok),
                };
                match answer {
                    Ok(Ok(())) => {}
                    Ok(Err(why)) => {
                        let _ = out.unbounded_send(Feed::Refused(why));
                    }
                    Err(e) => {
                        let _ = out.unbounded_send(Feed::Failed(e.to_string()));
                        return Ok(());
                    }
                }
            }
            cmd = table_cmds.recv() => {
                // `Next` only closes the settlement on screen: a networked table does not wait.
                if let Some(engine::Command::Act(a)) = cmd
                    && let Err(e) = network.act(a).await
                {
                    let _ = out.unbounded_send(Feed::Failed(e.to_string()));
                    return Ok(());
                }
            }
            _ = alive.tick() => {
                if out.is_closed() {
                    break;
                }
            }
        }
    }
    let _ = network.shutdown().await;
    Ok(())
}

/// Says `text` at the table on a task of its own: the loop goes straight back to the table's
/// events and the player's moves. The line itself comes back as [`NetEvent::Chat`] once sent.
fn say(network: &mahjong_net::Network, text: String, out: &Out) {
    let network = network.clone();
    let out = out.clone();
    tokio::spawn(async move {
        let why = match network.say(&text).await {
            Ok(Ok(())) => return,
            Ok(Err(why)) => why.to_string(),
            Err(e) => e.to_string(),
        };
        let _ = out.unbounded_send(Feed::Unsaid(why));
    });
}

/// A command's refusal as the player is shown it (each concern has its own error type).
fn why<E: std::fmt::Display>(
    answer: Result<Result<(), E>, mahjong_net::NetError>,
) -> Result<Result<(), String>, mahjong_net::NetError> {
    answer.map(|done| done.map_err(|e| e.to_string()))
}

fn on_event(
    ev: NetEvent,
    me: VerifyingKey,
    out: &Out,
    seen: &mut Seen,
    autoplay: Option<&AutoPlay>,
) {
    let table = |u: Update| {
        let _ = out.unbounded_send(Feed::Table(crate::session::Feed::Update(u)));
    };
    match ev {
        NetEvent::View { view, now } => {
            seen.watcher.view(&view);
            table(Update::View { view, now });
        }
        NetEvent::Table(ev) => match ev {
            TableEvent::Proposed(_)
            | TableEvent::SetupAgreed(_)
            | TableEvent::SetupFailed { .. } => {
                let _ = out.unbounded_send(Feed::Net(NetEvent::Table(ev)));
            }
            ev => {
                if let Some(line) = autoplay.and_then(|_| autoplay_line(&ev)) {
                    eprintln!("{line}");
                }
                // The network's storage (`mahjong_store::Store`, the same SQLite store in this data
                // dir) has appended the seat's signed log and booked the hand before the
                // event comes out: the history, its replay and the review (复盘) find it
                // under this table.
                for u in seen.watcher.event(ev, seen.table) {
                    table(u);
                }
            }
        },
        NetEvent::Revealed { hand, hands } => seen.watcher.revealed(hand, *hands),
        NetEvent::Lobby(tables) => {
            if autoplay.is_some() && !seen.opened && tables.iter().any(|a| a.host == me) {
                seen.opened = true;
                eprintln!("lobby: opened a table");
            }
            if tables.iter().any(|a| a.host != me) {
                first_table_seen(seen);
            }
            let _ = out.unbounded_send(Feed::Net(NetEvent::Lobby(tables)));
        }
        NetEvent::Watching { .. } => {
            // A table watched: no hints (nobody here plays), and its hands are not this
            // player's to review (they are not in this player's store).
            seen.watcher = Watcher::new(None);
            seen.table = None;
            let _ = out.unbounded_send(Feed::Net(ev));
        }
        NetEvent::Began { ref roster, .. } | NetEvent::Resumed { ref roster, .. } => {
            seen.table = Some(roster.advert.table);
            // A friend's table taken within one lobby tick of its advert is never listed:
            // sitting at it is seeing it.
            if matches!(ev, NetEvent::Began { .. }) && roster.advert.host != me {
                first_table_seen(seen);
            }
            if autoplay.is_some() {
                eprintln!("table {} full", &node::hex(&roster.advert.table)[..8]);
            }
            let resumed = match ev {
                NetEvent::Resumed { hands, .. } => Some(hands),
                _ => None,
            };
            let _ = out.unbounded_send(Feed::Net(ev));
            // The screen the app opens on it learns where the resumed table stands, as a
            // resumed practice table's does.
            if let Some(hands) = resumed {
                table(Update::Resumed { hands });
            }
        }
        other => {
            let _ = out.unbounded_send(Feed::Net(other));
        }
    }
}

/// The first time a table of another peer is seen: how long after launch (the lobby's
/// figure, printed on standard error).
fn first_table_seen(seen: &mut Seen) {
    if std::mem::replace(&mut seen.first_table, true) {
        return;
    }
    if let Some(t) = LAUNCHED.get() {
        eprintln!(
            "lobby: first table of another peer seen {} ms after launch",
            t.elapsed().as_millis()
        );
    }
}

/// What `--autoplay` prints for an event of the player's seat.
fn autoplay_line(ev: &TableEvent) -> Option<String> {
    match ev {
        TableEvent::HandOver { result, signatures } => Some(hand_line(result, signatures.len())),
        TableEvent::SessionOver { balances } => {
            let b: Vec<String> = balances.iter().map(Money::to_string).collect();
            Some(format!("session over: balances [{}]", b.join(",")))
        }
        _ => None,
    }
}

/// `hand 1/1: seat 2 wins … , payments [-20,60,-20,-20], 4 signatures`.
/// One line for a finished hand (`--autoplay`'s output).
pub fn hand_line(result: &mahjong_table::HandResult, signatures: usize) -> String {
    let what = match &result.outcome {
        Outcome::Win { .. } => mahjong_store::describe(result),
        Outcome::Drawn => "drawn, the wall is empty".to_string(),
        Outcome::Abandoned { leaver, .. } => format!("seat {leaver} left"),
    };
    let p: Vec<String> = result.payments.iter().map(Money::to_string).collect();
    format!(
        "hand {}: {what}, payments [{}], {signatures} signatures",
        result.hand,
        p.join(",")
    )
}

/// The tables a lobby shows: open or started ones, never closed ones, lowest id first.
pub fn shown(tables: &[Advert]) -> Vec<&Advert> {
    tables
        .iter()
        .filter(|a| a.state != mahjong_net::TableState::Closed)
        .collect()
}

/// The command line's LAN choices ([`crate::app::App::connect`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LanOptions {
    /// The player's name from `--name`.
    pub name: Option<String>,
    /// Open the lobby at start.
    pub lobby: bool,
    /// `--peer` addresses.
    pub peers: Vec<String>,
    /// `--listen` addresses.
    pub listen: Vec<String>,
    /// Look for players by mDNS.
    pub mdns: bool,
    /// `--autoplay`.
    pub autoplay: Option<AutoPlay>,
}

impl LanOptions {
    /// From the command line.
    pub fn from_args(args: &crate::cli::Args) -> LanOptions {
        LanOptions {
            name: args.name.clone(),
            lobby: args.lobby,
            peers: args.peers.clone(),
            listen: args.listen.clone(),
            mdns: !args.no_mdns,
            // At a practice table `--autoplay` plays the practice table instead.
            autoplay: (args.autoplay && args.practice.is_none()).then(|| AutoPlay {
                hands: args.hands.unwrap_or(1),
                bots: args.bots.unwrap_or(0),
            }),
        }
    }

    /// Whether the LAN starts with the app (otherwise when the player opens the lobby).
    pub fn at_start(&self) -> bool {
        self.lobby || self.autoplay.is_some() || !self.peers.is_empty()
    }
}

/// Whether the store in `data_dir` holds a table to resume (the LAN then starts with the app).
pub fn table_to_resume(data_dir: &std::path::Path) -> bool {
    if !data_dir.join(mahjong_store::DB_FILE).exists() {
        return false;
    }
    mahjong_store::Store::open(data_dir)
        .and_then(|s| s.unfinished_tables())
        .is_ok_and(|t| !t.is_empty())
}
