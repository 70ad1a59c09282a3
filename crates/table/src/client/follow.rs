//! Following a table after this seat was replaced by a bot.
//!
//! A player whose seat a bot took (the disconnect limit passed, the others aborted the hand
//! with it as the leaver and gave the seat to a bot) and who comes back with the same
//! identity does not take the seat back: the bot plays it to the end of the session, as the
//! others agreed by a signed roster step. It *follows* instead: a [`Follower`] holds the
//! table's signed log as a watcher (no secrets, nothing signed but requests), asks the
//! others for every step with the seat's original key (which the others answer, see
//! `frames.rs`), checks every entry against the roster in force exactly as a seat does
//! (signatures, chain, deal proofs, the rules, each settlement) and so books every later
//! hand as the others booked it, and ends with the session.
//!
//! Why watch rather than take the seat back at the next hand boundary: taking it back needs
//! a second roster step the three others sign, and a bot that gives up its keys in the
//! middle of a session; a follower needs nothing from the others but the log they already
//! answer with, cannot disturb the table, and gives the returning player every hand in its
//! ledger. The player sits down again at the next table.

use std::collections::BTreeMap;

use ed25519_dalek::SigningKey;
use mahjong_rules::Seat;

use super::{Client, MAX_BUFFER_BYTES, RETRANSMIT_MS};

/// Bytes of envelopes a follower keeps ahead of its log.
const FOLLOW_BUFFER_BYTES: usize = 4 * MAX_BUFFER_BYTES;
/// Hands ahead of its log a follower keeps envelopes of.
const MAX_HANDS_AHEAD: u32 = 16;
use crate::codec::{Body, Envelope, Header, Proposal};
use crate::error::{FrameError, StepError};
use crate::event::TableEvent;
use crate::io::{Input, Misfit, Output, Rejected};
use crate::replica::{Ending, HandResult, Replica, Stage, StepRecord};

/// A watcher of a table: a seat this peer no longer plays (see the module header), or a
/// friend who watches a table it never sat at ([`Follower::watching`]).
pub struct Follower {
    seat: Seat,
    /// The seat's original key, to sign requests with; a watcher that never sat has none
    /// and asks through its network shell instead.
    key: Option<SigningKey>,
    /// A watcher that never sat: an entry that does not fit is said (the peer that serves
    /// it showed something its seat did not sign) rather than dropped in silence.
    stranger: bool,
    replica: Replica,
    /// Entries and votes not yet logged, by (hand, step): `[entries by seat, votes by seat]`.
    slots: BTreeMap<(u32, u32), [[Option<Envelope>; 4]; 2]>,
    /// Bytes of envelopes held in `slots`.
    held: usize,
    now: u64,
    next_request: u64,
}

impl Client {
    /// A follower of the rest of the session, for a seat that came back after a bot took it
    /// (the client ended with [`TableEvent::Left`] at a hand boundary, not by its own
    /// leave): `None` when there is nothing to follow (the session is over, no bot plays on,
    /// or the client is still playing).
    pub fn follow(&self) -> Option<Follower> {
        let seat = self.me();
        if !matches!(self.replica.stage, Stage::Over(Ending::Left)) || self.replica.hand.is_some() {
            return None;
        }
        let mut replica = self.replica.clone();
        replica.me = None;
        replica.controller_for(seat)?;
        replica.stage = Stage::Roster { leaver: seat };
        Some(Follower {
            seat,
            key: Some(self.key.clone()),
            stranger: false,
            replica,
            slots: BTreeMap::new(),
            held: 0,
            now: 0,
            next_request: 0,
        })
    }
}

impl Follower {
    /// A watcher of table `table` from its first step, for a friend who does not sit there:
    /// it holds no secret and signs nothing, takes the signed log in any order from the peer
    /// that serves it (what [`Follower::next_step`] says it lacks), and checks every entry as
    /// a seat does (signatures, chain, deal proofs as an observer, the rules, each
    /// settlement). Nothing it is given opens a concealed tile before the hand's audit: a
    /// seat's draws are opened by three shares of the others and its own, which only it
    /// holds until it shows the tile.
    pub fn watching(
        table: [u8; 32],
        host: Seat,
        roster: [ed25519_dalek::VerifyingKey; 4],
    ) -> Follower {
        let cards = std::sync::Arc::new(mahjong_deal::CardTable::new());
        Follower {
            seat: host,
            key: None,
            stranger: true,
            replica: Replica::new(table, host, roster, None, cards),
            slots: BTreeMap::new(),
            held: 0,
            now: 0,
            next_request: 0,
        }
    }

    /// The next step this follower lacks: `(hand, step)`.
    pub fn next_step(&self) -> (u32, u32) {
        (self.replica.hand_no, self.replica.next_seq())
    }

    /// The seats' keys in force (a seat a bot took has the bot's key).
    pub fn roster(&self) -> [ed25519_dalek::VerifyingKey; 4] {
        self.replica.roster
    }

    /// Every seat's concealed tiles at the end of the last final hand whose deal was audited.
    pub fn revealed(&self) -> Option<&(u32, [Vec<mahjong_rules::Card>; 4])> {
        self.replica.revealed.as_ref()
    }

    /// What a watcher sees of the hand under way from `seat`'s chair: every seat's public
    /// side (melds, flowers, discards, the count of concealed tiles, 敲), the wall, the phase;
    /// no concealed tile and nothing to choose.
    pub fn view(&self, seat: Seat) -> Option<mahjong_rules::SeatView> {
        let mut v = self.replica.state()?.view(seat);
        v.hand.clear();
        v.drawn = None;
        v.legal.clear();
        v.barred = 0;
        v.put_back.clear();
        Some(v)
    }

    /// The seat this peer played.
    pub fn seat(&self) -> Seat {
        self.seat
    }

    /// The table.
    pub fn table(&self) -> [u8; 32] {
        self.replica.table
    }

    /// The agreed set-up.
    pub fn proposal(&self) -> Option<&Proposal> {
        self.replica.proposal.as_ref()
    }

    /// Every final hand of the table so far (the ones before this seat left included).
    pub fn results(&self) -> &[HandResult] {
        &self.replica.results
    }

    /// The log so far.
    pub fn log(&self) -> &[StepRecord] {
        self.replica.steps()
    }

    /// The current hand number.
    pub fn hand_number(&self) -> u32 {
        self.replica.hand_no
    }

    /// Whether the table is over.
    pub fn is_over(&self) -> bool {
        matches!(self.replica.stage, Stage::Over(_))
    }

    /// Takes a frame from a peer or a tick; returns the requests to send (as `reply`, one
    /// per other seat), the events of the steps logged, and the next deadline. Local choices
    /// (`Act`, `Leave`, …) have nothing to act on and are ignored.
    pub fn handle(&mut self, now: u64, input: Input) -> Output {
        self.now = self.now.max(now);
        let mut out = Output::default();
        if self.is_over() {
            return out;
        }
        if let Input::Frame(bytes) = input
            && let Err(e) = self.on_frame(&bytes)
        {
            out.rejected.push(Rejected::Frame(e));
        }
        let before = self.replica.next_seq();
        self.advance(&mut out);
        let progressed = self.replica.next_seq() != before || !out.events.is_empty();
        if !self.is_over() && (self.now >= self.next_request || progressed) {
            self.request(&mut out);
        }
        if !self.is_over() {
            out.deadline = Some(self.next_request);
        }
        out
    }

    fn on_frame(&mut self, bytes: &[u8]) -> Result<(), FrameError> {
        let env = Envelope::decode(bytes)?;
        if env.table != self.replica.table {
            return Err(FrameError::WrongTable);
        }
        if matches!(env.body, Body::Request { .. }) {
            // A follower answers nobody: its log is the others' own.
            return Ok(());
        }
        let hand = self.replica.hand_no;
        let next = self.replica.next_seq();
        let vote = env.is_vote();
        let old = env.hand < hand
            || (env.hand == hand && (env.seq < self.replica.hand_first_seq))
            || (env.hand == hand && env.seq < next && !vote);
        if old {
            return Ok(());
        }
        if env.hand > hand + MAX_HANDS_AHEAD {
            return Err(FrameError::TooFarAhead {
                hand: env.hand,
                seq: env.seq,
            });
        }
        // An answer holds the whole rest of the log (up to its byte limit), so a follower
        // keeps steps far ahead, within a byte budget: when it is full, what lies furthest
        // ahead makes room for what comes sooner (a peer that fills it with steps that never
        // fit cannot wedge it), and the next request brings the rest again.
        let len = bytes.len();
        let key = (env.hand, env.seq);
        while self.held + len > FOLLOW_BUFFER_BYTES {
            let Some((&last, _)) = self.slots.last_key_value() else {
                break;
            };
            if last <= key {
                return Ok(());
            }
            if let Some(slot) = self.slots.remove(&last) {
                self.held -= slot
                    .iter()
                    .flatten()
                    .flatten()
                    .map(|e| e.encode().len())
                    .sum::<usize>()
                    .min(self.held);
            }
        }
        let slot = self.slots.entry(key).or_default();
        let place = &mut slot[usize::from(vote)][env.seat as usize & 3];
        if place.is_none() {
            *place = Some(env);
            self.held += len;
        }
        Ok(())
    }

    /// Logs every step whose entries (or three abort votes) are in.
    fn advance(&mut self, out: &mut Output) {
        while !self.is_over() {
            if self.try_abort(out) {
                continue;
            }
            let Some(exp) = self.replica.expected() else {
                return;
            };
            let Some(slot) = self.slots.get_mut(&(exp.hand, exp.seq)) else {
                return;
            };
            // Entries that do not fit this step (another history, a seat that does not
            // speak, a bad signature) are dropped: the next request brings the right ones.
            for seat in 0..4u8 {
                let misfit = slot[0][seat as usize].as_ref().and_then(|e| {
                    if e.verify(&self.replica.roster[seat as usize]).is_err() {
                        Some(Misfit::Signature)
                    } else if e.prev_hash != exp.prev_hash {
                        Some(Misfit::Chain)
                    } else if !exp.speaks(seat) || !exp.kind.takes(&e.body) {
                        Some(Misfit::Step)
                    } else {
                        None
                    }
                });
                if let Some(why) = misfit {
                    slot[0][seat as usize] = None;
                    if self.stranger {
                        out.rejected.push(Rejected::Misfit {
                            seat,
                            hand: exp.hand,
                            seq: exp.seq,
                            why,
                        });
                    }
                }
            }
            let complete = (0..4).all(|s| !exp.speaks(s) || slot[0][s as usize].is_some());
            if !complete {
                return;
            }
            let entries: Vec<Envelope> = slot[0].iter().flatten().cloned().collect();
            let result = self
                .replica
                .check_step(&entries)
                .map_err(StepError::Internal)
                .and_then(|()| self.replica.process(entries));
            match result {
                Ok(events) => self.logged(events, out),
                Err(e) => {
                    // The others signed what the rules refuse: they hold the proof and abort
                    // the hand; a follower waits for that abort. A watcher says so: it was
                    // shown a signed entry the rules refuse (its server may be the liar).
                    if self.stranger {
                        out.rejected.push(Rejected::Step(e));
                    }
                    if let Some(slot) = self.slots.get_mut(&(exp.hand, exp.seq)) {
                        slot[0] = Default::default();
                    }
                    return;
                }
            }
        }
    }

    /// Applies an abort of the current hand whose three votes are in (it may cut the log
    /// back to the step it names).
    fn try_abort(&mut self, out: &mut Output) -> bool {
        let hand = self.replica.hand_no;
        let candidates = super::abort_candidates(
            self.slots
                .range((hand, 0)..(hand, u32::MAX))
                .map(|(_, slot)| &slot[1]),
        );
        for votes in candidates {
            if let Ok(checked) = self.replica.check_abort(&votes) {
                let events = self.replica.apply_checked_abort(checked, votes);
                self.logged(events, out);
                return true;
            }
        }
        false
    }

    fn logged(&mut self, events: Vec<TableEvent>, out: &mut Output) {
        let hand = self.replica.hand_no;
        let next = self.replica.next_seq();
        self.slots.retain(|&(h, s), slot| {
            h > hand || (h == hand && (s >= next || slot[1].iter().any(Option::is_some)))
        });
        self.held = self
            .slots
            .values()
            .flat_map(|s| s.iter().flatten().flatten())
            .map(|e| e.encode().len())
            .sum();
        // A watcher is never asked to act or to run a bot.
        out.events.extend(
            events
                .into_iter()
                .filter(|e| !matches!(e, TableEvent::RunBot { .. } | TableEvent::YourTurn { .. })),
        );
    }

    /// Asks every other seat for the log from the next step, signed with this seat's
    /// original key (the others answer it, and nothing else it could send counts).
    fn request(&mut self, out: &mut Output) {
        self.next_request = self.now + RETRANSMIT_MS / 2;
        let Some(key) = self.key.as_ref() else {
            return;
        };
        let env = Envelope::sign(
            self.replica.table,
            Header {
                hand: self.replica.hand_no,
                seq: self.replica.next_seq(),
                prev_hash: self.replica.head(),
            },
            self.seat,
            Body::Request {
                from_seq: self.replica.next_seq(),
                have: 0,
            },
            key,
        );
        let bytes = env.frame();
        for t in (0..4u8).filter(|&t| t != self.seat) {
            out.reply.push((t, bytes.clone()));
        }
    }
}
