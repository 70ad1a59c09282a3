//! Valuing a winner's hand under 百搭 (baida): its fan and base.

use super::*;

pub(super) fn value_baida(
    s: &Settlement,
    w: &WinnerHand,
) -> Result<(WinnerScore, WinnerExplanation), ScoreError> {
    let o = &s.options;
    let wildcard = s.wildcard.filter(|_| o.wildcard);
    let concealed: Counts = counts_of(&w.concealed);
    let jokers = wildcard.map(|x| concealed[x.index()]).unwrap_or(0);
    let standard = hand::is_winning(o, &concealed, &w.melds, wildcard);
    // The `four_wildcards` option governs the immediate win (§3); the 四百搭 fan (§6) is the
    // pattern of holding the four, however the hand was won (004: 同时拥有4百搭和其他胡牌类型时).
    let sibaida = jokers == 4;
    if !(standard || (sibaida && s.kind == WinKind::FourWildcards)) {
        return Err(not_winning(s, w, Unwinnable::NotStandardWithWildcards));
    }
    // Wind pungs earn a flower only as three real wind tiles; a wildcard earns its own.
    let wind_pungs = if standard {
        hand::baida_concealed_wind_pungs(&concealed, wildcard).unwrap_or_default()
    } else {
        hand::plain_wind_triples(&concealed, wildcard)
    };
    let menqing = hand::is_menqing(&w.melds) && o.menqing != MenqingEffect::None;
    let mut flower_items = vec![FlowerItem {
        source: FlowerSource::Base,
        tile: None,
        meld: None,
        flowers: o.base_points,
    }];
    flower_items.extend(tile_and_meld_flowers(w));
    for t in wind_pungs {
        flower_items.push(item(FlowerSource::ConcealedPung, t, None, 1));
    }
    if let Some(x) = wildcard {
        for _ in 0..jokers {
            flower_items.push(item(FlowerSource::Wildcard, x, None, 1));
        }
    }
    if menqing && o.menqing == MenqingEffect::Flower {
        flower_items.push(FlowerItem {
            source: FlowerSource::Menqing,
            tile: None,
            meld: None,
            flowers: 1,
        });
    }
    let flowers: u32 = flower_items.iter().map(|i| i.flowers).sum();
    let natural = s.kind == WinKind::SelfDraw || (s.kind != WinKind::FourWildcards && standard);
    let wubaida = wildcard.is_some() && jokers == 0;
    let paobaida = natural
        && w.winning_tile.is_some_and(|wt| {
            let mut before = concealed;
            before[wt.index()] -= 1;
            Tile::playing().filter(|t| !o.is_flower(*t)).all(|t| {
                let mut c = before;
                c[t.index()] += 1;
                hand::is_winning(o, &c, &w.melds, wildcard)
            })
        });
    let dadiao = natural && hand::is_big_single_wait(&concealed, &w.melds);
    let gangkai = natural && w.replacement_draw && s.kind == WinKind::SelfDraw;
    let fans: Vec<(bool, ModifierId, u32)> = if sibaida {
        vec![(true, ModifierId::Sibaida, 2)]
    } else {
        vec![
            (wubaida, ModifierId::Wubaida, 1),
            (paobaida, ModifierId::Paobaida, 1),
            (dadiao, ModifierId::Dadiao, 1),
            (gangkai, ModifierId::Gangkai, 1),
        ]
    };
    let mut modifiers: Vec<Modifier> = fans
        .iter()
        .filter(|f| f.0)
        .map(|&(_, id, fan)| Modifier {
            id,
            effect: Effect::Fan { fan },
        })
        .collect();
    let fan_sum: u32 = fans.iter().filter(|f| f.0).map(|f| f.2).sum();
    let fan = fan_sum.min(3);
    if menqing {
        modifiers.push(Modifier {
            id: ModifierId::Menqing,
            effect: match o.menqing {
                MenqingEffect::Flower => Effect::Flowers { flowers: 1 },
                MenqingEffect::Double => Effect::Times { times: 2 },
                MenqingEffect::None => Effect::None,
            },
        });
    }
    let huangfan = s.huangfan > 0;
    if huangfan {
        modifiers.push(Modifier {
            id: ModifierId::Huangfan,
            effect: Effect::Times { times: 2 },
        });
    }
    let mut value = flowers << fan;
    let mut multiplier = 1u32 << fan;
    if menqing && o.menqing == MenqingEffect::Double {
        value *= 2;
        multiplier *= 2;
    }
    let score = if huangfan { value * 2 } else { value };
    if huangfan {
        multiplier *= 2;
    }
    // The hand is named by its first pattern in the order of §5 (门清 included); 平胡 when
    // none holds ("otherwise 平胡").
    let mut patterns: Vec<String> = modifiers
        .iter()
        .filter(|m| m.id != ModifierId::Huangfan)
        .map(|m| m.id.id().to_string())
        .collect();
    if patterns.is_empty() {
        patterns.push(HandType::Pinghu.id().into());
    }
    let hand = patterns[0].clone();
    if huangfan {
        patterns.push("huangfan".into());
    }
    let ws = WinnerScore {
        seat: w.seat,
        hand: hand.clone(),
        patterns,
        flowers,
        points: flowers,
        value,
        cap: None,
        score,
    };
    let we = WinnerExplanation {
        seat: w.seat,
        concealed: sorted(&w.concealed),
        melds: w.melds.clone(),
        winning_tile: w.winning_tile,
        hand,
        rows: vec![],
        flower_items,
        flowers,
        base: 0,
        points: flowers,
        value: flowers,
        modifiers,
        fan: Some(fan),
        multiplier,
        uncapped: score,
        cap: None,
        table_limit: None,
        limited_by: None,
        score,
    };
    Ok((ws, we))
}
