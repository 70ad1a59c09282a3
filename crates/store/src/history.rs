//! The player's history as both the app and `mahjong ledger` show it: every stored table with
//! its finished hands and each seat's running total, and every player's balance over all
//! tables, read from the store in one place.
//!
//! A practice table is told by its typed marker ([`TableInfo::practice`]: its bots' levels),
//! so a practice bot is one player across practice tables (its keys are the table's own),
//! while a friend is one player by roster key across every table. Its seats are stored with
//! the names of [`practice_names`] (the player, then `bot N (level)`), which the migration to
//! schema 6 reads once ([`practice_level`]) to mark the practice tables stored before.

use std::collections::BTreeMap;

use mahjong_bot::Level;
use mahjong_rules::{Money, Ruleset, Seat};
use mahjong_table::HandResult;

use crate::db::{Store, TableInfo};
use crate::error::StoreError;
use crate::stats::{Story, story};

/// One finished hand of the ledger.
#[derive(Clone, Debug, PartialEq)]
pub struct HandEntry {
    /// The hand number.
    pub hand: u32,
    /// When it was booked (ms since the Unix epoch).
    pub booked: u64,
    /// The signed result.
    pub result: HandResult,
    /// Coins per seat.
    pub payments: [Money; 4],
    /// Each seat's running total at the table after this hand.
    pub running: [Money; 4],
    /// How many envelopes make it final (4 `Settle`, or 3 abort votes).
    pub signatures: usize,
    /// For an aborted hand, the seat the votes name.
    pub aborted_by: Option<Seat>,
}

/// One table of the ledger.
#[derive(Clone, Debug, PartialEq)]
pub struct TableEntry {
    /// The table id.
    pub id: [u8; 32],
    /// The seats' display names as stored.
    pub names: [String; 4],
    /// For a practice table, the three bots' levels.
    pub practice: Option<[Level; 3]>,
    /// The seat this player played (its own seat, or at a practice table seat 0).
    pub owner: Option<Seat>,
    /// When the table was created (ms), or its first booking.
    pub created: u64,
    /// The preset.
    pub ruleset: Ruleset,
    /// Coins per point.
    pub stake: Money,
    /// Its finished hands, in order.
    pub hands: Vec<HandEntry>,
    /// The evening's story of its hands ([`story`]).
    pub story: Story,
}

/// Who a player of the history is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Who {
    /// This player (the owner's seat of each table).
    Me,
    /// A friend, by the roster key its seats signed with.
    Key([u8; 32]),
    /// A practice bot, by its stored name (`bot 2 (basic)`).
    Practice(String),
    /// A seat of a table the store holds no set-up of.
    Unknown([u8; 32], Seat),
}

/// A player's balance over every table of the ledger.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerEntry {
    /// Who.
    pub who: Who,
    /// The player's roster key where one is known (this player's own at a friends' table).
    pub roster_key: Option<[u8; 32]>,
    /// The display name (as stored at the first table it appears at).
    pub name: String,
    /// This is the player.
    pub me: bool,
    /// Coins won (+) or lost (-) over all tables.
    pub balance: Money,
    /// Hands played.
    pub hands: u32,
}

/// The history: every table and hand, and the players' balances.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct History {
    /// The tables, oldest first.
    pub tables: Vec<TableEntry>,
    /// The players, the player first, then in order of first appearance.
    pub players: Vec<PlayerEntry>,
}

impl History {
    /// Every hand of every table.
    pub fn hand_count(&self) -> usize {
        self.tables.iter().map(|t| t.hands.len()).sum()
    }

    /// A table by id.
    pub fn table(&self, id: &[u8; 32]) -> Option<&TableEntry> {
        self.tables.iter().find(|t| t.id == *id)
    }
}

/// The names a practice table is stored with: the player, then `bot N (level)`.
pub fn practice_names(player: &str, levels: [Level; 3]) -> [String; 4] {
    let bot = |i: usize| format!("bot {} ({})", i + 1, levels[i].name());
    [player.to_string(), bot(0), bot(1), bot(2)]
}

/// The level in a stored practice bot name (`bot 2 (basic)`).
pub fn practice_level(name: &str) -> Option<Level> {
    let rest = name.strip_prefix("bot ")?;
    let (_, level) = rest.split_once(" (")?;
    Level::from_name(level.strip_suffix(')')?)
}

impl TableInfo {
    /// The bots' levels of a practice table (its typed marker, `tables.practice`); `None` at
    /// a friends' table.
    pub fn practice_levels(&self) -> Option<[Level; 3]> {
        self.practice
    }

    /// The seat this player played: its own seat (signed with the identity key), else the
    /// first local seat (seat 0 at a practice table).
    pub fn owner_seat(&self) -> Option<Seat> {
        self.seats
            .iter()
            .find(|s| s.bot_key.is_none())
            .or(self.seats.first())
            .map(|s| s.config.seat)
    }

    /// The roster key of `seat`, where the store holds the table's set-up.
    pub fn roster_key(&self, seat: usize) -> Option<[u8; 32]> {
        self.seats
            .first()
            .and_then(|s| s.config.roster.get(seat))
            .map(|k| *k.as_bytes())
    }
}

impl Store {
    /// The whole history: every table with a finished hand, oldest first, and every player.
    pub fn history(&self) -> Result<History, StoreError> {
        let infos: BTreeMap<[u8; 32], TableInfo> =
            self.tables()?.into_iter().map(|t| (t.id, t)).collect();
        let mut tables: Vec<TableEntry> = Vec::new();
        let mut players: Vec<PlayerEntry> = Vec::new();
        for row in self.ledger()? {
            let info = infos.get(&row.table);
            if tables.last().is_none_or(|t| t.id != row.table) {
                tables.push(TableEntry {
                    id: row.table,
                    names: info.map_or_else(
                        || std::array::from_fn(|s| format!("seat {s}")),
                        |i| i.names.clone(),
                    ),
                    practice: info.and_then(TableInfo::practice_levels),
                    owner: info.and_then(TableInfo::owner_seat),
                    created: info.map_or(row.booked, |i| i.created),
                    ruleset: row.ruleset,
                    stake: row.stake,
                    hands: Vec::new(),
                    story: Story::default(),
                });
            }
            let Some(table) = tables.last_mut() else {
                continue;
            };
            let before = table.hands.last().map_or([Money::ZERO; 4], |h| h.running);
            let running = std::array::from_fn(|s| Money(before[s].0 + row.payments[s].0));
            for seat in 0..4usize {
                let me = table.owner == Some(seat as Seat);
                let roster_key = info.and_then(|i| i.roster_key(seat));
                let who = if me {
                    Who::Me
                } else if table.practice.is_some() {
                    Who::Practice(table.names[seat].clone())
                } else {
                    roster_key.map_or(Who::Unknown(row.table, seat as Seat), Who::Key)
                };
                match players.iter_mut().find(|p| p.who == who) {
                    Some(p) => {
                        p.balance = Money(p.balance.0 + row.payments[seat].0);
                        p.hands += 1;
                        if p.roster_key.is_none() && table.practice.is_none() {
                            p.roster_key = roster_key;
                        }
                    }
                    None => players.push(PlayerEntry {
                        who,
                        roster_key: roster_key.filter(|_| table.practice.is_none()),
                        name: table.names[seat].clone(),
                        me,
                        balance: row.payments[seat],
                        hands: 1,
                    }),
                }
            }
            table.hands.push(HandEntry {
                hand: row.hand,
                booked: row.booked,
                payments: row.payments,
                running,
                signatures: row.signatures.len(),
                aborted_by: row.aborted_by,
                result: row.result,
            });
        }
        for t in &mut tables {
            let results: Vec<HandResult> = t.hands.iter().map(|h| h.result.clone()).collect();
            t.story = story(&results);
        }
        players.sort_by_key(|p| !p.me);
        Ok(History { tables, players })
    }
}
