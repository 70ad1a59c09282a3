//! What a seat proven at fault did, in the current language (the table crate's `Offence`;
//! the inner details that come from the deal and rules crates stay in their own words).

use mahjong_table::Offence;

use super::{Lang, T};
use crate::tiles::{Faces, tile_text};

/// The offence in `lang`.
pub fn offence(lang: Lang, o: &Offence) -> String {
    let faces = match lang {
        Lang::Zh => Faces::Chinese,
        Lang::En => Faces::Notation,
    };
    match o {
        Offence::Equivocation => lang.t(T::OffEquivocation).to_string(),
        Offence::Deal(e) => lang.f(T::OffDeal, &[e]),
        Offence::Illegal(e) => lang.f(T::OffIllegal, &[e]),
        Offence::Malformed(e) => lang.f(T::OffMalformed, &[e]),
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
        Offence::Audit(e) => lang.f(T::OffAudit, &[e]),
        Offence::Replay { index, error } => lang.f(T::OffReplay, &[index, error]),
        Offence::WrongResult => lang.t(T::OffWrongResult).to_string(),
        Offence::BadProposal(e) => lang.f(T::OffBadProposal, &[e]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
            "声称牌墙第 17 张是五萬，亮出来却是二筒"
        );
    }
}
