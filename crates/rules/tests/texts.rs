//! Every settlement reads as a player says it (docs/texts.md), over thousands of random won
//! hands of each preset and every leaver's penalty, in 中文 and English: no 和 for a win, no
//! seat number, notation or pinyin id, no "1 characters" or "1 hands", no tile named twice
//! or called a flower; and the two languages state the same numbers, which are the
//! settlement's (flowers, fan, M, S, every payment).
#![allow(clippy::unwrap_used, missing_docs)]

use mahjong_rules::explain_text::{Style, render_styled};
use mahjong_rules::names::awkward;
use mahjong_rules::*;

const ZH_SEATS: [&str; 4] = ["东 小李", "南 阿明", "西 老王", "北 阿强"];
const EN_SEATS: [&str; 4] = ["East Ann", "South Bo", "West Cy", "North Di"];

fn text(e: &Explanation, lang: Lang, named_tiles: bool) -> Vec<String> {
    let seats = match lang {
        Lang::Zh => ZH_SEATS,
        Lang::En => EN_SEATS,
    };
    let st = Style::named(lang, move |s| seats[s as usize].to_string(), named_tiles);
    render_styled(e, &st, 100)
}

/// The numbers a text states, in order (digit runs).
fn numbers(lines: &[String]) -> Vec<u64> {
    let mut out = Vec::new();
    for l in lines {
        for w in l.split(|c: char| !c.is_ascii_digit()) {
            if let Ok(n) = w.parse() {
                out.push(n);
            }
        }
    }
    out
}

fn check(e: &Explanation, what: &str) {
    for lang in [Lang::Zh, Lang::En] {
        let lines = text(e, lang, true);
        for l in &lines {
            assert_eq!(awkward(l, lang), None, "{what}: {l}\n{}", lines.join("\n"));
            if lang == Lang::Zh {
                assert!(!l.contains('和'), "{what}: 和 in {l}");
            }
        }
        let all = lines.join("\n");
        for w in &e.winners {
            // What the settlement says is what the text says.
            let (s, m) = (w.score, w.multiplier);
            match lang {
                Lang::En => {
                    assert!(all.contains(&format!("S = {s}")), "{what}: S {s}\n{all}");
                    if let Some(f) = w.fan {
                        assert!(all.contains(&format!("Fan: {f} in all")), "{what}\n{all}");
                    }
                }
                Lang::Zh => {
                    assert!(all.contains(&format!("S = {s}")), "{what}: S {s}\n{all}");
                    if let Some(f) = w.fan {
                        assert!(all.contains(&format!("共 {f} 番")), "{what}\n{all}");
                    }
                }
            }
            assert!(
                all.contains(&format!("× {m} = {}", w.uncapped)),
                "{what}: M {m}\n{all}"
            );
            // A modifier is shown with its own effect, never a multiplier it does not have.
            for md in &w.modifiers {
                if !matches!(md.effect, explain::Effect::Times { .. }) {
                    let name = mahjong_rules::names::pattern(md.id.id(), lang).unwrap();
                    assert!(
                        !all.contains(&format!("{name} ×")),
                        "{what}: {name} states a multiplier\n{all}"
                    );
                }
            }
            if let Some(f) = w.fan {
                assert!(m == 1 << f || m == 2 << f, "{what}: M {m} with {f} fan");
            }
        }
        for (seat, p) in e.payments.iter().enumerate() {
            let name = match lang {
                Lang::Zh => ZH_SEATS[seat],
                Lang::En => EN_SEATS[seat],
            };
            let stated = format!("{name} {}", explain_text::signed(*p));
            assert!(all.contains(&stated), "{what}: {stated}\n{all}");
        }
    }
    // Both languages state the same numbers (tiles in notation, so that tile names add none).
    let (zh, en) = (text(e, Lang::Zh, false), text(e, Lang::En, false));
    let (mut a, mut b) = (numbers(&zh), numbers(&en));
    a.sort_unstable();
    b.sort_unstable();
    assert_eq!(a, b, "{what}\n{}\n{}", zh.join("\n"), en.join("\n"));
}

#[test]
fn thousands_of_random_settlements_read_well_in_both_languages() {
    for ruleset in Ruleset::ALL {
        let mut seen = 0;
        let mut kinds = std::collections::BTreeSet::new();
        let mut seed = 0u64;
        while seen < 1500 && seed < 400_000 {
            seed += 1;
            let Some(s) = sample::settlement(ruleset, seed) else {
                continue;
            };
            let e = explain(&s).unwrap();
            kinds.insert(e.winners[0].hand.clone());
            check(&e, &format!("{ruleset} seed {seed}"));
            seen += 1;
        }
        assert!(seen >= 1500, "{ruleset}: {seen} settlements");
        assert!(kinds.len() >= 4, "{ruleset}: {kinds:?}");
        // Every leaver's penalty.
        for leaver in 0..4u8 {
            for huangfan in 0..3 {
                let e = scoring::explain_leaver(
                    &Options::preset(ruleset),
                    Money::coins(2),
                    leaver,
                    huangfan,
                );
                check(&e, &format!("{ruleset} leaver {leaver}"));
            }
        }
    }
}

/// The 百搭 hand the issue names: 门清 gives a flower, not a doubling, and both languages say
/// so with the fan the settlement counts.
#[test]
fn a_baida_concealed_hand_says_one_flower_in_both_languages() {
    let s = parse_settlement(
        r#"{"ruleset":"baida","wildcard":"9s","win":{"kind":"self_draw","winners":[{"seat":1,"concealed":"123m456m789p11177s","winning_tile":"7s"}]}}"#,
    )
    .unwrap();
    let e = explain(&s).unwrap();
    let w = &e.winners[0];
    assert!(
        w.modifiers
            .iter()
            .any(|m| m.id == explain::ModifierId::Menqing)
    );
    let en = text(&e, Lang::En, true).join("\n");
    let zh = text(&e, Lang::Zh, true).join("\n");
    assert!(en.contains("concealed hand (门清) +1 flower"), "{en}");
    assert!(!en.contains("门清) ×"), "{en}");
    assert!(zh.contains("门清 +1 花"), "{zh}");
    let f = w.fan.unwrap();
    assert!(en.contains(&format!("Fan: {f} in all")), "{en}");
    assert!(zh.contains(&format!("共 {f} 番")), "{zh}");
    check(&e, "baida 门清");
}

/// `TEXTS_PRINT=1 cargo test -p mahjong-rules --test texts print -- --nocapture` prints a few
/// settlements of each preset in both languages, to read them.
#[test]
fn print_some() {
    if std::env::var("TEXTS_PRINT").is_err() {
        return;
    }
    for ruleset in Ruleset::ALL {
        let mut shown = 0;
        for seed in 0..2000u64 {
            let Some(s) = sample::settlement(ruleset, seed) else {
                continue;
            };
            let e = explain(&s).unwrap();
            if shown >= 3
                && e.shares
                    .iter()
                    .all(|s| !matches!(s.reason, explain::ShareReason::Bound { .. }))
            {
                continue;
            }
            for lang in [Lang::Zh, Lang::En] {
                println!("{}\n", text(&e, lang, true).join("\n"));
            }
            shown += 1;
            if shown > 4 {
                break;
            }
        }
    }
}
