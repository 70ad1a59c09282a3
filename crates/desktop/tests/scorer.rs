//! The scorer through the app's real `update` and `view` in the `iced_test` simulator: each
//! worked example of `tests/settlements/` (the files `mahjong score` is tested on) is entered
//! by clicking faces and situation buttons, and the scorer pays exactly what `mahjong score`
//! pays (the `.expected.json` beside each file, and `score_json` on the file itself), with
//! the rules crate's explanation shown line by line. Wrong clicks are explained, never a crash.

mod common;

use shanghai_mahjong::i18n::Text;
use std::path::PathBuf;

use common::Harness;
use iced_test::Error;
use mahjong_rules::hand::MeldType;
use mahjong_rules::{Money, Options, parse_settlement, score_json};
use shanghai_mahjong::app::{Message, Screen};
use shanghai_mahjong::i18n::{Lang, T};
use shanghai_mahjong::screens::scorer::{Outcome, State, face_id, kind_name};
use shanghai_mahjong::tiles::Faces;

/// Clicks the control with `id`, which must do something.
fn id(h: &mut Harness, id: impl Into<String>) -> Result<(), Error> {
    let id = id.into();
    let msgs: Vec<Message> = {
        let mut ui = h.ui();
        ui.click(iced_test::selector::id(id.clone()))?;
        ui.into_messages().collect()
    };
    assert!(!msgs.is_empty(), "clicking {id} did nothing");
    h.apply(msgs);
    Ok(())
}

fn scorer(h: &Harness) -> &State {
    match &h.app.screen {
        Screen::Scorer(s) => s,
        _ => panic!("not on the scorer"),
    }
}

fn settlements() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/settlements")
}

/// Enters the settlement file `n` through the scorer's buttons and faces.
fn enter(h: &mut Harness, n: u32) -> Result<Vec<i64>, Error> {
    let text = std::fs::read_to_string(settlements().join(format!("settlement-{n}.json")))?;
    let s = parse_settlement(&text).expect("a worked example parses");
    assert_eq!(
        s.options,
        Options::preset(s.options.ruleset),
        "the examples use the presets"
    );
    assert_eq!(s.stake, Money::coins(1));
    assert_eq!(s.winners.len(), 1);
    let w = &s.winners[0];
    id(h, format!("scorer-preset-{}", s.options.ruleset))?;
    id(h, format!("scorer-dealer-{}", s.dealer))?;
    id(h, format!("scorer-winner-{}", w.seat))?;
    id(h, format!("scorer-kind-{}", kind_name(s.kind)))?;
    if let Some(from) = s.from {
        id(h, format!("scorer-from-{from}"))?;
    }
    for seat in (0..4).filter(|&i| s.declared[i]) {
        id(h, format!("scorer-declared-{seat}"))?;
    }
    if s.kaibao {
        id(h, "scorer-kaibao")?;
    }
    for _ in 0..s.huangfan {
        id(h, "scorer-huangfan-plus")?;
    }
    for a in 0..4 {
        for b in 0..4 {
            for _ in 0..s.claims[a][b] {
                id(h, format!("scorer-claims-{a}-{b}-plus"))?;
            }
        }
    }
    for m in &w.melds {
        let mode = match m.kind {
            MeldType::Chow => "chow",
            MeldType::Pung => "pung",
            MeldType::ClaimedKong => "kong",
            MeldType::ConcealedKong => "concealed_kong",
            MeldType::AddedKong => "added_kong",
        };
        id(h, format!("scorer-mode-{mode}"))?;
        id(h, face_id(m.tile))?;
    }
    if !w.flowers.is_empty() {
        id(h, "scorer-mode-flower")?;
        for &f in &w.flowers {
            id(h, face_id(f))?;
        }
    }
    // The hand, the winning tile last.
    id(h, "scorer-mode-hand")?;
    let mut tiles = w.concealed.clone();
    if let Some(win) = w.winning_tile
        && let Some(i) = tiles.iter().position(|&t| t == win)
    {
        let t = tiles.remove(i);
        tiles.push(t);
    }
    for t in tiles {
        id(h, face_id(t))?;
    }
    if w.replacement_draw {
        id(h, "scorer-replacement")?;
    }
    assert_eq!(s.kind, scorer(h).kind);
    // What `mahjong score` prints for the file.
    let cli = score_json(&text).expect("mahjong score scores it");
    let expected: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(
        settlements().join(format!("settlement-{n}.expected.json")),
    )?)
    .expect("the expected payments are JSON");
    let expected: Vec<i64> = expected["payments"]
        .as_array()
        .expect("payments")
        .iter()
        .map(|v| v.as_i64().expect("whole coins"))
        .collect();
    assert_eq!(cli.payments.map(|m| m.0 / 100).to_vec(), expected);
    Ok(expected)
}

#[test]
fn the_scorer_pays_what_mahjong_score_pays_on_the_worked_examples() -> Result<(), Error> {
    for n in 1..=3 {
        for lang in [Lang::En, Lang::Zh] {
            let mut h = Harness::new(&format!("ex{n}-{lang}"), lang, Faces::Chinese);
            h.click(lang.t(T::ScorerButton))?;
            let expected = enter(&mut h, n)?;
            let Outcome::Scored(r) = scorer(&h).outcome() else {
                panic!("example {n} is not scored: {:?}", scorer(&h).outcome());
            };
            let (result, explanation) = &*r;
            let paid: Vec<i64> = result.payments.iter().map(|m| m.0 / 100).collect();
            assert_eq!(paid, expected, "example {n}");
            // The settlement is shown: payments and the rules crate's explanation.
            assert!(h.find(lang.t(T::PaymentsLabel)));
            let seats = [0u8, 1, 2, 3].map(|s| scorer(&h).seat_label(lang, s));
            for line in shanghai_mahjong::screens::settle::explanation_text(
                lang,
                Faces::Chinese,
                seats,
                explanation,
            ) {
                assert!(
                    h.find(line.as_str()),
                    "example {n} {lang}: not shown: {line}"
                );
            }
        }
    }
    Ok(())
}

#[test]
fn wrong_clicks_are_explained_and_a_non_win_names_the_reason() -> Result<(), Error> {
    let mut h = Harness::new("wrong", Lang::En, Faces::Notation);
    h.click("Scorer for real tiles")?;
    assert!(h.find("0 of 14 tiles"));
    let t = |s: &str| s.parse::<mahjong_rules::Tile>().expect("tile");
    for _ in 0..4 {
        id(&mut h, face_id(t("5m")))?;
    }
    id(&mut h, face_id(t("5m")))?;
    assert!(h.find("There are only 4 of 5m."), "a fifth copy is refused");
    assert_eq!(scorer(&h).concealed.len(), 4);
    id(&mut h, face_id(t("1f")))?;
    assert!(h.find("1f is a flower here: set it aside with “flower”."));
    id(&mut h, "scorer-mode-chow")?;
    id(&mut h, face_id(t("8s")))?;
    assert!(h.find("A chow is three suited tiles in sequence: it cannot start on 8s."));
    // A complete hand that wins nothing under 敲麻: the rules crate's reason is shown.
    id(&mut h, "scorer-mode-hand")?;
    for s in ["1p", "2p", "3p", "4s", "5s", "6s", "7m", "8m", "9m", "1z"] {
        id(&mut h, face_id(t(s)))?;
    }
    let Outcome::Refused(e) = scorer(&h).outcome() else {
        panic!("not refused: {:?}", scorer(&h).outcome());
    };
    assert!(h.find("This hand cannot be scored as entered:"));
    let said = scorer(&h).score_error(Lang::En, &e);
    assert!(
        said.starts_with("East's hand does not win under Qiaoma"),
        "{said}"
    );
    assert!(h.find(said.as_str()));
    // Clicking a tile of the hand takes it back.
    id(&mut h, "scorer-hand-0")?;
    assert_eq!(scorer(&h).tile_count(), 13);
    assert!(h.find("13 of 14 tiles"));
    // In Chinese too, and the way back home.
    h.click("中文")?;
    assert!(h.find("13 / 14 张"));
    h.click("返回")?;
    assert!(matches!(h.app.screen, Screen::Home(_)));
    Ok(())
}

/// Writes `docs/scorer-<lang>.png`: the third worked example (承包) entered and explained.
/// Run with `cargo test -p shanghai-mahjong --test scorer screenshots -- --ignored`.
#[test]
#[ignore = "writes the documentation's screenshots"]
fn screenshots() -> Result<(), Error> {
    for lang in [Lang::Zh, Lang::En] {
        let mut h = Harness::new(&format!("shot-{lang}"), lang, Faces::Chinese);
        h.click(lang.t(T::ScorerButton))?;
        enter(&mut h, 3)?;
        let _ = h
            .app
            .update(Message::Resized(iced::Size::new(1280.0, 800.0)));
        common::save(h.ui(), &format!("scorer-{lang}"))?;
    }
    Ok(())
}
