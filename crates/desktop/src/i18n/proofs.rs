//! What a seat proven at fault did, in the current language (the table crate's `Offence`;
//! the inner details that come from the deal and rules crates stay in their own words), and
//! why a file does not verify (the store's `VerifyError`, each case worded in both languages;
//! the store's free-text details are added for an English player only).

use crate::i18n::Text;
use mahjong_rules::Seat;
use mahjong_store::VerifyError;
use mahjong_table::{LogFault, Offence};

use super::{Lang, T};
use crate::tiles::{Faces, tile_text};

/// The offence in `lang`.
pub fn offence(lang: Lang, o: &Offence) -> String {
    let faces = match lang {
        Lang::Zh => Faces::Chinese,
        Lang::En => Faces::Notation,
    };
    // The rules' and the deal's own detail is English: 中文 says what kind of fault it is
    // without it (its slot is left empty), the English wording keeps it.
    let detail = |e: &dyn std::fmt::Display| match lang {
        Lang::En => e.to_string(),
        Lang::Zh => String::new(),
    };
    match o {
        Offence::Equivocation => lang.t(T::OffEquivocation).to_string(),
        Offence::Deal(e) => lang.f(T::OffDeal, &[&detail(e)]),
        Offence::Illegal(e) => lang.f(T::OffIllegal, &[&detail(e)]),
        Offence::Malformed(e) => lang.f(T::OffMalformed, &[&detail(e)]),
        Offence::FaceMismatch {
            pos,
            claimed,
            shown,
        } => lang.f(
            T::OffFace,
            &[
                &tile_text(*claimed, faces, lang),
                pos,
                &tile_text(*shown, faces, lang),
            ],
        ),
        Offence::Audit(e) => lang.f(T::OffAudit, &[&detail(e)]),
        Offence::Replay { index, error } => lang.f(T::OffReplay, &[index, &detail(error)]),
        Offence::WrongResult => lang.t(T::OffWrongResult).to_string(),
        Offence::BadProposal(e) => lang.f(T::OffBadProposal, &[&detail(e)]),
    }
}

/// A seat a verdict names: its name in the file (`shown` words a stored name), else "player
/// N" (counted from 1).
fn who(lang: Lang, names: &[String], seat: Seat, shown: &dyn Fn(&str) -> String) -> String {
    match names.get(seat as usize) {
        Some(n) if !n.is_empty() => shown(n),
        _ => lang.f(T::VeSeat, &[&(u32::from(seat) + 1)]),
    }
}

/// `said`, with the store's own (English) words after it for an English player.
fn detail(lang: Lang, said: String, why: &dyn std::fmt::Display) -> String {
    match lang {
        Lang::En => format!("{said} ({why})"),
        Lang::Zh => said,
    }
}

/// Why a file does not verify, in `lang`; seats by their names in the file (`shown` words a
/// stored name, e.g. a practice bot's).
pub fn verify_error(lang: Lang, e: &VerifyError, shown: &dyn Fn(&str) -> String) -> String {
    match e {
        VerifyError::Unreadable(why) => detail(lang, lang.t(T::VeUnreadable).to_string(), why),
        VerifyError::BadFrame { step, entry, why } => {
            detail(lang, lang.f(T::VeBadFrame, &[step, entry]), why)
        }
        VerifyError::Header(why) => detail(lang, lang.t(T::VeHeader).to_string(), why),
        VerifyError::Log { fault, names } => log_fault(lang, fault, names, shown),
        VerifyError::Result { hand, why } => detail(lang, lang.f(T::VeResult, &[hand]), why),
        VerifyError::Proven {
            seat,
            name,
            key,
            offence: o,
        } => {
            let names: Vec<String> = name.iter().cloned().collect();
            let culprit = match name {
                Some(_) => who(lang, &names, 0, shown),
                None => who(lang, &[], *seat, shown),
            };
            lang.f(T::VeProven, &[&offence(lang, o), &culprit, key])
        }
        VerifyError::Evidence(why) => detail(lang, lang.t(T::VeEvidence).to_string(), why),
        VerifyError::Name { seat, file, signed } => {
            let seat = lang.f(T::VeSeat, &[&(u32::from(*seat) + 1)]);
            let signed = mahjong_store::clean_name(signed);
            match file {
                Some(name) => lang.f(
                    T::VeName,
                    &[&seat, &mahjong_store::clean_name(name), &signed],
                ),
                None => lang.f(T::VeNameMissing, &[&seat, &signed]),
            }
        }
    }
}

/// A fault the replay of a log found, in `lang`.
fn log_fault(
    lang: Lang,
    fault: &LogFault,
    names: &[String],
    shown: &dyn Fn(&str) -> String,
) -> String {
    let who = |s: Seat| who(lang, names, s, shown);
    match fault {
        LogFault::NoSetup => lang.t(T::LfNoSetup).to_string(),
        LogFault::EmptyStep { seq } => lang.f(T::LfEmptyStep, &[seq]),
        LogFault::Gap {
            seq,
            seat,
            found,
            hand,
        } => lang.f(T::LfGap, &[seq, &who(*seat), found, hand]),
        LogFault::WrongTable { seq, seat } => lang.f(T::LfWrongTable, &[seq, &who(*seat)]),
        LogFault::Chain { seq, seat } => lang.f(T::LfChain, &[seq, &who(*seat)]),
        LogFault::Signature { seq, seat } => lang.f(T::LfSignature, &[seq, &who(*seat)]),
        LogFault::Unexpected { seq, seat } => lang.f(T::LfUnexpected, &[seq, &who(*seat)]),
        LogFault::Missing { seq, seats } => {
            let sep = match lang {
                Lang::En => ", ",
                Lang::Zh => "、",
            };
            let all: Vec<String> = seats.iter().map(|&s| who(s)).collect();
            lang.f(T::LfMissing, &[seq, &all.join(sep)])
        }
        LogFault::AfterEnd { seq } => lang.f(T::LfAfterEnd, &[seq]),
        LogFault::Fault { seq, fault } => lang.f(
            T::LfFault,
            &[seq, &who(fault.seat), &offence(lang, &fault.offence)],
        ),
        LogFault::Abort { seq, why } => detail(lang, lang.f(T::LfAbort, &[seq]), why),
        LogFault::Internal { seq, why } => detail(lang, lang.f(T::LfInternal, &[seq]), why),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_verify_error_is_worded_in_both_languages_with_the_seats_names() {
        let names = vec!["Mei".to_string(), "bot 2".to_string()];
        let faults = [
            LogFault::NoSetup,
            LogFault::EmptyStep { seq: 3 },
            LogFault::Gap {
                seq: 3,
                seat: 1,
                found: 4,
                hand: 2,
            },
            LogFault::WrongTable { seq: 3, seat: 1 },
            LogFault::Chain { seq: 3, seat: 1 },
            LogFault::Signature { seq: 3, seat: 1 },
            LogFault::Unexpected { seq: 3, seat: 1 },
            LogFault::Missing {
                seq: 3,
                seats: vec![1, 3],
            },
            LogFault::AfterEnd { seq: 3 },
            LogFault::Abort {
                seq: 3,
                why: "not three votes".into(),
            },
            LogFault::Internal {
                seq: 3,
                why: "oops".into(),
            },
        ];
        let mut errors: Vec<VerifyError> = faults
            .into_iter()
            .map(|fault| VerifyError::Log {
                fault,
                names: names.clone(),
            })
            .collect();
        errors.extend([
            VerifyError::Unreadable("key must be a string".into()),
            VerifyError::BadFrame {
                step: 2,
                entry: 1,
                why: "bad length".into(),
            },
            VerifyError::Header("the table id differs".into()),
            VerifyError::Result {
                hand: 2,
                why: "payments differ".into(),
            },
            VerifyError::Proven {
                seat: 1,
                name: Some("Lao Wang".into()),
                key: "ab12cd34".into(),
                offence: Offence::Equivocation,
            },
            VerifyError::Evidence(mahjong_table::EvidenceError::NoFault),
        ]);
        let shown = |n: &str| n.to_uppercase();
        for e in &errors {
            for lang in [Lang::Zh, Lang::En] {
                let said = verify_error(lang, e, &shown);
                let bare = said
                    .replace("MEI", "")
                    .replace("BOT 2", "")
                    .replace("LAO WANG", "")
                    .replace("ab12cd34", "");
                assert_eq!(super::super::foreign(lang, &bare), None, "{lang:?}: {said}");
                assert!(!said.contains("座位") && !said.contains("seat 1"), "{said}");
            }
        }
        // Seats by their names in the file; a seat without one is counted from 1.
        let gap = verify_error(Lang::Zh, &errors[2], &shown);
        assert_eq!(
            gap,
            "第 3 步：BOT 2 的记录属于第 2 局第 4 步：缺了一步或顺序不对"
        );
        let missing = verify_error(Lang::Zh, &errors[7], &shown);
        assert_eq!(missing, "第 3 步：缺少 BOT 2、第 4 家 的记录");
        let unreadable = verify_error(Lang::En, &errors[11], &shown);
        assert!(
            unreadable.ends_with("(key must be a string)"),
            "{unreadable}"
        );
    }

    #[test]
    fn offences_are_said_in_both_languages() {
        assert_eq!(
            offence(Lang::Zh, &Offence::Equivocation),
            "同一步签了两份不同的消息"
        );
        assert_eq!(
            offence(Lang::En, &Offence::Equivocation),
            Offence::Equivocation.to_string()
        );
        let t = |s: &str| s.parse::<mahjong_rules::Tile>().expect("tile");
        let face = Offence::FaceMismatch {
            pos: 17,
            claimed: t("5m"),
            shown: t("2p"),
        };
        assert_eq!(offence(Lang::En, &face), face.to_string());
        assert_eq!(
            offence(Lang::Zh, &face),
            "声称牌墙第 17 张是五万，亮出来却是二筒"
        );
        // The crates' English detail stays out of 中文, and in the English wording.
        let detail = "a share proof does not verify".to_string();
        let illegal = mahjong_rules::MoveError::Illegal {
            seat: 1,
            why: detail.clone(),
        };
        for o in [
            Offence::Illegal(illegal.clone()),
            Offence::Malformed(detail.clone()),
            Offence::Replay {
                index: 3,
                error: illegal,
            },
            Offence::BadProposal(detail.clone()),
        ] {
            let zh = offence(Lang::Zh, &o);
            assert_eq!(super::super::foreign(Lang::Zh, &zh), None, "{zh}");
            assert!(offence(Lang::En, &o).contains(&detail));
        }
    }
}
