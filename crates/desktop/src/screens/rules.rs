//! The rules screen: the chosen preset's options, each with its value and one-line
//! explanation, then the project's rule book (`docs/rules.en.md`, `docs/rules.zh.md`, built
//! into the app) in the current language, as a rule book for players.
//!
//! The documents are the project's reference and name presets, options and hands by their
//! ids (`qiaoma`, `swap_five`, `pengpenghu`), write tiles in notation (`5z`) and describe the
//! settlement file. The screen shows the same documents filtered and reworded by
//! [`for_players`], so that the two never drift apart: a part marked
//! `<!-- docs only -->` … `<!-- /docs only -->` is left out (the notation, the worked
//! examples in notation, the settlement file §8, the §9 table the options panel above
//! replaces); a comment `<!-- app … -->` holds the player's wording put in its place;
//! an id in parentheses after the name it annotates (`碰碰胡（`pengpenghu`）`) is dropped;
//! any other id is replaced by its name in the app's catalogue (`qiaoma` → 敲麻 /
//! Qiaoma (敲麻), `kaibao` → the option editor's "开宝翻倍"); in English a hand's bare Chinese
//! name gets its English name in front (`清一色` → "full flush (清一色)"). A test checks that
//! no id, no notation and no seat number is left.
//!
//! The rule book is Markdown; [`parse`] reads the part of it the documents use (headings,
//! paragraphs, lists, tables, inline code, emphasis and links) into [`Block`]s once per
//! language, and the view draws them with plain text widgets in the bundled font, so 中文 and
//! English read the same on any machine (no Markdown widget, no extra dependency). Opened
//! over the home screen or over a table, which keeps running underneath; Back returns to it.

use crate::i18n::Text;
use std::sync::OnceLock;

use iced::widget::{button, column, container, row, scrollable};
use iced::{Alignment, Element, Length};
use mahjong_rules::{Options, Ruleset};

use super::options::{Opt, Scope, summary};
use super::{ACCENT, MUTED, ON_FELT, action, bold, label, panel, preset_name};
use crate::i18n::{Lang, T};

/// The English rule book.
pub const RULES_EN: &str = include_str!("../../../../docs/rules.en.md");
/// The Chinese rule book.
pub const RULES_ZH: &str = include_str!("../../../../docs/rules.zh.md");

/// A block of the rule book.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Block {
    /// A heading of this level (1–6).
    Heading(u8, String),
    /// A paragraph (its lines joined).
    Paragraph(String),
    /// A list item (`- ` or `1. `), with its marker.
    Item(String, String),
    /// A table: the header row, then the rows.
    Table(Vec<Vec<String>>),
    /// A fenced code block.
    Code(String),
}

/// Inline Markdown to plain text: `code`, **bold**, *emphasis* and [links](…) keep their
/// words only.
pub fn inline(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(c) = rest.chars().next() {
        match c {
            '`' => rest = &rest[1..],
            '*' => rest = &rest[1..],
            '[' => match (rest.find("]("), rest.find(')')) {
                (Some(close), Some(end)) if close < end => {
                    out.push_str(&rest[1..close]);
                    rest = &rest[end + 1..];
                }
                _ => {
                    out.push('[');
                    rest = &rest[1..];
                }
            },
            _ => {
                out.push(c);
                rest = &rest[c.len_utf8()..];
            }
        }
    }
    out
}

fn list_marker(line: &str) -> Option<(String, &str)> {
    let t = line.trim_start();
    if let Some(r) = t.strip_prefix("- ").or_else(|| t.strip_prefix("* ")) {
        return Some(("•".to_string(), r));
    }
    let digits = t.chars().take_while(char::is_ascii_digit).count();
    if digits > 0 && t[digits..].starts_with(". ") {
        return Some((t[..digits + 1].to_string(), &t[digits + 2..]));
    }
    None
}

fn cells(line: &str) -> Vec<String> {
    line.trim()
        .trim_start_matches('|')
        .trim_end_matches('|')
        .split('|')
        .map(|c| inline(c.trim()))
        .collect()
}

/// The rule book `doc` (Markdown) worded for players in `lang`: see the module header.
pub fn for_players(doc: &str, lang: Lang) -> String {
    let mut out = String::with_capacity(doc.len());
    let mut skip = false;
    let mut app = false;
    let mut fenced = false;
    for line in doc.lines() {
        let t = line.trim();
        if t == "<!-- docs only -->" {
            skip = true;
            continue;
        }
        if t == "<!-- /docs only -->" {
            skip = false;
            continue;
        }
        if skip {
            continue;
        }
        if t == "<!-- app" {
            app = true;
            continue;
        }
        if app && t == "-->" {
            app = false;
            continue;
        }
        if t.starts_with("```") {
            fenced = !fenced;
        }
        if fenced || t.starts_with("```") {
            out.push_str(line);
        } else {
            out.push_str(&reword(line, lang));
        }
        out.push('\n');
    }
    out
}

/// An id of the rule book, named: presets, options and hand patterns (what the option
/// editor and the settlement screen call them).
fn id_name(id: &str, lang: Lang) -> Option<String> {
    if let Some(r) = Ruleset::ALL.into_iter().find(|r| r.name() == id) {
        return Some(lang.t(preset_name(r)).to_string());
    }
    if let Some(o) = Opt::named(id) {
        return Some(lang.t(o.text().0).to_string());
    }
    crate::i18n::PATTERNS
        .contains(&id)
        .then(|| hand_name(id, lang))
}

/// A hand pattern's name without the multiplier the settlement screen adds (`×2`).
fn hand_name(id: &str, lang: Lang) -> String {
    let n = lang.pattern(id);
    n.trim_end_matches("×2").trim_end().to_string()
}

/// Whether `id` is an annotation when it stands in parentheses (a hand's or an option's id
/// after its name).
fn annotation(id: &str) -> bool {
    id == "swap_five"
        || Opt::named(id).is_some() && !Ruleset::ALL.iter().any(|r| r.name() == id)
        || crate::i18n::PATTERNS.contains(&id)
}

/// One line of Markdown, its ids named (see the module header).
fn reword(line: &str, lang: Lang) -> String {
    const GONE: char = '\u{0}';
    let mut out = String::with_capacity(line.len());
    let mut depth = 0i32;
    let mut rest = line;
    while let Some(c) = rest.chars().next() {
        match c {
            '(' | '（' => depth += 1,
            ')' | '）' => depth = (depth - 1).max(0),
            _ => {}
        }
        if c == '`'
            && let Some(end) = rest[1..].find('`')
        {
            let id = &rest[1..1 + end];
            if depth > 0 && annotation(id) {
                out.push(GONE);
            } else {
                match id_name(id, lang) {
                    Some(n) => out.push_str(&n),
                    None => {
                        out.push('`');
                        out.push_str(id);
                        out.push('`');
                    }
                }
            }
            rest = &rest[end + 2..];
            continue;
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    // The annotations dropped, with their separators and emptied parentheses.
    for (from, to) in [
        (" (\u{0})", ""),
        ("（\u{0}）", ""),
        ("(\u{0})", ""),
        ("(\u{0}, ", "("),
        ("（\u{0}，", "（"),
        ("（\u{0}、", "（"),
        (", \u{0}, ", ", "),
        ("(\u{0}: ", "("),
        ("，\u{0}，", "，"),
        (", \u{0})", ")"),
        ("，\u{0}）", "）"),
        ("、\u{0}）", "）"),
        (" (id)", ""),
        ("（id）", ""),
    ] {
        out = out.replace(from, to);
    }
    out = out.replace(GONE, "");
    match lang {
        Lang::En => english_hand_names(&out),
        // A name put where an id stood, or an emphasis, keeps no space from its Chinese
        // neighbours (`百搭 中` → `百搭中`, `即 *互为承包* *（解读）*` → `即*互为承包**（解读）*`).
        Lang::Zh => {
            let wide = |c: char| {
                ('\u{4e00}'..='\u{9fff}').contains(&c)
                    || ('\u{3000}'..='\u{303f}').contains(&c)
                    || ('\u{ff00}'..='\u{ffef}').contains(&c)
            };
            let chars: Vec<char> = out.chars().collect();
            let before = |i: usize| chars[..i].iter().rev().find(|&&c| c != '*').copied();
            let after = |i: usize| chars[i + 1..].iter().find(|&&c| c != '*').copied();
            chars
                .iter()
                .enumerate()
                .filter(|&(i, &c)| {
                    !(c == ' ' && before(i).is_some_and(wide) && after(i).is_some_and(wide))
                })
                .map(|(_, &c)| c)
                .collect()
        }
    }
}

/// In English, a hand's Chinese name standing outside parentheses gets its English name in
/// front (`清一色` → `full flush (清一色)`); inside parentheses it stays as it is.
fn english_hand_names(line: &str) -> String {
    let mut names: Vec<(String, &str)> = crate::i18n::PATTERNS
        .iter()
        .map(|&id| (Lang::Zh.pattern(id), id))
        .collect();
    // The longest first: 大吊车 before 大吊.
    names.sort_by_key(|(zh, _)| std::cmp::Reverse(zh.chars().count()));
    let mut out = String::with_capacity(line.len() + 32);
    let mut depth = 0i32;
    let mut rest = line;
    'outer: while let Some(c) = rest.chars().next() {
        match c {
            '(' | '（' => depth += 1,
            ')' | '）' => depth = (depth - 1).max(0),
            _ => {}
        }
        if depth == 0 {
            for (zh, id) in &names {
                if rest.starts_with(zh.as_str()) {
                    out.push_str(&hand_name(id, Lang::En));
                    rest = &rest[zh.len()..];
                    continue 'outer;
                }
            }
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// Reads a Markdown document into blocks.
pub fn parse(doc: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut para: Vec<&str> = Vec::new();
    let mut item: Option<(String, Vec<&str>)> = None;
    let mut table: Vec<Vec<String>> = Vec::new();
    let mut code: Option<Vec<&str>> = None;
    fn flush<'a>(
        blocks: &mut Vec<Block>,
        para: &mut Vec<&'a str>,
        item: &mut Option<(String, Vec<&'a str>)>,
        table: &mut Vec<Vec<String>>,
    ) {
        if !para.is_empty() {
            let raw = join(para);
            // A line that is only a link to the other language's file has no use in the app.
            let only_link =
                raw.starts_with('[') && raw.ends_with(".md)") && !raw.contains("](http");
            if !only_link {
                blocks.push(Block::Paragraph(inline(&raw)));
            }
            para.clear();
        }
        if let Some((m, lines)) = item.take() {
            blocks.push(Block::Item(m, inline(&join(&lines))));
        }
        if !table.is_empty() {
            blocks.push(Block::Table(std::mem::take(table)));
        }
    }
    for line in doc.lines() {
        if let Some(c) = code.as_mut() {
            if line.trim_start().starts_with("```") {
                blocks.push(Block::Code(c.join("\n")));
                code = None;
            } else {
                c.push(line);
            }
            continue;
        }
        let t = line.trim();
        if t.starts_with("```") {
            flush(&mut blocks, &mut para, &mut item, &mut table);
            code = Some(Vec::new());
        } else if t.is_empty() {
            flush(&mut blocks, &mut para, &mut item, &mut table);
        } else if t.starts_with('#') {
            flush(&mut blocks, &mut para, &mut item, &mut table);
            let level = t.chars().take_while(|&c| c == '#').count();
            blocks.push(Block::Heading(
                level.min(6) as u8,
                inline(t[level..].trim()),
            ));
        } else if t.starts_with('|') {
            if !para.is_empty() || item.is_some() {
                flush(&mut blocks, &mut para, &mut item, &mut table);
            }
            let row = cells(t);
            let separator = row
                .iter()
                .all(|c| !c.is_empty() && c.chars().all(|ch| matches!(ch, '-' | ':' | ' ')));
            if !separator {
                table.push(row);
            }
        } else if let Some((marker, rest)) = list_marker(line) {
            flush(&mut blocks, &mut para, &mut item, &mut table);
            item = Some((marker, vec![rest]));
        } else if let Some((_, lines)) = item.as_mut() {
            lines.push(t);
        } else {
            if !table.is_empty() {
                flush(&mut blocks, &mut para, &mut item, &mut table);
            }
            para.push(t);
        }
    }
    if let Some(c) = code {
        blocks.push(Block::Code(c.join("\n")));
    }
    flush(&mut blocks, &mut para, &mut item, &mut table);
    blocks
}

/// Joins wrapped lines: a space between words and between a Chinese character and a digit or
/// a Latin letter (as the documents write `共 144 张`), none between Chinese characters or
/// beside Chinese punctuation.
fn join(lines: &[&str]) -> String {
    let mut out = String::new();
    for l in lines {
        let wide = |c: char| c > '\u{2e80}';
        let gap = match (out.chars().last(), l.chars().next()) {
            (Some(a), Some(b)) => {
                !(wide(a) || wide(b))
                    || (wide(a) && b.is_ascii_alphanumeric())
                    || (a.is_ascii_alphanumeric() && wide(b))
            }
            _ => false,
        };
        if gap {
            out.push(' ');
        }
        out.push_str(l.trim());
    }
    out
}

/// The rule book of `lang`, parsed once.
pub fn book(lang: Lang) -> &'static [Block] {
    static EN: OnceLock<Vec<Block>> = OnceLock::new();
    static ZH: OnceLock<Vec<Block>> = OnceLock::new();
    match lang {
        Lang::En => EN.get_or_init(|| parse(&for_players(RULES_EN, Lang::En))),
        Lang::Zh => ZH.get_or_init(|| parse(&for_players(RULES_ZH, Lang::Zh))),
    }
}

/// The rules screen: which table's rules it shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    /// The options shown (the set-up being edited, or the table's).
    pub options: Options,
    /// Opened over a table (Back returns to it).
    pub over_table: bool,
}

/// What the rules screen is told.
#[derive(Clone, Debug)]
pub enum Message {
    /// Close it.
    Back,
}

impl State {
    /// The rules of `options`.
    pub fn new(options: Options, over_table: bool) -> State {
        State {
            options,
            over_table,
        }
    }

    /// The chosen preset.
    pub fn preset(&self) -> Ruleset {
        self.options.ruleset
    }

    /// The screen.
    pub fn view(&self, lang: Lang) -> Element<'_, Message> {
        let back = action(
            lang.t(if self.over_table {
                T::BackToTable
            } else {
                T::Back
            }),
            16.0,
            Some(Message::Back),
        )
        .style(button::secondary);
        let header = row![
            bold(
                lang.f(T::RulesTitle, &[&lang.t(preset_name(self.preset()))]),
                22.0,
                ACCENT
            ),
            iced::widget::Space::new().width(Length::Fill),
            back,
        ]
        .spacing(12)
        .align_y(Alignment::Center);
        let opts = column![
            bold(lang.t(T::RulesOptions), 18.0, ACCENT),
            label(lang.t(T::RulesOptionsIntro), 13.0, MUTED),
        ]
        .spacing(6);
        let opts = opts.push(summary(lang, &self.options, Scope::Lan, false));
        let mut doc = column![].spacing(8);
        // Subsections about another preset only are dimmed, and say so.
        let mut other = false;
        for b in book(lang) {
            match b {
                Block::Heading(level, _) if *level <= 2 => other = false,
                Block::Heading(_, h) => other = about_other_preset(h, self.preset(), lang),
                _ => {}
            }
            doc = doc.push(block(b, other));
            if other && matches!(b, Block::Heading(3.., _)) {
                doc = doc.push(label(
                    lang.f(T::RulesOtherPreset, &[&lang.t(preset_name(self.preset()))]),
                    13.0,
                    MUTED,
                ));
            }
        }
        let body = column![
            container(opts).padding(12).width(Length::Fill).style(panel),
            doc,
        ]
        .spacing(16)
        .padding([12, 24])
        .max_width(1000);
        column![
            container(header).padding([6, 16]),
            scrollable(container(body).center_x(Length::Fill)).height(Length::Fill),
        ]
        .into()
    }
}

/// Whether a heading names presets, none of them `preset` (e.g. "百搭" at a 敲麻 table).
pub fn about_other_preset(heading: &str, preset: Ruleset, lang: Lang) -> bool {
    let named: Vec<Ruleset> = Ruleset::ALL
        .into_iter()
        .filter(|&r| heading.contains(lang.t(preset_name(r))))
        .collect();
    !named.is_empty() && !named.contains(&preset)
}

/// One block; `dim` for a section about another preset.
fn block<'a>(b: &'a Block, dim: bool) -> Element<'a, Message> {
    let (head, body) = if dim {
        (MUTED, MUTED)
    } else {
        (ACCENT, ON_FELT)
    };
    match b {
        Block::Heading(level, s) => {
            let size = match level {
                1 => 26.0,
                2 => 21.0,
                3 => 17.0,
                _ => 15.0,
            };
            container(bold(s.as_str(), size, head))
                .padding(iced::Padding {
                    top: if *level <= 2 { 10.0 } else { 4.0 },
                    ..iced::Padding::ZERO
                })
                .into()
        }
        Block::Paragraph(s) => label(s.as_str(), 15.0, body),
        Block::Item(marker, s) => row![
            container(label(marker.as_str(), 15.0, head))
                .width(26)
                .align_x(Alignment::End),
            label(s.as_str(), 15.0, body),
        ]
        .spacing(8)
        .into(),
        Block::Code(s) => container(label(s.as_str(), 13.0, MUTED))
            .padding(8)
            .width(Length::Fill)
            .style(panel)
            .into(),
        Block::Table(rows) => {
            // Columns share the width by their longest cell (at least 1, at most 8 parts).
            let n = rows.iter().map(Vec::len).max().unwrap_or(0);
            let parts: Vec<u16> = (0..n)
                .map(|i| {
                    let w = rows
                        .iter()
                        .filter_map(|r| r.get(i))
                        .map(|c| c.chars().count())
                        .max()
                        .unwrap_or(1);
                    (w / 8).clamp(1, 8) as u16
                })
                .collect();
            let mut col = column![].spacing(3);
            for (k, r) in rows.iter().enumerate() {
                let line = (0..n).fold(row![].spacing(10), |line, i| {
                    let cell = r.get(i).map_or("", String::as_str);
                    let t = if k == 0 {
                        bold(cell, 14.0, head)
                    } else {
                        label(cell, 14.0, body)
                    };
                    line.push(container(t).width(Length::FillPortion(parts[i])))
                });
                col = col.push(line);
            }
            container(col)
                .padding(8)
                .width(Length::Fill)
                .style(panel)
                .into()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_markdown_the_rule_books_use_is_read() {
        let b = parse(
            "# Title\n\n[中文版](rules.zh.md)\n\nOne `two`\n*three* **four**.\n\n\
             | a | b |\n| --- | --- |\n| 1 | `x` |\n\n- item\n  goes on\n2. second\n\n中文\n第二行\n",
        );
        assert_eq!(
            b,
            vec![
                Block::Heading(1, "Title".into()),
                Block::Paragraph("One two three four.".into()),
                Block::Table(vec![
                    vec!["a".into(), "b".into()],
                    vec!["1".into(), "x".into()]
                ]),
                Block::Item("•".into(), "item goes on".into()),
                Block::Item("2.".into(), "second".into()),
                Block::Paragraph("中文第二行".into()),
            ]
        );
    }

    #[test]
    fn sections_about_another_preset_are_told_apart() {
        let (en, zh) = (Lang::En, Lang::Zh);
        assert!(about_other_preset("Baida (百搭)", Ruleset::Qiaoma, en));
        assert!(!about_other_preset("Baida (百搭)", Ruleset::Baida, en));
        assert!(!about_other_preset(
            "Qiaoma (敲麻) and Classic: only these hands win",
            Ruleset::Classic,
            en
        ));
        assert!(about_other_preset(
            "Value in Qiaoma (敲麻)",
            Ruleset::Baida,
            en
        ));
        assert!(!about_other_preset("Leavers", Ruleset::Baida, en));
        assert!(!about_other_preset(
            "和牌者的花（敲麻、经典上海）",
            Ruleset::Qiaoma,
            zh
        ));
        assert!(about_other_preset("百搭", Ruleset::Classic, zh));
    }

    /// Every text of a book as shown.
    fn texts(b: &[Block]) -> Vec<String> {
        let mut all = Vec::new();
        for blk in b {
            match blk {
                Block::Heading(_, t) | Block::Paragraph(t) | Block::Code(t) => all.push(t.clone()),
                Block::Item(m, t) => all.push(format!("{m} {t}")),
                Block::Table(rows) => all.extend(rows.iter().flatten().cloned()),
            }
        }
        all
    }

    #[test]
    fn the_players_book_has_the_rules_and_not_the_file_format() {
        for lang in [Lang::En, Lang::Zh] {
            let b = book(lang);
            let headings: Vec<&str> = b
                .iter()
                .filter_map(|b| match b {
                    Block::Heading(2, s) => Some(s.as_str()),
                    _ => None,
                })
                .collect();
            for n in 1..=7 {
                assert!(
                    headings.iter().any(|h| h.starts_with(&format!("§{n}"))),
                    "{lang}: §{n} missing from {headings:?}"
                );
            }
            // The settlement file (§8) and the options' file names (§9, replaced by the
            // table's options above the book) are the docs' business.
            for n in [8, 9] {
                assert!(
                    !texts(b).iter().any(|t| t.contains(&format!("§{n}"))),
                    "{lang}: §{n} is shown"
                );
            }
            assert!(
                !b.iter().any(|b| matches!(b, Block::Code(_))),
                "{lang}: code"
            );
            // The tiles, the hands' table and the binding table are there.
            let tables = b.iter().filter(|b| matches!(b, Block::Table(_))).count();
            assert!(tables >= 6, "{lang}: {tables} tables");
            // No Markdown syntax is left in what is shown.
            for blk in b {
                if let Block::Paragraph(s) | Block::Item(_, s) = blk {
                    assert!(!s.contains("**") && !s.contains("<!--"), "{s}");
                }
            }
        }
    }

    #[test]
    fn the_players_book_names_no_id_no_notation_and_no_seat_number() {
        let ids: Vec<&str> = Ruleset::ALL
            .iter()
            .map(|r| r.name())
            // The options named by English words (`hands`, `wildcard`, `binding`) may be
            // words of an English sentence.
            .chain(
                Opt::all()
                    .map(|o| o.name())
                    .filter(|n| !["hands", "wildcard", "binding"].contains(n)),
            )
            .chain(crate::i18n::PATTERNS.iter().copied())
            .chain(["swap_five", "restricted", "chi_san_kou", "crates", "json"])
            .collect();
        for lang in [Lang::En, Lang::Zh] {
            for t in texts(book(lang)) {
                assert!(!t.contains('`'), "{lang}: an id left as code in {t:?}");
                let words: Vec<&str> = t
                    .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .collect();
                for w in &words {
                    assert!(!ids.contains(w), "{lang}: the id {w:?} in {t:?}");
                    // Tile notation: digits then one of m p s z f (`5z`, `123m`).
                    let digits = w.chars().take_while(char::is_ascii_digit).count();
                    let notation = digits > 0
                        && w.len() == digits + 1
                        && w.ends_with(['m', 'p', 's', 'z', 'f']);
                    assert!(!notation, "{lang}: the notation {w:?} in {t:?}");
                }
                // A seat by its number (座位0, 座位 1, seat 3).
                let numbered = ["座位", "seat", "Seat"].iter().any(|w| {
                    t.match_indices(w).any(|(i, _)| {
                        t[i + w.len()..]
                            .trim_start()
                            .starts_with(|c: char| c.is_ascii_digit())
                    })
                });
                assert!(!numbered, "{lang}: a seat number in {t:?}");
                assert!(!t.contains("mahjong score"), "{lang}: {t:?}");
                assert_eq!(
                    crate::i18n::foreign(lang, &t),
                    None,
                    "{lang}: the other script in {t:?}"
                );
            }
        }
    }

    #[test]
    fn ids_are_named_and_annotations_dropped() {
        assert_eq!(
            reword(
                "| 碰碰胡（`pengpenghu`） | `qiaoma` 的 `kaibao` |",
                Lang::Zh
            ),
            format!(
                "| 碰碰胡 | 敲麻的{} |",
                Lang::Zh.t(Opt::named("kaibao").expect("kaibao").text().0)
            )
        );
        assert_eq!(
            reword("清一色 (`qingyise`) and (`start_seconds`, 15 s)", Lang::En),
            "full flush (清一色) and (15 s)"
        );
        // No space is left between Chinese words around an emphasis.
        assert_eq!(
            inline(&reword("两家即 *互为承包* *（解读）*。", Lang::Zh)),
            "两家即互为承包（解读）。"
        );
        let shown = for_players(
            "a\n<!-- docs only -->\nb `5z`\n<!-- /docs only -->\n<!-- app\nc\n-->\nd\n",
            Lang::En,
        );
        assert_eq!(shown, "a\nc\nd\n");
    }
}
