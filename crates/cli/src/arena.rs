//! `mahjong arena`: computer players against each other, in process, to measure the levels.
//!
//! With `--duplicate` it measures one level against another with the deal's luck cancelled
//! out ([`crate::duplicate`], docs/bots.md); what follows is the plain mode (`--seats`).
//!
//! Hand `h` (0-based) gives seat `s` the player at position `(s + h) % 4` of `--seats`, and
//! is dealt by seat `(h / 4) % 4`, so every position sits in every seat and deals equally
//! often (the positions keep their order round the table). Each hand is independent: a
//! fresh wall shuffled from a 32-byte seed and dice, both drawn from a ChaCha20 stream keyed
//! by `--seed` with stream number `h`; the 荒番 counter is 0 (no session is carried, so the
//! hands are independent samples and the intervals below are honest). Each position keeps
//! one bot for the whole run, seeded from `--seed` and the position.
//!
//! Reported per position: win rate (the seat won the hand, alone or with others), deal-in
//! rate (its discard was won on), average points per hand (coins at stake 1) with 95%
//! intervals: normal approximation for points, Wilson for rates.

use anyhow::{Context, Result, bail};
use clap::Args;
use mahjong_bot::{Bot, Level};
use mahjong_rules::wall::uniform_below;
use mahjong_rules::{
    Dice, HandState, Money, Move, Options, Outcome, Ruleset, Setup, Wall, WinKind,
};
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use std::time::Instant;

/// Options of `mahjong arena`.
#[derive(Args)]
pub struct ArenaArgs {
    /// The preset: qiaoma, classic or baida.
    #[arg(long, default_value = "qiaoma")]
    preset: String,
    /// Hands to play. With --duplicate: the number of WALLS, each played four times (the
    /// challenger once in every seat), so N walls give 4·N challenger hands.
    #[arg(long, default_value_t = 1000)]
    hands: u32,
    /// Four comma-separated levels, one per position (random, beginner, basic, strong,
    /// master).
    #[arg(long, default_value = "strong,basic,basic,random")]
    seats: String,
    /// Duplicate mode: every wall is played four times, the challenger in each seat once
    /// against three champions (same wall, dice, flowers and seat seeds); prints the
    /// challenger's points a hand with a 95% interval over walls (docs/bots.md).
    #[arg(long, requires_all = ["challenger", "champion"], conflicts_with = "seats")]
    duplicate: bool,
    /// The level measured in duplicate mode.
    #[arg(long, requires = "duplicate")]
    challenger: Option<String>,
    /// The level of the three other seats in duplicate mode.
    #[arg(long, requires = "duplicate")]
    champion: Option<String>,
    /// Threads in duplicate mode (default: the available cores); results do not depend on it.
    #[arg(long, requires = "duplicate")]
    threads: Option<usize>,
    /// The seed of the walls, dice and bots.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print one JSON line instead of a table.
    #[arg(long)]
    json: bool,
}

#[derive(Default, Clone, Copy)]
struct Tally {
    wins: u64,
    deal_ins: u64,
    sum: f64,
    sum_sq: f64,
}

/// Mixes a seed and a salt into a bot seed (SplitMix64).
pub(crate) fn mix(seed: u64, salt: u64) -> u64 {
    let mut z = seed ^ salt.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The wall seed and dice of hand `h`.
pub(crate) fn deal(seed: u64, h: u64) -> Result<([u8; 32], Dice)> {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    rng.set_stream(h);
    let mut wall = [0u8; 32];
    rng.fill_bytes(&mut wall);
    let a = uniform_below(&mut rng, 6) as u8 + 1;
    let b = uniform_below(&mut rng, 6) as u8 + 1;
    Ok((wall, Dice::new(a, b)?))
}

/// Plays one hand to its end (seat `s` played by `bots[position[s]]`); returns the outcome.
pub(crate) fn play(
    setup: Setup,
    wall: &Wall,
    bots: &mut [Bot],
    position: &[usize; 4],
) -> Result<Outcome> {
    let mut state = HandState::new(setup, wall).context("setting up a hand")?;
    let mut moves = 0u32;
    while !state.is_over() {
        for seat in state.to_act() {
            let view = state.view(seat);
            let d = bots[position[seat as usize]].decide(&view);
            state
                .apply(&Move::new(seat, d.action.clone()))
                .with_context(|| format!("seat {seat} chose an illegal action {:?}", d.action))?;
            moves += 1;
            if state.is_over() {
                break;
            }
        }
        if moves > 10_000 {
            bail!("a hand did not end after {moves} moves");
        }
    }
    state.outcome().cloned().context("the hand has no outcome")
}

fn wilson(k: u64, n: u64) -> [f64; 2] {
    if n == 0 {
        return [0.0, 0.0];
    }
    let (k, n, z) = (k as f64, n as f64, 1.96f64);
    let p = k / n;
    let den = 1.0 + z * z / n;
    let mid = (p + z * z / (2.0 * n)) / den;
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / den;
    [(mid - half).max(0.0), (mid + half).min(1.0)]
}

fn mean_ci(t: &Tally, n: u64) -> (f64, [f64; 2]) {
    let n = n.max(1) as f64;
    let mean = t.sum / n;
    let var = if n > 1.0 {
        ((t.sum_sq - n * mean * mean) / (n - 1.0)).max(0.0)
    } else {
        0.0
    };
    let half = 1.96 * (var / n).sqrt();
    (mean, [mean - half, mean + half])
}

fn round(x: f64, digits: i32) -> f64 {
    let f = 10f64.powi(digits);
    (x * f).round() / f
}

/// A comma-separated list of bot levels (`strong,basic,random`).
pub fn parse_levels(list: &str) -> Result<Vec<Level>> {
    list.split(',')
        .map(|s| s.parse::<Level>().map_err(|e| anyhow::anyhow!("{e}")))
        .collect()
}

/// Runs `mahjong arena`.
pub fn run(args: ArenaArgs) -> Result<()> {
    let ruleset: Ruleset = args.preset.parse().map_err(|e| anyhow::anyhow!("{e}"))?;
    if args.duplicate {
        let level = |s: &Option<String>| -> Result<Level> {
            s.as_deref()
                .unwrap_or_default()
                .parse::<Level>()
                .map_err(|e| anyhow::anyhow!("{e}"))
        };
        let threads = match args.threads {
            Some(t) => t,
            None => std::thread::available_parallelism().map_or(1, |n| n.get()),
        };
        let run = crate::duplicate::Duplicate {
            ruleset,
            challenger: level(&args.challenger)?,
            champion: level(&args.champion)?,
            walls: args.hands as u64,
            seed: args.seed,
            threads,
        };
        return crate::duplicate::run(&run, args.json);
    }
    let levels = parse_levels(&args.seats)?;
    if levels.len() != 4 {
        bail!(
            "--seats needs four levels separated by commas, got {}",
            levels.len()
        );
    }
    if args.hands == 0 {
        bail!("--hands must be at least 1");
    }
    let mut bots: Vec<Bot> = levels
        .iter()
        .enumerate()
        .map(|(p, &l)| Bot::new(l, mix(args.seed, p as u64 + 1)))
        .collect();
    let mut tally = [Tally::default(); 4];
    let mut drawn = 0u64;
    let start = Instant::now();
    for h in 0..args.hands as u64 {
        let (wall_seed, dice) = deal(args.seed, h)?;
        let setup = Setup {
            options: Options::preset(ruleset),
            stake: Money::coins(1),
            dealer: ((h / 4) % 4) as u8,
            dice,
            huangfan: 0,
        };
        let position: [usize; 4] = std::array::from_fn(|s| (s + h as usize) % 4);
        let outcome = play(setup, &Wall::shuffled(wall_seed), &mut bots, &position)
            .with_context(|| format!("hand {h} (seed {})", args.seed))?;
        let payments = outcome.payments();
        let winners = outcome.winners();
        let dealt_in = match &outcome {
            Outcome::Win { settlement, .. } if settlement.kind == WinKind::Discard => {
                settlement.from
            }
            _ => None,
        };
        if matches!(outcome, Outcome::Drawn) {
            drawn += 1;
        }
        for seat in 0..4u8 {
            let t = &mut tally[position[seat as usize]];
            let x = payments[seat as usize].as_f64();
            t.sum += x;
            t.sum_sq += x * x;
            t.wins += winners.contains(&seat) as u64;
            t.deal_ins += (dealt_in == Some(seat)) as u64;
        }
    }
    let n = args.hands as u64;
    let elapsed = start.elapsed().as_secs_f64();
    if args.json {
        let seats: Vec<serde_json::Value> = (0..4)
            .map(|p| {
                let (mean, ci) = mean_ci(&tally[p], n);
                serde_json::json!({
                    "level": levels[p].name(),
                    "win_rate": round(tally[p].wins as f64 / n as f64, 4),
                    "deal_in_rate": round(tally[p].deal_ins as f64 / n as f64, 4),
                    "avg_points": round(mean, 3),
                    "ci95": [round(ci[0], 3), round(ci[1], 3)],
                    "win_rate_ci95": wilson(tally[p].wins, n).map(|x| round(x, 4)),
                    "deal_in_rate_ci95": wilson(tally[p].deal_ins, n).map(|x| round(x, 4)),
                })
            })
            .collect();
        println!("{}", serde_json::json!({ "hands": n, "seats": seats }));
        return Ok(());
    }
    println!(
        "{} hands of {}, seed {} ({:.1} s; {:.1}% drawn). Seats rotate every hand.",
        n,
        ruleset,
        args.seed,
        elapsed,
        100.0 * drawn as f64 / n as f64
    );
    println!(
        "{:<4} {:<7} {:>22} {:>22} {:>28}",
        "pos", "level", "win rate [95%]", "deal-in rate [95%]", "points/hand [95%]"
    );
    for p in 0..4 {
        let t = &tally[p];
        let (mean, ci) = mean_ci(t, n);
        let w = wilson(t.wins, n);
        let d = wilson(t.deal_ins, n);
        println!(
            "{:<4} {:<7} {:>6.2}% [{:>5.2}, {:>5.2}] {:>6.2}% [{:>5.2}, {:>5.2}] {:>8.3} [{:>7.3}, {:>7.3}]",
            p,
            levels[p].name(),
            100.0 * t.wins as f64 / n as f64,
            100.0 * w[0],
            100.0 * w[1],
            100.0 * t.deal_ins as f64 / n as f64,
            100.0 * d[0],
            100.0 * d[1],
            mean,
            ci[0],
            ci[1]
        );
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn deals_are_fixed_by_seed_and_hand() {
        assert_eq!(deal(7, 3).unwrap(), deal(7, 3).unwrap());
        assert_ne!(deal(7, 3).unwrap().0, deal(7, 4).unwrap().0);
        assert_ne!(deal(7, 3).unwrap().0, deal(8, 3).unwrap().0);
    }

    #[test]
    fn intervals() {
        let w = wilson(50, 100);
        assert!(w[0] < 0.5 && w[1] > 0.5);
        let t = Tally {
            wins: 0,
            deal_ins: 0,
            sum: 10.0,
            sum_sq: 30.0,
        };
        let (m, ci) = mean_ci(&t, 5);
        assert!((m - 2.0).abs() < 1e-9 && ci[0] < 2.0 && ci[1] > 2.0);
    }

    #[test]
    fn a_short_arena_runs() {
        let mut bots: Vec<Bot> = (0..4)
            .map(|p| Bot::new(Level::ALL[p % 3], p as u64))
            .collect();
        for h in 0..3u64 {
            let (seed, dice) = deal(1, h).unwrap();
            let setup = Setup {
                options: Options::preset(Ruleset::Qiaoma),
                stake: Money::coins(1),
                dealer: 0,
                dice,
                huangfan: 0,
            };
            let o = play(setup, &Wall::shuffled(seed), &mut bots, &[0, 1, 2, 3]).unwrap();
            assert_eq!(o.payments().iter().map(|m| m.0).sum::<i64>(), 0);
        }
    }
}
