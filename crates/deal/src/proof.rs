//! Zero-knowledge proofs: Schnorr proofs of knowledge of a hand key and Chaum–Pedersen (DLEQ)
//! proofs of decryption shares.
//!
//! Implements ARCHITECTURE.md "Randomness and dealing" items 2–4. Both are non-interactive by
//! Fiat–Shamir; the challenge hash is domain-separated by purpose and binds the table, hand
//! number and seat (and, for shares, the wall position and who the share is for), so a proof
//! cannot be replayed into another hand, table, seat, position or requester.
//!
//! Nonces are deterministic, as in EdDSA: `sha512(proof-nonce ‖ secret ‖ statement)`, where
//! the statement is everything the challenge hashes except the commitments. The same
//! statement therefore always gets the same proof, so a seat that restarts and produces its
//! message again produces the identical bytes (never two different signed messages for one
//! step), and a nonce is never reused across different statements.
//!
//! Proofs are stored as (challenge, response), 64 bytes.

use curve25519_dalek::constants::RISTRETTO_BASEPOINT_TABLE;
use curve25519_dalek::ristretto::{CompressedRistretto, RistrettoPoint};
use curve25519_dalek::scalar::Scalar;
use curve25519_dalek::traits::VartimeMultiscalarMul;
use serde::{Deserialize, Serialize};

use crate::hash::{DomainHash, Purpose};
use crate::message::ShareKind;
use crate::{HandContext, Position, SeatIndex};

/// A Schnorr proof of knowledge of `x` with `Y = x·G`, bound to (table, hand, seat).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SchnorrProof {
    /// Fiat–Shamir challenge `c`.
    pub challenge: Scalar,
    /// Response `s = k + c·x`.
    pub response: Scalar,
}

/// A Chaum–Pedersen proof that `log_G(Y) = log_C1(D)`: the decryption share `D` was made with
/// the secret key of the published key `Y`. Bound to (table, hand, seat, position, kind).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DleqProof {
    /// Fiat–Shamir challenge `c`.
    pub challenge: Scalar,
    /// Response `s = k + c·x`.
    pub response: Scalar,
}

/// Everything the key proof's challenge hashes except the commitment `R`.
fn key_statement(
    ctx: &HandContext,
    seat: SeatIndex,
    key: &CompressedRistretto,
) -> DomainHash<sha2::Sha256> {
    DomainHash::sha256(Purpose::KeyProof)
        .ctx(ctx)
        .seat(seat)
        .point(key)
}

/// A deterministic nonce for a proof of `statement` by the holder of `secret`.
fn nonce(secret: &Scalar, statement: &[u8; 32]) -> Scalar {
    DomainHash::sha512(Purpose::ProofNonce)
        .scalar(secret)
        .bytes32(statement)
        .finish_scalar()
}

fn challenge_of(
    statement: DomainHash<sha2::Sha256>,
    commitments: &[CompressedRistretto],
) -> Scalar {
    let mut h = statement;
    for c in commitments {
        h = h.point(c);
    }
    let digest = h.finish();
    // A 256-bit challenge reduced mod ℓ: its distribution is within 2^-125 of uniform, which is
    // all Fiat–Shamir soundness needs.
    Scalar::from_bytes_mod_order(digest)
}

/// Proves knowledge of `secret` for `key = secret·G`.
pub(crate) fn prove_key(
    ctx: &HandContext,
    seat: SeatIndex,
    secret: &Scalar,
    key: &CompressedRistretto,
) -> SchnorrProof {
    let statement = key_statement(ctx, seat, key);
    let k = nonce(secret, &statement.clone().finish());
    let r = (&k * RISTRETTO_BASEPOINT_TABLE).compress();
    let challenge = challenge_of(statement, &[r]);
    SchnorrProof {
        challenge,
        response: k + challenge * secret,
    }
}

/// Checks a key proof. `key_point` must be the decompression of `key`.
pub(crate) fn verify_key(
    ctx: &HandContext,
    seat: SeatIndex,
    key: &CompressedRistretto,
    key_point: &RistrettoPoint,
    proof: &SchnorrProof,
) -> bool {
    // R = s·G − c·Y
    let r = RistrettoPoint::vartime_double_scalar_mul_basepoint(
        &-proof.challenge,
        key_point,
        &proof.response,
    );
    challenge_of(key_statement(ctx, seat, key), &[r.compress()]) == proof.challenge
}

/// What a decryption share claims: `share = x·c1` for the `x` with `key = x·G`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ShareStatement<'a> {
    pub ctx: &'a HandContext,
    /// The seat that made the share.
    pub seat: SeatIndex,
    pub position: Position,
    pub kind: ShareKind,
    pub key: &'a CompressedRistretto,
    pub c1: &'a CompressedRistretto,
    pub share: &'a CompressedRistretto,
}

impl ShareStatement<'_> {
    fn hash(&self) -> DomainHash<sha2::Sha256> {
        let (tag, who) = self.kind.encode();
        DomainHash::sha256(Purpose::ShareProof)
            .ctx(self.ctx)
            .seat(self.seat)
            .u8(self.position)
            .u8(tag)
            .u8(who)
            .point(self.key)
            .point(self.c1)
            .point(self.share)
    }
}

/// The deterministic nonce of the share proof of `stmt` by the holder of `secret`.
pub(crate) fn share_nonce(stmt: &ShareStatement<'_>, secret: &Scalar) -> Scalar {
    nonce(secret, &stmt.hash().finish())
}

/// Proves that `stmt.share = secret·c1` where `stmt.key = secret·G`.
pub(crate) fn prove_share(
    stmt: &ShareStatement<'_>,
    secret: &Scalar,
    c1: &RistrettoPoint,
) -> DleqProof {
    let statement = stmt.hash();
    let k = share_nonce(stmt, secret);
    let a = (&k * RISTRETTO_BASEPOINT_TABLE).compress();
    let b = (c1 * k).compress();
    let challenge = challenge_of(statement, &[a, b]);
    DleqProof {
        challenge,
        response: k + challenge * secret,
    }
}

/// Checks a share proof; the points must be the decompressions of the statement's fields.
pub(crate) fn verify_share(
    stmt: &ShareStatement<'_>,
    key: &RistrettoPoint,
    c1: &RistrettoPoint,
    share: &RistrettoPoint,
    proof: &DleqProof,
) -> bool {
    // A = s·G − c·Y,  B = s·C1 − c·D
    let neg_c = -proof.challenge;
    let a = RistrettoPoint::vartime_double_scalar_mul_basepoint(&neg_c, key, &proof.response);
    let b = RistrettoPoint::vartime_multiscalar_mul([proof.response, neg_c], [*c1, *share]);
    challenge_of(stmt.hash(), &[a.compress(), b.compress()]) == proof.challenge
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SeatIndex;

    fn ctx(hand: u32) -> HandContext {
        HandContext {
            table: [9; 32],
            hand,
        }
    }

    #[test]
    fn key_proof_round_trip_and_binding() {
        let x = Scalar::from(123_456_789u64);
        let y = RistrettoPoint::mul_base(&x);
        let yc = y.compress();
        let s1 = SeatIndex::ALL[1];
        let proof = prove_key(&ctx(1), s1, &x, &yc);
        assert!(verify_key(&ctx(1), s1, &yc, &y, &proof));
        assert!(!verify_key(&ctx(2), s1, &yc, &y, &proof), "other hand");
        assert!(
            !verify_key(&ctx(1), SeatIndex::ALL[2], &yc, &y, &proof),
            "other seat"
        );
        let y2 = y + RistrettoPoint::mul_base(&Scalar::ONE);
        assert!(
            !verify_key(&ctx(1), s1, &y2.compress(), &y2, &proof),
            "other key"
        );
        assert_eq!(proof, prove_key(&ctx(1), s1, &x, &yc), "deterministic");
    }

    #[test]
    fn share_proof_round_trip_and_binding() {
        let x = Scalar::from(42u64);
        let y = RistrettoPoint::mul_base(&x);
        let c1 = RistrettoPoint::mul_base(&Scalar::from(777u64));
        let d = c1 * x;
        let (yc, c1c, dc) = (y.compress(), c1.compress(), d.compress());
        let c = ctx(5);
        let stmt = ShareStatement {
            ctx: &c,
            seat: SeatIndex::ALL[0],
            position: 17,
            kind: ShareKind::Draw {
                requester: SeatIndex::ALL[2],
            },
            key: &yc,
            c1: &c1c,
            share: &dc,
        };
        let proof = prove_share(&stmt, &x, &c1);
        assert!(verify_share(&stmt, &y, &c1, &d, &proof));
        let other_requester = ShareStatement {
            kind: ShareKind::Draw {
                requester: SeatIndex::ALL[3],
            },
            ..stmt
        };
        assert!(!verify_share(&other_requester, &y, &c1, &d, &proof));
        let other_position = ShareStatement {
            position: 18,
            ..stmt
        };
        assert!(!verify_share(&other_position, &y, &c1, &d, &proof));
        // A wrong share with a proof made for it still fails (no x' links it).
        let wrong = d + RistrettoPoint::mul_base(&Scalar::ONE);
        let wc = wrong.compress();
        let forged_stmt = ShareStatement { share: &wc, ..stmt };
        let forged = prove_share(&forged_stmt, &x, &c1);
        assert!(!verify_share(&forged_stmt, &y, &c1, &wrong, &forged));
    }
}
