//! The CUDA path of the line strengths computes the same function as the CPU reference:
//! half-linestrengths and amplitudes agree to relative 1e-12 (of the largest value) on random
//! inputs, at sizes that are not multiples of any tile (Nvib = 37, 61, 130), with primitive and
//! symmetrised (unfolded) vectors, coefficient thresholds, and a dipole matrix streamed in blocks
//! (max_device_bytes below its size); line lists agree line by line.
//!
//! Without a CUDA device the test prints `skipped: no CUDA device` and passes, unless
//! `ATOMGPU_REQUIRE_GPU=1` (set on the device machine), where it fails.

#[path = "support/molecule.rs"]
mod molecule;

#[path = "support/gpu.rs"]
mod gpu;

#[path = "support/rotsym.rs"]
mod rotsym;

use atomgpu::backend::{Backend, DeviceSet};
use atomgpu::linestrength::{Action, Convention, IntensityParams, LineStrength, Options};
use molecule::*;

const TOLERANCE: f64 = 1e-12;

/// A handle on `backend` holding `blocks` (labels, energies, state vectors), in order.
fn handle(
    backend: Backend,
    n_vib: usize,
    dipole: &[f64],
    vectors: &[(Labels, Vec<f64>, Vec<f64>)],
    max_bytes: u64,
) -> LineStrength {
    let mut h = LineStrength::new_on(backend, n_vib, dipole, n_vib, Options { max_device_bytes: max_bytes }).unwrap();
    for (labels, energies, states) in vectors {
        let id = h.add_block(&labels.spec()).unwrap();
        h.set_states(id, energies, states, labels.len()).unwrap();
    }
    h
}

#[test]
fn gpu_equals_cpu() {
    let Some(gpu) = gpu::cuda_device().map(Backend::Cuda) else { return };
    let mut rng = Rng::new(21);
    for (n_vib, j, n_lower, thresh, streamed) in
        [(37usize, 3u32, 5usize, 0.0, false), (61, 5, 33, 0.2, false), (130, 2, 7, 0.0, true), (37, 1, 1, 0.0, true)]
    {
        let dipole = random_dipole(&mut rng, n_vib);
        let blocks: Vec<(Labels, Vec<f64>, Vec<f64>)> = (j - 1..=j + 1)
            .map(|jj| {
                let l = full_block(jj, n_vib);
                let n_states = 9 + jj as usize;
                let energies: Vec<f64> = (0..n_states).map(|s| 1000.0 * jj as f64 + 37.0 * s as f64).collect();
                let states = random_values(&mut rng, l.len() * n_states);
                (l, energies, states)
            })
            .collect();
        let bytes = (n_vib * n_vib * 3 * 8) as u64;
        let max_bytes = if streamed { bytes / 3 } else { 0 };
        let mut on_gpu = handle(gpu.clone(), n_vib, &dipole, &blocks, max_bytes);
        let mut on_cpu = handle(Backend::Cpu, n_vib, &dipole, &blocks, 0);
        assert_eq!(on_gpu.backend_name(), "cuda");
        if streamed {
            assert!(on_gpu.dipole_blocks() > 1, "the dipole should be streamed in blocks");
        }
        let lower = &blocks[1].0;
        let vectors = random_values(&mut rng, lower.len() * n_lower);
        on_gpu.load_lower(1, n_lower, &vectors, lower.len(), thresh).unwrap();
        on_cpu.load_lower(1, n_lower, &vectors, lower.len(), thresh).unwrap();
        for (upper, (labels, _, _)) in blocks.iter().enumerate().take(3) {
            let rows = labels.len();
            let (mut hg, mut hc) = (vec![0.0; rows * n_lower], vec![0.0; rows * n_lower]);
            on_gpu.half_linestrength(upper, thresh, &mut hg, rows).unwrap();
            on_cpu.half_linestrength(upper, thresh, &mut hc, rows).unwrap();
            let d = relative_difference(&hg, &hc);
            println!("Nvib={n_vib} J={j} n={n_lower} thresh={thresh} streamed={streamed} upper={upper}: half {d:e}");
            assert!(d < TOLERANCE, "half-linestrength differs by {d:e}");
            assert!(max_abs(&hc) > 0.0);
            let (ag, ac) = (on_gpu.amplitudes(upper, thresh).unwrap(), on_cpu.amplitudes(upper, thresh).unwrap());
            let d = relative_difference(&ag, &ac);
            assert!(d < TOLERANCE, "amplitudes differ by {d:e}");
        }
        let params = IntensityParams {
            temperature: 500.0,
            partition_function: 40.0,
            zpe: 0.0,
            freq_window: [0.0, 1e5],
            lower_energy: [0.0, 1e5],
            upper_energy: [0.0, 1e5],
            thresh_coeff: thresh,
            thresh_line: 0.0,
            thresh_intens: 0.0,
            batch: 4,
            convention: Convention::Documented,
            action: Action::Absorption,
        };
        let (lg, lc) =
            (on_gpu.line_list(1, &[0, 1, 2], &params).unwrap(), on_cpu.line_list(1, &[0, 1, 2], &params).unwrap());
        assert_eq!(lg.len(), lc.len());
        assert!(!lc.is_empty());
        for (a, b) in lg.iter().zip(&lc) {
            assert_eq!((a.upper_id, a.lower_id), (b.upper_id, b.lower_id));
            let scale = lc.iter().fold(0.0f64, |m, l| m.max(l.linestrength));
            assert!((a.linestrength - b.linestrength).abs() <= 2.0 * TOLERANCE * scale);
        }
    }
}

/// Matrices with a leading dimension above their row count (the padding NaN, which nothing may
/// read) and a block of one stored state: the GPU takes packed copies of the dipole (resident and
/// streamed) and of states kept on the device or on the host (one column: the caller's own), and
/// its amplitudes equal those of the CPU reference given the packed matrices, to 1e-12 of the
/// largest.
#[test]
fn gpu_equals_cpu_for_padded_matrices() {
    let Some(gpu) = gpu::cuda_device().map(Backend::Cuda) else { return };
    let mut rng = Rng::new(31);
    let n_vib = 29;
    let dipole = random_dipole(&mut rng, n_vib);
    let ld = n_vib + 5;
    let padded_dipole = padded(&dipole, n_vib, 3 * n_vib, ld);
    let (lower, upper) = (full_block(2, n_vib), full_block(3, n_vib));
    let n_lower = 6;
    let vectors = random_values(&mut rng, lower.len() * n_lower);
    let ld_lower = lower.len() + 1;
    for (streamed, n_states) in [(false, 11usize), (true, 11), (false, 1)] {
        let bytes = (n_vib * n_vib * 3 * 8) as u64;
        let options = Options { max_device_bytes: if streamed { bytes / 3 } else { 0 } };
        let mut on_gpu = LineStrength::new_on(gpu.clone(), n_vib, &padded_dipole, ld, options).unwrap();
        let mut on_cpu = LineStrength::new_on(Backend::Cpu, n_vib, &dipole, n_vib, Options::default()).unwrap();
        assert_eq!(on_gpu.dipole_blocks() > 1, streamed);
        let energies: Vec<f64> = (0..n_states).map(|s| 4000.0 + 13.0 * s as f64).collect();
        let states = random_values(&mut rng, upper.len() * n_states);
        let ld_states = upper.len() + 2;
        let padded_states = padded(&states, upper.len(), n_states, ld_states);
        for h in [&mut on_gpu, &mut on_cpu] {
            h.add_block(&lower.spec()).unwrap();
            h.add_block(&upper.spec()).unwrap();
            h.add_block(&upper.spec()).unwrap();
        }
        on_gpu.set_states(1, &energies, &padded_states, ld_states).unwrap();
        on_gpu.set_states_on_host(2, &energies, &padded_states, ld_states).unwrap();
        on_cpu.set_states(1, &energies, &states, upper.len()).unwrap();
        on_gpu.load_lower(0, n_lower, &padded(&vectors, lower.len(), n_lower, ld_lower), ld_lower, 0.0).unwrap();
        on_cpu.load_lower(0, n_lower, &vectors, lower.len(), 0.0).unwrap();
        let reference = on_cpu.amplitudes(1, 0.0).unwrap();
        assert!(max_abs(&reference) > 0.0);
        for block in [1, 2] {
            let d = relative_difference(&on_gpu.amplitudes(block, 0.0).unwrap(), &reference);
            println!("padded: streamed={streamed} n_states={n_states} block={block}: amplitudes {d:e}");
            assert!(d < TOLERANCE, "amplitudes of block {block} differ by {d:e}");
        }
    }
}

#[path = "support/degenerate.rs"]
mod degenerate;

/// Degenerate species (Td(M): E and F blocks, non-degenerate A blocks) and the device-side line
/// filters: amplitudes of every component pair equal the CPU's to 1e-12 (of the largest), and the
/// filtered line lists keep the same lines with the same counts, at Nvib = 5, 13 and 33 and
/// batches of 1, 3 and 7 levels; a partition function of 5e-324 (intensities beyond the largest
/// double) is refused on both with the intensity named.
#[test]
fn gpu_equals_cpu_for_degenerate_species_and_filters() {
    use atomgpu::linestrength::{LineFilters, SymmetryGroup};
    let Some(gpu) = gpu::cuda_device().map(Backend::Cuda) else { return };
    let mut rng = Rng::new(97);
    for (n_vib, batch) in [(5usize, 1usize), (13, 3), (33, 7)] {
        let dipole = random_dipole(&mut rng, n_vib);
        let low = [100.0, 1500.0];
        let high = [2000.0, 3500.0];
        let blocks = vec![
            degenerate::random_block(&mut rng, 1, n_vib, 2, 2, 9, low, false),
            degenerate::random_block(&mut rng, 2, n_vib, 3, 3, 11, low, false),
            degenerate::random_block(&mut rng, 2, n_vib, 2, 2, 10, high, false),
            degenerate::random_block(&mut rng, 1, n_vib, 4, 3, 13, high, false),
            degenerate::random_block(&mut rng, 3, n_vib, 4, 3, 6, high, false),
            degenerate::random_block(&mut rng, 2, n_vib, 0, 1, 5, high, false),
        ];
        // `on_host`: blocks 0, 2, 4 keep their states in host memory (staged lower batches,
        // uploaded upper blocks); `devices`: GPUs the line lists spread over.
        let make = |backend, on_host: bool, devices: usize| {
            let engines = DeviceSet::count(backend, devices.max(1)).unwrap();
            let mut h = LineStrength::new_on_devices(&engines, n_vib, &dipole, n_vib, Options::default()).unwrap();
            h.set_group(SymmetryGroup::named("Td(M)").unwrap()).unwrap();
            for b in &blocks {
                let id = h.add_block(&b.spec()).unwrap();
                if on_host && id.is_multiple_of(2) {
                    h.set_states_on_host(id, &b.energies, &b.vectors, b.n_sym).unwrap();
                } else {
                    h.set_states(id, &b.energies, &b.vectors, b.n_sym).unwrap();
                }
            }
            h
        };
        let (mut cpu, mut cuda) = (make(Backend::Cpu, false, 1), make(gpu.clone(), false, 1));
        let mut host = make(gpu.clone(), true, 1);
        // Two GPUs when the machine has them (a line list's batches alternate between them).
        let two = atomgpu::backend::cuda_device_count() >= 2;
        let mut spread = make(gpu.clone(), true, if two { 2 } else { 1 });
        // Lower batches of a host-held block through the prefetch, as a caller pipelines them.
        let all: Vec<usize> = (0..blocks[2].n_states()).collect();
        let chunks: Vec<&[usize]> = all.chunks(batch).collect();
        for (k, chunk) in chunks.iter().enumerate() {
            cpu.load_lower_states(2, chunk, 0.0).unwrap();
            host.load_lower_states(2, chunk, 0.0).unwrap();
            if let Some(next) = chunks.get(k + 1) {
                host.prefetch_lower_states(2, next).unwrap();
            }
            for upper in [3usize, 4] {
                let d =
                    relative_difference(&host.amplitudes(upper, 0.0).unwrap(), &cpu.amplitudes(upper, 0.0).unwrap());
                assert!(d <= TOLERANCE, "Nvib {n_vib}, host-held lower block 2, upper {upper}: {d}");
            }
        }
        for (lower, upper) in [(0usize, 2usize), (1, 3), (1, 4)] {
            let states: Vec<usize> = (0..batch.min(blocks[lower].n_states())).collect();
            cpu.load_lower_states(lower, &states, 0.0).unwrap();
            cuda.load_lower_states(lower, &states, 0.0).unwrap();
            let (a, b) = (cpu.amplitudes(upper, 0.0).unwrap(), cuda.amplitudes(upper, 0.0).unwrap());
            let d = relative_difference(&b, &a);
            assert!(d <= TOLERANCE, "Nvib {n_vib}, pair ({lower}, {upper}): amplitudes differ by {d}");
        }
        let mut p = IntensityParams {
            temperature: 800.0,
            partition_function: 300.0,
            zpe: 20.0,
            freq_window: [600.0, 3300.0],
            lower_energy: [100.0, 1400.0],
            upper_energy: [2000.0, 3400.0],
            thresh_coeff: 0.0,
            thresh_line: 0.0,
            thresh_intens: 0.0,
            batch,
            convention: Convention::Documented,
            action: Action::Absorption,
        };
        let filters = LineFilters {
            reduced: n_vib == 13,
            degeneracy_filter: n_vib == 13,
            gamma_pair: Some(vec![1, 0, 2, 4, 3]),
            j_range: [1, 2],
        };
        let all = cpu.line_list_filtered(1, &[3, 4, 5], &p, &filters).unwrap();
        let mut s: Vec<f64> = all.lines.iter().map(|l| l.linestrength).collect();
        s.sort_by(f64::total_cmp);
        p.thresh_line = 0.5 * (s[s.len() / 2] + s[s.len() / 2 + 1]);
        for lower in [0usize, 1] {
            let uppers = if lower == 0 { vec![2usize, 3, 5] } else { vec![3, 4, 5] };
            let x = cpu.line_list_filtered(lower, &uppers, &p, &filters).unwrap();
            assert!(x.counts.kept > 0 && x.counts.dropped_by_thresholds > 0, "{:?}", x.counts);
            for (what, h) in [("device", &mut cuda), ("host-held", &mut host), ("spread", &mut spread)] {
                let y = h.line_list_filtered(lower, &uppers, &p, &filters).unwrap();
                assert_eq!(x.counts, y.counts, "Nvib {n_vib}, lower {lower}, {what}");
                assert_same_lines(&x.lines, &y.lines);
            }
        }
        // The whole list streamed, host-held blocks as lower and as upper blocks.
        let collect = |h: &mut LineStrength| {
            let mut lines = Vec::new();
            let counts = h
                .line_list_stream(&p, &filters, &mut |b| {
                    lines.extend_from_slice(b);
                    Ok(())
                })
                .unwrap();
            (lines, counts)
        };
        let (x, cx) = collect(&mut cpu);
        for h in [&mut host, &mut spread] {
            let (y, cy) = collect(h);
            assert_eq!(cx, cy);
            assert_same_lines(&x, &y);
        }
        p.partition_function = 5e-324;
        for h in [&mut cpu, &mut cuda, &mut spread] {
            match h.line_list_filtered(1, &[3], &p, &filters).unwrap_err() {
                atomgpu::error::Error::NotFinite { name, .. } => assert_eq!(name, "intensity"),
                other => panic!("{other}"),
            }
        }
    }
}

#[test]
fn gpu_equals_cpu_for_streamed_lower_batches() {
    use atomgpu::linestrength::{LineFilters, LowerBatch, SymmetryGroup};
    let Some(gpu) = gpu::cuda_device().map(Backend::Cuda) else { return };
    let mut rng = Rng::new(2909);
    for (n_vib, internal, caller) in [(13usize, 3usize, 5usize), (33, 7, 13)] {
        let dipole = random_dipole(&mut rng, n_vib);
        let e = [0.0, 3000.0];
        let blocks = vec![
            degenerate::random_block(&mut rng, 0, n_vib, 0, 1, 7, e, false),
            degenerate::random_block(&mut rng, 1, n_vib, 2, 2, 9, e, false),
            degenerate::random_block(&mut rng, 2, n_vib, 3, 3, 11, e, false),
            degenerate::random_block(&mut rng, 1, n_vib, 4, 3, 10, e, false),
            degenerate::random_block(&mut rng, 2, n_vib, 4, 3, 6, e, false),
        ];
        // `on_host`: the odd blocks keep their states in host memory (uploaded as upper blocks);
        // `devices`: GPUs the batches spread over.
        let make = |backend, on_host: bool, devices: usize| {
            let engines = DeviceSet::count(backend, devices.max(1)).unwrap();
            let mut h = LineStrength::new_on_devices(&engines, n_vib, &dipole, n_vib, Options::default()).unwrap();
            h.set_group(SymmetryGroup::named("Td(M)").unwrap()).unwrap();
            for b in &blocks {
                let id = h.add_block(&b.spec()).unwrap();
                if on_host && id % 2 == 1 {
                    h.set_states_on_host(id, &b.energies, &b.vectors, b.n_sym).unwrap();
                } else {
                    h.set_states(id, &b.energies, &b.vectors, b.n_sym).unwrap();
                }
            }
            h
        };
        let two = atomgpu::backend::cuda_device_count() >= 2;
        let mut cpu = make(Backend::Cpu, false, 1);
        let p = IntensityParams {
            temperature: 800.0,
            partition_function: 300.0,
            zpe: 20.0,
            freq_window: [10.0, 3000.0],
            lower_energy: [0.0, 2500.0],
            upper_energy: [0.0, 3000.0],
            thresh_coeff: 0.0,
            thresh_line: 0.0,
            thresh_intens: 1e-35,
            batch: internal,
            convention: atomgpu::linestrength::Convention::Documented,
            action: atomgpu::linestrength::Action::Absorption,
        };
        let filters = LineFilters::default();
        // Every level of every block, cut into caller batches of `caller` levels (mixed blocks).
        let levels: Vec<(usize, usize)> =
            blocks.iter().enumerate().flat_map(|(b, x)| (0..x.n_states()).map(move |s| (b, s))).collect();
        let ld = blocks.iter().map(|b| b.n_sym).max().unwrap();
        let stream = |h: &mut LineStrength| {
            let (mut lines, mut counts) = (Vec::new(), atomgpu::linestrength::LineCounts::default());
            for chunk in levels.chunks(caller) {
                let mut vectors = vec![0.0; ld * chunk.len()];
                for (i, &(b, s)) in chunk.iter().enumerate() {
                    vectors[i * ld..i * ld + blocks[b].n_sym].copy_from_slice(blocks[b].level(s));
                }
                let ids: Vec<i64> = chunk.iter().map(|&(b, s)| h.state_id(b, s)).collect();
                let batch = LowerBatch {
                    blocks: &chunk.iter().map(|&(b, _)| b).collect::<Vec<_>>(),
                    vectors: &vectors,
                    ld,
                    energies: &chunk.iter().map(|&(b, s)| blocks[b].energies[s]).collect::<Vec<_>>(),
                    ids: &ids,
                    order: &ids,
                };
                let c = h
                    .lines_of_lower_batch(&batch, &p, &filters, &mut |l| {
                        lines.extend_from_slice(l);
                        Ok(())
                    })
                    .unwrap();
                counts.add(&c);
            }
            (lines, counts)
        };
        let (x, cx) = stream(&mut cpu);
        assert!(x.len() > 100, "{} lines", x.len());
        for (on_host, devices) in [(false, 1usize), (true, if two { 2 } else { 1 })] {
            let mut cuda = make(gpu.clone(), on_host, devices);
            let (y, cy) = stream(&mut cuda);
            assert_eq!(cx, cy, "Nvib {n_vib}, on_host {on_host}, {devices} GPUs");
            assert_same_lines(&x, &y);
        }
    }
}

#[test]
fn gpu_equals_cpu_on_the_rotsym_route() {
    // TROVE's rotsym route: random orthogonal rotational bases of J = 4, 5, 6 (contraction lists of
    // up to 3 (2J+1) = 39 entries per upper slot, not the Wang route's six), random parts of the
    // blocks in random order, Nvib = 37 and 61 (no tile multiple), coefficient thresholds, and a
    // dipole matrix streamed in blocks.
    let Some(gpu) = gpu::cuda_device().map(Backend::Cuda) else { return };
    let mut rng = Rng::new(2929);
    for (n_vib, n_lower, thresh, streamed) in [(37usize, 5usize, 0.0, false), (61, 33, 0.2, false), (37, 7, 0.0, true)]
    {
        let dipole = random_dipole(&mut rng, n_vib);
        let bases: Vec<rotsym::Basis> = (4..=6).map(|j| rotsym::Basis::random(&mut rng, j)).collect();
        let blocks: Vec<rotsym::RotsymLabels> =
            bases.iter().map(|b| rotsym::RotsymLabels::random_part(&mut rng, b, n_vib, 0.9)).collect();
        let bytes = (n_vib * n_vib * 3 * 8) as u64;
        let max_bytes = if streamed { bytes / 3 } else { 0 };
        let mut handles = vec![];
        let n_states = 11;
        let states: Vec<Vec<f64>> = blocks.iter().map(|l| random_values(&mut rng, l.len() * n_states)).collect();
        for backend in [gpu.clone(), Backend::Cpu] {
            let options = Options { max_device_bytes: max_bytes };
            let mut h = LineStrength::new_on(backend, n_vib, &dipole, n_vib, options).unwrap();
            for (b, l) in bases.iter().zip(&blocks) {
                h.set_rotational_basis(b.j, &b.e, &b.level, &b.deg).unwrap();
                let id = h.add_rotsym_block(&l.spec()).unwrap();
                let energies: Vec<f64> = (0..n_states).map(|s| 900.0 * b.j as f64 + 41.0 * s as f64).collect();
                h.set_states(id, &energies, &states[id], l.len()).unwrap();
            }
            handles.push(h);
        }
        let [on_gpu, on_cpu] = &mut handles[..] else { unreachable!() };
        assert_eq!(on_gpu.backend_name(), "cuda");
        let lower = &blocks[1];
        let vectors = random_values(&mut rng, lower.len() * n_lower);
        on_gpu.load_lower(1, n_lower, &vectors, lower.len(), thresh).unwrap();
        on_cpu.load_lower(1, n_lower, &vectors, lower.len(), thresh).unwrap();
        for (upper, labels) in blocks.iter().enumerate() {
            let rows = labels.len();
            let (mut hg, mut hc) = (vec![0.0; rows * n_lower], vec![0.0; rows * n_lower]);
            on_gpu.half_linestrength(upper, thresh, &mut hg, rows).unwrap();
            on_cpu.half_linestrength(upper, thresh, &mut hc, rows).unwrap();
            let d = relative_difference(&hg, &hc);
            println!("rotsym Nvib={n_vib} n={n_lower} thresh={thresh} streamed={streamed} upper={upper}: half {d:e}");
            assert!(d < TOLERANCE, "half-linestrengths differ by {d:e}");
            let (ag, ac) = (on_gpu.amplitudes(upper, thresh).unwrap(), on_cpu.amplitudes(upper, thresh).unwrap());
            let d = relative_difference(&ag, &ac);
            assert!(d < TOLERANCE, "amplitudes differ by {d:e}");
        }
        let params = IntensityParams { thresh_coeff: thresh, ..rotsym_params() };
        let (x, y) =
            (on_cpu.line_list(1, &[0, 1, 2], &params).unwrap(), on_gpu.line_list(1, &[0, 1, 2], &params).unwrap());
        assert!(!x.is_empty());
        assert_same_lines(&x, &y);
    }
}

/// Every window open, every threshold 0.
fn rotsym_params() -> IntensityParams {
    IntensityParams {
        temperature: 296.0,
        partition_function: 1.0,
        zpe: 0.0,
        freq_window: [0.0, 1e6],
        lower_energy: [-1e6, 1e6],
        upper_energy: [-1e6, 1e6],
        thresh_coeff: 0.0,
        thresh_line: 0.0,
        thresh_intens: 0.0,
        batch: 4,
        convention: atomgpu::linestrength::Convention::Documented,
        action: atomgpu::linestrength::Action::Absorption,
    }
}

/// Two line lists agree line by line: same IDs and wavenumbers, S, A and I to [`TOLERANCE`].
fn assert_same_lines(x: &[atomgpu::linestrength::Line], y: &[atomgpu::linestrength::Line]) {
    assert_eq!(x.len(), y.len());
    for (l, m) in x.iter().zip(y) {
        assert_eq!((l.upper_id, l.lower_id), (m.upper_id, m.lower_id));
        assert!((l.linestrength - m.linestrength).abs() <= TOLERANCE * l.linestrength);
        assert!((l.intensity - m.intensity).abs() <= TOLERANCE * l.intensity);
        assert!((l.einstein_a - m.einstein_a).abs() <= TOLERANCE * l.einstein_a);
        assert_eq!(l.wavenumber, m.wavenumber);
    }
}

/// TROVE's convention (its J rule, THRESH_LINE on the raw sum, nu >= -small_, the A cut),
/// emission, and the transition moments of TROVE's TM: the device judges exactly as the CPU
/// (same counts, same lines to 1e-12) and the moments agree component by component to 1e-12 (of
/// the largest), on random non-zero inputs at Nvib = 37 and 61 (no tile multiple), batches of 3
/// and 5 levels.
#[test]
fn gpu_equals_cpu_for_trove_mode_emission_and_moments() {
    use atomgpu::linestrength::LineFilters;
    let Some(gpu) = gpu::cuda_device().map(Backend::Cuda) else { return };
    let mut rng = Rng::new(53);
    for (n_vib, batch) in [(37usize, 3usize), (61, 5)] {
        let dipole = random_dipole(&mut rng, n_vib);
        // J = 0, 1, 2 blocks with energies interleaved (every direction of nu occurs) and a second
        // J = 0 block for the moments.
        let blocks: Vec<(Labels, Vec<f64>, Vec<f64>)> = [0u32, 1, 2, 0]
            .iter()
            .map(|&j| {
                let l = full_block(j, n_vib);
                let n_states = 7 + j as usize;
                let energies: Vec<f64> = (0..n_states).map(|s| 300.0 * j as f64 + 211.0 * s as f64).collect();
                let states = random_values(&mut rng, l.len() * n_states);
                (l, energies, states)
            })
            .collect();
        let mut on_gpu = handle(gpu.clone(), n_vib, &dipole, &blocks, 0);
        let mut on_cpu = handle(Backend::Cpu, n_vib, &dipole, &blocks, 0);
        let mut p = IntensityParams {
            temperature: 700.0,
            partition_function: 90.0,
            zpe: 0.0,
            freq_window: [-10.0, 1e5],
            lower_energy: [0.0, 1e5],
            upper_energy: [0.0, 1e5],
            thresh_coeff: 0.0,
            thresh_line: 0.0,
            thresh_intens: 0.0,
            batch,
            convention: Convention::Trove,
            action: Action::Absorption,
        };
        let filters = LineFilters { j_range: [1, 2], ..LineFilters::default() };
        for (convention, action) in [
            (Convention::Trove, Action::Absorption),
            (Convention::Trove, Action::Emission),
            (Convention::Documented, Action::Emission),
        ] {
            p.convention = convention;
            p.action = action;
            p.thresh_line = 0.0;
            let all = on_cpu.line_list_filtered(1, &[0, 1, 2], &p, &filters).unwrap();
            let mut s: Vec<f64> = all.lines.iter().map(|l| l.linestrength).collect();
            s.sort_by(f64::total_cmp);
            // A THRESH_LINE that keeps about half (on the raw sum in TROVE's convention).
            p.thresh_line = s[s.len() / 2] / if convention == Convention::Trove { 9.0 } else { 1.0 };
            for lower in [1usize, 2] {
                let uppers = if lower == 1 { vec![0usize, 1, 2] } else { vec![1, 2] };
                let x = on_cpu.line_list_filtered(lower, &uppers, &p, &filters).unwrap();
                let y = on_gpu.line_list_filtered(lower, &uppers, &p, &filters).unwrap();
                assert!(
                    x.counts.kept > 0 && x.counts.dropped_by_thresholds > 0,
                    "{convention:?} {action:?} {:?}",
                    x.counts
                );
                assert_eq!(x.counts, y.counts, "{convention:?} {action:?} lower {lower}");
                assert_same_lines(&x.lines, &y.lines);
            }
        }
        p.action = Action::Tm;
        p.thresh_intens = 0.05;
        for convention in [Convention::Trove, Convention::Documented] {
            p.convention = convention;
            let x = on_cpu.transition_moments(0, &[0, 3], &p).unwrap();
            let y = on_gpu.transition_moments(0, &[0, 3], &p).unwrap();
            assert!(!x.moments.is_empty());
            assert_eq!(x.moments.len(), y.moments.len());
            let scale = x.moments.iter().fold(0.0f64, |m, t| m.max(t.moment));
            for (a, b) in x.moments.iter().zip(&y.moments) {
                assert_eq!((a.upper_id, a.lower_id), (b.upper_id, b.lower_id));
                assert!((a.moment - b.moment).abs() <= TOLERANCE * scale);
                for (c, d) in a.components.iter().zip(&b.components) {
                    assert!((c - d).abs() <= TOLERANCE * scale);
                }
            }
        }
    }
}

/// Destroying a line-strength handle spread over every visible GPU (at most 4; the C entry points
/// `atomgpu_linestrength_create_on_devices` / `_destroy`) gives each GPU's memory back at once:
/// the free memory of GPUs 1.. after the destroy is within 64 MiB of what it was before the create
/// (the driver's own count, `cuMemGetInfo`), where the dipole copies took about 1.2 GiB each. GPU 0
/// is left out of the comparison: the other tests of this program run on it at the same time. A
/// small spread handle made and destroyed first loads what a process keeps per GPU (kernels,
/// cuBLAS), so that only the handle's own memory is compared.
#[test]
fn destroying_a_spread_handle_frees_every_gpu() {
    use atomgpu::ffi::linestrength::atomgpu_linestrength_destroy;
    use atomgpu::ffi::linestrength::{atomgpu_linestrength, atomgpu_linestrength_create_on_devices};
    let Some(_) = gpu::cuda_device() else { return };
    let visible = atomgpu::backend::cuda_device_count().min(4);
    if visible < 2 {
        println!("skipped: one GPU visible (GPU 0 is shared with the other tests)");
        return;
    }
    let spread = |n_vib: usize| {
        let dipole: Vec<f64> = (0..3 * n_vib * n_vib).map(|i| ((i % 97) as f64 - 48.0) * 1e-3).collect();
        let mut h: *mut atomgpu_linestrength = std::ptr::null_mut();
        let n = n_vib as i64;
        // SAFETY: the dipole holds n x 3n values with leading dimension n; `h` is writable.
        let status =
            unsafe { atomgpu_linestrength_create_on_devices(n, dipole.as_ptr(), n, 0, visible as i32, &mut h) };
        assert_eq!(status, 0);
        h
    };
    // SAFETY: a live handle made just before.
    assert_eq!(unsafe { atomgpu_linestrength_destroy(spread(64)) }, 0);
    let free_now = |k: usize| atomgpu::backend::cuda_device_at(k).unwrap().memory().unwrap().0 as i64;
    for k in 0..visible {
        atomgpu::backend::cuda_device_at(k).unwrap().release_freed_memory().unwrap();
    }
    let before: Vec<i64> = (0..visible).map(free_now).collect();
    let h = spread(7000);
    let taken: Vec<i64> = (0..visible).map(|k| before[k] - free_now(k)).collect();
    // SAFETY: `h` is the live handle made above.
    assert_eq!(unsafe { atomgpu_linestrength_destroy(h) }, 0);
    let after: Vec<i64> = (0..visible).map(free_now).collect();
    let slack = 64 << 20;
    println!("GPUs {visible}: taken {taken:?} bytes, free before {before:?}, after {after:?}");
    for k in 1..visible {
        assert!(taken[k] > 1 << 30, "GPU {k} took only {} bytes", taken[k]);
        assert!(
            after[k] >= before[k] - slack,
            "GPU {k}: {} bytes free before, {} after the destroy",
            before[k],
            after[k]
        );
    }
}
