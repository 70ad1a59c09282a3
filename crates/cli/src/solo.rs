//! `mahjong solo`: play in the terminal against three computer players.
//!
//! One human seat, three bots, the full rules engine; hands follow each other with dealer
//! rotation and the 荒番 counter (`rules::Session`). The human sees only their seat's view.
//! Input per prompt: the number of an action, a tile (`5m`: discard it; `!5m`: discard it and
//! declare ready), `h` for a hint (a strong bot's suggestion and its reason), `q` to stop.
//! When a claim window offers only "pass", or a flower must be set aside, it is played
//! without asking.

use anyhow::{Result, bail};
use clap::Args;
use mahjong_bot::{Bot, Level};
use mahjong_rules::view::PublicPhase;
use mahjong_rules::{
    Action, Dice, Event, HandState, MeldType, Money, Move, Options, Outcome, Ruleset, Seat,
    SeatView, Session, SessionLength, Tile, Wall, format_tiles,
};
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use std::io::{BufRead, Write};

/// Arguments of `mahjong solo`.
#[derive(Args)]
pub struct SoloArgs {
    /// qiaoma (default), classic or baida.
    #[arg(long, default_value = "qiaoma")]
    preset: String,
    /// The three computer players, in seat order after yours: random, basic or strong.
    #[arg(long, default_value = "strong,strong,strong")]
    bots: String,
    /// Your seat, 0-3.
    #[arg(long, default_value_t = 0)]
    seat: u8,
    /// Hands to play (0: until you stop).
    #[arg(long, default_value_t = 0)]
    hands: u32,
    /// Seed of the walls and the bots (default: from the clock).
    #[arg(long)]
    seed: Option<u64>,
}

const SEAT_NAMES: [&str; 4] = ["East seat 0", "South seat 1", "West seat 2", "North seat 3"];

/// Runs the game on standard input and output.
pub fn run(args: SoloArgs) -> Result<()> {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    play(args, &mut input, &mut out)
}

fn play(args: SoloArgs, input: &mut impl BufRead, out: &mut impl Write) -> Result<()> {
    let preset: Ruleset = args.preset.parse()?;
    if args.seat > 3 {
        bail!("--seat must be 0-3, got {}", args.seat);
    }
    let levels = crate::arena::parse_levels(&args.bots)?;
    if levels.len() != 3 {
        bail!("--bots names three computer players, e.g. strong,basic,random");
    }
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(1)
    });
    let me = args.seat;
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let mut bots: Vec<Option<Bot>> = (0..4u8)
        .map(|s| {
            if s == me {
                None
            } else {
                let k = ((s + 4 - me) % 4 - 1) as usize;
                Some(Bot::new(levels[k], seed.wrapping_add(s as u64 + 1)))
            }
        })
        .collect();
    let mut hint = Bot::new(Level::Strong, seed ^ 0x5eed);
    let length = if args.hands == 0 {
        SessionLength::Open
    } else {
        SessionLength::Hands(args.hands)
    };
    let mut session = Session::new(Options::preset(preset), Money::coins(1), length);
    writeln!(
        out,
        "Shanghai mahjong ({preset}) — you are {}. Seed {seed}.",
        SEAT_NAMES[me as usize]
    )?;
    writeln!(
        out,
        "Type the number of an action, a tile to discard (5m), !5m to discard and declare ready, h for a hint, q to quit."
    )?;
    loop {
        let mut wall_seed = [0u8; 32];
        rng.fill_bytes(&mut wall_seed);
        let d = rng.next_u32();
        let dice = Dice::new(1 + (d % 6) as u8, 1 + ((d >> 8) % 6) as u8)?;
        let setup = session.setup(((d >> 16) % 4) as u8, dice);
        let mut st = HandState::new(setup.clone(), &Wall::shuffled(wall_seed))?;
        writeln!(
            out,
            "\n=== Hand {} · dealer {} · dice {}+{}{} ===",
            session.hands_played + 1,
            SEAT_NAMES[setup.dealer as usize],
            dice.values().0,
            dice.values().1,
            if st.huangfan() > 0 {
                format!(" · 荒番 {}", st.huangfan())
            } else {
                String::new()
            }
        )?;
        if let Some(w) = st.wildcard() {
            writeln!(out, "Wildcard (百搭): {w}")?;
        }
        while !st.is_over() {
            let seat = st.to_act_mask().trailing_zeros() as Seat;
            let view = st.view(seat);
            let action = if seat == me {
                match ask(&view, &mut hint, input, out)? {
                    Some(a) => a,
                    None => {
                        writeln!(out, "Stopped. Balances: {}", balances(&session))?;
                        return Ok(());
                    }
                }
            } else {
                let bot = bots[seat as usize]
                    .as_mut()
                    .ok_or_else(|| anyhow::anyhow!("no bot for seat {seat}"))?;
                bot.decide(&view).action
            };
            let events = st.apply(&Move::new(seat, action))?;
            announce(&events, me, out)?;
        }
        let outcome = st
            .outcome()
            .cloned()
            .ok_or_else(|| anyhow::anyhow!("hand not over"))?;
        let record = session.record(&setup, st.huangfan(), &outcome);
        report(&outcome, &record.payments, out)?;
        writeln!(out, "Balances: {}", balances(&session))?;
        if record.finished {
            writeln!(out, "Session over.")?;
            return Ok(());
        }
        write!(out, "Press Enter for the next hand (q to quit): ")?;
        out.flush()?;
        let mut line = String::new();
        if input.read_line(&mut line)? == 0 || line.trim() == "q" {
            writeln!(out, "\nStopped.")?;
            return Ok(());
        }
    }
}

fn balances(s: &Session) -> String {
    s.balances
        .iter()
        .enumerate()
        .map(|(i, m)| format!("seat {i}: {m}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Shows the table and asks for an action; `None` when the player stops (q or end of input).
fn ask(
    view: &SeatView,
    hint: &mut Bot,
    input: &mut impl BufRead,
    out: &mut impl Write,
) -> Result<Option<Action>> {
    let legal = &view.legal;
    if legal.len() == 1 && !matches!(legal[0], Action::Discard { .. }) {
        return Ok(Some(legal[0].clone()));
    }
    render(view, out)?;
    for (i, a) in legal.iter().enumerate() {
        writeln!(out, "  {}) {}", i + 1, describe(a))?;
    }
    loop {
        write!(out, "> ")?;
        out.flush()?;
        let mut line = String::new();
        if input.read_line(&mut line)? == 0 {
            return Ok(None);
        }
        let line = line.trim();
        match line {
            "q" | "quit" => return Ok(None),
            "h" | "hint" => {
                let d = hint.decide(view);
                writeln!(out, "  hint: {} — {}", describe(&d.action), d.reason)?;
                continue;
            }
            "" => continue,
            _ => {}
        }
        if let Ok(n) = line.parse::<usize>() {
            if (1..=legal.len()).contains(&n) {
                return Ok(Some(legal[n - 1].clone()));
            }
            writeln!(out, "  choose 1-{}", legal.len())?;
            continue;
        }
        let (ready, tile) = match line.strip_prefix('!') {
            Some(t) => (true, t),
            None => (false, line),
        };
        match tile.parse::<Tile>() {
            Ok(t) => {
                let found = legal.iter().find(|a| matches!(a, Action::Discard { card, ready: r } if card.tile == t && *r == ready));
                match found {
                    Some(a) => return Ok(Some(a.clone())),
                    None => writeln!(
                        out,
                        "  you cannot {} {t} now",
                        if ready {
                            "declare ready with"
                        } else {
                            "discard"
                        }
                    )?,
                }
            }
            Err(e) => writeln!(out, "  {e}")?,
        }
    }
}

fn render(v: &SeatView, out: &mut impl Write) -> Result<()> {
    writeln!(out)?;
    for (i, s) in v.seats.iter().enumerate() {
        if i as Seat == v.seat {
            continue;
        }
        let discards: Vec<Tile> = s
            .discards
            .iter()
            .filter(|d| !d.claimed)
            .map(|d| d.card.tile)
            .collect();
        writeln!(
            out,
            "  {:<13} {:>2} tiles{}  melds: {}  flowers: {}  discards: {}",
            SEAT_NAMES[i],
            s.hand_size,
            if s.ready { " 敲" } else { "" },
            melds(&s.melds),
            format_tiles(&s.flowers),
            format_tiles(&discards)
        )?;
    }
    let mine = &v.seats[v.seat as usize];
    let mut hand: Vec<Tile> = v.hand.iter().map(|c| c.tile).collect();
    hand.sort();
    writeln!(
        out,
        "  wall: {} left{}",
        v.wall_remaining,
        v.wildcard
            .map(|w| format!(" · wildcard {w}"))
            .unwrap_or_default()
    )?;
    match &v.phase {
        PublicPhase::Claims { from, card, .. } => writeln!(
            out,
            "  {} discarded {}",
            SEAT_NAMES[*from as usize], card.tile
        )?,
        PublicPhase::RobKong { from, card, .. } => writeln!(
            out,
            "  {} adds {} to a pung (you may rob it)",
            SEAT_NAMES[*from as usize], card.tile
        )?,
        _ => {}
    }
    writeln!(
        out,
        "  YOU: {}{}  melds: {}  flowers: {}{}",
        format_tiles(&hand),
        v.drawn
            .map(|c| format!("  (drew {})", c.tile))
            .unwrap_or_default(),
        melds(&mine.melds),
        format_tiles(&mine.flowers),
        if mine.ready { "  敲 (ready)" } else { "" }
    )?;
    Ok(())
}

fn melds(ms: &[mahjong_rules::PublicMeld]) -> String {
    if ms.is_empty() {
        return "-".into();
    }
    ms.iter()
        .map(|m| match (m.kind, m.tile) {
            (_, None) => "[concealed kong]".to_string(),
            (MeldType::Chow, Some(t)) => {
                let ts: Vec<Tile> = (0..3)
                    .filter_map(|k| Tile::from_index(t.index() + k))
                    .collect();
                format!("[{}]", format_tiles(&ts))
            }
            (k, Some(t)) => format!("[{}]", format_tiles(&vec![t; k.tile_count()])),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn describe(a: &Action) -> String {
    match a {
        Action::Flower { card } => format!("set the flower {} aside", card.tile),
        Action::Pass => "pass".into(),
        Action::Discard { card, ready: false } => format!("discard {}", card.tile),
        Action::Discard { card, ready: true } => {
            format!("discard {} and declare ready (敲)", card.tile)
        }
        Action::ConcealedKong { cards } => format!("concealed kong of {}", cards[0].tile),
        Action::AddedKong { card } => format!("add {} to your pung (kong)", card.tile),
        Action::Win { .. } => "WIN (和)".into(),
        Action::Chow { cards } => format!("chow with {}{}", cards[0].tile, cards[1].tile),
        Action::Pung { cards } => format!("pung {}", cards[0].tile),
        Action::Kong { cards } => format!("kong {}", cards[0].tile),
        Action::Leave => "leave the table".into(),
    }
}

fn announce(events: &[Event], me: Seat, out: &mut impl Write) -> Result<()> {
    let who = |seat: Seat| {
        if seat == me {
            "You".to_string()
        } else {
            SEAT_NAMES[seat as usize].to_string()
        }
    };
    for e in events {
        let line = match e {
            Event::Discarded { seat, card, ready } => format!(
                "{} discard{} {}{}",
                who(*seat),
                if *seat == me { "" } else { "s" },
                card.tile,
                if *ready { " — 敲 (ready)!" } else { "" }
            ),
            Event::Claimed { seat, from, meld } => {
                let verb = match meld.kind {
                    MeldType::Chow => "chow",
                    MeldType::Pung => "pung",
                    _ => "kong",
                };
                format!(
                    "{}: {verb} {} from {}",
                    who(*seat),
                    format_tiles(&meld.tiles()),
                    who(*from)
                )
            }
            Event::Konged { seat, meld } if *seat == me || meld.kind != MeldType::ConcealedKong => {
                format!("{}: kong {}", who(*seat), format_tiles(&meld.tiles()))
            }
            Event::Konged { seat, .. } => format!("{}: concealed kong", who(*seat)),
            Event::KongOffered { seat, card } => {
                format!("{} adds {} to a pung", who(*seat), card.tile)
            }
            Event::FlowerSetAside { seat, card } if *seat == me => {
                format!("You set the flower {} aside", card.tile)
            }
            Event::MissedWin { seat, tile } if *seat == me => {
                format!("You passed a win on {tile}: no win on {tile} until you draw (漏胡)")
            }
            _ => continue,
        };
        writeln!(out, "  {line}")?;
    }
    Ok(())
}

fn report(outcome: &Outcome, payments: &[Money; 4], out: &mut impl Write) -> Result<()> {
    match outcome {
        Outcome::Win { settlement, result } => {
            for (w, s) in settlement.winners.iter().zip(&result.winners) {
                writeln!(
                    out,
                    "Hand over: {} wins with {} ({}), {} flowers, {} points a payer",
                    SEAT_NAMES[w.seat as usize],
                    format_tiles(&w.concealed),
                    s.patterns.join(", "),
                    s.flowers,
                    s.score
                )?;
            }
        }
        Outcome::Drawn => writeln!(out, "Hand over: drawn (流局) — the wall is empty")?,
        Outcome::Abandoned { leaver, .. } => writeln!(
            out,
            "Hand over: {} left the table",
            SEAT_NAMES[*leaver as usize]
        )?,
    }
    writeln!(
        out,
        "Payments: {}",
        payments
            .iter()
            .map(|m| m.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    )?;
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn args(hands: u32, seed: u64) -> SoloArgs {
        SoloArgs {
            preset: "qiaoma".into(),
            bots: "basic,basic,basic".into(),
            seat: 1,
            hands,
            seed: Some(seed),
        }
    }

    #[test]
    fn a_hand_plays_to_the_end_on_scripted_input() {
        // Always the first action; "h" once for a hint.
        let script = "h\n".to_string() + &"1\n".repeat(400);
        let mut input = std::io::Cursor::new(script.into_bytes());
        let mut out = Vec::new();
        play(args(1, 7), &mut input, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("Hand over"), "{text}");
        assert!(text.contains("hint:"), "{text}");
        assert!(text.contains("Session over"));
    }

    #[test]
    fn end_of_input_stops_cleanly() {
        let mut input = std::io::Cursor::new(b"5m\nxx\n".to_vec());
        let mut out = Vec::new();
        play(args(0, 3), &mut input, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("Stopped"), "{text}");
    }
}
