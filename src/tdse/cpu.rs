//! CPU reference of the propagator: every stage and reduction of [`super::engine::Engine`], one
//! ring (or z line) per rayon task, in the order the module docs of [`super::scheme`] give.
//!
//! The wavefunction is stored as complex double or complex float ([`Storage`]); either way every
//! stage loads its values into doubles, computes in double and rounds once when it stores (as the
//! CUDA kernels do), and every reduction sums in double.

use super::engine::{Engine, PotentialAt, SliceAxis, Slot, StageInput, Sum, SLOTS};
use super::grid::{Geometry, Grid};
use super::observables::{owned_point, slice_source};
use super::scheme::{Prev, Storage};
use super::tridiagonal::solve_cyclic;
use crate::error::Result;
use crate::memory;
use num_complex::{Complex32 as C32, Complex64 as C64};
use rayon::prelude::*;
use std::ops::Range;

const ZERO: C64 = C64::new(0.0, 0.0);

/// A stored wavefunction value: complex double or complex float (rounded to nearest on store).
pub trait Stored: Copy + Send + Sync + 'static {
    const ZERO: Self;
    fn load(self) -> C64;
    fn store(z: C64) -> Self;
}

impl Stored for C64 {
    const ZERO: Self = ZERO;
    fn load(self) -> C64 {
        self
    }
    fn store(z: C64) -> Self {
        z
    }
}

impl Stored for C32 {
    const ZERO: Self = C32::new(0.0, 0.0);
    fn load(self) -> C64 {
        C64::new(self.re as f64, self.im as f64)
    }
    fn store(z: C64) -> Self {
        C32::new(z.re as f32, z.im as f32)
    }
}

/// The CPU backend: slots (of stored type `S`), reference state and potential array in host
/// memory.
pub struct CpuEngine<S: Stored> {
    grid: Grid,
    slots: [Vec<S>; SLOTS],
    reference: Vec<C64>,
    potential: Vec<f64>,
}

/// The CPU backend for `grid` with wavefunctions stored as `storage` says.
pub fn engine(grid: &Grid, storage: Storage) -> Result<Box<dyn Engine>> {
    Ok(match storage {
        Storage::ComplexDouble => Box::new(CpuEngine::<C64>::new(grid)?),
        Storage::ComplexFloat => Box::new(CpuEngine::<C32>::new(grid)?),
    })
}

impl<S: Stored> CpuEngine<S> {
    /// Zeroed slots 0 and 1 for `grid` (slot 2, the start's scratch, on demand).
    pub fn new(grid: &Grid) -> Result<Self> {
        let len = grid.stored_len();
        Ok(CpuEngine {
            grid: grid.clone(),
            slots: [
                memory::filled("a wavefunction", len, S::ZERO)?,
                memory::filled("a wavefunction", len, S::ZERO)?,
                Vec::new(),
            ],
            reference: Vec::new(),
            potential: Vec::new(),
        })
    }

    fn owned(&self) -> Range<usize> {
        let plane = self.grid.plane_len();
        plane..plane * (self.grid.nx_local + 1)
    }
}

/// (H ψ) on ring or line (k_local, l) of the stored slot `psi` into `out` (N3 values, hartree ×
/// ψ): −½ of the Laplacian of [`super::grid`] plus U ψ; without the θ (or z) term when
/// `with_third` is false (the H0 of eq. 7).
pub(crate) fn hamiltonian_line<S: Stored>(
    grid: &Grid,
    potential: &PotentialAt,
    array: &[f64],
    psi: &[S],
    (k_local, l): (usize, usize),
    with_third: bool,
    out: &mut [C64],
) {
    let (n2, n3, plane) = (grid.n2, grid.n3, grid.plane_len());
    let base = (k_local + 1) * plane + l * n3;
    let coef = grid.line_coefficients(l);
    let inv_dx2 = 1.0 / (grid.dx * grid.dx);
    let periodic = grid.geometry == Geometry::Cylindrical;
    let at = |i: usize| psi[i].load();
    for (m, h_psi) in out.iter_mut().enumerate().take(n3) {
        let c = at(base + m);
        let mut lap = (at(base + m + plane) + at(base + m - plane) - 2.0 * c) * inv_dx2;
        let up = if l + 1 < n2 { at(base + n3 + m) } else { ZERO };
        let down = if l > 0 { at(base - n3 + m) } else { ZERO };
        lap += coef.up * (up - c) + coef.down * (down - c);
        if with_third {
            let (next, last) = match (periodic, m) {
                (true, _) => (at(base + (m + 1) % n3), at(base + (m + n3 - 1) % n3)),
                (false, _) => {
                    (if m + 1 < n3 { at(base + m + 1) } else { ZERO }, if m > 0 { at(base + m - 1) } else { ZERO })
                }
            };
            lap += coef.third * (next + last - 2.0 * c);
        }
        *h_psi = -0.5 * lap + potential.at(grid, array, k_local, l, m) * c;
    }
}

/// Scratch of one rayon task: H ψ on the line, the new line in double, the (β cur + γ prev)
/// average of the θ term and the two vectors of the cyclic solve.
#[derive(Default)]
struct Scratch {
    h_psi: Vec<C64>,
    new: Vec<C64>,
    average: Vec<C64>,
    c_prime: Vec<C64>,
    q: Vec<C64>,
}

impl<S: Stored> Engine for CpuEngine<S> {
    fn stage(&mut self, input: &StageInput, out: Slot, cur: Slot, other: Slot, planes: Range<usize>) -> Result<()> {
        let grid = &self.grid;
        let (n2, n3, plane) = (grid.n2, grid.n3, grid.plane_len());
        let s = input.stage;
        let p = input.scheme.params;
        let mut out_slot = std::mem::take(&mut self.slots[out]);
        let (cur_psi, other_psi) = (&self.slots[cur], &self.slots[other]);
        let array = &self.potential;
        let first = (planes.start + 1) * plane;
        out_slot[first..(planes.end + 1) * plane].par_chunks_mut(n3).enumerate().for_each_init(
            Scratch::default,
            |scratch, (i, line)| {
                let (k_local, l) = (planes.start + i / n2, i % n2);
                let implicit = l < input.scheme.implicit_rings;
                scratch.h_psi.resize(n3, ZERO);
                hamiltonian_line(grid, &input.potential, array, cur_psi, (k_local, l), !implicit, &mut scratch.h_psi);
                let base = first + i * n3;
                let w_line =
                    input.absorber.along_x(grid, grid.x_offset + k_local) + input.absorber.along_second(grid, l);
                let prev_of = |m: usize, line: &[S]| match s.prev {
                    Prev::InPlace => line[m].load(),
                    Prev::Cur => cur_psi[base + m].load(),
                    Prev::Other => other_psi[base + m].load(),
                };
                if implicit {
                    // The β cur + γ prev average of the θ term needs prev before it is overwritten.
                    scratch.average.resize(n3, ZERO);
                    let weight = p.alpha + p.beta + p.gamma;
                    for m in 0..n3 {
                        scratch.average[m] = (p.beta * cur_psi[base + m].load() + p.gamma * prev_of(m, line)) / weight;
                    }
                }
                scratch.new.resize(n3, ZERO);
                for m in 0..n3 {
                    let w = w_line + input.absorber.along_third(grid, m);
                    let e = (-s.delta * w).exp();
                    let prev = prev_of(m, line);
                    scratch.new[m] = e * e * prev + s.c * e * scratch.h_psi[m];
                }
                let new = &mut scratch.new;
                if implicit {
                    let e = (-s.delta * w_line).exp();
                    // σ of the module docs of `scheme`, times α + β + γ (folded into `average`).
                    let sigma = -s.c * e * grid.line_coefficients(l).third / 2.0;
                    let alpha = p.alpha / (p.alpha + p.beta + p.gamma);
                    let g = &scratch.average;
                    for (m, value) in new.iter_mut().enumerate() {
                        *value += sigma * (g[(m + 1) % n3] + g[(m + n3 - 1) % n3] - 2.0 * g[m]);
                    }
                    scratch.c_prime.resize(n3, ZERO);
                    scratch.q.resize(n3, ZERO);
                    let (b, a) = (1.0 + 2.0 * sigma * alpha, -sigma * alpha);
                    solve_cyclic(b, a, new, &mut scratch.c_prime, &mut scratch.q);
                }
                for (value, z) in line.iter_mut().zip(new.iter()) {
                    *value = S::store(*z);
                }
            },
        );
        self.slots[out] = out_slot;
        Ok(())
    }

    fn read_boundary(&mut self, slot: Slot, lower: &mut [C64], upper: &mut [C64]) -> Result<()> {
        let (plane, nx) = (self.grid.plane_len(), self.grid.nx_local);
        let psi = &self.slots[slot];
        load_into(&psi[plane..2 * plane], lower);
        load_into(&psi[nx * plane..(nx + 1) * plane], upper);
        Ok(())
    }

    fn write_ghosts(&mut self, slot: Slot, lower: &[C64], upper: &[C64]) -> Result<()> {
        let (plane, nx) = (self.grid.plane_len(), self.grid.nx_local);
        let psi = &mut self.slots[slot];
        store_from(lower, &mut psi[..plane]);
        store_from(upper, &mut psi[(nx + 1) * plane..]);
        Ok(())
    }

    fn sum(&mut self, slot: Slot, what: Sum, input: &StageInput) -> Result<Vec<f64>> {
        let grid = &self.grid;
        let (n2, n3) = (grid.n2, grid.n3);
        let psi = &self.slots[slot];
        let owned = &psi[self.owned()];
        let lines = owned.par_chunks(n3).enumerate();
        let zero = || [0.0; 2];
        let add = |a: [f64; 2], b: [f64; 2]| [a[0] + b[0], a[1] + b[1]];
        let sums = match what {
            Sum::Norm => lines
                .map(|(i, line)| [grid.weight(i % n2) * line.iter().map(|z| z.load().norm_sqr()).sum::<f64>(), 0.0])
                .reduce(zero, add),
            Sum::Energy => {
                let array = &self.potential;
                lines
                    .map_init(Vec::new, |h, (i, line)| {
                        h.resize(n3, ZERO);
                        hamiltonian_line(grid, &input.potential, array, psi, (i / n2, i % n2), true, h);
                        let w = grid.weight(i % n2);
                        let e: f64 = line.iter().zip(h.iter()).map(|(z, hz)| (z.load().conj() * hz).re).sum();
                        [w * e, w * line.iter().map(|z| z.load().norm_sqr()).sum::<f64>()]
                    })
                    .reduce(zero, add)
            }
            Sum::Overlap => {
                let reference = &self.reference;
                lines
                    .map(|(i, line)| {
                        let phi = &reference[i * n3..(i + 1) * n3];
                        let s: C64 = line.iter().zip(phi).map(|(z, f)| f.conj() * z.load()).sum();
                        let w = grid.weight(i % n2);
                        [w * s.re, w * s.im]
                    })
                    .reduce(zero, add)
            }
            Sum::Sphere { centre, radius } => lines
                .map(|(i, line)| {
                    let (k, l) = (grid.x_offset + i / n2, i % n2);
                    let inside: f64 = (0..n3)
                        .filter(|&m| {
                            let p = grid.position(k, l, m);
                            (p[0] - centre[0]).powi(2) + (p[1] - centre[1]).powi(2) + (p[2] - centre[2]).powi(2)
                                < radius * radius
                        })
                        .map(|m| line[m].load().norm_sqr())
                        .sum();
                    [grid.weight(l) * inside, 0.0]
                })
                .reduce(zero, add),
        };
        Ok(sums.to_vec())
    }

    fn scale(&mut self, slot: Slot, factor: f64) -> Result<()> {
        let owned = self.owned();
        self.slots[slot][owned].par_iter_mut().for_each(|z| *z = S::store(z.load() * factor));
        Ok(())
    }

    fn upload(&mut self, slot: Slot, values: &[C64]) -> Result<()> {
        let owned = self.owned();
        let psi = &mut self.slots[slot];
        psi.fill(S::ZERO);
        store_from(values, &mut psi[owned]);
        Ok(())
    }

    fn download(&mut self, slot: Slot, values: &mut [C64]) -> Result<()> {
        load_into(&self.slots[slot][self.owned()], values);
        Ok(())
    }

    fn set_reference(&mut self, values: &[C64]) -> Result<()> {
        self.reference = memory::copy_of("the reference state", values)?;
        Ok(())
    }

    fn set_potential(&mut self, values: &[f64]) -> Result<()> {
        self.potential = memory::copy_of("the potential array", values)?;
        Ok(())
    }

    fn slice(&mut self, slot: Slot, axis: SliceAxis, index: usize, out: &mut [f64]) -> Result<()> {
        let psi = &self.slots[slot];
        let grid = &self.grid;
        out.par_iter_mut().enumerate().for_each(|(i, v)| {
            *v = psi[grid.plane_len() + slice_source(grid, axis, index, i)].load().norm_sqr();
        });
        Ok(())
    }

    fn potential_slice(&mut self, input: &StageInput, axis: SliceAxis, index: usize, out: &mut [f64]) -> Result<()> {
        let (grid, array) = (&self.grid, &self.potential);
        out.par_iter_mut().enumerate().for_each(|(i, v)| {
            let (k, l, m) = owned_point(grid, slice_source(grid, axis, index, i));
            *v = input.potential.at(grid, array, k, l, m);
        });
        Ok(())
    }

    fn synchronize(&mut self) -> Result<()> {
        Ok(())
    }

    fn ensure_slot(&mut self, slot: Slot) -> Result<()> {
        if self.slots[slot].is_empty() {
            self.slots[slot] = memory::filled("the start's scratch wavefunction", self.grid.stored_len(), S::ZERO)?;
        }
        Ok(())
    }

    fn free_slot(&mut self, slot: Slot) {
        self.slots[slot] = Vec::new();
    }

    fn name(&self) -> &'static str {
        "cpu"
    }
}

/// Stored values into doubles (in parallel: slots reach 10^9 points).
fn load_into<S: Stored>(from: &[S], to: &mut [C64]) {
    to.par_iter_mut().zip(from.par_iter()).for_each(|(z, v)| *z = v.load());
}

/// Doubles into stored values, rounded to nearest.
fn store_from<S: Stored>(from: &[C64], to: &mut [S]) {
    to.par_iter_mut().zip(from.par_iter()).for_each(|(v, z)| *v = S::store(*z));
}
