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
use atomgpu::rates::{cpu, cuda, Excitation, Ionization, Photoionization, PlasmaState, Quadrature, Statistics};

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
    assert!(rel <= TOLERANCE, "{what}[{i}]: CPU {:e}, GPU {:e}, relative difference {rel:e}", cpu[i], gpu[i]);
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
    for kernel in ["excitation_kernel", "ionization_kernel", "photoionization_kernel", "inverse_bremsstrahlung_kernel"]
    {
        assert!(ptx.contains(&format!(".entry {kernel}(")), "no entry {kernel} in the PTX");
    }
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
