//! Four real app processes (the `shanghai-mahjong` binary, its window on Xvfb), each in its own
//! network namespace on one bridge (addresses 10.77.0.N/24 that exist only inside the
//! namespaces this test makes, so mDNS multicast stays inside). Nobody types anything: with
//! `--autoplay` each app finds the others by mDNS, they sit at one table, the strong bot plays
//! each seat and every app prints its hand and quits after the four-signed settlement.
//!
//! The first app starts alone and opens its table; the three others start once it is open and
//! each prints how long after its launch it saw that table ("launch to a friend's table").
//!
//! Needs root (namespaces), iproute2 and Xvfb; skips with a message where they are missing.
//! Run with `cargo test -p shanghai-mahjong --test lan_xvfb -- --ignored --nocapture`.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

fn ip(args: &[&str]) -> bool {
    Command::new("ip")
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Network namespaces on one bridge; deleted on drop.
struct Lan {
    bridge: String,
    hosts: Vec<String>,
}

impl Lan {
    fn new(n: usize) -> Option<Lan> {
        let id = std::process::id() % 100_000;
        let bridge = format!("mdb{id}");
        if !ip(&["netns", "add", &bridge]) {
            return None;
        }
        let mut lan = Lan {
            bridge: bridge.clone(),
            hosts: Vec::new(),
        };
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
            let ns = format!("md{id}h{h}");
            let veth = format!("w{id}h{h}");
            let vbr = format!("c{id}h{h}");
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

/// A child killed on drop.
struct Kid(Child);

impl Drop for Kid {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts app `i` in namespace `ns`; its stderr lines go to `lines` tagged with `i`.
fn app(
    i: usize,
    ns: &str,
    display: &str,
    dir: &std::path::Path,
    lines: &mpsc::Sender<(usize, String)>,
) -> Kid {
    let mut child = Command::new("ip")
        .args(["netns", "exec", ns, env!("CARGO_BIN_EXE_shanghai-mahjong")])
        .arg("--data-dir")
        .arg(dir.join(format!("p{i}")))
        .args(["--name", &format!("P{i}"), "--lang", "en", "--autoplay"])
        .args(["--hands", "1"])
        .env("DISPLAY", display)
        .env("RUST_LOG", "info")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the app starts");
    let err = child.stderr.take().expect("stderr");
    let tx = lines.clone();
    std::thread::spawn(move || {
        for line in BufReader::new(err).lines().map_while(Result::ok) {
            if tx.send((i, line)).is_err() {
                return;
            }
        }
    });
    Kid(child)
}

#[test]
#[ignore = "four GUI processes under Xvfb in network namespaces (root); about a minute"]
fn four_apps_in_four_namespaces_find_each_other_and_play_a_four_signed_hand() {
    let Some(lan) = Lan::new(4) else {
        println!("network namespaces cannot be made here (needs root and iproute2): skipped");
        return;
    };
    let display = format!(":{}", 90 + std::process::id() % 9);
    let Ok(xvfb) = Command::new("Xvfb")
        .args([
            display.as_str(),
            "-screen",
            "0",
            "1280x800x24",
            "-nolisten",
            "tcp",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
    else {
        println!("Xvfb is not installed: skipped");
        return;
    };
    let _xvfb = Kid(xvfb);
    std::thread::sleep(Duration::from_millis(800));
    let dir = std::env::temp_dir().join(format!("shanghai-xvfb-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (tx, rx) = mpsc::channel();
    let start = Instant::now();
    let mut kids = vec![app(1, &lan.hosts[0], &display, &dir, &tx)];
    // The first app opens its table (nobody else is there) before the others start.
    let opened = Instant::now() + Duration::from_secs(30);
    let mut log: Vec<(usize, String)> = Vec::new();
    loop {
        let left = opened.saturating_duration_since(Instant::now());
        assert!(
            !left.is_zero(),
            "the first app did not open a table: {log:?}"
        );
        if let Ok(l) = rx.recv_timeout(left) {
            println!(
                "[{:>5} ms] app {}: {}",
                start.elapsed().as_millis(),
                l.0,
                l.1
            );
            let done = l.1 == "lobby: opened a table";
            log.push(l);
            if done {
                break;
            }
        }
    }
    for i in 2..=4 {
        kids.push(app(i, &lan.hosts[i - 1], &display, &dir, &tx));
    }
    drop(tx);
    let deadline = Instant::now() + Duration::from_secs(180);
    let mut hands: Vec<(usize, String)> = Vec::new();
    let mut seen_ms: Vec<u64> = Vec::new();
    while hands.len() < 4 {
        let left = deadline.saturating_duration_since(Instant::now());
        assert!(
            !left.is_zero(),
            "not every app finished its hand: {hands:?}"
        );
        let Ok((i, line)) = rx.recv_timeout(left) else {
            break;
        };
        println!("[{:>5} ms] app {i}: {line}", start.elapsed().as_millis());
        if let Some(ms) = line
            .strip_prefix("lobby: first table of another peer seen ")
            .and_then(|r| r.split(' ').next())
            .and_then(|n| n.parse().ok())
        {
            seen_ms.push(ms);
        }
        if line.ends_with(" full") && i == 1 {
            // The screen a few seconds into the hand (the last window opened is on top).
            let (d, out) = (display.clone(), dir.join("xvfb-lan.png"));
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_secs(4));
                let shot = Command::new("sh")
                    .arg("-c")
                    .arg(format!(
                        "xwd -root -silent -display {d} | convert xwd:- {}",
                        out.display()
                    ))
                    .status();
                println!("screenshot {}: {shot:?}", out.display());
            });
        }
        if line.starts_with("hand 1:") {
            hands.push((i, line));
        }
    }
    assert_eq!(hands.len(), 4, "every app printed its hand");
    for (i, line) in &hands {
        assert!(line.ends_with(", 4 signatures"), "app {i}: {line}");
    }
    // The same payments at every seat.
    let payments = |l: &str| l.split("payments ").nth(1).map(str::to_string);
    assert!(
        hands
            .iter()
            .all(|(_, l)| payments(l) == payments(&hands[0].1))
    );
    for mut k in kids {
        let status = wait(&mut k.0, Duration::from_secs(30));
        assert_eq!(status, Some(true), "every app quits by itself, exit code 0");
    }
    // Each app's store holds the one hand, four-signed, with the same payments.
    let mut rows = Vec::new();
    for i in 1..=4 {
        let store = mahjong_store::Store::open(&dir.join(format!("p{i}"))).expect("store");
        let ledger = store.ledger().expect("ledger");
        assert_eq!(ledger.len(), 1, "app {i} booked one hand");
        assert_eq!(ledger[0].signatures.len(), 4, "app {i}: four signatures");
        assert_eq!(ledger[0].payments.iter().map(|m| m.0).sum::<i64>(), 0);
        rows.push((ledger[0].hand_id, ledger[0].payments));
    }
    assert!(
        rows.iter().all(|r| *r == rows[0]),
        "one hand, one result: {rows:?}"
    );
    seen_ms.sort_unstable();
    println!(
        "launch to a friend's table (apps 2-4): {seen_ms:?} ms; whole run {:.1} s",
        start.elapsed().as_secs_f64()
    );
    assert_eq!(seen_ms.len(), 3, "apps 2-4 each saw the first app's table");
    if std::env::var_os("KEEP").is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
}

fn wait(child: &mut Child, limit: Duration) -> Option<bool> {
    let end = Instant::now() + limit;
    while Instant::now() < end {
        if let Ok(Some(s)) = child.try_wait() {
            return Some(s.success());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    None
}
