//! A peer waiting for a table says what it sees in the lobby, one line every few seconds on
//! standard error: every table and why it does not sit there. Real `mahjong play` processes
//! on loopback (`--no-mdns`, `--peer`): nothing leaves the machine.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

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
    // Ann's lines, until one names both other tables (each peer opens its own after 1.2 s)
    // and a second line came.
    let end = Instant::now() + Duration::from_secs(19);
    let mut lobby = Vec::new();
    let mut last = Instant::now();
    let mut gaps = Vec::new();
    while Instant::now() < end {
        let Ok(line) = ann.lines.recv_timeout(Duration::from_millis(200)) else {
            continue;
        };
        if !line.starts_with("lobby: ") {
            continue;
        }
        gaps.push(last.elapsed());
        last = Instant::now();
        let done = line.contains("Bob's table") && line.contains("Cy's table");
        lobby.push(line);
        if done && lobby.len() >= 2 {
            break;
        }
    }
    let line = lobby.last().expect("no lobby line at all");
    assert!(
        line.contains("Bob's table") && line.contains("Cy's table"),
        "{lobby:#?}"
    );
    assert!(
        line.starts_with(
            "lobby: waiting for a table of qiaoma, stake 1, 1 hands; 2 peers connected; tables: "
        ),
        "{line}"
    );
    assert!(
        line.contains("\"Bob's table\" (another preset: classic)"),
        "{line}"
    );
    assert!(
        line.contains("\"Cy's table\" (another stake: 2, another length: 3 hands)"),
        "{line}"
    );
    assert!(
        line.contains("\"Ann's table\" (this peer's, 1 of 4 players seated)"),
        "{line}"
    );
    // Every few seconds (5), not more often.
    assert!(gaps.len() >= 2, "{lobby:#?}");
    for g in gaps.iter().skip(1) {
        assert!(
            *g > Duration::from_secs(4) && *g < Duration::from_secs(7),
            "{gaps:?}"
        );
    }
}
