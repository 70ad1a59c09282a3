//! Names as shown: every player and table name that came from another peer (or from a file)
//! goes through [`clean_name`] before it is kept and again before it is shown, so that no
//! name can move the terminal's cursor, recolour it, reorder the text around it (bidi
//! overrides) or fill the screen.

/// Most characters of a name as shown.
pub const SHOWN_NAME_CHARS: usize = 32;

/// What a name with nothing left to show is shown as.
pub const NO_NAME: &str = "?";

/// `name` without control characters (C0, DEL, C1), terminal escape sequences (ESC and the
/// C1 CSI/OSC introducers with their parameters), bidi controls (U+202A–U+202E,
/// U+2066–U+2069, U+200E, U+200F, U+061C), line and paragraph separators and invisible
/// zero-width characters; whitespace trimmed, at most [`SHOWN_NAME_CHARS`] characters;
/// [`NO_NAME`] when nothing is left.
pub fn clean_name(name: &str) -> String {
    let trimmed = clean_within(name, SHOWN_NAME_CHARS);
    if trimmed.is_empty() {
        NO_NAME.to_string()
    } else {
        trimmed
    }
}

/// A line of table talk as shown: what [`clean_name`] takes out, taken out, at most `max`
/// characters; empty when nothing is left.
pub fn clean_text(text: &str, max: usize) -> String {
    clean_within(text, max)
}

fn clean_within(name: &str, max: usize) -> String {
    let mut out = String::new();
    let mut kept = 0;
    let mut chars = name.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => match chars.next() {
                Some('[') => skip_csi(&mut chars),
                Some(']' | 'P' | '^' | '_' | 'X') => skip_string(&mut chars),
                // A two-character escape (ESC 7, ESC c, ESC ( B …): its second character
                // is dropped with it.
                _ => {}
            },
            '\u{9b}' => skip_csi(&mut chars),
            '\u{9d}' | '\u{90}' | '\u{9e}' | '\u{9f}' | '\u{98}' => skip_string(&mut chars),
            c if is_hidden(c) => {}
            c => {
                if kept < max * 4 {
                    out.push(c);
                    kept += 1;
                }
            }
        }
    }
    let trimmed: String = out.trim().chars().take(max).collect();
    trimmed.trim_end().to_string()
}

/// Whether `name` is shown as it is ([`clean_name`] leaves it unchanged).
pub fn is_clean_name(name: &str) -> bool {
    clean_name(name) == name
}

/// A character that is never shown: a control, a bidi control, a separator that breaks the
/// line, or an invisible one.
fn is_hidden(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{202a}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}'
                | '\u{200e}'
                | '\u{200f}'
                | '\u{061c}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{200b}'
                | '\u{2060}'
                | '\u{feff}'
        )
}

/// Skips a CSI sequence's parameters and its final byte (0x40–0x7E).
fn skip_csi(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    for c in chars.by_ref() {
        if ('\u{40}'..='\u{7e}').contains(&c) {
            return;
        }
    }
}

/// Skips an OSC/DCS-like string up to its terminator (BEL, ST as ESC \ or U+009C).
fn skip_string(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    while let Some(c) = chars.next() {
        match c {
            '\u{7}' | '\u{9c}' => return,
            '\u{1b}' => {
                if chars.peek() == Some(&'\\') {
                    chars.next();
                }
                return;
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_names_are_kept() {
        for n in ["Ann", "小明", "Zoë the 3rd", "bot of Ann", "👩‍👩‍👧 family"] {
            assert_eq!(clean_name(n), n);
            assert!(is_clean_name(n));
        }
    }

    #[test]
    fn controls_escapes_and_bidi_are_removed() {
        let cases = [
            ("\u{1b}[31mred\u{1b}[0m", "red"),
            ("a\u{1b}[2J\u{1b}[Hb", "ab"),
            ("\u{1b}]0;title\u{7}name", "name"),
            ("\u{1b}]8;;http://x\u{1b}\\link\u{1b}]8;;\u{1b}\\", "link"),
            ("\u{9b}31mc1\u{9d}osc\u{9c}!", "c1!"),
            ("ev\u{202e}lin", "evlin"),
            ("\u{2066}a\u{2069}\u{200e}\u{200f}\u{061c}b", "ab"),
            ("line\nbreak\r\u{7f}\u{85}", "linebreak"),
            ("tab\there", "tabhere"),
            ("a\u{2028}b\u{feff}\u{200b}", "ab"),
            ("\u{1b}c\u{1b}7x", "x"),
            ("   spaced   ", "spaced"),
            ("", NO_NAME),
            ("\u{1b}[31m\u{202e}", NO_NAME),
            ("unterminated\u{1b}[31", "unterminated"),
        ];
        for (raw, want) in cases {
            assert_eq!(clean_name(raw), want, "{raw:?}");
            assert!(!is_clean_name(raw) || raw == want);
        }
    }

    #[test]
    fn length_is_bounded() {
        let long = "x".repeat(100_000);
        assert_eq!(clean_name(&long).chars().count(), SHOWN_NAME_CHARS);
        let wide = "麻".repeat(40);
        assert_eq!(clean_name(&wide), "麻".repeat(SHOWN_NAME_CHARS));
        // Spaces at the cut are not left at the end.
        let spaced = format!("{} tail", "y".repeat(SHOWN_NAME_CHARS - 1));
        assert_eq!(clean_name(&spaced), "y".repeat(SHOWN_NAME_CHARS - 1));
    }

    #[test]
    fn the_result_is_clean_and_json_shows_it_as_is() {
        for raw in ["\u{1b}[1mbold", "x\u{202e}y\u{9b}", "\u{85}\u{9f}z"] {
            let c = clean_name(raw);
            assert!(is_clean_name(&c), "{c:?}");
            let json = serde_json::to_string(&c).expect("json");
            assert_eq!(json, format!("\"{c}\""), "nothing left to escape");
        }
    }
}
