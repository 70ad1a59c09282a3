//! One hand as the table runs it: the deal crate's messages and the rules crate's moves, step
//! by step, with what each seat must send at each step and the checks of what it did send.
//!
//! About 830 lines: one hand's state machine (deal, play, claims, settlement), whose steps read
//! each other's state.
//!
//! Implements ARCHITECTURE.md "Randomness and dealing" and "Agreement" for one hand (docs/rules.en.md
//! §2–§4 through the rules crate). A `HandPlay` is driven by [`crate::replica`]: it is given
//! complete steps (every required entry, in seat order) and either moves on or names the seat
//! at fault. It runs with a seat's secrets ([`mahjong_deal::DealSeat`]: that seat reads its own
//! tiles) or without ([`mahjong_deal::Observer`]: a verifier of [`crate::Evidence`]); the
//! checks are the same, so every honest peer and every verifier reaches the same verdict.
//!
//! Steps of a hand (see the crate header for the whole protocol):
//! 1. `Commit` — all four: seed commitment and hand key.
//! 2. `Reveal` — all four: seed reveal. The joint randomness fixes the dice and (when the
//!    session has no dealer yet) the dealer.
//! 3. `Shuffle(0..=3)` — each seat in turn: its shuffle of the wall, with its proof.
//! 4. `Deal` — all four: a draw share of every dealt position (0..53) another seat holds, in
//!    position order, and (`baida`) a public share of the indicator.
//! 5. `Play` — the seats the rules say must act send their move, with a deal `show` for every
//!    card it takes from the hand face up (flower, discard, kongs, chow/pung/kong claims, and
//!    a win's whole concealed hand). In a claim window the answers are committed in one step
//!    (`ClaimCommit`: a hash of the move and a nonce) and opened in the next (`ClaimOpen`),
//!    which must open the seat's commitment; the opened moves are then played as one step.
//! 6. `Shares` — after a step whose moves made a seat draw a position nobody else may see,
//!    the three others send their share for it; the drawer reads the tile.
//! 7. `Audit` — when the rules say the hand is over: all four reveal their hand secrets; every
//!    peer audits the deal, rebuilds the whole wall and replays every move with full
//!    knowledge, which catches what partial engines could not check (a hidden flower, a false
//!    ready declaration, a win barred by 漏胡).
//!
//! 换牌 (`swap_five`): the four answers (five wall positions, or pass) are committed and opened
//! like claim answers; the five put back are named by position only and never shown, so their
//! faces stay hidden until the audit; every peer's engine checks they are the seat's own
//! concealed tiles, and the seat's move carries a deal set-aside of those positions
//! ([`mahjong_deal::SetAside`]: from then on the deal itself refuses any show, draw or open of
//! them, and the deal audit lists them); the swap draws are ordinary private draws (step 6). The full replay
//! at the audit checks the swap again with every face known (a flower kept back, say).
//!
//! Reading: claim answers show their tiles with the answer (not after the resolution), so a
//! lie is proven by the answer alone; a chow that loses to a pung or kong has shown its two
//! tiles for nothing (a small, deliberate privacy cost).

use std::sync::Arc;

use ed25519_dalek::{SigningKey, VerifyingKey};
use mahjong_deal::{
    Accepted, AuditReport, Body as DealBody, CardTable, DealError, DealSeat, HandContext,
    HandSecrets, JointRandomness, Observer, Opening, SeatIndex, ShareKind, SignedMessage,
    audit_verified,
};
use mahjong_rules::wall::{DEALT, deal_seat};
use mahjong_rules::{
    Action, Card, Dice, Event, HandState, Move, Outcome, Phase, Seat, Session, Setup, Tile, Wall,
};

use crate::codec::{Body, Envelope, Play};
use crate::error::{ActError, Fault, Offence, StepError};
use crate::event::TableEvent;

/// The stage of a hand: which step comes next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum HandStage {
    /// Seed commitments and hand keys.
    Commit,
    /// Seed reveals.
    Reveal,
    /// Seat `n`'s shuffle.
    Shuffle(u8),
    /// The initial deal's shares.
    Deal,
    /// Moves.
    Play,
    /// Shares for private draws.
    Shares,
    /// End-of-hand secrets.
    Audit,
}

/// The most concealed tiles a seat can hold (14, with room for kongs' replacements).
const MAX_CONCEALED: usize = 18;

/// One deal message a step requires from a seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Req {
    Commit,
    Key,
    Reveal,
    Shuffle,
    Draw { pos: u8, requester: Seat },
    Public { pos: u8 },
    Show { pos: u8 },
    AuditReveal,
}

impl Req {
    fn matches(self, msg: &SignedMessage) -> bool {
        match (self, &msg.message.body) {
            (Req::Commit, DealBody::Commit(_))
            | (Req::Key, DealBody::Key(_))
            | (Req::Reveal, DealBody::Reveal(_))
            | (Req::Shuffle, DealBody::Shuffle(_) | DealBody::LinearShuffle(_))
            | (Req::AuditReveal, DealBody::AuditReveal(_)) => true,
            (Req::Draw { pos, requester }, DealBody::Share(s)) => {
                s.position == pos
                    && s.kind
                        == ShareKind::Draw {
                            requester: seat_index(requester),
                        }
            }
            (Req::Public { pos }, DealBody::Share(s)) => {
                s.position == pos && s.kind == ShareKind::Public
            }
            (Req::Show { pos }, DealBody::Share(s)) => {
                s.position == pos && s.kind == ShareKind::Show
            }
            _ => false,
        }
    }
}

/// Who a refused move proves at fault: the mover, or, when the move closed a claim window
/// and the resolution failed, the seat the rules name (a winner whose hand does not score).
fn blamed(mover: Seat, err: &mahjong_rules::MoveError) -> Seat {
    match err {
        mahjong_rules::MoveError::Illegal { seat, .. } if *seat < 4 => *seat,
        _ => mover,
    }
}

fn seat_index(s: Seat) -> SeatIndex {
    SeatIndex::ALL[(s & 3) as usize]
}

/// The deal state: a seat's (with its secrets) or a watcher's.
#[derive(Clone, Debug)]
pub(crate) enum DealState {
    Seat(Box<DealSeat>),
    Watch(Box<Observer>),
}

impl DealState {
    /// Receives a deal message out of a logged envelope: its envelope's signature was
    /// checked and its sender is the envelope's seat (every caller checks that first), so a
    /// carried message (envelope version 2) needs no signature of its own.
    fn receive(&mut self, msg: SignedMessage) -> Result<Accepted, DealError> {
        match self {
            DealState::Seat(d) => d.receive_carried(msg),
            DealState::Watch(o) => o.receive_carried(msg),
        }
    }

    fn card_at(&self, pos: u8) -> Option<(u8, Opening)> {
        match self {
            DealState::Seat(d) => d.card_at(pos),
            DealState::Watch(o) => o.public_card(pos),
        }
    }

    fn joint(&self) -> Option<&JointRandomness> {
        match self {
            DealState::Seat(d) => d.joint_randomness(),
            DealState::Watch(o) => o.joint_randomness(),
        }
    }

    fn observer(&self) -> &Observer {
        match self {
            DealState::Seat(d) => d.observer(),
            DealState::Watch(o) => o,
        }
    }

    /// The end-of-hand audit of the deal. Every message in the observer was checked on
    /// receipt, so the audit does not check them again.
    fn audit(&self) -> AuditReport {
        audit_verified(self.observer())
    }

    fn is_public(&self, pos: u8) -> bool {
        matches!(self.observer().public_card(pos), Some((_, Opening::Public)))
    }
}

/// A private draw waiting for its shares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Draw {
    pub seat: Seat,
    pub pos: u8,
    pub replacement: bool,
}

/// One hand in progress.
#[derive(Clone, Debug)]
pub(crate) struct HandPlay {
    /// The hand number.
    pub number: u32,
    /// Whose secrets, if any.
    pub me: Option<Seat>,
    pub deal: DealState,
    pub stage: HandStage,
    /// Fixed by the reveal step.
    pub setup: Option<Setup>,
    /// The step at which the setup became known.
    pub setup_seq: Option<u32>,
    /// This peer's rules engine (partial knowledge), from the deal step on.
    pub state: Option<HandState>,
    /// Draws waiting for shares.
    pub draws: Vec<Draw>,
    /// Every move so far, in log order (for the full replay).
    pub moves: Vec<Move>,
    /// The outcome, once audited.
    pub audited: Option<Outcome>,
    /// Every seat's concealed tiles at the end, once audited (the replay with every face
    /// known): what "all hands face up" shows after a hand.
    pub revealed: Option<[Vec<mahjong_rules::Card>; 4]>,
    /// In a claim window, once the answers are committed: each answering seat's commitment
    /// (the next step opens them).
    pub committed: Option<[Option<crate::codec::Hash>; 4]>,
}

/// The per-hand secret root of a seat: `sha256(tag ‖ root ‖ table ‖ hand ‖ seat)`.
pub(crate) fn hand_root(root: &[u8; 32], table: &[u8; 32], hand: u32, seat: Seat) -> [u8; 32] {
    let mut bytes = Vec::with_capacity(69);
    bytes.extend_from_slice(root);
    bytes.extend_from_slice(table);
    bytes.extend_from_slice(&hand.to_le_bytes());
    bytes.push(seat);
    crate::codec::tagged_hash("hand-root", &bytes)
}

impl HandPlay {
    /// A new hand. With `me = Some((seat, root))` the hand runs with that seat's secrets.
    pub fn new(
        table: [u8; 32],
        number: u32,
        roster: [VerifyingKey; 4],
        me: Option<(Seat, [u8; 32])>,
        cards: Arc<CardTable>,
    ) -> HandPlay {
        let ctx = HandContext {
            table,
            hand: number,
        };
        let deal = match me {
            Some((seat, root)) => {
                let secrets = HandSecrets::from_root(&hand_root(&root, &table, number, seat));
                let mut deal = DealSeat::with_cards(ctx, seat_index(seat), roster, secrets, cards);
                // Envelope version 2: the seat's envelope signs its deal messages.
                deal.set_carried(crate::codec::VERSION >= 2);
                DealState::Seat(Box::new(deal))
            }
            None => DealState::Watch(Box::new(Observer::with_cards(ctx, roster, cards))),
        };
        HandPlay {
            number,
            me: me.map(|m| m.0),
            deal,
            stage: HandStage::Commit,
            setup: None,
            setup_seq: None,
            state: None,
            draws: Vec::new(),
            moves: Vec::new(),
            audited: None,
            revealed: None,
            committed: None,
        }
    }

    /// The seat's own deal state (with secrets), if any.
    pub fn deal_seat(&self) -> Option<&DealSeat> {
        match &self.deal {
            DealState::Seat(d) => Some(d),
            DealState::Watch(_) => None,
        }
    }

    /// The seats that must speak at the current step (a bit per seat).
    pub fn speakers(&self) -> u8 {
        match self.stage {
            HandStage::Commit | HandStage::Reveal | HandStage::Deal | HandStage::Audit => 0b1111,
            HandStage::Shuffle(n) => 1 << n,
            HandStage::Play => self.state.as_ref().map_or(0, HandState::to_act_mask),
            HandStage::Shares => self
                .draws
                .iter()
                .fold(0, |m, d| m | (0b1111 & !(1 << d.seat))),
        }
    }

    /// The deal messages `seat` must send at the current step, in order.
    pub fn required(&self, seat: Seat) -> Vec<Req> {
        match self.stage {
            HandStage::Commit => vec![Req::Commit, Req::Key],
            HandStage::Reveal => vec![Req::Reveal],
            HandStage::Shuffle(_) => vec![Req::Shuffle],
            HandStage::Audit => vec![Req::AuditReveal],
            HandStage::Deal => {
                let Some(setup) = &self.setup else {
                    return vec![];
                };
                let mut out: Vec<Req> = (0..DEALT)
                    .filter_map(|pos| {
                        let holder = deal_seat(setup.dealer, pos);
                        (holder != seat).then_some(Req::Draw {
                            pos: pos as u8,
                            requester: holder,
                        })
                    })
                    .collect();
                if setup.options.wildcard {
                    out.push(Req::Public {
                        pos: setup.dice.indicator_position(),
                    });
                }
                out
            }
            HandStage::Shares => self
                .draws
                .iter()
                .filter(|d| d.seat != seat)
                .map(|d| Req::Draw {
                    pos: d.pos,
                    requester: d.seat,
                })
                .collect(),
            HandStage::Play => vec![],
        }
    }

    /// The cards a move takes face up from the hand and must prove with shows (positions
    /// already public, such as the `baida` indicator, excepted).
    pub fn shown_cards(&self, action: &Action) -> Vec<Card> {
        let cards: Vec<Card> = match action {
            Action::Flower { card } | Action::Discard { card, .. } | Action::AddedKong { card } => {
                vec![*card]
            }
            Action::ConcealedKong { cards } => cards.to_vec(),
            Action::Chow { cards } | Action::Pung { cards } => cards.to_vec(),
            Action::Kong { cards } => cards.to_vec(),
            // A win shows the whole concealed hand, so the outcome stands on proven tiles
            // even if a loser then withholds its audit secrets.
            Action::Win { reveal } => reveal.clone(),
            // 换牌 names the five put back by position only: they stay face down.
            Action::Pass | Action::Leave | Action::Swap { .. } => vec![],
        };
        cards
            .into_iter()
            .filter(|c| !self.deal.is_public(c.pos))
            .collect()
    }

    /// 换牌: the positions a swap puts back that the deal must see set aside face down
    /// (a deal [`mahjong_deal::SetAside`] signed by the seat; positions already public, such
    /// as the `baida` indicator, excepted). `None` for any other action, or when none is left.
    pub fn set_aside_positions(&self, action: &Action) -> Option<Vec<u8>> {
        let Action::Swap { put_back } = action else {
            return None;
        };
        let ps: Vec<u8> = put_back
            .iter()
            .copied()
            .filter(|&p| !self.deal.is_public(p))
            .collect();
        (!ps.is_empty()).then_some(ps)
    }

    // ---- making own entries ----

    /// This seat's deal messages for the current (deal-type) step.
    pub fn make_deal(&mut self, signer: &SigningKey) -> Result<Vec<SignedMessage>, DealError> {
        let Some(me) = self.me else {
            return Ok(vec![]);
        };
        let reqs = self.required(me);
        // Positions this seat is drawing at this step: it must never release its own share of
        // them, whatever order the others' shares arrive in.
        let mine: Vec<u8> = match (self.stage, &self.setup) {
            (HandStage::Deal, Some(setup)) => (0..DEALT)
                .filter(|&pos| deal_seat(setup.dealer, pos) == me)
                .map(|pos| pos as u8)
                .collect(),
            (HandStage::Shares, _) => self
                .draws
                .iter()
                .filter(|d| d.seat == me)
                .map(|d| d.pos)
                .collect(),
            _ => vec![],
        };
        let DealState::Seat(d) = &mut self.deal else {
            return Ok(vec![]);
        };
        for pos in mine {
            d.expect_draw(pos);
        }
        reqs.into_iter()
            .map(|r| match r {
                Req::Commit => d.commit(signer),
                Req::Key => d.key_message(signer),
                Req::Reveal => d.reveal(signer),
                Req::Shuffle => d.shuffle_message(signer),
                Req::Draw { pos, requester } => d.share_for(signer, pos, seat_index(requester)),
                Req::Public { pos } => d.public_share(signer, pos),
                Req::Show { pos } => d.show(signer, pos),
                Req::AuditReveal => d.audit_reveal(signer),
            })
            .collect()
    }

    /// This seat's move, checked against its own engine, with its shows.
    pub fn make_play(
        &mut self,
        action: Action,
        timed_out: bool,
        signer: &SigningKey,
    ) -> Result<Play, ActError> {
        let me = self.me.ok_or(ActError::NotYourTurn)?;
        let state = self.state.as_ref().ok_or(ActError::NotYourTurn)?;
        if self.stage != HandStage::Play || state.to_act_mask() & (1 << me) == 0 {
            return Err(ActError::NotYourTurn);
        }
        let mv = Move {
            seat: me,
            action,
            timed_out,
        };
        state.step(&mv).map_err(ActError::Illegal)?;
        let cards = self.shown_cards(&mv.action);
        let set_aside = self.set_aside_positions(&mv.action);
        let DealState::Seat(d) = &mut self.deal else {
            return Err(ActError::NotYourTurn);
        };
        let mut shows = cards
            .iter()
            .map(|c| d.show(signer, c.pos))
            .collect::<Result<Vec<_>, _>>()
            .map_err(ActError::Deal)?;
        if let Some(ps) = set_aside {
            shows.push(d.set_aside(signer, &ps).map_err(ActError::Deal)?);
        }
        Ok(Play {
            action: mv.action,
            timed_out,
            shows,
        })
    }

    // ---- processing complete steps ----

    /// Processes a complete step (entries in seat order, one per speaker, headers and
    /// signatures already checked). On success the hand has moved to its next stage.
    pub fn process(
        &mut self,
        seq: u32,
        session: &Session,
        entries: &[Envelope],
        events: &mut Vec<TableEvent>,
    ) -> Result<(), StepError> {
        match self.stage {
            HandStage::Play if self.committed.is_some() => self.process_openings(entries, events),
            HandStage::Play if self.is_claim_window() => self.process_commitments(entries),
            HandStage::Play => {
                let plays = entries
                    .iter()
                    .map(|e| match &e.body {
                        Body::Play(p) => Ok((e.seat, p.clone())),
                        _ => Err(Fault::malformed(e.seat, "expected a move")),
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                self.process_play(&plays, events)
            }
            stage => {
                for e in entries {
                    let Body::Deal(msgs) = &e.body else {
                        return Err(Fault::malformed(e.seat, "expected deal messages").into());
                    };
                    self.receive_required(e.seat, msgs)?;
                }
                self.after_deal_step(stage, seq, session, events)
            }
        }
    }

    /// Receives `msgs` from `seat`, which must be exactly what the step requires of it.
    fn receive_required(&mut self, seat: Seat, msgs: &[SignedMessage]) -> Result<(), StepError> {
        let reqs = self.required(seat);
        if reqs.len() != msgs.len() {
            return Err(Fault::malformed(
                seat,
                format!(
                    "{} deal messages where {} are required",
                    msgs.len(),
                    reqs.len()
                ),
            )
            .into());
        }
        for (req, msg) in reqs.into_iter().zip(msgs) {
            if msg.seat().get() != seat {
                return Err(Fault::malformed(seat, "carries another seat's deal message").into());
            }
            if !req.matches(msg) {
                return Err(Fault::malformed(seat, format!("expected {req:?}")).into());
            }
            self.receive(seat, msg.clone())?;
        }
        Ok(())
    }

    fn receive(&mut self, seat: Seat, msg: SignedMessage) -> Result<Accepted, StepError> {
        if msg.is_carried() && msg.seat().get() != seat {
            return Err(Fault::malformed(seat, "carries another seat's deal message").into());
        }
        self.deal.receive(msg).map_err(|e| match e {
            DealError::NotACard { .. } => StepError::Internal(e.to_string()),
            e => Fault::new(seat, Offence::Deal(e)).into(),
        })
    }

    fn after_deal_step(
        &mut self,
        stage: HandStage,
        seq: u32,
        session: &Session,
        events: &mut Vec<TableEvent>,
    ) -> Result<(), StepError> {
        let internal = |why: &str| StepError::Internal(why.to_string());
        self.stage = match stage {
            HandStage::Commit => HandStage::Reveal,
            HandStage::Reveal => {
                let joint = *self
                    .deal
                    .joint()
                    .ok_or_else(|| internal("no joint randomness after four reveals"))?;
                let dice = Dice::new(joint.dice[0], joint.dice[1])
                    .map_err(|e| StepError::Internal(e.to_string()))?;
                self.setup = Some(session.setup(joint.dealer.get(), dice));
                self.setup_seq = Some(seq);
                HandStage::Shuffle(0)
            }
            HandStage::Shuffle(n) if n < 3 => HandStage::Shuffle(n + 1),
            HandStage::Shuffle(_) => HandStage::Deal,
            HandStage::Deal => {
                self.start_play(events)?;
                HandStage::Play
            }
            HandStage::Shares => {
                for d in std::mem::take(&mut self.draws) {
                    if Some(d.seat) == self.me {
                        let card = self.read(d.pos)?;
                        if let Some(state) = self.state.as_mut() {
                            state
                                .learn(d.pos, card.tile)
                                .map_err(|e| StepError::Internal(e.to_string()))?;
                        }
                        events.push(TableEvent::Drew {
                            card,
                            replacement: d.replacement,
                        });
                    }
                }
                HandStage::Play
            }
            HandStage::Audit => {
                self.audit()?;
                HandStage::Audit
            }
            HandStage::Play => HandStage::Play,
        };
        Ok(())
    }

    /// A card this engine can read (own draw, shown, or public).
    fn read(&self, pos: u8) -> Result<Card, StepError> {
        let (card, _) = self
            .deal
            .card_at(pos)
            .ok_or_else(|| StepError::Internal(format!("position {pos} cannot be read")))?;
        let tile = Tile::of_card(card)
            .ok_or_else(|| StepError::Internal(format!("card {card} is no tile")))?;
        Ok(Card { pos, tile })
    }

    /// After the deal: the indicator (public), the rules engine, this seat's own tiles.
    fn start_play(&mut self, events: &mut Vec<TableEvent>) -> Result<(), StepError> {
        let setup = self
            .setup
            .clone()
            .ok_or_else(|| StepError::Internal("no setup at the deal".into()))?;
        let indicator = if setup.options.wildcard {
            Some(self.read(setup.dice.indicator_position())?.tile)
        } else {
            None
        };
        let mut state = HandState::new_hidden(setup.clone(), indicator)
            .map_err(|e| StepError::Internal(e.to_string()))?;
        let mut tiles = Vec::new();
        if let Some(me) = self.me {
            for pos in 0..DEALT {
                if deal_seat(setup.dealer, pos) == me {
                    let card = self.read(pos as u8)?;
                    state
                        .learn(card.pos, card.tile)
                        .map_err(|e| StepError::Internal(e.to_string()))?;
                    tiles.push(card);
                }
            }
        }
        events.push(TableEvent::HandStarted {
            hand: self.number,
            dice: setup.dice,
            dealer: setup.dealer,
            huangfan: state.huangfan(),
            indicator: indicator.map(|tile| Card {
                pos: setup.dice.indicator_position(),
                tile,
            }),
            tiles,
        });
        self.state = Some(state);
        Ok(())
    }

    /// The committed claim answers: nothing moves until they are opened.
    fn process_commitments(&mut self, entries: &[Envelope]) -> Result<(), StepError> {
        let mut committed = [None; 4];
        for e in entries {
            let Body::ClaimCommit { commitment } = e.body else {
                return Err(Fault::malformed(e.seat, "expected a committed claim answer").into());
            };
            committed[e.seat as usize & 3] = Some(commitment);
        }
        self.committed = Some(committed);
        Ok(())
    }

    /// The openings of the committed answers: each must open its seat's commitment; then
    /// the answers are played as one step.
    fn process_openings(
        &mut self,
        entries: &[Envelope],
        events: &mut Vec<TableEvent>,
    ) -> Result<(), StepError> {
        let committed = self.committed.unwrap_or_default();
        let mut plays = Vec::with_capacity(entries.len());
        for e in entries {
            let Body::ClaimOpen { play, nonce } = &e.body else {
                return Err(Fault::malformed(e.seat, "expected an opened claim answer").into());
            };
            if committed[e.seat as usize & 3] != Some(crate::codec::claim_commitment(play, nonce)) {
                return Err(
                    Fault::malformed(e.seat, "opens another answer than it committed").into(),
                );
            }
            plays.push((e.seat, play.clone()));
        }
        self.committed = None;
        self.process_play(&plays, events)
    }

    fn process_play(
        &mut self,
        plays: &[(Seat, Play)],
        events: &mut Vec<TableEvent>,
    ) -> Result<(), StepError> {
        let mut rule_events = Vec::new();
        for (seat, play) in plays {
            let seat = *seat;
            if self.state.as_ref().is_some_and(HandState::is_over) {
                // An earlier answer of this step ended the hand (a timed-out leaver): the
                // later answers are moot.
                break;
            }
            if matches!(&play.action, Action::Win { reveal } if reveal.len() > MAX_CONCEALED) {
                return Err(Fault::malformed(seat, "reveals more tiles than a hand holds").into());
            }
            let mv = Move {
                seat,
                action: play.action.clone(),
                timed_out: play.timed_out,
            };
            let cards = self.shown_cards(&mv.action);
            let set_aside = self.set_aside_positions(&mv.action);
            let expected = cards.len() + usize::from(set_aside.is_some());
            if expected != play.shows.len() {
                return Err(Fault::malformed(
                    seat,
                    format!(
                        "{} deal messages for {} cards shown{}",
                        play.shows.len(),
                        cards.len(),
                        if set_aside.is_some() {
                            " and a set-aside"
                        } else {
                            ""
                        }
                    ),
                )
                .into());
            }
            let state = self
                .state
                .as_mut()
                .ok_or_else(|| StepError::Internal("no rules state in play".into()))?;
            let evs = state
                .apply(&mv)
                .map_err(|err| Fault::new(blamed(seat, &err), Offence::Illegal(err)))?;
            for (card, show) in cards.iter().zip(&play.shows) {
                if show.seat().get() != seat || !(Req::Show { pos: card.pos }).matches(show) {
                    return Err(Fault::malformed(seat, "a show that is not for its card").into());
                }
                self.receive(seat, show.clone())?;
                let shown = self.read(card.pos)?;
                if shown.tile != card.tile {
                    return Err(Fault::new(
                        seat,
                        Offence::FaceMismatch {
                            pos: card.pos,
                            claimed: card.tile,
                            shown: shown.tile,
                        },
                    )
                    .into());
                }
            }
            if let (Some(ps), Some(msg)) = (set_aside, play.shows.get(cards.len())) {
                let same =
                    matches!(&msg.message.body, DealBody::SetAside(sa) if sa.positions == ps);
                if msg.seat().get() != seat || !same {
                    return Err(Fault::malformed(
                        seat,
                        "换牌 without the set-aside of the five it puts back",
                    )
                    .into());
                }
                self.receive(seat, msg.clone())?;
            }
            self.moves.push(mv.clone());
            events.push(TableEvent::Moved {
                mv,
                events: evs.clone(),
            });
            rule_events.extend(evs);
        }
        let over = self.state.as_ref().is_some_and(HandState::is_over);
        for ev in &rule_events {
            if let Event::Drew {
                seat,
                pos,
                replacement,
            } = *ev
            {
                if self.deal.is_public(pos) {
                    // Everyone knows it already (the `baida` indicator): no shares.
                    if Some(seat) == self.me {
                        let card = self.read(pos)?;
                        events.push(TableEvent::Drew { card, replacement });
                    }
                } else {
                    self.draws.push(Draw {
                        seat,
                        pos,
                        replacement,
                    });
                }
            }
        }
        self.stage = if over {
            self.draws.clear();
            HandStage::Audit
        } else if self.draws.is_empty() {
            HandStage::Play
        } else {
            HandStage::Shares
        };
        Ok(())
    }

    /// The end-of-hand audit: the deal, then the whole hand replayed with full knowledge.
    fn audit(&mut self) -> Result<(), StepError> {
        let summary = self.deal.audit().map_err(|v| match v.seat {
            Some(s) => StepError::Fault(Fault::new(s.get(), Offence::Audit(v.error))),
            None => StepError::Internal(v.to_string()),
        })?;
        let setup = self
            .setup
            .clone()
            .ok_or_else(|| StepError::Internal("no setup at the audit".into()))?;
        let wall = Wall::from_cards(&summary.final_wall)
            .map_err(|e| StepError::Internal(e.to_string()))?;
        let mut full =
            HandState::new(setup, &wall).map_err(|e| StepError::Internal(e.to_string()))?;
        for (index, mv) in self.moves.iter().enumerate() {
            full.apply(mv).map_err(|error| {
                Fault::new(blamed(mv.seat, &error), Offence::Replay { index, error })
            })?;
        }
        let partial = self.state.as_ref().and_then(HandState::outcome);
        match (full.outcome(), partial) {
            (Some(f), Some(p)) if f == p => {
                self.audited = Some(f.clone());
                self.revealed = Some([0u8, 1, 2, 3].map(|s| full.view(s).hand));
                Ok(())
            }
            _ => Err(StepError::Internal(
                "the full replay ends otherwise than the hand".into(),
            )),
        }
    }

    /// The huangfan counter in force in this hand, if the setup is known.
    pub fn huangfan_in_force(&self) -> Option<u32> {
        self.setup.as_ref().map(Setup::huangfan_in_force)
    }

    /// Whether the current play step is answered by several seats at once, committed and
    /// then opened: a claim window, or 换牌 (so no seat's choice can depend on another's).
    pub fn is_claim_window(&self) -> bool {
        matches!(
            self.state.as_ref().map(HandState::phase),
            Some(Phase::Claims { .. } | Phase::RobKong { .. } | Phase::Swap { .. })
        )
    }

    /// Whether the current play step is 换牌 (timed by `start_seconds`).
    pub fn is_swap(&self) -> bool {
        matches!(
            self.state.as_ref().map(HandState::phase),
            Some(Phase::Swap { .. })
        )
    }
}
