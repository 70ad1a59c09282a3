//! The records' troubles in the player's language: why the history cannot be read, a hand
//! exported, replayed or reviewed ([`records_error`], [`replay_error`]), and why a table
//! stopped or cannot keep its hands ([`failure`]).
//!
//! Each case names what is wrong (which file, a full disk, a damaged database, a hand not
//! found) in words of the catalogue. A path stays as it is (the player may need to find the
//! file); the store's or the system's own words, which are English, are added in English only.

use super::{Lang, T};
use crate::engine::Failure;
use crate::i18n::Text;
use crate::records::{RecordsError, Trouble};
use crate::rerun::ReplayError;
use mahjong_table::RebuildError;

fn detail(lang: Lang, said: String, why: &dyn std::fmt::Display) -> String {
    match lang {
        Lang::En => format!("{said} ({why})"),
        Lang::Zh => said,
    }
}

/// Why the player's records could not be read or written, in `lang`.
pub fn records_error(lang: Lang, e: &RecordsError) -> String {
    match e {
        RecordsError::File {
            path,
            trouble,
            detail: why,
        } => {
            let path = path.display();
            let said = match trouble {
                Trouble::Full => lang.f(T::ReFull, &[&path]),
                Trouble::Denied => lang.f(T::ReDenied, &[&path]),
                Trouble::NotFound => lang.f(T::ReNotFound, &[&path]),
                Trouble::NotAFolder => lang.f(T::ReNotAFolder, &[&path]),
                Trouble::IsFolder => lang.f(T::ReIsFolder, &[&path]),
                Trouble::Other => lang.f(T::ReFileOther, &[&path]),
            };
            match trouble {
                Trouble::Other | Trouble::NotFound => detail(lang, said, why),
                _ => said,
            }
        }
        RecordsError::Corrupt { path, detail: why } => {
            detail(lang, lang.f(T::ReCorrupt, &[&path.display()]), why)
        }
        RecordsError::Newer { path } => lang.f(T::ReNewer, &[&path.display()]),
        RecordsError::OtherIdentity { path } => lang.f(T::ReOtherIdentity, &[&path.display()]),
        RecordsError::Damaged(why) => detail(lang, lang.t(T::ReDamaged).to_string(), why),
        RecordsError::InUse { .. } => lang.t(T::ReInUse).to_string(),
        RecordsError::NoStore(_) => lang.t(T::ReNoStore).to_string(),
        RecordsError::NoTable(_) => lang.t(T::ReNoTable).to_string(),
        RecordsError::NoSeat(_) => lang.t(T::ReNoSeat).to_string(),
        RecordsError::NoHand { hand, .. } => lang.f(T::ReNoHand, &[hand]),
        RecordsError::NotInLog(hand) => lang.f(T::ReNotInLog, &[hand]),
        RecordsError::Store(why) => detail(lang, lang.t(T::ReStore).to_string(), why),
    }
}

/// Why a stored hand cannot be rebuilt (replayed or reviewed), in `lang`.
pub fn replay_error(lang: Lang, e: &ReplayError) -> String {
    match e {
        ReplayError::Records(r) => records_error(lang, r),
        ReplayError::Rebuild(RebuildError::NoSetup) => lang.t(T::RpNoSetup).to_string(),
        ReplayError::Rebuild(RebuildError::NoAudit { hand, why }) => {
            detail(lang, lang.f(T::RpNoAudit, &[hand]), why)
        }
        ReplayError::Rebuild(RebuildError::Disagree { hand, why }) => {
            detail(lang, lang.f(T::RpDisagree, &[hand]), why)
        }
    }
}

/// Why a table cannot go on or cannot keep its hands, in `lang`.
pub fn failure(lang: Lang, f: &Failure) -> String {
    match f {
        Failure::NotKept(e) => lang.f(T::FlNotKept, &[&records_error(lang, e)]),
        Failure::Thread(why) => detail(lang, lang.t(T::FlThread).to_string(), why),
        Failure::Start(why) => detail(lang, lang.t(T::FlStart).to_string(), why),
        Failure::Halted(why) => detail(lang, lang.t(T::FlHalted).to_string(), why),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn all() -> Vec<RecordsError> {
        let path = PathBuf::from("/tmp/x/mahjong.sqlite3");
        let file = |trouble| RecordsError::File {
            path: path.clone(),
            trouble,
            detail: "No space left on device (os error 28)".into(),
        };
        vec![
            file(Trouble::Full),
            file(Trouble::Denied),
            file(Trouble::NotFound),
            file(Trouble::NotAFolder),
            file(Trouble::IsFolder),
            file(Trouble::Other),
            RecordsError::Corrupt {
                path: path.clone(),
                detail: "file is not a database".into(),
            },
            RecordsError::Newer { path: path.clone() },
            RecordsError::OtherIdentity { path: path.clone() },
            RecordsError::Damaged("hand 3".into()),
            RecordsError::InUse { pid: Some(7) },
            RecordsError::NoStore(path.clone()),
            RecordsError::NoTable("ab".into()),
            RecordsError::NoSeat("ab".into()),
            RecordsError::NoHand {
                table: "ab".into(),
                hand: 4,
            },
            RecordsError::NotInLog(4),
            RecordsError::Store("database: locked".into()),
        ]
    }

    #[test]
    fn every_records_error_is_worded_in_each_language_with_the_path_kept() {
        for lang in [Lang::Zh, Lang::En] {
            for e in all() {
                let said = records_error(lang, &e);
                let bare = said.replace("/tmp/x/mahjong.sqlite3", "");
                assert_eq!(super::super::foreign(lang, &bare), None, "{lang}: {said}");
                if matches!(
                    e,
                    RecordsError::File { .. }
                        | RecordsError::Corrupt { .. }
                        | RecordsError::Newer { .. }
                ) {
                    assert!(said.contains("mahjong.sqlite3"), "{said}: which file");
                }
            }
            let full = records_error(lang, &all()[0]);
            let disk = match lang {
                Lang::Zh => "磁盘已满",
                Lang::En => "disk is full",
            };
            assert!(full.contains(disk), "{full}");
        }
        // The system's words in English only.
        let other = &all()[5];
        assert!(records_error(Lang::En, other).contains("os error 28"));
        assert!(!records_error(Lang::Zh, other).contains("os error"));
    }
}
