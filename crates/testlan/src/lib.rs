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
