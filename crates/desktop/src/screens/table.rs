//! The practice table's state and its update: what the player's client said, what the player
//! chooses, the countdown, the hint, auto-play after 敲, the hand end.
//!
//! About 850 lines: the table's state and every message it takes (the updates, clicks, keys,
//! the countdown); the drawing is `table_view.rs`.
//!
//! The table lives in a worker thread ([`crate::session::practice`]); this screen keeps the
//! latest view of the player's seat and sends commands. Only actions the rules list as legal
//! are offered, so a click can never be refused; the table's own timers play for the player
//! at zero (auto-discard, auto-pass), and the screen only shows the countdown.

use std::time::Instant;

use mahjong_rules::{
    Action, Card, Event, MeldShape, MeldType, Money, Move, PublicPhase, Seat, SeatView,
};
use mahjong_table::TableEvent;

use crate::engine::{Command, Failure, HUMAN, HandEnd, PracticeConfig, Proof, Update};
use crate::motion::{Kind, Motion};
use crate::session::{Commands, Feed, TableKey};

/// A key the table understands (mapped from the keyboard by the app).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    /// Pick the tile at this position of the hand (1–9, 0, -, =: positions 0–11; press twice
    /// to discard).
    Pick(usize),
    /// Move the pick left.
    Left,
    /// Move the pick right.
    Right,
    /// Discard the picked tile.
    Discard,
    /// 吃 (the first choice).
    Chow,
    /// 碰.
    Pung,
    /// 杠 (the first choice).
    Kong,
    /// 胡.
    Win,
    /// 敲 with the picked tile (or the first tile that makes the hand ready).
    Ready,
    /// 过.
    Pass,
    /// Show or hide the hint.
    Hint,
    /// Next hand.
    Next,
    /// Drop the pick.
    Escape,
}

/// What the table screen is told.
#[derive(Clone, Debug)]
pub enum Message {
    /// From the worker.
    Feed(Feed),
    /// The countdown ticker.
    Tick(Instant),
    /// A frame of the window while a motion runs ([`crate::motion`]).
    Frame(Instant),
    /// A tile of the hand was clicked (position in the shown order).
    Tile(usize),
    /// Play this action (a button).
    Act(Action),
    /// The 敲 button.
    Ready,
    /// The discard button.
    Discard,
    /// Show or hide the hint.
    ToggleHint,
    /// A shortcut.
    Key(Key),
    /// Next hand.
    Next,
    /// Leave the table (confirmed).
    Stop,
    /// Ask to leave: the table says what leaving books before the player confirms.
    AskLeave,
    /// Stay after all.
    CancelLeave,
    /// Review the finished hand (复盘).
    Review,
}

/// What the app should do after a table message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// Stay.
    Stay,
    /// Back to the home screen.
    Leave,
    /// Open the review of this hand, kept in the store under this table.
    Review([u8; 32], u32),
}

/// The last thing that happened, for the status line and the call-out at the seat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LastMove {
    /// The move.
    pub mv: Move,
    /// The claim it completed (the claimer and the meld: the last answer to a claim window
    /// may be another seat's pass), or the kong it made.
    pub meld: Option<(Seat, MeldShape)>,
}

impl LastMove {
    /// The last move, with the claim or kong its events show.
    pub fn new(mv: Move, events: &[Event]) -> LastMove {
        let meld = events.iter().find_map(|e| match e {
            Event::Claimed { seat, meld, .. } | Event::Konged { seat, meld } => {
                Some((*seat, *meld))
            }
            _ => None,
        });
        LastMove { mv, meld }
    }

    /// The seat that acted as the table shows it (the claimer of a claim).
    pub fn seat(&self) -> Seat {
        self.meld.map_or(self.mv.seat, |(s, _)| s)
    }

    /// The call-out of this move at its seat (碰! 吃! 杠! 敲! 胡!), if it is one.
    pub fn call(&self) -> Option<crate::i18n::T> {
        use crate::i18n::T;
        if let Some((_, m)) = self.meld {
            return Some(match m.kind {
                MeldType::Chow => T::CallChow,
                MeldType::Pung => T::CallPung,
                _ => T::CallKong,
            });
        }
        match self.mv.action {
            Action::Discard { ready: true, .. } => Some(T::CallReady),
            Action::Win { .. } => Some(T::CallWin),
            _ => None,
        }
    }
}

/// The table screen.
pub struct State {
    /// The worker's key (the set-up).
    pub key: TableKey,
    commands: Option<Commands>,
    /// The player's latest view.
    pub view: Option<Box<SeatView>>,
    /// Engine time of the latest view, and when it arrived.
    pub clock: (u64, Instant),
    /// The wall clock now (ticked while a countdown runs).
    pub now: Instant,
    /// The current prompt's deadline (engine ms).
    pub deadline: Option<u64>,
    /// The hand number.
    pub hand: u32,
    /// The master bot's advice for the current prompt.
    pub hint: Option<(Action, mahjong_bot::Reason)>,
    /// The hint is shown.
    pub show_hint: bool,
    /// The picked tile (position in [`State::shown_hand`]).
    pub picked: Option<usize>,
    /// Choosing a tile to declare ready with.
    pub ready_mode: bool,
    /// Seats gone silent.
    pub silent: [bool; 4],
    /// The relay every friend was linked through, while it is gone (a table met over the
    /// internet): the table waits for it, not for silent seats.
    pub relay_gone: Option<String>,
    /// The last move seen.
    pub last: Option<LastMove>,
    /// The player's own last move was played by the timer (shown until the next prompt).
    pub timed_out: bool,
    /// What the timer played for the player.
    pub timed_out_action: Option<Action>,
    /// The player's claim in the open window (a chow, pung or kong sent).
    pub my_claim: Option<Action>,
    /// The player's claim lost to another seat's claim or win: who took the tile, and
    /// whether by a win.
    pub claim_lost: Option<(Seat, bool)>,
    /// A tile the player clicked that the rules do not let go now (just claimed).
    pub refused: Option<mahjong_rules::Tile>,
    /// The finished hand being shown.
    pub end: Option<Box<HandEnd>>,
    /// Balances after the last hand.
    pub balances: [Money; 4],
    /// The results of the session's hands seen here, in order (the evening's story at its
    /// end; a table resumed mid-session has the hands from its resumption on).
    pub results: Vec<mahjong_table::HandResult>,
    /// Proven faults.
    pub proven: Vec<Proof>,
    /// The table stopped.
    pub failed: Option<Failure>,
    /// The session is over.
    pub over: bool,
    /// An action was sent for the current prompt (buttons wait for the next view).
    pub sent: bool,
    /// The table is set up (the proposal was agreed).
    pub agreed: bool,
    /// The legal actions of the open prompt (from `YourTurn`, until the player's move).
    pub prompt: Option<Vec<Action>>,
    /// The player's seat (0 at a practice table).
    pub me: Seat,
    /// A LAN table's seat names (from its signed roster); `None` at a practice table.
    pub names: Option<[String; 4]>,
    /// Seats a bot took over after their player left (a LAN table).
    pub replaced: [bool; 4],
    /// At a table met over the internet, each friend's link as last told: direct (`true`,
    /// after hole punching) or through the relay (`false`); `None` where not known, at the
    /// player's own seat, and at every seat of a LAN table.
    pub links: [Option<bool>; 4],
    /// The player asked to leave and is asked to confirm.
    pub confirm_leave: bool,
    /// A table killed earlier is being played back (no sounds for what already happened).
    pub replaying: bool,
    /// The table is only looked at (the replay of a stored hand): nothing on it is played, so
    /// the table's keys are not shown (the replay says its own).
    pub watched: bool,
    /// The motion running (a discard sliding in, a meld, the winning hand turning over).
    pub motion: Option<Motion>,
    /// Nothing moves (the player's setting).
    pub reduce_motion: bool,
    /// Where the player's last discard left the hand: its position in the hand as shown, and
    /// whether it was the drawn tile set apart (the discard slides from there).
    pub left_hand: Option<(usize, bool)>,
}

impl State {
    /// A new table with this set-up.
    pub fn new(config: PracticeConfig, generation: u64) -> State {
        let now = Instant::now();
        State {
            key: TableKey {
                config,
                generation,
                record: None,
                resume: false,
                autoplay: false,
            },
            commands: None,
            view: None,
            clock: (0, now),
            now,
            deadline: None,
            hand: 0,
            hint: None,
            show_hint: false,
            picked: None,
            ready_mode: false,
            silent: [false; 4],
            relay_gone: None,
            last: None,
            timed_out: false,
            timed_out_action: None,
            my_claim: None,
            claim_lost: None,
            refused: None,
            end: None,
            balances: [Money::ZERO; 4],
            results: Vec::new(),
            proven: Vec::new(),
            failed: None,
            over: false,
            sent: false,
            agreed: false,
            prompt: None,
            me: HUMAN,
            names: None,
            replaced: [false; 4],
            links: [None; 4],
            confirm_leave: false,
            replaying: false,
            watched: false,
            motion: None,
            reduce_motion: false,
            left_hand: None,
        }
    }

    /// A LAN table: the player at `me`, the roster's `names`, fed by [`crate::lan`] instead of
    /// the practice worker (`config` gives the preset and the session's length).
    pub fn lan(config: PracticeConfig, generation: u64, me: Seat, names: [String; 4]) -> State {
        State {
            me,
            names: Some(names),
            agreed: true,
            ..State::new(config, generation)
        }
    }

    /// A LAN table (no practice worker behind it).
    pub fn is_lan(&self) -> bool {
        self.names.is_some()
    }

    /// How the seats are named.
    pub fn names<'a>(&'a self, me: &'a str) -> super::Names<'a> {
        super::Names {
            me,
            table: self.names.as_ref(),
        }
    }

    /// The player's concealed tiles as shown: sorted, the drawn tile last.
    pub fn shown_hand(&self) -> Vec<Card> {
        let Some(v) = &self.view else {
            return Vec::new();
        };
        let mut tiles: Vec<Card> = v
            .hand
            .iter()
            .copied()
            .filter(|c| Some(*c) != v.drawn)
            .collect();
        tiles.sort_by_key(|c| (c.tile.index(), c.pos));
        if let Some(d) = v.drawn
            && v.hand.contains(&d)
        {
            tiles.push(d);
        }
        tiles
    }

    /// The legal actions now (none once one was sent).
    pub fn legal(&self) -> &[Action] {
        match &self.prompt {
            Some(l) if !self.sent && self.end.is_none() => l,
            _ => &[],
        }
    }

    /// Whether discarding `card` (with or without a ready declaration) is legal now — any
    /// copy of a tile the rules let the player discard (see [`State::discard_action`]).
    pub fn can_discard(&self, card: Card, ready: bool) -> bool {
        self.discard_action(card, ready).is_some()
    }

    /// The offered action that discards the clicked `card`: the rules offer one discard per
    /// tile kind with a representative copy, and a click on any copy of that kind (the left
    /// copy of a pair, the middle of a pung) plays that offered action — the copies are the
    /// same tile, so the hand left is the same ([`Action::discard_of`]).
    pub fn discard_action(&self, card: Card, ready: bool) -> Option<Action> {
        Action::discard_of(self.legal(), card, ready).cloned()
    }

    /// Seconds left on the player's prompt.
    pub fn seconds_left(&self) -> Option<u64> {
        let d = self.deadline?;
        if self.legal().is_empty() {
            return None;
        }
        let elapsed = self.now.saturating_duration_since(self.clock.1).as_millis() as u64;
        let now = self.clock.0 + elapsed;
        Some(d.saturating_sub(now).div_ceil(1000))
    }

    /// A countdown is running (the ticker subscription exists only then).
    pub fn counting(&self) -> bool {
        self.deadline.is_some() && !self.legal().is_empty()
    }

    fn send(&mut self, command: Command) {
        if let Some(c) = &self.commands {
            if matches!(command, Command::Act(_)) {
                self.sent = true;
            }
            if !c.send(command) {
                self.failed.get_or_insert_with(|| {
                    Failure::Thread("its commands are not received".to_string())
                });
            }
        }
    }

    /// Holds a practice table's clock while the player reads the rules over it (a LAN table
    /// runs on: the friends play on).
    pub fn hold(&mut self, on: bool) {
        if !self.is_lan() {
            self.send(Command::Hold(on));
        }
    }

    fn act(&mut self, action: Action) {
        if self.legal().contains(&action) {
            if matches!(
                action,
                Action::Chow { .. } | Action::Pung { .. } | Action::Kong { .. }
            ) {
                self.my_claim = Some(action.clone());
            }
            if let Action::Discard { card, .. } = &action {
                // Where the tile leaves the hand: its discard slides from there.
                let shown = self.shown_hand();
                let drawn = self.view.as_ref().and_then(|v| v.drawn);
                self.left_hand = shown.iter().position(|c| c == card).map(|i| {
                    let apart = drawn == Some(*card) && i + 1 == shown.len();
                    (i, apart)
                });
            }
            self.refused = None;
            self.picked = None;
            self.ready_mode = false;
            self.show_hint = false;
            self.send(Command::Act(action));
        }
    }

    /// Handles a message.
    pub fn update(&mut self, message: Message) -> Exit {
        if matches!(
            message,
            Message::Tile(_)
                | Message::Act(_)
                | Message::Ready
                | Message::Discard
                | Message::Key(_)
        ) {
            self.timed_out = false;
            self.claim_lost = None;
            self.refused = None;
        }
        match message {
            Message::Feed(Feed::Ready(c)) => self.commands = Some(c),
            Message::Feed(Feed::Replay(on)) => {
                self.replaying = on;
                // Back where it was: the open prompt is the player's again (a flower or a
                // forced pass the host plays itself).
                if !on && !self.sent && !self.legal().is_empty() {
                    self.log_prompt();
                }
            }
            Message::Feed(Feed::Update(u)) => self.on_update(u),
            Message::Tick(now) | Message::Frame(now) => {
                self.now = now;
                if self.motion.is_some_and(|m| m.done(now)) {
                    self.motion = None;
                }
            }
            Message::Tile(i) => self.click(i),
            Message::Act(a) => self.act(a),
            Message::Ready => self.ready(),
            Message::Discard => self.discard_picked(),
            Message::ToggleHint => self.show_hint = !self.show_hint,
            Message::Key(k) => return self.key(k),
            Message::Next => self.next(),
            Message::Stop => {
                self.confirm_leave = false;
                return Exit::Leave;
            }
            Message::AskLeave => self.confirm_leave = true,
            Message::CancelLeave => self.confirm_leave = false,
            Message::Review => {
                if let Some(end) = &self.end
                    && let Some(table) = end.kept
                {
                    return Exit::Review(table, end.result.hand);
                }
            }
        }
        Exit::Stay
    }

    fn next(&mut self) {
        if self.end.take().is_some() {
            self.last = None;
            self.send(Command::Next);
        }
    }

    fn click(&mut self, i: usize) {
        let hand = self.shown_hand();
        let Some(&card) = hand.get(i) else {
            return;
        };
        // One rule for every turn, 敲 or not: the first click picks, a click on the picked
        // tile discards it (with 敲 once the player pressed it: the tiles that keep the hand
        // ready glow, docs/app.md).
        if self.picked == Some(i)
            && let Some(a) = self.discard_action(card, self.ready_mode)
        {
            self.act(a);
        } else {
            if self.picked == Some(i) && self.barred(card) {
                self.refused = Some(card.tile);
            }
            self.picked = Some(i);
        }
    }

    /// Whether the rules hold this tile back now while other discards are offered (the
    /// tile just claimed, or one that would complete the claimed chow again).
    fn barred(&self, card: Card) -> bool {
        self.legal()
            .iter()
            .any(|a| matches!(a, Action::Discard { .. }))
            && self.discard_action(card, false).is_none()
            && self.discard_action(card, true).is_none()
    }

    fn discard_picked(&mut self) {
        let hand = self.shown_hand();
        if let Some(&card) = self.picked.and_then(|i| hand.get(i)) {
            let a = self
                .ready_mode
                .then(|| self.discard_action(card, true))
                .flatten()
                .or_else(|| self.discard_action(card, false));
            if let Some(a) = a {
                self.act(a);
            }
        }
    }

    fn ready(&mut self) {
        let hand = self.shown_hand();
        if let Some(&card) = self.picked.and_then(|i| hand.get(i))
            && let Some(a) = self.discard_action(card, true)
        {
            self.act(a);
            return;
        }
        if self
            .legal()
            .iter()
            .any(|a| matches!(a, Action::Discard { ready: true, .. }))
        {
            self.ready_mode = !self.ready_mode;
            // Nothing is picked for the player: its next click picks, as on any turn (a tile
            // picked before that cannot keep the hand ready is put back).
            if self.ready_mode {
                self.picked = None;
            }
        }
    }

    fn first(&self, f: impl Fn(&Action) -> bool) -> Option<Action> {
        self.legal().iter().find(|a| f(a)).cloned()
    }

    fn key(&mut self, k: Key) -> Exit {
        let n = self.shown_hand().len();
        match k {
            Key::Pick(i) if i < n => {
                if self.picked == Some(i) {
                    self.discard_picked();
                } else {
                    self.picked = Some(i);
                }
            }
            Key::Pick(_) => {}
            Key::Left if n > 0 => {
                self.picked = Some(self.picked.map_or(n - 1, |i| (i + n - 1) % n));
            }
            Key::Right if n > 0 => self.picked = Some(self.picked.map_or(0, |i| (i + 1) % n)),
            Key::Left | Key::Right => {}
            Key::Discard => {
                if self.end.is_some() {
                    self.next();
                } else {
                    self.discard_picked();
                }
            }
            Key::Chow => {
                if let Some(a) = self.first(|a| matches!(a, Action::Chow { .. })) {
                    self.act(a);
                }
            }
            Key::Pung => {
                if let Some(a) = self.first(|a| matches!(a, Action::Pung { .. })) {
                    self.act(a);
                }
            }
            Key::Kong => {
                if let Some(a) = self.first(|a| {
                    matches!(
                        a,
                        Action::Kong { .. }
                            | Action::ConcealedKong { .. }
                            | Action::AddedKong { .. }
                    )
                }) {
                    self.act(a);
                }
            }
            Key::Win => {
                if let Some(a) = self.first(|a| matches!(a, Action::Win { .. })) {
                    self.act(a);
                }
            }
            Key::Ready => self.ready(),
            Key::Pass => {
                if self.legal().contains(&Action::Pass) {
                    self.act(Action::Pass);
                }
            }
            Key::Hint => self.show_hint = !self.show_hint,
            Key::Next => self.next(),
            Key::Escape => {
                self.picked = None;
                self.ready_mode = false;
            }
        }
        Exit::Stay
    }

    fn on_update(&mut self, update: Update) {
        match update {
            Update::View { view, now } => {
                self.clock = (now, Instant::now());
                self.now = self.clock.1;
                let n = view.hand.len();
                self.view = Some(view);
                if self.picked.is_some_and(|i| i >= n) {
                    self.picked = None;
                }
            }
            Update::Table(event) => self.on_event(event),
            Update::Hint { action, reason } => self.hint = Some((action, reason)),
            Update::HandEnded(end) => {
                if matches!(end.result.outcome, mahjong_rules::Outcome::Win { .. }) {
                    self.start_motion(Kind::Reveal);
                }
                if self.results.last().is_none_or(|r| r.hand < end.result.hand) {
                    self.results.push((*end.result).clone());
                }
                self.balances = end.result.session.balances;
                self.over = self.over || end.result.session.is_finished();
                self.deadline = None;
                self.picked = None;
                self.end = Some(end);
            }
            Update::Proven(p) => self.proven.push(p),
            Update::Failed(reason) => self.failed = Some(reason),
            Update::Resumed { hands } => self.hand = hands + 1,
        }
    }

    fn on_event(&mut self, event: TableEvent) {
        match event {
            TableEvent::SetupAgreed(_) => self.agreed = true,
            TableEvent::HandStarted { hand, .. } => {
                // Played back after a kill: the player had closed the last settlement (the
                // practice engine deals the next hand only after *Next hand*), so the live
                // hand is shown, not the settlement over it.
                if self.replaying {
                    self.end = None;
                }
                self.hand = hand;
                self.silent = [false; 4];
                self.last = None;
                self.timed_out = false;
                self.timed_out_action = None;
                self.my_claim = None;
                self.claim_lost = None;
                self.refused = None;
            }
            TableEvent::YourTurn { view, deadline } => {
                // A LAN table does not wait while the settlement is read: the player's first
                // prompt of the next hand closes it, so the timer never plays for them unseen.
                if self.is_lan() && self.end.take().is_some() {
                    self.last = None;
                }
                // A new prompt: what the timer played for the last one, and a claim of the
                // player's that another seat's took over, are said no longer (they would read
                // as if this countdown had run out, or this claim had lost).
                self.timed_out = false;
                self.timed_out_action = None;
                self.my_claim = None;
                self.claim_lost = None;
                // The engine sends the hint for this prompt just before it.
                self.deadline = Some(deadline);
                self.sent = false;
                self.prompt = Some(view.legal.clone());
                self.view = Some(view);
                // A prompt played back from the journal was answered then: nothing to send.
                // A forced move (a flower, the only answer, the drawn tile after 敲) never
                // comes here: the host plays it, as it plays the seat under --autoplay.
                if !self.replaying {
                    self.log_prompt();
                }
            }
            TableEvent::Moved { mv, events } => {
                if mv.seat == self.me && !self.replaying {
                    tracing::info!(
                        target: "table",
                        hand = self.hand,
                        action = %action_log(&mv.action),
                        timed_out = mv.timed_out,
                        "you played"
                    );
                }
                if mv.seat == self.me {
                    self.prompt = None;
                    self.hint = None;
                    self.show_hint = false;
                    self.deadline = None;
                    self.sent = false;
                    self.picked = None;
                    self.ready_mode = false;
                    if mv.timed_out {
                        // Played by the timer: not from a place the player chose.
                        self.left_hand = None;
                    }
                    // Shown until the player's next prompt or input.
                    if mv.timed_out {
                        self.timed_out = true;
                        self.timed_out_action = Some(mv.action.clone());
                    }
                }
                if self.my_claim.is_some() {
                    let taken = events.iter().find_map(|e| match e {
                        Event::Claimed { seat, .. } => Some((*seat, false)),
                        Event::HandOver { .. } if matches!(mv.action, Action::Win { .. }) => {
                            Some((mv.seat, true))
                        }
                        _ => None,
                    });
                    if let Some((seat, won)) = taken {
                        if seat != self.me {
                            self.claim_lost = Some((seat, won));
                        }
                        self.my_claim = None;
                    }
                }
                let meld = events.iter().find_map(|e| match e {
                    Event::Claimed { seat, .. } | Event::Konged { seat, .. } => Some(*seat),
                    _ => None,
                });
                match (meld, &mv.action) {
                    (Some(seat), _) => self.start_motion(Kind::Claim(seat)),
                    (None, Action::Discard { .. }) => self.start_motion(Kind::Discard(mv.seat)),
                    _ => {}
                }
                let shown = matches!(
                    mv.action,
                    Action::Discard { .. }
                        | Action::Chow { .. }
                        | Action::Pung { .. }
                        | Action::Kong { .. }
                        | Action::ConcealedKong { .. }
                        | Action::AddedKong { .. }
                        | Action::Win { .. }
                        | Action::Flower { .. }
                ) || events.iter().any(|e| matches!(e, Event::Claimed { .. }));
                if shown {
                    self.last = Some(LastMove::new(mv, &events));
                }
            }
            TableEvent::SeatSilent { seat } => {
                if let Some(s) = self.silent.get_mut(seat as usize) {
                    *s = true;
                }
            }
            TableEvent::SeatReturned { seat } => {
                if let Some(s) = self.silent.get_mut(seat as usize) {
                    *s = false;
                }
            }
            TableEvent::SessionOver { balances } => {
                self.balances = balances;
                self.over = true;
            }
            TableEvent::Halted { reason } => self.failed = Some(Failure::Halted(reason)),
            TableEvent::SeatReplaced { seat, .. } => {
                if let Some(s) = self.replaced.get_mut(seat as usize) {
                    *s = true;
                }
            }
            _ => {}
        }
    }

    /// Starts a motion now, unless the player reduced motion or a killed table is played
    /// back (what already happened does not move again).
    pub(crate) fn start_motion(&mut self, kind: Kind) {
        if self.reduce_motion || self.replaying {
            self.motion = None;
            return;
        }
        let now = Instant::now();
        self.now = now;
        self.motion = Some(Motion::new(kind, now));
    }

    /// The frame of the running motion to draw (the still picture when none runs).
    pub fn frame(&self) -> crate::motion::Frame {
        self.motion.map(|m| m.frame(self.now)).unwrap_or_default()
    }

    /// Logs the player's prompt: the hand in the order shown (notation), whether the last
    /// tile is the drawn one apart, and what the rules offer. Read by the real-window tests.
    fn log_prompt(&self) {
        let shown: Vec<String> = self
            .shown_hand()
            .iter()
            .map(|c| c.tile.to_string())
            .collect();
        let drawn = self
            .view
            .as_ref()
            .is_some_and(|v| v.drawn.is_some_and(|d| v.hand.contains(&d)));
        let kind = match self.view.as_ref().map(|v| &v.phase) {
            Some(PublicPhase::Turn { .. }) => "turn",
            Some(PublicPhase::Claims { .. } | PublicPhase::RobKong { .. }) => "claim",
            _ => "other",
        };
        tracing::info!(
            target: "table",
            hand = self.hand,
            kind,
            shown = %shown.join(" "),
            drawn,
            offered = self.legal().len(),
            seconds_left = self.seconds_left().unwrap_or(0),
            "your prompt"
        );
    }

    /// Whether the player is ready (敲) and the hand plays itself.
    pub fn auto(&self) -> bool {
        self.view
            .as_ref()
            .is_some_and(|v| v.seats[v.seat as usize].ready)
    }

    /// The config this table runs.
    pub fn config(&self) -> &PracticeConfig {
        &self.key.config
    }
}

/// An action in a log line, tiles in notation: `discard 5m`, `ready 5m`, `pung 55m`.
fn action_log(a: &Action) -> String {
    let tiles = |cs: &[Card]| {
        cs.iter()
            .map(|c| c.tile.to_string())
            .collect::<Vec<_>>()
            .join("")
    };
    match a {
        Action::Discard { card, ready: false } => format!("discard {}", card.tile),
        Action::Discard { card, ready: true } => format!("ready {}", card.tile),
        Action::Chow { cards } => format!("chow {}", tiles(cards)),
        Action::Pung { cards } => format!("pung {}", tiles(cards)),
        Action::Kong { cards } => format!("kong {}", tiles(cards)),
        Action::ConcealedKong { cards } => format!("concealed kong {}", tiles(cards)),
        Action::AddedKong { card } => format!("added kong {}", card.tile),
        Action::Flower { card } => format!("flower {}", card.tile),
        Action::Win { .. } => "win".to_string(),
        Action::Pass => "pass".to_string(),
        Action::Leave => "leave".to_string(),
        Action::Swap { .. } => "swap".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::motion::Frame;

    fn table() -> State {
        State::new(PracticeConfig::new(mahjong_rules::Ruleset::Qiaoma, 7), 1)
    }

    #[test]
    fn reduce_motion_stops_the_slides_and_the_flourish() {
        for kind in [
            Kind::Discard(0),
            Kind::Discard(2),
            Kind::Claim(3),
            Kind::Reveal,
        ] {
            let mut t = table();
            t.start_motion(kind);
            assert!(t.motion.is_some(), "{kind:?} moves by default");
            assert_ne!(
                t.frame(),
                Frame::default(),
                "{kind:?}: its first frame moves"
            );
            let mut t = table();
            t.reduce_motion = true;
            t.start_motion(kind);
            assert!(t.motion.is_none(), "{kind:?} with reduced motion");
            assert_eq!(t.frame(), Frame::default(), "{kind:?}: the still picture");
        }
    }
}
