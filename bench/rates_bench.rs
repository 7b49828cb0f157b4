//! Benchmark of the rates family: CPU and CUDA paths on the same inputs in one run.
//!
//!   cargo build --release --example rates_bench && target/release/examples/rates_bench [OUT_DIR]
//!
//! from any folder: the aluminium model's CSV files are found by `data_dir` (ATOMGPU_DATA_DIR
//! overrides).
//!
//! Cases (DESIGN.md "Benchmarks", issue 2):
//! 1. the paper's 9600-integral set: 3200 excitations, 3200 ionizations (double integrals) and
//!    3200 photoionizations at one plasma state (T_e = 1 eV, n_e = 2.7e23 cm^-3, T_r = 250 eV),
//!    Fermi-Dirac, p = 5, 32 nodes per panel;
//! 2. batches over many plasma states: 1e5 excitations x 64 states and 1e5 photoionizations x 64
//!    states; 1e4 ionizations x 64 states on the GPU (the CPU times a 1e3 x 4 subset of the same
//!    inputs and its per-integral rate is reported as measured on that subset);
//! 3. single against double precision on the GPU (src/rates/precision.rs), same inputs, both
//!    timed in this run: the 9600-integral set and the batches of case 2 over 64 states inside
//!    single precision's range (T_e in [1, 30] eV, n_e in [1e19, 1e23] cm^-3), the error measured
//!    against the double path (which equals the CPU to 1e-12);
//! 4. the collisional-radiative driver on the paper's aluminium model (15 levels, FD,
//!    p = 5 with 8 nodes per panel, dt = 1e-19 s): 1e4 device-resident RK4 steps for one system,
//!    1e3 steps for 132 systems at once, and 4 host RK4 steps with CPU rates.
//!
//! `--cr-only` runs case 4 alone, `--single-only` case 3 alone, `--steps` the stiff integrator's
//! step counts per decade of rtol (issue 32, [`jacobian_steps`]) alone, `--cells N [N ...]
//! [cpu] [--budget SECONDS]` many-cell runs of those sizes alone ([`many_cells`]).
//!
//! With `--profile` (for Nsight Compute: `ncu --metrics ... rates_bench OUT --profile`) it runs
//! each kernel once on a mid-sized input and nothing else, so the profiler's FP64 instruction
//! counts and pipe utilisation can be read per kernel.
//! Each GPU time is the median of 5 repeats after one warm-up call (which also compiles the
//! kernels), each call synchronised (results downloaded); CPU times are single runs (after
//! warm-up) on all cores. Prints one JSON line per case and writes them to OUT_DIR/rates_bench.jsonl.

#[path = "../tests/support/rng.rs"]
mod rng;

use atomgpu::backend::{self, BackendChoice};
use atomgpu::rates::cr::{self, Cr, CrSettings};
use atomgpu::rates::precision::single_precision_fits;
use atomgpu::rates::{
    cpu, cuda, Excitation, Ionization, Photoionization, PlasmaState, Precision, Quadrature, RatePairs, Statistics,
};
use rng::Rng;
use std::io::Write;
use std::time::Instant;

const FD: Statistics = Statistics::FermiDirac;

fn median_seconds<T>(repeats: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut last = f();
    let mut times = Vec::with_capacity(repeats);
    for _ in 0..repeats {
        let t0 = Instant::now();
        last = f();
        times.push(t0.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    (times[repeats / 2], last)
}

fn once<T>(f: impl FnOnce() -> T) -> (f64, T) {
    let t0 = Instant::now();
    let v = f();
    (t0.elapsed().as_secs_f64(), v)
}

/// Largest relative difference of `a` from the reference `b` (values below 1e-280 compared
/// absolutely: underflowed rates), the reference value there and its index.
fn max_rel(a: &[f64], b: &[f64]) -> (f64, f64, usize) {
    a.iter()
        .zip(b)
        .enumerate()
        .map(|(i, (x, y))| ((x - y).abs() / y.abs().max(1e-280), *y, i))
        .fold((0.0, 0.0, 0), |worst, d| if d.0 > worst.0 { d } else { worst })
}

fn pairs_rel(a: &RatePairs, b: &RatePairs) -> (f64, f64, usize) {
    let (u, d) = (max_rel(&a.up, &b.up), max_rel(&a.down, &b.down));
    if u.0 >= d.0 {
        u
    } else {
        d
    }
}

fn worst_of(items: &[(f64, f64, usize)]) -> (f64, f64, usize) {
    items.iter().copied().fold((0.0, 0.0, 0), |w, d| if d.0 > w.0 { d } else { w })
}

struct Report(Vec<String>);

impl Report {
    /// One JSON line; `agreement` = (largest relative GPU/CPU difference, the CPU value there,
    /// its index in the output).
    #[allow(clippy::too_many_arguments)] // one argument per JSON field
    fn line(
        &mut self,
        routine: &str,
        sizes: &str,
        backend: &str,
        seconds: f64,
        integrals: f64,
        agreement: Option<(f64, f64, usize)>,
        note: &str,
    ) {
        let (agreement, at) = match agreement {
            Some((a, v, i)) => (format!("{a:.3e}"), format!("{v:.6e},\"index_at_max_diff\":{i}")),
            None => ("null".into(), "null".into()),
        };
        let line = format!(
            "{{\"routine\":\"{routine}\",\"sizes\":\"{sizes}\",\"backend\":\"{backend}\",\"seconds\":{seconds:.6e},\"integrals_per_s\":{:.4e},\"max_rel_diff_vs_cpu\":{agreement},\"cpu_value_at_max_diff\":{at},\"note\":\"{note}\"}}",
            integrals / seconds
        );
        println!("{line}");
        self.0.push(line);
    }
}

/// Collision strengths that are positive above threshold, as physical ones are:
/// B0, B1, B2 >= 0 and B3 >= -0.3 (B1 + B2), so Omega(x) >= 0.7 (B1 + B2) x^-2 > 0 for x >= 1.
/// (A fit that changes sign makes the integral cancel, and then any two summation orders differ
/// by far more than rounding.)
fn excitations(rng: &mut Rng, n: usize) -> Vec<Excitation> {
    (0..n)
        .map(|_| {
            let (b0, b1, b2) = (rng.uniform(0.0, 3.0), rng.uniform(0.0, 2.0), rng.uniform(0.0, 3.0));
            let b3 = rng.uniform(-0.3 * (b1 + b2), 0.5);
            Excitation {
                energy_ev: rng.log_uniform(2.0, 200.0),
                omega: [b0, b1, b2, b3, 0.0, 0.0],
                g_lower: 1.0,
                g_upper: 1.0,
            }
        })
        .collect()
}

fn ionizations(rng: &mut Rng, n: usize) -> Vec<Ionization> {
    (0..n)
        .map(|_| Ionization {
            energy_ev: rng.log_uniform(10.0, 200.0),
            beli: [rng.uniform(2.0, 4.0), rng.uniform(-0.5, 0.5), rng.uniform(0.0, 3.0), rng.uniform(-1.0, 0.0), 0.0],
            g_lower: 1.0,
            g_upper: 1.0,
        })
        .collect()
}

fn photoionizations(rng: &mut Rng, n: usize) -> Vec<Photoionization> {
    (0..n)
        .map(|_| Photoionization {
            energy_ev: rng.log_uniform(10.0, 200.0),
            d0_cm2: rng.log_uniform(1e-19, 1e-17),
            d1_cm2: rng.log_uniform(1e-19, 1e-17),
        })
        .collect()
}

fn states(rng: &mut Rng, n: usize) -> Vec<PlasmaState> {
    (0..n)
        .map(|_| PlasmaState {
            te_ev: rng.log_uniform(0.1, 30.0),
            ne_cm3: rng.log_uniform(1e18, 1e24),
            tr_ev: rng.uniform(20.0, 300.0),
        })
        .collect()
}

/// The folder of the aluminium model's CSV files: `ATOMGPU_DATA_DIR` if set, else the
/// repository's `examples/data` as the build saw it, else `examples/data` under the working
/// directory or any folder above the executable (the device machine runs a copy of the tree).
fn data_dir() -> std::path::PathBuf {
    use std::path::PathBuf;
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(dir) = std::env::var_os("ATOMGPU_DATA_DIR") {
        candidates.push(dir.into());
    }
    candidates.push(PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/data")));
    candidates.push(PathBuf::from("examples/data"));
    if let Ok(exe) = std::env::current_exe() {
        candidates.extend(exe.ancestors().skip(1).map(|a| a.join("examples/data")));
    }
    candidates.iter().find(|c| c.join("aluminium-cr-levels.csv").is_file()).cloned().unwrap_or_else(|| {
        panic!("the aluminium model's CSV files were not found; set ATOMGPU_DATA_DIR (tried {candidates:?})")
    })
}

fn main() {
    let out_dir = std::env::args().nth(1).unwrap_or_else(|| ".".into());
    let device = match backend::cuda_device() {
        Ok(d) => Some(d),
        Err(e) => {
            eprintln!("rates_bench: no CUDA device ({e}); timing the CPU only");
            None
        }
    };
    let threads = rayon::current_num_threads();
    let mut report = Report(Vec::new());
    let q = Quadrature::paper_default();
    let mut rng = Rng::new(2017);
    if std::env::args().any(|a| a == "--worst-excitation") {
        // Case 2's excitation batch (same draws), GPU against CPU, worst pair in full digits.
        let d = device.expect("--worst-excitation needs a CUDA device");
        let _ = (excitations(&mut rng, 3200), ionizations(&mut rng, 3200), photoionizations(&mut rng, 3200));
        let states64 = states(&mut rng, 64);
        let exc = excitations(&mut rng, 100_000);
        let g = cuda::excitation_rates(&d, FD, &q, &states64, &exc).unwrap();
        let c = cpu::excitation_rates(FD, &q, &states64, &exc).unwrap();
        for (name, a, b) in [("up", &g.up, &c.up), ("down", &g.down, &c.down)] {
            let (rel, _, i) = max_rel(a, b);
            println!(
                "{name}: worst pair {i} (transition {}, state {}): gpu {:.17e} cpu {:.17e} rel {rel:.3e}",
                i % 100_000,
                i / 100_000,
                a[i],
                b[i]
            );
        }
        return;
    }
    if std::env::args().any(|a| a == "--profile") {
        let d = device.expect("--profile needs a CUDA device");
        let states64 = states(&mut rng, 64);
        cuda::excitation_rates(&d, FD, &q, &states64, &excitations(&mut rng, 10_000)).unwrap();
        cuda::ionization_rates(&d, FD, &q, &states64, &ionizations(&mut rng, 1000)).unwrap();
        cuda::photoionization_rates(&d, FD, &q, &states64, &photoionizations(&mut rng, 10_000)).unwrap();
        return;
    }

    let args: Vec<String> = std::env::args().collect();
    let cells = args.iter().position(|a| a == "--cells");
    if let Some(i) = cells {
        // Many-cell FD runs alone: `--cells N [N ...] [cpu] [--budget SECONDS]`.
        let sizes: Vec<usize> = args[i + 1..].iter().map_while(|a| a.parse().ok()).collect();
        let gpu = device.as_deref().filter(|_| !args.iter().any(|a| a == "cpu"));
        let budget = args.iter().position(|a| a == "--budget").and_then(|j| args.get(j + 1));
        let budget = budget.map_or(f64::INFINITY, |b| b.parse().expect("--budget SECONDS"));
        let (model, pops) = aluminium_model();
        many_cells(&mut report, gpu, &model, &pops, &sizes, budget);
    }
    let cr_only = std::env::args().any(|a| a == "--cr-only");
    let single_only = std::env::args().any(|a| a == "--single-only");
    let steps_only = std::env::args().any(|a| a == "--steps");
    if !cr_only && !single_only && !steps_only && cells.is_none() {
        batches(&mut report, device.as_deref(), &q, &mut rng, threads);
    }
    if let (false, false, None, Some(d)) = (cr_only, steps_only, cells, &device) {
        single_against_double(&mut report, d, &q, &mut rng);
    }
    if steps_only {
        let (model, pops) = aluminium_model();
        jacobian_steps(&mut report, &model, &pops, device.is_some(), threads);
    } else if !single_only && cells.is_none() {
        // 4. The collisional-radiative driver on the paper's aluminium model.
        cr_driver(&mut report, device.is_some(), threads, cr_only);
    }
    let path = format!("{out_dir}/rates_bench.jsonl");
    let mut file = std::fs::File::create(&path).expect("create the results file");
    for line in &report.0 {
        writeln!(file, "{line}").expect("write the results file");
    }
    eprintln!("rates_bench: wrote {path}");
}

/// Cases 1 and 2: the paper's 9600-integral set and the batches over 64 states.
fn batches(report: &mut Report, device: Option<&backend::CudaDevice>, q: &Quadrature, rng: &mut Rng, threads: usize) {
    // 1. The paper's 9600-integral set.
    let one = [PlasmaState { te_ev: 1.0, ne_cm3: 2.7e23, tr_ev: 250.0 }];
    let (exc, ion, pi) = (excitations(rng, 3200), ionizations(rng, 3200), photoionizations(rng, 3200));
    let _ = cpu::excitation_rates(FD, q, &one, &exc[..32]);
    let (tc, c_exc) = once(|| cpu::excitation_rates(FD, q, &one, &exc).unwrap());
    let (ti, c_ion) = once(|| cpu::ionization_rates(FD, q, &one, &ion).unwrap());
    let (tp, c_pi) = once(|| cpu::photoionization_rates(FD, q, &one, &pi).unwrap());
    let sizes = "3200 exc + 3200 ion + 3200 pi, 1 state";
    report.line(
        "paper_9600",
        sizes,
        &format!("cpu ({threads} threads)"),
        tc + ti + tp,
        9600.0,
        None,
        "FD p=5 32 nodes",
    );
    if let Some(d) = &device {
        let (t, (g_exc, g_ion, g_pi)) = median_seconds(5, || {
            (
                cuda::excitation_rates(d, FD, q, &one, &exc).unwrap(),
                cuda::ionization_rates(d, FD, q, &one, &ion).unwrap(),
                cuda::photoionization_rates(d, FD, q, &one, &pi).unwrap(),
            )
        });
        let agree = worst_of(&[pairs_rel(&g_exc, &c_exc), pairs_rel(&g_ion, &c_ion), pairs_rel(&g_pi, &c_pi)]);
        report.line(
            "paper_9600",
            sizes,
            "cuda",
            t,
            9600.0,
            Some(agree),
            "FD p=5 32 nodes; median of 5, incl. transfers",
        );
    }

    // 2. Batches over 64 plasma states.
    let states64 = states(rng, 64);
    let exc = excitations(rng, 100_000);
    let (t, c) = once(|| cpu::excitation_rates(FD, q, &states64, &exc).unwrap());
    report.line(
        "excitation",
        "1e5 transitions x 64 states",
        &format!("cpu ({threads} threads)"),
        t,
        6.4e6,
        None,
        "FD p=5 32 nodes",
    );
    if let Some(d) = &device {
        let (t, g) = median_seconds(5, || cuda::excitation_rates(d, FD, q, &states64, &exc).unwrap());
        report.line(
            "excitation",
            "1e5 transitions x 64 states",
            "cuda",
            t,
            6.4e6,
            Some(pairs_rel(&g, &c)),
            "FD p=5 32 nodes",
        );
    }
    drop(c);
    let pi = photoionizations(rng, 100_000);
    let (t, c) = once(|| cpu::photoionization_rates(FD, q, &states64, &pi).unwrap());
    report.line(
        "photoionization",
        "1e5 transitions x 64 states",
        &format!("cpu ({threads} threads)"),
        t,
        6.4e6,
        None,
        "FD p=5 32 nodes",
    );
    if let Some(d) = &device {
        let (t, g) = median_seconds(5, || cuda::photoionization_rates(d, FD, q, &states64, &pi).unwrap());
        report.line(
            "photoionization",
            "1e5 transitions x 64 states",
            "cuda",
            t,
            6.4e6,
            Some(pairs_rel(&g, &c)),
            "FD p=5 32 nodes",
        );
    }
    drop(c);
    let ion = ionizations(rng, 10_000);
    let (t, c_sub) = once(|| cpu::ionization_rates(FD, q, &states64[..4], &ion[..1000]).unwrap());
    report.line(
        "ionization",
        "1e3 transitions x 4 states (subset)",
        &format!("cpu ({threads} threads)"),
        t,
        4000.0,
        None,
        "FD p=5 32 nodes",
    );
    if let Some(d) = &device {
        let (t, g) = median_seconds(5, || cuda::ionization_rates(d, FD, q, &states64, &ion).unwrap());
        // The CPU subset is (transitions 0..1000) x (states 0..4): compare those entries.
        let mut sub = RatePairs { up: Vec::new(), down: Vec::new() };
        for s in 0..4 {
            sub.up.extend_from_slice(&g.up[s * 10_000..s * 10_000 + 1000]);
            sub.down.extend_from_slice(&g.down[s * 10_000..s * 10_000 + 1000]);
        }
        report.line(
            "ionization",
            "1e4 transitions x 64 states",
            "cuda",
            t,
            6.4e5,
            Some(pairs_rel(&sub, &c_sub)),
            "FD p=5 32 nodes; agreement on the CPU subset",
        );
    }
}

/// Case 3: each batch timed on the GPU in double and in single precision (median of 5 after a
/// warm-up that compiles both modules), the single results compared with the double ones.
fn single_against_double(report: &mut Report, d: &backend::CudaDevice, q: &Quadrature, rng: &mut Rng) {
    let single = q.clone().with_precision(Precision::Single);
    let one = [PlasmaState { te_ev: 1.0, ne_cm3: 2.7e23, tr_ev: 250.0 }];
    let in_range: Vec<PlasmaState> = (0..64)
        .map(|_| PlasmaState {
            te_ev: rng.log_uniform(1.0, 30.0),
            ne_cm3: rng.log_uniform(1e19, 1e23),
            tr_ev: rng.uniform(20.0, 300.0),
        })
        .collect();
    let (exc9600, ion9600, pi9600) = (excitations(rng, 3200), ionizations(rng, 3200), photoionizations(rng, 3200));
    let (exc, pi, ion) = (excitations(rng, 100_000), photoionizations(rng, 100_000), ionizations(rng, 10_000));
    // Share of a batch's pairs that single precision computes in FP32 (the rest run in FP64).
    let fp32_share = |states: &[PlasmaState], energies: &[f64]| {
        let conds = atomgpu::rates::conditions(FD, states).unwrap();
        let inside =
            conds.iter().map(|c| energies.iter().filter(|&&e| single_precision_fits(c, e, &[])).count()).sum::<usize>();
        inside as f64 / (conds.len() * energies.len()) as f64
    };
    let shares = [
        fp32_share(&one, &exc9600.iter().map(|x| x.energy_ev).collect::<Vec<_>>()),
        fp32_share(&one, &ion9600.iter().map(|x| x.energy_ev).collect::<Vec<_>>()),
        fp32_share(&one, &pi9600.iter().map(|x| x.energy_ev).collect::<Vec<_>>()),
        fp32_share(&in_range, &exc.iter().map(|x| x.energy_ev).collect::<Vec<_>>()),
        fp32_share(&in_range, &pi.iter().map(|x| x.energy_ev).collect::<Vec<_>>()),
        fp32_share(&in_range, &ion.iter().map(|x| x.energy_ev).collect::<Vec<_>>()),
    ];
    type Batch<'a> = Box<dyn Fn(&Quadrature) -> RatePairs + 'a>;
    let cases: Vec<(&str, &str, f64, Batch)> = vec![
        (
            "excitation_9600_set",
            "3200 exc, 1 state (T_e 1 eV, n_e 2.7e23)",
            3200.0,
            Box::new(|q: &Quadrature| cuda::excitation_rates(d, FD, q, &one, &exc9600).unwrap()),
        ),
        (
            "ionization_9600_set",
            "3200 ion, 1 state",
            3200.0,
            Box::new(|q: &Quadrature| cuda::ionization_rates(d, FD, q, &one, &ion9600).unwrap()),
        ),
        (
            "photoionization_9600_set",
            "3200 pi, 1 state",
            3200.0,
            Box::new(|q: &Quadrature| cuda::photoionization_rates(d, FD, q, &one, &pi9600).unwrap()),
        ),
        (
            "excitation",
            "1e5 transitions x 64 states in range",
            6.4e6,
            Box::new(|q: &Quadrature| cuda::excitation_rates(d, FD, q, &in_range, &exc).unwrap()),
        ),
        (
            "photoionization",
            "1e5 x 64 states in range",
            6.4e6,
            Box::new(|q: &Quadrature| cuda::photoionization_rates(d, FD, q, &in_range, &pi).unwrap()),
        ),
        (
            "ionization",
            "1e4 x 64 states in range",
            6.4e5,
            Box::new(|q: &Quadrature| cuda::ionization_rates(d, FD, q, &in_range, &ion).unwrap()),
        ),
    ];
    for ((routine, sizes, integrals, run), share) in cases.iter().zip(shares) {
        let _ = (run(q), run(&single));
        let (t_double, double) = median_seconds(5, || run(q));
        let (t_single, result) = median_seconds(5, || run(&single));
        report.line(routine, sizes, "cuda double", t_double, *integrals, None, "FD p=5 32 nodes; median of 5");
        let note = format!(
            "FD p=5 32 nodes; single precision ({:.0}% of pairs in FP32), {:.2}x the double path; agreement vs the double GPU path",
            100.0 * share,
            t_double / t_single
        );
        report.line(routine, sizes, "cuda single", t_single, *integrals, Some(pairs_rel(&result, &double)), &note);
    }
}

/// Case 4: the CR driver on the aluminium model: RK4 steps (skipped with `--cr-only`) and whole
/// stiff runs.
/// The paper's aluminium model and its initial populations (all ions in the ground level,
/// 9e22 cm^-3).
fn aluminium_model() -> (Cr, Vec<f64>) {
    let data = data_dir();
    let read = |name: &str| {
        let path = data.join(format!("aluminium-cr-{name}.csv"));
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    };
    let model = Cr::from_csv(&read("levels"), &read("excitations"), &read("ionizations")).unwrap();
    let mut pops = vec![0.0; model.n_levels()];
    pops[0] = 9e22;
    (model, pops)
}

fn cr_driver(report: &mut Report, gpu: bool, threads: usize, cr_only: bool) {
    let (model, pops) = aluminium_model();
    let settings = CrSettings { stats: FD, quadrature: Quadrature::new(5.0, 8).unwrap(), tr_ev: 250.0 };
    let y0 = cr::initial_state(&model, FD, &pops, 1.0).unwrap();
    if !cr_only {
        rk4_steps(report, &model, &settings, &y0, gpu, threads);
    }
    stiff_runs(report, &model, &pops, gpu, threads);
}

/// The RK4 steps of case 3 (the paper's integrator).
fn rk4_steps(report: &mut Report, model: &Cr, settings: &CrSettings, y0: &[f64], gpu: bool, threads: usize) {
    let (model, settings, y0) = (model, settings, &y0.to_vec());
    backend::set_backend(BackendChoice::Cpu);
    let _ = cr::run_rk4(model, settings, y0, 1e-19, 1, 1);
    let (t_cpu, cpu_run) = once(|| cr::run_rk4(model, settings, y0, 1e-19, 4, 4).unwrap());
    report.line(
        "cr_rk4_step",
        "aluminium 15 levels, 4 steps, 1 system",
        &format!("cpu ({threads} threads)"),
        t_cpu / 4.0,
        1.0,
        None,
        "seconds per RK4 step (4 stages); p=5 8 nodes",
    );
    if gpu {
        backend::set_backend(BackendChoice::Cuda);
        let gpu4 = cr::run_rk4(model, settings, y0, 1e-19, 4, 4).unwrap();
        let (a, b) = (gpu4.last().unwrap(), cpu_run.last().unwrap());
        let agree =
            worst_of(&[max_rel(&a.populations, &b.populations), (((a.te_ev - b.te_ev) / b.te_ev).abs(), b.te_ev, 0)]);
        let (t, _) = median_seconds(3, || cr::run_rk4(model, settings, y0, 1e-19, 10_000, 10_000).unwrap());
        report.line(
            "cr_rk4_step",
            "aluminium 15 levels, 1e4 steps, 1 system",
            "cuda",
            t / 1e4,
            1.0,
            Some(agree),
            "seconds per RK4 step; whole run of 5e6 steps = 5e6 x this",
        );
        // The paper's whole run (5e6 steps to 0.5 ps) when the measured step rate says it fits
        // in 3 minutes; otherwise only its projection above is reported.
        if t / 1e4 * 5e6 < 180.0 {
            let (t_full, run) = once(|| cr::run_rk4(model, settings, y0, 1e-19, 5_000_000, 500_000).unwrap());
            let last = run.last().unwrap();
            let note = format!(
                "whole paper run to {:.2e} s: Te = {:.4} eV, ne = {:.4e} cm^-3",
                last.time_s, last.te_ev, last.ne_cm3
            );
            report.line("cr_paper_run", "aluminium 15 levels, 5e6 RK4 steps, FD", "cuda", t_full, 1.0, None, &note);
        }
        let y0s = vec![y0.clone(); 132];
        let (t, _) = median_seconds(3, || cr::run_rk4_systems(model, settings, &y0s, 1e-19, 1000, 1000).unwrap());
        report.line(
            "cr_rk4_step",
            "aluminium 15 levels, 1e3 steps, 132 systems",
            "cuda",
            t / 1e3 / 132.0,
            1.0,
            None,
            "seconds per system-step",
        );
    }
    backend::set_backend(BackendChoice::Auto);
}

/// The sample times of the whole stiff runs: 50 geometric from 1e-16 s and 50 linear to 0.5 ps
/// (those of the demo, examples/fortran/cr_aluminium.f90).
fn sample_times() -> Vec<f64> {
    let t_end = 5e-13;
    let mut t: Vec<f64> = (0..50).map(|i| 1e-16 * (t_end / 1e-16f64).powf(i as f64 / 49.0)).collect();
    t.extend((1..=50).map(|i| t_end * i as f64 / 50.0));
    t.sort_by(f64::total_cmp);
    t.dedup_by(|a, b| *a <= *b * (1.0 + 1e-9));
    t
}

/// Largest relative difference in T_e and in n_e over the samples of two runs of one system.
fn run_difference(a: &[cr::CrSample], b: &[cr::CrSample]) -> (f64, f64) {
    a.iter().zip(b).fold((0.0f64, 0.0f64), |(te, ne), (x, y)| {
        (te.max(((x.te_ev - y.te_ev) / y.te_ev).abs()), ne.max(((x.ne_cm3 - y.ne_cm3) / y.ne_cm3).abs()))
    })
}

/// Whole stiff runs of the aluminium model to 0.5 ps (issue 12): FD and MB, CPU on all cores and
/// on 2 threads, GPU for one system and for many cells (varied initial states), each compared
/// with a tight-tolerance reference run (rtol 1e-10, atol 1e-14; on the GPU when there is one).
fn stiff_runs(report: &mut Report, model: &Cr, pops: &[f64], gpu: bool, threads: usize) {
    let times = sample_times();
    let tol = cr::StiffTolerances::default();
    let tight = cr::StiffTolerances { rtol: 1e-10, atol_fraction: 1e-14, ..cr::StiffTolerances::default() };
    let two_cores = rayon::ThreadPoolBuilder::new().num_threads(2).build().expect("a pool of 2 threads");
    for stats in [FD, Statistics::MaxwellBoltzmann] {
        let name = if stats == FD { "FD" } else { "MB" };
        let settings = CrSettings { stats, quadrature: Quadrature::new(5.0, 8).unwrap(), tr_ev: 250.0 };
        let y0 = cr::initial_state(model, stats, pops, 1.0).unwrap();
        let run = |t: &cr::StiffTolerances| cr::run_stiff(model, &settings, &y0, &times, t).unwrap();
        backend::set_backend(if gpu { BackendChoice::Cuda } else { BackendChoice::Cpu });
        let (t_ref, reference) = once(|| run(&tight));
        let last = reference.last().unwrap();
        let note = format!(
            "reference (rtol 1e-10): Te = {:.9} eV, ne = {:.9e} cm^-3 at 0.5 ps; {t_ref:.1} s",
            last.te_ev, last.ne_cm3
        );
        report.line(
            "cr_stiff_reference",
            &format!("aluminium 15 levels, {name}"),
            if gpu { "cuda" } else { "cpu" },
            t_ref,
            1.0,
            None,
            &note,
        );
        let agree = |r: &[cr::CrSample]| {
            let (te, ne) = run_difference(r, &reference);
            (te.max(ne), if te >= ne { last.te_ev } else { last.ne_cm3 }, 0)
        };
        let paper = if stats == FD { "; paper: 40 min GTX 580, 10 h CPU" } else { "" };
        for rtol in [1e-6, 1e-5] {
            let tol = cr::StiffTolerances { rtol, ..tol };
            let sizes = format!("aluminium 15 levels, 0.5 ps, {name}, rtol {rtol:e}");
            backend::set_backend(BackendChoice::Cpu);
            let (t_cpu, cpu_run) = once(|| run(&tol));
            let (te, ne) = run_difference(&cpu_run, &reference);
            let note = format!("whole run; vs reference: Te {te:.1e}, ne {ne:.1e}{paper}");
            report.line(
                "cr_stiff_run",
                &sizes,
                &format!("cpu ({threads} threads)"),
                t_cpu,
                1.0,
                Some(agree(&cpu_run)),
                &note,
            );
            let (t_two, two_run) = once(|| two_cores.install(|| run(&tol)));
            let (te, ne) = run_difference(&two_run, &reference);
            let note = format!("whole run; vs reference: Te {te:.1e}, ne {ne:.1e}");
            report.line("cr_stiff_run", &sizes, "cpu (2 threads)", t_two, 1.0, Some(agree(&two_run)), &note);
            if !gpu {
                continue;
            }
            backend::set_backend(BackendChoice::Cuda);
            let _ = cr::run_stiff(model, &settings, &y0, &times[..2], &tol).unwrap();
            let (t_gpu, gpu_run) = median_seconds(3, || run(&tol));
            let (te, ne) = run_difference(&gpu_run, &reference);
            let note = format!("whole run, median of 3; vs reference: Te {te:.1e}, ne {ne:.1e}{paper}");
            report.line("cr_stiff_run", &sizes, "cuda", t_gpu, 1.0, Some(agree(&gpu_run)), &note);
        }
        if !gpu {
            continue;
        }
        // Many cells; 10^4 only when 10^3 projects it under 5 min.
        for n in [100usize, 1000, 10_000] {
            let (t_cells, runs) = cells_run(report, model, pops, stats, n, true);
            let (te, ne) = run_difference(&runs[0].0, &reference);
            eprintln!("{name} {n} cells: cell 0 (the demo's state) vs reference: Te {te:.1e}, ne {ne:.1e}");
            if n == 1000 && t_cells * 10.0 > 300.0 {
                break;
            }
        }
    }
    backend::set_backend(BackendChoice::Auto);
}

/// Device-to-device copy bandwidth [bytes/s] of 1 GiB (read + write counted), median of 3: the
/// memory ceiling of the device.
fn copy_bandwidth(device: &backend::CudaDevice) -> f64 {
    let n = 1usize << 27;
    let a = device.zeros::<f64>(n).expect("buffer");
    let mut b = device.zeros::<f64>(n).expect("buffer");
    let (t, _) = median_seconds(3, || {
        device.stream().memcpy_dtod(&a, &mut b).expect("copy");
        device.synchronize().expect("sync");
    });
    2.0 * 8.0 * n as f64 / t
}

/// Many cells (issue 32): for each size n of `sizes`, the rates of n electron states of the
/// cells' kind (T_e log-spaced over [1, 75] eV, the run's range) timed alone, with and without
/// their slopes (median of 3: what one lockstep round of the stiff integrator spends in the rate
/// kernels is one call with slopes and two without), then the whole run of n cells in one
/// `run_stiff_systems` call ([`cells_run`]: cells per second, steps, rounds), unless the time
/// per cell of the previous size projects it beyond `budget` seconds; with a device, its copy
/// bandwidth first (the memory ceiling, same run).
fn many_cells(
    report: &mut Report,
    device: Option<&backend::CudaDevice>,
    model: &Cr,
    pops: &[f64],
    sizes: &[usize],
    budget: f64,
) {
    let on = if device.is_some() { "cuda" } else { "cpu" };
    if let Some(d) = device {
        let bandwidth = copy_bandwidth(d);
        eprintln!("device copy bandwidth (1 GiB device to device): {:.0} GB/s", bandwidth / 1e9);
        report.line(
            "copy_bandwidth",
            "1 GiB device to device",
            "cuda",
            1.0,
            bandwidth,
            None,
            "bytes per second, read + write",
        );
    }
    backend::set_backend(if device.is_some() { BackendChoice::Cuda } else { BackendChoice::Cpu });
    let settings = CrSettings { stats: FD, quadrature: Quadrature::new(5.0, 8).unwrap(), tr_ev: 250.0 };
    let mut per_cell: Option<f64> = None;
    for &n in sizes {
        let states: Vec<cr::ElectronState> = (0..n)
            .map(|c| {
                let te = 75f64.powf(c as f64 / n as f64);
                let ne = model.electron_density(pops);
                let u = atomgpu::rates::fermi::energy_density(FD, te, ne).unwrap();
                cr::ElectronState { energy_density: u, ne_cm3: ne }
            })
            .collect();
        let (t_plain, _) = median_seconds(3, || cr::rates_at(model, &settings, &states).unwrap());
        let (t_slopes, _) = median_seconds(3, || cr::rates_with_slopes_at(model, &settings, &states).unwrap());
        let round = t_slopes + 2.0 * t_plain;
        eprintln!(
            "{on}: rates of {n} states: {t_plain:.4} s, with slopes {t_slopes:.4} s: {round:.4} s of rate kernels per round"
        );
        report.line(
            "cr_cell_rates",
            &format!("aluminium 15 levels, FD, {n} states, T_e in [1, 75] eV"),
            on,
            round,
            n as f64,
            None,
            &format!("one round's rates: 1 call with slopes ({t_slopes:.4} s) + 2 without ({t_plain:.4} s each)"),
        );
        if let Some(p) = per_cell.filter(|p| p * n as f64 > budget) {
            eprintln!(
                "{on}: {n} cells not run (projected {:.0} s from the previous size, budget {budget} s)",
                p * n as f64
            );
            continue;
        }
        let (t, runs) = cells_run(report, model, pops, FD, n, device.is_some());
        let rounds = runs.iter().map(|(_, c)| c.accepted + c.rejected).max().unwrap_or(0);
        eprintln!(
            "{on}: {n} cells: {t:.2} s, {:.1} cells/s, {rounds} rounds, {:.2e} s per round of which rate kernels ~{round:.2e} s",
            n as f64 / t,
            t / rounds as f64
        );
        per_cell = Some(t / n as f64);
    }
    backend::set_backend(BackendChoice::Auto);
}

/// bench/RESULTS.md "Collisional-radiative runs (issue 12)": the FD reference run (rtol 1e-10,
/// atol_fraction 1e-14, H200) at 0.5 ps: T_e [eV], n_e [cm^-3].
const FD_REFERENCE_AT_END: (f64, f64) = (74.807457794, 4.008365066e23);

/// Steps of ROS4 on the aluminium FD run per decade of rtol (1e-5, 1e-6, 1e-7) with the analytic
/// Jacobian and with the finite-difference columns, on the GPU when there is one (else the CPU),
/// with the ratio of accepted steps per decade (a fourth-order method: 10^{1/4} = 1.78), the rate
/// evaluations, the time of one run (after a warm-up) and the agreement at 0.5 ps with the tight
/// reference; then the analytic run at rtol 1e-6 on all cores and on 2 threads of the CPU.
fn jacobian_steps(report: &mut Report, model: &Cr, pops: &[f64], gpu: bool, threads: usize) {
    let times = sample_times();
    let settings = CrSettings { stats: FD, quadrature: Quadrature::new(5.0, 8).unwrap(), tr_ev: 250.0 };
    let y0 = cr::initial_state(model, FD, pops, 1.0).unwrap();
    let run = |tol: &cr::StiffTolerances| {
        cr::run_stiff_systems_counted(model, &settings, std::slice::from_ref(&y0), &times, tol).unwrap().remove(0)
    };
    let vs_reference = |samples: &[cr::CrSample]| {
        let last = samples.last().unwrap();
        let (te, ne) = FD_REFERENCE_AT_END;
        ((last.te_ev / te - 1.0).abs(), (last.ne_cm3 / ne - 1.0).abs())
    };
    let on = if gpu { "cuda" } else { "cpu" };
    backend::set_backend(if gpu { BackendChoice::Cuda } else { BackendChoice::Cpu });
    let _ = cr::run_stiff(model, &settings, &y0, &times[..2], &cr::StiffTolerances::default()).unwrap();
    for jacobian in [cr::Jacobian::Analytic, cr::Jacobian::FiniteDifference] {
        let mut previous: Option<u64> = None;
        for rtol in [1e-5, 1e-6, 1e-7] {
            let tol = cr::StiffTolerances { rtol, jacobian, ..cr::StiffTolerances::default() };
            let (t, (samples, counts)) = once(|| run(&tol));
            let (te, ne) = vs_reference(&samples);
            let ratio = previous.map_or("-".to_string(), |p| format!("{:.2}", counts.accepted as f64 / p as f64));
            previous = Some(counts.accepted);
            let note = format!(
                "{jacobian:?} Jacobian: {} steps accepted, {} rejected, {} rate evaluations; x{ratio} steps per \
                 decade of rtol; vs reference at 0.5 ps: Te {te:.1e}, ne {ne:.1e}",
                counts.accepted, counts.rejected, counts.rate_evaluations
            );
            eprintln!("{on}: rtol {rtol:e}: {t:.2} s, {note}");
            report.line(
                "cr_stiff_steps",
                &format!("aluminium 15 levels, 0.5 ps, FD, rtol {rtol:e}"),
                on,
                t,
                1.0,
                None,
                &note,
            );
        }
    }
    backend::set_backend(BackendChoice::Cpu);
    let tol = cr::StiffTolerances::default();
    let two_cores = rayon::ThreadPoolBuilder::new().num_threads(2).build().expect("a pool of 2 threads");
    for (label, pool) in [(format!("cpu ({threads} threads)"), None), ("cpu (2 threads)".to_string(), Some(&two_cores))]
    {
        let (t, (samples, counts)) = once(|| match pool {
            Some(p) => p.install(|| run(&tol)),
            None => run(&tol),
        });
        let (te, ne) = vs_reference(&samples);
        let note = format!("Analytic Jacobian: {counts:?}; vs reference at 0.5 ps: Te {te:.1e}, ne {ne:.1e}");
        eprintln!("{label}: rtol 1e-6: {t:.2} s, {note}");
        report.line("cr_stiff_run", "aluminium 15 levels, 0.5 ps, FD, rtol 1e-6", &label, t, 1.0, None, &note);
    }
    backend::set_backend(BackendChoice::Auto);
}

/// `n` cells at rtol 1e-5 in one `run_stiff_systems` call, on the GPU or the CPU: initial ion
/// density and temperature varied by cell (9e22 x [1, 1.2], T_e [1, 2] eV; cell 0 is the demo's
/// state), all to 0.5 ps. Returns the time and the runs.
fn cells_run(
    report: &mut Report,
    model: &Cr,
    pops: &[f64],
    stats: Statistics,
    n: usize,
    gpu: bool,
) -> (f64, Vec<(Vec<cr::CrSample>, cr::StiffCounts)>) {
    let name = if stats == FD { "FD" } else { "MB" };
    let settings = CrSettings { stats, quadrature: Quadrature::new(5.0, 8).unwrap(), tr_ev: 250.0 };
    backend::set_backend(if gpu { BackendChoice::Cuda } else { BackendChoice::Cpu });
    let tol = cr::StiffTolerances { rtol: 1e-5, ..cr::StiffTolerances::default() };
    let ys: Vec<Vec<f64>> = (0..n)
        .map(|c| {
            let f = c as f64 / n as f64;
            let p: Vec<f64> = pops.iter().map(|x| x * (1.0 + 0.2 * f)).collect();
            cr::initial_state(model, stats, &p, 1.0 + f).unwrap()
        })
        .collect();
    let times = sample_times();
    // Warm-up: compiles the kernels and places the model on the device.
    cr::run_stiff_systems(model, &settings, &ys[..1], &times[..2], &tol).unwrap();
    let (t_cells, runs) = once(|| cr::run_stiff_systems_counted(model, &settings, &ys, &times, &tol).unwrap());
    let steps: Vec<u64> = runs.iter().map(|(_, c)| c.accepted + c.rejected).collect();
    let rounds = steps.iter().max().copied().unwrap_or(0);
    let mean = steps.iter().sum::<u64>() as f64 / n as f64;
    let note = format!(
        "one call, {n} cells, rtol 1e-5; {:.1} cells/s; steps per cell: mean {mean:.0}, most {rounds} (= rounds)",
        n as f64 / t_cells
    );
    report.line(
        "cr_stiff_cells",
        &format!("aluminium 15 levels, 0.5 ps, {name}, {n} cells"),
        if gpu { "cuda" } else { "cpu" },
        t_cells,
        n as f64,
        None,
        &note,
    );
    (t_cells, runs)
}
