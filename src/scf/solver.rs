//! The atomic SCF (CPU reference and GPU supermatrix): non-relativistic Hartree-Fock-Roothaan or
//! Dirac-Fock-Roothaan, closed shells and average-of-configuration open shells (one open shell
//! per symmetry, DFRATOM's `$econfig`), in the supermatrix formulation of [`super::ScfIntegrals`].
//!
//! **Energy.** Per symmetry a with capacity N_a per orbital (2(2l+1) non-relativistic, 2j+1 = 2|κ|
//! Dirac), closed orbitals (occupation N_a) and at most one open orbital with q_a electrons
//! (0 < q_a < N_a), D_C = Σ_closed N c cᵀ, D_O = q c_o c_oᵀ, D = D_C + D_O:
//!
//! ```text
//! E = Σ_a tr(D^a h^a) + ½ D'ᵀ G D' + Σ_open ½ f_a D_O'ᵀ G_aa D_O',     f_a = -(N_a - q_a) / (q_a (N_a - 1)),
//! ```
//!
//! (hartree). The first two terms are the closed-shell formula applied to D; the last corrects
//! the open shell's interaction with itself to the average of configuration: q(q-1)/2 pairs of
//! average energy N/(N-1) [F^0 - ν Σ_k w_k F^k] instead of ½ q² [F^0 - ν Σ_k w_k F^k] (ν w_k the
//! exchange factors of the supermatrix; Slater, *Quantum Theory of Atomic Structure* II, ch. 21;
//! Grant, *Relativistic Quantum Theory of Atoms and Molecules*, §6.7). It uses the diagonal block
//! G_aa of the same supermatrix: no other integrals.
//!
//! **Fock operators and iteration.** F_C = ∂E/∂D_C = h + G D and F_O = ∂E/∂D_O = F_C + f_a G_aa D_O.
//! Each cycle builds both from the current densities and, in the orthonormal orbitals C that gave
//! those densities, forms one matrix R: R = Cᵀ F_C C except the open-open and open-virtual blocks (from
//! F_O) and the closed-open block (N F_C - q F_O)/(N - q), which vanishes exactly when the energy
//! is stationary under closed-open rotations (δE = 2θ (N F_C - q F_O)_{ci}). Converged orbitals
//! make R block-diagonal, and its eigenvalues are the orbital energies (F_C for closed, F_O for
//! open orbitals). Its blocks between orbitals of different classes (negative-energy, closed,
//! open, virtual) are the orbital gradient; the cycle's `gradient` is its largest element over
//! the gap of the two orbitals, max |R_ij| / max(1 hartree, |R_ii − R_jj|) (dimensionless where
//! gaps exceed a hartree: the rotation a Newton step would make). The next orbitals are the eigenvectors of R, or, with DIIS (`diis_size` >
//! 0, the default), of the DIIS extrapolation of the last cycles' R ([`super::diis`]); with
//! `diis_size` = 0 the Fock matrices are damped instead (F ← (1 - d) F + d F_previous, DFRATOM's
//! `dfctr`, default 0.3), DFRATOM's iteration. The start is the core Hamiltonian h, diagonalised in the canonically
//! orthogonalised basis (eigenvectors of S with s < 1e-10 max(s) dropped, per component block:
//! near-linear dependence). Dirac symmetries occupy the lowest orbitals of the electronic
//! (positive-energy) branch: in a kinetically balanced basis the matrix has as many
//! negative-energy states as small functions (the lowest ones, below -2c², the top of the Dirac
//! sea; orbital energies exclude the rest energy c²), and the orbitals above them are the
//! electronic ones. A lowest electronic orbital at or below -2c² has dived into the negative-energy
//! continuum: the nuclear charge is beyond the critical one of its nucleus (about 170 for a
//! Gaussian or Fermi nucleus and c = 137.036; a point nucleus is refused from Z = c on:
//! [`super::radial::check_dirac_nucleus`]), and the SCF refuses it naming `nuclear_charge`.
//!
//! **Convergence.** With DIIS the SCF stops when the energy changes by at most
//! `threshold_energy` × max(1, |E|) (default 1e-12: relative, as rounding in E is) from one cycle
//! to the next and the gradient is at most `threshold_gradient` (default 1e-6): both are invariant
//! under the near-linear dependence of dense even-tempered bases, where density elements are large
//! and their raw changes stall near 1e-9 at rounding. Without DIIS it stops as DFRATOM does, when the largest
//! change of a density element falls below `threshold_large` in the large-large blocks (`thdll`,
//! default 1e-5) and below `threshold_small` in the small-large and small-small blocks (`thdsl`,
//! default 1e-7). Either way it refuses after `max_iterations` (at most [`MAX_ITERATIONS`]) with
//! the last energy in the message. The energy is evaluated from the converged densities with their
//! undamped Fock matrices, the orbital energies are the eigenvalues of their R; a non-finite energy
//! or orbital energy is [`Error::NotFinite`] naming `energies` or `orbital_energies`.
//!
//! **Progress.** [`scf`] and [`scf_attempt`] are the long call `atomgpu_scf_run` of the calling
//! thread ([`crate::progress`]): its progress callback hears `done` = the cycles completed (while
//! the supermatrix is computed before the first cycle, the fraction of it done) of `total` =
//! `max_iterations` (the final report gives `total` of `total`), and it or the time limit stops
//! the SCF with [`Error::Cancelled`].

use super::diis::Diis;
use super::one_electron::{one_electron, Nucleus};
use super::radial::{check_dirac_nucleus, dirac_one_electron};
use super::{tracked, Blocks, ScfIntegrals, Spinor, Symmetry, Watch};
use crate::backend::Backend;
use crate::error::{require_finite_result, Error, Result};
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::evd::{self_adjoint_evd, self_adjoint_evd_scratch, ComputeEigenvectors};
use faer::{Mat, MatRef, Par};
use rayon::prelude::*;

/// The basis and Hamiltonian of an SCF.
#[derive(Clone, Debug, PartialEq)]
pub enum Basis {
    /// Non-relativistic Hartree-Fock: one symmetry per l.
    NonRelativistic(Vec<Symmetry>),
    /// Dirac-Fock with speed of light c (au; DFRATOM's default
    /// [`super::one_electron::DFRATOM_SPEED_OF_LIGHT`]): one symmetry per κ.
    Dirac { speed_of_light: f64, spinors: Vec<Spinor> },
}

impl Basis {
    /// The number of symmetries.
    pub fn n_symmetries(&self) -> usize {
        match self {
            Basis::NonRelativistic(s) => s.len(),
            Basis::Dirac { spinors, .. } => spinors.len(),
        }
    }

    /// The exponents (bohr⁻²) of symmetry i.
    pub fn exponents(&self, i: usize) -> &[f64] {
        match self {
            Basis::NonRelativistic(s) => &s[i].exponents,
            Basis::Dirac { spinors, .. } => &spinors[i].exponents,
        }
    }

    /// Electrons one orbital of symmetry i holds: 2(2l+1) or 2|κ|.
    pub fn capacity(&self, i: usize) -> f64 {
        match self {
            Basis::NonRelativistic(s) => (2 * (2 * s[i].l + 1)) as f64,
            Basis::Dirac { spinors, .. } => (2 * spinors[i].kappa.unsigned_abs()) as f64,
        }
    }

    /// The supermatrix blocks of this basis.
    pub fn blocks(&self) -> Result<Blocks> {
        match self {
            Basis::NonRelativistic(s) => Blocks::non_relativistic(s),
            Basis::Dirac { speed_of_light, spinors } => Blocks::dirac(spinors, *speed_of_light),
        }
    }
}

/// The occupation of one symmetry: `closed` fully occupied orbitals, then one open orbital with
/// `open_electrons` electrons (0 for none; otherwise 0 < q <= capacity: a full "open" shell, as
/// DFRATOM inputs write some, is a closed one).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Occupation {
    pub closed: usize,
    pub open_electrons: f64,
}

impl Occupation {
    /// Closed orbitals only.
    pub fn closed(closed: usize) -> Self {
        Occupation { closed, open_electrons: 0.0 }
    }

    /// The same occupation with a full open shell counted as closed.
    fn with_full_shells_closed(self, capacity: f64) -> Self {
        if self.open_electrons == capacity {
            Occupation::closed(self.closed + 1)
        } else {
            self
        }
    }
}

/// An SCF calculation (module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct ScfSpec {
    pub basis: Basis,
    /// Nuclear charge Z (> 0).
    pub nuclear_charge: f64,
    pub nucleus: Nucleus,
    /// One per symmetry.
    pub occupations: Vec<Occupation>,
    /// Fock damping d in [0, 1) (DFRATOM `dfctr`, default 0.3), used without DIIS.
    pub damping: f64,
    /// Without DIIS, the convergence threshold on the large-large density blocks (`thdll`,
    /// default 1e-5).
    pub threshold_large: f64,
    /// Without DIIS, the threshold on the small-large and small-small blocks (`thdsl`, default
    /// 1e-7; unused without small components).
    pub threshold_small: f64,
    /// Most SCF cycles, 1 to [`MAX_ITERATIONS`] (DFRATOM `maxitr`, default 50).
    pub max_iterations: usize,
    /// Cycles in the DIIS subspace, 0 to [`MAX_DIIS`] (default 8; 0: DFRATOM's damped iteration
    /// and density thresholds).
    pub diis_size: usize,
    /// With DIIS: the largest energy change between the last two cycles relative to max(1, |E|)
    /// (default 1e-12).
    pub threshold_energy: f64,
    /// With DIIS: the largest orbital-gradient element over its gap (module docs; default 1e-6).
    pub threshold_gradient: f64,
}

/// The largest DIIS subspace.
pub const MAX_DIIS: usize = 100;

/// The most SCF cycles one SCF may take: an SCF that has not met its thresholds in a million
/// cycles will not (DFRATOM's default is 50), and the bound keeps an SCF without a time limit
/// finite.
pub const MAX_ITERATIONS: usize = 1_000_000;

impl ScfSpec {
    /// A calculation with DFRATOM's settings (damping 0.3, thresholds 1e-5 and 1e-7, 50 cycles)
    /// and DIIS over 8 cycles, converged at a relative energy change of 1e-12 and a gradient of
    /// 1e-6.
    pub fn new(basis: Basis, nuclear_charge: f64, nucleus: Nucleus, occupations: Vec<Occupation>) -> Self {
        ScfSpec {
            basis,
            nuclear_charge,
            nucleus,
            occupations,
            damping: 0.3,
            threshold_large: 1e-5,
            threshold_small: 1e-7,
            max_iterations: 50,
            diis_size: 8,
            threshold_energy: 1e-12,
            threshold_gradient: 1e-6,
        }
    }
}

/// The result (hartree).
#[derive(Clone, Debug, PartialEq)]
pub struct ScfResult {
    pub energy: f64,
    /// Σ tr(D t): the free-particle energy, T (non-relativistic) or <c α·p + (β - 1) c²> (Dirac:
    /// the relativistic kinetic energy, rest energy excluded).
    pub kinetic: f64,
    /// Σ tr(D V): the nuclear attraction.
    pub nuclear: f64,
    /// The two-electron energy (average of configuration).
    pub two_electron: f64,
    /// Occupied orbital energies per symmetry, closed ones ascending, then the open one (Dirac:
    /// without the rest energy c²).
    pub orbital_energies: Vec<Vec<f64>>,
    pub iterations: usize,
    /// Whether the thresholds were met (false only from [`scf_attempt`]).
    pub converged: bool,
    /// The energy change of the last cycle (hartree; NaN after one cycle).
    pub energy_change: f64,
    /// The gradient of the last cycle's densities (module docs; without DIIS reported, not used).
    pub gradient: f64,
    /// Per symmetry, the occupied orbitals in the order of `orbital_energies`: m × occupied
    /// values, column-major (m = n, or 2n for Dirac: large then small functions), S-orthonormal
    /// (Cᵀ S C = 1): the eigenvectors of the last R, whose eigenvalues are `orbital_energies`.
    pub coefficients: Vec<Vec<f64>>,
    /// Per symmetry, the total density of those orbitals, D = Σ_i n_i c_i c_iᵀ (n_i the capacity,
    /// or the open shell's electrons), m × m column-major: tr(D S) counts the symmetry's
    /// electrons. With DIIS the energy is that of the densities before this last diagonalisation;
    /// the two differ at the order of the gradient threshold.
    pub densities: Vec<Vec<f64>>,
}

/// One symmetry's fixed data: metric, core Hamiltonian and its kinetic part (m x m), the number
/// of large functions, the capacity N, the occupation and the top of the negative-energy
/// continuum (-2c²; -∞ without small components).
struct Symm {
    s: Mat<f64>,
    h: Mat<f64>,
    t: Mat<f64>,
    n_large: usize,
    capacity: f64,
    occupation: Occupation,
    sea: f64,
}

impl Symm {
    fn dim(&self) -> usize {
        self.s.nrows()
    }

    fn has_open(&self) -> bool {
        self.occupation.open_electrons > 0.0
    }

    /// Orbitals occupied (closed, then the open one).
    fn occupied(&self) -> usize {
        self.occupation.closed + self.has_open() as usize
    }
}

fn check(spec: &ScfSpec) -> Result<()> {
    // The basis first (κ and c decide the capacities the occupations are checked against).
    spec.basis.blocks()?;
    let n_sym = spec.basis.n_symmetries();
    if spec.occupations.len() != n_sym {
        return Err(Error::invalid(
            "occupations",
            format!("must hold one entry per symmetry ({n_sym}), got {}", spec.occupations.len()),
        ));
    }
    for (i, o) in spec.occupations.iter().enumerate() {
        let (n, capacity) = (spec.basis.exponents(i).len(), spec.basis.capacity(i));
        let q = o.open_electrons;
        if !(q.is_finite() && (0.0..=capacity).contains(&q)) {
            return Err(Error::invalid_at(
                "occupations",
                i,
                format!("open_electrons must be in [0, {capacity}] (a full shell counts as a closed one), got {q}"),
            ));
        }
        let orbitals = o.closed + (q > 0.0) as usize;
        if orbitals > n {
            return Err(Error::invalid_at(
                "occupations",
                i,
                format!("{orbitals} occupied orbitals do not fit in {n} functions"),
            ));
        }
    }
    if spec.occupations.iter().all(|o| o.closed == 0 && o.open_electrons == 0.0) {
        return Err(Error::invalid("occupations", "occupy no orbital"));
    }
    if !(0.0..1.0).contains(&spec.damping) {
        return Err(Error::invalid("damping", format!("must be in [0, 1), got {}", spec.damping)));
    }
    for (name, value) in [
        ("threshold_large", spec.threshold_large),
        ("threshold_small", spec.threshold_small),
        ("threshold_energy", spec.threshold_energy),
        ("threshold_gradient", spec.threshold_gradient),
    ] {
        if !(value.is_finite() && value > 0.0) {
            return Err(Error::invalid(name, format!("must be finite and > 0, got {value}")));
        }
    }
    if spec.diis_size > MAX_DIIS {
        return Err(Error::invalid("diis_size", format!("must be in [0, {MAX_DIIS}], got {}", spec.diis_size)));
    }
    if !(1..=MAX_ITERATIONS).contains(&spec.max_iterations) {
        return Err(Error::invalid(
            "max_iterations",
            format!("must be in [1, {MAX_ITERATIONS}], got {}", spec.max_iterations),
        ));
    }
    if !(spec.nuclear_charge.is_finite() && spec.nuclear_charge > 0.0) {
        return Err(Error::invalid("nuclear_charge", format!("must be finite and > 0, got {}", spec.nuclear_charge)));
    }
    if let Basis::Dirac { speed_of_light, .. } = &spec.basis {
        check_dirac_nucleus(spec.nuclear_charge, spec.nucleus, *speed_of_light)?;
    }
    Ok(())
}

fn mat(m: usize, v: &[f64]) -> Mat<f64> {
    Mat::from_fn(m, m, |i, j| v[i + m * j])
}

/// The one-electron data of every symmetry.
/// The results of a parallel map over the symmetries, or the error of the first symmetry (in
/// order) that failed, as a sequential loop would give.
fn in_order<T: Send>(results: impl IndexedParallelIterator<Item = Result<T>>) -> Result<Vec<T>> {
    results.collect::<Vec<Result<T>>>().into_iter().collect()
}

fn symmetries(spec: &ScfSpec) -> Result<Vec<Symm>> {
    in_order((0..spec.basis.n_symmetries()).into_par_iter().map(|i| {
        let capacity = spec.basis.capacity(i);
        let occupation = spec.occupations[i].with_full_shells_closed(capacity);
        let (z, nucleus) = (spec.nuclear_charge, spec.nucleus);
        let at = |e: Error| match e {
            Error::InvalidArgument { rule, .. } => Error::invalid_at("symmetries", i, rule),
            // An overflowing one-electron element makes the kinetic or the nuclear energy.
            Error::NotFinite { name, detail, .. } => Error::NotFinite {
                name: "energies",
                index: Some(if name == "kinetic" { 1 } else { 2 }),
                detail: format!("the one-electron `{name}` matrix of symmetry {i}: {detail}"),
            },
            other => other,
        };
        match &spec.basis {
            Basis::NonRelativistic(s) => {
                let o = one_electron(s[i].l, &s[i].exponents, z, nucleus).map_err(at)?;
                let n = s[i].exponents.len();
                let h: Vec<f64> = o.kinetic.iter().zip(&o.nuclear).map(|(t, v)| t + v).collect();
                Ok(Symm {
                    s: mat(n, &o.overlap),
                    h: mat(n, &h),
                    t: mat(n, &o.kinetic),
                    n_large: n,
                    capacity,
                    occupation,
                    sea: f64::NEG_INFINITY,
                })
            }
            Basis::Dirac { speed_of_light, spinors } => {
                let sp = &spinors[i];
                let o = dirac_one_electron(sp.kappa, &sp.exponents, z, nucleus, *speed_of_light).map_err(at)?;
                let m = 2 * sp.exponents.len();
                let h: Vec<f64> = o.free_hamiltonian.iter().zip(&o.nuclear).map(|(t, v)| t + v).collect();
                Ok(Symm {
                    s: mat(m, &o.overlap),
                    h: mat(m, &h),
                    t: mat(m, &o.free_hamiltonian),
                    n_large: sp.exponents.len(),
                    capacity,
                    occupation,
                    sea: -2.0 * speed_of_light * speed_of_light,
                })
            }
        }
    }))
}

/// A · B, sequential: the matrices are small, and a parallel faer product here was measured to
/// leave later rayon work (the next SCF's supermatrix) 12x slower on 2 cores.
fn product(a: MatRef<'_, f64>, b: MatRef<'_, f64>) -> Mat<f64> {
    let mut c = Mat::<f64>::zeros(a.nrows(), b.ncols());
    faer::linalg::matmul::matmul(c.as_mut(), faer::Accum::Replace, a, b, 1.0, faer::Par::Seq);
    c
}

/// Cᵀ F C, symmetrised.
fn transform(c: &Mat<f64>, f: &Mat<f64>) -> Mat<f64> {
    let r = product(c.transpose(), product(f.as_ref(), c.as_ref()).as_ref());
    Mat::from_fn(r.nrows(), r.ncols(), |i, j| 0.5 * (r[(i, j)] + r[(j, i)]))
}

/// Eigenvalues (ascending) and eigenvectors of a symmetric matrix (its lower triangle), on the
/// calling thread: the symmetries' eigenproblems are small (m <= a few hundred) and run side by
/// side, one per rayon task, where faer's own threads would cost more than they save.
fn eigen(a: &Mat<f64>, what: &str) -> Result<(Vec<f64>, Mat<f64>)> {
    let n = a.nrows();
    let (mut values, mut vectors) = (faer::diag::Diag::<f64>::zeros(n), Mat::<f64>::zeros(n, n));
    let scratch = self_adjoint_evd_scratch::<f64>(n, ComputeEigenvectors::Yes, Par::Seq, Default::default());
    let mut buffer = MemBuffer::new(scratch);
    self_adjoint_evd(
        a.as_ref(),
        values.as_mut(),
        Some(vectors.as_mut()),
        Par::Seq,
        MemStack::new(&mut buffer),
        Default::default(),
    )
    .map_err(|e| Error::NotConverged(format!("{what} eigensolver: {e:?}")))?;
    Ok(((0..n).map(|i| values.column_vector()[i]).collect(), vectors))
}

/// The canonical orthogonaliser X = U s^{-1/2} (XᵀSX = 1) over the eigenvectors of S with
/// s > 1e-10 max(s), per component block (S is block-diagonal; the small block scales as 1/c²
/// and must not be judged against the large one), and the number of its small-component columns
/// (the number of negative-energy states).
fn orthogonaliser(sym: &Symm, index: usize) -> Result<(Mat<f64>, usize)> {
    let mut columns: Vec<Vec<f64>> = Vec::new();
    for range in [0..sym.n_large, sym.n_large..sym.dim()] {
        if range.is_empty() {
            continue;
        }
        let block = Mat::from_fn(range.len(), range.len(), |i, j| sym.s[(range.start + i, range.start + j)]);
        let (s, u) = eigen(&block, "overlap")?;
        let largest = s.iter().copied().fold(0.0f64, f64::max);
        for k in (0..s.len()).filter(|&k| s[k] > 1e-10 * largest) {
            let mut column = vec![0.0; sym.dim()];
            for i in 0..range.len() {
                column[range.start + i] = u[(i, k)] / s[k].sqrt();
            }
            columns.push(column);
        }
    }
    let large_kept = columns.iter().filter(|c| c[..sym.n_large].iter().any(|&x| x != 0.0)).count();
    if large_kept < sym.occupied() {
        return Err(Error::invalid_at(
            "symmetries",
            index,
            format!("the exponents are linearly dependent: {large_kept} independent functions left"),
        ));
    }
    Ok((Mat::from_fn(sym.dim(), columns.len(), |i, j| columns[j][i]), columns.len() - large_kept))
}

/// Orbitals of one symmetry: all of them (columns, S-orthonormal), their energies, and where the
/// electronic ones start (after the negative-energy states).
struct Orbitals {
    c: Mat<f64>,
    energies: Vec<f64>,
    first: usize,
}

impl Orbitals {
    /// Diagonalises `r` (in the basis `c`) and orders the new orbitals, the electronic ones from
    /// `first` on; refuses (naming `nuclear_charge`) a lowest electronic orbital in the Dirac sea
    /// (module docs) of symmetry `index`.
    fn from(c: &Mat<f64>, r: &Mat<f64>, sym: &Symm, first: usize, index: usize) -> Result<Orbitals> {
        let (energies, u) = eigen(r, "Fock")?;
        if energies[first] <= sym.sea {
            return Err(Error::invalid(
                "nuclear_charge",
                format!(
                    "is beyond the critical charge of this nucleus: the lowest electronic orbital of symmetry {index} lies at {:.6e} hartree, in the negative-energy continuum (below -2c² = {:.6e}); a Gaussian or Fermi nucleus holds up to Z ≈ 170 for c = 137.036",
                    energies[first], sym.sea
                ),
            ));
        }
        Ok(Orbitals { c: product(c.as_ref(), u.as_ref()), energies, first })
    }

    fn column(&self, i: usize) -> Vec<f64> {
        (0..self.c.nrows()).map(|p| self.c[(p, self.first + i)]).collect()
    }

    /// D_C and D_O (module docs).
    fn densities(&self, sym: &Symm) -> (Mat<f64>, Mat<f64>) {
        let m = sym.dim();
        let outer = |v: &[f64], w: f64| Mat::from_fn(m, m, |p, q| w * v[p] * v[q]);
        let mut closed = Mat::<f64>::zeros(m, m);
        for i in 0..sym.occupation.closed {
            closed += outer(&self.column(i), sym.capacity);
        }
        let open = if sym.has_open() {
            outer(&self.column(sym.occupation.closed), sym.occupation.open_electrons)
        } else {
            Mat::zeros(m, m)
        };
        (closed, open)
    }

    fn occupied_energies(&self, sym: &Symm) -> Vec<f64> {
        self.energies[self.first..self.first + sym.occupied()].to_vec()
    }
}

/// The Fock matrices of one symmetry: F_C, and F_O when it has an open shell.
struct Fock {
    closed: Mat<f64>,
    open: Option<Mat<f64>>,
}

/// F_C = h + G D and F_O = F_C + f_a G_aa D_O of every symmetry (module docs).
fn fock(g: &mut ScfIntegrals, syms: &[Symm], total: &[Mat<f64>], open: &[Mat<f64>]) -> Result<Vec<Fock>> {
    let coulomb_exchange = g.two_electron(&total.iter().map(|d| Some(d.as_ref())).collect::<Vec<_>>())?;
    let mut focks = Vec::with_capacity(syms.len());
    for (a, (sym, g_total)) in syms.iter().zip(coulomb_exchange).enumerate() {
        let closed = &sym.h + g_total;
        let open_fock = if sym.has_open() {
            let only: Vec<_> = (0..syms.len()).map(|b| (b == a).then(|| open[a].as_ref())).collect();
            let self_part = g.two_electron(&only)?.swap_remove(a);
            let (n, q) = (sym.capacity, sym.occupation.open_electrons);
            let f = -(n - q) / (q * (n - 1.0));
            Some(&closed + self_part * faer::Scale(f))
        } else {
            None
        };
        focks.push(Fock { closed, open: open_fock });
    }
    Ok(focks)
}

/// R of the module docs in the orbitals `c` of a symmetry.
fn coupled(sym: &Symm, orbitals: &Orbitals, fock: &Fock) -> Mat<f64> {
    let rc = transform(&orbitals.c, &fock.closed);
    let Some(f_open) = &fock.open else { return rc };
    let ro = transform(&orbitals.c, f_open);
    let (n, q) = (sym.capacity, sym.occupation.open_electrons);
    let first = orbitals.first;
    let closed = first..first + sym.occupation.closed;
    let o = first + sym.occupation.closed;
    let mut r = rc.clone();
    for i in 0..r.nrows() {
        let value = if i == o {
            ro[(o, o)]
        } else if closed.contains(&i) {
            (n * rc[(i, o)] - q * ro[(i, o)]) / (n - q)
        } else {
            ro[(i, o)]
        };
        r[(i, o)] = value;
        r[(o, i)] = value;
    }
    r
}

/// Largest |ΔD| in the large-large and in the other blocks.
fn change(syms: &[Symm], new: &[Mat<f64>], old: &[Mat<f64>]) -> (f64, f64) {
    let (mut large, mut small) = (0.0f64, 0.0f64);
    for (a, sym) in syms.iter().enumerate() {
        for q in 0..sym.dim() {
            for p in 0..sym.dim() {
                let d = (new[a][(p, q)] - old[a][(p, q)]).abs();
                if p < sym.n_large && q < sym.n_large {
                    large = large.max(d);
                } else {
                    small = small.max(d);
                }
            }
        }
    }
    (large, small)
}

fn trace_product(a: &Mat<f64>, b: &Mat<f64>) -> f64 {
    (0..a.ncols()).flat_map(|j| (0..a.nrows()).map(move |i| (i, j))).map(|(i, j)| a[(i, j)] * b[(i, j)]).sum()
}

/// Runs the SCF of `spec` (module docs) on `backend`: the supermatrix and the Fock builds on the
/// GPU when it is CUDA, the small per-symmetry eigenproblems on the CPU (faer). An SCF that does
/// not meet the thresholds in `max_iterations` cycles is an [`Error::NotConverged`] whose message
/// holds the last energy ([`scf_attempt`] returns that last state instead).
pub fn scf(backend: &Backend, spec: &ScfSpec) -> Result<ScfResult> {
    converged(spec, scf_attempt(backend, spec)?)
}

/// The result of an SCF that met its thresholds, else [`Error::NotConverged`] with the last energy.
pub(crate) fn converged(spec: &ScfSpec, result: ScfResult) -> Result<ScfResult> {
    if !result.converged {
        let (what, last) = if spec.diis_size > 0 {
            (
                format!(
                    "thresholds on the energy change ({:e} relative) and the gradient ({:e})",
                    spec.threshold_energy, spec.threshold_gradient
                ),
                format!("; last energy change {:.3e} hartree, gradient {:.3e}", result.energy_change, result.gradient),
            )
        } else {
            (
                format!("density thresholds ({:e} large, {:e} small)", spec.threshold_large, spec.threshold_small),
                String::new(),
            )
        };
        return Err(Error::NotConverged(format!(
            "the SCF did not reach the {what} in {} iterations; last energy {:.10} hartree{last}",
            spec.max_iterations, result.energy
        )));
    }
    Ok(result)
}

/// As [`scf`], but an SCF that does not converge returns its last cycle: the energy of the last
/// densities, their orbital energies, `iterations` = `max_iterations` and `converged` false.
pub fn scf_attempt(backend: &Backend, spec: &ScfSpec) -> Result<ScfResult> {
    check(spec)?;
    tracked(c"atomgpu_scf_run", spec.max_iterations as f64, |watch| run(backend, spec, watch))
}

/// [`scf_attempt`] telling `watch` how far it is, in cycles (module docs).
pub(crate) fn run(backend: &Backend, spec: &ScfSpec, mut watch: Watch<'_, '_>) -> Result<ScfResult> {
    check(spec)?;
    let syms = symmetries(spec)?;
    // The core-Hamiltonian orbitals first: a nuclear charge beyond the critical one is refused
    // before the supermatrix is computed.
    let (bases, mut orbitals): (Vec<_>, Vec<_>) = in_order(syms.par_iter().enumerate().map(|(a, sym)| {
        let (x, sea_states) = orthogonaliser(sym, a)?;
        let core = Orbitals::from(&x, &transform(&x, &sym.h), sym, sea_states, a)?;
        Ok((x, core))
    }))?
    .into_iter()
    .unzip();
    let mut g = ScfIntegrals::build(backend, &spec.basis.blocks()?, watch.as_deref_mut())?;
    let densities = |orbitals: &[Orbitals]| -> (Vec<Mat<f64>>, Vec<Mat<f64>>) {
        syms.par_iter()
            .zip(orbitals)
            .map(|(sym, o)| {
                let (closed, open) = o.densities(sym);
                (closed + &open, open)
            })
            .unzip()
    };
    let (mut total, mut open) = densities(&orbitals);
    let mut previous: Option<Vec<Fock>> = None;
    let mut diis = (spec.diis_size > 0).then(|| Diis::new(spec.diis_size));
    let (mut iteration, mut last_energy) = (0, f64::NAN);
    let (mut energy_change, mut gradient): (f64, f64);
    let (converged, mut result) = loop {
        iteration += 1;
        let mut focks = fock(&mut g, &syms, &total, &open)?;
        finite_focks(&focks, iteration)?;
        if let Some(diis) = diis.as_mut() {
            // The energy and gradient of this cycle's densities; then the next orbitals from the
            // DIIS extrapolation of R in each symmetry's orthonormal basis X.
            let result = energy_of(&syms, &total, &open, &focks);
            energy_change = result.energy - last_energy;
            last_energy = result.energy;
            let couplings: Vec<Mat<f64>> =
                syms.par_iter().zip(&orbitals).zip(&focks).map(|((s, o), f)| coupled(s, o, f)).collect();
            let errors: Vec<Mat<f64>> =
                syms.iter().zip(&orbitals).zip(&couplings).map(|((s, o), r)| off_class(s, o.first, r)).collect();
            gradient = couplings.iter().zip(&errors).map(|(r, e)| scaled_gradient(r, e)).fold(0.0f64, f64::max);
            if let Some(report) = watch.as_deref_mut() {
                report(iteration as f64)?;
            }
            let converged = energy_change.abs() <= spec.threshold_energy * result.energy.abs().max(1.0)
                && gradient <= spec.threshold_gradient;
            if converged || iteration == spec.max_iterations {
                // The orbital energies of these densities: the eigenvalues of their R.
                orbitals = syms
                    .par_iter()
                    .zip(&orbitals)
                    .zip(&couplings)
                    .enumerate()
                    .map(|(a, ((sym, o), r))| Orbitals::from(&o.c, r, sym, o.first, a))
                    .collect::<Result<Vec<_>>>()?;
                break (converged, result);
            }
            // R and its error in each symmetry's basis X: U R Uᵀ with U = Xᵀ S C, the orbitals in X.
            let (operators, errors_x): (Vec<_>, Vec<_>) = syms
                .par_iter()
                .zip(&orbitals)
                .zip(&bases)
                .zip(couplings.par_iter().zip(&errors))
                .map(|(((sym, o), x), (r, e))| {
                    let u = product(x.transpose(), product(sym.s.as_ref(), o.c.as_ref()).as_ref());
                    let to_x = |m: &Mat<f64>| product(u.as_ref(), product(m.as_ref(), u.transpose()).as_ref());
                    (to_x(r), to_x(e))
                })
                .unzip();
            let next = diis.extrapolate(operators, errors_x);
            orbitals = syms
                .par_iter()
                .zip(&orbitals)
                .zip(next.par_iter().zip(&bases))
                .enumerate()
                .map(|(a, ((sym, o), (r, x)))| Orbitals::from(x, r, sym, o.first, a))
                .collect::<Result<Vec<_>>>()?;
            (total, open) = densities(&orbitals);
            continue;
        }
        let cycle_energy = energy_of(&syms, &total, &open, &focks).energy;
        // The gradient of this cycle's densities (reported; DFRATOM's criterion does not use it).
        gradient = syms
            .iter()
            .zip(&orbitals)
            .zip(&focks)
            .map(|((sym, o), f)| {
                let r = coupled(sym, o, f);
                scaled_gradient(&r, &off_class(sym, o.first, &r))
            })
            .fold(0.0f64, f64::max);
        if let Some(old) = &previous {
            let d = spec.damping;
            let damp = |f: &mut Mat<f64>, o: &Mat<f64>| *f = &*f * faer::Scale(1.0 - d) + o * faer::Scale(d);
            for (f, o) in focks.iter_mut().zip(old) {
                damp(&mut f.closed, &o.closed);
                if let (Some(fo), Some(oo)) = (&mut f.open, &o.open) {
                    damp(fo, oo);
                }
            }
        }
        orbitals = diagonalised(&syms, &orbitals, &focks)?;
        let (new_total, new_open) = densities(&orbitals);
        let (large, small) = change(&syms, &new_total, &total);
        previous = Some(focks);
        (total, open) = (new_total, new_open);
        if let Some(report) = watch.as_deref_mut() {
            report(iteration as f64)?;
        }
        let converged = large < spec.threshold_large && small < spec.threshold_small;
        if converged || iteration == spec.max_iterations {
            let result = energy_of(&syms, &total, &open, &fock(&mut g, &syms, &total, &open)?);
            energy_change = result.energy - cycle_energy;
            break (converged, result);
        }
    };
    result.orbital_energies = syms.iter().zip(&orbitals).map(|(s, o)| o.occupied_energies(s)).collect();
    for (sym, o) in syms.iter().zip(&orbitals) {
        result.coefficients.push((0..sym.occupied()).flat_map(|i| o.column(i)).collect());
        let (closed, open) = o.densities(sym);
        let total = closed + open;
        result.densities.push(
            (0..sym.dim()).flat_map(|q| (0..sym.dim()).map(move |p| (p, q))).map(|(p, q)| total[(p, q)]).collect(),
        );
    }
    result.iterations = iteration;
    result.converged = converged;
    (result.energy_change, result.gradient) = (energy_change, gradient);
    let parts = [result.energy, result.kinetic, result.nuclear, result.two_electron];
    require_finite_result("energies", &parts, |_| "the SCF energy overflowed".into())?;
    let flat: Vec<f64> = result.orbital_energies.iter().flatten().copied().collect();
    require_finite_result("orbital_energies", &flat, |_| "an orbital energy overflowed".into())?;
    Ok(result)
}

/// The eigenvectors of every symmetry's R (from `focks` in the orbitals `orbitals`).
fn diagonalised(syms: &[Symm], orbitals: &[Orbitals], focks: &[Fock]) -> Result<Vec<Orbitals>> {
    syms.iter()
        .zip(orbitals)
        .zip(focks)
        .enumerate()
        .map(|(a, ((sym, o), f))| Orbitals::from(&o.c, &coupled(sym, o, f), sym, o.first, a))
        .collect()
}

/// The largest element of the orbital gradient `error` (the off-class blocks of `r`) over the gap
/// of its two orbitals, max |R_ij| / max(1 hartree, |R_ii − R_jj|): the rotation angle a
/// Newton step would take, where a gap is wide, and the gradient in hartree, where it is narrow.
/// Unscaled, the elements coupling the tightest functions' orbitals (orbital energies of 1e10
/// hartree in a Dirac basis) carry rounding of 1e-16 of those energies.
fn scaled_gradient(r: &Mat<f64>, error: &Mat<f64>) -> f64 {
    let mut largest = 0.0f64;
    for j in 0..r.ncols() {
        for i in 0..r.nrows() {
            if error[(i, j)] != 0.0 {
                largest = largest.max(error[(i, j)].abs() / (r[(i, i)] - r[(j, j)]).abs().max(1.0));
            }
        }
    }
    largest
}

/// The blocks of `r` (in orbitals whose electronic ones start at `first`) between orbitals of
/// different classes — negative-energy, closed, open, virtual — the rest zero: the orbital
/// gradient (module docs).
fn off_class(sym: &Symm, first: usize, r: &Mat<f64>) -> Mat<f64> {
    let closed_end = first + sym.occupation.closed;
    let open_end = closed_end + sym.has_open() as usize;
    let class = |i: usize| match i {
        i if i < first => 0,
        i if i < closed_end => 1,
        i if i < open_end => 2,
        _ => 3,
    };
    Mat::from_fn(r.nrows(), r.ncols(), |i, j| if class(i) != class(j) { r[(i, j)] } else { 0.0 })
}

/// Every Fock matrix of cycle `iteration` finite, else [`Error::NotFinite`] naming `energies`.
fn finite_focks(focks: &[Fock], iteration: usize) -> Result<()> {
    for (a, f) in focks.iter().enumerate() {
        let all = |m: &Mat<f64>| (0..m.ncols()).all(|j| (0..m.nrows()).all(|i| m[(i, j)].is_finite()));
        if !all(&f.closed) || !f.open.as_ref().is_none_or(all) {
            return Err(Error::NotFinite {
                name: "energies",
                index: None,
                detail: format!("the Fock matrix of symmetry {a} overflowed in cycle {iteration}"),
            });
        }
    }
    Ok(())
}

/// E and its parts for the densities and their (undamped) Fock matrices (module docs); orbital
/// energies and iterations left empty.
fn energy_of(syms: &[Symm], total: &[Mat<f64>], open: &[Mat<f64>], focks: &[Fock]) -> ScfResult {
    let (mut one, mut kinetic, mut two) = (0.0, 0.0, 0.0);
    for (a, sym) in syms.iter().enumerate() {
        one += trace_product(&total[a], &sym.h);
        kinetic += trace_product(&total[a], &sym.t);
        two += 0.5 * (trace_product(&total[a], &focks[a].closed) - trace_product(&total[a], &sym.h));
        if let Some(fo) = &focks[a].open {
            two += 0.5 * (trace_product(&open[a], fo) - trace_product(&open[a], &focks[a].closed));
        }
    }
    ScfResult {
        energy: one + two,
        kinetic,
        nuclear: one - kinetic,
        two_electron: two,
        orbital_energies: Vec::new(),
        iterations: 0,
        converged: false,
        energy_change: f64::NAN,
        gradient: f64::NAN,
        coefficients: Vec::new(),
        densities: Vec::new(),
    }
}
