//! Random won hands for tests of the texts (not part of the rules): a settlement of any
//! preset, of any win kind, with melds, flowers, wildcards, bindings, 开宝 and 荒番 drawn
//! from a seed. Many drawn hands do not win under their preset's hands; [`settlement`]
//! returns only those that score, so a caller loops over seeds.

use crate::hand::{MeldShape, MeldType};
use crate::money::{Money, WinKind};
use crate::options::{Options, Ruleset};
use crate::scoring::{Settlement, WinnerHand, settle};
use crate::tile::{Suit, Tile};
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

fn pick(rng: &mut ChaCha8Rng, n: u32) -> u32 {
    rng.next_u32() % n.max(1)
}

fn suited(suit: Suit, n: u8) -> Tile {
    Tile::new(suit, n).unwrap_or_else(|| Tile::new(Suit::Characters, 1).expect("1m"))
}

/// One winner's hand: four sets and a pair, themed so that every hand type comes up.
fn hand(
    rng: &mut ChaCha8Rng,
    ruleset: Ruleset,
    wildcard: Option<Tile>,
) -> (Vec<Tile>, Vec<MeldShape>) {
    let suits = [Suit::Characters, Suit::Dots, Suit::Bamboo];
    let main = suits[pick(rng, 3) as usize];
    // 0 any, 1 one suit, 2 one suit and honors, 3 pungs, 4 honors only.
    let theme = pick(rng, 5);
    let honors = if ruleset == Ruleset::Baida { 4 } else { 7 };
    let mut sets: Vec<(bool, Tile)> = Vec::new(); // (pung, tile)
    for _ in 0..4 {
        let honor = match theme {
            0 | 3 => pick(rng, 4) == 0,
            2 => pick(rng, 2) == 0,
            4 => true,
            _ => false,
        };
        let suit = if theme == 0 {
            suits[pick(rng, 3) as usize]
        } else {
            main
        };
        let pung = honor || theme == 3 || theme == 4 || pick(rng, 2) == 0;
        let t = if honor {
            suited(Suit::Honors, 1 + pick(rng, honors) as u8)
        } else if pung {
            suited(suit, 1 + pick(rng, 9) as u8)
        } else {
            suited(suit, 1 + pick(rng, 7) as u8)
        };
        sets.push((pung, t));
    }
    let pair = if theme == 4 || (theme == 2 && pick(rng, 2) == 0) {
        suited(Suit::Honors, 1 + pick(rng, honors) as u8)
    } else {
        suited(main, 1 + pick(rng, 9) as u8)
    };
    let melded = pick(rng, 5) as usize;
    let mut concealed = vec![pair, pair];
    let mut melds = Vec::new();
    for (i, &(pung, t)) in sets.iter().enumerate() {
        if i < melded {
            let kind = if !pung {
                MeldType::Chow
            } else {
                [
                    MeldType::Pung,
                    MeldType::Pung,
                    MeldType::ClaimedKong,
                    MeldType::AddedKong,
                    MeldType::ConcealedKong,
                ][pick(rng, 5) as usize]
            };
            melds.push(MeldShape { kind, tile: t });
        } else if pung {
            concealed.extend([t; 3]);
        } else {
            let i = t.index();
            concealed.extend((i..i + 3).filter_map(Tile::from_index));
        }
    }
    if let Some(w) = wildcard {
        // A wildcard or two standing in for concealed tiles.
        for _ in 0..pick(rng, 3) {
            let i = pick(rng, concealed.len() as u32) as usize;
            concealed[i] = w;
        }
    }
    (concealed, melds)
}

/// The settlement drawn from `seed` under `ruleset`, if its hands win there.
pub fn settlement(ruleset: Ruleset, seed: u64) -> Option<Settlement> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let options = Options::preset(ruleset);
    let wildcard = (ruleset == Ruleset::Baida)
        .then(|| Tile::from_index(pick(&mut rng, 31) as usize))
        .flatten();
    let kind = match pick(&mut rng, 20) {
        0..=8 => WinKind::SelfDraw,
        9..=16 => WinKind::Discard,
        17 | 18 => WinKind::RobKong,
        _ => WinKind::EightFlowers,
    };
    let first = pick(&mut rng, 4) as u8;
    let mut seats = vec![first];
    if matches!(kind, WinKind::Discard | WinKind::RobKong) && pick(&mut rng, 6) == 0 {
        seats.push((first + 1 + pick(&mut rng, 2) as u8) % 4);
    }
    let from = matches!(kind, WinKind::Discard | WinKind::RobKong)
        .then(|| (0..4u8).rev().find(|s| !seats.contains(s)))
        .flatten();
    let mut winners = Vec::new();
    for &seat in &seats {
        let (concealed, melds) = hand(&mut rng, ruleset, wildcard);
        let mut flowers: Vec<Tile> = (0..8u8)
            .filter(|_| pick(&mut rng, 3) == 0)
            .map(|n| suited(Suit::Flowers, n + 1))
            .collect();
        if ruleset == Ruleset::Baida {
            flowers.extend(
                (5..=7u8)
                    .filter(|_| pick(&mut rng, 4) == 0)
                    .map(|n| suited(Suit::Honors, n)),
            );
        }
        let eight = kind == WinKind::EightFlowers;
        if eight {
            flowers = (1..=8u8).map(|n| suited(Suit::Flowers, n)).collect();
        }
        let winning_tile = if eight {
            None
        } else {
            concealed
                .get(pick(&mut rng, concealed.len() as u32) as usize)
                .copied()
        };
        winners.push(WinnerHand {
            seat,
            concealed,
            winning_tile,
            melds,
            flowers,
            replacement_draw: kind == WinKind::SelfDraw && pick(&mut rng, 4) == 0,
        });
    }
    let mut claims = [[0u32; 4]; 4];
    for row in claims.iter_mut() {
        for c in row.iter_mut() {
            *c = if pick(&mut rng, 3) == 0 {
                pick(&mut rng, 4)
            } else {
                0
            };
        }
    }
    for (i, row) in claims.iter_mut().enumerate() {
        row[i] = 0;
    }
    let d = rng.next_u32();
    let s = Settlement {
        options,
        stake: Money::coins(1 + i64::from(d % 3)),
        dealer: (d >> 4) as u8 % 4,
        kaibao: (d >> 8) % 4 == 0,
        huangfan: (d >> 12) % 3,
        wildcard,
        declared: [0, 1, 2, 3].map(|i| (d >> (16 + i)) & 1 == 1 || seats.contains(&(i as u8))),
        claims,
        kind,
        from,
        winners,
    };
    settle(&s).ok().map(|_| s)
}
