//! A team of threads in the OpenMP style: the calling thread is member 0,
//! `n - 1` workers wait for jobs; a job runs on every member at once and the
//! members meet at barriers inside it. Nothing is allocated per job, and the
//! caller starts working as soon as it has published the job.
//!
//! Waiting (for a job, at a barrier, for the job's end) spins briefly, then
//! yields, then sleeps on a condition variable, so an oversubscribed machine
//! (MPI ranks x threads on few cores) degrades gracefully.

use std::any::Any;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

/// Spin iterations before yielding, and yields before sleeping.
const SPINS: u32 = 2_000;
const YIELDS: u32 = 50;

/// A job: called once on every member with the member's index.
type Job<'a> = &'a (dyn Fn(usize) + Sync);

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Wait until `ready()` holds: spin, yield, then sleep on `cv` (whoever makes
/// `ready()` true notifies `cv` while holding `m`).
fn wait_until(m: &Mutex<()>, cv: &Condvar, ready: impl Fn() -> bool) {
    for _ in 0..SPINS {
        if ready() {
            return;
        }
        std::hint::spin_loop();
    }
    for _ in 0..YIELDS {
        if ready() {
            return;
        }
        std::thread::yield_now();
    }
    let mut g = lock(m);
    while !ready() {
        g = cv.wait(g).unwrap_or_else(|p| p.into_inner());
    }
}

/// A reusable barrier for the team's members.
pub(crate) struct Barrier {
    n: usize,
    arrived: AtomicUsize,
    generation: AtomicUsize,
    m: Mutex<()>,
    cv: Condvar,
}

impl Barrier {
    fn new(n: usize) -> Barrier {
        Barrier {
            n,
            arrived: AtomicUsize::new(0),
            generation: AtomicUsize::new(0),
            m: Mutex::new(()),
            cv: Condvar::new(),
        }
    }

    /// Wait until every member arrived.
    pub(crate) fn wait(&self) {
        let gen = self.generation.load(Ordering::Acquire);
        if self.arrived.fetch_add(1, Ordering::AcqRel) + 1 == self.n {
            self.arrived.store(0, Ordering::Relaxed);
            let _g = lock(&self.m);
            self.generation.fetch_add(1, Ordering::Release);
            self.cv.notify_all();
            return;
        }
        wait_until(&self.m, &self.cv, || {
            self.generation.load(Ordering::Acquire) != gen
        });
    }
}

struct Shared {
    /// The current job (valid while a job runs: the caller keeps it alive
    /// until every worker has finished).
    job: Mutex<Option<Job<'static>>>,
    /// Incremented for every job; workers run each epoch once.
    epoch: AtomicU64,
    /// Workers still running the current job.
    active: AtomicUsize,
    shutdown: AtomicBool,
    /// A panic of a worker during the current job.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
    m: Mutex<()>,
    work: Condvar,
    done: Condvar,
    barrier: Barrier,
}

/// `n` threads: the caller and `n - 1` workers.
pub(crate) struct Team {
    n: usize,
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
}

impl Team {
    /// A team of `n >= 2` members (workers named `op2-worker-<i>`).
    pub(crate) fn new(n: usize) -> std::io::Result<Team> {
        let shared = Arc::new(Shared {
            job: Mutex::new(None),
            epoch: AtomicU64::new(0),
            active: AtomicUsize::new(0),
            shutdown: AtomicBool::new(false),
            panic: Mutex::new(None),
            m: Mutex::new(()),
            work: Condvar::new(),
            done: Condvar::new(),
            barrier: Barrier::new(n),
        });
        let workers = (1..n)
            .map(|i| {
                let s = shared.clone();
                std::thread::Builder::new()
                    .name(format!("op2-worker-{i}"))
                    .spawn(move || worker(&s, i))
            })
            .collect::<std::io::Result<Vec<_>>>()?;
        Ok(Team { n, shared, workers })
    }

    /// The number of members (the caller and the workers).
    pub(crate) fn size(&self) -> usize {
        self.n
    }

    /// The barrier of the team's members (for use inside a job).
    pub(crate) fn barrier(&self) -> &Barrier {
        &self.shared.barrier
    }

    /// Run `job` on every member (the caller is member 0) and wait for all.
    /// A panic on any member is resumed on the caller afterwards.
    pub(crate) fn run(&self, job: Job<'_>) {
        let s = &*self.shared;
        // SAFETY: the job is only reached through `s.job` by workers of the
        // current epoch, all of which finish (active == 0) before this
        // function returns and the borrow ends; the slot is cleared then.
        let erased: Job<'static> = unsafe { std::mem::transmute::<Job<'_>, Job<'static>>(job) };
        *lock(&s.job) = Some(erased);
        s.active.store(self.n - 1, Ordering::Release);
        {
            let _g = lock(&s.m);
            s.epoch.fetch_add(1, Ordering::AcqRel);
            s.work.notify_all();
        }
        let mine = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job(0)));
        wait_until(&s.m, &s.done, || s.active.load(Ordering::Acquire) == 0);
        *lock(&s.job) = None;
        if let Err(p) = mine {
            std::panic::resume_unwind(p);
        }
        if let Some(p) = lock(&s.panic).take() {
            std::panic::resume_unwind(p);
        }
    }
}

fn worker(s: &Shared, me: usize) {
    let mut seen = 0u64;
    loop {
        wait_until(&s.m, &s.work, || {
            s.epoch.load(Ordering::Acquire) != seen || s.shutdown.load(Ordering::Acquire)
        });
        if s.shutdown.load(Ordering::Acquire) {
            return;
        }
        seen = s.epoch.load(Ordering::Acquire);
        let job = *lock(&s.job);
        if let Some(job) = job {
            if let Err(p) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job(me))) {
                lock(&s.panic).get_or_insert(p);
            }
        }
        if s.active.fetch_sub(1, Ordering::AcqRel) == 1 {
            let _g = lock(&s.m);
            s.done.notify_all();
        }
    }
}

impl Drop for Team {
    fn drop(&mut self) {
        {
            let _g = lock(&self.shared.m);
            self.shared.shutdown.store(true, Ordering::Release);
            self.shared.work.notify_all();
        }
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_member_runs_each_job_once() {
        let t = Team::new(3).unwrap();
        for round in 0..200 {
            let hits: Vec<AtomicUsize> = (0..3).map(|_| AtomicUsize::new(0)).collect();
            t.run(&|me| {
                hits[me].fetch_add(round + 1, Ordering::Relaxed);
            });
            for h in &hits {
                assert_eq!(h.load(Ordering::Relaxed), round + 1);
            }
        }
    }

    #[test]
    fn barriers_order_phases() {
        let t = Team::new(4).unwrap();
        let phase = AtomicUsize::new(0);
        let bad = AtomicBool::new(false);
        t.run(&|_| {
            for p in 0..50 {
                if phase.load(Ordering::Acquire) / 4 != p {
                    bad.store(true, Ordering::Relaxed);
                }
                t.barrier().wait();
                phase.fetch_add(1, Ordering::AcqRel);
                t.barrier().wait();
            }
        });
        assert!(!bad.load(Ordering::Relaxed));
        assert_eq!(phase.load(Ordering::Relaxed), 200);
    }

    #[test]
    fn a_worker_panic_reaches_the_caller() {
        let t = Team::new(2).unwrap();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            t.run(&|me| {
                if me == 1 {
                    panic!("worker fails");
                }
            })
        }));
        assert!(r.is_err());
        // The team still works afterwards.
        let n = AtomicUsize::new(0);
        t.run(&|_| {
            n.fetch_add(1, Ordering::Relaxed);
        });
        assert_eq!(n.load(Ordering::Relaxed), 2);
    }
}
