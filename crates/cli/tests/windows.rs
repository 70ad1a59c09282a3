//! The Windows build, checked on Linux on every test run: both binaries are cross-built for
//! `x86_64-pc-windows-gnu` (profile `windows-check`: release without line tables, into
//! `<target dir>/windows`, so it never waits on the lock of the build running this test) and run
//! under wine, in a fresh wine prefix of its own, with an X server of its own (Xvfb):
//!
//! - `mahjong.exe score` pays the worked examples of the rules' §8 as expected;
//! - `shanghai-mahjong.exe --practice qiaoma --autoplay --hands 1` plays a practice hand to its
//!   four-signed settlement and exits 0, and `mahjong.exe ledger --json` lists that hand;
//! - `mahjong.exe play --bot` plays a 2-hand table on loopback (`--peer`, `--no-mdns`) with
//!   three Linux `mahjong play --bot` peers: the Windows build speaks the same wire, and the
//!   four ledgers are identical.
//!
//! Wine 8 has no `bcryptprimitives.dll`, whose `ProcessPrng` Rust's standard library calls on
//! Windows: a stand-in forwarding to `RtlGenRandom` is built from `tests/wine/
//! bcryptprimitives.c` with MinGW into the test's prefix (never into a package).
//!
//! Needs the rustup target, MinGW-w64's gcc, wine and Xvfb, which `scripts/setup.sh` installs;
//! without them the test fails with one line saying so (it never skips).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

const TARGET: &str = "x86_64-pc-windows-gnu";
const PROFILE: &str = "windows-check";

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("workspace dir")
}

/// The cross-build's own target dir, beside the one this test was built in.
fn cross_target_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("target dir")
        .join("windows")
}

fn have(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Whether the toolchain running this test has Rust's standard library for `TARGET`.
fn have_rust_target() -> bool {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    Command::new(rustc)
        .args(["--print", "sysroot"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .is_some_and(|o| {
            Path::new(String::from_utf8_lossy(&o.stdout).trim())
                .join("lib/rustlib")
                .join(TARGET)
                .is_dir()
        })
}

/// Fails in one line when a tool is missing.
fn require_tools() {
    let mut missing: Vec<&str> = [
        "x86_64-w64-mingw32-gcc",
        "wine",
        "wineboot",
        "wineserver",
        "Xvfb",
    ]
    .into_iter()
    .filter(|t| !have(t))
    .collect();
    if !have_rust_target() {
        missing.push("the rustup target x86_64-pc-windows-gnu");
    }
    assert!(
        missing.is_empty(),
        "the Windows check needs {}: run scripts/setup.sh",
        missing.join(", ")
    );
}

/// The last `n` lines of `text`.
fn tail(text: &[u8], n: usize) -> String {
    let text = String::from_utf8_lossy(text);
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// Cross-builds both binaries; the directory holding `mahjong.exe` and `shanghai-mahjong.exe`.
fn cross_build() -> PathBuf {
    let start = Instant::now();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    // What cargo sets for a running test (the package's name, its dirs…) would count as
    // changed for the inner build's crates and rebuild them on every run.
    for (key, _) in std::env::vars_os() {
        let key = key.to_string_lossy();
        if key.starts_with("CARGO_PKG_")
            || [
                "CARGO_MANIFEST_DIR",
                "CARGO_MANIFEST_PATH",
                "CARGO_CRATE_NAME",
                "CARGO_PRIMARY_PACKAGE",
                "CARGO_BIN_NAME",
                "CARGO_TARGET_TMPDIR",
                "CARGO_RUSTC_CURRENT_DIR",
            ]
            .contains(&key.as_ref())
        {
            cmd.env_remove(key.as_ref());
        }
    }
    let out = cmd
        .current_dir(workspace())
        .env("CARGO_TARGET_DIR", cross_target_dir())
        .args(["build", "--profile", PROFILE, "--target", TARGET])
        .args(["-p", "shanghai-mahjong", "-p", "mahjong-cli"])
        .stdin(Stdio::null())
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "the cross-build failed:\n{}",
        tail(&out.stderr, 40)
    );
    let dir = cross_target_dir().join(TARGET).join(PROFILE);
    for exe in ["mahjong.exe", "shanghai-mahjong.exe"] {
        assert!(dir.join(exe).is_file(), "no {exe} in {}", dir.display());
    }
    eprintln!(
        "windows: cross-built (or found up to date) in {:.1} s",
        start.elapsed().as_secs_f32()
    );
    dir
}

/// A child killed on drop.
struct Kid(Child);

impl Drop for Kid {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// An X server of its own on a free display number.
fn xvfb() -> (Kid, String) {
    for n in 0..50 {
        let d = 370 + (std::process::id() % 200) + n;
        // A server killed earlier leaves its socket and lock behind: skip those numbers too.
        if Path::new(&format!("/tmp/.X11-unix/X{d}")).exists()
            || Path::new(&format!("/tmp/.X{d}-lock")).exists()
        {
            continue;
        }
        let kid = Kid(Command::new("Xvfb")
            .arg(format!(":{d}"))
            .args([
                "-screen",
                "0",
                "1280x800x24",
                "-nolisten",
                "tcp",
                "-noreset",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("Xvfb starts"));
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(10) {
            if Path::new(&format!("/tmp/.X11-unix/X{d}")).exists() {
                return (kid, format!(":{d}"));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    panic!("no X server could be started (Xvfb)");
}

/// A fresh wine prefix with the `bcryptprimitives.dll` stand-in; its wineserver is stopped and
/// the prefix deleted on drop.
struct Wine {
    prefix: PathBuf,
    display: String,
    _x: Kid,
}

impl Wine {
    fn new() -> Wine {
        let (x, display) = xvfb();
        let prefix = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("wine-prefix-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&prefix);
        let wine = Wine {
            prefix,
            display,
            _x: x,
        };
        let start = Instant::now();
        let out = wine
            .command("wineboot")
            .arg("--init")
            .output()
            .expect("wineboot runs");
        assert!(out.status.success(), "wineboot: {}", tail(&out.stderr, 20));
        let _ = wine.command("wineserver").arg("-w").status();
        let system32 = wine.prefix.join("drive_c/windows/system32");
        assert!(system32.is_dir(), "wineboot made no {}", system32.display());
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/wine/bcryptprimitives.c");
        let out = Command::new("x86_64-w64-mingw32-gcc")
            .args(["-shared", "-O2", "-s", "-o"])
            .arg(system32.join("bcryptprimitives.dll"))
            .arg(&source)
            .arg("-ladvapi32")
            .output()
            .expect("x86_64-w64-mingw32-gcc runs");
        assert!(
            out.status.success(),
            "the bcryptprimitives.dll stand-in: {}",
            tail(&out.stderr, 20)
        );
        eprintln!(
            "windows: fresh wine prefix ready in {:.1} s",
            start.elapsed().as_secs_f32()
        );
        wine
    }

    /// `program` (a wine tool, or `wine`) in this prefix, on this display, quiet.
    fn command(&self, program: &str) -> Command {
        let mut c = Command::new(program);
        c.env("WINEPREFIX", &self.prefix)
            .env("WINEARCH", "win64")
            .env("WINEDEBUG", "-all")
            // No prompts to install wine's Mono or Gecko.
            .env("WINEDLLOVERRIDES", "mscoree,mshtml=")
            .env("DISPLAY", &self.display)
            .stdin(Stdio::null());
        c
    }

    /// `exe ARGS` under wine.
    fn exe(&self, exe: &Path, args: &[String]) -> Command {
        let mut c = self.command("wine");
        c.arg(exe).args(args);
        c
    }
}

impl Drop for Wine {
    fn drop(&mut self) {
        let _ = self.command("wineserver").arg("-k").status();
        let _ = std::fs::remove_dir_all(&self.prefix);
    }
}

/// A Linux path as the Windows program sees it (wine maps `Z:` to `/`).
fn win_path(p: &Path) -> String {
    format!("Z:{}", p.display()).replace('/', "\\")
}

/// Runs `cmd` to its end, at most `limit` (killed past it: a failure).
fn run(mut cmd: Command, limit: Duration) -> Output {
    let child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts");
    let mut p = Peer::new(child, true);
    let code = p.wait(limit);
    assert!(
        code.is_some(),
        "still running after {limit:?}: {:#?}",
        p.seen
    );
    Output {
        status: p.child.wait().expect("waited"),
        stdout: std::mem::take(&mut p.out),
        stderr: p.seen.join("\n").into_bytes(),
    }
}

/// A running process whose standard error is collected line by line.
struct Peer {
    child: Child,
    lines: mpsc::Receiver<String>,
    seen: Vec<String>,
    stdout: Option<std::thread::JoinHandle<Vec<u8>>>,
    out: Vec<u8>,
}

impl Peer {
    fn new(mut child: Child, keep_stdout: bool) -> Peer {
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
        let stdout = if keep_stdout {
            child.stdout.take().map(|mut s| {
                std::thread::spawn(move || {
                    let mut v = Vec::new();
                    let _ = std::io::Read::read_to_end(&mut s, &mut v);
                    v
                })
            })
        } else {
            None
        };
        Peer {
            child,
            lines,
            seen: Vec::new(),
            stdout,
            out: Vec::new(),
        }
    }

    fn spawn(mut cmd: Command) -> Peer {
        let child = cmd
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("starts");
        Peer::new(child, false)
    }

    fn drain(&mut self) {
        while let Ok(l) = self.lines.try_recv() {
            self.seen.push(l);
        }
    }

    /// Waits for the exit, at most `limit`; kills it past that.
    fn wait(&mut self, limit: Duration) -> Option<i32> {
        let end = Instant::now() + limit;
        let code = loop {
            self.drain();
            if let Ok(Some(status)) = self.child.try_wait() {
                break Some(status.code().unwrap_or(-1));
            }
            if Instant::now() > end {
                let _ = self.child.kill();
                let _ = self.child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        std::thread::sleep(Duration::from_millis(100));
        self.drain();
        if let Some(h) = self.stdout.take() {
            self.out = h.join().unwrap_or_default();
        }
        code
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Ledger rows as JSON, without the booking time (each peer's own clock).
fn rows(ledger_stdout: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(ledger_stdout)
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l)
                .unwrap_or_else(|e| panic!("ledger line {l:?} is not JSON: {e}"));
            v.as_object_mut().expect("an object").remove("booked");
            v
        })
        .collect()
}

fn four_signed(row: &Value) -> bool {
    row["seats"] == serde_json::json!([0, 1, 2, 3])
        && row["signatures"].as_array().is_some_and(|s| s.len() == 4)
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("windows-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// `mahjong.exe score` on the worked examples.
fn scores_the_worked_examples(wine: &Wine, exe: &Path) {
    let settlements = workspace().join("tests/settlements");
    for i in 1..=3 {
        let file = settlements.join(format!("settlement-{i}.json"));
        let expected: Value = serde_json::from_str(
            &std::fs::read_to_string(settlements.join(format!("settlement-{i}.expected.json")))
                .expect("expected file"),
        )
        .expect("expected JSON");
        let out = run(
            wine.exe(exe, &["score".into(), win_path(&file)]),
            Duration::from_secs(120),
        );
        assert!(out.status.success(), "mahjong.exe score: {out:?}");
        let got: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "mahjong.exe score printed no JSON ({e}): {}",
                String::from_utf8_lossy(&out.stdout)
            )
        });
        assert_eq!(got["payments"], expected["payments"], "settlement-{i}");
        assert_eq!(got["hands"], expected["hands"], "settlement-{i}");
    }
}

/// `shanghai-mahjong.exe --practice qiaoma --autoplay --hands 1`, then `mahjong.exe ledger`.
fn practises_a_hand_and_books_it(wine: &Wine, dir: &Path) {
    let data = scratch("practice");
    let start = Instant::now();
    let out = run(
        wine.exe(
            &dir.join("shanghai-mahjong.exe"),
            &[
                "--data-dir".into(),
                win_path(&data),
                "--practice".into(),
                "qiaoma".into(),
                "--autoplay".into(),
                "--hands".into(),
                "1".into(),
            ],
        ),
        Duration::from_secs(300),
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "shanghai-mahjong.exe: {} {err}",
        out.status
    );
    let hands: Vec<&str> = err.lines().filter(|l| l.starts_with("hand ")).collect();
    assert_eq!(hands.len(), 1, "one hand line on stderr: {err}");
    assert!(hands[0].ends_with("4 signatures"), "{err}");
    eprintln!(
        "windows: a practice hand played by shanghai-mahjong.exe in {:.1} s",
        start.elapsed().as_secs_f32()
    );
    let out = run(
        wine.exe(
            &dir.join("mahjong.exe"),
            &strings(&["ledger", "--json", "--data-dir"])
                .into_iter()
                .chain([win_path(&data)])
                .collect::<Vec<_>>(),
        ),
        Duration::from_secs(120),
    );
    assert!(out.status.success(), "mahjong.exe ledger: {out:?}");
    let rows = rows(&out.stdout);
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert!(four_signed(&rows[0]), "{}", rows[0]);
    let _ = std::fs::remove_dir_all(&data);
}

/// `mahjong.exe play --bot` at a 2-hand table with three Linux peers on loopback.
fn plays_a_table_with_linux_peers(wine: &Wine, dir: &Path) {
    let data = scratch("lan");
    let ports: Vec<u16> = (0..4)
        .map(|_| {
            let l = std::net::TcpListener::bind("127.0.0.1:0").expect("free port");
            l.local_addr().expect("addr").port()
        })
        .collect();
    let args = |i: usize, path: String| -> Vec<String> {
        let mut v = strings(&["play", "--bot", "--name"]);
        v.extend([format!("p{i}"), "--data-dir".into(), path]);
        v.extend(strings(&[
            "--hands",
            "2",
            "--wait",
            "120",
            "--no-mdns",
            "--listen",
        ]));
        v.push(format!("/ip4/127.0.0.1/tcp/{}", ports[i]));
        for (j, p) in ports.iter().enumerate() {
            if j != i {
                v.extend(["--peer".into(), format!("/ip4/127.0.0.1/tcp/{p}")]);
            }
        }
        v
    };
    let linux = env!("CARGO_BIN_EXE_mahjong");
    let start = Instant::now();
    let mut peers = vec![Peer::spawn(wine.exe(
        &dir.join("mahjong.exe"),
        &args(0, win_path(&data.join("p0"))),
    ))];
    for i in 1..4 {
        let mut c = Command::new(linux);
        c.args(args(i, data.join(format!("p{i}")).display().to_string()));
        peers.push(Peer::spawn(c));
    }
    let end = Instant::now() + Duration::from_secs(360);
    let codes: Vec<Option<i32>> = peers
        .iter_mut()
        .map(|p| p.wait(end.saturating_duration_since(Instant::now())))
        .collect();
    for (i, (p, c)) in peers.iter().zip(&codes).enumerate() {
        assert_eq!(*c, Some(0), "peer {i} failed: {:#?}", p.seen);
    }
    eprintln!(
        "windows: mahjong.exe and three Linux peers played 2 hands in {:.1} s",
        start.elapsed().as_secs_f32()
    );
    let mut ledgers = Vec::new();
    let win = run(
        wine.exe(
            &dir.join("mahjong.exe"),
            &[
                "ledger".into(),
                "--json".into(),
                "--data-dir".into(),
                win_path(&data.join("p0")),
            ],
        ),
        Duration::from_secs(120),
    );
    assert!(win.status.success(), "mahjong.exe ledger: {win:?}");
    ledgers.push(rows(&win.stdout));
    for i in 1..4 {
        let out = Command::new(linux)
            .args(["ledger", "--json", "--data-dir"])
            .arg(data.join(format!("p{i}")))
            .output()
            .expect("mahjong ledger runs");
        assert!(out.status.success(), "mahjong ledger: {out:?}");
        ledgers.push(rows(&out.stdout));
    }
    assert_eq!(ledgers[0].len(), 2, "two hands booked: {:#?}", ledgers[0]);
    assert!(ledgers[0].iter().all(four_signed), "{:#?}", ledgers[0]);
    for (i, l) in ledgers.iter().enumerate() {
        assert_eq!(
            l, &ledgers[0],
            "the ledger of p{i} differs from the Windows peer's"
        );
    }
    let _ = std::fs::remove_dir_all(&data);
}

#[test]
fn the_windows_build_scores_practises_and_plays_with_linux_peers() {
    require_tools();
    let dir = cross_build();
    let start = Instant::now();
    let wine = Wine::new();
    scores_the_worked_examples(&wine, &dir.join("mahjong.exe"));
    practises_a_hand_and_books_it(&wine, &dir);
    plays_a_table_with_linux_peers(&wine, &dir);
    drop(wine);
    eprintln!(
        "windows: the wine checks took {:.1} s",
        start.elapsed().as_secs_f32()
    );
}
