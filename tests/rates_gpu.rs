//! The CUDA path of the rates family computes the same function as the CPU reference:
//! GPU and CPU agree to relative 1e-12 (DESIGN.md) for every rate, both statistics, the paper's
//! quadrature (p = 5, 32 nodes) and a tight one (p = 10, 64 nodes), on random but realistic
//! inputs and batch sizes that are not multiples of 32; plus the kernel file compiles with NVRTC.
//!
//! Without a CUDA device the GPU tests print `skipped: no CUDA device` and pass, unless
//! `ATOMGPU_REQUIRE_GPU=1` (set on the device machine), where they fail.

#[path = "support/gpu.rs"]
mod gpu;

use atomgpu::backend;
use atomgpu::rates::integrals::Conditions;
use atomgpu::rates::precision::{single_precision_fits, SINGLE_PRECISION_BOUND};
use atomgpu::rates::{
    self, cpu, cuda, Excitation, Ionization, Photoionization, PlasmaState, Precision, Quadrature, Statistics,
};

const TOLERANCE: f64 = 1e-12;
/// Values below this are compared absolutely: underflowed rates. An integral below
/// f64::MIN_POSITIVE = 2.2e-308 is a sum of subnormal numbers, which carry ever fewer bits, so
/// both paths hold only those few, summed in different orders; times the prefactors (up to 4e16
/// for ionization, times g_l/g_u) that is every rate below about 1e-290.
const FLOOR: f64 = 1e-280;
const STATS: [Statistics; 2] = [Statistics::FermiDirac, Statistics::MaxwellBoltzmann];

/// The paper's quadrature and a tight one.
fn quadratures() -> [Quadrature; 2] {
    [Quadrature::new(5.0, 32).unwrap(), Quadrature::new(10.0, 64).unwrap()]
}

#[path = "support/rng.rs"]
mod rng;
use rng::Rng;

/// Test-specific draws.
trait Draws {
    fn weight(&mut self) -> f64;
}

impl Draws for Rng {
    /// A statistical weight 1..=10.
    fn weight(&mut self) -> f64 {
        (1.0 + 10.0 * self.unit()).floor()
    }
}

/// Plasma states: T_e in [0.1, 30] eV and n_e in [1e18, 1e24] cm^-3 log-uniform, T_r in
/// [20, 300] eV; from three states on, the first two are the corners of that range (strongly
/// degenerate: 0.1 eV at 1e24 cm^-3; classical: 30 eV at 1e18 cm^-3).
fn states(rng: &mut Rng, n: usize) -> Vec<PlasmaState> {
    let mut s: Vec<PlasmaState> = (0..n)
        .map(|_| PlasmaState {
            te_ev: rng.log_uniform(0.1, 30.0),
            ne_cm3: rng.log_uniform(1e18, 1e24),
            tr_ev: rng.uniform(20.0, 300.0),
        })
        .collect();
    if n >= 3 {
        s[0].te_ev = 0.1;
        s[0].ne_cm3 = 1e24;
        s[1].te_ev = 30.0;
        s[1].ne_cm3 = 1e18;
    }
    s
}

/// Collision-strength fits of the aluminium model's kind (shared/data/aluminium-cr-excitations.csv:
/// B0 from 0.1 to 170, B1 and B3 often negative), kept where Omega(x) > 0 for x >= 1.
fn excitations(rng: &mut Rng, n: usize) -> Vec<Excitation> {
    (0..n)
        .map(|_| loop {
            let b0 = rng.log_uniform(0.1, 100.0);
            let omega = [
                b0,
                b0 * rng.uniform(-0.6, 0.6),
                b0 * rng.uniform(0.1, 1.5),
                b0 * rng.uniform(-0.4, 0.05),
                b0 * rng.uniform(-0.05, 0.05),
                b0 * rng.uniform(-0.01, 0.01),
            ];
            let positive = (0..=400).all(|i| {
                let x = 10f64.powf(i as f64 / 100.0);
                let r = 1.0 / x;
                omega[0] * x.ln() + omega[1] + r * (omega[2] + r * (omega[3] + r * (omega[4] + r * omega[5]))) > 0.0
            });
            if positive {
                break Excitation {
                    energy_ev: rng.uniform(2.0, 200.0),
                    omega,
                    g_lower: rng.weight(),
                    g_upper: rng.weight(),
                };
            }
        })
        .collect()
}

/// BELI coefficients around the aluminium model's (A = 3.71, B1..B3 = -0.236, 2.35, -0.66).
fn ionizations(rng: &mut Rng, n: usize) -> Vec<Ionization> {
    (0..n)
        .map(|_| Ionization {
            energy_ev: rng.uniform(2.0, 200.0),
            beli: [
                rng.uniform(2.0, 5.0),
                rng.uniform(-0.4, 0.0),
                rng.uniform(1.5, 3.0),
                rng.uniform(-0.9, -0.3),
                rng.uniform(-0.05, 0.05),
            ],
            g_lower: rng.weight(),
            g_upper: rng.weight(),
        })
        .collect()
}

/// Photoionization cross-sections around the aluminium model's (D0 = 5.7e-18, D1 = 3.9e-19 cm^2),
/// sigma > 0 above threshold.
fn photoionizations(rng: &mut Rng, n: usize) -> Vec<Photoionization> {
    (0..n)
        .map(|_| {
            let d0 = rng.log_uniform(1e-19, 1e-17);
            Photoionization { energy_ev: rng.uniform(2.0, 200.0), d0_cm2: d0, d1_cm2: d0 * rng.uniform(-0.5, 1.0) }
        })
        .collect()
}

/// Asserts |gpu - cpu| <= TOLERANCE max(|cpu|, FLOOR) element by element.
fn assert_agree(what: &str, cpu: &[f64], gpu: &[f64]) {
    assert_agree_within(what, cpu, gpu, TOLERANCE);
}

/// Asserts |gpu - cpu| <= tolerance max(|cpu|, FLOOR) element by element; returns the largest
/// relative difference.
fn assert_agree_within(what: &str, cpu: &[f64], gpu: &[f64], tolerance: f64) -> f64 {
    assert_eq!(cpu.len(), gpu.len(), "{what}: lengths differ");
    let mut worst = (0.0f64, 0usize);
    for (i, (&c, &g)) in cpu.iter().zip(gpu).enumerate() {
        assert!(g.is_finite(), "{what}[{i}]: GPU gives {g}, CPU {c:e}");
        let rel = (g - c).abs() / c.abs().max(FLOOR);
        if rel > worst.0 {
            worst = (rel, i);
        }
    }
    let (rel, i) = worst;
    println!("{what}: {} values, max relative difference {rel:.2e} (CPU {:e})", cpu.len(), cpu[i]);
    assert!(rel <= tolerance, "{what}[{i}]: CPU {:e}, GPU {:e}, relative difference {rel:e}", cpu[i], gpu[i]);
    rel
}

fn describe(stats: Statistics, q: &Quadrature, nt: usize, ns: usize) -> String {
    format!("{stats:?} p={} nodes={} {nt}x{ns}", q.accuracy_p(), q.rule().nodes().len())
}

/// rates.cu compiles with NVRTC for the H200 (compute_90) and defines the four kernels
/// src/rates/cuda.rs launches. Without NVRTC: skipped, unless `ATOMGPU_KERNEL_CHECK=1`.
#[test]
fn rates_kernels_compile_with_nvrtc() {
    if !backend::nvrtc_available() {
        assert!(
            std::env::var("ATOMGPU_KERNEL_CHECK").as_deref() != Ok("1"),
            "ATOMGPU_KERNEL_CHECK=1 but NVRTC could not be loaded"
        );
        println!("skipped: NVRTC not found");
        return;
    }
    let ptx = backend::compile_ptx("rates.cu", include_str!("../kernels/rates.cu"), "compute_90").unwrap();
    for kernel in [
        "excitation_kernel",
        "ionization_kernel",
        "photoionization_kernel",
        "inverse_bremsstrahlung_kernel",
        "excitation_single_kernel",
        "ionization_single_kernel",
        "photoionization_single_kernel",
    ] {
        assert!(ptx.contains(&format!(".entry {kernel}(")), "no entry {kernel} in the PTX");
    }
    // The FP32 instantiations of the integrands (single precision) are there: rounded f32 products.
    assert!(ptx.contains("mul.rn.f32"), "no FP32 products: the single-precision integrands are missing");
}

#[test]
fn excitation_gpu_matches_cpu() {
    let Some(dev) = gpu::cuda_device() else { return };
    let mut rng = Rng::new(1);
    for q in &quadratures() {
        for stats in STATS {
            for (nt, ns) in [(1, 1), (7, 3), (33, 5), (100, 17)] {
                let (s, t) = (states(&mut rng, ns), excitations(&mut rng, nt));
                let c = cpu::excitation_rates(stats, q, &s, &t).unwrap();
                let g = cuda::excitation_rates(&dev, stats, q, &s, &t).unwrap();
                let what = describe(stats, q, nt, ns);
                assert_agree(&format!("excitation up {what}"), &c.up, &g.up);
                assert_agree(&format!("excitation down {what}"), &c.down, &g.down);
            }
        }
    }
}

#[test]
fn ionization_gpu_matches_cpu() {
    let Some(dev) = gpu::cuda_device() else { return };
    let mut rng = Rng::new(2);
    for q in &quadratures() {
        for stats in STATS {
            for (nt, ns) in [(1, 1), (7, 3), (33, 2)] {
                let (s, t) = (states(&mut rng, ns), ionizations(&mut rng, nt));
                let c = cpu::ionization_rates(stats, q, &s, &t).unwrap();
                let g = cuda::ionization_rates(&dev, stats, q, &s, &t).unwrap();
                let what = describe(stats, q, nt, ns);
                assert_agree(&format!("ionization up {what}"), &c.up, &g.up);
                assert_agree(&format!("ionization down {what}"), &c.down, &g.down);
            }
        }
    }
}

#[test]
fn photoionization_gpu_matches_cpu() {
    let Some(dev) = gpu::cuda_device() else { return };
    let mut rng = Rng::new(3);
    for q in &quadratures() {
        for stats in STATS {
            for (nt, ns) in [(1, 1), (7, 3), (33, 5), (100, 17)] {
                let (s, t) = (states(&mut rng, ns), photoionizations(&mut rng, nt));
                let c = cpu::photoionization_rates(stats, q, &s, &t).unwrap();
                let g = cuda::photoionization_rates(&dev, stats, q, &s, &t).unwrap();
                let what = describe(stats, q, nt, ns);
                assert_agree(&format!("photoionization rate {what}"), &c.up, &g.up);
                assert_agree(&format!("photoionization heating {what}"), &c.down, &g.down);
            }
        }
    }
}

#[test]
fn inverse_bremsstrahlung_gpu_matches_cpu() {
    let Some(dev) = gpu::cuda_device() else { return };
    let mut rng = Rng::new(4);
    for q in &quadratures() {
        for stats in STATS {
            for ns in [1, 3, 33, 100] {
                let s = states(&mut rng, ns);
                let z2n: Vec<f64> = (0..ns).map(|_| rng.log_uniform(1e18, 1e25)).collect();
                let c = cpu::inverse_bremsstrahlung_heating(stats, q, &s, &z2n).unwrap();
                let g = cuda::inverse_bremsstrahlung_heating(&dev, stats, q, &s, &z2n).unwrap();
                assert_agree(&format!("inverse bremsstrahlung {}", describe(stats, q, 1, ns)), &c, &g);
            }
        }
    }
}

/// 10^5 transitions x 64 states (more pairs than one launch has warps: the grid-stride loop
/// runs), checked against the CPU on a sample of pairs spread over the whole batch.
#[test]
fn large_excitation_batch_matches_cpu_on_samples() {
    let Some(dev) = gpu::cuda_device() else { return };
    let mut rng = Rng::new(5);
    let q = Quadrature::paper_default();
    let (nt, ns) = (100_000, 64);
    let (s, t) = (states(&mut rng, ns), excitations(&mut rng, nt));
    for stats in STATS {
        let g = cuda::excitation_rates(&dev, stats, &q, &s, &t).unwrap();
        assert_eq!(g.up.len(), nt * ns);
        let samples: Vec<usize> =
            (0..200).map(|_| (rng.unit() * (nt * ns) as f64) as usize).chain([0, nt * ns - 1]).collect();
        let (mut cpu_up, mut cpu_down, mut gpu_up, mut gpu_down) = (vec![], vec![], vec![], vec![]);
        for &k in &samples {
            let c = cpu::excitation_rates(stats, &q, &s[k / nt..=k / nt], &t[k % nt..=k % nt]).unwrap();
            cpu_up.push(c.up[0]);
            cpu_down.push(c.down[0]);
            gpu_up.push(g.up[k]);
            gpu_down.push(g.down[k]);
        }
        assert_agree(&format!("excitation up {stats:?} {nt}x{ns} (samples)"), &cpu_up, &gpu_up);
        assert_agree(&format!("excitation down {stats:?} {nt}x{ns} (samples)"), &cpu_down, &gpu_down);
    }
}

/// The CUDA path rejects bad inputs with the CPU path's error (same argument, same element).
#[test]
fn invalid_inputs_give_the_cpu_errors() {
    let Some(dev) = gpu::cuda_device() else { return };
    let q = Quadrature::paper_default();
    let mut rng = Rng::new(6);
    let good_states = states(&mut rng, 3);
    let mut bad_states = good_states.clone();
    bad_states[2].te_ev = f64::NAN;
    let mut exc = excitations(&mut rng, 4);
    let stats = Statistics::FermiDirac;
    assert_eq!(
        cuda::excitation_rates(&dev, stats, &q, &bad_states, &exc).unwrap_err(),
        cpu::excitation_rates(stats, &q, &bad_states, &exc).unwrap_err()
    );
    exc[3].energy_ev = -1.0;
    assert_eq!(
        cuda::excitation_rates(&dev, stats, &q, &good_states, &exc).unwrap_err(),
        cpu::excitation_rates(stats, &q, &good_states, &exc).unwrap_err()
    );
    let mut ion = ionizations(&mut rng, 2);
    ion[1].g_upper = 0.0;
    assert_eq!(
        cuda::ionization_rates(&dev, stats, &q, &good_states, &ion).unwrap_err(),
        cpu::ionization_rates(stats, &q, &good_states, &ion).unwrap_err()
    );
    let mut photo = photoionizations(&mut rng, 2);
    photo[0].d1_cm2 = f64::INFINITY;
    assert_eq!(
        cuda::photoionization_rates(&dev, stats, &q, &good_states, &photo).unwrap_err(),
        cpu::photoionization_rates(stats, &q, &good_states, &photo).unwrap_err()
    );
    assert_eq!(
        cuda::photoionization_rates(&dev, stats, &q, &[], &photo).unwrap_err(),
        cpu::photoionization_rates(stats, &q, &[], &photo).unwrap_err()
    );
    let z2n = [1e22, -1.0, 1e22];
    assert_eq!(
        cuda::inverse_bremsstrahlung_heating(&dev, stats, &q, &good_states, &z2n).unwrap_err(),
        cpu::inverse_bremsstrahlung_heating(stats, &q, &good_states, &z2n).unwrap_err()
    );
}

/// Single precision (src/rates/precision.rs) against the double CPU reference, pair by pair:
/// a (transition, state) pair inside `single_precision_fits` runs in FP32 integrands summed in
/// FP64 and agrees to the documented bound SINGLE_PRECISION_BOUND (1e-6; 5.2e-7 measured on these
/// inputs); every other pair (degenerate or dilute states, thresholds
/// far above T_e, a coefficient of 1e-35) runs in double and agrees to the double path's 1e-12.
/// Both kinds occur, and the FP32 pairs really ran in FP32 (some differ by more than 1e-11).
#[test]
fn single_precision_agrees_with_cpu_pair_by_pair() {
    const SINGLE_TOLERANCE: f64 = SINGLE_PRECISION_BOUND;
    let Some(dev) = gpu::cuda_device() else { return };
    let mut rng = Rng::new(7);
    let q = Quadrature::paper_default().with_precision(Precision::Single);
    // Checks one output; returns (largest difference among FP32 pairs, their number, number of others).
    let check = |what: &str,
                 conds: &[Conditions],
                 energy: &dyn Fn(usize) -> f64,
                 coef: &dyn Fn(usize) -> Vec<f64>,
                 cpu: &[f64],
                 gpu: &[f64],
                 nt: usize| {
        let (mut worst, mut n_single, mut n_double) = (0.0f64, 0usize, 0usize);
        for (k, (&c, &g)) in cpu.iter().zip(gpu).enumerate() {
            let (t, s) = (k % nt, k / nt);
            let fp32 = single_precision_fits(&conds[s], energy(t), &coef(t));
            let rel = (g - c).abs() / c.abs().max(FLOOR);
            let tolerance = if fp32 { SINGLE_TOLERANCE } else { TOLERANCE };
            assert!(
                rel <= tolerance,
                "{what}[t {t}, s {s}] (FP32: {fp32}): CPU {c:e}, GPU {g:e}, relative difference {rel:e}"
            );
            if fp32 {
                worst = worst.max(rel);
                n_single += 1;
            } else {
                n_double += 1;
            }
        }
        println!("{what}: {n_single} FP32 pairs (max relative difference {worst:.2e}), {n_double} FP64 pairs");
        (worst, n_single, n_double)
    };
    for stats in STATS {
        let mut totals = [(0.0f64, 0usize, 0usize); 3];
        let mut add = |i: usize, (w, a, b): (f64, usize, usize)| {
            totals[i] = (totals[i].0.max(w), totals[i].1 + a, totals[i].2 + b);
        };
        for (nt, ns) in [(7, 3), (33, 5), (100, 17)] {
            let s = states(&mut rng, ns);
            let conds = rates::conditions(stats, &s).unwrap();
            let what = format!("single {}", describe(stats, &q, nt, ns));
            let t = excitations(&mut rng, nt);
            let (c, g) = (
                cpu::excitation_rates(stats, &q, &s, &t).unwrap(),
                cuda::excitation_rates(&dev, stats, &q, &s, &t).unwrap(),
            );
            let (e, b) = (|i: usize| t[i].energy_ev, |i: usize| t[i].omega.to_vec());
            add(0, check(&format!("excitation up {what}"), &conds, &e, &b, &c.up, &g.up, nt));
            add(0, check(&format!("excitation down {what}"), &conds, &e, &b, &c.down, &g.down, nt));
            let t = photoionizations(&mut rng, nt);
            let (c, g) = (
                cpu::photoionization_rates(stats, &q, &s, &t).unwrap(),
                cuda::photoionization_rates(&dev, stats, &q, &s, &t).unwrap(),
            );
            let e = |i: usize| t[i].energy_ev;
            add(1, check(&format!("photoionization rate {what}"), &conds, &e, &|_| vec![], &c.up, &g.up, nt));
            add(1, check(&format!("photoionization heating {what}"), &conds, &e, &|_| vec![], &c.down, &g.down, nt));
            let nt = nt.min(33);
            let mut t = ionizations(&mut rng, nt);
            t[nt / 2].beli[4] = 1e-35;
            let (c, g) = (
                cpu::ionization_rates(stats, &q, &s[..3], &t).unwrap(),
                cuda::ionization_rates(&dev, stats, &q, &s[..3], &t).unwrap(),
            );
            let (e, b) = (|i: usize| t[i].energy_ev, |i: usize| t[i].beli.to_vec());
            add(2, check(&format!("ionization up {what}"), &conds, &e, &b, &c.up, &g.up, nt));
            add(2, check(&format!("ionization down {what}"), &conds, &e, &b, &c.down, &g.down, nt));
        }
        // Photoionization has only its blocking factor in FP32, exactly 1 under Maxwell-Boltzmann.
        for (name, (worst, n_single, n_double), fp32_differs) in [
            ("excitation", totals[0], true),
            ("photoionization", totals[1], stats == Statistics::FermiDirac),
            ("ionization", totals[2], true),
        ] {
            assert!(n_single > 0 && n_double > 0, "{name} {stats:?}: {n_single} FP32 and {n_double} FP64 pairs");
            assert!(
                !fp32_differs || worst > 1e-11,
                "{name} {stats:?}: FP32 pairs agree to {worst:e}: FP32 did not run"
            );
        }
    }
}
