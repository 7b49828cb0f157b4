//! CUDA path of the SCF family: the closed-shell supermatrix computed one integral set per thread
//! on the triangular map (`kernels/scf.cu`, paper §2.3: grid-stride loop, 64-bit indices; the
//! same closed forms as [`super::supermatrix`] and [`super::slater`]), kept on the device, and the
//! Fock build G D' as one cuBLAS `dspmv` on it (packed upper triangle). Only the folded density
//! (T doubles) goes up and G D' (T doubles) comes down per SCF iteration.

use super::index_map::TriangularMap;
use super::supermatrix::{exchange_weights, Symmetry};
use crate::backend::CudaDevice;
use crate::error::{Error, Result};
use cudarc::cublas::sys::{cublasFillMode_t, cublasStatus_t};
use cudarc::cublas::CudaBlas;
use cudarc::driver::{CudaSlice, DevicePtr, DeviceRepr, LaunchConfig, PushKernelArg};
use std::sync::Arc;

const FILE: &str = "scf.cu";
const SOURCE: &str = include_str!("../../kernels/scf.cu");
const BLOCK: u32 = 128;

#[repr(C)]
#[derive(Clone, Copy)]
struct SupermatrixParams {
    exponents: u64,
    ls: u64,
    first: u64,
    offsets: u64,
    weights: u64,
    packed: u64,
    n_sets: u64,
    nsym: i32,
    kmax: i32,
}

// SAFETY: a plain repr(C) struct of integers, mirrored field by field in scf.cu.
unsafe impl DeviceRepr for SupermatrixParams {}

/// The supermatrix on the device, with the handle that contracts it and the two T-vectors of
/// the contraction (allocated once, reused by every Fock build).
pub struct DeviceSupermatrix {
    device: Arc<CudaDevice>,
    blas: CudaBlas,
    packed: CudaSlice<f64>,
    folded: CudaSlice<f64>,
    product: CudaSlice<f64>,
    n_pairs: usize,
}

fn ptr<T>(slice: &CudaSlice<T>, device: &CudaDevice) -> u64 {
    slice.device_ptr(device.stream()).0
}

impl DeviceSupermatrix {
    /// Computes the packed supermatrix of `symmetries` (checked by the caller) for `map`.
    pub fn new(device: Arc<CudaDevice>, symmetries: &[Symmetry], map: &TriangularMap) -> Result<Self> {
        let nsym = symmetries.len();
        let exponents: Vec<f64> = symmetries.iter().flat_map(|s| s.exponents.iter().copied()).collect();
        let ls: Vec<u32> = symmetries.iter().map(|s| s.l).collect();
        let mut first = vec![0u64];
        for s in symmetries {
            first.push(first.last().unwrap() + s.exponents.len() as u64);
        }
        let offsets: Vec<u64> =
            (0..=nsym).map(|j| if j == nsym { map.n_pairs() } else { map.pair_index(j, 0, 0) }).collect();
        let kmax = 2 * ls.iter().copied().max().unwrap_or(0) as usize + 1;
        let mut weights = vec![0.0; nsym * nsym * kmax];
        for (a, sa) in symmetries.iter().enumerate() {
            for (b, sb) in symmetries.iter().enumerate() {
                for (k, w) in exchange_weights(sa.l, sb.l) {
                    weights[(a * nsym + b) * kmax + k as usize] = w;
                }
            }
        }
        let n_sets = map.n_sets();
        let len = usize::try_from(n_sets).map_err(|_| Error::invalid("symmetries", "give too many integral sets"))?;
        let packed = device.uninit::<f64>(len)?;
        let (e, l, f, o, w) = (
            device.upload(&exponents)?,
            device.upload(&ls)?,
            device.upload(&first)?,
            device.upload(&offsets)?,
            device.upload(&weights)?,
        );
        let params = SupermatrixParams {
            exponents: ptr(&e, &device),
            ls: ptr(&l, &device),
            first: ptr(&f, &device),
            offsets: ptr(&o, &device),
            weights: ptr(&w, &device),
            packed: ptr(&packed, &device),
            n_sets,
            nsym: nsym as i32,
            kmax: kmax as i32,
        };
        let function = device.function(FILE, SOURCE, "supermatrix")?;
        let blocks = n_sets.div_ceil(BLOCK as u64).clamp(1, 65_535 * 16) as u32;
        let config = LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 };
        // SAFETY: the buffers hold the sizes the kernel reads (exponents Σ nbs, ls/first nsym (+1),
        // offsets nsym + 1, weights nsym² kmax) and packed n_sets; params mirrors the C struct.
        unsafe { device.stream().launch_builder(&function).arg(&params).launch(config) }?;
        device.synchronize()?;
        let blas = device.blas()?;
        let n_pairs = map.n_pairs() as usize;
        let (folded, product) = (device.zeros::<f64>(n_pairs)?, device.zeros::<f64>(n_pairs)?);
        Ok(DeviceSupermatrix { device, blas, packed, folded, product, n_pairs })
    }

    /// The packed supermatrix, downloaded.
    pub fn download(&self) -> Result<Vec<f64>> {
        let mut out = crate::memory::filled("the supermatrix", self.packed.len(), 0.0)?;
        self.device.download_into(&self.packed, &mut out)?;
        Ok(out)
    }

    /// out = G folded (length T) by cuBLAS dspmv (upper packed).
    pub fn contract(&mut self, folded: &[f64], out: &mut [f64]) -> Result<()> {
        let t = self.n_pairs;
        self.device.stream().memcpy_htod(&folded[..t], &mut self.folded)?;
        let (x, y) = (&self.folded, &self.product);
        let n =
            i32::try_from(t).map_err(|_| Error::invalid("symmetries", "give too many function pairs for cuBLAS"))?;
        // SAFETY: packed holds n(n+1)/2 doubles, x and y n; the handle is bound to the stream.
        let status = unsafe {
            cudarc::cublas::sys::cublasDspmv_v2(
                *self.blas.handle(),
                cublasFillMode_t::CUBLAS_FILL_MODE_UPPER,
                n,
                &1.0,
                ptr(&self.packed, &self.device) as *const f64,
                ptr(x, &self.device) as *const f64,
                1,
                &0.0,
                ptr(y, &self.device) as *mut f64,
                1,
            )
        };
        if status != cublasStatus_t::CUBLAS_STATUS_SUCCESS {
            return Err(Error::Cuda(format!("cublasDspmv: {status:?}")));
        }
        self.device.download_into(y, &mut out[..t])
    }
}
