//! Friends in different homes: a real `mahjong relay` process and `mahjong play --bot --relay
//! ADDR --code CODE` processes that meet through it, first on loopback, then in a NAT lab of
//! network namespaces (crates/testlan: a public segment with the relay, each home behind its
//! own router that masquerades and lets in only answers). Every table ends with identical,
//! four-signed ledgers; the lines `link to PEER: direct` tell how many links hole punching
//! made direct (printed as a figure).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

mod support;
use support::serial;

static COUNTER: AtomicU32 = AtomicU32::new(0);

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "internet-{name}-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

fn lines_of(r: impl std::io::Read + Send + 'static) -> mpsc::Receiver<String> {
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
}

/// A running process whose standard output and error are collected line by line.
struct Proc {
    child: Child,
    out: mpsc::Receiver<String>,
    err: mpsc::Receiver<String>,
    seen: Vec<String>,
    said: Vec<String>,
}

impl Proc {
    fn spawn(mut cmd: Command) -> Proc {
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("mahjong starts");
        let out = lines_of(child.stdout.take().expect("piped"));
        let err = lines_of(child.stderr.take().expect("piped"));
        Proc {
            child,
            out,
            err,
            seen: Vec::new(),
            said: Vec::new(),
        }
    }

    fn drain(&mut self) {
        for l in self.err.try_iter() {
            support::heard(&mut self.seen, l);
        }
        self.said.extend(self.out.try_iter());
    }

    /// The first line on standard output, within `limit`.
    fn first_out_line(&mut self, limit: Duration) -> String {
        match self.out.recv_timeout(limit) {
            Ok(l) => l,
            Err(_) => {
                self.drain();
                panic!("nothing printed on stdout; stderr: {:#?}", self.seen)
            }
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

    fn lines_starting(&self, prefix: &str) -> Vec<String> {
        self.seen
            .iter()
            .filter(|l| l.starts_with(prefix))
            .cloned()
            .collect()
    }

    /// The players this one printed `link to NAME: direct` for.
    fn direct_links(&self) -> std::collections::BTreeSet<String> {
        self.seen
            .iter()
            .filter_map(|l| l.strip_prefix("link to "))
            .filter_map(|l| l.strip_suffix(": direct"))
            .map(str::to_string)
            .collect()
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `mahjong` in network namespace `ns` (or here).
fn mahjong(ns: Option<&str>) -> Command {
    let bin = env!("CARGO_BIN_EXE_mahjong");
    match ns {
        Some(ns) => {
            let mut c = Command::new("ip");
            c.args(["netns", "exec", ns, bin]);
            c
        }
        None => Command::new(bin),
    }
}

/// A relay listening on `listen`: the process and the address it printed.
fn relay(ns: Option<&str>, listen: &str, dir: &Path) -> (Proc, String) {
    let mut c = mahjong(ns);
    c.args(["relay", "--listen", listen, "--data-dir"])
        .arg(dir.join("relay"));
    let mut p = Proc::spawn(c);
    let addr = p.first_out_line(Duration::from_secs(20));
    (p, addr)
}

/// A relay listening on TCP at `listen` and on QUIC at the same host and port: the process
/// and the QUIC address it printed (the players meet it over QUIC).
fn relay_quic(ns: Option<&str>, listen: &str, dir: &Path) -> (Proc, String) {
    let quic = listen.replace("/tcp/", "/udp/") + "/quic-v1";
    let mut c = mahjong(ns);
    c.args(["relay", "--listen", listen, "--listen", &quic, "--data-dir"])
        .arg(dir.join("relay"));
    let mut p = Proc::spawn(c);
    let mut addr = String::new();
    for _ in 0..2 {
        let line = p.first_out_line(Duration::from_secs(20));
        if line.contains("/quic-v1/") {
            addr = line;
        }
    }
    assert!(!addr.is_empty(), "the relay printed no QUIC address");
    (p, addr)
}

/// The relay's name in the lab's hosts files.
const RELAY_NAME: &str = "relay.mahjong.test";

/// A relay listening on TCP at `listen` and announced by name (`--external
/// /dns4/RELAY_NAME/tcp/4001`): the process and the named address it printed first.
fn relay_named(ns: Option<&str>, listen: &str, dir: &Path) -> (Proc, String) {
    let external = format!("/dns4/{RELAY_NAME}/tcp/4001");
    let mut c = mahjong(ns);
    c.args([
        "relay",
        "--listen",
        listen,
        "--external",
        &external,
        "--data-dir",
    ])
    .arg(dir.join("relay"));
    let mut p = Proc::spawn(c);
    let addr = p.first_out_line(Duration::from_secs(20));
    assert!(addr.starts_with(&external), "{addr}");
    (p, addr)
}

fn play_args(name: &str, dir: &Path, hands: u32, relay: &str, code: &str) -> Vec<String> {
    play_args_waiting(name, dir, hands, relay, code, 60)
}

fn play_args_waiting(
    name: &str,
    dir: &Path,
    hands: u32,
    relay: &str,
    code: &str,
    wait: u64,
) -> Vec<String> {
    [
        "play",
        "--bot",
        "--name",
        name,
        "--data-dir",
        &dir.join(name).to_string_lossy(),
        "--hands",
        &hands.to_string(),
        "--wait",
        &wait.to_string(),
        "--no-mdns",
        "--relay",
        relay,
        "--code",
        code,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// Every player's ledger holds the same `hands` rows, zero-sum and signed by all four seats
/// (no hand of these tables is aborted).
fn assert_same_ledgers(dir: &Path, names: &[String], hands: usize) {
    for (_, hand, _, signers) in support::assert_same_ledgers(dir, names, hands) {
        assert_eq!(
            signers,
            vec![0, 1, 2, 3],
            "hand {hand} signed by {signers:?}"
        );
    }
}

/// The time from the starts to the first `table … full after` line.
fn full_after(p: &Proc) -> Option<f64> {
    p.seen.iter().find_map(|l| {
        l.strip_prefix("table ")?
            .split_once(" full after ")?
            .1
            .split_once(" s")?
            .0
            .parse()
            .ok()
    })
}

/// Undirected links both ends of which said they are direct, out of the six of a table.
fn direct_pairs(players: &[Proc]) -> usize {
    let ids: Vec<Option<String>> = players
        .iter()
        .map(|p| {
            // Its own name: `table … full after … s; this peer plays p0`.
            p.seen.iter().find_map(|l| {
                l.strip_prefix("table ")?
                    .split_once("; this peer plays ")
                    .map(|(_, name)| name.to_string())
            })
        })
        .collect();
    let mut n = 0;
    for i in 0..players.len() {
        for j in i + 1..players.len() {
            let (Some(a), Some(b)) = (&ids[i], &ids[j]) else {
                continue;
            };
            if players[i].direct_links().contains(b) && players[j].direct_links().contains(a) {
                n += 1;
            }
        }
    }
    n
}

#[test]
fn bad_relay_addresses_and_codes_get_one_line() {
    let dir = scratch("bad");
    let relay = "/ip4/127.0.0.1/tcp/4001/p2p/12D3KooWDpJ7As7BWAwRMfu1VU2WCqNjvq387JEYKDBj4kx6nXTN";
    let cases: [(&[&str], &str); 6] = [
        (&["--relay", relay, "--code", "7K3M-QX9"], "8 letters"),
        (&["--relay", relay, "--code", "7K3M-QX9U"], "not a letter"),
        (
            &["--relay", "/ip4/127.0.0.1/tcp/4001", "--code", "7K3M-QX9P"],
            "/p2p/",
        ),
        (
            &["--relay", "relay.example:4001", "--code", "7K3M-QX9P"],
            "not an address",
        ),
        (&["--code", "7K3M-QX9P"], "needs --relay"),
        (&["--relay", relay], "--code"),
    ];
    for (extra, why) in cases {
        let out = mahjong(None)
            .args(["play", "--bot", "--name", "x", "--no-mdns", "--data-dir"])
            .arg(dir.join("x"))
            .args(extra)
            .output()
            .expect("runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{extra:?}: {err}");
        let lines: Vec<&str> = err.lines().collect();
        assert_eq!(lines.len(), 1, "{extra:?}: {err}");
        assert!(lines[0].starts_with("mahjong: "), "{extra:?}: {err}");
        assert!(lines[0].contains(why), "{extra:?}: {err}");
    }
}

#[test]
fn new_code_prints_a_code_to_share() {
    let dir = scratch("new-code");
    let (_relay, addr) = relay(None, "/ip4/127.0.0.1/tcp/0", &dir);
    let mut c = mahjong(None);
    c.args([
        "play",
        "--bot",
        "--name",
        "host",
        "--no-mdns",
        "--wait",
        "1",
        "--relay",
        &addr,
        "--new-code",
        "--listen",
        "/ip4/127.0.0.1/tcp/0",
        "--data-dir",
    ])
    .arg(dir.join("host"));
    let mut p = Proc::spawn(c);
    let line = p.first_out_line(Duration::from_secs(20));
    let code = line
        .strip_prefix("table code: ")
        .unwrap_or_else(|| panic!("{line:?}"));
    assert_eq!(code.len(), 9, "{code}");
    assert_eq!(&code[4..5], "-", "{code}");
    assert!(
        code.chars()
            .all(|c| c == '-' || c.is_ascii_digit() || c.is_ascii_uppercase()),
        "{code}"
    );
    // Alone, it gives up after its --wait with one line.
    assert_eq!(p.wait(Duration::from_secs(20)), Some(1), "{:#?}", p.seen);
    let last = p.seen.last().cloned().unwrap_or_default();
    assert!(last.contains("no table filled"), "{:#?}", p.seen);
}

#[test]
fn four_players_with_one_code_meet_at_a_relay_on_loopback_and_play() {
    let _serial = serial();
    let dir = scratch("loopback");
    let (_relay, addr) = relay(None, "/ip4/127.0.0.1/tcp/0", &dir);
    let start = Instant::now();
    let mut players: Vec<Proc> = (0..4)
        .map(|i| {
            let mut c = mahjong(None);
            c.args(play_args(&format!("p{i}"), &dir, 2, &addr, "7k3m qx9p"))
                .args(["--listen", "/ip4/127.0.0.1/tcp/0"]);
            Proc::spawn(c)
        })
        .collect();
    // Someone else at the same relay with another code: never in their lobby.
    let mut stranger = {
        let mut c = mahjong(None);
        c.args(play_args_waiting(
            "stranger",
            &dir,
            2,
            &addr,
            "7K3M-QX9Q",
            12,
        ))
        .args(["--listen", "/ip4/127.0.0.1/tcp/0"]);
        Proc::spawn(c)
    };
    // Someone who learnt the friends' namespace (the relay answers a look-up without one
    // with every registration) but not the code: it registers there and meets the friends,
    // and cannot prove the code, so it never enters their lobby.
    let mut intruder = {
        let mut c = mahjong(None);
        c.args(play_args_waiting(
            "intruder",
            &dir,
            2,
            &addr,
            "7K3M-QX9P",
            12,
        ))
        .args([
            "--listen",
            "/ip4/127.0.0.1/tcp/0",
            "--test-wrong-code-proof",
        ]);
        Proc::spawn(c)
    };
    // A friend watches through the relay with the same code.
    let mut watcher = {
        let mut c = mahjong(None);
        c.args(["watch", "--json", "--name", "w", "--wait", "60", "--relay"])
            .arg(&addr)
            .args([
                "--code",
                "7K3M-QX9P",
                "--listen",
                "/ip4/127.0.0.1/tcp/0",
                "--data-dir",
            ])
            .arg(dir.join("w"));
        Proc::spawn(c)
    };
    let end = Instant::now() + Duration::from_secs(120);
    let codes: Vec<Option<i32>> = players
        .iter_mut()
        .map(|p| p.wait(end.saturating_duration_since(Instant::now())))
        .collect();
    let took = start.elapsed();
    for (i, (p, c)) in players.iter().zip(&codes).enumerate() {
        assert_eq!(*c, Some(0), "player {i} failed: {:#?}", p.seen);
    }
    let names: Vec<String> = (0..4).map(|i| format!("p{i}")).collect();
    assert_same_ledgers(&dir, &names, 2);
    let rows = support::ledger(&dir.join("p0"));
    // The watcher saw the hands the ledgers book.
    assert_eq!(
        watcher.wait(Duration::from_secs(30)),
        Some(0),
        "{:#?}",
        watcher.seen
    );
    let ends: Vec<(u32, Vec<i64>)> = watcher
        .said
        .iter()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["event"] == "hand_end")
        .map(|v| {
            let pay = v["payments"]
                .as_array()
                .expect("payments")
                .iter()
                .map(|p| (p.as_f64().expect("a number") * 100.0).round() as i64)
                .collect();
            (v["hand"].as_u64().expect("hand") as u32, pay)
        })
        .collect();
    let booked: Vec<(u32, Vec<i64>)> = rows.iter().map(|(_, h, p, _)| (*h, p.to_vec())).collect();
    assert_eq!(ends, booked, "{:#?}", watcher.said);
    assert_eq!(
        stranger.wait(Duration::from_secs(40)),
        Some(1),
        "{:#?}",
        stranger.seen
    );
    assert!(
        stranger
            .seen
            .iter()
            .filter(|l| l.starts_with("lobby: "))
            .all(
                |l| (!l.starts_with("lobby: waiting") || l.contains("0 peers connected"))
                    && !l.contains("\"p")
            ),
        "the stranger saw the table: {:#?}",
        stranger.seen
    );
    for p in &players {
        assert!(
            p.lines_starting("lobby: ")
                .iter()
                .all(|l| !l.contains("stranger") && !l.contains("intruder")),
            "{:#?}",
            p.seen
        );
    }
    // a_stranger_who_knows_the_namespace_but_not_the_code_never_enters_the_lobby
    assert_eq!(
        intruder.wait(Duration::from_secs(40)),
        Some(1),
        "{:#?}",
        intruder.seen
    );
    assert!(
        intruder
            .seen
            .iter()
            .filter(|l| l.starts_with("lobby: "))
            .all(
                |l| (!l.starts_with("lobby: waiting") || l.contains("0 peers connected"))
                    && !l.contains("\"p")
            ),
        "the intruder entered the lobby: {:#?}",
        intruder.seen
    );
    let refused = players
        .iter()
        .flat_map(|p| p.seen.iter())
        .filter(|l| l.contains("does not know the table code"))
        .count();
    let met = intruder
        .seen
        .iter()
        .filter(|l| l.contains("does not know the table code"))
        .count();
    assert!(
        refused + met > 0,
        "the intruder never met a friend (the test would prove nothing): {:#?}",
        intruder.seen
    );
    let full = players.iter().filter_map(full_after).fold(0.0, f64::max);
    println!(
        "loopback: four players by code, two hands: {:.1} s in all, table full after {full:.1} s; \
         {} of 6 links direct",
        took.as_secs_f64(),
        direct_pairs(&players)
    );
    for p in &players {
        for l in p.lines_starting("traffic:") {
            println!("{l}");
        }
    }
}

/// Kills a process at once (SIGKILL), as a relay whose machine dies.
fn kill(p: &mut Proc) {
    let _ = p.child.kill();
    let _ = p.child.wait();
}

/// Whether a TCP connection from namespace `ns` to `host:port` opens within 3 s.
fn connects(ns: &str, host: &str, port: u16) -> bool {
    Command::new("ip")
        .args(["netns", "exec", ns, "timeout", "3", "bash", "-c"])
        .arg(format!("exec 3<>/dev/tcp/{host}/{port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The lab's NATs are real: a listener in home 1 is reached from its own router, and from
/// the public segment neither at the player's address nor at its router's.
fn assert_homes_are_closed(lab: &mahjong_testlan::Internet, dir: &Path) {
    let home = &lab.players[0][0];
    let mut c = mahjong(Some(home));
    c.args(["relay", "--listen", "/ip4/0.0.0.0/tcp/4002", "--data-dir"])
        .arg(dir.join("listener"));
    let mut listener = Proc::spawn(c);
    listener.first_out_line(Duration::from_secs(20));
    assert!(
        connects(&lab.routers[0], "10.79.1.2", 4002),
        "the lab's home LAN does not work"
    );
    assert!(
        !connects(&lab.server, "10.79.1.2", 4002),
        "a home's address is reachable from outside"
    );
    assert!(
        !connects(&lab.server, "10.78.0.1", 4002),
        "a router lets a connection in"
    );
    kill(&mut listener);
}

/// A process's peak resident memory (KiB) and CPU time so far (s), from /proc.
fn usage(pid: u32) -> (u64, f64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let hwm = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0);
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
    let ticks: f64 = stat
        .rsplit_once(')')
        .map(|(_, rest)| {
            rest.split_whitespace()
                .skip(11)
                .take(2)
                .filter_map(|t| t.parse::<f64>().ok())
                .sum()
        })
        .unwrap_or(0.0);
    (hwm, ticks / 100.0)
}

/// One `mahjong play --bot` per player of the lab (named p0, p1, …), all with one code at the
/// relay `addr`; `mdns`: they also look on their home LAN.
fn lab_players(
    lab: &mahjong_testlan::Internet,
    dir: &Path,
    hands: u32,
    addr: &str,
    mdns: bool,
) -> Vec<Proc> {
    lab.all_players()
        .iter()
        .enumerate()
        .map(|(i, ns)| {
            let mut args = play_args(&format!("p{i}"), dir, hands, addr, "7K3M-QX9P");
            if mdns {
                args.retain(|a| a != "--no-mdns");
            }
            let mut c = mahjong(Some(ns));
            c.args(args);
            Proc::spawn(c)
        })
        .collect()
}

/// What a NAT lab table is.
struct Lab<'a> {
    name: &'a str,
    /// Players in each home.
    per_home: &'a [usize],
    nat: mahjong_testlan::Nat,
    hands: u32,
    /// The players also look on their home LAN (mDNS).
    mdns: bool,
    /// Kill the relay once every link is direct and a hand is booked.
    kill_relay: bool,
    /// Kill the relay once a hand is booked and start it again this many seconds later.
    restart_relay: Option<u64>,
    /// The relay drops this share of its packets, in %, at random.
    lossy: u32,
    /// The relay listens on QUIC too and the players meet it over QUIC (so hole punching
    /// goes over QUIC); otherwise TCP only.
    quic: bool,
    /// The relay is given by name (`/dns4/relay.mahjong.test/…`, its `--external` address),
    /// found in the lab's hosts files.
    by_name: bool,
}

/// Plays a table in the NAT lab; the figures' line (or `None`: the lab cannot be made here).
fn nat_table(lab_spec: Lab) -> Option<String> {
    let Lab {
        name,
        per_home,
        nat,
        hands,
        mdns,
        kill_relay,
        restart_relay,
        lossy,
        quic,
        by_name,
    } = lab_spec;
    let Some(lab) = mahjong_testlan::Internet::new(per_home, nat) else {
        println!(
            "skipped: the NAT lab needs root, iproute2 and nftables (scripts/setup.sh installs them)"
        );
        return None;
    };
    let dir = scratch(name);
    assert_homes_are_closed(&lab, &dir);
    let listen = format!("/ip4/{}/tcp/4001", mahjong_testlan::SERVER_IP);
    if by_name {
        assert!(
            lab.name_host(RELAY_NAME, mahjong_testlan::SERVER_IP),
            "the lab's hosts files"
        );
    }
    let (mut relay, addr) = if by_name {
        relay_named(Some(&lab.server), &listen, &dir)
    } else if quic {
        relay_quic(Some(&lab.server), &listen, &dir)
    } else {
        relay(Some(&lab.server), &listen, &dir)
    };
    if lossy > 0 {
        assert!(lab.lossy_server(4001, lossy), "the lossy relay's rules");
    }
    let start = Instant::now();
    let mut players = lab_players(&lab, &dir, hands, &addr, mdns);
    let mut killed_at_hand = None;
    let mut restarted_at_hand = None;
    let mut direct_after = None;
    let mut relay_usage = (0, 0.0);
    let deadline = Instant::now() + Duration::from_secs(150);
    loop {
        for p in players.iter_mut() {
            p.drain();
        }
        let direct = direct_pairs(&players);
        if direct == 6 && direct_after.is_none() {
            direct_after = Some(start.elapsed());
        }
        let exited = players
            .iter_mut()
            .any(|p| matches!(p.child.try_wait(), Ok(Some(_))));
        let hands_done = players[0].lines_starting("hand ").len();
        if killed_at_hand.is_none() && restarted_at_hand.is_none() {
            relay_usage = usage(relay.child.id());
        }
        if kill_relay && killed_at_hand.is_none() && direct == 6 && hands_done >= 1 {
            kill(&mut relay);
            killed_at_hand = Some(hands_done);
        }
        if let Some(after) = restart_relay
            && restarted_at_hand.is_none()
            && hands_done >= 1
        {
            kill(&mut relay);
            restarted_at_hand = Some(hands_done);
            std::thread::sleep(Duration::from_secs(after));
            let (again, addr_again) = if quic {
                relay_quic(Some(&lab.server), &listen, &dir)
            } else {
                self::relay(Some(&lab.server), &listen, &dir)
            };
            assert_eq!(addr_again, addr, "the relay came back at another address");
            relay = again;
        }
        if exited || Instant::now() > deadline {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let codes: Vec<Option<i32>> = players
        .iter_mut()
        .map(|p| p.wait(deadline.saturating_duration_since(Instant::now())))
        .collect();
    let took = start.elapsed();
    for (i, (p, c)) in players.iter().zip(&codes).enumerate() {
        assert_eq!(*c, Some(0), "player {i} failed: {:#?}", p.seen);
    }
    let names: Vec<String> = (0..players.len()).map(|i| format!("p{i}")).collect();
    assert_same_ledgers(&dir, &names, hands as usize);
    if restart_relay.is_some() {
        // Every friend was linked through the relay: each player named it while it was
        // gone and waited for it, not for silent seats, and said when it was back.
        for (i, p) in players.iter().enumerate() {
            assert!(
                p.seen
                    .iter()
                    .any(|l| l.contains("is gone; every friend was linked through it; waiting")),
                "player {i} did not name the relay: {:#?}",
                p.seen
            );
            assert!(
                p.seen
                    .iter()
                    .any(|l| l.contains("is back: the table goes on")),
                "player {i}: {:#?}",
                p.seen
            );
            assert!(
                !p.seen.iter().any(|l| l.starts_with("the table is paused")),
                "player {i} waited for silent seats: {:#?}",
                p.seen
            );
        }
    }
    if kill_relay {
        assert!(
            killed_at_hand.is_some_and(|h| (h as u32) < hands),
            "the relay was not killed mid-session: {} of 6 links direct",
            direct_pairs(&players)
        );
    }
    let full = players.iter().filter_map(full_after).fold(0.0, f64::max);
    let bytes: u64 = players
        .iter()
        .flat_map(|p| p.lines_starting("traffic:"))
        .filter_map(|l| {
            l.split_once(" messages, ")?
                .1
                .split_once(" bytes sent")?
                .0
                .parse::<u64>()
                .ok()
        })
        .sum();
    let line = format!(
        "NAT lab ({nat:?} ports, {}), homes {per_home:?}, mDNS {}: {} of 6 links direct{}; table \
         full after {full:.1} s; {hands} hands in {:.1} s ({:.1} s a hand); the players sent \
         {bytes} bytes in all ({} a hand); the relay: peak RSS {} KiB, CPU {:.2} s{}",
        if quic { "QUIC" } else { "TCP" },
        if mdns { "on" } else { "off" },
        direct_pairs(&players),
        direct_after.map_or(String::new(), |d| format!(
            " ({:.1} s after the starts)",
            d.as_secs_f64()
        )),
        took.as_secs_f64(),
        (took.as_secs_f64() - full) / f64::from(hands),
        bytes / u64::from(hands),
        relay_usage.0,
        relay_usage.1,
        killed_at_hand
            .map(|h| format!(" (then killed after hand {h}: the table went on to the end)"))
            .or(restarted_at_hand.map(|h| format!(
                " (killed after hand {h} and started again {} s later: the table waited for it and went on)",
                restart_relay.unwrap_or(0)
            )))
            .unwrap_or_default(),
    );
    let line = if lossy > 0 {
        format!(
            "{line}; the relay dropped {} packets ({lossy} %)",
            lab.server_drops()
        )
    } else {
        line
    };
    println!("{line}");
    drop(lab);
    Some(line)
}

#[test]
fn four_homes_behind_nats_meet_by_code_go_direct_and_play_on_without_the_relay() {
    let _serial = serial();
    nat_table(Lab {
        name: "nat4",
        per_home: &[1, 1, 1, 1],
        nat: mahjong_testlan::Nat::Keeping,
        hands: 4,
        mdns: false,
        kill_relay: true,
        restart_relay: None,
        lossy: 0,
        quic: false,
        by_name: false,
    });
}

#[test]
fn behind_nats_that_pick_random_ports_the_relay_carries_the_whole_table() {
    let _serial = serial();
    let Some(line) = nat_table(Lab {
        name: "nat-random",
        per_home: &[1, 1, 1, 1],
        nat: mahjong_testlan::Nat::Random,
        hands: 3,
        mdns: false,
        kill_relay: false,
        restart_relay: None,
        lossy: 0,
        quic: false,
        by_name: false,
    }) else {
        return;
    };
    assert!(line.contains(": 0 of 6 links direct"), "{line}");
}

/// A relay given by its host name (`/dns4/relay.mahjong.test/tcp/4001/p2p/…`, as a VPS with a
/// domain is): every player resolves it (from the hosts file: the lab has no DNS server, so
/// the players run without a DNS configuration too), reserves, punches and plays.
#[test]
fn a_relay_given_by_its_host_name_is_met_and_the_table_plays() {
    let _serial = serial();
    let Some(line) = nat_table(Lab {
        name: "nat-named",
        per_home: &[1, 1, 1, 1],
        nat: mahjong_testlan::Nat::Keeping,
        hands: 1,
        mdns: false,
        kill_relay: false,
        restart_relay: None,
        lossy: 0,
        quic: false,
        by_name: true,
    }) else {
        return;
    };
    assert!(line.contains(": 6 of 6 links direct"), "{line}");
}

/// The pairs (player, friend) whose hole punching failed and that plan another try, from the
/// players' logs.
fn punch_failures(dir: &Path, players: usize) -> std::collections::BTreeSet<(usize, String)> {
    let mut seen = std::collections::BTreeSet::new();
    for i in 0..players {
        let log = std::fs::read_to_string(dir.join(format!("p{i}")).join("mahjong.log"))
            .unwrap_or_default();
        for line in log.lines() {
            if let Some(rest) = line.split_once("hole punching to ").map(|(_, r)| r)
                && let Some((peer, _)) = rest.split_once(" failed: trying again")
            {
                seen.insert((i, peer.to_string()));
            }
        }
    }
    seen
}

/// Hole punching that fails at first (every router drops what its home sends to the other
/// homes, so DCUtR gives up on every pair) and could succeed later (the routers let it through
/// again): the players try again by themselves and every link goes direct.
#[test]
fn hole_punching_that_failed_is_tried_again_and_the_links_go_direct() {
    let _serial = serial();
    let Some(lab) = mahjong_testlan::Internet::new(&[1, 1, 1, 1], mahjong_testlan::Nat::Keeping)
    else {
        println!(
            "skipped: the NAT lab needs root, iproute2 and nftables (scripts/setup.sh installs them)"
        );
        return;
    };
    let dir = scratch("punch-again");
    assert!(lab.block_between_homes(), "the blocking rules");
    let listen = format!("/ip4/{}/tcp/4001", mahjong_testlan::SERVER_IP);
    let (_relay, addr) = relay(Some(&lab.server), &listen, &dir);
    let start = Instant::now();
    let mut players = lab_players(&lab, &dir, 500, &addr, false);
    let wait = |players: &mut Vec<Proc>, limit: Duration, done: &dyn Fn(&[Proc]) -> bool| {
        let end = Instant::now() + limit;
        while Instant::now() < end {
            for p in players.iter_mut() {
                p.drain();
            }
            if done(players) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        false
    };
    // Every pair: one side's DCUtR gave up and planned another try.
    let failed = wait(&mut players, Duration::from_secs(120), &|_| {
        punch_failures(&dir, 4).len() >= 6
    });
    let failed_after = start.elapsed();
    assert!(
        failed,
        "hole punching did not fail on every pair: {:?}; {} of 6 links direct",
        punch_failures(&dir, 4),
        direct_pairs(&players)
    );
    assert_eq!(
        direct_pairs(&players),
        0,
        "a link went direct through the block"
    );
    assert!(lab.unblock_between_homes(), "the rules removed");
    let open = Instant::now();
    let direct = wait(&mut players, Duration::from_secs(90), &|p| {
        direct_pairs(p) == 6
    });
    let hands = players[0].lines_starting("hand ").len();
    println!(
        "hole punching failed on all 6 pairs {:.1} s after the starts; the routers let it \
         through again; {} of 6 links direct {:.1} s later (the table played {hands} hands \
         meanwhile)",
        failed_after.as_secs_f64(),
        direct_pairs(&players),
        open.elapsed().as_secs_f64()
    );
    assert!(direct, "{} of 6 links direct", direct_pairs(&players));
    assert!(hands >= 1, "the relayed table played");
}

/// The same two labs over QUIC: the relay listens on QUIC too, the players meet it over QUIC
/// and punch over UDP. The figure for docs/relay.md: whether QUIC makes more links direct.
#[test]
fn over_quic_routers_that_keep_ports_let_every_link_go_direct_and_random_ports_none() {
    let _serial = serial();
    for (nat, want) in [
        (mahjong_testlan::Nat::Keeping, 6),
        (mahjong_testlan::Nat::Random, 0),
    ] {
        let Some(line) = nat_table(Lab {
            name: &format!("nat-quic-{nat:?}"),
            per_home: &[1, 1, 1, 1],
            nat,
            hands: 2,
            mdns: false,
            kill_relay: false,
            restart_relay: None,
            lossy: 0,
            quic: true,
            by_name: false,
        }) else {
            return;
        };
        assert!(
            line.contains(&format!(": {want} of 6 links direct")),
            "{line}"
        );
    }
}

#[test]
fn two_friends_behind_one_nat_link_on_their_lan_and_the_others_by_hole_punching() {
    let _serial = serial();
    let Some(line) = nat_table(Lab {
        name: "nat-shared",
        per_home: &[2, 1, 1],
        nat: mahjong_testlan::Nat::Keeping,
        hands: 2,
        mdns: true,
        kill_relay: false,
        restart_relay: None,
        lossy: 0,
        quic: false,
        by_name: false,
    }) else {
        return;
    };
    // The two at home found each other by mDNS (their router does not loop back to itself,
    // so hole punching between them fails); the others punched through.
    assert!(line.contains(": 6 of 6 links direct"), "{line}");
}

/// A relay that loses a tenth of its packets at random (nftables in its namespace: the relay
/// forwards encrypted streams, so a loss is a TCP segment sent again): the relayed table
/// stalls now and then and books the same four-signed hands everywhere.
#[test]
fn a_relay_dropping_a_tenth_of_its_packets_slows_a_relayed_table_and_books_the_same_hands() {
    let _serial = serial();
    let Some(line) = nat_table(Lab {
        name: "nat-lossy",
        per_home: &[1, 1, 1, 1],
        nat: mahjong_testlan::Nat::Random,
        hands: 2,
        mdns: false,
        kill_relay: false,
        restart_relay: None,
        lossy: 10,
        quic: false,
        by_name: false,
    }) else {
        return;
    };
    assert!(line.contains(": 0 of 6 links direct"), "{line}");
    let dropped: u64 = line
        .rsplit_once("the relay dropped ")
        .and_then(|(_, r)| r.split(' ').next()?.parse().ok())
        .unwrap_or(0);
    assert!(dropped > 0, "the relay dropped nothing: {line}");
}

/// A relay gone for good before any link went direct (routers with random ports): every
/// player names the relay ("the relay ADDR is gone; every friend was linked through it;
/// waiting N s for it"), waits for it rather than for silent seats, and when it never comes
/// back ends the table unfinished with the cause in one line (exit 1). Nothing can be agreed
/// without the others' signatures, so nothing more is booked anywhere, and what was booked
/// before is the same everywhere; the table is never resumed.
#[test]
fn a_relay_gone_for_good_before_any_link_is_direct_is_named_and_the_table_ends_alike() {
    let _serial = serial();
    let Some(lab) = mahjong_testlan::Internet::new(&[1, 1, 1, 1], mahjong_testlan::Nat::Random)
    else {
        println!("skipped: the NAT lab needs root, iproute2 and nftables");
        return;
    };
    let dir = scratch("relay-gone");
    let listen = format!("/ip4/{}/tcp/4001", mahjong_testlan::SERVER_IP);
    let (mut relay, addr) = relay(Some(&lab.server), &listen, &dir);
    let wait = 20;
    let mut players: Vec<Proc> = lab
        .all_players()
        .iter()
        .enumerate()
        .map(|(i, ns)| {
            let mut c = mahjong(Some(ns));
            c.args(play_args_waiting(
                &format!("p{i}"),
                &dir,
                8,
                &addr,
                "7K3M-QX9P",
                wait,
            ));
            Proc::spawn(c)
        })
        .collect();
    let deadline = Instant::now() + Duration::from_secs(120);
    // The relay goes once the first hand is booked.
    while players[0].lines_starting("hand ").is_empty() {
        assert!(Instant::now() < deadline, "no hand: {:#?}", players[0].seen);
        players.iter_mut().for_each(Proc::drain);
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(direct_pairs(&players), 0, "a link went direct");
    kill(&mut relay);
    let gone = Instant::now();
    let codes: Vec<Option<i32>> = players
        .iter_mut()
        .map(|p| p.wait(Duration::from_secs(wait + 40)))
        .collect();
    for (i, (p, c)) in players.iter().zip(&codes).enumerate() {
        assert_eq!(*c, Some(1), "player {i}: {:#?}", p.seen);
        let named = p
            .seen
            .iter()
            .find(|l| l.contains("is gone; every friend was linked through it"))
            .unwrap_or_else(|| panic!("player {i} did not name the relay: {:#?}", p.seen));
        // Named as a player reads it, host and port: `the relay 10.77.0.1:4001 is gone`.
        let parts: Vec<&str> = addr.split('/').collect();
        let host_port = format!("{}:{}", parts[2], parts[4]);
        assert!(
            named.contains(&host_port) && named.ends_with(&format!("waiting {wait} s for it")),
            "{named}"
        );
        let last = p.seen.last().expect("a last line");
        assert!(
            last.contains("did not come back within") && last.contains("ends here unfinished"),
            "player {i}: {last}"
        );
        assert!(
            !p.seen.iter().any(|l| l.starts_with("the table is paused")),
            "player {i} waited for silent seats: {:#?}",
            p.seen
        );
    }
    // What each booked is one history: the hands finished while the relay was there, the
    // same rows everywhere (one that got the last signature of a hand just before the relay
    // went may be a hand ahead of another; none holds a different hand).
    let ledgers: Vec<Vec<support::Row>> = (0..4)
        .map(|i| support::ledger(&dir.join(format!("p{i}"))))
        .collect();
    let longest = ledgers.iter().map(Vec::len).max().unwrap_or(0);
    let booked = ledgers.iter().map(Vec::len).min().unwrap_or(0);
    assert!(booked >= 1, "{ledgers:?}");
    assert!(longest <= booked + 1, "{ledgers:?}");
    let reference = ledgers
        .iter()
        .max_by_key(|l| l.len())
        .cloned()
        .unwrap_or_default();
    for (i, l) in ledgers.iter().enumerate() {
        assert_eq!(l[..], reference[..l.len()], "player {i}'s ledger");
    }
    // The table ended for good: a restarted player does not resume it.
    let store = mahjong_store::Store::open(&dir.join("p0")).expect("store");
    assert!(
        store.unfinished_tables().expect("tables").is_empty(),
        "the ended table would be resumed"
    );
    println!(
        "relay gone for good after hand {booked}: every player named it, waited {wait} s and ended the table alike ({:.1} s after the relay went)",
        gone.elapsed().as_secs_f64()
    );
}

#[test]
fn a_relayed_table_pauses_while_its_relay_restarts_and_goes_on() {
    let _serial = serial();
    let Some(line) = nat_table(Lab {
        name: "nat-restart",
        per_home: &[1, 1, 1, 1],
        nat: mahjong_testlan::Nat::Random,
        hands: 3,
        mdns: false,
        kill_relay: false,
        restart_relay: Some(30),
        lossy: 0,
        quic: false,
        by_name: false,
    }) else {
        return;
    };
    assert!(line.contains("started again"), "{line}");
}

/// A stranger at the relay: one peer id asking for a reservation `n` times, each from a
/// fresh connection (as `n` processes sharing one key would). Returns (accepted, refused).
async fn reservation_flood(relay: libp2p::Multiaddr, n: usize) -> (usize, usize) {
    use futures::StreamExt;
    use libp2p::multiaddr::Protocol;
    use libp2p::swarm::{NetworkBehaviour, SwarmEvent};
    use libp2p::{identify, identity, noise, relay as p2p_relay, tcp, yamux};

    #[derive(NetworkBehaviour)]
    struct Stranger {
        relay: p2p_relay::client::Behaviour,
        identify: identify::Behaviour,
    }

    let key = identity::Keypair::generate_ed25519();
    let circuit = relay.clone().with(Protocol::P2pCircuit);
    let (mut accepted, mut refused) = (0, 0);
    let mut kept = Vec::new();
    for _ in 0..n {
        let mut swarm = libp2p::SwarmBuilder::with_existing_identity(key.clone())
            .with_tokio()
            .with_tcp(
                tcp::Config::default(),
                noise::Config::new,
                yamux::Config::default,
            )
            .expect("tcp")
            .with_relay_client(noise::Config::new, yamux::Config::default)
            .expect("relay client")
            .with_behaviour(|key, relay| Stranger {
                relay,
                identify: identify::Behaviour::new(identify::Config::new(
                    "stranger/1".into(),
                    key.public(),
                )),
            })
            .expect("behaviour")
            .build();
        if swarm.listen_on(circuit.clone()).is_err() {
            refused += 1;
            continue;
        }
        let answer = tokio::time::timeout(Duration::from_secs(5), async {
            loop {
                match swarm.select_next_some().await {
                    SwarmEvent::Behaviour(StrangerEvent::Relay(
                        p2p_relay::client::Event::ReservationReqAccepted { .. },
                    )) => return true,
                    SwarmEvent::ListenerClosed { .. }
                    | SwarmEvent::ListenerError { .. }
                    | SwarmEvent::OutgoingConnectionError { .. } => return false,
                    _ => {}
                }
            }
        })
        .await
        .unwrap_or(false);
        if answer {
            accepted += 1;
            kept.push(swarm);
        } else {
            refused += 1;
        }
    }
    (accepted, refused)
}

#[test]
fn a_stranger_asking_200_reservations_is_refused_past_the_cap_and_a_relayed_table_goes_on() {
    let _serial = serial();
    let dir = scratch("stranger");
    let (mut relay_proc, addr) = relay(None, "/ip4/127.0.0.1/tcp/0", &dir);
    let start = Instant::now();
    let mut players: Vec<Proc> = (0..4)
        .map(|i| {
            let mut c = mahjong(None);
            c.args(play_args(&format!("p{i}"), &dir, 3, &addr, "7K3M-QX9P"))
                .args([
                    "--listen",
                    "/ip4/127.0.0.1/tcp/0",
                    "--test-no-hole-punching",
                ]);
            Proc::spawn(c)
        })
        .collect();
    // Once the table is full, the stranger floods the relay from another thread.
    let end = Instant::now() + Duration::from_secs(60);
    while players.iter().any(|p| full_after(p).is_none()) && Instant::now() < end {
        for p in players.iter_mut() {
            p.drain();
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let relay_addr: libp2p::Multiaddr = addr.parse().expect("multiaddr");
    let flood = std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        let t = Instant::now();
        let counts = rt.block_on(reservation_flood(relay_addr, 200));
        (counts, t.elapsed())
    });
    let end = Instant::now() + Duration::from_secs(120);
    let codes: Vec<Option<i32>> = players
        .iter_mut()
        .map(|p| p.wait(end.saturating_duration_since(Instant::now())))
        .collect();
    let took = start.elapsed();
    let relay_usage = usage(relay_proc.child.id());
    let ((accepted, refused), flood_took) = flood.join().expect("the flood ran");
    relay_proc.drain();
    for (i, (p, c)) in players.iter().zip(&codes).enumerate() {
        assert_eq!(*c, Some(0), "player {i} failed: {:#?}", p.seen);
    }
    let names: Vec<String> = (0..4).map(|i| format!("p{i}")).collect();
    assert_same_ledgers(&dir, &names, 3);
    assert_eq!(
        direct_pairs(&players),
        0,
        "hole punching was off: every link relayed"
    );
    assert_eq!(
        (accepted, refused),
        (
            mahjong_relay::MAX_RESERVATIONS_PER_PEER,
            200 - mahjong_relay::MAX_RESERVATIONS_PER_PEER
        ),
        "the stranger's reservations (accepted, refused)"
    );
    let full = players.iter().filter_map(full_after).fold(0.0, f64::max);
    println!(
        "relayed table on loopback under a stranger's 200 reservations ({accepted} accepted, \
         {refused} refused in {:.1} s): table full after {full:.1} s, 3 hands in {:.1} s; the \
         relay: peak RSS {} KiB, CPU {:.2} s",
        flood_took.as_secs_f64(),
        took.as_secs_f64(),
        relay_usage.0,
        relay_usage.1
    );
}

#[test]
fn a_player_with_a_code_and_one_without_on_one_lan_connect_but_share_no_lobby() {
    let _serial = serial();
    let Some(lab) = mahjong_testlan::Internet::new(&[2], mahjong_testlan::Nat::Keeping) else {
        println!(
            "skipped: the NAT lab needs root, iproute2 and nftables (scripts/setup.sh installs them)"
        );
        return;
    };
    let dir = scratch("mixed");
    let listen = format!("/ip4/{}/tcp/4001", mahjong_testlan::SERVER_IP);
    let (_relay, addr) = relay(Some(&lab.server), &listen, &dir);
    // Both with mDNS on, at one home: they find each other on the LAN.
    let mut with_code = {
        let mut args = play_args_waiting("coded", &dir, 1, &addr, "7K3M-QX9P", 8);
        args.retain(|a| a != "--no-mdns");
        let mut c = mahjong(Some(&lab.players[0][0]));
        c.args(args);
        Proc::spawn(c)
    };
    let mut without = {
        let mut c = mahjong(Some(&lab.players[0][1]));
        c.args([
            "play", "--bot", "--name", "plain", "--hands", "1", "--wait", "8",
        ])
        .arg("--data-dir")
        .arg(dir.join("plain"));
        Proc::spawn(c)
    };
    assert_eq!(
        with_code.wait(Duration::from_secs(30)),
        Some(1),
        "{:#?}",
        with_code.seen
    );
    assert_eq!(
        without.wait(Duration::from_secs(30)),
        Some(1),
        "{:#?}",
        without.seen
    );
    // The one without a code is connected to the other (it takes every LAN peer) but is
    // never told of its table; the one with the code lists nobody.
    let plain = without.lines_starting("lobby: ");
    assert!(
        plain.iter().any(|l| l.contains("1 peer connected")),
        "the two never connected: {:#?}",
        without.seen
    );
    assert!(
        plain.iter().all(|l| !l.contains("\"coded")),
        "{:#?}",
        without.seen
    );
    assert!(
        with_code
            .lines_starting("lobby: ")
            .iter()
            .all(
                |l| (!l.starts_with("lobby: waiting") || l.contains("0 peers connected"))
                    && !l.contains("\"plain")
            ),
        "{:#?}",
        with_code.seen
    );
}
