//! End-of-hand audit: re-derive everything from the transcript and the revealed secrets, and
//! name the first seat that deviated, with its own signed messages as evidence.
//!
//! Implements ARCHITECTURE.md "Randomness and dealing" item 5. Anyone holding the hand's
//! messages (a seat, a spectator, `mahjong verify`) can run [`audit`]; it trusts nothing but
//! the roster of ed25519 keys.
//!
//! Checks, in this order (the first failure is reported):
//!
//! 1. Replay every message except the end-of-hand reveals through a fresh [`Observer`]
//!    (stably sorted by step: commits, keys, reveals, shuffles by seat, then shares in
//!    transcript order): signatures, versions, table and hand (replays), equivocation, seed
//!    reveals against commitments, key proofs, wall well-formedness and proofs of shuffle,
//!    share proofs, shows only of held positions.
//! 2. Every seat sent its commitment, reveal, key and shuffle.
//! 3. Replay the end-of-hand reveals: each secret key matches its published key, each shuffle
//!    seed its commitment; every seat sent one.
//! 4. Each seat's shuffle, in seat order, equals what its seed derives from the previous
//!    seat's published wall (seat 0: the public initial wall). The proofs of step 1 already
//!    show each is *a* shuffle; this shows it is the committed one.
//! 5. Every decryption share (draw, show, public) equals `x·C1` for the sender's revealed `x`.
//! 6. The final wall decrypts to the 144 cards, each once.

use std::collections::BTreeMap;
use std::sync::Arc;

use curve25519_dalek::ristretto::RistrettoBasepointTable;
use curve25519_dalek::scalar::Scalar;
use ed25519_dalek::VerifyingKey;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::elgamal::{CardTable, shuffle};
use crate::error::{DealError, ShareFault, ShuffleFault};
use crate::hash::JointRandomness;
use crate::message::{ShareKind, SignedMessage, Step};
use crate::observer::{Check, Observer, Opening, Slot};
use crate::{CardIndex, HandContext, Position, SeatIndex, WALL_SIZE};

/// A consistent hand: the whole wall, now public.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditSummary {
    /// The joint randomness (hand id, dice, dealer).
    pub joint: JointRandomness,
    /// The card at each final wall position (a permutation of 0..144).
    pub final_wall: Vec<CardIndex>,
    /// How each position opened during the hand became known: drawn (by whom), shown, or
    /// publicly opened. Positions never drawn or opened are absent.
    pub openings: BTreeMap<Position, Opening>,
    /// Positions set aside face down during the hand, and by whom (their cards are in
    /// `final_wall`; each was drawn by that seat and never shown).
    pub set_aside: BTreeMap<Position, SeatIndex>,
}

/// The first inconsistency found: who, at which step, why, and the evidence.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("audit failed at {step}: {error}")]
pub struct Violation {
    /// The seat at fault, when one can be named. `None` for an incomplete or unordered
    /// transcript that proves nothing against anyone.
    pub seat: Option<SeatIndex>,
    /// The step at fault.
    pub step: Step,
    /// What is wrong (the same error a live seat would have raised).
    pub error: DealError,
    /// The culprit's signed messages that prove it (empty for a missing message).
    pub evidence: Vec<SignedMessage>,
}

/// The outcome of an audit.
pub type AuditReport = Result<AuditSummary, Violation>;

/// Audits a hand's transcript (all its messages, in any order that respects the protocol's
/// dependencies; see the module header) against the table's roster.
pub fn audit(
    ctx: HandContext,
    roster: &[VerifyingKey; 4],
    transcript: &[SignedMessage],
) -> AuditReport {
    audit_with_cards(ctx, roster, transcript, Arc::new(CardTable::new()))
}

/// Like [`audit`], reusing a card table.
pub fn audit_with_cards(
    ctx: HandContext,
    roster: &[VerifyingKey; 4],
    transcript: &[SignedMessage],
    cards: Arc<CardTable>,
) -> AuditReport {
    audit_inner(ctx, roster, transcript, cards, Source::Signed)
}

/// Like [`audit_with_cards`], for a transcript taken out of signed carriers the caller has
/// checked (the table crate's envelopes of version 2): a carried message
/// ([`SignedMessage::carried`]) is not asked for a signature of its own, every proof is
/// checked as in [`audit`]. Never for messages whose carriers were not checked.
pub fn audit_carried_with_cards(
    ctx: HandContext,
    roster: &[VerifyingKey; 4],
    transcript: &[SignedMessage],
    cards: Arc<CardTable>,
) -> AuditReport {
    audit_inner(ctx, roster, transcript, cards, Source::Carried)
}

/// Where the transcript of an audit comes from, and so what its step 1 checks.
enum Source<'a> {
    /// Anyone: every signature and proof.
    Signed,
    /// Checked carriers: every proof, and the signature of every message not carried.
    Carried,
    /// This observer, which checked everything on receipt: nothing again.
    Verified(&'a Observer),
}

/// The audit of a transcript an [`Observer`] (or a seat's own, [`crate::DealSeat::observer`])
/// has already accepted: every signature and proof was checked on receipt, so step 1 only
/// rebuilds the state (reusing the decoded walls) and the audit proper — steps 2 to 6 — runs
/// as in [`audit`]. About five times cheaper; for a third party's transcript use [`audit`].
pub fn audit_verified(observer: &Observer) -> AuditReport {
    audit_inner(
        *observer.ctx(),
        observer.roster(),
        observer.messages(),
        observer.cards.clone(),
        Source::Verified(observer),
    )
}

fn audit_inner(
    ctx: HandContext,
    roster: &[VerifyingKey; 4],
    transcript: &[SignedMessage],
    cards: Arc<CardTable>,
    source: Source,
) -> AuditReport {
    let mut order: Vec<&SignedMessage> = transcript.iter().collect();
    order.sort_by_key(|m| rank(m));
    let mut obs = Observer::with_cards(ctx, *roster, cards.clone());

    // 1. Replay.
    let (before, reveals): (Vec<_>, Vec<_>) = order
        .into_iter()
        .partition(|m| m.step() != Step::AuditReveal);
    replay(&mut obs, &before, &source)?;

    // 2. Nothing missing.
    for (step, present) in [
        (Step::Commit, obs.commits.map(|c| c.is_some())),
        (Step::Reveal, obs.seeds.map(|c| c.is_some())),
        (Step::Key, obs.keys.map(|c| c.is_some())),
        (Step::Shuffle, [0, 1, 2, 3].map(|s| obs.walls[s].is_some())),
    ] {
        missing(step, present)?;
    }

    // 3. End-of-hand reveals.
    replay(&mut obs, &reveals, &source)?;
    missing(Step::AuditReveal, obs.revealed.map(|r| r.is_some()))?;
    let mut secrets = [(Scalar::ZERO, [0u8; 32]); 4];
    for (i, r) in obs.revealed.iter().enumerate() {
        if let Some(r) = r {
            secrets[i] = *r;
        }
    }

    // 4. Shuffles.
    let (Some(joint_key), Some(joint)) = (obs.joint_key, obs.joint) else {
        return Err(incomplete(Step::Key));
    };
    let key_table = RistrettoBasepointTable::create(&joint_key);
    let mut input = cards.initial_wall();
    for seat in SeatIndex::ALL {
        let s = seat.index();
        let Some(published) = obs.walls[s].as_ref().map(|w| w.points.as_slice()) else {
            return Err(incomplete(Step::Shuffle));
        };
        let expected = shuffle(&ctx, seat, &secrets[s].1, &key_table, input).output;
        if let Some(p) = (0..WALL_SIZE).find(|&p| expected.get(p) != published.get(p)) {
            return Err(Violation {
                seat: Some(seat),
                step: Step::Shuffle,
                error: DealError::BadShuffle {
                    seat,
                    fault: ShuffleFault::NotDerived(p),
                },
                // Self-contained: the shuffle, the seed that does not derive it, the wall it
                // shuffled (the previous seat's) and the four keys that fix the joint key.
                evidence: evidence(
                    &obs,
                    &[Slot::Shuffle(seat), Slot::AuditReveal(seat)]
                        .into_iter()
                        .chain(seat.prev().map(Slot::Shuffle))
                        .chain(SeatIndex::ALL.map(Slot::Key))
                        .collect::<Vec<_>>(),
                ),
            });
        }
        input = published;
    }
    let Some(wall) = obs.walls[3].as_ref().map(|w| w.points.as_slice()) else {
        return Err(incomplete(Step::Shuffle));
    };

    // 5. Shares.
    let mut openings = BTreeMap::new();
    for (&(position, kind), by) in &obs.shares {
        let Some(c) = wall.get(usize::from(position)) else {
            continue;
        };
        for seat in SeatIndex::ALL {
            let Some(share) = by[seat.index()] else {
                continue;
            };
            if share != c.c1 * secrets[seat.index()].0 {
                return Err(Violation {
                    seat: Some(seat),
                    step: kind_step(kind),
                    error: DealError::BadShare {
                        seat,
                        position,
                        fault: ShareFault::NotDerived,
                    },
                    evidence: evidence(
                        &obs,
                        &[Slot::Share(seat, position, kind), Slot::AuditReveal(seat)],
                    ),
                });
            }
        }
        if let ShareKind::Draw { requester } = kind
            && by.iter().flatten().count() == 3
        {
            openings
                .entry(position)
                .or_insert(Opening::Drawn(requester));
        }
    }
    for (&position, &(_, how)) in &obs.opened {
        openings.insert(position, how);
    }

    // 6. The whole wall.
    let x: Scalar = secrets.iter().map(|(x, _)| x).sum();
    let mut final_wall = Vec::with_capacity(WALL_SIZE);
    let mut seen = [false; WALL_SIZE];
    for (p, c) in wall.iter().enumerate() {
        let position = p as Position;
        let card = obs
            .cards
            .card_of(&(c.c2 - c.c1 * x))
            .filter(|&card| !std::mem::replace(&mut seen[usize::from(card)], true))
            .ok_or_else(|| incomplete_with(Step::Shuffle, DealError::NotACard { position }))?;
        final_wall.push(card);
    }
    Ok(AuditSummary {
        joint,
        final_wall,
        openings,
        set_aside: obs.set_aside.clone(),
    })
}

/// Sort key putting a transcript in dependency order (stable within a rank).
fn rank(m: &SignedMessage) -> u8 {
    match m.step() {
        Step::Commit => 0,
        Step::Key => 1,
        Step::Reveal => 2,
        Step::Shuffle => 3 + m.seat().get(),
        // Draw shares before the shows that depend on them, whatever the transcript order.
        Step::DrawShare | Step::PublicShare => 7,
        // A set-aside after the draws it names, among the shows in transcript order (a show
        // of a card already set aside is refused).
        Step::Show | Step::SetAside => 8,
        Step::AuditReveal => 9,
    }
}

fn replay(
    obs: &mut Observer,
    messages: &[&SignedMessage],
    source: &Source,
) -> Result<(), Violation> {
    for m in messages {
        let result = match source {
            // Already checked on receipt: rebuild without re-verifying, reusing the walls.
            Source::Verified(verified) => {
                let wall = match m.step() {
                    Step::Shuffle => verified.walls[m.seat().index()].clone(),
                    _ => None,
                };
                obs.accept((*m).clone(), Check::Trusted, wall)
            }
            Source::Carried => obs.receive_carried((*m).clone()),
            Source::Signed => obs.receive((*m).clone()),
        };
        match result {
            // A card that is no card means a bad shuffle; step 4 names the shuffler.
            Ok(_) | Err(DealError::NotACard { .. }) => {}
            // A message that is not this hand's (bad signature, another table, hand or
            // version) proves nothing against the seat it names: set it aside. If the seat's
            // real message is missing, step 2 or 3 says so.
            Err(
                DealError::BadSignature { .. }
                | DealError::WrongTable { .. }
                | DealError::WrongHand { .. }
                | DealError::UnsupportedVersion { .. },
            ) => {}
            // A show without the three draw shares it needs: in a transcript, a missing share
            // cannot be told from a false show, so nobody is named.
            Err(error @ DealError::NotHeld { .. }) => {
                return Err(Violation {
                    seat: None,
                    step: m.step(),
                    error,
                    evidence: vec![(*m).clone()],
                });
            }
            Err(error) => {
                let evidence = match &error {
                    DealError::Equivocation { first, second, .. } => {
                        vec![(**first).clone(), (**second).clone()]
                    }
                    _ => vec![(*m).clone()],
                };
                return Err(Violation {
                    seat: error.culprit(),
                    step: m.step(),
                    error,
                    evidence,
                });
            }
        }
    }
    Ok(())
}

fn missing(step: Step, present: [bool; 4]) -> Result<(), Violation> {
    match SeatIndex::ALL.into_iter().find(|s| !present[s.index()]) {
        None => Ok(()),
        Some(seat) => Err(Violation {
            seat: Some(seat),
            step,
            error: DealError::Missing { seat, step },
            evidence: Vec::new(),
        }),
    }
}

fn incomplete(step: Step) -> Violation {
    incomplete_with(step, DealError::NotReady { needs: step })
}

fn incomplete_with(step: Step, error: DealError) -> Violation {
    Violation {
        seat: None,
        step,
        error,
        evidence: Vec::new(),
    }
}

fn kind_step(kind: ShareKind) -> Step {
    match kind {
        ShareKind::Draw { .. } => Step::DrawShare,
        ShareKind::Show => Step::Show,
        ShareKind::Public => Step::PublicShare,
    }
}

fn evidence(obs: &Observer, slots: &[Slot]) -> Vec<SignedMessage> {
    slots
        .iter()
        .filter_map(|slot| obs.slots.get(slot))
        .filter_map(|&i| obs.messages.get(i).cloned())
        .collect()
}
