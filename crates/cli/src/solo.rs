//! `mahjong solo`: play in the terminal against three computer players.
//!
//! One human seat, three bots, the full rules engine; hands follow each other with dealer
//! rotation and the 荒番 counter (`rules::Session`). The human sees only their seat's view.
//! Input per prompt: the number of an action, a tile (`5m`: discard it; `!5m`: discard it and
//! declare ready), `h` for a hint (the master bot's suggestion and its reason), `q` to stop.
//! When a claim window offers only "pass", or a flower must be set aside, it is played
//! without asking; so are the forced discards after 敲 (the drawn tile, when it neither wins
//! nor makes a kong). Discard choices are listed in the order of the hand as shown; a claim
//! after which the hand could no longer win (`qiaoma`: a chow with a second suit) is marked.
//! At the hand's end the settlement is explained (the rules crate's explanation, in English or
//! with `--lang zh` in 中文), and every line fits 80 columns.
//!
//! `--option NAME=VALUE` (repeatable) changes an option of the preset, e.g.
//! `--option swap_five=true` for 换牌: after the flowers the player is asked for the five
//! tiles to put back (`19m 5z 34p`), or `k` to keep the hand; the bots choose theirs.

use anyhow::{Result, bail};
use clap::Args;
use mahjong_bot::{Bot, Level};
use mahjong_rules::explain_text::{self, Lang, wrap_words};
use mahjong_rules::view::{PublicPhase, PublicSeat};
use mahjong_rules::{
    Action, Dice, Event, HandState, MeldShape, MeldType, Money, Move, Options, Outcome, Ruleset,
    Seat, SeatView, Session, SessionLength, Setup, Tile, Wall, hand,
};
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use std::io::{BufRead, Write};

use crate::lines::WINDS;

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
    /// The language of the settlement shown at each hand's end: en or zh (中文).
    #[arg(long, default_value = "en")]
    lang: String,
    /// Change an option of the preset, NAME=VALUE (repeatable), e.g. swap_five=true for
    /// 换牌; the names are those of `mahjong score --help`.
    #[arg(long = "option", value_name = "NAME=VALUE")]
    options: Vec<String>,
}

/// The preset's options with `--option NAME=VALUE` overrides (a value is read as JSON —
/// true, 3, null — or else as a word).
fn options_of(preset: Ruleset, overrides: &[String]) -> Result<Options> {
    let mut obj = serde_json::Map::new();
    for o in overrides {
        let Some((name, value)) = o.split_once('=') else {
            bail!("--option expects NAME=VALUE, e.g. swap_five=true; got \"{o}\"");
        };
        let value = value.trim();
        let v = serde_json::from_str(value)
            .unwrap_or_else(|_| serde_json::Value::String(value.to_string()));
        obj.insert(name.trim().to_string(), v);
    }
    Options::preset(preset)
        .apply_overrides(&serde_json::Value::Object(obj))
        .map_err(|e| anyhow::anyhow!("--option: {e}"))
}

/// The seats' names on the terminal.
/// Writes `line` wrapped at [`WIDTH`] columns (continuations indented).
pub(crate) fn say(out: &mut impl Write, line: &str) -> Result<()> {
    for l in wrap_words(line, WIDTH, 4) {
        writeln!(out, "{l}")?;
    }
    Ok(())
}

/// How the terminal names a player: the wind its seat has in the current hand (the dealer
/// is East, as in the app) and its name — `East Ann`, `South you` — never a bare seat number.
#[derive(Clone, Debug)]
pub(crate) struct Names {
    names: [String; 4],
    /// The dealer of the current hand (East).
    pub(crate) dealer: Seat,
}

const WINDS_ZH: [&str; 4] = ["东", "南", "西", "北"];

impl Names {
    /// Players named `names` (by seat), the dealer not yet known (seat 0 until told).
    pub(crate) fn new(names: [String; 4]) -> Names {
        Names { names, dealer: 0 }
    }

    /// `East Ann`.
    pub(crate) fn of(&self, seat: Seat) -> String {
        self.of_in(seat, Lang::En)
    }

    /// `East Ann`, or `东 Ann` in 中文 (for the settlement's sentences).
    pub(crate) fn of_in(&self, seat: Seat, lang: Lang) -> String {
        let k = ((seat & 3) + 4 - (self.dealer & 3)) as usize % 4;
        let wind = match lang {
            Lang::En => WINDS[k],
            Lang::Zh => WINDS_ZH[k],
        };
        format!("{wind} {}", self.names[seat as usize & 3])
    }
}

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
    let options = options_of(preset, &args.options)?;
    if args.seat > 3 {
        bail!("--seat must be 0-3, got {}", args.seat);
    }
    let lang: Lang = args
        .lang
        .parse()
        .map_err(|e| anyhow::anyhow!("--lang: {e}"))?;
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
    let mut hint = Bot::new(Level::ADVISER, seed ^ 0x5eed);
    let length = if args.hands == 0 {
        SessionLength::Open
    } else {
        SessionLength::Hands(args.hands)
    };
    let mut session = Session::new(options.clone(), Money::coins(1), length);
    let mut names = Names::new([0u8, 1, 2, 3].map(|s| {
        if s == me {
            "you".to_string()
        } else {
            format!("{} bot", levels[((s + 4 - me) % 4 - 1) as usize])
        }
    }));
    writeln!(
        out,
        "Shanghai mahjong ({preset}) — you sit against three computer players; each hand's\ndealer is East. Seed {seed}."
    )?;
    writeln!(
        out,
        "Type the number of an action, a tile to discard (5m), !5m to discard and declare\nready (敲), h for a hint, q to quit."
    )?;
    if options.swap_five {
        writeln!(
            out,
            "换牌 is on: after the flowers you may put five tiles back (face down, out of\nplay) and draw five from the wall."
        )?;
    }
    loop {
        let mut wall_seed = [0u8; 32];
        rng.fill_bytes(&mut wall_seed);
        let d = rng.next_u32();
        let dice = Dice::new(1 + (d % 6) as u8, 1 + ((d >> 8) % 6) as u8)?;
        let setup = session.setup(((d >> 16) % 4) as u8, dice);
        let mut st = HandState::new(setup.clone(), &Wall::shuffled(wall_seed))?;
        names.dealer = setup.dealer;
        writeln!(out)?;
        say(
            out,
            &hand_header(session.hands_played + 1, &names, dice, st.huangfan()),
        )?;
        if let Some(w) = st.wildcard() {
            writeln!(out, "Wildcard (百搭): {w}")?;
        }
        // The claim this player made in the open window, to say so when it loses.
        let mut claimed: Option<Action> = None;
        while !st.is_over() {
            let seat = st.to_act_mask().trailing_zeros() as Seat;
            let view = st.view(seat);
            let action = if seat == me {
                match ask(&view, &names, &mut hint, input, out)? {
                    Some(a) => {
                        claimed = is_claim(&a).then(|| a.clone());
                        a
                    }
                    None => {
                        say(
                            out,
                            &format!("Stopped. Balances: {}", balances(&session, &names)),
                        )?;
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
            announce(&events, me, &names, &|p| st.face(p), out)?;
            if let Some(line) = claim_lost(&mut claimed, &events, me, &names) {
                say(out, &line)?;
            }
        }
        let outcome = st
            .outcome()
            .cloned()
            .ok_or_else(|| anyhow::anyhow!("hand not over"))?;
        let record = session.record(&setup, st.huangfan(), &outcome);
        report(
            &outcome,
            &record.payments,
            &setup,
            st.huangfan(),
            (lang, &names),
            out,
        )?;
        say(out, &format!("Balances: {}", balances(&session, &names)))?;
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

/// `=== Hand 2 · dealer South seat 1 · dice 3+5 · 荒番 1 ===`.
pub(crate) fn hand_header(hand: u32, names: &Names, dice: Dice, huangfan: u32) -> String {
    format!(
        "=== Hand {hand} · dealer {} · dice {}+{}{} ===",
        names.of(names.dealer),
        dice.values().0,
        dice.values().1,
        if huangfan > 0 {
            format!(" · 荒番 {huangfan}")
        } else {
            String::new()
        }
    )
}

fn balances(s: &Session, names: &Names) -> String {
    s.balances
        .iter()
        .enumerate()
        .map(|(i, m)| format!("{}: {m}", names.of(i as Seat)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Shows the table and asks for an action; `None` when the player stops (q or end of input).
fn ask(
    view: &SeatView,
    names: &Names,
    hint: &mut Bot,
    input: &mut impl BufRead,
    out: &mut impl Write,
) -> Result<Option<Action>> {
    if let Some(a) = view.auto_action() {
        return Ok(Some(a));
    }
    let order = show_choices(view, names, out)?;
    loop {
        write!(out, "> ")?;
        out.flush()?;
        let mut line = String::new();
        if input.read_line(&mut line)? == 0 {
            return Ok(None);
        }
        match answer(view, &order, &line, hint, out)? {
            Answer::Act(a) => return Ok(Some(a)),
            Answer::Quit => return Ok(None),
            Answer::Again => {}
        }
    }
}

/// Draws the table and lists the legal actions, numbered from 1; returns the order of the
/// list (indices into `view.legal`) for [`answer`].
pub(crate) fn show_choices(
    view: &SeatView,
    names: &Names,
    out: &mut impl Write,
) -> Result<Vec<usize>> {
    let legal = &view.legal;
    render(view, names, out)?;
    if is_swap(view) {
        writeln!(
            out,
            "  换牌: type five tiles to put back (e.g. 19m 5z 34p) and draw five from the\n  wall, or k to keep your hand; h for a hint."
        )?;
        return Ok(Vec::new());
    }
    let order = display_order(legal);
    for (n, &i) in order.iter().enumerate() {
        let mut line = format!("  {}) {}", n + 1, describe(&legal[i]));
        if !claim_can_still_win(view, &legal[i]) {
            line.push_str(" — this hand could not win any more");
        }
        for l in wrap_words(&line, WIDTH, 6) {
            writeln!(out, "{l}")?;
        }
    }
    Ok(order)
}

/// What a line typed at a prompt means.
#[derive(Debug, PartialEq)]
pub(crate) enum Answer {
    /// Play this action.
    Act(Action),
    /// The player stops (`q`).
    Quit,
    /// Nothing to play (a hint, an empty or wrong line, said on `out`): ask again.
    Again,
}

/// Reads one typed line against the choices [`show_choices`] listed: the number of an action,
/// a tile to discard (`5m`, `!5m` to declare ready too), `h` for a hint, `q` to stop.
pub(crate) fn answer(
    view: &SeatView,
    order: &[usize],
    line: &str,
    hint: &mut Bot,
    out: &mut impl Write,
) -> Result<Answer> {
    let legal = &view.legal;
    let line = line.trim();
    if is_swap(view) {
        return swap_answer(view, line, hint, out);
    }
    match line {
        "q" | "quit" => return Ok(Answer::Quit),
        "h" | "hint" => {
            let d = hint.decide(view);
            let text = format!("  hint: {} — {}", describe(&d.action), d.reason);
            for l in wrap_words(&text, WIDTH, 8) {
                writeln!(out, "{l}")?;
            }
            return Ok(Answer::Again);
        }
        "" => return Ok(Answer::Again),
        _ => {}
    }
    if let Ok(n) = line.parse::<usize>() {
        if (1..=order.len()).contains(&n) {
            return Ok(Answer::Act(legal[order[n - 1]].clone()));
        }
        writeln!(out, "  choose 1-{}", order.len())?;
        return Ok(Answer::Again);
    }
    let (ready, tile) = match line.strip_prefix('!') {
        Some(t) => (true, t),
        None => (false, line),
    };
    match tile.parse::<Tile>() {
        Ok(t) => {
            let found = legal.iter().find(
                |a| matches!(a, Action::Discard { card, ready: r } if card.tile == t && *r == ready),
            );
            match found {
                Some(a) => return Ok(Answer::Act(a.clone())),
                None => {
                    let what = if ready {
                        format!("declare ready with {t}")
                    } else {
                        format!("discard {t}")
                    };
                    let why = refusal(view, t, ready);
                    say(out, &format!("  you cannot {what} now: {why}"))?;
                }
            }
        }
        Err(e) => writeln!(out, "  {e}")?,
    }
    Ok(Answer::Again)
}

/// Why discarding `t` (with a ready declaration when `ready`) is not among the legal
/// actions, in a few words.
fn refusal(view: &SeatView, t: Tile, ready: bool) -> String {
    let discards: Vec<(Tile, bool)> = view
        .legal
        .iter()
        .filter_map(|a| match a {
            Action::Discard { card, ready } => Some((card.tile, *ready)),
            _ => None,
        })
        .collect();
    if discards.is_empty() {
        return "it is not your turn to discard; type the number of an action".into();
    }
    if !view.hand.iter().any(|c| c.tile == t) {
        return format!("you hold no {t}");
    }
    let mine = &view.seats[usize::from(view.seat & 3)];
    if mine.ready {
        let drawn = view.drawn.map(|c| c.tile.to_string()).unwrap_or_default();
        return format!("after declaring ready (敲) you discard the tile you draw ({drawn})");
    }
    // A plain discard of `t` that is legal was taken before asking why; so only 敲 with it
    // can be what is refused when it is.
    if ready && discards.contains(&(t, false)) {
        format!("after discarding {t} your hand would not be ready (听)")
    } else {
        format!("the rules do not let you discard {t} at this moment")
    }
}

/// The 换牌 moment with a choice to make (not only a pass).
fn is_swap(view: &SeatView) -> bool {
    matches!(view.phase, PublicPhase::Swap { .. }) && view.legal.len() > 1
}

/// 换牌: five tiles to put back, or `k` to keep the hand.
fn swap_answer(
    view: &SeatView,
    line: &str,
    hint: &mut Bot,
    out: &mut impl Write,
) -> Result<Answer> {
    match line {
        "q" | "quit" => Ok(Answer::Quit),
        "" => Ok(Answer::Again),
        "k" | "keep" | "pass" => Ok(Answer::Act(Action::Pass)),
        "h" | "hint" => {
            let d = hint.decide(view);
            let what = match &d.action {
                Action::Swap { .. } => format!("put back {}", swap_tiles(view, &d.action)),
                _ => "keep your hand (k)".to_string(),
            };
            for l in wrap_words(&format!("  hint: {what} — {}", d.reason), WIDTH, 8) {
                writeln!(out, "{l}")?;
            }
            Ok(Answer::Again)
        }
        text => match view.swap_action(text) {
            Ok(a) => Ok(Answer::Act(a)),
            Err(e) => {
                for l in wrap_words(&format!("  {e}"), WIDTH, 4) {
                    writeln!(out, "{l}")?;
                }
                Ok(Answer::Again)
            }
        },
    }
}

/// The faces of the tiles a swap puts back, as this seat sees them.
fn swap_tiles(view: &SeatView, a: &Action) -> String {
    let Action::Swap { put_back } = a else {
        return String::new();
    };
    let mut tiles: Vec<Tile> = view
        .hand
        .iter()
        .filter(|c| put_back.contains(&c.pos))
        .map(|c| c.tile)
        .collect();
    tiles.sort();
    spaced(&tiles)
}

/// The order in which the legal actions are listed: wins, kongs, claims and pass as the
/// rules give them, then the discards in the order of the hand as shown (sorted), each
/// plain discard before the same tile with a declaration.
fn display_order(legal: &[Action]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..legal.len()).collect();
    order.sort_by_key(|&i| match &legal[i] {
        Action::Discard { card, ready } => (1, card.tile.index(), *ready as usize, i),
        _ => (0, 0, 0, i),
    });
    order
}

/// Whether the hand could still win after this action (only a claim can rule it out).
fn claim_can_still_win(view: &SeatView, a: &Action) -> bool {
    let PublicPhase::Claims { card, .. } = &view.phase else {
        return true;
    };
    let t = card.tile;
    let meld = match a {
        Action::Chow { cards } => {
            let low = cards.iter().map(|c| c.tile).chain([t]).min().unwrap_or(t);
            MeldShape {
                kind: MeldType::Chow,
                tile: low,
            }
        }
        Action::Pung { .. } => MeldShape {
            kind: MeldType::Pung,
            tile: t,
        },
        Action::Kong { .. } => MeldShape {
            kind: MeldType::ClaimedKong,
            tile: t,
        },
        _ => return true,
    };
    let mut melds: Vec<MeldShape> = view.seats[view.seat as usize]
        .melds
        .iter()
        .filter_map(|m| m.tile.map(|tile| MeldShape { kind: m.kind, tile }))
        .collect();
    melds.push(meld);
    hand::can_still_win(&view.options, &melds)
}

/// Lines of the table fit this many columns.
const WIDTH: usize = 80;

fn tiles_word(n: usize) -> &'static str {
    if n == 1 { "tile" } else { "tiles" }
}

fn render(v: &SeatView, names: &Names, out: &mut impl Write) -> Result<()> {
    writeln!(out)?;
    let discards_of = |s: &PublicSeat| -> Vec<Tile> {
        s.discards
            .iter()
            .filter(|d| !d.claimed)
            .map(|d| d.card.tile)
            .collect()
    };
    for (i, s) in v.seats.iter().enumerate() {
        if i as Seat == v.seat {
            continue;
        }
        let mut line = format!(
            "  {}: {} {}{}; melds {}",
            names.of(i as Seat),
            s.hand_size,
            tiles_word(s.hand_size as usize),
            if s.ready { ", 敲 (ready)" } else { "" },
            melds(&s.melds),
        );
        if !s.flowers.is_empty() {
            line.push_str(&format!("; flowers {}", spaced(&s.flowers)));
        }
        if s.buried > 0 {
            line.push_str(&format!("; put back {} (换牌)", s.buried));
        }
        line.push_str(&format!("; discards {}", or_dash(&spaced(&discards_of(s)))));
        for l in wrap_words(&line, WIDTH, 6) {
            writeln!(out, "{l}")?;
        }
    }
    let mine = &v.seats[v.seat as usize];
    let mut hand: Vec<Tile> = v.hand.iter().map(|c| c.tile).collect();
    hand.sort();
    writeln!(
        out,
        "  wall: {} {} left{}",
        v.wall_remaining,
        tiles_word(v.wall_remaining as usize),
        v.wildcard
            .map(|w| format!(" · wildcard {w}"))
            .unwrap_or_default()
    )?;
    match &v.phase {
        PublicPhase::Claims { from, card, .. } => {
            writeln!(out, "  {} discarded {}", names.of(*from), card.tile)?
        }
        PublicPhase::RobKong { from, card, .. } => writeln!(
            out,
            "  {} adds {} to a pung (you may rob it)",
            names.of(*from),
            card.tile
        )?,
        _ => {}
    }
    let mut line = format!("  YOUR discards: {}", or_dash(&spaced(&discards_of(mine))));
    if !mine.flowers.is_empty() {
        line.push_str(&format!("; flowers {}", spaced(&mine.flowers)));
    }
    if !v.put_back.is_empty() {
        let mut back: Vec<Tile> = v.put_back.iter().map(|c| c.tile).collect();
        back.sort();
        line.push_str(&format!("; put back {} (换牌)", spaced(&back)));
    }
    for l in wrap_words(&line, WIDTH, 6) {
        writeln!(out, "{l}")?;
    }
    let line = format!(
        "  YOU: {}{}; melds {}{}",
        spaced(&hand),
        v.drawn
            .map(|c| format!(" (drew {})", c.tile))
            .unwrap_or_default(),
        melds(&mine.melds),
        if mine.ready { "; 敲 (ready)" } else { "" }
    );
    for l in wrap_words(&line, WIDTH, 6) {
        writeln!(out, "{l}")?;
    }
    Ok(())
}

/// Tiles one by one, as they are typed: `1m 2m 3m 5p 5p 7z`.
pub(crate) fn spaced(tiles: &[Tile]) -> String {
    tiles
        .iter()
        .map(Tile::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

fn or_dash(s: &str) -> String {
    if s.is_empty() { "-".into() } else { s.into() }
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
                format!("[{}]", spaced(&ts))
            }
            (k, Some(t)) => format!("[{}]", spaced(&vec![t; k.tile_count()])),
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
        Action::Win { .. } => "WIN (胡)".into(),
        Action::Chow { cards } => format!("chow with your {} {}", cards[0].tile, cards[1].tile),
        Action::Pung { cards } => format!("pung {}", cards[0].tile),
        Action::Kong { cards } => format!("kong {}", cards[0].tile),
        Action::Leave => "leave the table".into(),
        Action::Swap { .. } => "put five tiles back and draw five (换牌)".into(),
    }
}

/// A claim on a discard (chow, pung, kong or a win), which another seat's claim can beat.
pub(crate) fn is_claim(a: &Action) -> bool {
    matches!(
        a,
        Action::Chow { .. } | Action::Pung { .. } | Action::Kong { .. } | Action::Win { .. }
    )
}

/// When the claim `mine` (this player's, on the open discard) lost to another seat's: the
/// sentence that says so (`Your chow lost to West Cy's pung: a pung comes before a chow.`).
/// `mine` is cleared once the window is decided either way.
pub(crate) fn claim_lost(
    mine: &mut Option<Action>,
    events: &[Event],
    me: Seat,
    names: &Names,
) -> Option<String> {
    let ours = mine.as_ref()?;
    let word = |a: &Action| match a {
        Action::Chow { .. } => "chow",
        Action::Pung { .. } => "pung",
        Action::Kong { .. } => "kong",
        _ => "win",
    };
    for e in events {
        let (seat, theirs) = match e {
            Event::Claimed { seat, meld, .. } => (
                *seat,
                match meld.kind {
                    MeldType::Chow => "chow",
                    MeldType::Pung => "pung",
                    _ => "kong",
                },
            ),
            Event::HandOver { outcome } => match outcome.as_ref() {
                Outcome::Win { settlement, .. } => {
                    let winners: Vec<Seat> = settlement.winners.iter().map(|w| w.seat).collect();
                    if winners.contains(&me) {
                        *mine = None;
                        return None;
                    }
                    match winners.first() {
                        Some(&w) => (w, "win"),
                        None => continue,
                    }
                }
                _ => continue,
            },
            Event::Discarded { .. } | Event::Drew { .. } => {
                *mine = None;
                return None;
            }
            _ => continue,
        };
        let what = word(ours);
        *mine = None;
        if seat == me {
            return None;
        }
        let why = match theirs {
            "win" => "a win comes first".to_string(),
            _ if theirs == what => "the seat nearer in turn comes first".to_string(),
            _ => format!("a {theirs} comes before a {what}"),
        };
        return Some(format!(
            "  Your {what} lost to {}'s {theirs}: {why}.",
            names.of(seat)
        ));
    }
    None
}

/// One line per rules event of a move, as `me` sees it; `face` gives the tile at a wall
/// position where this seat knows it (its own 换牌 then names the tiles put back and drawn).
pub(crate) fn announce(
    events: &[Event],
    me: Seat,
    names: &Names,
    face: &dyn Fn(u8) -> Option<Tile>,
    out: &mut impl Write,
) -> Result<()> {
    let who = |seat: Seat| {
        if seat == me {
            "You".to_string()
        } else {
            names.of(seat)
        }
    };
    let whom = |seat: Seat| {
        if seat == me {
            "you".to_string()
        } else {
            names.of(seat)
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
                    spaced(&meld.tiles()),
                    whom(*from)
                )
            }
            Event::Konged { seat, meld } if *seat == me || meld.kind != MeldType::ConcealedKong => {
                format!("{}: kong {}", who(*seat), spaced(&meld.tiles()))
            }
            Event::Konged { seat, .. } => format!("{}: concealed kong", who(*seat)),
            Event::KongOffered { seat, card } => {
                format!("{} adds {} to a pung", who(*seat), card.tile)
            }
            Event::FlowerSetAside { seat, card } if *seat == me => {
                format!("You set the flower {} aside", card.tile)
            }
            Event::Swapped { seat, put_back } if *seat == me => {
                let faces = |ps: &mut dyn Iterator<Item = u8>| {
                    let mut ts: Vec<Tile> = ps.filter_map(face).collect();
                    ts.sort();
                    spaced(&ts)
                };
                let drew = faces(&mut events.iter().filter_map(|e| match e {
                    Event::Drew { seat, pos, .. } if *seat == me => Some(*pos),
                    _ => None,
                }));
                let back = faces(&mut put_back.iter().copied());
                if back.is_empty() || drew.is_empty() {
                    "You put back five tiles face down and drew five (换牌)".to_string()
                } else {
                    format!("You put back {back} face down and drew {drew} (换牌)")
                }
            }
            Event::Swapped { seat, .. } => format!(
                "{} put five tiles back face down and drew five (换牌)",
                who(*seat)
            ),
            Event::MissedWin { seat, tile } if *seat == me => {
                format!("You passed a win on {tile}: no win on {tile} until you draw (漏胡)")
            }
            _ => continue,
        };
        say(out, &format!("  {line}"))?;
    }
    Ok(())
}

/// The hand's settlement explained (the rules crate's explanation, wrapped to 80 columns).
pub(crate) fn report(
    outcome: &Outcome,
    payments: &[Money; 4],
    setup: &Setup,
    huangfan: u32,
    (lang, names): (Lang, &Names),
    out: &mut impl Write,
) -> Result<()> {
    // The explanation is computed by the scorer on the same settlement (or the same leaver
    // penalty), so what it explains is what was paid.
    let explained = outcome.explain(&setup.options, setup.stake, huangfan)?;
    match explained {
        Some(e) => {
            writeln!(out, "Hand over.")?;
            // Players by name, hands by their names (not the pinyin ids), tiles in the
            // terminal's notation.
            let style = explain_text::Style::named(lang, |s| names.of_in(s, lang), false);
            for line in explain_text::render_styled(&e, &style, WIDTH) {
                writeln!(out, "{line}")?;
            }
            if e.payments != *payments {
                say(
                    out,
                    &format!(
                        "Payments after the chip limit: {}",
                        payment_list(payments, names)
                    ),
                )?;
            }
            Ok(())
        }
        None => {
            writeln!(out, "Hand over: drawn (流局), the wall is empty.")?;
            say(out, &format!("Payments: {}", payment_list(payments, names)))?;
            Ok(())
        }
    }
}

fn payment_list(payments: &[Money; 4], names: &Names) -> String {
    payments
        .iter()
        .enumerate()
        .map(|(i, m)| format!("{} {}", names.of(i as Seat), explain_text::signed(*m)))
        .collect::<Vec<_>>()
        .join(", ")
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
            lang: "en".into(),
            options: vec![],
        }
    }

    #[test]
    fn options_are_read_by_name_with_clear_errors() {
        let o = options_of(Ruleset::Baida, &["swap_five=true".into()]).unwrap();
        assert!(o.swap_five && o.wildcard);
        let o = options_of(Ruleset::Qiaoma, &["table_limit_lezi = none".into()]).unwrap();
        assert_eq!(o.table_limit_lezi, None);
        let e = options_of(Ruleset::Qiaoma, &["swap_five".into()]).unwrap_err();
        assert!(e.to_string().contains("NAME=VALUE"), "{e}");
        let e = options_of(Ruleset::Qiaoma, &["kaibao=3".into()]).unwrap_err();
        assert!(e.to_string().contains("kaibao"), "{e}");
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
    fn a_refused_tile_says_why() {
        // Every suit tile typed at the first prompt, plain and with 敲, before playing on.
        let mut script = String::new();
        for suit in ["m", "p", "s"] {
            for n in 1..=9 {
                script.push_str(&format!("{n}{suit}\n!{n}{suit}\n"));
            }
        }
        script.push_str(&"1\n".repeat(400));
        let mut input = std::io::Cursor::new(script.into_bytes());
        let mut out = Vec::new();
        play(args(1, 11), &mut input, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let refusals: Vec<&str> = text.lines().filter(|l| l.contains("you cannot ")).collect();
        assert!(!refusals.is_empty(), "{text}");
        for l in &refusals {
            let (_, why) = l
                .split_once(" now: ")
                .unwrap_or_else(|| panic!("no why: {l}"));
            assert!(
                why.starts_with("you hold no ")
                    || why.starts_with("after discarding ")
                    || why.starts_with("it is not your turn")
                    || why.starts_with("the rules do not let you"),
                "{l}"
            );
        }
    }

    #[test]
    fn a_claim_beaten_by_another_seat_is_said() {
        // Always the second choice: a claim whenever one is offered (pass is the first).
        // Over a few sessions one
        // of them loses to another seat's claim or win, and the player is told.
        let mut told = Vec::new();
        for seed in 1..=12 {
            let mut input = std::io::Cursor::new("2\n".repeat(3000).into_bytes());
            let mut out = Vec::new();
            play(args(4, seed), &mut input, &mut out).unwrap();
            let text = String::from_utf8(out).unwrap();
            told.extend(
                text.lines()
                    .filter(|l| l.contains("Your ") && l.contains(" lost to "))
                    .map(str::to_string),
            );
        }
        assert!(!told.is_empty(), "no claim ever lost");
        for l in &told {
            assert!(
                l.contains("comes first") || l.contains("comes before a "),
                "{l}"
            );
        }
    }

    /// Players are named by wind (the dealer is East, as in the app) and name, never by a
    /// bare seat number, and no line is wider than 80 columns, over whole sessions of the
    /// three presets in both languages.
    #[test]
    fn the_terminal_names_players_by_wind_and_keeps_to_80_columns() {
        for (k, preset) in ["qiaoma", "classic", "baida"].into_iter().enumerate() {
            for lang in ["en", "zh"] {
                let script = "1\n".repeat(2000);
                let mut input = std::io::Cursor::new(script.into_bytes());
                let mut out = Vec::new();
                let mut a = args(3, 11 + k as u64);
                a.preset = preset.into();
                a.lang = lang.into();
                play(a, &mut input, &mut out).unwrap();
                let text = String::from_utf8(out).unwrap();
                for line in text.lines() {
                    assert!(
                        explain_text::columns(line) <= 80,
                        "{preset} {lang}: {} columns: {line}",
                        explain_text::columns(line)
                    );
                    assert!(
                        !line.contains("seat 0") && !line.contains("座位"),
                        "{preset} {lang}: a bare seat number: {line}"
                    );
                }
                assert!(text.contains("dealer East "), "{text}");
                assert!(
                    text.lines().any(|l| l
                        .strip_prefix("Balances: ")
                        .is_some_and(|rest| WINDS.iter().any(|w| rest.starts_with(w)))),
                    "{text}"
                );
            }
        }
    }

    use mahjong_rules::Card;

    fn state(preset: Ruleset, seed: u8) -> HandState {
        let setup = Setup {
            options: Options::preset(preset),
            stake: Money::coins(1),
            dealer: 0,
            dice: Dice::new(3, 5).unwrap(),
            huangfan: 0,
        };
        HandState::new(setup, &Wall::shuffled([seed; 32])).unwrap()
    }

    /// After 敲 the drawn tile is discarded without a prompt: strong bots play until seat 0
    /// has declared and must discard; `ask` then answers with the drawn tile from no input.
    #[test]
    fn after_declaring_ready_the_forced_discard_is_played_for_you() {
        let mut checked = 0;
        for seed in 0..40u8 {
            let mut st = state(Ruleset::Qiaoma, seed);
            let mut bots: Vec<Bot> = (0..4).map(|s| Bot::new(Level::Strong, s)).collect();
            while !st.is_over() {
                let seat = st.to_act()[0];
                let view = st.view(seat);
                if seat == 0
                    && view.seats[0].ready
                    && view
                        .legal
                        .iter()
                        .all(|a| matches!(a, Action::Discard { .. }))
                {
                    let mut none = std::io::Cursor::new(Vec::new());
                    let mut out = Vec::new();
                    let mut hint = Bot::new(Level::Strong, 1);
                    let names = Names::new([0, 1, 2, 3].map(|s| format!("p{s}")));
                    let a = ask(&view, &names, &mut hint, &mut none, &mut out).unwrap();
                    let Some(Action::Discard { card, ready: false }) = a else {
                        panic!("{a:?}")
                    };
                    assert_eq!(Some(card), view.drawn);
                    assert!(out.is_empty(), "no prompt");
                    checked += 1;
                }
                let d = bots[seat as usize].decide(&view);
                st.apply(&Move::new(seat, d.action)).unwrap();
            }
        }
        assert!(checked > 0, "some hand had seat 0 declared");
    }

    /// A claim that puts a second suit beside a chow is marked in `qiaoma`.
    #[test]
    fn a_claim_that_ends_every_winning_hand_is_marked() {
        let st = state(Ruleset::Qiaoma, 1);
        let mut view = st.view(1);
        let card = |pos, t: &str| Card {
            pos,
            tile: t.parse().unwrap(),
        };
        view.phase = PublicPhase::Claims {
            from: 0,
            card: card(0, "3p"),
            answered: [true, false, false, false],
        };
        view.seats[1].melds = vec![mahjong_rules::PublicMeld {
            kind: MeldType::Chow,
            tile: Some("1m".parse().unwrap()),
            from: Some(0),
        }];
        let chow = Action::Chow {
            cards: [card(1, "4p"), card(2, "5p")],
        };
        let pung = Action::Pung {
            cards: [card(1, "3p"), card(2, "3p")],
        };
        assert!(!claim_can_still_win(&view, &chow));
        assert!(
            !claim_can_still_win(&view, &pung),
            "a chow and a pung in two suits"
        );
        assert!(claim_can_still_win(&view, &Action::Pass));
        view.options = Options::preset(Ruleset::Classic);
        assert!(claim_can_still_win(&view, &chow), "classic admits 大吊车");
        view.options = Options::preset(Ruleset::Qiaoma);
        view.phase = PublicPhase::Claims {
            from: 0,
            card: card(0, "3m"),
            answered: [true, false, false, false],
        };
        let same_suit = Action::Chow {
            cards: [card(1, "4m"), card(2, "5m")],
        };
        assert!(
            claim_can_still_win(&view, &same_suit),
            "one suit: 清一色 is open"
        );
    }

    #[test]
    fn discards_are_listed_in_the_order_of_the_hand() {
        let card = |pos, t: &str| Card {
            pos,
            tile: t.parse().unwrap(),
        };
        let legal = vec![
            Action::Discard {
                card: card(5, "7z"),
                ready: false,
            },
            Action::Discard {
                card: card(9, "2m"),
                ready: true,
            },
            Action::Discard {
                card: card(9, "2m"),
                ready: false,
            },
            Action::Win { reveal: vec![] },
        ];
        assert_eq!(display_order(&legal), [3, 2, 1, 0]);
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
