//! An [`Explanation`] as text, in 中文 or English: one [`Catalogue`] of phrases per language
//! and one renderer ([`render`]) shared by the command line and the terminal game. A front
//! end that draws its own widgets can reuse [`label`], the catalogues, or mirror them.
//!
//! About 840 lines, most of them the two phrase catalogues side by side: a phrase and its
//! translation are changed together.
//!
//! Hands and modifiers are shown by their Chinese name with the id (`清一色 (qingyise)`) in
//! both languages; the lines are wrapped to fit 80 columns (a CJK character counts as two).

use crate::explain::{
    BoundRow, Effect, Explanation, FlowerSource, HandEnd, Modifier, ShareReason, ValueBasis,
    WinnerExplanation,
};
use crate::hand::{MeldShape, MeldType};
use crate::options::BindingRule;
use crate::scoring::{Money, WinKind};
use crate::tile::{Tile, format_tiles};

pub use crate::lang::Lang;

/// Every phrase of an explanation in one language. `{x}` marks where a value goes.
#[derive(Debug)]
pub struct Catalogue {
    /// A seat: `{s}`.
    pub seat: &'static str,
    /// Joins two or more seats.
    pub and: &'static str,
    /// List separator.
    pub sep: &'static str,
    /// `{w}` won by self-draw of `{tile}`.
    pub self_draw: &'static str,
    /// `{w}` won on `{from}`'s discard of `{tile}`.
    pub discard: &'static str,
    /// `{w}` robbed `{from}`'s kong of `{tile}`.
    pub rob_kong: &'static str,
    /// `{w}` holds the eight flowers.
    pub eight_flowers: &'static str,
    /// `{w}` holds the four wildcards.
    pub four_wildcards: &'static str,
    /// `{s}` left the hand.
    pub leaver: &'static str,
    /// Winner heading: `{w}`, `{hand}`.
    pub winner: &'static str,
    /// The hand's tiles: `{tiles}`.
    pub tiles: &'static str,
    /// Meld names: chow, pung, claimed kong, added kong, concealed kong.
    pub melds: [&'static str; 5],
    /// Flowers `{n}`: followed by the items.
    pub flowers: &'static str,
    /// No flower.
    pub no_flowers: &'static str,
    /// 底花.
    pub base_flower: &'static str,
    /// A flower tile `{t}`.
    pub flower_tile: &'static str,
    /// A concealed pung of `{t}`.
    pub concealed_pung: &'static str,
    /// A wildcard `{t}`.
    pub wildcard: &'static str,
    /// P = base + flowers: `{b}`, `{f}`, `{p}`.
    pub points: &'static str,
    /// P = flowers (`baida`): `{p}`.
    pub points_flowers: &'static str,
    /// Rows the hand fits (followed by the rows).
    pub rows: &'static str,
    /// Row value V = P.
    pub basis_points: &'static str,
    /// Row value P, at most a lezi: `{l}`.
    pub basis_up_to_lezi: &'static str,
    /// Row value `{n}` lezi.
    pub basis_lezi: &'static str,
    /// The value V: `{v}`.
    pub value: &'static str,
    /// The value V, the highest of several rows: `{v}`.
    pub value_highest: &'static str,
    /// Modifiers (followed by them).
    pub modifiers: &'static str,
    /// None.
    pub none: &'static str,
    /// Effect "at least `{n}`".
    pub at_least: &'static str,
    /// Effect `{n}` fan.
    pub fan: &'static str,
    /// Effect +`{n}` flowers: `{n}`, `{flowers}` the noun in its number.
    pub plus_flowers: &'static str,
    /// The noun "flower", one and several.
    pub flower_nouns: [&'static str; 2],
    /// A meld: its name `{m}` and its tiles `{t}`.
    pub meld: &'static str,
    /// The cap doubled by a modifier `{m}`.
    pub cap_doubled: &'static str,
    /// A row the hand fits: `{hand}` and its value `{basis}`.
    pub row: &'static str,
    /// Separates the rows (a hand's English name may hold a comma).
    pub row_sep: &'static str,
    /// One flower item: `{what}` gives `{n}`.
    pub flower_item: &'static str,
    /// The article before a meld or pattern named as a flower item.
    pub the: &'static str,
    /// Effect of 抢杠.
    pub paid_by_kong_player: &'static str,
    /// A modifier with no effect here.
    pub no_effect: &'static str,
    /// Fan counted: `{n}`.
    pub fan_total: &'static str,
    /// Fan counted `{n}` where the patterns give `{sum}` (at most 3).
    pub fan_capped: &'static str,
    /// V × M: `{v}`, `{m}`, `{u}`.
    pub times: &'static str,
    /// The cap: `{c}` lezi = `{p}`, then `{why}`.
    pub cap: &'static str,
    /// The row's own cap `{n}`.
    pub cap_row: &'static str,
    /// 门清 raises the cap to 2 lezi.
    pub cap_menqing: &'static str,
    /// The table limit `{n}`.
    pub table_limit: &'static str,
    /// S = `{s}`.
    pub score: &'static str,
    /// S bounded by the cap.
    pub by_cap: &'static str,
    /// S bounded by the table limit.
    pub by_limit: &'static str,
    /// Heading of the shares.
    pub who_pays: &'static str,
    /// `{p}` pays `{q}` `{amount}`: `{units}` × S `{s}`, `{why}`.
    pub share: &'static str,
    /// `{p}` pays `{q}` `{amount}`: `{why}` (leaver).
    pub share_plain: &'static str,
    /// Reason: a self-draw.
    pub why_self_draw: &'static str,
    /// Reason: the discarder.
    pub why_discarder: &'static str,
    /// Reason: the kong player robbed.
    pub why_kong_robbed: &'static str,
    /// Reason: a binding row `{row}` of `{rule}`: the winner `{w}` claimed `{wc}` of the
    /// bound seat `{r}`'s discards and `{r}` claimed `{bc}` of `{w}`'s, `{n}` in all.
    pub why_bound: &'static str,
    /// Names of 承包 and 吃三口.
    pub rules: [&'static str; 2],
    /// The rows of the binding tables, in [`BoundRow`] order.
    pub bound_rows: [&'static str; 9],
    /// Reason: the leaver's penalty of `{n}` stakes.
    pub why_leaver: &'static str,
    /// …doubled by 荒番.
    pub why_leaver_huangfan: &'static str,
    /// Coins are points × stake `{x}`.
    pub stake: &'static str,
    /// Totals (followed by each seat's).
    pub result: &'static str,
}

/// English.
pub const EN: Catalogue = Catalogue {
    seat: "seat {s}",
    and: " and ",
    sep: ", ",
    self_draw: "{w} won by self-draw on the {tile}.",
    discard: "{w} won on {from}'s discard of the {tile}.",
    rob_kong: "{w} won by robbing {from}'s added kong of the {tile} (抢杠).",
    eight_flowers: "{w} holds all eight flowers (八花齐): a win paid as a self-draw.",
    four_wildcards: "{w} holds all four wildcards (四百搭): a win paid as a self-draw.",
    leaver: "{s} left the hand in play.",
    winner: "{w}: {hand}",
    tiles: "Hand: {tiles}",
    melds: ["chow", "pung", "kong", "added kong", "concealed kong"],
    flowers: "Flowers: {n} = ",
    no_flowers: "Flowers: none",
    base_flower: "the base flower",
    flower_tile: "the {t}",
    concealed_pung: "the concealed pung of {t}",
    wildcard: "a wildcard",
    points: "Points: P = base {b} + flowers {f} = {p}",
    points_flowers: "Points: P = flowers = {p}",
    rows: "Hands it fits: ",
    basis_points: "V = P = {v}",
    basis_up_to_lezi: "V = P, at most 1 lezi ({l}) = {v}",
    basis_lezi: "{n} lezi = {v}",
    value: "Value: V = {v}",
    value_highest: "Value: V = {v}, the highest of these",
    modifiers: "Modifiers: ",
    none: "none",
    at_least: "V at least {n}",
    fan: "+{n} fan",
    plus_flowers: "+{n} {flowers}",
    flower_nouns: ["flower", "flowers"],
    meld: "{m} of {t}",
    cap_doubled: "doubled by the {m}",
    flower_item: "{n} for {what}",
    row: "{hand}: {basis}",
    row_sep: "; ",
    the: "the ",
    paid_by_kong_player: "paid as a self-draw by the kong player",
    no_effect: "(no effect here)",
    fan_total: "Fan: {n} in all",
    fan_capped: "Fan: {n} in all (the patterns give {sum}; at most 3 count)",
    times: "V × M = {v} × {m} = {u}",
    cap: "cap {c} lezi = {p} ({why})",
    cap_row: "the hand's own cap {n}",
    cap_menqing: "raised to 2 by the concealed hand (门清)",
    table_limit: "table limit {n}",
    score: "S = {s}",
    by_cap: ", held to the cap",
    by_limit: ", held to the table limit",
    who_pays: "Who pays:",
    share: "{p} pays {q} {amount} ({units} × {s} points): {why}.",
    share_plain: "{p} pays {q} {amount}: {why}.",
    why_self_draw: "the self-draw",
    why_discarder: "the discard won",
    why_kong_robbed: "the kong was robbed",
    why_bound: "{row}; {w} and {r} are bound ({rule}): {w} claimed {wc} of {r}'s discards and {r} claimed {bc} of {w}'s, {n} in all",
    rules: ["承包", "吃三口"],
    bound_rows: [
        "the self-draw, paid in full by the bound seat",
        "the self-draw",
        "the bound seat discarded the winning tile",
        "the discard of a third seat not declared ready",
        "the discard of a third seat",
        "the bound seat pays along with the discarder",
        "one discard won for both bound seats",
        "the robbed kong, paid by its player",
        "the robbed kong, the bound seat paying too",
    ],
    why_leaver: "the penalty for leaving, {n} × the stake, shared by the other three",
    why_leaver_huangfan: ", doubled after a drawn hand (荒番)",
    stake: "(coins = points × the stake of {x})",
    result: "Result: ",
};

/// 中文.
pub const ZH: Catalogue = Catalogue {
    seat: "座位{s}",
    and: "、",
    sep: "，",
    self_draw: "{w} 自摸{tile}，胡了。",
    discard: "{from} 打出{tile}点炮，{w} 胡了。",
    rob_kong: "{from} 加杠{tile}，{w} 抢杠胡了。",
    eight_flowers: "{w} 八花齐胡了，按自摸计。",
    four_wildcards: "{w} 四百搭胡了，按自摸计。",
    leaver: "{s} 中途离开。",
    winner: "{w}：{hand}",
    tiles: "手牌：{tiles}",
    melds: ["吃", "碰", "明杠", "加杠", "暗杠"],
    flowers: "花 {n} = ",
    no_flowers: "没有花",
    base_flower: "底花",
    flower_tile: "{t}",
    concealed_pung: "暗刻{t}",
    wildcard: "百搭",
    points: "点数：P = 底分 {b} + 花 {f} = {p}",
    points_flowers: "点数：P = 花 = {p}",
    rows: "可算牌型：",
    basis_points: "V = P = {v}",
    basis_up_to_lezi: "V = P，最多 1 勒子（{l}）= {v}",
    basis_lezi: "{n} 勒子 = {v}",
    value: "牌值：V = {v}",
    value_highest: "牌值：V = {v}（取最高的牌型）",
    modifiers: "加成：",
    none: "无",
    at_least: "V 至少 {n}",
    fan: "+{n} 番",
    plus_flowers: "+{n} 花",
    flower_nouns: ["花", "花"],
    meld: "{m}{t}",
    cap_doubled: "{m}翻倍",
    flower_item: "{what} {n}",
    row: "{hand} {basis}",
    row_sep: "，",
    the: "",
    paid_by_kong_player: "按自摸计，由杠牌者付",
    no_effect: "（此处不计）",
    fan_total: "番：共 {n} 番",
    fan_capped: "番：共 {n} 番（合计 {sum} 番，最多算 3 番）",
    times: "V × M = {v} × {m} = {u}",
    cap: "封顶 {c} 勒子 = {p}（{why}）",
    cap_row: "牌型本身 {n} 勒子",
    cap_menqing: "门清提到 2 勒子",
    table_limit: "单局封顶 {n}",
    score: "S = {s}",
    by_cap: "（到封顶）",
    by_limit: "（到单局封顶）",
    who_pays: "付分：",
    share: "{p} 付给 {q} {amount}（{units} × {s} 分）：{why}。",
    share_plain: "{p} 付给 {q} {amount}：{why}。",
    why_self_draw: "自摸",
    why_discarder: "点炮",
    why_kong_robbed: "被抢杠",
    why_bound: "{row}。{w} 与 {r} {rule}：{w} 吃碰 {r} 的牌 {wc} 口，{r} 吃碰 {w} 的牌 {bc} 口，共 {n} 口",
    rules: ["承包", "吃三口"],
    bound_rows: [
        "自摸，全由承包的一家付",
        "自摸",
        "承包的一家点炮",
        "没敲的第三家点炮",
        "第三家点炮",
        "承包的一家与点炮的一家同付",
        "一炮两响，两家互相承包",
        "被抢杠，由杠牌者付",
        "被抢杠，承包的一家也付",
    ],
    why_leaver: "中途离开的罚分，{n} 倍底注，由其他三家平分",
    why_leaver_huangfan: "，荒番翻倍",
    stake: "（钱 = 点数 × 底注 {x}）",
    result: "结果：",
};

/// The catalogue of a language.
pub fn catalogue(lang: Lang) -> &'static Catalogue {
    match lang {
        Lang::En => &EN,
        Lang::Zh => &ZH,
    }
}

/// How an explanation names what it shows: the seats, the tiles and the hands. The plain
/// style ([`Style::plain`], used by `mahjong score --explain`) numbers the seats (`seat 1`,
/// `座位1`), writes tiles in notation (`5z`) and hands as `清一色 (qingyise)`; a front end
/// that knows the players passes its own seat namer and [`Style::named`] tiles and hands, so
/// that a 中文 settlement reads `西 小明`, `白板` and `清一色`, never `座位0`, `5z` or a
/// pinyin id (docs/texts.md).
pub struct Style<'a> {
    /// The language of the sentences.
    pub lang: Lang,
    /// A seat's name.
    pub seat: Box<dyn Fn(u8) -> String + 'a>,
    /// Tiles named as players say them ([`crate::names`]); else in notation, grouped by suit
    /// (`123m 55p`), for a player who chose the notation faces or a settlement file.
    pub named_tiles: bool,
    /// A hand or modifier id's name (`qingyise`).
    pub label: Box<dyn Fn(&str) -> String + 'a>,
}

impl Style<'static> {
    /// Seats by number, tiles in notation, hands by Chinese name and id.
    pub fn plain(lang: Lang) -> Style<'static> {
        let c = catalogue(lang);
        Style {
            lang,
            seat: Box::new(move |s| fill(c.seat, &[("s", &s.to_string())])),
            named_tiles: false,
            label: Box::new(label),
        }
    }
}

impl<'a> Style<'a> {
    /// Seats by `seat`, tiles (in names or in notation) and hands named in `lang`
    /// ([`crate::names`]): the style of the app and the terminal game.
    pub fn named(lang: Lang, seat: impl Fn(u8) -> String + 'a, named_tiles: bool) -> Style<'a> {
        Style {
            lang,
            seat: Box::new(seat),
            named_tiles,
            label: Box::new(move |id| {
                crate::names::pattern(id, lang).map_or_else(|| label(id), str::to_string)
            }),
        }
    }
}

impl Style<'_> {
    fn c(&self) -> &'static Catalogue {
        catalogue(self.lang)
    }

    fn seat(&self, s: u8) -> String {
        (self.seat)(s)
    }

    fn seats(&self, list: &[u8]) -> String {
        let names: Vec<String> = list.iter().map(|&s| self.seat(s)).collect();
        names.join(self.c().and)
    }

    fn tile(&self, t: Tile) -> String {
        if self.named_tiles {
            crate::names::tile(t, self.lang)
        } else {
            t.to_string()
        }
    }

    /// Tiles of one group (a meld, a pung): `555p` in notation, else one name, `5 Dots`.
    fn tiles(&self, tiles: &[Tile]) -> String {
        if self.named_tiles {
            crate::names::group(tiles, self.lang)
        } else {
            format_tiles(tiles)
        }
    }

    fn label(&self, id: &str) -> String {
        (self.label)(id)
    }
}

/// The Chinese name of a hand or modifier id (`qingyise` → 清一色), if it is one.
pub fn chinese_name(id: &str) -> Option<&'static str> {
    Some(match id {
        "pengpenghu" => "碰碰胡",
        "hunyise" => "混一色",
        "qingyise" => "清一色",
        "hunpeng" => "混碰",
        "qingpeng" => "清碰",
        "fengyise" => "风一色",
        "ziyise" => "字一色",
        "fengpeng" => "风碰",
        "bahuaqi" => "八花齐",
        "dadiaoche" => "大吊车",
        "pinghu" => "平胡",
        "sibaida" => "四百搭",
        "wubaida" => "无百搭",
        "paobaida" => "跑百搭",
        "dadiao" => "大吊",
        "gangkai" => "杠开",
        "menqing" => "门清",
        "kaibao" => "开宝",
        "huangfan" => "荒番",
        "qianggang" => "抢杠",
        _ => return None,
    })
}

/// A hand or modifier as shown: its Chinese name and id, `清一色 (qingyise)`.
pub fn label(id: &str) -> String {
    match chinese_name(id) {
        Some(zh) => format!("{zh} ({id})"),
        None => id.to_string(),
    }
}

/// Replaces each `{key}` of a template.
fn fill(template: &str, args: &[(&str, &str)]) -> String {
    let mut out = template.to_string();
    for (k, v) in args {
        out = out.replace(&format!("{{{k}}}"), v);
    }
    out
}

/// Columns a string takes on a terminal (CJK and full-width characters take two).
pub fn columns(s: &str) -> usize {
    s.chars()
        .map(|c| {
            let u = c as u32;
            let wide = matches!(u, 0x1100..=0x115F | 0x2E80..=0xA4CF | 0xAC00..=0xD7A3
                | 0xF900..=0xFAFF | 0xFE30..=0xFE4F | 0xFF00..=0xFF60 | 0xFFE0..=0xFFE6);
            if wide { 2 } else { 1 }
        })
        .sum()
}

/// `head` followed by `items` joined by `sep`, wrapped to `width` columns; continuation
/// lines are indented by `indent` spaces.
pub fn wrap(head: &str, items: &[String], sep: &str, width: usize, indent: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = head.to_string();
    let pad = " ".repeat(indent);
    for (i, it) in items.iter().enumerate() {
        let piece = if i + 1 < items.len() {
            format!("{it}{}", sep.trim_end())
        } else {
            it.clone()
        };
        let gap = if i == 0 || sep.ends_with(' ') {
            " "
        } else {
            ""
        };
        let candidate = if i == 0 {
            format!("{line}{piece}")
        } else {
            format!("{line}{gap}{piece}")
        };
        if columns(&candidate) > width && columns(&line) > indent && i > 0 {
            lines.push(line);
            line = format!("{pad}{piece}");
        } else {
            line = candidate;
        }
    }
    lines.push(line);
    lines
}

/// A meld as shown: its name and tiles, `pung 777z`.
pub fn meld_text(c: &Catalogue, m: &MeldShape) -> String {
    fill(
        c.meld,
        &[
            ("m", meld_name(c, m.kind)),
            ("t", &format_tiles(&m.tiles())),
        ],
    )
}

fn meld_styled(st: &Style, m: &MeldShape) -> String {
    let tiles = m.tiles();
    // A kong is named by three of its tiles' name: "kong of 5 Dots", 明杠五筒.
    let t = if st.named_tiles {
        st.tiles(&tiles[..3.min(tiles.len())])
    } else {
        format_tiles(&tiles)
    };
    fill(st.c().meld, &[("m", meld_name(st.c(), m.kind)), ("t", &t)])
}

fn meld_name(c: &Catalogue, kind: MeldType) -> &'static str {
    let i = match kind {
        MeldType::Chow => 0,
        MeldType::Pung => 1,
        MeldType::ClaimedKong => 2,
        MeldType::AddedKong => 3,
        MeldType::ConcealedKong => 4,
    };
    c.melds[i]
}

/// A signed amount: `+9`, `-9`, `0`.
pub fn signed(m: Money) -> String {
    if m.0 > 0 {
        format!("+{m}")
    } else {
        m.to_string()
    }
}

fn effect(c: &Catalogue, e: &Effect) -> String {
    let noun = |n: u32| c.flower_nouns[usize::from(n != 1)];
    match *e {
        Effect::Times { times } => format!("×{times}"),
        Effect::AtLeast { points } => fill(c.at_least, &[("n", &points.to_string())]),
        Effect::Fan { fan } => fill(c.fan, &[("n", &fan.to_string())]),
        Effect::Flowers { flowers } => fill(
            c.plus_flowers,
            &[("n", &flowers.to_string()), ("flowers", noun(flowers))],
        ),
        Effect::PaidByKongPlayer => c.paid_by_kong_player.to_string(),
        Effect::None => c.no_effect.to_string(),
    }
}

fn modifier(st: &Style, m: &Modifier) -> String {
    format!("{} {}", st.label(m.id.id()), effect(st.c(), &m.effect))
}

/// The headline: how the hand ended.
pub fn headline(e: &Explanation, lang: Lang) -> String {
    headline_styled(e, &Style::plain(lang))
}

/// The headline, named in `st`'s style.
pub fn headline_styled(e: &Explanation, st: &Style) -> String {
    let c = st.c();
    let ws: Vec<u8> = e.winners.iter().map(|w| w.seat).collect();
    let tile = e
        .winners
        .first()
        .and_then(|w| w.winning_tile)
        .map(|t| st.tile(t))
        .unwrap_or_default();
    match e.end {
        HandEnd::Leaver { seat: s } => fill(c.leaver, &[("s", &st.seat(s))]),
        HandEnd::Win { kind, from } => {
            let t = match kind {
                WinKind::SelfDraw => c.self_draw,
                WinKind::Discard => c.discard,
                WinKind::RobKong => c.rob_kong,
                WinKind::EightFlowers => c.eight_flowers,
                WinKind::FourWildcards => c.four_wildcards,
            };
            let from = from.map(|f| st.seat(f)).unwrap_or_default();
            fill(
                t,
                &[("w", &st.seats(&ws)), ("from", &from), ("tile", &tile)],
            )
        }
    }
}

/// The winner's tiles: the concealed tiles sorted, then each meld.
pub fn hand_tiles(lang: Lang, concealed: &[Tile], melds: &[MeldShape]) -> String {
    hand_tiles_styled(&Style::plain(lang), concealed, melds)
}

fn hand_tiles_styled(st: &Style, concealed: &[Tile], melds: &[MeldShape]) -> String {
    let mut sorted = concealed.to_vec();
    sorted.sort();
    let mut parts: Vec<String> = Vec::new();
    // One group per suit (and the honors), so that the hand reads as `123m 55p 999s`, or
    // named: 一二三万 五五筒 东风×3, "1 2 3 Characters, 5 5 Dots, East Wind ×3".
    for chunk in sorted.chunk_by(|a, b| a.suit() == b.suit()) {
        if !st.named_tiles {
            parts.push(format_tiles(chunk));
        } else if chunk[0].is_suited() {
            parts.push(suit_group(chunk, st.lang));
        } else {
            for same in chunk.chunk_by(|a, b| a == b) {
                let name = st.tile(same[0]);
                parts.push(match (same.len(), st.lang) {
                    (1, _) => name,
                    (n, Lang::Zh) => format!("{name}×{n}"),
                    (n, Lang::En) => format!("{name} ×{n}"),
                });
            }
        }
    }
    for m in melds {
        parts.push(format!("[{}]", meld_styled(st, m)));
    }
    parts.join(match (st.named_tiles, st.lang) {
        (false, _) => " ",
        (true, Lang::Zh) => "  ",
        (true, Lang::En) => ", ",
    })
}

/// Suited tiles of one suit, sorted, as one name: 一二三三万, "1 2 3 3 Characters", one tile
/// "5 Dot".
fn suit_group(tiles: &[Tile], lang: Lang) -> String {
    if tiles.len() == 1 {
        return crate::names::tile(tiles[0], lang);
    }
    const NUMERALS: [&str; 9] = ["一", "二", "三", "四", "五", "六", "七", "八", "九"];
    let suit = crate::names::tile(tiles[0], lang);
    match lang {
        Lang::Zh => {
            let nums: String = tiles
                .iter()
                .map(|t| NUMERALS[(t.number() as usize).clamp(1, 9) - 1])
                .collect();
            // The suit's character: the last of the one tile's name (五万 → 万).
            format!("{nums}{}", suit.chars().last().unwrap_or_default())
        }
        Lang::En => {
            let nums: Vec<String> = tiles.iter().map(|t| t.number().to_string()).collect();
            // "5 Dot" → "Dots".
            let word = suit.split_once(' ').map_or("", |(_, w)| w);
            format!("{} {word}s", nums.join(" "))
        }
    }
}

fn winner_lines(st: &Style, w: &WinnerExplanation, width: usize) -> Vec<String> {
    let c = st.c();
    let mut out = vec![fill(
        c.winner,
        &[("w", &st.seat(w.seat)), ("hand", &st.label(&w.hand))],
    )];
    let tiles = hand_tiles_styled(st, &w.concealed, &w.melds);
    if !tiles.is_empty() {
        out.push(format!("  {}", fill(c.tiles, &[("tiles", &tiles)])));
    }
    let items: Vec<String> = w
        .flower_items
        .iter()
        .map(|it| {
            let t = it.tile.map(|t| st.tile(t)).unwrap_or_default();
            let what = match it.source {
                FlowerSource::Base => c.base_flower.to_string(),
                FlowerSource::FlowerTile => fill(c.flower_tile, &[("t", &t)]),
                FlowerSource::Meld => match (it.tile, it.meld) {
                    (Some(tile), Some(kind)) => {
                        format!("{}{}", c.the, meld_styled(st, &MeldShape { kind, tile }))
                    }
                    _ => t,
                },
                FlowerSource::ConcealedPung => fill(
                    c.concealed_pung,
                    &[("t", &it.tile.map(|x| st.tiles(&[x; 3])).unwrap_or_default())],
                ),
                FlowerSource::Wildcard => fill(c.wildcard, &[("t", &t)]),
                FlowerSource::Menqing => format!("{}{}", c.the, st.label("menqing")),
            };
            fill(
                c.flower_item,
                &[("what", &what), ("n", &it.flowers.to_string())],
            )
        })
        .collect();
    let head = format!("  {}", fill(c.flowers, &[("n", &w.flowers.to_string())]));
    if items.is_empty() {
        out.push(format!("  {}", c.no_flowers));
    } else {
        out.extend(wrap(&head, &items, " + ", width, 4));
    }
    let p = if w.rows.is_empty() {
        fill(c.points_flowers, &[("p", &w.points.to_string())])
    } else {
        fill(
            c.points,
            &[
                ("b", &w.base.to_string()),
                ("f", &w.flowers.to_string()),
                ("p", &w.points.to_string()),
            ],
        )
    };
    out.push(format!("  {p}"));
    if !w.rows.is_empty() {
        let rows: Vec<String> = w
            .rows
            .iter()
            .map(|r| {
                let v = r.value.to_string();
                let basis = match r.basis {
                    ValueBasis::Points => fill(c.basis_points, &[("v", &v)]),
                    ValueBasis::PointsUpToLezi { lezi_points } => fill(
                        c.basis_up_to_lezi,
                        &[("l", &lezi_points.to_string()), ("v", &v)],
                    ),
                    ValueBasis::Lezi { lezi, .. } => {
                        fill(c.basis_lezi, &[("n", &lezi.to_string()), ("v", &v)])
                    }
                };
                fill(
                    c.row,
                    &[("hand", &st.label(r.hand.id())), ("basis", &basis)],
                )
            })
            .collect();
        out.extend(wrap(&format!("  {}", c.rows), &rows, c.row_sep, width, 4));
        let t = if w.rows.len() > 1 {
            c.value_highest
        } else {
            c.value
        };
        out.push(format!("  {}", fill(t, &[("v", &w.value.to_string())])));
    }
    let mods: Vec<String> = w.modifiers.iter().map(|m| modifier(st, m)).collect();
    if mods.is_empty() {
        out.push(format!("  {}{}", c.modifiers, c.none));
    } else {
        out.extend(wrap(&format!("  {}", c.modifiers), &mods, c.sep, width, 4));
    }
    if let Some(fan) = w.fan {
        let sum: u32 = w
            .modifiers
            .iter()
            .map(|m| match m.effect {
                Effect::Fan { fan } => fan,
                _ => 0,
            })
            .sum();
        let t = if sum > fan { c.fan_capped } else { c.fan_total };
        out.push(format!(
            "  {}",
            fill(t, &[("n", &fan.to_string()), ("sum", &sum.to_string())])
        ));
    }
    let mut bounds = vec![fill(
        c.times,
        &[
            ("v", &w.value.to_string()),
            ("m", &w.multiplier.to_string()),
            ("u", &w.uncapped.to_string()),
        ],
    )];
    if let Some(cap) = &w.cap {
        let mut why = vec![fill(c.cap_row, &[("n", &cap.base_lezi.to_string())])];
        if cap.menqing {
            why.push(c.cap_menqing.to_string());
        }
        for d in &cap.doubled_by {
            why.push(fill(c.cap_doubled, &[("m", &st.label(d.id()))]));
        }
        bounds.push(fill(
            c.cap,
            &[
                ("c", &cap.lezi.to_string()),
                ("p", &cap.points.to_string()),
                ("why", &why.join(c.sep)),
            ],
        ));
    }
    if let Some(l) = w.table_limit {
        bounds.push(fill(c.table_limit, &[("n", &l.to_string())]));
    }
    let semi = if st.lang == Lang::Zh { "；" } else { "; " };
    out.extend(wrap("  ", &bounds, semi, width, 4));
    let by = match w.limited_by {
        Some(crate::explain::LimitedBy::Cap) => c.by_cap,
        Some(crate::explain::LimitedBy::TableLimit) => c.by_limit,
        None => "",
    };
    out.push(format!(
        "  {}{by}",
        fill(c.score, &[("s", &w.score.to_string())])
    ));
    out
}

fn reason(st: &Style, winner: u8, r: &ShareReason) -> String {
    let c = st.c();
    match *r {
        ShareReason::SelfDraw => c.why_self_draw.into(),
        ShareReason::Discarder => c.why_discarder.into(),
        ShareReason::KongRobbed => c.why_kong_robbed.into(),
        ShareReason::Bound {
            rule,
            row,
            bound,
            winner_claimed,
            bound_claimed,
        } => {
            let rule = match rule {
                BindingRule::Qiaoma => c.rules[0],
                BindingRule::ChiSanKou => c.rules[1],
            };
            let row = c.bound_rows[match row {
                BoundRow::SelfDrawBound => 0,
                BoundRow::SelfDrawOther => 1,
                BoundRow::BoundDiscards => 2,
                BoundRow::ThirdNotReady => 3,
                BoundRow::ThirdPays => 4,
                BoundRow::BoundAlsoPays => 5,
                BoundRow::BothWin => 6,
                BoundRow::RobKongPlayer => 7,
                BoundRow::RobKongBound => 8,
            }];
            fill(
                c.why_bound,
                &[
                    ("rule", rule),
                    ("w", &st.seat(winner)),
                    ("r", &st.seat(bound)),
                    ("n", &(winner_claimed + bound_claimed).to_string()),
                    ("wc", &winner_claimed.to_string()),
                    ("bc", &bound_claimed.to_string()),
                    ("row", row),
                ],
            )
        }
        ShareReason::Leaver { penalty, huangfan } => {
            let mut s = fill(c.why_leaver, &[("n", &penalty.to_string())]);
            if huangfan {
                s.push_str(c.why_leaver_huangfan);
            }
            s
        }
    }
}

/// The whole explanation as lines of at most `width` columns (where words allow).
pub fn render_width(e: &Explanation, lang: Lang, width: usize) -> Vec<String> {
    render_styled(e, &Style::plain(lang), width)
}

/// The whole explanation as lines of at most `width` columns, named in `st`'s style.
pub fn render_styled(e: &Explanation, st: &Style, width: usize) -> Vec<String> {
    let c = st.c();
    let mut out = wrap_words(&capitalised(headline_styled(e, st)), width, 2);
    for w in &e.winners {
        let mut lines = winner_lines(st, w, width);
        if let Some(first) = lines.first_mut() {
            *first = capitalised(std::mem::take(first));
        }
        out.extend(lines);
    }
    out.push(c.who_pays.to_string());
    for sh in &e.shares {
        let why = reason(st, sh.payee, &sh.reason);
        let score = e
            .winners
            .iter()
            .find(|w| w.seat == sh.payee)
            .map(|w| w.score)
            .unwrap_or(0);
        let line = if matches!(sh.reason, ShareReason::Leaver { .. }) {
            fill(
                c.share_plain,
                &[
                    ("p", &st.seat(sh.payer)),
                    ("q", &st.seat(sh.payee)),
                    ("amount", &sh.amount.to_string()),
                    ("why", &why),
                ],
            )
        } else {
            fill(
                c.share,
                &[
                    ("p", &st.seat(sh.payer)),
                    ("q", &st.seat(sh.payee)),
                    ("amount", &sh.amount.to_string()),
                    ("units", &sh.units.to_string()),
                    ("s", &score.to_string()),
                    ("why", &why),
                ],
            )
        };
        out.extend(wrap_words(&format!("  {}", capitalised(line)), width, 4));
    }
    if e.stake != Money::coins(1) {
        out.push(format!(
            "  {}",
            fill(c.stake, &[("x", &e.stake.to_string())])
        ));
    }
    let totals: Vec<String> = (0..4u8)
        .map(|s| format!("{} {}", st.seat(s), signed(e.payments[s as usize])))
        .collect();
    out.extend(wrap(c.result, &totals, c.sep, width, 2));
    // A line still too wide (one long item) is wrapped at its spaces.
    out.into_iter()
        .flat_map(|l| {
            if columns(&l) > width {
                wrap_words(&l, width, 4)
            } else {
                vec![l]
            }
        })
        .collect()
}

/// The whole explanation as lines fitting 80 columns.
pub fn render(e: &Explanation, lang: Lang) -> Vec<String> {
    render_width(e, lang, 80)
}

/// The line with its first letter in capitals (English sentences start with "seat").
fn capitalised(s: String) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) if f.is_ascii_lowercase() => f.to_ascii_uppercase().to_string() + c.as_str(),
        _ => s,
    }
}

/// Wraps one line at spaces (or after CJK punctuation) to `width` columns.
pub fn wrap_words(line: &str, width: usize, indent: usize) -> Vec<String> {
    if columns(line) <= width {
        return vec![line.to_string()];
    }
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut cur_cols = 0;
    let pad = " ".repeat(indent);
    let mut last_break: Option<usize> = None; // byte index in cur after which to break
    for ch in line.chars() {
        let w = columns(ch.encode_utf8(&mut [0; 4]));
        if cur_cols + w > width && !cur.is_empty() {
            let cut = last_break.filter(|&b| b > indent).unwrap_or(cur.len());
            let rest = cur.split_off(cut);
            out.push(cur.trim_end().to_string());
            cur = format!("{pad}{}", rest.trim_start());
            cur_cols = columns(&cur);
            last_break = None;
        }
        cur.push(ch);
        cur_cols += w;
        if matches!(ch, ' ' | '，' | '：' | '；' | '）') {
            last_break = Some(cur.len());
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur);
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn wrapping_keeps_every_line_within_the_width() {
        let items: Vec<String> = (1..=8).map(|i| format!("花牌 {i}f 1")).collect();
        let lines = wrap("  花 8：", &items, ZH.sep, 30, 4);
        assert!(lines.len() > 1);
        assert!(lines.iter().all(|l| columns(l) <= 30), "{lines:?}");
        let long = "  seat 1 pays seat 0 100: 5 × S 20, self-draw, the bound seat pays: bound (承包), seat 0 claimed 2 of seat 1's discards and seat 1 claimed 1 of seat 0's, 3 claims between them";
        let lines = wrap_words(long, 80, 4);
        assert!(lines.len() == 3, "{lines:?}");
        assert!(lines.iter().all(|l| columns(l) <= 80), "{lines:?}");
        assert!(lines[1].starts_with("    "));
    }

    #[test]
    fn labels_give_the_chinese_name_and_the_id() {
        assert_eq!(label("qingyise"), "清一色 (qingyise)");
        assert_eq!(label("menqing"), "门清 (menqing)");
        assert_eq!(columns("清一色 (qingyise)"), 17);
        assert_eq!("zh".parse::<Lang>(), Ok(Lang::Zh));
        assert!("fr".parse::<Lang>().is_err());
    }
}
