//! Every CUDA kernel in kernels/*.cu compiles with NVRTC (no GPU needed), for compute_90 (the
//! H200's architecture), and the PTX defines at least one kernel entry.
//!
//! The directory is read at test time, so a new kernel file is checked without editing this
//! test. Without NVRTC the test prints `skipped: NVRTC not found` and passes, unless
//! `ATOMGPU_KERNEL_CHECK=1` (set by scripts/test-all.sh, which fetches NVRTC into .tools/nvrtc),
//! where a missing NVRTC is a failure.

use std::path::PathBuf;

const ARCH: &str = "compute_90";

/// kernels/ of the source tree: at build time, or under the current directory (where cargo
/// runs tests, and where device-pack runs them on the device machine).
fn kernels_dir() -> Option<PathBuf> {
    let candidates = [Some(PathBuf::from(env!("CARGO_MANIFEST_DIR"))), std::env::current_dir().ok()];
    candidates.into_iter().flatten().map(|root| root.join("kernels")).find(|d| d.is_dir())
}

#[test]
fn every_kernel_compiles_with_nvrtc() {
    let strict = std::env::var("ATOMGPU_KERNEL_CHECK").as_deref() == Ok("1");

    if !atomgpu::backend::nvrtc_available() {
        assert!(
            !strict,
            "ATOMGPU_KERNEL_CHECK=1 but NVRTC could not be loaded: put a folder holding \
             libnvrtc.so.13 (or .so.12) on LD_LIBRARY_PATH (scripts/test-all.sh fetches one into \
             .tools/nvrtc)"
        );
        println!("skipped: NVRTC not found");
        return;
    }

    let Some(dir) = kernels_dir() else {
        assert!(!strict, "kernels/ not found next to the crate or in the current directory");
        println!("skipped: kernels/ not found");
        return;
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "cu"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no *.cu files in {}", dir.display());

    let mut failures = Vec::new();
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let source = match std::fs::read_to_string(path) {
            Ok(s) => s,
            Err(e) => {
                failures.push(format!("{name}: cannot read: {e}"));
                continue;
            }
        };
        match atomgpu::backend::compile_ptx(&name, &source, ARCH) {
            Ok(ptx) if ptx.contains(".entry") => {
                let entries = ptx.matches(".entry").count();
                println!("ok: kernels/{name} -> {} bytes of PTX, {entries} entries", ptx.len());
            }
            Ok(_) => failures
                .push(format!("{name}: compiled, but the PTX has no .entry (no __global__ extern \"C\" kernel?)")),
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} kernels failed to compile with NVRTC for {ARCH}:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}
