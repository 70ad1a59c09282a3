//! The wire format: [`Envelope`]s and their bodies, postcard-encoded and ed25519-signed.
//!
//! Implements ARCHITECTURE.md "Agreement" and "Wire format: postcard, not bincode". Every
//! byte this crate signs, hashes, sends or persists is encoded here, so the format can change
//! in one place. postcard 1.x is deterministic for these types (no maps, no floats).
//!
//! Decoding is defensive ([`Envelope::decode`]):
//! - the length is checked first (at most [`MAX_FRAME`] bytes);
//! - postcard reads a bounded input slice through a flavor that never reports a size hint,
//!   so no `Vec` is pre-allocated from a length read off the wire: memory grows only with
//!   elements actually decoded, each of which consumes input bytes;
//! - trailing bytes are refused, and the decoded envelope must re-encode to exactly the same
//!   bytes (one canonical encoding per envelope: a mutated frame can never decode to the same
//!   envelope);
//! - nothing panics, whatever the bytes; every failure is a typed [`FrameError`].
//!
//! Signatures cover `domain tag ‖ postcard(version, table, hand, seq, prev_hash, seat, body)`
//! and are checked with `verify_strict` (no malleable or small-order signatures).
//!
//! Two encodings of one envelope ([`Envelope::decode`] reads both):
//! - the **full** one ([`Envelope::encode`]): postcard of every field. It names the envelope
//!   in the log hash ([`Envelope::id`]), and the journal and exports hold it;
//! - the **frame** sent to peers ([`Envelope::frame`]): for an envelope that carries deal
//!   messages, a mark byte ([`COMPACT_FRAME_2`], or [`COMPACT_FRAME`] for version 1), then the
//!   postcard of the same fields without the version (the byte implies it) and with each deal
//!   message inside the body cut to what is its own: its version, table, hand and seat are
//!   the envelope's (35 bytes saved per deal message). Any other envelope, or one whose deal
//!   messages name another table, hand or seat (a lying seat's), is sent in full. The frame
//!   decodes to the full envelope, whose signature is checked over the full bytes as before.
//!
//! Envelope versions ([`VERSIONS`]; this crate signs [`VERSION`]):
//! - **2**: the deal messages an envelope carries are **carried**
//!   ([`SignedMessage::carried`]): they have no signature of their own (64 zero bytes stand
//!   for it in the full encoding, nothing in a frame or a journal), because the envelope's
//!   signature, by the same seat, covers them. A carried message must be its envelope's
//!   seat's ([`Envelope::carriage`]); the table hands it to the deal crate's carried paths
//!   only after the envelope's signature was checked. About 8 KB a seat a hand less on the
//!   wire, and one ed25519 check less for each deal message received;
//! - **1**: every deal message signed by its seat inside a signed envelope. Old journals
//!   and exports hold it; it decodes, hashes and verifies as it always did.

use ed25519_dalek::{Signature, Signer, SigningKey, VerifyingKey};
use mahjong_deal::{Message as DealMessage, SeatIndex, SignedMessage};
use mahjong_rules::{Action, Money, Options, Ruleset, Seat, SessionLength};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::FrameError;

mod derived;

/// The envelope version this crate signs: 2, whose deal messages are carried
/// ([`SignedMessage::carried`]: authenticated by the envelope's signature, with none of their
/// own). Version 1 signed each deal message too; its envelopes, in old journals and exports,
/// still decode and verify ([`VERSIONS`]).
pub const VERSION: u16 = 2;

/// The envelope versions this crate reads; envelopes with another version are refused.
pub const VERSIONS: [u16; 2] = [1, 2];

/// The first byte of a compact frame of envelope version 2 (its deal messages carried).
pub const COMPACT_FRAME_2: u8 = 0xC4;

/// Largest encoded envelope (one frame), in bytes.
pub const MAX_FRAME: usize = 64 * 1024;

/// The first byte of a compact frame ([`Envelope::frame`]). A full encoding starts with its
/// version ([`VERSION`], one byte), so the two never meet.
pub const COMPACT_FRAME: u8 = 0xC1;

/// A 32-byte hash (sha256).
pub type Hash = [u8; 32];

/// The host's proposal for the table (docs/rules.en.md §7 table set-up): the first entry of the log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Proposal {
    /// The table id (fixed by the lobby; every envelope and deal message carries it).
    pub table: [u8; 32],
    /// The host (the proposing seat).
    pub host: Seat,
    /// The four seats' ed25519 keys, by seat.
    pub roster: [VerifyingKey; 4],
    /// The preset the options started from.
    pub preset: Ruleset,
    /// Every option, timers included (`discard_seconds`, `claim_seconds`, `start_seconds`,
    /// `disconnect_seconds`, `timeouts_before_leaver`).
    pub options: Options,
    /// `sha256(Options::canonical_bytes())`: what every seat signs it accepts.
    pub options_hash: Hash,
    /// Coins per point (底分 multiplier).
    pub stake: Money,
    /// How long the table plays.
    pub length: SessionLength,
}

impl Proposal {
    /// A proposal with the options hash filled in.
    pub fn new(
        table: [u8; 32],
        host: Seat,
        roster: [VerifyingKey; 4],
        options: Options,
        stake: Money,
        length: SessionLength,
    ) -> Proposal {
        Proposal {
            table,
            host,
            roster,
            preset: options.ruleset,
            options_hash: options_hash(&options),
            options,
            stake,
            length,
        }
    }

    /// The hash each accepting seat signs: `sha256(tag ‖ postcard(self))`.
    pub fn hash(&self) -> Hash {
        tagged_hash("proposal", &encode_value(self))
    }
}

/// `sha256(Options::canonical_bytes())`.
pub fn options_hash(options: &Options) -> Hash {
    Sha256::digest(options.canonical_bytes()).into()
}

/// A seat's move in a game step, with the proofs of every face it shows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Play {
    /// The action (faces included, as the rules crate carries them).
    pub action: Action,
    /// Played by the seat's own client when its timer ran out (docs/rules.en.md §4.8).
    pub timed_out: bool,
    /// One deal `show` per card the action reveals from the seat's hand, in the action's
    /// order (a win: every concealed tile; a pass: none).
    pub shows: Vec<SignedMessage>,
}

/// What a seat wants after a settled hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Next {
    /// Play the next hand.
    Continue,
    /// Stop the session (any one seat stops it).
    Stop,
    /// This seat leaves the table; the others may replace it by a bot.
    Leave,
}

/// A seat's answer in a roster step (after a seat left the table).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RosterVote {
    /// From the controlling seat: replace `seat` by a bot whose key this seat holds.
    Replace {
        /// The seat that left.
        seat: Seat,
        /// The bot's ed25519 key.
        key: VerifyingKey,
    },
    /// From the other remaining seats: agree that the controlling seat runs a bot there.
    Agree {
        /// The seat that left.
        seat: Seat,
    },
    /// End the session instead.
    Stop,
}

/// The content of an envelope.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Body {
    /// The host's set-up proposal.
    Propose(Box<Proposal>),
    /// Acceptance of the proposal with this hash.
    Accept {
        /// [`Proposal::hash`].
        proposal: Hash,
    },
    /// Refusal of the proposal: the seat leaves, the set-up fails.
    Decline,
    /// Deal-crate messages of the sender, in the order the step requires.
    Deal(Vec<SignedMessage>),
    /// A move in a game step.
    Play(Play),
    /// Signature of the hand's result (four make it final), with what the seat wants next.
    Settle {
        /// [`crate::HandResult::hash`].
        result: Hash,
        /// Continue, stop or leave.
        next: Next,
    },
    /// A roster-step answer.
    Roster(RosterVote),
    /// A vote to abort the hand at this step naming `culprit` (silent, leaving or proven at
    /// fault). Three votes from the other seats with the same result abort the hand.
    Abort {
        /// The seat named.
        culprit: Seat,
        /// [`crate::HandResult::hash`] of the abandoned hand.
        result: Hash,
    },
    /// Control: please resend every entry from step `from_seq` on (not logged).
    Request {
        /// First step wanted.
        from_seq: u32,
        /// The seats whose entries of step `from_seq` the sender already holds (a bit per
        /// seat): those need not be sent again.
        have: u8,
    },
    /// A settlement signature from a seat that voted to abort earlier in the same hand.
    /// A `Settle` and an earlier vote of one seat in one hand are mutually exclusive
    /// (holding both proves the seat at fault), unless the vote is *voided*: this entry
    /// carries, for every seat its votes named, the plain `Settle` of this same step by a
    /// seat that is neither the signer nor that culprit. That seat has thereby given up its
    /// own vote (a vote of it before the settlement would be proof against it), so the abort
    /// the voided vote asked for can never gather its three votes.
    SettleVoided {
        /// [`crate::HandResult::hash`].
        result: Hash,
        /// Continue, stop or leave.
        next: Next,
        /// Plain `Settle` signatures of this step by other seats.
        voids: Vec<Void>,
    },
    /// A claim answer, committed ([`claim_commitment`] of the [`Play`] and a nonce): the
    /// answers of a claim window are committed in one step and opened in the next, so no
    /// answer can depend on another.
    ClaimCommit {
        /// `sha256(tag ‖ postcard(play) ‖ nonce)`.
        commitment: Hash,
    },
    /// The opening of this seat's commitment of the step before: its answer, with its shows.
    ClaimOpen {
        /// The answer.
        play: Play,
        /// The nonce of the commitment.
        nonce: Hash,
    },
    /// [`Body::Propose`] with the host's display name, signed with the proposal: the name on
    /// every result of the table is the one its player signed ([`signed_names`]).
    ProposeAs {
        /// The proposal.
        proposal: Box<Proposal>,
        /// The host's display name.
        name: String,
    },
    /// [`Body::Accept`] with the seat's display name (a bot's: "bot of NAME").
    AcceptAs {
        /// [`Proposal::hash`].
        proposal: Hash,
        /// The seat's display name.
        name: String,
    },
}

/// Most characters of a signed display name.
pub const MAX_NAME_CHARS: usize = 64;

/// Whether a name may be signed at a table: at most [`MAX_NAME_CHARS`] characters, none of
/// them a control character.
pub fn is_signable_name(name: &str) -> bool {
    name.chars().count() <= MAX_NAME_CHARS && !name.chars().any(char::is_control)
}

/// The display name each seat signed at the set-up of the table whose log starts with `log`
/// (the host's with its proposal, the others' with their acceptance): `None` for a seat
/// that signed none (a table from before names were signed, or a seat that declined).
pub fn signed_names(log: &[crate::replica::StepRecord]) -> [Option<String>; 4] {
    let mut names: [Option<String>; 4] = Default::default();
    for e in log.iter().take(2).flat_map(|r| r.entries.iter()) {
        if let Some(name) = e.body.signed_name() {
            names[e.seat as usize & 3] = Some(name.to_string());
        }
    }
    names
}

/// What a [`Body::ClaimCommit`] signs: `sha256(tag ‖ postcard(play) ‖ nonce)`.
pub fn claim_commitment(play: &Play, nonce: &Hash) -> Hash {
    let mut bytes = encode_value(play);
    bytes.extend_from_slice(nonce);
    tagged_hash("claim", &bytes)
}

/// Another seat's plain `Settle` of the same step, carried in a [`Body::SettleVoided`]: the
/// envelope is rebuilt from the carrying one (same table, hand, step, previous hash and
/// result) with this seat, `next` and signature ([`Void::envelope`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Void {
    /// The settling seat.
    pub seat: Seat,
    /// What it wants next.
    pub next: Next,
    /// Its signature of that `Settle`.
    pub signature: Signature,
}

impl Void {
    /// The carried seat's plain `Settle` envelope, rebuilt from the carrying `outer` one.
    pub fn envelope(&self, outer: &Envelope) -> Option<Envelope> {
        let (Body::Settle { result, .. } | Body::SettleVoided { result, .. }) = outer.body else {
            return None;
        };
        Some(Envelope {
            version: outer.version,
            table: outer.table,
            hand: outer.hand,
            seq: outer.seq,
            prev_hash: outer.prev_hash,
            seat: self.seat,
            body: Body::Settle {
                result,
                next: self.next,
            },
            signature: self.signature,
        })
    }

    /// The void of a plain `Settle` envelope.
    pub fn of(settle: &Envelope) -> Option<Void> {
        match settle.body {
            Body::Settle { next, .. } => Some(Void {
                seat: settle.seat,
                next,
                signature: settle.signature,
            }),
            _ => None,
        }
    }
}

impl Body {
    /// The proposal of a [`Body::Propose`] or [`Body::ProposeAs`].
    pub fn proposal(&self) -> Option<&Proposal> {
        match self {
            Body::Propose(p) | Body::ProposeAs { proposal: p, .. } => Some(p),
            _ => None,
        }
    }

    /// The proposal hash an [`Body::Accept`] or [`Body::AcceptAs`] accepts.
    pub fn accepted(&self) -> Option<&Hash> {
        match self {
            Body::Accept { proposal } | Body::AcceptAs { proposal, .. } => Some(proposal),
            _ => None,
        }
    }

    /// The display name a [`Body::ProposeAs`] or [`Body::AcceptAs`] signs.
    pub fn signed_name(&self) -> Option<&str> {
        match self {
            Body::ProposeAs { name, .. } | Body::AcceptAs { name, .. } => Some(name),
            _ => None,
        }
    }

    /// A short name, for errors and logs.
    pub fn name(&self) -> &'static str {
        match self {
            Body::Propose(_) | Body::ProposeAs { .. } => "propose",
            Body::Accept { .. } | Body::AcceptAs { .. } => "accept",
            Body::Decline => "decline",
            Body::Deal(_) => "deal",
            Body::Play(_) => "play",
            Body::Settle { .. } => "settle",
            Body::Roster(_) => "roster",
            Body::Abort { .. } => "abort",
            Body::Request { .. } => "request",
            Body::SettleVoided { .. } => "settle",
            Body::ClaimCommit { .. } => "claim-commit",
            Body::ClaimOpen { .. } => "claim-open",
        }
    }
}

/// One signed message of the table protocol: one frame on the wire.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Envelope {
    /// [`VERSION`].
    pub version: u16,
    /// The table id.
    pub table: [u8; 32],
    /// The hand (0 = table set-up; 1, 2, … the hands; a roster step belongs to the hand that
    /// follows it).
    pub hand: u32,
    /// The step number in the table's log (one step = the entries of the seats that must
    /// speak at that point).
    pub seq: u32,
    /// The log hash through step `seq - 1`.
    pub prev_hash: Hash,
    /// The sending seat.
    pub seat: Seat,
    /// The content.
    pub body: Body,
    /// ed25519 signature by the seat over [`Envelope::signing_bytes`].
    pub signature: Signature,
}

/// The signed part of an envelope, borrowed (encodes exactly like the owned fields).
#[derive(Serialize)]
struct SignedPart<'a> {
    version: u16,
    table: &'a [u8; 32],
    hand: u32,
    seq: u32,
    prev_hash: &'a Hash,
    seat: Seat,
    body: &'a Body,
}

/// Where an envelope belongs: everything but the body and signature.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Header {
    /// The hand.
    pub hand: u32,
    /// The step.
    pub seq: u32,
    /// The log hash through the previous step.
    pub prev_hash: Hash,
}

impl Envelope {
    /// Signs `body` as `seat` for the step `header` of `table`.
    pub fn sign(
        table: [u8; 32],
        header: Header,
        seat: Seat,
        body: Body,
        key: &SigningKey,
    ) -> Envelope {
        let mut env = Envelope {
            version: VERSION,
            table,
            hand: header.hand,
            seq: header.seq,
            prev_hash: header.prev_hash,
            seat,
            body,
            signature: Signature::from_bytes(&[0; 64]),
        };
        env.signature = key.sign(&env.signing_bytes());
        env
    }

    /// The step this envelope is for.
    pub fn header(&self) -> Header {
        Header {
            hand: self.hand,
            seq: self.seq,
            prev_hash: self.prev_hash,
        }
    }

    /// `domain tag ‖ postcard(version, table, hand, seq, prev_hash, seat, body)`.
    pub fn signing_bytes(&self) -> Vec<u8> {
        let mut out = domain_tag("envelope");
        let part = SignedPart {
            version: self.version,
            table: &self.table,
            hand: self.hand,
            seq: self.seq,
            prev_hash: &self.prev_hash,
            seat: self.seat,
            body: &self.body,
        };
        out.extend_from_slice(&encode_value(&part));
        out
    }

    /// Checks the signature against `key` (strict ed25519).
    pub fn verify(&self, key: &VerifyingKey) -> Result<(), FrameError> {
        key.verify_strict(&self.signing_bytes(), &self.signature)
            .map_err(|_| FrameError::BadSignature { seat: self.seat })
    }

    /// The frame bytes (postcard).
    pub fn encode(&self) -> Vec<u8> {
        encode_value(self)
    }

    /// Decodes one frame, compact ([`Envelope::frame`]) or full ([`Envelope::encode`]): at
    /// most [`MAX_FRAME`] bytes, no trailing bytes, the canonical bytes of its form, a seat in
    /// 0..4, a protocol version this crate reads ([`VERSIONS`]) and deal messages carried as
    /// that version carries them ([`Envelope::carriage`]). Checks no signature (that needs
    /// the roster): see [`Envelope::verify`].
    pub fn decode(bytes: &[u8]) -> Result<Envelope, FrameError> {
        if bytes.len() > MAX_FRAME {
            return Err(FrameError::TooLarge { len: bytes.len() });
        }
        let env = match bytes.first() {
            Some(&COMPACT_FRAME) => Self::decode_compact::<DealEntry>(bytes)?,
            Some(&COMPACT_FRAME_2) => Self::decode_compact::<Carried>(bytes)?,
            _ => {
                let env: Envelope = decode_value(bytes)?;
                if !VERSIONS.contains(&env.version) {
                    return Err(FrameError::Version(env.version));
                }
                if env.encode() != bytes {
                    return Err(FrameError::NotCanonical);
                }
                env
            }
        };
        if env.seat > 3 {
            return Err(FrameError::NoSuchSeat(env.seat));
        }
        env.carriage()?;
        Ok(env)
    }

    /// Every deal message this envelope carries: its [`Body::Deal`] messages and the shows of
    /// its [`Play`].
    pub fn deal_messages(&self) -> impl Iterator<Item = &SignedMessage> {
        let (deal, shows): (&[SignedMessage], &[SignedMessage]) = match &self.body {
            Body::Deal(ms) => (ms, &[]),
            Body::Play(p) | Body::ClaimOpen { play: p, .. } => (&[], &p.shows),
            _ => (&[], &[]),
        };
        deal.iter().chain(shows)
    }

    /// Whether its deal messages are carried as its version carries them: in version 1 each
    /// one signed by its seat; in version 2 each one either signed, or carried
    /// ([`SignedMessage::carried`]: no signature of its own) and then its sender's own, since
    /// this envelope's signature is all that authenticates it.
    pub fn carriage(&self) -> Result<(), FrameError> {
        for m in self.deal_messages() {
            if m.is_carried() && (self.version < 2 || m.seat().get() != self.seat) {
                return Err(FrameError::Decode(format!(
                    "a version-{} envelope of seat {} carries an unsigned deal message of \
                     seat {}",
                    self.version,
                    self.seat,
                    m.seat()
                )));
            }
        }
        Ok(())
    }

    /// The bytes sent to peers: the compact frame (see the module header) when the envelope
    /// carries deal messages, all of its own table, hand and seat; else the full encoding.
    pub fn frame(&self) -> Vec<u8> {
        let compact = match self.version {
            1 => CompactEnvelope::<DealEntry>::of(self).map(|c| (COMPACT_FRAME, encode_value(&c))),
            _ => CompactEnvelope::<Carried>::of(self).map(|c| (COMPACT_FRAME_2, encode_value(&c))),
        };
        match compact {
            Some((first, rest)) => {
                let mut out = vec![first];
                out.extend_from_slice(&rest);
                out
            }
            None => self.encode(),
        }
    }

    /// Decodes a compact frame (after its first byte), canonical and within the limits.
    fn decode_compact<E: Cut>(bytes: &[u8]) -> Result<Envelope, FrameError> {
        let c: CompactEnvelope<E> = decode_value(bytes.get(1..).unwrap_or_default())?;
        let env = c.into_envelope()?;
        if env.frame() != bytes {
            return Err(FrameError::NotCanonical);
        }
        // The full encoding is what the journal and exports keep: within the limit too.
        let full = env.encode().len();
        if full > MAX_FRAME {
            return Err(FrameError::TooLarge { len: full });
        }
        Ok(env)
    }

    /// `sha256(tag ‖ full encoding)`: the envelope's identity in the log hash.
    pub fn id(&self) -> Hash {
        tagged_hash("envelope-id", &self.encode())
    }

    /// Whether this is an abort vote (votes have their own slot, apart from the entry).
    pub fn is_vote(&self) -> bool {
        matches!(self.body, Body::Abort { .. })
    }

    /// Whether this is a settlement signature (plain or voiding earlier votes).
    pub fn is_settle(&self) -> bool {
        matches!(self.body, Body::Settle { .. } | Body::SettleVoided { .. })
    }

    /// The settlement's result hash and `next`, if this is one.
    pub fn settle(&self) -> Option<(Hash, Next)> {
        match self.body {
            Body::Settle { result, next } | Body::SettleVoided { result, next, .. } => {
                Some((result, next))
            }
            _ => None,
        }
    }
}

/// A deal message as a compact form keeps it: what is not its envelope's (its version,
/// table, hand and seat are the envelope's). [`DealEntry`] in version 1, [`Carried`] in 2.
trait Cut: Sized + Serialize + serde::de::DeserializeOwned {
    /// The envelope version whose deal messages are cut to this.
    const VERSION: u16;
    /// The cut form of `m`, if it is one (signed in version 1, carried in 2).
    fn cut(m: &SignedMessage) -> Option<Self>;
    /// Its body, and its signature unless it is carried.
    fn into_parts(self) -> (mahjong_deal::Body, Option<Signature>);
}

/// A signed deal message of a version-1 envelope, cut: its body and signature.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct DealEntry {
    body: mahjong_deal::Body,
    signature: Signature,
}

impl Cut for DealEntry {
    const VERSION: u16 = 1;

    fn cut(m: &SignedMessage) -> Option<Self> {
        (!m.is_carried()).then(|| DealEntry {
            body: m.message.body.clone(),
            signature: m.signature,
        })
    }

    fn into_parts(self) -> (mahjong_deal::Body, Option<Signature>) {
        (self.body, Some(self.signature))
    }
}

/// A carried deal message of a version-2 envelope, cut: its body alone (it has no signature
/// of its own; the envelope's covers it).
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Carried(mahjong_deal::Body);

impl Cut for Carried {
    const VERSION: u16 = 2;

    fn cut(m: &SignedMessage) -> Option<Self> {
        m.is_carried().then(|| Carried(m.message.body.clone()))
    }

    fn into_parts(self) -> (mahjong_deal::Body, Option<Signature>) {
        (self.0, None)
    }
}

/// A [`Play`] inside a compact frame.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct CompactPlay<E> {
    action: Action,
    timed_out: bool,
    shows: Vec<E>,
}

impl<E: Cut> CompactPlay<E> {
    /// The play, its shows given back their version, table, hand and seat.
    fn into_play(self, table: [u8; 32], hand: u32, seat: SeatIndex) -> Play {
        Play {
            action: self.action,
            timed_out: self.timed_out,
            shows: restore(self.shows, table, hand, seat),
        }
    }
}

/// Cut deal messages of `seat` in hand `hand` of `table`, given back their header.
fn restore<E: Cut>(
    entries: Vec<E>,
    table: [u8; 32],
    hand: u32,
    seat: SeatIndex,
) -> Vec<SignedMessage> {
    entries
        .into_iter()
        .map(|e| {
            let (body, signature) = e.into_parts();
            let message = DealMessage {
                version: mahjong_deal::PROTOCOL_VERSION,
                table,
                hand,
                seat,
                body,
            };
            match signature {
                Some(signature) => SignedMessage { message, signature },
                None => SignedMessage::carried(message),
            }
        })
        .collect()
}

/// The body of a compact frame: one that carries deal messages, cut.
#[derive(Clone, Debug, Serialize, Deserialize)]
enum CompactBody<E> {
    Deal(Vec<E>),
    Play(CompactPlay<E>),
    ClaimOpen { play: CompactPlay<E>, nonce: Hash },
}

/// An envelope as a compact frame carries it (after [`COMPACT_FRAME`] or
/// [`COMPACT_FRAME_2`]).
#[derive(Clone, Debug, Serialize, Deserialize)]
struct CompactEnvelope<E> {
    table: [u8; 32],
    hand: u32,
    seq: u32,
    prev_hash: Hash,
    seat: Seat,
    body: CompactBody<E>,
    signature: Signature,
}

impl<E: Cut> CompactEnvelope<E> {
    /// The compact form, if the envelope is of `E`'s version and carries deal messages, every
    /// one of its table, hand and seat, of the deal crate's protocol version and cut by `E`
    /// (any other envelope is no smaller compact).
    fn of(env: &Envelope) -> Option<CompactEnvelope<E>> {
        if env.version != E::VERSION || env.deal_messages().next().is_none() {
            return None;
        }
        let cut = |ms: &[SignedMessage]| -> Option<Vec<E>> {
            ms.iter()
                .map(|m| {
                    let h = &m.message;
                    let own = h.version == mahjong_deal::PROTOCOL_VERSION
                        && h.table == env.table
                        && h.hand == env.hand
                        && h.seat.get() == env.seat;
                    if own { E::cut(m) } else { None }
                })
                .collect()
        };
        let play = |p: &Play| -> Option<CompactPlay<E>> {
            Some(CompactPlay {
                action: p.action.clone(),
                timed_out: p.timed_out,
                shows: cut(&p.shows)?,
            })
        };
        let body = match &env.body {
            Body::Deal(ms) => CompactBody::Deal(cut(ms)?),
            Body::Play(p) => CompactBody::Play(play(p)?),
            Body::ClaimOpen { play: p, nonce } => CompactBody::ClaimOpen {
                play: play(p)?,
                nonce: *nonce,
            },
            _ => return None,
        };
        Some(CompactEnvelope {
            table: env.table,
            hand: env.hand,
            seq: env.seq,
            prev_hash: env.prev_hash,
            seat: env.seat,
            body,
            signature: env.signature,
        })
    }

    /// The envelope, its deal messages given back their version, table, hand and seat.
    fn into_envelope(self) -> Result<Envelope, FrameError> {
        let seat = SeatIndex::new(self.seat).ok_or(FrameError::NoSuchSeat(self.seat))?;
        let (table, hand) = (self.table, self.hand);
        let body = match self.body {
            CompactBody::Deal(entries) => Body::Deal(restore(entries, table, hand, seat)),
            CompactBody::Play(p) => Body::Play(p.into_play(table, hand, seat)),
            CompactBody::ClaimOpen { play: p, nonce } => Body::ClaimOpen {
                play: p.into_play(table, hand, seat),
                nonce,
            },
        };
        Ok(Envelope {
            version: E::VERSION,
            table,
            hand,
            seq: self.seq,
            prev_hash: self.prev_hash,
            seat: self.seat,
            body,
            signature: self.signature,
        })
    }
}

/// The first byte of a step of the log in its stored form ([`stored_step`]). A postcard
/// `Record` of the journal starts with its variant's index (0 to 3), so the two never meet.
pub const STORED_STEP: u8 = 0xC5;

/// An entry of a stored step: what is its own (the step's table, hand, number and previous
/// hash are the step's).
#[derive(Clone, Debug, Serialize, Deserialize)]
struct StoredEntry {
    seat: Seat,
    body: StoredBody,
    signature: Signature,
}

/// A stored entry's body: cut as in a compact frame when it carries deal messages of its
/// own table, hand and seat, else whole; the variant says the envelope's version (the first
/// two are version 1's, kept by every journal written before envelope version 2).
#[derive(Clone, Debug, Serialize, Deserialize)]
enum StoredBody {
    Cut(CompactBody<DealEntry>),
    Whole(Body),
    Carried(CompactBody<Carried>),
    Whole2(Body),
    /// A version-2 entry of a finished hand, in a stored run only ([`stored_run`]): its deal
    /// messages carried, those its hand's reveals derive left out.
    Derived(CompactBody<derived::Kept>),
    /// A version-2 claim commitment, in a stored run only: the one its seat's opening in the
    /// run's next step opens ([`claim_commitment`] of that opening's play and nonce).
    Opened,
}

/// A step of the log as a journal keeps it (after [`STORED_STEP`]).
#[derive(Clone, Debug, Serialize, Deserialize)]
struct StoredStep {
    hand: u32,
    seq: u32,
    prev_hash: Hash,
    entries: Vec<StoredEntry>,
}

/// The stored form of the envelopes of one step of table `table`: [`STORED_STEP`], then the
/// step's hand, number and previous hash once, and for each envelope its seat, its body (its
/// deal messages cut as in [`Envelope::frame`]) and its signature: about 58 bytes an
/// envelope less than their full encodings (the table id, the header three times in four),
/// and 35 more a deal message (its version, table, hand and seat). `None` when the envelopes
/// are not all of a version this crate writes ([`VERSIONS`]), this table and one step header
/// (then keep their full encodings).
/// [`from_stored_step`] gives back the same envelopes: what is signed and hashed is their
/// full encoding, as ever.
pub fn stored_step(table: &[u8; 32], entries: &[Envelope]) -> Option<Vec<u8>> {
    let first = entries.first()?;
    let header = first.header();
    let mut stored = Vec::with_capacity(entries.len());
    for e in entries {
        if !VERSIONS.contains(&e.version) || &e.table != table || e.header() != header {
            return None;
        }
        let body = match e.version {
            1 => match CompactEnvelope::<DealEntry>::of(e) {
                Some(c) => StoredBody::Cut(c.body),
                None => StoredBody::Whole(e.body.clone()),
            },
            _ => match CompactEnvelope::<Carried>::of(e) {
                Some(c) => StoredBody::Carried(c.body),
                None => StoredBody::Whole2(e.body.clone()),
            },
        };
        stored.push(StoredEntry {
            seat: e.seat,
            body,
            signature: e.signature,
        });
    }
    let mut out = vec![STORED_STEP];
    out.extend_from_slice(&encode_value(&StoredStep {
        hand: header.hand,
        seq: header.seq,
        prev_hash: header.prev_hash,
        entries: stored,
    }));
    Some(out)
}

/// The envelopes of a step stored by [`stored_step`] for table `table`. Refuses bytes that
/// are not the stored form it makes of what they decode to.
pub fn from_stored_step(table: &[u8; 32], bytes: &[u8]) -> Result<Vec<Envelope>, FrameError> {
    let Some((&STORED_STEP, rest)) = bytes.split_first() else {
        return Err(FrameError::Decode("not a stored step".into()));
    };
    let step: StoredStep = decode_value(rest)?;
    let mut entries = Vec::with_capacity(step.entries.len());
    let head = StoredStep {
        entries: Vec::new(),
        ..step
    };
    for e in step.entries {
        fn compact<E: Cut>(
            table: &[u8; 32],
            step: &StoredStep,
            seat: Seat,
            body: CompactBody<E>,
            signature: Signature,
        ) -> Result<Envelope, FrameError> {
            CompactEnvelope {
                table: *table,
                hand: step.hand,
                seq: step.seq,
                prev_hash: step.prev_hash,
                seat,
                body,
                signature,
            }
            .into_envelope()
        }
        let whole = |version, body| Envelope {
            version,
            table: *table,
            hand: step.hand,
            seq: step.seq,
            prev_hash: step.prev_hash,
            seat: e.seat,
            body,
            signature: e.signature,
        };
        let env = match e.body {
            StoredBody::Cut(body) => compact(table, &head, e.seat, body, e.signature)?,
            StoredBody::Whole(body) => whole(1, body),
            StoredBody::Carried(body) => compact(table, &head, e.seat, body, e.signature)?,
            StoredBody::Whole2(body) => whole(2, body),
            StoredBody::Derived(_) | StoredBody::Opened => {
                return Err(FrameError::Decode(
                    "a stored step leaves out what only a stored run may".into(),
                ));
            }
        };
        env.carriage()?;
        entries.push(env);
    }
    if stored_step(table, &entries).as_deref() != Some(bytes) {
        return Err(FrameError::NotCanonical);
    }
    Ok(entries)
}

/// The first byte of a run of steps in its stored form ([`stored_run`]); apart from
/// [`STORED_STEP`] and a postcard `Record`'s variant index.
pub const STORED_RUN: u8 = 0xC6;

/// The first byte of a run of steps in its stored form since finished hands leave out what
/// their reveals derive ([`stored_run`]); a run that starts with [`STORED_RUN`] is one written
/// before, read as it was written.
pub const STORED_RUN_DERIVED: u8 = 0xC8;

/// Whether `bytes` start like a stored run ([`STORED_RUN`] or [`STORED_RUN_DERIVED`]).
pub fn is_stored_run(bytes: &[u8]) -> bool {
    matches!(bytes.first(), Some(&STORED_RUN | &STORED_RUN_DERIVED))
}

/// A step of a stored run: its previous hash only where it is not the log hash through the
/// step before it in the run.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct RunStep {
    hand: u32,
    seq: u32,
    prev_hash: Option<Hash>,
    entries: Vec<StoredEntry>,
}

/// The stored form of consecutive steps of table `table` (each one's envelopes in seat
/// order, as [`stored_step`] takes them): [`STORED_RUN`], then each step as [`stored_step`]
/// keeps it, except that a step's previous hash is left out when it is the log hash through
/// the step before it ([`chain`]), as it is in a log without gaps; the first step keeps its
/// own. A finished hand kept as one run costs its journal one row instead of one a step (the
/// row's table id, seat and index entry) and 32 bytes a step. Written as
/// [`STORED_RUN_DERIVED`], it also leaves out, losslessly:
/// - in a hand whose four end-of-hand reveals are in the run, each version-2 deal message
///   they derive byte for byte: a shuffle's wall (its proof is kept) and a decryption share
///   with its proof (module `derived`);
/// - a version-2 claim commitment that its seat's opening in the next step opens.
///
/// `None` when a step cannot be stored by [`stored_step`] or the run is empty.
/// [`from_stored_run`] gives back the same envelopes, so their signatures and the log's
/// hashes are checked over the bytes that were signed.
pub fn stored_run(table: &[u8; 32], steps: &[Vec<Envelope>]) -> Option<Vec<u8>> {
    let hands = derived::Hands::of_envelopes(table, steps);
    run_bytes(table, steps, Some(hands)).map(|(bytes, _)| bytes)
}

/// [`stored_run`] with the derivations of the run's finished hands at hand; with `None`, the
/// form of [`STORED_RUN`], which leaves nothing out. Gives the derivations back.
fn run_bytes(
    table: &[u8; 32],
    steps: &[Vec<Envelope>],
    mut hands: Option<derived::Hands>,
) -> Option<(Vec<u8>, Option<derived::Hands>)> {
    let mut run = Vec::with_capacity(steps.len());
    let mut after: Option<Hash> = None;
    for (i, entries) in steps.iter().enumerate() {
        let bytes = stored_step(table, entries)?;
        let step: StoredStep = decode_value(bytes.get(1..)?).ok()?;
        let prev_hash = (after != Some(step.prev_hash)).then_some(step.prev_hash);
        after = Some(chain(&step.prev_hash, step.seq, entries));
        let opened = steps
            .get(i + 1)
            .filter(|_| hands.is_some())
            .map(|next| {
                // Version 2's only: a stored run keeps no other as `Whole2` or `Carried`.
                let v2 = next.iter().filter(|e| e.version == 2);
                openings(v2.map(|e| (e.hand, e.seq, e.seat, &e.body)))
            })
            .unwrap_or_default();
        let entries = step
            .entries
            .into_iter()
            .map(|e| {
                let body = match e.body {
                    StoredBody::Whole2(Body::ClaimCommit { commitment })
                        if opened.contains(&(
                            step.hand,
                            step.seq.wrapping_add(1),
                            e.seat,
                            commitment,
                        )) =>
                    {
                        StoredBody::Opened
                    }
                    body => match hands.as_mut() {
                        Some(hands) => hands.leave_out(step.hand, e.seat, body),
                        None => body,
                    },
                };
                StoredEntry { body, ..e }
            })
            .collect();
        run.push(RunStep {
            hand: step.hand,
            seq: step.seq,
            prev_hash,
            entries,
        });
    }
    if run.is_empty() {
        return None;
    }
    let tag = match hands {
        Some(_) => STORED_RUN_DERIVED,
        None => STORED_RUN,
    };
    let mut out = vec![tag];
    out.extend_from_slice(&encode_value(&run));
    Some((out, hands))
}

/// The steps of a run stored by [`stored_run`] for table `table`, each its envelopes (what
/// a finished hand's reveals derive made again first). Refuses bytes that are not the stored
/// form it makes of what they decode to (a first step without its previous hash among them,
/// a message left out that could have been kept, or one kept that is left out).
pub fn from_stored_run(table: &[u8; 32], bytes: &[u8]) -> Result<Vec<Vec<Envelope>>, FrameError> {
    let (derives, rest) = match bytes.split_first() {
        Some((&STORED_RUN_DERIVED, rest)) => (true, rest),
        Some((&STORED_RUN, rest)) => (false, rest),
        _ => return Err(FrameError::Decode("not a stored run".into())),
    };
    let mut run: Vec<RunStep> = decode_value(rest)?;
    // Nothing was left out of a run written before: refused below if anything is.
    let mut hands = if derives {
        derived::Hands::of_stored(table, &run)
    } else {
        derived::Hands::none()
    };
    for step in &mut run {
        for e in &mut step.entries {
            let body = std::mem::replace(&mut e.body, StoredBody::Opened);
            e.body = hands.make_again(step.hand, e.seat, body)?;
        }
    }
    // What each step's openings open, for the commitments of the step before.
    let opened: Vec<Vec<(u32, u32, Seat, Hash)>> = run
        .iter()
        .map(|step| {
            let opening = |e: &StoredEntry| {
                let commitment = match &e.body {
                    StoredBody::Whole2(Body::ClaimOpen { play, nonce }) => {
                        claim_commitment(play, nonce)
                    }
                    StoredBody::Carried(CompactBody::ClaimOpen { play, nonce }) => {
                        let seat = SeatIndex::new(e.seat)?;
                        claim_commitment(&play.clone().into_play(*table, step.hand, seat), nonce)
                    }
                    _ => return None,
                };
                Some((step.hand, step.seq, e.seat, commitment))
            };
            step.entries.iter().filter_map(opening).collect()
        })
        .collect();
    let mut steps = Vec::with_capacity(run.len());
    let mut after: Option<Hash> = None;
    for (i, step) in run.into_iter().enumerate() {
        let prev_hash = step.prev_hash.or(after).ok_or_else(|| {
            FrameError::Decode("a stored run's first step has no previous hash".into())
        })?;
        let mut stored = Vec::with_capacity(step.entries.len());
        for e in step.entries {
            let body = match e.body {
                StoredBody::Opened => {
                    let commitment = opened
                        .get(i + 1)
                        .and_then(|next| {
                            next.iter().find(|&&(h, q, s, _)| {
                                (h, q, s) == (step.hand, step.seq.wrapping_add(1), e.seat)
                            })
                        })
                        .map(|&(_, _, _, c)| c)
                        .ok_or_else(|| {
                            FrameError::Decode(format!(
                                "a stored run leaves out the claim commitment of seat {} at \
                                 step {} without its opening in the next step",
                                e.seat, step.seq
                            ))
                        })?;
                    StoredBody::Whole2(Body::ClaimCommit { commitment })
                }
                body => body,
            };
            stored.push(StoredEntry { body, ..e });
        }
        let mut one = vec![STORED_STEP];
        one.extend_from_slice(&encode_value(&StoredStep {
            hand: step.hand,
            seq: step.seq,
            prev_hash,
            entries: stored,
        }));
        let entries = from_stored_step(table, &one)?;
        after = Some(chain(&prev_hash, step.seq, &entries));
        steps.push(entries);
    }
    let again = run_bytes(table, &steps, derives.then_some(hands));
    if again.as_ref().map(|(b, _)| b.as_slice()) != Some(bytes) {
        return Err(FrameError::NotCanonical);
    }
    Ok(steps)
}

/// What the claim openings among `entries` (hand, step, seat, body) open: for each, its
/// hand, step, seat and [`claim_commitment`].
fn openings<'a>(
    entries: impl Iterator<Item = (u32, u32, Seat, &'a Body)>,
) -> Vec<(u32, u32, Seat, Hash)> {
    entries
        .filter_map(|(hand, seq, seat, body)| match body {
            Body::ClaimOpen { play, nonce } => {
                Some((hand, seq, seat, claim_commitment(play, nonce)))
            }
            _ => None,
        })
        .collect()
}

/// The log hash through step `seq` from the hash through the step before and the step's
/// envelopes (in seat order).
pub fn chain(prev: &Hash, seq: u32, entries: &[Envelope]) -> Hash {
    let mut h = Sha256::new();
    h.update(domain_tag("chain"));
    h.update(prev);
    h.update(seq.to_le_bytes());
    h.update((entries.len() as u32).to_le_bytes());
    for e in entries {
        h.update(e.id());
    }
    h.finalize().into()
}

/// The log hash before the first step of a table: `sha256(tag ‖ table id)`.
pub fn genesis(table: &[u8; 32]) -> Hash {
    tagged_hash("genesis", table)
}

/// `u16 LE length ‖ "mahjong-table/v1/" ‖ label`.
pub(crate) fn domain_tag(label: &str) -> Vec<u8> {
    let text = format!("mahjong-table/v1/{label}");
    let mut out = (text.len() as u16).to_le_bytes().to_vec();
    out.extend_from_slice(text.as_bytes());
    out
}

/// `sha256(domain tag ‖ bytes)`.
pub(crate) fn tagged_hash(label: &str, bytes: &[u8]) -> Hash {
    let mut h = Sha256::new();
    h.update(domain_tag(label));
    h.update((bytes.len() as u64).to_le_bytes());
    h.update(bytes);
    h.finalize().into()
}

/// Postcard encoding of a value of this crate's types (these never fail to encode: no maps
/// of unknown length, no `serialize_any`); an empty vector in the impossible failure case.
pub(crate) fn encode_value<T: Serialize + ?Sized>(value: &T) -> Vec<u8> {
    postcard::to_allocvec(value).unwrap_or_default()
}

/// Postcard decoding from a bounded slice with no size hints (see the module header); the
/// whole input must be used.
pub(crate) fn decode_value<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> Result<T, FrameError> {
    let mut de = postcard::Deserializer::from_flavor(NoHint {
        inner: postcard::de_flavors::Slice::new(bytes),
    });
    let value = T::deserialize(&mut de).map_err(|e| FrameError::Decode(e.to_string()))?;
    let rest = de
        .finalize()
        .map_err(|e| FrameError::Decode(e.to_string()))?;
    if !rest.is_empty() {
        return Err(FrameError::Trailing(rest.len()));
    }
    Ok(value)
}

/// A postcard input flavor over a slice that reports a size hint of zero, so serde never
/// pre-allocates a sequence from its (untrusted) length prefix.
struct NoHint<'de> {
    inner: postcard::de_flavors::Slice<'de>,
}

impl<'de> postcard::de_flavors::Flavor<'de> for NoHint<'de> {
    type Remainder = &'de [u8];
    type Source = &'de [u8];

    fn pop(&mut self) -> postcard::Result<u8> {
        self.inner.pop()
    }

    fn size_hint(&self) -> Option<usize> {
        // postcard compares this with a sequence's claimed length and passes no hint on
        // when it is smaller: with 0, every `Vec` starts empty and grows as it decodes.
        Some(0)
    }

    fn try_take_n(&mut self, ct: usize) -> postcard::Result<&'de [u8]> {
        self.inner.try_take_n(ct)
    }

    fn finalize(self) -> postcard::Result<&'de [u8]> {
        self.inner.finalize()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn key(i: u8) -> SigningKey {
        SigningKey::from_bytes(&[i; 32])
    }

    fn sample() -> Envelope {
        let header = Header {
            hand: 3,
            seq: 17,
            prev_hash: [9; 32],
        };
        Envelope::sign(
            [1; 32],
            header,
            2,
            Body::Request {
                from_seq: 5,
                have: 0,
            },
            &key(2),
        )
    }

    #[test]
    fn round_trip_and_signature() {
        let e = sample();
        let bytes = e.encode();
        let back = Envelope::decode(&bytes).unwrap();
        assert_eq!(back, e);
        back.verify(&key(2).verifying_key()).unwrap();
        assert!(matches!(
            back.verify(&key(3).verifying_key()),
            Err(FrameError::BadSignature { seat: 2 })
        ));
    }

    #[test]
    fn refuses_oversized_trailing_and_non_canonical() {
        let bytes = sample().encode();
        let mut long = bytes.clone();
        long.push(0);
        assert!(matches!(
            Envelope::decode(&long),
            Err(FrameError::Trailing(1))
        ));
        assert!(matches!(
            Envelope::decode(&vec![0; MAX_FRAME + 1]),
            Err(FrameError::TooLarge { .. })
        ));
        // A non-canonical varint for `hand` (3 as 0x83 0x00); version is one byte.
        let mut nc = bytes[..1 + 32].to_vec();
        nc.extend_from_slice(&[0x83, 0x00]);
        nc.extend_from_slice(&bytes[1 + 32 + 1..]);
        assert!(Envelope::decode(&nc).is_err());
    }

    #[test]
    fn huge_length_prefix_does_not_allocate() {
        // A deal body claiming 2^32 - 1 messages: refused without a large allocation.
        let mut bytes = sample().encode();
        bytes.truncate(1 + 32 + 1 + 1 + 32 + 1);
        bytes.push(3); // Body::Deal
        bytes.extend_from_slice(&[0xff, 0xff, 0xff, 0xff, 0x0f]);
        assert!(matches!(
            Envelope::decode(&bytes),
            Err(FrameError::Decode(_))
        ));
    }

    /// A deal envelope with two deal messages of its own seat (a commit and a reveal).
    /// An envelope of `version` signed by `seat`'s key.
    fn signed(version: u16, header: Header, seat: Seat, body: Body) -> Envelope {
        let mut e = Envelope::sign([1; 32], header, seat, body, &key(seat));
        e.version = version;
        e.signature = key(seat).sign(&e.signing_bytes());
        e
    }

    /// Seat 2's deal messages `ctx` names, carried or signed, in an envelope of `version`.
    fn deal_envelope_of(
        version: u16,
        carried: bool,
        inner_table: [u8; 32],
        inner_hand: u32,
    ) -> Envelope {
        use mahjong_deal::{Body as D, HandContext, Message, SeedCommit, SeedReveal};
        let ctx = HandContext {
            table: inner_table,
            hand: inner_hand,
        };
        let seat = SeatIndex::new(2).unwrap();
        let bodies = [
            D::Commit(SeedCommit {
                commitment: [3; 32],
            }),
            D::Reveal(SeedReveal {
                seed: [4; 32],
                nonce: [5; 32],
            }),
        ];
        let msgs = bodies
            .into_iter()
            .map(|b| {
                let m = Message::new(&ctx, seat, b);
                if carried {
                    SignedMessage::carried(m)
                } else {
                    m.sign(&key(2)).unwrap()
                }
            })
            .collect();
        let header = Header {
            hand: 3,
            seq: 17,
            prev_hash: [9; 32],
        };
        signed(version, header, 2, Body::Deal(msgs))
    }

    /// Seat 2's deal messages as this crate sends them (envelope version 2, carried).
    fn deal_envelope(inner_table: [u8; 32], inner_hand: u32) -> Envelope {
        deal_envelope_of(VERSION, true, inner_table, inner_hand)
    }

    #[test]
    fn a_compact_frame_is_the_same_envelope_in_fewer_bytes() {
        // Envelope version 2 (carried deal messages) and version 1 (each one signed).
        let v1 = deal_envelope_of(1, false, [1; 32], 3);
        for (e, mark, saved) in [
            // 35 bytes a deal message (its version, table, hand and seat; the mark takes the
            // version's byte), and in version 2 its 64 bytes of the carried mark too.
            (deal_envelope([1; 32], 3), COMPACT_FRAME_2, 2 * (35 + 64)),
            (v1, COMPACT_FRAME, 2 * 35),
        ] {
            let (full, frame) = (e.encode(), e.frame());
            assert_eq!(frame[0], mark);
            assert_eq!(full.len() - frame.len(), saved);
            let back = Envelope::decode(&frame).unwrap();
            assert_eq!(back, e);
            assert_eq!(back.id(), e.id());
            back.verify(&key(2).verifying_key()).unwrap();
            // The full encoding still decodes (old frames, the journal, exports).
            assert_eq!(Envelope::decode(&full).unwrap(), e);
            // Trailing bytes are refused.
            let mut long = frame.clone();
            long.push(0);
            assert!(Envelope::decode(&long).is_err());
        }
        // Any other envelope is sent in full.
        let plain = sample();
        assert_eq!(plain.frame(), plain.encode());
        assert_eq!(Envelope::decode(&plain.frame()).unwrap(), plain);
    }

    #[test]
    fn a_deal_message_is_carried_only_by_a_protocol_2_envelope_of_its_own_seat() {
        // Signed messages in a version-2 envelope: sent in full, read, checked by the deal
        // crate as signed messages.
        let signed2 = deal_envelope_of(2, false, [1; 32], 3);
        assert_eq!(signed2.frame(), signed2.encode());
        assert_eq!(Envelope::decode(&signed2.frame()).unwrap(), signed2);
        // Carried messages in a version-1 envelope: nothing would authenticate them.
        let carried1 = deal_envelope_of(1, true, [1; 32], 3);
        let e = Envelope::decode(&carried1.encode()).unwrap_err();
        assert!(e.to_string().contains("unsigned deal message"), "{e}");
        // Another seat's carried message in a version-2 envelope: refused, in full or
        // compact form, from the wire or the store.
        let mut other = deal_envelope([1; 32], 3);
        let Body::Deal(ms) = &mut other.body else {
            unreachable!()
        };
        ms[1].message.seat = SeatIndex::new(1).unwrap();
        let other = signed(2, other.header(), 2, other.body.clone());
        assert_eq!(other.frame(), other.encode());
        let e = Envelope::decode(&other.encode()).unwrap_err();
        assert!(
            e.to_string()
                .contains("of seat 2 carries an unsigned deal message of seat 1")
        );
        // A version this crate does not read.
        let v3 = signed(3, sample().header(), 2, sample().body);
        assert!(matches!(
            Envelope::decode(&v3.encode()),
            Err(FrameError::Version(3))
        ));
    }

    #[test]
    fn deal_messages_of_another_table_or_hand_go_in_full() {
        for e in [deal_envelope([7; 32], 3), deal_envelope([1; 32], 4)] {
            let frame = e.frame();
            assert_eq!(frame, e.encode());
            assert_eq!(Envelope::decode(&frame).unwrap(), e);
        }
    }

    #[test]
    fn a_stored_step_gives_back_its_envelopes() {
        let deal = deal_envelope([1; 32], 3);
        let plain = Envelope::sign(
            [1; 32],
            deal.header(),
            0,
            Body::ClaimCommit {
                commitment: [8; 32],
            },
            &key(0),
        );
        // A step of version-1 and version-2 envelopes (an old journal's hand finished by
        // a newer client).
        let old = deal_envelope_of(1, false, [1; 32], 3);
        let entries = vec![plain, deal, old];
        let bytes = stored_step(&[1; 32], &entries).unwrap();
        let full: usize = entries.iter().map(|e| e.encode().len()).sum();
        assert!(bytes.len() + 100 < full, "{} against {full}", bytes.len());
        assert_eq!(from_stored_step(&[1; 32], &bytes).unwrap(), entries);
        // Another table's envelopes, or two step headers, are not stored this way.
        assert!(stored_step(&[2; 32], &entries).is_none());
        let other = Envelope::sign(
            [1; 32],
            Header {
                seq: 18,
                ..entries[0].header()
            },
            1,
            Body::Decline,
            &key(1),
        );
        assert!(stored_step(&[1; 32], &[entries[0].clone(), other]).is_none());
        // Read back for another table, the signatures no longer hold.
        let moved = from_stored_step(&[2; 32], &bytes).unwrap();
        assert!(moved[0].verify(&key(0).verifying_key()).is_err());
        // A flipped byte never gives back the same envelopes.
        for i in 0..bytes.len() {
            let mut m = bytes.clone();
            m[i] ^= 0x40;
            if let Ok(back) = from_stored_step(&[1; 32], &m) {
                assert_ne!(back, entries, "byte {i}");
            }
        }
    }

    #[test]
    fn a_stored_run_gives_back_its_steps_and_keeps_only_the_first_previous_hash() {
        let table = [1; 32];
        let first = deal_envelope(table, 3);
        let step = |header: Header, seat: Seat| {
            Envelope::sign(
                table,
                header,
                seat,
                Body::ClaimCommit {
                    commitment: [seat; 32],
                },
                &key(seat),
            )
        };
        let one = vec![step(first.header(), 0), first.clone()];
        let two_header = Header {
            hand: first.hand,
            seq: first.seq + 1,
            prev_hash: chain(&first.prev_hash, first.seq, &one),
        };
        let two = vec![step(two_header, 1), step(two_header, 2)];
        // A step after a gap (its previous hash not the chain's) keeps its own.
        let three = vec![step(
            Header {
                hand: first.hand,
                seq: first.seq + 5,
                prev_hash: [9; 32],
            },
            3,
        )];
        let steps = vec![one, two, three];
        let bytes = stored_run(&table, &steps).unwrap();
        assert_eq!(bytes[0], STORED_RUN_DERIVED);
        // A run written before (nothing of a hand left out) reads back the same, and is not
        // mistaken for the new form, nor the new one for it.
        let (old, _) = run_bytes(&table, &steps, None).unwrap();
        assert_eq!(old[0], STORED_RUN);
        assert_eq!(old[1..], bytes[1..], "nothing here derives: the same steps");
        assert_eq!(from_stored_run(&table, &old).unwrap(), steps);
        let apart: usize = steps
            .iter()
            .map(|s| stored_step(&table, s).unwrap().len())
            .sum();
        // One hash left out (the second step's, less a byte a step saying whether it is
        // there); the third keeps its own.
        assert!(
            bytes.len() + 32 - steps.len() <= apart,
            "{} against {apart}",
            bytes.len()
        );
        assert!(bytes.len() + 64 > apart, "{} against {apart}", bytes.len());
        assert_eq!(from_stored_run(&table, &bytes).unwrap(), steps);
        assert!(stored_run(&table, &[]).is_none());
        assert!(stored_run(&[2; 32], &steps).is_none());
        // A flipped byte never gives back the same steps; a cut run never decodes.
        for i in 0..bytes.len() {
            let mut m = bytes.clone();
            m[i] ^= 0x40;
            if let Ok(back) = from_stored_run(&table, &m) {
                assert_ne!(back, steps, "byte {i}");
            }
            assert!(from_stored_run(&table, &bytes[..i]).is_err(), "cut at {i}");
        }
    }

    #[test]
    fn every_mutated_compact_frame_fails_or_changes_the_envelope() {
        let e = deal_envelope([1; 32], 3);
        let frame = e.frame();
        for i in 0..frame.len() {
            for mask in [0x01u8, 0x80] {
                let mut m = frame.clone();
                m[i] ^= mask;
                if let Ok(d) = Envelope::decode(&m) {
                    assert!(
                        d != e,
                        "byte {i} mask {mask:#x} decodes to the same envelope"
                    );
                }
            }
        }
    }
}
