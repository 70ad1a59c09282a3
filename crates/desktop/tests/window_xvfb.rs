//! The real app in a real window (Xvfb), played with the mouse (xdotool) as a person would:
//! at a practice table the player clicks the *left* copy of a pair — twice, the second click
//! 0.1 s after the first — and that tile is discarded. (The tests that pressed keys on the copy
//! the rules offered passed while this click did nothing.)
//!
//! Where the tiles are on screen comes from the app's own layout: the same `view` in the
//! `iced_test` simulator, at the window's size, with a hand of the same tiles; what the player
//! holds and what was played come from the app's log (`mahjong.log`, the table's "your
//! prompt" and "you played" lines).
//!
//! Needs Xvfb and xdotool (CI installs them); skips with a message where they are missing.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use iced_test::{Simulator, selector};
use mahjong_rules::{Card, Dice, HandState, Money, Options, Ruleset, Setup, Tile, Wall};
use shanghai_mahjong::app::{App, Flags, Message};
use shanghai_mahjong::engine::Update;
use shanghai_mahjong::i18n::Lang;
use shanghai_mahjong::screens::table::Message as TableMsg;
use shanghai_mahjong::screens::table_view::hand_tile_id;
use shanghai_mahjong::session::Feed;
use shanghai_mahjong::settings::Settings;

/// A child killed on drop.
struct Kid(Child);

impl Drop for Kid {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn have(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// One real window at a time: the tests share the machine's two cores, and each needs its own
/// display.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// An X server of its own on a free display number.
fn xvfb(w: u32, h: u32) -> Option<(Kid, String)> {
    for n in 0..50 {
        let d = 170 + (std::process::id() % 200) + n;
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
                &format!("{w}x{h}x24"),
                "-nolisten",
                "tcp",
                "-noreset",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .ok()?);
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(10) {
            if Path::new(&format!("/tmp/.X11-unix/X{d}")).exists() {
                return Some((kid, format!(":{d}")));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    None
}

fn xdotool(display: &str, args: &[&str]) -> String {
    let out = Command::new("xdotool")
        .args(args)
        .env("DISPLAY", display)
        .output()
        .expect("xdotool runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The app's main window: visible and of a real size (winit also makes 1 × 1 helper windows
/// under the same process id, which a click must not go to).
fn app_window(display: &str, pid: &str) -> Option<String> {
    xdotool(display, &["search", "--onlyvisible", "--pid", pid])
        .lines()
        .find(|w| window_size_of(display, w).is_some_and(|(w, h)| w > 200.0 && h > 200.0))
        .map(str::to_string)
}

fn window_size_of(display: &str, window: &str) -> Option<(f32, f32)> {
    xdotool(display, &["getwindowgeometry", window])
        .lines()
        .find_map(|l| l.trim().strip_prefix("Geometry: "))
        .and_then(|g| g.split_once('x'))
        .and_then(|(w, h)| Some((w.trim().parse().ok()?, h.trim().parse().ok()?)))
}

/// The window's size as it is now (it may have shrunk to fit the screen).
fn window_size(display: &str, window: &str) -> (f32, f32) {
    window_size_of(display, window).unwrap_or((1280.0, 800.0))
}

/// One "your prompt" line of the log.
#[derive(Debug)]
struct Prompt {
    kind: String,
    shown: Vec<Tile>,
    drawn: bool,
}

fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let at = line.find(&format!("{key}="))? + key.len() + 1;
    let rest = &line[at..];
    // `shown` is the last field with spaces before the next key.
    if key == "shown" {
        let end = rest.find(" drawn=").unwrap_or(rest.len());
        return Some(&rest[..end]);
    }
    Some(
        rest.split_whitespace()
            .next()
            .unwrap_or("")
            .trim_matches('"'),
    )
}

fn prompts(log: &str) -> Vec<Prompt> {
    log.lines()
        .filter(|l| l.contains("your prompt"))
        .filter_map(|l| {
            Some(Prompt {
                kind: field(l, "kind")?.to_string(),
                shown: field(l, "shown")?
                    .split_whitespace()
                    .filter_map(|t| t.parse().ok())
                    .collect(),
                drawn: field(l, "drawn")? == "true",
            })
        })
        .collect()
}

fn played(log: &str) -> Vec<String> {
    log.lines()
        .filter(|l| l.contains("you played"))
        .map(|l| l.to_string())
        .collect()
}

/// Where the app draws hand tile `i` when the hand shows `shown` (the last apart when
/// `drawn`): the same view in the simulator, at the window's size.
fn tile_centre(dir: &Path, size: (f32, f32), shown: &[Tile], drawn: bool, i: usize) -> (f32, f32) {
    Settings {
        name: "Mei".into(),
        lang: Lang::Zh,
        ..Settings::default()
    }
    .save(dir)
    .expect("settings");
    let (mut app, _) = App::new(Flags {
        data_dir: dir.to_path_buf(),
        lang: Some(Lang::Zh),
        practice: Some(Ruleset::Qiaoma),
        seed: Some(1),
        think_ms: (0, 0),
    });
    let setup = Setup {
        options: Options::preset(Ruleset::Qiaoma),
        stake: Money::coins(1),
        dealer: 0,
        dice: Dice::new(3, 4).expect("dice"),
        huangfan: 0,
    };
    let st = HandState::new(setup, &Wall::shuffled([7; 32])).expect("a hand");
    let mut view = st.view(0);
    view.hand = shown
        .iter()
        .enumerate()
        .map(|(p, &tile)| Card { pos: p as u8, tile })
        .collect();
    view.drawn = if drawn {
        view.hand.last().copied()
    } else {
        None
    };
    let _ = app.update(Message::Table(TableMsg::Feed(Feed::Update(Update::View {
        view: Box::new(view),
        now: 0,
    }))));
    let _ = app.update(Message::Resized(iced::Size::new(size.0, size.1)));
    let mut ui = Simulator::with_size(shanghai_mahjong::iced_settings(), app.size, app.view());
    let target = ui.find(selector::id(hand_tile_id(i))).expect("the tile");
    let b = target.visible_bounds().expect("visible");
    // Below the centre: the face, not the lifted space above a tile not picked.
    (b.center_x(), b.y + b.height * 0.7)
}

/// What a real-window test holds: the serial lock, its own X server, and a data dir with a
/// named player in `lang` (`None` when a needed tool is missing: the test is skipped).
struct Screen {
    _one: std::sync::MutexGuard<'static, ()>,
    _x: Kid,
    display: String,
    dir: PathBuf,
}

fn screen(tag: &str, lang: Option<Lang>, tools: &[&str]) -> Option<Screen> {
    if let Some(t) = tools.iter().find(|t| !have(t)) {
        eprintln!("skipped: needs {t} (apt-get install xvfb xdotool)");
        return None;
    }
    let one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some((x, display)) = xvfb(1280, 800) else {
        eprintln!("skipped: Xvfb did not start");
        return None;
    };
    let dir = std::env::temp_dir().join(format!("shanghai-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    if let Some(lang) = lang {
        Settings {
            name: "Mei".into(),
            lang,
            ..Settings::default()
        }
        .save(&dir)
        .expect("settings");
    }
    Some(Screen {
        _one: one,
        _x: x,
        display,
        dir,
    })
}

#[test]
fn the_left_copy_of_a_pair_is_discarded_by_two_mouse_clicks_in_a_real_window() {
    let Some(Screen {
        display,
        dir,
        _one,
        _x,
    }) = screen("window", Some(Lang::Zh), &["Xvfb", "xdotool"])
    else {
        return;
    };
    let app = launch(&display, &dir, &["--practice", "qiaoma", "--lang", "zh"]);
    let pid = app.0.id().to_string();
    let log_path = dir.join("mahjong.log");
    let layout_dir = dir.join("layout");
    let start = Instant::now();
    let mut window = String::new();
    let mut handled = 0;
    let mut clicked: Option<(Tile, usize)> = None;
    let mut pairs_seen = 0;
    while start.elapsed() < Duration::from_secs(240) {
        std::thread::sleep(Duration::from_millis(100));
        if window.is_empty() {
            window = app_window(&display, &pid).unwrap_or_default();
            continue;
        }
        let log = std::fs::read_to_string(&log_path).unwrap_or_default();
        if let Some((tile, at)) = clicked {
            // The next move of the player's after the clicks.
            let moves = played(&log);
            if moves.len() > at {
                let line = &moves[at];
                assert!(
                    line.contains(&format!("action=discard {tile}")),
                    "clicking the left copy of {tile} played: {line}"
                );
                assert!(line.contains("timed_out=false"), "the timer played: {line}");
                // A practice table crosses no network: no network timing marks in its log.
                assert!(
                    !log.contains("mahjong_net::timing"),
                    "a practice log with network timing marks"
                );
                let shot = std::env::temp_dir().join("shanghai-window-pair.png");
                let _ = Command::new("import")
                    .args(["-window", "root"])
                    .arg(&shot)
                    .env("DISPLAY", &display)
                    .status();
                let _ = std::fs::remove_dir_all(&dir);
                eprintln!(
                    "discarded the left copy of {tile} by mouse after {:.1} s ({pairs_seen} pair(s) seen)",
                    start.elapsed().as_secs_f32()
                );
                return;
            }
            continue;
        }
        let ps = prompts(&log);
        if ps.len() <= handled {
            continue;
        }
        handled = ps.len();
        let p = &ps[ps.len() - 1];
        std::thread::sleep(Duration::from_millis(300));
        match p.kind.as_str() {
            "claim" => {
                xdotool(&display, &["windowfocus", "--sync", &window]);
                xdotool(&display, &["key", "--window", &window, "space"]);
            }
            "turn" => {
                // The left copy of a pair: a tile held again further right, in the sorted
                // hand or as the drawn tile apart.
                let n = p.shown.len();
                let pair = (0..n.saturating_sub(1))
                    .find(|&i| !p.shown[i].is_flower() && p.shown[i + 1..].contains(&p.shown[i]));
                let (i, tile) = match pair {
                    Some(i) => (i, p.shown[i]),
                    // No pair yet: discard the last tile by two clicks too.
                    None => (n - 1, p.shown[n - 1]),
                };
                click_tile_twice(&display, &window, &layout_dir, p, i);
                if pair.is_some() {
                    pairs_seen += 1;
                    clicked = Some((tile, played(&log).len()));
                }
            }
            _ => {}
        }
    }
    let log = std::fs::read_to_string(&log_path).unwrap_or_default();
    panic!(
        "no pair discarded by mouse within the time: clicked {clicked:?}, log:\n{}",
        log.lines()
            .filter(|l| l.contains("table"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// Starts the app on `display` with `args`, its log in `dir`.
fn launch(display: &str, dir: &Path, args: &[&str]) -> Kid {
    let err = std::fs::File::create(dir.join(format!("app{}.err", args.join(""))))
        .map(Stdio::from)
        .unwrap_or_else(|_| Stdio::null());
    Kid(Command::new(env!("CARGO_BIN_EXE_shanghai-mahjong"))
        .arg("--data-dir")
        .arg(dir)
        .args(args)
        .env("DISPLAY", display)
        .stdout(Stdio::null())
        .stderr(err)
        .spawn()
        .expect("the app starts"))
}

fn window_of(display: &str, kid: &mut Kid) -> String {
    let pid = kid.0.id();
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(60) {
        if let Ok(Some(status)) = kid.0.try_wait() {
            panic!("the app exited before its window opened: {status}");
        }
        if let Some(w) = app_window(display, &pid.to_string()) {
            return w;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("no window for the app (pid {pid}) within 60 s");
}

/// Discards the last tile of the hand shown at a turn prompt by two clicks.
fn discard_last(display: &str, window: &str, layout: &Path, p: &Prompt) {
    click_tile_twice(display, window, layout, p, p.shown.len() - 1);
}

/// Clicks tile `i` of the hand shown at prompt `p` twice, 0.1 s apart, as a person would.
fn click_tile_twice(display: &str, window: &str, layout: &Path, p: &Prompt, i: usize) {
    let size = window_size(display, window);
    let (x, y) = tile_centre(layout, size, &p.shown, p.drawn, i);
    let (x, y) = (format!("{}", x as i32), format!("{}", y as i32));
    xdotool(display, &["mousemove", "--window", window, &x, &y]);
    xdotool(display, &["click", "1"]);
    std::thread::sleep(Duration::from_millis(100));
    xdotool(display, &["click", "1"]);
}

/// A practice table killed with SIGKILL mid-hand comes back at the same step when the app
/// starts again: the same hand, the same tiles, the same prompt; and it plays on.
#[test]
fn a_practice_table_killed_mid_hand_comes_back_at_the_same_step() {
    let Some(Screen {
        display,
        dir,
        _one,
        _x,
    }) = screen("kill", Some(Lang::En), &["Xvfb", "xdotool"])
    else {
        return;
    };
    let layout = dir.join("layout");
    let log_path = dir.join("mahjong.log");
    let mut app = launch(&display, &dir, &["--practice", "qiaoma", "--lang", "en"]);
    let window = window_of(&display, &mut app);
    let start = Instant::now();
    let mut handled = 0;
    let mut turns = 0;
    let before_kill: Prompt = loop {
        assert!(
            start.elapsed() < Duration::from_secs(180),
            "no third turn within the time"
        );
        std::thread::sleep(Duration::from_millis(150));
        let log = std::fs::read_to_string(&log_path).unwrap_or_default();
        let ps = prompts(&log);
        if ps.len() <= handled {
            continue;
        }
        handled = ps.len();
        let p = ps.into_iter().last().expect("a prompt");
        std::thread::sleep(Duration::from_millis(300));
        match p.kind.as_str() {
            "claim" => {
                xdotool(&display, &["windowfocus", "--sync", &window]);
                xdotool(&display, &["key", "space"]);
            }
            "turn" if turns == 2 => break p,
            "turn" => {
                turns += 1;
                discard_last(&display, &window, &layout, &p);
            }
            _ => {}
        }
    };
    // Killed at the prompt, with no chance to save anything more.
    unsafe_kill(&mut app);
    assert!(
        shanghai_mahjong::session::practice_to_resume(&dir).is_some(),
        "the table is saved unfinished in the store"
    );
    let lines_before = std::fs::read_to_string(&log_path)
        .unwrap_or_default()
        .lines()
        .count();
    let mut again = launch(&display, &dir, &["--lang", "en"]);
    let window = window_of(&display, &mut again);
    let start = Instant::now();
    let after = loop {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the restarted app showed no prompt"
        );
        std::thread::sleep(Duration::from_millis(150));
        let log = std::fs::read_to_string(&log_path).unwrap_or_default();
        let new: String = log
            .lines()
            .skip(lines_before)
            .collect::<Vec<_>>()
            .join("\n");
        if let Some(p) = prompts(&new).into_iter().next() {
            break p;
        }
    };
    assert_eq!(after.kind, before_kill.kind);
    assert_eq!(
        after.shown, before_kill.shown,
        "the same tiles at the same step"
    );
    // And it plays on: the discard is taken.
    discard_last(&display, &window, &layout, &after);
    let start = Instant::now();
    loop {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the resumed table did not take the discard"
        );
        std::thread::sleep(Duration::from_millis(150));
        let log = std::fs::read_to_string(&log_path).unwrap_or_default();
        let new: Vec<String> = played(
            &log.lines()
                .skip(lines_before)
                .collect::<Vec<_>>()
                .join("\n"),
        );
        if let Some(line) = new.first() {
            assert!(line.contains("timed_out=false"), "{line}");
            assert!(
                line.contains(&format!("discard {}", after.shown[after.shown.len() - 1])),
                "{line}"
            );
            break;
        }
    }
    drop(again);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The new log lines since `from` lines.
fn log_since(path: &Path, from: usize) -> String {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .skip(from)
        .collect::<Vec<_>>()
        .join("\n")
}

/// A crash costs no turn (issue 28): the app is killed (SIGKILL) in the second hand, after
/// the first hand's settlement was closed, and started again three seconds later. It opens on
/// the live hand at once (not the first hand's settlement over it), the player's turn comes
/// with its countdown at the full turn time, the player reads the table for four seconds and
/// then discards by mouse, and the table takes that discard: nothing was played for the
/// player because of the restart.
#[test]
fn a_practice_table_killed_in_its_second_hand_opens_on_the_live_hand_with_the_full_time() {
    let Some(Screen {
        display,
        dir,
        _one,
        _x,
    }) = screen("kill2", Some(Lang::Zh), &["Xvfb", "xdotool"])
    else {
        return;
    };
    let layout = dir.join("layout");
    let log_path = dir.join("mahjong.log");
    // The first hand plays itself (the strong bot in the player's seat, *Next hand* pressed
    // at its settlement as a player would); the kill lands at the second hand's first prompt.
    let mut app = launch(
        &display,
        &dir,
        &["--practice", "qiaoma", "--autoplay", "--hands", "9"],
    );
    let _ = window_of(&display, &mut app);
    let start = Instant::now();
    loop {
        assert!(
            start.elapsed() < Duration::from_secs(180),
            "no prompt in the second hand"
        );
        std::thread::sleep(Duration::from_millis(50));
        let log = std::fs::read_to_string(&log_path).unwrap_or_default();
        if log
            .lines()
            .any(|l| l.contains("your prompt") && field(l, "hand").is_some_and(|h| h != "1"))
        {
            break;
        }
    }
    unsafe_kill(&mut app);
    assert!(
        shanghai_mahjong::session::practice_to_resume(&dir).is_some(),
        "the table is saved unfinished in the store"
    );
    std::thread::sleep(Duration::from_secs(3));
    let lines_before = std::fs::read_to_string(&log_path)
        .unwrap_or_default()
        .lines()
        .count();
    let mut again = launch(&display, &dir, &[]);
    let window = window_of(&display, &mut again);
    let start = Instant::now();
    let mut handled = 0;
    let (turn, line) = loop {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "the restarted app showed no turn: {}",
            log_since(&log_path, lines_before)
        );
        std::thread::sleep(Duration::from_millis(150));
        let new = log_since(&log_path, lines_before);
        let lines: Vec<&str> = new.lines().filter(|l| l.contains("your prompt")).collect();
        if lines.len() <= handled {
            continue;
        }
        handled = lines.len();
        let line = lines[handled - 1].to_string();
        let p = prompts(&line).pop().expect("a prompt");
        if p.kind == "turn" {
            break (p, line);
        }
        // A claim prompt: the player passes (the space bar).
        xdotool(&display, &["windowfocus", "--sync", &window]);
        xdotool(&display, &["key", "space"]);
    };
    assert!(
        field(&line, "hand").is_some_and(|h| h != "1"),
        "not the live hand: {line}"
    );
    let full = Options::preset(Ruleset::Qiaoma).discard_seconds as u64;
    let left: u64 = field(&line, "seconds_left")
        .and_then(|s| s.parse().ok())
        .expect("seconds_left in the prompt line");
    assert!(
        left + 2 >= full,
        "the countdown after the restart: {left} s of {full}"
    );
    // A person reads the table before playing.
    std::thread::sleep(Duration::from_secs(4));
    let shot = std::env::temp_dir().join("shanghai-window-restarted.png");
    let _ = Command::new("import")
        .args(["-window", "root"])
        .arg(&shot)
        .env("DISPLAY", &display)
        .status();
    let passes = played(&log_since(&log_path, lines_before)).len();
    discard_last(&display, &window, &layout, &turn);
    let start = Instant::now();
    let played_line = loop {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the restarted table did not take the discard: {}",
            log_since(&log_path, lines_before)
        );
        std::thread::sleep(Duration::from_millis(150));
        if let Some(l) = played(&log_since(&log_path, lines_before))
            .into_iter()
            .nth(passes)
        {
            break l;
        }
    };
    assert!(played_line.contains("timed_out=false"), "{played_line}");
    assert!(
        played_line.contains(&format!("discard {}", turn.shown[turn.shown.len() - 1])),
        "{played_line}"
    );
    eprintln!(
        "restarted on the live hand with {left} s of {full}; screenshot {}",
        shot.display()
    );
    drop(again);
    let _ = std::fs::remove_dir_all(&dir);
}

/// SIGKILL, as `kill -9` does: no destructor, no flush of the app's own.
fn unsafe_kill(kid: &mut Kid) {
    let _ = Command::new("kill")
        .args(["-9", &kid.0.id().to_string()])
        .status();
    let _ = kid.0.wait();
}

/// `--practice qiaoma --autoplay --hands 2`: the strong computer player plays the player's seat,
/// each hand is printed on stderr, and the app exits 0 once the second four-signed settlement
/// is booked in the ledger of its data dir (the smoke test a packaged build runs).
#[test]
fn practice_autoplay_plays_the_hands_books_them_and_exits_0() {
    let Some(Screen {
        display,
        dir,
        _one,
        _x,
    }) = screen("auto", None, &["Xvfb"])
    else {
        return;
    };
    let start = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_shanghai-mahjong"))
        .arg("--data-dir")
        .arg(&dir)
        .args(["--practice", "qiaoma", "--autoplay", "--hands", "2"])
        .args(["--name", "Ann"])
        .env("DISPLAY", &display)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the app starts");
    // Bounded: a session that does not end is a failure, not a hung test.
    while child.try_wait().ok().flatten().is_none() {
        if start.elapsed() > Duration::from_secs(240) {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    let out = child.wait_with_output().expect("it ends");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "exit {:?}: {err}", out.status);
    let hands: Vec<&str> = err.lines().filter(|l| l.starts_with("hand ")).collect();
    assert_eq!(hands.len(), 2, "{err}");
    assert!(hands.iter().all(|l| l.ends_with("4 signatures")), "{err}");
    let history = shanghai_mahjong::records::load(&dir).expect("the ledger");
    assert_eq!(history.hand_count(), 2, "both hands booked");
    // Under the name given on the command line, not a stand-in.
    assert!(
        history.players.iter().any(|p| p.me && p.name == "Ann"),
        "{:?}",
        history.players.iter().map(|p| &p.name).collect::<Vec<_>>()
    );
    eprintln!(
        "two practice hands played and booked in {:.1} s",
        start.elapsed().as_secs_f32()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A second app on a data dir in use (here the test holds the lock): a small window says so
/// in the player's language (the settings' 中文 here), the line on standard error stays, and
/// the window's button, clicked with the mouse, closes it: exit 1, nothing else started.
#[test]
fn a_second_app_on_a_data_dir_in_use_says_so_in_a_window_and_closes_by_its_button() {
    use shanghai_mahjong::in_use::{CLOSE_ID, InUse, SIZE};
    let Some(Screen {
        display,
        dir,
        _one,
        _x,
    }) = screen("in-use", Some(Lang::Zh), &["Xvfb", "xdotool"])
    else {
        return;
    };
    let held = mahjong_store::DirLock::acquire(&dir).expect("the test takes the lock");
    let mut app = launch(&display, &dir, &[]);
    let pid = app.0.id().to_string();
    let start = Instant::now();
    let window = loop {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "no window for the second app"
        );
        if let Ok(Some(status)) = app.0.try_wait() {
            panic!("the second app exited without its window: {status}");
        }
        if let Some(w) = app_window(&display, &pid) {
            break w;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(
        xdotool(&display, &["getwindowname", &window]).trim(),
        "上海麻将"
    );
    // What it says, and where its button is: the same view at the window's size.
    let said = InUse::new(Lang::Zh, &dir, Some(std::process::id()));
    assert!(said.said.contains("正由另一个上海麻将"), "{}", said.said);
    let size = window_size_of(&display, &window).unwrap_or(SIZE);
    let mut ui = Simulator::with_size(
        shanghai_mahjong::iced_settings(),
        iced::Size::new(size.0, size.1),
        said.view(),
    );
    assert!(ui.find(said.said.as_str()).is_ok(), "the sentence is shown");
    let b = ui
        .find(selector::id(CLOSE_ID))
        .expect("the button")
        .visible_bounds()
        .expect("visible");
    let shot = std::env::temp_dir().join("shanghai-window-in-use.png");
    let _ = Command::new("import")
        .args(["-window", "root"])
        .arg(&shot)
        .env("DISPLAY", &display)
        .status();
    let (x, y) = (
        format!("{}", b.center_x() as i32),
        format!("{}", b.center_y() as i32),
    );
    xdotool(&display, &["mousemove", "--window", &window, &x, &y]);
    xdotool(&display, &["click", "1"]);
    let start = Instant::now();
    let status = loop {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the button did not close the window"
        );
        if let Ok(Some(status)) = app.0.try_wait() {
            break status;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(status.code(), Some(1));
    let err = std::fs::read_to_string(dir.join("app.err")).unwrap_or_default();
    assert!(err.contains("is in use by another process"), "{err}");
    drop(held);
    let _ = std::fs::remove_dir_all(&dir);
}
