//! Test hooks (the `test-hooks` feature): a seat made to lie, for the tests that show the
//! others catch it. The shipped programs are built without them.

use ed25519_dalek::SigningKey;
use mahjong_rules::Action;
use mahjong_table::{Body, Envelope};

use crate::Tamper;

/// A [`Tamper`] that makes its seat equivocate once, as a lying peer could: it signs two
/// versions of its first discard (one marked timed out) with `key`, its own, and sends one to
/// the next seat and the other to the remaining two. Every other frame goes out unchanged.
pub fn equivocate_once(key: SigningKey) -> Tamper {
    let mut done = false;
    Box::new(move |frame: Vec<u8>| {
        let same = vec![(None, frame.clone())];
        if done {
            return same;
        }
        let Ok(env) = Envelope::decode(&frame) else {
            return same;
        };
        let Body::Play(p) = &env.body else {
            return same;
        };
        if !matches!(p.action, Action::Discard { .. }) {
            return same;
        }
        let mut other = p.clone();
        other.timed_out = !other.timed_out;
        let variant =
            Envelope::sign(env.table, env.header(), env.seat, Body::Play(other), &key).encode();
        done = true;
        let seat = env.seat & 3;
        let next = (seat + 1) % 4;
        (0..4u8)
            .filter(|&to| to != seat)
            .map(|to| {
                let f = if to == next {
                    frame.clone()
                } else {
                    variant.clone()
                };
                (Some(to), f)
            })
            .collect()
    })
}
