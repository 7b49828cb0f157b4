//! Benchmark of the SCF family (paper dfratom-cudaprophet-scf.txt; issue 10's targets): xenon in
//! even-tempered s, p, d sets of 40 functions each (s: 0.01·1.8^k, p: 0.02·1.7^k, d: 0.05·1.6^k
//! bohr⁻², k < 40): closed-shell non-relativistic Hartree-Fock (point nucleus; `xe_hf`) and
//! Dirac-Fock (s1/2, p1/2, p3/2, d3/2, d5/2 with 40 large and 40 small functions each, Gaussian
//! nucleus A = 132, c = 137.03599976; `xe_df`):
//!
//! 1. ceiling measured in the same run: device-to-device copy bandwidth (1 GiB), against which the
//!    Fock build (one `dspmv` per component group reading the stored sets once) is a fraction;
//! 2. the supermatrix (HF: n'(T) = 3.0e6 integral sets; DF 1.3e8 of which 6.6e7 do not vanish
//!    by component and are stored): CPU (all cores, rayon) and GPU (one set per thread), stored
//!    sets per second, GPU/CPU agreement;
//! 3. one Fock build G(D) of every symmetry (CPU loop / cuBLAS dspmv with its transfers);
//! 4. the whole SCF (supermatrix, iterations to the default DIIS thresholds, energy);
//! 5. a WTBS optimisation of Xe (non-relativistic, 12 parameters, BOBYQA; timed once).
//!
//!   cargo build --release --example scf_bench
//!   target/release/examples/scf_bench [--cpu-only] [--skip-dirac-cpu] [--skip-cpu-optimisation]
//!
//! GPU times: median of 3 after a warm-up (kernel compile), synchronised; CPU: median of 3 after a
//! warm-up (`RAYON_NUM_THREADS` sets the cores), except the Dirac-Fock case, timed once (its CPU
//! supermatrix takes minutes on 2 cores). One JSON line per case.

use atomgpu::backend::{self, Backend};
use atomgpu::scf::basis::{WtbsGroup, WtbsLayout};
use atomgpu::scf::one_electron::{gaussian_nucleus_exponent, Nucleus, DFRATOM_SPEED_OF_LIGHT};
use atomgpu::scf::optimise::{optimise_wtbs, WtbsOptimisation};
use atomgpu::scf::solver::{scf, Basis, Occupation, ScfSpec};
use atomgpu::scf::{ScfIntegrals, Spinor, Symmetry};
use faer::Mat;
use std::time::Instant;

fn even(alpha: f64, beta: f64, n: i32) -> Vec<f64> {
    (0..n).map(|k| alpha * beta.powi(k)).collect()
}

/// Xe 1S: s, p, d x 40 even-tempered; non-relativistic (3 symmetries, point nucleus) or Dirac
/// (5 κ symmetries, Gaussian nucleus of A = 132, c = DFRATOM's).
fn xenon(dirac: bool) -> ScfSpec {
    let (s, p, d) = (even(0.01, 1.8, 40), even(0.02, 1.7, 40), even(0.05, 1.6, 40));
    let closed = Occupation::closed;
    if dirac {
        let spinor = |kappa, exponents: &Vec<f64>| Spinor { kappa, exponents: exponents.clone() };
        let spinors = vec![spinor(-1, &s), spinor(1, &p), spinor(-2, &p), spinor(2, &d), spinor(-3, &d)];
        let nucleus = Nucleus::Gaussian { exponent: gaussian_nucleus_exponent(132.0).expect("A") };
        let basis = Basis::Dirac { speed_of_light: DFRATOM_SPEED_OF_LIGHT, spinors };
        let occupations = vec![closed(5), closed(4), closed(4), closed(2), closed(2)];
        ScfSpec { max_iterations: 100, ..ScfSpec::new(basis, 54.0, nucleus, occupations) }
    } else {
        let symmetry = |l, exponents: Vec<f64>| Symmetry { l, exponents };
        let basis = Basis::NonRelativistic(vec![symmetry(0, s), symmetry(1, p), symmetry(2, d)]);
        let occupations = vec![closed(5), closed(4), closed(2)];
        ScfSpec { max_iterations: 100, ..ScfSpec::new(basis, 54.0, Nucleus::Point, occupations) }
    }
}

/// Median of `repeats` timed calls after one untimed call (a single timed call when
/// `repeats` is 1: the slow CPU Dirac-Fock case).
fn time(repeats: usize, mut f: impl FnMut()) -> f64 {
    if repeats > 1 {
        f();
    }
    let mut t: Vec<f64> = (0..repeats)
        .map(|_| {
            let t0 = Instant::now();
            f();
            t0.elapsed().as_secs_f64()
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[t.len() / 2]
}

fn emit(routine: &str, backend: &str, seconds: f64, extra: &str) {
    println!(r#"{{"routine":"{routine}","backend":"{backend}","seconds":{seconds:.4e}{extra}}}"#);
}

fn run(
    backend: &Backend,
    name: &str,
    case: &str,
    spec: &ScfSpec,
    repeats: usize,
    reference: Option<&[f64]>,
) -> Vec<f64> {
    let name = &format!("{name}:{case}");
    let blocks = spec.basis.blocks().expect("blocks");
    let mut g = None;
    let t = time(repeats, || g = Some(ScfIntegrals::new(backend, &blocks).expect("supermatrix")));
    let mut g = g.unwrap();
    let n_sets = g.map().n_sets() as f64;
    let packed = g.packed().expect("packed");
    let agreement = reference.map_or(String::new(), |r| {
        let scale = r.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        let d = r.iter().zip(&packed).fold(0.0f64, |m, (a, b)| m.max((a - b).abs())) / scale;
        format!(r#","max_rel_diff_vs_cpu":{d:.2e}"#)
    });
    let stored = g.n_stored_sets() as f64;
    emit(
        "supermatrix",
        name,
        t,
        &format!(
            r#","sets":{n_sets:.3e},"stored_sets":{stored:.3e},"stored_sets_per_s":{:.3e}{agreement}"#,
            stored / t
        ),
    );
    // The Fock build G(D) of every symmetry from symmetric densities (not zeros).
    let densities: Vec<Mat<f64>> =
        g.map().nbs().iter().map(|&m| Mat::from_fn(m, m, |p, q| 1.0 / (1.0 + p as f64 + q as f64))).collect();
    let views: Vec<_> = densities.iter().map(|d| Some(d.as_ref())).collect();
    let t = time(repeats.max(3), || {
        g.two_electron(&views).expect("Fock build");
    });
    let stored = g.n_stored_sets() as f64;
    let bytes = 8.0 * stored;
    emit(
        "fock_build",
        name,
        t,
        &format!(r#","stored_sets":{stored:.3e},"supermatrix_bytes":{bytes:.3e},"bytes_per_s":{:.3e}"#, bytes / t),
    );
    let mut result = None;
    let t = time(repeats, || result = Some(scf(backend, spec).expect("SCF")));
    let r = result.unwrap();
    emit(
        "scf",
        name,
        t,
        &format!(
            r#","energy":{:.8},"iterations":{},"orbital_energies":{:?}"#,
            r.energy, r.iterations, r.orbital_energies
        ),
    );
    packed
}

/// Device-to-device copy bandwidth (bytes/s counted once: read + write = 2x).
fn copy_bandwidth(device: &backend::CudaDevice) -> f64 {
    let n = 1usize << 27;
    let a = device.zeros::<f64>(n).expect("buffer");
    let mut b = device.zeros::<f64>(n).expect("buffer");
    let t = time(3, || {
        device.stream().memcpy_dtod(&a, &mut b).expect("copy");
        device.synchronize().expect("sync");
    });
    2.0 * 8.0 * n as f64 / t
}

/// WTBS optimisation of Xe (non-relativistic; one group per symmetry starting from the
/// even-tempered sets above, γ = 0, δ = 1; 12 parameters, rho 0.1 → 1e-4, at most 400 SCFs).
fn optimisation(backend: &Backend, name: &str) {
    let group = |alpha, beta| WtbsGroup { alpha, beta, gamma: 0.0, delta: 1.0 };
    let settings = WtbsOptimisation {
        groups: vec![group(0.01, 1.8), group(0.02, 1.7), group(0.05, 1.6)],
        layout: WtbsLayout { nbs: vec![40; 3], start: vec![1; 3], groups: vec![1, 2, 3] },
        rho_begin: 0.1,
        rho_end: 1e-4,
        max_evaluations: 400,
    };
    let t0 = Instant::now();
    let best = optimise_wtbs(backend, &xenon(false), &settings).expect("optimisation");
    let t = t0.elapsed().as_secs_f64();
    emit(
        "wtbs_optimisation",
        &format!("{name}:xe_hf"),
        t,
        &format!(
            r#","energy":{:.8},"evaluations":{},"converged":{},"seconds_per_scf":{:.3e}"#,
            best.result.energy,
            best.evaluations,
            best.converged,
            t / best.evaluations as f64
        ),
    );
}

fn main() {
    let cpu_only = std::env::args().any(|a| a == "--cpu-only");
    let skip_dirac_cpu = std::env::args().any(|a| a == "--skip-dirac-cpu");
    println!("# {} CPU threads", rayon::current_num_threads());
    let (hf, df) = (xenon(false), xenon(true));
    let hf_reference = run(&Backend::Cpu, "cpu", "xe_hf", &hf, 3, None);
    let df_reference = (!skip_dirac_cpu).then(|| run(&Backend::Cpu, "cpu", "xe_df", &df, 1, None));
    if !std::env::args().any(|a| a == "--skip-cpu-optimisation") {
        optimisation(&Backend::Cpu, "cpu");
    }
    if cpu_only {
        return;
    }
    match backend::cuda_device() {
        Ok(device) => {
            let bw = copy_bandwidth(&device);
            emit("memcpy_dtod", device.name(), 0.0, &format!(r#","bytes_per_s":{bw:.3e}"#));
            let gpu = Backend::Cuda(device.clone());
            run(&gpu, device.name(), "xe_hf", &hf, 3, Some(&hf_reference));
            run(&gpu, device.name(), "xe_df", &df, 3, df_reference.as_deref());
            optimisation(&gpu, device.name());
        }
        Err(e) => println!("# no CUDA device: {e}"),
    }
}
