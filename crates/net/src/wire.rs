//! The wire: protocol names, the messages peers exchange, and their framing.
//!
//! One libp2p stream per direction and peer carries [`Wire`] messages, each a 4-byte
//! big-endian length followed by its `postcard` encoding (the same stable format as the table's
//! envelopes; a table frame travels without the table id it repeats:
//! [`FRAME_WITHOUT_TABLE`]). A message is at most [`MAX_MESSAGE`] bytes: a table frame
//! ([`mahjong_table::MAX_FRAME`]) plus a small header. A length above that, or bytes that do
//! not decode, end the stream and the peer is disconnected ([`WireError`]); nothing is ever
//! allocated past the limit, and a message's buffer grows as its bytes arrive (not to its
//! declared length up front). Once a message's first byte came, the rest must come within
//! [`READ_DEADLINE`] ([`read_message_within`]; [`WireError::Slow`]).
//!
//! The protocol name carries the version ([`PROTOCOL`]); identify announces it as the protocol
//! version ([`PROTOCOL_VERSION`]), so a peer of another version is told so in one line rather
//! than failing to open a stream in silence.

use ed25519_dalek::{Signature, Signer, SigningKey, Verifier, VerifyingKey};
use futures::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use mahjong_rules::{Money, Options, Ruleset, Seat, SessionLength};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::time::Duration;

/// The version of the lobby and table wire protocol (2: adverts signed by their host and
/// relayed by the peers seated at the table; 3: watchers and table talk; 4: envelope version 2,
/// whose envelopes carry deal messages without signatures of their own).
pub const WIRE_VERSION: u32 = 4;

/// The protocol name of the streams (lobby and table messages), version included.
pub const PROTOCOL: &str = "/shanghai-mahjong/4";

/// What identify announces: peers that announce anything else are of another version.
pub const PROTOCOL_VERSION: &str = "shanghai-mahjong/4";

/// Most watchers a table's host serves at once. Each costs the host one more copy of the
/// table's signed log as it is played (about what a seat receives: see docs/watching.md);
/// eight keep that within a home upload while a hand is dealt, and are more than the friends
/// who drop in on one table in an evening.
pub const MAX_WATCHERS: usize = 8;

/// Most characters of a chat line ([`Chat::text`]).
pub const MAX_CHAT_CHARS: usize = 200;

/// Most peers a `Join` names as not to sit with ([`Wire::Join`]).
pub const MAX_JOIN_AVOID: usize = 16;

/// Largest message on the wire: one table frame plus the [`Wire::Frame`] header.
pub const MAX_MESSAGE: usize = mahjong_table::MAX_FRAME + 256;

/// A table id (the lobby's; the table's `Config::table`).
pub type TableId = [u8; 32];

/// Lower-case hex of bytes.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A stream that broke the wire rules.
#[derive(Debug, thiserror::Error)]
pub enum WireError {
    /// A length prefix above [`MAX_MESSAGE`].
    #[error("message of {0} bytes is over the {MAX_MESSAGE}-byte limit")]
    TooLarge(usize),
    /// Bytes that are not a [`Wire`] message.
    #[error("message does not decode: {0}")]
    Garbage(String),
    /// A message begun and not finished within the deadline.
    #[error("a message begun was not finished within {} ms", .0.as_millis())]
    Slow(Duration),
    /// The connection failed or closed.
    #[error("stream: {0}")]
    Io(#[from] std::io::Error),
}

/// A seat as the lobby shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatInfo {
    /// The seat's table signing key.
    pub key: VerifyingKey,
    /// The player's name (a bot: "bot of NAME").
    pub name: String,
    /// The identity key of the peer that runs this seat (its human, or the bot's controller).
    pub peer: VerifyingKey,
    /// A bot seat.
    pub bot: bool,
}

/// Where an open table stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TableState {
    /// Seats free.
    Open,
    /// Four seats taken and the roster fixed.
    Started,
    /// The host gave it up (it moved to a table with a lower id, or left).
    Closed,
}

/// The id of the table `host` opens with `nonce`: `sha256(tag ‖ host ‖ nonce)`. A table id is
/// bound to its host: no other peer can advertise or sign a roster for it, and a host that
/// reuses one finds it in every store that saw it (a table is never rewritten).
pub fn table_id(host: &VerifyingKey, nonce: &[u8; 32]) -> TableId {
    let mut h = Sha256::new();
    h.update(b"shanghai-mahjong/table-id/2");
    h.update(host.as_bytes());
    h.update(nonce);
    h.finalize().into()
}

/// A table as its host advertises it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Advert {
    /// The table id: [`table_id`] of the host and the nonce.
    pub table: TableId,
    /// The host's identity key.
    pub host: VerifyingKey,
    /// The host's random nonce the id derives from.
    pub nonce: [u8; 32],
    /// The table's name.
    pub name: String,
    /// The preset.
    pub preset: Ruleset,
    /// `sha256(Options::canonical_bytes())` of the options the host will propose.
    pub options_hash: [u8; 32],
    /// Coins per point.
    pub stake: Money,
    /// Hands to play.
    pub hands: u32,
    /// Seats that will be bots (filled when the humans are seated).
    pub bots: u8,
    /// Seats taken, in seat order.
    pub seats: [Option<SeatInfo>; 4],
    /// Where it stands.
    pub state: TableState,
    /// Bumped at every change (the newest advert wins).
    pub revision: u64,
    /// Hosted by a person who chose it (the app's lobby), not opened by a peer on its own: at
    /// an equal count of players, peers that choose on their own prefer it.
    pub chosen: bool,
}

impl Advert {
    /// Whether the table id is the one its host and nonce give.
    pub fn id_is_bound(&self) -> bool {
        table_id(&self.host, &self.nonce) == self.table
    }

    /// Whether the table's and every seat's name is shown as it is
    /// ([`mahjong_store::is_clean_name`]).
    pub fn is_clean(&self) -> bool {
        mahjong_store::is_clean_name(&self.name)
            && self
                .seats
                .iter()
                .flatten()
                .all(|s| mahjong_store::is_clean_name(&s.name))
    }

    /// Humans seated.
    pub fn humans(&self) -> usize {
        self.seats.iter().flatten().filter(|s| !s.bot).count()
    }

    /// Human seats still free.
    pub fn free(&self) -> usize {
        (4 - self.bots as usize).saturating_sub(self.humans())
    }

    /// What a seat at this table agrees to.
    pub fn terms(&self) -> Terms {
        Terms {
            preset: self.preset,
            options_hash: self.options_hash,
            stake: self.stake,
            hands: self.hands,
        }
    }

    /// Whether a peer that agrees to `terms` could sit at this table.
    pub fn fits(&self, terms: &Terms) -> bool {
        self.state == TableState::Open && self.free() > 0 && self.terms() == *terms
    }
}

/// An advert under its host's signature. Peers keep and pass on only signed adverts: a peer
/// seated at a table passes the host's newest advert of it to every peer it knows, so a host
/// that tells two peers two stories (seats each joiner alone, drops a seated peer who did not
/// leave, two adverts of one revision) is caught by the peers it lied to
/// (`crate::lobby`'s rules).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignedAdvert {
    /// The advert.
    pub advert: Advert,
    /// The host's signature over [`SignedAdvert::digest`].
    pub signature: Signature,
}

impl SignedAdvert {
    fn digest(advert: &Advert) -> [u8; 32] {
        let mut h = Sha256::new();
        h.update(b"shanghai-mahjong/advert/1");
        h.update(postcard::to_allocvec(advert).unwrap_or_default());
        h.finalize().into()
    }

    /// The host signs its advert.
    pub fn sign(advert: Advert, key: &SigningKey) -> SignedAdvert {
        let signature = key.sign(&SignedAdvert::digest(&advert));
        SignedAdvert { advert, signature }
    }

    /// Whether the advert is its host's word: the host's signature, and the table id bound
    /// to the host.
    pub fn verify(&self) -> bool {
        self.advert.id_is_bound()
            && self
                .advert
                .host
                .verify(&SignedAdvert::digest(&self.advert), &self.signature)
                .is_ok()
    }
}

/// What a peer agrees to play for: the preset, the hash of every option (points, penalties,
/// timers), the stake and the length. A table is joined only when its advert's terms are the
/// peer's, its roster only when they are unchanged, and the host's proposal accepted only when
/// it is exactly these terms ([`Terms::check`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Terms {
    /// The preset.
    pub preset: Ruleset,
    /// `sha256(Options::canonical_bytes())` of the options.
    pub options_hash: [u8; 32],
    /// Coins per point.
    pub stake: Money,
    /// Hands to play.
    pub hands: u32,
}

impl Terms {
    /// The terms of `options` at `stake` for `hands` hands.
    pub fn of(options: &Options, stake: Money, hands: u32) -> Terms {
        Terms {
            preset: options.ruleset,
            options_hash: mahjong_table::codec::options_hash(options),
            stake,
            hands,
        }
    }

    /// Whether the host's proposal is exactly these terms; otherwise what differs, in one
    /// line (the seat declines it).
    pub fn check(&self, p: &mahjong_table::Proposal) -> Result<(), TermsError> {
        if p.preset != self.preset || p.options.ruleset != self.preset {
            return Err(TermsError::Preset {
                proposed: p.options.ruleset,
                agreed: self.preset,
            });
        }
        if mahjong_table::codec::options_hash(&p.options) != self.options_hash
            || p.options_hash != self.options_hash
        {
            return Err(TermsError::Options);
        }
        if p.stake != self.stake {
            return Err(TermsError::Stake {
                proposed: p.stake,
                agreed: self.stake,
            });
        }
        if p.length != SessionLength::Hands(self.hands) {
            return Err(TermsError::Length {
                proposed: p.length,
                agreed: self.hands,
            });
        }
        Ok(())
    }
}

/// How the host's proposal differs from the terms agreed ([`Terms::check`]): the seat
/// declines it, saying this.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TermsError {
    /// Another preset.
    #[error("the host proposes the {proposed} preset, not the {agreed} agreed")]
    Preset {
        /// The preset of the options proposed.
        proposed: Ruleset,
        /// The preset agreed.
        agreed: Ruleset,
    },
    /// Other options of the preset.
    #[error(
        "the host proposes other options than the ones agreed (points, penalties or timers differ)"
    )]
    Options,
    /// Another stake.
    #[error("the host proposes a stake of {proposed}, not the {agreed} agreed")]
    Stake {
        /// The stake proposed.
        proposed: Money,
        /// The stake agreed.
        agreed: Money,
    },
    /// Another length of session.
    #[error("the host proposes {proposed:?}, not the {agreed} hands agreed")]
    Length {
        /// The length proposed.
        proposed: SessionLength,
        /// The hands agreed.
        agreed: u32,
    },
}

/// Why a roster is not its host's word on a full table ([`Roster::verify`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RosterError {
    /// The host's signature does not verify.
    #[error("the roster's signature is not the host's")]
    Signature,
    /// The table id is not bound to the host's key.
    #[error("the roster's table id is not its host's")]
    TableId,
    /// A seat is free.
    #[error("the roster has a free seat")]
    FreeSeat,
    /// The host's seat is out of range.
    #[error("the host seat is not 0..=3")]
    HostSeat,
    /// The host's seat is not the host's, or is a bot.
    #[error("the host does not sit at its seat")]
    HostNotSeated,
}

/// The fixed roster of a table: the host's signed word on who sits where and who runs which
/// bot. It becomes every seat's `mahjong_table::Config`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Roster {
    /// The advert at the moment the table filled (every seat taken).
    pub advert: Advert,
    /// The host's seat (it proposes the set-up).
    pub host_seat: Seat,
    /// The host's signature over `roster_digest`.
    pub signature: Signature,
}

impl Roster {
    fn digest(advert: &Advert, host_seat: Seat) -> [u8; 32] {
        let mut h = Sha256::new();
        h.update(b"shanghai-mahjong/roster/1");
        h.update(postcard::to_allocvec(advert).unwrap_or_default());
        h.update([host_seat]);
        h.finalize().into()
    }

    /// The host signs the full advert.
    pub fn sign(advert: Advert, host_seat: Seat, key: &SigningKey) -> Roster {
        let signature = key.sign(&Roster::digest(&advert, host_seat));
        Roster {
            advert,
            host_seat,
            signature,
        }
    }

    /// Checks the host's signature, that every seat is taken and that the host sits where
    /// it says. Returns the four seats.
    pub fn verify(&self) -> Result<[SeatInfo; 4], RosterError> {
        self.advert
            .host
            .verify(
                &Roster::digest(&self.advert, self.host_seat),
                &self.signature,
            )
            .map_err(|_| RosterError::Signature)?;
        if !self.advert.id_is_bound() {
            return Err(RosterError::TableId);
        }
        let seats: Vec<SeatInfo> = self.advert.seats.iter().flatten().cloned().collect();
        let seats: [SeatInfo; 4] = seats.try_into().map_err(|_| RosterError::FreeSeat)?;
        let host = seats
            .get(self.host_seat as usize)
            .ok_or(RosterError::HostSeat)?;
        if host.key != self.advert.host || host.bot {
            return Err(RosterError::HostNotSeated);
        }
        Ok(seats)
    }

    /// The table's `Config` for `seat`.
    pub fn config(&self, seats: &[SeatInfo; 4], seat: Seat) -> mahjong_table::Config {
        mahjong_table::Config {
            table: self.advert.table,
            seat,
            roster: [0, 1, 2, 3].map(|i| seats[i].key),
            host: self.host_seat,
        }
    }
}

/// One message between peers.
// Messages live briefly (decoded, handled, dropped); a `Join`'s keys inline are fine.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Wire {
    /// Sent first on every stream: who this is.
    Hello {
        /// [`WIRE_VERSION`].
        version: u32,
        /// The player's name.
        name: String,
    },
    /// A host's table under its signature (sent by the host to every peer on connect and at
    /// every change, and passed on by the peers seated at it).
    Advert(Box<SignedAdvert>),
    /// Asks the host for a seat. `bot_keys[s]` is the key this peer would give a bot at seat
    /// `s` (the host picks one if it makes this peer run a bot).
    Join {
        /// The table.
        table: TableId,
        /// The player's name.
        name: String,
        /// The seat key of the player (its identity key).
        key: VerifyingKey,
        /// Per seat, the key of a bot this peer would run there.
        bot_keys: [VerifyingKey; 4],
        /// Peers this one will not sit with for a while (they failed a set-up with it lately),
        /// each with the milliseconds left: the host refuses them while this peer sits there
        /// (for that long at most), and this peer while one of them does (at most
        /// [`MAX_JOIN_AVOID`]).
        avoid: Vec<(VerifyingKey, u64)>,
    },
    /// The host cannot seat the peer.
    Refuse {
        /// The table.
        table: TableId,
        /// Why (full, closed, other settings).
        reason: String,
    },
    /// A seated peer gives up its seat before the table starts.
    Leave {
        /// The table.
        table: TableId,
    },
    /// The table is full: the signed roster (to every seated peer).
    Start(Box<Roster>),
    /// A table frame from one of the sender's seats for the seats in `to` (a bit per seat).
    /// A table frame names its table right after its first byte: on the wire those 32
    /// bytes, the same as `table`, are left out ([`FRAME_WITHOUT_TABLE`]); `bytes` is always
    /// the whole frame.
    #[serde(serialize_with = "frame_out", deserialize_with = "frame_in")]
    Frame {
        /// The table.
        table: TableId,
        /// Bit `s` set: for seat `s`.
        to: u8,
        /// The envelope bytes (at most `MAX_FRAME`).
        bytes: Vec<u8>,
    },
    /// A friend asks the table's host to watch `table`: every logged step from `from` on
    /// (as [`Wire::Frame`]s with no seat bit), then each step as it is logged. Sent again
    /// whenever the watcher has taken what it was sent (the host answers at most
    /// [`crate::node::WATCH_BATCH_BYTES`] a time, a few times a second).
    Watch {
        /// The table.
        table: TableId,
        /// The first step wanted.
        from: u32,
    },
    /// The host will not serve this watcher: why, in one line.
    WatchRefused {
        /// The table.
        table: TableId,
        /// Why (no watchers at this table, eight already, turned away).
        reason: String,
    },
    /// The host has sent the steps a [`Wire::Watch`] asked for, up to `next`.
    Watched {
        /// The table.
        table: TableId,
        /// The first step not sent.
        next: u32,
    },
    /// Who watches the table now, and what watchers may do (from its host to the seated
    /// peers and the watchers, at every change).
    Watchers {
        /// The table.
        table: TableId,
        /// The watchers' names.
        names: Vec<String>,
        /// Whether watchers may talk at the table.
        chat: bool,
    },
    /// A line of table talk under its sender's signature.
    Chat(Box<SignedChat>),
    /// A watcher stops watching `table` (its host sends it nothing more of it).
    Unwatch {
        /// The table.
        table: TableId,
    },
    /// Over the internet: proof that the sender knows the table code
    /// ([`crate::TableCode::proof`] from the sender's peer id to the receiver's). Sent first
    /// to a peer found under the code; nothing else is taken from it until it has sent its
    /// own.
    CodeProof {
        /// The MAC.
        mac: [u8; 32],
    },
    /// A [`Wire::Frame`] of the same table as the last `Frame` written on this stream, which
    /// is therefore not named again (32 bytes a frame: about 6 KB a seat a hand to each
    /// peer). `bytes` is the frame as [`Wire::Frame`] sends it, its table id left out
    /// ([`FRAME_WITHOUT_TABLE`]). Only ever sent on a stream that has carried a `Frame`, and
    /// only read there: the reader gives it back as that `Frame` ([`FrameContext`]).
    FrameAgain {
        /// Bit `s` set: for seat `s`.
        to: u8,
        /// The frame without its table id.
        bytes: Vec<u8>,
    },
}

/// The table of the last [`Wire::Frame`] one stream carried, on each end of it: a writer
/// sends the next frame of that table as a [`Wire::FrameAgain`] ([`FrameContext::outgoing`]),
/// a reader gives that back as the whole `Frame` ([`FrameContext::incoming`]). A stream's
/// messages arrive in the order written, so both ends agree on it; a new stream starts with
/// none.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameContext {
    table: Option<TableId>,
}

impl FrameContext {
    /// What to write for `wire`: a [`Wire::Frame`] of the stream's last table, as a
    /// [`Wire::FrameAgain`]; anything else as it is (a `Frame` of another table becomes the
    /// stream's last).
    pub fn outgoing<'a>(&mut self, wire: &'a Wire) -> std::borrow::Cow<'a, Wire> {
        use std::borrow::Cow;
        let Wire::Frame { table, to, bytes } = wire else {
            return Cow::Borrowed(wire);
        };
        if self.table == Some(*table)
            && let Some(stripped) = strip(table, bytes)
        {
            return Cow::Owned(Wire::FrameAgain {
                to: *to,
                bytes: stripped,
            });
        }
        self.table = Some(*table);
        Cow::Borrowed(wire)
    }

    /// `wire` as read: a [`Wire::FrameAgain`] given back as the [`Wire::Frame`] of the
    /// stream's last table (an error if there is none, or it does not make a frame of it).
    pub fn incoming(&mut self, wire: Wire) -> Result<Wire, WireError> {
        match wire {
            Wire::Frame { table, .. } => {
                self.table = Some(table);
                Ok(wire)
            }
            Wire::FrameAgain { to, bytes } => {
                let table = self.table.ok_or_else(|| {
                    WireError::Garbage("a frame again before any frame on its stream".into())
                })?;
                let bytes = unstrip(&table, &bytes).ok_or_else(|| {
                    WireError::Garbage("a frame again that is no table frame".into())
                })?;
                Ok(Wire::Frame { table, to, bytes })
            }
            other => Ok(other),
        }
    }
}

/// Why a line of talk is refused ([`SignedChat::verify`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ChatLineError {
    /// The sender's signature does not verify.
    #[error("a chat line not signed by its sender")]
    Signature,
    /// Empty, or over [`MAX_CHAT_CHARS`] characters.
    #[error("a chat line of {0} characters (1 to {MAX_CHAT_CHARS})")]
    Length(usize),
    /// Control, escape or bidi characters in the text or the name.
    #[error("a chat line with control, escape or bidi characters")]
    Characters,
}

/// A line of table talk: a quick phrase or up to [`MAX_CHAT_CHARS`] characters of text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chat {
    /// The table.
    pub table: TableId,
    /// The sender's identity key.
    pub from: VerifyingKey,
    /// The sender's name.
    pub name: String,
    /// The sender's count of lines at this table (a line is passed on once).
    pub number: u32,
    /// The line.
    pub text: String,
}

/// A [`Chat`] line signed by its sender: passed on by the table's host to the watchers
/// (and from a watcher to the seats), checked by every reader.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignedChat {
    /// The line.
    pub chat: Chat,
    /// The sender's signature over [`SignedChat::digest`].
    pub signature: Signature,
}

impl SignedChat {
    fn digest(chat: &Chat) -> [u8; 32] {
        let mut h = Sha256::new();
        h.update(b"shanghai-mahjong/chat/1");
        h.update(postcard::to_allocvec(chat).unwrap_or_default());
        h.finalize().into()
    }

    /// The sender signs its line.
    pub fn sign(chat: Chat, key: &SigningKey) -> SignedChat {
        let signature = key.sign(&SignedChat::digest(&chat));
        SignedChat { chat, signature }
    }

    /// Whether the line is its sender's word, within [`MAX_CHAT_CHARS`], and shown as it is
    /// (no control, escape or bidi characters: [`mahjong_store::clean_text`]).
    pub fn verify(&self) -> Result<(), ChatLineError> {
        self.chat
            .from
            .verify(&SignedChat::digest(&self.chat), &self.signature)
            .map_err(|_| ChatLineError::Signature)?;
        let n = self.chat.text.chars().count();
        if n == 0 || n > MAX_CHAT_CHARS {
            return Err(ChatLineError::Length(n));
        }
        if mahjong_store::clean_text(&self.chat.text, MAX_CHAT_CHARS) != self.chat.text
            || !mahjong_store::is_clean_name(&self.chat.name)
        {
            return Err(ChatLineError::Characters);
        }
        Ok(())
    }
}

impl Wire {
    /// The `postcard` bytes.
    pub fn encode(&self) -> Vec<u8> {
        postcard::to_allocvec(self).unwrap_or_default()
    }

    /// Decodes one message.
    pub fn decode(bytes: &[u8]) -> Result<Wire, WireError> {
        let wire: Wire =
            postcard::from_bytes(bytes).map_err(|e| WireError::Garbage(e.to_string()))?;
        if let Wire::Frame { bytes, .. } | Wire::FrameAgain { bytes, .. } = &wire
            && bytes.len() > mahjong_table::MAX_FRAME
        {
            return Err(WireError::TooLarge(bytes.len()));
        }
        Ok(wire)
    }
}

/// The first byte of a table frame on the wire without its table id. Every table frame
/// names its table right after its first byte (a full envelope after its version; a
/// compact one after [`mahjong_table::COMPACT_FRAME_2`] or, envelope version 1's,
/// [`mahjong_table::COMPACT_FRAME`]); that id is the [`Wire::Frame`]'s own `table`, so those
/// 32 bytes are left out and a byte of its own stands for the first byte:
/// [`FRAME_WITHOUT_TABLE`] for a compact frame of envelope version 1, [`FRAME_WITHOUT_TABLE`] + 1 for
/// a full one of the current protocol, [`FRAME_WITHOUT_TABLE`] + 3 for a compact one of the
/// current protocol. The receiver puts the first byte and the table back. A frame sent with
/// its own table id in place is refused, so that every message has one encoding.
pub const FRAME_WITHOUT_TABLE: u8 = 0xC2;

/// The first bytes of the table frames whose table id is left out on the wire, and the byte
/// each is sent as (no byte sent as is the first byte of any table frame).
const STRIPPED: [(u8, u8); 3] = [
    (mahjong_table::COMPACT_FRAME, FRAME_WITHOUT_TABLE),
    (mahjong_table::VERSION as u8, FRAME_WITHOUT_TABLE + 1),
    (mahjong_table::COMPACT_FRAME_2, FRAME_WITHOUT_TABLE + 3),
];
const _: () = assert!(mahjong_table::VERSION < 0x80, "a one-byte version varint");
const _: () = {
    let firsts = [
        mahjong_table::COMPACT_FRAME,
        mahjong_table::COMPACT_FRAME_2,
        mahjong_table::VERSIONS[0] as u8,
        mahjong_table::VERSIONS[1] as u8,
    ];
    let mut i = 0;
    while i < STRIPPED.len() {
        let mut j = 0;
        while j < firsts.len() {
            assert!(
                STRIPPED[i].1 != firsts[j],
                "a stripped frame's byte is a frame's own"
            );
            j += 1;
        }
        i += 1;
    }
};

/// `bytes` (a table frame of `table`) without its table id, its first byte the one that
/// stands for it ([`STRIPPED`]); `None` if it does not name `table` after a first byte that
/// can be stripped.
fn strip(table: &TableId, bytes: &[u8]) -> Option<Vec<u8>> {
    let (&first, rest) = bytes.split_first()?;
    let &(_, sent_as) = STRIPPED.iter().find(|(f, _)| *f == first)?;
    let rest = rest.strip_prefix(table.as_slice())?;
    let mut sent = Vec::with_capacity(1 + rest.len());
    sent.push(sent_as);
    sent.extend_from_slice(rest);
    Some(sent)
}

/// The frame [`strip`] made `bytes` of, given its table back; `None` if `bytes` is not one.
fn unstrip(table: &TableId, bytes: &[u8]) -> Option<Vec<u8>> {
    let (&first, rest) = bytes.split_first()?;
    let &(original, _) = STRIPPED.iter().find(|(_, s)| *s == first)?;
    let mut full = Vec::with_capacity(1 + table.len() + rest.len());
    full.push(original);
    full.extend_from_slice(table);
    full.extend_from_slice(rest);
    Some(full)
}

/// The [`Wire::Frame`] fields as sent: `bytes` without its table id.
fn frame_out<S: serde::Serializer>(
    table: &TableId,
    to: &u8,
    bytes: &Vec<u8>,
    s: S,
) -> Result<S::Ok, S::Error> {
    match strip(table, bytes) {
        Some(sent) => (table, to, &sent).serialize(s),
        None => (table, to, bytes).serialize(s),
    }
}

/// The [`Wire::Frame`] fields as received, the table id put back.
fn frame_in<'de, D: serde::Deserializer<'de>>(d: D) -> Result<(TableId, u8, Vec<u8>), D::Error> {
    let (table, to, bytes): (TableId, u8, Vec<u8>) = Deserialize::deserialize(d)?;
    if let Some(full) = unstrip(&table, &bytes) {
        return Ok((table, to, full));
    }
    if strip(&table, &bytes).is_some() {
        return Err(serde::de::Error::custom(
            "a table frame sent with its table id",
        ));
    }
    Ok((table, to, bytes))
}

/// Writes one length-prefixed message.
pub async fn write_message<W: AsyncWrite + Unpin>(w: &mut W, bytes: &[u8]) -> std::io::Result<()> {
    if bytes.len() > MAX_MESSAGE {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("message of {} bytes over the limit", bytes.len()),
        ));
    }
    let mut buf = Vec::with_capacity(4 + bytes.len());
    buf.extend_from_slice(&(bytes.len() as u32).to_be_bytes());
    buf.extend_from_slice(bytes);
    w.write_all(&buf).await?;
    w.flush().await
}

/// How long the rest of a message may take once its first byte came ([`read_message_within`]).
pub const READ_DEADLINE: Duration = Duration::from_secs(10);

/// Bytes read at a time: a message's buffer grows as its bytes arrive, never to its declared
/// length up front (a stream that declares 64 KiB and sends 10 bytes holds about 10).
const READ_CHUNK: usize = 4096;

/// Reads one length-prefixed message and its size; `Ok(None)` at a clean end of stream.
/// No deadline: see [`read_message_within`].
pub async fn read_message<R: AsyncRead + Unpin>(
    r: &mut R,
) -> Result<Option<(Wire, usize)>, WireError> {
    let mut first = [0u8; 1];
    if !read_first(r, &mut first).await? {
        return Ok(None);
    }
    read_rest(r, first[0]).await.map(Some)
}

/// As [`read_message`], but once a message's first byte came the rest must come within
/// `limit` ([`WireError::Slow`]): a peer may stay quiet between messages as long as it
/// likes, never hold a part of one.
pub async fn read_message_within<R: AsyncRead + Unpin>(
    r: &mut R,
    limit: Duration,
) -> Result<Option<(Wire, usize)>, WireError> {
    let mut first = [0u8; 1];
    if !read_first(r, &mut first).await? {
        return Ok(None);
    }
    match tokio::time::timeout(limit, read_rest(r, first[0])).await {
        Ok(m) => m.map(Some),
        Err(_) => Err(WireError::Slow(limit)),
    }
}

/// The first byte of a message; `false` at a clean end of stream.
async fn read_first<R: AsyncRead + Unpin>(
    r: &mut R,
    first: &mut [u8; 1],
) -> Result<bool, WireError> {
    loop {
        match r.read(first).await {
            Ok(0) => return Ok(false),
            Ok(_) => return Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e.into()),
        }
    }
}

/// The rest of a message whose first length byte is `first`.
async fn read_rest<R: AsyncRead + Unpin>(r: &mut R, first: u8) -> Result<(Wire, usize), WireError> {
    let mut len = [first, 0, 0, 0];
    r.read_exact(&mut len[1..]).await?;
    let len = u32::from_be_bytes(len) as usize;
    if len > MAX_MESSAGE {
        return Err(WireError::TooLarge(len));
    }
    let mut buf = Vec::new();
    let mut chunk = [0u8; READ_CHUNK];
    while buf.len() < len {
        let want = (len - buf.len()).min(READ_CHUNK);
        let n = r.read(&mut chunk[..want]).await?;
        if n == 0 {
            return Err(WireError::Io(std::io::ErrorKind::UnexpectedEof.into()));
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    Wire::decode(&buf).map(|w| (w, len))
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::executor::block_on;

    fn key(i: u8) -> SigningKey {
        SigningKey::from_bytes(&[i; 32])
    }

    fn advert() -> Advert {
        let seat = |i: u8, bot: bool| SeatInfo {
            key: key(i).verifying_key(),
            name: format!("p{i}"),
            peer: key(if bot { 1 } else { i }).verifying_key(),
            bot,
        };
        Advert {
            table: table_id(&key(1).verifying_key(), &[9; 32]),
            host: key(1).verifying_key(),
            nonce: [9; 32],
            name: "t".into(),
            preset: Ruleset::Qiaoma,
            options_hash: [0; 32],
            stake: Money::coins(1),
            hands: 3,
            bots: 1,
            seats: [
                Some(seat(1, false)),
                Some(seat(2, false)),
                Some(seat(3, true)),
                Some(seat(4, false)),
            ],
            state: TableState::Started,
            revision: 4,
            chosen: false,
        }
    }

    #[test]
    fn messages_round_trip_through_the_framing() {
        let msgs = vec![
            Wire::Hello {
                version: WIRE_VERSION,
                name: "ann".into(),
            },
            Wire::Advert(Box::new(SignedAdvert::sign(advert(), &key(1)))),
            Wire::Frame {
                table: [1; 32],
                to: 0b1010,
                bytes: vec![7; mahjong_table::MAX_FRAME],
            },
        ];
        let mut buf = Vec::new();
        for m in &msgs {
            block_on(write_message(&mut buf, &m.encode())).expect("write");
        }
        let mut r = futures::io::Cursor::new(buf);
        for m in &msgs {
            let (got, len) = block_on(read_message(&mut r)).expect("read").expect("some");
            assert_eq!(&got, m);
            assert_eq!(len, m.encode().len());
        }
        assert!(block_on(read_message(&mut r)).expect("eof").is_none());
    }

    #[test]
    fn frames_of_one_table_name_it_once_a_stream() {
        let frame = |table: [u8; 32], n: u8| {
            let mut bytes = vec![mahjong_table::COMPACT_FRAME_2];
            bytes.extend_from_slice(&table);
            bytes.extend_from_slice(&[n; 40]);
            Wire::Frame {
                table,
                to: 0b1010,
                bytes,
            }
        };
        let sent = [
            frame([1; 32], 0),
            frame([1; 32], 1),
            Wire::Leave { table: [1; 32] },
            frame([1; 32], 2),
            frame([2; 32], 3),
            frame([2; 32], 4),
            frame([1; 32], 5),
        ];
        let (mut out, mut back) = (FrameContext::default(), FrameContext::default());
        let mut sizes = Vec::new();
        for w in &sent {
            let on_wire = out.outgoing(w).encode();
            sizes.push(on_wire.len());
            let read = back.incoming(Wire::decode(&on_wire).expect("decodes"));
            assert_eq!(read.expect("given back"), *w);
        }
        let full = sizes[0];
        // The first frame of a table on the stream names it; the next ones do not.
        assert_eq!(sizes[1] + 32, full);
        assert_eq!(sizes[3] + 32, full);
        assert_eq!((sizes[4], sizes[5] + 32, sizes[6]), (full, full, full));
        // A new stream starts afresh: its first frame names its table.
        let mut fresh = FrameContext::default();
        assert_eq!(fresh.outgoing(&sent[1]).encode().len(), full);
        // Read where no frame came before, or not a frame: refused.
        let mut primed = FrameContext::default();
        let _ = primed.outgoing(&sent[0]);
        let again = primed.outgoing(&sent[1]).into_owned();
        assert!(matches!(again, Wire::FrameAgain { .. }));
        assert!(FrameContext::default().incoming(again).is_err());
        let mut primed = FrameContext::default();
        primed.incoming(sent[0].clone()).expect("a frame");
        let junk = Wire::FrameAgain {
            to: 1,
            bytes: vec![7, 7, 7],
        };
        assert!(primed.incoming(junk).is_err());
    }

    #[test]
    fn a_table_frame_travels_without_its_table_id() {
        let table = [5; 32];
        for first in [
            mahjong_table::COMPACT_FRAME,
            mahjong_table::COMPACT_FRAME_2,
            mahjong_table::VERSION as u8,
        ] {
            let mut frame = vec![first];
            frame.extend_from_slice(&table);
            frame.extend_from_slice(&[1, 2, 3]);
            let m = Wire::Frame {
                table,
                to: 0b0110,
                bytes: frame.clone(),
            };
            let plain = Wire::Frame {
                table: [6; 32],
                to: 0b0110,
                bytes: frame.clone(),
            };
            assert_eq!(plain.encode().len() - m.encode().len(), 32);
            assert_eq!(Wire::decode(&m.encode()).expect("decodes"), m);
            assert_eq!(Wire::decode(&plain.encode()).expect("decodes"), plain);
            // Sent with its table id in place: refused (one encoding per message).
            let mut unstripped = plain.encode();
            unstripped[1..33].copy_from_slice(&table);
            assert!(Wire::decode(&unstripped).is_err());
        }
    }

    #[test]
    fn an_oversized_length_is_refused_before_allocating() {
        let mut bytes = (u32::MAX).to_be_bytes().to_vec();
        bytes.extend_from_slice(&[0; 16]);
        let mut r = futures::io::Cursor::new(bytes);
        match block_on(read_message(&mut r)) {
            Err(WireError::TooLarge(n)) => assert_eq!(n, u32::MAX as usize),
            other => panic!("expected TooLarge, got {other:?}"),
        }
    }

    #[test]
    fn an_oversized_table_frame_inside_a_valid_length_is_refused() {
        let m = Wire::Frame {
            table: [1; 32],
            to: 1,
            bytes: vec![0; mahjong_table::MAX_FRAME + 1],
        };
        assert!(matches!(
            Wire::decode(&m.encode()),
            Err(WireError::TooLarge(_))
        ));
    }

    #[test]
    fn garbage_is_a_typed_error() {
        let mut bytes = 5u32.to_be_bytes().to_vec();
        bytes.extend_from_slice(&[0xff; 5]);
        let mut r = futures::io::Cursor::new(bytes);
        assert!(matches!(
            block_on(read_message(&mut r)),
            Err(WireError::Garbage(_))
        ));
        // A truncated message is an I/O error, not a panic.
        let mut bytes = 50u32.to_be_bytes().to_vec();
        bytes.extend_from_slice(&[0; 10]);
        let mut r = futures::io::Cursor::new(bytes);
        assert!(matches!(
            block_on(read_message(&mut r)),
            Err(WireError::Io(_))
        ));
    }

    /// Gives its bytes, then never anything more (a peer that holds a message half sent).
    struct Stalls(Vec<u8>);

    impl AsyncRead for Stalls {
        fn poll_read(
            mut self: std::pin::Pin<&mut Self>,
            _cx: &mut std::task::Context<'_>,
            buf: &mut [u8],
        ) -> std::task::Poll<std::io::Result<usize>> {
            if self.0.is_empty() {
                return std::task::Poll::Pending;
            }
            let n = buf.len().min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0.drain(..n);
            std::task::Poll::Ready(Ok(n))
        }
    }

    #[tokio::test]
    async fn a_message_begun_and_not_finished_in_time_is_refused() {
        let limit = Duration::from_millis(200);
        // Half a maximum-size message: refused after the deadline.
        let mut bytes = (MAX_MESSAGE as u32).to_be_bytes().to_vec();
        bytes.extend_from_slice(&[0; 1000]);
        let started = std::time::Instant::now();
        match read_message_within(&mut Stalls(bytes), limit).await {
            Err(e @ WireError::Slow(_)) => {
                assert_eq!(
                    e.to_string(),
                    "a message begun was not finished within 200 ms"
                )
            }
            other => panic!("expected Slow, got {other:?}"),
        }
        assert!(started.elapsed() >= limit);
        // Two bytes of the length prefix only: the same.
        assert!(matches!(
            read_message_within(&mut Stalls(vec![0, 0]), limit).await,
            Err(WireError::Slow(_))
        ));
        // A quiet stream between messages is not slow: a whole message, then silence, reads
        // the message; the next read waits (here: past the limit) without an error.
        let m = Wire::Hello {
            version: WIRE_VERSION,
            name: "ann".into(),
        };
        let mut framed = Vec::new();
        write_message(&mut framed, &m.encode())
            .await
            .expect("write");
        let mut r = Stalls(framed);
        let (got, _) = read_message_within(&mut r, limit)
            .await
            .expect("read")
            .expect("some");
        assert_eq!(got, m);
        let quiet = tokio::time::timeout(limit * 2, read_message_within(&mut r, limit)).await;
        assert!(quiet.is_err(), "a quiet stream is left alone: {quiet:?}");
    }

    #[test]
    fn an_advert_is_its_hosts_word_only_under_its_signature() {
        let signed = SignedAdvert::sign(advert(), &key(1));
        assert!(signed.verify());
        let forged = SignedAdvert::sign(advert(), &key(2));
        assert!(!forged.verify(), "signed by another key");
        let mut changed = signed.clone();
        changed.advert.seats.swap(1, 3);
        assert!(!changed.verify(), "seats changed after signing");
        let mut other_id = advert();
        other_id.table = [9; 32];
        assert!(
            !SignedAdvert::sign(other_id, &key(1)).verify(),
            "an id not its host's"
        );
    }

    #[test]
    fn a_roster_is_checked_against_the_host_key() {
        let roster = Roster::sign(advert(), 0, &key(1));
        let seats = roster.verify().expect("valid");
        let config = roster.config(&seats, 2);
        assert_eq!(config.roster[2], key(3).verifying_key());
        assert_eq!(config.host, 0);
        let forged = Roster::sign(advert(), 0, &key(2));
        assert!(forged.verify().is_err());
        let mut moved = roster.clone();
        moved.advert.seats.swap(1, 3);
        assert!(moved.verify().is_err());
        let wrong_host = Roster::sign(advert(), 1, &key(1));
        assert!(wrong_host.verify().is_err());
        // A table id that is not the host's own is refused even under the host's signature.
        let mut other_id = advert();
        other_id.table = [9; 32];
        assert_eq!(
            Roster::sign(other_id, 0, &key(1))
                .verify()
                .map_err(|e| e.to_string()),
            Err("the roster's table id is not its host's".to_string())
        );
    }
}
