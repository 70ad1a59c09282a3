//! How a program sits at a table: who runs which seat, what its bots accept and how long
//! they think, and the seats it starts with.

use ed25519_dalek::{SigningKey, VerifyingKey};
use mahjong_bot::{Bot, Level};
use mahjong_rules::{Action, Seat};
use mahjong_table::Client;
use rand_chacha::ChaCha8Rng;
use rand_core::RngCore;

#[cfg(feature = "test-hooks")]
use crate::Tamper;
use crate::{TableId, Terms};

/// Who sits where, as this program runs the table.
pub struct Setup {
    /// The table.
    pub table: TableId,
    /// This program's peer key.
    pub me: VerifyingKey,
    /// The peer that runs each seat by the roster.
    pub peers: [VerifyingKey; 4],
    /// The seat that proposes the set-up.
    pub host_seat: Seat,
    /// The player's own seat here, if any.
    pub player: Option<Seat>,
    /// What a bot seat of this program accepts (the player's too when a bot plays it).
    pub terms: Terms,
    /// The player's seat never accepts on its own, even when a bot plays it (a test hook:
    /// the `test-hooks` feature only).
    #[cfg(feature = "test-hooks")]
    pub never_accept: bool,
    /// The level of the bots this program starts for seats it takes over.
    pub bot_level: Level,
    /// Seeds those bots.
    pub seed: u64,
    /// [`Tamper`] for one seat of this program (the `test-hooks` feature only).
    #[cfg(feature = "test-hooks")]
    pub tamper: Option<(Seat, Tamper)>,
    /// Each seat keeps only recent hands in memory and asks for older steps ([`crate::Out::load`]):
    /// for a program whose store holds every seat's journal ([`crate::Durable::Append`]).
    pub keep_log_in_store: bool,
    /// How long bots think before they play; `None`: they play at once.
    pub think: Option<Think>,
    /// The host stops after each hand the player's seat sees end, until
    /// [`crate::Host::next_hand`] (a practice table: nobody's timer runs while the settlement is
    /// read). A networked table never waits.
    pub pause_after_hand: bool,
    /// The display name each seat of this program signs at the set-up (the roster's; a
    /// bot's "bot of NAME"), so that every result names the player who signed it
    /// ([`mahjong_table::Client::set_name`]); `None`: the seats sign none.
    pub names: Option<[String; 4]>,
}

impl Setup {
    /// A program at `table` (its key `me`, the roster's peer of each seat, the seat that
    /// proposes, the player's seat here if any, what its bots accept), with the network's
    /// defaults: master bots ([`Level::BOTS`]) that play at once, seeded 0, each seat's log
    /// kept in the store, no pause between hands.
    pub fn new(
        table: TableId,
        me: VerifyingKey,
        peers: [VerifyingKey; 4],
        host_seat: Seat,
        player: Option<Seat>,
        terms: Terms,
    ) -> Setup {
        Setup {
            table,
            me,
            peers,
            host_seat,
            player,
            terms,
            #[cfg(feature = "test-hooks")]
            never_accept: false,
            bot_level: Level::BOTS,
            seed: 0,
            #[cfg(feature = "test-hooks")]
            tamper: None,
            keep_log_in_store: true,
            think: None,
            pause_after_hand: false,
            names: None,
        }
    }
}

/// Bots' thinking time: a pass takes `least.min(150)` ms, any other move between `least` and
/// `most` ms drawn from `rng` (the same seed, the same table).
pub struct Think {
    /// Least milliseconds.
    pub least: u64,
    /// Most milliseconds.
    pub most: u64,
    /// Draws the times.
    pub rng: ChaCha8Rng,
}

impl Think {
    pub(crate) fn delay(&mut self, action: &Action) -> u64 {
        let (lo, hi) = (self.least, self.most);
        if matches!(action, Action::Pass) || hi <= lo {
            lo.min(150)
        } else {
            lo + self.rng.next_u64() % (hi - lo + 1)
        }
    }
}

/// A seat this program starts at a new table.
pub struct NewSeat {
    /// Its client, before any input.
    pub client: Client,
    /// The bot's signing key, for a bot seat (kept in the store with it).
    pub bot_key: Option<SigningKey>,
    /// The bot that plays it (a bot seat, or the player's seat when it plays by itself).
    pub bot: Option<Bot>,
}
