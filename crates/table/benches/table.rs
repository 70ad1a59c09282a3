//! A full hand of four in-memory seats, bot-driven, over a perfect 5 ms network: CPU per
//! hand (criterion), and messages, bytes and CPU per seat per hand (printed once), with the
//! claim windows (each a commitment step and an opening step) and what the commitments add.
//!
//! `cargo bench -p mahjong-table --bench table`
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used, dead_code)]

use criterion::{Criterion, criterion_group, criterion_main};
use mahjong_rules::{Ruleset, SessionLength};

#[path = "../tests/table/sim.rs"]
mod sim;

use sim::{Net, Sim, options};

fn one_hand(seed: u64, ruleset: Ruleset) -> Sim {
    let mut sim = Sim::new(seed, Net::FAST, options(ruleset), SessionLength::Hands(1));
    sim.run(3_600_000);
    assert!((0..4).all(|s| sim.client(s).is_over()));
    sim
}

fn figures() {
    let hands = 12u64;
    for ruleset in [Ruleset::Qiaoma, Ruleset::Classic, Ruleset::Baida] {
        let (mut frames, mut bytes, mut reply, mut cpu, mut steps) = (0u64, 0u64, 0u64, 0f64, 0u64);
        let (mut windows, mut commits, mut commit_bytes) = (0u64, 0u64, 0u64);
        for seed in 0..hands {
            let sim = one_hand(1000 + seed, ruleset);
            for s in 0..4 {
                let st = sim.client(s).stats();
                frames += st.broadcast_frames + st.reply_frames;
                bytes += st.broadcast_bytes + st.reply_bytes;
                reply += st.reply_bytes;
                cpu += sim.cpu[s].as_secs_f64();
            }
            steps += sim.client(0).log().len() as u64;
            for r in sim.client(0).log() {
                if matches!(r.entries[0].body, mahjong_table::Body::ClaimCommit { .. }) {
                    windows += 1;
                    commits += r.entries.len() as u64;
                    commit_bytes += r
                        .entries
                        .iter()
                        .map(|e| e.encode().len() as u64)
                        .sum::<u64>();
                }
            }
        }
        let per = (hands * 4) as f64;
        eprintln!(
            "{ruleset}: per seat per hand (set-up included): {:.0} frames sent, {:.1} KB sent \
             ({:.1} KB of it answers), {:.0} ms CPU; {:.0} log steps per hand",
            frames as f64 / per,
            bytes as f64 / per / 1000.0,
            reply as f64 / per / 1000.0,
            cpu / per * 1000.0,
            steps as f64 / hands as f64,
        );
        eprintln!(
            "{ruleset}: {:.1} claim windows per hand; the commitments add {:.1} frames of {:.0} B \
             per window (one more step: one more network delay per discard)",
            windows as f64 / hands as f64,
            commits as f64 / windows.max(1) as f64,
            commit_bytes as f64 / commits.max(1) as f64,
        );
    }
}

/// Where the bytes of a hand go, per seat per hand (set-up included): every logged
/// envelope, split into its header, its signature and its body, and the deal messages inside
/// bodies into their own header and signature, the walls, the proofs of shuffle and the
/// shares with their proofs. Counted once per envelope (as broadcast; a peer sending to
/// each of three others separately sends three times this).
fn breakdown(ruleset: Ruleset, hands: u64) {
    use mahjong_deal::{Body as Deal, SignedMessage, Step};
    use mahjong_table::Body;
    use std::collections::BTreeMap;
    let mut rows: BTreeMap<&'static str, (u64, u64)> = BTreeMap::new();
    let mut add = |k: &'static str, n: u64, bytes: u64| {
        let e = rows.entry(k).or_default();
        e.0 += n;
        e.1 += bytes;
    };
    let deal = |m: &SignedMessage, add: &mut dyn FnMut(&'static str, u64, u64)| {
        let total = m.to_bytes().unwrap().len() as u64;
        if m.is_carried() {
            // Protocol 2: the envelope's signature covers it; 64 zero bytes in the full
            // encoding only (frames and journals leave them out).
            add("deal msg: carried mark (full encoding only)", 1, 64);
        } else {
            add("deal msg: signature", 1, 64);
        }
        let body = match &m.message.body {
            Deal::Shuffle(s) => {
                let wall = postcard::to_allocvec(&s.wall).unwrap().len() as u64;
                let proof = postcard::to_allocvec(&s.proof).unwrap().len() as u64;
                add("deal: shuffle wall", 1, wall);
                add("deal: proof of shuffle", 1, proof);
                wall + proof + 1
            }
            Deal::Share(sh) => {
                let b = postcard::to_allocvec(&sh).unwrap().len() as u64;
                let name = match m.step() {
                    Step::DrawShare => "deal: draw share (point, DLEQ, position, kind)",
                    Step::Show => "deal: show share (point, DLEQ, position, kind)",
                    _ => "deal: public share",
                };
                add(name, 1, b + 1);
                b + 1
            }
            other => {
                let b = postcard::to_allocvec(other).unwrap().len() as u64;
                add("deal: commit/key/reveal/audit", 1, b);
                b
            }
        };
        add(
            "deal msg: header (version, table, hand, seat)",
            1,
            total - 64 - body,
        );
    };
    let mut frames = 0u64;
    for seed in 0..hands {
        let sim = one_hand(1000 + seed, ruleset);
        for r in sim.client(0).log() {
            for e in &r.entries {
                frames += e.frame().len() as u64;
                let total = e.encode().len() as u64;
                let body = postcard::to_allocvec(&e.body).unwrap().len() as u64;
                add("envelope: signature", 1, 64);
                add(
                    "envelope: header (version, table, hand, seq, prev, seat)",
                    1,
                    total - 64 - body,
                );
                let mut inner = 0u64;
                let shows: Vec<&SignedMessage> = match &e.body {
                    Body::Deal(ms) => ms.iter().collect(),
                    Body::Play(p) => p.shows.iter().collect(),
                    Body::ClaimOpen { play, .. } => play.shows.iter().collect(),
                    _ => Vec::new(),
                };
                for m in shows {
                    inner += m.to_bytes().unwrap().len() as u64;
                    deal(m, &mut add);
                }
                let name = match &e.body {
                    Body::Deal(_) => "body rest: deal (tags, lengths)",
                    Body::Play(_) => "body rest: play (action, tags)",
                    Body::ClaimCommit { .. } => "body rest: claim commit (hash)",
                    Body::ClaimOpen { .. } => "body rest: claim open (answer, nonce)",
                    Body::Settle { .. } | Body::SettleVoided { .. } => "body rest: settle",
                    _ => "body rest: set-up and other",
                };
                add(name, 1, body - inner);
            }
        }
    }
    let per = (hands * 4) as f64;
    let total: u64 = rows.values().map(|v| v.1).sum();
    eprintln!("{ruleset}: bytes per seat per hand by part (logged envelopes, counted once):");
    for (k, (n, b)) in &rows {
        eprintln!(
            "  {k:<58} {:>7.1} items {:>8.1} KB {:>5.1} %",
            *n as f64 / per,
            *b as f64 / per / 1000.0,
            *b as f64 * 100.0 / total as f64
        );
    }
    eprintln!(
        "  {:<58} {:>16.1} KB",
        "total (the full encoding, as journaled)",
        total as f64 / per / 1000.0
    );
    eprintln!(
        "  {:<58} {:>16.1} KB",
        "as frames sent (compact)",
        frames as f64 / per / 1000.0
    );
}

fn bench(c: &mut Criterion) {
    breakdown(Ruleset::Qiaoma, 4);
    figures();
    let mut g = c.benchmark_group("table");
    g.sample_size(10);
    let mut seed = 0;
    g.bench_function("full hand, four seats (qiaoma)", |b| {
        b.iter(|| {
            seed += 1;
            one_hand(seed, Ruleset::Qiaoma)
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
