//! Half-linestrengths, line strengths, Einstein A coefficients and intensities for TROVE-style
//! line lists (paper: gain-half-linestrength-gpu.txt, Al-Refaie, Yurchenko & Tennyson, CPC 2017).
//!
//! Inputs as TROVE holds them (column-major, 0-based indices in Rust and C, 64-bit sizes):
//! - the vibrational (J = 0) dipole matrix `dipole(v, v', m)`, `Nvib x Nvib x 3`, components
//!   x, y, z in Debye, lower vibrational index first (TROVE's `dipole_me`);
//! - for each (J, Gamma) block, the primitive basis: vibrational index v, K >= 0 and tau in {0, 1}
//!   of every function ([`BlockSpec`]), and optionally the sparse unfolding matrix from the
//!   symmetrised basis to the primitive one ([`Unfolding`]);
//! - eigenvectors as columns (symmetrised when the block has an unfolding, primitive otherwise)
//!   with their energies in cm^-1 (absolute, the zero-point energy is subtracted where TROVE does).
//!
//! The half-linestrength of a lower state i into the upper block (J', Gamma') (paper eq. 14) is
//!
//! ```text
//!   h_(v',K',tau')(i) = sum_(v,K,tau) c^i_(v,K,tau) f(J,K,tau; J',K',tau') dipole(v, v', m(K,tau,K',tau')),
//! ```
//! with the rotational factor f and component m of [`rotation`] (TROVE's phases, 3j symbols and
//! 1/sqrt(2) factors). For a batch of n lower states it is computed as one dense product
//! `Y = [dipole_x dipole_y dipole_z]^T X` with X the lower vectors reshaped to
//! `Nvib x (slots * n)` (slots: the block's distinct (K, tau), 2J+1 for a full block), followed by
//! a contraction over the at most six lower slots coupled to each upper slot; Y serves every J'
//! at once. The completion (eq. 15) is a second product, `a(f, i) = sum_p c^f_p h_p(i)`, and
//!
//! ```text
//!   L(f <- i) = a(f, i)^2                                   (Debye^2)
//!   S(f <- i) = g_ns (2J'+1)(2J''+1) L                      (line strength, Debye^2)
//!   A(f -> i) = A_coef (2J''+1) L nu^3                      (Einstein A, s^-1; nu in cm^-1)
//!   I(f <- i) = I_coef S nu exp(-c2 (E''-ZPE)/T) (1 - exp(-c2 nu/T)) / Q   (cm/molecule)
//! ```
//! (paper eqs. 1-2 in TROVE's CGS form; A_coef = 64 pi^4 1e-36/(3h), I_coef = 8 pi^3 1e-36/(3hc)
//! and c2 = hc/k from CODATA 2018, or from TROVE's constants with [`Convention::Trove`]:
//! [`intensity`]). g_ns is the lower block's nuclear-spin weight, as in TROVE. Emission lists and
//! the transition moments of TROVE's TM action are in [`intensity`] and [`moments`].
//!
//! **Degenerate symmetry species** (E: 2 components, F: 3), as TROVE's `dm_intensity_symmvec`
//! handles them (TROVE's names in brackets): a block of species gamma [`igamma` - 1] of the
//! handle's group ([`LineStrength::set_group`], [`symmetry`]) has ndeg [`ndeg`] components; a level
//! is one symmetrised vector c [`vecI`], and component d [`ideg` - 1] of it has the primitive
//! coefficients `T_d c` [`repres(:, ideg, :)` contracted with `vecI`], T_d given as the rows
//! `d n_primitive ..` of the block's stacked [`Unfolding`]. Then
//!
//! ```text
//!   h(i, d_I)          = eq. 14 applied to T_(d_I) c^i          [half_linestr(:, indF, idegI)]
//!   a(f, d_F; i, d_I)  = (T_(d_F) c^f) . h(i, d_I)             [linestr_deg(idegI, idegF)]
//!   L                  = w sum_(d_I, d_F kept) a^2              [linestr]
//! ```
//! with w = 1/ndeg_I, or 1 with TROVE's REDUCED option (which computes only d_F = 0), and the
//! component pairs kept by TROVE's `degeneracy_filter` when asked for ([`ComponentRule`],
//! [`LineFilters`]). A batch of n levels of a block with ndeg components is ndeg n columns of
//! the one dense product of eq. 14 (column `d + ndeg i`), never ndeg calls; the upper side is
//! projected once per component (`T_(d_F)^T h`, the stacked transposes) before the completion
//! GEMM. Line lists are judged by TROVE's rules, windows and thresholds where the amplitudes are
//! ([`filters`]: on the GPU by the kernel `ls_lines`, before anything is copied back), with the
//! pairs kept and dropped counted ([`LineCounts`]); [`LineStrength::line_list_stream`] and
//! [`exomol::write_line_list`] stream a whole line list batch by batch.
//!
//! [`LineStrength`] is the handle: it keeps the dipole matrix (on the GPU when the CUDA backend is
//! in use, blocked over v' when it does not fit in the memory allowed), the blocks and the states,
//! and the products of the last lower batch.

pub mod cpu;
mod cuda;
pub mod exomol;
pub mod filters;
pub mod fortran_format;
pub mod intensity;
pub mod moments;
pub mod rotation;
pub mod rotsym;
pub mod stream;
pub mod symmetry;
pub mod trove;

use crate::backend::{self, threads, Backend, DeviceSet};
use crate::error::{require_finite, require_finite_result, require_in_range, Error, Result};
use crate::memory;
use crate::progress::Tracker;
pub use filters::{LineCounts, LineFilters, LineList};
pub use intensity::{Action, Constants, Convention};
use rotation::{Contraction, Slots, COMPONENTS};
use std::collections::{HashMap, VecDeque};
use std::sync::{mpsc, Arc, Condvar, Mutex};
pub use stream::LowerBatch;
pub use symmetry::{ComponentRule, SymmetryGroup, MAX_DEGENERACY};

/// The primitive basis of one (J, Gamma) block: per function, the vibrational index `v`
/// (0-based, < Nvib), `k` in [0, J] and `tau` in {0, 1}. No two functions may share (v, K, tau).
#[derive(Clone, Copy, Debug)]
pub struct BlockSpec<'a> {
    /// Rotational quantum number J of the block.
    pub j: u32,
    /// Symmetry species of the block: its 0-based index in the handle's group
    /// ([`LineStrength::set_group`]; TROVE's `igamma - 1`), or a free label when the handle has no
    /// group (used only by the symmetry-pair rule of [`LineFilters`]).
    pub gamma: u32,
    /// Nuclear-spin statistical weight g_ns of the block's symmetry (TROVE's GNS), >= 0.
    pub gns: f64,
    pub v: &'a [i64],
    pub k: &'a [i32],
    pub tau: &'a [i32],
    /// Symmetrised-to-primitive unfolding; `None` when vectors are given in the primitive basis.
    pub unfolding: Option<Unfolding<'a>>,
}

/// Sparse unfolding matrices T_d (`n_primitive x n_sym` each, one per degenerate component d =
/// 0..ndeg-1), stacked into one CSR matrix of `ndeg n_primitive` rows: row `d n_primitive + p` lists
/// the symmetrised coefficients that build primitive function p of component d. The primitive
/// coefficients of component d of a level with symmetrised vector c are `T_d c` (TROVE's
/// `repres(isroot, ideg, ib)` contraction, ideg = d + 1).
#[derive(Clone, Copy, Debug)]
pub struct Unfolding<'a> {
    /// Degenerate components ndeg (1 for A/B species, 2 for E, 3 for F), in [1, 3].
    pub ndeg: usize,
    pub n_sym: usize,
    /// `row_start[r]..row_start[r + 1]` are row r's entries; length ndeg n_primitive + 1, from 0.
    pub row_start: &'a [i64],
    pub col: &'a [i64],
    pub value: &'a [f64],
}

/// A compressed-sparse-row matrix, validated.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Csr {
    pub rows: usize,
    pub cols: usize,
    pub start: Vec<i64>,
    pub col: Vec<i64>,
    pub value: Vec<f64>,
}

impl Csr {
    /// The stacked transposes of a stacked matrix of `ndeg` components (`ndeg R x C`, component d
    /// in rows `d R ..`): `ndeg C x R`, row `d C + c` holding column c of component d, in CSR form
    /// with the entries of each row in increasing column order. With `ndeg` = 1, the transpose.
    pub fn component_transposes(&self, ndeg: usize) -> Result<Csr> {
        let what = "the transposed unfolding";
        let rows_per_component = self.rows / ndeg;
        let out_row = |row: usize, e: usize| (row / rows_per_component) * self.cols + self.col[e] as usize;
        let out_rows = ndeg * self.cols;
        let mut count = memory::filled(what, out_rows + 1, 0i64)?;
        for row in 0..self.rows {
            for e in self.start[row] as usize..self.start[row + 1] as usize {
                count[out_row(row, e) + 1] += 1;
            }
        }
        for i in 0..out_rows {
            count[i + 1] += count[i];
        }
        let start = memory::copy_of(what, &count)?;
        let mut next = count;
        let mut col = memory::filled(what, self.col.len(), 0i64)?;
        let mut value = memory::filled(what, self.value.len(), 0.0)?;
        for row in 0..self.rows {
            for e in self.start[row] as usize..self.start[row + 1] as usize {
                let dst = &mut next[out_row(row, e)];
                col[*dst as usize] = (row % rows_per_component) as i64;
                value[*dst as usize] = self.value[e];
                *dst += 1;
            }
        }
        Ok(Csr { rows: out_rows, cols: rows_per_component, start, col, value })
    }
}

/// A registered block.
#[derive(Clone, Debug)]
pub(crate) struct Block {
    pub j: u32,
    pub gamma: u32,
    /// Degenerate components of every level (1 without an unfolding).
    pub ndeg: usize,
    pub gns: f64,
    /// Vibrational index of each primitive function.
    pub v: Vec<u32>,
    pub slots: Slots,
    /// When the block has an unfolding: the stacked T (`ndeg n_primitive x n_sym`, rows of component
    /// d from `d n_primitive`) and the stacked transposes P (`ndeg n_sym x n_primitive`, rows
    /// `d n_sym + s` = column s of T_d).
    pub unfolding: Option<(Csr, Csr)>,
    /// Energies (cm^-1) of the states set by [`LineStrength::set_states`].
    pub energies: Vec<f64>,
    /// The caller's labels of the stored states ([`LineStrength::set_state_labels`]), if given.
    pub labels: Option<StateLabels>,
}

/// The caller's labels of a block's stored states: the ID each state has in the files written
/// (ExoMol's and TROVE's state IDs) and the key that orders TROVE's `.trans` file.
#[derive(Clone, Debug, PartialEq)]
pub struct StateLabels {
    /// State IDs (>= 1), one per stored state.
    pub ids: Vec<i64>,
    /// Order keys, one per stored state: lines of a TROVE `.trans` come sorted by the lower
    /// state's key, then the upper state's (TROVE's position in its energy-sorted level list).
    pub order: Vec<i64>,
}

impl Block {
    /// Number of primitive functions.
    pub fn n_primitive(&self) -> usize {
        self.v.len()
    }

    /// ID of stored state `state`: the caller's label, or `first_id + state` (the running number
    /// whose first state is `first_id`) when the block has no labels.
    pub fn state_id(&self, first_id: i64, state: usize) -> i64 {
        self.labels.as_ref().map_or(first_id + state as i64, |l| l.ids[state])
    }

    /// Order key of stored state `state`: the caller's key, or [`Block::state_id`] without labels.
    pub fn state_order(&self, first_id: i64, state: usize) -> i64 {
        self.labels.as_ref().map_or(first_id + state as i64, |l| l.order[state])
    }

    /// Length of an eigenvector: symmetrised size with an unfolding, primitive size without.
    pub fn n_coefficients(&self) -> usize {
        self.unfolding.as_ref().map_or(self.v.len(), |(t, _)| t.cols)
    }

    /// Columns of a batch of `n` levels of this block once unfolded: one per component.
    pub fn columns(&self, n: usize) -> usize {
        self.ndeg * n
    }
}

/// Largest J of a block: (2J'+1)(2J''+1) stays exact in 32-bit arithmetic.
pub const MAX_J: u32 = 32767;

/// Largest magnitude of a state energy or of the ZPE, in cm^-1 (1.2 MeV): beyond any molecular
/// or atomic state, and small enough that every wavenumber, Einstein A and intensity of a line
/// between such states is a finite double.
pub const MAX_ENERGY_CM: f64 = 1e8;

/// Temperatures of a line list, in K: [1e-3, 1e6].
pub const TEMPERATURE_RANGE_K: (f64, f64) = (1e-3, 1e6);

/// Settings of a [`LineStrength`] handle.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// Most bytes of device memory the dipole matrix may take on the GPU; 0 = 80% of the free
    /// memory at creation. A larger matrix is kept on the host and streamed in blocks of v'
    /// columns at every lower batch (as GAIN blocks it).
    pub max_device_bytes: u64,
}

/// Filters and conditions of a line list, in TROVE's INTENSITY-block meaning.
#[derive(Clone, Copy, Debug)]
pub struct IntensityParams {
    /// Temperature T in K (> 0).
    pub temperature: f64,
    /// Partition function Q(T) (QSTAT, > 0).
    pub partition_function: f64,
    /// Zero-point energy in cm^-1 (ZPE): energies relative to it enter the filters, the
    /// Boltzmann factor and the `.states` file.
    pub zpe: f64,
    /// Transition wavenumber window [min, max] in cm^-1 (freq-window); nu > 0 (documented) or
    /// nu >= -small_ (TROVE) is required besides.
    pub freq_window: [f64; 2],
    /// Lower-state energy window (E'' - ZPE) in cm^-1 (energy low).
    pub lower_energy: [f64; 2],
    /// Upper-state energy window (E' - ZPE) in cm^-1 (energy upper).
    pub upper_energy: [f64; 2],
    /// THRESH_COEFF: lower primitive coefficients with |c| <= it, and 3j symbols below it (on the
    /// rotsym route, [`rotsym`]: below TROVE's small_), are skipped.
    pub thresh_coeff: f64,
    /// THRESH_LINE: smallest line strength S (Debye^2) kept (TROVE convention: smallest raw sum of
    /// squared amplitudes, [`filters`]).
    pub thresh_line: f64,
    /// THRESH_INTES: smallest intensity I (cm/molecule) kept.
    pub thresh_intens: f64,
    /// Lower states per batch (the batch of eq. 14's products); >= 1.
    pub batch: usize,
    /// The constants and rules ([`Convention::Documented`]: CODATA 2018 and atomgpu's rules;
    /// [`Convention::Trove`]: TROVE's constants and rules; [`intensity`], [`filters`]).
    pub convention: Convention,
    /// Absorption (the default), emission or transition moments ([`Action`]).
    pub action: Action,
}

/// One line of a line list. In an emission list ([`Action::Emission`]) the `lower_*` fields
/// hold the emitting state I and the `upper_*` fields the final state F, `wavenumber` is
/// E_I - E_F, `einstein_a` A(I -> F) and `intensity` the emissivity (erg s^-1 sr^-1 per molecule).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Line {
    /// State IDs: the caller's ([`LineStrength::set_state_labels`]) or the ExoMol running numbers
    /// (from 1, blocks in registration order).
    pub upper_id: i64,
    pub lower_id: i64,
    /// Block and state (0-based) of each end.
    pub upper_block: usize,
    pub upper_state: usize,
    pub lower_block: usize,
    pub lower_state: usize,
    /// Wavenumber nu = E' - E'' in cm^-1.
    pub wavenumber: f64,
    /// Line strength S in Debye^2 (with g_ns (2J'+1)(2J''+1)).
    pub linestrength: f64,
    /// Einstein A in s^-1.
    pub einstein_a: f64,
    /// Absorption intensity in cm/molecule.
    pub intensity: f64,
}

/// The engines behind a handle: CPU references or one engine per GPU ([`LineStrength::new_on_devices`]; the
/// first serves every call, line lists spread their batches over all of them).
enum Engine {
    Cpu(Vec<cpu::Engine>),
    Cuda(Vec<cuda::Engine>),
}

/// One engine of a handle, for the work on one batch of a line list.
enum EngineRef<'a> {
    Cpu(&'a mut cpu::Engine),
    Cuda(&'a mut cuda::Engine),
}

/// The line-strength handle. Not thread-safe (`&mut self` for every call that changes it): use one
/// handle per thread.
pub struct LineStrength {
    n_vib: usize,
    blocks: Vec<Block>,
    engine: Engine,
    /// Block and size of the lower batch whose products the engine holds.
    lower: Option<(usize, usize)>,
    /// Rotational contraction tables already built, by [`TableKey`] (blocks never change once added).
    tables: HashMap<TableKey, Arc<Contraction>>,
    /// The molecule's symmetry group, when set ([`LineStrength::set_group`]).
    group: Option<SymmetryGroup>,
    /// Lines of streamed batches not yet taken ([`LineStrength::take_lines`]).
    pending: VecDeque<Line>,
    /// The rotational bases of the rotsym route, by J ([`LineStrength::set_rotational_basis`]).
    rotational_bases: rotsym::Bases,
    /// The engines' devices, the handle's own first ([`LineStrength::new_on_devices`]).
    devices: DeviceSet,
}

/// A contraction table's identity: lower block, upper block, THRESH_COEFF (its bits).
pub(crate) type TableKey = (usize, usize, u64);

/// Where the lower vectors of a batch come from.
pub(crate) enum LowerVectors<'a> {
    /// The caller's matrix (`n_coefficients x n`, leading dimension `ld`).
    Given { data: &'a [f64], ld: usize, n: usize },
    /// Stored states of the block, by index.
    Stored(&'a [usize]),
}

impl LowerVectors<'_> {
    fn count(&self) -> usize {
        match self {
            LowerVectors::Given { n, .. } => *n,
            LowerVectors::Stored(states) => states.len(),
        }
    }
}

/// Checks a column-major matrix argument: `ld >= rows`, length covers `cols` columns.
pub(crate) fn check_matrix(name: &'static str, data_len: usize, rows: usize, cols: usize, ld: usize) -> Result<()> {
    if ld < rows.max(1) {
        return Err(Error::invalid(name, format!("leading dimension {ld} is smaller than the row count {rows}")));
    }
    let needed = (ld as u128) * (cols.max(1) as u128 - 1) + rows as u128;
    if cols > 0 && (data_len as u128) < needed {
        return Err(Error::invalid(name, format!("holds {data_len} values, fewer than {rows} x {cols} with ld {ld}")));
    }
    Ok(())
}

impl LineStrength {
    /// Creates a handle on the current backend ([`backend::current`]) from the dipole matrix
    /// `dipole(v, v', m)` (Debye), element `(v, v', m)` at `v + ld (v' + n_vib m)`, `ld >= n_vib`.
    pub fn new(n_vib: usize, dipole: &[f64], ld: usize, options: Options) -> Result<Self> {
        Self::new_on(backend::current()?, n_vib, dipole, ld, options)
    }

    /// As [`LineStrength::new`], on the given backend.
    pub fn new_on(backend: Backend, n_vib: usize, dipole: &[f64], ld: usize, options: Options) -> Result<Self> {
        Self::new_on_devices(&DeviceSet::single(backend), n_vib, dipole, ld, options)
    }

    /// As [`LineStrength::new`], with the line lists spread over every engine of `devices`: each
    /// GPU (or CPU engine, on its own thread) holds the dipole matrix, the blocks and the states;
    /// the lower states of a list are cut into batches of at most `batch` states whose number is
    /// a multiple of the engine count and whose sizes differ by at most one ([`even_batches`]:
    /// every engine gets the same work), each engine takes every n-th batch, and the lines come
    /// back in the order one engine gives. The values equal one engine's but for the last bits
    /// the other batch shapes may change in the GEMMs. Every other call runs on the set's first
    /// engine.
    pub fn new_on_devices(
        devices: &DeviceSet,
        n_vib: usize,
        dipole: &[f64],
        ld: usize,
        options: Options,
    ) -> Result<Self> {
        if n_vib == 0 {
            return Err(Error::invalid("n_vib", "must be >= 1"));
        }
        let columns = memory::elements::<f64>("the dipole matrix", n_vib, COMPONENTS)?;
        check_matrix("dipole", dipole.len(), n_vib, columns, ld)?;
        let mut packed =
            memory::with_capacity("the dipole matrix", memory::elements::<f64>("the dipole matrix", n_vib, columns)?)?;
        for column in 0..n_vib * COMPONENTS {
            let col = &dipole[column * ld..column * ld + n_vib];
            if let Some(r) = col.iter().position(|x| !x.is_finite()) {
                return Err(Error::invalid_at("dipole", r + ld * column, "must be finite"));
            }
            packed.extend_from_slice(col);
        }
        let engine = match devices.first() {
            Backend::Cpu => {
                let mut team = Vec::new();
                for _ in 1..devices.len() {
                    memory::reserve("the engines", &mut team, 1)?;
                    team.push(cpu::Engine::new(n_vib, memory::copy_of("the dipole matrix", &packed)?));
                }
                team.insert(0, cpu::Engine::new(n_vib, packed));
                Engine::Cpu(team)
            }
            Backend::Cuda(_) => {
                let mut team = Vec::new();
                for member in devices.members() {
                    let Backend::Cuda(device) = member else {
                        return Err(Error::Internal("a device set mixes CPU engines and GPUs".into()));
                    };
                    memory::reserve("the GPU engines", &mut team, 1)?;
                    team.push(cuda::Engine::new(device.clone(), n_vib, &packed, options)?);
                }
                Engine::Cuda(team)
            }
        };
        let pending = VecDeque::new();
        Ok(LineStrength {
            n_vib,
            blocks: Vec::new(),
            engine,
            lower: None,
            tables: HashMap::new(),
            group: None,
            pending,
            rotational_bases: rotsym::Bases::default(),
            devices: devices.clone(),
        })
    }

    /// `"cpu"` or `"cuda"`.
    pub fn backend_name(&self) -> &'static str {
        match self.engine {
            Engine::Cpu(_) => "cpu",
            Engine::Cuda(_) => "cuda",
        }
    }

    /// Size of the vibrational basis.
    pub fn n_vib(&self) -> usize {
        self.n_vib
    }

    /// Number of dipole column blocks streamed per lower batch (1 when the matrix is resident).
    pub fn dipole_blocks(&self) -> usize {
        match &self.engine {
            Engine::Cpu(_) => 1,
            Engine::Cuda(team) => team[0].dipole_blocks(),
        }
    }

    /// The engines' devices, the handle's own first.
    pub fn devices(&self) -> &DeviceSet {
        &self.devices
    }

    /// Number of engines (GPUs, or CPU engines) the handle's line lists use
    /// ([`LineStrength::new_on_devices`]).
    pub fn n_devices(&self) -> usize {
        match &self.engine {
            Engine::Cpu(team) => team.len(),
            Engine::Cuda(team) => team.len(),
        }
    }

    /// Sets the molecule's symmetry group (TROVE's `sym%group`), before any block is added: from
    /// then on every block's `gamma` must be one of its species and its unfolding must have that
    /// species' degeneracy in components, and the line filters can apply TROVE's degeneracy filter.
    pub fn set_group(&mut self, group: SymmetryGroup) -> Result<()> {
        if !self.blocks.is_empty() {
            return Err(Error::invalid(
                "group",
                format!("must be set before any block is added ({} blocks are registered)", self.blocks.len()),
            ));
        }
        self.group = Some(group);
        Ok(())
    }

    /// The symmetry group set by [`LineStrength::set_group`].
    pub fn group(&self) -> Option<&SymmetryGroup> {
        self.group.as_ref()
    }

    /// Registers a block; returns its index (0-based, in registration order).
    pub fn add_block(&mut self, spec: &BlockSpec<'_>) -> Result<usize> {
        let block = self.validate_block(spec)?;
        self.push_block(block)
    }

    /// Hands a validated block to the engines and registers it; returns its index.
    fn push_block(&mut self, block: Block) -> Result<usize> {
        let id = self.blocks.len();
        if let Engine::Cuda(team) = &mut self.engine {
            for e in team {
                e.add_block(&block)?;
            }
        }
        self.blocks.push(block);
        Ok(id)
    }

    fn validate_block(&self, spec: &BlockSpec<'_>) -> Result<Block> {
        if spec.j > MAX_J {
            return Err(Error::invalid("j", format!("must be in [0, {MAX_J}], got {}", spec.j)));
        }
        self.refuse_mixed_routes(false)?;
        let n = spec.v.len();
        if n == 0 {
            return Err(Error::invalid("n_primitive", "must be >= 1"));
        }
        if spec.k.len() != n || spec.tau.len() != n {
            return Err(Error::invalid("k", "v, k and tau must have one entry per primitive function"));
        }
        let mut k = memory::with_capacity("the block's labels", n)?;
        let mut tau = memory::with_capacity("the block's labels", n)?;
        for p in 0..n {
            if spec.k[p] < 0 || spec.k[p] as u32 > spec.j {
                return Err(Error::invalid_at("k", p, format!("must be in [0, J = {}], got {}", spec.j, spec.k[p])));
            }
            if !(spec.tau[p] == 0 || spec.tau[p] == 1) {
                return Err(Error::invalid_at("tau", p, format!("must be 0 or 1, got {}", spec.tau[p])));
            }
            if spec.k[p] == 0 && spec.tau[p] as u32 != spec.j % 2 {
                return Err(Error::invalid_at(
                    "tau",
                    p,
                    format!(
                        "must be J mod 2 = {} for K = 0 (the one Wang function with K = 0 has tau = J mod 2), got {}",
                        spec.j % 2,
                        spec.tau[p]
                    ),
                ));
            }
            k.push(spec.k[p] as u32);
            tau.push(spec.tau[p] as u8);
        }
        let slots = Slots::new(&k, &tau)?;
        self.finish_block(spec.j, spec.gamma, spec.gns, spec.v, slots, spec.unfolding.as_ref())
    }

    /// The checks every block kind shares, and the block: vibrational indices in range, no two
    /// functions with the same vibrational index and rotational label ((K, tau), or (level, deg)
    /// on the rotsym route), g_ns, the species and the unfolding.
    fn finish_block(
        &self,
        j: u32,
        gamma: u32,
        gns: f64,
        spec_v: &[i64],
        slots: Slots,
        unfolding: Option<&Unfolding<'_>>,
    ) -> Result<Block> {
        let labels = if slots.basis.is_some() { "(v, level, deg)" } else { "(v, K, tau)" };
        let n = spec_v.len();
        if !(gns.is_finite() && gns >= 0.0) {
            return Err(Error::invalid("gns", format!("must be finite and >= 0, got {gns}")));
        }
        let mut v = memory::with_capacity("the block's labels", n)?;
        for (p, &vp) in spec_v.iter().enumerate() {
            if vp < 0 || vp as usize >= self.n_vib {
                return Err(Error::invalid_at("v", p, format!("must be in [0, {}), got {vp}", self.n_vib)));
            }
            v.push(vp as u32);
        }
        // No two functions with the same (v, rotational label): sort and look at neighbours.
        let mut keys = memory::collect(
            "the block's labels",
            (0..n).map(|p| ((slots.of_function[p] as u64) << 32 | v[p] as u64, p)),
        )?;
        keys.sort_unstable();
        if let Some(pair) = keys.windows(2).find(|w| w[0].0 == w[1].0) {
            let later = pair[0].1.max(pair[1].1);
            return Err(Error::invalid_at("v", later, format!("{labels} repeats an earlier primitive function")));
        }
        let ndeg = unfolding.map_or(1, |u| u.ndeg);
        if let Some(group) = &self.group {
            let gamma = gamma as usize;
            let Some(&species_ndeg) = group.degeneracy.get(gamma) else {
                return Err(Error::invalid(
                    "gamma",
                    format!("must be a species of {} in [0, {}), got {gamma}", group.name, group.n_species()),
                ));
            };
            if species_ndeg != ndeg {
                let label = group.labels[gamma];
                return Err(match unfolding {
                    None => Error::invalid(
                        "n_sym",
                        format!(
                            "must be >= 1: a block of the degenerate species {label} of {} needs an unfolding \
                             with all its {species_ndeg} components",
                            group.name
                        ),
                    ),
                    Some(_) => Error::invalid(
                        "ndeg",
                        format!(
                            "must be {species_ndeg}, the degeneracy of species {label} of {}, got {ndeg}",
                            group.name
                        ),
                    ),
                });
            }
        }
        let unfolding = unfolding.map(|u| validate_unfolding(u, n)).transpose()?;
        Ok(Block { j, gamma, ndeg, gns, v, slots, unfolding, energies: Vec::new(), labels: None })
    }

    fn block(&self, name: &'static str, id: usize) -> Result<&Block> {
        self.blocks
            .get(id)
            .ok_or_else(|| Error::invalid(name, format!("must be a block index below {}, got {id}", self.blocks.len())))
    }

    /// Number of primitive functions of block `id`.
    pub fn n_primitive(&self, id: usize) -> Result<usize> {
        Ok(self.block("block", id)?.n_primitive())
    }

    /// Length of an eigenvector of block `id` (symmetrised size with an unfolding).
    pub fn n_coefficients(&self, id: usize) -> Result<usize> {
        Ok(self.block("block", id)?.n_coefficients())
    }

    /// Degenerate components of the levels of block `id` (1, 2 or 3).
    pub fn ndeg(&self, id: usize) -> Result<usize> {
        Ok(self.block("block", id)?.ndeg)
    }

    /// Number of states stored for block `id`.
    pub fn n_states(&self, id: usize) -> Result<usize> {
        Ok(self.block("block", id)?.energies.len())
    }

    /// J of block `id`.
    pub fn j(&self, id: usize) -> Result<u32> {
        Ok(self.block("block", id)?.j)
    }

    /// Stores the eigenstates of block `id`: `energies` (cm^-1) and the vectors as the columns of
    /// `vectors` (`n_coefficients x n_states`, leading dimension `ld`). Replaces earlier states.
    /// On the GPU the vectors are kept in device memory.
    pub fn set_states(&mut self, id: usize, energies: &[f64], vectors: &[f64], ld: usize) -> Result<()> {
        self.store_states(id, energies, vectors, ld, false)
    }

    /// As [`LineStrength::set_states`], with the vectors kept in host memory (a copy held by the
    /// handle), for blocks whose states do not fit on the GPU beside the others: as the lower
    /// block of a line list they go to the device one batch at a time, each batch's upload
    /// overlapped with the previous batch's products (two page-locked staging buffers of
    /// `params.batch` vectors, a copy stream); as an upper block they are uploaded whole for the
    /// line list that needs them and freed after it. The numbers are those of `set_states`. On
    /// the CPU backend this is `set_states`.
    pub fn set_states_on_host(&mut self, id: usize, energies: &[f64], vectors: &[f64], ld: usize) -> Result<()> {
        self.store_states(id, energies, vectors, ld, true)
    }

    fn store_states(&mut self, id: usize, energies: &[f64], vectors: &[f64], ld: usize, on_host: bool) -> Result<()> {
        let rows = self.block("block", id)?.n_coefficients();
        if energies.is_empty() {
            return Err(Error::invalid("n_states", "must be >= 1"));
        }
        for (i, &e) in energies.iter().enumerate() {
            require_in_range("energies", Some(i), e, -MAX_ENERGY_CM, MAX_ENERGY_CM, "cm^-1")?;
        }
        check_matrix("vectors", vectors.len(), rows, energies.len(), ld)?;
        for s in 0..energies.len() {
            if let Some(r) = vectors[s * ld..s * ld + rows].iter().position(|x| !x.is_finite()) {
                return Err(Error::invalid_at("vectors", r + ld * s, "must be finite"));
            }
        }
        let energies = memory::copy_of("the state energies", energies)?;
        let packed = cpu::packed_columns("the stored states", vectors, rows, ld, (0..energies.len()).map(|s| s * ld))?;
        match &mut self.engine {
            Engine::Cpu(team) => {
                for e in &mut team[1..] {
                    e.set_states(id, memory::copy_of("the stored states", &packed)?);
                }
                team[0].set_states(id, packed);
            }
            Engine::Cuda(team) => {
                let packed = Arc::new(packed);
                for e in team {
                    e.set_states(id, &energies, &packed, on_host)?;
                }
            }
        }
        self.blocks[id].energies = energies;
        self.blocks[id].labels = None;
        Ok(())
    }

    /// Gives the stored states of block `id` the caller's IDs (written in the `.states` and
    /// `.trans` files and returned in every [`Line`]; each >= 1 and distinct within the block)
    /// and order keys (TROVE's position of each state in its energy-sorted level list: the TROVE
    /// `.trans` writer sorts lines by them). One of each per stored state; replaced by the next
    /// [`LineStrength::set_states`] of the block, which drops them. Without labels a state's ID
    /// is its running number ([`LineStrength::state_id`]) and its order key the same number.
    pub fn set_state_labels(&mut self, id: usize, ids: &[i64], order: &[i64]) -> Result<()> {
        let stored = self.block("block", id)?.energies.len();
        if stored == 0 {
            return Err(Error::invalid(
                "block",
                format!("block {id} has no stored states to label (set_states first)"),
            ));
        }
        for (name, values) in [("ids", ids), ("order", order)] {
            if values.len() != stored {
                return Err(Error::invalid(
                    name,
                    format!("must have one entry per stored state of block {id} ({stored}), got {}", values.len()),
                ));
            }
        }
        if let Some(i) = ids.iter().position(|&x| x < 1) {
            return Err(Error::invalid_at("ids", i, format!("must be >= 1 (state IDs count from 1), got {}", ids[i])));
        }
        let mut sorted = memory::collect("the state IDs", ids.iter().copied().enumerate().map(|(i, x)| (x, i)))?;
        sorted.sort_unstable();
        if let Some(w) = sorted.windows(2).find(|w| w[0].0 == w[1].0) {
            return Err(Error::invalid_at(
                "ids",
                w[0].1.max(w[1].1),
                format!("must be distinct within the block: {} repeats an earlier ID", w[0].0),
            ));
        }
        let labels = StateLabels {
            ids: memory::copy_of("the state IDs", ids)?,
            order: memory::copy_of("the order keys", order)?,
        };
        self.blocks[id].labels = Some(labels);
        Ok(())
    }

    /// Computes the dipole products of a batch of lower states of block `id` (the first step of
    /// eq. 14): `vectors` is `n_coefficients x n` with leading dimension `ld`. Primitive coefficients
    /// with |c| <= `thresh_coeff` are skipped (TROVE's THRESH_COEFF).
    pub fn load_lower(&mut self, id: usize, n: usize, vectors: &[f64], ld: usize, thresh_coeff: f64) -> Result<()> {
        let rows = self.block("block", id)?.n_coefficients();
        if n == 0 {
            return Err(Error::invalid("n_lower", "must be >= 1"));
        }
        check_matrix("vectors", vectors.len(), rows, n, ld)?;
        for i in 0..n {
            if let Some(r) = vectors[i * ld..i * ld + rows].iter().position(|x| !x.is_finite()) {
                return Err(Error::invalid_at(
                    "vectors",
                    r + ld * i,
                    format!("must be finite, got {}", vectors[r + ld * i]),
                ));
            }
        }
        check_threshold("thresh_coeff", thresh_coeff)?;
        self.load(id, LowerVectors::Given { data: vectors, ld, n }, thresh_coeff)
    }

    /// As [`LineStrength::load_lower`], for stored states of block `id` (by 0-based index): their
    /// vectors are already where the engine works (on the GPU: on the device), so nothing is copied.
    pub fn load_lower_states(&mut self, id: usize, states: &[usize], thresh_coeff: f64) -> Result<()> {
        self.check_states(id, states)?;
        check_threshold("thresh_coeff", thresh_coeff)?;
        self.load(id, LowerVectors::Stored(states), thresh_coeff)
    }

    /// Checks `states` names stored states of block `id`.
    fn check_states(&self, id: usize, states: &[usize]) -> Result<()> {
        let stored = self.block("block", id)?.energies.len();
        if states.is_empty() {
            return Err(Error::invalid("states", "must name at least one state"));
        }
        if let Some(i) = states.iter().position(|&s| s >= stored) {
            return Err(Error::invalid_at(
                "states",
                i,
                format!("must be below the {stored} stored states of block {id}"),
            ));
        }
        Ok(())
    }

    /// Starts copying stored states `states` of block `id` to the GPU when the block keeps its
    /// states on the host ([`LineStrength::set_states_on_host`]), so that a later
    /// [`LineStrength::load_lower_states`] of the same states finds them there: call it after
    /// loading one batch and before working on it, with the next batch, and the copy runs while
    /// the GPU works. Does nothing otherwise (states on the device, or the CPU backend).
    pub fn prefetch_lower_states(&mut self, id: usize, states: &[usize]) -> Result<()> {
        self.check_states(id, states)?;
        match &mut self.engine {
            Engine::Cpu(_) => Ok(()),
            Engine::Cuda(team) => team[0].prefetch_lower(id, &self.blocks[id], states),
        }
    }

    fn load(&mut self, id: usize, vectors: LowerVectors<'_>, thresh_coeff: f64) -> Result<()> {
        self.lower = None;
        let n = vectors.count();
        let block = &self.blocks[id];
        match &mut self.engine {
            Engine::Cpu(team) => team[0].load_lower(id, block, vectors, thresh_coeff)?,
            Engine::Cuda(team) => team[0].load_lower(id, block, vectors, thresh_coeff)?,
        }
        self.lower = Some((id, n));
        Ok(())
    }

    /// Number of registered blocks.
    pub fn n_blocks(&self) -> usize {
        self.blocks.len()
    }

    /// The loaded lower batch: (block, number of states); an error naming `handle` when there is
    /// none (nothing loaded yet, or [`LineStrength::line_list`] has run since).
    pub fn loaded_batch(&self) -> Result<(usize, usize)> {
        self.lower.ok_or_else(|| {
            Error::invalid(
                "handle",
                "has no lower batch loaded (call load_lower / atomgpu_linestrength_load_lower; line_list replaces the batch)",
            )
        })
    }

    /// The loaded lower batch (block, size) and the upper block, checked against the J rules.
    fn pair(&self, upper: usize) -> Result<(usize, usize)> {
        let (lower, n) = self.loaded_batch()?;
        let (j, jp) = (self.blocks[lower].j, self.block("upper_block", upper)?.j);
        if j.abs_diff(jp) > 1 || j + jp == 0 {
            return Err(Error::invalid(
                "upper_block",
                format!("J' = {jp} is not reachable from J = {j} (|J'-J| <= 1 and J+J' >= 1)"),
            ));
        }
        Ok((lower, n))
    }

    /// The contraction table of the pair, built the first time it is asked for.
    fn contraction(&mut self, lower: usize, upper: usize, thresh_coeff: f64) -> (TableKey, Arc<Contraction>) {
        let key = (lower, upper, thresh_coeff.to_bits());
        let (l, u) = (&self.blocks[lower], &self.blocks[upper]);
        let table = self
            .tables
            .entry(key)
            .or_insert_with(|| Arc::new(Contraction::new(l.j, &l.slots, u.j, &u.slots, thresh_coeff)));
        (key, table.clone())
    }

    /// Half-linestrengths (eq. 14) of the loaded lower batch into upper block `upper`:
    /// `out` is `n_primitive(upper) x (ndeg n)` (Debye), leading dimension `ld`, column
    /// `d + ndeg i` for component d of lower state i (ndeg of the lower block). 3j symbols below
    /// `thresh_coeff` are skipped as in TROVE.
    pub fn half_linestrength(&mut self, upper: usize, thresh_coeff: f64, out: &mut [f64], ld: usize) -> Result<()> {
        let (lower, n) = self.pair(upper)?;
        check_threshold("thresh_coeff", thresh_coeff)?;
        let rows = self.blocks[upper].n_primitive();
        let n = self.blocks[lower].columns(n);
        check_matrix("half", out.len(), rows, n, ld)?;
        let (key, table) = self.contraction(lower, upper, thresh_coeff);
        let half = match &mut self.engine {
            Engine::Cpu(team) => team[0].half(&self.blocks[upper], &table)?,
            Engine::Cuda(team) => team[0].half_to_host(key, &self.blocks[upper], &table)?,
        };
        let ndeg = self.blocks[lower].ndeg;
        require_finite_result("half", &half, |e| {
            format!("primitive function {}, lower state {} component {}", e % rows, e / rows / ndeg, e / rows % ndeg)
        })?;
        for i in 0..n {
            out[i * ld..i * ld + rows].copy_from_slice(&half[i * rows..(i + 1) * rows]);
        }
        Ok(())
    }

    /// Transition amplitudes a(f, d_F; i, d_I) = sum_p (T_(d_F) c^f)_p h_p(i, d_I) (eq. 15 before
    /// squaring, Debye; TROVE's `linestr_deg(idegI, idegF)`) of every stored state f of block `upper`
    /// with every state i of the loaded lower batch, for every lower component d_I and upper
    /// component d_F: `n_states(upper) x (ndeg_I n ndeg_F)`, column-major, column
    /// `d_I + ndeg_I (i + n d_F)` (for non-degenerate blocks: `n_states(upper) x n`).
    pub fn amplitudes(&mut self, upper: usize, thresh_coeff: f64) -> Result<Vec<f64>> {
        if self.block("upper_block", upper)?.energies.is_empty() {
            return Err(Error::invalid("upper_block", format!("block {upper} has no states (set_states first)")));
        }
        let (lower, n) = self.pair(upper)?;
        check_threshold("thresh_coeff", thresh_coeff)?;
        let (key, table) = self.contraction(lower, upper, thresh_coeff);
        let amplitudes = match &mut self.engine {
            Engine::Cpu(team) => team[0].amplitudes(upper, &self.blocks[upper], &table)?,
            Engine::Cuda(team) => team[0].amplitudes(key, &self.blocks[upper], &table)?,
        };
        let rows = self.blocks[upper].energies.len();
        let ndeg = self.blocks[lower].ndeg;
        require_finite_result("amplitudes", &amplitudes, |e| {
            format!("upper state {}, lower state {} component {}", e % rows, e / rows / ndeg % n, e / rows % ndeg)
        })?;
        Ok(amplitudes)
    }

    /// Computes the half-linestrengths into upper block `upper` where the engine works (on the
    /// GPU: on the device), waits for them and discards them: the device-side cost of eq. 14 for
    /// the loaded batch without the download, for benchmarks.
    pub fn time_half_linestrength(&mut self, upper: usize, thresh_coeff: f64) -> Result<()> {
        let (lower, _) = self.pair(upper)?;
        check_threshold("thresh_coeff", thresh_coeff)?;
        let (key, table) = self.contraction(lower, upper, thresh_coeff);
        match &mut self.engine {
            Engine::Cpu(team) => {
                team[0].half(&self.blocks[upper], &table)?;
            }
            Engine::Cuda(team) => team[0].half_on_device(key, &self.blocks[upper], &table)?,
        }
        Ok(())
    }

    /// ID of state `state` of block `id`: the caller's ([`LineStrength::set_state_labels`]), or
    /// the ExoMol running number 1 + the states of earlier blocks + `state`.
    pub fn state_id(&self, id: usize, state: usize) -> i64 {
        self.blocks[id].state_id(self.first_running_id(id), state)
    }

    /// Order key of state `state` of block `id` ([`LineStrength::set_state_labels`]).
    pub fn state_order(&self, id: usize, state: usize) -> i64 {
        self.blocks[id].state_order(self.first_running_id(id), state)
    }

    /// [`LineStrength::state_order`] of every stored state as one lookup `(block, state) -> key`,
    /// for sorting many lines (the running numbers of the blocks' first states computed once).
    pub(crate) fn state_orders(&self) -> impl Fn(usize, usize) -> i64 + Sync + '_ {
        let first: Vec<i64> = self
            .blocks
            .iter()
            .scan(1i64, |next, b| {
                let this = *next;
                *next += b.energies.len() as i64;
                Some(this)
            })
            .collect();
        move |block, state| self.blocks[block].state_order(first[block], state)
    }

    /// The running number of the first state of block `id`: 1 + the states of earlier blocks.
    fn first_running_id(&self, id: usize) -> i64 {
        1 + self.blocks[..id].iter().map(|b| b.energies.len() as i64).sum::<i64>()
    }

    /// The line list from the stored states of block `lower` into the stored states of the
    /// blocks `uppers` (the symmetry-allowed partners, J' within 1 of J), with TROVE's windows and
    /// thresholds ([`IntensityParams`]) and no further rule: [`LineStrength::line_list_filtered`]
    /// with [`LineFilters::default`].
    pub fn line_list(&mut self, lower: usize, uppers: &[usize], params: &IntensityParams) -> Result<Vec<Line>> {
        Ok(self.line_list_filtered(lower, uppers, params, &LineFilters::default())?.lines)
    }

    /// The line list from the stored states of block `lower` into the stored states of the
    /// blocks `uppers` (J' within 1 of J), judged by TROVE's rules, windows and thresholds
    /// ([`filters`]) where the amplitudes are computed (on the GPU: on the device; only the kept
    /// lines are copied back), with the count of the pairs kept and dropped. Lines come ordered by
    /// lower state, then upper block (its position in `uppers`), then upper state. The list is
    /// computed in internal batches, so afterwards no lower batch is loaded
    /// ([`LineStrength::loaded_batch`]). A call refused for its arguments changes nothing.
    pub fn line_list_filtered(
        &mut self,
        lower: usize,
        uppers: &[usize],
        params: &IntensityParams,
        filters: &LineFilters,
    ) -> Result<LineList> {
        intensity::check_line_params(params)?;
        filters.check(&self.blocks, self.group.is_some(), params.convention)?;
        let j = self.block("lower_block", lower)?.j;
        if self.blocks[lower].energies.is_empty() {
            return Err(Error::invalid("lower_block", format!("block {lower} has no states (set_states first)")));
        }
        for (i, &u) in uppers.iter().enumerate() {
            let b = self.blocks.get(u).ok_or_else(|| {
                Error::invalid_at("upper_blocks", i, format!("must be a block index below {}", self.blocks.len()))
            })?;
            if b.j.abs_diff(j) > 1 || b.j + j == 0 {
                return Err(Error::invalid_at("upper_blocks", i, format!("J' = {} not reachable from J = {j}", b.j)));
            }
            if b.energies.is_empty() {
                return Err(Error::invalid_at("upper_blocks", i, format!("block {u} has no states")));
            }
        }
        let mut tracker = Tracker::start(c"atomgpu_linestrength_line_list");
        let total = self.blocks[lower].energies.len() as f64;
        let mut lines = Vec::new();
        let counts = self.lines_of_lower(lower, uppers, params, filters, &mut |batch, done| {
            memory::reserve("the line list", &mut lines, batch.len())?;
            lines.extend_from_slice(batch);
            tracker.update(done as f64, total)
        });
        self.end_line_list(&[]);
        let counts = counts?;
        tracker.finish(total)?;
        Ok(LineList { lines, counts })
    }

    /// The whole line list of the handle, streamed: every block with states as the lower block (in
    /// registration order), into every block with states that J' = J'' or J'' +- 1 reaches
    /// (J + J' >= 1), judged as [`LineStrength::line_list_filtered`] judges, one batch of lower
    /// states at a time: `sink` gets each batch's kept lines (ordered by lower state, upper block,
    /// upper state), so the whole list is never held anywhere. Returns the counts over the list.
    pub fn line_list_stream(
        &mut self,
        params: &IntensityParams,
        filters: &LineFilters,
        sink: &mut dyn FnMut(&[Line]) -> Result<()>,
    ) -> Result<LineCounts> {
        let mut tracker = Tracker::start(c"atomgpu_linestrength_line_list_stream");
        let counts = self.stream_tracked(params, filters, &mut tracker, sink)?;
        tracker.finish(self.stored_states() as f64)?;
        Ok(counts)
    }

    /// The number of states stored in all blocks (the `total` of a streamed list's progress).
    fn stored_states(&self) -> usize {
        self.blocks.iter().map(|b| b.energies.len()).sum()
    }

    /// [`LineStrength::line_list_stream`] reporting to `tracker` (lower states done of all stored
    /// states, after each batch) without its final report, which the caller makes when the
    /// streamed lines are where they belong ([`exomol::write_line_list`]: synced, before the
    /// files are committed).
    pub(crate) fn stream_tracked(
        &mut self,
        params: &IntensityParams,
        filters: &LineFilters,
        tracker: &mut Tracker,
        sink: &mut dyn FnMut(&[Line]) -> Result<()>,
    ) -> Result<LineCounts> {
        intensity::check_line_params(params)?;
        filters.check(&self.blocks, self.group.is_some(), params.convention)?;
        let total = self.stored_states() as f64;
        let mut counts = LineCounts::default();
        let mut before = 0.0;
        for lower in 0..self.blocks.len() {
            let (j, n_lower) = (self.blocks[lower].j, self.blocks[lower].energies.len());
            if n_lower == 0 {
                continue;
            }
            let uppers: Vec<usize> = (0..self.blocks.len())
                .filter(|&u| {
                    let b = &self.blocks[u];
                    b.j.abs_diff(j) <= 1 && b.j + j >= 1 && !b.energies.is_empty()
                })
                .collect();
            self.end_line_list(&uppers);
            let block_counts = self.lines_of_lower(lower, &uppers, params, filters, &mut |batch, done| {
                sink(batch)?;
                tracker.update(before + done as f64, total)
            });
            self.end_line_list(&uppers);
            counts.add(&block_counts?);
            before += n_lower as f64;
        }
        self.end_line_list(&[]);
        Ok(counts)
    }

    /// After (a lower block of) a line list: no lower batch is loaded any more, and the device
    /// copies of host-held upper blocks are freed but those of `keep`.
    fn end_line_list(&mut self, keep: &[usize]) {
        self.lower = None;
        if let Engine::Cuda(team) = &mut self.engine {
            for e in team {
                e.release_uploads(keep);
            }
        }
    }

    /// The lines from block `lower` into `uppers` (arguments checked), one batch of lower states at
    /// a time: `emit(lines, states done)` after each batch.
    fn lines_of_lower(
        &mut self,
        lower: usize,
        uppers: &[usize],
        params: &IntensityParams,
        filters: &LineFilters,
        emit: &mut dyn FnMut(&[Line], usize) -> Result<()>,
    ) -> Result<LineCounts> {
        let mut counts = LineCounts::default();
        let n_lower = self.blocks[lower].energies.len();
        let (active, rules) = self.upper_rules(lower, uppers, n_lower, params, filters, &mut counts)?;
        if active.is_empty() {
            return Ok(counts);
        }
        let candidates = candidates(&self.blocks, &active, &rules, &self.blocks[lower].energies, &mut counts)?;
        let pairs = self.upper_pairs(lower, &active, rules, params.thresh_coeff)?;
        let batches = even_batches(&candidates, params.batch, self.n_devices());
        let levels = Levels::Stored { first_id: self.first_running_id(lower) };
        let work = (lower, levels, uppers, &pairs[..], params.thresh_coeff);
        self.run_batches(work, &batches, &mut |judged, k| {
            counts.add(&judged.counts);
            emit(&judged.lines, batches[k][batches[k].len() - 1] + 1)
        })?;
        // The loaded batch is no longer the one the handle's first engine holds.
        self.lower = None;
        Ok(counts)
    }

    /// Runs `batches` of the lower levels of `work` = (lower block, where its levels come from,
    /// the upper blocks in the order of the lines, the judged pairs, THRESH_COEFF) on the handle's
    /// engines (spread over all of them when there are several): `add(result, batch index)` gets
    /// each batch's lines in batch order.
    fn run_batches(
        &mut self,
        work: (usize, Levels<'_>, &[usize], &[UpperPair], f64),
        batches: &[&[usize]],
        add: &mut dyn FnMut(&BatchResult, usize) -> Result<()>,
    ) -> Result<()> {
        let (lower, levels, uppers, pairs, thresh_coeff) = work;
        let work = LowerWork { blocks: &self.blocks, lower, levels, uppers, pairs, thresh_coeff };
        let mut engines: Vec<EngineRef<'_>> = match &mut self.engine {
            Engine::Cpu(team) => team.iter_mut().map(EngineRef::Cpu).collect(),
            Engine::Cuda(team) => team.iter_mut().map(EngineRef::Cuda).collect(),
        };
        if let [engine] = &mut engines[..] {
            for k in 0..batches.len() {
                add(&work.run(engine, batches[k], batches.get(k + 1).copied())?, k)?;
            }
            Ok(())
        } else {
            spread_batches(&work, &mut engines, batches, add)
        }
    }

    /// The blocks of `uppers` that the rules of `filters` allow for the lower block `lower`, with
    /// the line rule of each; `counts` gets the pairs of `n_lower` lower levels with every block of
    /// `uppers`, and those the rules drop.
    fn upper_rules(
        &self,
        lower: usize,
        uppers: &[usize],
        n_lower: usize,
        params: &IntensityParams,
        filters: &LineFilters,
        counts: &mut LineCounts,
    ) -> Result<(Vec<usize>, Vec<filters::LineRule>)> {
        let mut active = Vec::new();
        for &u in uppers {
            let pairs = (n_lower * self.blocks[u].energies.len()) as u64;
            counts.pairs += pairs;
            if filters.allows(&self.blocks[lower], &self.blocks[u], params.convention) {
                memory::reserve("the line rules", &mut active, 1)?;
                active.push(u);
            } else {
                counts.dropped_by_rules += pairs;
            }
        }
        let filter_group = if filters.filters_components(params.convention) { self.group.as_ref() } else { None };
        let (lb, blocks) = (&self.blocks[lower], &self.blocks);
        let rules = memory::collect(
            "the line rules",
            active.iter().map(|&u| {
                let ub = &blocks[u];
                let components = ComponentRule::new(
                    lb.ndeg,
                    lb.gamma as usize,
                    ub.ndeg,
                    ub.gamma as usize,
                    filters.reduced,
                    filter_group,
                );
                filters::LineRule::new(lb, ub, params, &components)
            }),
        )?;
        Ok((active, rules))
    }

    /// The judged pairs of the lower block `lower` with the `active` upper blocks (their `rules`),
    /// with the contraction tables, built where missing.
    fn upper_pairs(
        &mut self,
        lower: usize,
        active: &[usize],
        rules: Vec<filters::LineRule>,
        thresh_coeff: f64,
    ) -> Result<Vec<UpperPair>> {
        let mut pairs = Vec::new();
        for (&u, rule) in active.iter().zip(rules) {
            let (key, table) = self.contraction(lower, u, thresh_coeff);
            memory::reserve("the line rules", &mut pairs, 1)?;
            pairs.push(UpperPair { block: u, key, table, rule, first_id: self.first_running_id(u) });
        }
        Ok(pairs)
    }

    pub(crate) fn blocks(&self) -> &[Block] {
        &self.blocks
    }
}

/// The lower levels (indices into `energies`) with a pair inside the windows of some `active`
/// upper block (its rule in `rules`): the others are dropped without computing anything, and
/// counted in `counts`.
fn candidates(
    blocks: &[Block],
    active: &[usize],
    rules: &[filters::LineRule],
    energies: &[f64],
    counts: &mut LineCounts,
) -> Result<Vec<usize>> {
    let active_upper_states: usize = active.iter().map(|&u| blocks[u].energies.len()).sum();
    let mut candidates = Vec::new();
    for (i, &e) in energies.iter().enumerate() {
        let any = active.iter().zip(rules).any(|(&u, r)| blocks[u].energies.iter().any(|&eu| r.inside_windows(e, eu)));
        if any {
            memory::reserve("the lower states of the line list", &mut candidates, 1)?;
            candidates.push(i);
        } else {
            counts.dropped_by_windows += active_upper_states as u64;
        }
    }
    Ok(candidates)
}

/// `states` cut, in order, into batches of at most `batch` states; for several engines their
/// number is also a multiple of `engines` (or one state each, when there are fewer states) and
/// their sizes differ by at most one, so that every engine gets the same work: 853 states in
/// batches of 64 make 14 batches, which would leave two of four GPUs idle for the last round,
/// but 16 batches of 53-54 do not.
pub fn even_batches(states: &[usize], batch: usize, engines: usize) -> Vec<&[usize]> {
    if engines <= 1 || states.is_empty() {
        return states.chunks(batch).collect();
    }
    let count = states.len().div_ceil(batch).next_multiple_of(engines).min(states.len());
    let (base, longer) = (states.len() / count, states.len() % count);
    let mut rest = states;
    (0..count)
        .map(|i| {
            let (first, tail) = rest.split_at(base + usize::from(i < longer));
            rest = tail;
            first
        })
        .collect()
}

/// An upper block of a lower block's line list, with what judging its pairs needs.
struct UpperPair {
    block: usize,
    key: TableKey,
    table: Arc<Contraction>,
    rule: filters::LineRule,
    /// Running number of its first state.
    first_id: i64,
}

/// The lines of one lower block: what every batch's work reads.
struct LowerWork<'a> {
    blocks: &'a [Block],
    lower: usize,
    /// Where the lower levels come from (what a batch's indices name).
    levels: Levels<'a>,
    /// The upper blocks as the caller listed them (the order of the lines).
    uppers: &'a [usize],
    /// The upper blocks the rules allow.
    pairs: &'a [UpperPair],
    thresh_coeff: f64,
}

/// The lower levels of a [`LowerWork`].
#[derive(Clone, Copy)]
enum Levels<'a> {
    /// The stored states of the lower block, named by index; their IDs run from `first_id`.
    Stored { first_id: i64 },
    /// The caller's levels of a streamed batch ([`stream::LowerBatch`]), named by their position
    /// in it.
    Given(&'a stream::LowerBatch<'a>),
}

/// The kept lines of one batch of lower states and its counts.
#[derive(Default)]
struct BatchResult {
    lines: Vec<Line>,
    counts: LineCounts,
}

impl LowerWork<'_> {
    /// Loads lower states `batch` on `engine` and judges their pairs with every upper block;
    /// `next` is the batch this engine takes next (its upload starts here when its states are
    /// held on the host). Lines come ordered by lower state, upper block, upper state.
    fn run(&self, engine: &mut EngineRef<'_>, batch: &[usize], next: Option<&[usize]>) -> Result<BatchResult> {
        let lb = &self.blocks[self.lower];
        let given;
        let (vectors, next) = match self.levels {
            Levels::Stored { .. } => (LowerVectors::Stored(batch), next),
            Levels::Given(levels) => {
                given = levels.columns(batch, lb.n_coefficients())?;
                (LowerVectors::Given { data: &given.0, ld: given.1, n: batch.len() }, None)
            }
        };
        match engine {
            EngineRef::Cpu(e) => e.load_lower(self.lower, lb, vectors, self.thresh_coeff)?,
            EngineRef::Cuda(e) => {
                e.load_lower(self.lower, lb, vectors, self.thresh_coeff)?;
                if let Some(next) = next {
                    e.prefetch_lower(self.lower, lb, next)?;
                }
            }
        }
        let (lower_energies, lower_id): (Vec<f64>, &dyn Fn(usize) -> i64) = match self.levels {
            Levels::Stored { first_id } => {
                (memory::collect("the lower energies", batch.iter().map(|&s| lb.energies[s]))?, &move |s| {
                    lb.state_id(first_id, s)
                })
            }
            Levels::Given(levels) => {
                (memory::collect("the lower energies", batch.iter().map(|&s| levels.energies[s]))?, &|s| levels.ids[s])
            }
        };
        let mut result = BatchResult::default();
        for pair in self.pairs {
            let ub = &self.blocks[pair.block];
            let rule = filters::LineRule { n_levels: batch.len() as i64, ..pair.rule };
            let level = match self.levels {
                Levels::Stored { .. } => "state",
                Levels::Given(_) => "level (of the lower batch)",
            };
            let describe = |i: usize, f: usize| {
                format!("from {level} {} of block {} to state {f} of block {}", batch[i], self.lower, pair.block)
            };
            let judged = match engine {
                EngineRef::Cpu(e) => {
                    let amplitudes = e.amplitudes(pair.block, ub, &pair.table)?;
                    filters::judge_batch(&rule, &amplitudes, &lower_energies, &ub.energies, &describe)?
                }
                EngineRef::Cuda(e) => e.judge_batch(pair.key, ub, &pair.table, &lower_energies, &rule, &describe)?,
            };
            result.counts.dropped_by_windows += judged.dropped_by_windows;
            result.counts.dropped_by_thresholds += judged.dropped_by_thresholds;
            result.counts.kept += judged.lines.len() as u64;
            memory::reserve("the line list", &mut result.lines, judged.lines.len())?;
            result.lines.extend(judged.lines.iter().map(|l| Line {
                upper_id: ub.state_id(pair.first_id, l.upper_state as usize),
                lower_id: lower_id(batch[l.level as usize]),
                upper_block: pair.block,
                upper_state: l.upper_state as usize,
                lower_block: self.lower,
                lower_state: batch[l.level as usize],
                wavenumber: l.wavenumber,
                linestrength: l.linestrength,
                einstein_a: l.einstein_a,
                intensity: l.intensity,
            }));
        }
        // Keys are unique per line, so the unstable sort (which allocates nothing) gives this order.
        let uppers = self.uppers;
        result
            .lines
            .sort_unstable_by_key(|l| (l.lower_state, uppers.iter().position(|&u| u == l.upper_block), l.upper_state));
        Ok(result)
    }
}

/// Runs the batches of `work` on several engines at once, one thread each (engine e takes
/// batches e, e + n, ...), and hands the results to `add(result, batch index)` in batch order on
/// the calling thread. An engine runs at most `2 n` batches ahead of the last one handed over, so
/// that the lines waiting for their turn stay bounded. The first error (of an engine or of `add`)
/// stops every engine after its current batch and is returned.
fn spread_batches(
    work: &LowerWork<'_>,
    engines: &mut [EngineRef<'_>],
    batches: &[&[usize]],
    add: &mut dyn FnMut(&BatchResult, usize) -> Result<()>,
) -> Result<()> {
    let n = engines.len();
    // (batches handed over, stop) behind one lock; engines wait on `turn` when too far ahead.
    let state = Mutex::new((0usize, false));
    let turn = Condvar::new();
    std::thread::scope(|scope| {
        let (send, receive) = mpsc::channel::<(usize, Result<BatchResult>)>();
        for (e, engine) in engines.iter_mut().enumerate() {
            let (send, state, turn) = (send.clone(), &state, &turn);
            scope.spawn(move || {
                let mine: Vec<usize> = (e..batches.len()).step_by(n).collect();
                for (m, &k) in mine.iter().enumerate() {
                    {
                        let mut s = state.lock().unwrap_or_else(|p| p.into_inner());
                        while !s.1 && k >= s.0 + 2 * n {
                            s = turn.wait(s).unwrap_or_else(|p| p.into_inner());
                        }
                        if s.1 {
                            return;
                        }
                    }
                    let next = mine.get(m + 1).map(|&k| batches[k]);
                    // The engine's own pool in a forked child (backend::threads::run_in).
                    let result = threads::run_in(e + 1, || work.run(engine, batches[k], next)).and_then(|r| r);
                    let failed = result.is_err();
                    if send.send((k, result)).is_err() || failed {
                        return;
                    }
                }
            });
        }
        drop(send);
        let mut waiting = HashMap::new();
        let mut outcome = Ok(());
        for (k, result) in receive.iter() {
            match result {
                Ok(r) => {
                    waiting.insert(k, r);
                }
                Err(e) => outcome = Err(e),
            }
            let mut handed = state.lock().unwrap_or_else(|p| p.into_inner()).0;
            while outcome.is_ok() {
                let Some(r) = waiting.remove(&handed) else { break };
                outcome = add(&r, handed);
                handed += 1;
            }
            let mut s = state.lock().unwrap_or_else(|p| p.into_inner());
            (s.0, s.1) = (handed, outcome.is_err());
            turn.notify_all();
            if outcome.is_err() {
                break;
            }
        }
        outcome
    })
}

/// Checks a threshold (THRESH_COEFF and the like): finite and >= 0.
pub fn check_threshold(name: &'static str, value: f64) -> Result<()> {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        Err(Error::invalid(name, format!("must be finite and >= 0, got {value}")))
    }
}

fn validate_unfolding(u: &Unfolding<'_>, n_primitive: usize) -> Result<(Csr, Csr)> {
    if !(1..=MAX_DEGENERACY).contains(&u.ndeg) {
        return Err(Error::invalid("ndeg", format!("must be 1, 2 or 3 (components of a level), got {}", u.ndeg)));
    }
    if u.n_sym == 0 || u.n_sym > n_primitive {
        return Err(Error::invalid(
            "n_sym",
            format!(
                "must be in [1, n_primitive = {n_primitive}] (a symmetrised basis has no more functions than the \
                 primitive one it is built from), got {}",
                u.n_sym
            ),
        ));
    }
    let rows = u.ndeg * n_primitive;
    if u.row_start.len() != rows + 1 || u.row_start[0] != 0 {
        return Err(Error::invalid(
            "row_start",
            format!(
                "must have ndeg n_primitive + 1 = {} entries starting at 0 (one row per primitive function and \
                 component), got {} entries",
                rows + 1,
                u.row_start.len()
            ),
        ));
    }
    for r in 0..rows {
        let entries = u.row_start[r + 1].checked_sub(u.row_start[r]).unwrap_or(-1);
        if !(0..=u.n_sym as i64).contains(&entries) {
            return Err(Error::invalid_at(
                "row_start",
                r + 1,
                format!("row {r} must have 0 to n_sym = {} entries", u.n_sym),
            ));
        }
    }
    for d in 0..u.ndeg {
        if u.ndeg > 1 && u.row_start[(d + 1) * n_primitive] == u.row_start[d * n_primitive] {
            return Err(Error::invalid_at(
                "row_start",
                (d + 1) * n_primitive,
                format!(
                    "component {d} (rows {}..{}) has no entry: a level of a degenerate species needs all its {} \
                     components",
                    d * n_primitive,
                    (d + 1) * n_primitive,
                    u.ndeg
                ),
            ));
        }
    }
    let nnz = u.row_start[rows] as usize;
    if u.col.len() < nnz || u.value.len() < nnz {
        return Err(Error::invalid(
            "col",
            format!("col and value must hold row_start[ndeg n_primitive] = {nnz} entries"),
        ));
    }
    for e in 0..nnz {
        if u.col[e] < 0 || u.col[e] as usize >= u.n_sym {
            return Err(Error::invalid_at("col", e, format!("must be in [0, n_sym = {}), got {}", u.n_sym, u.col[e])));
        }
        require_finite("value", Some(e), u.value[e])?;
    }
    let t = Csr {
        rows,
        cols: u.n_sym,
        start: memory::copy_of("the unfolding", u.row_start)?,
        col: memory::copy_of("the unfolding", &u.col[..nnz])?,
        value: memory::copy_of("the unfolding", &u.value[..nnz])?,
    };
    let projection = t.component_transposes(u.ndeg)?;
    Ok((t, projection))
}
