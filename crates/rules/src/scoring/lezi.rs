//! Valuing a winner's hand by 勒子 (qiaoma and classic): the hand's points and flowers, the
//! 勒子 rows and their caps.

use super::*;

/// The row the hand is scored by, `qiaoma` and `classic`.
pub(super) struct LeziRow {
    score: u32,
    rank: u8,
    hand: HandType,
    cap: Option<RowCap>,
}

/// A row's cap, before it is explained.
#[derive(Clone, Copy)]
pub(super) struct RowCap {
    base_lezi: u32,
    menqing: bool,
    lezi: u32,
}

pub(super) fn value_lezi(
    s: &Settlement,
    w: &WinnerHand,
) -> Result<(WinnerScore, WinnerExplanation), ScoreError> {
    let o = &s.options;
    let classic = o.ruleset == Ruleset::Classic;
    let lezi = o.lezi_points.unwrap_or(10);
    let concealed: Counts = counts_of(&w.concealed);
    let eight = s.kind == WinKind::EightFlowers;
    let mut flower_items = tile_and_meld_flowers(w);
    if !eight {
        // Honors only form pungs, so a concealed honor triple is a pung in any split.
        for (i, &n) in concealed.iter().enumerate().skip(27) {
            if let Some(t) = Tile::from_index(i)
                && n >= 3
                && hand::honor_pung_flowers(t) > 0
            {
                let f = hand::honor_pung_flowers(t);
                flower_items.push(item(FlowerSource::ConcealedPung, t, None, f));
            }
        }
    }
    let flowers: u32 = flower_items.iter().map(|i| i.flowers).sum();
    let points = o.base_points + flowers;
    // 八花齐 is worth 八花齐 whatever the concealed tiles (§3): it is settled before the eighth
    // flower's replacement, so no other row is looked at.
    let types = if eight {
        vec![HandType::Bahuaqi]
    } else {
        hand::restricted_types(o, &concealed, &w.melds)
    };
    if types.is_empty() {
        let why = if crate::shape::is_standard(&concealed) {
            Unwinnable::NotAWinningType
        } else {
            Unwinnable::NotStandard
        };
        return Err(not_winning(s, w, why));
    }
    let natural = !eight;
    let menqing = hand::is_menqing(&w.melds) && o.menqing != MenqingEffect::None;
    let menqing_double = menqing && o.menqing == MenqingEffect::Double;
    let gangkai = natural && w.replacement_draw && s.kind == WinKind::SelfDraw;
    let dadiaoche = natural && hand::is_big_single_wait(&concealed, &w.melds);
    let kaibao = o.kaibao && s.kaibao;
    // `classic`: dice that are a double or 1-4 add to this hand's 荒番 (§6), so `kaibao`
    // there makes it a 荒番 hand even when the file's counter does not include the dice.
    let huangfan = s.huangfan > 0 || (o.dice_huangfan && s.kaibao);
    let mult = 1u32 << (menqing_double as u32 + kaibao as u32 + huangfan as u32);
    let limit = o.table_limit_lezi.map(|l| l.saturating_mul(lezi));
    let mut best: Option<LeziRow> = None;
    let mut rows = Vec::with_capacity(types.len());
    // "Where a hand fits several rows, the highest value is taken" (§5): the reported V is the
    // highest of the rows (a 混碰 of 11 points is worth 11, not the row's 10). S is the best
    // row's, which equals min(V × M, 10 × C) with that V and the best row's cap, because
    // every row with a cap above 1 lezi is worth exactly its cap.
    let mut value_max = 0u32;
    for &t in &types {
        let basis = match t {
            HandType::Pengpenghu | HandType::Hunyise | HandType::Pinghu => {
                if classic {
                    ValueBasis::PointsUpToLezi { lezi_points: lezi }
                } else {
                    ValueBasis::Points
                }
            }
            HandType::Qingyise
            | HandType::Hunpeng
            | HandType::Ziyise
            | HandType::Dadiaoche
            | HandType::Sibaida => ValueBasis::Lezi {
                lezi: 1,
                lezi_points: lezi,
            },
            HandType::Qingpeng | HandType::Fengyise | HandType::Bahuaqi => ValueBasis::Lezi {
                lezi: if classic { 1 } else { 2 },
                lezi_points: lezi,
            },
            HandType::Fengpeng => ValueBasis::Lezi {
                lezi: if classic { 1 } else { 4 },
                lezi_points: lezi,
            },
        };
        let row_value = match basis {
            ValueBasis::Points => points,
            ValueBasis::PointsUpToLezi { lezi_points } => points.min(lezi_points),
            ValueBasis::Lezi { lezi, lezi_points } => lezi * lezi_points,
        };
        rows.push(HandRow {
            hand: t,
            basis,
            value: row_value,
        });
        let v = if gangkai || dadiaoche {
            row_value.max(lezi)
        } else {
            row_value
        };
        value_max = value_max.max(v);
        let (mut sc, cap) = if classic {
            (v.saturating_mul(mult), None)
        } else {
            let base_lezi = match t {
                HandType::Fengpeng => 4,
                HandType::Qingpeng | HandType::Fengyise | HandType::Bahuaqi => 2,
                _ => 1,
            };
            let mut c = base_lezi;
            let raised = menqing_double && c < 2;
            if menqing_double {
                c = c.max(2);
            }
            c <<= kaibao as u32 + huangfan as u32;
            let cap = RowCap {
                base_lezi,
                menqing: raised,
                lezi: c,
            };
            (v.saturating_mul(mult).min(lezi * c), Some(cap))
        };
        if let Some(limit) = limit {
            sc = sc.min(limit);
        }
        // On an eight-flowers win, 八花齐 itself wins ties.
        let rank = if eight && t == HandType::Bahuaqi {
            255
        } else {
            rarity(t)
        };
        if best.as_ref().is_none_or(|b| (sc, rank) > (b.score, b.rank)) {
            best = Some(LeziRow {
                score: sc,
                rank,
                hand: t,
                cap,
            });
        }
    }
    let Some(LeziRow {
        score,
        hand: ht,
        cap,
        ..
    }) = best
    else {
        return Err(not_winning(s, w, Unwinnable::NoWinningType));
    };
    let cap = cap.map(|c| Cap {
        base_lezi: c.base_lezi,
        menqing: c.menqing,
        doubled_by: [
            (kaibao, ModifierId::Kaibao),
            (huangfan, ModifierId::Huangfan),
        ]
        .into_iter()
        .filter(|d| d.0)
        .map(|d| d.1)
        .collect(),
        lezi: c.lezi,
        points: lezi * c.lezi,
    });
    let value = value_max;
    let uncapped = value.saturating_mul(mult);
    let limited_by = if score >= uncapped {
        None
    } else if limit == Some(score) && cap.as_ref().is_none_or(|c| c.points > score) {
        Some(LimitedBy::TableLimit)
    } else {
        Some(LimitedBy::Cap)
    };
    debug_assert_eq!(
        score,
        uncapped
            .min(cap.as_ref().map_or(u32::MAX, |c| c.points))
            .min(limit.unwrap_or(u32::MAX))
    );
    let mut modifiers: Vec<Modifier> = Vec::new();
    let mut add = |cond: bool, id: ModifierId, effect: Effect| {
        if cond && !modifiers.iter().any(|m| m.id == id) {
            modifiers.push(Modifier { id, effect });
        }
    };
    add(
        menqing,
        ModifierId::Menqing,
        if menqing_double {
            Effect::Times { times: 2 }
        } else {
            Effect::None
        },
    );
    add(
        gangkai,
        ModifierId::Gangkai,
        Effect::AtLeast { points: lezi },
    );
    add(
        dadiaoche,
        ModifierId::Dadiaoche,
        Effect::AtLeast { points: lezi },
    );
    add(kaibao, ModifierId::Kaibao, Effect::Times { times: 2 });
    add(huangfan, ModifierId::Huangfan, Effect::Times { times: 2 });
    add(
        s.kind == WinKind::RobKong,
        ModifierId::Qianggang,
        Effect::PaidByKongPlayer,
    );
    let mut patterns = vec![ht.id().to_string()];
    for m in &modifiers {
        if !patterns.iter().any(|p| p == m.id.id()) {
            patterns.push(m.id.id().to_string());
        }
    }
    let ws = WinnerScore {
        seat: w.seat,
        hand: ht.id().to_string(),
        patterns,
        flowers,
        points,
        value,
        cap: cap.as_ref().map(|c| c.lezi),
        score,
    };
    let we = WinnerExplanation {
        seat: w.seat,
        concealed: sorted(&w.concealed),
        melds: w.melds.clone(),
        winning_tile: w.winning_tile,
        hand: ht.id().to_string(),
        rows,
        flower_items,
        flowers,
        base: o.base_points,
        points,
        value,
        modifiers,
        fan: None,
        multiplier: mult,
        uncapped,
        cap,
        table_limit: limit,
        limited_by,
        score,
    };
    Ok((ws, we))
}
