//! CUDA path of the batched rates: the same function as [`super::cpu`], evaluated by the kernels
//! of `kernels/rates.cu` (a line-by-line transcription of [`super::integrals`]); results agree
//! with the CPU reference to relative 1e-12.
//!
//! Each call validates its inputs exactly as the CPU path does, solves the chemical potential of
//! every state on the host ([`super::conditions`], so both paths use the identical mu), uploads
//! the states and transitions as structure-of-arrays device buffers, launches one kernel and
//! downloads the results, `out[t + n_transitions * s]`. Every kernel takes one argument, the
//! `#[repr(C)]` [`RatesLaunch`] (rates.cu `RatesLaunch`), and every launch goes through
//! [`launch`].
//!
//! Everything that depends only on p, on the constants or on one plasma state is computed here
//! by the Rust functions themselves and passed to the kernels, so it is bit-identical on both
//! paths: the Gauss-Legendre nodes and weights, the tails of the upper limits
//! ([`Quadrature::thermal_tail`], [`Quadrature::radiation_tail`]), the rate prefactors, hbar omega_p and the
//! inverse-bremsstrahlung factor of each state.
//!
//! Parallel layout (128-thread blocks, grid-stride loops over pairs, so any batch size runs):
//! - excitation, photoionization and inverse bremsstrahlung: one warp per (transition, state)
//!   pair (per state for inverse bremsstrahlung); the lanes stride over the flattened
//!   (panel, node) index of the graded composite rule and the sums are reduced by warp shuffles;
//! - ionization (a double integral): one block per pair; the threads stride over the outer
//!   (panel, node) index, each doing its inner integral serially, then a block reduction.
//!
//! [`Precision::Single`] launches each kernel's twin `<name>_single_kernel`, which computes the pairs
//! inside single precision's range with FP32 integrands ([`super::precision`]).
//!
//! Units as in [`super`]: energies and temperatures in eV, densities in cm^-3, rates in s^-1 per
//! ion, heating in eV s^-1 per ion (photoionization) or eV cm^-3 s^-1 (inverse bremsstrahlung).

use super::constants::{excitation_prefactor, ionization_prefactor, photon_flux_factor, plasma_photon_energy};
use super::integrals::{inverse_bremsstrahlung_factor, Conditions};
use super::{
    check_excitations, check_ionizations, check_photoionizations, check_z2n, conditions, Excitation, Ionization,
    Photoionization, PlasmaState, Precision, Quadrature, RatePairs, Statistics,
};
use crate::backend::CudaDevice;
use crate::error::Result;
use crate::memory;
use cudarc::driver::{CudaSlice, DevicePtr, DevicePtrMut, DeviceRepr, LaunchConfig, PushKernelArg};

/// Kernel file name (for the module cache and NVRTC messages) and its source.
const FILE: &str = "rates.cu";
const SOURCE: &str = include_str!("../../kernels/rates.cu");

/// The kernel of a batch: `double` or, when `q` asks for single precision, its twin `single`
/// (rates.cu `<name>_single_kernel`: each pair in FP32 where
/// [`super::precision::single_precision_fits`] allows, as rates.cu `fits_single`, else FP64).
fn kernel_for(q: &Quadrature, double: &'static str, single: &'static str) -> &'static str {
    match q.precision() {
        Precision::Double => double,
        Precision::Single => single,
    }
}

/// Threads per block of every rates kernel (`BLOCK` in rates.cu).
const BLOCK: u32 = 128;
/// Warps per block (`WARPS` in rates.cu): pairs per block of the one-warp-per-pair kernels.
const WARPS_PER_BLOCK: u64 = BLOCK as u64 / 32;
/// Most blocks launched at once; larger batches are covered by the kernels' grid-stride loops.
const MAX_BLOCKS: u64 = 1 << 20;

/// One launch of `BLOCK`-thread blocks covering `work` items at `per_block` items per block.
fn launch_config(work: usize, per_block: u64) -> LaunchConfig {
    let blocks = (work as u64).div_ceil(per_block).clamp(1, MAX_BLOCKS);
    LaunchConfig { grid_dim: (blocks as u32, 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 }
}

/// The kernels' `stats` argument: 0 = Fermi-Dirac, 1 = Maxwell-Boltzmann.
fn stats_code(stats: Statistics) -> i32 {
    match stats {
        Statistics::FermiDirac => 0,
        Statistics::MaxwellBoltzmann => 1,
    }
}

/// `field(x)[k]` of every transition, coefficient-major: `out[k * n + t]` (the kernels' layout).
fn coefficient_major<T, const K: usize>(t: &[T], field: impl Fn(&T) -> [f64; K]) -> Result<Vec<f64>> {
    let mut out = memory::with_capacity("the fit coefficients of the batch", K * t.len())?;
    for k in 0..K {
        out.extend(t.iter().map(|x| field(x)[k]));
    }
    Ok(out)
}

/// One scalar field of every transition (or state).
fn column<T>(items: &[T], field: impl Fn(&T) -> f64) -> Result<Vec<f64>> {
    memory::collect("a column of the batch", items.iter().map(field))
}

/// The one argument of every rates kernel: `RatesLaunch` of rates.cu, same field order. Device
/// buffers are passed as their addresses; a kernel reads the fields rates.cu names for it, the
/// others stay 0 (NULL). Units as in [`super`].
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct RatesLaunch {
    /// Transitions of the batch (inverse bremsstrahlung: 0) and plasma states.
    n_transitions: i64,
    n_states: i64,
    /// 0 = Fermi-Dirac, 1 = Maxwell-Boltzmann ([`stats_code`]).
    stats: i32,
    /// Gauss-Legendre nodes per panel, and the nodes and weights on [-1, 1].
    n_nodes: i32,
    nodes: u64,
    weights: u64,
    /// [`Quadrature::thermal_tail`] and [`Quadrature::radiation_tail`] (decay lengths in T_e and T_r).
    thermal: f64,
    radiation: f64,
    /// Excitation: [`excitation_prefactor`] [eV^-1 s^-1]; ionization: [`ionization_prefactor`]
    /// [eV^-4 s^-1]; photoionization: [`photon_flux_factor`] [cm^-2 s^-1 eV^-3].
    prefactor: f64,
    /// Per state: T_e, mu, T_r [eV].
    te: u64,
    mu: u64,
    tr: u64,
    /// Per transition: E [eV]; the fit coefficients (omega B0..B5 or beli C0..C4),
    /// coefficient-major; the statistical weights; D0, D1 [cm^2].
    energy: u64,
    coefficients: u64,
    g_lower: u64,
    g_upper: u64,
    d0: u64,
    d1: u64,
    /// Per state (inverse bremsstrahlung): hbar omega_p [eV] and [`inverse_bremsstrahlung_factor`].
    eps_c: u64,
    factor: u64,
    /// Outputs: `up`, `down` (n_transitions x n_states, `out[t + n_transitions * s]`) or, for
    /// inverse bremsstrahlung, `heating` (per state).
    up: u64,
    down: u64,
    heating: u64,
}

// SAFETY: a plain repr(C) struct of integers, doubles and device addresses, mirrored field by
// field in rates.cu.
unsafe impl DeviceRepr for RatesLaunch {}

// 22 eight-byte slots (the two i32 share one), no padding: rates.cu asserts the same size.
const _: () = assert!(std::mem::size_of::<RatesLaunch>() == 176);

/// The address of a device buffer the kernel reads, on `device`'s stream (every rates buffer
/// lives and is used there, so the stream orders its uses).
fn address(device: &CudaDevice, buffer: &CudaSlice<f64>) -> u64 {
    buffer.device_ptr(device.stream()).0
}

/// The address of a device buffer the kernel writes.
fn address_mut(device: &CudaDevice, buffer: &mut CudaSlice<f64>) -> u64 {
    buffer.device_ptr_mut(device.stream()).0
}

/// What every rates kernel takes, on the device: statistics, the rule, the tails of the upper
/// limits and the plasma states (the buffers that [`Inputs::launch`] points at).
struct Inputs {
    stats: i32,
    /// Gauss-Legendre nodes and weights on [-1, 1], and their number.
    nodes: CudaSlice<f64>,
    weights: CudaSlice<f64>,
    n_nodes: i32,
    thermal: f64,
    radiation: f64,
    n_states: i64,
    /// Per state: T_e [eV], mu [eV], T_r [eV].
    te: CudaSlice<f64>,
    mu: CudaSlice<f64>,
    tr: CudaSlice<f64>,
}

impl Inputs {
    fn upload(device: &CudaDevice, stats: Statistics, q: &Quadrature, conds: &[Conditions]) -> Result<Self> {
        let rule = q.rule();
        Ok(Inputs {
            stats: stats_code(stats),
            nodes: device.upload(rule.nodes())?,
            weights: device.upload(rule.weights())?,
            n_nodes: rule.nodes().len() as i32,
            thermal: q.thermal_tail(),
            radiation: q.radiation_tail(),
            n_states: conds.len() as i64,
            te: device.upload(&column(conds, |c| c.te)?)?,
            mu: device.upload(&column(conds, |c| c.mu)?)?,
            tr: device.upload(&column(conds, |c| c.tr)?)?,
        })
    }

    /// The launch argument with these inputs for a batch of `n_transitions` transitions; the
    /// kernel's own fields are filled by the caller.
    fn launch(&self, device: &CudaDevice, n_transitions: usize) -> RatesLaunch {
        RatesLaunch {
            n_transitions: n_transitions as i64,
            n_states: self.n_states,
            stats: self.stats,
            n_nodes: self.n_nodes,
            nodes: address(device, &self.nodes),
            weights: address(device, &self.weights),
            thermal: self.thermal,
            radiation: self.radiation,
            te: address(device, &self.te),
            mu: address(device, &self.mu),
            tr: address(device, &self.tr),
            ..RatesLaunch::default()
        }
    }
}

/// Launches `kernel` of rates.cu on `params` over `work` items at `per_block` items per block.
///
/// # Safety
/// Every address in `params` that `kernel` reads or writes must be a live buffer of `device` of
/// the length rates.cu indexes (per state `n_states`, per transition `n_transitions`, the
/// coefficients 6 or 5 `n_transitions`, the outputs `n_transitions n_states`), kept alive until
/// the stream has run the launch.
unsafe fn launch(device: &CudaDevice, kernel: &str, params: &RatesLaunch, work: usize, per_block: u64) -> Result<()> {
    let func = device.function(FILE, SOURCE, kernel)?;
    let mut builder = device.stream().launch_builder(&func);
    builder.arg(params);
    builder.launch(launch_config(work, per_block))?;
    Ok(())
}

/// Runs a pair kernel (excitation, ionization, photoionization) on `params` and downloads its
/// `up` and `down` (n_transitions x n_states each), which it allocates here.
///
/// # Safety
/// As [`launch`], for every input address of `params`.
unsafe fn rate_pairs(device: &CudaDevice, kernel: &str, mut params: RatesLaunch, per_block: u64) -> Result<RatePairs> {
    let n_pairs =
        memory::elements::<f64>("the rates of the batch", params.n_transitions as usize, params.n_states as usize)?;
    let mut up = device.zeros::<f64>(n_pairs)?;
    let mut down = device.zeros::<f64>(n_pairs)?;
    params.up = address_mut(device, &mut up);
    params.down = address_mut(device, &mut down);
    launch(device, kernel, &params, n_pairs, per_block)?;
    let mut pairs = RatePairs {
        up: memory::filled("the upward rates of the batch", n_pairs, 0.0)?,
        down: memory::filled("the downward rates of the batch", n_pairs, 0.0)?,
    };
    device.download_into(&up, &mut pairs.up)?;
    device.download_into(&down, &mut pairs.down)?;
    Ok(pairs)
}

/// The columns of a batch of collisional transitions (excitations or ionizations): energy E
/// [eV], the fit coefficients (omega B0..B5 or beli C0..C4) coefficient-major, and the
/// statistical weights of the two levels.
struct Collisional {
    n: usize,
    energy: Vec<f64>,
    coefficients: Vec<f64>,
    g_lower: Vec<f64>,
    g_upper: Vec<f64>,
}

/// The up and down rates of a batch of collisional transitions `t` by `kernel` (an excitation
/// or ionization kernel, `per_block` pairs per block) with rate prefactor `prefactor`.
fn collisional_rates(
    device: &CudaDevice,
    stats: Statistics,
    q: &Quadrature,
    states: &[PlasmaState],
    t: Collisional,
    (prefactor, kernel, per_block): (f64, &str, u64),
) -> Result<RatePairs> {
    let conds = conditions(stats, states)?;
    let inputs = Inputs::upload(device, stats, q, &conds)?;
    let energy = device.upload(&t.energy)?;
    let coefficients = device.upload(&t.coefficients)?;
    let g_lower = device.upload(&t.g_lower)?;
    let g_upper = device.upload(&t.g_upper)?;
    let params = RatesLaunch {
        prefactor,
        energy: address(device, &energy),
        coefficients: address(device, &coefficients),
        g_lower: address(device, &g_lower),
        g_upper: address(device, &g_upper),
        ..inputs.launch(device, t.n)
    };
    // SAFETY: every buffer addressed lives until rate_pairs has downloaded the results, with the
    // lengths the collisional kernels index (n_states, n_transitions, 6 or 5 n_transitions).
    unsafe { rate_pairs(device, kernel, params, per_block) }
}

/// Collisional excitation / de-excitation rates on `device`, see [`super::excitation_rates`]:
/// `up` = J_up [s^-1 per lower-level ion], `down` = J_down [s^-1 per upper-level ion].
/// Kernel `excitation_kernel`, one warp per (transition, state) pair.
pub fn excitation_rates(
    device: &CudaDevice,
    stats: Statistics,
    q: &Quadrature,
    states: &[PlasmaState],
    t: &[Excitation],
) -> Result<RatePairs> {
    check_excitations(t)?;
    let columns = Collisional {
        n: t.len(),
        energy: column(t, |x| x.energy_ev)?,
        coefficients: coefficient_major(t, |x| x.omega)?,
        g_lower: column(t, |x| x.g_lower)?,
        g_upper: column(t, |x| x.g_upper)?,
    };
    let kernel = kernel_for(q, "excitation_kernel", "excitation_single_kernel");
    collisional_rates(device, stats, q, states, columns, (excitation_prefactor(), kernel, WARPS_PER_BLOCK))
}

/// Collisional ionization / three-body recombination rates on `device`, see
/// [`super::ionization_rates`]: `up` = K_up [s^-1 per ion of the lower stage], `down` = K_down
/// [s^-1 per ion of the upper stage]. Kernel `ionization_kernel`, one block per pair.
pub fn ionization_rates(
    device: &CudaDevice,
    stats: Statistics,
    q: &Quadrature,
    states: &[PlasmaState],
    t: &[Ionization],
) -> Result<RatePairs> {
    check_ionizations(t)?;
    let columns = Collisional {
        n: t.len(),
        energy: column(t, |x| x.energy_ev)?,
        coefficients: coefficient_major(t, |x| x.beli)?,
        g_lower: column(t, |x| x.g_lower)?,
        g_upper: column(t, |x| x.g_upper)?,
    };
    let kernel = kernel_for(q, "ionization_kernel", "ionization_single_kernel");
    collisional_rates(device, stats, q, states, columns, (ionization_prefactor(), kernel, 1))
}

/// Photoionization rates and heating on `device`, see [`super::photoionization_rates`]:
/// `up` = L [s^-1 per ion], `down` = photoelectron heating [eV s^-1 per ion].
/// Kernel `photoionization_kernel`, one warp per (transition, state) pair.
pub fn photoionization_rates(
    device: &CudaDevice,
    stats: Statistics,
    q: &Quadrature,
    states: &[PlasmaState],
    t: &[Photoionization],
) -> Result<RatePairs> {
    check_photoionizations(t)?;
    let conds = conditions(stats, states)?;
    let inputs = Inputs::upload(device, stats, q, &conds)?;
    let energy = device.upload(&column(t, |x| x.energy_ev)?)?;
    let d0 = device.upload(&column(t, |x| x.d0_cm2)?)?;
    let d1 = device.upload(&column(t, |x| x.d1_cm2)?)?;
    let params = RatesLaunch {
        prefactor: photon_flux_factor(),
        energy: address(device, &energy),
        d0: address(device, &d0),
        d1: address(device, &d1),
        ..inputs.launch(device, t.len())
    };
    let kernel = kernel_for(q, "photoionization_kernel", "photoionization_single_kernel");
    // SAFETY: every buffer addressed lives until rate_pairs has downloaded the results, with the
    // lengths photoionization_kernel indexes (n_states, n_transitions).
    unsafe { rate_pairs(device, kernel, params, WARPS_PER_BLOCK) }
}

/// Inverse-bremsstrahlung heating [eV cm^-3 s^-1] of every state on `device`, see
/// [`super::inverse_bremsstrahlung_heating`]. The lower limit eps_c = hbar omega_p of n_e, in eV, and
/// the factor [`inverse_bremsstrahlung_factor`] of each state are computed here (as
/// [`super::integrals::inverse_bremsstrahlung`] does), the integral
/// int ln[...] / (e^{w/T_r} - 1) dw by kernel `inverse_bremsstrahlung_kernel`, one warp per state.
pub fn inverse_bremsstrahlung_heating(
    device: &CudaDevice,
    stats: Statistics,
    q: &Quadrature,
    states: &[PlasmaState],
    z2n: &[f64],
) -> Result<Vec<f64>> {
    let conds = conditions(stats, states)?;
    check_z2n(states, z2n)?;
    let inputs = Inputs::upload(device, stats, q, &conds)?;
    let eps_c = device.upload(&column(&conds, |c| plasma_photon_energy(c.ne))?)?;
    let factor = memory::collect(
        "the inverse-bremsstrahlung factors",
        conds.iter().zip(z2n).map(|(c, &z)| inverse_bremsstrahlung_factor(c, z)),
    )?;
    let factor = device.upload(&factor)?;
    let mut heating = device.zeros::<f64>(conds.len())?;
    let params = RatesLaunch {
        eps_c: address(device, &eps_c),
        factor: address(device, &factor),
        heating: address_mut(device, &mut heating),
        ..inputs.launch(device, 0)
    };
    // Always double: this integrand is a difference that FP32 would cancel (super::precision),
    // and one integral per state never limits a batch's time.
    // SAFETY: every buffer addressed holds n_states elements and lives until the download below.
    unsafe { launch(device, "inverse_bremsstrahlung_kernel", &params, conds.len(), WARPS_PER_BLOCK) }?;
    let mut out = memory::filled("the heating of the batch", conds.len(), 0.0)?;
    device.download_into(&heating, &mut out)?;
    Ok(out)
}
