//! The device's own time of each loop's kernels (`OP2_RS_DEVICE_TIMES`):
//! a mark goes into the device's queue before a loop's first launch and
//! another after its last (CUDA events, OpenCL markers on a queue with
//! profiling), and the time between the two, as the device saw it, is
//! the loop's. The host reads a pair only when it has to: when more than
//! [`MAX_PENDING`] are waiting (then the oldest, which the device has most
//! likely passed long ago), and when the table is printed. Nothing else
//! waits for them, so loops left queued (`OP2_RS_DEVICE_ASYNC=1`) stay
//! queued, and the table then gives the times the host's clock cannot.

use op2_core::device::memory::DeviceError;
use std::collections::VecDeque;

/// Marks in a device's queue.
pub trait Marks {
    /// A reusable point in the queue (a CUDA event, an OpenCL event
    /// holder); freed when dropped.
    type Mark: Send + 'static;
    /// A new mark, not yet in the queue.
    fn new_mark(&self) -> Result<Self::Mark, DeviceError>;
    /// Put `m` in the queue after everything queued so far (returns at
    /// once).
    fn record(&self, m: &mut Self::Mark) -> Result<(), DeviceError>;
    /// The device's seconds from `from` to `to`, both recorded, `to`
    /// after `from`; waits until the device has passed `to`.
    fn seconds(&self, from: &Self::Mark, to: &Self::Mark) -> Result<f64, DeviceError>;
}

/// At most this many calls' marks wait to be read.
pub const MAX_PENDING: usize = 64;

/// One loop's device time: its calls' marks and what was read of them.
pub struct LoopTimes<M> {
    free: Vec<M>,
    pending: VecDeque<(M, M)>,
    seconds: f64,
    calls: u64,
}

impl<M> Default for LoopTimes<M> {
    fn default() -> Self {
        LoopTimes {
            free: Vec::new(),
            pending: VecDeque::new(),
            seconds: 0.0,
            calls: 0,
        }
    }
}

impl<M: Send + 'static> LoopTimes<M> {
    fn recorded<D: Marks<Mark = M> + ?Sized>(&mut self, dev: &D) -> Result<M, DeviceError> {
        let mut m = match self.free.pop() {
            Some(m) => m,
            None => dev.new_mark()?,
        };
        match dev.record(&mut m) {
            Ok(()) => Ok(m),
            Err(e) => {
                self.free.push(m);
                Err(e)
            }
        }
    }

    /// A mark before a call's first launch.
    pub fn start<D: Marks<Mark = M> + ?Sized>(&mut self, dev: &D) -> Result<M, DeviceError> {
        self.recorded(dev)
    }

    /// A mark after the call's last launch, paired with `start`'s.
    pub fn end<D: Marks<Mark = M> + ?Sized>(
        &mut self,
        dev: &D,
        start: M,
    ) -> Result<(), DeviceError> {
        let end = match self.recorded(dev) {
            Ok(e) => e,
            Err(e) => {
                self.free.push(start);
                return Err(e);
            }
        };
        self.pending.push_back((start, end));
        while self.pending.len() > MAX_PENDING {
            self.read_oldest(dev)?;
        }
        Ok(())
    }

    fn read_oldest<D: Marks<Mark = M> + ?Sized>(&mut self, dev: &D) -> Result<(), DeviceError> {
        let Some((a, b)) = self.pending.pop_front() else {
            return Ok(());
        };
        let s = dev.seconds(&a, &b);
        self.free.push(a);
        self.free.push(b);
        self.seconds += s?;
        self.calls += 1;
        Ok(())
    }

    /// Every call's device seconds so far, and the number of calls (waits
    /// for the device to pass the last call's end).
    pub fn total<D: Marks<Mark = M> + ?Sized>(
        &mut self,
        dev: &D,
    ) -> Result<(f64, u64), DeviceError> {
        while !self.pending.is_empty() {
            self.read_oldest(dev)?;
        }
        Ok((self.seconds, self.calls))
    }

    /// Calls whose marks were not read yet.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::{Cell, RefCell};

    /// A device whose clock is a counter of microseconds the test moves.
    #[derive(Default)]
    struct Fake {
        now: Cell<u64>,
        made: Cell<usize>,
        /// Marks the device has passed (the test says when).
        passed: Cell<u64>,
        waits: RefCell<Vec<u64>>,
        fail_record: Cell<bool>,
    }

    struct FakeMark {
        at: Option<u64>,
    }

    impl Marks for Fake {
        type Mark = FakeMark;
        fn new_mark(&self) -> Result<FakeMark, DeviceError> {
            self.made.set(self.made.get() + 1);
            Ok(FakeMark { at: None })
        }
        fn record(&self, m: &mut FakeMark) -> Result<(), DeviceError> {
            if self.fail_record.get() {
                return Err(DeviceError("record failed".into()));
            }
            m.at = Some(self.now.get());
            Ok(())
        }
        fn seconds(&self, a: &FakeMark, b: &FakeMark) -> Result<f64, DeviceError> {
            if b.at > Some(self.passed.get()) {
                self.waits.borrow_mut().push(b.at.unwrap_or(0));
            }
            match (a.at, b.at) {
                (Some(a), Some(b)) => Ok((b - a) as f64 * 1e-6),
                _ => Err(DeviceError("a mark not recorded".into())),
            }
        }
    }

    fn call(t: &mut LoopTimes<FakeMark>, dev: &Fake, us: u64) {
        let s = t.start(dev).unwrap();
        dev.now.set(dev.now.get() + us);
        t.end(dev, s).unwrap();
        dev.now.set(dev.now.get() + 1000);
    }

    #[test]
    fn calls_add_up_and_marks_are_reused() {
        let dev = Fake::default();
        let mut t = LoopTimes::default();
        for us in [10, 20, 30] {
            call(&mut t, &dev, us);
        }
        assert_eq!(t.pending(), 3);
        let (s, n) = t.total(&dev).unwrap();
        assert!((s - 60e-6).abs() < 1e-12, "{s}");
        assert_eq!(n, 3);
        assert_eq!(t.pending(), 0);
        assert_eq!(dev.made.get(), 6);
        // later calls take the marks already made
        call(&mut t, &dev, 5);
        call(&mut t, &dev, 5);
        assert_eq!(dev.made.get(), 6);
        let (s, n) = t.total(&dev).unwrap();
        assert!((s - 70e-6).abs() < 1e-12, "{s}");
        assert_eq!(n, 5);
    }

    #[test]
    fn only_the_oldest_calls_are_read_before_the_table_asks() {
        let dev = Fake::default();
        let mut t = LoopTimes::default();
        for _ in 0..MAX_PENDING {
            call(&mut t, &dev, 1);
        }
        // nothing read yet: no wait
        assert!(dev.waits.borrow().is_empty());
        // the device has passed every mark so far
        dev.passed.set(dev.now.get());
        call(&mut t, &dev, 1);
        assert_eq!(t.pending(), MAX_PENDING);
        assert!(dev.waits.borrow().is_empty(), "{:?}", dev.waits.borrow());
        let (_, n) = t.total(&dev).unwrap();
        assert_eq!(n, MAX_PENDING as u64 + 1);
        // only the last call, which the device had not passed, waited
        assert_eq!(dev.waits.borrow().len(), 1);
    }

    #[test]
    fn a_failed_mark_is_an_error_and_loses_no_mark() {
        let dev = Fake::default();
        let mut t = LoopTimes::default();
        let s = t.start(&dev).unwrap();
        dev.fail_record.set(true);
        assert_eq!(t.end(&dev, s).unwrap_err().0, "record failed");
        dev.fail_record.set(false);
        assert_eq!(t.pending(), 0);
        call(&mut t, &dev, 7);
        // the start mark of the failed call was kept for reuse
        assert_eq!(dev.made.get(), 2);
        assert_eq!(t.total(&dev).unwrap().1, 1);
    }
}
