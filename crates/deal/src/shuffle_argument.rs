//! The compact proof of shuffle: Bayer and Groth's argument ("Efficient zero-knowledge
//! argument for correctness of a shuffle", EUROCRYPT 2012), whose size grows with the square
//! root of the wall. It replaces the linear proof of `shuffle_proof` (23,338 bytes) with 6,315
//! bytes for the 144 cards; that proof's verifier stays, so hands dealt before still verify.
//!
//! Layout: 6 columns of 24. The size, `11m + 2` points and `5n + 9` scalars, is nearly flat
//! near its minimum (9 × 16: 6,091 bytes; 12 × 12: 6.5 KB), while the prover's work, mostly
//! the `2m − 1` ciphertexts `E_k` of the multi-exponentiation argument, grows with `m`
//! (`2mN` constant-time point multiplications): 9 × 16 took 41.6 ms to make, 6 × 24 takes
//! 35 ms, about the linear proof's 31 ms, and 8 ms to check against its 11.5 ms.
//!
//! Written additively over ristretto255 from the paper and the structure of the Swiss Post
//! "crypto-primitives" specification (`GenShuffleArgument` and its sub-arguments), with
//! ciphertexts `(C1, C2) = (r·G, M + r·Y)` and `Enc(M; τ) = (τ·G, M + τ·Y)`:
//!
//! - The 144 wall positions form `m = ROWS` columns of `n = COLS` values; position
//!   `p = j·n + i` is entry `i` of column `j`. A commitment to a column `v` with randomness
//!   `r` is `com(v; r) = Σ v_i·G_i + r·H`, with generators `G_1..G_n`, `H` hashed to the curve
//!   (nobody knows a relation between them, the cards, `G` or any key).
//! - Output position `p` holds input `π(p)` re-encrypted with `ρ_p` (see `elgamal`). The
//!   prover commits to `a_p = π(p)` (`c_A`), draws `x`, commits to `b_p = x^π(p)` (`c_B`),
//!   draws `y, z`, and proves two things:
//!   - a **product argument**: the committed `y·a_p + b_p − z` multiply to
//!     `Π_p (y·p + x^p − z)`, which (by Schwartz–Zippel in `y` and `z`) makes the pairs
//!     `(a_p, b_p)` a permutation of `(p, x^p)`; it is a Hadamard argument (the column-wise
//!     products, through a zero argument over the bilinear map `u ⋆ v = Σ u_i v_i y^{i+1}`)
//!     and a single-value product argument;
//!   - a **multi-exponentiation argument**: `Σ_p x^p·input_p = Enc(0; ρ) + Σ_p b_p·output_p`
//!     with the committed `b` and `ρ = −Σ b_p ρ_p`, so the output re-encrypts the input
//!     permuted as `b` is.
//! - Fiat–Shamir: one SHA-512 transcript under the purpose `shuffle-argument` absorbs the
//!   statement (table, hand, seat, joint key, both walls) and every prover message in order,
//!   each with a tag and its length; every challenge is a wide reduction of the transcript so
//!   far with its own tag. The generators, the layout and the argument's structure are fixed
//!   by the purpose label.
//! - The prover's randomness is `sha512(shuffle-argument-nonce ‖ table ‖ hand ‖ seat ‖
//!   shuffle seed ‖ statement digest ‖ label ‖ index)`: the argument, like every message, is
//!   a deterministic function of the seat's secrets and what it received.
//!
//! The verifier computes everything the prover does not send (`c_B_m = com(0; 0)`,
//! `E_m = Σ x^p·input_p`, the zero argument's `c_D_{m+1} = com(0; 0)`, the Hadamard
//! argument's first and last commitments) and checks each equation with one variable-time
//! multiscalar multiplication; the two of the multi-exponentiation argument that touch the
//! walls (their C1 and C2 halves) are checked as one, weighted by a last challenge: about
//! `4N` points.

use curve25519_dalek::constants::{RISTRETTO_BASEPOINT_POINT, RISTRETTO_BASEPOINT_TABLE};
use curve25519_dalek::ristretto::{CompressedRistretto, RistrettoPoint};
use curve25519_dalek::scalar::Scalar;
use curve25519_dalek::traits::{IsIdentity, MultiscalarMul, VartimeMultiscalarMul};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha512};

use crate::elgamal::{Ciphertext, CompressedCiphertext, Shuffled, Wall};
use crate::hash::{DomainHash, Purpose, domain_tag};
use crate::{HandContext, SeatIndex, WALL_SIZE};

/// `m`: the number of columns (commitments) the wall is split into.
pub(crate) const ROWS: usize = 6;
/// `n`: the values in one column (generators of the commitment key).
pub(crate) const COLS: usize = 24;
const _: () = assert!(ROWS * COLS == WALL_SIZE && ROWS >= 2 && COLS >= 2);

/// The commitment key: `G_1..G_n` and `H`.
#[derive(Clone, Debug)]
pub(crate) struct CommitKey {
    g: Vec<RistrettoPoint>,
    h: RistrettoPoint,
    /// `Σ G_i`: `com(1, …, 1; 0)`.
    g_sum: RistrettoPoint,
}

impl CommitKey {
    /// `H` and `G_i` are hash-to-ristretto of `sha512(shuffle-argument-generator ‖ i u16 LE)`
    /// for `i = 0` and `i = 1..=n`.
    pub(crate) fn new() -> Self {
        let generator = |i: u16| {
            RistrettoPoint::from_uniform_bytes(
                &DomainHash::sha512(Purpose::ShuffleArgumentGenerator)
                    .u16(i)
                    .finish_wide(),
            )
        };
        let g: Vec<RistrettoPoint> = (1..=COLS as u16).map(generator).collect();
        let g_sum = g.iter().sum();
        CommitKey {
            g,
            h: generator(0),
            g_sum,
        }
    }

    /// `com(v; r)` in constant time (`v` at most `n` values).
    fn commit(&self, v: &[Scalar], r: &Scalar) -> RistrettoPoint {
        RistrettoPoint::multiscalar_mul(
            v.iter().chain([r]),
            self.g.iter().take(v.len()).chain([&self.h]),
        )
    }

    /// `com(v; r)` as the terms of a verifier's equation, negated: `−v_i·G_i`, `−r·H`.
    fn neg_terms(&self, v: &[Scalar], r: &Scalar, eq: &mut Equation) {
        for (vi, gi) in v.iter().zip(&self.g) {
            eq.push(-vi, *gi);
        }
        eq.push(-r, self.h);
    }
}

/// A proof that a wall is a shuffle of another, of size `O(√N)`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShuffleArgument {
    /// `c_A`: commitments to the permutation, one per column (`m`).
    pub c_a: Vec<CompressedRistretto>,
    /// `c_B`: commitments to `x^π(p)`, one per column (`m`).
    pub c_b: Vec<CompressedRistretto>,
    /// The committed `y·a + b − z` multiply to the public product.
    pub product: ProductArgument,
    /// The output, weighted by `b`, re-encrypts the input weighted by `x^p`.
    pub multi_exp: MultiExpArgument,
}

/// Product argument: a commitment to the column-wise products, its Hadamard argument and its
/// single-value product argument.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProductArgument {
    /// `c_b`: commitment to the `n` products across the columns.
    pub c_b: CompressedRistretto,
    /// Those products are the columns' Hadamard product.
    pub hadamard: HadamardArgument,
    /// Their product is the public value.
    pub single: SingleValueProductArgument,
}

/// Hadamard argument: intermediate products and a zero argument.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HadamardArgument {
    /// `c_B_2..c_B_{m−1}`: commitments to the running products of the first columns.
    pub c_b: Vec<CompressedRistretto>,
    /// `Σ a_{i+1} ⋆ x^i b_i − 1 ⋆ Σ x^i b_{i+1} = 0`.
    pub zero: ZeroArgument,
}

/// Zero argument: `Σ a_i ⋆ b_i = 0` for committed `a_1..a_m`, `b_1..b_m`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ZeroArgument {
    /// `c_A_0`.
    pub c_a0: CompressedRistretto,
    /// `c_B_{m+1}`.
    pub c_b_last: CompressedRistretto,
    /// `c_D_k` for `k = 0..=2m` except `m + 1` (`2m` values).
    pub c_d: Vec<CompressedRistretto>,
    /// `a` (`n`).
    pub a: Vec<Scalar>,
    /// `b` (`n`).
    pub b: Vec<Scalar>,
    /// `r`, `s`, `t`.
    pub r: Scalar,
    /// `s`.
    pub s: Scalar,
    /// `t`.
    pub t: Scalar,
}

/// Single-value product argument: the committed `a_1..a_n` multiply to `b`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SingleValueProductArgument {
    /// `c_d`.
    pub c_d: CompressedRistretto,
    /// `c_δ`.
    pub c_lower_delta: CompressedRistretto,
    /// `c_Δ`.
    pub c_upper_delta: CompressedRistretto,
    /// `ã` (`n`).
    pub a_tilde: Vec<Scalar>,
    /// `b̃` (`n`).
    pub b_tilde: Vec<Scalar>,
    /// `r̃`.
    pub r_tilde: Scalar,
    /// `s̃`.
    pub s_tilde: Scalar,
}

/// Multi-exponentiation argument: `C = Enc(0; ρ) + Σ_i <A_i, C_i>` for committed `A_i`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MultiExpArgument {
    /// `c_A_0`.
    pub c_a0: CompressedRistretto,
    /// `c_B_k` for `k = 0..2m` except `m` (`2m − 1` values).
    pub c_b: Vec<CompressedRistretto>,
    /// `E_k` for `k = 0..2m` except `m` (`2m − 1` ciphertexts).
    pub e: Vec<CompressedCiphertext>,
    /// `a` (`n`).
    pub a: Vec<Scalar>,
    /// `r`.
    pub r: Scalar,
    /// `b`.
    pub b: Scalar,
    /// `s`.
    pub s: Scalar,
    /// `τ`.
    pub tau: Scalar,
}

/// Transcript tags (what is absorbed, what is drawn).
mod tag {
    pub const C_A: u8 = 1;
    pub const X: u8 = 2;
    pub const C_B: u8 = 3;
    pub const Y: u8 = 4;
    pub const Z: u8 = 5;
    pub const PRODUCT: u8 = 6;
    pub const HADAMARD: u8 = 7;
    pub const HADAMARD_X: u8 = 8;
    pub const HADAMARD_Y: u8 = 9;
    pub const ZERO: u8 = 10;
    pub const ZERO_X: u8 = 11;
    pub const SINGLE: u8 = 12;
    pub const SINGLE_X: u8 = 13;
    pub const MULTI: u8 = 14;
    pub const MULTI_E: u8 = 15;
    pub const MULTI_X: u8 = 16;
    pub const BATCH: u8 = 17;
}

/// The Fiat–Shamir transcript: SHA-512 over the statement and the prover's messages.
#[derive(Clone)]
struct Transcript {
    h: Sha512,
}

impl Transcript {
    fn new(
        ctx: &HandContext,
        seat: SeatIndex,
        key: &CompressedRistretto,
        input: &[CompressedCiphertext],
        output: &[CompressedCiphertext],
    ) -> Self {
        let mut h = Sha512::new();
        h.update(domain_tag(Purpose::ShuffleArgument));
        h.update(ctx.table);
        h.update(ctx.hand.to_le_bytes());
        h.update([seat.get(), ROWS as u8, COLS as u8]);
        h.update(key.as_bytes());
        let mut t = Transcript { h };
        t.ciphertexts(0, input);
        t.ciphertexts(0, output);
        t
    }

    fn header(&mut self, tag: u8, len: usize) {
        self.h.update([0xD0, tag]);
        self.h.update((len as u32).to_le_bytes());
    }

    fn points(&mut self, tag: u8, points: &[CompressedRistretto]) {
        self.header(tag, points.len());
        for p in points {
            self.h.update(p.as_bytes());
        }
    }

    fn ciphertexts(&mut self, tag: u8, cs: &[CompressedCiphertext]) {
        self.header(tag, cs.len());
        for c in cs {
            self.h.update(c.c1);
            self.h.update(c.c2);
        }
    }

    /// A challenge: the transcript so far, with `tag`, reduced mod ℓ (64 bytes: bias below
    /// 2^-250). The transcript then goes on with the tag absorbed.
    fn challenge(&mut self, tag: u8) -> Scalar {
        self.h.update([0xC0, tag]);
        let wide: [u8; 64] = self.h.clone().finalize().into();
        Scalar::from_bytes_mod_order_wide(&wide)
    }

    /// The digest of the statement (before any prover message), for the prover's nonces.
    fn digest(&self) -> [u8; 64] {
        self.h.clone().finalize().into()
    }
}

/// The prover's deterministic randomness.
struct Nonces {
    base: DomainHash<Sha512>,
}

impl Nonces {
    fn new(
        ctx: &HandContext,
        seat: SeatIndex,
        shuffle_seed: &[u8; 32],
        statement: &[u8; 64],
    ) -> Self {
        let base = DomainHash::sha512(Purpose::ShuffleArgumentNonce)
            .ctx(ctx)
            .seat(seat)
            .bytes32(shuffle_seed)
            .bytes(statement);
        Nonces { base }
    }

    fn scalar(&self, label: u8, index: usize) -> Scalar {
        self.base
            .clone()
            .u8(label)
            .u16(index as u16)
            .finish_scalar()
    }

    fn vector(&self, label: u8, len: usize) -> Vec<Scalar> {
        (0..len).map(|i| self.scalar(label, i)).collect()
    }
}

/// Nonce labels.
mod nonce {
    pub const R_A: u8 = 1;
    pub const R_B: u8 = 2;
    pub const PRODUCT_S: u8 = 3;
    pub const HADAMARD_S: u8 = 4;
    pub const ZERO_A0: u8 = 5;
    pub const ZERO_R0: u8 = 6;
    pub const ZERO_B: u8 = 7;
    pub const ZERO_S: u8 = 8;
    pub const ZERO_T: u8 = 9;
    pub const SINGLE_D: u8 = 10;
    pub const SINGLE_RD: u8 = 11;
    pub const SINGLE_DELTA: u8 = 12;
    pub const SINGLE_S: u8 = 13;
    pub const MULTI_A0: u8 = 14;
    pub const MULTI_R0: u8 = 15;
    pub const MULTI_B: u8 = 16;
    pub const MULTI_S: u8 = 17;
    pub const MULTI_TAU: u8 = 18;
}

/// `1, x, x², …` (`count` values).
fn powers(x: &Scalar, count: usize) -> Vec<Scalar> {
    let mut out = Vec::with_capacity(count);
    let mut p = Scalar::ONE;
    for _ in 0..count {
        out.push(p);
        p *= x;
    }
    out
}

/// `u ⋆ v = Σ u_i v_i y^{i+1}`, with `y_pow[i] = y^{i+1}`.
fn star(u: &[Scalar], v: &[Scalar], y_pow: &[Scalar]) -> Scalar {
    u.iter()
        .zip(v)
        .zip(y_pow)
        .map(|((a, b), y)| a * b * y)
        .sum()
}

/// `Σ c_k·v_k` for vectors of equal length.
fn combine<'a>(weights: &[Scalar], vectors: impl IntoIterator<Item = &'a [Scalar]>) -> Vec<Scalar> {
    let mut out = vec![Scalar::ZERO; COLS];
    for (w, v) in weights.iter().zip(vectors) {
        for (o, x) in out.iter_mut().zip(v) {
            *o += w * x;
        }
    }
    out
}

fn dot(weights: &[Scalar], values: &[Scalar]) -> Scalar {
    weights.iter().zip(values).map(|(a, b)| a * b).sum()
}

/// One verifier equation `Σ s_i·P_i = O`, checked in variable time (public values only).
#[derive(Default)]
struct Equation {
    scalars: Vec<Scalar>,
    points: Vec<RistrettoPoint>,
}

impl Equation {
    fn push(&mut self, s: Scalar, p: RistrettoPoint) {
        self.scalars.push(s);
        self.points.push(p);
    }

    fn holds(self) -> bool {
        RistrettoPoint::vartime_multiscalar_mul(self.scalars, self.points).is_identity()
    }
}

fn decompress(p: &CompressedRistretto) -> Option<RistrettoPoint> {
    p.decompress()
}

fn decompress_all(points: &[CompressedRistretto]) -> Option<Vec<RistrettoPoint>> {
    points.iter().map(decompress).collect()
}

/// Proves that `output` is `shuffled` applied to `input` under `key`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn prove(
    ctx: &HandContext,
    seat: SeatIndex,
    ck: &CommitKey,
    key: &RistrettoPoint,
    input: &Wall,
    output: &Wall,
    shuffled: &Shuffled,
    shuffle_seed: &[u8; 32],
) -> ShuffleArgument {
    let mut tr = Transcript::new(
        ctx,
        seat,
        &key.compress(),
        &input.compressed,
        &output.compressed,
    );
    let nonces = Nonces::new(ctx, seat, shuffle_seed, &tr.digest());
    let columns =
        |v: &[Scalar]| -> Vec<Vec<Scalar>> { v.chunks(COLS).map(<[_]>::to_vec).collect() };

    let a: Vec<Scalar> = shuffled.perm.iter().map(|&p| Scalar::from(p)).collect();
    let a_cols = columns(&a);
    let r = nonces.vector(nonce::R_A, ROWS);
    let c_a: Vec<CompressedRistretto> = (0..ROWS)
        .map(|j| ck.commit(&a_cols[j], &r[j]).compress())
        .collect();
    tr.points(tag::C_A, &c_a);
    let x = tr.challenge(tag::X);
    let x_pow = powers(&x, WALL_SIZE);

    let b: Vec<Scalar> = shuffled
        .perm
        .iter()
        .map(|&p| x_pow[usize::from(p)])
        .collect();
    let b_cols = columns(&b);
    let s = nonces.vector(nonce::R_B, ROWS);
    let c_b: Vec<CompressedRistretto> = (0..ROWS)
        .map(|j| ck.commit(&b_cols[j], &s[j]).compress())
        .collect();
    tr.points(tag::C_B, &c_b);
    let y = tr.challenge(tag::Y);
    let z = tr.challenge(tag::Z);

    // y·a + b − z, committed by y·c_A + c_B − com(z, …, z; 0).
    let f_cols: Vec<Vec<Scalar>> = (0..ROWS)
        .map(|j| {
            (0..COLS)
                .map(|i| y * a_cols[j][i] + b_cols[j][i] - z)
                .collect()
        })
        .collect();
    let f_rand: Vec<Scalar> = (0..ROWS).map(|j| y * r[j] + s[j]).collect();
    let product = prove_product(&mut tr, &nonces, ck, &f_cols, &f_rand);

    let rho = -dot(&b, &shuffled.rerandomizers);
    let multi_exp = prove_multi_exp(&mut tr, &nonces, ck, key, &output.points, &b_cols, &s, &rho);
    ShuffleArgument {
        c_a,
        c_b,
        product,
        multi_exp,
    }
}

/// Checks that `proof` shows `output` to be a shuffle of `input` under `key`.
pub(crate) fn verify(
    ctx: &HandContext,
    seat: SeatIndex,
    ck: &CommitKey,
    key: &RistrettoPoint,
    input: &Wall,
    output: &Wall,
    proof: &ShuffleArgument,
) -> bool {
    if proof.c_a.len() != ROWS
        || proof.c_b.len() != ROWS
        || input.points.len() != WALL_SIZE
        || output.points.len() != WALL_SIZE
    {
        return false;
    }
    let (Some(c_a), Some(c_b)) = (decompress_all(&proof.c_a), decompress_all(&proof.c_b)) else {
        return false;
    };
    let mut tr = Transcript::new(
        ctx,
        seat,
        &key.compress(),
        &input.compressed,
        &output.compressed,
    );
    tr.points(tag::C_A, &proof.c_a);
    let x = tr.challenge(tag::X);
    let x_pow = powers(&x, WALL_SIZE);
    tr.points(tag::C_B, &proof.c_b);
    let y = tr.challenge(tag::Y);
    let z = tr.challenge(tag::Z);

    let c_f: Vec<RistrettoPoint> = (0..ROWS)
        .map(|j| {
            RistrettoPoint::vartime_multiscalar_mul(
                [y, Scalar::ONE, -z],
                [c_a[j], c_b[j], ck.g_sum],
            )
        })
        .collect();
    let target: Scalar = x_pow
        .iter()
        .enumerate()
        .map(|(p, xp)| y * Scalar::from(p as u64) + xp - z)
        .product();
    verify_product(&mut tr, ck, &c_f, &target, &proof.product)
        && verify_multi_exp(
            &mut tr,
            ck,
            key,
            input,
            output,
            &x_pow,
            &c_b,
            &proof.multi_exp,
        )
}

fn prove_product(
    tr: &mut Transcript,
    nonces: &Nonces,
    ck: &CommitKey,
    cols: &[Vec<Scalar>],
    rands: &[Scalar],
) -> ProductArgument {
    let prod: Vec<Scalar> = (0..COLS)
        .map(|i| cols.iter().map(|c| c[i]).product())
        .collect();
    let s = nonces.scalar(nonce::PRODUCT_S, 0);
    let c_b = ck.commit(&prod, &s).compress();
    tr.points(tag::PRODUCT, &[c_b]);
    let hadamard = prove_hadamard(tr, nonces, ck, cols, rands, &prod, &s);
    let single = prove_single(tr, nonces, ck, &prod, &s);
    ProductArgument {
        c_b,
        hadamard,
        single,
    }
}

fn verify_product(
    tr: &mut Transcript,
    ck: &CommitKey,
    c_cols: &[RistrettoPoint],
    target: &Scalar,
    arg: &ProductArgument,
) -> bool {
    let Some(c_b) = decompress(&arg.c_b) else {
        return false;
    };
    tr.points(tag::PRODUCT, &[arg.c_b]);
    verify_hadamard(tr, ck, c_cols, &c_b, &arg.hadamard)
        && verify_single(tr, ck, &c_b, target, &arg.single)
}

/// Columns `a_1..a_m` (randomness `r`) and `b = a_1 ∘ … ∘ a_m` (randomness `s`).
fn prove_hadamard(
    tr: &mut Transcript,
    nonces: &Nonces,
    ck: &CommitKey,
    a: &[Vec<Scalar>],
    r: &[Scalar],
    b: &[Scalar],
    s: &Scalar,
) -> HadamardArgument {
    let m = a.len();
    // Running products b_1 = a_1, b_k = b_{k−1} ∘ a_k (so b_m = b).
    let mut runs: Vec<Vec<Scalar>> = Vec::with_capacity(m);
    runs.push(a[0].clone());
    for k in 1..m {
        let next = runs[k - 1].iter().zip(&a[k]).map(|(u, v)| u * v).collect();
        runs.push(next);
    }
    debug_assert_eq!(runs[m - 1], b);
    let mut run_rand = vec![r[0]];
    run_rand.extend((1..m - 1).map(|k| nonces.scalar(nonce::HADAMARD_S, k)));
    run_rand.push(*s);
    let c_b: Vec<CompressedRistretto> = (1..m - 1)
        .map(|k| ck.commit(&runs[k], &run_rand[k]).compress())
        .collect();
    tr.points(tag::HADAMARD, &c_b);
    let x = tr.challenge(tag::HADAMARD_X);
    let y = tr.challenge(tag::HADAMARD_Y);
    let x_pow = powers(&x, m + 1);

    // Σ_{i=1}^{m−1} a_{i+1} ⋆ x^i b_i + (−1) ⋆ Σ_{i=1}^{m−1} x^i b_{i+1} = 0.
    let minus_one = vec![-Scalar::ONE; COLS];
    let mut left: Vec<(Vec<Scalar>, Scalar)> = (1..m).map(|k| (a[k].clone(), r[k])).collect();
    left.push((minus_one, Scalar::ZERO));
    let mut right: Vec<(Vec<Scalar>, Scalar)> = (0..m - 1)
        .map(|k| {
            let xk = x_pow[k + 1];
            (runs[k].iter().map(|v| xk * v).collect(), xk * run_rand[k])
        })
        .collect();
    let weights = &x_pow[1..m];
    right.push((
        combine(weights, runs[1..].iter().map(Vec::as_slice)),
        dot(weights, &run_rand[1..]),
    ));
    let zero = prove_zero(tr, nonces, ck, &left, &right, &y);
    HadamardArgument { c_b, zero }
}

fn verify_hadamard(
    tr: &mut Transcript,
    ck: &CommitKey,
    c_a: &[RistrettoPoint],
    c_b_final: &RistrettoPoint,
    arg: &HadamardArgument,
) -> bool {
    let m = c_a.len();
    if arg.c_b.len() != m - 2 {
        return false;
    }
    let Some(inner) = decompress_all(&arg.c_b) else {
        return false;
    };
    tr.points(tag::HADAMARD, &arg.c_b);
    let x = tr.challenge(tag::HADAMARD_X);
    let y = tr.challenge(tag::HADAMARD_Y);
    let x_pow = powers(&x, m + 1);
    let mut c_runs = vec![c_a[0]];
    c_runs.extend(inner);
    c_runs.push(*c_b_final);

    let mut left: Vec<RistrettoPoint> = c_a[1..].to_vec();
    left.push(-ck.g_sum);
    let mut right: Vec<RistrettoPoint> = (0..m - 1).map(|k| x_pow[k + 1] * c_runs[k]).collect();
    right.push(RistrettoPoint::vartime_multiscalar_mul(
        &x_pow[1..m],
        &c_runs[1..],
    ));
    verify_zero(tr, ck, &left, &right, &y, &arg.zero)
}

/// `Σ_{i=1}^{μ} left_i ⋆ right_i = 0` for openings `(vector, randomness)`.
fn prove_zero(
    tr: &mut Transcript,
    nonces: &Nonces,
    ck: &CommitKey,
    left: &[(Vec<Scalar>, Scalar)],
    right: &[(Vec<Scalar>, Scalar)],
    y: &Scalar,
) -> ZeroArgument {
    let mu = left.len();
    let a0 = nonces.vector(nonce::ZERO_A0, COLS);
    let r0 = nonces.scalar(nonce::ZERO_R0, 0);
    let b_last = nonces.vector(nonce::ZERO_B, COLS);
    let s_last = nonces.scalar(nonce::ZERO_S, 0);
    let c_a0 = ck.commit(&a0, &r0).compress();
    let c_b_last = ck.commit(&b_last, &s_last).compress();
    // a_0..a_μ and b_1..b_{μ+1} (b stored from index 0 for b_1).
    let mut lefts = vec![(a0, r0)];
    lefts.extend(left.iter().cloned());
    let mut rights: Vec<(Vec<Scalar>, Scalar)> = right.to_vec();
    rights.push((b_last, s_last));

    let y_pow: Vec<Scalar> = powers(y, COLS + 1)[1..].to_vec();
    let mut d = vec![Scalar::ZERO; 2 * mu + 1];
    for (i, (ai, _)) in lefts.iter().enumerate() {
        for (jm1, (bj, _)) in rights.iter().enumerate() {
            let k = i + mu - jm1; // i + μ + 1 − j with j = jm1 + 1
            d[k] += star(ai, bj, &y_pow);
        }
    }
    debug_assert_eq!(d[mu + 1], Scalar::ZERO);
    let t: Vec<Scalar> = (0..=2 * mu)
        .map(|k| {
            if k == mu + 1 {
                Scalar::ZERO
            } else {
                nonces.scalar(nonce::ZERO_T, k)
            }
        })
        .collect();
    let c_d: Vec<CompressedRistretto> = (0..=2 * mu)
        .filter(|&k| k != mu + 1)
        .map(|k| ck.commit(&[d[k]], &t[k]).compress())
        .collect();
    let mut absorbed = vec![c_a0, c_b_last];
    absorbed.extend(&c_d);
    tr.points(tag::ZERO, &absorbed);
    let x = tr.challenge(tag::ZERO_X);
    let x_pow = powers(&x, 2 * mu + 1);

    let a = combine(&x_pow[..=mu], lefts.iter().map(|(v, _)| v.as_slice()));
    let r = dot(
        &x_pow[..=mu],
        &lefts.iter().map(|(_, r)| *r).collect::<Vec<_>>(),
    );
    // b_j weighted by x^{μ+1−j}: b_1 by x^μ, …, b_{μ+1} by x^0.
    let w_b: Vec<Scalar> = (0..=mu).map(|jm1| x_pow[mu - jm1]).collect();
    let b = combine(&w_b, rights.iter().map(|(v, _)| v.as_slice()));
    let s = dot(&w_b, &rights.iter().map(|(_, s)| *s).collect::<Vec<_>>());
    let t = dot(&x_pow, &t);
    ZeroArgument {
        c_a0,
        c_b_last,
        c_d,
        a,
        b,
        r,
        s,
        t,
    }
}

fn verify_zero(
    tr: &mut Transcript,
    ck: &CommitKey,
    left: &[RistrettoPoint],
    right: &[RistrettoPoint],
    y: &Scalar,
    arg: &ZeroArgument,
) -> bool {
    let mu = left.len();
    if right.len() != mu || arg.c_d.len() != 2 * mu || arg.a.len() != COLS || arg.b.len() != COLS {
        return false;
    }
    let (Some(c_a0), Some(c_b_last), Some(c_d)) = (
        decompress(&arg.c_a0),
        decompress(&arg.c_b_last),
        decompress_all(&arg.c_d),
    ) else {
        return false;
    };
    let mut absorbed = vec![arg.c_a0, arg.c_b_last];
    absorbed.extend(&arg.c_d);
    tr.points(tag::ZERO, &absorbed);
    let x = tr.challenge(tag::ZERO_X);
    let x_pow = powers(&x, 2 * mu + 1);

    // c_A_0 + Σ x^i c_A_i = com(a; r)
    let mut eq = Equation::default();
    eq.push(Scalar::ONE, c_a0);
    for (i, c) in left.iter().enumerate() {
        eq.push(x_pow[i + 1], *c);
    }
    ck.neg_terms(&arg.a, &arg.r, &mut eq);
    if !eq.holds() {
        return false;
    }
    // Σ x^{μ+1−j} c_B_j = com(b; s)
    let mut eq = Equation::default();
    for (jm1, c) in right.iter().enumerate() {
        eq.push(x_pow[mu - jm1], *c);
    }
    eq.push(Scalar::ONE, c_b_last);
    ck.neg_terms(&arg.b, &arg.s, &mut eq);
    if !eq.holds() {
        return false;
    }
    // Σ_{k ≠ μ+1} x^k c_D_k = com(a ⋆ b; t)
    let y_pow: Vec<Scalar> = powers(y, COLS + 1)[1..].to_vec();
    let mut eq = Equation::default();
    let ks = (0..=2 * mu).filter(|&k| k != mu + 1);
    for (k, c) in ks.zip(&c_d) {
        eq.push(x_pow[k], *c);
    }
    ck.neg_terms(&[star(&arg.a, &arg.b, &y_pow)], &arg.t, &mut eq);
    eq.holds()
}

/// The committed `a` (randomness `r`) multiply to `Π a_i`.
fn prove_single(
    tr: &mut Transcript,
    nonces: &Nonces,
    ck: &CommitKey,
    a: &[Scalar],
    r: &Scalar,
) -> SingleValueProductArgument {
    let n = a.len();
    let mut runs = Vec::with_capacity(n);
    runs.push(a[0]);
    for i in 1..n {
        runs.push(runs[i - 1] * a[i]);
    }
    let d = nonces.vector(nonce::SINGLE_D, n);
    let r_d = nonces.scalar(nonce::SINGLE_RD, 0);
    let mut delta = vec![d[0]];
    delta.extend((1..n - 1).map(|i| nonces.scalar(nonce::SINGLE_DELTA, i)));
    delta.push(Scalar::ZERO);
    let s1 = nonces.scalar(nonce::SINGLE_S, 0);
    let sx = nonces.scalar(nonce::SINGLE_S, 1);
    let lower: Vec<Scalar> = (0..n - 1).map(|i| -delta[i] * d[i + 1]).collect();
    let upper: Vec<Scalar> = (0..n - 1)
        .map(|i| delta[i + 1] - a[i + 1] * delta[i] - runs[i] * d[i + 1])
        .collect();
    let c_d = ck.commit(&d, &r_d).compress();
    let c_lower_delta = ck.commit(&lower, &s1).compress();
    let c_upper_delta = ck.commit(&upper, &sx).compress();
    tr.points(tag::SINGLE, &[c_d, c_lower_delta, c_upper_delta]);
    let x = tr.challenge(tag::SINGLE_X);
    SingleValueProductArgument {
        c_d,
        c_lower_delta,
        c_upper_delta,
        a_tilde: (0..n).map(|i| x * a[i] + d[i]).collect(),
        b_tilde: (0..n).map(|i| x * runs[i] + delta[i]).collect(),
        r_tilde: x * r + r_d,
        s_tilde: x * sx + s1,
    }
}

fn verify_single(
    tr: &mut Transcript,
    ck: &CommitKey,
    c_a: &RistrettoPoint,
    b: &Scalar,
    arg: &SingleValueProductArgument,
) -> bool {
    let n = COLS;
    if arg.a_tilde.len() != n || arg.b_tilde.len() != n {
        return false;
    }
    let (Some(c_d), Some(c_lower), Some(c_upper)) = (
        decompress(&arg.c_d),
        decompress(&arg.c_lower_delta),
        decompress(&arg.c_upper_delta),
    ) else {
        return false;
    };
    tr.points(
        tag::SINGLE,
        &[arg.c_d, arg.c_lower_delta, arg.c_upper_delta],
    );
    let x = tr.challenge(tag::SINGLE_X);
    let (a, bt) = (&arg.a_tilde, &arg.b_tilde);
    if bt[0] != a[0] || bt[n - 1] != x * b {
        return false;
    }
    let mut eq = Equation::default();
    eq.push(x, *c_a);
    eq.push(Scalar::ONE, c_d);
    ck.neg_terms(a, &arg.r_tilde, &mut eq);
    if !eq.holds() {
        return false;
    }
    let v: Vec<Scalar> = (0..n - 1)
        .map(|i| x * bt[i + 1] - bt[i] * a[i + 1])
        .collect();
    let mut eq = Equation::default();
    eq.push(x, c_upper);
    eq.push(Scalar::ONE, c_lower);
    ck.neg_terms(&v, &arg.s_tilde, &mut eq);
    eq.holds()
}

/// `Σ x^p·input_p = Enc(0; ρ) + Σ_j <b_j, output row j>`, with `b_j` committed (randomness
/// `s_j`) as the shuffle's `c_B`.
#[allow(clippy::too_many_arguments)]
fn prove_multi_exp(
    tr: &mut Transcript,
    nonces: &Nonces,
    ck: &CommitKey,
    key: &RistrettoPoint,
    output: &[Ciphertext],
    a: &[Vec<Scalar>],
    r: &[Scalar],
    rho: &Scalar,
) -> MultiExpArgument {
    let m = ROWS;
    let g = RISTRETTO_BASEPOINT_POINT;
    // A_0 random; A_1..A_m = a.
    let mut cols: Vec<Vec<Scalar>> = vec![nonces.vector(nonce::MULTI_A0, COLS)];
    cols.extend(a.iter().cloned());
    let mut rands = vec![nonces.scalar(nonce::MULTI_R0, 0)];
    rands.extend(r);
    let pick = |label: u8, k: usize, at_m: Scalar| {
        if k == m {
            at_m
        } else {
            nonces.scalar(label, k)
        }
    };
    let b: Vec<Scalar> = (0..2 * m)
        .map(|k| pick(nonce::MULTI_B, k, Scalar::ZERO))
        .collect();
    let s: Vec<Scalar> = (0..2 * m)
        .map(|k| pick(nonce::MULTI_S, k, Scalar::ZERO))
        .collect();
    let tau: Vec<Scalar> = (0..2 * m)
        .map(|k| pick(nonce::MULTI_TAU, k, *rho))
        .collect();
    let c_a0 = ck.commit(&cols[0], &rands[0]).compress();
    let ks: Vec<usize> = (0..2 * m).filter(|&k| k != m).collect();
    let c_b: Vec<CompressedRistretto> = ks
        .iter()
        .map(|&k| ck.commit(&[b[k]], &s[k]).compress())
        .collect();
    // E_k = Enc(b_k·G; τ_k) + Σ_{i=1..m, j = k − m + i ∈ 0..=m} <A_j, row i>.
    let e: Vec<CompressedCiphertext> = ks
        .iter()
        .map(|&k| {
            let mut scalars = Vec::with_capacity(WALL_SIZE + 2);
            let mut c1s = Vec::with_capacity(WALL_SIZE + 1);
            let mut c2s = Vec::with_capacity(WALL_SIZE + 2);
            for i in 1..=m {
                let Some(j) = (k + i).checked_sub(m).filter(|&j| j <= m) else {
                    continue;
                };
                for (l, v) in cols[j].iter().enumerate() {
                    let c = &output[(i - 1) * COLS + l];
                    scalars.push(*v);
                    c1s.push(c.c1);
                    c2s.push(c.c2);
                }
            }
            let c1 = RistrettoPoint::multiscalar_mul(&scalars, &c1s)
                + &tau[k] * RISTRETTO_BASEPOINT_TABLE;
            scalars.extend([b[k], tau[k]]);
            c2s.extend([g, *key]);
            let c2 = RistrettoPoint::multiscalar_mul(&scalars, &c2s);
            Ciphertext { c1, c2 }.compress()
        })
        .collect();
    let mut absorbed = vec![c_a0];
    absorbed.extend(&c_b);
    tr.points(tag::MULTI, &absorbed);
    tr.ciphertexts(tag::MULTI_E, &e);
    let x = tr.challenge(tag::MULTI_X);
    let x_pow = powers(&x, 2 * m);
    MultiExpArgument {
        c_a0,
        c_b,
        e,
        a: combine(&x_pow[..=m], cols.iter().map(Vec::as_slice)),
        r: dot(&x_pow[..=m], &rands),
        b: dot(&x_pow, &b),
        s: dot(&x_pow, &s),
        tau: dot(&x_pow, &tau),
    }
}

#[allow(clippy::too_many_arguments)]
fn verify_multi_exp(
    tr: &mut Transcript,
    ck: &CommitKey,
    key: &RistrettoPoint,
    input: &Wall,
    output: &Wall,
    x_shuffle: &[Scalar],
    c_cols: &[RistrettoPoint],
    arg: &MultiExpArgument,
) -> bool {
    let m = ROWS;
    if arg.c_b.len() != 2 * m - 1 || arg.e.len() != 2 * m - 1 || arg.a.len() != COLS {
        return false;
    }
    let (Some(c_a0), Some(c_b)) = (decompress(&arg.c_a0), decompress_all(&arg.c_b)) else {
        return false;
    };
    let Some(e) = arg
        .e
        .iter()
        .map(CompressedCiphertext::decompress)
        .collect::<Option<Vec<Ciphertext>>>()
    else {
        return false;
    };
    let mut absorbed = vec![arg.c_a0];
    absorbed.extend(&arg.c_b);
    tr.points(tag::MULTI, &absorbed);
    tr.ciphertexts(tag::MULTI_E, &arg.e);
    let x = tr.challenge(tag::MULTI_X);
    let x_pow = powers(&x, 2 * m);
    let ks = (0..2 * m).filter(|&k| k != m);

    // c_A_0 + Σ x^j c_A_j = com(a; r)
    let mut eq = Equation::default();
    eq.push(Scalar::ONE, c_a0);
    for (j, c) in c_cols.iter().enumerate() {
        eq.push(x_pow[j + 1], *c);
    }
    ck.neg_terms(&arg.a, &arg.r, &mut eq);
    if !eq.holds() {
        return false;
    }
    // Σ_{k≠m} x^k c_B_k = com(b; s)
    let mut eq = Equation::default();
    for (k, c) in ks.clone().zip(&c_b) {
        eq.push(x_pow[k], *c);
    }
    ck.neg_terms(&[arg.b], &arg.s, &mut eq);
    if !eq.holds() {
        return false;
    }
    // x^m·E_m + Σ_{k≠m} x^k E_k = Enc(b·G; τ) + Σ_i x^{m−i} <a, row i>, with
    // E_m = Σ_p x_shuffle^p·input_p: the C1 equation plus w times the C2 one, in one
    // multiscalar multiplication (w drawn from the whole transcript: a false pair of
    // equations passes with probability 1/ℓ).
    let w = tr.challenge(tag::BATCH);
    let g = RISTRETTO_BASEPOINT_POINT;
    let mut eq = Equation::default();
    let mut both = |s: Scalar, c: &Ciphertext| {
        eq.push(s, c.c1);
        eq.push(s * w, c.c2);
    };
    for (p, c) in input.points.iter().enumerate() {
        both(x_pow[m] * x_shuffle[p], c);
    }
    for (k, c) in ks.zip(&e) {
        both(x_pow[k], c);
    }
    for (p, c) in output.points.iter().enumerate() {
        let row = p / COLS + 1;
        both(-(x_pow[m - row] * arg.a[p % COLS]), c);
    }
    eq.push(-arg.tau - w * arg.b, g);
    eq.push(-w * arg.tau, *key);
    eq.holds()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::elgamal::{CardTable, shuffle};
    use curve25519_dalek::ristretto::RistrettoBasepointTable;

    fn ctx() -> HandContext {
        HandContext {
            table: [4; 32],
            hand: 9,
        }
    }

    struct Case {
        ck: CommitKey,
        key: RistrettoPoint,
        input: Wall,
        output: Wall,
        proof: ShuffleArgument,
    }

    fn case(seat: SeatIndex) -> Case {
        let cards = CardTable::new();
        let ck = CommitKey::new();
        let key = RistrettoPoint::mul_base(&Scalar::from(31337u64));
        let table = RistrettoBasepointTable::create(&key);
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
            &ck,
            &key,
            &input,
            &output,
            &shuffled,
            &[2; 32],
        );
        Case {
            ck,
            key,
            input,
            output,
            proof,
        }
    }

    fn check(c: &Case, seat: SeatIndex, output: &Wall, proof: &ShuffleArgument) -> bool {
        verify(&ctx(), seat, &c.ck, &c.key, &c.input, output, proof)
    }

    #[test]
    fn honest_argument_verifies_and_is_small() {
        let s1 = SeatIndex::ALL[1];
        let c = case(s1);
        assert!(check(&c, s1, &c.output, &c.proof));
        let size = postcard::to_allocvec(&c.proof).expect("encodes").len();
        assert!(size < 6_500, "{size} bytes");
        assert!(
            !check(&c, SeatIndex::ALL[2], &c.output, &c.proof),
            "bound to the seat"
        );
    }

    #[test]
    fn identity_input_of_the_first_shuffle_verifies() {
        let cards = CardTable::new();
        let ck = CommitKey::new();
        let key = RistrettoPoint::mul_base(&Scalar::from(7u64));
        let table = RistrettoBasepointTable::create(&key);
        let s0 = SeatIndex::ALL[0];
        let shuffled = shuffle(&ctx(), s0, &[3; 32], &table, cards.initial_wall());
        let output = Wall::from_points(shuffled.output.clone());
        let proof = prove(
            &ctx(),
            s0,
            &ck,
            &key,
            cards.initial(),
            &output,
            &shuffled,
            &[3; 32],
        );
        assert!(verify(
            &ctx(),
            s0,
            &ck,
            &key,
            cards.initial(),
            &output,
            &proof
        ));
    }

    /// Every point of a proof, mutably (the `E_k` as their two halves).
    fn points_mut(p: &mut ShuffleArgument) -> Vec<&mut [u8; 32]> {
        let mut out: Vec<&mut [u8; 32]> = Vec::new();
        out.extend(p.c_a.iter_mut().map(|c| &mut c.0));
        out.extend(p.c_b.iter_mut().map(|c| &mut c.0));
        let pr = &mut p.product;
        out.push(&mut pr.c_b.0);
        out.extend(pr.hadamard.c_b.iter_mut().map(|c| &mut c.0));
        let z = &mut pr.hadamard.zero;
        out.push(&mut z.c_a0.0);
        out.push(&mut z.c_b_last.0);
        out.extend(z.c_d.iter_mut().map(|c| &mut c.0));
        let sv = &mut pr.single;
        out.push(&mut sv.c_d.0);
        out.push(&mut sv.c_lower_delta.0);
        out.push(&mut sv.c_upper_delta.0);
        let me = &mut p.multi_exp;
        out.push(&mut me.c_a0.0);
        out.extend(me.c_b.iter_mut().map(|c| &mut c.0));
        for e in &mut me.e {
            out.push(&mut e.c1);
            out.push(&mut e.c2);
        }
        out
    }

    /// Every scalar of a proof, mutably.
    fn scalars_mut(p: &mut ShuffleArgument) -> Vec<&mut Scalar> {
        let mut out: Vec<&mut Scalar> = Vec::new();
        let z = &mut p.product.hadamard.zero;
        out.extend(z.a.iter_mut());
        out.extend(z.b.iter_mut());
        out.extend([&mut z.r, &mut z.s, &mut z.t]);
        let sv = &mut p.product.single;
        out.extend(sv.a_tilde.iter_mut());
        out.extend(sv.b_tilde.iter_mut());
        out.extend([&mut sv.r_tilde, &mut sv.s_tilde]);
        let me = &mut p.multi_exp;
        out.extend(me.a.iter_mut());
        out.extend([&mut me.r, &mut me.b, &mut me.s, &mut me.tau]);
        out
    }

    #[test]
    fn every_tampered_component_is_refused() {
        let s1 = SeatIndex::ALL[1];
        let c = case(s1);
        let mut probe = c.proof.clone();
        let (n_points, n_scalars) = (points_mut(&mut probe).len(), scalars_mut(&mut probe).len());
        assert_eq!(n_points, 11 * ROWS + 2);
        assert_eq!(n_scalars, 5 * COLS + 9);
        let g = RISTRETTO_BASEPOINT_POINT;
        for i in 0..n_points {
            let mut p = c.proof.clone();
            let slot = points_mut(&mut p).swap_remove(i);
            let moved = CompressedRistretto(*slot).decompress().expect("valid") + g;
            *slot = moved.compress().to_bytes();
            assert!(!check(&c, s1, &c.output, &p), "point {i} changed");
            // Not a point at all.
            let mut p = c.proof.clone();
            *points_mut(&mut p).swap_remove(i) = [0xFF; 32];
            assert!(!check(&c, s1, &c.output, &p), "point {i} invalid");
        }
        for i in 0..n_scalars {
            let mut p = c.proof.clone();
            *scalars_mut(&mut p).swap_remove(i) += Scalar::ONE;
            assert!(!check(&c, s1, &c.output, &p), "scalar {i} changed");
        }
        // Vectors of the wrong length.
        let mut p = c.proof.clone();
        p.c_a.pop();
        assert!(!check(&c, s1, &c.output, &p));
        let mut p = c.proof.clone();
        p.multi_exp.a.push(Scalar::ONE);
        assert!(!check(&c, s1, &c.output, &p));
        let mut p = c.proof.clone();
        p.product.hadamard.zero.c_d.pop();
        assert!(!check(&c, s1, &c.output, &p));
        let mut p = c.proof.clone();
        p.product.single.b_tilde.pop();
        assert!(!check(&c, s1, &c.output, &p));
    }

    #[test]
    fn other_walls_and_contexts_are_refused() {
        let s1 = SeatIndex::ALL[1];
        let c = case(s1);
        // Two output ciphertexts swapped (still a shuffle, not the proven one).
        let mut swapped = c.output.points.clone();
        swapped.swap(3, 4);
        assert!(!check(&c, s1, &Wall::from_points(swapped), &c.proof));
        // One output replaced by a fresh encryption of a card.
        let cards = CardTable::new();
        let mut replaced = c.output.points.clone();
        let r = Scalar::from(5u64);
        replaced[7] = Ciphertext {
            c1: RistrettoPoint::mul_base(&r),
            c2: cards.points()[0] + c.key * r,
        };
        assert!(!check(&c, s1, &Wall::from_points(replaced), &c.proof));
        // One output duplicating another (re-encrypted).
        let mut dup = c.output.points.clone();
        dup[1] = dup[0].rerandomize(
            &Scalar::from(9u64),
            &RistrettoBasepointTable::create(&c.key),
        );
        assert!(!check(&c, s1, &Wall::from_points(dup), &c.proof));
        // Another hand, table, key or input.
        let other_hand = HandContext { hand: 10, ..ctx() };
        let other_table = HandContext {
            table: [5; 32],
            ..ctx()
        };
        for other in [other_hand, other_table] {
            assert!(!verify(
                &other, s1, &c.ck, &c.key, &c.input, &c.output, &c.proof
            ));
        }
        let key2 = c.key + RISTRETTO_BASEPOINT_POINT;
        assert!(!verify(
            &ctx(),
            s1,
            &c.ck,
            &key2,
            &c.input,
            &c.output,
            &c.proof
        ));
        let mut input2 = c.input.points.clone();
        input2.swap(0, 1);
        let input2 = Wall::from_points(input2);
        assert!(!verify(
            &ctx(),
            s1,
            &c.ck,
            &c.key,
            &input2,
            &c.output,
            &c.proof
        ));
    }

    /// A cheating prover that runs the honest algorithm on a witness that is not a
    /// permutation (one input taken twice, one dropped): its own proof of its own output
    /// fails.
    #[test]
    fn a_non_permutation_cannot_be_proven() {
        let cards = CardTable::new();
        let ck = CommitKey::new();
        let key = RistrettoPoint::mul_base(&Scalar::from(31337u64));
        let table = RistrettoBasepointTable::create(&key);
        let s0 = SeatIndex::ALL[0];
        let s1 = SeatIndex::ALL[1];
        let input =
            Wall::from_points(shuffle(&ctx(), s0, &[1; 32], &table, cards.initial_wall()).output);
        let honest = shuffle(&ctx(), s1, &[2; 32], &table, &input.points);
        for (victim, twice) in [(0usize, 1usize), (143, 5), (70, 71)] {
            let mut perm = honest.perm;
            perm[victim] = perm[twice];
            let output: Vec<Ciphertext> = perm
                .iter()
                .zip(&honest.rerandomizers)
                .map(|(&from, r)| input.points[usize::from(from)].rerandomize(r, &table))
                .collect();
            let cheat = Shuffled {
                output: output.clone(),
                perm,
                rerandomizers: honest.rerandomizers.clone(),
            };
            let output = Wall::from_points(output);
            let proof = prove(&ctx(), s1, &ck, &key, &input, &output, &cheat, &[2; 32]);
            assert!(!verify(&ctx(), s1, &ck, &key, &input, &output, &proof));
        }
        // A card replaced by another card (the permutation kept, one plaintext changed).
        let mut output = honest.output.clone();
        output[9].c2 += cards.points()[1] - cards.points()[0];
        let cheat = Shuffled {
            output: output.clone(),
            perm: honest.perm,
            rerandomizers: honest.rerandomizers.clone(),
        };
        let output = Wall::from_points(output);
        let proof = prove(&ctx(), s1, &ck, &key, &input, &output, &cheat, &[2; 32]);
        assert!(!verify(&ctx(), s1, &ck, &key, &input, &output, &proof));
    }

    #[test]
    fn the_argument_is_deterministic() {
        let s2 = SeatIndex::ALL[2];
        assert_eq!(case(s2).proof, case(s2).proof);
    }
}
