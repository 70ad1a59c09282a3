//! The replicated table: four peers agree on every move of a Shanghai mahjong session from a
//! signed, hash-chained log, with no leader and nobody trusted.
//!
//! Implements ARCHITECTURE.md "Agreement", "Randomness and dealing" (through
//! [`mahjong_deal`]), "Wire format" and docs/rules.en.md §4.8 (timers), §6 (leavers), §7 (across
//! hands). The crate is sans-IO: [`Client::handle`] takes the time and one [`Input`] (a frame,
//! the local player's choice, a tick, a set-up answer) and returns an [`Output`] (frames to
//! send, [`TableEvent`]s, the next timer deadline, records to persist). No sockets, threads
//! or clock; the network shell and the UI move bytes and time.
//!
//! # The protocol
//!
//! **Steps, not a leader.** At every point the replicated state says which seats must speak
//! next and what each must send: a *step*. A step is complete when every one of them has sent
//! its entry; its entries are then processed in seat order, so the log is canonical and every
//! honest peer holds the same log and the same log hash. Every frame is an [`Envelope`]
//! `{version, table, hand, seq, prev_hash, seat, body, signature}`: `seq` is the step number
//! and `prev_hash` the log hash through the previous step (the chain hashes each step's
//! envelopes in seat order, [`codec::chain`]). Entries for a later step are buffered; entries
//! for a logged step are duplicates (identical: dropped) or equivocation (different, validly
//! signed: evidence).
//!
//! | step | speakers | body |
//! | --- | --- | --- |
//! | `Propose` | the host | [`Proposal`]: preset, options and `sha256(Options::canonical_bytes())`, stake, session length (timers are options) |
//! | `Accept` | the three others | `Accept{proposal hash}` or `Decline` (the set-up fails) |
//! | per hand: `Commit` | all four | deal commit + hand key |
//! | `Reveal` | all four | seed reveal → joint randomness: dice, and the dealer when the session has none |
//! | `Shuffle(0..=3)` | seat 0, 1, 2, 3 in turn | its shuffle with its proof |
//! | `Deal` | all four | a draw share of each of positions 0..53 another seat holds; `baida`: a public share of the indicator |
//! | `Play` | the rules' `to_act()` seats | a [`Play`]: the rules `Action`, `timed_out`, and a deal `show` per card it takes face up |
//! | claim window (and 换牌): commit | the seats that may claim (换牌: all four) | `ClaimCommit`: [`codec::claim_commitment`] of its `Play` (claim or pass, with its shows; 换牌: five wall positions or pass, no shows) and a nonce |
//! | claim window: open | the same seats | `ClaimOpen`: the `Play` and the nonce; then the answers are played as one step |
//! | `Shares` | the three others | after a step whose moves made seat P draw position k: `share_for(k, P)` |
//! | `Audit` | all four | end-of-hand secrets; then everyone audits the deal and replays the hand with full knowledge |
//! | `Settle` | all four | the [`HandResult`] hash (four signatures: final) and `Next` (continue, stop, leave); `SettleVoided` from a seat that voted earlier in the hand |
//! | `Roster` | the three others | after a seat left: replace it by a bot (the next human seat runs it) or stop |
//!
//! After a discard (or an added kong that may be robbed) the seats that may claim answer in
//! two steps: each commits to its answer (claim or pass, with its shows) by a hash with a
//! nonce derived from its root secret, and once every commitment is in, each opens it; the
//! resolution is the rules crate's pure function of the opened answers. So no answer can
//! depend on another (a seat answering late has seen only hashes). Opening is automatic; a
//! seat that has not opened its commitment `claim_seconds` plus [`SILENT_GRACE_MS`] after
//! the others' commitments are in is voted out (its signed commitment in the log shows it
//! had answered). A restarted seat finds its answer again from its root (the legal answer
//! whose commitment is the logged one: shows and signatures are deterministic). Claim answers
//! carry the shows of their tiles, so a claim without the tiles is proven false by the answer
//! itself (cost: a chow that loses to a pung has shown two tiles). A win shows the winner's whole concealed hand, so the
//! outcome rests on proven tiles at once. The full-knowledge replay after the audit catches
//! what partial engines cannot see: a hidden flower, a false ready declaration, a win barred
//! by 漏胡. A seat that goes silent or leaves after the last move cannot trade its loss for the
//! leaver penalty: the agreed outcome is settled (a silent winner forfeits) and the seat is
//! replaced; only the audit of its own secrets is lost.
//!
//! **Control frames** (not logged): `Request{from_seq, have}` asks a seat for every envelope it
//! holds from that step on (but the entries of step `from_seq` from the seats in `have`); the
//! answer is the original envelopes, one per frame, at most one answer per seat per
//! `RETRANSMIT_MS / 2`. A seat still in an earlier hand is answered from the end of that hand,
//! so it learns of an abort that cut the log back. A client re-sends
//! its own entries of an unfinished step and asks for the rest every [`RETRANSMIT_MS`]; it asks
//! at once when it sees it is behind (an entry for a later step) or on another branch (an entry
//! with another `prev_hash`: that is how an equivocation that split the honest seats is found).
//! At the first step after a hand boundary (or the set-up) it asks from the step that ended
//! it, so a seat that told the others two different things there is found before anyone is
//! blamed for the silence that follows.
//!
//! **Buffering.** Entries are kept for at most [`MAX_AHEAD`] (8) steps ahead, this hand or the
//! next, only with a body some step can take, and within [`MAX_BUFFER_BYTES`] (1 MiB) per
//! seat; the rest is dropped with a typed [`FrameError`] and asked for again when it is due.
//! The work per frame is a signature check and a few map look-ups, whatever is buffered.
//!
//! **Timers** (docs/rules.en.md §4.8): a client enforces its own seat's timers only, because only it
//! holds its keys: when `discard_seconds` / `claim_seconds` run out it plays
//! `HandState::default_action` marked `timed_out` (a ready seat's auto-play, auto-pass,
//! auto-discard); `start_seconds` without an answer to the proposal declines it. The others
//! watch: [`TableEvent::SeatSilent`] after the seat's own timer plus [`SILENT_GRACE_MS`],
//! [`TableEvent::SeatReturned`] if it speaks again, and after `disconnect_seconds` a vote to
//! abort. Three `Abort{culprit, result}` votes from the other seats for one step end the hand
//! there as abandoned by that seat (the penalty rules `Action::Leave` applies,
//! `scoring::leaver_payments`, docs/rules.en.md §6, recorded through `Session::record`; before the
//! dice there is no hand to count and the penalty alone is booked); the log is cut back to that
//! step, which becomes the three votes (`result` is the hash of that [`HandResult`], so the
//! votes are a settlement signed by the three). After the last move the agreed outcome
//! stands (a silent winner forfeits at the audit); at the settlement step the votes sign the
//! settled result itself. A seat that leaves ([`Input::Leave`]) votes against itself; the
//! others then vote at once. So does a seat proven at fault. **Two seats silent at once**
//! (missing at the step, or not heard from at all) past the limit: no abort can gather three
//! votes, so the table pauses ([`TableEvent::Paused`], both `SeatSilent`) and resumes
//! ([`TableEvent::Resumed`]) when one speaks again, the limit then running afresh for the
//! other; meanwhile [`Input::Leave`] leaves with nothing booked for the unfinished hand (the
//! journal keeps it for a later restore).
//!
//! **Abort versus settlement.** A vote is a suspicion: a voter that gets the late entry goes
//! on. But a seat's `Settle` and its vote at an earlier step of the same hand are mutually
//! exclusive: holding both is evidence against it ([`evidence::conflict`]). A seat that
//! voted signs its settlement only as `SettleVoided`, carrying, for each seat it voted
//! against, the plain `Settle` of a seat that is neither itself nor that culprit: that seat has
//! given up its vote (a vote of it would now be evidence), so the abort can never gather its
//! three votes. Nothing else releases a voter (a later-hand envelope does not). A seat that
//! has signed its settlement applies no abort of an earlier step of that hand, and votes
//! before its settlement at most once a hand (unless against a seat proven at fault, or
//! itself), so two aborts at different steps can never both gather three honest votes. Hence
//! every honest seat books the same result for a hand, or holds evidence naming the seat
//! that signed both (tested over random schedules of one adversarial seat).
//!
//! **Misbehaviour.** Two conflicting signed envelopes of one seat (two entries or two votes
//! for one step, or a settlement and an earlier vote of one hand: compared with the slots
//! of unlogged steps and with the log of every hand, including after the table is over), an
//! illegal move, a deal message the deal crate rejects (bad key, shuffle, share, show, replay
//! from another hand), a shown face that differs from the move, a failed audit or full replay,
//! a wrong result signature: the seat's own signed messages prove it. The client keeps one
//! proof per culprit per hand (the two envelopes; its [`Evidence`] record, the log up to the
//! start of that hand plus the pair, is built when asked for: [`Client::evidence`], and once
//! in the [`TableEvent::Evidence`] event), sends both envelopes to every seat (again at each
//! retransmission until the culprit is dealt with) and votes to abort naming the culprit, at
//! a step every seat holding the proof picks alike (the hand's first step, or the settlement
//! step if the hand is there). Holding a proof, it votes against no silent seat. A proof that
//! a seat signed two entries for the step that ended the last hand (two `Next`s, accept and
//! decline, two roster answers) seen before anything was logged after it ends the table there:
//! some seats may have ended it on the other version, and nobody is blamed for their silence.
//! Anyone can check an [`Evidence`] record offline with [`Evidence::verify`]. A bad signature
//! proves nothing (anyone can send garbage): it is dropped with a typed [`FrameError`].
//!
//! **Sessions** (docs/rules.en.md §7): hands follow one another through `rules::Session` (dealer
//! rotation, 荒番, rounds, balances) until the set length is played or a seat stops. A seat
//! that left (abort, `Next::Leave`, or a rules leaver) is replaced in a `Roster` step by a bot
//! whose keys are derived from the root secret of the next human seat in turn order; that
//! seat's caller runs it ([`TableEvent::RunBot`], [`Client::bot_client`]). **Trust
//! consequence:** the controlling peer holds the bot's keys and sees its tiles, so it plays two
//! hands with shared information; the other two accept that when they co-sign the roster
//! change (and may `Stop` instead).
//!
//! **Randomness.** A client takes a 32-byte root secret at creation and derives each hand's
//! deal secrets from it (`HandSecrets::from_root` of a hash of root, table, hand, seat), so a
//! restarted seat recovers them, and produces byte-identical deal messages.
//!
//! **Persistence** (the caller's): [`Output::journal`] records, folded by [`Persisted`];
//! `Record::Own` must be durable before the frames of the same output are sent. A restarted
//! seat ([`Client::restore`]) replays its log from its last checkpoint, re-sends its unfinished
//! entries and asks for what it missed.
//!
//! # Example
//!
//! Four seats agree on a set-up (the network here is a loop that hands every frame to the
//! other three; a real shell moves the same bytes over sockets and calls `Input::Tick` at
//! `Output::deadline`).
//!
//! ```
//! use ed25519_dalek::SigningKey;
//! use mahjong_rules::{Money, Options, Ruleset, SessionLength};
//! use mahjong_table::{Client, Config, Input, Output, TableEvent};
//!
//! let keys: Vec<SigningKey> = (0..4u8).map(|i| SigningKey::from_bytes(&[i + 1; 32])).collect();
//! let roster = [0, 1, 2, 3].map(|i| keys[i].verifying_key());
//! let mut seats: Vec<Client> = (0..4u8)
//!     .map(|seat| {
//!         let config = Config { table: [7; 32], seat, roster, host: 0 };
//!         // The root secret comes from the OS in real life; persist it with the log.
//!         Client::new(config, keys[seat as usize].clone(), [seat + 42; 32]).unwrap()
//!     })
//!     .collect();
//! let propose = Input::Propose {
//!     options: Box::new(Options::preset(Ruleset::Qiaoma)),
//!     stake: Money::coins(1),
//!     length: SessionLength::Hands(8),
//! };
//! let mut queue: Vec<(usize, Output)> = vec![(0, seats[0].handle(0, propose))];
//! let mut agreed = 0;
//! while let Some((from, out)) = queue.pop() {
//!     for event in &out.events {
//!         match event {
//!             TableEvent::Proposed(_) if from != 0 => {
//!                 queue.push((from, seats[from].handle(10, Input::Accept)));
//!             }
//!             TableEvent::SetupAgreed(_) => agreed += 1,
//!             _ => {}
//!         }
//!     }
//!     if agreed == 4 {
//!         break; // the first hand's commitments would follow
//!     }
//!     for frame in &out.send {
//!         for to in (0..4).filter(|&to| to != from) {
//!             queue.push((to, seats[to].handle(10, Input::Frame(frame.clone()))));
//!         }
//!     }
//! }
//! assert_eq!(agreed, 4);
//! assert!(seats.iter().all(|s| s.proposal() == seats[0].proposal()));
//! ```
//!
//! # Costs
//!
//! `cargo bench -p mahjong-table --bench table` on the 2-core x86_64 development machine
//! (AMD EPYC, AVX2), a whole hand (set-up of the hand, play, audit, settlement) of four
//! bot-driven seats over a perfect in-memory network, per seat, with the claim commitments:
//! qiaoma 188 frames and 64.4 KB sent (each frame broadcast once; ×3 if sent to each peer
//! separately: 193 KB); classic 178 frames, 62.1 KB; baida 92 frames, 44.1 KB (85.6, 83.2
//! and 64.3 KB before the compact proof of shuffle and frames, [`Envelope::frame`]). A hand has
//! 72 (qiaoma), 68 (classic) or 30 (baida) claim windows (every discard, and every added
//! kong that may be robbed); each costs the answering seats one more step: three
//! commitments of 166 bytes (about one frame and 0.5 KB per seat per discard, +40% frames
//! and +14% bytes per hand against answers sent in the clear: qiaoma was 134 frames, 75 KB)
//! and one more network delay before the discard is resolved (the openings go out as soon
//! as the last commitment is in; no timer). CPU: this thread's CPU over a 200-hand qiaoma
//! session (`LONG_SESSION_HANDS=200 cargo test -p mahjong-table --test table long_session
//! -- --ignored --nocapture`) was 0.79–0.89 s per hand for the four seats and their bots
//! together, about 0.2 s per seat, flat from the first 20 hands to the last 20: nothing at
//! a hand boundary copies the log (the checkpoint is kept without the prefix, a restore
//! moves the persisted log into the replica). A restore re-hashes the log once to check it
//! against the checkpoint (linear in the session: 0.2–1.3 s after 20–200 hands on the loaded
//! machine). The bench's own CPU figures (771, 557, 413 ms per seat) are wall time inside
//! `Client::handle` on a machine loaded by other builds (load average 10 on 2 cores) and
//! overstate it. About 45% of the CPU is the deal crate's end-of-hand audit, which
//! re-verifies every message already verified on receipt; most of the rest is the deal's
//! own proofs. Loss and reordering add retransmissions and answers to requests.
//!
//! **Memory under attack** (what an honest client holds whatever one seat sends): of each
//! other seat, at most [`MAX_BUFFER_BYTES`] (1 MiB) of envelopes for steps not logged yet,
//! in practice the window (8 steps, this hand and the next, one entry and one vote per seat
//! and step); one proof per culprit per hand (its two envelopes, at most 2 × 64 KiB);
//! nothing for envelopes of logged steps or earlier hands (compared with the log, not kept);
//! at most [`MAX_REPLY_BYTES`] per answer to a request, and answers to a seat at most
//! [`REPLY_BYTES_PER_SECOND`] on average, whatever it asks for. Measured (`cargo test -p mahjong-table --test table flood --
//! --nocapture`): 10,000 validly signed 32.8 KB entries of one seat for steps ahead, in this
//! hand and the next, mostly conflicting with one another, left 525 KB buffered, one proof
//! and one evidence event; the process RSS grew by 1.5 MiB; CPU per frame stayed at
//! 0.4–0.7 ms (the signature check of a 32 KB frame) from the first thousand to the last.
//! A second signed version of each of one seat's moves so far makes one proof and one
//! event (test `an_equivocation_flood_keeps_one_proof_per_culprit_per_hand`).
//!
//! # Modules
//!
//! [`codec`] (the wire format), [`replica`] (the log as a state machine, table-level steps,
//! aborts), [`hand`] (one hand's deal and rules steps), [`client`] (the sans-IO peer: frames,
//! requests, timers, votes), [`io`] (inputs, outputs, the journal), [`evidence`], [`event`],
//! [`error`].
//!
//! # Known limits
//!
//! - Liveness after near misses: a seat that voted once in a hand (the culprit came back
//!   just in time) cannot vote again in that hand before the settlement, except against a
//!   seat proven at fault or itself; if another seat then goes silent for good, the table
//!   pauses instead of aborting. If every seat voted once in a hand, no plain settlement is
//!   left to void the votes and the table pauses at the settlement step. In both cases the
//!   remaining seats can leave with nothing booked for that hand.
//! - A seat silent at the settlement step is voted out with the settled result; if it comes
//!   back at the same moment, some seats may book the hand through its four signatures and
//!   others through the three votes: the same result, but the first go on with the seat and
//!   the others replace it. Each side then waits for the other at its next step: the roster
//!   side ends the session after the limit, the other pauses (nothing more is booked).
//! - A proof that a seat told two versions of the step that ended the last hand ends the
//!   table only if it comes before anything was logged after that step; later, it is an
//!   ordinary proof (the next hand is aborted naming the seat).
//! - Envelopes of earlier hands are checked against the current roster: a seat replaced by
//!   a bot since cannot be proven at fault for what it signed before (its frames are then
//!   dropped as badly signed).
//! - A seat that proves a fault in a complete step (a bad proof, a wrong result) halts that
//!   hand; if the others went on with another version (the culprit told them otherwise), it
//!   keeps the evidence and stays in that hand.

pub mod client;
pub mod codec;
pub mod error;
pub mod event;
pub mod evidence;
pub mod hand;
pub mod io;
pub mod rebuild;
pub mod record;
pub mod replica;
pub mod verify;

pub use client::{
    BotError, Client, Follower, MAX_AHEAD, MAX_BUFFER_BYTES, MAX_REPLY_BYTES,
    REPLY_BYTES_PER_SECOND, RETRANSMIT_MS, SILENT_GRACE_MS,
};
pub use codec::{
    Body, COMPACT_FRAME, COMPACT_FRAME_2, Envelope, Hash, MAX_FRAME, MAX_NAME_CHARS, Next, Play,
    Proposal, RosterVote, STORED_RUN, STORED_RUN_DERIVED, STORED_STEP, VERSION, VERSIONS, Void,
    from_stored_run, from_stored_step, is_signable_name, is_stored_run, signed_names, stored_run,
    stored_step,
};
pub use error::{ActError, EvidenceError, Fault, FrameError, Offence, StepError, TableError};
pub use event::TableEvent;
pub use evidence::{Charge, Culprit, Evidence, conflict};
pub use hand::HandStage;
pub use io::{
    Config, Input, Load, Misfit, Output, Persisted, Record, Rejected, Stats, TO_RETURNING,
};
pub use rebuild::{RebuildError, Step as RebuiltStep, rebuild};
pub use replica::{Checkpoint, Ending, HandResult, Stage, StepRecord};
pub use verify::{HandLog, HandReport, LogFault, LogReport, hand_log, verify_log};
