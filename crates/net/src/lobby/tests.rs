//! The lobby's unit tests: peers over an in-memory network, hostile hosts, and the
//! convergence rule property-tested over random arrivals, delays, broken connections and clicks.

use super::*;

fn settings(name: &str, bots: u8) -> Settings {
    Settings {
        name: name.into(),
        preset: Ruleset::Qiaoma,
        stake: Money::coins(1),
        hands: 3,
        bots,
        open_after_ms: 500,
        options: Options::preset(Ruleset::Qiaoma),
        admit: None,
    }
}

/// Lobbies connected to each other, with messages delivered in rounds.
struct Net {
    lobbies: Vec<Lobby>,
    begun: Vec<Option<Roster>>,
    now: u64,
}

impl Net {
    fn new(n: u8, bots: u8) -> Net {
        let lobbies = (0..n)
            .map(|i| {
                Lobby::new(
                    SigningKey::from_bytes(&[i + 1; 32]),
                    settings(&format!("p{i}"), bots),
                    0,
                )
            })
            .collect();
        let mut net = Net {
            lobbies,
            begun: vec![None; n as usize],
            now: 0,
        };
        net.connect_all();
        net
    }

    /// Every lobby is told every other is connected.
    fn connect_all(&mut self) {
        let keys: Vec<VerifyingKey> = self.lobbies.iter().map(|l| l.me).collect();
        for l in &mut self.lobbies {
            for k in &keys {
                if *k != l.me {
                    l.connected(*k);
                }
            }
        }
    }

    fn index(&self, key: &VerifyingKey) -> usize {
        self.lobbies
            .iter()
            .position(|l| &l.me == key)
            .expect("known peer")
    }

    fn deliver(
        &mut self,
        from: usize,
        actions: Vec<Action>,
        queue: &mut Vec<(usize, usize, Wire)>,
    ) {
        for a in actions {
            match a {
                Action::Broadcast(w) => {
                    for to in 0..self.lobbies.len() {
                        if to != from {
                            queue.push((from, to, w.clone()));
                        }
                    }
                }
                Action::Send(k, w) => queue.push((from, self.index(&k), w)),
                Action::Begin(r) => {
                    assert!(self.begun[from].is_none(), "began twice");
                    self.begun[from] = Some(*r);
                }
            }
        }
    }

    /// Every lobby ticks at once every 100 ms; messages take one tick.
    fn run(&mut self, until: u64) {
        let mut queue = Vec::new();
        while self.now < until {
            self.now += 100;
            let now = self.now;
            let pending: Vec<(usize, usize, Wire)> = std::mem::take(&mut queue);
            for (from, to, w) in pending {
                let key = self.lobbies[from].me;
                let actions = self.lobbies[to].message(key, w, now);
                self.deliver(to, actions, &mut queue);
            }
            for i in 0..self.lobbies.len() {
                let actions = self.lobbies[i].tick(now);
                self.deliver(i, actions, &mut queue);
            }
        }
    }
}

#[test]
fn four_peers_started_at_once_end_at_one_table() {
    let mut net = Net::new(4, 0);
    net.run(5000);
    let rosters: Vec<&Roster> = net.begun.iter().flatten().collect();
    assert_eq!(rosters.len(), 4, "every peer began");
    assert!(rosters.iter().all(|r| *r == rosters[0]), "one roster");
    let seats = rosters[0].verify().expect("valid roster");
    for l in &net.lobbies {
        assert_eq!(seats.iter().filter(|s| s.peer == l.me).count(), 1);
    }
}

#[test]
fn a_fifth_peer_does_not_break_a_full_table() {
    let mut net = Net::new(5, 0);
    net.run(8000);
    let rosters: Vec<&Roster> = net.begun.iter().flatten().collect();
    assert_eq!(rosters.len(), 4, "four began, one waits");
    assert!(rosters.iter().all(|r| *r == rosters[0]));
    let waiting = net
        .begun
        .iter()
        .position(Option::is_none)
        .expect("one waits");
    assert!(
        net.lobbies[waiting].my_table().is_some(),
        "it opened its own table"
    );
}

#[test]
fn two_peers_with_two_bots_spread_them_one_each() {
    let mut net = Net::new(2, 2);
    net.run(3000);
    let r = net.begun[0].as_ref().expect("began");
    assert_eq!(Some(r), net.begun[1].as_ref());
    let seats = r.verify().expect("valid");
    for l in &net.lobbies {
        let bots = seats.iter().filter(|s| s.bot && s.peer == l.me).count();
        assert_eq!(bots, 1, "one bot each");
    }
    // The bot keys are the ones its controller derives.
    for (seat, s) in seats.iter().enumerate().filter(|(_, s)| s.bot) {
        let runner = &net.lobbies[net.index(&s.peer)];
        let key = bot_key(&runner.identity, &r.advert.table, seat as Seat);
        assert_eq!(key.verifying_key(), s.key);
    }
}

#[test]
fn one_human_with_three_bots_runs_them_all() {
    let mut net = Net::new(1, 3);
    net.run(1000);
    let seats = net.begun[0]
        .as_ref()
        .expect("began")
        .verify()
        .expect("valid");
    assert_eq!(seats.iter().filter(|s| s.bot).count(), 3);
}

#[test]
fn the_lower_table_wins_when_two_open_at_once() {
    let mut a = Lobby::new(SigningKey::from_bytes(&[1; 32]), settings("a", 0), 0);
    let mut b = Lobby::new(SigningKey::from_bytes(&[2; 32]), settings("b", 0), 0);
    let ka = a.me;
    let kb = b.me;
    a.connected(kb);
    b.connected(ka);
    let adv = |acts: Vec<Action>| {
        acts.into_iter()
            .find_map(|x| match x {
                Action::Broadcast(w @ Wire::Advert(_)) => Some(w),
                _ => None,
            })
            .expect("advert")
    };
    let wa = adv(a.tick(600));
    let wb = adv(b.tick(600));
    let (ta, tb) = (
        a.my_table().expect("a hosts"),
        b.my_table().expect("b hosts"),
    );
    b.message(ka, wa, 700);
    a.message(kb, wb, 700);
    let acts_a = a.tick(800);
    let acts_b = b.tick(800);
    let (mover, stayer) = if ta < tb {
        (&acts_b, tb)
    } else {
        (&acts_a, ta)
    };
    assert!(
        mover.iter().any(|x| matches!(x, Action::Broadcast(Wire::Advert(ad)) if ad.advert.table == stayer && ad.advert.state == TableState::Closed)),
        "the higher table closes"
    );
    assert!(
        mover
            .iter()
            .any(|x| matches!(x, Action::Send(_, Wire::Join { .. })))
    );
}

#[test]
fn adverts_count_only_under_their_hosts_signature_and_bound_id() {
    let a_key = SigningKey::from_bytes(&[1; 32]);
    let mut a = Lobby::new(a_key.clone(), settings("a", 0), 0);
    let mut b = Lobby::new(SigningKey::from_bytes(&[2; 32]), settings("b", 0), 0);
    let ad = advert_of(a.tick(600));
    let liar = SigningKey::from_bytes(&[3; 32]);
    // Signed by another key: ignored, whoever passes it on.
    let forged = Wire::Advert(Box::new(SignedAdvert::sign(ad.clone(), &liar)));
    b.message(a.me, forged.clone(), 700);
    b.message(liar.verifying_key(), forged, 700);
    assert!(b.tables().is_empty());
    // The host's own signature over a table id that is not bound to it (another host's, or
    // an old one): ignored too.
    let mut unbound = ad.clone();
    unbound.table = [0; 32];
    b.message(
        a.me,
        Wire::Advert(Box::new(SignedAdvert::sign(unbound, &a_key))),
        800,
    );
    assert!(b.tables().is_empty());
    // The host's signed advert, passed on by another peer (one seated at the table): kept,
    // as the host's.
    let relayed = Wire::Advert(Box::new(SignedAdvert::sign(ad, &a_key)));
    b.message(liar.verifying_key(), relayed.clone(), 900);
    assert!(
        b.tables().is_empty(),
        "kept the table of a host it is not connected to"
    );
    b.connected(a.me);
    b.message(liar.verifying_key(), relayed, 900);
    assert_eq!(b.tables().len(), 1);
    assert_eq!(b.tables()[0].host, a.me);
}

/// The first message on a new connection can come before the news of the connection: a
/// host's own advert is kept then (a started table is told once, on connecting, to a friend
/// who comes to watch), and one passed on by another peer still is not.
#[test]
fn a_hosts_own_advert_that_overtakes_its_connection_is_kept() {
    let a_key = SigningKey::from_bytes(&[1; 32]);
    let mut a = Lobby::new(a_key.clone(), settings("a", 0), 0);
    let mut b = Lobby::new(SigningKey::from_bytes(&[2; 32]), settings("b", 0), 0);
    let mut c = Lobby::new(SigningKey::from_bytes(&[3; 32]), settings("c", 0), 0);
    let ad = advert_of(a.tick(600));
    c.message(b.me, signed(&ad, &a_key), 700);
    assert!(c.tables().is_empty(), "kept a table passed on by a peer");
    b.message(a.me, signed(&ad, &a_key), 700);
    assert_eq!(b.tables().len(), 1);
    assert_eq!(b.tables()[0].host, a.me);
    // The news of the connection comes after: nothing changes; its end forgets the table.
    b.connected(a.me);
    assert_eq!(b.tables().len(), 1);
    b.disconnected(a.me, 800);
    assert!(b.tables().is_empty());
}

/// The host of a started table repeats that it has started to the peers connected that do
/// not sit at it, never to its players: a friend who comes to watch finds it even if the one
/// advert sent on connecting was lost.
#[test]
fn a_started_host_repeats_its_table_to_peers_not_seated_only() {
    let mut net = Net::new(2, 2);
    net.run(3000);
    let roster = net.begun[0].clone().expect("began");
    let host = net.index(&roster.advert.host);
    assert!(net.lobbies[host].repeat().is_empty(), "told a player");
    assert!(net.lobbies[1 - host].repeat().is_empty(), "not the host");
    let mut friend = Lobby::new(SigningKey::from_bytes(&[9; 32]), settings("w", 0), 0);
    friend.set_manual(true);
    friend.connected(roster.advert.host);
    net.lobbies[host].connected(friend.me);
    let acts = net.lobbies[host].repeat();
    assert_eq!(acts.len(), 1);
    let Some(Action::Send(to, wire)) = acts.into_iter().next() else {
        panic!("not a message to one peer");
    };
    assert_eq!(to, friend.me);
    friend.message(roster.advert.host, wire, 3100);
    let seen = friend.tables();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].state, TableState::Started);
    assert_eq!(seen[0].table, roster.advert.table);
}

fn spec(name: &str, bots: u8) -> TableSpec {
    let mut options = Options::preset(Ruleset::Classic);
    options.discard_seconds = 9;
    TableSpec {
        name: name.into(),
        preset: Ruleset::Classic,
        options,
        stake: Money::coins(2),
        hands: 4,
        bots,
    }
}

/// Delivers queued messages (and what they cause) until none is left.
fn flush(net: &mut Net, queue: &mut Vec<(usize, usize, Wire)>, now: u64) {
    while !queue.is_empty() {
        for (from, to, w) in std::mem::take(queue) {
            let key = net.lobbies[from].me;
            let actions = net.lobbies[to].message(key, w, now);
            net.deliver(to, actions, queue);
        }
    }
}

fn manual(n: u8) -> Net {
    let mut net = Net::new(n, 0);
    for l in &mut net.lobbies {
        l.set_manual(true);
    }
    net
}

#[test]
fn a_manual_lobby_waits_for_the_player() {
    let mut net = manual(2);
    net.run(5000);
    assert!(net.lobbies.iter().all(|l| l.my_table().is_none()));
    assert!(net.lobbies.iter().all(|l| l.tables().is_empty()));
}

#[test]
fn a_hosted_table_with_its_own_set_up_is_seen_taken_and_started() {
    let mut net = manual(2);
    let acts = net.lobbies[0].host(spec("Friday", 2), 0).expect("host");
    let mut queue = Vec::new();
    net.deliver(0, acts, &mut queue);
    flush(&mut net, &mut queue, 100);
    let seen = net.lobbies[1].tables();
    assert_eq!(seen.len(), 1);
    let ad = &seen[0];
    assert_eq!(ad.name, "Friday");
    assert_eq!(
        (ad.preset, ad.stake, ad.hands, ad.bots),
        (Ruleset::Classic, Money::coins(2), 4, 2)
    );
    assert_ne!(
        ad.options_hash,
        options_hash(Ruleset::Classic),
        "the changed options' hash"
    );
    // A second table cannot be opened while hosting; the other peer sits down.
    assert!(net.lobbies[0].host(spec("again", 0), 100).is_err());
    let acts = net.lobbies[1].sit(ad.table, 200).expect("sit");
    net.deliver(1, acts, &mut queue);
    flush(&mut net, &mut queue, 300);
    let r0 = net.begun[0].as_ref().expect("host began");
    assert_eq!(Some(r0), net.begun[1].as_ref());
    assert_eq!(
        r0.verify().expect("valid").iter().filter(|s| s.bot).count(),
        2
    );
}

#[test]
fn a_joiner_stands_up_and_the_host_closes_its_table() {
    let mut net = manual(3);
    let acts = net.lobbies[0].host(spec("t", 0), 0).expect("host");
    let mut queue = Vec::new();
    net.deliver(0, acts, &mut queue);
    flush(&mut net, &mut queue, 100);
    let table = net.lobbies[1].tables()[0].table;
    let acts = net.lobbies[1].sit(table, 100).expect("sit");
    net.deliver(1, acts, &mut queue);
    let acts = net.lobbies[2].sit(table, 100).expect("sit");
    net.deliver(2, acts, &mut queue);
    flush(&mut net, &mut queue, 200);
    assert_eq!(net.lobbies[2].tables()[0].humans(), 3);
    assert_eq!(net.lobbies[1].my_table(), Some(table));
    let acts = net.lobbies[1].stand(1000);
    net.deliver(1, acts, &mut queue);
    flush(&mut net, &mut queue, 1100);
    assert_eq!(net.lobbies[1].my_table(), None);
    assert_eq!(
        net.lobbies[2].tables()[0].humans(),
        2,
        "its seat is free again"
    );
    // The host fills the rest with bots: the table starts with the two humans.
    let acts = net.lobbies[0].fill_bots().expect("host");
    net.deliver(0, acts, &mut queue);
    flush(&mut net, &mut queue, 1200);
    let r = net.begun[0].as_ref().expect("began");
    assert_eq!(net.begun[2].as_ref(), Some(r));
    assert!(net.begun[1].is_none());
    let acts = net.lobbies[1].stand(3000);
    assert!(acts.is_empty());
    // A host that stands closes its table for everyone.
    let mut solo = manual(2);
    let acts = solo.lobbies[0].host(spec("x", 0), 0).expect("host");
    solo.deliver(0, acts, &mut queue);
    let acts = solo.lobbies[0].stand(50);
    solo.deliver(0, acts, &mut queue);
    flush(&mut solo, &mut queue, 100);
    assert!(solo.lobbies[1].tables().is_empty());
    assert!(
        solo.lobbies[1].sit(table, 200).is_err(),
        "an unknown table is refused"
    );
}

/// `advert` under `key`'s signature, as a message.
fn signed(advert: &Advert, key: &SigningKey) -> Wire {
    Wire::Advert(Box::new(SignedAdvert::sign(advert.clone(), key)))
}

/// The first advert `acts` broadcasts.
fn advert_of(acts: Vec<Action>) -> Advert {
    acts.into_iter()
        .find_map(|x| match x {
            Action::Broadcast(Wire::Advert(a)) => Some(a.advert),
            _ => None,
        })
        .expect("advert")
}

#[test]
fn a_table_advertising_other_options_is_not_joined() {
    let host_key = SigningKey::from_bytes(&[1; 32]);
    let mut host = Lobby::new(host_key.clone(), settings("h", 0), 0);
    let mut options = Options::preset(Ruleset::Qiaoma);
    options.base_points *= 100;
    host.settings.options = options;
    let mut ad = advert_of(host.tick(600));
    let mut b = Lobby::new(SigningKey::from_bytes(&[2; 32]), settings("b", 0), 0);
    b.connected(host.me);
    ad.revision = 10;
    assert!(b.message(host.me, signed(&ad, &host_key), 100).is_empty());
    let acts = b.tick(200);
    assert!(
        !acts
            .iter()
            .any(|x| matches!(x, Action::Send(_, Wire::Join { .. }))),
        "joined a table with other options: {acts:?}"
    );
    // The same table with the preset's options is joined.
    ad.options_hash = options_hash(Ruleset::Qiaoma);
    ad.revision = 11;
    b.message(host.me, signed(&ad, &host_key), 300);
    let acts = b.tick(400);
    assert!(
        acts.iter()
            .any(|x| matches!(x, Action::Send(_, Wire::Join { .. })))
    );
}

#[test]
fn a_roster_or_advert_changing_the_terms_after_a_join_is_left() {
    for how in ["roster", "advert"] {
        let host_key = SigningKey::from_bytes(&[1; 32]);
        let mut host = Lobby::new(host_key.clone(), settings("h", 2), 0);
        let ad = advert_of(host.tick(600));
        let mut b = Lobby::new(SigningKey::from_bytes(&[2; 32]), settings("b", 0), 0);
        b.connected(host.me);
        b.message(host.me, signed(&ad, &host_key), 100);
        let join = b
            .tick(200)
            .into_iter()
            .find_map(|x| match x {
                Action::Send(_, w @ Wire::Join { .. }) => Some(w),
                _ => None,
            })
            .expect("join");
        let acts = host.message(b.me, join, 300);
        let roster = acts
            .iter()
            .find_map(|x| match x {
                Action::Send(_, Wire::Start(r)) => Some(r.clone()),
                _ => None,
            })
            .expect("the host starts");
        let mut changed = roster.advert.clone();
        changed.options_hash = [7; 32];
        let acts = if how == "roster" {
            let forged = Roster::sign(changed, 0, &host_key);
            b.message(host.me, Wire::Start(Box::new(forged)), 400)
        } else {
            changed.state = TableState::Open;
            changed.revision += 10;
            b.message(host.me, signed(&changed, &host_key), 400)
        };
        assert!(
            !acts.iter().any(|x| matches!(x, Action::Begin(_))),
            "{how}: began at other terms"
        );
        assert!(
            acts.iter()
                .any(|x| matches!(x, Action::Send(_, Wire::Leave { .. }))),
            "{how}: did not leave: {acts:?}"
        );
        // The genuine roster that follows is not taken either: the table is set aside.
        let acts = b.message(host.me, Wire::Start(roster), 500);
        assert!(!acts.iter().any(|x| matches!(x, Action::Begin(_))), "{how}");
        assert_eq!(b.my_table(), None, "{how}");
    }
}

#[test]
fn names_are_cleaned_on_intake() {
    let dirty = format!("\u{1b}[31mMal\u{202e}lory\u{85}{}", "x".repeat(500));
    let host_key = SigningKey::from_bytes(&[1; 32]);
    let mut host = Lobby::new(
        host_key.clone(),
        settings("\u{1b}]0;pwned\u{7}Host\u{2066}", 0),
        0,
    );
    let mut ad = advert_of(host.tick(600));
    assert_eq!(ad.seats[0].as_ref().expect("host seat").name, "Host");
    assert_eq!(ad.name, "Host's table");
    let joiner = SigningKey::from_bytes(&[2; 32]).verifying_key();
    host.message(
        joiner,
        Wire::Join {
            table: ad.table,
            name: dirty.clone(),
            key: joiner,
            bot_keys: [joiner; 4],
            avoid: Vec::new(),
        },
        700,
    );
    let seated = host.tables()[0].seats[1].clone().expect("seated");
    assert_eq!(seated.name, clean_name(&dirty));
    assert!(seated.name.starts_with("Mallory") && seated.name.chars().count() == 32);
    // Another host's advert with dirty names is kept cleaned.
    let mut b = Lobby::new(SigningKey::from_bytes(&[3; 32]), settings("b", 0), 0);
    b.connected(host.me);
    ad.name = dirty.clone();
    ad.seats[0].as_mut().expect("seat").name = dirty.clone();
    b.message(host.me, signed(&ad, &host_key), 800);
    let seen = &b.tables()[0];
    assert!(crate::wire::Advert::is_clean(seen), "{seen:?}");
    assert_eq!(seen.name, clean_name(&dirty));
}

#[test]
fn tables_kept_are_bounded_and_fitting_ones_are_not_pushed_out() {
    let mut b = Lobby::new(SigningKey::from_bytes(&[200; 32]), settings("b", 0), 0);
    let advert = |i: u16, stake: i64| {
        let mut seed = [7u8; 32];
        seed[..2].copy_from_slice(&i.to_le_bytes());
        let key = SigningKey::from_bytes(&seed);
        let mut s = settings("x", 0);
        s.stake = Money::coins(stake);
        let mut host = Lobby::new(key.clone(), s, 0);
        (key, advert_of(host.tick(600)))
    };
    for i in 0..200 {
        let (k, ad) = advert(i, 9);
        b.connected(k.verifying_key());
        b.message(k.verifying_key(), signed(&ad, &k), 100);
    }
    assert_eq!(b.tables().len(), MAX_TABLES);
    assert!(b.take_changed());
    assert!(!b.take_changed(), "changed once, told once");
    // A table this peer would join still finds room.
    let (k, ad) = advert(500, 1);
    let fitting = ad.table;
    b.connected(k.verifying_key());
    b.message(k.verifying_key(), signed(&ad, &k), 200);
    assert_eq!(b.tables().len(), MAX_TABLES);
    assert!(b.tables().iter().any(|a| a.table == fitting));
    // Repeated adverts of one host keep one table.
    let (k, mut ad) = advert(501, 1);
    b.connected(k.verifying_key());
    for r in 0..50 {
        ad.revision = 10 + r;
        b.message(k.verifying_key(), signed(&ad, &k), 300);
    }
    let k = k.verifying_key();
    assert_eq!(b.tables().iter().filter(|a| a.host == k).count(), 1);
    assert_eq!(b.tables().len(), MAX_TABLES);
}

/// A host that seats each joiner in the advert it sends that joiner only (each sees
/// itself seated at a table with free seats), never starts, and every 500 ms opens the
/// table again under a lower id.
struct Griefer {
    key: SigningKey,
    /// (nonce, id), highest id first.
    ids: Vec<([u8; 32], TableId)>,
    at: usize,
    revision: u64,
}

impl Griefer {
    fn new() -> Griefer {
        let key = SigningKey::from_bytes(&[99; 32]);
        let mut ids: Vec<([u8; 32], TableId)> = (0..4096u32)
            .map(|i| {
                let mut nonce = [0u8; 32];
                nonce[..4].copy_from_slice(&i.to_le_bytes());
                (nonce, crate::wire::table_id(&key.verifying_key(), &nonce))
            })
            .collect();
        ids.sort_by_key(|(_, id)| std::cmp::Reverse(*id));
        ids.drain(..ids.len() - 64); // the 64 lowest: below any honest id, almost surely
        Griefer {
            key,
            ids,
            at: 0,
            revision: 0,
        }
    }

    fn me(&self) -> VerifyingKey {
        self.key.verifying_key()
    }

    fn advert(&mut self, seated: Option<VerifyingKey>) -> Wire {
        self.revision += 1;
        let (nonce, table) = self.ids[self.at.min(self.ids.len() - 1)];
        let me = self.me();
        let seat = |k: VerifyingKey, name: &str| SeatInfo {
            key: k,
            name: name.into(),
            peer: k,
            bot: false,
        };
        signed(
            &Advert {
                table,
                host: me,
                nonce,
                name: "trap".into(),
                preset: Ruleset::Qiaoma,
                options_hash: options_hash(Ruleset::Qiaoma),
                stake: Money::coins(1),
                hands: 3,
                bots: 0,
                seats: [
                    Some(seat(me, "trap")),
                    seated.map(|k| seat(k, "you")),
                    None,
                    None,
                ],
                state: TableState::Open,
                revision: self.revision,
                chosen: false,
            },
            &self.key,
        )
    }
}

/// Simulated ms until four honest lobbies all began (with a griefer beside them or not).
fn four_begin(griefer: bool) -> Option<u64> {
    let mut net = Net::new(4, 0);
    let mut g = Griefer::new();
    let gk = g.me();
    for l in &mut net.lobbies {
        l.connected(gk);
    }
    // (from, to: None = the griefer, wire)
    let mut queue: Vec<(VerifyingKey, Option<usize>, Wire)> = Vec::new();
    let mut now = 0;
    while now < 120_000 {
        now += 100;
        let mut out: Vec<(VerifyingKey, Vec<Action>)> = Vec::new();
        for (from, to, w) in std::mem::take(&mut queue) {
            match to {
                Some(i) => out.push((net.lobbies[i].me, net.lobbies[i].message(from, w, now))),
                None => {
                    if let Wire::Join { key, .. } = w {
                        let ad = g.advert(Some(key));
                        queue.push((gk, Some(net.index(&from)), ad));
                    }
                }
            }
        }
        for i in 0..4 {
            out.push((net.lobbies[i].me, net.lobbies[i].tick(now)));
        }
        if griefer && now % 500 == 0 {
            g.at += 1;
            let ad = g.advert(None);
            for i in 0..4 {
                queue.push((gk, Some(i), ad.clone()));
            }
        }
        for (from, actions) in out {
            let i = net.index(&from);
            for a in actions {
                match a {
                    Action::Broadcast(w) => {
                        for to in (0..4).filter(|t| *t != i) {
                            queue.push((from, Some(to), w.clone()));
                        }
                        if griefer {
                            queue.push((from, None, w));
                        }
                    }
                    Action::Send(k, w) if k == gk => queue.push((from, None, w)),
                    Action::Send(k, w) => queue.push((from, Some(net.index(&k)), w)),
                    Action::Begin(r) => net.begun[i] = Some(*r),
                }
            }
        }
        if net.begun.iter().all(Option::is_some) {
            return Some(now);
        }
    }
    None
}

#[test]
fn a_host_that_seats_and_never_starts_under_ever_lower_ids_does_not_hold_friends() {
    let clean = four_begin(false).expect("four honest peers start a table");
    let with = four_begin(true).expect("four honest peers start a table beside a griefer");
    println!("four honest lobbies began after {clean} ms alone, {with} ms with a griefer");
    assert!(
        with <= clean + 10_000,
        "{with} ms with a griefer, {clean} ms without"
    );
}

// ---- the convergence rule over random arrivals, delays, broken connections and clicks ----

use super::sim::{Plan, Rng, Sim};
use proptest::prelude::*;

/// How long after the last peer started (or a person's last click) the lobby may take to
/// seat every peer that fits at ⌊n/need⌋ full tables (simulated ms). The figures the
/// ignored soak below prints stay well under it.
const CONVERGE_MS: u64 = 20_000;

/// A plan: `n` peers started within `spread` ms, the first `persons` of them people in the
/// app, each wanting `bots` bots.
fn plan(seed: u64, n: usize, spread: u64, persons: usize, bots: u8, breaks: f64) -> Plan {
    let mut rng = Rng::new(seed);
    Plan {
        peers: (0..n)
            .map(|i| (rng.range(0, spread), i < persons, bots, None))
            .collect(),
        delay: (1, 300),
        discover: (100, 1500),
        breaks,
        click: (500, 10_000),
        seed,
    }
}

/// Runs `plan` to the bound after its last start and checks that the peers that fit sit
/// at ⌊n/need⌋ full tables, the rest waiting. Returns the time from the last start to the
/// last table (ms).
fn converges(plan: Plan) -> Result<u64, String> {
    let n = plan.peers.len();
    let need = 4 - plan.peers[0].2 as usize;
    let last = plan.peers.iter().map(|p| p.0).max().unwrap_or(0);
    // People click up to `click.1` after what they react to: they may need a few rounds.
    let people = plan.peers.iter().any(|p| p.1);
    let until = last + CONVERGE_MS + if people { 3 * plan.click.1 } else { 0 };
    let mut sim = Sim::new(plan);
    sim.run(until);
    sim.check_tables()?;
    let tables = sim.tables.len();
    if tables != n / need {
        return Err(format!(
            "{tables} tables of {n} peers needing {need} each (waiting: {:?}; failed set-ups {})",
            sim.waiting(),
            sim.failed_setups
        ));
    }
    Ok(sim.last_table_at.saturating_sub(last))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    /// Peers started in any order within 20 s, messages delayed 1–300 ms, found 0.1–1.5 s
    /// after both are up, some connections breaking and coming back, up to two of them people
    /// who click a while after they see the tables: every run ends with ⌊n/4⌋ full tables
    /// within the bound.
    #[test]
    fn peers_that_fit_end_at_full_tables_whatever_the_order_and_timing(
        seed in any::<u64>(),
        n in 4usize..=10,
        spread in 0u64..=20_000,
        persons in 0usize..=2,
        breaks in prop_oneof![Just(0.0), 0.0f64..0.01],
    ) {
        let p = plan(seed, n, spread, persons, 0, breaks);
        if let Err(why) = converges(p.clone()) {
            prop_assert!(false, "{why}\n{p:?}");
        }
    }

    /// The same with three humans a table (each peer wants one bot).
    #[test]
    fn peers_wanting_a_bot_end_at_tables_of_three(
        seed in any::<u64>(),
        n in 3usize..=9,
        spread in 0u64..=20_000,
        breaks in prop_oneof![Just(0.0), 0.0f64..0.01],
    ) {
        let p = plan(seed, n, spread, 0, 1, breaks);
        if let Err(why) = converges(p.clone()) {
            prop_assert!(false, "{why}\n{p:?}");
        }
    }
}

/// Issue 26's case: two peers started together, two more 15 s later: one table within 5 s of
/// the fourth start.
#[test]
fn two_then_two_more_fifteen_seconds_later_sit_at_one_table_at_once() {
    for seed in 0..20 {
        let mut p = plan(seed, 4, 0, 0, 0, 0.0);
        p.peers[2].0 = 15_000;
        p.peers[3].0 = 15_000;
        let took = converges(p).expect("one table");
        assert!(
            took <= 5000,
            "seed {seed}: {took} ms after the fourth start"
        );
    }
}

/// Two bots at a table and two people who click late (10 s after they see it): all four at
/// one table.
#[test]
fn two_bots_and_two_people_clicking_late_sit_together() {
    for seed in 0..20 {
        let mut p = plan(seed, 4, 0, 2, 0, 0.0);
        p.click = (10_000, 14_000);
        converges(p).expect("one table");
    }
}

/// A peer that never accepts a set-up (a squatter, or a friend who misses the Accept) among
/// five: the first table it sits at fails once, and the four others then sit at a table
/// without it while it is set aside.
#[test]
fn a_peer_that_never_accepts_costs_the_others_one_set_up() {
    for seed in 0..20 {
        let p = plan(seed, 5, 3000, 0, 0, 0.0);
        let mut sim = Sim::new(p);
        let squatter = seed as usize % 5;
        sim.peers[squatter].never_accepts = true;
        sim.run(40_000);
        sim.check_tables().expect("distinct");
        assert_eq!(
            sim.tables.len(),
            1,
            "seed {seed}: one table of the four others"
        );
        assert!(
            !sim.tables.values().any(|h| h.contains(&squatter)),
            "seed {seed}: the squatter plays"
        );
        assert!(
            sim.failed_setups <= 1,
            "seed {seed}: {} failed set-ups",
            sim.failed_setups
        );
    }
}

/// The soak: 2,000 random runs of 4–12 peers (people, bots, breaks), with the figures
/// (`LOBBY_SOAK_RUNS`, `LOBBY_SOAK_SEED` for others).
/// `cargo test -p mahjong-net --lib lobby::tests::convergence_soak -- --ignored --nocapture`
#[test]
#[ignore = "long: 2,000 simulated lobbies"]
fn convergence_soak() {
    let runs: usize = std::env::var("LOBBY_SOAK_RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2000);
    let seed: u64 = std::env::var("LOBBY_SOAK_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(26);
    let mut rng = Rng::new(seed);
    let mut took = Vec::new();
    for run in 0..runs {
        let n = rng.range(4, 12) as usize;
        let bots = if rng.chance(0.2) { 1 } else { 0 };
        let persons = if bots == 0 {
            rng.range(0, 2) as usize
        } else {
            0
        };
        let breaks = if rng.chance(0.5) { 0.0 } else { 0.01 };
        let p = plan(rng.next(), n, rng.range(0, 20_000), persons, bots, breaks);
        match converges(p.clone()) {
            Ok(t) => took.push(t),
            Err(why) => panic!("run {run}: {why}\n{p:?}"),
        }
    }
    took.sort_unstable();
    let pct = |q: f64| took[((took.len() - 1) as f64 * q) as usize];
    println!(
        "{runs} lobbies converged; last table after the last start: median {} ms, p90 {} ms, p99 {} ms, max {} ms",
        pct(0.5),
        pct(0.9),
        pct(0.99),
        took[took.len() - 1]
    );
}

#[test]
#[ignore = "debugging aid"]
fn trace_one() {
    let seed: u64 = std::env::var("SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let n: usize = std::env::var("N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(4);
    let spread: u64 = std::env::var("SPREAD")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let persons: usize = std::env::var("PERSONS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let breaks: f64 = std::env::var("BREAKS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0.0);
    let squatter: Option<usize> = std::env::var("SQUATTER").ok().and_then(|s| s.parse().ok());
    let bots: u8 = std::env::var("BOTS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let mut p = plan(seed, n, spread, persons, bots, breaks);
    if let Ok(at) = std::env::var("AT") {
        for (i, t) in at.split(',').enumerate() {
            p.peers[i].0 = t.parse().unwrap_or(0);
        }
    }
    let mut sim = Sim::new(p);
    if let Some(s) = squatter {
        sim.peers[s].never_accepts = true;
    }
    sim.run(60_000);
    println!(
        "tables {:?} waiting {:?} failed {}",
        sim.tables,
        sim.waiting(),
        sim.failed_setups
    );
    for i in sim.waiting() {
        let l = sim.peers[i].lobby.as_ref().expect("up");
        println!("p{i}: {:?}", l.state);
        for a in l.tables() {
            println!(
                "   sees {} humans {} free {} may_sit {}",
                short(&a.host),
                a.humans(),
                a.free(),
                l.may_sit(&a, sim.now)
            );
        }
        println!(
            "   avoid {:?} refused {:?} peers {}",
            l.avoid
                .iter()
                .map(|(k, a)| (mahjong_store::to_hex(&k[..4]), a.until))
                .collect::<Vec<_>>(),
            l.refused.values().collect::<Vec<_>>(),
            l.peers.len()
        );
    }
}

/// `--only-known`: four friends who know each other and a stranger started with them; the
/// friends sit together and never with the stranger, whatever its arrival.
#[test]
fn friends_who_sit_only_with_known_players_never_sit_with_a_stranger() {
    for stranger_first in [true, false] {
        let mut net = Net::new(5, 0);
        let keys: Vec<VerifyingKey> = net.lobbies.iter().map(|l| l.me).collect();
        // Lobby 4 is the stranger (the first to open a table when it starts first).
        let stranger = if stranger_first { 0 } else { 4 };
        let admit = Admit {
            keys: keys
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != stranger)
                .map(|(_, k)| *k.as_bytes())
                .collect(),
            fingerprints: BTreeSet::new(),
        };
        for (i, l) in net.lobbies.iter_mut().enumerate() {
            if i != stranger {
                l.settings.admit = Some(admit.clone());
            }
        }
        net.run(40_000);
        for (i, begun) in net.begun.iter().enumerate() {
            if i == stranger {
                assert!(begun.is_none(), "the stranger sat");
                continue;
            }
            let roster = begun.as_ref().expect("every friend sat");
            let seats = roster.verify().expect("valid roster");
            assert!(
                seats.iter().all(|s| s.peer != keys[stranger]),
                "a friend sat with the stranger"
            );
        }
    }
}

/// A host that sits only with known players refuses a stranger's join, with why.
#[test]
fn a_host_that_sits_only_with_known_players_refuses_a_stranger() {
    let key = SigningKey::from_bytes(&[1; 32]);
    let mut s = settings("ann", 0);
    s.admit = Some(Admit::default());
    let mut host = Lobby::new(key, s, 0);
    let stranger = SigningKey::from_bytes(&[9; 32]).verifying_key();
    host.connected(stranger);
    let acts = host.tick(1000);
    let table = acts
        .iter()
        .find_map(|a| match a {
            Action::Broadcast(Wire::Advert(sa)) => Some(sa.advert.table),
            _ => None,
        })
        .expect("the host opened a table");
    let acts = host.message(
        stranger,
        Wire::Join {
            table,
            name: "Di".into(),
            key: stranger,
            bot_keys: [stranger; 4],
            avoid: Vec::new(),
        },
        1100,
    );
    assert!(
        acts.iter().any(|a| matches!(a,
            Action::Send(k, Wire::Refuse { reason, .. })
                if *k == stranger && reason.contains("only with players it knows"))),
        "{acts:?}"
    );
}
