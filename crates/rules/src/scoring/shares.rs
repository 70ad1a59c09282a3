//! Who pays whom: each loser's share (承包 and its bound seats included) and a leaver's
//! penalty.

use super::*;

/// The shares one winner is paid, in units of its S, with the reason for each: the whole
/// payment table of §6 (self-draw, discard, robbing; 承包 / 吃三口 rows for each seat bound
/// to the winner, adding up).
pub(super) fn share_rows(
    s: &Settlement,
    w: Seat,
    winners: &[Seat],
) -> Vec<(Seat, u32, ShareReason)> {
    let mut rows = Vec::with_capacity(4);
    let others = |x: Seat| (0..4u8).filter(move |&o| o != x);
    let from = s.from.unwrap_or(0);
    let bound = match s.options.binding {
        Some(_) => bound_seats(&s.claims, w),
        None => vec![],
    };
    match (s.options.binding, bound.is_empty()) {
        (Some(rule), false) => {
            let chi_san_kou = rule == BindingRule::ChiSanKou;
            for &r in &bound {
                let b = |row: BoundRow| ShareReason::Bound {
                    rule,
                    row,
                    bound: r,
                    winner_claimed: s.claims[w as usize][r as usize],
                    bound_claimed: s.claims[r as usize][w as usize],
                };
                match s.kind {
                    k if k.paid_by_all() => {
                        let extra = if chi_san_kou { 3 } else { 5 };
                        for o in others(w) {
                            if o == r {
                                rows.push((o, extra, b(BoundRow::SelfDrawBound)));
                            } else {
                                rows.push((o, 1, b(BoundRow::SelfDrawOther)));
                            }
                        }
                    }
                    WinKind::Discard => {
                        let soft = chi_san_kou || s.declared[from as usize];
                        if from == r {
                            rows.push((r, 2, b(BoundRow::BoundDiscards)));
                        } else if winners.contains(&r) {
                            // T's discard wins for both W and R: R pays nothing as a winner.
                            rows.push((from, if soft { 1 } else { 2 }, b(BoundRow::BothWin)));
                        } else if soft {
                            rows.push((from, 1, b(BoundRow::ThirdPays)));
                            rows.push((r, 1, b(BoundRow::BoundAlsoPays)));
                        } else {
                            rows.push((from, 2, b(BoundRow::ThirdNotReady)));
                        }
                    }
                    _ => {
                        // Robbing the kong, both tables: the kong player pays 3 S, and the
                        // bound seat, if it is not the kong player, also 3 S.
                        rows.push((from, 3, b(BoundRow::RobKongPlayer)));
                        if r != from {
                            rows.push((r, 3, b(BoundRow::RobKongBound)));
                        }
                    }
                }
            }
        }
        _ => match s.kind {
            k if k.paid_by_all() => {
                for o in others(w) {
                    rows.push((o, 1, ShareReason::SelfDraw));
                }
            }
            WinKind::Discard => rows.push((from, 1, ShareReason::Discarder)),
            _ => rows.push((from, 3, ShareReason::KongRobbed)),
        },
    }
    rows.retain(|&(p, _, _)| p != w);
    rows
}

/// How many units of S each seat pays winner `w` (0 for the winner itself).
pub fn paid_units(s: &Settlement, w: Seat, winners: &[Seat]) -> [i64; 4] {
    let mut pay = [0i64; 4];
    for (p, units, _) in share_rows(s, w, winners) {
        pay[p as usize] += units as i64;
    }
    pay
}

/// A leaver's penalty (§6 Leavers): `leaver_penalty` stakes (doubled in `baida` while 荒番
/// holds), split equally among the other three; odd hundredths go to the seats after the
/// leaver in turn order.
pub fn leaver_payments(options: &Options, stake: Money, leaver: Seat, huangfan: u32) -> [Money; 4] {
    explain_leaver(options, stake, leaver, huangfan).payments
}

/// The leaver's penalty explained: one share for each other seat (the computation of
/// [`leaver_payments`]).
pub fn explain_leaver(options: &Options, stake: Money, leaver: Seat, huangfan: u32) -> Explanation {
    let leaver = leaver % 4;
    let doubled = options.ruleset == Ruleset::Baida && huangfan > 0;
    let mut amount = stake.times(options.leaver_penalty as i64);
    if doubled {
        amount = amount.times(2);
    }
    let share = amount.0 / 3;
    let mut rest = amount.0 - share * 3;
    let mut shares = Vec::with_capacity(3);
    for k in 1..4u8 {
        let extra = if rest > 0 { 1 } else { 0 };
        rest -= extra;
        shares.push(Share {
            payer: leaver,
            payee: (leaver + k) % 4,
            units: 0,
            points: 0,
            amount: Money(share + extra),
            reason: ShareReason::Leaver {
                penalty: options.leaver_penalty,
                huangfan: doubled,
            },
        });
    }
    Explanation {
        ruleset: options.ruleset,
        stake,
        end: HandEnd::Leaver { seat: leaver },
        winners: vec![],
        payments: payments_of(&shares),
        shares,
    }
}
