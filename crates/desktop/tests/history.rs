//! The history and the replay: practice hands played by the real engine (four table clients,
//! three bots, simulated time, fixed seeds) are booked in a store in a temporary data
//! directory; then the history lists them, a hand's signed log is exported and verified (and
//! a tampered copy is refused), and a hand is replayed step by step from its stored log —
//! through the app's real `update` and `view` in the `iced_test` simulator.

use shanghai_mahjong::i18n::Text;
use std::path::{Path, PathBuf};

use mahjong_rules::{Ruleset, SessionLength};
use shanghai_mahjong::engine::{Command, Engine, PracticeConfig, Update};
use shanghai_mahjong::records::{self, HandCheck};
use shanghai_mahjong::rerun;
use shanghai_mahjong::session::{RecordTo, TableKey};

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("shanghai-hist-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// Plays `hands` practice hands of seed `seed` into the store in `dir` (the player's moves
/// are the master bot's hints), as the app's worker would.
fn play_practice(dir: &Path, seed: u64, hands: u32) -> Engine {
    let key = TableKey {
        resume: false,
        autoplay: false,
        config: PracticeConfig {
            think_ms: (0, 0),
            length: SessionLength::Hands(hands),
            ..PracticeConfig::new(Ruleset::Qiaoma, seed)
        },
        generation: 1,
        record: Some(RecordTo {
            dir: dir.to_path_buf(),
            name: "Mei".into(),
        }),
    };
    let (mut engine, first) = shanghai_mahjong::session::start_table(&key).expect("engine");
    assert!(
        !first.iter().any(|u| matches!(u, Update::Failed(_))),
        "the store opens"
    );
    let mut ended = 0;
    let mut hint = None;
    let mut updates = engine.settle(u64::MAX / 4);
    for _ in 0..20_000 {
        for u in updates.drain(..) {
            match u {
                Update::Hint { action, .. } => hint = Some(action),
                Update::HandEnded(_) => ended += 1,
                Update::Failed(f) => panic!("failed: {f}"),
                _ => {}
            }
        }
        if engine.is_paused() {
            if ended == hands {
                return engine;
            }
            updates = engine.command(Command::Next);
            updates.extend(engine.settle(u64::MAX / 4));
        } else if engine.player_must_act() {
            let a = hint.take().expect("a hint for every prompt");
            updates = engine.command(Command::Act(a));
        } else {
            updates = engine.settle(u64::MAX / 4);
        }
    }
    panic!("the hands did not end");
}

#[test]
fn practice_hands_are_booked_exported_verified_and_replayed() {
    let dir = temp_dir("data");
    let _engine = play_practice(&dir, 11, 2);
    let history = records::load(&dir).expect("history");
    assert_eq!(history.tables.len(), 1);
    let table = &history.tables[0];
    assert_eq!(table.hands.len(), 2);
    assert!(table.practice.is_some(), "marked as practice");
    assert_eq!(table.owner, Some(0));
    let total: i64 = table.hands[1].running.iter().map(|m| m.0).sum();
    assert_eq!(total, 0, "running totals sum to zero");
    assert!(history.players[0].me);

    // The stored log replays offline.
    let checks = records::verify_table(&dir, &table.id).expect("verify");
    assert_eq!(checks.get(&1), Some(&HandCheck::Verified));
    assert_eq!(checks.get(&2), Some(&HandCheck::Verified));

    // Export hand 2, verify it; a tampered copy fails.
    let path = records::default_export_path(&dir, &table.id, 2);
    let size = records::export_hand(&dir, &table.id, 2, &path).expect("export");
    assert!(size > 1000);
    let check = records::verify_path(&path).expect("the export verifies");
    assert_eq!(check.hand, Some(2));
    assert_eq!(check.report.hands.len(), 2);
    let text = std::fs::read_to_string(&path).expect("read");
    let tampered = dir.join("tampered.json");
    let first_pay = format!("{}", table.hands[0].payments[0].0);
    assert!(text.contains("\"payments\""));
    std::fs::write(
        &tampered,
        text.replacen("\"version\":1", "\"version\":2", 1),
    )
    .expect("write");
    let e = records::verify_path(&tampered).expect_err("tampered");
    assert!(e.is_unreadable(), "{e}");
    let _ = first_pay;

    // Replay hand 1: from the deal to the settlement.
    let replay = rerun::load(&dir, &table.id, 1).expect("replay");
    assert!(replay.steps.len() > 10);
    let first = &replay.steps[0];
    assert_eq!(first.view.hand.len(), first.hands[0].len());
    let last = replay.steps.last().expect("steps");
    assert!(matches!(
        last.view.phase,
        mahjong_rules::PublicPhase::Over(_)
    ));
}

// ---- through the app's update and view ----

use iced::keyboard::Key as IcedKey;
use iced::keyboard::key::Named;
use iced_test::{Error, Simulator, selector};
use shanghai_mahjong::app::{App, Flags, Message, Screen, table_key};
use shanghai_mahjong::i18n::{Lang, T};
use shanghai_mahjong::screens::history::{self, EXPORT_FIELD, VERIFY_FIELD, export_id, replay_id};
use shanghai_mahjong::screens::replay;
use shanghai_mahjong::screens::table::Message as TableMsg;
use shanghai_mahjong::settings::Settings;

/// The app on a data directory; tasks (reading the store, verifying, rebuilding a hand) are
/// run by the harness with the very functions the app's tasks call, and their messages fed
/// back.
struct Ui {
    app: App,
    dir: PathBuf,
    lang: Lang,
}

impl Ui {
    fn new(dir: &Path, lang: Lang) -> Ui {
        Settings {
            name: "Mei".into(),
            lang,
            ..Settings::default()
        }
        .save(dir)
        .expect("settings");
        let (app, _) = App::new(Flags {
            data_dir: dir.to_path_buf(),
            lang: None,
            practice: None,
            seed: Some(1),
            think_ms: (0, 0),
        });
        Ui {
            app,
            dir: dir.to_path_buf(),
            lang,
        }
    }

    fn ui(&self) -> Simulator<'_, Message> {
        Simulator::with_size(
            shanghai_mahjong::iced_settings(),
            self.app.size,
            self.app.view(),
        )
    }

    fn find(&self, text: &str) -> bool {
        self.ui().find(text).is_ok()
    }

    fn t(&self, key: T) -> &'static str {
        self.lang.t(key)
    }

    fn send(&mut self, m: Message) {
        let _ = self.app.update(m);
        self.run_tasks();
    }

    /// Does what the app's pending task would: the screen's state says what is due.
    fn run_tasks(&mut self) {
        let due = match &self.app.screen {
            Screen::History(h) if h.history.is_none() => {
                Some(Message::History(history::load(self.dir.clone())))
            }
            Screen::History(h) if h.verifying => Some(Message::History(history::verify(
                PathBuf::from(h.verify_path.trim()),
            ))),
            Screen::History(h) => h
                .checks
                .iter()
                .find(|(_, c)| **c == history::TableCheck::Running)
                .map(|(t, _)| Message::History(history::check_table(self.dir.clone(), *t))),
            Screen::Replay(r) if r.replay.is_none() => Some(Message::Replay(replay::load(
                self.dir.clone(),
                r.table,
                r.hand,
            ))),
            _ => None,
        };
        if let Some(m) = due {
            self.send(m);
        }
    }

    fn click(&mut self, text: &str) -> Result<(), Error> {
        let msgs: Vec<Message> = {
            let mut ui = self.ui();
            ui.click(text)?;
            ui.into_messages().collect()
        };
        for m in msgs {
            self.send(m);
        }
        Ok(())
    }

    fn click_id(&mut self, id: String) -> Result<(), Error> {
        let msgs: Vec<Message> = {
            let mut ui = self.ui();
            ui.click(selector::id(id))?;
            ui.into_messages().collect()
        };
        for m in msgs {
            self.send(m);
        }
        Ok(())
    }

    fn type_into(&mut self, id: &str, text: &str) -> Result<(), Error> {
        let msgs: Vec<Message> = {
            let mut ui = self.ui();
            ui.click(selector::id(id.to_string()))?;
            let _ = ui.typewrite(text);
            ui.into_messages().collect()
        };
        for m in msgs {
            self.send(m);
        }
        Ok(())
    }

    fn key(&mut self, named: Named) {
        let k = table_key(&IcedKey::Named(named)).expect("a shortcut");
        self.send(Message::Table(TableMsg::Key(k)));
    }

    fn replay_step(&self) -> usize {
        match &self.app.screen {
            Screen::Replay(r) => r.step,
            _ => panic!("not replaying"),
        }
    }
}

/// Opens the history from the home screen; the first table it lists.
fn open_history(ui: &mut Ui) -> Result<records::TableEntry, Error> {
    ui.click(ui.t(T::History))?;
    let Screen::History(h) = &ui.app.screen else {
        panic!("the history opens");
    };
    Ok(h.history
        .as_ref()
        .and_then(|r| r.as_ref().ok())
        .map(|h| h.tables[0].clone())
        .expect("one table"))
}

#[test]
fn the_history_lists_a_finished_practice_hand_exports_and_verifies_it() -> Result<(), Error> {
    let dir = temp_dir("ui-history");
    let _engine = play_practice(&dir, 5, 1);
    let mut ui = Ui::new(&dir, Lang::En);
    assert!(
        ui.find(ui.t(T::History)),
        "the home screen offers the history"
    );
    let table = open_history(&mut ui)?;
    assert!(ui.find(&Lang::En.f(T::HistoryCount, &[&1, &1])));
    assert!(ui.find(ui.t(T::CheckSigned)), "booked with four signatures");
    assert!(ui.find(ui.t(T::PracticeTag)));
    let names = |s: u8| history::short_label(Lang::En, &table, s);
    let words = history::result_words(Lang::En, &names, &table.hands[0].result);
    assert!(ui.find(&words), "the result in words: {words}");
    // Each player's balance and level, the level's name in English ("level 1 (Pauper)").
    let me = Lang::En.f(T::LevelOf, &[&1, &"Pauper"]);
    assert!(ui.find(&me), "{me}");

    // Verify the table's stored log offline.
    ui.click(ui.t(T::VerifyTable))?;
    assert!(ui.find(ui.t(T::CheckVerified)));
    // The verdict is remembered: the history opened again shows it at once.
    ui.click(ui.t(T::Back))?;
    ui.click(ui.t(T::History))?;
    assert!(ui.find(ui.t(T::CheckVerified)));
    assert!(dir.join(records::CHECKS_FILE).is_file());

    // Export hand 1 to the default path.
    ui.click_id(export_id(&table.id, 1))?;
    let path = records::default_export_path(&dir, &table.id, 1);
    assert!(
        ui.find(&path.display().to_string()),
        "the default path is offered"
    );
    ui.click(ui.t(T::ExportWrite))?;
    let Screen::History(h) = &ui.app.screen else {
        panic!("still the history");
    };
    let form = h.export.clone().expect("the form");
    if form.outcome.is_none() {
        // The harness runs the export the task would.
        let m = history::export(dir.clone(), table.id, 1, path.clone());
        ui.send(Message::History(m));
    }
    assert!(path.is_file(), "written");

    // Verify the exported file through the field.
    ui.type_into(VERIFY_FIELD, &path.display().to_string())?;
    ui.click(ui.t(T::VerifyButton))?;
    let Screen::History(h) = &ui.app.screen else {
        panic!("still the history");
    };
    let ok = h.verdict.clone().expect("a verdict").expect("verifies");
    let head = Lang::En.f(
        T::VerifyOk,
        &[
            &&mahjong_store::to_hex(&table.id)[..8],
            &1,
            &ok.report.signatures,
            &ok.report.steps,
            &1,
        ],
    );
    assert!(ui.find(&head), "{head}");

    // A tampered copy: one byte of a signed frame changed.
    let text = std::fs::read_to_string(&path).expect("read");
    let at = text.find("\"steps\":[[\"").expect("steps") + 200;
    let mut bytes = text.into_bytes();
    bytes[at] = if bytes[at] == b'0' { b'1' } else { b'0' };
    let bad = dir.join("tampered.json");
    std::fs::write(&bad, bytes).expect("write");
    ui.type_into(VERIFY_FIELD, "")?;
    if let Screen::History(h) = &mut ui.app.screen {
        h.verify_path.clear();
    }
    ui.type_into(VERIFY_FIELD, &bad.display().to_string())?;
    ui.click(ui.t(T::VerifyButton))?;
    assert!(ui.find(ui.t(T::VerifyFault)), "the tampered file fails");
    assert!(
        ui.find(ui.t(T::NoCulprit)),
        "and blames nobody: it was altered"
    );
    // Not a file of this program at all.
    let junk = dir.join("junk.json");
    std::fs::write(&junk, b"{not json").expect("write");
    if let Screen::History(h) = &mut ui.app.screen {
        h.verify_path.clear();
    }
    ui.type_into(VERIFY_FIELD, &junk.display().to_string())?;
    ui.click(ui.t(T::VerifyButton))?;
    assert!(ui.find(ui.t(T::VerifyUnreadable)));
    let _ = EXPORT_FIELD;
    Ok(())
}

#[test]
fn a_hand_replays_step_by_step_forward_and_back_to_the_settlement() -> Result<(), Error> {
    let dir = temp_dir("ui-replay");
    let _engine = play_practice(&dir, 7, 1);
    let mut ui = Ui::new(&dir, Lang::Zh);
    ui.send(Message::OpenHistory);
    let table = match &ui.app.screen {
        Screen::History(h) => h
            .history
            .as_ref()
            .and_then(|r| r.as_ref().ok())
            .map(|h| h.tables[0].id)
            .expect("a table"),
        _ => panic!("the history"),
    };
    ui.click_id(replay_id(&table, 1))?;
    let n = match &ui.app.screen {
        Screen::Replay(r) => r.steps(),
        _ => panic!("the replay opens"),
    };
    assert!(n > 20, "{n} steps");
    let zh = Lang::Zh;
    assert!(ui.find(&zh.f(T::StepOf, &[&0, &(n - 1)])));
    assert!(ui.find(zh.t(T::ReplayDeal)));
    // The replay's own keys are said; the table's (discard, claim…) would mislead here.
    assert!(ui.find(zh.t(T::ReplayKeys)));
    assert!(!ui.find(zh.t(T::Keys)), "the table's keys in a replay");
    ui.click(zh.t(T::StepForward))?;
    assert_eq!(ui.replay_step(), 1);
    assert!(ui.find(&zh.f(T::StepOf, &[&1, &(n - 1)])));
    ui.key(Named::ArrowRight);
    ui.key(Named::ArrowRight);
    assert_eq!(ui.replay_step(), 3);
    ui.key(Named::ArrowLeft);
    assert_eq!(ui.replay_step(), 2);
    ui.click(zh.t(T::StepBack))?;
    assert_eq!(ui.replay_step(), 1);
    // Every hand face up on demand, then the end: the settlement.
    ui.click(zh.t(T::ShowHands))?;
    assert!(ui.find(zh.t(T::ProvenHands)));
    ui.click(zh.t(T::StepEnd))?;
    assert_eq!(ui.replay_step(), n - 1);
    assert!(ui.find(&zh.f(T::HandResult, &[&1])), "the settlement");
    assert!(
        ui.find(zh.t(T::ProvenHands)),
        "all hands face up at the end"
    );
    assert!(ui.find(zh.t(T::Totals)));
    ui.key(Named::ArrowRight);
    assert_eq!(ui.replay_step(), n - 1, "no step past the end");
    ui.click(zh.t(T::StepBack))?;
    assert_eq!(ui.replay_step(), n - 2);
    // The review of the hand opens over the replay (the app's task, run here) and goes back
    // to it.
    ui.click(zh.t(T::ReviewButton))?;
    assert!(ui.app.review.is_some(), "the review opens");
    let loaded = shanghai_mahjong::screens::review::load(dir.clone(), table, 1);
    ui.send(Message::Review(loaded));
    assert!(ui.find(&zh.f(T::ReviewTitle, &[&1])));
    // The player's moves were the master bot's hints: every decision agrees.
    assert!(ui.find(zh.t(T::ReviewSame)), "the hints were followed");
    ui.click(zh.t(T::ReviewBack))?;
    assert!(ui.app.review.is_none());
    assert_eq!(ui.replay_step(), n - 2, "back at the replay where it was");
    // Back to the history it came from.
    ui.click(zh.t(T::BackToHistory))?;
    assert!(matches!(ui.app.screen, Screen::History(_)));
    Ok(())
}

#[test]
fn a_log_that_is_not_the_booked_hand_is_refused_with_the_reason() {
    use mahjong_rules::Action;
    use mahjong_table::Body;
    use mahjong_table::RebuildError;
    let dir = temp_dir("tamper");
    let _engine = play_practice(&dir, 9, 2);
    let store = mahjong_store::Store::open(&dir).expect("store");
    let table = store.tables().expect("tables")[0].id;
    let rows = store.ledger_of(&table).expect("ledger");
    let log = store
        .persisted(&table, 0)
        .expect("log")
        .expect("seat 0")
        .log;
    let cards = shanghai_mahjong::engine::cards();
    let through_1 = mahjong_store::export::log_through_hand(&log, 1).expect("hand 1");
    // The real thing rebuilds.
    let steps =
        mahjong_table::rebuild(through_1, &rows[0].result, 0, cards.clone()).expect("rebuilds");
    assert!(steps.len() > 10);
    // Hand 2's result against hand 1's log: its deal is not there.
    let e = mahjong_table::rebuild(through_1, &rows[1].result, 0, cards.clone())
        .expect_err("other hand");
    assert!(matches!(e, RebuildError::NoAudit { hand: 2, .. }), "{e}");
    // Without the end-of-hand secrets (the hand's last deal step): the log is cut, and its
    // verification through the hand says where.
    let last_deal = through_1
        .iter()
        .rposition(|r| r.entries.iter().any(|e| matches!(e.body, Body::Deal(_))))
        .expect("deal steps");
    let mut cut = through_1.to_vec();
    cut.remove(last_deal);
    let e = mahjong_table::rebuild(&cut, &rows[0].result, 0, cards.clone()).expect_err("cut");
    assert!(matches!(e, RebuildError::Disagree { hand: 1, .. }), "{e}");
    assert!(
        e.to_string().contains("hand 1") && e.to_string().contains("does not verify"),
        "{e}"
    );
    // A discard changed to another tile: the rules refuse it or the hand ends otherwise.
    let mut bent = through_1.to_vec();
    let (s, i) = bent
        .iter()
        .enumerate()
        .find_map(|(s, r)| {
            r.entries.iter().position(|e| {
                matches!(&e.body, Body::Play(p) if matches!(p.action, Action::Discard { .. }))
            })
            .map(|i| (s, i))
        })
        .expect("a discard");
    if let Body::Play(p) = &mut bent[s].entries[i].body
        && let Action::Discard { card, .. } = &mut p.action
    {
        card.pos = (card.pos + 1) % 144;
    }
    let e = mahjong_table::rebuild(&bent, &rows[0].result, 0, cards).expect_err("bent");
    assert!(matches!(e, RebuildError::Disagree { hand: 1, .. }), "{e}");
    // Through the store: a hand that is not booked.
    let e = rerun::load(&dir, &table, 9).expect_err("no hand 9");
    assert!(e.to_string().contains("hand 9"), "{e}");
}

#[test]
fn a_store_that_cannot_be_read_is_said_plainly() -> Result<(), Error> {
    let dir = temp_dir("corrupt");
    std::fs::create_dir_all(&dir).expect("dir");
    // Damaged while the app runs (one damaged before it starts is set aside at its start,
    // `a_damaged_store_is_set_aside_and_said_on_the_home_screen`).
    let mut ui = Ui::new(&dir, Lang::En);
    std::fs::write(
        dir.join(mahjong_store::DB_FILE),
        b"not a database at all, 32 bytes!",
    )
    .expect("write");
    ui.click(ui.t(T::History))?;
    let e = records::load(&dir).expect_err("corrupt");
    assert!(e.to_string().contains("mahjong.sqlite3"), "{e}");
    assert!(matches!(e, records::RecordsError::Corrupt { .. }), "{e}");
    let said = shanghai_mahjong::i18n::records_error(Lang::En, &e);
    assert!(said.contains("mahjong.sqlite3"), "which file: {said}");
    assert!(ui.find(&Lang::En.f(T::HistoryFailed, &[&said])));
    // A practice table there cannot be kept: the table says so and still plays.
    let key = TableKey {
        resume: false,
        autoplay: false,
        config: PracticeConfig {
            think_ms: (0, 0),
            length: SessionLength::Hands(1),
            ..PracticeConfig::new(Ruleset::Qiaoma, 3)
        },
        generation: 1,
        record: Some(RecordTo {
            dir: dir.clone(),
            name: "Mei".into(),
        }),
    };
    let (_, first) =
        shanghai_mahjong::session::start_table(&key).expect("the engine starts anyway");
    assert!(
        first.iter().any(|u| matches!(
            u,
            Update::Failed(shanghai_mahjong::engine::Failure::NotKept(
                records::RecordsError::Corrupt { .. }
            ))
        )),
        "the failure is reported"
    );
    Ok(())
}

#[test]
fn a_practice_table_sat_at_from_the_app_keeps_its_hands_in_the_players_store() {
    let dir = temp_dir("sit");
    let mut ui = Ui::new(&dir, Lang::En);
    ui.send(Message::Home(
        shanghai_mahjong::screens::home::Message::Start,
    ));
    let key = ui.app.table_key().expect("at a table").clone();
    assert_eq!(
        key.record,
        Some(RecordTo {
            dir: dir.clone(),
            name: "Mei".into(),
        }),
        "the worker is told where to book the hands"
    );
}

/// The top bar's History, pressed while the rules are open over the home screen, shows the
/// history (it once opened under the rules, which stayed on top: nothing seemed to happen,
/// found clicking the window under Xvfb).
#[test]
fn the_history_opened_over_the_rules_is_shown() -> Result<(), Error> {
    let dir = temp_dir("history-over-rules");
    let mut ui = Ui::new(&dir, Lang::En);
    ui.click(ui.t(T::RulesButton))?;
    assert!(ui.app.rules.is_some(), "the rules are open");
    ui.click(ui.t(T::History))?;
    assert!(matches!(ui.app.screen, Screen::History(_)));
    assert!(
        ui.app.rules.is_none(),
        "the rules no longer cover the history"
    );
    assert!(
        ui.find(Lang::En.t(T::VerifyTitle)),
        "the history is on screen"
    );
    Ok(())
}

/// At 1024 × 600 every button of the replay is on screen, Back to the history included (it
/// was pushed off the right edge by the title, found under Xvfb at 1024×600).
#[test]
fn the_replay_s_buttons_are_all_on_a_small_screen() -> Result<(), Error> {
    let dir = temp_dir("ui-replay-small");
    let _engine = play_practice(&dir, 7, 1);
    for lang in [Lang::En, Lang::Zh] {
        let mut ui = Ui::new(&dir, lang);
        ui.send(Message::Resized(iced::Size::new(1024.0, 600.0)));
        ui.send(Message::OpenHistory);
        let table = match &ui.app.screen {
            Screen::History(h) => h
                .history
                .as_ref()
                .and_then(|r| r.as_ref().ok())
                .map(|h| h.tables[0].id)
                .expect("a table"),
            _ => panic!("the history"),
        };
        ui.click_id(replay_id(&table, 1))?;
        assert!(matches!(ui.app.screen, Screen::Replay(_)));
        let mut sim = ui.ui();
        for key in [
            T::StepStart,
            T::StepBack,
            T::StepForward,
            T::StepEnd,
            T::ShowHands,
            T::ReviewButton,
            T::BackToHistory,
        ] {
            let b = sim
                .find(lang.t(key))
                .unwrap_or_else(|_| panic!("{lang}: {key:?} is shown"))
                .bounds();
            // Whole, on one line, inside the window (a squeezed label has no width left).
            assert!(
                b.width > 1.0
                    && b.height < 30.0
                    && b.x >= 0.0
                    && b.x + b.width <= 1024.0
                    && b.y + b.height <= 600.0,
                "{lang}: {key:?} at {b:?} is not whole on the 1024×600 window"
            );
        }
    }
    Ok(())
}

/// Plays the player's prompts with the hints until `stop` says so (or 20,000 rounds).
fn play_until(engine: &mut Engine, mut stop: impl FnMut(&Engine, &Update) -> bool) -> bool {
    let mut hint = None;
    let mut updates = engine.settle(u64::MAX / 4);
    for _ in 0..20_000 {
        for u in updates.drain(..) {
            if stop(engine, &u) {
                return true;
            }
            match u {
                Update::Hint { action, .. } => hint = Some(action),
                Update::Failed(f) => panic!("failed: {f}"),
                _ => {}
            }
        }
        if engine.player_must_act() {
            let c = Command::Act(hint.take().expect("a hint for every prompt"));
            updates = engine.command(c);
        } else if engine.is_paused() {
            updates = engine.command(Command::Next);
        } else {
            updates = engine.settle(u64::MAX / 4);
        }
    }
    false
}

/// A practice table is saved and resumed the way every table is: killed after its first hand
/// (the settlement shown), the app finds it in the store and seats it again from the seats'
/// journals; it goes on with the second hand, the first booked once, and once the session
/// is over nothing is left to resume.
#[test]
fn a_practice_table_killed_after_a_hand_resumes_from_the_store() {
    let dir = temp_dir("kept");
    let key = |resume| TableKey {
        resume,
        autoplay: false,
        config: PracticeConfig {
            think_ms: (0, 0),
            length: SessionLength::Hands(2),
            ..PracticeConfig::new(Ruleset::Qiaoma, 23)
        },
        generation: 1,
        record: Some(RecordTo {
            dir: dir.clone(),
            name: "Mei".into(),
        }),
    };
    let (mut engine, _) = shanghai_mahjong::session::start_table(&key(false)).expect("engine");
    let mut kept = None;
    assert!(play_until(&mut engine, |_, u| match u {
        Update::HandEnded(end) => {
            kept = Some(end.kept);
            true
        }
        _ => false,
    }));
    let table = kept.expect("the first hand ended").expect("booked");
    // The kill: nothing more is saved.
    drop(engine);
    assert_eq!(
        shanghai_mahjong::session::practice_to_resume(&dir),
        Some(key(false).config),
        "the app opens on the table"
    );
    let (mut engine, first) = shanghai_mahjong::session::resume_table(&key(true)).expect("resumed");
    assert!(
        matches!(first.first(), Some(Update::Resumed { hands: 1 })),
        "one hand final before the kill"
    );
    assert!(
        !first.iter().any(|u| matches!(u, Update::Failed(_))),
        "nothing failed"
    );
    assert_eq!(engine.kept_as(), Some(table), "the same table goes on");
    let mut second = None;
    assert!(play_until(&mut engine, |_, u| match u {
        Update::HandEnded(end) => {
            second = Some((end.result.hand, end.kept));
            end.result.session.is_finished()
        }
        _ => false,
    }));
    assert_eq!(second, Some((2, Some(table))), "the second hand, kept");
    let history = records::load(&dir).expect("history");
    assert_eq!(history.tables.len(), 1);
    assert_eq!(
        history.tables[0]
            .hands
            .iter()
            .map(|h| h.result.hand)
            .collect::<Vec<_>>(),
        vec![1, 2],
        "each hand booked once"
    );
    assert_eq!(
        shanghai_mahjong::session::practice_to_resume(&dir),
        None,
        "the session is over"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Killed at a prompt in the middle of a hand, a practice table comes back at the same step:
/// the same tiles in the player's hand, the player to act, and it plays on to the end.
#[test]
fn a_practice_table_killed_mid_hand_comes_back_at_the_same_step() {
    let dir = temp_dir("midhand");
    let key = |resume| TableKey {
        resume,
        autoplay: false,
        config: PracticeConfig {
            think_ms: (0, 0),
            length: SessionLength::Hands(1),
            ..PracticeConfig::new(Ruleset::Baida, 31)
        },
        generation: 1,
        record: Some(RecordTo {
            dir: dir.clone(),
            name: "Mei".into(),
        }),
    };
    let (mut engine, _) = shanghai_mahjong::session::start_table(&key(false)).expect("engine");
    let mut turns = 0;
    let mut before = None;
    assert!(play_until(&mut engine, |e, u| {
        if let Update::Table(mahjong_table::TableEvent::YourTurn { .. }) = u {
            turns += 1;
        }
        if turns >= 2 && e.player_must_act() {
            before = e.player().view();
            return true;
        }
        false
    }));
    let before = before.expect("the second turn");
    drop(engine);
    let (mut engine, first) = shanghai_mahjong::session::resume_table(&key(true)).expect("resumed");
    let view = first
        .iter()
        .find_map(|u| match u {
            Update::View { view, .. } => Some(view.clone()),
            _ => None,
        })
        .expect("the table as it was");
    assert_eq!(view.hand, before.hand, "the same tiles");
    assert_eq!(view.legal, before.legal, "the same prompt");
    assert!(engine.player_must_act(), "the player's turn");
    assert!(play_until(&mut engine, |_, u| matches!(
        u,
        Update::HandEnded(end) if end.result.session.is_finished()
    )));
    assert_eq!(records::load(&dir).expect("history").hand_count(), 1);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The history's times are on the player's clock. The test runs itself again as a child
/// with `TZ` set to Shanghai's (UTC+8, no summer time, written as a POSIX rule so that no
/// time zone files are needed): there the table's heading shows its time eight hours after
/// UTC's.
#[test]
fn the_history_shows_times_on_the_players_clock() -> Result<(), Error> {
    const CHILD: &str = "SHANGHAI_HISTORY_TZ_CHILD";
    if std::env::var_os(CHILD).is_none() {
        let out = std::process::Command::new(std::env::current_exe().expect("the test binary"))
            .args([
                "--exact",
                "the_history_shows_times_on_the_players_clock",
                "--nocapture",
            ])
            .env(CHILD, "1")
            .env("TZ", "CST-8")
            .output()
            .expect("the test runs itself");
        let said = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{said}");
        assert!(said.contains("1 passed"), "{said}");
        return Ok(());
    }
    let dir = temp_dir("ui-clock");
    let _engine = play_practice(&dir, 5, 1);
    let mut ui = Ui::new(&dir, Lang::En);
    let table = open_history(&mut ui)?;
    let shanghai = history::date_at(table.created, 8 * 3600);
    assert_eq!(history::date(table.created), shanghai);
    let heading = Lang::En.f(
        T::TableHead,
        &[
            &shanghai,
            &Lang::En.t(shanghai_mahjong::screens::preset_name(table.ruleset)),
            &table.stake,
            &&mahjong_store::to_hex(&table.id)[..8],
        ],
    );
    assert!(ui.find(&heading), "not shown: {heading}");
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
