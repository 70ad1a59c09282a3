//! The `strong` level: every legal action is valued by what the hand would be worth after
//! it, and the best is played.
//!
//! A hand (one tile short of a complete hand, as after a discard) is valued per target
//! (docs/rules.en.md §5: 清一色, 混一色, 碰碰胡, 混碰/清碰, 风一色 in `qiaoma` and `classic`; any standard
//! hand in `baida`) as chance × points × paying seats ([`crate::value`]); the best target,
//! plus a little of the second best, is the hand's worth. A ready hand is valued tile by
//! tile with the scorer. A discard's score is that worth minus what the discard may cost
//! ([`crate::defence`]): the points it may pay to a ready seat and the chances it throws
//! away, and the 承包 risk of a third claim. Claims are compared with passing; kongs with the
//! best discard (a kong also brings flowers and a replacement draw, but an added kong may be
//! robbed).
//!
//! Rules it plays to: in `qiaoma` it declares ready (敲) as soon as the hand waits on live
//! tiles unless another discard is worth more (a better target, more live tiles), as it
//! cannot win otherwise; in `classic` it never declares (the declaration pays nothing there
//! and freezes the hand); in `baida` it never discards a wildcard and counts on self-draws
//! only. It always takes a win: passing one bars that tile (漏胡).

use crate::defence::{self, Threats};
use crate::seen::Seen;
use crate::shape::{Analyzer, NO_WIN, Target};
use crate::value::{self, Tune};
use crate::{ClaimKind, Decision, Defence, Plan, Progress, Reason, Wait};
use mahjong_rules::hand::{self, MeldShape, MeldType};
use mahjong_rules::{Action, Counts, Ruleset, Tile};

/// The worth of a hand and the plan behind it.
#[derive(Clone, Copy, Debug)]
pub struct Worth {
    /// Expected points.
    pub ev: f64,
    /// The best target.
    pub target: Target,
    /// Its distance from ready.
    pub dist: i32,
    /// Winning kinds if ready.
    pub waits: u64,
    /// Live winning tiles if ready.
    pub live: u32,
}

fn compatible(t: Target, melds: &[MeldShape]) -> bool {
    let mask = t.mask();
    melds.iter().all(|m| {
        (t.allows_chows() || m.kind != MeldType::Chow)
            && m.tiles().iter().all(|x| mask >> x.index() & 1 == 1)
    })
}

/// Values hands for one decision.
pub struct Evaluator<'a, 'v> {
    /// What the bot knows.
    pub seen: &'a Seen<'v>,
    /// Shape analysis.
    pub an: &'a mut Analyzer,
    /// The level's constants.
    pub tune: Tune,
}

impl Evaluator<'_, '_> {
    /// The targets a hand with `melds` can still reach (`baida`: the standard hand only).
    pub fn targets(&self, melds: &[MeldShape]) -> Vec<Target> {
        if self.seen.ruleset() == Ruleset::Baida {
            return vec![Target::Standard];
        }
        Target::restricted()
            .into_iter()
            .filter(|t| compatible(*t, melds))
            .collect()
    }

    /// The worth of a hand one tile short of complete; `declared`: ready is (or is being)
    /// declared, so the hand is frozen.
    pub fn worth(&mut self, counts: &Counts, melds: &[MeldShape], declared: bool) -> Worth {
        let seen = self.seen;
        let o = seen.options;
        let shape = seen.shape(counts, melds.len());
        let targets = self.targets(melds);
        let mut dists: Vec<(Target, i32)> = targets
            .iter()
            .map(|&t| (t, self.an.distance(&shape, t)))
            .collect();
        dists.sort_by_key(|&(_, d)| d);
        let best_d = dists.first().map(|x| x.1).unwrap_or(NO_WIN);
        let qiaoma_undeclared = o.must_declare_ready && !declared;
        let payers = value::payers(seen);
        let model = self.tune.model(seen.ruleset());
        let mut ready = None;
        if best_d <= 0 || declared {
            let waits = hand::waits(o, counts, melds, seen.view.wildcard);
            if waits != 0 {
                let live: u32 = (0..34)
                    .filter(|&i| waits >> i & 1 == 1)
                    .map(|i| seen.live[i] as u32)
                    .sum();
                let tune = self.tune;
                let value = tune.weigh(self.ready_value(
                    counts,
                    melds,
                    waits,
                    live,
                    dists.first().map(|x| x.0),
                ));
                let mut ev = value::ready_chance_in(&model, seen, live) * value * payers;
                if qiaoma_undeclared {
                    ev *= self.tune.undeclared;
                }
                ready = Some((ev, waits, live));
            }
        }
        if declared {
            let (ev, waits, live) = ready.unwrap_or((0.0, 0, 0));
            let target = dists.first().map(|x| x.0).unwrap_or(Target::Pungs);
            return Worth {
                ev,
                target,
                dist: 0,
                waits,
                live,
            };
        }
        let mut first = (
            0.0f64,
            dists.first().map(|x| x.0).unwrap_or(Target::Pungs),
            best_d,
        );
        let mut second = 0.0f64;
        for &(t, d) in &dists {
            if d > best_d + 1 {
                break;
            }
            let acc = self
                .an
                .acceptance_split(&shape, t, &seen.live, seen.wildcard);
            let d = acc.dist;
            let mut raw = value::target_value(seen, t, counts, melds);
            // `master` in `baida`: a hand whose wildcard can be left alone (跑百搭) after it is
            // ready, where master plays on past the win ([`Tune::run`], [`Tune::run_step`]).
            if self.tune.run > 0.0 && d >= 1 && seen.ruleset() == Ruleset::Baida {
                let beyond = self.an.run_distance(&shape).map(|r| r - d - 1);
                if let Some(k) = beyond.filter(|&k| k >= 0) {
                    raw *= 1.0 + (self.tune.run - 1.0) * self.tune.run_step.powi(k);
                }
            }
            let v = self.tune.weigh(raw);
            let mut ev = value::chance_in(&model, seen, t, &acc) * v * payers;
            if d == 0 && qiaoma_undeclared {
                ev *= self.tune.undeclared;
            }
            if ev > first.0 {
                second = first.0;
                first = (ev, t, d);
            } else if ev > second {
                second = ev;
            }
        }
        let flexible = if first.2 >= 1 {
            self.tune.second * second
        } else {
            0.0
        };
        let mut w = Worth {
            ev: first.0 + flexible,
            target: first.1,
            dist: first.2,
            waits: 0,
            live: 0,
        };
        if let Some((ev, waits, live)) = ready {
            if ev >= w.ev {
                w.ev = ev;
                w.dist = 0;
            }
            w.waits = waits;
            w.live = live;
        }
        w
    }

    /// Points per paying seat of a ready hand, averaged over its live winning tiles.
    fn ready_value(
        &mut self,
        counts: &Counts,
        melds: &[MeldShape],
        waits: u64,
        live: u32,
        target: Option<Target>,
    ) -> f64 {
        let seen = self.seen;
        if seen.ruleset() == Ruleset::Baida && !self.tune.exact_baida {
            return value::target_value(seen, Target::Standard, counts, melds);
        }
        let mut total = 0.0;
        let mut weight = 0.0;
        // A hand that wins on any tile already has 跑百搭's ×2 in every win.
        let run = self.tune.run > 0.0 && !value::runs(seen, counts);
        for i in (0..34).filter(|&i| waits >> i & 1 == 1) {
            let Some(t) = Tile::from_index(i) else {
                continue;
            };
            let mut c = *counts;
            c[i] += 1;
            let w = (seen.live[i] as f64).max(if live == 0 { 1.0 } else { 0.0 });
            if w == 0.0 {
                continue;
            }
            if let Some(v) = value::exact_value(seen, &c, melds, t) {
                let v = if run && value::can_run(seen, &c) {
                    v * self.tune.run
                } else {
                    v
                };
                total += w * v;
                weight += w;
            }
        }
        if weight > 0.0 {
            total / weight
        } else {
            value::target_value(seen, target.unwrap_or(Target::Pungs), counts, melds)
        }
    }

    /// What discarding a tile of kind `i` may cost, weighted, for a hand worth `ev` after it.
    pub fn loss(&self, threats: &Threats, i: usize, ev: f64) -> f64 {
        (threats.pay[i] + threats.danger[i] * ev + threats.feed[i] * self.tune.feed)
            * self.tune.defence
    }

    /// The best discard from a complete-size hand (after a draw or a claim), with the
    /// discard that would have been best for the hand alone (to tell when defence decided).
    pub fn best_discard(
        &mut self,
        counts: &Counts,
        melds: &[MeldShape],
        threats: &Threats,
        options: &[(Tile, bool, Action)],
    ) -> Option<Choice> {
        let seen = self.seen;
        let mut scored: Vec<Choice> = Vec::with_capacity(options.len());
        let mut all: Vec<(f64, f64, Tile)> = Vec::with_capacity(options.len());
        let keep_wild = seen.wildcard.is_some()
            && options
                .iter()
                .any(|(t, _, _)| Some(t.index()) != seen.wildcard);
        for (tile, ready, action) in options {
            let i = tile.index();
            if keep_wild && Some(i) == seen.wildcard {
                continue;
            }
            if *ready && seen.ruleset() == Ruleset::Classic {
                continue;
            }
            let mut c = *counts;
            if i >= 34 || c[i] == 0 {
                continue;
            }
            c[i] -= 1;
            let w = self.worth(&c, melds, *ready);
            let loss = self.loss(threats, i, w.ev);
            let score = w.ev - loss;
            all.push((w.ev, loss, *tile));
            scored.push(Choice {
                score,
                plain: score,
                action: action.clone(),
                tile: *tile,
                worth: w,
                loss,
                riskier: None,
            });
        }
        if self.tune.lookahead > 0 {
            crate::master::look_ahead(self, counts, melds, threats, &mut scored);
        }
        let mut best: Option<Choice> = None;
        for c in scored {
            if best.as_ref().is_none_or(|b| c.score > b.score) {
                best = Some(c);
            }
        }
        best.map(|b| Choice {
            // Defence decided if a discard at least as good for the hand was riskier: the
            // riskiest of those is the one the choice avoided.
            riskier: all
                .iter()
                .filter(|&&(e, l, _)| e >= b.worth.ev - 1e-9 && l > b.loss + 0.02)
                .max_by(|a, b| a.1.total_cmp(&b.1))
                .map(|&(_, _, t)| t),
            ..b
        })
    }
}

/// A chosen discard.
pub struct Choice {
    /// Worth minus what the discard may cost (for `master`, after its look-ahead: what
    /// decides between discards).
    pub score: f64,
    /// Worth minus what the discard may cost, without a look-ahead: what is weighed against
    /// kongs and passing (a look-ahead counts one more draw, so it is not on their footing).
    pub plain: f64,
    /// The discard.
    pub action: Action,
    /// Its tile.
    pub tile: Tile,
    /// The hand's worth after it.
    pub worth: Worth,
    /// What it may cost (weighted).
    pub loss: f64,
    /// The riskiest discard at least as good for the hand alone, when there is one: then
    /// defence decided, and this is the tile it avoided.
    pub riskier: Option<Tile>,
}

/// Why defence chose `chosen` over the riskier `avoided`, from the threats that make the
/// difference: the seat that `avoided` may pay most. The choice is called safe only when that
/// seat's risk on `chosen` is small and `chosen` is not in the suit of its likely flush;
/// otherwise the reason says only that `avoided` is more dangerous.
pub fn defence_reason(threats: &Threats, chosen: Tile, avoided: Tile) -> Defence {
    let (c, a) = (chosen.index(), avoided.index());
    if threats.feed[a] > threats.pay[a] {
        return Defence::Binding { avoided };
    }
    let Some(st) = threats
        .seats
        .iter()
        .max_by(|x, y| x.pay[a].total_cmp(&y.pay[a]))
    else {
        return Defence::Dangerous {
            avoided,
            threat: None,
        };
    };
    let in_flush = st
        .flush
        .is_some_and(|s| chosen.is_suited() && chosen.index() / 9 == s as usize);
    if !in_flush && st.pay[c] <= 0.25 * st.pay[a] {
        Defence::Safe {
            avoided,
            threat: st.threat,
        }
    } else {
        Defence::Dangerous {
            avoided,
            threat: Some(st.threat),
        }
    }
}

fn discard_options(legal: &[Action]) -> Vec<(Tile, bool, Action)> {
    legal
        .iter()
        .filter_map(|a| match a {
            Action::Discard { card, ready } => Some((card.tile, *ready, a.clone())),
            _ => None,
        })
        .collect()
}

/// Discard options for a hand after a claim: one per kind, and in rules with a ready
/// declaration the declaring variant where the rest would wait on something.
pub(crate) fn claim_discards(
    seen: &Seen,
    counts: &Counts,
    melds: &[MeldShape],
) -> Vec<(Tile, bool, Action)> {
    let mut out = Vec::new();
    let declare = seen.options.ready_declaration() && seen.ruleset() == Ruleset::Qiaoma;
    for i in 0..34 {
        if counts[i] == 0 {
            continue;
        }
        let Some(t) = Tile::from_index(i) else {
            continue;
        };
        // A placeholder action: the real card is picked from the legal list afterwards.
        out.push((t, false, Action::Pass));
        if declare {
            let mut c = *counts;
            c[i] -= 1;
            if hand::waits(seen.options, &c, melds, seen.view.wildcard) != 0 {
                out.push((t, true, Action::Pass));
            }
        }
    }
    out
}

/// The plan a worth stands for: its target and how far it is, the waits with their live
/// copies when ready.
pub fn plan_of(seen: &Seen, w: &Worth) -> Plan {
    let waits = (0..34)
        .filter(|&i| w.waits >> i & 1 == 1)
        .filter_map(|i| {
            Some(Wait {
                tile: Tile::from_index(i)?,
                live: seen.live[i],
            })
        })
        .collect();
    Plan {
        target: (w.dist < NO_WIN).then_some(w.target),
        progress: Progress::of(w.dist, waits),
    }
}

/// Chooses among the legal actions of a turn.
pub fn turn(an: &mut Analyzer, seen: &Seen) -> Decision {
    turn_with(an, seen, Tune::STRONG)
}

/// Chooses among the legal actions of a turn, with a level's constants.
pub fn turn_with(an: &mut Analyzer, seen: &Seen, tune: Tune) -> Decision {
    let legal = &seen.view.legal;
    let threats = defence::threats(seen);
    let mut ev = Evaluator { seen, an, tune };
    let options = discard_options(legal);
    let Some(choice) = ev.best_discard(&seen.counts, &seen.melds, &threats, &options) else {
        return fallback(legal);
    };
    let (mut best_score, mut best_action, worth) = (choice.plain, choice.action, choice.worth);
    let (chosen, riskier) = (choice.tile, choice.riskier);
    let mut reason = None;
    for a in legal {
        let (score, why) = match a {
            Action::ConcealedKong { cards } => {
                let (c, melds) = seen.after_concealed_kong(cards[0].tile);
                let w = ev.worth(&c, &melds, false);
                (
                    w.ev * 1.04 + 0.01,
                    Reason::Kong {
                        tile: cards[0].tile,
                        added: false,
                        plan: plan_of(seen, &w),
                    },
                )
            }
            Action::AddedKong { card } => {
                let i = card.tile.index();
                let (c, melds) = seen.after_added_kong(card.tile);
                let w = ev.worth(&c, &melds, false);
                let rob = threats.danger[i] * 3.0 * threats.worst_value;
                (
                    w.ev * 1.04 + 0.01 - rob,
                    Reason::Kong {
                        tile: card.tile,
                        added: true,
                        plan: plan_of(seen, &w),
                    },
                )
            }
            _ => continue,
        };
        if score > best_score {
            best_score = score;
            best_action = a.clone();
            reason = Some(why);
        }
    }
    let reason = reason.unwrap_or_else(|| match &best_action {
        Action::Discard { card, ready } => Reason::Discard {
            tile: card.tile,
            ready: *ready,
            plan: plan_of(seen, &worth),
            defence: riskier.map(|avoided| defence_reason(&threats, chosen, avoided)),
        },
        _ => Reason::Fallback,
    });
    Decision {
        action: best_action,
        reason,
    }
}

/// Chooses among the answers to a discard (pass, chow, pung, kong).
pub fn claim(an: &mut Analyzer, seen: &Seen) -> Decision {
    claim_with(an, seen, Tune::STRONG)
}

/// Chooses among the answers to a discard, with a level's constants.
pub fn claim_with(an: &mut Analyzer, seen: &Seen, tune: Tune) -> Decision {
    let legal = &seen.view.legal;
    let Some((from, tile)) = seen.claim_window() else {
        return fallback(legal);
    };
    let threats = defence::threats(seen);
    let mut ev = Evaluator { seen, an, tune };
    let pass = ev.worth(&seen.counts, &seen.melds, false);
    let mut best = (
        pass.ev * 1.02 + 1e-6,
        Action::Pass,
        Reason::Pass {
            tile,
            plan: Some(plan_of(seen, &pass)),
        },
    );
    for a in legal {
        let Some((c, melds, shape)) = seen.after_claim(a, tile) else {
            continue;
        };
        let kind = match shape.kind {
            MeldType::Chow => ClaimKind::Chow,
            MeldType::Pung => ClaimKind::Pung,
            _ => ClaimKind::Kong,
        };
        let (score, w) = if shape.kind == MeldType::ClaimedKong {
            let w = ev.worth(&c, &melds, false);
            (w.ev * 1.04, w)
        } else {
            let opts = claim_discards(seen, &c, &melds);
            match ev.best_discard(&c, &melds, &threats, &opts) {
                Some(choice) => (choice.plain, choice.worth),
                None => continue,
            }
        };
        if score > best.0 {
            best = (
                score,
                a.clone(),
                Reason::Claim {
                    kind,
                    tile,
                    from,
                    plan: plan_of(seen, &w),
                },
            );
        }
    }
    Decision {
        action: best.1,
        reason: best.2,
    }
}

/// The first legal action, when nothing is worth weighing.
pub fn fallback(legal: &[Action]) -> Decision {
    Decision {
        action: legal.first().cloned().unwrap_or(Action::Pass),
        reason: Reason::Fallback,
    }
}
