//! The on-disk cache of compiled device programs, keyed by everything
//! that decides the binary: the generated text, the device, the driver and
//! the compiler options. An entry holds its full key and a checksum of its
//! payload; an entry that cannot be read, is short, carries another key
//! or fails its checksum is treated as absent (and removed), so the device
//! library rebuilds it: a cache entry is never trusted blindly.
//!
//! Directory: `OP2_RS_CACHE_DIR`, else `$XDG_CACHE_HOME/op2-rs`, else
//! `$HOME/.cache/op2-rs` ([`default_dir`]). One file per entry, named by
//! a 64-bit hash of the key; written to a temporary file and renamed, so a
//! reader never sees half an entry.

use std::io::Write;
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 10] = b"OP2RSBIN1\n";

/// FNV-1a, 64 bits.
fn fnv64(data: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in data {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// What decides a compiled program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Key<'a> {
    pub text: &'a str,
    pub device: &'a str,
    pub driver: &'a str,
    pub options: &'a str,
}

impl Key<'_> {
    fn bytes(&self) -> Vec<u8> {
        let mut v = Vec::new();
        for part in [self.device, self.driver, self.options, self.text] {
            v.extend_from_slice(&(part.len() as u64).to_le_bytes());
            v.extend_from_slice(part.as_bytes());
        }
        v
    }
}

/// The cache directory the environment asks for.
pub fn default_dir() -> Option<PathBuf> {
    let var = |n: &str| {
        std::env::var_os(n)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    var("OP2_RS_CACHE_DIR")
        .or_else(|| var("XDG_CACHE_HOME").map(|d| d.join("op2-rs")))
        .or_else(|| var("HOME").map(|d| d.join(".cache").join("op2-rs")))
}

/// A cache directory.
#[derive(Debug, Clone)]
pub struct Cache {
    dir: PathBuf,
}

impl Cache {
    pub fn new(dir: impl Into<PathBuf>) -> Cache {
        Cache { dir: dir.into() }
    }

    /// The file of a key's entry.
    pub fn path(&self, key: &Key<'_>) -> PathBuf {
        self.dir.join(format!("{:016x}.bin", fnv64(&key.bytes())))
    }

    /// The payload stored for `key`, if a sound entry for exactly this key
    /// is there (anything else is removed and reported absent).
    pub fn get(&self, key: &Key<'_>) -> Option<Vec<u8>> {
        let path = self.path(key);
        let data = std::fs::read(&path).ok()?;
        let got = parse(&data, &key.bytes());
        if got.is_none() {
            let _ = std::fs::remove_file(&path);
        }
        got
    }

    /// Store `payload` for `key` (temporary file, then rename).
    pub fn put(&self, key: &Key<'_>, payload: &[u8]) -> std::io::Result<PathBuf> {
        std::fs::create_dir_all(&self.dir)?;
        let path = self.path(key);
        let k = key.bytes();
        let tmp = self.dir.join(format!(
            ".{}.{}.tmp",
            path.file_name().and_then(|n| n.to_str()).unwrap_or("entry"),
            std::process::id()
        ));
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(MAGIC)?;
        f.write_all(&(k.len() as u64).to_le_bytes())?;
        f.write_all(&k)?;
        f.write_all(&(payload.len() as u64).to_le_bytes())?;
        f.write_all(&fnv64(payload).to_le_bytes())?;
        f.write_all(payload)?;
        f.sync_all()?;
        drop(f);
        std::fs::rename(&tmp, &path)?;
        Ok(path)
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

/// The payload of a sound entry for key bytes `key`.
fn parse(data: &[u8], key: &[u8]) -> Option<Vec<u8>> {
    let rest = data.strip_prefix(MAGIC.as_slice())?;
    let (klen, rest) = take_u64(rest)?;
    let (k, rest) = split(rest, klen)?;
    if k != key {
        return None;
    }
    let (plen, rest) = take_u64(rest)?;
    let (sum, rest) = take_u64(rest)?;
    let (payload, rest) = split(rest, plen)?;
    (rest.is_empty() && fnv64(payload) == sum).then(|| payload.to_vec())
}

fn take_u64(d: &[u8]) -> Option<(u64, &[u8])> {
    let (a, b) = split(d, 8)?;
    Some((u64::from_le_bytes(a.try_into().ok()?), b))
}

fn split(d: &[u8], n: u64) -> Option<(&[u8], &[u8])> {
    let n = usize::try_from(n).ok()?;
    (d.len() >= n).then(|| d.split_at(n))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(text: &str) -> Key<'_> {
        Key {
            text,
            device: "pthread-cpu",
            driver: "PoCL 3.1",
            options: "-cl-std=CL1.2",
        }
    }

    fn dir(name: &str) -> PathBuf {
        let d =
            std::env::temp_dir().join(format!("op2-codegen-cache-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn stored_entries_come_back_for_their_key_only() {
        let c = Cache::new(dir("roundtrip"));
        assert_eq!(c.get(&key("a")), None);
        let p = c.put(&key("a"), b"binary").unwrap();
        assert_eq!(c.get(&key("a")).as_deref(), Some(&b"binary"[..]));
        assert_eq!(c.get(&key("b")), None);
        let other = Key {
            driver: "PoCL 3.2",
            ..key("a")
        };
        assert_ne!(c.path(&other), p, "the driver is part of the key");
        assert_eq!(c.get(&other), None);
        let _ = std::fs::remove_dir_all(c.dir());
    }

    #[test]
    fn damaged_or_foreign_entries_are_rebuilt_not_trusted() {
        let c = Cache::new(dir("damaged"));
        let p = c.put(&key("k"), b"0123456789").unwrap();
        let good = std::fs::read(&p).unwrap();
        // one payload byte changed: checksum fails, the entry is removed
        let mut bad = good.clone();
        *bad.last_mut().unwrap() ^= 1;
        std::fs::write(&p, &bad).unwrap();
        assert_eq!(c.get(&key("k")), None);
        assert!(!p.exists(), "a corrupt entry is removed");
        // truncated
        std::fs::write(&p, &good[..good.len() - 3]).unwrap();
        assert_eq!(c.get(&key("k")), None);
        // another key's entry under this key's name (a hash collision)
        let c2 = Cache::new(dir("damaged-other"));
        let q = c2.put(&key("other"), b"xyz").unwrap();
        std::fs::copy(&q, &p).unwrap();
        assert_eq!(c.get(&key("k")), None);
        // not an entry at all
        std::fs::write(&p, b"garbage").unwrap();
        assert_eq!(c.get(&key("k")), None);
        // rebuilt
        c.put(&key("k"), b"0123456789").unwrap();
        assert_eq!(c.get(&key("k")).as_deref(), Some(&b"0123456789"[..]));
        let _ = std::fs::remove_dir_all(c.dir());
        let _ = std::fs::remove_dir_all(c2.dir());
    }

    #[test]
    fn an_unwritable_directory_is_an_error_not_a_panic() {
        let base = dir("unwritable");
        std::fs::create_dir_all(&base).unwrap();
        let file = base.join("not-a-dir");
        std::fs::write(&file, b"x").unwrap();
        let c = Cache::new(file.join("cache"));
        assert!(c.put(&key("k"), b"p").is_err());
        assert_eq!(c.get(&key("k")), None);
        let _ = std::fs::remove_dir_all(&base);
    }
}
