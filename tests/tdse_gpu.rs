//! The CUDA path of the TDSE family (`src/tdse/cuda.rs`, `kernels/tdse.cu`) computes the same
//! function as the CPU reference (`src/tdse/cpu.rs`): random complex wavefunctions (never zero)
//! on cylindrical grids of N_θ = 6, 50, 128 and Cartesian grids of N_z = 37, 70 (sizes that fill
//! no warp), with an ion on a trajectory, a jellium or Chulkov surface or a caller array, and
//! absorbing layers; every stage kind (the start, leap-frog steps, imaginary time with its energy
//! shift), the paper's and the centred θ average, every observable, density and potential slice;
//! an m = 1 eigenvector through relaxation; a run stopped by the progress callback (at the same
//! step as on the CPU) and by a time limit; and a domain split over two ranks on one device (the
//! overlapped halo path). Tolerance 1e-12 of the largest |ψ| (the device's exp and
//! sincos differ from the host's in the last bit). Complex-float storage: the same runs with
//! tolerance 1e-6 (the two compute the same doubles to ~1e-16 from the same stored floats, so a
//! stored value differs only where those doubles straddle a float rounding boundary: one unit
//! in the last place, 6e-8 relative, which the stable scheme carries but does not grow).
//!
//! Without a CUDA device the tests print `skipped: no CUDA device` and pass, unless
//! `ATOMGPU_REQUIRE_GPU=1` (set on the device machine), where they fail.

#[path = "support/rng.rs"]
#[allow(dead_code)]
mod rng;

#[path = "support/gpu.rs"]
mod gpu;

#[path = "support/ranks.rs"]
mod ranks;

use atomgpu::backend::Backend;
use atomgpu::tdse::engine::SliceAxis;
use atomgpu::tdse::grid::Grid;
use atomgpu::tdse::potential::{IonPotential, Surface, Trajectory};
use atomgpu::tdse::scheme::{Params, Storage};
use atomgpu::tdse::Propagator;
use num_complex::Complex64 as C64;
use rng::Rng;

fn random_psi(rng: &mut Rng, n: usize) -> Vec<C64> {
    (0..n).map(|_| C64::new(rng.uniform(0.1, 1.0), rng.uniform(-1.0, 1.0))).collect()
}

/// Relative tolerance of GPU against CPU for a handle of `storage` (module docs).
fn tolerance(storage: Storage) -> f64 {
    match storage {
        Storage::ComplexDouble => 1e-12,
        Storage::ComplexFloat => 1e-6,
    }
}

fn assert_close_to(what: &str, a: &[C64], b: &[C64], tolerance: f64) {
    let scale = a.iter().fold(0.0f64, |m, z| m.max(z.norm()));
    let worst = a.iter().zip(b).fold(0.0f64, |m, (x, y)| m.max((x - y).norm()));
    assert!(worst <= tolerance * scale, "{what}: GPU and CPU differ by {worst:e} (scale {scale:e})");
}

fn assert_close(what: &str, a: &[C64], b: &[C64]) {
    assert_close_to(what, a, b, 1e-12)
}

fn assert_near_to(what: &str, a: f64, b: f64, tolerance: f64) {
    assert!((a - b).abs() <= tolerance * a.abs().max(b.abs()).max(1e-300), "{what}: CPU {a} GPU {b}");
}

fn assert_near(what: &str, a: f64, b: f64) {
    assert_near_to(what, a, b, 1e-12)
}

/// Runs the same sequence on `backend` and returns everything it measured.
fn run(backend: &Backend, grid: &Grid, params: Params, setup: &dyn Fn(&mut Propagator), psi: &[C64]) -> Vec<Vec<f64>> {
    let mut p = Propagator::with_backend(grid.clone(), params, backend).unwrap();
    setup(&mut p);
    p.set_reference(&psi.iter().map(|z| z.conj()).collect::<Vec<_>>()).unwrap();
    p.set_wavefunction(psi, 0.0).unwrap();
    let mut results = Vec::new();
    let mut out = vec![C64::default(); grid.local_len()];
    let as_reals = |v: &[C64]| v.iter().flat_map(|z| [z.re, z.im]).collect::<Vec<f64>>();
    p.step(1).unwrap();
    p.wavefunction(&mut out).unwrap();
    results.push(as_reals(&out));
    p.step(4).unwrap();
    p.wavefunction(&mut out).unwrap();
    results.push(as_reals(&out));
    let overlap = p.overlap().unwrap();
    results.push(vec![
        p.norm().unwrap(),
        p.energy().unwrap(),
        overlap.re,
        overlap.im,
        p.population_near_ion(1.33).unwrap(),
    ]);
    for (axis, index) in [(SliceAxis::X, grid.x_offset + 1), (SliceAxis::Second, 3), (SliceAxis::Third, 2)] {
        let mut slice = vec![0.0; atomgpu::tdse::observables::slice_len(grid, axis)];
        p.density_slice(axis, index, &mut slice).unwrap();
        results.push(slice);
    }
    for (axis, index) in [(SliceAxis::X, grid.x_offset + 1), (SliceAxis::Second, 3), (SliceAxis::Third, 2)] {
        let mut slice = vec![0.0; atomgpu::tdse::observables::slice_len(grid, axis)];
        p.potential_slice(0.37, axis, index, &mut slice).unwrap();
        results.push(slice);
    }
    let relaxed = p.relax(60, 1e-300).unwrap();
    p.wavefunction(&mut out).unwrap();
    results.push(as_reals(&out));
    results.push(vec![relaxed.energy]);
    results
}

fn compare(grid: &Grid, params: Params, setup: &dyn Fn(&mut Propagator), seed: u64) {
    let Some(device) = gpu::cuda_device() else { return };
    // Random data is all high-frequency modes, whose norm the start changes at O((τλ)³): the
    // watchdog is not what these tests are about.
    let params = Params { norm_growth_tolerance: 1.0, ..params };
    let psi = random_psi(&mut Rng::new(seed), grid.local_len());
    let cpu = run(&Backend::Cpu, grid, params, setup, &psi);
    let gpu = run(&Backend::Cuda(device), grid, params, setup, &psi);
    let names = [
        "ψ after the start",
        "ψ after 5 steps",
        "observables",
        "x slice",
        "second slice",
        "third slice",
        "x potential slice",
        "second potential slice",
        "third potential slice",
        "relaxed ψ",
        "relaxed energy",
    ];
    for ((name, a), b) in names.iter().zip(&cpu).zip(&gpu) {
        let to_c = |v: &[f64]| v.chunks(2).map(|c| C64::new(c[0], *c.get(1).unwrap_or(&0.0))).collect::<Vec<_>>();
        let (what, tolerance) = (format!("{name} on {grid:?} ({:?})", params.storage), tolerance(params.storage));
        if a.len() > 8 {
            assert_close_to(&what, &to_c(a), &to_c(b), tolerance);
        } else {
            for (x, y) in a.iter().zip(b) {
                assert_near_to(&what, *x, *y, tolerance);
            }
        }
    }
}

/// A lithium-like ion on a trajectory in front of a jellium surface.
fn moving_ion_model() -> (IonPotential, Surface, Trajectory) {
    let path = Trajectory::new(vec![0.0, 1.0], vec![[0.1, 0.2, -0.1], [0.6, 0.25, 0.0]]).unwrap();
    let ion = IonPotential { z: 3.0, z_core: 1.0, a1: 2.1, a2: -0.3, a3: 1.2, soft_core: 0.05, ..Default::default() };
    let surface = Surface::Jellium { x_surface: -0.4, depth: 0.4, lambda: 1.1, image_plane: -0.3 };
    (ion, surface, path)
}

fn moving_ion(p: &mut Propagator) {
    let (ion, surface, path) = moving_ion_model();
    p.set_analytic_potential(Some(ion), &surface, path).unwrap();
}

fn chulkov_surface(p: &mut Propagator) {
    let surface = Surface::Chulkov { x_surface: 0.1, spacing: 3.94, a10: -11.895, a1: 5.14, a2: 4.3279, beta: 2.9416 };
    let ion = IonPotential {
        z: 1.0,
        z_core: 1.0,
        polarisability: 4.5,
        polarisation_cutoff: 1.0,
        core_amplitude: 0.3,
        core_exponent: 2.0,
        soft_core: 0.1,
        ..Default::default()
    };
    p.set_analytic_potential(Some(ion), &surface, Trajectory::fixed([0.0, 0.3, 0.1])).unwrap();
}

#[test]
fn cylindrical_stages_gpu_equal_cpu() {
    let absorbing = Params { absorber_width: 0.5, absorber_strength: 1.0, ..Params::default() };
    let paper = Params { gamma: 0.0, beta: 0.4, ..absorbing };
    for (i, (n, params)) in
        [((7, 13, 6), absorbing), ((9, 20, 50), paper), ((5, 17, 128), absorbing)].into_iter().enumerate()
    {
        let grid = Grid::cylindrical(n.0, n.1, n.2, 0.2, 0.2, -0.5).unwrap();
        compare(&grid, params, &moving_ion, 10 + i as u64);
    }
    let grid = Grid::cylindrical(6, 11, 32, 0.25, 0.2, 0.0).unwrap();
    compare(&grid, Params::default(), &chulkov_surface, 20);
}

#[test]
fn cartesian_stages_gpu_equal_cpu() {
    let absorbing = Params { absorber_width: 0.6, absorber_strength: 2.0, ..Params::default() };
    for (i, n) in [[6, 11, 37], [4, 33, 70]].into_iter().enumerate() {
        let grid = Grid::cartesian(n, [0.2, 0.2, 0.2], [-0.5, -1.0, -3.0]).unwrap();
        compare(&grid, absorbing, &moving_ion, 30 + i as u64);
    }
}

#[test]
fn float_storage_gpu_equals_cpu() {
    let float =
        Params { absorber_width: 0.5, absorber_strength: 1.0, storage: Storage::ComplexFloat, ..Params::default() };
    let paper = Params { gamma: 0.0, beta: 0.4, ..float };
    for (i, (n, params)) in [((7, 13, 6), float), ((9, 20, 50), paper), ((5, 17, 128), float)].into_iter().enumerate() {
        let grid = Grid::cylindrical(n.0, n.1, n.2, 0.2, 0.2, -0.5).unwrap();
        compare(&grid, params, &moving_ion, 70 + i as u64);
    }
    let grid = Grid::cartesian([6, 11, 37], [0.2, 0.2, 0.2], [-0.5, -1.0, -3.0]).unwrap();
    compare(&grid, float, &moving_ion, 73);
}

#[test]
fn a_caller_potential_array_gpu_equals_cpu() {
    let grid = Grid::cylindrical(5, 9, 40, 0.2, 0.2, 0.0).unwrap();
    let mut rng = Rng::new(40);
    let potential: Vec<f64> = (0..grid.local_len()).map(|_| rng.uniform(-2.0, 1.0)).collect();
    compare(&grid, Params::default(), &|p: &mut Propagator| p.set_potential_array(&potential).unwrap(), 41);
}

#[test]
fn a_split_domain_on_the_gpu_equals_the_whole_on_the_cpu() {
    let Some(device) = gpu::cuda_device() else { return };
    for storage in [Storage::ComplexDouble, Storage::ComplexFloat] {
        split_domain(&device, storage);
    }
}

/// A domain split over two ranks on `device` against the whole on the CPU, both stored as
/// `storage`.
fn split_domain(device: &std::sync::Arc<atomgpu::backend::CudaDevice>, storage: Storage) {
    let params = Params { storage, ..Params::default() };
    let grid = Grid::cylindrical(13, 10, 24, 0.2, 0.2, -1.2).unwrap();
    let psi = random_psi(&mut Rng::new(50), grid.local_len());
    let plane = grid.plane_len();
    let mut whole = Propagator::with_backend(grid.clone(), params, &Backend::Cpu).unwrap();
    moving_ion(&mut whole);
    whole.set_wavefunction(&psi, 0.0).unwrap();
    whole.step(6).unwrap();
    let mut expected = vec![C64::default(); grid.local_len()];
    whole.wavefunction(&mut expected).unwrap();
    let slabs = [(0usize, 6usize), (6, 7)];
    let parts: Vec<Vec<C64>> = std::thread::scope(|scope| {
        let handles: Vec<_> = ranks::thread_comms(2)
            .into_iter()
            .zip(slabs)
            .map(|(comm, (offset, n))| {
                let (grid, psi, device) = (&grid, &psi, device.clone());
                scope.spawn(move || {
                    let slab = grid.clone().slab(offset, n).unwrap();
                    let mut p = Propagator::with_backend(slab, params, &Backend::Cuda(device)).unwrap();
                    p.set_communicator(Box::new(comm)).unwrap();
                    moving_ion(&mut p);
                    p.set_wavefunction(&psi[offset * plane..(offset + n) * plane], 0.0).unwrap();
                    p.step(6).unwrap();
                    let mut out = vec![C64::default(); n * plane];
                    p.wavefunction(&mut out).unwrap();
                    out
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let joined: Vec<C64> = parts.concat();
    assert_close_to(&format!("split GPU run ({storage:?})"), &expected, &joined, tolerance(storage));
}

#[test]
fn a_team_over_the_gpus_equals_the_cpu() {
    // tdse::Tdse with two members on GPUs 0 and 1 (threads, in-process halo exchange overlapped
    // with the interiors); a set names each GPU once, so one GPU cannot hold this team.
    let Some(device) = gpu::cuda_device() else { return };
    if atomgpu::backend::cuda_device_count() < 2 {
        eprintln!("skipped: the two-member team needs two GPUs");
        return;
    }
    for storage in [Storage::ComplexDouble, Storage::ComplexFloat] {
        team_of_two(&device, storage);
    }
}

/// A two-member team on GPUs 0 and 1 against the CPU, both stored as `storage`.
fn team_of_two(device: &std::sync::Arc<atomgpu::backend::CudaDevice>, storage: Storage) {
    let second = atomgpu::backend::cuda_device_at(1).unwrap();
    let grid = Grid::cylindrical(17, 10, 24, 0.2, 0.2, -1.6).unwrap();
    let psi = random_psi(&mut Rng::new(60), grid.local_len());
    // A random ψ is rough: its plain norm is not the leap-frog's invariant and moves by 0.3% in 7
    // steps, so the watchdog is relaxed here.
    let params = Params { norm_growth_tolerance: 1.0, storage, ..Params::default() };
    let mut whole = Propagator::with_backend(grid.clone(), params, &Backend::Cpu).unwrap();
    moving_ion(&mut whole);
    whole.set_wavefunction(&psi, 0.0).unwrap();
    whole.step(7).unwrap();
    let mut expected = vec![C64::default(); grid.local_len()];
    whole.wavefunction(&mut expected).unwrap();
    let backends = [Backend::Cuda(device.clone()), Backend::Cuda(second)];
    let devices = atomgpu::backend::DeviceSet::of(backends.to_vec(), "backends").unwrap();
    let mut team = atomgpu::tdse::Tdse::new(grid.clone(), params, &devices).unwrap();
    let (ion, surface, path) = moving_ion_model();
    team.set_analytic_potential(Some(ion), &surface, path).unwrap();
    team.set_wavefunction(&psi, 0.0).unwrap();
    team.step(7).unwrap();
    let mut got = vec![C64::default(); grid.local_len()];
    team.wavefunction(&mut got).unwrap();
    let tolerance = tolerance(storage);
    assert_close_to(&format!("two-member team ({storage:?})"), &expected, &got, tolerance);
    assert_near_to("team norm", whole.norm().unwrap(), team.norm().unwrap(), tolerance);
}

#[test]
fn relaxing_an_m1_state_gpu_equals_cpu() {
    // The imaginary-time stage with its energy shift on the implicit rings, on an m = 1 state
    // (e^{iθ} times a Gaussian off nothing: every ring has its own θ eigenvalue): 300 steps.
    let Some(device) = gpu::cuda_device() else { return };
    let grid = Grid::cylindrical(16, 10, 16, 0.3, 0.3, -2.25).unwrap();
    let params = Params { dtau: 0.01, rho0: 1.2, ..Params::default() };
    let mut psi = Vec::with_capacity(grid.local_len());
    for k in 0..grid.nx {
        for l in 0..grid.n2 {
            for m in 0..grid.n3 {
                let p = grid.position(k, l, m);
                let r2 = p[0] * p[0] + p[1] * p[1] + p[2] * p[2];
                psi.push(C64::from_polar(grid.coord2(l) * (-r2 / 2.0).exp(), grid.coord3(m)));
            }
        }
    }
    let u: Vec<f64> = (0..grid.local_len())
        .map(|i| {
            let (k, l) = (i / grid.plane_len(), (i / grid.n3) % grid.n2);
            0.5 * (grid.x(k).powi(2) + grid.coord2(l).powi(2))
        })
        .collect();
    let relax = |backend: &Backend| {
        let mut p = Propagator::with_backend(grid.clone(), params, backend).unwrap();
        p.set_potential_array(&u).unwrap();
        p.set_wavefunction(&psi, 0.0).unwrap();
        let r = p.relax(300, 1e-300).unwrap();
        let mut out = vec![C64::default(); grid.local_len()];
        p.wavefunction(&mut out).unwrap();
        (r.energy, out)
    };
    let (e_cpu, cpu) = relax(&Backend::Cpu);
    let (e_gpu, gpu) = relax(&Backend::Cuda(device));
    assert_near("relaxed m = 1 energy", e_cpu, e_gpu);
    assert_close("relaxed m = 1 state", &cpu, &gpu);
}

#[test]
fn a_stopped_gpu_run_stops_where_the_cpu_run_does() {
    // The callback stops step(40) at its 3rd report on both backends: both hold step 3 (equal to
    // 1e-12), and a time limit of 1 ms stops step(2^40) on the GPU (each step is waited for).
    let Some(device) = gpu::cuda_device() else { return };
    unsafe extern "C" fn stop_at_three(user: *mut std::ffi::c_void, _: *const std::ffi::c_char, _: f64, _: f64) -> i32 {
        let calls = &mut *(user as *mut u32);
        *calls += 1;
        (*calls == 3) as i32
    }
    let grid = Grid::cylindrical(12, 10, 24, 0.2, 0.2, -1.1).unwrap();
    let psi = random_psi(&mut Rng::new(70), grid.local_len());
    let params = Params { norm_growth_tolerance: 1.0, ..Params::default() };
    let stopped = |backend: &Backend| {
        let mut p = Propagator::with_backend(grid.clone(), params, backend).unwrap();
        moving_ion(&mut p);
        p.set_wavefunction(&psi, 0.0).unwrap();
        let mut calls = 0u32;
        atomgpu::progress::set_callback(Some(stop_at_three), &mut calls as *mut u32 as *mut std::ffi::c_void, 0.0)
            .unwrap();
        let e = p.step(40).unwrap_err().to_string();
        atomgpu::progress::set_callback(None, std::ptr::null_mut(), 0.0).unwrap();
        assert!(e.contains("after 3 of the 40 steps"), "{e}");
        let mut out = vec![C64::default(); grid.local_len()];
        p.wavefunction(&mut out).unwrap();
        out
    };
    let cpu = stopped(&Backend::Cpu);
    let gpu = stopped(&Backend::Cuda(device.clone()));
    assert_close("ψ of a run stopped at step 3", &cpu, &gpu);
    let mut p = Propagator::with_backend(grid.clone(), params, &Backend::Cuda(device)).unwrap();
    p.set_wavefunction(&psi, 0.0).unwrap();
    atomgpu::progress::set_time_limit(1e-3).unwrap();
    let e = p.step(1 << 40);
    atomgpu::progress::set_time_limit(0.0).unwrap();
    assert!(e.unwrap_err().to_string().contains("time limit"));
}
