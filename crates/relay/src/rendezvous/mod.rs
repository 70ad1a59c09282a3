//! The relay's own rendezvous server: the wire protocol `/rendezvous/1.0.0` of the libp2p
//! rendezvous specification, so the players' `libp2p::rendezvous::client::Behaviour` works
//! unchanged, with rules the library's server cannot be given (its request type and codec are
//! private):
//!
//! - **A look-up names its namespace.** A Discover without a namespace, or with an empty or
//!   too long one, is refused (`E_INVALID_NAMESPACE`) and lists nothing. A stranger learns
//!   nothing without the namespace (a hash of the table code).
//! - **A registration is the peer's own.** Its signed peer record must verify and be signed
//!   by the peer on the connection it came on (`E_NOT_AUTHORIZED` otherwise); its TTL must lie
//!   within [`MIN_TTL`]..=[`MAX_TTL`].
//! - **Registrations are bounded** in total, per peer, per namespace, per IP address of the
//!   registering connection, and per IP address within a namespace (the constants below).
//!   A registration past a bound is refused (`E_UNAVAILABLE`); none already held is ever
//!   pushed out, and a Discover lists a namespace oldest first, so a flood can neither evict
//!   nor hide friends registered before it.
//! - **Registrations live with their peer's connection**: when its last connection to the
//!   relay closes, the peer's registrations go (a player keeps its connection for its
//!   reservation). They also end at their TTL.
//! - **Requests are rate-limited per peer** ([`REQUEST_BURST`], [`REQUESTS_PER_SECOND`]),
//!   and an answer lists at most [`MAX_DISCOVER_ANSWER`] registrations with a cookie to page
//!   on with.

pub mod wire;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::hash::{BuildHasher, Hasher};
use std::io;
use std::net::IpAddr;
use std::time::{Duration, Instant};

use futures::{AsyncRead, AsyncWrite};
use libp2p::core::{PeerRecord, SignedEnvelope};
use libp2p::swarm::ConnectionId;
use libp2p::{PeerId, StreamProtocol, request_response};

pub use wire::{Listed, Request, Response, Status};

/// The protocol, as the specification names it.
pub const PROTOCOL: StreamProtocol = StreamProtocol::new("/rendezvous/1.0.0");

/// The longest namespace, bytes (the specification's and the library's bound). A table
/// code's namespace is 32 hex digits.
pub const MAX_NAMESPACE_BYTES: usize = 255;

/// The TTL of a Register that gives none, seconds: the library's default, 2 h (what the
/// players' client asks by giving none).
pub const DEFAULT_TTL: u64 = 2 * 60 * 60;

/// The shortest TTL accepted, seconds. Registrations end with their peer's connection anyway;
/// a minute keeps a client from making the relay churn on registrations that end at once.
pub const MIN_TTL: u64 = 60;

/// The longest TTL accepted, seconds: the library's bound, three days. A registration ends
/// with its peer's connection anyway, so a long TTL holds nothing once the peer is gone.
pub const MAX_TTL: u64 = 72 * 60 * 60;

/// Registrations in total. With [`MAX_REGISTRATIONS_PER_IP`] it takes 64 addresses to fill
/// the relay; the players of its 32 tables (128 reservations) need 128.
pub const MAX_REGISTRATIONS: usize = 1024;

/// Registrations per peer id. A player registers under one table code's namespace; four
/// leave room for a player who switches codes while the old registration lasts.
pub const MAX_REGISTRATIONS_PER_PEER: usize = 4;

/// Registrations per namespace. A table needs four; a code shared by friends who play at two
/// tables, restarts (a new process of the same key replaces its registration, a new key while
/// the old connection lingers does not) and late comers fit in 32 with room to spare. It is
/// also half of the players' client's `MAX_CODE_PEERS` (64), so a full namespace never makes
/// a client drop a peer found under the code. Four addresses at
/// [`MAX_REGISTRATIONS_PER_IP_IN_NAMESPACE`] are needed to fill a namespace.
pub const MAX_REGISTRATIONS_PER_NAMESPACE: usize = 32;

/// Registrations from one IP address (the address of the connection a Register came on)
/// under one namespace: one table of four behind one NAT, twice (restarts, a second table of
/// the same code). This is the bound that keeps a flood from one address (fresh peer ids cost
/// nothing) from filling a namespace: it holds at most 8 of the [`MAX_REGISTRATIONS_PER_NAMESPACE`].
pub const MAX_REGISTRATIONS_PER_IP_IN_NAMESPACE: usize = 8;

/// Registrations from one IP address in all namespaces: as many as the relay lets that
/// address hold connections (`MAX_CONNECTIONS_PER_IP`, four tables of players behind one NAT).
pub const MAX_REGISTRATIONS_PER_IP: usize = 16;

/// The most registrations one Discover answer lists (whatever limit the client asks; the
/// players ask 64). More than a namespace holds, so one answer lists a whole namespace; an
/// answer is at most some 100 × 2 KiB.
pub const MAX_DISCOVER_ANSWER: usize = 100;

/// Requests a peer may make at once before the rate applies (token bucket size). The
/// players' client registers once (again every 3 s until it is accepted) and looks up every
/// 2 s in the lobby, every 10 s at a table.
pub const REQUEST_BURST: u32 = 10;

/// Requests per second a peer may keep making: twice what a player in the lobby makes.
/// Past it the request is refused (`E_UNAVAILABLE`).
pub const REQUESTS_PER_SECOND: u32 = 1;

/// The bounds the registry applies; [`Limits::default`] is the constants above (tests make
/// smaller ones).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// [`MAX_REGISTRATIONS`].
    pub total: usize,
    /// [`MAX_REGISTRATIONS_PER_PEER`].
    pub per_peer: usize,
    /// [`MAX_REGISTRATIONS_PER_NAMESPACE`].
    pub per_namespace: usize,
    /// [`MAX_REGISTRATIONS_PER_IP`].
    pub per_ip: usize,
    /// [`MAX_REGISTRATIONS_PER_IP_IN_NAMESPACE`].
    pub per_ip_in_namespace: usize,
    /// [`MAX_DISCOVER_ANSWER`].
    pub answer: usize,
    /// [`REQUEST_BURST`].
    pub burst: u32,
    /// [`REQUESTS_PER_SECOND`].
    pub per_second: u32,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            total: MAX_REGISTRATIONS,
            per_peer: MAX_REGISTRATIONS_PER_PEER,
            per_namespace: MAX_REGISTRATIONS_PER_NAMESPACE,
            per_ip: MAX_REGISTRATIONS_PER_IP,
            per_ip_in_namespace: MAX_REGISTRATIONS_PER_IP_IN_NAMESPACE,
            answer: MAX_DISCOVER_ANSWER,
            burst: REQUEST_BURST,
            per_second: REQUESTS_PER_SECOND,
        }
    }
}

/// One registration held.
#[derive(Debug, Clone)]
struct Entry {
    peer: PeerId,
    namespace: String,
    /// The IP address of the connection it came on (`None`: an address without one).
    ip: Option<IpAddr>,
    /// The signed envelope, as sent.
    record: Vec<u8>,
    expires: Instant,
}

/// A peer's request allowance.
#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

/// A refused request: the status and why (the status text).
type Refusal = (Status, String);

/// A Discover answer: the namespace, the registrations listed and the cookie.
type Answer = (String, Vec<Listed>, Vec<u8>);

/// What a request did, for the relay's log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Registered (or renewed) under the namespace.
    Registered(String),
    /// A Register refused, and why.
    RegisterRefused(Status, String),
    /// Unregistered from the namespace (if it was registered there).
    Unregistered(String),
    /// A Discover answered with this many registrations.
    Discovered(String, usize),
    /// A Discover refused, and why.
    DiscoverRefused(Status, String),
}

/// The registrations a relay holds, and the rules above. Time is passed in, so it can be
/// tested without waiting.
#[derive(Debug)]
pub struct Registry {
    limits: Limits,
    /// By serial number: a registration's place in the order they came (a renewal takes a
    /// new one), which is the order a Discover lists them and what a cookie points at.
    entries: BTreeMap<u64, Entry>,
    next_serial: u64,
    by_key: HashMap<(PeerId, String), u64>,
    by_namespace: HashMap<String, BTreeSet<u64>>,
    per_peer: HashMap<PeerId, usize>,
    per_ip: HashMap<Option<IpAddr>, usize>,
    per_ip_in_namespace: HashMap<(Option<IpAddr>, String), usize>,
    expiry: BTreeSet<(Instant, u64)>,
    buckets: HashMap<PeerId, Bucket>,
    /// XORed into the serial a cookie carries, so a cookie tells a client nothing of how
    /// many registrations the relay has seen.
    cookie_mask: u64,
}

fn bump<K: std::hash::Hash + Eq>(map: &mut HashMap<K, usize>, key: K) {
    *map.entry(key).or_insert(0) += 1;
}

fn drop_one<K: std::hash::Hash + Eq>(map: &mut HashMap<K, usize>, key: K) {
    if let std::collections::hash_map::Entry::Occupied(mut e) = map.entry(key) {
        *e.get_mut() -= 1;
        if *e.get() == 0 {
            e.remove();
        }
    }
}

/// Why a namespace is refused, if it is.
fn check_namespace(ns: Option<&str>) -> Result<&str, String> {
    match ns {
        None => Err("a namespace is required".into()),
        Some("") => Err("the namespace is empty".into()),
        Some(n) if n.len() > MAX_NAMESPACE_BYTES => Err(format!(
            "the namespace is longer than {MAX_NAMESPACE_BYTES} bytes"
        )),
        Some(n) => Ok(n),
    }
}

impl Registry {
    /// An empty registry with these limits.
    pub fn new(limits: Limits) -> Registry {
        Registry {
            limits,
            entries: BTreeMap::new(),
            next_serial: 1,
            by_key: HashMap::new(),
            by_namespace: HashMap::new(),
            per_peer: HashMap::new(),
            per_ip: HashMap::new(),
            per_ip_in_namespace: HashMap::new(),
            expiry: BTreeSet::new(),
            buckets: HashMap::new(),
            cookie_mask: std::collections::hash_map::RandomState::new()
                .build_hasher()
                .finish(),
        }
    }

    /// The registrations held.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether none is held.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The registrations held under `namespace`.
    pub fn count_in(&self, namespace: &str) -> usize {
        self.by_namespace.get(namespace).map_or(0, |s| s.len())
    }

    fn insert(&mut self, serial: u64, e: Entry) {
        self.by_key.insert((e.peer, e.namespace.clone()), serial);
        self.by_namespace
            .entry(e.namespace.clone())
            .or_default()
            .insert(serial);
        bump(&mut self.per_peer, e.peer);
        bump(&mut self.per_ip, e.ip);
        bump(&mut self.per_ip_in_namespace, (e.ip, e.namespace.clone()));
        self.expiry.insert((e.expires, serial));
        self.entries.insert(serial, e);
    }

    fn remove(&mut self, serial: u64) -> Option<Entry> {
        let e = self.entries.remove(&serial)?;
        self.by_key.remove(&(e.peer, e.namespace.clone()));
        if let Some(set) = self.by_namespace.get_mut(&e.namespace) {
            set.remove(&serial);
            if set.is_empty() {
                self.by_namespace.remove(&e.namespace);
            }
        }
        drop_one(&mut self.per_peer, e.peer);
        drop_one(&mut self.per_ip, e.ip);
        drop_one(&mut self.per_ip_in_namespace, (e.ip, e.namespace.clone()));
        self.expiry.remove(&(e.expires, serial));
        Some(e)
    }

    /// Drops the registrations whose TTL has run out.
    pub fn expire(&mut self, now: Instant) {
        while let Some(&(at, serial)) = self.expiry.first() {
            if at > now {
                break;
            }
            self.remove(serial);
        }
    }

    /// The peer's last connection closed: its registrations and its allowance go.
    pub fn peer_gone(&mut self, peer: PeerId) -> usize {
        self.buckets.remove(&peer);
        let serials: Vec<u64> = self
            .by_key
            .iter()
            .filter(|((p, _), _)| *p == peer)
            .map(|(_, s)| *s)
            .collect();
        for s in &serials {
            self.remove(*s);
        }
        serials.len()
    }

    /// Takes one request from `peer`'s allowance; false when it has none left.
    fn allow(&mut self, peer: PeerId, now: Instant) -> bool {
        let (burst, rate) = (
            f64::from(self.limits.burst),
            f64::from(self.limits.per_second),
        );
        let b = self.buckets.entry(peer).or_insert(Bucket {
            tokens: burst,
            at: now,
        });
        let gained = now.saturating_duration_since(b.at).as_secs_f64() * rate;
        b.tokens = (b.tokens + gained).min(burst);
        b.at = now;
        if b.tokens >= 1.0 {
            b.tokens -= 1.0;
            true
        } else {
            false
        }
    }

    /// Answers `request` from `peer`, which came on a connection from `ip`: the response to
    /// send (none to an Unregister, as the specification has it) and what was done.
    pub fn handle(
        &mut self,
        peer: PeerId,
        ip: Option<IpAddr>,
        request: Request,
        now: Instant,
    ) -> (Option<Response>, Outcome) {
        self.expire(now);
        let allowed = self.allow(peer, now);
        match request {
            Request::Register {
                namespace,
                record,
                ttl,
            } => {
                let result = if allowed {
                    self.register(peer, ip, namespace.as_deref(), record, ttl, now)
                } else {
                    Err((Status::Unavailable, "too many requests".to_string()))
                };
                match result {
                    Ok((ns, ttl)) => (Some(Response::Registered { ttl }), Outcome::Registered(ns)),
                    Err((status, why)) => (
                        Some(Response::RegisterRefused(status, why.clone())),
                        Outcome::RegisterRefused(status, why),
                    ),
                }
            }
            Request::Unregister { namespace } => {
                // Always done: it only ever frees.
                let ns = namespace.unwrap_or_default();
                if let Some(&serial) = self.by_key.get(&(peer, ns.clone())) {
                    self.remove(serial);
                }
                (None, Outcome::Unregistered(ns))
            }
            Request::Discover {
                namespace,
                limit,
                cookie,
            } => {
                let result = if allowed {
                    self.discover(namespace.as_deref(), limit, cookie, now)
                } else {
                    Err((Status::Unavailable, "too many requests".to_string()))
                };
                match result {
                    Ok((ns, registrations, cookie)) => {
                        let n = registrations.len();
                        (
                            Some(Response::Discovered {
                                registrations,
                                cookie,
                            }),
                            Outcome::Discovered(ns, n),
                        )
                    }
                    Err((status, why)) => (
                        Some(Response::DiscoverRefused(status, why.clone())),
                        Outcome::DiscoverRefused(status, why),
                    ),
                }
            }
        }
    }

    fn register(
        &mut self,
        peer: PeerId,
        ip: Option<IpAddr>,
        namespace: Option<&str>,
        record: Option<Vec<u8>>,
        ttl: Option<u64>,
        now: Instant,
    ) -> Result<(String, u64), Refusal> {
        let ns = check_namespace(namespace)
            .map_err(|why| (Status::InvalidNamespace, why))?
            .to_string();
        let ttl = ttl.unwrap_or(DEFAULT_TTL);
        if !(MIN_TTL..=MAX_TTL).contains(&ttl) {
            return Err((
                Status::InvalidTtl,
                format!("the TTL must lie within {MIN_TTL}..={MAX_TTL} s"),
            ));
        }
        let record =
            record.ok_or_else(|| (Status::InvalidSignedPeerRecord, "no peer record".into()))?;
        let invalid = |e: &dyn std::fmt::Display| (Status::InvalidSignedPeerRecord, e.to_string());
        let envelope = SignedEnvelope::from_protobuf_encoding(&record).map_err(|e| invalid(&e))?;
        // The record format the Rust clients read back (libp2p's "legacy" one): a record
        // they could not read would fail their whole Discover answer.
        let signed = PeerRecord::from_signed_envelope(envelope).map_err(|e| invalid(&e))?;
        if signed.peer_id() != peer {
            return Err((
                Status::NotAuthorized,
                "the record is signed by another peer than the one registering".into(),
            ));
        }
        // A renewal replaces the peer's registration under the namespace: it is set aside
        // while the bounds are checked, and put back if the new one is refused.
        let old = self
            .by_key
            .get(&(peer, ns.clone()))
            .copied()
            .and_then(|s| self.remove(s).map(|e| (s, e)));
        let l = self.limits;
        let refusal = if self.entries.len() >= l.total {
            Some(format!("the relay holds {} registrations", l.total))
        } else if self.per_peer.get(&peer).copied().unwrap_or(0) >= l.per_peer {
            Some(format!("a peer may hold {} registrations", l.per_peer))
        } else if self.count_in(&ns) >= l.per_namespace {
            Some(format!(
                "the namespace holds {} registrations",
                l.per_namespace
            ))
        } else if self.per_ip.get(&ip).copied().unwrap_or(0) >= l.per_ip {
            Some(format!("an IP address may hold {} registrations", l.per_ip))
        } else if self
            .per_ip_in_namespace
            .get(&(ip, ns.clone()))
            .copied()
            .unwrap_or(0)
            >= l.per_ip_in_namespace
        {
            Some(format!(
                "an IP address may hold {} registrations in a namespace",
                l.per_ip_in_namespace
            ))
        } else {
            None
        };
        if let Some(why) = refusal {
            if let Some((serial, e)) = old {
                self.insert(serial, e);
            }
            return Err((Status::Unavailable, why));
        }
        let serial = self.next_serial;
        self.next_serial += 1;
        self.insert(
            serial,
            Entry {
                peer,
                namespace: ns.clone(),
                ip,
                record,
                expires: now + Duration::from_secs(ttl),
            },
        );
        Ok((ns, ttl))
    }

    fn cookie(&self, serial: u64, ns: &str) -> Vec<u8> {
        let mut c = (serial ^ self.cookie_mask).to_be_bytes().to_vec();
        c.extend_from_slice(ns.as_bytes());
        c
    }

    fn discover(
        &mut self,
        namespace: Option<&str>,
        limit: Option<u64>,
        cookie: Option<Vec<u8>>,
        now: Instant,
    ) -> Result<Answer, Refusal> {
        let ns = check_namespace(namespace).map_err(|why| (Status::InvalidNamespace, why))?;
        // A cookie is the one this registry gave for the namespace: the serial of the last
        // registration listed (masked), then the namespace (the layout libp2p's client
        // parses). The next answer lists what came after it.
        let after = match cookie {
            None => 0,
            Some(c) => {
                if c.len() < 8 || &c[8..] != ns.as_bytes() {
                    return Err((
                        Status::InvalidCookie,
                        "the cookie is not one given for this namespace".into(),
                    ));
                }
                let mut id = [0u8; 8];
                id.copy_from_slice(&c[..8]);
                let serial = u64::from_be_bytes(id) ^ self.cookie_mask;
                if serial >= self.next_serial {
                    return Err((
                        Status::InvalidCookie,
                        "the cookie is not one this relay gave".into(),
                    ));
                }
                serial
            }
        };
        let most = limit
            .map_or(self.limits.answer, |l| {
                usize::try_from(l).unwrap_or(usize::MAX)
            })
            .min(self.limits.answer);
        let mut last = after;
        let mut listed = Vec::new();
        if let Some(set) = self.by_namespace.get(ns) {
            for &serial in set.range(after + 1..).take(most) {
                let Some(e) = self.entries.get(&serial) else {
                    continue;
                };
                listed.push(Listed {
                    namespace: e.namespace.clone(),
                    record: e.record.clone(),
                    ttl: e.expires.saturating_duration_since(now).as_secs().max(1),
                });
                last = serial;
            }
        }
        Ok((ns.to_string(), listed, self.cookie(last, ns)))
    }
}

/// The request-response codec of the protocol, server side: requests are read, responses
/// written (a server never sends a request).
#[derive(Debug, Clone, Copy, Default)]
pub struct Codec;

impl request_response::Codec for Codec {
    type Protocol = StreamProtocol;
    type Request = Request;
    type Response = Response;

    async fn read_request<T>(&mut self, _: &StreamProtocol, io: &mut T) -> io::Result<Request>
    where
        T: AsyncRead + Unpin + Send,
    {
        wire::read_request(io).await
    }

    async fn read_response<T>(&mut self, _: &StreamProtocol, _: &mut T) -> io::Result<Response>
    where
        T: AsyncRead + Unpin + Send,
    {
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "the relay reads no rendezvous response",
        ))
    }

    async fn write_request<T>(
        &mut self,
        _: &StreamProtocol,
        _: &mut T,
        _: Request,
    ) -> io::Result<()>
    where
        T: AsyncWrite + Unpin + Send,
    {
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "the relay sends no rendezvous request",
        ))
    }

    async fn write_response<T>(
        &mut self,
        _: &StreamProtocol,
        io: &mut T,
        response: Response,
    ) -> io::Result<()>
    where
        T: AsyncWrite + Unpin + Send,
    {
        wire::write_response(io, &response).await
    }
}

/// Rendezvous requests a connection may have open at once (the players' client has at most a
/// Register and a Discover in flight).
pub const MAX_STREAMS_PER_CONNECTION: usize = 4;

/// How long a request may take to arrive and be answered.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// The server's libp2p behaviour: inbound requests only.
pub fn behaviour() -> request_response::Behaviour<Codec> {
    request_response::Behaviour::with_codec(
        Codec,
        [(PROTOCOL, request_response::ProtocolSupport::Inbound)],
        request_response::Config::default()
            .with_request_timeout(REQUEST_TIMEOUT)
            .with_max_concurrent_streams(MAX_STREAMS_PER_CONNECTION),
    )
}

/// The registry and the connections it needs to know of: the IP address of each (a request
/// names its connection) and when a peer's last one closes.
#[derive(Debug)]
pub struct Server {
    /// The registrations.
    pub registry: Registry,
    connections: HashMap<ConnectionId, Option<IpAddr>>,
}

impl Server {
    /// A server with these limits.
    pub fn new(limits: Limits) -> Server {
        Server {
            registry: Registry::new(limits),
            connections: HashMap::new(),
        }
    }

    /// A connection was established, from `ip`.
    pub fn connected(&mut self, connection: ConnectionId, ip: Option<IpAddr>) {
        self.connections.insert(connection, ip);
    }

    /// A connection closed; `remaining` are the peer's connections still open. Returns how
    /// many registrations went with the peer's last one.
    pub fn closed(&mut self, peer: PeerId, connection: ConnectionId, remaining: u32) -> usize {
        self.connections.remove(&connection);
        if remaining == 0 {
            self.registry.peer_gone(peer)
        } else {
            0
        }
    }

    /// Answers a request that came from `peer` on `connection`. A request whose connection
    /// has already closed (its event came late) registers nothing.
    pub fn request(
        &mut self,
        peer: PeerId,
        connection: ConnectionId,
        request: Request,
        now: Instant,
    ) -> (Option<Response>, Outcome) {
        let Some(&ip) = self.connections.get(&connection) else {
            let why = "the connection has closed".to_string();
            return match request {
                Request::Register { .. } => (
                    Some(Response::RegisterRefused(Status::Unavailable, why.clone())),
                    Outcome::RegisterRefused(Status::Unavailable, why),
                ),
                Request::Discover { .. } => (
                    Some(Response::DiscoverRefused(Status::Unavailable, why.clone())),
                    Outcome::DiscoverRefused(Status::Unavailable, why),
                ),
                Request::Unregister { namespace } => {
                    (None, Outcome::Unregistered(namespace.unwrap_or_default()))
                }
            };
        };
        self.registry.handle(peer, ip, request, now)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;
