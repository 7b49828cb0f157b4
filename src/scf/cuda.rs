//! CUDA path of the SCF family: the two-electron supermatrix (non-relativistic or Dirac-Fock) in
//! its component groups ([`super::groups`]) computed one integral set per thread on each group's
//! triangular map (`kernels/scf.cu`, paper §2.3: grid-stride loop, 64-bit indices; the same
//! closed forms as `cpu.rs` and [`super::slater`]), kept on the device, and the Fock build G D'
//! as one packed symmetric product per group (packed upper triangles, two passes over 32 x 32
//! tiles with the sums in a fixed order). Only the folded density
//! (T doubles) goes up and G D' (T doubles) comes down per SCF iteration.

use super::groups::ComponentGroups;
use super::index_map::triangle;
use super::layout::Blocks;
use super::radial::{Component, RadialFunction};
use super::slater::HALF_TABLES;
use super::Watch;
use crate::backend::CudaDevice;
use crate::error::{Error, Result};
use cudarc::driver::{CudaFunction, CudaSlice, DevicePtr, DeviceRepr, LaunchConfig, PushKernelArg};
use std::sync::Arc;

const FILE: &str = "scf.cu";
const SOURCE: &str = include_str!("../../kernels/scf.cu");
const BLOCK: u32 = 128;
/// Integral sets per launch of a watched call, which synchronises after each (about 0.1 s of an
/// H200 for Dirac-Fock sets); an unwatched call computes all of them in one launch.
const DEVICE_SETS_PER_REPORT: u64 = 1 << 25;

/// The device addresses of a basis's function arrays (struct Functions of scf.cu).
#[repr(C)]
#[derive(Clone, Copy)]
struct Functions {
    exponents: u64,
    ln_exponents: u64,
    coefs: u64,
    powers: u64,
    comps: u64,
    ln_gamma: u64,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct SupermatrixParams {
    functions: Functions,
    first: u64,
    offsets: u64,
    weights: u64,
    packed: u64,
    set_begin: u64,
    set_end: u64,
    nsym: i32,
    kmax: i32,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct MixedParams {
    functions: Functions,
    first: u64,
    large: u64,
    offsets: u64,
    weights: u64,
    packed: u64,
    set_begin: u64,
    set_end: u64,
    nsym: i32,
    kmax: i32,
}

// SAFETY: plain repr(C) structs of integers, mirrored field by field in scf.cu.
unsafe impl DeviceRepr for SupermatrixParams {}
unsafe impl DeviceRepr for MixedParams {}

/// The supermatrix on the device in its two component groups ([`ComponentGroups`]), with the
/// handle that contracts it and the two T-vectors of the contraction (allocated once, reused by
/// every Fock build).
pub struct DeviceSupermatrix {
    device: Arc<CudaDevice>,
    same: CudaSlice<f64>,
    mixed: CudaSlice<f64>,
    folded: CudaSlice<f64>,
    product: CudaSlice<f64>,
    /// The per-tile column and row sums of a contraction (32 per tile of the larger group).
    tile_columns: CudaSlice<f64>,
    tile_rows: CudaSlice<f64>,
    symv_tiles: CudaFunction,
    symv_sum: CudaFunction,
    n_same: usize,
    n_mixed: usize,
}

/// The tile edge of the packed symmetric product (SYMV_TILE of scf.cu).
const SYMV_TILE: u64 = 32;

fn ptr<T>(slice: &CudaSlice<T>, device: &CudaDevice) -> u64 {
    slice.device_ptr(device.stream()).0
}

/// The functions of a basis on the device, one array per field (the kernels' structure of
/// arrays), with the ln Γ(x2/2) table ([`super::slater::HALF_TABLES`]): the same for both
/// component groups, whose blocks differ only in where they start ([`DeviceBlocks`]).
struct DeviceFunctions {
    exponents: CudaSlice<f64>,
    ln_exponents: CudaSlice<f64>,
    coefs: CudaSlice<f64>,
    powers: CudaSlice<u32>,
    comps: CudaSlice<u32>,
    ln_gamma: CudaSlice<f64>,
}

impl DeviceFunctions {
    fn upload(device: &CudaDevice, functions: &[RadialFunction]) -> Result<Self> {
        Ok(DeviceFunctions {
            exponents: device.upload(&functions.iter().map(|f| f.exponent).collect::<Vec<_>>())?,
            ln_exponents: device.upload(&functions.iter().map(|f| f.ln_exponent).collect::<Vec<_>>())?,
            coefs: device.upload(&functions.iter().flat_map(|f| f.terms.map(|t| t.1)).collect::<Vec<_>>())?,
            powers: device.upload(&functions.iter().flat_map(|f| f.terms.map(|t| t.0)).collect::<Vec<_>>())?,
            comps: device
                .upload(&functions.iter().map(|f| (f.component == Component::Small) as u32).collect::<Vec<_>>())?,
            ln_gamma: device.upload(&HALF_TABLES.ln_gamma)?,
        })
    }

    fn addresses(&self, device: &CudaDevice) -> Functions {
        Functions {
            exponents: ptr(&self.exponents, device),
            ln_exponents: ptr(&self.ln_exponents, device),
            coefs: ptr(&self.coefs, device),
            powers: ptr(&self.powers, device),
            comps: ptr(&self.comps, device),
            ln_gamma: ptr(&self.ln_gamma, device),
        }
    }
}

/// The blocks of one group on the device: each block's first function and the exchange factors
/// c_k as weights[(a nsym + b) kmax + k] (zero where k is not allowed).
struct DeviceBlocks {
    first: CudaSlice<u64>,
    weights: CudaSlice<f64>,
    nsym: i32,
    kmax: i32,
}

impl DeviceBlocks {
    fn upload(device: &CudaDevice, blocks: &Blocks) -> Result<Self> {
        let nsym = blocks.n_blocks();
        let kmax = (0..nsym)
            .flat_map(|a| (0..nsym).flat_map(move |b| blocks.exchange(a, b).iter().map(|&(k, _)| k as usize + 1)))
            .max()
            .unwrap_or(1);
        let mut weights = vec![0.0; nsym * nsym * kmax];
        for a in 0..nsym {
            for b in 0..nsym {
                for &(k, c) in blocks.exchange(a, b) {
                    weights[(a * nsym + b) * kmax + k as usize] = c;
                }
            }
        }
        let first: Vec<u64> = blocks.first().iter().map(|&f| f as u64).collect();
        Ok(DeviceBlocks {
            first: device.upload(&first)?,
            weights: device.upload(&weights)?,
            nsym: nsym as i32,
            kmax: kmax as i32,
        })
    }
}

/// Runs `launch(begin, end)` over the sets [0, n_sets) in one launch, or (watched) in pieces of
/// [`DEVICE_SETS_PER_REPORT`], each synchronised and reported as (done_before + end) / total.
fn launch_sets(
    device: &CudaDevice,
    n_sets: u64,
    (done_before, total): (u64, u64),
    watch: &mut Watch<'_, '_>,
    mut launch: impl FnMut(u64, u64, LaunchConfig) -> Result<()>,
) -> Result<()> {
    let piece = if watch.is_some() { DEVICE_SETS_PER_REPORT } else { n_sets.max(1) };
    let mut end = 0;
    while end < n_sets {
        let begin = end;
        end = n_sets.min(begin + piece);
        let blocks = (end - begin).div_ceil(BLOCK as u64).clamp(1, 65_535 * 16) as u32;
        launch(begin, end, LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 })?;
        if let Some(report) = watch.as_deref_mut() {
            device.synchronize()?;
            report((done_before + end) as f64 / total as f64)?;
        }
    }
    Ok(())
}

impl DeviceSupermatrix {
    /// Computes the two packed groups of the supermatrix of `groups`; a watch hears the fraction
    /// of all sets done after each launch of [`DEVICE_SETS_PER_REPORT`] sets, synchronised.
    pub fn new(device: Arc<CudaDevice>, groups: &ComponentGroups, mut watch: Watch<'_, '_>) -> Result<Self> {
        let (same_map, n_mixed) = (groups.same_map(), groups.n_mixed());
        let (n_same_sets, n_mixed_sets) = (same_map.n_sets(), triangle(n_mixed as u64));
        let total = n_same_sets + n_mixed_sets;
        let len = |n: u64| usize::try_from(n).map_err(|_| Error::invalid("symmetries", "give too many integral sets"));
        let same = device.uninit::<f64>(len(n_same_sets)?.max(1))?;
        let mixed = device.uninit::<f64>(len(n_mixed_sets)?.max(1))?;

        // The sub-blocks share the symmetries' function list: one upload serves both groups.
        let functions = DeviceFunctions::upload(&device, groups.blocks().functions())?;
        let sub = DeviceBlocks::upload(&device, groups.same())?;
        let offsets: Vec<u64> =
            (0..=sub.nsym as usize).map(|j| same_map.pair_index(j, 0, 0).min(same_map.n_pairs())).collect();
        let offsets = device.upload(&offsets)?;
        let mut params = SupermatrixParams {
            functions: functions.addresses(&device),
            first: ptr(&sub.first, &device),
            offsets: ptr(&offsets, &device),
            weights: ptr(&sub.weights, &device),
            packed: ptr(&same, &device),
            set_begin: 0,
            set_end: 0,
            nsym: sub.nsym,
            kmax: sub.kmax,
        };
        let function = device.function(FILE, SOURCE, "supermatrix")?;
        launch_sets(&device, n_same_sets, (0, total), &mut watch, |begin, end, config| {
            (params.set_begin, params.set_end) = (begin, end);
            // SAFETY: the buffers hold the sizes the kernel reads (exponents, ln_exponents and
            // comps F functions, coefs and powers 2F, ln_gamma HALVES, first and offsets nsym + 1,
            // weights nsym² kmax) and `same` n_same_sets >= end; params mirrors the C struct.
            unsafe { device.stream().launch_builder(&function).arg(&params).launch(config) }?;
            Ok(())
        })?;

        if n_mixed_sets > 0 {
            let blocks = DeviceBlocks::upload(&device, groups.blocks())?;
            let (large, mixed_offsets) =
                (device.upload(&groups.large_counts())?, device.upload(groups.mixed_offsets())?);
            let mut params = MixedParams {
                functions: functions.addresses(&device),
                first: ptr(&blocks.first, &device),
                large: ptr(&large, &device),
                offsets: ptr(&mixed_offsets, &device),
                weights: ptr(&blocks.weights, &device),
                packed: ptr(&mixed, &device),
                set_begin: 0,
                set_end: 0,
                nsym: blocks.nsym,
                kmax: blocks.kmax,
            };
            let function = device.function(FILE, SOURCE, "supermatrix_mixed")?;
            launch_sets(&device, n_mixed_sets, (n_same_sets, total), &mut watch, |begin, end, config| {
                (params.set_begin, params.set_end) = (begin, end);
                // SAFETY: as above for the symmetries' blocks, with large nsym and offsets nsym + 1
                // values and `mixed` n_mixed_sets >= end.
                unsafe { device.stream().launch_builder(&function).arg(&params).launch(config) }?;
                Ok(())
            })?;
        }
        device.synchronize()?;
        let n_same = groups.n_same();
        let (folded, product) = (device.zeros::<f64>(n_same + n_mixed)?, device.zeros::<f64>(n_same + n_mixed)?);
        let tile_values = |n: usize| triangle((n as u64).div_ceil(SYMV_TILE)) * SYMV_TILE;
        let tile_len = len(tile_values(n_same).max(tile_values(n_mixed)))?.max(1);
        let (tile_columns, tile_rows) = (device.zeros::<f64>(tile_len)?, device.zeros::<f64>(tile_len)?);
        let (symv_tiles, symv_sum) =
            (device.function(FILE, SOURCE, "packed_symv_tiles")?, device.function(FILE, SOURCE, "packed_symv_sum")?);
        Ok(DeviceSupermatrix {
            device,
            same,
            mixed,
            folded,
            product,
            tile_columns,
            tile_rows,
            symv_tiles,
            symv_sum,
            n_same,
            n_mixed,
        })
    }

    /// The two packed groups, downloaded.
    pub fn download(&self) -> Result<(Vec<f64>, Vec<f64>)> {
        let get = |slice: &CudaSlice<f64>, n: usize| -> Result<Vec<f64>> {
            let mut out = crate::memory::filled("the supermatrix", slice.len(), 0.0)?;
            self.device.download_into(slice, &mut out)?;
            out.truncate(triangle(n as u64) as usize);
            Ok(out)
        };
        Ok((get(&self.same, self.n_same)?, get(&self.mixed, self.n_mixed)?))
    }

    /// out = G folded (length T: the same-component pairs, then the mixed ones), one packed
    /// symmetric product per group (`packed_symv_tiles` then `packed_symv_sum` of scf.cu: every
    /// stored set read once, the sums in a fixed order).
    pub fn contract(&mut self, folded: &[f64], out: &mut [f64]) -> Result<()> {
        let t = self.n_same + self.n_mixed;
        self.device.stream().memcpy_htod(&folded[..t], &mut self.folded)?;
        for (packed, offset, n) in [(&self.same, 0, self.n_same), (&self.mixed, self.n_same, self.n_mixed)] {
            if n == 0 {
                continue;
            }
            let at = |slice: &CudaSlice<f64>| ptr(slice, &self.device) + (offset * size_of::<f64>()) as u64;
            let (f, product, n) = (at(&self.folded), at(&self.product), n as u64);
            let (cols, rows) = (ptr(&self.tile_columns, &self.device), ptr(&self.tile_rows, &self.device));
            let tiles = triangle(n.div_ceil(SYMV_TILE)) as u32;
            let tile_config = LaunchConfig { grid_dim: (tiles, 1, 1), block_dim: (32, 8, 1), shared_mem_bytes: 0 };
            let sum_config =
                LaunchConfig { grid_dim: (n.div_ceil(256) as u32, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
            // SAFETY: packed holds n(n+1)/2 doubles, folded and product n from offset, the tile
            // buffers 32 per tile of the larger group (allocated in `new`).
            unsafe {
                self.device
                    .stream()
                    .launch_builder(&self.symv_tiles)
                    .arg(&ptr(packed, &self.device))
                    .arg(&f)
                    .arg(&cols)
                    .arg(&rows)
                    .arg(&n)
                    .launch(tile_config)?;
                self.device
                    .stream()
                    .launch_builder(&self.symv_sum)
                    .arg(&cols)
                    .arg(&rows)
                    .arg(&product)
                    .arg(&n)
                    .launch(sum_config)?;
            }
        }
        self.device.download_into(&self.product, &mut out[..t])
    }
}
