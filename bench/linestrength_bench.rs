//! Benchmark of the line strengths: the half-linestrength (paper eq. 14) of batches of lower
//! states into the three upper blocks J' = J-1, J, J+1, CPU and CUDA on the same inputs.
//!
//!   cargo build --release --example linestrength_bench
//!   target/release/examples/linestrength_bench OUT_DIR [--quick]
//!
//! Cases (issue 3): Nvib = 7642, J = 70 (d_J = 141 x 7642 = 1.08e6, the AYTY H2CO basis of the
//! paper) and Nvib = 15948 (SO3-sized, dipole 6.1 GB), for batches of 1, 8, 64 and 256 lower
//! states, plus Nvib = 15948 with the dipole streamed in 2 blocks (GAIN's blocking) at batch 64.
//! `--quick` runs Nvib = 600, J = 10 instead (a smoke test).
//!
//! `--degenerate` (issue 13) runs instead: (a) the cost per state-component of a doubly
//! degenerate (E) lower block against a non-degenerate one of the same primitive size, at equal
//! numbers of product columns (E: n levels = 2n columns); (b) the whole J'' = 70 -> J' = 69, 70, 71
//! line list of 256 lower levels into 3 x 300 upper levels: its eq. 14 device work alone
//! (`load_lower_states` + `time_half_linestrength`, batches of 64) against the same list judged by
//! TROVE-like filters on the device and streamed to an ExoMol `.trans` file
//! (`exomol::write_line_list`), and the same list judged without writing it (a sink that only
//! takes the lines). Add `--quick` for Nvib = 600, J = 10.
//!
//! `--overlap` (issue 13) runs instead, on the same J'' = 70 case: (c) lower states kept in host
//! memory (`set_states_on_host`: each batch gathered into a pinned buffer and uploaded on a copy
//! stream while the previous batch computes) against the same states on the device, for the eq. 14
//! loop (`load_lower_states` + `prefetch_lower_states` of the next batch + `time_half_linestrength`)
//! and for the judged line list, beside the unpipelined host path (`load_lower` from a host
//! matrix) and the pinned host-to-device copy rate measured in the same run (the ceiling of any
//! host path); (d) when two or more GPUs are visible, the judged line list of 512 lower levels on
//! one GPU and spread over two (`Options::devices`).
//!
//! `--scaling` (issue 14) runs instead: (e) the judged line list of 1024 lower levels of
//! Nvib = 15948, J'' = 70 (d_J = 2.25e6, 18 MB per level) into J' = 69, 70, 71 (3 x 300 levels)
//! on 1, 2, 4, … visible GPUs, each count beside the one-GPU run of the same call, then every GPU
//! running its own whole list at once. Add `--quick` for Nvib = 600, J = 10, 256 levels.
//!
//! `--trove DIR` (issue 29) runs instead: the line list of a case dumped from a real TROVE run
//! (tests/support/trove_fixture.rs; README "Using atomgpu from TROVE"), written as TROVE's own
//! `.states`/`.trans` pair by `trove::write_line_list` with TROVE's convention, on the CPU (all
//! cores) and on the GPU, each after a warm-up run, timed from the filled handle to the committed
//! files (the handle's set-up, which a TROVE run does while reading its eigenvectors, is timed
//! apart). The two runs' files must be identical, and identical to TROVE's own when the folder
//! holds them. The fraction of the ceiling counts the DGEMM FLOPs of eq. 14 (2 x 3Nvib x Nvib per
//! unfolded lower column and rotational slot) over the GPU time.
//!
//! What is timed, per batch: loading the lower states (scatter of their vectors into X, then
//! Y = [mu_x mu_y mu_z]^T X, one DGEMM of 3Nvib x (141 n) x Nvib) and the contraction into the three
//! upper blocks, synchronised, without downloads (`time_half_linestrength`). Two variants: the
//! lower vectors already stored in the handle (`set_states` once, `load_lower_states`: on the GPU
//! they are device-resident, as a line-list run keeps its states) and the vectors handed over
//! from host memory at every batch (`load_lower`: on the GPU this includes the host-to-device copy
//! of 8 d_J bytes per state). FLOPs counted: the DGEMM,
//! 2 x 3Nvib x Nvib x (2J+1) n; the contraction's at most 6 multiply-adds per upper element are
//! not counted. The ceiling is a plain cuBLAS DGEMM (8192^3) timed in the same run. GPU times are
//! medians of 5 repeats after a warm-up; CPU times are one run after a warm-up, batches 1 and 8
//! only (all cores). GPU/CPU agreement: largest difference of the half-linestrengths of the
//! first batch, relative to the largest value. One JSON line per case, also written to
//! OUT_DIR/linestrength_bench.jsonl.

#[path = "../tests/support/molecule.rs"]
mod molecule;
#[path = "../tests/support/trove_fixture.rs"]
#[allow(dead_code)] // the benchmark reads fixtures by folder only
mod trove_fixture;

use atomgpu::backend::{self, Backend, DeviceSet};
use atomgpu::linestrength::{
    exomol, Action, BlockSpec, Convention, IntensityParams, LineFilters, LineStrength, Options, Unfolding,
};
use cudarc::cublas::sys::cublasOperation_t;
use cudarc::cublas::{CudaBlas, Gemm, GemmConfig};
use molecule::*;
use std::io::Write;
use std::time::Instant;

fn median_seconds(repeats: usize, mut f: impl FnMut()) -> f64 {
    f();
    let mut times: Vec<f64> = (0..repeats)
        .map(|_| {
            let t0 = Instant::now();
            f();
            t0.elapsed().as_secs_f64()
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[repeats / 2]
}

/// Measured cuBLAS DGEMM rate (TFLOP/s) on 8192^3, the device's FP64 ceiling for this benchmark.
fn dgemm_ceiling(device: &atomgpu::backend::CudaDevice) -> f64 {
    let n = 8192usize;
    let blas = CudaBlas::new(device.stream().clone()).expect("cuBLAS");
    let a = device.upload(&vec![1.0f64; n * n]).unwrap();
    let b = device.upload(&vec![0.5f64; n * n]).unwrap();
    let mut c = device.zeros::<f64>(n * n).unwrap();
    let cfg = GemmConfig {
        transa: cublasOperation_t::CUBLAS_OP_N,
        transb: cublasOperation_t::CUBLAS_OP_N,
        m: n as i32,
        n: n as i32,
        k: n as i32,
        alpha: 1.0f64,
        lda: n as i32,
        ldb: n as i32,
        beta: 0.0,
        ldc: n as i32,
    };
    let seconds = median_seconds(5, || {
        unsafe { blas.gemm(cfg, &a, &b, &mut c) }.unwrap();
        device.synchronize().unwrap();
    });
    2.0 * (n as f64).powi(3) / seconds / 1e12
}

struct Case {
    n_vib: usize,
    j: u32,
    batches: &'static [usize],
    cpu_batches: &'static [usize],
    /// Dipole blocks to force on the GPU (1 = resident).
    forced_blocks: usize,
}

/// Handle with the lower block J (0) and upper blocks J-1, J, J+1 (1, 2, 3), full Wang sets.
fn make_handle(backend: Backend, n_vib: usize, j: u32, dipole: &[f64], blocks: usize) -> LineStrength {
    let bytes = (dipole.len() * 8) as u64;
    let max_device_bytes = if blocks > 1 { bytes / blocks as u64 + 1 } else { 0 };
    let mut h = LineStrength::new_on(backend, n_vib, dipole, n_vib, Options { max_device_bytes }).unwrap();
    for jj in [j, j - 1, j, j + 1] {
        h.add_block(&full_block(jj, n_vib).spec()).unwrap();
    }
    h
}

/// Loads the first `n` lower states: stored in the handle, or copied from `vectors` (host).
fn load(h: &mut LineStrength, n: usize, stored: bool, vectors: &[f64], d_j: usize) {
    if stored {
        h.load_lower_states(0, &(0..n).collect::<Vec<_>>(), 0.0).unwrap();
    } else {
        h.load_lower(0, n, vectors, d_j, 0.0).unwrap();
    }
}

fn half_into_all(h: &mut LineStrength) {
    for upper in 1..=3 {
        h.time_half_linestrength(upper, 0.0).unwrap();
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let out_dir = args.get(1).cloned().unwrap_or_else(|| "out".into());
    let quick = args.iter().any(|a| a == "--quick");
    let degenerate = args.iter().any(|a| a == "--degenerate");
    let overlap = args.iter().any(|a| a == "--overlap");
    let scaling = args.iter().any(|a| a == "--scaling");
    std::fs::create_dir_all(&out_dir).unwrap();
    let mut jsonl = std::fs::File::create(format!("{out_dir}/linestrength_bench.jsonl")).unwrap();
    let mut emit = |line: String| {
        println!("{line}");
        writeln!(jsonl, "{line}").unwrap();
    };

    let device = backend::cuda_device().ok();
    let ceiling = device.as_ref().map(|d| dgemm_ceiling(d));
    if let (Some(d), Some(c)) = (&device, ceiling) {
        emit(format!(r#"{{"routine":"cublas_dgemm_8192","device":"{}","tflops":{c:.2}}}"#, d.name()));
    }
    if let Some(at) = args.iter().position(|a| a == "--trove") {
        let dir = std::path::PathBuf::from(args.get(at + 1).expect("--trove DIR"));
        return trove_case(&dir, &out_dir, ceiling, &mut emit);
    }
    if scaling {
        if device.is_none() {
            eprintln!("no CUDA device: the scaling case needs one");
            return;
        }
        let (n_vib, j, n_lower) = if quick { (600, 10, 256) } else { (15948, 70, 1024) };
        return scaling_cases(n_vib, j, n_lower, ceiling.unwrap_or(f64::NAN), &mut emit);
    }
    if degenerate || overlap {
        let Some(d) = &device else {
            eprintln!("no CUDA device: the degenerate and overlap cases need one");
            return;
        };
        let (n_vib, j) = if quick { (600, 10) } else { (7642, 70) };
        if degenerate {
            degenerate_cases(d, n_vib, j, ceiling.unwrap_or(f64::NAN), &out_dir, &mut emit);
        } else {
            overlap_cases(d, n_vib, j, &mut emit);
        }
        return;
    }
    let cases: Vec<Case> = if quick {
        vec![Case { n_vib: 600, j: 10, batches: &[1, 8, 64], cpu_batches: &[1, 8], forced_blocks: 1 }]
    } else {
        vec![
            Case { n_vib: 7642, j: 70, batches: &[1, 8, 64, 256], cpu_batches: &[1, 8], forced_blocks: 1 },
            Case { n_vib: 15948, j: 70, batches: &[1, 8, 64, 256], cpu_batches: &[1], forced_blocks: 1 },
            Case { n_vib: 15948, j: 70, batches: &[64], cpu_batches: &[], forced_blocks: 2 },
        ]
    };
    for case in cases {
        let (n_vib, j) = (case.n_vib, case.j);
        let mut rng = Rng::new(7 + n_vib as u64);
        let dipole = random_dipole(&mut rng, n_vib);
        let lower = full_block(j, n_vib);
        let d_j = lower.len();
        let max_batch = *case.batches.iter().max().unwrap();
        let vectors = random_values(&mut rng, d_j * max_batch);
        let flops_per_state = 2.0 * (3 * n_vib) as f64 * n_vib as f64 * (2 * j + 1) as f64;
        let dipole_gb = (dipole.len() * 8) as f64 / 1e9;

        // CPU reference (and the half-linestrengths the GPU is compared with).
        let energies: Vec<f64> = (0..max_batch).map(|s| s as f64).collect();
        let mut cpu = make_handle(Backend::Cpu, n_vib, j, &dipole, 1);
        if let Some(&most) = case.cpu_batches.iter().max() {
            cpu.set_states(0, &energies[..most], &vectors, d_j).unwrap();
        }
        let mut reference = Vec::new();
        for &n in case.cpu_batches {
            load(&mut cpu, n, true, &vectors, d_j);
            half_into_all(&mut cpu);
            let t0 = Instant::now();
            load(&mut cpu, n, true, &vectors, d_j);
            half_into_all(&mut cpu);
            let seconds = t0.elapsed().as_secs_f64();
            if reference.is_empty() {
                let rows = full_block(j + 1, n_vib).len();
                reference = vec![0.0; rows * n];
                cpu.half_linestrength(3, 0.0, &mut reference, rows).unwrap();
            }
            emit(format!(
                r#"{{"routine":"half_linestrength","backend":"cpu","threads":{},"n_vib":{n_vib},"J":{j},"d_J":{d_j},"batch":{n},"seconds":{seconds:.6e},"ms_per_lower_state":{:.4},"gflops":{:.1}}}"#,
                rayon::current_num_threads(),
                1e3 * seconds / n as f64,
                flops_per_state * n as f64 / seconds / 1e9
            ));
        }
        drop(cpu);

        let Some(d) = &device else {
            eprintln!("no CUDA device: GPU cases skipped");
            continue;
        };
        let mut gpu = make_handle(Backend::Cuda(d.clone()), n_vib, j, &dipole, case.forced_blocks);
        gpu.set_states(0, &energies, &vectors, d_j).unwrap();
        for (n, stored) in case.batches.iter().flat_map(|&n| [(n, true), (n, false)]) {
            let seconds = median_seconds(5, || {
                load(&mut gpu, n, stored, &vectors, d_j);
                half_into_all(&mut gpu);
            });
            let mut agreement = String::from("null");
            if !reference.is_empty() && n == case.cpu_batches[0] && stored {
                let rows = full_block(j + 1, n_vib).len();
                let mut half = vec![0.0; rows * n];
                gpu.load_lower(0, n, &vectors, d_j, 0.0).unwrap();
                gpu.half_linestrength(3, 0.0, &mut half, rows).unwrap();
                agreement = format!("{:.2e}", relative_difference(&half, &reference));
            }
            let tflops = flops_per_state * n as f64 / seconds / 1e12;
            emit(format!(
                r#"{{"routine":"half_linestrength","backend":"cuda","device":"{}","n_vib":{n_vib},"J":{j},"d_J":{d_j},"dipole_gb":{dipole_gb:.2},"dipole_blocks":{},"lower_vectors":"{}","batch":{n},"seconds":{seconds:.6e},"ms_per_lower_state":{:.4},"tflops":{tflops:.2},"fraction_of_dgemm":{:.3},"max_rel_diff_vs_cpu":{agreement}}}"#,
                d.name(),
                gpu.dipole_blocks(),
                if stored { "device" } else { "host" },
                1e3 * seconds / n as f64,
                tflops / ceiling.unwrap_or(f64::NAN)
            ));
        }
    }
}

/// An E-species unfolding of a full block of `n_primitive` functions: n_sym = n_primitive / 2,
/// component 0 = (p_2s + p_2s+1)/sqrt(2), component 1 = (p_2s - p_2s+1)/sqrt(2) (two entries per
/// symmetrised function and component, as a real E pair of a C3v molecule has); stacked CSR.
fn e_unfolding(n_primitive: usize) -> (usize, Vec<i64>, Vec<i64>, Vec<f64>) {
    let n_sym = n_primitive / 2;
    let h = std::f64::consts::FRAC_1_SQRT_2;
    let (mut start, mut col, mut value) = (vec![0i64], vec![], vec![]);
    for d in 0..2 {
        for p in 0..n_primitive {
            let s = p / 2;
            if s < n_sym {
                col.push(s as i64);
                value.push(if d == 1 && p % 2 == 1 { -h } else { h });
            }
            start.push(col.len() as i64);
        }
    }
    (n_sym, start, col, value)
}

fn degenerate_cases(
    d: &std::sync::Arc<atomgpu::backend::CudaDevice>,
    n_vib: usize,
    j: u32,
    ceiling: f64,
    out_dir: &str,
    emit: &mut impl FnMut(String),
) {
    let mut rng = Rng::new(11 + n_vib as u64);
    let dipole = random_dipole(&mut rng, n_vib);
    let flops_per_column = 2.0 * (3 * n_vib) as f64 * n_vib as f64 * (2 * j + 1) as f64;
    let backend = Backend::Cuda(d.clone());

    // (a) Cost per product column: non-degenerate lower block vs an E block of the same size.
    let lower = full_block(j, n_vib);
    let p = lower.len();
    let (n_sym, start, col, value) = e_unfolding(p);
    let e_spec = BlockSpec {
        unfolding: Some(Unfolding { ndeg: 2, n_sym, row_start: &start, col: &col, value: &value }),
        ..lower.spec()
    };
    let mut h = LineStrength::new_on(backend.clone(), n_vib, &dipole, n_vib, Options::default()).unwrap();
    h.add_block(&lower.spec()).unwrap();
    h.add_block(&e_spec).unwrap();
    for jj in [j - 1, j, j + 1] {
        h.add_block(&full_block(jj, n_vib).spec()).unwrap();
    }
    let max_levels = 256;
    let vectors = random_values(&mut rng, p * max_levels);
    let energies: Vec<f64> = (0..max_levels).map(|s| s as f64).collect();
    h.set_states(0, &energies, &vectors, p).unwrap();
    h.set_states(1, &energies, &vectors, n_sym).unwrap();
    for columns in [64usize, 128, 256] {
        for (block, ndeg) in [(0usize, 1usize), (1, 2)] {
            let levels: Vec<usize> = (0..columns / ndeg).collect();
            let seconds = median_seconds(5, || {
                h.load_lower_states(block, &levels, 0.0).unwrap();
                for upper in 2..=4 {
                    h.time_half_linestrength(upper, 0.0).unwrap();
                }
            });
            let tflops = flops_per_column * columns as f64 / seconds / 1e12;
            emit(format!(
                r#"{{"routine":"half_linestrength_degenerate","device":"{}","n_vib":{n_vib},"J":{j},"ndeg":{ndeg},"levels":{},"columns":{columns},"seconds":{seconds:.6e},"ms_per_level":{:.4},"ms_per_column":{:.4},"tflops":{tflops:.2},"fraction_of_dgemm":{:.3}}}"#,
                d.name(),
                levels.len(),
                1e3 * seconds / levels.len() as f64,
                1e3 * seconds / columns as f64,
                tflops / ceiling
            ));
        }
    }
    drop(h);

    // (b) A whole J'' -> J' line list: eq. 14 device work vs filtered streaming to .trans.
    let n_lower = 256;
    let n_upper = 300;
    let mut h = LineStrength::new_on(backend, n_vib, &dipole, n_vib, Options::default()).unwrap();
    h.add_block(&lower.spec()).unwrap();
    let lower_energies: Vec<f64> = (0..n_lower).map(|_| rng.uniform(0.0, 3000.0)).collect();
    h.set_states(0, &lower_energies, &vectors, p).unwrap();
    let upper_size = full_block(j + 1, n_vib).len();
    let upper_vectors = random_values(&mut rng, upper_size * n_upper);
    // The upper blocks are species 1, the lower block species 0, and gamma_pair = [1, 2] lets
    // species 0 reach species 1 only (species 1 reaches none): the streamed list is exactly the
    // J'' = 70 -> J' list, as the eq. 14 loop computes it.
    for jj in [j - 1, j, j + 1] {
        let block = full_block(jj, n_vib);
        let id = h.add_block(&BlockSpec { gamma: 1, ..block.spec() }).unwrap();
        let energies: Vec<f64> = (0..n_upper).map(|_| rng.uniform(2000.0, 9000.0)).collect();
        h.set_states(id, &energies, &upper_vectors, block.len()).unwrap();
    }
    let batch = 64;
    let all: Vec<usize> = (0..n_lower).collect();
    let device_seconds = median_seconds(3, || {
        for chunk in all.chunks(batch) {
            h.load_lower_states(0, chunk, 0.0).unwrap();
            for upper in 1..=3 {
                h.time_half_linestrength(upper, 0.0).unwrap();
            }
        }
    });
    let params = list_params(batch);
    let only_70 = LineFilters { gamma_pair: Some(vec![1, 2]), ..LineFilters::default() };
    let stem = std::path::Path::new(out_dir).join("bench_linelist");
    let mut counts = Default::default();
    let stream_seconds = median_seconds(3, || {
        counts = exomol::write_line_list(&mut h, &stem, &params, &only_70).unwrap();
    });
    let judged_seconds = median_seconds(3, || {
        h.line_list_stream(&params, &only_70, &mut |_| Ok(())).unwrap();
    });
    let trans_bytes = std::fs::metadata(stem.with_extension("trans")).map(|m| m.len()).unwrap_or(0);
    emit(format!(
        r#"{{"routine":"line_list_streamed","device":"{}","n_vib":{n_vib},"J":{j},"lower_levels":{n_lower},"upper_levels":"3 x {n_upper}","batch":{batch},"eq14_device_seconds":{device_seconds:.6e},"judged_seconds":{judged_seconds:.6e},"streamed_seconds":{stream_seconds:.6e},"ratio":{:.3},"ms_per_lower_level_eq14":{:.4},"ms_per_lower_level_streamed":{:.4},"pairs":{},"dropped_by_rules":{},"dropped_by_windows":{},"dropped_by_thresholds":{},"kept":{},"trans_bytes":{trans_bytes}}}"#,
        d.name(),
        stream_seconds / device_seconds,
        1e3 * device_seconds / n_lower as f64,
        1e3 * stream_seconds / n_lower as f64,
        counts.pairs,
        counts.dropped_by_rules,
        counts.dropped_by_windows,
        counts.dropped_by_thresholds,
        counts.kept
    ));
}

/// Pinned host-to-device copy rate in GB/s (512 MiB, median of 5 after a warm-up).
fn pinned_upload_rate(d: &atomgpu::backend::CudaDevice) -> f64 {
    let len = 64 << 20;
    let mut host = d.alloc_pinned::<f64>(len).unwrap();
    host.as_mut_slice().unwrap().fill(1.0);
    let mut device = d.zeros::<f64>(len).unwrap();
    let seconds = median_seconds(5, || {
        d.stream().memcpy_htod(&host, &mut device).unwrap();
        d.synchronize().unwrap();
    });
    (len * 8) as f64 / seconds / 1e9
}

/// The J'' = j line list of the overlap cases: `n_lower` random lower levels and three blocks of
/// upper levels (J' = j-1, j, j+1: energies and vectors).
struct OverlapModel {
    n_vib: usize,
    j: u32,
    dipole: Vec<f64>,
    lower_energies: Vec<f64>,
    lower_vectors: Vec<f64>,
    upper: Vec<(Vec<f64>, Vec<f64>)>,
}

impl OverlapModel {
    /// Its handle: blocks 0 (lower, states on the device) and 1 (the same lower states, kept on the
    /// host; without `host_held`, no states), species 0; blocks 2-4: J' = j-1, j, j+1, species 1,
    /// states on the device. `gamma_pair = [1, 2]` then lets the lower blocks reach the upper ones only.
    fn handle(&self, backend: Backend, devices: usize, host_held: bool) -> LineStrength {
        let engines = DeviceSet::count(backend, devices.max(1)).unwrap();
        let mut h =
            LineStrength::new_on_devices(&engines, self.n_vib, &self.dipole, self.n_vib, Options::default()).unwrap();
        let lower = full_block(self.j, self.n_vib);
        h.add_block(&lower.spec()).unwrap();
        h.add_block(&lower.spec()).unwrap();
        h.set_states(0, &self.lower_energies, &self.lower_vectors, lower.len()).unwrap();
        if host_held {
            h.set_states_on_host(1, &self.lower_energies, &self.lower_vectors, lower.len()).unwrap();
        }
        for (jj, (energies, vectors)) in [self.j - 1, self.j, self.j + 1].into_iter().zip(&self.upper) {
            let block = full_block(jj, self.n_vib);
            let id = h.add_block(&BlockSpec { gamma: 1, ..block.spec() }).unwrap();
            h.set_states(id, energies, vectors, block.len()).unwrap();
        }
        h
    }
}

fn overlap_cases(
    d: &std::sync::Arc<atomgpu::backend::CudaDevice>,
    n_vib: usize,
    j: u32,
    emit: &mut impl FnMut(String),
) {
    let mut rng = Rng::new(13 + n_vib as u64);
    let p = full_block(j, n_vib).len();
    let (n_lower, n_upper, batch) = (512usize, 300usize, 64usize);
    let dipole = random_dipole(&mut rng, n_vib);
    let lower_vectors = random_values(&mut rng, p * n_lower);
    let lower_energies: Vec<f64> = (0..n_lower).map(|_| rng.uniform(0.0, 3000.0)).collect();
    let upper: Vec<(Vec<f64>, Vec<f64>)> = [j - 1, j, j + 1]
        .iter()
        .map(|&jj| {
            let size = full_block(jj, n_vib).len();
            let energies = (0..n_upper).map(|_| rng.uniform(2000.0, 9000.0)).collect();
            (energies, random_values(&mut rng, size * n_upper))
        })
        .collect();
    let model = OverlapModel { n_vib, j, dipole, lower_energies, lower_vectors, upper };
    let params = list_params(batch);
    let only_j = LineFilters { gamma_pair: Some(vec![1, 2]), ..LineFilters::default() };
    let copy_rate = pinned_upload_rate(d);
    let mut h = model.handle(Backend::Cuda(d.clone()), 1, true);

    // (c) eq. 14 for 256 lower levels, and the judged list of all 512, host-held vs on the device.
    let levels: Vec<usize> = (0..256).collect();
    let chunks: Vec<&[usize]> = levels.chunks(batch).collect();
    let eq14 = |h: &mut LineStrength, block: usize| {
        median_seconds(3, || {
            for (k, chunk) in chunks.iter().enumerate() {
                h.load_lower_states(block, chunk, 0.0).unwrap();
                if let Some(next) = chunks.get(k + 1) {
                    h.prefetch_lower_states(block, next).unwrap();
                }
                for upper in 2..=4 {
                    h.time_half_linestrength(upper, 0.0).unwrap();
                }
            }
        })
    };
    let (eq14_device, eq14_host) = (eq14(&mut h, 0), eq14(&mut h, 1));
    let eq14_unpipelined = median_seconds(3, || {
        for chunk in &chunks {
            h.load_lower(0, chunk.len(), &model.lower_vectors[chunk[0] * p..], p, 0.0).unwrap();
            for upper in 2..=4 {
                h.time_half_linestrength(upper, 0.0).unwrap();
            }
        }
    });
    let judged = |h: &mut LineStrength, block: usize| {
        let mut kept = 0;
        let seconds = median_seconds(3, || {
            kept = h.line_list_filtered(block, &[2, 3, 4], &params, &only_j).unwrap().counts.kept;
        });
        (seconds, kept)
    };
    let ((list_device, kept_device), (list_host, kept_host)) = (judged(&mut h, 0), judged(&mut h, 1));
    let ms = |s: f64, levels: usize| 1e3 * s / levels as f64;
    emit(format!(
        r#"{{"routine":"host_held_lower_states","device":"{}","n_vib":{n_vib},"J":{j},"d_J":{p},"eq14_lower_levels":256,"list_lower_levels":{n_lower},"batch":{batch},"pinned_upload_gb_per_s":{copy_rate:.1},"upload_ms_per_level_at_that_rate":{:.4},"eq14_ms_per_level_device":{:.4},"eq14_ms_per_level_host_held":{:.4},"eq14_ms_per_level_load_lower_unpipelined":{:.4},"eq14_host_over_device":{:.3},"list_ms_per_level_device":{:.4},"list_ms_per_level_host_held":{:.4},"list_host_over_device":{:.3},"kept":[{kept_device},{kept_host}]}}"#,
        d.name(),
        1e3 * (p * 8) as f64 / (copy_rate * 1e9),
        ms(eq14_device, 256),
        ms(eq14_host, 256),
        ms(eq14_unpipelined, 256),
        eq14_host / eq14_device,
        ms(list_device, n_lower),
        ms(list_host, n_lower),
        list_host / list_device,
    ));
    drop(h);

    // (d) Several GPUs: the judged list of all 512 lower levels, one GPU against n.
    let visible = atomgpu::backend::cuda_device_count();
    if visible < 2 {
        eprintln!("one GPU visible: the several-GPU case is skipped");
        return;
    }
    let (t1, k1) = (list_device, kept_device);
    let mut many = model.handle(Backend::Cuda(d.clone()), visible, true);
    let (tn, kn) = judged(&mut many, 0);
    drop(many);
    // What the hardware allows: the same one-GPU list on GPU 1 alone, and on every GPU at once
    // (independent handles, one thread each: the time of the slowest).
    let handles: Vec<LineStrength> =
        (0..visible).map(|g| model.handle(Backend::Cuda(backend::cuda_device_at(g).unwrap()), 1, true)).collect();
    let mut handles = handles;
    let (gpu1_alone, _) = judged(&mut handles[1], 0);
    let all_at_once = median_seconds(3, || {
        std::thread::scope(|scope| {
            for h in handles.iter_mut() {
                scope.spawn(|| judged_once(h, &params, &only_j));
            }
        });
    });
    drop(handles);
    emit(format!(
        r#"{{"routine":"line_list_several_gpus","device":"{}","gpus":{visible},"n_vib":{n_vib},"J":{j},"lower_levels":{n_lower},"upper_levels":"3 x {n_upper}","batch":{batch},"one_gpu_seconds":{t1:.6e},"several_gpus_seconds":{tn:.6e},"speedup":{:.3},"ms_per_lower_level":[{:.4},{:.4}],"kept":[{k1},{kn}],"gpu1_alone_seconds":{gpu1_alone:.6e},"every_gpu_its_own_list_seconds":{all_at_once:.6e}}}"#,
        d.name(),
        t1 / tn,
        1e3 * t1 / n_lower as f64,
        1e3 * tn / n_lower as f64,
    ));
}

/// `n` random values in [-1, 1), made on all cores (chunks of 2^20 with their own seeds).
fn random_values_parallel(seed: u64, n: usize) -> Vec<f64> {
    use rayon::prelude::*;
    let mut v = vec![0.0; n];
    v.par_chunks_mut(1 << 20).enumerate().for_each(|(c, chunk)| {
        let mut rng = Rng::new(seed.wrapping_mul(1_000_003).wrapping_add(c as u64));
        chunk.iter_mut().for_each(|x| *x = rng.uniform(-1.0, 1.0));
    });
    v
}

/// (e) `--scaling` (issue 14): the judged J'' = j line list of `n_lower` random lower levels into
/// three blocks of 300 upper levels (the model of the overlap cases, lower states on the device),
/// batches of 64, on 1, 2, 4, … visible GPUs (`Options::devices`), every count in this run beside
/// the one-GPU time; median of 3 after a warm-up. Then every GPU running its own one-GPU list at
/// the same time (the slowest), what the hardware allows without any sharing of work.
/// Fraction of the DGEMM ceiling (`ceiling`, TFLOP/s of one GPU, times the count): the eq. 14
/// DGEMM's 2 x 3Nvib x Nvib x (2J+1) FLOPs per lower level, over the whole list's time.
/// `handle_seconds`: the making of each count's handle (the dipole matrix, five blocks and the
/// states of four, 41 GB at Nvib = 15948, checked and copied to every GPU of the handle).
fn scaling_cases(n_vib: usize, j: u32, n_lower: usize, ceiling: f64, emit: &mut impl FnMut(String)) {
    let mut rng = Rng::new(17 + n_vib as u64);
    let p = full_block(j, n_vib).len();
    let (n_upper, batch) = (300usize, 64usize);
    let dipole = random_dipole(&mut rng, n_vib);
    let lower_energies: Vec<f64> = (0..n_lower).map(|_| rng.uniform(0.0, 3000.0)).collect();
    let upper = [j - 1, j, j + 1]
        .iter()
        .enumerate()
        .map(|(k, &jj)| {
            let size = full_block(jj, n_vib).len();
            let energies = (0..n_upper).map(|_| rng.uniform(2000.0, 9000.0)).collect();
            (energies, random_values_parallel(100 + k as u64, size * n_upper))
        })
        .collect();
    let lower_vectors = random_values_parallel(99, p * n_lower);
    let model = OverlapModel { n_vib, j, dipole, lower_energies, lower_vectors, upper };
    let params = list_params(batch);
    let only_j = LineFilters { gamma_pair: Some(vec![1, 2]), ..LineFilters::default() };
    let visible = backend::cuda_device_count();
    let mut counts: Vec<usize> =
        std::iter::successors(Some(1usize), |c| Some(2 * c)).take_while(|&c| c <= visible).collect();
    if *counts.last().unwrap() != visible {
        counts.push(visible);
    }
    let first = backend::cuda_device().unwrap();
    let mut one = None;
    for count in counts {
        let t0 = Instant::now();
        let mut h = model.handle(Backend::Cuda(first.clone()), count, false);
        let handle_seconds = t0.elapsed().as_secs_f64();
        let mut kept = 0;
        let seconds = median_seconds(3, || {
            kept = h.line_list_filtered(0, &[2, 3, 4], &params, &only_j).unwrap().counts.kept;
        });
        let (t1, k1) = *one.get_or_insert((seconds, kept));
        emit(format!(
            r#"{{"routine":"line_list_scaling","device":"{}","gpus":{count},"n_vib":{n_vib},"J":{j},"d_J":{p},"lower_levels":{n_lower},"upper_levels":"3 x {n_upper}","batch":{batch},"seconds":{seconds:.6e},"ms_per_lower_level":{:.4},"one_gpu_seconds":{t1:.6e},"speedup":{:.3},"fraction_of_dgemm":{:.3},"kept":{kept},"kept_one_gpu":{k1},"handle_seconds":{handle_seconds:.2}}}"#,
            first.name(),
            1e3 * seconds / n_lower as f64,
            t1 / seconds,
            2.0 * 3.0 * (n_vib * p * n_lower) as f64 / seconds / 1e12 / (ceiling * count as f64),
        ));
    }
    if visible < 2 {
        return;
    }
    let mut handles: Vec<LineStrength> =
        (0..visible).map(|g| model.handle(Backend::Cuda(backend::cuda_device_at(g).unwrap()), 1, false)).collect();
    let all_at_once = median_seconds(3, || {
        std::thread::scope(|scope| {
            for h in handles.iter_mut() {
                scope.spawn(|| judged_once(h, &params, &only_j));
            }
        });
    });
    emit(format!(
        r#"{{"routine":"line_list_every_gpu_its_own","gpus":{visible},"n_vib":{n_vib},"J":{j},"lower_levels":{n_lower},"seconds_slowest":{all_at_once:.6e},"ms_per_lower_level_per_gpu":{:.4}}}"#,
        1e3 * all_at_once / n_lower as f64
    ));
}

/// One judged line list of lower block 0 into blocks 2-4 (its lines dropped).
fn judged_once(h: &mut LineStrength, params: &IntensityParams, filters: &LineFilters) {
    h.line_list_filtered(0, &[2, 3, 4], params, filters).unwrap();
}

/// The windows and threshold of the J'' = 70 line lists (TROVE-like: E'' - ZPE <= 2500 cm^-1,
/// nu <= 8000 cm^-1, THRESH_INTES = 1e-30), T = 296 K, Q = 1000.
fn list_params(batch: usize) -> IntensityParams {
    IntensityParams {
        temperature: 296.0,
        partition_function: 1000.0,
        zpe: 0.0,
        freq_window: [0.0, 8000.0],
        lower_energy: [0.0, 2500.0],
        upper_energy: [0.0, 8500.0],
        thresh_coeff: 0.0,
        thresh_line: 0.0,
        thresh_intens: 1e-30,
        batch,
        convention: Convention::Documented,
        action: Action::Absorption,
    }
}

/// The `--trove DIR` case of the module documentation.
fn trove_case(dir: &std::path::Path, out_dir: &str, ceiling: Option<f64>, emit: &mut impl FnMut(String)) {
    use atomgpu::linestrength::trove;
    let f = trove_fixture::Fixture::read_dir(dir);
    let (params, filters) = f.options();
    let columns = f.columns();
    let table = f.states_table(&columns);
    let mut backends = vec![("cpu", Backend::Cpu)];
    if let Some(gpu) = backend::current().ok().filter(|b| matches!(b, Backend::Cuda(_))) {
        backends.push(("cuda", gpu));
    }
    let flops: f64 = f
        .blocks
        .iter()
        .map(|b| {
            let slots: std::collections::BTreeSet<(i64, i64)> =
                b.k.iter().zip(&b.ktau).map(|(&k, &t)| (k, t % 2)).collect();
            2.0 * 3.0 * (f.n_vib * f.n_vib) as f64 * slots.len() as f64 * (b.ndeg * b.energies.len()) as f64
        })
        .sum();
    let mut files = Vec::new();
    for (name, backend) in backends {
        let t0 = Instant::now();
        let mut h = f.handle(backend);
        let setup = t0.elapsed().as_secs_f64();
        let stem = std::path::Path::new(out_dir).join(format!("trove_{name}"));
        trove::write_line_list(&mut h, &stem, &table, &params, &filters).unwrap();
        let t0 = Instant::now();
        let counts = trove::write_line_list(&mut h, &stem, &table, &params, &filters).unwrap();
        let seconds = t0.elapsed().as_secs_f64();
        let fraction = match (name, ceiling) {
            ("cuda", Some(c)) => flops / seconds / 1e12 / c,
            _ => f64::NAN,
        };
        emit(format!(
            r#"{{"routine":"trove_line_list","case":"{}","backend":"{name}","n_vib":{},"blocks":{},"lines":{},"pairs":{},"setup_s":{setup:.3},"seconds":{seconds:.4},"eq14_tflop":{:.3},"fraction_of_dgemm":{fraction:.3}}}"#,
            dir.display(),
            f.n_vib,
            f.blocks.len(),
            counts.kept,
            counts.pairs,
            flops / 1e12
        ));
        let text = |suffix: &str| std::fs::read_to_string(stem.with_extension(suffix)).unwrap();
        files.push((text("states"), text("trans")));
    }
    let same_backends = files.windows(2).all(|w| w[0] == w[1]);
    let same_as_trove = std::fs::read_dir(dir)
        .unwrap()
        .any(|e| e.unwrap().file_name().to_string_lossy().ends_with(".trans"))
        .then(|| files[0] == (f.text(&f.trove_file(".states")), f.text(&f.trove_file(".trans"))));
    emit(format!(
        r#"{{"routine":"trove_files_agree","cpu_equals_gpu":{same_backends},"equal_to_trove":{}}}"#,
        same_as_trove.map_or("null".to_string(), |b| b.to_string())
    ));
}
