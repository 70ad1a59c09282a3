//! The string catalogues: every word the app shows, in 中文 ([`zh`]) and English ([`en`]).
//!
//! View code never holds a literal: it asks for a [`T`] key in the current [`Lang`]
//! ([`Lang::t`]) and fills numbered slots (`{0}`, `{1}`) with [`Lang::f`]. A test checks
//! that both catalogues fill the same slots for every key. Tile faces, hand types and
//! patterns are named by their ids of the rules crate ([`Lang::pattern`]); the computer
//! players' reasons (a typed value of the bot crate) are worded by [`reasons`].

mod en;
mod proofs;
pub mod reasons;
mod records;
mod zh;

pub use proofs::{offence, verify_error};
pub use records::{failure, records_error, replay_error};

use std::fmt;

/// The display language: the rules crate's, one type for the whole game.
pub use mahjong_rules::{Lang, UnknownLang};

macro_rules! keys {
    ($($(#[$m:meta])* $k:ident),* $(,)?) => {
        /// A string of the catalogues.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[allow(missing_docs)]
        pub enum T { $($(#[$m])* $k),* }
        impl T {
            /// Every key (for the catalogue tests).
            pub const ALL: &'static [T] = &[$(T::$k),*];
        }
    };
}

keys! {
    AppTitle, Welcome, AskName, NamePlaceholder, Continue, NameEmpty, NameTooLong, Hello,
    PracticeTitle, PracticeIntro, Preset, Qiaoma, Classic, Baida, Random, Beginner, Basic, Strong, Master,
    SeatRight, SeatAcross, SeatLeft, You, StartPractice, OtherLang, FacesChinese, FacesNotation, FacesContrast,
    East, South, West, North, Dealer, WallLeft, Dice, Huangfan, Indicator, Wildcard, HandNo,
    YourTurnDiscard, YourTurnFlower, ClaimOn, RobOn, WaitingFor, Seconds, Chow, Pung, Kong,
    Win, Ready, Pass, Flower, Discard, Hint, HintText, Silent, IsReady, Keys, Setup,
    Dealing, Flowers, Melds, Discards, Verified, NotVerified, HandResult, DrawnHand,
    Abandoned, Wins, WinnerTiles, Sets, FlowerCount, Points, Value, Multiplier, Cap, NoCap,
    TableLimit, ScoreS, Pays, Receives, PaysNothing, Totals, NextHand, Stop, Evidence,
    Cheated, SessionOver, Back, WinSelfDraw, WinDiscard, WinRobKong, WinEightFlowers,
    WinFourWildcards, FromSeat, PaidByAll, PaidByDiscarder, Binding, Concealed, Failed,
    ChowWith, AutoPlay, TimedOut, Legend, HintButton, Totalled, Hands, StopHint, Patterns,
    ScoreRule, FaceUp, Winner, ConcealedKong, Of, Lezi, Bot1, Bot2, Bot3, ClickAgain,
    MoveTimedOut, MoveDiscard, MoveChow, MovePung, MoveKong, MoveReady, MoveFlower, MoveWin, Me,
    ClickHelp, ProvenNone, YourTurnWin, YourClaim, SwapPhase, MoveSwap, TimedOutDiscard, TimedOutPass, ClaimLost, ClaimLostWin, CallChow, CallPung, CallKong, CallReady, CallWin, WaitsLive, WaitLive, BarredTile,
    // Set-up and option editor keys go below this line.
    HandsRestricted, HandsDadiaoche, HandsStandard, NoneValue, BindingQiaoma, BindingChiSanKou,
    MenqingDouble, MenqingFlower, On, Off, NoChanges, ChangedCount, ResetDefaults, DefaultIs,
    ChangedFrom, SecTable, SecRules, OptStake, OptStakeHelp, StakeValue, OptLength, OptLengthHelp,
    LengthHands, LengthByHands, LengthFourRounds, OptMustDeclareReady, OptMustDeclareReadyHelp,
    OptHands, OptHandsHelp, OptWildcard, OptWildcardHelp, OptDragonsAreFlowers,
    OptDragonsAreFlowersHelp, OptWinOnDiscard, OptWinOnDiscardHelp, OptBasePoints,
    OptBasePointsHelp, OptLeziPoints, OptLeziPointsHelp, OptTableLimit, OptTableLimitHelp,
    OptBinding, OptBindingHelp, OptKaibao, OptKaibaoHelp, OptDiceHuangfan, OptDiceHuangfanHelp,
    OptMenqing, OptMenqingHelp, OptEightFlowers, OptEightFlowersHelp, OptFourWildcards,
    OptFourWildcardsHelp, OptLeaverPenalty, OptLeaverPenaltyHelp, OptDiscardSeconds,
    OptDiscardSecondsHelp, OptClaimSeconds, OptClaimSecondsHelp, OptStartSeconds,
    OptStartSecondsHelp, OptTimeouts, OptTimeoutsHelp, OptDisconnectSeconds,
    OptDisconnectSecondsHelp, OptChipLimit, OptChipLimitHelp, Refused, RefuseLine,
    RefuseLimitNeedsLezi, RefuseFourWildcards, RefuseNeedsLezi, RefuseTimers, RulesSay,
    // (separator)
    // Lobby keys go below this line.
    LobbyButton, LobbyTitle, LobbyEmpty, LobbyPeers, LobbyHost, LobbyLine, LobbyBotsLater, SeatFree, SeatBotOf, SeatYou, SitDown, LeaveTable, FillBots, TablePlaying, TableAsking, CreateTitle, TableName, BotsField, CreateTable, AddressTitle, Connect, YourAddress, LanRefused, SetupTitle, SetupBy, Differences, NoDifferences, DiffWhy, AcceptSetup, AcceptIn, SetupAccepted, WaitingSetup, SetupFailedSeat, Reconnecting, ReplacedByBot, FollowingSeat, ResumingWait, SetupFailedYou, SetupFailedSomeone, NetStopped, NetNotUp, LanProblem, Length,
    SeatBot, HostSilent, LobbyPeer, Hand, LobbyBotLater, OptLengthLanHelp, CreateOptions,
    RelayGone,
    StrangerNew, StrangerNotTheOne, StrangerAcceptAgain, VeName, VeNameMissing,
    // Watching a friends' table.
    WatchersField, WatchersTalk, WatchersQuiet, WatchersNone, WatchTable, WatchAsking, WatchingBanner, StopWatching, WatchNoWatchers, WatchFull,
    WatchTurnedAway, WatchOther, WatchLied,
    // (separator)
    // History and replay keys go below this line.
    History, HistoryLoading, HistoryEmpty, HistoryCount, HistoryFailed, Players, ColPlayer,
    ColBalance, ColLevel, ColHand, ColResult, ColCheck, LevelOf, TableHead, PracticeTag,
    PaymentCell, CellLegend, CheckSigned, CheckAborted, CheckVerified, CheckFault,
    CheckUnavailable, VerifyTable, Verifying, ReplayButton, ExportButton, ExportTitle, Exported,
    ExportFailed, VerifyTitle, VerifyButton, VerifyPlaceholder, VerifyOk, VerifyHandLine,
    VerifyFault, VerifyUnreadable, Culprit, NoCulprit, ResWin, ResOnDiscard, ResRobKong,
    ResDrawn, ResLeft, ResByThree, ReplayTitle, ReplayLoading, ReplayFailed, StepOf, StepBack,
    StepForward, StepStart, StepEnd, ShowHands, HideHands, ReplayKeys, ReplayDeal, ReplayDraws,
    ReplayDrawsTile, ReplayNoClaim, ReplayConcealedKong, ReplayEnd, ProvenHands, BackToHistory,
    ExportWrite, ColHands,
    // The evening's story and the statistics go below this line.
    StoryTitle, StoryAxis, StoryTally, StoryBiggest, StoryNoWin, SettleUpTitle, SettlePays,
    SettleEven, SettleUpNote, StoryShow, StoryHide, StatsButton, StatsTitle, StatsLoading,
    StatsFailed, StatsEmpty, StatsFriends, StatsPractice, ColWinRate, ColSelfDraw, ColDealIn,
    ColAvgWin, ColRating, StatsNote,
    // (separator)
    // Scorer and rules keys go below this line.
    OffEquivocation, OffDeal, OffIllegal, OffMalformed, OffFace, OffAudit, OffReplay, OffWrongResult, OffBadProposal,
    RulesOtherPreset,
    ClaimsCorner, RulesButton, RulesTitle, RulesOptions, RulesOptionsIntro, BackToTable,
    ScorerButton, ScorerTitle, ScorerIntro, ScorerOptions, ScorerOptionsChanged, HowWon, FromLabel,
    DeclaredLabel, KaibaoLabel, ReplacementLabel, HuangfanLabel, ClaimsLabel, ModeLabel,
    ModeHand, ModeChow, ModePung, ModeKong, ModeConcealedKong, ModeAddedKong, ModeFlower,
    ModeWildcard, TilesSoFar, ClearHand, HandTilesLabel, ScorerIncomplete, NotScored, PaymentsLabel,
    RefuseCopies, RefuseFlowerInHand, RefuseNotAFlower, RefuseChow, RefuseFull, RefuseWildcard,
    RefuseOther,
    SoundOff, SoundLevel,
    WildcardLegend,
    DataDirUnusable, DirIsFile, DirReadOnly, DirFull, DirOther, SettingsUnreadable, SettingsUnsaved,
    LeaveButton, LeaveAskPractice, LeaveAskLan, LeaveYes, LeaveNo,
    NotWinningSeat, UnwinNotDeclared, UnwinNotAType, UnwinNotStandard, UnwinNotStandardWild, UnwinNoType, ScoreInvalid,
    // Bot reasons and the review (复盘) go below this line.
    RsNothing, RsRandom, RsWin, RsFlower, RsNoFlower, RsNothingToClaim, RsReadyDrawn, RsOnlyDiscard, RsOnlyAction, RsFallback, RsAnyKong, RsCannotWin, RsReady, RsReadyOn, RsAwayOne, RsAway, RsPlan, RsDiscard, RsDeclare, RsConcealedKong, RsAddedKong, RsClaimChow, RsClaimPung, RsClaimKong, RsPass, RsPassUseless, RsSwapKeep, RsSwapPutBack, RsPlayOnRun, RsPlayOnRunHint, RsPlayOnBigger, RsPlayOnBiggerHint, RsPlayOnKong, RsPlayOnKongHint, RsBinding, RsSafe, RsDangerous, RsDangerousBare, ThDeclared, ThClose, ThFlush, ThPungs, TgInSuit, TgFlushPungs, TgStandard, SuitChars, SuitDots, SuitBamboo, ReviewButton, ReviewTitle, ReviewLoading, ReviewSummary, ReviewSame, ReviewNoMistake, ReviewEqual, CostMissedWin, CostFurther, CostFewerWins, CostFewerUseful, CostRiskier, WhyMissedWin, WhyFurther, WhyFewerWins, WhyFewerUseful, WhyRiskier, ReviewYours, ReviewBots, ReviewTurnAt, ReviewClaimAt, ReviewRobAt, ReviewSwapAt, ReviewAfter, ReviewWins, ReviewWaitCount, ReviewDanger, ReviewWhy, ReviewBack, ChDiscard, ChReady, ChChow, ChPung, ChKong, ChConcealedKong, ChAddedKong, ChWin, ChPass, ChSwap, ChKeep, ChFlower, ChLeave, ReviewTimedOut, MotionOn, MotionOff, MeldFrom,
    // Verify verdicts go below this line.
    StoreSetAside, StoreDamagedKept, OldPracticeSetAside, TableOfHost, InUseTitle, InUseText, InUseClose, VeUnreadable, VeBadFrame, VeHeader, VeResult, VeProven, VeEvidence, VeSeat, LfNoSetup, LfEmptyStep, LfGap, LfWrongTable, LfChain, LfSignature, LfUnexpected, LfMissing, LfAfterEnd, LfFault, LfAbort, LfInternal,
    // Internet play keys go below this line.
    NetTitle, NetRelay, NetCode, NetNewCode, NetMeet, NetMeeting, NetRelayUp, NetRelayDown,
    NetLinks, LinkDirect, LinkRelayed, NetBadCode, NetBadRelay, NetDetailInLog,
    // The records' troubles go below this line.
    ReFull, ReDenied, ReNotFound, ReNotAFolder, ReIsFolder, ReFileOther, ReCorrupt, ReNewer, ReOtherIdentity,
    ReDamaged, ReInUse, ReNoStore, ReNoTable, ReNoSeat, ReNoHand, ReNotInLog, ReStore, RpNoSetup, RpNoAudit,
    RpDisagree, FlNotKept, FlThread, FlStart, FlHalted, ReviewCannot, UnNoSeat, UnNotInLog,
    CheckLedgerDiffers, CheckFaultAt, CheckFaultLog,
    // Table talk keys go below this line.
    TalkTurnAway, TalkTurnAwayTip, TalkTitle, TalkWatching, TalkWatchingQuiet, TalkWatcherTag, TalkPlaceholder, TalkSend,
    TalkMuteTip, TalkMutedChip, TalkUnmuteTip, TalkNobody, TalkHurry, TalkNiceHand, TalkSorry,
    TalkWellPlayed, TalkOneMore, TalkThumbsUp, TalkLaugh, TalkTooMany, TalkTooLong,
    TalkWatchersQuiet, TalkNotAtTable, TalkNotSent, TalkMuteUnsaved,
    // (end of the keys)
}

/// The name of a way to win (自摸, 点炮, …) in the app's words.
pub fn win_kind(k: mahjong_rules::WinKind) -> T {
    use mahjong_rules::WinKind;
    match k {
        WinKind::SelfDraw => T::WinSelfDraw,
        WinKind::Discard => T::WinDiscard,
        WinKind::RobKong => T::WinRobKong,
        WinKind::EightFlowers => T::WinEightFlowers,
        WinKind::FourWildcards => T::WinFourWildcards,
    }
}

/// The network's detail of a problem (its own English words): shown as it is in English; in
/// 中文 a pointer to the log, where the app writes it (a 中文 player never reads English).
pub fn network_detail(lang: Lang, why: &str) -> String {
    tracing::warn!("network: {why}");
    match lang {
        Lang::En => why.to_string(),
        Lang::Zh => lang.t(T::NetDetailInLog).to_string(),
    }
}

/// The app's catalogues, by language (a trait: [`Lang`] lives in the rules crate).
pub trait Text: Copy {
    /// The string for `key`.
    fn t(self, key: T) -> &'static str;
    /// The string for `key` with `{0}`, `{1}`, … replaced by `args`.
    fn f(self, key: T, args: &[&dyn fmt::Display]) -> String;
    /// The other language.
    fn other(self) -> Lang;
    /// A hand type or pattern id of the rules crate, named.
    fn pattern(self, id: &str) -> String;
}

impl Text for Lang {
    /// The string for `key`.
    fn t(self, key: T) -> &'static str {
        match self {
            Lang::Zh => zh::text(key),
            Lang::En => en::text(key),
        }
    }

    fn f(self, key: T, args: &[&dyn fmt::Display]) -> String {
        let text = fill(self.t(key), args);
        match self {
            // "{0} hands" filled with 1 reads "1 hand".
            Lang::En => mahjong_rules::names::agree(&text),
            Lang::Zh => text,
        }
    }

    fn other(self) -> Lang {
        match self {
            Lang::Zh => Lang::En,
            Lang::En => Lang::Zh,
        }
    }

    fn pattern(self, id: &str) -> String {
        mahjong_rules::names::pattern(id, self).map_or_else(|| id.to_string(), str::to_string)
    }
}

/// Replaces `{0}`, `{1}`, … in `template` by `args`.
pub fn fill(template: &str, args: &[&dyn fmt::Display]) -> String {
    let mut out = String::with_capacity(template.len() + 16);
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close) => match after[..close].parse::<usize>() {
                Ok(i) if i < args.len() => {
                    out.push_str(&args[i].to_string());
                    rest = &after[close + 1..];
                }
                _ => {
                    out.push('{');
                    rest = after;
                }
            },
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Characters of the other script, outside what may stay: in English, Chinese only in
/// parentheses after the English (`half flush (混一色)`); in 中文, Latin letters only in
/// the formulas' letters (P, V, S, M, min) and a file name's extension.
pub fn foreign(lang: Lang, text: &str) -> Option<char> {
    let is_cjk = |c: char| ('\u{4e00}'..='\u{9fff}').contains(&c);
    match lang {
        Lang::En => {
            let mut depth = 0;
            text.chars().find(|&c| {
                match c {
                    '(' | '（' => depth += 1,
                    ')' | '）' => depth -= 1,
                    _ => {}
                }
                depth == 0 && is_cjk(c)
            })
        }
        Lang::Zh => {
            let mut t = text.to_string();
            for ok in ["min", ".json", "P", "V", "S", "M"] {
                t = t.replace(ok, "");
            }
            t.chars().find(|c| c.is_ascii_alphabetic())
        }
    }
}

/// The pattern ids of the rules crate, for the catalogue tests (the rules' own list).
pub const PATTERNS: &[&str] = &mahjong_rules::names::PATTERN_IDS;

#[cfg(test)]
mod tests {
    use super::*;

    fn slots(s: &str) -> Vec<usize> {
        let mut v: Vec<usize> = (0..6).filter(|i| s.contains(&format!("{{{i}}}"))).collect();
        v.sort_unstable();
        v
    }

    #[test]
    fn both_catalogues_fill_the_same_slots_and_none_is_empty() {
        for &k in T::ALL {
            let (z, e) = (Lang::Zh.t(k), Lang::En.t(k));
            assert!(!z.is_empty() && !e.is_empty(), "{k:?} is empty");
            assert_eq!(slots(z), slots(e), "{k:?}: {z} / {e}");
        }
    }

    #[test]
    fn no_text_carries_the_other_script() {
        // The language switch names the other language; the notation button shows notation;
        // the shortcut line names the keyboard's keys; a file is named as it is on disk; a
        // command-line flag is named as it is typed.
        let exempt = [
            T::OtherLang,
            T::FacesNotation,
            T::Keys,
            T::NetDetailInLog,
            T::InUseText,
            T::SettingsUnreadable,
            T::OldPracticeSetAside,
        ];
        for lang in [Lang::En, Lang::Zh] {
            for &k in T::ALL {
                if exempt.contains(&k) {
                    continue;
                }
                let text = lang.t(k);
                assert_eq!(foreign(lang, text), None, "{lang:?} {k:?}: {text}");
            }
            for p in PATTERNS {
                let text = lang.pattern(p);
                assert_eq!(foreign(lang, &text), None, "{lang:?} pattern {p}: {text}");
            }
        }
    }

    #[test]
    fn every_pattern_is_named_in_both_languages() {
        for p in PATTERNS {
            assert!(Lang::Zh.pattern(p) != *p, "zh lacks {p}");
            assert!(Lang::En.pattern(p) != *p, "en lacks {p}");
        }
        assert_eq!(Lang::En.pattern("no_such"), "no_such");
    }

    #[test]
    fn a_network_problem_reads_in_chinese_without_its_english_detail() {
        let why = "the peer sent an undecodable message";
        let zh = Lang::Zh.f(T::LanProblem, &[&network_detail(Lang::Zh, why)]);
        assert!(!zh.contains("undecodable"), "{zh}");
        assert!(zh.contains("mahjong.log"), "{zh}");
        let en = Lang::En.f(T::LanProblem, &[&network_detail(Lang::En, why)]);
        assert!(en.contains(why), "{en}");
    }

    #[test]
    fn fill_replaces_numbered_slots_and_keeps_stray_braces() {
        assert_eq!(fill("{1} pays {0}", &[&3, &"East"]), "East pays 3");
        assert_eq!(fill("a {x} {5} {", &[&1]), "a {x} {5} {");
    }

    #[test]
    fn language_codes_parse() {
        assert_eq!("en".parse::<Lang>(), Ok(Lang::En));
        assert_eq!(" ZH ".parse::<Lang>(), Ok(Lang::Zh));
        assert!("fr".parse::<Lang>().is_err());
    }
}
