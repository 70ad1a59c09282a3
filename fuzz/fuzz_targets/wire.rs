//! Messages from a LAN peer: decoding the wire never panics, and what decodes encodes back
//! to a message that decodes the same.
#![no_main]
use libfuzzer_sys::fuzz_target;
use mahjong_net::Wire;

fuzz_target!(|data: &[u8]| {
    if let Ok(w) = Wire::decode(data) {
        let again = Wire::decode(&w.encode()).expect("what decoded encodes back");
        assert_eq!(again.encode(), w.encode());
    }
});
