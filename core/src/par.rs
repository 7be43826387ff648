//! When op2-core runs in parallel: only on a thread of a rayon pool.
//!
//! Rayon's parallel iterators, sorts and `join`, called from a thread outside
//! any pool, start rayon's *global* pool (one thread per core) and keep it for
//! the life of the process. The sequential library must never start a
//! thread, and an MPI rank must not start a pool of all cores, so core never
//! calls rayon directly: every parallel site goes through these helpers.
//!
//! The rule: on a worker thread of a rayon pool
//! (`rayon::current_thread_index().is_some()`, e.g. inside the threads
//! backend's `Executor::install`) the work is spread over that pool;
//! anywhere else it runs sequentially on the calling thread. Both give
//! identical results (the helpers only ever combine results in index order,
//! and sort keys are totally ordered values).

use rayon::prelude::*;

/// Is the calling thread a worker of a rayon pool (so parallel work stays in
/// that pool)?
pub(crate) fn in_pool() -> bool {
    rayon::current_thread_index().is_some()
}

/// `[f(0), f(1), ..., f(n - 1)]`; in a pool, in parallel with tasks of at
/// least `min_len` indices.
pub(crate) fn map_range<R, F>(n: usize, min_len: usize, f: F) -> Vec<R>
where
    R: Send,
    F: Fn(usize) -> R + Sync + Send,
{
    if in_pool() {
        (0..n)
            .into_par_iter()
            .with_min_len(min_len.max(1))
            .map(f)
            .collect()
    } else {
        (0..n).map(f).collect()
    }
}

/// `f` of every item, in order; in a pool, in parallel.
pub(crate) fn map_slice<T, R, F>(items: &[T], f: F) -> Vec<R>
where
    T: Sync,
    R: Send,
    F: Fn(&T) -> R + Sync + Send,
{
    if in_pool() {
        items.par_iter().map(f).collect()
    } else {
        items.iter().map(f).collect()
    }
}

/// What `f(0, out), ..., f(n - 1, out)` append to `out`, in index order; in a
/// pool, in parallel with tasks of at least `min_len` indices.
pub(crate) fn collect_range<T, F>(n: usize, min_len: usize, f: F) -> Vec<T>
where
    T: Send,
    F: Fn(usize, &mut Vec<T>) + Sync + Send,
{
    if in_pool() {
        (0..n)
            .into_par_iter()
            .with_min_len(min_len.max(1))
            .fold(Vec::new, |mut acc, i| {
                f(i, &mut acc);
                acc
            })
            .reduce(Vec::new, |mut a, b| {
                a.extend(b);
                a
            })
    } else {
        let mut acc = Vec::new();
        for i in 0..n {
            f(i, &mut acc);
        }
        acc
    }
}

/// `f(i, chunk)` for every `chunk`-long piece of `v` (the last may be
/// shorter); in a pool, in parallel. Panics if `chunk == 0`.
pub(crate) fn for_each_chunk_mut<T, F>(v: &mut [T], chunk: usize, f: F)
where
    T: Send,
    F: Fn(usize, &mut [T]) + Sync + Send,
{
    if in_pool() {
        v.par_chunks_mut(chunk)
            .enumerate()
            .for_each(|(i, c)| f(i, c));
    } else {
        v.chunks_mut(chunk).enumerate().for_each(|(i, c)| f(i, c));
    }
}

/// Sort `v` (unstable: only for keys where equal means identical); in a
/// pool, in parallel.
pub(crate) fn sort_unstable<T: Ord + Send>(v: &mut [T]) {
    if in_pool() {
        v.par_sort_unstable();
    } else {
        v.sort_unstable();
    }
}

/// `(a(), b())`; in a pool, possibly in parallel.
pub(crate) fn join<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    if in_pool() {
        rayon::join(a, b)
    } else {
        (a(), b())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;
    use std::thread::{self, ThreadId};

    /// The results of `map_range`, `map_slice`, `collect_range`,
    /// `sort_unstable`, `for_each_chunk_mut` and `join`.
    type Results = (Vec<u64>, Vec<u64>, Vec<u64>, Vec<u64>, Vec<u64>, u64);

    /// Every helper, on inputs large enough to split; records the threads
    /// that ran the closures.
    fn run_all(seen: &Mutex<Vec<ThreadId>>) -> Results {
        let note = || seen.lock().unwrap().push(thread::current().id());
        let f = |i: usize| (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40;
        let a = map_range(100_000, 7, |i| {
            if i % 1000 == 0 {
                note();
            }
            f(i)
        });
        let b = map_slice(&a, |&x| x ^ 5);
        let c = collect_range(50_000, 64, |i, out| {
            if i % 1000 == 0 {
                note();
            }
            out.extend(std::iter::repeat_n(f(i), i % 3));
        });
        let mut d = a.clone();
        sort_unstable(&mut d);
        let mut e = vec![0u64; 30_001];
        for_each_chunk_mut(&mut e, 4, |i, ch| {
            if i % 1000 == 0 {
                note();
            }
            for (j, x) in ch.iter_mut().enumerate() {
                *x = f(i * 4 + j);
            }
        });
        let (x, y) = join(
            || {
                note();
                a.iter().sum::<u64>()
            },
            || {
                note();
                b.iter().sum::<u64>()
            },
        );
        (a, b, c, d, e, x ^ y)
    }

    #[test]
    fn outside_a_pool_everything_runs_on_the_calling_thread() {
        assert!(!in_pool());
        let seen = Mutex::new(Vec::new());
        run_all(&seen);
        let me = thread::current().id();
        let seen = seen.into_inner().unwrap();
        assert!(!seen.is_empty());
        assert!(seen.iter().all(|&t| t == me));
    }

    #[test]
    fn inside_a_pool_results_are_the_sequential_ones() {
        let seen = Mutex::new(Vec::new());
        let outside = run_all(&seen);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let inside = pool.install(|| {
            assert!(in_pool());
            run_all(&seen)
        });
        assert_eq!(outside, inside);
        let mut d = outside.0.clone();
        d.sort_unstable();
        assert_eq!(outside.3, d);
    }
}
