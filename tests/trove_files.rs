//! atomgpu's TROVE mode and TROVE file writer against real TROVE. Each case under
//! tests/data/trove/ was made by running real TROVE (github Trovemaster/TROVE, commit 82a4c88,
//! gfortran 12 + OpenBLAS; README "Using atomgpu from TROVE") through its basis, contraction and
//! eigenvector steps and its intensity step, once writing its own `.states`/`.trans` and once
//! dumping the arrays its intensity loop holds (the bridge fortran/trove/atomgpu_trove_dump.f90).
//! The independent reference is TROVE's own files: atomgpu, handed TROVE's arrays with TROVE's
//! INTENSITY options, must write the same files, byte for byte (same lines, same order, same
//! digits).

#[path = "support/gpu.rs"]
mod gpu;
#[path = "support/trove_fixture.rs"]
mod trove_fixture;

use atomgpu::backend::Backend;
use atomgpu::linestrength::trove;
use std::path::PathBuf;
use trove_fixture::Fixture;

/// A fresh folder (removed when dropped).
struct Folder(PathBuf);

impl Folder {
    fn new(name: &str) -> Folder {
        let dir = std::env::temp_dir().join(format!("atomgpu-trove-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Folder(dir)
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The first line where `ours` and `theirs` differ, for the failure message.
fn first_difference(ours: &str, theirs: &str) -> String {
    let (a, b): (Vec<&str>, Vec<&str>) = (ours.lines().collect(), theirs.lines().collect());
    match a.iter().zip(&b).position(|(x, y)| x != y) {
        Some(i) => format!("line {}:\n  atomgpu: {:?}\n  TROVE:   {:?}", i + 1, a[i], b[i]),
        None => format!("atomgpu has {} lines, TROVE {}", a.len(), b.len()),
    }
}

/// Writes case `name` with atomgpu and compares both files with TROVE's, on the CPU and, where
/// there is one, on the GPU.
fn same_files_as_trove(name: &str) {
    same_files_on(name, Backend::Cpu);
    if let Some(gpu) = gpu::cuda_device().map(Backend::Cuda) {
        same_files_on(name, gpu);
    }
}

/// [`same_files_as_trove`] on one backend.
fn same_files_on(name: &str, backend: Backend) {
    let f = Fixture::read(name);
    let mut h = f.handle(backend);
    let (params, filters) = f.options();
    let columns = f.columns();
    let table = f.states_table(&columns);
    let folder = Folder::new(name);
    let stem = folder.0.join("list");
    let counts = trove::write_line_list(&mut h, &stem, &table, &params, &filters).unwrap();
    for suffix in [".states", ".trans"] {
        let ours = std::fs::read_to_string(folder.0.join(format!("list{suffix}"))).unwrap();
        let theirs = f.text(&f.trove_file(suffix));
        assert!(ours == theirs, "{name}{suffix} differs from TROVE's: {}", first_difference(&ours, &theirs));
    }
    assert!(counts.kept > 0, "{name}: TROVE's list is not empty");
}

#[test]
fn h2s_j0_2_as_trove() {
    same_files_as_trove("h2s_j0_2");
}

/// J 1 2: TROVE's J rule (J'' >= 1, J' = 0 allowed, no 1 -> 1).
#[test]
fn h2s_j1_2_as_trove() {
    same_files_as_trove("h2s_j1_2");
}

/// THRESH_LINE 1e-8, compared with TROVE's raw sum of squares.
#[test]
fn h2s_thresh_line_as_trove() {
    same_files_as_trove("h2s_thresh_line");
}

/// THRESH_INTES 1e-26 (TROVE's constants decide the lines near it).
#[test]
fn h2s_thresh_intes_as_trove() {
    same_files_as_trove("h2s_thresh_intes");
}

/// GNS 1 1 0 0: lower states of a species with g_ns = 0 give no line.
#[test]
fn h2s_gns_para_as_trove() {
    same_files_as_trove("h2s_gns_para");
}

/// PH3, C3v(M) with its E species (two components per level, TROVE's unfolding).
#[test]
fn ph3_j0_2_as_trove() {
    same_files_as_trove("ph3_j0_2");
}

/// PH3 with SYMMETRY REDUCED (only d' = 1, no 1/ndeg'', the degeneracy filter).
#[test]
fn ph3_reduced_as_trove() {
    same_files_as_trove("ph3_reduced");
}

/// PH3 with THRESH_COEFF 1e-3 (lower primitive coefficients and 3j symbols skipped).
#[test]
fn ph3_thresh_coeff_as_trove() {
    same_files_as_trove("ph3_thresh_coeff");
}

/// The same files when the lower levels are not stored but streamed by the caller in TROVE's
/// own order (its energy-sorted level list, as its eigenvector files are read), `batch` levels of
/// mixed blocks per call, the lines of each call appended to the pair in the order they come
/// (`trove::TroveFiles`, `lines_of_lower_batch`).
fn same_files_streamed(name: &str, batch: usize) {
    use atomgpu::linestrength::LowerBatch;
    let f = Fixture::read(name);
    let mut h = f.handle(Backend::Cpu);
    let (params, filters) = f.options();
    let columns = f.columns();
    let table = f.states_table(&columns);
    // Every level with its block, in TROVE's order (the position in its energy-sorted list).
    let mut levels: Vec<(i64, usize, usize)> = Vec::new();
    for (b, block) in f.blocks.iter().enumerate() {
        levels.extend(block.positions.iter().enumerate().map(|(s, &p)| (p, b, s)));
    }
    levels.sort();
    let ld = f.blocks.iter().map(|b| b.n_sym).max().unwrap();
    let folder = Folder::new(&format!("{name}-streamed-{batch}"));
    let stem = folder.0.join("list");
    let mut files = trove::TroveFiles::create(&stem).unwrap();
    files.write_states(&table, params.zpe).unwrap();
    for chunk in levels.chunks(batch) {
        let mut vectors = vec![0.0; ld * chunk.len()];
        let (mut blocks, mut energies, mut ids, mut order) = (vec![], vec![], vec![], vec![]);
        for (i, &(p, b, s)) in chunk.iter().enumerate() {
            let block = &f.blocks[b];
            vectors[i * ld..i * ld + block.n_sym]
                .copy_from_slice(&block.vectors[s * block.n_sym..(s + 1) * block.n_sym]);
            blocks.push(b);
            energies.push(block.energies[s]);
            ids.push(block.ids[s]);
            order.push(p);
        }
        let lower =
            LowerBatch { blocks: &blocks, vectors: &vectors, ld, energies: &energies, ids: &ids, order: &order };
        let mut lines = Vec::new();
        h.lines_of_lower_batch(&lower, &params, &filters, &mut |l| {
            lines.extend_from_slice(l);
            Ok(())
        })
        .unwrap();
        files.append_lines(&lines).unwrap();
    }
    files.commit().unwrap();
    for suffix in [".states", ".trans"] {
        let ours = std::fs::read_to_string(folder.0.join(format!("list{suffix}"))).unwrap();
        let theirs = f.text(&f.trove_file(suffix));
        assert!(ours == theirs, "{name}{suffix} streamed differs from TROVE's: {}", first_difference(&ours, &theirs));
    }
}

#[test]
fn streamed_lower_levels_give_trove_s_files() {
    for batch in [1, 7, 100_000] {
        same_files_streamed("h2s_j1_2", batch);
        same_files_streamed("ph3_reduced", batch);
    }
}

/// TROVE's TM action (J = 0 transition moments, h2s_tm: 53 moments TROVE printed to its main
/// output, tm_output.txt): atomgpu's moments (`transition_moments`, TROVE convention) are the
/// same pairs with the same |TM|, intensity and x, y, z components to TROVE's printed digits
/// (es15.8: 5e-9 relative; f16.8: 5e-9 Debye), and the same number of them.
#[test]
fn h2s_tm_as_trove() {
    use atomgpu::linestrength::Action;
    let f = Fixture::read("h2s_tm");
    let mut h = f.handle(Backend::Cpu);
    let (mut params, _) = f.options();
    params.action = Action::Tm;
    let blocks: Vec<usize> = (0..f.blocks.len()).filter(|&b| !f.blocks[b].energies.is_empty()).collect();
    let mut ours = Vec::new();
    for &lower in &blocks {
        ours.extend(h.transition_moments(lower, &blocks, &params).unwrap().moments);
    }
    let energy = |block: usize, state: usize| f.blocks[block].energies[state] - params.zpe;
    let text = f.text("tm_output.txt");
    let mut theirs = 0;
    for line in text.lines().skip(2).filter(|l| !l.trim().is_empty()) {
        theirs += 1;
        let fields: Vec<&str> = line.split_whitespace().collect();
        // J Gamma <- J Gamma branch Ef <- Ei nu ...
        let (ef, ei): (f64, f64) = (fields[6].parse().unwrap(), fields[8].parse().unwrap());
        let scientific: Vec<f64> = fields.iter().filter(|w| w.contains('E')).map(|w| w.parse().unwrap()).collect();
        let (tm, intensity) = (scientific[0], scientific[1]);
        let components: Vec<f64> = fields[fields.len() - 3..].iter().map(|w| w.parse().unwrap()).collect();
        let m = ours
            .iter()
            .find(|m| {
                (energy(m.upper_block, m.upper_state) - ef).abs() <= 5e-7
                    && (energy(m.lower_block, m.lower_state) - ei).abs() <= 5e-7
            })
            .unwrap_or_else(|| panic!("TROVE's moment {ef} <- {ei} is not among atomgpu's"));
        assert!((m.moment - tm).abs() <= 5e-9 * tm.abs() + 1e-300, "|TM| {} vs TROVE {tm} ({line})", m.moment);
        assert!(
            (m.intensity - intensity).abs() <= 5e-9 * intensity.abs() + 1e-300,
            "intensity {} vs TROVE {intensity} ({line})",
            m.intensity
        );
        for (c, expected) in components.iter().enumerate() {
            assert!((m.components[c] - expected).abs() <= 5.1e-9, "component {c}: {} vs {expected}", m.components[c]);
        }
    }
    assert_eq!(ours.len(), theirs, "atomgpu keeps {} moments, TROVE {theirs}", ours.len());
}
