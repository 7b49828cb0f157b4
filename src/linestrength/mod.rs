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
//!
//! The module's files: this one holds the handle ([`LineStrength`]: creation, blocks, the loaded
//! lower batch and its products) and the types of its calls; `block` the blocks and their
//! checks, `states` the stored states, `line_list` the line lists, `schedule` the batches and the
//! engines they run on, `stream` the caller's lower batches, `cpu` and `cuda` the engines.

mod block;
pub mod cpu;
mod cuda;
pub mod exomol;
pub mod filters;
pub mod fortran_format;
pub mod intensity;
mod line_list;
pub mod moments;
pub mod rotation;
pub mod rotsym;
mod schedule;
mod states;
pub mod stream;
pub mod symmetry;
pub mod trove;

pub(crate) use block::{Block, Csr};
pub use block::{BlockSpec, StateLabels, Unfolding};
pub use filters::{LineCounts, LineFilters, LineList};
pub use intensity::{Action, Constants, Convention};
pub use rotation::MAX_J;
pub use schedule::even_batches;
pub use stream::LowerBatch;
pub use symmetry::{ComponentRule, SymmetryGroup, MAX_DEGENERACY};

use crate::backend::{self, Backend, DeviceSet};
use crate::error::{require_finite_result, Error, Result};
use crate::math::scalar::first_non_finite;
use crate::memory;
use rotation::{Contraction, COMPONENTS};
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

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
        if let Some(at) = first_non_finite(dipole, n_vib, columns, ld) {
            return Err(Error::invalid_at("dipole", at, "must be finite"));
        }
        let engine = match devices.first() {
            Backend::Cpu => {
                let packed = cpu::packed_columns("the dipole matrix", dipole, n_vib, ld, (0..columns).map(|c| c * ld))?;
                let mut team = Vec::new();
                for _ in 1..devices.len() {
                    memory::reserve("the engines", &mut team, 1)?;
                    team.push(cpu::Engine::new(n_vib, memory::copy_of("the dipole matrix", &packed)?));
                }
                team.insert(0, cpu::Engine::new(n_vib, packed));
                Engine::Cpu(team)
            }
            Backend::Cuda(_) => {
                // The GPUs copy the caller's matrix itself when its columns are packed, all at once.
                let packed = cpu::packed_matrix("the dipole matrix", dipole, n_vib, columns, ld)?;
                let members: Vec<&Backend> = devices.members().iter().collect();
                let team = backend::fan_out(&AtomicBool::new(false), members, |_, member, _| match member {
                    Backend::Cuda(device) => cuda::Engine::new(device.clone(), n_vib, &packed, options),
                    Backend::Cpu => Err(Error::Internal("a device set mixes CPU engines and GPUs".into())),
                })?;
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

    /// Computes the dipole products of a batch of lower states of block `id` (the first step of
    /// eq. 14): `vectors` is `n_coefficients x n` with leading dimension `ld`. Primitive coefficients
    /// with |c| <= `thresh_coeff` are skipped (TROVE's THRESH_COEFF).
    pub fn load_lower(&mut self, id: usize, n: usize, vectors: &[f64], ld: usize, thresh_coeff: f64) -> Result<()> {
        let rows = self.block("block", id)?.n_coefficients();
        if n == 0 {
            return Err(Error::invalid("n_lower", "must be >= 1"));
        }
        check_matrix("vectors", vectors.len(), rows, n, ld)?;
        if let Some(at) = first_non_finite(vectors, rows, n, ld) {
            return Err(Error::invalid_at("vectors", at, format!("must be finite, got {}", vectors[at])));
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

    pub(crate) fn blocks(&self) -> &[Block] {
        &self.blocks
    }
}

/// Checks a threshold (THRESH_COEFF and the like): finite and >= 0.
pub fn check_threshold(name: &'static str, value: f64) -> Result<()> {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        Err(Error::invalid(name, format!("must be finite and >= 0, got {value}")))
    }
}
