//! Property tests: random bytes and random mutations of valid envelopes never panic and are
//! rejected with a typed error.

use std::sync::OnceLock;

use mahjong_rules::{Ruleset, SessionLength};
use mahjong_table::{Client, Config, Envelope, FrameError, Input, Rejected};
use proptest::prelude::*;

use crate::sim::{Net, Sim, cards, keys, options};

const SEED: u64 = 71;

/// Every envelope of one played hand (every body kind), encoded.
fn frames() -> &'static Vec<Vec<u8>> {
    static FRAMES: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    FRAMES.get_or_init(|| {
        let mut sim = Sim::new(
            SEED,
            Net::FAST,
            options(Ruleset::Baida),
            SessionLength::Hands(1),
        );
        sim.run(3_600_000);
        sim.log(0)
            .iter()
            .flat_map(|r| r.entries.iter().map(Envelope::encode))
            .collect()
    })
}

/// A fresh seat at the same table (roster known, nothing proposed yet).
fn fresh_client() -> Client {
    let keys = keys(SEED);
    let roster = [0, 1, 2, 3].map(|i| keys[i].verifying_key());
    let mut table = [0u8; 32];
    table[..8].copy_from_slice(&SEED.to_le_bytes());
    let config = Config {
        table,
        seat: 2,
        roster,
        host: 0,
    };
    Client::with_cards(config, keys[2].clone(), [5; 32], cards()).expect("client")
}

#[derive(Clone, Debug)]
enum Mutation {
    Flip { at: usize, bit: u8 },
    Set { at: usize, byte: u8 },
    Truncate { at: usize },
    Insert { at: usize, byte: u8 },
    Delete { at: usize },
    Append { bytes: Vec<u8> },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 0u8..8).prop_map(|(at, bit)| Mutation::Flip { at, bit }),
        (any::<usize>(), any::<u8>()).prop_map(|(at, byte)| Mutation::Set { at, byte }),
        any::<usize>().prop_map(|at| Mutation::Truncate { at }),
        (any::<usize>(), any::<u8>()).prop_map(|(at, byte)| Mutation::Insert { at, byte }),
        any::<usize>().prop_map(|at| Mutation::Delete { at }),
        proptest::collection::vec(any::<u8>(), 1..16).prop_map(|bytes| Mutation::Append { bytes }),
    ]
}

fn apply(frame: &[u8], muts: &[Mutation]) -> Vec<u8> {
    let mut f = frame.to_vec();
    for m in muts {
        let n = f.len().max(1);
        match m {
            Mutation::Flip { at, bit } => {
                if !f.is_empty() {
                    f[at % n] ^= 1 << bit;
                }
            }
            Mutation::Set { at, byte } => {
                if !f.is_empty() {
                    f[at % n] = *byte;
                }
            }
            Mutation::Truncate { at } => f.truncate(at % n),
            Mutation::Insert { at, byte } => f.insert(at % (f.len() + 1), *byte),
            Mutation::Delete { at } => {
                if !f.is_empty() {
                    f.remove(at % n);
                }
            }
            Mutation::Append { bytes } => f.extend_from_slice(bytes),
        }
    }
    f
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic_and_are_rejected(bytes in proptest::collection::vec(any::<u8>(), 0..4096)) {
        prop_assert!(Envelope::decode(&bytes).is_err());
        let mut client = fresh_client();
        let out = client.handle(1, Input::Frame(bytes));
        prop_assert_eq!(out.rejected.len(), 1);
        prop_assert!(matches!(out.rejected[0], Rejected::Frame(_)));
        prop_assert!(out.events.is_empty());
        // All it may send is a request for the proposal it is waiting for.
        let only_requests = out.send.iter().chain(out.reply.iter().map(|(_, f)| f)).all(|f| {
            matches!(
                Envelope::decode(f).map(|e| e.body),
                Ok(mahjong_table::Body::Request { .. })
            )
        });
        prop_assert!(only_requests);
    }

    #[test]
    fn mutated_envelopes_never_panic_and_are_rejected(
        pick in any::<usize>(),
        muts in proptest::collection::vec(mutation(), 1..4),
    ) {
        let frames = frames();
        let original = &frames[pick % frames.len()];
        let mutated = apply(original, &muts);
        prop_assume!(&mutated != original);
        let keys = keys(SEED);
        match Envelope::decode(&mutated) {
            Err(_) => {}
            Ok(env) => {
                // It decodes to something else (canonical encoding), so no seat signed it.
                let orig = Envelope::decode(original).expect("original decodes");
                prop_assert_ne!(&env, &orig);
                let key = keys[env.seat as usize].verifying_key();
                prop_assert!(env.table != orig.table || env.verify(&key).is_err());
            }
        }
        let mut client = fresh_client();
        let out = client.handle(1, Input::Frame(mutated));
        prop_assert_eq!(out.rejected.len(), 1);
        prop_assert!(matches!(out.rejected[0], Rejected::Frame(_)));
        prop_assert!(out.events.is_empty());
    }
}

#[test]
fn valid_frames_are_accepted_and_a_bad_signature_is_a_typed_error() {
    let frames = frames();
    let mut client = fresh_client();
    // The host's proposal is taken.
    let out = client.handle(1, Input::Frame(frames[0].clone()));
    assert!(out.rejected.is_empty(), "{:?}", out.rejected);
    // A bad signature names the claimed seat and blames nobody.
    let mut env = Envelope::decode(&frames[0]).expect("decodes");
    env.seq += 1;
    let out = client.handle(2, Input::Frame(env.encode()));
    assert_eq!(
        out.rejected,
        vec![Rejected::Frame(FrameError::BadSignature { seat: 0 })]
    );
    assert!(client.evidence().is_empty());
}
