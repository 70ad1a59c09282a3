//! English catalogue.

use super::T;

/// The string for `key`.
pub fn text(key: T) -> &'static str {
    match key {
        T::AppTitle => "Shanghai Mahjong",
        T::Welcome => "Welcome to Shanghai Mahjong",
        T::AskName => "Your name (the others at the table see it)",
        T::NamePlaceholder => "Name",
        T::Continue => "Continue",
        T::NameEmpty => "Please enter a name first",
        T::NameTooLong => "A name has at most 24 characters",
        T::Hello => "Hello, {0}",
        T::PracticeTitle => "Practice",
        T::PracticeIntro => {
            "A table against three bots, offline; the deal, its audit and the four signatures are exactly those of a networked table."
        }
        T::Preset => "Rules",
        T::Qiaoma => "Qiaoma (敲麻)",
        T::Classic => "Classic",
        T::Baida => "Baida (百搭)",
        T::Random => "random",
        T::Beginner => "beginner",
        T::Basic => "basic",
        T::Strong => "strong",
        T::Master => "master",
        T::SeatRight => "Right",
        T::SeatAcross => "Across",
        T::SeatLeft => "Left",
        T::You => "You",
        T::StartPractice => "Start practice",
        T::OtherLang => "中文",
        T::FacesChinese => "Tiles: Chinese faces",
        T::FacesNotation => "Tiles: notation 5m",
        T::FacesContrast => "Tiles: high contrast",
        T::East => "East",
        T::South => "South",
        T::West => "West",
        T::North => "North",
        T::Dealer => "Dealer",
        T::WallLeft => "Wall {0}",
        T::Dice => "Dice {0}·{1}",
        T::Huangfan => "Draw bonus {0}",
        T::Indicator => "Indicator",
        T::Wildcard => "Wildcard",
        T::HandNo => "Hand {0}",
        T::YourTurnDiscard => "Your turn: discard a tile",
        T::YourTurnFlower => "Setting your flowers aside…",
        T::ClaimOn => "{0} discarded",
        T::RobOn => "{0} adds to a kong",
        T::WaitingFor => "Waiting for {0}",
        T::Seconds => "{0} s",
        T::Chow => "Chow",
        T::Pung => "Pung",
        T::Kong => "Kong",
        T::Win => "Win",
        T::Ready => "Ready",
        T::Pass => "Pass",
        T::Flower => "Flower",
        T::Discard => "Discard",
        T::Hint => "Hint",
        T::HintText => "Master bot: {0} — {1}",
        T::Silent => "silent",
        T::IsReady => "ready",
        T::Keys => {
            "Keys: 1–9 0 - = pick and discard, ←→ move, Enter discard, C chow, P pung, K kong, H win, R ready, Space pass, ? hint"
        }
        T::Setup => "Opening the table: the four seats agree on the rules…",
        T::Dealing => "Shuffling and dealing (encrypted: each seat shuffles once)…",
        T::Flowers => "Flowers",
        T::Melds => "Melds",
        T::Discards => "Discards",
        T::Verified => "✓ Verified: deal audited, signed by all four",
        T::NotVerified => "× Not verified",
        T::HandResult => "Hand {0}: the result",
        T::DrawnHand => "Drawn hand: the wall ran out, nobody won",
        T::Abandoned => "{0} left the table and pays the penalty",
        T::Wins => "{0} wins",
        T::WinnerTiles => "Winning hand",
        T::Sets => "Sets",
        T::FlowerCount => "Flowers: {0}",
        T::Points => "Points P: {0}",
        T::Value => "Value V: {0}",
        T::Multiplier => "Multiplier: ×{0}",
        T::Cap => "Cap: {0} lezi ({1} points)",
        T::NoCap => "No cap",
        T::TableLimit => "Table limit: {0} lezi",
        T::ScoreS => "Each paying seat pays S = {0} points",
        T::Pays => "{0} pays {1}",
        T::Receives => "{0} receives {1}",
        T::PaysNothing => "{0} is even",
        T::Totals => "Running totals",
        T::NextHand => "Next hand",
        T::Stop => "Stop",
        T::Evidence => "Evidence",
        T::Cheated => "{0} cheated, and it is proven: {1}",
        T::SessionOver => "Session over",
        T::Back => "Back",
        T::WinSelfDraw => "self-draw",
        T::WinDiscard => "on a discard",
        T::WinRobKong => "robbing a kong",
        T::WinEightFlowers => "eight flowers (八花齐)",
        T::WinFourWildcards => "four wildcards (四百搭)",
        T::FromSeat => "{0} discarded it",
        T::PaidByAll => "Self-draw: each of the other three pays S",
        T::PaidByDiscarder => "On a discard: the discarder pays",
        T::Binding => {
            "Bound (承包): {0} and {1} made {2} claims on each other, so the binding payment table applies"
        }
        T::Concealed => "Hand",
        T::Failed => "The table cannot go on: {0}",
        T::ChowWith => "Chow {0}",
        T::AutoPlay => "Ready: drawing and discarding for you",
        T::TimedOut => "{0} ran out of time: played automatically",
        T::Legend => "Legend",
        T::HintButton => "Hint (?)",
        T::Totalled => "this hand {0}, total {1}",
        T::Hands => "{0} hands",
        T::StopHint => "back to the start screen afterwards",
        T::Patterns => "Patterns",
        T::ScoreRule => "S = min(V × multiplier, cap)",
        T::FaceUp => "All hands face up",
        T::Winner => "Winner",
        T::ConcealedKong => "concealed kong",
        T::Of => "{0}: {1}",
        T::Bot1 => "Ah Qiang",
        T::Bot2 => "Xiao Hong",
        T::Bot3 => "Lao Wang",
        T::ClickAgain => "click again to discard",
        T::MoveTimedOut => "{0} timed out",
        T::MoveDiscard => "{0} discards {1}",
        T::MoveChow => "{0} chows {1}",
        T::MovePung => "{0} pungs {1}",
        T::MoveKong => "{0} kongs {1}",
        T::MoveReady => "{0} declares ready",
        T::MoveFlower => "{0} sets a flower aside",
        T::MoveWin => "{0} wins",
        T::Me => "You",
        T::ClickHelp => "Click a tile to pick it, click it again to discard",
        T::ProvenNone => "The evidence does not verify: {0}",
        T::YourTurnWin => "Your turn: you can win, or discard a tile",
        T::YourClaim => "{0} discarded: your call",
        T::SwapPhase => "Swap: five tiles go back to the wall",
        T::MoveSwap => "{0} swaps tiles",
        T::TimedOutDiscard => "You ran out of time: {0} was discarded for you",
        T::TimedOutPass => "You ran out of time: passed for you",
        T::ClaimLost => "{0} took the tile with a pung: your chow does not stand",
        T::ClaimLostWin => "{0} won on the tile: your claim does not stand",
        T::CallChow => "Chow!",
        T::CallPung => "Pung!",
        T::CallKong => "Kong!",
        T::CallReady => "Ready!",
        T::CallWin => "Win!",
        T::WaitsLive => "Waiting on: {0}",
        T::WaitLive => "{0} ({1} left)",
        T::BarredTile => "You cannot discard {0} right after claiming it",
        // Set-up and option editor keys go below this line.
        T::HandsRestricted => "restricted hands",
        T::HandsDadiaoche => "restricted + the big hook (大吊车)",
        T::HandsStandard => "any standard hand",
        T::NoneValue => "none",
        T::BindingQiaoma => "bound (承包)",
        T::BindingChiSanKou => "bound by three claims (吃三口)",
        T::MenqingDouble => "×2, cap 2 lezi",
        T::MenqingFlower => "one more flower",
        T::On => "on",
        T::Off => "off",
        T::NoChanges => "The preset's defaults",
        T::ChangedCount => "{0} changed from the preset's defaults (highlighted)",
        T::ResetDefaults => "Reset to defaults",
        T::DefaultIs => "default: {0}",
        T::ChangedFrom => "changed · default {0}",
        T::SecTable => "Stake, length and timers",
        T::SecRules => "Rules of the preset",
        T::OptStake => "Stake",
        T::OptStakeHelp => "Coins per point: every payment is its points × the stake.",
        T::StakeValue => "{0} a point",
        T::OptLength => "Length",
        T::OptLengthHelp => {
            "How long the table plays: a number of hands, or four rounds (四圈: each round ends when every seat has dealt)."
        }
        T::LengthHands => "{0} hands",
        T::LengthByHands => "Hands",
        T::LengthFourRounds => "Four rounds",
        T::OptMustDeclareReady => "Must declare ready (敲)",
        T::OptMustDeclareReadyHelp => {
            "A seat can only win after declaring ready (敲); off, declaring is optional."
        }
        T::OptHands => "Winning hands",
        T::OptHandsHelp => {
            "Which hands win: only flushes, all-pung and honour hands; the same plus the big hook (大吊车) alone; or any four sets and a pair."
        }
        T::OptWildcard => "Wildcard (百搭)",
        T::OptWildcardHelp => {
            "An indicator tile is turned up and the tile after it is a wildcard that stands for any tile."
        }
        T::OptDragonsAreFlowers => "Dragons are flowers",
        T::OptDragonsAreFlowersHelp => {
            "Dragons are set aside and replaced like flowers, and each counts as a flower."
        }
        T::OptWinOnDiscard => "Win on a discard",
        T::OptWinOnDiscardHelp => {
            "Winning on another seat's discard and robbing a kong are allowed; off, self-draw only."
        }
        T::OptBasePoints => "Base",
        T::OptBasePointsHelp => {
            "The base added to the winner's flowers (底分), or the base flower in Baida (底花)."
        }
        T::OptLeziPoints => "Points in a lezi",
        T::OptLeziPointsHelp => {
            "Points in one lezi (勒子), the unit of the caps and fixed hand values (10 in Qiaoma, 8 in Classic)."
        }
        T::OptTableLimit => "Table limit",
        T::OptTableLimitHelp => {
            "The most one payment unit S can be, in lezi; none: no table limit."
        }
        T::OptBinding => "Responsibility",
        T::OptBindingHelp => {
            "Two seats with three or more claims on each other's discards are bound: the binding (承包) or three-claims (吃三口) table says who pays more."
        }
        T::OptKaibao => "Lucky dice (开宝)",
        T::OptKaibaoHelp => "Dice showing a pair or 1 and 4 double the hand and its cap (开宝).",
        T::OptDiceHuangfan => "Dice add a draw bonus (荒番)",
        T::OptDiceHuangfanHelp => {
            "Such dice add to the draw bonus (荒番) counter instead (1-1 and 4-4 add 2, other pairs and 1-4 add 1)."
        }
        T::OptMenqing => "Concealed hand (门清)",
        T::OptMenqingHelp => {
            "What a hand with no claimed meld earns: ×2 with a 2-lezi cap, one more flower, or nothing."
        }
        T::OptEightFlowers => "Eight flowers (八花齐)",
        T::OptEightFlowersHelp => "A seat holding all eight flowers wins at once.",
        T::OptFourWildcards => "Four wildcards (四百搭)",
        T::OptFourWildcardsHelp => {
            "A seat holding all four wildcards wins at once (needs the wildcard)."
        }
        T::OptLeaverPenalty => "Leaver pays",
        T::OptLeaverPenaltyHelp => {
            "Stakes a player who leaves a hand in play pays, shared equally by the other three."
        }
        T::OptDiscardSeconds => "Time to discard",
        T::OptDiscardSecondsHelp => {
            "Seconds for your turn; at zero the table discards the drawn tile for you."
        }
        T::OptClaimSeconds => "Time to claim",
        T::OptClaimSecondsHelp => {
            "Seconds to answer a discard (chow, pung, kong, win); at zero the table passes for you."
        }
        T::OptStartSeconds => "Time to start",
        T::OptStartSecondsHelp => "Seconds everyone has to press start once the table is full.",
        T::OptTimeouts => "Time-outs allowed",
        T::OptTimeoutsHelp => {
            "Timed-out turns in a row before the next one makes the seat a leaver; none: never."
        }
        T::OptDisconnectSeconds => "Silence allowed",
        T::OptDisconnectSecondsHelp => "Seconds of silence after which a seat counts as a leaver.",
        T::OptChipLimit => "Chip limit (逛花园)",
        T::OptChipLimitHelp => {
            "Each player starts with this many chips; with none left a player pays no more (none: no limit)."
        }
        T::Refused => "This combination cannot be played:",
        T::RefuseLine => "{0}: {1}",
        T::RefuseLimitNeedsLezi => "a table limit in lezi needs the points in a lezi",
        T::RefuseFourWildcards => "Four wildcards (四百搭) needs the wildcard",
        T::RefuseNeedsLezi => {
            "Qiaoma and Classic scoring count in lezi: the points in a lezi cannot be none"
        }
        T::RefuseTimers => "timers must be at least one second",
        T::RulesSay => "The rules check says: {0}",
        // (separator)
        // Lobby keys go below this line.
        T::LobbyButton => "Play with friends on the LAN",
        T::LobbyTitle => "Tables on the LAN",
        T::LobbyEmpty => "No table yet. Friends' tables appear here by themselves, or open one.",
        T::LobbyPeers => "{0} players connected",
        T::LobbyHost => "host {0}",
        T::LobbyLine => "{0} · stake {1} · {2}",
        T::LobbyBotsLater => "{0} seats for bots",
        T::SeatFree => "free",
        T::SeatBotOf => "bot run by {0}",
        T::SeatYou => "{0} (you)",
        T::SitDown => "Sit down",
        T::LeaveTable => "Leave",
        T::FillBots => "Fill with bots and start",
        T::TablePlaying => "playing",
        T::WatchersField => "Friends who watch",
        T::WatchersTalk => "may watch and talk",
        T::WatchersQuiet => "may watch, not talk",
        T::WatchersNone => "nobody watches",
        T::WatchTable => "Watch",
        T::WatchAsking => "asking the host to watch…",
        T::WatchingBanner => {
            "Watching {0}'s table: you see what every player shows, never a hidden tile"
        }
        T::StopWatching => "Stop watching",
        T::WatchNoWatchers => "This table takes no watchers.",
        T::WatchFull => "Eight friends are watching this table already.",
        T::WatchTurnedAway => "The host asked you not to watch this table.",
        T::WatchOther => "The host did not let you watch: {0}",
        T::WatchLied => "Stopped watching: {0} showed you moves its players did not sign.",
        T::TableAsking => "asking the host for a seat…",
        T::CreateTitle => "Open a table",
        T::TableName => "Table name",
        T::BotsField => "Seats for bots",
        T::CreateTable => "Open the table",
        T::AddressTitle => "A player's address (where multicast does not reach)",
        T::Connect => "Connect",
        T::YourAddress => "Your address: {0}",
        T::LanRefused => "Not possible: {0}",
        T::SetupTitle => "Set-up of {0}",
        T::SetupBy => "proposed by the host, {0}",
        T::Differences => "Differences from the preset",
        T::NoDifferences => "Exactly the preset's options",
        T::DiffWhy => "changed by the host; every seat signs these exact options when it accepts",
        T::AcceptSetup => "Accept",
        T::AcceptIn => "{0} s left to accept or leave",
        T::SetupAccepted => "Accepted: waiting for the others",
        T::WaitingSetup => "Waiting for the host's set-up…",
        T::SetupFailedSeat => "The set-up failed: {0} declined or did not answer",
        T::Reconnecting => "reconnecting…",
        T::ReplacedByBot => "a bot plays for them now",
        T::FollowingSeat => {
            "A bot has played your seat since you were away: you are watching the rest of the session, and every hand goes into your ledger."
        }
        T::ResumingWait => "Resuming the table where you left it: waiting for {0} to answer.",
        T::SetupFailedYou => "The set-up failed: you did not accept it in time. Back in the lobby.",
        T::SetupFailedSomeone => {
            "The set-up failed: a seat declined or did not answer. Back in the lobby."
        }
        T::NetStopped => "The network has stopped: restart the app to play on the LAN.",
        T::NetNotUp => "The network is not up yet: try again in a moment.",
        T::LanProblem => "Network: {0}",
        T::RelayGone => "The relay {0} is gone; every friend was linked through it: waiting for it",
        T::StrangerNew => "new to you · {0}",
        T::StrangerNotTheOne => "not the {0} you know · {1}",
        T::StrangerAcceptAgain => {
            "Someone here uses the name of a friend you know, with another key. Compare the four words beside their name with your friend aloud; press Accept again to play anyway."
        }
        T::VeName => {
            "The file was altered: it names {0} \"{1}\", but the name that player signed at the table is \"{2}\"."
        }
        T::VeNameMissing => {
            "The file was altered: it gives {0} no name, but that player signed the name \"{1}\" at the table."
        }
        T::Length => "Length",
        T::SeatBot => "bot",
        T::HostSilent => "The host did not answer: ask again or choose another table",
        T::LobbyPeer => "{0} player connected",
        T::Hand => "{0} hand",
        T::LobbyBotLater => "{0} seat for a bot",
        T::OptLengthLanHelp => {
            "How many hands the table plays. A LAN table counts hands: its announcement on the LAN carries a number of hands, so four rounds (四圈) are not offered here."
        }
        T::CreateOptions => "The table's options",
        // (separator)
        // History and replay keys go below this line.
        T::History => "History",
        T::HistoryLoading => "Reading the history…",
        T::HistoryEmpty => {
            "No finished hands yet: the hands of your practice tables and of tables with friends appear here."
        }
        T::HistoryCount => "tables: {0} · hands: {1}",
        T::HistoryFailed => "The history cannot be read: {0}",
        T::Players => "Players and levels",
        T::ColPlayer => "Player",
        T::ColBalance => "Balance",
        T::ColLevel => "Level",
        T::ColHand => "Hand",
        T::ColResult => "Result",
        T::ColCheck => "Verification",
        T::LevelOf => "level {0} ({1})",
        T::TableHead => "{0} · {1} · stake {2} · table {3}",
        T::PracticeTag => "practice",
        T::PaymentCell => "{0} ({1})",
        T::CellLegend => "Each cell: the hand's payment (running total at the table), in coins.",
        T::CheckSigned => "signed by all four",
        T::CheckAborted => "aborted: 3 votes",
        T::CheckVerified => "✓ verified offline",
        T::CheckFault => "× fault: {0}",
        T::CheckUnavailable => "cannot check: {0}",
        T::VerifyTable => "Verify table",
        T::Verifying => "verifying…",
        T::ReplayButton => "Replay",
        T::ExportButton => "Export",
        T::ExportTitle => "Export the signed log of hand {0} (table {1}) to",
        T::Exported => "Written: {0} ({1} bytes)",
        T::ExportFailed => "Not written: {0}",
        T::VerifyTitle => "Verify a file someone sent you (a hand's log, or evidence)",
        T::VerifyButton => "Verify",
        T::VerifyPlaceholder => "path of a .json log or evidence file",
        T::VerifyOk => {
            "✓ Verified: table {0}, {1} hands replayed, {2} signatures, a hash chain of {3} steps; {4} claimed results match"
        }
        T::VerifyHandLine => "hand {0}: {1}; payments {2}",
        T::VerifyFault => "× Does not verify",
        T::VerifyUnreadable => "× Not a log or evidence file of this program",
        T::Culprit => "Culprit: {0}, proven by its own signed entry",
        T::NoCulprit => "No seat to blame: the file was altered or cut",
        T::ResWin => "{0} won with {1}, {2}",
        T::ResOnDiscard => "on {0}'s discard",
        T::ResRobKong => "robbing {0}'s kong",
        T::ResDrawn => "drawn",
        T::ResLeft => "{0} left",
        T::ResByThree => "{0} (settled by the three others)",
        T::ReplayTitle => "Replay · hand {0} · table {1}",
        T::ReplayLoading => "Rebuilding the hand from its signed log…",
        T::ReplayFailed => "This hand cannot be replayed: {0}",
        T::StepOf => "step {0} of {1}",
        T::StepBack => "◀ Back",
        T::StepForward => "Forward ▶",
        T::StepStart => "Start",
        T::StepEnd => "End",
        T::ShowHands => "Show all hands",
        T::HideHands => "Hide the others' hands",
        T::ReplayKeys => "Keys: ← → one step",
        T::ReplayDeal => "The deal",
        T::ReplayDraws => "{0} draws",
        T::ReplayDrawsTile => "{0} draws {1}",
        T::ReplayNoClaim => "nobody claims",
        T::ReplayConcealedKong => "{0} declares a concealed kong",
        T::ReplayEnd => "The settlement",
        T::ProvenHands => "Every hand, as the end-of-hand audit of the deal proves it",
        T::BackToHistory => "Back to the history",
        T::ExportWrite => "Write the file",
        T::ColHands => "Hands",
        // The evening's story and the statistics.
        T::StoryTitle => "The evening's story",
        T::StoryAxis => "hands",
        T::StoryTally => "{0} — wins: {1}, by self-draw: {2}, dealt in: {3}",
        T::StoryBiggest => "Biggest hand: {0} (hand {1}, {2})",
        T::StoryNoWin => "Nobody won a hand.",
        T::SettleUpTitle => "Settling up",
        T::SettlePays => "{0} pays {1} {2}",
        T::SettleEven => "Everyone is even: nobody pays.",
        T::SettleUpNote => {
            "The fewest payments that clear everyone's balance, in coins; the line shows each player's running balance after every hand."
        }
        T::StoryShow => "Show the story",
        T::StoryHide => "Hide the story",
        T::StatsButton => "Statistics",
        T::StatsTitle => "Statistics",
        T::StatsLoading => "Reading the ledger…",
        T::StatsFailed => "The statistics cannot be read: {0}",
        T::StatsEmpty => {
            "No hands played yet: every hand you finish, with friends or in practice, counts here."
        }
        T::StatsFriends => "With friends · tables: {0}",
        T::StatsPractice => "Practice against the computer players · tables: {0}",
        T::ColWinRate => "Win rate",
        T::ColSelfDraw => "Self-draw rate",
        T::ColDealIn => "Deal-in rate",
        T::ColAvgWin => "Average win",
        T::ColRating => "Rating",
        T::StatsNote => {
            "Rates are shares of the hands played; the average win is what a winning hand paid, in coins. The rating starts at 1500, and each table moves it by the place the player's balance took there: +30, +10, −10 or −30 (level balances share), in full after 8 hands, in proportion before. Anyone holding the same tables computes the same numbers."
        }
        // (separator)
        // Scorer and rules keys go below this line.
        T::RulesButton => "Rule book",
        T::RulesTitle => "The rules: {0}",
        T::RulesOptions => "This table's options",
        T::RulesOptionsIntro => {
            "Every option of the preset with the value chosen (a value that differs from the preset's default is in gold), then the rule book."
        }
        T::OffEquivocation => "two different signed messages for one step",
        T::OffDeal => "deal: {0}",
        T::OffIllegal => "illegal move: {0}",
        T::OffMalformed => "malformed entry: {0}",
        T::OffFace => "claims {0} at wall position {1} but shows {2}",
        T::OffAudit => "audit: {0}",
        T::OffReplay => "full replay refuses move {0}: {1}",
        T::OffWrongResult => "signed a wrong result",
        T::OffBadProposal => "bad proposal: {0}",
        T::RulesOtherPreset => "(about another preset; this table plays {0})",
        T::ClaimsCorner => "claimed ↓ on →",
        T::BackToTable => "Back to the table",
        T::ScorerButton => "Scorer for real tiles",
        T::ScorerTitle => "Scorer for a game with real tiles",
        T::ScorerIntro => {
            "Enter the winner's hand by clicking faces and say how it was won: the settlement is worked out and explained by the same engine as mahjong score."
        }
        T::ScorerOptions => "Options · stake {0}",
        T::ScorerOptionsChanged => "Options · stake {0} · {1} changed",
        T::HowWon => "How it was won",
        T::FromLabel => "Discarded by (or whose kong was robbed)",
        T::DeclaredLabel => "Declared ready (敲)",
        T::KaibaoLabel => "Lucky dice (开宝): a pair or 1 and 4",
        T::ReplacementLabel => "Won on a replacement draw (杠开)",
        T::HuangfanLabel => "Draw bonus (荒番) counter {0}",
        T::ClaimsLabel => {
            "Claims between seats (chows, pungs, claimed kongs on each other's discards), for binding (承包 / 吃三口)"
        }
        T::ModeLabel => "A click on a face adds",
        T::ModeHand => "hand tile",
        T::ModeChow => "chow",
        T::ModePung => "pung",
        T::ModeKong => "kong",
        T::ModeConcealedKong => "concealed kong",
        T::ModeAddedKong => "added kong",
        T::ModeFlower => "flower",
        T::ModeWildcard => "wildcard",
        T::TilesSoFar => "{0} of {1} tiles",
        T::ClearHand => "Clear the hand",
        T::HandTilesLabel => {
            "Concealed tiles: the last one added is the winning tile; click a tile to take it back"
        }
        T::ScorerIncomplete => {
            "{0} of {1} tiles so far (a kong counts as 3): the settlement appears when the hand is complete."
        }
        T::NotScored => "This hand cannot be scored as entered:",
        T::PaymentsLabel => "Payments",
        T::RefuseCopies => "There are only {1} of {0}.",
        T::RefuseFlowerInHand => "{0} is a flower here: set it aside with “flower”.",
        T::RefuseNotAFlower => "{0} is not a flower under these rules.",
        T::RefuseChow => "A chow is three suited tiles in sequence: it cannot start on {0}.",
        T::RefuseFull => {
            "The hand is full: 14 tiles, a kong counting as 3. Click a tile or meld to take it back."
        }
        T::RefuseWildcard => "{0} cannot be the wildcard: a flower is never one.",
        T::RefuseOther => "this value does not fit the other options",
        T::SoundOff => "Sound off",
        T::SoundLevel => "Sound {0}%",
        T::WildcardLegend => {
            "{0} is the wildcard (百搭): it stands for any tile; wildcards have a gold corner"
        }
        T::DataDirUnusable => {
            "Your games cannot be saved in {0} ({1}): you can practise, but nothing is kept."
        }
        T::DirIsFile => "it is a file, not a folder",
        T::DirReadOnly => "it is read-only",
        T::DirFull => "the disk is full",
        T::DirOther => "it cannot be written",
        T::InUseTitle => "Shanghai Mahjong is already open",
        T::InUseText => {
            "The data dir {0} is in use by another Shanghai Mahjong (process {1}): one data dir is used by one app at a time. Switch to the window already open; to open a second one at the same time, give it another directory with --data-dir."
        }
        T::InUseClose => "Close",
        T::StoreSetAside => {
            "Your game records {0} were damaged and could not be read. The file was kept as it was, renamed {1}, and a new empty record was started: hands from now on are kept as usual, earlier ones no longer show in the history. To get them back, keep that file and give it to someone who can repair an SQLite database."
        }
        T::TableOfHost => "{0}'s table",
        T::OldPracticeSetAside => {
            "A practice table saved by an earlier version of the app cannot be resumed: its finished hands are in your history, the hand that was being played is lost. (Its file is kept as practice.jsonl.old.)"
        }
        T::StoreDamagedKept => {
            "Your game records {0} are damaged and could not be read or moved aside ({1}): you can practise, but nothing will be kept. Move or rename that file, then start the app again."
        }
        T::SettingsUnreadable => {
            "Your settings in {0} could not be read: the defaults are used (the file is kept as settings.json.unreadable)."
        }
        T::SettingsUnsaved => "Your settings could not be saved in {0} ({1}).",
        T::LeaveButton => "Leave the table",
        T::LeaveAskPractice => {
            "Leave this practice table? The hand in play is abandoned and nothing of it is booked; finished hands stay in your history."
        }
        T::LeaveAskLan => {
            "Leave this table? You are booked as the leaver of the hand in play ({0} × the stake, paid to the others) and a bot takes your seat."
        }
        T::LeaveYes => "Leave",
        T::LeaveNo => "Stay",
        T::NotWinningSeat => "{0}'s hand does not win under {1}: {2}",
        T::UnwinNotDeclared => {
            "the seat had not declared ready (敲), which these rules need to win"
        }
        T::UnwinNotAType => "four sets and a pair, but not one of the winning types",
        T::UnwinNotStandard => "not four sets and a pair",
        T::UnwinNotStandardWild => "not four sets and a pair, even with the wildcards",
        T::UnwinNoType => "no winning type",
        T::ScoreInvalid => "The hand as entered cannot happen",
        T::RsNothing => "nothing to decide now",
        T::RsRandom => "a random legal action",
        T::RsWin => "win: passing would bar this tile (漏胡)",
        T::RsFlower => "set the flower aside and draw a replacement",
        T::RsNoFlower => "no flower left to set aside",
        T::RsNothingToClaim => "nothing to claim",
        T::RsReadyDrawn => "declared ready: discard the drawn tile",
        T::RsOnlyDiscard => "the only discard",
        T::RsOnlyAction => "the only legal action",
        T::RsFallback => "nothing better to do",
        T::RsAnyKong => "a kong: more flowers and a replacement draw",
        T::RsCannotWin => "this hand cannot win any more",
        T::RsReady => "ready",
        T::RsReadyOn => "ready on {0} ({1} live)",
        T::RsAwayOne => "1 tile from ready",
        T::RsAway => "{0} tiles from ready",
        T::RsPlan => "going for {0}; {1}",
        T::RsDiscard => "{0}; discard {1}",
        T::RsDeclare => "declare ready (敲) discarding {0}: {1}",
        T::RsConcealedKong => "concealed kong of {0}: flowers and a replacement draw; {1}",
        T::RsAddedKong => "add {0} to the pung: a flower and a replacement draw; {1}",
        T::RsClaimChow => "chow {0} from {1}: {2}",
        T::RsClaimPung => "pung {0} from {1}: {2}",
        T::RsClaimKong => "kong {0} from {1}: {2}",
        T::RsPass => "pass on {0}: {1}",
        T::RsPassUseless => "pass on {0}: it does not help",
        T::RsSwapKeep => "swap: keep the hand ({0})",
        T::RsPlayOnRun => {
            "pass up this win ({0} points a seat): discard {1} and keep a wildcard alone, so any tile wins (跑百搭, double) — about {2} points a seat"
        }
        T::RsPlayOnRunHint => {
            "pass up this win ({0} points a seat) and keep a wildcard alone, so any tile wins (跑百搭, double) — about {2} points a seat"
        }
        T::RsPlayOnBigger => {
            "pass up this win ({0} points a seat): discard {1} and wait for a bigger one — about {2} points a seat"
        }
        T::RsPlayOnBiggerHint => {
            "pass up this win ({0} points a seat) and wait for a bigger one — about {2} points a seat"
        }
        T::RsPlayOnKong => {
            "kong {1} before winning: any tile wins, so the replacement draw wins, and doubles as a win on a kong's draw (杠开) — about {2} points a seat instead of {0}"
        }
        T::RsPlayOnKongHint => {
            "kong before winning: any tile wins, so the replacement draw wins, and doubles as a win on a kong's draw (杠开) — about {2} points a seat instead of {0}"
        }
        T::RsSwapPutBack => "swap: {0}; put back the five weakest, {1}",
        T::RsBinding => " — keeping {0}: one more claim on it would bind us (承包)",
        T::RsSafe => " — playing safe: {0} may win for {1}; {2} is safer",
        T::RsDangerous => " — {0} is more dangerous: {1}",
        T::RsDangerousBare => " — {0} is more dangerous",
        T::ThDeclared => "{0} declared ready",
        T::ThClose => "{0} looks close to a win",
        T::ThFlush => "{0}, likely a flush in {1}",
        T::ThPungs => "{0}, likely all pungs",
        T::TgInSuit => "{0} in {1}",
        T::TgFlushPungs => "a flush of pungs (混碰/清碰) in {0}",
        T::TgStandard => "a standard hand",
        T::SuitChars => "characters",
        T::SuitDots => "dots",
        T::SuitBamboo => "bamboo",
        T::ReviewButton => "Review",
        T::ReviewTitle => "Review of hand {0}",
        T::ReviewLoading => {
            "Rebuilding the hand and asking the master computer player at each of your decisions…"
        }
        T::ReviewSummary => "You made {0} decisions and {1} mistakes: {2}.",
        T::ReviewNoMistake => "You made {0} decisions and no mistake.",
        T::ReviewSame => "The master computer player would have chosen as you did every time.",
        T::ReviewEqual => {
            "Different from the master computer player's choice but as good: {0} times."
        }
        T::CostMissedWin => "{0} times a win not taken",
        T::CostFurther => "{0} times further from ready",
        T::CostFewerWins => "{0} times fewer winning tiles",
        T::CostFewerUseful => "{0} times fewer tiles that help",
        T::CostRiskier => "{0} times a riskier discard",
        T::WhyMissedWin => "You could win here and did not.",
        T::WhyFurther => "After your choice: {0}; after the master's: {1}.",
        T::WhyFewerWins => {
            "Both choices are ready, but yours wins on {0} tiles still live and the master's on {1}."
        }
        T::WhyFewerUseful => {
            "Both choices leave the hand {0}, but {1} live tiles would help yours and {2} the master's."
        }
        T::WhyRiskier => "Your discard wins for another seat {0}% of the time; the master's {1}%.",
        T::ReviewYours => "Your choice",
        T::ReviewBots => "Master computer player",
        T::ReviewTurnAt => "Move {0}: your turn",
        T::ReviewClaimAt => "Move {0}: {1} discarded {2}",
        T::ReviewRobAt => "Move {0}: {1} added {2} to a kong",
        T::ReviewSwapAt => "Move {0}: the swap",
        T::ReviewAfter => "After it: {0}",
        T::ReviewWins => "Winning tiles: {0}",
        T::ReviewWaitCount => "{0} ({1} left)",
        T::ReviewDanger => "Chance it wins for another seat: {0}%",
        T::ReviewWhy => "Why: {0}",
        T::ReviewBack => "Back",
        T::ChDiscard => "discard {0}",
        T::ChReady => "declare ready, discard {0}",
        T::ChChow => "chow {0}",
        T::ChPung => "pung {0}",
        T::ChKong => "kong {0}",
        T::ChConcealedKong => "concealed kong of {0}",
        T::ChAddedKong => "add {0} to the pung",
        T::ChWin => "win",
        T::ChPass => "pass",
        T::ChSwap => "put back {0}",
        T::ChKeep => "keep the hand",
        T::ChFlower => "set {0} aside",
        T::ChLeave => "leave the table",
        T::ReviewTimedOut => "(played by the timer)",
        T::MotionOn => "Motion on",
        T::MotionOff => "Motion reduced",
        T::MeldFrom => "{1} from {0}",
        T::ReFull => "{0} cannot be written: the disk is full",
        T::ReDenied => "No permission to read or write {0} (or the disk is read-only)",
        T::ReNotFound => "{0} (or its folder) does not exist",
        T::ReNotAFolder => "{0} cannot be written: a folder on its path is a file",
        T::ReIsFolder => "{0} is a folder, not a file",
        T::ReFileOther => "{0} cannot be read or written",
        T::ReCorrupt => "The records file {0} is damaged or is not this program's",
        T::ReNewer => {
            "The records file {0} was written by a newer version of this program: please upgrade"
        }
        T::ReOtherIdentity => {
            "The records file {0} belongs to another identity: the key or the records were replaced"
        }
        T::ReDamaged => {
            "A record cannot be read: the records file was changed outside this program"
        }
        T::ReInUse => "The data folder is in use by another copy of this program",
        T::ReNoStore => "There are no records yet",
        T::ReNoTable => "This table is not in the records",
        T::ReNoSeat => "You had no seat at this table, so there is no record of yours",
        T::ReNoHand => "Hand {0} is not in the records",
        T::ReNotInLog => "The stored record does not reach the end of hand {0}",
        T::ReStore => "The records file failed",
        T::RpNoSetup => "This table's record is incomplete: its set-up is missing",
        T::RpNoAudit => {
            "Hand {0} ended before its deal was revealed, so its deal cannot be rebuilt"
        }
        T::RpDisagree => "Hand {0}'s record does not give its booked result",
        T::FlNotKept => "This hand cannot be kept in the history: {0}",
        T::FlThread => "The table stopped running",
        T::FlStart => "This table cannot start",
        T::FlHalted => "The table stopped",
        T::ReviewCannot => "This hand cannot be reviewed: {0}.",
        T::UnNoSeat => "you had no seat at this table, so there is no record to check",
        T::UnNotInLog => "this hand's steps are not in the stored record",
        T::CheckLedgerDiffers => "the booked result is not the one the replay gives",
        T::CheckFaultAt => "the record fails at step {0}",
        T::CheckFaultLog => "the record fails",
        T::VeUnreadable => "The file cannot be read as a hand's log or evidence",
        T::VeBadFrame => "Step {0}: entry {1} does not decode: the file was altered",
        T::VeHeader => "The file's header contradicts its signed log: the file was altered",
        T::VeResult => {
            "Hand {0}: the file's result is not the one the seats signed: the file was altered"
        }
        T::VeProven => "Proven by the evidence: {0}; culprit {1}, key {2}",
        T::VeEvidence => "The evidence proves nothing",
        T::VeSeat => "player {0}",
        T::LfNoSetup => "The log does not start with the host's proposal",
        T::LfEmptyStep => "Step {0} is empty",
        T::LfGap => {
            "Step {0}: {1}'s entry is for step {2} of hand {3}: a step is missing or out of place"
        }
        T::LfWrongTable => "Step {0}: {1}'s entry is for another table",
        T::LfChain => {
            "Step {0}: {1}'s entry does not follow the hash chain (the log before it was altered)"
        }
        T::LfSignature => {
            "Step {0}: {1}'s signature does not verify (the entry was altered or is not theirs)"
        }
        T::LfUnexpected => {
            "Step {0}: {1} is not expected to speak here (or twice, or out of order)"
        }
        T::LfMissing => "Step {0}: the entries of {1} are missing",
        T::LfAfterEnd => "Step {0}: the table was already over",
        T::LfFault => "Step {0}: {1} is at fault: {2}",
        T::LfAbort => "Step {0}: the abort votes do not hold",
        T::LfInternal => "Step {0}: the replay failed",
        T::NetDetailInLog => "the details are in mahjong.log",
        T::NetTitle => "Play over the internet",
        T::NetRelay => "The relay's address (the line the relay printed)",
        T::NetCode => "Table code (the same for all the friends)",
        T::NetNewCode => "New code",
        T::NetMeet => "Meet",
        T::NetMeeting => "Table code {0}: tell it to your friends",
        T::NetRelayUp => "Reachable through the relay",
        T::NetRelayDown => "Reaching the relay…",
        T::NetLinks => "Friends: {0} linked directly, {1} through the relay",
        T::LinkDirect => "direct link",
        T::LinkRelayed => "via the relay",
        T::NetBadCode => "A table code has 8 letters or digits, such as the one New code makes",
        T::NetBadRelay => "Not a relay's address: paste the whole line the relay printed",
        // Table talk.
        T::TalkTitle => "Table talk",
        T::TalkWatching => "Watching: {0}",
        T::TalkTurnAway => "{0} ×",
        T::TalkTurnAwayTip => {
            "Turn {0} away: they stop watching this table and cannot come back to it"
        }
        T::TalkWatchingQuiet => "Watching: {0} (watchers may not talk at this table)",
        T::TalkWatcherTag => " (watching)",
        T::TalkPlaceholder => "Say something…",
        T::TalkSend => "Send",
        T::TalkMuteTip => "Mute {0}: their lines are no longer shown",
        T::TalkMutedChip => "Muted: {0} ×",
        T::TalkUnmuteTip => "Unmute {0}",
        T::TalkNobody => "Nobody has said anything yet.",
        T::TalkHurry => "Hurry up!",
        T::TalkNiceHand => "Nice hand!",
        T::TalkSorry => "Sorry!",
        T::TalkWellPlayed => "Well played",
        T::TalkOneMore => "One more?",
        T::TalkThumbsUp => "Thumbs up",
        T::TalkLaugh => "Ha ha",
        T::TalkTooMany => "Not sent: at most {0} lines in {1} seconds",
        T::TalkTooLong => "Not sent: a line holds at most {0} characters",
        T::TalkWatchersQuiet => "Not sent: watchers may not talk at this table",
        T::TalkNotAtTable => "Not sent: the table is over",
        T::TalkNotSent => "Not sent: {0}",
        T::TalkMuteUnsaved => {
            "The mute could not be saved in the data folder: it lasts until you quit"
        }
        // (end of the keys)
        T::Lezi => "lezi",
    }
}
