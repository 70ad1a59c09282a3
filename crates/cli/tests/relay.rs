//! `mahjong relay` as a real process on loopback, and clients built here from libp2p (relay
//! client, identify, ping, a stream) that reserve on it, reach each other through it and
//! flood it.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use futures::{AsyncReadExt, AsyncWriteExt, StreamExt};
use libp2p::core::multiaddr::Protocol;
use libp2p::swarm::{NetworkBehaviour, SwarmEvent};
use libp2p::{
    Multiaddr, PeerId, StreamProtocol, identify, identity, noise, ping, relay, rendezvous, tcp,
    yamux,
};
use tokio::sync::mpsc as tmpsc;

static COUNTER: AtomicU32 = AtomicU32::new(0);

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "relay-{name}-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// A `mahjong relay` process: its stdout lines (addresses) and stderr lines (logs).
struct RelayProc {
    child: Child,
    out: mpsc::Receiver<String>,
    err: mpsc::Receiver<String>,
}

fn lines_of(r: impl std::io::Read + Send + 'static) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(r).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

impl RelayProc {
    fn start(args: &[&str]) -> RelayProc {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mahjong"))
            .arg("relay")
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("mahjong relay starts");
        let out = lines_of(child.stdout.take().expect("piped"));
        let err = lines_of(child.stderr.take().expect("piped"));
        RelayProc { child, out, err }
    }

    /// The first address it prints.
    fn address(&self) -> Multiaddr {
        let line = self
            .out
            .recv_timeout(Duration::from_secs(20))
            .unwrap_or_else(|_| panic!("no address printed; stderr: {:?}", self.stderr()));
        line.parse()
            .unwrap_or_else(|e| panic!("{line:?} is not a multiaddr: {e}"))
    }

    fn stderr(&self) -> Vec<String> {
        self.err.try_iter().collect()
    }

    /// Sends `signal` and waits for the exit: (exit code, time taken).
    fn stop(&mut self, signal: &str) -> (Option<i32>, Duration) {
        let sent = Instant::now();
        let ok = Command::new("kill")
            .args([&format!("-{signal}"), &self.child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(ok.success());
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return (status.code(), sent.elapsed());
            }
            if sent.elapsed() > Duration::from_secs(10) {
                let _ = self.child.kill();
                let _ = self.child.wait();
                return (None, sent.elapsed());
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for RelayProc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn peer_of(addr: &Multiaddr) -> PeerId {
    match addr.iter().last() {
        Some(Protocol::P2p(p)) => p,
        _ => panic!("{addr} does not end in /p2p/"),
    }
}

#[test]
fn relay_prints_its_address_keeps_its_identity_and_stops_on_sigint_and_sigterm() {
    let dir = scratch("identity");
    let data = dir.join("relay-data");
    let data = data.to_string_lossy();
    let mut first = RelayProc::start(&["--listen", "/ip4/127.0.0.1/tcp/0", "--data-dir", &data]);
    let addr = first.address();
    let text = addr.to_string();
    assert!(text.starts_with("/ip4/127.0.0.1/tcp/"), "{text}");
    assert!(!text.starts_with("/ip4/127.0.0.1/tcp/0/"), "{text}");
    let id = peer_of(&addr);
    let (code, took) = first.stop("INT");
    assert_eq!(code, Some(0), "SIGINT: {:?}", first.stderr());
    assert!(took < Duration::from_secs(2), "SIGINT took {took:?}");
    let logs = first.stderr();
    assert!(
        logs.iter().any(|l| l.contains("relay starting")),
        "logs go to stderr: {logs:?}"
    );

    let mut second = RelayProc::start(&["--listen", "/ip4/127.0.0.1/tcp/0", "--data-dir", &data]);
    let again = second.address();
    assert_eq!(peer_of(&again), id, "same data dir, same peer id");
    let (code, took2) = second.stop("TERM");
    assert_eq!(code, Some(0), "SIGTERM: {:?}", second.stderr());
    assert!(took2 < Duration::from_secs(2), "SIGTERM took {took2:?}");
    println!("relay stopped {took:?} after SIGINT, {took2:?} after SIGTERM");
}

/// Runs `mahjong relay ARGS` to its end (killed after 10 s): (exit code, stderr lines).
fn run_to_end(args: &[&str]) -> (Option<i32>, Vec<String>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mahjong"))
        .arg("relay")
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    let err = lines_of(child.stderr.take().expect("piped"));
    let end = Instant::now() + Duration::from_secs(10);
    let code = loop {
        if let Ok(Some(status)) = child.try_wait() {
            break status.code();
        }
        if Instant::now() > end {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    std::thread::sleep(Duration::from_millis(50));
    let err = err.try_iter().filter(|l| !l.trim().is_empty()).collect();
    (code, err)
}

#[test]
fn bad_input_gets_one_line_and_a_failure_code() {
    let dir = scratch("bad");
    let data = dir.join("d");
    let data = data.to_string_lossy();
    let file = dir.join("a-file");
    std::fs::write(&file, "not a directory").expect("write");
    let under_file = file.join("relay");
    let under_file = under_file.to_string_lossy();
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let taken = format!(
        "/ip4/127.0.0.1/tcp/{}",
        taken.local_addr().expect("addr").port()
    );
    for (args, says) in [
        (
            vec!["--listen", "/ip4/127.0.0.1/tcp/nope", "--data-dir", &data],
            "is not a multiaddr",
        ),
        (
            vec!["--listen", "localhost:4001", "--data-dir", &data],
            "is not a multiaddr",
        ),
        (
            vec![
                "--listen",
                "/ip4/127.0.0.1/tcp/0",
                "--external",
                "relay.example.org:4001",
                "--data-dir",
                &data,
            ],
            "--external",
        ),
        (
            vec!["--listen", "/ip4/127.0.0.1/udp/0", "--data-dir", &data],
            "not a TCP or QUIC address",
        ),
        (vec!["--listen", &taken, "--data-dir", &data], "in use"),
        (
            vec![
                "--listen",
                "/ip4/127.0.0.1/tcp/0",
                "--data-dir",
                &under_file,
            ],
            "mahjong:",
        ),
    ] {
        let (code, err) = run_to_end(&args);
        assert!(
            matches!(code, Some(c) if c != 0),
            "{args:?}: {code:?} {err:?}"
        );
        // Log lines (the relay logs to stderr) may come first; the error is one line, last.
        let said: Vec<&String> = err.iter().filter(|l| l.starts_with("mahjong: ")).collect();
        assert_eq!(said.len(), 1, "{args:?}: one line, got {err:?}");
        assert_eq!(err.last(), Some(said[0]), "{args:?}: {err:?}");
        assert!(said[0].contains(says), "{args:?}: {err:?}");
        assert!(
            !err.iter().any(|l| l.contains("panicked")),
            "{args:?}: {err:?}"
        );
        println!("{args:?} -> {}", said[0]);
    }
}

// ---- clients built from libp2p ----

#[derive(NetworkBehaviour)]
struct Client {
    relay: relay::client::Behaviour,
    identify: identify::Behaviour,
    ping: ping::Behaviour,
    stream: libp2p_stream::Behaviour,
}

const ECHO: StreamProtocol = StreamProtocol::new("/relay-test/count/1");

#[derive(Debug)]
enum Ev {
    /// The relay accepted a reservation: its circuit limits (duration, bytes).
    Reserved(Option<Duration>, Option<u64>),
    /// The relayed listener (or the connection to the relay) ended: refused.
    Refused(String),
    Connected(PeerId, Multiaddr),
    DialFailed(String),
    Pinged(PeerId),
}

enum Cmd {
    Dial(Multiaddr),
    Listen(Multiaddr),
}

/// A client on its own task (its connections live while it runs): its peer id, commands,
/// events and stream control. Dropping the command sender ends it.
fn spawn_client(
    key: identity::Keypair,
) -> (
    PeerId,
    tmpsc::UnboundedSender<Cmd>,
    tmpsc::UnboundedReceiver<Ev>,
    libp2p_stream::Control,
) {
    let mut swarm = libp2p::SwarmBuilder::with_existing_identity(key)
        .with_tokio()
        .with_tcp(
            tcp::Config::default().nodelay(true),
            noise::Config::new,
            yamux::Config::default,
        )
        .expect("tcp")
        .with_relay_client(noise::Config::new, yamux::Config::default)
        .expect("relay client")
        .with_behaviour(|key, relay| Client {
            relay,
            identify: identify::Behaviour::new(identify::Config::new(
                "relay-test/1".into(),
                key.public(),
            )),
            ping: ping::Behaviour::new(ping::Config::new()),
            stream: libp2p_stream::Behaviour::new(),
        })
        .expect("behaviour")
        .with_swarm_config(|c| c.with_idle_connection_timeout(Duration::from_secs(60)))
        .build();
    let me = *swarm.local_peer_id();
    let control = swarm.behaviour().stream.new_control();
    let (cmd_tx, mut cmd_rx) = tmpsc::unbounded_channel();
    let (ev_tx, ev_rx) = tmpsc::unbounded_channel();
    tokio::spawn(async move {
        loop {
            tokio::select! {
                cmd = cmd_rx.recv() => match cmd {
                    Some(Cmd::Dial(a)) => {
                        if let Err(e) = swarm.dial(a) {
                            let _ = ev_tx.send(Ev::DialFailed(e.to_string()));
                        }
                    }
                    Some(Cmd::Listen(a)) => {
                        if let Err(e) = swarm.listen_on(a) {
                            let _ = ev_tx.send(Ev::Refused(e.to_string()));
                        }
                    }
                    None => break,
                },
                ev = swarm.select_next_some() => {
                    let ev = match ev {
                        SwarmEvent::Behaviour(ClientEvent::Relay(
                            relay::client::Event::ReservationReqAccepted { limit, .. },
                        )) => Some(Ev::Reserved(
                            limit.as_ref().and_then(|l| l.duration()),
                            limit.as_ref().and_then(|l| l.data_in_bytes()),
                        )),
                        SwarmEvent::Behaviour(ClientEvent::Ping(ping::Event {
                            peer,
                            result: Ok(_),
                            ..
                        })) => Some(Ev::Pinged(peer)),
                        SwarmEvent::ListenerClosed { reason, .. } => {
                            Some(Ev::Refused(format!("listener closed: {reason:?}")))
                        }
                        SwarmEvent::ListenerError { error, .. } => {
                            Some(Ev::Refused(format!("listener error: {error}")))
                        }
                        SwarmEvent::ConnectionEstablished { peer_id, endpoint, .. } => Some(
                            Ev::Connected(peer_id, endpoint.get_remote_address().clone()),
                        ),
                        SwarmEvent::OutgoingConnectionError { error, .. } => {
                            Some(Ev::DialFailed(error.to_string()))
                        }
                        _ => None,
                    };
                    if let Some(ev) = ev {
                        let _ = ev_tx.send(ev);
                    }
                }
            }
        }
    });
    (me, cmd_tx, ev_rx, control)
}

/// The next event that `pick` accepts, within `limit`.
async fn next<T>(
    rx: &mut tmpsc::UnboundedReceiver<Ev>,
    limit: Duration,
    mut pick: impl FnMut(Ev) -> Option<T>,
) -> Option<T> {
    tokio::time::timeout(limit, async {
        while let Some(ev) = rx.recv().await {
            if let Some(t) = pick(ev) {
                return Some(t);
            }
        }
        None
    })
    .await
    .ok()
    .flatten()
}

/// Asks for a reservation: the limits given, or why it was refused.
async fn reserve(
    relay: &Multiaddr,
    cmd: &tmpsc::UnboundedSender<Cmd>,
    rx: &mut tmpsc::UnboundedReceiver<Ev>,
) -> Result<(Option<Duration>, Option<u64>), String> {
    cmd.send(Cmd::Listen(relay.clone().with(Protocol::P2pCircuit)))
        .expect("client runs");
    next(rx, Duration::from_secs(10), |ev| match ev {
        Ev::Reserved(d, b) => Some(Ok((d, b))),
        Ev::Refused(why) | Ev::DialFailed(why) => Some(Err(why)),
        _ => None,
    })
    .await
    .unwrap_or_else(|| Err("no answer within 10 s".into()))
}

/// B dials A through the relay, checks that the connection is to A (noise authenticated A's
/// key end to end), pings, and sends `bytes` on a stream that A counts.
async fn reach_through(
    relay: &Multiaddr,
    a: PeerId,
    a_control: &mut libp2p_stream::Control,
    b_cmd: &tmpsc::UnboundedSender<Cmd>,
    b_rx: &mut tmpsc::UnboundedReceiver<Ev>,
    b_control: &mut libp2p_stream::Control,
    bytes: usize,
) -> Duration {
    let start = Instant::now();
    let mut incoming = a_control.accept(ECHO).expect("accept");
    tokio::spawn(async move {
        while let Some((_, mut s)) = incoming.next().await {
            tokio::spawn(async move {
                let mut buf = vec![0u8; 64 << 10];
                let mut n = 0u64;
                loop {
                    match s.read(&mut buf).await {
                        Ok(0) | Err(_) => break,
                        Ok(k) => n += k as u64,
                    }
                }
                let _ = s.write_all(&n.to_le_bytes()).await;
                let _ = s.close().await;
            });
        }
    });
    let circuit = relay
        .clone()
        .with(Protocol::P2pCircuit)
        .with(Protocol::P2p(a));
    b_cmd.send(Cmd::Dial(circuit)).expect("client runs");
    let via = next(b_rx, Duration::from_secs(15), |ev| match ev {
        Ev::Connected(p, addr) if p == a => Some(Ok(addr)),
        Ev::DialFailed(why) => Some(Err(why)),
        _ => None,
    })
    .await
    .expect("an answer within 15 s")
    .expect("B reaches A through the relay");
    assert!(
        via.iter().any(|p| p == Protocol::P2pCircuit),
        "the connection is relayed: {via}"
    );
    assert!(
        next(b_rx, Duration::from_secs(15), |ev| match ev {
            Ev::Pinged(p) if p == a => Some(()),
            _ => None,
        })
        .await
        .is_some(),
        "B pings A through the relay"
    );
    let mut s = b_control.open_stream(a, ECHO).await.expect("stream");
    let chunk = vec![0x5au8; 64 << 10];
    let mut left = bytes;
    while left > 0 {
        let k = left.min(chunk.len());
        s.write_all(&chunk[..k]).await.expect("write");
        left -= k;
    }
    s.close().await.expect("close");
    let mut count = [0u8; 8];
    s.read_exact(&mut count).await.expect("A's count");
    assert_eq!(
        u64::from_le_bytes(count),
        bytes as u64,
        "every byte arrived"
    );
    start.elapsed()
}

fn relay_on_loopback(name: &str) -> (RelayProc, Multiaddr, PathBuf) {
    let dir = scratch(name);
    let data = dir.join("relay-data");
    let relay = RelayProc::start(&[
        "--listen",
        "/ip4/127.0.0.1/tcp/0",
        "--data-dir",
        &data.to_string_lossy(),
    ]);
    let addr = relay.address();
    (relay, addr, dir)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_reserves_and_another_reaches_it_through_the_relay() {
    let (relay, addr, _dir) = relay_on_loopback("reach");
    let (a, a_cmd, mut a_rx, mut a_control) = spawn_client(identity::Keypair::generate_ed25519());
    let started = Instant::now();
    let limits = reserve(&addr, &a_cmd, &mut a_rx).await.expect("A reserves");
    let reserved = started.elapsed();
    assert_eq!(
        limits,
        (
            Some(mahjong_relay::MAX_CIRCUIT_DURATION),
            Some(mahjong_relay::MAX_CIRCUIT_BYTES)
        ),
        "the relay gives mahjong's circuit limits, not the library's 2 min / 128 KiB"
    );
    let (_b, b_cmd, mut b_rx, mut b_control) = spawn_client(identity::Keypair::generate_ed25519());
    // A megabyte: eight times the library's default circuit limit.
    let took = reach_through(
        &addr,
        a,
        &mut a_control,
        &b_cmd,
        &mut b_rx,
        &mut b_control,
        1 << 20,
    )
    .await;
    let logs = relay.stderr();
    assert!(
        logs.iter().any(|l| l.contains("circuit opened")),
        "{logs:?}"
    );
    println!(
        "reserved in {reserved:?}; B reached A, pinged and sent 1 MiB through the relay in {took:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stranger_is_refused_past_the_caps_and_the_relay_keeps_serving() {
    let (relay, addr, _dir) = relay_on_loopback("flood");
    let started = Instant::now();
    // The first client reserves; the second is connected to the relay before the flood.
    let (a, a_cmd, mut a_rx, mut a_control) = spawn_client(identity::Keypair::generate_ed25519());
    reserve(&addr, &a_cmd, &mut a_rx).await.expect("A reserves");
    let (_b, b_cmd, mut b_rx, mut b_control) = spawn_client(identity::Keypair::generate_ed25519());
    b_cmd.send(Cmd::Dial(addr.clone())).expect("client runs");
    next(&mut b_rx, Duration::from_secs(10), |ev| match ev {
        Ev::Connected(..) => Some(()),
        _ => None,
    })
    .await
    .expect("B connects to the relay");

    // One stranger, one peer id, one process per reservation.
    let stranger = identity::Keypair::generate_ed25519();
    let mut kept = Vec::new();
    let mut same_id = (0, 0);
    for _ in 0..mahjong_relay::MAX_RESERVATIONS_PER_PEER + 3 {
        let (_, cmd, mut rx, _) = spawn_client(stranger.clone());
        match reserve(&addr, &cmd, &mut rx).await {
            Ok(_) => same_id.0 += 1,
            Err(_) => same_id.1 += 1,
        }
        kept.push((cmd, rx));
    }
    assert_eq!(
        same_id,
        (mahjong_relay::MAX_RESERVATIONS_PER_PEER, 3),
        "one peer id: (accepted, refused)"
    );

    // The same stranger with a new peer id for every reservation, all from one address.
    let held = 2 + mahjong_relay::MAX_RESERVATIONS_PER_PEER; // A, B and the stranger's
    let tries = mahjong_relay::MAX_CONNECTIONS_PER_IP + 4 - held;
    let mut fresh = (0, 0);
    for _ in 0..tries {
        let (_, cmd, mut rx, _) = spawn_client(identity::Keypair::generate_ed25519());
        match reserve(&addr, &cmd, &mut rx).await {
            Ok(_) => fresh.0 += 1,
            Err(_) => fresh.1 += 1,
        }
        kept.push((cmd, rx));
    }
    assert_eq!(
        fresh,
        (mahjong_relay::MAX_CONNECTIONS_PER_IP - held, 4),
        "new peer ids from one IP address: (accepted, refused)"
    );

    // Under the flood, B still reaches A through the relay.
    let took = reach_through(
        &addr,
        a,
        &mut a_control,
        &b_cmd,
        &mut b_rx,
        &mut b_control,
        256 << 10,
    )
    .await;
    let logs = relay.stderr();
    assert!(
        logs.iter().any(|l| l.contains("reservation")),
        "the relay logs reservations: {logs:?}"
    );
    println!(
        "stranger: one peer id {same_id:?}, fresh peer ids {fresh:?} (accepted, refused); \
         B reached A under the flood in {took:?}; {:?} in all",
        started.elapsed()
    );
    drop(kept);
}

// ---- rendezvous: the relay's own server, met by libp2p's unchanged client ----

#[derive(NetworkBehaviour)]
struct RvBehaviour {
    rendezvous: rendezvous::client::Behaviour,
}

type Reply<T> = tokio::sync::oneshot::Sender<Result<T, rendezvous::ErrorCode>>;

enum RvCmd {
    Register(rendezvous::Namespace, Reply<u64>),
    Discover(Option<rendezvous::Namespace>, Reply<Vec<PeerId>>),
}

/// A rendezvous client connected to the relay (on its own task; dropping it closes its
/// connection).
struct Rv {
    id: PeerId,
    relay: PeerId,
    cmd: tmpsc::UnboundedSender<RvCmd>,
}

impl Rv {
    /// Connects to the relay at `addr`; `None` if the connection fails (e.g. refused past the
    /// relay's connection caps).
    async fn connect(addr: &Multiaddr) -> Option<Rv> {
        let relay = peer_of(addr);
        let mut swarm = libp2p::SwarmBuilder::with_new_identity()
            .with_tokio()
            .with_tcp(
                tcp::Config::default().nodelay(true),
                noise::Config::new,
                yamux::Config::default,
            )
            .expect("tcp")
            .with_behaviour(|key| RvBehaviour {
                rendezvous: rendezvous::client::Behaviour::new(key.clone()),
            })
            .expect("behaviour")
            .with_swarm_config(|c| c.with_idle_connection_timeout(Duration::from_secs(60)))
            .build();
        let id = *swarm.local_peer_id();
        // What it registers: a relayed address of its own, as a player does.
        swarm.add_external_address(
            addr.clone()
                .with(Protocol::P2pCircuit)
                .with(Protocol::P2p(id)),
        );
        swarm.dial(addr.clone()).ok()?;
        let connected = tokio::time::timeout(Duration::from_secs(10), async {
            loop {
                match swarm.select_next_some().await {
                    SwarmEvent::ConnectionEstablished { peer_id, .. } if peer_id == relay => {
                        return true;
                    }
                    SwarmEvent::OutgoingConnectionError { .. }
                    | SwarmEvent::ConnectionClosed { .. } => return false,
                    _ => {}
                }
            }
        })
        .await
        .unwrap_or(false);
        if !connected {
            return None;
        }
        let (cmd, mut cmd_rx) = tmpsc::unbounded_channel::<RvCmd>();
        tokio::spawn(async move {
            let mut register: Option<Reply<u64>> = None;
            let mut discover: Option<Reply<Vec<PeerId>>> = None;
            loop {
                tokio::select! {
                    c = cmd_rx.recv() => match c {
                        Some(RvCmd::Register(ns, reply)) => {
                            match swarm.behaviour_mut().rendezvous.register(ns, relay, None) {
                                Ok(()) => register = Some(reply),
                                Err(e) => panic!("cannot register: {e}"),
                            }
                        }
                        Some(RvCmd::Discover(ns, reply)) => {
                            swarm.behaviour_mut().rendezvous.discover(ns, None, Some(64), relay);
                            discover = Some(reply);
                        }
                        None => break,
                    },
                    ev = swarm.select_next_some() => {
                        use rendezvous::client::Event as E;
                        let SwarmEvent::Behaviour(RvBehaviourEvent::Rendezvous(ev)) = ev else {
                            continue;
                        };
                        match ev {
                            E::Registered { ttl, .. } => {
                                if let Some(r) = register.take() { let _ = r.send(Ok(ttl)); }
                            }
                            E::RegisterFailed { error, .. } => {
                                if let Some(r) = register.take() { let _ = r.send(Err(error)); }
                            }
                            E::Discovered { registrations, .. } => {
                                let peers = registrations.iter().map(|r| r.record.peer_id()).collect();
                                if let Some(r) = discover.take() { let _ = r.send(Ok(peers)); }
                            }
                            E::DiscoverFailed { error, .. } => {
                                if let Some(r) = discover.take() { let _ = r.send(Err(error)); }
                            }
                            E::Expired { .. } => {}
                        }
                    }
                }
            }
        });
        Some(Rv { id, relay, cmd })
    }

    async fn register(&self, ns: &str) -> Result<u64, rendezvous::ErrorCode> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let ns = rendezvous::Namespace::new(ns.to_string()).expect("namespace");
        self.cmd.send(RvCmd::Register(ns, tx)).expect("client runs");
        tokio::time::timeout(Duration::from_secs(15), rx)
            .await
            .expect("an answer within 15 s")
            .expect("client runs")
    }

    async fn discover(&self, ns: Option<&str>) -> Result<Vec<PeerId>, rendezvous::ErrorCode> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let ns = ns.map(|n| rendezvous::Namespace::new(n.to_string()).expect("namespace"));
        self.cmd.send(RvCmd::Discover(ns, tx)).expect("client runs");
        tokio::time::timeout(Duration::from_secs(15), rx)
            .await
            .expect("an answer within 15 s")
            .expect("client runs")
    }
}

/// A namespace as a table code makes one: 32 hex digits.
const FRIENDS: &str = "0123456789abcdef0123456789abcdef";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stranger_who_looks_up_without_a_namespace_learns_nothing() {
    let (relay, addr, _dir) = relay_on_loopback("rv-stranger");
    let mut friends = Vec::new();
    for _ in 0..3 {
        let f = Rv::connect(&addr).await.expect("a friend connects");
        assert!(f.register(FRIENDS).await.is_ok(), "a friend registers");
        friends.push(f);
    }
    let stranger = Rv::connect(&addr).await.expect("the stranger connects");
    assert_eq!(stranger.relay, peer_of(&addr));
    // The look-up that listed every registration before: no namespace.
    assert_eq!(
        stranger.discover(None).await,
        Err(rendezvous::ErrorCode::InvalidNamespace),
        "a look-up without a namespace is refused"
    );
    assert_eq!(
        stranger.discover(Some("")).await,
        Err(rendezvous::ErrorCode::InvalidNamespace),
        "an empty namespace is refused"
    );
    // A guessed namespace finds nothing.
    assert_eq!(
        stranger
            .discover(Some("00000000000000000000000000000000"))
            .await,
        Ok(vec![])
    );
    // The friends find each other (through libp2p's client, unchanged).
    let found = friends[0].discover(Some(FRIENDS)).await.expect("look-up");
    let ids: Vec<PeerId> = friends.iter().map(|f| f.id).collect();
    assert_eq!(found, ids, "every friend, in the order they registered");
    let logs = relay.stderr();
    assert!(
        logs.iter().any(|l| l.contains("look-up refused")),
        "the relay logs the refusal: {logs:?}"
    );
    println!("a look-up without a namespace: refused (E_INVALID_NAMESPACE), nothing listed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_registration_flood_from_one_address_is_refused_and_the_friends_still_meet() {
    // The friends come from ::1 and the flood from 127.0.0.1: two IP addresses of this
    // machine, as two homes would be (every loopback client shares one address, so a friend
    // from 127.0.0.1 would count against the same bound as the flood).
    if std::net::TcpListener::bind("[::1]:0").is_err() {
        println!("no IPv6 loopback here: skipped");
        return;
    }
    let dir = scratch("rv-flood");
    let data = dir.join("relay-data");
    let relay = RelayProc::start(&[
        "--listen",
        "/ip4/127.0.0.1/tcp/0",
        "--listen",
        "/ip6/::1/tcp/0",
        "--data-dir",
        &data.to_string_lossy(),
    ]);
    let (a, b) = (relay.address(), relay.address());
    let is_v6 = |m: &Multiaddr| matches!(m.iter().next(), Some(Protocol::Ip6(_)));
    let (v4, v6) = if is_v6(&a) { (b, a) } else { (a, b) };

    let ann = Rv::connect(&v6).await.expect("Ann connects");
    ann.register(FRIENDS).await.expect("Ann registers");

    // Fresh peer ids, each on its own connection, all from one address (the relay lets an
    // address hold 16 connections; the flood keeps 14).
    let started = Instant::now();
    let mut flood = Vec::new();
    let (mut accepted, mut refused) = (0, 0);
    for _ in 0..mahjong_relay::MAX_CONNECTIONS_PER_IP - 2 {
        let f = Rv::connect(&v4).await.expect("a flooder connects");
        match f.register(FRIENDS).await {
            Ok(_) => accepted += 1,
            Err(e) => {
                assert_eq!(e, rendezvous::ErrorCode::Unavailable);
                refused += 1;
            }
        }
        flood.push(f);
    }
    let took = started.elapsed();
    assert_eq!(
        (accepted, refused),
        (
            mahjong_relay::MAX_REGISTRATIONS_PER_IP_IN_NAMESPACE,
            mahjong_relay::MAX_CONNECTIONS_PER_IP
                - 2
                - mahjong_relay::MAX_REGISTRATIONS_PER_IP_IN_NAMESPACE
        ),
        "one address: (accepted, refused)"
    );

    // A friend after the flood still registers, and each friend finds the other.
    let bo = Rv::connect(&v6).await.expect("Bo connects");
    bo.register(FRIENDS)
        .await
        .expect("Bo registers after the flood");
    let found = ann.discover(Some(FRIENDS)).await.expect("look-up");
    assert_eq!(
        found.first(),
        Some(&ann.id),
        "the first registered is listed first"
    );
    assert!(found.contains(&bo.id), "{found:?}");
    assert_eq!(
        found.len(),
        2 + mahjong_relay::MAX_REGISTRATIONS_PER_IP_IN_NAMESPACE,
        "the friends and the flood's share, well under the namespace's {}",
        mahjong_relay::MAX_REGISTRATIONS_PER_NAMESPACE
    );
    let found_by_bo = bo.discover(Some(FRIENDS)).await.expect("look-up");
    assert!(found_by_bo.contains(&ann.id));
    let logs = relay.stderr();
    assert!(
        logs.iter().any(|l| l.contains("registration refused")),
        "{logs:?}"
    );
    println!(
        "flood from one address: {accepted} accepted, {refused} refused in {took:?}; \
         friends before and after it listed ({} in the namespace)",
        found.len()
    );
    drop(flood);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn registrations_vanish_when_their_peer_disconnects() {
    let (_relay, addr, _dir) = relay_on_loopback("rv-vanish");
    let ann = Rv::connect(&addr).await.expect("Ann connects");
    ann.register(FRIENDS).await.expect("Ann registers");
    let started = Instant::now();
    // Twenty strangers, one after the other, register and leave.
    for _ in 0..20 {
        let s = Rv::connect(&addr).await.expect("a stranger connects");
        s.register(FRIENDS)
            .await
            .expect("registered while connected");
        drop(s);
    }
    let churned = started.elapsed();
    let bo = Rv::connect(&addr).await.expect("Bo connects");
    bo.register(FRIENDS).await.expect("Bo registers");
    // Once their connections are closed, only Ann and Bo are left.
    let mut found = Vec::new();
    for _ in 0..8 {
        found = ann.discover(Some(FRIENDS)).await.expect("look-up");
        if found.len() == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    assert_eq!(
        found,
        vec![ann.id, bo.id],
        "the strangers' registrations are gone"
    );
    let bo_id = bo.id;
    drop(bo);
    let mut left = Vec::new();
    for _ in 0..8 {
        tokio::time::sleep(Duration::from_secs(1)).await;
        left = ann.discover(Some(FRIENDS)).await.expect("look-up");
        if !left.contains(&bo_id) {
            break;
        }
    }
    assert_eq!(
        left,
        vec![ann.id],
        "Bo's registration went with its connection"
    );
    println!("20 strangers registered and left in {churned:?}; none of them is listed");
}
