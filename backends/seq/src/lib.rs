//! The sequential backend: every element in set order, one at a time, with
//! reductions applied straight to the user's variables. This is OP2's reference
//! order, so results are bitwise those of a plain loop over the set.

use op2_core::invoke::{Executor, Invoker, LoopRun};
use op2_core::Result;

/// Sequential execution.
#[derive(Debug, Default, Clone, Copy)]
pub struct Seq;

impl Executor for Seq {
    fn name(&self) -> &'static str {
        "seq"
    }

    unsafe fn execute(&self, run: &LoopRun<'_>, inv: &dyn Invoker) -> Result<()> {
        let owned = run.owned.min(run.exec_size);
        let core = run.core.min(owned);
        if core > 0 {
            // SAFETY: the caller's contract; one thread only.
            unsafe { inv.run(run.views, 0, core) };
        }
        if let Some(wait) = run.wait {
            wait()?;
        }
        if owned > core {
            // SAFETY: as above.
            unsafe { inv.run(run.views, core, owned) };
        }
        if run.exec_size > owned {
            // Halo elements: globals the kernel writes go to a scratch copy.
            let mut scratch: Vec<Vec<u8>> = Vec::new();
            let mut views = run.views.to_vec();
            for (v, a) in views.iter_mut().zip(run.args) {
                if v.kind == op2_core::ViewKind::Global && a.access != op2_core::Access::Read {
                    let n = v.elem_bytes.max(0) as usize;
                    // SAFETY: a global view points at its `elem_bytes` bytes.
                    let mut buf = unsafe { std::slice::from_raw_parts(v.data, n) }.to_vec();
                    v.data = buf.as_mut_ptr();
                    scratch.push(buf);
                }
            }
            // SAFETY: as above; written globals go to `scratch`.
            unsafe { inv.run(&views, owned, run.exec_size) };
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use op2_core::invoke::FnInvoker;
    use op2_core::{ArgView, ViewKind};

    #[test]
    fn runs_every_element_in_order() {
        let mut out = vec![0.0f64; 5];
        let view = ArgView {
            data: out.as_mut_ptr() as *mut u8,
            map: std::ptr::null(),
            map_dim: 0,
            idx: -1,
            elem_bytes: 8,
            kind: ViewKind::Direct,
            ..ArgView::NULL
        };
        let order = std::sync::Mutex::new(Vec::new());
        // SAFETY: the view points at `out`.
        let inv = FnInvoker(|n, p: &[*mut u8]| unsafe {
            *(p[0] as *mut f64) = n as f64 * 2.0;
            order.lock().unwrap().push(n);
        });
        let run = LoopRun {
            name: "t",
            exec_size: 5,
            owned: 5,
            core: 5,
            wait: None,
            views: &[view],
            args: &[],
            scalars: &[],
            plan: None,
        };
        // SAFETY: the view is live for every element.
        unsafe { Seq.execute(&run, &inv) }.unwrap();
        assert_eq!(out, vec![0.0, 2.0, 4.0, 6.0, 8.0]);
        assert_eq!(order.into_inner().unwrap(), vec![0, 1, 2, 3, 4]);
    }
}
