//! Four real app processes (the `shanghai-mahjong` binary, its window on Xvfb), each in its own
//! network namespace on one bridge (addresses 10.77.0.N/24 that exist only inside the
//! namespaces this test makes, so mDNS multicast stays inside). Nobody types anything: with
//! `--autoplay` each app finds the others by mDNS, they sit at one table, the strong bot plays
//! each seat and every app prints its hand and quits after the four-signed settlement.
//!
//! The first app starts alone and opens its table; the three others start once it is open and
//! each prints how long after its launch it saw that table ("launch to a friend's table").
//!
//! A second run kills one app with SIGKILL in the middle of a two-hand session and starts it
//! again on the same data dir: it resumes its table from its store, and the session ends with
//! the same four-signed ledger in all four stores.
//!
//! Needs root (namespaces), iproute2 and Xvfb; skips with a message where they are missing.
//! Runs with every `cargo test`; the figures: `cargo test -p shanghai-mahjong --test lan_xvfb --
//! --nocapture`.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

static COUNTER: AtomicU32 = AtomicU32::new(0);

/// One table of four apps at a time: the machine has two cores.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

use mahjong_testlan::Lan;

/// A child killed on drop.
struct Kid(Child);

impl Drop for Kid {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts app `i` in namespace `ns` for a session of `hands`; its stderr lines go to `lines`
/// tagged with `i`.
fn app(
    i: usize,
    ns: &str,
    display: &str,
    dir: &std::path::Path,
    hands: u32,
    lines: &mpsc::Sender<(usize, String)>,
) -> Kid {
    let mut child = Command::new("ip")
        .args(["netns", "exec", ns, env!("CARGO_BIN_EXE_shanghai-mahjong")])
        .arg("--data-dir")
        .arg(dir.join(format!("p{i}")))
        .args(["--name", &format!("P{i}"), "--lang", "en", "--autoplay"])
        .args(["--hands", &hands.to_string()])
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

/// What one run saw.
struct Run {
    /// "launch to a friend's table" of apps 2-4, ms.
    seen_ms: Vec<u64>,
    /// The `hand N:` lines, by app.
    hands: Vec<(usize, String)>,
}

/// Four apps at one table for `hands` hands; with `kill`, app `kill` is killed by SIGKILL
/// `kill_after` after the table is full and started again on its data dir.
fn table_of_four(name: &str, hands: u32, kill: Option<(usize, Duration)>) -> Option<Run> {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(lan) = Lan::new(4) else {
        println!("network namespaces cannot be made here (needs root and iproute2): skipped");
        return None;
    };
    // A display no other X server holds (a killed one may leave its lock behind).
    let first = (std::process::id() + COUNTER.fetch_add(1, Ordering::SeqCst)) % 9;
    let number = (0..9)
        .map(|k| 90 + (first + k) % 9)
        .find(|n| !std::path::Path::new(&format!("/tmp/.X{n}-lock")).exists())
        .unwrap_or(90 + first);
    let display = format!(":{number}");
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
        return None;
    };
    let _xvfb = Kid(xvfb);
    // Ready when its socket is there (a loaded machine may take seconds).
    let socket = format!("/tmp/.X11-unix/X{number}");
    let ready = Instant::now() + Duration::from_secs(15);
    while !std::path::Path::new(&socket).exists() && Instant::now() < ready {
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(200));
    let dir = std::env::temp_dir().join(format!("shanghai-xvfb-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (tx, rx) = mpsc::channel();
    let start = Instant::now();
    let mut kids = vec![app(1, &lan.hosts[0], &display, &dir, hands, &tx)];
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
        kids.push(app(i, &lan.hosts[i - 1], &display, &dir, hands, &tx));
    }
    let deadline = Instant::now() + Duration::from_secs(240);
    let mut run = Run {
        seen_ms: Vec::new(),
        hands: Vec::new(),
    };
    let mut full = 0;
    let mut kill_at: Option<Instant> = None;
    // Every app is done when its `session over` line is in (a killed app's line comes from
    // its second life).
    let mut over = 0;
    while over < 4 {
        if let Some(at) = kill_at
            && Instant::now() >= at
            && let Some((k, _)) = kill
        {
            kill_at = None;
            println!(
                "[{:>5} ms] killing app {k} (SIGKILL)",
                start.elapsed().as_millis()
            );
            let _ = kids[k - 1].0.kill();
            let _ = kids[k - 1].0.wait();
            kids[k - 1] = app(k, &lan.hosts[k - 1], &display, &dir, hands, &tx);
        }
        let left = deadline.saturating_duration_since(Instant::now());
        assert!(!left.is_zero(), "not every app finished: {:?}", run.hands);
        let Ok((i, line)) = rx.recv_timeout(left.min(Duration::from_millis(200))) else {
            continue;
        };
        println!("[{:>5} ms] app {i}: {line}", start.elapsed().as_millis());
        // Apps 2-4 seeing the first app's table (the first app may see a later one).
        if let Some(ms) = line
            .strip_prefix("lobby: first table of another peer seen ")
            .filter(|_| i != 1)
            .and_then(|r| r.split(' ').next())
            .and_then(|n| n.parse().ok())
        {
            run.seen_ms.push(ms);
        }
        if line.ends_with(" full") {
            full += 1;
            if full == 4
                && let Some((_, after)) = kill
            {
                kill_at = Some(Instant::now() + after);
            }
        }
        if line.starts_with("hand ") {
            run.hands.push((i, line.clone()));
        }
        if line.starts_with("session over") {
            over += 1;
        }
        if line.ends_with(" full") && i == 1 && kill.is_none() {
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
    }
    for (i, mut k) in kids.into_iter().enumerate() {
        let status = wait(&mut k.0, Duration::from_secs(30));
        assert_eq!(
            status,
            Some(true),
            "app {} quits by itself, exit code 0",
            i + 1
        );
    }
    // Each app's store holds every hand, final (four settlement signatures or three abort
    // votes), with the same result everywhere.
    let mut ledgers = Vec::new();
    for i in 1..=4 {
        let store = mahjong_store::Store::open(&dir.join(format!("p{i}"))).expect("store");
        let ledger = store.ledger().expect("ledger");
        assert_eq!(ledger.len(), hands as usize, "app {i} booked every hand");
        for row in &ledger {
            let votes = if row.aborted_by.is_some() { 3 } else { 4 };
            assert_eq!(row.signatures.len(), votes, "app {i}, hand {}", row.hand);
            assert_eq!(row.payments.iter().map(|m| m.0).sum::<i64>(), 0);
        }
        let rows: Vec<_> = ledger
            .iter()
            .map(|r| (r.hand, r.hand_id, r.payments))
            .collect();
        ledgers.push(rows);
    }
    assert!(
        ledgers.iter().all(|l| *l == ledgers[0]),
        "one ledger: {ledgers:?}"
    );
    run.seen_ms.sort_unstable();
    println!(
        "launch to a friend's table (apps 2-4): {:?} ms; whole run {:.1} s",
        run.seen_ms,
        start.elapsed().as_secs_f64()
    );
    if std::env::var_os("KEEP").is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    Some(run)
}

#[test]
fn four_apps_in_four_namespaces_find_each_other_and_play_a_four_signed_hand() {
    let Some(run) = table_of_four("one", 1, None) else {
        return;
    };
    assert_eq!(run.hands.len(), 4, "every app printed its hand");
    for (i, line) in &run.hands {
        assert!(line.ends_with(", 4 signatures"), "app {i}: {line}");
    }
    let payments = |l: &str| l.split("payments ").nth(1).map(str::to_string);
    assert!(
        run.hands
            .iter()
            .all(|(_, l)| payments(l) == payments(&run.hands[0].1))
    );
    assert_eq!(
        run.seen_ms.len(),
        3,
        "apps 2-4 each saw the first app's table"
    );
}

#[test]
fn an_app_killed_mid_hand_resumes_its_table_when_started_again() {
    let Some(run) = table_of_four("kill", 2, Some((3, Duration::from_secs(3)))) else {
        return;
    };
    // The restarted app resumed the table from its store and played on.
    assert!(run.hands.iter().any(|(i, _)| *i == 3), "{:?}", run.hands);
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
