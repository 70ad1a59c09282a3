//! The rendezvous protocol's messages on the wire, encoded and decoded here by hand.
//!
//! Each message is one protobuf `Message` (proto2, the libp2p rendezvous specification's
//! `rendezvous.pb`) preceded by its length as an unsigned varint. Only what a server reads
//! (Register, Unregister, Discover) is decoded and only what it writes (RegisterResponse,
//! DiscoverResponse) is encoded; unknown fields are skipped, as protobuf requires.
//!
//! The fields, by number:
//! - `Message`: 1 type (enum: REGISTER 0, REGISTER_RESPONSE 1, UNREGISTER 2, DISCOVER 3,
//!   DISCOVER_RESPONSE 4), 2 register, 3 registerResponse, 4 unregister, 5 discover,
//!   6 discoverResponse;
//! - `Register`: 1 ns (string), 2 signedPeerRecord (bytes), 3 ttl (uint64, seconds);
//! - `RegisterResponse`: 1 status (enum), 2 statusText, 3 ttl;
//! - `Unregister`: 1 ns, 2 id (bytes, unused);
//! - `Discover`: 1 ns, 2 limit (uint64), 3 cookie (bytes);
//! - `DiscoverResponse`: 1 registrations (repeated Register), 2 cookie, 3 status,
//!   4 statusText.

use std::io;

use futures::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// The longest request read, bytes. A Register is the largest: a namespace (at most 255
/// bytes), a signed peer record (a public key, a signature and a player's few addresses,
/// under 2 KiB in practice) and a TTL. 8 KiB leaves room for a record of some 50 addresses
/// and bounds what one stored registration costs.
pub const MAX_REQUEST_BYTES: usize = 8 << 10;

/// A response status, as the protocol numbers them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Done.
    Ok = 0,
    /// The namespace is missing, empty or too long.
    InvalidNamespace = 100,
    /// The signed peer record does not decode or its signature does not verify.
    InvalidSignedPeerRecord = 101,
    /// The TTL is out of bounds.
    InvalidTtl = 102,
    /// The cookie was not one this server gave for that namespace.
    InvalidCookie = 103,
    /// The record is signed by another peer than the one asking.
    NotAuthorized = 200,
    /// Something failed inside the server.
    InternalError = 300,
    /// A limit was reached: try later.
    Unavailable = 400,
}

/// A request as read from the wire: every field as sent, checked by the registry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    /// REGISTER.
    Register {
        /// `ns`.
        namespace: Option<String>,
        /// `signedPeerRecord`: a signed envelope, protobuf-encoded.
        record: Option<Vec<u8>>,
        /// `ttl`, seconds.
        ttl: Option<u64>,
    },
    /// UNREGISTER.
    Unregister {
        /// `ns`.
        namespace: Option<String>,
    },
    /// DISCOVER.
    Discover {
        /// `ns`.
        namespace: Option<String>,
        /// `limit`.
        limit: Option<u64>,
        /// `cookie`.
        cookie: Option<Vec<u8>>,
    },
}

/// One registration in a Discover answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    /// Its namespace.
    pub namespace: String,
    /// The signed envelope of its peer record, as the peer sent it.
    pub record: Vec<u8>,
    /// Seconds it has left.
    pub ttl: u64,
}

/// A response to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Response {
    /// REGISTER_RESPONSE: registered for `ttl` seconds.
    Registered {
        /// Seconds.
        ttl: u64,
    },
    /// REGISTER_RESPONSE with an error status.
    RegisterRefused(Status, String),
    /// DISCOVER_RESPONSE: registrations and the cookie to page on with.
    Discovered {
        /// At most the limit asked (and the server's).
        registrations: Vec<Listed>,
        /// Opaque to the client.
        cookie: Vec<u8>,
    },
    /// DISCOVER_RESPONSE with an error status and no registration.
    DiscoverRefused(Status, String),
}

const VARINT: u8 = 0;
const I64: u8 = 1;
const LEN: u8 = 2;
const I32: u8 = 5;

fn bad(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("rendezvous: {what}"))
}

// ---- encoding ----

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8 & 0x7f) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn put_key(out: &mut Vec<u8>, field: u32, wire: u8) {
    put_varint(out, (u64::from(field) << 3) | u64::from(wire));
}

fn put_uint(out: &mut Vec<u8>, field: u32, v: u64) {
    put_key(out, field, VARINT);
    put_varint(out, v);
}

fn put_bytes(out: &mut Vec<u8>, field: u32, bytes: &[u8]) {
    put_key(out, field, LEN);
    put_varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

/// The protobuf `Message` of `response` (without the length prefix).
pub fn encode(response: &Response) -> Vec<u8> {
    let mut inner = Vec::new();
    let (kind, field) = match response {
        Response::Registered { ttl } => {
            put_uint(&mut inner, 1, Status::Ok as u64);
            put_uint(&mut inner, 3, *ttl);
            (1, 3)
        }
        Response::RegisterRefused(status, text) => {
            put_uint(&mut inner, 1, *status as u64);
            put_bytes(&mut inner, 2, text.as_bytes());
            (1, 3)
        }
        Response::Discovered {
            registrations,
            cookie,
        } => {
            for r in registrations {
                let mut reg = Vec::with_capacity(r.namespace.len() + r.record.len() + 16);
                put_bytes(&mut reg, 1, r.namespace.as_bytes());
                put_bytes(&mut reg, 2, &r.record);
                put_uint(&mut reg, 3, r.ttl);
                put_bytes(&mut inner, 1, &reg);
            }
            put_bytes(&mut inner, 2, cookie);
            put_uint(&mut inner, 3, Status::Ok as u64);
            (4, 6)
        }
        Response::DiscoverRefused(status, text) => {
            put_uint(&mut inner, 3, *status as u64);
            put_bytes(&mut inner, 4, text.as_bytes());
            (4, 6)
        }
    };
    let mut out = Vec::with_capacity(inner.len() + 8);
    put_uint(&mut out, 1, kind);
    put_bytes(&mut out, field, &inner);
    out
}

// ---- decoding ----

/// A protobuf field read from a buffer.
enum Field<'a> {
    Varint(u64),
    Bytes(&'a [u8]),
    Other,
}

struct Reader<'a> {
    buf: &'a [u8],
}

impl<'a> Reader<'a> {
    fn varint(&mut self) -> io::Result<u64> {
        let mut v = 0u64;
        for i in 0..10 {
            let (&b, rest) = self.buf.split_first().ok_or_else(|| bad("truncated"))?;
            self.buf = rest;
            v |= u64::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(bad("varint too long"))
    }

    fn take(&mut self, n: usize) -> io::Result<&'a [u8]> {
        if n > self.buf.len() {
            return Err(bad("truncated"));
        }
        let (head, rest) = self.buf.split_at(n);
        self.buf = rest;
        Ok(head)
    }

    /// The next field: its number and value; `None` at the end.
    fn field(&mut self) -> io::Result<Option<(u64, Field<'a>)>> {
        if self.buf.is_empty() {
            return Ok(None);
        }
        let key = self.varint()?;
        let (number, wire) = (key >> 3, (key & 7) as u8);
        let value = match wire {
            VARINT => Field::Varint(self.varint()?),
            LEN => {
                let n = usize::try_from(self.varint()?).map_err(|_| bad("length"))?;
                Field::Bytes(self.take(n)?)
            }
            I64 => {
                self.take(8)?;
                Field::Other
            }
            I32 => {
                self.take(4)?;
                Field::Other
            }
            _ => return Err(bad("unknown wire type")),
        };
        Ok(Some((number, value)))
    }
}

fn text(bytes: &[u8]) -> io::Result<String> {
    String::from_utf8(bytes.to_vec()).map_err(|_| bad("a string is not UTF-8"))
}

/// The (namespace, bytes field 2, varint field 3, bytes field 3) of a Register, Unregister
/// or Discover body: each message's fields 1–3 (field 2 and 3 are bytes or a varint).
#[derive(Default)]
struct Body {
    ns: Option<String>,
    bytes2: Option<Vec<u8>>,
    uint2: Option<u64>,
    uint3: Option<u64>,
    bytes3: Option<Vec<u8>>,
}

fn body(buf: &[u8]) -> io::Result<Body> {
    let mut r = Reader { buf };
    let mut b = Body::default();
    while let Some((n, f)) = r.field()? {
        match (n, f) {
            (1, Field::Bytes(v)) => b.ns = Some(text(v)?),
            (2, Field::Bytes(v)) => b.bytes2 = Some(v.to_vec()),
            (2, Field::Varint(v)) => b.uint2 = Some(v),
            (3, Field::Varint(v)) => b.uint3 = Some(v),
            (3, Field::Bytes(v)) => b.bytes3 = Some(v.to_vec()),
            _ => {}
        }
    }
    Ok(b)
}

/// A request from its protobuf `Message` (without the length prefix). A message that is
/// no request (a response, no type, a missing body) is an error.
pub fn decode(buf: &[u8]) -> io::Result<Request> {
    let mut r = Reader { buf };
    let mut kind = None;
    let mut bodies: [Option<&[u8]>; 7] = [None; 7];
    while let Some((n, f)) = r.field()? {
        match (n, f) {
            (1, Field::Varint(v)) => kind = Some(v),
            (2..=6, Field::Bytes(v)) => bodies[n as usize] = Some(v),
            _ => {}
        }
    }
    let kind = kind.ok_or_else(|| bad("no message type"))?;
    let (field, what) = match kind {
        0 => (2, "register"),
        2 => (4, "unregister"),
        3 => (5, "discover"),
        _ => return Err(bad("not a request")),
    };
    let b = body(bodies[field].ok_or_else(|| bad(&format!("a {what} without its body")))?)?;
    Ok(match kind {
        0 => Request::Register {
            namespace: b.ns,
            record: b.bytes2,
            ttl: b.uint3,
        },
        2 => Request::Unregister { namespace: b.ns },
        _ => Request::Discover {
            namespace: b.ns,
            limit: b.uint2,
            cookie: b.bytes3,
        },
    })
}

// ---- framing ----

/// Reads one length-prefixed request (at most [`MAX_REQUEST_BYTES`]).
pub async fn read_request<T: AsyncRead + Unpin>(io: &mut T) -> io::Result<Request> {
    let mut len = 0u64;
    let mut i = 0;
    loop {
        let mut b = [0u8; 1];
        io.read_exact(&mut b).await?;
        len |= u64::from(b[0] & 0x7f) << (7 * i);
        if b[0] & 0x80 == 0 {
            break;
        }
        i += 1;
        if i >= 4 {
            return Err(bad("length prefix too long"));
        }
    }
    if len > MAX_REQUEST_BYTES as u64 {
        return Err(bad("request too long"));
    }
    let mut buf = vec![0u8; len as usize];
    io.read_exact(&mut buf).await?;
    decode(&buf)
}

/// Writes one length-prefixed response.
pub async fn write_response<T: AsyncWrite + Unpin>(
    io: &mut T,
    response: &Response,
) -> io::Result<()> {
    let body = encode(response);
    let mut out = Vec::with_capacity(body.len() + 4);
    put_varint(&mut out, body.len() as u64);
    out.extend_from_slice(&body);
    io.write_all(&out).await?;
    io.flush().await
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// A Register as a client writes it, built field by field.
    fn register_message(ns: &str, record: &[u8], ttl: Option<u64>) -> Vec<u8> {
        let mut reg = Vec::new();
        put_bytes(&mut reg, 1, ns.as_bytes());
        put_bytes(&mut reg, 2, record);
        if let Some(t) = ttl {
            put_uint(&mut reg, 3, t);
        }
        let mut m = Vec::new();
        put_uint(&mut m, 1, 0);
        put_bytes(&mut m, 2, &reg);
        m
    }

    #[test]
    fn varints_round_trip() {
        for v in [0u64, 1, 127, 128, 300, 16_383, 16_384, u64::MAX] {
            let mut out = Vec::new();
            put_varint(&mut out, v);
            assert_eq!(Reader { buf: &out }.varint().unwrap(), v, "{v}");
        }
        let mut out = Vec::new();
        put_varint(&mut out, 300);
        assert_eq!(out, [0xac, 0x02], "the protobuf documentation's example");
    }

    #[test]
    fn requests_decode_and_unknown_fields_are_skipped() {
        let mut m = register_message("ns1", b"env", Some(7200));
        // An unknown varint field and an unknown fixed64 field at the end.
        put_uint(&mut m, 9, 5);
        put_key(&mut m, 10, I64);
        m.extend_from_slice(&[0; 8]);
        assert_eq!(
            decode(&m).unwrap(),
            Request::Register {
                namespace: Some("ns1".into()),
                record: Some(b"env".to_vec()),
                ttl: Some(7200)
            }
        );

        let mut d = Vec::new();
        put_uint(&mut d, 2, 64);
        let mut m = Vec::new();
        put_uint(&mut m, 1, 3);
        put_bytes(&mut m, 5, &d);
        assert_eq!(
            decode(&m).unwrap(),
            Request::Discover {
                namespace: None,
                limit: Some(64),
                cookie: None
            },
            "a Discover without a namespace decodes (and is refused by the registry)"
        );

        let mut u = Vec::new();
        put_bytes(&mut u, 1, b"ns");
        let mut m = Vec::new();
        put_uint(&mut m, 1, 2);
        put_bytes(&mut m, 4, &u);
        assert_eq!(
            decode(&m).unwrap(),
            Request::Unregister {
                namespace: Some("ns".into())
            }
        );
    }

    #[test]
    fn malformed_messages_are_errors() {
        let m = register_message("ns", b"e", None);
        for cut in 1..m.len() {
            assert!(decode(&m[..cut]).is_err(), "cut at {cut}");
        }
        let mut response = Vec::new();
        put_uint(&mut response, 1, 1);
        assert!(decode(&response).is_err(), "a response is no request");
        let mut bodyless = Vec::new();
        put_uint(&mut bodyless, 1, 3);
        assert!(decode(&bodyless).is_err());
        assert!(decode(&[0xff; 12]).is_err());
    }

    #[test]
    fn responses_encode_as_the_specification_numbers_them() {
        let r = encode(&Response::Registered { ttl: 7200 });
        // type = 1, registerResponse (field 3) = { status = 0, ttl = 7200 }.
        assert_eq!(r, [0x08, 0x01, 0x1a, 0x05, 0x08, 0x00, 0x18, 0xa0, 0x38]);
        let r = encode(&Response::DiscoverRefused(
            Status::InvalidNamespace,
            String::new(),
        ));
        // type = 4, discoverResponse (field 6) = { status = 100, statusText = "" }.
        assert_eq!(r, [0x08, 0x04, 0x32, 0x04, 0x18, 0x64, 0x22, 0x00]);
        let r = encode(&Response::Discovered {
            registrations: vec![Listed {
                namespace: "n".into(),
                record: vec![9],
                ttl: 5,
            }],
            cookie: vec![1, 2],
        });
        assert_eq!(
            r,
            [
                0x08, 0x04, 0x32, 0x10, // type 4, discoverResponse of 16 bytes
                0x0a, 0x08, 0x0a, 0x01, b'n', 0x12, 0x01, 9, 0x18, 5, // one Register
                0x12, 0x02, 1, 2, // cookie
                0x18, 0x00, // status OK
            ]
        );
    }

    #[test]
    fn framing_round_trips_and_bounds_the_length() {
        futures::executor::block_on(async {
            let m = register_message("ns", b"env", None);
            let mut framed = Vec::new();
            put_varint(&mut framed, m.len() as u64);
            framed.extend_from_slice(&m);
            let got = read_request(&mut &framed[..]).await.unwrap();
            assert!(matches!(got, Request::Register { ttl: None, .. }));

            let mut huge = Vec::new();
            put_varint(&mut huge, MAX_REQUEST_BYTES as u64 + 1);
            huge.extend_from_slice(&vec![0; MAX_REQUEST_BYTES + 1]);
            assert!(read_request(&mut &huge[..]).await.is_err());

            let mut out = Vec::new();
            write_response(&mut out, &Response::Registered { ttl: 60 })
                .await
                .unwrap();
            assert_eq!(out[0] as usize, out.len() - 1);
        });
    }
}
