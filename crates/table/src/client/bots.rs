//! A bot that takes a seat this seat controls: its client, rebuilt from this seat's
//! checkpoint with keys derived from this seat's root.

use super::*;

impl Client {
    /// The client for a bot seat this seat controls (see [`TableEvent::RunBot`]): its key and
    /// root are derived from this seat's root, so this seat can always rebuild it. It starts
    /// at this seat's last checkpoint, which must already hold the roster step that gave the
    /// seat to the bot (it does once that step is logged: the next hand's first step is a
    /// checkpoint). Trust: the controlling peer holds the bot's keys and sees its tiles (see
    /// the crate header).
    ///
    /// # Errors
    ///
    /// [`BotError::NotController`] when this seat does not run that seat's bot;
    /// [`BotError::NoCheckpoint`] / [`BotError::NotYetCheckpointed`] when the roster step is
    /// not yet behind a checkpoint (retry later, [`BotError::is_pending`]);
    /// [`BotError::Restore`] when the bot's client cannot be rebuilt from the log.
    pub fn bot_client(&self, seat: Seat) -> Result<Client, BotError> {
        let (key, root, cp) = self.bot_origin(seat)?;
        let base = self.replica.base();
        if cp.seq < base || cp.seq > self.replica.next_seq() {
            return Err(BotError::Restore {
                seat,
                why: format!("the checkpoint at step {} is outside the log held", cp.seq),
            });
        }
        let prefix = self.replica.logged(base as usize, cp.seq as usize);
        let persisted = Persisted {
            config: Config {
                seat,
                ..self.config.clone()
            },
            root,
            log: prefix.to_vec(),
            checkpoint: Some(cp),
            own: Vec::new(),
        };
        Client::restore_with_cards(persisted, key, self.replica.cards()).map_err(|e| {
            BotError::Restore {
                seat,
                why: e.to_string(),
            }
        })
    }

    /// The signing key of a bot seat this seat controls (the one [`Client::bot_client`]
    /// gives it): to keep it with the bot's own journal, and to restore the bot from that
    /// journal after a restart ([`Client::restore`]) rather than from this seat's checkpoint,
    /// which would forget what the bot signed since. Errors as [`Client::bot_client`].
    pub fn bot_key(&self, seat: Seat) -> Result<SigningKey, BotError> {
        Ok(self.bot_origin(seat)?.0)
    }

    /// The bot's key and root and the checkpoint it starts from.
    pub(super) fn bot_origin(
        &self,
        seat: Seat,
    ) -> Result<(SigningKey, [u8; 32], Checkpoint), BotError> {
        let controller = self
            .replica
            .controllers
            .get(seat as usize)
            .copied()
            .flatten();
        if seat > 3 || controller != Some(self.me()) {
            return Err(BotError::NotController {
                seat,
                me: self.me(),
                controller,
            });
        }
        let cp = self.last_checkpoint.clone().ok_or(BotError::NoCheckpoint)?;
        if cp.seq > self.replica.next_seq() {
            return Err(BotError::Restore {
                seat,
                why: format!("the checkpoint at step {} is past the log", cp.seq),
            });
        }
        // The roster step is the step before a hand boundary: held in memory.
        let prefix = self
            .replica
            .logged(self.replica.base() as usize, cp.seq as usize);
        let roster_seq = prefix
            .iter()
            .rev()
            .find_map(|rec| {
                rec.entries.iter().find_map(|e| match &e.body {
                    Body::Roster(crate::codec::RosterVote::Replace { seat: s, .. })
                        if *s == seat =>
                    {
                        Some(e.seq)
                    }
                    _ => None,
                })
            })
            .ok_or(BotError::NotYetCheckpointed { seat })?;
        let (key, root) =
            self.replica
                .bot_secrets(seat, roster_seq)
                .ok_or_else(|| BotError::Restore {
                    seat,
                    why: "this client holds no root secret".into(),
                })?;
        Ok((key, root, cp))
    }
}
