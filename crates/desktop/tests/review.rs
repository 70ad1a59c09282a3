//! 复盘, the review of a hand: a practice hand played by a player who is not the master
//! computer player (the `basic` bot plays the player's seat) is kept in the store; its review,
//! rebuilt from the stored record, lists exactly the decisions where the master bot, asked at
//! each of the player's prompts during play, would have chosen differently. Then the review is
//! opened from the settlement screen through the app's real `update` and `view` in the
//! `iced_test` simulator, in both languages.

mod common;

use shanghai_mahjong::i18n::Text;
use std::path::{Path, PathBuf};

use common::Harness;
use mahjong_bot::{Bot, Level};
use mahjong_rules::{Action, Ruleset, SeatView, SessionLength, Tile};
use mahjong_table::TableEvent;
use shanghai_mahjong::app::Message;
use shanghai_mahjong::engine::{Command, PracticeConfig, Update};
use shanghai_mahjong::i18n::{Lang, T, foreign, reasons};
use shanghai_mahjong::screens::review as review_screen;
use shanghai_mahjong::screens::table::Message as TableMsg;
use shanghai_mahjong::session::{RecordTo, TableKey};
use shanghai_mahjong::tiles::Faces;

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("shanghai-review-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// What a choice plays, written here apart from the app's own comparison: the kind of action
/// and its tiles, sorted (any copy of a kind is that kind).
fn played(view: &SeatView, a: &Action) -> (String, Vec<Tile>) {
    let mut tiles: Vec<Tile> = match a {
        Action::Discard { card, .. } | Action::AddedKong { card } | Action::Flower { card } => {
            vec![card.tile]
        }
        Action::Chow { cards } | Action::Pung { cards } => cards.iter().map(|c| c.tile).collect(),
        Action::Kong { cards } => cards.iter().map(|c| c.tile).collect(),
        Action::ConcealedKong { cards } => cards.iter().map(|c| c.tile).collect(),
        Action::Swap { put_back } => view
            .hand
            .iter()
            .filter(|c| put_back.contains(&c.pos))
            .map(|c| c.tile)
            .collect(),
        Action::Win { .. } | Action::Pass | Action::Leave => Vec::new(),
    };
    tiles.sort();
    let kind = match a {
        Action::Discard { ready: true, .. } => "ready".to_string(),
        a => format!("{a:?}")
            .split([' ', '{'])
            .next()
            .unwrap_or("")
            .to_string(),
    };
    (kind, tiles)
}

/// One prompt of the player during play: what was offered, what the player played, what the
/// master bot would have played.
struct Prompt {
    view: SeatView,
    mine: Action,
    master: Action,
}

/// Plays one practice hand of `ruleset` and `seed` into the store in `dir` with the `basic`
/// bot in the player's seat, asking the master bot at every prompt; returns the prompts and
/// the table the hand is kept under.
fn play(dir: &Path, ruleset: Ruleset, seed: u64) -> (Vec<Prompt>, [u8; 32]) {
    let key = TableKey {
        resume: false,
        autoplay: false,
        config: PracticeConfig {
            think_ms: (0, 0),
            length: SessionLength::Hands(1),
            ..PracticeConfig::new(ruleset, seed)
        },
        generation: 1,
        record: Some(RecordTo {
            dir: dir.to_path_buf(),
            name: "Mei".into(),
        }),
    };
    let (mut engine, _) = shanghai_mahjong::session::start_table(&key).expect("engine");
    let mut player = Bot::new(Level::Basic, seed);
    let mut master = Bot::new(Level::Master, seed + 1);
    let mut prompts = Vec::new();
    let mut pending: Option<Action> = None;
    let mut updates = engine.settle(u64::MAX / 4);
    for _ in 0..20_000 {
        for u in updates.drain(..) {
            match u {
                Update::Table(TableEvent::YourTurn { view, .. }) => {
                    let mine = player.decide(&view).action;
                    let advice = master.decide(&view).action;
                    pending = Some(mine.clone());
                    prompts.push(Prompt {
                        view: (*view).clone(),
                        mine,
                        master: advice,
                    });
                }
                Update::HandEnded(end) => {
                    return (prompts, end.kept.expect("the hand is kept in the store"));
                }
                Update::Failed(f) => panic!("failed: {f}"),
                _ => {}
            }
        }
        updates = match pending.take() {
            Some(a) if engine.player_must_act() => engine.command(Command::Act(a)),
            _ => engine.settle(u64::MAX / 4),
        };
    }
    panic!("the hand did not end");
}

#[test]
fn a_review_lists_exactly_the_decisions_where_the_master_bot_differs() {
    let mut differing = 0;
    for (ruleset, seed) in [
        (Ruleset::Qiaoma, 3),
        (Ruleset::Classic, 5),
        (Ruleset::Baida, 8),
    ] {
        let dir = temp_dir(&format!("exact-{seed}"));
        let (prompts, table) = play(&dir, ruleset, seed);
        let choices: Vec<&Prompt> = prompts.iter().filter(|p| p.view.legal.len() > 1).collect();
        let expected: Vec<&Prompt> = choices
            .iter()
            .copied()
            .filter(|p| played(&p.view, &p.mine) != played(&p.view, &p.master))
            .collect();
        let review = shanghai_mahjong::review::load(&dir, &table, 1).expect("the hand reviews");
        assert_eq!(review.decisions, choices.len(), "{ruleset:?}: decisions");
        assert_eq!(
            review.differences.len(),
            expected.len(),
            "{ruleset:?}: the decisions that differ"
        );
        for (d, p) in review.differences.iter().zip(&expected) {
            assert_eq!(d.view, p.view, "the review weighs the view the player had");
            assert_eq!(played(&d.view, &d.played), played(&p.view, &p.mine));
            assert_eq!(
                played(&d.view, &d.advice.action),
                played(&p.view, &p.master)
            );
            // What either choice leaves the hand with, where there is a hand to weigh.
            if matches!(d.played, Action::Discard { .. }) {
                assert!(d.mine.as_ref().is_some_and(|o| o.danger.is_some()));
            }
        }
        differing += expected.len();
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert!(
        differing > 3,
        "the basic player differs from the master one"
    );
}

/// Plays the hand at the table with the `random` bot's choices, a player who makes
/// mistakes worth listing (the hint where it has none).
fn play_randomly(h: &mut Harness) {
    let mut basic = Bot::new(Level::Random, 4);
    for _ in 0..400 {
        let Some(t) = h.app.table_state() else {
            return;
        };
        if t.end.is_some() {
            return;
        }
        let legal = t.legal().to_vec();
        let Some(view) = t.view.as_deref() else {
            h.pump();
            continue;
        };
        if legal.is_empty() {
            h.pump();
            continue;
        }
        let mut view = view.clone();
        view.legal = legal.clone();
        let a = basic.decide(&view).action;
        let a = if legal.contains(&a) {
            a
        } else {
            legal[0].clone()
        };
        let _ = h.app.update(Message::Table(TableMsg::Act(a)));
        h.pump();
    }
    panic!("the hand did not end");
}

#[test]
fn the_review_opens_from_the_settlement_in_both_languages() -> Result<(), iced_test::Error> {
    let mut h = Harness::new("review-ui", Lang::Zh, Faces::Chinese);
    let _ = h
        .app
        .update(Message::Resized(iced::Size::new(1280.0, 800.0)));
    h.click(Lang::Zh.t(T::StartPractice))?;
    h.sit_down_kept();
    play_randomly(&mut h);
    let (table, hand) = {
        let t = h.app.table_state().expect("at the table");
        let end = t.end.as_ref().expect("the settlement");
        (end.kept.expect("kept"), end.result.hand)
    };
    assert!(h.find(&Lang::Zh.f(T::HandResult, &[&hand])));
    h.click(Lang::Zh.t(T::ReviewButton))?;
    assert!(h.app.review.is_some(), "the review opens");
    assert!(h.find(Lang::Zh.t(T::ReviewLoading)));
    // What the app's task does.
    let loaded = review_screen::load(h.dir().to_path_buf(), table, hand);
    h.apply(vec![Message::Review(loaded)]);
    let review = match h.app.review.as_ref().and_then(|r| r.review.clone()) {
        Some(Ok(r)) => r,
        other => panic!("no review: {:?}", other.map(|r| r.map(|r| r.decisions))),
    };
    assert!(!review.differences.is_empty(), "the random player differs");
    let first = review
        .mistakes()
        .next()
        .expect("the random player makes a mistake");
    // Only the mistakes are listed: a choice of equal value is not shown as one.
    let equal = review.differences.iter().find(|d| d.cost.is_none());
    for lang in [Lang::Zh, Lang::En] {
        if h.app.settings.lang != lang {
            h.click(Lang::Zh.t(T::OtherLang))?;
        }
        assert!(h.find(&lang.f(T::ReviewTitle, &[&hand])), "{lang:?} title");
        // The one line at the top: decisions, mistakes and what they cost.
        let summary = review_screen::summary(&review, lang);
        let mistakes = review.mistakes().count().to_string();
        assert!(
            summary.contains(&review.decisions.to_string()) && summary.contains(&mistakes),
            "{summary}"
        );
        assert!(h.find(&summary), "{lang:?}: {summary}");
        let mine = review_screen::choice(lang, Faces::Chinese, &first.view, &first.played);
        let bots = review_screen::choice(lang, Faces::Chinese, &first.view, &first.advice.action);
        assert!(h.find(&mine), "{lang:?}: {mine}");
        assert!(h.find(&bots), "{lang:?}: {bots}");
        let seat = |s| shanghai_mahjong::screens::seat_name(lang, "Mei", s);
        let words = reasons::Words {
            lang,
            faces: Faces::Chinese,
            seat: &seat,
        };
        let why = review_screen::why(first, &words);
        assert!(!why.is_empty());
        let line = lang.f(T::ReviewWhy, &[&why]);
        assert!(h.find(&line), "{lang:?}: {line}");
        if let Some(e) = equal {
            let line = lang.f(T::ReviewWhy, &[&review_screen::why(e, &words)]);
            assert!(!h.find(&line), "an equal choice is listed: {line}");
        }
        for text in [&mine, &bots, &line] {
            assert_eq!(foreign(lang, text), None, "{lang:?}: {text}");
        }
    }
    h.click(Lang::En.t(T::ReviewBack))?;
    assert!(h.app.review.is_none());
    assert!(
        h.find(&Lang::En.f(T::HandResult, &[&hand])),
        "back at the settlement"
    );
    Ok(())
}

/// Writes the review screen's screenshots under `docs/` (`review-<lang>.png`, 1280 × 800),
/// rendered by the window's software renderer. Run with
/// `cargo test -p shanghai-mahjong --test review screenshots -- --ignored`.
#[test]
#[ignore = "writes the documentation's screenshots"]
fn screenshots() -> Result<(), iced_test::Error> {
    for lang in [Lang::Zh, Lang::En] {
        let mut h = Harness::new(&format!("review-shot-{lang}"), lang, Faces::Chinese);
        let _ = h
            .app
            .update(Message::Resized(iced::Size::new(1280.0, 800.0)));
        h.click(lang.t(T::StartPractice))?;
        h.sit_down_kept();
        play_randomly(&mut h);
        let (table, hand) = {
            let end = h
                .app
                .table_state()
                .and_then(|t| t.end.as_ref())
                .expect("end");
            (end.kept.expect("kept"), end.result.hand)
        };
        h.click(lang.t(T::ReviewButton))?;
        let loaded = review_screen::load(h.dir().to_path_buf(), table, hand);
        h.apply(vec![Message::Review(loaded)]);
        common::save(h.ui(), &format!("review-{lang}"))?;
    }
    Ok(())
}
