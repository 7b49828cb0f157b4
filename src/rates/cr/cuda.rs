//! CR RK4 on the device: kernel `cr_rk4_kernel` of `kernels/rates.cu`, one block per CR system,
//! recomputing every rate at every stage on the device. The host packs the model once, launches
//! one kernel per sample interval (each advancing `sample_every` steps and writing the state into
//! its slot of a device buffer of samples), and downloads the samples at the end: no host round
//! trip inside the run.

use super::{sample, CrModel, CrSample, CrSettings};
use crate::backend::CudaDevice;
use crate::error::{Error, Result};
use crate::math::gauss_legendre::GaussLegendre;
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
fn pack(model: &CrModel) -> (Vec<f64>, Vec<i32>) {
    let exc = model.excitations();
    let ion = model.ionizations();
    let g = model.weights();
    let mut real = model.charges().to_vec();
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
    let mut index: Vec<i32> = exc.iter().map(|x| x.lower as i32).collect();
    index.extend(exc.iter().map(|x| x.upper as i32));
    index.extend(ion.iter().map(|x| x.lower as i32));
    index.extend(ion.iter().map(|x| x.upper as i32));
    (real, index)
}

/// Advances each system of `y0s` on the device (see [`super::run_rk4`]); returns the samples of
/// every system.
pub(super) fn run_rk4(
    device: &CudaDevice,
    model: &CrModel,
    settings: &CrSettings,
    y0s: &[Vec<f64>],
    dt: f64,
    n_steps: u64,
    sample_every: u64,
) -> Result<Vec<Vec<CrSample>>> {
    let n = model.n_levels();
    let dim = n + 1;
    let (n_exc, n_ion) = (model.excitations().len(), model.ionizations().len());
    let n_systems = y0s.len();
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
    let stats: i32 = match settings.stats {
        Statistics::FermiDirac => 0,
        Statistics::MaxwellBoltzmann => 1,
    };
    let (real, index) = pack(model);
    let real = device.upload(&real)?;
    let index = device.upload(&index)?;
    let nodes = device.upload(q.rule().nodes())?;
    let weights = device.upload(q.rule().weights())?;
    let fd_nodes = device.upload(fd_rule.nodes())?;
    let fd_weights = device.upload(fd_rule.weights())?;
    // Scratch per system (cr_scratch): y, ys, k1..k4, the rates, the inverse bremsstrahlung and eta.
    let scratch_len = 6 * dim + 2 * n_exc + 4 * n_ion + 2;
    let mut host_scratch = vec![0.0; scratch_len * n_systems];
    for (s, y0) in y0s.iter().enumerate() {
        host_scratch[s * scratch_len..s * scratch_len + dim].copy_from_slice(y0);
        host_scratch[(s + 1) * scratch_len - 1] = f64::NAN;
    }
    let mut scratch = device.upload(&host_scratch)?;
    let n_chunks = n_steps.div_ceil(sample_every) as usize;
    let slot = n_systems * dim;
    let mut samples = device.zeros::<f64>((n_chunks + 1) * slot)?;
    let mut status = device.zeros::<i64>(2 * n_systems)?;
    let func = device.function(FILE, SOURCE, "cr_rk4_kernel")?;
    let config = LaunchConfig { grid_dim: (n_systems as u32, 1, 1), block_dim: (CR_BLOCK, 1, 1), shared_mem_bytes: 0 };
    let (n_sys, n_lev, n_e, n_i) = (n_systems as i32, n as i32, n_exc as i32, n_ion as i32);
    let (n_nodes, fd_n) = (q.rule().len() as i32, fd_rule.len() as i32);
    let (scratch_len_arg, stride) = (scratch_len as i64, dim as i64);
    for chunk in 0..n_chunks {
        let first = chunk as u64 * sample_every;
        let steps = sample_every.min(n_steps - first) as i64;
        let first = first as i64;
        let mut slot_view = samples.slice_mut((chunk + 1) * slot..(chunk + 2) * slot);
        let mut launch = device.stream().launch_builder(&func);
        launch
            .arg(&n_sys)
            .arg(&n_lev)
            .arg(&n_e)
            .arg(&n_i)
            .arg(&real)
            .arg(&index)
            .arg(&stats)
            .arg(&nodes)
            .arg(&weights)
            .arg(&n_nodes)
            .arg(&fd_nodes)
            .arg(&fd_weights)
            .arg(&fd_n)
            .arg(&constants)
            .arg(&dt)
            .arg(&steps)
            .arg(&first)
            .arg(&mut scratch)
            .arg(&scratch_len_arg)
            .arg(&mut slot_view)
            .arg(&stride)
            .arg(&mut status);
        // SAFETY: arguments match cr_rk4_kernel's parameters in order and type; scratch holds
        // scratch_len doubles per system, the slot n_systems * dim, status 2 per system.
        unsafe { launch.launch(config) }?;
    }
    let mut host_status = vec![0i64; 2 * n_systems];
    device.download_into(&status, &mut host_status)?;
    for s in 0..n_systems {
        if host_status[2 * s] != 0 {
            let what = if host_status[2 * s] == STATUS_ENERGY_BELOW_GROUND_STATE {
                "the electron energy density fell below the Fermi ground state (zero for Maxwell-Boltzmann) or became non-finite"
            } else {
                "the temperature inversion did not converge"
            };
            return Err(Error::NotConverged(format!(
                "CR system {s}: at RK4 step {}: {what}; use a smaller dt_s",
                host_status[2 * s + 1]
            )));
        }
    }
    let mut host_samples = vec![0.0; (n_chunks + 1) * slot];
    device.download_into(&samples, &mut host_samples)?;
    (0..n_systems)
        .map(|s| {
            let mut out = vec![sample(model, settings.stats, 0.0, &y0s[s])?];
            for chunk in 0..n_chunks {
                let step = (((chunk as u64) + 1) * sample_every).min(n_steps);
                let y = &host_samples[(chunk + 1) * slot + s * dim..(chunk + 1) * slot + (s + 1) * dim];
                out.push(sample(model, settings.stats, step as f64 * dt, y)?);
            }
            Ok(out)
        })
        .collect()
}
