//! Benchmark of the SCF family (paper dfratom-cudaprophet-scf.txt; issue 10's targets): xenon,
//! closed-shell non-relativistic Hartree-Fock in even-tempered s, p, d sets of 40 functions each
//! (s: 0.01·1.8^k, p: 0.02·1.7^k, d: 0.05·1.6^k bohr⁻², k < 40), point nucleus:
//!
//! 1. ceiling measured in the same run: device-to-device copy bandwidth (1 GiB), against which the
//!    Fock build (one `dspmv` reading the packed supermatrix once) is a fraction;
//! 2. the supermatrix (n'(T) = 3.0e6 integral sets): CPU (all cores, rayon) and GPU (one set per
//!    thread), integral sets per second, GPU/CPU agreement;
//! 3. one Fock build G D' (CPU loop / cuBLAS dspmv with its transfers);
//! 4. the whole SCF (supermatrix, iterations to max |ΔD| < 1e-5 as DFRATOM's default, energy).
//!
//!   cargo build --release --example scf_bench
//!   target/release/examples/scf_bench [--cpu-only]
//!
//! GPU times: median of 3 after a warm-up (kernel compile), synchronised; CPU: median of 3 after a
//! warm-up (`RAYON_NUM_THREADS` sets the cores). One JSON line per case.

use atomgpu::backend::{self, Backend};
use atomgpu::scf::hf::{hartree_fock, HfSpec};
use atomgpu::scf::one_electron::Nucleus;
use atomgpu::scf::supermatrix::{Supermatrix, Symmetry};
use std::time::Instant;

fn even(alpha: f64, beta: f64, n: i32) -> Vec<f64> {
    (0..n).map(|k| alpha * beta.powi(k)).collect()
}

fn xenon() -> HfSpec {
    HfSpec {
        symmetries: vec![
            Symmetry { l: 0, exponents: even(0.01, 1.8, 40) },
            Symmetry { l: 1, exponents: even(0.02, 1.7, 40) },
            Symmetry { l: 2, exponents: even(0.05, 1.6, 40) },
        ],
        nuclear_charge: 54.0,
        nucleus: Nucleus::Point,
        closed: vec![5, 4, 2],
        damping: 0.3,
        threshold: 1e-5,
        max_iterations: 100,
    }
}

/// Median of 3 timed calls after one untimed call.
fn time(mut f: impl FnMut()) -> f64 {
    f();
    let mut t: Vec<f64> = (0..3)
        .map(|_| {
            let t0 = Instant::now();
            f();
            t0.elapsed().as_secs_f64()
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[1]
}

fn emit(routine: &str, backend: &str, seconds: f64, extra: &str) {
    println!(r#"{{"routine":"{routine}","backend":"{backend}","seconds":{seconds:.4e}{extra}}}"#);
}

fn run(backend: &Backend, name: &str, spec: &HfSpec, reference: Option<&[f64]>) -> Vec<f64> {
    let mut g = None;
    let t = time(|| g = Some(Supermatrix::new(backend, &spec.symmetries).expect("supermatrix")));
    let mut g = g.unwrap();
    let n_sets = g.map().n_sets() as f64;
    let packed = g.packed().expect("packed");
    let agreement = reference.map_or(String::new(), |r| {
        let scale = r.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        let d = r.iter().zip(&packed).fold(0.0f64, |m, (a, b)| m.max((a - b).abs())) / scale;
        format!(r#","max_rel_diff_vs_cpu":{d:.2e}"#)
    });
    emit("supermatrix", name, t, &format!(r#","sets":{n_sets:.3e},"sets_per_s":{:.3e}{agreement}"#, n_sets / t));
    let pairs = g.map().n_pairs() as usize;
    let folded: Vec<f64> = (0..pairs).map(|i| 1.0 / (1.0 + i as f64)).collect();
    let mut out = vec![0.0; pairs];
    let t = time(|| g.contract(&folded, &mut out).expect("contract"));
    let bytes = 8.0 * n_sets;
    emit("fock_build", name, t, &format!(r#","supermatrix_bytes":{bytes:.3e},"bytes_per_s":{:.3e}"#, bytes / t));
    let mut result = None;
    let t = time(|| result = Some(hartree_fock(backend, spec).expect("SCF")));
    let r = result.unwrap();
    emit(
        "hartree_fock",
        name,
        t,
        &format!(
            r#","energy":{:.8},"iterations":{},"note":"Xe 1S, s,p,d x 40 even-tempered, numerical HF limit -7232.138364""#,
            r.energy, r.iterations
        ),
    );
    packed
}

/// Device-to-device copy bandwidth (bytes/s counted once: read + write = 2x).
fn copy_bandwidth(device: &backend::CudaDevice) -> f64 {
    let n = 1usize << 27;
    let a = device.zeros::<f64>(n).expect("buffer");
    let mut b = device.zeros::<f64>(n).expect("buffer");
    let t = time(|| {
        device.stream().memcpy_dtod(&a, &mut b).expect("copy");
        device.synchronize().expect("sync");
    });
    2.0 * 8.0 * n as f64 / t
}

fn main() {
    let cpu_only = std::env::args().any(|a| a == "--cpu-only");
    let spec = xenon();
    println!("# {} CPU threads", rayon::current_num_threads());
    let reference = run(&Backend::Cpu, "cpu", &spec, None);
    if cpu_only {
        return;
    }
    match backend::cuda_device() {
        Ok(device) => {
            let bw = copy_bandwidth(&device);
            emit("memcpy_dtod", device.name(), 0.0, &format!(r#","bytes_per_s":{bw:.3e}"#));
            run(&Backend::Cuda(device.clone()), device.name(), &spec, Some(&reference));
        }
        Err(e) => println!("# no CUDA device: {e}"),
    }
}
