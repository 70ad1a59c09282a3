//! Real `mahjong play --bot` processes on a network: each in its own network namespace on one
//! bridge (addresses 10.77.0.N/24 that exist only inside the namespaces this test makes, so
//! mDNS multicast stays inside), or, where namespaces cannot be made (not root, no `ip`), on
//! loopback with `--peer` and `--no-mdns` (said so on the test's output).
//!
//! Namespace names carry the process id and a counter, so tests run in parallel; a guard
//! deletes them even when a test fails.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

static COUNTER: AtomicU32 = AtomicU32::new(0);

use mahjong_testlan::Lan;

mod support;
use support::{Row, assert_one_leave_in_session, assert_same_ledgers, ledger, serial, shared};

/// Where the peers run.
enum Net {
    Namespaces(Lan),
    /// Loopback: each peer listens on its own port and dials all the others.
    Loopback(Vec<u16>),
}

impl Net {
    /// Loopback ports for `n` peers (tests whose other side runs in this process).
    fn loopback(n: usize) -> Net {
        let ports = (0..n)
            .map(|_| {
                let l = std::net::TcpListener::bind("127.0.0.1:0").expect("free port");
                l.local_addr().expect("addr").port()
            })
            .collect();
        Net::Loopback(ports)
    }

    fn new(n: usize) -> Net {
        match Lan::new(n) {
            Some(lan) => Net::Namespaces(lan),
            None => {
                println!(
                    "network namespaces cannot be made here (needs root and iproute2): \
                     running on loopback with --peer and --no-mdns"
                );
                let ports = (0..n)
                    .map(|_| {
                        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("free port");
                        l.local_addr().expect("addr").port()
                    })
                    .collect();
                Net::Loopback(ports)
            }
        }
    }

    /// The command for peer `i` (0-based) with `args`.
    fn command(&self, i: usize, args: &[String]) -> Command {
        let bin = env!("CARGO_BIN_EXE_mahjong");
        match self {
            Net::Namespaces(lan) => {
                let mut c = Command::new("ip");
                c.args(["netns", "exec", &lan.hosts[i], bin]).args(args);
                c
            }
            Net::Loopback(ports) => {
                let mut c = Command::new(bin);
                c.args(args).args([
                    "--no-mdns".to_string(),
                    "--listen".to_string(),
                    format!("/ip4/127.0.0.1/tcp/{}", ports[i]),
                ]);
                for (j, p) in ports.iter().enumerate() {
                    if j != i {
                        c.args(["--peer".to_string(), format!("/ip4/127.0.0.1/tcp/{p}")]);
                    }
                }
                c
            }
        }
    }
}

/// A running peer whose standard error is collected line by line.
struct Peer {
    child: Child,
    lines: mpsc::Receiver<String>,
    seen: Vec<String>,
}

impl Peer {
    fn spawn(mut cmd: Command) -> Peer {
        let mut child = cmd
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("mahjong starts");
        let stderr = child.stderr.take().expect("piped");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Peer {
            child,
            lines,
            seen: Vec::new(),
        }
    }

    fn drain(&mut self) {
        while let Ok(l) = self.lines.try_recv() {
            support::heard(&mut self.seen, l);
        }
    }

    /// Waits for the exit, at most `limit`; kills it past that.
    fn wait(&mut self, limit: Duration) -> Option<i32> {
        let end = Instant::now() + limit;
        loop {
            self.drain();
            if let Ok(Some(status)) = self.child.try_wait() {
                std::thread::sleep(Duration::from_millis(50));
                self.drain();
                return Some(status.code().unwrap_or(-1));
            }
            if Instant::now() > end {
                let _ = self.child.kill();
                let _ = self.child.wait();
                self.drain();
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn hand_lines(&self) -> Vec<String> {
        self.seen
            .iter()
            .filter(|l| l.starts_with("hand "))
            .cloned()
            .collect()
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "lan-{name}-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

fn play_args(name: &str, dir: &Path, hands: u32, extra: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = [
        "play",
        "--bot",
        "--name",
        name,
        "--data-dir",
        &dir.join(name).to_string_lossy(),
        "--hands",
        &hands.to_string(),
        "--wait",
        "60",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    v.extend(extra.iter().map(|s| s.to_string()));
    v
}

/// The payments of a `hand k/N: …; payments: p0 -20, p1 +60, p2 -20, p3 -20` line.
fn payments(line: &str) -> Vec<f64> {
    let inner = line
        .rsplit_once("payments: ")
        .map(|(_, r)| r)
        .unwrap_or_else(|| panic!("no payments in {line:?}"));
    inner
        .split(", ")
        .map(|x| {
            x.rsplit(' ')
                .next()
                .and_then(|n| n.trim_start_matches('+').parse::<f64>().ok())
                .unwrap_or_else(|| panic!("bad amount in {line:?}"))
        })
        .collect()
}

/// Every peer printed the same N hand lines, each zero-sum.
fn assert_same_hands(peers: &[Peer], hands: usize) {
    let first = peers[0].hand_lines();
    assert_eq!(
        first.len(),
        hands,
        "hand lines of peer 0: {:#?}",
        peers[0].seen
    );
    for (i, p) in peers.iter().enumerate() {
        assert_eq!(
            p.hand_lines(),
            first,
            "peer {i} saw other hands: {:#?}",
            p.seen
        );
    }
    for line in &first {
        let pay = payments(line);
        assert_eq!(pay.len(), 4, "{line}");
        assert!(pay.iter().sum::<f64>().abs() < 1e-9, "not zero-sum: {line}");
    }
}

/// Waits for every peer, all within one limit (past it the rest are killed).
fn wait_all(peers: &mut [Peer], limit: Duration) -> Vec<Option<i32>> {
    let end = Instant::now() + limit;
    peers
        .iter_mut()
        .map(|p| p.wait(end.saturating_duration_since(Instant::now())))
        .collect()
}

fn run_table(
    name: &str,
    n: usize,
    hands: u32,
    extra: &[&str],
) -> (Vec<Peer>, Vec<Option<i32>>, Duration, PathBuf) {
    let net = Net::new(n);
    let dir = scratch(name);
    let start = Instant::now();
    let mut peers: Vec<Peer> = (0..n)
        .map(|i| Peer::spawn(net.command(i, &play_args(&format!("p{i}"), &dir, hands, extra))))
        .collect();
    let codes = wait_all(&mut peers, Duration::from_secs(150));
    let took = start.elapsed();
    drop(net);
    (peers, codes, took, dir)
}

fn names(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("p{i}")).collect()
}

/// A `mahjong watch --json` process: its JSON lines (standard output), its error lines, and
/// its standard input (a line typed is said at the table).
struct Watcher {
    child: Child,
    out: mpsc::Receiver<String>,
    err: mpsc::Receiver<String>,
    events: Vec<serde_json::Value>,
    errors: Vec<String>,
    stdin: Option<std::process::ChildStdin>,
}

impl Watcher {
    fn spawn(net: &Net, slot: usize, dir: &Path, name: &str) -> Watcher {
        let args: Vec<String> = [
            "watch",
            "--json",
            "--wait",
            "60",
            "--data-dir",
            &dir.join(name).to_string_lossy(),
            "--name",
            name,
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let mut child = net
            .command(slot, &args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("mahjong watch starts");
        let lines = |r: Box<dyn std::io::Read + Send>| {
            let (tx, rx) = mpsc::channel();
            std::thread::spawn(move || {
                for line in BufReader::new(r).lines() {
                    let Ok(line) = line else { break };
                    if tx.send(line).is_err() {
                        break;
                    }
                }
            });
            rx
        };
        let out = lines(Box::new(child.stdout.take().expect("piped")));
        let err = lines(Box::new(child.stderr.take().expect("piped")));
        let stdin = child.stdin.take();
        Watcher {
            child,
            out,
            err,
            events: Vec::new(),
            errors: Vec::new(),
            stdin,
        }
    }

    fn drain(&mut self) {
        while let Ok(l) = self.out.try_recv() {
            let v: serde_json::Value = serde_json::from_str(&l)
                .unwrap_or_else(|e| panic!("not one JSON object a line ({e}): {l}"));
            self.events.push(v);
        }
        while let Ok(l) = self.err.try_recv() {
            self.errors.push(l);
        }
    }

    fn saw(&mut self, event: &str) -> usize {
        self.drain();
        self.events.iter().filter(|e| e["event"] == event).count()
    }

    fn say(&mut self, line: &str) {
        if let Some(i) = self.stdin.as_mut() {
            let _ = writeln!(i, "{line}");
        }
    }

    fn wait(&mut self, limit: Duration) -> Option<i32> {
        let end = Instant::now() + limit;
        loop {
            self.drain();
            if let Ok(Some(status)) = self.child.try_wait() {
                std::thread::sleep(Duration::from_millis(50));
                self.drain();
                return Some(status.code().unwrap_or(-1));
            }
            if Instant::now() > end {
                let _ = self.child.kill();
                let _ = self.child.wait();
                self.drain();
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Each hand's end it printed: (hand, payments in cents).
    fn hand_ends(&self) -> Vec<(u32, [i64; 4])> {
        self.events
            .iter()
            .filter(|e| e["event"] == "hand_end")
            .map(|e| {
                let pay: Vec<i64> = e["payments"]
                    .as_array()
                    .expect("payments")
                    .iter()
                    .map(|p| (p.as_f64().expect("a number") * 100.0).round() as i64)
                    .collect();
                (
                    e["hand"].as_u64().expect("hand") as u32,
                    pay.try_into().expect("four payments"),
                )
            })
            .collect()
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Four bot peers find each other and play three hands (the same hands, the same ledgers,
/// each exported log verifies offline), and two friends watch: one from the start, one from
/// mid-session; both see the hands the ledgers book, and the players hear one of them.
#[test]
fn four_bot_peers_play_three_hands_and_two_friends_watch_one_from_mid_session() {
    // Alone: the late watcher must find the table while its last two hands are played (a
    // few seconds); beside another table and a busy build it once found none in 60 s.
    let _serial = serial();
    let net = Net::new(6);
    let dir = scratch("watch");
    let mut peers: Vec<Peer> = (0..4)
        .map(|i| Peer::spawn(net.command(i, &play_args(&format!("p{i}"), &dir, 3, &[]))))
        .collect();
    let mut early = Watcher::spawn(&net, 4, &dir, "w4");
    // The second friend comes once the first hand is over.
    let end = Instant::now() + Duration::from_secs(120);
    while early.saw("hand_end") == 0 && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(
        early.saw("hand_end") > 0,
        "no hand seen: {:?}",
        early.errors
    );
    let mut late = Watcher::spawn(&net, 5, &dir, "w5");
    // The early watcher talks; the players hear it.
    early.say("好牌! nice hand");
    let codes = wait_all(&mut peers, Duration::from_secs(150));
    let early_code = early.wait(Duration::from_secs(60));
    let late_code = late.wait(Duration::from_secs(60));
    drop(net);
    for (i, (p, c)) in peers.iter().zip(&codes).enumerate() {
        assert_eq!(*c, Some(0), "peer {i} failed: {:#?}", p.seen);
    }
    let rows = assert_same_ledgers(&dir, &names(4), 3);
    let booked: Vec<(u32, [i64; 4])> = rows.iter().map(|(_, h, pay, _)| (*h, *pay)).collect();
    for (w, code) in [(&early, early_code), (&late, late_code)] {
        assert_eq!(code, Some(0), "a watcher failed: {:?}", w.errors);
        assert_eq!(w.hand_ends(), booked, "a watcher saw other hands");
        assert_eq!(
            w.events
                .iter()
                .filter(|e| e["event"] == "session_end")
                .count(),
            1
        );
        assert!(w.events.iter().any(|e| e["event"] == "move"));
        assert_eq!(
            w.events.iter().filter(|e| e["event"] == "revealed").count(),
            3,
            "every hand face up at its end"
        );
    }
    // The players saw who watches, and heard the watcher.
    assert!(
        peers
            .iter()
            .any(|p| p.seen.iter().any(|l| l.starts_with("watching now: w4"))),
        "{:#?}",
        peers[0].seen
    );
    for (i, p) in peers.iter().enumerate() {
        assert!(
            p.seen.iter().any(|l| l == "w4 (watching): 好牌! nice hand"),
            "peer {i} did not hear the watcher: {:#?}",
            p.seen
        );
    }
    if let Some(t) = early.events.iter().find(|e| e["event"] == "traffic") {
        println!(
            "one watcher of three hands received {} bytes",
            t["bytes_in"]
        );
    }
}

#[test]
fn a_table_without_watchers_refuses_one_and_a_ninth_watcher_is_refused() {
    let _slot = shared();
    // No watchers at all: one line, exit 1.
    let net = Net::loopback(5);
    let dir = scratch("no-watchers");
    let mut peers: Vec<Peer> = (0..4)
        .map(|i| {
            Peer::spawn(net.command(i, &play_args(&format!("p{i}"), &dir, 1, &["--no-watchers"])))
        })
        .collect();
    let mut w = Watcher::spawn(&net, 4, &dir, "w");
    let code = w.wait(Duration::from_secs(90));
    wait_all(&mut peers, Duration::from_secs(120));
    assert_eq!(code, Some(1), "{:?} {:?}", w.errors, w.events);
    assert_eq!(w.errors.len(), 1, "{:?}", w.errors);
    assert!(
        w.errors[0].starts_with("mahjong: ") && w.errors[0].contains("takes no watchers"),
        "{}",
        w.errors[0]
    );
    // Nine friends come to watch: eight watch to the end, the ninth is told the table is full.
    let net = Net::loopback(13);
    let dir = scratch("nine-watchers");
    let mut peers: Vec<Peer> = (0..4)
        .map(|i| Peer::spawn(net.command(i, &play_args(&format!("p{i}"), &dir, 1, &[]))))
        .collect();
    let mut watchers: Vec<Watcher> = (4..13)
        .map(|i| Watcher::spawn(&net, i, &dir, &format!("w{i}")))
        .collect();
    let codes: Vec<Option<i32>> = watchers
        .iter_mut()
        .map(|w| w.wait(Duration::from_secs(150)))
        .collect();
    wait_all(&mut peers, Duration::from_secs(60));
    let refused: Vec<&Watcher> = watchers
        .iter()
        .zip(&codes)
        .filter(|(_, c)| **c != Some(0))
        .map(|(w, _)| w)
        .collect();
    assert_eq!(refused.len(), 1, "codes {codes:?}");
    assert!(
        refused[0]
            .errors
            .iter()
            .any(|l| l.contains("8 watchers already")),
        "{:?}",
        refused[0].errors
    );
    let booked: Vec<(u32, [i64; 4])> = ledger(&dir.join("p0"))
        .iter()
        .map(|(_, h, pay, _)| (*h, *pay))
        .collect();
    for (w, c) in watchers.iter().zip(&codes) {
        if *c == Some(0) {
            assert_eq!(w.hand_ends(), booked);
        }
    }
}

/// A host that changes one entry of another seat before it serves its watchers: the watcher
/// catches it (the entry does not carry its seat's signature), names the host's peer in one
/// line and stops; the players' table is not disturbed.
#[test]
fn a_host_that_lies_to_its_watcher_is_caught_and_named() {
    let _slot = shared();
    let net = Net::loopback(5);
    let Net::Loopback(ports) = &net else {
        unreachable!()
    };
    let dir = scratch("liar-host");
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    // Every peer would lie to a watcher: whoever hosts, the watcher meets a liar.
    let mut players = Vec::new();
    for i in 0..4usize {
        let _guard = rt.enter();
        let settings = mahjong_net::node::settings(
            &format!("L{i}"),
            mahjong_rules::Ruleset::Qiaoma,
            mahjong_rules::Money::coins(1),
            6,
            0,
        );
        let mut seed = [0u8; 32];
        seed[0] = i as u8;
        seed[1] = 0x1e;
        let mut config =
            mahjong_net::NetConfig::new(ed25519_dalek::SigningKey::from_bytes(&seed), settings);
        config.mdns = false;
        config.listen = vec![
            format!("/ip4/127.0.0.1/tcp/{}", ports[i])
                .parse()
                .expect("addr"),
        ];
        config.peers = (0..4)
            .filter(|&j| j != i)
            .map(|j| {
                format!("/ip4/127.0.0.1/tcp/{}", ports[j])
                    .parse()
                    .expect("addr")
            })
            .collect();
        config.lie_to_watchers = true;
        let (network, mut events) =
            mahjong_net::spawn(config, Box::new(mahjong_net::MemoryStorage::new())).expect("spawn");
        let (tx, rx) = mpsc::channel();
        rt.spawn(async move {
            let _keep = network;
            while let Some(ev) = events.recv().await {
                if tx.send(ev).is_err() {
                    break;
                }
            }
        });
        players.push(rx);
    }
    let mut w = Watcher::spawn(&net, 4, &dir, "w");
    let code = w.wait(Duration::from_secs(90));
    assert_eq!(code, Some(1), "{:?} {:?}", w.errors, w.events.len());
    assert_eq!(w.errors.len(), 1, "{:?}", w.errors);
    assert!(
        w.errors[0].starts_with("mahjong: ")
            && w.errors[0].contains("showed this watcher a false game")
            && w.errors[0].contains("does not carry the seat's signature"),
        "{}",
        w.errors[0]
    );
    assert!(
        !w.events.iter().any(|e| e["event"] == "session_end"),
        "a doctored log was taken to its end"
    );
    // The players go on: their table finishes its hands.
    let end = Instant::now() + Duration::from_secs(120);
    let mut over = 0;
    for rx in &players {
        while Instant::now() < end {
            match rx.recv_timeout(Duration::from_millis(200)) {
                Ok(mahjong_net::NetEvent::Table(mahjong_table::TableEvent::SessionOver {
                    ..
                })) => {
                    over += 1;
                    break;
                }
                Ok(_) | Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
    }
    drop(rt);
    assert_eq!(over, 4, "the players' table did not finish");
}

/// Griefers at the table's peers: each asks to watch and never reads, asks again many times
/// a second and sends bad frames. The table plays on to its end, every peer's memory stays
/// bounded, and an honest watcher sees every hand. Prints the figure.
#[test]
fn watchers_that_never_read_and_flood_leave_the_table_playing_and_its_peers_small() {
    let _serial = serial();
    let net = Net::loopback(5);
    let Net::Loopback(ports) = &net else {
        unreachable!()
    };
    let dir = scratch("bad-watchers");
    let mut peers: Vec<Peer> = (0..4)
        .map(|i| Peer::spawn(net.command(i, &play_args(&format!("p{i}"), &dir, 3, &[]))))
        .collect();
    let mut honest = Watcher::spawn(&net, 4, &dir, "w");
    let end = Instant::now() + Duration::from_secs(90);
    while honest.saw("watching") == 0 && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(50));
    }
    let table = honest
        .events
        .iter()
        .find(|e| e["event"] == "watching")
        .and_then(|e| e["table"].as_str())
        .and_then(mahjong_store::from_hex32)
        .unwrap_or_else(|| panic!("the honest watcher found no table: {:?}", honest.errors));
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let mut griefers = Vec::new();
    for (i, port) in ports[..4].iter().enumerate() {
        for g in 0..3u8 {
            let addr: libp2p::Multiaddr =
                format!("/ip4/127.0.0.1/tcp/{port}").parse().expect("addr");
            let mut seed = [0u8; 32];
            seed[0] = i as u8;
            seed[1] = g;
            seed[2] = 0x9e;
            griefers.push(rt.spawn(hostile::bad_watcher(
                addr,
                seed,
                table,
                [2, 40, 400][g as usize],
                Duration::from_secs(20),
            )));
        }
    }
    let pids: Vec<u32> = peers.iter().map(|p| p.child.id()).collect();
    let watch = std::thread::spawn(move || {
        let end = Instant::now() + Duration::from_secs(20);
        let mut max = 0;
        while Instant::now() < end {
            for &pid in &pids {
                max = max.max(rss_kib(pid));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        max
    });
    let sent: u32 = rt.block_on(async {
        let mut n = 0;
        for g in griefers {
            n += g.await.unwrap_or(0);
        }
        n
    });
    let max_rss = watch.join().expect("rss");
    let codes = wait_all(&mut peers, Duration::from_secs(150));
    let code = honest.wait(Duration::from_secs(60));
    drop(rt);
    println!("peers' RSS at most {max_rss} KiB under 12 griefers that wrote {sent} messages");
    for (i, (p, c)) in peers.iter().zip(&codes).enumerate() {
        assert_eq!(*c, Some(0), "peer {i} failed: {:#?}", p.seen);
    }
    let rows = assert_same_ledgers(&dir, &names(4), 3);
    let booked: Vec<(u32, [i64; 4])> = rows.iter().map(|(_, h, pay, _)| (*h, *pay)).collect();
    assert_eq!(code, Some(0), "{:?}", honest.errors);
    assert_eq!(honest.hand_ends(), booked);
    assert!(sent > 100, "the griefers did not get going: {sent}");
    assert!(max_rss <= 96 * 1024, "a peer grew to {max_rss} KiB");
}

#[test]
fn two_peers_play_a_table_with_two_bots_spread_one_each() {
    let _slot = shared();
    let (peers, codes, _, dir) = run_table("bots", 2, 1, &["--bots", "2"]);
    for (i, (p, c)) in peers.iter().zip(&codes).enumerate() {
        assert_eq!(*c, Some(0), "peer {i} failed: {:#?}", p.seen);
    }
    assert_same_hands(&peers, 1);
    assert_same_ledgers(&dir, &names(2), 1);
    for p in &peers {
        let full = p
            .seen
            .iter()
            .find(|l| l.starts_with("seats: "))
            .expect("seats line");
        assert_eq!(full.matches("bot of p0").count(), 1, "{full}");
        assert_eq!(full.matches("bot of p1").count(), 1, "{full}");
    }
}

#[test]
fn a_lone_peer_gives_up_after_wait_with_one_line() {
    let _slot = shared();
    let net = Net::new(1);
    let dir = scratch("alone");
    let mut args = play_args("p0", &dir, 1, &[]);
    let pos = args.iter().position(|a| a == "60").expect("wait");
    args[pos] = "2".into();
    let mut p = Peer::spawn(net.command(0, &args));
    let code = p.wait(Duration::from_secs(30));
    assert_eq!(code, Some(1), "{:#?}", p.seen);
    let last = p.seen.last().expect("a line");
    assert_eq!(last, "mahjong: no table filled within 2 seconds");
}

/// Kills one peer with SIGKILL at a random moment of a hand and restarts it on the same data
/// dir; the table goes on to the end. Returns the ledgers' agreement (asserted) and the time.
fn kill_and_restart(seed: u64) -> Duration {
    let net = Net::new(4);
    let dir = scratch(&format!("kill{seed}"));
    let hands = 3;
    let start = Instant::now();
    let mut peers: Vec<Peer> = (0..4)
        .map(|i| Peer::spawn(net.command(i, &play_args(&format!("p{i}"), &dir, hands, &[]))))
        .collect();
    // A pseudo-random victim and moment: some time into the first hand.
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ u64::from(std::process::id());
    x ^= x >> 31;
    let victim = ((x >> 17) % 4) as usize;
    let delay = Duration::from_millis(300 + (x >> 8) % 1500);
    // Wait for the table to fill at the victim, then for the random moment.
    wait_until(&mut peers[victim], Duration::from_secs(60), |l| {
        l.starts_with("set-up agreed")
    });
    std::thread::sleep(delay);
    let _ = peers[victim].child.kill(); // SIGKILL
    let _ = peers[victim].child.wait();
    peers[victim].drain();
    let before = peers[victim].seen.clone();
    println!(
        "seed {seed}: killed p{victim} {} ms after the set-up ({} hand lines seen)",
        delay.as_millis(),
        before.iter().filter(|l| l.starts_with("hand ")).count()
    );
    std::thread::sleep(Duration::from_millis(200));
    peers[victim] =
        Peer::spawn(net.command(victim, &play_args(&format!("p{victim}"), &dir, hands, &[])));
    let codes = wait_all(&mut peers, Duration::from_secs(150));
    for (i, (p, c)) in peers.iter().zip(&codes).enumerate() {
        assert_eq!(
            *c,
            Some(0),
            "seed {seed}: peer {i} failed: {:#?}\nbefore the kill: {before:#?}",
            p.seen
        );
    }
    assert_same_ledgers(&dir, &names(4), hands as usize);
    let took = start.elapsed();
    drop(net);
    took
}

/// Four kills at random moments (the victim and the moment vary with the process id too);
/// `MAHJONG_KILL_RUNS=N` for more, and `a_hundred_kills` (ignored) for the long run.
#[test]
fn a_peer_killed_mid_hand_resumes_and_the_ledgers_agree() {
    let _slot = shared();
    let runs: u64 = std::env::var("MAHJONG_KILL_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(4);
    for seed in 0..runs {
        let took = kill_and_restart(seed);
        println!("seed {seed}: {:.1} s", took.as_secs_f64());
    }
}

/// A long session of four bot peers (`LONG_LAN_HANDS`, default 200): a peer's memory stays
/// flat (each seat holds two hands of the log; the rest is in its store), and a peer killed
/// late in the session is back as fast as one killed early (it reads its journal from the
/// last checkpoint on). Prints the figures: `LONG_LAN_HANDS=200 cargo test --release -p
/// mahjong-cli --test lan a_long_session -- --ignored --nocapture`.
#[test]
#[ignore = "long: a 200-hand session of four peers (about ten minutes)"]
fn a_long_session_keeps_a_peer_flat() {
    let _serial = serial();
    let hands: u32 = std::env::var("LONG_LAN_HANDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200)
        .max(40);
    let net = Net::new(4);
    let dir = scratch("long");
    let mut peers: Vec<Peer> = (0..4)
        .map(|i| Peer::spawn(net.command(i, &play_args(&format!("p{i}"), &dir, hands, &[]))))
        .collect();
    let started = Instant::now();
    let reached = |p: &mut Peer, k: u32| {
        wait_until(p, Duration::from_secs(60 * u64::from(k)), |l| {
            l.starts_with(&format!("hand {k}/"))
        })
    };
    // Peer 1 killed (SIGKILL) at the end of hand `k` and started again: how long until it
    // has resumed its seat from the store.
    let restart = |peers: &mut Vec<Peer>, k: u32| -> Duration {
        assert!(reached(&mut peers[1], k), "{:#?}", peers[1].seen);
        let _ = peers[1].child.kill();
        let _ = peers[1].child.wait();
        let t = Instant::now();
        peers[1] = Peer::spawn(net.command(1, &play_args("p1", &dir, hands, &[])));
        assert!(
            wait_until(&mut peers[1], Duration::from_secs(60), |l| l
                .starts_with("resuming table")),
            "{:#?}",
            peers[1].seen
        );
        t.elapsed()
    };
    let mut rss = Vec::new();
    let early = restart(&mut peers, 5);
    for k in [10, hands / 4, hands / 2, 3 * hands / 4] {
        assert!(reached(&mut peers[0], k), "{:#?}", peers[0].seen);
        rss.push((k, rss_kib(peers[0].child.id())));
    }
    let late = restart(&mut peers, hands - 8);
    assert!(reached(&mut peers[0], hands - 2), "{:#?}", peers[0].seen);
    rss.push((hands - 2, rss_kib(peers[0].child.id())));
    let codes = wait_all(&mut peers, Duration::from_secs(600));
    for (p, c) in peers.iter().zip(&codes) {
        assert_eq!(
            *c,
            Some(0),
            "{:#?}",
            p.seen.iter().rev().take(20).collect::<Vec<_>>()
        );
    }
    let took = started.elapsed();
    println!(
        "{hands} hands in {:.0} s ({:.2} s a hand)",
        took.as_secs_f64(),
        took.as_secs_f64() / f64::from(hands)
    );
    for (k, kib) in &rss {
        println!(
            "peer 0 after hand {k:>3}: RSS {:.1} MiB",
            *kib as f64 / 1024.0
        );
    }
    println!(
        "peer 1 resumed {:.2} s after a restart at hand 5 and {:.2} s after one at hand {}",
        early.as_secs_f64(),
        late.as_secs_f64(),
        hands - 8
    );
    assert_same_ledgers(&dir, &names(4), hands as usize);
    // Flat: the last sample within a margin of the one at hand 10 (allocator noise), and a
    // late restart not much slower than an early one.
    let (first, last) = (rss[0].1 as f64, rss[rss.len() - 1].1 as f64);
    assert!(last < first * 1.5 + 8192.0, "RSS grew: {rss:?}");
    assert!(
        late < early * 3 + Duration::from_secs(1),
        "{early:?} then {late:?}"
    );
    drop(net);
}

#[test]
#[ignore = "long: 100 kills; run with --ignored"]
fn a_hundred_kills() {
    let _serial = serial();
    // Every run is played even when one fails, so that the figures count them all.
    let mut took = Vec::new();
    let mut failed: Vec<(u64, String)> = Vec::new();
    for seed in 1000..1100 {
        match std::panic::catch_unwind(|| kill_and_restart(seed)) {
            Ok(t) => {
                println!("seed {seed}: {:.1} s", t.as_secs_f64());
                took.push(t.as_secs_f64());
            }
            Err(e) => {
                let why = e
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                println!("seed {seed}: FAILED: {why}");
                failed.push((seed, why));
            }
        }
    }
    let mean = took.iter().sum::<f64>() / took.len().max(1) as f64;
    let max = took.iter().copied().fold(0.0, f64::max);
    println!(
        "{} of {} kills survived (the session finished, ledgers identical); \
         {mean:.1} s a session on average, {max:.1} s at most",
        took.len(),
        took.len() + failed.len()
    );
    let seeds: Vec<u64> = failed.iter().map(|(s, _)| *s).collect();
    assert!(failed.is_empty(), "failed seeds: {seeds:?}");
}

// ---- hostile peers (test code, not a flag of the shipped binary) ----

mod hostile {
    use futures::{AsyncWriteExt, StreamExt};
    use libp2p::swarm::{NetworkBehaviour, SwarmEvent};
    use libp2p::{Multiaddr, StreamProtocol, identify, noise, tcp, yamux};
    use std::time::Duration;

    #[derive(NetworkBehaviour)]
    pub struct Raw {
        identify: identify::Behaviour,
        stream: libp2p_stream::Behaviour,
    }

    /// A raw libp2p peer speaking the game's protocol by hand (identify announces the
    /// game's version), with identity `keypair`.
    fn raw_swarm(keypair: libp2p::identity::Keypair) -> libp2p::Swarm<Raw> {
        libp2p::SwarmBuilder::with_existing_identity(keypair)
            .with_tokio()
            .with_tcp(
                tcp::Config::default(),
                noise::Config::new,
                yamux::Config::default,
            )
            .expect("tcp")
            .with_behaviour(|key| Raw {
                identify: identify::Behaviour::new(identify::Config::new(
                    mahjong_net::PROTOCOL_VERSION.to_string(),
                    key.public(),
                )),
                stream: libp2p_stream::Behaviour::new(),
            })
            .expect("behaviour")
            .with_swarm_config(|c| c.with_idle_connection_timeout(Duration::from_secs(60)))
            .build()
    }

    /// Connects to `addr` with a fresh identity, writes `payload` on a stream of the game's
    /// protocol, and tells whether the target closed the connection within 10 s.
    pub async fn attack(addr: Multiaddr, payload: Vec<u8>) -> bool {
        let mut swarm = raw_swarm(libp2p::identity::Keypair::generate_ed25519());
        let protocol = StreamProtocol::new(mahjong_net::PROTOCOL);
        let mut control = swarm.behaviour().stream.new_control();
        // Take the target's own stream (and ignore what it says).
        let mut incoming = control.accept(protocol.clone()).expect("accept");
        tokio::spawn(async move {
            while let Some((_, mut s)) = incoming.next().await {
                tokio::spawn(async move {
                    let mut buf = vec![0u8; 4096];
                    while futures::AsyncReadExt::read(&mut s, &mut buf)
                        .await
                        .is_ok_and(|n| n > 0)
                    {}
                });
            }
        });
        swarm.dial(addr).expect("dial");
        let peer = loop {
            match swarm.select_next_some().await {
                SwarmEvent::ConnectionEstablished { peer_id, .. } => break peer_id,
                SwarmEvent::OutgoingConnectionError { error, .. } => panic!("dial: {error}"),
                _ => {}
            }
        };
        tokio::spawn(async move {
            if let Ok(mut s) = control.open_stream(peer, protocol).await {
                let _ = s.write_all(&payload).await;
                let _ = s.flush().await;
                tokio::time::sleep(Duration::from_secs(20)).await;
            }
        });
        tokio::time::timeout(Duration::from_secs(10), async {
            loop {
                if let SwarmEvent::ConnectionClosed { .. } = swarm.select_next_some().await {
                    return;
                }
            }
        })
        .await
        .is_ok()
    }

    /// Connects to `addr` as the identity of `seed` (retrying for a while when refused at the
    /// target's connection limit, as a real flood would): the swarm, its stream control and
    /// the target's peer id. The target's own stream is read and ignored.
    pub async fn connect_as(
        addr: Multiaddr,
        seed: [u8; 32],
    ) -> Option<(libp2p::Swarm<Raw>, libp2p_stream::Control, libp2p::PeerId)> {
        let mut secret = seed;
        let keypair = libp2p::identity::Keypair::ed25519_from_bytes(&mut secret).expect("key");
        let mut swarm = raw_swarm(keypair);
        let protocol = StreamProtocol::new(mahjong_net::PROTOCOL);
        let mut control = swarm.behaviour().stream.new_control();
        let mut incoming = control.accept(protocol).expect("accept");
        tokio::spawn(async move {
            while let Some((_, mut s)) = incoming.next().await {
                tokio::spawn(async move {
                    let mut buf = vec![0u8; 4096];
                    while futures::AsyncReadExt::read(&mut s, &mut buf)
                        .await
                        .is_ok_and(|n| n > 0)
                    {}
                });
            }
        });
        let give_up = tokio::time::Instant::now() + Duration::from_secs(15);
        let peer = 'dial: loop {
            if tokio::time::Instant::now() > give_up || swarm.dial(addr.clone()).is_err() {
                return None;
            }
            loop {
                match swarm.select_next_some().await {
                    SwarmEvent::ConnectionEstablished { peer_id, .. } => break 'dial peer_id,
                    SwarmEvent::OutgoingConnectionError { .. } => break,
                    _ => {}
                }
            }
            tokio::time::sleep(Duration::from_millis(1000)).await;
        };
        Some((swarm, control, peer))
    }

    /// A hostile watcher of `table` at `addr`: it asks to watch, never reads a byte it is
    /// sent, and asks again `asks_per_second` times a second with bad frames between, until
    /// `hold` passed. Returns the messages it wrote.
    pub async fn bad_watcher(
        addr: Multiaddr,
        seed: [u8; 32],
        table: [u8; 32],
        asks_per_second: u32,
        hold: Duration,
    ) -> u32 {
        let mut secret = seed;
        let keypair = libp2p::identity::Keypair::ed25519_from_bytes(&mut secret).expect("key");
        let mut swarm = raw_swarm(keypair);
        let protocol = StreamProtocol::new(mahjong_net::PROTOCOL);
        let mut control = swarm.behaviour().stream.new_control();
        let mut incoming = control.accept(protocol.clone()).expect("accept");
        // The target's stream is taken and never read: what it sends piles up on its side.
        tokio::spawn(async move {
            let mut held = Vec::new();
            while let Some((_, s)) = incoming.next().await {
                held.push(s);
            }
        });
        if swarm.dial(addr).is_err() {
            return 0;
        }
        let end = tokio::time::Instant::now() + hold;
        let peer = loop {
            match tokio::time::timeout_at(end, swarm.select_next_some()).await {
                Ok(SwarmEvent::ConnectionEstablished { peer_id, .. }) => break peer_id,
                Ok(SwarmEvent::OutgoingConnectionError { .. }) | Err(_) => return 0,
                _ => {}
            }
        };
        let written = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
        let count = written.clone();
        let writer = tokio::spawn(async move {
            let Ok(mut s) = control.open_stream(peer, protocol).await else {
                return;
            };
            let frame = |w: &mahjong_net::wire::Wire| {
                let b = w.encode();
                let mut out = (b.len() as u32).to_be_bytes().to_vec();
                out.extend_from_slice(&b);
                out
            };
            let hello = mahjong_net::wire::Wire::Hello {
                version: mahjong_net::wire::WIRE_VERSION,
                name: "griefer".into(),
            };
            if s.write_all(&frame(&hello)).await.is_err() {
                return;
            }
            let pause = Duration::from_millis(1000 / u64::from(asks_per_second.max(1)));
            loop {
                let ask = mahjong_net::wire::Wire::Watch { table, from: 0 };
                let junk = mahjong_net::wire::Wire::Frame {
                    table,
                    to: 0,
                    bytes: vec![0x55; 300],
                };
                if s.write_all(&frame(&ask)).await.is_err()
                    || s.write_all(&frame(&junk)).await.is_err()
                    || s.flush().await.is_err()
                {
                    return;
                }
                count.fetch_add(2, std::sync::atomic::Ordering::SeqCst);
                tokio::time::sleep(pause).await;
            }
        });
        drive(&mut swarm, end).await;
        writer.abort();
        written.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Drives `swarm` until `end` (its connection lives only while it is polled); whether
    /// the target closed the connection by then.
    pub async fn drive(swarm: &mut libp2p::Swarm<Raw>, end: tokio::time::Instant) -> bool {
        while tokio::time::Instant::now() < end {
            if let Ok(SwarmEvent::ConnectionClosed { .. }) =
                tokio::time::timeout_at(end, swarm.select_next_some()).await
            {
                return true;
            }
        }
        false
    }

    /// Connects as the identity of `seed` and opens `streams` streams, on each a length
    /// prefix of the largest message and all of it but 100 bytes, then nothing more. Returns
    /// (streams whose bytes were all written, whether the target hung up within `hold`).
    pub async fn stall_streams(
        addr: Multiaddr,
        seed: [u8; 32],
        streams: usize,
        hold: Duration,
    ) -> (u32, bool) {
        let Some((mut swarm, control, peer)) = connect_as(addr, seed).await else {
            return (0, false);
        };
        let written = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
        let mut tasks = Vec::new();
        for _ in 0..streams {
            let mut control = control.clone();
            let count = written.clone();
            tasks.push(tokio::spawn(async move {
                let protocol = StreamProtocol::new(mahjong_net::PROTOCOL);
                let Ok(mut s) = control.open_stream(peer, protocol).await else {
                    return;
                };
                let max = mahjong_net::wire::MAX_MESSAGE;
                let mut bytes = (max as u32).to_be_bytes().to_vec();
                bytes.resize(4 + max - 100, 0x11);
                if s.write_all(&bytes).await.is_ok() && s.flush().await.is_ok() {
                    count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                }
                tokio::time::sleep(Duration::from_secs(60)).await;
                drop(s);
            }));
        }
        let closed = drive(&mut swarm, tokio::time::Instant::now() + hold).await;
        for t in tasks {
            t.abort();
        }
        (written.load(std::sync::atomic::Ordering::SeqCst), closed)
    }

    /// Connects to `addr` as the identity of `seed`, sends `adverts` adverts of a table it
    /// "hosts" (its id bound to that identity, a name and four seat names of `name_len`
    /// bytes each, another stake than the target's so it never asks for a seat), one every
    /// 20 ms with rising revisions, and stays connected for `hold`. Returns how many were
    /// written (past the stream's window, a write completes only as the target reads).
    pub async fn flood_adverts(
        addr: Multiaddr,
        seed: [u8; 32],
        adverts: u32,
        name_len: usize,
        hold: Duration,
    ) -> u32 {
        let signer = ed25519_dalek::SigningKey::from_bytes(&seed);
        let key = signer.verifying_key();
        let Some((mut swarm, mut control, peer)) = connect_as(addr, seed).await else {
            return 0;
        };
        let protocol = StreamProtocol::new(mahjong_net::PROTOCOL);
        let nonce = [seed[0] ^ 0x5a; 32];
        let long = |c: char| c.to_string().repeat(name_len);
        let seat = mahjong_net::SeatInfo {
            key,
            name: format!("\u{1b}[31m{}", long('n')),
            peer: key,
            bot: false,
        };
        let mut advert = mahjong_net::Advert {
            table: mahjong_net::wire::table_id(&key, &nonce),
            host: key,
            nonce,
            name: format!("\u{202e}{}", long('t')),
            preset: mahjong_rules::Ruleset::Qiaoma,
            options_hash: mahjong_net::lobby::options_hash(mahjong_rules::Ruleset::Qiaoma),
            stake: mahjong_rules::Money::coins(7),
            hands: 1,
            bots: 0,
            seats: [Some(seat.clone()), Some(seat.clone()), Some(seat), None],
            state: mahjong_net::TableState::Open,
            revision: 1,
            chosen: false,
        };
        let written = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
        let count = written.clone();
        let sender = tokio::spawn(async move {
            let Ok(mut s) = control.open_stream(peer, protocol).await else {
                return;
            };
            for r in 0..adverts {
                advert.revision = 2 + u64::from(r);
                let signed = mahjong_net::SignedAdvert::sign(advert.clone(), &signer);
                let bytes = mahjong_net::Wire::Advert(Box::new(signed)).encode();
                if s.write_all(&framed(&bytes)).await.is_err() || s.flush().await.is_err() {
                    return;
                }
                count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            tokio::time::sleep(hold).await;
        });
        let end =
            tokio::time::Instant::now() + hold + Duration::from_millis(20 * u64::from(adverts));
        drive(&mut swarm, end).await;
        sender.abort();
        written.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// A length-prefixed message.
    pub fn framed(bytes: &[u8]) -> Vec<u8> {
        let mut v = (bytes.len() as u32).to_be_bytes().to_vec();
        v.extend_from_slice(bytes);
        v
    }
}

fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|v| v.parse().ok()))
        })
        .unwrap_or(0)
}

#[test]
fn hostile_peers_are_disconnected_and_the_table_plays_on() {
    let _slot = shared();
    let net = Net::loopback(4);
    let Net::Loopback(ports) = &net else {
        unreachable!()
    };
    let target: libp2p::Multiaddr = format!("/ip4/127.0.0.1/tcp/{}", ports[0])
        .parse()
        .expect("addr");
    let dir = scratch("hostile");
    let mut peers: Vec<Peer> = (0..4)
        .map(|i| Peer::spawn(net.command(i, &play_args(&format!("p{i}"), &dir, 2, &[]))))
        .collect();
    wait_until(&mut peers[0], Duration::from_secs(60), |l| {
        l.starts_with("set-up agreed")
    });
    let rss_before = rss_kib(peers[0].child.id());
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    // 1. A length far over the limit.
    let mut oversized = u32::MAX.to_be_bytes().to_vec();
    oversized.extend_from_slice(&[0; 1024]);
    // 2. Random bytes in a valid length.
    let mut x: u64 = 0x1234_5678;
    let noise: Vec<u8> = (0..2000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    // 3. A flood of valid-looking frames for another table.
    let mut flood = Vec::new();
    for i in 0..20_000u32 {
        let w = mahjong_net::Wire::Frame {
            table: [0xab; 32],
            to: 0b1111,
            bytes: vec![(i % 251) as u8; 600],
        };
        flood.extend(hostile::framed(&w.encode()));
    }
    let mut max_rss = rss_before;
    let mut results = Vec::new();
    for (what, payload) in [
        ("oversized", oversized),
        ("random bytes", hostile::framed(&noise)),
        ("flood", flood),
    ] {
        let t = target.clone();
        let closed = rt.block_on(hostile::attack(t, payload));
        max_rss = max_rss.max(rss_kib(peers[0].child.id()));
        results.push((what, closed));
    }
    let codes = wait_all(&mut peers, Duration::from_secs(150));
    drop(rt);
    for (i, (p, c)) in peers.iter().zip(&codes).enumerate() {
        assert_eq!(*c, Some(0), "peer {i} failed: {:#?}", p.seen);
    }
    for (what, closed) in &results {
        assert!(
            closed,
            "the {what} attacker was not disconnected: {:#?}",
            peers[0].seen
        );
    }
    let log = peers[0].seen.join("\n");
    assert!(log.contains("over the"), "{log}");
    assert!(log.contains("does not decode"), "{log}");
    assert!(log.contains("for a table it does not share"), "{log}");
    assert_same_ledgers(&dir, &names(4), 2);
    println!(
        "attacked peer RSS: {} KiB before, at most {} KiB during the attacks ({} MB of flood)",
        rss_before,
        max_rss,
        20_000 * 650 / 1_000_000
    );
    assert!(max_rss < 200 * 1024, "RSS grew to {max_rss} KiB");
}

fn in_process_peer(
    rt: &tokio::runtime::Runtime,
    port: u16,
    others: &[u16],
    wire_version: u32,
    tamper: Option<mahjong_net::Tamper>,
) -> std::sync::mpsc::Receiver<mahjong_net::NetEvent> {
    let _guard = rt.enter();
    let mut seed = [0u8; 32];
    seed[..2].copy_from_slice(&port.to_le_bytes());
    seed[2] = 0x77;
    let identity = ed25519_dalek::SigningKey::from_bytes(&seed);
    let settings = mahjong_net::node::settings(
        "intruder",
        mahjong_rules::Ruleset::Qiaoma,
        mahjong_rules::Money::coins(1),
        1,
        0,
    );
    let mut config = mahjong_net::NetConfig::new(identity, settings);
    config.mdns = false;
    config.listen = vec![format!("/ip4/127.0.0.1/tcp/{port}").parse().expect("addr")];
    config.peers = others
        .iter()
        .map(|p| format!("/ip4/127.0.0.1/tcp/{p}").parse().expect("addr"))
        .collect();
    config.wire_version = wire_version;
    config.tamper = tamper;
    let (network, mut events) =
        mahjong_net::spawn(config, Box::new(mahjong_net::MemoryStorage::new())).expect("spawn");
    let (tx, rx) = std::sync::mpsc::channel();
    rt.spawn(async move {
        let _keep = network;
        while let Some(ev) = events.recv().await {
            if tx.send(ev).is_err() {
                break;
            }
        }
    });
    rx
}

#[test]
fn a_peer_of_another_version_is_told_so_in_one_line() {
    let _slot = shared();
    let net = Net::loopback(2);
    let Net::Loopback(ports) = &net else {
        unreachable!()
    };
    let dir = scratch("version");
    let mut args = play_args("p0", &dir, 1, &[]);
    let pos = args.iter().position(|a| a == "60").expect("wait");
    args[pos] = "6".into();
    let mut honest = Peer::spawn(net.command(0, &args));
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let ours = mahjong_net::wire::WIRE_VERSION;
    let newer = ours + 1;
    let events = in_process_peer(&rt, ports[1], &ports[..1], newer, None);
    let mut told = None;
    let end = Instant::now() + Duration::from_secs(20);
    while Instant::now() < end && told.is_none() {
        if let Ok(mahjong_net::NetEvent::Incompatible { theirs, .. }) =
            events.recv_timeout(Duration::from_millis(100))
        {
            told = Some(theirs);
        }
    }
    let code = honest.wait(Duration::from_secs(30));
    drop(rt);
    // Each side learns the other's version from identify or, when the other hung up first,
    // that the other lacks its protocol: either way one clear line.
    let told = told.expect("the newer peer was told");
    assert!(
        told == format!("shanghai-mahjong/{ours}")
            || told == format!("a protocol without /shanghai-mahjong/{newer}"),
        "{told}"
    );
    let lines: Vec<&String> = honest
        .seen
        .iter()
        .filter(|l| l.contains("both must run the same version of mahjong"))
        .collect();
    assert_eq!(lines.len(), 1, "{:#?}", honest.seen);
    assert!(
        lines[0].contains(&format!("speaks shanghai-mahjong/{newer}"))
            || lines[0].contains(&format!(
                "speaks a protocol without /shanghai-mahjong/{ours}"
            )),
        "{}",
        lines[0]
    );
    assert_eq!(code, Some(1), "it waited for a table and gave up cleanly");
}

#[test]
fn an_equivocating_peer_is_caught_and_the_others_abort_with_evidence() {
    let _slot = shared();
    let net = Net::loopback(4);
    let Net::Loopback(ports) = &net else {
        unreachable!()
    };
    let dir = scratch("liar");
    // Three honest processes; the fourth seat is a lying peer in this process.
    let mut peers: Vec<Peer> = (0..3)
        .map(|i| {
            let mut c = net.command(i, &play_args(&format!("p{i}"), &dir, 1, &[]));
            c.args([
                "--peer".to_string(),
                format!("/ip4/127.0.0.1/tcp/{}", ports[3]),
            ]);
            c
        })
        .collect::<Vec<_>>()
        .into_iter()
        .map(Peer::spawn)
        .collect();
    let mut seed = [0u8; 32];
    seed[..2].copy_from_slice(&ports[3].to_le_bytes());
    seed[2] = 0x77;
    let key = ed25519_dalek::SigningKey::from_bytes(&seed);
    // One honest seat gets one version of the liar's first discard, the two others the other.
    let tamper = mahjong_net::equivocate_once(key);
    // The liar joins a table an honest peer opened (a host that leaves is a separate case).
    std::thread::sleep(Duration::from_millis(2500));
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let _events = in_process_peer(
        &rt,
        ports[3],
        &ports[..3],
        mahjong_net::wire::WIRE_VERSION,
        Some(tamper),
    );
    let codes = wait_all(&mut peers, Duration::from_secs(150));
    drop(rt);
    for (i, (p, c)) in peers.iter().zip(&codes).enumerate() {
        assert!(c.is_some(), "peer {i} hung: {:#?}", p.seen);
        assert!(
            p.seen.iter().any(|l| l.contains("proven at fault")),
            "peer {i} found no fault: {:#?}",
            p.seen
        );
        assert_eq!(
            *c,
            Some(1),
            "peer {i} must exit non-zero naming the fault: {:#?}",
            p.seen
        );
    }
    // The honest ledgers agree and hold the abort naming the liar.
    let first = ledger(&dir.join("p0"));
    for n in ["p1", "p2"] {
        assert_eq!(ledger(&dir.join(n)), first, "ledger of {n}");
    }
    // The abort naming the liar, then the session played to its end with a bot in the
    // liar's seat (its hands signed by all four seats).
    let aborted = first
        .iter()
        .position(|(_, _, _, signers)| signers.len() == 3)
        .unwrap_or_else(|| panic!("no abort: {first:?}"));
    assert!(
        first.len() > aborted + 1,
        "no hand after the abort: {first:?}"
    );
    assert!(
        first[aborted + 1..]
            .iter()
            .all(|(_, _, _, signers)| signers == &vec![0, 1, 2, 3]),
        "{first:?}"
    );
    for (i, p) in peers.iter().enumerate() {
        assert!(
            p.seen.iter().any(|l| l.contains("is replaced by a bot")),
            "peer {i}: {:#?}",
            p.seen
        );
    }
}

/// A peer killed for good (never restarted): after `--disconnect-seconds` the other three
/// vote its seat out, a bot run by the next seat's peer takes it, and the three finish the
/// session with identical ledgers (the abort with three votes, then four-signed hands).
#[test]
fn a_peer_killed_for_good_is_replaced_by_a_bot_and_the_others_finish() {
    let _slot = shared();
    let net = Net::new(4);
    let dir = scratch("gone");
    // Enough hands that the one the kill lands in is not the last, even on an idle machine
    // where a hand takes well under a second.
    let hands = 4;
    let extra = ["--disconnect-seconds", "8"];
    let mut peers: Vec<Peer> = (0..4)
        .map(|i| Peer::spawn(net.command(i, &play_args(&format!("p{i}"), &dir, hands, &extra))))
        .collect();
    let victim = 2;
    wait_until(&mut peers[victim], Duration::from_secs(60), |l| {
        l.starts_with("set-up agreed")
    });
    std::thread::sleep(Duration::from_millis(800));
    assert!(wait_until(&mut peers[0], Duration::from_secs(10), |l| l
        .starts_with("table ")));
    assert!(
        seat_of(&peers[0], &format!("p{victim}")).is_some(),
        "the victim's seat: {:#?}",
        peers[0].seen
    );
    let _ = peers[victim].child.kill(); // SIGKILL, and no restart
    let _ = peers[victim].child.wait();
    let killed = Instant::now();
    let mut dead = peers.remove(victim);
    dead.drain();
    // Its connections closed: the others report its seat silent ("reconnecting…") within
    // a few seconds, whoever's turn it is.
    for p in peers.iter_mut() {
        assert!(
            wait_for(p, &format!("p{victim} is silent"), Duration::from_secs(10)),
            "{:#?}",
            p.seen
        );
    }
    let silent = killed.elapsed();
    println!("a killed peer's seat reported silent by all three within {silent:?}");
    assert!(silent < Duration::from_secs(8), "{silent:?}");
    let codes = wait_all(&mut peers, Duration::from_secs(240));
    for (i, (p, c)) in peers.iter().zip(&codes).enumerate() {
        assert_eq!(
            *c,
            Some(0),
            "peer {i} failed: {:#?}\nthe killed peer said: {:#?}",
            p.seen,
            dead.seen
        );
        assert!(
            p.seen.iter().any(|l| l.contains("is replaced by a bot")),
            "peer {i}: {:#?}",
            p.seen
        );
    }
    let alive: Vec<String> = names(4)
        .into_iter()
        .filter(|n| *n != format!("p{victim}"))
        .collect();
    let first = ledger(&dir.join(&alive[0]));
    for n in &alive {
        assert_eq!(ledger(&dir.join(n)), first, "ledger of {n} differs");
    }
    let aborts: Vec<usize> = (0..first.len())
        .filter(|&i| first[i].3.len() == 3)
        .collect();
    assert_eq!(aborts.len(), 1, "one abort: {first:?}");
    assert!(first.len() > aborts[0] + 1, "the bot played on: {first:?}");
    for (_, hand, pay, signers) in &first {
        assert_eq!(pay.iter().sum::<i64>(), 0, "hand {hand} not zero-sum");
        assert!(signers.len() == 3 || signers == &vec![0, 1, 2, 3]);
    }
    drop(net);
}

/// A player at the terminal (`mahjong play` without `--bot`) against three bot peers on
/// loopback, its standard input piped: the choices it is shown are answered line by line (a
/// tile name once, to see that discard applied; the number 1 otherwise), one prompt is left
/// unanswered so that the table's own timer plays for it, and the hand is played to its
/// four-signed settlement in every ledger.
#[test]
fn a_player_at_the_terminal_plays_a_hand_from_piped_input() {
    use std::io::{Read, Write};
    let _slot = shared();
    let net = Net::loopback(4);
    let dir = scratch("human");
    let mut bots: Vec<Peer> = (1..4)
        .map(|i| Peer::spawn(net.command(i, &play_args(&format!("p{i}"), &dir, 1, &[]))))
        .collect();
    let args: Vec<String> = play_args("p0", &dir, 1, &[])
        .into_iter()
        .filter(|a| a != "--bot")
        .collect();
    let mut child = net
        .command(0, &args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mahjong starts");
    let mut stdin = child.stdin.take().expect("piped");
    let mut stdout = child.stdout.take().expect("piped");
    let (tx, chunks) = mpsc::channel::<String>();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = stdout.read(&mut buf) {
            if n == 0
                || tx
                    .send(String::from_utf8_lossy(&buf[..n]).into_owned())
                    .is_err()
            {
                break;
            }
        }
    });
    let stderr = child.stderr.take().expect("piped");
    let (etx, errs) = mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if etx.send(line).is_err() {
                break;
            }
        }
    });
    let mut text = String::new();
    let mut answered = 0; // prompts seen
    let mut discarded: Option<String> = None;
    let mut left_to_time: Option<usize> = None;
    let end = Instant::now() + Duration::from_secs(240);
    let code = loop {
        while let Ok(c) = chunks.try_recv() {
            text.push_str(&c);
        }
        let prompts = text.matches(" s) > ").count();
        while answered < prompts {
            answered += 1;
            // The choices of this prompt: the text between the previous prompt and it.
            let start = text
                .match_indices(" s) > ")
                .nth(answered.saturating_sub(2))
                .map_or(0, |(i, _)| i);
            let this = &text[start..];
            let discard = this.lines().find_map(|l| {
                let l = l.trim();
                let (_, rest) = l.split_once(") discard ")?;
                (!rest.contains(' ')).then(|| rest.to_string())
            });
            if discarded.is_none()
                && let Some(t) = discard
            {
                writeln!(stdin, "{t}").expect("write");
                discarded = Some(t);
            } else if discarded.is_some() && left_to_time.is_none() {
                left_to_time = Some(answered); // no answer: the timer plays
            } else {
                writeln!(stdin, "1").expect("write");
            }
        }
        if let Ok(Some(status)) = child.try_wait() {
            std::thread::sleep(Duration::from_millis(100));
            while let Ok(c) = chunks.try_recv() {
                text.push_str(&c);
            }
            break status.code();
        }
        if Instant::now() > end {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    drop(stdin);
    let err: Vec<String> = errs.try_iter().collect();
    let codes = wait_all(&mut bots, Duration::from_secs(60));
    assert_eq!(code, Some(0), "the player's peer: {err:#?}\n{text}");
    for (i, (p, c)) in bots.iter().zip(&codes).enumerate() {
        assert_eq!(*c, Some(0), "bot peer {} failed: {:#?}", i + 1, p.seen);
    }
    let tile = discarded.unwrap_or_else(|| panic!("never asked to discard:\n{text}"));
    assert!(
        text.contains(&format!("You discard {tile}")),
        "the piped discard of {tile} was not played:\n{text}"
    );
    assert!(left_to_time.is_some(), "only one prompt:\n{text}");
    assert!(
        text.contains("time is up"),
        "the unanswered prompt was not played by the timer:\n{text}"
    );
    assert!(text.contains("Hand over"), "{text}");
    assert!(
        err.iter().any(|l| l.starts_with("hand 1/1: ")),
        "no hand line: {err:#?}"
    );
    assert_same_ledgers(&dir, &names(4), 1);
}

/// The seat of each peer name at a table, from a `table … full after …: 0 p1 (host), 1 p2, …`
/// line.
fn seat_of(peer: &Peer, name: &str) -> Option<u8> {
    // `seats: East p0 (host), South p1, West p2, North p3`: at the table's start the first
    // seat is East, so the wind's order is the seat's number.
    let line = peer.seen.iter().find(|l| l.starts_with("seats: "))?;
    let list = line.strip_prefix("seats: ")?;
    list.split(", ").find_map(|item| {
        let mut words = item.split(' ');
        let wind = words.next()?;
        let seat = ["East", "South", "West", "North"]
            .iter()
            .position(|w| *w == wind)?;
        (words.next()? == name).then_some(seat as u8)
    })
}

/// Waits until `peer` printed a line containing `text` (at most `limit`).
fn wait_for(peer: &mut Peer, text: &str, limit: Duration) -> bool {
    wait_until(peer, limit, |l| l.contains(text))
}

/// Waits up to `limit` for a line of `peer` that `is_it` accepts; whether one came.
fn wait_until(peer: &mut Peer, limit: Duration, is_it: impl Fn(&str) -> bool) -> bool {
    let end = Instant::now() + limit;
    while Instant::now() < end {
        peer.drain();
        if peer.seen.iter().any(|l| is_it(l)) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// A bot that took over a seat is kept in its controller's store: a peer is killed for good,
/// its seat goes to a bot run by the next seat's peer, then that controller is killed while
/// its bot plays and restarted on the same data dir. It resumes its own seat and the bot from
/// the store, and the three finish the session with identical ledgers.
#[test]
fn a_controller_restarted_resumes_the_bot_it_runs() {
    let _slot = shared();
    let net = Net::new(4);
    let dir = scratch("botresume");
    // Hands enough that the bot still has hands to play when its controller is killed, even
    // on an idle machine where a hand takes well under a second.
    let hands = 5;
    let extra = ["--disconnect-seconds", "8"];
    let args = |i: usize| play_args(&format!("p{i}"), &dir, hands, &extra);
    let mut peers: Vec<Peer> = (0..4)
        .map(|i| Peer::spawn(net.command(i, &args(i))))
        .collect();
    let victim = 2;
    assert!(
        wait_for(&mut peers[victim], "set-up agreed", Duration::from_secs(60)),
        "{:#?}",
        peers[victim].seen
    );
    let seat = seat_of(&peers[victim], "p2").expect("the victim's seat");
    // The controller: the seat after the victim's in turn order (no seat is a bot yet).
    let controller = (0..4)
        .find(|&i| seat_of(&peers[victim], &format!("p{i}")) == Some((seat + 1) % 4))
        .expect("the controller's peer");
    std::thread::sleep(Duration::from_millis(800));
    let _ = peers[victim].child.kill(); // for good
    let _ = peers[victim].child.wait();
    assert!(
        wait_for(
            &mut peers[controller],
            "is replaced by a bot",
            Duration::from_secs(90)
        ),
        "{:#?}",
        peers[controller].seen
    );
    // Let the bot sign a few entries, then kill its controller and restart it.
    std::thread::sleep(Duration::from_millis(1500));
    let _ = peers[controller].child.kill();
    let _ = peers[controller].child.wait();
    peers[controller].drain();
    let before = peers[controller].seen.clone();
    std::thread::sleep(Duration::from_millis(200));
    peers[controller] = Peer::spawn(net.command(controller, &args(controller)));
    let mut alive: Vec<Peer> = Vec::new();
    let mut alive_names = Vec::new();
    for (i, p) in peers.into_iter().enumerate() {
        if i != victim {
            alive.push(p);
            alive_names.push(format!("p{i}"));
        }
    }
    let codes = wait_all(&mut alive, Duration::from_secs(240));
    for (i, (p, c)) in alive.iter().zip(&codes).enumerate() {
        assert_eq!(
            *c,
            Some(0),
            "{} failed: {:#?}\nthe controller before its restart: {before:#?}",
            alive_names[i],
            p.seen
        );
    }
    let first = ledger(&dir.join(&alive_names[0]));
    for n in &alive_names {
        assert_eq!(ledger(&dir.join(n)), first, "ledger of {n} differs");
    }
    assert!(first.len() >= hands as usize, "{first:?}");
    let aborts = first.iter().filter(|r| r.3.len() == 3).count();
    assert_eq!(aborts, 1, "one abort, the killed peer's: {first:?}");
    // The controller's store holds the bot's seat with its journal.
    let store = mahjong_store::Store::open(&dir.join(format!("p{controller}"))).expect("store");
    let table = first[0].0;
    let info = store.table(&table).expect("reads").expect("the table");
    assert!(
        info.seats
            .iter()
            .any(|s| s.config.seat == seat && s.bot_key.is_some()),
        "{info:?}"
    );
    drop(net);
}

/// A friend who misses the Accept (its seat's timer declines the host's proposal): the set-up
/// fails for all four, nothing is booked, and everyone — the late friend too, who accepts
/// this time — is back at one new table, which plays. The late friend is not seated again
/// for the lobby's set-aside of a failed set-up (`lobby::SHUN_MS`, 20 s); the three others
/// wait for it at a table of theirs meanwhile.
#[test]
fn a_missed_accept_ends_the_table_for_all_and_everyone_is_back_at_one_new_table() {
    let _slot = shared();
    let net = Net::new(4);
    let dir = scratch("noaccept");
    let late = 3;
    let mut peers: Vec<Peer> = (0..4)
        .map(|i| {
            let extra: &[&str] = if i == late {
                &["--test-miss-accept"]
            } else {
                &[]
            };
            Peer::spawn(net.command(i, &play_args(&format!("p{i}"), &dir, 1, extra)))
        })
        .collect();
    for p in peers.iter_mut() {
        assert!(
            wait_until(p, Duration::from_secs(60), |l| l.starts_with("table ")),
            "no table: {:#?}",
            p.seen
        );
    }
    let failed_table = peers[0]
        .seen
        .iter()
        .find(|l| l.starts_with("table "))
        .expect("table line")[6..14]
        .to_string();
    assert!(
        seat_of(&peers[0], &format!("p{late}")).is_some(),
        "the late peer's seat: {:#?}",
        peers[0].seen
    );
    let failed =
        format!("the set-up failed: p{late} declined or never answered; back in the lobby");
    for p in peers.iter_mut() {
        assert!(
            wait_for(p, &failed, Duration::from_secs(60)),
            "no failed set-up: {:#?}",
            p.seen
        );
    }
    let failed_at = Instant::now();
    let codes = wait_all(&mut peers, Duration::from_secs(120));
    for (i, (p, c)) in peers.iter().zip(&codes).enumerate() {
        assert_eq!(*c, Some(0), "peer {i}: {:#?}", p.seen);
        let tables: Vec<&String> = p.seen.iter().filter(|l| l.starts_with("table ")).collect();
        assert_eq!(tables.len(), 2, "peer {i}: {tables:?}");
        assert!(!tables[1].contains(&failed_table), "{}", tables[1]);
    }
    println!(
        "the set-up failed; all four at one new table and its hand played {:.1} s later",
        failed_at.elapsed().as_secs_f64()
    );
    assert_same_hands(&peers, 1);
    // Nothing of the failed table was booked: one hand, of the new table, everywhere.
    assert_same_ledgers(&dir, &names(4), 1);
    drop(net);
}

/// Issue 26: two peers started together and two more 15 s later (each in its own namespace
/// on one bridge) sit at one table within 5 s of the fourth start and play it; nobody waits
/// alone at a table of its own.
#[test]
fn two_peers_then_two_more_fifteen_seconds_later_sit_at_one_table() {
    let _serial = serial();
    let net = Net::new(4);
    let dir = scratch("stagger");
    let args = |i: usize| play_args(&format!("p{i}"), &dir, 2, &[]);
    let mut peers: Vec<Peer> = (0..2)
        .map(|i| Peer::spawn(net.command(i, &args(i))))
        .collect();
    std::thread::sleep(Duration::from_secs(15));
    peers.extend((2..4).map(|i| Peer::spawn(net.command(i, &args(i)))));
    let codes = wait_all(&mut peers, Duration::from_secs(150));
    for (i, (p, c)) in peers.iter().zip(&codes).enumerate() {
        assert_eq!(*c, Some(0), "peer {i}: {:#?}", p.seen);
    }
    // The last two say how long after their own start the table filled.
    let late: Vec<f64> = peers[2..]
        .iter()
        .map(|p| full_after(p).expect("full line"))
        .collect();
    println!("the table filled {late:?} s after the last two started");
    // What every peer said, to tell where a slow fill spent its time.
    let said: Vec<&[String]> = peers.iter().map(|p| &p.seen[..]).collect();
    for t in &late {
        assert!(*t <= 5.0, "{t} s after the fourth start: {said:#?}");
    }
    assert_same_hands(&peers, 2);
    assert_same_ledgers(&dir, &names(4), 2);
    drop(net);
}

/// Issue 27: a squatter — a peer that joins every open table and never answers a set-up —
/// started first among four honest peers. It costs them one set-up timeout at most (the
/// preset's 15 s to accept) before they sit without it: each peer at the failed table sets it
/// aside (20 s, doubled at each failure), hosts refuse its joins meanwhile, and peers that
/// meet it later refuse tables where it sits. The four play; the squatter never does.
#[test]
fn a_squatter_at_every_table_costs_one_set_up_and_the_four_play_without_it() {
    let _slot = shared();
    let net = Net::new(5);
    let dir = scratch("squatter");
    let start = Instant::now();
    let mut squatter =
        Peer::spawn(net.command(4, &play_args("squatter", &dir, 1, &["--test-never-accept"])));
    std::thread::sleep(Duration::from_millis(500));
    let mut peers: Vec<Peer> = (0..4)
        .map(|i| Peer::spawn(net.command(i, &play_args(&format!("p{i}"), &dir, 1, &[]))))
        .collect();
    let codes = wait_all(&mut peers, Duration::from_secs(120));
    let took = start.elapsed();
    for (i, (p, c)) in peers.iter().zip(&codes).enumerate() {
        assert_eq!(*c, Some(0), "peer {i}: {:#?}", p.seen);
        let last = p
            .seen
            .iter()
            .rev()
            .find(|l| l.starts_with("seats: "))
            .expect("a seats line");
        assert!(
            !last.contains("squatter"),
            "peer {i} played with it: {last}"
        );
    }
    let failures = peers
        .iter()
        .map(|p| {
            p.seen
                .iter()
                .filter(|l| l.starts_with("the set-up failed"))
                .count()
        })
        .max()
        .unwrap_or(0);
    println!(
        "with a squatter: the four played their hand {:.1} s after the start, after {failures} \
         failed set-up(s)",
        took.as_secs_f64()
    );
    assert!(
        failures <= 1,
        "the squatter cost more than one set-up: {failures}"
    );
    assert_same_hands(&peers, 1);
    assert_same_ledgers(&dir, &names(4), 1);
    let _ = squatter.child.kill();
    squatter.wait(Duration::from_secs(10));
    assert!(
        squatter.seen.iter().all(|l| !l.starts_with("hand ")),
        "the squatter played: {:#?}",
        squatter.seen
    );
    drop(net);
}

/// Issue 27: four friends played once; then a stranger who calls itself "Di" starts first,
/// and the friends start with `--only-known`. Each friend is told the newcomer is not the Di
/// it knows (with both fingerprints) and never sits with it; the real Di sits with the others
/// and they play. The stranger's name never reaches a friend's ledger.
#[test]
fn a_stranger_named_like_a_friend_is_flagged_and_friends_who_sit_only_with_known_keys_play_without_it()
 {
    let _slot = shared();
    let net = Net::new(5);
    let dir = scratch("impostor");
    let friends = ["Ann", "Bo", "Cy", "Di"];
    let run = |i: usize, name: &str, data: &str, extra: &[&str]| {
        let mut args = play_args(data, &dir, 1, extra);
        let at = args.iter().position(|a| a == "--name").expect("--name") + 1;
        args[at] = name.to_string();
        Peer::spawn(net.command(i, &args))
    };
    // The evening before: the four friends play one hand (and know each other's keys).
    let mut first: Vec<Peer> = (0..4)
        .map(|i| run(i, friends[i], friends[i], &[]))
        .collect();
    for (i, c) in wait_all(&mut first, Duration::from_secs(90))
        .iter()
        .enumerate()
    {
        assert_eq!(*c, Some(0), "{}: {:#?}", friends[i], first[i].seen);
    }
    // Tonight: a stranger calling itself Di comes first; the friends sit only with keys
    // they know.
    let mut impostor = run(4, "Di", "impostor", &[]);
    std::thread::sleep(Duration::from_millis(1500));
    let mut peers: Vec<Peer> = (0..4)
        .map(|i| run(i, friends[i], friends[i], &["--only-known"]))
        .collect();
    let codes = wait_all(&mut peers, Duration::from_secs(90));
    for (i, (p, c)) in peers.iter().zip(&codes).enumerate() {
        assert_eq!(*c, Some(0), "{}: {:#?}", friends[i], p.seen);
        let table = p
            .seen
            .iter()
            .rev()
            .find(|l| l.starts_with("seats: "))
            .expect("a seats line");
        for f in friends {
            assert!(table.contains(f), "{}: {table}", friends[i]);
        }
    }
    let flagged = peers[..3]
        .iter()
        .filter(|p| {
            p.seen
                .iter()
                .any(|l| l.contains("\"Di\"") && l.contains("is not the Di you know: fingerprint"))
        })
        .count();
    println!("{flagged} of the three friends were told the newcomer is not the Di they know");
    assert!(flagged >= 1, "{:#?}", peers[0].seen);
    let _ = impostor.child.kill();
    impostor.wait(Duration::from_secs(10));
    assert!(
        impostor.seen.iter().all(|l| !l.starts_with("hand ")),
        "the impostor played: {:#?}",
        impostor.seen
    );
    // Two tables, the same four keys: every friend's ledger holds both hands alike.
    assert_same_ledgers(&dir, &friends.map(String::from), 2);
    drop(net);
}

/// The soak of staggered starts: 100 times, 4–8 peers each started after a random delay of
/// 0–20 s; every start ends with ⌊n/4⌋ tables played and the others still waiting. Prints
/// the time from the last start to the last table's 1-hand session played.
/// `cargo test -p mahjong-cli --test lan staggered_starts -- --ignored --nocapture` (root)
#[test]
#[ignore = "long: 100 staggered starts of 4-8 peers"]
fn a_hundred_staggered_starts() {
    let _serial = serial();
    let rounds: u32 = std::env::var("STAGGER_STARTS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100);
    let mut seed: u64 = 26;
    let mut next = move |m: u64| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) % m
    };
    let mut took = Vec::new();
    let mut failed = Vec::new();
    for round in 0..rounds {
        let n = 4 + next(5) as usize;
        let delays: Vec<u64> = (0..n).map(|_| next(20_001)).collect();
        match staggered(round, &delays) {
            Ok(t) => took.push(t),
            Err(why) => {
                println!("start {round} ({n} peers, delays {delays:?} ms): FAILED: {why}");
                failed.push(round);
            }
        }
    }
    took.sort_by(f64::total_cmp);
    let pct = |q: f64| {
        took.get(((took.len().max(1) - 1) as f64 * q) as usize)
            .copied()
    };
    println!(
        "staggered starts: {} of {rounds} gave every full table; its hand played after the last start: median {:?} s, p90 {:?} s, max {:?} s",
        took.len(),
        pct(0.5),
        pct(0.9),
        took.last()
    );
    assert!(failed.is_empty(), "failed starts: {failed:?}");
}

/// One staggered start: peer `i` starts `delays[i]` ms after the first. Returns the time
/// from the last start to the last table's session played (s).
fn staggered(round: u32, delays: &[u64]) -> Result<f64, String> {
    let n = delays.len();
    let net = Net::new(n);
    let dir = scratch(&format!("stagger{round}"));
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| delays[i]);
    let start = Instant::now();
    let mut peers: Vec<Option<Peer>> = (0..n).map(|_| None).collect();
    for &i in &order {
        let at = start + Duration::from_millis(delays[i]);
        std::thread::sleep(at.saturating_duration_since(Instant::now()));
        peers[i] = Some(Peer::spawn(
            net.command(i, &play_args(&format!("p{i}"), &dir, 1, &[])),
        ));
    }
    let last_start = Instant::now();
    let mut peers: Vec<Peer> = peers.into_iter().flatten().collect();
    let tables = n / 4;
    // Wait for 4 × tables peers to exit 0; the others must still be waiting.
    let end = Instant::now() + Duration::from_secs(60 + tables as u64 * 30);
    let mut done = 0;
    while Instant::now() < end {
        done = 0;
        for p in peers.iter_mut() {
            p.drain();
            if let Ok(Some(status)) = p.child.try_wait() {
                if status.code() != Some(0) {
                    return Err(format!("a peer ended with {status}: {:#?}", p.seen));
                }
                done += 1;
            }
        }
        if done == 4 * tables {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    if done != 4 * tables {
        return Err(format!("{done} of {n} peers played, not {}", 4 * tables));
    }
    let full = peers
        .iter()
        .filter_map(|p| {
            p.seen
                .iter()
                .find(|l| l.contains(" full after "))
                .map(|_| p)
        })
        .count();
    if full != 4 * tables {
        return Err(format!("{full} peers sat at a table, not {}", 4 * tables));
    }
    let took = last_start.elapsed().as_secs_f64();
    drop(peers);
    drop(net);
    let _ = std::fs::remove_dir_all(&dir);
    Ok(took)
}

/// A peer restarted on its data dir whose table's other peers never come back gives up
/// after `--wait` with one line (a resume is bounded like any wait), and the table stays in
/// its store to be resumed later.
#[test]
fn a_resume_nobody_answers_ends_after_wait_with_one_line() {
    let _slot = shared();
    let net = Net::new(4);
    let dir = scratch("lonely");
    let mut peers: Vec<Peer> = (0..4)
        .map(|i| Peer::spawn(net.command(i, &play_args(&format!("p{i}"), &dir, 5, &[]))))
        .collect();
    assert!(wait_until(&mut peers[0], Duration::from_secs(60), |l| l
        .starts_with("set-up agreed")));
    for p in peers.iter_mut() {
        let _ = p.child.kill();
        let _ = p.child.wait();
    }
    let mut args = play_args("p0", &dir, 5, &[]);
    let pos = args.iter().position(|a| a == "60").expect("wait");
    args[pos] = "4".into();
    let started = Instant::now();
    let mut alone = Peer::spawn(net.command(0, &args));
    let code = alone.wait(Duration::from_secs(30));
    let took = started.elapsed();
    assert_eq!(code, Some(1), "{:#?}", alone.seen);
    assert!(
        alone.seen.iter().any(|l| l.starts_with("resuming table")),
        "{:#?}",
        alone.seen
    );
    let last = alone.seen.last().expect("a line");
    assert!(
        last.starts_with("mahjong: the resumed table ")
            && last.ends_with(
                "made no progress within 4 seconds: its other players did not come back"
            ),
        "{last}"
    );
    assert!(took < Duration::from_secs(12), "took {took:?}");
    drop(net);
}

/// A peer whose disk fills stops with one line, and before it stops it says it leaves (a
/// signed leave): the others replace its seat by a bot at once, not after the disconnect
/// limit (180 s here), and finish the session. Its data dir is a small tmpfs the test fills.
#[test]
fn a_peer_whose_disk_fills_says_it_leaves_and_is_replaced_at_once() {
    let _slot = shared();
    let net = Net::new(4);
    let dir = scratch("full");
    let victim = 2;
    let vdir = dir.join(format!("p{victim}"));
    std::fs::create_dir_all(&vdir).expect("victim dir");
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=32m", "tmpfs"])
        .arg(&vdir)
        .status()
        .is_ok_and(|s| s.success());
    if !mounted {
        println!("cannot mount a tmpfs here (needs root): skipped");
        return;
    }
    struct Unmount(PathBuf);
    impl Drop for Unmount {
        fn drop(&mut self) {
            let _ = Command::new("umount").arg("-l").arg(&self.0).status();
        }
    }
    let _unmount = Unmount(vdir.clone());
    let hands = 6;
    let mut peers: Vec<Peer> = (0..4)
        .map(|i| Peer::spawn(net.command(i, &play_args(&format!("p{i}"), &dir, hands, &[]))))
        .collect();
    assert!(wait_until(
        &mut peers[victim],
        Duration::from_secs(60),
        |l| { l.starts_with("set-up agreed") }
    ));
    assert!(wait_until(&mut peers[0], Duration::from_secs(10), |l| l
        .starts_with("table ")));
    assert!(
        seat_of(&peers[0], &format!("p{victim}")).is_some(),
        "the victim's seat: {:#?}",
        peers[0].seen
    );
    // Fill the victim's disk.
    let chunk = vec![0u8; 1 << 20];
    let mut filler = std::fs::File::create(vdir.join("filler")).expect("filler");
    while std::io::Write::write_all(&mut filler, &chunk).is_ok() {}
    let _ = std::io::Write::flush(&mut filler);
    let filled = Instant::now();
    let code = peers[victim].wait(Duration::from_secs(60));
    let stopped = Instant::now();
    let mut dead = peers.remove(victim);
    dead.drain();
    assert_eq!(code, Some(1), "{:#?}", dead.seen);
    let last = dead.seen.last().expect("a line");
    assert!(
        last.starts_with("mahjong: ") && last.contains("store"),
        "{:#?}",
        dead.seen
    );
    for p in peers.iter_mut() {
        assert!(
            wait_for(
                p,
                &format!("p{victim} is replaced by a bot"),
                Duration::from_secs(30)
            ),
            "{:#?}\nthe full peer said: {:#?}",
            p.seen,
            dead.seen
        );
    }
    let replaced = stopped.elapsed();
    println!(
        "disk full: the peer stopped {:.1} s after the fill; its seat replaced {:.1} s after it stopped",
        stopped.duration_since(filled).as_secs_f64(),
        replaced.as_secs_f64()
    );
    assert!(replaced < Duration::from_secs(30), "{replaced:?}");
    let codes = wait_all(&mut peers, Duration::from_secs(240));
    for (i, (p, c)) in peers.iter().zip(&codes).enumerate() {
        assert_eq!(*c, Some(0), "peer {i}: {:#?}", p.seen);
    }
    let alive: Vec<String> = names(4)
        .into_iter()
        .filter(|n| *n != format!("p{victim}"))
        .collect();
    let first = ledger(&dir.join(&alive[0]));
    assert_one_leave_in_session(&first, hands as usize);
    for n in &alive {
        assert_eq!(ledger(&dir.join(n)), first, "ledger of {n} differs");
    }
    drop(net);
}

/// Four `--bot` peers (`--disconnect-seconds disconnect`) sit at one table; `victim` is
/// SIGKILLed 0.8 s after its set-up, every other peer says a bot replaced it, and it is
/// started again on its data dir (with `--wait back_wait` if given). Returns the peers once
/// it says it follows the session, and how long that took from its restart.
fn replaced_and_back(
    net: &Net,
    dir: &Path,
    hands: u32,
    disconnect: u32,
    victim: usize,
    back_wait: Option<&str>,
) -> (Vec<Peer>, Duration) {
    let disconnect = disconnect.to_string();
    let extra = ["--disconnect-seconds", disconnect.as_str()];
    let args = |i: usize| play_args(&format!("p{i}"), dir, hands, &extra);
    let mut peers: Vec<Peer> = (0..4)
        .map(|i| Peer::spawn(net.command(i, &args(i))))
        .collect();
    assert!(wait_until(
        &mut peers[victim],
        Duration::from_secs(60),
        |l| { l.starts_with("set-up agreed") }
    ));
    assert!(wait_until(&mut peers[0], Duration::from_secs(10), |l| l
        .starts_with("table ")));
    assert!(
        seat_of(&peers[0], &format!("p{victim}")).is_some(),
        "the victim's seat: {:#?}",
        peers[0].seen
    );
    std::thread::sleep(Duration::from_millis(800));
    let _ = peers[victim].child.kill(); // SIGKILL
    let _ = peers[victim].child.wait();
    for (i, p) in peers.iter_mut().enumerate() {
        if i != victim {
            assert!(
                wait_for(
                    p,
                    &format!("p{victim} is replaced by a bot"),
                    Duration::from_secs(60)
                ),
                "{:#?}",
                p.seen
            );
        }
    }
    let mut back_args = args(victim);
    if let Some(w) = back_wait {
        let pos = back_args
            .iter()
            .position(|a| a == "--wait")
            .expect("--wait");
        back_args[pos + 1] = w.into();
    }
    let back = Instant::now();
    peers[victim] = Peer::spawn(net.command(victim, &back_args));
    assert!(
        wait_until(&mut peers[victim], Duration::from_secs(60), |l| l
            .contains("following the session to its end")),
        "{:#?}",
        peers[victim].seen
    );
    (peers, back.elapsed())
}

/// A player whose seat a bot took comes back (restarted on its data dir): it learns from the
/// others what was booked for it (the leaver hand, as the three signed it) and that its seat
/// is taken, follows the rest of the session as a watcher, and ends with the session (exit 0)
/// with every hand of the session in its ledger exactly as the others booked it (the issue's
/// contract for `mahjong play --bot`).
#[test]
fn a_player_replaced_by_a_bot_comes_back_and_follows_the_session_to_its_end() {
    let _slot = shared();
    let net = Net::new(4);
    let dir = scratch("comeback");
    let hands = 6;
    let victim = 2;
    let (mut peers, took) = replaced_and_back(&net, &dir, hands, 8, victim, None);
    println!("a replaced player came back and was following in {took:?}");
    let codes = wait_all(&mut peers, Duration::from_secs(300));
    for (p, c) in peers.iter().zip(&codes) {
        assert_eq!(*c, Some(0), "{:#?}", p.seen);
    }
    // Its ledger holds every hand of the session exactly as the others booked it: the leaver
    // hand and every hand the bot played in its seat.
    let mine = ledger(&dir.join(format!("p{victim}")));
    let theirs = ledger(&dir.join("p0"));
    assert_one_leave_in_session(&theirs, hands as usize);
    assert_eq!(mine, theirs);
    drop(net);
}

/// A player who came back after a bot took its seat follows the table; if the others then
/// stop for good (killed here) before the session ends, it gives up `--wait` seconds after
/// the last step it saw, with one line saying how many hands it booked, instead of waiting
/// forever. What it booked is what the others booked.
#[test]
fn a_follower_whose_table_stops_gives_up_after_wait_with_one_line() {
    let _slot = shared();
    let net = Net::new(4);
    let dir = scratch("orphan");
    let hands = 40;
    let victim = 1;
    let (mut peers, _) = replaced_and_back(&net, &dir, hands, 6, victim, Some("5"));
    // It books a hand it follows, then the others stop.
    assert!(
        wait_until(&mut peers[victim], Duration::from_secs(60), |l| l
            .starts_with("hand ")),
        "{:#?}",
        peers[victim].seen
    );
    for (i, p) in peers.iter_mut().enumerate() {
        if i != victim {
            let _ = p.child.kill();
            let _ = p.child.wait();
        }
    }
    let stopped = Instant::now();
    let code = peers[victim].wait(Duration::from_secs(60));
    let took = stopped.elapsed();
    let back = &peers[victim];
    assert_eq!(code, Some(1), "{:#?}", back.seen);
    let last = back.seen.last().expect("a line");
    assert!(
        last.contains("made no progress for 5 seconds while this peer followed it")
            && last.ends_with(&format!(" of {hands} booked here)")),
        "{last}"
    );
    assert!(took < Duration::from_secs(20), "took {took:?}");
    // Nothing it booked differs from what the others booked (they may have more).
    let mine = ledger(&dir.join(format!("p{victim}")));
    let theirs = ledger(&dir.join("p0"));
    assert!(!mine.is_empty() && mine.len() <= theirs.len(), "{mine:?}");
    assert_eq!(mine[..], theirs[..mine.len()]);
    println!(
        "the follower gave up {:.1} s after the others stopped, {} of {} hands booked: {last}",
        took.as_secs_f64(),
        mine.len(),
        theirs.len()
    );
    drop(net);
}

/// Ctrl-C at a table: the peer says it leaves (a signed leave) before it stops, so the others
/// replace its seat by a bot at once rather than after the disconnect limit (180 s here).
#[test]
fn a_peer_interrupted_says_it_leaves_and_is_replaced_at_once() {
    let _slot = shared();
    let net = Net::new(4);
    let dir = scratch("sigint");
    let victim = 1;
    let hands = 6;
    let mut peers: Vec<Peer> = (0..4)
        .map(|i| Peer::spawn(net.command(i, &play_args(&format!("p{i}"), &dir, hands, &[]))))
        .collect();
    assert!(wait_until(
        &mut peers[victim],
        Duration::from_secs(60),
        |l| { l.starts_with("set-up agreed") }
    ));
    assert!(wait_until(&mut peers[0], Duration::from_secs(10), |l| l
        .starts_with("table ")));
    assert!(
        seat_of(&peers[0], &format!("p{victim}")).is_some(),
        "the victim's seat: {:#?}",
        peers[0].seen
    );
    std::thread::sleep(Duration::from_millis(800));
    // SIGINT to the peer itself (under `ip netns exec`, which execs it: the same pid).
    let sent = Command::new("kill")
        .args(["-INT", &peers[victim].child.id().to_string()])
        .status()
        .is_ok_and(|s| s.success());
    assert!(sent);
    let interrupted = Instant::now();
    let code = peers[victim].wait(Duration::from_secs(30));
    let mut gone = peers.remove(victim);
    gone.drain();
    assert_eq!(code, Some(1), "{:#?}", gone.seen);
    let last = gone.seen.last().expect("a line");
    assert!(
        last.starts_with("mahjong: interrupted: this peer left table "),
        "{last}"
    );
    for p in peers.iter_mut() {
        assert!(
            wait_for(
                p,
                &format!("p{victim} is replaced by a bot"),
                Duration::from_secs(30)
            ),
            "{:#?}\nthe interrupted peer said: {:#?}",
            p.seen,
            gone.seen
        );
    }
    let replaced = interrupted.elapsed();
    println!(
        "Ctrl-C: the seat replaced {:.1} s after the signal",
        replaced.as_secs_f64()
    );
    assert!(replaced < Duration::from_secs(30), "{replaced:?}");
    let codes = wait_all(&mut peers, Duration::from_secs(240));
    for (i, (p, c)) in peers.iter().zip(&codes).enumerate() {
        assert_eq!(*c, Some(0), "peer {i}: {:#?}", p.seen);
    }
    let first = ledger(&dir.join("p0"));
    // A seat that left just after signing a settlement leaves at the next hand's first step,
    // before the dice.
    assert_one_leave_in_session(&first, hands as usize);
    for n in ["p2", "p3"] {
        assert_eq!(ledger(&dir.join(n)), first, "ledger of {n} differs");
    }
    // The interrupted peer waited for the abort of its hand and booked its own penalty
    // exactly as the others did.
    let aborts: Vec<&Row> = first.iter().filter(|r| r.3.len() == 3).collect();
    assert_eq!(aborts.len(), 1, "{first:?}");
    let its = ledger(&dir.join(format!("p{victim}")));
    assert_eq!(its.last(), Some(aborts[0]), "its ledger: {its:?}");
    for row in &its {
        assert!(first.contains(row), "{row:?} not in {first:?}");
    }
    drop(net);
}

/// The project's own node in this process, as a host with a manual lobby that opens a table
/// with the preset's set-up (1 hand, `bots` bots: with 2 one joiner fills it) and the hostile settings
/// `tweak` gives it; its events on a channel.
fn hostile_host(
    rt: &tokio::runtime::Runtime,
    port: u16,
    bots: u8,
    tweak: impl FnOnce(&mut mahjong_net::NetConfig),
) -> (
    mahjong_net::Network,
    std::sync::mpsc::Receiver<mahjong_net::NetEvent>,
) {
    let preset = mahjong_rules::Ruleset::Qiaoma;
    let mut config = mahjong_net::NetConfig::new(
        ed25519_dalek::SigningKey::from_bytes(&[0x66; 32]),
        mahjong_net::node::settings("greedy", preset, mahjong_rules::Money::coins(1), 1, 0),
    );
    config.mdns = false;
    config.manual = true;
    config.listen = vec![format!("/ip4/127.0.0.1/tcp/{port}").parse().expect("addr")];
    tweak(&mut config);
    let (network, mut events) = {
        let _guard = rt.enter();
        mahjong_net::spawn(config, Box::new(mahjong_net::MemoryStorage::new())).expect("spawn")
    };
    let spec = mahjong_net::TableSpec {
        name: "bait".into(),
        preset,
        options: mahjong_rules::Options::preset(preset),
        stake: mahjong_rules::Money::coins(1),
        hands: 1,
        bots,
    };
    rt.block_on(network.host(spec))
        .expect("loop")
        .expect("hosts");
    let (tx, rx) = std::sync::mpsc::channel();
    rt.spawn(async move {
        while let Some(ev) = events.recv().await {
            if tx.send(ev).is_err() {
                break;
            }
        }
    });
    (network, rx)
}

/// An honest `mahjong play --bot` peer (1 hand, `--wait SECS`) dialling the hostile host.
fn honest_peer(net: &Net, dir: &Path, wait: &str) -> Peer {
    let mut args = play_args("p0", dir, 1, &[]);
    let pos = args.iter().position(|a| a == "60").expect("wait");
    args[pos] = wait.into();
    Peer::spawn(net.command(0, &args))
}

/// A host that advertises the preset (its options hash, stake and hands match) and then
/// proposes options far from it (points a hundredfold): the honest `--bot` peer sits at its
/// table, declines the proposal with one line, and books nothing. The hostile host is the
/// project's own node in this process with a lying proposal.
#[test]
fn a_host_proposing_other_options_than_advertised_is_declined_and_nothing_booked() {
    let _slot = shared();
    let net = Net::loopback(2);
    let Net::Loopback(ports) = &net else {
        unreachable!()
    };
    let dir = scratch("greedy");
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let (_network, host_events) = hostile_host(&rt, ports[1], 2, |config| {
        let mut greedy = mahjong_rules::Options::preset(mahjong_rules::Ruleset::Qiaoma);
        greedy.base_points *= 100;
        config.lying_proposal = Some(greedy);
    });
    let mut honest = honest_peer(&net, &dir, "20");
    let code = honest.wait(Duration::from_secs(60));
    let host_saw: Vec<String> = host_events
        .try_iter()
        .map(|e| format!("{e:?}"))
        .filter(|e| e.contains("Setup"))
        .collect();
    drop(rt);
    assert!(
        honest
            .seen
            .iter()
            .any(|l| l.starts_with("seats: ") && l.contains("greedy (host)")),
        "the honest peer never sat at the greedy table: {:#?}",
        honest.seen
    );
    assert!(
        honest.seen.iter().any(|l| l.starts_with(
            "declined the host's proposal: the host proposes other options than the ones agreed"
        )),
        "{:#?}",
        honest.seen
    );
    assert!(honest.hand_lines().is_empty(), "{:#?}", honest.seen);
    assert_ne!(code, Some(0), "{:#?}", honest.seen);
    assert!(code.is_some(), "the honest peer hung: {:#?}", honest.seen);
    assert!(
        ledger(&dir.join("p0")).is_empty(),
        "the honest peer booked a hand of the greedy table"
    );
    assert!(
        host_saw.iter().any(|e| e.contains("SetupFailed")),
        "the host saw: {host_saw:#?}"
    );
}

/// A host whose signed roster gives the joiner's seat a key the joiner does not hold: the
/// joiner refuses it with one line before storing anything (its store holds no table, so a
/// restart resumes nothing), disconnects the host, and goes on looking for a table.
#[test]
fn a_roster_with_a_key_the_joiner_does_not_hold_leaves_nothing_in_its_store() {
    let _slot = shared();
    let net = Net::loopback(2);
    let Net::Loopback(ports) = &net else {
        unreachable!()
    };
    let dir = scratch("badkey");
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let (_network, _events) = hostile_host(&rt, ports[1], 2, |config| {
        config.lying_roster = Some(|advert| {
            if let Some(s) = advert.seats[1].as_mut() {
                s.key = ed25519_dalek::SigningKey::from_bytes(&[0x55; 32]).verifying_key();
            }
        });
    });
    let mut honest = honest_peer(&net, &dir, "6");
    let code = honest.wait(Duration::from_secs(40));
    drop(rt);
    assert!(
        honest.seen.iter().any(|l| l.contains(
            "its roster was refused: the roster gives seat 1 a key this peer does not hold"
        )),
        "{:#?}",
        honest.seen
    );
    assert!(
        !honest.seen.iter().any(|l| l.starts_with("table ")),
        "{:#?}",
        honest.seen
    );
    assert_eq!(code, Some(1), "it gave up after --wait: {:#?}", honest.seen);
    let store = mahjong_store::Store::open(&dir.join("p0")).expect("store");
    assert!(
        store.tables().expect("tables").is_empty(),
        "a table was stored from a refused roster"
    );
}

/// Whether a line holds anything a name must not bring to the terminal: controls, escapes,
/// bidi controls.
fn has_hidden(s: &str) -> bool {
    s.chars().any(|c| {
        c.is_control()
            || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{061c}')
    }) || s.contains("\\u202e")
        || s.contains("\\u2066")
}

/// A player whose name carries bidi overrides (the identity's name check lets them through;
/// escapes and other controls it refuses): every name `mahjong play` prints, and `mahjong
/// ledger` and `mahjong ledger --json` show, is the cleaned name, on both peers.
#[test]
fn names_with_bidi_overrides_are_shown_cleaned_by_play_and_ledger() {
    let _slot = shared();
    let net = Net::loopback(2);
    let dir = scratch("names");
    let raw = "ev\u{202e}il\u{2066}";
    let mut peers: Vec<Peer> = (0..2)
        .map(|i| {
            let mut args = play_args(&format!("p{i}"), &dir, 1, &["--bots", "2"]);
            if i == 0 {
                let pos = args.iter().position(|a| a == "--name").expect("name") + 1;
                args[pos] = raw.into();
            }
            Peer::spawn(net.command(i, &args))
        })
        .collect();
    let codes = wait_all(&mut peers, Duration::from_secs(150));
    for (i, (p, c)) in peers.iter().zip(&codes).enumerate() {
        assert_eq!(*c, Some(0), "peer {i} failed: {:#?}", p.seen);
        let table = p
            .seen
            .iter()
            .find(|l| l.starts_with("seats: "))
            .expect("seats line");
        assert!(
            table.contains(" evil") && table.contains("bot of evil"),
            "{table}"
        );
        for l in &p.seen {
            assert!(!has_hidden(l), "peer {i} printed {l:?}");
        }
    }
    for i in 0..2 {
        let data = dir.join(format!("p{i}"));
        let data = data.to_string_lossy();
        for json in [false, true] {
            let mut args = vec!["ledger", "--data-dir", &data];
            if json {
                args.push("--json");
            }
            let out = Command::new(env!("CARGO_BIN_EXE_mahjong"))
                .args(&args)
                .output()
                .expect("mahjong ledger runs");
            assert!(out.status.success(), "{out:?}");
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(text.contains("evil"), "peer {i} json={json}: {text}");
            for l in text.lines() {
                assert!(!has_hidden(l), "peer {i} json={json}: {l:?}");
            }
        }
    }
}

/// Hundreds of identities, each advertising a table with names of thousands of characters
/// over and over, at a peer waiting for a table: its memory stays bounded (names cleaned to
/// 32 characters, one table per host and at most `MAX_TABLES` hosts, the tables shown once a
/// tick rather than copied into an event after every message). Prints the figure.
#[test]
fn a_flood_of_adverts_with_long_names_from_many_identities_keeps_a_waiting_peer_small() {
    let _serial = serial();
    let net = Net::loopback(1);
    let Net::Loopback(ports) = &net else {
        unreachable!()
    };
    let dir = scratch("adflood");
    let mut args = play_args("p0", &dir, 1, &[]);
    let pos = args.iter().position(|a| a == "60").expect("wait");
    // Waits 20 s: the flood lasts 6 s, and the peer must still be there, small, and then give
    // up on time.
    args[pos] = "20".into();
    let mut victim = Peer::spawn(net.command(0, &args));
    wait_until(&mut victim, Duration::from_secs(20), |l| {
        l.starts_with("listening on")
    });
    std::thread::sleep(Duration::from_millis(500));
    let rss_before = rss_kib(victim.child.id());
    let target: libp2p::Multiaddr = format!("/ip4/127.0.0.1/tcp/{}", ports[0])
        .parse()
        .expect("addr");
    let identities = 300u32;
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let handles: Vec<_> = (0..identities)
        .map(|i| {
            let mut seed = [0u8; 32];
            seed[..4].copy_from_slice(&i.to_le_bytes());
            seed[4] = 0xad;
            rt.spawn(hostile::flood_adverts(
                target.clone(),
                seed,
                30,
                12_000,
                Duration::from_secs(6),
            ))
        })
        .collect();
    let pid = victim.child.id();
    let mut max_rss = rss_before;
    let watch = std::thread::spawn(move || {
        let end = Instant::now() + Duration::from_secs(15);
        let mut max = 0;
        while Instant::now() < end {
            max = max.max(rss_kib(pid));
            std::thread::sleep(Duration::from_millis(100));
        }
        max
    });
    let sent: u32 = rt.block_on(async {
        let mut n = 0;
        for h in handles {
            n += h.await.unwrap_or(0);
        }
        n
    });
    max_rss = max_rss.max(watch.join().expect("watch"));
    let code = victim.wait(Duration::from_secs(30));
    drop(rt);
    println!(
        "waiting peer RSS: {rss_before} KiB before, at most {max_rss} KiB under {sent} adverts \
         from {identities} identities (names of 12,000 characters, about 48 KB each)"
    );
    // Most identities are refused at the connection limit; those let in flood as fast as the
    // peer reads, each up to 30 adverts. How many get in depends on how busy the CPU is
    // (their 300 handshakes race): 14 and 6 identities in two runs beside the Windows
    // cross-build (425 and 181 adverts). At least 100 adverts (4.8 MB of names, about 250 times what a waiting peer
    // may keep of them) still make the flood this test is about.
    assert!(
        sent >= 100,
        "only {sent} adverts went out: the flood did not happen"
    );
    assert!(code.is_some(), "the waiting peer hung: {:#?}", victim.seen);
    for l in &victim.seen {
        assert!(!has_hidden(l), "{l:?}");
    }
    assert!(
        max_rss <= 64 * 1024,
        "RSS grew to {max_rss} KiB: {:#?}",
        victim.seen
    );
}

/// Identities that each open many streams, each holding a nearly complete largest message
/// and never finishing it: the waiting peer reads at most a few streams per peer, holds what
/// arrived rather than the declared length, disconnects each after the read deadline, and
/// stays small. Prints the figure.
#[test]
fn streams_holding_partly_sent_messages_are_cut_off_and_a_waiting_peer_stays_small() {
    let _serial = serial();
    let net = Net::loopback(1);
    let Net::Loopback(ports) = &net else {
        unreachable!()
    };
    let dir = scratch("stall");
    let mut args = play_args("p0", &dir, 1, &[]);
    let pos = args.iter().position(|a| a == "60").expect("wait");
    // Waits 30 s: the stalled streams are held 20 s and cut off after 10 s.
    args[pos] = "30".into();
    let mut victim = Peer::spawn(net.command(0, &args));
    wait_until(&mut victim, Duration::from_secs(20), |l| {
        l.starts_with("listening on")
    });
    let rss_before = rss_kib(victim.child.id());
    let target: libp2p::Multiaddr = format!("/ip4/127.0.0.1/tcp/{}", ports[0])
        .parse()
        .expect("addr");
    let identities = 40u32;
    let streams = 32;
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let handles: Vec<_> = (0..identities)
        .map(|i| {
            let mut seed = [0u8; 32];
            seed[..4].copy_from_slice(&i.to_le_bytes());
            seed[4] = 0x57;
            rt.spawn(hostile::stall_streams(
                target.clone(),
                seed,
                streams,
                Duration::from_secs(20),
            ))
        })
        .collect();
    let pid = victim.child.id();
    let watch = std::thread::spawn(move || {
        let end = Instant::now() + Duration::from_secs(25);
        let mut max = 0;
        while Instant::now() < end {
            max = max.max(rss_kib(pid));
            std::thread::sleep(Duration::from_millis(100));
        }
        max
    });
    let results: Vec<(u32, bool)> = rt.block_on(async {
        let mut v = Vec::new();
        for h in handles {
            v.push(h.await.unwrap_or((0, false)));
        }
        v
    });
    let max_rss = watch.join().expect("watch").max(rss_before);
    let code = victim.wait(Duration::from_secs(30));
    drop(rt);
    let connected = results.iter().filter(|(w, _)| *w > 0).count();
    let cut = results.iter().filter(|(w, c)| *w > 0 && *c).count();
    let held: u32 = results.iter().map(|(w, _)| w).sum();
    println!(
        "waiting peer RSS: {rss_before} KiB before, at most {max_rss} KiB with {held} streams \
         written by {connected} identities ({streams} each, the largest message but 100 bytes); \
         {cut} cut off within 20 s"
    );
    assert!(code.is_some(), "the waiting peer hung: {:#?}", victim.seen);
    assert!(connected >= 10, "only {connected} identities got in");
    // A stream the peer refused (over its per-peer limit, or not taken from libp2p's queue
    // in time) may still take the bytes into yamux's window: such an identity holds nothing
    // there and is not cut off. Most are.
    assert!(
        cut * 4 >= connected * 3,
        "only {cut} of {connected} stalled peers were cut off"
    );
    assert!(
        victim
            .seen
            .iter()
            .any(|l| l.contains("a message begun was not finished within 10000 ms")),
        "{:#?}",
        victim.seen
    );
    assert!(max_rss <= 64 * 1024, "RSS grew to {max_rss} KiB");
}

/// The `table … full after S s` time of a peer's output.
fn full_after(p: &Peer) -> Option<f64> {
    p.seen.iter().find_map(|l| {
        l.split_once(" full after ")
            .and_then(|(_, r)| r.split_once(" s"))
            .and_then(|(t, _)| t.parse().ok())
    })
}

/// A host that seats whoever comes and never starts (its table wants four humans; two
/// honest peers can never fill it): the two honest `--bot` peers, which each want two bots,
/// leave it after a few seconds without a new player, set it aside, and start their own
/// table, well within `--wait`. The griefer is the project's own node, a manual host that
/// never fills its table with bots. Prints both start times.
#[test]
fn a_host_that_seats_and_never_starts_holds_honest_peers_only_seconds() {
    let _serial = serial();
    let alone = {
        let (peers, codes, _, _) = run_table("nogrief", 2, 1, &["--bots", "2"]);
        for (i, (p, c)) in peers.iter().zip(&codes).enumerate() {
            assert_eq!(*c, Some(0), "peer {i} failed: {:#?}", p.seen);
        }
        full_after(&peers[0]).expect("full line")
    };
    let net = Net::loopback(3);
    let Net::Loopback(ports) = &net else {
        unreachable!()
    };
    let dir = scratch("grief");
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let (_network, griefer_events) = hostile_host(&rt, ports[2], 0, |_| {});
    let mut peers: Vec<Peer> = (0..2)
        .map(|i| {
            let mut args = play_args(&format!("p{i}"), &dir, 1, &["--bots", "2"]);
            let pos = args.iter().position(|a| a == "60").expect("wait");
            args[pos] = "40".into();
            Peer::spawn(net.command(i, &args))
        })
        .collect();
    let codes = wait_all(&mut peers, Duration::from_secs(90));
    let most_seated = griefer_events
        .try_iter()
        .filter_map(|e| match e {
            mahjong_net::NetEvent::Lobby(tables) => tables
                .iter()
                .filter(|a| a.name == "bait")
                .map(|a| a.humans())
                .max(),
            _ => None,
        })
        .max();
    drop(rt);
    assert_eq!(
        most_seated,
        Some(3),
        "both honest peers first sat at the griefer's table"
    );
    for (i, (p, c)) in peers.iter().zip(&codes).enumerate() {
        assert_eq!(*c, Some(0), "peer {i} failed: {:#?}", p.seen);
        let table = p
            .seen
            .iter()
            .find(|l| l.starts_with("table "))
            .expect("table line");
        assert!(
            !table.contains("greedy"),
            "sat at the griefer's table: {table}"
        );
    }
    let with = full_after(&peers[0]).expect("full line");
    println!(
        "two honest peers started their table after {alone:.1} s alone, {with:.1} s beside a host that never starts"
    );
    assert!(
        with <= alone + 10.0,
        "{with} s with the griefer, {alone} s without"
    );
    assert_same_hands(&peers, 1);
}

/// One start of eight peers at once (each wanting a 1-hand qiaoma table at the default
/// stake): every peer plays and exits 0, and the ledgers show exactly two tables of four
/// peers each, identical within a table. Returns how long the start took (the last exit).
fn eight_at_once(round: u32) -> Result<Duration, String> {
    let (peers, codes, took, dir) = run_table(&format!("race{round}"), 8, 1, &[]);
    for (i, (p, c)) in peers.iter().zip(&codes).enumerate() {
        if *c != Some(0) {
            return Err(format!("peer {i} ended with {c:?}: {:#?}", p.seen));
        }
    }
    let mut tables: std::collections::BTreeMap<[u8; 32], Vec<(usize, Vec<Row>)>> =
        Default::default();
    for i in 0..8 {
        let rows = ledger(&dir.join(format!("p{i}")));
        let Some(first) = rows.first() else {
            return Err(format!("peer {i} booked nothing"));
        };
        tables.entry(first.0).or_default().push((i, rows));
    }
    if tables.len() != 2 || tables.values().any(|t| t.len() != 4) {
        let sizes: Vec<usize> = tables.values().map(Vec::len).collect();
        return Err(format!("tables of {sizes:?} peers, not two of four"));
    }
    for t in tables.values() {
        if t.iter().any(|(_, rows)| rows != &t[0].1 || rows.len() != 1) {
            return Err(format!("ledgers of one table differ: {t:?}"));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(took)
}

/// Runs `rounds` starts of eight peers at once and says how each went; fails if any did not
/// give two full tables.
fn lobby_race(rounds: u32) {
    let _serial = serial();
    let mut took = Vec::new();
    let mut failed = Vec::new();
    for round in 0..rounds {
        match eight_at_once(round) {
            Ok(t) => took.push(t.as_secs_f64()),
            Err(why) => {
                println!("start {round}: FAILED: {why}");
                failed.push(round);
            }
        }
    }
    let mean = took.iter().sum::<f64>() / took.len().max(1) as f64;
    println!(
        "lobby race: {} of {rounds} starts of eight peers gave two full tables; mean {mean:.1} s to the last exit",
        took.len()
    );
    assert!(failed.is_empty(), "failed starts: {failed:?}");
}

/// The lobby race (issue 18): eight peers started at once always make two full tables. A
/// few starts on every run; the soak below runs a hundred.
#[test]
fn eight_peers_started_at_once_make_two_full_tables() {
    let rounds = std::env::var("LOBBY_RACE_STARTS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    lobby_race(rounds);
}

#[test]
#[ignore = "long: 100 starts of eight peers; run with --ignored"]
fn a_hundred_starts_of_eight_peers() {
    lobby_race(100);
}
