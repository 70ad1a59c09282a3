use super::*;
use libp2p::identity::Keypair;

fn record(key: &Keypair) -> Vec<u8> {
    let addr = "/ip4/127.0.0.1/tcp/4001/p2p-circuit".parse().unwrap();
    PeerRecord::new(key, vec![addr])
        .unwrap()
        .into_signed_envelope()
        .into_protobuf_encoding()
}

fn ip(last: u8) -> Option<IpAddr> {
    Some(IpAddr::from([10, 0, 0, last]))
}

fn register(ns: &str, key: &Keypair) -> Request {
    Request::Register {
        namespace: Some(ns.into()),
        record: Some(record(key)),
        ttl: None,
    }
}

fn discover(ns: Option<&str>) -> Request {
    Request::Discover {
        namespace: ns.map(String::from),
        limit: None,
        cookie: None,
    }
}

/// Limits with no rate limit in the way.
fn limits() -> Limits {
    Limits {
        burst: 1_000_000,
        ..Limits::default()
    }
}

/// A peer that registers under `ns` from `from`: its key, and the status.
fn join(r: &mut Registry, ns: &str, from: Option<IpAddr>, now: Instant) -> (Keypair, Status) {
    let key = Keypair::generate_ed25519();
    let peer = key.public().to_peer_id();
    let (resp, _) = r.handle(peer, from, register(ns, &key), now);
    let status = match resp.unwrap() {
        Response::Registered { ttl } => {
            assert_eq!(ttl, DEFAULT_TTL);
            Status::Ok
        }
        Response::RegisterRefused(s, _) => s,
        other => panic!("{other:?}"),
    };
    (key, status)
}

/// The peer ids listed under `ns`.
fn listed(r: &mut Registry, ns: &str, now: Instant) -> Vec<PeerId> {
    let asker = PeerId::random();
    match r.handle(asker, ip(200), discover(Some(ns)), now).0.unwrap() {
        Response::Discovered { registrations, .. } => registrations
            .iter()
            .map(|l| {
                assert_eq!(l.namespace, ns);
                let env = SignedEnvelope::from_protobuf_encoding(&l.record).unwrap();
                PeerRecord::from_signed_envelope(env).unwrap().peer_id()
            })
            .collect(),
        other => panic!("{other:?}"),
    }
}

fn peer(key: &Keypair) -> PeerId {
    key.public().to_peer_id()
}

#[test]
fn a_discover_without_a_good_namespace_is_refused_and_lists_nothing() {
    let now = Instant::now();
    let mut r = Registry::new(limits());
    for _ in 0..3 {
        assert_eq!(join(&mut r, "friends", ip(1), now).1, Status::Ok);
    }
    let long = "x".repeat(MAX_NAMESPACE_BYTES + 1);
    for ns in [None, Some(""), Some(long.as_str())] {
        let (resp, _) = r.handle(PeerId::random(), ip(9), discover(ns), now);
        match resp.unwrap() {
            Response::DiscoverRefused(Status::InvalidNamespace, _) => {}
            other => panic!("{ns:?}: {other:?}"),
        }
    }
    // Even with a cookie made for "all namespaces" (eight bytes and no namespace).
    let (resp, _) = r.handle(
        PeerId::random(),
        ip(9),
        Request::Discover {
            namespace: None,
            limit: None,
            cookie: Some(vec![0; 8]),
        },
        now,
    );
    assert!(matches!(
        resp.unwrap(),
        Response::DiscoverRefused(Status::InvalidNamespace, _)
    ));
    assert_eq!(listed(&mut r, "friends", now).len(), 3);
    assert!(listed(&mut r, "other", now).is_empty());
}

#[test]
fn a_register_must_carry_the_peers_own_valid_record_and_a_ttl_within_bounds() {
    let now = Instant::now();
    let mut r = Registry::new(limits());
    let me = Keypair::generate_ed25519();
    let other = Keypair::generate_ed25519();
    let status = |resp: Option<Response>| match resp.unwrap() {
        Response::RegisterRefused(s, _) => s,
        Response::Registered { .. } => Status::Ok,
        other => panic!("{other:?}"),
    };
    // Someone else's record, sent by me.
    let (resp, _) = r.handle(peer(&me), ip(1), register("ns", &other), now);
    assert_eq!(status(resp), Status::NotAuthorized);
    // Garbage, a flipped bit, none.
    let mut flipped = record(&me);
    let n = flipped.len();
    flipped[n - 3] ^= 1;
    for rec in [Some(vec![1, 2, 3]), Some(flipped), None] {
        let req = Request::Register {
            namespace: Some("ns".into()),
            record: rec,
            ttl: None,
        };
        assert_eq!(
            status(r.handle(peer(&me), ip(1), req, now).0),
            Status::InvalidSignedPeerRecord
        );
    }
    for (ttl, want) in [
        (MIN_TTL - 1, Status::InvalidTtl),
        (MAX_TTL + 1, Status::InvalidTtl),
        (MIN_TTL, Status::Ok),
        (MAX_TTL, Status::Ok),
    ] {
        let req = Request::Register {
            namespace: Some("ns".into()),
            record: Some(record(&me)),
            ttl: Some(ttl),
        };
        assert_eq!(
            status(r.handle(peer(&me), ip(1), req, now).0),
            want,
            "{ttl}"
        );
    }
    for ns in [None, Some(String::new())] {
        let req = Request::Register {
            namespace: ns,
            record: Some(record(&me)),
            ttl: None,
        };
        assert_eq!(
            status(r.handle(peer(&me), ip(1), req, now).0),
            Status::InvalidNamespace
        );
    }
    assert_eq!(r.len(), 1, "renewals replace: one registration");
}

#[test]
fn a_flood_from_one_address_cannot_fill_a_namespace_nor_push_out_friends() {
    let now = Instant::now();
    let mut r = Registry::new(limits());
    let (ann, s) = join(&mut r, "friends", ip(1), now);
    assert_eq!(s, Status::Ok);
    let (bo, s) = join(&mut r, "friends", ip(2), now);
    assert_eq!(s, Status::Ok);
    // 300 fresh peer ids from one address.
    let mut accepted = 0;
    for _ in 0..300 {
        if join(&mut r, "friends", ip(66), now).1 == Status::Ok {
            accepted += 1;
        }
    }
    assert_eq!(accepted, MAX_REGISTRATIONS_PER_IP_IN_NAMESPACE);
    // Friends after the flood still get in.
    let (cy, s) = join(&mut r, "friends", ip(3), now);
    assert_eq!(s, Status::Ok);
    let found = listed(&mut r, "friends", now);
    assert_eq!(found.len(), 3 + MAX_REGISTRATIONS_PER_IP_IN_NAMESPACE);
    assert_eq!(&found[..2], &[peer(&ann), peer(&bo)], "oldest first");
    assert!(found.contains(&peer(&cy)));

    // Floods from enough addresses fill the namespace: newcomers are refused, and nobody
    // held is pushed out.
    let mut last = 100;
    while r.count_in("friends") < MAX_REGISTRATIONS_PER_NAMESPACE {
        join(&mut r, "friends", ip(last), now);
        last += 1;
    }
    assert_eq!(join(&mut r, "friends", ip(250), now).1, Status::Unavailable);
    let found = listed(&mut r, "friends", now);
    assert_eq!(found.len(), MAX_REGISTRATIONS_PER_NAMESPACE);
    for f in [&ann, &bo, &cy] {
        assert!(found.contains(&peer(f)));
    }
    // A friend's renewal in a full namespace is not refused.
    let (resp, _) = r.handle(peer(&ann), ip(1), register("friends", &ann), now);
    assert!(matches!(resp.unwrap(), Response::Registered { .. }));
}

#[test]
fn bounds_per_peer_per_address_and_in_total() {
    let now = Instant::now();
    let mut r = Registry::new(limits());
    let key = Keypair::generate_ed25519();
    let mut ok = 0;
    for i in 0..MAX_REGISTRATIONS_PER_PEER + 3 {
        let (resp, _) = r.handle(peer(&key), ip(1), register(&format!("ns{i}"), &key), now);
        if matches!(resp.unwrap(), Response::Registered { .. }) {
            ok += 1;
        }
    }
    assert_eq!(ok, MAX_REGISTRATIONS_PER_PEER);
    // One address over many namespaces.
    let mut ok = 0;
    for i in 0..MAX_REGISTRATIONS_PER_IP + 5 {
        if join(&mut r, &format!("n{i}"), ip(2), now).1 == Status::Ok {
            ok += 1;
        }
    }
    assert_eq!(ok, MAX_REGISTRATIONS_PER_IP);

    let mut small = Registry::new(Limits {
        total: 5,
        ..limits()
    });
    let mut ok = 0;
    for i in 0..8 {
        if join(&mut small, &format!("n{i}"), ip(i), now).1 == Status::Ok {
            ok += 1;
        }
    }
    assert_eq!(ok, 5);
}

#[test]
fn registrations_go_with_their_peer_and_their_ttl() {
    let now = Instant::now();
    let mut r = Registry::new(limits());
    let (ann, _) = join(&mut r, "friends", ip(1), now);
    let (bo, _) = join(&mut r, "friends", ip(1), now);
    assert_eq!(r.peer_gone(peer(&ann)), 1);
    assert_eq!(listed(&mut r, "friends", now), vec![peer(&bo)]);
    // The address's count is freed too.
    for _ in 0..MAX_REGISTRATIONS_PER_IP_IN_NAMESPACE - 1 {
        assert_eq!(join(&mut r, "friends", ip(1), now).1, Status::Ok);
    }
    assert_eq!(join(&mut r, "friends", ip(1), now).1, Status::Unavailable);
    let later = now + Duration::from_secs(DEFAULT_TTL + 1);
    assert!(listed(&mut r, "friends", later).is_empty());
    assert!(r.is_empty());
    // Unregister.
    let (cy, _) = join(&mut r, "friends", ip(1), later);
    let (resp, _) = r.handle(
        peer(&cy),
        ip(1),
        Request::Unregister {
            namespace: Some("friends".into()),
        },
        later,
    );
    assert!(resp.is_none());
    assert!(r.is_empty());
}

#[test]
fn a_cookie_pages_and_a_foreign_one_is_refused() {
    let now = Instant::now();
    let mut r = Registry::new(limits());
    let keys: Vec<Keypair> = (0..5)
        .map(|i| join(&mut r, "friends", ip(i), now).0)
        .collect();
    join(&mut r, "others", ip(9), now);
    let asker = PeerId::random();
    let mut cookie = None;
    let mut seen = Vec::new();
    for _ in 0..4 {
        let req = Request::Discover {
            namespace: Some("friends".into()),
            limit: Some(2),
            cookie: cookie.clone(),
        };
        match r.handle(asker, ip(200), req, now).0.unwrap() {
            Response::Discovered {
                registrations,
                cookie: c,
            } => {
                assert!(registrations.len() <= 2);
                for l in registrations {
                    let env = SignedEnvelope::from_protobuf_encoding(&l.record).unwrap();
                    seen.push(PeerRecord::from_signed_envelope(env).unwrap().peer_id());
                }
                assert!(c.ends_with(b"friends"));
                cookie = Some(c);
            }
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(seen, keys.iter().map(peer).collect::<Vec<_>>());
    // The cookie of another namespace, a made-up one, a short one.
    let mut made_up = u64::MAX.to_be_bytes().to_vec();
    made_up.extend_from_slice(b"friends");
    for bad in [
        cookie.clone().map(|mut c| {
            c.truncate(8);
            c.extend_from_slice(b"others");
            c
        }),
        Some(made_up),
        Some(vec![1, 2]),
    ] {
        let req = Request::Discover {
            namespace: Some("friends".into()),
            limit: None,
            cookie: bad,
        };
        assert!(matches!(
            r.handle(asker, ip(200), req, now).0.unwrap(),
            Response::DiscoverRefused(Status::InvalidCookie, _)
        ));
    }
}

#[test]
fn an_answer_is_bounded() {
    let now = Instant::now();
    let mut r = Registry::new(Limits {
        per_namespace: 500,
        per_ip_in_namespace: 500,
        per_ip: 500,
        ..limits()
    });
    for i in 0..150u8 {
        join(&mut r, "big", ip(i), now);
    }
    let req = Request::Discover {
        namespace: Some("big".into()),
        limit: Some(10_000),
        cookie: None,
    };
    match r.handle(PeerId::random(), ip(1), req, now).0.unwrap() {
        Response::Discovered { registrations, .. } => {
            assert_eq!(registrations.len(), MAX_DISCOVER_ANSWER)
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn requests_are_rate_limited_per_peer() {
    let now = Instant::now();
    let mut r = Registry::new(Limits::default());
    let asker = PeerId::random();
    let mut refused = 0;
    for _ in 0..REQUEST_BURST + 5 {
        if let Response::DiscoverRefused(Status::Unavailable, _) =
            r.handle(asker, ip(1), discover(Some("ns")), now).0.unwrap()
        {
            refused += 1;
        }
    }
    assert_eq!(refused, 5);
    // Another peer is not held back; the first gets one more a second.
    assert!(matches!(
        r.handle(PeerId::random(), ip(1), discover(Some("ns")), now)
            .0
            .unwrap(),
        Response::Discovered { .. }
    ));
    let later = now + Duration::from_secs(1);
    assert!(matches!(
        r.handle(asker, ip(1), discover(Some("ns")), later)
            .0
            .unwrap(),
        Response::Discovered { .. }
    ));
    assert!(matches!(
        r.handle(asker, ip(1), discover(Some("ns")), later)
            .0
            .unwrap(),
        Response::DiscoverRefused(Status::Unavailable, _)
    ));
}

#[test]
fn the_server_drops_a_peers_registrations_with_its_last_connection() {
    let now = Instant::now();
    let mut s = Server::new(limits());
    let key = Keypair::generate_ed25519();
    let (c1, c2) = (
        ConnectionId::new_unchecked(1),
        ConnectionId::new_unchecked(2),
    );
    s.connected(c1, ip(1));
    s.connected(c2, ip(1));
    let (resp, _) = s.request(peer(&key), c1, register("ns", &key), now);
    assert!(matches!(resp.unwrap(), Response::Registered { .. }));
    assert_eq!(s.closed(peer(&key), c1, 1), 0);
    assert_eq!(s.registry.len(), 1);
    assert_eq!(s.closed(peer(&key), c2, 0), 1);
    assert!(s.registry.is_empty());
    // A request whose connection is gone registers nothing.
    let (resp, _) = s.request(peer(&key), c1, register("ns", &key), now);
    assert!(matches!(
        resp.unwrap(),
        Response::RegisterRefused(Status::Unavailable, _)
    ));
    assert!(s.registry.is_empty());
}
