//! `mahjong play`: sit at a table on the LAN and play a session.
//!
//! One file on purpose (about 900 lines): the command's flags, its automatic and terminal
//! players and the line it prints for each network event share one session's arguments and
//! event loop.
//!
//! `mahjong play --bot --name NAME --data-dir DIR --hands N [--preset P] [--stake S]
//! [--peer ADDR]… [--wait SECS] [--bots K]` joins the first open table it discovers on the
//! network (mDNS, or the `--peer` addresses) with the same preset, stake and length, or opens
//! one and waits; accepts the set-up; plays N hands with the master bot; and exits 0 once its
//! ledger holds the N final hands. One sentence per hand on standard error (`hand 2/3: South
//! Bo wins with a full flush (清一色) by self-draw; payments: Ann -20, Bo +60, Cy -20, Di
//! -20`, players named as in [`crate::lines`], within 80 columns); on failure one
//! line and a non-zero exit (no table filled within `--wait` seconds, a peer proven at fault, a
//! store error). `--bots K`, at a table this peer opens: K seats are bots, spread over the
//! human peers. A peer restarted with the same data dir resumes its table. One process per
//! data dir: a second `mahjong play` on a data dir in use exits 1 at once with "the data dir
//! DIR is in use by another process (pid N)".
//! `--disconnect-seconds S`: how long a silent seat is waited for before the other three vote
//! it out and a bot run by the next seat's peer takes it (the preset's 180 by default); it is
//! one of the options the peer agrees to, so every peer of a table gives the same value.
//!
//! **What is agreed.** A peer sits only at a table whose advert carries its preset, stake,
//! hands and the hash of its options (the preset's, with `--disconnect-seconds`), and accepts
//! the host's proposal only when it is exactly those; any other proposal is declined with one
//! line (`declined the host's proposal: …`) and nothing is booked.
//!
//! No wait without an end: `--wait` bounds waiting for a table, for a resumed table's other
//! peers to come back (then exit 1: "the resumed table X made no progress within N seconds";
//! the table stays in the store), for a paused table, and for a table this peer follows
//! after a bot took its seat: each step of the others gives it `--wait` seconds more (then
//! exit 1: "the table X made no progress for N seconds while this peer followed it"). A set-up that fails (declined, not
//! answered within `start_seconds`, a seat left) ends that table for every peer and in every
//! store (never resumed); this peer says so, is back in the lobby and opens or joins another
//! table. While it waits for a table it prints every 5 s one `lobby: …` line: each table it
//! sees and why it does not sit there (another preset, stake or length, full, started). A
//! peer that stops at a table (its store fails, Ctrl-C, the player quits) first sends a
//! signed leave, so the others replace its seats at once.
//!
//! Without `--bot` the player at this terminal plays the seat with the screen and prompt of
//! `mahjong solo` (the numbered choices, a tile to discard, `!5m` to declare ready, `h` for
//! a hint, `q` to leave the table; the settlement explained, `--lang en|zh`). The table's
//! timers run as in any seat: standard input is read on its own thread, and when a prompt's
//! time is up the table plays the default action and the prompt is withdrawn (lines typed
//! ahead wait for the next prompt). A proposal that matches the command line's preset,
//! stake, hands and options is accepted; another is declined.
//!
//! Extras for tests and odd networks: `--listen MULTIADDR` (default every IPv4 interface, a
//! free port) and `--no-mdns` (only `--peer`; keeps multicast off a shared host).
//!
//! **Over the internet** (docs/relay.md): `--relay ADDR --code CODE` meets the friends who
//! gave the same code at the relay `mahjong relay` printed ADDR for (`--new-code` instead of
//! `--code` makes a fresh code and prints `table code: ABCD-EFGH` on standard output, to pass
//! on). Only peers with the code sit in its lobby. One line per friend when its link is known
//! and when it goes direct (`link to NAME: through the relay` / `link to NAME: direct`).

use std::path::PathBuf;
use std::time::Duration;

use std::io::Write;

use anyhow::{Context, Result, anyhow, bail};
use clap::Args;
use ed25519_dalek::VerifyingKey;
use mahjong_bot::{Bot, Level};
use mahjong_net::{NetConfig, NetEvent, Network, node};
use mahjong_rules::explain_text::Lang;
use mahjong_rules::view::PublicPhase;
use mahjong_rules::{Money, Ruleset, Seat, SeatView, SessionLength};
use mahjong_table::TableEvent;
use tokio::sync::mpsc;

use crate::flags;
use crate::lines::{self, clean};
use crate::solo::{self, Answer};
use mahjong_relay::libp2p::PeerId;
use mahjong_rules::names::count;

/// Arguments of `mahjong play`.
#[derive(Args, Debug)]
pub struct PlayArgs {
    /// A bot plays this seat (headless).
    #[arg(long)]
    bot: bool,
    /// The player's name shown to the others.
    #[arg(long)]
    name: String,
    /// Where the identity, tables and ledger are kept (default: the platform data dir).
    #[arg(long)]
    data_dir: Option<PathBuf>,
    /// Hands to play.
    #[arg(long, default_value_t = 8)]
    hands: u32,
    /// qiaoma (default), classic or baida.
    #[arg(long, default_value = "qiaoma")]
    preset: String,
    /// Coins per point.
    #[arg(long, default_value = "1")]
    stake: String,
    /// A peer's address to dial (repeatable), e.g. /ip4/10.77.0.2/tcp/4001.
    #[arg(long = "peer")]
    peers: Vec<String>,
    /// Give up when no table has filled after this many seconds.
    #[arg(long, default_value_t = 120)]
    wait: u64,
    /// Seats that are bots at a table this peer opens (0-3).
    #[arg(long, default_value_t = 0)]
    bots: u8,
    /// An address to listen on (repeatable; default /ip4/0.0.0.0/tcp/0).
    #[arg(long)]
    listen: Vec<String>,
    /// The language of the settlement explained at each hand's end (without --bot): en or zh.
    #[arg(long, default_value = "en")]
    lang: String,
    /// Do not use mDNS (only the --peer addresses).
    #[arg(long)]
    no_mdns: bool,
    /// Play over the internet: the relay's address as `mahjong relay` prints it
    /// (/ip4/ADDRESS/tcp/PORT/p2p/PEER_ID, or …/udp/PORT/quic-v1/… to meet and punch over
    /// QUIC); needs --code or --new-code.
    #[arg(long)]
    relay: Option<String>,
    /// The table code the friends share (8 letters, e.g. 7K3M-QX9P; case, dashes and spaces
    /// do not matter).
    #[arg(long, conflicts_with = "new_code")]
    code: Option<String>,
    /// Make a fresh table code, print it (`table code: ABCD-EFGH`) and wait for the friends.
    #[arg(long)]
    new_code: bool,
    /// Seconds a silent seat is waited for before the others replace it by a bot (default:
    /// the preset's, 180); one of the options agreed, so the same at every peer of a table.
    #[arg(long)]
    disconnect_seconds: Option<u32>,
    /// Sit only with players this data dir has sat with before (by key, whatever name they
    /// type) and those named by --friend: a table seating anyone else is neither joined nor
    /// stayed at, and nobody else gets a seat at this peer's own table.
    #[arg(long)]
    only_known: bool,
    /// A friend's fingerprint, the four words their app or terminal shows (e.g. "apple tiger
    /// river lamp", or in 中文), or its 8 hex digits: known from now on (repeatable).
    #[arg(long = "friend", value_name = "FINGERPRINT")]
    friends: Vec<String>,
    /// At a table this peer hosts: nobody may watch it (`mahjong watch` and the app's Watch
    /// are refused).
    #[arg(long)]
    no_watchers: bool,
    /// At a table this peer hosts: watchers may watch but not talk.
    #[arg(long)]
    quiet_watchers: bool,
    /// The hidden `--test-*` flags (the `test-hooks` feature only: the tests' build).
    #[cfg(feature = "test-hooks")]
    #[command(flatten)]
    test: TestFlags,
}

/// The hidden flags of the tests that play an odd or hostile peer through `mahjong play`
/// (the `test-hooks` feature only: the shipped binary has none of them).
#[cfg(feature = "test-hooks")]
#[derive(Args, Debug)]
struct TestFlags {
    /// Tests only (hidden): this peer never accepts a proposal, so its seat's own timer
    /// declines after `start_seconds` (a player who misses the Accept); it never opens a
    /// table itself (a host's proposal is its acceptance), it only joins.
    #[arg(long, hide = true)]
    test_never_accept: bool,
    /// Tests only (hidden): like `--test-never-accept` at the first table only (a player who
    /// misses one Accept, then accepts at the next table).
    #[arg(long, hide = true)]
    test_miss_accept: bool,
    /// Tests only (hidden): a stranger who learnt the table code's namespace (from the relay)
    /// but not the code: it registers and looks up under the namespace, and proves another
    /// code to the peers it meets.
    #[arg(long, hide = true)]
    test_wrong_code_proof: bool,
    /// Tests only (hidden): no hole punching, so the relay carries every link.
    #[arg(long, hide = true)]
    test_no_hole_punching: bool,
}

#[cfg(feature = "test-hooks")]
impl TestFlags {
    /// Sets the test hooks of the network these flags ask for.
    fn apply(&self, config: &mut NetConfig) {
        if let Some(i) = config.internet.as_mut()
            && self.test_wrong_code_proof
        {
            i.proof = mahjong_net::TableCode::generate();
        }
        config.hole_punching = !self.test_no_hole_punching;
        config.never_accept = if self.test_never_accept {
            u32::MAX
        } else {
            u32::from(self.test_miss_accept)
        };
        if self.test_never_accept || self.test_miss_accept {
            config.settings.open_after_ms = u64::MAX / 4;
        }
    }
}

/// Runs the command.
pub fn run(args: PlayArgs) -> Result<()> {
    let preset: Ruleset = args.preset.parse()?;
    let stake = args
        .stake
        .parse::<f64>()
        .ok()
        .and_then(Money::from_f64)
        .filter(|m| m.0 > 0)
        .ok_or_else(|| {
            anyhow!(
                "--stake must be a positive number of coins, got {:?}",
                args.stake
            )
        })?;
    if args.hands == 0 {
        bail!("--hands must be at least 1");
    }
    if args.bots > 3 {
        bail!("--bots must be 0-3, got {}", args.bots);
    }
    if args.disconnect_seconds == Some(0) {
        bail!("--disconnect-seconds must be at least 1");
    }
    let lang: Lang = args.lang.parse().map_err(|e| anyhow!("--lang: {e}"))?;
    let peers = flags::addrs("--peer", &args.peers)?;
    let listen = flags::addrs("--listen", &args.listen)?;
    let internet = internet(&args)?;
    let mut friends = std::collections::BTreeSet::new();
    for f in &args.friends {
        friends.insert(
            mahjong_store::Fingerprint::parse(f).map_err(|e| anyhow!("--friend {f:?}: {e}"))?,
        );
    }
    let data_dir = match &args.data_dir {
        Some(d) => d.clone(),
        None => mahjong_store::default_data_dir(),
    };
    // One process per data dir, before anything in it is opened or any peer dialled; held
    // until this process ends.
    let _lock = mahjong_store::DirLock::acquire(&data_dir)?;
    let identity = mahjong_store::Identity::load_or_create(&data_dir, Some(&args.name))?;
    mahjong_store::init_logging(&data_dir)?;
    let storage = mahjong_store::Store::open(&data_dir)?;
    let identity = identity.key;
    let me = identity.verifying_key();
    let mut settings = node::settings(&args.name, preset, stake, args.hands, args.bots);
    if args.only_known {
        let contacts = mahjong_store::Store::open(&data_dir)?.contacts()?;
        lines::say(&format!(
            "sitting only with the {} this data dir knows and {} named by --friend",
            count(contacts.len() as u64, "player", "players"),
            friends.len()
        ));
        settings.admit = Some(mahjong_net::Admit {
            keys: contacts.iter().map(|c| *c.key.as_bytes()).collect(),
            fingerprints: friends.clone(),
        });
    }
    let mut config = NetConfig::new(identity, settings);
    config.own_bot = args.bot;
    config.peers = peers;
    if !listen.is_empty() {
        config.listen = listen;
    }
    config.mdns = !args.no_mdns;
    config.watchers = mahjong_net::WatchPolicy {
        allow: !args.no_watchers,
        chat: !args.quiet_watchers,
    };
    if let Some(i) = &internet {
        if args.new_code {
            println!("table code: {}", i.code);
            let _ = std::io::stdout().flush();
        }
        lines::say(&format!(
            "table code {}, at the relay {}",
            i.code,
            lines::short_addr(&i.relay.to_string())
        ));
    }
    config.internet = internet;
    config.disconnect_seconds = args.disconnect_seconds;
    #[cfg(feature = "test-hooks")]
    args.test.apply(&mut config);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let human = (!args.bot).then(|| Human::new(me, preset, stake, args.hands, lang));
    let strangers = Strangers::new(mahjong_store::Store::open(&data_dir)?, me, friends);
    rt.block_on(session(config, storage, &data_dir, &args, human, strangers))
}

/// `--relay` with `--code` or `--new-code`, checked before anything is opened.
fn internet(args: &PlayArgs) -> Result<Option<mahjong_net::Internet>> {
    let Some(relay) = &args.relay else {
        if args.code.is_some() || args.new_code {
            bail!("a table code needs --relay ADDRESS: the relay where the friends meet");
        }
        return Ok(None);
    };
    let code = match (&args.code, args.new_code) {
        (Some(c), _) => flags::code(c)?,
        (None, true) => mahjong_net::TableCode::generate(),
        (None, false) => {
            bail!("--relay needs --code CODE (the friends' table code) or --new-code (to make one)")
        }
    };
    Ok(Some(flags::relay(relay, code)?))
}

async fn session(
    config: NetConfig,
    storage: mahjong_store::Store,
    data_dir: &std::path::Path,
    args: &PlayArgs,
    mut human: Option<Human>,
    mut strangers: Strangers,
) -> Result<()> {
    let me = strangers.me;
    let (config_preset, config_stake) = (config.settings.preset, config.settings.stake);
    let (network, mut events) = mahjong_net::spawn(config, Box::new(storage))?;
    // The player's lines come from a thread (a read of the terminal blocks), so the table's
    // timers and the network go on while the prompt waits.
    let mut lines = human.as_ref().map(|_| stdin_lines());
    let mut table: Option<[u8; 32]> = None;
    let mut started = std::time::Instant::now();
    // `--wait` bounds every wait: for a table to fill (again after a failed set-up), for a
    // resumed table's other peers to come back, and for a paused table to go on.
    let mut waiting = Some(Waiting::new(WaitFor::Table, args.wait));
    let mut ours: Vec<Seat> = Vec::new();
    let mut fault: Option<String> = None;
    // Whether this peer stops without leaving its table (it gave up waiting for the others).
    let mut stay = false;
    // Ctrl-C: the peer stops, and at a table it says it leaves (below) so that the others
    // replace its seats at once.
    let interrupted = tokio::signal::ctrl_c();
    tokio::pin!(interrupted);
    // While waiting for a table: what the lobby shows, one line every few seconds.
    let mut lobby: Vec<mahjong_net::Advert> = Vec::new();
    let mut connected = std::collections::HashSet::new();
    let mut lobby_lines = tokio::time::interval(Duration::from_secs(LOBBY_LINE_SECONDS));
    lobby_lines.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    lobby_lines.reset();
    let wanted = (config_preset, config_stake, args.hands);
    let over_internet = args.relay.is_some();
    // The relay, while it is gone and every friend was linked through it: nothing reaches
    // them until it is back, so the table waits for the relay (not for silent seats).
    let mut relay_gone: Option<String> = None;
    // Who sits where, and who each peer is: every line names people, not seats or peer ids.
    let mut people = lines::People::new();
    // Links to peers not yet named (before their adverts came): said once they are.
    let mut unnamed_links: std::collections::HashMap<_, mahjong_net::Link> = Default::default();
    // The people this player muted: their talk is not shown.
    let mut muted = mahjong_store::Muted::load(data_dir);
    let outcome = loop {
        let asking = human.as_ref().and_then(Human::next_alarm);
        let far = tokio::time::Instant::now() + Duration::from_secs(3600);
        let ev = tokio::select! {
            ev = events.recv() => ev,
            line = next_line(&mut lines), if asking.is_some() && lines.is_some() => {
                if let Some(h) = human.as_mut() {
                    match line {
                        Some(line) => h.typed(&line, &network).await?,
                        None => {
                            lines = None;
                            println!("\n(end of input: the table's timers play for you)");
                        }
                    }
                }
                continue;
            }
            _ = tokio::time::sleep_until(asking.unwrap_or(far)), if asking.is_some() => {
                if let Some(h) = human.as_mut() {
                    h.alarm();
                }
                continue;
            }
            _ = &mut interrupted => {
                break Err(match table {
                    Some(t) => anyhow!(
                        "interrupted: this peer left table {} (a bot plays its seat)",
                        &node::hex(&t)[..8]
                    ),
                    None => anyhow!("interrupted"),
                });
            }
            _ = lobby_lines.tick(), if waiting.as_ref().is_some_and(|w| w.what == WaitFor::Table) => {
                for line in lobby_lines_now(&lobby, &me, wanted, connected.len()) {
                    lines::say(&line);
                }
                continue;
            }
            _ = tokio::time::sleep_until(waiting.as_ref().map_or(far, |w| w.until)), if waiting.is_some() => {
                let what = waiting.as_ref().map_or(WaitFor::Table, |w| w.what);
                // Nobody to tell: the table stays in the store, to be resumed later.
                stay = what != WaitFor::Table;
                if what == WaitFor::Relay && table.is_some() {
                    // Every friend was linked through the relay: each of them ends the
                    // table here alike, so every ledger holds the same final hands.
                    if let Ok(Err(e)) = network.end_table().await {
                        lines::say(&format!("cannot mark the table ended in the store: {e}"));
                    }
                }
                let id = table.as_ref().map_or_else(String::new, lines::table_id);
                break Err(match what {
                    WaitFor::Table => anyhow!("no table filled within {} seconds", args.wait),
                    WaitFor::Resume => anyhow!(
                        "the resumed table {id} made no progress within {} seconds: its other players did not come back",
                        args.wait
                    ),
                    WaitFor::Following => {
                        let booked = booked(data_dir, table.as_ref()).unwrap_or(0);
                        anyhow!(
                            "the table {id} made no progress for {} seconds while this peer \
                             followed it: the others stopped before this peer had every hand \
                             ({booked} of {} booked here)",
                            args.wait,
                            args.hands
                        )
                    }
                    WaitFor::Paused => anyhow!(
                        "the table {id} stayed paused for {} seconds: two or more seats are silent",
                        args.wait
                    ),
                    WaitFor::Relay if table.is_some() => anyhow!(
                        "the relay {} did not come back within {} seconds: the table {id} ends \
                         here unfinished (the hands booked stay booked, as in every friend's ledger)",
                        relay_gone.as_deref().unwrap_or("?"),
                        args.wait
                    ),
                    WaitFor::Relay => anyhow!(
                        "the relay {} did not come back within {} seconds",
                        relay_gone.as_deref().unwrap_or("?"),
                        args.wait
                    ),
                });
            }
        };
        let Some(ev) = ev else {
            break Err(anyhow!("the network stopped"));
        };
        if let NetEvent::Table(TableEvent::HandStarted { dealer, .. }) = &ev {
            people.dealer = Some(*dealer);
        }
        if let (Some(h), NetEvent::Table(t)) = (human.as_mut(), &ev) {
            h.table_event(t, &network).await?;
        }
        if let Some(w) = waiting.as_mut()
            && matches!(w.what, WaitFor::Resume | WaitFor::Following)
            && let NetEvent::Table(t) = &ev
            && others_spoke(t, &ours)
        {
            if w.what == WaitFor::Following {
                // A follower has no seat of its own to keep the table going: every step the
                // others take gives it --wait seconds more, and the end of the session ends
                // the wait.
                *w = Waiting::new(WaitFor::Following, args.wait);
            } else {
                waiting = None;
            }
        }
        match ev {
            // The address to give friends as --peer (the peer id is not needed to dial).
            NetEvent::Listening(a) => {
                let a = a.to_string();
                let dial = a.split("/p2p/").next().unwrap_or(&a);
                lines::say(&format!("listening on {dial}"));
            }
            NetEvent::RelayReserved(a) => {
                if let Some(relay) = relay_gone.take() {
                    lines::say(&format!("the relay {relay} is back: the table goes on"));
                    if waiting.as_ref().is_some_and(|w| w.what == WaitFor::Relay) {
                        waiting =
                            (table.is_none()).then(|| Waiting::new(WaitFor::Table, args.wait));
                    }
                }
                lines::say(&format!(
                    "reachable through the relay {}",
                    lines::short_addr(&a.to_string())
                ));
            }
            NetEvent::RelayLost { relay, direct: 0 } => {
                let relay = lines::short_addr(&relay.to_string());
                lines::say(&format!(
                    "the relay {relay} is gone; every friend was linked through it; waiting {} s for it",
                    args.wait
                ));
                relay_gone = Some(relay);
                waiting = Some(Waiting::new(WaitFor::Relay, args.wait));
            }
            NetEvent::RelayLost { relay, direct } => lines::say(&format!(
                "lost the relay {}: redialling it ({} go{} on)",
                lines::short_addr(&relay.to_string()),
                count(direct as u64, "direct link", "direct links"),
                if direct == 1 { "es" } else { "" }
            )),
            NetEvent::Link { peer, link } if over_internet => {
                if people.knows(&peer) {
                    lines::say(&link_line(&people, &peer, link));
                } else {
                    unnamed_links.insert(peer, link);
                }
            }
            NetEvent::Lobby(tables) => {
                for a in &tables {
                    people.learn(&a.seats);
                }
                say_named_links(&people, &mut unnamed_links);
                for line in strangers.lobby(&tables, wanted) {
                    lines::say(&line);
                }
                lobby = tables;
            }
            NetEvent::Connected(p) => {
                connected.insert(p);
            }
            NetEvent::Disconnected(p) => {
                connected.remove(&p);
            }
            NetEvent::Incompatible { peer, theirs } => lines::say(&format!(
                "{} speaks {theirs}, this peer speaks {}: both must run the same \
                 version of mahjong",
                people.peer(&peer),
                mahjong_net::PROTOCOL_VERSION
            )),
            NetEvent::Misbehaved { peer, why } => {
                lines::say(&format!("{} was disconnected: {why}", people.peer(&peer)))
            }
            NetEvent::Declined { why } => {
                lines::say(&format!("declined the host's proposal: {why}"))
            }
            NetEvent::Began { roster, seats } => {
                waiting = None;
                ours = seats.clone();
                if let Some(h) = human.as_mut() {
                    h.seated(&roster);
                }
                table = Some(roster.advert.table);
                people.seat(&roster.advert.seats, human.as_ref().and_then(|h| h.me));
                say_named_links(&people, &mut unnamed_links);
                lines::say(&format!(
                    "table {} full after {:.1} s; this peer plays {}",
                    lines::table_id(&roster.advert.table),
                    started.elapsed().as_secs_f64(),
                    people.ours(&seats)
                ));
                lines::say(&format!("seats: {}", people.roster(roster.host_seat)));
                for line in strangers.seated(&roster) {
                    lines::say(&line);
                }
            }
            NetEvent::Resumed { roster, hands } => {
                // Resumed, not yet playing: the others must come back within --wait.
                waiting = Some(Waiting::new(WaitFor::Resume, args.wait));
                ours = roster.verify().map_or_else(
                    |_| Vec::new(),
                    |seats| (0..4u8).filter(|&i| seats[i as usize].peer == me).collect(),
                );
                if let Some(h) = human.as_mut() {
                    h.seated(&roster);
                }
                table = Some(roster.advert.table);
                people.seat(&roster.advert.seats, human.as_ref().and_then(|h| h.me));
                lines::say(&format!(
                    "resuming table {} after {}",
                    lines::table_id(&roster.advert.table),
                    count(hands, "final hand", "final hands"),
                ));
                lines::say(&format!("seats: {}", people.roster(roster.host_seat)));
            }
            NetEvent::Table(TableEvent::SetupAgreed(p)) => lines::say(&format!(
                "set-up agreed: {}",
                lines::terms(p.preset, p.stake, p.length)
            )),
            NetEvent::Table(TableEvent::HandOver { result, signatures }) => {
                lines::say(&people.hand(&result, args.hands, signatures.len()));
            }
            NetEvent::Table(TableEvent::Evidence(e)) => {
                let who = e
                    .verify()
                    .map(|c| format!("{} is proven at fault: {}", people.of(c.seat), c.offence))
                    .unwrap_or_else(|err| format!("evidence that does not verify: {err}"));
                lines::say(&who);
                fault.get_or_insert(who);
            }
            // While the relay is gone every friend is silent: the relay is what is waited for.
            NetEvent::Table(TableEvent::SeatSilent { .. } | TableEvent::Paused { .. })
                if relay_gone.is_some() => {}
            NetEvent::Table(TableEvent::SeatSilent { seat }) => {
                lines::say(&format!("{} is silent", people.of(seat)));
            }
            NetEvent::Table(TableEvent::SeatReplaced { seat, controller }) => {
                let runs = if ours.contains(&controller) {
                    "this peer".to_string()
                } else {
                    format!("{}'s peer", people.named(controller, None))
                };
                lines::say(&format!(
                    "{} is replaced by a bot, run by {runs}",
                    people.of(seat)
                ));
            }
            NetEvent::Table(TableEvent::SetupFailed { seat }) => {
                // The table is over for everyone at it (and in the store: never resumed);
                // the network goes back to the lobby, and so does this command.
                lines::say(&format!(
                    "the set-up failed: {} declined or never answered; back in the lobby",
                    people.of(seat)
                ));
                table = None;
                ours.clear();
                lobby.clear();
                lobby_lines.reset();
                started = std::time::Instant::now();
                waiting = Some(Waiting::new(WaitFor::Table, args.wait));
            }
            NetEvent::Table(TableEvent::Paused { silent }) => {
                lines::say(&format!(
                    "the table is paused: {} are silent",
                    people.list(&silent)
                ));
                waiting = Some(Waiting::new(WaitFor::Paused, args.wait));
            }
            NetEvent::Table(TableEvent::Resumed) => {
                lines::say("the table goes on");
                waiting = None;
            }
            NetEvent::Table(TableEvent::Halted { reason }) => {
                break Err(anyhow!("the table halted: {reason}"));
            }
            NetEvent::Following { seat, hands } => {
                // Its seat was given to a bot while it was away: it watches the rest of the
                // session and books every hand as the others do (exit 0 at the end).
                lines::say(&format!(
                    "{}'s seat was given to a bot while this peer was away ({}, the one it \
                     left included): following the session to its end",
                    people.named(seat, None),
                    count(hands, "final hand", "final hands")
                ));
                // The others must still be playing: bounded by --wait like a resume, and
                // every --wait seconds after that in which nobody takes a step.
                waiting = Some(Waiting::new(WaitFor::Following, args.wait));
            }
            NetEvent::Table(TableEvent::Left) => {
                break Err(anyhow!("this seat left the table: a bot plays it now"));
            }
            NetEvent::Table(TableEvent::SessionOver { balances }) => {
                let booked = booked(data_dir, table.as_ref())?;
                if let Some(f) = fault {
                    break Err(anyhow!("{f}"));
                }
                if booked < args.hands {
                    break Err(anyhow!(
                        "the session ended after {booked} of {} hands",
                        args.hands
                    ));
                }
                lines::say(&format!("session over: {}", people.money(&balances)));
                break Ok(());
            }
            NetEvent::Watchers { names, chat } => lines::say(&format!(
                "watching now: {}{}",
                if names.is_empty() {
                    "nobody".to_string()
                } else {
                    lines::and_list(&names)
                },
                if chat {
                    ""
                } else {
                    " (watchers may not talk here)"
                }
            )),
            NetEvent::Chat {
                name,
                from,
                text,
                watcher,
            } => {
                muted.heard_from(&name, &from);
                if !muted.is_muted(&from) {
                    let who = if watcher {
                        format!("{name} (watching)")
                    } else {
                        name
                    };
                    lines::say(&format!("{who}: {text}"));
                }
            }
            NetEvent::Fatal(why) => break Err(anyhow!("{why}")),
            _ => {}
        }
    };
    if outcome.is_ok() {
        // Stay a moment so that a peer still missing one of this seat's last entries can ask.
        tokio::time::sleep(Duration::from_millis(1500)).await;
        if let Ok(t) = network.traffic().await {
            lines::say(&format!(
                "traffic: {} messages, {} bytes sent",
                t.messages_out, t.bytes_out
            ));
            lines::say(&format!(
                "traffic: {} messages, {} bytes received",
                t.messages_in, t.bytes_in
            ));
        }
    }
    // A peer that stops mid-table (an error, the player quit) says so with a signed leave, so
    // the others replace its seats at once; after the session nothing is left.
    let _ = if stay {
        network.shutdown().await
    } else {
        network.quit().await
    };
    outcome
}

/// `link to Bo: direct`.
fn link_line(people: &lines::People, peer: &PeerId, link: mahjong_net::Link) -> String {
    let how = match link {
        mahjong_net::Link::Direct => "direct",
        mahjong_net::Link::Relayed => "through the relay",
    };
    format!("link to {}: {how}", people.peer(peer))
}

/// Says the links of the peers whose names just became known.
fn say_named_links(
    people: &lines::People,
    unnamed: &mut std::collections::HashMap<PeerId, mahjong_net::Link>,
) {
    let named: Vec<PeerId> = unnamed
        .keys()
        .filter(|p| people.knows(p))
        .copied()
        .collect();
    for peer in named {
        if let Some(link) = unnamed.remove(&peer) {
            lines::say(&link_line(people, &peer, link));
        }
    }
}

/// Who is new and who takes a friend's name, said once each (in the lobby, at the table).
struct Strangers {
    store: mahjong_store::Store,
    me: VerifyingKey,
    /// Fingerprints named by `--friend`.
    friends: std::collections::BTreeSet<mahjong_store::Fingerprint>,
    /// (key, name) pairs already flagged, and tables already said filled.
    said: std::collections::HashSet<([u8; 32], String)>,
}

impl Strangers {
    fn new(
        store: mahjong_store::Store,
        me: VerifyingKey,
        friends: std::collections::BTreeSet<mahjong_store::Fingerprint>,
    ) -> Strangers {
        Strangers {
            store,
            me,
            friends,
            said: Default::default(),
        }
    }

    /// What the player of `key`, named `name`, is to this player: `None` when known (or
    /// named by `--friend`), else why not, in a few words.
    fn flag(&self, key: &VerifyingKey, name: &str, table: Option<&[u8; 32]>) -> Option<String> {
        use mahjong_store::{Fingerprint, Recognition};
        let fp = Fingerprint::of(key);
        match self.store.recognise_before(key, &clean(name), table) {
            Ok(Recognition::Me | Recognition::Known(_)) => None,
            Ok(Recognition::NameClash { known, .. }) => Some(format!(
                "is not the {} you know: fingerprint {fp}, yours is {}",
                clean(known.shown_name()),
                known.fingerprint()
            )),
            Ok(Recognition::New) if self.friends.contains(&fp) => None,
            Ok(Recognition::New) => Some(format!("is new: fingerprint {fp}")),
            Err(e) => Some(format!("cannot be looked up ({e}): fingerprint {fp}")),
        }
    }

    /// Lines for the players in the lobby not flagged yet, and for a table that fits this
    /// peer and filled with a player it does not know.
    fn lobby(
        &mut self,
        tables: &[mahjong_net::Advert],
        (preset, stake, hands): (Ruleset, Money, u32),
    ) -> Vec<String> {
        let mut lines = Vec::new();
        for a in tables {
            let mine = a.seats.iter().flatten().any(|s| s.peer == self.me);
            let mut unknown = Vec::new();
            for s in a
                .seats
                .iter()
                .flatten()
                .filter(|s| !s.bot && s.peer != self.me)
            {
                let Some(flag) = self.flag(&s.key, &s.name, None) else {
                    continue;
                };
                unknown.push(format!(
                    "{} ({})",
                    clean(&s.name),
                    mahjong_store::Fingerprint::of(&s.key)
                ));
                if self.said.insert((*s.key.as_bytes(), s.name.clone())) {
                    lines.push(format!(
                        "\"{}\" at \"{}\" {flag}",
                        clean(&s.name),
                        clean(&a.name)
                    ));
                }
            }
            let fits = a.preset == preset && a.stake == stake && a.hands == hands;
            let filled = a.state == mahjong_net::TableState::Started
                || (a.state == mahjong_net::TableState::Open && a.free() == 0);
            if fits
                && filled
                && !mine
                && !unknown.is_empty()
                && self.said.insert((a.table, String::new()))
            {
                lines.push(format!(
                    "the table \"{}\" filled with a player you do not know: {}",
                    clean(&a.name),
                    unknown.join(", ")
                ));
            }
        }
        lines
    }

    /// Lines for the players of the table just begun that are new or take a friend's name.
    fn seated(&mut self, roster: &mahjong_net::Roster) -> Vec<String> {
        roster
            .advert
            .seats
            .iter()
            .filter_map(|s| {
                let s = s.as_ref().filter(|s| !s.bot && s.peer != self.me)?;
                let flag = self.flag(&s.key, &s.name, Some(&roster.advert.table))?;
                Some(format!("\"{}\" {flag}", clean(&s.name)))
            })
            .collect()
    }
}

/// How often a peer waiting for a table says what it sees in the lobby.
const LOBBY_LINE_SECONDS: u64 = 5;

/// What a peer waiting for a table sees, a few lines each starting `lobby: `: what it waits
/// for, then every table it knows and why it does not sit there (another preset, stake or
/// length, full, started), or how far it filled.
fn lobby_lines_now(
    tables: &[mahjong_net::Advert],
    me: &VerifyingKey,
    (preset, stake, hands): (Ruleset, Money, u32),
    peers: usize,
) -> Vec<String> {
    let mut out = vec![format!(
        "lobby: waiting for {preset}, stake {stake}, {}; {} connected{}",
        count(hands, "hand", "hands"),
        count(peers as u64, "peer", "peers"),
        if tables.is_empty() {
            "; no table seen"
        } else {
            ""
        }
    )];
    for a in tables {
        let need = 4 - usize::from(a.bots.min(3));
        let seated = format!("{} of {need} players seated", a.humans());
        let mut why = Vec::new();
        if a.host == *me {
            why.push(format!("this peer's, {seated}"));
        } else {
            match a.state {
                mahjong_net::TableState::Open => {}
                mahjong_net::TableState::Started => why.push("started".to_string()),
                mahjong_net::TableState::Closed => why.push("closed".to_string()),
            }
            if a.preset != preset {
                why.push(format!("another preset: {}", a.preset));
            }
            if a.stake != stake {
                why.push(format!("another stake: {}", a.stake));
            }
            if a.hands != hands {
                why.push(format!(
                    "another length: {}",
                    count(a.hands, "hand", "hands")
                ));
            }
            if a.state == mahjong_net::TableState::Open && a.free() == 0 {
                why.push("full".to_string());
            }
            if why.is_empty() {
                why.push(format!("fits, {seated}"));
            }
        }
        out.push(format!("lobby: \"{}\": {}", clean(&a.name), why.join(", ")));
    }
    out
}

/// The hands of `table` booked in the ledger at `data_dir` (none without a table).
fn booked(data_dir: &std::path::Path, table: Option<&[u8; 32]>) -> Result<u32> {
    Ok(match table {
        Some(t) => mahjong_store::Store::open(data_dir)?.ledger_of(t)?.len() as u32,
        None => 0,
    })
}

/// What `mahjong play` waits for, at most `--wait` seconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum WaitFor {
    /// A table to fill.
    Table,
    /// A resumed table's other peers.
    Resume,
    /// The next step of a table this peer follows after a bot took its seat.
    Following,
    /// A paused table to go on.
    Paused,
    /// The relay every friend was linked through to come back.
    Relay,
}

struct Waiting {
    what: WaitFor,
    until: tokio::time::Instant,
}

impl Waiting {
    fn new(what: WaitFor, secs: u64) -> Waiting {
        Waiting {
            what,
            until: tokio::time::Instant::now() + Duration::from_secs(secs),
        }
    }
}

/// Whether a table event shows a seat of another peer speaking (a resumed table is
/// making progress): the set-up agreed, a hand dealt or final, another peer's move.
fn others_spoke(ev: &TableEvent, ours: &[Seat]) -> bool {
    match ev {
        TableEvent::SetupAgreed(_)
        | TableEvent::HandStarted { .. }
        | TableEvent::HandOver { .. }
        | TableEvent::SeatReturned { .. }
        | TableEvent::SessionOver { .. } => true,
        TableEvent::Moved { mv, .. } => !ours.contains(&mv.seat),
        _ => false,
    }
}

// ---- the player at this terminal (without --bot) ----

/// Lines typed on standard input, read on their own thread; the channel closes at the end
/// of input.
pub(crate) fn stdin_lines() -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel(64);
    std::thread::spawn(move || {
        let stdin = std::io::stdin();
        let mut line = String::new();
        loop {
            line.clear();
            match std::io::BufRead::read_line(&mut stdin.lock(), &mut line) {
                Ok(0) | Err(_) => return,
                Ok(_) => {
                    if tx.blocking_send(line.clone()).is_err() {
                        return;
                    }
                }
            }
        }
    });
    rx
}

async fn next_line(lines: &mut Option<mpsc::Receiver<String>>) -> Option<String> {
    match lines {
        Some(rx) => rx.recv().await,
        None => None,
    }
}

/// A question on the screen: the view it was asked on, the order of its numbered choices,
/// and when the table's own timer plays for the player.
struct Prompt {
    view: Box<SeatView>,
    order: Vec<usize>,
    until: tokio::time::Instant,
    /// Whether the last seconds were announced.
    warned: bool,
}

/// Seconds before the table plays for the player at which the prompt says so.
const LAST_SECONDS: u64 = 5;

/// The player at this terminal: the `solo` screen and prompt over a networked table. The
/// table's timers run on as in any seat: at zero the client plays the default action (a
/// discard of the drawn tile, a pass) and the prompt is withdrawn.
struct Human {
    me_key: VerifyingKey,
    me: Option<Seat>,
    hint: Bot,
    prompt: Option<Prompt>,
    /// What the roster says the table plays for (the lobby matched it to the command line).
    terms: Option<mahjong_net::wire::Terms>,
    preset: Ruleset,
    stake: Money,
    hands: u32,
    lang: Lang,
    /// The players' names from the roster, with the winds of the current hand.
    names: solo::Names,
    /// The claim this player made in the open window, to say so when another beats it.
    claimed: Option<mahjong_rules::Action>,
}

impl Human {
    fn new(me_key: VerifyingKey, preset: Ruleset, stake: Money, hands: u32, lang: Lang) -> Human {
        let seed = u64::from_le_bytes(me_key.as_bytes()[..8].try_into().unwrap_or([0; 8]));
        Human {
            me_key,
            me: None,
            hint: Bot::new(Level::ADVISER, seed),
            prompt: None,
            terms: None,
            preset,
            stake,
            hands,
            lang,
            names: solo::Names::new(Default::default()),
            claimed: None,
        }
    }

    /// The roster is known: find this player's seat.
    fn seated(&mut self, roster: &mahjong_net::Roster) {
        self.terms = Some(roster.advert.terms());
        if let Ok(seats) = roster.verify() {
            self.me = seats
                .iter()
                .position(|s| s.peer == self.me_key && !s.bot)
                .map(|i| i as Seat);
        }
        self.names = solo::Names::new([0usize, 1, 2, 3].map(|s| {
            if Some(s as Seat) == self.me {
                return "you".to_string();
            }
            roster.advert.seats[s]
                .as_ref()
                .map(|i| clean(&i.name))
                .unwrap_or_default()
        }));
        if self.me.is_some() {
            println!(
                "You are seated. Each hand's dealer is East, and the winds turn with the deal.\n\
                 Type the number of an action, a tile to discard (5m), !5m to discard it and\n\
                 declare ready (敲), h for a hint, q to leave the table, : and a line to say\n\
                 it at the table, or /away NAME to turn a watcher away (at your own table)."
            );
        }
    }

    async fn table_event(&mut self, ev: &TableEvent, network: &Network) -> Result<()> {
        let mut out = std::io::stdout().lock();
        match ev {
            TableEvent::Proposed(p) => {
                // The set-up asked for on the command line is accepted; another one is
                // declined (leaving the table before it starts).
                let agreed = self
                    .terms
                    .ok_or_else(|| "no roster yet".to_string())
                    .and_then(|t| t.check(p).map_err(|e| e.to_string()));
                let fits = p.preset == self.preset
                    && p.stake == self.stake
                    && p.length == SessionLength::Hands(self.hands)
                    && agreed.is_ok();
                if fits {
                    solo::say(
                        &mut out,
                        &format!(
                            "The host proposes {}: accepted.",
                            lines::terms(p.preset, p.stake, p.length)
                        ),
                    )?;
                    network.accept().await?;
                } else {
                    solo::say(
                        &mut out,
                        &format!(
                            "The host proposes {}: not what you asked for ({}), declined.",
                            lines::terms(p.preset, p.stake, p.length),
                            agreed
                                .err()
                                .unwrap_or_else(|| "preset, stake or hands differ".into())
                        ),
                    )?;
                    network.leave().await?;
                }
            }
            TableEvent::HandStarted {
                hand,
                dice,
                dealer,
                huangfan,
                ..
            } => {
                self.prompt = None;
                let counter = huangfan + dice.huangfan_bonus();
                self.names.dealer = *dealer;
                writeln!(out)?;
                solo::say(
                    &mut out,
                    &solo::hand_header(*hand, &self.names, *dice, counter),
                )?;
            }
            TableEvent::Moved { mv, events } => {
                if let Some(me) = self.me {
                    if mv.seat == me && self.prompt.take().is_some() {
                        writeln!(out, "  (time is up: the table played for you)")?;
                    }
                    solo::announce(events, me, &self.names, &|_| None, &mut out)?;
                    if let Some(line) = solo::claim_lost(&mut self.claimed, events, me, &self.names)
                    {
                        solo::say(&mut out, &line)?;
                    }
                }
            }
            // A forced move (a flower, the only answer, the drawn tile after 敲) is never
            // asked: the seat host plays it.
            TableEvent::YourTurn { view, .. } => {
                let claim = matches!(
                    view.phase,
                    PublicPhase::Claims { .. } | PublicPhase::RobKong { .. }
                );
                let secs = if claim {
                    view.options.claim_seconds
                } else {
                    view.options.discard_seconds
                };
                let order = solo::show_choices(view, &self.names, &mut out)?;
                write!(out, "({secs} s) > ")?;
                out.flush()?;
                self.prompt = Some(Prompt {
                    view: view.clone(),
                    order,
                    until: tokio::time::Instant::now() + Duration::from_secs(u64::from(secs)),
                    warned: u64::from(secs) <= LAST_SECONDS,
                });
            }
            TableEvent::HandOver { result, .. } => {
                self.prompt = None;
                if let Some(setup) = &result.setup {
                    solo::report(
                        &result.outcome,
                        &result.payments,
                        setup,
                        setup.huangfan_in_force(),
                        (self.lang, &self.names),
                        &mut out,
                    )?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// A line typed while a prompt is on the screen.
    async fn typed(&mut self, line: &str, network: &Network) -> Result<()> {
        let Some(p) = self.prompt.as_ref() else {
            return Ok(());
        };
        // `/away NAME` turns a watcher away (at a table this peer hosts); the prompt stays.
        if let Some(name) = line.trim_start().strip_prefix("/away ") {
            let done = network.turn_away(name.trim()).await?;
            let mut out = std::io::stdout().lock();
            match done {
                Ok(()) => writeln!(out, "{} may not watch this table any more", name.trim())?,
                Err(why) => writeln!(out, "({why})")?,
            }
            write!(out, "> ")?;
            out.flush()?;
            return Ok(());
        }
        // `: text` says a line at the table; the prompt stays.
        if let Some(text) = line.trim_start().strip_prefix(':') {
            let said = network.say(text.trim()).await?;
            let mut out = std::io::stdout().lock();
            if let Err(why) = said {
                writeln!(out, "(not said: {why})")?;
            }
            write!(out, "> ")?;
            out.flush()?;
            return Ok(());
        }
        let mut out = std::io::stdout().lock();
        match solo::answer(&p.view, &p.order, line, &mut self.hint, &mut out)? {
            Answer::Act(a) => {
                self.prompt = None;
                self.claimed = solo::is_claim(&a).then(|| a.clone());
                network.act(a).await?;
            }
            Answer::Quit => {
                self.prompt = None;
                writeln!(out, "Leaving the table: a bot takes your seat.")?;
                network.leave().await?;
            }
            Answer::Again => {
                write!(out, "> ")?;
                out.flush()?;
            }
        }
        Ok(())
    }

    /// When the prompt next speaks by itself: the last seconds, then the end of the time.
    fn next_alarm(&self) -> Option<tokio::time::Instant> {
        let p = self.prompt.as_ref()?;
        Some(if p.warned {
            p.until
        } else {
            p.until - Duration::from_secs(LAST_SECONDS)
        })
    }

    /// The prompt's timer counts down: "5 s left", then the table plays for the player.
    fn alarm(&mut self) {
        let Some(p) = self.prompt.as_mut() else {
            return;
        };
        if !p.warned {
            p.warned = true;
            print!("\n  ({LAST_SECONDS} s left) > ");
            let _ = std::io::stdout().flush();
            return;
        }
        self.prompt = None;
        println!("\n  (time is up: the table plays for you)");
    }
}

#[cfg(test)]
mod tests {
    use super::clean;

    #[test]
    fn names_are_shown_without_control_characters_and_at_most_32_characters() {
        assert!(
            !clean("Ann\u{1b}[2J\r\nBob\u{7}\u{202e}")
                .contains(|c: char| c.is_control() || c == '\u{202e}')
        );
        assert_eq!(clean("张三"), "张三");
        assert_eq!(clean(&"x".repeat(100)).chars().count(), 32);
    }
}
