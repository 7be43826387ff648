//! Timing records behind `OP_kernels` (one per kernel name), as generated
//! code and `op_timing_output` see them.

use crate::ffi::op_kernel;
use crate::globals;
use std::collections::HashMap;
use std::ffi::{CStr, CString};
use std::os::raw::c_int;
use std::ptr::addr_of_mut;

/// Timing record storage behind `OP_kernels`.
#[derive(Default)]
pub struct Kernels {
    /// The array `OP_kernels` points to.
    pub recs: Vec<op_kernel>,
    /// Per record, its `times` array (ntimes entries).
    times: Vec<Box<[f64]>>,
    /// Names we own (records named by op_par_loop).
    names: Vec<CString>,
    by_name: HashMap<String, usize>,
}

impl Kernels {
    /// `op_timing_realloc_manytime(k, ntimers)`: make record `k` exist.
    pub fn realloc(&mut self, k: usize, ntimers: usize) {
        if k >= self.recs.len() {
            let new_len = k + 10;
            while self.recs.len() < new_len {
                let mut t = vec![0.0f64; ntimers.max(1)].into_boxed_slice();
                self.recs.push(op_kernel {
                    name: c"unused".as_ptr(),
                    count: 0,
                    time: 0.0,
                    times: t.as_mut_ptr(),
                    ntimes: ntimers.max(1) as c_int,
                    plan_time: 0.0,
                    transfer: 0.0,
                    transfer2: 0.0,
                    mpi_time: 0.0,
                });
                self.times.push(t);
            }
        } else if ntimers > self.recs[k].ntimes as usize {
            let mut t = vec![0.0f64; ntimers].into_boxed_slice();
            t[..self.times[k].len()].copy_from_slice(&self.times[k]);
            self.recs[k].times = t.as_mut_ptr();
            self.recs[k].ntimes = ntimers as c_int;
            self.times[k] = t;
        }
        self.publish();
        // SAFETY: plain int global, API thread.
        unsafe { globals::set(addr_of_mut!(globals::OP_kern_curr), k as c_int) };
    }

    fn publish(&mut self) {
        // SAFETY: OP_kernels mirrors our Vec; generated code re-reads it after
        // each op_timing_realloc, as OP2 requires.
        unsafe {
            *addr_of_mut!(globals::OP_kernels) = self.recs.as_mut_ptr();
            globals::set(addr_of_mut!(globals::OP_kern_max), self.recs.len() as c_int);
        }
    }

    /// The record for kernel `name` (created at the end if new).
    pub fn index_of(&mut self, name: &str) -> usize {
        if let Some(&k) = self.by_name.get(name) {
            // The app's generated code may have renamed the slot; re-check.
            // SAFETY: reading a name pointer we or the app set to a C string.
            let same = unsafe {
                let p = self.recs[k].name;
                !p.is_null() && CStr::from_ptr(p).to_bytes() == name.as_bytes()
            };
            if same {
                return k;
            }
        }
        // Look for a record the application (generated code) named already.
        for (k, r) in self.recs.iter().enumerate() {
            // SAFETY: as above.
            let same = unsafe {
                !r.name.is_null() && CStr::from_ptr(r.name).to_bytes() == name.as_bytes()
            };
            if same {
                self.by_name.insert(name.to_string(), k);
                return k;
            }
        }
        let k = self
            .recs
            .iter()
            // SAFETY: names are C strings set by us or by generated code.
            .position(|r| r.count == 0 && unsafe { CStr::from_ptr(r.name) } == c"unused")
            .unwrap_or(self.recs.len());
        self.realloc(k, 1);
        let n = crate::ffi::cstring(name);
        self.recs[k].name = n.as_ptr();
        self.names.push(n);
        self.by_name.insert(name.to_string(), k);
        k
    }

    /// Name record `k` (generated Fortran code via setKernelTime).
    pub fn rename(&mut self, k: usize, name: &str) {
        let n = crate::ffi::cstring(name);
        self.recs[k].name = n.as_ptr();
        self.names.push(n);
        self.by_name.insert(name.to_string(), k);
    }

    /// Add one execution of kernel `k`.
    pub fn record(&mut self, k: usize, secs: f64, mpi_secs: f64, transfer: f64) {
        let r = &mut self.recs[k];
        r.count += 1;
        r.time += secs;
        r.mpi_time += mpi_secs;
        // SAFETY: times has ntimes >= 1 entries (allocated in realloc).
        unsafe { *r.times += secs };
        r.transfer += transfer as f32;
    }
}

impl Kernels {
    /// Index of the record whose name is `name` (no record is created).
    pub fn find(&self, name: &str) -> Option<usize> {
        self.recs.iter().position(|r| {
            // SAFETY: names are C strings set by us or by generated code.
            !r.name.is_null() && unsafe { CStr::from_ptr(r.name) }.to_bytes() == name.as_bytes()
        })
    }

    /// Add plan construction time to kernel `name` (if it has a record).
    pub fn add_plan_time(&mut self, name: &str, secs: f64) {
        if let Some(k) = self.find(name) {
            self.recs[k].plan_time += secs as f32;
        }
    }
}
