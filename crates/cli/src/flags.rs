//! Network flags shared by `mahjong play` and `mahjong watch`, checked before anything is
//! opened: each bad value is one line naming the flag.

use anyhow::{Context, Result, anyhow};
use mahjong_relay::libp2p::Multiaddr;

/// The addresses of a repeatable address flag (`--peer`, `--listen`).
pub fn addrs(flag: &str, values: &[String]) -> Result<Vec<Multiaddr>> {
    values
        .iter()
        .map(|v| {
            v.parse()
                .with_context(|| format!("{flag} {v} is not a multiaddr"))
        })
        .collect()
}

/// The relay of `--relay` met with `code` (`--code`'s, or a fresh one).
pub fn relay(relay: &str, code: mahjong_net::TableCode) -> Result<mahjong_net::Internet> {
    let addr: Multiaddr = relay.parse().map_err(|_| {
        anyhow!("--relay {relay} is not an address like /ip4/203.0.113.7/tcp/4001/p2p/12D3KooW…")
    })?;
    mahjong_net::Internet::new(addr, code).map_err(|e| anyhow!("--relay: {e}"))
}

/// The table code of `--code`.
pub fn code(code: &str) -> Result<mahjong_net::TableCode> {
    code.parse::<mahjong_net::TableCode>()
        .map_err(|e| anyhow!("--code {code}: {e}"))
}
