//! The row gather of MPI halo exchanges on CUDA (`CudaMemory::gather_rows`):
//! with no GPU here, its CUDA text (op2-codegen's, the body the OpenCL
//! backend runs on PoCL in backends/opencl/tests/opencl.rs) is compiled by
//! the real NVRTC (PyPI, scripts/cuda_toolkit.sh) for sm_90 with the
//! options the library uses, into a cubin holding the kernel. Running it
//! needs a GPU (not done here).

use op2_backend_cuda::loops::{nvrtc_cubin, NVRTC_OPTIONS};
use op2_codegen::{gather_text, Dialect, GATHER_ENTRY};
use std::path::Path;
use std::process::Command;

const CHILD: &str = "OP2_RS_GATHER_TEST_CHILD";

#[test]
fn the_row_gather_compiles_with_nvrtc() {
    if std::env::var_os(CHILD).is_none() {
        // libnvrtc is found through LD_LIBRARY_PATH, read when the process
        // starts: run this test again in a process that has it
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let out = Command::new(root.join("scripts/cuda_toolkit.sh"))
            .output()
            .expect("scripts/cuda_toolkit.sh");
        assert!(out.status.success(), "{out:?}");
        let dir = String::from_utf8(out.stdout).unwrap();
        let run = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "the_row_gather_compiles_with_nvrtc",
                "--nocapture",
            ])
            .env("LD_LIBRARY_PATH", format!("{}/lib", dir.trim()))
            .env(CHILD, "1")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&run.stdout);
        assert!(
            run.status.success() && text.contains("gather cubin:"),
            "{text}\n{}",
            String::from_utf8_lossy(&run.stderr)
        );
        return;
    }
    let mut options = vec!["--gpu-architecture=sm_90".to_string()];
    options.extend(NVRTC_OPTIONS.iter().map(|o| o.to_string()));
    let cubin = nvrtc_cubin(&gather_text(Dialect::Cuda), GATHER_ENTRY, &options)
        .unwrap_or_else(|e| panic!("NVRTC: {e:?}"));
    assert!(cubin.starts_with(b"\x7fELF"), "a cubin is an ELF image");
    let name = GATHER_ENTRY.as_bytes();
    assert!(
        cubin.windows(name.len()).any(|w| w == name),
        "the cubin holds {GATHER_ENTRY}"
    );
    println!("gather cubin: {} bytes", cubin.len());
}
