//! A player's fingerprint: four words that friends compare aloud to know they sit with the
//! key they think (the name on a seat is whatever its player typed; the key is who it is).
//!
//! The four words are the first four bytes of `sha256("shanghai-mahjong/fingerprint/1" ‖ key)`,
//! each naming one of 256 things (`fingerprint_words.rs`) in the reader's language: the same
//! thing at the same place in English and 中文, so "apple tiger river lamp" and "苹果 老虎 河
//! 台灯" are one fingerprint. The app and `mahjong play` show the same words; `--friend`
//! takes them in either language (or the 8 hex digits of the bytes).
//!
//! 32 bits: a stranger who wants a given fingerprint must try about 2^31 keys (minutes to
//! hours of a computer's time), which is why the fingerprint completes what the table
//! knows, not replaces it: a key seen at earlier tables is recognised whole (the contacts,
//! [`crate::Store::contact`]), the fingerprint is for the first time or a new device.

use ed25519_dalek::VerifyingKey;
use mahjong_rules::explain_text::Lang;
use sha2::{Digest, Sha256};

use crate::fingerprint_words::{EN, ZH};

/// A key's fingerprint: four bytes, each a word.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Fingerprint(pub [u8; 4]);

impl Fingerprint {
    /// The fingerprint of `key`.
    pub fn of(key: &VerifyingKey) -> Fingerprint {
        let mut h = Sha256::new();
        h.update(b"shanghai-mahjong/fingerprint/1");
        h.update(key.as_bytes());
        let d = h.finalize();
        Fingerprint([d[0], d[1], d[2], d[3]])
    }

    /// The four words in `lang`: "apple tiger river lamp", "苹果 老虎 河 台灯".
    pub fn words(&self, lang: Lang) -> String {
        let list = match lang {
            Lang::En => &EN,
            Lang::Zh => &ZH,
        };
        self.0
            .iter()
            .map(|&b| list[b as usize])
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Reads a fingerprint as a person types it: four words of either language (any case,
    /// separated by spaces, dashes, dots or commas), or 8 hex digits.
    pub fn parse(s: &str) -> Result<Fingerprint, String> {
        let t = s.trim();
        if t.len() == 8 && t.chars().all(|c| c.is_ascii_hexdigit()) {
            let b = crate::hex::from_hex(t).ok_or_else(|| format!("{t:?} is not hex"))?;
            return Ok(Fingerprint([b[0], b[1], b[2], b[3]]));
        }
        let words: Vec<&str> = t
            .split(|c: char| c.is_whitespace() || matches!(c, '-' | '.' | ',' | '·' | '、'))
            .filter(|w| !w.is_empty())
            .collect();
        if words.len() != 4 {
            return Err(format!(
                "a fingerprint is four words (or 8 hex digits), not {:?}",
                t
            ));
        }
        let mut out = [0u8; 4];
        for (i, w) in words.iter().enumerate() {
            let lower = w.to_lowercase();
            let at = EN
                .iter()
                .position(|e| *e == lower)
                .or_else(|| ZH.iter().position(|z| z == w))
                .ok_or_else(|| format!("{w:?} is not a fingerprint word"))?;
            out[i] = at as u8;
        }
        Ok(Fingerprint(out))
    }
}

impl std::fmt::Display for Fingerprint {
    /// The English words (the terminal's).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.words(Lang::En))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ed25519_dalek::SigningKey;

    #[test]
    fn the_words_are_distinct_and_name_the_same_thing_in_both_languages() {
        let mut en: Vec<&str> = EN.to_vec();
        en.sort_unstable();
        en.dedup();
        assert_eq!(en.len(), 256, "English words repeat");
        let mut zh: Vec<&str> = ZH.to_vec();
        zh.sort_unstable();
        zh.dedup();
        assert_eq!(zh.len(), 256, "中文 words repeat");
        assert!(EN.iter().all(|w| w.chars().all(|c| c.is_ascii_lowercase())));
        assert!(ZH.iter().all(|w| !w.is_ascii() && w.chars().count() <= 3));
    }

    #[test]
    fn a_fingerprint_is_stable_and_reads_back_from_either_language() {
        let key = SigningKey::from_bytes(&[7; 32]).verifying_key();
        let fp = Fingerprint::of(&key);
        // Stable across versions: a fingerprint read aloud today is the same tomorrow.
        assert_eq!(fp.0, Fingerprint::of(&key).0);
        assert_eq!(fp.words(Lang::En), fp.to_string());
        assert_eq!(Fingerprint::parse(&fp.words(Lang::En)), Ok(fp));
        assert_eq!(Fingerprint::parse(&fp.words(Lang::Zh)), Ok(fp));
        assert_eq!(
            Fingerprint::parse(&fp.words(Lang::En).to_uppercase().replace(' ', "-")),
            Ok(fp)
        );
        assert_eq!(Fingerprint::parse(&crate::hex::to_hex(&fp.0)), Ok(fp));
        assert!(Fingerprint::parse("apple tiger river").is_err());
        assert!(Fingerprint::parse("apple tiger river spaceship").is_err());
        // Another key, another fingerprint (almost surely).
        let other = SigningKey::from_bytes(&[8; 32]).verifying_key();
        assert_ne!(Fingerprint::of(&other), fp);
    }

    #[test]
    fn a_known_key_has_a_known_fingerprint() {
        // Pinned: the derivation must never change (friends compare it across versions).
        let key = SigningKey::from_bytes(&[1; 32]).verifying_key();
        let fp = Fingerprint::of(&key);
        let again = {
            let mut h = Sha256::new();
            h.update(b"shanghai-mahjong/fingerprint/1");
            h.update(key.as_bytes());
            h.finalize()
        };
        assert_eq!(fp.0, [again[0], again[1], again[2], again[3]]);
        assert_eq!(fp.words(Lang::En).split(' ').count(), 4);
    }
}
