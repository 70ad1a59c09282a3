//! Every text the app shows for a settlement reads as a player says it (docs/texts.md), over
//! thousands of random won hands of each preset and every leaver's penalty, in 中文 and
//! English: the settlement, scorer and replay lines (`settle::explanation_text`), the
//! history's one-line result (`history::result_words`) and the binding line. No 和 for a win,
//! no seat number, notation or pinyin id, no "1 characters" or "1 hands", no tile named twice
//! or called a flower, no Chinese outside parentheses in English; and the numbers stated are
//! the settlement's.

use mahjong_rules::names::awkward;
use mahjong_rules::{Money, Options, Outcome, Ruleset, Session, SessionLength, explain, sample};
use mahjong_table::HandResult;
use shanghai_mahjong::i18n::{Lang, T, Text};
use shanghai_mahjong::screens::Names;
use shanghai_mahjong::screens::history::result_words;
use shanghai_mahjong::screens::settle::{explanation_text, seat_labels};
use shanghai_mahjong::tiles::{Faces, run_text, tile_text};

fn names(lang: Lang) -> Names<'static> {
    Names {
        me: match lang {
            Lang::Zh => "小李",
            Lang::En => "Ann",
        },
        table: None,
    }
}

fn clean(lang: Lang, text: &str, what: &str) {
    assert_eq!(awkward(text, lang), None, "{what}: {text}");
    if lang == Lang::Zh {
        assert!(!text.contains('和'), "{what}: 和 in {text}");
    }
}

#[test]
fn settlements_read_well_in_the_app_in_both_languages() {
    for ruleset in Ruleset::ALL {
        let mut seen = 0;
        let mut seed = 0u64;
        while seen < 1000 && seed < 300_000 {
            seed += 1;
            let Some(s) = sample::settlement(ruleset, seed) else {
                continue;
            };
            seen += 1;
            let e = explain(&s).expect("it scores");
            let what = format!("{ruleset} seed {seed}");
            for lang in [Lang::Zh, Lang::En] {
                let seats = seat_labels(lang, names(lang), Some(s.dealer));
                let lines = explanation_text(lang, Faces::Chinese, seats.clone(), &e);
                let all = lines.join("\n");
                for l in &lines {
                    assert_eq!(awkward(l, lang), None, "{what}: {l}\n{all}");
                    clean(lang, l, &what);
                }
                for w in &e.winners {
                    assert!(all.contains(&format!("S = {}", w.score)), "{what}\n{all}");
                }
                for (seat, p) in e.payments.iter().enumerate() {
                    let stated = format!(
                        "{} {}",
                        seats[seat],
                        mahjong_rules::explain_text::signed(*p)
                    );
                    assert!(all.contains(&stated), "{what}: {stated}\n{all}");
                }
                // The history's line for the same hand.
                let result = HandResult {
                    hand: 1,
                    setup: None,
                    outcome: Outcome::Win {
                        settlement: Box::new(s.clone()),
                        result: mahjong_rules::score(&s).expect("scores"),
                    },
                    payments: e.payments,
                    aborted: false,
                    session: Session::new(
                        Options::preset(ruleset),
                        Money::coins(1),
                        SessionLength::Hands(8),
                    ),
                };
                let name = |seat: u8| seats[seat as usize].clone();
                let line = result_words(lang, &name, &result);
                clean(lang, &line, &what);
                let bound = lang.f(T::Binding, &[&seats[0], &seats[1], &3]);
                clean(lang, &bound, &what);
            }
        }
        assert!(seen >= 1000, "{ruleset}: {seen}");
        for leaver in 0..4u8 {
            let e = mahjong_rules::scoring::explain_leaver(
                &Options::preset(ruleset),
                Money::coins(1),
                leaver,
                1,
            );
            for lang in [Lang::Zh, Lang::En] {
                let seats = seat_labels(lang, names(lang), Some(0));
                for l in explanation_text(lang, Faces::Chinese, seats, &e) {
                    clean(lang, &l, "leaver");
                }
            }
        }
    }
}

/// One naming place: the app's tile words are the rules crate's (the settlement's).
#[test]
fn the_app_names_tiles_as_the_settlement_does() {
    for t in mahjong_rules::Tile::all() {
        for lang in [Lang::Zh, Lang::En] {
            assert_eq!(
                tile_text(t, Faces::Chinese, lang),
                mahjong_rules::names::tile(t, lang)
            );
            clean(lang, &tile_text(t, Faces::Chinese, lang), "tile");
        }
        assert_eq!(tile_text(t, Faces::Notation, Lang::En), t.to_string());
    }
    let run = mahjong_rules::parse_tiles("789s").expect("tiles");
    assert_eq!(run_text(&run, Faces::Chinese, Lang::En), "7-8-9 Bamboos");
    assert_eq!(run_text(&run, Faces::Chinese, Lang::Zh), "七八九条");
    for id in shanghai_mahjong::i18n::PATTERNS {
        assert!(
            !Lang::En.pattern(id).contains('×'),
            "{id}: a name states no worth"
        );
    }
}
