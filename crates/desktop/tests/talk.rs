//! Table talk through the app's real `update` and `view` in the `iced_test` simulator, in 中文
//! and English: the app sits at a LAN table (its link to the LAN thread is a pair whose far
//! ends this test holds, the table resumed from a signed roster), a quick phrase clicked goes
//! out as `Request::Say`, a line typed goes out with Send or Enter, the lines said at the table
//! (`NetEvent::Chat`) and who watches (`NetEvent::Watchers`) are shown, a line not sent says
//! why in the player's language, and a sender muted by a click on their name disappears, stays
//! muted in a restarted app on the same data dir (`muted.json`), and comes back when unmuted.
//! A practice table has nobody to talk to: no panel.
//!
//! Then the real app in a real window (Xvfb) at a real LAN table: the app and three `mahjong
//! play --bot` peers, each in its own network namespace (mDNS), and a `mahjong watch` watcher
//! in a fifth. A person clicks quick phrases and types a line with xdotool, where the app's
//! own layout (the same view in the simulator) puts them; the terminals print the lines, the
//! watcher's line is shown, a click on the watcher's name mutes her (`muted.json`). In both
//! languages at 1280 × 800 and 1024 × 600; the screenshots are left in the temporary dir
//! (docs/talk-*.png come from them). Needs root, iproute2, Xvfb, xdotool, ImageMagick's
//! `import` and the `mahjong` binary beside the tests; skips with a message otherwise.

use std::path::PathBuf;

use ed25519_dalek::{SigningKey, VerifyingKey};
use iced::keyboard::{Key, key::Named};
use iced_test::{Error, Simulator, selector};
use mahjong_net::{Advert, NetEvent, Roster, SeatInfo, TableState};
use mahjong_rules::{Money, Ruleset};
use shanghai_mahjong::app::{App, Flags, Message, Screen};
use shanghai_mahjong::i18n::{Lang, T, Text};
use shanghai_mahjong::lan::{Feed, Link, Request};
use shanghai_mahjong::screens::talk::{self, FIELD};
use shanghai_mahjong::settings::Settings;
use tokio::sync::mpsc::UnboundedReceiver;

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("shanghai-talk-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn key(seed: u8) -> SigningKey {
    SigningKey::from_bytes(&[seed; 32])
}

/// Mei (this app), Bo, Cy and Di at one table hosted by Mei.
fn roster() -> Roster {
    roster_of(1)
}

/// A table of Mei or, for `first` other than 1, of Ann (seed `first`), with Bo, Cy and Di.
fn roster_of(first: u8) -> Roster {
    let seat = |k: &SigningKey, name: &str| SeatInfo {
        key: k.verifying_key(),
        name: name.into(),
        peer: k.verifying_key(),
        bot: false,
    };
    let advert = Advert {
        table: [9; 32],
        host: key(first).verifying_key(),
        nonce: [3; 32],
        name: "Mei's table".into(),
        preset: Ruleset::Qiaoma,
        options_hash: [0; 32],
        stake: Money::coins(1),
        hands: 1,
        bots: 0,
        seats: [
            Some(seat(&key(first), if first == 1 { "Mei" } else { "Ann" })),
            Some(seat(&key(2), "Bo")),
            Some(seat(&key(3), "Cy")),
            Some(seat(&key(4), "Di")),
        ],
        state: TableState::Started,
        revision: 1,
        chosen: true,
    };
    Roster::sign(advert, 0, &key(first))
}

struct Harness {
    app: App,
    requests: UnboundedReceiver<Request>,
    dir: PathBuf,
}

impl Harness {
    /// Mei's app in `lang` on `dir`, at the LAN table of [`roster`].
    fn at_table(dir: PathBuf, lang: Lang) -> Harness {
        Settings {
            name: "Mei".into(),
            lang,
            ..Settings::default()
        }
        .save(&dir)
        .expect("settings");
        let (mut app, _) = App::new(Flags {
            data_dir: dir.clone(),
            lang: None,
            practice: None,
            seed: Some(1),
            think_ms: (0, 0),
        });
        app.size = iced::Size::new(1280.0, 800.0);
        let (link, requests, _commands) = Link::pair(key(1).verifying_key());
        let _ = app.update(Message::Lan(Feed::Ready(link)));
        let _ = app.update(Message::Lan(Feed::Net(NetEvent::Resumed {
            roster: Box::new(roster()),
            hands: 0,
        })));
        assert!(matches!(app.screen, Screen::Table(ref t) if t.is_lan()));
        Harness { app, requests, dir }
    }

    /// Mei's app in `lang` on `dir`, watching Ann's table from the lobby.
    fn watching(dir: PathBuf, lang: Lang) -> Harness {
        let mut h = Harness::at_table(dir, lang);
        let _ = h.app.update(Message::Lan(Feed::Net(NetEvent::Watching {
            roster: Box::new(roster_of(6)),
        })));
        assert!(h.app.watching.is_some(), "watching");
        h
    }

    fn ui(&self) -> Simulator<'_, Message> {
        Simulator::with_size(
            shanghai_mahjong::iced_settings(),
            self.app.size,
            self.app.view(),
        )
    }

    fn run(&mut self, f: impl FnOnce(&mut Simulator<'_, Message>) -> Result<(), Error>) {
        let msgs: Vec<Message> = {
            let mut ui = self.ui();
            f(&mut ui).expect("found on screen");
            ui.into_messages().collect()
        };
        for m in msgs {
            let _ = self.app.update(m);
        }
    }

    fn click(&mut self, text: &str) {
        let text = text.to_string();
        self.run(move |ui| ui.click(text.as_str()).map(|_| ()));
    }

    fn find(&self, text: &str) -> bool {
        self.ui().find(text).is_ok()
    }

    fn said(&mut self, name: &str, from: VerifyingKey, text: &str, watcher: bool) {
        let _ = self.app.update(Message::Lan(Feed::Net(NetEvent::Chat {
            name: name.into(),
            from,
            text: text.into(),
            watcher,
        })));
    }

    /// The lines asked of the LAN thread since the last call.
    fn says(&mut self) -> Vec<String> {
        let mut out = Vec::new();
        while let Ok(r) = self.requests.try_recv() {
            if let Request::Say(line) = r {
                out.push(line);
            }
        }
        out
    }
}

fn talk_at_a_lan_table(lang: Lang) {
    let dir = temp_dir(&format!("{lang:?}"));
    let mut h = Harness::at_table(dir.clone(), lang);
    let bo = key(2).verifying_key();
    let me = key(1).verifying_key();
    assert!(h.find(lang.t(T::TalkTitle)), "the panel at a LAN table");
    assert!(h.find(lang.t(T::TalkNobody)));

    // A quick phrase clicked is said at once; an emote goes out as its emoji.
    h.click(lang.t(T::TalkHurry));
    h.click(lang.t(T::TalkThumbsUp));
    assert_eq!(h.says(), [lang.t(T::TalkHurry), talk::THUMBS_UP]);

    // The player's own line comes back once sent: shown, the emote as a word.
    h.said("Mei", me, lang.t(T::TalkHurry), false);
    h.said("Mei", me, talk::THUMBS_UP, false);
    assert!(!h.find(lang.t(T::TalkNobody)));
    assert!(h.find("Mei"));
    assert!(
        !h.find(talk::THUMBS_UP),
        "no emoji drawn: the font has none"
    );
    // The player's own name is no mute button.
    let msgs: Vec<Message> = {
        let mut ui = h.ui();
        let _ = ui.click("Mei");
        ui.into_messages().collect()
    };
    assert!(
        !msgs.iter().any(|m| matches!(m, Message::Talk(_))),
        "{msgs:?}"
    );

    // A line typed: Send, then Enter in the field.
    h.run(|ui| {
        ui.click(selector::id(FIELD))?;
        ui.typewrite("gg all");
        Ok(())
    });
    h.click(lang.t(T::TalkSend));
    h.run(|ui| {
        ui.click(selector::id(FIELD))?;
        ui.typewrite("one more line");
        ui.tap_key(Key::Named(Named::Enter));
        Ok(())
    });
    assert_eq!(h.says(), ["gg all", "one more line"]);
    // A line too long is not sent: said at once, and kept in the field to shorten.
    let long = "好".repeat(talk::MAX_CHARS + 1);
    let _ = h
        .app
        .update(Message::Talk(talk::Message::Draft(long.clone())));
    h.click(lang.t(T::TalkSend));
    assert!(h.says().is_empty());
    assert!(h.find(&lang.f(T::TalkTooLong, &[&talk::MAX_CHARS])));
    assert_eq!(h.app.talk.as_ref().map(|t| t.draft.clone()), Some(long));
    let _ = h
        .app
        .update(Message::Talk(talk::Message::Draft(String::new())));

    // Friends' lines and a watcher's, and who watches.
    let bo_line = "这把要赢了 / this one is mine";
    h.said("Bo", bo, bo_line, false);
    h.said("Dan", key(5).verifying_key(), "加油", true);
    let _ = h.app.update(Message::Lan(Feed::Net(NetEvent::Watchers {
        names: vec!["Dan".into(), "Eve".into()],
        chat: true,
    })));
    assert!(h.find(bo_line));
    assert!(h.find(&format!("Dan{}", lang.t(T::TalkWatcherTag))));
    let watching = match lang {
        Lang::Zh => "观战：Dan、Eve",
        Lang::En => "Watching: Dan and Eve",
    };
    assert!(h.find(watching), "{watching}");

    // A line not sent says why, in the player's language.
    let _ = h.app.update(Message::Lan(Feed::Unsaid(
        "at most 5 lines in 10 seconds".into(),
    )));
    let why = match lang {
        Lang::Zh => "没有发出去：10 秒内最多说 5 句",
        Lang::En => "Not sent: at most 5 lines in 10 seconds",
    };
    assert!(h.find(why), "{why}");
    // The next line sent clears it.
    h.said("Mei", me, "ok", false);
    assert!(!h.find(why));

    // Bo muted by a click on his name: his lines go, and stay gone.
    h.click("Bo");
    assert!(!h.find(bo_line), "a muted sender's lines disappear");
    h.said("Bo", bo, "still talking", false);
    assert!(!h.find("still talking"));
    let chip = lang.f(T::TalkMutedChip, &[&"Bo"]);
    assert!(h.find(&chip), "{chip}");
    assert!(
        mahjong_store::Muted::load(&h.dir).is_muted(&bo),
        "remembered in muted.json"
    );

    // A restarted app on the same data dir still mutes Bo, whatever name he takes.
    drop(h);
    let mut h = Harness::at_table(dir.clone(), lang);
    h.said("Bobby", bo, "new name, same key", false);
    assert!(!h.find("new name, same key"));
    // Unmuted from his chip: his lines show again.
    let chip = lang.f(T::TalkMutedChip, &[&"Bobby"]);
    h.click(&chip);
    h.said("Bobby", bo, "back again", false);
    assert!(h.find("back again"));
    assert!(!mahjong_store::Muted::load(&dir).is_muted(&bo));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn talk_at_a_lan_table_in_chinese() {
    talk_at_a_lan_table(Lang::Zh);
}

#[test]
fn talk_at_a_lan_table_in_english() {
    talk_at_a_lan_table(Lang::En);
}

/// Watching a friends' table from the lobby: the watcher talks too; the players' lines are
/// players' lines, a watcher's is marked; at a table whose host lets no watcher talk, the
/// watcher reads and is told why there is nothing to send.
#[test]
fn a_watcher_talks_at_the_table_it_watches_unless_the_host_says_no() {
    for lang in [Lang::Zh, Lang::En] {
        let dir = temp_dir(&format!("watch-{lang:?}"));
        let mut h = Harness::watching(dir.clone(), lang);
        assert!(h.find(lang.t(T::TalkTitle)));
        h.click(lang.t(T::TalkWellPlayed));
        assert_eq!(h.says(), [lang.t(T::TalkWellPlayed)]);
        // Bo sits: the app shows him as a player even were a line of his marked a watcher's.
        h.said("Bo", key(2).verifying_key(), "谢谢 thanks", true);
        h.said("Eve", key(7).verifying_key(), "加油 go", true);
        assert!(h.find("Bo"));
        assert!(!h.find(&format!("Bo{}", lang.t(T::TalkWatcherTag))));
        assert!(h.find(&format!("Eve{}", lang.t(T::TalkWatcherTag))));
        let _ = h.app.update(Message::Lan(Feed::Net(NetEvent::Watchers {
            names: vec!["Mei".into(), "Eve".into()],
            chat: false,
        })));
        let quiet = match lang {
            Lang::Zh => "观战：Mei、Eve（本桌观战者不能发言）",
            Lang::En => "Watching: Mei and Eve (watchers may not talk at this table)",
        };
        assert!(h.find(quiet), "{quiet}");
        assert!(!h.find(lang.t(T::TalkHurry)), "nothing to send");
        assert!(h.find("加油 go"), "the lines still read");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn a_small_window_keeps_the_panel_and_every_quick_phrase() {
    for lang in [Lang::Zh, Lang::En] {
        let dir = temp_dir(&format!("small-{lang:?}"));
        let mut h = Harness::at_table(dir.clone(), lang);
        h.app.size = iced::Size::new(1024.0, 560.0);
        for (i, (said, k)) in talk::phrases(lang).into_iter().enumerate() {
            h.click(lang.t(k));
            assert_eq!(h.says(), [said], "phrase {i}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn a_practice_table_has_no_talk() {
    let dir = temp_dir("practice");
    Settings {
        name: "Mei".into(),
        ..Settings::default()
    }
    .save(&dir)
    .expect("settings");
    let (app, _) = App::new(Flags {
        data_dir: dir.clone(),
        lang: Some(Lang::En),
        practice: Some(Ruleset::Qiaoma),
        seed: Some(1),
        think_ms: (0, 0),
    });
    assert!(matches!(app.screen, Screen::Table(_)));
    let mut ui = Simulator::with_size(shanghai_mahjong::iced_settings(), app.size, app.view());
    assert!(ui.find(Lang::En.t(T::TalkTitle)).is_err());
    assert!(ui.find(Lang::En.t(T::TalkHurry)).is_err());
    drop(ui);
    let _ = std::fs::remove_dir_all(&dir);
}

// ---- The real app in a real window, at a LAN table of `mahjong play --bot` peers ----

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A child killed on drop.
struct Kid(Child);

impl Drop for Kid {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// One table of processes at a time: the machine has two cores.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn have(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The terminal program beside this test's binary (`cargo build -p mahjong-cli` builds it).
fn mahjong_bin() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let bin = exe.parent()?.parent()?.join("mahjong");
    bin.exists().then_some(bin)
}

/// An X server of its own on a free display number.
fn xvfb(w: u32, h: u32) -> Option<(Kid, String)> {
    for n in 0..50 {
        let d = 380 + (std::process::id() % 200) + n;
        if Path::new(&format!("/tmp/.X11-unix/X{d}")).exists()
            || Path::new(&format!("/tmp/.X{d}-lock")).exists()
        {
            continue;
        }
        let kid = Kid(Command::new("Xvfb")
            .arg(format!(":{d}"))
            .args(["-screen", "0", &format!("{w}x{h}x24"), "-nolisten", "tcp"])
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

fn window_size_of(display: &str, window: &str) -> Option<(f32, f32)> {
    xdotool(display, &["getwindowgeometry", window])
        .lines()
        .find_map(|l| l.trim().strip_prefix("Geometry: "))
        .and_then(|g| g.split_once('x'))
        .and_then(|(w, h)| Some((w.trim().parse().ok()?, h.trim().parse().ok()?)))
}

/// The app's main window (winit also makes 1 × 1 helper windows under the same process id).
fn app_window(display: &str, pid: u32) -> Option<String> {
    xdotool(
        display,
        &["search", "--onlyvisible", "--pid", &pid.to_string()],
    )
    .lines()
    .find(|w| window_size_of(display, w).is_some_and(|(w, h)| w > 200.0 && h > 200.0))
    .map(str::to_string)
}

/// Starts `cmd` in namespace `ns`; its standard output and error lines go to `lines` tagged
/// with `who`; its standard input is the child's (`Kid.0.stdin`).
fn spawn_in(
    ns: &str,
    cmd: &[&std::ffi::OsStr],
    display: &str,
    who: &'static str,
    lines: &mpsc::Sender<(&'static str, String)>,
) -> Kid {
    let mut child = Command::new("ip")
        .args(["netns", "exec", ns])
        .args(cmd)
        .env("DISPLAY", display)
        .env("RUST_LOG", "info")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts");
    let streams: [Box<dyn std::io::Read + Send>; 2] = [
        Box::new(child.stdout.take().expect("stdout")),
        Box::new(child.stderr.take().expect("stderr")),
    ];
    for stream in streams {
        let tx = lines.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stream).lines().map_while(Result::ok) {
                if tx.send((who, line)).is_err() {
                    return;
                }
            }
        });
    }
    Kid(child)
}

/// Waits for a line that `done` accepts (printing every line), or panics after `secs`.
fn wait_line(
    rx: &mpsc::Receiver<(&'static str, String)>,
    secs: u64,
    what: &str,
    mut done: impl FnMut(&str, &str) -> bool,
) {
    let end = Instant::now() + Duration::from_secs(secs);
    loop {
        let left = end.saturating_duration_since(Instant::now());
        assert!(!left.is_zero(), "timed out waiting for {what}");
        if let Ok((who, line)) = rx.recv_timeout(left) {
            println!("{who}: {line}");
            if done(who, &line) {
                return;
            }
        }
    }
}

/// Where the app draws the widget holding `text` (a quick phrase, a name) or of id `id` at a
/// LAN table in a window of `size`, with `lines` said and `watchers` watching: the same view
/// in the simulator.
fn centre_of(
    lang: Lang,
    size: (f32, f32),
    lines: &[(&str, bool, &str)],
    watchers: &[&str],
    text: Option<&str>,
    id: Option<&'static str>,
) -> (i32, i32) {
    let dir = temp_dir(&format!("layout-{lang:?}"));
    let mut h = Harness::at_table(dir.clone(), lang);
    let _ = h
        .app
        .update(Message::Resized(iced::Size::new(size.0, size.1)));
    for (i, (name, watcher, said)) in lines.iter().enumerate() {
        h.said(name, key(20 + i as u8).verifying_key(), said, *watcher);
    }
    let _ = h.app.update(Message::Lan(Feed::Net(NetEvent::Watchers {
        names: watchers.iter().map(|w| w.to_string()).collect(),
        chat: true,
    })));
    let mut ui = h.ui();
    let b = match (text, id) {
        (Some(t), _) => ui.find(t).expect("on screen").visible_bounds(),
        (None, Some(i)) => ui
            .find(selector::id(i))
            .expect("on screen")
            .visible_bounds(),
        _ => None,
    }
    .expect("visible");
    drop(ui);
    let _ = std::fs::remove_dir_all(&dir);
    (b.center_x() as i32, b.center_y() as i32)
}

/// The app (`--autoplay`: it opens a table, the strong bot plays its seat) and three
/// `mahjong play --bot` peers, each in its own network namespace, find each other by mDNS, and
/// Eve watches with `mahjong watch` from a fifth. At the table a person clicks two quick
/// phrases and types a line with Enter in the app's window; the peers and the watcher print
/// the lines (`Mei: 快点啦！`). Eve says a line; the players print it, the app shows it. The
/// screen is kept at `shot` (in the temporary dir).
fn talk_in_a_real_window(lang: Lang, w: u32, h: u32, shot: &str) {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    for tool in ["Xvfb", "xdotool", "import"] {
        if !have(tool) {
            println!("{tool} is not installed: skipped");
            return;
        }
    }
    let Some(mahjong) = mahjong_bin() else {
        println!("no mahjong binary beside the tests (cargo build -p mahjong-cli): skipped");
        return;
    };
    let Some(lan) = mahjong_testlan::Lan::new(5) else {
        println!("network namespaces cannot be made here (needs root and iproute2): skipped");
        return;
    };
    let Some((_x, display)) = xvfb(w, h) else {
        println!("no X server could start: skipped");
        return;
    };
    let dir = temp_dir(&format!("window-{lang:?}-{w}"));
    let app_dir = dir.join("app");
    std::fs::create_dir_all(&app_dir).expect("dir");
    Settings {
        name: "Mei".into(),
        lang,
        window: Some((w, h)),
        ..Settings::default()
    }
    .save(&app_dir)
    .expect("settings");
    let (tx, rx) = mpsc::channel();
    let app_exe = std::ffi::OsString::from(env!("CARGO_BIN_EXE_shanghai-mahjong"));
    let app = spawn_in(
        &lan.hosts[0],
        &[
            &app_exe,
            "--data-dir".as_ref(),
            app_dir.as_os_str(),
            "--autoplay".as_ref(),
            "--hands".as_ref(),
            "64".as_ref(),
        ],
        &display,
        "app",
        &tx,
    );
    wait_line(&rx, 60, "the app's table", |who, l| {
        who == "app" && l == "lobby: opened a table"
    });
    let mut peers = Vec::new();
    for (i, (name, who)) in [("Bo", "Bo"), ("Cy", "Cy"), ("Di", "Di")]
        .into_iter()
        .enumerate()
    {
        let data = dir.join(name);
        peers.push(spawn_in(
            &lan.hosts[i + 1],
            &[
                mahjong.as_os_str(),
                "play".as_ref(),
                "--bot".as_ref(),
                "--name".as_ref(),
                name.as_ref(),
                "--hands".as_ref(),
                "64".as_ref(),
                "--data-dir".as_ref(),
                data.as_os_str(),
            ],
            &display,
            who,
            &tx,
        ));
    }
    wait_line(&rx, 120, "the table to fill", |who, l| {
        who == "app" && l.starts_with("table ") && l.ends_with(" full")
    });
    // Eve watches from the fifth namespace; the players are told.
    let eve_dir = dir.join("Eve");
    let mut eve = spawn_in(
        &lan.hosts[4],
        &[
            mahjong.as_os_str(),
            "watch".as_ref(),
            "--name".as_ref(),
            "Eve".as_ref(),
            "--data-dir".as_ref(),
            eve_dir.as_os_str(),
        ],
        &display,
        "Eve",
        &tx,
    );
    wait_line(&rx, 60, "Eve watching", |who, l| {
        who != "app" && who != "Eve" && l.trim() == "watching now: Eve"
    });
    let start = Instant::now();
    let window = loop {
        assert!(start.elapsed() < Duration::from_secs(30), "no window");
        if let Some(win) = app_window(&display, app.0.id()) {
            break win;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    // The table drawn a moment.
    std::thread::sleep(Duration::from_secs(2));
    let size = window_size_of(&display, &window).expect("the window's size");
    println!("window {window}: {size:?}");
    let click = |(x, y): (i32, i32)| {
        xdotool(
            &display,
            &[
                "mousemove",
                "--window",
                &window,
                &x.to_string(),
                &y.to_string(),
            ],
        );
        xdotool(&display, &["click", "1"]);
    };
    let hurry = lang.t(T::TalkHurry);
    let at = |lines: &[(&str, bool, &str)], text: Option<&str>, id: Option<&'static str>| {
        centre_of(lang, size, lines, &["Eve"], text, id)
    };
    click(at(&[], Some(hurry), None));
    let hurried = format!("Mei: {hurry}");
    let mut heard: Vec<String> = Vec::new();
    wait_line(&rx, 30, &hurried, |who, l| {
        // The three players and the watcher each print `Mei: 快点啦！` (a seated player's line,
        // not a watcher's).
        let line = l.trim();
        let said = line == hurried;
        if who != "app" && said && !heard.iter().any(|h| h == who) {
            heard.push(who.to_string());
        }
        heard.len() == 4
    });
    click(at(
        &[("Mei", false, hurry)],
        Some(lang.t(T::TalkThumbsUp)),
        None,
    ));
    wait_line(&rx, 30, "Mei: 👍", |who, l| {
        who != "app" && l.trim() == "Mei: 👍"
    });
    // A line typed in the field, sent with Enter (the table's own keys stay untouched).
    // No window manager under Xvfb: the keyboard goes where the focus is put.
    xdotool(&display, &["windowfocus", "--sync", &window]);
    let said = [("Mei", false, hurry), ("Mei", false, talk::THUMBS_UP)];
    click(at(&said, None, Some(FIELD)));
    xdotool(&display, &["type", "--delay", "40", "gg everyone"]);
    xdotool(&display, &["key", "Return"]);
    wait_line(&rx, 30, "Mei: gg everyone", |who, l| {
        who != "app" && l.trim() == "Mei: gg everyone"
    });
    // The field let go of the keyboard once the line was sent: what is typed now is not
    // talk (the table's keys; under --autoplay the bot plays the seat anyway).
    xdotool(&display, &["type", "--delay", "40", "zz"]);
    xdotool(&display, &["key", "Return"]);
    let quiet = Instant::now() + Duration::from_secs(3);
    while let Ok((who, l)) = rx.recv_timeout(quiet.saturating_duration_since(Instant::now())) {
        assert!(
            l.trim() != "Mei: zz",
            "{who}: typed after the field let go: {l}"
        );
    }
    // Eve says a line from the terminal: the players print it, the app shows it.
    let eve_says = lang.t(T::TalkNiceHand);
    {
        use std::io::Write;
        let stdin = eve.0.stdin.as_mut().expect("stdin");
        writeln!(stdin, "{eve_says}").expect("Eve types");
        stdin.flush().expect("flushed");
    }
    let eve_line = format!("Eve (watching): {eve_says}");
    wait_line(&rx, 30, &eve_line, |who, l| {
        who != "app" && who != "Eve" && l.trim() == eve_line
    });
    // The app shows the lines once they come back.
    std::thread::sleep(Duration::from_millis(1500));
    let out = std::env::temp_dir().join(shot);
    let taken = Command::new("import")
        .args(["-window", "root"])
        .arg(&out)
        .env("DISPLAY", &display)
        .status()
        .is_ok_and(|s| s.success());
    println!("screenshot {}: {taken}", out.display());
    // Eve muted by a click on her name: remembered in the app's data dir, by her key.
    let said = [
        ("Mei", false, hurry),
        ("Mei", false, talk::THUMBS_UP),
        ("Mei", false, "gg everyone"),
        ("Eve", true, eve_says),
    ];
    let eve_name = format!("Eve{}", lang.t(T::TalkWatcherTag));
    click(at(&said, Some(&eve_name), None));
    let muted = app_dir.join(mahjong_store::MUTED_FILE);
    let start = Instant::now();
    while !muted.exists() && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_millis(500));
    let muted_shot = std::env::temp_dir().join(format!("muted-{shot}"));
    let _ = Command::new("import")
        .args(["-window", "root"])
        .arg(&muted_shot)
        .env("DISPLAY", &display)
        .status();
    println!("screenshot {}", muted_shot.display());
    drop(eve);
    let eve_key = mahjong_store::Identity::load_or_create(&eve_dir, None)
        .expect("Eve's identity")
        .key
        .verifying_key();
    assert!(
        mahjong_store::Muted::load(&app_dir).is_muted(&eve_key),
        "Eve muted from the app's window, remembered"
    );
    drop(peers);
    drop(app);
    let _ = std::fs::remove_dir_all(&dir);
}

// The same real-process scenario in each language, once each: 中文 in a large window, English in
// a small one (the small 中文 window's layout is the simulator's
// `a_small_window_keeps_the_panel_and_every_quick_phrase`). The table plays 64 hands so that it
// is still being played when the watcher comes, however slowly a loaded machine finds it.
#[test]
fn a_quick_phrase_clicked_in_a_real_window_reaches_the_terminal_peers_in_chinese() {
    talk_in_a_real_window(Lang::Zh, 1280, 800, "talk-zh-1280x800.png");
}

#[test]
fn a_quick_phrase_clicked_in_a_small_real_window_reaches_the_terminal_peers_in_english() {
    talk_in_a_real_window(Lang::En, 1024, 600, "talk-en-1024x600.png");
}

#[test]
fn the_host_turns_a_watcher_away_and_a_watcher_cannot() {
    for lang in [Lang::Zh, Lang::En] {
        let dir = temp_dir(&format!("away-{lang:?}"));
        let mut h = Harness::at_table(dir.clone(), lang);
        let _ = h.app.update(Message::Lan(Feed::Net(NetEvent::Watchers {
            names: vec!["Dan".into(), "Eve".into()],
            chat: true,
        })));
        let dan = lang.f(T::TalkTurnAway, &[&"Dan"]);
        assert!(h.find(&dan), "the host sees a button per watcher");
        h.click(&dan);
        let asked: Vec<String> = std::iter::from_fn(|| h.requests.try_recv().ok())
            .filter_map(|r| match r {
                Request::TurnAway(n) => Some(n),
                _ => None,
            })
            .collect();
        assert_eq!(asked, ["Dan"]);
        let _ = std::fs::remove_dir_all(&dir);
        // A watcher (Ann hosts) has no such button.
        let dir = temp_dir(&format!("away-w-{lang:?}"));
        let mut w = Harness::watching(dir.clone(), lang);
        let _ = w.app.update(Message::Lan(Feed::Net(NetEvent::Watchers {
            names: vec!["Mei".into(), "Dan".into()],
            chat: true,
        })));
        assert!(!w.find(&dan));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
