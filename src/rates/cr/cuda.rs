//! CR RK4 on the device: kernel `cr_rk4_kernel` of `kernels/rates.cu`, one block per CR system,
//! recomputing every rate at every stage on the device. The host packs the model once, queues
//! the launches of each sample interval (at most 64 steps each; the last one of an interval
//! writes the state into its slot of a device buffer of samples), and downloads the samples at
//! the end: no host round trip inside the run unless a progress callback or a time limit is set
//! (then the host waits for each launch to report how far the run is).

use super::state::{ElectronState, Rates, StateRates};
use super::{sample, Cr, CrSample, CrSettings};
use crate::backend::CudaDevice;
use crate::error::{Error, Result};
use crate::math::gauss_legendre::GaussLegendre;
use crate::memory;
use crate::progress::Tracker;
use crate::rates::constants::{
    excitation_prefactor, free_electron_degeneracy, ionization_prefactor, kramers_free_free, photon_flux_factor,
    quantum_density_factor, ALPHA, HBARC, HC, ME_C2,
};
use crate::rates::fermi::density_and_energy_slopes_from;
use crate::rates::integrals::Conditions;
use crate::rates::{Statistics, TEMPERATURE_RANGE_EV};
use cudarc::driver::{CudaSlice, DeviceRepr, LaunchConfig, PushKernelArg};
use rayon::prelude::*;
use std::f64::consts::PI;
use std::sync::Arc;

const FILE: &str = "rates.cu";
const SOURCE: &str = include_str!("../../../kernels/rates.cu");
/// `CR_BLOCK` of rates.cu.
const CR_BLOCK: u32 = 256;
/// Warps of a CR_BLOCK block.
const CR_WARPS: usize = CR_BLOCK as usize / 32;
/// Status codes of rates.cu.
const STATUS_ENERGY_BELOW_GROUND_STATE: i64 = 1;

/// `CrConstants` of rates.cu (same field order), each from the Rust function that defines it.
#[repr(C)]
#[derive(Clone, Copy)]
struct CrConstants {
    thermal: f64,
    radiation: f64,
    tr: f64,
    exc_prefactor: f64,
    ion_prefactor: f64,
    phi: f64,
    kramers: f64,
    degeneracy: f64,
    sqrt_pi: f64,
    plasma: f64,
    nq: f64,
    ground: f64,
}

// SAFETY: plain old data of f64 fields, laid out as the kernel's struct.
unsafe impl DeviceRepr for CrConstants {}

/// The model as rates.cu's `unpack_model` reads it: reals then level indices.
fn pack(model: &Cr) -> Result<(Vec<f64>, Vec<i32>)> {
    let exc = model.excitations();
    let ion = model.ionizations();
    let g = model.weights();
    let mut real = memory::with_capacity("the packed model", model.n_levels() + 10 * exc.len() + 11 * ion.len())?;
    real.extend_from_slice(model.charges());
    real.extend(exc.iter().map(|x| x.energy_ev));
    real.extend((0..6).flat_map(|k| exc.iter().map(move |x| x.omega[k])));
    real.extend(exc.iter().map(|x| g[x.lower]));
    real.extend(exc.iter().map(|x| g[x.upper]));
    real.extend(ion.iter().map(|x| x.energy_ev));
    real.extend((0..5).flat_map(|k| ion.iter().map(move |x| x.beli[k])));
    real.extend(ion.iter().map(|x| g[x.lower]));
    real.extend(ion.iter().map(|x| g[x.upper]));
    real.extend(ion.iter().map(|x| x.d0_cm2));
    real.extend(ion.iter().map(|x| x.d1_cm2));
    let mut index = memory::with_capacity("the packed model", 2 * (exc.len() + ion.len()))?;
    index.extend(exc.iter().map(|x| x.lower as i32));
    index.extend(exc.iter().map(|x| x.upper as i32));
    index.extend(ion.iter().map(|x| x.lower as i32));
    index.extend(ion.iter().map(|x| x.upper as i32));
    Ok((real, index))
}

/// The scalars of a launch over `n_systems` systems or states (`dt`, the step counts and the
/// scratch layout zero: the RK4 driver sets its own).
fn launch_parameters(model: &Cr, settings: &CrSettings, n_systems: usize) -> Result<CrLaunch> {
    let q = &settings.quadrature;
    let n_systems = i32::try_from(n_systems)
        .map_err(|_| Error::invalid("n_systems", format!("at most {} systems per call, got {n_systems}", i32::MAX)))?;
    Ok(CrLaunch {
        n_systems,
        n_levels: model.n_levels() as i32,
        n_exc: model.excitations().len() as i32,
        n_ion: model.ionizations().len() as i32,
        stats: match settings.stats {
            Statistics::FermiDirac => 0,
            Statistics::MaxwellBoltzmann => 1,
        },
        n_nodes: q.rule().len() as i32,
        fd_n: FD_NODES as i32,
        ionization_by_warp: 0,
        constants: CrConstants {
            thermal: q.thermal_tail(),
            radiation: q.radiation_tail(),
            tr: settings.tr_ev,
            exc_prefactor: excitation_prefactor(),
            ion_prefactor: ionization_prefactor(),
            phi: photon_flux_factor(),
            kramers: kramers_free_free(),
            degeneracy: free_electron_degeneracy(),
            sqrt_pi: PI.sqrt(),
            plasma: 4.0 * PI * ALPHA * HBARC * HBARC * HBARC / ME_C2,
            nq: quantum_density_factor(),
            ground: 0.6 * HC * HC / (2.0 * ME_C2) * (3.0 / (8.0 * PI)).powf(2.0 / 3.0),
        },
        dt: 0.0,
        n_steps: 0,
        first_step: 0,
        scratch_len: 0,
        sample_stride: 0,
    })
}

/// Gauss-Legendre nodes of the Fermi-Dirac integrals of the temperature inversion (fermi.rs).
const FD_NODES: usize = 64;

/// What a model keeps on one GPU between calls: its packed transitions (`pack`) and the
/// quadrature rules of the settings it was last used with.
struct Resident {
    ordinal: usize,
    n_nodes: usize,
    real: CudaSlice<f64>,
    index: CudaSlice<i32>,
    nodes: CudaSlice<f64>,
    weights: CudaSlice<f64>,
    fd_nodes: CudaSlice<f64>,
    fd_weights: CudaSlice<f64>,
}

/// The model's device copy on `device` for `settings`' rule: uploaded at the model's first use on
/// that GPU (or with another number of nodes), then reused by every call.
fn resident(device: &CudaDevice, model: &Cr, settings: &CrSettings) -> Result<Arc<Resident>> {
    let n_nodes = settings.quadrature.rule().len();
    let mut slot = model.device_copy().lock().unwrap_or_else(|p| p.into_inner());
    let kept = slot.clone().and_then(|r| r.downcast::<Resident>().ok());
    if let Some(r) = kept.filter(|r| r.ordinal == device.ordinal() && r.n_nodes == n_nodes) {
        return Ok(r);
    }
    let (real, index) = pack(model)?;
    let rule = settings.quadrature.rule();
    let fd_rule = GaussLegendre::new(FD_NODES).map_err(|e| Error::Internal(e.to_string()))?;
    let r = Arc::new(Resident {
        ordinal: device.ordinal(),
        n_nodes,
        real: device.upload(&real)?,
        index: device.upload(&index)?,
        nodes: device.upload(rule.nodes())?,
        weights: device.upload(rule.weights())?,
        fd_nodes: device.upload(fd_rule.nodes())?,
        fd_weights: device.upload(fd_rule.weights())?,
    });
    *slot = Some(r.clone() as Arc<dyn std::any::Any + Send + Sync>);
    Ok(r)
}

/// The rates of `model` at each of `states` on the device (see [`super::rates_at`]),
/// Newton's eta = mu/T of each inversion started from `eta_guesses` (NaN: no guess), with the
/// rates' slopes when `slopes`: one upload (the states and the guesses), two launches
/// (inversions; rates), two downloads (the results, the status).
pub(super) fn rates_at(
    device: &CudaDevice,
    model: &Cr,
    settings: &CrSettings,
    states: &[ElectronState],
    eta_guesses: &[f64],
    slopes: bool,
) -> Result<Vec<Result<StateRates>>> {
    if states.is_empty() {
        return Ok(Vec::new());
    }
    let n = states.len();
    let resident = resident(device, model, settings)?;
    let launch = launch_parameters(model, settings, n)?;
    let inputs = upload_states(device, states, eta_guesses)?;
    let mut results = device.zeros::<f64>(results_len(model, n, slopes)?)?;
    let mut status = device.zeros::<i64>(n)?;
    let conditions_kernel = device.function(FILE, SOURCE, "cr_conditions_kernel")?;
    {
        let (packed, guesses) = inputs.split_at(2 * n);
        let (mut conditions, mut rest) = results.split_at_mut(2 * n);
        let (mut integrals, _) = rest.split_at_mut(3 * n);
        let mut builder = device.stream().launch_builder(&conditions_kernel);
        builder
            .arg(&launch)
            .arg(&resident.fd_nodes)
            .arg(&resident.fd_weights)
            .arg(&packed)
            .arg(&guesses)
            .arg(&mut conditions)
            .arg(&mut integrals)
            .arg(&mut status);
        // SAFETY: the arguments match cr_conditions_kernel's parameters; packed holds 2 doubles
        // per state, guesses 1, conditions 2, integrals 3, status 1.
        unsafe { builder.launch(blocks(n)) }?;
    }
    state_rates_on_device(device, model, settings, &resident, states, &inputs, &mut results, &status, slopes)
}

/// The rates of `model` at one state given by its conditions (T_e, mu, n_e) on the device: the
/// rates kernel alone (no inversion), so the caller's T_e is used as it is.
pub(super) fn rates_at_conditions(
    device: &CudaDevice,
    model: &Cr,
    settings: &CrSettings,
    state: ElectronState,
    c: &Conditions,
) -> Result<StateRates> {
    let resident = resident(device, model, settings)?;
    let inputs = upload_states(device, &[state], &[f64::NAN])?;
    let mut first = memory::filled("the conditions of the state", results_len(model, 1, false)?, 0.0)?;
    first[..2].copy_from_slice(&[c.te, c.mu]);
    let mut results = device.upload(&first)?;
    let status = device.zeros::<i64>(1)?;
    state_rates_on_device(device, model, settings, &resident, &[state], &inputs, &mut results, &status, false)?
        .pop()
        .expect("one state")
}

/// How the state-rates kernels spread an evaluation's integrals (rates.cu state_rates).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Layout {
    /// One block of CR_BLOCK threads per ionization integral of each state (its ~40-100 outer
    /// terms each on a thread of their own: short latency, most threads idle), the other
    /// integrals one warp each.
    ByBlock,
    /// Every integral of every state one warp (ionizations' outer terms in 2-4 rounds of the
    /// lanes: all lanes busy, longer latency).
    ByWarp,
}

impl Layout {
    /// Warps of work per multiprocessor from which [`Layout::ByWarp`] is the faster: measured on
    /// one H200 (bench/RESULTS.md, issue 32 follow-up) with the aluminium model (43 warp tasks
    /// per state), the two layouts take the same time at 128 states (5 500 warps, 42 per
    /// multiprocessor); by block is 1.9x faster at 16 states, by warp 1.7x faster at 16 384.
    const WARPS_PER_MULTIPROCESSOR: usize = 48;

    /// By warp once the evaluation's warp tasks fill every multiprocessor of `device`
    /// [`Layout::WARPS_PER_MULTIPROCESSOR`] times (the latency of a longer task is then hidden
    /// by the others), else by block.
    fn for_states(device: &CudaDevice, n_states: usize, n_exc: usize, n_ion: usize) -> Layout {
        let warps = n_states.saturating_mul(n_exc + 2 * n_ion + 1);
        if warps >= Self::WARPS_PER_MULTIPROCESSOR * device.multiprocessors() {
            Layout::ByWarp
        } else {
            Layout::ByBlock
        }
    }

    /// Blocks of CR_BLOCK threads that cover `n_states` states.
    fn blocks(self, n_states: usize, n_exc: usize, n_ion: usize) -> usize {
        let warp_tasks = n_exc + n_ion + 1;
        match self {
            Layout::ByBlock => n_states.saturating_mul(n_ion + warp_tasks.div_ceil(CR_WARPS)),
            Layout::ByWarp => n_states.saturating_mul(n_ion + warp_tasks).div_ceil(CR_WARPS),
        }
    }
}

/// Grid of `n` blocks of CR_BLOCK threads (grid-stride loops cover more).
fn blocks(n: usize) -> LaunchConfig {
    LaunchConfig { grid_dim: (n.clamp(1, 1 << 20) as u32, 1, 1), block_dim: (CR_BLOCK, 1, 1), shared_mem_bytes: 0 }
}

/// (u, n_e) of every state, then each state's eta guess, on the device in one upload.
fn upload_states(device: &CudaDevice, states: &[ElectronState], eta_guesses: &[f64]) -> Result<CudaSlice<f64>> {
    let mut packed = memory::with_capacity("the electron states", 3 * states.len())?;
    packed.extend(states.iter().flat_map(|s| [s.energy_density, s.ne_cm3]));
    packed.extend_from_slice(eta_guesses);
    device.upload(&packed)
}

/// Doubles of one evaluation's results for `n` states, laid out one part after another so that
/// one download brings them back: (T_e, mu) per state (2 n), the Fermi integrals of the
/// inversions (3 n), the rates (`rates_stride` per state; see [`state_rates_on_device`]).
fn results_len(model: &Cr, n: usize, slopes: bool) -> Result<usize> {
    memory::elements::<f64>("the rates of the states", 5 + rates_stride(model, slopes), n)
}

/// Doubles of one state's rates: J_up, J_down, K_up, K_down, L, H_L, the heating; with the
/// slopes, their d/dT_e and d/dmu and d/dn_e of the heating.
fn rates_stride(model: &Cr, slopes: bool) -> usize {
    let rates_len = 2 * model.excitations().len() + 4 * model.ionizations().len() + 1;
    if slopes {
        3 * rates_len + 1
    } else {
        rates_len
    }
}

/// The rates kernel over `states` (`inputs` from [`upload_states`]) whose (T_e, mu) and status
/// are on the device (at the head of `results`, laid out as [`results_len`] says), and the
/// downloads; with `slopes`, its twin with the slopes, whose chain through the gas
/// (RateSlopes::gas) takes the inversions' Fermi integrals.
#[allow(clippy::too_many_arguments)] // the device buffers of one evaluation
fn state_rates_on_device(
    device: &CudaDevice,
    model: &Cr,
    settings: &CrSettings,
    resident: &Resident,
    states: &[ElectronState],
    inputs: &CudaSlice<f64>,
    results: &mut CudaSlice<f64>,
    status: &CudaSlice<i64>,
    slopes: bool,
) -> Result<Vec<Result<StateRates>>> {
    let n = states.len();
    let launch = launch_parameters(model, settings, n)?;
    let (n_exc, n_ion) = (model.excitations().len(), model.ionizations().len());
    let stride = rates_stride(model, slopes);
    let layout = Layout::for_states(device, n, n_exc, n_ion);
    let launch = CrLaunch { ionization_by_warp: i32::from(layout == Layout::ByWarp), ..launch };
    let kernel = if slopes { "cr_state_slopes_kernel" } else { "cr_state_rates_kernel" };
    let rates_kernel = device.function(FILE, SOURCE, kernel)?;
    {
        let packed = inputs.slice(0..2 * n);
        let (head, mut out) = results.split_at_mut(5 * n);
        let conditions = head.slice(0..2 * n);
        let mut builder = device.stream().launch_builder(&rates_kernel);
        builder
            .arg(&launch)
            .arg(&resident.real)
            .arg(&resident.index)
            .arg(&resident.nodes)
            .arg(&resident.weights)
            .arg(&packed)
            .arg(&conditions)
            .arg(status)
            .arg(&mut out);
        // SAFETY: the arguments match cr_state_rates_kernel's (and cr_state_slopes_kernel's)
        // parameters; packed and conditions hold 2 doubles per state, status 1, out `stride`.
        unsafe { builder.launch(blocks(layout.blocks(n, n_exc, n_ion))) }?;
    }
    let mut host_status = memory::filled("the status of the states", n, 0i64)?;
    let mut host = memory::filled("the rates of the states", results.len(), 0.0)?;
    device.download_into(status, &mut host_status)?;
    device.download_into(results, &mut host)?;
    let (host_conditions, rest) = host.split_at(2 * n);
    let (host_integrals, host_out) = rest.split_at(3 * n);
    // Unpacked on all cores: with 10^4 states and more this is milliseconds per call.
    let mut rates = memory::with_capacity("the rates of the states", n)?;
    states
        .par_iter()
        .enumerate()
        .map(|(s, state)| {
            let te_mu = &host_conditions[2 * s..2 * s + 2];
            let o = &host_out[s * stride..(s + 1) * stride];
            let gas = slopes.then(|| &host_integrals[3 * s..3 * s + 3]);
            state_rates(settings, state, host_status[s], te_mu, o, n_exc, n_ion, gas)
        })
        .collect_into_vec(&mut rates);
    Ok(rates)
}

/// One state's rates (and slopes when the inversion's Fermi integrals `gas` are given) from the
/// kernels' outputs, or its error (as the CPU path reports it).
#[allow(clippy::too_many_arguments)] // one state's slices of the downloads
fn state_rates(
    settings: &CrSettings,
    state: &ElectronState,
    status: i64,
    te_mu: &[f64],
    o: &[f64],
    n_exc: usize,
    n_ion: usize,
    gas: Option<&[f64]>,
) -> Result<StateRates> {
    let (u, ne) = (state.energy_density, state.ne_cm3);
    match status {
        0 => {}
        STATUS_ENERGY_BELOW_GROUND_STATE => {
            return Err(Error::invalid(
                "u_ev_cm3",
                format!("energy density {u:e} eV cm^-3 is not above the Fermi ground state at n_e = {ne:e} cm^-3 (zero for Maxwell-Boltzmann)"),
            ))
        }
        _ => return Err(Error::NotConverged(format!("temperature for u = {u:e} eV cm^-3, n_e = {ne:e} cm^-3"))),
    }
    let (low, high) = TEMPERATURE_RANGE_EV;
    let te = te_mu[0];
    if !(te >= low && te <= high) {
        return Err(Error::invalid(
            "u_ev_cm3",
            format!("{u:e} eV cm^-3 at n_e = {ne:e} cm^-3 implies T_e = {te:e} eV, outside [{low:e}, {high:e}] eV"),
        ));
    }
    let c = Conditions { stats: settings.stats, te, mu: te_mu[1], ne, tr: settings.tr_ev };
    let gas = gas.map(|f| density_and_energy_slopes_from(te, c.mu, [f[0], f[1], f[2]]));
    let mut r = StateRates::zeroed(&c, n_exc, n_ion, gas)?;
    let len = 2 * n_exc + 4 * n_ion + 1;
    unpack_rates(&mut r.rates, &o[..len]);
    if let Some(s) = &mut r.slopes {
        unpack_rates(&mut s.by_te, &o[len..2 * len]);
        unpack_rates(&mut s.by_mu, &o[2 * len..3 * len]);
        s.ib_by_ne = o[3 * len];
    }
    r.check_finite()
}

/// `rates` from one block of the kernel's output: J_up, J_down, K_up, K_down, L, H_L, the
/// inverse-bremsstrahlung heating.
fn unpack_rates(rates: &mut Rates, o: &[f64]) {
    let (n_exc, n_ion) = (rates.excitation_up.len(), rates.ionization_up.len());
    let (exc, rest) = o.split_at(2 * n_exc);
    rates.excitation_up.copy_from_slice(&exc[..n_exc]);
    rates.excitation_down.copy_from_slice(&exc[n_exc..]);
    rates.ionization_up.copy_from_slice(&rest[..n_ion]);
    rates.ionization_down.copy_from_slice(&rest[n_ion..2 * n_ion]);
    rates.photo_rate.copy_from_slice(&rest[2 * n_ion..3 * n_ion]);
    rates.photo_heating.copy_from_slice(&rest[3 * n_ion..4 * n_ion]);
    rates.ib_per_z2n = rest[4 * n_ion];
}

/// `CrLaunch` of rates.cu (same field order): the scalars of one kernel launch.
#[repr(C)]
#[derive(Clone, Copy)]
struct CrLaunch {
    n_systems: i32,
    n_levels: i32,
    n_exc: i32,
    n_ion: i32,
    stats: i32,
    n_nodes: i32,
    fd_n: i32,
    /// State-rates kernels: 1 one warp per ionization integral, 0 one block ([`Layout`]).
    ionization_by_warp: i32,
    constants: CrConstants,
    dt: f64,
    n_steps: i64,
    first_step: i64,
    scratch_len: i64,
    sample_stride: i64,
}

// SAFETY: plain old data laid out as the kernel's struct (i32 then f64 and i64 fields, no padding).
unsafe impl DeviceRepr for CrLaunch {}

/// Most RK4 steps one launch takes: between launches the host can report progress and stop the
/// run (`crate::progress`) without waiting for a whole sample interval, which may be the whole run.
const STEPS_PER_LAUNCH: u64 = 64;

/// Advances each system of `ys` on the device (see [`super::run_rk4`]); returns the samples of
/// every system. Kernels are queued one sample interval after another, each interval in
/// launches of at most [`STEPS_PER_LAUNCH`] steps; when `tracker` is watched the host waits for
/// each launch and reports the steps done.
#[allow(clippy::too_many_arguments)] // the arguments of super::run_rk4 plus the device and tracker
pub(super) fn run_rk4(
    device: &CudaDevice,
    model: &Cr,
    settings: &CrSettings,
    ys: &[Vec<f64>],
    dt: f64,
    n_steps: u64,
    sample_every: u64,
    tracker: &mut Tracker,
) -> Result<Vec<Vec<CrSample>>> {
    let n = model.n_levels();
    let dim = n + 1;
    let (n_exc, n_ion) = (model.excitations().len(), model.ionizations().len());
    let n_systems = ys.len();
    let resident = resident(device, model, settings)?;
    let (real, index) = (&resident.real, &resident.index);
    let (nodes, weights, fd_nodes, fd_weights) =
        (&resident.nodes, &resident.weights, &resident.fd_nodes, &resident.fd_weights);
    // Scratch per system (cr_scratch): y, ys, k1..k4, the rates, the inverse bremsstrahlung and eta.
    let scratch_len = 6 * dim + 2 * n_exc + 4 * n_ion + 2;
    let mut host_scratch =
        memory::filled("the RK4 scratch", memory::elements::<f64>("the RK4 scratch", scratch_len, n_systems)?, 0.0)?;
    for (s, y) in ys.iter().enumerate() {
        host_scratch[s * scratch_len..s * scratch_len + dim].copy_from_slice(y);
        host_scratch[(s + 1) * scratch_len - 1] = f64::NAN;
    }
    let mut scratch = device.upload(&host_scratch)?;
    drop(host_scratch);
    let n_chunks = n_steps.div_ceil(sample_every) as usize;
    let slot = n_systems * dim;
    let sample_len = memory::elements::<f64>("the RK4 samples", n_chunks + 1, slot)?;
    let mut samples = device.zeros::<f64>(sample_len)?;
    let mut status = device.zeros::<i64>(2 * n_systems)?;
    let func = device.function(FILE, SOURCE, "cr_rk4_kernel")?;
    let config = LaunchConfig { grid_dim: (n_systems as u32, 1, 1), block_dim: (CR_BLOCK, 1, 1), shared_mem_bytes: 0 };
    let mut launch = launch_parameters(model, settings, n_systems)?;
    launch.dt = dt;
    launch.scratch_len = scratch_len as i64;
    launch.sample_stride = dim as i64;
    let no_sample = 0u64;
    let mut done = 0u64;
    for chunk in 0..n_chunks {
        let interval_end = ((chunk as u64 + 1) * sample_every).min(n_steps);
        while done < interval_end {
            let steps = STEPS_PER_LAUNCH.min(interval_end - done);
            launch.n_steps = steps as i64;
            launch.first_step = done as i64;
            let mut slot_view = samples.slice_mut((chunk + 1) * slot..(chunk + 2) * slot);
            let mut builder = device.stream().launch_builder(&func);
            builder
                .arg(&launch)
                .arg(real)
                .arg(index)
                .arg(nodes)
                .arg(weights)
                .arg(fd_nodes)
                .arg(fd_weights)
                .arg(&mut scratch);
            if done + steps == interval_end {
                builder.arg(&mut slot_view);
            } else {
                builder.arg(&no_sample);
            }
            builder.arg(&mut status);
            // SAFETY: the arguments match cr_rk4_kernel's parameters in order and type (CrLaunch
            // is its struct; a NULL sample pointer is allowed); scratch holds scratch_len doubles
            // per system, the slot n_systems * dim, status 2 per system.
            unsafe { builder.launch(config) }?;
            done += steps;
            if tracker.is_watched() {
                device.synchronize()?;
                tracker.update(done as f64, n_steps as f64)?;
            }
        }
    }
    let mut host_status = memory::filled("the RK4 status", 2 * n_systems, 0i64)?;
    device.download_into(&status, &mut host_status)?;
    for s in 0..n_systems {
        if host_status[2 * s] != 0 {
            let what = if host_status[2 * s] == STATUS_ENERGY_BELOW_GROUND_STATE {
                "the electron energy density fell below the Fermi ground state (zero for Maxwell-Boltzmann) or became non-finite"
            } else {
                "the temperature inversion did not converge"
            };
            return Err(Error::NotConverged(format!(
                "CR system {s}: at RK4 step {}: {what}; use a smaller `dt_s`",
                host_status[2 * s + 1]
            )));
        }
    }
    let mut host_samples = memory::filled("the RK4 samples", sample_len, 0.0)?;
    device.download_into(&samples, &mut host_samples)?;
    memory::try_collect(
        "the runs",
        (0..n_systems).map(|s| {
            let mut out = memory::with_capacity("the samples of a run", n_chunks + 1)?;
            out.push(sample(model, settings.stats, 0.0, &ys[s])?);
            for chunk in 0..n_chunks {
                let step = (((chunk as u64) + 1) * sample_every).min(n_steps);
                let y = &host_samples[(chunk + 1) * slot + s * dim..(chunk + 1) * slot + (s + 1) * dim];
                out.push(sample(model, settings.stats, step as f64 * dt, y).map_err(|e| {
                    Error::NotConverged(format!(
                        "CR system {s}: by RK4 step {step} the state left the physical domain ({e}); use a smaller `dt_s`"
                    ))
                })?);
            }
            Ok(out)
        }),
    )
}
