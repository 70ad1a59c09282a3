//! What `mahjong play` and `mahjong ledger` say about people, hands and tables, in lines a
//! player reads: players by wind and name (`South Ann`), as the app names them and never by
//! a seat number; tiles one by one in the terminal's notation (`7s 5s 8s`); counts that agree
//! with their nouns; and every line within 80 columns (a longer one continues on the next
//! line, indented), the lobby's and the relay's included.

use std::collections::HashMap;

use mahjong_relay::libp2p::PeerId;
use mahjong_rules::explain_text::{self, Lang, wrap_words};
use mahjong_rules::names::{count, pattern};
use mahjong_rules::{Money, Outcome, Ruleset, Seat, SessionLength, WinKind};
use mahjong_table::HandResult;

/// The width every line keeps to.
pub const WIDTH: usize = 80;

/// Continuation lines start this far in.
const INDENT: usize = 4;

/// `text` cut into lines of at most [`WIDTH`] columns.
pub fn wrapped(text: &str) -> Vec<String> {
    text.lines()
        .flat_map(|l| wrap_words(l, WIDTH, INDENT))
        .collect()
}

/// Prints `text` on standard error within [`WIDTH`] columns.
pub fn say(text: &str) {
    for l in wrapped(text) {
        eprintln!("{l}");
    }
}

/// The winds of a hand, East first (the dealer's).
pub const WINDS: [&str; 4] = ["East", "South", "West", "North"];

/// A name as shown on the terminal: no control, escape or bidi characters (an escape
/// sequence in a peer's name must not drive this terminal), at most 32 characters.
pub use mahjong_store::clean_name as clean;

/// The people at one table: each seat's name, which seats this peer runs, and the dealer of
/// the hand being played (so that a seat is named by its wind, as the app does).
#[derive(Clone, Debug, Default)]
pub struct People {
    names: [String; 4],
    bots: [bool; 4],
    /// The seat the player at this terminal plays (named "you").
    you: Option<Seat>,
    /// The dealer (East) of the hand being played, once one was dealt.
    pub dealer: Option<Seat>,
    /// Who each peer is, by its libp2p id: the names it sits under.
    peers: HashMap<PeerId, String>,
}

impl People {
    /// Nobody known yet.
    pub fn new() -> People {
        People::default()
    }

    /// Players known only by their names, seat by seat (a stored table's).
    pub fn from_names(names: &[String; 4]) -> People {
        People {
            names: names.clone().map(|n| clean(&n)),
            ..People::default()
        }
    }

    /// The players of a roster's seats; `you` is the seat the player at this terminal plays.
    pub fn seat(&mut self, seats: &[Option<mahjong_net::SeatInfo>; 4], you: Option<Seat>) {
        for (i, s) in seats.iter().enumerate() {
            self.names[i] = s.as_ref().map(|s| clean(&s.name)).unwrap_or_default();
            self.bots[i] = s.as_ref().is_some_and(|s| s.bot);
        }
        self.you = you;
        self.dealer = None;
        self.learn(seats);
    }

    /// Remembers the peers of the seats of an advert or roster, to name their links.
    pub fn learn(&mut self, seats: &[Option<mahjong_net::SeatInfo>; 4]) {
        for s in seats.iter().flatten().filter(|s| !s.bot) {
            if let Some(id) = mahjong_net::node::peer_id(&s.peer) {
                self.peers.insert(id, clean(&s.name));
            }
        }
    }

    /// A seat's player: `South Ann` in a hand, `Ann` before the first; `you` for the player
    /// at this terminal.
    pub fn of(&self, seat: Seat) -> String {
        if Some(seat) == self.you {
            return "you".into();
        }
        self.named(seat, self.dealer)
    }

    /// A seat's player in the hand whose dealer is `dealer`.
    pub fn named(&self, seat: Seat, dealer: Option<Seat>) -> String {
        let name = &self.names[usize::from(seat & 3)];
        let wind = dealer.map(|d| WINDS[usize::from((seat & 3) + 4 - (d & 3)) % 4]);
        match (wind, name.is_empty()) {
            (Some(w), false) => format!("{w} {name}"),
            (Some(w), true) => format!("the {w} seat"),
            (None, false) => name.clone(),
            (None, true) => "an empty seat".into(),
        }
    }

    /// Several seats: `Ann`, `Ann and Bo`, `Ann, Bo and Cy`.
    pub fn list(&self, seats: &[Seat]) -> String {
        and_list(&seats.iter().map(|&s| self.of(s)).collect::<Vec<_>>())
    }

    /// Whether the name a peer sits under is known.
    pub fn knows(&self, id: &PeerId) -> bool {
        self.peers.contains_key(id)
    }

    /// A peer by its libp2p id: the name it sits under, or the end of its id.
    pub fn peer(&self, id: &PeerId) -> String {
        match self.peers.get(id) {
            Some(name) => name.clone(),
            None => {
                let s = id.to_string();
                format!("a peer …{}", &s[s.len().saturating_sub(6)..])
            }
        }
    }

    /// The roster at the table's start: `East Ann (host), South Bo, West bot of Ann, North
    /// Cy`, the first hand's dealer being the first seat.
    pub fn roster(&self, host: Seat) -> String {
        let seats: Vec<String> = (0..4)
            .map(|s| {
                let mut who = self.named(s, Some(self.dealer.unwrap_or(0)));
                if s == host {
                    who.push_str(" (host)");
                }
                if self.bots[usize::from(s)] {
                    who.push_str(" (a bot)");
                }
                who
            })
            .collect();
        seats.join(", ")
    }

    /// The players this peer runs, by name.
    pub fn ours(&self, seats: &[Seat]) -> String {
        and_list(
            &seats
                .iter()
                .map(|&s| self.named(s, None))
                .collect::<Vec<_>>(),
        )
    }

    /// Each seat's money by name: `Ann +42, Bo +6, Cy -24, Di -24`.
    pub fn money(&self, amounts: &[Money; 4]) -> String {
        (0..4u8)
            .map(|s| {
                format!(
                    "{} {}",
                    self.named(s, None),
                    explain_text::signed(amounts[usize::from(s)])
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// One line for a final hand: `hand 2/3: South Ann wins with a full flush (清一色) by
    /// self-draw; payments: Ann +60, Bo -20, Cy -20, Di -20`.
    pub fn hand(&self, result: &HandResult, hands: u32, signatures: usize) -> String {
        format!(
            "hand {}/{hands}: {}; payments: {}",
            result.hand,
            self.told(result, Some(signatures)),
            self.money(&result.payments)
        )
    }

    /// What happened in a final hand, players named by their wind in it: `South Ann wins
    /// with a full flush (清一色) by self-draw`, `drawn, the wall is empty`.
    pub fn outcome(&self, result: &HandResult) -> String {
        self.told(result, None)
    }

    /// [`People::outcome`], an abort with its number of `votes` when known.
    fn told(&self, result: &HandResult, votes: Option<usize>) -> String {
        let dealer = result.setup.as_ref().map(|s| s.dealer);
        match &result.outcome {
            Outcome::Win { .. } => self.win(result, dealer),
            Outcome::Drawn => "drawn, the wall is empty".to_string(),
            Outcome::Abandoned { leaver, .. } if result.aborted => format!(
                "stopped by the three others{}; {} pays the leaver's penalty",
                votes
                    .map(|n| format!(" ({})", count(n as u64, "vote", "votes")))
                    .unwrap_or_default(),
                self.named(*leaver, dealer)
            ),
            Outcome::Abandoned { leaver, .. } => format!(
                "{} left and pays the leaver's penalty",
                self.named(*leaver, dealer)
            ),
        }
    }

    /// Who won, with what and how: `South Ann wins with a full flush (清一色) on West Cy's
    /// discard`.
    fn win(&self, result: &HandResult, dealer: Option<Seat>) -> String {
        let Outcome::Win {
            settlement,
            result: score,
        } = &result.outcome
        else {
            return String::new();
        };
        let who = |s: Seat| self.named(s, dealer);
        let how = match (settlement.kind, settlement.from) {
            (WinKind::SelfDraw, _) => "by self-draw".to_string(),
            (WinKind::Discard, Some(from)) => format!("on {}'s discard", who(from)),
            (WinKind::Discard, None) => "on a discard".to_string(),
            (WinKind::RobKong, Some(from)) => format!("robbing {}'s kong", who(from)),
            (WinKind::RobKong, None) => "robbing a kong".to_string(),
            (WinKind::EightFlowers, _) => "with all eight flowers".to_string(),
            (WinKind::FourWildcards, _) => "with all four wildcards".to_string(),
        };
        let winners: Vec<String> = score
            .winners
            .iter()
            .map(|w| {
                let hand = pattern(&w.hand, Lang::En).unwrap_or("a winning hand");
                format!("{} wins with {}", who(w.seat), article(hand))
            })
            .collect();
        let text = format!("{} {how}", and_list(&winners));
        if result.aborted {
            format!("{text} (settled by the three others)")
        } else {
            text
        }
    }
}

/// `a full flush (清一色)`, `an all pungs (碰碰胡)` reads badly: hands that are plural or
/// start with a vowel take no article or "an".
fn article(hand: &str) -> String {
    if hand.starts_with("all ") || hand.starts_with("four ") {
        hand.to_string()
    } else if hand.starts_with(['a', 'e', 'i', 'o', 'u']) {
        format!("an {hand}")
    } else {
        format!("a {hand}")
    }
}

/// `A`, `A and B`, `A, B and C`.
pub fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// What a table plays for: `qiaoma (敲麻), stake 1, 3 hands`.
pub fn terms(preset: Ruleset, stake: Money, length: SessionLength) -> String {
    format!(
        "{} ({}), stake {stake}, {}",
        preset.name(),
        preset_zh(preset),
        length_text(length)
    )
}

/// A session's length: `3 hands`, `4 rounds (四圈)`, `until the players stop`.
pub fn length_text(length: SessionLength) -> String {
    match length {
        SessionLength::Hands(n) => count(n, "hand", "hands"),
        SessionLength::Rounds(4) => "4 rounds (四圈)".to_string(),
        SessionLength::Rounds(n) => count(n, "round", "rounds"),
        SessionLength::Open => "until the players stop".to_string(),
    }
}

/// A preset's Chinese name.
pub fn preset_zh(preset: Ruleset) -> &'static str {
    match preset {
        Ruleset::Qiaoma => "敲麻",
        Ruleset::Classic => "经典上海",
        Ruleset::Baida => "百搭",
    }
}

/// A libp2p address as a person reads it: `203.0.113.7:4001`, `[2001:db8::1]:4001 (QUIC)`;
/// the address itself when it is of another shape.
pub fn short_addr(addr: &str) -> String {
    let parts: Vec<&str> = addr.split('/').collect();
    let (mut host, mut port, mut quic) = (None, None, false);
    for w in parts.windows(2) {
        match w[0] {
            "ip4" | "dns" | "dns4" | "dns6" => host = host.or(Some(w[1].to_string())),
            "ip6" => host = host.or(Some(format!("[{}]", w[1]))),
            "tcp" | "udp" => port = port.or(Some(w[1])),
            _ => {}
        }
        quic |= w[1] == "quic-v1";
    }
    match (host, port) {
        (Some(h), Some(p)) if quic => format!("{h}:{p} (QUIC)"),
        (Some(h), Some(p)) => format!("{h}:{p}"),
        _ => addr.to_string(),
    }
}

/// `text` cut to at most `cols - 1` columns (a CJK character is two) and padded with spaces
/// to `cols`, for a column of a table.
pub fn cell(text: &str, cols: usize) -> String {
    let mut out = String::new();
    let mut used = 0;
    for ch in text.chars() {
        let w = explain_text::columns(ch.encode_utf8(&mut [0; 4]));
        if used + w >= cols {
            break;
        }
        out.push(ch);
        used += w;
    }
    out.push_str(&" ".repeat(cols - used));
    out
}

/// Hex of a table id, as short as the lines print it.
pub fn table_id(id: &[u8; 32]) -> String {
    mahjong_store::to_hex(id)[..8].to_string()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn people(names: [&str; 4]) -> People {
        let mut p = People::new();
        p.names = names.map(str::to_string);
        p
    }

    #[test]
    fn players_are_named_by_wind_and_name_never_by_seat_number() {
        let mut p = people(["Ann", "Bo", "Cy", ""]);
        assert_eq!(p.of(1), "Bo");
        p.dealer = Some(1);
        assert_eq!(p.of(1), "East Bo");
        assert_eq!(p.of(0), "North Ann");
        assert_eq!(p.of(3), "the West seat");
        p.you = Some(2);
        assert_eq!(p.of(2), "you");
        assert_eq!(p.list(&[0, 1, 2]), "North Ann, East Bo and you");
        assert_eq!(
            p.money(&[Money(4200), Money(-2400), Money(600), Money(-2400)]),
            "Ann +42, Bo -24, Cy +6, an empty seat -24"
        );
    }

    #[test]
    fn terms_count_their_hands() {
        assert_eq!(
            terms(Ruleset::Qiaoma, Money(100), SessionLength::Hands(1)),
            "qiaoma (敲麻), stake 1, 1 hand"
        );
        assert!(terms(Ruleset::Baida, Money(2), SessionLength::Hands(3)).ends_with("3 hands"));
    }

    #[test]
    fn cells_keep_their_columns_with_chinese_names() {
        assert_eq!(cell("Ann", 6), "Ann   ");
        assert_eq!(explain_text::columns(&cell(&"阿".repeat(20), 16)), 16);
        assert_eq!(cell("abcdefgh", 4), "abc ");
    }

    #[test]
    fn addresses_are_shown_as_host_and_port() {
        assert_eq!(
            short_addr("/ip4/10.77.0.2/tcp/4001/p2p/12D3KooWAbc"),
            "10.77.0.2:4001"
        );
        assert_eq!(
            short_addr("/ip4/10.77.0.2/udp/4001/quic-v1"),
            "10.77.0.2:4001 (QUIC)"
        );
        assert_eq!(short_addr("/memory/5"), "/memory/5");
    }

    #[test]
    fn long_names_and_lines_keep_to_80_columns() {
        let long = "阿".repeat(32);
        let mut p = people([long.as_str(), "x".repeat(32).as_str(), "Cy", "Di"]);
        p.dealer = Some(0);
        let text = format!(
            "session over: {}",
            p.money(&[Money(-1000), Money(2000), Money(-500), Money(-500)])
        );
        for l in wrapped(&text) {
            assert!(explain_text::columns(&l) <= WIDTH, "{l}");
        }
        assert!(wrapped(&text)[0].starts_with("session over: "));
    }
}
