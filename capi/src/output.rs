//! Getting data out: fetch, dumps, diagnostics, timers and the timing table.

use crate::ffi::*;
use crate::globals::{self, *};
use crate::guard::guard;
use crate::state::{c_str, with_state, State};
use op2_core::dist::DistKind;
use op2_core::error::obj;
use op2_core::timing::{format_table, moments_ignoring_zeros, TimingRow};
use op2_core::{DatId, Op2Error, Result};
use std::ffi::CStr;
use std::os::raw::{c_char, c_double, c_int};
use std::ptr::addr_of;

fn out(s: &str) {
    crate::printf::cout(s)
}

/// A dat's elements in the original order: this rank's declared block
/// (`global == false`) or the whole set (every rank). On one node the
/// dat's own storage is borrowed (no copy).
fn dat_rows(st: &mut State, id: DatId, global: bool) -> Result<std::borrow::Cow<'_, [u8]>> {
    st.finish_exchanges()?;
    st.host_fresh("op_fetch_data", id)?;
    let renumbered = st.dom.set_order(st.dom.dat(id).set).is_some();
    if st.dist.kind() == DistKind::SingleNode && !renumbered {
        let d = st.dom.dat(id);
        let n = st.dom.set(d.set).size;
        return Ok(std::borrow::Cow::Borrowed(
            &d.data.as_slice()[..n * d.elem_bytes],
        ));
    }
    let rows = if global {
        st.dist.gather_global(&st.dom, id)?
    } else {
        st.dist.fetch_block(&st.dom, id)?
    };
    Ok(std::borrow::Cow::Owned(rows))
}

/// Create `path` for writing, buffered, with errors naming the call and dat.
fn create(call: &str, o: &str, path: &str) -> Result<std::io::BufWriter<std::fs::File>> {
    std::fs::File::create(path)
        .map(|f| std::io::BufWriter::with_capacity(1 << 20, f))
        .map_err(|e| Op2Error::new(call, o, format!("cannot write \"{path}\": {e}")))
}

#[allow(clippy::too_many_arguments)]
fn fetch_range(
    st: &mut State,
    call: &str,
    dat: op_dat,
    low: Option<(i64, i64)>,
    dst: *mut c_char,
    dst_elem: Option<usize>,
) -> Result<()> {
    let id = st.dat_id(call, dat)?;
    let d = st.dom.dat(id);
    let o = obj("dat", &d.name);
    let (eb, scalar) = (d.elem_bytes, d.scalar);
    let type_name = &d.type_name;
    if dst.is_null() {
        return Err(Op2Error::new(call, o, "the destination pointer is NULL"));
    }
    if let Some(sz) = dst_elem {
        if let Some(ts) = scalar.size() {
            if ts != sz {
                return Err(Op2Error::new(
                    call,
                    o,
                    format!("the destination has {sz}-byte elements but the dat's type \"{type_name}\" has {ts}-byte elements"),
                ));
            }
        }
    }
    // op_fetch_data: this rank's block; op_fetch_data_idx: a global range.
    let rows = dat_rows(st, id, low.is_some())?;
    let n = (rows.len() / eb.max(1)) as i64;
    let (low, high) = low.unwrap_or((0, n - 1));
    if n == 0 && low == 0 && high == -1 {
        return Ok(());
    }
    if low < 0 || high >= n || low > high {
        return Err(Op2Error::new(
            call,
            o,
            format!(
                "range [{low}, {high}] is not inside the set's elements [0, {}]",
                n - 1
            ),
        ));
    }
    let bytes = &rows[low as usize * eb..(high as usize + 1) * eb];
    // SAFETY: OP2's contract: dst holds (high - low + 1) elements.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), dst as *mut u8, bytes.len()) };
    Ok(())
}

/// Copy all of a dat's owned elements to `dst`.
#[no_mangle]
pub unsafe extern "C" fn op_fetch_data_char(dat: op_dat, dst: *mut c_char) {
    with_state("op_fetch_data", |st| {
        fetch_range(st, "op_fetch_data", dat, None, dst, None)
    })
}

/// `op_fetch_data` from the C/C++ headers, which know the destination's element size.
#[no_mangle]
pub unsafe extern "C" fn op2_fetch_data_checked(dat: op_dat, dst: *mut c_char, dst_elem: c_int) {
    with_state("op_fetch_data", |st| {
        fetch_range(st, "op_fetch_data", dat, None, dst, Some(dst_elem as usize))
    })
}

/// Copy elements `low..=high` of a dat to `dst` (which holds `high-low+1` elements).
/// Unlike OP2, nothing past `high` is read.
#[no_mangle]
pub unsafe extern "C" fn op_fetch_data_idx_char(
    dat: op_dat,
    dst: *mut c_char,
    low: c_int,
    high: c_int,
) {
    with_state("op_fetch_data_idx", |st| {
        fetch_range(
            st,
            "op_fetch_data_idx",
            dat,
            Some((low as i64, high as i64)),
            dst,
            None,
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn op2_fetch_data_idx_checked(
    dat: op_dat,
    dst: *mut c_char,
    low: c_int,
    high: c_int,
    dst_elem: c_int,
) {
    with_state("op_fetch_data_idx", |st| {
        fetch_range(
            st,
            "op_fetch_data_idx",
            dat,
            Some((low as i64, high as i64)),
            dst,
            Some(dst_elem as usize),
        )
    })
}

fn dat_owned(st: &State, id: DatId) -> (&op2_core::Dat, usize) {
    let d = st.dom.dat(id);
    (d, st.dom.set(d.set).size)
}

/// Write a dat as text (OP2's single-node format).
#[no_mangle]
pub unsafe extern "C" fn op_print_dat_to_txtfile(dat: op_dat, file: *const c_char) {
    let call = "op_print_dat_to_txtfile";
    with_state(call, |st| {
        let id = st.dat_id(call, dat)?;
        let path = c_str(call, "the file name", file)?;
        let mpi = st.dist.kind() == DistKind::Mpi;
        let (o, type_name, dim, eb) = {
            let d = st.dom.dat(id);
            (
                obj("dat", &d.name),
                d.type_name.clone(),
                d.dim,
                d.elem_bytes,
            )
        };
        if !op2_core::format::txt_printable(&type_name, mpi) {
            let only = if mpi {
                "double, float, int"
            } else {
                "double, float, int, long long"
            };
            return Err(Op2Error::new(
                call,
                o,
                format!("cannot print type \"{type_name}\" ({only} only)"),
            ));
        }
        // Under MPI the rows are gathered in the original order and the root
        // writes them in OP2's MPI text format. Streamed to the file.
        let rows = dat_rows(st, id, true)?;
        if !crate::is_root() {
            return Ok(());
        }
        let n = rows.len() / eb.max(1);
        let mut f = create(call, &o, &path)?;
        op2_core::format::write_dat_txt(&mut f, mpi, &type_name, dim, n, &rows)
            .and_then(|()| std::io::Write::flush(&mut f))
            .map_err(|e| Op2Error::new(call, o, format!("cannot write \"{path}\": {e}")))
    })
}

/// Write a dat as binary: int32 count, int32 dim, raw element data.
#[no_mangle]
pub unsafe extern "C" fn op_print_dat_to_binfile(dat: op_dat, file: *const c_char) {
    let call = "op_print_dat_to_binfile";
    with_state(call, |st| {
        let id = st.dat_id(call, dat)?;
        let path = c_str(call, "the file name", file)?;
        let (o, dim, eb) = {
            let d = st.dom.dat(id);
            (obj("dat", &d.name), d.dim, d.elem_bytes)
        };
        let rows = dat_rows(st, id, true)?;
        if !crate::is_root() {
            return Ok(());
        }
        let n = rows.len() / eb.max(1);
        let mut f = create(call, &o, &path)?;
        use std::io::Write;
        // OP2's layout: int32 count, int32 dim, the raw elements.
        f.write_all(&(n as i32).to_ne_bytes())
            .and_then(|()| f.write_all(&(dim as i32).to_ne_bytes()))
            .and_then(|()| f.write_all(&rows[..n * eb]))
            .and_then(|()| f.flush())
            .map_err(|e| Op2Error::new(call, o, format!("cannot write \"{path}\": {e}")))
    })
}

/// Print every value of a dat on its own line (`%lf`, `%f` or `%d`, as OP2).
#[no_mangle]
pub unsafe extern "C" fn op_dump_dat(dat: op_dat) {
    let call = "op_dump_dat";
    with_state(call, |st| {
        let id = st.dat_id(call, dat)?;
        st.host_fresh(call, id)?;
        let (d, n) = dat_owned(st, id);
        let bytes = d.data.as_slice();
        let count = n * d.dim;
        let mut s = String::with_capacity(count * 12);
        match d.scalar {
            op2_core::ScalarType::F64 => {
                for c in bytes.chunks_exact(8).take(count) {
                    s.push_str(&op2_core::format::c_fixed(f64::from_ne_bytes(
                        c.try_into().unwrap(),
                    )));
                    s.push('\n');
                }
            }
            op2_core::ScalarType::F32 => {
                for c in bytes.chunks_exact(4).take(count) {
                    s.push_str(&op2_core::format::c_fixed(
                        f32::from_ne_bytes(c.try_into().unwrap()) as f64,
                    ));
                    s.push('\n');
                }
            }
            op2_core::ScalarType::I32 => {
                for c in bytes.chunks_exact(4).take(count) {
                    s.push_str(&format!("{}\n", i32::from_ne_bytes(c.try_into().unwrap())));
                }
            }
            _ => {
                return Err(Op2Error::new(
                    call,
                    obj("dat", &d.name),
                    format!(
                        "cannot dump type \"{}\" (double, float or int only)",
                        d.type_name
                    ),
                ))
            }
        }
        out(&s);
        Ok(())
    })
}

/// Tables of sets, maps and dats (printed when OP_diags > 1).
#[no_mangle]
pub extern "C" fn op_diagnostic_output() {
    with_state("op_diagnostic_output", |st| {
        if globals::diags() <= 1 {
            return Ok(());
        }
        let dom = &st.dom;
        let mut s = String::from("\n  OP diagnostic output\n  --------------------\n\n       set       size\n  -------------------\n");
        for set in dom.sets() {
            s.push_str(&format!("{:>10} {:>10}\n", set.name, set.size));
        }
        s.push_str("\n       map        dim       from         to\n  -----------------------------------------\n");
        for m in dom.maps() {
            s.push_str(&format!(
                "{:>10} {:>10} {:>10} {:>10}\n",
                m.name,
                m.dim,
                dom.set(m.from).name,
                dom.set(m.to).name
            ));
        }
        s.push_str("\n       dat        dim        set\n  ------------------------------\n");
        for (_, d) in dom.dats() {
            s.push_str(&format!(
                "{:>10} {:>10} {:>10}\n",
                d.name,
                d.dim,
                dom.set(d.set).name
            ));
        }
        s.push('\n');
        out(&s);
        Ok(())
    })
}

// ---- timers and timing -------------------------------------------------------

fn wall_now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

fn cpu_now() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec we pass.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// Wall-clock seconds in `*et` and process CPU seconds in `*cpu` (either may be NULL).
#[no_mangle]
pub unsafe extern "C" fn op_timers_core(cpu: *mut c_double, et: *mut c_double) {
    if !cpu.is_null() {
        *cpu = cpu_now();
    }
    if !et.is_null() {
        *et = wall_now();
    }
}

/// As op_timers_core (a barrier first under MPI).
#[no_mangle]
pub unsafe extern "C" fn op_timers(cpu: *mut c_double, et: *mut c_double) {
    let running = matches!(*crate::state::lock_state(), crate::state::Life::Running(_));
    if running {
        with_state("op_timers", |st| st.dist.barrier());
    }
    op_timers_core(cpu, et)
}

/// Make `OP_kernels[k]` exist (generated code calls this before touching it).
#[no_mangle]
pub extern "C" fn op_timing_realloc(k: c_int) {
    op_timing_realloc_manytime(k, 1)
}

#[no_mangle]
pub extern "C" fn op_timing_realloc_manytime(k: c_int, ntimers: c_int) {
    with_state("op_timing_realloc", |st| {
        if k < 0 {
            return Err(Op2Error::new(
                "op_timing_realloc",
                "",
                format!("kernel index {k} is negative"),
            ));
        }
        st.kernels.realloc(k as usize, ntimers.max(1) as usize);
        Ok(())
    })
}

/// Rows of the timing table from `OP_kernels`.
pub(crate) fn timing_rows(st: &mut State) -> Vec<TimingRow> {
    crate::cross_rank::local_figures(st)
        .into_iter()
        .map(|f| {
            let (m, sd) = moments_ignoring_zeros(&f.times);
            TimingRow {
                name: f.name,
                count: f.count,
                plan_time: f.plan_time,
                mpi_time: f.mpi_time,
                mpi_std: 0.0,
                time: m,
                time_std: sd,
                transfer: f.transfer,
                transfer2: f.transfer2,
            }
        })
        .collect()
}

/// Print the per-kernel timing table (every loop run through op_par_loop and
/// every kernel generated code recorded).
#[no_mangle]
pub extern "C" fn op_timing_output() {
    with_state("op_timing_output", |st| {
        if st.kernels.recs.is_empty() {
            return Ok(());
        }
        let mut rows = timing_rows(st);
        let per_rank = st.dist.timing_across_ranks(&mut rows)?;
        let mut s = format_table(&rows);
        // The libraries that build plans for op_par_loop end with OP2's line.
        if st.exec.wants_plan() {
            // SAFETY: plain double global.
            let pt = unsafe { std::ptr::read_volatile(addr_of!(OP_plan_time)) };
            s.push_str(&format!("Total plan time: {pt:8.4}\n"));
        }
        s.push_str(&per_rank);
        out(&s);
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn op_timing_output_core() {
    with_state("op_timing_output_core", |st| {
        if !st.kernels.recs.is_empty() {
            let rows = timing_rows(st);
            out(&format_table(&rows));
        }
        Ok(())
    })
}

/// The timing table in OP2's file layout.
#[no_mangle]
pub unsafe extern "C" fn op_timing_output_2_file(file: *const c_char) {
    let call = "op_timing_output_2_file";
    with_state(call, |st| {
        let path = c_str(call, "the file name", file)?;
        if st.kernels.recs.is_empty() {
            return std::fs::write(&path, "")
                .map_err(|e| Op2Error::new(call, "", format!("cannot write \"{path}\": {e}")));
        }
        let rows = timing_rows(st);
        let mut s = String::from("\n  count     time     GB/s     GB/s   kernel name ");
        s.push_str(&format!("\n {} \n", "-".repeat(47)));
        let mut total = 0.0;
        for r in &rows {
            total += r.time;
            let g = |b: f64| {
                if r.time > 0.0 {
                    b / (1e9 * r.time)
                } else {
                    0.0
                }
            };
            if r.transfer2 < 1e-8 {
                s.push_str(&format!(
                    " {:6}  {:8.4} {:8.4}            {} \n",
                    r.count,
                    r.time,
                    g(r.transfer),
                    r.name
                ));
            } else {
                s.push_str(&format!(
                    " {:6}  {:8.4} {:8.4} {:8.4}   {} \n",
                    r.count,
                    r.time,
                    g(r.transfer),
                    g(r.transfer2),
                    r.name
                ));
            }
        }
        s.push_str(&format!("Total kernel time = {total:.6}\n"));
        std::fs::write(&path, s)
            .map_err(|e| Op2Error::new(call, "", format!("cannot write \"{path}\": {e}")))
    })
}

/// Print a line (root only under MPI).
#[no_mangle]
pub unsafe extern "C" fn op_print(line: *const c_char) {
    guard("op_print", || {
        if !line.is_null() && crate::is_root() {
            let s = CStr::from_ptr(line).to_string_lossy();
            out(&format!("{s}\n"));
        }
    })
}

/// 1 on the root process (always on one node).
#[no_mangle]
pub extern "C" fn op_is_root() -> c_int {
    crate::is_root() as c_int
}
