//! Benchmark of the TDSE family (paper tdse-cylindrical-gpu.txt; issue 11's targets): leap-frog
//! steps per second in Gpnts/s (points × steps / s) for the cylindrical hybrid scheme and the
//! Cartesian scheme, complex double, with the potential made on the device each step (a hydrogen-
//! like ion on a trajectory and a jellium surface) and absorbing layers on:
//!
//! 1. ceiling measured in the same run: the device-to-device copy rate (2 GiB, bytes read +
//!    written per second); a step reads ψ^n and ψ^{n−1} and writes ψ^{n+1} (48 bytes per point
//!    with the analytic potential, 56 with a potential array), so copy rate / 48 B is the
//!    one-pass-over-memory ceiling in points per second;
//! 2. cylindrical at the paper's size (Nx 660 × Nρ 128 × Nθ 128 = 1.08e7 points, dx = dρ = 0.2,
//!    dθ = 2π/128, τ = 0.005, automatic ρ0), then 1e8 and 1e9 points (Nx grows);
//! 3. Cartesian at 1.6e7 (252³), 1e8 (464³) and 1e9 (1000³) points;
//! 4. the CPU (all cores) at the paper's sizes, and the GPU/CPU agreement after the same steps;
//! 5. hydrogen 1s by imaginary time at h = 0.4 … 0.1 (energy error against −½ hartree);
//! 6. with two or more GPUs visible, the in-process multi-GPU path (`tdse::Tdse`): strong
//!    scaling of the cylindrical 1e9-point case from one GPU to all of them, and weak scaling
//!    (5e8 points per GPU), each beside the one-GPU run of the same call;
//! 7. complex-float storage (issue 31): items 2-4 again with wavefunctions stored as complex
//!    float (24 bytes per point a step), and the error it leaves in the observables of the
//!    ion-surface case on the paper's grid: soft-cored hydrogen (examples/mpi/tdse_jellium.c)
//!    relaxed at x = 3 bohr, then leaving a jellium surface (x_s = 0, U0 = 0.574 hartree) at
//!    0.1 a.u. to x = 6 bohr (6 000 steps of τ = 0.005), population within 4 bohr of the ion,
//!    survival probability |⟨ψ(0)|ψ(t)⟩|² and norm every 200 steps, float against double.
//!
//!   cargo build --release --example tdse_bench
//!   target/release/examples/tdse_bench [--quick] [--scaling-only] [--float-only] [--no-hydrogen] [--no-cpu]
//! (--float-only: the complex-float cases of item 7 alone; --no-hydrogen: item 5 left out;
//! --no-cpu: the GPU rates alone, without items 4, 5 and 7's error run)
//!
//! GPU times: median of 3 runs of `steps` steps after a warm-up (kernel compile, the start),
//! synchronised by the norm check that ends every `step` call. One JSON line per case.

use atomgpu::backend::{self, Backend};
use atomgpu::tdse::grid::Grid;
use atomgpu::tdse::potential::{IonPotential, Surface, Trajectory};
use atomgpu::tdse::scheme::{Params, Storage};
use atomgpu::tdse::{Propagator, Tdse};
use num_complex::Complex64 as C64;
use std::time::Instant;

/// Bytes a step moves per point: ψ^n and ψ^{n−1} read, ψ^{n+1} written.
fn bytes_per_point(storage: Storage) -> f64 {
    3.0 * storage.bytes_per_point() as f64
}

fn emit(line: String) {
    println!("{{{line}}}");
}

/// A smooth packet near the ion (so the run stays physical over the timed steps), made in
/// parallel (10^9 points).
fn packet(grid: &Grid) -> Vec<C64> {
    use rayon::prelude::*;
    let mut psi = vec![C64::default(); grid.local_len()];
    psi.par_chunks_mut(grid.n3).enumerate().for_each(|(i, line)| {
        let (k, l) = (grid.x_offset + i / grid.n2, i % grid.n2);
        for (m, z) in line.iter_mut().enumerate() {
            let p = grid.position(k, l, m);
            let r2 = (p[0] - 2.0).powi(2) + p[1] * p[1] + p[2] * p[2];
            *z = C64::from_polar((-r2 / 8.0).exp(), 0.3 * p[0]);
        }
    });
    psi
}

/// The benchmark's run on `grid` spread over `backends` (one member per GPU), stored as `storage`.
fn setup(backends: &[Backend], grid: &Grid, storage: Storage) -> Tdse {
    let params = Params {
        absorber_width: 4.0,
        absorber_strength: 0.5,
        norm_check_interval: 1_000_000,
        storage,
        ..Params::default()
    };
    let devices = atomgpu::backend::DeviceSet::of(backends.to_vec(), "backends").expect("devices");
    let mut p = Tdse::new(grid.clone(), params, &devices).expect("handle");
    let path = Trajectory::new(vec![0.0, 1000.0], vec![[2.0, 0.0, 0.0], [102.0, 0.0, 0.0]]).unwrap();
    let surface = Surface::Jellium { x_surface: grid.x0 + 10.0, depth: 0.4, lambda: 1.1, image_plane: -0.5 };
    let ion = IonPotential { soft_core: 0.05, ..IonPotential::hydrogen() };
    p.set_analytic_potential(Some(ion), &surface, path).unwrap();
    p.set_wavefunction(&packet(grid), 0.0).unwrap();
    p
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Seconds per step (median of 3 runs of `steps`), after the start and one untimed run.
fn time_steps(p: &mut Tdse, steps: u64) -> f64 {
    p.step(steps).unwrap();
    median(
        (0..3)
            .map(|_| {
                let t0 = Instant::now();
                p.step(steps).unwrap();
                t0.elapsed().as_secs_f64() / steps as f64
            })
            .collect(),
    )
}

fn copy_rate(device: &backend::CudaDevice) -> f64 {
    let n = 1usize << 28; // 2 GiB of f64
    let src = device.zeros::<f64>(n).unwrap();
    let mut dst = device.zeros::<f64>(n).unwrap();
    let stream = device.stream();
    stream.memcpy_dtod(&src, &mut dst).unwrap();
    device.synchronize().unwrap();
    let t = median(
        (0..5)
            .map(|_| {
                let t0 = Instant::now();
                stream.memcpy_dtod(&src, &mut dst).unwrap();
                device.synchronize().unwrap();
                t0.elapsed().as_secs_f64()
            })
            .collect(),
    );
    2.0 * (n * 8) as f64 / t
}

fn case(name: &str, grid: &Grid, storage: Storage, gpu: Option<&Backend>, cpu_steps: Option<u64>, ceiling: f64) {
    let points = grid.local_len() as f64;
    let shape = format!(
        r#""case":"{name}","storage":"{storage:?}","points":{points:.4e},"n":[{},{},{}]"#,
        grid.nx, grid.n2, grid.n3
    );
    let bytes = bytes_per_point(storage);
    let mut gpu_psi = None;
    if let Some(backend) = gpu {
        let mut p = setup(std::slice::from_ref(backend), grid, storage);
        let rho0 = p.scheme().rho0(grid);
        let steps = (2e9 / points).clamp(20.0, 400.0) as u64;
        let s = time_steps(&mut p, steps);
        let rate = points / s / 1e9;
        emit(format!(
            r#"{shape},"rho0_used":{rho0:.3},"backend":"cuda","seconds_per_step":{s:.4e},"gpnts_per_s":{rate:.2},"bytes_per_point":{bytes},"fraction_of_copy_ceiling":{:.3}"#,
            rate * 1e9 / (ceiling / bytes)
        ));
        if let Some(steps) = cpu_steps {
            let mut fresh = setup(std::slice::from_ref(backend), grid, storage);
            fresh.step(steps).unwrap();
            let mut psi = vec![C64::default(); grid.local_len()];
            fresh.wavefunction(&mut psi).unwrap();
            gpu_psi = Some(psi);
        }
    }
    if let Some(steps) = cpu_steps {
        let mut p = setup(&[Backend::Cpu], grid, storage);
        let t0 = Instant::now();
        p.step(steps).unwrap();
        let s = t0.elapsed().as_secs_f64() / steps as f64;
        let mut agreement = String::new();
        if let Some(g) = gpu_psi {
            let mut psi = vec![C64::default(); grid.local_len()];
            p.wavefunction(&mut psi).unwrap();
            let scale = psi.iter().fold(0.0f64, |m, z| m.max(z.norm()));
            let diff = psi.iter().zip(&g).fold(0.0f64, |m, (a, b)| m.max((a - b).norm()));
            agreement = format!(r#","gpu_cpu_max_rel_diff":{:.2e}"#, diff / scale);
        }
        emit(format!(
            r#"{shape},"backend":"cpu","threads":{},"steps":{steps},"seconds_per_step":{s:.4e},"gpnts_per_s":{:.4}{agreement}"#,
            rayon::current_num_threads(),
            points / s / 1e9
        ));
    }
}

/// Gpnts/s of the benchmark's run on `grid` over `backends`, stored as `storage`.
fn rate(backends: &[Backend], grid: &Grid, storage: Storage) -> f64 {
    let mut p = setup(backends, grid, storage);
    let steps = (2e9 / grid.local_len() as f64).clamp(20.0, 100.0) as u64;
    grid.local_len() as f64 / time_steps(&mut p, steps) / 1e9
}

/// Strong and weak scaling over all visible GPUs (item 6 of the module docs).
fn scaling(n_gpus: usize, cyl: &dyn Fn(usize) -> Grid) {
    let all: Vec<Backend> = (0..n_gpus).map(|i| Backend::Cuda(backend::cuda_device_at(i).unwrap())).collect();
    let one = &all[..1];
    let (big, per_gpu) = (cyl(61_035), cyl(61_035 / 2));
    for storage in [Storage::ComplexDouble, Storage::ComplexFloat] {
        let (r1, rn) = (rate(one, &big, storage), rate(&all, &big, storage));
        emit(format!(
            r#""case":"strong_scaling","storage":"{storage:?}","points":{:.4e},"gpus":{n_gpus},"gpnts_per_s_1_gpu":{r1:.2},"gpnts_per_s":{rn:.2},"speedup":{:.3}"#,
            big.local_len() as f64,
            rn / r1
        ));
        let weak = cyl(61_035 / 2 * n_gpus);
        let (w1, wn) = (rate(one, &per_gpu, storage), rate(&all, &weak, storage));
        emit(format!(
            r#""case":"weak_scaling","storage":"{storage:?}","points_per_gpu":{:.4e},"gpus":{n_gpus},"gpnts_per_s_1_gpu":{w1:.2},"gpnts_per_s":{wn:.2},"efficiency":{:.3}"#,
            per_gpu.local_len() as f64,
            wn / (w1 * n_gpus as f64)
        ));
    }
}

/// Population on the ion, survival probability and norm every 200 steps of the ion-surface run
/// (item 7) stored as `storage`, from `start`; and the seconds it took.
fn ion_surface_run(backend: &Backend, grid: &Grid, storage: Storage, start: &[C64]) -> (Vec<[f64; 3]>, f64) {
    let params = Params { absorber_width: 4.0, absorber_strength: 0.5, storage, ..Params::default() };
    let mut p = Propagator::with_backend(grid.clone(), params, backend).unwrap();
    let jellium = Surface::Jellium { x_surface: 0.0, depth: 0.574, lambda: 1.0, image_plane: 0.5 };
    let path = Trajectory::new(vec![0.0, 30.0], vec![[3.0, 0.0, 0.0], [6.0, 0.0, 0.0]]).unwrap();
    p.set_analytic_potential(Some(IonPotential::soft_cored_hydrogen()), &jellium, path).unwrap();
    p.set_reference(start).unwrap();
    p.set_wavefunction(start, 0.0).unwrap();
    let t0 = Instant::now();
    let samples = (0..30)
        .map(|_| {
            p.step(200).unwrap();
            [p.population_near_ion(4.0).unwrap(), p.overlap().unwrap().norm_sqr(), p.norm().unwrap()]
        })
        .collect();
    (samples, t0.elapsed().as_secs_f64())
}

/// Item 7: the largest |float − double| of each observable over the trajectory.
fn float_error(backend: &Backend, grid: &Grid) {
    let mut atom = Propagator::with_backend(grid.clone(), Params::default(), backend).unwrap();
    atom.set_analytic_potential(
        Some(IonPotential::soft_cored_hydrogen()),
        &Surface::None,
        Trajectory::fixed([3.0, 0.0, 0.0]),
    )
    .unwrap();
    let mut psi = vec![C64::default(); grid.local_len()];
    for (i, z) in psi.iter_mut().enumerate() {
        let p = grid.position(i / grid.plane_len(), (i / grid.n3) % grid.n2, i % grid.n3);
        let r2 = (p[0] - 3.0).powi(2) + p[1] * p[1] + p[2] * p[2];
        *z = C64::new((-r2 / 2.0).exp(), 0.0);
    }
    atom.set_wavefunction(&psi, 0.0).unwrap();
    let relaxed = atom.relax(200_000, 1e-10).unwrap();
    atom.wavefunction(&mut psi).unwrap();
    let (double, t_double) = ion_surface_run(backend, grid, Storage::ComplexDouble, &psi);
    let (float, t_float) = ion_surface_run(backend, grid, Storage::ComplexFloat, &psi);
    let mut worst = [0.0f64; 3];
    for (d, f) in double.iter().zip(&float) {
        for i in 0..3 {
            worst[i] = worst[i].max((d[i] - f[i]).abs());
        }
    }
    let end = double.last().unwrap();
    emit(format!(
        r#""case":"ion_surface_float_error","points":{:.4e},"steps":6000,"relaxed_energy":{:.8},"population_end":{:.8},"survival_end":{:.8},"norm_end":{:.8},"max_abs_diff_population":{:.3e},"max_abs_diff_survival":{:.3e},"max_abs_diff_norm":{:.3e},"seconds_double":{t_double:.3},"seconds_float":{t_float:.3}"#,
        grid.local_len() as f64,
        relaxed.energy,
        end[0],
        end[1],
        end[2],
        worst[0],
        worst[1],
        worst[2]
    ));
}

fn hydrogen(backend: &Backend, h: f64) {
    let (nx, n_rho) = ((24.0 / h).round() as usize, (12.0 / h).round() as usize);
    let grid = Grid::cylindrical(nx, n_rho, 8, h, h, -(nx as f64 - 1.0) * h / 2.0).unwrap();
    let mut p =
        Propagator::with_backend(grid.clone(), Params { dtau: 0.2 * h * h, ..Params::default() }, backend).unwrap();
    p.set_analytic_potential(Some(IonPotential::hydrogen()), &Surface::None, Trajectory::fixed([0.0; 3])).unwrap();
    let mut psi = vec![C64::default(); grid.local_len()];
    for (i, z) in psi.iter_mut().enumerate() {
        let (k, l, m) = (i / grid.plane_len(), (i / grid.n3) % grid.n2, i % grid.n3);
        let r = grid.position(k, l, m).iter().map(|v| v * v).sum::<f64>().sqrt();
        *z = C64::new((-r * r / 2.0).exp(), 0.0);
    }
    p.set_wavefunction(&psi, 0.0).unwrap();
    let t0 = Instant::now();
    let r = p.relax(400_000, 1e-11).unwrap();
    emit(format!(
        r#""case":"hydrogen_1s","backend":"{}","h":{h},"dtau":{},"energy":{:.9},"error":{:.3e},"steps":{},"converged":{},"seconds":{:.3}"#,
        p.backend_name(),
        0.2 * h * h,
        r.energy,
        r.energy + 0.5,
        r.steps,
        r.converged,
        t0.elapsed().as_secs_f64()
    ));
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let device = backend::cuda_device().ok();
    let gpu = device.clone().map(Backend::Cuda);
    let ceiling = device.as_deref().map_or(0.0, copy_rate);
    if let Some(d) = &device {
        emit(format!(
            r#""case":"device","name":"{}","copy_bytes_per_s":{ceiling:.4e},"ceiling_gpnts_per_s":{:.2},"ceiling_gpnts_per_s_float":{:.2}"#,
            d.name(),
            ceiling / bytes_per_point(Storage::ComplexDouble) / 1e9,
            ceiling / bytes_per_point(Storage::ComplexFloat) / 1e9
        ));
    }
    let cyl = |nx: usize| Grid::cylindrical(nx, 128, 128, 0.2, 0.2, -0.1 * nx as f64).unwrap();
    let cart = |n: usize| Grid::cartesian([n; 3], [0.2; 3], [-0.1 * n as f64; 3]).unwrap();
    let no_cpu = std::env::args().any(|a| a == "--no-cpu");
    let cpu_steps = if no_cpu {
        None
    } else if quick {
        Some(3)
    } else {
        Some(10)
    };
    let scaling_only = std::env::args().any(|a| a == "--scaling-only");
    let float_only = std::env::args().any(|a| a == "--float-only");
    let storages: &[Storage] =
        if float_only { &[Storage::ComplexFloat] } else { &[Storage::ComplexDouble, Storage::ComplexFloat] };
    for &storage in storages {
        if !scaling_only {
            case("cylindrical_paper", &cyl(660), storage, gpu.as_ref(), cpu_steps, ceiling);
            case("cartesian_paper", &cart(252), storage, gpu.as_ref(), cpu_steps, ceiling);
        }
        if gpu.is_some() && !quick && !scaling_only {
            case("cylindrical_1e8", &cyl(6100), storage, gpu.as_ref(), None, ceiling);
            case("cartesian_1e8", &cart(464), storage, gpu.as_ref(), None, ceiling);
            case("cylindrical_1e9", &cyl(61_035), storage, gpu.as_ref(), None, ceiling);
            case("cartesian_1e9", &cart(1000), storage, gpu.as_ref(), None, ceiling);
        }
    }
    if let Some(backend) = gpu.as_ref().filter(|_| !scaling_only && !no_cpu) {
        float_error(backend, &cyl(660));
    }
    let n_gpus = backend::cuda_device_count();
    if gpu.is_some() && n_gpus > 1 {
        scaling(n_gpus, &cyl);
    }
    if scaling_only || float_only || std::env::args().any(|a| a == "--no-hydrogen") {
        return;
    }
    let h_list: &[f64] = if gpu.is_some() { &[0.4, 0.2, 0.1] } else { &[0.4] };
    for &h in h_list {
        hydrogen(gpu.as_ref().unwrap_or(&Backend::Cpu), h);
    }
}
