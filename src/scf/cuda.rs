//! CUDA path of the SCF family: the two-electron supermatrix (non-relativistic or Dirac-Fock) computed one integral set per thread
//! on the triangular map (`kernels/scf.cu`, paper §2.3: grid-stride loop, 64-bit indices; the
//! same closed forms as `cpu.rs` and [`super::slater`]), kept on the device, and the
//! Fock build G D' as one cuBLAS `dspmv` on it (packed upper triangle). Only the folded density
//! (T doubles) goes up and G D' (T doubles) comes down per SCF iteration.

use super::index_map::TriangularMap;
use super::layout::Blocks;
use super::radial::Component;
use super::Watch;
use crate::backend::CudaDevice;
use crate::error::{Error, Result};
use cudarc::cublas::sys::{cublasFillMode_t, cublasStatus_t};
use cudarc::cublas::CudaBlas;
use cudarc::driver::{CudaSlice, DevicePtr, DeviceRepr, LaunchConfig, PushKernelArg};
use std::sync::Arc;

const FILE: &str = "scf.cu";
const SOURCE: &str = include_str!("../../kernels/scf.cu");
const BLOCK: u32 = 128;
/// Integral sets per launch of a watched call, which synchronises after each (about 0.1 s of an
/// H200 for Dirac-Fock sets); an unwatched call computes all of them in one launch.
const DEVICE_SETS_PER_REPORT: u64 = 1 << 25;

#[repr(C)]
#[derive(Clone, Copy)]
struct SupermatrixParams {
    exponents: u64,
    ln_exponents: u64,
    coefs: u64,
    powers: u64,
    comps: u64,
    first: u64,
    offsets: u64,
    weights: u64,
    packed: u64,
    set_begin: u64,
    set_end: u64,
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
    /// Computes the packed supermatrix of `blocks` for `map`; a watch hears the fraction of the
    /// sets done after each launch of [`DEVICE_SETS_PER_REPORT`] sets, synchronised.
    pub fn new(
        device: Arc<CudaDevice>,
        blocks: &Blocks,
        map: &TriangularMap,
        mut watch: Watch<'_, '_>,
    ) -> Result<Self> {
        // The blocks' one flat layout, one array per field (the kernel's structure of arrays).
        let functions = blocks.functions();
        let nsym = blocks.n_blocks();
        let exponents: Vec<f64> = functions.iter().map(|f| f.exponent).collect();
        let ln_exponents: Vec<f64> = functions.iter().map(|f| f.ln_exponent).collect();
        let coefs: Vec<f64> = functions.iter().flat_map(|f| f.terms.map(|t| t.1)).collect();
        let powers: Vec<u32> = functions.iter().flat_map(|f| f.terms.map(|t| t.0)).collect();
        let comps: Vec<u32> = functions.iter().map(|f| (f.component == Component::Small) as u32).collect();
        let first: Vec<u64> = blocks.first().iter().map(|&f| f as u64).collect();
        let offsets: Vec<u64> =
            (0..=nsym).map(|j| if j == nsym { map.n_pairs() } else { map.pair_index(j, 0, 0) }).collect();
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
        let n_sets = map.n_sets();
        let len = usize::try_from(n_sets).map_err(|_| Error::invalid("symmetries", "give too many integral sets"))?;
        let packed = device.uninit::<f64>(len)?;
        let (e, ln_e, c, p, k, f, o, w) = (
            device.upload(&exponents)?,
            device.upload(&ln_exponents)?,
            device.upload(&coefs)?,
            device.upload(&powers)?,
            device.upload(&comps)?,
            device.upload(&first)?,
            device.upload(&offsets)?,
            device.upload(&weights)?,
        );
        let mut params = SupermatrixParams {
            exponents: ptr(&e, &device),
            ln_exponents: ptr(&ln_e, &device),
            coefs: ptr(&c, &device),
            powers: ptr(&p, &device),
            comps: ptr(&k, &device),
            first: ptr(&f, &device),
            offsets: ptr(&o, &device),
            weights: ptr(&w, &device),
            packed: ptr(&packed, &device),
            set_begin: 0,
            set_end: 0,
            nsym: nsym as i32,
            kmax: kmax as i32,
        };
        let function = device.function(FILE, SOURCE, "supermatrix")?;
        let piece = if watch.is_some() { DEVICE_SETS_PER_REPORT } else { n_sets.max(1) };
        while params.set_end < n_sets {
            params.set_begin = params.set_end;
            params.set_end = n_sets.min(params.set_begin + piece);
            let blocks = (params.set_end - params.set_begin).div_ceil(BLOCK as u64).clamp(1, 65_535 * 16) as u32;
            let config = LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 };
            // SAFETY: the buffers hold the sizes the kernel reads (exponents, ln_exponents and comps F functions,
            // coefs and powers 2F, first and offsets nsym + 1, weights nsym² kmax) and packed
            // n_sets >= set_end; params mirrors the C struct.
            unsafe { device.stream().launch_builder(&function).arg(&params).launch(config) }?;
            if let Some(report) = watch.as_deref_mut() {
                device.synchronize()?;
                report(params.set_end as f64 / n_sets as f64)?;
            }
        }
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
