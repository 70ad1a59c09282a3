//! Defence: how much a discard may cost (docs/rules.en.md §4.4 wins on a discard, §6 who pays and
//! 承包).
//!
//! For every other seat the bot estimates the chance it is one tile from a win — certain
//! once it has declared ready, none in `qiaoma` before that (it cannot win without 敲) and
//! in `baida` ever (self-draw only), and growing with its melds and discards in `classic` —
//! and which hand it is building, from its melds (a chow fixes the suit; pungs in two suits
//! mean 碰碰胡) and its discards (a flush player throws away the other suits). A tile's
//! danger is the chance it is among that seat's waits: none for a tile discarded since the
//! seat declared ready (its hand is frozen, and it did not win on it), none for an honor with
//! no copy left unseen, less for tiles the seat threw away itself, more for middle tiles of
//! its suit. Its cost is what the discarder pays (S, doubled under 承包 rows) plus the bot's
//! own chances, which end with the hand.
//!
//! 承包 feeding: when a seat has made two claims on the bot's discards (or the bot on its),
//! a third binds them, and a bound winner costs the feeder up to five times as much on a
//! self-draw, so discards that seat could pung (or chow, if it sits next) cost extra.

use crate::seen::Seen;
use crate::{Guessed, Threat};
use mahjong_rules::hand::MeldType;
use mahjong_rules::view::PublicSeat;
use mahjong_rules::{BindingRule, Ruleset, Seat, Tile};

/// What each discard (by kind) may cost.
pub struct Threats {
    /// Chance the discard wins for another seat.
    pub danger: [f64; 34],
    /// Expected points paid for that.
    pub pay: [f64; 34],
    /// Expected 承包 cost of a claim it allows.
    pub feed: [f64; 34],
    /// Points per paying seat the most dangerous seat's win is worth, for robbing risks.
    pub worst_value: f64,
    /// The seat that worries the bot most, and why (for explanations).
    pub main: Option<Threat>,
    /// Each seat that may win on the bot's discards: what each discard may pay it.
    pub seats: Vec<SeatThreat>,
    /// Sum over seats of their chance to be one tile from a win.
    pub pressure: f64,
}

/// One seat's threat to the bot's discards.
pub struct SeatThreat {
    /// The seat.
    pub seat: Seat,
    /// Why it worries (it declared ready, it likely builds a flush in dots…).
    pub threat: Threat,
    /// The suit of the flush it likely builds.
    pub flush: Option<u8>,
    /// Expected points each discard (by kind) may pay it.
    pub pay: [f64; 34],
}

/// The hands another seat may be building, as weights.
struct Guess {
    flush: [f64; 3],
    pungs: f64,
    honors: f64,
    single: f64,
}

fn guess(seat: &PublicSeat, classic: bool) -> Guess {
    let mut suits = 0u8;
    let mut chow = false;
    let mut pung_melds = 0;
    let mut honor_melds = 0;
    for m in &seat.melds {
        if m.kind == MeldType::Chow {
            chow = true;
        } else {
            pung_melds += 1;
        }
        if let Some(t) = m.tile {
            if t.is_suited() {
                suits |= 1 << (t.index() / 9);
            } else {
                honor_melds += 1;
            }
        }
    }
    let mut thrown = [0u32; 4];
    for d in &seat.discards {
        let t = d.card.tile;
        if t.is_suited() {
            thrown[t.index() / 9] += 1;
        } else if t.is_honor() {
            thrown[3] += 1;
        }
    }
    let mut g = Guess {
        flush: [0.0; 3],
        pungs: 0.0,
        honors: 0.0,
        single: 0.0,
    };
    for s in 0..3 {
        if suits & !(1 << s) == 0 {
            let shown = if suits & (1 << s) != 0 { 3.0 } else { 1.0 };
            g.flush[s] = shown * (-0.35 * thrown[s] as f64).exp();
        }
    }
    if !chow {
        g.pungs = 0.3 * (1.0 + pung_melds as f64);
        if suits == 0 {
            g.honors = 0.03 * (1.0 + 3.0 * honor_melds as f64) * (-0.5 * thrown[3] as f64).exp();
        }
    }
    if classic && seat.melds.len() == 4 {
        g.single = 1.0;
    }
    let total: f64 = g.flush.iter().sum::<f64>() + g.pungs + g.honors + g.single;
    if total > 0.0 {
        for f in &mut g.flush {
            *f /= total;
        }
        g.pungs /= total;
        g.honors /= total;
        g.single /= total;
    }
    g
}

/// Position weights of suited tiles as waits (middle tiles wait two ways).
const NUMBER_WEIGHT: [f64; 9] = [0.7, 0.9, 1.1, 1.2, 1.2, 1.2, 1.1, 0.9, 0.7];

/// Chance each kind is among a seat's waits, given it is one tile from a win.
fn wait_chances(g: &Guess, live: &[u8; 34], is_flower: impl Fn(usize) -> bool) -> [f64; 34] {
    let mut p = [0.0; 34];
    let honor_w = |u: u8| match u {
        0 => 0.0,
        1 => 0.45,
        _ => 0.9,
    };
    // A ready flush waits on two or three kinds of its suit, an honor only now and then (a
    // 混一色 pair or pung wait): the expected waits are spread over the suit's tiles and the
    // honors separately, so a middle tile of the suit is about a one-in-three wait.
    for s in 0..3 {
        if g.flush[s] <= 0.0 {
            continue;
        }
        let mut w = [0.0f64; 34];
        let (mut suit_total, mut honor_total) = (0.0f64, 0.0f64);
        for i in (9 * s..9 * s + 9).chain(27..34) {
            if is_flower(i) {
                continue;
            }
            if i < 27 {
                w[i] = NUMBER_WEIGHT[i % 9] * (0.6 + 0.2 * live[i].min(2) as f64);
                suit_total += w[i];
            } else {
                w[i] = honor_w(live[i]);
                honor_total += w[i];
            }
        }
        for i in 0..34 {
            let (waits, total) = if i < 27 {
                (2.5, suit_total)
            } else {
                (0.6, honor_total)
            };
            if total > 0.0 {
                p[i] += g.flush[s] * (waits * w[i] / total).min(0.9);
            }
        }
    }
    if g.pungs > 0.0 || g.single > 0.0 {
        let mut w = [0.0f64; 34];
        let mut total = 0.0f64;
        let mut singles = 0.0f64;
        for i in 0..34 {
            if is_flower(i) {
                continue;
            }
            w[i] = match live[i] {
                0 => 0.0,
                1 => 0.35,
                _ => 1.0,
            };
            total += w[i];
            if live[i] > 0 {
                singles += 1.0;
            }
        }
        for i in 0..34 {
            if total > 0.0 {
                p[i] += g.pungs * (1.8 * w[i] / total).min(0.9);
            }
            if singles > 0.0 && live[i] > 0 {
                p[i] += g.single / singles;
            }
        }
    }
    if g.honors > 0.0 {
        for v in p.iter_mut().skip(27) {
            *v += g.honors * 0.9;
        }
    }
    p
}

/// Points per paying seat a win of this seat would be worth, roughly.
fn seat_value(seen: &Seen, seat: &PublicSeat, g: &Guess) -> f64 {
    let o = seen.options;
    let lezi = o.lezi_points.unwrap_or(10) as f64;
    let shown: u32 = seat.flowers.len() as u32
        + seat
            .melds
            .iter()
            .filter_map(|m| {
                m.tile
                    .map(|tile| mahjong_rules::MeldShape { kind: m.kind, tile }.flowers())
            })
            .sum::<u32>();
    let p = (o.base_points + shown) as f64 + 1.0;
    let flush: f64 = g.flush.iter().sum();
    let huangfan = seen.view.huangfan > 0;
    if o.ruleset == Ruleset::Classic {
        let v = flush * (0.5 * lezi + 0.5 * p.min(lezi))
            + g.pungs * p.min(lezi)
            + (g.honors + g.single) * lezi;
        return v * if huangfan { 2.0 } else { 1.0 };
    }
    let menqing = seat.melds.iter().all(|m| !m.kind.is_open());
    let kaibao = o.kaibao && seen.view.dice.is_kaibao();
    let scored = |v: f64, cap: f64| -> f64 {
        let (mut v, mut cap) = (v, cap);
        if menqing {
            v *= 2.0;
            cap = cap.max(2.0);
        }
        for on in [kaibao, huangfan] {
            if on {
                v *= 2.0;
                cap *= 2.0;
            }
        }
        let v = v.min(lezi * cap);
        o.table_limit_lezi.map_or(v, |l| v.min(l as f64 * lezi))
    };
    flush * (0.5 * scored(lezi, 1.0) + 0.5 * scored(p, 1.0))
        + g.pungs * scored(p, 1.0)
        + g.honors * scored(2.0 * lezi, 2.0)
}

/// Units of S the bot pays when its discard wins for `w` (docs/rules.en.md §6 承包 rows).
fn pay_units(seen: &Seen, w: Seat) -> f64 {
    let o = seen.options;
    let Some(rule) = o.binding else { return 1.0 };
    let me = seen.me;
    let claims = &seen.view.claims;
    let mut units = 0.0;
    let mut bound = false;
    for r in 0..4u8 {
        if r == w || claims[w as usize][r as usize] + claims[r as usize][w as usize] < 3 {
            continue;
        }
        bound = true;
        // The bound seat itself, or (承包 rows) an undeclared third seat, pays double.
        units += if r == me || (rule == BindingRule::Qiaoma && !seen.ready()) {
            2.0
        } else {
            1.0
        };
    }
    if bound { units } else { 1.0 }
}

/// Kinds a ready seat has let pass since it declared: its own later discards, and the
/// others' discards that came after (counted by turn order; claims blur this, so it is
/// a little cautious).
fn passed_since_ready(seen: &Seen, o: Seat) -> u64 {
    let seats = &seen.view.seats;
    let Some(r) = seats[o as usize].discards.iter().position(|d| d.ready) else {
        return 0;
    };
    let after = seats[o as usize].discards.len() - 1 - r;
    let cur = seen.me;
    let mut mask = 0u64;
    for x in 0..4u8 {
        let n = if x == o {
            after
        } else {
            let dx = (x + 4 - o) % 4;
            let dc = (cur + 4 - o) % 4;
            if dx < dc { after + 1 } else { after }
        };
        let ds = &seats[x as usize].discards;
        for d in ds.iter().rev().take(n.min(ds.len())) {
            if d.card.tile.is_suited() || d.card.tile.is_honor() {
                mask |= 1 << d.card.tile.index();
            }
        }
    }
    mask
}

/// Chance that another seat is one tile from a win.
fn ready_chance(seen: &Seen, seat: &PublicSeat) -> f64 {
    let o = seen.options;
    if !o.win_on_discard {
        return 0.0;
    }
    if seat.ready {
        return 1.0;
    }
    if o.must_declare_ready {
        return 0.0;
    }
    // Measured in self-play (`classic`, strong and basic players): the share of seats one
    // tile from a win, by melds and by discards made (in threes). Four melds always wait
    // (大吊车 wins alone in `classic`).
    const TABLE: [[f64; 6]; 5] = [
        [0.0, 0.0, 0.0, 0.01, 0.01, 0.05],
        [0.0, 0.0, 0.0, 0.02, 0.04, 0.12],
        [0.0, 0.01, 0.03, 0.06, 0.12, 0.21],
        [0.15, 0.2, 0.3, 0.33, 0.38, 0.46],
        [1.0; 6],
    ];
    TABLE[seat.melds.len().min(4)][(seat.discards.len() / 3).min(5)]
}

/// The threats of the table to the bot's discards.
pub fn threats(seen: &Seen) -> Threats {
    let mut t = Threats {
        danger: [0.0; 34],
        pay: [0.0; 34],
        feed: [0.0; 34],
        worst_value: 0.0,
        main: None,
        seats: Vec::new(),
        pressure: 0.0,
    };
    let classic = seen.ruleset() == Ruleset::Classic;
    let is_flower = |i: usize| Tile::from_index(i).is_some_and(|x| seen.options.is_flower(x));
    let mut worst = 0.0;
    for o in (1..4).map(|k| (seen.me + k) % 4) {
        let seat = &seen.view.seats[o as usize];
        let pt = ready_chance(seen, seat);
        let g = guess(seat, classic);
        let value = seat_value(seen, seat, &g);
        if pt > 0.0 {
            t.pressure += pt;
            let mut p = wait_chances(&g, &seen.live, is_flower);
            if seat.ready {
                let safe = passed_since_ready(seen, o);
                for (i, v) in p.iter_mut().enumerate() {
                    if safe >> i & 1 == 1 {
                        *v = 0.0;
                    }
                }
            }
            for d in &seat.discards {
                let i = d.card.tile.index();
                if i < 34 {
                    p[i] *= 0.6;
                }
            }
            let units = pay_units(seen, o);
            let mut pay = [0.0; 34];
            for i in 0..34 {
                t.danger[i] += pt * p[i];
                pay[i] = pt * p[i] * value * units;
                t.pay[i] += pay[i];
            }
            let flush = (0..3)
                .max_by(|&a, &b| g.flush[a].total_cmp(&g.flush[b]))
                .filter(|&s| g.flush[s] > 0.5);
            let why = Threat {
                seat: o,
                declared: seat.ready,
                hand: match flush {
                    Some(s) => Some(Guessed::Flush(s as u8)),
                    None if g.pungs > 0.5 => Some(Guessed::Pungs),
                    None => None,
                },
            };
            let threat = pt * value;
            if threat > worst {
                worst = threat;
                t.worst_value = value;
                t.main = Some(why);
            }
            t.seats.push(SeatThreat {
                seat: o,
                threat: why,
                flush: flush.map(|s| s as u8),
                pay,
            });
        }
        // 承包: a third claim between this seat and the bot binds them.
        if let Some(rule) = seen.options.binding {
            let between = seen.view.claims[o as usize][seen.me as usize]
                + seen.view.claims[seen.me as usize][o as usize];
            if between == 2 && !seat.ready {
                let extra = if rule == BindingRule::Qiaoma {
                    2.2
                } else {
                    1.4
                };
                let win = 0.25;
                let next = o == (seen.me + 1) % 4;
                for i in 0..34 {
                    let fit = g.flush.get(i / 9).copied().unwrap_or(0.0)
                        + if i >= 27 {
                            g.flush.iter().sum()
                        } else {
                            g.pungs
                        };
                    let pung = if seen.live[i] >= 2 { 0.15 } else { 0.0 };
                    let chow = if next && i < 27 { 0.15 } else { 0.0 };
                    t.feed[i] += (pung + chow) * fit.min(1.0) * win * extra * value;
                }
            }
        }
    }
    t
}
