//! What a backend does for the propagator: stages over ranges of x planes on wavefunction slots,
//! boundary planes out and ghost planes in, reductions and slices. [`super::cpu`] (rayon) and
//! [`super::cuda`] (threads marching in x over chunks of planes, asynchronous on the device's
//! stream) implement it; [`super::Propagator`] holds the control flow once for both.

use super::grid::Grid;
use super::potential::{Absorber, IonPotential};
use super::scheme::{Scheme, Stage};
use crate::error::Result;
use num_complex::Complex64 as C64;
use std::ops::Range;

/// A wavefunction slot: each holds nx_local + 2 planes (ghost, owned planes, ghost).
pub type Slot = usize;

/// Number of slots: ψ^n, ψ^{n−1} and the scratch of the start's midpoint.
pub const SLOTS: usize = 3;

/// The potential of one stage, evaluated by the backend at every point.
#[derive(Clone, Copy, Debug)]
pub struct PotentialAt<'a> {
    /// V_surf on the global x planes (hartree); unused when `array` is true.
    pub surface: &'a [f64],
    /// U is the caller's array stored in the backend ([`Engine::set_potential`]).
    pub array: bool,
    /// The ion and its position at the stage's time (bohr).
    pub ion: Option<(IonPotential, [f64; 3])>,
    /// Energy subtracted from U (hartree): the imaginary-time stage's E ([`super::scheme`]), else 0.
    pub shift: f64,
}

impl PotentialAt<'_> {
    /// U − shift at owned point (k_local, l, m) (hartree); `array` is the backend's stored array.
    pub fn at(&self, grid: &Grid, array: &[f64], k_local: usize, l: usize, m: usize) -> f64 {
        if self.array {
            return array[(k_local * grid.n2 + l) * grid.n3 + m] - self.shift;
        }
        let k = grid.x_offset + k_local;
        let mut u = self.surface[k];
        if let Some((ion, r)) = &self.ion {
            let p = grid.position(k, l, m);
            let d2 = (p[0] - r[0]).powi(2) + (p[1] - r[1]).powi(2) + (p[2] - r[2]).powi(2);
            u += ion.value(d2);
        }
        u - self.shift
    }
}

/// Everything a stage needs besides its slots.
#[derive(Clone, Copy, Debug)]
pub struct StageInput<'a> {
    pub grid: &'a Grid,
    pub scheme: &'a Scheme,
    pub absorber: Absorber,
    pub potential: PotentialAt<'a>,
    pub stage: Stage,
}

/// What a reduction sums over the owned points (weights: the cell volumes of [`Grid::weight`]).
#[derive(Clone, Copy, Debug)]
pub enum Sum {
    /// [Σ w |ψ|²].
    Norm,
    /// [Σ w Re(ψ* Hψ), Σ w |ψ|²] with the potential given.
    Energy,
    /// [Re, Im] of Σ w φ* ψ with the stored reference state φ.
    Overlap,
    /// [Σ w |ψ|²] over points within `radius` (bohr) of `centre`.
    Sphere { centre: [f64; 3], radius: f64 },
}

/// A slice of |ψ|² for pictures (see [`super::observables::slice_len`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SliceAxis {
    /// The plane x = x_k (global k): N2 × N3 values, the third coordinate fastest.
    X,
    /// Cylindrical: the meridian plane through θ_m and θ_m + π (ρ from −ρ_max to ρ_max, the mirror
    /// of §2.1), 2Nρ × Nx_local, the ρ index fastest; Cartesian: the plane y = y_j, Nz × Nx_local.
    Second,
    /// Cylindrical: the cylinder ρ = ρ_l, Nθ × Nx_local; Cartesian: the plane z = z_m, Ny × Nx_local.
    Third,
}

/// A backend of the propagator.
pub trait Engine: Send {
    /// Runs `input.stage` on the owned planes `planes`: writes slot `out`, reading `cur` (with its
    /// ghost planes) and the prev term (`out` itself, `cur`, or slot `other`). May return before
    /// the work is done (the device's stream keeps the order).
    fn stage(&mut self, input: &StageInput, out: Slot, cur: Slot, other: Slot, planes: Range<usize>) -> Result<()>;
    /// Copies the first and last owned planes of `slot` into `lower` and `upper` (waits).
    fn read_boundary(&mut self, slot: Slot, lower: &mut [C64], upper: &mut [C64]) -> Result<()>;
    /// Writes the ghost planes of `slot`.
    fn write_ghosts(&mut self, slot: Slot, lower: &[C64], upper: &[C64]) -> Result<()>;
    /// Sums of `what` over the owned points of `slot` (this rank's share); `input` gives H for
    /// [`Sum::Energy`].
    fn sum(&mut self, slot: Slot, what: Sum, input: &StageInput) -> Result<Vec<f64>>;
    /// Multiplies the owned points of `slot` by `factor`.
    fn scale(&mut self, slot: Slot, factor: f64) -> Result<()>;
    /// Owned points of `slot` from or to the host (`values.len()` = nx_local·N2·N3), ghosts zeroed
    /// on upload.
    fn upload(&mut self, slot: Slot, values: &[C64]) -> Result<()>;
    fn download(&mut self, slot: Slot, values: &mut [C64]) -> Result<()>;
    /// Stores the reference state φ of [`Sum::Overlap`] (owned points).
    fn set_reference(&mut self, values: &[C64]) -> Result<()>;
    /// Stores the caller's potential array (owned points, hartree), read by stages whose
    /// [`PotentialAt::array`] is set.
    fn set_potential(&mut self, values: &[f64]) -> Result<()>;
    /// |ψ|² of `slot` on a slice (`out.len()` from [`super::observables::slice_len`]).
    fn slice(&mut self, slot: Slot, axis: SliceAxis, index: usize, out: &mut [f64]) -> Result<()>;
    /// U (hartree) of `input`'s potential on the same slice, evaluated by the backend as its
    /// stages evaluate it.
    fn potential_slice(&mut self, input: &StageInput, axis: SliceAxis, index: usize, out: &mut [f64]) -> Result<()>;
    /// Waits for the work queued so far (a no-op on the CPU): a watched run's progress is real.
    fn synchronize(&mut self) -> Result<()>;
    /// Allocates or frees the scratch slot of the start.
    fn ensure_slot(&mut self, slot: Slot) -> Result<()>;
    fn free_slot(&mut self, slot: Slot);
    /// "cpu" or "cuda".
    fn name(&self) -> &'static str;
}
