//! What a finished hand's end-of-hand reveals derive of its own messages.
//!
//! Once every seat has revealed its hand key `x` and its shuffle seed ([`AuditReveal`]),
//! much of the hand's transcript is a function of them:
//!
//! - each seat's shuffled wall is [`crate::ShuffleOutput`]'s derivation from its seed and the
//!   previous seat's wall (the audit's step 4 checks exactly that);
//! - each decryption share is `x·C1` of a final-wall position, and its proof's nonce is
//!   deterministic (`proof.rs`), so the whole share message is a function of `x`, the
//!   position and whom it was for.
//!
//! [`Derivation`] makes them again, byte for byte, so that a store can keep a finished hand
//! without them and give back the very messages that were signed (their carriers' signatures
//! and the log's hashes are checked over the bytes made again, as over the bytes received).
//! [`Derivation::derives_wall`] and [`Derivation::derives_share`] say whether a received
//! message is what the derivation makes: only those may be left out. The shuffle proofs are
//! not derived: making one costs as much as the prover's work (about 35 ms), and a valid proof
//! made with other randomness is still valid, so a store keeps them.

use std::collections::BTreeMap;

use curve25519_dalek::ristretto::{CompressedRistretto, RistrettoBasepointTable, RistrettoPoint};

use crate::elgamal::{CardTable, CompressedCiphertext, Wall, shuffle};
use crate::message::{AuditReveal, Body, Message, ShareKind, ShareMessage};
use crate::proof::{ShareStatement, share_nonce};
use crate::{HandContext, Position, SeatIndex};

/// A finished hand's reveals and what they derive (see the module header). Walls are made on
/// first use.
pub struct Derivation {
    ctx: HandContext,
    keys: [CompressedRistretto; 4],
    joint_key: RistrettoPoint,
    reveals: [AuditReveal; 4],
    /// Each seat's shuffled wall, made from the seeds; empty until asked for.
    walls: Vec<Wall>,
    /// The shares made so far, by sender, position and kind.
    made: BTreeMap<(SeatIndex, Position, ShareKind), ShareMessage>,
    /// The walls the seats published (their compact shuffles among the messages), if any.
    published: [Option<Vec<CompressedCiphertext>>; 4],
    /// Whether the hand's audit passed ([`Derivation::audited`]).
    audited: bool,
}

impl std::fmt::Debug for Derivation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Derivation")
            .field("ctx", &self.ctx)
            .field("walls made", &!self.walls.is_empty())
            .finish_non_exhaustive()
    }
}

impl Derivation {
    /// The derivation of hand `ctx` from its messages (in any order; those of other hands
    /// are ignored): `None` unless every seat's key announcement and end-of-hand reveal are
    /// among them, each key a valid point, once.
    pub fn new<'a>(
        ctx: HandContext,
        messages: impl IntoIterator<Item = &'a Message>,
    ) -> Option<Derivation> {
        let mut keys: [Option<CompressedRistretto>; 4] = [None; 4];
        let mut reveals: [Option<AuditReveal>; 4] = [None, None, None, None];
        let mut published: [Option<Vec<CompressedCiphertext>>; 4] = [None, None, None, None];
        for m in messages {
            if m.table != ctx.table || m.hand != ctx.hand {
                continue;
            }
            let s = m.seat.index();
            // Two different keys or reveals of one seat: nothing is derived.
            let twice = match &m.body {
                Body::Key(k) => keys[s].replace(k.key).is_some_and(|old| old != k.key),
                Body::AuditReveal(r) => reveals[s].replace(r.clone()).is_some_and(|old| &old != r),
                Body::Shuffle(out) => published[s]
                    .replace(out.wall.clone())
                    .is_some_and(|old| old != out.wall),
                _ => false,
            };
            if twice {
                return None;
            }
        }
        let keys = [keys[0]?, keys[1]?, keys[2]?, keys[3]?];
        let [Some(a), Some(b), Some(c), Some(d)] = reveals else {
            return None;
        };
        let mut joint_key = RistrettoPoint::default();
        for (key, reveal) in keys.iter().zip([&a, &b, &c, &d]) {
            // The revealed key must be the announced one: else nothing is derived.
            if RistrettoPoint::mul_base(&reveal.secret_key).compress() != *key {
                return None;
            }
            joint_key += key.decompress()?;
        }
        Some(Derivation {
            ctx,
            keys,
            joint_key,
            reveals: [a, b, c, d],
            walls: Vec::new(),
            made: BTreeMap::new(),
            published,
            audited: false,
        })
    }

    /// This derivation for a hand whose audit passed (a settled hand: every seat signs its
    /// settlement only after its own audit). The audit showed each published wall to be its
    /// seat's derivation (its step 4) and each share's point to be `x·C1` (its step 5), so
    /// [`Derivation::derives_wall`] takes a published wall without making the walls, and
    /// [`Derivation::derives_share`] checks only what the audit does not: the proof's nonce,
    /// with `C1` from the published final wall. A store packing a finished hand then pays a
    /// hash a share instead of a point multiplication, and no shuffle at all.
    pub fn audited(mut self) -> Derivation {
        self.audited = true;
        self
    }

    /// Makes the four walls, if not made yet.
    fn make_walls(&mut self, cards: &CardTable) {
        if !self.walls.is_empty() {
            return;
        }
        let key_table = RistrettoBasepointTable::create(&self.joint_key);
        for seat in SeatIndex::ALL {
            let input = match self.walls.last() {
                Some(w) => w.points.as_slice(),
                None => cards.initial_wall(),
            };
            let seed = &self.reveals[seat.index()].shuffle_seed;
            let output = shuffle(&self.ctx, seat, seed, &key_table, input).output;
            self.walls.push(Wall::from_points(output));
        }
    }

    /// `seat`'s shuffled wall as its revealed seed derives it.
    pub fn wall(&mut self, seat: SeatIndex, cards: &CardTable) -> &[CompressedCiphertext] {
        self.make_walls(cards);
        self.walls
            .get(seat.index())
            .map(|w| w.compressed.as_slice())
            .unwrap_or_default()
    }

    /// Whether `wall` is `seat`'s derived wall (in an audited hand: its published one).
    pub fn derives_wall(
        &mut self,
        seat: SeatIndex,
        wall: &[CompressedCiphertext],
        cards: &CardTable,
    ) -> bool {
        if self.audited
            && let Some(published) = &self.published[seat.index()]
        {
            return published == wall;
        }
        self.wall(seat, cards) == wall
    }

    /// The `C1` of final-wall position `position`, as a point and compressed, if there is
    /// one.
    fn c1(&mut self, position: Position, cards: &CardTable) -> Option<(RistrettoPoint, [u8; 32])> {
        self.make_walls(cards);
        let last = self.walls.get(3)?;
        let p = usize::from(position);
        Some((last.points.get(p)?.c1, last.compressed.get(p)?.c1))
    }

    /// The share message `seat` sends for `position` and `kind`, as its revealed key makes
    /// it ([`ShareMessage::new`]); `None` for a position outside the wall.
    pub fn share(
        &mut self,
        seat: SeatIndex,
        position: Position,
        kind: ShareKind,
        cards: &CardTable,
    ) -> Option<ShareMessage> {
        if let Some(made) = self.made.get(&(seat, position, kind)) {
            return Some(made.clone());
        }
        let (c1, _) = self.c1(position, cards)?;
        let s = seat.index();
        let made = ShareMessage::with_key(
            &self.ctx,
            seat,
            &self.reveals[s].secret_key,
            &self.keys[s],
            &c1,
            position,
            kind,
        );
        self.made.insert((seat, position, kind), made.clone());
        Some(made)
    }

    /// Whether `share`, received from `seat` (its proof checked on receipt), is the one
    /// [`Derivation::share`] makes. Cheaper than making it: the share must be `x·C1`, and the
    /// proof's nonce, `response − challenge·x`, the deterministic one. A valid proof
    /// `(c, s)` with `s = k + c·x` has `c = H(statement, k·G, k·C1)`, which is what
    /// [`Derivation::share`] computes from that `k`: so for a proof that was checked, the
    /// two tests say the derivation gives these very bytes. For a proof that was never
    /// checked, compare with [`Derivation::share`] instead.
    pub fn derives_share(
        &mut self,
        seat: SeatIndex,
        share: &ShareMessage,
        cards: &CardTable,
    ) -> bool {
        if let Some(made) = self.made.get(&(seat, share.position, share.kind)) {
            return made == share;
        }
        let s = seat.index();
        let x = self.reveals[s].secret_key;
        let published = self.published[3]
            .as_ref()
            .filter(|_| self.audited)
            .and_then(|w| w.get(usize::from(share.position)))
            .map(|c| c.c1);
        let c1_compressed = match published {
            // The audit checked the point.
            Some(c1) => c1,
            None => {
                let Some((c1, c1_compressed)) = self.c1(share.position, cards) else {
                    return false;
                };
                if (c1 * x).compress() != share.share {
                    return false;
                }
                c1_compressed
            }
        };
        let stmt = ShareStatement {
            ctx: &self.ctx,
            seat,
            position: share.position,
            kind: share.kind,
            key: &self.keys[s],
            c1: &CompressedRistretto(c1_compressed),
            share: &share.share,
        };
        share.proof.response - share.proof.challenge * x == share_nonce(&stmt, &x)
    }
}
