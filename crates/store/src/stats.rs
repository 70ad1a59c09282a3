//! The evening's story and every friend's statistics, from the four-signed ledger.
//!
//! - [`story`]: one table's session told from its final hands — each seat's running balance
//!   after every hand (what the app draws as a chart), the biggest hand, each seat's wins,
//!   self-draws and deal-ins, and the [`settle_up`]: the fewest payments that clear the
//!   evening.
//! - [`Store::stats`] (or [`stats`] over rows already read): for every player sat with, by
//!   identity key, across all tables — hands, win rate, self-draw rate, deal-in rate, average
//!   winning value, balance and a rating; practice hands against the computer players
//!   ([`TableInfo::is_practice`]) are counted apart from hands with friends.
//!
//! Nothing here reads anything but signed data (the ledger's results and payments) and the
//! table's roster and names: two friends holding the same tables compute the same numbers.
//!
//! **The rating** (docs/stats.md): every player starts at [`START_RATING`]. Each table with
//! at least one final hand is a session; its four seats are ranked by their balance at the
//! table (after its last booked hand), and each takes the place points [`PLACE_POINTS`] of
//! its place (+30, +10, −10, −30; seats level on balance share the points of the places they
//! hold, which always gives whole points), weighted by the session's length: a session of
//! [`FULL_SESSION_HANDS`] hands or more counts fully, a shorter one in proportion. The rating
//! is the start plus the sum over the player's sessions. It is a sum, so it does not depend on
//! the order of the sessions: the log carries no signed time, and any order-dependent formula
//! (Elo's) would depend on when each machine booked a hand or on opponents' ratings built from
//! tables a friend never saw. Two friends computing the rating of a third over the sessions
//! they both hold get the same number; a session's points sum to zero over its four seats.
//! Bots at a friends' table take their places like anyone but are not listed.

use std::collections::BTreeMap;

use mahjong_rules::{Money, Outcome, Seat, WinKind};
use mahjong_table::HandResult;

use crate::db::{Store, TableInfo};
use crate::error::StoreError;
use crate::hex::from_hex32;
use crate::identity::Identity;
use crate::ledger::LedgerRow;
use crate::names::clean_name;

/// The rating every player starts at.
pub const START_RATING: i64 = 1500;

/// The rating points of first, second, third and fourth place in a full session.
pub const PLACE_POINTS: [i64; 4] = [30, 10, -10, -30];

/// A session of this many hands or more moves the rating fully; a shorter one in proportion.
pub const FULL_SESSION_HANDS: u32 = 8;

/// Up to this many players the settle-up is the proven minimum (a search over the subsets);
/// beyond, the largest debtor pays the largest creditor until all are clear (never more than
/// one payment fewer than the players). A table has four.
pub const EXACT_SETTLE_UP: usize = 12;

/// One payment of a settle-up: `from` pays `to` `amount` (positive).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Payment {
    /// Who pays (an index into the balances).
    pub from: usize,
    /// Who is paid.
    pub to: usize,
    /// How much (coins; positive).
    pub amount: Money,
}

/// The fewest payments that bring every balance to zero (`balances` sum to zero, as a table's
/// do): the players are split into the most groups whose balances sum to zero, and a group
/// of k players settles with k − 1 payments, so n players with nonzero balances in g groups
/// need n − g, which no other set of payments beats (each payment joins at most two groups of
/// players who settle among themselves). Ties: the grouping whose first group (holding the
/// first player still owed or owing) has the smallest set of indices; inside a group the
/// largest debtor pays the largest creditor, the lower index first when level. The payments
/// come largest first. Balances that do not sum to zero are settled as far as they can be
/// (what is left over stays with the largest creditor or debtor).
pub fn settle_up(balances: &[Money]) -> Vec<Payment> {
    let live: Vec<usize> = (0..balances.len())
        .filter(|&i| balances[i] != Money::ZERO)
        .collect();
    let total: i128 = balances.iter().map(|m| i128::from(m.0)).sum();
    let mut out = Vec::new();
    if total != 0 || live.len() > EXACT_SETTLE_UP {
        greedy(balances, &live, &mut out);
    } else {
        for group in zero_sum_groups(balances, &live) {
            greedy(balances, &group, &mut out);
        }
    }
    out.sort_by(|a, b| {
        b.amount
            .cmp(&a.amount)
            .then(a.from.cmp(&b.from))
            .then(a.to.cmp(&b.to))
    });
    out
}

/// Splits `live` (players with nonzero balances summing to zero) into the most groups that
/// each sum to zero.
fn zero_sum_groups(balances: &[Money], live: &[usize]) -> Vec<Vec<usize>> {
    let n = live.len();
    let full = (1usize << n) - 1;
    let mut sums = vec![0i128; 1 << n];
    for mask in 1..=full {
        let low = mask.trailing_zeros() as usize;
        sums[mask] = sums[mask & (mask - 1)] + i128::from(balances[live[low]].0);
    }
    // best[mask]: the most zero-sum groups `mask` splits into (for masks summing to zero);
    // pick[mask]: the group holding mask's lowest player in that split.
    let mut best = vec![0u32; 1 << n];
    let mut pick = vec![0usize; 1 << n];
    for mask in 1..=full {
        if sums[mask] != 0 {
            continue;
        }
        let low = mask & mask.wrapping_neg();
        let rest = mask ^ low;
        // Every subset of `mask` holding `low`, smallest first.
        let mut sub = 0usize;
        loop {
            let group = sub | low;
            if sums[group] == 0 {
                let count = 1 + best[mask ^ group];
                if count > best[mask] {
                    best[mask] = count;
                    pick[mask] = group;
                }
            }
            if sub == rest {
                break;
            }
            sub = (sub.wrapping_sub(rest)) & rest;
        }
    }
    let mut groups = Vec::new();
    let mut mask = full;
    while mask != 0 {
        let group = pick[mask];
        groups.push(
            (0..n)
                .filter(|&i| group & (1 << i) != 0)
                .map(|i| live[i])
                .collect(),
        );
        mask ^= group;
    }
    groups
}

/// Within `who`: the largest debtor pays the largest creditor until one side is clear.
fn greedy(balances: &[Money], who: &[usize], out: &mut Vec<Payment>) {
    let mut left: Vec<(usize, i64)> = who.iter().map(|&i| (i, balances[i].0)).collect();
    loop {
        // Largest magnitude first; the lower index when level.
        let debtor = left
            .iter()
            .filter(|(_, b)| *b < 0)
            .min_by_key(|(i, b)| (*b, *i))
            .copied();
        let creditor = left
            .iter()
            .filter(|(_, b)| *b > 0)
            .min_by_key(|(i, b)| (-*b, *i))
            .copied();
        let (Some((d, db)), Some((c, cb))) = (debtor, creditor) else {
            return;
        };
        let amount = cb.min(-db);
        out.push(Payment {
            from: d,
            to: c,
            amount: Money(amount),
        });
        for (i, b) in left.iter_mut() {
            if *i == d {
                *b += amount;
            } else if *i == c {
                *b -= amount;
            }
        }
    }
}

/// What one final hand was for each seat.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HandTally {
    /// The seat won (one of the winners).
    pub win: bool,
    /// The seat won by drawing the winning tile itself (自摸).
    pub self_draw: bool,
    /// The seat's discard was won on, or its kong robbed (点炮).
    pub deal_in: bool,
}

/// Each seat's part in a final hand.
pub fn tally(result: &HandResult) -> [HandTally; 4] {
    let mut out = [HandTally::default(); 4];
    if let Outcome::Win {
        settlement,
        result: score,
    } = &result.outcome
    {
        for w in &score.winners {
            let t = &mut out[usize::from(w.seat & 3)];
            t.win = true;
            t.self_draw = settlement.kind == WinKind::SelfDraw;
        }
        if matches!(settlement.kind, WinKind::Discard | WinKind::RobKong)
            && let Some(from) = settlement.from
        {
            out[usize::from(from & 3)].deal_in = true;
        }
    }
    out
}

/// One hand of a session's story.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoryHand {
    /// The hand number.
    pub hand: u32,
    /// Coins per seat in this hand.
    pub payments: [Money; 4],
    /// Each seat's balance at the table after it.
    pub running: [Money; 4],
}

/// One seat's evening.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SeatStory {
    /// Hands won.
    pub wins: u32,
    /// Of which by self-draw.
    pub self_draws: u32,
    /// Hands won on its discard (or its robbed kong).
    pub deal_ins: u32,
    /// Its balance at the end.
    pub balance: Money,
}

/// The biggest hand of a session: the win that paid its winner the most.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BiggestHand {
    /// The hand number.
    pub hand: u32,
    /// The winner.
    pub seat: Seat,
    /// What the hand paid the winner (coins).
    pub amount: Money,
    /// The hand type's id (`qingyise`).
    pub pattern: String,
    /// How it was won.
    pub kind: WinKind,
    /// The discarder (or the robbed kong's player).
    pub from: Option<Seat>,
}

/// A session told from its final hands.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Story {
    /// Each hand, in order, with the running balances.
    pub hands: Vec<StoryHand>,
    /// Each seat's wins, self-draws, deal-ins and balance.
    pub seats: [SeatStory; 4],
    /// The biggest win, if anyone won.
    pub biggest: Option<BiggestHand>,
    /// The fewest payments that clear the balances ([`settle_up`]; indices are seats).
    pub settle_up: Vec<Payment>,
}

impl Story {
    /// The balances at the end.
    pub fn balances(&self) -> [Money; 4] {
        self.hands.last().map_or([Money::ZERO; 4], |h| h.running)
    }
}

/// The story of a session from its final hands in order (a table's ledger rows' results, or
/// the results a table client holds). Running balances add up the given hands' payments.
pub fn story(results: &[HandResult]) -> Story {
    let mut s = Story::default();
    let mut running = [Money::ZERO; 4];
    for r in results {
        for (seat, pay) in r.payments.iter().enumerate() {
            running[seat] = Money(running[seat].0.saturating_add(pay.0));
        }
        s.hands.push(StoryHand {
            hand: r.hand,
            payments: r.payments,
            running,
        });
        for (seat, t) in tally(r).iter().enumerate() {
            let st = &mut s.seats[seat];
            st.wins += u32::from(t.win);
            st.self_draws += u32::from(t.win && t.self_draw);
            st.deal_ins += u32::from(t.deal_in);
        }
        if let Outcome::Win {
            settlement,
            result: score,
        } = &r.outcome
        {
            for w in &score.winners {
                let amount = r.payments[usize::from(w.seat & 3)];
                if s.biggest.as_ref().is_none_or(|b| amount > b.amount) {
                    s.biggest = Some(BiggestHand {
                        hand: r.hand,
                        seat: w.seat,
                        amount,
                        pattern: w.hand.clone(),
                        kind: settlement.kind,
                        from: settlement.from,
                    });
                }
            }
        }
    }
    for (seat, st) in s.seats.iter_mut().enumerate() {
        st.balance = running[seat];
    }
    s.settle_up = settle_up(&running);
    s
}

/// Each seat's rating change for one session, in eighths of a point (exact): its place
/// points ([`PLACE_POINTS`], level balances sharing) times `min(hands, 8)`.
pub fn rating_change(balances: &[Money; 4], hands: u32) -> [i64; 4] {
    let weight = i64::from(hands.min(FULL_SESSION_HANDS));
    let mut out = [0i64; 4];
    for seat in 0..4 {
        let above = balances.iter().filter(|b| **b > balances[seat]).count();
        let level = balances.iter().filter(|b| **b == balances[seat]).count();
        let points: i64 = PLACE_POINTS[above..above + level].iter().sum::<i64>() / level as i64;
        out[seat] = points * weight;
    }
    out
}

/// One player's numbers over a set of tables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerStats {
    /// The identity key (at practice tables: this player's own, all zeros when the store
    /// knows none: a player who only practised and has no identity key).
    pub key: [u8; 32],
    /// The name shown: the nickname this player gave it, else the name it used last.
    pub name: String,
    /// This player.
    pub me: bool,
    /// Sessions (tables with a final hand).
    pub sessions: u32,
    /// Final hands played.
    pub hands: u32,
    /// Hands won.
    pub wins: u32,
    /// Hands won by self-draw.
    pub self_draws: u32,
    /// Hands won on its discard (or robbed kong).
    pub deal_ins: u32,
    /// Coins won in the hands it won (their payments to it).
    pub won: Money,
    /// Coins won (+) or lost (−) over every hand.
    pub balance: Money,
    /// The rating above [`START_RATING`], in eighths of a point.
    pub rating_eighths: i64,
}

impl PlayerStats {
    fn new(key: [u8; 32], name: String, me: bool) -> PlayerStats {
        PlayerStats {
            key,
            name,
            me,
            sessions: 0,
            hands: 0,
            wins: 0,
            self_draws: 0,
            deal_ins: 0,
            won: Money::ZERO,
            balance: Money::ZERO,
            rating_eighths: 0,
        }
    }

    fn rate(&self, n: u32) -> f64 {
        if self.hands == 0 {
            0.0
        } else {
            f64::from(n) / f64::from(self.hands)
        }
    }

    /// Wins per hand (0 to 1).
    pub fn win_rate(&self) -> f64 {
        self.rate(self.wins)
    }

    /// Self-draw wins per hand.
    pub fn self_draw_rate(&self) -> f64 {
        self.rate(self.self_draws)
    }

    /// Deal-ins per hand.
    pub fn deal_in_rate(&self) -> f64 {
        self.rate(self.deal_ins)
    }

    /// The average a winning hand paid it, to the cent (`None` before a first win).
    pub fn avg_win(&self) -> Option<Money> {
        (self.wins > 0).then(|| {
            let wins = i64::from(self.wins);
            Money((self.won.0 * 2 + wins).div_euclid(2 * wins))
        })
    }

    /// The rating ([`START_RATING`] plus the sessions' points; see the module header).
    pub fn rating(&self) -> f64 {
        START_RATING as f64 + self.rating_eighths as f64 / 8.0
    }
}

/// Everyone's numbers: friends' tables and practice apart.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// At friends' tables: this player first, then every human sat with, the highest rating
    /// first (then the most hands, then by name).
    pub friends: Vec<PlayerStats>,
    /// This player at practice tables against the computer players (`None`: never practised).
    pub practice: Option<PlayerStats>,
    /// Friends' tables with a final hand.
    pub friend_tables: u32,
    /// Practice tables with a final hand.
    pub practice_tables: u32,
}

impl Stats {
    /// Nothing played yet.
    pub fn is_empty(&self) -> bool {
        self.friend_tables == 0 && self.practice_tables == 0
    }
}

/// The seat this player played at a stored table: the seat that signs with the identity key,
/// else the first local seat (seat 0 at a practice table).
pub fn own_seat(info: &TableInfo) -> Option<Seat> {
    info.seats
        .iter()
        .find(|s| s.bot_key.is_none())
        .or(info.seats.first())
        .map(|s| s.config.seat)
}

/// Whether the seat of a friends' table is a computer player: one this peer runs with its
/// own key, or one named as the lobby names bots (`bot of Ann`).
fn is_bot_seat(info: &TableInfo, seat: usize) -> bool {
    info.seats
        .iter()
        .any(|s| usize::from(s.config.seat) == seat && s.bot_key.is_some())
        || crate::contacts::is_bot_name(&info.names[seat])
}

/// The statistics of `rows` (the whole ledger, by table as booked), with the `tables` they
/// belong to (rows of a table not stored are left out: who sat there is unknown), this
/// player's key and name, and the names to show for keys (nicknames, from the contacts).
pub fn stats(
    rows: &[LedgerRow],
    tables: &BTreeMap<[u8; 32], TableInfo>,
    me: Option<([u8; 32], String)>,
    shown: &BTreeMap<[u8; 32], String>,
) -> Stats {
    let mut out = Stats::default();
    let mut friends: BTreeMap<[u8; 32], PlayerStats> = BTreeMap::new();
    let mut practice: Option<PlayerStats> = None;
    // This player's key: given, else its own seat's at the first friends' table.
    let own_key = me.as_ref().map(|(k, _)| *k).or_else(|| {
        tables.values().find(|t| !t.is_practice()).and_then(|t| {
            let seat = usize::from(own_seat(t)?);
            Some(*t.seats.first()?.config.roster[seat].as_bytes())
        })
    });
    let my_name = me.as_ref().map(|(_, n)| clean_name(n));
    let mut start = 0;
    while start < rows.len() {
        let table = rows[start].table;
        let end = start
            + rows[start..]
                .iter()
                .take_while(|r| r.table == table)
                .count();
        let hands = &rows[start..end];
        start = end;
        let Some(info) = tables.get(&table) else {
            continue;
        };
        let Some(first) = info.seats.first() else {
            continue;
        };
        let Some(mine) = own_seat(info) else {
            continue;
        };
        let results: Vec<HandResult> = hands.iter().map(|r| r.result.clone()).collect();
        let told = story(&results);
        let change = rating_change(&told.balances(), hands.len() as u32);
        // Who each seat is: its key, or None for a bot (not listed).
        let practice_table = info.is_practice();
        let players: Vec<(usize, [u8; 32], bool)> = if practice_table {
            vec![(usize::from(mine), own_key.unwrap_or([0; 32]), true)]
        } else {
            (0..4)
                .filter(|&s| s == usize::from(mine) || !is_bot_seat(info, s))
                .map(|s| {
                    let key = *first.config.roster[s].as_bytes();
                    (s, key, s == usize::from(mine) || Some(key) == own_key)
                })
                .collect()
        };
        if practice_table {
            out.practice_tables += 1;
        } else {
            out.friend_tables += 1;
        }
        for (seat, key, is_me) in players {
            let seat_name = clean_name(&info.names[seat]);
            let p = if practice_table {
                practice.get_or_insert_with(|| {
                    PlayerStats::new(key, my_name.clone().unwrap_or(seat_name.clone()), true)
                })
            } else {
                let p = friends
                    .entry(key)
                    .or_insert_with(|| PlayerStats::new(key, seat_name.clone(), is_me));
                // The name it used last (tables come as booked).
                p.name = seat_name;
                p
            };
            p.sessions += 1;
            p.rating_eighths += change[seat];
            p.balance = Money(p.balance.0.saturating_add(told.seats[seat].balance.0));
            p.wins += told.seats[seat].wins;
            p.self_draws += told.seats[seat].self_draws;
            p.deal_ins += told.seats[seat].deal_ins;
            p.hands += hands.len() as u32;
            for r in &results {
                if tally(r)[seat].win {
                    p.won = Money(p.won.0.saturating_add(r.payments[seat].0));
                }
            }
        }
    }
    let mut list: Vec<PlayerStats> = friends.into_values().collect();
    for p in &mut list {
        if let Some(name) = shown.get(&p.key) {
            p.name = clean_name(name);
        }
        if p.me
            && let Some(n) = &my_name
        {
            p.name = n.clone();
        }
    }
    list.sort_by(|a, b| {
        b.me.cmp(&a.me)
            .then(b.rating_eighths.cmp(&a.rating_eighths))
            .then(b.hands.cmp(&a.hands))
            .then(a.name.cmp(&b.name))
            .then(a.key.cmp(&b.key))
    });
    out.friends = list;
    out.practice = practice;
    out
}

impl Store {
    /// Every player's statistics from this store's ledger ([`stats`]): names as the contacts
    /// show them (a nickname first), this player's as claimed.
    pub fn stats(&self) -> Result<Stats, StoreError> {
        let rows = self.ledger()?;
        let tables: BTreeMap<[u8; 32], TableInfo> =
            self.tables()?.into_iter().map(|t| (t.id, t)).collect();
        // This player: as the store was claimed, else the identity key file beside it (read,
        // never made: reading the statistics creates nothing).
        let me = match self
            .claimed_identity()?
            .and_then(|(hex, name)| Some((from_hex32(&hex)?, name)))
        {
            Some(me) => Some(me),
            None => match self.path().parent() {
                // With both files there, loading writes nothing.
                Some(dir)
                    if Identity::key_path(dir).is_file()
                        && dir.join(crate::identity::NAME_FILE).is_file() =>
                {
                    let id = Identity::load_or_create(dir, None)?;
                    Some((*id.public().as_bytes(), id.name.clone()))
                }
                _ => None,
            },
        };
        let shown = self
            .contacts()?
            .into_iter()
            .map(|c| (*c.key.as_bytes(), c.shown_name().to_string()))
            .filter(|(_, n)| !n.is_empty())
            .collect();
        Ok(stats(&rows, &tables, me, &shown))
    }

    /// The story of one stored table ([`story`] of its ledger rows).
    pub fn story(&self, table: &[u8; 32]) -> Result<Story, StoreError> {
        let rows = self.ledger_of(table)?;
        let results: Vec<HandResult> = rows.into_iter().map(|r| r.result).collect();
        Ok(story(&results))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn money(v: &[i64]) -> Vec<Money> {
        v.iter().map(|&c| Money(c)).collect()
    }

    /// Applies the payments; returns the balances left.
    fn apply(balances: &[Money], pays: &[Payment]) -> Vec<i64> {
        let mut left: Vec<i64> = balances.iter().map(|m| m.0).collect();
        for p in pays {
            left[p.from] += p.amount.0;
            left[p.to] -= p.amount.0;
        }
        left
    }

    /// The fewest payments by brute force: the most zero-sum groups over every way of
    /// labelling the players with group numbers.
    fn brute_minimum(balances: &[i64]) -> usize {
        let live: Vec<i64> = balances.iter().copied().filter(|b| *b != 0).collect();
        let n = live.len();
        let mut best = 0;
        // Every assignment of each player to one of n groups (n ≤ 6 here).
        let total = n.pow(n as u32);
        for code in 0..total {
            let mut sums = vec![0i64; n];
            let mut used = vec![false; n];
            let mut c = code;
            for b in &live {
                sums[c % n] += b;
                used[c % n] = true;
                c /= n;
            }
            if (0..n).all(|g| !used[g] || sums[g] == 0) {
                best = best.max(used.iter().filter(|u| **u).count());
            }
        }
        n - best
    }

    #[test]
    fn two_pairs_settle_in_two_payments_not_three() {
        // 阿明 -12, 小红 +12, 阿强 -5, 小丽 +5: two pairs.
        let b = money(&[-1200, 1200, -500, 500]);
        let pays = settle_up(&b);
        assert_eq!(
            pays,
            vec![
                Payment {
                    from: 0,
                    to: 1,
                    amount: Money(1200)
                },
                Payment {
                    from: 2,
                    to: 3,
                    amount: Money(500)
                },
            ]
        );
        // Greedy by size alone would pay 12 → 1, then 5 → 3 too, but a 7/5 split needs three.
        let b = money(&[-700, 1200, -500, 0]);
        assert_eq!(settle_up(&b).len(), 2);
        assert!(settle_up(&money(&[0, 0, 0, 0])).is_empty());
    }

    #[test]
    fn level_balances_share_the_place_points() {
        let b = [Money(500), Money(500), Money(-500), Money(-500)];
        assert_eq!(rating_change(&b, 8), [160, 160, -160, -160]);
        assert_eq!(rating_change(&[Money::ZERO; 4], 3), [0; 4]);
        let b = [Money(900), Money(-300), Money(-300), Money(-300)];
        assert_eq!(rating_change(&b, 16), [240, -80, -80, -80]);
        let b = [Money(-100), Money(300), Money(-200), Money(0)];
        assert_eq!(rating_change(&b, 2), [-20, 60, -60, 20]);
        for hands in [1, 4, 8, 20] {
            assert_eq!(rating_change(&b, hands).iter().sum::<i64>(), 0);
        }
    }

    proptest! {
        #[test]
        fn settle_up_clears_every_balance_with_the_fewest_payments(
            mut v in prop::collection::vec(-30i64..30, 1..7)
        ) {
            let total: i64 = v.iter().sum();
            v.push(-total);
            let b = money(&v);
            let pays = settle_up(&b);
            prop_assert!(apply(&b, &pays).iter().all(|x| *x == 0));
            prop_assert!(pays.iter().all(|p| p.amount.0 > 0 && p.from != p.to));
            prop_assert_eq!(pays.len(), brute_minimum(&v));
            // Conserved: what is paid is what the debtors owed.
            let owed: i64 = v.iter().filter(|x| **x < 0).map(|x| -x).sum();
            prop_assert_eq!(pays.iter().map(|p| p.amount.0).sum::<i64>(), owed);
            // The same input, the same payments.
            prop_assert_eq!(settle_up(&b), pays);
        }

        #[test]
        fn unbalanced_input_never_panics_and_pays_only_what_is_owed(
            v in prop::collection::vec(-1_000_000i64..1_000_000, 0..16)
        ) {
            let b = money(&v);
            let pays = settle_up(&b);
            let left = apply(&b, &pays);
            for (i, x) in left.iter().enumerate() {
                // Nobody is pushed past zero.
                prop_assert!(x.signum() == 0 || x.signum() == v[i].signum());
            }
        }
    }
}
