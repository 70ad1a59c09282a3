//! Every screen in both languages, through the app's real `update` and `view` in the
//! `iced_test` simulator: the welcome, the set-up with its option editor (and a refusal), the
//! top bar's toggles, the rules, the scorer (a scored hand and a refused one), the practice
//! table (the player's turn with the hint shown, a claim window, the waits after 敲, a 百搭
//! table with its wildcard and legend, the leave confirmation, the rules over the table), the
//! settlement of a won, a drawn and an abandoned hand, the review (复盘), the history with its
//! check, the replay, an export, the verdict on a good, an altered and a foreign file, and the
//! lobby. Every text the view holds is collected from the widget tree; none may carry the
//! other language's script (`i18n::foreign`) outside the players' own names, a file path the
//! player typed or was offered, and hexadecimal ids.

mod common;

use shanghai_mahjong::i18n::Text;
use std::path::PathBuf;

use common::Harness;
use iced_test::selector::Candidate;
use iced_test::{Error, Simulator};
use mahjong_rules::{Action, Money, Outcome, Tile};
use shanghai_mahjong::app::{App, Flags, Message, Screen};
use shanghai_mahjong::engine::Failure;
use shanghai_mahjong::i18n::{Lang, T, foreign};
use shanghai_mahjong::records::{RecordsError, Trouble};
use shanghai_mahjong::rerun::ReplayError;
use shanghai_mahjong::screens::history::{self, VERIFY_FIELD, export_id, replay_id};
use shanghai_mahjong::screens::options::{Opt, control_id};
use shanghai_mahjong::screens::review as review_screen;
use shanghai_mahjong::screens::scorer::{self, face_id};
use shanghai_mahjong::screens::table::Message as TableMsg;
use shanghai_mahjong::screens::{replay, rules};
use shanghai_mahjong::tiles::Faces;

/// Every text the view holds: text widgets (buttons' labels included) and text inputs'
/// contents, in the order of the widget tree.
pub fn texts(ui: &mut Simulator<'_, Message>) -> Vec<(String, bool)> {
    let mut all = Vec::new();
    let _ = ui.find(|c: Candidate<'_>| -> Option<()> {
        match c {
            Candidate::Text { content, .. } => all.push((content.to_string(), false)),
            Candidate::TextInput { state, .. } => all.push((state.text().to_string(), true)),
            _ => {}
        }
        None
    });
    all
}

/// Removes what may be in any script: the players' names, paths, hexadecimal ids.
fn without_exempt(text: &str, names: &[&str], paths: &[String]) -> String {
    let mut t = text.to_string();
    let mut paths: Vec<&String> = paths.iter().collect();
    paths.sort_by_key(|p| std::cmp::Reverse(p.len()));
    for p in paths {
        t = t.replace(p.as_str(), "");
    }
    for n in names {
        t = t.replace(n, "");
    }
    // Hexadecimal ids (a table's id, a key): runs of at least 8 hex digits with a digit.
    let mut out = String::new();
    let mut run = String::new();
    let flush = |run: &mut String, out: &mut String| {
        let id = run.len() >= 8 && run.chars().any(|c| c.is_ascii_digit());
        if !id {
            out.push_str(run);
        }
        run.clear();
    };
    for c in t.chars() {
        if c.is_ascii_hexdigit() {
            run.push(c);
        } else {
            flush(&mut run, &mut out);
            out.push(c);
        }
    }
    flush(&mut run, &mut out);
    out
}

/// What was found: the screen, the text, the offending character.
struct Walk {
    lang: Lang,
    names: Vec<String>,
    paths: Vec<String>,
    faults: Vec<String>,
    screens: usize,
    /// The player chose notation faces: tiles read `5p`.
    notation: bool,
}

/// Tile notation (`5p`, `123m`) removed, for a player who chose notation faces.
fn without_notation(text: &str) -> String {
    let mut out = String::new();
    let mut digits = false;
    for c in text.chars() {
        if digits && "mpszf".contains(c) {
            digits = false;
            continue;
        }
        digits = c.is_ascii_digit() || (digits && c == ' ');
        out.push(c);
    }
    out
}

/// An id of the rule book left in a text: a preset's, an option's or a hand's id
/// (`qiaoma`, `swap_five`, `pengpenghu`), a seat number (`座位0`), or tile notation (`5z`)
/// where the player did not choose notation faces (see [`Walk::check`]).
fn rule_id(text: &str, notation: bool) -> Option<String> {
    const IDS: &[&str] = &[
        "qiaoma",
        "baida",
        "swap_five",
        "lezi_points",
        "must_declare_ready",
        "table_limit_lezi",
        "chi_san_kou",
        "pengpenghu",
        "hunyise",
        "qingyise",
    ];
    let words = text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'));
    for w in words {
        if IDS.contains(&w) {
            return Some(w.to_string());
        }
        let digits = w.chars().take_while(char::is_ascii_digit).count();
        if !notation
            && digits > 0
            && w.len() == digits + 1
            && w.ends_with(['m', 'p', 's', 'z', 'f'])
        {
            return Some(w.to_string());
        }
    }
    // A seat by its number (座位0, 座位 1).
    text.match_indices("座位")
        .any(|(i, _)| {
            text[i + "座位".len()..]
                .trim_start()
                .starts_with(|c: char| c.is_ascii_digit())
        })
        .then(|| "座位".to_string())
}

impl Walk {
    fn new(lang: Lang) -> Walk {
        Walk {
            lang,
            names: vec!["Mei".into()],
            paths: Vec::new(),
            faults: Vec::new(),
            screens: 0,
            notation: false,
        }
    }

    /// Checks every text `app` shows.
    fn check(&mut self, app: &App, screen: &str) {
        let lang = self.lang;
        assert_eq!(app.settings.lang, lang, "{screen}: the walk's language");
        let mut ui = Simulator::with_size(shanghai_mahjong::iced_settings(), app.size, app.view());
        let all = texts(&mut ui);
        assert!(!all.is_empty(), "{screen}: no text at all");
        // The language switch names the other language; the notation button shows notation;
        // the shortcut line names the keyboard's keys.
        let exempt = [T::OtherLang, T::FacesNotation, T::Keys].map(|k| lang.t(k));
        let names: Vec<&str> = self.names.iter().map(String::as_str).collect();
        for (text, input) in all {
            if input || exempt.contains(&text.as_str()) {
                continue;
            }
            let mut bare = without_exempt(&text, &names, &self.paths);
            if self.notation {
                bare = without_notation(&bare);
            }
            // The rule book's ids and notation (`qiaoma`, `5z`) and seat numbers (座位0)
            // are never shown, whatever the script.
            // The option editor shows an English player the options file's names (who may
            // edit that file); nowhere else, and never in 中文.
            let mut ids = bare.clone();
            if lang == Lang::En && !screen.contains("rules") {
                for o in Opt::all() {
                    ids = ids.replace(o.name(), "");
                }
            }
            if let Some(id) = rule_id(&ids, self.notation) {
                let fault = format!("{lang:?} {screen}: the id {id:?} in {text:?}");
                if !self.faults.contains(&fault) {
                    self.faults.push(fault);
                }
            }
            if let Some(c) = foreign(lang, &bare) {
                let fault = format!("{lang:?} {screen}: {c:?} in {text:?}");
                if !self.faults.contains(&fault) {
                    self.faults.push(fault);
                }
            }
        }
        self.screens += 1;
    }

    fn done(self) {
        assert!(
            self.faults.is_empty(),
            "{} texts of the other script on {} screens:\n{}",
            self.faults.len(),
            self.screens,
            self.faults.join("\n")
        );
    }
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("shanghai-langs-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn table(h: &Harness) -> &shanghai_mahjong::screens::table::State {
    h.app.table_state().expect("at a table")
}

fn act(h: &mut Harness, a: Action) {
    h.apply(vec![Message::Table(TableMsg::Act(a))]);
}

fn send(h: &mut Harness, m: Message) {
    h.apply(vec![m]);
}

/// Plays the hint (or the first offer) once.
fn play_once(h: &mut Harness) {
    let t = table(h);
    let legal = t.legal().to_vec();
    if legal.is_empty() {
        h.pump();
        return;
    }
    let a = match &t.hint {
        Some((a, _)) if legal.contains(a) => a.clone(),
        _ => legal[0].clone(),
    };
    act(h, a);
}

/// Does what the app's task would for the history and the replay screens.
fn run_tasks(h: &mut Harness) {
    for _ in 0..10 {
        let dir = h.dir().to_path_buf();
        let due = match &h.app.screen {
            Screen::History(s) if s.history.is_none() => Some(Message::History(history::load(dir))),
            Screen::History(s) if s.verifying => Some(Message::History(history::verify(
                PathBuf::from(s.verify_path.trim()),
            ))),
            Screen::History(s) => s
                .checks
                .iter()
                .find(|(_, c)| **c == history::TableCheck::Running)
                .map(|(t, _)| Message::History(history::check_table(dir, *t))),
            Screen::Replay(r) if r.replay.is_none() => {
                Some(Message::Replay(replay::load(dir, r.table, r.hand)))
            }
            _ => None,
        };
        match due {
            Some(m) => {
                let _ = h.app.update(m);
            }
            None => return,
        }
    }
}

fn click(h: &mut Harness, text: &str) -> Result<(), Error> {
    h.click(text)?;
    run_tasks(h);
    Ok(())
}

fn type_into(h: &mut Harness, id: &str, text: &str) -> Result<(), Error> {
    let msgs: Vec<Message> = {
        let mut ui = h.ui();
        ui.click(iced_test::selector::id(id.to_string()))?;
        let _ = ui.typewrite(text);
        ui.into_messages().collect()
    };
    h.apply(msgs);
    Ok(())
}

/// The first run (the name), the set-up, its toggles, the option editor's refusal, the
/// rules and the scorer.
fn walk_home(w: &mut Walk) -> Result<(), Error> {
    let lang = w.lang;
    let dir = temp_dir(&format!("welcome-{lang}"));
    let (mut app, _) = App::new(Flags {
        data_dir: dir.clone(),
        lang: Some(lang),
        practice: None,
        seed: Some(1),
        think_ms: (0, 0),
    });
    assert!(matches!(app.screen, Screen::Welcome(_)));
    w.check(&app, "welcome");
    let msgs: Vec<Message> = {
        let mut ui = Simulator::with_size(shanghai_mahjong::iced_settings(), app.size, app.view());
        ui.click(lang.t(T::Continue))?;
        ui.into_messages().collect()
    };
    for m in msgs {
        let _ = app.update(m);
    }
    w.check(&app, "welcome: no name");
    let _ = std::fs::remove_dir_all(&dir);

    let mut h = Harness::new(&format!("home-{lang}"), lang, Faces::Chinese);
    w.check(&h.app, "home");
    for _ in 0..4 {
        send(&mut h, Message::ToggleSound);
        w.check(&h.app, "home: sound toggled");
    }
    send(&mut h, Message::ToggleMotion);
    w.check(&h.app, "home: motion reduced");
    send(&mut h, Message::ToggleMotion);
    // The option editor: a changed option, then a refused combination.
    h.click_id(&control_id(
        Opt::named("base_points").expect("base_points"),
        "plus",
    ))?;
    w.check(&h.app, "options: a changed option");
    for _ in 0..30 {
        let Screen::Home(home) = &h.app.screen else {
            panic!("on the set-up");
        };
        if home.editor.options().lezi_points.is_none() {
            break;
        }
        h.click_id(&control_id(
            Opt::named("lezi_points").expect("lezi_points"),
            "minus",
        ))?;
    }
    assert!(h.find(lang.t(T::Refused)), "refused");
    w.check(&h.app, "options: refused");
    for _ in 0..12 {
        h.click_id(&control_id(
            Opt::named("table_limit_lezi").expect("table_limit_lezi"),
            "minus",
        ))?;
    }
    w.check(&h.app, "options: refused (lezi points)");
    h.click(lang.t(T::ResetDefaults))?;
    w.check(&h.app, "options: reset");
    for preset in [T::Classic, T::Baida, T::Qiaoma] {
        h.click(lang.t(preset))?;
        w.check(&h.app, "home: a preset");
    }
    // The rules.
    h.click(lang.t(T::RulesButton))?;
    assert!(h.app.rules.is_some());
    w.check(&h.app, "rules");
    for preset in [T::Classic, T::Baida] {
        send(&mut h, Message::Rules(rules::Message::Back));
        h.click(lang.t(preset))?;
        h.click(lang.t(T::RulesButton))?;
        w.check(&h.app, "rules of another preset");
    }
    send(&mut h, Message::Rules(rules::Message::Back));
    // The scorer: a full flush scored, then a refused hand and wrong clicks.
    h.click(lang.t(T::ScorerButton))?;
    w.check(&h.app, "scorer: empty");
    let t = |s: &str| s.parse::<Tile>().expect("tile");
    let id = |h: &mut Harness, id: String| h.click_id(&id);
    // 敲麻 scores a declared (敲) hand only.
    id(&mut h, "scorer-declared-0".into())?;
    id(&mut h, "scorer-mode-hand".into())?;
    for s in [
        "1m", "1m", "1m", "2m", "3m", "4m", "5m", "6m", "7m", "7m", "8m", "9m", "9m", "9m",
    ] {
        id(&mut h, face_id(t(s)))?;
    }
    let Screen::Scorer(s) = &h.app.screen else {
        panic!("the scorer");
    };
    assert!(
        matches!(s.outcome(), scorer::Outcome::Scored(_)),
        "a full flush scores: {:?}",
        s.outcome()
    );
    w.check(&h.app, "scorer: scored");
    for f in ["1m", "1f"] {
        id(&mut h, face_id(t(f)))?;
        w.check(&h.app, "scorer: a refused click");
    }
    id(&mut h, "scorer-mode-chow".into())?;
    id(&mut h, face_id(t("8s")))?;
    w.check(&h.app, "scorer: a refused chow");
    h.click(lang.t(T::ClearHand))?;
    id(&mut h, "scorer-declared-0".into())?;
    id(&mut h, "scorer-mode-hand".into())?;
    for s in [
        "1p", "2p", "3p", "4s", "5s", "6s", "7m", "8m", "9m", "1z", "5m", "5m", "5m", "1z",
    ] {
        id(&mut h, face_id(t(s)))?;
    }
    let Screen::Scorer(s) = &h.app.screen else {
        panic!("the scorer");
    };
    assert!(
        matches!(s.outcome(), scorer::Outcome::Refused(_)),
        "not a win under 敲麻"
    );
    w.check(&h.app, "scorer: refused hand");
    id(&mut h, "scorer-hand-0".into())?;
    w.check(&h.app, "scorer: incomplete");
    // The lobby (its LAN thread is not started here: the state before it speaks).
    h.click(lang.t(T::Back))?;
    h.click(lang.t(T::LobbyButton))?;
    assert!(matches!(h.app.screen, Screen::Lobby));
    w.check(&h.app, "lobby");
    Ok(())
}

/// The practice table: the turn with the hint, a claim window, the waits after 敲, the leave
/// confirmation, the rules over the table; a 百搭 table.
fn walk_table(w: &mut Walk) -> Result<(), Error> {
    let lang = w.lang;
    let (mut turn, mut claim, mut ready) = (false, false, false);
    for seed in 1..80 {
        let mut h = Harness::seeded(&format!("table-{lang}"), lang, Faces::Chinese, seed);
        send(&mut h, Message::Resized(iced::Size::new(1280.0, 800.0)));
        h.click(lang.t(T::StartPractice))?;
        h.sit_down();
        w.check(&h.app, "table: dealt");
        for _ in 0..400 {
            if table(&h).end.is_some() {
                break;
            }
            let legal = table(&h).legal().to_vec();
            if !turn && legal.iter().any(|a| matches!(a, Action::Discard { .. })) {
                turn = true;
                if !table(&h).show_hint {
                    send(&mut h, Message::Table(TableMsg::ToggleHint));
                }
                w.check(&h.app, "table: your turn, the hint shown");
                let i = table(&h)
                    .shown_hand()
                    .iter()
                    .position(|c| table(&h).can_discard(*c, false))
                    .expect("a discard");
                send(&mut h, Message::Table(TableMsg::Tile(i)));
                w.check(&h.app, "table: a tile picked");
                send(&mut h, Message::Table(TableMsg::AskLeave));
                w.check(&h.app, "table: leave?");
                // While it is asked, the bar holds the question and its two answers only (the
                // settings' buttons make room; with them it overflowed a 1024-wide window).
                assert!(h.find(lang.t(T::LeaveYes)) && h.find(lang.t(T::LeaveNo)));
                assert!(
                    !h.find(lang.t(T::OtherLang)),
                    "{lang:?}: the settings while asked"
                );
                send(&mut h, Message::Table(TableMsg::CancelLeave));
                assert!(
                    h.find(lang.t(T::OtherLang)),
                    "{lang:?}: the settings are back"
                );
                send(&mut h, Message::OpenRules);
                w.check(&h.app, "table: the rules over it");
                send(&mut h, Message::Rules(rules::Message::Back));
                send(&mut h, Message::ToggleFaces);
                w.notation = true;
                w.check(&h.app, "table: notation faces");
                w.notation = false;
                send(&mut h, Message::ToggleFaces);
            }
            if !claim
                && legal
                    .iter()
                    .any(|a| matches!(a, Action::Pung { .. } | Action::Chow { .. }))
            {
                claim = true;
                w.check(&h.app, "table: a claim window");
                let a = legal
                    .iter()
                    .find(|a| matches!(a, Action::Pung { .. } | Action::Chow { .. }))
                    .cloned()
                    .expect("a claim");
                act(&mut h, a);
                w.check(&h.app, "table: claimed (the call-out)");
                continue;
            }
            if !ready
                && let Some(a) = legal
                    .iter()
                    .find(|a| matches!(a, Action::Discard { ready: true, .. }))
                    .cloned()
            {
                ready = true;
                act(&mut h, a);
                w.check(&h.app, "table: after 敲, the waits");
                continue;
            }
            play_once(&mut h);
        }
        if table(&h).end.is_some() {
            w.check(&h.app, "table: the settlement");
        }
        if turn && claim && ready {
            break;
        }
    }
    assert!(turn && claim && ready, "every table state seen");
    // A 百搭 table: the wildcard beside its indicator, its legend, the mark in the hand.
    let mut h = Harness::seeded(&format!("baida-{lang}"), lang, Faces::Chinese, 41);
    send(&mut h, Message::Resized(iced::Size::new(1024.0, 600.0)));
    h.click(lang.t(T::Baida))?;
    h.click(lang.t(T::StartPractice))?;
    h.sit_down();
    for _ in 0..6 {
        play_once(&mut h);
    }
    let v = table(&h).view.as_ref().expect("dealt");
    assert!(v.wildcard.is_some(), "a wildcard");
    w.check(&h.app, "table: 百搭");
    Ok(())
}

/// A won hand's settlement (and the same hand drawn and abandoned), its review, then the
/// history, the replay, an export and the verify verdicts.
fn walk_settlement_and_history(w: &mut Walk) -> Result<(), Error> {
    let lang = w.lang;
    let mut h = (1..60)
        .find_map(|seed| {
            let mut h = Harness::seeded(&format!("won-{lang}"), lang, Faces::Chinese, seed);
            h.click(lang.t(T::StartPractice)).ok()?;
            h.sit_down_kept();
            for _ in 0..400 {
                if table(&h).end.is_some() {
                    break;
                }
                play_once(&mut h);
            }
            let end = table(&h).end.as_ref()?;
            matches!(end.result.outcome, Outcome::Win { .. }).then_some(h)
        })
        .expect("a won hand");
    w.paths.push(h.dir().display().to_string());
    w.check(&h.app, "settlement: won");
    // The same end, drawn and abandoned (a bot left).
    let won = table(&h).end.clone().expect("the end");
    let mut drawn = won.clone();
    drawn.result.outcome = Outcome::Drawn;
    drawn.result.payments = [Money::ZERO; 4];
    drawn.explanation = None;
    let mut left = won.clone();
    let payments = [
        Money::coins(3),
        Money::coins(3),
        Money::coins(-9),
        Money::coins(3),
    ];
    left.result.outcome = Outcome::Abandoned {
        leaver: 2,
        payments,
    };
    left.result.payments = payments;
    left.result.aborted = true;
    left.signed_by_all = false;
    left.explanation = shanghai_mahjong::engine::explain(&left.result);
    for (end, screen) in [
        (drawn, "settlement: drawn"),
        (left, "settlement: abandoned"),
    ] {
        let aborted = end.result.aborted;
        if let Screen::Table(t) = &mut h.app.screen {
            t.end = Some(end);
        }
        w.check(&h.app, screen);
        // An aborted hand revealed no deal: its review cannot be built, so it is not offered.
        assert_eq!(
            h.find(lang.t(T::ReviewButton)),
            !aborted,
            "{screen}: the review"
        );
    }
    if let Screen::Table(t) = &mut h.app.screen {
        t.end = Some(won.clone());
    }
    // The review (复盘).
    h.click(lang.t(T::ReviewButton))?;
    w.check(&h.app, "review: loading");
    let loaded = review_screen::load(
        h.dir().to_path_buf(),
        won.kept.expect("kept"),
        won.result.hand,
    );
    send(&mut h, Message::Review(loaded));
    w.check(&h.app, "review");
    h.click(lang.t(T::ReviewBack))?;
    // Leave the table; the history.
    h.click(lang.t(T::Stop))?;
    assert!(matches!(h.app.screen, Screen::Home(_)));
    click(&mut h, lang.t(T::History))?;
    w.check(&h.app, "history");
    let table_id = won.kept.expect("kept");
    click(&mut h, lang.t(T::VerifyTable))?;
    w.check(&h.app, "history: the table verified");
    // Export the hand.
    h.click_id(&export_id(&table_id, 1))?;
    w.check(&h.app, "history: the export form");
    let path = shanghai_mahjong::records::default_export_path(h.dir(), &table_id, 1);
    w.paths.push(path.display().to_string());
    h.click(lang.t(T::ExportWrite))?;
    let m = history::export(h.dir().to_path_buf(), table_id, 1, path.clone());
    send(&mut h, Message::History(m));
    assert!(path.is_file());
    w.check(&h.app, "history: exported");
    // Verify it, an altered copy and a file of something else.
    let text = std::fs::read_to_string(&path)?;
    let at = text.find("\"steps\":[[\"").expect("steps") + 200;
    let mut bytes = text.into_bytes();
    bytes[at] = if bytes[at] == b'0' { b'1' } else { b'0' };
    let bad = h.dir().join("tampered.json");
    std::fs::write(&bad, bytes)?;
    let junk = h.dir().join("junk.json");
    std::fs::write(&junk, b"{not json")?;
    for (file, screen) in [
        (&path, "history: a good file verified"),
        (&bad, "history: an altered file"),
        (&junk, "history: not a file of this program"),
    ] {
        if let Screen::History(s) = &mut h.app.screen {
            s.verify_path.clear();
        }
        type_into(&mut h, VERIFY_FIELD, &file.display().to_string())?;
        click(&mut h, lang.t(T::VerifyButton))?;
        let Screen::History(s) = &h.app.screen else {
            panic!("the history");
        };
        assert!(s.verdict.is_some(), "{screen}: a verdict");
        w.check(&h.app, screen);
    }
    // The replay: the deal, a step, every hand shown, the end.
    h.click_id(&replay_id(&table_id, 1))?;
    run_tasks(&mut h);
    assert!(matches!(h.app.screen, Screen::Replay(_)));
    w.check(&h.app, "replay: the deal");
    h.click(lang.t(T::StepForward))?;
    w.check(&h.app, "replay: a step");
    h.click(lang.t(T::ShowHands))?;
    w.check(&h.app, "replay: the hands shown");
    for _ in 0..12 {
        h.click(lang.t(T::StepForward))?;
        w.check(&h.app, "replay: the steps");
    }
    h.click(lang.t(T::StepEnd))?;
    w.check(&h.app, "replay: the settlement");
    h.click(lang.t(T::ReviewButton))?;
    let loaded = review_screen::load(h.dir().to_path_buf(), table_id, 1);
    send(&mut h, Message::Review(loaded));
    w.check(&h.app, "replay: the review");
    // The error states, in the player's language: a review and a replay of a hand the
    // records do not hold, an export to a path that cannot be written.
    let missing = review_screen::load(h.dir().to_path_buf(), table_id, 99);
    send(&mut h, Message::Review(missing));
    let refused = h.app.review.as_ref().and_then(|r| r.review.as_ref());
    assert!(
        matches!(
            refused,
            Some(Err(ReplayError::Records(RecordsError::NoHand {
                hand: 99,
                ..
            })))
        ),
        "{refused:?}"
    );
    assert!(h.find(&lang.f(T::ReviewCannot, &[&lang.f(T::ReNoHand, &[&99])])));
    w.check(&h.app, "review: a hand not in the records");
    h.click(lang.t(T::ReviewBack))?;
    let missing = replay::load(h.dir().to_path_buf(), table_id, 99);
    send(&mut h, Message::Replay(missing));
    let Screen::Replay(r) = &h.app.screen else {
        panic!("the replay");
    };
    assert!(
        matches!(
            &r.replay,
            Some(Err(ReplayError::Records(RecordsError::NoHand {
                hand: 99,
                ..
            })))
        ),
        "{:?}",
        r.replay.as_ref().map(|r| r.as_ref().err())
    );
    assert!(h.find(&lang.f(T::ReplayFailed, &[&lang.f(T::ReNoHand, &[&99])])));
    w.check(&h.app, "replay: a hand not in the records");
    click(&mut h, lang.t(T::BackToHistory))?;
    h.click_id(&export_id(&table_id, 1))?;
    // A file stands where the export's folder should be.
    let blocked = junk.join("hand.json");
    w.paths.push(blocked.display().to_string());
    send(
        &mut h,
        Message::History(history::Message::ExportPath(blocked.display().to_string())),
    );
    h.click(lang.t(T::ExportWrite))?;
    let m = history::export(h.dir().to_path_buf(), table_id, 1, blocked.clone());
    send(&mut h, Message::History(m));
    let Screen::History(s) = &h.app.screen else {
        panic!("the history");
    };
    let failed = s.export.as_ref().and_then(|f| f.outcome.as_ref());
    assert!(
        matches!(
            failed,
            Some(Err(RecordsError::File {
                trouble: Trouble::NotAFolder,
                ..
            }))
        ),
        "{failed:?}"
    );
    w.check(&h.app, "history: an export that cannot be written");
    Ok(())
}

/// A data dir whose database is damaged: the history says which file and what is wrong, and
/// a practice table plays on, saying that its hands cannot be kept.
fn walk_damaged_records(w: &mut Walk) -> Result<(), Error> {
    let lang = w.lang;
    let mut h = Harness::new(&format!("damaged-{lang}"), lang, Faces::Chinese);
    let db = h.dir().join(mahjong_store::DB_FILE);
    std::fs::write(
        &db,
        b"this is not an SQLite database, it is a text file of junk",
    )?;
    w.paths.push(db.display().to_string());
    click(&mut h, lang.t(T::History))?;
    let Screen::History(s) = &h.app.screen else {
        panic!("the history");
    };
    assert!(
        matches!(&s.history, Some(Err(RecordsError::Corrupt { .. }))),
        "{:?}",
        s.history.as_ref().map(|h| h.as_ref().err())
    );
    let said = shanghai_mahjong::i18n::records_error(
        lang,
        &RecordsError::Corrupt {
            path: db.clone(),
            detail: String::new(),
        },
    );
    assert!(
        said.contains(&db.display().to_string()),
        "which file: {said}"
    );
    w.check(&h.app, "history: a damaged database");
    h.click(lang.t(T::Back))?;
    send(&mut h, Message::Resized(iced::Size::new(1280.0, 800.0)));
    h.click(lang.t(T::StartPractice))?;
    h.sit_down_kept();
    assert!(
        matches!(
            table(&h).failed,
            Some(Failure::NotKept(RecordsError::Corrupt { .. }))
        ),
        "{:?}",
        table(&h).failed
    );
    w.check(&h.app, "table: its hands cannot be kept");
    Ok(())
}

#[test]
fn every_screen_in_each_language_shows_no_text_of_the_other_script() -> Result<(), Error> {
    for lang in [Lang::Zh, Lang::En] {
        let mut w = Walk::new(lang);
        walk_home(&mut w)?;
        walk_table(&mut w)?;
        walk_settlement_and_history(&mut w)?;
        walk_damaged_records(&mut w)?;
        assert!(w.screens > 60, "{} screens walked", w.screens);
        w.done();
    }
    Ok(())
}

#[test]
fn the_walk_catches_a_word_of_the_other_script() {
    for (lang, bad) in [(Lang::Zh, "Discard"), (Lang::En, "打出")] {
        let mut w = Walk::new(lang);
        let h = Harness::new(&format!("catch-{lang}"), lang, Faces::Chinese);
        w.check(&h.app, "home");
        assert!(w.faults.is_empty(), "{:?}", w.faults);
        // A text the view would hold, checked as the walk checks it.
        let names: Vec<&str> = w.names.iter().map(String::as_str).collect();
        let bare = without_exempt(&format!("{} {bad}", lang.t(T::Hint)), &names, &[]);
        assert!(foreign(lang, &bare).is_some(), "{lang:?}: {bare}");
        // Names, paths and ids are exempt; words are not.
        assert_eq!(
            foreign(
                Lang::Zh,
                &without_exempt("Mei 碰 南 · 3fa9c0de12", &names, &[])
            ),
            None
        );
    }
}
