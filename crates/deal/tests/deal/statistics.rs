//! The joint randomness and the wall are unbiased: chi-square tests over many hands, with a
//! fixed seed (so they cannot flake) and a generous threshold (p ≈ 10⁻⁶), and negative controls
//! showing the same statistic and threshold catch a biased source.
//!
//! The first-card test uses [`permutation`] (the exact function every seat's shuffle applies)
//! rather than full crypto hands: which card lands where depends only on the four
//! permutations, and `honest::final_wall_is_the_composition_of_the_four_permutations` checks
//! that against a full hand and its audit.

use mahjong_deal::{HandContext, JointRandomness, SeatIndex, WALL_SIZE, permutation};
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};

/// Pearson's chi-square statistic of `counts` against a uniform distribution.
fn chi_square(counts: &[u64]) -> f64 {
    let n: u64 = counts.iter().sum();
    let expected = n as f64 / counts.len() as f64;
    counts
        .iter()
        .map(|&c| {
            let d = c as f64 - expected;
            d * d / expected
        })
        .sum()
}

/// The chi-square value exceeded with probability about 10⁻⁶ under uniformity, for `df`
/// degrees of freedom (Wilson–Hilferty approximation, z = 4.75).
fn threshold(df: usize) -> f64 {
    let k = df as f64;
    let a = 2.0 / (9.0 * k);
    k * (1.0 - a + 4.75 * a.sqrt()).powi(3)
}

fn uniform(counts: &[u64]) -> bool {
    let (stat, limit) = (chi_square(counts), threshold(counts.len() - 1));
    eprintln!(
        "χ² = {stat:.1} (df {}, threshold {limit:.1})",
        counts.len() - 1
    );
    stat < limit
}

fn random_seed(rng: &mut ChaCha20Rng) -> [u8; 32] {
    let mut s = [0u8; 32];
    rng.fill_bytes(&mut s);
    s
}

/// The four seats' permutations of a hand whose seats use `seeds`.
fn perms(ctx: &HandContext, seeds: &[[u8; 32]; 4]) -> [[u8; WALL_SIZE]; 4] {
    [0, 1, 2, 3].map(|s| permutation(ctx, SeatIndex::ALL[s], &seeds[s]))
}

/// The card at final position `position` given the four permutations.
fn card_of(perms: &[[u8; WALL_SIZE]; 4], position: usize) -> usize {
    let mut q = position;
    for s in (0..4).rev() {
        q = usize::from(perms[s][q]);
    }
    q
}

/// The card at final position `position` of a hand whose four seats use `seeds`.
fn card_at(ctx: &HandContext, seeds: &[[u8; 32]; 4], position: usize) -> usize {
    card_of(&perms(ctx, seeds), position)
}

const HANDS: usize = 200 * WALL_SIZE;

#[test]
fn threshold_is_sane() {
    // Known values: χ²(df=3) at p=1e-6 ≈ 30.7; χ²(df=143) at p=1e-6 ≈ 236.
    assert!((threshold(3) - 30.7).abs() < 3.0, "{}", threshold(3));
    assert!((threshold(143) - 236.0).abs() < 5.0, "{}", threshold(143));
}

#[test]
fn first_and_last_card_of_the_final_wall_are_uniform() {
    let mut rng = ChaCha20Rng::seed_from_u64(0xC0FFEE);
    let mut first = vec![0u64; WALL_SIZE];
    let mut last = vec![0u64; WALL_SIZE];
    for hand in 0..HANDS as u32 {
        let ctx = HandContext {
            table: [5; 32],
            hand,
        };
        let seeds = [0; 4].map(|_: u8| random_seed(&mut rng));
        let p = perms(&ctx, &seeds);
        first[card_of(&p, 0)] += 1;
        last[card_of(&p, WALL_SIZE - 1)] += 1;
    }
    assert!(uniform(&first), "first card χ² = {}", chi_square(&first));
    assert!(uniform(&last), "last card χ² = {}", chi_square(&last));
}

#[test]
fn one_honest_shuffler_suffices() {
    // Three seats use a fixed, known seed; only seat 2 is random. The wall is still uniform.
    let mut rng = ChaCha20Rng::seed_from_u64(7);
    let mut first = vec![0u64; WALL_SIZE];
    let ctx = HandContext {
        table: [6; 32],
        hand: 0,
    };
    for _ in 0..HANDS {
        let seeds = [[0; 32], [0; 32], random_seed(&mut rng), [0; 32]];
        first[card_at(&ctx, &seeds, 0)] += 1;
    }
    assert!(uniform(&first), "χ² = {}", chi_square(&first));
}

#[test]
fn dice_and_dealer_are_uniform() {
    let mut rng = ChaCha20Rng::seed_from_u64(0xD1CE);
    let mut pairs = vec![0u64; 36];
    let mut faces = vec![0u64; 6];
    let mut dealer = vec![0u64; 4];
    for hand in 0..36_000u32 {
        let ctx = HandContext {
            table: [7; 32],
            hand,
        };
        let seeds = [0; 4].map(|_: u8| random_seed(&mut rng));
        let j = JointRandomness::from_seeds(&ctx, &seeds);
        let [a, b] = j.dice.map(usize::from);
        pairs[(a - 1) * 6 + (b - 1)] += 1;
        faces[a - 1] += 1;
        faces[b - 1] += 1;
        dealer[j.dealer.index()] += 1;
    }
    assert!(uniform(&pairs), "dice pairs χ² = {}", chi_square(&pairs));
    assert!(uniform(&faces), "faces χ² = {}", chi_square(&faces));
    assert!(uniform(&dealer), "dealer χ² = {}", chi_square(&dealer));
}

// ---- Negative controls: the same statistic and thresholds reject biased sources. ----

#[test]
fn control_modulo_biased_card_is_caught() {
    // "card = byte mod 144": cards 0..112 twice as likely as 112..144.
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let mut first = vec![0u64; WALL_SIZE];
    for _ in 0..HANDS {
        first[(rng.next_u32() as u8 as usize) % WALL_SIZE] += 1;
    }
    assert!(!uniform(&first), "χ² = {}", chi_square(&first));
}

#[test]
fn control_slightly_biased_shuffle_is_caught() {
    // A shuffler that puts card 0 on top with probability about 3/144 instead of 1/144 (a
    // client nudging its seed until it likes the top card, now and then).
    let mut rng = ChaCha20Rng::seed_from_u64(2);
    let mut first = vec![0u64; WALL_SIZE];
    let ctx = HandContext {
        table: [8; 32],
        hand: 0,
    };
    for _ in 0..HANDS {
        let seed = random_seed(&mut rng);
        let mut card = card_at(&ctx, &[seed, [0; 32], [0; 32], [0; 32]], 0);
        if card != 0 && rng.next_u32() % 72 == 0 {
            card = 0;
        }
        first[card] += 1;
    }
    assert!(!uniform(&first), "χ² = {}", chi_square(&first));
}

#[test]
fn control_biased_dice_are_caught() {
    // "die = nibble mod 6 + 1": faces 1..4 at 3/16, 5..6 at 2/16.
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    let mut faces = vec![0u64; 6];
    for _ in 0..72_000 {
        faces[(rng.next_u32() & 0xF) as usize % 6] += 1;
    }
    assert!(!uniform(&faces), "χ² = {}", chi_square(&faces));
}

#[test]
fn control_grinding_last_revealer_biases_the_dealer_and_is_caught() {
    // Without commitments, seat 3 could reveal last and pick the better of two seeds to become
    // dealer. The commitment forbids it (attacks::reveal_not_matching_its_commitment…); here
    // the statistic shows what it would do.
    let mut rng = ChaCha20Rng::seed_from_u64(4);
    let mut dealer = vec![0u64; 4];
    for hand in 0..36_000u32 {
        let ctx = HandContext {
            table: [9; 32],
            hand,
        };
        let mut seeds = [0; 4].map(|_: u8| random_seed(&mut rng));
        let mut j = JointRandomness::from_seeds(&ctx, &seeds);
        if j.dealer != SeatIndex::ALL[3] {
            seeds[3] = random_seed(&mut rng);
            j = JointRandomness::from_seeds(&ctx, &seeds);
        }
        dealer[j.dealer.index()] += 1;
    }
    assert!(!uniform(&dealer), "χ² = {}", chi_square(&dealer));
}
