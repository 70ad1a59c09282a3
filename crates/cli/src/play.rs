//! `mahjong play`: sit at a table on the LAN and play a session.
//!
//! `mahjong play --bot --name NAME --data-dir DIR --hands N [--preset P] [--stake S]
//! [--peer ADDR]… [--wait SECS] [--bots K]` joins the first open table it discovers on the
//! network (mDNS, or the `--peer` addresses) with the same preset, stake and length, or opens
//! one and waits; accepts the set-up; plays N hands with the strong bot; and exits 0 once its
//! ledger holds the N final hands. One line per hand on standard error
//! (`hand 2/3: seat 1 wins qingyise by self-draw, payments [-20,60,-20,-20]`); on failure one
//! line and a non-zero exit (no table filled within `--wait` seconds, a peer proven at fault, a
//! store error). `--bots K`, at a table this peer opens: K seats are bots, spread over the
//! human peers. A peer restarted with the same data dir resumes its table.
//! `--disconnect-seconds S`, at a table this peer opens: how long a silent seat is waited for
//! before the other three vote it out and a bot run by the next seat's peer takes it (the
//! preset's 180 by default).
//!
//! Extras for tests and odd networks: `--listen MULTIADDR` (default every IPv4 interface, a
//! free port) and `--no-mdns` (only `--peer`; keeps multicast off a shared host).

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result, anyhow, bail};
use clap::Args;
use mahjong_net::{NetConfig, NetEvent, StoreStorage, node};
use mahjong_rules::{Money, Outcome, Ruleset};
use mahjong_table::{HandResult, TableEvent};

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
    /// Do not use mDNS (only the --peer addresses).
    #[arg(long)]
    no_mdns: bool,
    /// At a table this peer opens: seconds a silent seat is waited for before the others
    /// replace it by a bot (default: the preset's, 180).
    #[arg(long)]
    disconnect_seconds: Option<u32>,
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
    if !args.bot {
        bail!(
            "interactive network play is not available yet: add --bot to let the strong bot play"
        );
    }
    let mut peers = Vec::new();
    for p in &args.peers {
        peers.push(
            p.parse()
                .with_context(|| format!("--peer {p} is not a multiaddr"))?,
        );
    }
    let mut listen = Vec::new();
    for l in &args.listen {
        listen.push(
            l.parse()
                .with_context(|| format!("--listen {l} is not a multiaddr"))?,
        );
    }
    let data_dir = match &args.data_dir {
        Some(d) => d.clone(),
        None => mahjong_store::default_data_dir(),
    };
    let identity = mahjong_store::Identity::load_or_create(&data_dir, Some(&args.name))?;
    mahjong_store::init_logging(&data_dir)?;
    let storage = StoreStorage::open(&data_dir)?;
    let identity = identity.key;
    let settings = node::settings(&args.name, preset, stake, args.hands, args.bots);
    let mut config = NetConfig::new(identity, settings);
    config.peers = peers;
    if !listen.is_empty() {
        config.listen = listen;
    }
    config.mdns = !args.no_mdns;
    config.disconnect_seconds = args.disconnect_seconds;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    rt.block_on(session(config, storage, &data_dir, &args))
}

async fn session(
    config: NetConfig,
    storage: StoreStorage,
    data_dir: &std::path::Path,
    args: &PlayArgs,
) -> Result<()> {
    let (network, mut events) = mahjong_net::spawn(config, Box::new(storage))?;
    let mut table = None;
    let started = std::time::Instant::now();
    let wait = tokio::time::sleep(Duration::from_secs(args.wait));
    tokio::pin!(wait);
    let mut seated = false;
    let mut fault: Option<String> = None;
    let outcome = loop {
        let ev = tokio::select! {
            ev = events.recv() => ev,
            _ = &mut wait, if !seated => {
                break Err(anyhow!("no table filled within {} seconds", args.wait));
            }
        };
        let Some(ev) = ev else {
            break Err(anyhow!("the network stopped"));
        };
        match ev {
            NetEvent::Listening(a) => eprintln!("listening on {a}"),
            NetEvent::Incompatible { peer, theirs } => eprintln!(
                "peer {peer} speaks {theirs}, this peer speaks {}: both must run the same version of mahjong",
                mahjong_net::PROTOCOL_VERSION
            ),
            NetEvent::Misbehaved { peer, why } => eprintln!("peer {peer} disconnected: {why}"),
            NetEvent::Began { roster, seats } => {
                seated = true;
                table = Some(roster.advert.table);
                eprintln!(
                    "table {} full after {:.1} s: {}; this peer runs seats {:?}",
                    &node::hex(&roster.advert.table)[..8],
                    started.elapsed().as_secs_f64(),
                    roster_line(&roster),
                    seats
                );
            }
            NetEvent::Resumed { roster, hands } => {
                seated = true;
                table = Some(roster.advert.table);
                eprintln!(
                    "resuming table {} after {hands} final hands: {}",
                    &node::hex(&roster.advert.table)[..8],
                    roster_line(&roster)
                );
            }
            NetEvent::Table(TableEvent::SetupAgreed(p)) => eprintln!(
                "set-up agreed: {}, stake {}, {:?}",
                p.preset, p.stake, p.length
            ),
            NetEvent::Table(TableEvent::HandOver { result, signatures }) => {
                eprintln!("{}", hand_line(&result, args.hands, signatures.len()));
            }
            NetEvent::Table(TableEvent::Evidence(e)) => {
                let who = e
                    .verify()
                    .map(|c| format!("seat {} proven at fault: {:?}", c.seat, c.offence))
                    .unwrap_or_else(|err| format!("evidence that does not verify: {err}"));
                eprintln!("{who}");
                fault.get_or_insert(who);
            }
            NetEvent::Table(TableEvent::SeatSilent { seat }) => {
                eprintln!("seat {seat} is silent");
            }
            NetEvent::Table(TableEvent::SeatReplaced { seat, controller }) => {
                eprintln!("seat {seat} is replaced by a bot run by seat {controller}'s peer");
            }
            NetEvent::Table(TableEvent::SetupFailed { seat }) => {
                break Err(anyhow!(
                    "the set-up failed: seat {seat} declined or never answered"
                ));
            }
            NetEvent::Table(TableEvent::Halted { reason }) => {
                break Err(anyhow!("the table halted: {reason}"));
            }
            NetEvent::Table(TableEvent::Left) => {
                break Err(anyhow!("this seat left the table"));
            }
            NetEvent::Table(TableEvent::SessionOver { balances }) => {
                let store = mahjong_store::Store::open(data_dir)?;
                let booked = match &table {
                    Some(t) => store.ledger_of(t)?.len() as u32,
                    None => 0,
                };
                if let Some(f) = fault {
                    break Err(anyhow!("{f}"));
                }
                if booked < args.hands {
                    break Err(anyhow!(
                        "the session ended after {booked} of {} hands",
                        args.hands
                    ));
                }
                let b: Vec<String> = balances.iter().map(Money::to_string).collect();
                eprintln!("session over: balances [{}]", b.join(","));
                break Ok(());
            }
            NetEvent::Fatal(why) => break Err(anyhow!("{why}")),
            _ => {}
        }
    };
    if outcome.is_ok() {
        // Stay a moment so that a peer still missing one of this seat's last entries can ask.
        tokio::time::sleep(Duration::from_millis(1500)).await;
        if let Ok(t) = network.traffic().await {
            eprintln!(
                "traffic: {} messages, {} bytes sent; {} messages, {} bytes received",
                t.messages_out, t.bytes_out, t.messages_in, t.bytes_in
            );
        }
    }
    let _ = network.shutdown().await;
    outcome
}

fn roster_line(roster: &mahjong_net::Roster) -> String {
    roster
        .advert
        .seats
        .iter()
        .enumerate()
        .map(|(i, s)| match s {
            Some(s) if i as u8 == roster.host_seat => format!("{i} {} (host)", s.name),
            Some(s) => format!("{i} {}", s.name),
            None => format!("{i} free"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// `hand 2/3: seat 1 wins qingyise by self-draw, payments [-20,60,-20,-20]`.
pub fn hand_line(result: &HandResult, hands: u32, signatures: usize) -> String {
    let what = match &result.outcome {
        // The winners and how they won, in the ledger's words.
        Outcome::Win { .. } => mahjong_store::describe(result),
        Outcome::Drawn => "drawn, the wall is empty".to_string(),
        Outcome::Abandoned { leaver, .. } if result.aborted => format!(
            "aborted by the three others ({signatures} votes), seat {leaver} pays the leaver penalty"
        ),
        Outcome::Abandoned { leaver, .. } => format!("seat {leaver} left and pays the penalty"),
    };
    let p: Vec<String> = result.payments.iter().map(Money::to_string).collect();
    format!(
        "hand {}/{hands}: {what}, payments [{}]",
        result.hand,
        p.join(",")
    )
}
