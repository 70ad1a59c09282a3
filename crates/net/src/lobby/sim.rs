//! A simulated LAN of lobbies for the convergence tests: peers arrive when they are started,
//! find each other after a discovery delay, each side hears of a connection up to a
//! message's delay after it is up (so the other's first message can come before the news),
//! every message takes a random delay, a connection may break (both sides are told, what was
//! on its way is lost, it comes back a little later),
//! people in the app click a while after they see a table, peers are killed, and a roster
//! that not every seated peer began with fails its set-up like a real table (everyone back in
//! the lobby, the missing ones set aside). Deterministic for a seed.

use std::collections::{BTreeMap, BTreeSet};

use super::*;

/// SplitMix64: the simulation's only randomness.
pub(super) struct Rng(u64);

impl Rng {
    pub(super) fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x5DEE_CE66_D1CE_4E5B)
    }

    pub(super) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..=hi`.
    pub(super) fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo + 1)
    }

    /// True with probability `p` (0..=1).
    pub(super) fn chance(&mut self, p: f64) -> bool {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64 * 1.0 < p
    }
}

/// One simulated peer.
pub(super) struct Peer {
    pub(super) key: SigningKey,
    /// Started at (ms).
    pub(super) arrive: u64,
    /// Killed at (ms), for good.
    pub(super) killed: Option<u64>,
    /// A person in the app: sits where the most players are (or opens a table when there is
    /// none), a while after seeing the tables.
    pub(super) person: bool,
    pub(super) bots: u8,
    pub(super) lobby: Option<Lobby>,
    /// The roster it began with, and when.
    pub(super) began: Option<(Roster, u64)>,
    /// The table it plays at (its set-up agreed by every seated peer).
    pub(super) playing: Option<TableId>,
    /// A person's next click (ms).
    click_at: Option<u64>,
    /// Never accepts a set-up (a squatter, or a friend who misses every Accept).
    pub(super) never_accepts: bool,
}

/// What the simulation is asked to do.
#[derive(Clone, Debug)]
pub(super) struct Plan {
    /// Per peer: (start ms, a person, bots it wants, killed at ms).
    pub(super) peers: Vec<(u64, bool, u8, Option<u64>)>,
    /// Message delay bounds (ms).
    pub(super) delay: (u64, u64),
    /// Discovery delay bounds (ms) after both are up.
    pub(super) discover: (u64, u64),
    /// Chance that a message breaks its connection instead of arriving.
    pub(super) breaks: f64,
    /// A person's click comes this long (bounds, ms) after a change it reacts to.
    pub(super) click: (u64, u64),
    pub(super) seed: u64,
}

/// How long a begun roster waits for every seated peer before its set-up fails (the table's
/// acceptance timer, shortened).
const SETUP_MS: u64 = 4000;

pub(super) struct Sim {
    pub(super) peers: Vec<Peer>,
    pub(super) now: u64,
    rng: Rng,
    plan: Plan,
    /// Messages on their way: (due, order) → (from, to, message, connection generation).
    queue: BTreeMap<(u64, u64), (usize, usize, Wire, u64)>,
    order: u64,
    /// Connected pairs (lower index first) and their generation.
    links: BTreeMap<(usize, usize), u64>,
    /// Pairs to connect at a time.
    connect_at: BTreeMap<(usize, usize), u64>,
    /// The news of a connection on its way to one side: (due, order) → (the peer told, the
    /// peer it is connected to, connection generation). The other side may write first: a
    /// message can overtake the news, as on a real node.
    news: BTreeMap<(u64, u64), (usize, usize, u64)>,
    generation: u64,
    /// Begun rosters not yet agreed: table → (roster, first begun at).
    setups: BTreeMap<TableId, (Roster, u64)>,
    /// Tables that play, with their humans' peers.
    pub(super) tables: BTreeMap<TableId, Vec<usize>>,
    /// When the last table began playing.
    pub(super) last_table_at: u64,
    pub(super) failed_setups: usize,
}

fn pair(a: usize, b: usize) -> (usize, usize) {
    (a.min(b), a.max(b))
}

impl Sim {
    pub(super) fn new(plan: Plan) -> Sim {
        let peers = plan
            .peers
            .iter()
            .enumerate()
            .map(|(i, &(arrive, person, bots, killed))| {
                let mut seed = [0u8; 32];
                seed[..8].copy_from_slice(&(plan.seed ^ (i as u64 + 1) << 40).to_le_bytes());
                seed[31] = i as u8 + 1;
                Peer {
                    key: SigningKey::from_bytes(&seed),
                    arrive,
                    killed,
                    person,
                    bots,
                    lobby: None,
                    began: None,
                    playing: None,
                    click_at: None,
                    never_accepts: false,
                }
            })
            .collect();
        Sim {
            peers,
            now: 0,
            rng: Rng::new(plan.seed),
            plan,
            queue: BTreeMap::new(),
            order: 0,
            links: BTreeMap::new(),
            connect_at: BTreeMap::new(),
            news: BTreeMap::new(),
            generation: 0,
            setups: BTreeMap::new(),
            tables: BTreeMap::new(),
            last_table_at: 0,
            failed_setups: 0,
        }
    }

    fn settings(&self, i: usize) -> Settings {
        let p = &self.peers[i];
        Settings {
            name: format!("p{i}"),
            preset: Ruleset::Qiaoma,
            stake: Money::coins(1),
            hands: 2,
            bots: p.bots,
            open_after_ms: DEFAULT_OPEN_AFTER_MS,
            options: Options::preset(Ruleset::Qiaoma),
            admit: None,
        }
    }

    fn up(&self, i: usize) -> bool {
        self.peers[i].lobby.is_some() && self.peers[i].playing.is_none()
    }

    fn index(&self, key: &VerifyingKey) -> Option<usize> {
        self.peers
            .iter()
            .position(|p| p.key.verifying_key() == *key)
    }

    fn send(&mut self, from: usize, to: usize, w: Wire) {
        let Some(&generation) = self.links.get(&pair(from, to)) else {
            return;
        };
        let delay = self.rng.range(self.plan.delay.0, self.plan.delay.1);
        self.order += 1;
        self.queue
            .insert((self.now + delay, self.order), (from, to, w, generation));
    }

    fn apply(&mut self, from: usize, actions: Vec<Action>) {
        for a in actions {
            if std::env::var_os("LOBBY_SIM_TRACE").is_some() {
                let what = match &a {
                    Action::Broadcast(Wire::Advert(s)) => format!(
                        "advert of {} rev {} humans {} {:?}",
                        short(&s.advert.host),
                        s.advert.revision,
                        s.advert.humans(),
                        s.advert.state
                    ),
                    Action::Send(k, Wire::Advert(s)) => format!(
                        "to {}: advert of {} rev {}",
                        short(k),
                        short(&s.advert.host),
                        s.advert.revision
                    ),
                    Action::Send(k, Wire::Join { .. }) => format!("to {}: join", short(k)),
                    Action::Send(k, Wire::Leave { .. }) => format!("to {}: leave", short(k)),
                    Action::Send(k, Wire::Refuse { reason, .. }) => {
                        format!("to {}: refuse ({reason})", short(k))
                    }
                    Action::Send(k, Wire::Start(_)) => format!("to {}: start", short(k)),
                    Action::Begin(_) => "begin".to_string(),
                    _ => "other".to_string(),
                };
                println!(
                    "{:>6} p{from} ({}): {what}",
                    self.now,
                    short(&self.peers[from].key.verifying_key())
                );
            }
            match a {
                Action::Broadcast(w) => {
                    let to: Vec<usize> = self
                        .links
                        .keys()
                        .filter_map(|&(a, b)| (a == from).then_some(b).or((b == from).then_some(a)))
                        .collect();
                    for t in to {
                        self.send(from, t, w.clone());
                    }
                }
                Action::Send(k, w) => {
                    if let Some(t) = self.index(&k) {
                        self.send(from, t, w);
                    }
                }
                Action::Begin(r) => {
                    assert!(self.peers[from].began.is_none(), "peer {from} began twice");
                    let table = r.advert.table;
                    self.peers[from].began = Some((*r.clone(), self.now));
                    self.setups.entry(table).or_insert((*r, self.now));
                }
            }
        }
    }

    fn connect(&mut self, a: usize, b: usize) {
        if std::env::var_os("LOBBY_SIM_TRACE").is_some() {
            println!("{:>6} p{a} and p{b} connected", self.now);
        }
        self.generation += 1;
        self.links.insert(pair(a, b), self.generation);
        for (x, y) in [(a, b), (b, a)] {
            // Each side hears of the connection up to a message's longest delay later.
            let at = self.now + self.rng.range(0, self.plan.delay.1);
            self.order += 1;
            self.news.insert((at, self.order), (x, y, self.generation));
        }
    }

    /// Tells each peer of its connections whose news is due (and still up).
    fn tell_news(&mut self) {
        while let Some(entry) = self.news.first_entry() {
            if entry.key().0 > self.now {
                break;
            }
            let (x, y, generation) = entry.remove();
            if self.links.get(&pair(x, y)) != Some(&generation) {
                continue; // gone before it was heard of
            }
            let key = self.peers[y].key.verifying_key();
            if let Some(l) = self.peers[x].lobby.as_mut() {
                let acts = l.connected(key);
                self.apply(x, acts);
            }
        }
    }

    fn disconnect(&mut self, a: usize, b: usize) {
        if self.links.remove(&pair(a, b)).is_none() {
            return;
        }
        if std::env::var_os("LOBBY_SIM_TRACE").is_some() {
            println!("{:>6} p{a} and p{b} disconnected", self.now);
        }
        let now = self.now;
        for (x, y) in [(a, b), (b, a)] {
            let key = self.peers[y].key.verifying_key();
            if let Some(l) = self.peers[x].lobby.as_mut() {
                let acts = l.disconnected(key, now);
                self.apply(x, acts);
            }
        }
    }

    /// A person looks at the tables and clicks: at no table, sits where the most players are
    /// (opens a table when there is none); alone at a table of their own, goes to a table
    /// with more players and a free seat; seated with others, stays.
    fn click(&mut self, i: usize) {
        let now = self.now;
        let bots = self.peers[i].bots;
        let Some(l) = self.peers[i].lobby.as_mut() else {
            return;
        };
        let alone = matches!(&l.state, State::Hosting { advert, .. } if advert.humans() == 1);
        if !matches!(l.state, State::Idle) && !alone {
            return;
        }
        let terms = l.settings.terms();
        let best = l
            .tables()
            .into_iter()
            .filter(|a| a.fits(&terms) && a.host != l.me && (!alone || a.humans() > 1))
            .max_by_key(|a| (a.humans(), Reverse(a.table)));
        if alone && best.is_none() {
            return;
        }
        let acts = match best {
            Some(a) => l.sit(a.table, now).unwrap_or_default(),
            None => {
                let spec = TableSpec {
                    name: String::new(),
                    preset: Ruleset::Qiaoma,
                    options: Options::preset(Ruleset::Qiaoma),
                    stake: Money::coins(1),
                    hands: 2,
                    bots,
                };
                l.host(spec, now).unwrap_or_default()
            }
        };
        self.apply(i, acts);
    }

    /// One step of 10 ms.
    fn step(&mut self) {
        self.now += 10;
        let now = self.now;
        let n = self.peers.len();
        // Arrivals and kills.
        for i in 0..n {
            if self.peers[i].arrive <= now
                && self.peers[i].lobby.is_none()
                && self.peers[i].killed.is_none_or(|k| k > now)
                && self.peers[i].began.is_none()
            {
                let mut lobby = Lobby::new(self.peers[i].key.clone(), self.settings(i), now);
                // Table ids as random as the real ones, and the same for a seed.
                lobby.nonces.0 = [self.rng.next() as u8; 32];
                lobby.nonces.0[..8].copy_from_slice(&self.rng.next().to_le_bytes());
                lobby.set_manual(self.peers[i].person);
                self.peers[i].lobby = Some(lobby);
                self.peers[i].click_at = self.peers[i]
                    .person
                    .then(|| now + self.rng.range(self.plan.click.0, self.plan.click.1));
                for j in 0..n {
                    if j != i && self.up(j) {
                        let at = now + self.rng.range(self.plan.discover.0, self.plan.discover.1);
                        self.connect_at.insert(pair(i, j), at);
                    }
                }
            }
            if self.peers[i].killed.is_some_and(|k| k <= now)
                && self.peers[i].lobby.is_some()
                && self.peers[i].playing.is_none()
            {
                self.peers[i].lobby = None;
                let linked: Vec<(usize, usize)> = self
                    .links
                    .keys()
                    .copied()
                    .filter(|&(a, b)| a == i || b == i)
                    .collect();
                for (a, b) in linked {
                    self.disconnect(a, b);
                }
                self.connect_at.retain(|&(a, b), _| a != i && b != i);
            }
        }
        let due: Vec<(usize, usize)> = self
            .connect_at
            .iter()
            .filter(|(_, at)| **at <= now)
            .map(|(p, _)| *p)
            .collect();
        for (a, b) in due {
            self.connect_at.remove(&(a, b));
            if self.up(a) && self.up(b) && !self.links.contains_key(&(a, b)) {
                self.connect(a, b);
            }
        }
        self.tell_news();
        // Messages due.
        while let Some(entry) = self.queue.first_entry() {
            if entry.key().0 > now {
                break;
            }
            let (from, to, w, generation) = entry.remove();
            if self.links.get(&pair(from, to)) != Some(&generation) || !self.up(to) {
                continue; // lost with its connection
            }
            if self.rng.chance(self.plan.breaks) {
                self.disconnect(from, to);
                let at = now + self.rng.range(200, 1000);
                self.connect_at.insert(pair(from, to), at);
                continue;
            }
            let key = self.peers[from].key.verifying_key();
            let acts = match self.peers[to].lobby.as_mut() {
                Some(l) => l.message(key, w, now),
                None => continue,
            };
            self.apply(to, acts);
            if self.peers[to].person && self.peers[to].click_at.is_none() {
                // A person looks again a while after something changed.
                let at = now + self.rng.range(self.plan.click.0, self.plan.click.1);
                self.peers[to].click_at = Some(at);
            }
        }
        // Ticks every 100 ms, adverts repeated every 1.5 s, people clicking.
        if now.is_multiple_of(100) {
            for i in 0..n {
                if !self.up(i) {
                    continue;
                }
                if self.peers[i].person && self.peers[i].click_at.is_some_and(|t| t <= now) {
                    self.peers[i].click_at = None;
                    self.click(i);
                }
                let Some(l) = self.peers[i].lobby.as_mut() else {
                    continue;
                };
                let mut acts = l.tick(now);
                if now.is_multiple_of(1500) {
                    acts.extend(l.repeat());
                }
                self.apply(i, acts);
            }
        }
        self.settle_setups();
    }

    /// A begun roster plays when every human seat's peer began with it; past [`SETUP_MS`]
    /// its set-up fails and everyone at it is back in the lobby.
    fn settle_setups(&mut self) {
        let now = self.now;
        let tables: Vec<TableId> = self.setups.keys().copied().collect();
        for t in tables {
            let (roster, since) = self.setups[&t].clone();
            let humans: Vec<usize> = roster
                .advert
                .seats
                .iter()
                .flatten()
                .filter(|s| !s.bot)
                .filter_map(|s| self.index(&s.peer))
                .collect();
            let accepted = |p: &Peer| {
                p.began.as_ref().is_some_and(|(r, _)| r.advert.table == t)
                    && p.lobby.is_some()
                    && !p.never_accepts
            };
            let all = humans.iter().all(|&h| accepted(&self.peers[h]));
            if all {
                self.setups.remove(&t);
                for &h in &humans {
                    self.peers[h].playing = Some(t);
                    let linked: Vec<(usize, usize)> = self
                        .links
                        .keys()
                        .copied()
                        .filter(|&(a, b)| a == h || b == h)
                        .collect();
                    for (a, b) in linked {
                        self.disconnect(a, b);
                    }
                }
                self.tables.insert(t, humans);
                self.last_table_at = now;
            } else if now >= since + SETUP_MS {
                self.setups.remove(&t);
                self.failed_setups += 1;
                let missing: Vec<VerifyingKey> = humans
                    .iter()
                    .filter(|&&h| !accepted(&self.peers[h]))
                    .map(|&h| self.peers[h].key.verifying_key())
                    .collect();
                for &h in &humans {
                    if self.peers[h]
                        .began
                        .as_ref()
                        .is_some_and(|(r, _)| r.advert.table == t)
                    {
                        self.peers[h].began = None;
                        if let Some(l) = self.peers[h].lobby.as_mut() {
                            l.restart(now, Some(t), &missing);
                        }
                        if self.peers[h].person {
                            let at = now + self.rng.range(self.plan.click.0, self.plan.click.1);
                            self.peers[h].click_at = Some(at);
                        }
                    }
                }
            }
        }
    }

    /// Runs until `until` (ms).
    pub(super) fn run(&mut self, until: u64) {
        while self.now < until {
            self.step();
        }
    }

    /// Peers still in the lobby (up, not playing).
    pub(super) fn waiting(&self) -> Vec<usize> {
        (0..self.peers.len()).filter(|&i| self.up(i)).collect()
    }

    /// Every peer that plays is at exactly one table, and each table's humans are distinct.
    pub(super) fn check_tables(&self) -> Result<(), String> {
        let mut seen = BTreeSet::new();
        for humans in self.tables.values() {
            for h in humans {
                if !seen.insert(*h) {
                    return Err(format!("peer {h} plays at two tables"));
                }
            }
        }
        Ok(())
    }
}
