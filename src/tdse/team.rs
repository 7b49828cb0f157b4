//! One problem on several GPUs of one process: a [`Tdse`] splits its planes along x into one
//! slab per member ([`Propagator`] on its own device, or on the CPU), joins neighbouring members
//! by the in-process [`super::local`] communicator and drives them from one thread each, so the
//! members' interior updates run at once and their halo planes travel while they do (as between
//! MPI ranks). Its arrays cover all its planes, in eq. 17 order, as one propagator's do, and its
//! results equal one propagator's on the same planes to rounding of the sums' order (the
//! wavefunction itself bit for bit: every point's update reads the same numbers).
//!
//! A team of one member is a plain [`Propagator`] with no thread and no copy. Only a team of one
//! member may be given an outside [`Communicator`] (an MPI rank owning a slab): several GPUs per
//! rank are reached by one rank per GPU instead.

use super::engine::SliceAxis;
use super::grid::Grid;
use super::potential::{IonPotential, Surface, Trajectory};
use super::scheme::{Params, Scheme};
use super::{local, observables, Checkpoint, Communicator, Propagator, Relaxation};
use crate::backend::{self, DeviceSet};
use crate::error::{Error, Result};
use crate::progress::Tracker;
use num_complex::Complex64 as C64;
use std::ops::Range;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;

/// Propagators sharing one grid's planes, one per device (module docs).
pub struct Tdse {
    grid: Grid,
    members: Vec<Propagator>,
    /// Planes of each member, relative to the team's first plane.
    planes: Vec<Range<usize>>,
    failed: Arc<AtomicBool>,
    /// The members' devices, in x order.
    devices: DeviceSet,
}

impl Tdse {
    /// A team on `grid`'s owned planes with one member per device of `devices`, in x order.
    pub fn new(grid: Grid, params: Params, devices: &DeviceSet) -> Result<Self> {
        grid.validate()?;
        let m = devices.len();
        if grid.nx_local < 2 * m && m > 1 {
            return Err(Error::invalid(
                "n_devices",
                format!("{m} devices need at least {} x planes (two each), the grid has {}", 2 * m, grid.nx_local),
            ));
        }
        let n = grid.nx_local;
        let planes: Vec<Range<usize>> = (0..m).map(|i| i * n / m..(i + 1) * n / m).collect();
        let mut members = Vec::with_capacity(m);
        for (range, backend) in planes.iter().zip(devices.members()) {
            let slab = grid.clone().slab(grid.x_offset + range.start, range.len())?;
            members.push(Propagator::with_backend(slab, params, backend)?);
        }
        let (comms, failed) = local::communicators(m);
        let mut team = Tdse { grid, members, planes, failed, devices: devices.clone() };
        if m > 1 {
            let comms: Vec<_> = comms.into_iter().map(|c| Some(Box::new(c) as Box<dyn Communicator>)).collect();
            let comms = std::sync::Mutex::new(comms);
            team.each(|i, p| {
                let comm = comms.lock().unwrap_or_else(|e| e.into_inner())[i].take();
                p.set_communicator(comm.expect("one communicator per member"))
            })?;
        }
        Ok(team)
    }

    /// Number of members (devices).
    pub fn members(&self) -> usize {
        self.members.len()
    }

    /// The members' devices, in x order.
    pub fn devices(&self) -> &DeviceSet {
        &self.devices
    }

    /// The grid and the planes the team owns.
    pub fn grid(&self) -> &Grid {
        &self.grid
    }

    /// The scheme (with the ρ0 in use).
    pub fn scheme(&self) -> &Scheme {
        self.members[0].scheme()
    }

    /// "cpu" or "cuda" (of the first member).
    pub fn backend_name(&self) -> &'static str {
        self.members[0].backend_name()
    }

    /// Time of ψ^n (a.u.) and steps taken since the wavefunction was set.
    pub fn time(&self) -> (f64, u64) {
        self.members[0].time()
    }

    /// [`Propagator::set_analytic_potential`] on every member.
    pub fn set_analytic_potential(
        &mut self,
        ion: Option<IonPotential>,
        surface: &Surface,
        trajectory: Trajectory,
    ) -> Result<()> {
        self.each(|_, p| p.set_analytic_potential(ion, surface, trajectory.clone()))
    }

    /// [`Propagator::set_potential_array`] over the team's planes.
    pub fn set_potential_array(&mut self, values: &[f64]) -> Result<()> {
        let parts = self.split("potential", values)?;
        self.check_parts(&parts, |p, part| p.check_potential_array(part))?;
        self.each_with(parts, |p, (offset, part)| p.set_potential_array(part).map_err(|e| shifted(e, offset))).map(drop)
    }

    /// `check(member, part)` of every member before any member is changed, so that a part one
    /// member refuses leaves every member as it was (the first refusal in x order, its index
    /// shifted to the team's array). A host pass over the caller's array (members hold device
    /// handles and are checked on this thread); a team of one member leaves the checks to the
    /// member's own call.
    fn check_parts<T>(&self, parts: &[(usize, &[T])], check: impl Fn(&Propagator, &[T]) -> Result<()>) -> Result<()> {
        if self.members.len() == 1 {
            return Ok(());
        }
        for (p, &(offset, part)) in self.members.iter().zip(parts) {
            check(p, part).map_err(|e| shifted(e, offset))?;
        }
        Ok(())
    }

    /// Connects a team of one member to the other ranks ([`Propagator::set_communicator`]).
    pub fn set_communicator(&mut self, communicator: Box<dyn Communicator>) -> Result<()> {
        if self.members.len() > 1 {
            return Err(Error::invalid(
                "handle",
                "spreads its planes over several GPUs of this process and cannot also be one rank of a split domain: use one rank per GPU",
            ));
        }
        self.members[0].set_communicator(communicator)
    }

    /// [`Propagator::set_wavefunction`] over the team's planes.
    pub fn set_wavefunction(&mut self, values: &[C64], time: f64) -> Result<()> {
        let parts = self.split("psi", values)?;
        self.check_parts(&parts, |p, part| p.check_wavefunction(part, time))?;
        self.each_with(parts, |p, (offset, part)| p.set_wavefunction(part, time).map_err(|e| shifted(e, offset)))
            .map(drop)
    }

    /// ψ^n on the team's planes.
    pub fn wavefunction(&mut self, out: &mut [C64]) -> Result<()> {
        let parts = self.split_mut("psi", out)?;
        self.each_with(parts, |p, (_, part)| p.wavefunction(part)).map(drop)
    }

    /// [`Propagator::set_reference`] over the team's planes.
    pub fn set_reference(&mut self, values: &[C64]) -> Result<()> {
        let parts = self.split("phi", values)?;
        self.check_parts(&parts, |p, part| p.check_reference(part))?;
        self.each_with(parts, |p, (offset, part)| p.set_reference(part).map_err(|e| shifted(e, offset))).map(drop)
    }

    /// [`Propagator::step`] on every member at once; the calling thread's progress callback and
    /// time limit are asked after every step and stop every member at the same step.
    pub fn step(&mut self, n_steps: u64) -> Result<()> {
        let mut tracker = Tracker::start(c"atomgpu_tdse_step");
        self.relayed(&mut tracker, |p, checkpoint| p.step_with(n_steps, checkpoint)).map(drop)
    }

    /// [`Propagator::relax`] on every member at once, stopped as [`Tdse::step`].
    pub fn relax(&mut self, max_steps: u64, energy_tolerance: f64) -> Result<Relaxation> {
        let mut tracker = Tracker::start(c"atomgpu_tdse_relax");
        let mut results =
            self.relayed(&mut tracker, |p, checkpoint| p.relax_with(max_steps, energy_tolerance, checkpoint))?;
        Ok(results.swap_remove(0))
    }

    /// `run(member, checkpoint)` on every member, the checkpoint answered by `tracker` on the
    /// calling thread: directly for one member; for several, when the tracker is watched, each
    /// member's [`Relay`] reports every step to this thread, which asks the tracker once all have
    /// reported it and gives every member the same answer.
    fn relayed<T: Send>(
        &mut self,
        tracker: &mut Tracker,
        run: impl Fn(&mut Propagator, &mut dyn Checkpoint) -> Result<T> + Sync,
    ) -> Result<Vec<T>> {
        if self.members.len() == 1 {
            return Ok(vec![run(&mut self.members[0], tracker)?]);
        }
        if !tracker.is_watched() {
            let unwatched = vec![Unwatched; self.members.len()];
            return self.each_with(unwatched, |p, mut c| run(p, &mut c));
        }
        let (relays, coordinator): (Vec<Relay>, Vec<_>) = (0..self.members.len())
            .map(|_| {
                let (report, reports) = channel();
                let (verdicts, verdict) = channel();
                (Relay { report, verdict }, (reports, verdicts))
            })
            .unzip();
        self.each_coordinated(relays, |p, mut relay| run(p, &mut relay), || answer(tracker, &coordinator))
    }

    /// ⟨ψ|ψ⟩ (all planes, all ranks).
    pub fn norm(&mut self) -> Result<f64> {
        self.first(Propagator::norm)
    }

    /// ⟨ψ|H|ψ⟩/⟨ψ|ψ⟩ (hartree).
    pub fn energy(&mut self) -> Result<f64> {
        self.first(Propagator::energy)
    }

    /// ⟨φ|ψ^n⟩ with the reference state.
    pub fn overlap(&mut self) -> Result<C64> {
        self.first(Propagator::overlap)
    }

    /// [`Propagator::population_near_ion`].
    pub fn population_near_ion(&mut self, radius: f64) -> Result<f64> {
        self.first(|p| p.population_near_ion(radius))
    }

    /// |ψ^n|² on a slice of the team's planes ([`SliceAxis`]; [`Propagator::density_slice`]).
    pub fn density_slice(&mut self, axis: SliceAxis, index: usize, out: &mut [f64]) -> Result<()> {
        self.over_slice("density", axis, index, out, |p, part| p.density_slice(axis, index, part))
    }

    /// U(r, `time`) (hartree) on a slice of the team's planes ([`Propagator::potential_slice`]).
    pub fn potential_slice(&mut self, time: f64, axis: SliceAxis, index: usize, out: &mut [f64]) -> Result<()> {
        self.over_slice("potential", axis, index, out, |p, part| p.potential_slice(time, axis, index, part))
    }

    /// A slice of the team's planes: the x plane `index` from the member that owns it, or the
    /// members' parts of a slice along x one after another (into `out` once all have succeeded).
    fn over_slice(
        &mut self,
        name: &'static str,
        axis: SliceAxis,
        index: usize,
        out: &mut [f64],
        slice: impl Fn(&mut Propagator, &mut [f64]) -> Result<()> + Sync,
    ) -> Result<()> {
        observables::check_slice_index(&self.grid, axis, index)?;
        let len = observables::slice_len(&self.grid, axis);
        if out.len() != len {
            return Err(Error::invalid(name, format!("must hold {len} values (the slice), got {}", out.len())));
        }
        if axis == SliceAxis::X {
            let k = index - self.grid.x_offset;
            let owner = self.planes.iter().position(|r| r.contains(&k)).expect("the planes cover the slab");
            return slice(&mut self.members[owner], out);
        }
        let mut values = crate::memory::filled("a slice", len, 0.0)?;
        let mut parts = Vec::with_capacity(self.members.len());
        let mut rest = &mut values[..];
        for p in &self.members {
            let (part, tail) = rest.split_at_mut(observables::slice_len(p.grid(), axis));
            parts.push(part);
            rest = tail;
        }
        self.each_with(parts, |p, part| slice(p, part))?;
        out.copy_from_slice(&values);
        Ok(())
    }

    /// `values` (points of the team's planes) cut at the members' slabs, with each part's offset.
    fn split<'a, T>(&self, name: &'static str, values: &'a [T]) -> Result<Vec<(usize, &'a [T])>> {
        self.check_len(name, values.len())?;
        let plane = self.grid.plane_len();
        Ok(self.planes.iter().map(|r| (r.start * plane, &values[r.start * plane..r.end * plane])).collect())
    }

    fn split_mut<'a, T>(&self, name: &'static str, values: &'a mut [T]) -> Result<Vec<(usize, &'a mut [T])>> {
        self.check_len(name, values.len())?;
        let plane = self.grid.plane_len();
        let mut parts = Vec::with_capacity(self.planes.len());
        let mut rest = values;
        for r in &self.planes {
            let (part, tail) = rest.split_at_mut(r.len() * plane);
            parts.push((r.start * plane, part));
            rest = tail;
        }
        Ok(parts)
    }

    fn check_len(&self, name: &'static str, got: usize) -> Result<()> {
        let expected = self.grid.local_len();
        if got != expected {
            return Err(Error::invalid(name, format!("must hold {expected} values (the owned points), got {got}")));
        }
        Ok(())
    }

    /// `f` on every member; the members' results agree (they are collective), the first is kept.
    fn first<T: Send>(&mut self, f: impl Fn(&mut Propagator) -> Result<T> + Sync) -> Result<T> {
        let mut results = self.each_with(vec![(); self.members.len()], |p, ()| f(p))?;
        Ok(results.swap_remove(0))
    }

    fn each(&mut self, f: impl Fn(usize, &mut Propagator) -> Result<()> + Sync) -> Result<()> {
        let indices: Vec<usize> = (0..self.members.len()).collect();
        self.each_with(indices, |p, i| f(i, p)).map(drop)
    }

    /// `f(member, data)` for every member with its own data ([`backend::fan_out`]: directly for
    /// one member, else on one thread per member; the first member's own error wins).
    fn each_with<D: Send, T: Send>(
        &mut self,
        data: Vec<D>,
        f: impl Fn(&mut Propagator, D) -> Result<T> + Sync,
    ) -> Result<Vec<T>> {
        let work: Vec<(&mut Propagator, D)> = self.members.iter_mut().zip(data).collect();
        backend::fan_out(&self.failed, work, |_, (p, d), _| f(p, d))
    }

    /// [`Tdse::each_with`] on one thread per member while `coordinate` runs on the calling thread.
    fn each_coordinated<D: Send, T: Send>(
        &mut self,
        data: Vec<D>,
        f: impl Fn(&mut Propagator, D) -> Result<T> + Sync,
        coordinate: impl FnOnce(),
    ) -> Result<Vec<T>> {
        let work: Vec<(&mut Propagator, D)> = self.members.iter_mut().zip(data).collect();
        backend::fan_out_watched(&self.failed, work, |_, (p, d), _| f(p, d), |_| coordinate())
    }
}

/// A member's checkpoint when nobody watches: never stops.
#[derive(Clone, Copy)]
struct Unwatched;

impl Checkpoint for Unwatched {
    fn watched(&self) -> bool {
        false
    }

    fn reached(&mut self, _done: u64, _total: u64) -> Result<()> {
        Ok(())
    }

    fn finished(&mut self, _total: u64) -> Result<()> {
        Ok(())
    }

    fn agreed(&self) -> bool {
        true
    }
}

/// A member's report to the calling thread.
enum Report {
    Reached(u64, u64),
    Finished(u64),
}

/// The calling thread's answer to every member.
#[derive(Clone)]
enum Verdict {
    Go,
    /// The tracker stopped the run (its message).
    Stop(String),
    /// A member failed: the others stop as they do when a halo never comes.
    Abort,
}

/// A member's checkpoint while the calling thread watches: report, then wait for the answer.
struct Relay {
    report: Sender<Report>,
    verdict: Receiver<Verdict>,
}

impl Relay {
    fn ask(&mut self, report: Report) -> Result<()> {
        self.report.send(report).map_err(|_| local::stopped())?;
        match self.verdict.recv() {
            Ok(Verdict::Go) => Ok(()),
            Ok(Verdict::Stop(why)) => Err(Error::Cancelled(why)),
            Ok(Verdict::Abort) | Err(_) => Err(local::stopped()),
        }
    }
}

impl Checkpoint for Relay {
    fn watched(&self) -> bool {
        true
    }

    fn reached(&mut self, done: u64, total: u64) -> Result<()> {
        self.ask(Report::Reached(done, total))
    }

    fn finished(&mut self, total: u64) -> Result<()> {
        self.ask(Report::Finished(total))
    }

    fn agreed(&self) -> bool {
        true
    }
}

/// The calling thread's side of the relays: waits until every member has reported the same
/// step, asks `tracker`, answers all alike; ends when a member's run has ended (normally, after
/// its final report, or by an error: then the members still waiting are told to stop).
fn answer(tracker: &mut Tracker, members: &[(Receiver<Report>, Sender<Verdict>)]) {
    loop {
        let mut reports = Vec::with_capacity(members.len());
        for (reports_of, _) in members {
            match reports_of.recv() {
                Ok(r) => reports.push(r),
                Err(_) => break,
            }
        }
        let verdict = if reports.len() < members.len() {
            Verdict::Abort
        } else {
            let asked = match reports[0] {
                Report::Reached(done, total) => tracker.update(done as f64, total as f64),
                Report::Finished(total) => tracker.finish(total as f64),
            };
            match asked {
                Ok(()) => Verdict::Go,
                Err(e) => Verdict::Stop(cancel_reason(e)),
            }
        };
        for (_, verdicts) in members {
            // A member that has already returned no longer listens.
            let _ = verdicts.send(verdict.clone());
        }
        if matches!(verdict, Verdict::Abort) {
            return;
        }
    }
}

/// The message of a tracker's stop.
fn cancel_reason(error: Error) -> String {
    match error {
        Error::Cancelled(why) => why,
        other => other.to_string(),
    }
}

/// A member's error about element i of its part, renamed to element `offset + i` of the team's.
fn shifted(error: Error, offset: usize) -> Error {
    match error {
        Error::InvalidArgument { name, index: Some(i), rule } => {
            Error::InvalidArgument { name, index: Some(i + offset), rule }
        }
        other => other,
    }
}
