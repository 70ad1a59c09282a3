//! Exports of a table's signed log, evidence files, and their offline verification.
//!
//! **Log file** (`mahjong export`): one JSON object, self-contained:
//!
//! ```json
//! {"format": "shanghai-mahjong-log", "version": 1, "table": "<hex>", "hand": null,
//!  "host": 0, "roster": ["<public key hex>", …], "names": ["Ann", "Bo", "Cy", "Di"],
//!  "steps": [["<envelope hex>", …], …],
//!  "results": [{…HandResult…}, …]}
//! ```
//!
//! `steps` is the table's log from the host's proposal on, each step's envelopes in seat
//! order, each envelope as its exact signed frame (postcard, hex): the proposal names the
//! four public keys, so the file needs nothing else to be checked (`host` and `roster`
//! repeat it for the reader, and must agree with it). `results` are the
//! results this player's ledger booked (readable: outcome, payments in coins, the session
//! after the hand); they are claims that verification checks against the signed replay, hand
//! by hand (a hand the ledger missed is simply not claimed; the replay still reports it).
//! `names` are the seats' display names: each seat signs its own at the table's set-up (the
//! host with its proposal, the others with their acceptance, [`mahjong_table::signed_names`]),
//! so a file whose names differ from the signed ones is refused with the seat named; a table
//! from before names were signed (protocol 2) has none, and its names are only shown, marked
//! "not signed". With `hand: N` the file holds the log up to the end
//! of hand N only: a hand cannot be checked without the hands before it (the dealer, the 荒番
//! counter, the balances and any replaced seat come from them), so "one hand" is the shortest
//! verifiable prefix, and the report is about that hand.
//!
//! **Evidence file**: `{"format": "shanghai-mahjong-evidence", "version": 1, "table": …,
//! "names": …, "steps": [...], "charge": {"equivocation": [a, b]} | {"step": [...]}}`, the
//! [`Evidence`] record of a seat proven at fault in the same frame encoding.
//!
//! **Verification** ([`verify_bytes`], [`verify_file`]) replays the log offline with
//! [`mahjong_table::verify_log`] (every signature, the hash chain, each step's speakers, every
//! deal proof, each hand's deal audit and full replay through the rules, every settlement and
//! abort), then checks the file's claimed results against the replay. An evidence file is
//! checked with [`Evidence::verify`]. The outcome is what was checked ([`Checked`]) or the
//! first fault ([`VerifyError`]), with the seat to blame where a seat's own signed message
//! proves it; [`VerifyError::Unreadable`] is kept apart (not a file of this program at all).

use std::fmt;
use std::path::Path;

use mahjong_rules::{Money, Seat};
use mahjong_table::{
    Charge, Envelope, Evidence, EvidenceError, HandResult, LogFault, LogReport, Offence,
    StepRecord, verify_log,
};
use serde::{Deserialize, Serialize};

use crate::db::Store;
use crate::error::StoreError;
use crate::hex::{from_hex, from_hex32, to_hex};
use crate::ledger::describe;
use crate::names::clean_name;

/// `format` of a log file.
pub const LOG_FORMAT: &str = "shanghai-mahjong-log";

/// `format` of an evidence file.
pub const EVIDENCE_FORMAT: &str = "shanghai-mahjong-evidence";

/// The file format version.
pub const FILE_VERSION: u32 = 1;

/// Largest file [`verify_file`] reads (a long session's log is a few tens of MB).
pub const MAX_FILE_BYTES: u64 = 1 << 30;

/// A log file (see the module header).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LogFile {
    /// [`LOG_FORMAT`].
    pub format: String,
    /// [`FILE_VERSION`].
    pub version: u32,
    /// The table id (hex).
    pub table: String,
    /// The hand the file is about (the log ends with it), or `None` for the whole log.
    pub hand: Option<u32>,
    /// The host seat (as the signed proposal says).
    pub host: u8,
    /// The four seats' public keys, hex (as the signed proposal says).
    pub roster: Vec<String>,
    /// Display names per seat (not signed).
    pub names: Vec<String>,
    /// Each step's envelopes, as hex frames.
    pub steps: Vec<Vec<String>>,
    /// The results the exporting player booked.
    pub results: Vec<HandResult>,
}

/// The charge of an evidence file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChargeFrames {
    /// Two envelopes of one seat for one step.
    Equivocation([String; 2]),
    /// The offending step's entries.
    Step(Vec<String>),
}

/// An evidence file (see the module header).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EvidenceFile {
    /// [`EVIDENCE_FORMAT`].
    pub format: String,
    /// [`FILE_VERSION`].
    pub version: u32,
    /// The table id (hex).
    pub table: String,
    /// Display names per seat (not signed).
    pub names: Vec<String>,
    /// The log up to the offence, as hex frames.
    pub steps: Vec<Vec<String>>,
    /// The offence.
    pub charge: ChargeFrames,
}

fn frames(log: &[StepRecord]) -> Vec<Vec<String>> {
    log.iter()
        .map(|rec| rec.entries.iter().map(|e| to_hex(&e.encode())).collect())
        .collect()
}

/// The log of `log` through the end of hand `hand` (its settlement or abort votes).
pub fn log_through_hand(log: &[StepRecord], hand: u32) -> Option<&[StepRecord]> {
    let end = log.iter().rposition(|rec| {
        rec.hand() == Some(hand)
            && (rec.is_abort() || rec.entries.iter().all(|e| e.settle().is_some()))
    })?;
    Some(&log[..=end])
}

impl LogFile {
    /// A log file of `log` with the claimed `results` and `names`.
    pub fn new(
        table: &[u8; 32],
        hand: Option<u32>,
        names: &[String],
        log: &[StepRecord],
        results: Vec<HandResult>,
    ) -> LogFile {
        let proposal = log
            .first()
            .and_then(|r| r.entries.first())
            .and_then(|e| e.body.proposal());
        // The names each seat signed at the set-up, where it signed one.
        let signed = mahjong_table::signed_names(log);
        let names: Vec<String> = (0..4)
            .map(|s| {
                signed[s]
                    .clone()
                    .or_else(|| names.get(s).cloned())
                    .unwrap_or_default()
            })
            .collect();
        LogFile {
            format: LOG_FORMAT.into(),
            version: FILE_VERSION,
            table: to_hex(table),
            hand,
            host: proposal.map_or(0, |p| p.host),
            roster: proposal
                .map(|p| p.roster.iter().map(|k| to_hex(k.as_bytes())).collect())
                .unwrap_or_default(),
            names: clean_names(&names),
            steps: frames(log),
            results,
        }
    }

    /// The file's bytes (pretty JSON would triple the size: one line).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = serde_json::to_vec(self).unwrap_or_default();
        bytes.push(b'\n');
        bytes
    }
}

impl EvidenceFile {
    /// An evidence file of `evidence`.
    pub fn new(table: &[u8; 32], names: &[String], evidence: &Evidence) -> EvidenceFile {
        let charge = match &evidence.charge {
            Charge::Equivocation { first, second } => {
                ChargeFrames::Equivocation([to_hex(&first.encode()), to_hex(&second.encode())])
            }
            Charge::Step { entries } => {
                ChargeFrames::Step(entries.iter().map(|e| to_hex(&e.encode())).collect())
            }
        };
        EvidenceFile {
            format: EVIDENCE_FORMAT.into(),
            version: FILE_VERSION,
            table: to_hex(table),
            names: clean_names(names),
            steps: frames(&evidence.log),
            charge,
        }
    }

    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = serde_json::to_vec(self).unwrap_or_default();
        bytes.push(b'\n');
        bytes
    }
}

impl Store {
    /// The export of a stored table's log (whole, or through the end of hand `hand`), from
    /// the journal of its first local seat, with the ledger's results.
    pub fn export(&self, table: &[u8; 32], hand: Option<u32>) -> Result<LogFile, StoreError> {
        let info = self
            .table(table)?
            .ok_or_else(|| StoreError::UnknownTable(to_hex(table)))?;
        let seat = info
            .seats
            .iter()
            .find(|s| s.bot_key.is_none())
            .or(info.seats.first())
            .ok_or_else(|| StoreError::UnknownSeat {
                table: to_hex(table),
                seat: 0,
            })?
            .config
            .seat;
        let persisted = self
            .persisted(table, seat)?
            .ok_or_else(|| StoreError::UnknownSeat {
                table: to_hex(table),
                seat,
            })?;
        let log = match hand {
            Some(h) => log_through_hand(&persisted.log, h).ok_or_else(|| StoreError::NotFinal {
                table: to_hex(table),
                hand: h,
                why: "the log does not hold its end".into(),
            })?,
            None => &persisted.log[..],
        };
        let last_hand = log.last().and_then(StepRecord::hand).unwrap_or(0);
        let results = self
            .ledger_of(table)?
            .into_iter()
            .filter(|r| r.hand <= last_hand && hand.is_none_or(|h| r.hand <= h))
            .map(|r| r.result)
            .collect();
        Ok(LogFile::new(table, hand, &info.names, log, results))
    }

    /// The evidence file of a table's `index`-th evidence record (0: the first).
    pub fn export_evidence(
        &self,
        table: &[u8; 32],
        index: usize,
    ) -> Result<Option<EvidenceFile>, StoreError> {
        let names = self
            .table(table)?
            .map(|t| t.names.to_vec())
            .unwrap_or_default();
        Ok(self
            .evidence(table)?
            .get(index)
            .map(|e| EvidenceFile::new(table, &names, e)))
    }
}

/// What a verification checked.
#[derive(Clone, Debug, PartialEq)]
pub enum Checked {
    /// A log file that replays without fault.
    Log(LogCheck),
}

/// A verified log file.
#[derive(Clone, Debug, PartialEq)]
pub struct LogCheck {
    /// Each seat's display name: the one it signed, else the file's.
    pub names: Vec<String>,
    /// Which seats signed their name (all four at a table from protocol 2 on).
    pub signed: [bool; 4],
    /// The hand the file is about, if it was exported for one.
    pub hand: Option<u32>,
    /// What the replay checked.
    pub report: LogReport,
    /// Claimed results checked against the replay.
    pub results_checked: usize,
}

/// Why a file does not verify.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VerifyError {
    /// Not a file of this program (unreadable, not JSON, another format or version).
    Unreadable(String),
    /// An envelope of the file that does not decode (the file was altered).
    BadFrame {
        /// The step (or, for an evidence charge, the charge's place).
        step: usize,
        /// The entry within the step.
        entry: usize,
        /// Why.
        why: String,
    },
    /// The header contradicts the signed log.
    Header(String),
    /// The replay found a fault.
    Log {
        /// The fault.
        fault: LogFault,
        /// Display names from the file.
        names: Vec<String>,
    },
    /// A seat's name in the file is not the one its key signed at the set-up.
    Name {
        /// The seat.
        seat: Seat,
        /// The name the file gives it (`None`: none, or removed).
        file: Option<String>,
        /// The name it signed.
        signed: String,
    },
    /// The file's claimed result of a hand is not the one its seats signed.
    Result {
        /// The hand.
        hand: u32,
        /// What differs.
        why: String,
    },
    /// An evidence file that proves a seat at fault.
    Proven {
        /// The seat.
        seat: Seat,
        /// Its name, if the file gives it.
        name: Option<String>,
        /// Its key (hex).
        key: String,
        /// What it did.
        offence: Offence,
    },
    /// An evidence file that proves nothing.
    Evidence(EvidenceError),
}

impl VerifyError {
    /// The seat to blame: the seat whose own signed message proves the fault.
    pub fn culprit(&self) -> Option<Seat> {
        match self {
            VerifyError::Log { fault, .. } => fault.culprit(),
            VerifyError::Proven { seat, .. } => Some(*seat),
            _ => None,
        }
    }

    /// Whether the input was not a file of this program at all (rather than a file with a
    /// fault).
    pub fn is_unreadable(&self) -> bool {
        matches!(self, VerifyError::Unreadable(_))
    }
}

/// Display names as written to or read from a file: cleaned ([`clean_name`]), at most four.
fn clean_names(names: &[String]) -> Vec<String> {
    names.iter().take(4).map(|n| clean_name(n)).collect()
}

fn seat_name(names: &[String], seat: Seat) -> String {
    match names.get(seat as usize) {
        Some(n) => format!("seat {seat} ({})", clean_name(n)),
        None => format!("seat {seat}"),
    }
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VerifyError::Unreadable(why) => write!(f, "unreadable: {why}"),
            VerifyError::BadFrame { step, entry, why } => write!(
                f,
                "FAULT at step {step}: entry {entry} does not decode ({why}): the file was altered; no seat to blame"
            ),
            VerifyError::Header(why) => {
                write!(f, "FAULT in the file header: {why}; no seat to blame")
            }
            VerifyError::Log { fault, names } => {
                write!(f, "FAULT at {fault}")?;
                match fault.culprit() {
                    Some(seat) => write!(
                        f,
                        "; blame {} (proven by its own signed entry)",
                        seat_name(names, seat)
                    ),
                    None => write!(f, "; no seat to blame: the file was altered or cut"),
                }
            }
            VerifyError::Name { seat, file, signed } => match file {
                Some(name) => write!(
                    f,
                    "FAULT in the names: the file names seat {seat} \"{}\" but the name its key signed is \"{}\"; no seat to blame: the file was altered",
                    clean_name(name),
                    clean_name(signed)
                ),
                None => write!(
                    f,
                    "FAULT in the names: the file gives seat {seat} no name but its key signed \"{}\"; no seat to blame: the file was altered",
                    clean_name(signed)
                ),
            },
            VerifyError::Result { hand, why } => write!(
                f,
                "FAULT in hand {hand}: the file's result is not the one the seats signed ({why}); no seat to blame: the file was altered"
            ),
            VerifyError::Proven {
                seat,
                name,
                key,
                offence,
            } => {
                let who = match name {
                    Some(n) => format!("seat {seat} ({})", clean_name(n)),
                    None => format!("seat {seat}"),
                };
                write!(
                    f,
                    "FAULT proven by the evidence: {offence}; blame {who}, key {key}"
                )
            }
            VerifyError::Evidence(e) => write!(f, "the evidence proves nothing: {e}"),
        }
    }
}

impl std::error::Error for VerifyError {}

fn money_list(payments: &[Money; 4]) -> String {
    let p: Vec<String> = payments.iter().map(Money::to_string).collect();
    format!("[{}]", p.join(", "))
}

impl fmt::Display for LogCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = &self.report;
        let p = &r.proposal;
        writeln!(
            f,
            "verified table {}: {}, stake {}, host seat {}",
            to_hex(&r.table),
            p.preset.name(),
            p.stake,
            p.host
        )?;
        for (seat, key) in p.roster.iter().enumerate() {
            writeln!(
                f,
                "  {}: key {}{}",
                seat_name(&self.names, seat as Seat),
                to_hex(key.as_bytes()),
                if self.signed[seat] {
                    ", name signed"
                } else {
                    ""
                }
            )?;
        }
        if !self.signed.iter().any(|s| *s) {
            writeln!(
                f,
                "  names: not signed (table from before protocol 2): the names are the file's"
            )?;
        }
        writeln!(
            f,
            "  signatures: {} envelopes, each valid under its seat's key",
            r.signatures
        )?;
        writeln!(
            f,
            "  hash chain: {} steps linked from the table's genesis, head {}",
            r.steps,
            to_hex(&r.head)
        )?;
        for h in &r.hands {
            if self.hand.is_some_and(|only| only != h.hand) {
                continue;
            }
            let id = h
                .hand_id
                .map_or_else(|| "none".to_string(), |id| to_hex(&id));
            let checks = if h.audited {
                format!(
                    "deal audited, {} play entries (moves and claim answers) replayed through \
                     the rules with full knowledge",
                    h.moves
                )
            } else {
                format!(
                    "{} play entries (moves and claim answers) replayed through the rules",
                    h.moves
                )
            };
            let final_by = match h.aborted_by {
                Some(seat) => format!(
                    "aborted, {} named by the 3 votes of the others",
                    seat_name(&self.names, seat)
                ),
                None => "settled by 4 signatures".to_string(),
            };
            writeln!(
                f,
                "  hand {} (id {id}): {checks}; {}; payments {}; {final_by}",
                h.hand,
                describe(&h.result),
                money_list(&h.result.payments)
            )?;
        }
        if let Some(open) = r.open_hand {
            writeln!(f, "  hand {open} is in progress at the end of the log")?;
        }
        write!(
            f,
            "  results: {} of {} finished hands claimed in the file, each the one the seats signed",
            self.results_checked,
            r.hands.len()
        )
    }
}

fn unreadable(why: impl Into<String>) -> VerifyError {
    VerifyError::Unreadable(why.into())
}

fn decode_frame(hex: &str, step: usize, entry: usize) -> Result<Envelope, VerifyError> {
    let bad = |why: String| VerifyError::BadFrame { step, entry, why };
    let bytes = from_hex(hex).ok_or_else(|| bad("not hex".into()))?;
    Envelope::decode(&bytes).map_err(|e| bad(e.to_string()))
}

fn decode_steps(steps: &[Vec<String>]) -> Result<Vec<StepRecord>, VerifyError> {
    steps
        .iter()
        .enumerate()
        .map(|(s, entries)| {
            let entries = entries
                .iter()
                .enumerate()
                .map(|(i, hex)| decode_frame(hex, s, i))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(StepRecord { entries })
        })
        .collect()
}

/// Reads and verifies a log or evidence file (see the module header).
pub fn verify_file(path: &Path) -> Result<Checked, VerifyError> {
    let meta =
        std::fs::metadata(path).map_err(|e| unreadable(format!("{}: {e}", path.display())))?;
    if meta.len() > MAX_FILE_BYTES {
        return Err(unreadable(format!(
            "{}: {} bytes, more than any export",
            path.display(),
            meta.len()
        )));
    }
    let bytes = std::fs::read(path).map_err(|e| unreadable(format!("{}: {e}", path.display())))?;
    verify_bytes(&bytes)
}

/// Verifies the bytes of a log or evidence file.
pub fn verify_bytes(bytes: &[u8]) -> Result<Checked, VerifyError> {
    #[derive(Deserialize)]
    struct Head {
        format: String,
        version: u32,
    }
    let head: Head = serde_json::from_slice(bytes)
        .map_err(|e| unreadable(format!("not a mahjong log or evidence file: {e}")))?;
    if head.version != FILE_VERSION {
        return Err(unreadable(format!(
            "file version {} is not supported (this program reads version {FILE_VERSION})",
            head.version
        )));
    }
    match head.format.as_str() {
        LOG_FORMAT => {
            let file: LogFile = serde_json::from_slice(bytes)
                .map_err(|e| unreadable(format!("malformed log file: {e}")))?;
            verify_log_file(&file).map(Checked::Log)
        }
        EVIDENCE_FORMAT => {
            let file: EvidenceFile = serde_json::from_slice(bytes)
                .map_err(|e| unreadable(format!("malformed evidence file: {e}")))?;
            Err(verify_evidence_file(&file))
        }
        other => Err(unreadable(format!("unknown file format {other:?}"))),
    }
}

/// Verifies a parsed log file.
pub fn verify_log_file(file: &LogFile) -> Result<LogCheck, VerifyError> {
    let table = from_hex32(&file.table)
        .ok_or_else(|| VerifyError::Header("the table id is not 32 bytes of hex".into()))?;
    let log = decode_steps(&file.steps)?;
    let report = verify_log(&log).map_err(|fault| VerifyError::Log {
        fault,
        names: clean_names(&file.names),
    })?;
    if report.table != table {
        return Err(VerifyError::Header(format!(
            "the header names table {} but the log is table {}",
            file.table,
            to_hex(&report.table)
        )));
    }
    let roster: Vec<String> = report
        .proposal
        .roster
        .iter()
        .map(|k| to_hex(k.as_bytes()))
        .collect();
    if file.roster != roster || file.host != report.proposal.host {
        return Err(VerifyError::Header(
            "the roster or host differs from the signed proposal".into(),
        ));
    }
    // Each name a seat signed must be the file's name for it.
    let signed = mahjong_table::signed_names(&log);
    let mut names = clean_names(&file.names);
    for (seat, name) in signed.iter().enumerate() {
        let Some(name) = name else { continue };
        let shown = clean_name(name);
        match names.get(seat) {
            Some(n) if *n == shown => {}
            other => {
                return Err(VerifyError::Name {
                    seat: seat as Seat,
                    file: other
                        .filter(|n| !n.is_empty() && n.as_str() != crate::names::NO_NAME)
                        .cloned(),
                    signed: name.clone(),
                });
            }
        }
        names[seat] = shown;
    }
    if let Some(h) = file.hand
        && report.hands.last().map(|r| r.hand) != Some(h)
    {
        return Err(VerifyError::Header(format!(
            "the file is for hand {h} but the log does not end with it"
        )));
    }
    let mut claimed_hands = std::collections::BTreeSet::new();
    for claimed in &file.results {
        if !claimed_hands.insert(claimed.hand) {
            return Err(VerifyError::Result {
                hand: claimed.hand,
                why: "the file claims two results for it".into(),
            });
        }
    }
    for claimed in &file.results {
        let Some(replayed) = report.hands.iter().find(|h| h.hand == claimed.hand) else {
            return Err(VerifyError::Result {
                hand: claimed.hand,
                why: "the log does not finish that hand".into(),
            });
        };
        let signed = &replayed.result;
        if claimed != signed {
            let why = if claimed.payments != signed.payments {
                // Each player whose payment differs, by name: what the file says, what the
                // four signed.
                let differ: Vec<String> = (0..4u8)
                    .filter(|&s| claimed.payments[s as usize] != signed.payments[s as usize])
                    .map(|s| {
                        format!(
                            "{} {} in the file, {} signed",
                            seat_name(&file.names, s),
                            claimed.payments[s as usize],
                            signed.payments[s as usize]
                        )
                    })
                    .collect();
                format!(
                    "payments differ: {} (the file {}, signed {})",
                    differ.join("; "),
                    money_list(&claimed.payments),
                    money_list(&signed.payments)
                )
            } else if claimed.outcome != signed.outcome {
                format!(
                    "outcome \"{}\" in the file, \"{}\" signed",
                    describe(claimed),
                    describe(signed)
                )
            } else {
                "the session after the hand differs".into()
            };
            return Err(VerifyError::Result {
                hand: signed.hand,
                why,
            });
        }
    }
    Ok(LogCheck {
        names,
        signed: signed.map(|n| n.is_some()),
        hand: file.hand,
        results_checked: file.results.len(),
        report,
    })
}

/// Verifies a parsed evidence file: [`VerifyError::Proven`] when it proves a seat at fault.
pub fn verify_evidence_file(file: &EvidenceFile) -> VerifyError {
    let log = match decode_steps(&file.steps) {
        Ok(log) => log,
        Err(e) => return e,
    };
    let charge = match &file.charge {
        ChargeFrames::Equivocation([a, b]) => {
            let first = match decode_frame(a, file.steps.len(), 0) {
                Ok(e) => e,
                Err(e) => return e,
            };
            let second = match decode_frame(b, file.steps.len(), 1) {
                Ok(e) => e,
                Err(e) => return e,
            };
            Charge::Equivocation {
                first: Box::new(first),
                second: Box::new(second),
            }
        }
        ChargeFrames::Step(entries) => {
            let mut decoded = Vec::new();
            for (i, hex) in entries.iter().enumerate() {
                match decode_frame(hex, file.steps.len(), i) {
                    Ok(e) => decoded.push(e),
                    Err(e) => return e,
                }
            }
            Charge::Step { entries: decoded }
        }
    };
    match (Evidence { log, charge }).verify() {
        Ok(culprit) => VerifyError::Proven {
            seat: culprit.seat,
            name: file.names.get(culprit.seat as usize).cloned(),
            key: to_hex(culprit.key.as_bytes()),
            offence: culprit.offence,
        },
        Err(e) => VerifyError::Evidence(e),
    }
}
