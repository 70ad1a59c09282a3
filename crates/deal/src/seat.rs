//! One seat's side of the deal: its per-hand secrets, the messages it produces, and the cards
//! it can read.
//!
//! Implements the sending side of ARCHITECTURE.md "Randomness and dealing". A [`DealSeat`] is
//! an [`Observer`] plus the seat's [`HandSecrets`]. It is sans-IO: methods take a message in or
//! hand one out, nothing else. Every message it produces is a deterministic function of its
//! secrets and what it has accepted (deterministic proof nonces, deterministic ed25519), so a
//! seat restored after a crash produces byte-identical messages and can never be caught
//! "equivocating" by accident.
//!
//! Persistence: [`DealSeat::snapshot`] gives a [`SeatSnapshot`] (secrets + accepted messages);
//! [`DealSeat::restore`] replays it, re-verifying every message. `DealSeat` itself serializes
//! as its snapshot.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use curve25519_dalek::ristretto::RistrettoPoint;
use curve25519_dalek::scalar::Scalar;
use ed25519_dalek::{SigningKey, VerifyingKey};
use rand_core::{CryptoRng, RngCore};
use serde::{Deserialize, Serialize};
use zeroize::Zeroize;

use crate::elgamal::{CardTable, Wall};
use crate::error::DealError;
use crate::hash::{DomainHash, JointRandomness, Purpose, seed_commitment};
use crate::message::{
    AuditReveal, Body, KeyAnnouncement, Message, PROTOCOL_VERSION, SeedCommit, SeedReveal,
    SetAside, ShareKind, ShareMessage, ShuffleOutput, SignedMessage, Step,
};
use crate::observer::{Accepted, Check, Observer, Opening, Slot};
use crate::{CardIndex, HandContext, Position, SeatIndex, WALL_SIZE};

/// One seat's secrets for one hand. Persist them (encrypted at rest) until the hand is
/// audited; they are zeroized on drop and never printed by `Debug`.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandSecrets {
    /// Joint-randomness seed (revealed in step 2).
    seed: [u8; 32],
    /// Nonce of the seed commitment (revealed in step 2).
    nonce: [u8; 32],
    /// Hand secret key `x` (revealed at the audit).
    secret_key: Scalar,
    /// Shuffle seed (revealed at the audit).
    shuffle_seed: [u8; 32],
}

impl HandSecrets {
    /// Fresh secrets from a cryptographic RNG.
    pub fn generate<R: RngCore + CryptoRng + ?Sized>(rng: &mut R) -> Self {
        let mut root = [0u8; 32];
        rng.fill_bytes(&mut root);
        let secrets = Self::from_root(&root);
        root.zeroize();
        secrets
    }

    /// Secrets derived from a 32-byte secret root (for deterministic tests, or to persist one
    /// root per hand): each field is `sha512(secret-derivation ‖ root ‖ label)`. Never reuse a
    /// root for two hands.
    pub fn from_root(root: &[u8; 32]) -> Self {
        let derive = |label: u8| {
            DomainHash::sha512(Purpose::SecretDerivation)
                .bytes32(root)
                .u8(label)
                .finish_wide()
        };
        let first32 = |wide: [u8; 64]| {
            let mut out = [0u8; 32];
            out.copy_from_slice(&wide[..32]);
            out
        };
        let mut secret_key = Scalar::from_bytes_mod_order_wide(&derive(2));
        if secret_key == Scalar::ZERO {
            // Probability 2^-252; keep the key valid regardless.
            secret_key = Scalar::ONE;
        }
        HandSecrets {
            seed: first32(derive(0)),
            nonce: first32(derive(1)),
            secret_key,
            shuffle_seed: first32(derive(3)),
        }
    }
}

impl HandSecrets {
    /// The joint-randomness seed (public after step 2).
    pub fn seed(&self) -> &[u8; 32] {
        &self.seed
    }

    /// The nonce of the seed commitment (public after step 2).
    pub fn nonce(&self) -> &[u8; 32] {
        &self.nonce
    }

    /// The hand secret key `x` (public after the audit reveal). Keep it secret until then:
    /// with it, anyone can read every card this seat's share would open.
    pub fn secret_key(&self) -> &Scalar {
        &self.secret_key
    }

    /// The shuffle seed (public after the audit reveal).
    pub fn shuffle_seed(&self) -> &[u8; 32] {
        &self.shuffle_seed
    }
}

impl std::fmt::Debug for HandSecrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("HandSecrets(..)")
    }
}

impl Drop for HandSecrets {
    fn drop(&mut self) {
        self.seed.zeroize();
        self.nonce.zeroize();
        self.secret_key.zeroize();
        self.shuffle_seed.zeroize();
    }
}

/// What a seat persists to resume a hand: its secrets and every message it accepted, in
/// order (its own included).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SeatSnapshot {
    /// [`PROTOCOL_VERSION`].
    pub version: u16,
    /// The hand.
    pub ctx: HandContext,
    /// This seat.
    pub seat: SeatIndex,
    /// The four seats' ed25519 keys.
    pub roster: [VerifyingKey; 4],
    /// This seat's secrets.
    pub secrets: HandSecrets,
    /// Accepted messages, in acceptance order.
    pub messages: Vec<SignedMessage>,
    /// Positions this seat was told it is drawing ([`DealSeat::expect_draw`]).
    #[serde(default)]
    pub expecting: Vec<Position>,
}

/// One seat's state for one hand. See the crate documentation for the message sequence.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(into = "SeatSnapshot", try_from = "SeatSnapshot")]
pub struct DealSeat {
    seat: SeatIndex,
    secrets: HandSecrets,
    observer: Observer,
    /// Positions this seat drew, with their cards.
    drawn: BTreeMap<Position, CardIndex>,
    /// Positions the caller said this seat is drawing, whose shares may not have arrived.
    expecting: BTreeSet<Position>,
    /// Whether this seat's messages are carried ([`SignedMessage::carried`]): made without a
    /// signature of their own, for a carrier that signs them ([`DealSeat::set_carried`]).
    carried: bool,
}

impl DealSeat {
    /// Seat `seat` of hand `ctx`, with fresh `secrets`, at a table whose four seats sign with
    /// `roster` (index = seat).
    pub fn new(
        ctx: HandContext,
        seat: SeatIndex,
        roster: [VerifyingKey; 4],
        secrets: HandSecrets,
    ) -> Self {
        Self::with_cards(ctx, seat, roster, secrets, Arc::new(CardTable::new()))
    }

    /// Like [`DealSeat::new`], reusing a card table across hands.
    pub fn with_cards(
        ctx: HandContext,
        seat: SeatIndex,
        roster: [VerifyingKey; 4],
        secrets: HandSecrets,
        cards: Arc<CardTable>,
    ) -> Self {
        DealSeat {
            seat,
            secrets,
            observer: Observer::with_cards(ctx, roster, cards),
            drawn: BTreeMap::new(),
            expecting: BTreeSet::new(),
            carried: false,
        }
    }

    /// Makes this seat's messages carried ([`SignedMessage::carried`]) from now on: the
    /// caller sends each one inside an envelope it signs with the same key (the table crate's
    /// envelope version 2), so the message needs no signature of its own. The signing key is still
    /// asked for, and must still be the seat's.
    pub fn set_carried(&mut self, carried: bool) {
        self.carried = carried;
    }

    /// This seat.
    pub fn seat(&self) -> SeatIndex {
        self.seat
    }

    /// The hand.
    pub fn ctx(&self) -> &HandContext {
        self.observer.ctx()
    }

    /// The public state (everything verified so far).
    pub fn observer(&self) -> &Observer {
        &self.observer
    }

    /// The joint randomness, once all four seeds are revealed.
    pub fn joint_randomness(&self) -> Option<&JointRandomness> {
        self.observer.joint_randomness()
    }

    /// Every accepted message (own included), in order: the hand's transcript so far.
    pub fn transcript(&self) -> &[SignedMessage] {
        self.observer.messages()
    }

    /// A card this seat knows: one it drew, or one shown or opened publicly.
    pub fn card_at(&self, position: Position) -> Option<(CardIndex, Opening)> {
        if let Some(&card) = self.drawn.get(&position) {
            return Some((card, Opening::Drawn(self.seat)));
        }
        self.observer.public_card(position)
    }

    /// The positions this seat drew, with their cards.
    pub fn hand_cards(&self) -> &BTreeMap<Position, CardIndex> {
        &self.drawn
    }

    /// The persisted form.
    pub fn snapshot(&self) -> SeatSnapshot {
        SeatSnapshot {
            version: PROTOCOL_VERSION,
            ctx: *self.observer.ctx(),
            seat: self.seat,
            roster: *self.observer.roster(),
            secrets: self.secrets.clone(),
            messages: self.observer.messages().to_vec(),
            expecting: self.expecting.iter().copied().collect(),
        }
    }

    /// Rebuilds a seat from its snapshot, re-verifying every message (every proof, and the
    /// signature of every message that is not carried: a carried one's carrier was checked
    /// when it first came in, and a snapshot is the seat's own record).
    pub fn restore(snapshot: SeatSnapshot) -> Result<Self, DealError> {
        Self::restore_with_cards(snapshot, Arc::new(CardTable::new()))
    }

    /// Like [`DealSeat::restore`], reusing a card table.
    pub fn restore_with_cards(
        snapshot: SeatSnapshot,
        cards: Arc<CardTable>,
    ) -> Result<Self, DealError> {
        if snapshot.version != PROTOCOL_VERSION {
            return Err(DealError::UnsupportedVersion {
                seat: snapshot.seat,
                version: snapshot.version,
            });
        }
        let SeatSnapshot {
            ctx,
            seat,
            roster,
            secrets,
            messages,
            expecting,
            ..
        } = snapshot;
        let mut restored = Self::with_cards(ctx, seat, roster, secrets, cards);
        restored.expecting = expecting.into_iter().collect();
        for msg in messages {
            restored.carried |= msg.is_carried() && msg.seat() == seat;
            match restored.receive_carried(msg) {
                // A corrupt wall was already reported when the message first came in.
                Ok(_) | Err(DealError::NotACard { .. }) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(restored)
    }

    /// Checks a message from any seat (own included) and keeps it. When it completes this
    /// seat's own draw, the card is in [`Accepted::Share::opened`].
    ///
    /// A [`DealError::NotACard`] means the message was valid and kept but the wall is corrupt.
    pub fn receive(&mut self, msg: SignedMessage) -> Result<Accepted, DealError> {
        let accepted = self.observer.receive(msg)?;
        self.after_accept(accepted)
    }

    /// [`DealSeat::receive`] of a message out of a checked carrier: see
    /// [`Observer::receive_carried`].
    pub fn receive_carried(&mut self, msg: SignedMessage) -> Result<Accepted, DealError> {
        let accepted = self.observer.receive_carried(msg)?;
        self.after_accept(accepted)
    }

    /// Receives a show and returns the card shown.
    pub fn open_shown(&mut self, show: SignedMessage) -> Result<CardIndex, DealError> {
        let position = match &show.message.body {
            Body::Share(s) if s.kind == ShareKind::Show => s.position,
            _ => return Err(DealError::Decode("not a show message".into())),
        };
        self.receive(show)?;
        self.observer
            .public_card(position)
            .map(|(card, _)| card)
            .ok_or(DealError::MissingShares { position })
    }

    /// Step 1: the commitment to this seat's joint-randomness seed. May be sent together with
    /// [`DealSeat::key_message`].
    pub fn commit(&mut self, signer: &SigningKey) -> Result<SignedMessage, DealError> {
        let slot = Slot::Commit(self.seat);
        let commitment = seed_commitment(
            self.ctx(),
            self.seat,
            &self.secrets.seed,
            &self.secrets.nonce,
        );
        self.emit(signer, slot, || {
            Ok((Body::Commit(SeedCommit { commitment }), None))
        })
    }

    /// This seat's hand key with its proof, and its shuffle-seed commitment. May be sent
    /// together with [`DealSeat::commit`].
    pub fn key_message(&mut self, signer: &SigningKey) -> Result<SignedMessage, DealError> {
        let slot = Slot::Key(self.seat);
        let body = Body::Key(KeyAnnouncement::new(
            self.ctx(),
            self.seat,
            &self.secrets.secret_key,
            &self.secrets.shuffle_seed,
        ));
        self.emit(signer, slot, || Ok((body, None)))
    }

    /// Step 2: the seed reveal. Only once all four commitments are in.
    pub fn reveal(&mut self, signer: &SigningKey) -> Result<SignedMessage, DealError> {
        if !self.observer.commits_complete() {
            return Err(DealError::NotReady {
                needs: Step::Commit,
            });
        }
        let body = Body::Reveal(SeedReveal {
            seed: self.secrets.seed,
            nonce: self.secrets.nonce,
        });
        self.emit(signer, Slot::Reveal(self.seat), || Ok((body, None)))
    }

    /// Whether it is this seat's turn to shuffle (all keys in, previous seat's shuffle in,
    /// own not yet made).
    pub fn is_my_turn_to_shuffle(&self) -> bool {
        self.observer.next_shuffler() == Some(self.seat)
    }

    /// This seat's shuffle of the previous seat's wall (seat 0 shuffles the public initial
    /// wall). Only when [`DealSeat::is_my_turn_to_shuffle`] (or already made: then the same
    /// message again).
    pub fn shuffle_message(&mut self, signer: &SigningKey) -> Result<SignedMessage, DealError> {
        let slot = Slot::Shuffle(self.seat);
        if self.observer.slots.contains_key(&slot) {
            return self.emit(signer, slot, || {
                Err(DealError::NotReady {
                    needs: Step::Shuffle,
                })
            });
        }
        let joint_key = *self
            .observer
            .joint_key()
            .ok_or(DealError::NotReady { needs: Step::Key })?;
        let input = match self.seat.prev() {
            None => Some(self.observer.cards.initial()),
            Some(prev) => self.observer.walls[prev.index()].as_ref(),
        }
        .ok_or(DealError::NotReady {
            needs: Step::Shuffle,
        })?;
        let (out, wall) = ShuffleOutput::build(
            self.ctx(),
            self.seat,
            &self.secrets.shuffle_seed,
            &joint_key,
            input,
            &self.observer.cards,
        );
        self.emit(signer, slot, || Ok((Body::Shuffle(out), Some(wall))))
    }

    /// Marks `position` as one this seat is drawing now, as soon as the agreed game state says
    /// so and before the three draw shares for it arrive. From then on the seat refuses to
    /// release its own share of `position` for any other use (a share is `x·C1` whatever it is
    /// addressed to, so a share given to another requester would open this seat's card with
    /// the broadcast draw shares), whatever order messages reach it in.
    pub fn expect_draw(&mut self, position: Position) {
        self.expecting.insert(position);
    }

    /// This seat's decryption share of `position` for `requester`'s private draw. Call it only
    /// when the agreed game state says `requester` draws `position` now. Refuses a position this
    /// seat drew itself, or already gave to another seat or to a public open.
    pub fn share_for(
        &mut self,
        signer: &SigningKey,
        position: Position,
        requester: SeatIndex,
    ) -> Result<SignedMessage, DealError> {
        if requester == self.seat {
            return Err(DealError::SelfRequest);
        }
        self.share(signer, position, ShareKind::Draw { requester })
    }

    /// Shows a card this seat drew: its own share of `position`, with which every other seat
    /// (holding the three draw shares) reads the card.
    pub fn show(
        &mut self,
        signer: &SigningKey,
        position: Position,
    ) -> Result<SignedMessage, DealError> {
        if !self.drawn.contains_key(&position) {
            return Err(DealError::NotHeld {
                seat: self.seat,
                position,
            });
        }
        self.share(signer, position, ShareKind::Show)
    }

    /// Sets cards this seat drew aside face down, for good (see [`crate::SetAside`]): it
    /// will never show them and nobody may draw or open them again; their cards stay secret
    /// until the audit. The message is signed but not kept here: it is kept when it comes
    /// back in the table's order, like the others' messages ([`DealSeat::receive`]), so a
    /// seat may prepare one it does not send. `positions` must be held by this seat (drawn,
    /// not shown) and are listed in increasing order.
    pub fn set_aside(
        &self,
        signer: &SigningKey,
        positions: &[Position],
    ) -> Result<SignedMessage, DealError> {
        if signer.verifying_key() != self.observer.roster()[self.seat.index()] {
            return Err(DealError::WrongSigningKey);
        }
        let mut sorted = positions.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        for &position in &sorted {
            if !self.drawn.contains_key(&position) || !self.observer.holds(self.seat, position) {
                return Err(DealError::NotHeld {
                    seat: self.seat,
                    position,
                });
            }
        }
        let body = Body::SetAside(SetAside { positions: sorted });
        Message::new(self.ctx(), self.seat, body).sign(signer)
    }

    /// This seat's share for a public open of `position` (a position nobody holds, e.g. an
    /// indicator tile turned face up). The card is readable once all four are in.
    pub fn public_share(
        &mut self,
        signer: &SigningKey,
        position: Position,
    ) -> Result<SignedMessage, DealError> {
        self.share(signer, position, ShareKind::Public)
    }

    /// The card of a position this seat drew (the three shares addressed to it are in).
    pub fn open_private(&self, position: Position) -> Result<CardIndex, DealError> {
        if let Some(&card) = self.drawn.get(&position) {
            return Ok(card);
        }
        self.try_open_own(position)?
            .ok_or(DealError::MissingShares { position })
    }

    /// End of hand: reveals this seat's secret key and shuffle seed for the audit. After this
    /// every card of the hand is public.
    pub fn audit_reveal(&mut self, signer: &SigningKey) -> Result<SignedMessage, DealError> {
        if self.observer.keys[self.seat.index()].is_none() {
            return Err(DealError::NotReady { needs: Step::Key });
        }
        let body = Body::AuditReveal(AuditReveal {
            secret_key: self.secrets.secret_key,
            shuffle_seed: self.secrets.shuffle_seed,
        });
        self.emit(signer, Slot::AuditReveal(self.seat), || Ok((body, None)))
    }

    /// Audits this seat's transcript (see [`crate::audit()`]); every message in it was checked
    /// when it arrived, so the checks are not repeated ([`crate::audit_verified`]).
    pub fn audit(&self) -> crate::audit::AuditReport {
        crate::audit::audit_verified(&self.observer)
    }

    fn share(
        &mut self,
        signer: &SigningKey,
        position: Position,
        kind: ShareKind,
    ) -> Result<SignedMessage, DealError> {
        if usize::from(position) >= WALL_SIZE {
            return Err(DealError::PositionOutOfRange { position });
        }
        let slot = Slot::Share(self.seat, position, kind);
        if self.observer.slots.contains_key(&slot) {
            return self.emit(signer, slot, || {
                Err(DealError::NotReady {
                    needs: Step::DrawShare,
                })
            });
        }
        let c1 = self
            .observer
            .final_wall()
            .ok_or(DealError::NotReady {
                needs: Step::Shuffle,
            })?
            .get(usize::from(position))
            .ok_or(DealError::PositionOutOfRange { position })?
            .c1;
        // Never release a share that would open a card this seat holds, and never give one
        // position to two different uses.
        let mine_drawn = self.observer.draw_share_count(position, self.seat) > 0
            || self.expecting.contains(&position);
        let conflict = match kind {
            ShareKind::Show => self.observer.has_other_share(self.seat, position, kind),
            _ => mine_drawn || self.observer.has_other_share(self.seat, position, kind),
        };
        if conflict {
            return Err(DealError::PositionConflict { position });
        }
        let key = self.observer.keys[self.seat.index()]
            .ok_or(DealError::NotReady { needs: Step::Key })?
            .compressed;
        let body = Body::Share(ShareMessage::with_key(
            self.ctx(),
            self.seat,
            &self.secrets.secret_key,
            &key,
            &c1,
            position,
            kind,
        ));
        self.emit(signer, slot, || Ok((body, None)))
    }

    /// Signs and records a message of this seat, or returns the one already recorded in
    /// `slot` (messages are deterministic, so it is the same).
    fn emit(
        &mut self,
        signer: &SigningKey,
        slot: Slot,
        make: impl FnOnce() -> Result<(Body, Option<Wall>), DealError>,
    ) -> Result<SignedMessage, DealError> {
        if signer.verifying_key() != self.observer.roster()[self.seat.index()] {
            return Err(DealError::WrongSigningKey);
        }
        if let Some(&i) = self.observer.slots.get(&slot) {
            return Ok(self.observer.messages[i].clone());
        }
        let (body, own_wall) = make()?;
        let message = Message::new(self.ctx(), self.seat, body);
        let msg = if self.carried {
            SignedMessage::carried(message)
        } else {
            message.sign(signer)?
        };
        let accepted = self
            .observer
            .accept(msg.clone(), Check::Trusted, own_wall)?;
        self.after_accept(accepted)?;
        Ok(msg)
    }

    /// Opens this seat's own draw once its three shares are in.
    fn after_accept(&mut self, accepted: Accepted) -> Result<Accepted, DealError> {
        if let Accepted::Share {
            seat,
            position,
            kind: kind @ ShareKind::Draw { requester },
            opened: None,
        } = accepted
            && requester == self.seat
        {
            let card = self.try_open_own(position)?;
            if let Some(card) = card {
                self.drawn.insert(position, card);
            }
            return Ok(Accepted::Share {
                seat,
                position,
                kind,
                opened: card,
            });
        }
        Ok(accepted)
    }

    /// `Some(card)` if the three draw shares of `position` for this seat are in.
    fn try_open_own(&self, position: Position) -> Result<Option<CardIndex>, DealError> {
        let Some(shares) = self.observer.shares_of(
            position,
            ShareKind::Draw {
                requester: self.seat,
            },
        ) else {
            return Ok(None);
        };
        let others: Vec<RistrettoPoint> = shares.iter().flatten().copied().collect();
        if others.len() < 3 {
            return Ok(None);
        }
        let wall = self.observer.final_wall().ok_or(DealError::NotReady {
            needs: Step::Shuffle,
        })?;
        let c1 = wall
            .get(usize::from(position))
            .ok_or(DealError::PositionOutOfRange { position })?
            .c1;
        let own = c1 * self.secrets.secret_key;
        self.observer
            .open_with(position, others.into_iter().chain([own]))
            .map(Some)
    }
}

impl From<DealSeat> for SeatSnapshot {
    fn from(seat: DealSeat) -> Self {
        seat.snapshot()
    }
}

impl TryFrom<SeatSnapshot> for DealSeat {
    type Error = DealError;

    fn try_from(snapshot: SeatSnapshot) -> Result<Self, DealError> {
        DealSeat::restore(snapshot)
    }
}
