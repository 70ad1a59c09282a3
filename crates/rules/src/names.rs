//! The one place where tiles, hands and modifiers get their names in a sentence, in 中文 and
//! English (docs/texts.md is the style guide these follow). The settlement, the scorer, the
//! history, the review, the app's claims and the terminal all name through here.
//!
//! - 中文: tiles as players say them, 五万 七筒 三条 东风 红中 发财 白板, flowers by their
//!   character (春 梅); hands and modifiers by their Chinese name (清一色).
//! - English: number and suit in the singular, capitalised: "1 Character", "5 Dot",
//!   "9 Bamboo", "East Wind", "Red Dragon", "White Dragon"; the seasons "Spring" … "Winter";
//!   the flowers "Plum Flower", "Orchid Flower", "Bamboo Flower", "Chrysanthemum Flower". Several
//!   of one tile take an s ("a pung of 5 Dots", "Red Dragons"); a chow is its run
//!   ("3-4-5 Dots"). Hands and modifiers by an English name with the Chinese after it in
//!   parentheses, "half flush (混一色)", because players learn the Chinese names.

use crate::lang::Lang;
use crate::tile::{Suit, Tile};

const NUMERALS: [&str; 9] = ["一", "二", "三", "四", "五", "六", "七", "八", "九"];
const ZH_HONORS: [&str; 7] = ["东风", "南风", "西风", "北风", "白板", "发财", "红中"];
const ZH_FLOWERS: [&str; 8] = ["春", "夏", "秋", "冬", "梅", "兰", "竹", "菊"];
const EN_HONORS: [&str; 7] = [
    "East Wind",
    "South Wind",
    "West Wind",
    "North Wind",
    "White Dragon",
    "Green Dragon",
    "Red Dragon",
];
const EN_FLOWERS: [&str; 8] = [
    "Spring",
    "Summer",
    "Autumn",
    "Winter",
    "Plum Flower",
    "Orchid Flower",
    "Bamboo Flower",
    "Chrysanthemum Flower",
];

fn zh_suit(s: Suit) -> &'static str {
    match s {
        Suit::Characters => "万",
        Suit::Dots => "筒",
        Suit::Bamboo => "条",
        _ => "",
    }
}

fn en_suit(s: Suit) -> &'static str {
    match s {
        Suit::Characters => "Character",
        Suit::Dots => "Dot",
        Suit::Bamboo => "Bamboo",
        _ => "",
    }
}

/// One tile as a player names it: 七筒 / "7 Dot", 红中 / "Red Dragon", 梅 / "Plum Flower".
pub fn tile(t: Tile, lang: Lang) -> String {
    let n = t.number() as usize;
    let i = n.clamp(1, 9) - 1;
    match (lang, t.suit()) {
        (Lang::Zh, Suit::Honors) => ZH_HONORS[i.min(6)].to_string(),
        (Lang::Zh, Suit::Flowers) => ZH_FLOWERS[i.min(7)].to_string(),
        (Lang::Zh, s) => format!("{}{}", NUMERALS[i], zh_suit(s)),
        (Lang::En, Suit::Honors) => EN_HONORS[i.min(6)].to_string(),
        (Lang::En, Suit::Flowers) => EN_FLOWERS[i.min(7)].to_string(),
        (Lang::En, s) => format!("{n} {}", en_suit(s)),
    }
}

/// Several of one tile: 七筒 / "7 Dots", "Red Dragons" (中文 has no plural).
pub fn tiles_of(t: Tile, lang: Lang) -> String {
    let one = tile(t, lang);
    match lang {
        Lang::Zh => one,
        Lang::En => format!("{one}s"),
    }
}

/// A group of tiles as one name: a run (a chow) as 三四五筒 / "3-4-5 Dots", several of one tile
/// as [`tiles_of`], one tile as [`tile`]; anything else tile by tile, spaced.
pub fn group(tiles: &[Tile], lang: Lang) -> String {
    let Some(&first) = tiles.first() else {
        return String::new();
    };
    if tiles.len() == 1 {
        return tile(first, lang);
    }
    if tiles.iter().all(|&t| t == first) {
        return tiles_of(first, lang);
    }
    let run = first.is_suited()
        && tiles
            .windows(2)
            .all(|w| w[0].suit() == w[1].suit() && w[1].number() == w[0].number() + 1);
    if !run {
        return tiles
            .iter()
            .map(|&t| tile(t, lang))
            .collect::<Vec<_>>()
            .join(if lang == Lang::Zh { "、" } else { ", " });
    }
    match lang {
        Lang::Zh => {
            let nums: String = tiles
                .iter()
                .map(|t| NUMERALS[(t.number() as usize).clamp(1, 9) - 1])
                .collect();
            format!("{nums}{}", zh_suit(first.suit()))
        }
        Lang::En => {
            let nums: Vec<String> = tiles.iter().map(|t| t.number().to_string()).collect();
            format!("{} {}s", nums.join("-"), en_suit(first.suit()))
        }
    }
}

/// A hand or modifier id of the rules (`qingyise`) named in `lang`: 清一色, "full flush (清一色)".
/// A name says what the hand is, never what it is worth (the worth depends on the options and
/// is stated beside it).
pub fn pattern(id: &str, lang: Lang) -> Option<&'static str> {
    Some(match lang {
        Lang::Zh => crate::explain_text::chinese_name(id)?,
        Lang::En => match id {
            "pinghu" => "plain hand (平胡)",
            "dadiaoche" => "big hanging wait (大吊车)",
            "pengpenghu" => "all pungs (碰碰胡)",
            "hunyise" => "half flush (混一色)",
            "qingyise" => "full flush (清一色)",
            "hunpeng" => "half flush, all pungs (混碰)",
            "bahuaqi" => "all eight flowers (八花齐)",
            "ziyise" => "all honors (字一色)",
            "fengyise" => "all winds and dragons (风一色)",
            "qingpeng" => "full flush, all pungs (清碰)",
            "fengpeng" => "honor pungs (风碰)",
            "sibaida" => "four wildcards (四百搭)",
            "menqing" => "concealed hand (门清)",
            "gangkai" => "win on a replacement draw (杠开)",
            "kaibao" => "dice double (开宝)",
            "huangfan" => "drawn-hand bonus (荒番)",
            "qianggang" => "robbing a kong (抢杠)",
            "dadiao" => "single wait, four melds (大吊)",
            "paobaida" => "wildcard wins on any tile (跑百搭)",
            "wubaida" => "no wildcard (无百搭)",
            _ => return None,
        },
    })
}

/// A count with its noun in the right number: `count(1, "fan", "fan")` is "1 fan",
/// `count(2, "claim", "claims")` "2 claims".
pub fn count(n: impl Into<u64>, one: &str, many: &str) -> String {
    let n = n.into();
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The hand and modifier ids of the rules (pinyin), which a player never reads.
pub const PATTERN_IDS: [&str; 20] = [
    "pinghu",
    "dadiaoche",
    "pengpenghu",
    "hunyise",
    "qingyise",
    "hunpeng",
    "bahuaqi",
    "ziyise",
    "fengyise",
    "qingpeng",
    "fengpeng",
    "sibaida",
    "menqing",
    "gangkai",
    "kaibao",
    "huangfan",
    "qianggang",
    "dadiao",
    "paobaida",
    "wubaida",
];

/// Nouns counted in the texts, singular and plural: "1 hand", "2 hands".
const COUNTED: [(&str, &str); 10] = [
    ("hand", "hands"),
    ("flower", "flowers"),
    ("claim", "claims"),
    ("point", "points"),
    ("tile", "tiles"),
    ("discard", "discards"),
    ("coin", "coins"),
    ("seat", "seats"),
    ("second", "seconds"),
    ("wildcard", "wildcards"),
];

/// `text` with each counted noun after a lone 1 in the singular ("1 hands" → "1 hand"): for
/// English templates whose count is filled in ("{0} hands").
pub fn agree(text: &str) -> String {
    let mut out = text.to_string();
    for (one, many) in COUNTED.iter().chain(&[
        ("player", "players"),
        ("step", "steps"),
        ("byte", "bytes"),
        ("signature", "signatures"),
        ("result", "results"),
        ("decision", "decisions"),
        ("mistake", "mistakes"),
        ("time", "times"),
    ]) {
        let from = format!("1 {many}");
        let mut at = 0;
        while let Some(i) = out[at..].find(&from) {
            let i = at + i;
            let end = i + from.len();
            let before_ok = i == 0 || !out.as_bytes()[i - 1].is_ascii_alphanumeric();
            let after_ok = end == out.len() || !out.as_bytes()[end].is_ascii_alphanumeric();
            if before_ok && after_ok {
                out.replace_range(i..end, &format!("1 {one}"));
                at = i + 2 + one.len();
            } else {
                at = end;
            }
        }
    }
    out
}

/// Each number followed by one space and a word: ("1", "hands").
fn counted_words(text: &str) -> Vec<(u64, &str)> {
    let mut out = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() && (i == 0 || !b[i - 1].is_ascii_alphanumeric()) {
            let start = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            if i + 1 < b.len() && b[i] == b' ' && b[i + 1].is_ascii_alphabetic() {
                let w0 = i + 1;
                let mut j = w0;
                while j < b.len() && b[j].is_ascii_alphabetic() {
                    j += 1;
                }
                if let Ok(n) = text[start..i].parse() {
                    out.push((n, &text[w0..j]));
                }
            }
        } else {
            i += 1;
        }
    }
    out
}

/// What reads wrong in a text shown to a player of `lang`, if anything (docs/texts.md): in
/// 中文 和 for a win (胡), a seat number (座位0), tiles in notation (`5z`), a pinyin id, Latin
/// letters outside the formulas (P, V, M, S); in English a number with the wrong number of
/// its noun ("1 hands", "2 flower"), the old lower-case tile names ("1 characters",
/// "discard 1 dots"), a tile named twice in a row, a tile called a flower ("flower green
/// dragon"), tiles in notation, a pinyin id outside parentheses or Chinese outside them.
/// Seat names are the caller's to leave out (they are the players' own).
pub fn awkward(text: &str, lang: Lang) -> Option<String> {
    let words: Vec<&str> = text
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    for w in &words {
        let b = w.as_bytes();
        if b.len() == 2 && b[0].is_ascii_digit() && b"mpszf".contains(&b[1]) {
            return Some(format!("a tile in notation: {w}"));
        }
    }
    match lang {
        Lang::Zh => {
            for bad in ["和牌", "和了", "能和", "和张", "自摸和", "抢杠和", "座位"]
            {
                if text.contains(bad) {
                    return Some(format!("{bad}: 胡 for a win, players by wind and name"));
                }
            }
            for w in &words {
                if w.chars().any(|c| c.is_ascii_alphabetic())
                    && !matches!(*w, "P" | "V" | "S" | "M" | "min")
                {
                    return Some(format!("Latin letters in 中文: {w}"));
                }
            }
        }
        Lang::En => {
            let mut depth = 0i32;
            for c in text.chars() {
                match c {
                    '(' | '（' => depth += 1,
                    ')' | '）' => depth -= 1,
                    _ if depth == 0 && ('\u{4e00}'..='\u{9fff}').contains(&c) => {
                        return Some(format!("Chinese outside parentheses: {c}"));
                    }
                    _ => {}
                }
            }
            let lower = text.to_lowercase();
            for (n, noun) in counted_words(text) {
                if ["characters", "dots", "bamboo", "character", "dot"].contains(&noun) {
                    return Some(format!("a tile in lower case: {n} {noun}"));
                }
                for (one, many) in COUNTED {
                    if (n == 1 && noun == many) || (n != 1 && noun == one) {
                        return Some(format!("{n} {noun}"));
                    }
                }
            }
            for t in Tile::all() {
                let name = tile(t, Lang::En);
                if text.contains(&format!("{name} {name}")) {
                    return Some(format!("{name} named twice"));
                }
                if !t.is_flower() && lower.contains(&format!("flower {}", name.to_lowercase())) {
                    return Some(format!("a tile called a flower: flower {name}"));
                }
            }
            // Pinyin ids only in parentheses after the English name.
            let outside: String = {
                let mut d = 0i32;
                text.chars()
                    .filter(|&c| {
                        match c {
                            '(' => d += 1,
                            ')' => d -= 1,
                            _ => {}
                        }
                        d == 0
                    })
                    .collect()
            };
            for id in PATTERN_IDS {
                if outside
                    .split(|c: char| !c.is_ascii_alphanumeric())
                    .any(|w| w == id)
                {
                    return Some(format!("the pinyin id {id}"));
                }
            }
        }
    }
    if lang == Lang::Zh {
        for id in PATTERN_IDS {
            if words.contains(&id) {
                return Some(format!("the pinyin id {id}"));
            }
        }
    }
    None
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::tile::parse_tiles;

    #[test]
    fn tiles_are_named_as_players_say_them() {
        let t = |s: &str| parse_tiles(s).unwrap();
        assert_eq!(tile(t("7p")[0], Lang::Zh), "七筒");
        assert_eq!(tile(t("7p")[0], Lang::En), "7 Dot");
        assert_eq!(tile(t("1m")[0], Lang::En), "1 Character");
        assert_eq!(tile(t("9s")[0], Lang::Zh), "九条");
        assert_eq!(tile(t("7z")[0], Lang::Zh), "红中");
        assert_eq!(tile(t("6z")[0], Lang::En), "Green Dragon");
        assert_eq!(tile(t("5f")[0], Lang::En), "Plum Flower");
        assert_eq!(group(&t("345p"), Lang::En), "3-4-5 Dots");
        assert_eq!(group(&t("345p"), Lang::Zh), "三四五筒");
        assert_eq!(group(&t("777z"), Lang::En), "Red Dragons");
        assert_eq!(group(&t("111m"), Lang::Zh), "一万");
        assert_eq!(count(1u32, "fan", "fan"), "1 fan");
        assert_eq!(count(3u32, "claim", "claims"), "3 claims");
        assert_eq!(
            agree("1 hands, 11 hands, 1 players"),
            "1 hand, 11 hands, 1 player"
        );
    }

    #[test]
    fn the_awkward_patterns_are_caught() {
        let bad_en = [
            "Seat 0 won by self-draw, drawing 1 characters 1 characters.",
            "flowers 2: flower green dragon 1",
            "discard 1 dots",
            "set-up agreed: qiaoma, 1 hands",
            "he holds 3 flower",
            "tiles 5z 5z",
            "Chinese 胡 outside",
            "Red Dragon Red Dragon",
            "menqing ×2",
        ];
        for b in bad_en {
            assert!(awkward(b, Lang::En).is_some(), "{b}");
        }
        let bad_zh = [
            "西 老王 和 北 阿明 打出的 七筒（点炮）和牌。",
            "座位0 付 座位1",
            "自摸 5z",
            "清一色 (qingyise)",
        ];
        for b in bad_zh {
            assert!(awkward(b, Lang::Zh).is_some(), "{b}");
        }
        assert_eq!(
            awkward("East Ann won on North Bo's discard of the 7 Dot.", Lang::En),
            None
        );
        assert_eq!(
            awkward(
                "  Flowers: 3 = base flower 1 + pung of Red Dragons 2",
                Lang::En
            ),
            None
        );
        assert_eq!(
            awkward("北 阿明 打出七筒点炮，西 老王 胡了。", Lang::Zh),
            None
        );
    }

    #[test]
    fn every_tile_and_pattern_has_a_name_in_both_languages() {
        for t in Tile::all() {
            let (zh, en) = (tile(t, Lang::Zh), tile(t, Lang::En));
            assert!(!zh.is_empty() && !zh.is_ascii(), "{t}: {zh}");
            assert!(en.is_ascii() && en.len() > 3, "{t}: {en}");
        }
        for id in PATTERN_IDS {
            assert!(pattern(id, Lang::Zh).is_some(), "{id}");
            let en = pattern(id, Lang::En).unwrap();
            assert!(!en.contains('×'), "a name states no worth: {en}");
        }
    }
}
