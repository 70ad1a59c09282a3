//! Shared helpers: a four-seat table driven in memory, in log order.

use std::sync::{Arc, OnceLock};

use ed25519_dalek::{SigningKey, VerifyingKey};
use mahjong_deal::{
    Accepted, CardIndex, CardTable, DealError, DealSeat, HandContext, HandSecrets, Position,
    SeatIndex, SignedMessage,
};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

/// One card table for the whole test binary (saves 3 ms per hand).
pub fn cards() -> Arc<CardTable> {
    static CARDS: OnceLock<Arc<CardTable>> = OnceLock::new();
    CARDS.get_or_init(|| Arc::new(CardTable::new())).clone()
}

pub fn seat(i: usize) -> SeatIndex {
    SeatIndex::ALL[i]
}

/// Four seats at one table, with their signing keys.
#[derive(Clone)]
pub struct Table {
    pub ctx: HandContext,
    pub signers: Vec<SigningKey>,
    pub roster: [VerifyingKey; 4],
    pub seats: Vec<DealSeat>,
    /// Every message broadcast, in order.
    pub log: Vec<SignedMessage>,
    /// Whether the seats make carried messages and receive them as from checked carriers.
    pub carried: bool,
}

impl Table {
    /// A table with signing keys and secrets derived from `seed`, at hand `hand`.
    pub fn new(seed: u64, hand: u32) -> Self {
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        let signers: Vec<SigningKey> = (0..4).map(|_| SigningKey::generate(&mut rng)).collect();
        Self::with_signers(signers, [seed as u8; 32], hand, &mut rng)
    }

    /// A table with the given signers.
    pub fn with_signers(
        signers: Vec<SigningKey>,
        table: [u8; 32],
        hand: u32,
        rng: &mut ChaCha20Rng,
    ) -> Self {
        let roster = [0, 1, 2, 3].map(|i| signers[i].verifying_key());
        let ctx = HandContext { table, hand };
        let seats = SeatIndex::ALL
            .into_iter()
            .map(|s| DealSeat::with_cards(ctx, s, roster, HandSecrets::generate(rng), cards()))
            .collect();
        Table {
            ctx,
            signers,
            roster,
            seats,
            log: Vec::new(),
            carried: false,
        }
    }

    /// [`Table::new`] whose seats make carried messages (no signature of their own, as in
    /// the table crate's envelopes) and receive every message as out of a checked carrier.
    pub fn new_carried(seed: u64, hand: u32) -> Self {
        let mut t = Self::new(seed, hand);
        t.carried = true;
        for s in &mut t.seats {
            s.set_carried(true);
        }
        t
    }

    fn deliver(
        seat: &mut DealSeat,
        carried: bool,
        msg: &SignedMessage,
    ) -> Result<Accepted, DealError> {
        if carried {
            seat.receive_carried(msg.clone())
        } else {
            seat.receive(msg.clone())
        }
    }

    /// Delivers `msg` to every seat; every seat must accept it.
    pub fn broadcast(&mut self, msg: &SignedMessage) -> Vec<Accepted> {
        self.log.push(msg.clone());
        let carried = self.carried;
        self.seats
            .iter_mut()
            .map(|s| match Self::deliver(s, carried, msg) {
                Ok(a) => a,
                Err(e) => panic!("seat {} rejected {:?}: {e}", s.seat(), msg.step()),
            })
            .collect()
    }

    /// Delivers `msg` to every seat and returns what each said.
    pub fn try_broadcast(&mut self, msg: &SignedMessage) -> Vec<Result<Accepted, DealError>> {
        self.log.push(msg.clone());
        let carried = self.carried;
        self.seats
            .iter_mut()
            .map(|s| Self::deliver(s, carried, msg))
            .collect()
    }

    /// Commits, keys and reveals.
    pub fn commit_and_reveal(&mut self) {
        for i in 0..4 {
            let c = self.seats[i].commit(&self.signers[i]).expect("commit");
            let k = self.seats[i].key_message(&self.signers[i]).expect("key");
            self.broadcast(&c);
            self.broadcast(&k);
        }
        for i in 0..4 {
            let r = self.seats[i].reveal(&self.signers[i]).expect("reveal");
            self.broadcast(&r);
        }
    }

    /// The shuffle of seat `i`.
    pub fn shuffle(&mut self, i: usize) {
        let m = self.seats[i]
            .shuffle_message(&self.signers[i])
            .expect("shuffle");
        self.broadcast(&m);
    }

    /// The whole set-up: commits, keys, reveals, four shuffles.
    pub fn setup(&mut self) {
        self.commit_and_reveal();
        for i in 0..4 {
            self.shuffle(i);
        }
    }

    /// Seat `drawer` draws `position`; returns the card it reads.
    pub fn draw(&mut self, position: Position, drawer: usize) -> CardIndex {
        for i in (0..4).filter(|&i| i != drawer) {
            let m = self.seats[i]
                .share_for(&self.signers[i], position, seat(drawer))
                .expect("share");
            self.broadcast(&m);
        }
        self.seats[drawer].open_private(position).expect("open")
    }

    /// Seat `holder` shows `position`; returns the card every seat read (all must agree).
    pub fn show(&mut self, position: Position, holder: usize) -> CardIndex {
        let m = self.seats[holder]
            .show(&self.signers[holder], position)
            .expect("show");
        self.broadcast(&m);
        self.agreed_card(position)
    }

    /// All four seats open `position` publicly; returns the card.
    pub fn public_open(&mut self, position: Position) -> CardIndex {
        for i in 0..4 {
            let m = self.seats[i]
                .public_share(&self.signers[i], position)
                .expect("public");
            self.broadcast(&m);
        }
        self.agreed_card(position)
    }

    /// The card every seat knows at `position` (panics unless all four agree).
    pub fn agreed_card(&self, position: Position) -> CardIndex {
        let cards: Vec<_> = self
            .seats
            .iter()
            .map(|s| s.card_at(position).expect("card known").0)
            .collect();
        assert!(
            cards.iter().all(|&c| c == cards[0]),
            "seats disagree: {cards:?}"
        );
        cards[0]
    }

    /// End-of-hand reveals by every seat.
    pub fn audit_reveals(&mut self) {
        for i in 0..4 {
            let m = self.seats[i]
                .audit_reveal(&self.signers[i])
                .expect("audit reveal");
            self.broadcast(&m);
        }
    }

    /// Signs a message as seat `i` (a modified client can sign anything).
    pub fn sign_as(&self, i: usize, body: mahjong_deal::Body) -> SignedMessage {
        mahjong_deal::Message::new(&self.ctx, seat(i), body)
            .sign(&self.signers[i])
            .expect("sign")
    }
}

/// A set-up table shared by the tests (set up once per test binary; proofs make set-up the
/// slow part); each caller gets its own copy.
pub fn shared_table() -> Table {
    static READY: OnceLock<Table> = OnceLock::new();
    READY.get_or_init(|| ready_table(1000, 0)).clone()
}

/// A table whose set-up is done.
pub fn ready_table(seed: u64, hand: u32) -> Table {
    let mut t = Table::new(seed, hand);
    t.setup();
    t
}
