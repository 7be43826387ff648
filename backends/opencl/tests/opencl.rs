//! The OpenCL backend on the machine's first OpenCL device (PoCL's CPU
//! device here: the test command installs it): core's DeviceMemory
//! contract on OpenCL buffers, a generated loop built, cached and run, and
//! clear errors. No device at all is a failure here, not a skip.

use op2_backend_opencl::OpenCl;
use op2_codegen::cache::Cache;
use op2_codegen::{generate, samples, Conflicts, Dialect, LaunchParam, Options};
use op2_core::device::DeviceMemory;
use std::path::Path;

fn device() -> std::sync::Arc<OpenCl> {
    OpenCl::open(None)
        .unwrap_or_else(|e| panic!("an OpenCL device is needed here (pocl-opencl-icd): {e}"))
}

#[test]
fn device_memory_contract_on_buffers() {
    let cl = device();
    assert_eq!(cl.alloc(0).unwrap(), 0);
    let p = cl.alloc(100).unwrap();
    let mut back = vec![1u8; 100];
    cl.download(p, &mut back).unwrap();
    assert!(back.iter().all(|&b| b == 0), "allocations are zeroed");
    let data: Vec<u8> = (0..100).collect();
    cl.upload(p, &data).unwrap();
    let mut mid = [0u8; 10];
    cl.download(p + 50, &mut mid).unwrap();
    assert_eq!(
        mid.to_vec(),
        (50..60).collect::<Vec<u8>>(),
        "pointer arithmetic addresses into the buffer"
    );
    cl.zero(p + 10, 5).unwrap();
    cl.download(p, &mut back).unwrap();
    assert_eq!(&back[8..17], &[8, 9, 0, 0, 0, 0, 0, 15, 16]);
    let e = cl.upload(p + 95, &[0u8; 10]).unwrap_err().to_string();
    assert_eq!(
        e,
        "upload: 10 bytes at offset 95 of a 100-byte OpenCL buffer"
    );
    let q = cl.alloc(8).unwrap();
    assert_ne!(p, q);
    cl.free(p);
    let e = cl.download(p, &mut back).unwrap_err().to_string();
    assert!(e.contains("is not an OpenCL buffer of this device"), "{e}");
    cl.upload(q, &[0u8; 0]).unwrap();
    cl.upload(0, &[]).unwrap();
    let h = cl.alloc_pinned(128).unwrap();
    assert_eq!(h as usize % 64, 0);
    cl.free_pinned(h);
    assert!(cl.name().starts_with("OpenCL "));
    // more than the device's largest buffer: its limit named (512 GiB is
    // over any CPU device's CL_DEVICE_MAX_MEM_ALLOC_SIZE here)
    let e = cl.alloc(512 << 30).unwrap_err().to_string();
    assert!(
        e.starts_with("clCreateBuffer of 549755813888 bytes: CL_INVALID_BUFFER_SIZE: the device's largest buffer (CL_DEVICE_MAX_MEM_ALLOC_SIZE) is "),
        "{e}"
    );
}

/// airfoil's update loop, generated for OpenCL (flat).
fn update_loop() -> op2_codegen::Generated {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../c-examples/airfoil");
    let loops = samples::airfoil(&dir, Conflicts::Atomics).unwrap();
    let s = loops.iter().find(|s| s.desc.name == "update").unwrap();
    let o = Options {
        dialect: Dialect::OpenCl,
        block_size: 64,
        wide_offsets: false,
        fma: false,
    };
    generate(&s.desc, &s.source, &s.consts, o).unwrap()
}

#[test]
fn programs_come_from_the_cache_and_damaged_entries_are_rebuilt() {
    let cl = device();
    let g = update_loop();
    let cache_dir = std::env::temp_dir().join(format!("op2-opencl-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&cache_dir);
    let cache = Cache::new(&cache_dir);
    let first = cl.build(&g.text, "-cl-std=CL1.2", Some(&cache)).unwrap();
    assert!(!first.from_cache);
    let second = cl.build(&g.text, "-cl-std=CL1.2", Some(&cache)).unwrap();
    assert!(second.from_cache, "the second build comes from the cache");
    second.kernel(&g.entry).unwrap();
    for e in std::fs::read_dir(&cache_dir).unwrap().flatten() {
        std::fs::write(e.path(), b"OP2RSBIN1\nbroken").unwrap();
    }
    let third = cl.build(&g.text, "-cl-std=CL1.2", Some(&cache)).unwrap();
    assert!(!third.from_cache, "a damaged entry is rebuilt from source");
    let _ = std::fs::remove_dir_all(&cache_dir);
}

/// q = qold - res/adt, res = 0, rms summed per work-group and the slots
/// added in order on the host.
#[test]
fn a_generated_loop_runs_on_the_device() {
    let cl = device();
    let g = update_loop();
    let prog = cl.build(&g.text, "-cl-std=CL1.2", None).unwrap();
    let n = 1000usize;
    let qold: Vec<f64> = (0..4 * n).map(|i| 1.0 + i as f64 * 1e-3).collect();
    let res: Vec<f64> = (0..4 * n)
        .map(|i| ((i * 7) % 13) as f64 * 0.25 - 1.0)
        .collect();
    let adt: Vec<f64> = (0..n).map(|i| 2.0 + (i % 5) as f64).collect();
    let bytes = |v: &[f64]| v.iter().flat_map(|x| x.to_ne_bytes()).collect::<Vec<u8>>();
    let up = |v: &[f64]| {
        let p = cl.alloc(8 * v.len()).unwrap();
        cl.upload(p, &bytes(v)).unwrap();
        p
    };
    let (d_qold, d_q, d_res, d_adt) = (up(&qold), up(&vec![0.0; 4 * n]), up(&res), up(&adt));
    let groups = n.div_ceil(64);
    let (gin, red) = (up(&[0.0]), up(&vec![0.0; groups]));
    let mut k = prog.kernel(&g.entry).unwrap();
    for (i, p) in g.params.iter().enumerate() {
        match p {
            LaunchParam::Dat(0) => k.set_ptr(i, d_qold),
            LaunchParam::Dat(1) => k.set_ptr(i, d_q),
            LaunchParam::Dat(2) => k.set_ptr(i, d_res),
            LaunchParam::Dat(3) => k.set_ptr(i, d_adt),
            LaunchParam::GblIn(4) => k.set_ptr(i, gin),
            LaunchParam::RedOut(4) => k.set_ptr(i, red),
            LaunchParam::SetSize => k.set_i32(i, n as i32),
            other => panic!("update takes no {other:?}"),
        }
        .unwrap();
    }
    k.launch(groups, 64).unwrap();
    let down = |p, len| {
        let mut b = vec![0u8; 8 * len];
        cl.download(p, &mut b).unwrap();
        b.chunks(8)
            .map(|c| f64::from_ne_bytes(c.try_into().unwrap()))
            .collect::<Vec<f64>>()
    };
    let (q, r, slots) = (down(d_q, 4 * n), down(d_res, 4 * n), down(red, groups));
    let mut rms = 0.0;
    // the kernel's arithmetic (c-examples/airfoil/update.h); OpenCL C may
    // contract qold - scale * res into one fused multiply-add, so the
    // device's q may differ from this in the last bit
    for c in 0..n {
        let scale = 1.0 / adt[c];
        for k in 0..4 {
            let delta = scale * res[4 * c + k];
            let want = qold[4 * c + k] - delta;
            let got = q[4 * c + k];
            assert!(
                (got - want).abs() <= 2.0 * f64::EPSILON * want.abs(),
                "q[{c}][{k}]: {got} vs {want}"
            );
            rms += delta * delta;
        }
    }
    assert!(r.iter().all(|&v| v == 0.0), "res cleared");
    let sum: f64 = slots.iter().sum();
    assert!((sum - rms).abs() <= 1e-12 * rms, "{sum} vs {rms}");
}

#[test]
fn build_errors_and_bad_parameters_are_named() {
    let cl = device();
    let e = cl
        .build(
            "__kernel void k(__global int *x) { x[0] = undefined_name; }",
            "-cl-std=CL1.2",
            None,
        )
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("clBuildProgram: CL_BUILD_PROGRAM_FAILURE"),
        "{e}"
    );
    assert!(
        e.contains("undefined_name"),
        "the build log is in the message: {e}"
    );
    let p = cl
        .build("__kernel void k(__global int *x) { x[0] = 1; }", "", None)
        .unwrap();
    assert!(p
        .kernel("nope")
        .unwrap_err()
        .to_string()
        .starts_with("clCreateKernel(nope): CL_INVALID_KERNEL_NAME"));
    let mut k = p.kernel("k").unwrap();
    let b = cl.alloc(64).unwrap();
    assert_eq!(
        k.set_ptr(0, b + 8).unwrap_err().to_string(),
        format!("kernel parameter {:#x}: not the start of a buffer", b + 8)
    );
    k.set_ptr(0, b).unwrap();
    k.launch(1, 1).unwrap();
    let mut v = [0u8; 4];
    cl.download(b, &mut v).unwrap();
    assert_eq!(i32::from_ne_bytes(v), 1);
    assert!(OpenCl::open(Some("no-such-device-name"))
        .err()
        .unwrap()
        .to_string()
        .contains("no OpenCL device matches"));
}

/// The row gather (MPI halo exchanges of device-resident dats) on the
/// device against core's host definition, AoS and SoA, rows in any order;
/// buffers it cannot use are errors.
#[test]
fn rows_are_gathered_on_the_device() {
    use op2_core::device::halo_pack::gather_host;
    use op2_core::device::layout::DatLayout;
    use op2_core::device::memory::Gather;
    let cl = device();
    assert!(cl.has_gather());
    let n = 300;
    let rows: Vec<i32> = (0..n as i32).rev().filter(|r| r % 7 < 2).collect();
    for (dim, scalar) in [(1, 8), (4, 8), (3, 4), (2, 1)] {
        for soa in [None, Some((320, dim, scalar))] {
            let lay = DatLayout {
                elems: n,
                elem_bytes: dim * scalar,
                soa,
            };
            let host: Vec<u8> = (0..n * dim * scalar).map(|i| (i * 7 % 253) as u8).collect();
            let image = lay.to_device(&host);
            let src = cl.alloc(image.len()).unwrap();
            cl.upload(src, &image).unwrap();
            let list = cl.alloc(rows.len() * 4).unwrap();
            let bytes: Vec<u8> = rows.iter().flat_map(|r| r.to_ne_bytes()).collect();
            cl.upload(list, &bytes).unwrap();
            let out = rows.len() * lay.elem_bytes;
            let dst = cl.alloc(out).unwrap();
            let g = Gather {
                src,
                layout: lay,
                rows: list,
                n: rows.len(),
                dst,
            };
            cl.gather_rows(&g).unwrap();
            let mut got = vec![0u8; out];
            cl.download(dst, &mut got).unwrap();
            let mut want = vec![0u8; out];
            gather_host(&image, &lay, &rows, &mut want).unwrap();
            assert_eq!(got, want, "dim {dim} scalar {scalar} soa {soa:?}");
            let e = cl
                .gather_rows(&Gather {
                    n: rows.len() + 1,
                    ..g
                })
                .unwrap_err();
            assert!(e.to_string().contains("row gather (rows)"), "{e}");
            let e = cl.gather_rows(&Gather { dst: dst + 8, ..g }).unwrap_err();
            assert!(e.to_string().contains("row gather (packed rows)"), "{e}");
            for p in [src, list, dst] {
                cl.free(p);
            }
        }
    }
}
