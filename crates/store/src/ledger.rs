//! The ledger: one row per final hand of every table this player sat at, with the signed
//! envelopes that make it final, and the player levels it gives.
//!
//! A row holds the table, the hand number and the deal's hand id, the ruleset and stake, the
//! [`HandResult`] (outcome, payments, the session after it) and its payments, and the four
//! `Settle` envelopes, or for an aborted hand the three `Abort` votes and the seat they name.
//! Rows are keyed by (table, hand): booking is idempotent, so replaying a client's results,
//! booking after a restart, or booking the same hand from two local seats never loses or
//! doubles a row; a different result for a booked hand is refused
//! ([`StoreError::LedgerConflict`]), never written over.
//!
//! Levels: the player level table of the rules (贫民 … 富可敌国), by coin balance.

use std::collections::BTreeSet;

use mahjong_rules::{Money, Outcome, Ruleset, Seat};
use mahjong_table::{Body, Client, Envelope, HandResult, StepRecord};
use rusqlite::params;
use serde_json::{Value, json};

use crate::db::{Store, decode, encode, id32, now_ms};
use crate::error::StoreError;
use crate::hex::to_hex;

/// One final hand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LedgerRow {
    /// The table id.
    pub table: [u8; 32],
    /// The hand number (1, 2, …).
    pub hand: u32,
    /// The deal's hand id; for a hand aborted before its seeds were revealed (it has none),
    /// the hash of the result the three votes sign.
    pub hand_id: [u8; 32],
    /// The ruleset.
    pub ruleset: Ruleset,
    /// Coins per point.
    pub stake: Money,
    /// Coins per seat, summing to zero.
    pub payments: [Money; 4],
    /// The result the signatures sign.
    pub result: HandResult,
    /// Four `Settle` envelopes, or three `Abort` votes, in seat order.
    pub signatures: Vec<Envelope>,
    /// For an aborted hand, the seat the votes name.
    pub aborted_by: Option<Seat>,
    /// When it was booked (milliseconds since the Unix epoch).
    pub booked: u64,
}

impl LedgerRow {
    /// The row as one JSON object (`mahjong ledger --json`): `table`, `hand_id`, `hand`,
    /// `ruleset`, `stake`, `payments` (coins: integers, or exact decimals to the cent),
    /// `signatures` (hex, one per signing seat), `seats` (who signed), `outcome` (in words),
    /// `booked` (ms), and for an aborted hand `aborted_by`.
    pub fn to_json(&self) -> Value {
        let mut v = json!({
            "table": to_hex(&self.table),
            "hand_id": to_hex(&self.hand_id),
            "hand": self.hand,
            "ruleset": self.ruleset.name(),
            "stake": self.stake,
            "payments": self.payments,
            "signatures": self
                .signatures
                .iter()
                .map(|e| to_hex(&e.signature.to_bytes()))
                .collect::<Vec<_>>(),
            "seats": self.signatures.iter().map(|e| e.seat).collect::<Vec<_>>(),
            "outcome": describe(&self.result),
            "booked": self.booked,
        });
        if let (Some(seat), Some(map)) = (self.aborted_by, v.as_object_mut()) {
            map.insert("aborted_by".into(), json!(seat));
        }
        v
    }
}

/// A hand's outcome in words: `seat 1 wins qingyise by self-draw`, `drawn`, `seat 2 left`.
pub fn describe(result: &HandResult) -> String {
    let text = match &result.outcome {
        Outcome::Win {
            settlement,
            result: score,
        } => {
            let how = match settlement.kind {
                mahjong_rules::WinKind::SelfDraw => "by self-draw".to_string(),
                mahjong_rules::WinKind::Discard => match settlement.from {
                    Some(from) => format!("on seat {from}'s discard"),
                    None => "on a discard".to_string(),
                },
                mahjong_rules::WinKind::RobKong => match settlement.from {
                    Some(from) => format!("robbing seat {from}'s kong"),
                    None => "robbing a kong".to_string(),
                },
                mahjong_rules::WinKind::EightFlowers => "with eight flowers".to_string(),
                mahjong_rules::WinKind::FourWildcards => "with four wildcards".to_string(),
            };
            let winners: Vec<String> = score
                .winners
                .iter()
                .map(|w| format!("seat {} wins {}", w.seat, w.hand))
                .collect();
            format!("{} {how}", winners.join(" and "))
        }
        Outcome::Drawn => "drawn".to_string(),
        Outcome::Abandoned { leaver, .. } => format!("seat {leaver} left"),
    };
    if result.aborted && !matches!(result.outcome, Outcome::Abandoned { .. }) {
        format!("{text} (settled by the three others)")
    } else {
        text
    }
}

/// A player level of the rules' level table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Level {
    /// 1 to 20.
    pub number: u8,
    /// Its name (贫民 … 富可敌国).
    pub name: &'static str,
    /// Its name in English (Pauper … Richer than a nation).
    pub english: &'static str,
    /// The lowest coin balance of the level (level 1 takes every balance below 4000,
    /// negative ones included).
    pub from: i64,
}

/// The level table: (name, its English, lowest balance in coins). The English names are this
/// project's renderings of the rules' table, which has none.
const LEVELS: [(&str, &str, i64); 20] = [
    ("贫民", "Pauper", 0),
    ("温饱", "Getting by", 4_000),
    ("平民", "Commoner", 8_000),
    ("白领", "White collar", 20_000),
    ("小康", "Comfortable", 40_000),
    ("小资", "Well-heeled", 80_000),
    ("发横财", "Windfall", 150_000),
    ("暴发户", "Nouveau riche", 300_000),
    ("小财主", "Man of means", 500_000),
    ("大财主", "Man of wealth", 1_000_000),
    ("财神爷", "God of wealth", 2_000_000),
    ("小富一方", "Local notable", 5_000_000),
    ("家财万贯", "Vast fortune", 10_000_000),
    ("有钱有势", "Rich and powerful", 50_000_000),
    ("富甲一方", "Richest in the region", 100_000_000),
    ("金融巨贾", "Tycoon", 500_000_000),
    ("豪门世家", "Great house", 1_000_000_000),
    ("富及千里", "Wealth far and wide", 5_000_000_000),
    ("富甲天下", "Richest in the land", 10_000_000_000),
    ("富可敌国", "Richer than a nation", 20_000_000_000),
];

/// The level of a coin balance.
pub fn level(balance: Money) -> Level {
    let coins = balance.0.div_euclid(100);
    let index = LEVELS
        .iter()
        .rposition(|&(_, _, from)| coins >= from)
        .unwrap_or(0);
    let (name, english, from) = LEVELS[index];
    Level {
        number: index as u8 + 1,
        name,
        english,
        from,
    }
}

/// The envelopes that make hand `hand` final in `log`: its `Settle` step (four entries) or
/// its abort votes (three), with the seat the votes name.
pub fn final_signatures(log: &[StepRecord], hand: u32) -> Option<(Vec<Envelope>, Option<Seat>)> {
    log.iter().rev().find_map(|rec| {
        let first = rec.entries.first()?;
        if first.hand != hand {
            return None;
        }
        if rec.is_abort() {
            let culprit = match first.body {
                Body::Abort { culprit, .. } => Some(culprit),
                _ => None,
            };
            return Some((rec.entries.clone(), culprit));
        }
        rec.entries
            .iter()
            .all(|e| e.settle().is_some())
            .then(|| (rec.entries.clone(), None))
    })
}

/// Checks that `signatures` make `result` final: four settlement entries (`Settle`, or
/// `SettleVoided`) of the four seats on its hash, or three votes of the other seats naming
/// one culprit on its hash. Returns the culprit of an abort.
fn check_final(
    table: &[u8; 32],
    result: &HandResult,
    signatures: &[Envelope],
) -> Result<Option<Seat>, StoreError> {
    let hash = result.hash();
    let not_final = |why: &str| StoreError::NotFinal {
        table: to_hex(table),
        hand: result.hand,
        why: why.into(),
    };
    let mut seats = 0u8;
    let mut culprit = None;
    let mut settled = false;
    for e in signatures {
        if e.table != *table || e.hand != result.hand {
            return Err(not_final("a signature is for another hand"));
        }
        match (e.settle(), &e.body) {
            (Some((r, _)), _) if r == hash && culprit.is_none() => settled = true,
            (
                None,
                Body::Abort {
                    culprit: c,
                    result: r,
                },
            ) if *r == hash && !settled => {
                if culprit.is_some_and(|p| p != *c) || e.seat == *c {
                    return Err(not_final("the votes name different seats"));
                }
                culprit = Some(*c);
            }
            _ => return Err(not_final("a signature is not on this result")),
        }
        if seats & (1 << (e.seat & 3)) != 0 {
            return Err(not_final("a seat signed twice"));
        }
        seats |= 1 << (e.seat & 3);
    }
    let expected = match culprit {
        Some(c) => 0b1111 & !(1 << c),
        None => 0b1111,
    };
    if seats != expected || signatures.len() != expected.count_ones() as usize {
        return Err(not_final("signatures are missing"));
    }
    Ok(culprit)
}

impl Store {
    /// Books one final hand of `table` (idempotent: `Ok(false)` when this very hand is
    /// already booked). `signatures` are the envelopes of [`mahjong_table::TableEvent::HandOver`];
    /// `hand_id` the deal's hand id where the caller knows it (see [`LedgerRow::hand_id`]).
    pub fn book(
        &self,
        table: &[u8; 32],
        result: &HandResult,
        signatures: &[Envelope],
        hand_id: Option<[u8; 32]>,
    ) -> Result<bool, StoreError> {
        let aborted_by = check_final(table, result, signatures)?;
        let mut sorted = signatures.to_vec();
        sorted.sort_by_key(|e| e.seat);
        let row = LedgerRow {
            table: *table,
            hand: result.hand,
            hand_id: hand_id.unwrap_or_else(|| result.hash()),
            ruleset: result.session.options.ruleset,
            stake: result.session.stake,
            payments: result.payments,
            result: result.clone(),
            signatures: sorted,
            aborted_by,
            booked: now_ms(),
        };
        self.insert_row(&row)
    }

    fn insert_row(&self, row: &LedgerRow) -> Result<bool, StoreError> {
        let result = encode(&row.result, "hand result")?;
        let signatures = encode(&row.signatures, "signatures")?;
        let p = row.payments.map(|m| m.0);
        let n = self
            .conn
            .execute(
                "INSERT INTO ledger (table_id, hand, hand_id, ruleset, stake, p0, p1, p2, p3,
                     aborted_by, result, signatures, booked_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
                 ON CONFLICT (table_id, hand) DO NOTHING",
                params![
                    &row.table[..],
                    row.hand,
                    &row.hand_id[..],
                    row.ruleset.name(),
                    row.stake.0,
                    p[0],
                    p[1],
                    p[2],
                    p[3],
                    row.aborted_by,
                    result,
                    signatures,
                    row.booked as i64,
                ],
            )
            .map_err(StoreError::sql("book a hand"))?;
        if n == 1 {
            tracing::info!(table = %to_hex(&row.table), hand = row.hand, "booked a hand");
            return Ok(true);
        }
        let same: bool = self
            .conn
            .query_row(
                "SELECT result = ?3 FROM ledger WHERE table_id = ?1 AND hand = ?2",
                params![&row.table[..], row.hand, result],
                |r| r.get(0),
            )
            .map_err(StoreError::sql("read a booked hand"))?;
        if same {
            Ok(false)
        } else {
            Err(StoreError::LedgerConflict {
                table: to_hex(&row.table),
                hand: row.hand,
            })
        }
    }

    /// Books every final hand of `client` not yet in the ledger; returns how many rows were
    /// added. Safe to call after every output, after a restart, and for each local seat.
    pub fn book_from_client(&self, client: &Client) -> Result<usize, StoreError> {
        let Some(proposal) = client.proposal() else {
            return Ok(0);
        };
        self.book_from_log(&proposal.table, client.results(), client.log())
    }

    /// [`Store::book_from_client`] for any holder of a table's log: the final hands of
    /// `results` not yet booked, each with its signatures from `log` (a
    /// [`mahjong_table::Follower`]'s, for a player following the table its seat left).
    pub fn book_from_log(
        &self,
        table: &[u8; 32],
        results: &[HandResult],
        log: &[StepRecord],
    ) -> Result<usize, StoreError> {
        let table = *table;
        let booked = self.booked_hands(&table)?;
        let fresh: Vec<&HandResult> = results
            .iter()
            .filter(|r| !booked.contains(&r.hand))
            .collect();
        if fresh.is_empty() {
            return Ok(0);
        }
        let ids = mahjong_table::verify::hand_ids(log);
        let mut added = 0;
        for result in fresh {
            let (signatures, id) = match final_signatures(log, result.hand) {
                Some((signatures, _)) => (signatures, ids.get(&result.hand).copied()),
                None => {
                    // The client holds the log from its checkpoint after the hand on (it was
                    // restored after the hand's step was journalled but before it was
                    // booked): the journal has the hand.
                    let steps = self.hand_steps(&table, result.hand)?;
                    let (signatures, _) =
                        final_signatures(&steps, result.hand).ok_or_else(|| {
                            StoreError::NotFinal {
                                table: to_hex(&table),
                                hand: result.hand,
                                why: "its signatures are neither in the log nor in the journal"
                                    .into(),
                            }
                        })?;
                    let id = mahjong_table::verify::hand_ids(&steps)
                        .get(&result.hand)
                        .copied();
                    (signatures, id)
                }
            };
            if self.book(&table, result, &signatures, id)? {
                added += 1;
            }
        }
        Ok(added)
    }

    /// The hands of `table` in the ledger.
    pub fn booked_hands(&self, table: &[u8; 32]) -> Result<BTreeSet<u32>, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT hand FROM ledger WHERE table_id = ?1")
            .map_err(StoreError::sql("read the ledger"))?;
        stmt.query_map(params![&table[..]], |r| r.get::<_, u32>(0))
            .and_then(|rows| rows.collect())
            .map_err(StoreError::sql("read the ledger"))
    }

    /// Every ledger row, in booking order (by table as first booked, then hand).
    pub fn ledger(&self) -> Result<Vec<LedgerRow>, StoreError> {
        self.ledger_where("1", params![])
    }

    /// The ledger rows of one table, by hand.
    pub fn ledger_of(&self, table: &[u8; 32]) -> Result<Vec<LedgerRow>, StoreError> {
        self.ledger_where("l.table_id = ?1", params![&table[..]])
    }

    fn ledger_where(
        &self,
        filter: &str,
        args: &[&dyn rusqlite::ToSql],
    ) -> Result<Vec<LedgerRow>, StoreError> {
        let sql = format!(
            "SELECT l.table_id, l.hand, l.hand_id, l.result, l.signatures, l.booked_ms,
                    l.p0, l.p1, l.p2, l.p3
             FROM ledger l
             JOIN (SELECT table_id, min(booked_ms) AS first FROM ledger GROUP BY table_id) t
               ON t.table_id = l.table_id
             WHERE {filter}
             ORDER BY t.first, l.table_id, l.hand"
        );
        let mut stmt = self
            .conn
            .prepare(&sql)
            .map_err(StoreError::sql("read the ledger"))?;
        type Raw = (Vec<u8>, u32, Vec<u8>, Vec<u8>, Vec<u8>, i64, [i64; 4]);
        let raw: Vec<Raw> = stmt
            .query_map(args, |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                    [r.get(6)?, r.get(7)?, r.get(8)?, r.get(9)?],
                ))
            })
            .and_then(|rows| rows.collect())
            .map_err(StoreError::sql("read the ledger"))?;
        let mut rows = Vec::with_capacity(raw.len());
        for (table, hand, hand_id, result, signatures, booked, payments) in raw {
            let table = id32(table, "ledger table id")?;
            let what = format!("ledger row for hand {hand} of table {}", to_hex(&table));
            let result: HandResult = decode(&result, &what)?;
            let signatures: Vec<Envelope> = decode(&signatures, &what)?;
            let payments = payments.map(Money);
            if payments != result.payments || result.hand != hand {
                return Err(StoreError::Decode {
                    what,
                    why: "the payments or hand disagree with the signed result".into(),
                });
            }
            let aborted_by =
                check_final(&table, &result, &signatures).map_err(|e| StoreError::Decode {
                    what: what.clone(),
                    why: e.to_string(),
                })?;
            rows.push(LedgerRow {
                table,
                hand,
                hand_id: id32(hand_id, &what)?,
                ruleset: result.session.options.ruleset,
                stake: result.session.stake,
                payments,
                result,
                signatures,
                aborted_by,
                booked: booked as u64,
            });
        }
        Ok(rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_follow_the_table() {
        assert_eq!(level(Money::coins(-50)).number, 1);
        assert_eq!(level(Money::ZERO).name, "贫民");
        assert_eq!(level(Money(399_999)).number, 1);
        assert_eq!(level(Money::coins(4_000)).name, "温饱");
        assert_eq!(level(Money::coins(19_999)).number, 3);
        assert_eq!(level(Money::coins(20_000)).name, "白领");
        assert_eq!(level(Money::coins(20_000_000_000)).number, 20);
        assert_eq!(level(Money(i64::MAX)).name, "富可敌国");
        assert_eq!(level(Money::ZERO).english, "Pauper");
        assert_eq!(level(Money(i64::MAX)).english, "Richer than a nation");
        // Every level has an English name of its own, in plain ASCII.
        let english: std::collections::BTreeSet<&str> = LEVELS.iter().map(|l| l.1).collect();
        assert_eq!(english.len(), LEVELS.len());
        assert!(english.iter().all(|e| !e.is_empty() && e.is_ascii()));
    }
}
