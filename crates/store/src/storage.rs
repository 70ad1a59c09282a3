//! The store as a host's [`Storage`]: how every table is saved and resumed, a friends' table
//! and a practice table alike (`mahjong_host::storage`).

use ed25519_dalek::{SigningKey, VerifyingKey};
use mahjong_host::storage::{Kind, Storage, StorageError, Stored, TableStart};
use mahjong_rules::Seat;
use mahjong_table::{Evidence, HandResult, Persisted, Record, StepRecord};

use crate::db::{LocalSeat, Store, TableInfo, now_ms};
use crate::hex::to_hex;

fn err(e: impl std::fmt::Display) -> StorageError {
    StorageError(e.to_string())
}

impl Store {
    /// The newest unfinished table of a kind (a practice table or a friends' one): the one a
    /// restarted program resumes ([`Storage::resume`]), read without its journals.
    pub fn unfinished_table(&self, kind: Kind) -> Result<Option<TableInfo>, crate::StoreError> {
        Ok(self
            .unfinished_tables()?
            .into_iter()
            .rev()
            .find(|t| t.is_practice() == (kind == Kind::Practice)))
    }
}

impl Storage for Store {
    fn has_table(&mut self, table: &[u8; 32]) -> Result<bool, StorageError> {
        Ok(self.table(table).map_err(err)?.is_some())
    }

    fn begin_table(&mut self, start: &TableStart) -> Result<(), StorageError> {
        let table = start.id;
        if self.has_table(&table)? {
            return Err(StorageError(format!(
                "table {} is already in the store: a stored table is never rewritten",
                to_hex(&table)
            )));
        }
        self.save_table(&TableInfo {
            id: table,
            seats: Vec::new(),
            names: start.names.clone(),
            created: now_ms(),
            finished: false,
            practice: start.practice,
        })
        .map_err(err)?;
        self.save_roster(&table, &start.setup).map_err(err)?;
        // The friends sat with, by key (bots are not noted: their keys are new each table).
        let players: Vec<(VerifyingKey, String)> = start.players.clone();
        if players.is_empty() {
            return Ok(());
        }
        self.note_players(&table, &players, now_ms()).map_err(err)
    }

    fn begin_seat(
        &mut self,
        table: &[u8; 32],
        seat: &Persisted,
        key: Option<&SigningKey>,
    ) -> Result<(), StorageError> {
        self.add_seat(
            table,
            &LocalSeat {
                config: seat.config.clone(),
                root: seat.root,
                bot_key: key.cloned(),
            },
        )
        .map_err(err)
    }

    fn append(
        &mut self,
        table: &[u8; 32],
        seat: Seat,
        records: &[Record],
    ) -> Result<(), StorageError> {
        Store::append(self, table, seat, records).map_err(err)
    }

    fn book(
        &mut self,
        table: &[u8; 32],
        results: &[HandResult],
        log: &[StepRecord],
    ) -> Result<(), StorageError> {
        self.book_from_log(table, results, log)
            .map(|_| ())
            .map_err(err)
    }

    fn save_evidence(&mut self, table: &[u8; 32], evidence: &Evidence) -> Result<(), StorageError> {
        Store::save_evidence(self, table, evidence).map_err(err)
    }

    fn steps(
        &mut self,
        table: &[u8; 32],
        seat: Seat,
        from: u32,
        to: u32,
    ) -> Result<Vec<StepRecord>, StorageError> {
        Store::steps(self, table, seat, from, to).map_err(err)
    }

    fn finish_table(&mut self, table: &[u8; 32]) -> Result<(), StorageError> {
        self.mark_finished(table).map_err(err)
    }

    fn resume(&mut self, kind: Kind) -> Result<Option<Stored>, StorageError> {
        let Some(info) = self.unfinished_table(kind).map_err(err)? else {
            return Ok(None);
        };
        let table = to_hex(&info.id);
        let setup = self.roster(&info.id).map_err(err)?.ok_or_else(|| {
            StorageError(format!(
                "table {table} in the store has no set-up to resume"
            ))
        })?;
        let mut seats = Vec::new();
        for local in &info.seats {
            // From the last checkpoint on: a restore reads only the current hand. A seat that
            // runs the bot of a replaced seat is read whole: the bot's keys come from the
            // roster step that gave it the seat, which may lie any number of hands back.
            let seat = local.config.seat;
            let Some(p) = self
                .persisted_from_checkpoint(&info.id, seat)
                .map_err(err)?
            else {
                continue;
            };
            let controls = p
                .checkpoint
                .as_ref()
                .is_some_and(|cp| cp.controllers.contains(&Some(seat)));
            if controls && p.base() > 0 {
                if let Some(whole) = self.persisted(&info.id, seat).map_err(err)? {
                    seats.push(whole);
                }
            } else {
                seats.push(p);
            }
        }
        Ok(Some(Stored {
            id: info.id,
            setup,
            seats,
        }))
    }
}
