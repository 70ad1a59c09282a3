//! The LAN shell of the mahjong table: peers find each other by mDNS (or `--peer`), sit at
//! one table through the lobby, and move the sans-IO `mahjong_table::Client`'s frames, time
//! and journal over libp2p (tcp + noise + yamux) and into the player's store.
//!
//! - [`wire`]: protocol names and versions, the messages and their length-prefixed framing,
//!   the signed [`Roster`].
//! - [`lobby`]: open tables, seats, bots spread over the human peers, the lowest-id merge
//!   rule; sans-IO.
//! - [`node`]: the event loop that owns the swarm, the lobby, the table clients and the store,
//!   and its cloneable handle [`Network`].
//! - [`storage`]: the seam to the durable store ([`Storage`]) and an in-memory one.
//!
//! # Example
//!
//! ```no_run
//! # async fn run() -> Result<(), mahjong_net::NetError> {
//! use ed25519_dalek::SigningKey;
//! use mahjong_net::{MemoryStorage, NetConfig, NetEvent, node};
//! use mahjong_rules::{Money, Ruleset};
//!
//! let identity = SigningKey::from_bytes(&[7; 32]);
//! let settings = node::settings("ann", Ruleset::Qiaoma, Money::coins(1), 3, 0);
//! let (network, mut events) =
//!     mahjong_net::spawn(NetConfig::new(identity, settings), Box::new(MemoryStorage::new()))?;
//! while let Some(ev) = events.recv().await {
//!     if let NetEvent::Table(mahjong_table::TableEvent::SessionOver { .. }) = ev {
//!         break;
//!     }
//! }
//! network.shutdown().await
//! # }
//! ```

pub mod code;
pub mod lobby;
pub mod node;
pub mod storage;
pub mod wire;

pub use code::{CodeError, TableCode};
pub use lobby::{Admit, Lobby, LobbyError, Settings, TableSpec};
#[cfg(feature = "test-hooks")]
pub use mahjong_host::hooks::equivocate_once;
#[cfg(feature = "test-hooks")]
pub use node::Tamper;
pub use node::{
    ChatError, Command, DialError, Internet, Link, MeetError, NetConfig, NetError, NetEvent,
    Network, Traffic, WatchError, WatchPolicy, WatchTarget, spawn,
};
pub use storage::{Kind, MemoryStorage, Storage, StorageError, Stored, TableStart};
pub use wire::{
    Advert, ChatLineError, PROTOCOL, PROTOCOL_VERSION, Roster, RosterError, SeatInfo, SignedAdvert,
    TableId, TableState, Wire,
};
