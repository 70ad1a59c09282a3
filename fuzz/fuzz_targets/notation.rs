//! The tile notation parser: never panics; what parses prints back to the same tiles.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(s) = std::str::from_utf8(data) {
        if let Ok(tiles) = mahjong_rules::parse_tiles(s) {
            let again = mahjong_rules::parse_tiles(&mahjong_rules::format_tiles(&tiles));
            assert_eq!(again.ok(), Some(tiles));
        }
        let _ = s.parse::<mahjong_rules::Tile>();
    }
});
