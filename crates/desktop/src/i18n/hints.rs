//! The strong bot's hint reasons in 中文.
//!
//! `mahjong_bot::Decision::reason` is an English sentence assembled from a small, fixed set of
//! phrases (the bot crate's turn, claim and defence reasons, the target hands, the distance to
//! ready, the threats). [`reason`] reads that sentence back into its phrases and says each in
//! Chinese, with tiles named in the player's chosen faces and seats by where they sit. A
//! sentence it does not know is shown in English as it came (never blank, never wrong); the
//! tests play practice hands with the strong bot and require every reason it gave to be
//! understood, so a change of wording in the bot crate is caught here.

use mahjong_rules::{Seat, Tile, parse_tiles};

use super::Lang;
use crate::tiles::{Faces, tile_name};

/// The reason `en` in `lang`, for the player at seat `me` (English is returned as it is).
pub fn reason(lang: Lang, faces: Faces, me: Seat, en: &str) -> String {
    match lang {
        Lang::En => en.to_string(),
        Lang::Zh => zh(faces, me, en).unwrap_or_else(|| en.to_string()),
    }
}

/// The Chinese of `en`, or `None` when a phrase is not known.
pub fn zh(faces: Faces, me: Seat, en: &str) -> Option<String> {
    let z = Zh { faces, me };
    let (main, defence) = match en.split_once(" — ") {
        Some((m, d)) => (m, Some(d)),
        None => (en, None),
    };
    let mut out = z.main(main)?;
    if let Some(d) = defence {
        out.push_str("——");
        out.push_str(&z.defence(d)?);
    }
    Some(out)
}

/// Splits `s` by `pattern`, whose `{}` each capture a non-empty piece: the literal after a
/// capture is looked for from the left, the last capture takes the rest.
fn caps<'a>(s: &'a str, pattern: &str) -> Option<Vec<&'a str>> {
    let mut parts = pattern.split("{}");
    let first = parts.next()?;
    let mut rest = s.strip_prefix(first)?;
    let mut out = Vec::new();
    for lit in parts {
        if lit.is_empty() {
            if rest.is_empty() {
                return None;
            }
            out.push(rest);
            rest = "";
        } else {
            let at = rest.find(lit)?;
            if at == 0 {
                return None;
            }
            out.push(&rest[..at]);
            rest = &rest[at + lit.len()..];
        }
    }
    rest.is_empty().then_some(out)
}

struct Zh {
    faces: Faces,
    me: Seat,
}

impl Zh {
    fn tile(&self, s: &str) -> Option<String> {
        let t: Tile = s.trim().parse().ok()?;
        Some(tile_name(t, self.faces))
    }

    fn tiles(&self, s: &str) -> Option<String> {
        let ts = parse_tiles(s.trim()).ok()?;
        if ts.is_empty() {
            return None;
        }
        Some(
            ts.into_iter()
                .map(|t| tile_name(t, self.faces))
                .collect::<Vec<_>>()
                .join("、"),
        )
    }

    fn seat(&self, s: &str) -> Option<String> {
        let seat: Seat = s.trim().parse().ok()?;
        Some(
            match (seat + 4 - self.me) % 4 {
                0 => "你",
                1 => "下家",
                2 => "对家",
                _ => "上家",
            }
            .to_string(),
        )
    }

    fn suit(s: &str) -> Option<&'static str> {
        Some(match s {
            "characters (万)" => "万子",
            "dots (筒)" => "筒子",
            "bamboo (条)" => "条子",
            _ => return None,
        })
    }

    fn target(s: &str) -> Option<String> {
        let fixed = match s {
            "碰碰胡 (pengpenghu, all pungs)" => Some("碰碰胡"),
            "风一色 (fengyise, all honors)" => Some("风一色"),
            "a standard hand" => Some("平胡（四副一将）"),
            _ => None,
        };
        if let Some(f) = fixed {
            return Some(f.to_string());
        }
        for (pattern, zh) in [
            ("清一色 (qingyise) in {}", "清一色"),
            ("混一色 (hunyise) in {}", "混一色"),
            ("混碰/清碰 (hunpeng/qingpeng) in {}", "混碰／清碰"),
        ] {
            if let Some(c) = caps(s, pattern) {
                return Some(format!("{}{zh}", Zh::suit(c[0])?));
            }
        }
        None
    }

    fn dist(&self, s: &str) -> Option<String> {
        match s {
            "this hand cannot win any more" => return Some("这手牌已经胡不了了".into()),
            "ready" => return Some("已听牌".into()),
            "1 tile from ready" => return Some("差 1 张听牌".into()),
            _ => {}
        }
        if let Some(c) = caps(s, "ready on {} ({} live)") {
            return Some(format!(
                "听 {}（还剩 {} 张）",
                self.tiles(c[0])?,
                num(c[1])?
            ));
        }
        let c = caps(s, "{} tiles from ready")?;
        Some(format!("差 {} 张听牌", num(c[0])?))
    }

    fn main(&self, s: &str) -> Option<String> {
        let fixed = match s {
            "nothing to decide: this seat need not act now" => Some("现在不用你决定"),
            "a random legal action" => Some("随便一个可行的动作"),
            "win: passing would bar this tile (漏胡)" => Some("胡：不胡的话这张就漏胡了"),
            "set the flower aside and draw a replacement" => Some("补花：摆出花牌，再补一张"),
            "no flower left to set aside" => Some("没有花可补了"),
            "nothing to claim" => Some("没有可吃碰的"),
            "declared ready: discard the drawn tile" => Some("已敲：打出摸到的牌"),
            "the only discard" => Some("只有这一张能打"),
            "the only legal action" => Some("只有这一个动作"),
            "no discard to weigh" => Some("没有可比较的打法"),
            "nothing better to do" => Some("没有更好的选择"),
            "a kong: more flowers and a replacement draw" => Some("杠：多得花，再补一张"),
            _ => None,
        };
        if let Some(f) = fixed {
            return Some(f.to_string());
        }
        if let Some(c) = caps(s, "going for {}; {}; discard {}") {
            return Some(format!(
                "做{}；{}；打 {}",
                Zh::target(c[0])?,
                self.dist(c[1])?,
                self.tile(c[2])?
            ));
        }
        if let Some(c) = caps(s, "declare ready (敲) discarding {}: waits on {} ({} live)") {
            return Some(format!(
                "敲，打 {}：听 {}（还剩 {} 张）",
                self.tile(c[0])?,
                self.tiles(c[1])?,
                num(c[2])?
            ));
        }
        if let Some(c) = caps(s, "declare ready (敲) discarding {}") {
            return Some(format!("敲，打 {}", self.tile(c[0])?));
        }
        if let Some(c) = caps(
            s,
            "concealed kong of {}: flowers and a replacement draw; {}",
        ) {
            return Some(format!(
                "暗杠 {}：得花，再补一张；{}",
                self.tile(c[0])?,
                self.dist(c[1])?
            ));
        }
        if let Some(c) = caps(s, "add {} to my pung: a flower and a replacement draw; {}") {
            return Some(format!(
                "加杠 {}：得一花，再补一张；{}",
                self.tile(c[0])?,
                self.dist(c[1])?
            ));
        }
        if let Some(c) = caps(s, "pass on {}: going for {}; {}") {
            return Some(format!(
                "不要 {}：做{}；{}",
                self.tile(c[0])?,
                Zh::target(c[1])?,
                self.dist(c[2])?
            ));
        }
        if let Some(c) = caps(s, "pass on {}: it does not help") {
            return Some(format!("不要 {}：对这手牌没用", self.tile(c[0])?));
        }
        if let Some(c) = caps(s, "claim {}: it brings the hand closer ({} away)") {
            return Some(format!(
                "要 {}：离胡更近（还差 {}）",
                self.tile(c[0])?,
                num(c[1])?
            ));
        }
        if let Some(c) = caps(s, "this hand cannot win any more; discard {}") {
            return Some(format!("这手牌已经胡不了了；打 {}", self.tile(c[0])?));
        }
        for (name, zh) in [("chow", "吃"), ("pung", "碰"), ("kong", "杠")] {
            if let Some(c) = caps(
                s,
                &format!("{name} {{}} from seat {{}}: going for {{}}; {{}}"),
            ) {
                return Some(format!(
                    "{zh}{}的 {}：做{}；{}",
                    self.seat(c[1])?,
                    self.tile(c[0])?,
                    Zh::target(c[2])?,
                    self.dist(c[3])?
                ));
            }
        }
        None
    }

    fn threat(&self, s: &str) -> Option<String> {
        let c = caps(s, "seat {}")?;
        let rest = c[0];
        let (seat, rest) = rest.split_once(' ')?;
        let who = self.seat(seat)?;
        let (what, hand) = match rest.split_once(", ") {
            Some((w, h)) => (w, Some(h)),
            None => (rest, None),
        };
        let what = match what {
            "declared ready" => "已敲",
            "looks close to a win" => "看起来快胡了",
            _ => return None,
        };
        let hand = match hand {
            None => String::new(),
            Some("likely all pungs") => "，多半在做碰碰胡".to_string(),
            Some(h) => format!(
                "，多半在做{}的一色",
                Zh::suit(caps(h, "likely a flush in {}")?[0])?
            ),
        };
        Some(format!("{who}{what}{hand}"))
    }

    fn defence(&self, s: &str) -> Option<String> {
        if let Some(c) = caps(
            s,
            "keeping {}: a seat could make a third claim on it and bind us (承包)",
        ) {
            return Some(format!(
                "留着 {}：别家再吃碰它就满三口，要承包",
                self.tile(c[0])?
            ));
        }
        if let Some(c) = caps(s, "playing safe: {} may win for {}; {} is safer") {
            return Some(format!(
                "打安全牌：{} 可能放炮（{}）；{} 更安全",
                self.tile(c[0])?,
                self.threat(c[1])?,
                self.tile(c[2])?
            ));
        }
        if let Some(c) = caps(s, "{} is more dangerous: {}") {
            return Some(format!(
                "{} 更危险：{}",
                self.tile(c[0])?,
                self.threat(c[1])?
            ));
        }
        let c = caps(s, "{} is more dangerous")?;
        Some(format!("{} 更危险", self.tile(c[0])?))
    }
}

fn num(s: &str) -> Option<u32> {
    s.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(s: &str) -> String {
        zh(Faces::Notation, 0, s).unwrap_or_else(|| panic!("not understood: {s}"))
    }

    #[test]
    fn each_phrase_of_the_bot_is_said_in_chinese() {
        assert_eq!(
            n("going for 清一色 (qingyise) in dots (筒); 2 tiles from ready; discard 3m"),
            "做筒子清一色；差 2 张听牌；打 3m"
        );
        assert_eq!(
            n("declare ready (敲) discarding 9s: waits on 36p (5 live)"),
            "敲，打 9s：听 3p、6p（还剩 5 张）"
        );
        assert_eq!(
            n(
                "pung 7z from seat 3: going for 碰碰胡 (pengpenghu, all pungs); ready on 1m2s (3 live)"
            ),
            "碰上家的 7z：做碰碰胡；听 1m、2s（还剩 3 张）"
        );
        assert_eq!(
            n(
                "going for a standard hand; 1 tile from ready; discard 1z — playing safe: 5p may win for seat 2 declared ready, likely a flush in dots (筒); 1z is safer"
            ),
            "做平胡（四副一将）；差 1 张听牌；打 1z——打安全牌：5p 可能放炮（对家已敲，多半在做筒子的一色）；1z 更安全"
        );
        assert_eq!(
            n(
                "going for 风一色 (fengyise, all honors); this hand cannot win any more; discard 2m — keeping 4z: a seat could make a third claim on it and bind us (承包)"
            ),
            "做风一色；这手牌已经胡不了了；打 2m——留着 4z：别家再吃碰它就满三口，要承包"
        );
        assert_eq!(
            zh(Faces::Chinese, 0, "the only discard").as_deref(),
            Some("只有这一张能打")
        );
        // Tiles in the player's faces.
        assert_eq!(
            zh(
                Faces::Chinese,
                0,
                "concealed kong of 5m: flowers and a replacement draw; ready"
            )
            .as_deref(),
            Some("暗杠 五萬：得花，再补一张；已听牌")
        );
        // Unknown wording stays English.
        assert_eq!(zh(Faces::Notation, 0, "something new"), None);
        assert_eq!(
            reason(Lang::Zh, Faces::Notation, 0, "something new"),
            "something new"
        );
        assert_eq!(
            reason(Lang::En, Faces::Notation, 0, "the only discard"),
            "the only discard"
        );
    }

    #[test]
    fn every_hint_of_practice_hands_is_understood() {
        use crate::engine::{Command, Engine, PracticeConfig, Update};
        use mahjong_rules::{Ruleset, SessionLength};
        let mut seen = 0;
        for (ruleset, seed) in [
            (Ruleset::Qiaoma, 1),
            (Ruleset::Qiaoma, 2),
            (Ruleset::Classic, 3),
            (Ruleset::Baida, 4),
        ] {
            let config = PracticeConfig {
                think_ms: (0, 0),
                length: SessionLength::Hands(1),
                ..PracticeConfig::new(ruleset, seed)
            };
            let (mut engine, _) = Engine::new(&config).expect("engine");
            let mut updates = engine.settle(u64::MAX / 2);
            let mut hint = None;
            for _ in 0..600 {
                for u in updates.drain(..) {
                    if let Update::Hint { action, reason } = u {
                        assert!(
                            zh(Faces::Notation, 0, &reason).is_some(),
                            "not understood: {reason}"
                        );
                        seen += 1;
                        hint = Some(action);
                    }
                }
                if engine.is_paused() {
                    break;
                }
                updates = match (engine.player_must_act(), hint.take()) {
                    (true, Some(a)) => engine.command(Command::Act(a)),
                    _ => engine.settle(u64::MAX / 2),
                };
            }
        }
        assert!(seen > 40, "only {seen} hints");
    }
}
