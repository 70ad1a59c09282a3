//! `mahjong relay [--listen MULTIADDR]… [--data-dir DIR] [--external MULTIADDR]…`: run the
//! relay friends in different homes meet through (the `mahjong-relay` crate; docs/relay.md).
//!
//! Prints each full address (`…/p2p/<peer id>`) on a line of its own on stdout as it comes
//! up, the `--external` ones first; logs to stderr (`RUST_LOG`); exits 0 on SIGINT or SIGTERM.
//! Its identity is `identity.key` in its data directory, by default the `relay` directory in
//! the player's data directory (a relay never uses a player's key).

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::Args;
use mahjong_relay::libp2p::Multiaddr;
use mahjong_relay::libp2p::multiaddr::Protocol;

/// The arguments of `mahjong relay`.
#[derive(Args)]
pub struct RelayArgs {
    /// An address to listen on (repeatable; default TCP and QUIC on port 4001: /ip4/0.0.0.0/tcp/4001,
    /// /ip6/::/tcp/4001, /ip4/0.0.0.0/udp/4001/quic-v1 and /ip6/::/udp/4001/quic-v1).
    #[arg(long = "listen", value_name = "MULTIADDR")]
    listen: Vec<String>,
    /// The relay's data directory (its identity key); default: `relay` in the player's data
    /// directory.
    #[arg(long)]
    data_dir: Option<PathBuf>,
    /// An address players reach the relay at, e.g. /dns4/relay.example.org/tcp/4001 or a VPS's
    /// public /ip4/…/tcp/4001 (repeatable); announced to players and printed first.
    #[arg(long = "external", value_name = "MULTIADDR")]
    external: Vec<String>,
}

fn parse(flag: &str, text: &str) -> Result<Multiaddr> {
    text.parse::<Multiaddr>()
        .map_err(|e| anyhow::anyhow!("{flag} {text:?} is not a multiaddr ({e})"))
}

/// Runs the relay until SIGINT or SIGTERM.
pub fn run(args: RelayArgs) -> Result<()> {
    let listen: Vec<Multiaddr> = if args.listen.is_empty() {
        mahjong_relay::DEFAULT_LISTEN
            .iter()
            .map(|a| parse("--listen", a))
            .collect::<Result<_>>()?
    } else {
        args.listen
            .iter()
            .map(|a| parse("--listen", a))
            .collect::<Result<_>>()?
    };
    let external: Vec<Multiaddr> = args
        .external
        .iter()
        .map(|a| parse("--external", a))
        .collect::<Result<_>>()?;
    for addr in &external {
        if addr.iter().any(|p| p == Protocol::P2pCircuit) {
            bail!(
                "--external {addr} is a relayed address; give the address the relay is reached at"
            );
        }
    }
    let data_dir = args
        .data_dir
        .clone()
        .unwrap_or_else(|| mahjong_store::default_data_dir().join("relay"));
    mahjong_relay::init_stderr_logging();
    let _lock = mahjong_store::DirLock::acquire(&data_dir)?;
    let keypair = mahjong_relay::load_keypair(&data_dir)?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("tokio runtime")?;
    rt.block_on(async {
        let relay = mahjong_relay::Relay::start(keypair, &listen, &external)?;
        let shutdown = mahjong_relay::stop_signal().context("signal handlers")?;
        relay
            .run(shutdown, |addr| {
                use std::io::Write;
                let mut out = std::io::stdout().lock();
                // A closed stdout (the reader went away) must not stop the relay.
                let _ = writeln!(out, "{addr}");
                let _ = out.flush();
            })
            .await;
        Ok::<(), anyhow::Error>(())
    })
}
