//! The scorer, for a game played with physical tiles: pick the winner's tiles and melds by
//! clicking faces, the flowers, the situation (how it was won, who discarded, the dealer, 开宝
//! dice, 荒番, ready declarations, claims between seats), the preset with its options and the
//! stake; the settlement is explained as soon as the hand is complete.
//!
//! One file on purpose (about 1,000 lines): the tile picker, the situation form and the
//! explained settlement share one state, the hand being built; split, each part would reach
//! into the others'.
//!
//! It builds the rules crate's `Settlement` and scores it with `scoring::settle`, the engine
//! `mahjong score` runs on a settlement file, and shows the explanation with the hand end's
//! own renderer ([`super::settle::explanation_lines`]). A click that cannot be right (a fifth
//! copy of a tile, a flower twice, a chow that is no sequence, a fifteenth tile) is refused
//! with the reason at once; a complete hand that does not win shows the rules crate's reason.
//! Nothing entered can make it panic.

use crate::i18n::Text;
use iced::widget::{button, column, container, mouse_area, row, scrollable, text};
use iced::{Alignment, Element, Length};
use mahjong_rules::hand::{MeldShape, MeldType};
use mahjong_rules::scoring::{self, Explanation, ScoreResult, Settlement, WinKind, WinnerHand};
use mahjong_rules::{Money, Options, OptionsError, Ruleset, Seat, Tile};

use super::options::{self, Editor, Scope};
use super::settle::explanation_lines;
use super::{ACCENT, MUTED, ON_FELT, WARN, action, bold, label, panel, preset_name, signed, wind};
use crate::i18n::{Lang, T};
use crate::tiles::{Faces, Mark, TileView};

/// What a click on a face adds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    /// A concealed tile (the last one added is the winning tile).
    Hand,
    /// An exposed chow starting on the face.
    Chow,
    /// An exposed pung.
    Pung,
    /// A kong claimed from a discard.
    Kong,
    /// A concealed kong.
    ConcealedKong,
    /// A kong added to an own pung.
    AddedKong,
    /// A flower set aside.
    Flower,
    /// The wildcard (百搭 tables).
    Wildcard,
}

impl Mode {
    const ALL: [Mode; 8] = [
        Mode::Hand,
        Mode::Chow,
        Mode::Pung,
        Mode::Kong,
        Mode::ConcealedKong,
        Mode::AddedKong,
        Mode::Flower,
        Mode::Wildcard,
    ];

    /// The name in ids (`scorer-mode-<name>`).
    pub fn name(self) -> &'static str {
        match self {
            Mode::Hand => "hand",
            Mode::Chow => "chow",
            Mode::Pung => "pung",
            Mode::Kong => "kong",
            Mode::ConcealedKong => "concealed_kong",
            Mode::AddedKong => "added_kong",
            Mode::Flower => "flower",
            Mode::Wildcard => "wildcard",
        }
    }

    fn key(self) -> T {
        match self {
            Mode::Hand => T::ModeHand,
            Mode::Chow => T::ModeChow,
            Mode::Pung => T::ModePung,
            Mode::Kong => T::ModeKong,
            Mode::ConcealedKong => T::ModeConcealedKong,
            Mode::AddedKong => T::ModeAddedKong,
            Mode::Flower => T::ModeFlower,
            Mode::Wildcard => T::ModeWildcard,
        }
    }

    fn meld(self) -> Option<MeldType> {
        Some(match self {
            Mode::Chow => MeldType::Chow,
            Mode::Pung => MeldType::Pung,
            Mode::Kong => MeldType::ClaimedKong,
            Mode::ConcealedKong => MeldType::ConcealedKong,
            Mode::AddedKong => MeldType::AddedKong,
            _ => return None,
        })
    }
}

/// The ways to win, as named in settlement files (`scorer-kind-<name>`).
pub fn kind_name(k: WinKind) -> &'static str {
    k.name()
}

/// The ways to win the options allow.
pub fn kinds(o: &Options) -> Vec<WinKind> {
    let mut k = vec![WinKind::SelfDraw];
    if o.win_on_discard {
        k.extend([WinKind::Discard, WinKind::RobKong]);
    }
    if o.eight_flowers {
        k.push(WinKind::EightFlowers);
    }
    if o.four_wildcards {
        k.push(WinKind::FourWildcards);
    }
    k
}

/// Why a click was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// A fifth copy of the tile (or a second of a flower).
    TooManyCopies(Tile),
    /// A flower tile clicked as a hand tile or into a meld.
    FlowerInHand(Tile),
    /// Not a flower under these options.
    NotAFlower(Tile),
    /// A chow cannot start on this tile.
    BadChow(Tile),
    /// The hand is full (14 tiles, a kong counting as 3).
    Full,
    /// The wildcard is a playing tile, not a flower.
    BadWildcard(Tile),
}

impl Refusal {
    /// In words.
    pub fn say(self, lang: Lang, faces: Faces) -> String {
        let n = |t: Tile| crate::tiles::tile_text(t, faces, lang);
        match self {
            Refusal::TooManyCopies(t) => lang.f(T::RefuseCopies, &[&n(t), &t.copies()]),
            Refusal::FlowerInHand(t) => lang.f(T::RefuseFlowerInHand, &[&n(t)]),
            Refusal::NotAFlower(t) => lang.f(T::RefuseNotAFlower, &[&n(t)]),
            Refusal::BadChow(t) => lang.f(T::RefuseChow, &[&n(t)]),
            Refusal::Full => lang.t(T::RefuseFull).to_string(),
            Refusal::BadWildcard(t) => lang.f(T::RefuseWildcard, &[&n(t)]),
        }
    }
}

/// Tiles a standard winning hand holds, a kong counting as three.
pub const HAND_TILES: usize = 14;

/// The scorer.
#[derive(Clone, Debug)]
pub struct State {
    /// The preset, its options and the stake.
    pub editor: Editor,
    /// The option editor is open.
    pub show_options: bool,
    /// The winning seat.
    pub winner: Seat,
    /// The dealer.
    pub dealer: Seat,
    /// How it was won.
    pub kind: WinKind,
    /// The discarder or the kong's owner (discard and robbed-kong wins).
    pub from: Seat,
    /// This hand's dice were a pair or 1 and 4.
    pub kaibao: bool,
    /// The 荒番 counter in force.
    pub huangfan: u32,
    /// Seats that had declared ready.
    pub declared: [bool; 4],
    /// `claims[a][b]`: chows, pungs and claimed kongs `a` made on `b`'s discards.
    pub claims: [[u32; 4]; 4],
    /// The wildcard (百搭 tables).
    pub wildcard: Option<Tile>,
    /// The winner's concealed tiles; the last is the winning tile.
    pub concealed: Vec<Tile>,
    /// The winner's melds.
    pub melds: Vec<MeldShape>,
    /// The winner's flowers.
    pub flowers: Vec<Tile>,
    /// Won on a replacement draw (杠开).
    pub replacement: bool,
    /// What a click on a face adds.
    pub mode: Mode,
    /// The last click refused, and why.
    pub refused: Option<Refusal>,
}

/// What the scorer is told.
#[derive(Clone, Debug)]
pub enum Message {
    /// The option editor (preset, stake, options).
    Options(options::Message),
    /// Show or hide the option editor.
    ToggleOptions,
    /// The winner.
    Winner(Seat),
    /// The dealer.
    Dealer(Seat),
    /// How it was won.
    Kind(WinKind),
    /// The discarder or kong owner.
    From(Seat),
    /// 开宝 dice on or off.
    Kaibao,
    /// 荒番 one up (true) or down.
    Huangfan(bool),
    /// A seat's ready declaration on or off.
    Declared(Seat),
    /// `claims[a][b]` one up (true) or down.
    Claims(Seat, Seat, bool),
    /// 杠开 on or off.
    Replacement,
    /// What a click on a face adds.
    Mode(Mode),
    /// A face was clicked.
    Face(Tile),
    /// Remove the concealed tile at this position.
    RemoveTile(usize),
    /// Remove the meld at this position.
    RemoveMeld(usize),
    /// Remove the flower at this position.
    RemoveFlower(usize),
    /// Start a new hand.
    Clear,
    /// Leave the scorer.
    Back,
}

/// Where the scorer stands.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// The hand is not complete: tiles chosen so far.
    Incomplete(usize),
    /// The options are refused by the rules crate.
    Options(OptionsError),
    /// The hand cannot be scored (not a win, or impossible), with the rules crate's reason.
    Refused(scoring::ScoreError),
    /// Scored.
    Scored(Box<(ScoreResult, Explanation)>),
}

impl Default for State {
    fn default() -> State {
        State::new()
    }
}

impl State {
    /// An empty hand under 敲麻, seat 0 dealing and winning by self-draw.
    pub fn new() -> State {
        State {
            editor: Editor::new(Ruleset::Qiaoma, Scope::Practice),
            show_options: false,
            winner: 0,
            dealer: 0,
            kind: WinKind::SelfDraw,
            from: 1,
            kaibao: false,
            huangfan: 0,
            declared: [false; 4],
            claims: [[0; 4]; 4],
            wildcard: None,
            concealed: Vec::new(),
            melds: Vec::new(),
            flowers: Vec::new(),
            replacement: false,
            mode: Mode::Hand,
            refused: None,
        }
    }

    fn options(&self) -> &Options {
        self.editor.options()
    }

    /// Tiles chosen, a kong counting as three.
    pub fn tile_count(&self) -> usize {
        self.concealed.len() + 3 * self.melds.len()
    }

    fn copies(&self, t: Tile) -> usize {
        self.concealed.iter().filter(|&&c| c == t).count()
            + self
                .melds
                .iter()
                .flat_map(MeldShape::tiles)
                .filter(|&c| c == t)
                .count()
            + self.flowers.iter().filter(|&&c| c == t).count()
    }

    fn add(&mut self, t: Tile) -> Result<(), Refusal> {
        let o = self.options().clone();
        let room = |n: usize| {
            if self.tile_count() + n > HAND_TILES {
                Err(Refusal::Full)
            } else {
                Ok(())
            }
        };
        let fits = |tiles: &[Tile]| {
            for &x in tiles {
                let have = self.copies(x) + tiles.iter().filter(|&&y| y == x).count();
                if have > x.copies() as usize {
                    return Err(Refusal::TooManyCopies(x));
                }
            }
            Ok(())
        };
        match self.mode {
            Mode::Wildcard => {
                if t.is_flower() {
                    return Err(Refusal::BadWildcard(t));
                }
                self.wildcard = Some(t);
            }
            Mode::Flower => {
                if !o.is_flower(t) {
                    return Err(Refusal::NotAFlower(t));
                }
                fits(&[t])?;
                self.flowers.push(t);
            }
            Mode::Hand => {
                if o.is_flower(t) {
                    return Err(Refusal::FlowerInHand(t));
                }
                room(1)?;
                fits(&[t])?;
                self.concealed.push(t);
            }
            m => {
                let Some(kind) = m.meld() else {
                    return Ok(());
                };
                if o.is_flower(t) {
                    return Err(Refusal::FlowerInHand(t));
                }
                if kind == MeldType::Chow && !(t.is_suited() && t.number() <= 7) {
                    return Err(Refusal::BadChow(t));
                }
                let meld = MeldShape { kind, tile: t };
                room(3)?;
                fits(&meld.tiles())?;
                self.melds.push(meld);
            }
        }
        Ok(())
    }

    /// The settlement as entered (the same input `mahjong score` reads from a file).
    pub fn settlement(&self) -> Result<Settlement, OptionsError> {
        let choice = self.editor.choice()?;
        let from = matches!(self.kind, WinKind::Discard | WinKind::RobKong).then_some(self.from);
        let winning_tile = match self.kind {
            WinKind::EightFlowers => None,
            _ => self.concealed.last().copied(),
        };
        let declared = if choice.options.ready_declaration() {
            self.declared
        } else {
            [false; 4]
        };
        let claims = if choice.options.binding.is_some() {
            self.claims
        } else {
            [[0; 4]; 4]
        };
        Ok(Settlement {
            wildcard: self.wildcard.filter(|_| choice.options.wildcard),
            options: choice.options,
            stake: choice.stake,
            dealer: self.dealer,
            kaibao: self.kaibao,
            huangfan: self.huangfan,
            declared,
            claims,
            kind: self.kind,
            from,
            winners: vec![WinnerHand {
                seat: self.winner,
                concealed: self.concealed.clone(),
                winning_tile,
                melds: self.melds.clone(),
                flowers: self.flowers.clone(),
                replacement_draw: self.replacement,
            }],
        })
    }

    /// Scores the hand when it is complete.
    pub fn outcome(&self) -> Outcome {
        let s = match self.settlement() {
            Ok(s) => s,
            Err(e) => return Outcome::Options(e),
        };
        let complete = self.tile_count() == HAND_TILES
            || (self.kind == WinKind::EightFlowers && !self.flowers.is_empty());
        if !complete {
            return Outcome::Incomplete(self.tile_count());
        }
        match scoring::settle(&s) {
            Ok(r) => Outcome::Scored(Box::new(r)),
            Err(e) => Outcome::Refused(e),
        }
    }

    /// Handles a message; true when the player leaves the scorer.
    pub fn update(&mut self, message: Message) -> bool {
        self.refused = None;
        match message {
            Message::Options(m) => {
                self.editor.update(m);
                let o = self.options().clone();
                if !kinds(&o).contains(&self.kind) {
                    self.kind = WinKind::SelfDraw;
                }
                if !o.wildcard {
                    self.wildcard = None;
                    if self.mode == Mode::Wildcard {
                        self.mode = Mode::Hand;
                    }
                }
                // Dragons held as flowers under one preset are tiles under another.
                self.flowers.retain(|&f| o.is_flower(f));
            }
            Message::ToggleOptions => self.show_options = !self.show_options,
            Message::Winner(s) => {
                self.winner = s & 3;
                if self.from == self.winner {
                    self.from = (self.winner + 1) % 4;
                }
            }
            Message::Dealer(s) => self.dealer = s & 3,
            Message::Kind(k) => {
                if kinds(self.options()).contains(&k) {
                    self.kind = k;
                }
            }
            Message::From(s) => {
                if s != self.winner {
                    self.from = s & 3;
                }
            }
            Message::Kaibao => self.kaibao = !self.kaibao,
            Message::Huangfan(up) => {
                self.huangfan = if up {
                    (self.huangfan + 1).min(9)
                } else {
                    self.huangfan.saturating_sub(1)
                };
            }
            Message::Declared(s) => {
                if let Some(d) = self.declared.get_mut(s as usize) {
                    *d = !*d;
                }
            }
            Message::Claims(a, b, up) => {
                if a != b
                    && let Some(c) = self
                        .claims
                        .get_mut(a as usize)
                        .and_then(|r| r.get_mut(b as usize))
                {
                    *c = if up {
                        (*c + 1).min(8)
                    } else {
                        c.saturating_sub(1)
                    };
                }
            }
            Message::Replacement => self.replacement = !self.replacement,
            Message::Mode(m) => self.mode = m,
            Message::Face(t) => self.refused = self.add(t).err(),
            Message::RemoveTile(i) => {
                if i < self.concealed.len() {
                    self.concealed.remove(i);
                }
            }
            Message::RemoveMeld(i) => {
                if i < self.melds.len() {
                    self.melds.remove(i);
                }
            }
            Message::RemoveFlower(i) => {
                if i < self.flowers.len() {
                    self.flowers.remove(i);
                }
            }
            Message::Clear => {
                self.concealed.clear();
                self.melds.clear();
                self.flowers.clear();
                self.replacement = false;
            }
            Message::Back => return true,
        }
        false
    }

    /// The screen: the situation and the tile faces on the left, the hand and its settlement
    /// on the right.
    pub fn view(&self, lang: Lang, faces: Faces) -> Element<'_, Message> {
        let header = row![
            bold(lang.t(T::ScorerTitle), 22.0, ACCENT),
            label(lang.t(preset_name(self.editor.preset())), 15.0, MUTED),
            iced::widget::Space::new().width(Length::Fill),
            action(lang.t(T::Back), 16.0, Some(Message::Back)).style(button::secondary),
        ]
        .spacing(12)
        .align_y(Alignment::Center);
        let left = scrollable(self.situation(lang, faces).padding([0, 14])).height(Length::Fill);
        let right =
            scrollable(self.hand_and_result(lang, faces).padding([0, 14])).height(Length::Fill);
        column![
            container(header).padding([6, 16]),
            row![
                container(left).width(Length::FillPortion(5)),
                container(right).width(Length::FillPortion(6)),
            ]
            .spacing(8)
            .height(Length::Fill),
        ]
        .into()
    }

    /// Why the hand is not scored, in the player's language.
    pub fn score_error(&self, lang: Lang, e: &scoring::ScoreError) -> String {
        match e {
            scoring::ScoreError::NotWinning {
                seat, ruleset, why, ..
            } => {
                let why = lang.t(match why {
                    mahjong_rules::Unwinnable::NotDeclared => T::UnwinNotDeclared,
                    mahjong_rules::Unwinnable::NotAWinningType => T::UnwinNotAType,
                    mahjong_rules::Unwinnable::NotStandard => T::UnwinNotStandard,
                    mahjong_rules::Unwinnable::NotStandardWithWildcards => T::UnwinNotStandardWild,
                    mahjong_rules::Unwinnable::NoWinningType => T::UnwinNoType,
                });
                lang.f(
                    T::NotWinningSeat,
                    &[
                        &self.seat_label(lang, *seat),
                        &lang.t(super::preset_name(*ruleset)),
                        &why,
                    ],
                )
            }
            // The scorer's clicks refuse what cannot be; what is left is said in English by
            // the rules crate, so 中文 says it in general terms.
            scoring::ScoreError::Invalid(detail) => match lang {
                Lang::En => format!("{}: {detail}", lang.t(T::ScoreInvalid)),
                Lang::Zh => lang.t(T::ScoreInvalid).to_string(),
            },
        }
    }

    /// A seat of the scored hand, named by its wind (`东家`, `East`): the scorer has no
    /// players, and a seat number means nothing at a real table.
    pub fn seat_label(&self, lang: Lang, s: Seat) -> String {
        let w = lang.t(wind(s, self.dealer));
        match lang {
            Lang::Zh => format!("{w}家"),
            Lang::En => w.to_string(),
        }
    }

    fn seats<'a>(
        &self,
        lang: Lang,
        id: &str,
        on: impl Fn(Seat) -> bool,
        enabled: impl Fn(Seat) -> bool,
        msg: impl Fn(Seat) -> Message,
    ) -> Element<'a, Message> {
        (0..4u8)
            .fold(row![].spacing(4), |r, s| {
                r.push(choice(
                    self.seat_label(lang, s),
                    enabled(s).then(|| msg(s)),
                    on(s),
                    format!("scorer-{id}-{s}"),
                ))
            })
            .wrap()
            .into()
    }

    fn situation(&self, lang: Lang, faces: Faces) -> iced::widget::Column<'_, Message> {
        let o = self.options();
        let mut col = column![label(lang.t(T::ScorerIntro), 13.0, MUTED)].spacing(8);
        // The preset, always; the rest of the editor on demand.
        let presets = Ruleset::ALL.iter().fold(row![].spacing(6), |r, &p| {
            r.push(choice(
                lang.t(preset_name(p)).to_string(),
                Some(Message::Options(options::Message::Preset(p))),
                p == self.editor.preset(),
                format!("scorer-preset-{p}"),
            ))
        });
        let changed = self.editor.changed().len();
        let toggle = choice(
            if changed == 0 {
                lang.f(T::ScorerOptions, &[&self.editor.stake()])
            } else {
                lang.f(T::ScorerOptionsChanged, &[&self.editor.stake(), &changed])
            },
            Some(Message::ToggleOptions),
            self.show_options,
            "scorer-options".to_string(),
        );
        col = col.push(
            row![presets, toggle]
                .spacing(10)
                .align_y(Alignment::Center)
                .wrap(),
        );
        if self.show_options {
            col = col.push(
                container(self.editor.view(lang).map(Message::Options))
                    .padding(8)
                    .style(panel),
            );
        }
        // What a click adds, and the faces.
        col = col.push(caption(lang.t(T::ModeLabel)));
        col = col.push(
            Mode::ALL
                .into_iter()
                .filter(|&m| m != Mode::Wildcard || o.wildcard)
                .fold(row![].spacing(4), |r, m| {
                    r.push(choice(
                        lang.t(m.key()).to_string(),
                        Some(Message::Mode(m)),
                        m == self.mode,
                        format!("scorer-mode-{}", m.name()),
                    ))
                })
                .wrap(),
        );
        let w = 34.0;
        let face = |t: Tile| -> Element<'_, Message> {
            let wild = self.wildcard == Some(t);
            mouse_area(container(TileView::face(t, faces, wild).view(w)).id(face_id(t)))
                .on_press(Message::Face(t))
                .interaction(iced::mouse::Interaction::Pointer)
                .into()
        };
        let mut grid = column![].spacing(3);
        for group in [0..9, 9..18, 18..27, 27..34, 34..42] {
            let r = group
                .filter_map(Tile::from_index)
                .fold(row![].spacing(2), |r, t| r.push(face(t)));
            grid = grid.push(r);
        }
        col = col.push(grid);
        if let Some(r) = self.refused {
            col = col.push(bold(r.say(lang, faces), 15.0, WARN));
        }
        col = col
            .push(caption(lang.t(T::Winner)))
            .push(self.seats(
                lang,
                "winner",
                |s| s == self.winner,
                |_| true,
                Message::Winner,
            ))
            .push(caption(lang.t(T::Dealer)))
            .push(self.seats(
                lang,
                "dealer",
                |s| s == self.dealer,
                |_| true,
                Message::Dealer,
            ))
            .push(caption(lang.t(T::HowWon)));
        col = col.push(
            kinds(o)
                .into_iter()
                .fold(row![].spacing(4), |r, k| {
                    r.push(choice(
                        lang.t(crate::i18n::win_kind(k)).to_string(),
                        Some(Message::Kind(k)),
                        k == self.kind,
                        format!("scorer-kind-{}", kind_name(k)),
                    ))
                })
                .wrap(),
        );
        if matches!(self.kind, WinKind::Discard | WinKind::RobKong) {
            col = col.push(caption(lang.t(T::FromLabel))).push(self.seats(
                lang,
                "from",
                |s| s == self.from,
                |s| s != self.winner,
                Message::From,
            ));
        }
        if o.ready_declaration() {
            col = col.push(caption(lang.t(T::DeclaredLabel))).push(self.seats(
                lang,
                "declared",
                |s| self.declared[s as usize],
                |_| true,
                Message::Declared,
            ));
        }
        let mut flags = row![
            choice(
                lang.t(T::KaibaoLabel).to_string(),
                Some(Message::Kaibao),
                self.kaibao,
                "scorer-kaibao".into()
            ),
            choice(
                lang.t(T::ReplacementLabel).to_string(),
                Some(Message::Replacement),
                self.replacement,
                "scorer-replacement".into()
            ),
        ]
        .spacing(6)
        .align_y(Alignment::Center);
        flags = flags
            .push(label(
                lang.f(T::HuangfanLabel, &[&self.huangfan]),
                14.0,
                ON_FELT,
            ))
            .push(choice(
                "−".into(),
                (self.huangfan > 0).then_some(Message::Huangfan(false)),
                false,
                "scorer-huangfan-minus".into(),
            ))
            .push(choice(
                "+".into(),
                (self.huangfan < 9).then_some(Message::Huangfan(true)),
                false,
                "scorer-huangfan-plus".into(),
            ));
        col = col.push(flags.wrap());
        if o.binding.is_some() {
            // claims[a][b]: a row per claiming seat, a column per discarding seat.
            col = col.push(caption(lang.t(T::ClaimsLabel)));
            let mut head = row![
                container(label(lang.t(T::ClaimsCorner), 12.0, MUTED))
                    .width(Length::FillPortion(6))
            ]
            .spacing(4);
            for b in 0..4u8 {
                head = head.push(
                    container(label(self.seat_label(lang, b), 12.0, MUTED))
                        .width(Length::FillPortion(5))
                        .align_x(Alignment::Center),
                );
            }
            col = col.push(head);
            for a in 0..4u8 {
                let mut r = row![
                    container(label(self.seat_label(lang, a), 13.0, ON_FELT))
                        .width(Length::FillPortion(6))
                ]
                .spacing(4)
                .align_y(Alignment::Center);
                for b in 0..4u8 {
                    let n = self.claims[a as usize][b as usize];
                    let cell: Element<'_, Message> = if a == b {
                        label("", 13.0, MUTED)
                    } else {
                        row![
                            tight(
                                "−",
                                (n > 0).then_some(Message::Claims(a, b, false)),
                                format!("scorer-claims-{a}-{b}-minus"),
                            ),
                            container(bold(
                                n.to_string(),
                                14.0,
                                if n > 0 { ACCENT } else { MUTED }
                            ))
                            .width(18)
                            .align_x(Alignment::Center),
                            tight(
                                "+",
                                Some(Message::Claims(a, b, true)),
                                format!("scorer-claims-{a}-{b}-plus"),
                            ),
                        ]
                        .spacing(2)
                        .align_y(Alignment::Center)
                        .into()
                    };
                    r = r.push(
                        container(cell)
                            .width(Length::FillPortion(5))
                            .align_x(Alignment::Center),
                    );
                }
                col = col.push(r);
            }
        }
        col
    }

    fn hand_and_result(&self, lang: Lang, faces: Faces) -> iced::widget::Column<'_, Message> {
        let w = 32.0;
        let wild = self.wildcard;
        let tile =
            |t: Tile, mark: Mark| TileView::face(t, faces, wild == Some(t)).mark(mark).view(w);
        let mut col = column![].spacing(8);
        col = col.push(
            row![
                bold(
                    lang.f(T::TilesSoFar, &[&self.tile_count(), &HAND_TILES]),
                    16.0,
                    ACCENT
                ),
                iced::widget::Space::new().width(Length::Fill),
                choice(
                    lang.t(T::ClearHand).to_string(),
                    Some(Message::Clear),
                    false,
                    "scorer-clear".into()
                ),
            ]
            .align_y(Alignment::Center),
        );
        col = col.push(caption(lang.t(T::HandTilesLabel)));
        let last = self.concealed.len().saturating_sub(1);
        let hand = self
            .concealed
            .iter()
            .enumerate()
            .fold(row![].spacing(2), |r, (i, &t)| {
                let mark = if i == last && self.kind != WinKind::EightFlowers {
                    Mark::Glow
                } else {
                    Mark::None
                };
                r.push(
                    mouse_area(container(tile(t, mark)).id(format!("scorer-hand-{i}")))
                        .on_press(Message::RemoveTile(i)),
                )
            });
        col = col.push(hand.wrap());
        if !self.melds.is_empty() {
            col = col.push(caption(lang.t(T::Melds)));
            let melds =
                self.melds
                    .iter()
                    .enumerate()
                    .fold(row![].spacing(10), |r, (i, m)| {
                        let tiles = m.tiles().into_iter().enumerate().fold(
                            row![].spacing(1),
                            |g, (k, t)| {
                                let back = m.kind == MeldType::ConcealedKong && (k == 0 || k == 3);
                                g.push(if back {
                                    TileView::back().view(w)
                                } else {
                                    tile(t, Mark::None)
                                })
                            },
                        );
                        r.push(
                            mouse_area(container(tiles).id(format!("scorer-meld-{i}")))
                                .on_press(Message::RemoveMeld(i)),
                        )
                    });
            col = col.push(melds.wrap());
        }
        if !self.flowers.is_empty() {
            col = col.push(caption(lang.t(T::Flowers)));
            let flowers = self
                .flowers
                .iter()
                .enumerate()
                .fold(row![].spacing(2), |r, (i, &t)| {
                    r.push(
                        mouse_area(container(tile(t, Mark::None)).id(format!("scorer-flower-{i}")))
                            .on_press(Message::RemoveFlower(i)),
                    )
                });
            col = col.push(flowers.wrap());
        }
        if let Some(t) = self.wildcard.filter(|_| self.options().wildcard) {
            col = col.push(
                row![caption(lang.t(T::Wildcard)), tile(t, Mark::None)]
                    .spacing(8)
                    .align_y(Alignment::Center),
            );
        }
        let result: Element<'_, Message> = match self.outcome() {
            Outcome::Incomplete(n) => {
                label(lang.f(T::ScorerIncomplete, &[&n, &HAND_TILES]), 14.0, MUTED)
            }
            Outcome::Options(e) => options::refusal(lang, &e),
            Outcome::Refused(e) => column![
                bold(lang.t(T::NotScored), 15.0, WARN),
                label(self.score_error(lang, &e), 14.0, WARN),
            ]
            .spacing(2)
            .into(),
            Outcome::Scored(r) => {
                let (result, explanation) = &*r;
                let names = [0u8, 1, 2, 3].map(|s| self.seat_label(lang, s));
                let mut pay = column![bold(lang.t(T::PaymentsLabel), 16.0, ACCENT)].spacing(2);
                for (s, p) in result.payments.iter().enumerate() {
                    let who = &names[s];
                    let line = if p.0 < 0 {
                        lang.f(T::Pays, &[who, &Money(-p.0)])
                    } else if p.0 > 0 {
                        lang.f(T::Receives, &[who, p])
                    } else {
                        lang.f(T::PaysNothing, &[who])
                    };
                    pay = pay.push(
                        row![label(line, 15.0, ON_FELT), label(signed(*p), 14.0, MUTED)]
                            .spacing(10),
                    );
                }
                column![pay, explanation_lines(lang, faces, names, explanation)]
                    .spacing(10)
                    .into()
            }
        };
        col.push(
            container(result)
                .padding(10)
                .width(Length::Fill)
                .style(panel),
        )
    }
}

/// The id of a face in the scorer's palette (`scorer-face-5m`).
pub fn face_id(t: Tile) -> String {
    format!("scorer-face-{t}")
}

fn caption<'a>(s: &'a str) -> Element<'a, Message> {
    label(s, 13.0, MUTED)
}

/// A small button in a container with `id`, highlighted when `on`.
fn choice<'a>(s: String, on_press: Option<Message>, on: bool, id: String) -> Element<'a, Message> {
    container(
        button(text(s).size(14))
            .padding([3, 10])
            .style(if on {
                button::primary
            } else {
                button::secondary
            })
            .on_press_maybe(on_press),
    )
    .id(id)
    .into()
}

/// A small −/+ button in a container with `id`.
fn tight<'a>(s: &'a str, on_press: Option<Message>, id: String) -> Element<'a, Message> {
    container(
        button(text(s).size(13))
            .padding([1, 6])
            .style(button::secondary)
            .on_press_maybe(on_press),
    )
    .id(id)
    .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiles(s: &str) -> Vec<Tile> {
        mahjong_rules::tile::parse_tiles(s).unwrap_or_default()
    }

    #[test]
    fn a_fifth_copy_a_second_flower_a_bad_chow_and_a_fifteenth_tile_are_refused() {
        let mut s = State::new();
        for t in tiles("1111m") {
            s.update(Message::Face(t));
        }
        assert_eq!(s.refused, None);
        s.update(Message::Face(tiles("1m")[0]));
        assert_eq!(s.refused, Some(Refusal::TooManyCopies(tiles("1m")[0])));
        s.update(Message::Mode(Mode::Chow));
        s.update(Message::Face(tiles("1m")[0]));
        assert_eq!(s.refused, Some(Refusal::TooManyCopies(tiles("1m")[0])));
        s.update(Message::Face(tiles("8p")[0]));
        assert_eq!(s.refused, Some(Refusal::BadChow(tiles("8p")[0])));
        s.update(Message::Face(tiles("1z")[0]));
        assert_eq!(s.refused, Some(Refusal::BadChow(tiles("1z")[0])));
        s.update(Message::Mode(Mode::Flower));
        s.update(Message::Face(tiles("3f")[0]));
        s.update(Message::Face(tiles("3f")[0]));
        assert_eq!(s.refused, Some(Refusal::TooManyCopies(tiles("3f")[0])));
        s.update(Message::Face(tiles("5z")[0]));
        assert_eq!(s.refused, Some(Refusal::NotAFlower(tiles("5z")[0])));
        s.update(Message::Mode(Mode::Hand));
        s.update(Message::Face(tiles("3f")[0]));
        assert_eq!(s.refused, Some(Refusal::FlowerInHand(tiles("3f")[0])));
        for t in tiles("2345678p999s") {
            s.update(Message::Face(t));
        }
        assert_eq!(s.tile_count(), 14);
        s.update(Message::Face(tiles("1p")[0]));
        assert_eq!(s.refused, Some(Refusal::Full));
        assert_eq!(s.tile_count(), 14);
        // 1111m 2345678p 999s wins nothing under 敲麻: the rules crate says why.
        assert!(matches!(s.outcome(), Outcome::Refused(_)));
    }
}
