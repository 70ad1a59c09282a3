//! Dealing-protocol messages from the network: decoding never panics.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = mahjong_deal::SignedMessage::from_bytes(data);
});
