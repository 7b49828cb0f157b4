//! Atomic SCF in spherical Gaussian basis sets (paper: dfratom-cudaprophet-scf.txt, DFRATOM and
//! its CUDA port): basis sets ([`basis`]: well-tempered pools or read-in exponents per symmetry)
//! one-electron integrals ([`one_electron`]: overlap, kinetic energy, point and Gaussian nuclear
//! attraction, in closed form) and radial two-electron Slater integrals R^k ([`slater`], closed
//! form through the incomplete beta function).
//!
//! Built (issue 10): basis sets, non-relativistic one-electron integrals, Slater integrals, the
//! Dirac one-electron blocks with normalised restricted-kinetic-balance small components
//! ([`radial`]), the triangular map of integral sets (paper §2.3, [`index_map`]), the
//! two-electron supermatrix on that map, non-relativistic or Dirac-Fock ([`ScfIntegrals`]: CPU with
//! rayon, GPU one set per thread, both reading the one layout of [`layout::Blocks`]), the Fock
//! build from densities as one packed symmetric product ([`ScfIntegrals::two_electron`]), the SCF
//! ([`solver`]: Hartree-Fock or Dirac-Fock, closed shells and average-of-configuration open
//! shells) and the WTBS optimisation ([`optimise`]: BOBYQA). The C ABI is `src/ffi/scf.rs`, the
//! Fortran module `fortran/atomgpu_scf.f90`, the DFRATOM-style namelist driver
//! `examples/fortran/scf_atom.f90`.
//! Issue 32: Pulay DIIS ([`diis`]) and convergence on the energy change and the orbital gradient;
//! the supermatrix by component group ([`groups`]: the Dirac-Fock sets that vanish by component
//! neither computed nor stored).
//! Not built: Fock extrapolation (DFRATOM's `ixtrp`), several configurations per SCF (`nconf`),
//! tiles for supermatrices beyond device memory (a basis whose supermatrix does not fit is
//! refused with ATOMGPU_ERR_OUT_OF_MEMORY naming the bytes).

use crate::backend::Backend;
use crate::error::{Error, Result};
use crate::progress::Tracker;
use cuda::DeviceSupermatrix;
use faer::{Mat, MatRef};
use groups::ComponentGroups;
use index_map::TriangularMap;
use rayon::prelude::*;
use std::ffi::CStr;

pub mod basis;
mod cpu;
mod cuda;
mod diis;
mod groups;
pub mod index_map;
pub mod layout;
pub mod one_electron;
pub mod optimise;
pub mod radial;
pub mod slater;
pub mod solver;

pub use cpu::element_scale;
pub use layout::{dirac_exchange_weights, exchange_weights, Blocks, Spinor, Symmetry};

/// How a long computation of the family reports how far it is (in the unit its caller chose)
/// and learns that it must stop: `None` when nobody watches (the calling thread has neither a
/// progress callback nor a time limit: a device computation then runs in one launch), else a
/// function called at each step, whose error stops the computation with that error.
pub(crate) type Watch<'a, 'f> = Option<&'a mut (dyn FnMut(f64) -> Result<()> + 'f)>;

/// Runs `body` as the long call `task` of the calling thread ([`Tracker`]): its watch reports
/// `done` of `total` (none when the thread watches nothing), then the final report.
pub(crate) fn tracked<T>(task: &'static CStr, total: f64, body: impl FnOnce(Watch<'_, '_>) -> Result<T>) -> Result<T> {
    let mut tracker = Tracker::start(task);
    let watched = tracker.is_watched();
    let mut report = |done: f64| tracker.update(done, total);
    let out = body(if watched { Some(&mut report) } else { None })?;
    tracker.finish(total)?;
    Ok(out)
}

/// The supermatrix on a backend: host memory (CPU reference) or device memory (one set per GPU
/// thread, contracted by a packed symmetric product), in its two component groups ([`groups`]: the sets that
/// vanish by component are not stored).
pub struct ScfIntegrals {
    map: TriangularMap,
    groups: ComponentGroups,
    storage: Storage,
}

enum Storage {
    /// The packed same-component and mixed groups.
    Host(Vec<f64>, Vec<f64>),
    Device(Box<DeviceSupermatrix>),
}

impl ScfIntegrals {
    /// Computes the supermatrix of `blocks` on `backend`: the long call
    /// `atomgpu_scf_integrals_create` of the calling thread, which its progress callback and time
    /// limit can stop ([`crate::progress`]; `done` = the fraction of the integral sets computed,
    /// `total` = 1).
    pub fn new(backend: &Backend, blocks: &Blocks) -> Result<Self> {
        tracked(c"atomgpu_scf_integrals_create", 1.0, |watch| Self::build(backend, blocks, watch))
    }

    /// Computes the supermatrix of `blocks` on `backend`, telling `watch` the fraction of the
    /// integral sets done (on the device, the launches of a watched call are synchronised).
    pub(crate) fn build(backend: &Backend, blocks: &Blocks, watch: Watch<'_, '_>) -> Result<Self> {
        let groups = ComponentGroups::new(blocks);
        let storage = match backend {
            Backend::Cpu => {
                let (same, mixed) = cpu::supermatrix(&groups, watch)?;
                Storage::Host(same, mixed)
            }
            Backend::Cuda(device) => Storage::Device(Box::new(DeviceSupermatrix::new(device.clone(), &groups, watch)?)),
        };
        Ok(ScfIntegrals { map: blocks.map(), groups, storage })
    }

    /// The triangular map of the sets (the paper's layout, of all sets, zero ones included).
    pub fn map(&self) -> &TriangularMap {
        &self.map
    }

    /// The sets stored: those that do not vanish by component ([`groups`]; all of a
    /// non-relativistic supermatrix, about half of a Dirac-Fock one).
    pub fn n_stored_sets(&self) -> u64 {
        self.groups.same_map().n_sets() + index_map::triangle(self.groups.n_mixed() as u64)
    }

    /// The packed supermatrix in host memory in the paper's layout (set i of [`Self::map`] at
    /// index i; a download on the GPU), the sets that vanish by component as zeros.
    pub fn packed(&self) -> Result<Vec<f64>> {
        let downloaded;
        let (same, mixed) = match &self.storage {
            Storage::Host(same, mixed) => (same, mixed),
            Storage::Device(d) => {
                downloaded = d.download()?;
                (&downloaded.0, &downloaded.1)
            }
        };
        let n = usize::try_from(self.map.n_sets())
            .map_err(|_| Error::invalid("symmetries", "give too many integral sets"))?;
        let mut out = crate::memory::filled("the supermatrix", n, 0.0)?;
        let positions: Vec<usize> = (0..self.map.n_pairs())
            .map(|y| {
                let (a, p, q) = self.map.pair(y);
                self.groups.position(a, p, q)
            })
            .collect();
        let s = self.groups.n_same();
        out.par_iter_mut().enumerate().for_each(|(i, g)| {
            let set = index_map::triangle_root(i as u64);
            let (py, px) = (positions[set as usize], positions[i - index_map::triangle(set) as usize]);
            let (hi, lo) = (py.max(px), py.min(px));
            *g = match (lo < s, hi < s) {
                (true, true) => same[hi * (hi + 1) / 2 + lo],
                (false, false) => mixed[(hi - s) * (hi - s + 1) / 2 + lo - s],
                _ => 0.0,
            };
        });
        Ok(out)
    }

    /// The two-electron matrices G(D) of every block for densities D^b (symmetric m_b x m_b,
    /// bohr⁰; `None` for a block without electrons):
    ///
    /// ```text
    /// G(D)^a_pq = Σ_b Σ_rs G[(a,pq), (b,rs)] D^b_rs      (hartree),
    /// ```
    ///
    /// the two-electron part of the closed-shell Fock matrix F^a = h^a + G(D)^a, with
    /// E_2 = ½ Σ_a tr(D^a G(D)^a) (the formulas of `cpu.rs`). A density is read as its symmetric part
    /// ½ (D + Dᵀ). One contraction on the backend (a packed symmetric product per component group).
    pub fn two_electron(&mut self, densities: &[Option<MatRef<'_, f64>>]) -> Result<Vec<Mat<f64>>> {
        let nbs = self.map.nbs().to_vec();
        if densities.len() != nbs.len() {
            return Err(Error::invalid(
                "densities",
                format!("must hold one matrix per symmetry ({}), got {}", nbs.len(), densities.len()),
            ));
        }
        let n_pairs = self.map.n_pairs() as usize;
        let mut folded = crate::memory::filled("the folded densities", n_pairs, 0.0)?;
        for (a, d) in densities.iter().enumerate() {
            let Some(d) = d else { continue };
            if d.nrows() != nbs[a] || d.ncols() != nbs[a] {
                return Err(Error::invalid_at("densities", a, format!("must be {0} x {0}", nbs[a])));
            }
            for p in 0..nbs[a] {
                for q in 0..=p {
                    // D'_x = w_x D_x with w = 2 off the diagonal: D_pq + D_qp.
                    folded[self.groups.position(a, p, q)] = if p == q { d[(p, q)] } else { d[(p, q)] + d[(q, p)] };
                }
            }
        }
        let mut product = crate::memory::filled("the contracted densities", n_pairs, 0.0)?;
        self.contract(&folded, &mut product)?;
        Ok(nbs
            .iter()
            .enumerate()
            .map(|(a, &m)| Mat::from_fn(m, m, |p, q| product[self.groups.position(a, p.max(q), p.min(q))]))
            .collect())
    }

    /// out = G folded over the grouped pair vector (length T: the same-component pairs, then the
    /// mixed ones, as [`groups::ComponentGroups::position`] places them).
    fn contract(&mut self, folded: &[f64], out: &mut [f64]) -> Result<()> {
        let s = self.groups.n_same();
        match &mut self.storage {
            Storage::Host(same, mixed) => {
                let (out_same, out_mixed) = out.split_at_mut(s);
                cpu::contract(same, &folded[..s], out_same);
                cpu::contract(mixed, &folded[s..], out_mixed);
                Ok(())
            }
            Storage::Device(d) => d.contract(folded, out),
        }
    }
}
