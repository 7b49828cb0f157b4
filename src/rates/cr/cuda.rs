//! CR RK4 on the device: kernel `cr_rk4_kernel` of `kernels/rates.cu`, one block per CR system,
//! recomputing every rate at every stage on the device. The host packs the model once, queues
//! the launches of each sample interval (at most 64 steps each; the last one of an interval
//! writes the state into its slot of a device buffer of samples), and downloads the samples at
//! the end: no host round trip inside the run unless a progress callback or a time limit is set
//! (then the host waits for each launch to report how far the run is).

use super::{sample, CrModel, CrSample, CrSettings};
use crate::backend::CudaDevice;
use crate::error::{Error, Result};
use crate::math::gauss_legendre::GaussLegendre;
use crate::memory;
use crate::progress::Tracker;
use crate::rates::constants::{
    excitation_prefactor, free_electron_degeneracy, ionization_prefactor, kramers_free_free, photon_flux_factor,
    quantum_density_factor, ALPHA, HBARC, HC, ME_C2,
};
use crate::rates::Statistics;
use cudarc::driver::{DeviceRepr, LaunchConfig, PushKernelArg};
use std::f64::consts::PI;

const FILE: &str = "rates.cu";
const SOURCE: &str = include_str!("../../../kernels/rates.cu");
/// `CR_BLOCK` of rates.cu.
const CR_BLOCK: u32 = 256;
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
fn pack(model: &CrModel) -> Result<(Vec<f64>, Vec<i32>)> {
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
    unused: i32,
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
    model: &CrModel,
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
    let q = &settings.quadrature;
    let fd_rule = GaussLegendre::new(64).map_err(|e| Error::Internal(e.to_string()))?;
    let constants = CrConstants {
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
    };
    let (real, index) = pack(model)?;
    let real = device.upload(&real)?;
    let index = device.upload(&index)?;
    let nodes = device.upload(q.rule().nodes())?;
    let weights = device.upload(q.rule().weights())?;
    let fd_nodes = device.upload(fd_rule.nodes())?;
    let fd_weights = device.upload(fd_rule.weights())?;
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
    let mut launch = CrLaunch {
        n_systems: n_systems as i32,
        n_levels: n as i32,
        n_exc: n_exc as i32,
        n_ion: n_ion as i32,
        stats: match settings.stats {
            Statistics::FermiDirac => 0,
            Statistics::MaxwellBoltzmann => 1,
        },
        n_nodes: q.rule().len() as i32,
        fd_n: fd_rule.len() as i32,
        unused: 0,
        constants,
        dt,
        n_steps: 0,
        first_step: 0,
        scratch_len: scratch_len as i64,
        sample_stride: dim as i64,
    };
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
                .arg(&real)
                .arg(&index)
                .arg(&nodes)
                .arg(&weights)
                .arg(&fd_nodes)
                .arg(&fd_weights)
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
