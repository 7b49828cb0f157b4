//! CUDA path of the line strengths: the same function as [`super::cpu`], with the dense products
//! done by cuBLAS DGEMM in FP64 (math mode `CUBLAS_DEFAULT_MATH`: IEEE FP64, on Hopper's FP64
//! tensor cores; no TF32, no emulated FP64) and the scatter, contraction and sparse unfolding by
//! the kernels of `kernels/linestrength.cu`.
//!
//! Device-resident state: the dipole matrix (`Nvib x 3 Nvib`, when it fits in
//! [`super::Options::max_device_bytes`]; otherwise a host copy streamed in blocks of v' columns,
//! each block's three components multiplied into the matching rows of Y, as GAIN blocks the dipole),
//! each block's labels and unfolding, the stored eigenvectors, and X and Y of the last lower batch.
//!
//! Blocks whose states are kept in host memory ([`super::LineStrength::set_states_on_host`]) go
//! to the device a batch at a time through two page-locked staging buffers and a copy stream:
//! while one batch's products run on the compute stream, the next batch is gathered into the
//! other pinned buffer (all cores) and uploaded ([`Engine::prefetch_lower`]); cudarc's event
//! tracking orders the reuse of each buffer after the kernels that read it. Used as an upper
//! block, such a block is uploaded whole for as long as it is needed ([`Engine::release_uploads`]).

use super::filters::{BatchLines, LineRule, RawLine, Verdict};
use super::rotation::{Contraction, COMPONENTS};
use super::{Block, Csr, LowerVectors, Options, TableKey};
use crate::backend::CudaDevice;
use crate::error::{Error, Result};
use crate::memory;
use cudarc::cublas::sys::cublasOperation_t;
use cudarc::cublas::{CudaBlas, Gemm, GemmConfig};
use cudarc::driver::{CudaSlice, CudaStream, DeviceRepr, LaunchConfig, PinnedHostSlice, PushKernelArg};
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::Arc;

const FILE: &str = "linestrength.cu";
const SOURCE: &str = include_str!("../../kernels/linestrength.cu");
/// Threads per block (`BLOCK` in linestrength.cu).
const BLOCK: u32 = 256;

// SAFETY: both are #[repr(C)] plain data with the layout of the kernels' `LineRule` and `RawLine`.
unsafe impl DeviceRepr for LineRule {}
unsafe impl DeviceRepr for RawLine {}

fn launch_config(work: usize) -> LaunchConfig {
    let blocks = (work as u64).div_ceil(BLOCK as u64).clamp(1, 1 << 20);
    LaunchConfig { grid_dim: (blocks as u32, 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 }
}

/// A CSR matrix on the device.
struct DeviceCsr {
    rows: usize,
    cols: usize,
    start: CudaSlice<i64>,
    col: CudaSlice<i64>,
    value: CudaSlice<f64>,
}

impl DeviceCsr {
    fn upload(device: &CudaDevice, csr: &Csr) -> Result<Self> {
        Ok(DeviceCsr {
            rows: csr.rows,
            cols: csr.cols,
            start: device.upload(&csr.start)?,
            // Zero-length device buffers are not allowed: pad empty matrices with one entry.
            col: device.upload(if csr.col.is_empty() { &[0] } else { &csr.col[..] })?,
            value: device.upload(if csr.value.is_empty() { &[0.0] } else { &csr.value[..] })?,
        })
    }
}

/// A block's data on the device.
struct DeviceBlock {
    v: CudaSlice<u32>,
    slot: CudaSlice<u32>,
    unfolding: Option<(DeviceCsr, DeviceCsr)>,
    /// The stored states (`n_coefficients x n_states` packed): on the device, or kept on the host
    /// with, while the block serves as an upper block, a whole copy on the device.
    states: Option<CudaSlice<f64>>,
    host_states: Option<Arc<Vec<f64>>>,
    uploaded: Option<CudaSlice<f64>>,
    /// Energies of the stored states (cm^-1), for the line filters.
    energies: Option<CudaSlice<f64>>,
}

/// One of the two staging buffers of host-held lower states: page-locked host memory, its device
/// copy, and the batch (block, states) it holds.
#[derive(Default)]
struct StagingSlot {
    host: Option<PinnedHostSlice<f64>>,
    device: Option<CudaSlice<f64>>,
    holds: Option<(usize, Vec<usize>)>,
}

/// Double-buffered upload of host-held lower states on their own stream.
struct Staging {
    copy: Arc<CudaStream>,
    slots: [StagingSlot; 2],
    /// The slot the loaded batch was read from (the other one is free for the next batch).
    in_use: usize,
}

/// A contraction table on the device (uploaded once per (lower, upper, THRESH_COEFF)).
struct DeviceTable {
    start: CudaSlice<u32>,
    lower_slot: CudaSlice<u32>,
    component: CudaSlice<u32>,
    factor: CudaSlice<f64>,
}

impl DeviceTable {
    fn upload(device: &CudaDevice, table: &Contraction) -> Result<Self> {
        // Zero-length device buffers are not allowed: an empty table (no coupling) gets one entry,
        // never read because every start[s]..start[s+1] range is empty.
        let pad = |v: &[u32]| if v.is_empty() { vec![0u32] } else { v.to_vec() };
        Ok(DeviceTable {
            start: device.upload(&table.start)?,
            lower_slot: device.upload(&pad(&table.lower_slot))?,
            component: device.upload(&pad(&table.component))?,
            factor: device.upload(if table.factor.is_empty() { &[0.0][..] } else { &table.factor[..] })?,
        })
    }
}

/// Where the dipole matrix lives.
enum Dipole {
    /// `Nvib x 3 Nvib` on the device.
    Resident(CudaSlice<f64>),
    /// On the host, streamed `columns` v' at a time through `buffer` (3 components x Nvib x columns).
    Streamed { host: Vec<f64>, columns: usize, buffer: CudaSlice<f64> },
}

/// The GPU engine of a handle.
pub(crate) struct Engine {
    device: Arc<CudaDevice>,
    blas: CudaBlas,
    n_vib: usize,
    dipole: Dipole,
    blocks: Vec<DeviceBlock>,
    tables: HashMap<TableKey, DeviceTable>,
    /// Device copy of caller-given lower vectors, reused between batches.
    staging: Option<CudaSlice<f64>>,
    x: Option<CudaSlice<f64>>,
    products: Option<CudaSlice<f64>>,
    lower_slots: usize,
    /// Columns of the loaded batch: its levels times their components.
    lower_columns: usize,
    /// Kept lines of the last judged batch, reused while large enough.
    lines: Option<CudaSlice<RawLine>>,
    /// Staging of host-held lower states (made the first time one is loaded).
    host_staging: Option<Staging>,
}

/// A dimension of a cuBLAS product (a 32-bit `int`): `value`, or an invalid argument naming the C
/// argument `name` that set it (`what` says which size).
fn blas_dim(name: &'static str, value: usize, what: &str) -> Result<i32> {
    i32::try_from(value).map_err(|_| {
        Error::invalid(
            name,
            format!("sets {what} = {value}, more than one GPU product takes (2^31 - 1): use smaller batches"),
        )
    })
}

fn cublas_error(e: impl std::fmt::Debug) -> Error {
    Error::Cuda(format!("cuBLAS: {e:?}"))
}

/// Makes `buffer` hold at least `len` elements (reallocating, uninitialised, when it is smaller).
fn reserve(device: &CudaDevice, buffer: &mut Option<CudaSlice<f64>>, len: usize) -> Result<()> {
    if buffer.as_ref().is_none_or(|b| b.len() < len) {
        *buffer = None;
        *buffer = Some(device.uninit::<f64>(len)?);
    }
    Ok(())
}

impl Engine {
    pub fn new(device: Arc<CudaDevice>, n_vib: usize, dipole: &[f64], options: Options) -> Result<Self> {
        let blas = device.blas()?;
        let bytes = (dipole.len() * 8) as u64;
        let allowed = if options.max_device_bytes > 0 {
            options.max_device_bytes
        } else {
            (device.memory()?.0 as f64 * 0.8) as u64
        };
        let dipole = if bytes <= allowed {
            Dipole::Resident(device.upload(dipole)?)
        } else {
            let per_column = (COMPONENTS * n_vib * 8) as u64;
            let columns = ((allowed / per_column) as usize).clamp(1, n_vib);
            let buffer = device.zeros::<f64>(COMPONENTS * n_vib * columns)?;
            Dipole::Streamed { host: memory::copy_of("the dipole matrix", dipole)?, columns, buffer }
        };
        Ok(Engine {
            device,
            blas,
            n_vib,
            dipole,
            blocks: Vec::new(),
            tables: HashMap::new(),
            staging: None,
            x: None,
            products: None,
            lower_slots: 0,
            lower_columns: 0,
            lines: None,
            host_staging: None,
        })
    }

    /// Dipole column blocks per lower batch.
    pub fn dipole_blocks(&self) -> usize {
        match &self.dipole {
            Dipole::Resident(_) => 1,
            Dipole::Streamed { columns, .. } => self.n_vib.div_ceil(*columns),
        }
    }

    pub fn add_block(&mut self, block: &Block) -> Result<()> {
        let d = &self.device;
        let unfolding = match &block.unfolding {
            Some((t, tt)) => Some((DeviceCsr::upload(d, t)?, DeviceCsr::upload(d, tt)?)),
            None => None,
        };
        self.blocks.push(DeviceBlock {
            v: d.upload(&block.v)?,
            slot: d.upload(&block.slots.of_function)?,
            unfolding,
            states: None,
            host_states: None,
            uploaded: None,
            energies: None,
        });
        Ok(())
    }

    /// Stores the states of block `id` (`packed`: `n_coefficients x n_states`, packed) on the
    /// device.
    pub fn set_states(&mut self, id: usize, energies: &[f64], packed: &[f64]) -> Result<()> {
        self.forget_states(id);
        self.blocks[id].states = Some(self.device.upload(packed)?);
        self.blocks[id].energies = Some(self.device.upload(energies)?);
        Ok(())
    }

    /// As [`Engine::set_states`], with the states kept on the host (`packed`, shared by the
    /// handle's engines).
    pub fn keep_states_on_host(&mut self, id: usize, energies: &[f64], packed: &Arc<Vec<f64>>) -> Result<()> {
        self.forget_states(id);
        self.blocks[id].host_states = Some(packed.clone());
        self.blocks[id].energies = Some(self.device.upload(energies)?);
        Ok(())
    }

    /// Drops the stored states of block `id` and the staged batches of them: the earlier states go
    /// first, so that old and new never take device memory together.
    fn forget_states(&mut self, id: usize) {
        let block = &mut self.blocks[id];
        (block.states, block.host_states, block.uploaded, block.energies) = (None, None, None, None);
        if let Some(staging) = &mut self.host_staging {
            for slot in &mut staging.slots {
                slot.holds = slot.holds.take().filter(|(b, _)| *b != id);
            }
        }
    }

    /// Frees the device copies of host-held blocks that served as upper blocks, but those of the
    /// blocks `keep`.
    pub fn release_uploads(&mut self, keep: &[usize]) {
        for (id, block) in self.blocks.iter_mut().enumerate() {
            if !keep.contains(&id) {
                block.uploaded = None;
            }
        }
    }

    /// Makes the stored states of block `id` available on the device: a host-held block is uploaded
    /// whole and kept until [`Engine::release_uploads`].
    fn ensure_device_states(&mut self, id: usize) -> Result<()> {
        let block = &mut self.blocks[id];
        if block.states.is_none() && block.uploaded.is_none() {
            let host = block.host_states.as_ref().ok_or_else(|| Error::Internal("stored states missing".into()))?;
            block.uploaded = Some(self.device.upload(host)?);
        }
        Ok(())
    }

    /// Starts the upload of states `states` of the host-held block `id` into the staging slot that
    /// the loaded batch does not use: gathered into its pinned buffer now (all cores), copied to the
    /// device on the copy stream while the compute stream works. A later
    /// [`Engine::load_lower`] of the same states reads them from there. Nothing happens for a
    /// block whose states are on the device.
    pub fn prefetch_lower(&mut self, id: usize, block: &Block, states: &[usize]) -> Result<()> {
        let Some(host) = self.blocks[id].host_states.clone() else { return Ok(()) };
        let staging = match &mut self.host_staging {
            Some(s) => s,
            None => {
                let copy = self.device.new_stream()?;
                self.host_staging.insert(Staging { copy, slots: Default::default(), in_use: 1 })
            }
        };
        let index = 1 - staging.in_use;
        let rows = block.n_coefficients();
        let len = memory::elements::<f64>("the lower batch's staging buffer", rows, states.len())?;
        let slot = &mut staging.slots[index];
        slot.holds = None;
        if slot.host.as_ref().is_none_or(|h| h.len() < len) {
            (slot.host, slot.device) = (None, None);
            slot.host = Some(self.device.alloc_pinned(len)?);
            slot.device = Some(self.device.uninit::<f64>(len)?);
        }
        let pinned = slot.host.as_mut().expect("allocated above");
        // Waits for the pinned buffer's last upload before writing it.
        let target = pinned.as_mut_slice()?;
        target[..len].par_chunks_mut(rows).zip(states.par_iter()).for_each(|(column, &s)| {
            column.copy_from_slice(&host[s * rows..(s + 1) * rows]);
        });
        staging.copy.memcpy_htod(pinned, slot.device.as_mut().expect("allocated above"))?;
        slot.holds = Some((id, states.to_vec()));
        Ok(())
    }

    /// The staging slot holding states `states` of block `id` (prefetched now when no slot holds
    /// them), marked as the one in use.
    fn staged(&mut self, id: usize, block: &Block, states: &[usize]) -> Result<usize> {
        let holds = |s: &Staging, i: usize| s.slots[i].holds.as_ref().is_some_and(|(b, h)| *b == id && h == states);
        let found = self.host_staging.as_ref().and_then(|s| (0..2).find(|&i| holds(s, i)));
        let index = match found {
            Some(i) => i,
            None => {
                self.prefetch_lower(id, block, states)?;
                let staging = self.host_staging.as_ref().expect("made by prefetch_lower");
                1 - staging.in_use
            }
        };
        self.host_staging.as_mut().expect("made by prefetch_lower").in_use = index;
        Ok(index)
    }

    /// X and then Y = M^T X for a batch of lower vectors of block `id` (one column per component).
    pub fn load_lower(&mut self, id: usize, block: &Block, vectors: LowerVectors<'_>, thresh_coeff: f64) -> Result<()> {
        let n = vectors.count();
        let slots = block.slots.len();
        let n_columns = block.columns(n);
        let cols = memory::elements::<f64>("the lower batch X", slots, n_columns)?;
        let rows = COMPONENTS * self.n_vib;
        let cols_dim = blas_dim("n_lower", cols, "slots x n_lower")?;
        blas_dim("n_vib", rows, "3 n_vib")?;
        let stream = self.device.stream().clone();
        // X, Y and the staging buffer are kept and reused while large enough (Y is written in full
        // by the DGEMM, X is zeroed below before the scatter).
        let x_len = memory::elements::<f64>("the lower batch X", self.n_vib, cols)?;
        reserve(&self.device, &mut self.x, x_len)?;
        reserve(&self.device, &mut self.products, memory::elements::<f64>("the dipole products Y", rows, cols)?)?;
        // Where the batch's vectors are: a device buffer of columns `ld` apart, or (`columns`) the
        // stored states picked by index.
        enum Source {
            Given,
            Staged(usize),
            Stored(CudaSlice<i64>),
        }
        let (ld, from) = match vectors {
            LowerVectors::Given { data, ld, n } => {
                let used = ld * (n - 1) + block.n_coefficients();
                reserve(&self.device, &mut self.staging, used)?;
                let staging = self.staging.as_mut().expect("reserved above");
                stream.memcpy_htod(&data[..used], &mut staging.slice_mut(..used))?;
                (ld, Source::Given)
            }
            LowerVectors::Stored(states) if self.blocks[id].host_states.is_some() => {
                (block.n_coefficients(), Source::Staged(self.staged(id, block, states)?))
            }
            LowerVectors::Stored(states) => {
                let index = memory::collect("the lower batch's state indices", states.iter().map(|&s| s as i64))?;
                (block.n_coefficients(), Source::Stored(self.device.upload(&index)?))
            }
        };
        let db = &self.blocks[id];
        let source = match &from {
            Source::Given => self.staging.as_ref().expect("filled above"),
            Source::Staged(i) => {
                let slot = &self.host_staging.as_ref().expect("staged above").slots[*i];
                slot.device.as_ref().expect("staged above")
            }
            Source::Stored(_) => {
                db.states.as_ref().ok_or_else(|| Error::Internal("stored states missing on the device".into()))?
            }
        };
        let columns = match &from {
            Source::Stored(c) => Some(c),
            _ => None,
        };
        let x = self.x.as_mut().expect("reserved above");
        stream.memset_zeros(&mut x.slice_mut(..x_len))?;
        let func = self.device.function(FILE, SOURCE, "ls_scatter_lower")?;
        let null_i64 = 0u64;
        let null_f64 = 0u64;
        let (n_primitive, ndeg, n_i, ld_i, n_vib, slots_i) =
            (block.n_primitive() as i64, block.ndeg as i64, n as i64, ld as i64, self.n_vib as i64, slots as i64);
        let mut launch = stream.launch_builder(&func);
        launch.arg(&n_primitive).arg(&ndeg).arg(&n_i).arg(source).arg(&ld_i);
        match columns {
            Some(c) => launch.arg(c),
            None => launch.arg(&null_i64),
        };
        match &db.unfolding {
            Some((t, _)) => launch.arg(&t.start).arg(&t.col).arg(&t.value),
            None => launch.arg(&null_i64).arg(&null_i64).arg(&null_f64),
        };
        launch.arg(&db.v).arg(&db.slot).arg(&n_vib).arg(&slots_i).arg(&thresh_coeff).arg(x);
        unsafe { launch.launch(launch_config(block.n_primitive() * n_columns)) }?;

        let y = self.products.as_mut().expect("reserved above");
        let x = self.x.as_ref().expect("reserved above");
        // Every dimension is at most 3 n_vib or the columns, both checked to fit cuBLAS's int.
        let nv = self.n_vib as i32;
        let gemm = |m: usize, lda: usize, ldc: usize| GemmConfig {
            transa: cublasOperation_t::CUBLAS_OP_T,
            transb: cublasOperation_t::CUBLAS_OP_N,
            m: m as i32,
            n: cols_dim,
            k: nv,
            alpha: 1.0f64,
            lda: lda as i32,
            ldb: nv,
            beta: 0.0,
            ldc: ldc as i32,
        };
        match &mut self.dipole {
            Dipole::Resident(m) => unsafe {
                self.blas.gemm(gemm(rows, self.n_vib, rows), m, x, y).map_err(cublas_error)?;
            },
            Dipole::Streamed { host, columns, buffer } => {
                let n_vib = self.n_vib;
                for first in (0..n_vib).step_by(*columns) {
                    let width = (*columns).min(n_vib - first);
                    for m in 0..COMPONENTS {
                        let src = &host[n_vib * (first + n_vib * m)..n_vib * (first + width + n_vib * m)];
                        let mut dst = buffer.slice_mut(0..n_vib * width);
                        stream.memcpy_htod(src, &mut dst)?;
                        let offset = first + n_vib * m;
                        let mut c = y.slice_mut(offset..);
                        unsafe { self.blas.gemm(gemm(width, n_vib, rows), &buffer.slice(0..n_vib * width), x, &mut c) }
                            .map_err(cublas_error)?;
                    }
                }
            }
        }
        self.lower_slots = slots;
        self.lower_columns = n_columns;
        Ok(())
    }

    /// Half-linestrengths into the upper block of `key` on the device (`n_primitive x n'`).
    fn half(&mut self, key: TableKey, block: &Block, table: &Contraction) -> Result<CudaSlice<f64>> {
        if !self.tables.contains_key(&key) {
            let uploaded = DeviceTable::upload(&self.device, table)?;
            self.tables.insert(key, uploaded);
        }
        let d = &self.device;
        let n = self.lower_columns;
        let db = &self.blocks[key.1];
        let t = &self.tables[&key];
        let mut half = d.uninit::<f64>(block.n_primitive() * n)?;
        let y = self.products.as_ref().ok_or_else(|| Error::Internal("no lower batch on the device".into()))?;
        let func = d.function(FILE, SOURCE, "ls_contract")?;
        let (n_upper, n_i, n_vib, lower_slots) =
            (block.n_primitive() as i64, n as i64, self.n_vib as i64, self.lower_slots as i64);
        let mut launch = d.stream().launch_builder(&func);
        launch
            .arg(&n_upper)
            .arg(&n_i)
            .arg(&db.v)
            .arg(&db.slot)
            .arg(&t.start)
            .arg(&t.lower_slot)
            .arg(&t.component)
            .arg(&t.factor)
            .arg(y)
            .arg(&n_vib)
            .arg(&lower_slots)
            .arg(&mut half);
        unsafe { launch.launch(launch_config(block.n_primitive() * n)) }?;
        Ok(half)
    }

    pub fn half_to_host(&mut self, key: TableKey, block: &Block, table: &Contraction) -> Result<Vec<f64>> {
        let half = self.half(key, block, table)?;
        let mut out = memory::filled("the half-linestrengths", half.len(), 0.0)?;
        self.device.download_into(&half, &mut out)?;
        Ok(out)
    }

    /// `out = A b` for a device CSR matrix and a packed `cols x n` device matrix.
    fn csr_times(&self, a: &DeviceCsr, b: &CudaSlice<f64>, n: usize) -> Result<CudaSlice<f64>> {
        let d = &self.device;
        let mut out = d.uninit::<f64>(a.rows * n)?;
        let func = d.function(FILE, SOURCE, "ls_csr_times")?;
        let (rows, cols, n_i) = (a.rows as i64, a.cols as i64, n as i64);
        let mut launch = d.stream().launch_builder(&func);
        launch.arg(&rows).arg(&cols).arg(&n_i).arg(&a.start).arg(&a.col).arg(&a.value).arg(b).arg(&mut out);
        unsafe { launch.launch(launch_config(a.rows * n)) }?;
        Ok(out)
    }

    /// Amplitudes of the stored states of block `upper` on the device: `n_states x (n' ndeg_F)`,
    /// column `i' + n' d_F` (one GEMM per upper component, with the rows of its projection).
    fn amplitudes_on_device(&mut self, key: TableKey, block: &Block, table: &Contraction) -> Result<CudaSlice<f64>> {
        let half = self.half(key, block, table)?;
        let n = self.lower_columns;
        self.ensure_device_states(key.1)?;
        let db = &self.blocks[key.1];
        let states = db.states.as_ref().or(db.uploaded.as_ref()).expect("made sure of above");
        let projected = match &db.unfolding {
            Some((_, projection)) => self.csr_times(projection, &half, n)?,
            None => half,
        };
        let rows = blas_dim("upper_block", block.n_coefficients(), "the length of its eigenvectors")?;
        let ldb =
            blas_dim("upper_block", block.ndeg * block.n_coefficients(), "ndeg x the length of its eigenvectors")?;
        let n_states = blas_dim("upper_block", block.energies.len(), "its number of states")?;
        let n_lower = blas_dim("n_lower", n, "the lower batch's components")?;
        let per_component = memory::elements::<f64>("the amplitudes", block.energies.len(), n)?;
        let mut out =
            self.device.uninit::<f64>(memory::elements::<f64>("the amplitudes", per_component, block.ndeg)?)?;
        let cfg = GemmConfig {
            transa: cublasOperation_t::CUBLAS_OP_T,
            transb: cublasOperation_t::CUBLAS_OP_N,
            m: n_states,
            n: n_lower,
            k: rows,
            alpha: 1.0f64,
            lda: rows,
            ldb,
            beta: 0.0,
            ldc: n_states,
        };
        for d in 0..block.ndeg {
            let b = projected.slice(d * block.n_coefficients()..);
            let mut c = out.slice_mut(d * per_component..(d + 1) * per_component);
            unsafe { self.blas.gemm(cfg, states, &b, &mut c) }.map_err(cublas_error)?;
        }
        Ok(out)
    }

    /// Amplitudes of the stored states of block `upper`, on the host (layout as on the device).
    pub fn amplitudes(&mut self, key: TableKey, block: &Block, table: &Contraction) -> Result<Vec<f64>> {
        let out = self.amplitudes_on_device(key, block, table)?;
        let mut host = memory::filled("the amplitudes", out.len(), 0.0)?;
        self.device.download_into(&out, &mut host)?;
        Ok(host)
    }

    /// The loaded batch's pairs with the states of the upper block of `key` judged on the device
    /// by `rule` (kernel `ls_lines`): only the kept lines and four counters come back. A pair
    /// whose outputs are not finite is judged again on the host from its own amplitudes, for the
    /// error's name and value (`describe(i, f)` says which line).
    pub fn judge_batch(
        &mut self,
        key: TableKey,
        block: &Block,
        table: &Contraction,
        lower_energies: &[f64],
        rule: &LineRule,
        describe: &dyn Fn(usize, usize) -> String,
    ) -> Result<BatchLines> {
        let amplitudes = self.amplitudes_on_device(key, block, table)?;
        let d = &self.device;
        let pairs = memory::elements::<RawLine>("the kept lines", block.energies.len(), lower_energies.len())?;
        if self.lines.as_ref().is_none_or(|l| l.len() < pairs) {
            self.lines = None;
            self.lines = Some(d.uninit::<RawLine>(pairs)?);
        }
        let lines = self.lines.as_mut().expect("reserved above");
        let lower = d.upload(lower_energies)?;
        let mut counters = d.upload(&[0u64, 0, 0, u64::MAX])?;
        let upper = self.blocks[key.1]
            .energies
            .as_ref()
            .ok_or_else(|| Error::Internal("stored energies missing on the device".into()))?;
        let func = d.function(FILE, SOURCE, "ls_lines")?;
        let mut launch = d.stream().launch_builder(&func);
        launch.arg(rule).arg(&amplitudes).arg(&lower).arg(upper).arg(&mut *lines).arg(&mut counters);
        unsafe { launch.launch(launch_config(pairs)) }?;
        let mut count = [0u64; 4];
        d.download_into(&counters, &mut count)?;
        if count[3] != u64::MAX {
            let n_upper = block.energies.len();
            let (i, f) = (count[3] as usize / n_upper, count[3] as usize % n_upper);
            return Err(self.not_finite_pair(&amplitudes, block, lower_energies[i], rule, i, f, describe));
        }
        let kept = count[0] as usize;
        let mut host = memory::filled("the kept lines", kept, RawLine::default())?;
        if kept > 0 {
            let stream = d.stream();
            stream.memcpy_dtoh(&lines.slice(0..kept), &mut host)?;
            stream.synchronize()?;
        }
        Ok(BatchLines { lines: host, dropped_by_windows: count[1], dropped_by_thresholds: count[2] })
    }

    /// The error for the pair (i, f) that the kernel found not finite: its amplitudes are copied
    /// back and judged on the host.
    #[allow(clippy::too_many_arguments)]
    fn not_finite_pair(
        &self,
        amplitudes: &CudaSlice<f64>,
        block: &Block,
        e_lower: f64,
        rule: &LineRule,
        i: usize,
        f: usize,
        describe: &dyn Fn(usize, usize) -> String,
    ) -> Error {
        let host = memory::filled("the amplitudes", amplitudes.len(), 0.0)
            .and_then(|mut host| self.device.download_into(amplitudes, &mut host).map(|()| host));
        let host = match host {
            Ok(host) => host,
            Err(e) => return e,
        };
        match rule.judge(&host, f, i, e_lower, block.energies[f]) {
            Verdict::NotFinite(name, value) => super::filters::not_finite(name, value, describe(i, f)),
            other => Error::Internal(format!("the device judged a line not finite that the host judges {other:?}")),
        }
    }

    /// Runs the half-linestrength into `upper` on the device and waits, without a download
    /// (benchmark timing of the device work alone).
    pub fn half_on_device(&mut self, key: TableKey, block: &Block, table: &Contraction) -> Result<()> {
        let half = self.half(key, block, table)?;
        self.device.synchronize()?;
        drop(half);
        Ok(())
    }
}
