//! What a hand is worth to its holder: the points a win would bring (docs/rules.en.md §6) and a
//! rough chance of getting there before the wall runs out.
//!
//! Values: a finished target is valued as the scorer would value it — 清一色 and 混碰 one
//! 勒子, 清碰 and 风一色 two, 混一色 and 碰碰胡 the base 2 plus flowers, ×2 for 门清, 开宝 and
//! 荒番 within the caps and the table limit (`qiaoma`); 8-point lezi and ×2 荒番 (`classic`);
//! flowers × 2^fan (`baida`). A hand one tile short is valued exactly, tile by tile, with the
//! rules crate's own scorer.
//!
//! Chances: a hand `d` draws from ready with `a` live useful tiles reaches ready and then a
//! win in `d + 1` steps. The first step's mean time (in rounds of play) is the unseen tiles
//! over the useful ones, counting those another seat may discard for a pung (three seats) or
//! a chow (the left seat); later steps use a typical acceptance; the last, the winning
//! tiles, counting wins on discards where the rules allow them. The total is a gamma time
//! whose spread grows with the steps, raced against the rounds left and against another
//! seat ending the hand (a hazard per round that grows with ready seats and melds). The
//! constants ([`Model`]) started from a maximum-likelihood fit to self-play of this level and
//! were then set by reasoning (rates of claims and discards) and by arena results.

use crate::seen::Seen;
use crate::shape::{Acceptance, Target};
use mahjong_rules::hand::{self, MeldShape};
use mahjong_rules::scoring::{self, Settlement, WinKind, WinnerHand};
use mahjong_rules::{Counts, MenqingEffect, Ruleset, Tile, shape, tile::tiles_of};

/// Tuning constants of the decisions, in one place (the chance model's are in [`Model`]).
/// They were chosen by playing the arena (`mahjong arena`) against the basic level.
pub mod k {
    /// Values are weighed as `V^VALUE_EXPONENT · VALUE_REF^(1 − VALUE_EXPONENT)`: the chance
    /// model is too hopeful about long roads to big hands, and damping the values (rather
    /// than ignoring them) played best.
    pub const VALUE_EXPONENT: f64 = 0.4;
    /// The value (points per paying seat) that the damping leaves unchanged.
    pub const VALUE_REF: f64 = 8.0;
    /// Weight of what a discard may cost against the hand's own worth.
    pub const DEFENCE: f64 = 0.5;
    /// Weight of the second-best target (keeping two plans open is worth something).
    pub const SECOND: f64 = 0.2;
    /// `qiaoma`: ready but not declared yet costs a turn.
    pub const UNDECLARED: f64 = 0.85;
}

/// A value as the decisions weigh it (see [`k::VALUE_EXPONENT`]).
pub fn weigh(v: f64) -> f64 {
    Tune::STRONG.weigh(v)
}

/// The decision constants of one level ([`k`] holds the `strong` level's).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tune {
    /// See [`k::VALUE_EXPONENT`].
    pub value_exponent: f64,
    /// See [`k::DEFENCE`].
    pub defence: f64,
    /// See [`k::SECOND`].
    pub second: f64,
    /// See [`k::UNDECLARED`].
    pub undeclared: f64,
    /// Discards looked at one draw ahead (`master`, [`crate::master`]); 0: none.
    pub lookahead: usize,
    /// Weight of the 承包 feeding cost ([`crate::defence::Threats::feed`]): 1 for `strong`.
    pub feed: f64,
    /// `baida`: a ready hand is valued tile by tile with the rules crate's scorer, as in the
    /// other rulesets (so 跑百搭, 大吊 and 无百搭 count), rather than by flowers and wildcards
    /// alone. `strong`: false.
    pub exact_baida: bool,
    /// Scale of [`Model::wait`], the live winning tiles the chance model expects a hand not
    /// yet ready to wait on once ready: 1 for `strong`. Below 1 the model is less hopeful about
    /// hands still far from ready, so a hand nearer ready counts for more against a bigger
    /// hand further away.
    pub wait: f64,
    /// `baida`: a winning tile whose win could instead throw a tile and leave a wildcard
    /// alone, winning on any tile at the next draw (跑百搭, [`can_run`]), is worth this
    /// multiple of its win's points to a ready hand that does not win on any tile already
    /// (`master` plays on for it, [`crate::master::play_on`]); so is a hand short of ready
    /// whose wildcard can be left alone one step after it is ready
    /// ([`crate::shape::Analyzer::run_distance`]). 0: neither is counted (`strong`).
    pub run: f64,
    /// `baida`, with [`Tune::run`]: a hand short of ready whose wildcard can be left alone
    /// `k + 1` steps after it is ready counts `1 + (run − 1) × run_step^k` times its value
    /// (`k` = 0: `run` itself). 0: only the hand one step beyond counts.
    pub run_step: f64,
}

impl Tune {
    /// The `strong` level's.
    pub const STRONG: Tune = Tune {
        value_exponent: k::VALUE_EXPONENT,
        defence: k::DEFENCE,
        second: k::SECOND,
        undeclared: k::UNDECLARED,
        lookahead: 0,
        feed: 1.0,
        exact_baida: false,
        wait: 1.0,
        run: 0.0,
        run_step: 0.0,
    };

    /// The chance model of `ruleset` with this level's scale ([`Tune::wait`]).
    pub fn model(&self, ruleset: Ruleset) -> Model {
        let mut m = model(ruleset);
        m.wait *= self.wait;
        m
    }

    /// A value as the decisions weigh it: `V^e · VALUE_REF^(1 − e)`.
    pub fn weigh(&self, v: f64) -> f64 {
        if v <= 0.0 {
            return 0.0;
        }
        v.powf(self.value_exponent) * k::VALUE_REF.powf(1.0 - self.value_exponent)
    }
}

/// Flowers a hand shows now (docs/rules.en.md §6 flower table): flower tiles, melds, and honor
/// triples in hand (`qiaoma`/`classic`).
pub fn flowers_now(seen: &Seen, counts: &Counts, melds: &[MeldShape]) -> u32 {
    let mut f = seen.flower_tiles() + melds.iter().map(|m| m.flowers()).sum::<u32>();
    for (i, &n) in counts.iter().enumerate().skip(27) {
        if let (true, Some(t)) = (n >= 3 && Some(i) != seen.wildcard, Tile::from_index(i)) {
            f += hand::honor_pung_flowers(t);
        }
    }
    f
}

/// `baida`: whether 13 concealed tiles (`c`, wildcards included) win on any tile (跑百搭):
/// a wildcard, and the rest sets only.
pub fn runs(seen: &Seen, c: &Counts) -> bool {
    let Some(w) = seen.wildcard.filter(|&w| c[w] > 0) else {
        return false;
    };
    let mut real = *c;
    real[w] = 0;
    shape::is_sets_wild(&real, c[w] - 1)
}

/// `baida`: whether a complete hand (`c`, concealed with the winning tile, wildcards
/// included) could throw one tile other than a wildcard and leave 13 that win on any tile
/// ([`runs`]).
pub fn can_run(seen: &Seen, c: &Counts) -> bool {
    (0..34).any(|j| {
        let mut rest = *c;
        c[j] > 0 && Some(j) != seen.wildcard && {
            rest[j] -= 1;
            runs(seen, &rest)
        }
    })
}

/// The points per paying seat a win of `target` would bring, from what the hand holds now.
pub fn target_value(seen: &Seen, target: Target, counts: &Counts, melds: &[MeldShape]) -> f64 {
    let o = seen.options;
    let menqing = hand::is_menqing(melds);
    let huangfan = seen.view.huangfan > 0;
    if o.ruleset == Ruleset::Baida {
        let jokers = seen.wildcard.map(|w| counts[w]).unwrap_or(0) as u32;
        let mut f = o.base_points + flowers_now(seen, counts, melds) + jokers;
        if menqing && o.menqing == MenqingEffect::Flower {
            f += 1;
        }
        let fan = if jokers == 0 { 2.0 } else { 1.0 };
        return f as f64 * fan * if huangfan { 2.0 } else { 1.0 };
    }
    let lezi = o.lezi_points.unwrap_or(10) as f64;
    let p = (o.base_points + flowers_now(seen, counts, melds)) as f64;
    let honors = counts[27..34].iter().any(|&n| n > 0) || melds.iter().any(|m| m.tile.is_honor());
    let (v, cap) = match target {
        Target::Qing(_) => (lezi, 1.0),
        Target::Hun(_) | Target::Pungs | Target::Standard => (p, 1.0),
        Target::FlushPungs(_) if honors => (lezi, 1.0),
        Target::FlushPungs(_) | Target::Honors => (2.0 * lezi, 2.0),
    };
    if o.ruleset == Ruleset::Classic {
        let v = if matches!(target, Target::Hun(_) | Target::Pungs | Target::Standard) {
            v.min(lezi)
        } else {
            lezi
        };
        return v * if huangfan { 2.0 } else { 1.0 };
    }
    let menqing = menqing && o.menqing == MenqingEffect::Double;
    let kaibao = o.kaibao && seen.view.dice.is_kaibao();
    let mut mult = 1.0;
    let mut cap = cap;
    if menqing {
        mult *= 2.0;
        cap = f64::max(cap, 2.0);
    }
    for on in [kaibao, huangfan] {
        if on {
            mult *= 2.0;
            cap *= 2.0;
        }
    }
    let mut s = (v * mult).min(lezi * cap);
    if let Some(limit) = o.table_limit_lezi {
        s = s.min(limit as f64 * lezi);
    }
    s
}

/// The exact points per paying seat of a complete hand (concealed with the winning tile),
/// by the rules crate's scorer; `None` if it does not win.
pub fn exact_value(
    seen: &Seen,
    complete: &Counts,
    melds: &[MeldShape],
    winning: Tile,
) -> Option<f64> {
    exact_value_after(seen, complete, melds, winning, false)
}

/// [`exact_value`], the winning tile being a replacement draw (杠开) when `replacement`.
pub fn exact_value_after(
    seen: &Seen,
    complete: &Counts,
    melds: &[MeldShape],
    winning: Tile,
    replacement: bool,
) -> Option<f64> {
    let view = seen.view;
    let mut declared = [false; 4];
    for (d, s) in declared.iter_mut().zip(&view.seats) {
        *d = s.ready;
    }
    declared[seen.me as usize] = seen.options.must_declare_ready || declared[seen.me as usize];
    let settlement = Settlement {
        options: seen.options.clone(),
        stake: mahjong_rules::Money::coins(1),
        dealer: view.dealer,
        kaibao: view.dice.is_kaibao(),
        huangfan: view.huangfan,
        wildcard: view.wildcard,
        declared,
        claims: view.claims,
        kind: WinKind::SelfDraw,
        from: None,
        winners: vec![],
    };
    let winner = WinnerHand {
        seat: seen.me,
        concealed: tiles_of(complete),
        winning_tile: Some(winning),
        melds: melds.to_vec(),
        flowers: view.seats[seen.me as usize].flowers.clone(),
        replacement_draw: replacement,
    };
    scoring::score_winner(&settlement, &winner)
        .ok()
        .map(|w| w.score as f64)
}

/// Seats paying a win, on average: all three on a self-draw, the discarder alone otherwise.
pub fn payers(seen: &Seen) -> f64 {
    if !seen.options.win_on_discard {
        return 3.0;
    }
    let self_share = 1.0 / (1.0 + 3.0 * model(seen.ruleset()).discard);
    3.0 * self_share + (1.0 - self_share)
}

/// The chance model's constants, fitted by maximum likelihood to self-play of the strong
/// level (outcome: the seat won the hand), per ruleset.
#[derive(Clone, Copy, Debug)]
pub struct Model {
    /// Weight of a useful tile coming as another seat's discard (pung ×3 seats, chow ×1).
    pub claim: f64,
    /// Live useful tiles at later steps, chow targets.
    pub mid_chows: f64,
    /// Live useful tiles at later steps, pung targets.
    pub mid_pungs: f64,
    /// Live winning tiles a ready hand will have.
    pub wait: f64,
    /// Weight of a winning tile coming as another seat's discard (×3 seats).
    pub discard: f64,
    /// Stages per step: the spread of the time to finish (1 = Erlang, less = wider).
    pub stages: f64,
    /// Hazard per round that another seat ends the hand: base, per ready seat, per meld.
    pub hazard: [f64; 3],
}

/// The model for a ruleset.
pub fn model(ruleset: Ruleset) -> Model {
    match ruleset {
        Ruleset::Qiaoma | Ruleset::Classic => Model {
            claim: 0.7,
            mid_chows: 18.0,
            mid_pungs: 14.0,
            wait: 4.0,
            discard: 0.5,
            stages: 1.5,
            hazard: [0.005, 0.15, 0.01],
        },
        Ruleset::Baida => Model {
            claim: 0.7,
            mid_chows: 24.0,
            mid_pungs: 24.0,
            wait: 6.0,
            discard: 0.0,
            stages: 1.5,
            hazard: [0.01, 0.0, 0.01],
        },
    }
}

/// Hazard per round that another seat ends the hand.
fn hazard(seen: &Seen, m: &Model) -> f64 {
    let mut h = m.hazard[0];
    for (i, s) in seen.view.seats.iter().enumerate() {
        if i as u8 != seen.me {
            h += m.hazard[1] * s.ready as u8 as f64 + m.hazard[2] * s.melds.len() as f64;
        }
    }
    h
}

/// Regularised lower incomplete gamma P(k, x), k > 0.
fn gamma_p(k: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    let ln_front = -x + k * x.ln() - ln_gamma(k);
    if x < k + 1.0 {
        let (mut n, mut term) = (k, 1.0 / k);
        let mut sum = term;
        for _ in 0..200 {
            n += 1.0;
            term *= x / n;
            sum += term;
            if term < sum * 1e-10 {
                break;
            }
        }
        return (sum * ln_front.exp()).min(1.0);
    }
    // Continued fraction for the upper part (Lentz).
    let tiny = 1e-300;
    let mut b = x + 1.0 - k;
    let mut c = 1.0 / tiny;
    let mut d = 1.0 / b;
    let mut h = d;
    for i in 1..200 {
        let an = -(i as f64) * (i as f64 - k);
        b += 2.0;
        d = an * d + b;
        if d.abs() < tiny {
            d = tiny;
        }
        c = b + an / c;
        if c.abs() < tiny {
            c = tiny;
        }
        d = 1.0 / d;
        let delta = d * c;
        h *= delta;
        if (delta - 1.0).abs() < 1e-10 {
            break;
        }
    }
    (1.0 - ln_front.exp() * h).max(0.0)
}

/// ln Γ(x) for x > 0 (Lanczos).
fn ln_gamma(x: f64) -> f64 {
    const G: [f64; 6] = [
        76.18009172947146,
        -86.50532032941677,
        24.01409824083091,
        -1.231739572450155,
        0.1208650973866179e-2,
        -0.5395239384953e-5,
    ];
    let mut y = x;
    let tmp = x + 5.5;
    let tmp = tmp - (x + 0.5) * tmp.ln();
    let mut ser = 1.000000000190015;
    for g in G {
        y += 1.0;
        ser += g / y;
    }
    -tmp + (2.5066282746310005 * ser / x).ln()
}

/// The chance of finishing `stages` stages of total mean time `mean` before the wall ends
/// and before another seat wins (hazard `h`): E[e^{-hτ}; τ ≤ T] for a gamma time τ.
fn finish(stages: f64, mean: f64, h: f64, t: f64) -> f64 {
    if mean <= 0.0 {
        return 1.0;
    }
    let lambda = stages / mean;
    ((lambda / (lambda + h)).powf(stages) * gamma_p(stages, (lambda + h) * t)).clamp(0.0, 1.0)
}

/// Weight of the three other discards for a win, where wins on a discard exist.
fn discard_weight(seen: &Seen, m: &Model) -> f64 {
    if seen.options.win_on_discard {
        1.0 + 3.0 * m.discard
    } else {
        1.0
    }
}

/// The chance of a win for a hand `acc.dist` draws from ready with the given acceptance.
pub fn chance(seen: &Seen, target: Target, acc: &Acceptance) -> f64 {
    chance_in(&model(seen.ruleset()), seen, target, acc)
}

/// [`chance`] under the model `m`.
pub fn chance_in(m: &Model, seen: &Seen, target: Target, acc: &Acceptance) -> f64 {
    if acc.dist < 0 {
        return 1.0;
    }
    if acc.all == 0 {
        return 0.0;
    }
    let unseen = seen.unseen as f64;
    let h = hazard(seen, m);
    let t = seen.cycles_left();
    if acc.dist == 0 {
        return finish(
            1.0,
            unseen / (acc.all as f64 * discard_weight(seen, m)),
            h,
            t,
        );
    }
    let claims = if seen.ready() {
        0.0
    } else {
        m.claim * (3.0 * acc.pung as f64 + acc.chow as f64)
    };
    let first = unseen / (acc.all as f64 + claims);
    let mid = if target.allows_chows() {
        m.mid_chows
    } else {
        m.mid_pungs
    };
    let last = unseen / (m.wait * discard_weight(seen, m));
    let mean = first + (acc.dist - 1) as f64 * unseen / mid + last;
    finish(1.0 + m.stages * acc.dist as f64, mean, h, t)
}

/// The chance of a win for a hand ready on `live` winning tiles.
pub fn ready_chance(seen: &Seen, live: u32) -> f64 {
    ready_chance_in(&model(seen.ruleset()), seen, live)
}

/// [`ready_chance`] under the model `m`.
pub fn ready_chance_in(m: &Model, seen: &Seen, live: u32) -> f64 {
    chance_in(
        m,
        seen,
        Target::Standard,
        &Acceptance {
            dist: 0,
            all: live,
            pung: 0,
            chow: 0,
        },
    )
}
