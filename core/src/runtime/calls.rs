//! Recognising a call seen before without allocating: a front end (the C
//! ABI) reduces each call to a [`CallSig`] — a hash, the raw words that
//! decide how the call behaves (handles, pointers, modes) and the bytes of
//! its name — and a [`CallCache`] maps signatures to what the first,
//! fully checked call produced. A cache is valid for one generation of the
//! [`Runtime`](super::Runtime): anything that frees objects or moves storage
//! starts a new one, and the cache empties itself on its next look-up.

/// A call reduced to plain values (borrowed: building one allocates nothing).
#[derive(Clone, Copy, Debug)]
pub struct CallSig<'a> {
    /// A hash of `words` and of the name's address.
    pub hash: u64,
    /// Everything about the call's arguments that decides its meaning.
    pub words: &'a [u64],
    /// The name's bytes (a name buffer may be reused for another name).
    pub name: &'a [u8],
}

/// FxHash's multiplier: a fast, well-mixing hash of machine words.
#[derive(Default)]
pub struct WordHasher(u64);

impl WordHasher {
    pub fn add(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    pub fn finish(&self) -> u64 {
        self.0
    }
}

/// The hash of a signature's words.
pub fn hash_words(words: &[u64]) -> u64 {
    let mut h = WordHasher::default();
    for &w in words {
        h.add(w);
    }
    h.finish()
}

struct Entry<T> {
    words: Box<[u64]>,
    name: Box<[u8]>,
    value: T,
}

/// Values by call signature, for one generation.
pub struct CallCache<T> {
    generation: u64,
    entries: crate::FastHashMap<u64, Vec<Entry<T>>>,
}

impl<T> Default for CallCache<T> {
    fn default() -> Self {
        CallCache {
            generation: 0,
            entries: crate::FastHashMap::default(),
        }
    }
}

/// Entries kept per hash: calls that differ only in, say, the address of a
/// stack variable given as a global argument keep the newest few.
const PER_HASH: usize = 8;

impl<T> CallCache<T> {
    /// The value cached for `sig` in `generation`, if any.
    pub fn get(&mut self, generation: u64, sig: &CallSig<'_>) -> Option<&T> {
        if self.generation != generation {
            self.entries.clear();
            self.generation = generation;
            return None;
        }
        self.entries
            .get(&sig.hash)?
            .iter()
            .find(|e| *e.words == *sig.words && *e.name == *sig.name)
            .map(|e| &e.value)
    }

    /// Remember `value` for `sig` (in the generation of the last look-up).
    pub fn insert(&mut self, sig: &CallSig<'_>, value: T) {
        let v = self.entries.entry(sig.hash).or_default();
        if v.len() >= PER_HASH {
            v.remove(0);
        }
        v.push(Entry {
            words: sig.words.into(),
            name: sig.name.into(),
            value,
        });
    }

    pub fn clear(&mut self) {
        self.entries.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sig<'a>(words: &'a [u64], name: &'a [u8]) -> CallSig<'a> {
        CallSig {
            hash: hash_words(words),
            words,
            name,
        }
    }

    #[test]
    fn hits_only_the_same_call_in_the_same_generation() {
        let mut c = CallCache::default();
        assert!(c.get(0, &sig(&[1, 2], b"a")).is_none());
        c.insert(&sig(&[1, 2], b"a"), 7);
        assert_eq!(c.get(0, &sig(&[1, 2], b"a")), Some(&7));
        assert!(c.get(0, &sig(&[1, 3], b"a")).is_none());
        assert!(c.get(0, &sig(&[1, 2], b"b")).is_none());
        assert!(c.get(1, &sig(&[1, 2], b"a")).is_none(), "new generation");
        assert!(c.get(1, &sig(&[1, 2], b"a")).is_none(), "emptied");
    }

    #[test]
    fn keeps_the_newest_entries_of_a_hash() {
        let mut c = CallCache::default();
        let name = b"n";
        for i in 0..10u64 {
            let w = [i];
            // every signature under one hash
            c.insert(
                &CallSig {
                    hash: 5,
                    words: &w,
                    name,
                },
                i,
            );
        }
        let at = |c: &mut CallCache<u64>, i: u64| {
            let w = [i];
            c.get(
                0,
                &CallSig {
                    hash: 5,
                    words: &w,
                    name,
                },
            )
            .copied()
        };
        assert_eq!(at(&mut c, 0), None);
        assert_eq!(at(&mut c, 1), None);
        assert_eq!(at(&mut c, 2), Some(2));
        assert_eq!(at(&mut c, 9), Some(9));
    }
}
