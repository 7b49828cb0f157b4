//! The device-resident CR RK4 (kernel `cr_rk4_kernel`) against the host RK4 with CPU rates:
//! same model, same steps, several systems at once (not a multiple of anything), both
//! statistics. Without a CUDA device the tests print `skipped: no CUDA device` (and fail when
//! ATOMGPU_REQUIRE_GPU=1).

#[path = "support/gpu.rs"]
mod gpu;

use atomgpu::backend::{self, BackendChoice};
use atomgpu::rates::cr::{self, CrExcitation, CrIonization, CrModel, CrSettings};
use atomgpu::rates::{Quadrature, Statistics};
use std::sync::Mutex;

/// The backend choice is process-wide: tests that switch it take this lock.
static BACKEND: Mutex<()> = Mutex::new(());

/// Al3+ levels 0-4 and Al4+ level 5 of the paper's model (shared/data/aluminium-cr-*.csv rows),
/// charges 3 and 4.
fn aluminium_subset() -> CrModel {
    let exc = |lower, upper, energy_ev, b: [f64; 4]| CrExcitation {
        lower,
        upper,
        energy_ev,
        omega: [b[0], b[1], b[2], b[3], 0.0, 0.0],
    };
    let beli = [3.71, -0.236, 2.35, -0.66, 0.0];
    let ion = |lower, energy_ev| CrIonization {
        lower,
        upper: 5,
        energy_ev,
        beli,
        d0_cm2: 5.682286e-18,
        d1_cm2: 3.941713e-19,
    };
    CrModel::new(
        vec![3.0, 3.0, 3.0, 3.0, 3.0, 4.0],
        vec![1.0; 6],
        vec![
            exc(0, 1, 77.4, [1.393e-01, -7.979e-02, 1.057e-01, 2.63e-03]),
            exc(1, 2, 8.08, [7.078345e+01, 3.952529e+01, 9.925136e+01, -2.871901e+01]),
            exc(2, 3, 9.89, [1.687015e+02, 5.317823e+01, 2.015390e+02, -4.346805e+01]),
            exc(2, 4, 14.9, [1.582396e+01, -1.274900e+01, 2.527637e+01, -6.928126e+00]),
        ],
        vec![ion(0, 120.0), ion(1, 42.5752), ion(2, 34.4987), ion(3, 24.936), ion(4, 20.926)],
    )
    .unwrap()
}

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
