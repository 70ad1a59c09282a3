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
//! `--disconnect-seconds S`: how long a silent seat is waited for before the other three vote
//! it out and a bot run by the next seat's peer takes it (the preset's 180 by default); it is
//! one of the options the peer agrees to, so every peer of a table gives the same value.
//!
//! **What is agreed.** A peer sits only at a table whose advert carries its preset, stake,
//! hands and the hash of its options (the preset's, with `--disconnect-seconds`), and accepts
//! the host's proposal only when it is exactly those; any other proposal is declined with one
//! line (`declined the host's proposal: …`) and nothing is booked.
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

use std::path::PathBuf;
use std::time::Duration;

use std::io::Write;

use anyhow::{Context, Result, anyhow, bail};
use clap::Args;
use ed25519_dalek::VerifyingKey;
use mahjong_bot::{Bot, Level};
use mahjong_net::{NetConfig, NetEvent, Network, StoreStorage, node};
use mahjong_rules::explain_text::Lang;
use mahjong_rules::view::PublicPhase;
use mahjong_rules::{Money, Outcome, Ruleset, Seat, SeatView, SessionLength};
use mahjong_table::{HandResult, TableEvent};
use tokio::sync::mpsc;

use crate::solo::{self, Answer};

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
    /// Seconds a silent seat is waited for before the others replace it by a bot (default:
    /// the preset's, 180); one of the options agreed, so the same at every peer of a table.
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
    let lang: Lang = args.lang.parse().map_err(|e| anyhow!("--lang: {e}"))?;
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
    let me = identity.verifying_key();
    let settings = node::settings(&args.name, preset, stake, args.hands, args.bots);
    let mut config = NetConfig::new(identity, settings);
    config.own_bot = args.bot;
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
    let human = (!args.bot).then(|| Human::new(me, preset, stake, args.hands, lang));
    rt.block_on(session(config, storage, &data_dir, &args, human))
}

async fn session(
    config: NetConfig,
    storage: StoreStorage,
    data_dir: &std::path::Path,
    args: &PlayArgs,
    mut human: Option<Human>,
) -> Result<()> {
    let (network, mut events) = mahjong_net::spawn(config, Box::new(storage))?;
    // The player's lines come from a thread (a read of the terminal blocks), so the table's
    // timers and the network go on while the prompt waits.
    let mut lines = human.as_ref().map(|_| stdin_lines());
    let mut table = None;
    let started = std::time::Instant::now();
    let wait = tokio::time::sleep(Duration::from_secs(args.wait));
    tokio::pin!(wait);
    let mut seated = false;
    let mut fault: Option<String> = None;
    let outcome = loop {
        let asking = human
            .as_ref()
            .and_then(|h| h.prompt.as_ref().map(|p| p.until));
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
                    h.time_up();
                }
                continue;
            }
            _ = &mut wait, if !seated => {
                break Err(anyhow!("no table filled within {} seconds", args.wait));
            }
        };
        let Some(ev) = ev else {
            break Err(anyhow!("the network stopped"));
        };
        if let (Some(h), NetEvent::Table(t)) = (human.as_mut(), &ev) {
            h.table_event(t, &network).await?;
        }
        match ev {
            NetEvent::Listening(a) => eprintln!("listening on {a}"),
            NetEvent::Incompatible { peer, theirs } => eprintln!(
                "peer {peer} speaks {theirs}, this peer speaks {}: both must run the same version of mahjong",
                mahjong_net::PROTOCOL_VERSION
            ),
            NetEvent::Misbehaved { peer, why } => eprintln!("peer {peer} disconnected: {why}"),
            NetEvent::Declined { why } => eprintln!("declined the host's proposal: {why}"),
            NetEvent::Began { roster, seats } => {
                seated = true;
                if let Some(h) = human.as_mut() {
                    h.seated(&roster);
                }
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
                if let Some(h) = human.as_mut() {
                    h.seated(&roster);
                }
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
            Some(s) if i as u8 == roster.host_seat => {
                format!("{i} {} (host)", mahjong_store::clean_name(&s.name))
            }
            Some(s) => format!("{i} {}", mahjong_store::clean_name(&s.name)),
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

// ---- the player at this terminal (without --bot) ----

/// Lines typed on standard input, read on their own thread; the channel closes at the end
/// of input.
fn stdin_lines() -> mpsc::Receiver<String> {
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
}

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
}

impl Human {
    fn new(me_key: VerifyingKey, preset: Ruleset, stake: Money, hands: u32, lang: Lang) -> Human {
        let seed = u64::from_le_bytes(me_key.as_bytes()[..8].try_into().unwrap_or([0; 8]));
        Human {
            me_key,
            me: None,
            hint: Bot::new(Level::Strong, seed),
            prompt: None,
            terms: None,
            preset,
            stake,
            hands,
            lang,
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
        if let Some(me) = self.me {
            println!(
                "You are {}. Type the number of an action, a tile to discard (5m), !5m to \
                 discard and declare ready (敲), h for a hint, q to leave the table.",
                solo::SEAT_NAMES[me as usize]
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
                    .and_then(|t| t.check(p));
                let fits = p.preset == self.preset
                    && p.stake == self.stake
                    && p.length == SessionLength::Hands(self.hands)
                    && agreed.is_ok();
                if fits {
                    writeln!(
                        out,
                        "The host proposes {} at stake {}: accepted.",
                        p.preset, p.stake
                    )?;
                    network.accept().await?;
                } else {
                    writeln!(
                        out,
                        "The host proposes {} at stake {}, {:?}: not what you asked for ({}), declined.",
                        p.preset,
                        p.stake,
                        p.length,
                        agreed
                            .err()
                            .unwrap_or_else(|| "preset, stake or hands differ".into())
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
                writeln!(
                    out,
                    "\n{}",
                    solo::hand_header(*hand, *dealer, *dice, counter)
                )?;
            }
            TableEvent::Moved { mv, events } => {
                if let Some(me) = self.me {
                    if mv.seat == me && self.prompt.take().is_some() {
                        writeln!(out, "  (time is up: the table played for you)")?;
                    }
                    solo::announce(events, me, &|_| None, &mut out)?;
                }
            }
            TableEvent::YourTurn { view, .. } => {
                if let Some(a) = solo::auto_answer(view) {
                    self.prompt = None;
                    network.act(a).await?;
                    return Ok(());
                }
                let claim = matches!(
                    view.phase,
                    PublicPhase::Claims { .. } | PublicPhase::RobKong { .. }
                );
                let secs = if claim {
                    view.options.claim_seconds
                } else {
                    view.options.discard_seconds
                };
                let order = solo::show_choices(view, &mut out)?;
                write!(out, "({secs} s) > ")?;
                out.flush()?;
                self.prompt = Some(Prompt {
                    view: view.clone(),
                    order,
                    until: tokio::time::Instant::now() + Duration::from_secs(u64::from(secs)),
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
                        self.lang,
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
        let mut out = std::io::stdout().lock();
        match solo::answer(&p.view, &p.order, line, &mut self.hint, &mut out)? {
            Answer::Act(a) => {
                self.prompt = None;
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

    /// The table's timer ran out while the prompt waited: the client plays for the player.
    fn time_up(&mut self) {
        if self.prompt.take().is_some() {
            println!("\n  (time is up: the table plays for you)");
        }
    }
}
