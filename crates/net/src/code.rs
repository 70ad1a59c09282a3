//! Table codes: how friends in different homes find each other at a relay.
//!
//! A code is 8 letters of Crockford's base32 (`0-9`, `A-Z` without `I`, `L`, `O`, `U`): 40
//! random bits, short enough to read out over the phone, shown as `ABCD-EFGH`. Typing is
//! forgiving: case, dashes and spaces are ignored, and the letters a listener confuses are
//! read as the digits they look like (`O` → `0`, `I` and `L` → `1`).
//!
//! The relay never sees the code: the players register and look each other up under a
//! rendezvous namespace that is a hash of it ([`TableCode::namespace`]). Knowing the namespace
//! is not enough to take part: two peers found under it each prove to the other that they know
//! the code itself ([`TableCode::proof`], a MAC under a key derived from the code apart from
//! the namespace, bound to both peer ids so that it cannot be replayed to a third), and only
//! then share a lobby. The table itself is still signed end to end by the four players' keys,
//! so a stranger who guessed a code could at worst take a free seat.

use std::fmt;
use std::str::FromStr;

use rand_core::{OsRng, RngCore};
use sha2::{Digest, Sha256};

/// Crockford's base32 alphabet.
const ALPHABET: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
/// Letters in a code.
pub const CODE_LEN: usize = 8;
/// What the namespace hash is domain-separated with.
const NAMESPACE_DOMAIN: &[u8] = b"shanghai-mahjong/table-code/v1/";

/// What the proof key is domain-separated with (another hash than the namespace's).
const PROOF_DOMAIN: &[u8] = b"shanghai-mahjong/table-code-proof/v1/";

/// A table code, normalised (8 upper-case letters of the alphabet).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct TableCode([u8; CODE_LEN]);

/// Why a typed code is not one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CodeError {
    /// A character outside the alphabet (after the forgiving readings).
    #[error("{0:?} is not a letter of a table code (0-9 and A-Z without U)")]
    Letter(char),
    /// Too few or too many letters.
    #[error("a table code has {CODE_LEN} letters, this one has {0}")]
    Length(usize),
}

impl TableCode {
    /// A fresh random code.
    pub fn generate() -> TableCode {
        let mut bytes = [0u8; CODE_LEN];
        OsRng.fill_bytes(&mut bytes);
        TableCode(bytes.map(|b| ALPHABET[usize::from(b & 31)]))
    }

    /// The rendezvous namespace of the code: 32 hex digits of
    /// `sha256("shanghai-mahjong/table-code/v1/" ‖ code)`. The relay sees only this.
    pub fn namespace(&self) -> String {
        let mut h = Sha256::new();
        h.update(NAMESPACE_DOMAIN);
        h.update(self.0);
        let digest = h.finalize();
        crate::wire::hex(&digest[..16])
    }

    /// The proof that `prover` knows the code, for `verifier` (peer ids as bytes):
    /// `sha256(k ‖ prover ‖ verifier)` with `k = sha256(PROOF_DOMAIN ‖ code)`. Both peer ids
    /// are authenticated by the connection's handshake, so a proof works only between those
    /// two; `k` is a hash of the code apart from the namespace, so the namespace (which the
    /// relay sees and answers look-ups with) does not give it.
    pub fn proof(&self, prover: &[u8], verifier: &[u8]) -> [u8; 32] {
        let key: [u8; 32] = Sha256::new()
            .chain_update(PROOF_DOMAIN)
            .chain_update(self.0)
            .finalize()
            .into();
        let mut h = Sha256::new();
        h.update(key);
        for id in [prover, verifier] {
            h.update((id.len() as u32).to_be_bytes());
            h.update(id);
        }
        h.finalize().into()
    }

    /// The code's 8 letters without the dash.
    pub fn letters(&self) -> &str {
        // Always ASCII from the alphabet.
        std::str::from_utf8(&self.0).unwrap_or("")
    }
}

impl FromStr for TableCode {
    type Err = CodeError;

    fn from_str(s: &str) -> Result<TableCode, CodeError> {
        let mut out = Vec::with_capacity(CODE_LEN);
        for c in s.chars() {
            if c == '-' || c.is_whitespace() {
                continue;
            }
            let u = match c.to_ascii_uppercase() {
                'O' => '0',
                'I' | 'L' => '1',
                u => u,
            };
            if !u.is_ascii() || !ALPHABET.contains(&(u as u8)) {
                return Err(CodeError::Letter(c));
            }
            out.push(u as u8);
        }
        let letters: [u8; CODE_LEN] = out
            .as_slice()
            .try_into()
            .map_err(|_| CodeError::Length(out.len()))?;
        Ok(TableCode(letters))
    }
}

impl fmt::Display for TableCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = self.letters();
        write!(f, "{}-{}", &s[..4], &s[4..])
    }
}

impl fmt::Debug for TableCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TableCode({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_code_proof_binds_the_code_and_both_peers_and_is_not_the_namespace() {
        let a: TableCode = "7K3M-QX9P".parse().expect("code");
        let b: TableCode = "7K3M-QX9Q".parse().expect("code");
        let p = a.proof(b"ann", b"bo");
        assert_eq!(p, a.proof(b"ann", b"bo"), "stable");
        assert_ne!(p, a.proof(b"bo", b"ann"), "one way");
        assert_ne!(p, a.proof(b"ann", b"cy"), "bound to the verifier");
        assert_ne!(p, b.proof(b"ann", b"bo"), "bound to the code");
        // Ids are length-prefixed: "an"+"nbo" is not "ann"+"bo".
        assert_ne!(p, a.proof(b"an", b"nbo"));
        assert!(!crate::wire::hex(&p).contains(&a.namespace()));
    }

    #[test]
    fn typing_is_forgiving() {
        let a: TableCode = "7K3M-QX9P".parse().expect("code");
        assert_eq!(a.to_string(), "7K3M-QX9P");
        assert_eq!("7k3m qx9p".parse::<TableCode>(), Ok(a));
        assert_eq!("7k3mqx9p".parse::<TableCode>(), Ok(a));
        let b: TableCode = "oIL0-aaaa".parse().expect("code");
        assert_eq!(b.to_string(), "0110-AAAA");
    }

    #[test]
    fn malformed_codes_say_why() {
        assert_eq!("7K3M-QX9".parse::<TableCode>(), Err(CodeError::Length(7)));
        assert_eq!("7K3M-QX9PP".parse::<TableCode>(), Err(CodeError::Length(9)));
        assert_eq!(
            "7K3M-QX9U".parse::<TableCode>(),
            Err(CodeError::Letter('U'))
        );
        assert_eq!(
            "7K3M-QX9é".parse::<TableCode>(),
            Err(CodeError::Letter('é'))
        );
    }

    #[test]
    fn generated_codes_parse_back_and_differ() {
        let a = TableCode::generate();
        let b = TableCode::generate();
        assert_eq!(a.to_string().parse::<TableCode>(), Ok(a));
        assert_ne!(a, b, "40 random bits twice alike");
    }

    #[test]
    fn the_namespace_hides_the_code() {
        let a: TableCode = "7K3M-QX9P".parse().expect("code");
        let ns = a.namespace();
        assert_eq!(ns.len(), 32);
        assert!(!ns.to_uppercase().contains("7K3M"));
        assert_eq!(
            ns,
            "7k3mqx9p".parse::<TableCode>().expect("code").namespace()
        );
        assert_ne!(
            ns,
            "7K3M-QX9Q".parse::<TableCode>().expect("code").namespace()
        );
    }
}
