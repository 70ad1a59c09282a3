//! A waiting peer's lobby fed any sequence of messages from a few peers (and the clock):
//! it never panics and its state stays bounded.
//!
//! Input: records of `[sender (1 byte), advance ms (1 byte), length (2 bytes LE), bytes]`;
//! bytes that decode as a wire message go to `Lobby::message` from that sender.
#![no_main]
use ed25519_dalek::SigningKey;
use libfuzzer_sys::fuzz_target;
use mahjong_net::Wire;
use mahjong_net::lobby::{Lobby, MAX_TABLES, Settings};
use mahjong_rules::{Money, Options, Ruleset};

fuzz_target!(|data: &[u8]| {
    let me = SigningKey::from_bytes(&[7; 32]);
    let peers: Vec<_> = (1..=4u8)
        .map(|i| SigningKey::from_bytes(&[i; 32]).verifying_key())
        .collect();
    let settings = Settings {
        name: "fuzz".into(),
        preset: Ruleset::Qiaoma,
        stake: Money::coins(1),
        hands: 1,
        bots: 0,
        open_after_ms: 5_000,
        options: Options::preset(Ruleset::Qiaoma),
    };
    let mut now = 0u64;
    let mut lobby = Lobby::new(me, settings, now);
    for p in &peers {
        let _ = lobby.connected(*p);
    }
    let mut rest = data;
    while rest.len() >= 4 {
        let from = peers[rest[0] as usize % peers.len()];
        now += u64::from(rest[1]) * 50;
        let len = (u16::from_le_bytes([rest[2], rest[3]]) as usize).min(rest.len() - 4);
        let bytes = &rest[4..4 + len];
        rest = &rest[4 + len..];
        if let Ok(wire) = Wire::decode(bytes) {
            let _ = lobby.message(from, wire, now);
        }
        let _ = lobby.tick(now);
        assert!(lobby.tables().len() <= MAX_TABLES);
    }
});
