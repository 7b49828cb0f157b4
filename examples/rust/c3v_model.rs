//! Writes the synthetic C3v(M) symmetric top of `tests/support/symmetric_top.rs` (a PH3-like
//! non-inverting XY3 whose symmetry the tests prove: symmetry-adapted vibrational functions, a
//! dipole matrix that transforms as the molecule-fixed dipole, (J, Gamma) blocks with one unfolding
//! matrix T_d per degenerate component, random Hamiltonians in the symmetrised bases) to a file
//! that `examples/fortran/linelist_c3v.f90` reads: the program stands in for TROVE, which writes
//! its dipole matrix and eigenvectors to files for its intensity step.
//!
//!   cargo run --release --example c3v_model -- OUT_FILE [N_VIB_SCALE]
//!
//! The model: n_a1 = 4 s, n_a2 = 2 s, n_e = 7 s vibrational multiplets (A1, A2, E pairs; the
//! default scale s = 6 gives 24 + 12 + 84 = 120 vibrational functions), J = 0..10, PH3-like
//! rotational constants B = 4.45, C = 3.92 cm^-1 and nuclear-spin weights (8, 8, 8). Each block
//! keeps its levels below E_cut = 6000 cm^-1 above the zero-point energy (energies are written
//! relative to it).
//!
//! File layout (unformatted stream, native endianness: 8-byte integers and doubles):
//! ```text
//!   n_vib, n_blocks                                            int64
//!   dipole(n_vib, n_vib, 3)  [Debye], column-major              float64
//!   per block:
//!     j, gamma (0-based: A1, A2, E), ndeg, n_primitive, n_sym, n_states, nnz      int64
//!     gns                                                       float64
//!     v(n_primitive) (0-based), k(n_primitive), tau(n_primitive)                  int64
//!     row_start(ndeg n_primitive + 1), col(nnz) (0-based, stacked CSR of T_d)     int64
//!     value(nnz)                                                float64
//!     energies(n_states) [cm^-1 above the ZPE]                  float64
//!     vectors(n_sym, n_states), column-major                   float64
//! ```

#[path = "../../tests/support/molecule.rs"]
mod molecule;
#[path = "../../tests/support/symmetric_top.rs"]
mod symmetric_top;

use std::io::{BufWriter, Write};
use symmetric_top::{c3v_model, ModelParams};

/// Levels kept per block: those below this energy above the ZPE, in cm^-1.
const E_CUT: f64 = 6000.0;

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: c3v_model OUT_FILE [N_VIB_SCALE]");
        std::process::exit(2);
    };
    let scale: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(6);
    let params = ModelParams { n_a1: 4 * scale, n_a2: 2 * scale, n_e: 7 * scale, j_max: 10, ..ModelParams::default() };
    let started = std::time::Instant::now();
    let model = c3v_model(params);
    let mut out = BufWriter::new(std::fs::File::create(path)?);
    let ints = |out: &mut BufWriter<std::fs::File>, values: &[i64]| -> std::io::Result<()> {
        values.iter().try_for_each(|x| out.write_all(&x.to_ne_bytes()))
    };
    let floats = |out: &mut BufWriter<std::fs::File>, values: &[f64]| -> std::io::Result<()> {
        values.iter().try_for_each(|x| out.write_all(&x.to_ne_bytes()))
    };
    ints(&mut out, &[model.n_vib as i64, model.blocks.len() as i64])?;
    floats(&mut out, &model.dipole)?;
    let mut kept = 0;
    for b in &model.blocks {
        let n_states = b.energies.iter().take_while(|&&e| e < E_CUT).count();
        kept += n_states;
        let n_primitive = b.n_primitive();
        let nnz = b.row_start[b.ndeg * n_primitive];
        let head = [b.j as i64, b.gamma as i64, b.ndeg as i64, n_primitive as i64, b.n_sym as i64];
        ints(&mut out, &head)?;
        ints(&mut out, &[n_states as i64, nnz])?;
        floats(&mut out, &[b.gns])?;
        ints(&mut out, &b.labels.v)?;
        ints(&mut out, &b.labels.k.iter().map(|&k| k as i64).collect::<Vec<_>>())?;
        ints(&mut out, &b.labels.tau.iter().map(|&t| t as i64).collect::<Vec<_>>())?;
        ints(&mut out, &b.row_start)?;
        ints(&mut out, &b.col[..nnz as usize])?;
        floats(&mut out, &b.value[..nnz as usize])?;
        floats(&mut out, &b.energies[..n_states])?;
        floats(&mut out, &b.vectors[..b.n_sym * n_states])?;
    }
    out.flush()?;
    println!(
        "c3v_model: {} vibrational functions, {} blocks (J = 0..10, A1 A2 E), {kept} levels below {E_CUT} cm^-1, \
         written to {path} in {:.1} s",
        model.n_vib,
        model.blocks.len(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
