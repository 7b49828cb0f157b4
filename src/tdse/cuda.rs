//! CUDA path of the propagator (`kernels/tdse.cu`): the slots, the reference state and the
//! potential array live in device memory; a stage is two kernel launches (the explicit rings, then
//! the implicit ones; both march in x over chunks of planes) queued on the device's stream without
//! waiting; reductions write one partial sum per block, added on the host in block order
//! (deterministic). A handle that stores complex float ([`Storage::ComplexFloat`]) runs the same
//! kernels instantiated for float slots (names ending in `_f`): loads widen to double, stores
//! round to nearest; its transfers (halo planes, uploads, downloads) pass through a device buffer
//! of doubles in pieces, widened or narrowed on the device, so the host converts nothing.

use super::engine::{Engine, SliceAxis, Slot, StageInput, Sum, SLOTS};
use super::grid::{Geometry, Grid};
use super::potential::Absorber;
use super::scheme::{Prev, Storage};
use crate::backend::CudaDevice;
use crate::error::{Error, Result};
use crate::math::scalar::{as_doubles, as_doubles_mut};
use cudarc::driver::{CudaFunction, CudaSlice, DevicePtr, DeviceRepr, LaunchConfig, PushKernelArg};
use num_complex::Complex64 as C64;
use std::ops::Range;
use std::sync::Arc;

const FILE: &str = "tdse.cu";
const SOURCE: &str = include_str!("../../kernels/tdse.cu");
/// Blocks of the reductions (a power of two of threads each).
const SUM_BLOCKS: u32 = 1024;
const SUM_THREADS: u32 = 256;
/// Threads of an explicit-ring block: 32 points of a ring (one warp) × 8 rings.
const MARCH_BLOCK: (u32, u32) = (32, 8);
/// Planes a block of the explicit rings marches through, and of the implicit rings (fewer: one
/// block holds one ring, and more blocks keep the device full).
const MARCH_PLANES: usize = 16;
const IMPLICIT_PLANES: usize = 4;
/// Largest gridDim.y of a launch; longer slabs get longer chunks.
const MAX_CHUNKS: usize = 65_535;
/// Rings of more points than this use the implicit kernel built for 1024 threads.
const IMPLICIT_NARROW: usize = 256;
/// Points of the double buffer the transfers of a complex-float slot pass through (64 MiB).
const STAGING_POINTS: usize = 1 << 22;

#[repr(C)]
#[derive(Clone, Copy, Default)]
struct StageParams {
    out: u64,
    prev: u64,
    cur: u64,
    surface: u64,
    potential: u64,
    absorber_x: u64,
    absorber_2: u64,
    absorber_3: u64,
    trig: u64,
    n2: i64,
    n3: i64,
    x_offset: i64,
    plane_first: i64,
    plane_count: i64,
    ring_first: i64,
    ring_count: i64,
    dx: f64,
    inv_dx2: f64,
    d2: f64,
    d3: f64,
    x0: f64,
    y0: f64,
    z0: f64,
    c_re: f64,
    c_im: f64,
    delta: f64,
    alpha: f64,
    beta: f64,
    gamma: f64,
    shift: f64,
    ion: [f64; 10],
    rx: f64,
    ry: f64,
    rz: f64,
    cylindrical: i32,
    prev_mode: i32,
    array_potential: i32,
    has_ion: i32,
}

// SAFETY: repr(C) integers and doubles, mirrored field by field in tdse.cu.
unsafe impl DeviceRepr for StageParams {}

#[repr(C)]
#[derive(Clone, Copy, Default)]
struct SumParams {
    stage: StageParams,
    reference: u64,
    partials: u64,
    centre: [f64; 3],
    radius2: f64,
    what: i32,
    pad: i32,
}

// SAFETY: as StageParams.
unsafe impl DeviceRepr for SumParams {}

/// The kernels' code of a slice axis (`slice_source` in tdse.cu).
fn slice_code(axis: SliceAxis) -> i32 {
    match axis {
        SliceAxis::X => 0,
        SliceAxis::Second => 1,
        SliceAxis::Third => 2,
    }
}

/// A wavefunction slot in device memory: nx_local + 2 planes of interleaved (re, im) doubles or
/// floats.
enum DeviceSlot {
    Double(CudaSlice<f64>),
    Float(CudaSlice<f32>),
}

impl DeviceSlot {
    fn zeros(device: &CudaDevice, storage: Storage, points: usize) -> Result<Self> {
        Ok(match storage {
            Storage::ComplexDouble => DeviceSlot::Double(device.zeros::<f64>(2 * points)?),
            Storage::ComplexFloat => DeviceSlot::Float(device.zeros::<f32>(2 * points)?),
        })
    }

    fn ptr(&self, device: &CudaDevice) -> u64 {
        match self {
            DeviceSlot::Double(v) => v.device_ptr(device.stream()).0,
            DeviceSlot::Float(v) => v.device_ptr(device.stream()).0,
        }
    }

    fn clear(&mut self, device: &CudaDevice) -> Result<()> {
        let stream = device.stream();
        match self {
            DeviceSlot::Double(v) => stream.memset_zeros(v)?,
            DeviceSlot::Float(v) => stream.memset_zeros(v)?,
        }
        Ok(())
    }
}

/// The conversions of complex-float transfers: the double buffer and its two kernels.
struct Staging {
    buffer: CudaSlice<f64>,
    widen: CudaFunction,
    narrow: CudaFunction,
}

/// The CUDA backend of one handle.
pub struct CudaEngine {
    device: Arc<CudaDevice>,
    grid: Grid,
    storage: Storage,
    /// Complex-float handles only.
    staging: Option<Staging>,
    /// nx_local + 2 planes each; None when not allocated.
    slots: [Option<DeviceSlot>; SLOTS],
    reference: Option<CudaSlice<f64>>,
    potential: Option<CudaSlice<f64>>,
    /// V_surf of the last stage's input, uploaded when it changes.
    surface: CudaSlice<f64>,
    surface_host: Vec<f64>,
    partials: CudaSlice<f64>,
    /// W (hartree) along x (global planes), the second and the third coordinate.
    absorber: [CudaSlice<f64>; 3],
    /// cos θ_m, sin θ_m interleaved (cylindrical; zeros otherwise).
    trig: CudaSlice<f64>,
    explicit_kernel: CudaFunction,
    implicit_kernel: CudaFunction,
    implicit_wide_kernel: CudaFunction,
    sums_kernel: CudaFunction,
    scale_kernel: CudaFunction,
    slice_kernel: CudaFunction,
    potential_kernel: CudaFunction,
}

fn ptr(slice: &CudaSlice<f64>, device: &CudaDevice) -> u64 {
    slice.device_ptr(device.stream()).0
}

impl CudaEngine {
    /// Zeroed slots 0 and 1 of `storage` on `device` (slot 2 on demand), the absorber and θ
    /// tables, and the kernels compiled for that storage.
    pub fn new(device: Arc<CudaDevice>, grid: &Grid, absorber: &Absorber, storage: Storage) -> Result<Self> {
        let len = grid.stored_len();
        let slots =
            [Some(DeviceSlot::zeros(&device, storage, len)?), Some(DeviceSlot::zeros(&device, storage, len)?), None];
        let kernel = |name: &str| {
            let suffix = if storage == Storage::ComplexFloat { "_f" } else { "" };
            device.function(FILE, SOURCE, &format!("{name}{suffix}"))
        };
        let along_x: Vec<f64> = (0..grid.nx).map(|k| absorber.along_x(grid, k)).collect();
        let along_2: Vec<f64> = (0..grid.n2).map(|l| absorber.along_second(grid, l)).collect();
        let along_3: Vec<f64> = (0..grid.n3).map(|m| absorber.along_third(grid, m)).collect();
        let trig: Vec<f64> = match grid.geometry {
            Geometry::Cylindrical => (0..grid.n3).flat_map(|m| [grid.coord3(m).cos(), grid.coord3(m).sin()]).collect(),
            Geometry::Cartesian => vec![0.0; 2 * grid.n3],
        };
        let staging = match storage {
            Storage::ComplexDouble => None,
            Storage::ComplexFloat => Some(Staging {
                buffer: device.zeros::<f64>(2 * len.min(STAGING_POINTS))?,
                widen: device.function(FILE, SOURCE, "widen")?,
                narrow: device.function(FILE, SOURCE, "narrow")?,
            }),
        };
        Ok(CudaEngine {
            staging,
            absorber: [device.upload(&along_x)?, device.upload(&along_2)?, device.upload(&along_3)?],
            trig: device.upload(&trig)?,
            surface: device.zeros::<f64>(grid.nx)?,
            surface_host: vec![0.0; grid.nx],
            partials: device.zeros::<f64>(2 * SUM_BLOCKS as usize)?,
            explicit_kernel: kernel("stage_march")?,
            implicit_kernel: kernel("stage_implicit_march")?,
            implicit_wide_kernel: kernel("stage_implicit_march_wide")?,
            sums_kernel: kernel("sums")?,
            scale_kernel: kernel("scale_owned")?,
            slice_kernel: kernel("density_slice")?,
            potential_kernel: device.function(FILE, SOURCE, "potential_slice")?,
            grid: grid.clone(),
            storage,
            slots,
            reference: None,
            potential: None,
            device,
        })
    }

    fn slot(&self, slot: Slot) -> Result<&DeviceSlot> {
        self.slots[slot].as_ref().ok_or_else(|| Error::Internal(format!("TDSE slot {slot} used before allocation")))
    }

    fn slot_mut(&mut self, slot: Slot) -> Result<&mut DeviceSlot> {
        self.slots[slot].as_mut().ok_or_else(|| Error::Internal(format!("TDSE slot {slot} used before allocation")))
    }

    fn slot_ptr(&self, slot: Slot) -> Result<u64> {
        Ok(self.slot(slot)?.ptr(&self.device))
    }

    /// Points `points` (stored-point indices) of `slot` into `out` as doubles (queued: the caller
    /// synchronises before reading `out`).
    fn read_points(&self, slot: Slot, points: Range<usize>, out: &mut [C64]) -> Result<()> {
        let stream = self.device.stream();
        match (self.slot(slot)?, &self.staging) {
            (DeviceSlot::Double(v), _) => {
                stream.memcpy_dtoh(&v.slice(2 * points.start..2 * points.end), as_doubles_mut(out))?
            }
            (DeviceSlot::Float(v), Some(staging)) => {
                for (i, piece) in out.chunks_mut(STAGING_POINTS).enumerate() {
                    let first = points.start + i * STAGING_POINTS;
                    // A complex float is 8 bytes.
                    let (src, n) = (v.device_ptr(stream).0 + 8 * first as u64, piece.len() as i64);
                    let dst = ptr(&staging.buffer, &self.device);
                    // SAFETY: `src` holds n complex floats of the slot, the buffer at least n
                    // complex doubles (pieces of at most STAGING_POINTS).
                    unsafe {
                        stream.launch_builder(&staging.widen).arg(&src).arg(&dst).arg(&n).launch(elementwise(n))
                    }?;
                    stream.memcpy_dtoh(&staging.buffer.slice(0..2 * piece.len()), as_doubles_mut(piece))?;
                }
            }
            (DeviceSlot::Float(_), None) => return Err(Error::Internal("a float slot without staging".into())),
        }
        Ok(())
    }

    /// `values` into points `points` of `slot`, rounded to the stored type (queued; the host
    /// data is copied before this returns).
    fn write_points(&mut self, slot: Slot, points: Range<usize>, values: &[C64]) -> Result<()> {
        let stream = self.device.stream().clone();
        let psi =
            self.slots[slot].as_mut().ok_or_else(|| Error::Internal(format!("TDSE slot {slot} not allocated")))?;
        match (psi, &mut self.staging) {
            (DeviceSlot::Double(v), _) => {
                stream.memcpy_htod(as_doubles(values), &mut v.slice_mut(2 * points.start..2 * points.end))?
            }
            (DeviceSlot::Float(v), Some(staging)) => {
                for (i, piece) in values.chunks(STAGING_POINTS).enumerate() {
                    let first = points.start + i * STAGING_POINTS;
                    stream.memcpy_htod(as_doubles(piece), &mut staging.buffer.slice_mut(0..2 * piece.len()))?;
                    let src = staging.buffer.device_ptr(&stream).0;
                    let dst = v.device_ptr(&stream).0 + 8 * first as u64;
                    let n = piece.len() as i64;
                    // SAFETY: the buffer holds n complex doubles, `dst` n complex floats of the slot.
                    unsafe {
                        stream.launch_builder(&staging.narrow).arg(&src).arg(&dst).arg(&n).launch(elementwise(n))
                    }?;
                }
            }
            (DeviceSlot::Float(_), None) => return Err(Error::Internal("a float slot without staging".into())),
        }
        Ok(())
    }

    /// The owned points of a slot (stored-point indices: the ghost plane comes first).
    fn owned_points(&self) -> Range<usize> {
        let plane = self.grid.plane_len();
        plane..plane * (self.grid.nx_local + 1)
    }

    /// The kernel parameters of `input` (slots left 0), uploading V_surf if it changed.
    fn stage_params(&mut self, input: &StageInput) -> Result<StageParams> {
        if !input.potential.array && self.surface_host != input.potential.surface {
            self.device.stream().memcpy_htod(input.potential.surface, &mut self.surface)?;
            self.surface_host.copy_from_slice(input.potential.surface);
        }
        let g = &self.grid;
        let p = input.scheme.params;
        let (ion, r) = match input.potential.ion {
            Some((ion, r)) => (
                [
                    ion.z,
                    ion.z_core,
                    ion.a1,
                    ion.a2,
                    ion.a3,
                    ion.polarisability,
                    ion.polarisation_cutoff,
                    ion.core_amplitude,
                    ion.core_exponent,
                    ion.soft_core,
                ],
                r,
            ),
            None => ([0.0; 10], [0.0; 3]),
        };
        let array = input.potential.array;
        if array && self.potential.is_none() {
            return Err(Error::Internal("TDSE potential array used before it was set".into()));
        }
        Ok(StageParams {
            surface: ptr(&self.surface, &self.device),
            potential: self.potential.as_ref().map_or(0, |v| ptr(v, &self.device)),
            n2: g.n2 as i64,
            n3: g.n3 as i64,
            x_offset: g.x_offset as i64,
            plane_first: 0,
            plane_count: g.nx_local as i64,
            ring_first: 0,
            ring_count: g.n2 as i64,
            dx: g.dx,
            inv_dx2: 1.0 / (g.dx * g.dx),
            d2: g.d2,
            d3: g.d3,
            x0: g.x0,
            y0: g.y0,
            z0: g.z0,
            c_re: input.stage.c.re,
            c_im: input.stage.c.im,
            delta: input.stage.delta,
            alpha: p.alpha,
            beta: p.beta,
            gamma: p.gamma,
            shift: input.potential.shift,
            absorber_x: ptr(&self.absorber[0], &self.device),
            absorber_2: ptr(&self.absorber[1], &self.device),
            absorber_3: ptr(&self.absorber[2], &self.device),
            trig: ptr(&self.trig, &self.device),
            ion,
            rx: r[0],
            ry: r[1],
            rz: r[2],
            cylindrical: (g.geometry == Geometry::Cylindrical) as i32,
            prev_mode: match input.stage.prev {
                Prev::InPlace => 0,
                Prev::Cur => 1,
                Prev::Other => 2,
            },
            array_potential: array as i32,
            has_ion: input.potential.ion.is_some() as i32,
            ..Default::default()
        })
    }
}

/// The launch of an element-wise kernel over n points.
fn elementwise(n: i64) -> LaunchConfig {
    LaunchConfig::for_num_elems(n.clamp(1, 1 << 30) as u32)
}

/// Chunks of planes (gridDim.y) for `planes` planes marched `per_chunk` at a time.
fn chunks(planes: usize, per_chunk: usize) -> u32 {
    planes.div_ceil(per_chunk).clamp(1, MAX_CHUNKS) as u32
}

impl Engine for CudaEngine {
    fn stage(&mut self, input: &StageInput, out: Slot, cur: Slot, other: Slot, planes: Range<usize>) -> Result<()> {
        let mut params = self.stage_params(input)?;
        params.out = self.slot_ptr(out)?;
        params.cur = self.slot_ptr(cur)?;
        params.prev = self.slot_ptr(other)?;
        params.plane_first = planes.start as i64;
        params.plane_count = planes.len() as i64;
        let (n2, n3) = (self.grid.n2, self.grid.n3);
        let implicit = input.scheme.implicit_rings;
        // The explicit rings: tiles of 8 rings × 32 points (m tiles fastest) × chunks of planes.
        if implicit < n2 {
            params.ring_first = implicit as i64;
            params.ring_count = (n2 - implicit) as i64;
            let tiles = n3.div_ceil(MARCH_BLOCK.0 as usize) * (n2 - implicit).div_ceil(MARCH_BLOCK.1 as usize);
            let config = LaunchConfig {
                grid_dim: (tiles as u32, chunks(planes.len(), MARCH_PLANES), 1),
                block_dim: (MARCH_BLOCK.0, MARCH_BLOCK.1, 1),
                shared_mem_bytes: 0,
            };
            // SAFETY: the slots hold nx_local + 2 planes of interleaved complex values (of the
            // storage the kernels were instantiated for), the
            // tables their lengths (surface and absorber_x nx_global, absorber_2 N2, absorber_3
            // N3, trig 2 N3) and the potential array (when used) the owned points; the kernel
            // writes only the given rings of the given planes of `out` and reads their
            // neighbours in `cur`; params mirrors the C struct.
            unsafe { self.device.stream().launch_builder(&self.explicit_kernel).arg(&params).launch(config) }?;
        }
        // The implicit rings: one block of N3 threads (rounded up to a warp) per ring and chunk,
        // 2 N3 + 46 complex values of shared memory.
        if implicit > 0 {
            params.ring_first = 0;
            params.ring_count = implicit as i64;
            let threads = n3.div_ceil(32) * 32;
            let config = LaunchConfig {
                grid_dim: (implicit as u32, chunks(planes.len(), IMPLICIT_PLANES), 1),
                block_dim: (threads as u32, 1, 1),
                shared_mem_bytes: ((2 * n3 + 46) * 16) as u32,
            };
            let kernel = if threads <= IMPLICIT_NARROW { &self.implicit_kernel } else { &self.implicit_wide_kernel };
            // SAFETY: as above; N3 ≤ MAX_RING (scheme.rs), so a block is at most 1024 threads
            // and its shared memory 33.5 KiB.
            unsafe { self.device.stream().launch_builder(kernel).arg(&params).launch(config) }?;
        }
        Ok(())
    }

    fn read_boundary(&mut self, slot: Slot, lower: &mut [C64], upper: &mut [C64]) -> Result<()> {
        let (plane, nx) = (self.grid.plane_len(), self.grid.nx_local);
        self.read_points(slot, plane..2 * plane, lower)?;
        self.read_points(slot, nx * plane..(nx + 1) * plane, upper)?;
        Ok(self.device.stream().synchronize()?)
    }

    fn write_ghosts(&mut self, slot: Slot, lower: &[C64], upper: &[C64]) -> Result<()> {
        let (plane, nx) = (self.grid.plane_len(), self.grid.nx_local);
        self.write_points(slot, 0..plane, lower)?;
        self.write_points(slot, (nx + 1) * plane..(nx + 2) * plane, upper)
    }

    fn sum(&mut self, slot: Slot, what: Sum, input: &StageInput) -> Result<Vec<f64>> {
        let mut stage = self.stage_params(input)?;
        stage.cur = self.slot_ptr(slot)?;
        let (what_code, centre, radius2) = match what {
            Sum::Norm => (0, [0.0; 3], 0.0),
            Sum::Energy => (1, [0.0; 3], 0.0),
            Sum::Overlap => (2, [0.0; 3], 0.0),
            Sum::Sphere { centre, radius } => (3, centre, radius * radius),
        };
        let reference = match (what, &self.reference) {
            (Sum::Overlap, Some(r)) => ptr(r, &self.device),
            (Sum::Overlap, None) => return Err(Error::Internal("TDSE overlap without a reference state".into())),
            _ => 0,
        };
        let params = SumParams {
            stage,
            reference,
            partials: ptr(&self.partials, &self.device),
            centre,
            radius2,
            what: what_code,
            pad: 0,
        };
        let config = LaunchConfig { grid_dim: (SUM_BLOCKS, 1, 1), block_dim: (SUM_THREADS, 1, 1), shared_mem_bytes: 0 };
        // SAFETY: as in `stage`; partials holds 2 SUM_BLOCKS doubles and the reference state (for
        // overlaps) the owned points.
        unsafe { self.device.stream().launch_builder(&self.sums_kernel).arg(&params).launch(config) }?;
        let mut partials = vec![0.0; 2 * SUM_BLOCKS as usize];
        self.device.download_into(&self.partials, &mut partials)?;
        let (a, b) = partials.chunks(2).fold((0.0, 0.0), |(a, b), p| (a + p[0], b + p[1]));
        Ok(vec![a, b])
    }

    fn scale(&mut self, slot: Slot, factor: f64) -> Result<()> {
        let psi = self.slot_ptr(slot)?;
        let (offset, n) = (self.grid.plane_len() as i64, self.grid.local_len() as i64);
        let config = elementwise(n);
        // SAFETY: the owned points of the slot, offset by the ghost plane.
        unsafe {
            self.device
                .stream()
                .launch_builder(&self.scale_kernel)
                .arg(&psi)
                .arg(&offset)
                .arg(&n)
                .arg(&factor)
                .launch(config)
        }?;
        Ok(())
    }

    fn upload(&mut self, slot: Slot, values: &[C64]) -> Result<()> {
        let device = self.device.clone();
        self.slot_mut(slot)?.clear(&device)?;
        self.write_points(slot, self.owned_points(), values)?;
        Ok(device.stream().synchronize()?)
    }

    fn download(&mut self, slot: Slot, values: &mut [C64]) -> Result<()> {
        self.read_points(slot, self.owned_points(), values)?;
        Ok(self.device.stream().synchronize()?)
    }

    fn set_reference(&mut self, values: &[C64]) -> Result<()> {
        self.reference = Some(self.device.upload(as_doubles(values))?);
        Ok(())
    }

    fn set_potential(&mut self, values: &[f64]) -> Result<()> {
        self.potential = Some(self.device.upload(values)?);
        Ok(())
    }

    fn slice(&mut self, slot: Slot, axis: SliceAxis, index: usize, out: &mut [f64]) -> Result<()> {
        let g = &self.grid;
        let result = self.device.uninit::<f64>(out.len())?;
        let (psi, out_ptr) = (self.slot_ptr(slot)?, ptr(&result, &self.device));
        let (n_out, n2, n3, x_offset, index) =
            (out.len() as i64, g.n2 as i64, g.n3 as i64, g.x_offset as i64, index as i64);
        let axis_code = slice_code(axis);
        let cylindrical = (g.geometry == Geometry::Cylindrical) as i32;
        let config = elementwise(out.len() as i64);
        // SAFETY: `result` holds n_out doubles; every source index lies in the owned planes
        // (observables::slice_source).
        unsafe {
            self.device
                .stream()
                .launch_builder(&self.slice_kernel)
                .arg(&psi)
                .arg(&out_ptr)
                .arg(&n_out)
                .arg(&n2)
                .arg(&n3)
                .arg(&x_offset)
                .arg(&axis_code)
                .arg(&cylindrical)
                .arg(&index)
                .launch(config)
        }?;
        self.device.download_into(&result, out)
    }

    fn potential_slice(&mut self, input: &StageInput, axis: SliceAxis, index: usize, out: &mut [f64]) -> Result<()> {
        let stage = self.stage_params(input)?;
        let result = self.device.uninit::<f64>(out.len())?;
        let out_ptr = ptr(&result, &self.device);
        let (n_out, index, axis_code) = (out.len() as i64, index as i64, slice_code(axis));
        let config = elementwise(out.len() as i64);
        // SAFETY: `result` holds n_out doubles; every point read lies in the owned planes
        // (observables::slice_source); the tables and the potential array as in `stage`.
        unsafe {
            self.device
                .stream()
                .launch_builder(&self.potential_kernel)
                .arg(&stage)
                .arg(&out_ptr)
                .arg(&n_out)
                .arg(&axis_code)
                .arg(&index)
                .launch(config)
        }?;
        self.device.download_into(&result, out)
    }

    fn synchronize(&mut self) -> Result<()> {
        Ok(self.device.stream().synchronize()?)
    }

    fn ensure_slot(&mut self, slot: Slot) -> Result<()> {
        if self.slots[slot].is_none() {
            self.slots[slot] = Some(DeviceSlot::zeros(&self.device, self.storage, self.grid.stored_len())?);
        }
        Ok(())
    }

    fn free_slot(&mut self, slot: Slot) {
        self.slots[slot] = None;
    }

    fn name(&self) -> &'static str {
        "cuda"
    }
}
