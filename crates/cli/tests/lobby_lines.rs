//! A peer waiting for a table says what it sees in the lobby, one line every few seconds on
//! standard error: every table and why it does not sit there. Real `mahjong play` processes
//! on loopback (`--no-mdns`, `--peer`): nothing leaves the machine.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

mod support;

struct Running {
    child: Child,
    lines: mpsc::Receiver<String>,
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(name: &str, port: u16, peers: &[u16], extra: &[&str]) -> Running {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("lobby-lines-{}", std::process::id()))
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    let mut c = Command::new(env!("CARGO_BIN_EXE_mahjong"));
    c.args(["play", "--bot", "--no-mdns", "--wait", "20", "--name", name])
        .arg("--data-dir")
        .arg(&dir)
        .args(["--listen", &format!("/ip4/127.0.0.1/tcp/{port}")])
        .args(extra);
    for p in peers {
        c.args(["--peer", &format!("/ip4/127.0.0.1/tcp/{p}")]);
    }
    let mut child = c
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mahjong starts");
    let stderr = child.stderr.take().expect("piped");
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    Running { child, lines }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

#[test]
fn a_waiting_peer_says_which_tables_it_sees_and_why_none_fits() {
    let ports = [free_port(), free_port(), free_port()];
    let ann = start("Ann", ports[0], &ports[1..], &["--hands", "1"]);
    let _bob = start(
        "Bob",
        ports[1],
        &[ports[0]],
        &["--hands", "1", "--preset", "classic"],
    );
    let _cy = start(
        "Cy",
        ports[2],
        &[ports[0]],
        &["--hands", "3", "--stake", "2"],
    );
    // Ann's reports, until one names both other tables (each peer opens its own after
    // 1.2 s) and a second report came. A report is a `lobby: waiting for …` line and one
    // `lobby: "TABLE": why` line per table, each within 80 columns.
    let end = Instant::now() + Duration::from_secs(19);
    let mut reports: Vec<Vec<String>> = Vec::new();
    let mut last = Instant::now();
    let mut gaps = Vec::new();
    let names_both = |r: &[String]| {
        r.iter().any(|l| l.contains("Bob's table")) && r.iter().any(|l| l.contains("Cy's table"))
    };
    while Instant::now() < end {
        let Ok(line) = ann.lines.recv_timeout(Duration::from_millis(200)) else {
            continue;
        };
        let mut seen = Vec::new();
        support::heard(&mut seen, line.clone());
        if line.starts_with("lobby: waiting") {
            if reports.last().is_some_and(|r| names_both(r)) && reports.len() >= 2 {
                break;
            }
            gaps.push(last.elapsed());
            last = Instant::now();
            reports.push(vec![line]);
        } else if line.starts_with("lobby: ")
            && let Some(r) = reports.last_mut()
        {
            r.push(line);
        }
    }
    let report = reports.last().expect("no lobby line at all");
    assert!(names_both(report), "{reports:#?}");
    assert_eq!(
        report[0], "lobby: waiting for qiaoma, stake 1, 1 hand; 2 peers connected",
        "{reports:#?}"
    );
    for want in [
        "lobby: \"Bob's table\": another preset: classic",
        "lobby: \"Cy's table\": another stake: 2, another length: 3 hands",
        "lobby: \"Ann's table\": this peer's, 1 of 4 players seated",
    ] {
        assert!(report.iter().any(|l| l == want), "{want}: {report:#?}");
    }
    // Every few seconds (5), not more often.
    assert!(gaps.len() >= 2, "{reports:#?}");
    for g in gaps.iter().skip(1) {
        assert!(
            *g > Duration::from_secs(4) && *g < Duration::from_secs(7),
            "{gaps:?}"
        );
    }
}
