//! `mahjong watch`: watch a table on the LAN (or through a relay with its code) without a
//! seat: every public move and each hand's end with all hands face up, checked as a seat
//! checks them (docs/watching.md), on standard output (`--json`: one object a line). Exits 0
//! when the session ends; otherwise one `mahjong: …` line on standard error, exit 1.
//!
//! A line typed while watching is said at the table (when its host lets watchers talk);
//! `/mute NAME` and `/unmute NAME` hide or show a person's lines (remembered in the data dir).

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result, anyhow, bail};
use clap::Args;
use mahjong_net::{NetConfig, NetEvent, WatchTarget, node};
use mahjong_rules::names::count;
use mahjong_table::TableEvent;
use serde_json::json;

use crate::flags;
use crate::lines;
use crate::solo;

/// Arguments of `mahjong watch`.
#[derive(Args, Debug)]
pub struct WatchArgs {
    /// A peer's address to dial (repeatable), e.g. /ip4/10.77.0.2/tcp/4001.
    #[arg(long = "peer")]
    peers: Vec<String>,
    /// Do not use mDNS (only the --peer addresses).
    #[arg(long)]
    no_mdns: bool,
    /// An address to listen on (repeatable; default /ip4/0.0.0.0/tcp/0).
    #[arg(long)]
    listen: Vec<String>,
    /// Watch over the internet: the relay's address as `mahjong relay` prints it; needs
    /// --code.
    #[arg(long, requires = "code")]
    relay: Option<String>,
    /// The table code the players share.
    #[arg(long, requires = "relay")]
    code: Option<String>,
    /// The table to watch: its id or the first hex digits of it (default: the first started
    /// table found).
    #[arg(long)]
    table: Option<String>,
    /// One JSON object per line instead of sentences.
    #[arg(long)]
    json: bool,
    /// The name the players see this watcher by (default: the data dir's player name).
    #[arg(long)]
    name: Option<String>,
    /// Where the identity is kept (default: the platform data dir).
    #[arg(long)]
    data_dir: Option<PathBuf>,
    /// Give up when no table to watch is found after this many seconds.
    #[arg(long, default_value_t = 120)]
    wait: u64,
}

/// A seat nobody watching plays (no line says "you").
const NOBODY: mahjong_rules::Seat = 4;

/// Runs the command.
pub fn run(args: WatchArgs) -> Result<()> {
    if let Some(t) = &args.table
        && (t.is_empty() || t.len() > 64 || !t.chars().all(|c| c.is_ascii_hexdigit()))
    {
        bail!("--table {t:?} is not a table id (hex digits, as `mahjong play` prints it)");
    }
    let peers = flags::addrs("--peer", &args.peers)?;
    let listen = flags::addrs("--listen", &args.listen)?;
    let internet = match (&args.relay, &args.code) {
        (Some(relay), Some(code)) => Some(flags::relay(relay, flags::code(code)?)?),
        _ => None,
    };
    let data_dir = args
        .data_dir
        .clone()
        .unwrap_or_else(mahjong_store::default_data_dir);
    // A watcher writes nothing of the table: it may run beside the app or `mahjong play` on
    // the same data dir, with the player's identity (or a new one in a data dir of its own).
    let identity = match mahjong_store::DirLock::acquire(&data_dir) {
        Ok(lock) => {
            let id = mahjong_store::Identity::load_or_create(&data_dir, None)?;
            drop(lock);
            id
        }
        Err(_) => mahjong_store::Identity::load_or_create(&data_dir, None)?,
    };
    mahjong_store::init_logging(&data_dir)?;
    let muted = mahjong_store::Muted::load(&data_dir);
    let name = match &args.name {
        Some(n) => mahjong_store::identity::check_name(n)?,
        None => identity.name.clone(),
    };
    let settings = node::settings(
        &name,
        mahjong_rules::Ruleset::Qiaoma,
        mahjong_rules::Money::coins(1),
        1,
        0,
    );
    let mut config = NetConfig::new(identity.key, settings);
    config.peers = peers;
    if !listen.is_empty() {
        config.listen = listen;
    }
    config.mdns = !args.no_mdns;
    config.internet = internet;
    config.watch = Some(WatchTarget {
        table: args.table.clone(),
    });
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    rt.block_on(watch(config, &args, &data_dir, muted))
}

/// What the watcher prints: sentences or JSON lines.
struct Out {
    json: bool,
}

impl Out {
    fn line(&self, text: &str, value: serde_json::Value) {
        if self.json {
            println!("{value}");
        } else {
            for l in lines::wrapped(text) {
                println!("{l}");
            }
        }
        let _ = std::io::stdout().flush();
    }
}

async fn watch(
    config: NetConfig,
    args: &WatchArgs,
    data_dir: &std::path::Path,
    mut muted: mahjong_store::Muted,
) -> Result<()> {
    let (network, mut events) =
        mahjong_net::spawn(config, Box::new(mahjong_net::MemoryStorage::new()))?;
    let out = Out { json: args.json };
    let mut input = crate::play::stdin_lines();
    let mut input_open = true;
    let mut found = false;
    let give_up = tokio::time::Instant::now() + Duration::from_secs(args.wait);
    let mut people = lines::People::new();
    let mut names = solo::Names::new(Default::default());
    let mut hand_no = 0u32;
    let mut roster_names: [String; 4] = Default::default();
    // The session's length in hands (0 when it is not a number of hands).
    let mut hands_agreed = 0u32;
    let outcome = loop {
        let ev = tokio::select! {
            ev = events.recv() => ev,
            line = input.recv(), if input_open => {
                match line {
                    Some(line) => typed(&line, &network, &mut muted, data_dir, &out).await,
                    None => input_open = false,
                }
                continue;
            }
            _ = tokio::time::sleep_until(give_up), if !found => {
                break Err(anyhow!("no table to watch was found within {} seconds", args.wait));
            }
        };
        let Some(ev) = ev else {
            break Err(anyhow!("the network stopped"));
        };
        match ev {
            NetEvent::Watching { roster } => {
                found = true;
                let seats = roster.advert.seats.clone();
                people.seat(&seats, None);
                roster_names = [0usize, 1, 2, 3].map(|i| {
                    seats[i]
                        .as_ref()
                        .map_or_else(String::new, |s| lines::clean(&s.name))
                });
                names = solo::Names::new(roster_names.clone());
                let id = lines::table_id(&roster.advert.table);
                out.line(
                    &format!(
                        "watching table {id} \"{}\"; seats: {}",
                        lines::clean(&roster.advert.name),
                        people.roster(roster.host_seat)
                    ),
                    json!({
                        "event": "watching",
                        "table": node::hex(&roster.advert.table),
                        "name": lines::clean(&roster.advert.name),
                        "seats": roster_names,
                        "host": roster.host_seat,
                    }),
                );
            }
            NetEvent::WatchRefused { reason } => {
                break Err(anyhow!(
                    "the table's host does not let this peer watch: {reason}"
                ));
            }
            NetEvent::Lied { peer, why } => {
                break Err(anyhow!(
                    "{} showed this watcher a false game: {why}",
                    people.peer(&peer)
                ));
            }
            NetEvent::Watchers { names: w, chat } => {
                let talk = if chat {
                    ""
                } else {
                    " (watchers may not talk here)"
                };
                out.line(
                    &format!(
                        "watching now: {}{talk}",
                        if w.is_empty() {
                            "nobody".to_string()
                        } else {
                            lines::and_list(&w)
                        }
                    ),
                    json!({"event": "watchers", "names": w, "chat": chat}),
                );
            }
            NetEvent::Chat {
                name,
                from,
                text,
                watcher,
            } => {
                muted.heard_from(&name, &from);
                if muted.is_muted(&from) {
                    continue;
                }
                let who = if watcher {
                    format!("{name} (watching)")
                } else {
                    name.clone()
                };
                out.line(
                    &format!("{who}: {text}"),
                    json!({"event": "chat", "name": name, "text": text, "watcher": watcher}),
                );
            }
            NetEvent::Table(TableEvent::SetupAgreed(p)) => {
                if let mahjong_rules::SessionLength::Hands(n) = p.length {
                    hands_agreed = n;
                }
                out.line(
                    &format!(
                        "set-up agreed: {}",
                        lines::terms(p.preset, p.stake, p.length)
                    ),
                    json!({
                        "event": "setup",
                        "preset": p.preset.name(),
                        "stake": p.stake,
                        "hands": hands_agreed,
                    }),
                );
            }
            NetEvent::Table(TableEvent::HandStarted {
                hand,
                dice,
                dealer,
                huangfan,
                indicator,
                ..
            }) => {
                hand_no = hand;
                people.dealer = Some(dealer);
                names.dealer = dealer;
                let header =
                    solo::hand_header(hand, &names, dice, huangfan + dice.huangfan_bonus());
                out.line(
                    &header,
                    json!({
                        "event": "hand_start",
                        "hand": hand,
                        "dealer": roster_names[dealer as usize],
                        "dice": [dice.values().0, dice.values().1],
                        "indicator": indicator.map(|c| c.tile.to_string()),
                    }),
                );
            }
            NetEvent::Table(TableEvent::Moved { mv, events }) => {
                let mut buf = Vec::new();
                solo::announce(&events, NOBODY, &names, &|_| None, &mut buf)?;
                let text = String::from_utf8_lossy(&buf).trim_end().to_string();
                if text.is_empty() {
                    continue;
                }
                if out.json {
                    out.line(
                        "",
                        json!({
                            "event": "move",
                            "hand": hand_no,
                            "seat": mv.seat,
                            "name": roster_names.get(mv.seat as usize),
                            "text": text.lines().map(str::trim).collect::<Vec<_>>().join(" "),
                        }),
                    );
                } else {
                    println!("{text}");
                    let _ = std::io::stdout().flush();
                }
            }
            NetEvent::Revealed { hand, hands } => {
                let shown: Vec<String> = hands
                    .iter()
                    .map(|h| solo::spaced(&h.iter().map(|c| c.tile).collect::<Vec<_>>()))
                    .collect();
                let text = (0..4usize)
                    .map(|s| format!("{}: {}", people.named(s as u8, people.dealer), shown[s]))
                    .collect::<Vec<_>>()
                    .join("; ");
                out.line(
                    &format!("hand {hand} face up: {text}"),
                    json!({"event": "revealed", "hand": hand, "hands": shown}),
                );
            }
            NetEvent::Table(TableEvent::HandOver { result, signatures }) => {
                out.line(
                    &people.hand(&result, hands_agreed, signatures.len()),
                    json!({
                        "event": "hand_end",
                        "hand": result.hand,
                        "payments": result.payments,
                        "outcome": people.outcome(&result),
                        "aborted": result.aborted,
                        "signatures": signatures.len(),
                    }),
                );
            }
            NetEvent::Table(TableEvent::SeatSilent { seat }) => out.line(
                &format!("{} is silent", people.of(seat)),
                json!({"event": "silent", "name": people.of(seat)}),
            ),
            NetEvent::Table(TableEvent::SeatReplaced { seat, .. }) => out.line(
                &format!("{} is replaced by a bot", people.of(seat)),
                json!({"event": "replaced", "name": people.of(seat)}),
            ),
            NetEvent::Table(TableEvent::SetupFailed { seat }) => {
                break Err(anyhow!(
                    "the set-up failed: {} declined or never answered",
                    people.of(seat)
                ));
            }
            NetEvent::Table(TableEvent::Halted { reason }) => {
                break Err(anyhow!("the table halted: {reason}"));
            }
            NetEvent::Table(TableEvent::SessionOver { balances }) => {
                out.line(
                    &format!("session over: {}", people.money(&balances)),
                    json!({"event": "session_end", "balances": balances}),
                );
                break Ok(());
            }
            NetEvent::Fatal(why) => break Err(anyhow!("{why}")),
            _ => {}
        }
    };
    if outcome.is_ok()
        && let Ok(t) = network.traffic().await
    {
        out.line(
            &format!("traffic: {} received", count(t.bytes_in, "byte", "bytes")),
            json!({"event": "traffic", "bytes_in": t.bytes_in, "bytes_out": t.bytes_out}),
        );
    }
    let _ = network.shutdown().await;
    outcome
}

/// A line the watcher typed: said at the table, or a mute.
async fn typed(
    line: &str,
    network: &mahjong_net::Network,
    muted: &mut mahjong_store::Muted,
    data_dir: &std::path::Path,
    out: &Out,
) {
    let line = line.trim();
    if line.is_empty() {
        return;
    }
    if let Some(name) = line
        .strip_prefix("/mute ")
        .or_else(|| line.strip_prefix("/unmute "))
    {
        let on = line.starts_with("/mute ");
        let said = mute(network, muted, data_dir, name.trim(), on).await;
        out.line(&said, json!({"event": "note", "text": said}));
        return;
    }
    match network.say(line).await {
        Ok(Ok(())) => {}
        Ok(Err(why)) => out.line(
            &format!("not said: {why}"),
            json!({"event": "note", "text": format!("not said: {why}")}),
        ),
        Err(e) => out.line(
            &format!("not said: {e}"),
            json!({"event": "note", "text": e.to_string()}),
        ),
    }
}

/// Mutes or unmutes the person of this name (by the key of their last line).
pub(crate) async fn mute(
    _network: &mahjong_net::Network,
    muted: &mut mahjong_store::Muted,
    data_dir: &std::path::Path,
    name: &str,
    on: bool,
) -> String {
    let Some(key) = muted.heard(name) else {
        return format!("nobody called {name} has talked here");
    };
    muted.set(&key, on);
    match muted.save(data_dir) {
        Ok(()) if on => format!("{name} is muted (remembered)"),
        Ok(()) => format!("{name} is heard again"),
        Err(e) => format!(
            "{name} is {} for now, but not remembered: {e}",
            if on { "muted" } else { "heard" }
        ),
    }
}
