//! The option editor: a table's preset, stake, length, timers and every option of the rules
//! crate that means something under the chosen preset, each with a one-line explanation, its
//! default shown, changes from the preset highlighted, the rules crate's own check
//! (`Options::validate`) shown plainly when a combination is refused, and a reset.
//!
//! The editor drives the rules crate's catalogue ([`catalogue::OPTIONS`]): an option is the
//! catalogue's entry ([`Opt`]), its value the catalogue's [`OptionValue`], and its kind, range,
//! presets and whether it is a timer are read from there. Only the words (an option's title,
//! its explanation, a choice's label) are the app's, by the option's name.
//!
//! 换牌 (`swap_five`) is not offered: the table screen cannot yet choose the five tiles to put
//! back.
//!
//! It is a self-contained component, used by the practice set-up and meant for the lobby's
//! "create table" too. To embed it:
//!
//! ```no_run
//! use shanghai_mahjong::i18n::Lang;
//! use shanghai_mahjong::screens::options::{self, Editor, Scope};
//!
//! // In the screen's state:
//! let mut editor = Editor::new(mahjong_rules::Ruleset::Qiaoma, Scope::Lan);
//! // The screen's Message gets a variant `Options(options::Message)`; its update forwards:
//! editor.update(options::Message::Reset);
//! // Its view places `editor.view(Lang::En).map(ScreenMessage::Options)` (a column without
//! // its own scrolling: put it in a `scrollable`), and the start button is enabled only when
//! // `editor.choice()` is `Ok`; the error is already shown by the editor's view.
//! let choice: Result<options::Choice, mahjong_rules::OptionsError> = editor.choice();
//! if let Ok(c) = choice {
//!     // Propose `c.options`, `c.stake`, `c.length` (the timers are in `c.options`).
//!     let _ = (c.options, c.stake, c.length);
//! }
//! ```
//!
//! [`Scope::Practice`] hides what only a networked table uses (the start countdown and the
//! silence before a seat counts as gone); [`Scope::Lan`] shows them, and counts the length in
//! hands only (a LAN table's advert carries a number of hands, so four rounds are not
//! offered there). [`summary`] shows a
//! set-up read-only (every option, or only the differences from the preset, each explained),
//! for the rules screen and for players asked to accept someone else's set-up.

use crate::i18n::Text;
use iced::widget::{button, column, container, row, text};
use iced::{Alignment, Background, Border, Color, Element, Length, Theme};
use mahjong_rules::catalogue::{self, OptionKind, OptionSpec, OptionValue};
use mahjong_rules::{Money, Options, OptionsError, Ruleset, SessionLength};

use super::{ACCENT, MUTED, ON_FELT, WARN, bold, label, preset_name};
use crate::i18n::{Lang, T};

/// Where the editor is used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// A practice table (no network): the network's timers are hidden.
    Practice,
    /// A table on the LAN: every timer is shown.
    Lan,
}

/// One option of the rules crate's catalogue ([`catalogue::OPTIONS`]) as the editor offers
/// it: every option but 换牌 (`swap_five`). What values it takes, its range, the presets it
/// means something under and whether it is a timer are the catalogue's; only its words are
/// the app's ([`Opt::text`], by the option's name).
#[derive(Clone, Copy, Debug)]
pub struct Opt(&'static OptionSpec);

impl PartialEq for Opt {
    fn eq(&self, other: &Opt) -> bool {
        self.0.name == other.0.name
    }
}

impl Eq for Opt {}

impl std::hash::Hash for Opt {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.0.name.hash(h);
    }
}

/// The catalogue's options the editor does not offer: 换牌, whose five tiles the table screen
/// cannot yet choose.
const NOT_OFFERED: [&str; 1] = ["swap_five"];

/// The label of a choice, by its name in the catalogue.
fn choice_label(name: &str) -> T {
    match name {
        "restricted" => T::HandsRestricted,
        "restricted_dadiaoche" => T::HandsDadiaoche,
        "standard" => T::HandsStandard,
        "double" => T::MenqingDouble,
        "flower" => T::MenqingFlower,
        "qiaoma" => T::BindingQiaoma,
        "chi_san_kou" => T::BindingChiSanKou,
        _ => T::NoneValue,
    }
}

impl Opt {
    /// Every option the editor offers, in the catalogue's order (the timers, then the rules
    /// of play, scoring and the table's money).
    pub fn all() -> impl Iterator<Item = Opt> {
        catalogue::OPTIONS
            .iter()
            .filter(|s| !NOT_OFFERED.contains(&s.name))
            .map(Opt)
    }

    /// The offered option of this name (as written in settlement files).
    pub fn named(name: &str) -> Option<Opt> {
        Opt::all().find(|o| o.name() == name)
    }

    /// The option's name as written in settlement files and in the rules document.
    pub fn name(self) -> &'static str {
        self.0.name
    }

    /// The catalogue's description of the option.
    pub fn spec(self) -> &'static OptionSpec {
        self.0
    }

    /// The catalogue keys of the option's title and its one-line explanation (`None` for an
    /// option the app has no words for: a test keeps that from happening).
    fn words(self) -> Option<(T, T)> {
        Some(match self.name() {
            "must_declare_ready" => (T::OptMustDeclareReady, T::OptMustDeclareReadyHelp),
            "hands" => (T::OptHands, T::OptHandsHelp),
            "wildcard" => (T::OptWildcard, T::OptWildcardHelp),
            "dragons_are_flowers" => (T::OptDragonsAreFlowers, T::OptDragonsAreFlowersHelp),
            "win_on_discard" => (T::OptWinOnDiscard, T::OptWinOnDiscardHelp),
            "base_points" => (T::OptBasePoints, T::OptBasePointsHelp),
            "lezi_points" => (T::OptLeziPoints, T::OptLeziPointsHelp),
            "table_limit_lezi" => (T::OptTableLimit, T::OptTableLimitHelp),
            "binding" => (T::OptBinding, T::OptBindingHelp),
            "kaibao" => (T::OptKaibao, T::OptKaibaoHelp),
            "dice_huangfan" => (T::OptDiceHuangfan, T::OptDiceHuangfanHelp),
            "menqing" => (T::OptMenqing, T::OptMenqingHelp),
            "eight_flowers" => (T::OptEightFlowers, T::OptEightFlowersHelp),
            "four_wildcards" => (T::OptFourWildcards, T::OptFourWildcardsHelp),
            "leaver_penalty" => (T::OptLeaverPenalty, T::OptLeaverPenaltyHelp),
            "discard_seconds" => (T::OptDiscardSeconds, T::OptDiscardSecondsHelp),
            "claim_seconds" => (T::OptClaimSeconds, T::OptClaimSecondsHelp),
            "start_seconds" => (T::OptStartSeconds, T::OptStartSecondsHelp),
            "timeouts_before_leaver" => (T::OptTimeouts, T::OptTimeoutsHelp),
            "disconnect_seconds" => (T::OptDisconnectSeconds, T::OptDisconnectSecondsHelp),
            "chip_limit" => (T::OptChipLimit, T::OptChipLimitHelp),
            _ => return None,
        })
    }

    /// The catalogue keys of the option's title and its one-line explanation.
    pub fn text(self) -> (T, T) {
        self.words().unwrap_or((T::NoneValue, T::NoneValue))
    }

    /// Whether the option is shown in `scope` under `preset`: where it means something
    /// (no ready declaration and no lezi in 百搭, no wildcard outside it), and the start
    /// countdown and the silence limit only for a LAN table.
    pub fn shown(self, preset: Ruleset, scope: Scope) -> bool {
        self.0.applies(preset) && (!self.0.network || scope == Scope::Lan)
    }

    /// A timer (shown with the stake and the length).
    pub fn is_timer(self) -> bool {
        self.0.timer
    }

    /// The option's value in `o`.
    pub fn get(self, o: &Options) -> OptionValue {
        self.0.get(o)
    }

    /// Sets the option in `o` (a value of the wrong kind or out of range is ignored; a
    /// combination the rules refuse is kept, and said, until the player changes it).
    pub fn set(self, o: &mut Options, v: &OptionValue) {
        if let Ok(changed) = self.0.put(o, v) {
            *o = changed;
        }
    }

    /// The value one step up (`up`) or down from `v`, within the option's range; for an
    /// option that allows none, one step below the least is none and one step up from none
    /// is the least.
    fn step(self, v: &OptionValue, up: bool) -> OptionValue {
        let OptionKind::Number { min, max, none } = self.0.kind else {
            return v.clone();
        };
        let OptionValue::Number(x) = *v else {
            return v.clone();
        };
        let stride = |x: u64| match x {
            0..10 => 1,
            10..60 => 5,
            60..300 => 10,
            300..1000 => 50,
            _ => 100,
        };
        OptionValue::Number(match (x, up) {
            (None, true) => Some(min),
            (None, false) => None,
            (Some(x), true) => Some((x + stride(x)).min(max)),
            (Some(x), false) if x <= min => {
                if none {
                    None
                } else {
                    Some(min)
                }
            }
            (Some(x), false) => Some(x.saturating_sub(stride(x - 1)).max(min)),
        })
    }
}

/// The id of an option's control: `opt-<name>-<what>` where what is `on`, `off`, `minus`,
/// `plus`, or the index of a choice (tests and scripts click them).
pub fn control_id(o: Opt, what: &str) -> String {
    format!("opt-{}-{what}", o.name())
}

/// What the editor settles on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choice {
    /// Every option, the timers included.
    pub options: Options,
    /// Coins per point.
    pub stake: Money,
    /// How long the table plays.
    pub length: SessionLength,
}

/// The stakes offered (coins per point).
pub const STAKES: [i64; 8] = [1, 2, 5, 10, 20, 50, 100, 200];

/// The editor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Editor {
    options: Options,
    stake: usize,
    length: SessionLength,
    scope: Scope,
}

/// What the editor is told.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Message {
    /// A preset was picked: every option goes to its defaults (stake and length stay).
    Preset(Ruleset),
    /// An option takes a value.
    Set(Opt, OptionValue),
    /// An option one step up (true) or down.
    Step(Opt, bool),
    /// Stake one step up (true) or down.
    Stake(bool),
    /// Play this many hands.
    Hands(u32),
    /// Play four rounds (四圈).
    FourRounds,
    /// Every option, the stake and the length back to the preset's defaults.
    Reset,
}

impl Editor {
    /// The preset's defaults, one coin a point, eight hands.
    pub fn new(preset: Ruleset, scope: Scope) -> Editor {
        Editor {
            options: Options::preset(preset),
            stake: 0,
            length: SessionLength::Hands(8),
            scope,
        }
    }

    /// The chosen preset.
    pub fn preset(&self) -> Ruleset {
        self.options.ruleset
    }

    /// The options as they stand (checked or not).
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// The stake.
    pub fn stake(&self) -> Money {
        Money::coins(STAKES[self.stake.min(STAKES.len() - 1)])
    }

    /// The options that differ from the preset's defaults.
    pub fn changed(&self) -> Vec<Opt> {
        let base = Options::preset(self.preset());
        Opt::all()
            .filter(|o| o.get(&self.options) != o.get(&base))
            .collect()
    }

    /// The chosen set-up, or the rules crate's reason why it cannot be played.
    pub fn choice(&self) -> Result<Choice, OptionsError> {
        self.options.validate()?;
        Ok(Choice {
            options: self.options.clone(),
            stake: self.stake(),
            length: self.length,
        })
    }

    /// Handles a message.
    pub fn update(&mut self, message: Message) {
        match message {
            Message::Preset(r) => self.options = Options::preset(r),
            Message::Set(o, v) => o.set(&mut self.options, &v),
            Message::Step(o, up) => {
                let v = o.step(&o.get(&self.options), up);
                o.set(&mut self.options, &v);
            }
            Message::Stake(up) => {
                self.stake = if up {
                    (self.stake + 1).min(STAKES.len() - 1)
                } else {
                    self.stake.saturating_sub(1)
                };
            }
            Message::Hands(n) => self.length = SessionLength::Hands(n.clamp(1, 64)),
            // A LAN table's advert carries a number of hands: four rounds are not offered.
            Message::FourRounds if self.scope == Scope::Lan => {}
            Message::FourRounds => self.length = SessionLength::Rounds(4),
            Message::Reset => *self = Editor::new(self.preset(), self.scope),
        }
    }

    /// The editor: presets, stake, length, timers, then the options of the preset by group,
    /// and the reason when the combination is refused.
    pub fn view(&self, lang: Lang) -> Element<'_, Message> {
        let presets = Ruleset::ALL.iter().fold(row![].spacing(10), |r, &p| {
            let b = button(text(lang.t(preset_name(p))).size(16))
                .padding([8, 16])
                .on_press(Message::Preset(p));
            r.push(if p == self.preset() {
                b.style(button::primary)
            } else {
                b.style(button::secondary)
            })
        });
        let changed = self.changed();
        let summary = if changed.is_empty() {
            label(lang.t(T::NoChanges), 14.0, MUTED)
        } else {
            bold(lang.f(T::ChangedCount, &[&changed.len()]), 14.0, ACCENT)
        };
        let reset = button(text(lang.t(T::ResetDefaults)).size(14))
            .padding([4, 12])
            .style(button::secondary)
            .on_press_maybe(
                (*self != Editor::new(self.preset(), self.scope)).then_some(Message::Reset),
            );
        let mut col = column![
            label(lang.t(T::Preset), 14.0, MUTED),
            presets,
            row![summary, reset].spacing(14).align_y(Alignment::Center),
        ]
        .spacing(10);
        // A refusal is shown under the option that causes it (at the top only when that
        // option has no row here).
        let refused = self.options.validate().err();
        let preset = self.preset();
        let culprit = refused
            .as_ref()
            .and_then(refused_option)
            .filter(|o| o.shown(preset, self.scope));
        if let (Some(e), None) = (&refused, culprit) {
            col = col.push(refusal(lang, e));
        }
        col = col.push(bold(lang.t(T::SecTable), 17.0, ACCENT));
        col = col.push(self.stake_row(lang));
        col = col.push(self.length_row(lang));
        let mut rows: Vec<Opt> = Opt::all()
            .filter(|o| o.is_timer() && o.shown(preset, self.scope))
            .collect();
        let rules_from = rows.len();
        rows.extend(Opt::all().filter(|o| !o.is_timer() && o.shown(preset, self.scope)));
        for (i, o) in rows.into_iter().enumerate() {
            if i == rules_from {
                col = col.push(bold(lang.t(T::SecRules), 17.0, ACCENT));
            }
            col = col.push(self.option_row(lang, o));
            if let (Some(e), Some(c)) = (&refused, culprit)
                && c == o
            {
                col = col.push(refusal(lang, e));
            }
        }
        col.into()
    }

    fn stake_row(&self, lang: Lang) -> Element<'_, Message> {
        let value = lang.f(T::StakeValue, &[&self.stake()]);
        let control = row![
            small(
                "−",
                (self.stake > 0).then_some(Message::Stake(false)),
                false,
                "opt-stake-minus"
            ),
            container(bold(value, 15.0, ON_FELT))
                .width(120)
                .align_x(Alignment::Center),
            small(
                "+",
                (self.stake + 1 < STAKES.len()).then_some(Message::Stake(true)),
                false,
                "opt-stake-plus"
            ),
        ]
        .spacing(6)
        .align_y(Alignment::Center);
        let default = lang.f(T::StakeValue, &[&Money::coins(STAKES[0])]);
        entry(
            lang,
            lang.t(T::OptStake),
            control.into(),
            lang.t(T::OptStakeHelp),
            &default,
            self.stake != 0,
        )
    }

    fn length_row(&self, lang: Lang) -> Element<'_, Message> {
        let rounds = matches!(self.length, SessionLength::Rounds(_));
        let hands = match self.length {
            SessionLength::Hands(n) => n,
            _ => 8,
        };
        let mut control = row![].spacing(6).align_y(Alignment::Center);
        if !rounds {
            control = control
                .push(small(
                    "−",
                    (hands > 1).then_some(Message::Hands(hands.saturating_sub(1))),
                    false,
                    "opt-length-minus",
                ))
                .push(
                    container(bold(lang.f(T::LengthHands, &[&hands]), 15.0, ON_FELT))
                        .width(120)
                        .align_x(Alignment::Center),
                )
                .push(small(
                    "+",
                    (hands < 64).then_some(Message::Hands(hands + 1)),
                    false,
                    "opt-length-plus",
                ));
        } else {
            control = control.push(small(
                lang.t(T::LengthByHands),
                Some(Message::Hands(8)),
                false,
                "opt-length-hands",
            ));
        }
        // A LAN table counts hands (its advert says how many): no four rounds there.
        let help = if self.scope == Scope::Lan {
            T::OptLengthLanHelp
        } else {
            control = control.push(small(
                lang.t(T::LengthFourRounds),
                (!rounds).then_some(Message::FourRounds),
                rounds,
                "opt-length-rounds",
            ));
            T::OptLengthHelp
        };
        entry(
            lang,
            lang.t(T::OptLength),
            control.into(),
            lang.t(help),
            &lang.f(T::LengthHands, &[&8]),
            self.length != SessionLength::Hands(8),
        )
    }

    fn option_row(&self, lang: Lang, o: Opt) -> Element<'_, Message> {
        let base = Options::preset(self.preset());
        let value = o.get(&self.options);
        let default = o.get(&base);
        let control: Element<'_, Message> = match (o.spec().kind, &value) {
            (OptionKind::Bool, &OptionValue::Bool(b)) => row![
                small(
                    lang.t(T::On),
                    Some(Message::Set(o, OptionValue::Bool(true))),
                    b,
                    &control_id(o, "on")
                ),
                small(
                    lang.t(T::Off),
                    Some(Message::Set(o, OptionValue::Bool(false))),
                    !b,
                    &control_id(o, "off")
                ),
            ]
            .spacing(4)
            .into(),
            (OptionKind::Choice(names), OptionValue::Choice(chosen)) => names
                .iter()
                .enumerate()
                .fold(row![].spacing(4), |r, (i, &k)| {
                    r.push(small(
                        lang.t(choice_label(k)),
                        Some(Message::Set(o, OptionValue::Choice(k.to_string()))),
                        k == chosen,
                        &control_id(o, &i.to_string()),
                    ))
                })
                .into(),
            (OptionKind::Number { min, none, .. }, &OptionValue::Number(x)) => {
                let down = match x {
                    None => false,
                    Some(x) => x > min || none,
                };
                row![
                    small(
                        "−",
                        down.then_some(Message::Step(o, false)),
                        false,
                        &control_id(o, "minus")
                    ),
                    container(bold(show(lang, o, &value), 15.0, ON_FELT))
                        .width(120)
                        .align_x(Alignment::Center),
                    small(
                        "+",
                        Some(Message::Step(o, true)),
                        false,
                        &control_id(o, "plus")
                    ),
                ]
                .spacing(6)
                .align_y(Alignment::Center)
                .into()
            }
            _ => label(show(lang, o, &value), 15.0, ON_FELT),
        };
        let (title, help) = o.text();
        entry(
            lang,
            lang.t(title),
            control,
            lang.t(help),
            &show(lang, o, &default),
            value != default,
        )
    }
}

/// Every option of `options`' preset shown in `scope`, read-only: its value and its one-line
/// explanation (no file name: the rules screen and a host's set-up speak to players); a value that differs from the preset's default in gold with
/// the default beside it. With `only_changed`, just the differences (e.g. for players asked
/// to accept a host's set-up: an empty list says "the preset's defaults").
pub fn summary<'a, M: 'a>(
    lang: Lang,
    options: &Options,
    scope: Scope,
    only_changed: bool,
) -> Element<'a, M> {
    let base = Options::preset(options.ruleset);
    let mut col = column![].spacing(6);
    let mut any = false;
    for o in Opt::all().filter(|o| o.shown(options.ruleset, scope)) {
        let (title, help) = o.text();
        let (v, d) = (o.get(options), o.get(&base));
        let differs = v != d;
        let (v, d) = (&v, &d);
        if only_changed && !differs {
            continue;
        }
        any = true;
        let mut line = row![
            container(bold(lang.t(title), 14.0, ON_FELT)).width(220),
            bold(
                show(lang, o, v),
                14.0,
                if differs { ACCENT } else { ON_FELT }
            ),
        ]
        .spacing(10)
        .align_y(Alignment::Center);
        if differs {
            line = line.push(label(
                lang.f(T::ChangedFrom, &[&show(lang, o, d)]),
                12.0,
                ACCENT,
            ));
        }
        col = col.push(column![line, label(lang.t(help), 13.0, MUTED)].spacing(1));
    }
    if !any {
        col = col.push(label(lang.t(T::NoChanges), 14.0, MUTED));
    }
    col.into()
}

/// An option's value in words.
pub fn show(lang: Lang, o: Opt, v: &OptionValue) -> String {
    match v {
        OptionValue::Bool(b) => lang.t(if *b { T::On } else { T::Off }).to_string(),
        OptionValue::Choice(c) => lang.t(choice_label(c)).to_string(),
        OptionValue::Number(None) => lang.t(T::NoneValue).to_string(),
        OptionValue::Number(Some(x)) if o.name().ends_with("_seconds") => lang.f(T::Seconds, &[x]),
        OptionValue::Number(Some(x)) => x.to_string(),
    }
}

/// The option a refusal names, if the editor has it.
fn refused_option(e: &OptionsError) -> Option<Opt> {
    match e {
        OptionsError::BadValue { name, .. } => Opt::named(name),
        _ => None,
    }
}

/// The rules crate's refusal, said plainly: the option, what is wrong in the current
/// language where the editor knows the case, and (in English) the rules crate's own words.
pub fn refusal<'a, M: 'a>(lang: Lang, e: &OptionsError) -> Element<'a, M> {
    let (name, why) = match e {
        OptionsError::BadValue { name, why } => (name.as_str(), why.as_str()),
        _ => ("", ""),
    };
    let opt = Opt::named(name);
    let said = match (name, why) {
        ("table_limit_lezi", _) => Some(T::RefuseLimitNeedsLezi),
        ("four_wildcards", _) => Some(T::RefuseFourWildcards),
        ("lezi_points", w) if w.contains("need") => Some(T::RefuseNeedsLezi),
        ("discard_seconds", _) => Some(T::RefuseTimers),
        _ => None,
    };
    let mut col = column![bold(lang.t(T::Refused), 15.0, WARN)].spacing(2);
    if let Some(o) = opt {
        let what = match (said, lang) {
            (Some(k), _) => lang.t(k).to_string(),
            (None, Lang::En) => why.to_string(),
            (None, Lang::Zh) => lang.t(T::RefuseOther).to_string(),
        };
        let title = lang.t(o.text().0).to_string();
        col = col.push(label(lang.f(T::RefuseLine, &[&title, &what]), 14.0, WARN));
    }
    // The rules crate speaks English, in the options file's ids: its words are shown to an
    // English player only, and only for a case the editor does not word itself.
    if lang == Lang::En && said.is_none() {
        col = col.push(label(lang.f(T::RulesSay, &[e]), 13.0, MUTED));
    }
    container(col)
        .padding(8)
        .width(Length::Fill)
        .style(refused)
        .into()
}

fn refused(theme: &Theme) -> container::Style {
    container::Style {
        border: Border {
            radius: 6.0.into(),
            width: 2.0,
            color: WARN,
        },
        ..super::panel(theme)
    }
}

fn changed_panel(theme: &Theme) -> container::Style {
    container::Style {
        background: Some(Background::Color(Color::from_rgba(0.98, 0.78, 0.25, 0.12))),
        border: Border {
            radius: 6.0.into(),
            width: 2.0,
            color: ACCENT,
        },
        ..super::panel(theme)
    }
}

/// A small button, highlighted when `selected`, inside a container with `id`.
fn small<'a>(
    s: impl text::IntoFragment<'a>,
    on_press: Option<Message>,
    selected: bool,
    id: &str,
) -> Element<'a, Message> {
    let b = button(text(s).size(14))
        .padding([3, 10])
        .style(if selected {
            button::primary
        } else {
            button::secondary
        })
        .on_press_maybe(on_press);
    container(b).id(id.to_string()).into()
}

/// One option: its title, the control, the default, the explanation; a highlighted panel and
/// "changed" when it differs from the preset. No option's id in the options file is shown, in
/// either language: a player reads the title (docs/texts.md).
fn entry<'a>(
    lang: Lang,
    title: &'a str,
    control: Element<'a, Message>,
    help: &'a str,
    default: &str,
    changed: bool,
) -> Element<'a, Message> {
    let mut head = row![
        container(bold(title, 15.0, ON_FELT)).width(200),
        control,
        iced::widget::Space::new().width(Length::Fill),
    ]
    .spacing(10)
    .align_y(Alignment::Center);
    head = if changed {
        head.push(bold(lang.f(T::ChangedFrom, &[&default]), 13.0, ACCENT))
    } else {
        head.push(label(lang.f(T::DefaultIs, &[&default]), 13.0, MUTED))
    };
    let body = column![head, label(help, 13.0, MUTED)].spacing(3);
    let c = container(body).padding([6, 10]).width(Length::Fill);
    if changed {
        c.style(changed_panel).into()
    } else {
        c.style(super::panel).into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Another value of `o` than `v`: the other side of a switch, the next choice, a step.
    fn next(o: Opt, v: &OptionValue, up: bool) -> OptionValue {
        match (v, o.spec().kind) {
            (OptionValue::Bool(b), _) => OptionValue::Bool(!b),
            (OptionValue::Choice(c), OptionKind::Choice(names)) => {
                let i = names.iter().position(|n| n == c).unwrap_or(0);
                OptionValue::Choice(names[(i + 1) % names.len()].to_string())
            }
            _ => o.step(v, up),
        }
    }

    #[test]
    fn every_option_reads_back_what_it_is_set_to() {
        for r in Ruleset::ALL {
            let base = Options::preset(r);
            for o in Opt::all() {
                let mut x = base.clone();
                let v = o.get(&x);
                o.set(&mut x, &v);
                assert_eq!(x, base, "{o:?} round trip under {r}");
                // One step changes it, and the editor sees the change.
                let stepped = next(o, &v, true);
                o.set(&mut x, &stepped);
                assert_eq!(o.get(&x), stepped, "{o:?} under {r}");
                assert_ne!(x, base, "{o:?} under {r}");
            }
        }
    }

    #[test]
    fn the_names_are_the_rules_crates_field_names() {
        let json = serde_json::to_value(Options::default()).expect("json");
        for o in Opt::all() {
            assert!(json.get(o.name()).is_some(), "{} is not a field", o.name());
            // Every option has its own words in the app.
            assert!(
                o.words().is_some(),
                "{} has no title or explanation",
                o.name()
            );
        }
        // Every field but 换牌 is editable: the table screen has no way yet to choose the five
        // tiles to put back, so a practice player could only wait for its timer to pass.
        let fields = json.as_object().map_or(0, |m| m.len());
        assert_eq!(
            fields,
            Opt::all().count() + 2,
            "ruleset and swap_five aside"
        );
        // The editor reads each option's values, presets and kind from the rules crate's
        // catalogue: every option it shows is there, and every option there but 换牌 is shown.
        for spec in catalogue::OPTIONS.iter().filter(|s| s.name != "swap_five") {
            let o = Opt::named(spec.name).unwrap_or_else(|| panic!("{} not edited", spec.name));
            assert_eq!(o.spec(), spec);
            for r in Ruleset::ALL {
                let shown = o.shown(r, Scope::Lan);
                assert_eq!(shown, spec.applies(r), "{} under {r}", spec.name);
            }
        }
    }

    #[test]
    fn steps_stay_in_range_and_reach_none_where_allowed() {
        let step = |name: &str, v: Option<u64>, up: bool| {
            let o = Opt::named(name).expect(name);
            o.step(&OptionValue::Number(v), up)
        };
        let n = OptionValue::Number;
        assert_eq!(step("lezi_points", Some(1), false), n(None));
        assert_eq!(step("lezi_points", None, true), n(Some(1)));
        assert_eq!(step("base_points", Some(1), false), n(Some(1)));
        assert_eq!(step("discard_seconds", Some(20), true), n(Some(25)));
        assert_eq!(step("discard_seconds", Some(10), false), n(Some(9)));
    }

    #[test]
    fn the_read_only_summary_shows_the_differences_explained() {
        let sees = |o: &Options, only: bool, text: &str| {
            let el: Element<'_, ()> = summary(Lang::En, o, Scope::Lan, only);
            let mut ui = iced_test::Simulator::with_size(
                crate::iced_settings(),
                iced::Size::new(1200.0, 1600.0),
                el,
            );
            ui.find(text).is_ok()
        };
        let mut o = Options::preset(Ruleset::Classic);
        assert!(sees(&o, true, Lang::En.t(T::NoChanges)));
        o.kaibao = true;
        assert!(sees(&o, true, Lang::En.t(T::OptKaibao)));
        assert!(sees(&o, true, Lang::En.t(T::OptKaibaoHelp)));
        assert!(sees(&o, true, "changed · default off"));
        assert!(!sees(&o, true, Lang::En.t(T::OptDiscardSeconds)));
        // The full list has every option shown at a networked table.
        assert!(sees(&o, false, Lang::En.t(T::OptDiscardSeconds)));
        assert!(sees(&o, false, Lang::En.t(T::OptDisconnectSeconds)));
    }

    /// Each option the editor offers, changed alone by one step from each preset, plays a
    /// whole practice hand to a signed end (or is refused by the rules crate, never a panic).
    /// Slow in debug: `cargo test --release -p shanghai-mahjong --lib every_single_option --
    /// --ignored`.
    #[test]
    #[ignore = "plays about fifty practice hands"]
    fn every_single_option_change_plays_a_hand() {
        use crate::engine::{Command, Engine, PracticeConfig, Update};
        let mut played = 0;
        for r in Ruleset::ALL {
            for o in Opt::all().filter(|o| o.shown(r, Scope::Practice)) {
                let mut e = Editor::new(r, Scope::Practice);
                let v = o.get(e.options());
                e.update(Message::Set(o, next(o, &v, false)));
                let Ok(choice) = e.choice() else { continue };
                let config = PracticeConfig {
                    think_ms: (0, 0),
                    length: SessionLength::Hands(1),
                    options: Some(choice.options),
                    ..PracticeConfig::new(r, 17)
                };
                let (mut engine, _) = Engine::new(&config).expect("engine");
                let mut updates = engine.settle(u64::MAX / 2);
                let mut hint = None;
                let mut ended = false;
                for _ in 0..2000 {
                    for u in updates.drain(..) {
                        match u {
                            Update::Hint { action, .. } => hint = Some(action),
                            Update::HandEnded(end) => {
                                assert!(end.signed_by_all, "{o:?} under {r}");
                                ended = true;
                            }
                            Update::Failed(why) => panic!("{o:?} under {r}: {why}"),
                            _ => {}
                        }
                    }
                    if ended {
                        break;
                    }
                    updates = match (engine.player_must_act(), hint.take()) {
                        (true, Some(a)) => engine.command(Command::Act(a)),
                        _ => engine.settle(u64::MAX / 2),
                    };
                }
                assert!(ended, "{o:?} under {r}: the hand did not end");
                played += 1;
            }
        }
        assert!(played > 40, "{played}");
    }

    #[test]
    fn a_lan_table_counts_hands_only() {
        let mut e = Editor::new(Ruleset::Qiaoma, Scope::Lan);
        e.update(Message::FourRounds);
        e.update(Message::Hands(3));
        assert_eq!(e.choice().map(|c| c.length), Ok(SessionLength::Hands(3)));
        e.update(Message::FourRounds);
        assert_eq!(e.choice().map(|c| c.length), Ok(SessionLength::Hands(3)));
        let mut ui = iced_test::Simulator::with_size(
            crate::iced_settings(),
            iced::Size::new(1200.0, 3000.0),
            e.view(Lang::En),
        );
        assert!(ui.find(Lang::En.t(T::OptLengthLanHelp)).is_ok());
        assert!(ui.find(Lang::En.t(T::LengthFourRounds)).is_err());
        let mut p = Editor::new(Ruleset::Qiaoma, Scope::Practice);
        p.update(Message::FourRounds);
        assert_eq!(p.choice().map(|c| c.length), Ok(SessionLength::Rounds(4)));
    }

    #[test]
    fn a_refused_combination_has_no_choice_and_reset_restores_it() {
        let mut e = Editor::new(Ruleset::Qiaoma, Scope::Practice);
        let lezi = Opt::named("lezi_points").expect("lezi");
        e.update(Message::Set(lezi, OptionValue::Number(None)));
        assert!(e.choice().is_err());
        assert_eq!(e.changed(), vec![lezi]);
        e.update(Message::Reset);
        assert!(e.choice().is_ok());
        assert!(e.changed().is_empty());
    }
}
