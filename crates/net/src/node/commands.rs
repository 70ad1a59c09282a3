//! The event loop's tick (silent table peers, watching, the relay, redials, the lobby's own
//! tick and adverts) and the caller's commands: each part does its share.

use super::{Command, DialError, EventLoop, LINGER_AFTER_FAILED_SETUP_MS, hex};

impl EventLoop {
    pub(super) fn on_tick(&mut self) {
        let now = self.now();
        self.report_unreachable(now);
        self.watch_tick(now);
        self.internet_tick(now);
        if self
            .playing
            .as_ref()
            .and_then(|p| p.host.failed_at())
            .is_some_and(|t| now >= t + LINGER_AFTER_FAILED_SETUP_MS)
        {
            self.back_to_lobby(now);
        }
        if let Some(p) = self.playing.as_mut()
            && p.host.has_pending_bots()
        {
            let out = p.host.retry_bots();
            if let Err(e) = self.apply(out) {
                self.fatal(e);
            }
        }
        self.redial_tick(now);
        self.lobby_tick();
    }

    pub(super) fn on_command(&mut self, cmd: Command) {
        match cmd {
            Command::Act(action, tx) => {
                let now = self.now();
                if let Some(p) = self.playing.as_mut() {
                    p.host.act(now, action);
                }
                let _ = tx.send(());
            }
            Command::Accept(tx) => {
                let now = self.now();
                if let Some(p) = self.playing.as_mut() {
                    p.host.accept(now);
                }
                let _ = tx.send(());
            }
            Command::Leave(tx) => {
                let now = self.now();
                if let Some(p) = self.playing.as_mut() {
                    p.host.leave(now);
                }
                let _ = tx.send(());
            }
            Command::Tables(tx) => {
                let _ = tx.send(self.lobbying.lobby.tables());
            }
            Command::Traffic(tx) => {
                let _ = tx.send(self.conn.traffic());
            }
            Command::Shutdown(tx) | Command::Quit(tx) => {
                let _ = tx.send(());
            }
            Command::Host(spec, tx) => {
                let now = self.now();
                let options = spec.options.clone();
                let (preset, stake, hands) = (spec.preset, spec.stake, spec.hands);
                match self.lobbying.lobby.host(*spec, now) {
                    Ok(acts) => {
                        self.settings.options = options.clone();
                        self.lobbying.propose(options);
                        self.settings.preset = preset;
                        self.settings.stake = stake;
                        self.settings.hands = hands;
                        let _ = tx.send(Ok(()));
                        self.lobby_actions(acts);
                    }
                    Err(e) => {
                        let _ = tx.send(Err(e));
                    }
                }
            }
            Command::Sit(table, tx) => {
                let now = self.now();
                match self.lobbying.lobby.sit(table, now) {
                    Ok(acts) => {
                        let _ = tx.send(Ok(()));
                        self.lobby_actions(acts);
                    }
                    Err(e) => {
                        let _ = tx.send(Err(e));
                    }
                }
            }
            Command::Stand(tx) => {
                let now = self.now();
                if self.playing.as_ref().is_some_and(|p| p.host.is_over()) {
                    self.back_to_lobby(now);
                }
                let acts = self.lobbying.lobby.stand(now);
                let _ = tx.send(());
                self.lobby_actions(acts);
            }
            Command::FillBots(tx) => match self.lobbying.lobby.fill_bots() {
                Ok(acts) => {
                    let _ = tx.send(Ok(()));
                    self.lobby_actions(acts);
                }
                Err(e) => {
                    let _ = tx.send(Err(e));
                }
            },
            Command::Dial(addr, tx) => {
                let dialled = self.swarm.dial(addr.clone()).map_err(DialError::from);
                if dialled.is_ok() {
                    self.conn.keep_dialling(addr);
                }
                let _ = tx.send(dialled);
            }
            Command::Meet(internet, tx) => {
                let _ = tx.send(self.meet(*internet));
            }
            Command::Say(text, tx) => {
                let _ = tx.send(self.say(&text));
            }
            Command::TurnAway(name, tx) => {
                let _ = tx.send(self.turn_away(&name));
            }
            Command::Watch(table, tx) => {
                let _ = tx.send(self.watch(table));
            }
            Command::SetWatchers(policy, tx) => {
                self.gallery.set_policy(policy);
                let _ = tx.send(());
            }
            Command::StopWatching(tx) => {
                self.stop_watching();
                let _ = tx.send(());
            }
            Command::EndTable(tx) => {
                let ended = match self.playing.take() {
                    Some(p) => {
                        let table = p.host.table();
                        tracing::info!("table {} ended here, unfinished", hex(&table));
                        self.storage.finish_table(&table)
                    }
                    None => Ok(()),
                };
                let _ = tx.send(ended);
            }
            Command::Links(tx) => {
                let _ = tx.send(self.meeting.links());
            }
        }
    }
}
