//! The replicated table: four peers agree on every move of a Shanghai mahjong session from a
//! signed, hash-chained log, with no leader and nobody trusted.
//!
//! Implements ARCHITECTURE.md "Agreement", "Randomness and dealing" (through
//! [`mahjong_deal`]), "Wire format" and RULES.md §4.8 (timers), §6 (leavers), §7 (across
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
//! | `Shares` | the three others | after a step whose moves made seat P draw position k: `share_for(k, P)` |
//! | `Audit` | all four | end-of-hand secrets; then everyone audits the deal and replays the hand with full knowledge |
//! | `Settle` | all four | the [`HandResult`] hash (four signatures: final) and `Next` (continue, stop, leave) |
//! | `Roster` | the three others | after a seat left: replace it by a bot (the next human seat runs it) or stop |
//!
//! After a discard the three others answer in one step (claim or pass); the resolution is the
//! rules crate's pure function of the three answers. Claim answers carry the shows of their
//! tiles, so a claim without the tiles is proven false by the answer itself (cost: a chow that
//! loses to a pung has shown two tiles). A win shows the winner's whole concealed hand, so the
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
//!
//! **Timers** (RULES.md §4.8): a client enforces its own seat's timers only, because only it
//! holds its keys: when `discard_seconds` / `claim_seconds` run out it plays
//! `HandState::default_action` marked `timed_out` (a ready seat's auto-play, auto-pass,
//! auto-discard); `start_seconds` without an answer to the proposal declines it. The others
//! watch: [`TableEvent::SeatSilent`] after the seat's own timer plus [`SILENT_GRACE_MS`],
//! [`TableEvent::SeatReturned`] if it speaks again, and after `disconnect_seconds` a vote to
//! abort. Three `Abort{culprit, result}` votes from the other seats for one step end the hand
//! there as abandoned by that seat (the penalty rules `Action::Leave` applies,
//! `scoring::leaver_payments`, RULES.md §6, recorded through `Session::record`; before the
//! dice there is no hand to count and the penalty alone is booked); the log is cut back to that
//! step, which becomes the three votes (`result` is the hash of that [`HandResult`], so the
//! votes are a settlement signed by the three). A seat that
//! leaves ([`Input::Leave`]) votes against itself; the others then vote at once. So does a seat
//! proven at fault.
//!
//! **Abort versus a late entry.** A vote is a suspicion, not a commitment: a voter that gets the
//! late entry goes on. Safety comes from the settlement: a seat that voted in a hand does not
//! complete that hand's `Settle` step until it knows the abort cannot gather its three votes
//! (it has seen a seat that did not vote move on to the next hand). Three votes need every
//! other seat, so either all of them voted (and nobody settles: the abort wins, everyone cuts
//! back to the voted step) or one did not (no abort can form: everyone settles).
//!
//! **Misbehaviour.** Two different signed entries (or votes) of one seat for one step, an
//! illegal move, a deal message the deal crate rejects (bad key, shuffle, share, show, replay
//! from another hand), a shown face that differs from the move, a failed audit or full replay,
//! a wrong result signature: the seat's own signed messages prove it. The hand stops, the
//! client emits an [`Evidence`] record (the log up to the offence plus the offending entries)
//! that anyone can check offline with [`Evidence::verify`], and votes to abort naming the
//! culprit. A bad signature proves nothing (anyone can send garbage): it is dropped with a
//! typed [`FrameError`].
//!
//! **Sessions** (RULES.md §7): hands follow one another through `rules::Session` (dealer
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
//! bot-driven seats over a perfect in-memory network, per seat: qiaoma 134 frames and 75 KB
//! sent (each frame broadcast once; ×3 if sent to each peer separately: 224 KB), 441 ms CPU;
//! classic 127 frames, 73 KB, 433 ms; baida 70 frames, 59 KB, 362 ms. About 45% of the CPU is
//! the deal crate's end-of-hand audit, which re-verifies every message already verified on
//! receipt; most of the rest is the deal's own proofs. Loss and reordering add retransmissions
//! and answers to requests.
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
//! - Two seats silent at once stall the hand (an abort needs the three others' votes).
//! - A silent seat that comes back within milliseconds of each of the three others' votes, at
//!   three different steps of one hand, leaves them each waiting at the settlement for the
//!   others (each voted, so none settles first). One near miss is harmless: a seat that did not
//!   vote settles and moves on, which releases the voters.
//! - A seat can wait to see the others' claim answers before sending its own; answers are not
//!   committed first (an extra round trip per discard would fix it).
//! - A loser can go silent after the last move: the hand is then abandoned and it pays the
//!   leaver penalty instead of its loss (RULES.md §6 is silent on leaving after the end).

pub mod client;
pub mod codec;
pub mod error;
pub mod event;
pub mod evidence;
pub mod hand;
pub mod io;
pub mod replica;
pub mod verify;

pub use client::{Client, MAX_AHEAD, MAX_REPLY_BYTES, RETRANSMIT_MS, SILENT_GRACE_MS};
pub use codec::{Body, Envelope, Hash, MAX_FRAME, Next, Play, Proposal, RosterVote, VERSION};
pub use error::{ActError, EvidenceError, Fault, FrameError, Offence, StepError, TableError};
pub use event::TableEvent;
pub use evidence::{Charge, Culprit, Evidence};
pub use hand::HandStage;
pub use io::{Config, Input, Output, Persisted, Record, Rejected, Stats};
pub use replica::{Checkpoint, Ending, HandResult, Stage, StepRecord};
pub use verify::{HandReport, LogFault, LogReport, verify_log};
