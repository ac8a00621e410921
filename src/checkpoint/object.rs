//! The name of a stored object: [`ObjectId`], the SHA-256 of its bytes in lowercase hex.
//!
//! An id read from a session file or a manifest is checked to be 64 hex digits before it is
//! used, so it can only ever name a file inside the store's `objects/` directory (never a path
//! of its own choosing). Hashing a file streams it; nothing here writes.

use std::fmt;
use std::io::Read;

use serde::{Deserialize, Deserializer, Serialize};
use sha2::{Digest, Sha256};

/// SHA-256 of an object's bytes, 64 lowercase hex digits.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct ObjectId(String);

impl ObjectId {
    /// The id of `bytes`.
    pub fn of(bytes: &[u8]) -> Self {
        Self(hex(&Sha256::digest(bytes)))
    }

    /// The id of everything `r` yields, and how many bytes that was.
    pub fn of_reader(mut r: impl Read) -> std::io::Result<(Self, u64)> {
        let mut h = Sha256::new();
        let mut buf = vec![0u8; 64 * 1024];
        let mut len = 0u64;
        loop {
            match r.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    h.update(&buf[..n]);
                    len += n as u64;
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok((Self(hex(&h.finalize())), len))
    }

    /// `s` when it has the shape of an id.
    pub fn parse(s: &str) -> Option<Self> {
        (s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
            .then(|| Self(s.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The first two digits (the store's fan-out directory) and the rest.
    pub fn split(&self) -> (&str, &str) {
        self.0.split_at(2)
    }
}

impl fmt::Display for ObjectId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for ObjectId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        ObjectId::parse(&s)
            .ok_or_else(|| serde::de::Error::custom(format!("`{s}` is not an object id")))
    }
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(DIGITS[(b >> 4) as usize] as char);
        s.push(DIGITS[(b & 15) as usize] as char);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_sha256_in_hex_and_only_that_shape_parses() {
        assert_eq!(
            ObjectId::of(b"").as_str(),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        let (id, len) = ObjectId::of_reader(&b"abc"[..]).unwrap();
        assert_eq!(id, ObjectId::of(b"abc"));
        assert_eq!(len, 3);
        for bad in ["", "../../etc/passwd", &"A".repeat(64), &"0".repeat(63)] {
            assert!(ObjectId::parse(bad).is_none(), "{bad}");
            assert!(serde_json::from_str::<ObjectId>(&format!("{bad:?}")).is_err());
        }
        assert!(ObjectId::parse(&"0f".repeat(32)).is_some());
    }
}
