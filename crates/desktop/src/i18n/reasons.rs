//! The computer players' reasons ([`mahjong_bot::Reason`], a typed value) said in the player's
//! language: every phrase is a catalogue key, tiles are named in the player's faces and
//! language ([`tile_text`]), seats by the names the table shows, hands by their names in the
//! language ([`Lang::pattern`]). Nothing is parsed: the bot hands over facts, the app words
//! them.

use crate::i18n::Text;
use mahjong_bot::shape::Target;
use mahjong_bot::{ClaimKind, Defence, Guessed, Only, Plan, PlayOnBy, Progress, Reason, Threat};
use mahjong_rules::{Seat, Tile};

use super::{Lang, T};
use crate::tiles::{Faces, tile_text};

/// How a reason names tiles and seats.
pub struct Words<'a> {
    /// The language.
    pub lang: Lang,
    /// The player's tile faces.
    pub faces: Faces,
    /// A seat's name as the table shows it.
    pub seat: &'a dyn Fn(Seat) -> String,
}

impl Words<'_> {
    fn tile(&self, t: Tile) -> String {
        tile_text(t, self.faces, self.lang)
    }

    /// Tiles in a list of the language (`3 dots, 6 dots`; `三筒、六筒`).
    pub fn tiles(&self, ts: impl IntoIterator<Item = Tile>) -> String {
        let sep = match self.lang {
            Lang::Zh => "、",
            Lang::En => ", ",
        };
        ts.into_iter()
            .map(|t| self.tile(t))
            .collect::<Vec<_>>()
            .join(sep)
    }

    /// A suit's name.
    pub fn suit(&self, s: u8) -> &'static str {
        self.lang.t(match s {
            0 => T::SuitChars,
            1 => T::SuitDots,
            _ => T::SuitBamboo,
        })
    }

    /// A target hand's name.
    pub fn target(&self, t: Target) -> String {
        let l = self.lang;
        match t {
            Target::Qing(s) => l.f(T::TgInSuit, &[&l.pattern("qingyise"), &self.suit(s)]),
            Target::Hun(s) => l.f(T::TgInSuit, &[&l.pattern("hunyise"), &self.suit(s)]),
            Target::FlushPungs(s) => l.f(T::TgFlushPungs, &[&self.suit(s)]),
            Target::Pungs => l.pattern("pengpenghu"),
            Target::Honors => l.pattern("fengyise"),
            Target::Standard => l.t(T::TgStandard).to_string(),
        }
    }

    /// How far from ready.
    pub fn progress(&self, p: &Progress) -> String {
        let l = self.lang;
        match p {
            Progress::CannotWin => l.t(T::RsCannotWin).to_string(),
            Progress::Ready(w) if w.is_empty() => l.t(T::RsReady).to_string(),
            Progress::Ready(w) => l.f(
                T::RsReadyOn,
                &[&self.tiles(w.iter().map(|w| w.tile)), &p.live()],
            ),
            Progress::Away(1) => l.t(T::RsAwayOne).to_string(),
            Progress::Away(d) => l.f(T::RsAway, &[d]),
        }
    }

    /// The plan: the hand aimed at, and how far.
    pub fn plan(&self, p: &Plan) -> String {
        match p.target {
            Some(t) => self
                .lang
                .f(T::RsPlan, &[&self.target(t), &self.progress(&p.progress)]),
            None => self.progress(&p.progress),
        }
    }

    /// A seat that may win on a discard, and why.
    pub fn threat(&self, t: &Threat) -> String {
        let l = self.lang;
        let who = (self.seat)(t.seat);
        let base = l.f(
            if t.declared {
                T::ThDeclared
            } else {
                T::ThClose
            },
            &[&who],
        );
        match t.hand {
            Some(Guessed::Flush(s)) => l.f(T::ThFlush, &[&base, &self.suit(s)]),
            Some(Guessed::Pungs) => l.f(T::ThPungs, &[&base]),
            None => base,
        }
    }

    fn defence(&self, d: &Defence, chosen: Tile) -> String {
        let l = self.lang;
        match d {
            Defence::Binding { avoided } => l.f(T::RsBinding, &[&self.tile(*avoided)]),
            Defence::Safe { avoided, threat } => l.f(
                T::RsSafe,
                &[
                    &self.tile(*avoided),
                    &self.threat(threat),
                    &self.tile(chosen),
                ],
            ),
            Defence::Dangerous {
                avoided,
                threat: Some(t),
            } => l.f(T::RsDangerous, &[&self.tile(*avoided), &self.threat(t)]),
            Defence::Dangerous { avoided, .. } => l.f(T::RsDangerousBare, &[&self.tile(*avoided)]),
        }
    }

    /// A discard's reason; `named`: it ends by naming the discard ("；打 九条", "敲，打 九条：").
    fn discard(
        &self,
        tile: Tile,
        ready: bool,
        plan: &Plan,
        defence: Option<&Defence>,
        named: bool,
    ) -> String {
        let l = self.lang;
        let mut s = match (ready, named) {
            (true, true) => l.f(
                T::RsDeclare,
                &[&self.tile(tile), &self.progress(&plan.progress)],
            ),
            (true, false) => self.progress(&plan.progress),
            (false, true) => l.f(T::RsDiscard, &[&self.plan(plan), &self.tile(tile)]),
            (false, false) => self.plan(plan),
        };
        if let Some(d) = defence {
            s.push_str(&self.defence(d, tile));
        }
        s
    }

    /// A win passed up (`baida`, [`Reason::PlayOn`]); `named`: with the tile it discards or
    /// kongs (the hint names it in its action already).
    fn play_on(&self, tile: Tile, by: PlayOnBy, now: u32, then: u32, named: bool) -> String {
        let key = match (by, named) {
            (PlayOnBy::RunWild, true) => T::RsPlayOnRun,
            (PlayOnBy::RunWild, false) => T::RsPlayOnRunHint,
            (PlayOnBy::Bigger, true) => T::RsPlayOnBigger,
            (PlayOnBy::Bigger, false) => T::RsPlayOnBiggerHint,
            (PlayOnBy::Kong { .. }, true) => T::RsPlayOnKong,
            (PlayOnBy::Kong { .. }, false) => T::RsPlayOnKongHint,
        };
        self.lang.f(key, &[&now, &self.tile(tile), &then])
    }

    /// The reason, in a sentence.
    pub fn reason(&self, r: &Reason) -> String {
        self.say(r, true)
    }

    /// The reason; `named`: a discard's or a win passed up's with the tile it plays (the
    /// hint names that tile in its action already, [`hint`]).
    fn say(&self, r: &Reason, named: bool) -> String {
        let l = self.lang;
        match r {
            Reason::NothingToDecide => l.t(T::RsNothing).to_string(),
            Reason::Random => l.t(T::RsRandom).to_string(),
            Reason::Win => l.t(T::RsWin).to_string(),
            Reason::Only(o) => l
                .t(match o {
                    Only::Flower => T::RsFlower,
                    Only::NoFlower => T::RsNoFlower,
                    Only::NothingToClaim => T::RsNothingToClaim,
                    Only::ReadyDrawn => T::RsReadyDrawn,
                    Only::Discard => T::RsOnlyDiscard,
                    Only::Action => T::RsOnlyAction,
                })
                .to_string(),
            Reason::Fallback => l.t(T::RsFallback).to_string(),
            Reason::AnyKong => l.t(T::RsAnyKong).to_string(),
            Reason::Discard {
                tile,
                ready,
                plan,
                defence,
            } => self.discard(*tile, *ready, plan, defence.as_ref(), named),
            Reason::Kong { tile, added, plan } => l.f(
                if *added {
                    T::RsAddedKong
                } else {
                    T::RsConcealedKong
                },
                &[&self.tile(*tile), &self.progress(&plan.progress)],
            ),
            Reason::Claim {
                kind,
                tile,
                from,
                plan,
            } => l.f(
                match kind {
                    ClaimKind::Chow => T::RsClaimChow,
                    ClaimKind::Pung => T::RsClaimPung,
                    ClaimKind::Kong => T::RsClaimKong,
                },
                &[&self.tile(*tile), &(self.seat)(*from), &self.plan(plan)],
            ),
            Reason::Pass {
                tile,
                plan: Some(p),
            } => l.f(T::RsPass, &[&self.tile(*tile), &self.plan(p)]),
            Reason::Pass { tile, plan: None } => l.f(T::RsPassUseless, &[&self.tile(*tile)]),
            Reason::PlayOn {
                tile,
                by,
                now,
                then,
            } => self.play_on(*tile, *by, *now, *then, named),
            Reason::SwapKeep { progress } => l.f(T::RsSwapKeep, &[&self.progress(progress)]),
            Reason::SwapPutBack { progress, tiles } => l.f(
                T::RsSwapPutBack,
                &[&self.progress(progress), &self.tiles(tiles.iter().copied())],
            ),
        }
    }
}

/// The reason `r` as the hint says it after the action it advises ("打出 九条 —— …"): a
/// discard's reason then leaves out the discard it ends with ("；打 九条", "敲，打 九条："),
/// and a win passed up the tile it plays, which the action has just named.
pub fn hint(lang: Lang, faces: Faces, seat: &dyn Fn(Seat) -> String, r: &Reason) -> String {
    Words { lang, faces, seat }.say(r, false)
}

/// The reason `r` in `lang`, tiles in `faces`, seats named by `seat`.
pub fn reason(lang: Lang, faces: Faces, seat: &dyn Fn(Seat) -> String, r: &Reason) -> String {
    Words { lang, faces, seat }.reason(r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mahjong_bot::Wait;

    fn t(s: &str) -> Tile {
        s.parse().expect("a tile")
    }

    fn name(s: Seat) -> String {
        ["Mei", "阿强", "小红", "老王"][s as usize].to_string()
    }

    fn safe_discard() -> Reason {
        Reason::Discard {
            tile: t("1z"),
            ready: false,
            plan: Plan {
                target: Some(Target::Standard),
                progress: Progress::Away(1),
            },
            defence: Some(Defence::Safe {
                avoided: t("5p"),
                threat: Threat {
                    seat: 2,
                    declared: true,
                    hand: Some(Guessed::Flush(1)),
                },
            }),
        }
    }

    #[test]
    fn each_fact_is_said_in_both_languages_with_the_players_faces() {
        assert_eq!(
            reason(Lang::Zh, Faces::Chinese, &name, &safe_discard()),
            "做平胡（四副一将）；差 1 张听牌；打 东风——打安全牌：五筒 可能放炮（小红已敲，多半在做筒子的一色）；东风 更安全"
        );
        assert_eq!(
            reason(Lang::En, Faces::Chinese, &name, &safe_discard()),
            "going for a standard hand; 1 tile from ready; discard East Wind — playing safe: \
             5 Dot may win for 小红 declared ready, likely a flush in dots; East Wind is safer"
        );
        let ready = Reason::Discard {
            tile: t("9s"),
            ready: true,
            plan: Plan {
                target: Some(Target::Qing(1)),
                progress: Progress::Ready(vec![
                    Wait {
                        tile: t("3p"),
                        live: 2,
                    },
                    Wait {
                        tile: t("6p"),
                        live: 3,
                    },
                ]),
            },
            defence: None,
        };
        assert_eq!(
            reason(Lang::Zh, Faces::Notation, &name, &ready),
            "敲，打 9s：听 3p、6p（还剩 5 张）"
        );
        // The hint names its action first: a discard's reason does not name the tile again.
        assert_eq!(
            hint(Lang::Zh, Faces::Chinese, &name, &safe_discard()),
            "做平胡（四副一将）；差 1 张听牌——打安全牌：五筒 可能放炮（小红已敲，多半在做筒子的一色）；东风 更安全"
        );
        assert_eq!(
            hint(Lang::En, Faces::Notation, &name, &ready),
            "ready on 3p, 6p (5 live)"
        );
        // `baida`: master passes up a win to play on.
        let run = Reason::PlayOn {
            tile: t("3m"),
            by: PlayOnBy::RunWild,
            now: 6,
            then: 13,
        };
        assert_eq!(
            reason(Lang::Zh, Faces::Chinese, &name, &run),
            "先不胡（现在胡每家付 6 分）：打 三万，留一张百搭单吊，摸什么都胡（跑百搭，翻倍），平均每家 13 分"
        );
        assert_eq!(
            hint(Lang::Zh, Faces::Chinese, &name, &run),
            "先不胡（现在胡每家付 6 分），留一张百搭单吊，摸什么都胡（跑百搭，翻倍），平均每家 13 分"
        );
        assert_eq!(
            reason(Lang::En, Faces::Notation, &name, &run),
            "pass up this win (6 points a seat): discard 3m and keep a wildcard alone, so any \
             tile wins (跑百搭, double) — about 13 points a seat"
        );
        let kong = Reason::PlayOn {
            tile: t("1z"),
            by: PlayOnBy::Kong { added: true },
            now: 1,
            then: 9,
        };
        assert_eq!(
            reason(Lang::En, Faces::Chinese, &name, &kong),
            "kong East Wind before winning: any tile wins, so the replacement draw wins, and \
             doubles as a win on a kong's draw (杠开) — about 9 points a seat instead of 1"
        );
        assert_eq!(
            hint(Lang::Zh, Faces::Chinese, &name, &kong),
            "先杠再胡：摸什么都胡，补上来的牌就是杠开，平均每家 9 分（现在胡每家 1 分）"
        );
        for (tile, by, now, then) in [
            (t("3m"), PlayOnBy::RunWild, 6, 13),
            (t("1z"), PlayOnBy::Kong { added: false }, 1, 9),
            (t("5s"), PlayOnBy::Bigger, 1, 4),
        ] {
            for named in [true, false] {
                let words = |lang| Words {
                    lang,
                    faces: Faces::Chinese,
                    seat: &name,
                };
                let en = words(Lang::En).play_on(tile, by, now, then, named);
                assert_eq!(crate::i18n::foreign(Lang::En, &en), None, "{en}");
                assert!(!en.contains("1 points"), "{en}");
                let zh = words(Lang::Zh).play_on(tile, by, now, then, named);
                assert_eq!(crate::i18n::foreign(Lang::Zh, &zh), None, "{zh}");
            }
        }
        let claim = Reason::Claim {
            kind: ClaimKind::Pung,
            tile: t("7z"),
            from: 3,
            plan: Plan {
                target: Some(Target::Hun(0)),
                progress: Progress::Away(2),
            },
        };
        assert_eq!(
            reason(Lang::Zh, Faces::Chinese, &name, &claim),
            "碰老王的 红中：做万子混一色；差 2 张听牌"
        );
        assert_eq!(
            reason(Lang::En, Faces::Notation, &name, &claim),
            "pung 7z from 老王: going for half flush (混一色) in characters; 2 tiles from ready"
        );
    }

    /// Every reason the bots give in practice hands is said without the other script (names
    /// aside) in both languages.
    #[test]
    fn every_reason_of_bot_hands_reads_in_its_own_language() {
        use mahjong_bot::{Bot, Level};
        use mahjong_rules::{Dice, HandState, Money, Move, Options, Ruleset, Setup, Wall};
        let plain = |s: Seat| ["Mei", "Ann", "Bo", "Cy"][s as usize].to_string();
        let zh_names = |s: Seat| ["小梅", "阿强", "小红", "老王"][s as usize].to_string();
        let mut seen = 0;
        for (i, ruleset) in [Ruleset::Qiaoma, Ruleset::Classic, Ruleset::Baida]
            .into_iter()
            .enumerate()
        {
            for seed in 0..3u8 {
                let setup = Setup {
                    options: Options::preset(ruleset),
                    stake: Money::coins(1),
                    dealer: seed % 4,
                    dice: Dice::new(2, 5).expect("dice"),
                    huangfan: 0,
                };
                let mut st = HandState::new(setup, &Wall::shuffled([seed + 10 * i as u8; 32]))
                    .expect("deal");
                let mut bots: Vec<Bot> =
                    [Level::Master, Level::Basic, Level::Strong, Level::Random]
                        .iter()
                        .zip(0u64..)
                        .map(|(&l, s)| Bot::new(l, s))
                        .collect();
                while !st.is_over() {
                    let seat = st.to_act()[0];
                    let d = bots[seat as usize].decide(&st.view(seat));
                    for faces in [Faces::Chinese, Faces::Notation] {
                        let en = reason(Lang::En, faces, &plain, &d.reason);
                        assert_eq!(crate::i18n::foreign(Lang::En, &en), None, "{en}");
                        let zh = reason(Lang::Zh, faces, &zh_names, &d.reason);
                        if faces == Faces::Chinese {
                            assert_eq!(crate::i18n::foreign(Lang::Zh, &zh), None, "{zh}");
                        }
                    }
                    seen += 1;
                    st.apply(&Move::new(seat, d.action)).expect("legal");
                }
            }
        }
        assert!(seen > 200, "only {seen} reasons");
    }
}
