//! A seat's journal: appending records (durable before the frames they allow are sent),
//! reading it back whole or from its last checkpoint, older steps for a client that keeps
//! its log in the store, and restoring a seat's client.

use sha2::{Digest, Sha256};

use super::*;

impl Store {
    // ---- journal ----

    /// Appends a seat's journal records (one [`mahjong_table::Output::journal`]) in one
    /// transaction. A batch holding a `Record::Own` is committed with `synchronous=FULL`:
    /// when this returns it is on disk, and the output's frames may be sent.
    pub fn append(&self, table: &[u8; 32], seat: u8, records: &[Record]) -> Result<(), StoreError> {
        if records.is_empty() {
            return Ok(());
        }
        let durable = records.iter().any(|r| matches!(r, Record::Own(_)));
        if durable {
            self.conn
                .pragma_update(None, "synchronous", "FULL")
                .map_err(StoreError::sql("set synchronous=FULL"))?;
        }
        let result = self.append_tx(table, seat, records);
        if durable {
            self.conn
                .pragma_update(None, "synchronous", "NORMAL")
                .map_err(StoreError::sql("set synchronous=NORMAL"))?;
        }
        result
    }

    pub(super) fn append_tx(
        &self,
        table: &[u8; 32],
        seat: u8,
        records: &[Record],
    ) -> Result<(), StoreError> {
        let tx = self
            .conn
            .unchecked_transaction()
            .map_err(StoreError::sql("begin"))?;
        {
            let mut stmt = tx
                .prepare_cached(
                    "INSERT INTO journal (table_id, seat, record, checkpoint) \
                     VALUES (?1, ?2, ?3, ?4)",
                )
                .map_err(StoreError::sql("append to the journal"))?;
            for record in records {
                let bytes = encode_record(table, record)?;
                let checkpoint = match record {
                    Record::Checkpoint(cp) => Some(cp.seq),
                    _ => None,
                };
                stmt.execute(params![&table[..], seat, bytes, checkpoint])
                    .map_err(StoreError::sql("append to the journal"))?;
            }
        }
        for record in records {
            if let Record::Checkpoint(cp) = record {
                prune_own(&tx, table, seat, cp.hand)?;
                pack_last_hand(&tx, table, seat)?;
                slim_previous_checkpoint(&tx, table, seat)?;
            }
        }
        tx.commit().map_err(StoreError::sql("commit the journal"))
    }

    /// The journal of a local seat folded into what [`Client::restore`] takes; `None` when
    /// the table or the seat is not in the store.
    pub fn persisted(&self, table: &[u8; 32], seat: u8) -> Result<Option<Persisted>, StoreError> {
        let Some(local) = self.local_seat(table, seat)? else {
            return Ok(None);
        };
        let mut persisted = Persisted::new(local.config, local.root);
        self.each_record(table, seat, 0, |_, record| {
            persisted.apply(record);
        })?;
        Ok(Some(persisted))
    }

    /// [`Store::persisted`] from the seat's last checkpoint on: the steps before it are left
    /// out ([`Persisted::base`]), so a restore reads and hashes only the current hand however
    /// long the session; the client asks for older steps when it needs them
    /// ([`mahjong_table::Output::load`], answered by [`Store::steps`]). A journal written
    /// before schema version 4 has no checkpoint marked and is read whole.
    pub fn persisted_from_checkpoint(
        &self,
        table: &[u8; 32],
        seat: u8,
    ) -> Result<Option<Persisted>, StoreError> {
        let Some(local) = self.local_seat(table, seat)? else {
            return Ok(None);
        };
        let Some(first) = last_checkpoint_row(&self.conn, table, seat)? else {
            return self.persisted(table, seat);
        };
        let mut persisted = Persisted::new(local.config, local.root);
        // It starts with the checkpoint record: the steps it holds start there
        // (`Persisted::base`).
        self.each_record(table, seat, first, |_, record| {
            persisted.apply(record);
        })?;
        Ok(Some(persisted))
    }

    /// Steps `from..to` of a seat's log as its journal recorded them: the run without gaps
    /// that ends at `to - 1` (fewer steps when the journal starts later). Answers
    /// [`mahjong_table::Output::load`]. Reads the journal from the last checkpoint at or
    /// before step `from` (a checkpoint's steps are all journalled before it), so a load of
    /// recent steps reads about a hand, not the whole session; the whole journal only when
    /// that part does not hold them all (a journal without checkpoints, or rewritten).
    pub fn steps(
        &self,
        table: &[u8; 32],
        seat: u8,
        from: u32,
        to: u32,
    ) -> Result<Vec<mahjong_table::StepRecord>, StoreError> {
        let start: Option<i64> = self
            .conn
            .query_row(
                "SELECT max(id) FROM journal WHERE table_id = ?1 AND seat = ?2 \
                 AND checkpoint IS NOT NULL AND checkpoint <= ?3",
                params![&table[..], seat, from],
                |r| r.get(0),
            )
            .map_err(StoreError::sql("find a checkpoint"))?;
        if let Some(first) = start {
            let steps = self.steps_from_row(table, seat, first, from, to)?;
            if steps.first().and_then(|r| r.seq()) == Some(from) || from >= to {
                return Ok(steps);
            }
        }
        self.steps_from_row(table, seat, 0, from, to)
    }

    /// [`Store::steps`] reading the journal from row `first_id` on.
    fn steps_from_row(
        &self,
        table: &[u8; 32],
        seat: u8,
        first_id: i64,
        from: u32,
        to: u32,
    ) -> Result<Vec<mahjong_table::StepRecord>, StoreError> {
        let mut held = self.journal_steps_from(table, seat, first_id, |rec| {
            rec.seq().is_some_and(|seq| (from..to).contains(&seq))
        })?;
        let mut steps: Vec<mahjong_table::StepRecord> = Vec::new();
        let mut next = to;
        while let Some(rec) = next.checked_sub(1).and_then(|s| held.remove(&s)) {
            steps.push(rec);
            next -= 1;
        }
        steps.reverse();
        Ok(steps)
    }

    /// The steps of hand `hand` as the journals of this table's local seats recorded them
    /// (the first seat whose journal holds the hand's final step, else the longest run
    /// found): what books a hand whose client no longer holds its log (a restart between
    /// the journal's commit and the booking, the client restored from the checkpoint after
    /// the hand).
    pub(crate) fn hand_steps(
        &self,
        table: &[u8; 32],
        hand: u32,
    ) -> Result<Vec<mahjong_table::StepRecord>, StoreError> {
        let seats: Vec<u8> = self
            .table(table)?
            .map(|t| t.seats.iter().map(|s| s.config.seat).collect())
            .unwrap_or_default();
        let mut best: Vec<mahjong_table::StepRecord> = Vec::new();
        for seat in seats {
            let held = self.journal_steps(table, seat, |rec| rec.hand() == Some(hand))?;
            let steps: Vec<_> = held.into_values().collect();
            if crate::ledger::final_signatures(&steps, hand).is_some() {
                return Ok(steps);
            }
            if steps.len() > best.len() {
                best = steps;
            }
        }
        Ok(best)
    }

    /// The steps of a seat's journal that `keep` picks, by number, as the journal leaves them
    /// (a `Truncate` drops the steps from its number on).
    fn journal_steps(
        &self,
        table: &[u8; 32],
        seat: u8,
        keep: impl Fn(&mahjong_table::StepRecord) -> bool,
    ) -> Result<std::collections::BTreeMap<u32, mahjong_table::StepRecord>, StoreError> {
        self.journal_steps_from(table, seat, 0, keep)
    }

    /// [`Store::journal_steps`] from row `first_id` on.
    fn journal_steps_from(
        &self,
        table: &[u8; 32],
        seat: u8,
        first_id: i64,
        keep: impl Fn(&mahjong_table::StepRecord) -> bool,
    ) -> Result<std::collections::BTreeMap<u32, mahjong_table::StepRecord>, StoreError> {
        let mut held = std::collections::BTreeMap::new();
        self.each_record(table, seat, first_id, |_, record| match record {
            Record::Step(rec) => {
                if let Some(seq) = rec.seq()
                    && keep(&rec)
                {
                    held.insert(seq, rec);
                }
            }
            Record::Truncate(n) => {
                held.split_off(&n);
            }
            Record::Own(_) | Record::Checkpoint(_) => {}
        })?;
        Ok(held)
    }

    /// Calls `f` with each journal record of a seat from row `from_id` on, in order, each
    /// decoded (a record that does not decode is an error naming its row).
    fn each_record(
        &self,
        table: &[u8; 32],
        seat: u8,
        from_id: i64,
        mut f: impl FnMut(i64, Record),
    ) -> Result<(), StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT id, record FROM journal \
                 WHERE table_id = ?1 AND seat = ?2 AND id >= ?3 ORDER BY id",
            )
            .map_err(StoreError::sql("read the journal"))?;
        let mut rows = stmt
            .query(params![&table[..], seat, from_id])
            .map_err(StoreError::sql("read the journal"))?;
        while let Some(row) = rows.next().map_err(StoreError::sql("read the journal"))? {
            let id: i64 = row.get(0).map_err(StoreError::sql("read the journal"))?;
            let bytes: Vec<u8> = row.get(1).map_err(StoreError::sql("read the journal"))?;
            let bytes = match run_named(&bytes) {
                Some(hash) => read_run(&self.conn, table, hash, id)?,
                None => bytes,
            };
            for record in decode_records(table, &bytes, id)? {
                f(id, record);
            }
        }
        Ok(())
    }

    /// The bytes of a seat's journal records (what it keeps of the table, SQLite's own
    /// overhead aside).
    pub fn journal_bytes(&self, table: &[u8; 32], seat: u8) -> Result<u64, StoreError> {
        self.conn
            .query_row(
                "SELECT coalesce(sum(length(j.record) + coalesce(length(r.record), 0)), 0) \
                 FROM journal j LEFT JOIN runs r ON r.table_id = j.table_id \
                 AND substr(j.record, 1, 1) = ?3 AND r.hash = substr(j.record, 2) \
                 WHERE j.table_id = ?1 AND j.seat = ?2",
                params![&table[..], seat, [RUN_NAMED]],
                |r| r.get::<_, i64>(0),
            )
            .map(|n| n as u64)
            .map_err(StoreError::sql("measure the journal"))
    }

    /// The number of journal records of a seat.
    pub fn journal_len(&self, table: &[u8; 32], seat: u8) -> Result<u64, StoreError> {
        self.conn
            .query_row(
                "SELECT count(*) FROM journal WHERE table_id = ?1 AND seat = ?2",
                params![&table[..], seat],
                |r| r.get::<_, i64>(0),
            )
            .map(|n| n as u64)
            .map_err(StoreError::sql("count the journal"))
    }

    /// A local seat of a saved table.
    pub fn local_seat(&self, table: &[u8; 32], seat: u8) -> Result<Option<LocalSeat>, StoreError> {
        Ok(self
            .table(table)?
            .and_then(|t| t.seats.into_iter().find(|s| s.config.seat == seat)))
    }

    /// Rebuilds a local seat's client from its journal ([`Client::restore`]) with the key
    /// that seat signs with; `None` when the table or seat is not in the store. It is read
    /// from the last checkpoint on ([`Store::persisted_from_checkpoint`]): answer the
    /// client's [`mahjong_table::Output::load`] with [`Store::steps`].
    pub fn restore(
        &self,
        table: &[u8; 32],
        seat: u8,
        identity: &Identity,
    ) -> Result<Option<Client>, StoreError> {
        let Some(local) = self.local_seat(table, seat)? else {
            return Ok(None);
        };
        let Some(persisted) = self.persisted_from_checkpoint(table, seat)? else {
            return Ok(None);
        };
        Client::restore(persisted, local.key(identity).clone())
            .map(Some)
            .map_err(|source| StoreError::Restore {
                table: to_hex(table),
                seat,
                source,
            })
    }
}

impl Store {
    /// Packs the finished hands of every seat's journal (each run of step rows before a
    /// checkpoint, see [`pack_rows`]), in one transaction: what the migration to schema 7
    /// does to the journals written before. Returns the rows packed and the journals
    /// (table and seat) that had any.
    pub(super) fn pack_stored_journals(&self) -> Result<(usize, usize), StoreError> {
        let tx = self
            .conn
            .unchecked_transaction()
            .map_err(StoreError::sql("begin"))?;
        let journals: Vec<(Vec<u8>, u8)> = {
            let mut stmt = tx
                .prepare("SELECT DISTINCT table_id, seat FROM journal")
                .map_err(StoreError::sql("list the journals"))?;
            stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
                .map_err(StoreError::sql("list the journals"))?
                .collect::<Result<_, _>>()
                .map_err(StoreError::sql("list the journals"))?
        };
        let (mut rows, mut packed_journals) = (0, 0);
        for (table, seat) in journals {
            let Ok(table) = <[u8; 32]>::try_from(table) else {
                continue;
            };
            let checkpoints: Vec<i64> = {
                let mut stmt = tx
                    .prepare(
                        "SELECT id FROM journal WHERE table_id = ?1 AND seat = ?2 \
                         AND checkpoint IS NOT NULL ORDER BY id",
                    )
                    .map_err(StoreError::sql("find the checkpoints"))?;
                stmt.query_map(params![&table[..], seat], |r| r.get(0))
                    .map_err(StoreError::sql("find the checkpoints"))?
                    .collect::<Result<_, _>>()
                    .map_err(StoreError::sql("find the checkpoints"))?
            };
            let mut after = 0;
            let mut here = 0;
            for checkpoint in checkpoints {
                here += pack_rows(&tx, &table, seat, after, checkpoint)?;
                after = checkpoint;
            }
            rows += here;
            packed_journals += usize::from(here > 0);
        }
        tx.commit()
            .map_err(StoreError::sql("commit the packed journals"))?;
        Ok((rows, packed_journals))
    }
}

/// Deletes, with a checkpoint of hand `hand` just written, the seat's `Record::Own` rows
/// before it of an earlier hand: exactly what folding the journal drops at that checkpoint
/// ([`Persisted::apply`]), so every fold (whole, or from the last checkpoint on) is the same
/// with or without them. An own envelope that was logged is also in its step's record; one
/// that never was (a step cut back by an abort) can no longer be asked for again once its
/// hand is over. Without this, a seat's journal held everything it signed twice: about a
/// fifth of its size. `Own` rows are found by their record's first byte (postcard's index of
/// the variant, 1) and confirmed by decoding.
fn prune_own(
    tx: &rusqlite::Transaction<'_>,
    table: &[u8; 32],
    seat: u8,
    hand: u32,
) -> Result<(), StoreError> {
    let mut stale = Vec::new();
    {
        let mut stmt = tx
            .prepare_cached(
                "SELECT id, record FROM journal WHERE table_id = ?1 AND seat = ?2 \
                 AND checkpoint IS NULL AND substr(record, 1, 1) = x'01' \
                 AND id < (SELECT max(id) FROM journal WHERE table_id = ?1 AND seat = ?2 \
                           AND checkpoint IS NOT NULL)",
            )
            .map_err(StoreError::sql("find own records"))?;
        let rows = stmt
            .query_map(params![&table[..], seat], |r| {
                Ok((r.get::<_, i64>(0)?, r.get::<_, Vec<u8>>(1)?))
            })
            .map_err(StoreError::sql("find own records"))?;
        for row in rows {
            let (id, bytes) = row.map_err(StoreError::sql("read own records"))?;
            if let Ok(Record::Own(e)) = decode::<Record>(&bytes, "journal record")
                && e.hand < hand
            {
                stale.push(id);
            }
        }
    }
    let mut delete = tx
        .prepare_cached("DELETE FROM journal WHERE id = ?1")
        .map_err(StoreError::sql("prune own records"))?;
    for id in stale {
        delete
            .execute(params![id])
            .map_err(StoreError::sql("prune own records"))?;
    }
    Ok(())
}

/// A journal record's bytes: a step in its stored form ([`mahjong_table::stored_step`]:
/// the table, the step's header once, the deal messages cut), any other record (and a step
/// that cannot be stored so) as its postcard encoding. The first byte tells them apart
/// ([`mahjong_table::STORED_STEP`]); rows written before keep their encoding and read as ever.
fn encode_record(table: &[u8; 32], record: &Record) -> Result<Vec<u8>, StoreError> {
    if let Record::Step(step) = record
        && let Some(bytes) = mahjong_table::stored_step(table, &step.entries)
    {
        return Ok(bytes);
    }
    encode(record, "journal record")
}

/// The first byte of a journal row that names a packed run of steps kept in `runs` (by the
/// run's sha256, the 32 bytes after it); apart from [`mahjong_table::STORED_STEP`],
/// [`mahjong_table::STORED_RUN`], [`mahjong_table::STORED_RUN_DERIVED`] and a postcard
/// `Record`'s variant index.
const RUN_NAMED: u8 = 0xC7;

/// The run a journal row names, if it is such a row.
fn run_named(bytes: &[u8]) -> Option<[u8; 32]> {
    match bytes.split_first() {
        Some((&RUN_NAMED, hash)) => hash.try_into().ok(),
        _ => None,
    }
}

/// The bytes of a packed run of table `table` (named by journal row `id`).
fn read_run(
    conn: &Connection,
    table: &[u8; 32],
    hash: [u8; 32],
    id: i64,
) -> Result<Vec<u8>, StoreError> {
    conn.prepare_cached("SELECT record FROM runs WHERE table_id = ?1 AND hash = ?2")
        .and_then(|mut stmt| {
            stmt.query_row(params![&table[..], &hash[..]], |r| r.get(0))
                .optional()
        })
        .map_err(StoreError::sql("read a packed hand"))?
        .ok_or_else(|| StoreError::Decode {
            what: format!("journal record {id}"),
            why: format!("the packed hand {} it names is missing", to_hex(&hash)),
        })
}

/// The records of a journal row's bytes (a named run read already, see [`read_run`]): the
/// steps of a packed run ([`pack_rows`]), or one record (see [`decode_record`]).
fn decode_records(table: &[u8; 32], bytes: &[u8], id: i64) -> Result<Vec<Record>, StoreError> {
    if mahjong_table::is_stored_run(bytes) {
        let steps = mahjong_table::from_stored_run(table, bytes).map_err(bad_row(id))?;
        return Ok(steps
            .into_iter()
            .map(|entries| Record::Step(mahjong_table::StepRecord { entries }))
            .collect());
    }
    decode_record(table, bytes, id).map(|r| vec![r])
}

/// The row id of a seat's last checkpoint record, if it has one.
fn last_checkpoint_row(
    conn: &Connection,
    table: &[u8; 32],
    seat: u8,
) -> Result<Option<i64>, StoreError> {
    conn.query_row(
        "SELECT max(id) FROM journal \
         WHERE table_id = ?1 AND seat = ?2 AND checkpoint IS NOT NULL",
        params![&table[..], seat],
        |r| r.get(0),
    )
    .map_err(StoreError::sql("find the last checkpoint"))
}

/// Packs, for a table just finished, each local seat's journal rows after its last
/// checkpoint ([`pack_rows`]), its `Record::Own` rows deleted first (nothing resumes a
/// finished table, and what was logged of them is in the steps).
pub(super) fn pack_finished(
    tx: &rusqlite::Transaction<'_>,
    table: &[u8; 32],
) -> Result<usize, StoreError> {
    let seats: Vec<u8> = {
        let mut stmt = tx
            .prepare_cached("SELECT DISTINCT seat FROM journal WHERE table_id = ?1")
            .map_err(StoreError::sql("list the journals"))?;
        stmt.query_map(params![&table[..]], |r| r.get(0))
            .map_err(StoreError::sql("list the journals"))?
            .collect::<Result<_, _>>()
            .map_err(StoreError::sql("list the journals"))?
    };
    let mut packed = 0;
    for seat in seats {
        let last = last_checkpoint_row(tx, table, seat)?.unwrap_or(0);
        tx.execute(
            "DELETE FROM journal WHERE table_id = ?1 AND seat = ?2 AND id > ?3 \
             AND checkpoint IS NULL AND substr(record, 1, 1) = x'01'",
            params![&table[..], seat, last],
        )
        .map_err(StoreError::sql("prune own records"))?;
        packed += pack_rows(tx, table, seat, last, i64::MAX)?;
    }
    Ok(packed)
}

/// Slims, with a checkpoint just written, the seat's checkpoint before it: it keeps its place
/// in the journal (where [`Store::steps`] may start reading) and its hand, but not the
/// results of every hand so far, which only the last checkpoint is ever restored from
/// ([`Store::persisted_from_checkpoint`]; a fold of the whole journal ends with the last one
/// too). A checkpoint carries every result of the session, so keeping each whole made a
/// seat's journal grow with the square of its hands: about 17 KB a hand over 200 hands.
fn slim_previous_checkpoint(
    tx: &rusqlite::Transaction<'_>,
    table: &[u8; 32],
    seat: u8,
) -> Result<(), StoreError> {
    let previous: Option<(i64, Vec<u8>)> = tx
        .prepare_cached(
            "SELECT id, record FROM journal WHERE table_id = ?1 AND seat = ?2 \
             AND checkpoint IS NOT NULL ORDER BY id DESC LIMIT 1 OFFSET 1",
        )
        .and_then(|mut stmt| {
            stmt.query_row(params![&table[..], seat], |r| Ok((r.get(0)?, r.get(1)?)))
                .optional()
        })
        .map_err(StoreError::sql("find the previous checkpoint"))?;
    let Some((id, bytes)) = previous else {
        return Ok(());
    };
    let Record::Checkpoint(mut cp) = decode_record(table, &bytes, id)? else {
        return Ok(());
    };
    if cp.results.is_empty() {
        return Ok(());
    }
    cp.results.clear();
    let slim = encode_record(table, &Record::Checkpoint(cp))?;
    tx.execute(
        "UPDATE journal SET record = ?1 WHERE id = ?2",
        params![slim, id],
    )
    .map_err(StoreError::sql("slim the previous checkpoint"))?;
    Ok(())
}

/// Packs, with a checkpoint just written, the seat's journal rows between its previous
/// checkpoint (or the start) and this one: see [`pack_rows`].
fn pack_last_hand(
    tx: &rusqlite::Transaction<'_>,
    table: &[u8; 32],
    seat: u8,
) -> Result<usize, StoreError> {
    let mut stmt = tx
        .prepare_cached(
            "SELECT id FROM journal WHERE table_id = ?1 AND seat = ?2 \
             AND checkpoint IS NOT NULL ORDER BY id DESC LIMIT 2",
        )
        .map_err(StoreError::sql("find the checkpoints"))?;
    let ids: Vec<i64> = stmt
        .query_map(params![&table[..], seat], |r| r.get(0))
        .map_err(StoreError::sql("find the checkpoints"))?
        .collect::<Result<_, _>>()
        .map_err(StoreError::sql("find the checkpoints"))?;
    match ids[..] {
        [last, before] => pack_rows(tx, table, seat, before, last),
        [last] => pack_rows(tx, table, seat, 0, last),
        _ => Ok(0),
    }
}

/// Packs each run of two or more consecutive step rows of a seat's journal strictly
/// between rows `after` and `before` into one ([`mahjong_table::stored_run`]), kept in
/// `runs` by its sha256 (once, however many local seats of the table logged the same steps)
/// and named by one journal row ([`RUN_NAMED`]) that takes the run's first row id, so that
/// the journal reads in the same order: a finished hand's steps, a row each while it is
/// played, become one row once its checkpoint is written. What the journal gives back is
/// the same records. The rows of a hand go at once, so SQLite reuses their pages whole;
/// rows between steps (a cut of the log, an own envelope not yet pruned) are left where
/// they are and end a run. Returns the number of rows the runs replaced.
pub(super) fn pack_rows(
    tx: &rusqlite::Transaction<'_>,
    table: &[u8; 32],
    seat: u8,
    after: i64,
    before: i64,
) -> Result<usize, StoreError> {
    let mut runs: Vec<(Vec<i64>, Vec<Vec<mahjong_table::Envelope>>)> = vec![(vec![], vec![])];
    {
        let mut stmt = tx
            .prepare_cached(
                "SELECT id, record FROM journal WHERE table_id = ?1 AND seat = ?2 \
                 AND id > ?3 AND id < ?4 ORDER BY id",
            )
            .map_err(StoreError::sql("read the hand's journal"))?;
        let mut rows = stmt
            .query(params![&table[..], seat, after, before])
            .map_err(StoreError::sql("read the hand's journal"))?;
        while let Some(row) = rows
            .next()
            .map_err(StoreError::sql("read the hand's journal"))?
        {
            let id: i64 = row
                .get(0)
                .map_err(StoreError::sql("read the hand's journal"))?;
            let bytes: Vec<u8> = row
                .get(1)
                .map_err(StoreError::sql("read the hand's journal"))?;
            let step = match decode_records(table, &bytes, id) {
                Ok(mut records) if records.len() == 1 => match records.pop() {
                    Some(Record::Step(step)) => Some(step.entries),
                    _ => None,
                },
                _ => None,
            };
            let Some(run) = runs.last_mut() else { break };
            match step {
                Some(entries) => {
                    run.0.push(id);
                    run.1.push(entries);
                }
                None if run.0.is_empty() => {}
                None => runs.push((vec![], vec![])),
            }
        }
    }
    let mut insert = tx
        .prepare_cached(
            "INSERT INTO journal (id, table_id, seat, record, checkpoint) \
             VALUES (?1, ?2, ?3, ?4, NULL)",
        )
        .map_err(StoreError::sql("pack the hand's journal"))?;
    let mut keep = tx
        .prepare_cached("INSERT OR IGNORE INTO runs (table_id, hash, record) VALUES (?1, ?2, ?3)")
        .map_err(StoreError::sql("pack the hand's journal"))?;
    let mut delete = tx
        .prepare_cached("DELETE FROM journal WHERE id = ?1")
        .map_err(StoreError::sql("pack the hand's journal"))?;
    let mut packed = 0;
    for (ids, steps) in runs {
        if ids.len() < 2 {
            continue;
        }
        let Some(bytes) = mahjong_table::stored_run(table, &steps) else {
            continue;
        };
        for id in &ids {
            delete
                .execute(params![id])
                .map_err(StoreError::sql("pack the hand's journal"))?;
        }
        let hash: [u8; 32] = Sha256::digest(&bytes).into();
        keep.execute(params![&table[..], &hash[..], bytes])
            .map_err(StoreError::sql("pack the hand's journal"))?;
        let mut named = vec![RUN_NAMED];
        named.extend_from_slice(&hash);
        insert
            .execute(params![ids[0], &table[..], seat, named])
            .map_err(StoreError::sql("pack the hand's journal"))?;
        packed += ids.len();
    }
    Ok(packed)
}

/// The error for journal row `id` whose stored step or run does not decode.
fn bad_row(id: i64) -> impl FnOnce(mahjong_table::FrameError) -> StoreError {
    move |e| StoreError::Decode {
        what: format!("journal record {id}"),
        why: e.to_string(),
    }
}

/// A journal record from its bytes (either form, see [`encode_record`]).
fn decode_record(table: &[u8; 32], bytes: &[u8], id: i64) -> Result<Record, StoreError> {
    if bytes.first() == Some(&mahjong_table::STORED_STEP) {
        let entries = mahjong_table::from_stored_step(table, bytes).map_err(bad_row(id))?;
        return Ok(Record::Step(mahjong_table::StepRecord { entries }));
    }
    decode(bytes, &format!("journal record {id}"))
}
