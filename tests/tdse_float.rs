//! Complex-float storage of the TDSE family (`Params::storage`, issue 31) on the CPU reference:
//! the stored values are the IEEE single roundings of what was given (reference: Rust's `as f32`,
//! round to nearest even), and a value beyond its range is refused; and on the ion-surface case of `examples/mpi/tdse_jellium.c` (soft-cored
//! hydrogen leaving a jellium surface, 3 000 steps) the observables a user reads — population on
//! the ion, survival probability, norm — stay within 2e-6 of the complex-double run
//! over the whole trajectory (the double run is the reference: its own physics is checked against
//! closed forms in `tests/tdse_cpu.rs`). The same bound on the GPU and on the paper's grid is
//! measured by `bench/tdse_bench.rs` (README "Measured"). A float team equals one float
//! propagator bit for bit (`tests/tdse_cpu.rs`, the team test, runs both storages).

use atomgpu::backend::Backend;
use atomgpu::tdse::grid::Grid;
use atomgpu::tdse::potential::{IonPotential, Surface, Trajectory};
use atomgpu::tdse::scheme::{Params, Storage};
use atomgpu::tdse::Propagator;
use num_complex::Complex64 as C64;

const FLOAT: Params = Params {
    dtau: 0.01,
    rho0: -1.0,
    alpha: 1.0,
    beta: 0.0,
    gamma: 1.0,
    absorber_width: 3.0,
    absorber_strength: 0.3,
    norm_growth_tolerance: 1e-4,
    norm_check_interval: 1000,
    check_stability: true,
    storage: Storage::ComplexFloat,
};

fn gaussian(grid: &Grid, centre: [f64; 3], sigma: f64) -> Vec<C64> {
    let mut psi = Vec::with_capacity(grid.local_len());
    for k in grid.x_offset..grid.x_offset + grid.nx_local {
        for l in 0..grid.n2 {
            for m in 0..grid.n3 {
                let p = grid.position(k, l, m);
                let r2: f64 = (0..3).map(|i| (p[i] - centre[i]).powi(2)).sum();
                psi.push(C64::from_polar((-r2 / (2.0 * sigma * sigma)).exp(), 0.4 * p[0]));
            }
        }
    }
    psi
}

#[test]
fn a_float_handle_stores_the_single_precision_rounding_of_its_input() {
    let grid = Grid::cylindrical(6, 5, 8, 0.2, 0.2, -0.5).unwrap();
    let psi: Vec<C64> =
        (0..grid.local_len()).map(|i| C64::new(1.0 / (3.0 + i as f64), -(i as f64).sqrt() / 7.0)).collect();
    let mut p = Propagator::with_backend(grid.clone(), FLOAT, &Backend::Cpu).unwrap();
    p.set_wavefunction(&psi, 0.0).unwrap();
    let mut back = vec![C64::default(); grid.local_len()];
    p.wavefunction(&mut back).unwrap();
    for (z, b) in psi.iter().zip(&back) {
        assert_eq!(*b, C64::new(z.re as f32 as f64, z.im as f32 as f64));
    }
    assert!(psi.iter().zip(&back).any(|(z, b)| z != b), "the input was representable in float: no test");
    // The norm is summed in double over the stored (rounded) values.
    let expected: f64 = back.iter().enumerate().map(|(i, z)| grid.weight((i / grid.n3) % grid.n2) * z.norm_sqr()).sum();
    assert!((p.norm().unwrap() - expected).abs() <= 1e-14 * expected);
}

#[test]
fn a_value_beyond_the_float_range_is_refused_naming_its_index() {
    // 1e39 is a finite double with a finite norm, but beyond IEEE single (3.4e38): stored, it
    // would be Inf. The handle keeps its earlier wavefunction.
    let grid = Grid::cylindrical(6, 5, 8, 0.2, 0.2, -0.5).unwrap();
    let mut p = Propagator::with_backend(grid.clone(), FLOAT, &Backend::Cpu).unwrap();
    let good = vec![C64::new(0.5, -0.25); grid.local_len()];
    p.set_wavefunction(&good, 0.0).unwrap();
    let mut bad = good.clone();
    bad[17] = C64::new(0.5, 1e39);
    let e = p.set_wavefunction(&bad, 0.0).unwrap_err().to_string();
    assert!(e.contains("`psi`[17]") && e.contains("complex-float"), "{e}");
    let mut back = vec![C64::default(); grid.local_len()];
    p.wavefunction(&mut back).unwrap();
    assert!(back == good);
    // The same values in a complex-double handle are accepted.
    let mut double =
        Propagator::with_backend(grid, Params { storage: Storage::ComplexDouble, ..FLOAT }, &Backend::Cpu).unwrap();
    double.set_wavefunction(&bad, 0.0).unwrap();
}

/// Population within 4 bohr of the ion, survival probability |⟨ψ(0)|ψ(t)⟩|² and norm every 200
/// steps of the ion-surface run of `examples/mpi/tdse_jellium.c`, stored as `storage`, from the
/// relaxed free-atom state `start`.
fn ion_leaving_the_surface(grid: &Grid, storage: Storage, start: &[C64]) -> Vec<[f64; 3]> {
    let mut p = Propagator::with_backend(grid.clone(), Params { storage, ..FLOAT }, &Backend::Cpu).unwrap();
    let jellium = Surface::Jellium { x_surface: 0.0, depth: 0.574, lambda: 1.0, image_plane: 0.5 };
    let path = Trajectory::new(vec![0.0, 30.0], vec![[3.0, 0.0, 0.0], [6.0, 0.0, 0.0]]).unwrap();
    p.set_analytic_potential(Some(IonPotential::soft_cored_hydrogen()), &jellium, path).unwrap();
    p.set_reference(start).unwrap();
    p.set_wavefunction(start, 0.0).unwrap();
    let mut samples = Vec::new();
    for _ in 0..15 {
        p.step(200).unwrap();
        samples.push([p.population_near_ion(4.0).unwrap(), p.overlap().unwrap().norm_sqr(), p.norm().unwrap()]);
    }
    samples
}

#[test]
fn the_ion_surface_observables_in_float_stay_within_two_millionths_of_double() {
    let h = 0.3;
    let grid = Grid::cylindrical(100, 30, 8, h, h, -9.15).unwrap();
    let mut atom =
        Propagator::with_backend(grid.clone(), Params { dtau: 0.01, ..Params::default() }, &Backend::Cpu).unwrap();
    atom.set_analytic_potential(
        Some(IonPotential::soft_cored_hydrogen()),
        &Surface::None,
        Trajectory::fixed([3.0, 0.0, 0.0]),
    )
    .unwrap();
    atom.set_wavefunction(&gaussian(&grid, [3.0, 0.0, 0.0], 1.0), 0.0).unwrap();
    atom.relax(100_000, 1e-10).unwrap();
    let mut start = vec![C64::default(); grid.local_len()];
    atom.wavefunction(&mut start).unwrap();
    let double = ion_leaving_the_surface(&grid, Storage::ComplexDouble, &start);
    let float = ion_leaving_the_surface(&grid, Storage::ComplexFloat, &start);
    let mut worst = [0.0f64; 3];
    for (d, f) in double.iter().zip(&float) {
        for i in 0..3 {
            worst[i] = worst[i].max((d[i] - f[i]).abs());
        }
    }
    eprintln!("largest |float − double| over the trajectory: population, survival, norm = {worst:?}");
    eprintln!("double at the end: {:?}", double.last().unwrap());
    // The electron does move: the run is not a trivially static one.
    let end = double.last().unwrap();
    assert!(end[0] < 0.99 && end[1] < 0.9, "population {} survival {}", end[0], end[1]);
    for (name, w) in ["population", "survival probability", "norm"].iter().zip(worst) {
        assert!(w < 2e-6, "{name}: float and double differ by {w:e}");
        assert!(w > 0.0, "{name}: float and double are identical: the float path was not taken");
    }
}
