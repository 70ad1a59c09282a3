//! Shanghai mahjong rules (上海麻将: 敲麻, classic, 百搭), exactly as the project's rule book
//! (`docs/rules.en.md`, in 中文 `docs/rules.zh.md`) states them.
//!
//! Everything else — peers, bots, the table protocol, the desktop app and the scorer — runs on
//! this crate. It knows nothing of crypto, networking or UI, and randomness enters only as
//! input (the wall order and the dice), so the same inputs give the same states everywhere.
//!
//! - [`tile`](mod@tile): tiles and the compact notation (`123m55z`, `1f`), §1.
//! - [`options`]: the three presets and every option, §9.
//! - [`shape`] and [`hand`]: standard-shape analysis, waits, winning hand types, §5.
//! - [`scoring`] and [`settlement`]: values, caps, who pays, the settlement file, §6 and §8.
//! - [`state`]: one hand as a pure state machine (deal, flowers, 换牌, turns, claims), and
//!   [`swap`]: naming the five tiles of 换牌.
//! - [`explain`](mod@explain) and [`explain_text`]: every settlement explained as data (the same pass as
//!   the payments, [`scoring::settle`]) and as text in 中文 or English.
//!
//! ```
//! use mahjong_rules::{Options, Ruleset, counts_of, parse_tiles, hand};
//! let o = Options::preset(Ruleset::Qiaoma);
//! let h = counts_of(&parse_tiles("11123455678999p").unwrap());
//! assert!(hand::is_winning(&o, &h, &[], None)); // 清一色
//! ```
#![deny(missing_docs)]

mod auto;
pub mod catalogue;
pub mod explain;
pub mod explain_text;
pub mod hand;
pub mod lang;
pub mod money;
pub mod names;
pub mod options;
#[doc(hidden)]
pub mod sample;
pub mod scoring;
pub mod settlement;
pub mod shape;
pub mod swap;
pub mod tile;

pub use hand::{HandType, MeldShape, MeldType};
pub use lang::{Lang, UnknownLang};
pub use options::{BindingRule, HandsRule, MenqingEffect, Options, OptionsError, Ruleset};
pub use scoring::{
    Explanation, Money, ScoreError, ScoreResult, Seat, Settlement, Unwinnable, WinKind, WinnerHand,
    WinnerScore, explain, score, settle,
};
pub use settlement::{SettlementError, parse_settlement, score_json};
pub use swap::SwapChoiceError;
pub use tile::{Counts, NotationError, Suit, Tile, counts_of, format_tiles, parse_tiles};
pub mod state;
pub mod wall;
pub use state::{Action, Card, Event, HandState, Move, MoveError, Outcome, Phase, Setup};
pub use wall::{Dice, Wall};
pub mod session;
pub mod view;
pub use session::{Session, SessionLength};
pub use view::{PublicMeld, PublicPhase, PublicSeat, SeatView};
