//! A settlement explained, as data: why each seat pays what it pays (the rules, "Scoring").
//!
//! [`scoring::settle`](crate::scoring::settle) computes the payments and this explanation in
//! one pass, so the scores explained are the ones paid. Every part carries a stable id (the
//! pinyin ids of the rules: `pengpenghu`, `menqing`, `huangfan`, …, and snake-case names for
//! the rest), so a front end can show it in any language: [`explain_text`](crate::explain_text)
//! renders it in 中文 or English from one catalogue per language.
//!
//! For each winner: every flower item (which tile, meld or rule gives it), the points P, the
//! winning rows the hand fits and the one taken, each modifier with its effect, the multiplier,
//! the cap in 勒子 and the table limit, and S. For each paying seat: its share of each winner
//! with the reason (a self-draw, the discarder, the kong player robbed, a 承包 / 吃三口 row with
//! the claims that bind the two seats, or the leaver penalty).
//!
//! ```
//! let out = mahjong_rules::score_json(r#"{"declared":[false,true,false,false],
//!   "win":{"kind":"discard","from":3,"winners":[{"seat":1,"concealed":"222m55p999s111z",
//!   "winning_tile":"9s","melds":[{"type":"pung","tiles":"777z"}],"flowers":"12f"}]}}"#).unwrap();
//! let json = serde_json::to_value(&out.explain).unwrap();
//! // 碰碰胡: P = 2 + 2 flower tiles + a red-dragon pung 2 + a concealed east pung 1 = 7.
//! assert_eq!(json["winners"][0]["hand"], "pengpenghu");
//! assert_eq!(json["winners"][0]["flower_items"][2]["source"], "meld");
//! assert_eq!(json["winners"][0]["flower_items"][3]["source"], "concealed_pung");
//! assert_eq!(json["winners"][0]["score"], 7);
//! assert_eq!(json["shares"][0]["reason"]["reason"], "discarder");
//! assert_eq!(json["payments"], serde_json::json!([0, 7, 0, -7]));
//! let text = mahjong_rules::explain_text::render(&out.explain, mahjong_rules::explain_text::Lang::Zh);
//! assert_eq!(text[0], "座位3 打出9s点炮，座位1 胡了。");
//! ```

use crate::hand::{HandType, MeldShape, MeldType};
use crate::money::{Money, Seat, WinKind};
use crate::options::{BindingRule, Ruleset};
use crate::tile::Tile;
use serde::{Deserialize, Serialize};

/// Why a hand's payments are what they are.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Explanation {
    /// The scoring family.
    pub ruleset: Ruleset,
    /// Coins per point.
    pub stake: Money,
    /// How the hand ended.
    pub end: HandEnd,
    /// Each winner's value, in the order of the settlement.
    pub winners: Vec<WinnerExplanation>,
    /// Every share paid: one row per payer, payee and reason (bindings add rows).
    pub shares: Vec<Share>,
    /// Coins per seat, the sum of the shares; they sum to zero.
    pub payments: [Money; 4],
}

/// How a hand ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum HandEnd {
    /// A win.
    Win {
        /// Self-draw, discard, robbed kong, eight flowers or four wildcards.
        kind: WinKind,
        /// The discarder or the kong player.
        from: Option<Seat>,
    },
    /// A player left the hand in play.
    Leaver {
        /// The seat that left.
        seat: Seat,
    },
}

/// One winner's value.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct WinnerExplanation {
    /// The seat.
    pub seat: Seat,
    /// The concealed tiles at the win, sorted (the winning tile included).
    pub concealed: Vec<Tile>,
    /// The melds.
    pub melds: Vec<MeldShape>,
    /// The winning tile (absent for eight flowers).
    pub winning_tile: Option<Tile>,
    /// The hand's id: the row giving the highest S (`qiaoma`, `classic`), or in `baida` the
    /// first pattern that holds (`wubaida`, …, `menqing`), else `pinghu`.
    pub hand: String,
    /// Every winning row the hand fits, with its value (`qiaoma` and `classic`; empty in
    /// `baida`, where any standard hand wins and the value is flowers × 2^fan).
    pub rows: Vec<HandRow>,
    /// Every flower item; they add up to [`flowers`](Self::flowers).
    pub flower_items: Vec<FlowerItem>,
    /// Flowers (花) counted.
    pub flowers: u32,
    /// The base (底分) added to the flowers (`qiaoma`, `classic`); 0 in `baida`, where the
    /// base flower (底花) is a flower item.
    pub base: u32,
    /// Points P: base + flowers (`baida`: flowers).
    pub points: u32,
    /// Value V before the multiplier: the highest of the rows, raised by 杠开 / 大吊车 where
    /// they hold (`baida`: the flowers).
    pub value: u32,
    /// Every modifier that holds, with its effect.
    pub modifiers: Vec<Modifier>,
    /// `baida`: the fan counted (the sum of the modifiers' fan, at most 3; 四百搭 alone 2).
    pub fan: Option<u32>,
    /// The multiplier M (`baida`: 2^fan, ×2 for 荒番).
    pub multiplier: u32,
    /// V × M before any cap.
    pub uncapped: u32,
    /// The cap (`qiaoma`), else `None`.
    pub cap: Option<Cap>,
    /// The table limit in points, where the options set one.
    pub table_limit: Option<u32>,
    /// What bounded S, if anything did.
    pub limited_by: Option<LimitedBy>,
    /// S: what one unit of payment is worth, in points.
    pub score: u32,
}

/// A winning row (§5 table) the hand fits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct HandRow {
    /// The row.
    pub hand: HandType,
    /// How its value is found.
    pub basis: ValueBasis,
    /// Its value in points.
    pub value: u32,
}

/// How a row's value is found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "basis", rename_all = "snake_case")]
pub enum ValueBasis {
    /// V = P.
    Points,
    /// V = P, at most one lezi (`classic`).
    PointsUpToLezi {
        /// Points in a lezi.
        lezi_points: u32,
    },
    /// A fixed number of lezi.
    Lezi {
        /// Lezi.
        lezi: u32,
        /// Points in a lezi.
        lezi_points: u32,
    },
}

/// What gives a flower.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FlowerSource {
    /// 底花, `baida`'s base flower.
    Base,
    /// A flower tile set aside (in `baida` dragons too).
    FlowerTile,
    /// A meld: an honor pung, or a kong.
    Meld,
    /// An honor pung among the concealed tiles (`baida`: three real wind tiles).
    ConcealedPung,
    /// A wildcard in the concealed hand (`baida`).
    Wildcard,
    /// 门清 (`baida`).
    Menqing,
}

/// One item of the flower count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct FlowerItem {
    /// What gives it.
    pub source: FlowerSource,
    /// The tile: the flower, the meld's or pung's tile, the wildcard.
    pub tile: Option<Tile>,
    /// The meld's type, for a meld.
    pub meld: Option<MeldType>,
    /// Flowers it is worth.
    pub flowers: u32,
}

/// A modifier (§5) by its id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModifierId {
    /// 门清: no chow, pung or claimed kong.
    Menqing,
    /// 杠开: won on a replacement draw.
    Gangkai,
    /// 大吊车: four melds, single wait on the pair.
    Dadiaoche,
    /// 开宝: dice a double or 1 and 4.
    Kaibao,
    /// 荒番: the drawn-hand counter above 0 (`classic`: or this hand's dice).
    Huangfan,
    /// 抢杠: won robbing an added kong.
    Qianggang,
    /// 无百搭 (`baida`): no wildcard in the concealed hand.
    Wubaida,
    /// 跑百搭 (`baida`): the 13 tiles before the winning draw won on any tile.
    Paobaida,
    /// 大吊 (`baida`): four melds and a single wait.
    Dadiao,
    /// 四百搭 (`baida`): four wildcards.
    Sibaida,
}

impl ModifierId {
    /// The id used in files.
    pub const fn id(self) -> &'static str {
        match self {
            ModifierId::Menqing => "menqing",
            ModifierId::Gangkai => "gangkai",
            ModifierId::Dadiaoche => "dadiaoche",
            ModifierId::Kaibao => "kaibao",
            ModifierId::Huangfan => "huangfan",
            ModifierId::Qianggang => "qianggang",
            ModifierId::Wubaida => "wubaida",
            ModifierId::Paobaida => "paobaida",
            ModifierId::Dadiao => "dadiao",
            ModifierId::Sibaida => "sibaida",
        }
    }
}

/// A modifier that holds and what it does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Modifier {
    /// Which.
    pub id: ModifierId,
    /// Its effect.
    pub effect: Effect,
}

/// What a modifier does to the value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "effect", rename_all = "snake_case")]
pub enum Effect {
    /// Multiplies the value.
    Times {
        /// The factor.
        times: u32,
    },
    /// Raises the value to at least this many points.
    AtLeast {
        /// Points.
        points: u32,
    },
    /// Adds fan (`baida`).
    Fan {
        /// Fan.
        fan: u32,
    },
    /// Adds flowers (`baida` 门清).
    Flowers {
        /// Flowers.
        flowers: u32,
    },
    /// Paid as a self-draw by the kong player alone (抢杠).
    PaidByKongPlayer,
    /// Holds, but changes nothing under these options.
    None,
}

/// The cap of `qiaoma` (§6 step 5).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Cap {
    /// The row's own cap in lezi (raised to 2 by 门清 where it doubles).
    pub base_lezi: u32,
    /// 门清 raised the cap to 2 lezi.
    pub menqing: bool,
    /// Modifiers that doubled it (开宝, 荒番), in order.
    pub doubled_by: Vec<ModifierId>,
    /// The cap in lezi.
    pub lezi: u32,
    /// The cap in points.
    pub points: u32,
}

/// What bounded S.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LimitedBy {
    /// The cap in lezi.
    Cap,
    /// The table limit (单局封顶).
    TableLimit,
}

/// One share: `payer` pays `payee` `amount` for `reason`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Share {
    /// Who pays.
    pub payer: Seat,
    /// Who is paid (the winner; for a leaver, each other seat).
    pub payee: Seat,
    /// Units of the winner's S (0 for a leaver penalty).
    pub units: u32,
    /// Points: units × S (0 for a leaver penalty).
    pub points: u32,
    /// Coins.
    pub amount: Money,
    /// Why.
    pub reason: ShareReason,
}

/// Why a seat pays a share.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum ShareReason {
    /// A self-draw (eight flowers and four wildcards too): each other seat pays 1 S.
    SelfDraw,
    /// The discarder pays 1 S.
    Discarder,
    /// The kong player robbed pays 3 S.
    KongRobbed,
    /// A row of the 承包 / 吃三口 table: the winner and `bound` are bound.
    Bound {
        /// 承包 (`qiaoma`) or 吃三口 (`chi_san_kou`).
        rule: BindingRule,
        /// The row.
        row: BoundRow,
        /// The seat bound to the winner.
        bound: Seat,
        /// Claims the winner made on the bound seat's discards.
        winner_claimed: u32,
        /// Claims the bound seat made on the winner's discards.
        bound_claimed: u32,
    },
    /// The leaver's penalty, split among the other seats.
    Leaver {
        /// The penalty in stakes, before 荒番.
        penalty: u32,
        /// Doubled by 荒番 (`baida`).
        huangfan: bool,
    },
}

/// A row of the binding tables (§6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BoundRow {
    /// Self-draw: the bound seat pays 5 S (吃三口: 3 S).
    SelfDrawBound,
    /// Self-draw: each other non-winner pays 1 S.
    SelfDrawOther,
    /// The bound seat discards: it pays 2 S.
    BoundDiscards,
    /// A third seat not declared ready discards: it pays 2 S.
    ThirdNotReady,
    /// A third seat discards: it pays 1 S (declared ready; 吃三口 always).
    ThirdPays,
    /// …and the bound seat pays 1 S.
    BoundAlsoPays,
    /// A third seat's discard wins for both bound seats: it pays each (2 S, or 1 S if ready
    /// or under 吃三口).
    BothWin,
    /// Robbing the kong: the kong player pays 3 S.
    RobKongPlayer,
    /// Robbing the kong: the bound seat, not the kong player, also pays 3 S.
    RobKongBound,
}
