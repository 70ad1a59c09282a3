//! One process per data dir, through real `mahjong play` processes: a second process on a
//! data dir in use exits non-zero at once with one line naming the holder's pid, before it
//! opens the store or dials anybody; the lock goes with its holder (a kill included).
//!
//! The peers run on loopback with `--no-mdns` and no `--peer`: nothing leaves the machine and
//! no table ever fills (they would wait `--wait` seconds).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("lock-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

fn play(dir: &Path, name: &str) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_mahjong"));
    c.args(["play", "--bot", "--no-mdns", "--wait", "30", "--name", name])
        .args(["--listen", "/ip4/127.0.0.1/tcp/0", "--data-dir"])
        .arg(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    c
}

/// A running `mahjong play` whose standard error is read line by line.
struct Running {
    child: Child,
    lines: mpsc::Receiver<String>,
}

impl Running {
    fn start(mut cmd: Command) -> Running {
        let mut child = cmd.spawn().expect("mahjong starts");
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

    /// Waits for a line starting with `prefix`; panics with what was seen after `limit`.
    fn wait_line(&mut self, prefix: &str, limit: Duration) -> String {
        let end = Instant::now() + limit;
        let mut seen = Vec::new();
        while Instant::now() < end {
            match self.lines.recv_timeout(Duration::from_millis(100)) {
                Ok(l) if l.starts_with(prefix) => return l,
                Ok(l) => seen.push(l),
                Err(_) => {}
            }
        }
        panic!("no line {prefix:?} within {limit:?}: {seen:#?}");
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs `cmd` to its end (at most `limit`): exit code, standard error, time taken.
fn run_to_end(mut cmd: Command, limit: Duration) -> (Option<i32>, String, Duration) {
    let started = Instant::now();
    let mut child = cmd.spawn().expect("mahjong starts");
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            let mut err = String::new();
            if let Some(mut e) = child.stderr.take() {
                let _ = std::io::Read::read_to_string(&mut e, &mut err);
            }
            return (status.code(), err, started.elapsed());
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return (None, String::new(), started.elapsed());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_second_process_on_a_data_dir_in_use_exits_at_once_naming_the_holder() {
    let root = scratch("second");
    let dir = root.join("ann");
    let mut first = Running::start(play(&dir, "Ann"));
    first.wait_line("listening on ", Duration::from_secs(60));

    let (code, err, took) = run_to_end(play(&dir, "Ann"), Duration::from_secs(20));
    assert_eq!(code, Some(1), "stderr: {err}");
    assert_eq!(
        err,
        format!(
            "mahjong: the data dir {} is in use by another process (pid {})\n",
            dir.display(),
            first.child.id()
        )
    );
    assert!(took < Duration::from_secs(2), "took {took:?}");

    // The lock goes with its holder, however it ends: after a kill the next process starts.
    let _ = first.child.kill();
    let _ = first.child.wait();
    let mut again = Running::start(play(&dir, "Ann"));
    again.wait_line("listening on ", Duration::from_secs(60));
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn two_processes_started_together_on_a_fresh_data_dir_one_runs_one_is_refused() {
    let root = scratch("fresh");
    for round in 0..3 {
        let dir = root.join(format!("bob{round}"));
        let mut a = play(&dir, "Bob");
        let mut b = play(&dir, "Bob");
        let (a, b) = (
            a.spawn().expect("mahjong starts"),
            b.spawn().expect("mahjong starts"),
        );
        let mut runs = Vec::new();
        let mut refused = Vec::new();
        for mut child in [a, b] {
            let stderr = child.stderr.take().expect("piped");
            let mut reader = BufReader::new(stderr);
            let mut line = String::new();
            let _ = reader.read_line(&mut line);
            if line.starts_with("listening on ") {
                runs.push(child);
            } else {
                let status = child.wait().expect("waits");
                refused.push((status.code(), line));
            }
        }
        assert_eq!(runs.len(), 1, "round {round}: refused {refused:?}");
        assert_eq!(refused.len(), 1, "round {round}");
        let (code, line) = &refused[0];
        assert_eq!(*code, Some(1), "{line}");
        let holder = runs[0].id();
        assert_eq!(
            line,
            &format!(
                "mahjong: the data dir {} is in use by another process (pid {holder})\n",
                dir.display()
            )
        );
        for mut c in runs {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
    let _ = std::fs::remove_dir_all(&root);
}
