//! The practice set-up's option editor and the rules screen, through the app's real `update`
//! and `view` in the `iced_test` simulator: an option changed shows its explanation and its
//! highlight, a refused combination shows the rules crate's reason and disables start, a
//! table started with changed options really plays them (the four seats agree on them), and
//! the rules open from home and over a table without losing it.

mod shots;

use std::path::PathBuf;
use std::sync::mpsc;

use iced_test::{Error, Simulator, selector};
use mahjong_rules::{Money, Options, Ruleset, SessionLength};
use shanghai_mahjong::app::{App, Flags, Message, Screen};
use shanghai_mahjong::engine::{Command, Engine, Update};
use shanghai_mahjong::i18n::{Lang, T};
use shanghai_mahjong::screens::options::{Opt, control_id};
use shanghai_mahjong::screens::table::Message as TableMsg;
use shanghai_mahjong::settings::Settings;
use shanghai_mahjong::worker::Feed;

struct Harness {
    app: App,
    engine: Option<Engine>,
    rx: Option<mpsc::Receiver<Command>>,
    dir: PathBuf,
}

impl Harness {
    fn new(name: &str, lang: Lang) -> Harness {
        let dir =
            std::env::temp_dir().join(format!("shanghai-setup-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
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
            seed: Some(9),
            think_ms: (0, 0),
        });
        // Tall enough that every option is on screen for the clicks.
        let _ = app.update(Message::Resized(iced::Size::new(1280.0, 3200.0)));
        Harness {
            app,
            engine: None,
            rx: None,
            dir,
        }
    }

    fn ui(&self) -> Simulator<'_, Message> {
        Simulator::with_size(
            shanghai_mahjong::iced_settings(),
            self.app.size,
            self.app.view(),
        )
    }

    fn apply(&mut self, msgs: Vec<Message>) {
        for m in msgs {
            let _ = self.app.update(m);
        }
        self.pump();
    }

    fn click(&mut self, text: &str) -> Result<(), Error> {
        let msgs: Vec<Message> = {
            let mut ui = self.ui();
            ui.click(text)?;
            ui.into_messages().collect()
        };
        self.apply(msgs);
        Ok(())
    }

    fn click_id(&mut self, id: &str) -> Result<(), Error> {
        let msgs: Vec<Message> = {
            let mut ui = self.ui();
            ui.click(selector::id(id.to_string()))?;
            ui.into_messages().collect()
        };
        self.apply(msgs);
        Ok(())
    }

    fn find(&self, text: &str) -> bool {
        self.ui().find(text).is_ok()
    }

    /// Starts the engine the app's subscription would run and runs it to the first prompt.
    fn sit_down(&mut self) {
        let key = self.app.table_key().expect("at a table").clone();
        let (engine, first) = Engine::new(&key.config).expect("engine");
        let (tx, rx) = mpsc::channel();
        let _ = self.app.update(Message::Table(TableMsg::Feed(Feed::Ready(
            shanghai_mahjong::worker::Commands(tx),
        ))));
        self.engine = Some(engine);
        self.rx = Some(rx);
        self.feed(first);
        self.pump();
    }

    fn feed(&mut self, updates: Vec<Update>) {
        for u in updates {
            let _ = self
                .app
                .update(Message::Table(TableMsg::Feed(Feed::Update(u))));
        }
    }

    fn pump(&mut self) {
        for _ in 0..10_000 {
            let (Some(rx), Some(engine)) = (&self.rx, self.engine.as_mut()) else {
                return;
            };
            let commands: Vec<Command> = rx.try_iter().collect();
            let had = !commands.is_empty();
            let mut ups = Vec::new();
            for c in commands {
                ups.extend(engine.command(c));
            }
            if !had && (engine.is_paused() || engine.player_must_act()) {
                self.feed(ups);
                return;
            }
            let now = engine.now();
            ups.extend(engine.settle(now + 1_000));
            let idle = ups.is_empty() && !had;
            self.feed(ups);
            if idle {
                return;
            }
        }
    }
}

impl Drop for Harness {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[test]
fn an_option_changed_is_explained_and_highlighted_and_reset() -> Result<(), Error> {
    let mut h = Harness::new("change", Lang::En);
    // Every option of the preset is explained where it is set, its default shown.
    assert!(h.find(Lang::En.t(T::OptKaibaoHelp)));
    assert!(h.find(Lang::En.t(T::OptTableLimitHelp)));
    assert!(h.find(Lang::En.t(T::NoChanges)));
    assert!(!h.find("changed · default on"));
    h.click_id(&control_id(Opt::Kaibao, "off"))?;
    let Screen::Home(home) = &h.app.screen else {
        panic!("still on the set-up");
    };
    assert!(!home.editor.options().kaibao);
    // The change is highlighted with the preset's default, and counted.
    assert!(h.find("changed · default on"));
    assert!(h.find("1 changed from the preset's defaults (highlighted)"));
    assert!(h.find(Lang::En.t(T::OptKaibaoHelp)));
    // In Chinese too.
    h.click("中文")?;
    assert!(h.find("已改 · 默认 开"));
    assert!(h.find(Lang::Zh.t(T::OptKaibaoHelp)));
    h.click("恢复默认")?;
    assert!(h.find("全部为预设默认值"));
    let Screen::Home(home) = &h.app.screen else {
        panic!("still on the set-up");
    };
    assert_eq!(home.editor.options(), &Options::preset(Ruleset::Qiaoma));
    Ok(())
}

#[test]
fn a_refused_combination_says_why_and_cannot_start() -> Result<(), Error> {
    let mut h = Harness::new("refuse", Lang::En);
    // Points in a lezi down to none: 敲麻 scoring counts in lezi, so the rules crate refuses.
    for _ in 0..30 {
        let Screen::Home(home) = &h.app.screen else {
            panic!("on the set-up");
        };
        if home.editor.options().lezi_points.is_none() {
            break;
        }
        h.click_id(&control_id(Opt::LeziPoints, "minus"))?;
    }
    let err = Options {
        lezi_points: None,
        ..Options::preset(Ruleset::Qiaoma)
    }
    .validate()
    .expect_err("refused");
    assert!(h.find(Lang::En.t(T::Refused)));
    assert!(
        h.find(
            format!(
                "Table limit (table_limit_lezi): {}",
                Lang::En.t(T::RefuseLimitNeedsLezi)
            )
            .as_str()
        )
    );
    assert!(h.find(Lang::En.f(T::RulesSay, &[&err]).as_str()));
    // Start does nothing while refused.
    h.click("Start practice")?;
    assert!(matches!(h.app.screen, Screen::Home(_)));
    // With no table limit either, the next refusal is named: lezi points.
    h.click_id(&control_id(Opt::TableLimitLezi, "minus"))?;
    for _ in 0..10 {
        h.click_id(&control_id(Opt::TableLimitLezi, "minus"))?;
    }
    assert!(
        h.find(
            format!(
                "Points in a lezi (lezi_points): {}",
                Lang::En.t(T::RefuseNeedsLezi)
            )
            .as_str()
        )
    );
    h.click("中文")?;
    assert!(h.find("这个组合不能开局："));
    h.click("开始练习")?;
    assert!(matches!(h.app.screen, Screen::Home(_)));
    // Back to something playable: start works.
    h.click_id(&control_id(Opt::LeziPoints, "plus"))?;
    assert!(!h.find("这个组合不能开局："));
    h.click("开始练习")?;
    assert!(matches!(h.app.screen, Screen::Table(_)));
    Ok(())
}

#[test]
fn a_practice_table_plays_the_options_stake_and_length_chosen() -> Result<(), Error> {
    let mut h = Harness::new("start", Lang::En);
    h.click("Classic")?;
    h.click_id(&control_id(Opt::Kaibao, "on"))?;
    h.click_id(&control_id(Opt::Binding, "1"))?;
    h.click_id(&control_id(Opt::DiscardSeconds, "plus"))?;
    h.click_id("opt-stake-plus")?;
    h.click_id("opt-length-rounds")?;
    assert!(h.find("3 changed from the preset's defaults (highlighted)"));
    h.click("Start practice")?;
    let config = h.app.table_key().expect("at a table").config.clone();
    assert_eq!(config.ruleset, Ruleset::Classic);
    h.sit_down();
    let want = Options {
        kaibao: true,
        binding: Some(mahjong_rules::BindingRule::Qiaoma),
        discard_seconds: 25,
        ..Options::preset(Ruleset::Classic)
    };
    // What the four seats agreed on and play: the chosen options, stake and length.
    let engine = h.engine.as_ref().expect("engine");
    for seat in 0..4 {
        let p = engine
            .client(seat)
            .and_then(|c| c.proposal())
            .expect("agreed");
        assert_eq!(p.options, want, "seat {seat}");
        assert_eq!(p.stake, Money::coins(2));
        assert_eq!(p.length, SessionLength::Rounds(4));
    }
    let session = engine.player().session().expect("session");
    assert_eq!(session.options, want);
    assert!(h.app.table_state().is_some_and(|t| t.agreed && t.hand == 1));
    // The rules over the table show the table's options, the change in the table's values.
    h.click("Rule book")?;
    assert!(h.find("The rules: Classic"));
    assert!(h.find("25 s"));
    Ok(())
}

#[test]
fn the_rules_open_from_home_and_over_a_table_which_keeps_its_hand() -> Result<(), Error> {
    let mut h = Harness::new("rules", Lang::Zh);
    h.click("规则全文")?;
    assert!(h.find("规则：敲麻"));
    assert!(h.find("§9 选项"));
    assert!(h.find("§6 计分"));
    assert!(h.find(Lang::Zh.t(T::OptKaibaoHelp)));
    h.click("English")?;
    assert!(h.find("§9 Options"));
    assert!(h.find("The rules: Qiaoma 敲麻"));
    h.click("Back")?;
    assert!(matches!(h.app.screen, Screen::Home(_)) && h.app.rules.is_none());
    // Over a table: the table keeps running underneath and comes back as it was.
    h.click("Start practice")?;
    h.sit_down();
    let hand = h.app.table_state().map(|t| t.shown_hand());
    h.click("Rule book")?;
    assert!(h.find("§4 A turn"));
    assert!(h.find("Back to the table"));
    // Keys meant for the table wait while the rules are read.
    let _ = h.app.update(Message::Table(TableMsg::Key(
        shanghai_mahjong::screens::table::Key::Pick(0),
    )));
    assert_eq!(h.app.table_state().and_then(|t| t.picked), None);
    h.click("Back to the table")?;
    assert!(h.app.rules.is_none());
    assert_eq!(h.app.table_state().map(|t| t.shown_hand()), hand);
    assert!(h.find("Hand 1"));
    Ok(())
}

/// Writes the option editor's and the rules screen's screenshots under `docs/`
/// (`setup-<lang>.png` with a difference highlighted and a refusal, `rules-<lang>.png`),
/// rendered by the window's software renderer. Run with
/// `cargo test -p shanghai-mahjong --test setup screenshots -- --ignored`.
#[test]
#[ignore = "writes the documentation's screenshots"]
fn screenshots() -> Result<(), Error> {
    for lang in [Lang::Zh, Lang::En] {
        let mut h = Harness::new("shot", lang);
        let _ = h
            .app
            .update(Message::Resized(iced::Size::new(1280.0, 800.0)));
        let _ = h.app.update(Message::Home(
            shanghai_mahjong::screens::home::Message::Options(
                shanghai_mahjong::screens::options::Message::Step(Opt::DiscardSeconds, true),
            ),
        ));
        let _ = h.app.update(Message::Home(
            shanghai_mahjong::screens::home::Message::Options(
                shanghai_mahjong::screens::options::Message::Set(
                    Opt::LeziPoints,
                    shanghai_mahjong::screens::options::Val::Num(None),
                ),
            ),
        ));
        shots::save(h.ui(), &format!("setup-{lang}"))?;
        h.click(lang.t(T::RulesButton))?;
        shots::save(h.ui(), &format!("rules-{lang}"))?;
    }
    Ok(())
}
