//! Zero-knowledge proof that a wall is a shuffle (permutation + re-encryption) of another,
//! so a seat that replaces, duplicates or drops a card in its shuffle is caught on receipt,
//! not only at the audit.
//!
//! Hands are now dealt with the compact argument (`shuffle_argument`, a quarter of the size);
//! this proof is kept so that every hand logged with it ([`crate::Body::LinearShuffle`])
//! still verifies, and [`crate::LinearShuffleOutput::new`] still makes one for tests.
//!
//! Goes beyond ARCHITECTURE.md "Randomness and dealing" item 2 (which relies on the end-of-hand
//! audit). This is the proof of a shuffle of Terelius and Wikström ("Proofs of restricted
//! shuffles", AFRICACRYPT 2010), in the form of the CHVote specification's
//! `GenShuffleProof`/`CheckShuffleProof` (Haenni et al.), written additively over
//! ristretto255 with ciphertexts `(C1, C2) = (r·G, M + r·Y)`:
//!
//! - permutation commitment `c_{ψ(i)} = H_i + r_{ψ(i)}·G` (independent generators `H_i`);
//! - challenges `u_j = H(statement, c, j)`, `u'_i = u_{ψ(i)}`;
//! - commitment chain `ĉ_i = r̂_i·G + u'_i·ĉ_{i−1}`, `ĉ_0 = H_0`;
//! - Σ-protocol commitments `t₁ = ω₁G`, `t₂ = ω₂G`, `t₃ = ω₃G + Σω'_iH_i`,
//!   `t₄ = (Σω'_iC2'_i − ω₄Y, Σω'_iC1'_i − ω₄G)`, `t̂_i = ω̂_iG + ω'_iĉ_{i−1}`;
//! - challenge `c = H(statement, c, ĉ, t)` and responses `s₁ = ω₁ − c·Σr_j`,
//!   `s₂ = ω₂ − c·Σr̂_iv_i`, `s₃ = ω₃ − c·Σr_ju_j`, `s₄ = ω₄ − c·Σr'_iu'_i`,
//!   `ŝ_i = ω̂_i − c·r̂_i`, `s'_i = ω'_i − c·u'_i`.
//!
//! The proof carries the commitments `t` (not the challenge), so the verifier checks all
//! `N + 5` equations at once: one variable-time multiscalar multiplication of about `7N`
//! points with weights drawn from a hash of the whole proof (a false equation survives with
//! probability about 2⁻²⁵²). About 32 KB per shuffle with `N = 144`.
//!
//! The prover's randomness is derived from the seat's secret shuffle seed and the statement,
//! so the proof, like every other message, is deterministic.

use curve25519_dalek::constants::{RISTRETTO_BASEPOINT_POINT, RISTRETTO_BASEPOINT_TABLE};
use curve25519_dalek::ristretto::{CompressedRistretto, RistrettoBasepointTable, RistrettoPoint};
use curve25519_dalek::scalar::Scalar;
use curve25519_dalek::traits::{Identity, IsIdentity, MultiscalarMul, VartimeMultiscalarMul};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

use crate::elgamal::{CompressedCiphertext, ShuffleGenerators, Shuffled, Wall};
use crate::hash::{DomainHash, Purpose};
use crate::{HandContext, SeatIndex, WALL_SIZE};

/// A proof that a shuffle's output is a permutation and re-encryption of its input.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShuffleProof {
    /// Permutation commitments `c_1..c_N`.
    pub permutation_commitments: Vec<CompressedRistretto>,
    /// Commitment chain `ĉ_1..ĉ_N`.
    pub chain: Vec<CompressedRistretto>,
    /// `t₁, t₂, t₃, t₄,₁, t₄,₂`.
    pub t: [CompressedRistretto; 5],
    /// `t̂_1..t̂_N`.
    pub t_hat: Vec<CompressedRistretto>,
    /// `s₁, s₂, s₃, s₄`.
    pub s: [Scalar; 4],
    /// `ŝ_1..ŝ_N`.
    pub s_hat: Vec<Scalar>,
    /// `s'_1..s'_N`.
    pub s_prime: Vec<Scalar>,
}

/// Stage tags inside the [`Purpose::ShuffleProof`] hashes.
const STATEMENT: u8 = 0;
const WITH_COMMITMENTS: u8 = 1;
const U_CHALLENGE: u8 = 2;
const CHALLENGE: u8 = 3;
const WEIGHTS: u8 = 4;
const WEIGHT: u8 = 5;

fn hash_points<'a>(
    mut h: DomainHash<Sha256>,
    points: impl IntoIterator<Item = &'a CompressedRistretto>,
) -> DomainHash<Sha256> {
    for p in points {
        h = h.point(p);
    }
    h
}

fn hash_wall(mut h: DomainHash<Sha256>, wall: &[CompressedCiphertext]) -> DomainHash<Sha256> {
    for c in wall {
        h = h.bytes32(&c.c1).bytes32(&c.c2);
    }
    h
}

/// The statement: who shuffles, under which key, from which wall to which.
fn statement(
    ctx: &HandContext,
    seat: SeatIndex,
    key: &CompressedRistretto,
    input: &[CompressedCiphertext],
    output: &[CompressedCiphertext],
) -> [u8; 32] {
    let h = DomainHash::sha256(Purpose::ShuffleProof)
        .u8(STATEMENT)
        .ctx(ctx)
        .seat(seat)
        .point(key);
    hash_wall(hash_wall(h, input), output).finish()
}

/// The statement extended with the permutation commitments, and the challenges `u_j`.
fn u_challenges(d0: &[u8; 32], commitments: &[CompressedRistretto]) -> ([u8; 32], Vec<Scalar>) {
    let h = DomainHash::sha256(Purpose::ShuffleProof)
        .u8(WITH_COMMITMENTS)
        .bytes32(d0);
    let d = hash_points(h, commitments).finish();
    let u = (0..WALL_SIZE as u16)
        .map(|j| {
            DomainHash::sha512(Purpose::ShuffleProof)
                .u8(U_CHALLENGE)
                .bytes32(&d)
                .u16(j)
                .finish_scalar()
        })
        .collect();
    (d, u)
}

/// The main challenge `c`.
fn challenge(
    d: &[u8; 32],
    chain: &[CompressedRistretto],
    t: &[CompressedRistretto; 5],
    t_hat: &[CompressedRistretto],
) -> Scalar {
    let h = DomainHash::sha256(Purpose::ShuffleProof)
        .u8(CHALLENGE)
        .bytes32(d);
    let digest = hash_points(hash_points(hash_points(h, chain), t), t_hat).finish();
    // Reduced 256-bit challenge: within 2^-125 of uniform.
    Scalar::from_bytes_mod_order(digest)
}

/// Proves that `output` is `shuffled` applied to `input` under `key`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn prove(
    ctx: &HandContext,
    seat: SeatIndex,
    generators: &ShuffleGenerators,
    key: &RistrettoPoint,
    input: &Wall,
    output: &Wall,
    shuffled: &Shuffled,
    shuffle_seed: &[u8; 32],
) -> ShuffleProof {
    let n = WALL_SIZE;
    let g = RISTRETTO_BASEPOINT_TABLE;
    let d0 = statement(
        ctx,
        seat,
        &key.compress(),
        &input.compressed,
        &output.compressed,
    );
    let nonce = |label: u8, i: usize| {
        DomainHash::sha512(Purpose::ShuffleProofNonce)
            .ctx(ctx)
            .seat(seat)
            .bytes32(shuffle_seed)
            .bytes32(&d0)
            .u8(label)
            .u16(i as u16)
            .finish_scalar()
    };
    let perm: Vec<usize> = shuffled.perm.iter().map(|&p| usize::from(p)).collect();

    // Permutation commitments, indexed by input position j = ψ(i).
    let r: Vec<Scalar> = (0..n).map(|j| nonce(0, j)).collect();
    let mut commitments = vec![RistrettoPoint::identity(); n];
    for (i, &j) in perm.iter().enumerate() {
        commitments[j] = generators.h[i] + &r[j] * g;
    }
    let commitments: Vec<CompressedRistretto> = commitments.iter().map(|c| c.compress()).collect();
    let (d, u) = u_challenges(&d0, &commitments);
    let u_prime: Vec<Scalar> = perm.iter().map(|&j| u[j]).collect();

    // Commitment chain in closed form: ĉ_i = U_i·H_0 + R_i·G with U_i = Π_{k≤i} u'_k and
    // R_i = r̂_i + u'_i·R_{i−1}.
    let h0_table: &RistrettoBasepointTable = &generators.h0_table;
    let r_hat: Vec<Scalar> = (0..n).map(|i| nonce(1, i)).collect();
    let (mut big_u, mut big_r) = (Scalar::ONE, Scalar::ZERO);
    let mut prev = Vec::with_capacity(n); // (U_{i−1}, R_{i−1})
    let mut chain = Vec::with_capacity(n);
    for i in 0..n {
        prev.push((big_u, big_r));
        big_u *= u_prime[i];
        big_r = r_hat[i] + u_prime[i] * big_r;
        chain.push((&big_u * h0_table + &big_r * g).compress());
    }

    // Σ-protocol commitments.
    let w: Vec<Scalar> = (0..4).map(|k| nonce(2, k)).collect();
    let w_hat: Vec<Scalar> = (0..n).map(|i| nonce(3, i)).collect();
    let w_prime: Vec<Scalar> = (0..n).map(|i| nonce(4, i)).collect();
    let base = RISTRETTO_BASEPOINT_POINT;
    let t1 = &w[0] * g;
    let t2 = &w[1] * g;
    let t3 = RistrettoPoint::multiscalar_mul(
        w_prime.iter().chain([&w[2]]),
        generators.h.iter().chain([&base]),
    );
    let neg_w4 = -w[3];
    let t41 = RistrettoPoint::multiscalar_mul(
        w_prime.iter().chain([&neg_w4]),
        output.points.iter().map(|c| &c.c2).chain([key]),
    );
    let t42 = RistrettoPoint::multiscalar_mul(
        w_prime.iter().chain([&neg_w4]),
        output.points.iter().map(|c| &c.c1).chain([&base]),
    );
    let t = [t1, t2, t3, t41, t42].map(|p| p.compress());
    let t_hat: Vec<CompressedRistretto> = (0..n)
        .map(|i| {
            let (u_prev, r_prev) = prev[i];
            (&(w_hat[i] + w_prime[i] * r_prev) * g + &(w_prime[i] * u_prev) * h0_table).compress()
        })
        .collect();

    // Challenge and responses.
    let c = challenge(&d, &chain, &t, &t_hat);
    let r_bar: Scalar = r.iter().sum();
    let r_tilde: Scalar = r.iter().zip(&u).map(|(r, u)| r * u).sum();
    let r_prime: Scalar = shuffled
        .rerandomizers
        .iter()
        .zip(&u_prime)
        .map(|(r, u)| r * u)
        .sum();
    ShuffleProof {
        permutation_commitments: commitments,
        chain,
        t,
        t_hat,
        s: [
            w[0] - c * r_bar,
            w[1] - c * big_r,
            w[2] - c * r_tilde,
            w[3] - c * r_prime,
        ],
        s_hat: (0..n).map(|i| w_hat[i] - c * r_hat[i]).collect(),
        s_prime: (0..n).map(|i| w_prime[i] - c * u_prime[i]).collect(),
    }
}

fn decompress_all(points: &[CompressedRistretto]) -> Option<Vec<RistrettoPoint>> {
    points.iter().map(CompressedRistretto::decompress).collect()
}

/// Checks that `proof` shows `output` to be a shuffle of `input` under `key`.
pub(crate) fn verify(
    ctx: &HandContext,
    seat: SeatIndex,
    generators: &ShuffleGenerators,
    key: &RistrettoPoint,
    input: &Wall,
    output: &Wall,
    proof: &ShuffleProof,
) -> bool {
    let n = WALL_SIZE;
    if [
        proof.permutation_commitments.len(),
        proof.chain.len(),
        proof.t_hat.len(),
        proof.s_hat.len(),
        proof.s_prime.len(),
        input.points.len(),
        output.points.len(),
        generators.h.len(),
    ]
    .iter()
    .any(|&len| len != n)
    {
        return false;
    }
    let (Some(commitments), Some(chain), Some(t_hat), Some(t)) = (
        decompress_all(&proof.permutation_commitments),
        decompress_all(&proof.chain),
        decompress_all(&proof.t_hat),
        decompress_all(&proof.t),
    ) else {
        return false;
    };

    let d0 = statement(
        ctx,
        seat,
        &key.compress(),
        &input.compressed,
        &output.compressed,
    );
    let (d, u) = u_challenges(&d0, &proof.permutation_commitments);
    let c = challenge(&d, &proof.chain, &proof.t, &proof.t_hat);
    let u_all: Scalar = u.iter().product();

    // Weights for the N + 5 equations, from a hash of the whole proof.
    let mut h = DomainHash::sha256(Purpose::ShuffleProof)
        .u8(WEIGHTS)
        .scalar(&c);
    for s in proof.s.iter().chain(&proof.s_hat).chain(&proof.s_prime) {
        h = h.scalar(s);
    }
    let z = h.finish();
    let weight = |k: usize| {
        DomainHash::sha512(Purpose::ShuffleProof)
            .u8(WEIGHT)
            .bytes32(&z)
            .u16(k as u16)
            .finish_scalar()
    };
    let [a1, a2, a3, a41, a42] = [0, 1, 2, 3, 4].map(weight);
    let beta: Vec<Scalar> = (0..n).map(|i| weight(5 + i)).collect();
    let [s1, s2, s3, s4] = proof.s;
    let (s_hat, s_prime) = (&proof.s_hat, &proof.s_prime);

    // Σ weight·(lhs − rhs) of:
    //   t₁ = c·(Σc_j − ΣH_i) + s₁G
    //   t₂ = c·(ĉ_N − u·H_0) + s₂G
    //   t₃ = c·Σu_jc_j + s₃G + Σs'_iH_i
    //   t₄,₁ = c·Σu_jC2_j − s₄Y + Σs'_iC2'_i
    //   t₄,₂ = c·Σu_jC1_j − s₄G + Σs'_iC1'_i
    //   t̂_i = c·ĉ_i + ŝ_iG + s'_iĉ_{i−1}
    let cap = 7 * n + 8;
    let mut scalars: Vec<Scalar> = Vec::with_capacity(cap);
    let mut points: Vec<&RistrettoPoint> = Vec::with_capacity(cap);
    let base = RISTRETTO_BASEPOINT_POINT;
    for (k, weight) in [a1, a2, a3, a41, a42].into_iter().enumerate() {
        scalars.push(weight);
        points.push(&t[k]);
    }
    let g_coeff = -a1 * s1 - a2 * s2 - a3 * s3 + a42 * s4
        - beta.iter().zip(s_hat).map(|(b, s)| b * s).sum::<Scalar>();
    scalars.push(g_coeff);
    points.push(&base);
    scalars.push(a41 * s4);
    points.push(key);
    scalars.push(c * u_all * a2 - beta[0] * s_prime[0]);
    points.push(&generators.h0);
    for j in 0..n {
        scalars.push(-c * (a1 + a3 * u[j]));
        points.push(&commitments[j]);
        scalars.push(c * a1 - a3 * s_prime[j]);
        points.push(&generators.h[j]);
        scalars.push(-c * a41 * u[j]);
        points.push(&input.points[j].c2);
        scalars.push(-c * a42 * u[j]);
        points.push(&input.points[j].c1);
        scalars.push(-a41 * s_prime[j]);
        points.push(&output.points[j].c2);
        scalars.push(-a42 * s_prime[j]);
        points.push(&output.points[j].c1);
        scalars.push(beta[j]);
        points.push(&t_hat[j]);
        let next = if j + 1 < n {
            beta[j + 1] * s_prime[j + 1]
        } else {
            c * a2
        };
        scalars.push(-c * beta[j] - next);
        points.push(&chain[j]);
    }
    RistrettoPoint::vartime_multiscalar_mul(scalars, points).is_identity()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::elgamal::{CardTable, Ciphertext, shuffle};

    fn ctx() -> HandContext {
        HandContext {
            table: [4; 32],
            hand: 9,
        }
    }

    struct Case {
        cards: CardTable,
        key: RistrettoPoint,
        input: Wall,
        output: Wall,
        proof: ShuffleProof,
    }

    fn case(seat: SeatIndex) -> Case {
        let cards = CardTable::new();
        let key = RistrettoPoint::mul_base(&Scalar::from(31337u64));
        let table = RistrettoBasepointTable::create(&key);
        // Seat 1 shuffles seat 0's output, so the input has random C1s too.
        let first = shuffle(
            &ctx(),
            SeatIndex::ALL[0],
            &[1; 32],
            &table,
            cards.initial_wall(),
        );
        let input = Wall::from_points(first.output);
        let shuffled = shuffle(&ctx(), seat, &[2; 32], &table, &input.points);
        let output = Wall::from_points(shuffled.output.clone());
        let proof = prove(
            &ctx(),
            seat,
            &cards.generators,
            &key,
            &input,
            &output,
            &shuffled,
            &[2; 32],
        );
        Case {
            cards,
            key,
            input,
            output,
            proof,
        }
    }

    fn check(c: &Case, seat: SeatIndex, output: &Wall, proof: &ShuffleProof) -> bool {
        verify(
            &ctx(),
            seat,
            &c.cards.generators,
            &c.key,
            &c.input,
            output,
            proof,
        )
    }

    #[test]
    fn honest_shuffle_verifies_and_tampering_fails() {
        let s1 = SeatIndex::ALL[1];
        let c = case(s1);
        assert!(check(&c, s1, &c.output, &c.proof));
        assert!(
            !check(&c, SeatIndex::ALL[2], &c.output, &c.proof),
            "bound to the seat"
        );

        // Swap two output ciphertexts (still a shuffle, but not the proven one).
        let mut swapped = c.output.points.clone();
        swapped.swap(3, 4);
        assert!(!check(&c, s1, &Wall::from_points(swapped), &c.proof));

        // Replace one output by a fresh encryption of a card.
        let mut replaced = c.output.points.clone();
        let r = Scalar::from(5u64);
        replaced[7] = Ciphertext {
            c1: RistrettoPoint::mul_base(&r),
            c2: c.cards.points()[0] + c.key * r,
        };
        assert!(!check(&c, s1, &Wall::from_points(replaced), &c.proof));

        // Any changed proof element fails.
        let mut p = c.proof.clone();
        p.s_prime[10] += Scalar::ONE;
        assert!(!check(&c, s1, &c.output, &p));
        let mut p = c.proof.clone();
        p.s[1] += Scalar::ONE;
        assert!(!check(&c, s1, &c.output, &p));
        let mut p = c.proof.clone();
        p.chain.swap(0, 1);
        assert!(!check(&c, s1, &c.output, &p));
        let mut p = c.proof.clone();
        p.t_hat.pop();
        assert!(!check(&c, s1, &c.output, &p));
    }

    #[test]
    fn proof_for_a_duplicating_wall_fails() {
        // A cheating prover that shuffles honestly, then duplicates a card, and proves the
        // honest wall: the proof does not transfer.
        let s1 = SeatIndex::ALL[1];
        let c = case(s1);
        let mut dup = c.output.points.clone();
        let r = Scalar::from(9u64);
        dup[1] = Ciphertext {
            c1: dup[0].c1 + RistrettoPoint::mul_base(&r),
            c2: dup[0].c2 + c.key * r,
        };
        assert!(!check(&c, s1, &Wall::from_points(dup), &c.proof));
    }
}
