//! 3D time-dependent Schrödinger propagation for one active electron (paper:
//! tdse-cylindrical-gpu.txt, Gainullin, Comput. Phys. Commun. 210 (2017) 72): the explicit
//! leap-frog of eqs. 2-3 on a cylindrical (x, ρ, θ) grid with the hybrid implicit θ-correction
//! near the axis (eqs. 6-16), or on a Cartesian grid, with absorbing layers, a potential made on
//! the device from an ion trajectory and a surface, imaginary-time relaxation, observables that
//! stay on the device, and a domain split along x whose halo planes the caller's MPI moves.
//!
//! Atomic units throughout: lengths in bohr, energies in hartree, times in a.u. (2.419·10⁻¹⁷ s).
//!
//! - [`grid`]: the grids, eq. 17 storage, slabs;
//! - [`potential`]: ion pseudopotential, jellium and Chulkov surfaces, trajectories, absorber;
//! - [`scheme`]: the stages (leap-frog, start, imaginary time) and the stability limit;
//! - [`tridiagonal`]: the cyclic Thomas + Sherman-Morrison solve of eqs. 11-16;
//! - [`cpu`] and `cuda` (threads marching in x, `kernels/tdse.cu`): the backends;
//! - [`team`]: one problem over several GPUs of one process ([`local`] joins the members).
//!
//! A [`Propagator`] owns the wavefunction (two time levels) in device memory on the CUDA backend;
//! `step(n)` runs n steps with no copy to the host except the norm checks of the watchdog (one
//! reduction per `norm_check_interval` steps and one at the end).
//!
//! **Split domains.** A handle may own the planes `x_offset .. x_offset + nx_local` of a global
//! grid. It is then given a [`Communicator`]: the caller's MPI (or any transport) that swaps the
//! first and last owned planes with the neighbouring ranks' ghost planes and sums the
//! observables. Every stage calls `exchange` once; on the GPU the interior planes are computed
//! while it runs (the paper's overlap of halo transfer and interior update). The first call
//! checks that neighbours agree on the grid. `step`, `relax` and the observables are then
//! collective: every rank calls them in the same order (`get_wavefunction`, the slices and
//! `set_reference` are not).
//!
//! **Stopping a run.** `step` and `relax` ask a [`Checkpoint`] after every step: the calling
//! thread's progress callback and time limit ([`crate::progress`]; `done` of `total` are steps;
//! tasks `atomgpu_tdse_step`, `atomgpu_tdse_relax`). When one is set, the CUDA backend waits for
//! each step before reporting it, so the limit sees real progress. A stopped call ends between
//! two steps with [`Error::Cancelled`] and keeps the run so far — not the state before the call,
//! which would cost a second copy of both time levels on the device: after `step`, ψ^n and
//! ψ^{n−1}, the time and the step count of the last completed step (the message gives the count;
//! a further `step` continues exactly); after `relax`, the normalised iterate of the last
//! completed step, as a relaxation of that length leaves it (energy, steps and converged are not
//! written). A [`Tdse`] asks the calling thread after every step of its members, which all get the
//! same answer and so stop at the same step. A rank of an MPI run asks its own thread, which
//! other ranks do not see: its wish to stop is summed over the ranks in the next reduction the
//! run makes anyway (the norm check every `norm_check_interval` steps, the renormalisation every
//! [`RELAX_CHECK_INTERVAL`] relaxation steps, and one at the end), and every rank stops there, at
//! the same step, so no rank waits for ever on another.
//!
//! **Norm.** Without absorber the leap-frog with the centred θ average conserves
//! M_n = Re⟨ψ^n|(1 + iτHθ)ψ^{n+1}⟩ exactly (Hθ = −½Δ1 on the implicit rings; the default
//! α = γ = 1, β = 0; [`scheme`] gives the derivation), not ⟨ψ|ψ⟩, which oscillates about it by
//! O(τ²⟨H²⟩), bounded: 2.8·10⁻⁷ relative over 10⁴ steps of a packet through the implicit rings
//! past a nucleus in `tests/tdse_cpu.rs` (M there constant to 1.1·10⁻¹³).

pub mod cpu;
mod cuda;
pub mod engine;
pub mod grid;
pub mod local;
pub mod observables;
pub mod potential;
pub mod scheme;
pub mod team;
pub mod tridiagonal;

pub use team::Tdse;

use crate::backend::{self, Backend};
use crate::error::{Error, Result};
use crate::memory;
use crate::progress::Tracker;
use engine::{Engine, PotentialAt, SliceAxis, Slot, StageInput, Sum};
use grid::Grid;
use num_complex::Complex64 as C64;
use potential::{Absorber, IonPotential, Surface, Trajectory};
use scheme::{Params, Scheme, Stage, Storage};

/// The ranks' transport of halo planes and sums (module docs).
pub trait Communicator: Send {
    /// Sends `send_lower` (the first owned plane) to the rank below and `send_upper` (the last)
    /// to the rank above, and receives their planes into `recv_lower` and `recv_upper`. Where
    /// there is no neighbour the receive buffer must be left as it is (zeroed by the caller),
    /// as MPI_PROC_NULL does.
    fn exchange(
        &mut self,
        send_lower: &[C64],
        send_upper: &[C64],
        recv_lower: &mut [C64],
        recv_upper: &mut [C64],
    ) -> Result<()>;
    /// Replaces `values` by their sums over all ranks (MPI_Allreduce with MPI_SUM).
    fn sum(&mut self, values: &mut [f64]) -> Result<()>;
}

/// How many time levels the handle holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Levels {
    /// No wavefunction yet, or a run failed.
    None,
    /// ψ^n only: the next step starts the two-level scheme.
    One,
    /// ψ^n and ψ^{n−1}.
    Two,
}

/// Result of [`Propagator::relax`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Relaxation {
    /// ⟨ψ|H|ψ⟩/⟨ψ|ψ⟩ at the end (hartree).
    pub energy: f64,
    /// Imaginary-time steps taken.
    pub steps: u64,
    /// Whether the energy changed by less than the tolerance over the last check interval.
    pub converged: bool,
}

/// Steps between the energy checks (and renormalisations) of [`Propagator::relax`].
pub const RELAX_CHECK_INTERVAL: u64 = 50;

/// What a long run (`step`, `relax`) asks after every step: whether to go on (module docs,
/// "Stopping a run"). A [`Tracker`] (the calling thread's progress callback and time limit) is
/// one; a [`Tdse`]'s members ask the calling thread through another.
pub trait Checkpoint {
    /// True when a callback or a time limit watches: the device then finishes each step before
    /// it is reported.
    fn watched(&self) -> bool;
    /// `done` of `total` steps are complete; [`Error::Cancelled`] stops the run there.
    fn reached(&mut self, done: u64, total: u64) -> Result<()>;
    /// The run is complete: the final report.
    fn finished(&mut self, total: u64) -> Result<()>;
    /// True when every rank of a split domain gets the same verdicts at the same steps (a
    /// team's members, which the calling thread answers alike): they stop at once. A rank's own
    /// tracker is not agreed with the others: its wish to stop is put to a vote.
    fn agreed(&self) -> bool;
}

impl Checkpoint for Tracker {
    fn watched(&self) -> bool {
        self.is_watched()
    }

    fn reached(&mut self, done: u64, total: u64) -> Result<()> {
        self.update(done as f64, total as f64)
    }

    fn finished(&mut self, total: u64) -> Result<()> {
        self.finish(total as f64)
    }

    fn agreed(&self) -> bool {
        false
    }
}

/// Where a run stops: at once, or, for a split handle asking its own rank's checkpoint, at the
/// next reduction where every rank's wish is summed (module docs).
struct Gate<'a> {
    checkpoint: &'a mut dyn Checkpoint,
    voting: bool,
    /// This rank's wish to stop, waiting for the vote.
    pending: Option<String>,
}

impl<'a> Gate<'a> {
    fn new(split: bool, checkpoint: &'a mut dyn Checkpoint) -> Self {
        let voting = split && !checkpoint.agreed();
        Gate { checkpoint, voting, pending: None }
    }

    /// Asks after step `done` of `total`; `Some(why)` stops the run now.
    fn after_step(&mut self, engine: &mut dyn Engine, done: u64, total: u64) -> Result<Option<String>> {
        if self.pending.is_some() {
            return Ok(None);
        }
        if self.checkpoint.watched() {
            engine.synchronize()?;
        }
        let verdict = self.checkpoint.reached(done, total);
        self.ask(verdict)
    }

    /// The final report of a complete run.
    fn at_end(&mut self, total: u64) -> Result<Option<String>> {
        if self.pending.is_some() {
            return Ok(None);
        }
        let verdict = self.checkpoint.finished(total);
        self.ask(verdict)
    }

    fn ask(&mut self, verdict: Result<()>) -> Result<Option<String>> {
        match verdict {
            Ok(()) => Ok(None),
            Err(Error::Cancelled(why)) if self.voting => {
                self.pending = Some(why);
                Ok(None)
            }
            Err(Error::Cancelled(why)) => Ok(Some(why)),
            Err(other) => Err(other),
        }
    }

    /// Whether this rank wants to stop (its vote).
    fn pending(&self) -> bool {
        self.pending.is_some()
    }

    /// Whether the ranks vote (so every end of a run takes a vote).
    fn votes(&self) -> bool {
        self.voting
    }

    /// The outcome of a vote: `stop` when some rank asked to.
    fn decide(&mut self, stop: bool) -> Option<String> {
        stop.then(|| {
            self.pending
                .take()
                .unwrap_or_else(|| "another rank's progress callback or time limit stopped the run".into())
        })
    }
}

/// The halo planes in host memory.
struct Halo {
    send: [Vec<C64>; 2],
    recv: [Vec<C64>; 2],
}

/// The grid, the scheme and the potential: what every stage reads besides the wavefunctions.
struct Model {
    grid: Grid,
    scheme: Scheme,
    absorber: Absorber,
    ion: Option<IonPotential>,
    surface: Vec<f64>,
    trajectory: Trajectory,
    array_potential: bool,
}

impl Model {
    fn input(&self, stage: Stage) -> StageInput<'_> {
        let ion = self.ion.map(|ion| (ion, self.trajectory.at(stage.time)));
        StageInput {
            grid: &self.grid,
            scheme: &self.scheme,
            absorber: self.absorber,
            potential: PotentialAt { surface: &self.surface, array: self.array_potential, ion, shift: stage.shift },
            stage,
        }
    }
}

/// A wavefunction on a grid and the means to propagate it (module docs).
pub struct Propagator {
    model: Model,
    engine: Box<dyn Engine>,
    communicator: Option<Box<dyn Communicator>>,
    halo: Option<Halo>,
    levels: Levels,
    /// Slots of ψ^n and ψ^{n−1} (or the free one), and the third.
    cur: Slot,
    prev: Slot,
    spare: Slot,
    time: f64,
    steps: u64,
    last_norm: f64,
    has_reference: bool,
}

impl Propagator {
    /// A propagator on the backend in force ([`backend::current`]).
    pub fn new(grid: Grid, params: Params) -> Result<Self> {
        let backend = backend::current()?;
        Self::with_backend(grid, params, &backend)
    }

    /// A propagator on `backend`, with no potential (U = 0), no wavefunction yet.
    pub fn with_backend(grid: Grid, params: Params, backend: &Backend) -> Result<Self> {
        grid.validate()?;
        let scheme = Scheme::new(params, &grid)?;
        let absorber = Absorber { width: params.absorber_width, strength: params.absorber_strength };
        let engine: Box<dyn Engine> = match backend {
            Backend::Cpu => cpu::engine(&grid, params.storage)?,
            Backend::Cuda(device) => Box::new(cuda::CudaEngine::new(device.clone(), &grid, &absorber, params.storage)?),
        };
        let surface = memory::filled("the surface potential table", grid.nx, 0.0)?;
        Ok(Propagator {
            model: Model {
                absorber,
                grid,
                scheme,
                ion: None,
                surface,
                trajectory: Trajectory::fixed([0.0; 3]),
                array_potential: false,
            },
            engine,
            communicator: None,
            halo: None,
            levels: Levels::None,
            cur: 0,
            prev: 1,
            spare: 2,
            time: 0.0,
            steps: 0,
            last_norm: 0.0,
            has_reference: false,
        })
    }

    /// The grid.
    pub fn grid(&self) -> &Grid {
        &self.model.grid
    }

    /// The scheme (with the ρ0 in use).
    pub fn scheme(&self) -> &Scheme {
        &self.model.scheme
    }

    /// "cpu" or "cuda".
    pub fn backend_name(&self) -> &'static str {
        self.engine.name()
    }

    /// Time of ψ^n (a.u.) and steps taken since the wavefunction was set.
    pub fn time(&self) -> (f64, u64) {
        (self.time, self.steps)
    }

    /// Makes U analytic: the ion (or none) along the trajectory and the surface.
    pub fn set_analytic_potential(
        &mut self,
        ion: Option<IonPotential>,
        surface: &Surface,
        trajectory: Trajectory,
    ) -> Result<()> {
        if let Some(ion) = &ion {
            ion.validate()?;
        }
        surface.validate(self.model.grid.nx)?;
        let table = surface.tabulate(&self.model.grid)?;
        if let Some(i) = table.iter().position(|v| !v.is_finite()) {
            return Err(Error::invalid_at("surface", i, "gives a non-finite potential on this x plane"));
        }
        self.model.surface = table;
        self.model.ion = ion;
        self.model.trajectory = trajectory;
        self.model.array_potential = false;
        Ok(())
    }

    /// Makes U the caller's array on the owned points (hartree, eq. 17 order).
    pub fn set_potential_array(&mut self, values: &[f64]) -> Result<()> {
        self.check_potential_array(values)?;
        self.engine.set_potential(values)?;
        self.model.array_potential = true;
        Ok(())
    }

    /// The checks of [`Propagator::set_potential_array`], with no effect: a team checks every
    /// member's part before any member stores its own.
    pub fn check_potential_array(&self, values: &[f64]) -> Result<()> {
        check_len("potential", values.len(), self.model.grid.local_len())?;
        if let Some(i) = values.iter().position(|v| !(v.is_finite() && v.abs() <= 1e6)) {
            return Err(Error::invalid_at("potential", i, "must be finite and within ±1e6 hartree"));
        }
        Ok(())
    }

    /// Connects a split handle to its neighbours (collective): checks that they agree on the
    /// plane size and the global grid and that the slabs meet.
    pub fn set_communicator(&mut self, mut communicator: Box<dyn Communicator>) -> Result<()> {
        let g = &self.model.grid;
        let header = |a: usize, b: usize| C64::new(a as f64, b as f64);
        let mine = [header(g.plane_len(), g.nx), header(g.x_offset, g.x_offset + g.nx_local)];
        let (mut below, mut above) = ([C64::default(); 2], [C64::default(); 2]);
        communicator.exchange(&mine, &mine, &mut below, &mut above)?;
        for (side, theirs, expected_edge) in [("below", below, g.x_offset), ("above", above, g.x_offset + g.nx_local)] {
            if theirs == [C64::default(); 2] {
                let at_end = if side == "below" { g.x_offset == 0 } else { g.x_offset + g.nx_local == g.nx };
                if !at_end {
                    return Err(Error::invalid(
                        "grid.x_offset",
                        format!("no rank answered from {side}, but this slab (planes {}..{}) does not reach that end of the grid (nx = {})", g.x_offset, g.x_offset + g.nx_local, g.nx),
                    ));
                }
                continue;
            }
            let (plane, nx) = (theirs[0].re as usize, theirs[0].im as usize);
            let edge = if side == "below" { theirs[1].im as usize } else { theirs[1].re as usize };
            if plane != g.plane_len() || nx != g.nx {
                return Err(Error::invalid(
                    "grid.n2",
                    format!(
                        "mismatched halo sizes: the rank {side} has planes of {plane} points on a grid of {nx} planes, this one {} on {}",
                        g.plane_len(),
                        g.nx
                    ),
                ));
            }
            if edge != expected_edge {
                // Below: its end against this slab's start; above: its start against this end.
                let (theirs, mine) = if side == "below" { ("ends", "starts") } else { ("starts", "ends") };
                return Err(Error::invalid(
                    "grid.x_offset",
                    format!(
                        "the slab {side} {theirs} at plane {edge} but this one {mine} at plane {expected_edge}: the slabs must meet"
                    ),
                ));
            }
        }
        let plane = self.model.grid.plane_len();
        let buffer = || memory::filled("a halo plane", plane, C64::default());
        self.halo = Some(Halo { send: [buffer()?, buffer()?], recv: [buffer()?, buffer()?] });
        self.communicator = Some(communicator);
        Ok(())
    }

    /// Sets ψ^n (owned points, eq. 17 order) at time `time` (a.u.); the next step starts the
    /// two-level scheme from it. Refused (the handle unchanged) when a value is not finite, or
    /// when the norm Σ|ψ|²ΔV over all ranks is 0 or overflows (values near 1e154 and above: every
    /// observable of such a ψ would overflow too). Collective on a split domain (one sum).
    pub fn set_wavefunction(&mut self, values: &[C64], time: f64) -> Result<()> {
        self.check_wavefunction(values, time)?;
        self.ensure_split_ready()?;
        let norm = self.global_norm_of_values(values)?;
        if !norm.is_finite() {
            return Err(Error::invalid(
                "psi",
                "has a norm Σ|ψ|²ΔV that overflows double precision: scale it down (a normalised ψ has norm 1)",
            ));
        }
        if norm <= 0.0 {
            return Err(Error::invalid("psi", "must not be zero everywhere (its norm is 0)"));
        }
        self.engine.upload(self.cur, values)?;
        self.levels = Levels::One;
        self.time = time;
        self.steps = 0;
        self.last_norm = norm;
        Ok(())
    }

    /// The checks of [`Propagator::set_wavefunction`] that need no other rank (length, finite
    /// values within the storage's range, time), with no effect: a team checks every member's
    /// part before any member goes on (the norm is then one collective decision).
    pub fn check_wavefunction(&self, values: &[C64], time: f64) -> Result<()> {
        check_len("psi", values.len(), self.model.grid.local_len())?;
        if let Some(i) = values.iter().position(|z| !(z.re.is_finite() && z.im.is_finite())) {
            return Err(Error::invalid_at("psi", i, "must be finite"));
        }
        if self.model.scheme.params.storage == Storage::ComplexFloat {
            let beyond = |x: f64| x.abs() > f32::MAX as f64;
            if let Some(i) = values.iter().position(|z| beyond(z.re) || beyond(z.im)) {
                return Err(Error::invalid_at(
                    "psi",
                    i,
                    "exceeds the range of this handle's complex-float storage (|re|, |im| <= 3.4e38): scale it down (a normalised ψ has norm 1) or store complex double",
                ));
            }
        }
        if !(time.is_finite() && time.abs() <= 1e12) {
            return Err(Error::invalid("time", format!("must be finite, got {time}")));
        }
        Ok(())
    }

    /// Σ w |ψ|² of the caller's values over all ranks, computed on the host before anything is
    /// uploaded (collective). Each rank sends its sum scaled by 2⁻⁶⁴ (no sum of ranks overflows)
    /// and a flag when its own sum is not finite, so every rank takes the same decision.
    fn global_norm_of_values(&mut self, values: &[C64]) -> Result<f64> {
        const SCALE: f64 = 5.421010862427522e-20; // 2^-64
        let local = local_norm_of_values(&self.model.grid, values);
        let mut sums = if local.is_finite() { [local * SCALE, 0.0] } else { [0.0, 1.0] };
        self.global_sum(&mut sums)?;
        Ok(if sums[1] > 0.0 { f64::INFINITY } else { sums[0] / SCALE })
    }

    /// ψ^n on the owned points; ATOMGPU_ERR_NOT_FINITE (naming `psi`, nothing written) when this
    /// rank's part is not finite (a run that blew up). Not collective.
    pub fn wavefunction(&mut self, out: &mut [C64]) -> Result<()> {
        self.require_wavefunction()?;
        check_len("psi", out.len(), self.model.grid.local_len())?;
        let input = self.model.input(Stage::measure(self.time));
        let local = self.engine.sum(self.cur, Sum::Norm, &input)?[0];
        if !local.is_finite() {
            return Err(Error::NotFinite {
                name: "psi",
                index: None,
                detail: format!("the wavefunction's norm on this handle's points is {local}: the run overflowed"),
            });
        }
        self.engine.download(self.cur, out)
    }

    /// Stores the reference state φ of [`Propagator::overlap`] (owned points): finite, with a
    /// finite norm Σ|φ|²ΔV on this rank's points.
    pub fn set_reference(&mut self, values: &[C64]) -> Result<()> {
        self.check_reference(values)?;
        self.engine.set_reference(values)?;
        self.has_reference = true;
        Ok(())
    }

    /// The checks of [`Propagator::set_reference`], with no effect: a team checks every member's
    /// part before any member stores its own.
    pub fn check_reference(&self, values: &[C64]) -> Result<()> {
        check_len("phi", values.len(), self.model.grid.local_len())?;
        if let Some(i) = values.iter().position(|z| !(z.re.is_finite() && z.im.is_finite())) {
            return Err(Error::invalid_at("phi", i, "must be finite"));
        }
        if !local_norm_of_values(&self.model.grid, values).is_finite() {
            return Err(Error::invalid(
                "phi",
                "has a norm Σ|φ|²ΔV that overflows double precision: scale it down (a normalised φ has norm 1)",
            ));
        }
        Ok(())
    }

    /// Advances `n_steps` (at most [`MAX_RUN_STEPS`]) time steps of τ (a.u.) on the backend,
    /// stopping with an error when the norm grows past the tolerance (checked every
    /// `norm_check_interval` steps and at the end), honouring the calling thread's progress
    /// callback and time limit ([`crate::progress`]; module docs, "Stopping a run").
    pub fn step(&mut self, n_steps: u64) -> Result<()> {
        let mut tracker = Tracker::start(c"atomgpu_tdse_step");
        self.step_with(n_steps, &mut tracker)
    }

    /// [`Propagator::step`] asking `checkpoint` after every step. A run refused before it starts
    /// (no wavefunction, a trajectory too short) keeps ψ^n; a stopped run keeps the state of its
    /// last completed step ([`Error::Cancelled`] says which); a run that fails on the way (the
    /// watchdog, a device or halo-exchange error) leaves no wavefunction: set one again.
    pub fn step_with(&mut self, n_steps: u64, checkpoint: &mut dyn Checkpoint) -> Result<()> {
        self.require_wavefunction()?;
        check_run_length("n_steps", n_steps)?;
        let tau = self.model.scheme.params.dtau;
        if self.model.ion.is_some() && !self.model.array_potential {
            self.model.trajectory.covers(self.time, self.time + n_steps as f64 * tau)?;
        }
        let first = self.steps;
        match self.advance(n_steps, tau, checkpoint) {
            Ok(None) => Ok(()),
            Ok(Some(why)) => Err(Error::Cancelled(format!(
                "{why}; the handle holds ψ after {} of the {n_steps} steps (t = {} a.u., atomgpu_tdse_state): \
                 a further step call continues the run",
                self.steps - first,
                self.time
            ))),
            Err(e) => {
                self.levels = Levels::None;
                Err(e)
            }
        }
    }

    /// The steps of [`Propagator::step_with`]: `Ok(Some(why))` when the checkpoint stopped the run
    /// between two steps (the state consistent), `Err` when it failed.
    fn advance(&mut self, n_steps: u64, tau: f64, checkpoint: &mut dyn Checkpoint) -> Result<Option<String>> {
        let interval = self.model.scheme.params.norm_check_interval;
        let mut gate = Gate::new(self.communicator.is_some(), checkpoint);
        for done in 1..=n_steps {
            if self.levels == Levels::One {
                self.engine.ensure_slot(self.prev)?;
                self.engine.ensure_slot(self.spare)?;
                let (psi0, half, psi1) = (self.cur, self.prev, self.spare);
                self.run_stage(Stage::start_half(tau, self.time), half, psi0, psi0)?;
                self.run_stage(Stage::start_midpoint(tau, self.time), psi1, half, psi0)?;
                self.engine.free_slot(half);
                (self.cur, self.prev, self.spare) = (psi1, psi0, half);
                self.levels = Levels::Two;
            } else {
                self.run_stage(Stage::leap_frog(tau, self.time), self.prev, self.cur, self.cur)?;
                std::mem::swap(&mut self.cur, &mut self.prev);
            }
            self.time += tau;
            self.steps += 1;
            if let Some(why) = gate.after_step(&mut *self.engine, done, n_steps)? {
                return Ok(Some(why));
            }
            if self.steps.is_multiple_of(interval) {
                let stop = self.watch_norm(gate.pending())?;
                if let Some(why) = gate.decide(stop) {
                    return Ok(Some(why));
                }
            }
        }
        if let Some(why) = gate.at_end(n_steps)? {
            return Ok(Some(why));
        }
        if !self.steps.is_multiple_of(interval) || gate.votes() {
            let stop = self.watch_norm(gate.pending())?;
            return Ok(gate.decide(stop));
        }
        Ok(None)
    }

    /// Imaginary-time relaxation (τ → −iτ) of ψ^n at the current time: at most `max_steps`
    /// (≤ [`MAX_RUN_STEPS`]) forward-Euler steps of H − E with the hybrid θ-correction (E the
    /// energy of the iterate, updated at each check: the module docs of [`scheme`] show why the
    /// shift makes an eigenvector of H the fixed point for every m), renormalised and checked
    /// every [`RELAX_CHECK_INTERVAL`] steps; converged when the energy changes by less than
    /// `energy_tolerance` (hartree) between checks. ψ^n is replaced by the normalised result and
    /// the next real-time step starts from it. The calling thread's progress callback and time
    /// limit may stop it: the handle then holds the normalised iterate of the last completed step
    /// (as after a relaxation of that many steps) and the error says how many; a relaxation that
    /// fails on the way leaves no wavefunction.
    pub fn relax(&mut self, max_steps: u64, energy_tolerance: f64) -> Result<Relaxation> {
        let mut tracker = Tracker::start(c"atomgpu_tdse_relax");
        self.relax_with(max_steps, energy_tolerance, &mut tracker)
    }

    /// [`Propagator::relax`] asking `checkpoint` after every step.
    pub fn relax_with(
        &mut self,
        max_steps: u64,
        energy_tolerance: f64,
        checkpoint: &mut dyn Checkpoint,
    ) -> Result<Relaxation> {
        self.require_wavefunction()?;
        if !(energy_tolerance.is_finite() && energy_tolerance > 0.0) {
            return Err(Error::invalid("energy_tolerance", format!("must be positive, got {energy_tolerance}")));
        }
        if max_steps == 0 {
            return Err(Error::invalid("max_steps", "must be at least 1"));
        }
        check_run_length("max_steps", max_steps)?;
        // Before any step: an energy that is not finite leaves the handle as it was.
        let energy = self.energy()?;
        match self.relax_steps(energy, max_steps, energy_tolerance, checkpoint) {
            Ok(Ok(r)) => Ok(r),
            Ok(Err((why, steps))) => Err(Error::Cancelled(format!(
                "{why}; the handle holds the normalised iterate after {steps} of at most {max_steps} imaginary-time steps \
                 (energy, steps and converged not written)"
            ))),
            Err(e) => {
                self.levels = Levels::None;
                Err(e)
            }
        }
    }

    /// The steps of [`Propagator::relax_with`] from the iterate's `energy`: `Ok(Err((why, steps)))`
    /// when the checkpoint stopped it (the iterate normalised, the handle as after a relaxation),
    /// `Err` on failure.
    #[allow(clippy::type_complexity)]
    fn relax_steps(
        &mut self,
        mut energy: f64,
        max_steps: u64,
        energy_tolerance: f64,
        checkpoint: &mut dyn Checkpoint,
    ) -> Result<std::result::Result<Relaxation, (String, u64)>> {
        self.engine.ensure_slot(self.prev)?;
        let tau = self.model.scheme.params.dtau;
        let mut gate = Gate::new(self.communicator.is_some(), checkpoint);
        let mut steps = 0;
        let mut converged = false;
        let mut stopped = None;
        while steps < max_steps && !converged && stopped.is_none() {
            let chunk = RELAX_CHECK_INTERVAL.min(max_steps - steps);
            for _ in 0..chunk {
                self.run_stage(Stage::imaginary(tau, self.time, energy), self.prev, self.cur, self.cur)?;
                std::mem::swap(&mut self.cur, &mut self.prev);
                steps += 1;
                stopped = gate.after_step(&mut *self.engine, steps, max_steps)?;
                if stopped.is_some() {
                    break;
                }
            }
            let (norm, stop) = self.norm_and_vote(self.cur, gate.pending())?;
            if !(norm.is_finite() && norm > 0.0) {
                return Err(Error::NotConverged(format!(
                    "imaginary-time relaxation diverged after {steps} steps (norm {norm:e}): τ = {tau} is beyond the forward-Euler limit of this grid and potential"
                )));
            }
            self.engine.scale(self.cur, 1.0 / norm.sqrt())?;
            stopped = stopped.or_else(|| gate.decide(stop));
            if stopped.is_none() {
                let next = self.energy()?;
                converged = (next - energy).abs() < energy_tolerance;
                energy = next;
            }
        }
        if stopped.is_none() {
            stopped = gate.at_end(max_steps)?;
            if gate.votes() {
                let stop = self.vote(gate.pending())?;
                stopped = stopped.or_else(|| gate.decide(stop));
            }
        }
        self.levels = Levels::One;
        self.steps = 0;
        self.last_norm = 1.0;
        Ok(match stopped {
            Some(why) => Err((why, steps)),
            None => Ok(Relaxation { energy, steps, converged }),
        })
    }

    /// ⟨ψ|ψ⟩ of ψ^n (all ranks); ATOMGPU_ERR_NOT_FINITE when it is not finite.
    pub fn norm(&mut self) -> Result<f64> {
        self.require_wavefunction()?;
        let norm = self.norm_of(self.cur)?;
        finite_result("norm", norm)
    }

    /// ⟨ψ|H|ψ⟩/⟨ψ|ψ⟩ of ψ^n at the current time (hartree, all ranks); NOT_FINITE when it is not
    /// finite.
    pub fn energy(&mut self) -> Result<f64> {
        self.require_wavefunction()?;
        self.refresh_ghosts(self.cur)?;
        let input = self.model.input(Stage::measure(self.time));
        let mut sums = self.engine.sum(self.cur, Sum::Energy, &input)?;
        self.global_sum(&mut sums)?;
        finite_result("energy", sums[0] / sums[1])
    }

    /// ⟨φ|ψ^n⟩ with the reference state (all ranks): the survival amplitude when φ = ψ(0).
    pub fn overlap(&mut self) -> Result<C64> {
        self.require_wavefunction()?;
        if !self.has_reference {
            return Err(Error::invalid("handle", "has no reference state: set one first (set_reference)"));
        }
        let input = self.model.input(Stage::measure(self.time));
        let mut sums = self.engine.sum(self.cur, Sum::Overlap, &input)?;
        self.global_sum(&mut sums)?;
        Ok(C64::new(finite_result("overlap", sums[0])?, finite_result("overlap", sums[1])?))
    }

    /// ∫|ψ^n|² over the ball of `radius` (bohr) around the ion's position R(t) at the current
    /// time (all ranks): the electron's population on the ion.
    pub fn population_near_ion(&mut self, radius: f64) -> Result<f64> {
        self.require_wavefunction()?;
        if !(radius.is_finite() && radius > 0.0) {
            return Err(Error::invalid("radius", format!("must be positive (bohr), got {radius}")));
        }
        let centre = self.model.trajectory.at(self.time);
        let input = self.model.input(Stage::measure(self.time));
        let mut sums = self.engine.sum(self.cur, Sum::Sphere { centre, radius }, &input)?;
        self.global_sum(&mut sums)?;
        finite_result("population", sums[0])
    }

    /// |ψ^n|² on a slice of this rank's slab ([`SliceAxis`]); NOT_FINITE (naming `density` and the
    /// element, `out` untouched) when a value is not finite.
    pub fn density_slice(&mut self, axis: SliceAxis, index: usize, out: &mut [f64]) -> Result<()> {
        self.require_wavefunction()?;
        observables::check_slice_index(&self.model.grid, axis, index)?;
        check_len("density", out.len(), observables::slice_len(&self.model.grid, axis))?;
        let mut values = memory::filled("the density slice", out.len(), 0.0)?;
        self.engine.slice(self.cur, axis, index, &mut values)?;
        finite_slice("density", values, out)
    }

    /// U(r, `time`) (hartree) on a slice of this rank's slab ([`SliceAxis`]), as the backend's
    /// stages evaluate it: the caller's array, or the surface plus the ion at R(`time`) (the
    /// trajectory's first or last point outside its times); the absorbing layers' −iW are not
    /// part of it. Needs no wavefunction. NOT_FINITE (naming `potential`, `out` untouched) where
    /// a value is not finite (a bare Coulomb ion exactly on a grid point).
    pub fn potential_slice(&mut self, time: f64, axis: SliceAxis, index: usize, out: &mut [f64]) -> Result<()> {
        if !(time.is_finite() && time.abs() <= 1e12) {
            return Err(Error::invalid("time", format!("must be finite and within ±1e12 a.u., got {time}")));
        }
        observables::check_slice_index(&self.model.grid, axis, index)?;
        check_len("potential", out.len(), observables::slice_len(&self.model.grid, axis))?;
        let mut values = memory::filled("the potential slice", out.len(), 0.0)?;
        let input = self.model.input(Stage::measure(time));
        self.engine.potential_slice(&input, axis, index, &mut values)?;
        finite_slice("potential", values, out)
    }

    fn require_wavefunction(&self) -> Result<()> {
        if self.levels == Levels::None {
            return Err(Error::invalid(
                "handle",
                "holds no wavefunction: set one (set_wavefunction) before stepping or measuring; a run that failed leaves none",
            ));
        }
        Ok(())
    }

    fn ensure_split_ready(&self) -> Result<()> {
        if self.model.grid.is_split() && self.communicator.is_none() {
            return Err(Error::invalid(
                "handle",
                "owns part of the grid (nx_local < nx) but has no communicator: set one (set_communicator) first",
            ));
        }
        Ok(())
    }

    /// One stage on all owned planes, exchanging `cur`'s halo planes first on a split domain
    /// (the interior planes run meanwhile).
    fn run_stage(&mut self, stage: Stage, out: Slot, cur: Slot, other: Slot) -> Result<()> {
        let n = self.model.grid.nx_local;
        if self.communicator.is_none() {
            let input = self.model.input(stage);
            return self.engine.stage(&input, out, cur, other, 0..n);
        }
        let halo = self.halo.as_mut().expect("a communicator comes with its halo buffers");
        let [lower, upper] = &mut halo.send;
        self.engine.read_boundary(cur, lower, upper)?;
        if n > 2 {
            // The interior needs no ghost plane: it runs while the halos travel.
            self.engine.stage(&self.model.input(stage), out, cur, other, 1..n - 1)?;
        }
        self.exchange_halos(cur)?;
        let input = self.model.input(stage);
        self.engine.stage(&input, out, cur, other, 0..1)?;
        if n > 1 {
            self.engine.stage(&input, out, cur, other, n - 1..n)?;
        }
        Ok(())
    }

    /// Swaps the boundary planes already in the send buffers and writes the ghosts of `slot`.
    fn exchange_halos(&mut self, slot: Slot) -> Result<()> {
        let (Some(comm), Some(halo)) = (self.communicator.as_mut(), self.halo.as_mut()) else {
            return Ok(());
        };
        let [recv_lower, recv_upper] = &mut halo.recv;
        recv_lower.fill(C64::default());
        recv_upper.fill(C64::default());
        comm.exchange(&halo.send[0], &halo.send[1], recv_lower, recv_upper)?;
        self.engine.write_ghosts(slot, recv_lower, recv_upper)
    }

    /// Makes the ghost planes of `slot` current (split domains only).
    fn refresh_ghosts(&mut self, slot: Slot) -> Result<()> {
        if let Some(halo) = self.halo.as_mut() {
            let [lower, upper] = &mut halo.send;
            self.engine.read_boundary(slot, lower, upper)?;
            self.exchange_halos(slot)?;
        }
        Ok(())
    }

    fn global_sum(&mut self, values: &mut [f64]) -> Result<()> {
        match self.communicator.as_mut() {
            Some(comm) => comm.sum(values),
            None => Ok(()),
        }
    }

    fn norm_of(&mut self, slot: Slot) -> Result<f64> {
        Ok(self.norm_and_vote(slot, false)?.0)
    }

    /// ⟨ψ|ψ⟩ of `slot` over all ranks, and whether any rank asked to stop (`stop`, summed in the
    /// same reduction: the vote of a split run, module docs).
    fn norm_and_vote(&mut self, slot: Slot, stop: bool) -> Result<(f64, bool)> {
        let input = self.model.input(Stage::measure(self.time));
        let mut sums = self.engine.sum(slot, Sum::Norm, &input)?;
        sums[1] = if stop { 1.0 } else { 0.0 };
        self.global_sum(&mut sums)?;
        Ok((sums[0], sums[1] > 0.0))
    }

    /// Whether any rank asks to stop (one sum; split runs only).
    fn vote(&mut self, stop: bool) -> Result<bool> {
        let mut flag = [if stop { 1.0 } else { 0.0 }];
        self.global_sum(&mut flag)?;
        Ok(flag[0] > 0.0)
    }

    /// The watchdog: the norm may fall (absorber, the dissipative θ-correction) but not grow.
    /// Returns whether a rank asked to stop (`stop`: this one's wish).
    fn watch_norm(&mut self, stop: bool) -> Result<bool> {
        let (norm, stop) = self.norm_and_vote(self.cur, stop)?;
        let tolerance = self.model.scheme.params.norm_growth_tolerance;
        if !norm.is_finite() || norm > self.last_norm * (1.0 + tolerance) {
            let last = self.last_norm;
            self.levels = Levels::None;
            return Err(Error::NotConverged(format!(
                "the norm grew from {last:.6e} to {norm:.6e} (tolerance {tolerance:e}) by step {} (t = {} a.u.): the scheme is unstable here — lower params.dtau, raise params.rho0, or check the potential; the wavefunction is lost",
                self.steps, self.time
            )));
        }
        self.last_norm = norm;
        Ok(stop)
    }
}

/// Most steps of one `step` or `relax` call (2^40): every time t + nτ stays finite (τ ≤ 1e3).
pub const MAX_RUN_STEPS: u64 = 1 << 40;

fn check_run_length(name: &'static str, n: u64) -> Result<()> {
    if n > MAX_RUN_STEPS {
        return Err(Error::invalid(name, format!("must be at most 2^40 = {MAX_RUN_STEPS}, got {n}")));
    }
    Ok(())
}

/// Σ_points w |ψ|² of `values` on this handle's points (the cell volumes of [`Grid::weight`]).
fn local_norm_of_values(grid: &Grid, values: &[C64]) -> f64 {
    use rayon::prelude::*;
    let (n2, n3) = (grid.n2, grid.n3);
    values
        .par_chunks(n3)
        .enumerate()
        .map(|(i, line)| grid.weight(i % n2) * line.iter().map(|z| z.norm_sqr()).sum::<f64>())
        .sum()
}

/// `value`, or [`Error::NotFinite`] naming the observable.
fn finite_result(name: &'static str, value: f64) -> Result<f64> {
    if value.is_finite() {
        Ok(value)
    } else {
        Err(Error::NotFinite {
            name,
            index: None,
            detail: format!("{value}: the wavefunction or the potential overflowed (a run that blew up)"),
        })
    }
}

/// Copies a computed slice into the caller's `out` when every value is finite.
fn finite_slice(name: &'static str, values: Vec<f64>, out: &mut [f64]) -> Result<()> {
    if let Some(i) = values.iter().position(|v| !v.is_finite()) {
        return Err(Error::NotFinite { name, index: Some(i), detail: format!("{}", values[i]) });
    }
    out.copy_from_slice(&values);
    Ok(())
}

fn check_len(name: &'static str, got: usize, expected: usize) -> Result<()> {
    if got != expected {
        return Err(Error::invalid(name, format!("must hold {expected} values (the owned points), got {got}")));
    }
    Ok(())
}
