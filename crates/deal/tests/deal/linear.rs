//! Hands dealt before the compact proof of shuffle: their shuffles carry the linear proof
//! (`Body::LinearShuffle`), and they still verify, audit and name a cheat.

use ed25519_dalek::SigningKey;
use mahjong_deal::{
    Body, Ciphertext, DealError, DealSeat, HandContext, HandSecrets, LinearShuffleOutput, Message,
    SeatIndex, ShuffleFault, SignedMessage, audit,
};

use crate::common::{cards, seat};

struct Old {
    ctx: HandContext,
    signers: Vec<SigningKey>,
    roots: Vec<[u8; 32]>,
    seats: Vec<DealSeat>,
    log: Vec<SignedMessage>,
}

impl Old {
    fn new() -> Self {
        let signers: Vec<SigningKey> = (0..4u8)
            .map(|i| SigningKey::from_bytes(&[i + 1; 32]))
            .collect();
        let roster = [0, 1, 2, 3].map(|i| signers[i].verifying_key());
        let ctx = HandContext {
            table: [0x0D; 32],
            hand: 2,
        };
        let roots: Vec<[u8; 32]> = (0..4u8).map(|i| [0xA0 + i; 32]).collect();
        let seats = SeatIndex::ALL
            .into_iter()
            .map(|s| {
                DealSeat::with_cards(
                    ctx,
                    s,
                    roster,
                    HandSecrets::from_root(&roots[s.index()]),
                    cards(),
                )
            })
            .collect();
        Old {
            ctx,
            signers,
            roots,
            seats,
            log: Vec::new(),
        }
    }

    fn deliver(&mut self, m: &SignedMessage) -> Vec<Result<mahjong_deal::Accepted, DealError>> {
        self.log.push(m.clone());
        self.seats
            .iter_mut()
            .map(|s| s.receive(m.clone()))
            .collect()
    }

    fn sign(&self, i: usize, body: Body) -> SignedMessage {
        Message::new(&self.ctx, seat(i), body)
            .sign(&self.signers[i])
            .expect("sign")
    }

    /// Seat `i`'s shuffle as an old client made it: its own seed, the linear proof.
    fn linear(&self, i: usize) -> LinearShuffleOutput {
        let obs = self.seats[i].observer();
        let key = *obs.joint_key().expect("joint key");
        let input: Vec<Ciphertext> = match i {
            0 => cards().initial_wall().to_vec(),
            _ => obs
                .messages()
                .iter()
                .rev()
                .find_map(|m| match &m.message.body {
                    Body::LinearShuffle(s) if m.seat() == seat(i - 1) => Some(s.wall.clone()),
                    Body::Shuffle(s) if m.seat() == seat(i - 1) => Some(s.wall.clone()),
                    _ => None,
                })
                .expect("previous wall")
                .iter()
                .map(|c| c.decompress().expect("valid"))
                .collect(),
        };
        let seed = *HandSecrets::from_root(&self.roots[i]).shuffle_seed();
        LinearShuffleOutput::new(&self.ctx, seat(i), &seed, &key, &input, &cards())
    }

    fn set_up(&mut self) {
        for i in 0..4 {
            let c = self.seats[i].commit(&self.signers[i]).expect("commit");
            let k = self.seats[i].key_message(&self.signers[i]).expect("key");
            self.deliver(&c);
            self.deliver(&k);
        }
        for i in 0..4 {
            let r = self.seats[i].reveal(&self.signers[i]).expect("reveal");
            self.deliver(&r);
        }
    }
}

#[test]
fn a_hand_dealt_with_linear_proofs_verifies_and_audits() {
    let mut t = Old::new();
    t.set_up();
    // Seats 0 and 1 as old clients; 2 and 3 with the compact argument (a mixed hand too).
    for i in 0..4 {
        let m = if i < 2 {
            let body = Body::LinearShuffle(t.linear(i));
            t.sign(i, body)
        } else {
            t.seats[i].shuffle_message(&t.signers[i]).expect("shuffle")
        };
        assert!(t.deliver(&m).iter().all(Result::is_ok), "shuffle {i}");
    }
    for i in [1, 2, 3] {
        let m = t.seats[i]
            .share_for(&t.signers[i], 0, seat(0))
            .expect("share");
        assert!(t.deliver(&m).iter().all(Result::is_ok));
    }
    let card = t.seats[0].open_private(0).expect("card");
    for i in 0..4 {
        let m = t.seats[i]
            .audit_reveal(&t.signers[i])
            .expect("audit reveal");
        t.deliver(&m);
    }
    let roster = [0, 1, 2, 3].map(|i| t.signers[i].verifying_key());
    let report = audit(t.ctx, &roster, &t.log).expect("audit");
    assert_eq!(report.final_wall[0], card);
}

#[test]
fn a_tampered_linear_shuffle_is_refused_naming_its_seat() {
    let mut t = Old::new();
    t.set_up();
    let mut out = t.linear(0);
    out.wall.swap(3, 4);
    let m = t.sign(0, Body::LinearShuffle(out));
    for r in t.deliver(&m) {
        assert_eq!(
            r,
            Err(DealError::BadShuffle {
                seat: seat(0),
                fault: ShuffleFault::BadProof
            })
        );
    }
}
