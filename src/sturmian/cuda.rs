//! CUDA path of the Sturmian integrals: the same functions as [`super::cpu`]. The channels live
//! on the device point-major (S[p N + n], so that threads of consecutive functions read
//! consecutive addresses); inner integrals (eq. 23) and their cumulative sums (eq. 24) and the
//! outer weights are kernels of `kernels/sturmian.cu`; the outer Gauss sum of a block is one
//! cuBLAS DGEMM/ZGEMM per tile (FP64, `CUBLAS_DEFAULT_MATH`), permuted into the block's order by
//! a kernel, and landed in the caller's host memory by one 2D copy per tile (pinned memory, e.g.
//! from `atomgpu_host_alloc`, copies at the bus's full rate). Real and complex bases share the
//! code: device buffers hold doubles, 1 or 2 per element.

use super::exchange::IndexMap;
use super::{BlockJob, Channel, Grid, Kronecker, Order, Scalar, Target};
use crate::backend::CudaDevice;
use crate::error::{Error, Result};
use crate::math::scalar::{as_doubles, width};
use cudarc::cublas::sys::{cublasOperation_t, cublasStatus_t};
use cudarc::cublas::CudaBlas;
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut, DeviceRepr, LaunchConfig, PushKernelArg};
use std::collections::HashMap;
use std::marker::PhantomData;
use std::sync::{Arc, Mutex};

const FILE: &str = "sturmian.cu";
const SOURCE: &str = include_str!("../../kernels/sturmian.cu");
const BLOCK: u32 = 256;

/// Share of the free device memory a block's tiles may take.
const MEMORY_SHARE: f64 = 0.7;

#[repr(C)]
#[derive(Clone, Copy)]
struct InnerParams {
    bra: u64,
    ket: u64,
    weights: u64,
    out: u64,
    n_bra: i64,
    n_ket: i64,
    nq: i64,
    ns: i64,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct SuffixParams {
    h: u64,
    ratio: u64,
    operand: u64,
    m: i64,
    nq: i64,
    col0: i64,
    coefficient: f64,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct OuterParams {
    bra: u64,
    ket: u64,
    weights: u64,
    operand: u64,
    n_bra: i64,
    n_ket: i64,
    nq: i64,
    ns: i64,
    col0: i64,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct ScatterParams {
    c: u64,
    out: u64,
    npa: i64,
    na: i64,
    npb: i64,
    nb: i64,
    t0: i64,
    c_rows: i64,
    col0: i64,
    ncols: i64,
    ld: i64,
    order: i32,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct GatherParams {
    d1: u64,
    d2: u64,
    out: u64,
    row_index: u64,
    row_factor: u64,
    col_index: u64,
    col_partner: u64,
    col_factor: u64,
    col_partner_factor: u64,
    rows: i64,
    cols: i64,
    ld_direct: i64,
    ld_out: i64,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct KroneckerParams {
    a0: u64,
    b0: u64,
    a1: u64,
    b1: u64,
    out: u64,
    na: i64,
    nb: i64,
    rows: i64,
    col0: i64,
    cols: i64,
    ld: i64,
    n_terms: i32,
    order: i32,
    accumulate: i32,
}

// SAFETY: plain repr(C) structs of integers and doubles, mirrored field by field in sturmian.cu.
unsafe impl DeviceRepr for InnerParams {}
unsafe impl DeviceRepr for SuffixParams {}
unsafe impl DeviceRepr for OuterParams {}
unsafe impl DeviceRepr for ScatterParams {}
unsafe impl DeviceRepr for KroneckerParams {}
unsafe impl DeviceRepr for GatherParams {}

fn launch_config(work: usize) -> LaunchConfig {
    let blocks = (work as u64).div_ceil(BLOCK as u64).clamp(1, 1 << 20);
    LaunchConfig { grid_dim: (blocks as u32, 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 }
}

fn cublas_error(e: impl std::fmt::Debug) -> Error {
    Error::Cuda(format!("cuBLAS: {e:?}"))
}

/// A cuBLAS dimension (a 32-bit int).
fn blas_dim(value: usize, what: &str) -> Result<i32> {
    i32::try_from(value)
        .map_err(|_| Error::invalid("n", format!("gives {what} = {value}, more than one GPU product takes (2^31 - 1)")))
}

/// Inner-integral weights c (Nq x (Ns + 2)) and ratios (Nq) of one multipole, on the device.
type InnerWeights = (CudaSlice<f64>, CudaSlice<f64>);

/// A channel on the device.
pub struct DeviceChannel {
    n: usize,
    /// Point-major values, n_points x n doubles (x 2 for complex).
    values: CudaSlice<f64>,
}

/// The GPU engine of a basis.
pub(crate) struct Engine<T> {
    device: Arc<CudaDevice>,
    blas: CudaBlas,
    nq: usize,
    ns: usize,
    n_points: usize,
    grid: Grid,
    weights: CudaSlice<f64>,
    channels: Vec<DeviceChannel>,
    /// Inner-integral weights and ratios per multipole l (Grid::inner_weights), uploaded once.
    inner: Mutex<HashMap<u32, Arc<InnerWeights>>>,
    _scalar: PhantomData<T>,
}

fn device_ptr(slice: &CudaSlice<f64>, device: &CudaDevice) -> u64 {
    let (ptr, _sync) = slice.device_ptr(device.stream());
    ptr
}

impl<T: Scalar> Engine<T> {
    pub fn new(device: Arc<CudaDevice>, grid: &Grid) -> Result<Self> {
        let blas = device.blas()?;
        // Compile the kernels now, so that the first call is not the one that pays for it.
        device.function(FILE, SOURCE, "inner_d")?;
        let weights = device.upload(grid.weights())?;
        Ok(Engine {
            blas,
            nq: grid.nq(),
            ns: grid.ns(),
            n_points: grid.n_points(),
            grid: grid.clone(),
            weights,
            channels: Vec::new(),
            inner: Mutex::new(HashMap::new()),
            device,
            _scalar: PhantomData,
        })
    }

    fn kernel(&self, name: &str) -> Result<cudarc::driver::CudaFunction> {
        let suffix = if T::COMPLEX { "_z" } else { "_d" };
        self.device.function(FILE, SOURCE, &format!("{name}{suffix}"))
    }

    /// The device copy of `channel`, point-major ([`Engine::install_channel`] puts it in place).
    pub fn upload_channel(&self, channel: &Channel<T>) -> Result<DeviceChannel> {
        let (n, np, w) = (channel.n, self.n_points, width::<T>());
        let source = as_doubles(&channel.values);
        let mut point_major = crate::memory::filled("the channel's device copy", np * n * w, 0.0)?;
        for i in 0..n {
            for p in 0..np {
                for c in 0..w {
                    point_major[(p * n + i) * w + c] = source[(i * np + p) * w + c];
                }
            }
        }
        Ok(DeviceChannel { n, values: self.device.upload(&point_major)? })
    }

    /// Makes `copy` channel `slot` (replacing one there, or appended).
    pub fn install_channel(&mut self, slot: usize, copy: DeviceChannel) {
        if slot < self.channels.len() {
            self.channels[slot] = copy;
        } else {
            self.channels.push(copy);
        }
    }

    fn inner_weights(&self, l: u32) -> Result<Arc<InnerWeights>> {
        let mut map = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(w) = map.get(&l) {
            return Ok(w.clone());
        }
        let (c, ratio) = self.grid.inner_weights(l);
        let entry = Arc::new((self.device.upload(&c)?, self.device.upload(&ratio)?));
        map.insert(l, entry.clone());
        Ok(entry)
    }

    #[allow(clippy::too_many_arguments)]
    /// Fills columns [g_col0, g_col0 + Nq) of `operand` (M x 2 Nq, ld M) with Σ_l c_l g^l and
    /// columns [q_col0, q_col0 + Nq) with the outer weights, for the channel pair (bra, ket).
    fn operand(
        &self,
        operand: &mut CudaSlice<f64>,
        scratch: &mut CudaSlice<f64>,
        bra: usize,
        ket: usize,
        couplings: &[(u32, f64)],
        g_col0: usize,
        q_col0: usize,
    ) -> Result<()> {
        let (b, k) = (&self.channels[bra], &self.channels[ket]);
        let m = b.n * k.n;
        let stream = self.device.stream();
        let operand_ptr = device_ptr(operand, &self.device);
        let scratch_ptr = device_ptr(scratch, &self.device);
        for &(l, coefficient) in couplings {
            let weights = self.inner_weights(l)?;
            let params = InnerParams {
                bra: device_ptr(&b.values, &self.device),
                ket: device_ptr(&k.values, &self.device),
                weights: device_ptr(&weights.0, &self.device),
                out: scratch_ptr,
                n_bra: b.n as i64,
                n_ket: k.n as i64,
                nq: self.nq as i64,
                ns: self.ns as i64,
            };
            let f = self.kernel("inner")?;
            // SAFETY: the pointers are live device buffers of the sizes the kernel reads (channel
            // values n_points x n, weights Nq (Ns+2), scratch M x Nq); params mirrors InnerParams.
            unsafe { stream.launch_builder(&f).arg(&params).launch(launch_config(m * self.nq)) }?;
            let params = SuffixParams {
                h: scratch_ptr,
                ratio: device_ptr(&weights.1, &self.device),
                operand: operand_ptr,
                m: m as i64,
                nq: self.nq as i64,
                col0: g_col0 as i64,
                coefficient,
            };
            let f = self.kernel("suffix")?;
            // SAFETY: scratch M x Nq, ratio Nq, operand M x 2 Nq (columns g_col0 .. g_col0 + Nq).
            unsafe { stream.launch_builder(&f).arg(&params).launch(launch_config(m)) }?;
        }
        let params = OuterParams {
            bra: device_ptr(&b.values, &self.device),
            ket: device_ptr(&k.values, &self.device),
            weights: device_ptr(&self.weights, &self.device),
            operand: operand_ptr,
            n_bra: b.n as i64,
            n_ket: k.n as i64,
            nq: self.nq as i64,
            ns: self.ns as i64,
            col0: q_col0 as i64,
        };
        let f = self.kernel("outer")?;
        // SAFETY: channel values, Gauss weights (Nq) and operand (M x 2 Nq) as documented.
        unsafe { stream.launch_builder(&f).arg(&params).launch(launch_config(m * self.nq)) }?;
        Ok(())
    }

    /// C (rows x cols, ld rows) = A (rows x k, ld lda) B^T (B: cols x k, ld ldb), all device
    /// pointers to T.
    #[allow(clippy::too_many_arguments)]
    fn gemm_nt(
        &self,
        rows: usize,
        cols: usize,
        k: usize,
        a: u64,
        lda: usize,
        b: u64,
        ldb: usize,
        c: u64,
    ) -> Result<()> {
        let (m, n, kk) = (
            blas_dim(rows, "a product's rows")?,
            blas_dim(cols, "a product's columns")?,
            blas_dim(k, "a product's inner size")?,
        );
        let (lda, ldb) = (blas_dim(lda, "a leading dimension")?, blas_dim(ldb, "a leading dimension")?);
        let handle = *self.blas.handle();
        let (nt, tr) = (cublasOperation_t::CUBLAS_OP_N, cublasOperation_t::CUBLAS_OP_T);
        // SAFETY: the pointers address device buffers of at least lda*k, ldb*k and rows*cols
        // elements of T (checked by the callers), on the stream the handle is bound to.
        let status = unsafe {
            if T::COMPLEX {
                use cudarc::cublas::sys::cuDoubleComplex as Z;
                let (one, zero) = (Z { x: 1.0, y: 0.0 }, Z { x: 0.0, y: 0.0 });
                cudarc::cublas::sys::cublasZgemm_v2(
                    handle,
                    nt,
                    tr,
                    m,
                    n,
                    kk,
                    &one,
                    a as *const Z,
                    lda,
                    b as *const Z,
                    ldb,
                    &zero,
                    c as *mut Z,
                    m,
                )
            } else {
                cudarc::cublas::sys::cublasDgemm_v2(
                    handle,
                    nt,
                    tr,
                    m,
                    n,
                    kk,
                    &1.0,
                    a as *const f64,
                    lda,
                    b as *const f64,
                    ldb,
                    &0.0,
                    c as *mut f64,
                    m,
                )
            }
        };
        if status != cublasStatus_t::CUBLAS_STATUS_SUCCESS {
            return Err(cublas_error(status));
        }
        Ok(())
    }

    /// The repulsion block of `job` (plus `extra`, the one-electron Kronecker terms of a diagonal
    /// block) into `out`, tile by tile over the slower ket index.
    pub fn block(
        &self,
        job: &BlockJob,
        order: Order,
        extra: Option<&Kronecker<T>>,
        mut out: Target<'_, T>,
    ) -> Result<()> {
        let w = width::<T>();
        let (m, n, k) = (job.m(), job.n(), 2 * self.nq);
        let [npa, na, npb, nb] = job.n;
        let mut a = self.device.zeros::<f64>(m * k * w)?;
        let mut b = self.device.zeros::<f64>(n * k * w)?;
        {
            let mut scratch = self.device.uninit::<f64>(m.max(n) * self.nq * w)?;
            self.operand(&mut a, &mut scratch, job.bra_a, job.ket_a, &job.couplings, 0, self.nq)?;
            self.operand(&mut b, &mut scratch, job.bra_b, job.ket_b, &job.couplings, self.nq, 0)?;
        }
        let extra = extra.map(|e| self.upload_terms(e)).transpose()?;
        let slow = job.slow_count(order);
        let unit = job.m() * job.n() / slow;
        let host = matches!(out, Target::Host { .. });
        let (free, _) = self.device.memory()?;
        let bytes_per_slow = (unit * w * 8 * if host { 2 } else { 1 }) as f64;
        let per_tile = ((free as f64 * MEMORY_SHARE / bytes_per_slow) as usize).clamp(1, slow);
        let c = self.device.uninit::<f64>(unit * per_tile * w)?;
        let staging = if host { Some(self.device.uninit::<f64>(unit * per_tile * w)?) } else { None };
        let (a_ptr, b_ptr, c_ptr) =
            (device_ptr(&a, &self.device), device_ptr(&b, &self.device), device_ptr(&c, &self.device));
        let size = (8 * w) as u64;
        let fast = match order {
            Order::AFastest => na,
            Order::BFastest => nb,
        };
        let rows_out = job.rows();
        for t0 in (0..slow).step_by(per_tile) {
            let t1 = (t0 + per_tile).min(slow);
            // The tile of C: all rows x columns (n'b, nb in t0..t1), or rows (n'a, na in t0..t1) x all.
            let rows = match order {
                Order::AFastest => {
                    self.gemm_nt(m, npb * (t1 - t0), k, a_ptr, m, b_ptr + (npb * t0) as u64 * size, n, c_ptr)?;
                    m
                }
                Order::BFastest => {
                    self.gemm_nt(npa * (t1 - t0), n, k, a_ptr + (npa * t0) as u64 * size, m, b_ptr, n, c_ptr)?;
                    npa * (t1 - t0)
                }
            };
            let (col0, ncols) = (t0 * fast, (t1 - t0) * fast);
            let (dest, ld) = match (&out, &staging) {
                (Target::Device { ptr, ld, .. }, _) => (*ptr + (col0 * ld) as u64 * size, *ld),
                (Target::Host { .. }, Some(s)) => (device_ptr(s, &self.device), rows_out),
                _ => unreachable!("a host target has a staging buffer"),
            };
            let params = ScatterParams {
                c: c_ptr,
                out: dest,
                npa: npa as i64,
                na: na as i64,
                npb: npb as i64,
                nb: nb as i64,
                t0: t0 as i64,
                c_rows: rows as i64,
                col0: col0 as i64,
                ncols: ncols as i64,
                ld: ld as i64,
                order: order_code(order),
            };
            let f = self.kernel("scatter")?;
            // SAFETY: c holds the rows x cols tile; dest holds ncols columns of rows_out with ld
            // (the caller's buffer was checked by check_target, the staging buffer is unit per_tile).
            unsafe { self.device.stream().launch_builder(&f).arg(&params).launch(launch_config(rows_out * ncols)) }?;
            if let Some(terms) = &extra {
                self.launch_kronecker(terms, order, dest, ld, col0, ncols, true)?;
            }
            if let (Target::Host { data, ld: host_ld }, Some(_)) = (&mut out, &staging) {
                self.land(dest, rows_out, ncols, data, *host_ld, col0)?;
            }
        }
        self.device.synchronize()
    }

    /// Copies `ncols` columns of `rows` elements (device, contiguous) into host columns
    /// col0.. of `data` (leading dimension `ld`), and waits.
    fn land(&self, src: u64, rows: usize, ncols: usize, data: &mut [T], ld: usize, col0: usize) -> Result<()> {
        let span = &mut data[col0 * ld..];
        assert!(ncols == 0 || ld * (ncols - 1) + rows <= span.len(), "the landing lies inside the target");
        // SAFETY: the range was checked just above; `data` stays borrowed until the copy is waited for.
        unsafe { self.land_async(self.device.stream(), src, rows, ncols, span.as_mut_ptr(), ld)? };
        self.device.synchronize()
    }

    /// Free and total bytes of this engine's GPU.
    pub fn memory(&self) -> Result<(usize, usize)> {
        self.device.memory()
    }

    /// A second stream on this engine's GPU, for landings that run beside the next block's work.
    pub fn copy_stream(&self) -> Result<Arc<CudaStream>> {
        self.device.new_stream()
    }

    /// Enqueues on `stream` (of this engine's GPU) the copy of `ncols` columns of `rows` elements
    /// (device, contiguous) to host memory at `dst` (leading dimension `ld`); does not wait.
    ///
    /// # Safety
    /// `dst` must be valid for writes of `ld * (ncols - 1) + rows` elements, which nothing else
    /// reads or writes, and `src` must keep its contents, until the copy has completed.
    pub unsafe fn land_async(
        &self,
        stream: &CudaStream,
        src: u64,
        rows: usize,
        ncols: usize,
        dst: *mut T,
        ld: usize,
    ) -> Result<()> {
        use cudarc::driver::sys;
        // The calling thread may have last used another GPU (a spread Hamiltonian's threads).
        stream.context().bind_to_thread()?;
        let size = 8 * width::<T>();
        let copy = sys::CUDA_MEMCPY2D_st {
            srcXInBytes: 0,
            srcY: 0,
            srcMemoryType: sys::CUmemorytype::CU_MEMORYTYPE_DEVICE,
            srcHost: std::ptr::null(),
            srcDevice: src,
            srcArray: std::ptr::null_mut(),
            srcPitch: rows * size,
            dstXInBytes: 0,
            dstY: 0,
            dstMemoryType: sys::CUmemorytype::CU_MEMORYTYPE_HOST,
            dstHost: dst as *mut std::ffi::c_void,
            dstDevice: 0,
            dstArray: std::ptr::null_mut(),
            dstPitch: ld * size,
            WidthInBytes: rows * size,
            Height: ncols,
        };
        // SAFETY: src holds ncols columns of rows elements; dst is the caller's (see above).
        let result = unsafe { sys::cuMemcpy2DAsync_v2(&copy, stream.cu_stream()) };
        if result != sys::CUresult::CUDA_SUCCESS {
            return Err(Error::Cuda(format!("cuMemcpy2DAsync: {result:?}")));
        }
        Ok(())
    }

    fn upload_terms(&self, k: &Kronecker<T>) -> Result<DeviceKronecker> {
        let terms = k
            .terms
            .iter()
            .map(|(a, b)| Ok((self.device.upload(as_doubles(a))?, self.device.upload(as_doubles(b))?)))
            .collect::<Result<Vec<_>>>()?;
        Ok(DeviceKronecker { na: k.na, nb: k.nb, rows: k.rows(), terms })
    }

    #[allow(clippy::too_many_arguments)]
    fn launch_kronecker(
        &self,
        k: &DeviceKronecker,
        order: Order,
        dest: u64,
        ld: usize,
        col0: usize,
        cols: usize,
        accumulate: bool,
    ) -> Result<()> {
        let ptr = |t: usize, second: bool| {
            k.terms.get(t).map_or(0, |(a, b)| device_ptr(if second { b } else { a }, &self.device))
        };
        let params = KroneckerParams {
            a0: ptr(0, false),
            b0: ptr(0, true),
            a1: ptr(1, false),
            b1: ptr(1, true),
            out: dest,
            na: k.na as i64,
            nb: k.nb as i64,
            rows: k.rows as i64,
            col0: col0 as i64,
            cols: cols as i64,
            ld: ld as i64,
            n_terms: k.terms.len() as i32,
            order: order_code(order),
            accumulate: accumulate as i32,
        };
        let f = self.kernel("kronecker")?;
        // SAFETY: the term matrices are na x na and nb x nb; dest holds `cols` columns of
        // k.rows elements with ld.
        unsafe { self.device.stream().launch_builder(&f).arg(&params).launch(launch_config(k.rows * cols)) }?;
        Ok(())
    }

    /// A device buffer of `len` elements of T and its address.
    pub fn buffer(&self, len: usize) -> Result<(CudaSlice<f64>, u64)> {
        let buffer = self.device.uninit::<f64>(len * width::<T>())?;
        let ptr = device_ptr(&buffer, &self.device);
        Ok((buffer, ptr))
    }

    fn upload_map(&self, map: &IndexMap) -> Result<DeviceIndexMap> {
        let ints = |v: &[usize]| v.iter().map(|&i| i as i64).collect::<Vec<_>>();
        Ok(DeviceIndexMap {
            index: self.device.upload(&ints(&map.index))?,
            partner: self.device.upload(&ints(&map.partner))?,
            factor: self.device.upload(&map.factor)?,
            partner_factor: self.device.upload(&map.partner_factor)?,
        })
    }

    /// A symmetrised block ([`super::exchange`]) from the direct blocks at `d1` and `d2` (`None`:
    /// zero), both with leading dimension `ld`, into `out`.
    pub fn gather(
        &self,
        d1: u64,
        d2: Option<u64>,
        ld: usize,
        rows: &IndexMap,
        cols: &IndexMap,
        mut out: Target<'_, T>,
    ) -> Result<()> {
        let (r, c) = (self.upload_map(rows)?, self.upload_map(cols)?);
        let (n_rows, n_cols) = (rows.len(), cols.len());
        let staging = match out {
            Target::Host { .. } => Some(self.buffer(n_rows * n_cols)?),
            Target::Device { .. } => None,
        };
        let (dest, ld_out) = match (&out, &staging) {
            (Target::Device { ptr, ld, .. }, _) => (*ptr, *ld),
            (Target::Host { .. }, Some((_, ptr))) => (*ptr, n_rows),
            _ => unreachable!("a host target has a staging buffer"),
        };
        let ptr = |s: &CudaSlice<i64>| s.device_ptr(self.device.stream()).0;
        let params = GatherParams {
            d1,
            d2: d2.unwrap_or(0),
            out: dest,
            row_index: ptr(&r.index),
            row_factor: device_ptr(&r.factor, &self.device),
            col_index: ptr(&c.index),
            col_partner: ptr(&c.partner),
            col_factor: device_ptr(&c.factor, &self.device),
            col_partner_factor: device_ptr(&c.partner_factor, &self.device),
            rows: n_rows as i64,
            cols: n_cols as i64,
            ld_direct: ld as i64,
            ld_out: ld_out as i64,
        };
        let f = self.kernel("gather")?;
        // SAFETY: d1 and d2 hold direct blocks whose indices the maps address (ld = their rows);
        // dest holds n_cols columns of n_rows with ld_out (checked by check_target, or staging).
        unsafe { self.device.stream().launch_builder(&f).arg(&params).launch(launch_config(n_rows * n_cols)) }?;
        if let (Target::Host { data, ld }, Some((_, s))) = (&mut out, &staging) {
            self.land(*s, n_rows, n_cols, data, *ld, 0)?;
        }
        self.device.synchronize()
    }

    /// Writes Σ_t A_t ⊗ B_t (zeros without terms) into `out`.
    pub fn kronecker(&self, k: &Kronecker<T>, order: Order, out: Target<'_, T>) -> Result<()> {
        let terms = self.upload_terms(k)?;
        let (rows, cols) = (k.rows(), k.cols());
        match out {
            Target::Device { ptr, ld, .. } => self.launch_kronecker(&terms, order, ptr, ld, 0, cols, false)?,
            Target::Host { data, ld } => {
                let staging = self.device.uninit::<f64>(rows * cols * width::<T>())?;
                let s = device_ptr(&staging, &self.device);
                self.launch_kronecker(&terms, order, s, rows, 0, cols, false)?;
                self.land(s, rows, cols, data, ld, 0)?;
            }
        }
        self.device.synchronize()
    }
}

/// An exchange index map on the device (indices as 64-bit integers).
struct DeviceIndexMap {
    index: CudaSlice<i64>,
    partner: CudaSlice<i64>,
    factor: CudaSlice<f64>,
    partner_factor: CudaSlice<f64>,
}

struct DeviceKronecker {
    na: usize,
    nb: usize,
    rows: usize,
    terms: Vec<(CudaSlice<f64>, CudaSlice<f64>)>,
}

fn order_code(order: Order) -> i32 {
    match order {
        Order::AFastest => 0,
        Order::BFastest => 1,
    }
}

/// The `k` lowest eigenvalues of the scaled problem H' c = E' S' c (lower triangles; H' = 2^-eh H,
/// S' = 2^-es S, the powers of two that [`super::solve`] chose) by cuSOLVER `Dsygvd`, and their
/// S'-normalised eigenvectors if `vectors` (else `CUSOLVER_EIG_MODE_NOVECTOR`).
#[allow(clippy::too_many_arguments)]
pub(super) fn generalized_eigen(
    device: &Arc<CudaDevice>,
    n: usize,
    h: &[f64],
    ldh: usize,
    s: &[f64],
    lds: usize,
    k: usize,
    (eh, es): (i32, i32),
    vectors: bool,
) -> Result<(Vec<f64>, Option<Vec<f64>>)> {
    use cudarc::cusolver::sys as cs;
    let packed = |m: &[f64], ld: usize| -> Result<Vec<f64>> {
        let mut out = crate::memory::with_capacity(
            "a copy of the matrix",
            crate::memory::elements::<f64>("a copy of the matrix", n, n)?,
        )?;
        for j in 0..n {
            out.extend_from_slice(&m[j * ld..j * ld + n]);
        }
        Ok(out)
    };
    let nn = i32::try_from(n).map_err(|_| Error::invalid("n", "is larger than cuSOLVER takes (2^31 - 1)"))?;
    // A matrix with ld = n goes up as it is; otherwise its columns are packed first. Then it is
    // scaled on the device.
    let blas = device.blas()?;
    let upload = |m: &[f64], ld: usize, e: i32| -> Result<CudaSlice<f64>> {
        let mut d = if ld == n { device.upload(&m[..n * n]) } else { device.upload(&packed(m, ld)?) }?;
        scale_by_pow2(&blas, device, &mut d, -e)?;
        Ok(d)
    };
    let mut a = upload(h, ldh, eh)?;
    let mut b = upload(s, lds, es)?;
    let mut w = device.zeros::<f64>(n)?;
    let mut info = device.zeros::<i32>(1)?;
    let present = std::panic::catch_unwind(|| unsafe { cs::is_culib_present() }).unwrap_or(false);
    if !present {
        return Err(Error::NoDevice("cuSOLVER (libcusolver.so) could not be loaded".into()));
    }
    let check = |status: cs::cusolverStatus_t, what: &str| -> Result<()> {
        if status == cs::cusolverStatus_t::CUSOLVER_STATUS_SUCCESS {
            Ok(())
        } else {
            Err(Error::Cuda(format!("cuSOLVER {what}: {status:?}")))
        }
    };
    let stream = device.stream();
    let mut handle: cs::cusolverDnHandle_t = std::ptr::null_mut();
    // SAFETY: standard cuSOLVER handle lifecycle on this device's stream; the buffers are n x n,
    // n and 1 elements as Dsygvd requires; the handle is destroyed on every path below.
    unsafe {
        check(cs::cusolverDnCreate(&mut handle), "create")?;
        let result = (|| -> Result<()> {
            check(cs::cusolverDnSetStream(handle, stream.cu_stream() as _), "set stream")?;
            let (itype, jobz, uplo) = (
                cs::cusolverEigType_t::CUSOLVER_EIG_TYPE_1,
                if vectors {
                    cs::cusolverEigMode_t::CUSOLVER_EIG_MODE_VECTOR
                } else {
                    cs::cusolverEigMode_t::CUSOLVER_EIG_MODE_NOVECTOR
                },
                cs::cublasFillMode_t::CUBLAS_FILL_MODE_LOWER,
            );
            let (ap, _g1) = a.device_ptr_mut(stream);
            let (bp, _g2) = b.device_ptr_mut(stream);
            let (wp, _g3) = w.device_ptr_mut(stream);
            let (ip, _g4) = info.device_ptr_mut(stream);
            let mut lwork = 0i32;
            check(
                cs::cusolverDnDsygvd_bufferSize(
                    handle,
                    itype,
                    jobz,
                    uplo,
                    nn,
                    ap as *const f64,
                    nn,
                    bp as *const f64,
                    nn,
                    wp as *const f64,
                    &mut lwork,
                ),
                "Dsygvd_bufferSize",
            )?;
            let mut work = device.zeros::<f64>(lwork.max(1) as usize)?;
            let (workp, _g5) = work.device_ptr_mut(stream);
            check(
                cs::cusolverDnDsygvd(
                    handle,
                    itype,
                    jobz,
                    uplo,
                    nn,
                    ap as *mut f64,
                    nn,
                    bp as *mut f64,
                    nn,
                    wp as *mut f64,
                    workp as *mut f64,
                    lwork,
                    ip as *mut i32,
                ),
                "Dsygvd",
            )?;
            Ok(())
        })();
        cs::cusolverDnDestroy(handle);
        result?;
    }
    let mut status = [0i32];
    device.download_into(&info, &mut status)?;
    if status[0] > n as i32 {
        return Err(Error::invalid("s", "is not positive definite (cuSOLVER's Cholesky failed)"));
    } else if status[0] != 0 {
        return Err(Error::NotConverged(format!("cuSOLVER Dsygvd: info = {}", status[0])));
    }
    // Only the k wanted eigenpairs travel back (the first k columns of the eigenvector matrix).
    let mut energies = crate::memory::filled("the eigenvalues", k, 0.0)?;
    stream.memcpy_dtoh(&w.slice(0..k), &mut energies)?;
    let vectors = if vectors {
        let len = crate::memory::elements::<f64>("the eigenvectors", n, k)?;
        let mut out = crate::memory::filled("the eigenvectors", len, 0.0)?;
        stream.memcpy_dtoh(&a.slice(0..len), &mut out)?;
        Some(out)
    } else {
        None
    };
    device.synchronize()?;
    Ok((energies, vectors))
}

/// `m *= 2^e` on the device by cuBLAS `Dscal`, one pass per factor of [`crate::math::pow2_steps`]
/// (as the CPU path scales, so the result equals the CPU's element for element), in pieces of at
/// most 2^31 - 1 elements.
fn scale_by_pow2(blas: &CudaBlas, device: &CudaDevice, m: &mut CudaSlice<f64>, e: i32) -> Result<()> {
    if e == 0 {
        return Ok(());
    }
    let len = m.len();
    let stream = device.stream();
    let (ptr, _guard) = m.device_ptr_mut(stream);
    for factor in crate::math::pow2_steps(e.into()) {
        let mut start = 0;
        while start < len {
            let count = (len - start).min(i32::MAX as usize);
            // SAFETY: `count` doubles from element `start` of the live buffer `m`, on its stream.
            let status = unsafe {
                cudarc::cublas::sys::cublasDscal_v2(
                    *blas.handle(),
                    count as i32,
                    &factor,
                    (ptr as *mut f64).add(start),
                    1,
                )
            };
            if status != cublasStatus_t::CUBLAS_STATUS_SUCCESS {
                return Err(cublas_error(status));
            }
            start += count;
        }
    }
    Ok(())
}
