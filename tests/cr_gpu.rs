//! The CR driver on the device against the CPU: the device-resident RK4 (kernel `cr_rk4_kernel`)
//! against the host RK4 with CPU rates, the rates at many states of the stiff integrator, and
//! whole stiff runs. RK4:
//! same model, same steps, several systems at once (not a multiple of anything), both
//! statistics. Without a CUDA device the tests print `skipped: no CUDA device` (and fail when
//! ATOMGPU_REQUIRE_GPU=1).

#[path = "support/cr_models.rs"]
mod cr_models;
#[path = "support/gpu.rs"]
mod gpu;

use atomgpu::backend::{self, BackendChoice};
use atomgpu::rates::cr::{self, CrSettings};
use atomgpu::rates::{Quadrature, Statistics};
use cr_models::aluminium_subset;
use std::sync::Mutex;

/// The backend choice is process-wide: tests that switch it take this lock.
static BACKEND: Mutex<()> = Mutex::new(());

fn compare(stats: Statistics, q: Quadrature, dt: f64, steps: u64, every: u64) {
    let model = aluminium_subset();
    let settings = CrSettings { stats, quadrature: q, tr_ev: 250.0 };
    let y0s: Vec<Vec<f64>> = [(9e22, 0.0, 1.0), (8e22, 1e22, 2.5), (3e22, 5e21, 7.0)]
        .iter()
        .map(|&(n0, n2, te)| cr::initial_state(&model, stats, &[n0, 0.0, n2, 0.0, 0.0, 1e20], te).unwrap())
        .collect();
    let _lock = BACKEND.lock().unwrap_or_else(|p| p.into_inner());
    backend::set_backend(BackendChoice::Cuda);
    let gpu = cr::run_rk4_systems(&model, &settings, &y0s, dt, steps, every);
    backend::set_backend(BackendChoice::Cpu);
    let cpu = cr::run_rk4_systems(&model, &settings, &y0s, dt, steps, every);
    backend::set_backend(BackendChoice::Auto);
    let (gpu, cpu) = (gpu.unwrap(), cpu.unwrap());
    let mut worst = 0.0f64;
    for (g, c) in gpu.iter().zip(&cpu) {
        assert_eq!(g.len(), c.len());
        for (a, b) in g.iter().zip(c) {
            assert_eq!(a.time_s, b.time_s);
            let scale: f64 = b.populations.iter().sum();
            for (x, y) in a.populations.iter().zip(&b.populations) {
                worst = worst.max((x - y).abs() / scale);
            }
            worst = worst.max(((a.energy_density - b.energy_density) / b.energy_density).abs());
            worst = worst.max(((a.te_ev - b.te_ev) / b.te_ev).abs());
        }
    }
    println!("{stats:?}: worst GPU/CPU difference {worst:.2e}");
    assert!(worst < 1e-11, "{stats:?}: GPU and CPU CR runs differ by {worst:e}");
    assert!(cpu[0].last().unwrap().te_ev != cpu[0][0].te_ev, "the run must change the state");
}

#[test]
fn device_rk4_matches_host_rk4_fermi_dirac() {
    if gpu::cuda_device().is_some() {
        compare(Statistics::FermiDirac, Quadrature::new(5.0, 8).unwrap(), 1e-18, 24, 5);
    }
}

/// Without blocking, three-body recombination at 1e23 cm^-3 runs at ~1e17 s^-1: RK4 needs
/// dt well below 1e-17 s (the paper used 1e-19 s).
#[test]
fn device_rk4_matches_host_rk4_maxwell_boltzmann() {
    if gpu::cuda_device().is_some() {
        compare(Statistics::MaxwellBoltzmann, Quadrature::new(5.0, 8).unwrap(), 1e-19, 24, 5);
    }
}

#[test]
fn device_rk4_matches_host_rk4_with_paper_quadrature() {
    if gpu::cuda_device().is_some() {
        compare(Statistics::FermiDirac, Quadrature::paper_default(), 1e-18, 3, 2);
    }
}

/// A step far too long drives the energy density below the Fermi ground state: the device run
/// reports it instead of returning garbage.
#[test]
fn device_rk4_reports_a_blown_up_run() {
    if gpu::cuda_device().is_none() {
        return;
    }
    let model = aluminium_subset();
    let settings =
        CrSettings { stats: Statistics::FermiDirac, quadrature: Quadrature::new(5.0, 8).unwrap(), tr_ev: 250.0 };
    let y0 = cr::initial_state(&model, Statistics::FermiDirac, &[9e22, 0.0, 0.0, 0.0, 0.0, 0.0], 1.0).unwrap();
    let _lock = BACKEND.lock().unwrap_or_else(|p| p.into_inner());
    backend::set_backend(BackendChoice::Cuda);
    let result = cr::run_rk4(&model, &settings, &y0, 1e-12, 50, 10);
    backend::set_backend(BackendChoice::Auto);
    let e = result.unwrap_err();
    assert!(e.to_string().contains("RK4 step"), "{e}");
}

/// Calls `check(stats, settings, states)` with `n` random electron states for each n of `sizes`,
/// both statistics (p = 5, 8 nodes, T_r = 250 eV): T_e in [0.5, 300] eV and n_e in [1e19, 1e24]
/// cm^-3, log-uniform from a linear congruential generator seeded with `seed`, u from (T_e, n_e).
fn over_random_states(
    mut seed: u64,
    sizes: &[usize],
    mut check: impl FnMut(Statistics, &CrSettings, Vec<cr::ElectronState>),
) {
    let mut uniform = move || {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 11) as f64 / (1u64 << 53) as f64
    };
    for stats in [Statistics::FermiDirac, Statistics::MaxwellBoltzmann] {
        let settings = CrSettings { stats, quadrature: Quadrature::new(5.0, 8).unwrap(), tr_ev: 250.0 };
        for &n in sizes {
            let states = (0..n)
                .map(|_| {
                    let te = 0.5 * 600f64.powf(uniform());
                    let ne = 1e19 * 1e5f64.powf(uniform());
                    let u = atomgpu::rates::fermi::energy_density(stats, te, ne).unwrap();
                    cr::ElectronState { energy_density: u, ne_cm3: ne }
                })
                .collect();
            check(stats, &settings, states);
        }
    }
}

/// Runs `f` on the CUDA backend and then on the CPU backend: (GPU result, CPU result).
fn on_both<T>(f: impl Fn() -> T) -> (T, T) {
    let _lock = BACKEND.lock().unwrap_or_else(|p| p.into_inner());
    backend::set_backend(BackendChoice::Cuda);
    let gpu = f();
    backend::set_backend(BackendChoice::Cpu);
    let cpu = f();
    backend::set_backend(BackendChoice::Auto);
    (gpu, cpu)
}

/// The rates of the model at many electron states (kernels `cr_conditions_kernel` and
/// `cr_state_rates_kernel`) against the CPU: random (T_e in [0.5, 300] eV, n_e in [1e19, 1e24]
/// cm^-3) states, 1, 7, 33 and 130 of them (not multiples of the block or warp counts), both
/// statistics.
/// - The device's temperature inversion against closed forms of the host: its (T_e, mu) give
///   back u (fermi::energy_density) within 1e-12 and n_e (fermi::chemical_potential at T_e)
///   within 1e-9 T_e in mu. (The two inversions are not compared with each other: near the
///   degenerate limit u hardly depends on T_e, and T_e from u is ill-conditioned.)
/// - Every rate against the CPU integrals at the device's own (T_e, mu): within 1e-12.
/// - A state below the Fermi ground state fails alone, as on the CPU.
#[test]
fn device_rates_at_many_states_match_the_cpu() {
    use atomgpu::rates::{fermi, integrals};
    if gpu::cuda_device().is_none() {
        return;
    }
    let model = aluminium_subset();
    over_random_states(12345, &[1, 7, 33, 130, 1201], |stats, settings, mut states| {
        let q = &settings.quadrature;
        let n = states.len();
        {
            if stats == Statistics::FermiDirac && n > 1 {
                states[n / 2].energy_density = 0.5 * fermi::ground_state_energy_density(states[n / 2].ne_cm3);
            }
            let (gpu, cpu) = on_both(|| cr::rates_at(&model, settings, &states).unwrap());
            let mut worst = 0.0f64;
            for (i, (g, c)) in gpu.iter().zip(&cpu).enumerate() {
                let g = match (g, c) {
                    (Ok(g), Ok(_)) => g,
                    (Err(_), Err(_)) => {
                        assert!(stats == Statistics::FermiDirac && i == n / 2, "state {i} failed");
                        continue;
                    }
                    _ => panic!("{stats:?}, state {i}: GPU {g:?} but CPU {c:?}"),
                };
                let (u, ne) = (states[i].energy_density, states[i].ne_cm3);
                let u_back = fermi::energy_density(stats, g.te_ev, ne).unwrap();
                assert!(((u_back - u) / u).abs() < 1e-12, "{stats:?}, state {i}: u {u:e} -> {u_back:e}");
                let mu_back = fermi::chemical_potential(stats, g.te_ev, ne).unwrap();
                assert!(
                    (mu_back - g.mu_ev).abs() < 1e-9 * g.te_ev,
                    "{stats:?}, state {i}: mu {} vs {mu_back}",
                    g.mu_ev
                );
                let c = integrals::Conditions { stats, te: g.te_ev, mu: g.mu_ev, ne, tr: 250.0 };
                let rel = |a: f64, b: f64| if a == b { 0.0 } else { ((a - b) / b.abs().max(1e-300)).abs() };
                for (t, x) in model.excitation_parameters().iter().enumerate() {
                    let (up, down) = integrals::excitation(&c, x, q);
                    worst = worst.max(rel(g.rates.excitation_up[t], up)).max(rel(g.rates.excitation_down[t], down));
                }
                for (t, x) in model.ionization_parameters().iter().enumerate() {
                    let (up, down) = integrals::ionization(&c, x, q);
                    worst = worst.max(rel(g.rates.ionization_up[t], up)).max(rel(g.rates.ionization_down[t], down));
                }
                for (t, x) in model.photoionization_parameters().iter().enumerate() {
                    let (rate, heating) = integrals::photoionization(&c, x, q);
                    worst = worst.max(rel(g.rates.photo_rate[t], rate)).max(rel(g.rates.photo_heating[t], heating));
                }
                worst = worst.max(rel(g.rates.ib_per_z2n, integrals::inverse_bremsstrahlung(&c, 1.0, q)));
            }
            println!("{stats:?}, {n} states: worst GPU/CPU difference {worst:.2e}");
            assert!(worst < 1e-12, "{stats:?}, {n} states: GPU and CPU rates differ by {worst:e}");
        }
    });
}

/// The rates' slopes on the device (kernel `cr_state_slopes_kernel`) against the CPU's
/// (`integrals::*_with_slopes`, whose own reference is tests/cr_jacobian.rs) at the device's
/// (T_e, mu): random states as above (T_e in [0.5, 300] eV, n_e in [1e19, 1e24] cm^-3), 1, 9, 70
/// and 1201 of them (both layouts of the kernel, as above), both statistics. Each slope within
/// 1e-11 of |slope| + |rate|/T_e (a slope that is a sum of terms of both signs may be small
/// beside its rate; n_e: |rate|/n_e); the rates themselves within 1e-12 as in the plain kernel;
/// the gas's d(n_e, u)/d(T_e, mu) from the device inversion's Fermi integrals within 1e-11 of the
/// host's (`fermi::density_and_energy_slopes`).
#[test]
fn device_rate_slopes_match_the_cpu() {
    use atomgpu::rates::integrals;
    if gpu::cuda_device().is_none() {
        return;
    }
    let model = aluminium_subset();
    over_random_states(271828, &[1, 9, 70, 1201], |stats, settings, states| {
        let q = &settings.quadrature;
        let n = states.len();
        {
            let _lock = BACKEND.lock().unwrap_or_else(|p| p.into_inner());
            backend::set_backend(BackendChoice::Cuda);
            let gpu = cr::rates_with_slopes_at(&model, settings, &states);
            backend::set_backend(BackendChoice::Auto);
            let (mut worst_rate, mut worst_slope) = (0.0f64, 0.0f64);
            for (i, g) in gpu.unwrap().into_iter().enumerate() {
                let g = g.unwrap_or_else(|e| panic!("{stats:?}, state {i}: {e}"));
                let s = g.slopes.as_ref().expect("asked with slopes");
                let ne = states[i].ne_cm3;
                let c = integrals::Conditions { stats, te: g.te_ev, mu: g.mu_ev, ne, tr: 250.0 };
                let mut check = |rate: [f64; 2], by_te: [f64; 2], by_mu: [f64; 2], want: [[f64; 2]; 3]| {
                    let wanted = want[0].iter().zip(want[1]).zip(want[2]);
                    for (((got, got_te), got_mu), ((r, w_te), w_mu)) in rate.iter().zip(by_te).zip(by_mu).zip(wanted) {
                        worst_rate = worst_rate.max(((got - r) / r.abs().max(1e-300)).abs());
                        for (slope, w) in [(got_te, w_te), (got_mu, w_mu)] {
                            worst_slope =
                                worst_slope.max((slope - w).abs() / (w.abs() + r.abs() / g.te_ev).max(1e-300));
                        }
                    }
                };
                let (r, t, m) = (&g.rates, &s.by_te, &s.by_mu);
                for (x, p) in model.excitation_parameters().iter().enumerate() {
                    let pair = |v: &cr::Rates| [v.excitation_up[x], v.excitation_down[x]];
                    check(pair(r), pair(t), pair(m), integrals::excitation_with_slopes(&c, p, q));
                }
                for (x, p) in model.ionization_parameters().iter().enumerate() {
                    let pair = |v: &cr::Rates| [v.ionization_up[x], v.ionization_down[x]];
                    check(pair(r), pair(t), pair(m), integrals::ionization_with_slopes(&c, p, q));
                }
                for (x, p) in model.photoionization_parameters().iter().enumerate() {
                    let pair = |v: &cr::Rates| [v.photo_rate[x], v.photo_heating[x]];
                    check(pair(r), pair(t), pair(m), integrals::photoionization_with_slopes(&c, p, q));
                }
                let [h, h_te, h_mu, h_ne] = integrals::inverse_bremsstrahlung_with_slopes(&c, 1.0, q);
                let ib = |v: &cr::Rates| [v.ib_per_z2n; 2];
                check(ib(r), ib(t), ib(m), [[h, h], [h_te, h_te], [h_mu, h_mu]]);
                worst_slope = worst_slope.max((s.ib_by_ne - h_ne).abs() / (h_ne.abs() + h.abs() / ne));
                // The gas's slopes from the device inversion's Fermi integrals against the host's
                // quadrature at the same (T_e, mu); each row's scale is that of its terms,
                // (3/2) F_{1/2} and eta F_{-1/2} nearly cancel in dn_e/dT_e when degenerate.
                let want = atomgpu::rates::fermi::density_and_energy_slopes(stats, g.te_ev, g.mu_ev);
                let eta = (g.mu_ev / g.te_ev).abs();
                for (got, w) in s.gas.iter().zip(want) {
                    let scale = w[0].abs() + (1.0 + eta) * w[1].abs();
                    worst_slope = worst_slope.max((got[0] - w[0]).abs().max((got[1] - w[1]).abs()) / scale);
                }
            }
            println!("{stats:?}, {n} states: worst GPU/CPU rate {worst_rate:.2e}, slope {worst_slope:.2e}");
            assert!(worst_rate < 1e-12, "{stats:?}, {n} states: rates differ by {worst_rate:e}");
            assert!(worst_slope < 1e-11, "{stats:?}, {n} states: slopes differ by {worst_slope:e}");
        }
    });
}

/// The stiff integrator with device rates against the same run with CPU rates: three systems
/// at once, both statistics, to 2e-14 s; they agree within 1e-9 (each run's step sequence is
/// chosen from rates that differ in the last digits, so the runs can differ by ~rtol in the
/// worst case; seen far less).
#[test]
fn device_stiff_runs_match_the_cpu() {
    if gpu::cuda_device().is_none() {
        return;
    }
    let model = aluminium_subset();
    for stats in [Statistics::FermiDirac, Statistics::MaxwellBoltzmann] {
        let settings = CrSettings { stats, quadrature: Quadrature::new(5.0, 8).unwrap(), tr_ev: 250.0 };
        let y0s: Vec<Vec<f64>> = [(9e22, 0.0, 1.0), (8e22, 1e22, 2.5), (3e22, 5e21, 7.0)]
            .iter()
            .map(|&(n0, n2, te)| cr::initial_state(&model, stats, &[n0, 0.0, n2, 0.0, 0.0, 1e20], te).unwrap())
            .collect();
        let tol = cr::StiffTolerances::default();
        let times = [1e-16, 1e-15, 2e-14];
        let (gpu, cpu) = on_both(|| cr::run_stiff_systems(&model, &settings, &y0s, &times, &tol).unwrap());
        let mut worst = 0.0f64;
        for (g, c) in gpu.iter().zip(&cpu) {
            for (a, b) in g.iter().zip(c) {
                let scale: f64 = b.populations.iter().sum();
                for (x, y) in a.populations.iter().zip(&b.populations) {
                    worst = worst.max((x - y).abs() / scale);
                }
                worst = worst.max(((a.te_ev - b.te_ev) / b.te_ev).abs());
            }
        }
        println!("{stats:?}: worst GPU/CPU stiff-run difference {worst:.2e}");
        assert!(worst < 1e-9, "{stats:?}: GPU and CPU stiff runs differ by {worst:e}");
        assert!(cpu[0].last().unwrap().te_ev > 2.0 * cpu[0][0].te_ev, "the run must heat the electrons");
    }
}
