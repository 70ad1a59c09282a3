//! The public state of one hand's deal, built only from verified messages.
//!
//! Implements the receiving side of ARCHITECTURE.md "Randomness and dealing" and "Agreement":
//! [`Observer::receive`] checks a [`SignedMessage`] (signature, version, table, hand, step
//! order, equivocation, and every proof: key proofs, proofs of shuffle, share proofs) and
//! keeps it. A [`crate::DealSeat`] is an observer
//! plus one seat's secrets; the [`crate::audit()`] replays a transcript through a fresh observer.
//! Anyone else (a spectator, a verifier) can use an observer directly.
//!
//! Messages must be delivered in the order of the table's agreed log: a reveal after all four
//! commits, a shuffle after all keys and the previous seat's shuffle, shares after the final
//! shuffle, a show after the three draw shares addressed to the shower.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use curve25519_dalek::ristretto::{CompressedRistretto, RistrettoPoint};
use curve25519_dalek::scalar::Scalar;
use curve25519_dalek::traits::Identity;
use ed25519_dalek::VerifyingKey;
use serde::{Deserialize, Serialize};

use crate::elgamal::{CardTable, Ciphertext, CompressedCiphertext, Wall};
use crate::error::{AuditRevealFault, DealError, KeyFault, ShareFault, ShuffleFault};
use crate::hash::{JointRandomness, seed_commitment, shuffle_commitment};
use crate::message::{Body, PROTOCOL_VERSION, ShareKind, SignedMessage, Step};
use crate::proof::{ShareStatement, verify_key, verify_share};
use crate::shuffle_argument::verify as verify_argument;
use crate::shuffle_proof::verify as verify_shuffle;
use crate::{CardIndex, HandContext, Position, SeatIndex, WALL_SIZE};

/// What [`Observer::accept`] checks of a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Check {
    /// Everything: its signature and its proofs.
    Full,
    /// Its proofs, and its signature unless it is carried (its carrier was checked).
    Carried,
    /// Nothing: this process made it, or checked it on receipt.
    Trusted,
}

/// What [`Observer::receive`] / [`crate::DealSeat::receive`] accepted. The table crate can
/// check it against what the agreed game state expects.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Accepted {
    /// The identical message was already accepted (harmless re-delivery).
    Duplicate,
    /// A seed commitment.
    Commit {
        /// Sender.
        seat: SeatIndex,
    },
    /// A seed reveal; `joint` is set when this was the fourth.
    Reveal {
        /// Sender.
        seat: SeatIndex,
        /// The joint randomness, once complete.
        joint: Option<JointRandomness>,
    },
    /// A hand key; `joint_key_ready` when this was the fourth.
    Key {
        /// Sender.
        seat: SeatIndex,
        /// All four keys are in.
        joint_key_ready: bool,
    },
    /// A shuffle; `wall_ready` when this was seat 3's (the final wall).
    Shuffle {
        /// Shuffler.
        seat: SeatIndex,
        /// The final wall is fixed.
        wall_ready: bool,
    },
    /// A decryption share.
    Share {
        /// Sender.
        seat: SeatIndex,
        /// Wall position.
        position: Position,
        /// Whom it is for.
        kind: ShareKind,
        /// The card, when this share completes an opening the receiver can read: a show, the
        /// fourth public share, or (for a seat) the third share of its own draw.
        opened: Option<CardIndex>,
    },
    /// An end-of-hand reveal.
    AuditReveal {
        /// Sender.
        seat: SeatIndex,
    },
    /// Held cards set aside face down.
    SetAside {
        /// Sender.
        seat: SeatIndex,
    },
}

/// How a card became known.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Opening {
    /// Drawn privately by this seat (known only to it until shown).
    Drawn(SeatIndex),
    /// Shown by the seat that drew it.
    Shown(SeatIndex),
    /// Opened publicly by all four seats.
    Public,
}

/// One message slot: a seat may send at most one message per slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Slot {
    Commit(SeatIndex),
    Reveal(SeatIndex),
    Key(SeatIndex),
    Shuffle(SeatIndex),
    Share(SeatIndex, Position, ShareKind),
    AuditReveal(SeatIndex),
    SetAside(SeatIndex),
}

impl Slot {
    pub(crate) fn of(msg: &SignedMessage) -> Slot {
        let seat = msg.seat();
        match &msg.message.body {
            Body::Commit(_) => Slot::Commit(seat),
            Body::Reveal(_) => Slot::Reveal(seat),
            Body::Key(_) => Slot::Key(seat),
            Body::Shuffle(_) | Body::LinearShuffle(_) => Slot::Shuffle(seat),
            Body::Share(s) => Slot::Share(seat, s.position, s.kind),
            Body::AuditReveal(_) => Slot::AuditReveal(seat),
            Body::SetAside(_) => Slot::SetAside(seat),
        }
    }
}

/// A published hand key.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PublishedKey {
    pub compressed: CompressedRistretto,
    pub point: RistrettoPoint,
    pub shuffle_commitment: [u8; 32],
}

/// The verified public state of one hand's deal.
#[derive(Clone, Debug)]
pub struct Observer {
    pub(crate) ctx: HandContext,
    pub(crate) roster: [VerifyingKey; 4],
    pub(crate) cards: Arc<CardTable>,
    /// Accepted messages, in acceptance order (a valid replay order).
    pub(crate) messages: Vec<SignedMessage>,
    pub(crate) slots: BTreeMap<Slot, usize>,
    pub(crate) commits: [Option<[u8; 32]>; 4],
    pub(crate) seeds: [Option<[u8; 32]>; 4],
    pub(crate) joint: Option<JointRandomness>,
    pub(crate) keys: [Option<PublishedKey>; 4],
    pub(crate) joint_key: Option<RistrettoPoint>,
    /// `walls[s]` is seat `s`'s shuffle output.
    pub(crate) walls: [Option<Wall>; 4],
    /// Shares by (position, kind), per sending seat.
    pub(crate) shares: BTreeMap<(Position, ShareKind), [Option<RistrettoPoint>; 4]>,
    /// Cards known to everyone (shown or opened publicly).
    pub(crate) opened: BTreeMap<Position, (CardIndex, Opening)>,
    /// End-of-hand secrets: (secret key, shuffle seed).
    pub(crate) revealed: [Option<(Scalar, [u8; 32])>; 4],
    /// Positions set aside face down, and by whom.
    pub(crate) set_aside: BTreeMap<Position, SeatIndex>,
}

impl Observer {
    /// An observer of hand `ctx` at a table whose four seats sign with `roster` (index = seat).
    pub fn new(ctx: HandContext, roster: [VerifyingKey; 4]) -> Self {
        Self::with_cards(ctx, roster, Arc::new(CardTable::new()))
    }

    /// Like [`Observer::new`], reusing a card table (saves about 3 ms per hand).
    pub fn with_cards(ctx: HandContext, roster: [VerifyingKey; 4], cards: Arc<CardTable>) -> Self {
        Observer {
            ctx,
            roster,
            cards,
            messages: Vec::new(),
            slots: BTreeMap::new(),
            commits: [None; 4],
            seeds: [None; 4],
            joint: None,
            keys: [None; 4],
            joint_key: None,
            walls: Default::default(),
            shares: BTreeMap::new(),
            opened: BTreeMap::new(),
            revealed: [None; 4],
            set_aside: BTreeMap::new(),
        }
    }

    /// The hand.
    pub fn ctx(&self) -> &HandContext {
        &self.ctx
    }

    /// The four seats' ed25519 keys.
    pub fn roster(&self) -> &[VerifyingKey; 4] {
        &self.roster
    }

    /// The shared card table.
    pub fn card_table(&self) -> &Arc<CardTable> {
        &self.cards
    }

    /// Every accepted message, in acceptance order: the transcript of the hand so far.
    pub fn messages(&self) -> &[SignedMessage] {
        &self.messages
    }

    /// The joint randomness, once all four seeds are revealed.
    pub fn joint_randomness(&self) -> Option<&JointRandomness> {
        self.joint.as_ref()
    }

    /// Whether all four seats' commitments are in.
    pub fn commits_complete(&self) -> bool {
        self.commits.iter().all(Option::is_some)
    }

    /// The joint public key, once all four keys are in.
    pub fn joint_key(&self) -> Option<&RistrettoPoint> {
        self.joint_key.as_ref()
    }

    /// The seat whose shuffle is due next (all keys in, the previous seats' shuffles in), or
    /// `None` if keys are missing or the wall is final.
    pub fn next_shuffler(&self) -> Option<SeatIndex> {
        self.joint_key?;
        SeatIndex::ALL
            .into_iter()
            .find(|s| self.walls[s.index()].is_none())
    }

    /// The seats whose message for a per-seat step (commit, reveal, key, shuffle, audit reveal)
    /// is not in yet: whom the table is waiting for. Empty for the share steps, which are
    /// per position.
    pub fn missing(&self, step: Step) -> Vec<SeatIndex> {
        SeatIndex::ALL
            .into_iter()
            .filter(|s| {
                let i = s.index();
                match step {
                    Step::Commit => self.commits[i].is_none(),
                    Step::Reveal => self.seeds[i].is_none(),
                    Step::Key => self.keys[i].is_none(),
                    Step::Shuffle => self.walls[i].is_none(),
                    Step::AuditReveal => self.revealed[i].is_none(),
                    Step::DrawShare | Step::Show | Step::PublicShare | Step::SetAside => false,
                }
            })
            .collect()
    }

    /// Whether the final wall (seat 3's shuffle) is fixed.
    pub fn wall_ready(&self) -> bool {
        self.walls[3].is_some()
    }

    /// The final wall, once fixed.
    pub fn final_wall(&self) -> Option<&[Ciphertext]> {
        self.walls[3].as_ref().map(|w| w.points.as_slice())
    }

    /// A card known to everyone: shown by its holder or opened publicly.
    pub fn public_card(&self, position: Position) -> Option<(CardIndex, Opening)> {
        self.opened.get(&position).copied()
    }

    /// All cards known to everyone, by position.
    pub fn public_cards(&self) -> &BTreeMap<Position, (CardIndex, Opening)> {
        &self.opened
    }

    /// The positions set aside face down ([`crate::SetAside`]), and by whom.
    pub fn set_aside(&self) -> &BTreeMap<Position, SeatIndex> {
        &self.set_aside
    }

    /// Whether `seat` holds `position` privately: the three other seats' draw shares of it for
    /// `seat` are in, and it is neither shown nor set aside.
    pub fn holds(&self, seat: SeatIndex, position: Position) -> bool {
        let others = self
            .shares_of(position, ShareKind::Draw { requester: seat })
            .map_or(0, |h| {
                h.iter()
                    .enumerate()
                    .filter(|(i, p)| *i != seat.index() && p.is_some())
                    .count()
            });
        others == 3
            && !self.opened.contains_key(&position)
            && !self.set_aside.contains_key(&position)
    }

    /// How many of the three draw shares of `position` for `requester` are in.
    pub fn draw_share_count(&self, position: Position, requester: SeatIndex) -> usize {
        self.shares
            .get(&(position, ShareKind::Draw { requester }))
            .map_or(0, |s| s.iter().flatten().count())
    }

    /// Checks a message and, if valid, keeps it. See the module header for the order.
    ///
    /// A [`DealError::NotACard`] means the message was valid and kept but the wall is corrupt.
    pub fn receive(&mut self, msg: SignedMessage) -> Result<Accepted, DealError> {
        self.accept(msg, Check::Full, None)
    }

    /// [`Observer::receive`] for a message taken out of a signed carrier the caller has
    /// checked (the table crate's envelope, signed by the same seat over this message): a
    /// carried message ([`SignedMessage::carried`]) is not asked for a signature of its own;
    /// everything else (version, table, hand, order, every proof) is checked as ever, and a
    /// signed message is checked whole.
    pub fn receive_carried(&mut self, msg: SignedMessage) -> Result<Accepted, DealError> {
        self.accept(msg, Check::Carried, None)
    }

    /// The shares of `position` for `kind`, per sending seat.
    pub(crate) fn shares_of(
        &self,
        position: Position,
        kind: ShareKind,
    ) -> Option<&[Option<RistrettoPoint>; 4]> {
        self.shares.get(&(position, kind))
    }

    /// Whether `seat` has sent any share of `position` other than one of `kind`.
    pub(crate) fn has_other_share(
        &self,
        seat: SeatIndex,
        position: Position,
        kind: ShareKind,
    ) -> bool {
        self.shares
            .range(
                (
                    position,
                    ShareKind::Draw {
                        requester: SeatIndex::ALL[0],
                    },
                )..,
            )
            .take_while(|((p, _), _)| *p == position)
            .any(|((_, k), by)| *k != kind && by[seat.index()].is_some())
    }

    /// `C2 − Σ shares` for a final-wall position, looked up as a card.
    pub(crate) fn open_with(
        &self,
        position: Position,
        shares: impl IntoIterator<Item = RistrettoPoint>,
    ) -> Result<CardIndex, DealError> {
        let wall = self.walls[3].as_ref().ok_or(DealError::NotReady {
            needs: Step::Shuffle,
        })?;
        let c = wall
            .points
            .get(usize::from(position))
            .ok_or(DealError::PositionOutOfRange { position })?;
        let mut m = c.c2;
        for s in shares {
            m -= s;
        }
        self.cards
            .card_of(&m)
            .ok_or(DealError::NotACard { position })
    }

    /// The checking and keeping behind [`Observer::receive`]. [`Check::Trusted`] skips the
    /// signature and proof checks for a message this process just made itself; `own_wall`
    /// then supplies its shuffle's points so they need not be decompressed again.
    pub(crate) fn accept(
        &mut self,
        msg: SignedMessage,
        check: Check,
        own_wall: Option<Wall>,
    ) -> Result<Accepted, DealError> {
        let seat = msg.seat();
        let trusted = check == Check::Trusted;
        if check == Check::Full || (check == Check::Carried && !msg.is_carried()) {
            msg.verify_signature(&self.roster)?;
        }
        let m = &msg.message;
        if m.version != PROTOCOL_VERSION {
            return Err(DealError::UnsupportedVersion {
                seat,
                version: m.version,
            });
        }
        if m.table != self.ctx.table {
            return Err(DealError::WrongTable { seat });
        }
        if m.hand != self.ctx.hand {
            return Err(DealError::WrongHand { seat, hand: m.hand });
        }
        let slot = Slot::of(&msg);
        if let Some(&i) = self.slots.get(&slot) {
            let first = &self.messages[i];
            if first.message == msg.message {
                return Ok(Accepted::Duplicate);
            }
            return Err(DealError::Equivocation {
                seat,
                step: msg.step(),
                first: Box::new(first.clone()),
                second: Box::new(msg),
            });
        }
        let s = seat.index();
        let (accepted, error) = match &msg.message.body {
            Body::Commit(c) => {
                self.commits[s] = Some(c.commitment);
                (Accepted::Commit { seat }, None)
            }
            Body::Reveal(r) => {
                if !self.commits_complete() {
                    return Err(DealError::OutOfOrder {
                        seat,
                        step: Step::Reveal,
                        needs: Step::Commit,
                    });
                }
                // Every shuffle seed is committed (in the key messages) before the joint
                // randomness can be known, so no seat can choose its shuffle after the dice.
                if self.joint_key.is_none() {
                    return Err(DealError::OutOfOrder {
                        seat,
                        step: Step::Reveal,
                        needs: Step::Key,
                    });
                }
                if self.commits[s] != Some(seed_commitment(&self.ctx, seat, &r.seed, &r.nonce)) {
                    return Err(DealError::RevealMismatch { seat });
                }
                self.seeds[s] = Some(r.seed);
                if let [Some(a), Some(b), Some(c), Some(d)] = self.seeds {
                    self.joint = Some(JointRandomness::from_seeds(&self.ctx, &[a, b, c, d]));
                }
                (
                    Accepted::Reveal {
                        seat,
                        joint: self.joint,
                    },
                    None,
                )
            }
            Body::Key(k) => {
                let bad = |fault| DealError::BadKey { seat, fault };
                let point = k.key.decompress().ok_or(bad(KeyFault::InvalidPoint))?;
                if point == RistrettoPoint::identity() {
                    return Err(bad(KeyFault::Identity));
                }
                if !trusted && !verify_key(&self.ctx, seat, &k.key, &point, &k.proof) {
                    return Err(bad(KeyFault::BadProof));
                }
                self.keys[s] = Some(PublishedKey {
                    compressed: k.key,
                    point,
                    shuffle_commitment: k.shuffle_commitment,
                });
                if let [Some(a), Some(b), Some(c), Some(d)] = self.keys {
                    self.joint_key = Some(a.point + b.point + c.point + d.point);
                }
                (
                    Accepted::Key {
                        seat,
                        joint_key_ready: self.joint_key.is_some(),
                    },
                    None,
                )
            }
            body @ (Body::Shuffle(_) | Body::LinearShuffle(_)) => {
                let wall_bytes: &[CompressedCiphertext] = match body {
                    Body::Shuffle(out) => &out.wall,
                    Body::LinearShuffle(out) => &out.wall,
                    _ => &[],
                };
                if self.joint_key.is_none() {
                    return Err(DealError::OutOfOrder {
                        seat,
                        step: Step::Shuffle,
                        needs: Step::Key,
                    });
                }
                if let Some(prev) = seat.prev()
                    && self.walls[prev.index()].is_none()
                {
                    return Err(DealError::OutOfOrder {
                        seat,
                        step: Step::Shuffle,
                        needs: Step::Shuffle,
                    });
                }
                let wall = match own_wall {
                    Some(w) if trusted => w,
                    _ => {
                        let wall = check_wall(seat, wall_bytes)?;
                        let input = match seat.prev() {
                            Some(prev) => self.walls[prev.index()].as_ref(),
                            None => Some(self.cards.initial()),
                        };
                        let (Some(input), Some(key)) = (input, self.joint_key.as_ref()) else {
                            return Err(DealError::NotReady {
                                needs: Step::Shuffle,
                            });
                        };
                        let proven = match body {
                            Body::Shuffle(out) => verify_argument(
                                &self.ctx,
                                seat,
                                &self.cards.argument_key,
                                key,
                                input,
                                &wall,
                                &out.proof,
                            ),
                            Body::LinearShuffle(out) => verify_shuffle(
                                &self.ctx,
                                seat,
                                &self.cards.generators,
                                key,
                                input,
                                &wall,
                                &out.proof,
                            ),
                            _ => false,
                        };
                        if !proven {
                            return Err(DealError::BadShuffle {
                                seat,
                                fault: ShuffleFault::BadProof,
                            });
                        }
                        wall
                    }
                };
                self.walls[s] = Some(wall);
                (
                    Accepted::Shuffle {
                        seat,
                        wall_ready: s == 3,
                    },
                    None,
                )
            }
            Body::Share(sh) => {
                let position = sh.position;
                let bad = |fault| DealError::BadShare {
                    seat,
                    position,
                    fault,
                };
                let Some(wall) = self.walls[3].as_ref() else {
                    return Err(DealError::OutOfOrder {
                        seat,
                        step: msg.step(),
                        needs: Step::Shuffle,
                    });
                };
                let index = usize::from(position);
                let (Some(c), Some(cc)) = (wall.points.get(index), wall.compressed.get(index))
                else {
                    return Err(bad(ShareFault::PositionOutOfRange));
                };
                let (c1, c1_compressed) = (c.c1, CompressedRistretto(cc.c1));
                if sh.kind == (ShareKind::Draw { requester: seat }) {
                    return Err(bad(ShareFault::SelfRequest));
                }
                // A card set aside face down is out of play: no share of it any more.
                if let Some(&by) = self.set_aside.get(&position) {
                    return Err(DealError::SetAside { seat, position, by });
                }
                let key = self.keys[s].ok_or(DealError::NotReady { needs: Step::Key })?;
                let share = sh.share.decompress().ok_or(bad(ShareFault::InvalidPoint))?;
                if !trusted {
                    let stmt = ShareStatement {
                        ctx: &self.ctx,
                        seat,
                        position,
                        kind: sh.kind,
                        key: &key.compressed,
                        c1: &c1_compressed,
                        share: &sh.share,
                    };
                    if !verify_share(&stmt, &key.point, &c1, &share, &sh.proof) {
                        return Err(bad(ShareFault::BadProof));
                    }
                }
                let kind = sh.kind;
                let mut opened = None;
                let mut error = None;
                match kind {
                    ShareKind::Show => {
                        let held = self.shares_of(position, ShareKind::Draw { requester: seat });
                        let others: Vec<RistrettoPoint> = held
                            .map(|h| {
                                h.iter()
                                    .enumerate()
                                    .filter(|(i, _)| *i != s)
                                    .filter_map(|(_, p)| *p)
                                    .collect()
                            })
                            .unwrap_or_default();
                        match others.len() {
                            3 => {}
                            0 => return Err(DealError::NotHeld { seat, position }),
                            _ => return Err(DealError::MissingShares { position }),
                        }
                        match self.open_with(position, others.into_iter().chain([share])) {
                            Ok(card) => {
                                self.opened.insert(position, (card, Opening::Shown(seat)));
                                opened = Some(card);
                            }
                            Err(e) => error = Some(e),
                        }
                    }
                    ShareKind::Public => {
                        let entry = self.shares.get(&(position, kind));
                        let mut all: Vec<RistrettoPoint> = entry
                            .map(|e| e.iter().flatten().copied().collect())
                            .unwrap_or_default();
                        if all.len() == 3 {
                            all.push(share);
                            match self.open_with(position, all) {
                                Ok(card) => {
                                    self.opened.insert(position, (card, Opening::Public));
                                    opened = Some(card);
                                }
                                Err(e) => error = Some(e),
                            }
                        }
                    }
                    ShareKind::Draw { .. } => {}
                }
                self.shares.entry((position, kind)).or_default()[s] = Some(share);
                (
                    Accepted::Share {
                        seat,
                        position,
                        kind,
                        opened,
                    },
                    error,
                )
            }
            Body::SetAside(sa) => {
                if self.walls[3].is_none() {
                    return Err(DealError::OutOfOrder {
                        seat,
                        step: Step::SetAside,
                        needs: Step::Shuffle,
                    });
                }
                if sa.positions.is_empty() || sa.positions.windows(2).any(|w| w[0] >= w[1]) {
                    return Err(DealError::Decode(
                        "a set-aside names positions in strictly increasing order".into(),
                    ));
                }
                for &position in &sa.positions {
                    if usize::from(position) >= WALL_SIZE {
                        return Err(DealError::PositionOutOfRange { position });
                    }
                    if let Some(&by) = self.set_aside.get(&position) {
                        return Err(DealError::SetAside { seat, position, by });
                    }
                    if !self.holds(seat, position) {
                        return Err(DealError::NotHeld { seat, position });
                    }
                }
                for &position in &sa.positions {
                    self.set_aside.insert(position, seat);
                }
                (Accepted::SetAside { seat }, None)
            }
            Body::AuditReveal(a) => {
                let Some(key) = self.keys[s] else {
                    return Err(DealError::OutOfOrder {
                        seat,
                        step: Step::AuditReveal,
                        needs: Step::Key,
                    });
                };
                let bad = |fault| DealError::BadAuditReveal { seat, fault };
                if RistrettoPoint::mul_base(&a.secret_key) != key.point {
                    return Err(bad(AuditRevealFault::KeyMismatch));
                }
                if shuffle_commitment(&self.ctx, seat, &a.shuffle_seed) != key.shuffle_commitment {
                    return Err(bad(AuditRevealFault::SeedMismatch));
                }
                self.revealed[s] = Some((a.secret_key, a.shuffle_seed));
                (Accepted::AuditReveal { seat }, None)
            }
        };
        self.slots.insert(slot, self.messages.len());
        self.messages.push(msg);
        match error {
            Some(e) => Err(e),
            None => Ok(accepted),
        }
    }
}

/// Checks a received wall: 144 valid ciphertexts, no `C1 = O`, no repeats.
fn check_wall(seat: SeatIndex, wall: &[CompressedCiphertext]) -> Result<Wall, DealError> {
    let bad = |fault| DealError::BadShuffle { seat, fault };
    if wall.len() != WALL_SIZE {
        return Err(bad(ShuffleFault::WrongLength(wall.len())));
    }
    let mut seen = HashSet::with_capacity(WALL_SIZE);
    let mut out = Vec::with_capacity(WALL_SIZE);
    for (i, c) in wall.iter().enumerate() {
        let point = c.decompress().ok_or(bad(ShuffleFault::InvalidPoint(i)))?;
        if point.c1 == RistrettoPoint::identity() {
            return Err(bad(ShuffleFault::Unrandomized(i)));
        }
        if !seen.insert(*c) {
            return Err(bad(ShuffleFault::Duplicate(i)));
        }
        out.push(point);
    }
    Ok(Wall {
        points: out,
        compressed: wall.to_vec(),
    })
}
