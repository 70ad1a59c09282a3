//! The settlement scorer (`mahjong score` input): never panics; a result pays zero in all;
//! an error is one line.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let s = String::from_utf8_lossy(data);
    match mahjong_rules::score_json(&s) {
        Ok(out) => assert_eq!(out.payments.iter().map(|m| m.0).sum::<i64>(), 0),
        Err(e) => assert!(!e.to_string().contains('\n')),
    }
    let _ = postcard::from_bytes::<mahjong_rules::HandState>(data);
    let _ = postcard::from_bytes::<mahjong_rules::Move>(data);
});
