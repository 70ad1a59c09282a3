//! A property-based fuzz harness (runs in `cargo test`; the coverage-guided targets of the
//! same entry points are in `fuzz/`): arbitrary bytes and strings, and mutations of valid
//! settlement files, fed to the notation parser, the settlement scorer and the state
//! decoder. Nothing may panic; bad input is an error.
#![allow(clippy::unwrap_used, missing_docs)]

use mahjong_rules::*;
use proptest::prelude::*;

const EXAMPLE: &str = r#"{"ruleset":"qiaoma","options":{},"stake":1,"dealer":0,"kaibao":false,"huangfan":0,
"wildcard":null,"declared":[false,true,false,false],"claims":[[0,0,0,0],[0,0,0,0],[0,0,0,0],[0,0,0,0]],
"win":{"kind":"discard","from":3,"winners":[{"seat":1,"concealed":"222m55p999s","winning_tile":"9s",
"melds":[{"type":"pung","tiles":"777z"},{"type":"kong","tiles":"1111z","concealed":true}],
"flowers":"12f","replacement_draw":false}]}}"#;

/// Pieces that make mutations land on meaningful values.
const PIECES: &[&str] = &[
    "0m",
    "8z",
    "9f",
    "12",
    "m",
    "1111m",
    "5z5z5z",
    "\"chow\"",
    "\"kong\"",
    "\"baida\"",
    "\"classic\"",
    "\"rob_kong\"",
    "\"self_draw\"",
    "\"eight_flowers\"",
    "\"four_wildcards\"",
    "null",
    "-1",
    "4",
    "99999999999",
    "1e308",
    "true",
    "[]",
    "{}",
    "\"\"",
    "12345678f",
    "123p",
    "\"added\":true",
    "\"concealed\":true",
    "\"5p\"",
];

fn mutate(base: &str, ops: &[(usize, usize, u8)]) -> String {
    let mut s: Vec<char> = base.chars().collect();
    for &(at, what, kind) in ops {
        if s.is_empty() {
            break;
        }
        let at = at % s.len();
        match kind % 4 {
            0 => {
                s.remove(at);
            }
            1 => {
                let piece = PIECES[what % PIECES.len()];
                for (k, c) in piece.chars().enumerate() {
                    s.insert(at + k, c);
                }
            }
            2 => {
                s[at] = char::from_u32(32 + (what % 95) as u32).unwrap_or('x');
            }
            _ => {
                // Replace a run of digits/letters after `at` with a piece.
                let end = (at..s.len())
                    .find(|&i| !s[i].is_ascii_alphanumeric())
                    .unwrap_or(s.len());
                let piece: Vec<char> = PIECES[what % PIECES.len()].chars().collect();
                s.splice(at..end, piece);
            }
        }
    }
    s.into_iter().collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn notation_never_panics(s in ".{0,40}") {
        if let Ok(tiles) = parse_tiles(&s) {
            // What parses prints back to something that parses to the same tiles.
            prop_assert_eq!(parse_tiles(&format_tiles(&tiles)).unwrap(), tiles);
        }
    }

    #[test]
    fn notation_of_tile_alphabet(s in "[0-9mpszf ]{0,30}") {
        let _ = parse_tiles(&s);
        let _ = s.parse::<Tile>();
    }

    #[test]
    fn score_never_panics_on_bytes(b in proptest::collection::vec(any::<u8>(), 0..300)) {
        let s = String::from_utf8_lossy(&b);
        prop_assert!(score_json(&s).is_err());
    }

    #[test]
    fn mutated_settlements_score_or_fail_cleanly(ops in proptest::collection::vec((any::<usize>(), any::<usize>(), any::<u8>()), 1..6)) {
        let s = mutate(EXAMPLE, &ops);
        match score_json(&s) {
            Ok(out) => prop_assert_eq!(out.payments.iter().map(|m| m.0).sum::<i64>(), 0),
            Err(e) => {
                let msg = e.to_string();
                prop_assert!(!msg.is_empty() && !msg.contains('\n'), "one line: {msg}");
            }
        }
    }

    #[test]
    fn state_decoding_never_panics(b in proptest::collection::vec(any::<u8>(), 0..600)) {
        let _ = postcard::from_bytes::<HandState>(&b);
        let _ = postcard::from_bytes::<Move>(&b);
        let _ = postcard::from_bytes::<Options>(&b);
    }
}

#[test]
fn the_example_itself_scores() {
    let out = score_json(EXAMPLE).unwrap();
    assert_eq!(
        out.payments,
        [Money::ZERO, Money::coins(9), Money::ZERO, Money::coins(-9)]
    );
}
