//! A seat's table client fed any frames (and ticks) from the network: `Client::handle`
//! never panics, whatever arrives, before and after the set-up.
//!
//! Input: records of `[tick ms (1 byte), length (2 bytes LE), bytes]`, each a frame.
#![no_main]
use std::sync::{Arc, OnceLock};

use ed25519_dalek::SigningKey;
use libfuzzer_sys::fuzz_target;
use mahjong_deal::CardTable;
use mahjong_table::{Client, Config, Input};

/// One deal card table for the whole run (it takes milliseconds to build).
fn cards() -> Arc<CardTable> {
    static CARDS: OnceLock<Arc<CardTable>> = OnceLock::new();
    CARDS.get_or_init(|| Arc::new(CardTable::new())).clone()
}

fuzz_target!(|data: &[u8]| {
    let keys: Vec<SigningKey> = (1..=4u8).map(|i| SigningKey::from_bytes(&[i; 32])).collect();
    let config = Config {
        table: [9; 32],
        seat: 1,
        roster: [0, 1, 2, 3].map(|i| keys[i].verifying_key()),
        host: 0,
    };
    let Ok(mut client) = Client::with_cards(config, keys[1].clone(), [5; 32], cards()) else {
        return;
    };
    let mut now = 0u64;
    let mut rest = data;
    while rest.len() >= 3 {
        now += u64::from(rest[0]) * 100;
        let len = (u16::from_le_bytes([rest[1], rest[2]]) as usize).min(rest.len() - 3);
        let frame = rest[3..3 + len].to_vec();
        rest = &rest[3 + len..];
        let _ = client.handle(now, Input::Frame(frame));
        let _ = client.handle(now, Input::Tick);
    }
});
