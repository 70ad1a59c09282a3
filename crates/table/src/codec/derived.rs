//! A finished hand's stored run leaves out what its end-of-hand reveals derive.
//!
//! Once a hand's four seats have revealed their hand keys and shuffle seeds, its shuffled
//! walls and every decryption share with its proof are functions of them
//! ([`mahjong_deal::Derivation`]). [`super::stored_run`] keeps such a message as a mark
//! ([`Kept`]) — a shuffle keeps its proof, a share only its position and whom it was for —
//! and [`super::from_stored_run`] makes it again, byte for byte, before anything is checked:
//! the envelope signatures and log hashes are then checked over the very bytes that were
//! signed. Only a carried message (envelope version 2) that the derivation makes exactly is
//! left out; anything else, a lying seat's message included, is kept whole. About 37 KB of
//! walls and 48 KB of shares a qiaoma hand.

use std::collections::{BTreeMap, BTreeSet};

use mahjong_deal::{
    Body as DealBody, CardTable, Derivation, HandContext, Message as DealMessage, PROTOCOL_VERSION,
    Position, SeatIndex, ShareKind, ShuffleArgument, ShuffleOutput,
};
use serde::{Deserialize, Serialize};

use super::{
    Body, Carried, CompactBody, CompactEnvelope, CompactPlay, Envelope, RunStep, StoredBody,
};
use crate::error::FrameError;

/// A carried deal message of a finished hand's stored run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) enum Kept {
    /// Kept whole.
    Whole(DealBody),
    /// The sender's compact shuffle: its wall left for the sender's seed to derive, its proof
    /// kept.
    Shuffle(Box<ShuffleArgument>),
    /// A decryption share left for the sender's key to derive, with its proof.
    Share {
        /// The wall position.
        position: Position,
        /// Whom it was for.
        kind: ShareKind,
    },
}

/// The derivations of the hands whose reveals a run holds, by hand.
pub(super) struct Hands {
    by_hand: BTreeMap<u32, Derivation>,
}

impl Hands {
    /// No derivations: every `Derived` body is refused.
    pub(super) fn none() -> Hands {
        Hands {
            by_hand: BTreeMap::new(),
        }
    }

    /// The derivations of the hands whose four reveals are among `steps`' envelopes: those a
    /// stored run keeps as [`StoredBody::Carried`], the only ones [`Hands::of_stored`] reads
    /// them from (a hand played partly by an older program, its envelopes of version 1,
    /// derives nothing rather than something its reader could not make again).
    pub(super) fn of_envelopes(table: &[u8; 32], steps: &[Vec<Envelope>]) -> Hands {
        let messages = steps
            .iter()
            .flatten()
            .filter(|e| CompactEnvelope::<Carried>::of(e).is_some())
            .flat_map(|e| e.deal_messages().map(|m| &m.message));
        let settles = steps
            .iter()
            .flatten()
            .filter(|e| e.is_settle())
            .map(|e| (e.hand, e.seat));
        Hands::of_messages(table, messages, settled(settles))
    }

    /// The derivations of the hands whose four reveals are among a stored run's entries (a
    /// key or a reveal is never left out).
    pub(super) fn of_stored(table: &[u8; 32], run: &[RunStep]) -> Hands {
        let mut messages = Vec::new();
        let mut settles = Vec::new();
        for step in run {
            for e in &step.entries {
                if let StoredBody::Whole(b) | StoredBody::Whole2(b) = &e.body
                    && matches!(b, Body::Settle { .. } | Body::SettleVoided { .. })
                {
                    settles.push((step.hand, e.seat));
                }
                let Some(seat) = SeatIndex::new(e.seat) else {
                    continue;
                };
                let mut keep = |body: &DealBody| {
                    if matches!(body, DealBody::Key(_) | DealBody::AuditReveal(_)) {
                        messages.push(DealMessage {
                            version: PROTOCOL_VERSION,
                            table: *table,
                            hand: step.hand,
                            seat,
                            body: body.clone(),
                        });
                    }
                };
                match &e.body {
                    StoredBody::Carried(body) => entries(body).for_each(|c| keep(&c.0)),
                    StoredBody::Derived(body) => entries(body).for_each(|k| {
                        if let Kept::Whole(b) = k {
                            keep(b)
                        }
                    }),
                    _ => {}
                }
            }
        }
        Hands::of_messages(table, messages.iter(), settled(settles.into_iter()))
    }

    /// The derivations of the hands whose four reveals are among `messages`, those of the
    /// hands in `settled` [`Derivation::audited`].
    fn of_messages<'a>(
        table: &[u8; 32],
        messages: impl Iterator<Item = &'a DealMessage>,
        settled: BTreeSet<u32>,
    ) -> Hands {
        let mut by_hand: BTreeMap<u32, Vec<&DealMessage>> = BTreeMap::new();
        for m in messages {
            if m.table == *table {
                by_hand.entry(m.hand).or_default().push(m);
            }
        }
        let by_hand = by_hand
            .into_iter()
            .filter_map(|(hand, ms)| {
                let ctx = HandContext {
                    table: *table,
                    hand,
                };
                let d = Derivation::new(ctx, ms)?;
                Some((
                    hand,
                    if settled.contains(&hand) {
                        d.audited()
                    } else {
                        d
                    },
                ))
            })
            .collect();
        Hands { by_hand }
    }

    /// `body`, of an entry of seat `seat` in hand `hand`, with what the hand's reveals
    /// derive left out ([`StoredBody::Derived`]), if anything is.
    pub(super) fn leave_out(&mut self, hand: u32, seat: u8, body: StoredBody) -> StoredBody {
        let (Some(d), Some(seat), StoredBody::Carried(carried)) =
            (self.by_hand.get_mut(&hand), SeatIndex::new(seat), &body)
        else {
            return body;
        };
        let cards = cards();
        let mut any = false;
        let kept = map(carried.clone(), |Carried(m)| -> Result<Kept, ()> {
            let kept = match m {
                DealBody::Shuffle(out) if d.derives_wall(seat, &out.wall, &cards) => {
                    Kept::Shuffle(out.proof)
                }
                DealBody::Share(s) if d.derives_share(seat, &s, &cards) => Kept::Share {
                    position: s.position,
                    kind: s.kind,
                },
                other => return Ok(Kept::Whole(other)),
            };
            any = true;
            Ok(kept)
        });
        match kept {
            Ok(kept) if any => StoredBody::Derived(kept),
            _ => body,
        }
    }

    /// `body`, of an entry of seat `seat` in hand `hand`, with what was left out made again
    /// ([`StoredBody::Carried`]); any other body as it is.
    pub(super) fn make_again(
        &mut self,
        hand: u32,
        seat: u8,
        body: StoredBody,
    ) -> Result<StoredBody, FrameError> {
        let StoredBody::Derived(kept) = body else {
            return Ok(body);
        };
        let missing = || {
            FrameError::Decode(format!(
                "a stored run leaves out deal messages of seat {seat} in hand {hand} without \
                 that hand's four reveals to derive them"
            ))
        };
        let seat_index = SeatIndex::new(seat).ok_or(FrameError::NoSuchSeat(seat))?;
        let d = self.by_hand.get_mut(&hand).ok_or_else(missing)?;
        let cards = cards();
        let made = map(kept, |k| match k {
            Kept::Whole(b) => Ok(Carried(b)),
            Kept::Shuffle(proof) => Ok(Carried(DealBody::Shuffle(ShuffleOutput {
                wall: d.wall(seat_index, &cards).to_vec(),
                proof,
            }))),
            Kept::Share { position, kind } => d
                .share(seat_index, position, kind, &cards)
                .map(|s| Carried(DealBody::Share(s)))
                .ok_or_else(|| {
                    FrameError::Decode(format!(
                        "a stored run leaves out a share of seat {seat} for wall position \
                         {position}, which is not in the wall"
                    ))
                }),
        })?;
        Ok(StoredBody::Carried(made))
    }
}

/// The hands that all four seats settled, from the (hand, seat) of settlement signatures.
/// Every seat signs a hand's settlement only after its own audit of the hand passed, and a
/// run holds only steps its seat's replica applied: so in a run with the four signatures of
/// a hand, the hand's audit passed ([`Derivation::audited`]).
fn settled(settles: impl Iterator<Item = (u32, u8)>) -> BTreeSet<u32> {
    let mut seats: BTreeMap<u32, [bool; 4]> = BTreeMap::new();
    for (hand, seat) in settles {
        if let Some(s) = seats.entry(hand).or_default().get_mut(usize::from(seat)) {
            *s = true;
        }
    }
    seats
        .into_iter()
        .filter(|(_, s)| s.iter().all(|&s| s))
        .map(|(hand, _)| hand)
        .collect()
}

/// The card table every derivation shares.
fn cards() -> std::sync::Arc<CardTable> {
    crate::rebuild::cards()
}

/// The deal messages of a compact body.
fn entries<E>(body: &CompactBody<E>) -> impl Iterator<Item = &E> {
    let ms: &[E] = match body {
        CompactBody::Deal(ms) => ms,
        CompactBody::Play(p) | CompactBody::ClaimOpen { play: p, .. } => &p.shows,
    };
    ms.iter()
}

/// A compact body with each deal message mapped by `f`.
fn map<E, F, X>(
    body: CompactBody<E>,
    mut f: impl FnMut(E) -> Result<F, X>,
) -> Result<CompactBody<F>, X> {
    let mut play = |p: CompactPlay<E>| -> Result<CompactPlay<F>, X> {
        Ok(CompactPlay {
            action: p.action,
            timed_out: p.timed_out,
            shows: p.shows.into_iter().map(&mut f).collect::<Result<_, _>>()?,
        })
    };
    Ok(match body {
        CompactBody::Deal(ms) => {
            CompactBody::Deal(ms.into_iter().map(&mut f).collect::<Result<_, _>>()?)
        }
        CompactBody::Play(p) => CompactBody::Play(play(p)?),
        CompactBody::ClaimOpen { play: p, nonce } => CompactBody::ClaimOpen {
            play: play(p)?,
            nonce,
        },
    })
}
