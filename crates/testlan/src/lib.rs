//! Test support for the tests that run real peers: a LAN of network namespaces on one bridge
//! (`ip netns`, root and iproute2), so that mDNS multicast stays inside the test's own
//! namespaces and never reaches the machine's network. Used by the CLI's LAN tests and the
//! desktop app's four-window test.

use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

static COUNTER: AtomicU32 = AtomicU32::new(0);

/// Runs `ip ARGS`; whether it succeeded.
pub fn ip(args: &[&str]) -> bool {
    Command::new("ip")
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Network namespaces on one bridge; deleted on drop.
pub struct Lan {
    /// The namespace holding the bridge.
    pub bridge: String,
    /// The hosts' namespaces, host 1 first.
    pub hosts: Vec<String>,
}

impl Lan {
    /// `n` hosts 10.77.0.1..n, or `None` where namespaces cannot be made.
    pub fn new(n: usize) -> Option<Lan> {
        let id = format!(
            "{}{}",
            std::process::id() % 100_000,
            COUNTER.fetch_add(1, Ordering::SeqCst)
        );
        let bridge = format!("mjb{id}");
        if !ip(&["netns", "add", &bridge]) {
            return None;
        }
        let mut lan = Lan {
            bridge: bridge.clone(),
            hosts: Vec::new(),
        };
        // No multicast snooping: the bridge floods mDNS to every port, querier or not.
        let ok = ip(&["-n", &bridge, "link", "add", "br0", "type", "bridge"])
            && ip(&[
                "-n",
                &bridge,
                "link",
                "set",
                "br0",
                "type",
                "bridge",
                "mcast_snooping",
                "0",
            ])
            && ip(&["-n", &bridge, "link", "set", "br0", "up"]);
        if !ok {
            return None;
        }
        for h in 1..=n {
            let ns = format!("mj{id}h{h}");
            let veth = format!("v{id}h{h}");
            let vbr = format!("b{id}h{h}");
            if !ip(&["netns", "add", &ns]) {
                return None;
            }
            lan.hosts.push(ns.clone());
            let addr = format!("10.77.0.{h}/24");
            let ok = ip(&["link", "add", &veth, "type", "veth", "peer", "name", &vbr])
                && ip(&["link", "set", &veth, "netns", &ns])
                && ip(&["link", "set", &vbr, "netns", &bridge])
                && ip(&["-n", &bridge, "link", "set", &vbr, "master", "br0"])
                && ip(&["-n", &bridge, "link", "set", &vbr, "up"])
                && ip(&["-n", &ns, "addr", "add", &addr, "dev", &veth])
                && ip(&["-n", &ns, "link", "set", &veth, "up"])
                && ip(&["-n", &ns, "link", "set", "lo", "up"])
                && ip(&["-n", &ns, "route", "add", "224.0.0.0/4", "dev", &veth]);
            if !ok {
                return None;
            }
        }
        // Let the links come up (carrier on every veth) before peers send their first mDNS
        // probes.
        std::thread::sleep(Duration::from_millis(700));
        Some(lan)
    }
}

impl Drop for Lan {
    fn drop(&mut self) {
        for h in &self.hosts {
            ip(&["netns", "delete", h]);
        }
        ip(&["netns", "delete", &self.bridge]);
    }
}

/// Runs `ip netns exec NS nft -f -` with `rules` on standard input; whether it succeeded.
fn nft(ns: &str, rules: &str) -> bool {
    use std::io::Write;
    let Ok(mut child) = Command::new("ip")
        .args(["netns", "exec", ns, "nft", "-f", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
    else {
        return false;
    };
    let written = child
        .stdin
        .take()
        .is_some_and(|mut s| s.write_all(rules.as_bytes()).is_ok());
    child.wait().is_ok_and(|s| s.success()) && written
}

/// Whether `nft` (nftables) runs here.
pub fn have_nft() -> bool {
    Command::new("nft")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// A router's rules: masquerade what leaves by `wan` (`MODE`: see [`Nat`]), and let in from
/// `wan` only what answers a connection made from inside (stateful; anything else is dropped
/// without a reply, as a home router does).
const ROUTER_RULES: &str = "
table ip nat {
  chain postrouting {
    type nat hook postrouting priority 100; policy accept;
    oifname \"wan\" masquerade MODE
  }
}
table ip filter {
  chain input {
    type filter hook input priority 0; policy drop;
    ct state established,related accept
    iifname \"lo\" accept
    iifname \"lan\" accept
  }
  chain forward {
    type filter hook forward priority 0; policy drop;
    ct state established,related accept
    iifname \"lan\" oifname \"wan\" accept
    iifname \"lan\" oifname \"lan\" accept
  }
}
";

/// A small internet of network namespaces: a "public" segment (a bridge, 10.78.0.0/24) with
/// a server host on it (10.78.0.254, for the relay), and homes, each a router namespace on
/// the public segment (10.78.0.N) that masquerades its home's LAN (10.79.N.0/24) with
/// nftables and lets in only answers to what was sent from inside. The players of home N
/// are 10.79.N.2, 10.79.N.3, … behind its router 10.79.N.1 (on a bridge of their own when a
/// home has more than one). Deleted on drop.
pub struct Internet {
    /// Every namespace made (deleted on drop).
    all: Vec<String>,
    /// The server's namespace (on the public segment, 10.78.0.254).
    pub server: String,
    /// The routers' namespaces, home 1 first.
    pub routers: Vec<String>,
    /// The players' namespaces: for each home, its players.
    pub players: Vec<Vec<String>>,
}

/// The server's address on the public segment.
pub const SERVER_IP: &str = "10.78.0.254";

/// How the home routers map ports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Nat {
    /// Linux's plain masquerade: a connection keeps its source port where it can, so the port
    /// the relay sees is the one a friend can punch through to (most home routers).
    Keeping,
    /// `masquerade fully-random`: every connection gets a random port, so what the relay sees
    /// says nothing of the next connection's port (a "symmetric" NAT; hole punching fails and
    /// the relay carries the table).
    Random,
}

impl Internet {
    /// Homes with `players[i]` players each behind their own NAT, or `None` where it cannot be
    /// made (not root, no iproute2 or nftables).
    pub fn new(players: &[usize], nat: Nat) -> Option<Internet> {
        let rules = ROUTER_RULES.replace(
            "MODE",
            match nat {
                Nat::Keeping => "",
                Nat::Random => "fully-random",
            },
        );
        if !have_nft() {
            return None;
        }
        let id = format!(
            "{}{}",
            std::process::id() % 100_000,
            COUNTER.fetch_add(1, Ordering::SeqCst)
        );
        let mut net = Internet {
            all: Vec::new(),
            server: format!("mi{id}s"),
            routers: Vec::new(),
            players: Vec::new(),
        };
        let public = format!("mi{id}p");
        let add = |ns: &str, net: &mut Internet| {
            let ok = ip(&["netns", "add", ns]);
            if ok {
                net.all.push(ns.to_string());
                ip(&["-n", ns, "link", "set", "lo", "up"]);
            }
            ok
        };
        let ok = add(&public, &mut net)
            && ip(&["-n", &public, "link", "add", "br0", "type", "bridge"])
            && ip(&["-n", &public, "link", "set", "br0", "up"]);
        if !ok {
            return None;
        }
        // A namespace's end `name` of a veth pair whose other end joins `bridge` in `bridge_ns`.
        let plug = |ns: &str, name: &str, bridge_ns: &str, tag: &str, addr: &str| {
            let there = format!("x{id}{tag}");
            let here = format!("y{id}{tag}");
            ip(&["link", "add", &here, "type", "veth", "peer", "name", &there])
                && ip(&["link", "set", &there, "netns", bridge_ns])
                && ip(&["-n", bridge_ns, "link", "set", &there, "master", "br0"])
                && ip(&["-n", bridge_ns, "link", "set", &there, "up"])
                && ip(&["link", "set", &here, "netns", ns])
                && ip(&["-n", ns, "link", "set", &here, "name", name])
                && ip(&["-n", ns, "addr", "add", addr, "dev", name])
                && ip(&["-n", ns, "link", "set", name, "up"])
        };
        let server = net.server.clone();
        if !(add(&server, &mut net) && plug(&server, "eth0", &public, "s", "10.78.0.254/24")) {
            return None;
        }
        for (h, &n) in players.iter().enumerate() {
            let h = h + 1;
            let router = format!("mi{id}r{h}");
            if !add(&router, &mut net) {
                return None;
            }
            net.routers.push(router.clone());
            let wan = format!("10.78.0.{h}/24");
            // The home's LAN: a bridge in the router's namespace.
            let ok = plug(&router, "wan", &public, &format!("r{h}"), &wan)
                && ip(&["-n", &router, "link", "add", "lan", "type", "bridge"])
                // mDNS between the players of one home: flooded, querier or not.
                && ip(&["-n", &router, "link", "set", "lan", "type", "bridge", "mcast_snooping", "0"])
                && ip(&["-n", &router, "addr", "add", &format!("10.79.{h}.1/24"), "dev", "lan"])
                && ip(&["-n", &router, "link", "set", "lan", "up"])
                && Command::new("ip")
                    .args(["netns", "exec", &router, "sysctl", "-q", "-w", "net.ipv4.ip_forward=1"])
                    .stdout(Stdio::null())
                    .status()
                    .is_ok_and(|s| s.success())
                && nft(&router, &rules);
            if !ok {
                return None;
            }
            let mut home = Vec::new();
            for k in 0..n {
                let ns = format!("mi{id}h{h}p{k}");
                if !add(&ns, &mut net) {
                    return None;
                }
                let addr = format!("10.79.{h}.{}/24", k + 2);
                let ok = plug_lan(&ns, &router, &format!("{id}h{h}p{k}"), &addr)
                    && ip(&[
                        "-n",
                        &ns,
                        "route",
                        "add",
                        "default",
                        "via",
                        &format!("10.79.{h}.1"),
                    ])
                    && ip(&["-n", &ns, "route", "add", "224.0.0.0/4", "dev", "eth0"]);
                if !ok {
                    return None;
                }
                home.push(ns);
            }
            net.players.push(home);
        }
        std::thread::sleep(Duration::from_millis(500));
        Some(net)
    }

    /// Makes the server drop `percent` % of the TCP packets to and from its `port`, at random
    /// (nftables `numgen random` in its namespace): a relay that loses frames. TCP sends them
    /// again, so what the players see is a relay that stalls now and then. `false` when the
    /// rules cannot be loaded.
    pub fn lossy_server(&self, port: u16, percent: u32) -> bool {
        let rules = format!(
            "table inet lossy {{
  chain input {{
    type filter hook input priority 0; policy accept;
    tcp dport {port} numgen random mod 100 < {percent} counter drop
  }}
  chain output {{
    type filter hook output priority 0; policy accept;
    tcp sport {port} numgen random mod 100 < {percent} counter drop
  }}
}}
"
        );
        nft(&self.server, &rules)
    }

    /// Packets the server dropped so far ([`Internet::lossy_server`]).
    pub fn server_drops(&self) -> u64 {
        let out = Command::new("ip")
            .args([
                "netns",
                "exec",
                &self.server,
                "nft",
                "list",
                "table",
                "inet",
                "lossy",
            ])
            .output();
        let Ok(out) = out else { return 0 };
        String::from_utf8_lossy(&out.stdout)
            .split("packets ")
            .skip(1)
            .filter_map(|r| r.split_whitespace().next()?.parse::<u64>().ok())
            .sum()
    }

    /// Every router drops what its home sends to the other homes (anything on the public
    /// segment but the server): hole punching fails while the relay still carries the table.
    /// `false` when the rules cannot be loaded.
    pub fn block_between_homes(&self) -> bool {
        let rules = format!(
            "table inet punchblock {{
  chain forward {{
    type filter hook forward priority -10; policy accept;
    ip daddr 10.78.0.0/24 ip daddr != {SERVER_IP} counter drop
  }}
}}
"
        );
        self.routers.iter().all(|r| nft(r, &rules))
    }

    /// Undoes [`Internet::block_between_homes`].
    pub fn unblock_between_homes(&self) -> bool {
        self.routers
            .iter()
            .all(|r| nft(r, "delete table inet punchblock\n"))
    }

    /// Names `ip` `host` in every namespace of the lab: `/etc/netns/NS/hosts`, which
    /// `ip netns exec` binds over `/etc/hosts`, with an empty `/etc/netns/NS/resolv.conf` over
    /// `/etc/resolv.conf` (no name server: nothing is ever asked of a real DNS server). Both
    /// go with the lab. `false` when they cannot be written.
    pub fn name_host(&self, host: &str, ip: &str) -> bool {
        self.all.iter().all(|ns| {
            let dir = std::path::Path::new("/etc/netns").join(ns);
            std::fs::create_dir_all(&dir).is_ok()
                && std::fs::write(
                    dir.join("hosts"),
                    format!("127.0.0.1 localhost\n{ip} {host}\n"),
                )
                .is_ok()
                && std::fs::write(dir.join("resolv.conf"), "# no name server in the lab\n").is_ok()
        })
    }

    /// Every player's namespace, home by home.
    pub fn all_players(&self) -> Vec<String> {
        self.players.iter().flatten().cloned().collect()
    }
}

/// A player's end `eth0` of a veth pair whose other end joins the bridge `lan` of its router.
fn plug_lan(ns: &str, router: &str, tag: &str, addr: &str) -> bool {
    let there = format!("x{tag}");
    let here = format!("y{tag}");
    ip(&["link", "add", &here, "type", "veth", "peer", "name", &there])
        && ip(&["link", "set", &there, "netns", router])
        && ip(&["-n", router, "link", "set", &there, "master", "lan"])
        && ip(&["-n", router, "link", "set", &there, "up"])
        && ip(&["link", "set", &here, "netns", ns])
        && ip(&["-n", ns, "link", "set", &here, "name", "eth0"])
        && ip(&["-n", ns, "addr", "add", addr, "dev", "eth0"])
        && ip(&["-n", ns, "link", "set", "eth0", "up"])
}

impl Drop for Internet {
    fn drop(&mut self) {
        for ns in self.all.iter().rev() {
            ip(&["netns", "delete", ns]);
            let _ = std::fs::remove_dir_all(std::path::Path::new("/etc/netns").join(ns));
        }
    }
}
