//! Benchmarks of one seat's work per hand: the set-up (commits, keys, reveals, its own shuffle
//! and checking the other three), one private draw (making a share; checking three and
//! opening), and the end-of-hand audit.
//!
//! Run with `cargo bench -p mahjong-deal`. Times are CPU time of the benchmark thread
//! (`clock_gettime(CLOCK_THREAD_CPUTIME_ID)`), so other load on the machine does not inflate
//! them.

use std::hint::black_box;
use std::sync::Arc;

use criterion::measurement::{Measurement, ValueFormatter, WallTime};
use criterion::{BatchSize, Criterion, criterion_main};
use ed25519_dalek::SigningKey;
use mahjong_deal::{
    Body, CardTable, Ciphertext, DealSeat, HandContext, HandSecrets, LinearShuffleOutput,
    SeatIndex, ShuffleOutput, SignedMessage, Step, audit_with_cards,
};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

/// CPU time of the current thread, in nanoseconds.
struct CpuTime;

fn thread_cpu_ns() -> u64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    (t.tv_sec as u64) * 1_000_000_000 + t.tv_nsec as u64
}

impl Measurement for CpuTime {
    type Intermediate = u64;
    type Value = u64;

    fn start(&self) -> u64 {
        thread_cpu_ns()
    }

    fn end(&self, start: u64) -> u64 {
        thread_cpu_ns().saturating_sub(start)
    }

    fn add(&self, a: &u64, b: &u64) -> u64 {
        a + b
    }

    fn zero(&self) -> u64 {
        0
    }

    fn to_f64(&self, v: &u64) -> f64 {
        *v as f64
    }

    fn formatter(&self) -> &dyn ValueFormatter {
        // Nanoseconds, formatted like durations.
        static WALL: WallTime = WallTime;
        WALL.formatter()
    }
}

struct Hand {
    ctx: HandContext,
    signers: Vec<SigningKey>,
    secrets: Vec<HandSecrets>,
    seats: Vec<DealSeat>,
    log: Vec<SignedMessage>,
}

impl Hand {
    fn broadcast(&mut self, m: SignedMessage) {
        for s in &mut self.seats {
            s.receive(m.clone()).expect("honest message");
        }
        self.log.push(m);
    }
}

/// An honest hand through the set-up.
fn hand(cards: &Arc<CardTable>) -> Hand {
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let signers: Vec<SigningKey> = (0..4).map(|_| SigningKey::generate(&mut rng)).collect();
    let roster = [0, 1, 2, 3].map(|i| signers[i].verifying_key());
    let ctx = HandContext {
        table: [3; 32],
        hand: 0,
    };
    let secrets: Vec<HandSecrets> = (0..4).map(|_| HandSecrets::generate(&mut rng)).collect();
    let seats = SeatIndex::ALL
        .into_iter()
        .map(|s| DealSeat::with_cards(ctx, s, roster, secrets[s.index()].clone(), cards.clone()))
        .collect();
    let mut h = Hand {
        ctx,
        signers,
        secrets,
        seats,
        log: Vec::new(),
    };
    for i in 0..4 {
        let c = h.seats[i].commit(&h.signers[i]).expect("commit");
        let k = h.seats[i].key_message(&h.signers[i]).expect("key");
        h.broadcast(c);
        h.broadcast(k);
    }
    for i in 0..4 {
        let r = h.seats[i].reveal(&h.signers[i]).expect("reveal");
        h.broadcast(r);
    }
    for i in 0..4 {
        let s = h.seats[i].shuffle_message(&h.signers[i]).expect("shuffle");
        h.broadcast(s);
    }
    h
}

/// Seat `me`'s whole set-up from scratch, receiving the others' messages in log order.
fn setup_as(h: &Hand, cards: &Arc<CardTable>, me: usize) -> DealSeat {
    let roster = [0, 1, 2, 3].map(|i| h.signers[i].verifying_key());
    let signer = &h.signers[me];
    let mut seat = DealSeat::with_cards(
        h.ctx,
        SeatIndex::ALL[me],
        roster,
        h.secrets[me].clone(),
        cards.clone(),
    );
    let others = |step: Step| {
        h.log
            .iter()
            .filter(move |m| m.step() == step && m.seat().index() != me)
    };
    seat.commit(signer).expect("commit");
    seat.key_message(signer).expect("key");
    for m in others(Step::Commit).chain(others(Step::Key)) {
        seat.receive(m.clone()).expect("commit/key");
    }
    seat.reveal(signer).expect("reveal");
    for m in others(Step::Reveal) {
        seat.receive(m.clone()).expect("reveal");
    }
    for m in h.log.iter().filter(|m| m.step() == Step::Shuffle) {
        if m.seat().index() == me {
            seat.shuffle_message(signer).expect("own shuffle");
        } else {
            seat.receive(m.clone()).expect("shuffle");
        }
    }
    assert!(seat.observer().wall_ready());
    seat
}

fn benches(c: &mut Criterion<CpuTime>) {
    let cards = Arc::new(CardTable::new());
    let h = hand(&cards);

    c.bench_function("card_table/new", |b| b.iter(|| black_box(CardTable::new())));

    let mut g = c.benchmark_group("setup");
    g.sample_size(20);
    for me in 0..4 {
        g.bench_function(format!("seat{me}"), |b| {
            b.iter(|| black_box(setup_as(&h, &cards, me)))
        });
    }
    g.finish();

    // One shuffle: make (with proof), and check another seat's (with proof).
    let setup_log: Vec<SignedMessage> = h.log.clone();
    let before_shuffles = |me: usize, upto: usize| {
        let roster = [0, 1, 2, 3].map(|i| h.signers[i].verifying_key());
        let mut s = DealSeat::with_cards(
            h.ctx,
            SeatIndex::ALL[me],
            roster,
            h.secrets[me].clone(),
            cards.clone(),
        );
        let shuffles = setup_log
            .iter()
            .filter(|m| m.step() == Step::Shuffle)
            .take(upto);
        for m in setup_log
            .iter()
            .filter(|m| m.step() != Step::Shuffle)
            .chain(shuffles)
        {
            s.receive(m.clone()).expect("honest");
        }
        s
    };
    let mut g = c.benchmark_group("shuffle");
    g.sample_size(20);
    let ready1 = before_shuffles(1, 1);
    g.bench_function("make_with_proof", |b| {
        b.iter_batched(
            || ready1.clone(),
            |mut s| black_box(s.shuffle_message(&h.signers[1]).expect("shuffle")),
            BatchSize::LargeInput,
        )
    });
    let ready3 = before_shuffles(3, 2);
    let third = setup_log
        .iter()
        .filter(|m| m.step() == Step::Shuffle)
        .nth(2)
        .expect("shuffle 2")
        .clone();
    g.bench_function("verify_with_proof", |b| {
        b.iter_batched(
            || ready3.clone(),
            |mut s| black_box(s.receive(third.clone()).expect("shuffle")),
            BatchSize::LargeInput,
        )
    });
    g.finish();

    // One proof of shuffle of the 144 cards, alone: the compact argument (dealt now) and the
    // linear proof (hands logged before it), made (the shuffle with its proof) and checked.
    let key = *ready1.observer().joint_key().expect("joint key");
    let input: Vec<Ciphertext> = ready1
        .observer()
        .messages()
        .iter()
        .find_map(|m| match &m.message.body {
            Body::Shuffle(s) if m.seat().index() == 0 => Some(s.wall.clone()),
            _ => None,
        })
        .expect("seat 0's wall")
        .iter()
        .map(|c| c.decompress().expect("valid"))
        .collect();
    let (ctx, s1, seed) = (h.ctx, SeatIndex::ALL[1], *h.secrets[1].shuffle_seed());
    let compact = ShuffleOutput::new(&ctx, s1, &seed, &key, &input, &cards);
    let linear = LinearShuffleOutput::new(&ctx, s1, &seed, &key, &input, &cards);
    assert!(compact.verify(&ctx, s1, &key, &input, &cards));
    assert!(linear.verify(&ctx, s1, &key, &input, &cards));
    let size = |v: &dyn Fn() -> usize| v();
    eprintln!(
        "proof of shuffle of 144 cards: compact {} bytes, linear {} bytes (the wall: {} bytes)",
        size(&|| postcard::to_allocvec(&compact.proof).expect("encode").len()),
        size(&|| postcard::to_allocvec(&linear.proof).expect("encode").len()),
        size(&|| postcard::to_allocvec(&compact.wall).expect("encode").len()),
    );
    let mut g = c.benchmark_group("proof_of_shuffle_144");
    g.sample_size(20);
    g.bench_function("compact/make", |b| {
        b.iter(|| black_box(ShuffleOutput::new(&ctx, s1, &seed, &key, &input, &cards)))
    });
    g.bench_function("compact/verify", |b| {
        b.iter(|| assert!(black_box(compact.verify(&ctx, s1, &key, &input, &cards))))
    });
    g.bench_function("linear/make", |b| {
        b.iter(|| {
            black_box(LinearShuffleOutput::new(
                &ctx, s1, &seed, &key, &input, &cards,
            ))
        })
    });
    g.bench_function("linear/verify", |b| {
        b.iter(|| assert!(black_box(linear.verify(&ctx, s1, &key, &input, &cards))))
    });
    g.finish();

    // One private draw of position 7 by seat 0.
    let position = 7;
    let drawer = SeatIndex::ALL[0];
    let mut shares = Vec::new();
    for i in 1..4 {
        let mut s = h.seats[i].clone();
        shares.push(s.share_for(&h.signers[i], position, drawer).expect("share"));
    }
    let mut g = c.benchmark_group("draw");
    g.bench_function("make_share", |b| {
        b.iter_batched(
            || h.seats[1].clone(),
            |mut s| black_box(s.share_for(&h.signers[1], position, drawer).expect("share")),
            BatchSize::LargeInput,
        )
    });
    g.bench_function("verify_one_share", |b| {
        b.iter_batched(
            || h.seats[2].clone(),
            |mut s| black_box(s.receive(shares[0].clone()).expect("share")),
            BatchSize::LargeInput,
        )
    });
    g.bench_function("receive_three_and_open", |b| {
        b.iter_batched(
            || h.seats[0].clone(),
            |mut s| {
                for m in &shares {
                    s.receive(m.clone()).expect("share");
                }
                black_box(s.open_private(position).expect("card"))
            },
            BatchSize::LargeInput,
        )
    });
    g.finish();

    // Audit of a hand where every position was drawn.
    let mut full = hand(&cards);
    for p in 0..144u8 {
        let drawer = SeatIndex::ALL[usize::from(p % 4)];
        for i in (0..4).filter(|&i| i != drawer.index()) {
            let m = full.seats[i]
                .share_for(&full.signers[i], p, drawer)
                .expect("share");
            full.broadcast(m);
        }
    }
    for i in 0..4 {
        let m = full.seats[i]
            .audit_reveal(&full.signers[i])
            .expect("audit reveal");
        full.broadcast(m);
    }
    let roster = [0, 1, 2, 3].map(|i| full.signers[i].verifying_key());
    let mut g = c.benchmark_group("audit");
    g.sample_size(10);
    g.bench_function("full_hand_144_draws", |b| {
        b.iter(|| {
            black_box(audit_with_cards(full.ctx, &roster, &full.log, cards.clone()).expect("clean"))
        })
    });
    g.bench_function("full_hand_144_draws_seat_own_transcript", |b| {
        b.iter(|| black_box(full.seats[0].audit().expect("clean")))
    });
    g.finish();
}

mod group {
    #![allow(missing_docs)]
    criterion::criterion_group! {
        name = deal;
        config = criterion::Criterion::default().with_measurement(super::CpuTime);
        targets = super::benches
    }
}

criterion_main!(group::deal);
